/*
   kp_dense.hpp - small dense SPD matrices of the shared layer (coarse operators of deflation, E = Z^T A Z):
   Cholesky factorisation or explicit inverse on the host (LAPACK), solves on the device.

   Storage: d x d, column-major (entry (i, j) at i + j d), in a View of length d*d.
*/
#pragma once

#include "kp_kokkos.hpp"

namespace petsckp
{
enum class DenseSpdForm {
  Cholesky, /* the lower Cholesky factor L of E = L L^T */
  Inverse   /* E^-1, full (symmetric) */
};

struct DenseSpd {
  Int          d    = 0;
  DenseSpdForm form = DenseSpdForm::Cholesky;
  View<Scalar> M;            /* d*d: L or E^-1, on the device */
  Real         min_pivot = 0; /* min_j L_jj^2 / E_jj: a lower bound of 1/cond(E) up to a modest factor */
  bool         symmetric = true; /* false: E was not symmetric, M holds its inverse computed by LU */
};

/* Factors (or inverts) a symmetric d x d matrix given on the host (column-major, length d*d, not modified) and
   stores the result on the device. Errors: a non-positive pivot (E not positive definite) or a relative pivot
   below rtol (E numerically singular: the deflation vectors are linearly dependent or span a null vector of A);
   the message names the pivot and what to do about it. A nonsymmetric E (nonsymmetric A) is inverted by LU
   instead (form becomes Inverse, symmetric false), so that the deflation projection stays exact. */
PetscErrorCode DenseSpdSetUp(MPI_Comm comm, Int d, const Scalar *E, DenseSpdForm form, Real rtol, DenseSpd &S);

/* x = E^-1 b on the device (x and b may not alias): two triangular solves (Cholesky) or one gemv (Inverse) */
void DenseSpdSolve(const DenseSpd &S, UView<const Scalar> b, UView<Scalar> x);

/* kernels (exposed for the unit tests) */
void DenseLowerSolve(Int d, UView<const Scalar> L, UView<const Scalar> b, UView<Scalar> x); /* x = (L L^T)^-1 b */
void DenseGemv(Int d, UView<const Scalar> M, UView<const Scalar> x, UView<Scalar> y);        /* y = M x */
} // namespace petsckp
