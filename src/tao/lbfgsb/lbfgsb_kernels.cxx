/*
   lbfgsb_kernels.cxx - device kernels and host small-matrix routines of TAO lbfgsb (see lbfgsb_kernels.hpp).

   Clean-room implementation from the published algorithm (Byrd, Lu, Nocedal, Zhu 1995; Zhu et al. 1997;
   Morales, Nocedal 2011; More, Thuente 1994); the names of the reference routines are kept in comments.
*/
#include "lbfgsb_kernels.hpp"
#include <Kokkos_Sort.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace petsckp
{
namespace lbfgsb
{
namespace cm = petsckp::compat;

BoundsCheckInfo CheckBounds(ConstView l, ConstView u, ConstView x, Real inf)
{
  BoundsCheckInfo info;
  const Int       n    = (Int)x.extent(0);
  const int64_t   none = INT64_MAX;
  int64_t         key  = none;
  if (n == 0) return info;
  Kokkos::parallel_reduce(
    "lbfgsb::CheckBounds", range(n),
    KOKKOS_LAMBDA(const Int i, int64_t &mn) {
      const Real li = l(i), ui = u(i), xi = x(i);
      int        k  = 0;
      if (xi != xi) k = (int)BoundsDefect::XNan;
      else if (!cm::isfinite(xi)) k = (int)BoundsDefect::XInf;
      else if (li != li) k = (int)BoundsDefect::LowerNan;
      else if (ui != ui) k = (int)BoundsDefect::UpperNan;
      else if (li >= inf) k = (int)BoundsDefect::LowerPlusInf;
      else if (ui <= -inf) k = (int)BoundsDefect::UpperMinusInf;
      else if (li > ui) k = (int)BoundsDefect::Inverted;
      if (k) {
        const int64_t ki = 8 * (int64_t)i + k;
        if (ki < mn) mn = ki;
      }
    },
    Kokkos::Min<int64_t>(key));
  if (key != none) {
    info.index = (Int)(key / 8);
    info.kind  = (BoundsDefect)(int)(key % 8);
  }
  return info;
}

ActiveInfo Active(ConstView l, ConstView u, MutView x, View<Int> iwhere, Real inf)
{
  ActiveInfo info;
  const Int  n = (Int)x.extent(0);
  Kokkos::parallel_reduce(
    "lbfgsb::Active", range(n),
    KOKKOS_LAMBDA(const Int i, Int &np) {
      const int nbd = Nbd(l(i), u(i), inf);
      if (nbd > 0) {
        if (nbd <= 2 && x(i) <= l(i)) {
          if (x(i) < l(i)) {
            np++;
            x(i) = l(i);
          }
        } else if (nbd >= 2 && x(i) >= u(i)) {
          if (x(i) > u(i)) {
            np++;
            x(i) = u(i);
          }
        }
      }
      if (nbd == 0) iwhere(i) = -1;
      else if (nbd == 2 && u(i) - l(i) <= 0) iwhere(i) = 3;
      else iwhere(i) = 0;
    },
    info.nprojected);
  Kokkos::parallel_reduce(
    "lbfgsb::ActiveCount", range(n), KOKKOS_LAMBDA(const Int i, Int &nb) { nb += Nbd(l(i), u(i), inf) != 0 ? 1 : 0; }, info.nbounded);
  Kokkos::parallel_reduce(
    "lbfgsb::ActiveBoxed", range(n), KOKKOS_LAMBDA(const Int i, Int &nb) { nb += Nbd(l(i), u(i), inf) == 2 ? 1 : 0; }, info.nboxed);
  return info;
}

Real ProjGradNormInf(ConstView l, ConstView u, ConstView x, ConstView g, Real inf)
{
  Real       nrm = 0;
  const Int  n   = (Int)x.extent(0);
  const Real big = std::numeric_limits<Real>::infinity();
  Kokkos::parallel_reduce(
    "lbfgsb::ProjGrad", range(n),
    KOKKOS_LAMBDA(const Int i, Real &mx) {
      Real gi = g(i);
      if (!cm::isfinite(gi)) {
        mx = big;
        return;
      }
      const int nbd = Nbd(l(i), u(i), inf);
      if (nbd != 0) {
        if (gi < 0) {
          if (nbd >= 2) gi = cm::fmax(x(i) - u(i), gi);
        } else {
          if (nbd <= 2) gi = cm::fmin(x(i) - l(i), gi);
        }
      }
      mx = cm::fmax(mx, cm::fabs(gi));
    },
    Kokkos::Max<Real>(nrm));
  return n > 0 ? cm::fmax(nrm, 0.0) : 0.0; /* the reducer starts from its identity, not from nrm */
}

/* per-variable part of the reference `cauchy` first loop; returns the moving direction d_i and the breakpoint */
KOKKOS_INLINE_FUNCTION void CauchyVar(Real l, Real u, Real x, Real g, Int &iw, Real &d, Real &t, int &kind, Real inf)
{
  const Real neggi = -g;
  const int  nbd   = Nbd(l, u, inf);
  Real       tl = 0, tu = 0;
  if (iw != 3 && iw != -1) {
    if (nbd <= 2) tl = x - l;
    if (nbd >= 2) tu = u - x;
    const bool xlower = nbd <= 2 && nbd != 0 && tl <= 0;
    const bool xupper = nbd >= 2 && tu <= 0;
    iw                = 0;
    if (xlower) {
      if (neggi <= 0) iw = 1;
    } else if (xupper) {
      if (neggi >= 0) iw = 2;
    } else {
      if (cm::fabs(neggi) <= 0) iw = -3;
    }
  }
  t = kNoBreak;
  if (iw != 0 && iw != -1) {
    d    = 0;
    kind = 0; /* not moving */
  } else {
    d = neggi;
    if (nbd <= 2 && nbd != 0 && neggi < 0) {
      t    = tl / (-neggi);
      kind = 1; /* breakpoint */
    } else if (nbd >= 2 && neggi > 0) {
      t    = tu / neggi;
      kind = 1;
    } else kind = neggi != 0 ? 3 : 2; /* free without breakpoint, with g != 0 or g = 0 */
  }
}

CauchyInitInfo CauchyInit(ConstView l, ConstView u, ConstView x, ConstView g, View<Int> iwhere, MutView d, MutView t, Real inf)
{
  CauchyInitInfo info;
  const Int      n = (Int)x.extent(0);
  Real           f1 = 0, tmin = kNoBreak, tmax = 0;
  Int            nb = 0, nm = 0, nf = 0, nfz = 0;
  if (n == 0) return info;
  /* one pass: iwhere, d, t and every count of the reference's first loop (combined reducers) */
  Kokkos::parallel_reduce(
    "lbfgsb::CauchyInit", range(n),
    KOKKOS_LAMBDA(const Int i, Real &s, Int &cb, Int &cv, Int &cf, Int &cfz, Real &mn, Real &mx) {
      Int  iw = iwhere(i);
      Real di, ti;
      int  kind;
      CauchyVar(l(i), u(i), x(i), g(i), iw, di, ti, kind, inf);
      iwhere(i) = iw;
      d(i)      = di;
      t(i)      = ti;
      s -= di * di;
      const bool brk = ti < kNoBreak, moving = iw == 0 || iw == -1;
      cb += brk ? 1 : 0;
      cv += moving ? 1 : 0;
      cf += (moving && !brk) ? 1 : 0;
      cfz += (moving && !brk && di != 0) ? 1 : 0;
      mn = cm::fmin(mn, ti);
      mx = cm::fmax(mx, brk ? ti : 0.0);
    },
    f1, nb, nm, nf, nfz, Kokkos::Min<Real>(tmin), Kokkos::Max<Real>(tmax));
  info.f1              = f1;
  info.nbreak          = nb;
  info.nmoving         = nm;
  info.nfreenb         = nf;
  info.nfreenb_nonzero = nfz;
  info.tmin            = cm::fmin(tmin, kNoBreak);
  info.tmax            = cm::fmax(tmax, 0.0);
  return info;
}

Int SelectBreakpoints(ConstView t, Real lo, Real hi, View<Int> idx)
{
  const Int n   = (Int)t.extent(0);
  Int       cnt = 0;
  Kokkos::parallel_scan(
    "lbfgsb::SelectBreakpoints", range(n),
    KOKKOS_LAMBDA(const Int i, Int &upd, const bool final) {
      const bool sel = t(i) > lo && t(i) <= hi && t(i) < kNoBreak;
      if (sel) {
        if (final) idx(upd) = i;
        upd++;
      }
    },
    cnt);
  return cnt;
}

void SelectBreakpointsCount(ConstView t, Real lo, Real hi, View<Int> idx, Int cap, View<Int> count)
{
  const Int n = (Int)t.extent(0);
  if (n == 0) {
    Kokkos::deep_copy(exec(), Kokkos::subview(count, std::make_pair((Int)0, (Int)1)), (Int)0);
    return;
  }
  Kokkos::parallel_scan(
    "lbfgsb::SelectBreakpointsCount", range(n), KOKKOS_LAMBDA(const Int i, Int &upd, const bool final) {
      const bool sel = t(i) > lo && t(i) <= hi && t(i) < kNoBreak;
      if (sel) {
        if (final && upd < cap) idx(upd) = i;
        upd++;
      }
      if (final && i == n - 1) count(0) = upd;
    });
}

void BreakpointRecords(ConstView l, ConstView u, ConstView x, ConstView d, ConstView t, View<Int> idx, Int cnt, Int rstart, View<Scalar> out, Int stride)
{
  Kokkos::parallel_for(
    "lbfgsb::BreakpointRecords", range(cnt), KOKKOS_LAMBDA(const Int k) {
      const Int i           = idx(k);
      out(k * stride + 0) = t(i);
      out(k * stride + 1) = (Real)(rstart + i);
      out(k * stride + 2) = d(i);
      out(k * stride + 3) = (d(i) > 0 ? u(i) : l(i)) - x(i);
    });
}

void GatherStrided(ConstView v, View<Int> idx, Int cnt, View<Scalar> out, Int stride, Int offset, Real scale)
{
  Kokkos::parallel_for(
    "lbfgsb::Gather", range(cnt), KOKKOS_LAMBDA(const Int k) { out(k * stride + offset) = scale * v(idx(k)); });
}

void CauchyFinish(ConstView l, ConstView u, ConstView x, ConstView d, ConstView t, View<Int> iwhere, MutView xcp, Real tstar, Int gidstar, Int rstart, Real tsum)
{
  const Int n = (Int)x.extent(0);
  Kokkos::parallel_for(
    "lbfgsb::CauchyFinish", range(n), KOKKOS_LAMBDA(const Int i) {
      const Real ti     = t(i);
      const bool passed = ti < kNoBreak && (ti < tstar || (ti == tstar && rstart + i <= gidstar));
      if (passed) {
        if (d(i) > 0) {
          xcp(i)    = u(i);
          iwhere(i) = 2;
        } else {
          xcp(i)    = l(i);
          iwhere(i) = 1;
        }
      } else xcp(i) = x(i) + tsum * d(i);
    });
}

Int CountFree(View<Int> iwhere)
{
  const Int n = (Int)iwhere.extent(0);
  Int       c = 0;
  Kokkos::parallel_reduce(
    "lbfgsb::CountFree", range(n), KOKKOS_LAMBDA(const Int i, Int &s) { s += iwhere(i) <= 0 ? 1 : 0; }, c);
  return c;
}

/* the projection of one component xk onto its bounds (nbd of Nbd()), counting in hits whether a bound is hit: the
   reference `projgr`/subspace-step projection of every kernel that ends with a projected step */
KOKKOS_INLINE_FUNCTION Real ProjectAt(int nbd, Real l, Real u, Real xk, Int &hits)
{
  Real x = xk;
  if (nbd == 1) {
    x = cm::fmax(l, xk);
    if (x == l) hits++;
  } else if (nbd == 2) {
    x = cm::fmin(u, cm::fmax(l, xk));
    if (x == l || x == u) hits++;
  } else if (nbd == 3) {
    x = cm::fmin(u, xk);
    if (x == u) hits++;
  }
  return x;
}

Int ProjectStep(ConstView l, ConstView u, View<Int> iwhere, ConstView z, ConstView d, MutView xnew, Real inf)
{
  const Int n     = (Int)z.extent(0);
  Int       iword = 0;
  Kokkos::parallel_reduce(
    "lbfgsb::ProjectStep", range(n),
    KOKKOS_LAMBDA(const Int i, Int &hits) {
      if (iwhere(i) > 0) {
        xnew(i) = z(i);
        return;
      }
      const int  nbd = Nbd(l(i), u(i), inf);
      xnew(i)        = ProjectAt(nbd, l(i), u(i), z(i) + d(i), hits);
    },
    iword);
  return iword;
}

KOKKOS_INLINE_FUNCTION Real SubspaceRatio(Real l, Real u, Int iw, Real z, Real dk, Real inf)
{
  if (iw > 0) return 1;
  const int nbd = Nbd(l, u, inf);
  if (nbd == 0) return 1;
  if (dk < 0 && nbd <= 2) {
    const Real t2 = l - z;
    if (t2 >= 0) return 0;
    if (dk < t2) return t2 / dk;
  } else if (dk > 0 && nbd >= 2) {
    const Real t2 = u - z;
    if (t2 <= 0) return 0;
    if (dk > t2) return t2 / dk;
  }
  return 1;
}

Real SubspaceMaxStep(ConstView l, ConstView u, View<Int> iwhere, ConstView z, ConstView d, Real inf, Int *loc)
{
  const Int n     = (Int)z.extent(0);
  Real      alpha = 1;
  Kokkos::parallel_reduce(
    "lbfgsb::SubspaceMaxStep", range(n), KOKKOS_LAMBDA(const Int i, Real &mn) { mn = cm::fmin(mn, SubspaceRatio(l(i), u(i), iwhere(i), z(i), d(i), inf)); }, Kokkos::Min<Real>(alpha));
  alpha = n > 0 ? cm::fmin(alpha, 1.0) : 1.0;
  if (loc) *loc = alpha < 1 ? SubspaceBlockingIndex(l, u, iwhere, z, d, inf, alpha) : -1;
  return alpha;
}

Int SubspaceBlockingIndex(ConstView l, ConstView u, View<Int> iwhere, ConstView z, ConstView d, Real inf, Real alpha)
{
  const Int n   = (Int)z.extent(0);
  Int       loc = n;
  Kokkos::parallel_reduce(
    "lbfgsb::SubspaceBlocking", range(n),
    KOKKOS_LAMBDA(const Int i, Int &mn) {
      if (SubspaceRatio(l(i), u(i), iwhere(i), z(i), d(i), inf) == alpha && i < mn) mn = i;
    },
    Kokkos::Min<Int>(loc));
  return loc < n ? loc : -1;
}

void SubspaceBacktrack(ConstView l, ConstView u, View<Int> iwhere, ConstView z, ConstView d, MutView xnew, Real alpha, Int blk)
{
  const Int n = (Int)z.extent(0);
  Kokkos::parallel_for(
    "lbfgsb::SubspaceBacktrack", range(n), KOKKOS_LAMBDA(const Int i) {
      if (iwhere(i) > 0) xnew(i) = z(i);
      else if (i == blk && d(i) > 0) xnew(i) = u(i);
      else if (i == blk && d(i) < 0) xnew(i) = l(i);
      else xnew(i) = z(i) + alpha * d(i);
    });
}

Real LineSearchMaxStep(ConstView l, ConstView u, ConstView x, ConstView d, Real inf, Real big)
{
  const Int n   = (Int)x.extent(0);
  Real      stp = big;
  Kokkos::parallel_reduce(
    "lbfgsb::LineSearchMaxStep", range(n),
    KOKKOS_LAMBDA(const Int i, Real &mn) {
      const int  nbd = Nbd(l(i), u(i), inf);
      const Real a1  = d(i);
      if (nbd == 0) return;
      if (a1 < 0 && nbd <= 2) {
        const Real a2 = l(i) - x(i);
        if (a2 >= 0) mn = 0;
        else if (a1 * mn < a2) mn = cm::fmin(mn, a2 / a1);
      } else if (a1 > 0 && nbd >= 2) {
        const Real a2 = u(i) - x(i);
        if (a2 <= 0) mn = 0;
        else if (a1 * mn > a2) mn = cm::fmin(mn, a2 / a1);
      }
    },
    Kokkos::Min<Real>(stp));
  return n > 0 ? cm::fmin(stp, big) : big;
}

/* ---------------------------------------------------------------- exact Cauchy point on the device */

namespace
{
template <class V>
void SortOn(const V &v)
{
#if defined(PETSCKP_KOKKOS4)
  Kokkos::sort(exec(), v);
#else
  exec().fence();
  Kokkos::sort(v);
  Kokkos::fence();
#endif
}
} // namespace

void SortOnExec(View<Real> v) { SortOn(v); }

void BreakpointSort(View<Real> rec, Int cnt, Int stride, View<Real> tkeys, Kokkos::View<int64_t *, MemSpace> keys, View<Int> perm)
{
  if (cnt <= 0) return;
  UView<Real>                                                              tk(tkeys.data(), cnt);
  Kokkos::View<int64_t *, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> ky(keys.data(), cnt);
  Kokkos::parallel_for(
    "lbfgsb::BreakpointKeys", range(cnt), KOKKOS_LAMBDA(const Int k) { tk(k) = rec(k * stride); });
  SortOn(tk);
  /* the records arrive in increasing global index: key = (rank of t among the sorted t) * cnt + k orders by (t, gid) */
  Kokkos::parallel_for(
    "lbfgsb::BreakpointRank", range(cnt), KOKKOS_LAMBDA(const Int k) {
      const Real t  = rec(k * stride);
      Int        lo = 0, hi = cnt; /* first position with tk >= t */
      while (lo < hi) {
        const Int mid = lo + (hi - lo) / 2;
        if (tk(mid) < t) lo = mid + 1;
        else hi = mid;
      }
      ky(k) = (int64_t)lo * (int64_t)cnt + (int64_t)k;
    });
  SortOn(ky);
  Kokkos::parallel_for(
    "lbfgsb::BreakpointPerm", range(cnt), KOKKOS_LAMBDA(const Int k) { perm(k) = (Int)(ky(k) % (int64_t)cnt); });
}

void BreakpointPrefix(View<Real> rec, View<Int> perm, Int cnt, Int stride, Int col2, View<Real> carry, Kokkos::View<Real **, Kokkos::LayoutLeft, MemSpace> pre)
{
  using Policy     = Kokkos::TeamPolicy<ExecSpace>;
  using Member     = Policy::member_type;
  const Int ncol   = 2 * col2 + 1;
  Kokkos::parallel_for(
    "lbfgsb::BreakpointPrefix", Policy(exec(), ncol, Kokkos::AUTO), KOKKOS_LAMBDA(const Member &team) {
      const Int  c  = team.league_rank();
      const Real c0 = carry(c);
      if (cnt == 0) {
        Kokkos::single(Kokkos::PerTeam(team), [&]() { pre(0, c) = c0; });
        return;
      }
      Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, cnt), [&](const Int k, Real &upd, const bool final) {
        const Real *r = &rec(perm(k) * stride);
        Real        x;
        if (c < col2) x = r[2] * r[4 + c];
        else if (c < 2 * col2) x = r[3] * r[4 + c - col2];
        else x = r[2] * r[2];
        if (k == 0) x += c0; /* the carry first: the sums run in the sorted order */
        if (final) {
          pre(k, c) = k == 0 ? c0 : upd;
          if (k == cnt - 1) pre(cnt, c) = upd + x;
        }
        upd += x;
      });
    });
}

Int BreakpointFirstStop(View<Real> rec, View<Int> perm, Int cnt, Int stride, Kokkos::View<Real **, Kokkos::LayoutLeft, MemSpace> pre, View<Real> p0, View<Real> M, const SegmentConsts &sc)
{
  Int first = cnt;
  if (cnt <= 0) return 0;
  Kokkos::parallel_reduce(
    "lbfgsb::BreakpointFirstStop", range(cnt),
    KOKKOS_LAMBDA(const Int k, Int &mn) {
      const Real tprev = k == 0 ? sc.tcarry : rec(perm(k - 1) * stride);
      const Real dt    = rec(perm(k) * stride) - tprev;
      Real       f1, f2;
      SegmentModel(pre, k, p0, M, sc, tprev, f1, f2);
      if (-f1 / f2 < dt && k < mn) mn = k;
    },
    Kokkos::Min<Int>(first));
  return first < cnt ? first : cnt;
}

void BreakpointSegment(View<Real> rec, View<Int> perm, Int cnt, Int stride, Kokkos::View<Real **, Kokkos::LayoutLeft, MemSpace> pre, View<Real> p0, View<Real> M, const SegmentConsts &sc, Int k, View<Real> out, View<Real> carry)
{
  const Int ncol = 2 * sc.col2 + 1;
  Kokkos::parallel_for(
    "lbfgsb::BreakpointSegment", range(1), KOKKOS_LAMBDA(const Int) {
      const Real tprev = k == 0 ? sc.tcarry : rec(perm(k - 1) * stride);
      Real       f1, f2;
      SegmentModel(pre, k, p0, M, sc, tprev, f1, f2);
      out(0) = f1;
      out(1) = f2;
      out(2) = tprev;
      out(3) = k == 0 ? sc.tlastc : rec(perm(k - 1) * stride);
      out(4) = k == 0 ? sc.gidlastc : rec(perm(k - 1) * stride + 1);
      for (Int c = 0; c < ncol; c++) {
        out(5 + c) = pre(k, c);
        carry(c)   = pre(k, c);
      }
    });
}

/* ---------------------------------------------------------------- masked Gram products in one pass */

void MaskedGram(Kokkos::View<VecPtr *, MemSpace> vecs, Int n, View<Int> rows, View<Int> iwhere, Kokkos::View<GramProduct *, MemSpace> prods, Kokkos::View<Real **, Kokkos::LayoutRight, MemSpace> partial, View<Real> out, View<Int> gfree, View<Int> counts)
{
  using Policy      = Kokkos::TeamPolicy<ExecSpace>;
  using Member      = Policy::member_type;
  using Scratch     = Kokkos::View<Real *, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const Int nv      = (Int)vecs.extent(0), nprod = (Int)prods.extent(0), lmax = (Int)partial.extent(0);
  const bool listed = rows.extent(0) > 0, setfree = listed && gfree.extent(0) > 0;
  const bool counted = listed && counts.extent(0) > 0; /* the number of rows on the device, n an upper bound */
  if (nprod == 0 && !counted) return;
  if (n == 0 || nprod == 0) {
    Kokkos::parallel_for(
      "lbfgsb::MaskedGramEmpty", range(nprod + (counted ? 2 : 0)), KOKKOS_LAMBDA(const Int q) { out(q) = q < nprod ? 0.0 : (Real)counts(q - nprod); });
    return;
  }
  const Int tile    = std::max<Int>(8, std::min<Int>(128, 3072 / (nv + 2)));
  const Int ld      = tile + 1; /* odd row stride of the tile: the vectors of a product sit in different banks */
  const Int league  = std::max<Int>(1, std::min<Int>((n + tile - 1) / tile, lmax));
  const Int ssize   = ld * (nv + 2);
  Policy    pol(exec(), league, Kokkos::AUTO);
  pol.set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(ssize)));
  Kokkos::parallel_for(
    "lbfgsb::MaskedGram", pol, KOKKOS_LAMBDA(const Member &team) {
      Scratch   buf(team.team_scratch(0), ssize);
      const Int lr      = team.league_rank();
      const Int nrows   = counted ? counts(1) : n;
      const Int ntiles  = (nrows + tile - 1) / tile;
      const Int perteam = ((ntiles + league - 1) / league) * tile; /* rows per team, whole tiles */
      const Int b = lr * perteam, e = b + perteam < nrows ? b + perteam : nrows;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nprod), [&](const Int q) { partial(lr, q) = 0; });
      for (Int r0 = b; r0 < e; r0 += tile) {
        const Int nr = e - r0 < tile ? e - r0 : tile;
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nr * (nv + 2)), [&](const Int idx) {
          const Int v = idx / nr, r = idx - v * nr;
          const Int i = listed ? rows(r0 + r) : r0 + r;
          Real      val;
          if (v < nv) val = vecs(v).p[i];
          else {
            const bool fr = iwhere(i) <= 0;
            if (setfree && v == nv) gfree(i) = fr ? 1 : 0; /* each listed row is loaded once */
            if (listed) val = (fr == (v == nv)) ? 1 : -1; /* free products +s, active products -s */
            else val = (fr == (v == nv)) ? 1 : 0;
          }
          buf(v * ld + r) = val;
        });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nprod), [&](const Int q) {
          const GramProduct pr = prods(q);
          const Int         oa = pr.a * ld, ob = pr.b * ld, om = (pr.free ? nv : nv + 1) * ld;
          Real              s  = 0;
          for (Int r = 0; r < nr; r++) s += buf(om + r) * buf(oa + r) * buf(ob + r);
          partial(lr, q) += s;
        });
      }
    });
  Kokkos::parallel_for(
    "lbfgsb::MaskedGramSum", range(nprod + (counted ? 2 : 0)), KOKKOS_LAMBDA(const Int q) {
      if (q >= nprod) {
        out(q) = (Real)counts(q - nprod);
        return;
      }
      Real s = 0;
      for (Int l = 0; l < league; l++) s += partial(l, q);
      out(q) = s;
    });
}

Int FreeSetChanges(View<Int> iwhere, View<Int> gfree, View<Int> rows)
{
  const Int n   = (Int)iwhere.extent(0);
  Int       cnt = 0;
  Kokkos::parallel_scan(
    "lbfgsb::FreeSetChanges", range(n),
    KOKKOS_LAMBDA(const Int i, Int &upd, const bool final) {
      const Int fr = iwhere(i) <= 0 ? 1 : 0;
      if (fr != gfree(i)) {
        if (final) {
          rows(upd) = i;
          gfree(i)  = fr;
        }
        upd++;
      }
    },
    cnt);
  return cnt;
}

/* ---------------------------------------------------------------- products with the stored pairs */

namespace
{
/* out(q col + j) = sum_i op_q(i, y_j(i), s_j(i)) for j < col, q < NQ: team (segment, j) accumulates its rows in
   registers (the teams of one segment run together, so the vectors common to all j are read once from memory),
   then the segments are summed in a fixed order (deterministic) */
template <int NQ, class Op>
void PairReduce(const char *name, Kokkos::View<VecPtr *, MemSpace> vecs, Int col, Int n, const Op &op, View<Real> scratch, View<Real> out)
{
  using Policy     = Kokkos::TeamPolicy<ExecSpace>;
  using Member     = Policy::member_type;
  using TeamShared = Kokkos::View<Real *, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  if (col == 0) return;
  if (n == 0) {
    Kokkos::deep_copy(exec(), Kokkos::subview(out, std::make_pair((Int)0, NQ * col)), 0.0);
    return;
  }
  const Int nseg = std::max<Int>(1, std::min<Int>(kPairSegments, (n + 4095) / 4096));
  const Int seg  = (n + nseg - 1) / nseg;
  const int ts   = kDeviceExec ? 128 : 1;
  Policy    pol(exec(), nseg * col, ts);
  pol.set_scratch_size(0, Kokkos::PerTeam(TeamShared::shmem_size(NQ * ts)));
  Kokkos::parallel_for(
    name, pol, KOKKOS_LAMBDA(const Member &team) {
      const Int   j = team.league_rank() % col, g = team.league_rank() / col;
      const Int   b = g * seg, e = b + seg < n ? b + seg : n;
      const Real *y = vecs(j).p, *s = vecs(col + j).p;
      const int   t = team.team_rank(), nt = team.team_size();
      Real        acc[NQ];
      for (int q = 0; q < NQ; q++) acc[q] = 0;
      for (Int i = b + t; i < e; i += nt) op(i, y[i], s[i], acc);
      TeamShared sh(team.team_scratch(0), NQ * nt);
      for (int q = 0; q < NQ; q++) sh(q * nt + t) = acc[q];
      team.team_barrier();
      for (int q = t; q < NQ; q += nt) {
        Real sum = 0;
        for (int k = 0; k < nt; k++) sum += sh(q * nt + k);
        scratch((g * NQ + q) * col + j) = sum;
      }
    });
  Kokkos::parallel_for(
    "lbfgsb::PairReduceSum", range(NQ * col), KOKKOS_LAMBDA(const Int qj) {
      Real sum = 0;
      for (Int g = 0; g < nseg; g++) sum += scratch(g * NQ * col + qj);
      out(qj) = sum;
    });
}

struct DotOp {
  ConstView v;
  KOKKOS_INLINE_FUNCTION void operator()(Int i, Real y, Real s, Real *acc) const
  {
    const Real vi = v(i);
    acc[0] += vi * y;
    acc[1] += vi * s;
  }
};

struct UpdateOp {
  const Real *yn, *sn;
  View<Int>   gfree;
  KOKKOS_INLINE_FUNCTION void operator()(Int i, Real y, Real s, Real *acc) const
  {
    const Real z = gfree(i) ? 1 : 0, a = 1 - z, yi = yn[i], si = sn[i];
    acc[0] += z * yi * y;
    acc[1] += a * si * s;
    acc[2] += a * si * y;
    acc[3] += z * s * yi;
    acc[4] += z * si * y;
    acc[5] += z * si * s;
  }
};
} // namespace

void PairDots(Kokkos::View<VecPtr *, MemSpace> vecs, Int col, ConstView v, View<Real> scratch, View<Real> out)
{
  PairReduce<2>("lbfgsb::PairDots", vecs, col, (Int)v.extent(0), DotOp{v}, scratch, out);
}

void UpdateProducts(Kokkos::View<VecPtr *, MemSpace> vecs, Int col, ConstView y, ConstView s, View<Int> gfree, View<Real> scratch, View<Real> out)
{
  PairReduce<6>("lbfgsb::UpdateProducts", vecs, col, (Int)gfree.extent(0), UpdateOp{y.data(), s.data(), gfree}, scratch, out);
}

void PairCombine(MutView out, Real scale, bool masked, View<Int> iwhere, Real c0, ConstView u0, Real c1, ConstView u1, Real c2, ConstView u2, Kokkos::View<VecPtr *, MemSpace> vecs, Int col, View<Real> coef)
{
  const Int  n  = (Int)out.extent(0);
  const bool h0 = u0.extent(0) > 0, h1 = u1.extent(0) > 0, h2 = u2.extent(0) > 0;
  Kokkos::parallel_for(
    "lbfgsb::PairCombine", range(n), KOKKOS_LAMBDA(const Int i) {
      if (masked && iwhere(i) > 0) {
        out(i) = 0;
        return;
      }
      Real v = 0;
      if (h0) v += c0 * u0(i);
      if (h1) v += c1 * u1(i);
      if (h2) v += c2 * u2(i);
      for (Int j = 0; j < col; j++) v += coef(j) * vecs(j).p[i] + coef(col + j) * vecs(col + j).p[i];
      out(i) = scale * v;
    });
}

void LineSearchStart(ConstView z, ConstView x, ConstView g, MutView d, MutView xold, MutView gold, Real &dtd, Real &gtd)
{
  const Int n = (Int)x.extent(0);
  dtd = gtd = 0;
  if (n == 0) return;
  Kokkos::parallel_reduce(
    "lbfgsb::LineSearchStart", range(n),
    KOKKOS_LAMBDA(const Int i, Real &a, Real &b) {
      const Real xi = x(i), gi = g(i), di = z(i) - xi;
      d(i)    = di;
      xold(i) = xi;
      gold(i) = gi;
      a += di * di;
      b += gi * di;
    },
    dtd, gtd);
}

Real GradientChange(ConstView g, ConstView gold, MutView r)
{
  const Int n  = (Int)g.extent(0);
  Real      rr = 0;
  if (n == 0) return 0;
  Kokkos::parallel_reduce(
    "lbfgsb::GradientChange", range(n),
    KOKKOS_LAMBDA(const Int i, Real &a) {
      const Real ri = g(i) - gold(i);
      r(i)          = ri;
      a += ri * ri;
    },
    rr);
  return rr;
}

/* ---------------------------------------------------------------- fused passes of a bounded iteration */

/* iwhere of a variable that stays fixed (3: l = u) or unbounded (-1) forever (set by Active from its bounds), 0 for
   the others: CauchyVar only asks whether the state is one of these two */
KOKKOS_INLINE_FUNCTION Int FixedState(Real l, Real u, Real inf)
{
  const int nbd = Nbd(l, u, inf);
  return nbd == 0 ? -1 : ((nbd == 2 && u - l <= 0) ? 3 : 0);
}

void CauchyInitDots(ConstView l, ConstView u, ConstView x, ConstView g, View<Int> iwhere, MutView d, MutView t, Real inf, Kokkos::View<VecPtr *, MemSpace> vecs, Int col, View<Real> scratch, View<Real> out)
{
  using Policy     = Kokkos::TeamPolicy<ExecSpace>;
  using Member     = Policy::member_type;
  using TeamShared = Kokkos::View<Real *, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  constexpr int NQ = 2, NS = 7, NV = NQ + NS; /* the dots of PairDots, then (f1, 4 counts, tmin, tmax) */
  const Int     n  = (Int)x.extent(0);
  if (col <= 0) return;
  /* the segmentation and team size of PairReduce, so that the dots are PairDots' to the last bit */
  const Int nseg = std::max<Int>(1, std::min<Int>(kPairSegments, (n + 4095) / 4096));
  const Int seg  = (n + nseg - 1) / nseg;
  const int ts   = kDeviceExec ? 128 : 1;
  const Int soff = nseg * NQ * col; /* the scalars of segment s at scratch(soff + s NS + k) */
  Policy    pol(exec(), nseg * col, ts);
  pol.set_scratch_size(0, Kokkos::PerTeam(TeamShared::shmem_size(NV * ts)));
  Kokkos::parallel_for(
    "lbfgsb::CauchyInitDots", pol, KOKKOS_LAMBDA(const Member &team) {
      const Int   j = team.league_rank() % col, gs = team.league_rank() / col;
      const Int   b = gs * seg, e = b + seg < n ? b + seg : n;
      const Real *y = vecs(j).p, *s = vecs(col + j).p;
      const int   tr = team.team_rank(), nt = team.team_size();
      Real        acc[NV];
      for (int q = 0; q < NV; q++) acc[q] = 0;
      acc[NV - 2] = kNoBreak;
      for (Int i = b + tr; i < e; i += nt) {
        Int  iw = FixedState(l(i), u(i), inf);
        Real di, ti;
        int  kind;
        CauchyVar(l(i), u(i), x(i), g(i), iw, di, ti, kind, inf);
        acc[0] += di * y[i];
        acc[1] += di * s[i];
        if (j == 0) { /* one team per segment writes the state and counts */
          iwhere(i) = iw;
          d(i)      = di;
          t(i)      = ti;
          const bool brk = ti < kNoBreak, moving = iw == 0 || iw == -1;
          acc[2] -= di * di;
          acc[3] += brk ? 1 : 0;
          acc[4] += moving ? 1 : 0;
          acc[5] += (moving && !brk) ? 1 : 0;
          acc[6] += (moving && !brk && di != 0) ? 1 : 0;
          acc[7] = cm::fmin(acc[7], ti);
          acc[8] = cm::fmax(acc[8], brk ? ti : 0.0);
        }
      }
      TeamShared sh(team.team_scratch(0), NV * nt);
      for (int q = 0; q < NV; q++) sh(q * nt + tr) = acc[q];
      team.team_barrier();
      for (int q = tr; q < NV; q += nt) {
        if (q >= NQ && j != 0) continue;
        Real v = q == NV - 2 ? kNoBreak : 0;
        for (int k = 0; k < nt; k++) v = q == NV - 2 ? cm::fmin(v, sh(q * nt + k)) : (q == NV - 1 ? cm::fmax(v, sh(q * nt + k)) : v + sh(q * nt + k));
        if (q < NQ) scratch((gs * NQ + q) * col + j) = v;
        else scratch(soff + gs * NS + (q - NQ)) = v;
      }
    });
  Kokkos::parallel_for(
    "lbfgsb::CauchyInitDotsSum", range(NQ * col + NS), KOKKOS_LAMBDA(const Int qj) {
      if (qj < NQ * col) {
        Real sum = 0;
        for (Int gs = 0; gs < nseg; gs++) sum += scratch(gs * NQ * col + qj);
        out(qj) = sum;
      } else {
        const Int k = qj - NQ * col;
        Real      v = k == NS - 2 ? kNoBreak : 0;
        for (Int gs = 0; gs < nseg; gs++) {
          const Real w = scratch(soff + gs * NS + k);
          v            = k == NS - 2 ? cm::fmin(v, w) : (k == NS - 1 ? cm::fmax(v, w) : v + w);
        }
        out(qj) = v;
      }
    });
}

CauchyInitInfo CauchyInitDotsInfo(const Real *v)
{
  CauchyInitInfo info;
  info.f1              = v[0];
  info.nbreak          = (Int)v[1];
  info.nmoving         = (Int)v[2];
  info.nfreenb         = (Int)v[3];
  info.nfreenb_nonzero = (Int)v[4];
  info.tmin            = cm::fmin(v[5], kNoBreak);
  info.tmax            = v[6];
  return info;
}

/* the reference `lnsrlb` bound on the step at one variable (LineSearchMaxStep), mn the running minimum */
KOKKOS_INLINE_FUNCTION void MaxStepAt(int nbd, Real l, Real u, Real x, Real a1, Real &mn)
{
  if (nbd == 0) return;
  if (a1 < 0 && nbd <= 2) {
    const Real a2 = l - x;
    if (a2 >= 0) mn = 0;
    else if (a1 * mn < a2) mn = cm::fmin(mn, a2 / a1);
  } else if (a1 > 0 && nbd >= 2) {
    const Real a2 = u - x;
    if (a2 <= 0) mn = 0;
    else if (a1 * mn > a2) mn = cm::fmin(mn, a2 / a1);
  }
}

/* LineSearchStart at variable i from the new point xn: d = xn - x, x and g saved, a += d^T d, bsum += g^T d, and (maxstep)
   the bound on the step in mn */
KOKKOS_INLINE_FUNCTION void LineSearchStartAt(const MutView &d, const MutView &xold, const MutView &gold, Int i, Real xn, Real xi, Real gi, bool maxstep, int nbd, Real li, Real ui, Real &a, Real &bsum, Real &mn)
{
  const Real di = xn - xi;
  d(i)          = di;
  xold(i)       = xi;
  gold(i)       = gi;
  a += di * di;
  bsum += gi * di;
  if (maxstep) MaxStepAt(nbd, li, ui, xi, di, mn);
}

/* the StepInfo of the reductions of a LineSearchStart */
static StepInfo StepResult(Int hits, Real dtd, Real gtd, Real stp, bool maxstep, Real big)
{
  StepInfo info;
  info.iword  = hits;
  info.dtd    = dtd;
  info.gtd    = gtd;
  info.stpmax = maxstep ? cm::fmin(stp, big) : big;
  return info;
}

void CauchyPointVec(ConstView l, ConstView u, ConstView x, ConstView g, ConstView t, View<Int> iwhere, const CauchyPointDesc &cp, MutView z)
{
  Kokkos::parallel_for(
    "lbfgsb::CauchyPointVec", range((Int)x.extent(0)), KOKKOS_LAMBDA(const Int i) { z(i) = CauchyPointAt(cp, l(i), u(i), x(i), g(i), iwhere(i), t, i); });
}

void FreeSetList(ConstView t, ConstView d, View<Int> iwhere, View<Int> gfree, const CauchyPointDesc &cp, View<Int> rows, View<Int> counts, View<Real> seg)
{
  const Int     n      = (Int)iwhere.extent(0);
  const int64_t one    = (int64_t)1 << 32; /* the scan carries (free count) 2^32 + (changes): local sizes below 2^32 */
  const bool    ondev  = seg.extent(0) > 0;
  if (n == 0) {
    Kokkos::deep_copy(exec(), Kokkos::subview(counts, std::make_pair((Int)0, (Int)2)), (Int)0);
    return;
  }
  /* the total goes to counts from the last entry's final pass: no result to the host, no fence */
  Kokkos::parallel_scan(
    "lbfgsb::FreeSetList", range(n), KOKKOS_LAMBDA(const Int i, int64_t &upd, const bool final) {
      Int        iw      = iwhere(i);
      const Real tstar   = ondev ? seg(3) : cp.tstar; /* the last breakpoint passed: from the segment state on the device */
      const Real gidstar = ondev ? seg(4) : (Real)cp.gidstar;
      if (ondev ? gidstar >= 0 : cp.passed) {
        const Real ti = t(i);
        if (ti < kNoBreak && (ti < tstar || (ti == tstar && (Real)(cp.rstart + i) <= gidstar))) {
          iw = d(i) > 0 ? 2 : 1;
          if (final) iwhere(i) = iw;
        }
      }
      const Int  fr  = iw <= 0 ? 1 : 0;
      const bool chg = fr != gfree(i);
      if (final && chg) rows((Int)(upd & (one - 1))) = i;
      upd += (chg ? 1 : 0) + (fr ? one : 0);
      if (final && i == n - 1) {
        counts(0) = (Int)(upd >> 32);
        counts(1) = (Int)(upd & (one - 1));
      }
    });
}

namespace
{
/* the products of EndPass for NQ = 2 (W^T dn) or 8 (and the update's): see the header */
template <int NQ>
void EndPassT(ConstView l, ConstView u, ConstView x, ConstView g, ConstView gold, MutView r, ConstView dstep, Real stp, MutView snew, View<Int> gfree, bool state, View<Int> iwhere, MutView dn, MutView t, Real inf, Kokkos::View<VecPtr *, MemSpace> vecs, Int col, View<Real> scratch, View<Real> out)
{
  using Policy      = Kokkos::TeamPolicy<ExecSpace>;
  using Member      = Policy::member_type;
  using TeamShared  = Kokkos::View<Real *, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using TeamCounts  = Kokkos::View<Int *, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  constexpr int NS  = (int)kEndScalars, NV = NQ + NS;
  constexpr Int NB  = kBreakBuckets;
  constexpr int kT0 = NQ + 5, kT1 = NQ + 6, kPg = NQ + 8; /* tmin (min), tmax and the projected gradient (max) */
  const bool    newpair = NQ == 8, scaled = stp != 1.0, writes = snew.extent(0) > 0;
  const Int     n = (Int)x.extent(0), cj = col > 0 ? col : 1, qc = NQ * col;
  const Real    big = std::numeric_limits<Real>::infinity();
  /* the segmentation and team size of PairReduce: the products are PairDots' and UpdateProducts' to the last bit */
  const Int nseg = std::max<Int>(1, std::min<Int>(kPairSegments, (n + 4095) / 4096));
  const Int seg  = (n + nseg - 1) / nseg;
  const int ts   = kDeviceExec ? 128 : 1;
  const Int soff = nseg * qc;        /* the scalars of segment s at scratch(soff + s NS + k) */
  const Int hoff = soff + nseg * NS; /* its breakpoint histogram at scratch(hoff + s NB + b) */
  if (n == 0) {
    Kokkos::parallel_for(
      "lbfgsb::EndPassEmpty", range(qc + NS + NB), KOKKOS_LAMBDA(const Int k) { out(k) = (k == qc + 5) ? kNoBreak : 0.0; });
    return;
  }
  Policy pol(exec(), nseg * cj, ts);
  pol.set_scratch_size(0, Kokkos::PerTeam(TeamCounts::shmem_size(NB) + TeamShared::shmem_size(NV * ts)));
  Kokkos::parallel_for(
    "lbfgsb::EndPass", pol, KOKKOS_LAMBDA(const Member &team) {
      const Int j = team.league_rank() % cj, gs = team.league_rank() / cj;
      const Int b = gs * seg, e = b + seg < n ? b + seg : n;
      const int tr = team.team_rank(), nt = team.team_size();
      const bool last = newpair && j == col - 1; /* the new pair: formed here, not read */
      TeamCounts hist(team.team_scratch(0), NB); /* the segment's breakpoints per bucket (teams with j = 0) */
      if (j == 0) {
        for (Int k = tr; k < NB; k += nt) hist(k) = 0;
        team.team_barrier();
      }
      Real       acc[NV];
      for (int q = 0; q < NV; q++) acc[q] = 0;
      acc[kT0] = kNoBreak;
      for (Int i = b + tr; i < e; i += nt) {
        const Real li = l(i), ui = u(i), xi = x(i), gi = g(i);
        Int        iw = FixedState(li, ui, inf);
        Real       di, ti;
        int        kind;
        CauchyVar(li, ui, xi, gi, iw, di, ti, kind, inf);
        if (col > 0) {
          Real yj, sj, yi = 0, si = 0;
          if (newpair) {
            yi = gi - gold(i);
            si = scaled ? stp * dstep(i) : dstep(i);
          }
          if (last) {
            yj = yi;
            sj = si;
          } else {
            yj = vecs(j).p[i];
            sj = vecs(col + j).p[i];
          }
          acc[0] += di * yj;
          acc[1] += di * sj;
          if (newpair) { /* UpdateOp, in its order */
            const Real z = gfree(i) ? 1 : 0, a = 1 - z;
            acc[2] += z * yi * yj;
            acc[3] += a * si * sj;
            acc[4] += a * si * yj;
            acc[5] += z * sj * yi;
            acc[6] += z * si * yj;
            acc[7] += z * si * sj;
          }
        }
        if (j == 0) { /* one team per segment writes the vectors and sums the scalars */
          const Real ri = gi - gold(i);
          r(i)          = ri;
          if (newpair && writes) snew(i) = stp * dstep(i);
          if (state) {
            iwhere(i) = iw;
            dn(i)     = di;
            t(i)      = ti;
          }
          const bool brk = ti < kNoBreak, moving = iw == 0 || iw == -1;
          acc[NQ + 0] -= di * di;
          acc[NQ + 1] += brk ? 1 : 0;
          acc[NQ + 2] += moving ? 1 : 0;
          acc[NQ + 3] += (moving && !brk) ? 1 : 0;
          acc[NQ + 4] += (moving && !brk && di != 0) ? 1 : 0;
          acc[kT0] = cm::fmin(acc[kT0], ti);
          acc[kT1] = cm::fmax(acc[kT1], brk ? ti : 0.0);
          if (brk) Kokkos::atomic_add(&hist(BreakBucket(ti)), 1);
          acc[NQ + 7] += ri * ri;
          if (!cm::isfinite(gi)) acc[kPg] = big; /* ProjGradNormInf */
          else if (acc[kPg] < big) {
            const int nbd = Nbd(li, ui, inf);
            Real      pg  = gi;
            if (nbd != 0) {
              if (pg < 0) {
                if (nbd >= 2) pg = cm::fmax(xi - ui, pg);
              } else {
                if (nbd <= 2) pg = cm::fmin(xi - li, pg);
              }
            }
            acc[kPg] = cm::fmax(acc[kPg], cm::fabs(pg));
          }
        }
      }
      TeamShared sh(team.team_scratch(0), NV * nt);
      for (int q = 0; q < NV; q++) sh(q * nt + tr) = acc[q];
      team.team_barrier();
      for (int q = tr; q < NV; q += nt) {
        if ((q < NQ && col == 0) || (q >= NQ && j != 0)) continue;
        Real v = q == kT0 ? kNoBreak : 0;
        for (int k = 0; k < nt; k++) {
          const Real w = sh(q * nt + k);
          v            = q == kT0 ? cm::fmin(v, w) : ((q == kT1 || q == kPg) ? cm::fmax(v, w) : v + w);
        }
        if (q < NQ) scratch((gs * NQ + q) * col + j) = v;
        else scratch(soff + gs * NS + (q - NQ)) = v;
      }
      if (j == 0)
        for (Int k = tr; k < NB; k += nt) scratch(hoff + gs * NB + k) = (Real)hist(k);
    });
  Kokkos::parallel_for(
    "lbfgsb::EndPassSum", range(qc + NS + NB), KOKKOS_LAMBDA(const Int qj) {
      if (qj >= qc + NS) { /* the histogram, summed over the segments (counts: exact below 2^53) */
        const Int k = qj - qc - NS;
        Real      v = 0;
        for (Int gs = 0; gs < nseg; gs++) v += scratch(hoff + gs * NB + k);
        out(qj) = v;
      } else if (qj < qc) {
        Real sum = 0;
        for (Int gs = 0; gs < nseg; gs++) sum += scratch(gs * NQ * col + qj);
        out(qj) = sum;
      } else {
        const Int k  = qj - qc;
        const int op = k == 5 ? 1 : ((k == 6 || k == 8) ? 2 : 0); /* sum, min, max */
        Real      v  = op == 1 ? kNoBreak : 0;
        for (Int gs = 0; gs < nseg; gs++) {
          const Real w = scratch(soff + gs * NS + k);
          v            = op == 1 ? cm::fmin(v, w) : (op == 2 ? cm::fmax(v, w) : v + w);
        }
        out(qj) = v;
      }
    });
}
} // namespace

void EndPass(ConstView l, ConstView u, ConstView x, ConstView g, ConstView gold, MutView r, ConstView dstep, Real stp, MutView snew, bool newpair, View<Int> gfree, bool state, View<Int> iwhere, MutView dn, MutView t, Real inf, Kokkos::View<VecPtr *, MemSpace> vecs, Int col, View<Real> scratch, View<Real> out)
{
  if (newpair && col > 0) EndPassT<8>(l, u, x, g, gold, r, dstep, stp, snew, gfree, state, iwhere, dn, t, inf, vecs, col, scratch, out);
  else EndPassT<2>(l, u, x, g, gold, r, dstep, stp, snew, gfree, state, iwhere, dn, t, inf, vecs, col, scratch, out);
}

StepInfo SubspaceStepStartGcp(ConstView l, ConstView u, View<Int> iwhere, ConstView t, const CauchyPointDesc &cp, ConstView x, ConstView g, Real scale, Real c0, Kokkos::View<VecPtr *, MemSpace> vecs, Int col, View<Real> coef, MutView xnew, MutView d, MutView xold, MutView gold, Real inf, bool maxstep, Real big)
{
  const Int n    = (Int)x.extent(0);
  Int       hits = 0;
  Real      dtd = 0, gtd = 0, stp = big;
  if (n == 0) return StepResult(0, 0, 0, big, false, big);
  Kokkos::parallel_reduce(
    "lbfgsb::SubspaceStepStartGcp", range(n),
    KOKKOS_LAMBDA(const Int i, Int &nh, Real &a, Real &bsum, Real &mn) {
      const Real li = l(i), ui = u(i), xi = x(i), gi = g(i);
      const Int  iw  = iwhere(i);
      const int  nbd = Nbd(li, ui, inf);
      const Real zi  = CauchyPointAt(cp, li, ui, xi, gi, iw, t, i);
      Real       xn  = zi;
      if (iw <= 0) {
        Real v = c0 * gi; /* PairCombine, masked, u0 = g */
        for (Int j = 0; j < col; j++) v += coef(j) * vecs(j).p[i] + coef(col + j) * vecs(col + j).p[i];
        const Real xk = zi + scale * v; /* ProjectStep */
        xn            = ProjectAt(nbd, li, ui, xk, nh);
      }
      xnew(i) = xn;
      LineSearchStartAt(d, xold, gold, i, xn, xi, gi, maxstep, nbd, li, ui, a, bsum, mn); /* from z := xnew */
    },
    hits, dtd, gtd, Kokkos::Min<Real>(stp));
  return StepResult(hits, dtd, gtd, stp, maxstep, big);
}


StepInfo SubspaceStepStart(ConstView l, ConstView u, View<Int> iwhere, ConstView z, ConstView x, ConstView g, MutView dsub, Real scale, Real c0, ConstView u0, Kokkos::View<VecPtr *, MemSpace> vecs, Int col, View<Real> coef, MutView xnew, MutView d, MutView xold, MutView gold, Real inf, bool maxstep, Real big)
{
  const Int  n  = (Int)x.extent(0);
  const bool h0 = u0.extent(0) > 0;
  Int        hits = 0;
  Real       dtd = 0, gtd = 0, stp = big;
  if (n == 0) return StepResult(0, 0, 0, big, false, big);
  Kokkos::parallel_reduce(
    "lbfgsb::SubspaceStepStart", range(n),
    KOKKOS_LAMBDA(const Int i, Int &nh, Real &a, Real &bsum, Real &mn) {
      const Real li = l(i), ui = u(i), zi = z(i), xi = x(i), gi = g(i);
      const int  nbd = Nbd(li, ui, inf);
      Real       xn  = zi;
      if (iwhere(i) > 0) dsub(i) = 0;
      else {
        Real v = 0; /* PairCombine, masked */
        if (h0) v += c0 * u0(i);
        for (Int j = 0; j < col; j++) v += coef(j) * vecs(j).p[i] + coef(col + j) * vecs(col + j).p[i];
        const Real dk = scale * v;
        dsub(i)       = dk;
        const Real xk = zi + dk; /* ProjectStep */
        xn            = ProjectAt(nbd, li, ui, xk, nh);
      }
      xnew(i) = xn;
      LineSearchStartAt(d, xold, gold, i, xn, xi, gi, maxstep, nbd, li, ui, a, bsum, mn); /* from z := xnew */
    },
    hits, dtd, gtd, Kokkos::Min<Real>(stp));
  return StepResult(hits, dtd, gtd, stp, maxstep, big);
}

StepInfo LineSearchStartMax(ConstView l, ConstView u, ConstView z, ConstView x, ConstView g, MutView d, MutView xold, MutView gold, Real inf, bool maxstep, Real big)
{
  const Int n   = (Int)x.extent(0);
  Real      dtd = 0, gtd = 0, stp = big;
  if (n == 0) return StepResult(0, 0, 0, big, false, big);
  Kokkos::parallel_reduce(
    "lbfgsb::LineSearchStartMax", range(n),
    KOKKOS_LAMBDA(const Int i, Real &a, Real &bsum, Real &mn) {
      const Real li = maxstep ? l(i) : Real(0), ui = maxstep ? u(i) : Real(0); /* the bounds only for the step bound */
      LineSearchStartAt(d, xold, gold, i, z(i), x(i), g(i), maxstep, maxstep ? Nbd(li, ui, inf) : 0, li, ui, a, bsum, mn);
    },
    dtd, gtd, Kokkos::Min<Real>(stp));
  return StepResult(0, dtd, gtd, stp, maxstep, big);
}

void BreakpointHistogram(ConstView t, View<Real> edges, Int nb, View<Int> counts)
{
  using Policy      = Kokkos::TeamPolicy<ExecSpace>;
  using Member      = Policy::member_type;
  using TeamCounts  = Kokkos::View<Int *, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const Int n       = (Int)t.extent(0);
  Kokkos::deep_copy(exec(), Kokkos::subview(counts, std::make_pair((Int)0, nb)), (Int)0);
  if (n == 0 || nb <= 0) return;
  const Int nseg = std::max<Int>(1, std::min<Int>(1024, (n + 4095) / 4096));
  const Int seg  = (n + nseg - 1) / nseg;
  Policy    pol(exec(), nseg, Kokkos::AUTO);
  pol.set_scratch_size(0, Kokkos::PerTeam(TeamCounts::shmem_size(nb)));
  Kokkos::parallel_for(
    "lbfgsb::BreakpointHistogram", pol, KOKKOS_LAMBDA(const Member &team) {
      TeamCounts h(team.team_scratch(0), nb);
      const Int  b = team.league_rank() * seg, e = b + seg < n ? b + seg : n;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nb), [&](const Int k) { h(k) = 0; });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, b, e), [&](const Int i) {
        const Real ti = t(i);
        if (!(ti < kNoBreak) || !(ti > edges(0)) || ti > edges(nb)) return;
        Int lo = 0, hi = nb - 1; /* the first bucket k with ti <= edges(k + 1) */
        while (lo < hi) {
          const Int mid = lo + (hi - lo) / 2;
          if (ti <= edges(mid + 1)) hi = mid;
          else lo = mid + 1;
        }
        Kokkos::atomic_add(&h(lo), 1);
      });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nb), [&](const Int k) {
        if (h(k)) Kokkos::atomic_add(&counts(k), h(k));
      });
    });
}

void BreakpointRecordsW(ConstView l, ConstView u, ConstView x, ConstView d, ConstView t, View<Int> idx, Int cnt, Int rstart, Kokkos::View<VecPtr *, MemSpace> vecs, Int col, Real theta, View<Scalar> out, Int stride)
{
  if (cnt <= 0) return;
  Kokkos::parallel_for(
    "lbfgsb::BreakpointRecordsW", range(cnt), KOKKOS_LAMBDA(const Int k) {
      const Int i         = idx(k);
      Real     *o         = &out(k * stride);
      o[0]                = t(i);
      o[1]                = (Real)(rstart + i);
      o[2]                = d(i);
      o[3]                = (d(i) > 0 ? u(i) : l(i)) - x(i);
      for (Int j = 0; j < col; j++) {
        o[4 + j]       = 1.0 * vecs(j).p[i];
        o[4 + col + j] = theta * vecs(col + j).p[i];
      }
    });
}

void BreakpointStopSegment(View<Real> rec, View<Int> perm, Int cnt, Int stride, Kokkos::View<Real **, Kokkos::LayoutLeft, MemSpace> pre, View<Real> p0, View<Real> M, const SegmentConsts &sc, View<Real> out, View<Real> carry, View<Int> selcount)
{
  const Int  ncol = 2 * sc.col2 + 1;
  const bool sel  = selcount.extent(0) > 0;
  using KView    = Kokkos::View<Real, MemSpace>;
  const KView kst(out.data() + 5 + ncol); /* the first stopping segment, as a Real (exact below 2^53) */
  if (cnt > 0)
    Kokkos::parallel_reduce( /* BreakpointFirstStop into the device: no fence */
      "lbfgsb::BreakpointStopSegmentFirst", range(cnt),
      KOKKOS_LAMBDA(const Int k, Real &mn) {
        const Real tprev = k == 0 ? sc.tcarry : rec(perm(k - 1) * stride);
        const Real dt    = rec(perm(k) * stride) - tprev;
        Real       f1, f2;
        SegmentModel(pre, k, p0, M, sc, tprev, f1, f2);
        if (-f1 / f2 < dt && (Real)k < mn) mn = (Real)k;
      },
      Kokkos::Min<Real, MemSpace>(kst));
  Kokkos::parallel_for(
    "lbfgsb::BreakpointStopSegment", range(1), KOKKOS_LAMBDA(const Int) {
      const Int  k     = cnt <= 0 ? 0 : (kst() < (Real)cnt ? (Int)kst() : cnt);
      const Real tprev = k == 0 ? sc.tcarry : rec(perm(k - 1) * stride);
      Real       f1, f2;
      SegmentModel(pre, k, p0, M, sc, tprev, f1, f2);
      out(0) = f1;
      out(1) = f2;
      out(2) = tprev;
      out(3) = k == 0 ? sc.tlastc : rec(perm(k - 1) * stride);
      out(4) = k == 0 ? sc.gidlastc : rec(perm(k - 1) * stride + 1);
      for (Int c = 0; c < ncol; c++) {
        out(5 + c) = pre(k, c);
        carry(c)   = pre(k, c);
      }
      out(5 + ncol) = (Real)k;
      if (sel) out(6 + ncol) = (Real)selcount(0);
    });
}

/* ---------------------------------------------------------------- host routines */

int Dpofa(Real *a, int lda, int n)
{
  for (int j = 0; j < n; j++) {
    Real s = 0;
    for (int k = 0; k < j; k++) {
      Real t = a[k + (size_t)j * lda];
      for (int i = 0; i < k; i++) t -= a[i + (size_t)k * lda] * a[i + (size_t)j * lda];
      t /= a[k + (size_t)k * lda];
      a[k + (size_t)j * lda] = t;
      s += t * t;
    }
    s = a[j + (size_t)j * lda] - s;
    if (s <= 0) return j + 1;
    a[j + (size_t)j * lda] = std::sqrt(s);
  }
  return 0;
}

int DtrslUpper(const Real *t, int ldt, int n, Real *b, int job)
{
  for (int j = 0; j < n; j++)
    if (t[j + (size_t)j * ldt] == 0) return j + 1;
  if (job == 1) { /* t x = b, backward */
    for (int j = n - 1; j >= 0; j--) {
      b[j] /= t[j + (size_t)j * ldt];
      for (int i = 0; i < j; i++) b[i] -= t[i + (size_t)j * ldt] * b[j];
    }
  } else { /* t^T x = b, forward */
    for (int j = 0; j < n; j++) {
      Real s = b[j];
      for (int i = 0; i < j; i++) s -= t[i + (size_t)j * ldt] * b[i];
      b[j] = s / t[j + (size_t)j * ldt];
    }
  }
  return 0;
}

int Formt(Memory &mem)
{
  const int col = mem.col;
  for (int j = 0; j < col; j++) mem.WT(0, j) = mem.theta * mem.SS(0, j);
  for (int i = 1; i < col; i++) {
    for (int j = i; j < col; j++) {
      const int k1   = std::min(i, j);
      Real      ddum = 0;
      for (int k = 0; k < k1; k++) ddum += mem.SY(i, k) * mem.SY(j, k) / mem.SY(k, k);
      mem.WT(i, j) = ddum + mem.theta * mem.SS(i, j);
    }
  }
  return Dpofa(mem.wt.data(), mem.m, col) ? -3 : 0;
}

int Bmv(const Memory &mem, const Real *v, Real *p)
{
  const int col = mem.col;
  if (col == 0) return 0;
  p[col] = v[col];
  for (int i = 1; i < col; i++) {
    Real sum = 0;
    for (int k = 0; k < i; k++) sum += mem.SY(i, k) * v[k] / mem.SY(k, k);
    p[col + i] = v[col + i] + sum;
  }
  if (DtrslUpper(mem.wt.data(), mem.m, col, p + col, 11)) return 1;
  for (int i = 0; i < col; i++) p[i] = v[i] / std::sqrt(mem.SY(i, i));
  if (DtrslUpper(mem.wt.data(), mem.m, col, p + col, 1)) return 1;
  for (int i = 0; i < col; i++) p[i] = -p[i] / std::sqrt(mem.SY(i, i));
  for (int i = 0; i < col; i++) {
    Real sum = 0;
    for (int k = i + 1; k < col; k++) sum += mem.SY(k, i) * p[col + k] / mem.SY(i, i);
    p[i] += sum;
  }
  return 0;
}

int Formk(Memory &mem, const Real *yzzy, const Real *saas, const Real *szzy, const Real *saay)
{
  const int col = mem.col, m2 = 2 * mem.m;
  auto      A   = [col](const Real *a, int i, int j) { return a[i + (size_t)j * col]; };
  std::fill(mem.wn.begin(), mem.wn.end(), 0.0);
  /* upper triangle of WN = [Y'ZZ'Y/theta + D, -L_a' + R_z'; ., theta S'AA'S] with L_a the strictly lower part of
     S'AA'Y and R_z the upper part of S'ZZ'Y */
  for (int iy = 0; iy < col; iy++) {
    const int is = col + iy;
    for (int jy = 0; jy <= iy; jy++) {
      const int js   = col + jy;
      mem.WN(jy, iy) = A(yzzy, iy, jy) / mem.theta;
      mem.WN(js, is) = A(saas, iy, jy) * mem.theta;
    }
    /* wn1(m+iy, jy): (2,1) block, row = S index iy, column = Y index jy: L_a if iy > jy else R_z */
    for (int jy = 0; jy < iy; jy++) mem.WN(jy, is) = -A(saay, iy, jy);
    for (int jy = iy; jy < col; jy++) mem.WN(jy, is) = A(szzy, iy, jy);
    mem.WN(iy, iy) += mem.SY(iy, iy);
  }
  if (Dpofa(mem.wn.data(), m2, col)) return -1;
  for (int js = col; js < 2 * col; js++)
    if (DtrslUpper(mem.wn.data(), m2, col, &mem.WN(0, js), 11)) return -1;
  for (int is = col; is < 2 * col; is++)
    for (int js = is; js < 2 * col; js++) {
      Real s = 0;
      for (int k = 0; k < col; k++) s += mem.WN(k, is) * mem.WN(k, js);
      mem.WN(is, js) += s;
    }
  if (Dpofa(&mem.WN(col, col), m2, col)) return -2;
  return 0;
}

int SubsmSolve(const Memory &mem, Real *wv)
{
  const int col = mem.col, m2 = 2 * mem.m;
  if (DtrslUpper(mem.wn.data(), m2, 2 * col, wv, 11)) return 1;
  for (int i = 0; i < col; i++) wv[i] = -wv[i];
  if (DtrslUpper(mem.wn.data(), m2, 2 * col, wv, 1)) return 1;
  return 0;
}

int CauchyScanStart(const Memory &mem, CauchyScan &scan, const Real *p, Real f1, Real epsmch)
{
  const int col2 = 2 * mem.col;
  scan          = CauchyScan();
  scan.col2     = col2;
  scan.theta    = mem.theta;
  scan.epsmch   = epsmch;
  scan.p.assign(p, p + col2);
  scan.c.assign(col2, 0.0);
  scan.v.assign(col2, 0.0);
  scan.wbp.assign(col2, 0.0);
  scan.f1     = f1;
  scan.f2     = -mem.theta * f1;
  scan.f2_org = scan.f2;
  if (mem.col > 0) {
    if (Bmv(mem, scan.p.data(), scan.v.data())) return 1;
    Real pv = 0;
    for (int i = 0; i < col2; i++) pv += scan.v[i] * scan.p[i];
    scan.f2 -= pv;
  }
  scan.dtm  = -scan.f1 / scan.f2;
  scan.tsum = 0;
  scan.tj   = 0;
  return 0;
}

int CauchyScanChunk(const Memory &mem, CauchyScan &scan, const Breakpoint *bp, Int nb, Int nbreak_total, Int n_total, bool bnded)
{
  const int  col = mem.col, col2 = scan.col2;
  const Real theta = scan.theta;
  for (Int k = 0; k < nb && !scan.done; k++) {
    const Real tj0 = scan.tj;
    scan.tj        = bp[k].t;
    const Real dt  = scan.tj - tj0;
    if (scan.dtm < dt) { /* the minimiser lies in this interval */
      scan.done = true;
      break;
    }
    scan.tsum += dt;
    scan.npassed++;
    scan.tstar       = bp[k].t;
    scan.gidstar     = bp[k].gid;
    const Int  nleft = nbreak_total - scan.npassed;
    const Real dibp  = bp[k].d, zibp = bp[k].z;
    if (nleft == 0 && nbreak_total == n_total) { /* every variable is fixed: the Cauchy point is the last corner */
      scan.dtm      = dt;
      scan.allfixed = true;
      scan.done     = true;
      break;
    }
    const Real dibp2 = dibp * dibp;
    scan.f1          = scan.f1 + dt * scan.f2 + dibp2 - theta * dibp * zibp;
    scan.f2          = scan.f2 - theta * dibp2;
    if (col > 0) {
      for (int i = 0; i < col2; i++) scan.c[i] += dt * scan.p[i];
      for (int i = 0; i < col2; i++) scan.wbp[i] = bp[k].w[i];
      if (Bmv(mem, scan.wbp.data(), scan.v.data())) return 1;
      Real wmc = 0, wmp = 0, wmw = 0;
      for (int i = 0; i < col2; i++) {
        wmc += scan.c[i] * scan.v[i];
        wmp += scan.p[i] * scan.v[i];
        wmw += scan.wbp[i] * scan.v[i];
      }
      for (int i = 0; i < col2; i++) scan.p[i] -= dibp * scan.wbp[i];
      scan.f1 += dibp * wmc;
      scan.f2 += 2.0 * dibp * wmp - dibp2 * wmw;
    }
    scan.f2 = std::max(scan.epsmch * scan.f2_org, scan.f2);
    if (nleft > 0) scan.dtm = -scan.f1 / scan.f2;
    else {
      if (bnded) {
        scan.f1  = 0;
        scan.f2  = 0;
        scan.dtm = 0;
      } else scan.dtm = -scan.f1 / scan.f2;
      scan.done = true;
    }
  }
  return 0;
}

void CauchyScanFinish(CauchyScan &scan)
{
  if (!scan.allfixed) {
    if (scan.dtm <= 0) scan.dtm = 0;
    scan.tsum += scan.dtm;
  }
  for (int i = 0; i < scan.col2; i++) scan.c[i] += scan.dtm * scan.p[i];
  scan.done = true;
}

/* ---------------------------------------------------------------- More-Thuente (MINPACK-2 dcsrch/dcstep) */

void Dcsrch::Step(Real f, Real g, Real &stp, Real ftol, Real gtol, Real xtol, Real stpmin, Real stpmax)
{
  const Real xtrapl = 1.1, xtrapu = 4.0, p5 = 0.5, p66 = 0.66;
  if (task == START) {
    if (stp < stpmin) {
      task = ERROR;
      msg  = "STP < STPMIN";
    }
    if (stp > stpmax) {
      task = ERROR;
      msg  = "STP > STPMAX";
    }
    if (g >= 0) {
      task = ERROR;
      msg  = "INITIAL G >= ZERO";
    }
    if (task == ERROR) return;
    brackt = false;
    stage  = 1;
    finit  = f;
    ginit  = g;
    gtest  = ftol * ginit;
    width  = stpmax - stpmin;
    width1 = width / p5;
    stx = 0;
    fx  = finit;
    gx  = ginit;
    sty = 0;
    fy  = finit;
    gy  = ginit;
    stmin = 0;
    stmax = stp + xtrapu * stp;
    task  = FG;
    return;
  }
  const Real ftest = finit + stp * gtest;
  if (stage == 1 && f <= ftest && g >= 0) stage = 2;
  if (brackt && (stp <= stmin || stp >= stmax)) {
    task = WARNING;
    msg  = "ROUNDING ERRORS PREVENT PROGRESS";
  }
  if (brackt && stmax - stmin <= xtol * stmax) {
    task = WARNING;
    msg  = "XTOL TEST SATISFIED";
  }
  if (stp == stpmax && f <= ftest && g <= gtest) {
    task = WARNING;
    msg  = "STP = STPMAX";
  }
  if (stp == stpmin && (f > ftest || g >= gtest)) {
    task = WARNING;
    msg  = "STP = STPMIN";
  }
  if (f <= ftest && std::abs(g) <= gtol * (-ginit)) {
    task = CONVERGENCE;
    msg  = "CONVERGENCE";
  }
  if (task == WARNING || task == CONVERGENCE) return;
  if (stage == 1 && f <= fx && f > ftest) {
    Real fm = f - stp * gtest, fxm = fx - stx * gtest, fym = fy - sty * gtest, gm = g - gtest, gxm = gx - gtest, gym = gy - gtest;
    Dcstep(stx, fxm, gxm, sty, fym, gym, stp, fm, gm, brackt, stmin, stmax);
    fx = fxm + stx * gtest;
    fy = fym + sty * gtest;
    gx = gxm + gtest;
    gy = gym + gtest;
  } else {
    Dcstep(stx, fx, gx, sty, fy, gy, stp, f, g, brackt, stmin, stmax);
  }
  if (brackt) {
    if (std::abs(sty - stx) >= p66 * width1) stp = stx + p5 * (sty - stx);
    width1 = width;
    width  = std::abs(sty - stx);
  }
  if (brackt) {
    stmin = std::min(stx, sty);
    stmax = std::max(stx, sty);
  } else {
    stmin = stp + xtrapl * (stp - stx);
    stmax = stp + xtrapu * (stp - stx);
  }
  stp = std::max(stp, stpmin);
  stp = std::min(stp, stpmax);
  if ((brackt && (stp <= stmin || stp >= stmax)) || (brackt && stmax - stmin <= xtol * stmax)) stp = stx;
  task = FG;
}

void Dcstep(Real &stx, Real &fx, Real &dx, Real &sty, Real &fy, Real &dy, Real &stp, Real fp, Real dp, bool &brackt, Real stpmin, Real stpmax)
{
  const Real p66  = 0.66;
  const Real sgnd = dp * (dx / std::abs(dx));
  Real       stpf, stpc, stpq, theta, s, gamma, p, q, r;
  if (fp > fx) {
    theta = 3.0 * (fx - fp) / (stp - stx) + dx + dp;
    s     = std::max({std::abs(theta), std::abs(dx), std::abs(dp)});
    gamma = s * std::sqrt((theta / s) * (theta / s) - (dx / s) * (dp / s));
    if (stp < stx) gamma = -gamma;
    p    = (gamma - dx) + theta;
    q    = ((gamma - dx) + gamma) + dp;
    r    = p / q;
    stpc = stx + r * (stp - stx);
    stpq = stx + ((dx / ((fx - fp) / (stp - stx) + dx)) / 2.0) * (stp - stx);
    if (std::abs(stpc - stx) < std::abs(stpq - stx)) stpf = stpc;
    else stpf = stpc + (stpq - stpc) / 2.0;
    brackt = true;
  } else if (sgnd < 0) {
    theta = 3.0 * (fx - fp) / (stp - stx) + dx + dp;
    s     = std::max({std::abs(theta), std::abs(dx), std::abs(dp)});
    gamma = s * std::sqrt((theta / s) * (theta / s) - (dx / s) * (dp / s));
    if (stp > stx) gamma = -gamma;
    p    = (gamma - dp) + theta;
    q    = ((gamma - dp) + gamma) + dx;
    r    = p / q;
    stpc = stp + r * (stx - stp);
    stpq = stp + (dp / (dp - dx)) * (stx - stp);
    if (std::abs(stpc - stp) > std::abs(stpq - stp)) stpf = stpc;
    else stpf = stpq;
    brackt = true;
  } else if (std::abs(dp) < std::abs(dx)) {
    theta = 3.0 * (fx - fp) / (stp - stx) + dx + dp;
    s     = std::max({std::abs(theta), std::abs(dx), std::abs(dp)});
    gamma = s * std::sqrt(std::max(0.0, (theta / s) * (theta / s) - (dx / s) * (dp / s)));
    if (stp > stx) gamma = -gamma;
    p = (gamma - dp) + theta;
    q = (gamma + (dx - dp)) + gamma;
    r = p / q;
    if (r < 0 && gamma != 0) stpc = stp + r * (stx - stp);
    else if (stp > stx) stpc = stpmax;
    else stpc = stpmin;
    stpq = stp + (dp / (dp - dx)) * (stx - stp);
    if (brackt) {
      if (std::abs(stpc - stp) < std::abs(stpq - stp)) stpf = stpc;
      else stpf = stpq;
      if (stp > stx) stpf = std::min(stp + p66 * (sty - stp), stpf);
      else stpf = std::max(stp + p66 * (sty - stp), stpf);
    } else {
      if (std::abs(stpc - stp) > std::abs(stpq - stp)) stpf = stpc;
      else stpf = stpq;
      stpf = std::min(stpmax, stpf);
      stpf = std::max(stpmin, stpf);
    }
  } else {
    if (brackt) {
      theta = 3.0 * (fp - fy) / (sty - stp) + dy + dp;
      s     = std::max({std::abs(theta), std::abs(dy), std::abs(dp)});
      gamma = s * std::sqrt((theta / s) * (theta / s) - (dy / s) * (dp / s));
      if (stp > sty) gamma = -gamma;
      p    = (gamma - dp) + theta;
      q    = ((gamma - dp) + gamma) + dy;
      r    = p / q;
      stpc = stp + r * (sty - stp);
      stpf = stpc;
    } else if (stp > stx) stpf = stpmax;
    else stpf = stpmin;
  }
  if (fp > fx) {
    sty = stp;
    fy  = fp;
    dy  = dp;
  } else {
    if (sgnd < 0) {
      sty = stx;
      fy  = fx;
      dy  = dx;
    }
    stx = stp;
    fx  = fp;
    dx  = dp;
  }
  stp = stpf;
}
} // namespace lbfgsb
} // namespace petsckp
