/*
   psormg_kernels.cxx - device kernels of PCPSORMG; see psormg_kernels.hpp for the mathematics.
*/
#include "psormg_kernels.hpp"
#include "kp_segsort.hpp"
#include "kp_colour.hpp"

namespace petsckp
{
namespace psormg
{
namespace cm = petsckp::compat;

/* a bound that bounds: finite and below PETSc's PETSC_INFINITY (PETSC_MAX_REAL / 4: a finite number that means "no
   bound" in PETSc, e.g. in VecSet(xu, PETSC_INFINITY)) */
KOKKOS_INLINE_FUNCTION bool Bounded(Real v) { return cm::isfinite(v) && cm::fabs(v) < PETSC_INFINITY; }

void RestrictGap(ObstacleRestriction type, bool lower, const CsrMatrix &Rd, const CsrMatrix &Ro, UView<const Scalar> g, UView<const Scalar> gghost, UView<Scalar> gc)
{
  const Int    n = Rd.nrows;
  const bool   haveo = Ro.nrows > 0, mono = type == ObstacleRestriction::Monotone;
  const Scalar inf = lower ? -INFINITY : INFINITY;
  auto         rp = Rd.rowptr;
  auto         ci = Rd.colidx;
  auto         va = Rd.vals;
  auto         orp = Ro.rowptr;
  auto         oci = Ro.colidx;
  auto         ova = Ro.vals;

  if (n == 0) return;
  Kokkos::parallel_for(
    "petsckp::psormg::RestrictGap", range(n), KOKKOS_LAMBDA(Int J) {
      /* monotone: the most restrictive gap over the support (max for a lower bound, min for an upper one);
         linear: weighted mean over the finite children; unbounded when no child is finite */
      Scalar m = inf, sum = 0, wsum = 0;
      for (int blk = 0; blk < 2; blk++) {
        if (blk == 1 && !haveo) break;
        const Int kb = blk ? orp(J) : rp(J), ke = blk ? orp(J + 1) : rp(J + 1);
        for (Int k = kb; k < ke; k++) {
          const Scalar w = blk ? ova(k) : va(k);
          if (!(w > 0)) continue;
          const Scalar v = blk ? gghost(oci(k)) : g(ci(k));
          if (mono) m = lower ? cm::fmax(m, v) : cm::fmin(m, v);
          else if (cm::isfinite(v)) sum += w * v, wsum += w;
        }
      }
      gc(J) = mono ? m : (wsum > 0 ? sum / wsum : inf);
    });
}

/* classification of a point: 0 free, 1 at the lower bound, 2 at the upper bound, 3 at both (a fixed variable,
   lo = up: any residual is complementary) */
struct ActiveTest {
  UView<const Scalar> x, lo, up;
  Real                acttol;
  bool                havelo, haveup;
  KOKKOS_INLINE_FUNCTION int operator()(Int i) const
  {
    const bool atlo = havelo && Bounded(lo(i)) && cm::fabs(x(i) - lo(i)) <= acttol * cm::fmax(1.0, cm::fabs(lo(i)));
    const bool atup = haveup && Bounded(up(i)) && cm::fabs(up(i) - x(i)) <= acttol * cm::fmax(1.0, cm::fabs(up(i)));
    return (atlo ? 1 : 0) + (atup ? 2 : 0);
  }
  /* the component of the projected residual of a point of class a with residual p */
  KOKKOS_INLINE_FUNCTION static Scalar Project(int a, Scalar p) { return a == 3 ? Scalar(0) : a == 1 ? cm::fmax(p, 0.0) : a == 2 ? cm::fmin(p, 0.0) : p; }
};

LcpMeasures ComputeLcpMeasures(UView<const Scalar> x, UView<const Scalar> r, UView<const Scalar> b, UView<const Scalar> lo, UView<const Scalar> up, Real acttol, bool all)
{
  const Int   n      = (Int)x.extent(0);
  const bool  havelo = lo.extent(0) > 0, haveup = up.extent(0) > 0;
  LcpMeasures m;

  if (n == 0) return m;
  const ActiveTest at{x, lo, up, acttol, havelo, haveup};

  Kokkos::parallel_reduce(
    "petsckp::psormg::ProjectedResidual", range(n),
    KOKKOS_LAMBDA(Int i, Real & s) {
      const Scalar p = ActiveTest::Project(at(i), r(i));
      s += p * p;
    },
    m.pnorm2); /* reductions into host scalars fence */
  if (!all) return m;
  Kokkos::parallel_reduce(
    "petsckp::psormg::Complementarity", range(n),
    KOKKOS_LAMBDA(Int i, Real & s) {
      if (havelo && Bounded(lo(i))) s += (x(i) - lo(i)) * cm::fmax(-r(i), 0.0);
      if (haveup && Bounded(up(i))) s += (up(i) - x(i)) * cm::fmax(r(i), 0.0);
    },
    m.comp);
  Kokkos::parallel_reduce(
    "petsckp::psormg::Infeasibility", range(n),
    KOKKOS_LAMBDA(Int i, Real & s) {
      Real v = 0;
      if (havelo) v = cm::fmax(v, lo(i) - x(i));
      if (haveup) v = cm::fmax(v, x(i) - up(i));
      s = cm::fmax(s, v);
    },
    Kokkos::Max<Real>(m.infeas));
  Kokkos::parallel_reduce(
    "petsckp::psormg::Energy", range(n), KOKKOS_LAMBDA(Int i, Real & s) { s += -0.5 * x(i) * (b(i) + r(i)); }, m.energy);
  Kokkos::parallel_reduce(
    "petsckp::psormg::ActiveSet", range(n), KOKKOS_LAMBDA(Int i, Int & s) { s += at(i) ? 1 : 0; }, m.nactive);
  if (m.infeas < 0) m.infeas = 0;
  return m;
}

TruncationInfo TruncationMask(UView<const Scalar> x, UView<const Scalar> lo, UView<const Scalar> up, Real acttol, UView<Scalar> keep)
{
  const Int      n      = (Int)x.extent(0);
  const bool     havelo = lo.extent(0) > 0, haveup = up.extent(0) > 0;
  TruncationInfo info;

  if (n == 0) return info;
  const ActiveTest at{x, lo, up, acttol, havelo, haveup};
  Kokkos::parallel_reduce(
    "petsckp::psormg::TruncationMask", range(n),
    KOKKOS_LAMBDA(Int i, Int & c, Int & a) {
      const Scalar k = at(i) ? 0.0 : 1.0;
      if (keep(i) != k) {
        keep(i) = k;
        c++;
      }
      if (k == 0.0) a++;
    },
    info.changed, info.active);
  return info;
}

void CoarsePsor(const CsrMatrix &A, UView<const Int> rows, UView<const Int> offsets, Int ncolours, Real omega, Int max_it, Real rtol, Real acttol, UView<const Scalar> b, UView<const Scalar> lo, UView<const Scalar> up, UView<Scalar> x, UView<Int> pairs)
{
  using TP          = Kokkos::TeamPolicy<ExecSpace>;
  const Int  n      = A.nrows;
  const bool havelo = lo.extent(0) > 0, haveup = up.extent(0) > 0;
  auto       rp     = A.rowptr;
  auto       ci     = A.colidx;
  auto       va     = A.vals;

  if (n == 0) {
    Kokkos::deep_copy(exec(), pairs, 0);
    return;
  }
  const ActiveTest at{x, lo, up, acttol, havelo, haveup};
  Kokkos::parallel_for(
    "petsckp::psormg::CoarsePsor", TP(exec(), 1, Kokkos::AUTO), KOKKOS_LAMBDA(const TP::member_type &t) {
      /* the squared projected residual of x (every thread gets the sum) */
      auto measure = [&]() {
        Real s = 0;
        Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(t, n),
          [&](Int i, Real &acc) {
            Scalar ax = 0;
            for (Int k = rp(i); k < rp(i + 1); k++) ax += va(k) * x(ci(k));
            const Scalar p = ActiveTest::Project(at(i), b(i) - ax);
            acc += p * p;
          },
          s);
        t.team_barrier();
        return s;
      };
      auto sweep = [&](bool backward) {
        for (Int cc = 0; cc < ncolours; cc++) {
          const Int c = backward ? ncolours - 1 - cc : cc;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, offsets(c), offsets(c + 1)), [&](Int q) {
            const Int    i    = rows(q);
            Scalar       s    = b(i);
            const Scalar diag = SorRowSum(rp, ci, va, i, x, s);
            if (diag == 0) return;
            x(i) = SorRowUpdate(x(i), s, diag, omega, havelo, havelo ? lo(i) : Scalar(0), haveup, haveup ? up(i) : Scalar(0));
          });
          t.team_barrier();
        }
      };
      const Real p0 = cm::sqrt(measure());
      Int        it = 0;
      for (; it < max_it && p0 > 0; it += 2) {
        sweep(false);
        sweep(true);
        if ((it / 2) % 4 == 3 && cm::sqrt(measure()) <= rtol * p0) {
          it += 2;
          break;
        }
      }
      Kokkos::single(Kokkos::PerTeam(t), [&]() { pairs(0) = it / 2; });
    });
}

BoundsInfo CheckBounds(UView<const Scalar> lo, UView<const Scalar> up)
{
  const bool   havelo = lo.extent(0) > 0, haveup = up.extent(0) > 0;
  const Int    n      = (Int)(havelo ? lo.extent(0) : up.extent(0));
  const Scalar inf    = INFINITY;
  Int          r[5]   = {n, n, n, n, n};
  BoundsInfo   info;

  if (n == 0) return info;
  Kokkos::parallel_reduce(
    "petsckp::psormg::CheckBounds", range(n),
    KOKKOS_LAMBDA(Int i, Int & nanlo, Int & nanup, Int & pinflo, Int & ninfup, Int & crossed) {
      const Scalar l = havelo ? lo(i) : -inf, u = haveup ? up(i) : inf;
      if (l != l && i < nanlo) nanlo = i;
      if (u != u && i < nanup) nanup = i;
      if (l == inf && i < pinflo) pinflo = i;
      if (u == -inf && i < ninfup) ninfup = i;
      if (l > u && i < crossed) crossed = i;
    },
    Kokkos::Min<Int>(r[0]), Kokkos::Min<Int>(r[1]), Kokkos::Min<Int>(r[2]), Kokkos::Min<Int>(r[3]), Kokkos::Min<Int>(r[4]));
  info.nan_lo  = r[0] < n ? r[0] : -1;
  info.nan_up  = r[1] < n ? r[1] : -1;
  info.pinf_lo = r[2] < n ? r[2] : -1;
  info.ninf_up = r[3] < n ? r[3] : -1;
  info.crossed = r[4] < n ? r[4] : -1;
  if (info.crossed >= 0) { /* both bounds exist where they cross */
    Scalar l, u;
    Kokkos::deep_copy(l, Kokkos::subview(lo, info.crossed));
    Kokkos::deep_copy(u, Kokkos::subview(up, info.crossed));
    info.lo_crossed = l, info.up_crossed = u;
  }
  return info;
}

void StructuredProlongation(const Int M[3], const bool constantedge[3], CsrMatrix &P)
{
  const Int zero[3] = {0, 0, 0}, C[3] = {CoarseSize1D(M[0]), CoarseSize1D(M[1]), CoarseSize1D(M[2])};
  CsrMatrix Po;

  StructuredProlongation(M, constantedge, zero, M, zero, C, UView<const Int>(), 0, P, Po); /* every coarse point is local */
}

void EdgeRowSums(const CsrMatrix &A, const Int M[3], int d, Real sums[3])
{
  const Int zero[3] = {0, 0, 0};
  EdgeRowSums(A, CsrMatrix(), UView<const Int>(), M, zero, M, d, sums);
}

void EdgeRowSums(const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Int> ghostcoord, const Int M[3], const Int xs[3], const Int xm[3], int d, Real sums[3])
{
  const Int  M0 = M[0], M1 = M[1], M2 = M[2], Md = M[d];
  const Int  x0 = xs[0], x1 = xs[1], x2 = xs[2], m0 = xm[0], m1 = xm[1], m2 = xm[2];
  const Int  xsd = xs[d], xmd = xm[d];
  const Int  stride = d == 0 ? 1 : (d == 1 ? m0 : m0 * m1); /* of the local block */
  const bool ghost  = Ao.nrows > 0;
  const int  dd     = d;
  auto       rp = Ad.rowptr, orp = Ao.rowptr;
  auto       ci = Ad.colidx, oci = Ao.colidx;
  auto       va = Ad.vals, ova = Ao.vals;
  Real       s[3] = {0, 0, 0};

  for (int w = 0; w < 3; w++) sums[w] = 0;
  if (Md < 1 || xsd > Md - 1 || xsd + xmd <= Md - 1 || m0 * m1 * m2 == 0) return; /* the edge plane is not in the block */
  const Int np = m0 * m1 * m2 / xmd; /* points of the block on the plane */
  for (int which = 0; which < 3; which++) {
    Real r = 0;
    Kokkos::parallel_reduce(
      "petsckp::psormg::EdgeRowSums", range(np),
      KOKKOS_LAMBDA(Int t, Real & acc) {
        /* point t of the block's part of the plane i_d = Md - 1: the other two local coordinates, x fastest */
        Int p[3], u = t;
        for (int e = 0; e < 3; e++) {
          const Int me = e == 0 ? m0 : (e == 1 ? m1 : m2), xe = e == 0 ? x0 : (e == 1 ? x1 : x2);
          if (e == dd) p[e] = Md - 1;
          else {
            p[e] = xe + u % me;
            u /= me;
          }
        }
        for (int e = 0; e < 3; e++) {
          const Int Me = e == 0 ? M0 : (e == 1 ? M1 : M2);
          if (e != dd && Me > 2 && (p[e] == 0 || p[e] == Me - 1)) return;
        }
        const Int row = (p[0] - x0) + m0 * ((p[1] - x1) + m1 * (p[2] - x2));
        if (which == 2) {
          acc += 1;
          return;
        }
        for (Int k = rp(row); k < rp(row + 1); k++) {
          if (which == 0) acc += va(k);
          else if ((Int)ci(k) != row && ((Int)ci(k) / stride) % xmd + xsd == Md - 2) acc -= va(k);
        }
        if (ghost)
          for (Int k = orp(row); k < orp(row + 1); k++) {
            if (which == 0) acc += ova(k);
            else if (ghostcoord(oci(k)) == Md - 2) acc -= ova(k);
          }
      },
      r);
    s[which] = r;
  }
  for (int w = 0; w < 3; w++) sums[w] = s[w];
}

/* The rows of P are tensor products of the 1D stencils (Prolong1D), and so are their lengths: a row of fine point
   (i, j, k) has L0(i) L1(j) L2(k) entries, l0(i) l1(j) l2(k) of them local (a coarse point is local when it is inside
   the coarse block in every direction), L_d and l_d the stencil's points in direction d and those inside the block.
   With the rows in natural order (x fastest), the entries of the rows before (i, j, k) number
     S2(k) T1 T0 + L2(k) S1(j) T0 + L2(k) L1(j) S0(i),   S_d(x) = sum_{x' < x} L_d(x'), T_d = S_d(m_d),
   and likewise for the local entries: the row offsets of both blocks come from 1D prefix sums, without a scan.
   A column is a sum over the directions too: of the stencil point's offsets in the coarse block (its coordinate in
   the block times the block's stride; -N - 1 outside the block, N = the block's points, so that a sum with one of
   them is negative) or in the ghost box. Everything per direction is tabulated on the host (O(m_0 + m_1 + m_2)), so a
   row costs a few table reads and its entries. */
namespace
{
constexpr int kProlongInts = 8; /* per fine coordinate: L, l, S, s, local offsets [2], box offsets [2] */
}

void StructuredProlongation(const Int M[3], const bool constantedge[3], const Int xs[3], const Int xm[3], const Int cxs[3], const Int cxm[3], UView<const Int> ghostid, Int nghost, CsrMatrix &Pd, CsrMatrix &Po)
{
  const Int        m0 = xm[0], m1 = xm[1], m2 = xm[2];
  const Int        n = m0 * m1 * m2, nblock = cxm[0] * cxm[1] * cxm[2];
  const Int        o1 = m0 + 1, o2 = o1 + m1 + 1, ntab = o2 + m2 + 1; /* the table of direction d starts at o_d */
  const Int        lstride[3] = {1, cxm[0], cxm[0] * cxm[1]}, bstride[3] = {1, cxm[0] + 2, (cxm[0] + 2) * (cxm[1] + 2)};
  std::vector<Int> hi((size_t)kProlongInts * ntab, 0);
  std::vector<Real> hw(2 * (size_t)ntab, 0.0);
  Int              T[3], t[3];

  for (int d = 0; d < 3; d++) { /* O(m_d) per direction, on the host */
    const Int off = d == 0 ? 0 : (d == 1 ? o1 : o2), c = cxs[d], nc = cxm[d];
    Int       S = 0, s = 0;
    for (Int x = 0; x <= xm[d]; x++) {
      Int *e = &hi[(size_t)kProlongInts * (off + x)];
      e[2] = S, e[3] = s;
      if (x == xm[d]) break;
      Int       J[2];
      Real      w[2];
      const Int len = Prolong1D(xs[d] + x, M[d], J, w, constantedge[d]);
      Int       loc = 0;
      for (Int a = 0; a < len; a++) {
        /* (an empty block, nblock = 0, has no local point: with the marker -1 of a direction outside it, the
           offsets of the other directions would otherwise make a column >= 0) */
        const bool in = nblock > 0 && J[a] >= c && J[a] < c + nc;
        loc += in;
        e[4 + a] = in ? lstride[d] * (J[a] - c) : -nblock - 1;
        e[6 + a] = bstride[d] * (J[a] - c + 1);
        hw[2 * (size_t)(off + x) + a] = w[a];
      }
      e[0] = len, e[1] = loc;
      S += len, s += loc;
    }
    T[d] = S, t[d] = s;
  }
  const Int nd = n > 0 ? t[0] * t[1] * t[2] : 0, no = n > 0 ? T[0] * T[1] * T[2] - nd : 0;
  View<Int>  itab(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("prolongation tables")), kProlongInts * ntab);
  View<Real> wtab(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("prolongation weights")), 2 * ntab);
  Kokkos::deep_copy(exec(), itab, HostUView<const Int>(hi.data(), hi.size()));
  Kokkos::deep_copy(exec(), wtab, HostUView<const Real>(hw.data(), hw.size()));
  exec().fence(); /* hi and hw are freed on return */
  View<Int> drp(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("prolongation local rowptr")), n + 1);
  View<Int> orp(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("prolongation ghost rowptr")), n + 1);
  CsrAllocate(Pd, n, nblock, drp, nd, "prolongation local");
  CsrAllocate(Po, n, nghost, orp, no, "prolongation ghost");
  if (n == 0) {
    Kokkos::deep_copy(exec(), drp, (Int)0);
    Kokkos::deep_copy(exec(), orp, (Int)0);
    return;
  }
  auto      dci = Pd.colidx, oci = Po.colidx;
  auto      dva = Pd.vals, ova = Po.vals;
  const Int T0 = T[0], T01 = T[0] * T[1], t0 = t[0], t01 = t[0] * t[1];
  Kokkos::parallel_for(
    "petsckp::psormg::Prolongation", range(n), KOKKOS_LAMBDA(Int r) {
      const Int   i = r % m0, q = r / m0, j = q % m1, k = q / m1; /* the block's coordinates */
      const Int  *ei = &itab(kProlongInts * i), *ej = &itab(kProlongInts * (o1 + j)), *ek = &itab(kProlongInts * (o2 + k));
      const Real *wi = &wtab(2 * i), *wj = &wtab(2 * (o1 + j)), *wk = &wtab(2 * (o2 + k));
      /* the row offsets: the entries (all, and local) of the rows before this one */
      Int qd = ek[3] * t01 + ek[1] * (ej[3] * t0 + ej[1] * ei[3]);
      Int qo = ek[2] * T01 + ek[0] * (ej[2] * T0 + ej[0] * ei[2]) - qd;
      drp(r) = qd, orp(r) = qo;
      if (r == n - 1) drp(n) = nd, orp(n) = no;
      for (Int c = 0; c < ek[0]; c++) /* k slowest: columns ascend */
        for (Int b = 0; b < ej[0]; b++)
          for (Int a = 0; a < ei[0]; a++) {
            const Real v   = wi[a] * wj[b] * wk[c];
            const Int  col = ei[4 + a] + ej[4 + b] + ek[4 + c];
            if (col >= 0) dci(qd) = (Ordinal)col, dva(qd++) = v;
            else oci(qo) = (Ordinal)ghostid(ei[6 + a] + ej[6 + b] + ek[6 + c]), ova(qo++) = v;
          }
    });
}

void ProlongationGhostBox(Int boxsize, UView<const Int> boxidx, View<Int> &ghostid)
{
  ghostid = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("prolongation ghost ids")), boxsize);
  Kokkos::deep_copy(exec(), ghostid, (Int)-1);
  auto g = ghostid;
  Kokkos::parallel_for(
    "petsckp::psormg::ProlongationGhostBox", range((Int)boxidx.extent(0)), KOKKOS_LAMBDA(Int q) { g(boxidx(q)) = q; });
}
} // namespace psormg
} // namespace petsckp
