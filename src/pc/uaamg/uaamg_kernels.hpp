/*
   uaamg_kernels.hpp - device kernels of PCUAAMG, the auxiliary-grid unsmoothed-aggregation AMG of
   L. Wang, X. Hu, J. Cohen, J. Xu, "A parallel auxiliary grid algebraic multigrid method for graphic processing
   units", SIAM J. Sci. Comput. 35(3), 2013 (section numbers and equations below are the paper's).

   Everything takes Kokkos views (or plain structs of integers and reals) and runs on petsckp::exec(); nothing
   here sees a PETSc object. The multigrid cycle, the coarse solve and the PETSc plumbing live elsewhere.

   Auxiliary grid (Sec. 3.1, eqs. (5)-(8)). The root is the bounding box [lo, hi] of the coordinates (BoundingBox
   gives a rank's box; the caller reduces it over the ranks) or a box given by the user. Axis a is split into
   n_a = 2^{depth_a} equal intervals; a cell is t = (t0, t1, t2) with lexicographic id c = t0 + n0 (t1 + n1 t2).
   AuxDepths picks the depths: the paper's rule L = floor(log_{2^d} N) on every axis (Sec. 3.1), or the "target"
   rule: about N / target cells, each split given to the axis whose cells are widest, so that cells are near
   square whatever the aspect ratio of the box. A degenerate axis (hi = lo) gets depth 0.

   Aggregation of the fine level (eq. (9), Sec. 4.2). CellIds puts DoF i into the cell of its coordinates,
   t_a = floor((x_a - lo_a) / (hi_a - lo_a) n_a) with integer n_a, clamped to [0, n_a - 1] (x = hi goes to the last
   cell, points outside a user box to the nearest cell); a degenerate axis gives t_a = 0. Rows flagged as decoupled
   (DecoupledRows: no nonzero off-diagonal entry, e.g. Dirichlet rows kept in the matrix) and DoFs with a non-finite
   coordinate get -1: they are in no aggregate, P has a zero row there, and the fine smoother updates them by
   Jacobi. The aggregates and their inverse map are kp_galerkin's Aggregation: for the stencil levels
   AggregationCreate on the cell ids, one aggregate per cell, empty cells included; for the levels stored as CSR
   CellAggregation, one aggregate per cell that holds a row of the process, numbered in ascending cell order (its
   arrays follow the local rows, where the grid follows the global problem). AggRestrict / AggProlong are the
   fine <-> level-L transfers of Sec. 4.3.

   Reach (Sec. 4.4's 9/27-point claim, made precise). The paper asserts that A_L has a 9-point (27-point) stencil;
   that holds only when no fine edge a_ij joins cells more than one cell apart in an axis, which fails on graded
   meshes. MeasureReach computes r_a = max |t_a(cell(i)) - t_a(cell(j))| over the entries; the level-L stencil then
   has (2 r_a + 1) offsets per axis and the colouring (r_a + 1) colours per axis, so same-colour cells and blocks
   stay uncoupled for any r.

   Stencil levels (Sec. 4.2's ELL storage without the column-index array). A StencilMatrix holds, for every cell
   c of a grid of n0 x n1 x n2 cells with reach r, the coefficient to the cell at offset o (|o_a| <= r_a) in slot
       s(o) = (o0 + r0) + (2 r0 + 1) ((o1 + r1) + (2 r1 + 1) (o2 + r2)),      vals(s * ncells + c)
   (slot-major: the threads of consecutive cells read consecutive addresses, like the paper's column-major ELL).
   The diagonal is the centre slot (nslots - 1) / 2. Ascending slots are ascending neighbour ids. Neighbour ids are
   computed from (t0, t1, t2), never stored. Invariants: a slot pointing outside the grid holds 0; a cell that
   holds no DoF (an empty aggregate, e.g. a cell outside a disk) has all its slots 0 and is "inactive" (diagonal 0).
   No artificial diagonal is put there: it would leak into the parent rows of the Galerkin sums; kernels skip
   inactive cells (the smoothers leave them unchanged, StencilToCsr / StencilToDense can put a unit diagonal on
   them for the coarse direct solve).

   Galerkin products (eqs. (3), (4), (11)). GalerkinStencil forms A_L = P^T A P for the piecewise-constant P of the
   aggregation: entry (I, J) of A_L is the sum of a_ij over i in cell I, j in cell J, put into slot s(t(J) - t(I)).
   No symbolic phase, no atomics: every coefficient is summed in ascending fine-entry order (members of a cell in
   ascending row order, each row's entries in storage order), so the result is bit-identical on every backend and
   equal to kp_galerkin's GalerkinAggregate. StencilCoarsen forms the next tree level (eq. (10): the 2 x 2 (x 2)
   children of a parent form its aggregate): parent(t) = t >> 1 on every axis with more than one cell (integer
   shifts, the paper's Sec. 4.2 index formula with x and y in the right order); an axis that has reached one cell
   is no longer coarsened (semi-coarsening). The parent reach is ceil(r / 2), clamped to n - 1. One thread per
   parent row sums its children's slots (36 values in 2D, 216 in 3D for r = 1).

   Smoothers (Sec. 4.5). Cell colour = sum_a (t_a mod (r_a + 1)) prod_{b<a} (r_b + 1): 4 colours in 2D, 8 in 3D for
   r = 1 (the parity colouring of the paper). Cells of one colour are never coupled, so one colour is a Jacobi
   update done in parallel. StencilGaussSeidel is pointwise Gauss-Seidel on a stencil level, colours ascending
   (Forward, the pre-smoother R_k of Algorithm 2.2) or descending (Backward, the post-smoother R_k^T). On the fine
   level the level-L cells are the blocks ("we color each aggregate"): FineBlockGaussSeidel updates every block of
   one colour at once, one team per block, with an exact dense solve for blocks of at most block_max DoFs
   (inverses formed by FineBlocksSetUp) and one pass of point Gauss-Seidel over the members (ascending forward,
   descending backward) inside larger blocks. Jacobi variants for both kinds of level.

   Adaptive auxiliary tree (fine level). On graded meshes the uniform level-L grid puts hundreds of unknowns into the
   cells of the dense region (the fine-level imbalance the paper concedes for its shape-regular grid, Sec. 5.2, Table
   4), far too aggressive a coarsening for piecewise-constant aggregates. A level-L cell holding more than s unknowns
   is split into its 2^d children (every axis of nonzero extent halved), recursively, until each leaf holds at most s
   unknowns or the depth cap is reached. Cells are named by 64-bit linear keys: the cells of depth t (t = 0 the root
   box, t = L the level-L grid, g_{t-1} = StencilGridCoarsen(g_t)) have b(t) bits, the lexicographic id on g_t for t
   <= L, the level-L id followed by the child digits (Morton order) below; key(t, c) = 2^{b(t)} + c, so the leading
   bit gives the depth. The cap keeps b(t) <= 62 (31 levels per axis in 2D, 20 in 3D). CapKeys gives every unknown
   the key of its cell at the cap depth; after a sort, LeafDepths counts the unknowns of each ancestor by binary
   searches and takes the first ancestor with at most s of them as the leaf. Hierarchy (leaf-depth classes): an
   unknown whose leaf is at depth c belongs on level j (j = 1: the fine aggregates) to its ancestor at depth max(c -
   (j - 1), 0); TreeParents maps the aggregates of one level to those of the next (one depth up, the root stays).
   This is nested, every part of the mesh coarsens by 2^d per level, and aggregates of different depths never mix
   (they merge only in the root).

   Integer types: cell ids and sizes are Int; slot offsets into vals are computed in size_t.
*/
#pragma once

#include "kp_colour.hpp"
#include "kp_galerkin.hpp"
#include "kp_kcycle.hpp"
#include "kp_segsort.hpp"
#include <cstdint>

namespace petsckp
{
namespace uaamg
{
/* ---- auxiliary grid */

/* The root box and the depth of every axis. Axes a >= dim have depth 0 (one cell). */
struct AuxGrid {
  int  dim      = 2;
  Int  depth[3] = {0, 0, 0};
  Real lo[3]    = {0, 0, 0};
  Real hi[3]    = {0, 0, 0};
  KOKKOS_INLINE_FUNCTION Int n(int a) const { return a < dim ? (Int)1 << depth[a] : (Int)1; }
  KOKKOS_INLINE_FUNCTION Int ncells() const { return n(0) * n(1) * n(2); }
};

/* Local bounding box of n points with interlaced coordinates [x0, y0, (z0), x1, ...] (coords has n * dim entries,
   dim 1 to 3). With no point: lo = +max, hi = -max (the identities of the min/max reductions the caller does over
   the ranks). Axes a >= dim get lo = hi = 0. Non-finite coordinates are ignored. */
void BoundingBox(int dim, UView<const Real> coords, Real lo[3], Real hi[3]);

enum class DepthRule {
  Paper, /* L = floor(log_{2^d} N) on every non-degenerate axis (d of them): N / 2^{dL} in [1, 2^d) DoFs per cell */
  Target /* about N / target cells (power of two nearest in log scale), each split to the axis of widest cells */
};

/* Depth of every axis for N fine DoFs (host). extent[a] = hi[a] - lo[a]; an axis with extent <= 0 (or not finite)
   is degenerate and gets depth 0. target (Target rule, mean DoFs per cell) is taken as at least 1. The number of
   cells never exceeds max(N, 1). Ties between equally wide axes go to the lowest axis. */
void AuxDepths(DepthRule rule, int dim, int64_t N, const Real extent[3], Real target, Int depth[3]);

/* Cell index along one axis of n cells over [lo, hi]: floor((x - lo) / (hi - lo) n), clamped to [0, n - 1];
   0 when hi <= lo or n == 1 */
KOKKOS_INLINE_FUNCTION Int AxisCell(Real x, Real lo, Real hi, Int n)
{
  if (n <= 1 || !(hi > lo)) return 0;
  const Real t = (x - lo) / (hi - lo) * (Real)n;
  if (!(t > 0)) return 0;
  if (t >= (Real)n) return n - 1;
  return (Int)t;
}

/* flag(i) = 1 when row i has no nonzero off-diagonal entry (in the local block Ad, columns local, and in the
   off-process block Ao; Ao.nrows == 0 when there is none), else 0. Returns the number of flagged rows. */
Int DecoupledRows(const CsrMatrix &Ad, const CsrMatrix &Ao, UView<Int> flag);

/* cell(i) = level-L cell of DoF i (one thread per DoF), from coords (cell.extent(0) * g.dim entries, interlaced);
   -1 where decoupled(i) != 0 (decoupled may be an empty view) or a coordinate is not finite. Returns the number of
   DoFs (not decoupled) with a non-finite coordinate: nonzero means bad input, the caller raises the error. */
Int CellIds(const AuxGrid &g, UView<const Real> coords, UView<const Int> decoupled, UView<Int> cell);

/* sizes of the aggregates, for statistics (PCView): the number of aggregates, of empty ones, of members, and the
   smallest nonempty and the largest size (0 when every aggregate is empty) */
struct AggregateStats {
  Int nagg = 0, nempty = 0, nmembers = 0, minsize = 0, maxsize = 0;
};
AggregateStats AggregateSizes(const Aggregation &P);

/* ---- stencil levels */

/* A level of the auxiliary tree: n[a] cells per axis (powers of two), reach r[a] <= n[a] - 1 (stencil half-width).
   dim is informational (axes beyond it have n = 1, r = 0). */
struct StencilGrid {
  int dim  = 2;
  Int n[3] = {1, 1, 1};
  Int r[3] = {0, 0, 0};

  KOKKOS_INLINE_FUNCTION Int    ncells() const { return n[0] * n[1] * n[2]; }
  KOKKOS_INLINE_FUNCTION Int    width(int a) const { return 2 * r[a] + 1; }
  KOKKOS_INLINE_FUNCTION Int    nslots() const { return width(0) * width(1) * width(2); }
  KOKKOS_INLINE_FUNCTION Int    centre() const { return (nslots() - 1) / 2; }
  KOKKOS_INLINE_FUNCTION Int    ncolours() const { return (r[0] + 1) * (r[1] + 1) * (r[2] + 1); }
  KOKKOS_INLINE_FUNCTION Int    slot(Int o0, Int o1, Int o2) const { return (o0 + r[0]) + width(0) * ((o1 + r[1]) + width(1) * (o2 + r[2])); }
  KOKKOS_INLINE_FUNCTION Int    cell(Int t0, Int t1, Int t2) const { return t0 + n[0] * (t1 + n[1] * t2); }
  KOKKOS_INLINE_FUNCTION void   coords(Int c, Int t[3]) const
  {
    t[0] = c % n[0];
    c /= n[0];
    t[1] = c % n[1];
    t[2] = c / n[1];
  }
  /* parity-type colour of a cell, in [0, ncolours()) */
  KOKKOS_INLINE_FUNCTION Int colour(Int c) const
  {
    Int t[3];
    coords(c, t);
    return t[0] % (r[0] + 1) + (r[0] + 1) * (t[1] % (r[1] + 1) + (r[1] + 1) * (t[2] % (r[2] + 1)));
  }
  /* number of cells of colour k, and the idx-th of them (ascending cell id), idx < ColourSize(k) */
  KOKKOS_INLINE_FUNCTION void colourDigits(Int k, Int d[3]) const
  {
    d[0] = k % (r[0] + 1);
    k /= r[0] + 1;
    d[1] = k % (r[1] + 1);
    d[2] = k / (r[1] + 1);
  }
  KOKKOS_INLINE_FUNCTION Int colourExtent(int a, Int da) const { return da < n[a] ? (n[a] - da + r[a]) / (r[a] + 1) : 0; }
  KOKKOS_INLINE_FUNCTION Int colourSize(Int k) const
  {
    Int d[3];
    colourDigits(k, d);
    return colourExtent(0, d[0]) * colourExtent(1, d[1]) * colourExtent(2, d[2]);
  }
  KOKKOS_INLINE_FUNCTION Int colourCell(Int k, Int idx) const
  {
    Int d[3];
    colourDigits(k, d);
    const Int m0 = colourExtent(0, d[0]), m1 = colourExtent(1, d[1]);
    const Int i0 = idx % m0, i1 = (idx / m0) % m1, i2 = idx / m0 / m1;
    return cell(d[0] + (r[0] + 1) * i0, d[1] + (r[1] + 1) * i1, d[2] + (r[2] + 1) * i2);
  }
  /* parent of cell c on the next coarser level (StencilGridCoarsen): t_a >> 1 on every axis with n_a > 1 */
  KOKKOS_INLINE_FUNCTION Int parent(Int c) const
  {
    Int t[3];
    coords(c, t);
    const Int p0 = n[0] > 1 ? n[0] >> 1 : 1, p1 = n[1] > 1 ? n[1] >> 1 : 1;
    return (n[0] > 1 ? t[0] >> 1 : t[0]) + p0 * ((n[1] > 1 ? t[1] >> 1 : t[1]) + p1 * (n[2] > 1 ? t[2] >> 1 : t[2]));
  }
};

/* the level-L grid of an auxiliary grid with reach r (clamped to [0, n_a - 1]) */
StencilGrid StencilGridFromAux(const AuxGrid &g, const Int r[3]);
/* the next coarser tree level: n_a / 2 and reach ceil(r_a / 2) (clamped to n_a / 2 - 1) on every axis with
   n_a > 1, unchanged on the others; a single cell stays a single cell */
StencilGrid StencilGridCoarsen(const StencilGrid &g);
/* slots * cells: the number of values of a stencil level (size_t, may exceed Int) */
inline size_t StencilStorage(const StencilGrid &g) { return (size_t)g.nslots() * (size_t)g.ncells(); }

struct StencilMatrix {
  StencilGrid  grid;
  View<Scalar> vals; /* StencilStorage(grid) values, vals(s * ncells + c) */
};

/* A.grid = g and vals allocated and zeroed (kept, only zeroed, when the storage size does not change) */
void StencilAllocate(const StencilGrid &g, StencilMatrix &A);

/* r_a = max over entries a_ij (i in rows, j in columns; structural entries, any value) of |t_a(rowcell(i)) -
   t_a(colcell(j))|, skipping entries whose row or column cell is -1; only g.n is used. For a rank's off-process
   block pass Ao with the cells of the ghost columns, and take the maximum of both results. */
void MeasureReach(const StencilGrid &g, UView<const Int> rowcell, const CsrMatrix &A, UView<const Int> colcell, Int r[3]);

/* Number of entries of A that lie beyond the reach of g (the same skips as MeasureReach): 0 when the stencil of g
   holds every coupling of A; GalerkinStencil drops the others. */
Int ReachViolations(const StencilGrid &g, UView<const Int> rowcell, const CsrMatrix &A, UView<const Int> colcell);

/* How GalerkinStencil assigns the work: one thread per cell accumulating every slot (CellThread), or one team
   thread per cell with a vector lane per slot, each lane scanning the cell's entries for its slot (SlotLanes: no
   per-thread accumulator array; the device choice). Both give the same bits. Auto: SlotLanes on a device,
   CellThread on the host. */
enum class GalerkinAlgorithm {
  Auto,
  CellThread,
  SlotLanes
};

/* AL = P^T A Pc: row aggregation P (P.n == A.nrows, P.nagg == AL.grid.ncells()), column cells colcell
   (A.ncols entries; P.agg for a square local matrix, the ghost cells for an off-process block). add = false:
   AL.vals is overwritten; add = true: added to (e.g. the off-process block after the local one). AL must be
   allocated on its grid (StencilAllocate) with a reach covering A (MeasureReach): entries beyond it are dropped
   (ReachViolations counts them). The same call refreshes the values of a new A with the same pattern. Returns
   false, without touching AL, when the sizes do not match. */
bool GalerkinStencil(const CsrMatrix &A, const Aggregation &P, UView<const Int> colcell, StencilMatrix &AL, bool add = false, GalerkinAlgorithm alg = GalerkinAlgorithm::Auto);

/* Ac = the Galerkin product of Af with the tree aggregation (2 x 2 (x 2) children per parent), eqs. (10)-(11).
   Ac is (re)allocated on StencilGridCoarsen(Af.grid) when needed. */
void StencilCoarsen(const StencilMatrix &Af, StencilMatrix &Ac);

/* ---- transfers between tree levels (Sec. 4.3); fine is the finer grid */

/* yc(P) = sum of xf over the children of P (yc: StencilGridCoarsen(fine).ncells() entries) */
void TreeRestrict(const StencilGrid &fine, UView<const Scalar> xf, UView<Scalar> yc);
/* yf(c) = alpha xc(parent(c)) + beta yf(c); beta == 0: yf is not read */
void TreeProlong(const StencilGrid &fine, Scalar alpha, UView<const Scalar> xc, Scalar beta, UView<Scalar> yf);
/* yc = P^T (b - A x): residual and restriction in one kernel (one thread per parent) */
void StencilResidualRestrict(const StencilMatrix &A, UView<const Scalar> b, UView<const Scalar> x, UView<Scalar> yc);

/* ---- operator application and conversions */

/* y = alpha A x + beta y (beta == 0: y is not read); x and y must not alias */
void StencilSpmv(const StencilMatrix &A, Scalar alpha, UView<const Scalar> x, Scalar beta, UView<Scalar> y);
/* r = b - A x (r must not alias x; it may alias b) */
void StencilResidual(const StencilMatrix &A, UView<const Scalar> b, UView<const Scalar> x, UView<Scalar> r);
/* number of inactive cells (zero diagonal: no DoF in the cell) */
Int StencilCountInactive(const StencilMatrix &A);
/* the level as a CSR matrix (ncells rows, ascending columns): active rows hold every in-grid slot whose neighbour
   is active (explicit zeros kept); inactive rows are empty, or hold a unit diagonal when unit_inactive */
void StencilToCsr(const StencilMatrix &A, bool unit_inactive, CsrMatrix &M);
/* the level as a dense column-major ncells x ncells matrix (M(i + j ncells)), same rule for inactive rows */
void StencilToDense(const StencilMatrix &A, bool unit_inactive, UView<Scalar> M);

/* ---- colouring validity (0 = valid) */

/* nonzero off-centre slots whose (in-grid) neighbour has the colour of the cell */
Int StencilColourConflicts(const StencilMatrix &A);
/* nonzero entries a_ij of A with cell(i) != cell(j), both >= 0, of equal colour on gL (blocks of one colour that
   are coupled: the block smoother would race); colcell: the cells of A's columns */
Int FineColourConflicts(const StencilGrid &gL, UView<const Int> rowcell, const CsrMatrix &A, UView<const Int> colcell);

/* ---- smoothers */

enum class Sweep {
  Forward, /* colours ascending, members ascending: R_k */
  Backward /* colours descending, members descending: R_k^T */
};

/* one colour of pointwise Gauss-Seidel on a stencil level: x_c += omega (b_c - (A x)_c) / a_cc for every active
   cell c of colour k (inactive cells are left unchanged) */
void StencilGaussSeidelColour(const StencilMatrix &A, Int k, Real omega, UView<const Scalar> b, UView<Scalar> x);
/* one sweep over all colours */
void StencilGaussSeidel(const StencilMatrix &A, Sweep dir, Real omega, UView<const Scalar> b, UView<Scalar> x);
/* one sweep from x = 0, x not read: the first colour k of the sweep (0 forward, the last backward) and the zeroing in
   one kernel, x_c = 0 + omega b_c / a_cc on the active cells of colour k and 0 on every other cell (the values
   StencilGaussSeidelColour gives on x = 0), then the other colours as StencilGaussSeidel */
void StencilGaussSeidelFromZero(const StencilMatrix &A, Sweep dir, Real omega, UView<const Scalar> b, UView<Scalar> x);
/* Small stencil levels (a few thousand cells), where a GPU is bound by kernel launches: a half of a cycle in one
   kernel run by one team of threads, a team barrier between the colours (and between the phases). The values are
   those of the kernels it replaces, in the same order.
   StencilSmoothRestrictTeam: nsweeps Gauss-Seidel sweeps in direction dir (from x = 0 when zero: x is not read; zero
   with nsweeps == 0 sets x = 0), then yc = P^T (b - A x) on StencilGridCoarsen(A.grid) when yc is not empty: what
   StencilGaussSeidelFromZero / StencilGaussSeidel and StencilResidualRestrict give.
   StencilProlongSmoothTeam: x += P ec (TreeProlong with alpha = beta = 1), then nsweeps sweeps in direction dir. */
void StencilSmoothRestrictTeam(const StencilMatrix &A, Sweep dir, Real omega, Int nsweeps, bool zero, UView<const Scalar> b, UView<Scalar> x, UView<Scalar> yc);
void StencilProlongSmoothTeam(const StencilMatrix &A, UView<const Scalar> ec, Sweep dir, Real omega, Int nsweeps, UView<const Scalar> b, UView<Scalar> x);

/* The K-cycle's product and inner products of its step i on a stencil level in one kernel (MGLevelOps::KCycleMultDots):
   Ap = A p and step(1 + i) of S = {(p, Ap), (p, r), rr ? (r, r) : 0, 0}, left on the device (kp_kcycle); Ap must not
   alias p */
void StencilKCycleMultDots(const StencilMatrix &A, UView<const Scalar> p, UView<Scalar> Ap, UView<const Scalar> r, bool rr, const KCycleScalars &S, Int i);

/* weighted Jacobi: y = x + omega D^-1 (b - A x) (y = x on inactive cells); y must not alias x */
void StencilJacobi(const StencilMatrix &A, Real omega, UView<const Scalar> b, UView<const Scalar> x, UView<Scalar> y);

/* The blocks of the fine-level block Gauss-Seidel: for every aggregate G of at most block_max members whose
   diagonal block A_GG could be inverted, A_GG^-1 (row-major, inv(off(G) + q m + l), m = |G|, rows/columns in the
   member order of the Aggregation); the other aggregates are smoothed by point Gauss-Seidel over their members.
   loose: the rows in no aggregate (decoupled rows), updated by Jacobi. */
struct FineBlocks {
  Int          nagg = 0, block_max = 0, nexact = 0, nfailed = 0, nloose = 0;
  View<Int>    off;   /* nagg + 1 */
  View<Int>    exact; /* nagg: 1 = exact block solve, 0 = point Gauss-Seidel inside the block */
  View<Scalar> inv;   /* off(nagg) */
  View<Int>    loose; /* nloose */
};

/* Forms B from the local block A (A.nrows == P.n) by in-place Gauss-Jordan elimination of every A_GG with
   1 <= |G| <= block_max (one thread per aggregate). A pivot that is not positive, not finite or below 1e-12 times
   the largest diagonal entry of the block (A_GG not numerically SPD) makes that block fall back to point
   Gauss-Seidel; the return value (also B.nfailed) counts them. Call again for new values of A. */
Int FineBlocksSetUp(const CsrMatrix &A, const Aggregation &P, Int block_max, FineBlocks &B);

/* One colour k (of gL, the level-L grid; P.nagg == gL.ncells()) of the block Gauss-Seidel: for every aggregate G
   of colour k at once, r_G = b_G - (Ad x + Ao g)_G, then x_G += omega A_GG^-1 r_G (exact blocks), or a point
   Gauss-Seidel pass x_i += omega (b_i - (Ad x + Ao g)_i) / a_ii over the members in the order of dir. Ao (ghost
   columns, values g) may be empty (Ao.nrows == 0). */
void FineBlockGaussSeidelColour(const StencilGrid &gL, const Aggregation &P, const FineBlocks &B, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> g, Int k, Sweep dir, Real omega, UView<const Scalar> b, UView<Scalar> x);
/* x_i += omega (b_i - (Ad x + Ao g)_i) / a_ii for the loose rows (rows with a zero diagonal are left unchanged) */
void FineLooseUpdate(const FineBlocks &B, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> g, Real omega, UView<const Scalar> b, UView<Scalar> x);
/* one sweep: Forward = loose rows, then colours ascending; Backward = colours descending, then loose rows (with
   fixed ghost values g; under MPI the caller runs the colours itself with a ghost update after each) */
void FineBlockGaussSeidel(const StencilGrid &gL, const Aggregation &P, const FineBlocks &B, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> g, Sweep dir, Real omega, UView<const Scalar> b, UView<Scalar> x);
/* one forward sweep from x = 0 on one process (no off-process block), x not read: the loose rows' update and the
   zeroing in one kernel (x_i = 0 + omega b_i / a_ii on the loose rows with a nonzero diagonal, 0 elsewhere: what
   FineLooseUpdate gives on x = 0), then the colours ascending as FineBlockGaussSeidel */
void FineBlockGaussSeidelFromZero(const StencilGrid &gL, const Aggregation &P, const FineBlocks &B, const CsrMatrix &Ad, Real omega, UView<const Scalar> b, UView<Scalar> x);
/* The same three with the blocks coloured by a partition of the aggregates (rows = aggregates of P, colour k =
   C.rows(C.offsets(k) .. C.offsets(k+1)-1), e.g. a graph colouring of the aggregates' Galerkin operator): for
   aggregates that are not the cells of one grid (the adaptive tree) */
void FineBlockGaussSeidelColour(const ColourPartition &C, const Aggregation &P, const FineBlocks &B, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> g, Int k, Sweep dir, Real omega, UView<const Scalar> b, UView<Scalar> x);
void FineBlockGaussSeidel(const ColourPartition &C, const Aggregation &P, const FineBlocks &B, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> g, Sweep dir, Real omega, UView<const Scalar> b, UView<Scalar> x);
void FineBlockGaussSeidelFromZero(const ColourPartition &C, const Aggregation &P, const FineBlocks &B, const CsrMatrix &Ad, Real omega, UView<const Scalar> b, UView<Scalar> x);
/* pointwise weighted Jacobi on the fine level: y = x + omega D^-1 (b - Ad x - Ao g) (y = x where a_ii == 0); y must
   not alias x */
void FineJacobi(const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> g, Real omega, UView<const Scalar> b, UView<const Scalar> x, UView<Scalar> y);

/* ---- adaptive auxiliary tree */

constexpr int kTreeMaxDepth = 62;

/* the key layout of an auxiliary tree whose level-L grid is that of an AuxGrid (see the comment at the top) */
struct TreeKeys {
  int           L      = 0;         /* depth of the level-L grid (the most splits of an axis) */
  int           e      = 0;         /* the cap: at most e levels below L */
  int           nsplit = 0;         /* axes halved by a split below L (2^nsplit children) */
  int           axis[3] = {0, 0, 0}; /* those axes */
  unsigned char lg[kTreeMaxDepth + 1][3] = {}; /* log2 of the cells per axis of g_t, t <= L */
  signed char   depthof[64] = {};   /* depth t of the keys with b(t) bits, -1 for none */

  KOKKOS_INLINE_FUNCTION int bits(int t) const { return t <= L ? (int)lg[t][0] + (int)lg[t][1] + (int)lg[t][2] : (int)lg[L][0] + (int)lg[L][1] + (int)lg[L][2] + nsplit * (t - L); }
  KOKKOS_INLINE_FUNCTION std::uint64_t key(int t, std::uint64_t c) const { return (std::uint64_t(1) << bits(t)) | c; }
  /* depth of a key (the position of its leading bit), -1 for 0 */
  KOKKOS_INLINE_FUNCTION int depth(std::uint64_t k) const
  {
    int p = -1;
    for (int b = 32; b > 0; b >>= 1)
      if (k >> (p + b) >> 1) p += b;
    return k ? depthof[p + 1] : -1;
  }
  /* the parent of a cell (the root is its own parent) */
  KOKKOS_INLINE_FUNCTION std::uint64_t parent(std::uint64_t k) const
  {
    const int t = depth(k);
    if (t <= 0) return k;
    const std::uint64_t c = k ^ (std::uint64_t(1) << bits(t));
    if (t > L) return key(t - 1, c >> nsplit);
    std::uint64_t tt[3], r = c, pc = 0;
    int           sh = 0;
    for (int a = 0; a < 3; a++) {
      tt[a] = r & ((std::uint64_t(1) << lg[t][a]) - 1);
      r >>= lg[t][a];
    }
    for (int a = 0; a < 3; a++) {
      pc |= (lg[t - 1][a] < lg[t][a] ? tt[a] >> 1 : tt[a]) << sh;
      sh += lg[t - 1][a];
    }
    return key(t - 1, pc);
  }
};

/* The layout for the level-L grid of g: L = max depth, the split axes (a < dim with hi > lo), the cap e (b(L + e) <=
   62). Returns false when no cell can be split (no axis of nonzero extent, or no room below L). */
bool TreeKeysSetUp(const AuxGrid &g, TreeKeys &T);

/* key(i) = the cell (without the leading bit) at depth L + e of unknown i: its level-L cell(i) followed by e child
   digits from its coordinates; kNoKey where cell(i) < 0 */
void CapKeys(const TreeKeys &T, const AuxGrid &g, UView<const Real> coords, UView<const Int> cell, UView<std::uint64_t> key);

/* For the cap keys of the unknowns sorted ascending (sorted: nv keys, no kNoKey; perm(p): the unknown of sorted(p)):
   rdof(perm(p)) = r in [0, e], where L + r is the depth of the leaf of that unknown, its first ancestor with at most s
   unknowns (s >= 1), found by binary searches for the range of keys with the ancestor's prefix. Returns the number of
   split cells (ancestors with more than s unknowns, at depths L .. L + e - 1) and in rmax the largest r. */
Int LeafDepths(const TreeKeys &T, UView<const std::uint64_t> sorted, UView<const Int> perm, Int s, UView<Int> rdof, Int *rmax);

/* key(i) = the key of the leaf of unknown i (cap key capkey(i), leaf depth L + r(i)): the tree key of its fine
   aggregate; kNoKey where capkey(i) == kNoKey */
void LeafKeys(const TreeKeys &T, UView<const std::uint64_t> capkey, UView<const Int> r, UView<std::uint64_t> key);

/* parent(a) = T.parent(key(a)): the aggregates of the next level (class rule: one depth up, the root stays) */
void TreeParents(const TreeKeys &T, UView<const std::uint64_t> key, UView<std::uint64_t> parent);

/* smallest and largest depth of the keys (0 and -1 when there is none) */
void TreeKeyDepths(const TreeKeys &T, UView<const std::uint64_t> key, Int *dmin, Int *dmax);

/* ---- graph colourings of aggregates under MPI */

/* w(i) = a deterministic hash of the global number gid(i) of every row (gid as scalars, e.g. a ghost exchange of the
   global row numbers; start + i when gid is empty and w has the local rows), the weights of ColourLosers: distinct
   rows get distinct weights (the hash is a bijection of 64-bit integers) */
void RowWeights(Int start, UView<const Scalar> gid, UView<std::uint64_t> w);

/* One round of the repair of a colouring of the local rows of a matrix distributed by rows (Ad, Ao as in
   GraphColourCheck; structural couplings, any value) against its ghost couplings: loser(i) = 1 when row i shares
   its colour with a coupled row of larger weight (wl local, wg ghost weights; gcolour the ghosts' colours as
   scalars), else 0. Returns the number of losers. */
Int ColourLosers(const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const std::uint64_t> wl, UView<const std::uint64_t> wg, UView<const Int> colour, UView<const Scalar> gcolour, UView<Int> loser);
/* every loser whose weight is the largest among its coupled losers (gloser: the ghosts' flags as scalars) takes the
   smallest colour that no coupled row has; recoloured rows are never coupled, so each round removes the conflicts
   of the heaviest losers and the repair ends. Returns the number of rows recoloured. */
Int ColourRecolour(const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const std::uint64_t> wl, UView<const std::uint64_t> wg, UView<const Int> loser, UView<const Scalar> gloser, UView<const Scalar> gcolour, UView<Int> colour);

/* s(i) = start + i (the global numbers of the local rows, as scalars: a ghost exchange of them gives the ghosts') */
void GlobalRowNumbers(Int start, UView<Scalar> s);
/* max colour(i) + 1 (0 when empty) */
Int ColourCount(UView<const Int> colour);

/* the fine-level block colouring check: nonzero entries a_ij of A with agg(i) != agg(j) (a ghost column is always in
   another aggregate) whose aggregates have the same colour (aggcolour, per aggregate of P; gcolour: the colours of
   the ghost columns' aggregates as scalars, Ao.nrows == 0 when sequential) */
Int FineAggregateColourConflicts(const Aggregation &P, UView<const Int> aggcolour, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> gcolour);
/* c(i) = aggcolour(P.agg(i)) for the rows in an aggregate, -1 for the others */
void RowColoursOfAggregates(const Aggregation &P, UView<const Int> aggcolour, UView<Int> c);

/* ---- level bookkeeping of the PC */

/* number of nonzero values of a stencil level (the entries an assembled matrix would hold) */
Int StencilNonzeros(const StencilMatrix &A);
/* d(c) = the diagonal (centre slot) of every cell; 0 on inactive cells */
void StencilDiagonal(const StencilMatrix &A, UView<Scalar> d);
/* xyz(t dim + a) = index a of the t-th point of the box start + [0, count) of a structured grid, points in
   lexicographic order (axis 0 fastest): the coordinates of a DMDA without a coordinate vector (dim 1 to 3);
   xyz has dim count0 count1 count2 entries (count_a = 1 for a >= dim) */
void GridIndexCoordinates(int dim, const Int start[3], const Int count[3], UView<Real> xyz);
/* x(i) = real part of s(i) (coordinates held in a Scalar vector); the sizes agree */
void RealsFromScalars(UView<const Scalar> s, UView<Real> x);
/* v(i) = (Int) s(i), for integer values carried in Scalar vectors (cell ids through a ghost exchange); s must hold
   integers */
void IntsFromScalars(UView<const Scalar> s, UView<Int> v);
/* The cells that hold a row: cells = the distinct values c >= 0 of cell (one per row, -1: none), ascending, and
   id(i) = the position of cell(i) in cells (-1 where cell(i) < 0); returns their number. A radix sort of the cell ids
   (kp_segsort's KeyCompact), so that work and memory follow the number of rows, not the number of cells of the grid
   (a process of an MPI run holds a small part of the auxiliary grid). The numbering is the one AggregationCompact
   gives the nonempty cells when the aggregation spans every cell of the grid. */
Int CompactCells(UView<const Int> cell, UView<Int> id, View<Int> &cells);
/* P = the aggregation of the rows by their cells (cell.extent(0) rows, -1: in no aggregate) with one aggregate per
   nonempty cell, numbered by CompactCells, and cellof(J) = the cell of aggregate J: what AggregationCreate over every
   cell of the grid followed by AggregationCompact gives, without an array over the grid. Returns AggregationCreate's
   count of entries out of range (0). */
Int CellAggregation(UView<const Int> cell, Aggregation &P, View<Int> &cellof);
/* parent(a) = g.parent(cellof(a)): the cell on StencilGridCoarsen(g) of every aggregate of a level whose aggregates
   sit in the cells cellof of g */
void ParentCells(const StencilGrid &g, UView<const Int> cellof, UView<Int> parent);
/* colour(a) = g.colour(cellof(a)) (the parity colouring of the cells, for levels stored as CSR) */
void CellColours(const StencilGrid &g, UView<const Int> cellof, UView<Int> colour);
} // namespace uaamg
} // namespace petsckp
