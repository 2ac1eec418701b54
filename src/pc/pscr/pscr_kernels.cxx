/*
   pscr_kernels.cxx - radix-q PSCR: host eigen setup (LAPACK) and the device apply (see pscr_kernels.hpp).

   Layout of the batched data of one reduced dimension d (rows r < n_d, row vectors of length L = n_{d+1} ... n_dim,
   nb independent problems with their own shift): X[(r L + p) nb + b]. The right-hand sides of the shifted solves of
   a level are stored G[(p nmodes + l) nb + b] = G[p nsys + s] with s = l nb + b: kp_tridiag's interleaved layout
   (system fastest: coalesced), and also the X layout of a batch of nsys problems of the next dimension (3D nesting).
*/
#include "pscr_kernels.hpp"
#include "kp_tridiag_impl.hpp"
#include <petscblaslapack.h>
#include <cmath>
#include <limits>

namespace petsckp
{
namespace pscr
{
namespace detail
{
template <class T>
View<T> ToDev(const std::vector<T> &h, const char *label)
{
  View<T> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), h.size());
  if (!h.empty()) Kokkos::deep_copy(d, HostUView<const T>(h.data(), h.size()));
  return d;
}

void Grow(View<Scalar> &v, size_t n, const char *label, size_t &bytes)
{
  if (v.extent(0) < n) {
    bytes += (n - v.extent(0)) * sizeof(Scalar);
    v = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
  }
}

/* entry (j, j + o) of a tridiagonal matrix given by its three diagonals, o in {-1, 0, 1} */
KOKKOS_INLINE_FUNCTION Real Coef(const View<Real> &l, const View<Real> &d, const View<Real> &u, Int j, int o) { return o < 0 ? l(j) : (o > 0 ? u(j) : d(j)); }

/* the operator of the remaining dimensions (after the reduced one), applied at one point p of a row vector x stored
   at base[p' * stride]: Mx = M_rest x, Ax = A_rest x; rest = (A2, M2) or A2 (x) M3 + M2 (x) A3, M2 (x) M3 */
struct Rest {
  int          nd = 0;
  Int          na = 1, nc = 1;
  DeviceFactor a, b;
  KOKKOS_INLINE_FUNCTION void Apply(const Scalar *base, Int stride, Int p, Scalar &Mx, Scalar &Ax) const
  {
    Mx = 0;
    Ax = 0;
    if (nd == 1) {
      for (int o = -1; o <= 1; o++) {
        const Int j = p + o;
        if (j < 0 || j >= na) continue;
        const Scalar x = base[j * stride];
        Mx += Coef(a.ml, a.md, a.mu, p, o) * x;
        Ax += Coef(a.al, a.ad, a.au, p, o) * x;
      }
    } else {
      const Int j = p / nc, k = p % nc;
      for (int o = -1; o <= 1; o++) {
        const Int jj = j + o;
        if (jj < 0 || jj >= na) continue;
        const Real m2 = Coef(a.ml, a.md, a.mu, j, o), a2 = Coef(a.al, a.ad, a.au, j, o);
        for (int oo = -1; oo <= 1; oo++) {
          const Int kk = k + oo;
          if (kk < 0 || kk >= nc) continue;
          const Real   m3 = Coef(b.ml, b.md, b.mu, k, oo), a3 = Coef(b.al, b.ad, b.au, k, oo);
          const Scalar x  = base[(jj * nc + kk) * stride];
          Mx += m2 * m3 * x;
          Ax += (a2 * m3 + m2 * a3) * x;
        }
      }
    }
  }
};

/* eigenpairs of the block [s, e] of (A, M): lambda (m) and the components of the M-orthonormal eigenvectors at the
   local rows pos (column-major comp[t + l * np]) */
std::string BlockEigen(const Factor &F, Int s, Int e, const std::vector<Int> &pos, std::vector<Real> &lambda, std::vector<Real> &comp)
{
  const Int    m = e - s + 1, np = (Int)pos.size();
  PetscBLASInt bm, info = 0;
  lambda.assign(m, 0);
  comp.assign((size_t)np * m, 0);
  if (PetscBLASIntCast(m, &bm)) return "block too large for LAPACK";
  const bool diagM = F.mo.empty();
  if (diagM) {
    std::vector<Real> d(m), ee(m, 0), sq(m);
    for (Int i = 0; i < m; i++) {
      const Real mi = F.md.empty() ? 1 : F.md[s + i];
      sq[i]         = std::sqrt(mi);
      d[i]          = F.ad[s + i] / mi;
    }
    for (Int i = 0; i + 1 < m; i++) ee[i] = F.ao[s + i] / (sq[i] * sq[i + 1]);
    std::vector<Real> Z((size_t)m * m);
    if (m == 1) {
      lambda[0] = d[0];
      Z[0]      = 1;
    } else {
      bool done = false;
#if !defined(PETSC_MISSING_LAPACK_STEGR)
      {
        std::vector<Real>         dd(d), e2(ee), w(m);
        std::vector<PetscBLASInt> isuppz(2 * (size_t)m);
        PetscBLASInt              mfound = 0, lwork = -1, liwork = -1, iwq = 0, il = 1, iu = bm;
        Real                      wq = 0, vl = 0, vu = 0, abstol = 0;
        LAPACKstegr_("V", "A", &bm, dd.data(), e2.data(), &vl, &vu, &il, &iu, &abstol, &mfound, w.data(), Z.data(), &bm, isuppz.data(), &wq, &lwork, &iwq, &liwork, &info);
        if (!info) {
          lwork  = (PetscBLASInt)wq + 1;
          liwork = iwq + 1;
          std::vector<Real>         work(lwork);
          std::vector<PetscBLASInt> iwork(liwork);
          LAPACKstegr_("V", "A", &bm, dd.data(), e2.data(), &vl, &vu, &il, &iu, &abstol, &mfound, w.data(), Z.data(), &bm, isuppz.data(), work.data(), &lwork, iwork.data(), &liwork, &info);
          if (!info && mfound == bm) {
            lambda = w;
            done   = true;
          }
        }
      }
#endif
      if (!done) {
        std::vector<Real> dd(d), e2(ee), work(2 * (size_t)m);
        LAPACKsteqr_("I", &bm, dd.data(), e2.data(), Z.data(), &bm, work.data(), &info);
        if (info) return "the tridiagonal eigensolver (LAPACK steqr) did not converge";
        lambda = dd;
      }
    }
    for (Int l = 0; l < m; l++)
      for (Int t = 0; t < np; t++) comp[t + (size_t)l * np] = Z[pos[t] + (size_t)l * m] / sq[pos[t]];
  } else {
    /* tridiagonal M: dense generalised problem A w = lambda M w, w^T M w = 1 (LAPACK sygv) */
    std::vector<Real> A((size_t)m * m, 0), B((size_t)m * m, 0), w(m);
    for (Int i = 0; i < m; i++) {
      A[i + (size_t)i * m] = F.ad[s + i];
      B[i + (size_t)i * m] = F.md[s + i];
      if (i + 1 < m) {
        A[i + 1 + (size_t)i * m] = A[i + (size_t)(i + 1) * m] = F.ao[s + i];
        B[i + 1 + (size_t)i * m] = B[i + (size_t)(i + 1) * m] = F.mo[s + i];
      }
    }
    PetscBLASInt itype = 1, lwork = std::max<PetscBLASInt>(1, 3 * bm + 64 * bm);
    std::vector<Real> work(lwork);
#if defined(PETSC_USE_COMPLEX)
    return "complex scalars are not supported";
#else
    LAPACKsygv_(&itype, "V", "L", &bm, A.data(), &bm, B.data(), &bm, w.data(), work.data(), &lwork, &info);
#endif
    if (info > bm) return "the mass factor M is not positive definite (LAPACK sygv)";
    if (info) return "the generalised eigensolver (LAPACK sygv) did not converge";
    lambda = w;
    for (Int l = 0; l < m; l++)
      for (Int t = 0; t < np; t++) comp[t + (size_t)l * np] = A[pos[t] + (size_t)l * m];
  }
  return "";
}

/* the smallest (or largest) eigenvalue of the symmetric tridiagonal (d, e) by bisection on the Sturm count, O(n)
   per step, to the rounding level of the Gershgorin bound */
Real Sturm(const std::vector<Real> &d, const std::vector<Real> &e, Int n, bool smallest)
{
  Real lo = d[0], hi = d[0];
  for (Int i = 0; i < n; i++) {
    const Real r = (i > 0 ? std::abs(e[i - 1]) : 0) + (i + 1 < n ? std::abs(e[i]) : 0);
    lo           = std::min(lo, d[i] - r);
    hi           = std::max(hi, d[i] + r);
  }
  const Real scale = std::max(std::abs(lo), std::abs(hi)), tiny = std::numeric_limits<Real>::min();
  /* number of eigenvalues < x */
  auto count = [&](Real x) {
    Int  c = 0;
    Real q = 1;
    for (Int i = 0; i < n; i++) {
      q = d[i] - x - (i > 0 ? e[i - 1] * e[i - 1] / q : 0);
      if (std::abs(q) < tiny) q = -tiny;
      if (q < 0) c++;
    }
    return c;
  };
  const Int want = smallest ? 1 : n;
  for (int it = 0; it < 200 && hi - lo > 4 * std::numeric_limits<Real>::epsilon() * scale; it++) {
    const Real mid = 0.5 * (lo + hi);
    if (count(mid) >= want) hi = mid;
    else lo = mid;
  }
  return 0.5 * (lo + hi);
}

bool SameBlock(const Factor &F, Int s0, Int s1, Int m)
{
  for (Int i = 0; i < m; i++) {
    if (F.ad[s0 + i] != F.ad[s1 + i]) return false;
    if (!F.md.empty() && F.md[s0 + i] != F.md[s1 + i]) return false;
    if (i + 1 < m && F.ao[s0 + i] != F.ao[s1 + i]) return false;
    if (i + 1 < m && !F.mo.empty() && F.mo[s0 + i] != F.mo[s1 + i]) return false;
  }
  return true;
}

std::string BuildPlan(const Factor &F, Int q, Plan &P)
{
  const Int n = F.n(), Q1 = q + 1;
  P       = Plan();
  P.n     = n;
  P.q     = q;
  P.k     = Levels(n, q);
  Int span = 1;
  for (Int i = 1; i <= P.k; i++) {
    const Int sub = span;
    span *= q;
    Level lv;
    lv.span = span;
    lv.nJ   = n / span;
    lv.nblk = n >= sub ? (n - sub) / span + 1 : 0;
    std::vector<Real> lambda, W;
    std::vector<Int>  mblk, bm0, bs, be, bnr, brow((size_t)lv.nblk * Q1, 0);
    Int               prev_s = -1, prev_m = -1;
    std::vector<Real> plam, pcomp;
    for (Int j = 0; j < lv.nblk; j++) {
      const Int s = j * span, e = std::min((j + 1) * span - 1, n) - 1, m = e - s + 1;
      std::vector<Int> pos;
      for (Int t = 1; t < q && j * span + t * sub <= n; t++) pos.push_back(t * sub - 1);
      const Int nr = (Int)pos.size();
      for (Int t = 0; t < nr; t++) brow[(size_t)j * Q1 + t] = s + pos[t];
      pos.push_back(0);
      pos.push_back(m - 1);
      std::vector<Real> lam, comp;
      P.eig_blocks++;
      /* interior blocks of a uniform mesh are identical: reuse the eigen data of the previous block (its
         component positions are the same when the sizes agree) */
      if (prev_m == m && SameBlock(F, prev_s, s, m) && (Int)pcomp.size() == (Int)pos.size() * m) {
        lam  = plam;
        comp = pcomp;
      } else {
        std::string err = BlockEigen(F, s, e, pos, lam, comp);
        if (!err.empty()) return err;
        P.eig_solved++;
      }
      bm0.push_back((Int)lambda.size());
      bs.push_back(s);
      be.push_back(e);
      bnr.push_back(nr);
      for (Int l = 0; l < m; l++) {
        lambda.push_back(lam[l]);
        mblk.push_back(j);
        for (Int t = 0; t < Q1; t++) W.push_back(0);
        Real *w = &W[W.size() - Q1];
        for (Int t = 0; t < nr; t++) w[t] = comp[t + (size_t)l * (nr + 2)];
        w[q - 1] = comp[nr + (size_t)l * (nr + 2)];
        w[q]     = comp[nr + 1 + (size_t)l * (nr + 2)];
      }
      lv.maxm = std::max(lv.maxm, m);
      prev_s  = s;
      prev_m  = m;
      plam    = lam;
      pcomp   = comp;
    }
    bm0.push_back((Int)lambda.size());
    lv.nmodes = (Int)lambda.size();
    lv.lambda = ToDev(lambda, "pscr lambda");
    lv.mblk   = ToDev(mblk, "pscr mblk");
    lv.bm0    = ToDev(bm0, "pscr bm0");
    lv.bs     = ToDev(bs, "pscr bs");
    lv.be     = ToDev(be, "pscr be");
    lv.bnr    = ToDev(bnr, "pscr bnr");
    lv.brow   = ToDev(brow, "pscr brow");
    lv.W      = ToDev(W, "pscr W");
    P.bytes += lambda.size() * sizeof(Real) + W.size() * sizeof(Real) + (mblk.size() + bm0.size() + bs.size() + be.size() + bnr.size() + brow.size()) * sizeof(Int);
    P.levels.push_back(lv);
  }
  return "";
}

DeviceFactor ToDevice(const Factor &F)
{
  const Int         n = F.n();
  std::vector<Real> al(n, 0), au(n, 0), ml(n, 0), md(n, 1), mu(n, 0);
  for (Int i = 0; i + 1 < n; i++) {
    au[i]     = F.ao[i];
    al[i + 1] = F.ao[i];
    if (!F.mo.empty()) {
      mu[i]     = F.mo[i];
      ml[i + 1] = F.mo[i];
    }
  }
  if (!F.md.empty()) md = F.md;
  DeviceFactor D;
  D.n  = n;
  D.al = ToDev(al, "pscr al");
  D.ad = ToDev(F.ad, "pscr ad");
  D.au = ToDev(au, "pscr au");
  D.ml = ToDev(ml, "pscr ml");
  D.md = ToDev(md, "pscr md");
  D.mu = ToDev(mu, "pscr mu");
  return D;
}

Rest MakeRest(const Solver &S, Int d)
{
  Rest R;
  R.nd = (int)(S.dim - 1 - d);
  if (R.nd >= 1) {
    R.a  = S.f[d + 1];
    R.na = S.n[d + 1];
  }
  if (R.nd == 2) {
    R.b  = S.f[d + 2];
    R.nc = S.n[d + 2];
  }
  return R;
}

/* the right-hand side of the shifted solve of system s = l nb + b at position p of a level, formed on the fly from
   the <= q - 1 rows of X of the mode's block (and, in the back substitution, the two block-end corrections E):
   G never goes through memory when the shifted solves are the tridiagonal ones */
struct RhsLevel {
  const Scalar          *X = nullptr, *E = nullptr;
  View<Real>             W;
  View<Int>              mblk, bnr, brow;
  Int                    nb = 1, L = 1, q = 4;
  bool                   back = false;
  KOKKOS_INLINE_FUNCTION Scalar operator()(Int s, Int p, Int) const
  {
    const Int b = s % nb, l = s / nb, blk = mblk(l), nr = bnr(blk), Q1 = q + 1;
    Scalar    g = 0;
    if (back) g = W(l * Q1 + q - 1) * E[((2 * blk) * L + p) * nb + b] + W(l * Q1 + q) * E[((2 * blk + 1) * L + p) * nb + b];
    for (Int u = 0; u < nr; u++) g += W(l * Q1 + u) * X[(brow(blk * Q1 + u) * L + p) * nb + b];
    return g;
  }
};

/* adds the number of failed systems in status to the device counter fail(0) */
void CountFailures(UView<Int> status, Int nsys, View<Int> fail)
{
  Kokkos::parallel_for(
    "petsckp::pscr::CountFailures", range(nsys), KOKKOS_LAMBDA(Int s) {
      if (status(s)) Kokkos::atomic_add(&fail(0), (Int)1);
    });
}

void ReducedSolve(Solver &S, Int d, Int nb, Scalar *Xp, const View<Scalar> &shifts, View<Int> fail);

/* the shifted solves of the last level of nesting with their right-hand sides formed on the fly */
void InnerSolveFused(Solver &S, Int nsys, Work &w, const RhsLevel &rhs, View<Int> fail)
{
  const DeviceFactor &f = S.f[S.dim - 1];
  const TridiagShape  sh{nsys, f.n, TridiagLayout::Interleaved};
  if ((Int)w.status.extent(0) < nsys) w.status = View<Int>("pscr status", nsys);
  UView<Scalar> G(w.G.data(), (size_t)nsys * f.n);
  UView<Int>    st(w.status.data(), nsys);
  tridiag_detail::CoefShifted coef{f.al, f.ad, f.au, f.ml, f.md, f.mu, UView<const Scalar>(w.shift.data(), nsys), true, true};
  tridiag_detail::Solve(sh, coef, rhs, G, st, S.topt, &w.tw);
  CountFailures(st, nsys, fail);
}

/* the shifted solves of a level: kp_tridiag along the last dimension, or a batch of PSCR problems of the next one */
void InnerSolve(Solver &S, Int d, Int nsys, Work &w, View<Int> fail)
{
  if (d == S.dim - 2) {
    const DeviceFactor &f = S.f[S.dim - 1];
    const TridiagShape  sh{nsys, f.n, TridiagLayout::Interleaved};
    if ((Int)w.status.extent(0) < nsys) w.status = View<Int>("pscr status", nsys);
    UView<Scalar> G(w.G.data(), (size_t)nsys * f.n);
    UView<Int>    st(w.status.data(), nsys);
    TridiagSolveShifted(sh, f.al, f.ad, f.au, f.ml, f.md, f.mu, UView<const Scalar>(w.shift.data(), nsys), G, G, st, S.topt, &w.tw);
    CountFailures(st, nsys, fail);
  } else ReducedSolve(S, d + 1, nsys, w.G.data(), w.shift, fail);
}

/* the weighted sums of the solutions y of the shifted solves: the block's first and last rows into V (reduction) or
   its rows of J_{i-1} into X (back substitution) */
void Sums(const Solver &S, const Level &lv, Int q, Int L, Int nb, bool back, const Scalar *G, Scalar *V, Scalar *X)
{
  const Int  nblk = lv.nblk, nmodes = lv.nmodes, Q1 = q + 1;
  const auto W = lv.W;
  const auto bm0 = lv.bm0, bnr = lv.bnr, brow = lv.brow;
  bool       team = S.sum == SumKernel::Team;
  if (S.sum == SumKernel::Auto) team = kDeviceExec && nb < 32 && lv.maxm > 64;
  if (!team) {
    Kokkos::parallel_for(
      "petsckp::pscr::Sums", range(L * nblk * nb), KOKKOS_LAMBDA(Int t) {
        const Int b = t % nb, blk = (t / nb) % nblk, p = t / (nb * nblk);
        const Int m0 = bm0(blk), m1 = bm0(blk + 1), nr = back ? bnr(blk) : 2;
        Scalar    acc[kMaxRadix + 1];
        for (Int u = 0; u < nr; u++) acc[u] = 0;
        for (Int l = m0; l < m1; l++) {
          const Scalar y = G[(p * nmodes + l) * nb + b];
          if (back)
            for (Int u = 0; u < nr; u++) acc[u] += W(l * Q1 + u) * y;
          else {
            acc[0] += W(l * Q1 + q - 1) * y;
            acc[1] += W(l * Q1 + q) * y;
          }
        }
        if (back)
          for (Int u = 0; u < nr; u++) X[(brow(blk * Q1 + u) * L + p) * nb + b] = acc[u];
        else {
          V[((2 * blk) * L + p) * nb + b]     = acc[0];
          V[((2 * blk + 1) * L + p) * nb + b] = acc[1];
        }
      });
  } else {
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    using Member = Policy::member_type;
    Policy pol(exec(), L * nblk, Kokkos::AUTO);
    Kokkos::parallel_for(
      "petsckp::pscr::SumsTeam", pol, KOKKOS_LAMBDA(const Member &tm) {
        const Int blk = tm.league_rank() % nblk, p = tm.league_rank() / nblk;
        const Int m0 = bm0(blk), m1 = bm0(blk + 1), nr = back ? bnr(blk) : 2;
        for (Int b = 0; b < nb; b++)
          for (Int u = 0; u < nr; u++) {
            const Int slot = back ? u : q - 1 + u;
            Scalar    sum  = 0;
            Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(tm, m0, m1), [&](Int l, Scalar &a) { a += W(l * Q1 + slot) * G[(p * nmodes + l) * nb + b]; }, sum);
            Kokkos::single(Kokkos::PerTeam(tm), [&]() {
              if (back) X[(brow(blk * Q1 + u) * L + p) * nb + b] = sum;
              else V[((2 * blk + u) * L + p) * nb + b] = sum;
            });
          }
      });
  }
}

/* workspace of a level and the shifts of its systems: shifts(b) + lambda_l for system l nb + b */
void Prepare(Solver &S, Work &w, const Level &lv, Int nb, Int L, const View<Scalar> &shifts)
{
  const Int nsys = lv.nmodes * nb;
  Grow(w.G, (size_t)nsys * L, "pscr G", S.work_bytes);
  Grow(w.shift, (size_t)nsys, "pscr shift", S.work_bytes);
  Grow(w.V, (size_t)2 * std::max<Int>(lv.nblk, 1) * L * nb, "pscr V", S.work_bytes);
  const auto lam = lv.lambda;
  auto       sh  = w.shift;
  Kokkos::parallel_for(
    "petsckp::pscr::Shifts", range(nsys), KOKKOS_LAMBDA(Int t) { sh(t) = shifts(t % nb) + lam(t / nb); });
}

/* the batch X[(r L + p) nb + b] of nb problems along dimension d with shifts(b), solved in place */
void ReducedSolve(Solver &S, Int d, Int nb, Scalar *X, const View<Scalar> &shifts, View<Int> fail)
{
  const Plan         &P  = S.plan[d];
  const DeviceFactor &f  = S.f[d];
  const Int           n  = P.n, q = S.q, Q1 = q + 1, k = P.k;
  Int                 L  = 1;
  for (Int e = d + 1; e < S.dim; e++) L *= S.n[e];
  const Rest rest  = MakeRest(S, d);
  Work      &w     = S.work[d];
  const bool fused = S.fuse_rhs && d == S.dim - 2; /* the shifted solves are tridiagonal: form their right-hand sides on the fly */
  const auto al = f.al, au = f.au, ml = f.ml, mu = f.mu;

  /* reduction */
  for (Int i = 1; i < k; i++) {
    const Level &lv = P.levels[i - 1];
    const Int    nmodes = lv.nmodes, nsys = nmodes * nb, nblk = lv.nblk, nJ = lv.nJ, span = lv.span;
    if (!nmodes) continue;
    Prepare(S, w, lv, nb, L, shifts);
    Scalar    *G = w.G.data(), *V = w.V.data();
    const auto W = lv.W;
    const auto mblk = lv.mblk, bnr = lv.bnr, brow = lv.brow;
    if (fused) InnerSolveFused(S, nsys, w, RhsLevel{X, nullptr, W, mblk, bnr, brow, nb, L, q, false}, fail);
    else {
      Kokkos::parallel_for(
        "petsckp::pscr::RhsReduce", range(L * nsys), KOKKOS_LAMBDA(Int t) {
          const Int b = t % nb, l = (t / nb) % nmodes, p = t / nsys, blk = mblk(l), nr = bnr(blk);
          Scalar    g = 0;
          for (Int u = 0; u < nr; u++) g += W(l * Q1 + u) * X[(brow(blk * Q1 + u) * L + p) * nb + b];
          G[t] = g;
        });
      InnerSolve(S, d, nsys, w, fail);
    }
    Sums(S, lv, q, L, nb, false, G, V, X);
    if (!nJ) continue;
    Kokkos::parallel_for(
      "petsckp::pscr::UpdateReduce", range(L * nJ * nb), KOKKOS_LAMBDA(Int t) {
        const Int    b = t % nb, p = (t / nb) % L, j = t / (nb * L), r = (j + 1) * span - 1;
        const Scalar c = shifts(b);
        Scalar       Mx, Ax, acc;
        rest.Apply(V + ((2 * j + 1) * L) * nb + b, nb, p, Mx, Ax);
        acc = (al(r) + c * ml(r)) * Mx + ml(r) * Ax;
        if (r + 1 < n && j + 1 < nblk) {
          rest.Apply(V + ((2 * j + 2) * L) * nb + b, nb, p, Mx, Ax);
          acc += (au(r) + c * mu(r)) * Mx + mu(r) * Ax;
        }
        X[(r * L + p) * nb + b] -= acc;
      });
  }
  /* back substitution */
  for (Int i = k; i >= 1; i--) {
    const Level &lv = P.levels[i - 1];
    const Int    nmodes = lv.nmodes, nsys = nmodes * nb, nblk = lv.nblk;
    if (!nmodes) continue;
    Prepare(S, w, lv, nb, L, shifts);
    Grow(w.E, (size_t)2 * nblk * L * nb, "pscr E", S.work_bytes);
    Scalar    *G = w.G.data(), *E = w.E.data();
    const auto W = lv.W;
    const auto mblk = lv.mblk, bnr = lv.bnr, brow = lv.brow, bs = lv.bs, be = lv.be;
    Kokkos::parallel_for(
      "petsckp::pscr::Corrections", range(L * nblk * nb), KOKKOS_LAMBDA(Int t) {
        const Int    b = t % nb, p = (t / nb) % L, blk = t / (nb * L), s = bs(blk), e = be(blk);
        const Scalar c = shifts(b);
        Scalar       Mx, Ax, e0 = 0, e1 = 0;
        if (s > 0) {
          rest.Apply(X + ((s - 1) * L) * nb + b, nb, p, Mx, Ax);
          e0 = -((al(s) + c * ml(s)) * Mx + ml(s) * Ax);
        }
        if (e < n - 1) {
          rest.Apply(X + ((e + 1) * L) * nb + b, nb, p, Mx, Ax);
          e1 = -((au(e) + c * mu(e)) * Mx + mu(e) * Ax);
        }
        E[((2 * blk) * L + p) * nb + b]     = e0;
        E[((2 * blk + 1) * L + p) * nb + b] = e1;
      });
    if (fused) InnerSolveFused(S, nsys, w, RhsLevel{X, E, W, mblk, bnr, brow, nb, L, q, true}, fail);
    else {
      Kokkos::parallel_for(
        "petsckp::pscr::RhsBack", range(L * nsys), KOKKOS_LAMBDA(Int t) {
          const Int b = t % nb, l = (t / nb) % nmodes, p = t / nsys, blk = mblk(l), nr = bnr(blk);
          Scalar    g = W(l * Q1 + q - 1) * E[((2 * blk) * L + p) * nb + b] + W(l * Q1 + q) * E[((2 * blk + 1) * L + p) * nb + b];
          for (Int u = 0; u < nr; u++) g += W(l * Q1 + u) * X[(brow(blk * Q1 + u) * L + p) * nb + b];
          G[t] = g;
        });
      InnerSolve(S, d, nsys, w, fail);
    }
    Sums(S, lv, q, L, nb, true, G, nullptr, X);
  }
}
} // namespace detail

using namespace detail;

Int Levels(Int n, Int q)
{
  Int k = 0, p = 1;
  while (p <= n) {
    p *= q;
    k++;
  }
  return k;
}

std::string CheckFactor(const Factor &F)
{
  const Int n = F.n();
  if (n < 1) return "is empty";
  if ((Int)F.ao.size() != n - 1) return "has an off-diagonal of the wrong length";
  if (!F.md.empty() && (Int)F.md.size() != n) return "M has a diagonal of the wrong length";
  if (!F.mo.empty() && ((Int)F.mo.size() != n - 1 || F.md.empty())) return "M has an off-diagonal of the wrong length";
  for (Int i = 0; i < n; i++) {
    if (!std::isfinite((double)F.ad[i]) || (i + 1 < n && !std::isfinite((double)F.ao[i]))) return "holds a NaN or Inf entry";
    if (!F.md.empty() && !std::isfinite((double)F.md[i])) return "M holds a NaN or Inf entry";
    if (!F.mo.empty() && i + 1 < n && !std::isfinite((double)F.mo[i])) return "M holds a NaN or Inf entry";
    if (!F.md.empty() && !(F.md[i] > 0)) return "M has a diagonal entry <= 0 (M must be positive definite)";
  }
  return "";
}

std::string Setup(const std::vector<Factor> &F, Int q, Solver &S)
{
  S      = Solver();
  S.dim  = (Int)F.size();
  S.q    = q;
  if (S.dim < 1 || S.dim > 3) return "1, 2 or 3 factor pairs are supported";
  if (q < 2 || q > kMaxRadix) return "the radix must be in [2, 8]";
  S.have_min = true;
  for (Int d = 0; d < S.dim; d++) {
    std::string err = CheckFactor(F[d]);
    if (!err.empty()) return "factor " + std::to_string(d + 1) + " " + err;
    S.n[d] = F[d].n();
    S.f[d] = ToDevice(F[d]);
    /* extreme eigenvalues of the pencil (diagonal M only; eigenvalues only, O(n^2)) */
    if (!F[d].mo.empty()) {
      S.have_min = false;
      continue;
    }
    const Int         n = S.n[d];
    std::vector<Real> dd(n), ee(std::max<Int>(n, 1), 0);
    for (Int i = 0; i < n; i++) dd[i] = F[d].ad[i] / (F[d].md.empty() ? 1 : F[d].md[i]);
    for (Int i = 0; i + 1 < n; i++) ee[i] = F[d].ao[i] / std::sqrt((F[d].md.empty() ? 1 : F[d].md[i]) * (F[d].md.empty() ? 1 : F[d].md[i + 1]));
    Real lmin = Sturm(dd, ee, n, true), lmax = std::max(std::abs(lmin), std::abs(Sturm(dd, ee, n, false)));
    S.min_sum += lmin;
    S.eig_scale += lmax;
  }
  for (Int d = 0; d + 1 < S.dim; d++) {
    std::string err = BuildPlan(F[d], q, S.plan[d]);
    if (!err.empty()) return "factor " + std::to_string(d + 1) + ": " + err;
  }
  /* the number of shifted 1D solves of one apply */
  S.solves  = 0;
  if (S.dim == 1) S.solves = 1;
  else {
    Int n2solves = 0;
    for (const auto &lv : S.plan[0].levels) n2solves += lv.nmodes * (&lv == &S.plan[0].levels.back() ? 1 : 2);
    if (S.dim == 2) S.solves = n2solves;
    else {
      Int inner = 0;
      for (const auto &lv : S.plan[1].levels) inner += lv.nmodes * (&lv == &S.plan[1].levels.back() ? 1 : 2);
      S.solves = n2solves * inner;
    }
  }
  return "";
}

Int Apply(Solver &S, Scalar c, UView<Scalar> X)
{
  if (!S.fail.extent(0)) S.fail = View<Int>("pscr failures", 1);
  if (!S.c.extent(0)) S.c = View<Scalar>("pscr c", 1);
  View<Int>    fail   = S.fail;
  View<Scalar> shifts = S.c;
  Kokkos::deep_copy(exec(), fail, (Int)0);
  Kokkos::deep_copy(exec(), shifts, c);
  if (S.dim == 1) {
    const DeviceFactor &f = S.f[0];
    Work               &w = S.work[0];
    if (!w.status.extent(0)) w.status = View<Int>("pscr status", 1);
    TridiagSolveShifted({1, f.n, TridiagLayout::Interleaved}, f.al, f.ad, f.au, f.ml, f.md, f.mu, shifts, X, X, w.status, S.topt, &w.tw);
    CountFailures(w.status, 1, fail);
  } else ReducedSolve(S, 0, 1, X.data(), shifts, fail);
  Int nf = 0;
  Kokkos::deep_copy(exec(), HostUView<Int>(&nf, 1), fail);
  exec().fence();
  return nf;
}

Int ApplyBoundary(Solver &S, const Boundary &B, Scalar c, UView<const Scalar> r, UView<Scalar> z, View<Scalar> &X)
{
  if (B.identity) {
    Kokkos::deep_copy(exec(), z, r);
    return Apply(S, c, z);
  }
  const Int nbox = B.nbox, nd = (Int)B.didx.extent(0), nc = (Int)B.crow.extent(0);
  const Int l0 = B.lo[0], l1 = B.lo[1], l2 = B.lo[2], b0 = B.bn[0], b1 = B.bn[1], g0 = B.gn[0], g1 = B.gn[1];
  size_t    dummy = 0;
  Grow(X, (size_t)nbox, "pscr box", dummy);
  const auto didx = B.didx, crow = B.crow, ccol = B.ccol;
  const auto dval = B.dval, cval = B.cval;
  auto       Xv   = X;
  Kokkos::parallel_for(
    "petsckp::pscr::Outside", range(nd), KOKKOS_LAMBDA(Int t) { z(didx(t)) = r(didx(t)) / dval(t); });
  Kokkos::parallel_for(
    "petsckp::pscr::BoxGather", range(nbox), KOKKOS_LAMBDA(Int t) {
      const Int i = t % b0, j = (t / b0) % b1, k = t / (b0 * b1);
      Xv(t)       = r(((l2 + k) * g1 + l1 + j) * g0 + l0 + i);
    });
  Kokkos::parallel_for(
    "petsckp::pscr::BoxCouplings", range(nc), KOKKOS_LAMBDA(Int t) { Kokkos::atomic_add(&Xv(crow(t)), -cval(t) * z(ccol(t))); });
  const Int nf = Apply(S, c, UView<Scalar>(X.data(), nbox));
  Kokkos::parallel_for(
    "petsckp::pscr::BoxScatter", range(nbox), KOKKOS_LAMBDA(Int t) {
      const Int i = t % b0, j = (t / b0) % b1, k = t / (b0 * b1);
      z(((l2 + k) * g1 + l1 + j) * g0 + l0 + i) = Xv(t);
    });
  return nf;
}
} // namespace pscr
} // namespace petsckp
