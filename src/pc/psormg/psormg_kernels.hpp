/*
   psormg_kernels.hpp - device kernels of PCPSORMG (red-black projected-SOR multigrid for linear complementarity
   problems, Klement & Oberhuber): coloured projected SOR sweeps, obstacle restriction, LCP measures, the mask of
   the truncated monotone multigrid and the 1D interpolation stencil of the grid hierarchy (the colourings of the
   grids are those of src/sys/kp_colour).

   Everything takes Kokkos views (or plain integers); nothing here sees a PETSc object. Bounds are passed as
   views; an empty view means "unbounded on that side" (no memory traffic for it).
*/
#pragma once

#include "kp_sparse.hpp"

namespace petsckp
{
namespace psormg
{
/* How the bounds of the coarse-grid correction are made from the fine gaps gl = lo - x <= 0 <= gu = up - x:
   Monotone: lo_c[J] = max_{i : R_Ji > 0} gl_i, up_c[J] = min_{i : R_Ji > 0} gu_i (feasible: x + P e stays in
             [lo, up] for every coarse-feasible e when P >= 0 has row sums <= 1; Mandel, Kornhuber);
   Linear:   lo_c = Rc gl, up_c = Rc gu with Rc the row-normalised R, averaging only the finite children (the
             paper's choice, no feasibility guarantee).
   Only the positive weights of R count, so that with R truncated at the active points (zeroed columns; truncated
   monotone multigrid) the monotone bounds run over the truncated supports. */
enum class ObstacleRestriction {
  Monotone,
  Linear
};

/* Coarse bound of the correction from fine gaps over the pattern of R = P^T (Rd local block, Ro ghost block whose
   columns index gghost). lower = true: gaps of a lower bound (max / -inf), false: of an upper bound (min / +inf). */
void RestrictGap(ObstacleRestriction type, bool lower, const CsrMatrix &Rd, const CsrMatrix &Ro, UView<const Scalar> g, UView<const Scalar> gghost, UView<Scalar> gc);

/* Measures of an LCP iterate x with residual r = b - A x and bounds lo/up (empty = unbounded), local part:
   pnorm2  = sum p_i^2, p_i = r_i (free), max(r_i, 0) (at lo), min(r_i, 0) (at up)   (projected residual)
   comp    = sum (x_i - lo_i) max(-r_i, 0) + (up_i - x_i) max(r_i, 0)                 (finite bounds only)
   infeas  = max_i max(lo_i - x_i, x_i - up_i, 0)
   energy  = -1/2 x.(b + r) = 1/2 x^T A x - b^T x
   nactive = number of points with |x_i - bound_i| <= acttol max(1, |bound_i|) */
struct LcpMeasures {
  Real pnorm2 = 0, comp = 0, infeas = 0, energy = 0;
  Int  nactive = 0;
};
LcpMeasures ComputeLcpMeasures(UView<const Scalar> x, UView<const Scalar> r, UView<const Scalar> b, UView<const Scalar> lo, UView<const Scalar> up, Real acttol, bool all);

/* The fine points kept by the truncated coarse-grid correction (truncated monotone multigrid, Kornhuber): keep_i = 0
   where x_i lies on a bound (|x_i - bound_i| <= acttol max(1, |bound_i|), the test of the active set of
   ComputeLcpMeasures), 1 elsewhere (keep holds the mask of the last call on entry). Returns the number of entries of
   keep that changed (the moves of the active set since the last call) and the number of zeros (the active set). */
struct TruncationInfo {
  Int changed = 0, active = 0;
};
TruncationInfo TruncationMask(UView<const Scalar> x, UView<const Scalar> lo, UView<const Scalar> up, Real acttol, UView<Scalar> keep);

/* The projected SOR solve of the coarsest grid in one kernel (one team of threads; one process): the iteration of
   PCPSORMG's coarsest-grid solve without a launch per colour and a host read per test, for a grid of a few dozen
   points, where a GPU would otherwise spend its time launching kernels. A (square, local) with the rows of each colour
   rows(offsets(c) .. offsets(c+1)-1), c = 0 .. ncolours-1 (ColourPartition); b, bounds lo/up (empty: none) and x
   (the initial guess on entry). With p(x) the projected residual of x (as ComputeLcpMeasures: r = b - A x, at a point
   on a bound (acttol) only its sign that leaves the bound counts) and p0 = ||p(x_0)||_2 > 0:
     for it = 0, 2, 4, ... < max_it: one forward sweep (colours ascending), one backward sweep (descending), each
       colour's rows x_i = proj_[lo_i, up_i]((1 - omega) x_i + omega (b_i - sum_{j != i} a_ij x_j) / a_ii) at once
       (rows with a zero diagonal left alone, as ColourSweep); after every fourth pair: stop when
       ||p(x)||_2 <= rtol p0.
   pairs(0) receives the number of sweep pairs done (on the device; a read only for tests and monitors). */
void CoarsePsor(const CsrMatrix &A, UView<const Int> rows, UView<const Int> offsets, Int ncolours, Real omega, Int max_it, Real rtol, Real acttol, UView<const Scalar> b, UView<const Scalar> lo, UView<const Scalar> up, UView<Scalar> x, UView<Int> pairs);

/* Checks of the bounds of an LCP (local part; lo / up empty = absent): the smallest index with a NaN lower bound,
   a NaN upper bound, a lower bound +inf, an upper bound -inf, and lo_i > up_i (with lo and up there); -1 where
   there is no such index. */
struct BoundsInfo {
  Int  nan_lo = -1, nan_up = -1, pinf_lo = -1, ninf_up = -1, crossed = -1;
  Real lo_crossed = 0, up_crossed = 0;
};
BoundsInfo CheckBounds(UView<const Scalar> lo, UView<const Scalar> up);

/* Grid hierarchy: a grid line of M points is coarsened to CoarseSize1D(M) points, coarse point I sitting on fine
   point 2I (lines of 1 or 2 points are not coarsened). Prolong1D gives the linear interpolation stencil of fine
   point i: the coarse indices J[0..n) and weights w (n = 1 or 2). On an even line the last fine point M-1 lies past
   the last coarse point M-2; it takes
     constantedge = false: half the last coarse value (linear interpolation to a zero Dirichlet value at M, right
                           when the operator has its boundary eliminated there),
     constantedge = true:  the last coarse value itself (constant extrapolation: P reproduces constants up to the
                           edge, needed for Neumann/natural boundaries, where constants are near-null vectors).
   The weights are >= 0 and sum to <= 1 (to 1 everywhere with constantedge, and on odd lines). */
KOKKOS_INLINE_FUNCTION Int CoarseSize1D(Int M) { return M > 2 ? (M + 1) / 2 : M; }
KOKKOS_INLINE_FUNCTION Int Prolong1D(Int i, Int M, Int J[2], Real w[2], bool constantedge = false)
{
  const Int Mc = CoarseSize1D(M);
  if (Mc == M) {
    J[0] = i, w[0] = 1.0;
    return 1;
  }
  if (i % 2 == 0) {
    J[0] = i / 2, w[0] = 1.0;
    return 1;
  }
  J[0] = (i - 1) / 2, w[0] = 0.5;
  if ((i + 1) / 2 < Mc) {
    J[1] = (i + 1) / 2, w[1] = 0.5;
    return 2;
  }
  if (constantedge) w[0] = 1.0;
  return 1;
}

/* The interpolation P from the next coarser grid of a whole (sequential) grid of M[0] x M[1] x M[2] points, x
   fastest, as a device CSR matrix (fine rows, coarse columns, both in natural ordering): the tensor product of the
   Prolong1D stencils, with the far-edge rule constantedge[d] per direction. Columns ascending in every row. The
   block form below with the whole grid as the block (every coarse point local). */
void StructuredProlongation(const Int M[3], const bool constantedge[3], CsrMatrix &P);

/* The sums that decide the far-edge rule of direction d of a whole (sequential) grid of M points with operator A
   (natural ordering): over the rows of the plane i_d = M[d] - 1 that lie on no other boundary (of a direction with
   more than 2 points), sums[0] = sum of their row sums, sums[1] = - sum of their couplings to the plane
   i_d = M[d] - 2, sums[2] = number of those rows. */
void EdgeRowSums(const CsrMatrix &A, const Int M[3], int d, Real sums[3]);
/* The same over the rows of a block xs .. xs+xm-1 (per direction) of a distributed grid (this rank's sums; the caller
   adds them over the ranks): Ad the local block (columns: the block's points, x fastest), Ao the ghost block (empty:
   none) whose column g lies on the plane i_d = ghostcoord(g). */
void EdgeRowSums(const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Int> ghostcoord, const Int M[3], const Int xs[3], const Int xm[3], int d, Real sums[3]);

/* The rows of P (as StructuredProlongation) of the fine block xs .. xs+xm-1 (per direction) of a distributed grid of
   M points, whose coarse grid block is cxs .. cxs+cxm-1: Pd the local block (columns: the coarse block's points, x
   fastest), Po the ghost block with nghost columns, the column of a coarse point outside the block being
   ghostid(box index) in the box cxs-1 .. cxs+cxm per direction (cxm+2 points per direction, x fastest; see
   ProlongationGhostBox). Columns ascend in every row of Pd (and of Po when ghostid ascends with the box index).
   One kernel over the rows: the row offsets of both blocks follow from 1D prefix sums of the stencils' lengths, and
   the columns and weights from the 1D stencils, all tabulated per direction (O(xm[0] + xm[1] + xm[2]) on the host,
   copied to the device), without a count pass and a scan. */
void StructuredProlongation(const Int M[3], const bool constantedge[3], const Int xs[3], const Int xm[3], const Int cxs[3], const Int cxm[3], UView<const Int> ghostid, Int nghost, CsrMatrix &Pd, CsrMatrix &Po);
/* the coarse index range [lo, hi] (hi < lo: none) that the interpolation reaches from fine points s .. e-1 of a line of
   M points */
KOKKOS_INLINE_FUNCTION void ProlongRange1D(Int M, Int s, Int e, Int *lo, Int *hi)
{
  Int J[2];
  Real w[2];
  if (e <= s) {
    *lo = 0, *hi = -1;
    return;
  }
  Prolong1D(s, M, J, w, false);
  *lo = J[0];
  const Int n = Prolong1D(e - 1, M, J, w, false);
  *hi = J[n - 1];
}
/* the ghost-id view of StructuredProlongation: -1 over the box, ghostid(boxidx(g)) = g */
void ProlongationGhostBox(Int boxsize, UView<const Int> boxidx, View<Int> &ghostid);

/* the coarse points owned by the process owning fine points [s, e) of a line of M points */
inline void CoarseRange1D(Int M, Int s, Int e, Int *cs, Int *ce)
{
  if (CoarseSize1D(M) == M) *cs = s, *ce = e;
  else *cs = (s + 1) / 2, *ce = (e + 1) / 2;
}
} // namespace psormg
} // namespace petsckp
