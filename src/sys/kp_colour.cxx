/*
   kp_colour.cxx - deterministic Jones-Plassmann graph colouring, colour partitions and structured colourings.
*/
#include "kp_colour.hpp"
#include "kp_segsort.hpp"

namespace petsckp
{
void GraphSymmetrize(Int n, UView<const Int> rowptr, UView<const Ordinal> colidx, CsrGraph &G)
{
  View<Int> cnt("sym count", n + 1);
  Kokkos::parallel_for(
    "petsckp::GraphSymmetrizeCount", range(n), KOKKOS_LAMBDA(Int i) {
      for (Int k = rowptr(i); k < rowptr(i + 1); k++) {
        const Int j = colidx(k);
        if (j < 0 || j >= n || j == i) continue;
        Kokkos::atomic_add(&cnt(i), (Int)1);
        Kokkos::atomic_add(&cnt(j), (Int)1);
      }
    });
  const Int T = ExclusiveScan(cnt, n, "petsckp::GraphSymmetrizeScan");
  /* both directions of every edge, in any order: rows are sorted afterwards, so the result is deterministic */
  View<Int> cur(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("sym cursor")), n + 1);
  Kokkos::deep_copy(exec(), cur, cnt);
  View<Ordinal> all(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("sym all")), T);
  Kokkos::parallel_for(
    "petsckp::GraphSymmetrizeFill", range(n), KOKKOS_LAMBDA(Int i) {
      for (Int k = rowptr(i); k < rowptr(i + 1); k++) {
        const Int j = colidx(k);
        if (j < 0 || j >= n || j == i) continue;
        all(Kokkos::atomic_fetch_add(&cur(i), (Int)1)) = (Ordinal)j;
        all(Kokkos::atomic_fetch_add(&cur(j), (Int)1)) = (Ordinal)i;
      }
    });
  View<Int> ucnt("sym unique count", n + 1);
  Kokkos::parallel_for(
    "petsckp::GraphSymmetrizeSort", range(n), KOKKOS_LAMBDA(Int i) {
      const Int b = cnt(i), e = cnt(i + 1);
      HeapSortRange(all, b, e);
      Int u = 0;
      for (Int k = b; k < e; k++)
        if (k == b || all(k) != all(k - 1)) u++;
      ucnt(i) = u;
    });
  const Int nnz = ExclusiveScan(ucnt, n, "petsckp::GraphSymmetrizeScan2");
  G.n           = n;
  G.nnz         = nnz;
  G.rowptr      = ucnt;
  G.colidx      = View<Ordinal>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("sym colidx")), nnz);
  auto gc       = G.colidx;
  Kokkos::parallel_for(
    "petsckp::GraphSymmetrizeUnique", range(n), KOKKOS_LAMBDA(Int i) {
      Int p = ucnt(i);
      for (Int k = cnt(i); k < cnt(i + 1); k++)
        if (k == cnt(i) || all(k) != all(k - 1)) gc(p++) = all(k);
    });
}

void GraphSymmetrize(const CsrMatrix &A, CsrGraph &G)
{
  GraphSymmetrize(A.nrows, ucv(A.rowptr), ucv(A.colidx), G);
}

Int GraphColour(Int n, UView<const Int> rowptr, UView<const Ordinal> colidx, UView<Int> colour, unsigned seed)
{
  if (n <= 0) return 0;
  const std::uint64_t sd = seed;
  View<int>           sel(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("jp selected")), n);
  Kokkos::parallel_for("petsckp::GraphColourInit", range(n), KOKKOS_LAMBDA(Int i) { colour(i) = -1; });
  Int left = n;
  while (left > 0) {
    /* 1. select the uncoloured vertices whose weight beats every uncoloured neighbour: an independent set */
    Kokkos::parallel_for(
      "petsckp::GraphColourSelect", range(n), KOKKOS_LAMBDA(Int i) {
        int s = 0;
        if (colour(i) < 0) {
          const std::uint64_t wi = HashMix((std::uint64_t)i, sd);
          s                      = 1;
          for (Int k = rowptr(i); k < rowptr(i + 1); k++) {
            const Int j = colidx(k);
            if (j < 0 || j >= n || j == i || colour(j) >= 0) continue;
            const std::uint64_t wj = HashMix((std::uint64_t)j, sd);
            if (wj > wi || (wj == wi && j > i)) {
              s = 0;
              break;
            }
          }
        }
        sel(i) = s;
      });
    /* 2. colour them with the smallest colour absent from their (already coloured) neighbours; the selected
          vertices are pairwise non-adjacent, so no vertex reads a colour written in this kernel */
    Int nowleft = 0;
    Kokkos::parallel_reduce(
      "petsckp::GraphColourAssign", range(n),
      KOKKOS_LAMBDA(Int i, Int & cnt) {
        if (sel(i)) {
          for (Int base = 0;; base += 64) {
            std::uint64_t used = 0;
            for (Int k = rowptr(i); k < rowptr(i + 1); k++) {
              const Int j = colidx(k);
              if (j < 0 || j >= n || j == i) continue;
              const Int cj = colour(j);
              if (cj >= base && cj < base + 64) used |= (std::uint64_t)1 << (cj - base);
            }
            if (~used) {
              Int b = 0;
              while (used & ((std::uint64_t)1 << b)) b++;
              colour(i) = base + b;
              break;
            }
          }
        } else if (colour(i) < 0) cnt++;
      },
      nowleft);
    left = nowleft;
  }
  Int maxc = 0;
  Kokkos::parallel_reduce(
    "petsckp::GraphColourMax", range(n), KOKKOS_LAMBDA(Int i, Int & m) { m = colour(i) > m ? colour(i) : m; }, Kokkos::Max<Int>(maxc));
  return maxc + 1;
}

Int GraphColour(const CsrGraph &G, UView<Int> colour, unsigned seed)
{
  return GraphColour(G.n, ucv(G.rowptr), ucv(G.colidx), colour, seed);
}

Int GraphColourCheck(Int n, UView<const Int> rowptr, UView<const Ordinal> colidx, UView<const Int> colour, Int ncolours)
{
  Int bad = 0;
  Kokkos::parallel_reduce(
    "petsckp::GraphColourCheck", range(n),
    KOKKOS_LAMBDA(Int i, Int & b) {
      const Int ci = colour(i);
      if (ci < 0 || ci >= ncolours) b++;
      for (Int k = rowptr(i); k < rowptr(i + 1); k++) {
        const Int j = colidx(k);
        if (j < 0 || j >= n || j == i) continue;
        if (colour(j) == ci) b++;
      }
    },
    bad);
  return bad;
}

Int GraphColourCheck(const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Int> colour, UView<const Scalar> ghostcolour, Int ncolours)
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
    "petsckp::GraphColourCheckBlocks", range(n),
    KOKKOS_LAMBDA(Int i, Int & b) {
      const Int c = colour(i);
      if (c < 0 || c >= ncolours) b++;
      for (Int k = rp(i); k < rp(i + 1); k++)
        if (ci(k) != i && va(k) != 0 && colour(ci(k)) == c) b++;
      if (haveo)
        for (Int k = orp(i); k < orp(i + 1); k++)
          if (ova(k) != 0 && (Int)ghostcolour(oci(k)) == c) b++;
    },
    bad);
  return bad;
}

void ColourScalars(UView<const Int> colour, UView<Scalar> s)
{
  Kokkos::parallel_for("petsckp::ColourScalars", range((Int)colour.extent(0)), KOKKOS_LAMBDA(Int i) { s(i) = (Scalar)colour(i); });
}

Int ColourPartitionCreate(Int n, UView<const Int> colour, Int ncolours, ColourPartition &P)
{
  /* stable counting sort by colour in blocks of S consecutive rows: per-block counts (colour-major), one scan,
     then every block places its rows in order. Deterministic; O(n + ncolours * nblocks) work. */
  const Int S  = ncolours * 4 > 256 ? ncolours * 4 : 256;
  const Int nb = (n + S - 1) / S;
  const Int K  = ncolours > 0 ? ncolours : 0;
  View<Int> off("colour block offsets", K * nb + 1);
  Int       nbad = 0;
  Kokkos::parallel_reduce(
    "petsckp::ColourPartitionCount", range(nb),
    KOKKOS_LAMBDA(Int b, Int & bad) {
      for (Int i = b * S; i < (b + 1) * S && i < n; i++) {
        const Int c = colour(i);
        if (c < 0 || c >= K) bad++;
        else off(c * nb + b)++;
      }
    },
    nbad);
  const Int total = ExclusiveScan(off, K * nb, "petsckp::ColourPartitionScan");
  P.n             = total;
  P.ncolours      = K;
  P.offsets       = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("colour offsets")), K + 1);
  P.rows          = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("colour rows")), total);
  auto po         = P.offsets;
  auto pr         = P.rows;
  Kokkos::parallel_for(
    "petsckp::ColourPartitionOffsets", range(K + 1), KOKKOS_LAMBDA(Int c) { po(c) = off(c * nb); });
  /* each block owns the cursors off(c * nb + b) for all c */
  Kokkos::parallel_for(
    "petsckp::ColourPartitionFill", range(nb), KOKKOS_LAMBDA(Int b) {
      for (Int i = b * S; i < (b + 1) * S && i < n; i++) {
        const Int c = colour(i);
        if (c < 0 || c >= K) continue;
        pr(off(c * nb + b)++) = i;
      }
    });
  P.hoffsets = HostView<Int>(std::string("colour offsets host"), K + 1);
  Kokkos::deep_copy(exec(), P.hoffsets, P.offsets);
  exec().fence();
  return nbad;
}

Int StructuredColourCount(int dim, Int s, bool box)
{
  const Int q = s + 1;
  if (!box) return q;
  return dim == 1 ? q : dim == 2 ? q * q : q * q * q;
}

Int StructuredColour(int dim, Int s, bool box, Int xs, Int ys, Int zs, Int xm, Int ym, Int zm, UView<Int> colour)
{
  const Int nloc = xm * ym * zm;
  Kokkos::parallel_for(
    "petsckp::StructuredColour", range(nloc), KOKKOS_LAMBDA(Int p) {
      const Int i = xs + p % xm, j = ys + (p / xm) % ym, k = zs + p / (xm * ym);
      colour(p)   = StructuredColourOf(i, j, k, dim, s, box);
    });
  return StructuredColourCount(dim, s, box);
}

bool StructuredColourPeriodicOK(Int s, Int M, bool periodic)
{
  return !periodic || M % (s + 1) == 0;
}
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
    "petsckp::ColourSweep", range(n), KOKKOS_LAMBDA(Int t) {
      const Int    i    = rows(t);
      Scalar       s    = b(i);
      const Scalar diag = SorRowSum(rp, ci, va, i, x, s);
      if (haveo)
        for (Int k = orp(i); k < orp(i + 1); k++) s -= ova(k) * g(oci(k));
      if (diag == 0) return;
      x(i) = SorRowUpdate(x(i), s, diag, omega, havelo, havelo ? lo(i) : Scalar(0), haveup, haveup ? up(i) : Scalar(0));
    });
}

} // namespace petsckp
