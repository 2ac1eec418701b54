/*
   kp_blas.hpp - vector kernels of the shared layer on device views: dot products (one or several in one pass over
   the data) and linear combinations, for Krylov-accelerated cycles such as the nonlinear AMLI/K-cycle, whose inner
   iteration needs two or three inner products of the same vector per step (Notay and Vassilevski, "Recursive
   Krylov-based multigrid cycles", Numer. Linear Algebra Appl. 15, 2008).

   Real scalars: Dot(x, y) = sum_i x_i y_i (no conjugation). Results of the reductions land in host scalars (the
   call fences). Sizes are taken from x; the other views must have at least as many entries. Nothing here knows
   about PETSc objects.
*/
#pragma once

#include "kp_kokkos.hpp"

namespace petsckp
{
/* the smallest index i with x_i NaN or +-Inf, or -1 when every entry is finite (one device reduction) */
Int FirstNonFinite(UView<const Scalar> x);

/* x . y */
Scalar Dot(UView<const Scalar> x, UView<const Scalar> y);

/* out[j] = x . y[j] for j < k, 1 <= k <= 4, in one pass over x (fused inner products) */
void Dots(UView<const Scalar> x, int k, const UView<const Scalar> y[], Scalar out[]);

/* y = a x + b y; b == 0: y is not read (may hold NaN) */
void Axpby(Scalar a, UView<const Scalar> x, Scalar b, UView<Scalar> y);

/* z = a x + b y + c z; c == 0: z is not read */
void Axpbypcz(Scalar a, UView<const Scalar> x, Scalar b, UView<const Scalar> y, Scalar c, UView<Scalar> z);
} // namespace petsckp
