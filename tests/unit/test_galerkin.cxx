/* Unit tests of src/sys/kp_galerkin: aggregation, restriction/prolongation, Ac = Pr^T A Pc (pattern, values, the
   fine-to-coarse map, numeric refresh) against a serial reference. */
#include "kp_test.hpp"
#include "kp_galerkin.hpp"
#include "kp_segsort.hpp"
#include <algorithm>
#include <map>
#include <set>

using namespace kptest;

namespace
{
CsrMatrix MakeDeviceCsr(const HostCsr &h)
{
  CsrMatrix A;
  auto      rp = ToDevice(h.rowptr), ci = ToDevice(h.colidx);
  auto      v  = ToDevice(h.vals);
  CsrFromArrays(h.nrows, h.ncols, ucv(rp), ucv(ci), ucv(v), A);
  return A;
}

/* random aggregate ids in [-1, nagg): about 5% unaggregated, the last aggregate ids never used (empty) */
std::vector<Int> RandomAgg(Int n, Int nagg, unsigned seed)
{
  std::mt19937     g(seed);
  std::vector<Int> a(n);
  const Int        used = std::max<Int>(1, nagg - 2);
  for (auto &x : a) x = (g() % 20 == 0 || nagg == 0) ? -1 : (Int)(g() % (unsigned)std::min(used, nagg));
  return a;
}

struct RefCoarse {
  std::vector<Int>     rowptr;
  std::vector<Ordinal> colidx;
  std::vector<Scalar>  vals;
  std::vector<Int>     f2c;
};

RefCoarse RefGalerkin(const HostCsr &A, const std::vector<Int> &ar, Int ncr, const std::vector<Int> &ac)
{
  std::vector<std::map<Int, Scalar>> rows(ncr);
  for (Int i = 0; i < A.nrows; i++) /* ascending fine entries: the same summation order as the kernel */
    for (Int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
      if (ar[i] >= 0 && ac[A.colidx[k]] >= 0) rows[ar[i]][ac[A.colidx[k]]] += A.vals[k];
  RefCoarse R;
  R.rowptr.push_back(0);
  for (Int I = 0; I < ncr; I++) {
    for (auto &e : rows[I]) {
      R.colidx.push_back((Ordinal)e.first);
      R.vals.push_back(e.second);
    }
    R.rowptr.push_back((Int)R.colidx.size());
  }
  for (Int i = 0; i < A.nrows; i++)
    for (Int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) {
      Int f = -1;
      if (ar[i] >= 0 && ac[A.colidx[k]] >= 0) {
        Int I = ar[i], J = ac[A.colidx[k]];
        for (Int e = R.rowptr[I]; e < R.rowptr[I + 1]; e++)
          if (R.colidx[e] == J) f = e;
      }
      R.f2c.push_back(f);
    }
  return R;
}

void CheckGalerkin(const HostCsr &h, const std::vector<Int> &ar, Int ncr, const std::vector<Int> &ac, Int ncc)
{
  CsrMatrix   A = MakeDeviceCsr(h);
  Aggregation Pr, Pc;
  auto        dar = ToDevice(ar), dac = ToDevice(ac);
  ASSERT_EQ(AggregationCreate(h.nrows, ncr, ucv(dar), Pr), 0);
  ASSERT_EQ(AggregationCreate(h.ncols, ncc, ucv(dac), Pc), 0);
  CsrMatrix   Ac;
  GalerkinMap map;
  ASSERT_TRUE(GalerkinAggregate(A, Pr, Pc, Ac, map));
  RefCoarse R = RefGalerkin(h, ar, ncr, ac);
  EXPECT_EQ(Ac.nrows, ncr);
  EXPECT_EQ(Ac.ncols, ncc);
  EXPECT_EQ(Ac.nnz, (Int)R.colidx.size());
  EXPECT_EQ(ToHost(Ac.rowptr), R.rowptr);
  EXPECT_EQ(ToHost(Ac.colidx), R.colidx);
  EXPECT_LE(RelErr(ToHost(Ac.vals), R.vals), 1e-15);
  EXPECT_EQ(ToHost(map.fine2coarse), R.f2c);
  /* numeric refresh with new values of the same pattern */
  HostCsr h2 = h;
  for (auto &v : h2.vals) v = 2.5 * v - 0.25;
  auto nv = ToDevice(h2.vals);
  GalerkinAggregateNumeric(ucv(nv), map, Ac);
  RefCoarse R2 = RefGalerkin(h2, ar, ncr, ac);
  EXPECT_LE(RelErr(ToHost(Ac.vals), R2.vals), 1e-15);
}
} // namespace

TEST(Galerkin, AggregationAndTransfers)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    const Int nagg = n / 3 + 2;
    auto      a = RandomAgg(n, nagg, 5 + (unsigned)n);
    auto      da = ToDevice(a);
    Aggregation P;
    EXPECT_EQ(AggregationCreate(n, nagg, ucv(da), P), 0);
    /* members: ascending rows of each aggregate */
    auto ptr = ToHost(P.ptr), rows = ToHost(P.rows);
    std::vector<std::vector<Int>> members(nagg);
    for (Int i = 0; i < n; i++)
      if (a[i] >= 0) members[a[i]].push_back(i);
    Int p = 0, empty = 0;
    for (Int J = 0; J < nagg; J++) {
      EXPECT_EQ(ptr[J], p);
      for (Int i : members[J]) EXPECT_EQ(rows[p++], i);
      empty += members[J].empty();
    }
    EXPECT_EQ(ptr[nagg], p);
    EXPECT_EQ(AggregationCountEmpty(P), empty);
    /* restriction */
    auto                x = RandomVector(n, 11);
    std::vector<Scalar> refc(nagg, 0);
    for (Int i = 0; i < n; i++)
      if (a[i] >= 0) refc[a[i]] += x[i];
    auto dx = ToDevice(x), dyc = ToDevice(std::vector<Scalar>(nagg, NAN));
    AggRestrict(P, ucv(dx), uv(dyc));
    EXPECT_LE(RelErr(ToHost(dyc), refc), 1e-15);
    /* prolongation, beta = 0 (y not read) and beta != 0 */
    auto                xc = RandomVector(nagg, 13);
    auto                y0 = RandomVector(n, 17);
    std::vector<Scalar> ref0(n), ref1(n);
    for (Int i = 0; i < n; i++) {
      ref0[i] = a[i] >= 0 ? 2.0 * xc[a[i]] : 0.0;
      ref1[i] = ref0[i] - 0.5 * y0[i];
    }
    auto dxc = ToDevice(xc), dy = ToDevice(std::vector<Scalar>(n, NAN));
    AggProlong(P, 2.0, ucv(dxc), 0.0, uv(dy));
    EXPECT_LE(RelErr(ToHost(dy), ref0), 0.0);
    auto dy1 = ToDevice(y0);
    AggProlong(P, 2.0, ucv(dxc), -0.5, uv(dy1));
    EXPECT_LE(RelErr(ToHost(dy1), ref1), 1e-15);
  }
}

/* the prolongation as a CSR matrix: one entry 1 at (i, agg(i)) per aggregated row, none elsewhere (serial reference) */
TEST(Galerkin, AggregationToCsrMatchesReference)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    const Int   nagg = n / 4 + 1;
    auto        a    = RandomAgg(n, nagg, 23 + (unsigned)n);
    auto        da   = ToDevice(a);
    Aggregation P;
    ASSERT_EQ(AggregationCreate(n, nagg, ucv(da), P), 0);
    CsrMatrix M;
    AggregationToCsr(P, M);
    EXPECT_EQ(M.nrows, n);
    EXPECT_EQ(M.ncols, nagg);
    auto rp = ToHost(M.rowptr), c = ToHost(M.colidx);
    auto v  = ToHost(M.vals);
    Int  k  = 0;
    ASSERT_EQ((Int)rp.size(), n + 1);
    for (Int i = 0; i < n; i++) {
      EXPECT_EQ(rp[i], k) << "row " << i;
      if (a[i] >= 0) {
        ASSERT_LT(k, (Int)c.size());
        EXPECT_EQ((Int)c[k], a[i]) << "row " << i;
        EXPECT_EQ(v[k], 1.0) << "row " << i;
        k++;
      }
    }
    EXPECT_EQ(rp[n], k);
    EXPECT_EQ(M.nnz, k);
  }
}

/* the residual and its restriction in one kernel = AggRestrict of b - Ad x - Ao g (serial loops), with and without
   an off-process block; an empty aggregate gets 0, unaggregated rows are left out */
TEST(Galerkin, AggResidualRestrictMatchesReference)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    const Int   nagg = n / 3 + 2, ng = n / 5 + 1;
    auto        a  = RandomAgg(n, nagg, 83 + (unsigned)n);
    auto        da = ToDevice(a);
    Aggregation P;
    EXPECT_EQ(AggregationCreate(n, nagg, ucv(da), P), 0);
    HostCsr hd = RandomCsr(n, n, 89 + (unsigned)n), ho = RandomCsr(n, ng, 97 + (unsigned)n);
    auto    b = RandomVector(n, 101 + n), x = RandomVector(n, 103 + n), g = RandomVector(ng, 107 + n);
    auto    ax = RefSpmv(hd, x), ag = RefSpmv(ho, g);
    for (bool ghosts : {false, true}) {
      std::vector<Scalar> ref(nagg, 0);
      for (Int i = 0; i < n; i++)
        if (a[i] >= 0) ref[a[i]] += b[i] - (ghosts ? ag[i] + ax[i] : ax[i]);
      auto dyc = ToDevice(std::vector<Scalar>(nagg, NAN));
      AggResidualRestrict(P, MakeDeviceCsr(hd), ghosts ? MakeDeviceCsr(ho) : CsrMatrix(), ghosts ? ucv(ToDevice(g)) : UView<const Scalar>(), ucv(ToDevice(b)), ucv(ToDevice(x)), uv(dyc));
      EXPECT_LE(RelErr(ToHost(dyc), ref), 1e-14) << (ghosts ? "with" : "without") << " the off-process block";
      /* the same bits as the residual (Spmv, then b - A x) restricted by AggRestrict */
      if (!ghosts) {
        View<Scalar> dax("ax", n), dr("r", n), dyc2("yc", nagg);
        Spmv(MakeDeviceCsr(hd), 1.0, ucv(ToDevice(x)), 0.0, uv(dax));
        auto hax = ToHost(dax);
        std::vector<Scalar> r(n);
        for (Int i = 0; i < n; i++) r[i] = b[i] - hax[i];
        AggRestrict(P, ucv(ToDevice(r)), uv(dyc2));
        EXPECT_EQ(ToHost(dyc), ToHost(dyc2));
      }
    }
  }
}

TEST(Galerkin, SquareProductMatchesReference)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    HostCsr   h = RandomCsr(n, n, 31 + (unsigned)n);
    const Int nagg = n / 4 + 1;
    auto      a = RandomAgg(n, nagg, 37 + (unsigned)n);
    CheckGalerkin(h, a, nagg, a, nagg);
  }
}

TEST(Galerkin, RectangularBlockWithGhostAggregates)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    const Int nc = n + 7;
    HostCsr   h = RandomCsr(n, nc, 41 + (unsigned)n);
    auto      ar = RandomAgg(n, n / 2 + 1, 43 + (unsigned)n);
    auto      ac = RandomAgg(nc, 5, 47 + (unsigned)n);
    CheckGalerkin(h, ar, n / 2 + 1, ac, 5);
  }
}

TEST(Galerkin, DiagonalOnlyAndIdentityAggregation)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    HostCsr   d;
    d.nrows = d.ncols = n;
    d.rowptr.push_back(0);
    for (Int i = 0; i < n; i++) {
      d.colidx.push_back(i);
      d.vals.push_back(1.0 + i);
      d.rowptr.push_back(i + 1);
    }
    std::vector<Int> pairs(n), ident(n);
    for (Int i = 0; i < n; i++) {
      pairs[i] = i / 2;
      ident[i] = i;
    }
    CheckGalerkin(d, pairs, (n + 1) / 2, pairs, (n + 1) / 2);
    HostCsr h = RandomCsr(n, n, 53 + (unsigned)n);
    CheckGalerkin(h, ident, n, ident, n); /* P = I: Ac = A */
    std::vector<Int> none(n, -1);
    CheckGalerkin(h, none, 3, none, 3); /* nothing aggregated: Ac = 0 with empty rows */
  }
}

TEST(Galerkin, CompactDropsEmptyAggregates)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    const Int        nagg = 2 * n + 3; /* most aggregates empty */
    std::vector<Int> a(n);
    for (Int i = 0; i < n; i++) a[i] = (i % 7 == 3) ? -1 : (Int)((7 * (std::int64_t)i * i) % nagg);
    auto        da = ToDevice(a);
    Aggregation P;
    ASSERT_EQ(AggregationCreate(n, nagg, ucv(da), P), 0);
    const Int        empty = AggregationCountEmpty(P);
    std::vector<Int> used(nagg, 0), refid(nagg, -1);
    for (Int i = 0; i < n; i++)
      if (a[i] >= 0) used[a[i]] = 1;
    Int next = 0;
    for (Int J = 0; J < nagg; J++)
      if (used[J]) refid[J] = next++;
    EXPECT_EQ(empty, nagg - next);
    View<Int> id("id", nagg);
    EXPECT_EQ(AggregationCompact(P, uv(id)), next);
    EXPECT_EQ(P.nagg, next);
    EXPECT_EQ(ToHost(id), refid);
    EXPECT_EQ(AggregationCountEmpty(P), 0);
    std::vector<Int> refagg(n);
    for (Int i = 0; i < n; i++) refagg[i] = a[i] >= 0 ? refid[a[i]] : -1;
    EXPECT_EQ(ToHost(P.agg), refagg);
    /* the compacted aggregation equals one created from the renumbered ids */
    auto        dr = ToDevice(refagg);
    Aggregation Q;
    AggregationCreate(n, next, ucv(dr), Q);
    EXPECT_EQ(ToHost(P.ptr), ToHost(Q.ptr));
    EXPECT_EQ(ToHost(P.rows), ToHost(Q.rows));
  }
}

TEST(Galerkin, InvalidAggregateIdsAreCounted)
{
  std::vector<Int> a = {0, 3, -2, 1, 2, -1};
  auto             da = ToDevice(a);
  Aggregation      P;
  EXPECT_EQ(AggregationCreate(6, 3, ucv(da), P), 2);
  EXPECT_EQ(ToHost(P.agg), (std::vector<Int>{0, -1, -1, 1, 2, -1}));
  EXPECT_EQ(ToHost(P.rows), (std::vector<Int>{0, 3, 4}));
}

TEST(Galerkin, SizeMismatchRefused)
{
  HostCsr     h = RandomCsr(10, 12, 3);
  CsrMatrix   A = MakeDeviceCsr(h);
  std::vector<Int> a(10, 0);
  auto        da = ToDevice(a);
  Aggregation P;
  AggregationCreate(10, 1, ucv(da), P);
  CsrMatrix   Ac;
  GalerkinMap map;
  EXPECT_FALSE(GalerkinAggregate(A, P, P, Ac, map));
}

/* ---- general sparse products: C = A B, C = R A P, and the CSR transpose ---- */
namespace
{
/* dense-row (std::map) reference of C = A B; summation in ascending A-entry, B-entry order like the kernel */
HostCsr RefProduct(const HostCsr &A, const HostCsr &B)
{
  HostCsr C;
  C.nrows = A.nrows;
  C.ncols = B.ncols;
  C.rowptr.push_back(0);
  for (Int i = 0; i < A.nrows; i++) {
    std::map<Int, Scalar> row;
    for (Int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
      for (Int p = B.rowptr[A.colidx[k]]; p < B.rowptr[A.colidx[k] + 1]; p++) row[B.colidx[p]] += A.vals[k] * B.vals[p];
    for (auto &e : row) {
      C.colidx.push_back(e.first);
      C.vals.push_back(e.second);
    }
    C.rowptr.push_back((Int)C.colidx.size());
  }
  return C;
}

HostCsr RefTranspose(const HostCsr &A)
{
  HostCsr T;
  T.nrows = A.ncols;
  T.ncols = A.nrows;
  std::vector<std::vector<std::pair<Int, Scalar>>> rows(A.ncols);
  for (Int i = 0; i < A.nrows; i++)
    for (Int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) rows[A.colidx[k]].push_back({i, A.vals[k]});
  T.rowptr.push_back(0);
  for (auto &r : rows) {
    for (auto &e : r) {
      T.colidx.push_back(e.first);
      T.vals.push_back(e.second);
    }
    T.rowptr.push_back((Int)T.colidx.size());
  }
  return T;
}

void ExpectCsrEq(const CsrMatrix &C, const HostCsr &R, double tol)
{
  EXPECT_EQ(C.nrows, R.nrows);
  EXPECT_EQ(C.ncols, R.ncols);
  EXPECT_EQ(C.nnz, (Int)R.colidx.size());
  EXPECT_EQ(ToHost(C.rowptr), R.rowptr);
  auto             ci = ToHost(C.colidx);
  std::vector<Int> cil(ci.begin(), ci.end());
  EXPECT_EQ(cil, R.colidx);
  EXPECT_LE(RelErr(ToHost(C.vals), R.vals), tol);
}
} // namespace

TEST(Galerkin, TransposeMatchesReference)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    for (const Int nc : {n, n / 3 + 1, n + 5}) {
      HostCsr   h = RandomCsr(n, nc, 61 + (unsigned)(n + nc));
      CsrMatrix A = MakeDeviceCsr(h), At;
      CsrTranspose(A, At);
      ExpectCsrEq(At, RefTranspose(h), 0.0);
      CsrMatrix Att; /* (A^T)^T = A exactly */
      CsrTranspose(At, Att);
      ExpectCsrEq(Att, h, 0.0);
      /* the transpose with its entry permutation: the entries of each column of A in row order */
      CsrMatrix        Ap;
      View<Int>        perm;
      std::vector<Int> ref;
      CsrTranspose(A, Ap, perm);
      ExpectCsrEq(Ap, RefTranspose(h), 0.0);
      std::vector<std::vector<Int>> bycol(nc);
      for (Int i = 0; i < n; i++)
        for (Int k = h.rowptr[i]; k < h.rowptr[i + 1]; k++) bycol[h.colidx[k]].push_back(k);
      for (auto &b : bycol) ref.insert(ref.end(), b.begin(), b.end());
      EXPECT_EQ(ToHost(perm), ref);
    }
  }
}

TEST(Galerkin, SpgemmSymbolicNumericMatchReference)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    const Int m = n / 2 + 1, q = n / 3 + 2;
    HostCsr   ha = RandomCsr(m, n, 71 + (unsigned)n), hb = RandomCsr(n, q, 73 + (unsigned)n, 5);
    CsrMatrix A = MakeDeviceCsr(ha), B = MakeDeviceCsr(hb), C;
    ASSERT_TRUE(SpgemmSymbolic(A, B, C));
    SpgemmNumeric(A, B, C);
    ExpectCsrEq(C, RefProduct(ha, hb), 1e-14);
    /* numeric refresh: new values of A and B, same patterns */
    for (auto &v : ha.vals) v = 1.5 * v + 0.125;
    for (auto &v : hb.vals) v = -0.75 * v;
    CsrMatrix A2 = MakeDeviceCsr(ha), B2 = MakeDeviceCsr(hb);
    SpgemmNumeric(A2, B2, C);
    ExpectCsrEq(C, RefProduct(ha, hb), 1e-14);
    /* sizes that do not chain */
    CsrMatrix Cbad;
    if (n > 0) EXPECT_FALSE(SpgemmSymbolic(B, B, Cbad));
  }
}

/* rows of C = A B of every length: up to a few dozen candidates (built by insertion into the sorted distinct prefix),
   past the insertion limit (heap-sorted), with many repeated candidates (few columns of B) and with none */
TEST(Galerkin, SpgemmSymbolicShortAndLongRowsMatchReference)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    if (n > 10000) continue; /* long rows: the large size would take minutes in the reference */
    for (const Int q : {(Int)3, n / 2 + 1, 4 * n + 50}) {
      SCOPED_TRACE("columns of B " + std::to_string(q));
      HostCsr   ha = RandomCsr(n / 3 + 1, n, 131 + (unsigned)(n + q), 40), hb = RandomCsr(n, q, 137 + (unsigned)(n + q), 20);
      CsrMatrix A = MakeDeviceCsr(ha), B = MakeDeviceCsr(hb), C;
      ASSERT_TRUE(SpgemmSymbolic(A, B, C));
      ExpectCsrEq(C, [&] {
        HostCsr R = RefProduct(ha, hb);
        for (auto &v : R.vals) v = 0; /* the symbolic phase leaves zeros */
        return R;
      }(), 0.0);
      SpgemmNumeric(A, B, C);
      ExpectCsrEq(C, RefProduct(ha, hb), 1e-14);
    }
  }
}

namespace
{
/* 1D linear interpolation from the grid of (M + 1) / 2 points (coarse point I on fine point 2I; lines of 1 or 2 points
   are not coarsened): the coarse points and weights of fine point i, ascending */
std::vector<std::pair<Int, Scalar>> Prolong1(Int i, Int M)
{
  const Int Mc = M > 2 ? (M + 1) / 2 : M;
  if (Mc == M) return {{i, 1.0}};
  if (i % 2 == 0) return {{i / 2, 1.0}};
  std::vector<std::pair<Int, Scalar>> r = {{(i - 1) / 2, 0.5}};
  if ((i + 1) / 2 < Mc) r.push_back({(i + 1) / 2, 0.5});
  return r;
}
} // namespace

/* C = [A | Ao] B from the two column blocks against the product of the concatenated matrix (same pattern, same bits:
   the order of summation of [A | Ao]), and R [A | Ao] P against R ([A | Ao] P); an Ao without rows stands for none;
   sizes that do not chain are refused */
TEST(Galerkin, SpgemmTwoColumnBlocksMatchConcatenated)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    const Int ng = n / 4 + 1, q = n / 3 + 2;
    HostCsr   ha = RandomCsr(n, n, 151 + (unsigned)n), ho = RandomCsr(n, ng, 157 + (unsigned)n, 3), hb = RandomCsr(n + ng, q, 163 + (unsigned)n, 5);
    HostCsr   hc; /* [A | Ao] */
    hc.nrows = n, hc.ncols = n + ng;
    hc.rowptr.push_back(0);
    for (Int i = 0; i < n; i++) {
      for (Int k = ha.rowptr[i]; k < ha.rowptr[i + 1]; k++) hc.colidx.push_back(ha.colidx[k]), hc.vals.push_back(ha.vals[k]);
      for (Int k = ho.rowptr[i]; k < ho.rowptr[i + 1]; k++) hc.colidx.push_back(n + ho.colidx[k]), hc.vals.push_back(ho.vals[k]);
      hc.rowptr.push_back((Int)hc.colidx.size());
    }
    CsrMatrix A = MakeDeviceCsr(ha), Ao = MakeDeviceCsr(ho), B = MakeDeviceCsr(hb), Ac = MakeDeviceCsr(hc), C, Cref;
    ASSERT_TRUE(SpgemmSymbolic(A, Ao, B, C));
    ASSERT_TRUE(SpgemmSymbolic(Ac, B, Cref));
    SpgemmNumeric(A, Ao, B, C);
    SpgemmNumeric(Ac, B, Cref);
    HostCsr href;
    href.nrows = Cref.nrows, href.ncols = Cref.ncols;
    href.rowptr = ToHost(Cref.rowptr);
    for (auto c : ToHost(Cref.colidx)) href.colidx.push_back((Int)c);
    href.vals = ToHost(Cref.vals);
    ExpectCsrEq(C, href, 0.0);
    ExpectCsrEq(C, RefProduct(hc, hb), 1e-14);
    /* R [A | Ao] P with R = B^T restricted to n columns: R is (q x n), [A | Ao] B is (n x q) */
    HostCsr   hr = RandomCsr(q, n, 167 + (unsigned)n, 6);
    CsrMatrix R = MakeDeviceCsr(hr), C2;
    GalerkinRap work;
    ASSERT_TRUE(GalerkinRapSymbolic(R, A, Ao, B, work, C2));
    ExpectCsrEq(C2, RefProduct(hr, RefProduct(hc, hb)), 1e-13);
    /* new values of A, same pattern */
    Kokkos::deep_copy(A.vals, 0.5);
    GalerkinRapNumeric(R, A, Ao, B, work, C2);
    {
      HostCsr h2 = hc; /* Ao unchanged */
      for (Int i = 0; i < n; i++)
        for (Int k = h2.rowptr[i]; k < h2.rowptr[i + 1]; k++)
          if (h2.colidx[k] < n) h2.vals[k] = 0.5;
      ExpectCsrEq(C2, RefProduct(hr, RefProduct(h2, hb)), 1e-13);
    }
    /* no ghost block: the one-block product */
    CsrMatrix C3;
    HostCsr   hb1 = RandomCsr(n, q, 173 + (unsigned)n, 5);
    CsrMatrix B1  = MakeDeviceCsr(hb1);
    ASSERT_TRUE(SpgemmSymbolic(A, CsrMatrix(), B1, C3));
    SpgemmNumeric(A, CsrMatrix(), B1, C3);
    HostCsr ha2 = ha; /* A's values set to 0.5 above */
    for (auto &v : ha2.vals) v = 0.5;
    ExpectCsrEq(C3, RefProduct(ha2, hb1), 1e-14);
    /* sizes that do not chain: B with the rows of A's columns only, or a ghost block of other rows */
    CsrMatrix Cbad;
    EXPECT_FALSE(SpgemmSymbolic(A, Ao, B1, Cbad));
    if (n > 0) {
      CsrMatrix Ao2 = MakeDeviceCsr(RandomCsr(n + 1, ng, 179, 3));
      EXPECT_FALSE(SpgemmSymbolic(A, Ao2, B, Cbad));
    }
  }
}

/* the pattern of a 2D 5-point stencil times the bilinear interpolation (the geometric multigrid product: candidates in
   nearly ascending order, each coarse column repeated) and of P^T (A P) */
TEST(Galerkin, SpgemmSymbolicStencilProductMatchesReference)
{
  for (const Int M : {(Int)1, (Int)2, (Int)3, (Int)13, (Int)65}) {
    SCOPED_TRACE("grid " + std::to_string(M));
    const Int Mc = M > 2 ? (M + 1) / 2 : M, nf = M * M, nc = Mc * Mc;
    HostCsr   ha, hp;
    ha.nrows = ha.ncols = nf, hp.nrows = nf, hp.ncols = nc;
    ha.rowptr.push_back(0), hp.rowptr.push_back(0);
    for (Int j = 0; j < M; j++)
      for (Int i = 0; i < M; i++) {
        const Int nb[5][2] = {{i, j - 1}, {i - 1, j}, {i, j}, {i + 1, j}, {i, j + 1}};
        for (auto &c : nb)
          if (c[0] >= 0 && c[0] < M && c[1] >= 0 && c[1] < M) ha.colidx.push_back(c[0] + M * c[1]), ha.vals.push_back(c[0] == i && c[1] == j ? 4.0 : -1.0);
        ha.rowptr.push_back((Int)ha.colidx.size());
        std::vector<std::pair<Int, Scalar>> row, pi = Prolong1(i, M), pj = Prolong1(j, M);
        for (auto &b : pj)
          for (auto &a : pi) row.push_back({a.first + Mc * b.first, a.second * b.second});
        std::sort(row.begin(), row.end());
        for (auto &e : row) hp.colidx.push_back(e.first), hp.vals.push_back(e.second);
        hp.rowptr.push_back((Int)hp.colidx.size());
      }
    CsrMatrix A = MakeDeviceCsr(ha), P = MakeDeviceCsr(hp), R, AP, C;
    ASSERT_TRUE(SpgemmSymbolic(A, P, AP));
    SpgemmNumeric(A, P, AP);
    const HostCsr hap = RefProduct(ha, hp);
    ExpectCsrEq(AP, hap, 1e-15);
    CsrTranspose(P, R);
    ASSERT_TRUE(SpgemmSymbolic(R, AP, C));
    SpgemmNumeric(R, AP, C);
    ExpectCsrEq(C, RefProduct(RefTranspose(hp), hap), 1e-15);
  }
}

TEST(Galerkin, RapMatchesReferenceAndRefreshes)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    const Int nc = (n + 1) / 2;
    HostCsr   ha = RandomCsr(n, n, 81 + (unsigned)n, 7), hp = RandomCsr(n, nc, 83 + (unsigned)n, 3);
    CsrMatrix A = MakeDeviceCsr(ha), P = MakeDeviceCsr(hp), R, C;
    CsrTranspose(P, R);
    GalerkinRap work;
    ASSERT_TRUE(GalerkinRapSymbolic(R, A, P, work, C));
    HostCsr ref = RefProduct(RefTranspose(hp), RefProduct(ha, hp));
    ExpectCsrEq(C, ref, 1e-13);
    /* SAME_NONZERO_PATTERN refresh: new values of A in place, numeric phases only */
    for (auto &v : ha.vals) v = 3.0 * v - 1.0;
    auto nv = ToDevice(ha.vals);
    if (A.nnz > 0) Kokkos::deep_copy(A.vals, nv);
    GalerkinRapNumeric(R, A, P, work, C);
    ExpectCsrEq(C, RefProduct(RefTranspose(hp), RefProduct(ha, hp)), 1e-13);
    /* a general R (not P^T): rectangular chain */
    HostCsr     hr = RandomCsr(nc + 3, n, 87 + (unsigned)n, 4);
    CsrMatrix   R2 = MakeDeviceCsr(hr), C2;
    GalerkinRap work2;
    ASSERT_TRUE(GalerkinRapSymbolic(R2, A, P, work2, C2));
    ExpectCsrEq(C2, RefProduct(hr, RefProduct(ha, hp)), 1e-13);
    CsrMatrix Cbad;
    if (nc != n) EXPECT_FALSE(GalerkinRapSymbolic(P, A, P, work2, Cbad));
  }
}

/* the flagged numeric product recomputes exactly the flagged rows: after new values of B in a few rows, the rows of
   C = A B that CsrFlagRows finds are those that change; the others are left untouched */
TEST(Galerkin, FlaggedNumericRefreshesFlaggedRowsOnly)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    const Int m = n / 2 + 1, q = n / 3 + 2;
    HostCsr   ha = RandomCsr(m, n, 91 + (unsigned)n), hb = RandomCsr(n, q, 93 + (unsigned)n, 5);
    CsrMatrix A = MakeDeviceCsr(ha), B = MakeDeviceCsr(hb), C;
    ASSERT_TRUE(SpgemmSymbolic(A, B, C));
    SpgemmNumeric(A, B, C);
    /* new values in the rows of B with bflag set */
    std::vector<Int> bflag(n, 0);
    for (Int i = 0; i < n; i += 5) bflag[i] = 1;
    for (Int i = 0; i < n; i++)
      if (bflag[i])
        for (Int k = hb.rowptr[i]; k < hb.rowptr[i + 1]; k++) hb.vals[k] = 2.0 * hb.vals[k] - 0.5;
    CsrMatrix B2 = MakeDeviceCsr(hb);
    auto      dbf = ToDevice(bflag), dcf = ToDevice(std::vector<Int>(m, 0));
    const Int nf  = CsrFlagRows(A, ucv(dbf), false, dcf);
    auto      cf  = ToHost(dcf);
    /* unflagged rows keep what they hold: mark them */
    auto cvals = ToHost(C.vals);
    auto crp   = ToHost(C.rowptr);
    for (Int i = 0; i < m; i++)
      if (!cf[i])
        for (Int e = crp[i]; e < crp[i + 1]; e++) cvals[e] = 1e300;
    if (C.nnz) Kokkos::deep_copy(C.vals, ToDevice(cvals));
    SpgemmNumeric(A, B2, C, ucv(dcf));
    HostCsr ref  = RefProduct(ha, hb);
    auto    got  = ToHost(C.vals);
    Int     seen = 0;
    for (Int i = 0; i < m; i++) {
      seen += cf[i];
      for (Int e = crp[i]; e < crp[i + 1]; e++) {
        if (cf[i]) EXPECT_NEAR(got[e], ref.vals[e], 1e-14 * (1 + std::abs(ref.vals[e]))) << "row " << i;
        else EXPECT_EQ(got[e], 1e300) << "row " << i;
      }
    }
    EXPECT_EQ(seen, nf);
    /* an empty flag view: every row (the plain numeric phase) */
    SpgemmNumeric(A, B2, C, UView<const Int>());
    ExpectCsrEq(C, ref, 1e-14);
  }
}

/* the flagged product with the flags found in the kernel: rows of C recomputed where row i of A changed (rowflag), or
   where row i of A reaches a changed row of B (bflag; with self also where bflag(i) itself), flagout the rows
   recomputed; the other rows are left untouched */
TEST(Galerkin, NumericChangedRefreshesTheRowsThatChange)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    const Int m = n, q = n / 3 + 2;
    HostCsr   ha = RandomCsr(m, n, 101 + (unsigned)n), hb = RandomCsr(n, q, 103 + (unsigned)n, 5);
    CsrMatrix A = MakeDeviceCsr(ha), B = MakeDeviceCsr(hb), C;
    ASSERT_TRUE(SpgemmSymbolic(A, B, C));
    std::vector<Int> af(m, 0), bf(n, 0);
    for (Int i = 1; i < m; i += 9) af[i] = 1;
    for (Int i = 0; i < n; i += 13) bf[i] = 1;
    /* new values in the flagged rows of A and of B */
    HostCsr ha2 = ha, hb2 = hb;
    for (Int i = 0; i < m; i++)
      if (af[i])
        for (Int k = ha2.rowptr[i]; k < ha2.rowptr[i + 1]; k++) ha2.vals[k] = 3.0 * ha2.vals[k] + 0.25;
    for (Int i = 0; i < n; i++)
      if (bf[i])
        for (Int k = hb2.rowptr[i]; k < hb2.rowptr[i + 1]; k++) hb2.vals[k] = 2.0 * hb2.vals[k] - 0.5;
    CsrMatrix A2 = MakeDeviceCsr(ha2), B2 = MakeDeviceCsr(hb2);
    HostCsr   ref = RefProduct(ha2, hb2);
    auto      crp = ToHost(C.rowptr);
    for (int mode = 0; mode < 4; mode++)
      for (bool self : {false, true}) {
        const bool       userow = mode & 1, useb = mode & 2;
        std::vector<Int> want(m, 0);
        for (Int i = 0; i < m; i++) {
          bool f = (userow && af[i]) || (useb && self && bf[i]);
          for (Int k = ha.rowptr[i]; k < ha.rowptr[i + 1]; k++)
            if (useb && bf[ha.colidx[k]]) f = true;
          want[i] = f ? 1 : 0;
        }
        if (C.nnz) Kokkos::deep_copy(C.vals, 1e300);
        auto dout = ToDevice(std::vector<Int>(m, -1));
        SpgemmNumericChanged(A2, B2, C, userow ? ucv(ToDevice(af)) : UView<const Int>(), useb ? ucv(ToDevice(bf)) : UView<const Int>(), self, dout);
        EXPECT_EQ(ToHost(dout), want) << "mode " << mode << " self " << self;
        auto got = ToHost(C.vals);
        for (Int i = 0; i < m; i++)
          for (Int e = crp[i]; e < crp[i + 1]; e++) {
            if (want[i]) EXPECT_NEAR(got[e], ref.vals[e], 1e-14 * (1 + std::abs(ref.vals[e]))) << "row " << i;
            else EXPECT_EQ(got[e], 1e300) << "row " << i;
          }
        EXPECT_EQ(FlagCount(ucv(dout)), std::count(want.begin(), want.end(), 1));
      }
    /* without an output view the same rows are recomputed */
    if (C.nnz) Kokkos::deep_copy(C.vals, 1e300);
    SpgemmNumericChanged(A2, B2, C, ucv(ToDevice(af)), UView<const Int>(), false, UView<Int>());
    auto got = ToHost(C.vals);
    for (Int i = 0; i < m; i++)
      for (Int e = crp[i]; e < crp[i + 1]; e++) {
        if (af[i]) EXPECT_NEAR(got[e], ref.vals[e], 1e-14 * (1 + std::abs(ref.vals[e]))) << "row " << i;
        else EXPECT_EQ(got[e], 1e300) << "row " << i;
      }
  }
}

/* the mask update: the flags of the changes, the new mask taken over (an empty new mask: all ones) */
TEST(Galerkin, MaskUpdateMatchesReference)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    std::vector<Scalar> k0(n), k1(n);
    for (Int i = 0; i < n; i++) k0[i] = i % 3 ? 1.0 : 0.0, k1[i] = i % 5 ? 1.0 : 0.0;
    for (int ones = 0; ones < 2; ones++) {
      std::vector<Int>    ref(n);
      std::vector<Scalar> kref(n);
      Int                 cnt = 0;
      for (Int i = 0; i < n; i++) {
        kref[i] = ones ? 1.0 : k1[i];
        cnt += ref[i] = k0[i] != kref[i] ? 1 : 0;
      }
      auto dk = ToDevice(k0), dn = ToDevice(k1);
      auto df = ToDevice(std::vector<Int>(n, -1));
      MaskUpdate(dk, ones ? UView<const Scalar>() : ucv(dn), df);
      EXPECT_EQ(ToHost(df), ref);
      EXPECT_EQ(ToHost(dk), kref);
      EXPECT_EQ(FlagCount(ucv(df)), cnt);
    }
  }
}

/* flags of the changes of a 0/1 mask; an empty new mask means all ones */
TEST(Galerkin, MaskChangesMatchesReference)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    std::vector<Scalar> k0(n), k1(n);
    for (Int i = 0; i < n; i++) k0[i] = i % 3 ? 1.0 : 0.0, k1[i] = i % 5 ? 1.0 : 0.0;
    for (int ones = 0; ones < 2; ones++) {
      std::vector<Int> ref(n);
      Int              cnt = 0;
      for (Int i = 0; i < n; i++) cnt += ref[i] = k0[i] != (ones ? 1.0 : k1[i]) ? 1 : 0;
      auto dk = ToDevice(k0), dn = ToDevice(k1);
      auto df = ToDevice(std::vector<Int>(n, -1));
      EXPECT_EQ(MaskChanges(ucv(dk), ones ? UView<const Scalar>() : ucv(dn), df), cnt);
      EXPECT_EQ(ToHost(df), ref);
      EXPECT_EQ(ToHost(dk), k0); /* not changed */
    }
  }
}

/* ------------------------------------------------------------------------------------------------------------- */
/* the building blocks of the distributed Galerkin product against serial references */

namespace
{
/* host reference: [A | B] with B's columns at A.ncols + bmap(c) */
HostCsr RefConcatColumns(const HostCsr &A, const HostCsr &B, const std::vector<Int> &bmap, Int ncols)
{
  HostCsr C;
  C.nrows = A.nrows, C.ncols = ncols;
  C.rowptr.push_back(0);
  for (Int i = 0; i < A.nrows; i++) {
    for (Int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) C.colidx.push_back(A.colidx[k]), C.vals.push_back(A.vals[k]);
    for (Int k = B.rowptr[i]; k < B.rowptr[i + 1]; k++) C.colidx.push_back(A.ncols + (bmap.empty() ? B.colidx[k] : bmap[B.colidx[k]])), C.vals.push_back(B.vals[k]);
    C.rowptr.push_back((Int)C.colidx.size());
  }
  return C;
}

/* host reference: the rows of A summed with those of B, columns sorted, duplicates summed */
HostCsr RefSum(const HostCsr &A, const HostCsr &B, Int ncols)
{
  HostCsr C;
  C.nrows = A.nrows, C.ncols = ncols;
  C.rowptr.push_back(0);
  for (Int i = 0; i < A.nrows; i++) {
    std::map<Int, Scalar> row;
    for (Int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) row[A.colidx[k]] += A.vals[k];
    for (Int k = B.rowptr[i]; k < B.rowptr[i + 1]; k++) row[B.colidx[k]] += B.vals[k];
    for (auto &e : row) C.colidx.push_back(e.first), C.vals.push_back(e.second);
    C.rowptr.push_back((Int)C.colidx.size());
  }
  return C;
}
} // namespace

TEST(Galerkin, DistributedBlocksMatchReference)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    const Int ncA = n / 2 + 1, ncB = n / 7 + 2;
    HostCsr   ha = RandomCsr(n, ncA, 71 + (unsigned)n), hb = RandomCsr(n, ncB, 73 + (unsigned)n, 4);
    CsrMatrix A = MakeDeviceCsr(ha), B = MakeDeviceCsr(hb);

    /* [[A | B]; G] with and without a map of B's columns, its numeric phase, and its leading rows [A | B] */
    std::vector<Int> bmap(ncB);
    for (Int c = 0; c < ncB; c++) bmap[c] = 2 * c + 1;
    auto      dmap = ToDevice(bmap);
    HostCsr   hg   = RandomCsr(n / 3 + (n % 2), ncA + 2 * ncB, 79 + (unsigned)n, 5);
    CsrMatrix G    = MakeDeviceCsr(hg), C, Cm;
    auto      refBlocks = [&](const HostCsr &a, const HostCsr &b, const std::vector<Int> &map, Int ncols) {
      HostCsr ref = RefConcatColumns(a, b, map, ncols);
      ref.nrows += hg.nrows;
      for (Int r = 0; r < hg.nrows; r++) {
        for (Int k = hg.rowptr[r]; k < hg.rowptr[r + 1]; k++) ref.colidx.push_back(hg.colidx[k]), ref.vals.push_back(hg.vals[k]);
        ref.rowptr.push_back((Int)ref.colidx.size());
      }
      return ref;
    };
    ASSERT_TRUE(CsrConcatBlocks(A, B, UView<const Int>(), CsrMatrix(), ncA + ncB, C)); /* no rows below: [A | B] */
    ExpectCsrEq(C, RefConcatColumns(ha, hb, {}, ncA + ncB), 0.0);
    ASSERT_TRUE(CsrConcatBlocks(A, B, ucv(dmap), G, ncA + 2 * ncB, Cm));
    ExpectCsrEq(Cm, refBlocks(ha, hb, bmap, ncA + 2 * ncB), 0.0);
    {
      const CsrMatrix L   = CsrLeadingRowsShared(Cm, n, A.nnz + B.nnz);
      const HostCsr   ref = RefConcatColumns(ha, hb, bmap, ncA + 2 * ncB);
      auto            ci = ToHost(L.colidx);
      auto            va = ToHost(L.vals);
      EXPECT_EQ(L.nrows, n);
      EXPECT_EQ(L.nnz, (Int)ref.colidx.size());
      EXPECT_EQ(ToHost(L.rowptr), ref.rowptr);
      EXPECT_EQ(std::vector<Int>(ci.begin(), ci.begin() + L.nnz), ref.colidx);
      EXPECT_EQ(std::vector<Scalar>(va.begin(), va.begin() + L.nnz), ref.vals);
    }
    Kokkos::deep_copy(A.vals, 2.0);
    Kokkos::deep_copy(G.vals, 3.0);
    CsrConcatBlocksNumeric(A, B, G, Cm);
    {
      HostCsr ha2 = ha, hg2 = hg;
      for (auto &v : ha2.vals) v = 2.0;
      for (auto &v : hg2.vals) v = 3.0;
      std::swap(hg, hg2);
      ExpectCsrEq(Cm, refBlocks(ha2, hb, bmap, ncA + 2 * ncB), 0.0);
      std::swap(hg, hg2);
    }
    A = MakeDeviceCsr(ha);
    G = MakeDeviceCsr(hg);
    /* the numeric phase of the leading rows alone writes the leading values of C */
    {
      Kokkos::deep_copy(A.vals, 5.0);
      CsrMatrix L = CsrLeadingRowsShared(Cm, n, A.nnz + B.nnz);
      CsrConcatColumnsNumeric(A, B, L);
      HostCsr ha5 = ha;
      for (auto &v : ha5.vals) v = 5.0;
      HostCsr ref = refBlocks(ha5, hb, bmap, ncA + 2 * ncB);
      for (Int k = A.nnz + B.nnz; k < (Int)ref.vals.size(); k++) ref.vals[k] = 3.0; /* G's values of the last call */
      ExpectCsrEq(Cm, ref, 0.0);
      A = MakeDeviceCsr(ha);
    }
    CsrMatrix Bad = MakeDeviceCsr(RandomCsr(n + 1, 3, 5));
    EXPECT_FALSE(CsrConcatBlocks(A, Bad, UView<const Int>(), G, ncA + 3, C));

    /* rows extracted from a matrix, and from [A | B] without forming it (the same rows, sources in [A | B]) */
    {
      HostCsr          ref = refBlocks(ha, hb, {}, ncA + ncB);
      CsrMatrix        S   = MakeDeviceCsr(ref);
      std::vector<Int> rows, rows2;
      for (Int i = ref.nrows - 1; i >= 0; i -= 3) rows.push_back(i);
      for (Int i = n - 1; i >= 0; i -= 2) rows2.push_back(i);
      auto      drows = ToDevice(rows), drows2 = ToDevice(rows2);
      CsrMatrix X, X2;
      View<Int> src, src2;
      CsrExtractRows(S, ucv(drows), X, src);
      auto refRows = [&](const std::vector<Int> &rr, std::vector<Int> &rsrc) {
        HostCsr rx;
        rx.nrows = (Int)rr.size(), rx.ncols = ref.ncols;
        rx.rowptr.push_back(0);
        for (Int r : rr) {
          for (Int k = ref.rowptr[r]; k < ref.rowptr[r + 1]; k++) rx.colidx.push_back(ref.colidx[k]), rx.vals.push_back(ref.vals[k]), rsrc.push_back(k);
          rx.rowptr.push_back((Int)rx.colidx.size());
        }
        return rx;
      };
      std::vector<Int> rsrc, rsrc2;
      ExpectCsrEq(X, refRows(rows, rsrc), 0.0);
      EXPECT_EQ(ToHost(src), rsrc);
      ASSERT_TRUE(CsrExtractRows(A, B, ucv(drows2), X2, src2));
      ExpectCsrEq(X2, refRows(rows2, rsrc2), 0.0);
      EXPECT_EQ(ToHost(src2), rsrc2);
      EXPECT_FALSE(CsrExtractRows(A, Bad, ucv(drows2), X2, src2));
    }

    /* the transpose with its permutation */
    {
      CsrMatrix At;
      View<Int> perm;
      CsrTransposePerm(A, At, perm);
      ExpectCsrEq(At, RefTranspose(ha), 0.0);
      auto p  = ToHost(perm);
      auto av = ToHost(At.vals);
      for (size_t q = 0; q < p.size(); q++) ASSERT_EQ(av[q], ha.vals[p[q]]);
    }

    /* the merge of a few rows only: the rows to merge (unsorted or repeated columns, or named), their sum, and the
       matrix with those rows replaced, against the reference of the sum of all rows */
    {
      HostCsr hu = ha; /* a few rows with their columns reversed, one with a repeated column */
      for (Int i = 3; i < hu.nrows; i += 7) std::reverse(hu.colidx.begin() + hu.rowptr[i], hu.colidx.begin() + hu.rowptr[i + 1]);
      if (hu.nrows > 9 && hu.rowptr[9 + 1] - hu.rowptr[9] >= 2) hu.colidx[hu.rowptr[9] + 1] = hu.colidx[hu.rowptr[9]];
      std::vector<Int> extra;
      for (Int i = 0; i < n; i += 5) extra.push_back(n - 1 - i), extra.push_back(n - 1 - i); /* descending, repeated */
      std::set<Int> want(extra.begin(), extra.end());
      for (Int i = 0; i < hu.nrows; i++)
        for (Int k = hu.rowptr[i] + 1; k < hu.rowptr[i + 1]; k++)
          if (hu.colidx[k] <= hu.colidx[k - 1]) want.insert(i);
      CsrMatrix U = MakeDeviceCsr(hu);
      auto      dextra = ToDevice(extra);
      View<Int> mrows;
      const Int nm = CsrRowsToMerge(U, ucv(dextra), mrows);
      ASSERT_EQ(nm, (Int)want.size());
      EXPECT_EQ(ToHost(mrows), std::vector<Int>(want.begin(), want.end()));
      /* the merged rows: those of U and of B2 summed */
      HostCsr   hb2 = RandomCsr(n, ncA, 83 + (unsigned)n, 5);
      CsrMatrix B2 = MakeDeviceCsr(hb2), Um, Bm, Si, Cm, C;
      View<Int> usrc, bsrc, ssrc, csrc;
      CsrExtractRows(U, ucv(mrows), Um, usrc);
      CsrExtractRows(B2, ucv(mrows), Bm, bsrc);
      ASSERT_TRUE(CsrInterleaveRows(Um, Bm, Si, ssrc));
      Si.ncols = ncA;
      GalerkinMap map;
      CsrSumDuplicates(Si, Cm, map);
      ASSERT_TRUE(CsrReplaceRows(U, ucv(mrows), Cm, C, csrc));
      /* reference: the named rows hold the sum of both, the other rows of U as they are */
      HostCsr hz = hb2; /* B2 with no entry outside the merged rows */
      {
        HostCsr z;
        z.nrows = hb2.nrows, z.ncols = hb2.ncols;
        z.rowptr.push_back(0);
        for (Int i = 0; i < n; i++) {
          if (want.count(i))
            for (Int k = hb2.rowptr[i]; k < hb2.rowptr[i + 1]; k++) z.colidx.push_back(hb2.colidx[k]), z.vals.push_back(hb2.vals[k]);
          z.rowptr.push_back((Int)z.colidx.size());
        }
        hz = z;
      }
      const HostCsr hsum = RefSum(hu, hz, ncA);
      HostCsr       ref;
      ref.nrows = n, ref.ncols = ncA;
      ref.rowptr.push_back(0);
      for (Int i = 0; i < n; i++) {
        const HostCsr &src = want.count(i) ? hsum : hu;
        for (Int k = src.rowptr[i]; k < src.rowptr[i + 1]; k++) ref.colidx.push_back(src.colidx[k]), ref.vals.push_back(src.vals[k]);
        ref.rowptr.push_back((Int)ref.colidx.size());
      }
      ExpectCsrEq(C, ref, 0.0);
      /* numeric phase with new values of U and of B2's merged rows */
      Kokkos::deep_copy(U.vals, 2.0);
      Kokkos::deep_copy(B2.vals, -0.5);
      GatherValues(ucv(U.vals), ucv(usrc), uv(Um.vals));
      GatherValues(ucv(B2.vals), ucv(bsrc), uv(Bm.vals));
      CsrInterleaveRowsNumeric(ucv(Um.vals), ucv(Bm.vals), ucv(ssrc), Si);
      GalerkinAggregateNumeric(ucv(Si.vals), map, Cm);
      CsrInterleaveRowsNumeric(ucv(U.vals), ucv(Cm.vals), ucv(csrc), C);
      for (auto &v : hu.vals) v = 2.0;
      for (auto &v : hz.vals) v = -0.5;
      const HostCsr hsum2 = RefSum(hu, hz, ncA);
      std::vector<Scalar> rv;
      for (Int i = 0; i < n; i++) {
        const HostCsr &src = want.count(i) ? hsum2 : hu;
        for (Int k = src.rowptr[i]; k < src.rowptr[i + 1]; k++) rv.push_back(src.vals[k]);
      }
      EXPECT_LE(RelErr(ToHost(C.vals), rv), 0.0);
      /* no rows to merge: a copy; rows not ascending or of the wrong count: refused */
      View<Int> none("none", 0), src0;
      CsrMatrix C0, Empty;
      Empty.rowptr = View<Int>("empty rowptr", 1);
      ASSERT_TRUE(CsrReplaceRows(U, ucv(none), Empty, C0, src0));
      ExpectCsrEq(C0, hu, 0.0);
      if (nm >= 2) {
        auto             hm = ToHost(mrows);
        std::vector<Int> swapped(hm.begin(), hm.end());
        std::swap(swapped[0], swapped[1]);
        auto      dsw = ToDevice(swapped);
        CsrMatrix Cbad;
        EXPECT_FALSE(CsrReplaceRows(U, ucv(dsw), Cm, Cbad, src0));
        EXPECT_FALSE(CsrReplaceRows(U, ucv(none), Cm, Cbad, src0));
      }
    }

    /* the sum of two sets of rows (interleaved, duplicates summed), split into a local and a compressed ghost block */
    {
      HostCsr   hb2 = RandomCsr(n, ncA, 79 + (unsigned)n, 5);
      CsrMatrix B2 = MakeDeviceCsr(hb2), Si, Sum;
      View<Int> src;
      ASSERT_TRUE(CsrInterleaveRows(A, B2, Si, src));
      GalerkinMap map;
      CsrSumDuplicates(Si, Sum, map);
      const HostCsr ref = RefSum(ha, hb2, ncA);
      ExpectCsrEq(Sum, ref, 1e-15);
      /* numeric phase with new values of both */
      Kokkos::deep_copy(B2.vals, -1.0);
      CsrInterleaveRowsNumeric(ucv(A.vals), ucv(B2.vals), ucv(src), Si);
      GalerkinAggregateNumeric(ucv(Si.vals), map, Sum);
      HostCsr hb3 = hb2;
      for (auto &v : hb3.vals) v = -1.0;
      ExpectCsrEq(Sum, RefSum(ha, hb3, ncA), 1e-15);
      /* split at nsplit: the reference blocks */
      const Int nsplit = ncA / 3;
      CsrMatrix D, O;
      View<Int> used, dsrc, osrc;
      CsrSplitColumns(Sum, nsplit, D, O, used, dsrc, osrc);
      const HostCsr    hs = RefSum(ha, hb3, ncA);
      std::vector<Int> gu;
      for (Int c : hs.colidx)
        if (c >= nsplit) gu.push_back(c - nsplit);
      std::sort(gu.begin(), gu.end());
      gu.erase(std::unique(gu.begin(), gu.end()), gu.end());
      HostCsr rd, ro;
      rd.nrows = ro.nrows = n, rd.ncols = nsplit, ro.ncols = (Int)gu.size();
      rd.rowptr.push_back(0), ro.rowptr.push_back(0);
      for (Int i = 0; i < n; i++) {
        for (Int k = hs.rowptr[i]; k < hs.rowptr[i + 1]; k++) {
          if (hs.colidx[k] < nsplit) rd.colidx.push_back(hs.colidx[k]), rd.vals.push_back(hs.vals[k]);
          else ro.colidx.push_back((Int)(std::lower_bound(gu.begin(), gu.end(), hs.colidx[k] - nsplit) - gu.begin())), ro.vals.push_back(hs.vals[k]);
        }
        rd.rowptr.push_back((Int)rd.colidx.size()), ro.rowptr.push_back((Int)ro.colidx.size());
      }
      ExpectCsrEq(D, rd, 1e-15);
      ExpectCsrEq(O, ro, 1e-15);
      EXPECT_EQ(ToHost(used), gu);
      /* columns remapped in place */
      std::vector<Int> map2(ncA - nsplit);
      for (Int c = 0; c < ncA - nsplit; c++) map2[c] = 3 * c;
      auto dmap2 = ToDevice(map2);
      CsrRemapColumns(Sum, nsplit, ucv(dmap2), nsplit + 3 * (ncA - nsplit));
      auto ci = ToHost(Sum.colidx);
      for (size_t k = 0; k < ci.size(); k++) ASSERT_EQ((Int)ci[k], hs.colidx[k] < nsplit ? hs.colidx[k] : nsplit + 3 * (hs.colidx[k] - nsplit));
      EXPECT_EQ(Sum.ncols, nsplit + 3 * (ncA - nsplit));
    }
  }
}

namespace
{
/* rows of random length (some longer than the insertion sort's range) with many repeated columns */
HostCsr RowsWithDuplicates(Int nrows, Int ncols, unsigned seed)
{
  std::mt19937 g(seed);
  HostCsr      S;
  S.nrows = nrows, S.ncols = ncols;
  S.rowptr.push_back(0);
  for (Int i = 0; i < nrows; i++) {
    const Int len = ncols == 0 ? 0 : (i % 17 == 5 ? 40 + (Int)(g() % 60) : (Int)(g() % 12));
    const Int span = 1 + (Int)(g() % (unsigned)std::max<Int>(1, std::min<Int>(ncols, 9)));
    const Int base = ncols == 0 ? 0 : (Int)(g() % (unsigned)ncols);
    for (Int k = 0; k < len; k++) S.colidx.push_back((Int)((base + g() % (unsigned)span) % ncols)), S.vals.push_back((Scalar)(g() % 1000) / 7.0 - 60.0);
    S.rowptr.push_back((Int)S.colidx.size());
  }
  return S;
}
} // namespace

TEST(Galerkin, SumDuplicatesMatchesSerialOrderAndIdentityAggregation)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    const Int     nc = n == 0 ? 0 : 3 * n + 11; /* more columns than rows, as the merged rows of a transpose */
    const HostCsr hs = RowsWithDuplicates(n, nc, 97 + (unsigned)n);
    CsrMatrix     S = MakeDeviceCsr(hs), C;
    GalerkinMap   map;
    CsrSumDuplicates(S, C, map);
    /* serial reference: the entries of a row by (column, entry index), one entry per column summed in that order */
    HostCsr          ref;
    std::vector<Int> rperm, rcptr, rf2c(hs.colidx.size());
    ref.nrows = n, ref.ncols = nc;
    ref.rowptr.push_back(0);
    for (Int i = 0; i < n; i++) {
      std::vector<Int> e;
      for (Int k = hs.rowptr[i]; k < hs.rowptr[i + 1]; k++) e.push_back(k);
      std::stable_sort(e.begin(), e.end(), [&](Int a, Int b) { return hs.colidx[a] < hs.colidx[b]; });
      for (size_t q = 0; q < e.size(); q++) {
        if (q == 0 || hs.colidx[e[q]] != hs.colidx[e[q - 1]]) {
          rcptr.push_back((Int)rperm.size());
          ref.colidx.push_back(hs.colidx[e[q]]);
          ref.vals.push_back(0.0);
        }
        ref.vals.back() += hs.vals[e[q]];
        rf2c[e[q]] = (Int)ref.colidx.size() - 1;
        rperm.push_back(e[q]);
      }
      ref.rowptr.push_back((Int)ref.colidx.size());
    }
    rcptr.push_back((Int)rperm.size());
    ExpectCsrEq(C, ref, 0.0);
    EXPECT_EQ(ToHost(C.vals), ref.vals); /* the same bits: the same order of summation */
    EXPECT_EQ(ToHost(map.perm), rperm);
    EXPECT_EQ(ToHost(map.cptr), rcptr);
    EXPECT_EQ(ToHost(map.fine2coarse), rf2c);
    /* the map of the aggregation product with identity aggregations (the former implementation): the same */
    {
      std::vector<Int> ir(n), ic(nc);
      for (Int i = 0; i < n; i++) ir[i] = i;
      for (Int j = 0; j < nc; j++) ic[j] = j;
      auto        dir = ToDevice(ir), dic = ToDevice(ic);
      Aggregation Ir, Ic;
      ASSERT_EQ(AggregationCreate(n, n, ucv(dir), Ir), 0);
      ASSERT_EQ(AggregationCreate(nc, nc, ucv(dic), Ic), 0);
      CsrMatrix   Ca;
      GalerkinMap amap;
      ASSERT_TRUE(GalerkinAggregate(S, Ir, Ic, Ca, amap));
      EXPECT_EQ(ToHost(Ca.rowptr), ToHost(C.rowptr));
      EXPECT_EQ(ToHost(Ca.colidx), ToHost(C.colidx));
      EXPECT_EQ(ToHost(Ca.vals), ToHost(C.vals));
      EXPECT_EQ(ToHost(amap.perm), ToHost(map.perm));
      EXPECT_EQ(ToHost(amap.cptr), ToHost(map.cptr));
    }
    /* numeric phase: new values on the same pattern */
    Kokkos::deep_copy(S.vals, 0.25);
    GalerkinAggregateNumeric(ucv(S.vals), map, C);
    std::vector<Scalar> rv(ref.colidx.size(), 0.0);
    for (size_t e = 0; e + 1 < rcptr.size(); e++)
      for (Int q = rcptr[e]; q < rcptr[e + 1]; q++) rv[e] += 0.25;
    EXPECT_EQ(ToHost(C.vals), rv);
  }
}

TEST(Galerkin, GatherIntsMatchesReference)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    std::mt19937     g(101 + (unsigned)n);
    std::vector<Int> v(n + 3), idx(n), ref(n);
    for (auto &x : v) x = (Int)(g() % 100000) - 5000;
    for (Int q = 0; q < n; q++) idx[q] = (Int)(g() % (unsigned)(n + 3)), ref[q] = v[idx[q]];
    auto      dv = ToDevice(v), didx = ToDevice(idx);
    View<Int> out("out", n);
    GatherInts(ucv(dv), ucv(didx), uv(out));
    EXPECT_EQ(ToHost(out), ref);
  }
}

TEST(Galerkin, ReplaceRowsSplitMatchesSerialReference)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    const Int ncA = n / 2 + 7, nsplit = ncA / 3;
    HostCsr   ha = RandomCsr(n, ncA, 131 + (unsigned)n);
    /* the rows replaced: every fourth row and the last one; B with a few more columns than A (ghost columns that
       occur in the replaced rows only) */
    std::vector<Int> rows;
    for (Int i = 0; i < n; i++)
      if (i % 4 == 1 || i == n - 1) rows.push_back(i);
    const Int k = (Int)rows.size();
    HostCsr   hb = RandomCsr(k, ncA + 5, 137 + (unsigned)n, 12);
    CsrMatrix A = MakeDeviceCsr(ha), B = MakeDeviceCsr(hb), D, O;
    auto      drows = ToDevice(rows);
    View<Int> used, dsrc, osrc;
    ASSERT_TRUE(CsrReplaceRowsSplit(A, ucv(drows), B, nsplit, D, O, used, dsrc, osrc));
    /* serial reference: the replaced matrix (its sources in [A.vals, B.vals]), then its split */
    const Int           nnza = (Int)ha.colidx.size(), ncols = ncA + 5;
    std::vector<Int>    from(n, -1), gu, rsd, rso;
    std::vector<char>   occurs(ncols - nsplit, 0);
    HostCsr             rd, ro;
    std::vector<Scalar> all(ha.vals);
    all.insert(all.end(), hb.vals.begin(), hb.vals.end());
    for (Int r = 0; r < k; r++) from[rows[r]] = r;
    auto entries = [&](Int i, std::vector<std::pair<Int, Int>> &e) { /* (column, source) of row i of the replaced matrix */
      e.clear();
      if (from[i] < 0)
        for (Int q = ha.rowptr[i]; q < ha.rowptr[i + 1]; q++) e.push_back({ha.colidx[q], q});
      else
        for (Int q = hb.rowptr[from[i]]; q < hb.rowptr[from[i] + 1]; q++) e.push_back({hb.colidx[q], nnza + q});
    };
    std::vector<std::pair<Int, Int>> e;
    for (Int i = 0; i < n; i++) {
      entries(i, e);
      for (auto &x : e)
        if (x.first >= nsplit) occurs[x.first - nsplit] = 1;
    }
    for (Int g = 0; g < ncols - nsplit; g++)
      if (occurs[g]) gu.push_back(g);
    rd.nrows = ro.nrows = n, rd.ncols = nsplit, ro.ncols = (Int)gu.size();
    rd.rowptr.push_back(0), ro.rowptr.push_back(0);
    for (Int i = 0; i < n; i++) {
      entries(i, e);
      for (auto &x : e) {
        if (x.first < nsplit) rd.colidx.push_back(x.first), rd.vals.push_back(all[x.second]), rsd.push_back(x.second);
        else ro.colidx.push_back((Int)(std::lower_bound(gu.begin(), gu.end(), x.first - nsplit) - gu.begin())), ro.vals.push_back(all[x.second]), rso.push_back(x.second);
      }
      rd.rowptr.push_back((Int)rd.colidx.size()), ro.rowptr.push_back((Int)ro.colidx.size());
    }
    ExpectCsrEq(D, rd, 0.0);
    ExpectCsrEq(O, ro, 0.0);
    EXPECT_EQ(ToHost(used), gu);
    EXPECT_EQ(ToHost(dsrc), rsd);
    EXPECT_EQ(ToHost(osrc), rso);
    /* numeric phase with new values of both */
    Kokkos::deep_copy(A.vals, 3.0);
    Kokkos::deep_copy(B.vals, -2.0);
    const auto av = Kokkos::subview(ucv(A.vals), Kokkos::make_pair((Int)0, A.nnz));
    CsrInterleaveRowsNumeric(av, ucv(B.vals), ucv(dsrc), D);
    CsrInterleaveRowsNumeric(av, ucv(B.vals), ucv(osrc), O);
    std::vector<Scalar> vd, vo;
    for (Int s : rsd) vd.push_back(s < nnza ? 3.0 : -2.0);
    for (Int s : rso) vo.push_back(s < nnza ? 3.0 : -2.0);
    EXPECT_EQ(ToHost(D.vals), vd);
    EXPECT_EQ(ToHost(O.vals), vo);
    /* rows not ascending, or not as many as B's rows: refused */
    if (k >= 2) {
      std::vector<Int> swapped(rows);
      std::swap(swapped[0], swapped[1]);
      auto      dsw = ToDevice(swapped);
      View<Int> none("none", 0);
      CsrMatrix Db, Ob;
      EXPECT_FALSE(CsrReplaceRowsSplit(A, ucv(dsw), B, nsplit, Db, Ob, used, dsrc, osrc));
      EXPECT_FALSE(CsrReplaceRowsSplit(A, ucv(none), B, nsplit, Db, Ob, used, dsrc, osrc));
    }
  }
}
