/*
   kp_dense.cxx - small dense SPD matrices: host factorisation with LAPACK, device solves with Kokkos.
*/
#include "kp_dense.hpp"
#include <petscblaslapack.h>
#include <vector>

namespace petsckp
{
/* the matrix and the cure named in the error messages: deflation's E = Z^T A Z by default, else the caller's */
struct DenseSpdMessages {
  const char *name, *luhint, *cholhint, *pivhint, *sizehint;
  explicit DenseSpdMessages(const char *what)
  {
    name     = what ? what : "The coarse matrix E = Z^T A Z";
    luhint   = what ? "The operator is singular (e.g. a pure Neumann problem: fix one value) or nearly so" : "The deflation space is rank-deficient (dependent vectors) or contains a null vector of A";
    cholhint = what ? "The operator is singular or indefinite, or not symmetric positive definite" : "E is singular or indefinite: the deflation vectors are linearly dependent (rank-deficient Z), or A is not SPD";
    pivhint  = what ? "The operator is singular (e.g. a pure Neumann problem: fix one value) or nearly so" : "The deflation space is rank-deficient (dependent vectors) or contains a null vector of A (e.g. the constant with pure Neumann conditions): drop a vector or make A nonsingular";
    sizehint = what ? "use a smaller coarse size" : "use fewer deflation vectors";
  }
};

/* the error of a non-positive diagonal entry ejj in row j */
static PetscErrorCode CheckDiagonal(MPI_Comm comm, Int j, Scalar ejj, const char *what)
{
  PetscFunctionBegin;
  if (what) PetscCheck(PetscRealPart(ejj) > 0, comm, PETSC_ERR_MAT_CH_ZRPVT, "%s has diagonal entry %g in row %" PetscInt_FMT ": it is not positive definite (a Cholesky factorisation needs an SPD operator)", what, (double)PetscRealPart(ejj), j);
  else PetscCheck(PetscRealPart(ejj) > 0, comm, PETSC_ERR_MAT_CH_ZRPVT, "The coarse matrix E = Z^T A Z has diagonal entry %g in row %" PetscInt_FMT ": E is not positive definite; deflation vector %" PetscInt_FMT " is zero or A is not SPD", (double)PetscRealPart(ejj), j, j);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DenseSpdSetUp(MPI_Comm comm, Int d, const Scalar *E, DenseSpdForm form, Real rtol, DenseSpd &S, const char *what)
{
  const DenseSpdMessages msg(what);
  const char            *name = msg.name, *luhint = msg.luhint, *cholhint = msg.cholhint, *pivhint = msg.pivhint, *sizehint = msg.sizehint;
  std::vector<Scalar> F;
  PetscBLASInt        n, info = 0;
  Real                minpiv = PETSC_MAX_REAL;
  Int                 jmin   = 0;

  PetscFunctionBegin;
  PetscCheck(d <= 46340, comm, PETSC_ERR_SUP, "Dense coarse matrices are limited to d <= 46340 (index range); got d = %" PetscInt_FMT ", %s", d, sizehint);
  PetscCall(PetscBLASIntCast(d, &n));
  PetscCallCXX(F.assign(E, E + (size_t)d * d));
  /* a nonsymmetric E (from a nonsymmetric A, e.g. Dirichlet rows kept as identity rows): explicit inverse by LU */
  {
    Real asym = 0, emax = 0;
    for (Int j = 0; j < d; j++)
      for (Int i = 0; i < d; i++) {
        asym = PetscMax(asym, PetscAbsScalar(E[i + (size_t)j * d] - E[j + (size_t)i * d]));
        emax = PetscMax(emax, PetscAbsScalar(E[i + (size_t)j * d]));
      }
    S.symmetric = asym <= 1e-12 * emax ? true : false;
  }
  if (!S.symmetric) {
    std::vector<PetscBLASInt> piv(d > 0 ? d : 1);
    PetscBLASInt              lwork = n > 0 ? 64 * n : 1;
    std::vector<Scalar>       work(lwork);
    Real                      rowmax = 0;

    if (d > 0) {
      PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
      LAPACKgetrf_(&n, &n, F.data(), &n, piv.data(), &info);
      PetscCall(PetscFPTrapPop());
    }
    PetscCheck(info >= 0, comm, PETSC_ERR_LIB, "LAPACK getrf: illegal argument %d", (int)-info);
    for (size_t q = 0; q < (size_t)d * d; q++) rowmax = PetscMax(rowmax, PetscAbsScalar(E[q]));
    for (Int j = 0; j < d; j++) {
      const Real r = PetscAbsScalar(F[j + (size_t)j * d]) / rowmax;
      if (r < minpiv) minpiv = r, jmin = j;
    }
    PetscCheck(info == 0 && (d == 0 || minpiv >= rtol), comm, PETSC_ERR_MAT_LU_ZRPVT, "%s (d = %" PetscInt_FMT ") is numerically singular: relative LU pivot %g at row %" PetscInt_FMT ". %s", what ? what : "The (nonsymmetric) coarse matrix E = Z^T A Z", d, (double)(info ? 0.0 : minpiv), info ? (Int)info - 1 : jmin, luhint);
    if (d > 0) {
      PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
      LAPACKgetri_(&n, F.data(), &n, piv.data(), work.data(), &lwork, &info);
      PetscCall(PetscFPTrapPop());
    }
    PetscCheck(info == 0, comm, PETSC_ERR_LIB, "LAPACK getri failed (info %d) inverting the coarse matrix", (int)info);
    S.d         = d;
    S.form      = DenseSpdForm::Inverse;
    S.min_pivot = d > 0 ? minpiv : 1;
    PetscCallCXX(S.M = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("dense lu inverse")), (size_t)d * d));
    PetscCallCXX(Kokkos::deep_copy(exec(), S.M, HostUView<const Scalar>(F.data(), F.size())));
    PetscCallCXX(exec().fence());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (Int j = 0; j < d; j++) PetscCall(CheckDiagonal(comm, j, E[j + (size_t)j * d], what));
  if (d > 0) {
    PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
    LAPACKpotrf_("L", &n, F.data(), &n, &info);
    PetscCall(PetscFPTrapPop());
  }
  PetscCheck(info >= 0, comm, PETSC_ERR_LIB, "LAPACK potrf: illegal argument %d", (int)-info);
  PetscCheck(info == 0, comm, PETSC_ERR_MAT_CH_ZRPVT, "%s (d = %" PetscInt_FMT ") is not positive definite: Cholesky breaks down at pivot %d. %s", name, d, (int)info, cholhint);
  for (Int j = 0; j < d; j++) {
    const Real r = (Real)(F[j + (size_t)j * d] * F[j + (size_t)j * d] / E[j + (size_t)j * d]);
    if (r < minpiv) minpiv = r, jmin = j;
  }
  PetscCheck(d == 0 || minpiv >= rtol, comm, PETSC_ERR_MAT_CH_ZRPVT, "%s (d = %" PetscInt_FMT ") is numerically singular: relative Cholesky pivot %g < %g at row %" PetscInt_FMT ". %s", name, d, (double)minpiv, (double)rtol, jmin, pivhint);
  if (form == DenseSpdForm::Inverse && d > 0) {
    PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
    LAPACKpotri_("L", &n, F.data(), &n, &info);
    PetscCall(PetscFPTrapPop());
    PetscCheck(info == 0, comm, PETSC_ERR_LIB, "LAPACK potri failed (info %d) inverting the coarse matrix", (int)info);
    for (Int j = 0; j < d; j++)
      for (Int i = 0; i < j; i++) F[i + (size_t)j * d] = F[j + (size_t)i * d];
  } else if (d > 0) {
    /* X = L^-1 by a triangular solve with the identity (column-major: column j of X is L^-1 e_j) */
    std::vector<Scalar> X((size_t)d * d, 0.0), R((size_t)d * d);
    const Scalar        one = 1.0;
    for (Int j = 0; j < d; j++) X[j + (size_t)j * d] = 1.0;
    PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
    BLAStrsm_("L", "L", "N", "N", &n, &n, &one, F.data(), &n, X.data(), &n);
    PetscCall(PetscFPTrapPop());
    /* F: L^-1 row by row (the transpose of X's column-major storage); X: column by column */
    for (Int j = 0; j < d; j++)
      for (Int i = 0; i < d; i++) R[j + (size_t)i * d] = i >= j ? X[i + (size_t)j * d] : 0.0;
    for (Int j = 0; j < d; j++)
      for (Int i = 0; i < j; i++) X[i + (size_t)j * d] = 0.0;
    F.swap(R);
    PetscCallCXX(S.Mt = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("dense spd L^-1 by columns")), (size_t)d * d));
    PetscCallCXX(Kokkos::deep_copy(exec(), S.Mt, HostUView<const Scalar>(X.data(), X.size())));
  }
  S.d         = d;
  S.form      = form;
  S.min_pivot = d > 0 ? minpiv : 1;
  PetscCallCXX(S.M = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("dense spd")), (size_t)d * d));
  PetscCallCXX(Kokkos::deep_copy(exec(), S.M, HostUView<const Scalar>(F.data(), F.size())));
  if (form == DenseSpdForm::Cholesky) PetscCallCXX(S.work = View<Scalar>(std::string("dense spd work"), d));
  PetscCallCXX(exec().fence());
  PetscFunctionReturn(PETSC_SUCCESS);
}

void DenseTriRowGemv(Int d, bool lower, UView<const Scalar> T, UView<const Scalar> x, UView<Scalar> y)
{
  using TP     = Kokkos::TeamPolicy<ExecSpace>;
  using Member = TP::member_type;
  if (d == 0) return;
  Kokkos::parallel_for(
    "petsckp::DenseTriGemv", TP(exec(), d, Kokkos::AUTO), KOKKOS_LAMBDA(const Member &t) {
      const Int i = t.league_rank();
      Scalar    s = 0;
      Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(t, lower ? 0 : i, lower ? i + 1 : d), [&](Int j, Scalar &acc) { acc += T((size_t)i * d + j) * x(j); }, s);
      Kokkos::single(Kokkos::PerTeam(t), [&]() { y(i) = s; });
    });
}

void DenseGemv(Int d, UView<const Scalar> M, UView<const Scalar> x, UView<Scalar> y)
{
  Kokkos::parallel_for(
    "petsckp::DenseGemv", range(d), KOKKOS_LAMBDA(Int i) {
      Scalar s = 0;
      for (Int j = 0; j < d; j++) s += M(i + j * d) * x(j);
      y(i) = s;
    });
}

void DenseSpdSolve(const DenseSpd &S, UView<const Scalar> b, UView<Scalar> x)
{
  UView<const Scalar> M(S.M.data(), S.M.extent(0));
  if (S.form == DenseSpdForm::Inverse) DenseGemv(S.d, M, b, x);
  else {
    /* E^-1 = L^-T L^-1: y = L^-1 b (rows of L^-1), x = L^-T y (rows of L^-T = columns of L^-1) */
    UView<Scalar> y(S.work.data(), S.d);
    DenseTriRowGemv(S.d, true, M, b, y);
    DenseTriRowGemv(S.d, false, UView<const Scalar>(S.Mt.data(), S.Mt.extent(0)), UView<const Scalar>(y.data(), S.d), x);
  }
}
void DenseSpdSolveDots(const DenseSpd &S, UView<const Scalar> b, UView<Scalar> x, UView<const Scalar> s, UView<const Real> zw, Kokkos::View<Sums4, MemSpace> out)
{
  using TP     = Kokkos::TeamPolicy<ExecSpace>;
  using Member = TP::member_type;
  const Int           d  = S.d;
  const Int           ns = (Int)s.extent(0);
  UView<const Scalar> M(S.M.data(), S.M.extent(0));

  if (d == 0) {
    Kokkos::deep_copy(exec(), out, Sums4());
    return;
  }
  if (S.form == DenseSpdForm::Inverse) {
    Kokkos::parallel_reduce(
      "petsckp::DenseGemvDots (device sums)", range(d),
      KOKKOS_LAMBDA(Int i, Sums4 & acc) {
        Scalar v = 0;
        for (Int j = 0; j < d; j++) v += M(i + j * d) * b(j);
        x(i) = v;
        acc.v[0] += b(i) * v;
        if (i < ns) acc.v[1] += zw(i) * s(i) * s(i);
      },
      Kokkos::Sum<Sums4, MemSpace>(out));
    return;
  }
  /* y = L^-1 b with b^T E^-1 b = y^T y, then x = L^-T y */
  UView<Scalar> y(S.work.data(), d);
  Kokkos::parallel_reduce(
    "petsckp::DenseTriGemvDots (device sums)", TP(exec(), d, Kokkos::AUTO),
    KOKKOS_LAMBDA(const Member &t, Sums4 &acc) {
      const Int i = t.league_rank();
      Scalar    v = 0;
      Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(t, 0, i + 1), [&](Int j, Scalar &a) { a += M((size_t)i * d + j) * b(j); }, v);
      if (t.team_rank() == 0) {
        y(i) = v;
        acc.v[0] += v * v;
        if (i < ns) acc.v[1] += zw(i) * s(i) * s(i);
      }
    },
    Kokkos::Sum<Sums4, MemSpace>(out));
  DenseTriRowGemv(d, false, UView<const Scalar>(S.Mt.data(), S.Mt.extent(0)), UView<const Scalar>(y.data(), d), x);
}

/* ---- the factorisation on the device (no host round trip of the d x d matrix) */

Real DenseAsymmetry(Int d, UView<const Scalar> E, Real *emax)
{
  Real asym = 0, e = 0;
  if (d > 0) {
    Kokkos::parallel_reduce(
      "petsckp::DenseAsymmetry", range((Int)((int64_t)d * d)),
      KOKKOS_LAMBDA(Int t, Real &a) {
        const Int i = t % d, j = t / d;
        a = compat::fmax(a, compat::fabs(E(t) - E(j + (size_t)i * d)));
      },
      Kokkos::Max<Real>(asym));
    Kokkos::parallel_reduce(
      "petsckp::DenseMaxAbs", range((Int)((int64_t)d * d)), KOKKOS_LAMBDA(Int t, Real &m) { m = compat::fmax(m, compat::fabs(E(t))); }, Kokkos::Max<Real>(e));
  }
  if (emax) *emax = e;
  return asym;
}

void DenseSymmetrize(Int d, UView<Scalar> E)
{
  Kokkos::parallel_for(
    "petsckp::DenseSymmetrize", range((Int)((int64_t)d * d)), KOKKOS_LAMBDA(Int t) {
      const Int i = t % d, j = t / d;
      if (i < j) {
        const Scalar s = 0.5 * (E(t) + E(j + (size_t)i * d));
        E(t) = E(j + (size_t)i * d) = s;
      }
    });
}

Real DenseNorm1(Int d, UView<const Scalar> E)
{
  Real n = 0;
  if (d == 0) return 0;
  Kokkos::parallel_reduce(
    "petsckp::DenseNorm1", range(d),
    KOKKOS_LAMBDA(Int j, Real &m) {
      Real c = 0;
      for (Int i = 0; i < d; i++) c += compat::fabs(E(i + (size_t)j * d));
      m = compat::fmax(m, c);
    },
    Kokkos::Max<Real>(n));
  return n;
}

void DenseCholeskyLower(Int d, UView<Scalar> F, UView<Scalar> piv)
{
  /* right-looking Cholesky without the square roots during the elimination: step k subtracts F(i,k) F(j,k) / F(k,k)
     from the trailing lower triangle (k < j <= i) and leaves column k as it is, so that the threads of one step
     read column k while others write the trailing part. A step with a non-positive pivot is skipped (the pivots
     before it are exact, those after it meaningless but finite: the first non-positive one is reported) */
  for (Int k = 0; k + 1 < d; k++) {
    const Int w = d - k - 1;
    Kokkos::parallel_for(
      "petsckp::DenseCholeskyStep", range((Int)((int64_t)w * w)), KOKKOS_LAMBDA(Int t) {
        const Int i = k + 1 + t % w, j = k + 1 + t / w;
        const Scalar pk = F(k + (size_t)k * d);
        if (j > i || !(PetscRealPart(pk) > 0)) return;
        F(i + (size_t)j * d) -= F(i + (size_t)k * d) * F(j + (size_t)k * d) / pk;
      });
  }
  Kokkos::parallel_for(
    "petsckp::DenseCholeskyPivots", range(d), KOKKOS_LAMBDA(Int k) { piv(k) = F(k + (size_t)k * d); });
  /* L(i,k) = F(i,k) / sqrt(F(k,k)) below the diagonal, sqrt(F(k,k)) on it, 0 above */
  Kokkos::parallel_for(
    "petsckp::DenseCholeskyScale", range((Int)((int64_t)d * d)), KOKKOS_LAMBDA(Int t) {
      const Int  i = t % d, k = t / d;
      const Real p = PetscRealPart(piv(k));
      if (i < k) F(t) = 0;
      else if (p > 0) F(t) = i == k ? compat::sqrt(p) : F(t) / compat::sqrt(p);
    });
}

void DenseTriLowerInverse(Int d, UView<const Scalar> L, UView<Scalar> X)
{
  /* X = L^-1 column by column by forward substitution, all columns at once: step k subtracts L(i,k) x_k from the
     rows i > k, with x_k = X(k,:) / L(k,k) (row k of X is final after step k - 1 and left unscaled until the end) */
  Kokkos::parallel_for(
    "petsckp::DenseTriInverseInit", range((Int)((int64_t)d * d)), KOKKOS_LAMBDA(Int t) { X(t) = t % d == t / d ? 1.0 : 0.0; });
  for (Int k = 0; k + 1 < d; k++) {
    const Int w = d - k - 1;
    Kokkos::parallel_for(
      "petsckp::DenseTriInverseStep", range((Int)((int64_t)w * (k + 1))), KOKKOS_LAMBDA(Int t) {
        const Int i = k + 1 + t % w, j = t / w;
        X(i + (size_t)j * d) -= L(i + (size_t)k * d) / L(k + (size_t)k * d) * X(k + (size_t)j * d);
      });
  }
  Kokkos::parallel_for(
    "petsckp::DenseTriInverseScale", range((Int)((int64_t)d * d)), KOKKOS_LAMBDA(Int t) {
      const Int i = t % d;
      X(t) /= L(i + (size_t)i * d);
    });
}

void DenseLowerGram(Int d, UView<const Scalar> X, UView<Scalar> M)
{
  Kokkos::parallel_for(
    "petsckp::DenseLowerGram", range((Int)((int64_t)d * d)), KOKKOS_LAMBDA(Int t) {
      const Int i = t % d, j = t / d;
      Scalar    s = 0;
      for (Int m = i > j ? i : j; m < d; m++) s += X(m + (size_t)i * d) * X(m + (size_t)j * d);
      M(t) = s;
    });
}

PetscErrorCode DenseSpdSetUpDevice(MPI_Comm comm, Int d, UView<const Scalar> E, DenseSpdForm form, Real rtol, DenseSpd &S, const char *what, bool kernels)
{
  const DenseSpdMessages msg(what);
  Real                   asym = 0, emax = 0, minpiv = PETSC_MAX_REAL;
  Int                    jbad = d, jmin = 0;
  View<Scalar>           F, X, piv;
  std::vector<Scalar>    hpiv(d), hdiag(d);

  PetscFunctionBegin;
  PetscCheck(d <= 46340, comm, PETSC_ERR_SUP, "Dense coarse matrices are limited to d <= 46340 (index range); got d = %" PetscInt_FMT ", %s", d, msg.sizehint);
  PetscCheck((Int)E.extent(0) >= d * d, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a dense matrix of %zu entries for d = %" PetscInt_FMT, (size_t)E.extent(0), d);
  if (!kernels && !kDeviceExec) {
    /* E is in host memory: LAPACK's blocked factorisation beats d launches of the kernels on a host backend */
    PetscCall(DenseSpdSetUp(comm, d, E.data(), form, rtol, S, what));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* symmetry (the same test as DenseSpdSetUp()) and the first non-positive diagonal entry: two scalars to the host */
  PetscCallCXX(asym = DenseAsymmetry(d, E, &emax));
  S.symmetric = asym <= 1e-12 * emax ? true : false;
  if (!S.symmetric) {
    /* LU with pivoting (a nonsymmetric A): on the host, as DenseSpdSetUp() */
    std::vector<Scalar> h((size_t)d * d);
    PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Scalar>(h.data(), h.size()), Kokkos::subview(E, Kokkos::make_pair((size_t)0, (size_t)d * d))));
    PetscCallCXX(exec().fence());
    PetscCall(DenseSpdSetUp(comm, d, h.data(), form, rtol, S, what));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallCXX(Kokkos::parallel_reduce(
    "petsckp::DenseFirstNonPositive", range(d), KOKKOS_LAMBDA(Int j, Int &b) {
      if (!(PetscRealPart(E(j + (size_t)j * d)) > 0) && j < b) b = j;
    },
    Kokkos::Min<Int>(jbad)));
  if (jbad < d) {
    Scalar ejj;
    PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::View<Scalar, Kokkos::HostSpace>(&ejj), Kokkos::subview(E, jbad + (size_t)jbad * d)));
    PetscCallCXX(exec().fence());
    PetscCall(CheckDiagonal(comm, jbad, ejj, what));
  }
  PetscCallCXX(F = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("dense spd factor")), (size_t)d * d));
  PetscCallCXX(piv = View<Scalar>(std::string("dense spd pivots"), d));
  PetscCallCXX(Kokkos::deep_copy(exec(), F, Kokkos::subview(E, Kokkos::make_pair((size_t)0, (size_t)d * d))));
  PetscCallCXX(DenseCholeskyLower(d, UView<Scalar>(F.data(), F.extent(0)), UView<Scalar>(piv.data(), d)));
  /* the pivots and the diagonal of E: 2 d scalars to the host for the checks */
  PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Scalar>(hpiv.data(), d), piv));
  PetscCallCXX(Kokkos::parallel_for(
    "petsckp::DenseDiagonal", range(d), KOKKOS_LAMBDA(Int j) { piv(j) = E(j + (size_t)j * d); }));
  PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Scalar>(hdiag.data(), d), piv));
  PetscCallCXX(exec().fence());
  for (Int j = 0; j < d; j++) {
    /* LAPACK's potrf info: the first non-positive pivot (1-based) */
    PetscCheck(PetscRealPart(hpiv[j]) > 0, comm, PETSC_ERR_MAT_CH_ZRPVT, "%s (d = %" PetscInt_FMT ") is not positive definite: Cholesky breaks down at pivot %d. %s", msg.name, d, (int)(j + 1), msg.cholhint);
    const Real r = PetscRealPart(hpiv[j]) / PetscRealPart(hdiag[j]);
    if (r < minpiv) minpiv = r, jmin = j;
  }
  PetscCheck(d == 0 || minpiv >= rtol, comm, PETSC_ERR_MAT_CH_ZRPVT, "%s (d = %" PetscInt_FMT ") is numerically singular: relative Cholesky pivot %g < %g at row %" PetscInt_FMT ". %s", msg.name, d, (double)minpiv, (double)rtol, jmin, msg.pivhint);
  /* X = L^-1 (column-major, lower triangular) */
  PetscCallCXX(X = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("dense spd L^-1 by columns")), (size_t)d * d));
  PetscCallCXX(DenseTriLowerInverse(d, UView<const Scalar>(F.data(), F.extent(0)), UView<Scalar>(X.data(), X.extent(0))));
  S.d         = d;
  S.form      = form;
  S.min_pivot = d > 0 ? minpiv : 1;
  S.Mt        = View<Scalar>();
  S.work      = View<Scalar>();
  if (form == DenseSpdForm::Inverse) {
    /* E^-1 = L^-T L^-1 into the storage of the factor */
    PetscCallCXX(DenseLowerGram(d, UView<const Scalar>(X.data(), X.extent(0)), UView<Scalar>(F.data(), F.extent(0))));
    S.M = F;
  } else {
    /* M: L^-1 row by row (the transpose of X), Mt: column by column (X) */
    auto x = X, f = F;
    PetscCallCXX(Kokkos::parallel_for(
      "petsckp::DenseTranspose", range((Int)((int64_t)d * d)), KOKKOS_LAMBDA(Int t) {
        const Int i = t % d, j = t / d;
        f(j + (size_t)i * d) = x(t);
      }));
    S.M  = F;
    S.Mt = X;
    PetscCallCXX(S.work = View<Scalar>(std::string("dense spd work"), d));
  }
  PetscCallCXX(exec().fence());
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace petsckp
