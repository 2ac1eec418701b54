/* Unit tests of src/sys/kp_tridiag: batched Thomas and PCR-Thomas solves in both layouts, the shifted shared-matrix
   form, in-place (aliased) solves and zero-pivot reporting, against a serial reference (dense-free Thomas in long
   double plus residual checks). */
#include "kp_test.hpp"
#include "kp_tridiag.hpp"
#include "kp_tridiag_impl.hpp"
#include "kp_segsort.hpp"

using namespace kptest;

namespace
{
/* plain serial Thomas in long double on one system given as row vectors */
std::vector<Scalar> RefThomas(const std::vector<Scalar> &a, const std::vector<Scalar> &b, const std::vector<Scalar> &c, const std::vector<Scalar> &f)
{
  const size_t             n = b.size();
  std::vector<long double> w(n), y(n);
  std::vector<Scalar>      x(n);
  for (size_t l = 0; l < n; l++) {
    long double al  = l ? (long double)a[l] : 0.0L;
    long double piv = (long double)b[l] - al * (l ? w[l - 1] : 0.0L);
    w[l]            = l + 1 < n ? (long double)c[l] / piv : 0.0L;
    y[l]            = ((long double)f[l] - al * (l ? y[l - 1] : 0.0L)) / piv;
  }
  for (size_t l = n; l-- > 0;) {
    if (l + 1 < n) y[l] -= w[l] * y[l + 1];
    x[l] = (Scalar)y[l];
  }
  return x;
}

struct Batch {
  TridiagShape        shape;
  std::vector<Scalar> a, b, c, f; /* in the batch layout */
};

/* diagonally dominant random systems (sub/super diagonals of either sign) */
Batch RandomBatch(Int nsys, Int n, TridiagLayout layout, unsigned seed)
{
  Batch B;
  B.shape = {nsys, n, layout};
  B.a     = RandomVector(nsys * n, seed);
  B.c     = RandomVector(nsys * n, seed + 1);
  B.b     = RandomVector(nsys * n, seed + 2, 2.5, 4.0);
  B.f     = RandomVector(nsys * n, seed + 3);
  return B;
}

std::vector<Scalar> Row(const std::vector<Scalar> &v, const TridiagShape &sh, Int s)
{
  std::vector<Scalar> r(sh.n);
  for (Int l = 0; l < sh.n; l++) r[l] = v[sh.index(s, l)];
  return r;
}

std::vector<Scalar> RefBatch(const Batch &B)
{
  std::vector<Scalar> x(B.shape.size());
  for (Int s = 0; s < B.shape.nsys; s++) {
    auto xs = RefThomas(Row(B.a, B.shape, s), Row(B.b, B.shape, s), Row(B.c, B.shape, s), Row(B.f, B.shape, s));
    for (Int l = 0; l < B.shape.n; l++) x[B.shape.index(s, l)] = xs[l];
  }
  return x;
}

/* Auto, Thomas and PCR-Thomas with 1, 3, 6 steps (large problems: Thomas and 3 PCR steps, to keep CPU time small) */
std::vector<TridiagOptions> AllOptions(Int size = 0)
{
  std::vector<TridiagOptions> o;
  if (size <= 100000) o.push_back(TridiagOptions());
  for (Int k : {0, 1, 3, 6}) {
    if (size > 100000 && (k == 1 || k == 6)) continue;
    TridiagOptions t;
    t.alg       = k == 0 ? TridiagAlgorithm::Thomas : TridiagAlgorithm::PCRThomas;
    t.pcr_steps = k;
    o.push_back(t);
  }
  /* the partition method with 2, 3, 7 and 64 chunks (capped at n/2 chunks of 2 rows) */
  for (Int P : {2, 3, 7, 64}) {
    if (size > 100000 && P != 7) continue;
    TridiagOptions t;
    t.alg    = TridiagAlgorithm::Partition;
    t.chunks = P;
    o.push_back(t);
  }
  /* the team solver with 1, 2, 8 rows per thread (1: every row a separator, all by cyclic reduction) */
  for (Int C : {1, 2, 8}) {
    if (size > 100000 && C != 8) continue;
    TridiagOptions t;
    t.alg       = TridiagAlgorithm::Team;
    t.team_rows = C;
    o.push_back(t);
  }
  return o;
}

/* solve on the device out of place and in place; compare with the reference */
void SolveAndCompare(const Batch &B, const TridiagOptions &opt, double tol)
{
  const Int N = B.shape.size();
  auto      da = ToDevice(B.a), db = ToDevice(B.b), dc = ToDevice(B.c), df = ToDevice(B.f);
  auto      ref = RefBatch(B);
  View<Int> st("status", B.shape.nsys);
  Kokkos::deep_copy(st, (Int)-5);
  for (int inplace = 0; inplace < 2; inplace++) {
    auto        dx = inplace ? ToDevice(B.f) : ToDevice(std::vector<Scalar>(N, NAN));
    TridiagWork work;
    TridiagSolveBatched(B.shape, ucv(da), ucv(db), ucv(dc), inplace ? ucv(dx) : ucv(df), uv(dx), uv(st), opt, inplace ? &work : nullptr);
    EXPECT_LE(RelErr(ToHost(dx), ref), tol) << "nsys " << B.shape.nsys << " n " << B.shape.n << " steps " << opt.pcr_steps << " chunks " << opt.chunks << " team rows " << opt.team_rows << " inplace " << inplace;
    EXPECT_EQ(TridiagCountFailures(ucv(st)), 0);
  }
}
} // namespace

TEST(Tridiag, FewLongSystems)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    for (TridiagLayout lay : {TridiagLayout::Interleaved, TridiagLayout::Contiguous})
      for (auto &opt : AllOptions(3 * n)) SolveAndCompare(RandomBatch(3, n, lay, 7 + (unsigned)n), opt, 1e-14);
  }
}

TEST(Tridiag, ManyShortSystems)
{
  for (const Int nsys : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(nsys));
    for (TridiagLayout lay : {TridiagLayout::Interleaved, TridiagLayout::Contiguous})
      for (Int n : {1, 2, 7})
        for (auto &opt : AllOptions(nsys * n)) SolveAndCompare(RandomBatch(nsys, n, lay, 11 + (unsigned)nsys), opt, 1e-14);
  }
}

TEST(Tridiag, ShiftedSharedMatrix)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    /* (A + shift_s M) x_s = f_s, with A, M the 1D FE stiffness and mass matrices of a non-uniform mesh (PSCR's
       A2 + (lambda + c) M2), identity M, and no shift (one matrix, many right-hand sides) */
    const Int nsys = n > 1000 ? 5 : 37;
    std::mt19937 g(3 + (unsigned)n);
    std::vector<Scalar> h(n + 1);
    for (auto &x : h) x = std::uniform_real_distribution<double>(0.5, 1.5)(g);
    std::vector<Scalar> al(n), ad(n), au(n), ml(n), md(n), mu(n);
    for (Int l = 0; l < n; l++) {
      ad[l] = 1.0 / h[l] + 1.0 / h[l + 1];
      md[l] = (h[l] + h[l + 1]) / 3.0;
      al[l] = l ? -1.0 / h[l] : 99.0; /* unused entries hold junk: they must not be read */
      ml[l] = l ? h[l] / 6.0 : 99.0;
      au[l] = l + 1 < n ? -1.0 / h[l + 1] : 99.0;
      mu[l] = l + 1 < n ? h[l + 1] / 6.0 : 99.0;
    }
    auto shifts = RandomVector(nsys, 5, 0.0, 10.0);
    auto dal = ToDevice(al), dad = ToDevice(ad), dau = ToDevice(au), dml = ToDevice(ml), dmd = ToDevice(md), dmu = ToDevice(mu), dsh = ToDevice(shifts);
    UView<const Scalar> none;
    for (int variant = 0; variant < 3; variant++)
      for (TridiagLayout lay : {TridiagLayout::Interleaved, TridiagLayout::Contiguous})
        for (auto &opt : AllOptions(nsys * n)) {
          Batch B;
          B.shape = {nsys, n, lay};
          B.f     = RandomVector(nsys * n, 9);
          B.a.resize(nsys * n);
          B.b.resize(nsys * n);
          B.c.resize(nsys * n);
          for (Int s = 0; s < nsys; s++)
            for (Int l = 0; l < n; l++) {
              const Int    p  = B.shape.index(s, l);
              const Scalar sh = variant == 2 ? 0.0 : shifts[s];
              B.a[p]          = variant == 0 ? al[l] + sh * ml[l] : al[l];
              B.b[p]          = variant == 0 ? ad[l] + sh * md[l] : ad[l] + sh;
              B.c[p]          = variant == 0 ? au[l] + sh * mu[l] : au[l];
            }
          auto df = ToDevice(B.f), dx = ToDevice(std::vector<Scalar>(nsys * n, NAN));
          TridiagSolveShifted(B.shape, ucv(dal), ucv(dad), ucv(dau), variant == 0 ? ucv(dml) : none, variant == 0 ? ucv(dmd) : none, variant == 0 ? ucv(dmu) : none, variant == 2 ? none : ucv(dsh), ucv(df), uv(dx), UView<Int>(), opt);
          /* the (well-conditioned for shift > 0) stiffness + mass systems; the unshifted one is an SPD Laplacian with
             condition ~ n^2, hence the looser tolerance */
          EXPECT_LE(RelErr(ToHost(dx), RefBatch(B)), variant == 2 ? 1e-14 * (1.0 + (double)n * n) : 1e-13) << "variant " << variant << " n " << n;
        }
  }
}

TEST(Tridiag, ZeroPivotIsReportedNotFatal)
{
  /* 4 systems of 2 rows, contiguous: system 1 has b0 = 0, system 2 is [[1,1],[1,1]] (second pivot exactly 0),
     system 3 has a tiny second pivot caught only with a pivot tolerance */
  for (auto &opt : AllOptions())
    for (Real pivtol : {0.0, 1e-8}) {
      TridiagShape        sh{4, 2, TridiagLayout::Contiguous};
      std::vector<Scalar> a = {0, 1, 0, 1, 0, 1, 0, 1}, b = {2, 2, 0, 2, 1, 1, 1, 1 + 1e-12}, c = {1, 0, 1, 0, 1, 0, 1, 0}, f = {1, 1, 1, 1, 1, 1, 1, 1};
      auto                da = ToDevice(a), db = ToDevice(b), dc = ToDevice(c), dx = ToDevice(f);
      View<Int>           st("status", 4);
      TridiagOptions      o = opt;
      o.pivtol              = pivtol;
      TridiagSolveBatched(sh, ucv(da), ucv(db), ucv(dc), ucv(dx), uv(dx), uv(st), o);
      auto hs = ToHost(st);
      auto hx = ToHost(dx);
      /* the team solver with one row per thread eliminates in another order (row 1 first): system 1 is then
         regular and solved exactly, x = (-1, 1) */
      const bool other = o.alg == TridiagAlgorithm::Team && o.team_rows == 1;
      EXPECT_EQ(hs[0], 0);
      EXPECT_EQ(hs[1] != 0, !other);
      EXPECT_NE(hs[2], 0);
      EXPECT_EQ(hs[3] != 0, pivtol > 0);
      EXPECT_EQ(TridiagCountFailures(ucv(st)), (pivtol > 0 ? 3 : 2) - (other ? 1 : 0));
      /* good system solved; failed systems are NaN, never a silent wrong answer */
      EXPECT_NEAR(hx[0], 1.0 / 3.0, 1e-15);
      EXPECT_NEAR(hx[1], 1.0 / 3.0, 1e-15);
      if (other) {
        EXPECT_NEAR(hx[2], -1.0, 1e-15);
        EXPECT_NEAR(hx[3], 1.0, 1e-15);
      }
      for (Int p = other ? 4 : 2; p < 6; p++) EXPECT_TRUE(std::isnan(hx[p]));
      if (pivtol > 0) EXPECT_TRUE(std::isnan(hx[6]) && std::isnan(hx[7]));
      else EXPECT_TRUE(std::isfinite(hx[6]) && std::isfinite(hx[7]));
    }
}

TEST(Tridiag, DiagonalOnlyAndEmptyShapes)
{
  /* zero off-diagonals: x = f / b; nsys = 0 or n = 0 must do nothing */
  TridiagShape        sh{5, 4, TridiagLayout::Interleaved};
  std::vector<Scalar> z(20, 0), b = RandomVector(20, 3, 1, 2), f = RandomVector(20, 4), ref(20);
  for (int p = 0; p < 20; p++) ref[p] = f[p] / b[p];
  auto dz = ToDevice(z), db = ToDevice(b), df = ToDevice(f), dx = ToDevice(std::vector<Scalar>(20, NAN));
  for (auto &opt : AllOptions()) {
    TridiagSolveBatched(sh, ucv(dz), ucv(db), ucv(dz), ucv(df), uv(dx), UView<Int>(), opt);
    EXPECT_LE(RelErr(ToHost(dx), ref), 1e-16);
  }
  View<Int> st("status", 3);
  Kokkos::deep_copy(st, (Int)7);
  TridiagSolveBatched({3, 0, TridiagLayout::Contiguous}, ucv(dz), ucv(db), ucv(dz), ucv(df), uv(dx), uv(st));
  EXPECT_EQ(TridiagCountFailures(ucv(st)), 0);
  TridiagSolveBatched({0, 4, TridiagLayout::Contiguous}, ucv(dz), ucv(db), ucv(dz), ucv(df), uv(dx), UView<Int>());
}

/* ---- the team solver's interior-Toeplitz recurrences (tridiag_detail::TeamToeplitzSolve): systems with constant
   interior rows and their own end rows, against the serial Thomas reference */
namespace
{
/* system s: interior (a, b_s), ends b0_s, bn_s; the recurrences only where toeplitz() says so */
template <int C>
struct ToeplitzCoef {
  Scalar a = 0, b = 0, db = 0, b0 = 0, bn = 0;
  Int    n = 0;
  bool   on = true;
  struct One {
    Scalar                 a, b, b0, bn;
    Int                    n;
    bool                   on;
    KOKKOS_INLINE_FUNCTION void operator()(Int t, Int j, Scalar &aa, Scalar &bb, Scalar &cc) const
    {
      const Int l = t * C + j;
      aa          = l == 0 ? Scalar(0) : a;
      cc          = l == n - 1 ? Scalar(0) : a;
      bb          = l == 0 ? b0 : (l == n - 1 ? bn : b);
    }
    KOKKOS_INLINE_FUNCTION petsckp::tridiag_detail::ToeplitzRows toeplitz() const { return {a, b, b0, bn, on}; }
  };
  KOKKOS_INLINE_FUNCTION One at(Int s) const { return {a, b + s * db, b0 + s * db, bn + s * db, n, on}; }
};

template <int C>
void ToeplitzCase(Int nsys, Int n, Scalar a, Scalar b, Scalar db, Scalar b0, Scalar bn, bool on, double tol, const std::string &what)
{
  SCOPED_TRACE(what + ", n " + std::to_string(n) + ", C " + std::to_string(C) + (on ? "" : ", general solver"));
  const TridiagShape  sh{nsys, n, TridiagLayout::Contiguous};
  std::vector<Scalar> f = RandomVector(nsys * n, 17 + (unsigned)n), ref(nsys * n);
  for (Int s = 0; s < nsys; s++) {
    const Scalar        bs = b + s * db;
    std::vector<Scalar> al(n, a), bb(n, bs), cu(n, a), fs(f.begin() + s * n, f.begin() + (s + 1) * n);
    if (n > 0) bb[0] = b0 + s * db, bb[n - 1] = n > 1 ? bn + s * db : b0 + s * db;
    auto xs = RefThomas(al, bb, cu, fs);
    std::copy(xs.begin(), xs.end(), ref.begin() + s * n);
  }
  if (n == 1) return; /* one row is both ends: not a form of this accessor */
  if (kDeviceExec && (n + C - 1) / C > 512) return; /* one team holds at most 512 threads */
  auto      df = ToDevice(f), dx = ToDevice(std::vector<Scalar>(nsys * n, NAN));
  View<Int> st("status", nsys);
  Kokkos::deep_copy(st, -1);
  petsckp::tridiag_detail::SolveTeamC<C>(sh, ToeplitzCoef<C>{a, b, db, b0, bn, n, on}, petsckp::tridiag_detail::RhsBatch<petsckp::tridiag_detail::RhsView>{{ucv(df)}, sh}, uv(dx), uv(st), 0);
  EXPECT_LE(RelErr(ToHost(dx), ref), tol);
  EXPECT_EQ(TridiagCountFailures(ucv(st)), 0); /* every status written (-1 would count as a failure), n = 0 too */
}
} // namespace

TEST(Tridiag, TeamToeplitz)
{
  for (const Int n : Sizes()) {
    if (kDeviceExec && n > 8192) continue; /* longer than a team of 512 threads holds at 16 rows a thread */
    for (bool on : {true, false}) {
      /* Dirichlet (the 1D Laplacian shifted by 0.01 .. 0.05: r close to 1), Neumann and Robin ends, strongly dominant
         systems (r small), a = 0, a > 0 and negative definite systems */
      ToeplitzCase<8>(5, n, -1, 2.01, 0.01, 2.01, 2.01, on, 1e-12, "Dirichlet");
      ToeplitzCase<8>(5, n, -1, 2.5, 0.25, 1.25, 1.25, on, 1e-12, "Neumann");
      ToeplitzCase<4>(5, n, -1, 2.5, 0.25, 3.0, 1.75, on, 1e-12, "Robin");
      ToeplitzCase<16>(3, n, 0.3, 1e6, 1.0, 7.0, 1e6, on, 1e-14, "dominant");
      ToeplitzCase<2>(3, n, 0.0, 3.0, 1.0, 2.0, 5.0, on, 1e-15, "diagonal");
      ToeplitzCase<1>(3, n, 1.0, -2.5, -0.5, -2.0, -3.0, on, 1e-13, "negative definite");
      ToeplitzCase<8>(3, n, 1.0, 4.0, 0.0, -4.0, 4.0, on, 1e-12, "indefinite ends");
    }
  }
}
