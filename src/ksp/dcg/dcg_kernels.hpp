/*
   dcg_kernels.hpp - the fused vector kernels of one KSPDCG iteration (Algorithm 1, DEF1). Each kernel makes one pass
   over its vectors and, where the iteration needs inner products, returns the rank-local partial sums of one
   device reduction (the caller sums them over the ranks with one MPI_Allreduce per kernel).

   One iteration (after w = A p and the coarse solve a2 = E^-1 Z^T w):
     DcgDeflateDot: w <- w - AZ a2 and (w, p)            (step 3 completed, step 4's denominator)
     DcgUpdateXR:   x <- x + alpha p, r <- r - alpha w    (steps 5, 6)
     (the preconditioner y = M^-1 r)
     DcgDotNorm:    (y, r) and (v, v), v = r or y         (step 8's numerator, the residual norm)
     DcgUpdateP:    p <- y + beta p                       (step 9)
   Everything here takes Kokkos views; nothing here knows about PETSc objects. Real scalars.
*/
#pragma once

#include "kp_sparse.hpp"

namespace petsckp
{
/* w <- w - AZ a2 (AZ: n x d CSR, skipped when deflate is false) and the local sum of w_i p_i */
Scalar DcgDeflateDot(bool deflate, const CsrMatrix &AZ, UView<const Scalar> a2, UView<Scalar> w, UView<const Scalar> p);
/* x <- x + alpha p, r <- r - alpha w */
void DcgUpdateXR(Scalar alpha, UView<const Scalar> p, UView<const Scalar> w, UView<Scalar> x, UView<Scalar> r);
/* local sums yr = (y, r) and vv = (v, v) with v = r (norm 1), v = y (norm 2), vv = 0 (norm 0) */
void DcgDotNorm(UView<const Scalar> y, UView<const Scalar> r, int norm, Scalar &yr, Scalar &vv);
/* p <- y + beta p */
void DcgUpdateP(Scalar beta, UView<const Scalar> y, UView<Scalar> p);
} // namespace petsckp
