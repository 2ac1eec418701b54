/*
   pscr_kernels.hpp - the radix-q partial solution variant of the cyclic reduction (PSCR) method for separable block
   tridiagonal systems, on the device.

   References: Yu. A. Kuznetsov, T. Rossi, "Fast direct method for solving algebraic systems with separable symmetric
   band matrices", East-West J. Numer. Math. 4 (1996) (radix-q PSCR); M. Myllykoski, T. Rossi, J. Toivanen, "On solving
   separable block tridiagonal linear systems using a GPU implementation of radix-4 PSCR method", J. Parallel Distrib.
   Comput. 115 (2018), Sections 2.1-2.3 (the level sets, the partial solution technique and the reduction and back
   substitution formulas used here); M. Myllykoski, "On GPU-accelerated fast direct solvers and their applications in
   image denoising", PhD thesis, Univ. of Jyvaskyla (2015), Section 3.2 (3D: nested PSCR).

   The operator (2D, 3D; dim = 1 is one tridiagonal system):
       A = A1 (x) M2 + M1 (x) A2 + c M1 (x) M2
       A = A1 (x) M2 (x) M3 + M1 (x) A2 (x) M3 + M1 (x) M2 (x) A3 + c M1 (x) M2 (x) M3
   with symmetric tridiagonal n_d x n_d factors A_d, M_d (M_d positive definite; diagonal M_d take the fast eigen
   setup). Vectors are ordered u[(i1 n2 + i2) n3 + i3] (the last index fastest): the pair (A1, M1) acts on the slowest
   index. The shift c enters only the apply: a new c needs no new setup.

   Level sets for any n (not only q^k - 1): J_i = { r : q^i divides r } (1-based rows), k = min{ k : q^k > n }. The
   blocks of level i are the maximal runs of rows not in J_i; each is an independent separable problem solved with the
   eigenvectors of its generalised 1D eigenproblem (partial solution: only the <= q + 1 eigenvector components at the
   rows that carry a right-hand side or a wanted solution row are kept). Per level the apply is
     1. right-hand side formation  G(l) = sum_r W(r, l) F_r                    (batched, all modes of all blocks),
     2. shifted solves             (A2 + (lambda_l + c) M2) y_l = G(l)          (kp_tridiag, or a nested 2D PSCR in 3D),
     3. weighted sums              v = sum_l W(r, l) y_l                        (2 per block in the reduction, <= q - 1 in
                                                                                 the back substitution),
     4. coupling update of the rows of J_i (reduction) or the block-end corrections (back substitution).
   When the shifted solves are tridiagonal (the last reduced dimension: 2D, and the inner problems of 3D), steps 1-3
   of a level are one kernel (pscr_kernels.cxx, LevelTeam): one team per block and group of its modes holds the
   block's right-hand side rows in registers, forms each mode's right-hand side, solves it with kp_tridiag's team
   solver and accumulates the weighted sums in registers; the n_last-long solutions of the shifted systems never go
   through global memory. Otherwise (3D: the shifted solves of dimension 1 are 2D problems, all of a level one batch;
   or systems longer than a team can hold) the right-hand sides and solutions of a level are stored (G).
   Nothing here knows about PETSc objects; the eigen setup runs on the host with LAPACK.
*/
#pragma once

#include "kp_tridiag.hpp"
#include "kp_sparse.hpp"
#include <string>
#include <vector>

namespace petsckp
{
namespace pscr
{
constexpr Int kMaxRadix = 8;

/* one symmetric tridiagonal pair (A, M) on the host: diagonals and first off-diagonals (coupling of i and i+1);
   mo empty: M diagonal; md empty: M = I */
struct Factor {
  std::vector<Real> ad, ao, md, mo;
  Int               n() const { return (Int)ad.size(); }
};

/* the pair on the device, as the sub/main/super diagonals that kp_tridiag's shifted solve reads (M stored always) */
struct DeviceFactor {
  Int        n = 0;
  View<Real> al, ad, au, ml, md, mu;
};

/* eigen data of the blocks of one level of one reduced dimension */
struct Level {
  Int        span = 0;    /* q^i */
  Int        nmodes = 0;  /* modes of all active blocks */
  Int        nblk = 0;    /* active blocks (those with a right-hand side row); a prefix of the blocks */
  Int        nJ = 0;      /* rows of J_i */
  Int        maxm = 0;    /* largest block */
  View<Real> lambda;      /* nmodes */
  View<Int>  mblk;        /* nmodes: block of the mode */
  View<Int>  bm0, bs, be; /* nblk: first mode, first and last row (0-based) */
  View<Int>  bnr, brow;   /* nblk, nblk*(q+1): the rows of J_{i-1} in the block (<= q - 1) */
  View<Real> W;           /* nmodes*(q+1): eigenvector components at the rows brow (slots 0..nr-1), the first row (slot q-1), the last row (slot q) */
  Int        nrhs = 0;    /* rows of J_{i-1} in the blocks (the sum of bnr) */
};

struct Plan {
  Int                n = 0, q = 4, k = 0;
  std::vector<Level> levels; /* level i at index i-1 */
  Int                eig_solved = 0, eig_blocks = 0;
  size_t             bytes = 0;
};

enum class SumKernel { Auto, Thread, Team };

struct Work {
  View<Scalar> G, V, E, P, shift; /* G: right-hand sides / solutions of the stored path; V, P: weighted sums */
  TridiagWork  tw;
  View<Int>    status;
};

/* the last factor's pair (A, M) when both are constant on the rows 1 .. n - 2 (a uniform grid, any ends): then every
   shifted system A + sigma M is interior-Toeplitz and the team solves take kp_tridiag's recurrences
   (tridiag_detail::TeamToeplitzSolve) where |b| > 2 |a| */
struct ToeplitzFactor {
  bool on = false;
  Real ao = 0, ad = 0, ad0 = 0, adn = 0; /* A: off-diagonal, interior diagonal, first and last diagonal */
  Real mo = 0, md = 1, md0 = 1, mdn = 1; /* M likewise (the identity when it is not given) */
};

/* the ToeplitzFactor of F (on = false unless n >= 3 and the interior entries of each of A's and M's diagonals and
   off-diagonals agree to 4 units of rounding of their own size) */
ToeplitzFactor InteriorToeplitz(const Factor &F);

struct Solver {
  Int                       dim = 0, q = 4;
  Int                       n[3] = {1, 1, 1};
  DeviceFactor              f[3];
  Plan                      plan[2];
  Work                      work[3];
  /* the smallest eigenvalue of the operator is min_sum + c (the sum of those of the pencils (A_d, M_d), known when
     every M_d is diagonal): the operator is singular for c = -min_sum (pure Neumann: min_sum = 0) */
  bool                      have_min = false;
  Real                      min_sum = 0, eig_scale = 0;
  /* the factors on the host and, once a shift below -min_sum asks for them (ShiftGap), the whole spectra of their
     pencils, ascending */
  std::vector<Factor>            host;
  std::vector<std::vector<Real>> spectra;
  SumKernel                 sum = SumKernel::Auto;
  /* the stored path: form the right-hand sides of the tridiagonal solves inside them (true), or by a kernel of their
     own that reads a block's rows once for several modes (false: 20-25% less time per application at 4095^2 and
     8191^2 on an H200, where the solves re-read every row of the block per mode) */
  bool                      fuse_rhs = false;
  bool                      team = true;     /* the fused level kernels for the last reduced dimension (where they apply) */
  Int                       team_rows = 0;   /* rows per thread of the fused level kernels: 1, 2, 4 or 8 (0: automatic) */
  Int                       team_modes = 0;  /* modes per team of the fused level kernels (0: automatic) */
  Int                       sum_modes = 0;   /* modes per thread of the stored path's weighted sums (0: automatic) */
  View<Real>                chunked[6];      /* the last factor's al, ad, au, ml, md, mu in chunk order (row t C + j at j T + t) */
  Int                       chunked_C = 0, chunked_T = 0;
  bool                      moff_last = false; /* the last M has off-diagonals */
  ToeplitzFactor            toep_last;         /* the last factor, when interior-Toeplitz */
  bool                      toeplitz = true;   /* the recurrences for interior-Toeplitz shifted systems (toep_last.on) */
  TridiagOptions            topt;
  size_t                    work_bytes = 0;
  View<Int>                 fail;      /* failed shifted solves of an application (device counter) */
  View<Scalar>              c;         /* the shift on the device */
  Int                       solves = 0; /* 1D shifted solves per apply */
};

/* validates the factors; "" or the reason they cannot be used (the caller names the factor in its error) */
std::string CheckFactor(const Factor &F);

/* builds the eigen data (host LAPACK) and copies everything to the device. dim = number of factors (1..3).
   Returns "" or an error message. */
std::string Setup(const std::vector<Factor> &F, Int q, Solver &S);

/* The distance of the operator with shift c from singularity: min |lambda_1 + ... + lambda_dim + c| over the
   eigenvalues lambda_d of the pencils (A_d, M_d) (those of A: the operator is singular where it is 0). c + min_sum
   when that is positive (an SPD operator); else (an indefinite shift) from the whole spectra of the pencils, computed
   once (LAPACK sterf, O(n_d^2) on the host; the closed form for a uniform factor) and searched in O(N / n_dim log
   n_dim). Returns "" or why it cannot be known (a mass factor not positive definite). */
std::string ShiftGap(Solver &S, Real c, Real *gap);

/* X <- A^-1 X in place (natural ordering, size n1 n2 n3) for the shift c. Returns the number of shifted 1D solves
   that met a zero (or non-finite) pivot: the operator is singular for this c (then X holds NaN). */
Int Apply(Solver &S, Scalar c, UView<Scalar> X);

/* A grid operator that is separable only on a box of a larger grid (Dirichlet rows kept as diagonal-only rows
   outside the box, e.g. PETSc's KSP ex45): the rows outside are z = r / d, the box couples to them through the
   listed entries (moved to the right-hand side), and the box is solved by PSCR. Indices are natural grid indices
   (x fastest); box rows are numbered in the box, x fastest. */
struct Boundary {
  Int        nbox = 0;                 /* points of the box */
  Int        lo[3] = {0, 0, 0};        /* box origin in the grid (x, y, z) */
  Int        bn[3] = {1, 1, 1};        /* box sizes (x, y, z) */
  Int        gn[3] = {1, 1, 1};        /* grid sizes (x, y, z) */
  View<Int>  didx;                     /* diagonal-only rows outside the box */
  View<Real> dval;                     /* their diagonal */
  View<Int>  crow, ccol;               /* box row (box numbering) and outside column (natural) of each coupling */
  View<Real> cval;
  bool       identity = true;          /* the box is the whole grid and there are no outside rows */
};

/* z = A^-1 r for the operator "box by PSCR with shift c, diagonal rows outside" (r, z natural, may not alias);
   X: work view (grown to the box size). Returns the failed shifted solves as Apply() */
Int ApplyBoundary(Solver &S, const Boundary &B, Scalar c, UView<const Scalar> r, UView<Scalar> z, View<Scalar> &X);

/* the eigenpairs of the block [s, e] of the pencil (A, M) of F: lambda (e - s + 1) and the components of the
   M-orthonormal eigenvectors at the block rows pos (comp[t + l pos.size()]); closed_form = false bypasses the closed form
   of blocks with constant diagonals (the setup's paths, for tests). Returns "" or an error message. */
std::string Eigen(const Factor &F, Int s, Int e, const std::vector<Int> &pos, std::vector<Real> &lambda, std::vector<Real> &comp, bool closed_form = true);

/* the kernels the apply of S takes for the levels of the last reduced dimension (options team, team_rows, topt) */
std::string LevelPath(const Solver &S);

/* modelled global-memory traffic of one application (bytes): every kernel's reads and writes of the data, the stored
   solutions and the work vectors once */
double ModelBytes(const Solver &S);

/* the number of levels of radix q for n rows: min{k : q^k > n} */
Int Levels(Int n, Int q);

/* ---- Detection of the factors of an assembled DMDA operator (PCPSCR without PCPSCRSetFactors()), on the device.

   GridLayout: where the rows of a DMDA operator are, so that a kernel maps a PETSc global row to its grid point: process
   p owns the rows start(p) .. start(p + 1) - 1, the points of its box (box(6 p + 0..5) = xs, ys, zs, xm, ym, zm) in
   lexicographic order, x fastest. The natural index of point (i, j, k) is (k gn[1] + j) gn[0] + i. */
struct GridLayout {
  Int       gn[3] = {1, 1, 1};
  Int       np    = 1;
  View<Int> start; /* np + 1 */
  View<Int> box;   /* 6 np */
};

/* The processes' blocks of a global vector of the layout (PETSc's order: process by process, each box x fastest) and
   the natural order of the grid: PetscToNatural gives y(natural point of row p) = x(p), NaturalToPetsc y(p) = x(natural
   point of row p); x and y of size start(np), not aliased (a vector gathered to one process, reordered on its device) */
void PetscToNatural(const GridLayout &L, UView<const Scalar> x, UView<Scalar> y);
void NaturalToPetsc(const GridLayout &L, UView<const Scalar> x, UView<Scalar> y);

/* The stencil of the coefficients s(w r + t) of the rows of a grid operator: the 3/5/7-point star (w = 7; t = 0 the
   point itself, t = 1..6 the points -x, +x, -y, +y, -z, +z) or the 3/9/27-point box over the axes of the grid longer
   than one point (w = 3^dim; t = ((dk + 1) 3 + dj + 1) 3 + di + 1, the terms of the shorter axes left out, x fastest) */
struct Stencil {
  bool box = false;
  Int  e[3] = {1, 1, 1}; /* box: 3 along the axes longer than one point, 1 along the others */
  Int  w = 7, center = 0;

  static Stencil Star() { return Stencil(); }
  static Stencil Box(const Int gn[3])
  {
    Stencil st;
    st.box = true;
    st.w   = 1;
    for (int d = 0; d < 3; d++) st.e[d] = gn[d] > 1 ? 3 : 1, st.w *= st.e[d];
    st.center = st.Slot(0, 0, 0);
    return st;
  }
  /* the slot of the offset (di, dj, dk), -1 outside the stencil */
  KOKKOS_INLINE_FUNCTION int Slot(Int di, Int dj, Int dk) const
  {
    if (!box) {
      if (!di && !dj && !dk) return 0;
      if (!dj && !dk && (di == 1 || di == -1)) return di < 0 ? 1 : 2;
      if (!di && !dk && (dj == 1 || dj == -1)) return dj < 0 ? 3 : 4;
      if (!di && !dj && (dk == 1 || dk == -1)) return dk < 0 ? 5 : 6;
      return -1;
    }
    const Int o[3] = {di, dj, dk};
    int       t    = 0;
    for (int d = 2; d >= 0; d--) {
      if (o[d] < -1 || o[d] > 1 || (e[d] == 1 && o[d] != 0)) return -1;
      t = t * (int)e[d] + (e[d] == 3 ? (int)o[d] + 1 : 0);
    }
    return t;
  }
  /* the offset of slot t */
  KOKKOS_INLINE_FUNCTION void Offset(int t, Int o[3]) const
  {
    o[0] = o[1] = o[2] = 0;
    if (!box) {
      if (t > 0) o[(t - 1) / 2] = (t - 1) % 2 ? 1 : -1;
      return;
    }
    for (int d = 0; d < 3; d++) {
      o[d] = e[d] == 3 ? t % 3 - 1 : 0;
      t /= (int)e[d];
    }
  }
};

/* s(w r + t) for the local rows r of process rank (w and t of the stencil st): the coefficient of the row to the
   point at offset t (0 where there is none). Ad: the local block (local columns, offset start(rank)); Ao: the
   off-process block, whose column c is the global column ghost(c) (Ao.nrows == 0 on one process). Zero values are
   skipped. Returns the number of rows with a nonzero entry outside the stencil; bad[0], bad[1]: the natural index of
   the first such row and of its first such column (natural order; -1 when there is none). */
Int StencilCoefficients(const GridLayout &L, Int rank, const Stencil &st, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Int> ghost, UView<Real> s, Int bad[2]);
/* the star: StencilCoefficients with Stencil::Star() */
Int StarCoefficients(const GridLayout &L, Int rank, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Int> ghost, UView<Real> s, Int bad[2]);

/* lo, hi: the smallest and largest point index per axis of the local rows with a nonzero coupling (lo = gn, hi = -1
   when there is none); amax: the largest |s| */
void CoupledBox(const GridLayout &L, Int rank, const Stencil &st, UView<const Real> s, Int lo[3], Int hi[3], Real &amax);
void CoupledBox(const GridLayout &L, Int rank, UView<const Real> s, Int lo[3], Int hi[3], Real &amax); /* the star */

/* The lines of the box (origin lo, sizes bn) through its first point, for the local rows (entries of points of other
   processes are 0: the caller sums over the processes): lines = [ax (bn0 - 1), ay (bn1 - 1), az (bn2 - 1), dx (bn0),
   dy (bn1), dz (bn2)], ax(i) the +x coupling and dx(i) the diagonal of point (lo0 + i, lo1, lo2), likewise in y and z */
void BoxLines(const GridLayout &L, Int rank, UView<const Real> s, const Int lo[3], const Int bn[3], UView<Real> lines);

/* The separability check of the local rows (box lo..hi, couplings of the lines, diagonal dx(i) - dx(0) + dy(j) - dx(0) +
   dz(k) inside the box, tolerance tol) and the sizes of the lists OutsideLists makes. first: the smallest key 16 g + c
   over the violations (-1 when none), g the natural index of the point and c the first check it fails, in this order:
   0 a diagonal-only row outside the box whose diagonal is zero; 1 a diagonal-only row inside a box of more than one
   point; 2 + 2 d + (0 for -, 1 for +) a coupling along axis d inside the box that differs from its line by more than
   tol; 8 a diagonal that is not the sum of its parts. nout: diagonal-only rows outside the box; ncpl: couplings of box
   rows to points outside the box. */
struct SeparableCount {
  Int     nviol = 0, nout = 0, ncpl = 0;
  int64_t first = -1;
  Real    defect = 0; /* CheckSeparableBox: the largest difference of a coefficient inside the box from the factors' */
};
SeparableCount CheckSeparable(const GridLayout &L, Int rank, UView<const Real> s, const Int lo[3], const Int hi[3], UView<const Real> lines, Real tol);

/* The rows outside the box (didx natural, dval their diagonal: nout entries) and the couplings of the box rows to them
   (crow in box numbering, ccol natural, cval: ncpl entries) of the local rows, in the order of the rows (and of the
   slots within a row) */
void OutsideLists(const GridLayout &L, Int rank, const Stencil &st, UView<const Real> s, const Int lo[3], const Int hi[3], UView<Int> didx, UView<Real> dval, UView<Int> crow, UView<Int> ccol, UView<Real> cval);
void OutsideLists(const GridLayout &L, Int rank, UView<const Real> s, const Int lo[3], const Int hi[3], UView<Int> didx, UView<Real> dval, UView<Int> crow, UView<Int> ccol, UView<Real> cval); /* the star */

/* s(w r + t) of the local row of natural index g, 0 when another process owns g */
Real CoefficientAt(const GridLayout &L, Int rank, const Stencil &st, UView<const Real> s, Int g, int t);
Real StarCoefficientAt(const GridLayout &L, Int rank, UView<const Real> s, Int g, int t); /* the star */

/* ---- Box stencils (e.g. bilinear / trilinear finite elements, Q1): A = A_z (x) M_y (x) M_x + M_z (x) A_y (x) M_x +
   M_z (x) M_y (x) A_z (+ c M_z (x) M_y (x) M_x, absorbed into A_x) with tridiagonal A_d and M_d. The coefficient of the
   row of box point b to the point b + o is sum_d A_d(b_d, o_d) prod_{e != d} M_e(b_e, o_e) (X(i, -1) = X(i - 1, i),
   X(i, 0) = X(i, i), X(i, 1) = X(i, i + 1)), so along every axis d the coefficients of the line of points through the
   first point of the box lie in span{A_d, M_d}: with the offsets o = o_d e_d (stencil 0) and o = o_d e_d + e_p (stencil
   1, p = LinePair(bn, d), the next axis of the box longer than one point) they give two 1D 3-point stencils Y_d^0,
   Y_d^1 of that span. Such an operator is a Tucker tensor of multilinear rank 2 in these bases; its 2 x 2 (x 2) core
   follows from the 4 (8) coefficients of the first point to the offsets in {0, 1}^dim, and the factors from the core:
     2D: A = a_v (x) m_u + m_v (x) a_u for any m_v = Y_v p: the factors are exact for every direction p; the one taken
         is the centre of the longest arc of directions where both m_v and the m_u it implies are definite (the true
         mass matrices lie inside; any direction of the arc gives the same PSCR solve up to a scaling of the modes);
     3D: the mass direction m_d is unique: the determinant of the core contracted with a functional phi on mode d is
         -phi(m_d)^2 (times a constant) for such an operator (a double root; distinct roots mean a sum of two
         Kronecker products, which is not of this form); then A_d is the coefficient of a_d (x) m (x) m.
   Each M_d is made positive (signs moved to the A_e), scaled to largest diagonal 1, and stored as a diagonal when its
   off-diagonal vanishes. Every row is then checked against these factors (CheckSeparableBox).

   The lines: for axis d at offset 4 (bn_0 + .. + bn_{d-1}), per point i of the line: Y_d^0(i, 0), Y_d^0(i, 1),
   Y_d^1(i, 0), Y_d^1(i, 1); then the 8 coefficients of the first point to the offsets (ox, oy, oz) in {0, 1}^3 at
   ox + 2 oy + 4 oz (0 along the axes of one point); 4 (bn_0 + bn_1 + bn_2) + 8 values in all. Entries of points of
   other processes are 0: the caller sums over the processes. */
Int  LinePair(const Int bn[3], int d);
Int  BoxLinesLength(const Int bn[3]);
void StencilLines(const GridLayout &L, Int rank, const Stencil &st, UView<const Real> s, const Int lo[3], const Int bn[3], UView<Real> lines);

/* the factors F[d] of axis d (x = 0) from the lines (as above; an axis of one point gets A = 0, M = 1; a box of one
   axis the line itself with M = I). definite: every M_d is positive definite (otherwise the factors still reproduce
   a separable operator, for the check, but PSCR cannot use them). Returns "" or why the lines do not determine the
   factors. */
std::string SeparableFromLines(const Int bn[3], const std::vector<Real> &lines, Factor F[3], bool *definite);

/* the factors of SeparableFromLines packed for CheckSeparableBox: for axis d at offset 4 (bn_0 + .. + bn_{d-1}), per
   point i: A_d(i, i), A_d(i, i + 1), M_d(i, i), M_d(i, i + 1) (0 past the end) */
std::vector<Real> PackFactors(const Int bn[3], const Factor F[3]);

/* the coefficient of the separable operator of the packed factors from box point b to b + o (host) */
Real SeparableCoefficient(const Int bn[3], const std::vector<Real> &fac, const Int b[3], const Int o[3]);

/* The separability check of the local rows against the packed factors (box lo..hi, tolerance tol) and the sizes of
   the lists OutsideLists makes. first: the smallest key 32 g + c over the violations (-1 when none), g the natural
   index of the point and c the first check it fails: 0 a diagonal-only row outside the box whose diagonal is zero;
   1 a diagonal-only row inside a box of more than one point; 2 + t the coefficient to the point at slot t (inside the
   box) differs from that of the factors by more than tol. nout: diagonal-only rows outside the box; ncpl: couplings
   of box rows to points outside the box. */
SeparableCount CheckSeparableBox(const GridLayout &L, Int rank, const Stencil &st, UView<const Real> s, const Int lo[3], const Int hi[3], UView<const Real> fac, Real tol);
} // namespace pscr
} // namespace petsckp
