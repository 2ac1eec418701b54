/* Unit tests of the TAO lbfgsb kernels against plain serial references (sizes 0, 1, 13, 597, 100003), and of the
   solver's public API (setters, getters, their validation, new setups). */
#include <cfloat>
#include <algorithm>
#include <limits>
#include <petsckp.h>
#include "kp_test.hpp"
#include "kp_checked_vec.hpp"
#include "kp_blas.hpp"
#include "tao/lbfgsb/lbfgsb_kernels.hpp"

using namespace kptest;
namespace lb = petsckp::lbfgsb;

namespace
{
const double kInf = PETSC_INFINITY;

/* random bounds of every kind: none, lower, both (some with l = u), upper; x inside, on or outside */
struct Problem {
  std::vector<Scalar> l, u, x, g;
};
Problem MakeProblem(Int n, unsigned seed)
{
  Problem p;
  auto    a = RandomVector(n, seed, -1, 1), b = RandomVector(n, seed + 1, 0, 1), c = RandomVector(n, seed + 2, -2, 2);
  p.g       = RandomVector(n, seed + 3, -1, 1);
  for (Int i = 0; i < n; i++) {
    int  kind = (int)(i % 5);
    Real l = -kInf, u = kInf;
    if (kind == 1 || kind == 2 || kind == 4) l = a[i];
    if (kind == 2 || kind == 3) u = (kind == 3 ? a[i] : a[i] + b[i]);
    if (kind == 4) u = l; /* fixed */
    p.l.push_back(l);
    p.u.push_back(u);
    Real x = c[i];
    if (i % 7 == 3 && l > -kInf) x = l; /* on the bound */
    if (i % 11 == 4 && u < kInf) x = u;
    if (i % 6 == 0) p.g[i] = 0; /* zero gradient entries */
    p.x.push_back(x);
  }
  return p;
}
int RefNbd(Real l, Real u) { return l > -kInf ? (u < kInf ? 2 : 1) : (u < kInf ? 3 : 0); }
/* the breakpoints t_i < kNoBreak, ascending */
template <class V>
std::vector<Real> SortedBreakpoints(const V &t)
{
  std::vector<Real> sorted;
  for (Real v : t)
    if (v < lb::kNoBreak) sorted.push_back(v);
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}
} // namespace

TEST(Lbfgsb, ActiveProjectsAndClassifies)
{
  for (Int n : Sizes()) {
    Problem p = MakeProblem(n, 11);
    auto    l = ToDevice(p.l), u = ToDevice(p.u), x = ToDevice(p.x);
    View<Int> iw("iw", n);
    auto      info = lb::Active(l, u, x, iw, kInf);
    auto      xh = ToHost(x);
    auto      iwh = ToHost(iw);
    Int       nproj = 0;
    for (Int i = 0; i < n; i++) {
      int  nbd = RefNbd(p.l[i], p.u[i]);
      Real xr  = p.x[i];
      if (nbd && nbd <= 2 && xr < p.l[i]) xr = p.l[i], nproj++;
      else if (nbd >= 2 && xr > p.u[i]) xr = p.u[i], nproj++;
      ASSERT_EQ(xh[i], xr) << "n " << n << " i " << i;
      int iwr = nbd == 0 ? -1 : (nbd == 2 && p.u[i] - p.l[i] <= 0 ? 3 : 0);
      ASSERT_EQ(iwh[i], iwr);
    }
    EXPECT_EQ(info.nprojected, nproj);
  }
}

/* the serial reference of CheckBounds: the first index with a defect, and the first defect of that index */
static lb::BoundsCheckInfo RefCheckBounds(const std::vector<Scalar> &l, const std::vector<Scalar> &u, const std::vector<Scalar> &x)
{
  lb::BoundsCheckInfo r;
  for (size_t i = 0; i < x.size(); i++) {
    lb::BoundsDefect k = lb::BoundsDefect::Ok;
    if (std::isnan(x[i])) k = lb::BoundsDefect::XNan;
    else if (std::isinf(x[i])) k = lb::BoundsDefect::XInf;
    else if (std::isnan(l[i])) k = lb::BoundsDefect::LowerNan;
    else if (std::isnan(u[i])) k = lb::BoundsDefect::UpperNan;
    else if (l[i] >= kInf) k = lb::BoundsDefect::LowerPlusInf;
    else if (u[i] <= -kInf) k = lb::BoundsDefect::UpperMinusInf;
    else if (l[i] > u[i]) k = lb::BoundsDefect::Inverted;
    if (k != lb::BoundsDefect::Ok) {
      r.index = (Int)i;
      r.kind  = k;
      return r;
    }
  }
  return r;
}

TEST(Lbfgsb, CheckBoundsFindsTheFirstDefect)
{
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (Int n : Sizes()) {
    Problem p = MakeProblem(n, 17);
    /* valid bounds (fixed variables and infinite bounds included): no defect */
    {
      auto l = ToDevice(p.l), u = ToDevice(p.u), x = ToDevice(p.x);
      auto r = lb::CheckBounds(l, u, x, kInf);
      EXPECT_EQ(r.index, -1) << "n " << n;
      EXPECT_EQ((int)r.kind, 0);
    }
    if (!n) continue;
    /* every kind of defect, alone near the end, then several at once (the smallest index wins; within one index the
       first kind in the order of BoundsDefect) */
    const Int at[3] = {n - 1, n / 2, n / 3};
    for (int kind = 1; kind <= 7; kind++) {
      for (Int where : at) {
        Problem q = p;
        switch ((lb::BoundsDefect)kind) {
        case lb::BoundsDefect::XNan: q.x[where] = nan; break;
        case lb::BoundsDefect::XInf: q.x[where] = (where % 2) ? inf : -inf; break;
        case lb::BoundsDefect::LowerNan: q.l[where] = nan; break;
        case lb::BoundsDefect::UpperNan: q.u[where] = nan; break;
        case lb::BoundsDefect::LowerPlusInf: q.l[where] = (where % 2) ? inf : kInf; break;
        case lb::BoundsDefect::UpperMinusInf: q.u[where] = (where % 2) ? -inf : -kInf; break;
        default: q.l[where] = 1, q.u[where] = 0; break;
        }
        auto l = ToDevice(q.l), u = ToDevice(q.u), x = ToDevice(q.x);
        auto r = lb::CheckBounds(l, u, x, kInf), ref = RefCheckBounds(q.l, q.u, q.x);
        EXPECT_EQ(r.index, ref.index) << "n " << n << " kind " << kind;
        EXPECT_EQ((int)r.kind, (int)ref.kind) << "n " << n << " kind " << kind;
        EXPECT_EQ(r.index, where);
      }
    }
    if (n >= 13) { /* several defects: NaN lower and inverted at one index, x NaN later */
      Problem q = p;
      q.l[5] = nan, q.u[5] = -1;
      q.x[9] = nan;
      q.l[3] = 2, q.u[3] = 1;
      auto l = ToDevice(q.l), u = ToDevice(q.u), x = ToDevice(q.x);
      auto r = lb::CheckBounds(l, u, x, kInf), ref = RefCheckBounds(q.l, q.u, q.x);
      EXPECT_EQ(r.index, 3);
      EXPECT_EQ((int)r.kind, (int)lb::BoundsDefect::Inverted);
      EXPECT_EQ(r.index, ref.index);
    }
  }
}

TEST(Blas, FirstNonFinite)
{
  for (Int n : Sizes()) {
    auto v = RandomVector(n, 5);
    EXPECT_EQ(petsckp::FirstNonFinite(ToDevice(v)), -1) << "n " << n;
    if (!n) continue;
    for (Int where : {n - 1, n / 2, (Int)0}) {
      auto w  = v;
      w[where] = std::numeric_limits<double>::quiet_NaN();
      if (n > 2) w[n - 1] = std::numeric_limits<double>::infinity(); /* a later one must not win */
      Int ref = -1;
      for (Int i = 0; i < n && ref < 0; i++)
        if (!std::isfinite(w[i])) ref = i;
      EXPECT_EQ(petsckp::FirstNonFinite(ToDevice(w)), ref) << "n " << n;
    }
  }
}

TEST(Lbfgsb, ProjectedGradientNorm)
{
  for (Int n : Sizes()) {
    Problem p = MakeProblem(n, 21);
    for (Int i = 0; i < n; i++) p.x[i] = std::min(std::max(p.x[i], p.l[i]), p.u[i]);
    auto l = ToDevice(p.l), u = ToDevice(p.u), x = ToDevice(p.x), g = ToDevice(p.g);
    Real ref = 0;
    for (Int i = 0; i < n; i++) { /* the projected-gradient definition: P(x - g) - x */
      Real xi = p.x[i] - p.g[i];
      xi      = std::min(std::max(xi, p.l[i]), p.u[i]);
      ref     = std::max(ref, std::abs(xi - p.x[i]));
    }
    EXPECT_NEAR(lb::ProjGradNormInf(l, u, x, g, kInf), ref, 1e-15 * (1 + ref)) << "n " << n;
    if (!n) continue;
    /* a NaN or infinite gradient entry gives +infinity, even where the projection would clip it */
    for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}) {
      auto gb    = p.g;
      gb[n - 1] = bad;
      EXPECT_EQ(lb::ProjGradNormInf(l, u, x, ToDevice(gb), kInf), std::numeric_limits<double>::infinity()) << "n " << n << " g " << bad;
    }
  }
}

TEST(Lbfgsb, BreakpointsSelectionAndCauchyFinish)
{
  for (Int n : Sizes()) {
    Problem p = MakeProblem(n, 31);
    for (Int i = 0; i < n; i++) p.x[i] = std::min(std::max(p.x[i], p.l[i]), p.u[i]);
    auto      l = ToDevice(p.l), u = ToDevice(p.u), x = ToDevice(p.x), g = ToDevice(p.g);
    View<Int> iw("iw", n);
    View<Scalar> d("d", n), t("t", n), xcp("xcp", n);
    lb::Active(l, u, x, iw, kInf);
    auto info = lb::CauchyInit(l, u, x, g, iw, d, t, kInf);
    auto dh = ToHost(d), th = ToHost(t);
    /* reference: breakpoints of the projected path x - t g */
    Real f1 = 0, tmin = lb::kNoBreak;
    Int  nbreak = 0;
    std::vector<Real> tref(n, lb::kNoBreak);
    for (Int i = 0; i < n; i++) {
      int  nbd    = RefNbd(p.l[i], p.u[i]);
      bool fixed  = nbd == 2 && p.u[i] <= p.l[i];
      bool atlow  = nbd && nbd <= 2 && p.x[i] <= p.l[i] && p.g[i] >= 0;
      bool atup   = nbd >= 2 && p.x[i] >= p.u[i] && p.g[i] <= 0;
      bool moving = !fixed && !atlow && !atup && p.g[i] != 0;
      if (!moving) continue;
      f1 -= p.g[i] * p.g[i];
      if (p.g[i] > 0 && nbd && nbd <= 2) tref[i] = (p.x[i] - p.l[i]) / p.g[i];
      if (p.g[i] < 0 && nbd >= 2) tref[i] = (p.u[i] - p.x[i]) / -p.g[i];
      if (tref[i] < lb::kNoBreak) nbreak++, tmin = std::min(tmin, tref[i]);
    }
    EXPECT_NEAR(info.f1, f1, 1e-12 * (1 + std::abs(f1)));
    EXPECT_EQ(info.nbreak, nbreak);
    EXPECT_EQ(info.tmin, tmin);
    for (Int i = 0; i < n; i++) ASSERT_EQ(th[i], tref[i]) << i;
    /* the counts of the same pass against a serial count of its per-variable outputs */
    {
      auto iwc = ToHost(iw);
      Int  nm = 0, nf = 0, nfz = 0;
      for (Int i = 0; i < n; i++) {
        const bool mv = iwc[i] == 0 || iwc[i] == -1, nb = !(th[i] < lb::kNoBreak);
        nm += mv;
        nf += mv && nb;
        nfz += mv && nb && dh[i] != 0;
        if (iwc[i] == 3) ASSERT_EQ(dh[i], 0.0) << i; /* fixed variables do not move */
      }
      EXPECT_EQ(info.nmoving, nm);
      EXPECT_EQ(info.nfreenb, nf);
      EXPECT_EQ(info.nfreenb_nonzero, nfz);
    }
    /* selection of the breakpoints in (lo, hi] */
    const std::vector<Real> sorted = SortedBreakpoints(tref);
    Real      lo = sorted.size() > 2 ? sorted[0] : -1, hi = sorted.size() > 5 ? sorted[sorted.size() / 2] : lb::kNoBreak;
    View<Int> idx("idx", n);
    Int       cnt  = lb::SelectBreakpoints(t, lo, hi, idx);
    auto      idxh = ToHost(idx);
    Int       ref  = 0;
    for (Int i = 0; i < n; i++)
      if (tref[i] > lo && tref[i] <= hi && tref[i] < lb::kNoBreak) ASSERT_EQ(idxh[ref++], i);
    EXPECT_EQ(cnt, ref);
    /* the same with the count left on the device, whole and capped */
    for (Int cap : {cnt, cnt / 2}) {
      View<Int> idx2("idx2", n), cd("count", 1);
      Kokkos::deep_copy(idx2, -7);
      Kokkos::deep_copy(cd, -1);
      lb::SelectBreakpointsCount(t, lo, hi, idx2, cap, cd);
      auto i2h = ToHost(idx2);
      EXPECT_EQ(ToHost(cd)[0], cnt) << "n " << n;
      for (Int k = 0; k < n; k++) ASSERT_EQ(i2h[k], k < cap ? idxh[k] : -7) << "n " << n << " k " << k;
    }
    /* records and the gather */
    const Int    stride = 5;
    View<Scalar> rec("rec", std::max<Int>(1, cnt * stride));
    lb::BreakpointRecords(l, u, x, d, t, idx, cnt, 100, rec, stride);
    lb::GatherStrided(g, idx, cnt, rec, stride, 4, 2.0);
    auto rech = ToHost(rec);
    for (Int k = 0; k < cnt; k++) {
      Int i = idxh[k];
      ASSERT_EQ(rech[k * stride + 0], tref[i]);
      ASSERT_EQ(rech[k * stride + 1], (Real)(100 + i));
      ASSERT_EQ(rech[k * stride + 2], -p.g[i]);
      ASSERT_EQ(rech[k * stride + 3], (dh[i] > 0 ? p.u[i] : p.l[i]) - p.x[i]);
      ASSERT_EQ(rech[k * stride + 4], 2.0 * p.g[i]);
    }
    /* finish: passed variables on their bound, others along the path */
    Real tstar = sorted.empty() ? -1 : sorted[sorted.size() / 3], tsum = tstar < 0 ? 0.1 : tstar;
    lb::CauchyFinish(l, u, x, d, t, iw, xcp, tstar, n, 0, tsum);
    auto xh = ToHost(xcp);
    auto iwh = ToHost(iw);
    for (Int i = 0; i < n; i++) {
      if (tref[i] <= tstar) {
        ASSERT_EQ(xh[i], p.g[i] < 0 ? p.u[i] : p.l[i]);
        ASSERT_EQ(iwh[i], p.g[i] < 0 ? 2 : 1);
      } else ASSERT_NEAR(xh[i], p.x[i] + tsum * dh[i], 4 * DBL_EPSILON * (std::abs(p.x[i]) + std::abs(tsum * dh[i]))) << i; /* the device may contract to an FMA */
    }
  }
}

TEST(Lbfgsb, SubspaceProjectionAndBacktrack)
{
  for (Int n : Sizes()) {
    Problem p = MakeProblem(n, 41);
    for (Int i = 0; i < n; i++) p.x[i] = std::min(std::max(p.x[i], p.l[i]), p.u[i]);
    auto         dd = RandomVector(n, 42, -2, 2);
    auto         l = ToDevice(p.l), u = ToDevice(p.u), z = ToDevice(p.x), d = ToDevice(dd);
    View<Int>    iw("iw", n);
    View<Scalar> xn("xn", n), xb("xb", n);
    std::vector<Int> iwr(n);
    for (Int i = 0; i < n; i++) iwr[i] = (i % 9 == 2) ? 1 : 0;
    Kokkos::deep_copy(iw, HostUView<Int>(iwr.data(), n));
    Int  hits = lb::ProjectStep(l, u, iw, z, d, xn, kInf);
    auto xh   = ToHost(xn);
    Int  rh   = 0;
    Real alpha = 1;
    Int  blk   = -1;
    for (Int i = 0; i < n; i++) {
      if (iwr[i] > 0) {
        ASSERT_EQ(xh[i], p.x[i]);
        continue;
      }
      Real v = std::min(std::max(p.x[i] + dd[i], p.l[i]), p.u[i]);
      ASSERT_EQ(xh[i], v);
      int nbd = RefNbd(p.l[i], p.u[i]);
      if (nbd && (v == p.l[i] || v == p.u[i])) rh++;
      /* reference backtracking: running minimum in index order */
      Real r = 1;
      if (nbd && dd[i] < 0 && nbd <= 2) r = (p.l[i] - p.x[i] >= 0) ? 0 : std::min(1.0, (p.l[i] - p.x[i]) / dd[i]);
      if (nbd && dd[i] > 0 && nbd >= 2) r = (p.u[i] - p.x[i] <= 0) ? 0 : std::min(1.0, (p.u[i] - p.x[i]) / dd[i]);
      if (r < alpha) alpha = r, blk = i;
    }
    EXPECT_EQ(hits, rh);
    Int  loc;
    Real a = lb::SubspaceMaxStep(l, u, iw, z, d, kInf, &loc);
    EXPECT_EQ(a, alpha);
    EXPECT_EQ(loc, blk);
    lb::SubspaceBacktrack(l, u, iw, z, d, xb, a, loc);
    auto xbh = ToHost(xb);
    for (Int i = 0; i < n; i++) {
      Real ref = iwr[i] > 0 ? p.x[i] : (i == blk ? (dd[i] > 0 ? p.u[i] : p.l[i]) : p.x[i] + alpha * dd[i]);
      ASSERT_EQ(xbh[i], ref) << i;
    }
    /* line search max step over all variables */
    Real stp = 1e10;
    for (Int i = 0; i < n; i++) {
      int nbd = RefNbd(p.l[i], p.u[i]);
      if (nbd && dd[i] < 0 && nbd <= 2) stp = std::min(stp, p.l[i] - p.x[i] >= 0 ? 0.0 : (p.l[i] - p.x[i]) / dd[i]);
      if (nbd && dd[i] > 0 && nbd >= 2) stp = std::min(stp, p.u[i] - p.x[i] <= 0 ? 0.0 : (p.u[i] - p.x[i]) / dd[i]);
    }
    EXPECT_EQ(lb::LineSearchMaxStep(l, u, z, d, kInf, 1e10), stp);
  }
}

/* the compact representation against an explicit BFGS matrix, and the Cauchy scan against a brute-force scan */
TEST(Lbfgsb, BmvMatchesExplicitBfgs)
{
  const int  n = 6, m = 3;
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> U(-1, 1);
  std::vector<std::vector<double>> S, Y;
  for (int k = 0; k < m; k++) {
    std::vector<double> s(n), y(n);
    for (int i = 0; i < n; i++) s[i] = U(gen);
    for (int i = 0; i < n; i++) y[i] = s[i] * (2 + i) + 0.1 * U(gen); /* s^T y > 0 */
    S.push_back(s);
    Y.push_back(y);
  }
  lb::Memory mem;
  mem.Resize(m);
  mem.col = m;
  auto dot = [](const std::vector<double> &a, const std::vector<double> &b) { double s = 0; for (size_t i = 0; i < a.size(); i++) s += a[i] * b[i]; return s; };
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) {
      mem.SY(i, j) = dot(S[i], Y[j]);
      mem.SS(i, j) = dot(S[i], S[j]);
    }
  mem.theta = dot(Y[m - 1], Y[m - 1]) / dot(S[m - 1], Y[m - 1]);
  ASSERT_EQ(lb::Formt(mem), 0);
  /* explicit B = theta I, then the BFGS updates in order */
  std::vector<double> B(n * n, 0);
  for (int i = 0; i < n; i++) B[i * n + i] = mem.theta;
  for (int k = 0; k < m; k++) {
    std::vector<double> Bs(n, 0);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) Bs[i] += B[i * n + j] * S[k][j];
    double sBs = dot(S[k], Bs), sy = dot(S[k], Y[k]);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) B[i * n + j] += -Bs[i] * Bs[j] / sBs + Y[k][i] * Y[k][j] / sy;
  }
  /* B v = theta v - W M W^T v */
  std::vector<double> v(n);
  for (int i = 0; i < n; i++) v[i] = U(gen);
  std::vector<double> wv(2 * m), mwv(2 * m);
  for (int j = 0; j < m; j++) {
    wv[j]     = dot(Y[j], v);
    wv[m + j] = mem.theta * dot(S[j], v);
  }
  ASSERT_EQ(lb::Bmv(mem, wv.data(), mwv.data()), 0);
  for (int i = 0; i < n; i++) {
    double bv = mem.theta * v[i], ref = 0;
    for (int j = 0; j < m; j++) bv -= Y[j][i] * mwv[j] + mem.theta * S[j][i] * mwv[m + j];
    for (int j = 0; j < n; j++) ref += B[i * n + j] * v[j];
    EXPECT_NEAR(bv, ref, 1e-10 * (1 + std::abs(ref)));
  }

  /* Cauchy point by the scan vs a brute-force minimisation of the model along the projected path */
  std::vector<double> x(n), g(n), l(n), u(n);
  for (int i = 0; i < n; i++) {
    x[i] = 0.5 * U(gen);
    g[i] = U(gen);
    l[i] = -0.6;
    u[i] = 0.6;
  }
  std::vector<lb::Breakpoint> bp;
  std::vector<std::vector<double>> w(n, std::vector<double>(2 * m));
  std::vector<double> p(2 * m, 0);
  double f1 = 0;
  for (int i = 0; i < n; i++) {
    double d = -g[i];
    f1 -= d * d;
    for (int j = 0; j < m; j++) {
      w[i][j]     = Y[j][i];
      w[i][m + j] = mem.theta * S[j][i];
      p[j] += Y[j][i] * d;
      p[m + j] += mem.theta * S[j][i] * d;
    }
    double t = d > 0 ? (u[i] - x[i]) / d : (l[i] - x[i]) / d;
    bp.push_back(lb::Breakpoint{t, i, d, (d > 0 ? u[i] : l[i]) - x[i], w[i].data()});
  }
  std::sort(bp.begin(), bp.end(), [](const lb::Breakpoint &a, const lb::Breakpoint &b) { return a.t < b.t; });
  lb::CauchyScan scan;
  ASSERT_EQ(lb::CauchyScanStart(mem, scan, p.data(), f1, 2.2e-16), 0);
  ASSERT_EQ(lb::CauchyScanChunk(mem, scan, bp.data(), 2, n, n, true), 0); /* two chunks */
  if (!scan.done) ASSERT_EQ(lb::CauchyScanChunk(mem, scan, bp.data() + 2, n - 2, n, n, true), 0);
  lb::CauchyScanFinish(scan);
  auto model = [&](double t) {
    std::vector<double> z(n);
    for (int i = 0; i < n; i++) z[i] = std::min(std::max(x[i] - t * g[i], l[i]), u[i]) - x[i];
    double q = dot(g, z);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) q += 0.5 * z[i] * B[i * n + j] * z[j];
    return q;
  };
  /* first local minimiser of the piecewise quadratic: fine scan */
  double tbest = 0, qbest = model(0);
  for (int k = 1; k <= 200000; k++) {
    double t = 5.0 * k / 200000, q = model(t);
    if (q < qbest) qbest = q, tbest = t;
    else if (q > qbest + 1e-9) break;
  }
  EXPECT_NEAR(scan.tsum, tbest, 1e-4);
  EXPECT_NEAR(model(scan.tsum), qbest, 1e-9);
}

/* a random limited memory (col pairs with s^T y > 0) */
static void RandomMemory(lb::Memory &mem, int n, int m, unsigned seed, std::vector<std::vector<double>> &S, std::vector<std::vector<double>> &Y)
{
  std::mt19937                           gen(seed);
  std::uniform_real_distribution<double> U(-1, 1);
  S.clear();
  Y.clear();
  for (int k = 0; k < m; k++) {
    std::vector<double> s(n), y(n);
    for (int i = 0; i < n; i++) s[i] = U(gen);
    for (int i = 0; i < n; i++) y[i] = s[i] * (2 + (i % 5)) + 0.1 * U(gen);
    S.push_back(s);
    Y.push_back(y);
  }
  auto dot = [](const std::vector<double> &a, const std::vector<double> &b) { double r = 0; for (size_t i = 0; i < a.size(); i++) r += a[i] * b[i]; return r; };
  mem.Resize(m);
  mem.col = m;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) {
      mem.SY(i, j) = dot(S[i], Y[j]);
      mem.SS(i, j) = dot(S[i], S[j]);
    }
  mem.theta = dot(Y[m - 1], Y[m - 1]) / dot(S[m - 1], Y[m - 1]);
}

/* the device breakpoint scan (sort by (t, gid), prefix sums, parallel first-segment search, in one or two chunks)
   against the reference recurrences run sequentially on the host */
TEST(Lbfgsb, DeviceCauchyScanMatchesRecurrences)
{
  for (Int n : Sizes()) {
    for (int col : {0, 1, 3}) {
      const int  nv = std::max<Int>(n, 4), col2 = 2 * col, stride = 4 + col2, ncol = 2 * col2 + 1;
      lb::Memory mem;
      std::vector<std::vector<double>> S, Y;
      if (col) {
        RandomMemory(mem, (int)nv, col, 7 + (unsigned)n, S, Y);
        ASSERT_EQ(lb::Formt(mem), 0);
      } else mem.Resize(1), mem.col = 0;
      const double theta = mem.theta;
      /* n breakpoint records in global-index order; t in [0, 3/theta) with ties; the moving set also has 3 free
         variables without breakpoints */
      std::mt19937                           gen(100 + n);
      std::uniform_real_distribution<double> U(-1, 1);
      std::vector<double>                    rec((size_t)std::max<Int>(n, 1) * stride);
      std::vector<double>                    p(col2 + 1, 0.0);
      double                                 f1 = 0;
      for (Int k = 0; k < n; k++) {
        double *r = &rec[(size_t)k * stride];
        double  d = U(gen);
        if (d == 0) d = 0.5;
        r[0] = (k % 7 == 3 && k > 0) ? rec[(size_t)(k - 1) * stride] : 1.5 * (1 + U(gen)) / theta; /* ties */
        r[1] = (double)(2 * k + 1);                                                              /* global index */
        r[2] = d;
        r[3] = r[0] * d;
        for (int j = 0; j < col; j++) {
          r[4 + j]       = Y[j][k % nv];
          r[4 + col + j] = theta * S[j][k % nv];
        }
        for (int j = 0; j < col2; j++) p[j] += d * r[4 + j];
        f1 -= d * d;
      }
      for (int f = 0; f < 3; f++) { /* free variables without breakpoints */
        const double d = 0.3 * (f + 1);
        f1 -= d * d;
        for (int j = 0; j < col; j++) {
          p[j] += d * Y[j][f];
          p[col + j] += d * theta * S[j][f];
        }
      }
      /* reference */
      lb::CauchyScan ref;
      ASSERT_EQ(lb::CauchyScanStart(mem, ref, p.data(), f1, DBL_EPSILON), 0);
      std::vector<lb::Breakpoint> bp;
      for (Int k = 0; k < n; k++) {
        const double *r = &rec[(size_t)k * stride];
        bp.push_back(lb::Breakpoint{r[0], (Int)r[1], r[2], r[3], r + 4});
      }
      std::stable_sort(bp.begin(), bp.end(), [](const lb::Breakpoint &a, const lb::Breakpoint &b) { return a.t < b.t || (a.t == b.t && a.gid < b.gid); });
      ASSERT_EQ(lb::CauchyScanChunk(mem, ref, bp.data(), n, n, n + 3, false), 0);
      lb::CauchyScanFinish(ref);
      /* dense M by bmv on the unit vectors */
      std::vector<double> M((size_t)col2 * col2 + 1), e(col2 + 1);
      for (int i = 0; i < col2; i++) {
        std::fill(e.begin(), e.end(), 0.0);
        e[i] = 1;
        ASSERT_EQ(lb::Bmv(mem, e.data(), M.data() + (size_t)i * col2), 0);
      }
      auto          Md = ToDevice(M), p0 = ToDevice(p);
      View<Real>    carry("carry", ncol), out("out", 5 + ncol);
      lb::SegmentConsts sc;
      sc.col2   = col2;
      sc.theta  = theta;
      sc.S0     = -f1;
      sc.f2org  = ref.f2_org;
      sc.epsmch = DBL_EPSILON;
      /* two chunks: the records with t <= tsplit, then the others (each chunk in global-index order) */
      std::vector<double> sorted_t;
      for (auto &b : bp) sorted_t.push_back(b.t);
      const double tsplit = n > 2 ? sorted_t[n / 3] : 1e300;
      Int          passed = 0;
      bool         found  = false;
      std::vector<double> oh;
      for (int chunk = 0; chunk < 2 && !found; chunk++) {
        std::vector<double> part;
        for (Int k = 0; k < n; k++)
          if ((rec[(size_t)k * stride] <= tsplit) == (chunk == 0)) part.insert(part.end(), rec.begin() + (size_t)k * stride, rec.begin() + (size_t)(k + 1) * stride);
        const Int  cnt = (Int)(part.size() / stride);
        auto       R   = ToDevice(part.empty() ? std::vector<double>(1) : part);
        View<Int>  perm("perm", std::max<Int>(cnt, 1));
        View<Real> tk("tk", std::max<Int>(cnt, 1));
        Kokkos::View<int64_t *, petsckp::MemSpace> keys("keys", std::max<Int>(cnt, 1));
        Kokkos::View<Real **, Kokkos::LayoutLeft, petsckp::MemSpace> pre("pre", cnt + 1, ncol);
        lb::BreakpointSort(R, cnt, stride, tk, keys, perm);
        auto ph = ToHost(perm);
        for (Int k = 1; k < cnt; k++) { /* sorted by (t, gid) */
          const double *a = &part[(size_t)ph[k - 1] * stride], *b = &part[(size_t)ph[k] * stride];
          ASSERT_TRUE(a[0] < b[0] || (a[0] == b[0] && a[1] < b[1])) << "n " << n << " k " << k;
        }
        lb::BreakpointPrefix(R, perm, cnt, stride, col2, carry, pre);
        /* the prefix sums against a serial sum */
        {
          auto             preh = Kokkos::create_mirror_view(pre);
          Kokkos::deep_copy(preh, pre);
          auto             ch = ToHost(carry);
          std::vector<double> acc(ch.begin(), ch.end());
          for (Int k = 0; k <= cnt; k++) {
            for (int c = 0; c < ncol; c++) ASSERT_NEAR(preh(k, c), acc[c], 1e-11 * (1 + std::abs(acc[c]) + k)) << "n " << n << " k " << k << " c " << c;
            if (k == cnt) break;
            const double *r = &part[(size_t)ph[k] * stride];
            for (int c = 0; c < ncol; c++) acc[c] += c < col2 ? r[2] * r[4 + c] : (c < 2 * col2 ? r[3] * r[4 + c - col2] : r[2] * r[2]);
          }
        }
        View<Real> carry2("carry2", ncol), out2("out2", 6 + ncol);
        Kokkos::deep_copy(carry2, carry);
        const Int kstop = lb::BreakpointFirstStop(R, perm, cnt, stride, pre, p0, Md, sc);
        lb::BreakpointSegment(R, perm, cnt, stride, pre, p0, Md, sc, kstop, out, carry);
        oh = ToHost(out);
        /* the fused first stop and segment state (no host in between): the same values to the last bit */
        {
          /* with the selection's count carried into out(6 + ncol) */
          View<Real> carry3("carry3", ncol), out3("out3", 7 + ncol);
          View<Int>  selc("selc", 1);
          Kokkos::deep_copy(carry3, carry2);
          Kokkos::deep_copy(selc, cnt + 7);
          lb::BreakpointStopSegment(R, perm, cnt, stride, pre, p0, Md, sc, out3, carry3, selc);
          lb::BreakpointStopSegment(R, perm, cnt, stride, pre, p0, Md, sc, out2, carry2);
          auto o2 = ToHost(out2), o3 = ToHost(out3), c1 = ToHost(carry), c2 = ToHost(carry2), c3 = ToHost(carry3);
          for (Int c = 0; c < 5 + ncol; c++) ASSERT_EQ(o2[c], oh[c]) << "n " << n << " col " << col << " c " << c;
          for (Int c = 0; c < 6 + ncol; c++) ASSERT_EQ(o3[c], o2[c]) << "n " << n << " col " << col << " c " << c;
          ASSERT_EQ(o3[6 + ncol], (Real)(cnt + 7)) << "n " << n << " col " << col;
          ASSERT_EQ(o2[5 + ncol], (Real)kstop) << "n " << n << " col " << col;
          for (Int c = 0; c < ncol; c++) ASSERT_EQ(c2[c], c1[c]);
          for (Int c = 0; c < ncol; c++) ASSERT_EQ(c3[c], c1[c]);
        }
        passed += kstop;
        found = kstop < cnt;
        sc.tcarry = oh[2];
        sc.tlastc = oh[3];
        sc.gidlastc = oh[4];
        sc.origin = false;
      }
      double dtm = -oh[0] / oh[1];
      if (dtm <= 0) dtm = 0;
      EXPECT_EQ(passed, ref.npassed) << "n " << n << " col " << col;
      EXPECT_NEAR(oh[2] + dtm, ref.tsum, 1e-10 * (1 + ref.tsum)) << "n " << n << " col " << col;
      if (ref.npassed > 0) {
        EXPECT_EQ(oh[3], ref.tstar);
        EXPECT_EQ((Int)oh[4], ref.gidstar);
      } else EXPECT_EQ(oh[4], -1.0);
      for (int i = 0; i < col2; i++) {
        const double pi = p[i] - oh[5 + i], ci = oh[5 + col2 + i] + (oh[2] + dtm) * pi;
        EXPECT_NEAR(ci, ref.c[i], 1e-9 * (1 + std::abs(ref.c[i]))) << "n " << n << " col " << col << " i " << i;
      }
    }
  }
}

/* the fused masked Gram products against serial sums: over all variables, and over a list of changed variables with
   the signs of the incremental formk */
TEST(Lbfgsb, MaskedGramMatchesSerial)
{
  for (Int n : Sizes()) {
    const int nv = 6;
    std::vector<View<Real>>          vd;
    std::vector<std::vector<double>> vh;
    std::vector<lb::VecPtr>          ptr;
    for (int v = 0; v < nv; v++) {
      vh.push_back(RandomVector(n, 50 + v));
      vd.push_back(ToDevice(vh.back()));
      ptr.push_back(lb::VecPtr{vd.back().data()});
    }
    std::vector<Int> iwh(n), list;
    for (Int i = 0; i < n; i++) iwh[i] = (i % 3 == 1) ? 1 + (i % 2) : (i % 5 == 0 ? -1 : 0);
    for (Int i = 0; i < n; i += 2) list.push_back(i);
    auto                         iw = ToDevice(iwh);
    auto                         rows = ToDevice(list.empty() ? std::vector<Int>(1, 0) : list);
    std::vector<lb::GramProduct> prods;
    for (int a = 0; a < nv; a++)
      for (int b = 0; b <= a; b++) prods.push_back(lb::GramProduct{a, b, (a + b) % 2});
    Kokkos::View<lb::VecPtr *, petsckp::MemSpace>      pv("ptr", nv);
    Kokkos::View<lb::GramProduct *, petsckp::MemSpace> qv("prods", prods.size());
    Kokkos::deep_copy(pv, Kokkos::View<lb::VecPtr *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(ptr.data(), nv));
    Kokkos::deep_copy(qv, Kokkos::View<lb::GramProduct *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(prods.data(), prods.size()));
    Kokkos::View<Real **, Kokkos::LayoutRight, petsckp::MemSpace> partial("partial", 64, prods.size());
    View<Real>                                                    out("out", prods.size() + 2);
    std::vector<Int> gfh(n);
    for (Int i = 0; i < n; i++) gfh[i] = (i % 4 == 0) ? 7 : (i % 2); /* 7: a value no listed row keeps */
    auto gfree = ToDevice(gfh.empty() ? std::vector<Int>(1, 0) : gfh);
    /* the number of rows on the device (FreeSetList's counts), n only an upper bound: the counts come back in out */
    std::vector<Int> ch = {12345, (Int)list.size()};
    auto             counts = ToDevice(ch);
    for (int mode = 0; mode < 3; mode++) {
      const int listed = mode > 0;
      if (n) Kokkos::deep_copy(gfree, HostUView<Int>(gfh.data(), n));
      Kokkos::deep_copy(out, 7.0);
      if (mode == 2) lb::MaskedGram(pv, n, rows, iw, qv, partial, out, gfree, counts);
      else lb::MaskedGram(pv, listed ? (Int)list.size() : n, listed ? rows : View<Int>(), iw, qv, partial, out, gfree);
      auto oh = ToHost(out);
      if (mode == 2) {
        EXPECT_EQ(oh[prods.size()], 12345.0) << "n " << n;
        EXPECT_EQ(oh[prods.size() + 1], (double)list.size()) << "n " << n;
      }
      /* with the rows listed, their free flags are the new state; the other flags stay */
      auto gh = ToHost(gfree);
      for (Int i = 0; i < n; i++) {
        const bool inlist = listed && i % 2 == 0;
        ASSERT_EQ(gh[i], inlist ? (iwh[i] <= 0 ? 1 : 0) : gfh[i]) << "n " << n << " i " << i << " listed " << listed;
      }
      for (size_t q = 0; q < prods.size(); q++) {
        double ref = 0, mag = 0;
        for (Int k = 0; k < (listed ? (Int)list.size() : n); k++) {
          const Int  i  = listed ? list[k] : k;
          const bool fr = iwh[i] <= 0, on = prods[q].free ? fr : !fr;
          const double w = listed ? ((prods[q].free ? 1 : -1) * (fr ? 1 : -1)) : (on ? 1 : 0);
          ref += w * vh[prods[q].a][i] * vh[prods[q].b][i], mag += std::abs(vh[prods[q].a][i] * vh[prods[q].b][i]);
        }
        ASSERT_NEAR(oh[q], ref, 1e-13 * (1 + mag)) << "n " << n << " q " << q << " listed " << listed;
      }
    }
  }
}

/* the free-set changes: compaction in increasing order and the new flags */
TEST(Lbfgsb, FreeSetChangesCompactsAndFlags)
{
  for (Int n : Sizes()) {
    std::vector<Int> iwh(n), gf(n), ref;
    for (Int i = 0; i < n; i++) {
      iwh[i] = (int)((i * 7) % 5) - 1; /* -1..3 */
      gf[i]  = (i % 3 == 0) ? 1 : 0;
      if ((iwh[i] <= 0 ? 1 : 0) != gf[i]) ref.push_back(i);
    }
    auto iw = ToDevice(iwh), g = ToDevice(gf);
    View<Int> rows("rows", n > 0 ? n : 1);
    const Int cnt = lb::FreeSetChanges(iw, g, rows);
    ASSERT_EQ(cnt, (Int)ref.size()) << "n " << n;
    auto rh = ToHost(rows), gh = ToHost(g);
    for (Int k = 0; k < cnt; k++) EXPECT_EQ(rh[k], ref[k]);
    for (Int i = 0; i < n; i++) EXPECT_EQ(gh[i], iwh[i] <= 0 ? 1 : 0);
  }
}

namespace
{
/* col random pairs (y_j, s_j) on the device and their pointer table */
struct Pairs {
  std::vector<std::vector<double>> y, s;
  std::vector<View<Real>>          yd, sd;
  Kokkos::View<lb::VecPtr *, petsckp::MemSpace> table;
  Pairs(Int n, int col, unsigned seed)
  {
    std::vector<lb::VecPtr> ptr(2 * col);
    for (int j = 0; j < col; j++) {
      y.push_back(RandomVector(n, seed + 2 * j));
      s.push_back(RandomVector(n, seed + 2 * j + 1));
      yd.push_back(ToDevice(y.back()));
      sd.push_back(ToDevice(s.back()));
    }
    for (int j = 0; j < col; j++) ptr[j].p = yd[j].data(), ptr[col + j].p = sd[j].data();
    table = Kokkos::View<lb::VecPtr *, petsckp::MemSpace>("table", 2 * col);
    Kokkos::deep_copy(table, Kokkos::View<lb::VecPtr *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(ptr.data(), 2 * col));
  }
};
} // namespace

/* products with the stored pairs (W^T v and the update row) and their combination, against serial loops */
TEST(Lbfgsb, PairKernelsMatchSerial)
{
  for (Int n : Sizes()) {
    for (int col : {1, 3, 8}) {
      Pairs             P(n, col, 300 + col);
      auto              vh = RandomVector(n, 7), uh = RandomVector(n, 8);
      std::vector<Int>  gf(n), iwh(n);
      for (Int i = 0; i < n; i++) gf[i] = (i % 4 == 1) ? 0 : 1, iwh[i] = (i % 5 == 2) ? 1 : -1;
      auto       v = ToDevice(vh), u = ToDevice(uh);
      auto       g = ToDevice(gf), iw = ToDevice(iwh);
      View<Real> scratch("scratch", lb::PairScratch(col)), out("out", 6 * col);
      lb::PairDots(P.table, col, v, scratch, out);
      auto oh = ToHost(out);
      for (int j = 0; j < col; j++) {
        double ry = 0, rs = 0, mag = 0;
        for (Int i = 0; i < n; i++) ry += vh[i] * P.y[j][i], rs += vh[i] * P.s[j][i], mag += std::abs(vh[i]) * (std::abs(P.y[j][i]) + std::abs(P.s[j][i]));
        EXPECT_NEAR(oh[j], ry, 1e-13 * (1 + mag)) << "n " << n << " col " << col;
        EXPECT_NEAR(oh[col + j], rs, 1e-13 * (1 + mag)) << "n " << n << " col " << col;
      }
      lb::UpdateProducts(P.table, col, P.yd[col - 1], P.sd[col - 1], g, scratch, out);
      oh = ToHost(out);
      const auto &yn = P.y[col - 1], &sn = P.s[col - 1];
      for (int j = 0; j < col; j++) {
        double ref[6] = {0, 0, 0, 0, 0, 0}, mag = 0;
        for (Int i = 0; i < n; i++) {
          const double z = gf[i], a = 1 - gf[i];
          ref[0] += z * yn[i] * P.y[j][i];
          ref[1] += a * sn[i] * P.s[j][i];
          ref[2] += a * sn[i] * P.y[j][i];
          ref[3] += z * P.s[j][i] * yn[i];
          ref[4] += z * sn[i] * P.y[j][i];
          ref[5] += z * sn[i] * P.s[j][i];
          mag += 4;
        }
        for (int q = 0; q < 6; q++) EXPECT_NEAR(oh[q * col + j], ref[q], 1e-13 * (1 + mag)) << "n " << n << " col " << col << " q " << q;
      }
      /* out = 0.5 mask (2 v - 3 u + Y a + S b), and the aliased form out = mask (out + Y a) */
      std::vector<double> coef(2 * col);
      for (int j = 0; j < 2 * col; j++) coef[j] = 0.25 * (j + 1) * (j % 2 ? -1 : 1);
      auto       cd = ToDevice(coef);
      View<Real> o("o", n);
      lb::PairCombine(o, 0.5, true, iw, 2.0, v, -3.0, u, 0.0, lb::ConstView(), P.table, col, cd);
      auto ohc = ToHost(o);
      for (Int i = 0; i < n; i++) {
        double ref = 2 * vh[i] - 3 * uh[i];
        for (int j = 0; j < col; j++) ref += coef[j] * P.y[j][i] + coef[col + j] * P.s[j][i];
        ref = iwh[i] > 0 ? 0 : 0.5 * ref;
        ASSERT_NEAR(ohc[i], ref, 1e-13 * (1 + std::abs(ref))) << "n " << n << " col " << col << " i " << i;
      }
      lb::PairCombine(o, 1.0, false, iw, 1.0, o, 0.0, lb::ConstView(), 0.0, lb::ConstView(), P.table, col, cd);
      auto oh2 = ToHost(o);
      for (Int i = 0; i < n; i++) {
        double ref = ohc[i];
        for (int j = 0; j < col; j++) ref += coef[j] * P.y[j][i] + coef[col + j] * P.s[j][i];
        ASSERT_NEAR(oh2[i], ref, 1e-13 * (1 + std::abs(ref))) << "n " << n << " col " << col << " i " << i;
      }
    }
  }
}

/* the fused line-search start and gradient change */
TEST(Lbfgsb, LineSearchStartAndGradientChange)
{
  for (Int n : Sizes()) {
    auto       zh = RandomVector(n, 11), xh = RandomVector(n, 12), gh = RandomVector(n, 13);
    auto       z = ToDevice(zh), x = ToDevice(xh), g = ToDevice(gh);
    View<Real> d("d", n), xo("xo", n), go("go", n), r("r", n);
    Real       dtd, gtd;
    lb::LineSearchStart(z, x, g, d, xo, go, dtd, gtd);
    auto   dh = ToHost(d), xoh = ToHost(xo), goh = ToHost(go);
    double rd = 0, rg = 0;
    for (Int i = 0; i < n; i++) {
      ASSERT_EQ(dh[i], zh[i] - xh[i]);
      ASSERT_EQ(xoh[i], xh[i]);
      ASSERT_EQ(goh[i], gh[i]);
      rd += dh[i] * dh[i];
      rg += gh[i] * dh[i];
    }
    EXPECT_NEAR(dtd, rd, 1e-13 * (1 + rd));
    EXPECT_NEAR(gtd, rg, 1e-13 * (1 + n));
    const Real rr = lb::GradientChange(z, x, r);
    auto       rh = ToHost(r);
    double     ref = 0;
    for (Int i = 0; i < n; i++) {
      ASSERT_EQ(rh[i], zh[i] - xh[i]);
      ref += rh[i] * rh[i];
    }
    EXPECT_NEAR(rr, ref, 1e-13 * (1 + ref));
  }
}

TEST(Lbfgsb, DcsrchFindsWolfePoint)
{
  /* phi(a) = (a - 2)^2 - 4 with phi'(0) = -4: the line search must end at a point satisfying the strong Wolfe conditions */
  lb::Dcsrch ls;
  double     stp = 1, f = 0, gphi = -4;
  int        evals = 0;
  while (true) {
    ls.Step(f, gphi, stp, 1e-3, 0.9, 0.1, 0, 1e10);
    if (ls.task != lb::Dcsrch::FG) break;
    f    = (stp - 2) * (stp - 2) - 4;
    gphi = 2 * (stp - 2);
    ASSERT_LT(++evals, 20);
  }
  EXPECT_EQ(ls.task, lb::Dcsrch::CONVERGENCE);
  EXPECT_LE(f, 0 + 1e-3 * stp * -4);
  EXPECT_LE(std::abs(gphi), 0.9 * 4);
}

/* ---- the public API of TAOLBFGSB on a small bounded quadratic, f = sum_i (x_i - c_i)^2, c_i = (i mod 3) - 1, bounds
   [-0.5, 0.5]: the solution is c clipped to the bounds */
namespace
{
PetscErrorCode QuadraticFG(Tao, Vec X, PetscReal *f, Vec G, void *)
{
  const PetscScalar *x;
  PetscScalar       *g;
  PetscInt           lo, hi;
  PetscReal          loc = 0;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(X, &lo, &hi));
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArray(G, &g));
  for (PetscInt i = lo; i < hi; i++) {
    const PetscReal d = x[i - lo] - (PetscReal)(i % 3 - 1);
    loc += d * d;
    g[i - lo] = 2 * d;
  }
  PetscCall(VecRestoreArray(G, &g));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCallMPI(MPI_Allreduce(&loc, f, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_SELF));
  PetscFunctionReturn(PETSC_SUCCESS);
}

struct QuadraticProblem {
  Vec x = nullptr, xl = nullptr, xu = nullptr;
  explicit QuadraticProblem(PetscInt n)
  {
    VecCreateSeq(PETSC_COMM_SELF, n, &x);
    VecSetFromOptions(x);
    VecDuplicate(x, &xl);
    VecDuplicate(x, &xu);
    VecSet(xl, -0.5);
    VecSet(xu, 0.5);
    VecSet(x, 0.25);
  }
  ~QuadraticProblem()
  {
    VecDestroy(&x);
    VecDestroy(&xl);
    VecDestroy(&xu);
  }
  /* max_i |x_i - clip(c_i)| */
  double Error() const
  {
    const PetscScalar *a;
    PetscInt           n;
    double             e = 0;
    VecGetLocalSize(x, &n);
    VecGetArrayRead(x, &a);
    for (PetscInt i = 0; i < n; i++) e = std::max(e, std::abs((double)a[i] - std::min(0.5, std::max(-0.5, (double)(i % 3 - 1)))));
    VecRestoreArrayRead(x, &a);
    return e;
  }
};

Tao CreateLBFGSB(QuadraticProblem &p)
{
  Tao tao;
  TaoCreate(PETSC_COMM_SELF, &tao);
  TaoSetType(tao, TAOLBFGSB);
  TaoSetSolution(tao, p.x);
  TaoSetVariableBounds(tao, p.xl, p.xu);
  TaoSetObjectiveAndGradient(tao, nullptr, QuadraticFG, nullptr);
  TaoSetTolerances(tao, 1e-10, 0, 0);
  return tao;
}

/* the error code of expr with PETSc's error printing off, and its message in msg */
#define KP_ERR(expr, msg) \
  [&]() { \
    PetscErrorCode e_; \
    PetscKPErrorString m_ = nullptr; \
    PetscPushErrorHandler(PetscReturnErrorHandler, nullptr); \
    e_ = (expr); \
    PetscPopErrorHandler(); \
    if (e_) PetscErrorMessage(e_, nullptr, &m_); \
    msg = m_ ? m_ : ""; \
    return (int)e_; \
  }()
} // namespace

TEST(LbfgsbApi, SettersAndGettersRoundTrip)
{
  QuadraticProblem        p(7);
  Tao                     tao = CreateLBFGSB(p);
  PetscInt                m, maxls, chunk;
  PetscReal               factr, ftol, gtol, xtol;
  TaoLBFGSBCauchyType     ct;
  TaoLBFGSBCauchyScanType st;
  TaoLBFGSBGNormType      nt;
  TaoLBFGSBGramType       gt;

  /* the defaults (L-BFGS-B 3.0 / scipy) */
  ASSERT_EQ((int)TaoLBFGSBGetMemory(tao, &m), 0);
  EXPECT_EQ(m, 10);
  ASSERT_EQ((int)TaoLBFGSBGetLineSearchTolerances(tao, &ftol, &gtol, &xtol), 0);
  EXPECT_EQ(ftol, 1e-3);
  EXPECT_EQ(gtol, 0.9);
  EXPECT_EQ(xtol, 0.1);
  /* every setter, then every getter */
  ASSERT_EQ((int)TaoLBFGSBSetMemory(tao, 3), 0);
  ASSERT_EQ((int)TaoLBFGSBSetCauchyType(tao, TAO_LBFGSB_CAUCHY_APPROXIMATE), 0);
  ASSERT_EQ((int)TaoLBFGSBSetFactr(tao, 0), 0);
  ASSERT_EQ((int)TaoLBFGSBSetMaxLS(tao, 7), 0);
  ASSERT_EQ((int)TaoLBFGSBSetLineSearchTolerances(tao, 1e-4, 0.5, 0), 0);
  ASSERT_EQ((int)TaoLBFGSBSetCauchyScanType(tao, TAO_LBFGSB_CAUCHY_SCAN_HOST), 0);
  ASSERT_EQ((int)TaoLBFGSBSetGNormType(tao, TAO_LBFGSB_GNORM_2), 0);
  ASSERT_EQ((int)TaoLBFGSBSetGramType(tao, TAO_LBFGSB_GRAM_FULL), 0);
  ASSERT_EQ((int)TaoLBFGSBSetChunk(tao, 5), 0);
  ASSERT_EQ((int)TaoLBFGSBGetMemory(tao, &m), 0);
  ASSERT_EQ((int)TaoLBFGSBGetCauchyType(tao, &ct), 0);
  ASSERT_EQ((int)TaoLBFGSBGetFactr(tao, &factr), 0);
  ASSERT_EQ((int)TaoLBFGSBGetMaxLS(tao, &maxls), 0);
  ASSERT_EQ((int)TaoLBFGSBGetLineSearchTolerances(tao, &ftol, NULL, &xtol), 0);
  ASSERT_EQ((int)TaoLBFGSBGetLineSearchTolerances(tao, NULL, &gtol, NULL), 0);
  ASSERT_EQ((int)TaoLBFGSBGetCauchyScanType(tao, &st), 0);
  ASSERT_EQ((int)TaoLBFGSBGetGNormType(tao, &nt), 0);
  ASSERT_EQ((int)TaoLBFGSBGetGramType(tao, &gt), 0);
  ASSERT_EQ((int)TaoLBFGSBGetChunk(tao, &chunk), 0);
  EXPECT_EQ(m, 3);
  EXPECT_EQ(ct, TAO_LBFGSB_CAUCHY_APPROXIMATE);
  EXPECT_EQ(factr, 0);
  EXPECT_EQ(maxls, 7);
  EXPECT_EQ(ftol, 1e-4);
  EXPECT_EQ(gtol, 0.5);
  EXPECT_EQ(xtol, 0);
  EXPECT_EQ(st, TAO_LBFGSB_CAUCHY_SCAN_HOST);
  EXPECT_EQ(nt, TAO_LBFGSB_GNORM_2);
  EXPECT_EQ(gt, TAO_LBFGSB_GRAM_FULL);
  EXPECT_EQ(chunk, 5);
  /* and the solver still works with all of them */
  ASSERT_EQ((int)TaoSolve(tao), 0);
  EXPECT_LE(p.Error(), 1e-8);
  TaoDestroy(&tao);
}

TEST(LbfgsbApi, SettersRejectOutOfRangeValues)
{
  const double     nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  QuadraticProblem p(4);
  Tao              tao = CreateLBFGSB(p);
  std::string      msg;

  ASSERT_EQ((int)TaoSetOptionsPrefix(tao, "sub_"), 0);
  struct Case {
    const char *option;
    int         code;
  };
  std::vector<Case> cases = {
    {"-sub_tao_lbfgsb_m", KP_ERR(TaoLBFGSBSetMemory(tao, 0), msg)},
  };
  EXPECT_NE(msg.find("-sub_tao_lbfgsb_m 0"), std::string::npos) << msg;
  cases.push_back({"-sub_tao_lbfgsb_m", KP_ERR(TaoLBFGSBSetMemory(tao, 65), msg)});
  cases.push_back({"-sub_tao_lbfgsb_cauchy", KP_ERR(TaoLBFGSBSetCauchyType(tao, (TaoLBFGSBCauchyType)7), msg)});
  EXPECT_NE(msg.find("-sub_tao_lbfgsb_cauchy"), std::string::npos) << msg;
  cases.push_back({"-sub_tao_lbfgsb_factr", KP_ERR(TaoLBFGSBSetFactr(tao, nan), msg)});
  EXPECT_NE(msg.find("-sub_tao_lbfgsb_factr"), std::string::npos) << msg;
  cases.push_back({"-sub_tao_lbfgsb_factr", KP_ERR(TaoLBFGSBSetFactr(tao, -1), msg)});
  cases.push_back({"-sub_tao_lbfgsb_factr", KP_ERR(TaoLBFGSBSetFactr(tao, inf), msg)});
  cases.push_back({"-sub_tao_lbfgsb_maxls", KP_ERR(TaoLBFGSBSetMaxLS(tao, 0), msg)});
  EXPECT_NE(msg.find("-sub_tao_lbfgsb_maxls"), std::string::npos) << msg;
  cases.push_back({"-sub_tao_lbfgsb_ls_xtol", KP_ERR(TaoLBFGSBSetLineSearchTolerances(tao, 1e-3, 0.9, -1), msg)});
  EXPECT_NE(msg.find("-sub_tao_lbfgsb_ls_xtol"), std::string::npos) << msg;
  cases.push_back({"-sub_tao_lbfgsb_ls_xtol", KP_ERR(TaoLBFGSBSetLineSearchTolerances(tao, 1e-3, 0.9, nan), msg)});
  EXPECT_NE(msg.find("-sub_tao_lbfgsb_ls_xtol"), std::string::npos) << msg;
  cases.push_back({"-sub_tao_lbfgsb_ls_ftol", KP_ERR(TaoLBFGSBSetLineSearchTolerances(tao, 0, 0.9, 0.1), msg)});
  EXPECT_NE(msg.find("-sub_tao_lbfgsb_ls_ftol"), std::string::npos) << msg;
  cases.push_back({"-sub_tao_lbfgsb_ls_ftol", KP_ERR(TaoLBFGSBSetLineSearchTolerances(tao, 0.95, 0.9, 0.1), msg)});
  cases.push_back({"-sub_tao_lbfgsb_ls_gtol", KP_ERR(TaoLBFGSBSetLineSearchTolerances(tao, 1e-3, 1, 0.1), msg)});
  cases.push_back({"-sub_tao_lbfgsb_ls_gtol", KP_ERR(TaoLBFGSBSetLineSearchTolerances(tao, 1e-3, nan, 0.1), msg)});
  cases.push_back({"-sub_tao_lbfgsb_cauchy_scan", KP_ERR(TaoLBFGSBSetCauchyScanType(tao, (TaoLBFGSBCauchyScanType)-1), msg)});
  EXPECT_NE(msg.find("-sub_tao_lbfgsb_cauchy_scan"), std::string::npos) << msg;
  cases.push_back({"-sub_tao_lbfgsb_gnorm", KP_ERR(TaoLBFGSBSetGNormType(tao, (TaoLBFGSBGNormType)2), msg)});
  EXPECT_NE(msg.find("-sub_tao_lbfgsb_gnorm"), std::string::npos) << msg;
  cases.push_back({"-sub_tao_lbfgsb_gram", KP_ERR(TaoLBFGSBSetGramType(tao, (TaoLBFGSBGramType)2), msg)});
  EXPECT_NE(msg.find("-sub_tao_lbfgsb_gram"), std::string::npos) << msg;
  cases.push_back({"-sub_tao_lbfgsb_chunk", KP_ERR(TaoLBFGSBSetChunk(tao, 0), msg)});
  EXPECT_NE(msg.find("-sub_tao_lbfgsb_chunk"), std::string::npos) << msg;
  for (const auto &c : cases) EXPECT_EQ(c.code, (int)PETSC_ERR_ARG_OUTOFRANGE) << c.option;
  /* nothing was changed by a rejected value: the solver runs with its defaults */
  PetscInt  m;
  PetscReal ftol, gtol, xtol;
  TaoLBFGSBGetMemory(tao, &m);
  TaoLBFGSBGetLineSearchTolerances(tao, &ftol, &gtol, &xtol);
  EXPECT_EQ(m, 10);
  EXPECT_EQ(ftol, 1e-3);
  EXPECT_EQ(gtol, 0.9);
  EXPECT_EQ(xtol, 0.1);
  ASSERT_EQ((int)TaoSolve(tao), 0);
  EXPECT_LE(p.Error(), 1e-8);
  TaoDestroy(&tao);
}

TEST(LbfgsbApi, MemoryChangeAfterSetUpAndSolve)
{
  QuadraticProblem p(23);
  Tao              tao = CreateLBFGSB(p);
  TaoConvergedReason reason;

  /* TaoSetUp() then a new memory size (the work sized by the old one must not be used), then one after a solve */
  ASSERT_EQ((int)TaoSetUp(tao), 0);
  ASSERT_EQ((int)TaoLBFGSBSetMemory(tao, 3), 0);
  ASSERT_EQ((int)TaoSolve(tao), 0);
  TaoGetConvergedReason(tao, &reason);
  EXPECT_GT((int)reason, 0);
  EXPECT_LE(p.Error(), 1e-8);
  for (PetscInt m : {1, 64, 2}) {
    VecSet(p.x, 0.25);
    ASSERT_EQ((int)TaoLBFGSBSetMemory(tao, m), 0);
    ASSERT_EQ((int)TaoSolve(tao), 0);
    TaoGetConvergedReason(tao, &reason);
    EXPECT_GT((int)reason, 0) << "m " << m;
    EXPECT_LE(p.Error(), 1e-8) << "m " << m;
  }
  TaoDestroy(&tao);
}

TEST(LbfgsbApi, NewSolutionOfAnotherSize)
{
  QuadraticProblem   p(11), q(30);
  Tao                tao = CreateLBFGSB(p);
  TaoConvergedReason reason;
  std::string        msg;

  ASSERT_EQ((int)TaoSolve(tao), 0);
  EXPECT_LE(p.Error(), 1e-8);
  /* a solution of another size after a solve: the work (and TAO's gradient) are rebuilt */
  ASSERT_EQ((int)TaoSetSolution(tao, q.x), 0);
  ASSERT_EQ((int)TaoSetVariableBounds(tao, q.xl, q.xu), 0);
  ASSERT_EQ((int)TaoSolve(tao), 0);
  TaoGetConvergedReason(tao, &reason);
  EXPECT_GT((int)reason, 0);
  EXPECT_LE(q.Error(), 1e-8);
  /* bounds of the old size with the new solution: an error, not a read out of range */
  ASSERT_EQ((int)TaoSetVariableBounds(tao, p.xl, p.xu), 0);
  EXPECT_EQ(KP_ERR(TaoSolve(tao), msg), (int)PETSC_ERR_ARG_SIZ);
  EXPECT_NE(msg.find("lower-bound vector has 11 entries but the solution has 30"), std::string::npos) << msg;
  TaoDestroy(&tao);
}

/* -tao_lbfgsb_gnorm 2 changes the measure given to TAO's tests, not the iterates: on a coupled problem whose bounds
   bind, the same iterations give the same x with either norm (the 2-norm's work vector must not be one the next iteration
   reads) */
namespace
{
PetscErrorCode ChainFG(Tao, Vec X, PetscReal *f, Vec G, void *)
{
  const PetscScalar *x;
  PetscScalar       *g;
  PetscInt           n;
  PetscReal          s = 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArray(G, &g));
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal b = 1.5 * PetscSinReal(0.37 * i + 0.2);
    g[i]              = 0.01 * x[i] + b;
    s += 0.005 * x[i] * x[i] + b * x[i];
    if (i > 0) g[i] += x[i] - x[i - 1];
    if (i + 1 < n) {
      g[i] -= x[i + 1] - x[i];
      s += 0.5 * (x[i + 1] - x[i]) * (x[i + 1] - x[i]);
    }
  }
  PetscCall(VecRestoreArray(G, &g));
  PetscCall(VecRestoreArrayRead(X, &x));
  *f = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

TEST(LbfgsbApi, GNorm2KeepsTheIterates)
{
  const PetscInt         n = 200;
  std::vector<PetscReal> sol[2];
  PetscInt               its[2];
  for (int k = 0; k < 2; k++) {
    Tao tao;
    Vec x, xl, xu;
    ASSERT_EQ((int)VecCreateSeq(PETSC_COMM_SELF, n, &x), 0);
    VecSetFromOptions(x);
    VecDuplicate(x, &xl);
    VecDuplicate(x, &xu);
    VecSet(xl, -1.0);
    VecSet(xu, 1.0);
    VecSet(x, 0.0);
    TaoCreate(PETSC_COMM_SELF, &tao);
    TaoSetType(tao, TAOLBFGSB);
    TaoSetSolution(tao, x);
    TaoSetVariableBounds(tao, xl, xu);
    TaoSetObjectiveAndGradient(tao, nullptr, ChainFG, nullptr);
    TaoSetTolerances(tao, 0, 0, 0);
    TaoSetMaximumIterations(tao, 25);
    TaoLBFGSBSetFactr(tao, 0.0);
    TaoLBFGSBSetMemory(tao, 5);
    TaoLBFGSBSetGNormType(tao, k ? TAO_LBFGSB_GNORM_2 : TAO_LBFGSB_GNORM_INF);
    ASSERT_EQ((int)TaoSolve(tao), 0);
    TaoGetIterationNumber(tao, &its[k]);
    const PetscScalar *a;
    VecGetArrayRead(x, &a);
    sol[k].assign(a, a + n);
    VecRestoreArrayRead(x, &a);
    TaoDestroy(&tao);
    VecDestroy(&x);
    VecDestroy(&xl);
    VecDestroy(&xu);
  }
  EXPECT_GE(its[0], 15);
  EXPECT_EQ(its[1], its[0]);
  Int nbound = 0;
  for (PetscInt i = 0; i < n; i++) {
    ASSERT_EQ(sol[0][i], sol[1][i]) << "i " << i;
    nbound += std::abs(sol[0][i]) == 1.0;
  }
  EXPECT_GT(nbound, 10); /* the bounds bind */
}

/* bounds of another type than the solution (a host DMDA's Vec beside a VECKOKKOS solution): the iteration combines the
   bounds with its work Vecs (VecCopy() of a single bound, VecPointwiseMax() of the 2-norm residual), which PETSc's
   GPU types do not allow; here two checked host types (kp_checked_vec.hpp) refuse it. The iterates are those of
   bounds of the solution's type, with one bound or both and either norm. */
TEST(LbfgsbApi, BoundsOfAnotherTypeThanTheSolution)
{
  const PetscInt n = 60;
  char           ta[32], tb[32];
  ASSERT_EQ((int)kptest::CheckedVecType(PETSC_COMM_SELF, 'a', ta, sizeof(ta)), 0);
  ASSERT_EQ((int)kptest::CheckedVecType(PETSC_COMM_SELF, 'b', tb, sizeof(tb)), 0);
  for (int both = 0; both < 2; both++)
    for (TaoLBFGSBGNormType gn : {TAO_LBFGSB_GNORM_INF, TAO_LBFGSB_GNORM_2}) {
      std::vector<PetscScalar> sol[2];
      PetscInt                 its[2];
      for (int k = 0; k < 2; k++) { /* k = 0: bounds of the solution's type; 1: of another */
        Tao         tao;
        Vec         x, xl, xu = nullptr;
        std::string msg;
        VecCreate(PETSC_COMM_SELF, &x);
        VecSetSizes(x, n, n);
        VecSetType(x, ta);
        VecCreate(PETSC_COMM_SELF, &xl);
        VecSetSizes(xl, n, n);
        VecSetType(xl, k ? tb : ta);
        VecSet(xl, -0.5);
        if (both) {
          VecDuplicate(xl, &xu);
          VecSet(xu, 0.5);
        }
        VecSet(x, 0.25);
        TaoCreate(PETSC_COMM_SELF, &tao);
        TaoSetType(tao, TAOLBFGSB);
        TaoSetSolution(tao, x);
        TaoSetVariableBounds(tao, xl, xu);
        TaoSetObjectiveAndGradient(tao, nullptr, QuadraticFG, nullptr);
        TaoSetTolerances(tao, 1e-10, 0, 0);
        TaoLBFGSBSetGNormType(tao, gn);
        ASSERT_EQ(KP_ERR(TaoSolve(tao), msg), 0) << (both ? "both bounds" : "a lower bound") << ", gnorm " << TaoLBFGSBGNormTypes[gn] << ": " << msg;
        TaoGetIterationNumber(tao, &its[k]);
        const PetscScalar *a;
        VecGetArrayRead(x, &a);
        sol[k].assign(a, a + n);
        VecRestoreArrayRead(x, &a);
        TaoDestroy(&tao);
        VecDestroy(&x);
        VecDestroy(&xl);
        VecDestroy(&xu);
      }
      EXPECT_EQ(its[1], its[0]);
      for (PetscInt i = 0; i < n; i++) ASSERT_EQ(sol[1][i], sol[0][i]) << "i " << i;
      EXPECT_EQ(PetscRealPart(sol[0][0]), -0.5); /* the lower bound binds */
    }
}

TEST(LbfgsbApi, EmptyProblem)
{
  QuadraticProblem   p(0);
  Tao                tao = CreateLBFGSB(p);
  TaoConvergedReason reason;

  ASSERT_EQ((int)TaoSolve(tao), 0);
  TaoGetConvergedReason(tao, &reason);
  EXPECT_GT((int)reason, 0);
  TaoDestroy(&tao);
}

TEST(LbfgsbApi, ViewAfterEverySetting)
{
  QuadraticProblem p(5);
  Tao              tao = CreateLBFGSB(p);
  PetscViewer      v;

  ASSERT_EQ((int)PetscViewerASCIIOpen(PETSC_COMM_SELF, "/dev/null", &v), 0);
  TaoLBFGSBSetGNormType(tao, TAO_LBFGSB_GNORM_2);
  TaoLBFGSBSetGramType(tao, TAO_LBFGSB_GRAM_FULL);
  TaoLBFGSBSetCauchyScanType(tao, TAO_LBFGSB_CAUCHY_SCAN_HOST);
  ASSERT_EQ((int)TaoView(tao, v), 0); /* before any setup or solve */
  PetscViewerDestroy(&v);
  TaoDestroy(&tao);
}

/* ---- the fused passes of a bounded iteration, each against a plain serial reference and against the kernels it
   replaces */
namespace
{
/* reference `cauchy` first loop at one variable (state from the bounds for the fixed and unbounded variables) */
void RefCauchyVar(Real l, Real u, Real x, Real g, Int &iw, Real &d, Real &t)
{
  const int nbd = RefNbd(l, u);
  iw            = nbd == 0 ? -1 : ((nbd == 2 && u - l <= 0) ? 3 : 0);
  if (iw == 0) {
    const bool xlower = nbd <= 2 && nbd != 0 && x - l <= 0, xupper = nbd >= 2 && u - x <= 0;
    if (xlower) iw = -g <= 0 ? 1 : 0;
    else if (xupper) iw = -g >= 0 ? 2 : 0;
    else iw = std::abs(g) <= 0 ? -3 : 0;
  }
  t = lb::kNoBreak;
  d = 0;
  if (iw != 0 && iw != -1) return;
  d = -g;
  if (nbd <= 2 && nbd != 0 && d < 0) t = (x - l) / g;
  else if (nbd >= 2 && d > 0) t = (u - x) / -g;
}
} // namespace

TEST(LbfgsbFused, CauchyInitDotsMatchesSerial)
{
  for (Int n : Sizes()) {
    for (int col : {1, 3, 8}) {
      Problem p = MakeProblem(n, 61 + col);
      for (Int i = 0; i < n; i++) p.x[i] = std::min(std::max(p.x[i], p.l[i]), p.u[i]);
      Pairs        P(n, col, 400 + col);
      auto         l = ToDevice(p.l), u = ToDevice(p.u), x = ToDevice(p.x), g = ToDevice(p.g);
      View<Int>    iw("iw", n), iw2("iw2", n);
      View<Scalar> d("d", n), t("t", n), d2("d2", n), t2("t2", n);
      View<Real>   scratch("scratch", lb::PairScratch(col)), out("out", 2 * col + 7), out2("out2", 6 * col + 8);
      lb::Active(l, u, x, iw, kInf);
      /* an earlier state of the bounded variables (1, 2, -3 from a previous Cauchy point) must not matter */
      {
        auto iwh = ToHost(iw);
        for (Int i = 0; i < n; i++)
          if (iwh[i] == 0) iwh[i] = (Int)(i % 4) - 1 == -1 ? -3 : (Int)(i % 3);
        Kokkos::deep_copy(iw, HostUView<Int>(iwh.data(), n));
        Kokkos::deep_copy(iw2, iw);
      }
      lb::CauchyInitDots(l, u, x, g, iw, d, t, kInf, P.table, col, scratch, out);
      auto oh = ToHost(out), dh = ToHost(d), th = ToHost(t);
      auto iwh = ToHost(iw);
      const auto info = lb::CauchyInitDotsInfo(oh.data() + 2 * col);
      /* serial reference */
      double f1 = 0, tmin = lb::kNoBreak, tmax = 0;
      Int    nb = 0, nm = 0, nf = 0, nfz = 0;
      std::vector<double> dy(col, 0.0), ds(col, 0.0), mag(col, 0.0);
      for (Int i = 0; i < n; i++) {
        Int  iwr;
        Real dr, tr;
        RefCauchyVar(p.l[i], p.u[i], p.x[i], p.g[i], iwr, dr, tr);
        ASSERT_EQ(iwh[i], iwr) << "n " << n << " i " << i;
        ASSERT_EQ(dh[i], dr) << "n " << n << " i " << i;
        ASSERT_EQ(th[i], tr) << "n " << n << " i " << i;
        const bool brk = tr < lb::kNoBreak, mv = iwr == 0 || iwr == -1;
        f1 -= dr * dr;
        nb += brk;
        nm += mv;
        nf += mv && !brk;
        nfz += mv && !brk && dr != 0;
        tmin = std::min(tmin, tr);
        if (brk) tmax = std::max(tmax, tr);
        for (int j = 0; j < col; j++) dy[j] += dr * P.y[j][i], ds[j] += dr * P.s[j][i], mag[j] += std::abs(dr) * (std::abs(P.y[j][i]) + std::abs(P.s[j][i]));
      }
      EXPECT_NEAR(info.f1, f1, 1e-12 * (1 + std::abs(f1))) << "n " << n;
      EXPECT_EQ(info.nbreak, nb);
      EXPECT_EQ(info.nmoving, nm);
      EXPECT_EQ(info.nfreenb, nf);
      EXPECT_EQ(info.nfreenb_nonzero, nfz);
      EXPECT_EQ(info.tmin, tmin);
      EXPECT_EQ(info.tmax, tmax);
      for (int j = 0; j < col; j++) {
        EXPECT_NEAR(oh[j], dy[j], 1e-13 * (1 + mag[j])) << "n " << n << " col " << col;
        EXPECT_NEAR(oh[col + j], ds[j], 1e-13 * (1 + mag[j])) << "n " << n << " col " << col;
      }
      /* against the kernels it replaces: CauchyInit from the same state, then PairDots of its d (bit for bit) */
      const auto ci = lb::CauchyInit(l, u, x, g, iw2, d2, t2, kInf);
      lb::PairDots(P.table, col, d2, scratch, out2);
      auto o2 = ToHost(out2), d2h = ToHost(d2), t2h = ToHost(t2);
      auto iw2h = ToHost(iw2);
      for (int j = 0; j < 2 * col; j++) ASSERT_EQ(oh[j], o2[j]) << "n " << n << " col " << col << " j " << j;
      for (Int i = 0; i < n; i++) ASSERT_TRUE(d2h[i] == dh[i] && t2h[i] == th[i] && iw2h[i] == iwh[i]) << "n " << n << " i " << i;
      EXPECT_EQ(ci.nbreak, info.nbreak);
      EXPECT_EQ(ci.nmoving, info.nmoving);
      EXPECT_EQ(ci.tmin, info.tmin);
      EXPECT_EQ(ci.tmax, info.tmax);
      EXPECT_NEAR(ci.f1, info.f1, 1e-13 * (1 + std::abs(f1)));
    }
  }
}

/* the free set at a described Cauchy point (no breakpoint passed, or the first third of them) and the point itself */
TEST(LbfgsbFused, FreeSetListMatchesSerial)
{
  for (Int n : Sizes()) {
    for (int passed = 0; passed < 2; passed++) {
      Problem p = MakeProblem(n, 71);
      for (Int i = 0; i < n; i++) p.x[i] = std::min(std::max(p.x[i], p.l[i]), p.u[i]);
      auto         l = ToDevice(p.l), u = ToDevice(p.u), x = ToDevice(p.x), g = ToDevice(p.g);
      View<Int>    iw("iw", n), rows("rows", n > 0 ? n : 1), iw2("iw2", n), rows2("rows2", n > 0 ? n : 1), counts("counts", 2);
      View<Scalar> d("d", n), t("t", n), xcp("xcp", n), xcp2("xcp2", n);
      lb::Active(l, u, x, iw, kInf);
      lb::CauchyInit(l, u, x, g, iw, d, t, kInf);
      Kokkos::deep_copy(iw2, iw);
      Kokkos::deep_copy(counts, -1);
      auto             iw0 = ToHost(iw);
      auto             dh = ToHost(d), th = ToHost(t);
      std::vector<Int> gf(n);
      for (Int i = 0; i < n; i++) gf[i] = (i % 3 == 0) ? 0 : 1;
      auto gfree = ToDevice(gf.empty() ? std::vector<Int>(1, 0) : gf), gfree2 = ToDevice(gf.empty() ? std::vector<Int>(1, 0) : gf);
      const std::vector<Real> sorted = SortedBreakpoints(th);
      lb::CauchyPointDesc cp;
      cp.passed  = passed && !sorted.empty();
      cp.tstar   = cp.passed ? sorted[sorted.size() / 3] : -1;
      cp.tsum    = cp.passed ? cp.tstar : 0.1;
      cp.gidstar = 5 + n / 2;
      cp.rstart  = 3;
      lb::FreeSetList(t, d, iw, gfree, cp, rows, counts);
      /* serial reference */
      Int              nfree = 0;
      std::vector<Int> chg;
      auto             iwh = ToHost(iw), rh = ToHost(rows), gh = ToHost(gfree), ch = ToHost(counts);
      for (Int i = 0; i < n; i++) {
        const bool pass = cp.passed && th[i] < lb::kNoBreak && (th[i] < cp.tstar || (th[i] == cp.tstar && cp.rstart + i <= cp.gidstar));
        const Int  iwr  = pass ? (dh[i] > 0 ? 2 : 1) : iw0[i];
        ASSERT_EQ(iwh[i], iwr) << "n " << n << " i " << i;
        nfree += iwr <= 0;
        if ((iwr <= 0 ? 1 : 0) != gf[i]) chg.push_back(i);
        ASSERT_EQ(gh[i], gf[i]); /* gfree is left to MaskedGram */
      }
      EXPECT_EQ(ch[0], nfree) << "n " << n;
      ASSERT_EQ(ch[1], (Int)chg.size()) << "n " << n;
      for (size_t k = 0; k < chg.size(); k++) ASSERT_EQ(rh[k], chg[k]);
      /* the last breakpoint passed read on the device from a segment state (BreakpointStopSegment's out(3), out(4);
         gidstar -1: none passed) instead of from cp: the same free set, list and counts */
      {
        View<Int>          iw3("iw3", n), rows3("rows3", n > 0 ? n : 1), counts3("counts3", 2);
        std::vector<Real>  segh = {0.5, 0.25, 0.125, cp.passed ? cp.tstar : -1.0, cp.passed ? (Real)cp.gidstar : -1.0};
        auto               seg    = ToDevice(segh);
        auto               gfree3 = ToDevice(gf.empty() ? std::vector<Int>(1, 0) : gf);
        lb::CauchyPointDesc cp3; /* only rstart is read from it */
        cp3.rstart = cp.rstart;
        cp3.tstar  = 1e300;
        cp3.passed = !cp.passed;
        if (n > 0) Kokkos::deep_copy(iw3, HostUView<Int>(iw0.data(), n));
        Kokkos::deep_copy(counts3, -1);
        lb::FreeSetList(t, d, iw3, gfree3, cp3, rows3, counts3, seg);
        auto iw3h = ToHost(iw3), r3h = ToHost(rows3), c3h = ToHost(counts3), g3h = ToHost(gfree3);
        for (Int i = 0; i < n; i++) ASSERT_EQ(iw3h[i], iwh[i]) << "n " << n << " i " << i;
        EXPECT_EQ(c3h[0], ch[0]) << "n " << n;
        ASSERT_EQ(c3h[1], ch[1]) << "n " << n;
        for (size_t k = 0; k < chg.size(); k++) ASSERT_EQ(r3h[k], chg[k]);
        for (Int i = 0; i < n; i++) ASSERT_EQ(g3h[i], gf[i]);
      }
      /* against the kernels it replaces: CauchyFinish (x^c and iwhere), CountFree, FreeSetChanges */
      lb::CauchyFinish(l, u, x, d, t, iw2, xcp2, cp.passed ? cp.tstar : -1.0, cp.gidstar, cp.rstart, cp.tsum);
      EXPECT_EQ(lb::CountFree(iw2), nfree);
      EXPECT_EQ(lb::FreeSetChanges(iw2, gfree2, rows2), (Int)chg.size());
      /* the point on the fly, as CauchyFinish's to the last bit */
      lb::CauchyPointVec(l, u, x, g, t, iw, cp, xcp);
      auto x1 = ToHost(xcp), x2 = ToHost(xcp2);
      auto i2 = ToHost(iw2);
      for (Int i = 0; i < n; i++) {
        ASSERT_EQ(x1[i], x2[i]) << "n " << n << " i " << i;
        ASSERT_EQ(i2[i], iwh[i]) << i;
      }
    }
  }
}

TEST(LbfgsbFused, SubspaceStepStartMatchesSerial)
{
  for (Int n : Sizes()) {
    for (int col : {1, 3}) {
      for (int aliased = 0; aliased < 2; aliased++) {
        for (int maxstep = 0; maxstep < 2; maxstep++) {
          Problem p = MakeProblem(n, 81 + col);
          for (Int i = 0; i < n; i++) p.x[i] = std::min(std::max(p.x[i], p.l[i]), p.u[i]);
          Pairs            P(n, col, 500 + col);
          auto             zh = p.x, uh = RandomVector(n, 83, -2, 2), xh = RandomVector(n, 84, -1, 1);
          std::vector<Int> iwh(n);
          for (Int i = 0; i < n; i++) {
            iwh[i] = (i % 9 == 2) ? 1 : 0;
            xh[i]  = std::min(std::max(xh[i], p.l[i]), p.u[i]);
          }
          std::vector<double> coef(2 * col);
          for (int j = 0; j < 2 * col; j++) coef[j] = 0.3 * (j + 1) * (j % 2 ? -1 : 1);
          auto         l = ToDevice(p.l), u = ToDevice(p.u), z = ToDevice(zh), x = ToDevice(xh), g = ToDevice(p.g), u0 = ToDevice(uh), cd = ToDevice(coef);
          auto         iw = ToDevice(iwh);
          View<Scalar> dsub("dsub", n), xn("xn", n), d("d", n), xo("xo", n), go("go", n);
          if (aliased) Kokkos::deep_copy(dsub, u0);
          const Real scale = 0.7, c0 = -1.0;
          const auto si    = lb::SubspaceStepStart(l, u, iw, z, x, g, dsub, scale, c0, aliased ? lb::ConstView(dsub) : lb::ConstView(u0), P.table, col, cd, xn, d, xo, go, kInf, maxstep != 0, 1e10);
          auto       dsh = ToHost(dsub), xnh = ToHost(xn), dh = ToHost(d), xoh = ToHost(xo), goh = ToHost(go);
          Int        hits = 0;
          double     dtd = 0, gtd = 0, stp = 1e10;
          for (Int i = 0; i < n; i++) {
            double v = c0 * uh[i];
            for (int j = 0; j < col; j++) v += coef[j] * P.y[j][i] + coef[col + j] * P.s[j][i];
            const double ds = iwh[i] > 0 ? 0.0 : scale * v;
            ASSERT_NEAR(dsh[i], ds, 1e-13 * (1 + std::abs(ds))) << "n " << n << " i " << i;
            const int nbd = RefNbd(p.l[i], p.u[i]);
            double    xr  = zh[i];
            if (iwh[i] <= 0) {
              xr = std::min(std::max(zh[i] + dsh[i], p.l[i]), p.u[i]);
              if (nbd && (xr == p.l[i] || xr == p.u[i])) hits++;
            }
            ASSERT_EQ(xnh[i], xr) << "n " << n << " i " << i;
            ASSERT_EQ(dh[i], xr - xh[i]);
            ASSERT_EQ(xoh[i], xh[i]);
            ASSERT_EQ(goh[i], p.g[i]);
            dtd += dh[i] * dh[i];
            gtd += p.g[i] * dh[i];
            if (nbd && dh[i] < 0 && nbd <= 2) stp = std::min(stp, p.l[i] - xh[i] >= 0 ? 0.0 : (p.l[i] - xh[i]) / dh[i]);
            if (nbd && dh[i] > 0 && nbd >= 2) stp = std::min(stp, p.u[i] - xh[i] <= 0 ? 0.0 : (p.u[i] - xh[i]) / dh[i]);
          }
          EXPECT_EQ(si.iword, hits) << "n " << n;
          EXPECT_NEAR(si.dtd, dtd, 1e-12 * (1 + dtd));
          EXPECT_NEAR(si.gtd, gtd, 1e-12 * (1 + n));
          EXPECT_EQ(si.stpmax, maxstep ? stp : 1e10) << "n " << n;
          /* against the kernels it replaces: PairCombine, ProjectStep, LineSearchStart, LineSearchMaxStep */
          View<Scalar> r2("r2", n), w2("w2", n), d2("d2", n), xo2("xo2", n), go2("go2", n);
          lb::PairCombine(r2, scale, true, iw, c0, u0, 0.0, lb::ConstView(), 0.0, lb::ConstView(), P.table, col, cd);
          if (!aliased) {
            auto r2h = ToHost(r2);
            for (Int i = 0; i < n; i++) ASSERT_EQ(r2h[i], dsh[i]) << i;
          }
          EXPECT_EQ(lb::ProjectStep(l, u, iw, z, dsub, w2, kInf), si.iword);
          Real a, b;
          lb::LineSearchStart(w2, x, g, d2, xo2, go2, a, b);
          auto d2h = ToHost(d2);
          for (Int i = 0; i < n; i++) ASSERT_EQ(d2h[i], dh[i]) << i;
          if (maxstep) EXPECT_EQ(lb::LineSearchMaxStep(l, u, x, d2, kInf, 1e10), si.stpmax);
          /* LineSearchStartMax from the same z := xnew */
          const auto s2 = lb::LineSearchStartMax(l, u, xn, x, g, d2, xo2, go2, kInf, maxstep != 0, 1e10);
          EXPECT_NEAR(s2.dtd, dtd, 1e-12 * (1 + dtd));
          EXPECT_NEAR(s2.gtd, gtd, 1e-12 * (1 + n));
          EXPECT_EQ(s2.stpmax, si.stpmax);
        }
      }
    }
  }
}

/* the subspace step with the Cauchy point formed on the fly, against SubspaceStepStart from the stored point: the
   same arithmetic in the same order, equal up to the compiler's contraction of products and sums into fused
   multiply-adds, which may differ between the two kernels: to 8 units in the last place of max(1, |value|) (the
   values are O(1), and an entry formed by cancellation keeps the rounding of its O(1) terms) */
TEST(LbfgsbFused, SubspaceStepStartGcpMatchesStoredPoint)
{
  for (Int n : Sizes()) {
    for (int col : {1, 3}) {
      for (int passed = 0; passed < 2; passed++) {
        for (int maxstep = 0; maxstep < 2; maxstep++) {
          Problem p = MakeProblem(n, 181 + col);
          for (Int i = 0; i < n; i++) p.x[i] = std::min(std::max(p.x[i], p.l[i]), p.u[i]);
          Pairs        P(n, col, 600 + col);
          auto         l = ToDevice(p.l), u = ToDevice(p.u), x = ToDevice(p.x), g = ToDevice(p.g);
          View<Int>    iw("iw", n), rows("rows", n > 0 ? n : 1), counts("counts", 2), gfree("gfree", n > 0 ? n : 1);
          View<Scalar> d("d", n), t("t", n), z("z", n), dsub("dsub", n);
          View<Scalar> xn("xn", n), dd("dd", n), xo("xo", n), go("go", n), xn2("xn2", n), dd2("dd2", n), xo2("xo2", n), go2("go2", n);
          lb::Active(l, u, x, iw, kInf);
          lb::CauchyInit(l, u, x, g, iw, d, t, kInf);
          auto              th = ToHost(t);
          const std::vector<Real> sorted = SortedBreakpoints(th);
          lb::CauchyPointDesc cp;
          cp.passed  = passed && !sorted.empty();
          cp.tstar   = cp.passed ? sorted[sorted.size() / 2] : -1;
          cp.tsum    = cp.passed ? cp.tstar : 0.05;
          cp.gidstar = n / 3;
          lb::FreeSetList(t, d, iw, gfree, cp, rows, counts);
          lb::CauchyPointVec(l, u, x, g, t, iw, cp, z);
          std::vector<double> coef(2 * col);
          for (int j = 0; j < 2 * col; j++) coef[j] = 0.3 * (j + 1) * (j % 2 ? -1 : 1);
          auto       cd    = ToDevice(coef);
          const Real scale = 0.7, c0 = -0.9;
          const auto si    = lb::SubspaceStepStartGcp(l, u, iw, t, cp, x, g, scale, c0, P.table, col, cd, xn, dd, xo, go, kInf, maxstep != 0, 1e10);
          const auto s2    = lb::SubspaceStepStart(l, u, iw, z, x, g, dsub, scale, c0, g, P.table, col, cd, xn2, dd2, xo2, go2, kInf, maxstep != 0, 1e10);
          EXPECT_EQ(si.iword, s2.iword) << "n " << n;
          EXPECT_LE(std::abs(si.dtd - s2.dtd), 1e-13 * std::max(Real(1), std::abs(s2.dtd))) << "n " << n;
          EXPECT_LE(std::abs(si.gtd - s2.gtd), 1e-13 * std::max(Real(1), std::abs(s2.gtd))) << "n " << n;
          EXPECT_EQ(si.stpmax, s2.stpmax) << "n " << n;
          auto a1 = ToHost(xn), a2 = ToHost(xn2), b1 = ToHost(dd), b2 = ToHost(dd2), c1 = ToHost(xo), c2 = ToHost(xo2), e1 = ToHost(go), e2 = ToHost(go2);
          auto ulps = [](Real a, Real b) { return std::abs(a - b) <= 8 * std::numeric_limits<Real>::epsilon() * (1 + std::max(std::abs(a), std::abs(b))); };
          for (Int i = 0; i < n; i++) ASSERT_TRUE(ulps(a1[i], a2[i]) && ulps(b1[i], b2[i]) && ulps(c1[i], c2[i]) && ulps(e1[i], e2[i])) << "n " << n << " i " << i << ": " << a1[i] - a2[i] << " " << b1[i] - b2[i] << " " << c1[i] - c2[i] << " " << e1[i] - e2[i];
          /* the stored-point kernel is checked against a serial reference in SubspaceStepStartMatchesSerial; here a
             spot check of x^c itself: passed variables on their bound */
          auto zh = ToHost(z);
          for (Int i = 0; i < n; i++)
            if (cp.passed && th[i] < lb::kNoBreak && th[i] < cp.tstar) ASSERT_EQ(zh[i], p.g[i] < 0 ? p.u[i] : p.l[i]) << i;
        }
      }
    }
  }
}

/* the end pass of an iteration: projected gradient, gradient change, the update's products with the new pair formed on
   the fly, the next Cauchy point's first pass and W^T d, against serial loops and the kernels it replaces */
TEST(LbfgsbFused, EndPassMatchesSerial)
{
  for (Int n : Sizes()) {
    for (int pcol : {0, 1, 3, 8}) {
      for (int newpair = 0; newpair < 2; newpair++) {
        if (newpair && pcol == 0) continue;
        for (int state = 0; state < 2; state++) {
          for (double stp : {1.0, 0.7}) {
            if (stp != 1.0 && !newpair) continue;
            const int nold = newpair ? pcol - 1 : pcol;
            Problem   p    = MakeProblem(n, 91 + pcol);
            for (Int i = 0; i < n; i++) p.x[i] = std::min(std::max(p.x[i], p.l[i]), p.u[i]);
            auto             goh = RandomVector(n, 92), dsh = RandomVector(n, 93);
            std::vector<Int> gf(n);
            for (Int i = 0; i < n; i++) gf[i] = (i % 4 == 1) ? 0 : 1;
            Pairs P(n, nold, 700 + pcol);
            /* the table: the kept pairs, then (newpair) pointers to NaN vectors: the new pair must never be read */
            View<Real>              nan("nan", n);
            std::vector<lb::VecPtr> ptr(2 * pcol);
            Kokkos::deep_copy(nan, std::numeric_limits<double>::quiet_NaN());
            for (int j = 0; j < nold; j++) ptr[j].p = P.yd[j].data(), ptr[pcol + j].p = P.sd[j].data();
            if (newpair) ptr[pcol - 1].p = ptr[2 * pcol - 1].p = nan.data();
            Kokkos::View<lb::VecPtr *, petsckp::MemSpace> table("table", 2 * pcol);
            Kokkos::deep_copy(table, Kokkos::View<lb::VecPtr *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(ptr.data(), 2 * pcol));
            auto         l = ToDevice(p.l), u = ToDevice(p.u), x = ToDevice(p.x), g = ToDevice(p.g), go = ToDevice(goh), ds = ToDevice(dsh);
            auto         gfree = ToDevice(gf);
            View<Real>   r("r", n), sn("sn", n), dn("dn", n), t("t", n), scratch("scratch", lb::EndScratch(pcol)), out("out", lb::EndOutSize(pcol, newpair));
            View<Int>    iw("iw", n);
            Kokkos::deep_copy(iw, 77);
            Kokkos::deep_copy(dn, 5.0);
            const bool scaled = newpair && stp != 1.0;
            lb::EndPass(l, u, x, g, go, r, ds, stp, scaled ? lb::MutView(sn) : lb::MutView(), newpair != 0, gfree, state != 0, iw, state ? lb::MutView(dn) : lb::MutView(), state ? lb::MutView(t) : lb::MutView(), kInf, table, pcol, scratch, out);
            auto       oh = ToHost(out), rh = ToHost(r), snh = ToHost(sn), dnh = ToHost(dn), thh = ToHost(t);
            auto       iwh = ToHost(iw);
            const Int  so  = lb::EndScalars(pcol, newpair != 0);
            const auto ci  = lb::CauchyInitDotsInfo(oh.data() + so);
            /* serial reference */
            double              f1 = 0, tmin = lb::kNoBreak, tmax = 0, rr = 0, pg = 0;
            Int                 nb = 0, nm = 0, nf = 0, nfz = 0;
            std::vector<double> dots(2 * pcol, 0.0), upd(6 * pcol, 0.0), mag(pcol, 0.0);
            for (Int i = 0; i < n; i++) {
              Int  iwr;
              Real dr, tr;
              RefCauchyVar(p.l[i], p.u[i], p.x[i], p.g[i], iwr, dr, tr);
              const double ri = p.g[i] - goh[i], si = stp != 1.0 ? stp * dsh[i] : dsh[i];
              ASSERT_EQ(rh[i], ri) << "n " << n << " i " << i;
              if (scaled) ASSERT_EQ(snh[i], stp * dsh[i]);
              if (state) ASSERT_TRUE(iwh[i] == iwr && dnh[i] == dr && thh[i] == tr) << "n " << n << " i " << i;
              else ASSERT_TRUE(iwh[i] == 77 && dnh[i] == 5.0);
              rr += ri * ri;
              pg = std::max(pg, std::abs(std::min(std::max(p.x[i] - p.g[i], p.l[i]), p.u[i]) - p.x[i]));
              const bool brk = tr < lb::kNoBreak, mv = iwr == 0 || iwr == -1;
              f1 -= dr * dr;
              nb += brk;
              nm += mv;
              nf += mv && !brk;
              nfz += mv && !brk && dr != 0;
              tmin = std::min(tmin, tr);
              if (brk) tmax = std::max(tmax, tr);
              const double z = gf[i] ? 1 : 0, a = 1 - z;
              for (int j = 0; j < pcol; j++) {
                const bool   last = newpair && j == pcol - 1;
                const double yj = last ? ri : P.y[j][i], sj = last ? si : P.s[j][i];
                dots[j] += dr * yj, dots[pcol + j] += dr * sj;
                mag[j] += (std::abs(dr) + std::abs(ri) + std::abs(si)) * (std::abs(yj) + std::abs(sj));
                if (newpair) {
                  upd[0 * pcol + j] += z * ri * yj;
                  upd[1 * pcol + j] += a * si * sj;
                  upd[2 * pcol + j] += a * si * yj;
                  upd[3 * pcol + j] += z * sj * ri;
                  upd[4 * pcol + j] += z * si * yj;
                  upd[5 * pcol + j] += z * si * sj;
                }
              }
            }
            EXPECT_NEAR(ci.f1, f1, 1e-12 * (1 + std::abs(f1))) << "n " << n;
            EXPECT_EQ(ci.nbreak, nb);
            EXPECT_EQ(ci.nmoving, nm);
            EXPECT_EQ(ci.nfreenb, nf);
            EXPECT_EQ(ci.nfreenb_nonzero, nfz);
            EXPECT_EQ(ci.tmin, tmin);
            EXPECT_EQ(ci.tmax, tmax);
            EXPECT_NEAR(oh[so + 7], rr, 1e-12 * (1 + rr)) << "n " << n;
            EXPECT_NEAR(oh[so + 8], pg, 1e-15 * (1 + pg)) << "n " << n;
            for (int j = 0; j < pcol; j++) {
              EXPECT_NEAR(oh[j], dots[j], 1e-13 * (1 + mag[j])) << "n " << n << " pcol " << pcol;
              EXPECT_NEAR(oh[pcol + j], dots[pcol + j], 1e-13 * (1 + mag[j])) << "n " << n << " pcol " << pcol;
              for (int q = 0; newpair && q < 6; q++) EXPECT_NEAR(oh[(2 + q) * pcol + j], upd[q * pcol + j], 1e-13 * (1 + mag[j])) << "n " << n << " q " << q;
            }
            /* the histogram of the breakpoints over the fixed buckets, against serial comparisons with the edges */
            {
              std::vector<double> hist(lb::kBreakBuckets, 0.0);
              for (Int i = 0; i < n; i++) {
                Int  iwr;
                Real dr, tr;
                RefCauchyVar(p.l[i], p.u[i], p.x[i], p.g[i], iwr, dr, tr);
                if (!(tr < lb::kNoBreak)) continue;
                Int k = 0;
                while (!(tr <= lb::BreakBucketEdge(k + 1))) k++;
                hist[k] += 1;
              }
              const Int ho = lb::EndHistogram(pcol, newpair != 0);
              for (Int k = 0; k < lb::kBreakBuckets; k++) ASSERT_EQ(oh[ho + k], hist[k]) << "n " << n << " bucket " << k;
            }
            /* against the kernels it replaces, with the new pair stored: the projected-gradient norm, CauchyInitDots
               (d, t, iwhere, the counts and W^T d bit for bit) and UpdateProducts (bit for bit) */
            EXPECT_EQ(oh[so + 8], lb::ProjGradNormInf(l, u, x, g, kInf));
            if (pcol == 0) continue;
            View<Real> sv = scaled ? sn : ds;
            if (newpair) ptr[pcol - 1].p = r.data(), ptr[2 * pcol - 1].p = sv.data();
            Kokkos::deep_copy(table, Kokkos::View<lb::VecPtr *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(ptr.data(), 2 * pcol));
            View<Int>  iw2("iw2", n);
            View<Real> d2("d2", n), t2("t2", n), out2("out2", 2 * pcol + 7), out3("out3", 6 * pcol);
            lb::Active(l, u, x, iw2, kInf);
            lb::CauchyInitDots(l, u, x, g, iw2, d2, t2, kInf, table, pcol, scratch, out2);
            auto o2 = ToHost(out2);
            for (int k = 0; k < 2 * pcol; k++) ASSERT_EQ(oh[k], o2[k]) << "n " << n << " k " << k;
            for (int k = 0; k < 7; k++) ASSERT_EQ(oh[so + k], o2[2 * pcol + k]) << "n " << n << " k " << k;
            if (state) {
              auto d2h = ToHost(d2), t2h = ToHost(t2);
              auto i2h = ToHost(iw2);
              for (Int i = 0; i < n; i++) ASSERT_TRUE(d2h[i] == dnh[i] && t2h[i] == thh[i] && i2h[i] == iwh[i]) << i;
            }
            if (newpair) {
              lb::UpdateProducts(table, pcol, r, sv, gfree, scratch, out3);
              auto o3 = ToHost(out3);
              for (int k = 0; k < 6 * pcol; k++) ASSERT_EQ(oh[2 * pcol + k], o3[k]) << "n " << n << " k " << k;
            }
            /* a NaN or infinite gradient entry: the norm is +infinity */
            if (n > 0) {
              auto gb = p.g;
              gb[n / 2] = std::numeric_limits<double>::infinity();
              auto gbd = ToDevice(gb);
              lb::EndPass(l, u, x, gbd, go, r, ds, stp, lb::MutView(), false, gfree, false, iw, lb::MutView(), lb::MutView(), kInf, table, pcol, scratch, out);
              EXPECT_EQ(ToHost(out)[lb::EndScalars(pcol, false) + 8], std::numeric_limits<double>::infinity()) << "n " << n;
            }
          }
        }
      }
    }
  }
}

/* the fixed buckets of the breakpoint histogram (BreakBucket): breakpoints over 2^-80 .. 2^80, on the edges
   themselves and one unit of rounding above them; the end pass's counts against serial comparisons with the edges and
   against BreakpointHistogram with those edges (the histogram the breakpoint scan falls back to) */
TEST(LbfgsbFused, EndPassHistogramMatchesFixedEdges)
{
  const Int nb = lb::kBreakBuckets;
  for (Int b = 1; b < nb; b++) { /* the edges increase; bucket b - 1 closes with its edge */
    ASSERT_LT(lb::BreakBucketEdge(b - 1), lb::BreakBucketEdge(b));
    ASSERT_EQ(lb::BreakBucket(lb::BreakBucketEdge(b)), b - 1) << b;
    ASSERT_EQ(lb::BreakBucket(std::nextafter(lb::BreakBucketEdge(b), 1e300)), b) << b;
  }
  EXPECT_EQ(lb::BreakBucketEdge(4 * 64), 1.0);
  EXPECT_EQ(lb::BreakBucket(0.0), 0);
  EXPECT_EQ(lb::BreakBucket(1e-300), 0);
  EXPECT_EQ(lb::BreakBucket(1e299), nb - 1);
  for (Int n : Sizes()) {
    std::mt19937                           gen(17 + (unsigned)n);
    std::uniform_real_distribution<double> ex(-80, 80);
    std::vector<Scalar>                    lh(n, 0.0), uh(n, kInf), xh(n), gh(n, 1.0);
    for (Int i = 0; i < n; i++) { /* l = 0, no upper bound, g = 1: the breakpoint is x itself */
      const Int e = 1 + (Int)(gen() % (unsigned)(nb - 1));
      switch (i % 5) {
      case 0:
        xh[i] = lb::BreakBucketEdge(e);
        break;
      case 1:
        xh[i] = std::pow(2.0, ex(gen));
        break;
      case 2: /* moving up, away from the only bound: no breakpoint */
        xh[i] = 0.5;
        gh[i] = -1.0;
        break;
      case 3:
        xh[i] = std::nextafter(lb::BreakBucketEdge(e), 1e300);
        break;
      default:
        xh[i] = std::exp(std::uniform_real_distribution<double>(-7, 7)(gen));
      }
    }
    auto         l = ToDevice(lh), u = ToDevice(uh), x = ToDevice(xh), g = ToDevice(gh), go = ToDevice(gh);
    View<Real>   r("r", n), dn("dn", n), t("t", n), scratch("scratch", lb::EndScratch(0)), out("out", lb::EndOutSize(0, false));
    View<Int>    iw("iw", n), gfree("gfree", n);
    Kokkos::View<lb::VecPtr *, petsckp::MemSpace> table("table", 0);
    lb::EndPass(l, u, x, g, go, r, lb::ConstView(), 1.0, lb::MutView(), false, gfree, true, iw, dn, t, kInf, table, 0, scratch, out);
    auto                oh = ToHost(out), th = ToHost(t);
    std::vector<double> ref(nb, 0.0);
    for (Int i = 0; i < n; i++) {
      ASSERT_EQ(th[i], i % 5 == 2 ? lb::kNoBreak : xh[i]) << "n " << n << " i " << i;
      if (i % 5 == 2) continue;
      Int k = 0;
      while (!(xh[i] <= lb::BreakBucketEdge(k + 1))) k++;
      ref[k] += 1;
    }
    const Int ho = lb::EndHistogram(0, false);
    for (Int k = 0; k < nb; k++) ASSERT_EQ(oh[ho + k], ref[k]) << "n " << n << " bucket " << k;
    /* BreakpointHistogram over the same edges */
    std::vector<Real> e(nb + 1);
    for (Int k = 0; k <= nb; k++) e[k] = lb::BreakBucketEdge(k);
    auto      ed = ToDevice(e);
    View<Int> counts("counts", nb);
    lb::BreakpointHistogram(t, ed, nb, counts);
    auto ch = ToHost(counts);
    for (Int k = 0; k < nb; k++) ASSERT_EQ((double)ch[k], ref[k]) << "n " << n << " bucket " << k;
  }
}

TEST(LbfgsbFused, BreakpointRecordsWMatchesGather)
{
  for (Int n : Sizes()) {
    for (int col : {1, 3}) {
      Problem p = MakeProblem(n, 95);
      for (Int i = 0; i < n; i++) p.x[i] = std::min(std::max(p.x[i], p.l[i]), p.u[i]);
      Pairs        P(n, col, 600 + col);
      auto         l = ToDevice(p.l), u = ToDevice(p.u), x = ToDevice(p.x), g = ToDevice(p.g);
      View<Int>    iw("iw", n), idx("idx", n > 0 ? n : 1);
      View<Scalar> d("d", n), t("t", n);
      lb::Active(l, u, x, iw, kInf);
      lb::CauchyInit(l, u, x, g, iw, d, t, kInf);
      const Int    cnt = lb::SelectBreakpoints(t, -1.0, lb::kNoBreak, idx), stride = 4 + 2 * col;
      const Real   theta = 1.7;
      View<Scalar> rec("rec", std::max<Int>(1, cnt * stride)), rec2("rec2", std::max<Int>(1, cnt * stride));
      lb::BreakpointRecordsW(l, u, x, d, t, idx, cnt, 11, P.table, col, theta, rec, stride);
      lb::BreakpointRecords(l, u, x, d, t, idx, cnt, 11, rec2, stride);
      for (int j = 0; j < col; j++) {
        lb::GatherStrided(P.yd[j], idx, cnt, rec2, stride, 4 + j, 1.0);
        lb::GatherStrided(P.sd[j], idx, cnt, rec2, stride, 4 + col + j, theta);
      }
      auto rh = ToHost(rec), r2 = ToHost(rec2), dh = ToHost(d), th = ToHost(t);
      auto ih = ToHost(idx);
      for (Int k = 0; k < cnt; k++) {
        const Int i = ih[k];
        ASSERT_EQ(rh[k * stride + 0], th[i]);
        ASSERT_EQ(rh[k * stride + 1], (Real)(11 + i));
        ASSERT_EQ(rh[k * stride + 3], (dh[i] > 0 ? p.u[i] : p.l[i]) - p.x[i]);
        for (int j = 0; j < col; j++) {
          ASSERT_EQ(rh[k * stride + 4 + j], P.y[j][i]);
          ASSERT_EQ(rh[k * stride + 4 + col + j], theta * P.s[j][i]);
        }
        for (Int c = 0; c < stride; c++) ASSERT_EQ(rh[k * stride + c], r2[k * stride + c]) << "n " << n << " k " << k << " c " << c;
      }
    }
  }
}

TEST(LbfgsbFused, BreakpointHistogramMatchesSerial)
{
  for (Int n : Sizes()) {
    /* breakpoints with ties and no-break entries; edges with an empty bucket and a range that leaves some out */
    std::vector<Real> th(n);
    auto              r = RandomVector(n, 97, 0, 3);
    for (Int i = 0; i < n; i++) th[i] = (i % 5 == 1) ? lb::kNoBreak : ((i % 7 == 2) ? 1.0 : r[i]);
    for (int range = 0; range < 2; range++) {
      const Int         nb = 16;
      std::vector<Real> e(nb + 1);
      for (Int k = 0; k <= nb; k++) e[k] = range ? 0.5 + 2.0 * k / nb : (k == 0 ? -1.0 : 3.0 * k / nb);
      e[3] = e[4]; /* an empty bucket */
      auto      t = ToDevice(th), ed = ToDevice(e);
      View<Int> counts("counts", nb);
      lb::BreakpointHistogram(t, ed, nb, counts);
      auto             ch = ToHost(counts);
      std::vector<Int> ref(nb, 0);
      for (Int i = 0; i < n; i++) {
        if (!(th[i] < lb::kNoBreak) || !(th[i] > e[0]) || th[i] > e[nb]) continue;
        Int k = 0;
        while (!(th[i] <= e[k + 1])) k++;
        ref[k]++;
      }
      for (Int k = 0; k < nb; k++) EXPECT_EQ(ch[k], ref[k]) << "n " << n << " k " << k << " range " << range;
    }
  }
}

namespace
{
/* f = sum (x_i - 2)^2 below a wall: 1e30 where some x_i > 0.6 (the minimiser lies beyond it) */
PetscErrorCode WallFG(Tao, Vec X, PetscReal *f, Vec G, void *)
{
  const PetscScalar *x;
  PetscScalar       *g;
  PetscInt           n;
  PetscReal          s = 0, mx = -PETSC_MAX_REAL;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArray(G, &g));
  for (PetscInt i = 0; i < n; i++) {
    s += PetscSqr(PetscRealPart(x[i]) - 2.0);
    g[i] = 2.0 * (x[i] - 2.0);
    mx   = PetscMax(mx, PetscRealPart(x[i]));
  }
  PetscCall(VecRestoreArray(G, &g));
  PetscCall(VecRestoreArrayRead(X, &x));
  *f = mx > 0.6 ? 1e30 : s;
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/* a line search that ends (with a dcsrch warning) without any decrease of f is a failure, not the relative-reduction
   convergence L-BFGS-B 3.0 reports for it: TAO_DIVERGED_LS_FAILURE, with the iterate unchanged (never worse), for the
   default factr and for factr = 0 (the test off) */
TEST(LbfgsbApi, NoDecreaseIsALineSearchFailure)
{
  for (PetscReal factr : {1e7, 0.0}) {
    Tao                tao;
    Vec                x;
    TaoConvergedReason reason;
    PetscReal          f;
    VecCreateSeq(PETSC_COMM_SELF, 10, &x);
    VecSet(x, 0.5);
    TaoCreate(PETSC_COMM_SELF, &tao);
    TaoSetType(tao, TAOLBFGSB);
    TaoSetSolution(tao, x);
    TaoSetObjectiveAndGradient(tao, nullptr, WallFG, nullptr);
    TaoLBFGSBSetFactr(tao, factr);
    ASSERT_EQ((int)TaoSolve(tao), 0);
    TaoGetConvergedReason(tao, &reason);
    TaoGetSolutionStatus(tao, nullptr, &f, nullptr, nullptr, nullptr, nullptr);
    EXPECT_EQ(reason, TAO_DIVERGED_LS_FAILURE) << "factr " << factr << ": " << TaoConvergedReasons[reason];
    EXPECT_LE(f, 10 * 2.25) << "factr " << factr; /* f(x0): never a worse iterate */
    PetscReal mx;
    VecMax(x, nullptr, &mx);
    EXPECT_LE(mx, 0.6) << "factr " << factr;
    TaoDestroy(&tao);
    VecDestroy(&x);
  }
}
