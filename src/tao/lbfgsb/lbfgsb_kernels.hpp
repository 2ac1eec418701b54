/*
   lbfgsb_kernels.hpp - the kernels of TAO lbfgsb (L-BFGS-B 3.0, Byrd-Lu-Nocedal-Zhu / Morales-Nocedal, with the
   Cauchy point and subspace step of Fei, Rong, Wang and Wang 2014 on the device).

   Two groups:
   - device kernels over the rank-local part of the n-vectors (Kokkos views; never see a PETSc object); every
     reduction returns the rank-local value and the caller combines ranks with one MPI_Allreduce;
   - host routines on the O(m) / O(m^2) quantities of the compact representation (LINPACK dpofa/dtrsl, bmv, formt,
     formk, the Cauchy breakpoint scan over an ordered chunk of breakpoints, the More-Thuente dcsrch/dcstep).

   Bounds convention: an entry l_i <= -inf (inf = PETSC_INFINITY) means no lower bound, u_i >= inf no upper bound;
   nbd_i = 0 (none), 1 (lower), 2 (both), 3 (upper), as in the reference code.
*/
#pragma once

#include "kp_kokkos.hpp"
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace petsckp
{
namespace lbfgsb
{
using ConstView = UView<const Scalar>;
using MutView   = UView<Scalar>;

KOKKOS_INLINE_FUNCTION int Nbd(Real l, Real u, Real inf)
{
  const bool hl = l > -inf, hu = u < inf;
  return hl ? (hu ? 2 : 1) : (hu ? 3 : 0);
}

/* value stored in t_i for a variable without a breakpoint */
constexpr Real kNoBreak = 1.0e300;

/* ---- device kernels (rank-local; see the file comment) */

/* What makes the bounds or the initial point unusable at one entry, in the order of precedence within an entry */
enum class BoundsDefect : int {
  Ok = 0,        /* usable */
  XNan,          /* x_i is NaN */
  XInf,          /* x_i is +-infinity */
  LowerNan,      /* l_i is NaN (NaN compares false with everything: the bound would silently be dropped) */
  UpperNan,      /* u_i is NaN */
  LowerPlusInf,  /* l_i >= inf: no point is feasible */
  UpperMinusInf, /* u_i <= -inf: no point is feasible */
  Inverted       /* l_i > u_i: no point is feasible */
};
struct BoundsCheckInfo {
  Int          index = -1; /* smallest local index with a defect, -1 if none */
  BoundsDefect kind  = BoundsDefect::Ok;
};
/* the first defective entry of (l, u, x) (one min-reduction over the keys 8 i + kind) */
BoundsCheckInfo CheckBounds(ConstView l, ConstView u, ConstView x, Real inf);


struct ActiveInfo {
  Int nprojected = 0; /* entries of x moved onto the box */
  Int nbounded   = 0; /* entries with at least one bound */
  Int nboxed     = 0; /* entries with both bounds */
};
/* reference routine `active`: project x onto [l, u] and initialise iwhere (-1 free, 3 fixed l = u, 0 otherwise);
   the bounds must have passed CheckBounds() */
ActiveInfo Active(ConstView l, ConstView u, MutView x, View<Int> iwhere, Real inf);

/* reference routine `projgr`: the rank-local max |P(x - g) - x|; +infinity when g has a NaN or infinite entry (which
   the projection could otherwise hide) */
Real ProjGradNormInf(ConstView l, ConstView u, ConstView x, ConstView g, Real inf);

struct CauchyInitInfo {
  Real f1      = 0;        /* g^T d over the moving variables, d = -g there */
  Int  nbreak  = 0;        /* variables with a breakpoint */
  Int  nmoving = 0;        /* variables with d_i != 0 or free (iwhere 0 or -1) */
  Int  nfreenb = 0;        /* moving variables without a breakpoint */
  Int  nfreenb_nonzero = 0;/* ... with g_i != 0 (the reference's `bnded` is nfreenb_nonzero == 0) */
  Real tmin    = kNoBreak; /* smallest breakpoint */
  Real tmax    = 0;        /* largest breakpoint (0 if none) */
};
/* first pass of `cauchy`: update iwhere, d = -g on the moving variables (0 elsewhere), breakpoints t */
CauchyInitInfo CauchyInit(ConstView l, ConstView u, ConstView x, ConstView g, View<Int> iwhere, MutView d, MutView t, Real inf);

/* number of breakpoints with lo < t_i <= hi, and their local indices in idx (idx must have room) */
Int SelectBreakpoints(ConstView t, Real lo, Real hi, View<Int> idx);
/* the same with the number into the device scalar count(0) (no host synchronisation), for a caller that knows it
   already (from a histogram); only the first cap indices are stored */
void SelectBreakpointsCount(ConstView t, Real lo, Real hi, View<Int> idx, Int cap, View<Int> count);

/* the first four fields of the breakpoint records out(k * stride + 0..3) = (t, global index, d, bound - x) of the
   selected variables idx(k), k < cnt */
void BreakpointRecords(ConstView l, ConstView u, ConstView x, ConstView d, ConstView t, View<Int> idx, Int cnt, Int rstart, View<Scalar> out, Int stride);

/* out(k * stride + offset) = scale * v(idx(k)), k < cnt */
void GatherStrided(ConstView v, View<Int> idx, Int cnt, View<Scalar> out, Int stride, Int offset, Real scale);

/* last pass of `cauchy`: variables passed (t_i, gid_i) <= (tstar, gidstar) go to their bound (iwhere 1 or 2),
   the others move to x + tsum d; gid_i = rstart + i */
void CauchyFinish(ConstView l, ConstView u, ConstView x, ConstView d, ConstView t, View<Int> iwhere, MutView xcp, Real tstar, Int gidstar, Int rstart, Real tsum);

/* number of free variables (iwhere <= 0) */
Int CountFree(View<Int> iwhere);

/* projection of `subsm`: xnew = P(z + d) on the free variables, z elsewhere; returns the number of free variables
   that end on a bound (the reference's iword) */
Int ProjectStep(ConstView l, ConstView u, View<Int> iwhere, ConstView z, ConstView d, MutView xnew, Real inf);

/* backtracking of `subsm` (eq. 5-7 of the paper): min(1, min_i alpha_i) over free i and the local index of the first
   free variable attaining it (-1 if none or alpha = 1) */
Real SubspaceMaxStep(ConstView l, ConstView u, View<Int> iwhere, ConstView z, ConstView d, Real inf, Int *loc);
/* first local index with alpha_i == alpha (or -1) */
Int SubspaceBlockingIndex(ConstView l, ConstView u, View<Int> iwhere, ConstView z, ConstView d, Real inf, Real alpha);
/* xnew = z + alpha d on the free variables, the blocking variable (local index blk, or -1) exactly on its bound */
void SubspaceBacktrack(ConstView l, ConstView u, View<Int> iwhere, ConstView z, ConstView d, MutView xnew, Real alpha, Int blk);

/* line search `lnsrlb`: largest step keeping x + stp d in the box, starting from big */
Real LineSearchMaxStep(ConstView l, ConstView u, ConstView x, ConstView d, Real inf, Real big);

/* ---- exact Cauchy point on the device (the generalised Cauchy point of Byrd, Lu, Nocedal and Zhu, "A limited memory
   algorithm for bound constrained optimization", SIAM J. Sci. Comput. 16, 1995, with the breakpoints handled in
   parallel in the spirit of Fei, Rong, Wang and Wang, "Parallel L-BFGS-B algorithm on GPU", 2014): the breakpoints
   of a chunk are sorted by (t, global index), the per-breakpoint updates are prefix-summed, every segment is
   evaluated independently in O(m^2) and the first segment holding the minimiser is found by a min-index reduction.

   Records: rec(k * stride + 0..3) = (t, global index, d, z = bound - x), rec(k * stride + 4 + i) = w_i (row of
   W = [Y, theta S], 2col entries), k < cnt, in increasing global index.
   Prefix columns (ncol = 2 col2 + 1): c < col2: d w_c; col2 <= c < 2 col2: z w_{c - col2}; c = 2 col2: d^2. */

/* perm(k) = the record at position k of the order (t, global index); tkeys, keys: scratch of cnt entries */
void BreakpointSort(View<Real> rec, Int cnt, Int stride, View<Real> tkeys, Kokkos::View<int64_t *, MemSpace> keys, View<Int> perm);

/* pre(k, c) = carry(c) + sum over the sorted records j < k of column c, for k = 0..cnt (row cnt: the totals); the
   carry is added first, so that the sums run in the sorted order whatever the chunk boundaries */
void BreakpointPrefix(View<Real> rec, View<Int> perm, Int cnt, Int stride, Int col2, View<Real> carry, Kokkos::View<Real **, Kokkos::LayoutLeft, MemSpace> pre);

struct SegmentConsts {
  Int  col2   = 0;
  Real theta  = 1;
  Real S0     = 0;  /* ||d||^2 over the moving variables (-f1 at t = 0) */
  Real f2org  = 0;  /* f'' at t = 0 */
  Real epsmch = 0;
  Real tcarry = 0;  /* last breakpoint passed before this chunk (0 if none) */
  Real tlastc = -1, gidlastc = -1; /* (t, global index) of that breakpoint, -1 if none */
  bool origin = true; /* no breakpoint passed before this chunk (the first segment has no f'' safeguard) */
};

/* f', f'' of the segment starting after the sorted records j < k of the chunk (k = 0..cnt): with p = p0 - P,
   c = Q + t_prev p, S = S0 - D2, f' = -S + theta t_prev S - c^T M p, f'' = theta S - p^T M p (safeguarded by
   eps f''_0 as the reference recurrences); M is the dense 2col x 2col middle matrix (column-major) */
KOKKOS_INLINE_FUNCTION void SegmentModel(const Kokkos::View<Real **, Kokkos::LayoutLeft, MemSpace> &pre, Int k, const View<Real> &p0, const View<Real> &M, const SegmentConsts &sc, Real tprev, Real &f1, Real &f2)
{
  const Int  col2 = sc.col2;
  const Real S    = sc.S0 - pre(k, 2 * col2);
  Real       pMp = 0, cMp = 0;
  for (Int i = 0; i < col2; i++) {
    const Real pi = p0(i) - pre(k, i), ci = pre(k, col2 + i) + tprev * pi;
    Real       vi = 0;
    for (Int j = 0; j < col2; j++) vi += M(i + j * col2) * (p0(j) - pre(k, j));
    pMp += pi * vi;
    cMp += ci * vi;
  }
  f1 = -S + sc.theta * tprev * S - cMp;
  f2 = sc.theta * S - pMp;
  if (!(sc.origin && k == 0)) f2 = f2 > sc.epsmch * sc.f2org ? f2 : sc.epsmch * sc.f2org;
}

/* the first k in [0, cnt) whose segment holds the minimiser (-f'/f'' < t_k - t_prev), or cnt if none */
Int BreakpointFirstStop(View<Real> rec, View<Int> perm, Int cnt, Int stride, Kokkos::View<Real **, Kokkos::LayoutLeft, MemSpace> pre, View<Real> p0, View<Real> M, const SegmentConsts &sc);

/* the state of the segment after the sorted records j < k (k = 0..cnt): out = (f', f'', t_prev, t and global index
   of the last record passed (or of the carry, -1 if none), pre(k, 0..ncol)); carry := pre(k, .) */
void BreakpointSegment(View<Real> rec, View<Int> perm, Int cnt, Int stride, Kokkos::View<Real **, Kokkos::LayoutLeft, MemSpace> pre, View<Real> p0, View<Real> M, const SegmentConsts &sc, Int k, View<Real> out, View<Real> carry);

/* ---- the masked Gram products of the subspace step in one pass: out(q) = sum_i w_q(i) v_a(i) v_b(i) for the
   triples prod(q) = (a, b, free); vecs holds the device pointers of the vectors v_0..v_(nv-1) of local length n;
   partial: scratch of (league x nprod).
   rows empty: every i < n with w = [iwhere_i <= 0] (free) or [iwhere_i > 0] (active) (the blocks of `formk` from
   scratch);
   rows given: only the n entries i = rows(k), k < n (the variables whose free/active state changed, see
   FreeSetChanges or FreeSetList), with w = +s for free products and -s for active ones, s = +1 if i is free
   now (entering the free set) and -1 otherwise (leaving it): the corrections of `formk` for the changes of the free
   set; a non-empty gfree (rows given) then gets the new state of the listed variables */
struct VecPtr {
  const Real *p;
};
struct GramProduct {
  int a, b, free;
};
void MaskedGram(Kokkos::View<VecPtr *, MemSpace> vecs, Int n, View<Int> rows, View<Int> iwhere, Kokkos::View<GramProduct *, MemSpace> prods, Kokkos::View<Real **, Kokkos::LayoutRight, MemSpace> partial, View<Real> out, View<Int> gfree = View<Int>(), View<Int> counts = View<Int>());
/* (counts given, with rows: the number of rows is counts(1) on the device (FreeSetList) and n only bounds it; out then
   has nprod + 2 entries, the last two (Real) copies of counts(0), counts(1), so that one read brings everything) */

/* the variables whose state free (iwhere <= 0) / active differs from the flag gfree (1 free, 0 active) of the stored
   Gram blocks: their local indices in rows (increasing; rows must have room for n), gfree := the new state; returns
   their number */
Int FreeSetChanges(View<Int> iwhere, View<Int> gfree, View<Int> rows);

/* ---- products with the stored pairs in one pass over them. vecs = (y_0..y_(col-1), s_0..s_(col-1)) (chronological,
   so y_(col-1), s_(col-1) is the newest pair), local length n; scratch: at least PairScratch(col) entries. */
constexpr Int kPairSegments = 256;
inline Int    PairScratch(Int col) { return kPairSegments * (6 * (col > 0 ? col : 1) + 8); }

/* out(j) = v^T y_j, out(col + j) = v^T s_j, j < col (W^T v without the theta scaling) */
void PairDots(Kokkos::View<VecPtr *, MemSpace> vecs, Int col, ConstView v, View<Real> scratch, View<Real> out);

/* the new row of the stored products after the update that appended (s, y) (the views of s_(col-1), y_(col-1)), with Z = the
   free variables of gfree (1) and A = the others: for j < col, out(q col + j) =
   q = 0: y^T Z y_j, 1: s^T A s_j, 2: s^T A y_j, 3: s_j^T Z y, 4: s^T Z y_j, 5: s^T Z s_j
   (so s^T y_j = out(4 col + j) + out(2 col + j) and s^T s_j = out(5 col + j) + out(col + j)) */
void UpdateProducts(Kokkos::View<VecPtr *, MemSpace> vecs, Int col, ConstView y, ConstView s, View<Int> gfree, View<Real> scratch, View<Real> out);

/* out(i) = scale * mask(i) * (c0 u0(i) + c1 u1(i) + c2 u2(i) + sum_j coef(j) y_j(i) + coef(col + j) s_j(i)) with
   mask = [iwhere_i <= 0] when masked, 1 otherwise; a u view may be empty (term left out) and may alias out */
void PairCombine(MutView out, Real scale, bool masked, View<Int> iwhere, Real c0, ConstView u0, Real c1, ConstView u1, Real c2, ConstView u2, Kokkos::View<VecPtr *, MemSpace> vecs, Int col, View<Real> coef);

/* ---- fused passes of one bounded iteration (each one kernel and at most one read of its results by the host) */

/* CauchyInit and W^T d in one pass over (l, u, x, g) and the stored pairs (col >= 1): iwhere, d and t as CauchyInit
   (the state of a variable that stays fixed or unbounded, iwhere 3 or -1, is taken from its bounds), and
   out(j) = d^T y_j, out(col + j) = d^T s_j (the same partial sums, in the same order, as PairDots of d),
   out(2 col + 0..6) = (f1, nbreak, nmoving, nfreenb, nfreenb_nonzero, tmin, tmax) of this rank; scratch: PairScratch(col) */
void CauchyInitDots(ConstView l, ConstView u, ConstView x, ConstView g, View<Int> iwhere, MutView d, MutView t, Real inf, Kokkos::View<VecPtr *, MemSpace> vecs, Int col, View<Real> scratch, View<Real> out);
/* the CauchyInitInfo of the values out(2 col + 0..6) of CauchyInitDots */
CauchyInitInfo CauchyInitDotsInfo(const Real *v);

/* The generalised Cauchy point x^c described by the scan, without storing it: the variables passed, (t_i, gid_i) <=
   (tstar, gidstar), sit on their bound (u_i when d_i = -g_i > 0, l_i otherwise), the others at x_i + tsum d_i with
   d_i = -g_i on the variables that moved (iwhere 0 or -1 before the Cauchy point) and 0 elsewhere; as CauchyFinish to
   the last bit. passed = false: no breakpoint was passed (t is not read). */
struct CauchyPointDesc {
  Real tsum = 0, tstar = -1;
  Int  gidstar = -1, rstart = 0;
  bool passed = false;
};
KOKKOS_INLINE_FUNCTION Real CauchyPointAt(const CauchyPointDesc &cp, Real l, Real u, Real x, Real g, Int iw, const ConstView &t, Int i)
{
  if (cp.passed) {
    const Real ti = t(i);
    if (ti < kNoBreak && (ti < cp.tstar || (ti == cp.tstar && cp.rstart + i <= cp.gidstar))) return -g > 0 ? u : l;
  }
  if (cp.tsum == 0) return x; /* (the same for finite g) */
  const Real d = (iw == 0 || iw == -1) ? -g : 0.0;
  return x + cp.tsum * d;
}

/* z = the Cauchy point of cp (CauchyPointAt; iwhere after the Cauchy point) as a vector */
void CauchyPointVec(ConstView l, ConstView u, ConstView x, ConstView g, ConstView t, View<Int> iwhere, const CauchyPointDesc &cp, MutView z);

/* the free set at the Cauchy point without the point itself (see CauchyPointDesc): the passed variables get iwhere 1
   or 2 (the sign of d_i), rows(0..nchanged) = the local indices (increasing) of the variables whose free/active state
   differs from gfree, and the device counts counts(0) = nfree, counts(1) = nchanged, read by nobody here (MaskedGram
   takes the number of rows from counts(1)); one scan, no host synchronisation. gfree is not modified.
   seg given: the last breakpoint passed, (tstar, gidstar), is read on the device from seg(3), seg(4) (the segment state
   of BreakpointStopSegment; passed when gidstar >= 0) instead of from cp, so that the free set follows the exact
   breakpoint scan without a read by the host in between (cp.rstart is still used) */
void FreeSetList(ConstView t, ConstView d, View<Int> iwhere, View<Int> gfree, const CauchyPointDesc &cp, View<Int> rows, View<Int> counts, View<Real> seg = View<Real>());

/* ---- the pass that ends an iteration and starts the next Cauchy point, in one sweep over the n-vectors: with the
   stored pairs vecs = (y_0..y_(col-1), s_0..s_(col-1)) (col >= 0),
   - ProjGradNormInf and GradientChange: r = g - gold, r^T r, max |P(x - g) - x| (+infinity for a NaN or infinite g_i);
   - newpair: the pair (y, s) = (r, stp dstep) of the update is the last one of vecs (its pointers are not read: the
     values are formed on the fly; s is written to snew when stp != 1), with the products of UpdateProducts against
     it (gfree: the free set of the stored Gram blocks);
   - the first pass of `cauchy` at (x, g) from the fixed states of the bounds (CauchyInitDots): with state, iwhere,
     dn and t are written; and W^T dn against every pair of vecs.
   The partial sums of the products run in the order of PairReduce, so that they are PairDots' and UpdateProducts' to
   the last bit. out (EndOutSize(col, newpair) entries): out(q col + j), q = 0: y_j^T dn, 1: s_j^T dn, and with newpair
   q = 2..7 the UpdateProducts values 0..5; then kEndScalars scalars at EndScalars(col, newpair): f1, nbreak, nmoving,
   nfreenb, nfreenb_nonzero, tmin, tmax (as CauchyInitDots), r^T r, the projected-gradient norm; then, at
   EndHistogram(col, newpair), the kBreakBuckets counts of the breakpoints t_i < kNoBreak per bucket of fixed edges
   (BreakBucket), so that the chunks of the exact breakpoint scan are cut without a histogram pass and read of its own.
   scratch: EndScratch(col) entries. */
constexpr Int kEndScalars = 9;
/* the buckets of the breakpoint histogram: 4 per octave over [2^-64, 2^64), and one below and one above */
constexpr int kBreakBucketSub = 2, kBreakBucketOctaves = 128;
constexpr Int kBreakBuckets   = (Int)kBreakBucketOctaves << kBreakBucketSub;
inline Int    EndScalars(Int col, bool newpair) { return (newpair ? 8 : 2) * col; }
inline Int    EndHistogram(Int col, bool newpair) { return EndScalars(col, newpair) + kEndScalars; }
inline Int    EndOutSize(Int col, bool newpair) { return EndHistogram(col, newpair) + kBreakBuckets; }
inline Int    EndScratch(Int col) { return kPairSegments * (8 * (col > 0 ? col : 1) + kEndScalars + kBreakBuckets); }

/* The fixed buckets of the breakpoints: bucket b holds BreakBucketEdge(b) < t <= BreakBucketEdge(b + 1), the edges
   being the floating-point numbers 2^e (1 + k/4) (exact, from their bits), bucket 0 everything up to 2^-64 (1 + 1/4) and bucket
   kBreakBuckets - 1 everything above 2^63 (1 + 3/4); BreakBucketEdge(0) = -1, BreakBucketEdge(kBreakBuckets) = kNoBreak.
   The bucket of t > 0 is read from the bits of its predecessor (the bits of t minus one), so that an edge itself falls
   in the bucket it closes, as the comparisons t <= edge of BreakpointHistogram and of the selections (lo, hi] */
namespace detail
{
using BreakBits                   = std::conditional_t<sizeof(Real) == 8, uint64_t, uint32_t>;
constexpr int       kMantissaBits = sizeof(Real) == 8 ? 52 : 23, kExponentBias = sizeof(Real) == 8 ? 1023 : 127;
constexpr int64_t   kBucketOffset = (int64_t)(kExponentBias - kBreakBucketOctaves / 2) << kBreakBucketSub;
} // namespace detail
KOKKOS_INLINE_FUNCTION Int BreakBucket(Real t)
{
  detail::BreakBits bits;
  if (!(t > 0)) return 0;
  memcpy(&bits, &t, sizeof(bits));
  const int64_t k = (int64_t)((bits - 1) >> (detail::kMantissaBits - kBreakBucketSub)) - detail::kBucketOffset;
  return k < 0 ? 0 : (k >= kBreakBuckets ? kBreakBuckets - 1 : (Int)k);
}
inline Real BreakBucketEdge(Int b)
{
  detail::BreakBits bits;
  Real              e;
  if (b <= 0) return -1.0;
  if (b >= kBreakBuckets) return kNoBreak;
  bits = (detail::BreakBits)(detail::kBucketOffset + b) << (detail::kMantissaBits - kBreakBucketSub);
  memcpy(&e, &bits, sizeof(e));
  return e;
}
void EndPass(ConstView l, ConstView u, ConstView x, ConstView g, ConstView gold, MutView r, ConstView dstep, Real stp, MutView snew, bool newpair, View<Int> gfree, bool state, View<Int> iwhere, MutView dn, MutView t, Real inf, Kokkos::View<VecPtr *, MemSpace> vecs, Int col, View<Real> scratch, View<Real> out);

struct StepInfo {
  Int  iword  = 0; /* free variables that end on a bound in the projection (the reference's iword) */
  Real dtd    = 0; /* d^T d, d = xnew - x */
  Real gtd    = 0; /* g^T d */
  Real stpmax = 0; /* largest step keeping x + stp d in the box, from big (LineSearchMaxStep), when asked */
};
/* the end of the subspace step and the start of the line search in one pass:
   dsub = (1/theta)-scaled masked combination written to dsub (PairCombine with mask, scale, c0 u0 and the pairs),
   xnew = P(z + dsub) on the free variables and z elsewhere (ProjectStep), then as LineSearchStart with z := xnew:
   d = xnew - x, xold = x, gold = g, and the sums d^T d, g^T d; stpmax as LineSearchMaxStep when maxstep */
StepInfo SubspaceStepStart(ConstView l, ConstView u, View<Int> iwhere, ConstView z, ConstView x, ConstView g, MutView dsub, Real scale, Real c0, ConstView u0, Kokkos::View<VecPtr *, MemSpace> vecs, Int col, View<Real> coef, MutView xnew, MutView d, MutView xold, MutView gold, Real inf, bool maxstep, Real big);
/* the same with the Cauchy point z formed on the fly (CauchyPointAt; iwhere after the Cauchy point, t the
   breakpoints) instead of read, u0 = g, and dsub not stored: the subspace step of a bounded iteration reads no
   vector but the bounds, x, g, iwhere (t when a breakpoint was passed) and the pairs */
StepInfo SubspaceStepStartGcp(ConstView l, ConstView u, View<Int> iwhere, ConstView t, const CauchyPointDesc &cp, ConstView x, ConstView g, Real scale, Real c0, Kokkos::View<VecPtr *, MemSpace> vecs, Int col, View<Real> coef, MutView xnew, MutView d, MutView xold, MutView gold, Real inf, bool maxstep, Real big);

/* LineSearchStart and (when maxstep) LineSearchMaxStep of the new d in one pass; returns (d^T d, g^T d, stpmax) */
StepInfo LineSearchStartMax(ConstView l, ConstView u, ConstView z, ConstView x, ConstView g, MutView d, MutView xold, MutView gold, Real inf, bool maxstep, Real big);


/* counts(b) = the number of breakpoints t_i (t_i < kNoBreak) with edges(b) < t_i <= edges(b + 1), b < nb (edges:
   nb + 1 non-decreasing values). One pass, no sort: the chunks of the exact Cauchy scan are cut from these counts
   instead of from a sort of all the breakpoints */
void BreakpointHistogram(ConstView t, View<Real> edges, Int nb, View<Int> counts);

/* BreakpointRecords and the W rows (GatherStrided of every stored pair) in one pass: out(k stride + 4 + j) = y_j(i),
   out(k stride + 4 + col + j) = theta s_j(i) of the selected variables i = idx(k) */
void BreakpointRecordsW(ConstView l, ConstView u, ConstView x, ConstView d, ConstView t, View<Int> idx, Int cnt, Int rstart, Kokkos::View<VecPtr *, MemSpace> vecs, Int col, Real theta, View<Scalar> out, Int stride);

/* BreakpointFirstStop and BreakpointSegment at its k without the host in between: kstop into the device scalar
   out(5 + ncol) (as a Real), the segment's state into out(0 .. 5 + ncol) as BreakpointSegment; with selcount given,
   also out(6 + ncol) = selcount(0) (the count of the chunk's selection, SelectBreakpointsCount, so that the host reads
   it with the segment) */
void BreakpointStopSegment(View<Real> rec, View<Int> perm, Int cnt, Int stride, Kokkos::View<Real **, Kokkos::LayoutLeft, MemSpace> pre, View<Real> p0, View<Real> M, const SegmentConsts &sc, View<Real> out, View<Real> carry, View<Int> selcount = View<Int>());

/* v sorted ascending on exec()'s stream (Kokkos 4: no fence, no global one; Kokkos 3 sorts on the default instance:
   fenced before) */
void SortOnExec(View<Real> v);

/* start of the line search: d = z - x, xold = x, gold = g; returns (d^T d, g^T d) (rank-local) */
void LineSearchStart(ConstView z, ConstView x, ConstView g, MutView d, MutView xold, MutView gold, Real &dtd, Real &gtd);

/* r = g - gold; returns r^T r (rank-local) */
Real GradientChange(ConstView g, ConstView gold, MutView r);

/* ---- host routines on the small matrices (column-major, leading dimension ld) */

/* LINPACK dpofa: Cholesky R^T R of the upper triangle of a (n x n); returns 0 or the failing column (1-based) */
int Dpofa(Real *a, int lda, int n);
/* LINPACK dtrsl for an upper triangular t: job 1 solves t x = b, job 11 solves t^T x = b; returns 0 or the singular
   column (1-based) */
int DtrslUpper(const Real *t, int ldt, int n, Real *b, int job);

/* The limited-memory state of the reference code, in chronological order (index 0 = oldest pair) */
struct Memory {
  int                m = 0, col = 0;
  Real               theta = 1;
  std::vector<Real>  sy, ss, wt; /* m x m, column-major: sy(i,j) = s_i^T y_j, ss upper, wt = chol(T) */
  std::vector<Real>  wn;         /* 2m x 2m factor of K (formk) */
  void               Resize(int mm)
  {
    m = mm;
    sy.assign((size_t)m * m, 0);
    ss.assign((size_t)m * m, 0);
    wt.assign((size_t)m * m, 0);
    wn.assign((size_t)4 * m * m, 0);
  }
  Real &SY(int i, int j) { return sy[(size_t)j * m + i]; }
  Real &SS(int i, int j) { return ss[(size_t)j * m + i]; }
  Real &WT(int i, int j) { return wt[(size_t)j * m + i]; }
  Real &WN(int i, int j) { return wn[(size_t)j * 2 * m + i]; }
  Real  SY(int i, int j) const { return sy[(size_t)j * m + i]; }
};
/* reference `formt`: T = theta SS + L D^-1 L^T, Cholesky into wt; returns 0 or nonzero when T is not positive definite */
int Formt(Memory &mem);
/* reference `bmv`: p = M v for 2col-vectors; returns 0 or nonzero on a singular triangle */
int Bmv(const Memory &mem, const Real *v, Real *p);
/* reference `formk` from the masked Gram blocks (col x col, column-major, chronological):
   yzzy(i,j) = y_i^T Z Z^T y_j, saas(i,j) = s_i^T A A^T s_j, szzy(i,j) = s_i^T Z Z^T y_j, saay(i,j) = s_i^T A A^T y_j.
   Returns 0, -1 or -2 (first / second Cholesky failed) */
int Formk(Memory &mem, const Real *yzzy, const Real *saas, const Real *szzy, const Real *saay);
/* reference `subsm` small solve: wv := K^-1 wv (two triangular solves with the formk factor); returns 0 or nonzero */
int SubsmSolve(const Memory &mem, Real *wv);

/* One breakpoint record of the exact Cauchy point scan, gathered from all ranks */
struct Breakpoint {
  Real              t;    /* breakpoint */
  Int               gid;  /* global index, orders ties */
  Real              d;    /* d_b = -g_b */
  Real              z;    /* bound_b - x_b */
  const Real       *w;    /* row b of W = [Y, theta S] (2 col entries) */
};
/* State of the Cauchy scan across chunks (the reference `cauchy` recurrences) */
struct CauchyScan {
  int               col2 = 0;
  Real              theta = 1, f1 = 0, f2 = 0, f2_org = 0, dtm = 0, tsum = 0, tj = 0, epsmch = 0;
  std::vector<Real> p, c, v, wbp;
  Int               npassed = 0;
  bool              done = false, allfixed = false;
  Real              tstar = -1; /* last passed breakpoint (t, gid), or -1 when none */
  Int               gidstar = -1;
};
/* starts the scan from the first segment: p = W^T d (2 col, S part already scaled by theta), f1 = g^T d;
   returns nonzero on a singular bmv */
int CauchyScanStart(const Memory &mem, CauchyScan &scan, const Real *p, Real f1, Real epsmch);
/* processes breakpoints bp[0..nb) (the next ones in the global order (t, gid)) with the reference recurrences;
   nbreak_total, n_total and bnded are the global counts of the reference. Sets scan.done when the Cauchy point is
   found. Returns nonzero on a singular bmv. */
int CauchyScanChunk(const Memory &mem, CauchyScan &scan, const Breakpoint *bp, Int nb, Int nbreak_total, Int n_total, bool bnded);
/* ends the scan (the reference's labels 888 and 999): final tsum and c = W^T (x^c - x) */
void CauchyScanFinish(CauchyScan &scan);

/* More-Thuente line search of MINPACK-2 (dcsrch/dcstep) as used by L-BFGS-B 3.0 */
struct Dcsrch {
  enum Task {
    START,
    FG,
    CONVERGENCE,
    WARNING,
    ERROR
  };
  Task        task = START;
  std::string msg;
  bool        brackt = false;
  int         stage  = 1;
  Real ginit = 0, gtest = 0, gx = 0, gy = 0, finit = 0, fx = 0, fy = 0, stx = 0, sty = 0, stmin = 0, stmax = 0, width = 0, width1 = 0;
  void Step(Real f, Real g, Real &stp, Real ftol, Real gtol, Real xtol, Real stpmin, Real stpmax);
};
void Dcstep(Real &stx, Real &fx, Real &dx, Real &sty, Real &fy, Real &dy, Real &stp, Real fp, Real dp, bool &brackt, Real stpmin, Real stpmax);
} // namespace lbfgsb
} // namespace petsckp
