/*
   kp_tridiag_impl.hpp - the templates of the batched tridiagonal solvers (kp_tridiag.hpp), for callers that generate
   the coefficients or the right-hand sides on the fly: a coefficient accessor coef(s, l, flat index, a, b, c, scale)
   and a right-hand side accessor rhs(s, l, flat index). Included by kp_tridiag.cxx and by solvers that fuse the
   formation of their right-hand sides into the solve (PSCR).
*/
#pragma once

#include "kp_tridiag.hpp"
#include <cmath>

namespace petsckp
{
namespace tridiag_detail
{
KOKKOS_INLINE_FUNCTION Real Mag(Real v) { return v < 0 ? -v : v; }
template <class T>
KOKKOS_INLINE_FUNCTION Real Mag(const T &z)
{
  return Mag((Real)z.real()) + Mag((Real)z.imag());
}

/* a pivot p of a row with coefficients of total magnitude scale is acceptable */
KOKKOS_INLINE_FUNCTION bool PivotOK(const Scalar &p, Real scale, Real pivtol)
{
  const Real m = Mag(p);
  return m > pivtol * scale && compat::isfinite((double)m);
}

struct CoefBatched {
  UView<const Scalar>    a, b, c;
  KOKKOS_INLINE_FUNCTION void operator()(Int, Int, Int p, Scalar &aa, Scalar &bb, Scalar &cc, Real &scale) const
  {
    aa    = a(p);
    bb    = b(p);
    cc    = c(p);
    scale = -1;
  }
};

struct CoefShifted {
  UView<const Scalar>    al, ad, au, ml, md, mu, shift;
  bool                   hasM, hasShift;
  KOKKOS_INLINE_FUNCTION void operator()(Int s, Int l, Int, Scalar &aa, Scalar &bb, Scalar &cc, Real &scale) const
  {
    scale           = -1;
    const Scalar sh = hasShift ? shift(s) : Scalar(0);
    if (hasM) {
      aa = al(l) + sh * ml(l);
      bb = ad(l) + sh * md(l);
      cc = au(l) + sh * mu(l);
    } else {
      aa = al(l);
      bb = ad(l) + sh;
      cc = au(l);
    }
  }
};

/* the reduced systems after PCR; pivots are judged against the scale of the original row (kept in sc) */
struct CoefBuffer {
  UView<Scalar>          a, b, c, sc;
  KOKKOS_INLINE_FUNCTION void operator()(Int, Int, Int p, Scalar &aa, Scalar &bb, Scalar &cc, Real &scale) const
  {
    aa    = a(p);
    bb    = b(p);
    cc    = c(p);
    scale = Mag(sc(p));
  }
};

/* the right-hand side read from a view in the batch layout; other accessors (e.g. PSCR's, which forms the
   right-hand sides on the fly) have the same call signature rhs(s, l, flat index) */
struct RhsView {
  UView<const Scalar>    f;
  KOKKOS_INLINE_FUNCTION Scalar operator()(Int, Int, Int p) const { return f(p); }
};

/* Thomas on the m rows l = row0 + t*rowstep (t = 0..m-1) of system s, stored at base + t*stride.
   Returns 0 or 1 + the first row with an unacceptable pivot; a failed system's solution is NaN. */
template <class Coef, class FV, class XV, class WV>
KOKKOS_INLINE_FUNCTION Int ThomasOne(const Coef &coef, Int s, Int m, Int row0, Int rowstep, Int base, Int stride, const FV &f, const XV &x, const WV &w, Real pivtol)
{
  if (m <= 0) return 0;
  Int    fail  = 0;
  Scalar wprev = 0, xprev = 0;
  for (Int t = 0; t < m; t++) {
    const Int idx = base + t * stride, l = row0 + t * rowstep;
    Scalar    aa, bb, cc;
    Real      scale;
    coef(s, l, idx, aa, bb, cc, scale);
    if (t == 0) aa = 0;
    if (t == m - 1) cc = 0;
    if (scale < 0) scale = Mag(aa) + Mag(bb) + Mag(cc);
    Scalar piv = bb - aa * wprev;
    if (!PivotOK(piv, scale, pivtol)) {
      if (!fail) fail = 1 + l;
      piv = 1; /* keep going without dividing by zero; the result is replaced by NaN */
    }
    wprev  = cc / piv;
    xprev  = (f(s, l, idx) - aa * xprev) / piv; /* f is read before x(idx) is written: f may alias x */
    w(idx) = wprev;
    x(idx) = xprev;
  }
  Scalar xn = xprev;
  for (Int t = m - 2; t >= 0; t--) {
    const Int idx = base + t * stride;
    xn            = x(idx) - w(idx) * xn;
    x(idx)        = xn;
  }
  if (fail)
    for (Int t = 0; t < m; t++) x(base + t * stride) = Scalar(NAN);
  return fail;
}

/* the partition method with P chunks of m rows (the last may be shorter, m >= 2): chunk j holds rows
   [j m, min((j+1) m, n) - 1]; its last row is a separator when j < P - 1, the other rows are its interior */
template <class Coef, class Rhs>
void SolvePartition(const TridiagShape &sh, const Coef &coef, Int P, const Rhs &f, UView<Scalar> x, UView<Int> ustatus, Real pivtol, TridiagWork &work)
{
  const Int nsys = sh.nsys, n = sh.n, N = sh.size(), m = (n + P - 1) / P;
  P = (n + m - 1) / m;
  work.Reserve(N + 8 * nsys * P);
  View<Int>  lstatus;
  UView<Int> status = ustatus;
  if (!status.extent(0)) {
    lstatus = View<Int>("tridiag status", nsys);
    status  = UView<Int>(lstatus.data(), nsys);
  } else Kokkos::deep_copy(exec(), status, (Int)0);
  Scalar       *base = work.buf.data();
  UView<Scalar> w(base, N);                                  /* c' of the interior solves */
  UView<Scalar> R(base + N, 6 * nsys * P);                   /* per chunk: y, v, w at the first and last interior row */
  UView<Scalar> Rc(base + N + 6 * nsys * P, 2 * nsys * P);   /* c' and d' of the reduced systems */
  /* chunk t = j nsys + s (system fastest); R(k, t) at k nsys P + t */
  const Int NC = nsys * P;
  Kokkos::parallel_for(
    "petsckp::TridiagPartitionChunks", range(NC), KOKKOS_LAMBDA(Int t) {
      const Int s = t % nsys, j = t / nsys;
      const Int lo = j * m, hi = (j + 1) * m < n ? (j + 1) * m - 1 : n - 1, e = j < P - 1 ? hi - 1 : hi; /* interior lo..e */
      Scalar    yf = 0, yl = 0, vf = 0, vl = 0, wf = 0, wl = 0;
      Int       fail = 0;
      /* top-down: the values at the last interior row; bottom-up: at the first */
      for (int dir = 0; dir < 2; dir++) {
        Scalar cp = 0, dy = 0, dv = 0, dw = 0;
        for (Int k = 0; k <= e - lo; k++) {
          const Int l = dir ? e - k : lo + k, idx = sh.index(s, l);
          Scalar    aa, bb, cc;
          Real      scale;
          coef(s, l, idx, aa, bb, cc, scale);
          if (l == 0) aa = 0;
          if (l == n - 1) cc = 0;
          if (scale < 0) scale = Mag(aa) + Mag(bb) + Mag(cc);
          const Scalar in = dir ? cc : aa, out = dir ? aa : cc; /* coupling towards the rows done, towards the rows to come */
          Scalar       piv = bb - in * cp;
          if (!PivotOK(piv, scale, pivtol)) {
            if (!fail) fail = 1 + l;
            piv = 1;
          }
          const Scalar rv = l == lo ? -aa : Scalar(0), rw = l == e ? -cc : Scalar(0); /* v: -a e_first, w: -c e_last */
          dy = (f(s, l, idx) - in * dy) / piv;
          dv = (rv - in * dv) / piv;
          dw = (rw - in * dw) / piv;
          cp = out / piv;
        }
        if (dir) yf = dy, vf = dv, wf = dw;
        else yl = dy, vl = dv, wl = dw;
      }
      R(0 * NC + t) = yf, R(1 * NC + t) = yl, R(2 * NC + t) = vf, R(3 * NC + t) = vl, R(4 * NC + t) = wf, R(5 * NC + t) = wl;
      if (fail) Kokkos::atomic_fetch_max(&status(s), fail);
    });
  /* the reduced system of the separators X_k = x(sep_k), sep_k = (k+1) m - 1, k = 0..P-2 */
  Kokkos::parallel_for(
    "petsckp::TridiagPartitionReduced", range(nsys), KOKKOS_LAMBDA(Int s) {
      Scalar cp = 0, dp = 0;
      Int    fail = 0;
      for (Int k = 0; k + 1 < P; k++) {
        const Int r = (k + 1) * m - 1, idx = sh.index(s, r), tk = k * nsys + s, tn = (k + 1) * nsys + s;
        Scalar    aa, bb, cc;
        Real      scale;
        coef(s, r, idx, aa, bb, cc, scale);
        if (scale < 0) scale = Mag(aa) + Mag(bb) + Mag(cc);
        const Scalar ra = aa * R(3 * NC + tk), rc = cc * R(4 * NC + tn);
        const Scalar rb = bb + aa * R(5 * NC + tk) + cc * R(2 * NC + tn);
        const Scalar rf = f(s, r, idx) - aa * R(1 * NC + tk) - cc * R(0 * NC + tn);
        Scalar       piv = rb - (k ? ra * cp : Scalar(0));
        if (!PivotOK(piv, scale, pivtol)) {
          if (!fail) fail = 1 + r;
          piv = 1;
        }
        cp             = rc / piv;
        dp             = (rf - (k ? ra * dp : Scalar(0))) / piv;
        Rc(tk)         = cp;
        Rc(NC + tk)    = dp;
      }
      Scalar xn = 0;
      for (Int k = P - 2; k >= 0; k--) {
        const Int tk = k * nsys + s;
        xn           = Rc(NC + tk) - Rc(tk) * xn;
        Rc(NC + tk)  = xn;
      }
      if (fail) Kokkos::atomic_fetch_max(&status(s), fail);
    });
  /* the interiors with the separators known; then the separators themselves (f may alias x: the interiors read f
     only at their own rows, the separators are written last) */
  Kokkos::parallel_for(
    "petsckp::TridiagPartitionInterior", range(NC), KOKKOS_LAMBDA(Int t) {
      const Int    s = t % nsys, j = t / nsys;
      const Int    lo = j * m, hi = (j + 1) * m < n ? (j + 1) * m - 1 : n - 1, e = j < P - 1 ? hi - 1 : hi;
      const Scalar xl = j > 0 ? Rc(NC + (j - 1) * nsys + s) : Scalar(0), xr = j < P - 1 ? Rc(NC + t) : Scalar(0);
      Scalar       cp = 0, dp = 0;
      for (Int l = lo; l <= e; l++) {
        const Int idx = sh.index(s, l);
        Scalar    aa, bb, cc;
        Real      scale;
        coef(s, l, idx, aa, bb, cc, scale);
        if (l == 0) aa = 0;
        if (l == n - 1) cc = 0;
        Scalar rhs = f(s, l, idx);
        if (l == lo) rhs -= aa * xl, aa = 0;
        if (l == e) rhs -= cc * xr, cc = 0;
        Scalar piv = bb - aa * cp;
        if (piv == Scalar(0)) piv = 1; /* reported by the first pass */
        cp     = cc / piv;
        dp     = (rhs - aa * dp) / piv;
        w(idx) = cp;
        x(idx) = dp;
      }
      Scalar xn = dp;
      for (Int l = e - 1; l >= lo; l--) {
        const Int idx = sh.index(s, l);
        xn            = x(idx) - w(idx) * xn;
        x(idx)        = xn;
      }
    });
  Kokkos::parallel_for(
    "petsckp::TridiagPartitionSeparators", range(nsys * (P - 1)), KOKKOS_LAMBDA(Int t) {
      const Int s = t % nsys, k = t / nsys;
      x(sh.index(s, (k + 1) * m - 1)) = Rc(NC + t);
    });
  Kokkos::parallel_for(
    "petsckp::TridiagPartitionFailed", range(N), KOKKOS_LAMBDA(Int p) {
      const bool il = sh.layout == TridiagLayout::Interleaved;
      const Int  s  = il ? p % nsys : p / n;
      if (status(s)) x(p) = Scalar(NAN);
    });
}

template <class Coef, class Rhs>
void Solve(const TridiagShape &shape, const Coef &coef, const Rhs &f, UView<Scalar> x, UView<Int> ustatus, const TridiagOptions &opt, TridiagWork *uwork)
{
  const Int nsys = shape.nsys, n = shape.n, N = shape.size();
  if (nsys <= 0) return;
  if (n <= 0) {
    if (ustatus.extent(0)) Kokkos::deep_copy(exec(), ustatus, (Int)0);
    return;
  }
  Int steps = 0;
  if (opt.alg == TridiagAlgorithm::PCRThomas) steps = opt.pcr_steps >= 0 ? opt.pcr_steps : TridiagAutoPCRSteps(nsys, n);
  if (opt.alg == TridiagAlgorithm::Partition || opt.alg == TridiagAlgorithm::Auto) {
    Int P = opt.alg == TridiagAlgorithm::Partition && opt.chunks > 0 ? opt.chunks : TridiagAutoChunks(nsys, n);
    if (P > n / 2) P = n / 2; /* chunks of at least 2 rows */
    if (P >= 2) {
      TridiagWork  local;
      SolvePartition(shape, coef, P, f, x, ustatus, opt.pivtol, uwork ? *uwork : local);
      return;
    }
  }
  while (steps > 0 && ((Int)1 << (steps - 1)) >= n) steps--; /* more steps than log2(n) change nothing */

  TridiagWork  local;
  TridiagWork &work = uwork ? *uwork : local;
  work.Reserve(steps == 0 ? N : 9 * N);
  const Real pivtol = opt.pivtol;
  const auto sh     = shape;

  if (steps == 0) {
    UView<Scalar> w(work.buf.data(), N);
    const bool    hasStatus = ustatus.extent(0) > 0;
    Kokkos::parallel_for(
      "petsckp::TridiagThomas", range(nsys), KOKKOS_LAMBDA(Int s) {
        const Int fail = ThomasOne(coef, s, n, 0, 1, sh.index(s, 0), sh.lstride(), f, x, w, pivtol);
        if (hasStatus) ustatus(s) = fail;
      });
    return;
  }

  /* PCR: two sets of (a, b, c, d) buffers in the batch layout */
  View<Int>     lstatus;
  UView<Int>    status = ustatus;
  if (!status.extent(0)) {
    lstatus = View<Int>("tridiag status", nsys);
    status  = UView<Int>(lstatus.data(), nsys);
  } else Kokkos::deep_copy(exec(), status, (Int)0);
  Scalar       *base = work.buf.data();
  UView<Scalar> A[2] = {UView<Scalar>(base, N), UView<Scalar>(base + 4 * N, N)};
  UView<Scalar> B[2] = {UView<Scalar>(base + N, N), UView<Scalar>(base + 5 * N, N)};
  UView<Scalar> C[2] = {UView<Scalar>(base + 2 * N, N), UView<Scalar>(base + 6 * N, N)};
  UView<Scalar> D[2] = {UView<Scalar>(base + 3 * N, N), UView<Scalar>(base + 7 * N, N)};
  UView<Scalar> sc(base + 8 * N, N); /* |a| + |b| + |c| of the original rows */
  {
    auto a = A[0], b = B[0], c = C[0], d = D[0];
    Kokkos::parallel_for(
      "petsckp::TridiagPCRLoad", range(N), KOKKOS_LAMBDA(Int p) {
        const bool il = sh.layout == TridiagLayout::Interleaved;
        const Int  s = il ? p % nsys : p / n, l = il ? p / nsys : p % n;
        Scalar     aa, bb, cc;
        Real       scale;
        coef(s, l, p, aa, bb, cc, scale);
        if (l == 0) aa = 0;
        if (l == n - 1) cc = 0;
        a(p)  = aa;
        b(p)  = bb;
        c(p)  = cc;
        d(p)  = f(s, l, p);
        sc(p) = Mag(aa) + Mag(bb) + Mag(cc);
      });
  }
  int cur = 0;
  for (Int j = 0; j < steps; j++, cur ^= 1) {
    const Int dist = (Int)1 << j;
    auto      a = A[cur], b = B[cur], c = C[cur], d = D[cur];
    auto      na = A[cur ^ 1], nb = B[cur ^ 1], nc = C[cur ^ 1], nd = D[cur ^ 1];
    Kokkos::parallel_for(
      "petsckp::TridiagPCRStep", range(N), KOKKOS_LAMBDA(Int p) {
        const bool il = sh.layout == TridiagLayout::Interleaved;
        const Int  s = il ? p % nsys : p / n, l = il ? p / nsys : p % n;
        Scalar     aa = a(p), bb = b(p), cc = c(p), dd = d(p), ra = 0, rc = 0;
        if (l - dist >= 0) {
          const Int pm = sh.index(s, l - dist);
          Scalar    bm = b(pm);
          if (!PivotOK(bm, Mag(sc(pm)), pivtol)) {
            Kokkos::atomic_fetch_max(&status(s), 1 + l - dist);
            bm = 1;
          }
          const Scalar alpha = -aa / bm;
          ra                 = alpha * a(pm);
          bb += alpha * c(pm);
          dd += alpha * d(pm);
        }
        if (l + dist < n) {
          const Int pp = sh.index(s, l + dist);
          Scalar    bp = b(pp);
          if (!PivotOK(bp, Mag(sc(pp)), pivtol)) {
            Kokkos::atomic_fetch_max(&status(s), 1 + l + dist);
            bp = 1;
          }
          const Scalar gamma = -cc / bp;
          rc                 = gamma * c(pp);
          bb += gamma * a(pp);
          dd += gamma * d(pp);
        }
        na(p) = ra;
        nb(p) = bb;
        nc(p) = rc;
        nd(p) = dd;
      });
  }
  /* 2^steps independent systems per system: rows r, r + D, r + 2D, ... */
  {
    const Int  D2 = (Int)1 << steps;
    CoefBuffer cb{A[cur], B[cur], C[cur], sc};
    auto       d = D[cur];
    auto       w = A[cur ^ 1];
    Kokkos::parallel_for(
      "petsckp::TridiagPCRThomas", range(nsys * D2), KOKKOS_LAMBDA(Int t) {
        const bool il = sh.layout == TridiagLayout::Interleaved;
        const Int  s = il ? t % nsys : t / D2, r = il ? t / nsys : t % D2;
        const Int  m = r < n ? (n - 1 - r) / D2 + 1 : 0;
        const Int  fail = ThomasOne(cb, s, m, r, D2, sh.index(s, r), D2 * sh.lstride(), RhsView{d}, x, w, pivtol);
        if (fail) Kokkos::atomic_fetch_max(&status(s), fail);
      });
    Kokkos::parallel_for(
      "petsckp::TridiagPCRFailed", range(N), KOKKOS_LAMBDA(Int p) {
        const bool il = sh.layout == TridiagLayout::Interleaved;
        const Int  s  = il ? p % nsys : p / n;
        if (status(s)) x(p) = Scalar(NAN);
      });
  }
}
} // namespace tridiag_detail
} // namespace petsckp
