/*
   pscr_kernels.cxx - radix-q PSCR: host eigen setup (LAPACK) and the device apply (see pscr_kernels.hpp).

   Layout of the batched data of one reduced dimension d (rows r < n_d, row vectors of length L = n_{d+1} ... n_dim,
   nb independent problems with their own shift): X[(b n_d + r) L + p], every problem contiguous; the indices of a
   level's work arrays are listed above LevelTeam.
*/
#include "pscr_kernels.hpp"
#include "kp_tridiag_impl.hpp"
#include "kp_segsort.hpp"
#include <petscblaslapack.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#if !defined(PETSC_USE_COMPLEX)
/* LAPACK's banded generalised symmetric-definite reduction, divide-and-conquer tridiagonal eigensolver and root-free
   QR eigenvalues (not among PETSc's prototypes; PETSc's name mangling) */
BLAS_EXTERN void PETSCBLASREAL(pbstf, PBSTF)(const char *, const PetscBLASInt *, const PetscBLASInt *, PetscReal *, const PetscBLASInt *, PetscBLASInt *);
BLAS_EXTERN void PETSCBLASREAL(stedc, STEDC)(const char *, const PetscBLASInt *, PetscReal *, PetscReal *, PetscReal *, const PetscBLASInt *, PetscReal *, const PetscBLASInt *, PetscBLASInt *, const PetscBLASInt *, PetscBLASInt *);
BLAS_EXTERN void PETSCBLASREAL(sterf, STERF)(const PetscBLASInt *, PetscReal *, PetscReal *, PetscBLASInt *);
BLAS_EXTERN void PETSCBLASREAL(sbgst, SBGST)(const char *, const char *, const PetscBLASInt *, const PetscBLASInt *, const PetscBLASInt *, PetscReal *, const PetscBLASInt *, const PetscReal *, const PetscBLASInt *, PetscReal *, const PetscBLASInt *, PetscReal *, PetscBLASInt *);
#endif

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

/* the operator of the remaining dimensions (after the reduced one) applied at one point p of a row vector given by
   x(p'): Mx = M_rest x, Ax = A_rest x; rest = (A2, M2) or A2 (x) M3 + M2 (x) A3, M2 (x) M3 */
struct Rest {
  int          nd = 0;
  Int          na = 1, nc = 1;
  DeviceFactor a, b;
  template <class XF>
  KOKKOS_INLINE_FUNCTION void Apply(const XF &x, Int p, Scalar &Mx, Scalar &Ax) const
  {
    Mx = 0;
    Ax = 0;
    if (nd == 1) {
      for (int o = -1; o <= 1; o++) {
        const Int j = p + o;
        if (j < 0 || j >= na) continue;
        const Scalar xj = x(j);
        Mx += Coef(a.ml, a.md, a.mu, p, o) * xj;
        Ax += Coef(a.al, a.ad, a.au, p, o) * xj;
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
          const Scalar xj = x(jj * nc + kk);
          Mx += m2 * m3 * xj;
          Ax += (a2 * m3 + m2 * a3) * xj;
        }
      }
    }
  }
};

/* sin(pi r / (m + 1)) for an integer r, the argument reduced exactly (to at most pi / 2) before the sine */
Real SinPi(long long r, Int m)
{
  const long long p = m + 1;
  r %= 2 * p;
  if (r < 0) r += 2 * p;
  Real sign = 1;
  if (r >= p) {
    r -= p;
    sign = -1;
  }
  if (2 * r > p) r = p - r;
  return sign * std::sin(PETSC_PI * (Real)r / (Real)p);
}

/* a + 2 b cos(theta), theta = k pi / (m + 1), without cancellation: with cos(theta) = 1 - 2 sin^2(theta / 2) when b <= 0
   (the sum is smallest near theta = 0), with cos(theta) = 2 cos^2(theta / 2) - 1 otherwise */
Real TwoCos(Real a, Real b, Int k, Int m)
{
  if (b <= 0) {
    const Real sh = SinPi(k, 2 * m + 1); /* sin(k pi / (2 (m + 1))) */
    return (a + 2 * b) - 4 * b * sh * sh;
  }
  const Real ch = SinPi(m + 1 - k, 2 * m + 1); /* cos(k pi / (2 (m + 1))) */
  return (a - 2 * b) + 4 * b * ch * ch;
}

/* the block [s, s + m - 1] of (A, M) has constant diagonals (every interior block of a uniform mesh) */
bool ToeplitzBlock(const Factor &F, Int s, Int m, Real &ad, Real &ao, Real &md, Real &mo)
{
  ad = F.ad[s];
  ao = m > 1 ? F.ao[s] : 0;
  md = F.md.empty() ? 1 : F.md[s];
  mo = F.mo.empty() || m == 1 ? 0 : F.mo[s];
  for (Int i = 0; i < m; i++) {
    if (F.ad[s + i] != ad || (!F.md.empty() && F.md[s + i] != md)) return false;
    if (i + 1 < m && (F.ao[s + i] != ao || (!F.mo.empty() && F.mo[s + i] != mo))) return false;
  }
  return true;
}

/* The standard symmetric tridiagonal problem (d, sub) with the eigenvalues of the pencil (A, M) of rows s .. s+m-1 of
   F: M^-1/2 A M^-1/2 (diagonal M; sq, if wanted, the square roots of M's diagonal), or Crawford's reduction C = X^T A X,
   X^T M X = I of the banded pencil (tridiagonal M: LAPACK pbstf + sbgst; X, if wanted, the m x m X, column-major) */
static std::string StandardTridiagonal(const Factor &F, Int s, Int m, std::vector<Real> &d, std::vector<Real> &sub, std::vector<Real> *sq, std::unique_ptr<Real[]> *X)
{
  PetscBLASInt bm, info = 0;
  d.assign(m, 0);
  sub.assign(std::max<Int>(m, 1), 0);
  if (PetscBLASIntCast(m, &bm)) return "block too large for LAPACK";
  if (F.mo.empty()) {
    std::vector<Real> r(m);
    for (Int i = 0; i < m; i++) {
      const Real mi = F.md.empty() ? 1 : F.md[s + i];
      r[i]          = std::sqrt(mi);
      d[i]          = F.ad[s + i] / mi;
    }
    for (Int i = 0; i + 1 < m; i++) sub[i] = F.ao[s + i] / (r[i] * r[i + 1]);
    if (sq) *sq = std::move(r);
    return "";
  }
#if defined(PETSC_USE_COMPLEX)
  return "complex scalars are not supported";
#else
  /* band storage (lower, one subdiagonal): AB(0, j) = A(j, j), AB(1, j) = A(j + 1, j) */
  const PetscBLASInt one = 1, two = 2;
  std::vector<Real>  AB(2 * (size_t)m, 0), BB(2 * (size_t)m, 0), work(2 * (size_t)m);
  Real               x1 = 0;
  for (Int i = 0; i < m; i++) {
    AB[2 * i] = F.ad[s + i];
    BB[2 * i] = F.md[s + i];
    if (i + 1 < m) {
      AB[2 * i + 1] = F.ao[s + i];
      BB[2 * i + 1] = F.mo[s + i];
    }
  }
  if (X) X->reset(new Real[(size_t)m * m]);
  PETSCBLASREAL(pbstf, PBSTF)("L", &bm, &one, BB.data(), &two, &info);
  if (info) return "the mass factor M is not positive definite (LAPACK pbstf)";
  PETSCBLASREAL(sbgst, SBGST)(X ? "V" : "N", "L", &bm, &one, &one, AB.data(), &two, BB.data(), &two, X ? X->get() : &x1, X ? &bm : &one, work.data(), &info);
  if (info) return "the reduction of the generalised eigenproblem failed (LAPACK sbgst)";
  for (Int i = 0; i < m; i++) {
    d[i] = AB[2 * i];
    if (i + 1 < m) sub[i] = AB[2 * i + 1];
  }
  return "";
#endif
}

/* eigenpairs of the block [s, e] of (A, M): lambda (m) and the components of the M-orthonormal eigenvectors at the
   local rows pos (column-major comp[t + l * np]), computed without the m x m eigenvector matrix when the block has
   constant diagonals, in O(m^2) otherwise:
   - constant diagonals: the sine vectors z_k(j) = sqrt(2 / (m + 1)) sin(j k pi / (m + 1)) diagonalise A and M,
     lambda_k = (ad + 2 ao cos t_k) / (md + 2 mo cos t_k), w_k = z_k / sqrt(md + 2 mo cos t_k); only the np needed
     components are evaluated (O(m np));
   - diagonal M: the scaled standard problem M^-1/2 A M^-1/2 (tridiagonal) by LAPACK's divide and conquer (stedc,
     BLAS-3 merges: eigenvectors orthogonal to about sqrt(m) eps, where MRRR's (stegr, O(m^2)) lose about m eps,
     2e-13 at m = 597 on these Laplacian-like blocks, and the residual of PSCR with them; MRRR, then QR (steqr) if it
     fails);
   - tridiagonal M: Crawford's reduction of the banded pencil to a standard tridiagonal problem C = X^T A X,
     X^T M X = I (LAPACK pbstf + sbgst; as the thesis does before its LR iteration; sbgst accumulates X with Givens
     rotations, O(m^3) BLAS-1, about 6x faster than the dense generalised eigensolver sygv at m = 1023), the same
     eigensolver on C, and the needed rows of W = X Z (O(np m^2)). */
std::string BlockEigen(const Factor &F, Int s, Int e, const std::vector<Int> &pos, std::vector<Real> &lambda, std::vector<Real> &comp, bool closed_form)
{
  const Int    m = e - s + 1, np = (Int)pos.size();
  PetscBLASInt bm, info = 0;
  lambda.assign(m, 0);
  comp.assign((size_t)np * m, 0);
  if (PetscBLASIntCast(m, &bm)) return "block too large for LAPACK";
  Real ad, ao, md, mo;
  if (closed_form && ToeplitzBlock(F, s, m, ad, ao, md, mo)) {
    const Real c = std::sqrt(2 / (Real)(m + 1));
    for (Int k = 1; k <= m; k++) {
      const Real den = TwoCos(md, mo, k, m);
      if (!(den > 0)) return "the mass factor M is not positive definite";
      lambda[k - 1]   = TwoCos(ad, ao, k, m) / den;
      const Real sc   = c / std::sqrt(den);
      for (Int t = 0; t < np; t++) comp[t + (size_t)(k - 1) * np] = sc * SinPi((long long)(pos[t] + 1) * k, m);
    }
    return "";
  }
  /* the standard symmetric tridiagonal problem (d, sub) whose eigenvectors Z give W = X Z: X = M^-1/2 (diagonal M) or
     Crawford's X (tridiagonal M, the needed rows Xr[t + k np] = X(pos[t], k)) */
  std::vector<Real>       d, sub, sq, Xr;
  std::unique_ptr<Real[]> X;
  std::string             err = StandardTridiagonal(F, s, m, d, sub, &sq, F.mo.empty() ? nullptr : &X);
  if (!err.empty()) return err;
  if (X) {
    Xr.resize((size_t)np * m);
    for (Int k = 0; k < m; k++)
      for (Int t = 0; t < np; t++) Xr[t + (size_t)k * np] = X[pos[t] + (size_t)k * m];
  }
  std::unique_ptr<Real[]> Z(new Real[(size_t)m * m]);
  if (m == 1) {
    lambda[0] = d[0];
    Z[0]      = 1;
  } else {
    bool done = false;
#if !defined(PETSC_USE_COMPLEX)
    {
      std::vector<Real>         dd(d), e2(sub);
      PetscBLASInt              lwork = -1, liwork = -1, iwq = 0;
      Real                      wq = 0;
      PETSCBLASREAL(stedc, STEDC)("I", &bm, dd.data(), e2.data(), Z.get(), &bm, &wq, &lwork, &iwq, &liwork, &info);
      lwork = (PetscBLASInt)wq + 1;
      liwork = iwq + 1;
      std::vector<Real>         work(lwork);
      std::vector<PetscBLASInt> iwork(liwork);
      PETSCBLASREAL(stedc, STEDC)("I", &bm, dd.data(), e2.data(), Z.get(), &bm, work.data(), &lwork, iwork.data(), &liwork, &info);
      if (!info) {
        lambda = dd;
        done   = true;
      }
    }
#endif
#if !defined(PETSC_MISSING_LAPACK_STEGR)
    if (!done) {
      std::vector<Real>         dd(d), e2(sub), w(m);
      std::vector<PetscBLASInt> isuppz(2 * (size_t)m);
      PetscBLASInt              mfound = 0, lwork = -1, liwork = -1, iwq = 0, il = 1, iu = bm;
      Real                      wq = 0, vl = 0, vu = 0, abstol = 0;
      LAPACKstegr_("V", "A", &bm, dd.data(), e2.data(), &vl, &vu, &il, &iu, &abstol, &mfound, w.data(), Z.get(), &bm, isuppz.data(), &wq, &lwork, &iwq, &liwork, &info);
      if (!info) {
        lwork  = (PetscBLASInt)wq + 1;
        liwork = iwq + 1;
        std::vector<Real>         work(lwork);
        std::vector<PetscBLASInt> iwork(liwork);
        LAPACKstegr_("V", "A", &bm, dd.data(), e2.data(), &vl, &vu, &il, &iu, &abstol, &mfound, w.data(), Z.get(), &bm, isuppz.data(), work.data(), &lwork, iwork.data(), &liwork, &info);
        if (!info && mfound == bm) {
          lambda = w;
          done   = true;
        }
      }
    }
#endif
    if (!done) {
      std::vector<Real> dd(d), e2(sub), work(2 * (size_t)m);
      LAPACKsteqr_("I", &bm, dd.data(), e2.data(), Z.get(), &bm, work.data(), &info);
      if (info) return "the tridiagonal eigensolver (LAPACK steqr) did not converge";
      lambda = dd;
    }
  }
  if (Xr.empty())
    for (Int l = 0; l < m; l++)
      for (Int t = 0; t < np; t++) comp[t + (size_t)l * np] = Z[pos[t] + (size_t)l * m] / sq[pos[t]];
  else
    for (Int l = 0; l < m; l++) {
      const Real *z = Z.get() + (size_t)l * m;
      for (Int t = 0; t < np; t++) {
        Real acc = 0;
        for (Int k = 0; k < m; k++) acc += Xr[t + (size_t)k * np] * z[k];
        comp[t + (size_t)l * np] = acc;
      }
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

/* the smallest (or largest) eigenvalue of the symmetric tridiagonal pencil (A, M) (diagonals ad, md, off-diagonals ao,
   mo), M positive definite: bisection on the inertia of A - sigma M (the signs of its LDL^T pivots, Sylvester's law),
   iters steps after the bracket (the rounding level for the default) */
template <class T>
T PencilEigT(const std::vector<T> &ad, const std::vector<T> &ao, const std::vector<T> &md, const std::vector<T> &mo, bool smallest, int iters = 200)
{
  const Int n     = (Int)ad.size();
  auto      count = [&](T x) { /* eigenvalues < x */
    Int c = 0;
    T   q = 1;
    for (Int i = 0; i < n; i++) {
      const T o = i > 0 ? ao[i - 1] - x * (mo.empty() ? (T)0 : mo[i - 1]) : (T)0;
      q         = ad[i] - x * (md.empty() ? (T)1 : md[i]) - (i > 0 ? o * o / q : (T)0);
      if (q == 0) q = -std::numeric_limits<T>::min();
      if (q < 0) c++;
    }
    return c;
  };
  T lo = -1, hi = 1;
  if (md.empty()) { /* a standard problem: the Gershgorin bounds */
    lo = hi = ad[0];
    for (Int i = 0; i < n; i++) {
      const T r = (i > 0 ? std::abs(ao[i - 1]) : (T)0) + (i + 1 < n ? std::abs(ao[i]) : (T)0);
      lo        = std::min(lo, ad[i] - r);
      hi        = std::max(hi, ad[i] + r);
    }
    lo -= std::abs(lo) * std::numeric_limits<T>::epsilon() + std::numeric_limits<T>::min();
    hi += std::abs(hi) * std::numeric_limits<T>::epsilon() + std::numeric_limits<T>::min();
  }
  for (int it = 0; it < 2000 && count(lo) > 0; it++) lo = lo < 0 ? 2 * lo : -1;
  for (int it = 0; it < 2000 && count(hi) < n; it++) hi = hi > 0 ? 2 * hi : 1;
  const Int want = smallest ? 1 : n;
  for (int it = 0; it < iters; it++) {
    const T mid = (lo + hi) / 2;
    if (!(mid > lo && mid < hi)) break;
    if (count(mid) >= want) hi = mid;
    else lo = mid;
  }
  return (lo + hi) / 2;
}

/* M of F positive definite (LDL^T pivots) */
bool MassDefinite(const Factor &F)
{
  Real piv = 0;
  for (Int i = 0; i < F.n(); i++) {
    const Real o = i > 0 && !F.mo.empty() ? F.mo[i - 1] : 0;
    piv          = (F.md.empty() ? 1 : F.md[i]) - (i > 0 ? o * o / piv : 0);
    if (!(piv > 0)) return false;
  }
  return true;
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
        std::string err = BlockEigen(F, s, e, pos, lam, comp, true);
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
    for (Int r : bnr) lv.nrhs += r;
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

/* ---------------------------------------------------------------------------------------------------------------
   Indices of a level (dimension d, rows n = n_d, row vectors of length L, nb problems b, nblk active blocks, the
   modes l of block blk are bm0(blk) .. bm0(blk + 1) - 1, nsys = nb nmodes shifted systems s = b nmodes + l):
     X[(b n + r) L + p]                 the batch (every problem contiguous);
     G[(b nmodes + l) L + p]            stored right-hand sides / solutions, problem order (the next dimension's batch);
     G[p nsys + s]                      the same, interleaved (kp_tridiag, one thread per system: coalesced);
     E[((b nblk + blk) 2 + o) L + p]    block-end corrections (o = 0: first row, 1: last row);
     P[(((b nblk + blk) gpb + g) NO + o) L + p]
                                        weighted sums per group g of G modes: NO = 2 (the block's first and last row,
                                        reduction) or q - 1 (its rows of J_{i-1}, back substitution); the stored path
                                        writes them with gpb = 1.
--------------------------------------------------------------------------------------------------------------- */

/* the stride of the chunk-ordered coefficients: row t C + j at j ChunkStride(T) + t; on a GPU the constant 512 (the
   largest team), so that the addresses of a thread's rows are immediate offsets of one base (no registers) */
KOKKOS_INLINE_FUNCTION Int ChunkStride(Int T) { return kDeviceExec ? 512 : T; }

/* the number of groups of block blk that hold modes */
KOKKOS_INLINE_FUNCTION Int Groups(const View<Int> &bm0, Int blk, Int gpb, Int G)
{
  const Int m = bm0(blk + 1) - bm0(blk), ng = (m + G - 1) / G;
  return ng < gpb ? ng : gpb;
}

/* ---------------------------------------------------------------------------------------------------------------
   The fused level kernel of the last reduced dimension (its shifted solves are tridiagonal along the contiguous
   index p). One team per (problem b, block, group of G modes of the block); thread t of the team holds the rows
   p = t C .. t C + C - 1 of every row vector in registers (host: team scratch, see kp_tridiag_impl.hpp):
     1. the block's <= q - 1 right-hand side rows of J_{i-1} and, in the back substitution, the two block-end
        corrections (computed from the neighbouring rows of J_i) are read once;
     2. for every mode l of the group: its right-hand side g = sum_u W(u, l) F_u is formed in registers, the shifted
        system (A + (c_b + lambda_l) M) y = g is solved by the team (TeamChunkSolve), and the weighted sums
        acc_o += W(o, l) y are accumulated in registers;
     3. the sums are written: the block's first and last rows (reduction; per group, added by UpdateReduce) or its
        rows of J_{i-1} (back substitution; straight into X when one group holds all modes of the block).
   The partial solution technique (Kuznetsov and Rossi; Myllykoski, Rossi and Toivanen, J. Parallel Distrib.
   Comput. 115 (2018), Section 2.2) needs only these sums, so the n_last-long solutions y of the shifted systems
   never go through global memory: a level reads its right-hand side rows once and writes its output rows once.
--------------------------------------------------------------------------------------------------------------- */
struct LevelArgs {
  Scalar      *X = nullptr, *P = nullptr;
  View<Scalar> shifts;
  View<Real>   W, lambda;
  View<Int>    bm0, bs, be, bnr, brow;
  View<Real>   cal, cad, cau, cml, cmd, cmu; /* the last factor in chunk order */
  DeviceFactor fd, fl;                       /* the reduced dimension's factor and the last factor */
  View<Int>    fail;
  Int          n = 0, L = 0, T = 0, q = 4, nblk = 0, gpb = 1, G = 1;
  bool         moff = false; /* the last M has off-diagonals */
  Real         pivtol = 0;
  size_t       bytes = 0;
  ToeplitzFactor tf;         /* the last factor when interior-Toeplitz (tf.on) and the recurrences are wanted */
};

template <int Q, int C, bool BACK>
struct LevelTeam {
  static constexpr int NIN = BACK ? Q + 1 : Q - 1, NOUT = BACK ? Q - 1 : 2;
  struct Regs {
    Scalar                       in[NIN][C];
    Scalar                       acc[NOUT][C];
    tridiag_detail::TeamChunk<C> ch;
  };
  /* up to 255 registers a thread: the rows of the right-hand sides, the sums and the solve of C rows */
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 1>>;
  using Member = typename Policy::member_type;
  LevelArgs a;

  static size_t ScratchBytes(Int T) { return tridiag_detail::TeamScratch::Bytes(T, tridiag_detail::TeamScalars<C>(T)) + (kDeviceExec ? 0 : (size_t)T * sizeof(Regs)); }

  /* alpha (M x)(p) + beta (A x)(p) for the last factor and the row vector x */
  KOKKOS_INLINE_FUNCTION Scalar Couple(const Scalar *x, Int p, Scalar alpha, Scalar beta) const
  {
    const DeviceFactor &f  = a.fl;
    Scalar              Mx = f.md(p) * x[p], Ax = f.ad(p) * x[p];
    if (p > 0) {
      Mx += f.ml(p) * x[p - 1];
      Ax += f.al(p) * x[p - 1];
    }
    if (p + 1 < a.L) {
      Mx += f.mu(p) * x[p + 1];
      Ax += f.au(p) * x[p + 1];
    }
    return alpha * Mx + beta * Ax;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member &m) const
  {
    const Int gpb = a.gpb, nblk = a.nblk, L = a.L, T = a.T, n = a.n, q = a.q, Q1 = q + 1;
    const Int tid = m.league_rank(), g = tid % gpb, blk = (tid / gpb) % nblk, b = tid / (gpb * nblk);
    const Int l0 = a.bm0(blk) + g * a.G, lm = a.bm0(blk + 1), l1 = l0 + a.G < lm ? l0 + a.G : lm;
    if (l0 >= l1) return; /* a group past the end of a short block: the whole team leaves */
    char                       *base = (char *)m.team_scratch(kDeviceExec ? 0 : 1).get_shmem(a.bytes);
    tridiag_detail::TeamScratch sc;
    Regs                        mine;
    sc.Carve(base, T, tridiag_detail::TeamScalars<C>(T));
    Regs      *all   = kDeviceExec ? &mine : (Regs *)(base + tridiag_detail::TeamScratch::Bytes(T, tridiag_detail::TeamScalars<C>(T)));
    auto       regs  = [&](Int t) -> Regs & { return all[kDeviceExec ? 0 : t]; };
    auto       chunk = [&](Int t) -> tridiag_detail::TeamChunk<C> & { return all[kDeviceExec ? 0 : t].ch; };
    const Int  nr = a.bnr(blk), s = a.bs(blk), e = a.be(blk);
    const auto cb = a.shifts(b);
    Scalar    *Xb = a.X + (size_t)b * n * L;
    Int        rows[Q - 1];
    for (int u = 0; u < Q - 1; u++) rows[u] = u < nr ? a.brow(blk * Q1 + u) : 0;

    /* 1. the right-hand side rows (and the block-end corrections), staged: coalesced in p */
    KP_UNROLL
    for (int u = 0; u < NIN; u++) {
      if (u < Q - 1 && u >= nr) {
        tridiag_detail::ForChunks(m, T, [&](Int t) {
          for (int j = 0; j < C; j++) regs(t).in[u][j] = 0;
        });
        continue;
      }
      auto dst = [&](Int t, int j) -> Scalar & { return regs(t).in[u][j]; };
      if (u < Q - 1) tridiag_detail::TeamLoad<C>(m, L, T, dst, [&](Int p) { return Xb[rows[u] * L + p]; }, sc.pub);
      else if (u == Q - 1) tridiag_detail::TeamLoad<C>(m, L, T, dst, [&](Int p) { return s > 0 ? -Couple(Xb + (s - 1) * L, p, a.fd.al(s) + cb * a.fd.ml(s), a.fd.ml(s)) : Scalar(0); }, sc.pub);
      else tridiag_detail::TeamLoad<C>(m, L, T, dst, [&](Int p) { return e < n - 1 ? -Couple(Xb + (e + 1) * L, p, a.fd.au(e) + cb * a.fd.mu(e), a.fd.mu(e)) : Scalar(0); }, sc.pub);
    }
    tridiag_detail::ForChunks(m, T, [&](Int t) {
      for (int j = 0; j < C; j++)
        for (int o = 0; o < NOUT; o++) regs(t).acc[o][j] = 0;
    });
    if (m.team_rank() == 0) sc.flag[0] = sc.flag[1] = sc.flag[2] = 0;
    m.team_barrier();

    /* 2. the modes of the group */
    for (Int l = l0; l < l1; l++) {
      Scalar win[NIN], wout[NOUT];
      for (int u = 0; u < Q - 1; u++) win[u] = u < nr ? a.W(l * Q1 + u) : Real(0);
      if constexpr (BACK) {
        win[Q - 1] = a.W(l * Q1 + q - 1);
        win[Q]     = a.W(l * Q1 + q);
        for (int o = 0; o < NOUT; o++) wout[o] = o < nr ? a.W(l * Q1 + o) : Real(0);
      } else {
        wout[0] = a.W(l * Q1 + q - 1);
        wout[1] = a.W(l * Q1 + q);
      }
      const Scalar sig = cb + a.lambda(l);
      tridiag_detail::ForChunks(m, T, [&](Int t) {
        Regs &r = regs(t);
        for (int j = 0; j < C; j++) {
          Scalar y = 0;
          for (int u = 0; u < NIN; u++) y += win[u] * r.in[u][j];
          r.ch.y[j] = y;
        }
      });
      auto coef = [&](Int t, Int j, Scalar &aa, Scalar &bb, Scalar &cc) {
        const Int i = j * ChunkStride(T) + t;
        if (a.moff) {
          aa = a.cal(i) + sig * a.cml(i);
          bb = a.cad(i) + sig * a.cmd(i);
          cc = a.cau(i) + sig * a.cmu(i);
        } else {
          aa = a.cal(i);
          bb = a.cad(i) + sig * a.cmd(i);
          cc = a.cau(i);
        }
      };
      tridiag_detail::ToeplitzRows tp;
      if (a.tf.on) tp = {a.tf.ao + sig * a.tf.mo, a.tf.ad + sig * a.tf.md, a.tf.ad0 + sig * a.tf.md0, a.tf.adn + sig * a.tf.mdn, true};
      const Int f = tridiag_detail::TeamSolve<C>(m, L, T, chunk, coef, tp, sc, a.pivtol, l - l0);
      if (f && m.team_rank() == 0) Kokkos::atomic_add(&a.fail(0), (Int)1);
      tridiag_detail::ForChunks(m, T, [&](Int t) {
        Regs &r = regs(t);
        for (int j = 0; j < C; j++)
          for (int o = 0; o < NOUT; o++) r.acc[o][j] += wout[o] * r.ch.y[j];
      });
    }

    /* 3. the weighted sums, staged: coalesced in p */
    const Int NO = BACK ? q - 1 : 2;
    Scalar   *Pg = a.P + (((size_t)b * nblk + blk) * gpb + g) * NO * L;
    m.team_barrier(); /* the staging area is the separators' scratch, read by the last solve */
    KP_UNROLL
    for (int o = 0; o < NOUT; o++) {
      if (BACK && o >= nr) continue;
      Scalar *dst = BACK && gpb == 1 ? Xb + rows[o] * L : Pg + o * L;
      tridiag_detail::TeamStore<C>(m, L, T, [&](Int t, int j) { return regs(t).acc[o][j]; }, [&](Int p, Scalar v) { dst[p] = v; }, sc.pub);
    }
  }
};

template <int Q, int C, bool BACK>
void RunLevelTeam(LevelArgs a, Int nteams)
{
  using LT    = LevelTeam<Q, C, BACK>;
  a.bytes     = LT::ScratchBytes(a.T);
  typename LT::Policy pol(exec(), nteams, kDeviceExec ? a.T : 1);
  pol.set_scratch_size(kDeviceExec ? 0 : 1, Kokkos::PerTeam(a.bytes));
  Kokkos::parallel_for(BACK ? "petsckp::pscr::LevelTeamBack" : "petsckp::pscr::LevelTeamReduce", pol, LT{a});
}

/* the radix class (arrays sized for q <= 4 or q <= 8) and the largest rows per thread that keep a level's registers
   (NIN + NOUT + 3) C without spilling under 512 threads */
inline Int TeamQ(Int q) { return q <= 4 ? 4 : 8; }
inline Int TeamMaxRows(Int q) { return q <= 4 ? 8 : 4; }

/* rows per thread of the fused level kernel for systems of n rows, or 0 when it does not apply (longer than a team
   of 256 threads can hold with its right-hand side rows and sums in registers) */
Int TeamRowsFor(const Solver &S, Int n)
{
  if (!S.team) return 0;
  Int C = TeamMaxRows(S.q);
  if (S.team_rows == 1 || S.team_rows == 2 || S.team_rows == 4 || S.team_rows == 8) C = std::min<Int>(S.team_rows, C);
  if (kDeviceExec && (n + C - 1) / C > 256) return 0;
  return C;
}

/* rows per thread of the team tridiagonal solver of the stored path (G in problem order), or 0: kp_tridiag's
   interleaved solvers (an algorithm other than Auto/Team asked for, or systems longer than a team can hold) */
Int StoredTeamRows(const Solver &S, Int n)
{
  if (S.topt.alg != TridiagAlgorithm::Auto && S.topt.alg != TridiagAlgorithm::Team) return 0;
  return tridiag_detail::TeamRows(n, S.topt.team_rows);
}

/* the coefficients of the rows of system s = b nmodes + l, A + (shifts(b) + lambda(l)) M, from the chunk-ordered last
   factor: at(s) gives those of row t C + j as (t, j, a, b, c) */
struct ChunkShifted {
  View<Real>     cal, cad, cau, cml, cmd, cmu, lambda;
  View<Scalar>   shifts;
  Int            T = 1, nmodes = 1;
  bool           moff = false;
  ToeplitzFactor tf; /* tf.on: the systems are interior-Toeplitz (toeplitz() gives the recurrences' coefficients) */
  struct One {
    const Real            *cal, *cad, *cau, *cml, *cmd, *cmu;
    Scalar                 sig;
    Int                    TS;
    bool                   moff;
    ToeplitzFactor         tf;
    KOKKOS_INLINE_FUNCTION tridiag_detail::ToeplitzRows toeplitz() const
    {
      tridiag_detail::ToeplitzRows tp;
      if (tf.on) tp = {tf.ao + sig * tf.mo, tf.ad + sig * tf.md, tf.ad0 + sig * tf.md0, tf.adn + sig * tf.mdn, true};
      return tp;
    }
    KOKKOS_INLINE_FUNCTION void operator()(Int t, Int j, Scalar &a, Scalar &b, Scalar &c) const
    {
      const Int i = j * TS + t;
      if (moff) {
        a = cal[i] + sig * cml[i];
        b = cad[i] + sig * cmd[i];
        c = cau[i] + sig * cmu[i];
      } else {
        a = cal[i];
        b = cad[i] + sig * cmd[i];
        c = cau[i];
      }
    }
  };
  KOKKOS_INLINE_FUNCTION One at(Int s) const
  {
    return {cal.data(), cad.data(), cau.data(), cml.data(), cmd.data(), cmu.data(), shifts(s / nmodes) + lambda(s % nmodes), ChunkStride(T), moff, tf};
  }
};

void LaunchLevelTeam(const LevelArgs &a, Int nteams, Int C, bool back)
{
  const bool q4 = a.q <= 4;
#define PSCR_LEVEL(QQ, CC) \
  do { \
    if (back) RunLevelTeam<QQ, CC, true>(a, nteams); \
    else RunLevelTeam<QQ, CC, false>(a, nteams); \
  } while (0)
  switch (C) {
  case 1:
    if (q4) PSCR_LEVEL(4, 1);
    else PSCR_LEVEL(8, 1);
    break;
  case 2:
    if (q4) PSCR_LEVEL(4, 2);
    else PSCR_LEVEL(8, 2);
    break;
  case 4:
    if (q4) PSCR_LEVEL(4, 4);
    else PSCR_LEVEL(8, 4);
    break;
  default:
    PSCR_LEVEL(4, 8);
  }
#undef PSCR_LEVEL
}

/* the last factor's coefficients in the chunk order of C rows per thread, T threads */
void ChunkCoefficients(Solver &S, Int C, Int T)
{
  if (S.chunked_C == C && S.chunked_T == T) return;
  const DeviceFactor &f = S.f[S.dim - 1];
  const Int           n = f.n, TS = ChunkStride(T);
  const View<Real>    src[6] = {f.al, f.ad, f.au, f.ml, f.md, f.mu};
  for (int k = 0; k < 6; k++) {
    View<Real> dst(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("pscr chunked factor")), (size_t)C * TS);
    const auto v = src[k];
    const Real pad = k == 1 ? 1 : 0;
    Kokkos::parallel_for(
      "petsckp::pscr::ChunkCoefficients", range(C * TS), KOKKOS_LAMBDA(Int i) {
        const Int j = i / TS, t = i % TS, r = t * C + j;
        dst(i)      = t < T && r < n ? v(r) : pad;
      });
    S.chunked[k] = dst;
  }
  S.chunked_C = C;
  S.chunked_T = T;
}

/* the groups of modes per block of a level by the fused kernel (G modes each): enough teams for about two waves on the
   device, but at least 16 modes a team so that the partial sums stay a small part of the traffic; one group per block
   on the host */
Int GroupsPerBlock(const Solver &S, const Level &lv, Int nb, Int T, Int *G)
{
  const Int nblk = lv.nblk, maxm = std::max<Int>(lv.maxm, 1);
  Int       gpb  = 1;
  if (S.team_modes > 0) gpb = (maxm + S.team_modes - 1) / S.team_modes;
  else if (kDeviceExec) {
    /* teams resident on a multiprocessor: the fused kernels take up to 255 registers a thread */
    const Int sms = std::max<Int>(1, (Int)(ExecSpace().concurrency() / 2048)), per = std::max<Int>(1, std::min<Int>(16, 65536 / (T * 256)));
    const Int target = 2 * sms * per;
    gpb              = std::max<Int>(1, std::min<Int>((target + nb * nblk - 1) / (nb * nblk), (maxm + 15) / 16));
  }
  gpb = std::max<Int>(1, std::min(gpb, maxm));
  *G  = (maxm + gpb - 1) / gpb;
  return (maxm + *G - 1) / *G;
}

/* one level of the last reduced dimension by the fused kernel; returns the groups per block (the partial sums are in
   w.P, P-indexed) */
Int LevelByTeam(Solver &S, const Level &lv, Int d, Int nb, Scalar *X, const View<Scalar> &shifts, bool back, Int C, View<Int> fail, Int *G)
{
  Work     &w = S.work[d];
  const Int L = S.n[S.dim - 1], T = (L + C - 1) / C, nblk = lv.nblk;
  ChunkCoefficients(S, C, T);
  const Int gpb = GroupsPerBlock(S, lv, nb, T, G);
  const Int NO  = back ? S.q - 1 : 2;
  if (!back || gpb > 1) Grow(w.P, (size_t)nb * nblk * gpb * NO * L, "pscr P", S.work_bytes);
  LevelArgs a;
  a.X      = X;
  a.P      = w.P.data();
  a.shifts = shifts;
  a.W      = lv.W;
  a.lambda = lv.lambda;
  a.bm0    = lv.bm0;
  a.bs     = lv.bs;
  a.be     = lv.be;
  a.bnr    = lv.bnr;
  a.brow   = lv.brow;
  a.cal    = S.chunked[0];
  a.cad    = S.chunked[1];
  a.cau    = S.chunked[2];
  a.cml    = S.chunked[3];
  a.cmd    = S.chunked[4];
  a.cmu    = S.chunked[5];
  a.fd     = S.f[d];
  a.fl     = S.f[S.dim - 1];
  a.fail   = fail;
  a.n      = S.n[d];
  a.L      = L;
  a.T      = T;
  a.q      = S.q;
  a.nblk   = nblk;
  a.gpb    = gpb;
  a.G      = *G;
  a.moff   = S.moff_last;
  a.pivtol = S.topt.pivtol;
  if (S.toeplitz) a.tf = S.toep_last;
  LaunchLevelTeam(a, nb * nblk * gpb, C, back);
  return gpb;
}

/* ---------------------------------------------------------------------------------------------------------------
   The stored path: the right-hand sides G of a level's shifted solves are formed (or formed inside kp_tridiag's
   solves), solved in place (kp_tridiag along the last dimension, or a batch of PSCR problems of the next dimension)
   and summed by Sums.
--------------------------------------------------------------------------------------------------------------- */

/* the right-hand side of one system of a level: sum_u w_u row_u(p) over the block's nr <= q - 1 right-hand side rows
   and, in the back substitution, w_e0 e0(p) + w_e1 e1(p) over its two block-end corrections. The slots are filled and
   read at compile-time positions (registers, not local memory) */
struct RhsLevelOne {
  const Scalar          *row[kMaxRadix - 1], *e0, *e1;
  Real                   w[kMaxRadix - 1], we0, we1;
  Int                    nr;
  bool                   back;
  KOKKOS_INLINE_FUNCTION Scalar operator()(Int p) const
  {
    Scalar g = back ? we0 * e0[p] + we1 * e1[p] : Scalar(0);
    KP_UNROLL
    for (int u = 0; u < kMaxRadix - 1; u++)
      if (u < nr) g += w[u] * row[u][p];
    return g;
  }
};

/* the right-hand side of system s = b nmodes + l at position p: per element (kp_tridiag's solvers) or per system
   (at(s), the team solver) */
struct RhsLevel {
  const Scalar          *X = nullptr, *E = nullptr;
  View<Real>             W;
  View<Int>              mblk, bnr, brow;
  Int                    nmodes = 1, nblk = 1, n = 1, L = 1, q = 4;
  bool                   back = false;
  KOKKOS_INLINE_FUNCTION Scalar operator()(Int s, Int p, Int) const
  {
    const Int b = s / nmodes, l = s % nmodes, blk = mblk(l), nr = bnr(blk), Q1 = q + 1;
    Scalar    g = 0;
    if (back) g = W(l * Q1 + q - 1) * E[((b * nblk + blk) * 2) * L + p] + W(l * Q1 + q) * E[((b * nblk + blk) * 2 + 1) * L + p];
    for (Int u = 0; u < nr; u++) g += W(l * Q1 + u) * X[((size_t)b * n + brow(blk * Q1 + u)) * L + p];
    return g;
  }
  KOKKOS_INLINE_FUNCTION RhsLevelOne at(Int s) const
  {
    const Int   b = s / nmodes, l = s % nmodes, blk = mblk(l), nr = bnr(blk), Q1 = q + 1;
    RhsLevelOne g;
    g.nr   = nr;
    g.back = back;
    KP_UNROLL
    for (int u = 0; u < kMaxRadix - 1; u++) {
      g.row[u] = u < nr ? X + ((size_t)b * n + brow(blk * Q1 + u)) * L : X;
      g.w[u]   = u < nr ? W(l * Q1 + u) : Real(0);
    }
    g.e0 = g.e1 = X;
    g.we0 = g.we1 = 0;
    if (back) {
      g.e0  = E + ((size_t)(b * nblk + blk) * 2) * L;
      g.e1  = g.e0 + L;
      g.we0 = W(l * Q1 + q - 1);
      g.we1 = W(l * Q1 + q);
    }
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

template <int C, class Rhs>
void TeamLevelC(Solver &S, const Level &lv, Int nsys, Work &w, const Rhs &rhs, const View<Scalar> &shifts, View<Int> fail)
{
  const Int L = S.n[S.dim - 1], T = (L + C - 1) / C;
  ChunkCoefficients(S, C, T);
  const ChunkShifted coef{S.chunked[0], S.chunked[1], S.chunked[2], S.chunked[3], S.chunked[4], S.chunked[5], lv.lambda, shifts, T, lv.nmodes, S.moff_last, S.toeplitz ? S.toep_last : ToeplitzFactor()};
  tridiag_detail::SolveTeamC<C>({nsys, L, TridiagLayout::Contiguous}, coef, rhs, UView<Scalar>(w.G.data(), (size_t)nsys * L), UView<Int>(), S.topt.pivtol, UView<Int>(fail.data(), 1));
}

template <class Rhs>
void TeamLevel(Solver &S, const Level &lv, Int nsys, Work &w, const Rhs &rhs, const View<Scalar> &shifts, View<Int> fail, Int C)
{
  switch (C) {
  case 1:
    TeamLevelC<1>(S, lv, nsys, w, rhs, shifts, fail);
    break;
  case 2:
    TeamLevelC<2>(S, lv, nsys, w, rhs, shifts, fail);
    break;
  case 4:
    TeamLevelC<4>(S, lv, nsys, w, rhs, shifts, fail);
    break;
  case 8:
    TeamLevelC<8>(S, lv, nsys, w, rhs, shifts, fail);
    break;
  default:
    TeamLevelC<16>(S, lv, nsys, w, rhs, shifts, fail);
  }
}

/* the shifted solves of a level of the last reduced dimension, in place in G; with the right-hand sides formed on the
   fly when rhs is given. Cs > 0: by the team solver (G in problem order), else by kp_tridiag (G interleaved, with the
   shifts in w.shift). */
void TridiagLevel(Solver &S, const Level &lv, Int nsys, Work &w, const RhsLevel *rhs, const View<Scalar> &shifts, View<Int> fail, Int Cs)
{
  const DeviceFactor &f = S.f[S.dim - 1];
  UView<Scalar>       G(w.G.data(), (size_t)nsys * f.n);
  if (Cs) {
    if (rhs) TeamLevel(S, lv, nsys, w, *rhs, shifts, fail, Cs);
    else TeamLevel(S, lv, nsys, w, tridiag_detail::RhsBatch<tridiag_detail::RhsView>{{UView<const Scalar>(G.data(), G.extent(0))}, {nsys, f.n, TridiagLayout::Contiguous}}, shifts, fail, Cs);
    return;
  }
  if ((Int)w.status.extent(0) < nsys) w.status = View<Int>("pscr status", nsys);
  UView<Int>         st(w.status.data(), nsys);
  const TridiagShape sh{nsys, f.n, TridiagLayout::Interleaved};
  if (rhs) {
    tridiag_detail::CoefShifted coef{f.al, f.ad, f.au, f.ml, f.md, f.mu, UView<const Scalar>(w.shift.data(), nsys), true, true};
    tridiag_detail::Solve(sh, coef, *rhs, G, st, S.topt, &w.tw);
  } else TridiagSolveShifted(sh, f.al, f.ad, f.au, f.ml, f.md, f.mu, UView<const Scalar>(w.shift.data(), nsys), G, G, st, S.topt, &w.tw);
  CountFailures(st, nsys, fail);
}

/* the right-hand sides G of a level (not fused into the solves): interleaved (last dimension) or in problem order.
   In problem order a thread forms those of up to kRhsModes modes of one block at one p: it reads the block's <= q + 1
   right-hand side values at p once for all of them (per mode they would be read again, from the cache at best: q + 1
   reads a written value); consecutive threads take consecutive p, so that reads and writes are coalesced. */
constexpr Int kRhsModes = 8;

void RhsForm(const Level &lv, Int q, Int n, Int L, Int nb, bool back, bool interleaved, const Scalar *X, const Scalar *E, Scalar *G)
{
  const Int  nmodes = lv.nmodes, nsys = nb * nmodes, nblk = lv.nblk, Q1 = q + 1;
  const auto W = lv.W;
  const auto mblk = lv.mblk, bnr = lv.bnr, brow = lv.brow, bm0 = lv.bm0;
  if (interleaved) {
    Kokkos::parallel_for(
      "petsckp::pscr::RhsForm", range(nsys * L), KOKKOS_LAMBDA(Int t) {
        const Int s = t % nsys, p = t / nsys, b = s / nmodes, l = s % nmodes, blk = mblk(l), nr = bnr(blk);
        Scalar    g = 0;
        if (back) g = W(l * Q1 + q - 1) * E[((b * nblk + blk) * 2) * L + p] + W(l * Q1 + q) * E[((b * nblk + blk) * 2 + 1) * L + p];
        for (Int u = 0; u < nr; u++) g += W(l * Q1 + u) * X[((size_t)b * n + brow(blk * Q1 + u)) * L + p];
        G[t] = g;
      });
    return;
  }
  const Int ng = (std::max<Int>(lv.maxm, 1) + kRhsModes - 1) / kRhsModes; /* groups of the largest block */
  Kokkos::parallel_for(
    "petsckp::pscr::RhsFormGrouped", range(L * ng * nblk * nb), KOKKOS_LAMBDA(Int t) {
      const Int p = t % L, g = (t / L) % ng, blk = (t / (L * ng)) % nblk, b = t / (L * ng * nblk);
      const Int m0 = bm0(blk) + g * kRhsModes, m1 = m0 + kRhsModes < bm0(blk + 1) ? m0 + kRhsModes : bm0(blk + 1);
      if (m0 >= m1) return;
      const Int nr = bnr(blk);
      Scalar    v[kMaxRadix + 1];
      KP_UNROLL
      for (int u = 0; u < kMaxRadix - 1; u++) v[u] = u < nr ? X[((size_t)b * n + brow(blk * Q1 + u)) * L + p] : Scalar(0);
      v[kMaxRadix - 1] = back ? E[((b * nblk + blk) * 2) * L + p] : Scalar(0);
      v[kMaxRadix]     = back ? E[((b * nblk + blk) * 2 + 1) * L + p] : Scalar(0);
      for (Int l = m0; l < m1; l++) {
        Scalar gl = back ? W(l * Q1 + q - 1) * v[kMaxRadix - 1] + W(l * Q1 + q) * v[kMaxRadix] : Scalar(0);
        KP_UNROLL
        for (int u = 0; u < kMaxRadix - 1; u++)
          if (u < nr) gl += W(l * Q1 + u) * v[u];
        G[((size_t)b * nmodes + l) * L + p] = gl;
      }
    });
}

/* the index of the solution of system s = b nmodes + l at p in G */
struct GIndex {
  bool                   interleaved;
  Int                    nsys, nmodes, L;
  KOKKOS_INLINE_FUNCTION Int operator()(Int b, Int l, Int p) const { return interleaved ? p * nsys + b * nmodes + l : (b * nmodes + l) * L + p; }
};

/* the weighted sums of the solutions in G: the block's first and last rows (reduction) or its rows of J_{i-1} (back
   substitution), per group of G modes into P (P-indexed, gpb groups a block; added by UpdateReduce / FinishBack), or
   straight into X's rows when one group holds the modes (back substitution). A thread sums at most G modes for one p:
   the few huge blocks of the top levels are spread over many threads. */
void Sums(const Solver &S, const Level &lv, Int n, Int L, Int nb, bool back, bool interleaved, const Scalar *G, Scalar *P, Scalar *X, Int gpb, Int Gm)
{
  const Int    nblk = lv.nblk, nmodes = lv.nmodes, nsys = nb * nmodes, q = S.q, Q1 = q + 1, NO = back ? q - 1 : 2;
  const auto   W = lv.W;
  const auto   bm0 = lv.bm0, bnr = lv.bnr, brow = lv.brow;
  const GIndex gidx{interleaved, nsys, nmodes, L};
  if (S.sum != SumKernel::Team) {
    Kokkos::parallel_for(
      "petsckp::pscr::Sums", range(L * gpb * nblk * nb), KOKKOS_LAMBDA(Int t) {
        const Int p = t % L, g = (t / L) % gpb, blk = (t / (L * gpb)) % nblk, b = t / (L * gpb * nblk);
        const Int m0 = bm0(blk) + g * Gm, m1 = m0 + Gm < bm0(blk + 1) ? m0 + Gm : bm0(blk + 1), nr = back ? bnr(blk) : 2;
        if (m0 >= m1) return;
        /* the accumulators at compile-time positions (registers: a run-time index would put them in local memory) */
        Scalar acc[kMaxRadix - 1];
        KP_UNROLL
        for (int u = 0; u < kMaxRadix - 1; u++) acc[u] = 0;
        if (back) {
          for (Int l = m0; l < m1; l++) {
            const Scalar y = G[gidx(b, l, p)];
            KP_UNROLL
            for (int u = 0; u < kMaxRadix - 1; u++)
              if (u < nr) acc[u] += W(l * Q1 + u) * y;
          }
        } else {
          for (Int l = m0; l < m1; l++) {
            const Scalar y = G[gidx(b, l, p)];
            acc[0] += W(l * Q1 + q - 1) * y;
            acc[1] += W(l * Q1 + q) * y;
          }
        }
        KP_UNROLL
        for (int u = 0; u < kMaxRadix - 1; u++) {
          if (u >= nr) continue;
          if (back && gpb == 1) X[((size_t)b * n + brow(blk * Q1 + u)) * L + p] = acc[u];
          else P[((((size_t)b * nblk + blk) * gpb + g) * NO + u) * L + p] = acc[u];
        }
      });
  } else {
    /* a team per (p, block, group) reducing over the group's modes */
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    using Member = Policy::member_type;
    Policy pol(exec(), L * nblk * gpb, Kokkos::AUTO);
    Kokkos::parallel_for(
      "petsckp::pscr::SumsTeam", pol, KOKKOS_LAMBDA(const Member &tm) {
        const Int g = tm.league_rank() % gpb, blk = (tm.league_rank() / gpb) % nblk, p = tm.league_rank() / (gpb * nblk);
        const Int m0 = bm0(blk) + g * Gm, m1 = m0 + Gm < bm0(blk + 1) ? m0 + Gm : bm0(blk + 1), nr = back ? bnr(blk) : 2;
        for (Int b = 0; b < nb; b++)
          for (Int u = 0; u < nr; u++) {
            const Int slot = back ? u : q - 1 + u;
            Scalar    sum  = 0;
            Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(tm, m0, m1 > m0 ? m1 : m0), [&](Int l, Scalar &acc) { acc += W(l * Q1 + slot) * G[gidx(b, l, p)]; }, sum);
            Kokkos::single(Kokkos::PerTeam(tm), [&]() {
              if (m0 >= m1) return;
              if (back && gpb == 1) X[((size_t)b * n + brow(blk * Q1 + u)) * L + p] = sum;
              else P[((((size_t)b * nblk + blk) * gpb + g) * NO + u) * L + p] = sum;
            });
          }
      });
  }
}

/* the groups of the stored path's sums: at most 64 modes a thread on the device, one group on the host (or
   sum_modes) */
Int SumGroups(const Solver &S, const Level &lv, Int *Gm)
{
  const Int maxm = std::max<Int>(lv.maxm, 1);
  *Gm            = S.sum_modes > 0 ? std::min<Int>(maxm, S.sum_modes) : kDeviceExec ? std::min<Int>(maxm, 64) : maxm;
  return (maxm + *Gm - 1) / *Gm;
}

/* workspace of a level and (unless the team solver forms them itself) the shifts of its systems: shifts(b) + lambda_l
   for system s = b nmodes + l */
void Prepare(Solver &S, Work &w, const Level &lv, Int nb, Int L, const View<Scalar> &shifts, bool need_shifts)
{
  const Int nmodes = lv.nmodes, nsys = nmodes * nb;
  Grow(w.G, (size_t)nsys * L, "pscr G", S.work_bytes);
  if (!need_shifts) return;
  Grow(w.shift, (size_t)nsys, "pscr shift", S.work_bytes);
  const auto lam = lv.lambda;
  auto       sh  = w.shift;
  Kokkos::parallel_for(
    "petsckp::pscr::Shifts", range(nsys), KOKKOS_LAMBDA(Int s) { sh(s) = shifts(s / nmodes) + lam(s % nmodes); });
}

/* the block-end corrections E of the back substitution: -B(s, s - 1) x_{s-1} and -B(e, e + 1) x_{e+1} */
void Corrections(Solver &S, const Level &lv, Int d, Int nb, Int L, const Scalar *X, const View<Scalar> &shifts, Scalar *E)
{
  const Rest rest = MakeRest(S, d);
  const Int  n = S.n[d], nblk = lv.nblk;
  const auto bs = lv.bs, be = lv.be;
  const auto al = S.f[d].al, au = S.f[d].au, ml = S.f[d].ml, mu = S.f[d].mu;
  Kokkos::parallel_for(
    "petsckp::pscr::Corrections", range(L * nblk * nb), KOKKOS_LAMBDA(Int t) {
      const Int    p = t % L, blk = (t / L) % nblk, b = t / (L * nblk), s = bs(blk), e = be(blk);
      const Scalar c = shifts(b);
      Scalar       Mx, Ax, e0 = 0, e1 = 0;
      if (s > 0) {
        const Scalar *x = X + ((size_t)b * n + s - 1) * L;
        rest.Apply([=](Int pp) { return x[pp]; }, p, Mx, Ax);
        e0 = -((al(s) + c * ml(s)) * Mx + ml(s) * Ax);
      }
      if (e < n - 1) {
        const Scalar *x = X + ((size_t)b * n + e + 1) * L;
        rest.Apply([=](Int pp) { return x[pp]; }, p, Mx, Ax);
        e1 = -((au(e) + c * mu(e)) * Mx + mu(e) * Ax);
      }
      E[((b * nblk + blk) * 2) * L + p]     = e0;
      E[((b * nblk + blk) * 2 + 1) * L + p] = e1;
    });
}

/* the reduction's coupling update of the rows r of J_i: f_r -= B(r, r - 1) v_last(block j) + B(r, r + 1) v_first(block
   j + 1), the v summed over the groups of P */
void UpdateReduce(Solver &S, const Level &lv, Int d, Int nb, Int L, Scalar *X, const View<Scalar> &shifts, const Scalar *P, Int gpb, Int G)
{
  const Rest rest = MakeRest(S, d);
  const Int  n = S.n[d], nblk = lv.nblk, nJ = lv.nJ, span = lv.span;
  const auto bm0 = lv.bm0;
  const auto al = S.f[d].al, au = S.f[d].au, ml = S.f[d].ml, mu = S.f[d].mu;
  if (!nJ) return;
  Kokkos::parallel_for(
    "petsckp::pscr::UpdateReduce", range(L * nJ * nb), KOKKOS_LAMBDA(Int t) {
      const Int    p = t % L, j = (t / L) % nJ, b = t / (L * nJ), r = (j + 1) * span - 1;
      const Scalar c = shifts(b);
      Scalar       Mx, Ax, acc;
      auto         vsum = [&](Int blk, Int o) {
        const Int     ng = Groups(bm0, blk, gpb, G);
        const Scalar *v  = P + (((size_t)b * nblk + blk) * gpb * 2 + o) * L;
        return [=](Int pp) {
          Scalar x = 0;
          for (Int g = 0; g < ng; g++) x += v[(size_t)g * 2 * L + pp];
          return x;
        };
      };
      rest.Apply(vsum(j, 1), p, Mx, Ax);
      acc = (al(r) + c * ml(r)) * Mx + ml(r) * Ax;
      if (r + 1 < n && j + 1 < nblk) {
        rest.Apply(vsum(j + 1, 0), p, Mx, Ax);
        acc += (au(r) + c * mu(r)) * Mx + mu(r) * Ax;
      }
      X[((size_t)b * n + r) * L + p] -= acc;
    });
}

/* the back substitution's rows of J_{i-1} from the partial sums of several groups */
void FinishBack(const Solver &S, const Level &lv, Int n, Int L, Int nb, Scalar *X, const Scalar *P, Int gpb, Int G)
{
  const Int  nblk = lv.nblk, NO = S.q - 1, Q1 = S.q + 1;
  const auto bm0 = lv.bm0, bnr = lv.bnr, brow = lv.brow;
  Kokkos::parallel_for(
    "petsckp::pscr::FinishBack", range(L * NO * nblk * nb), KOKKOS_LAMBDA(Int t) {
      const Int p = t % L, o = (t / L) % NO, blk = (t / (L * NO)) % nblk, b = t / (L * NO * nblk);
      if (o >= bnr(blk)) return;
      const Int     ng = Groups(bm0, blk, gpb, G);
      const Scalar *v  = P + (((size_t)b * nblk + blk) * gpb * NO + o) * L + p;
      Scalar        x  = 0;
      for (Int g = 0; g < ng; g++) x += v[(size_t)g * NO * L];
      X[((size_t)b * n + brow(blk * Q1 + o)) * L + p] = x;
    });
}

/* the batch X[(b n + r) L + p] of nb problems along dimension d with shifts(b), solved in place */
void ReducedSolve(Solver &S, Int d, Int nb, Scalar *X, const View<Scalar> &shifts, View<Int> fail)
{
  const Plan &P = S.plan[d];
  const Int   n = P.n, q = S.q, k = P.k;
  Int         L = 1;
  for (Int e = d + 1; e < S.dim; e++) L *= S.n[e];
  Work      &w     = S.work[d];
  const bool last  = d == S.dim - 2;                 /* the shifted solves are tridiagonal */
  const Int  C     = last ? TeamRowsFor(S, L) : 0;    /* > 0: the fused level kernels */
  const Int  Cs    = last ? StoredTeamRows(S, L) : 0; /* > 0: stored path, G in problem order, the team solver */
  const bool inter = last && !Cs;                     /* stored path, G interleaved, kp_tridiag */

  /* reduction */
  for (Int i = 1; i < k; i++) {
    const Level &lv = P.levels[i - 1];
    const Int    nmodes = lv.nmodes, nsys = nmodes * nb;
    if (!nmodes) continue;
    Int gpb = 1, G = lv.maxm;
    if (C) gpb = LevelByTeam(S, lv, d, nb, X, shifts, false, C, fail, &G);
    else {
      Prepare(S, w, lv, nb, L, shifts, !Cs);
      Scalar *Gp = w.G.data();
      if (last && S.fuse_rhs) {
        RhsLevel rhs{X, nullptr, lv.W, lv.mblk, lv.bnr, lv.brow, nmodes, lv.nblk, n, L, q, false};
        TridiagLevel(S, lv, nsys, w, &rhs, shifts, fail, Cs);
      } else {
        RhsForm(lv, q, n, L, nb, false, inter, X, nullptr, Gp);
        if (last) TridiagLevel(S, lv, nsys, w, nullptr, shifts, fail, Cs);
        else ReducedSolve(S, d + 1, nsys, Gp, w.shift, fail);
      }
      gpb = SumGroups(S, lv, &G);
      Grow(w.P, (size_t)nb * lv.nblk * gpb * 2 * L, "pscr P", S.work_bytes);
      Sums(S, lv, n, L, nb, false, inter, Gp, w.P.data(), X, gpb, G);
    }
    UpdateReduce(S, lv, d, nb, L, X, shifts, w.P.data(), gpb, G);
  }
  /* back substitution */
  for (Int i = k; i >= 1; i--) {
    const Level &lv = P.levels[i - 1];
    const Int    nmodes = lv.nmodes, nsys = nmodes * nb;
    if (!nmodes) continue;
    if (C) {
      Int       G   = lv.maxm;
      const Int gpb = LevelByTeam(S, lv, d, nb, X, shifts, true, C, fail, &G);
      if (gpb > 1) FinishBack(S, lv, n, L, nb, X, w.P.data(), gpb, G);
      continue;
    }
    Prepare(S, w, lv, nb, L, shifts, !Cs);
    Grow(w.E, (size_t)2 * lv.nblk * L * nb, "pscr E", S.work_bytes);
    Scalar *Gp = w.G.data(), *E = w.E.data();
    Corrections(S, lv, d, nb, L, X, shifts, E);
    if (last && S.fuse_rhs) {
      RhsLevel rhs{X, E, lv.W, lv.mblk, lv.bnr, lv.brow, nmodes, lv.nblk, n, L, q, true};
      TridiagLevel(S, lv, nsys, w, &rhs, shifts, fail, Cs);
    } else {
      RhsForm(lv, q, n, L, nb, true, inter, X, E, Gp);
      if (last) TridiagLevel(S, lv, nsys, w, nullptr, shifts, fail, Cs);
      else ReducedSolve(S, d + 1, nsys, Gp, w.shift, fail);
    }
    Int G, gpb = SumGroups(S, lv, &G);
    if (gpb > 1) Grow(w.P, (size_t)nb * lv.nblk * gpb * (q - 1) * L, "pscr P", S.work_bytes);
    Sums(S, lv, n, L, nb, true, inter, Gp, w.P.data(), X, gpb, G);
    if (gpb > 1) FinishBack(S, lv, n, L, nb, X, w.P.data(), gpb, G);
  }
}
/* modelled global-memory traffic (scalars) of the batch of nb problems along dimension d: every kernel's reads and
   writes of the batch, G, E, V, P once (the right-hand side rows a block's modes share are counted once, the
   coefficients and eigen data not at all) */
double Traffic(const Solver &S, Int d, double nb)
{
  const Plan &P = S.plan[d];
  double      L = 1, t = 0;
  for (Int e = d + 1; e < S.dim; e++) L *= S.n[e];
  const bool last = d == S.dim - 2;
  const Int  C    = last ? TeamRowsFor(S, (Int)L) : 0, Cs = last ? StoredTeamRows(S, (Int)L) : 0;
  for (Int i = 1; i <= P.k; i++) {
    const Level &lv = P.levels[i - 1];
    if (!lv.nmodes) continue;
    const double nin = lv.nrhs, nout = lv.nrhs; /* the block rows of J_{i-1}: right-hand sides and solutions */
    const double nsys = nb * lv.nmodes, nj = lv.nJ, nblk = lv.nblk;
    for (int back = 0; back < 2; back++) {
      if (!back && i == P.k) continue;
      const double update = back ? 0 : nb * (2 * nj) * L; /* the J_i rows read and written */
      const double edge   = back ? nb * 2 * nblk * L : 0;  /* the neighbour rows of the block-end corrections */
      if (C) {
        Int          G;
        const double gpb = GroupsPerBlock(S, lv, (Int)nb, ((Int)L + C - 1) / C, &G);
        const double out = nb * nblk * gpb * (back ? S.q - 1 : 2) * L;
        t += nb * nin * L + edge + out + update + (back && gpb > 1 ? out + nb * nout * L : 0) + (back ? 0 : out);
      } else {
        t += nb * nin * L + edge + (back ? 2 * edge : 0) + nsys * L /* G written */ + nsys * L /* read by the sums */ + (back ? nb * nout * L : 2 * nb * nblk * L * 2) + update;
        if (!last) t += Traffic(S, d + 1, nsys);
        else if (!Cs) t += 4 * nsys * L; /* kp_tridiag's partition method: its work arrays written and read */
        if (last && !S.fuse_rhs) t += 2 * nsys * L; /* right-hand sides formed apart: the solve reads G and writes it back */
      }
    }
  }
  return t;
}
} // namespace detail

using namespace detail;

std::string Eigen(const Factor &F, Int s, Int e, const std::vector<Int> &pos, std::vector<Real> &lambda, std::vector<Real> &comp, bool closed_form)
{
  std::string err = CheckFactor(F);
  if (!err.empty()) return err;
  if (s < 0 || e < s || e >= F.n()) return "the block is not within the factor";
  for (Int p : pos)
    if (p < 0 || p > e - s) return "a component row is not within the block";
  return BlockEigen(F, s, e, pos, lambda, comp, closed_form);
}

double ModelBytes(const Solver &S)
{
  if (S.dim < 2) return 2.0 * S.n[0] * sizeof(Scalar);
  return Traffic(S, 0, 1) * sizeof(Scalar);
}

std::string LevelPath(const Solver &S)
{
  if (S.dim < 2) return "one tridiagonal system";
  const Int L = S.n[S.dim - 1], C = TeamRowsFor(S, L), Cs = StoredTeamRows(S, L);
  const std::string rec = S.toeplitz && S.toep_last.on ? ", interior-Toeplitz recurrences" : "";
  if (C) return "fused level kernels, " + std::to_string(C) + " rows a thread" + rec;
  if (Cs) return "stored solutions, team tridiagonal solver, " + std::to_string(Cs) + " rows a thread" + rec;
  return "stored solutions, interleaved tridiagonal solvers";
}

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

ToeplitzFactor InteriorToeplitz(const Factor &F)
{
  ToeplitzFactor t;
  const Int      n = F.n();
  if (n < 3) return t;
  /* v[lo..hi] equal to v[lo] within 4 units of rounding of the largest of them (each array on its own scale: a mass
     matrix next to a stiffness of 1/h^2 keeps its own variations) */
  auto same = [&](const std::vector<Real> &v, Int lo, Int hi) {
    Real scale = 0;
    for (Int i = lo; i <= hi; i++) scale = std::max(scale, std::abs(v[i]));
    const Real tol = 4 * std::numeric_limits<Real>::epsilon() * scale;
    for (Int i = lo; i <= hi; i++)
      if (!(std::abs(v[i] - v[lo]) <= tol)) return false;
    return true;
  };
  if (!same(F.ao, 0, n - 2) || !same(F.ad, 1, n - 2)) return t;
  if (!F.md.empty() && !same(F.md, 1, n - 2)) return t;
  if (!F.mo.empty() && !same(F.mo, 0, n - 2)) return t;
  t.on  = true;
  t.ao  = F.ao[0];
  t.ad  = F.ad[1];
  t.ad0 = F.ad[0];
  t.adn = F.ad[n - 1];
  if (!F.md.empty()) t.md = F.md[1], t.md0 = F.md[0], t.mdn = F.md[n - 1];
  if (!F.mo.empty()) t.mo = F.mo[0];
  return t;
}

/* all eigenvalues of the pencil (A, M) of F, ascending: the closed form of a uniform factor, else those of the standard
   tridiagonal problem M^-1/2 A M^-1/2 (diagonal M) or of Crawford's reduction (tridiagonal M) by LAPACK's sterf */
static std::string PencilSpectrum(const Factor &F, std::vector<Real> &lambda)
{
  const Int    n = F.n();
  PetscBLASInt bn, info = 0;
  Real         ad, ao, md, mo;
  lambda.assign(n, 0);
  if (n == 0) return "";
  if (PetscBLASIntCast(n, &bn)) return "factor too large for LAPACK";
  if (ToeplitzBlock(F, 0, n, ad, ao, md, mo)) {
    for (Int k = 1; k <= n; k++) lambda[k - 1] = TwoCos(ad, ao, k, n) / TwoCos(md, mo, k, n);
    std::sort(lambda.begin(), lambda.end());
    return "";
  }
  std::vector<Real> d, sub;
  std::string       err = StandardTridiagonal(F, 0, n, d, sub, nullptr, nullptr);
  if (!err.empty()) return err;
  #if defined(PETSC_USE_COMPLEX)
  return "complex scalars are not supported";
  #else
  PETSCBLASREAL(sterf, STERF)(&bn, d.data(), sub.data(), &info);
  if (info) return "the eigenvalues of a factor did not converge (LAPACK sterf)";
  lambda = d; /* ascending */
  return "";
  #endif
}

std::string ShiftGap(Solver &S, Real c, Real *gap)
{
  if (S.have_min && c + S.min_sum > 0) {
    *gap = c + S.min_sum;
    return "";
  }
  if (S.spectra.size() != (size_t)S.dim) {
    S.spectra.assign(S.dim, std::vector<Real>());
    for (Int d = 0; d < S.dim; d++) {
      std::string e = PencilSpectrum(S.host[d], S.spectra[d]);
      if (!e.empty()) {
        S.spectra.clear();
        return e;
      }
    }
  }
  const std::vector<Real> &last = S.spectra[S.dim - 1];
  Real                     best = std::numeric_limits<Real>::infinity();
  auto                     nearest = [&](Real t) { /* min |t + lambda| over the last spectrum */
    const auto it = std::lower_bound(last.begin(), last.end(), -t);
    Real       g  = std::numeric_limits<Real>::infinity();
    if (it != last.end()) g = std::abs(t + *it);
    if (it != last.begin()) g = std::min(g, std::abs(t + *(it - 1)));
    return g;
  };
  if (S.dim == 1) best = nearest(c);
  else if (S.dim == 2)
    for (Real a : S.spectra[0]) best = std::min(best, nearest(c + a));
  else
    for (Real a : S.spectra[0])
      for (Real b : S.spectra[1]) best = std::min(best, nearest(c + a + b));
  *gap = best;
  return "";
}

std::string Setup(const std::vector<Factor> &F, Int q, Solver &S)
{
  S      = Solver();
  S.host = F;
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
    if (d == S.dim - 1) S.moff_last = !F[d].mo.empty(), S.toep_last = InteriorToeplitz(F[d]);
    /* extreme eigenvalues of the pencil (eigenvalues only; tridiagonal M: by bisection on the inertia of A - sigma M) */
    if (!F[d].mo.empty()) {
      if (!MassDefinite(F[d])) {
        S.have_min = false;
        continue;
      }
      const Real lmin = PencilEigT(F[d].ad, F[d].ao, F[d].md, F[d].mo, true), lmax = std::max(std::abs(lmin), std::abs(PencilEigT(F[d].ad, F[d].ao, F[d].md, F[d].mo, false)));
      S.min_sum += lmin;
      S.eig_scale += lmax;
      continue;
    }
    const Int         n = S.n[d];
    std::vector<Real> dd, ee;
    (void)StandardTridiagonal(F[d], 0, n, dd, ee, nullptr, nullptr); /* diagonal M: M^-1/2 A M^-1/2, no LAPACK */
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

/* ---- detection of the factors of a DMDA operator */
namespace detail
{
/* the grid point of global row g (binary search of the process; the last process whose first row is <= g owns it) */
KOKKOS_INLINE_FUNCTION void GlobalPoint(const View<Int> &start, const View<Int> &box, Int np, Int g, Int &i, Int &j, Int &k)
{
  Int a = 0, b = np - 1;
  while (a < b) {
    const Int m = (a + b + 1) / 2;
    if (start(m) <= g) a = m;
    else b = m - 1;
  }
  const Int o = g - start(a), xm = box(6 * a + 3), ym = box(6 * a + 4);
  i = box(6 * a) + o % xm;
  j = box(6 * a + 1) + (o / xm) % ym;
  k = box(6 * a + 2) + o / (xm * ym);
}

/* the point of local row r of the process with box b = (xs, ys, zs, xm, ym) */
KOKKOS_INLINE_FUNCTION void LocalPoint(const Int b[5], Int r, Int &i, Int &j, Int &k)
{
  i = b[0] + r % b[3];
  j = b[1] + (r / b[3]) % b[4];
  k = b[2] + r / (b[3] * b[4]);
}

inline void OwnBox(const GridLayout &L, Int rank, Int b[5], Int &nloc)
{
  Int h[6], st[2];
  Kokkos::deep_copy(exec(), HostUView<Int>(h, 6), Kokkos::subview(L.box, std::make_pair(6 * rank, 6 * rank + 6)));
  Kokkos::deep_copy(exec(), HostUView<Int>(st, 2), Kokkos::subview(L.start, std::make_pair(rank, rank + 2)));
  exec().fence();
  for (int t = 0; t < 5; t++) b[t] = h[t];
  nloc = st[1] - st[0];
}
} // namespace detail

namespace detail
{
/* y(natural point of p) = x(p) (to_natural) or y(p) = x(natural point of p), for the global rows p of the layout */
void Reorder(const GridLayout &L, UView<const Scalar> x, UView<Scalar> y, bool to_natural)
{
  const View<Int> start = L.start, box = L.box;
  const Int       np = L.np, g0 = L.gn[0], g1 = L.gn[1], n = (Int)x.extent(0);
  Kokkos::parallel_for(
    to_natural ? "petsckp::pscr::PetscToNatural" : "petsckp::pscr::NaturalToPetsc", range(n), KOKKOS_LAMBDA(Int p) {
      Int i, j, k;
      GlobalPoint(start, box, np, p, i, j, k);
      const Int g = (k * g1 + j) * g0 + i;
      if (to_natural) y(g) = x(p);
      else y(p) = x(g);
    });
}
} // namespace detail

void PetscToNatural(const GridLayout &L, UView<const Scalar> x, UView<Scalar> y) { detail::Reorder(L, x, y, true); }
void NaturalToPetsc(const GridLayout &L, UView<const Scalar> x, UView<Scalar> y) { detail::Reorder(L, x, y, false); }

Int StencilCoefficients(const GridLayout &L, Int rank, const Stencil &st, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Int> ghost, UView<Real> s, Int bad[2])
{
  Int b[5], nloc;
  detail::OwnBox(L, rank, b, nloc);
  const Int     M = L.gn[0], N = L.gn[1], np = L.np, b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3], b4 = b[4], w = st.w;
  const auto    start = L.start, box = L.box;
  const auto    dr = Ad.rowptr, dc = Ad.colidx, orp = Ao.rowptr, oc = Ao.colidx;
  const auto    dv = Ad.vals, ov = Ao.vals;
  const bool    off = Ao.nrows > 0, star = !st.box;
  const Stencil stc   = st;
  const int64_t Nt    = (int64_t)M * N * L.gn[2];
  Int           nbad  = 0;
  int64_t       first = Nt * Nt;
  Kokkos::parallel_reduce(
    "petsckp::pscr::StencilCoefficients", range(nloc),
    KOKKOS_LAMBDA(Int r, Int & cnt, int64_t & fst) {
      const Int bb[5] = {b0, b1, b2, b3, b4};
      Int       i, j, k;
      detail::LocalPoint(bb, r, i, j, k);
      const int64_t g = ((int64_t)k * N + j) * M + i;
      for (Int t = 0; t < w; t++) s(w * r + t) = 0;
      bool      rowbad = false;
      const Int li = i - b0, lj = j - b1, lk = k - b2, xy = b3 * b4, zm = nloc / (xy > 0 ? xy : 1);
      for (Int e = dr(r); e < dr(r + 1); e++) {
        if (dv(e) == (Scalar)0) continue;
        int slot = -1;
        if (star) {
          /* a local column: its offset from the row decides the star neighbour without divisions */
          const Int o = (Int)dc(e) - r;
          if (o == 0) slot = 0;
          else if (o == -1 && li > 0) slot = 1;
          else if (o == 1 && li + 1 < b3) slot = 2;
          else if (o == -b3 && lj > 0) slot = 3;
          else if (o == b3 && lj + 1 < b4) slot = 4;
          else if (o == -xy && lk > 0) slot = 5;
          else if (o == xy && lk + 1 < zm) slot = 6;
        }
        Int ci = i, cj = j, ck = k;
        if (slot < 0) {
          detail::LocalPoint(bb, dc(e), ci, cj, ck);
          slot = star ? -1 : stc.Slot(ci - i, cj - j, ck - k);
        }
        if (slot < 0) {
          const int64_t key = g * Nt + ((int64_t)ck * N + cj) * M + ci;
          fst               = key < fst ? key : fst;
          rowbad            = true;
        } else s(w * r + slot) = PetscRealPart(dv(e));
      }
      if (off)
        for (Int e = orp(r); e < orp(r + 1); e++) {
          if (ov(e) == (Scalar)0) continue;
          Int ci, cj, ck;
          detail::GlobalPoint(start, box, np, ghost(oc(e)), ci, cj, ck);
          const int slot = stc.Slot(ci - i, cj - j, ck - k);
          if (slot < 0) {
            const int64_t key = g * Nt + ((int64_t)ck * N + cj) * M + ci;
            fst               = key < fst ? key : fst;
            rowbad            = true;
          } else s(w * r + slot) = PetscRealPart(ov(e));
        }
      if (rowbad) cnt++;
    },
    nbad, Kokkos::Min<int64_t>(first));
  bad[0] = bad[1] = -1;
  if (nbad) bad[0] = (Int)(first / Nt), bad[1] = (Int)(first % Nt);
  return nbad;
}

Int StarCoefficients(const GridLayout &L, Int rank, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Int> ghost, UView<Real> s, Int bad[2]) { return StencilCoefficients(L, rank, Stencil::Star(), Ad, Ao, ghost, s, bad); }

void CoupledBox(const GridLayout &L, Int rank, const Stencil &st, UView<const Real> s, Int lo[3], Int hi[3], Real &amax)
{
  Int b[5], nloc;
  detail::OwnBox(L, rank, b, nloc);
  const Int b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3], b4 = b[4], w = st.w, ctr = st.center;
  Int       l0 = L.gn[0], l1 = L.gn[1], l2 = L.gn[2], h0 = -1, h1 = -1, h2 = -1;
  Real      m  = 0;
  Kokkos::parallel_reduce(
    "petsckp::pscr::CoupledBox", range(nloc),
    KOKKOS_LAMBDA(Int r, Int & a0, Int & a1, Int & a2, Int & c0, Int & c1, Int & c2, Real & mx) {
      const Int bb[5] = {b0, b1, b2, b3, b4};
      Int       i, j, k;
      detail::LocalPoint(bb, r, i, j, k);
      bool cpl = false;
      for (Int t = 0; t < w; t++) {
        const Real v = s(w * r + t) < 0 ? -s(w * r + t) : s(w * r + t);
        mx           = v > mx ? v : mx;
        if (t != ctr && s(w * r + t) != 0) cpl = true;
      }
      if (cpl) {
        a0 = i < a0 ? i : a0, a1 = j < a1 ? j : a1, a2 = k < a2 ? k : a2;
        c0 = i > c0 ? i : c0, c1 = j > c1 ? j : c1, c2 = k > c2 ? k : c2;
      }
    },
    Kokkos::Min<Int>(l0), Kokkos::Min<Int>(l1), Kokkos::Min<Int>(l2), Kokkos::Max<Int>(h0), Kokkos::Max<Int>(h1), Kokkos::Max<Int>(h2), Kokkos::Max<Real>(m));
  lo[0] = l0, lo[1] = l1, lo[2] = l2, hi[0] = h0, hi[1] = h1, hi[2] = h2;
  amax = m;
}

void CoupledBox(const GridLayout &L, Int rank, UView<const Real> s, Int lo[3], Int hi[3], Real &amax) { CoupledBox(L, rank, Stencil::Star(), s, lo, hi, amax); }

void BoxLines(const GridLayout &L, Int rank, UView<const Real> s, const Int lo[3], const Int bn[3], UView<Real> lines)
{
  Int b[5], nloc;
  detail::OwnBox(L, rank, b, nloc);
  const Int b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3], b4 = b[4];
  const Int l0 = lo[0], l1 = lo[1], l2 = lo[2], n0 = bn[0], n1 = bn[1], n2 = bn[2];
  /* offsets of ax, ay, az, dx, dy, dz */
  const Int oax = 0, oay = n0 - 1, oaz = oay + n1 - 1, odx = oaz + n2 - 1, ody = odx + n0, odz = ody + n1, nl = odz + n2;
  Kokkos::deep_copy(exec(), Kokkos::subview(lines, std::make_pair((Int)0, nl)), 0.0);
  Kokkos::parallel_for(
    "petsckp::pscr::BoxLines", range(nloc), KOKKOS_LAMBDA(Int r) {
      const Int bb[5] = {b0, b1, b2, b3, b4};
      Int       i, j, k;
      detail::LocalPoint(bb, r, i, j, k);
      const Int bi = i - l0, bj = j - l1, bk = k - l2;
      if (bj == 0 && bk == 0 && bi >= 0 && bi < n0) {
        if (bi + 1 < n0) lines(oax + bi) = s(7 * r + 2);
        lines(odx + bi) = s(7 * r);
      }
      if (bi == 0 && bk == 0 && bj >= 0 && bj < n1) {
        if (bj + 1 < n1) lines(oay + bj) = s(7 * r + 4);
        lines(ody + bj) = s(7 * r);
      }
      if (bi == 0 && bj == 0 && bk >= 0 && bk < n2) {
        if (bk + 1 < n2) lines(oaz + bk) = s(7 * r + 6);
        lines(odz + bk) = s(7 * r);
      }
    });
}

SeparableCount CheckSeparable(const GridLayout &L, Int rank, UView<const Real> s, const Int lo[3], const Int hi[3], UView<const Real> lines, Real tol)
{
  Int b[5], nloc;
  detail::OwnBox(L, rank, b, nloc);
  const Int  M = L.gn[0], N = L.gn[1], b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3], b4 = b[4];
  const Int  l0 = lo[0], l1 = lo[1], l2 = lo[2], h0 = hi[0], h1 = hi[1], h2 = hi[2];
  const Int  n0 = h0 - l0 + 1, n1 = h1 - l1 + 1, n2 = h2 - l2 + 1;
  const Int  oay = n0 - 1, oaz = oay + n1 - 1, odx = oaz + n2 - 1, ody = odx + n0, odz = ody + n1;
  const bool single = n0 == 1 && n1 == 1 && n2 == 1;
  SeparableCount c;
  int64_t        first = INT64_MAX;
  Kokkos::parallel_reduce(
    "petsckp::pscr::CheckSeparable", range(nloc),
    KOKKOS_LAMBDA(Int r, Int & nv, Int & no, Int & nc, int64_t & fst) {
      const Int bb[5] = {b0, b1, b2, b3, b4};
      Int       p[3];
      detail::LocalPoint(bb, r, p[0], p[1], p[2]);
      const int64_t g     = ((int64_t)p[2] * N + p[1]) * M + p[0];
      bool          dir   = true;
      for (int t = 1; t < 7; t++)
        if (s(7 * r + t) != 0) dir = false;
      const bool inbox = p[0] >= l0 && p[0] <= h0 && p[1] >= l1 && p[1] <= h1 && p[2] >= l2 && p[2] <= h2;
      int        code  = -1;
      if (!inbox) {
        no++;
        if (s(7 * r) == 0) code = 0;
      } else if (dir && !single) code = 1;
      else {
        const Int lo3[3] = {l0, l1, l2}, hi3[3] = {h0, h1, h2}, oa[3] = {0, oay, oaz};
        for (int d = 0; d < 3; d++)
          for (int sg = 0; sg < 2; sg++) {
            const Real v  = s(7 * r + 1 + 2 * d + sg);
            const Int  nb = p[d] + (sg ? 1 : -1);
            if (nb < lo3[d] || nb > hi3[d]) {
              if (v != 0) nc++;
              continue;
            }
            const Int  e   = p[d] - lo3[d] - (sg ? 0 : 1);
            const Real ref = lines(oa[d] + e);
            const Real dd  = v - ref;
            if (code < 0 && (dd > tol || -dd > tol)) code = 2 + 2 * d + sg;
          }
        const Real d0   = lines(odx);
        const Real dsep = lines(odx + p[0] - l0) - d0 + lines(ody + p[1] - l1) - d0 + lines(odz + p[2] - l2);
        const Real dd   = s(7 * r) - dsep;
        if (code < 0 && (dd > tol || -dd > tol)) code = 8;
      }
      if (code >= 0) {
        nv++;
        const int64_t key = 16 * g + code;
        fst               = key < fst ? key : fst;
      }
    },
    c.nviol, c.nout, c.ncpl, Kokkos::Min<int64_t>(first));
  c.first = c.nviol ? first : -1;
  return c;
}

void OutsideLists(const GridLayout &L, Int rank, const Stencil &st, UView<const Real> s, const Int lo[3], const Int hi[3], UView<Int> didx, UView<Real> dval, UView<Int> crow, UView<Int> ccol, UView<Real> cval)
{
  Int b[5], nloc;
  detail::OwnBox(L, rank, b, nloc);
  const Int     M = L.gn[0], N = L.gn[1], b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3], b4 = b[4];
  const Int     l0 = lo[0], l1 = lo[1], l2 = lo[2], h0 = hi[0], h1 = hi[1], h2 = hi[2];
  const Int     n0 = h0 - l0 + 1, n1 = h1 - l1 + 1, w = st.w, ctr = st.center;
  const Stencil stc = st;
  View<Int>     od("pscr outside offsets", nloc + 1), oc("pscr coupling offsets", nloc + 1);
  Kokkos::parallel_for(
    "petsckp::pscr::OutsideCount", range(nloc), KOKKOS_LAMBDA(Int r) {
      const Int bb[5] = {b0, b1, b2, b3, b4};
      Int       p[3];
      detail::LocalPoint(bb, r, p[0], p[1], p[2]);
      const Int  lo3[3] = {l0, l1, l2}, hi3[3] = {h0, h1, h2};
      const bool inbox  = p[0] >= l0 && p[0] <= h0 && p[1] >= l1 && p[1] <= h1 && p[2] >= l2 && p[2] <= h2;
      Int        m      = 0;
      if (inbox)
        for (Int t = 0; t < w; t++) {
          if (t == ctr || s(w * r + t) == 0) continue;
          Int o[3];
          stc.Offset((int)t, o);
          bool out = false;
          for (int d = 0; d < 3; d++) out = out || p[d] + o[d] < lo3[d] || p[d] + o[d] > hi3[d];
          if (out) m++;
        }
      od(r) = inbox ? 0 : 1;
      oc(r) = m;
    });
  ExclusiveScan(od, nloc, "petsckp::pscr::OutsideScan");
  ExclusiveScan(oc, nloc, "petsckp::pscr::CouplingScan");
  Kokkos::parallel_for(
    "petsckp::pscr::OutsideLists", range(nloc), KOKKOS_LAMBDA(Int r) {
      const Int bb[5] = {b0, b1, b2, b3, b4};
      Int       p[3];
      detail::LocalPoint(bb, r, p[0], p[1], p[2]);
      const Int lo3[3] = {l0, l1, l2}, hi3[3] = {h0, h1, h2};
      const Int g      = (p[2] * N + p[1]) * M + p[0];
      if (od(r + 1) > od(r)) {
        didx(od(r)) = g;
        dval(od(r)) = s(w * r + ctr);
        return;
      }
      Int c = oc(r);
      for (Int t = 0; t < w; t++) {
        const Real v = s(w * r + t);
        if (t == ctr || v == 0) continue;
        Int o[3], q[3];
        stc.Offset((int)t, o);
        bool out = false;
        for (int d = 0; d < 3; d++) q[d] = p[d] + o[d], out = out || q[d] < lo3[d] || q[d] > hi3[d];
        if (!out) continue;
        crow(c) = ((p[2] - l2) * n1 + p[1] - l1) * n0 + p[0] - l0;
        ccol(c) = (q[2] * N + q[1]) * M + q[0];
        cval(c) = v;
        c++;
      }
    });
}

void OutsideLists(const GridLayout &L, Int rank, UView<const Real> s, const Int lo[3], const Int hi[3], UView<Int> didx, UView<Real> dval, UView<Int> crow, UView<Int> ccol, UView<Real> cval) { OutsideLists(L, rank, Stencil::Star(), s, lo, hi, didx, dval, crow, ccol, cval); }

Int LinePair(const Int bn[3], int d)
{
  for (int k = 1; k < 3; k++) {
    const int e = (d + k) % 3;
    if (bn[e] > 1) return e;
  }
  return -1;
}

Int BoxLinesLength(const Int bn[3]) { return 4 * (bn[0] + bn[1] + bn[2]) + 8; }

void StencilLines(const GridLayout &L, Int rank, const Stencil &st, UView<const Real> s, const Int lo[3], const Int bn[3], UView<Real> lines)
{
  Int b[5], nloc;
  detail::OwnBox(L, rank, b, nloc);
  const Int     b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3], b4 = b[4], w = st.w, nl = BoxLinesLength(bn);
  const Int     l0 = lo[0], l1 = lo[1], l2 = lo[2], n0 = bn[0], n1 = bn[1], n2 = bn[2];
  const int     pr0 = (int)LinePair(bn, 0), pr1 = (int)LinePair(bn, 1), pr2 = (int)LinePair(bn, 2);
  const Stencil stc = st;
  Kokkos::deep_copy(exec(), Kokkos::subview(lines, std::make_pair((Int)0, nl)), 0.0);
  Kokkos::parallel_for(
    "petsckp::pscr::StencilLines", range(nloc), KOKKOS_LAMBDA(Int r) {
      const Int bb[5] = {b0, b1, b2, b3, b4};
      Int       p[3];
      detail::LocalPoint(bb, r, p[0], p[1], p[2]);
      const Int q[3] = {p[0] - l0, p[1] - l1, p[2] - l2}, n[3] = {n0, n1, n2}, o0[3] = {0, 4 * n0, 4 * (n0 + n1)};
      const int pr[3] = {pr0, pr1, pr2};
      auto      at    = [&](Int ox, Int oy, Int oz) {
        const int t = stc.Slot(ox, oy, oz);
        return t < 0 ? (Real)0 : s(w * r + t);
      };
      for (int d = 0; d < 3; d++) {
        bool on = q[d] >= 0 && q[d] < n[d];
        for (int e = 0; e < 3; e++)
          if (e != d && q[e] != 0) on = false;
        if (!on) continue;
        const Int base = o0[d] + 4 * q[d];
        Int       u[3] = {0, 0, 0}, v[3] = {0, 0, 0};
        u[d]           = 1;
        lines(base)    = at(0, 0, 0);
        if (q[d] + 1 < n[d]) lines(base + 1) = at(u[0], u[1], u[2]);
        if (pr[d] >= 0) {
          v[pr[d]]        = 1;
          lines(base + 2) = at(v[0], v[1], v[2]);
          if (q[d] + 1 < n[d]) lines(base + 3) = at(u[0] + v[0], u[1] + v[1], u[2] + v[2]);
        }
      }
      if (q[0] == 0 && q[1] == 0 && q[2] == 0)
        for (int t = 0; t < 8; t++) {
          const Int ox = t & 1, oy = (t >> 1) & 1, oz = (t >> 2) & 1;
          if ((ox && n0 < 2) || (oy && n1 < 2) || (oz && n2 < 2)) continue;
          lines(4 * (n0 + n1 + n2) + t) = at(ox, oy, oz);
        }
    });
}

namespace detail
{
/* The recovery of the factors from the lines is done in extended precision (long double, on the host, O(n)): the mass
   factor of an axis is a combination of the two line stencils in which their (larger, by about 1 / h^2) stiffness
   parts cancel, so in double the factors would reproduce the operator only to about eps (h_d / h_e)^2, and PSCR's
   backward error would follow. */
using LReal = long double;
using LVec  = std::vector<LReal>;

/* a symmetric tridiagonal matrix (d, o): +1 positive definite, -1 negative definite, 0 otherwise (the pivots of its
   LDL^T factorisation, each beyond a small relative margin) */
int Definiteness(const LVec &d, const LVec &o)
{
  const Int n     = (Int)d.size();
  LReal     scale = 0;
  for (Int i = 0; i < n; i++) scale = std::max(scale, std::max(std::abs(d[i]), i + 1 < n ? std::abs(o[i]) : (LReal)0));
  if (!(scale > 0) || !std::isfinite((double)scale)) return 0;
  const LReal tol  = 64 * (LReal)std::numeric_limits<Real>::epsilon() * scale;
  const int   sign = d[0] > 0 ? 1 : -1;
  LReal       piv  = 0;
  for (Int i = 0; i < n; i++) {
    piv = d[i] - (i > 0 ? o[i - 1] * o[i - 1] / piv : 0);
    if (!(sign * piv > tol)) return 0;
  }
  return sign;
}

/* an eigenvalue estimate of the pencil for the choices of the balancing (in double, iters bisection steps: the choices
   need not be exact, the factors stay exact in any case) */
LReal PencilEig(const LVec &ad, const LVec &ao, const LVec &md, const LVec &mo, bool smallest, int iters = 60)
{
  const std::vector<Real> a(ad.begin(), ad.end()), b(ao.begin(), ao.end()), c(md.begin(), md.end()), d(mo.begin(), mo.end());
  return PencilEigT(a, b, c, d, smallest, iters);
}

/* the 1D 3-point stencils of the lines of axis d (Y_d^0, Y_d^1) and their combinations c0 Y_d^0 + c1 Y_d^1 */
struct Lines {
  const Int               *bn;
  const std::vector<Real> *v;
  LReal Y(int d, int a, Int i, int o) const
  {
    const Int off = d == 0 ? 0 : (d == 1 ? 4 * bn[0] : 4 * (bn[0] + bn[1]));
    return (*v)[off + 4 * i + 2 * a + o];
  }
  LReal Corner(int t) const { return (*v)[4 * (bn[0] + bn[1] + bn[2]) + t]; }
  void  Comb(int d, LReal c0, LReal c1, LVec &dg, LVec &of) const
  {
    const Int n = bn[d];
    dg.resize(n);
    of.assign(n > 1 ? n - 1 : 0, 0);
    for (Int i = 0; i < n; i++) {
      dg[i] = c0 * Y(d, 0, i, 0) + c1 * Y(d, 1, i, 0);
      if (i + 1 < n) of[i] = c0 * Y(d, 0, i, 1) + c1 * Y(d, 1, i, 1);
    }
  }
  /* B_d(o, a) = Y_d^a(0, o): the two stencils at the first point, inverted; false when singular */
  bool InvB(int d, LReal Bi[2][2]) const
  {
    const LReal b00 = Y(d, 0, 0, 0), b01 = Y(d, 1, 0, 0), b10 = Y(d, 0, 0, 1), b11 = Y(d, 1, 0, 1);
    const LReal det = b00 * b11 - b01 * b10, nrm = std::max(std::max(std::abs(b00), std::abs(b01)), std::max(std::abs(b10), std::abs(b11)));
    if (!(std::abs(det) > 1e-12L * nrm * nrm)) return false;
    Bi[0][0] = b11 / det, Bi[0][1] = -b01 / det, Bi[1][0] = -b10 / det, Bi[1][1] = b00 / det;
    return true;
  }
};
} // namespace detail

std::string SeparableFromLines(const Int bn[3], const std::vector<Real> &lines, Factor F[3], bool *definite)
{
  using detail::LReal;
  using detail::LVec;
  const char       axis[3] = {'x', 'y', 'z'};
  const LReal      PI      = 3.141592653589793238462643383279502884L;
  detail::Lines    Y{bn, &lines};
  std::vector<int> act;
  LVec             A[3], Ao[3], Md[3], Mo[3];
  *definite = true;
  for (int d = 0; d < 3; d++) {
    F[d]    = Factor();
    F[d].ad = {0};
    if (bn[d] > 1) act.push_back(d);
  }
  if ((Int)lines.size() != BoxLinesLength(bn)) return "the lines have the wrong length";
  if (act.empty()) { /* one point */
    F[0].ad = {(Real)Y.Corner(0)};
    return "";
  }
  if (act.size() == 1) { /* one tridiagonal system */
    const int d = act[0];
    LVec      dg, of;
    Y.Comb(d, 1, 0, dg, of);
    F[d].ad.assign(dg.begin(), dg.end());
    F[d].ao.assign(of.begin(), of.end());
    return "";
  }
  LReal Bi[3][2][2];
  for (int d : act)
    if (!Y.InvB(d, Bi[d])) return std::string("the stencils of the line along ") + axis[d] + " through the first point of the box are linearly dependent (a degenerate operator)";
  if (act.size() == 2) {
    /* K = B_v^-1 C B_u^-T, C(ov, ou) the coefficients of the first point; A = sum K(b, a) Y_v^b (x) Y_u^a */
    const int u = act[0], v = act[1];
    LReal     C[2][2], K[2][2] = {{0, 0}, {0, 0}};
    for (int ov = 0; ov < 2; ov++)
      for (int ou = 0; ou < 2; ou++) C[ov][ou] = Y.Corner((ov << v) | (ou << u));
    for (int b = 0; b < 2; b++)
      for (int a = 0; a < 2; a++)
        for (int ov = 0; ov < 2; ov++)
          for (int ou = 0; ou < 2; ou++) K[b][a] += Bi[v][b][ov] * C[ov][ou] * Bi[u][a][ou];
    /* m_v = Y_v p, a_v = Y_v Jp (Jp = p rotated by pi / 2), m_u = Y_u (Jp)^T K, a_u = Y_u p^T K: exact for every p */
    auto factors = [&](LReal th, LVec &mvd, LVec &mvo, LVec &mud, LVec &muo, LVec *avd, LVec *avo, LVec *aud, LVec *auo) {
      const LReal p[2] = {std::cos(th), std::sin(th)}, jp[2] = {-p[1], p[0]};
      LReal       g0[2], g1[2];
      for (int a = 0; a < 2; a++) g0[a] = jp[0] * K[0][a] + jp[1] * K[1][a], g1[a] = p[0] * K[0][a] + p[1] * K[1][a];
      Y.Comb(v, p[0], p[1], mvd, mvo);
      Y.Comb(u, g0[0], g0[1], mud, muo);
      if (avd) Y.Comb(v, jp[0], jp[1], *avd, *avo);
      if (aud) Y.Comb(u, g1[0], g1[1], *aud, *auo);
    };
    /* a direction p (an angle in [0, pi): p and -p give the same factors up to signs) where both mass factors are
       definite: the centre of the longest (cyclic) run on a grid of angles; the balancing below then moves it */
    Int               nt = 0, best = 0, bstart = 0;
    std::vector<char> ok;
    LVec              mvd, mvo, mud, muo;
    for (Int grid : {64, 1024}) { /* a finer grid only when the coarse one finds none */
      nt = grid;
      ok.assign(nt, 0);
      for (Int t = 0; t < nt; t++) {
        factors(PI * t / nt, mvd, mvo, mud, muo, nullptr, nullptr, nullptr, nullptr);
        ok[t] = detail::Definiteness(mvd, mvo) != 0 && detail::Definiteness(mud, muo) != 0;
      }
      best = 0, bstart = 0;
      for (Int t = 0; t < nt; t++) {
        if (!ok[t] || ok[(t + nt - 1) % nt]) continue; /* the start of a run */
        Int len = 0;
        while (len < nt && ok[(t + len) % nt]) len++;
        if (len > best) best = len, bstart = t;
      }
      if (best == 0 && ok[0]) best = nt; /* every direction */
      if (best) break;
    }
    if (!best) *definite = false;
    const LReal th = best ? PI * ((LReal)bstart + 0.5L * (LReal)(best - 1)) / nt : 0;
    factors(th, Md[v], Mo[v], Md[u], Mo[u], &A[v], &Ao[v], &A[u], &Ao[u]);
  } else {
    /* K = (B_z^-1 (x) B_y^-1 (x) B_x^-1) C, C(oz, oy, ox) the coefficients of the first point; A = sum K(c, b, a)
       Y_z^c (x) Y_y^b (x) Y_x^a */
    LReal K[2][2][2] = {}, Kp[2][2][2] = {};
    for (int c = 0; c < 2; c++)
      for (int b = 0; b < 2; b++)
        for (int a = 0; a < 2; a++)
          for (int t = 0; t < 8; t++) K[c][b][a] += Bi[2][c][(t >> 2) & 1] * Bi[1][b][(t >> 1) & 1] * Bi[0][a][t & 1] * Y.Corner(t);
    LReal knorm = 0;
    for (int t = 0; t < 8; t++) knorm = std::max(knorm, std::abs(K[t >> 2][(t >> 1) & 1][t & 1]));
    /* the mass direction r_d of mode d: the double root of det(phi_0 S_0 + phi_1 S_1), S_i the slices of K with index
       i along mode d; phi(m_d) = 0 */
    LReal r[3][2];
    for (int d = 0; d < 3; d++) {
      LReal S[2][2][2];
      for (int i = 0; i < 2; i++)
        for (int x = 0; x < 2; x++)
          for (int y = 0; y < 2; y++) {
            int idx[3];
            idx[d]           = i;
            idx[(d + 1) % 3] = x;
            idx[(d + 2) % 3] = y;
            S[i][x][y]       = K[idx[2]][idx[1]][idx[0]];
          }
      const LReal qa = S[0][0][0] * S[0][1][1] - S[0][0][1] * S[0][1][0], qc = S[1][0][0] * S[1][1][1] - S[1][0][1] * S[1][1][0];
      const LReal qb = S[0][0][0] * S[1][1][1] + S[1][0][0] * S[0][1][1] - S[0][0][1] * S[1][1][0] - S[1][0][1] * S[0][1][0];
      if (!(std::max(std::max(std::abs(qa), std::abs(qb)), std::abs(qc)) > 1e-13L * knorm * knorm)) return std::string("the box stencil does not determine the mass factor along ") + axis[d] + " (a degenerate operator)";
      const LReal phi[2] = {std::abs(qa) >= std::abs(qc) ? -qb : 2 * qc, std::abs(qa) >= std::abs(qc) ? 2 * qa : -qb};
      const LReal nr     = std::sqrt(phi[0] * phi[0] + phi[1] * phi[1]);
      r[d][0] = phi[1] / nr, r[d][1] = -phi[0] / nr;
    }
    /* the core in the bases (a_d, m_d) = (Y_d J r_d, Y_d r_d) (orthogonal changes of the coefficients) */
    LReal P[3][2][2];
    for (int d = 0; d < 3; d++) P[d][0][0] = -r[d][1], P[d][0][1] = r[d][0], P[d][1][0] = r[d][0], P[d][1][1] = r[d][1]; /* rows: the a and m coefficients */
    for (int c = 0; c < 2; c++)
      for (int b = 0; b < 2; b++)
        for (int a = 0; a < 2; a++)
          for (int t = 0; t < 8; t++) Kp[c][b][a] += P[2][c][(t >> 2) & 1] * P[1][b][(t >> 1) & 1] * P[0][a][t & 1] * K[(t >> 2) & 1][(t >> 1) & 1][t & 1];
    /* the entries with two or three a's vanish for a separable operator; a clear defect: not separable */
    const LReal defect = std::max(std::max(std::abs(Kp[0][0][0]), std::abs(Kp[0][0][1])), std::max(std::abs(Kp[0][1][0]), std::abs(Kp[1][0][0])));
    if (defect > 1e-8L * knorm) return "its 27 coefficients at the first point of the box and the lines through it are not those of a separable operator A_z (x) M_y (x) M_x + M_z (x) A_y (x) M_x + M_z (x) M_y (x) A_x with tridiagonal factors (a variable coefficient?)";
    for (int d = 0; d < 3; d++) Y.Comb(d, r[d][0], r[d][1], Md[d], Mo[d]);
    const LReal coef[3] = {Kp[1][1][0], Kp[1][0][1], Kp[0][1][1]};
    for (int d = 0; d < 3; d++) Y.Comb(d, coef[d] * P[d][0][0], coef[d] * P[d][0][1], A[d], Ao[d]);
    for (Int i = 0; i < bn[0]; i++) A[0][i] += Kp[1][1][1] * Md[0][i]; /* the shift c M_z (x) M_y (x) M_x */
    for (Int i = 0; i + 1 < bn[0]; i++) Ao[0][i] += Kp[1][1][1] * Mo[0][i];
  }
  /* positive mass factors: M_d -> -M_d and every other A_e -> -A_e keep the sum */
  for (int d : act) {
    if (detail::Definiteness(Md[d], Mo[d]) >= 0) continue;
    for (auto &x : Md[d]) x = -x;
    for (auto &x : Mo[d]) x = -x;
    for (int e : act)
      if (e != d) {
        for (auto &x : A[e]) x = -x;
        for (auto &x : Ao[e]) x = -x;
      }
  }
  for (int d : act)
    if (detail::Definiteness(Md[d], Mo[d]) <= 0) *definite = false;
  /* balanced factors: the decomposition is not unique (A_d -> A_d + s_d M_d with sum_d s_d = 0; in 2D also
     M_v -> M_v + t A_v, M_u -> M_u - t A_u), and a poor one loses accuracy: an A_u holding a large multiple of M_u
     forms the shifted systems A_u + lambda M_u of PSCR with cancellation for the smallest lambda, and a nearly singular
     M_v spoils the eigenvectors of (A_v, M_v). Taken: the shifts that make the smallest eigenvalues of the pencils
     (A_d, M_d) equal, and in 2D the t (within the interval where both masses stay definite) that makes the worse
     conditioned of M_u, M_v best conditioned, by golden section: moving from the true mass matrices raises the largest
     eigenvalue of one and lowers the smallest of the other, so this recovers them (e.g. the consistent masses of a
     tensor mesh, kappa about 3) and the residuals of the solves with the detected factors are those with the true
     ones. */
  if (*definite) {
    auto pe    = [&](int d, bool smallest) { return detail::PencilEig(A[d], Ao[d], Md[d], Mo[d], smallest); };
    auto shift = [&](int d, LReal sh) { /* A_d += sh M_d */
      for (Int i = 0; i < bn[d]; i++) A[d][i] += sh * Md[d][i];
      for (Int i = 0; i + 1 < bn[d]; i++) Ao[d][i] += sh * Mo[d][i];
    };
    auto balance_min = [&]() {
      LReal lmin[3] = {0, 0, 0}, mean = 0;
      for (int d : act) lmin[d] = pe(d, true), mean += lmin[d] / (LReal)act.size();
      for (int d : act) shift(d, mean - lmin[d]);
      return mean;
    };
    const LReal mean = balance_min();
    if (act.size() == 2 && mean > 0) {
      const int   u = act[0], v = act[1];
      const LReal lmax = pe(v, false), mmax = pe(u, false);
      auto        masses = [&](LReal t, LVec &mvd, LVec &mvo, LVec &mud, LVec &muo) { /* M_v + t A_v, M_u - t A_u */
        mvd = Md[v], mvo = Mo[v], mud = Md[u], muo = Mo[u];
        for (Int i = 0; i < bn[v]; i++) mvd[i] += t * A[v][i];
        for (Int i = 0; i + 1 < bn[v]; i++) mvo[i] += t * Ao[v][i];
        for (Int i = 0; i < bn[u]; i++) mud[i] -= t * A[u][i];
        for (Int i = 0; i + 1 < bn[u]; i++) muo[i] -= t * Ao[u][i];
      };
      const LVec none;
      LVec       mvd, mvo, mud, muo;
      auto       invkappa = [&](LReal t) { /* 1 / kappa of the worse conditioned mass, to about 1e-7 */
        masses(t, mvd, mvo, mud, muo);
        const LReal kv = detail::PencilEig(mvd, mvo, none, none, true, 24) / detail::PencilEig(mvd, mvo, none, none, false, 24);
        const LReal ku = detail::PencilEig(mud, muo, none, none, true, 24) / detail::PencilEig(mud, muo, none, none, false, 24);
        return std::min(kv, ku);
      };
      if (lmax > 0 && mmax > 0) {
        const LReal gr = 0.6180339887498948482L;
        LReal       a = -1 / lmax, b = 1 / mmax, c = b - gr * (b - a), d = a + gr * (b - a), fc = invkappa(c), fd = invkappa(d);
        for (int it = 0; it < 40; it++) {
          if (fc >= fd) b = d, d = c, fd = fc, c = b - gr * (b - a), fc = invkappa(c);
          else a = c, c = d, fc = fd, d = a + gr * (b - a), fd = invkappa(d);
        }
        const LReal t = fc >= fd ? c : d, f0 = invkappa(0);
        masses(t, mvd, mvo, mud, muo);
        if (std::max(fc, fd) > f0 && detail::Definiteness(mvd, mvo) > 0 && detail::Definiteness(mud, muo) > 0) {
          Md[v] = mvd, Mo[v] = mvo, Md[u] = mud, Mo[u] = muo;
          balance_min();
        }
      }
    }
  }
  /* scaled mass factors: M_d -> M_d / s_d and every other A_e -> s_d A_e keep the sum */
  for (int d : act) {
    LReal sc = 0;
    for (LReal x : Md[d]) sc = std::max(sc, std::abs(x));
    if (!(sc > 0)) sc = 1;
    for (auto &x : Md[d]) x /= sc;
    for (auto &x : Mo[d]) x /= sc;
    for (int e : act)
      if (e != d) {
        for (auto &x : A[e]) x *= sc;
        for (auto &x : Ao[e]) x *= sc;
      }
  }
  for (int d : act) {
    F[d].ad.assign(A[d].begin(), A[d].end());
    F[d].ao.assign(Ao[d].begin(), Ao[d].end());
    F[d].md.assign(Md[d].begin(), Md[d].end());
    bool tri = false;
    for (LReal x : Mo[d]) tri = tri || x != 0;
    if (tri) F[d].mo.assign(Mo[d].begin(), Mo[d].end());
  }
  return "";
}

std::vector<Real> PackFactors(const Int bn[3], const Factor F[3])
{
  std::vector<Real> fac((size_t)4 * (bn[0] + bn[1] + bn[2]), 0);
  Int               off = 0;
  for (int d = 0; d < 3; d++) {
    for (Int i = 0; i < bn[d]; i++) {
      const bool more      = i + 1 < bn[d];
      fac[off + 4 * i]     = i < F[d].n() ? F[d].ad[i] : 0;
      fac[off + 4 * i + 1] = more && i + 1 < F[d].n() ? F[d].ao[i] : 0;
      fac[off + 4 * i + 2] = F[d].md.empty() ? 1 : F[d].md[i];
      fac[off + 4 * i + 3] = more && !F[d].mo.empty() ? F[d].mo[i] : 0;
    }
    off += 4 * bn[d];
  }
  return fac;
}

namespace detail
{
/* sum_d A_d(b_d, o_d) prod_{e != d} M_e(b_e, o_e) from the packed factors fac(off_d + 4 i + t) */
template <class FAC>
KOKKOS_INLINE_FUNCTION Real SepCoef(const FAC &fac, const Int off[3], const Int b[3], const Int o[3])
{
  Real a[3], m[3];
  for (int d = 0; d < 3; d++) {
    const Int i = o[d] < 0 ? b[d] - 1 : b[d], t = o[d] == 0 ? 0 : 1;
    a[d]        = fac(off[d] + 4 * i + t);
    m[d]        = fac(off[d] + 4 * i + 2 + t);
  }
  return a[0] * m[1] * m[2] + m[0] * a[1] * m[2] + m[0] * m[1] * a[2];
}
} // namespace detail

Real SeparableCoefficient(const Int bn[3], const std::vector<Real> &fac, const Int b[3], const Int o[3])
{
  const Int off[3] = {0, 4 * bn[0], 4 * (bn[0] + bn[1])};
  return detail::SepCoef([&](Int k) { return fac[k]; }, off, b, o);
}

SeparableCount CheckSeparableBox(const GridLayout &L, Int rank, const Stencil &st, UView<const Real> s, const Int lo[3], const Int hi[3], UView<const Real> fac, Real tol)
{
  Int b[5], nloc;
  detail::OwnBox(L, rank, b, nloc);
  const Int      M = L.gn[0], N = L.gn[1], b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3], b4 = b[4], w = st.w, ctr = st.center;
  const Int      l0 = lo[0], l1 = lo[1], l2 = lo[2], h0 = hi[0], h1 = hi[1], h2 = hi[2];
  const Int      n0 = h0 - l0 + 1, n1 = h1 - l1 + 1, n2 = h2 - l2 + 1;
  const bool     single = n0 == 1 && n1 == 1 && n2 == 1;
  const Stencil  stc    = st;
  SeparableCount c;
  int64_t        first = INT64_MAX;
  Kokkos::parallel_reduce(
    "petsckp::pscr::CheckSeparableBox", range(nloc),
    KOKKOS_LAMBDA(Int r, Int & nv, Int & no, Int & nc, int64_t & fst, Real & dmax) {
      const Int bb[5] = {b0, b1, b2, b3, b4};
      Int       p[3];
      detail::LocalPoint(bb, r, p[0], p[1], p[2]);
      const int64_t g   = ((int64_t)p[2] * N + p[1]) * M + p[0];
      bool          dir = true;
      for (Int t = 0; t < w; t++)
        if (t != ctr && s(w * r + t) != 0) dir = false;
      const bool inbox = p[0] >= l0 && p[0] <= h0 && p[1] >= l1 && p[1] <= h1 && p[2] >= l2 && p[2] <= h2;
      int        code  = -1;
      if (!inbox) {
        no++;
        if (s(w * r + ctr) == 0) code = 0;
      } else if (dir && !single) code = 1;
      else {
        const Int lo3[3] = {l0, l1, l2}, hi3[3] = {h0, h1, h2}, off[3] = {0, 4 * n0, 4 * (n0 + n1)};
        const Int bx[3]  = {p[0] - l0, p[1] - l1, p[2] - l2};
        for (Int t = 0; t < w; t++) {
          Int o[3];
          stc.Offset((int)t, o);
          bool out = false;
          for (int d = 0; d < 3; d++) out = out || p[d] + o[d] < lo3[d] || p[d] + o[d] > hi3[d];
          const Real v = s(w * r + t);
          if (out) {
            if (v != 0) nc++;
            continue;
          }
          const Real dd = v - detail::SepCoef(fac, off, bx, o), ad = dd < 0 ? -dd : dd;
          dmax          = ad > dmax ? ad : dmax;
          if (code < 0 && ad > tol) code = 2 + (int)t;
        }
      }
      if (code >= 0) {
        nv++;
        const int64_t key = 32 * g + code;
        fst               = key < fst ? key : fst;
      }
    },
    c.nviol, c.nout, c.ncpl, Kokkos::Min<int64_t>(first), Kokkos::Max<Real>(c.defect));
  c.first = c.nviol ? first : -1;
  return c;
}

Real CoefficientAt(const GridLayout &L, Int rank, const Stencil &st, UView<const Real> s, Int g, int t)
{
  Int b[5], nloc;
  detail::OwnBox(L, rank, b, nloc);
  const Int M = L.gn[0], N = L.gn[1], w = st.w;
  const Int i = g % M, j = (g / M) % N, k = g / (M * N);
  const Int li = i - b[0], lj = j - b[1], lk = k - b[2];
  if (li < 0 || lj < 0 || lk < 0 || li >= b[3] || lj >= b[4] || (nloc && lk >= nloc / (b[3] * b[4])) || !nloc) return 0;
  const Int at = w * ((lk * b[4] + lj) * b[3] + li) + t;
  Real      v  = 0;
  Kokkos::deep_copy(exec(), HostUView<Real>(&v, 1), Kokkos::subview(s, std::make_pair(at, at + 1)));
  exec().fence();
  return v;
}

Real StarCoefficientAt(const GridLayout &L, Int rank, UView<const Real> s, Int g, int t) { return CoefficientAt(L, rank, Stencil::Star(), s, g, t); }

} // namespace pscr
} // namespace petsckp
