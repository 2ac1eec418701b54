/*
   psormg_kernels.cxx - device kernels of PCPSORMG; see psormg_kernels.hpp for the mathematics.
*/
#include "psormg_kernels.hpp"

namespace petsckp
{
namespace psormg
{
namespace cm = petsckp::compat;

void ColourSweep(const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Int> rows, Real omega, UView<const Scalar> b, UView<const Scalar> g, UView<const Scalar> lo, UView<const Scalar> up, UView<Scalar> x)
{
  const Int  n = (Int)rows.extent(0);
  const bool haveo = Ao.nrows > 0, havelo = lo.extent(0) > 0, haveup = up.extent(0) > 0;
  auto       rp = Ad.rowptr;
  auto       ci = Ad.colidx;
  auto       va = Ad.vals;
  auto       orp = Ao.rowptr;
  auto       oci = Ao.colidx;
  auto       ova = Ao.vals;

  if (n == 0) return;
  Kokkos::parallel_for(
    "petsckp::psormg::ColourSweep", range(n), KOKKOS_LAMBDA(Int t) {
      const Int i    = rows(t);
      Scalar    s    = b(i);
      Scalar    diag = 0;
      for (Int k = rp(i); k < rp(i + 1); k++) {
        const Int j = ci(k);
        if (j == i) diag += va(k);
        else s -= va(k) * x(j);
      }
      if (haveo)
        for (Int k = orp(i); k < orp(i + 1); k++) s -= ova(k) * g(oci(k));
      if (diag == 0) return;
      Scalar xi = (1 - omega) * x(i) + omega * s / diag;
      if (havelo) xi = cm::fmax(xi, lo(i));
      if (haveup) xi = cm::fmin(xi, up(i));
      x(i) = xi;
    });
}

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

/* classification of a point: 0 free, 1 at the lower bound, 2 at the upper bound */
struct ActiveTest {
  UView<const Scalar> x, lo, up;
  Real                acttol;
  bool                havelo, haveup;
  KOKKOS_INLINE_FUNCTION int operator()(Int i) const
  {
    if (havelo && cm::isfinite(lo(i)) && cm::fabs(x(i) - lo(i)) <= acttol * cm::fmax(1.0, cm::fabs(lo(i)))) return 1;
    if (haveup && cm::isfinite(up(i)) && cm::fabs(up(i) - x(i)) <= acttol * cm::fmax(1.0, cm::fabs(up(i)))) return 2;
    return 0;
  }
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
      const int a = at(i);
      Scalar    p = r(i);
      if (a == 1) p = cm::fmax(p, 0.0);
      else if (a == 2) p = cm::fmin(p, 0.0);
      s += p * p;
    },
    m.pnorm2); /* reductions into host scalars fence */
  if (!all) return m;
  Kokkos::parallel_reduce(
    "petsckp::psormg::Complementarity", range(n),
    KOKKOS_LAMBDA(Int i, Real & s) {
      if (havelo && cm::isfinite(lo(i))) s += (x(i) - lo(i)) * cm::fmax(-r(i), 0.0);
      if (haveup && cm::isfinite(up(i))) s += (up(i) - x(i)) * cm::fmax(r(i), 0.0);
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

void StructuredColours(GridColouring scheme, Int xs, Int ys, Int zs, Int xm, Int ym, Int zm, UView<Int> colour, UView<Scalar> colourscalar)
{
  const Int  n  = xm * ym * zm;
  const bool rb = scheme == GridColouring::RedBlack, sc = colourscalar.extent(0) > 0;

  if (n == 0) return;
  Kokkos::parallel_for(
    "petsckp::psormg::StructuredColours", range(n), KOKKOS_LAMBDA(Int t) {
      const Int i = xs + t % xm, j = ys + (t / xm) % ym, k = zs + t / (xm * ym);
      colour(t)   = rb ? (i + j + k) % 2 : (i % 2) + 2 * (j % 2) + 4 * (k % 2);
      if (sc) colourscalar(t) = (Scalar)colour(t);
    });
}

Int ColourConflicts(const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Int> colour, UView<const Scalar> ghostcolour)
{
  const Int  n     = Ad.nrows;
  const bool haveo = Ao.nrows > 0;
  auto       rp    = Ad.rowptr;
  auto       ci    = Ad.colidx;
  auto       va    = Ad.vals;
  auto       orp   = Ao.rowptr;
  auto       oci   = Ao.colidx;
  auto       ova   = Ao.vals;
  Int        bad   = 0;

  if (n == 0) return 0;
  Kokkos::parallel_reduce(
    "petsckp::psormg::ColourConflicts", range(n),
    KOKKOS_LAMBDA(Int i, Int & s) {
      for (Int k = rp(i); k < rp(i + 1); k++)
        if (ci(k) != i && va(k) != 0 && colour(ci(k)) == colour(i)) s++;
      if (haveo)
        for (Int k = orp(i); k < orp(i + 1); k++)
          if (ova(k) != 0 && (Int)ghostcolour(oci(k)) == colour(i)) s++;
    },
    bad);
  return bad;
}

void ColourRowLists(UView<const Int> colour, Int ncolours, std::vector<View<Int>> &lists)
{
  const Int n = (Int)colour.extent(0);
  HostView<Int> h(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("psormg colours host")), n);

  exec().fence();
  Kokkos::deep_copy(h, colour);

  lists.assign(ncolours, View<Int>());
  for (Int c = 0; c < ncolours; c++) {
    std::vector<Int> idx;
    for (Int i = 0; i < n; i++)
      if (h(i) == c) idx.push_back(i);
    lists[c] = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("psormg colour rows")), idx.size());
    Kokkos::deep_copy(exec(), lists[c], HostUView<const Int>(idx.data(), idx.size()));
  }
  exec().fence();
}
} // namespace psormg
} // namespace petsckp
