/*
   kp_kcycle.cxx - the device-scalar kernels of the K-cycle's inner iteration (see kp_kcycle.hpp).
*/
#include "kp_kcycle.hpp"

namespace petsckp
{
namespace
{
using SumsResult = Kokkos::View<Sums4, MemSpace>;

/* a reducer whose result is the device element S(e) (no fence) */
Kokkos::Sum<Sums4, MemSpace> Into(const View<Sums4> &S, Int e) { return Kokkos::Sum<Sums4, MemSpace>(SumsResult(S.data() + e)); }

/* true when a step before i stopped the iteration (a breakdown) */
KOKKOS_INLINE_FUNCTION bool StoppedBefore(const View<Sums4> &step, Int i)
{
  for (Int j = 0; j < i; j++)
    if (KCycleStops(step(1 + j))) return true;
  return false;
}

/* the update of entry q of step i (KCycleUpdate); returns the new r(q) (0 when there is no r) */
struct UpdateStep {
  View<Sums4>         step;
  View<Int>           nbreak;
  Int                 i;
  UView<const Scalar> p, Ap, rin;
  UView<Scalar>       rout, u;
  bool                hasr;

  KOKKOS_INLINE_FUNCTION Scalar operator()(Int q) const
  {
    const Sums4 s = step(1 + i);
    if (StoppedBefore(step, i)) return hasr ? rout(q) : Scalar(0);
    if (KCycleStops(s)) {
      if (q == 0 && (PetscRealPart(s.v[0]) < 0 || s.v[1] != Scalar(0))) nbreak(0) += 1;
      if (i == 0) u(q) = 0;
      if (!hasr) return Scalar(0);
      rout(q) = rin(q);
      return rout(q);
    }
    const Scalar alpha = s.v[1] / s.v[0]; /* a NaN goes on into u: the outer method sees it */
    u(q)               = i == 0 ? alpha * p(q) : u(q) + alpha * p(q);
    if (!hasr) return Scalar(0);
    rout(q) = rin(q) - alpha * Ap(q);
    return rout(q);
  }
};
} // namespace

void KCycleScalarsCreate(Int n, KCycleScalars &S)
{
  S.n          = n;
  S.step       = View<Sums4>("petsckp::KCycle step sums", 1 + n);
  S.ortho      = View<Sums4>("petsckp::KCycle orthogonalisation sums", (n + 2) / 4 + 1);
  S.breakdowns = View<Int>("petsckp::KCycle breakdowns", 1);
  S.hstep      = Kokkos::View<Sums4 *, KCycleHostSpace>("petsckp::KCycle step sums (host)", 1 + n);
  S.hortho     = Kokkos::View<Sums4 *, KCycleHostSpace>("petsckp::KCycle orthogonalisation sums (host)", S.ortho.extent(0));
}

void KCycleStepDots(const KCycleScalars &S, Int i, UView<const Scalar> p, UView<const Scalar> Ap, UView<const Scalar> r, bool rr)
{
  Kokkos::parallel_reduce(
    "petsckp::KCycleStepDots", range((Int)p.extent(0)),
    KOKKOS_LAMBDA(Int q, Sums4 & s) {
      const Scalar pq = p(q), rq = r(q);
      s.v[0] += pq * Ap(q);
      s.v[1] += pq * rq;
      if (rr) s.v[2] += rq * rq;
    },
    Into(S.step, 1 + i));
}

void KCycleOrthoDots(const KCycleScalars &S, Int c, UView<const Scalar> p, int k, const UView<const Scalar> Ap[])
{
  const UView<const Scalar> a0 = Ap[0], a1 = k > 1 ? Ap[1] : Ap[0], a2 = k > 2 ? Ap[2] : Ap[0], a3 = k > 3 ? Ap[3] : Ap[0];
  Kokkos::parallel_reduce(
    "petsckp::KCycleOrthoDots", range((Int)p.extent(0)),
    KOKKOS_LAMBDA(Int q, Sums4 & s) {
      const Scalar pq = p(q);
      s.v[0] += pq * a0(q);
      if (k > 1) s.v[1] += pq * a1(q);
      if (k > 2) s.v[2] += pq * a2(q);
      if (k > 3) s.v[3] += pq * a3(q);
    },
    Into(S.ortho, c));
}

void KCycleOrthogonalise(const KCycleScalars &S, Int i, Int c, int k, const UView<const Scalar> pj[], UView<Scalar> p)
{
  const UView<const Scalar> p0 = pj[0], p1 = k > 1 ? pj[1] : pj[0], p2 = k > 2 ? pj[2] : pj[0], p3 = k > 3 ? pj[3] : pj[0];
  const View<Sums4>         step = S.step, ortho = S.ortho;
  Kokkos::parallel_for(
    "petsckp::KCycleOrthogonalise", range((Int)p.extent(0)), KOKKOS_LAMBDA(Int q) {
      if (StoppedBefore(step, i)) return;
      const Sums4 d = ortho(c);
      Scalar      v = p(q);
      /* beta_j = -(p, A p_j) / (p_j, A p_j), j = 4c + m, added in ascending j */
      v += -d.v[0] / step(1 + 4 * c).v[0] * p0(q);
      if (k > 1) v += -d.v[1] / step(2 + 4 * c).v[0] * p1(q);
      if (k > 2) v += -d.v[2] / step(3 + 4 * c).v[0] * p2(q);
      if (k > 3) v += -d.v[3] / step(4 + 4 * c).v[0] * p3(q);
      p(q) = v;
    });
}

void KCycleUpdate(const KCycleScalars &S, Int i, UView<const Scalar> p, UView<const Scalar> Ap, UView<const Scalar> rin, UView<Scalar> rout, UView<Scalar> u, bool norm)
{
  const UpdateStep f{S.step, S.breakdowns, i, p, Ap, rin, rout, u, rout.extent(0) > 0};
  const Int        n = (Int)p.extent(0);
  if (norm)
    Kokkos::parallel_reduce(
      "petsckp::KCycleUpdateNorm", range(n),
      KOKKOS_LAMBDA(Int q, Sums4 & s) {
        const Scalar rq = f(q);
        s.v[0] += rq * rq;
      },
      Into(S.step, 0));
  else Kokkos::parallel_for("petsckp::KCycleUpdate", range(n), KOKKOS_LAMBDA(Int q) { (void)f(q); });
}
} // namespace petsckp
