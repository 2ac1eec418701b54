/*
   kp_tridiag_impl.hpp - the templates of the batched tridiagonal solvers (kp_tridiag.hpp), for callers that generate
   the coefficients or the right-hand sides on the fly: a coefficient accessor coef(s, l, flat index, a, b, c, scale)
   and a right-hand side accessor rhs(s, l, flat index). Included by kp_tridiag.cxx and by solvers that fuse the
   formation of their right-hand sides into the solve (PSCR).
*/
#pragma once

#include "kp_tridiag.hpp"
#include <cmath>
#include <type_traits>
#include <utility>

/* full unrolling of loops over register arrays on the device (their indices must be compile-time constants) */
#if defined(__CUDA_ARCH__)
  #define KP_UNROLL _Pragma("unroll")
#else
  #define KP_UNROLL
#endif

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

/* ---------------------------------------------------------------------------------------------------------------
   The team solver: one system per team, the partition method with its chunks in registers and the separators solved
   by cyclic reduction in team scratch memory.

   The n rows are cut into Te = ceil(n / C) chunks of C consecutive rows; chunk t belongs to thread t of the team. On
   a GPU the chunk lives in the thread's registers (C is a compile-time constant and every loop over it is unrolled);
   on the host, where a team has one thread, the chunks of all Te "virtual threads" live in team scratch memory and
   every phase loops over them (ForChunks), so the host runs the very same arithmetic. The last row of every chunk but
   the last is a separator X_t; the other rows are the chunk's interior, whose solution is an affine function of the
   two neighbouring separators,
       x_j = y_j + v_j X_{t-1} + w_j X_t,
   obtained by one LU sweep down and one up the interior (one division per row; v and w do not depend on the
   right-hand side). Substituting the first interior row of chunk t + 1 and the last of chunk t into separator row t
   gives a tridiagonal system of Te - 1 rows, solved by cyclic reduction (2 log2(Te) steps, a team barrier after
   each) in scratch memory; each thread then finishes its rows. Cyclic reduction in local memory is the core of the
   GPU PSCR tridiagonal solver of M. Myllykoski, T. Rossi and J. Toivanen, J. Parallel Distrib. Comput. 115 (2018),
   Section 3.3; the chunks per thread in front of it (H. H. Wang, ACM TOMS 7, 1981) keep the data in registers.
--------------------------------------------------------------------------------------------------------------- */

/* the rows of one chunk (registers of one GPU thread) */
template <int C>
struct TeamChunk {
  Scalar y[C], v[C], w[C]; /* in: y = right-hand side of the chunk's rows; out: y = solution */
  Scalar hc;               /* the separator row's coupling to the next chunk */
};

/* team scratch of TeamChunkSolve (at least 8 T scalars), of TeamToeplitzSolve (its own area, so that the two may follow
   each other without a barrier between them), then 3 flags */
struct TeamScratch {
  Scalar *pub = nullptr;                              /* 3 T: y, v, w of the first interior row of every chunk */
  Scalar *A = nullptr, *B = nullptr, *Cc = nullptr;   /* the separators' system (T each) */
  Scalar *F = nullptr, *S = nullptr;                  /* its right-hand side (then solution) and |row| sums */
  Scalar *toep = nullptr;                             /* TeamToeplitzSolve: two areas of 2 ceil(T / 32) + 8, by parity */
  int    *flag = nullptr;                             /* 3 failure flags (1 + row), used round robin */
  KOKKOS_INLINE_FUNCTION static Int ToeplitzScalars(Int T) { return 2 * (2 * ((T + 31) / 32) + 8); }
  KOKKOS_INLINE_FUNCTION static size_t Bytes(Int T, Int scalars = 0) { return (size_t)((scalars > 8 * T ? scalars : 8 * T) + ToeplitzScalars(T)) * sizeof(Scalar) + 4 * sizeof(int); }
  KOKKOS_INLINE_FUNCTION void Carve(char *base, Int T, Int scalars = 0)
  {
    Scalar *p = (Scalar *)base;
    pub       = p;
    A         = p + 3 * T;
    B         = p + 4 * T;
    Cc        = p + 5 * T;
    F         = p + 6 * T;
    S         = p + 7 * T;
    toep      = p + (scalars > 8 * T ? scalars : 8 * T);
    flag      = (int *)(toep + ToeplitzScalars(T));
  }
};

/* f(t) for the chunks t < T of the calling thread: its own chunk on a GPU, all of them on the host (team size 1) */
template <class Member, class Fn>
KOKKOS_FORCEINLINE_FUNCTION void ForChunks(const Member &m, Int T, const Fn &f)
{
  if constexpr (kDeviceExec) {
    const Int t = m.team_rank();
    if (t < T) f(t);
  } else {
    (void)m;
    for (Int t = 0; t < T; t++) f(t);
  }
}

/* Solves one tridiagonal system of n rows: on entry chunk(t).y holds the right-hand side of rows t C .. t C + C - 1
   (rows >= n ignored), on return its solution. coef(t, j, a, b, c): the coefficients of row t C + j, with a = 0 on
   row 0 and c = 0 on row n - 1. Called by every thread of the team; T >= Te threads (chunks >= Te idle). The flags
   must be zero before the first solve (solve = 0); consecutive solves (solve = 0, 1, 2, ...) need no barrier between
   them. Returns on every thread 0, or 1 + a row with an unacceptable pivot (then the solution is NaN). */
template <int C, class Member, class ChunkAt, class CoefAt>
KOKKOS_INLINE_FUNCTION Int TeamChunkSolve(const Member &m, Int n, Int T, const ChunkAt &chunk, const CoefAt &coef, const TeamScratch &sc, Real pivtol, Int solve)
{
  const Int Te = (n + C - 1) / C, R = Te - 1;
  int      *flag = sc.flag + solve % 3;
  /* the previous solve of the team may still read the separators' solution (step 4: F of the neighbouring chunks)
     that step 1 overwrites */
  if (solve > 0) m.team_barrier();
  /* 1. every chunk's interior as affine functions of its separators; publish the first interior row, keep the last
        and the separator row */
  ForChunks(m, T, [&](Int t) {
    if (t >= Te) return;
    TeamChunk<C> &ch   = chunk(t);
    const bool    sep  = t < R;
    const Int     nrow = sep ? C : n - t * C, ni = sep ? C - 1 : nrow;
    Int           fail = 0;
    Scalar        cp = 0, yp = 0, vp = 0;
    /* up to 8 rows a thread, the chunk's coefficients first: their loads overlap, and the elimination below waits on
       none of them (longer chunks load them row by row: 3 C more registers would spill under 512 threads) */
    constexpr bool pre = C <= 8;
    constexpr int  CP  = pre ? C : 1;
    Scalar         ca[CP], cb[CP], cc[CP];
    auto           rowcoef = [&](int j, Scalar &a, Scalar &b, Scalar &c) {
      if constexpr (pre) {
        a = ca[j];
        b = cb[j];
        c = cc[j];
      } else coef(t, j, a, b, c);
    };
    if constexpr (pre) {
      KP_UNROLL
      for (int j = 0; j < C; j++) {
        if (j < nrow) coef(t, j, ca[j], cb[j], cc[j]);
        else ca[j] = cb[j] = cc[j] = 0;
      }
    }
    KP_UNROLL
    for (int j = 0; j < C; j++) {
      if (j < ni) {
        Scalar a, b, c;
        rowcoef(j, a, b, c);
        const Scalar piv = b - a * cp;
        if (!PivotOK(piv, pivtol > 0 ? Mag(a) + Mag(b) + Mag(c) : Real(0), pivtol) && !fail) fail = 1 + t * C + j;
        const Scalar r = Scalar(1) / piv;
        yp             = (ch.y[j] - a * yp) * r;
        vp             = -a * (j ? vp : Scalar(1)) * r;
        cp             = (j == ni - 1 ? -c : c) * r; /* c' of the LU sweep, or -c / piv (the coupling to X_t) on the last interior row */
        ch.y[j]        = yp;
        ch.v[j]        = vp;
        ch.w[j]        = cp;
      }
    }
    KP_UNROLL
    for (int j = C - 2; j >= 0; j--) {
      if (j < ni - 1) {
        const Scalar c = ch.w[j];
        ch.y[j] -= c * ch.y[j + 1];
        ch.v[j] -= c * ch.v[j + 1];
        ch.w[j] = -c * ch.w[j + 1];
      }
    }
    if (fail) {
      Kokkos::atomic_fetch_max(flag, (int)fail);
      for (int j = 0; j < C; j++) ch.y[j] = ch.v[j] = ch.w[j] = Scalar(NAN);
    }
    if (t > 0) {
      sc.pub[t]         = ni > 0 ? ch.y[0] : Scalar(0);
      sc.pub[T + t]     = ni > 0 ? ch.v[0] : Scalar(0);
      sc.pub[2 * T + t] = ni > 0 ? ch.w[0] : Scalar(1); /* no interior: the next row is X_t itself */
    }
    if (sep) {
      /* separator row t: a x_{hi-1} + b X_t + c x_{hi+1} = f with x_{hi-1} = yl + vl X_{t-1} + wl X_t (no interior:
         x_{hi-1} = X_{t-1}); the part of chunk t + 1 is added in step 2 */
      Scalar yl = 0, vl = 1, wl = 0;
      if constexpr (C > 1) {
        yl = ch.y[C - 2];
        vl = ch.v[C - 2];
        wl = ch.w[C - 2];
      }
      Scalar ha, hb;
      rowcoef(C - 1, ha, hb, ch.hc);
      sc.A[t] = ha * vl;
      sc.B[t] = hb + ha * wl;
      sc.F[t] = ch.y[C - 1] - ha * yl;
      if (pivtol > 0) sc.S[t] = Mag(ha) + Mag(hb) + Mag(ch.hc);
    }
  });
  m.team_barrier();
  /* 2. the separators' rows: the first interior row of chunk t + 1, x_{hi+1} = yf + vf X_t + wf X_{t+1} */
  ForChunks(m, T, [&](Int t) {
    if (t >= R) return;
    const Scalar hc = chunk(t).hc, yf = sc.pub[t + 1], vf = sc.pub[T + t + 1], wf = sc.pub[2 * T + t + 1];
    sc.B[t] += hc * vf;
    sc.Cc[t] = hc * wf;
    sc.F[t] -= hc * yf;
  });
  m.team_barrier();
  /* 3. cyclic reduction of the separators: rows 2s - 1 (mod 2s) eliminate rows s - 1 (mod 2s), then back */
  Int s = 1;
  for (; 2 * s - 1 < R; s *= 2) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, R / (2 * s)), [&](Int k) {
      const Int    i = 2 * s * (k + 1) - 1, lo = i - s, hi = i + s;
      Scalar       a = sc.A[i], b = sc.B[i], c = sc.Cc[i], f = sc.F[i];
      const Scalar bl = sc.B[lo];
      if (!PivotOK(bl, pivtol > 0 ? Mag(sc.S[lo]) : Real(0), pivtol)) Kokkos::atomic_fetch_max(flag, (int)(1 + (lo + 1) * C - 1));
      const Scalar al = -a / bl;
      a               = al * sc.A[lo];
      b += al * sc.Cc[lo];
      f += al * sc.F[lo];
      if (hi < R) {
        const Scalar bh = sc.B[hi];
        if (!PivotOK(bh, pivtol > 0 ? Mag(sc.S[hi]) : Real(0), pivtol)) Kokkos::atomic_fetch_max(flag, (int)(1 + (hi + 1) * C - 1));
        const Scalar ga = -c / bh;
        c               = ga * sc.Cc[hi];
        b += ga * sc.A[hi];
        f += ga * sc.F[hi];
      } else c = 0;
      sc.A[i]  = a;
      sc.B[i]  = b;
      sc.Cc[i] = c;
      sc.F[i]  = f;
    });
    m.team_barrier();
  }
  for (; s >= 1; s /= 2) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, (R + s) / (2 * s)), [&](Int k) {
      const Int i = s - 1 + 2 * s * k;
      Scalar    f = sc.F[i];
      if (i - s >= 0) f -= sc.A[i] * sc.F[i - s];
      if (i + s < R) f -= sc.Cc[i] * sc.F[i + s];
      if (!PivotOK(sc.B[i], pivtol > 0 ? Mag(sc.S[i]) : Real(0), pivtol)) Kokkos::atomic_fetch_max(flag, (int)(1 + (i + 1) * C - 1));
      sc.F[i] = f / sc.B[i];
    });
    m.team_barrier();
  }
  /* 4. every chunk's rows from its separators */
  const Int failed = *flag;
  ForChunks(m, T, [&](Int t) {
    if (t >= Te) return;
    TeamChunk<C> &ch  = chunk(t);
    const bool    sep = t < R;
    const Int     ni  = sep ? C - 1 : n - t * C;
    const Scalar  XL = t > 0 ? sc.F[t - 1] : Scalar(0), XR = sep ? sc.F[t] : Scalar(0);
    for (int j = 0; j < C; j++)
      if (j < ni) ch.y[j] += ch.v[j] * XL + ch.w[j] * XR;
    if (sep) ch.y[C - 1] = XR;
    if (failed)
      for (int j = 0; j < C; j++) ch.y[j] = Scalar(NAN);
  });
  if (m.team_rank() == 0) sc.flag[(solve + 2) % 3] = 0; /* the flag of the solve after the next */
  return failed;
}

/* ---------------------------------------------------------------------------------------------------------------
   Interior-Toeplitz systems: constant coefficients on the rows 1 .. n - 2, any end rows of the same symmetric form,
       b0 y_0 + a y_1 = g_0,   a y_(i-1) + b y_i + a y_(i+1) = g_i (0 < i < n - 1),   a y_(n-2) + bn y_(n-1) = g_(n-1),
   with |b| > 2 |a| (the shifted systems A + sigma M of the 1D factors of a uniform grid, whatever their ends: Dirichlet,
   Neumann, Robin). The symbol factors, a / z + b + a z = kappa (1 - r z)(1 - r / z) with r = -2 a / (b + sign(b)
   sqrt(b^2 - 4 a^2)), |r| < 1, and kappa = b + a r, so a particular solution of the interior rows is two first-order
   recurrences,
       u_i = g_i + r u_(i-1) (u_0 = g_0),   w_i = u_i + r w_(i+1) (w_(n-1) = u_(n-1)),   y_p = w / kappa,
   and the solution is y = y_p + alpha r^i + beta r^(n-1-i): the two homogeneous solutions fitted to the end rows (a
   2 x 2 system). Both recurrences are stable (|r| < 1). On a GPU each is a pass over the C rows of every thread and an
   exclusive scan of the chunks' carries (the carry across a chunk is multiplied by rho = r^C): warp shuffles, then one
   exchange of the warps' totals through team scratch. That is no division per row and 3 team barriers a solve, where
   TeamChunkSolve has a division per row, three eliminated vectors and 2 log2(T) barriers of cyclic reduction. The
   host (one thread per team) runs the recurrences row after row.
--------------------------------------------------------------------------------------------------------------- */
struct ToeplitzRows {
  Scalar a = 0, b = 0, b0 = 0, bn = 0; /* interior off-diagonal and diagonal, the diagonals of the first and last rows */
  bool   on = false;
  /* |r| < 1 of the recurrences (0 when a = 0) */
  KOKKOS_INLINE_FUNCTION Real Ratio() const
  {
    const Real ma = Mag(a), mb = Mag(b);
    return ma == 0 ? Real(0) : 2 * ma / (mb + compat::sqrt((mb - 2 * ma) * (mb + 2 * ma)));
  }
  /* the recurrences apply: |b| > 2 |a|, and the homogeneous solutions r^i and r^(n-1-i) far enough apart for the fit of
     the end rows, n (1 - |r|) >= 1 (as r -> 1 they become the same and the fit loses about 1 / (n (1 - |r|)) digits:
     e.g. the mode of a zero eigenvalue of the other direction, Neumann there, shift 0); otherwise the general solver */
  KOKKOS_INLINE_FUNCTION bool Usable(Int n) const
  {
    if constexpr (!std::is_floating_point<Scalar>::value) return false;
    else return on && n >= 3 && Mag(b) > 2 * Mag(a) && (Real)n * (1 - Ratio()) >= 1;
  }
};

/* the coefficient accessor's ToeplitzRows (cs.toeplitz(), where it has one: the solve may then take the recurrences) */
template <class T, class = void>
struct HasToeplitz : std::false_type {};
template <class T>
struct HasToeplitz<T, std::void_t<decltype(std::declval<const T &>().toeplitz())>> : std::true_type {};
template <class T>
KOKKOS_INLINE_FUNCTION ToeplitzRows ToeplitzOf(const T &cs)
{
  if constexpr (HasToeplitz<T>::value) return cs.toeplitz();
  else return ToeplitzRows();
}

/* x^k for k >= 0 by repeated squaring */
KOKKOS_INLINE_FUNCTION Scalar PowInt(Scalar x, Int k)
{
  Scalar p = 1;
  while (k > 0) {
    if (k & 1) p *= x;
    x *= x;
    k >>= 1;
  }
  return p;
}

/* warp shuffles of the GPU scans (lanes are consecutive team ranks: Kokkos' teams of vector length 1) */
KOKKOS_FORCEINLINE_FUNCTION Scalar WarpUp(Scalar v, int d, unsigned mask)
{
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_floating_point<Scalar>::value) return __shfl_up_sync(mask, v, d);
  else return v;
#else
  (void)d, (void)mask;
  return v;
#endif
}
KOKKOS_FORCEINLINE_FUNCTION Scalar WarpDown(Scalar v, int d, unsigned mask)
{
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_floating_point<Scalar>::value) return __shfl_down_sync(mask, v, d);
  else return v;
#else
  (void)d, (void)mask;
  return v;
#endif
}

/* Solves one interior-Toeplitz system (tp.Usable(n)) as TeamChunkSolve does (chunk(t).y in: right-hand side, out:
   solution; same calling rules, flags and return value; consecutive solves alternate between the two halves of the
   scratch's own area, sc.toep). Fails (NaN, returns 1) only if the end rows make the system singular. */
template <int C, class Member, class ChunkAt>
KOKKOS_INLINE_FUNCTION Int TeamToeplitzSolve(const Member &m, Int n, Int T, const ChunkAt &chunk, const ToeplitzRows &tp, const TeamScratch &sc, Int solve)
{
  const Int    Te = (n + C - 1) / C;
  const Scalar a = tp.a, b = tp.b, b0 = tp.b0, bn = tp.bn;
  const Scalar disc = compat::sqrt((Mag(b) - 2 * Mag(a)) * (Mag(b) + 2 * Mag(a)));
  const Scalar r = a == Scalar(0) ? Scalar(0) : -2 * a / (b + (b > 0 ? disc : -disc)), ik = Scalar(1) / (b + a * r);
  Scalar       g0 = 0, gn = 0, y0 = 0, y1 = 0, yn2 = 0, yn1 = 0; /* the right-hand side and y_p at the end rows */
  Scalar       rho = r;                                           /* r^C */
  for (int c = 1; c < C; c *= 2) rho *= rho;
  if constexpr (!kDeviceExec) {
    (void)m, (void)T, (void)sc;
    g0 = chunk(0).y[0];
    gn = chunk((n - 1) / C).y[(n - 1) % C];
    Scalar u = 0;
    for (Int t = 0; t < Te; t++) {
      TeamChunk<C> &ch = chunk(t);
      for (int j = 0; j < C && t * C + j < n; j++) ch.y[j] = u = ch.y[j] + r * u;
    }
    Scalar w = 0;
    for (Int t = Te - 1; t >= 0; t--) {
      TeamChunk<C> &ch = chunk(t);
      for (int j = C - 1; j >= 0; j--)
        if (t * C + j < n) {
          w       = ch.y[j] + r * w;
          ch.y[j] = w * ik;
        }
    }
    y0  = chunk(0).y[0];
    y1  = chunk(1 / C).y[1 % C];
    yn2 = chunk((n - 2) / C).y[(n - 2) % C];
    yn1 = chunk((n - 1) / C).y[(n - 1) % C];
  } else {
    const Int      t = m.team_rank(), lane = t % 32, wid = t / 32, nw = (m.team_size() + 31) / 32;
    const Int      nl   = m.team_size() - 32 * wid < 32 ? m.team_size() - 32 * wid : 32;
    const unsigned mask = nl == 32 ? 0xffffffffu : ((1u << nl) - 1u);
    Scalar        *reg  = sc.toep + (solve % 2) * (2 * nw + 8); /* warps' forward totals, backward totals, the end rows */
    Scalar         P[6];                                      /* rho^(2^k) */
    P[0] = rho;
    for (int k = 1; k < 6; k++) P[k] = P[k - 1] * P[k - 1];
    TeamChunk<C> &ch = chunk(t);
    const Int     nr = t < Te ? (n - t * C < C ? n - t * C : C) : 0;
    KP_UNROLL
    for (int j = 0; j < C; j++) {
      if (t * C + j == 0 && j < nr) reg[2 * nw] = ch.y[j];
      if (t * C + j == n - 1 && j < nr) reg[2 * nw + 1] = ch.y[j];
    }
    /* forward: local pass, then the carry U (u of the row before the chunk) by an exclusive scan */
    Scalar u = 0;
    KP_UNROLL
    for (int j = 0; j < C; j++)
      if (j < nr) ch.y[j] = u = ch.y[j] + r * u;
    Scalar Z = nr == C ? u : Scalar(0);
    KP_UNROLL
    for (int k = 0; k < 5; k++) {
      const Scalar z = WarpUp(Z, 1 << k, mask);
      if (lane >= (1 << k)) Z += P[k] * z;
    }
    Scalar Zx = WarpUp(Z, 1, mask);
    if (lane == 0) Zx = 0;
    if (lane == nl - 1) reg[wid] = Z;
    m.team_barrier();
    Scalar Cw = 0, pl = 1;
    for (Int v = 0; v < wid; v++) Cw = Cw * P[5] + reg[v];
    KP_UNROLL
    for (int k = 0; k < 5; k++)
      if ((lane >> k) & 1) pl *= P[k];
    {
      const Scalar U  = Zx + pl * Cw;
      Scalar       rp = r;
      KP_UNROLL
      for (int j = 0; j < C; j++) {
        ch.y[j] += rp * U;
        rp *= r;
      }
    }
    /* backward: local pass, then the carry W (w of the row after the chunk) by an exclusive suffix scan */
    Scalar w = 0;
    KP_UNROLL
    for (int j = C - 1; j >= 0; j--)
      if (j < nr) ch.y[j] = w = ch.y[j] + r * w;
    Scalar Y = nr > 0 ? w : Scalar(0);
    KP_UNROLL
    for (int k = 0; k < 5; k++) {
      const Scalar z = WarpDown(Y, 1 << k, mask);
      if (lane + (1 << k) < nl) Y += P[k] * z;
    }
    Scalar Yx = WarpDown(Y, 1, mask);
    if (lane == nl - 1) Yx = 0;
    if (lane == 0) reg[nw + wid] = Y;
    m.team_barrier();
    Scalar Dw = 0, pr = 1;
    for (Int v = nw - 1; v > wid; v--) Dw = Dw * P[5] + reg[nw + v];
    KP_UNROLL
    for (int k = 0; k < 5; k++)
      if (((31 - lane) >> k) & 1) pr *= P[k];
    {
      const Scalar W  = Yx + pr * Dw;
      Scalar       rp = r;
      KP_UNROLL
      for (int j = C - 1; j >= 0; j--) {
        ch.y[j] = (ch.y[j] + rp * W) * ik;
        rp *= r;
      }
    }
    KP_UNROLL
    for (int j = 0; j < C; j++) {
      const Int i = t * C + j;
      if (j < nr && i == 0) reg[2 * nw + 2] = ch.y[j];
      if (j < nr && i == 1) reg[2 * nw + 3] = ch.y[j];
      if (j < nr && i == n - 2) reg[2 * nw + 4] = ch.y[j];
      if (j < nr && i == n - 1) reg[2 * nw + 5] = ch.y[j];
    }
    m.team_barrier();
    g0  = reg[2 * nw];
    gn  = reg[2 * nw + 1];
    y0  = reg[2 * nw + 2];
    y1  = reg[2 * nw + 3];
    yn2 = reg[2 * nw + 4];
    yn1 = reg[2 * nw + 5];
  }
  /* the end rows: y = y_p + alpha r^i + beta r^(n-1-i) */
  const Scalar rn2 = PowInt(r, n - 2), rn1 = rn2 * r;
  const Scalar M11 = b0 + a * r, M12 = b0 * rn1 + a * rn2, M21 = a * rn2 + bn * rn1, M22 = a * r + bn;
  const Scalar R0 = g0 - (b0 * y0 + a * y1), R1 = gn - (a * yn2 + bn * yn1);
  const Scalar det    = M11 * M22 - M12 * M21;
  const Int    failed = det != Scalar(0) && compat::isfinite(det) ? 0 : 1;
  const Scalar alpha = (R0 * M22 - M12 * R1) / det, beta = (M11 * R1 - M21 * R0) / det;
  ForChunks(m, T, [&](Int t) {
    if (t >= Te) return;
    TeamChunk<C> &ch = chunk(t);
    const Int     nr = n - t * C < C ? n - t * C : C;
    Scalar        h1 = PowInt(rho, t), h2 = PowInt(r, n - t * C - nr);
    KP_UNROLL
    for (int j = 0; j < C; j++)
      if (j < nr) {
        ch.y[j] += alpha * h1;
        h1 *= r;
      }
    KP_UNROLL
    for (int j = C - 1; j >= 0; j--)
      if (j < nr) {
        ch.y[j] += beta * h2;
        h2 *= r;
      }
    if (failed)
      for (int j = 0; j < C; j++) ch.y[j] = Scalar(NAN);
  });
  if (m.team_rank() == 0) sc.flag[(solve + 2) % 3] = 0; /* as TeamChunkSolve: the flag of the solve after the next */
  return failed;
}

/* TeamToeplitzSolve where tp applies, TeamChunkSolve otherwise */
template <int C, class Member, class ChunkAt, class CoefAt>
KOKKOS_INLINE_FUNCTION Int TeamSolve(const Member &m, Int n, Int T, const ChunkAt &chunk, const CoefAt &coef, const ToeplitzRows &tp, const TeamScratch &sc, Real pivtol, Int solve)
{
  if (tp.Usable(n)) return TeamToeplitzSolve<C>(m, n, T, chunk, tp, sc, solve);
  return TeamChunkSolve<C>(m, n, T, chunk, coef, sc, pivtol, solve);
}

/* rows per thread of one round of the staging of TeamLoad / TeamStore */
template <int C>
constexpr int StageRows()
{
  return C < 8 ? C : 8;
}

/* scalars of the team scratch of SolveTeamC: the separators' system, or the staging area of a round of loads or stores
   (they are never used at the same time) */
template <int C>
KOKKOS_INLINE_FUNCTION Int TeamScalars(Int T)
{
  const Int st = T * (StageRows<C>() + 1);
  return 8 * T > st ? 8 * T : st;
}

/* dst(t, j) = get(t C + j) for the rows < n (0 beyond), through the staging area: coalesced in the row index
   (consecutive threads read consecutive rows); the padded stride C' + 1 keeps the shared memory reads free of bank
   conflicts. On a GPU the team has T threads. */
template <int C, class Member, class Dst, class Get>
KOKKOS_INLINE_FUNCTION void TeamLoad(const Member &m, Int n, Int T, const Dst &dst, const Get &get, Scalar *stage)
{
  constexpr int CR = StageRows<C>();
  for (int r = 0; r < C / CR; r++) {
    if constexpr (kDeviceExec) {
      /* thread k of the team (team size T) takes the elements k, k + T, ..: all its loads are issued before the first
         store to the staging area, so that their latencies overlap */
      const Int k0 = m.team_rank();
      Scalar    v[CR];
      KP_UNROLL
      for (int u = 0; u < CR; u++) {
        const Int i = u * T + k0, tt = i / CR, jj = i % CR, p = tt * C + r * CR + jj;
        v[u]        = p < n ? get(p) : Scalar(0);
      }
      KP_UNROLL
      for (int u = 0; u < CR; u++) {
        const Int i = u * T + k0;
        stage[(i / CR) * (CR + 1) + i % CR] = v[u];
      }
    } else {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, T * CR), [&](Int i) {
        const Int tt = i / CR, jj = i % CR, p = tt * C + r * CR + jj;
        stage[tt * (CR + 1) + jj] = p < n ? get(p) : Scalar(0);
      });
    }
    m.team_barrier();
    ForChunks(m, T, [&](Int t) {
      for (int jj = 0; jj < CR; jj++) dst(t, r * CR + jj) = stage[t * (CR + 1) + jj];
    });
    m.team_barrier();
  }
}

/* put(t C + j, src(t, j)) for the rows < n, through the staging area (coalesced); the caller must have passed a
   barrier since the staging area was last read */
template <int C, class Member, class Src, class Put>
KOKKOS_INLINE_FUNCTION void TeamStore(const Member &m, Int n, Int T, const Src &src, const Put &put, Scalar *stage)
{
  constexpr int CR = StageRows<C>();
  for (int r = 0; r < C / CR; r++) {
    ForChunks(m, T, [&](Int t) {
      for (int jj = 0; jj < CR; jj++) stage[t * (CR + 1) + jj] = src(t, r * CR + jj);
    });
    m.team_barrier();
    if constexpr (kDeviceExec) {
      const Int k0 = m.team_rank();
      KP_UNROLL
      for (int u = 0; u < CR; u++) {
        const Int i = u * T + k0, tt = i / CR, jj = i % CR, p = tt * C + r * CR + jj;
        if (p < n) put(p, stage[tt * (CR + 1) + jj]);
      }
    } else {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, T * CR), [&](Int i) {
        const Int tt = i / CR, jj = i % CR, p = tt * C + r * CR + jj;
        if (p < n) put(p, stage[tt * (CR + 1) + jj]);
      });
    }
    m.team_barrier();
  }
}

/* the right-hand side of one system of a batch accessor f(s, l, index) (RhsBatch::at) */
template <class Rhs>
struct RhsBatchOne {
  Rhs                    f;
  TridiagShape           sh;
  Int                    s;
  KOKKOS_INLINE_FUNCTION Scalar operator()(Int l) const { return f(s, l, sh.index(s, l)); }
};
template <class Rhs>
struct RhsBatch {
  Rhs                                      f;
  TridiagShape                             sh;
  KOKKOS_INLINE_FUNCTION RhsBatchOne<Rhs> at(Int s) const { return {f, sh, s}; }
};

/* One team per system s of sh (T = ceil(n / C) threads on a GPU): rhs.at(s) gives the system's right-hand side as
   g(l) (built once per team), coef.at(s) its coefficients as cs(t, j, a, b, c): those of row t C + j (a = 0 on row 0,
   c = 0 on row n - 1), x the solution in the batch layout, status(s) = 0 or 1 + a row with an unacceptable pivot (may be empty);
   nfail (may be empty): nfail(0) counts the failed systems. Loads and stores are staged through team scratch memory
   so that they are coalesced in the row index (Contiguous layout). Systems of no rows: status 0, nothing solved. */
template <int C, class ChunkCoef, class RhsMaker>
void SolveTeamC(const TridiagShape &sh, const ChunkCoef &coef, const RhsMaker &rhs, UView<Scalar> x, UView<Int> status, Real pivtol, UView<Int> nfail = UView<Int>())
{
  using Policy           = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<512, 1>>;
  const Int    n         = sh.n, T = (n + C - 1) / C, ns = TeamScalars<C>(T);
  const size_t bytes     = TeamScratch::Bytes(T, ns) + (kDeviceExec ? 0 : (size_t)T * sizeof(TeamChunk<C>));
  const bool   hasStatus = status.extent(0) > 0, hasCount = nfail.extent(0) > 0;
  if (sh.nsys <= 0) return;
  if (n <= 0) { /* a team of no threads on a GPU would never run: the status is set here */
    if (hasStatus) Kokkos::deep_copy(exec(), status, (Int)0);
    return;
  }
  Policy pol(exec(), sh.nsys, kDeviceExec ? T : 1);
  pol.set_scratch_size(kDeviceExec ? 0 : 1, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for(
    "petsckp::TridiagTeam", pol, KOKKOS_LAMBDA(const typename Policy::member_type &m) {
      const Int    s    = m.league_rank();
      char        *base = (char *)m.team_scratch(kDeviceExec ? 0 : 1).get_shmem(bytes);
      TeamScratch  sc;
      TeamChunk<C> mine;
      sc.Carve(base, T, ns);
      TeamChunk<C> *all   = kDeviceExec ? &mine : (TeamChunk<C> *)(base + TeamScratch::Bytes(T, ns));
      auto          chunk = [&](Int t) -> TeamChunk<C> & { return all[kDeviceExec ? 0 : t]; };
      const auto    cs    = coef.at(s); /* what the rows of system s share (its shift, its offset) once */
      auto          cf    = [&](Int t, Int j, Scalar &a, Scalar &b, Scalar &c) { cs(t, j, a, b, c); };
      if (m.team_rank() == 0) sc.flag[0] = sc.flag[1] = sc.flag[2] = 0;
      {
        const auto g = rhs.at(s);
        TeamLoad<C>(m, n, T, [&](Int t, int j) -> Scalar & { return chunk(t).y[j]; }, g, sc.pub);
      }
      const Int fail = TeamSolve<C>(m, n, T, chunk, cf, ToeplitzOf(cs), sc, pivtol, 0);
      m.team_barrier();
      TeamStore<C>(m, n, T, [&](Int t, int j) { return chunk(t).y[j]; }, [&](Int l, Scalar v) { x(sh.index(s, l)) = v; }, sc.pub);
      if (hasStatus && m.team_rank() == 0) status(s) = fail;
      if (fail && hasCount && m.team_rank() == 0) Kokkos::atomic_add(&nfail(0), (Int)1);
    });
}

/* the rows per thread of the team solver for n rows (0: too long for one team of at most 512 threads): by default 8,
   16 above 2048 rows on a GPU (teams of at most 512 threads; at 4095 rows 16 rows a thread, teams of 256, solved PSCR's
   4095^2 levels 12% faster on an H200 than 8 rows a thread, teams of 512) */
inline Int TeamRows(Int n, Int requested)
{
  Int C = requested;
  if (C != 1 && C != 2 && C != 4 && C != 8 && C != 16) C = kDeviceExec && n > 2048 ? 16 : 8;
  if (kDeviceExec && (n + C - 1) / C > 512) return 0;
  return C;
}

/* the coefficients of row t C + j from a batch accessor coef(s, l, index, a, b, c, scale) */
template <int C, class Coef>
struct ChunkOfBatch {
  Coef         coef;
  TridiagShape sh;
  struct One {
    Coef                   coef;
    TridiagShape           sh;
    Int                    s;
    KOKKOS_INLINE_FUNCTION void operator()(Int t, Int j, Scalar &a, Scalar &b, Scalar &c) const
    {
      const Int l = t * C + j;
      Real      scale;
      coef(s, l, sh.index(s, l), a, b, c, scale);
      if (l == 0) a = 0;
      if (l == sh.n - 1) c = 0;
    }
  };
  KOKKOS_INLINE_FUNCTION One at(Int s) const { return {coef, sh, s}; }
};

template <class Coef, class Rhs>
bool SolveTeam(const TridiagShape &sh, const Coef &coef, const Rhs &f, UView<Scalar> x, UView<Int> status, const TridiagOptions &opt)
{
  switch (TeamRows(sh.n, opt.team_rows)) {
  case 1:
    SolveTeamC<1>(sh, ChunkOfBatch<1, Coef>{coef, sh}, RhsBatch<Rhs>{f, sh}, x, status, opt.pivtol);
    return true;
  case 2:
    SolveTeamC<2>(sh, ChunkOfBatch<2, Coef>{coef, sh}, RhsBatch<Rhs>{f, sh}, x, status, opt.pivtol);
    return true;
  case 4:
    SolveTeamC<4>(sh, ChunkOfBatch<4, Coef>{coef, sh}, RhsBatch<Rhs>{f, sh}, x, status, opt.pivtol);
    return true;
  case 8:
    SolveTeamC<8>(sh, ChunkOfBatch<8, Coef>{coef, sh}, RhsBatch<Rhs>{f, sh}, x, status, opt.pivtol);
    return true;
  case 16:
    SolveTeamC<16>(sh, ChunkOfBatch<16, Coef>{coef, sh}, RhsBatch<Rhs>{f, sh}, x, status, opt.pivtol);
    return true;
  default:
    return false;
  }
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
  if (opt.alg == TridiagAlgorithm::Team && SolveTeam(shape, coef, f, x, ustatus, opt)) return;
  Int steps = 0;
  if (opt.alg == TridiagAlgorithm::PCRThomas) steps = opt.pcr_steps >= 0 ? opt.pcr_steps : TridiagAutoPCRSteps(nsys, n);
  if (opt.alg == TridiagAlgorithm::Partition || opt.alg == TridiagAlgorithm::Auto || opt.alg == TridiagAlgorithm::Team) {
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
