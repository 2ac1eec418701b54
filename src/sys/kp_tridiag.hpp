/*
   kp_tridiag.hpp - batched tridiagonal solves on the device.

   nsys independent systems of n rows each. Row l of system s reads
       a(s,l) x(s,l-1) + b(s,l) x(s,l) + c(s,l) x(s,l+1) = f(s,l)      (a(s,0) and c(s,n-1) are never read)
   Every vector of a batch (a, b, c, f, x) is stored in one view of nsys*n entries in one of two layouts:
   - TridiagLayout::Interleaved: entry (s,l) at l*nsys + s (system index fastest: one thread per system reads
     coalesced memory on a GPU),
   - TridiagLayout::Contiguous:  entry (s,l) at s*n + l (each system contiguous).

   Two forms:
   - TridiagSolveBatched: every system has its own coefficients (views in the batch layout).
   - TridiagSolveShifted: one shared pair of tridiagonal matrices A, M (n entries per diagonal) and a shift per
     system: (A + shift(s) M) x_s = f_s. M empty = identity, shift empty = all zero (one matrix, many right-hand
     sides). The shifted coefficients are generated on the fly, never stored (PSCR: (A2 + (lambda_l + c) M2) y_l).

   Algorithms: Thomas (LU without pivoting, one thread per system), PCR-Thomas (k steps of parallel cyclic
   reduction splitting every system into 2^k independent interleaved systems, then Thomas on those), and the
   partition method (H. H. Wang, "A parallel method for tridiagonal equations", ACM TOMS 7, 1981; the form with
   separator rows): every system is cut into P chunks whose last rows are separators; one thread per chunk computes,
   by a top-down and a bottom-up elimination sweep without storage, the first and last values of the chunk interior
   as affine functions of the two neighbouring separators; one thread per system solves the reduced tridiagonal
   system of the P - 1 separators; one thread per chunk then solves its interior with the separators known. It reads
   the right-hand side three times and writes the solution and one work array: about 7 passes over the data, against
   about 10 per PCR step. Auto picks Thomas on the host and when there are enough systems to fill the device, the
   partition method otherwise (few long systems).
   Team (one team per system, the partition method inside the team): every thread of the team holds C consecutive
   rows in registers (the last row of its chunk is a separator), eliminates its chunk's interior with one division
   per row, the separators' tridiagonal system is solved by cyclic reduction in team scratch memory, and every
   thread finishes its rows: the data pass through global memory once (read f, write x). This is the stage
   structure of the GPU PSCR tridiagonal solver of M. Myllykoski, T. Rossi and J. Toivanen, "On solving separable
   block tridiagonal linear systems using a GPU implementation of radix-4 PSCR method", J. Parallel Distrib.
   Comput. 115 (2018), Section 3.3 (CR in local memory), with the partition method's chunks per thread in front of
   it. PSCR uses the same team solver inside its fused level kernels (TeamChunkSolve, kp_tridiag_impl.hpp).

   No pivoting: a pivot p with !(|p| > pivtol * (|a|+|b|+|c| of its row)) (zero, tiny or not finite) marks the
   system as failed: status(s) = 1 + a row where it happened (0 = fine), and the solution of that system is set to
   NaN (never a silently wrong answer). Nothing crashes; the caller reads the status (TridiagCountFailures) and
   raises the PETSc error. status may be an empty view when the caller does not want it.

   f may alias x (in-place solve). Nothing here knows about PETSc objects. The templates behind these functions
   (kp_tridiag_impl.hpp) also take a right-hand side accessor, for solvers that form the right-hand sides on the fly.
*/
#pragma once

#include "kp_kokkos.hpp"

namespace petsckp
{
enum class TridiagLayout { Interleaved, Contiguous };
enum class TridiagAlgorithm { Auto, Thomas, PCRThomas, Partition, Team };

struct TridiagShape {
  Int           nsys = 0, n = 0;
  TridiagLayout layout = TridiagLayout::Interleaved;
  /* entry (s,l) is at s*sstride() + l*lstride() */
  KOKKOS_INLINE_FUNCTION Int sstride() const { return layout == TridiagLayout::Interleaved ? 1 : n; }
  KOKKOS_INLINE_FUNCTION Int lstride() const { return layout == TridiagLayout::Interleaved ? nsys : 1; }
  KOKKOS_INLINE_FUNCTION Int index(Int s, Int l) const { return s * sstride() + l * lstride(); }
  Int                        size() const { return nsys * n; }
};

struct TridiagOptions {
  TridiagAlgorithm alg       = TridiagAlgorithm::Auto;
  Int              pcr_steps = -1; /* PCR-Thomas: number of PCR steps (-1: chosen from nsys and n) */
  Int              chunks    = -1; /* partition method: chunks per system (-1: chosen from nsys and n; at most n/2) */
  Int              team_rows = -1; /* Team: rows per thread, 1, 2, 4, 8 or 16 (-1: 8, 16 above 2048 rows on a GPU) */
  Real             pivtol    = 0;  /* relative pivot threshold; 0: only exactly zero / non-finite pivots fail */
};

/* workspace reused between calls (grows on demand); pass nullptr to allocate per call */
struct TridiagWork {
  View<Scalar> buf;
  void         Reserve(Int size)
  {
    if ((Int)buf.extent(0) < size) buf = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("tridiag work")), size);
  }
};

/* the number of PCR steps of PCRThomas with pcr_steps = -1 (0 steps = plain Thomas) */
Int TridiagAutoPCRSteps(Int nsys, Int n);
/* the number of chunks Auto (and Partition with chunks = -1) uses for this shape: 1 = plain Thomas */
Int TridiagAutoChunks(Int nsys, Int n);

void TridiagSolveBatched(const TridiagShape &shape, UView<const Scalar> a, UView<const Scalar> b, UView<const Scalar> c, UView<const Scalar> f, UView<Scalar> x, UView<Int> status, const TridiagOptions &opt = TridiagOptions(), TridiagWork *work = nullptr);

/* (A + shift(s) M) x_s = f_s with A = tridiag(al, ad, au), M = tridiag(ml, md, mu) (n entries each; al(0), au(n-1)
   unused). M: pass empty views for the identity. shift: nsys entries, or empty for no shift. */
void TridiagSolveShifted(const TridiagShape &shape, UView<const Scalar> al, UView<const Scalar> ad, UView<const Scalar> au, UView<const Scalar> ml, UView<const Scalar> md, UView<const Scalar> mu, UView<const Scalar> shift, UView<const Scalar> f, UView<Scalar> x, UView<Int> status, const TridiagOptions &opt = TridiagOptions(), TridiagWork *work = nullptr);

/* number of failed systems (status != 0); fences */
Int TridiagCountFailures(UView<const Int> status);
} // namespace petsckp
