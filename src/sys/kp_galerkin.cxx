/*
   kp_galerkin.cxx - aggregation transfers and the aggregation Galerkin product Ac = Pr^T A Pc.

   Symbolic phase (all on the device): the fine entries of the members of each coarse row are laid out in one
   contiguous segment per coarse row (a scan over the rows in aggregate order), keyed by (coarse column, fine
   entry index); each segment is heap-sorted by one thread, duplicates of a coarse column become one coarse entry.
   The sorted fine-entry order is kept (perm, cptr), so the numeric phase is one gather-sum kernel per coarse
   entry: deterministic, no atomics.
*/
#include "kp_galerkin.hpp"
#include "kp_segsort.hpp"

namespace petsckp
{
Int AggregationCreate(Int n, Int nagg, UView<const Int> agg, Aggregation &P)
{
  P.n    = n;
  P.nagg = nagg;
  P.agg  = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("agg")), n);
  View<Int> cnt("agg count", nagg + 1);
  auto      a    = P.agg;
  Int       nbad = 0;
  Kokkos::parallel_reduce(
    "petsckp::AggregationCount", range(n),
    KOKKOS_LAMBDA(Int i, Int & bad) {
      Int J = agg(i);
      if (J < -1 || J >= nagg) {
        bad++;
        J = -1;
      }
      a(i) = J;
      if (J >= 0) Kokkos::atomic_add(&cnt(J), (Int)1);
    },
    nbad);
  const Int nmem = ExclusiveScan(cnt, nagg, "petsckp::AggregationScan");
  View<Int> cur(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("agg cursor")), nagg + 1);
  Kokkos::deep_copy(exec(), cur, cnt);
  P.ptr  = cnt;
  P.rows = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("agg rows")), nmem);
  auto r = P.rows;
  Kokkos::parallel_for(
    "petsckp::AggregationFill", range(n), KOKKOS_LAMBDA(Int i) {
      const Int J = a(i);
      if (J >= 0) r(Kokkos::atomic_fetch_add(&cur(J), (Int)1)) = i;
    });
  Kokkos::parallel_for("petsckp::AggregationSort", range(nagg), KOKKOS_LAMBDA(Int J) { HeapSortRange(r, cnt(J), cnt(J + 1)); });
  return nbad;
}

void AggregationToCsr(const Aggregation &P, CsrMatrix &M)
{
  M.nrows   = P.n;
  M.ncols   = P.nagg;
  M.rowptr  = View<Int>("aggregation P rowptr", P.n + 1);
  auto a    = P.agg;
  auto rp   = M.rowptr;
  Kokkos::parallel_for("petsckp::AggregationToCsrCount", range(P.n), KOKKOS_LAMBDA(Int i) { rp(i) = a(i) >= 0; });
  M.nnz    = ExclusiveScan(rp, P.n, "petsckp::AggregationToCsrScan");
  M.colidx = View<Ordinal>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("aggregation P colidx")), M.nnz);
  M.vals   = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("aggregation P vals")), M.nnz);
  auto c   = M.colidx;
  auto v   = M.vals;
  Kokkos::parallel_for(
    "petsckp::AggregationToCsrFill", range(P.n), KOKKOS_LAMBDA(Int i) {
      if (a(i) >= 0) {
        c(rp(i)) = (Ordinal)a(i);
        v(rp(i)) = 1;
      }
    });
}

Int AggregationCountEmpty(const Aggregation &P)
{
  auto ptr   = P.ptr;
  Int  empty = 0;
  Kokkos::parallel_reduce(
    "petsckp::AggregationCountEmpty", range(P.nagg), KOKKOS_LAMBDA(Int J, Int & e) { e += ptr(J + 1) == ptr(J); }, empty);
  return empty;
}

Int AggregationCompact(Aggregation &P, UView<Int> newid)
{
  const Int nagg = P.nagg;
  auto      ptr  = P.ptr;
  View<Int> id("agg new id", nagg + 1);
  Kokkos::parallel_for("petsckp::AggregationCompactFlag", range(nagg), KOKKOS_LAMBDA(Int J) { id(J) = ptr(J + 1) > ptr(J); });
  const Int nnew = ExclusiveScan(id, nagg, "petsckp::AggregationCompactScan");
  View<Int> nptr(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("agg ptr")), nnew + 1);
  const bool wantid = newid.extent(0) > 0;
  Kokkos::parallel_for(
    "petsckp::AggregationCompactPtr", range(nagg + 1), KOKKOS_LAMBDA(Int J) {
      const bool keep = J == nagg || ptr(J + 1) > ptr(J);
      if (keep) nptr(id(J)) = ptr(J);
      if (wantid && J < nagg) newid(J) = keep ? id(J) : -1;
    });
  auto agg = P.agg;
  Kokkos::parallel_for(
    "petsckp::AggregationCompactAgg", range(P.n), KOKKOS_LAMBDA(Int i) {
      if (agg(i) >= 0) agg(i) = id(agg(i));
    });
  P.ptr  = nptr;
  P.nagg = nnew;
  return nnew;
}

void AggRestrict(const Aggregation &P, UView<const Scalar> x, UView<Scalar> yc)
{
  auto ptr  = P.ptr;
  auto rows = P.rows;
  Kokkos::parallel_for(
    "petsckp::AggRestrict", range(P.nagg), KOKKOS_LAMBDA(Int J) {
      Scalar s = 0;
      for (Int q = ptr(J); q < ptr(J + 1); q++) s += x(rows(q));
      yc(J) = s;
    });
}

void AggResidualRestrict(const Aggregation &P, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> g, UView<const Scalar> b, UView<const Scalar> x, UView<Scalar> yc)
{
  const bool hasAo = Ao.nrows > 0;
  auto       ptr = P.ptr, rows = P.rows;
  auto       rp = Ad.rowptr, orp = Ao.rowptr;
  auto       ci = Ad.colidx, oci = Ao.colidx;
  auto       av = Ad.vals, ov = Ao.vals;
  Kokkos::parallel_for(
    "petsckp::AggResidualRestrict", range(P.nagg), KOKKOS_LAMBDA(Int J) {
      Scalar s = 0;
      for (Int q = ptr(J); q < ptr(J + 1); q++) {
        const Int i  = rows(q);
        Scalar    ax = 0;
        for (Int k = rp(i); k < rp(i + 1); k++) ax += av(k) * x(ci(k));
        if (hasAo) {
          Scalar ag = 0;
          for (Int k = orp(i); k < orp(i + 1); k++) ag += ov(k) * g(oci(k));
          ax = ag + ax;
        }
        s += b(i) - ax;
      }
      yc(J) = s;
    });
}

void AggProlong(const Aggregation &P, Scalar alpha, UView<const Scalar> xc, Scalar beta, UView<Scalar> y)
{
  auto agg = P.agg;
  Kokkos::parallel_for(
    "petsckp::AggProlong", range(P.n), KOKKOS_LAMBDA(Int i) {
      const Int J = agg(i);
      const Scalar v = J >= 0 ? alpha * xc(J) : Scalar(0);
      y(i)         = beta == Scalar(0) ? v : v + beta * y(i);
    });
}

bool GalerkinAggregate(const CsrMatrix &A, const Aggregation &Pr, const Aggregation &Pc, CsrMatrix &Ac, GalerkinMap &map)
{
  if (Pr.n != A.nrows || Pc.n != A.ncols) return false;
  const Int     ncr = Pr.nagg, ncc = Pc.nagg, nnzf = A.nnz;
  const Int     nmem = (Int)Pr.rows.extent(0);
  const int64_t mult = nnzf > 0 ? nnzf : 1;
  auto          rowptr = A.rowptr;
  auto          colidx = A.colidx;
  auto          rptr = Pr.ptr, rrows = Pr.rows;
  auto          cagg = Pc.agg;

  /* 1. segment of each member row (members in aggregate order, so each coarse row's entries are contiguous) */
  View<Int> off("galerkin offsets", nmem + 1);
  Kokkos::parallel_for(
    "petsckp::GalerkinCount", range(nmem), KOKKOS_LAMBDA(Int p) {
      const Int i = rrows(p);
      Int       c = 0;
      for (Int k = rowptr(i); k < rowptr(i + 1); k++) c += cagg(colidx(k)) >= 0;
      off(p) = c;
    });
  const Int T = ExclusiveScan(off, nmem, "petsckp::GalerkinScan");

  /* 2. keys (coarse column, fine entry), sorted per coarse row */
  Kokkos::View<int64_t *, MemSpace> keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("galerkin keys")), T);
  Kokkos::parallel_for(
    "petsckp::GalerkinKeys", range(nmem), KOKKOS_LAMBDA(Int p) {
      const Int i = rrows(p);
      Int       q = off(p);
      for (Int k = rowptr(i); k < rowptr(i + 1); k++) {
        const Int J = cagg(colidx(k));
        if (J >= 0) keys(q++) = (int64_t)J * mult + k;
      }
    });
  View<Int> crow("galerkin coarse rowptr", ncr + 1);
  Kokkos::parallel_for(
    "petsckp::GalerkinSort", range(ncr), KOKKOS_LAMBDA(Int I) {
      const Int b = off(rptr(I)), e = off(rptr(I + 1));
      HeapSortRange(keys, b, e);
      Int u = 0;
      for (Int q = b; q < e; q++)
        if (q == b || keys(q) / mult != keys(q - 1) / mult) u++;
      crow(I) = u;
    });
  const Int nnzc = ExclusiveScan(crow, ncr, "petsckp::GalerkinScan2");

  /* 3. coarse pattern and the fine <-> coarse maps */
  map.nnzf        = nnzf;
  map.nnzc        = nnzc;
  map.nrows       = A.nrows;
  map.ncols       = A.ncols;
  map.fine2coarse = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("galerkin f2c")), nnzf);
  map.cptr        = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("galerkin cptr")), nnzc + 1);
  map.perm        = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("galerkin perm")), T);
  Kokkos::deep_copy(exec(), map.fine2coarse, (Int)-1);
  CsrAllocate(Ac, ncr, ncc, crow, nnzc, "galerkin");
  auto f2c = map.fine2coarse, cptr = map.cptr, perm = map.perm;
  auto cc  = Ac.colidx;
  Kokkos::parallel_for(
    "petsckp::GalerkinFill", range(ncr), KOKKOS_LAMBDA(Int I) {
      const Int b = off(rptr(I)), e = off(rptr(I + 1));
      Int       ce = crow(I) - 1;
      for (Int q = b; q < e; q++) {
        const int64_t key = keys(q);
        const Int     J = (Int)(key / mult), k = (Int)(key % mult);
        if (q == b || J != (Int)(keys(q - 1) / mult)) {
          ce++;
          cc(ce)   = (Ordinal)J;
          cptr(ce) = q;
        }
        perm(q) = k;
        f2c(k)  = ce;
      }
    });
  Kokkos::parallel_for(
    "petsckp::GalerkinLast", range(1), KOKKOS_LAMBDA(Int) { cptr(nnzc) = T; });
  GalerkinAggregateNumeric(ucv(A.vals), map, Ac);
  return true;
}

void GalerkinAggregateNumeric(UView<const Scalar> Avals, const GalerkinMap &map, CsrMatrix &Ac)
{
  auto cptr = map.cptr, perm = map.perm;
  auto cv   = Ac.vals;
  Kokkos::parallel_for(
    "petsckp::GalerkinNumeric", range(map.nnzc), KOKKOS_LAMBDA(Int e) {
      Scalar s = 0;
      for (Int q = cptr(e); q < cptr(e + 1); q++) s += Avals(perm(q));
      cv(e) = s;
    });
}

/* the longest candidate segment of a row of SpgemmSymbolic built by insertion (longer ones are heap-sorted) */
constexpr Int kSpgemmInsertionMax = 256;

bool SpgemmSymbolic(const CsrMatrix &A, const CsrMatrix &Ao, const CsrMatrix &B, CsrMatrix &C)
{
  const bool two = Ao.rowptr.extent(0) > 0;
  if (A.ncols + (two ? Ao.ncols : 0) != B.nrows || (two && Ao.nrows != A.nrows)) return false;
  const Int m = A.nrows, shift = A.ncols;
  auto      arp = A.rowptr, orp = Ao.rowptr;
  auto      aci = A.colidx, oci = Ao.colidx;
  auto      brp = B.rowptr;
  auto      bci = B.colidx;

  /* 1. candidate columns per row (upper bound of the row length of C) */
  View<Int> off("spgemm offsets", m + 1);
  Kokkos::parallel_for(
    "petsckp::SpgemmCount", range(m), KOKKOS_LAMBDA(Int i) {
      Int c = 0;
      for (Int k = arp(i); k < arp(i + 1); k++) c += brp(aci(k) + 1) - brp(aci(k));
      if (two)
        for (Int k = orp(i); k < orp(i + 1); k++) c += brp(shift + oci(k) + 1) - brp(shift + oci(k));
      off(i) = c;
    });
  const Int T = ExclusiveScan(off, m, "petsckp::SpgemmScan");

  /* 2. the distinct candidates of each row, ascending, at the start of its segment; their number is the row length
        of C. A short segment (the stencil products of geometric multigrid: a few dozen candidates, a few distinct)
        is built by insertion into the sorted distinct prefix, each candidate placed by a scan from the end (the
        candidates of the rows of B come in nearly ascending order, so the scan is short and the repetitions are
        found at once); a long one is heap-sorted and compacted, so that the work stays O(T log T) in the worst case. */
  View<Ordinal> buf(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("spgemm candidates")), T);
  View<Int>     crp("spgemm rowptr", m + 1);
  Kokkos::parallel_for(
    "petsckp::SpgemmCandidates", range(m), KOKKOS_LAMBDA(Int i) {
      const Int b = off(i), e = off(i + 1);
      Int       u = 0;
      const Int na = arp(i + 1) - arp(i), nk = na + (two ? orp(i + 1) - orp(i) : 0);
      if (e - b <= kSpgemmInsertionMax) {
        for (Int t = 0; t < nk; t++) {
          const Int r = t < na ? (Int)aci(arp(i) + t) : shift + (Int)oci(orp(i) + t - na); /* the row of B */
          for (Int p = brp(r); p < brp(r + 1); p++) {
            const Ordinal c = bci(p);
            Int           q = b + u;
            while (q > b && buf(q - 1) > c) q--;
            if (q > b && buf(q - 1) == c) continue;
            for (Int t2 = b + u; t2 > q; t2--) buf(t2) = buf(t2 - 1);
            buf(q) = c;
            u++;
          }
        }
      } else {
        Int q = b;
        for (Int t = 0; t < nk; t++) {
          const Int r = t < na ? (Int)aci(arp(i) + t) : shift + (Int)oci(orp(i) + t - na);
          for (Int p = brp(r); p < brp(r + 1); p++) buf(q++) = bci(p);
        }
        HeapSortRange(buf, b, e);
        for (Int p = b; p < e; p++)
          if (p == b || buf(p) != buf(b + u - 1)) buf(b + u++) = buf(p);
      }
      crp(i) = u;
    });
  const Int nnz = ExclusiveScan(crp, m, "petsckp::SpgemmScan2");

  /* 3. the pattern */
  CsrAllocate(C, m, B.ncols, crp, nnz, "spgemm");
  Kokkos::deep_copy(exec(), C.vals, 0.0); /* a valid (zero) matrix until SpgemmNumeric */
  auto cci = C.colidx;
  Kokkos::parallel_for(
    "petsckp::SpgemmFill", range(m), KOKKOS_LAMBDA(Int i) {
      const Int b = off(i), e = crp(i);
      for (Int q = 0; q < crp(i + 1) - e; q++) cci(e + q) = buf(b + q);
    });
  return true;
}

bool SpgemmSymbolic(const CsrMatrix &A, const CsrMatrix &B, CsrMatrix &C)
{
  return SpgemmSymbolic(A, CsrMatrix(), B, C);
}

/* the position of column j in the sorted columns cci(cb .. ce - 1) of a row of C (j is there: symbolic phase) */
template <class CI>
KOKKOS_INLINE_FUNCTION Int RowPosition(const CI &cci, Int cb, Int ce, Ordinal j)
{
  Int lo = cb, hi = ce - 1;
  while (lo < hi) {
    const Int mid = lo + (hi - lo) / 2;
    if (cci(mid) < j) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* row i of C = A B into C's pattern (made by the symbolic phase) */
template <class RP, class CI, class V, class MV>
KOKKOS_INLINE_FUNCTION void SpgemmRow(Int i, const RP &arp, const CI &aci, const V &av, const RP &brp, const CI &bci, const V &bv, const RP &crp, const CI &cci, const MV &cv)
{
  const Int cb = crp(i), ce = crp(i + 1);
  for (Int e = cb; e < ce; e++) cv(e) = 0;
  for (Int k = arp(i); k < arp(i + 1); k++) {
    const Scalar a = av(k);
    for (Int p = brp(aci(k)); p < brp(aci(k) + 1); p++) {
      const Ordinal j  = bci(p);
      cv(RowPosition(cci, cb, ce, j)) += a * bv(p);
    }
  }
}

void SpgemmNumeric(const CsrMatrix &A, const CsrMatrix &B, CsrMatrix &C, UView<const Int> rowflag)
{
  const bool all = rowflag.extent(0) == 0;
  auto       arp = A.rowptr;
  auto       aci = A.colidx;
  auto       av  = A.vals;
  auto       brp = B.rowptr;
  auto       bci = B.colidx;
  auto       bv  = B.vals;
  auto       crp = C.rowptr;
  auto       cci = C.colidx;
  auto       cv  = C.vals;

  if (C.nrows == 0) return;
  Kokkos::parallel_for(
    "petsckp::SpgemmNumeric", range(C.nrows), KOKKOS_LAMBDA(Int i) {
      if (!all && !rowflag(i)) return;
      SpgemmRow(i, arp, aci, av, brp, bci, bv, crp, cci, cv);
    });
}

void SpgemmNumericChanged(const CsrMatrix &A, const CsrMatrix &B, CsrMatrix &C, UView<const Int> rowflag, UView<const Int> bflag, bool self, UView<Int> flagout)
{
  const bool haverf = rowflag.extent(0) > 0, havebf = bflag.extent(0) > 0, haveout = flagout.extent(0) > 0;
  auto       arp = A.rowptr;
  auto       aci = A.colidx;
  auto       av  = A.vals;
  auto       brp = B.rowptr;
  auto       bci = B.colidx;
  auto       bv  = B.vals;
  auto       crp = C.rowptr;
  auto       cci = C.colidx;
  auto       cv  = C.vals;

  if (C.nrows == 0) return;
  Kokkos::parallel_for(
    "petsckp::SpgemmNumericChanged", range(C.nrows), KOKKOS_LAMBDA(Int i) {
      bool f = (haverf && rowflag(i)) || (havebf && self && bflag(i));
      for (Int k = arp(i); k < arp(i + 1) && havebf && !f; k++)
        if (bflag(aci(k))) f = true;
      if (haveout) flagout(i) = f ? 1 : 0;
      if (!f) return;
      SpgemmRow(i, arp, aci, av, brp, bci, bv, crp, cci, cv);
    });
}

void SpgemmNumeric(const CsrMatrix &A, const CsrMatrix &B, CsrMatrix &C)
{
  SpgemmNumeric(A, B, C, UView<const Int>());
}

void SpgemmNumeric(const CsrMatrix &A, const CsrMatrix &Ao, const CsrMatrix &B, CsrMatrix &C)
{
  const bool two = Ao.rowptr.extent(0) > 0;
  const Int  shift = A.ncols;
  auto       arp = A.rowptr, orp = Ao.rowptr;
  auto       aci = A.colidx, oci = Ao.colidx;
  auto       av = A.vals, ov = Ao.vals;
  auto       brp = B.rowptr;
  auto       bci = B.colidx;
  auto       bv  = B.vals;
  auto       crp = C.rowptr;
  auto       cci = C.colidx;
  auto       cv  = C.vals;

  if (!two) {
    SpgemmNumeric(A, B, C);
    return;
  }
  if (C.nrows == 0) return;
  /* row i of C = (row i of A) B + (row i of Ao) B, in this order: the order of summation of [A | Ao] B */
  Kokkos::parallel_for(
    "petsckp::SpgemmNumericBlocks", range(C.nrows), KOKKOS_LAMBDA(Int i) {
      const Int cb = crp(i), ce = crp(i + 1);
      for (Int e = cb; e < ce; e++) cv(e) = 0;
      const Int na = arp(i + 1) - arp(i), nk = na + orp(i + 1) - orp(i);
      for (Int t = 0; t < nk; t++) {
        const Int    r = t < na ? (Int)aci(arp(i) + t) : shift + (Int)oci(orp(i) + t - na);
        const Scalar a = t < na ? av(arp(i) + t) : ov(orp(i) + t - na);
        for (Int p = brp(r); p < brp(r + 1); p++) {
          const Ordinal j  = bci(p);
          cv(RowPosition(cci, cb, ce, j)) += a * bv(p);
        }
      }
    });
}

bool GalerkinRapSymbolic(const CsrMatrix &R, const CsrMatrix &A, const CsrMatrix &P, GalerkinRap &work, CsrMatrix &C)
{
  if (R.ncols != A.nrows || A.ncols != P.nrows) return false;
  if (!SpgemmSymbolic(A, P, work.AP)) return false;
  if (!SpgemmSymbolic(R, work.AP, C)) return false;
  GalerkinRapNumeric(R, A, P, work, C);
  return true;
}

void GalerkinRapNumeric(const CsrMatrix &R, const CsrMatrix &A, const CsrMatrix &P, GalerkinRap &work, CsrMatrix &C)
{
  SpgemmNumeric(A, P, work.AP);
  SpgemmNumeric(R, work.AP, C);
}

bool GalerkinRapSymbolic(const CsrMatrix &R, const CsrMatrix &A, const CsrMatrix &Ao, const CsrMatrix &P, GalerkinRap &work, CsrMatrix &C)
{
  if (R.ncols != A.nrows) return false;
  if (!SpgemmSymbolic(A, Ao, P, work.AP)) return false;
  if (!SpgemmSymbolic(R, work.AP, C)) return false;
  GalerkinRapNumeric(R, A, Ao, P, work, C);
  return true;
}

void GalerkinRapNumeric(const CsrMatrix &R, const CsrMatrix &A, const CsrMatrix &Ao, const CsrMatrix &P, GalerkinRap &work, CsrMatrix &C)
{
  SpgemmNumeric(A, Ao, P, work.AP);
  SpgemmNumeric(R, work.AP, C);
}

Int MaskChanges(UView<const Scalar> keep, UView<const Scalar> newkeep, UView<Int> flag)
{
  const Int  n    = (Int)keep.extent(0);
  const bool ones = newkeep.extent(0) == 0;
  Int        cnt  = 0;

  if (n == 0) return 0;
  Kokkos::parallel_reduce(
    "petsckp::MaskChanges", range(n),
    KOKKOS_LAMBDA(Int i, Int & c) {
      const Int f = keep(i) != (ones ? Scalar(1) : newkeep(i)) ? 1 : 0;
      flag(i)     = f;
      c += f;
    },
    cnt);
  return cnt;
}

void MaskUpdate(UView<Scalar> keep, UView<const Scalar> newkeep, UView<Int> flag)
{
  const Int  n    = (Int)keep.extent(0);
  const bool ones = newkeep.extent(0) == 0;

  if (n == 0) return;
  Kokkos::parallel_for(
    "petsckp::MaskUpdate", range(n), KOKKOS_LAMBDA(Int i) {
      const Scalar k = ones ? Scalar(1) : newkeep(i);
      const Int    f = keep(i) != k ? 1 : 0;
      flag(i)        = f;
      if (f) keep(i) = k;
    });
}

Int FlagCount(UView<const Int> flag)
{
  const Int n   = (Int)flag.extent(0);
  Int       cnt = 0;

  if (n == 0) return 0;
  Kokkos::parallel_reduce("petsckp::FlagCount", range(n), KOKKOS_LAMBDA(Int i, Int & c) { c += flag(i) ? 1 : 0; }, cnt);
  return cnt;
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* building blocks of the distributed Galerkin product */

void CsrConcatColumnsNumeric(const CsrMatrix &A, const CsrMatrix &B, CsrMatrix &C)
{
  auto arp = A.rowptr, brp = B.rowptr, crp = C.rowptr;
  auto av = A.vals, bv = B.vals, cv = C.vals;
  Kokkos::parallel_for(
    "petsckp::CsrConcatColumnsNumeric", range(C.nrows), KOKKOS_LAMBDA(Int i) {
      Int q = crp(i);
      for (Int k = arp(i); k < arp(i + 1); k++) cv(q++) = av(k);
      for (Int k = brp(i); k < brp(i + 1); k++) cv(q++) = bv(k);
    });
}

void CsrExtractRows(const CsrMatrix &A, UView<const Int> rows, CsrMatrix &B, View<Int> &src)
{
  const Int k = (Int)rows.extent(0);
  auto      arp = A.rowptr;
  auto      aci = A.colidx;
  View<Int> brp("extract rowptr", k + 1);
  Kokkos::parallel_for(
    "petsckp::CsrExtractRowsCount", range(k), KOKKOS_LAMBDA(Int r) { brp(r) = arp(rows(r) + 1) - arp(rows(r)); });
  const Int nnz = ExclusiveScan(brp, k, "petsckp::CsrExtractRowsScan");
  CsrAllocate(B, k, A.ncols, brp, nnz, "extract");
  src      = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("extract source")), nnz);
  auto bci = B.colidx;
  auto s   = src;
  Kokkos::parallel_for(
    "petsckp::CsrExtractRowsFill", range(k), KOKKOS_LAMBDA(Int r) {
      Int q = brp(r);
      for (Int e = arp(rows(r)); e < arp(rows(r) + 1); e++, q++) {
        bci(q) = aci(e);
        s(q)   = e;
      }
    });
  GatherValues(ucv(A.vals), ucv(src), uv(B.vals));
}

bool CsrExtractRows(const CsrMatrix &A, const CsrMatrix &B, UView<const Int> rows, CsrMatrix &E, View<Int> &src)
{
  if (A.nrows != B.nrows) return false;
  const Int k = (Int)rows.extent(0), shift = A.ncols;
  auto      arp = A.rowptr, brp = B.rowptr;
  auto      aci = A.colidx, bci = B.colidx;
  auto      av = A.vals, bv = B.vals;
  View<Int> erp("extract rowptr", k + 1);
  Kokkos::parallel_for(
    "petsckp::CsrExtractRowsConcatCount", range(k), KOKKOS_LAMBDA(Int r) {
      const Int i = rows(r);
      erp(r)      = (arp(i + 1) - arp(i)) + (brp(i + 1) - brp(i));
    });
  const Int nnz = ExclusiveScan(erp, k, "petsckp::CsrExtractRowsConcatScan");
  CsrAllocate(E, k, A.ncols + B.ncols, erp, nnz, "extract");
  src      = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("extract source")), nnz);
  auto eci = E.colidx;
  auto ev  = E.vals;
  auto s   = src;
  Kokkos::parallel_for(
    "petsckp::CsrExtractRowsConcatFill", range(k), KOKKOS_LAMBDA(Int r) {
      const Int i = rows(r), c = arp(i) + brp(i); /* row i of [A | B] starts at entry c */
      Int       q = erp(r);
      for (Int e = arp(i); e < arp(i + 1); e++, q++) eci(q) = aci(e), ev(q) = av(e), s(q) = c + (e - arp(i));
      for (Int e = brp(i); e < brp(i + 1); e++, q++) eci(q) = (Ordinal)(shift + bci(e)), ev(q) = bv(e), s(q) = c + (arp(i + 1) - arp(i)) + (e - brp(i));
    });
  return true;
}

bool CsrConcatBlocks(const CsrMatrix &A, const CsrMatrix &B, UView<const Int> bmap, const CsrMatrix &G, Int ncols, CsrMatrix &C)
{
  if (A.nrows != B.nrows) return false;
  const Int  m = A.nrows, mg = G.nrows, shift = A.ncols, nlead = A.nnz + B.nnz;
  const bool mapped = bmap.extent(0) > 0;
  auto       arp = A.rowptr, brp = B.rowptr, grp = G.rowptr;
  auto       aci = A.colidx, bci = B.colidx, gci = G.colidx;
  View<Int>  crp(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("concat blocks rowptr")), m + mg + 1);
  /* the row offsets without a scan: row i < m of [A | B] starts at A.rowptr(i) + B.rowptr(i), row r of G at nlead +
     G.rowptr(r) */
  Kokkos::parallel_for(
    "petsckp::CsrConcatBlocksPtr", range(m + mg + 1), KOKKOS_LAMBDA(Int i) {
      if (i < m) crp(i) = arp(i) + brp(i);
      else if (mg > 0) crp(i) = nlead + grp(i - m);
      else crp(i) = nlead; /* i == m and G has no rows */
    });
  CsrAllocate(C, m + mg, ncols, crp, nlead + G.nnz, "concat blocks");
  auto cci = C.colidx;
  if (m > 0)
    Kokkos::parallel_for(
      "petsckp::CsrConcatBlocksFill", range(m), KOKKOS_LAMBDA(Int i) {
        Int q = arp(i) + brp(i);
        for (Int k = arp(i); k < arp(i + 1); k++) cci(q++) = aci(k);
        for (Int k = brp(i); k < brp(i + 1); k++) cci(q++) = (Ordinal)(shift + (mapped ? bmap(bci(k)) : (Int)bci(k)));
      });
  if (G.nnz > 0)
    Kokkos::parallel_for(
      "petsckp::CsrConcatBlocksFillRows", range(G.nnz), KOKKOS_LAMBDA(Int k) { cci(nlead + k) = gci(k); });
  CsrConcatBlocksNumeric(A, B, G, C);
  return true;
}

void CsrConcatBlocksNumeric(const CsrMatrix &A, const CsrMatrix &B, const CsrMatrix &G, CsrMatrix &C)
{
  const Int nlead = A.nnz + B.nnz;
  CsrMatrix L = CsrLeadingRowsShared(C, A.nrows, nlead);

  CsrConcatColumnsNumeric(A, B, L);
  if (G.nnz > 0) {
    auto gv = G.vals, cv = C.vals;
    Kokkos::parallel_for(
      "petsckp::CsrConcatBlocksNumericRows", range(G.nnz), KOKKOS_LAMBDA(Int k) { cv(nlead + k) = gv(k); });
  }
}

CsrMatrix CsrLeadingRowsShared(const CsrMatrix &A, Int nrows, Int nnz)
{
  CsrMatrix B;
  B.nrows  = nrows;
  B.ncols  = A.ncols;
  B.nnz    = nnz;
  B.rowptr = Kokkos::subview(A.rowptr, Kokkos::make_pair((Int)0, nrows + 1));
  B.colidx = A.colidx;
  B.vals   = A.vals;
  return B;
}

void GatherValues(UView<const Scalar> v, UView<const Int> idx, UView<Scalar> out)
{
  Kokkos::parallel_for(
    "petsckp::GatherValues", range((Int)idx.extent(0)), KOKKOS_LAMBDA(Int q) { out(q) = v(idx(q)); });
}

void GatherInts(UView<const Int> v, UView<const Int> idx, UView<Int> out)
{
  Kokkos::parallel_for(
    "petsckp::GatherInts", range((Int)idx.extent(0)), KOKKOS_LAMBDA(Int q) { out(q) = v(idx(q)); });
}

void CsrRemapColumns(CsrMatrix &A, Int nfirst, UView<const Int> map, Int ncols)
{
  auto ci = A.colidx;
  Kokkos::parallel_for(
    "petsckp::CsrRemapColumns", range(A.nnz), KOKKOS_LAMBDA(Int k) {
      const Int c = ci(k);
      if (c >= nfirst) ci(k) = (Ordinal)(nfirst + map(c - nfirst));
    });
  A.ncols = ncols;
}

void CsrTransposePerm(const CsrMatrix &A, CsrMatrix &At, View<Int> &perm)
{
  CsrTranspose(A, At, perm);
}

bool CsrInterleaveRows(const CsrMatrix &A, const CsrMatrix &B, CsrMatrix &S, View<Int> &src)
{
  if (A.nrows != B.nrows) return false;
  const Int m = A.nrows, nnza = A.nnz;
  auto      arp = A.rowptr, brp = B.rowptr;
  auto      aci = A.colidx, bci = B.colidx;
  View<Int> srp("interleave rowptr", m + 1);
  Kokkos::parallel_for(
    "petsckp::CsrInterleaveCount", range(m), KOKKOS_LAMBDA(Int i) { srp(i) = (arp(i + 1) - arp(i)) + (brp(i + 1) - brp(i)); });
  const Int nnz = ExclusiveScan(srp, m, "petsckp::CsrInterleaveScan");
  CsrAllocate(S, m, A.ncols > B.ncols ? A.ncols : B.ncols, srp, nnz, "interleave");
  src      = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("interleave source")), nnz);
  auto sci = S.colidx;
  auto s   = src;
  Kokkos::parallel_for(
    "petsckp::CsrInterleaveFill", range(m), KOKKOS_LAMBDA(Int i) {
      Int q = srp(i);
      for (Int k = arp(i); k < arp(i + 1); k++, q++) sci(q) = aci(k), s(q) = k;
      for (Int k = brp(i); k < brp(i + 1); k++, q++) sci(q) = bci(k), s(q) = nnza + k;
    });
  CsrInterleaveRowsNumeric(ucv(A.vals), ucv(B.vals), ucv(src), S);
  return true;
}

void CsrInterleaveRowsNumeric(UView<const Scalar> avals, UView<const Scalar> bvals, UView<const Int> src, CsrMatrix &S)
{
  const Int nnza = (Int)avals.extent(0);
  auto      sv   = S.vals;
  Kokkos::parallel_for(
    "petsckp::CsrInterleaveNumeric", range(S.nnz), KOKKOS_LAMBDA(Int q) {
      const Int k = src(q);
      sv(q)       = k < nnza ? avals(k) : bvals(k - nnza);
    });
}

Int CsrRowsToMerge(const CsrMatrix &A, UView<const Int> extra, View<Int> &rows)
{
  const Int m = A.nrows, k = (Int)extra.extent(0);
  auto      arp = A.rowptr;
  auto      aci = A.colidx;
  View<Int> flag("merge row flags", m + 1);

  if (m > 0)
    Kokkos::parallel_for(
      "petsckp::CsrRowsToMergeSorted", range(m), KOKKOS_LAMBDA(Int i) {
        for (Int e = arp(i) + 1; e < arp(i + 1); e++)
          if (aci(e) <= aci(e - 1)) {
            flag(i) = 1;
            break;
          }
      });
  if (k > 0)
    Kokkos::parallel_for(
      "petsckp::CsrRowsToMergeExtra", range(k), KOKKOS_LAMBDA(Int r) { flag(extra(r)) = 1; }); /* every writer writes 1 */
  const Int n = ExclusiveScan(flag, m, "petsckp::CsrRowsToMergeScan");
  rows        = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("rows to merge")), n);
  auto rw     = rows;
  if (m > 0)
    Kokkos::parallel_for(
      "petsckp::CsrRowsToMergeFill", range(m), KOKKOS_LAMBDA(Int i) {
        if (flag(i + 1) > flag(i)) rw(flag(i)) = i;
      });
  return n;
}

/* the checks of CsrReplaceRows / CsrReplaceRowsSplit (B has one row per entry of rows; rows ascending, without
   repetition, in range: a host read of one count) and from(i) = the row of B that replaces row i of the m rows, -1
   for none; false (nothing made) when a check fails */
static bool ReplaceRowsMap(Int m, UView<const Int> rows, const CsrMatrix &B, View<Int> &from)
{
  const Int k = (Int)rows.extent(0);
  if (B.nrows != k || k > m) return false;
  if (k > 0) {
    Int bad = 0;
    Kokkos::parallel_reduce(
      "petsckp::CsrReplaceRowsCheck", range(k), KOKKOS_LAMBDA(Int r, Int & b) { b += (rows(r) < 0 || rows(r) >= m || (r > 0 && rows(r) <= rows(r - 1))) ? 1 : 0; }, bad);
    if (bad) return false;
  }
  from = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("replace rows source row")), m);
  Kokkos::deep_copy(exec(), from, (Int)-1);
  auto f = from;
  if (k > 0)
    Kokkos::parallel_for(
      "petsckp::CsrReplaceRowsMap", range(k), KOKKOS_LAMBDA(Int r) { f(rows(r)) = r; });
  return true;
}

bool CsrReplaceRows(const CsrMatrix &A, UView<const Int> rows, const CsrMatrix &B, CsrMatrix &C, View<Int> &src)
{
  const Int m = A.nrows, nnza = A.nnz;
  View<Int> from;
  if (!ReplaceRowsMap(m, rows, B, from)) return false;
  auto      arp = A.rowptr, brp = B.rowptr;
  auto      aci = A.colidx, bci = B.colidx;
  View<Int> crp("replace rows rowptr", m + 1);
  if (m > 0)
    Kokkos::parallel_for(
      "petsckp::CsrReplaceRowsCount", range(m), KOKKOS_LAMBDA(Int i) {
        const Int r = from(i);
        crp(i)      = r < 0 ? arp(i + 1) - arp(i) : brp(r + 1) - brp(r);
      });
  const Int nnz = ExclusiveScan(crp, m, "petsckp::CsrReplaceRowsScan");
  CsrAllocate(C, m, A.ncols > B.ncols ? A.ncols : B.ncols, crp, nnz, "replace rows");
  src      = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("replace rows source")), nnz);
  auto cci = C.colidx;
  auto s   = src;
  if (m > 0)
    Kokkos::parallel_for(
      "petsckp::CsrReplaceRowsFill", range(m), KOKKOS_LAMBDA(Int i) {
        const Int r = from(i);
        Int       q = crp(i);
        if (r < 0)
          for (Int e = arp(i); e < arp(i + 1); e++, q++) cci(q) = aci(e), s(q) = e;
        else
          for (Int e = brp(r); e < brp(r + 1); e++, q++) cci(q) = bci(e), s(q) = nnza + e;
      });
  CsrInterleaveRowsNumeric(Kokkos::subview(ucv(A.vals), Kokkos::make_pair((Int)0, nnza)), ucv(B.vals), ucv(src), C);
  return true;
}

bool CsrReplaceRowsSplit(const CsrMatrix &A, UView<const Int> rows, const CsrMatrix &B, Int nsplit, CsrMatrix &D, CsrMatrix &O, View<Int> &used, View<Int> &dsrc, View<Int> &osrc)
{
  const Int m = A.nrows, nnza = A.nnz;
  const Int ncols = A.ncols > B.ncols ? A.ncols : B.ncols, ng = ncols > nsplit ? ncols - nsplit : 0;
  View<Int> from;
  if (!ReplaceRowsMap(m, rows, B, from)) return false;
  auto      arp = A.rowptr, brp = B.rowptr;
  auto      aci = A.colidx, bci = B.colidx;
  View<Int> drp("replace split local rowptr", m + 1), orp("replace split ghost rowptr", m + 1);
  View<Int> gid("replace split ghost ids", ng + 1);
  /* 1. the row lengths of both blocks and the ghost columns that occur (in the rows kept and the rows put in) */
  if (m > 0)
    Kokkos::parallel_for(
      "petsckp::CsrReplaceRowsSplitCount", range(m), KOKKOS_LAMBDA(Int i) {
        const Int r = from(i);
        const Int b = r < 0 ? arp(i) : brp(r), e = r < 0 ? arp(i + 1) : brp(r + 1);
        Int       d = 0;
        for (Int q = b; q < e; q++) {
          const Int c = r < 0 ? (Int)aci(q) : (Int)bci(q);
          if (c < nsplit) d++;
          else gid(c - nsplit) = 1; /* every writer writes 1 */
        }
        drp(i) = d;
        orp(i) = (e - b) - d;
      });
  const Int nused = ExclusiveScan(gid, ng, "petsckp::CsrReplaceRowsSplitGhostScan");
  used            = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("split used ghosts")), nused);
  auto u          = used;
  if (ng > 0)
    Kokkos::parallel_for(
      "petsckp::CsrReplaceRowsSplitUsed", range(ng), KOKKOS_LAMBDA(Int g) {
        if (gid(g + 1) > gid(g)) u(gid(g)) = g;
      });
  const Int nd = ExclusiveScan(drp, m, "petsckp::CsrReplaceRowsSplitScanLocal");
  const Int no = ExclusiveScan(orp, m, "petsckp::CsrReplaceRowsSplitScanGhost");
  /* 2. the two blocks */
  CsrAllocate(D, m, nsplit, drp, nd, "split local");
  CsrAllocate(O, m, nused, orp, no, "split ghost");
  dsrc     = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("split local source")), nd);
  osrc     = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("split ghost source")), no);
  auto dci = D.colidx, oci = O.colidx;
  auto ds = dsrc, os = osrc;
  if (m > 0)
    Kokkos::parallel_for(
      "petsckp::CsrReplaceRowsSplitFill", range(m), KOKKOS_LAMBDA(Int i) {
        const Int r = from(i);
        const Int b = r < 0 ? arp(i) : brp(r), e = r < 0 ? arp(i + 1) : brp(r + 1);
        Int       qd = drp(i), qo = orp(i);
        for (Int q = b; q < e; q++) {
          const Int c = r < 0 ? (Int)aci(q) : (Int)bci(q), src = r < 0 ? q : nnza + q;
          if (c < nsplit) dci(qd) = (Ordinal)c, ds(qd++) = src;
          else oci(qo) = (Ordinal)gid(c - nsplit), os(qo++) = src;
        }
      });
  const auto av = Kokkos::subview(ucv(A.vals), Kokkos::make_pair((Int)0, nnza));
  CsrInterleaveRowsNumeric(av, ucv(B.vals), ucv(dsrc), D);
  CsrInterleaveRowsNumeric(av, ucv(B.vals), ucv(osrc), O);
  return true;
}

/* entry p before entry q of a row: by column, then by entry index (the order of the sum over a column) */
template <class CI>
KOKKOS_INLINE_FUNCTION bool EntryBefore(const CI &ci, Int p, Int q)
{
  return ci(p) < ci(q) || (ci(p) == ci(q) && p < q);
}

/* sorts the entry indices idx(b .. e-1) by (column, index), one thread: insertion for a short range (the merged rows
   of a distributed product: a few dozen entries, nearly sorted), a heap sort otherwise */
template <class IV, class CI>
KOKKOS_INLINE_FUNCTION void SortEntriesByColumn(const IV &idx, const CI &ci, Int b, Int e)
{
  const Int m = e - b;
  if (m <= 2 * kSortInsertionMax) {
    for (Int q = b + 1; q < e; q++) {
      const Int v = idx(q);
      Int       t = q;
      while (t > b && EntryBefore(ci, v, idx(t - 1))) idx(t) = idx(t - 1), t--;
      idx(t) = v;
    }
    return;
  }
  for (Int root = m / 2 - 1; root >= 0; root--) /* max-heap of idx(b .. e-1) */
    for (Int r = root;;) {
      Int c = 2 * r + 1;
      if (c >= m) break;
      if (c + 1 < m && EntryBefore(ci, idx(b + c), idx(b + c + 1))) c++;
      if (!EntryBefore(ci, idx(b + r), idx(b + c))) break;
      const Int t = idx(b + r);
      idx(b + r) = idx(b + c), idx(b + c) = t, r = c;
    }
  for (Int len = m - 1; len > 0; len--) {
    Int t = idx(b);
    idx(b) = idx(b + len), idx(b + len) = t;
    for (Int r = 0;;) {
      Int c = 2 * r + 1;
      if (c >= len) break;
      if (c + 1 < len && EntryBefore(ci, idx(b + c), idx(b + c + 1))) c++;
      if (!EntryBefore(ci, idx(b + r), idx(b + c))) break;
      t = idx(b + r), idx(b + r) = idx(b + c), idx(b + c) = t, r = c;
    }
  }
}

void CsrSumDuplicates(const CsrMatrix &S, CsrMatrix &C, GalerkinMap &map)
{
  /* row by row: the entry indices of a row sorted by (column, index) in place of the row's segment of perm, then one
     coarse entry per distinct column, summed in ascending entry order: the map of GalerkinAggregate() with identity
     aggregations, without its passes over the columns (O(S.nnz + S.nrows) work, whatever S.ncols) */
  const Int m = S.nrows, nnz = S.nnz;
  auto      srp = S.rowptr;
  auto      sci = S.colidx;
  View<Int> perm(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("sum duplicates perm")), nnz);
  View<Int> crp("sum duplicates rowptr", m + 1);
  if (m > 0)
    Kokkos::parallel_for(
      "petsckp::CsrSumDuplicatesSort", range(m), KOKKOS_LAMBDA(Int i) {
        const Int b = srp(i), e = srp(i + 1);
        for (Int q = b; q < e; q++) perm(q) = q;
        SortEntriesByColumn(perm, sci, b, e);
        Int u = 0;
        for (Int q = b; q < e; q++) u += (q == b || sci(perm(q)) != sci(perm(q - 1))) ? 1 : 0;
        crp(i) = u;
      });
  const Int nnzc = ExclusiveScan(crp, m, "petsckp::CsrSumDuplicatesScan");
  map.nnzf        = nnz;
  map.nnzc        = nnzc;
  map.nrows       = m;
  map.ncols       = S.ncols;
  map.fine2coarse = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("galerkin f2c")), nnz);
  map.cptr        = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("galerkin cptr")), nnzc + 1);
  map.perm        = perm;
  CsrAllocate(C, m, S.ncols, crp, nnzc, "sum duplicates");
  auto f2c = map.fine2coarse, cptr = map.cptr;
  auto cc  = C.colidx;
  if (m > 0)
    Kokkos::parallel_for(
      "petsckp::CsrSumDuplicatesFill", range(m), KOKKOS_LAMBDA(Int i) {
        const Int b = srp(i), e = srp(i + 1);
        Int       ce = crp(i) - 1;
        for (Int q = b; q < e; q++) {
          const Int k = perm(q);
          if (q == b || sci(k) != sci(perm(q - 1))) {
            ce++;
            cc(ce)   = sci(k);
            cptr(ce) = q;
          }
          f2c(k) = ce;
        }
      });
  Kokkos::parallel_for(
    "petsckp::CsrSumDuplicatesLast", range(1), KOKKOS_LAMBDA(Int) { cptr(nnzc) = nnz; });
  GalerkinAggregateNumeric(ucv(S.vals), map, C);
}

void CsrSplitColumns(const CsrMatrix &C, Int nsplit, CsrMatrix &D, CsrMatrix &O, View<Int> &used, View<Int> &dsrc, View<Int> &osrc)
{
  const CsrMatrix none; /* no row replaced: the sources are the entries of C */
  CsrReplaceRowsSplit(C, UView<const Int>(), none, nsplit, D, O, used, dsrc, osrc);
}
} // namespace petsckp
