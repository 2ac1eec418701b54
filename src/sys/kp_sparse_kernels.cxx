/*
   kp_sparse_kernels.cxx - construction and SpMV of the device CSR and SELL-C matrices.
*/
#include "kp_sparse.hpp"
#include "kp_segsort.hpp"

namespace petsckp
{
void CsrFromArrays(Int nrows, Int ncols, UView<const Int> rowptr, UView<const Int> colidx, UView<const Scalar> vals, CsrMatrix &A)
{
  A.nrows  = nrows;
  A.ncols  = ncols;
  A.rowptr = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "csr rowptr"), nrows + 1);
  Kokkos::deep_copy(exec(), A.rowptr, rowptr);
  Int nnz = 0;
  if (nrows > 0) {
    auto last = Kokkos::subview(A.rowptr, nrows);
    Kokkos::View<Int, Kokkos::HostSpace> h("nnz");
    Kokkos::deep_copy(exec(), h, last);
    exec().fence();
    nnz = h();
  }
  A.nnz    = nnz;
  A.colidx = View<Ordinal>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "csr colidx"), nnz);
  A.vals   = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "csr vals"), nnz);
  auto ci  = A.colidx;
  Kokkos::parallel_for("petsckp::CsrFromArrays", range(nnz), KOKKOS_LAMBDA(Int k) { ci(k) = (Ordinal)colidx(k); });
  if (nnz > 0) Kokkos::deep_copy(exec(), A.vals, Kokkos::subview(vals, Kokkos::make_pair((Int)0, nnz)));
}

void CsrUpdateValues(CsrMatrix &A, UView<const Scalar> vals)
{
  if (A.nnz > 0) Kokkos::deep_copy(exec(), A.vals, Kokkos::subview(vals, Kokkos::make_pair((Int)0, A.nnz)));
}

void SellFromCsr(const CsrMatrix &A, SellMatrix &S)
{
  constexpr Int C = SellMatrix::C;
  const Int     m = A.nrows, ns = (m + C - 1) / C;
  auto          rowptr = A.rowptr;
  auto          colidx = A.colidx;
  auto          vals   = A.vals;

  S.nrows    = m;
  S.ncols    = A.ncols;
  S.nnz      = A.nnz;
  S.nslices  = ns;
  S.sliceptr = View<Int>("sell sliceptr", ns + 1);
  auto sp    = S.sliceptr;
  /* width of each slice, stored at sp(s+1), then an inclusive scan turns widths*C into offsets */
  Kokkos::parallel_for(
    "petsckp::SellWidths", range(ns), KOKKOS_LAMBDA(Int s) {
      Int w = 0;
      for (Int r = s * C; r < (s + 1) * C && r < m; r++) {
        const Int len = rowptr(r + 1) - rowptr(r);
        w             = len > w ? len : w;
      }
      sp(s + 1) = w * C;
    });
  Kokkos::parallel_scan(
    "petsckp::SellScan", range(ns + 1), KOKKOS_LAMBDA(Int s, Int & upd, const bool final) {
      upd += sp(s);
      if (final) sp(s) = upd;
    });
  Int stored = 0;
  {
    Kokkos::View<Int, Kokkos::HostSpace> h("stored");
    Kokkos::deep_copy(exec(), h, Kokkos::subview(sp, ns));
    exec().fence();
    stored = h();
  }
  S.stored   = stored;
  S.colidx   = View<Ordinal>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sell colidx"), stored);
  S.vals     = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sell vals"), stored);
  S.csr2sell = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sell map"), A.nnz);
  auto sc    = S.colidx;
  auto sv    = S.vals;
  auto map   = S.csr2sell;
  Kokkos::parallel_for(
    "petsckp::SellFill", range(ns * C), KOKKOS_LAMBDA(Int r) {
      const Int s = r / C, lane = r % C;
      const Int w = (sp(s + 1) - sp(s)) / C;
      Int       k = 0;
      if (r < m) {
        const Int b = rowptr(r), len = rowptr(r + 1) - b;
        for (; k < len; k++) {
          const Int pos = sp(s) + k * C + lane;
          sc(pos)       = colidx(b + k);
          sv(pos)       = vals(b + k);
          map(b + k)    = pos;
        }
      }
      for (; k < w; k++) {
        const Int pos = sp(s) + k * C + lane;
        sc(pos)       = -1;
        sv(pos)       = 0;
      }
    });
}

void SellUpdateValues(SellMatrix &S, UView<const Scalar> csrvals)
{
  auto sv  = S.vals;
  auto map = S.csr2sell;
  Kokkos::parallel_for("petsckp::SellUpdateValues", range(S.nnz), KOKKOS_LAMBDA(Int k) { sv(map(k)) = csrvals(k); });
}

void Spmv(const CsrMatrix &A, Scalar alpha, UView<const Scalar> x, Scalar beta, UView<Scalar> y)
{
  auto rowptr = A.rowptr;
  auto colidx = A.colidx;
  auto vals   = A.vals;
  Kokkos::parallel_for(
    "petsckp::SpmvCsr", range(A.nrows), KOKKOS_LAMBDA(Int r) {
      Scalar sum = 0;
      for (Int k = rowptr(r); k < rowptr(r + 1); k++) sum += vals(k) * x(colidx(k));
      y(r) = beta == Scalar(0) ? alpha * sum : alpha * sum + beta * y(r);
    });
}

void Spmv(const SellMatrix &A, Scalar alpha, UView<const Scalar> x, Scalar beta, UView<Scalar> y)
{
  constexpr Int C  = SellMatrix::C;
  auto          sp = A.sliceptr;
  auto          sc = A.colidx;
  auto          sv = A.vals;
  Kokkos::parallel_for(
    "petsckp::SpmvSell", range(A.nrows), KOKKOS_LAMBDA(Int r) {
      const Int s = r / C, lane = r % C;
      const Int b = sp(s) + lane, e = sp(s + 1);
      Scalar    sum = 0;
      for (Int pos = b; pos < e; pos += C) {
        const Ordinal c = sc(pos);
        if (c >= 0) sum += sv(pos) * x(c);
      }
      y(r) = beta == Scalar(0) ? alpha * sum : alpha * sum + beta * y(r);
    });
}

void SpmvTeam(const CsrMatrix &A, Scalar alpha, UView<const Scalar> x, Scalar beta, UView<Scalar> y)
{
  using TP     = Kokkos::TeamPolicy<ExecSpace>;
  using Member = TP::member_type;
  auto rp      = A.rowptr;
  auto ci      = A.colidx;
  auto v       = A.vals;
  if (A.nrows == 0) return;
  Kokkos::parallel_for(
    "petsckp::SpmvTeam", TP(exec(), A.nrows, Kokkos::AUTO), KOKKOS_LAMBDA(const Member &t) {
      const Int r   = t.league_rank();
      Scalar    sum = 0;
      Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(t, rp(r), rp(r + 1)), [&](Int p, Scalar &acc) { acc += v(p) * x(ci(p)); }, sum);
      Kokkos::single(Kokkos::PerTeam(t), [&]() { y(r) = beta == Scalar(0) ? alpha * sum : alpha * sum + beta * y(r); });
    });
}

void CsrAllocate(CsrMatrix &M, Int nrows, Int ncols, View<Int> rowptr, Int nnz, const std::string &label)
{
  M.nrows  = nrows;
  M.ncols  = ncols;
  M.nnz    = nnz;
  M.rowptr = rowptr;
  M.colidx = View<Ordinal>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + " colidx"), nnz);
  M.vals   = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + " vals"), nnz);
}

void CsrDiagonal(const CsrMatrix &A, UView<Scalar> d)
{
  auto rowptr = A.rowptr;
  auto colidx = A.colidx;
  auto vals   = A.vals;
  Kokkos::parallel_for(
    "petsckp::CsrDiagonal", range(A.nrows), KOKKOS_LAMBDA(Int r) {
      Scalar v = 0;
      for (Int k = rowptr(r); k < rowptr(r + 1); k++)
        if (colidx(k) == r) v += vals(k);
      d(r) = v;
    });
}

/* At = A^T; perm (when not NULL) receives the entry of A that each entry of At copies */
static void CsrTransposeImpl(const CsrMatrix &A, CsrMatrix &At, bool sorted, View<Int> *perm)
{
  const Int m = A.nrows, n = A.ncols, nnz = A.nnz;
  auto      rowptr = A.rowptr;
  auto      colidx = A.colidx;
  auto      vals   = A.vals;
  View<Int> cnt(std::string("transpose count"), n + 1);
  View<Int> rowof(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("transpose row of entry")), nnz);

  /* 1. entries per column of A, and the row of every entry */
  Kokkos::parallel_for(
    "petsckp::CsrTransposeCount", range(m), KOKKOS_LAMBDA(Int i) {
      for (Int k = rowptr(i); k < rowptr(i + 1); k++) {
        rowof(k) = i;
        Kokkos::atomic_add(&cnt(colidx(k)), (Int)1);
      }
    });
  const Int total = ExclusiveScan(cnt, n, "petsckp::CsrTransposeScan");
  (void)total;
  /* 2. entry indices of A scattered into the rows of At (any order), then sorted per row: entry index order is
        row order in A, so the columns of At come out ascending and the result is deterministic */
  View<Int> cur(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("transpose cursor")), n + 1);
  Kokkos::deep_copy(exec(), cur, cnt);
  View<Int> src(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("transpose source")), nnz);
  Kokkos::parallel_for(
    "petsckp::CsrTransposeFill", range(m), KOKKOS_LAMBDA(Int i) {
      for (Int k = rowptr(i); k < rowptr(i + 1); k++) src(Kokkos::atomic_fetch_add(&cur(colidx(k)), (Int)1)) = k;
    });
  CsrAllocate(At, n, m, cnt, nnz, "transpose");
  auto tc = At.colidx;
  auto tv = At.vals;
  if (sorted)
    Kokkos::parallel_for(
      "petsckp::CsrTransposeSort", range(n), KOKKOS_LAMBDA(Int J) { HeapSortRange(src, cnt(J), cnt(J + 1)); });
  /* 3. the gather, one thread per entry (a thread per row of At would copy a long row alone) */
  Kokkos::parallel_for(
    "petsckp::CsrTransposeGather", range(nnz), KOKKOS_LAMBDA(Int q) {
      tc(q) = (Ordinal)rowof(src(q));
      tv(q) = vals(src(q));
    });
  if (perm) *perm = src;
}

void CsrTranspose(const CsrMatrix &A, CsrMatrix &At, bool sorted)
{
  CsrTransposeImpl(A, At, sorted, nullptr);
}

void CsrTranspose(const CsrMatrix &A, CsrMatrix &At, View<Int> &perm)
{
  CsrTransposeImpl(A, At, true, &perm);
}

void CsrScaleValues(const CsrMatrix &A, UView<const Scalar> vals0, UView<const Scalar> left, UView<const Scalar> right)
{
  const bool havel = left.extent(0) > 0, haver = right.extent(0) > 0;
  auto       rp = A.rowptr;
  auto       ci = A.colidx;
  auto       va = A.vals;

  if (A.nrows == 0) return;
  Kokkos::parallel_for(
    "petsckp::CsrScaleValues", range(A.nrows), KOKKOS_LAMBDA(Int i) {
      const Scalar l = havel ? left(i) : Scalar(1);
      for (Int k = rp(i); k < rp(i + 1); k++) va(k) = haver ? l * vals0(k) * right(ci(k)) : l * vals0(k);
    });
}

void CsrScaleValues(const CsrMatrix &A, UView<const Scalar> vals0, UView<const Scalar> left, UView<const Scalar> right, UView<const Int> rowflag, UView<const Int> colflag)
{
  const bool havel = left.extent(0) > 0, haver = right.extent(0) > 0, haverf = rowflag.extent(0) > 0, havecf = colflag.extent(0) > 0;
  auto       rp = A.rowptr;
  auto       ci = A.colidx;
  auto       va = A.vals;

  if (A.nrows == 0 || (!haverf && !havecf)) return;
  Kokkos::parallel_for(
    "petsckp::CsrScaleValuesFlagged", range(A.nrows), KOKKOS_LAMBDA(Int i) {
      bool f = haverf && rowflag(i);
      for (Int k = rp(i); k < rp(i + 1) && havecf && !f; k++)
        if (colflag(ci(k))) f = true;
      if (!f) return;
      const Scalar l = havel ? left(i) : Scalar(1);
      for (Int k = rp(i); k < rp(i + 1); k++) va(k) = haver ? l * vals0(k) * right(ci(k)) : l * vals0(k);
    });
}

Int CsrFlagRows(const CsrMatrix &M, UView<const Int> colflag, bool self, UView<Int> rowflag)
{
  auto rp  = M.rowptr;
  auto ci  = M.colidx;
  Int  cnt = 0;

  if (M.nrows == 0) return 0;
  Kokkos::parallel_reduce(
    "petsckp::CsrFlagRows", range(M.nrows),
    KOKKOS_LAMBDA(Int i, Int & c) {
      Int f = self && colflag(i) ? 1 : 0;
      for (Int k = rp(i); k < rp(i + 1) && !f; k++)
        if (colflag(ci(k))) f = 1;
      rowflag(i) = f;
      c += f;
    },
    cnt);
  return cnt;
}

Int CsrFirstNonFiniteRow(const CsrMatrix &A)
{
  auto      rp    = A.rowptr;
  auto      v     = A.vals;
  const Int none  = A.nrows;
  Int       first = none;
  if (A.nrows == 0) return -1;
  /* x - x is 0 for every finite x and NaN for NaN and +-Inf */
  Kokkos::parallel_reduce(
    "petsckp::CsrFirstNonFiniteRow", range(A.nrows),
    KOKKOS_LAMBDA(Int i, Int & m) {
      for (Int q = rp(i); q < rp(i + 1); q++) {
        const Real x = PetscRealPart(v(q)) + PetscImaginaryPart(v(q));
        if (!(x - x == 0)) {
          if (i < m) m = i;
          break;
        }
      }
    },
    Kokkos::Min<Int>(first));
  return first < none ? first : -1;
}
OperatorInfo CsrCheckOperator(const CsrMatrix &Ad, const CsrMatrix &Ao)
{
  const Int    n     = Ad.nrows;
  const bool   haveo = Ao.nrows > 0;
  auto         rp    = Ad.rowptr;
  auto         ci    = Ad.colidx;
  auto         va    = Ad.vals;
  auto         orp   = Ao.rowptr;
  auto         ova   = Ao.vals;
  Int          nonfinite = n, bad = n;
  OperatorInfo info;

  if (n == 0) return info;
  Kokkos::parallel_reduce(
    "petsckp::CsrCheckOperator", range(n),
    KOKKOS_LAMBDA(Int i, Int & lnf, Int & lbad) {
      Scalar d  = 0;
      bool   ok = true;
      for (Int k = rp(i); k < rp(i + 1); k++) {
        if (!compat::isfinite(va(k))) ok = false;
        if (ci(k) == i) d += va(k);
      }
      if (haveo)
        for (Int k = orp(i); k < orp(i + 1); k++)
          if (!compat::isfinite(ova(k))) ok = false;
      if (!ok && i < lnf) lnf = i;
      if (!(d > 0) && i < lbad) lbad = i;
    },
    Kokkos::Min<Int>(nonfinite), Kokkos::Min<Int>(bad));
  info.nonfinite_row = nonfinite < n ? nonfinite : -1;
  info.bad_diag_row  = bad < n ? bad : -1;
  if (bad < n) {
    Real d = 0;
    Kokkos::parallel_reduce(
      "petsckp::CsrCheckOperatorDiagonal", range(bad, bad + 1),
      KOKKOS_LAMBDA(Int i, Real & s) {
        for (Int k = rp(i); k < rp(i + 1); k++)
          if (ci(k) == i) s += va(k);
      },
      d);
    info.diag_value = d;
  }
  return info;
}

} // namespace petsckp
