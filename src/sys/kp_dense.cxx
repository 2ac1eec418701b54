/*
   kp_dense.cxx - small dense SPD matrices: host factorisation with LAPACK, device solves with Kokkos.
*/
#include "kp_dense.hpp"
#include <petscblaslapack.h>
#include <vector>

namespace petsckp
{
PetscErrorCode DenseSpdSetUp(MPI_Comm comm, Int d, const Scalar *E, DenseSpdForm form, Real rtol, DenseSpd &S, const char *what)
{
  /* the matrix and the cure named in the error messages: deflation's E = Z^T A Z by default, else the caller's */
  const char *name     = what ? what : "The coarse matrix E = Z^T A Z";
  const char *luhint   = what ? "The operator is singular (e.g. a pure Neumann problem: fix one value) or nearly so" : "The deflation space is rank-deficient (dependent vectors) or contains a null vector of A";
  const char *cholhint = what ? "The operator is singular or indefinite, or not symmetric positive definite" : "E is singular or indefinite: the deflation vectors are linearly dependent (rank-deficient Z), or A is not SPD";
  const char *pivhint  = what ? "The operator is singular (e.g. a pure Neumann problem: fix one value) or nearly so" : "The deflation space is rank-deficient (dependent vectors) or contains a null vector of A (e.g. the constant with pure Neumann conditions): drop a vector or make A nonsingular";
  const char *sizehint = what ? "use a smaller coarse size" : "use fewer deflation vectors";
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
  for (Int j = 0; j < d; j++) {
    const Scalar ejj = E[j + (size_t)j * d];
    if (what) PetscCheck(ejj > 0, comm, PETSC_ERR_MAT_CH_ZRPVT, "%s has diagonal entry %g in row %" PetscInt_FMT ": it is not positive definite (a Cholesky factorisation needs an SPD operator)", what, (double)ejj, j);
    else PetscCheck(ejj > 0, comm, PETSC_ERR_MAT_CH_ZRPVT, "The coarse matrix E = Z^T A Z has diagonal entry %g in row %" PetscInt_FMT ": E is not positive definite; deflation vector %" PetscInt_FMT " is zero or A is not SPD", (double)ejj, j, j);
  }
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
} // namespace petsckp
