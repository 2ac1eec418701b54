/*
   kp_dense.hpp - small dense SPD matrices of the shared layer (coarse operators of deflation, E = Z^T A Z, and the
   coarsest operator of the multigrid layer kp_mg):
   Cholesky factorisation or explicit inverse on the host (LAPACK), solves on the device.

   Storage: d x d, column-major (entry (i, j) at i + j d), in a View of length d*d.
*/
#pragma once

#include "kp_kokkos.hpp"
#include "kp_kcycle.hpp" /* Sums4 */

namespace petsckp
{
enum class DenseSpdForm {
  Cholesky, /* from the Cholesky factor E = L L^T: L^-1 is kept, a solve is two triangular matrix-vector products */
  Inverse   /* E^-1, full (symmetric), formed by potri: one matrix-vector product per solve */
};

struct DenseSpd {
  Int          d    = 0;
  DenseSpdForm form = DenseSpdForm::Cholesky;
  View<Scalar> M;            /* d*d: Cholesky: L^-1 stored row by row (row i contiguous); Inverse: E^-1 */
  View<Scalar> Mt;           /* d*d: Cholesky only: L^-1 stored column by column (column i contiguous) */
  View<Scalar> work;         /* d: the intermediate y = L^-1 b of a Cholesky solve */
  Real         min_pivot = 0; /* min_j L_jj^2 / E_jj: a lower bound of 1/cond(E) up to a modest factor */
  bool         symmetric = true; /* false: E was not symmetric, M holds its inverse computed by LU */
};

/* Factors (or inverts) a symmetric d x d matrix given on the host (column-major, length d*d, not modified) and
   stores the result on the device. Errors: a non-positive pivot (E not positive definite) or a relative pivot
   below rtol (E numerically singular: the deflation vectors are linearly dependent or span a null vector of A);
   the message names the pivot and what to do about it. A nonsymmetric E (nonsymmetric A) is inverted by LU
   instead (form becomes Inverse, symmetric false), so that the deflation projection stays exact.
   what (optional) names the matrix in the error messages (e.g. "The coarsest multigrid operator"); without it they
   speak of deflation's E = Z^T A Z and its deflation vectors. */
PetscErrorCode DenseSpdSetUp(MPI_Comm comm, Int d, const Scalar *E, DenseSpdForm form, Real rtol, DenseSpd &S, const char *what = nullptr);

/* x = E^-1 b on the device (x and b may not alias): Cholesky: y = L^-1 b, x = L^-T y, each one fully parallel
   triangular matrix-vector product with one team per output entry (no sequential substitution: the d dependent
   steps of a triangular solve in one team took d barriers per solve); Inverse: one gemv */
void DenseSpdSolve(const DenseSpd &S, UView<const Scalar> b, UView<Scalar> x);

/* DenseSpdSolve() with two sums reduced by the same kernels into out (device memory, no fence):
   out = {b^T E^-1 b, sum_i zw_i s_i^2, 0, 0}. The first is y^T y for the Cholesky solve's y = L^-1 b (b^T x for the
   form Inverse), the second runs over the entries of s (empty: 0). The label of the reduction contains "(device
   sums)". (Deflated CG: b = Z^T A u gives (u, A Z E^-1 Z^T A u), and s = Z^T r the part of r in range(Z).) */
void DenseSpdSolveDots(const DenseSpd &S, UView<const Scalar> b, UView<Scalar> x, UView<const Scalar> s, UView<const Real> zw, Kokkos::View<Sums4, MemSpace> out);

/* DenseSpdSetUp() for a matrix E on the device (column-major, d*d, not modified), with the same checks and errors:
   Cholesky (and for the form Inverse E^-1 = L^-T L^-1) by the device kernels below; only the pivots and the
   diagonal (2 d scalars) come to the host. A nonsymmetric E is copied to the host for DenseSpdSetUp()'s LU. With a host
   execution space (E in host memory) DenseSpdSetUp() (LAPACK) is used unless kernels is true (the unit tests). */
PetscErrorCode DenseSpdSetUpDevice(MPI_Comm comm, Int d, UView<const Scalar> E, DenseSpdForm form, Real rtol, DenseSpd &S, const char *what = nullptr, bool kernels = false);

/* kernels (exposed for the unit tests) */
/* y = T x, T a d x d lower (lower = true: entries j <= i) or upper triangular matrix stored row by row (entry (i, j)
   at i d + j, row i contiguous); one team reduces each row */
void DenseTriRowGemv(Int d, bool lower, UView<const Scalar> T, UView<const Scalar> x, UView<Scalar> y);
void DenseGemv(Int d, UView<const Scalar> M, UView<const Scalar> x, UView<Scalar> y); /* y = M x, M column-major */
/* F (d x d, column-major, symmetric in its lower triangle) overwritten by its Cholesky factor L (0 above the
   diagonal); piv(k) = the k-th pivot L_kk^2. A non-positive pivot is the first non-positive entry of piv (LAPACK's
   potrf info - 1); the factor is then not usable. d kernel launches. */
void DenseCholeskyLower(Int d, UView<Scalar> F, UView<Scalar> piv);
/* X = L^-1 (column-major, 0 above the diagonal) for L lower triangular with a nonzero diagonal; d launches */
void DenseTriLowerInverse(Int d, UView<const Scalar> L, UView<Scalar> X);
/* M = X^T X (column-major) for X lower triangular (column-major) */
void DenseLowerGram(Int d, UView<const Scalar> X, UView<Scalar> M);
/* max_ij |E_ij - E_ji| (returned) and max_ij |E_ij| (emax, optional) of a d x d matrix; 0 for d = 0 */
Real DenseAsymmetry(Int d, UView<const Scalar> E, Real *emax);
/* E = (E + E^T) / 2 in place */
void DenseSymmetrize(Int d, UView<Scalar> E);
/* ||E||_1 = max_j sum_i |E_ij| */
Real DenseNorm1(Int d, UView<const Scalar> E);
} // namespace petsckp
