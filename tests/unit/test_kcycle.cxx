/* Unit tests of src/sys/kp_kcycle, the device-scalar kernels of the K-cycle's inner GCG iteration (Wang, Hu, Cohen and
   Xu, SIAM J. Sci. Comput. 35 (2013), Algorithm 2.1), against plain serial loops: the fused inner products, the
   orthogonalisation against up to four earlier directions per call (coefficients read on the device), the update of
   u and r with the fused norm, and the breakdown rule (a step with (p, A p) <= 0 stops this and every later step, is
   counted once; a zero step (p = 0, r = 0) is not counted; a NaN goes on into u). */
#include "kp_test.hpp"
#include "kp_kcycle.hpp"
#include "kp_segsort.hpp"

using namespace kptest;

namespace
{
class KCycleSizes : public ::testing::TestWithParam<Int> { };

double DotRef(const std::vector<Scalar> &a, const std::vector<Scalar> &b)
{
  double s = 0;
  for (size_t i = 0; i < a.size(); i++) s += a[i] * b[i];
  return s;
}

std::vector<Sums4> StepsToHost(const KCycleScalars &S) { return ToHost(S.step); }
Sums4              OrthoToHost(const KCycleScalars &S, Int c) { return ToHost(S.ortho)[c]; }
Int                BreakdownsToHost(const KCycleScalars &S) { return ToHost(S.breakdowns)[0]; }

/* sets step(1 + j).v[0] = pap[j] (the stored (p_j, A p_j) of earlier steps), keeping the other entries */
void SetPap(const KCycleScalars &S, const std::vector<Scalar> &pap)
{
  auto h = StepsToHost(S);
  for (size_t j = 0; j < pap.size(); j++) h[1 + j].v[0] = pap[j];
  Kokkos::deep_copy(S.step, HostUView<Sums4>(h.data(), h.size()));
}
} // namespace

TEST_P(KCycleSizes, StepDotsAndUpdateMatchSerialLoops)
{
  const Int     n   = GetParam();
  const double  tol = 1e-12 * (1 + n);
  KCycleScalars S;
  KCycleScalarsCreate(2, S);
  auto p = RandomVector(n, 1 + n), Ap = RandomVector(n, 2 + n), r = RandomVector(n, 3 + n), u = RandomVector(n, 4 + n);
  for (Int q = 0; q < n; q++) Ap[q] += 3 * p[q]; /* (p, A p) > 0 */
  auto dp = ToDevice(p), dAp = ToDevice(Ap), dr = ToDevice(r), du = ToDevice(u);
  View<Scalar> dr1("r1", n);

  /* step 0 with the early exit: (p, Ap), (p, r), (r, r); u = alpha p (u not read), r1 = r - alpha Ap, (r1, r1) */
  KCycleStepDots(S, 0, ucv(dp), ucv(dAp), ucv(dr), true);
  Kokkos::deep_copy(du, std::numeric_limits<double>::quiet_NaN());
  KCycleUpdate(S, 0, ucv(dp), ucv(dAp), ucv(dr), uv(dr1), uv(du), true);
  auto         st  = StepsToHost(S);
  const double pAp = DotRef(p, Ap), pr = DotRef(p, r), rr = DotRef(r, r);
  EXPECT_NEAR(st[1].v[0], pAp, tol);
  EXPECT_NEAR(st[1].v[1], pr, tol);
  EXPECT_NEAR(st[1].v[2], rr, tol);
  EXPECT_EQ(st[1].v[3], 0.0);
  const double        alpha = n ? pr / pAp : 0;
  std::vector<Scalar> uref(n), r1ref(n);
  for (Int q = 0; q < n; q++) uref[q] = alpha * p[q], r1ref[q] = r[q] - alpha * Ap[q];
  if (n) {
    EXPECT_LT(RelErr(ToHost(du), uref), 1e-12);
    EXPECT_LT(RelErr(ToHost(dr1), r1ref), 1e-12);
  }
  EXPECT_NEAR(st[0].v[0], DotRef(r1ref, r1ref), tol);
  EXPECT_EQ(BreakdownsToHost(S), 0);

  /* step 1 (the last): no early-exit sum, r updated in place (rout aliases rin), then without r */
  auto p1 = RandomVector(n, 5 + n), Ap1 = RandomVector(n, 6 + n);
  for (Int q = 0; q < n; q++) Ap1[q] += 2 * p1[q];
  auto dp1 = ToDevice(p1), dAp1 = ToDevice(Ap1);
  KCycleStepDots(S, 1, ucv(dp1), ucv(dAp1), ucv(dr1), false);
  st = StepsToHost(S);
  EXPECT_NEAR(st[2].v[0], DotRef(p1, Ap1), tol);
  EXPECT_NEAR(st[2].v[1], DotRef(p1, r1ref), tol);
  EXPECT_EQ(st[2].v[2], 0.0);
  const double alpha1 = n ? DotRef(p1, r1ref) / DotRef(p1, Ap1) : 0;
  KCycleUpdate(S, 1, ucv(dp1), ucv(dAp1), ucv(dr1), uv(dr1), uv(du), false);
  for (Int q = 0; q < n; q++) uref[q] += alpha1 * p1[q], r1ref[q] -= alpha1 * Ap1[q];
  if (n) {
    EXPECT_LT(RelErr(ToHost(du), uref), 1e-12);
    EXPECT_LT(RelErr(ToHost(dr1), r1ref), 1e-12);
  }
  auto rbefore = ToHost(dr1);
  KCycleUpdate(S, 1, ucv(dp1), ucv(dAp1), ucv(dr1), UView<Scalar>(), uv(du), false);
  for (Int q = 0; q < n; q++) uref[q] += alpha1 * p1[q];
  if (n) EXPECT_LT(RelErr(ToHost(du), uref), 1e-12);
  EXPECT_EQ(ToHost(dr1), rbefore); /* no rout: r untouched */
  EXPECT_EQ(BreakdownsToHost(S), 0);
}

TEST_P(KCycleSizes, OrthogonalisationMatchesSerialLoops)
{
  const Int     n = GetParam();
  const int     nsteps = 9; /* directions j = 0 .. 7 in two groups of four, for step i = 8 */
  KCycleScalars S;
  KCycleScalarsCreate(nsteps, S);
  std::vector<std::vector<Scalar>> pj(8), Apj(8);
  std::vector<View<Scalar>>        dpj(8), dApj(8);
  std::vector<Scalar>              pap(8);
  for (int j = 0; j < 8; j++) {
    pj[j] = RandomVector(n, 10 + j + n), Apj[j] = RandomVector(n, 20 + j + n);
    dpj[j] = ToDevice(pj[j]), dApj[j] = ToDevice(Apj[j]);
    pap[j] = 1.5 + j; /* stored (p_j, A p_j) of the earlier steps */
  }
  SetPap(S, pap);
  for (int i : {1, 3, 4, 8}) {
    auto p  = RandomVector(n, 100 + i + n);
    auto dp = ToDevice(p);
    /* the reference: p -= sum_j (p, A p_j) / (p_j, A p_j) p_j with the coefficients of the original p */
    std::vector<Scalar> ref = p;
    for (int j = 0; j < i; j++) {
      const double beta = -DotRef(p, Apj[j]) / pap[j];
      for (Int q = 0; q < n; q++) ref[q] += beta * pj[j][q];
    }
    for (int j0 = 0, c = 0; j0 < i; j0 += 4, c++) {
      const int           k = std::min(4, i - j0);
      UView<const Scalar> a[4];
      for (int q = 0; q < k; q++) a[q] = ucv(dApj[j0 + q]);
      KCycleOrthoDots(S, c, ucv(dp), k, a);
      const Sums4 d = OrthoToHost(S, c);
      for (int q = 0; q < 4; q++) EXPECT_NEAR(d.v[q], q < k ? DotRef(p, Apj[j0 + q]) : 0.0, 1e-12 * (1 + n)) << "i " << i << " j " << j0 + q;
    }
    for (int j0 = 0, c = 0; j0 < i; j0 += 4, c++) {
      const int           k = std::min(4, i - j0);
      UView<const Scalar> a[4];
      for (int q = 0; q < k; q++) a[q] = ucv(dpj[j0 + q]);
      KCycleOrthogonalise(S, i, c, k, a, uv(dp));
    }
    if (n) EXPECT_LT(RelErr(ToHost(dp), ref), 1e-12) << "i " << i;
  }
}

TEST_P(KCycleSizes, BreakdownStopsAndIsCountedOnce)
{
  const Int     n = GetParam();
  KCycleScalars S;
  KCycleScalarsCreate(3, S);
  auto p = RandomVector(n, 1 + n), r = RandomVector(n, 2 + n), u = RandomVector(n, 3 + n);
  std::vector<Scalar> Ap(n);
  for (Int q = 0; q < n; q++) Ap[q] = -p[q]; /* (p, A p) < 0: a preconditioner that is not SPD */
  auto dp = ToDevice(p), dAp = ToDevice(Ap), dr = ToDevice(r), du = ToDevice(u);
  View<Scalar> dr1("r1", n);

  /* step 0 breaks down: u = 0, r1 = r, counted once (on a nonempty level) */
  KCycleStepDots(S, 0, ucv(dp), ucv(dAp), ucv(dr), true);
  KCycleUpdate(S, 0, ucv(dp), ucv(dAp), ucv(dr), uv(dr1), uv(du), true);
  EXPECT_EQ(ToHost(du), std::vector<Scalar>(n, 0.0));
  EXPECT_EQ(ToHost(dr1), r);
  EXPECT_EQ(BreakdownsToHost(S), n > 0 ? 1 : 0);
  EXPECT_EQ(KCycleStops(StepsToHost(S)[1]), true);

  /* step 1 after it: the orthogonalisation and the update leave p, u, r alone and count nothing */
  auto p1  = RandomVector(n, 4 + n), Ap1 = RandomVector(n, 5 + n);
  auto dp1 = ToDevice(p1), dAp1 = ToDevice(Ap1);
  UView<const Scalar> a[1] = {ucv(dAp)}, pp[1] = {ucv(dp)};
  KCycleOrthoDots(S, 0, ucv(dp1), 1, a);
  KCycleOrthogonalise(S, 1, 0, 1, pp, uv(dp1));
  EXPECT_EQ(ToHost(dp1), p1);
  KCycleStepDots(S, 1, ucv(dp1), ucv(dAp1), ucv(dr1), false);
  KCycleUpdate(S, 1, ucv(dp1), ucv(dAp1), ucv(dr1), uv(dr1), uv(du), false);
  EXPECT_EQ(ToHost(du), std::vector<Scalar>(n, 0.0));
  EXPECT_EQ(ToHost(dr1), r);
  EXPECT_EQ(BreakdownsToHost(S), n > 0 ? 1 : 0);

  /* a zero step (p = 0, r = 0: the residual is already zero) stops without a count */
  KCycleScalars Z;
  KCycleScalarsCreate(2, Z);
  View<Scalar> zero("zero", n), zu("zu", n);
  KCycleStepDots(Z, 0, ucv(zero), ucv(zero), ucv(zero), true);
  KCycleUpdate(Z, 0, ucv(zero), ucv(zero), ucv(zero), uv(dr1), uv(zu), true);
  EXPECT_EQ(BreakdownsToHost(Z), 0);
  EXPECT_EQ(KCycleStops(StepsToHost(Z)[1]), true);

  /* a NaN (p, A p) is no breakdown: it goes on into u */
  if (n > 0) {
    auto pn = p;
    pn[0]   = std::numeric_limits<double>::quiet_NaN();
    auto dpn = ToDevice(pn);
    KCycleScalars N;
    KCycleScalarsCreate(2, N);
    KCycleStepDots(N, 0, ucv(dpn), ucv(dAp), ucv(dr), false);
    KCycleUpdate(N, 0, ucv(dpn), ucv(dAp), ucv(dr), UView<Scalar>(), uv(du), false);
    EXPECT_FALSE(KCycleStops(StepsToHost(N)[1]));
    EXPECT_TRUE(std::isnan((double)ToHost(du)[0]));
    EXPECT_EQ(BreakdownsToHost(N), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, KCycleSizes, ::testing::ValuesIn(Sizes()));
