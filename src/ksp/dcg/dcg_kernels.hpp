/*
   dcg_kernels.hpp - the fused vector kernels of one KSPDCG iteration (Algorithm 1, DEF1). Each kernel makes one pass
   over its vectors and, where the iteration needs inner products, returns the rank-local partial sums of one
   device reduction (the caller sums them over the ranks with one MPI_Allreduce per kernel).

   One iteration (after w = A p and the coarse solve a2 = E^-1 Z^T w, with s = Z^T r_hat from the same restriction):
     DeflateDot: w <- w - AZ a2, (w, p) before and after, and the drift sum_j zw_j s_j^2   (steps 3, 4)
     UpdateXR:   x <- x + alpha p, r <- r - alpha w                                          (steps 5, 6)
     (the preconditioner y = M^-1 r)
     DotNorm:    (y, r), (r, r) and (y, y)                                                  (step 8, the norms)
     UpdateP:    p <- y + beta p                                                            (step 9)
   Everything here takes Kokkos views; nothing here knows about PETSc objects. Real scalars.
*/
#pragma once

#include "kp_sparse.hpp"

namespace petsckp
{
namespace dcg
{
/* the local sums of DeflateDot */
struct Dots {
  Scalar pw    = 0; /* (p, w - AZ a2) = (p, P A p) */
  Scalar pa    = 0; /* (p, w) = (p, A p) */
  Scalar drift = 0; /* sum_j zw_j s_j^2 (0 when s is empty) */
};
/* w <- w - AZ a2 (AZ: n x d CSR, skipped when deflate is false), the local sums of w_i p_i before and after, and
   sum_j zw_j s_j^2 over the entries of s (a replicated d-vector: pass it on one rank only, an empty view elsewhere) */
Dots DeflateDot(bool deflate, const CsrMatrix &AZ, UView<const Scalar> a2, UView<Scalar> w, UView<const Scalar> p, UView<const Scalar> s, UView<const Real> zw);
/* x <- x + alpha p, r <- r - alpha w */
void UpdateXR(Scalar alpha, UView<const Scalar> p, UView<const Scalar> w, UView<Scalar> x, UView<Scalar> r);
/* local sums yr = (y, r), rr = (r, r), yy = (y, y) */
void DotNorm(UView<const Scalar> y, UView<const Scalar> r, Scalar &yr, Scalar &rr, Scalar &yy);
/* p <- y + beta p */
void UpdateP(Scalar beta, UView<const Scalar> y, UView<Scalar> p);
} // namespace dcg
} // namespace petsckp
