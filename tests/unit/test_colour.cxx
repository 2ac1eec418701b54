/* Unit tests of src/sys/kp_colour: symmetrisation, Jones-Plassmann colouring (against the serial greedy colouring
   in decreasing-weight order, which JP with first-fit reproduces exactly), validation, colour partitions and
   structured DMDA colourings. */
#include "kp_test.hpp"
#include "kp_colour.hpp"
#include "kp_segsort.hpp"
#include <set>

using namespace kptest;

namespace
{
struct HostGraph {
  Int                  n = 0;
  std::vector<Int>     rowptr;
  std::vector<Ordinal> colidx;
};

HostGraph RefSymmetrize(Int n, const std::vector<Int> &rp, const std::vector<Int> &ci)
{
  std::vector<std::set<Int>> rows(n);
  for (Int i = 0; i < n; i++)
    for (Int k = rp[i]; k < rp[i + 1]; k++) {
      Int j = ci[k];
      if (j < 0 || j >= n || j == i) continue;
      rows[i].insert(j);
      rows[j].insert(i);
    }
  HostGraph G;
  G.n = n;
  G.rowptr.push_back(0);
  for (Int i = 0; i < n; i++) {
    for (Int j : rows[i]) G.colidx.push_back((Ordinal)j);
    G.rowptr.push_back((Int)G.colidx.size());
  }
  return G;
}

/* serial greedy colouring in decreasing (hash, index) order = the JP first-fit result */
std::vector<Int> RefColour(const HostGraph &G, unsigned seed)
{
  std::vector<Int> order(G.n), colour(G.n, -1);
  for (Int i = 0; i < G.n; i++) order[i] = i;
  auto w = [&](Int i) { return HashMix((std::uint64_t)i, seed); };
  std::sort(order.begin(), order.end(), [&](Int a, Int b) { return w(a) != w(b) ? w(a) > w(b) : a > b; });
  for (Int v : order) {
    std::set<Int> used;
    for (Int k = G.rowptr[v]; k < G.rowptr[v + 1]; k++)
      if (G.colidx[k] != v) used.insert(colour[G.colidx[k]]);
    Int c = 0;
    while (used.count(c)) c++;
    colour[v] = c;
  }
  return colour;
}

Int RefCheck(const HostGraph &G, const std::vector<Int> &colour, Int nc)
{
  Int bad = 0;
  for (Int i = 0; i < G.n; i++) {
    if (colour[i] < 0 || colour[i] >= nc) bad++;
    for (Int k = G.rowptr[i]; k < G.rowptr[i + 1]; k++) {
      Int j = G.colidx[k];
      if (j >= 0 && j < G.n && j != i && colour[j] == colour[i]) bad++;
    }
  }
  return bad;
}

struct DevGraph {
  View<Int>     rp;
  View<Ordinal> ci;
};
DevGraph ToDeviceGraph(const HostGraph &G)
{
  return {ToDevice(G.rowptr), ToDevice(G.colidx)};
}

HostGraph FromCsr(const HostCsr &h)
{
  HostGraph G;
  G.n      = h.nrows;
  G.rowptr = h.rowptr;
  for (Int c : h.colidx) G.colidx.push_back((Ordinal)c);
  return G;
}

/* colour a graph on the device, check against the reference, the checker and the partition */
void ColourAndCompare(const HostGraph &G, unsigned seed)
{
  auto      d  = ToDeviceGraph(G);
  View<Int> dc("colour", G.n);
  Int       nc = GraphColour(G.n, ucv(d.rp), ucv(d.ci), uv(dc), seed);
  auto      c  = ToHost(dc);
  auto      rc = RefColour(G, seed);
  EXPECT_EQ(c, rc) << "n " << G.n;
  Int refnc = G.n ? *std::max_element(rc.begin(), rc.end()) + 1 : 0;
  EXPECT_EQ(nc, refnc);
  EXPECT_EQ(GraphColourCheck(G.n, ucv(d.rp), ucv(d.ci), ucv(dc), nc), 0);
  EXPECT_EQ(RefCheck(G, c, nc), 0);
  /* partition: rows of each colour in ascending order */
  ColourPartition P;
  EXPECT_EQ(ColourPartitionCreate(G.n, ucv(dc), nc, P), 0);
  ASSERT_EQ(P.ncolours, nc);
  auto off  = ToHost(P.offsets);
  auto rows = ToHost(P.rows);
  ASSERT_EQ((Int)rows.size(), G.n);
  Int p = 0;
  for (Int col = 0; col < nc; col++) {
    EXPECT_EQ(off[col], p);
    EXPECT_EQ(P.hoffsets(col), p);
    for (Int i = 0; i < G.n; i++)
      if (c[i] == col) {
        EXPECT_EQ(rows[p], i);
        p++;
      }
  }
  EXPECT_EQ(off[nc], G.n);
  EXPECT_EQ(P.hoffsets(nc), G.n);
}
} // namespace

TEST(Colour, SymmetrizeMatchesReference)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    HostCsr   h = RandomCsr(n, n, 101 + (unsigned)n);
    auto      ref = RefSymmetrize(n, h.rowptr, h.colidx);
    auto      rp = ToDevice(h.rowptr);
    std::vector<Ordinal> ci(h.colidx.begin(), h.colidx.end());
    auto      dci = ToDevice(ci);
    CsrGraph  G;
    GraphSymmetrize(n, ucv(rp), ucv(dci), G);
    EXPECT_EQ(G.n, n);
    EXPECT_EQ(G.nnz, (Int)ref.colidx.size());
    EXPECT_EQ(ToHost(G.rowptr), ref.rowptr);
    EXPECT_EQ(ToHost(G.colidx), ref.colidx);
  }
}

TEST(Colour, JonesPlassmannMatchesSerialGreedy)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    HostCsr   h   = RandomCsr(n, n, 103 + (unsigned)n);
    auto      ref = RefSymmetrize(n, h.rowptr, h.colidx);
    for (unsigned seed : {0u, 7u}) ColourAndCompare(ref, seed);
  }
}

TEST(Colour, NonSymmetricStructureCheckerCountsConflicts)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    /* colouring a non-symmetric structure directly may conflict; the checker must count exactly what the serial
       check counts, and an all-zero colouring has one violation per off-diagonal entry */
    HostCsr   h = RandomCsr(n, n, 107 + (unsigned)n);
    HostGraph G = FromCsr(h);
    auto      d = ToDeviceGraph(G);
    View<Int> dc("colour", n);
    Int       nc = GraphColour(n, ucv(d.rp), ucv(d.ci), uv(dc), 3);
    EXPECT_EQ(GraphColourCheck(n, ucv(d.rp), ucv(d.ci), ucv(dc), nc), RefCheck(G, ToHost(dc), nc));
    std::vector<Int> zero(n, 0);
    auto             dz = ToDevice(zero);
    Int              offdiag = 0;
    for (Int i = 0; i < n; i++)
      for (Int k = h.rowptr[i]; k < h.rowptr[i + 1]; k++) offdiag += h.colidx[k] != i;
    EXPECT_EQ(GraphColourCheck(n, ucv(d.rp), ucv(d.ci), ucv(dz), 1), offdiag);
    /* colours out of range are violations too */
    if (n > 0) EXPECT_EQ(GraphColourCheck(n, ucv(d.rp), ucv(d.ci), ucv(dz), 0), n + offdiag);
  }
}

TEST(Colour, Laplacian2DAndDiagonalOnly)
{
  for (const Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    /* diagonal-only (and isolated vertices): one colour */
    HostGraph D;
    D.n = n;
    D.rowptr.push_back(0);
    for (Int i = 0; i < n; i++) {
      D.colidx.push_back((Ordinal)i);
      D.rowptr.push_back(i + 1);
    }
    ColourAndCompare(D, 0);
    /* 5-point Laplacian on an m x (n/m) grid (rows beyond the grid are isolated) */
    Int       m = std::max<Int>(1, (Int)std::sqrt((double)n));
    HostGraph L;
    L.n = n;
    L.rowptr.push_back(0);
    for (Int p = 0; p < n; p++) {
      Int i = p % m, j = p / m;
      for (Int q : {p - m, p - 1, p, p + 1, p + m}) {
        if (q < 0 || q >= n) continue;
        Int qi = q % m, qj = q / m;
        if (std::abs(qi - i) + std::abs(qj - j) <= 1) L.colidx.push_back((Ordinal)q);
      }
      L.rowptr.push_back((Int)L.colidx.size());
    }
    ColourAndCompare(L, 1);
  }
}

TEST(Colour, CompleteGraphNeedsMoreThan64Colours)
{
  const Int m = 130;
  HostGraph K;
  K.n = m;
  K.rowptr.push_back(0);
  for (Int i = 0; i < m; i++) {
    for (Int j = 0; j < m; j++) K.colidx.push_back((Ordinal)j);
    K.rowptr.push_back((Int)K.colidx.size());
  }
  ColourAndCompare(K, 0);
  auto      d = ToDeviceGraph(K);
  View<Int> dc("c", m);
  EXPECT_EQ(GraphColour(m, ucv(d.rp), ucv(d.ci), uv(dc)), m);
}

TEST(Colour, PartitionReportsOutOfRangeColours)
{
  std::vector<Int> c = {0, 2, -1, 1, 5, 0};
  auto             dc = ToDevice(c);
  ColourPartition  P;
  EXPECT_EQ(ColourPartitionCreate(6, ucv(dc), 3, P), 2);
  EXPECT_EQ(P.n, 4);
  EXPECT_EQ(ToHost(P.rows), (std::vector<Int>{0, 5, 3, 1}));
  EXPECT_EQ(ToHost(P.offsets), (std::vector<Int>{0, 2, 3, 4}));
}

TEST(Colour, StructuredColouringsAreValid)
{
  for (int dim = 1; dim <= 3; dim++)
    for (Int s = 1; s <= 2; s++)
      for (bool box : {false, true}) {
        const Int M = 7, N = dim > 1 ? 6 : 1, P = dim > 2 ? 5 : 1;
        const Int nc = StructuredColourCount(dim, s, box);
        EXPECT_EQ(nc, box ? (Int)std::pow(s + 1, dim) : s + 1);
        /* a local box with offsets, as a rank sees it */
        const Int xs = 2, ys = dim > 1 ? 1 : 0, zs = dim > 2 ? 3 : 0, xm = 4, ym = dim > 1 ? 3 : 1, zm = dim > 2 ? 2 : 1;
        View<Int> dc("c", xm * ym * zm);
        EXPECT_EQ(StructuredColour(dim, s, box, xs, ys, zs, xm, ym, zm, uv(dc)), nc);
        auto hc = ToHost(dc);
        for (Int k = 0; k < zm; k++)
          for (Int j = 0; j < ym; j++)
            for (Int i = 0; i < xm; i++) EXPECT_EQ(hc[i + xm * (j + ym * k)], StructuredColourOf(xs + i, ys + j, zs + k, dim, s, box));
        /* brute force over the global grid: no two stencil neighbours share a colour; all colours used */
        std::set<Int> used;
        Int           bad = 0;
        for (Int k = 0; k < P; k++)
          for (Int j = 0; j < N; j++)
            for (Int i = 0; i < M; i++) {
              Int c = StructuredColourOf(i, j, k, dim, s, box);
              used.insert(c);
              if (c < 0 || c >= nc) bad++;
              for (Int dk = (dim > 2 ? -s : 0); dk <= (dim > 2 ? s : 0); dk++)
                for (Int dj = (dim > 1 ? -s : 0); dj <= (dim > 1 ? s : 0); dj++)
                  for (Int di = -s; di <= s; di++) {
                    Int nz = (di != 0) + (dj != 0) + (dk != 0);
                    if (nz == 0 || (!box && nz > 1)) continue;
                    Int ii = i + di, jj = j + dj, kk = k + dk;
                    if (ii < 0 || ii >= M || jj < 0 || jj >= N || kk < 0 || kk >= P) continue;
                    if (StructuredColourOf(ii, jj, kk, dim, s, box) == c) bad++;
                  }
            }
        EXPECT_EQ(bad, 0) << "dim " << dim << " s " << s << " box " << box;
        EXPECT_EQ((Int)used.size(), nc);
      }
  EXPECT_TRUE(StructuredColourPeriodicOK(1, 8, true));
  EXPECT_FALSE(StructuredColourPeriodicOK(1, 7, true));
  EXPECT_TRUE(StructuredColourPeriodicOK(2, 7, false));
}
