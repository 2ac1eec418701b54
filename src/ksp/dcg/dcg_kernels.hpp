/*
   dcg_kernels.hpp - the fused vector kernels of one KSPDCG iteration. Each kernel makes one pass over its vectors;
   the inner products an iteration needs are reduced by the same kernels into device memory (Sums, one Sums4 per
   slot: no host synchronisation), and the host reads them all at once, once per iteration.

   Standard variant (DEF1 of Tang, Nabben, Vuik and Erlangga; Algorithm 1 of Gupta, van Gijzen and Vuik), one iteration:
     ProductDots:   w = A p with (p, w) = (p, A p)                                  -> slot Product
     (restriction a1 = Z^T w, s1 = Z^T r; coarse solve a2 = E^-1 a1 with a1^T a2 and the drift of r -> slot Coarse)
     UpdateXR:      alpha = (r, y) / (p, P A p), x += alpha p, r -= alpha (w - AZ a2)     (the deflation in the update)
     (the preconditioner y = M^-1 r)
     DotNorm:       (y, r), (r, r), (y, y)                                             -> slot Residual
     UpdateP:       p = y + beta p
   with (p, P A p) = (p, A p) - a1^T E^-1 a1 for a symmetric A ((AZ)^T p = Z^T A p): the deflated product w - AZ a2
   is never stored, and its inner product with p costs no pass of its own. For a nonsymmetric E, DeflatedDot computes
   (p, w - AZ a2) itself (slot Direct).

   Single-reduction variant (Chronopoulos and Gear), one iteration:
     (the preconditioner u = M^-1 r)
     ProductDots:   w = A u with (u, w), (r, u), (r, r), (u, u)                         -> slot Product
     (restriction and coarse solve as above)
     PipelinedUpdate: s = (w - AZ a2) + beta s, p = u + beta p, x += alpha p, r -= alpha s
   Everything here takes Kokkos views; nothing here knows about PETSc objects. Real scalars.
*/
#pragma once

#include "kp_sparse.hpp"
#include "kp_kcycle.hpp" /* Sums4 */

namespace petsckp
{
namespace dcg
{
/* the slots of the device sums of one iteration */
enum Slot {
  SlotProduct  = 0, /* {(x, A x), (r, x), (r, r), (x, x)} of ProductDots */
  SlotCoarse   = 1, /* {a1^T E^-1 a1, sum_j zw_j s1_j^2, 0, 0} of the coarse solve */
  SlotResidual = 2, /* {(y, r), (r, r), (y, y), 0} of DotNorm */
  SlotDirect   = 3, /* {(p, w - AZ a2), 0, 0, 0} of DeflatedDot */
  NumSlots     = 4
};
using Sums = Kokkos::View<Sums4 *, MemSpace>;

/* how (p, P A p) is obtained from the sums */
enum class PwMode {
  Plain,    /* no deflation: (p, A p) */
  Identity, /* (p, A p) - a1^T E^-1 a1 (symmetric A) */
  Direct    /* DeflatedDot's (p, w - AZ a2) */
};

/* (p, P A p) from the sums, the same arithmetic on the host and on the device */
KOKKOS_INLINE_FUNCTION Scalar DeflatedPw(const Sums4 &product, const Sums4 &coarse, const Sums4 &direct, PwMode mode)
{
  return mode == PwMode::Plain ? product.v[0] : (mode == PwMode::Identity ? product.v[0] - coarse.v[0] : direct.v[0]);
}

/* w = A x over the local rows and the inner products of slot into S(slot) = {(x, w), (r, x), (r, r), (x, x)} (the
   last three 0 when r is empty). product: w = A x + Ao g (A: the n x n local block; Ao: the ghost block, may have 0
   rows, g its ghost values); otherwise w is given and only read. One pass, one reduction left on the device. */
void ProductDots(bool product, const CsrMatrix &A, const CsrMatrix &Ao, UView<const Scalar> g, UView<const Scalar> x, UView<Scalar> w, UView<const Scalar> r, Sums S, int slot);

/* S(slot) = {(p, w - AZ a2), 0, 0, 0} (AZ: n x d CSR, a2 a replicated d-vector) */
void DeflatedDot(const CsrMatrix &AZ, UView<const Scalar> a2, UView<const Scalar> p, UView<const Scalar> w, Sums S, int slot);

/* With pw = DeflatedPw(S(Product), S(Coarse), S(Direct), mode) read on the device: when pw > 0, alpha = dp / pw,
   x += alpha p and r -= alpha (w - AZ a2) (AZ a2 skipped when mode is Plain); otherwise (a breakdown, or NaN) x and r
   are left unchanged. */
void UpdateXR(Scalar dp, Sums S, PwMode mode, const CsrMatrix &AZ, UView<const Scalar> a2, UView<const Scalar> p, UView<const Scalar> w, UView<Scalar> x, UView<Scalar> r);

/* local sums yr = (y, r), rr = (r, r), yy = (y, y), returned to the host */
void DotNorm(UView<const Scalar> y, UView<const Scalar> r, Scalar &yr, Scalar &rr, Scalar &yy);
/* the same into S(slot) = {(y, r), (r, r), (y, y), 0} on the device */
void DotNorm(UView<const Scalar> y, UView<const Scalar> r, Sums S, int slot);

/* p <- y + beta p */
void UpdateP(Scalar beta, UView<const Scalar> y, UView<Scalar> p);

/* The update of the single-reduction iteration: s <- (w - AZ a2) + beta s, p <- u + beta p, x <- x + alpha p,
   r <- r - alpha s (AZ a2 skipped when deflate is false) */
void PipelinedUpdate(Scalar alpha, Scalar beta, bool deflate, const CsrMatrix &AZ, UView<const Scalar> a2, UView<const Scalar> u, UView<const Scalar> w, UView<Scalar> p, UView<Scalar> s, UView<Scalar> x, UView<Scalar> r);
} // namespace dcg
} // namespace petsckp
