/*
   uaamg_kernels.cxx - kernels of the auxiliary-grid unsmoothed-aggregation AMG (see uaamg_kernels.hpp for the
   design; Wang, Hu, Cohen, Xu, SIAM J. Sci. Comput. 35(3), 2013).
*/
#include "uaamg_kernels.hpp"
#include "kp_segsort.hpp"
#include <cmath>
#include <limits>

namespace petsckp
{
namespace uaamg
{
namespace cm = petsckp::compat;

namespace
{
using TeamPolicy = Kokkos::TeamPolicy<ExecSpace>;
using Member     = TeamPolicy::member_type;
using Scratch    = Kokkos::View<Scalar *, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

KOKKOS_INLINE_FUNCTION Int iabs(Int a) { return a < 0 ? -a : a; }
KOKKOS_INLINE_FUNCTION Int imax(Int a, Int b) { return a > b ? a : b; }
KOKKOS_INLINE_FUNCTION Int imin(Int a, Int b) { return a < b ? a : b; }

/* slot of the coupling from the cell at ti to cell cj, -1 when beyond the reach */
KOKKOS_INLINE_FUNCTION Int OffsetSlot(const StencilGrid &g, const Int ti[3], Int cj)
{
  Int tj[3];
  g.coords(cj, tj);
  const Int o0 = tj[0] - ti[0], o1 = tj[1] - ti[1], o2 = tj[2] - ti[2];
  if (iabs(o0) > g.r[0] || iabs(o1) > g.r[1] || iabs(o2) > g.r[2]) return -1;
  return g.slot(o0, o1, o2);
}

/* f(slot, neighbour) for every slot of cell c whose neighbour lies in the grid, slots ascending */
template <class F>
KOKKOS_INLINE_FUNCTION void ForEachNeighbour(const StencilGrid &g, Int c, const F &f)
{
  Int t[3];
  g.coords(c, t);
  Int s = 0;
  for (Int o2 = -g.r[2]; o2 <= g.r[2]; o2++) {
    const Int  z  = t[2] + o2;
    const bool iz = z >= 0 && z < g.n[2];
    for (Int o1 = -g.r[1]; o1 <= g.r[1]; o1++) {
      const Int  y  = t[1] + o1;
      const bool iy = iz && y >= 0 && y < g.n[1];
      for (Int o0 = -g.r[0]; o0 <= g.r[0]; o0++, s++) {
        const Int x = t[0] + o0;
        if (iy && x >= 0 && x < g.n[0]) f(s, g.cell(x, y, z));
      }
    }
  }
}

/* (A x)_c of a stencil level */
template <class VV, class XV>
KOKKOS_INLINE_FUNCTION Scalar StencilRowDot(const StencilGrid &g, const VV &vals, Int c, const XV &x)
{
  const size_t nc = (size_t)g.ncells();
  Scalar       s  = 0;
  ForEachNeighbour(g, c, [&](Int slot, Int nb) { s += vals(slot * nc + c) * x(nb); });
  return s;
}

/* (Ad x + Ao g)_i and the diagonal a_ii of a fine row */
KOKKOS_INLINE_FUNCTION Scalar FineRowDot(const View<Int> &rp, const View<Ordinal> &ci, const View<Scalar> &v, bool hasAo, const View<Int> &orp, const View<Ordinal> &oci, const View<Scalar> &ov, const UView<const Scalar> &g, const UView<Scalar> &x, Int i, Scalar &d)
{
  Scalar s = 0;
  d        = 0;
  for (Int k = rp(i); k < rp(i + 1); k++) {
    s += v(k) * x(ci(k));
    if (ci(k) == (Ordinal)i) d += v(k);
  }
  if (hasAo)
    for (Int k = orp(i); k < orp(i + 1); k++) s += ov(k) * g(oci(k));
  return s;
}

/* vector lanes of the team kernels: a power of two covering up to 32 work items on a device, 1 on the host */
int Lanes(Int work)
{
  if (!kDeviceExec) return 1;
  int v = 1;
  while (v < 32 && v < work) v *= 2;
  return v;
}
} // namespace

/* ---- auxiliary grid */

void BoundingBox(int dim, UView<const Real> coords, Real lo[3], Real hi[3])
{
  const Real big = std::numeric_limits<Real>::max();
  const Int  n   = dim > 0 ? (Int)coords.extent(0) / dim : 0;
  Real       l0 = big, l1 = big, l2 = big, h0 = -big, h1 = -big, h2 = -big;
  if (n > 0) {
    Kokkos::parallel_reduce(
      "petsckp::uaamg::BoundingBox", range(n),
      KOKKOS_LAMBDA(Int i, Real & a0, Real & a1, Real & a2, Real & b0, Real & b1, Real & b2) {
        const Real x = coords(i * dim), y = dim > 1 ? coords(i * dim + 1) : 0, z = dim > 2 ? coords(i * dim + 2) : 0;
        if (x < a0) a0 = x; /* comparisons with NaN are false: non-finite values are ignored (infinities are not:
                               CellIds reports them) */
        if (x > b0) b0 = x;
        if (y < a1) a1 = y;
        if (y > b1) b1 = y;
        if (z < a2) a2 = z;
        if (z > b2) b2 = z;
      },
      Kokkos::Min<Real>(l0), Kokkos::Min<Real>(l1), Kokkos::Min<Real>(l2), Kokkos::Max<Real>(h0), Kokkos::Max<Real>(h1), Kokkos::Max<Real>(h2));
  }
  const Real l[3] = {l0, l1, l2}, h[3] = {h0, h1, h2};
  for (int a = 0; a < 3; a++) {
    lo[a] = a < dim ? l[a] : 0;
    hi[a] = a < dim ? h[a] : 0;
  }
}

void AuxDepths(DepthRule rule, int dim, int64_t N, const Real extent[3], Real target, Int depth[3])
{
  bool live[3] = {false, false, false};
  int  deff    = 0;
  for (int a = 0; a < 3; a++) {
    depth[a] = 0;
    live[a]  = a < dim && extent[a] > 0 && std::isfinite((double)extent[a]);
    deff += live[a];
  }
  if (deff == 0 || N <= 1) return;
  /* total splits: at most log2(N) (never more cells than DoFs) and what an Int cell id can hold */
  int maxsplits = 0;
  while (maxsplits + 1 < 62 && ((int64_t)1 << (maxsplits + 1)) <= N) maxsplits++;
  maxsplits = std::min<int>(maxsplits, (int)(8 * sizeof(Int)) - 2);
  if (rule == DepthRule::Paper) {
    int L = 0;
    while (deff * (L + 1) <= maxsplits) L++;
    for (int a = 0; a < 3; a++)
      if (live[a]) depth[a] = L;
    return;
  }
  const double t = (target >= 1) ? (double)target : 1.0; /* NaN gives 1 */
  const double q = (double)N / t;
  int          s = q > 1 ? (int)std::floor(std::log2(q) + 0.5) : 0;
  s              = std::min(s, maxsplits);
  for (int k = 0; k < s; k++) {
    int best = -1;
    for (int a = 0; a < 3; a++)
      if (live[a] && (best < 0 || std::ldexp((double)extent[a], -(int)depth[a]) > std::ldexp((double)extent[best], -(int)depth[best]))) best = a;
    depth[best]++;
  }
}

Int DecoupledRows(const CsrMatrix &Ad, const CsrMatrix &Ao, UView<Int> flag)
{
  auto       rp = Ad.rowptr, orp = Ao.rowptr;
  auto       ci = Ad.colidx;
  auto       v = Ad.vals, ov = Ao.vals;
  const bool hasAo = Ao.nrows > 0;
  Int        cnt   = 0;
  Kokkos::parallel_reduce(
    "petsckp::uaamg::DecoupledRows", range(Ad.nrows),
    KOKKOS_LAMBDA(Int i, Int & c) {
      bool dec = true;
      for (Int k = rp(i); k < rp(i + 1); k++)
        if (ci(k) != (Ordinal)i && v(k) != Scalar(0)) dec = false;
      if (hasAo)
        for (Int k = orp(i); k < orp(i + 1); k++)
          if (ov(k) != Scalar(0)) dec = false;
      flag(i) = dec ? 1 : 0;
      c += dec ? 1 : 0;
    },
    cnt);
  return cnt;
}

Int CellIds(const AuxGrid &g, UView<const Real> coords, UView<const Int> decoupled, UView<Int> cell)
{
  const Int  n      = (Int)cell.extent(0);
  const int  dim    = g.dim;
  const bool hasdec = decoupled.extent(0) > 0;
  const Int  n0 = g.n(0), n1 = g.n(1), n2 = g.n(2);
  const Real l0 = g.lo[0], l1 = g.lo[1], l2 = g.lo[2], h0 = g.hi[0], h1 = g.hi[1], h2 = g.hi[2];
  Int        bad = 0;
  Kokkos::parallel_reduce(
    "petsckp::uaamg::CellIds", range(n),
    KOKKOS_LAMBDA(Int i, Int & nb) {
      if (hasdec && decoupled(i)) {
        cell(i) = -1;
        return;
      }
      const Real x = coords(i * dim), y = dim > 1 ? coords(i * dim + 1) : 0, z = dim > 2 ? coords(i * dim + 2) : 0;
      if (!cm::isfinite(x) || !cm::isfinite(y) || !cm::isfinite(z)) {
        cell(i) = -1;
        nb++;
        return;
      }
      cell(i) = AxisCell(x, l0, h0, n0) + n0 * (AxisCell(y, l1, h1, n1) + n1 * AxisCell(z, l2, h2, n2));
    },
    bad);
  return bad;
}

AggregateStats AggregateSizes(const Aggregation &P)
{
  AggregateStats st;
  auto           ptr = P.ptr;
  Int            ne = 0, mn = 0, mx = 0;
  st.nagg = P.nagg;
  if (P.nagg == 0) return st;
  Kokkos::parallel_reduce(
    "petsckp::uaamg::AggregateSizes", range(P.nagg),
    KOKKOS_LAMBDA(Int G, Int & e, Int & lo, Int & hi) {
      const Int m = ptr(G + 1) - ptr(G);
      if (m == 0) e++;
      else if (m < lo) lo = m;
      if (m > hi) hi = m;
    },
    ne, Kokkos::Min<Int>(mn), Kokkos::Max<Int>(mx));
  st.nempty   = ne;
  st.maxsize  = mx;
  st.minsize  = ne == P.nagg ? 0 : mn;
  st.nmembers = (Int)P.rows.extent(0);
  return st;
}

/* ---- stencil levels */

StencilGrid StencilGridFromAux(const AuxGrid &g, const Int r[3])
{
  StencilGrid s;
  s.dim = g.dim;
  for (int a = 0; a < 3; a++) {
    s.n[a] = g.n(a);
    s.r[a] = std::max<Int>(0, std::min<Int>(r[a], s.n[a] - 1));
  }
  return s;
}

StencilGrid StencilGridCoarsen(const StencilGrid &g)
{
  StencilGrid c = g;
  for (int a = 0; a < 3; a++)
    if (g.n[a] > 1) {
      c.n[a] = g.n[a] / 2;
      c.r[a] = std::min<Int>((g.r[a] + 1) / 2, c.n[a] - 1);
    }
  return c;
}

void StencilAllocate(const StencilGrid &g, StencilMatrix &A)
{
  const size_t size = StencilStorage(g);
  A.grid            = g;
  if (A.vals.extent(0) != size) A.vals = View<Scalar>("uaamg stencil", size);
  else Kokkos::deep_copy(exec(), A.vals, Scalar(0));
}

void MeasureReach(const StencilGrid &g, UView<const Int> rowcell, const CsrMatrix &A, UView<const Int> colcell, Int r[3])
{
  auto rp = A.rowptr;
  auto ci = A.colidx;
  Int  r0 = 0, r1 = 0, r2 = 0;
  Kokkos::parallel_reduce(
    "petsckp::uaamg::MeasureReach", range(A.nrows),
    KOKKOS_LAMBDA(Int i, Int & m0, Int & m1, Int & m2) {
      const Int c = rowcell(i);
      if (c < 0) return;
      Int ti[3], tj[3];
      g.coords(c, ti);
      for (Int k = rp(i); k < rp(i + 1); k++) {
        const Int cj = colcell(ci(k));
        if (cj < 0 || cj == c) continue;
        g.coords(cj, tj);
        m0 = imax(m0, iabs(tj[0] - ti[0]));
        m1 = imax(m1, iabs(tj[1] - ti[1]));
        m2 = imax(m2, iabs(tj[2] - ti[2]));
      }
    },
    Kokkos::Max<Int>(r0), Kokkos::Max<Int>(r1), Kokkos::Max<Int>(r2));
  r[0] = imax(r0, 0); /* no entry: the reducers' identity is the smallest Int */
  r[1] = imax(r1, 0);
  r[2] = imax(r2, 0);
}

Int ReachViolations(const StencilGrid &g, UView<const Int> rowcell, const CsrMatrix &A, UView<const Int> colcell)
{
  auto rp = A.rowptr;
  auto ci = A.colidx;
  Int  cnt = 0;
  Kokkos::parallel_reduce(
    "petsckp::uaamg::ReachViolations", range(A.nrows),
    KOKKOS_LAMBDA(Int i, Int & v) {
      const Int c = rowcell(i);
      if (c < 0) return;
      Int ti[3];
      g.coords(c, ti);
      for (Int k = rp(i); k < rp(i + 1); k++) {
        const Int cj = colcell(ci(k));
        if (cj >= 0 && OffsetSlot(g, ti, cj) < 0) v++;
      }
    },
    cnt);
  return cnt;
}

bool GalerkinStencil(const CsrMatrix &A, const Aggregation &P, UView<const Int> colcell, StencilMatrix &AL, bool add, GalerkinAlgorithm alg)
{
  const StencilGrid g  = AL.grid;
  const Int         nc = g.ncells(), ns = g.nslots();
  if (P.n != A.nrows || P.nagg != nc || (Int)colcell.extent(0) < A.ncols || AL.vals.extent(0) != StencilStorage(g)) return false;
  if (alg == GalerkinAlgorithm::Auto) alg = kDeviceExec ? GalerkinAlgorithm::SlotLanes : GalerkinAlgorithm::CellThread;
  auto rp = A.rowptr;
  auto ci = A.colidx;
  auto av = A.vals;
  auto ptr = P.ptr, rows = P.rows;
  auto vals = AL.vals;
  if (alg == GalerkinAlgorithm::CellThread) {
    /* one thread per cell: the slots of the cell are accumulated in place, entries in ascending order */
    Kokkos::parallel_for(
      "petsckp::uaamg::GalerkinStencilCell", range(nc), KOKKOS_LAMBDA(Int c) {
        if (!add)
          for (Int s = 0; s < ns; s++) vals((size_t)s * nc + c) = 0;
        Int tc[3];
        g.coords(c, tc);
        for (Int q = ptr(c); q < ptr(c + 1); q++) {
          const Int i = rows(q);
          for (Int k = rp(i); k < rp(i + 1); k++) {
            const Int cj = colcell(ci(k));
            if (cj < 0) continue;
            const Int s = OffsetSlot(g, tc, cj);
            if (s >= 0) vals((size_t)s * nc + c) += av(k);
          }
        }
      });
  } else {
    /* T cells per team, a vector lane per slot: lane s scans the cell's entries (broadcast reads) and sums those
       of its slot, in the same ascending order as above */
    const int V = Lanes(ns), T = kDeviceExec ? std::max(1, 128 / V) : 1;
    Kokkos::parallel_for(
      "petsckp::uaamg::GalerkinStencilLanes", TeamPolicy(exec(), (nc + T - 1) / T, T, V), KOKKOS_LAMBDA(const Member &team) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, T), [&](const int t) {
          const Int c = (Int)team.league_rank() * T + t;
          if (c >= nc) return;
          Int tc[3];
          g.coords(c, tc);
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, ns), [&](const Int s) {
            Scalar sum = add ? vals((size_t)s * nc + c) : Scalar(0);
            for (Int q = ptr(c); q < ptr(c + 1); q++) {
              const Int i = rows(q);
              for (Int k = rp(i); k < rp(i + 1); k++) {
                const Int cj = colcell(ci(k));
                if (cj >= 0 && OffsetSlot(g, tc, cj) == s) sum += av(k);
              }
            }
            vals((size_t)s * nc + c) = sum;
          });
        });
      });
  }
  return true;
}

void StencilCoarsen(const StencilMatrix &Af, StencilMatrix &Ac)
{
  const StencilGrid gf = Af.grid, gc = StencilGridCoarsen(gf);
  if (Ac.vals.extent(0) != StencilStorage(gc)) Ac.vals = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg stencil")), StencilStorage(gc));
  Ac.grid          = gc;
  const Int ncf    = gf.ncells(), ncc = gc.ncells();
  const Int sh0    = gf.n[0] > 1, sh1 = gf.n[1] > 1, sh2 = gf.n[2] > 1;
  auto      fv     = Af.vals;
  auto      cv     = Ac.vals;
  Kokkos::parallel_for(
    "petsckp::uaamg::StencilCoarsen", range(ncc), KOKKOS_LAMBDA(Int P) {
      Int T[3];
      gc.coords(P, T);
      const Int sh[3] = {sh0, sh1, sh2};
      Int       p     = 0;
      for (Int p2 = -gc.r[2]; p2 <= gc.r[2]; p2++)
        for (Int p1 = -gc.r[1]; p1 <= gc.r[1]; p1++)
          for (Int p0 = -gc.r[0]; p0 <= gc.r[0]; p0++, p++) {
            const Int pp[3] = {p0, p1, p2};
            Scalar    s     = 0;
            /* children in ascending id; child offsets o_a with floor((c_a + o_a) / 2) = p_a (coarsened axis) or
               o_a = p_a (axis of one cell), ascending slots */
            for (Int c2 = 0; c2 <= sh[2]; c2++)
              for (Int c1 = 0; c1 <= sh[1]; c1++)
                for (Int c0 = 0; c0 <= sh[0]; c0++) {
                  const Int cc[3] = {c0, c1, c2};
                  const Int child = gf.cell((T[0] << sh[0]) + c0, (T[1] << sh[1]) + c1, (T[2] << sh[2]) + c2);
                  Int       olo[3], ohi[3];
                  for (int a = 0; a < 3; a++) {
                    olo[a] = sh[a] ? 2 * pp[a] - cc[a] : pp[a];
                    ohi[a] = sh[a] ? olo[a] + 1 : pp[a];
                    olo[a] = imax(olo[a], -gf.r[a]);
                    ohi[a] = imin(ohi[a], gf.r[a]);
                  }
                  for (Int o2 = olo[2]; o2 <= ohi[2]; o2++)
                    for (Int o1 = olo[1]; o1 <= ohi[1]; o1++)
                      for (Int o0 = olo[0]; o0 <= ohi[0]; o0++) s += fv((size_t)gf.slot(o0, o1, o2) * ncf + child);
                }
            cv((size_t)p * ncc + P) = s;
          }
    });
}

/* ---- transfers */

void TreeRestrict(const StencilGrid &fine, UView<const Scalar> xf, UView<Scalar> yc)
{
  const StencilGrid gc  = StencilGridCoarsen(fine);
  const Int         sh0 = fine.n[0] > 1, sh1 = fine.n[1] > 1, sh2 = fine.n[2] > 1;
  Kokkos::parallel_for(
    "petsckp::uaamg::TreeRestrict", range(gc.ncells()), KOKKOS_LAMBDA(Int P) {
      Int T[3];
      gc.coords(P, T);
      Scalar s = 0;
      for (Int c2 = 0; c2 <= sh2; c2++)
        for (Int c1 = 0; c1 <= sh1; c1++)
          for (Int c0 = 0; c0 <= sh0; c0++) s += xf(fine.cell((T[0] << sh0) + c0, (T[1] << sh1) + c1, (T[2] << sh2) + c2));
      yc(P) = s;
    });
}

void TreeProlong(const StencilGrid &fine, Scalar alpha, UView<const Scalar> xc, Scalar beta, UView<Scalar> yf)
{
  Kokkos::parallel_for(
    "petsckp::uaamg::TreeProlong", range(fine.ncells()), KOKKOS_LAMBDA(Int c) {
      const Scalar v = alpha * xc(fine.parent(c));
      yf(c)          = beta == Scalar(0) ? v : v + beta * yf(c);
    });
}

void StencilResidualRestrict(const StencilMatrix &A, UView<const Scalar> b, UView<const Scalar> x, UView<Scalar> yc)
{
  const StencilGrid fine = A.grid, gc = StencilGridCoarsen(fine);
  const Int         sh0 = fine.n[0] > 1, sh1 = fine.n[1] > 1, sh2 = fine.n[2] > 1;
  auto              vals = A.vals;
  Kokkos::parallel_for(
    "petsckp::uaamg::StencilResidualRestrict", range(gc.ncells()), KOKKOS_LAMBDA(Int P) {
      Int T[3];
      gc.coords(P, T);
      Scalar s = 0;
      for (Int c2 = 0; c2 <= sh2; c2++)
        for (Int c1 = 0; c1 <= sh1; c1++)
          for (Int c0 = 0; c0 <= sh0; c0++) {
            const Int c = fine.cell((T[0] << sh0) + c0, (T[1] << sh1) + c1, (T[2] << sh2) + c2);
            s += b(c) - StencilRowDot(fine, vals, c, x);
          }
      yc(P) = s;
    });
}

/* ---- operator application and conversions */

void StencilSpmv(const StencilMatrix &A, Scalar alpha, UView<const Scalar> x, Scalar beta, UView<Scalar> y)
{
  const StencilGrid g    = A.grid;
  auto              vals = A.vals;
  Kokkos::parallel_for(
    "petsckp::uaamg::StencilSpmv", range(g.ncells()), KOKKOS_LAMBDA(Int c) {
      const Scalar v = alpha * StencilRowDot(g, vals, c, x);
      y(c)           = beta == Scalar(0) ? v : v + beta * y(c);
    });
}

void StencilResidual(const StencilMatrix &A, UView<const Scalar> b, UView<const Scalar> x, UView<Scalar> r)
{
  const StencilGrid g    = A.grid;
  auto              vals = A.vals;
  Kokkos::parallel_for(
    "petsckp::uaamg::StencilResidual", range(g.ncells()), KOKKOS_LAMBDA(Int c) { r(c) = b(c) - StencilRowDot(g, vals, c, x); });
}

Int StencilCountInactive(const StencilMatrix &A)
{
  const Int    nc = A.grid.ncells();
  const size_t d  = (size_t)A.grid.centre() * nc;
  auto         vals = A.vals;
  Int          cnt  = 0;
  Kokkos::parallel_reduce(
    "petsckp::uaamg::StencilCountInactive", range(nc), KOKKOS_LAMBDA(Int c, Int & k) { k += vals(d + c) == Scalar(0) ? 1 : 0; }, cnt);
  return cnt;
}

void StencilToCsr(const StencilMatrix &A, bool unit_inactive, CsrMatrix &M)
{
  const StencilGrid g  = A.grid;
  const Int         nc = g.ncells();
  const size_t      d  = (size_t)g.centre() * nc;
  auto              vals = A.vals;
  View<Int>         rp("uaamg csr rowptr", nc + 1);
  Kokkos::parallel_for(
    "petsckp::uaamg::StencilToCsrCount", range(nc), KOKKOS_LAMBDA(Int c) {
      Int cnt = 0;
      if (vals(d + c) != Scalar(0)) ForEachNeighbour(g, c, [&](Int, Int nb) { cnt += vals(d + nb) != Scalar(0) ? 1 : 0; });
      else cnt = unit_inactive ? 1 : 0;
      rp(c) = cnt;
    });
  const Int nnz = ExclusiveScan(rp, nc, "petsckp::uaamg::StencilToCsrScan");
  CsrAllocate(M, nc, nc, rp, nnz, "uaamg csr");
  auto mc = M.colidx;
  auto mv = M.vals;
  Kokkos::parallel_for(
    "petsckp::uaamg::StencilToCsrFill", range(nc), KOKKOS_LAMBDA(Int c) {
      Int e = rp(c);
      if (vals(d + c) != Scalar(0)) ForEachNeighbour(g, c, [&](Int s, Int nb) {
          if (vals(d + nb) != Scalar(0)) {
            mc(e) = (Ordinal)nb;
            mv(e) = vals((size_t)s * nc + c);
            e++;
          }
        });
      else if (unit_inactive) {
        mc(e) = (Ordinal)c;
        mv(e) = 1;
      }
    });
}

void StencilToDense(const StencilMatrix &A, bool unit_inactive, UView<Scalar> M)
{
  const StencilGrid g  = A.grid;
  const Int         nc = g.ncells();
  const size_t      d  = (size_t)g.centre() * nc;
  auto              vals = A.vals;
  Kokkos::deep_copy(exec(), M, Scalar(0));
  Kokkos::parallel_for(
    "petsckp::uaamg::StencilToDense", range(nc), KOKKOS_LAMBDA(Int c) {
      if (vals(d + c) != Scalar(0)) ForEachNeighbour(g, c, [&](Int s, Int nb) { M(c + (size_t)nb * nc) = vals((size_t)s * nc + c); });
      else if (unit_inactive) M(c + (size_t)c * nc) = 1;
    });
}

/* ---- colouring validity */

Int StencilColourConflicts(const StencilMatrix &A)
{
  const StencilGrid g  = A.grid;
  const Int         nc = g.ncells(), cs = g.centre();
  auto              vals = A.vals;
  Int               cnt  = 0;
  Kokkos::parallel_reduce(
    "petsckp::uaamg::StencilColourConflicts", range(nc),
    KOKKOS_LAMBDA(Int c, Int & k) {
      const Int col = g.colour(c);
      ForEachNeighbour(g, c, [&](Int s, Int nb) {
        if (s != cs && vals((size_t)s * nc + c) != Scalar(0) && g.colour(nb) == col) k++;
      });
    },
    cnt);
  return cnt;
}

Int FineColourConflicts(const StencilGrid &gL, UView<const Int> rowcell, const CsrMatrix &A, UView<const Int> colcell)
{
  auto rp = A.rowptr;
  auto ci = A.colidx;
  auto av = A.vals;
  Int  cnt = 0;
  Kokkos::parallel_reduce(
    "petsckp::uaamg::FineColourConflicts", range(A.nrows),
    KOKKOS_LAMBDA(Int i, Int & k) {
      const Int c = rowcell(i);
      if (c < 0) return;
      const Int col = gL.colour(c);
      for (Int e = rp(i); e < rp(i + 1); e++) {
        const Int cj = colcell(ci(e));
        if (cj >= 0 && cj != c && av(e) != Scalar(0) && gL.colour(cj) == col) k++;
      }
    },
    cnt);
  return cnt;
}

/* ---- smoothers: stencil levels */

void StencilGaussSeidelColour(const StencilMatrix &A, Int k, Real omega, UView<const Scalar> b, UView<Scalar> x)
{
  const StencilGrid g  = A.grid;
  const size_t      d  = (size_t)g.centre() * g.ncells();
  auto              vals = A.vals;
  Kokkos::parallel_for(
    "petsckp::uaamg::StencilGaussSeidelColour", range(g.colourSize(k)), KOKKOS_LAMBDA(Int idx) {
      const Int    c  = g.colourCell(k, idx);
      const Scalar dc = vals(d + c);
      if (dc == Scalar(0)) return;
      x(c) += omega * (b(c) - StencilRowDot(g, vals, c, x)) / dc;
    });
}

void StencilGaussSeidel(const StencilMatrix &A, Sweep dir, Real omega, UView<const Scalar> b, UView<Scalar> x)
{
  const Int nk = A.grid.ncolours();
  for (Int q = 0; q < nk; q++) StencilGaussSeidelColour(A, dir == Sweep::Forward ? q : nk - 1 - q, omega, b, x);
}

void StencilGaussSeidelFromZero(const StencilMatrix &A, Sweep dir, Real omega, UView<const Scalar> b, UView<Scalar> x)
{
  const StencilGrid g  = A.grid;
  const Int         nk = g.ncolours(), k0 = dir == Sweep::Forward ? 0 : nk - 1;
  const size_t      d  = (size_t)g.centre() * g.ncells();
  auto              vals = A.vals;
  Kokkos::parallel_for(
    "petsckp::uaamg::StencilGaussSeidelFromZero", range(g.ncells()), KOKKOS_LAMBDA(Int c) {
      const Scalar dc = vals(d + c);
      x(c)            = dc != Scalar(0) && g.colour(c) == k0 ? Scalar(0) + omega * b(c) / dc : Scalar(0);
    });
  for (Int q = 1; q < nk; q++) StencilGaussSeidelColour(A, dir == Sweep::Forward ? q : nk - 1 - q, omega, b, x);
}

/* the policy of a small-level kernel: one team of at most 256 threads (fewer when the kernel's registers allow fewer) */
template <class F>
static TeamPolicy SmallLevelPolicy(const F &f)
{
  return TeamPolicyUpTo(f, 1, 256);
}

/* nsweeps coloured Gauss-Seidel sweeps by the threads of one team, a barrier after each colour; the first colour from
   x = 0 when zero (every cell written) */
template <class Member, class VV>
KOKKOS_INLINE_FUNCTION void TeamSweeps(const Member &t, const StencilGrid &g, const VV &vals, Sweep dir, Real omega, Int nsweeps, bool zero, const UView<const Scalar> &b, const UView<Scalar> &x)
{
  const Int    nk = g.ncolours(), nc = g.ncells();
  const size_t d  = (size_t)g.centre() * nc;
  for (Int s = 0; s < nsweeps; s++)
    for (Int q = 0; q < nk; q++) {
      const Int k = dir == Sweep::Forward ? q : nk - 1 - q;
      if (zero && s == 0 && q == 0)
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, nc), [&](const Int c) {
          const Scalar dc = vals(d + c);
          x(c)            = dc != Scalar(0) && g.colour(c) == k ? Scalar(0) + omega * b(c) / dc : Scalar(0);
        });
      else
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, g.colourSize(k)), [&](const Int idx) {
          const Int    c  = g.colourCell(k, idx);
          const Scalar dc = vals(d + c);
          if (dc != Scalar(0)) x(c) += omega * (b(c) - StencilRowDot(g, vals, c, x)) / dc;
        });
      t.team_barrier();
    }
}

void StencilSmoothRestrictTeam(const StencilMatrix &A, Sweep dir, Real omega, Int nsweeps, bool zero, UView<const Scalar> b, UView<Scalar> x, UView<Scalar> yc)
{
  const StencilGrid g = A.grid, gc = StencilGridCoarsen(g);
  const Int         nc = g.ncells(), sh0 = g.n[0] > 1, sh1 = g.n[1] > 1, sh2 = g.n[2] > 1;
  const bool        restrict_ = yc.extent(0) > 0;
  auto              vals      = A.vals;
  const auto        f         = KOKKOS_LAMBDA(const Member &t)
  {
    if (zero && nsweeps <= 0) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(t, nc), [&](const Int c) { x(c) = 0; });
      t.team_barrier();
    }
    TeamSweeps(t, g, vals, dir, omega, nsweeps, zero, b, x);
    if (!restrict_) return;
    /* yc = P^T (b - A x): as StencilResidualRestrict, children in ascending id */
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, gc.ncells()), [&](const Int P) {
      Int T[3];
      gc.coords(P, T);
      Scalar s = 0;
      for (Int c2 = 0; c2 <= sh2; c2++)
        for (Int c1 = 0; c1 <= sh1; c1++)
          for (Int c0 = 0; c0 <= sh0; c0++) {
            const Int c = g.cell((T[0] << sh0) + c0, (T[1] << sh1) + c1, (T[2] << sh2) + c2);
            s += b(c) - StencilRowDot(g, vals, c, x);
          }
      yc(P) = s;
    });
  };
  Kokkos::parallel_for("petsckp::uaamg::StencilSmoothRestrictTeam", SmallLevelPolicy(f), f);
}

void StencilProlongSmoothTeam(const StencilMatrix &A, UView<const Scalar> ec, Sweep dir, Real omega, Int nsweeps, UView<const Scalar> b, UView<Scalar> x)
{
  const StencilGrid g  = A.grid;
  const Int         nc = g.ncells();
  auto              vals = A.vals;
  const auto        f    = KOKKOS_LAMBDA(const Member &t)
  {
    /* x += P ec: the sum TreeProlong forms with alpha = beta = 1 */
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, nc), [&](const Int c) { x(c) = ec(g.parent(c)) + x(c); });
    t.team_barrier();
    TeamSweeps(t, g, vals, dir, omega, nsweeps, false, b, x);
  };
  Kokkos::parallel_for("petsckp::uaamg::StencilProlongSmoothTeam", SmallLevelPolicy(f), f);
}

void StencilKCycleMultDots(const StencilMatrix &A, UView<const Scalar> p, UView<Scalar> Ap, UView<const Scalar> r, bool rr, const KCycleScalars &S, Int i)
{
  const StencilGrid g    = A.grid;
  auto              vals = A.vals;
  Kokkos::parallel_reduce(
    "petsckp::uaamg::KCycleStencilMultDots", range(g.ncells()),
    KOKKOS_LAMBDA(Int c, Sums4 & s) {
      const Scalar a = StencilRowDot(g, vals, c, p), pc = p(c), rc = r(c);
      Ap(c) = a;
      s.v[0] += pc * a;
      s.v[1] += pc * rc;
      if (rr) s.v[2] += rc * rc;
    },
    KCycleStepReducer(S, i));
}

void StencilJacobi(const StencilMatrix &A, Real omega, UView<const Scalar> b, UView<const Scalar> x, UView<Scalar> y)
{
  const StencilGrid g  = A.grid;
  const size_t      d  = (size_t)g.centre() * g.ncells();
  auto              vals = A.vals;
  Kokkos::parallel_for(
    "petsckp::uaamg::StencilJacobi", range(g.ncells()), KOKKOS_LAMBDA(Int c) {
      const Scalar dc = vals(d + c);
      y(c)            = dc == Scalar(0) ? x(c) : x(c) + omega * (b(c) - StencilRowDot(g, vals, c, x)) / dc;
    });
}

/* ---- smoothers: fine level */

Int FineBlocksSetUp(const CsrMatrix &A, const Aggregation &P, Int block_max, FineBlocks &B)
{
  const Int nagg = P.nagg;
  B.nagg         = nagg;
  B.block_max    = block_max;
  B.off          = View<Int>("uaamg block offsets", nagg + 1);
  B.exact        = View<Int>("uaamg block exact", nagg);
  auto off = B.off, exact = B.exact;
  auto ptr = P.ptr, rows = P.rows, agg = P.agg;
  Kokkos::parallel_for(
    "petsckp::uaamg::FineBlocksSize", range(nagg), KOKKOS_LAMBDA(Int G) {
      const Int m = ptr(G + 1) - ptr(G);
      off(G)      = (m >= 1 && m <= block_max) ? m * m : 0;
    });
  const Int total = ExclusiveScan(off, nagg, "petsckp::uaamg::FineBlocksScan");
  B.inv           = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg block inverses")), total);
  auto      inv   = B.inv;
  auto      rp    = A.rowptr;
  auto      ci    = A.colidx;
  auto      av    = A.vals;
  Int       nfail = 0, nexact = 0;
  /* Gauss-Jordan inversion of every A_GG (row-major, member order), one team per aggregate with the block in team
     scratch memory: the rows of a block are assembled, scaled and eliminated by the team's threads side by side */
  const Int bm = std::max<Int>(block_max, 1);
  TeamPolicy pol(exec(), std::max<Int>(nagg, 1), kDeviceExec ? 16 : 1, 1);
  pol.set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size((size_t)bm * bm)));
  Kokkos::parallel_for(
    "petsckp::uaamg::FineBlocksInvert", pol, KOKKOS_LAMBDA(const Member &team) {
      const Int G = team.league_rank();
      if (G >= nagg) return;
      const Int b0 = ptr(G), m = ptr(G + 1) - b0, base = off(G);
      if (off(G + 1) == base) {
        Kokkos::single(Kokkos::PerTeam(team), [&]() { exact(G) = 0; });
        return;
      }
      Scratch a(team.team_scratch(0), (size_t)m * m);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m * m), [&](const Int e) { a(e) = 0; });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const Int q) { /* row q of A_GG, by one thread */
        const Int i = rows(b0 + q);
        for (Int k = rp(i); k < rp(i + 1); k++) {
          const Int j = ci(k);
          if (agg(j) != G) continue;
          Int lo = b0, hi = b0 + m - 1; /* j is a member: binary search in the ascending member list */
          while (lo < hi) {
            const Int mid = lo + (hi - lo) / 2;
            if (rows(mid) < j) lo = mid + 1;
            else hi = mid;
          }
          a(q * m + (lo - b0)) += av(k);
        }
      });
      team.team_barrier();
      Real dmax = 0;
      Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, m), [&](const Int q, Real &d) { d = cm::fmax(d, cm::fabs(a(q * m + q))); }, Kokkos::Max<Real>(dmax));
      bool ok = true;
      for (Int kk = 0; kk < m; kk++) {
        const Scalar p = a(kk * m + kk); /* the same value in every thread: the team agrees on a failure */
        if (!(p > 1e-12 * dmax) || !cm::isfinite(p)) {
          ok = false;
          break;
        }
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const Int j) { a(kk * m + j) = (j == kk ? Scalar(1) : a(kk * m + j)) / p; });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const Int i) {
          if (i == kk) return;
          const Scalar f   = a(i * m + kk);
          a(i * m + kk) = 0;
          if (f != Scalar(0))
            for (Int j = 0; j < m; j++) a(i * m + j) -= f * a(kk * m + j);
        });
        team.team_barrier();
      }
      if (ok) Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m * m), [&](const Int e) { inv(base + e) = a(e); });
      Kokkos::single(Kokkos::PerTeam(team), [&]() { exact(G) = ok ? 1 : 0; });
    });
  Kokkos::parallel_reduce(
    "petsckp::uaamg::FineBlocksCount", range(nagg),
    KOKKOS_LAMBDA(Int G, Int & nf, Int & ne) {
      if (off(G + 1) == off(G)) return;
      if (exact(G)) ne++;
      else nf++;
    },
    nfail, nexact);
  B.nfailed = nfail;
  B.nexact  = nexact;
  /* the rows in no aggregate */
  const Int n    = P.n;
  Int       nl   = 0;
  Kokkos::parallel_reduce(
    "petsckp::uaamg::FineLooseCount", range(n), KOKKOS_LAMBDA(Int i, Int & c) { c += agg(i) < 0 ? 1 : 0; }, nl);
  B.nloose   = nl;
  B.loose    = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg loose rows")), nl);
  auto loose = B.loose;
  Kokkos::parallel_scan(
    "petsckp::uaamg::FineLooseFill", range(n), KOKKOS_LAMBDA(Int i, Int & upd, const bool final) {
      if (agg(i) < 0) {
        if (final) loose(upd) = i;
        upd++;
      }
    });
  return nfail;
}

namespace detail /* named (not anonymous), and no static functions: nvcc's extended lambdas need external linkage */
{
/* the blocks of one colour: the cells of a parity colour of the level-L grid, or a list of aggregates */
struct GridColourBlocks {
  StencilGrid g;
  Int         k;
  KOKKOS_INLINE_FUNCTION Int operator()(Int idx) const { return g.colourCell(k, idx); }
};
struct ListBlocks {
  UView<const Int> list;
  KOKKOS_INLINE_FUNCTION Int operator()(Int idx) const { return list(idx); }
};

template <class BlockOf>
void FineBlockColourSweep(Int nblk, const BlockOf blockOf, const Aggregation &P, const FineBlocks &B, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> g, Sweep dir, Real omega, UView<const Scalar> b, UView<Scalar> x)
{
  const bool fwd = dir == Sweep::Forward, hasAo = Ao.nrows > 0;
  const Int  bmax = std::max<Int>(B.block_max, 1);
  auto       ptr = P.ptr, rows = P.rows;
  auto       off = B.off, exact = B.exact;
  auto       inv = B.inv;
  auto       rp = Ad.rowptr, orp = Ao.rowptr;
  auto       ci = Ad.colidx, oci = Ao.colidx;
  auto       av = Ad.vals, ov = Ao.vals;
  if (nblk == 0) return;
  const int V = Lanes(8), T = kDeviceExec ? 4 : 1;
  TeamPolicy pol(exec(), nblk, T, V);
  pol.set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(bmax)));
  Kokkos::parallel_for(
    "petsckp::uaamg::FineBlockGaussSeidelColour", pol, KOKKOS_LAMBDA(const Member &team) {
      const Int G = blockOf(team.league_rank());
      const Int b0 = ptr(G), m = ptr(G + 1) - b0;
      if (m == 0) return;
      if (exact(G)) {
        Scratch r(team.team_scratch(0), bmax);
        const Int base = off(G);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const Int q) {
          const Int i = rows(b0 + q);
          Scalar    s = 0, so = 0;
          Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, rp(i), rp(i + 1)), [&](const Int e, Scalar &a) { a += av(e) * x(ci(e)); }, s);
          if (hasAo) Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, orp(i), orp(i + 1)), [&](const Int e, Scalar &a) { a += ov(e) * g(oci(e)); }, so);
          Kokkos::single(Kokkos::PerThread(team), [&]() { r(q) = b(i) - (s + so); });
        });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const Int q) {
          Scalar s = 0;
          Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, m), [&](const Int l, Scalar &a) { a += inv(base + q * m + l) * r(l); }, s);
          Kokkos::single(Kokkos::PerThread(team), [&]() { x(rows(b0 + q)) += omega * s; });
        });
      } else {
        /* point Gauss-Seidel over the members, by one thread of the team (large or failed blocks) */
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          for (Int qq = 0; qq < m; qq++) {
            const Int i = rows(b0 + (fwd ? qq : m - 1 - qq));
            Scalar    d;
            const Scalar s = FineRowDot(rp, ci, av, hasAo, orp, oci, ov, g, x, i, d);
            if (d != Scalar(0)) x(i) += omega * (b(i) - s) / d;
          }
        });
      }
    });
}

} // namespace detail

void FineBlockGaussSeidelColour(const StencilGrid &gL, const Aggregation &P, const FineBlocks &B, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> g, Int k, Sweep dir, Real omega, UView<const Scalar> b, UView<Scalar> x)
{
  detail::FineBlockColourSweep(gL.colourSize(k), detail::GridColourBlocks{gL, k}, P, B, Ad, Ao, g, dir, omega, b, x);
}

void FineBlockGaussSeidelColour(const ColourPartition &C, const Aggregation &P, const FineBlocks &B, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> g, Int k, Sweep dir, Real omega, UView<const Scalar> b, UView<Scalar> x)
{
  const Int r0 = C.hoffsets(k), r1 = C.hoffsets(k + 1);
  detail::FineBlockColourSweep(r1 - r0, detail::ListBlocks{UView<const Int>(C.rows.data() + r0, r1 - r0)}, P, B, Ad, Ao, g, dir, omega, b, x);
}

void FineLooseUpdate(const FineBlocks &B, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> g, Real omega, UView<const Scalar> b, UView<Scalar> x)
{
  const bool hasAo = Ao.nrows > 0;
  auto       loose = B.loose;
  auto       rp = Ad.rowptr, orp = Ao.rowptr;
  auto       ci = Ad.colidx, oci = Ao.colidx;
  auto       av = Ad.vals, ov = Ao.vals;
  Kokkos::parallel_for(
    "petsckp::uaamg::FineLooseUpdate", range(B.nloose), KOKKOS_LAMBDA(Int q) {
      const Int    i = loose(q);
      Scalar       d;
      const Scalar s = FineRowDot(rp, ci, av, hasAo, orp, oci, ov, g, x, i, d);
      if (d != Scalar(0)) x(i) += omega * (b(i) - s) / d;
    });
}

void FineBlockGaussSeidel(const StencilGrid &gL, const Aggregation &P, const FineBlocks &B, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> g, Sweep dir, Real omega, UView<const Scalar> b, UView<Scalar> x)
{
  const Int nk = gL.ncolours();
  if (dir == Sweep::Forward) FineLooseUpdate(B, Ad, Ao, g, omega, b, x);
  for (Int q = 0; q < nk; q++) FineBlockGaussSeidelColour(gL, P, B, Ad, Ao, g, dir == Sweep::Forward ? q : nk - 1 - q, dir, omega, b, x);
  if (dir == Sweep::Backward) FineLooseUpdate(B, Ad, Ao, g, omega, b, x);
}

namespace detail
{
void FineLooseFromZero(const Aggregation &P, const CsrMatrix &Ad, Real omega, UView<const Scalar> b, UView<Scalar> x)
{
  auto agg = P.agg;
  auto rp  = Ad.rowptr;
  auto ci  = Ad.colidx;
  auto av  = Ad.vals;
  Kokkos::parallel_for(
    "petsckp::uaamg::FineLooseFromZero", range(Ad.nrows), KOKKOS_LAMBDA(Int i) {
      Scalar d = 0;
      if (agg(i) < 0)
        for (Int k = rp(i); k < rp(i + 1); k++)
          if (ci(k) == (Ordinal)i) d += av(k);
      x(i) = d != Scalar(0) ? Scalar(0) + omega * b(i) / d : Scalar(0);
    });
}

} // namespace detail

void FineBlockGaussSeidelFromZero(const StencilGrid &gL, const Aggregation &P, const FineBlocks &B, const CsrMatrix &Ad, Real omega, UView<const Scalar> b, UView<Scalar> x)
{
  detail::FineLooseFromZero(P, Ad, omega, b, x);
  for (Int k = 0; k < gL.ncolours(); k++) FineBlockGaussSeidelColour(gL, P, B, Ad, CsrMatrix(), UView<const Scalar>(), k, Sweep::Forward, omega, b, x);
}

void FineBlockGaussSeidel(const ColourPartition &C, const Aggregation &P, const FineBlocks &B, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> g, Sweep dir, Real omega, UView<const Scalar> b, UView<Scalar> x)
{
  const Int nk = C.ncolours;
  if (dir == Sweep::Forward) FineLooseUpdate(B, Ad, Ao, g, omega, b, x);
  for (Int q = 0; q < nk; q++) FineBlockGaussSeidelColour(C, P, B, Ad, Ao, g, dir == Sweep::Forward ? q : nk - 1 - q, dir, omega, b, x);
  if (dir == Sweep::Backward) FineLooseUpdate(B, Ad, Ao, g, omega, b, x);
}

void FineBlockGaussSeidelFromZero(const ColourPartition &C, const Aggregation &P, const FineBlocks &B, const CsrMatrix &Ad, Real omega, UView<const Scalar> b, UView<Scalar> x)
{
  detail::FineLooseFromZero(P, Ad, omega, b, x);
  for (Int k = 0; k < C.ncolours; k++) FineBlockGaussSeidelColour(C, P, B, Ad, CsrMatrix(), UView<const Scalar>(), k, Sweep::Forward, omega, b, x);
}

void FineJacobi(const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> g, Real omega, UView<const Scalar> b, UView<const Scalar> x, UView<Scalar> y)
{
  const bool hasAo = Ao.nrows > 0;
  auto       rp = Ad.rowptr, orp = Ao.rowptr;
  auto       ci = Ad.colidx, oci = Ao.colidx;
  auto       av = Ad.vals, ov = Ao.vals;
  Kokkos::parallel_for(
    "petsckp::uaamg::FineJacobi", range(Ad.nrows), KOKKOS_LAMBDA(Int i) {
      Scalar s = 0, d = 0;
      for (Int k = rp(i); k < rp(i + 1); k++) {
        s += av(k) * x(ci(k));
        if (ci(k) == (Ordinal)i) d += av(k);
      }
      if (hasAo)
        for (Int k = orp(i); k < orp(i + 1); k++) s += ov(k) * g(oci(k));
      y(i) = d == Scalar(0) ? x(i) : x(i) + omega * (b(i) - s) / d;
    });
}
/* ---- adaptive auxiliary tree */

bool TreeKeysSetUp(const AuxGrid &g, TreeKeys &T)
{
  T = TreeKeys();
  for (int a = 0; a < 3; a++) {
    T.lg[0][a] = 0;
    T.L        = std::max<int>(T.L, a < g.dim ? (int)g.depth[a] : 0);
  }
  for (int a = 0; a < 3; a++) T.lg[T.L][a] = (unsigned char)(a < g.dim ? g.depth[a] : 0);
  for (int t = T.L - 1; t >= 0; t--)
    for (int a = 0; a < 3; a++) T.lg[t][a] = (unsigned char)(T.lg[t + 1][a] > 0 ? T.lg[t + 1][a] - 1 : 0); /* StencilGridCoarsen */
  for (int a = 0; a < g.dim; a++)
    if (std::isfinite((double)g.lo[a]) && std::isfinite((double)g.hi[a]) && g.hi[a] > g.lo[a]) T.axis[T.nsplit++] = a;
  const int bL = T.bits(T.L);
  T.e          = T.nsplit > 0 && bL < 62 ? (62 - bL) / T.nsplit : 0;
  for (int b = 0; b < 64; b++) T.depthof[b] = -1;
  for (int t = 0; t <= T.L + T.e; t++) T.depthof[T.bits(t)] = (signed char)t;
  return T.e > 0;
}

void CapKeys(const TreeKeys &T, const AuxGrid &g, UView<const Real> coords, UView<const Int> cell, UView<std::uint64_t> key)
{
  const Int  n   = (Int)key.extent(0);
  const int  dim = g.dim;
  const Int  n0 = g.n(0), n1 = g.n(1);
  const AuxGrid G = g;
  if (n == 0) return;
  Kokkos::parallel_for(
    "petsckp::uaamg::CapKeys", range(n), KOKKOS_LAMBDA(const Int i) {
      const Int c = cell(i);
      if (c < 0) {
        key(i) = kNoKey;
        return;
      }
      const Int     t[3] = {c % n0, (c / n0) % n1, c / n0 / n1};
      std::uint64_t sub[3] = {0, 0, 0};
      const std::uint64_t top = (std::uint64_t(1) << T.e) - 1;
      for (int q = 0; q < T.nsplit; q++) {
        const int     a  = T.axis[q];
        const Real    lo = G.lo[a], hi = G.hi[a];
        const Real    nf = (Real)G.n(a) * (Real)(std::uint64_t(1) << T.e); /* cells of axis a at the cap depth */
        const Real    y  = (coords(i * dim + a) - lo) / (hi - lo) * nf;
        std::int64_t  tf = !(y > 0) ? 0 : (y >= nf ? (std::int64_t)nf - 1 : (std::int64_t)y);
        std::int64_t  s  = tf - ((std::int64_t)t[a] << T.e); /* the offset inside the level-L cell */
        sub[q]           = s < 0 ? 0 : ((std::uint64_t)s > top ? top : (std::uint64_t)s);
      }
      std::uint64_t k = (std::uint64_t)c;
      for (int j = T.e - 1; j >= 0; j--) { /* child digits, top down (Morton order inside the level-L cell) */
        std::uint64_t d = 0;
        for (int q = 0; q < T.nsplit; q++) d |= ((sub[q] >> j) & 1) << q;
        k = (k << T.nsplit) | d;
      }
      key(i) = k;
    });
}

namespace detail
{
/* first position in sorted[0, n) whose key is >= v */
KOKKOS_INLINE_FUNCTION Int LowerBound(const UView<const std::uint64_t> &sorted, Int n, std::uint64_t v)
{
  Int lo = 0, hi = n;
  while (lo < hi) {
    const Int mid = lo + (hi - lo) / 2;
    if (sorted(mid) < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
} // namespace detail

Int LeafDepths(const TreeKeys &T, UView<const std::uint64_t> sorted, UView<const Int> perm, Int s, UView<Int> rdof, Int *rmax)
{
  const Int n = (Int)sorted.extent(0);
  Int       nsplit = 0, mx = 0;
  *rmax = 0;
  if (n == 0) return 0;
  View<Int> depth(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg leaf depths")), n);
  Kokkos::parallel_for(
    "petsckp::uaamg::LeafDepths", range(n), KOKKOS_LAMBDA(const Int p) {
      const std::uint64_t k = sorted(p);
      int                 r = 0;
      for (; r < T.e; r++) { /* the unknowns of the ancestor at depth L + r: keys with the same prefix */
        const int           sh = T.nsplit * (T.e - r);
        const std::uint64_t lo = (k >> sh) << sh;
        const Int           cnt = detail::LowerBound(sorted, n, lo + ((std::uint64_t(1) << sh) - 1) + 1) - detail::LowerBound(sorted, n, lo);
        if (cnt <= s) break;
      }
      depth(p)       = r;
      rdof(perm(p)) = r;
    });
  /* split cells: the ancestors above the leaf, counted at the first unknown (in key order) of each */
  Kokkos::parallel_reduce(
    "petsckp::uaamg::SplitCells", range(n),
    KOKKOS_LAMBDA(const Int p, Int & cnt) {
      const std::uint64_t k = sorted(p);
      for (int r = 0; r < depth(p); r++) {
        const int sh = T.nsplit * (T.e - r);
        if (p == 0 || (sorted(p - 1) >> sh) != (k >> sh)) cnt++;
      }
    },
    nsplit);
  Kokkos::parallel_reduce(
    "petsckp::uaamg::LeafDepthMax", range(n), KOKKOS_LAMBDA(const Int p, Int & m) { m = depth(p) > m ? depth(p) : m; }, Kokkos::Max<Int>(mx));
  *rmax = mx;
  return nsplit;
}

void LeafKeys(const TreeKeys &T, UView<const std::uint64_t> capkey, UView<const Int> r, UView<std::uint64_t> key)
{
  const Int n = (Int)key.extent(0);
  if (n == 0) return;
  Kokkos::parallel_for(
    "petsckp::uaamg::LeafKeys", range(n), KOKKOS_LAMBDA(const Int i) {
      const std::uint64_t k = capkey(i);
      key(i)                = k == kNoKey ? kNoKey : T.key(T.L + (int)r(i), k >> (T.nsplit * (T.e - (int)r(i))));
    });
}

void TreeParents(const TreeKeys &T, UView<const std::uint64_t> key, UView<std::uint64_t> parent)
{
  const Int n = (Int)key.extent(0);
  if (n == 0) return;
  Kokkos::parallel_for(
    "petsckp::uaamg::TreeParents", range(n), KOKKOS_LAMBDA(const Int a) { parent(a) = key(a) == kNoKey ? kNoKey : T.parent(key(a)); });
}

void TreeKeyDepths(const TreeKeys &T, UView<const std::uint64_t> key, Int *dmin, Int *dmax)
{
  const Int n = (Int)key.extent(0);
  Int       lo = 0, hi = -1;
  if (n > 0) {
    Kokkos::parallel_reduce(
      "petsckp::uaamg::TreeKeyDepthMin", range(n), KOKKOS_LAMBDA(const Int a, Int & m) { m = (Int)T.depth(key(a)) < m ? (Int)T.depth(key(a)) : m; }, Kokkos::Min<Int>(lo));
    Kokkos::parallel_reduce(
      "petsckp::uaamg::TreeKeyDepthMax", range(n), KOKKOS_LAMBDA(const Int a, Int & m) { m = (Int)T.depth(key(a)) > m ? (Int)T.depth(key(a)) : m; }, Kokkos::Max<Int>(hi));
  }
  *dmin = lo;
  *dmax = hi;
}

/* ---- graph colourings of aggregates under MPI */

void RowWeights(Int start, UView<const Scalar> gid, UView<std::uint64_t> w)
{
  const Int  n   = (Int)w.extent(0);
  const bool has = gid.extent(0) > 0;
  if (n == 0) return;
  Kokkos::parallel_for(
    "petsckp::uaamg::RowWeights", range(n), KOKKOS_LAMBDA(const Int i) {
      const Real          x = has ? PetscRealPart(gid(i)) : (Real)(start + i);
      const std::uint64_t r = (std::uint64_t)(x + 0.5);
      w(i)                  = HashMix(r, 0x0c010u); /* a bijection of the row number: distinct rows, distinct weights */
    });
}

namespace detail
{
/* does w1 win over w2 (RowWeights are distinct for distinct rows) */
KOKKOS_INLINE_FUNCTION bool Heavier(std::uint64_t w1, std::uint64_t w2) { return w1 > w2; }
} // namespace detail

Int ColourLosers(const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const std::uint64_t> wl, UView<const std::uint64_t> wg, UView<const Int> colour, UView<const Scalar> gcolour, UView<Int> loser)
{
  const Int  n     = Ad.nrows;
  const bool hasAo = Ao.nrows > 0;
  auto       rp = Ad.rowptr, orp = Ao.rowptr;
  auto       ci = Ad.colidx, oci = Ao.colidx;
  Int        nl = 0;
  if (n == 0) return 0;
  Kokkos::parallel_reduce(
    "petsckp::uaamg::ColourLosers", range(n),
    KOKKOS_LAMBDA(const Int i, Int & cnt) {
      const Int c    = colour(i);
      bool      lost = false;
      for (Int k = rp(i); k < rp(i + 1) && !lost; k++) {
        const Int j = (Int)ci(k);
        if (j != i && j >= 0 && j < n && colour(j) == c && detail::Heavier(wl(j), wl(i))) lost = true;
      }
      if (hasAo)
        for (Int k = orp(i); k < orp(i + 1) && !lost; k++) {
          const Int j = (Int)oci(k);
          if ((Int)(PetscRealPart(gcolour(j)) + 0.5) == c && detail::Heavier(wg(j), wl(i))) lost = true;
        }
      loser(i) = lost ? 1 : 0;
      if (lost) cnt++;
    },
    nl);
  return nl;
}

Int ColourRecolour(const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const std::uint64_t> wl, UView<const std::uint64_t> wg, UView<const Int> loser, UView<const Scalar> gloser, UView<const Scalar> gcolour, UView<Int> colour)
{
  const Int  n     = Ad.nrows;
  const bool hasAo = Ao.nrows > 0;
  auto       rp = Ad.rowptr, orp = Ao.rowptr;
  auto       ci = Ad.colidx, oci = Ao.colidx;
  Int        nr = 0;
  if (n == 0) return 0;
  Kokkos::parallel_reduce(
    "petsckp::uaamg::ColourRecolour", range(n),
    KOKKOS_LAMBDA(const Int i, Int & cnt) {
      if (!loser(i)) return;
      for (Int k = rp(i); k < rp(i + 1); k++) { /* a heavier coupled loser goes first */
        const Int j = (Int)ci(k);
        if (j != i && j >= 0 && j < n && loser(j) && detail::Heavier(wl(j), wl(i))) return;
      }
      if (hasAo)
        for (Int k = orp(i); k < orp(i + 1); k++) {
          const Int j = (Int)oci(k);
          if (PetscRealPart(gloser(j)) > 0.5 && detail::Heavier(wg(j), wl(i))) return;
        }
      /* the smallest colour no coupled row has (the recoloured rows are pairwise uncoupled: reading colour(j) of a
         neighbour is safe, it does not change in this kernel) */
      for (Int c = 0;; c++) {
        bool used = false;
        for (Int k = rp(i); k < rp(i + 1) && !used; k++) {
          const Int j = (Int)ci(k);
          if (j != i && j >= 0 && j < n && colour(j) == c) used = true;
        }
        if (hasAo)
          for (Int k = orp(i); k < orp(i + 1) && !used; k++)
            if ((Int)(PetscRealPart(gcolour(oci(k))) + 0.5) == c) used = true;
        if (!used) {
          colour(i) = c;
          break;
        }
      }
      cnt++;
    },
    nr);
  return nr;
}

void GlobalRowNumbers(Int start, UView<Scalar> s)
{
  const Int n = (Int)s.extent(0);
  if (n == 0) return;
  Kokkos::parallel_for(
    "petsckp::uaamg::GlobalRowNumbers", range(n), KOKKOS_LAMBDA(const Int i) { s(i) = (Scalar)(Real)(start + i); });
}

Int ColourCount(UView<const Int> colour)
{
  const Int n  = (Int)colour.extent(0);
  Int       mx = -1;
  if (n == 0) return 0;
  Kokkos::parallel_reduce(
    "petsckp::uaamg::ColourCount", range(n), KOKKOS_LAMBDA(const Int i, Int & m) { m = colour(i) > m ? colour(i) : m; }, Kokkos::Max<Int>(mx));
  return mx + 1;
}

Int FineAggregateColourConflicts(const Aggregation &P, UView<const Int> aggcolour, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> gcolour)
{
  const Int  n     = Ad.nrows;
  const bool hasAo = Ao.nrows > 0;
  auto       agg   = P.agg;
  auto       rp = Ad.rowptr, orp = Ao.rowptr;
  auto       ci = Ad.colidx, oci = Ao.colidx;
  auto       av = Ad.vals, ov = Ao.vals;
  Int        bad = 0;
  if (n == 0) return 0;
  Kokkos::parallel_reduce(
    "petsckp::uaamg::FineAggregateColourConflicts", range(n),
    KOKKOS_LAMBDA(const Int i, Int & cnt) {
      const Int ai = agg(i);
      if (ai < 0) return;
      for (Int k = rp(i); k < rp(i + 1); k++) {
        const Int j = (Int)ci(k);
        if (av(k) == Scalar(0) || j < 0 || j >= n || agg(j) < 0 || agg(j) == ai) continue;
        if (aggcolour(agg(j)) == aggcolour(ai)) cnt++;
      }
      if (hasAo)
        for (Int k = orp(i); k < orp(i + 1); k++)
          if (ov(k) != Scalar(0) && (Int)(PetscRealPart(gcolour(oci(k))) + 0.5) == aggcolour(ai)) cnt++;
    },
    bad);
  return bad;
}

void RowColoursOfAggregates(const Aggregation &P, UView<const Int> aggcolour, UView<Int> c)
{
  const Int n   = (Int)c.extent(0);
  auto      agg = P.agg;
  if (n == 0) return;
  Kokkos::parallel_for(
    "petsckp::uaamg::RowColoursOfAggregates", range(n), KOKKOS_LAMBDA(const Int i) { c(i) = agg(i) >= 0 ? aggcolour(agg(i)) : -1; });
}

/* ---- level bookkeeping of the PC */

Int StencilNonzeros(const StencilMatrix &A)
{
  const size_t m = StencilStorage(A.grid);
  auto         v = A.vals;
  Int          nz = 0;
  if (m == 0) return 0;
  Kokkos::parallel_reduce(
    "petsckp::uaamg::StencilNonzeros", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_t>>(exec(), 0, m), KOKKOS_LAMBDA(const size_t k, Int &c) {
      if (v(k) != Scalar(0)) c++;
    },
    nz);
  return nz;
}

void StencilDiagonal(const StencilMatrix &A, UView<Scalar> d)
{
  const Int    n = A.grid.ncells();
  const size_t o = (size_t)A.grid.centre() * (size_t)n;
  auto         v = A.vals;
  if (n == 0) return;
  Kokkos::parallel_for(
    "petsckp::uaamg::StencilDiagonal", range(n), KOKKOS_LAMBDA(const Int c) { d(c) = v(o + c); });
}

void GridIndexCoordinates(int dim, const Int start[3], const Int count[3], UView<Real> xyz)
{
  const Int s0 = start[0], s1 = dim > 1 ? start[1] : 0, s2 = dim > 2 ? start[2] : 0;
  const Int m0 = count[0], m1 = dim > 1 ? count[1] : 1, m2 = dim > 2 ? count[2] : 1;
  const Int n = m0 * m1 * m2;
  if (n <= 0) return;
  Kokkos::parallel_for(
    "petsckp::uaamg::GridIndexCoordinates", range(n), KOKKOS_LAMBDA(const Int t) {
      const Int i = t % m0, j = (t / m0) % m1, k = t / (m0 * m1);
      xyz((size_t)t * dim) = (Real)(s0 + i);
      if (dim > 1) xyz((size_t)t * dim + 1) = (Real)(s1 + j);
      if (dim > 2) xyz((size_t)t * dim + 2) = (Real)(s2 + k);
    });
}

void RealsFromScalars(UView<const Scalar> s, UView<Real> x)
{
  const Int n = (Int)s.extent(0);
  if (n == 0) return;
  Kokkos::parallel_for("petsckp::uaamg::RealsFromScalars", range(n), KOKKOS_LAMBDA(const Int i) { x(i) = PetscRealPart(s(i)); });
}

void IntsFromScalars(UView<const Scalar> s, UView<Int> v)
{
  const Int n = (Int)s.extent(0);
  if (n == 0) return;
  Kokkos::parallel_for(
    "petsckp::uaamg::IntsFromScalars", range(n), KOKKOS_LAMBDA(const Int i) {
      const Real x = PetscRealPart(s(i));
      v(i)         = (Int)(x < 0 ? x - 0.5 : x + 0.5);
    });
}

Int CompactCells(UView<const Int> cell, UView<Int> id, View<Int> &cells)
{
  const Int n = (Int)cell.extent(0);
  if (n == 0) {
    cells = View<Int>("uaamg cells", 0);
    return 0;
  }
  View<std::uint64_t> key(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg cell keys")), n);
  View<std::uint64_t> uniq;
  Kokkos::parallel_for(
    "petsckp::uaamg::CellKeys", range(n), KOKKOS_LAMBDA(const Int i) { key(i) = cell(i) >= 0 ? (std::uint64_t)cell(i) : kNoKey; });
  const Int m = KeyCompact(ucv(key), id, &uniq); /* a sort of n keys of log2(largest cell) bits */
  cells       = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg cells")), m);
  auto c      = cells;
  Kokkos::parallel_for(
    "petsckp::uaamg::CellsOfKeys", range(m), KOKKOS_LAMBDA(const Int a) { c(a) = (Int)uniq(a); });
  return m;
}

Int CellAggregation(UView<const Int> cell, Aggregation &P, View<Int> &cellof)
{
  const Int n = (Int)cell.extent(0);
  View<Int> id(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg cell aggregate")), n);
  const Int m = CompactCells(cell, uv(id), cellof);
  return AggregationCreate(n, m, ucv(id), P);
}

void ParentCells(const StencilGrid &g, UView<const Int> cellof, UView<Int> parent)
{
  const Int n = (Int)cellof.extent(0);
  if (n == 0) return;
  Kokkos::parallel_for(
    "petsckp::uaamg::ParentCells", range(n), KOKKOS_LAMBDA(const Int a) { parent(a) = g.parent(cellof(a)); });
}

void CellColours(const StencilGrid &g, UView<const Int> cellof, UView<Int> colour)
{
  const Int n = (Int)cellof.extent(0);
  if (n == 0) return;
  Kokkos::parallel_for(
    "petsckp::uaamg::CellColours", range(n), KOKKOS_LAMBDA(const Int a) { colour(a) = g.colour(cellof(a)); });
}

} // namespace uaamg
} // namespace petsckp
