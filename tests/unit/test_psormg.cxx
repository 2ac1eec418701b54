/* Unit tests of src/pc/psormg/psormg_kernels against plain serial references: coloured projected SOR sweep,
   obstacle restriction (monotone, linear), LCP measures, the structured colourings it takes from kp_colour, row
   lists, interpolation stencil, checks of the operator and of the bounds, the truncation mask; and of PCPSORMG itself:
   bad data (NaN/Inf in b, A or the bounds, non-positive diagonals, crossing bounds) is reported, every option is
   checked by its setter, and the truncated restriction is undone for the other restrictions and PCApply(). */
#include "kp_test.hpp"
#include "kp_checked_vec.hpp"
#include "pc/psormg/psormg_kernels.hpp"
#include "kp_colour.hpp"
#include "kp_segsort.hpp" /* ucv, uv */
#include <petscdmda.h>
#include <petsckp.h>
#include <cstring>
#include <map>
#include <string>
#include <tuple>

using namespace kptest;
using namespace petsckp::psormg;

static CsrMatrix ToDeviceCsr(const HostCsr &h)
{
  CsrMatrix A;
  auto      rp = ToDevice(h.rowptr), ci = ToDevice(h.colidx);
  auto      v  = ToDevice(h.vals);
  CsrFromArrays(h.nrows, h.ncols, UView<const Int>(rp.data(), rp.extent(0)), UView<const Int>(ci.data(), ci.extent(0)), UView<const Scalar>(v.data(), v.extent(0)), A);
  return A;
}

/* 1D three-point M-matrix of n rows (red-black colourable) */
static HostCsr Tridiag(Int n, double diag)
{
  HostCsr A;
  A.nrows = A.ncols = n;
  A.rowptr.push_back(0);
  for (Int i = 0; i < n; i++) {
    if (i > 0) A.colidx.push_back(i - 1), A.vals.push_back(-1.0);
    A.colidx.push_back(i), A.vals.push_back(diag);
    if (i < n - 1) A.colidx.push_back(i + 1), A.vals.push_back(-1.0);
    A.rowptr.push_back((Int)A.colidx.size());
  }
  return A;
}

/* R = P^T of the 1D hierarchy (coarse rows) */
static HostCsr Restriction1D(Int n)
{
  const Int                                    nc = CoarseSize1D(n);
  std::vector<std::vector<std::pair<Int, double>>> rows(nc);
  for (Int i = 0; i < n; i++) {
    Int  J[2];
    Real w[2];
    Int  c = Prolong1D(i, n, J, w);
    for (Int q = 0; q < c; q++) rows[J[q]].push_back({i, w[q]});
  }
  HostCsr R;
  R.nrows = nc, R.ncols = n;
  R.rowptr.push_back(0);
  for (auto &r : rows) {
    for (auto &e : r) R.colidx.push_back(e.first), R.vals.push_back(e.second);
    R.rowptr.push_back((Int)R.colidx.size());
  }
  return R;
}

static std::vector<Scalar> WithInfinities(std::vector<Scalar> v, double inf, Int every)
{
  for (size_t i = 0; i < v.size(); i += every) v[i] = inf;
  return v;
}

class PsormgSizes : public ::testing::TestWithParam<Int> { };

TEST_P(PsormgSizes, ColourSweepMatchesSerialPsor)
{
  const Int n = GetParam(), ng = 7;
  HostCsr   Ah = Tridiag(n, 2.5);
  HostCsr   Oh = RandomCsr(n, ng, 11 + (unsigned)n, 3); /* couplings to ghost points */
  auto      b  = RandomVector(n, 1);
  auto      g  = RandomVector(ng, 2);
  auto      x0 = RandomVector(n, 3);
  auto      lo = WithInfinities(RandomVector(n, 4, -1.0, -0.2), -INFINITY, 5);
  auto      up = WithInfinities(RandomVector(n, 5, 0.1, 0.6), INFINITY, 7);
  CsrMatrix A = ToDeviceCsr(Ah), O = ToDeviceCsr(Oh), E;
  for (int bounded = 0; bounded < 2; bounded++)
    for (double omega : {1.0, 1.4}) {
      /* reference: red rows then black rows, in order, with the projection of the over-relaxed value */
      std::vector<Scalar> ref = x0;
      for (Int c = 0; c < 2; c++)
        for (Int i = c; i < n; i += 2) {
          Scalar s = b[i], d = 0;
          for (Int k = Ah.rowptr[i]; k < Ah.rowptr[i + 1]; k++) {
            if (Ah.colidx[k] == i) d += Ah.vals[k];
            else s -= Ah.vals[k] * ref[Ah.colidx[k]];
          }
          for (Int k = Oh.rowptr[i]; k < Oh.rowptr[i + 1]; k++) s -= Oh.vals[k] * g[Oh.colidx[k]];
          Scalar v = (1 - omega) * ref[i] + omega * s / d;
          if (bounded) v = std::min(std::max(v, lo[i]), up[i]);
          ref[i] = v;
        }
      auto dx = ToDevice(x0), db = ToDevice(b), dg = ToDevice(g), dl = ToDevice(lo), du = ToDevice(up);
      std::vector<Int> red, black;
      for (Int i = 0; i < n; i++) (i % 2 ? black : red).push_back(i);
      auto dr = ToDevice(red), dk = ToDevice(black);
      UView<const Scalar> L = bounded ? UView<const Scalar>(dl.data(), n) : UView<const Scalar>();
      UView<const Scalar> U = bounded ? UView<const Scalar>(du.data(), n) : UView<const Scalar>();
      for (auto *rows : {&dr, &dk})
        ColourSweep(A, O, UView<const Int>(rows->data(), rows->extent(0)), omega, UView<const Scalar>(db.data(), n), UView<const Scalar>(dg.data(), ng), L, U, UView<Scalar>(dx.data(), n));
      auto got = ToHost(dx);
      EXPECT_LE(RelErr(got, ref), 1e-14) << "n " << n << " omega " << omega << " bounded " << bounded;
      if (bounded)
        for (Int i = 0; i < n; i++) ASSERT_TRUE(got[i] >= lo[i] && got[i] <= up[i]) << i;
      (void)E;
    }
}

/* the coarsest-grid projected SOR in one kernel against the serial iteration: pairs of sweeps (colours ascending, then
   descending), the projected residual tested after every fourth pair; 2 and 4 colours (some empty on tiny grids),
   with and without bounds, stopped by max_it or by rtol */
TEST_P(PsormgSizes, CoarsePsorMatchesSerialIteration)
{
  const Int  n      = GetParam();
  const Real acttol = 100 * PETSC_MACHINE_EPSILON;
  HostCsr    Ah     = Tridiag(n, 2.2);
  auto       b      = RandomVector(n, 31);
  auto       x0     = RandomVector(n, 33, -0.1, 0.1);
  auto       lo     = WithInfinities(RandomVector(n, 34, -0.3, 0.0), -INFINITY, 5);
  auto       up     = WithInfinities(RandomVector(n, 35, 0.05, 0.3), INFINITY, 7);
  CsrMatrix  A      = ToDeviceCsr(Ah);
  auto       pnorm  = [&](const std::vector<Scalar> &x, bool bounded) {
    double s = 0;
    for (Int i = 0; i < n; i++) {
      Scalar ax = 0;
      for (Int k = Ah.rowptr[i]; k < Ah.rowptr[i + 1]; k++) ax += Ah.vals[k] * x[Ah.colidx[k]];
      Scalar p = b[i] - ax;
      if (bounded && std::isfinite(lo[i]) && std::abs(x[i] - lo[i]) <= acttol * std::max(1.0, std::abs(lo[i]))) p = std::max(p, 0.0);
      else if (bounded && std::isfinite(up[i]) && std::abs(up[i] - x[i]) <= acttol * std::max(1.0, std::abs(up[i]))) p = std::min(p, 0.0);
      s += p * p;
    }
    return std::sqrt(s);
  };
  for (Int nc : {2, 4})
    for (int bounded = 0; bounded < 2; bounded++)
      for (Int max_it : {8, 500})
        for (double rtol : {1e-300, 1e-9}) {
          if (max_it == 500 && rtol == 1e-300 && n > 1000) continue; /* all 250 pairs: the small sizes suffice */
          SCOPED_TRACE("n " + std::to_string(n) + " colours " + std::to_string(nc) + " bounded " + std::to_string(bounded) + " max_it " + std::to_string(max_it) + " rtol " + std::to_string(rtol));
          const double     omega = 1.5;
          std::vector<Int> colour(n);
          for (Int i = 0; i < n; i++) colour[i] = i % nc;
          /* reference */
          std::vector<Scalar> x = x0;
          auto sweep = [&](bool backward) {
            for (Int cc = 0; cc < nc; cc++) {
              const Int c = backward ? nc - 1 - cc : cc;
              for (Int i = c; i < n; i += nc) {
                Scalar s = b[i], d = 0;
                for (Int k = Ah.rowptr[i]; k < Ah.rowptr[i + 1]; k++) {
                  if (Ah.colidx[k] == i) d += Ah.vals[k];
                  else s -= Ah.vals[k] * x[Ah.colidx[k]];
                }
                Scalar v = (1 - omega) * x[i] + omega * s / d;
                if (bounded) v = std::min(std::max(v, lo[i]), up[i]);
                x[i] = v; /* in place: the rows of one colour do not couple */
              }
            }
          };
          const double p0    = pnorm(x, bounded);
          Int          pairs = 0;
          for (Int it = 0; it < max_it && p0 > 0; it += 2) {
            sweep(false);
            sweep(true);
            pairs++;
            if ((it / 2) % 4 == 3 && pnorm(x, bounded) <= rtol * p0) break;
          }
          /* the kernel */
          ColourPartition P;
          auto            dc = ToDevice(colour);
          ASSERT_EQ(ColourPartitionCreate(n, ucv(dc), nc, P), 0);
          auto dx = ToDevice(x0), db = ToDevice(b), dl = ToDevice(lo), du = ToDevice(up);
          auto dp = ToDevice(std::vector<Int>(1, -1));
          CoarsePsor(A, ucv(P.rows), ucv(P.offsets), nc, omega, max_it, rtol, acttol, ucv(db), bounded ? ucv(dl) : UView<const Scalar>(), bounded ? ucv(du) : UView<const Scalar>(), uv(dx), uv(dp));
          EXPECT_EQ(ToHost(dp)[0], pairs);
          auto got = ToHost(dx);
          EXPECT_LE(RelErr(got, x), 1e-13);
          if (bounded)
            for (Int i = 0; i < n; i++) ASSERT_TRUE(got[i] >= lo[i] && got[i] <= up[i]) << i;
          if (max_it == 500 && rtol > 1e-300 && n > 0) EXPECT_LE(pnorm(got, bounded), 1e-9 * p0 * (1 + 1e-10));
        }
}

TEST_P(PsormgSizes, RestrictGapMatchesReference)
{
  const Int n = GetParam(), nc = CoarseSize1D(n), ng = 5;
  HostCsr   Rh = Restriction1D(n);
  HostCsr   Oh = RandomCsr(nc, ng, 23 + (unsigned)n, 2);
  for (auto &v : Oh.vals) v = std::abs(v) + 0.1; /* restriction weights are positive */
  CsrMatrix R = ToDeviceCsr(Rh), O = ToDeviceCsr(Oh), Empty;
  for (int lower = 0; lower < 2; lower++) {
    const double inf = lower ? -INFINITY : INFINITY, sgn = lower ? -1.0 : 1.0;
    auto         g   = RandomVector(n, 31, 0.0, 1.0);
    auto         gh  = RandomVector(ng, 37, 0.0, 1.0);
    for (auto &v : g) v *= sgn;
    for (auto &v : gh) v *= sgn;
    g  = WithInfinities(g, inf, 4);
    gh = WithInfinities(gh, inf, 3);
    for (int ghosts = 0; ghosts < 2; ghosts++)
      for (auto type : {ObstacleRestriction::Monotone, ObstacleRestriction::Linear}) {
        std::vector<Scalar> ref(nc);
        for (Int J = 0; J < nc; J++) {
          double m = inf, s = 0, w = 0;
          auto   take = [&](double wt, double v) {
            if (!(wt > 0)) return;
            if (type == ObstacleRestriction::Monotone) m = lower ? std::max(m, v) : std::min(m, v);
            else if (std::isfinite(v)) s += wt * v, w += wt;
          };
          for (Int k = Rh.rowptr[J]; k < Rh.rowptr[J + 1]; k++) take(Rh.vals[k], g[Rh.colidx[k]]);
          if (ghosts)
            for (Int k = Oh.rowptr[J]; k < Oh.rowptr[J + 1]; k++) take(Oh.vals[k], gh[Oh.colidx[k]]);
          ref[J] = type == ObstacleRestriction::Monotone ? m : (w > 0 ? s / w : inf);
        }
        auto dg = ToDevice(g), dgh = ToDevice(gh), dc = ToDevice(std::vector<Scalar>(nc, NAN));
        RestrictGap(type, lower, R, ghosts ? O : Empty, UView<const Scalar>(dg.data(), n), UView<const Scalar>(dgh.data(), ng), UView<Scalar>(dc.data(), nc));
        auto got = ToHost(dc);
        for (Int J = 0; J < nc; J++) {
          if (std::isinf(ref[J])) EXPECT_EQ(got[J], ref[J]) << J;
          else EXPECT_NEAR(got[J], ref[J], 1e-14 * (1 + std::abs(ref[J]))) << J;
          /* feasible coarse bounds: the gaps keep their sign */
          EXPECT_TRUE(lower ? got[J] <= 0 : got[J] >= 0);
        }
      }
  }
}

TEST_P(PsormgSizes, LcpMeasuresMatchReference)
{
  const Int n = GetParam();
  auto      x = RandomVector(n, 41), r = RandomVector(n, 43), b = RandomVector(n, 47);
  auto      lo = WithInfinities(RandomVector(n, 53, -2, -1), -INFINITY, 6), up = WithInfinities(RandomVector(n, 59, 1, 2), INFINITY, 5);
  for (Int i = 0; i < n; i += 3) x[i] = lo[i] == -INFINITY ? x[i] : lo[i]; /* some points at the lower bound */
  for (Int i = 1; i < n; i += 7) x[i] = up[i] == INFINITY ? x[i] : up[i];  /* some at the upper bound */
  if (n > 2) x[2] = up[2] + 0.25;                                          /* one infeasible point */
  for (Int i = 4; i < n; i += 11) lo[i] = up[i] = x[i] = 0.5;               /* fixed variables: any residual is complementary */
  double p2 = 0, comp = 0, inf = 0, en = 0;
  Int    act = 0;
  for (Int i = 0; i < n; i++) {
    int a = (std::isfinite(lo[i]) && x[i] == lo[i] ? 1 : 0) + (std::isfinite(up[i]) && x[i] == up[i] ? 2 : 0);
    double p = a == 3 ? 0.0 : a == 1 ? std::max(r[i], 0.0) : (a == 2 ? std::min(r[i], 0.0) : r[i]);
    p2 += p * p;
    if (std::isfinite(lo[i])) comp += (x[i] - lo[i]) * std::max(-r[i], 0.0);
    if (std::isfinite(up[i])) comp += (up[i] - x[i]) * std::max(r[i], 0.0);
    inf = std::max({inf, lo[i] - x[i], x[i] - up[i]});
    en += -0.5 * x[i] * (b[i] + r[i]);
    act += a ? 1 : 0;
  }
  auto        dx = ToDevice(x), dr = ToDevice(r), db = ToDevice(b), dl = ToDevice(lo), du = ToDevice(up);
  LcpMeasures m  = ComputeLcpMeasures(UView<const Scalar>(dx.data(), n), UView<const Scalar>(dr.data(), n), UView<const Scalar>(db.data(), n), UView<const Scalar>(dl.data(), n), UView<const Scalar>(du.data(), n), 1e-14, true);
  EXPECT_NEAR(m.pnorm2, p2, 1e-12 * (1 + p2));
  EXPECT_NEAR(m.comp, comp, 1e-12 * (1 + std::abs(comp)));
  EXPECT_NEAR(m.infeas, inf, 1e-15);
  EXPECT_NEAR(m.energy, en, 1e-12 * (1 + std::abs(en)));
  EXPECT_EQ(m.nactive, act);
  /* PETSc's "no bound" is the finite +-PETSC_INFINITY (PETSC_MAX_REAL / 4): the same measures (the complementarity
     used to add (PETSC_INFINITY - x) max(r, 0)) */
  {
    auto lp = lo, upp = up;
    for (auto &v : lp) v = v == -INFINITY ? PETSC_NINFINITY : v;
    for (auto &v : upp) v = v == INFINITY ? PETSC_INFINITY : v;
    auto        dlp = ToDevice(lp), dup = ToDevice(upp);
    LcpMeasures p = ComputeLcpMeasures(UView<const Scalar>(dx.data(), n), UView<const Scalar>(dr.data(), n), UView<const Scalar>(db.data(), n), UView<const Scalar>(dlp.data(), n), UView<const Scalar>(dup.data(), n), 1e-14, true);
    EXPECT_EQ(p.pnorm2, m.pnorm2);
    EXPECT_EQ(p.comp, m.comp);
    EXPECT_EQ(p.infeas, m.infeas);
    EXPECT_EQ(p.nactive, m.nactive);
  }
  /* unbounded: the projected residual is the residual */
  LcpMeasures u = ComputeLcpMeasures(UView<const Scalar>(dx.data(), n), UView<const Scalar>(dr.data(), n), UView<const Scalar>(db.data(), n), UView<const Scalar>(), UView<const Scalar>(), 1e-14, false);
  double      r2 = 0;
  for (auto v : r) r2 += v * v;
  EXPECT_NEAR(u.pnorm2, r2, 1e-12 * (1 + r2));
}

/* the truncation mask: 0 at the points on a bound (the active test of the LCP measures), 1 elsewhere; the moves
   against the mask on entry and the size of the active set */
TEST_P(PsormgSizes, TruncationMaskMatchesReference)
{
  const Int n  = GetParam();
  auto      x  = RandomVector(n, 61);
  auto      lo = WithInfinities(RandomVector(n, 67, -2, -1), -INFINITY, 6), up = WithInfinities(RandomVector(n, 71, 1, 2), INFINITY, 5);
  for (Int i = 0; i < n; i += 3) x[i] = lo[i] == -INFINITY ? x[i] : lo[i];
  for (Int i = 1; i < n; i += 7) x[i] = up[i] == INFINITY ? x[i] : up[i];
  for (Int i = 2; i < n; i += 11) x[i] = lo[i] == -INFINITY ? x[i] : lo[i] + 1e-15; /* within the tolerance */
  for (Int i = 4; i < n; i += 13) x[i] = lo[i] == -INFINITY ? x[i] : lo[i] + 1e-6;  /* not */
  for (int sides = 1; sides < 4; sides++) {
    const bool          havelo = sides & 1, haveup = sides & 2;
    std::vector<Scalar> keep0(n), ref(n);
    Int                 changed = 0, active = 0;
    for (Int i = 0; i < n; i++) {
      keep0[i]        = i % 4 ? 1.0 : 0.0;
      const bool atlo = havelo && std::isfinite(lo[i]) && std::abs(x[i] - lo[i]) <= 1e-14 * std::max(1.0, std::abs(lo[i]));
      const bool atup = haveup && std::isfinite(up[i]) && std::abs(up[i] - x[i]) <= 1e-14 * std::max(1.0, std::abs(up[i]));
      ref[i]          = atlo || atup ? 0.0 : 1.0;
      changed += ref[i] != keep0[i];
      active += ref[i] == 0.0;
    }
    auto           dx = ToDevice(x), dl = ToDevice(lo), du = ToDevice(up), dk = ToDevice(keep0);
    TruncationInfo info = TruncationMask(UView<const Scalar>(dx.data(), n), havelo ? UView<const Scalar>(dl.data(), n) : UView<const Scalar>(), haveup ? UView<const Scalar>(du.data(), n) : UView<const Scalar>(), 1e-14, UView<Scalar>(dk.data(), n));
    EXPECT_EQ(ToHost(dk), ref) << "sides " << sides;
    EXPECT_EQ(info.changed, changed);
    EXPECT_EQ(info.active, active);
    /* the same point again: nothing moves */
    info = TruncationMask(UView<const Scalar>(dx.data(), n), havelo ? UView<const Scalar>(dl.data(), n) : UView<const Scalar>(), haveup ? UView<const Scalar>(du.data(), n) : UView<const Scalar>(), 1e-14, UView<Scalar>(dk.data(), n));
    EXPECT_EQ(info.changed, 0);
    EXPECT_EQ(info.active, active);
  }
}

TEST_P(PsormgSizes, ColoursAndConflicts)
{
  /* the colourings PCPSORMG takes from kp_colour: StructuredColour of the 3D index space with width 1 (star:
     red-black, box: parity colours), the rows of each colour (ColourPartitionCreate) and the conflict count of the
     split local/ghost blocks (GraphColourCheck) */
  const Int n = GetParam();
  /* a line block and a 3D block whose size follows n */
  for (int shape = 0; shape < 2; shape++) {
    Int xs = 3, ys = 1, zs = 2, xm = n, ym = 1, zm = 1;
    if (shape == 1) xm = std::max<Int>(1, n % 17), ym = std::max<Int>(1, n % 5), zm = std::max<Int>(1, n / 97 % 7), xs = 2, ys = 5, zs = 0;
    const Int m = n ? xm * ym * zm : 0;
    if (!n) xm = 0;
    for (bool box : {false, true}) {
      auto c  = ToDevice(std::vector<Int>(m, -1));
      Int  nc = StructuredColour(3, 1, box, xs, ys, zs, xm, ym, zm, UView<Int>(c.data(), m));
      auto hc = ToHost(c);
      ASSERT_EQ(nc, box ? 8 : 2);
      for (Int t = 0; t < m; t++) {
        Int i = xs + t % xm, j = ys + (t / xm) % ym, k = zs + t / (xm * ym);
        Int r = !box ? (i + j + k) % 2 : i % 2 + 2 * (j % 2) + 4 * (k % 2);
        ASSERT_EQ(hc[t], r);
      }
      auto cs = ToDevice(std::vector<Scalar>(m, NAN));
      ColourScalars(UView<const Int>(c.data(), m), UView<Scalar>(cs.data(), m));
      auto hs = ToHost(cs);
      for (Int t = 0; t < m; t++) ASSERT_EQ(hs[t], (Scalar)hc[t]);
      ColourPartition part;
      ASSERT_EQ(ColourPartitionCreate(m, UView<const Int>(c.data(), m), nc, part), 0);
      auto rows = ToHost(part.rows);
      Int  total = 0;
      for (Int col = 0; col < nc; col++) {
        for (Int q = part.hoffsets(col); q < part.hoffsets(col + 1); q++) {
          ASSERT_EQ(hc[rows[q]], col);
          if (q > part.hoffsets(col)) ASSERT_LT(rows[q - 1], rows[q]);
        }
        total += part.hoffsets(col + 1) - part.hoffsets(col);
      }
      EXPECT_EQ(total, m);
    }
  }
  /* red-black is valid for the 3-point stencil, a single colour is not (2 (n-1) conflicts); explicit zeros do not
     couple; a ghost block couples the last row to ghost 0 */
  HostCsr          Ah = Tridiag(n, 2.0);
  CsrMatrix        A = ToDeviceCsr(Ah), O;
  std::vector<Int> rb(n), one(n, 0);
  for (Int i = 0; i < n; i++) rb[i] = i % 2;
  auto drb = ToDevice(rb), done = ToDevice(one);
  EXPECT_EQ(GraphColourCheck(A, O, UView<const Int>(drb.data(), n), UView<const Scalar>(), 2), 0);
  EXPECT_EQ(GraphColourCheck(A, O, UView<const Int>(done.data(), n), UView<const Scalar>(), 2), n > 0 ? 2 * (n - 1) : 0);
  HostCsr Az = Ah;
  for (Int i = 0; i < n; i++)
    for (Int k = Az.rowptr[i]; k < Az.rowptr[i + 1]; k++)
      if (Az.colidx[k] != i) Az.vals[k] = 0;
  CsrMatrix Azd = ToDeviceCsr(Az);
  EXPECT_EQ(GraphColourCheck(Azd, O, UView<const Int>(done.data(), n), UView<const Scalar>(), 2), 0);
  if (n > 0) {
    HostCsr Gh;
    Gh.nrows = n, Gh.ncols = 1;
    for (Int i = 0; i <= n; i++) Gh.rowptr.push_back(i < n ? 0 : 1);
    Gh.colidx.push_back(0), Gh.vals.push_back(-1.0);
    CsrMatrix G  = ToDeviceCsr(Gh);
    auto      g0 = ToDevice(std::vector<Scalar>{(Scalar)((n - 1) % 2)}), g1 = ToDevice(std::vector<Scalar>{(Scalar)(n % 2)});
    EXPECT_EQ(GraphColourCheck(A, G, UView<const Int>(drb.data(), n), UView<const Scalar>(g0.data(), 1), 2), 1);
    EXPECT_EQ(GraphColourCheck(A, G, UView<const Int>(drb.data(), n), UView<const Scalar>(g1.data(), 1), 2), 0);
  }
}

TEST_P(PsormgSizes, CheckOperatorFindsFirstBadRow)
{
  const Int n = GetParam(), ng = 5;
  HostCsr   Ah = Tridiag(n, 2.5);
  HostCsr   Oh = RandomCsr(n, ng, 61 + (unsigned)n, 2);
  /* serial reference: smallest row with a non-finite entry (either block), smallest row with a diagonal <= 0 */
  auto reference = [&](Int &nf, Int &bad, double &dv) {
    nf = bad = -1, dv = 0;
    for (Int i = n - 1; i >= 0; i--) {
      double d  = 0;
      bool   ok = true;
      for (Int k = Ah.rowptr[i]; k < Ah.rowptr[i + 1]; k++) {
        if (!std::isfinite(Ah.vals[k])) ok = false;
        if (Ah.colidx[k] == i) d += Ah.vals[k];
      }
      for (Int k = Oh.rowptr[i]; k < Oh.rowptr[i + 1]; k++)
        if (!std::isfinite(Oh.vals[k])) ok = false;
      if (!ok) nf = i;
      if (!(d > 0)) bad = i, dv = d;
    }
  };
  for (int variant = 0; variant < 5; variant++) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    if (n > 0) {
      const Int i = (Int)(n * 2 / 3), j = (Int)(n / 3);
      if (variant == 1 && Ah.rowptr[i + 1] > Ah.rowptr[i]) Ah.vals[Ah.rowptr[i + 1] - 1] = NAN;         /* NaN in the local block */
      if (variant == 2 && Oh.rowptr[j + 1] > Oh.rowptr[j]) Oh.vals[Oh.rowptr[j]] = INFINITY;             /* Inf in the ghost block */
      if (variant == 3)
        for (Int k = Ah.rowptr[i]; k < Ah.rowptr[i + 1]; k++)
          if (Ah.colidx[k] == i) Ah.vals[k] = 0; /* zero diagonal */
      if (variant == 4)
        for (Int k = Ah.rowptr[j]; k < Ah.rowptr[j + 1]; k++)
          if (Ah.colidx[k] == j) Ah.vals[k] = -3; /* negative diagonal, before the zero one */
    }
    Int    nf, bad;
    double dv;
    reference(nf, bad, dv);
    OperatorInfo info = CsrCheckOperator(ToDeviceCsr(Ah), ToDeviceCsr(Oh));
    EXPECT_EQ(info.nonfinite_row, nf);
    EXPECT_EQ(info.bad_diag_row, bad);
    if (bad >= 0 && std::isfinite(dv)) EXPECT_EQ(info.diag_value, dv);
  }
}

TEST_P(PsormgSizes, CheckBoundsFindsFirstBadEntry)
{
  const Int n = GetParam();
  for (int variant = 0; variant < 6; variant++) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    auto lo = WithInfinities(RandomVector(n, 71, -2, -1), -INFINITY, 4), up = WithInfinities(RandomVector(n, 73, 1, 2), INFINITY, 3);
    if (n > 0) {
      const Int i = n - 1 - n / 4, j = n / 5;
      if (variant == 1) lo[i] = NAN, lo[n - 1] = NAN;
      if (variant == 2) up[j] = NAN;
      if (variant == 3) lo[i] = INFINITY;
      if (variant == 4) up[j] = -INFINITY;
      if (variant == 5) lo[i] = 0.5, up[i] = 0.25, lo[n - 1] = 3;
    }
    Int ref[5] = {-1, -1, -1, -1, -1};
    for (Int i = n - 1; i >= 0; i--) {
      if (std::isnan(lo[i])) ref[0] = i;
      if (std::isnan(up[i])) ref[1] = i;
      if (lo[i] == INFINITY) ref[2] = i;
      if (up[i] == -INFINITY) ref[3] = i;
      if (lo[i] > up[i]) ref[4] = i;
    }
    auto       dl = ToDevice(lo), du = ToDevice(up);
    BoundsInfo b  = CheckBounds(UView<const Scalar>(dl.data(), n), UView<const Scalar>(du.data(), n));
    EXPECT_EQ(b.nan_lo, ref[0]);
    EXPECT_EQ(b.nan_up, ref[1]);
    EXPECT_EQ(b.pinf_lo, ref[2]);
    EXPECT_EQ(b.ninf_up, ref[3]);
    EXPECT_EQ(b.crossed, ref[4]);
    if (ref[4] >= 0) {
      EXPECT_EQ(b.lo_crossed, lo[ref[4]]);
      EXPECT_EQ(b.up_crossed, up[ref[4]]);
    }
    /* one side only */
    BoundsInfo l = CheckBounds(UView<const Scalar>(dl.data(), n), UView<const Scalar>());
    EXPECT_EQ(l.nan_lo, ref[0]);
    EXPECT_EQ(l.pinf_lo, ref[2]);
    EXPECT_EQ(l.crossed, -1);
    BoundsInfo u = CheckBounds(UView<const Scalar>(), UView<const Scalar>(du.data(), n));
    EXPECT_EQ(u.nan_up, ref[1]);
    EXPECT_EQ(u.ninf_up, ref[3]);
    EXPECT_EQ(u.crossed, -1);
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, PsormgSizes, ::testing::ValuesIn(Sizes()));

TEST(Psormg, Prolong1DIsLinearInterpolation)
{
  for (bool constantedge : {false, true})
    for (Int M : {1, 2, 3, 4, 7, 8, 13, 64, 65}) {
      const Int Mc = CoarseSize1D(M);
      EXPECT_TRUE(Mc == M || Mc == (M + 1) / 2);
      for (Int i = 0; i < M; i++) {
        Int  J[2];
        Real w[2], sum = 0, val = 0;
        Int  c = Prolong1D(i, M, J, w, constantedge);
        ASSERT_TRUE(c == 1 || c == 2);
        for (Int q = 0; q < c; q++) {
          ASSERT_GE(J[q], 0);
          ASSERT_LT(J[q], Mc);
          ASSERT_GT(w[q], 0);
          sum += w[q];
          val += w[q] * (Mc == M ? J[q] : 2.0 * J[q]); /* the coarse values of the fine coordinate */
        }
        EXPECT_LE(sum, 1.0 + 1e-15);
        const bool edge = Mc != M && i == M - 1 && M % 2 == 0; /* past the last coarse point */
        if (constantedge) EXPECT_DOUBLE_EQ(sum, 1.0);           /* constants are reproduced everywhere */
        else if (edge) EXPECT_DOUBLE_EQ(sum, 0.5);             /* linear interpolation to a zero beyond the edge */
        if (!edge) EXPECT_DOUBLE_EQ(val, (double)i);           /* linear functions are reproduced where the stencil is complete */
        else EXPECT_DOUBLE_EQ(val / sum, (double)(i - 1));     /* the last coarse point's value, scaled */
      }
      /* the coarse ranges of a split line cover the coarse line */
      Int cs0, ce0, cs1, ce1;
      CoarseRange1D(M, 0, M / 2, &cs0, &ce0);
      CoarseRange1D(M, M / 2, M, &cs1, &ce1);
      EXPECT_EQ(cs0, 0);
      EXPECT_EQ(ce0, cs1);
      EXPECT_EQ(ce1, Mc);
    }
}

/* the device interpolation matrix against the tensor product of the host stencils, on whole grids of 0, 1, 13,
   597 and about 10^5 points (1D, 2D, 3D, odd and even lines) */
TEST(Psormg, StructuredProlongationMatchesStencils)
{
  const Int grids[][3] = {{0, 1, 1}, {1, 1, 1}, {13, 1, 1}, {597, 1, 1}, {13, 8, 1}, {24, 25, 1}, {9, 8, 7}, {317, 316, 1}, {47, 46, 45}};
  for (auto &g : grids)
    for (int edgecase = 0; edgecase < 2; edgecase++) {
      const Int  M[3] = {g[0], g[1], g[2]};
      const bool edge[3] = {edgecase == 1, false, edgecase == 1};
      SCOPED_TRACE("grid " + std::to_string(M[0]) + "x" + std::to_string(M[1]) + "x" + std::to_string(M[2]) + " edge " + std::to_string(edgecase));
      CsrMatrix P;
      StructuredProlongation(M, edge, P);
      const Int        C[3] = {CoarseSize1D(M[0]), CoarseSize1D(M[1]), CoarseSize1D(M[2])};
      const Int        n = M[0] * M[1] * M[2];
      std::vector<Int> rp{0};
      std::vector<Int> ci;
      std::vector<Scalar> va;
      for (Int t = 0; t < n; t++) {
        const Int i = t % M[0], j = (t / M[0]) % M[1], k = t / (M[0] * M[1]);
        Int       I[2], J[2], K[2];
        Real      wi[2], wj[2], wk[2];
        const Int ni = Prolong1D(i, M[0], I, wi, edge[0]), nj = Prolong1D(j, M[1], J, wj, edge[1]), nk = Prolong1D(k, M[2], K, wk, edge[2]);
        for (Int c = 0; c < nk; c++)
          for (Int b = 0; b < nj; b++)
            for (Int a = 0; a < ni; a++) {
              ci.push_back(I[a] + C[0] * (J[b] + C[1] * K[c]));
              va.push_back(wi[a] * wj[b] * wk[c]);
            }
        rp.push_back((Int)ci.size());
      }
      EXPECT_EQ(P.nrows, n);
      EXPECT_EQ(P.ncols, C[0] * C[1] * C[2]);
      EXPECT_EQ(ToHost(P.rowptr), rp);
      auto             dci = ToHost(P.colidx);
      std::vector<Int> cil(dci.begin(), dci.end());
      EXPECT_EQ(cil, ci);
      EXPECT_EQ(RelErr(ToHost(P.vals), va), 0.0);
      for (Int r = 0; r + 1 < (Int)rp.size(); r++)
        for (Int q = rp[r] + 1; q < rp[r + 1]; q++) ASSERT_LT(ci[q - 1], ci[q]); /* ascending columns */
    }
}

/* the rows of the interpolation of one process's block of a distributed grid (local block Pd, ghost block Po with the
   ghost columns numbered in the order of the ghost box, as PCPSORMG numbers them) against the rows of the whole grid's
   interpolation (checked against the host stencils above): blocks of 2 x 2 (x 2) processes with the coarse ranges of
   CoarseRange1D, and blocks with no point; the same values to the bit, columns ascending in each block */
TEST(Psormg, StructuredProlongationBlocksMatchWholeGrid)
{
  const Int grids[][3] = {{1, 1, 1}, {13, 1, 1}, {597, 1, 1}, {13, 8, 1}, {24, 25, 1}, {9, 8, 7}, {317, 316, 1}, {47, 46, 45}};
  for (auto &g : grids)
    for (int edgecase = 0; edgecase < 2; edgecase++) {
      const Int  M[3] = {g[0], g[1], g[2]};
      const bool edge[3] = {edgecase == 1, false, edgecase == 1};
      SCOPED_TRACE("grid " + std::to_string(M[0]) + "x" + std::to_string(M[1]) + "x" + std::to_string(M[2]) + " edge " + std::to_string(edgecase));
      CsrMatrix P;
      StructuredProlongation(M, edge, P);
      const Int C[3] = {CoarseSize1D(M[0]), CoarseSize1D(M[1]), CoarseSize1D(M[2])};
      auto      rp = ToHost(P.rowptr), ci = ToHost(P.colidx);
      auto      va = ToHost(P.vals);
      /* split every direction of more than one point in two (the first part possibly empty); split 2: one fine point
         of odd index (a block whose coarse block is empty in that direction, as a process of a y- or z-split whose
         rows hold no coarse line) against the whole line */
      for (int split = 0; split < 3; split++)
        for (Int blk = 0; blk < 8; blk++) {
          Int xs[3], xm[3], cxs[3], cxm[3];
          for (int d = 0; d < 3; d++) {
            const Int half = M[d] > 1 ? (split == 1 ? M[d] / 2 : 0) : 0, part = (blk >> d) & 1, odd = (M[d] / 2) | 1;
            Int       s = part ? half : 0, e = part ? M[d] : half;
            if (split == 2) s = part ? 0 : odd, e = part ? M[d] : odd + 1;
            if (M[d] == 1 && part) { xs[d] = 0, xm[d] = 0; }
            else if (M[d] == 1) { xs[d] = 0, xm[d] = 1; }
            else { xs[d] = s, xm[d] = e - s; }
            Int cs, ce;
            CoarseRange1D(M[d], xs[d], xs[d] + xm[d], &cs, &ce);
            cxs[d] = cs, cxm[d] = ce - cs;
          }
          const Int n = xm[0] * xm[1] * xm[2];
          /* the ghost box and its ids: every box point outside the block, in box order */
          const Int        b0 = cxm[0] + 2, b1 = cxm[1] + 2, b2 = cxm[2] + 2;
          std::vector<Int> boxidx, boxpt;
          for (Int q = 0; q < b0 * b1 * b2; q++) {
            const Int I = cxs[0] - 1 + q % b0, J = cxs[1] - 1 + (q / b0) % b1, K = cxs[2] - 1 + q / (b0 * b1);
            const bool in = I >= cxs[0] && I < cxs[0] + cxm[0] && J >= cxs[1] && J < cxs[1] + cxm[1] && K >= cxs[2] && K < cxs[2] + cxm[2];
            if (!in && I >= 0 && I < C[0] && J >= 0 && J < C[1] && K >= 0 && K < C[2]) boxidx.push_back(q), boxpt.push_back(I + C[0] * (J + C[1] * K));
          }
          auto      dbox = ToDevice(boxidx);
          View<Int> ghostid;
          ProlongationGhostBox(b0 * b1 * b2, ucv(dbox), ghostid);
          CsrMatrix Pd, Po;
          StructuredProlongation(M, edge, xs, xm, cxs, cxm, ucv(ghostid), (Int)boxidx.size(), Pd, Po);
          ASSERT_EQ(Pd.nrows, n);
          ASSERT_EQ(Po.nrows, n);
          EXPECT_EQ(Pd.ncols, cxm[0] * cxm[1] * cxm[2]);
          EXPECT_EQ(Po.ncols, (Int)boxidx.size());
          auto drp = ToHost(Pd.rowptr), dci = ToHost(Pd.colidx), orp = ToHost(Po.rowptr), oci = ToHost(Po.colidx);
          auto dva = ToHost(Pd.vals), ova = ToHost(Po.vals);
          for (Int t = 0; t < n; t++) {
            const Int i = xs[0] + t % xm[0], j = xs[1] + (t / xm[0]) % xm[1], k = xs[2] + t / (xm[0] * xm[1]);
            const Int r = i + M[0] * (j + M[1] * k);
            std::map<Int, Scalar> want, got;
            for (Int q = rp[r]; q < rp[r + 1]; q++) want[(Int)ci[q]] = va[q];
            for (Int q = drp[t]; q < drp[t + 1]; q++) {
              const Int l = dci[q];
              got[(cxs[0] + l % cxm[0]) + C[0] * ((cxs[1] + (l / cxm[0]) % cxm[1]) + C[1] * (cxs[2] + l / (cxm[0] * cxm[1])))] = dva[q];
              if (q > drp[t]) ASSERT_LT(dci[q - 1], dci[q]);
            }
            for (Int q = orp[t]; q < orp[t + 1]; q++) {
              ASSERT_LT((Int)oci[q], (Int)boxpt.size());
              got[boxpt[oci[q]]] = ova[q];
              if (q > orp[t]) ASSERT_LT(oci[q - 1], oci[q]);
            }
            ASSERT_EQ(got, want) << "fine point " << i << "," << j << "," << k << " of block " << blk;
          }
        }
    }
}

/* 5/7-point operator of a whole grid: Dirichlet (eliminated, row sum = coupling) or Neumann (row sums 0) */
static HostCsr GridLaplacian(const Int M[3], bool neumann)
{
  HostCsr A;
  const Int n = M[0] * M[1] * M[2];
  A.nrows = A.ncols = n;
  A.rowptr.push_back(0);
  for (Int t = 0; t < n; t++) {
    const Int p[3] = {t % M[0], (t / M[0]) % M[1], t / (M[0] * M[1])}, s[3] = {1, M[0], M[0] * M[1]};
    std::vector<std::pair<Int, Scalar>> row;
    Scalar diag = 0;
    for (int d = 0; d < 3; d++) {
      if (M[d] == 1) continue;
      for (int sg = -1; sg <= 1; sg += 2) {
        const Int q = p[d] + sg;
        if (q >= 0 && q < M[d]) row.push_back({t + sg * s[d], -1.0}), diag += 1;
        else if (!neumann) diag += 1;
      }
    }
    row.push_back({t, diag});
    std::sort(row.begin(), row.end());
    for (auto &e : row) A.colidx.push_back(e.first), A.vals.push_back(e.second);
    A.rowptr.push_back((Int)A.colidx.size());
  }
  return A;
}

TEST(Psormg, EdgeRowSumsMatchHostLoop)
{
  const Int grids[][3] = {{1, 1, 1}, {14, 1, 1}, {14, 8, 1}, {13, 8, 1}, {8, 6, 4}, {598, 2, 1}, {318, 316, 1}};
  for (auto &g : grids)
    for (bool neumann : {false, true}) {
      const Int M[3] = {g[0], g[1], g[2]};
      HostCsr   h = GridLaplacian(M, neumann);
      CsrMatrix A = ToDeviceCsr(h);
      for (int d = 0; d < 3; d++) {
        SCOPED_TRACE("grid " + std::to_string(M[0]) + "x" + std::to_string(M[1]) + "x" + std::to_string(M[2]) + " d " + std::to_string(d));
        Real ref[3] = {0, 0, 0}, got[3];
        for (Int t = 0; t < h.nrows; t++) {
          const Int p[3] = {t % M[0], (t / M[0]) % M[1], t / (M[0] * M[1])}, s[3] = {1, M[0], M[0] * M[1]};
          bool      use = p[d] == M[d] - 1;
          for (int e = 0; e < 3 && use; e++)
            if (e != d && M[e] > 2 && (p[e] == 0 || p[e] == M[e] - 1)) use = false;
          if (!use) continue;
          for (Int k = h.rowptr[t]; k < h.rowptr[t + 1]; k++) {
            ref[0] += h.vals[k];
            if (h.colidx[k] != t && (h.colidx[k] / s[d]) % M[d] == M[d] - 2) ref[1] -= h.vals[k];
          }
          ref[2] += 1;
        }
        EdgeRowSums(A, M, d, got);
        for (int w = 0; w < 3; w++) EXPECT_NEAR(got[w], ref[w], 1e-12 * (1 + std::abs(ref[w])));
        if (M[d] > 2 && ref[2] > 0) EXPECT_EQ(neumann, got[0] <= 0.5 * got[1]); /* the rule decides Neumann/Dirichlet */
      }
    }
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* PCPSORMG on a DMDA: bad data is reported, options are checked */

#define KP_OK(expr) ASSERT_EQ((int)(expr), 0)

/* the message of the first error raised while this handler is pushed */
static PetscErrorCode CaptureError(MPI_Comm, int, const char *, const char *, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  std::string *s = (std::string *)ctx;
  if (p == PETSC_ERROR_INITIAL && s->empty() && mess) *s = mess;
  return n;
}

/* an obstacle problem on a 2D n x n DMDA: 5-point Laplacian with eliminated Dirichlet boundary, b = +-1 (left half
   pushes down onto the lower bound 0, the right half lifts off it), x0 = 0 on the bound; KSPRICHARDSON + PCPSORMG */
struct PsormgLcp {
  DM  da  = nullptr;
  Mat A   = nullptr;
  Vec b   = nullptr, x = nullptr, lo = nullptr, up = nullptr;
  KSP ksp = nullptr;
  PC  pc  = nullptr;
  PetscInt n = 0;

  void Create(PetscInt nn, PetscBool device_setup, PetscBool upper, MatType mtype = nullptr)
  {
    PetscInt xs, ys, xm, ym;
    n = nn;
    KP_OK(DMDACreate2d(PETSC_COMM_SELF, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, 1, 1, 1, 1, NULL, NULL, &da));
    /* the DM's types from the options, as an application sets them (-dm_vec_type kokkos -dm_mat_type aijkokkos):
       PETSc's own KSPs multiply the matrix with the DM's vectors */
    KP_OK(DMSetFromOptions(da));
    if (mtype) KP_OK(DMSetMatType(da, mtype));
    KP_OK(DMSetUp(da));
    KP_OK(DMCreateMatrix(da, &A));
    KP_OK(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        MatStencil  row = {0, j, i, 0}, col[5];
        PetscScalar v[5];
        PetscInt    c = 0;
        col[c] = row, v[c++] = 4;
        const PetscInt nb[4][2] = {{i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
        for (auto &q : nb)
          if (q[0] >= 0 && q[0] < n && q[1] >= 0 && q[1] < n) col[c].i = q[0], col[c].j = q[1], col[c].k = 0, col[c].c = 0, v[c++] = -1;
        KP_OK(MatSetValuesStencil(A, 1, &row, c, col, v, INSERT_VALUES));
      }
    KP_OK(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    KP_OK(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    KP_OK(DMCreateGlobalVector(da, &b));
    KP_OK(VecDuplicate(b, &x));
    KP_OK(VecDuplicate(b, &lo));
    KP_OK(VecSet(lo, 0.0));
    if (upper) {
      KP_OK(VecDuplicate(b, &up));
      KP_OK(VecSet(up, 0.5));
    }
    for (PetscInt t = 0; t < n * n; t++) KP_OK(VecSetValue(b, t, t % n < n / 2 ? -1.0 : 1.0, INSERT_VALUES));
    KP_OK(VecAssemblyBegin(b));
    KP_OK(VecAssemblyEnd(b));
    KP_OK(KSPCreate(PETSC_COMM_SELF, &ksp));
    KP_OK(KSPSetDM(ksp, da));
    KP_OK(PetscKPKSPSetDMActive(ksp, PETSC_FALSE));
    KP_OK(KSPSetOperators(ksp, A, A));
    KP_OK(KSPSetType(ksp, KSPRICHARDSON));
    KP_OK(KSPSetTolerances(ksp, 1e-10, 1e-50, PETSC_DEFAULT, 50));
    KP_OK(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
    KP_OK(KSPGetPC(ksp, &pc));
    KP_OK(PCSetType(pc, PCPSORMG));
    KP_OK(PCPSORMGSetDeviceSetup(pc, device_setup));
    KP_OK(PCPSORMGSetVariableBounds(pc, lo, up));
    KP_OK(VecSet(x, 0.0));
  }
  /* KSPSetUp and KSPSolve with errors returned, not printed: the error code, the message in *msg */
  PetscErrorCode Solve(std::string *msg, PetscBool setup_only = PETSC_FALSE)
  {
    PetscErrorCode ierr;
    msg->clear();
    PetscPushErrorHandler(CaptureError, msg);
    ierr = KSPSetUp(ksp);
    if (!ierr && !setup_only) ierr = KSPSolve(ksp, b, x);
    PetscPopErrorHandler();
    return ierr;
  }
  ~PsormgLcp()
  {
    KSPDestroy(&ksp);
    MatDestroy(&A);
    VecDestroy(&b);
    VecDestroy(&x);
    VecDestroy(&lo);
    VecDestroy(&up);
    DMDestroy(&da);
  }
};

class PsormgPC : public ::testing::TestWithParam<bool> { };

TEST_P(PsormgPC, SolvesTheObstacleProblem)
{
  PsormgLcp          p;
  std::string        msg;
  KSPConvergedReason reason;
  PetscReal          mn;
  ASSERT_NO_FATAL_FAILURE(p.Create(33, GetParam() ? PETSC_TRUE : PETSC_FALSE, PETSC_TRUE));
  ASSERT_EQ((int)p.Solve(&msg), 0) << msg;
  KP_OK(KSPGetConvergedReason(p.ksp, &reason));
  EXPECT_TRUE(reason == KSP_CONVERGED_RTOL || reason == KSP_CONVERGED_ATOL) << KSPConvergedReasons[reason];
  KP_OK(VecMin(p.x, NULL, &mn));
  EXPECT_GE(mn, 0.0);
}

/* NaN or Inf in b at a point on the bound: the projected residual there is max(r_i, 0), which drops the NaN, and the
   projected sweeps clamp x_i back onto the bound, so the iteration used to run all its cycles and return a finite x */
TEST_P(PsormgPC, NonFiniteRightHandSideIsDivergedNanOrInf)
{
  for (PetscScalar bad : {(PetscScalar)NAN, (PetscScalar)-INFINITY}) {
    PsormgLcp          p;
    std::string        msg;
    KSPConvergedReason reason;
    PetscInt           its;
    ASSERT_NO_FATAL_FAILURE(p.Create(17, GetParam() ? PETSC_TRUE : PETSC_FALSE, PETSC_FALSE));
    KP_OK(VecSetValue(p.b, 8 * 17 + 3, bad, INSERT_VALUES)); /* in the left half: x = 0 is on the lower bound there */
    KP_OK(VecAssemblyBegin(p.b));
    KP_OK(VecAssemblyEnd(p.b));
    ASSERT_EQ((int)p.Solve(&msg), 0) << msg;
    KP_OK(KSPGetConvergedReason(p.ksp, &reason));
    KP_OK(KSPGetIterationNumber(p.ksp, &its));
    EXPECT_EQ(reason, KSP_DIVERGED_NANORINF) << "b_i = " << (double)bad << ": " << KSPConvergedReasons[reason] << " after " << its << " cycles";
    EXPECT_EQ(its, 0);
  }
}

/* -ksp_max_it 0 with bounds: no cycle, the initial guess returned with KSP_DIVERGED_ITS as PETSc's KSPs do (KSPRICHARDSON
   then computes its residual norm with PCApply(), which used to raise the error of a PCApply() fallback), also when
   it is infeasible; NaN in b: KSP_DIVERGED_NANORINF; the next solve with cycles is not affected */
TEST_P(PsormgPC, MaxItZeroReturnsTheInitialGuess)
{
  PsormgLcp          p;
  std::string        msg;
  KSPConvergedReason reason;
  PetscInt           its;
  PetscReal          mn, mx;
  ASSERT_NO_FATAL_FAILURE(p.Create(17, GetParam() ? PETSC_TRUE : PETSC_FALSE, PETSC_TRUE));
  KP_OK(KSPSetTolerances(p.ksp, 1e-10, 1e-50, PETSC_DEFAULT, 0));
  for (PetscScalar x0 : {0.25, -1.0}) { /* feasible (0 <= x <= 0.5), infeasible */
    KP_OK(VecSet(p.x, x0));
    ASSERT_EQ((int)p.Solve(&msg), 0) << msg;
    KP_OK(KSPGetConvergedReason(p.ksp, &reason));
    KP_OK(KSPGetIterationNumber(p.ksp, &its));
    EXPECT_EQ(reason, KSP_DIVERGED_ITS) << KSPConvergedReasons[reason];
    EXPECT_EQ(its, 0);
    KP_OK(VecMin(p.x, NULL, &mn));
    KP_OK(VecMax(p.x, NULL, &mx));
    EXPECT_EQ(mn, x0);
    EXPECT_EQ(mx, x0);
  }
  KP_OK(VecSetValue(p.b, 3, NAN, INSERT_VALUES));
  KP_OK(VecAssemblyBegin(p.b));
  KP_OK(VecAssemblyEnd(p.b));
  ASSERT_EQ((int)p.Solve(&msg), 0) << msg;
  KP_OK(KSPGetConvergedReason(p.ksp, &reason));
  EXPECT_EQ(reason, KSP_DIVERGED_NANORINF) << KSPConvergedReasons[reason];
  KP_OK(VecSetValue(p.b, 3, -1.0, INSERT_VALUES));
  KP_OK(VecAssemblyBegin(p.b));
  KP_OK(VecAssemblyEnd(p.b));
  KP_OK(VecSet(p.x, 0.25));
  KP_OK(KSPSetTolerances(p.ksp, 1e-10, 1e-50, PETSC_DEFAULT, 50));
  ASSERT_EQ((int)p.Solve(&msg), 0) << msg;
  KP_OK(KSPGetConvergedReason(p.ksp, &reason));
  EXPECT_TRUE(reason == KSP_CONVERGED_RTOL || reason == KSP_CONVERGED_ATOL) << KSPConvergedReasons[reason];
  /* without KSPRICHARDSON, PCApply() with bounds is still refused */
  KP_OK(KSPSetType(p.ksp, KSPCG));
  KP_OK(KSPSetTolerances(p.ksp, 1e-10, 1e-50, PETSC_DEFAULT, 0));
  EXPECT_EQ((int)p.Solve(&msg), (int)PETSC_ERR_SUP) << msg;
}

/* a NaN entry of A, a zero or negative diagonal: an error at setup naming the row */
TEST_P(PsormgPC, BadOperatorIsAnErrorNamingTheRow)
{
  const PetscInt row = 5 * 17 + 4;
  struct {
    PetscInt       col;
    PetscScalar    v;
    PetscErrorCode err;
  } cases[] = {{row + 1, (PetscScalar)NAN, PETSC_ERR_FP}, {row, (PetscScalar)INFINITY, PETSC_ERR_FP}, {row, 0, PETSC_ERR_ARG_WRONG}, {row, -4, PETSC_ERR_ARG_WRONG}};
  for (auto &c : cases) {
    PsormgLcp   p;
    std::string msg;
    ASSERT_NO_FATAL_FAILURE(p.Create(17, GetParam() ? PETSC_TRUE : PETSC_FALSE, PETSC_FALSE));
    KP_OK(MatSetValue(p.A, row, c.col, c.v, INSERT_VALUES));
    KP_OK(MatAssemblyBegin(p.A, MAT_FINAL_ASSEMBLY));
    KP_OK(MatAssemblyEnd(p.A, MAT_FINAL_ASSEMBLY));
    EXPECT_EQ((int)p.Solve(&msg, PETSC_TRUE), (int)c.err) << "a(" << row << ", " << c.col << ") = " << (double)c.v << ": " << msg;
    EXPECT_NE(msg.find("row " + std::to_string(row)), std::string::npos) << msg;
  }
  /* a new operator with the same pattern (the numeric update path) is checked too */
  {
    PsormgLcp   p;
    std::string msg;
    ASSERT_NO_FATAL_FAILURE(p.Create(17, GetParam() ? PETSC_TRUE : PETSC_FALSE, PETSC_FALSE));
    ASSERT_EQ((int)p.Solve(&msg), 0) << msg;
    KP_OK(MatSetValue(p.A, row, row + 17, (PetscScalar)NAN, INSERT_VALUES));
    KP_OK(MatAssemblyBegin(p.A, MAT_FINAL_ASSEMBLY));
    KP_OK(MatAssemblyEnd(p.A, MAT_FINAL_ASSEMBLY));
    KP_OK(KSPSetOperators(p.ksp, p.A, p.A));
    EXPECT_EQ((int)p.Solve(&msg), (int)PETSC_ERR_FP) << msg;
    EXPECT_NE(msg.find("row " + std::to_string(row)), std::string::npos) << msg;
  }
}

/* a NaN bound (either side) and crossing bounds: an error naming the entry */
TEST_P(PsormgPC, BadBoundsAreAnErrorNamingTheEntry)
{
  const PetscInt k = 11 * 17 + 2;
  struct {
    bool        upper;
    PetscScalar v;
    const char *text;
  } cases[] = {{false, (PetscScalar)NAN, "lower bound "}, {true, (PetscScalar)NAN, "upper bound "}, {false, 0.75, "cross at entry "}, {false, (PetscScalar)INFINITY, "lower bound "}, {true, (PetscScalar)-INFINITY, "upper bound "}};
  for (auto &c : cases) {
    PsormgLcp   p;
    std::string msg;
    ASSERT_NO_FATAL_FAILURE(p.Create(17, GetParam() ? PETSC_TRUE : PETSC_FALSE, PETSC_TRUE));
    KP_OK(VecSetValue(c.upper ? p.up : p.lo, k, c.v, INSERT_VALUES));
    KP_OK(VecAssemblyBegin(c.upper ? p.up : p.lo));
    KP_OK(VecAssemblyEnd(c.upper ? p.up : p.lo));
    EXPECT_EQ((int)p.Solve(&msg), (int)PETSC_ERR_ARG_OUTOFRANGE) << (c.upper ? "upper " : "lower ") << (double)c.v << ": " << msg;
    EXPECT_NE(msg.find(c.text + std::to_string(k)), std::string::npos) << msg;
  }
  /* bounds of another layout */
  {
    PsormgLcp   p;
    std::string msg;
    Vec         small;
    ASSERT_NO_FATAL_FAILURE(p.Create(17, GetParam() ? PETSC_TRUE : PETSC_FALSE, PETSC_FALSE));
    KP_OK(VecCreateSeq(PETSC_COMM_SELF, 17, &small));
    KP_OK(VecSet(small, 0.0));
    KP_OK(PCPSORMGSetVariableBounds(p.pc, small, NULL));
    EXPECT_EQ((int)p.Solve(&msg), (int)PETSC_ERR_ARG_SIZ) << msg;
    VecDestroy(&small);
  }
}

/* The truncation of the hierarchy is kept between solves (a later solve with the same active set costs no Galerkin
   products) and must be undone for another restriction and for PCApply() without bounds: both then give what a
   fresh PC gives */
TEST_P(PsormgPC, TruncationIsUndoneForOtherRestrictionsAndPCApply)
{
  const PetscBool dev = GetParam() ? PETSC_TRUE : PETSC_FALSE;
  for (auto second : {PC_PSORMG_OBSTACLE_MONOTONE, PC_PSORMG_OBSTACLE_LINEAR}) {
    PsormgLcp   p, q;
    std::string msg;
    PetscInt    itp, itq;
    PetscReal   d;
    ASSERT_NO_FATAL_FAILURE(p.Create(33, dev, PETSC_TRUE));
    ASSERT_NO_FATAL_FAILURE(q.Create(33, dev, PETSC_TRUE));
    ASSERT_EQ((int)p.Solve(&msg), 0) << msg; /* truncated */
    KP_OK(KSPGetIterationNumber(p.ksp, &itp));
    EXPECT_GT(itp, 0);
    KP_OK(PCPSORMGSetObstacleRestriction(p.pc, second));
    KP_OK(PCPSORMGSetObstacleRestriction(q.pc, second));
    KP_OK(VecSet(p.x, 0.0));
    ASSERT_EQ((int)p.Solve(&msg), 0) << msg;
    ASSERT_EQ((int)q.Solve(&msg), 0) << msg;
    KP_OK(KSPGetIterationNumber(p.ksp, &itp));
    KP_OK(KSPGetIterationNumber(q.ksp, &itq));
    EXPECT_EQ(itp, itq) << PCPSORMGObstacleRestrictions[second];
    KP_OK(VecAXPY(p.x, -1.0, q.x));
    KP_OK(VecNorm(p.x, NORM_INFINITY, &d));
    EXPECT_LE(d, 1e-14) << PCPSORMGObstacleRestrictions[second];
  }
  {
    PsormgLcp   p, q;
    std::string msg;
    Vec         y, z;
    PetscReal   d, nz;
    ASSERT_NO_FATAL_FAILURE(p.Create(33, dev, PETSC_TRUE));
    ASSERT_NO_FATAL_FAILURE(q.Create(33, dev, PETSC_TRUE));
    ASSERT_EQ((int)p.Solve(&msg), 0) << msg; /* leaves the hierarchy truncated */
    ASSERT_EQ((int)q.Solve(&msg, PETSC_TRUE), 0) << msg;
    KP_OK(PCPSORMGSetVariableBounds(p.pc, NULL, NULL));
    KP_OK(PCPSORMGSetVariableBounds(q.pc, NULL, NULL));
    KP_OK(VecDuplicate(p.b, &y));
    KP_OK(VecDuplicate(p.b, &z));
    KP_OK(PCApply(p.pc, p.b, y));
    KP_OK(PCApply(q.pc, q.b, z));
    KP_OK(VecNorm(z, NORM_INFINITY, &nz));
    KP_OK(VecAXPY(y, -1.0, z));
    KP_OK(VecNorm(y, NORM_INFINITY, &d));
    EXPECT_LE(d, 1e-14 * nz);
    VecDestroy(&y);
    VecDestroy(&z);
  }
}

/* the truncated and the monotone restriction solve the same LCP (to the tolerance), the truncated one in no more
   cycles (the examples' tests check the cycles on problems where they differ) */
TEST_P(PsormgPC, TruncatedAndMonotoneAgree)
{
  PsormgLcp   p, q;
  std::string msg;
  PetscInt    itp, itq;
  PetscReal   d, nx;
  ASSERT_NO_FATAL_FAILURE(p.Create(65, GetParam() ? PETSC_TRUE : PETSC_FALSE, PETSC_TRUE));
  ASSERT_NO_FATAL_FAILURE(q.Create(65, GetParam() ? PETSC_TRUE : PETSC_FALSE, PETSC_TRUE));
  KP_OK(PCPSORMGSetObstacleRestriction(q.pc, PC_PSORMG_OBSTACLE_MONOTONE));
  ASSERT_EQ((int)p.Solve(&msg), 0) << msg;
  ASSERT_EQ((int)q.Solve(&msg), 0) << msg;
  KP_OK(KSPGetIterationNumber(p.ksp, &itp));
  KP_OK(KSPGetIterationNumber(q.ksp, &itq));
  EXPECT_LE(itp, itq);
  KP_OK(VecNorm(q.x, NORM_INFINITY, &nx));
  KP_OK(VecAXPY(p.x, -1.0, q.x));
  KP_OK(VecNorm(p.x, NORM_INFINITY, &d));
  EXPECT_LE(d, 1e-7 * nx);
}

/* b, x and the bounds of another type than the operator's vectors: a host DMDA's vectors with -mat_type aijkokkos in
   the options (DMCreateMatrix() applies it, DMCreateGlobalVector() does not), or here VECMPI vectors on one process
   beside the DMDA's VECSEQ ones, and two checked host types (kp_checked_vec.hpp) that fail where the GPU types crash. PETSc's Vec operations between them are not valid (with VECKOKKOS: a segmentation
   fault in PETSc's optimized builds); the solve runs on copies and returns the same iterate */
TEST_P(PsormgPC, VectorsOfAnotherTypeThanTheOperatorGiveTheSameSolve)
{
  char checked_a[32], checked_b[32];
  KP_OK(kptest::CheckedVecType(PETSC_COMM_SELF, 'a', checked_a, sizeof(checked_a)));
  KP_OK(kptest::CheckedVecType(PETSC_COMM_SELF, 'b', checked_b, sizeof(checked_b)));
  /* (operator type, its vectors' type if not its own, the type of b, x and the bounds): the checked host types refuse a
     Vec operation between the two, as PETSc's GPU types would crash in it */
  std::vector<std::tuple<MatType, VecType, VecType>> cases = {{MATAIJ, nullptr, VECMPI}, {MATAIJ, checked_b, checked_a}};
#if defined(PETSC_HAVE_KOKKOS)
  cases.push_back({MATAIJKOKKOS, nullptr, VECSEQ});
#endif
#if defined(PETSC_HAVE_CUDA)
  cases.push_back({MATAIJCUSPARSE, nullptr, VECSEQ});
#endif
  for (auto [mtype, opvtype, vtype] : cases) {
    PsormgLcp   p, q;
    std::string msg;
    PetscInt    itp, itq;
    PetscReal   d, nx;
    ASSERT_NO_FATAL_FAILURE(p.Create(33, GetParam() ? PETSC_TRUE : PETSC_FALSE, PETSC_TRUE));
    ASSERT_NO_FATAL_FAILURE(q.Create(33, GetParam() ? PETSC_TRUE : PETSC_FALSE, PETSC_TRUE, mtype));
    if (opvtype) {
      PetscBool host;
      KP_OK(PetscObjectTypeCompare((PetscObject)q.A, MATSEQAIJ, &host));
      if (!host) continue; /* -mat_type in the options: the checked host vectors are for a host operator */
      KP_OK(MatSetVecType(q.A, opvtype));
    }
    /* q's b, x, lo and up as vectors of type vtype with the same values */
    for (Vec *v : {&q.b, &q.x, &q.lo, &q.up}) {
      Vec w;
      KP_OK(VecCreate(PETSC_COMM_SELF, &w));
      KP_OK(VecSetSizes(w, 33 * 33, 33 * 33));
      KP_OK(VecSetType(w, vtype));
      { /* through host arrays: PETSc's VecCopy() between the two types is what is not valid */
        const PetscScalar *a;
        PetscScalar       *c;
        KP_OK(VecGetArrayRead(*v, &a));
        KP_OK(VecGetArrayWrite(w, &c));
        for (PetscInt i = 0; i < 33 * 33; i++) c[i] = a[i];
        KP_OK(VecRestoreArrayWrite(w, &c));
        KP_OK(VecRestoreArrayRead(*v, &a));
      }
      KP_OK(VecDestroy(v));
      *v = w;
    }
    KP_OK(PCPSORMGSetVariableBounds(q.pc, q.lo, q.up));
    ASSERT_EQ((int)p.Solve(&msg), 0) << msg;
    ASSERT_EQ((int)q.Solve(&msg), 0) << mtype << " operator, " << vtype << " vectors: " << msg;
    KP_OK(KSPGetIterationNumber(p.ksp, &itp));
    KP_OK(KSPGetIterationNumber(q.ksp, &itq));
    EXPECT_GT(itq, 0);
    EXPECT_EQ(itp, itq) << mtype << " operator, " << vtype << " vectors";
    KP_OK(VecNorm(p.x, NORM_INFINITY, &nx));
    KP_OK(VecAXPY(p.x, -1.0, q.x));
    KP_OK(VecNorm(p.x, NORM_INFINITY, &d));
    EXPECT_LE(d, 1e-10 * nx) << mtype << " operator, " << vtype << " vectors";
  }
}

INSTANTIATE_TEST_SUITE_P(DeviceSetup, PsormgPC, ::testing::Bool());

/* every setter checks its argument and names the option with the PC's prefix; getters return what was set */
TEST(PsormgPC, OptionsAreCheckedAndNamedWithThePrefix)
{
  PC          pc;
  std::string msg;
  KP_OK(PCCreate(PETSC_COMM_SELF, &pc));
  KP_OK(PCSetType(pc, PCPSORMG));
  KP_OK(PCSetOptionsPrefix(pc, "sub_"));
  auto expect_error = [&](PetscErrorCode ierr, const char *option) {
    EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE) << option;
    EXPECT_NE(msg.find(std::string("-sub_pc_psormg_") + option), std::string::npos) << msg;
    msg.clear();
  };
  PetscPushErrorHandler(CaptureError, &msg);
  expect_error(PCPSORMGSetLevels(pc, -1), "levels");
  expect_error(PCPSORMGSetCoarseSize(pc, 0), "coarse_size");
  expect_error(PCPSORMGSetCycleType(pc, (PCMGCycleType)0), "cycle_type");
  expect_error(PCPSORMGSetCycleType(pc, (PCMGCycleType)7), "cycle_type");
  expect_error(PCPSORMGSetSmooths(pc, -1, 2), "pre_smooths");
  expect_error(PCPSORMGSetSmooths(pc, 0, 0), "post_smooths");
  expect_error(PCPSORMGSetOmega(pc, 2.0), "omega");
  expect_error(PCPSORMGSetOmega(pc, (PetscReal)NAN), "omega");
  expect_error(PCPSORMGSetCoarseSolve(pc, 0.0, 10, 1e-8), "coarse_omega");
  expect_error(PCPSORMGSetCoarseSolve(pc, 1.2, 0, 1e-8), "coarse_max_it");
  expect_error(PCPSORMGSetCoarseSolve(pc, 1.2, 10, (PetscReal)NAN), "coarse_rtol");
  expect_error(PCPSORMGSetCoarseSolve(pc, 1.2, 10, -1.0), "coarse_rtol");
  expect_error(PCPSORMGSetObstacleRestriction(pc, (PCPSORMGObstacleRestriction)5), "obstacle_restriction");
  expect_error(PCPSORMGSetObstacleRestriction(pc, (PCPSORMGObstacleRestriction)3), "obstacle_restriction");
  expect_error(PCPSORMGSetObstacleRestriction(pc, (PCPSORMGObstacleRestriction)-1), "obstacle_restriction");
  expect_error(PCPSORMGSetEdgeInterpolation(pc, (PCPSORMGEdgeInterpolation)-1), "edge_interpolation");
  PetscPopErrorHandler();

  /* the default restriction is the monotone one (truncated on request) */
  {
    PCPSORMGObstacleRestriction r;
    KP_OK(PCPSORMGGetObstacleRestriction(pc, &r));
    EXPECT_EQ(r, PC_PSORMG_OBSTACLE_MONOTONE);
  }

  /* set, then get */
  {
    PetscInt                    levels, csize, pre, post, cmax;
    PetscReal                   omega, comega, crtol;
    PCMGCycleType               cycle;
    PCPSORMGObstacleRestriction r;
    PCPSORMGEdgeInterpolation   e;
    PetscBool                   proj, dev;
    KP_OK(PCPSORMGSetCoarseSize(pc, 9));
    KP_OK(PCPSORMGSetCycleType(pc, PC_MG_CYCLE_W));
    KP_OK(PCPSORMGSetSmooths(pc, 3, 0));
    KP_OK(PCPSORMGSetOmega(pc, 1.25));
    KP_OK(PCPSORMGSetCoarseSolve(pc, 1.4, 77, 1e-6));
    KP_OK(PCPSORMGSetObstacleRestriction(pc, PC_PSORMG_OBSTACLE_LINEAR));
    KP_OK(PCPSORMGSetEdgeInterpolation(pc, PC_PSORMG_EDGE_CONSTANT));
    KP_OK(PCPSORMGSetProjectCorrection(pc, PETSC_FALSE));
    KP_OK(PCPSORMGSetDeviceSetup(pc, PETSC_FALSE));
    KP_OK(PCPSORMGGetLevels(pc, &levels));
    KP_OK(PCPSORMGGetCoarseSize(pc, &csize));
    KP_OK(PCPSORMGGetCycleType(pc, &cycle));
    KP_OK(PCPSORMGGetSmooths(pc, &pre, &post));
    KP_OK(PCPSORMGGetOmega(pc, &omega));
    KP_OK(PCPSORMGGetCoarseSolve(pc, &comega, &cmax, &crtol));
    KP_OK(PCPSORMGGetObstacleRestriction(pc, &r));
    KP_OK(PCPSORMGGetEdgeInterpolation(pc, &e));
    KP_OK(PCPSORMGGetProjectCorrection(pc, &proj));
    KP_OK(PCPSORMGGetDeviceSetup(pc, &dev));
    EXPECT_EQ(levels, 0); /* nothing built yet */
    EXPECT_EQ(csize, 9);
    EXPECT_EQ(cycle, PC_MG_CYCLE_W);
    EXPECT_EQ(pre, 3);
    EXPECT_EQ(post, 0);
    EXPECT_EQ(omega, 1.25);
    EXPECT_EQ(comega, 1.4);
    EXPECT_EQ(cmax, 77);
    EXPECT_EQ(crtol, 1e-6);
    EXPECT_EQ(r, PC_PSORMG_OBSTACLE_LINEAR);
    EXPECT_EQ(e, PC_PSORMG_EDGE_CONSTANT);
    EXPECT_EQ(proj, PETSC_FALSE);
    EXPECT_EQ(dev, PETSC_FALSE);
  }

  /* from the options database: values go through the setters; the cycle types are v and w only */
  {
    const char *bad[][2] = {{"-sub_pc_psormg_coarse_rtol", "nan"}, {"-sub_pc_psormg_coarse_max_it", "-3"}, {"-sub_pc_psormg_coarse_omega", "2.5"}, {"-sub_pc_psormg_coarse_size", "0"}, {"-sub_pc_psormg_omega", "inf"}};
    for (auto &o : bad) {
      KP_OK(PetscOptionsSetValue(NULL, o[0], o[1]));
      PetscPushErrorHandler(CaptureError, &msg);
      PetscErrorCode ierr = PCSetFromOptions(pc);
      PetscPopErrorHandler();
      EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE) << o[0] << " " << o[1] << ": " << msg;
      EXPECT_TRUE(kptest::NamesOption(msg, o[0])) << msg;
      msg.clear();
      KP_OK(PetscOptionsClearValue(NULL, o[0]));
    }
    PCMGCycleType cycle;
    KP_OK(PetscOptionsSetValue(NULL, "-sub_pc_psormg_cycle_type", "v"));
    KP_OK(PCSetFromOptions(pc));
    KP_OK(PCPSORMGGetCycleType(pc, &cycle));
    EXPECT_EQ(cycle, PC_MG_CYCLE_V);
    KP_OK(PetscOptionsSetValue(NULL, "-sub_pc_psormg_cycle_type", "invalid"));
    PetscPushErrorHandler(CaptureError, &msg);
    PetscErrorCode ierr = PCSetFromOptions(pc);
    PetscPopErrorHandler();
    EXPECT_NE((int)ierr, 0) << "-sub_pc_psormg_cycle_type invalid was accepted";
    EXPECT_EQ(msg.find("-sub_pc_psormg_cycle_type must be"), std::string::npos) << "'invalid' was offered as a cycle type: " << msg;
    msg.clear();
    KP_OK(PetscOptionsClearValue(NULL, "-sub_pc_psormg_cycle_type"));
    /* the restrictions by name */
    for (auto rr : {PC_PSORMG_OBSTACLE_MONOTONE, PC_PSORMG_OBSTACLE_TRUNCATED, PC_PSORMG_OBSTACLE_LINEAR}) {
      PCPSORMGObstacleRestriction got;
      KP_OK(PetscOptionsSetValue(NULL, "-sub_pc_psormg_obstacle_restriction", PCPSORMGObstacleRestrictions[rr]));
      KP_OK(PCSetFromOptions(pc));
      KP_OK(PCPSORMGGetObstacleRestriction(pc, &got));
      EXPECT_EQ(got, rr) << PCPSORMGObstacleRestrictions[rr];
    }
    KP_OK(PetscOptionsClearValue(NULL, "-sub_pc_psormg_obstacle_restriction"));
  }
  KP_OK(PCDestroy(&pc));
}

/* a rectangular operator is refused with an error that says it must be square (it used to fail deep in the setup with
   "sizes of R, A and P do not chain", or a wrong zero-diagonal message under MPI) */
TEST(Psormg, RectangularOperatorIsAnError)
{
  Mat A;
  PC  pc;
  MatCreateSeqAIJ(PETSC_COMM_SELF, 10, 11, 2, NULL, &A);
  for (PetscInt i = 0; i < 10; i++) MatSetValue(A, i, i, 2.0, INSERT_VALUES);
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  PCCreate(PETSC_COMM_SELF, &pc);
  PCSetType(pc, PCPSORMG);
  PCSetOperators(pc, A, A);
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  PetscErrorCode ierr = PCSetUp(pc);
  PetscPopErrorHandler();
  EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_SIZ);
  PCDestroy(&pc);
  MatDestroy(&A);
}
