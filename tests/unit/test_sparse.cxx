/* Unit tests of src/sys/kp_sparse: CSR and SELL-C construction, SpMV, value refresh, diagonal, value scaling, row
   flags. */
#include "kp_test.hpp"
#include "kp_sparse.hpp"
#include "kp_segsort.hpp"
#include <algorithm>

using namespace kptest;

static CsrMatrix MakeDeviceCsr(const HostCsr &h)
{
  CsrMatrix A;
  auto      rp = ToDevice(h.rowptr), ci = ToDevice(h.colidx);
  auto      v  = ToDevice(h.vals);
  CsrFromArrays(h.nrows, h.ncols, UView<const Int>(rp.data(), rp.extent(0)), UView<const Int>(ci.data(), ci.extent(0)), UView<const Scalar>(v.data(), v.extent(0)), A);
  return A;
}

class SparseSizes : public ::testing::TestWithParam<Int> { };

TEST_P(SparseSizes, CsrAndSellSpmvMatchReference)
{
  const Int n = GetParam();
  for (Int ncols : {n, n + 7}) {
    HostCsr    h = RandomCsr(n, ncols, 17 + (unsigned)n);
    CsrMatrix  A = MakeDeviceCsr(h);
    SellMatrix S;
    SellFromCsr(A, S);
    EXPECT_EQ(S.nnz, (Int)h.vals.size());
    EXPECT_GE(S.stored, S.nnz);
    auto x   = RandomVector(ncols, 3);
    auto y0  = RandomVector(n, 5);
    auto ref = RefSpmv(h, x);
    auto dx  = ToDevice(x);
    for (int fmt = 0; fmt < 2; fmt++) {
      /* beta = 0 must not read y: poison it with NaN */
      auto dy = ToDevice(std::vector<Scalar>(n, NAN));
      if (fmt == 0) Spmv(A, 1.0, UView<const Scalar>(dx.data(), ncols), 0.0, UView<Scalar>(dy.data(), n));
      else Spmv(S, 1.0, UView<const Scalar>(dx.data(), ncols), 0.0, UView<Scalar>(dy.data(), n));
      EXPECT_LE(RelErr(ToHost(dy), ref), 1e-14) << "format " << fmt << " n " << n;
      /* y = 2 A x - 0.5 y0 */
      auto dz = ToDevice(y0);
      if (fmt == 0) Spmv(A, 2.0, UView<const Scalar>(dx.data(), ncols), -0.5, UView<Scalar>(dz.data(), n));
      else Spmv(S, 2.0, UView<const Scalar>(dx.data(), ncols), -0.5, UView<Scalar>(dz.data(), n));
      std::vector<Scalar> ref2(n);
      for (Int i = 0; i < n; i++) ref2[i] = 2.0 * ref[i] - 0.5 * y0[i];
      EXPECT_LE(RelErr(ToHost(dz), ref2), 1e-14) << "format " << fmt << " n " << n;
    }
  }
}

/* T = A^T: every entry (i, j, v) of A appears once as (j, i, v) in T; y = A^T x by the team kernel on T */
TEST_P(SparseSizes, TransposeAndTeamSpmvMatchReference)
{
  const Int n = GetParam();
  for (Int ncols : {std::max<Int>(1, n / 7), n + 3})
    for (bool sorted : {false, true}) {
    HostCsr   h = RandomCsr(n, ncols, 23 + (unsigned)n);
    CsrMatrix A = MakeDeviceCsr(h), T;
    CsrTranspose(A, T, sorted);
    ASSERT_EQ(T.nrows, ncols);
    ASSERT_EQ(T.ncols, n);
    ASSERT_EQ(T.nnz, (Int)h.vals.size());
    auto trp = ToHost(T.rowptr);
    auto tci = ToHost(T.colidx);
    auto tv  = ToHost(T.vals);
    std::vector<std::vector<std::pair<Int, Scalar>>> ref(ncols), got(ncols);
    for (Int i = 0; i < n; i++)
      for (Int q = h.rowptr[i]; q < h.rowptr[i + 1]; q++) ref[h.colidx[q]].push_back({i, h.vals[q]});
    for (Int c = 0; c < ncols; c++) {
      for (Int q = trp[c]; q < trp[c + 1]; q++) got[c].push_back({(Int)tci[q], tv[q]});
      if (sorted) EXPECT_TRUE(std::is_sorted(got[c].begin(), got[c].end())) << "row " << c << " of the sorted transpose";
      std::sort(got[c].begin(), got[c].end());
      EXPECT_EQ(got[c], ref[c]) << "row " << c << " of the transpose, n " << n;
    }
    /* y = A^T x with one team per row of T, beta = 0 (y not read) and beta != 0 */
    auto                x = RandomVector(n, 7), y0 = RandomVector(ncols, 8);
    std::vector<Scalar> yref(ncols, 0.0), yref2(ncols);
    for (Int i = 0; i < n; i++)
      for (Int q = h.rowptr[i]; q < h.rowptr[i + 1]; q++) yref[h.colidx[q]] += h.vals[q] * x[i];
    for (Int c = 0; c < ncols; c++) yref2[c] = -2.0 * yref[c] + 0.25 * y0[c];
    auto dx = ToDevice(x);
    auto dy = ToDevice(std::vector<Scalar>(ncols, NAN));
    SpmvTeam(T, 1.0, UView<const Scalar>(dx.data(), n), 0.0, UView<Scalar>(dy.data(), ncols));
    EXPECT_LE(RelErr(ToHost(dy), yref), 1e-13) << "n " << n;
    auto dz = ToDevice(y0);
    SpmvTeam(T, -2.0, UView<const Scalar>(dx.data(), n), 0.25, UView<Scalar>(dz.data(), ncols));
    EXPECT_LE(RelErr(ToHost(dz), yref2), 1e-13) << "n " << n;
    }
}

TEST_P(SparseSizes, ValueRefreshKeepsPattern)
{
  const Int  n = GetParam();
  HostCsr    h = RandomCsr(n, n, 29 + (unsigned)n);
  CsrMatrix  A = MakeDeviceCsr(h);
  SellMatrix S;
  SellFromCsr(A, S);
  for (auto &v : h.vals) v = 3.0 * v + 1.0;
  auto nv = ToDevice(h.vals);
  CsrUpdateValues(A, UView<const Scalar>(nv.data(), nv.extent(0)));
  SellUpdateValues(S, UView<const Scalar>(nv.data(), nv.extent(0)));
  auto x   = RandomVector(n, 7);
  auto ref = RefSpmv(h, x);
  auto dx  = ToDevice(x);
  auto dy  = ToDevice(std::vector<Scalar>(n, 0));
  Spmv(A, 1.0, UView<const Scalar>(dx.data(), n), 0.0, UView<Scalar>(dy.data(), n));
  EXPECT_LE(RelErr(ToHost(dy), ref), 1e-14);
  Spmv(S, 1.0, UView<const Scalar>(dx.data(), n), 0.0, UView<Scalar>(dy.data(), n));
  EXPECT_LE(RelErr(ToHost(dy), ref), 1e-14);
}

TEST_P(SparseSizes, Diagonal)
{
  const Int n = GetParam();
  HostCsr   h = RandomCsr(n, n, 41 + (unsigned)n);
  CsrMatrix A = MakeDeviceCsr(h);
  std::vector<Scalar> ref(n, 0);
  for (Int i = 0; i < n; i++)
    for (Int k = h.rowptr[i]; k < h.rowptr[i + 1]; k++)
      if (h.colidx[k] == i) ref[i] += h.vals[k];
  auto d = ToDevice(std::vector<Scalar>(n, NAN));
  CsrDiagonal(A, UView<Scalar>(d.data(), n));
  EXPECT_LE(RelErr(ToHost(d), ref), 0.0);
}

/* A.vals = left(i) vals0(k) right(j) with either scaling absent; a 0/1 mask zeroes rows / columns, the kept values
   come back from vals0 */
TEST_P(SparseSizes, ScaleValuesMatchesReference)
{
  const Int n = GetParam();
  for (Int ncols : {n, n / 3 + 2}) {
    HostCsr   h = RandomCsr(n, ncols, 47 + (unsigned)n);
    CsrMatrix A = MakeDeviceCsr(h);
    auto      l = RandomVector(n, 11), r = RandomVector(ncols, 13);
    for (Int i = 0; i < n; i += 3) l[i] = 0;     /* mask-like zeros */
    for (Int j = 1; j < ncols; j += 4) r[j] = 0;
    auto v0 = RandomVector((Int)h.vals.size(), 17);
    auto dl = ToDevice(l), dr = ToDevice(r), dv0 = ToDevice(v0);
    for (int mode = 0; mode < 4; mode++) {
      const bool          useleft = mode & 1, useright = mode & 2;
      std::vector<Scalar> ref(h.vals.size());
      for (Int i = 0; i < n; i++)
        for (Int k = h.rowptr[i]; k < h.rowptr[i + 1]; k++) ref[k] = (useleft ? l[i] : 1.0) * v0[k] * (useright ? r[h.colidx[k]] : 1.0);
      if (A.nnz) Kokkos::deep_copy(A.vals, NAN);
      CsrScaleValues(A, ucv(dv0), useleft ? ucv(dl) : UView<const Scalar>(), useright ? ucv(dr) : UView<const Scalar>());
      EXPECT_LE(RelErr(ToHost(A.vals), ref), 1e-15) << "n " << n << " mode " << mode;
    }
  }
}

/* the flagged scaling rewrites exactly the rows with rowflag set or with a flagged column, from vals0; the other rows
   keep what they hold */
TEST_P(SparseSizes, ScaleValuesFlaggedRewritesChangedRowsOnly)
{
  const Int n = GetParam();
  for (Int ncols : {n, n / 3 + 2}) {
    HostCsr   h = RandomCsr(n, ncols, 59 + (unsigned)n);
    CsrMatrix A = MakeDeviceCsr(h);
    auto      l = RandomVector(n, 19), r = RandomVector(ncols, 23), v0 = RandomVector((Int)h.vals.size(), 29);
    std::vector<Int> rf(n, 0), cf(ncols, 0);
    for (Int i = 0; i < n; i += 7) rf[i] = 1;
    for (Int j = 2; j < ncols; j += 11) cf[j] = 1;
    auto dl = ToDevice(l), dr = ToDevice(r), dv0 = ToDevice(v0);
    auto drf = ToDevice(rf), dcf = ToDevice(cf);
    for (int mode = 0; mode < 4; mode++) {
      const bool          userow = mode & 1, usecol = mode & 2;
      std::vector<Scalar> ref(h.vals.size(), -7.0);
      for (Int i = 0; i < n; i++) {
        bool f = userow && rf[i];
        for (Int k = h.rowptr[i]; k < h.rowptr[i + 1]; k++)
          if (usecol && cf[h.colidx[k]]) f = true;
        if (f)
          for (Int k = h.rowptr[i]; k < h.rowptr[i + 1]; k++) ref[k] = l[i] * v0[k] * r[h.colidx[k]];
      }
      if (A.nnz) Kokkos::deep_copy(A.vals, -7.0);
      CsrScaleValues(A, ucv(dv0), ucv(dl), ucv(dr), userow ? ucv(drf) : UView<const Int>(), usecol ? ucv(dcf) : UView<const Int>());
      EXPECT_LE(RelErr(ToHost(A.vals), ref), 1e-15) << "n " << n << " mode " << mode;
    }
  }
}

/* rowflag(i) = some column of row i flagged (or i itself with self) */
TEST_P(SparseSizes, FlagRowsMatchesReference)
{
  const Int n = GetParam();
  for (Int ncols : {n, n / 3 + 2})
    for (bool self : {false, true}) {
      if (self && ncols != n) continue;
      HostCsr          h = RandomCsr(n, ncols, 53 + (unsigned)n);
      CsrMatrix        A = MakeDeviceCsr(h);
      std::vector<Int> cf(ncols, 0), ref(n, 0);
      for (Int j = 0; j < ncols; j++) cf[j] = (j * 7919) % 13 == 0 ? 1 : 0;
      Int cnt = 0;
      for (Int i = 0; i < n; i++) {
        ref[i] = self && cf[i] ? 1 : 0;
        for (Int k = h.rowptr[i]; k < h.rowptr[i + 1]; k++)
          if (cf[h.colidx[k]]) ref[i] = 1;
        cnt += ref[i];
      }
      auto dcf = ToDevice(cf), drf = ToDevice(std::vector<Int>(n, -1));
      EXPECT_EQ(CsrFlagRows(A, ucv(dcf), self, drf), cnt) << "n " << n;
      EXPECT_EQ(ToHost(drf), ref) << "n " << n << " self " << self;
    }
}

INSTANTIATE_TEST_SUITE_P(Sizes, SparseSizes, ::testing::ValuesIn(Sizes()));

TEST(Sparse, SellPaddingOfUnevenRows)
{
  /* one long row in a slice of short rows: padding must contribute nothing */
  HostCsr h;
  h.nrows = h.ncols = 40;
  h.rowptr.push_back(0);
  for (Int i = 0; i < 40; i++) {
    Int len = i == 3 ? 40 : 1;
    for (Int k = 0; k < len; k++) {
      h.colidx.push_back(len == 1 ? i : k);
      h.vals.push_back(1.0 + k);
    }
    h.rowptr.push_back((Int)h.colidx.size());
  }
  CsrMatrix  A = MakeDeviceCsr(h);
  SellMatrix S;
  SellFromCsr(A, S);
  EXPECT_EQ(S.stored, 40 * 32 + 1 * 32);
  auto x  = RandomVector(40, 9);
  auto dx = ToDevice(x);
  auto dy = ToDevice(std::vector<Scalar>(40, NAN));
  Spmv(S, 1.0, UView<const Scalar>(dx.data(), 40), 0.0, UView<Scalar>(dy.data(), 40));
  EXPECT_LE(RelErr(ToHost(dy), RefSpmv(h, x)), 1e-14);
}
