/*
   kp_kcycle.hpp - the vector kernels of the inner iteration of the K-cycle (the nonlinear AMLI-cycle: L. Wang, X. Hu,
   J. Cohen and J. Xu, A parallel auxiliary grid algebraic multigrid method for graphic processing units, SIAM J. Sci.
   Comput. 35 (2013), Algorithm 2.1; Y. Notay and P. S. Vassilevski, Recursive Krylov-based multigrid cycles, Numer.
   Linear Algebra Appl. 15 (2008)), with every scalar of the iteration kept on the device.

   On level k the coarse correction is n steps of the generalised conjugate gradient
       u_0 = 0, r_0 = f; for i = 0 .. n-1:
         p_i = Bhat[r_i] - sum_{j<i} beta_j p_j,  beta_j = (Bhat[r_i], A p_j) / (p_j, A p_j)
         alpha_i = (r_i, p_i) / (p_i, A p_i); u_{i+1} = u_i + alpha_i p_i; r_{i+1} = r_i - alpha_i A p_i.
   A small preconditioner application on a GPU is latency-bound, and each inner product that the host reads costs a
   synchronisation. Here every step reduces all the inner products it needs in one pass over the vectors, into device
   memory (KCycleScalars), and the kernels that need a ratio of them (beta_j, alpha_i) read them there: no host
   synchronisation at all. The host reads the scalars only to decide something that changes the work: the early exit
   of Notay and Vassilevski after the first step (||r_1|| <= t ||r_0||, which skips the second recursion), and under
   MPI, where the partial sums of the ranks are added (through the host) before the kernels read them.

   A breakdown, (p_i, A p_i) <= 0 and finite (p_i = 0 when r_i = 0, or a preconditioner that is not SPD), stops the
   iteration with the iterate it has: the kernels of step i and of every later step see it in the stored (p_j, A p_j),
   j <= i, and leave u (and r) unchanged; one of them counts it (when (p_i, A p_i) < 0 or (p_i, r_i) != 0) in
   KCycleScalars::breakdowns. A (p_i, A p_i) that is not finite is no breakdown: alpha_i is then NaN or Inf and goes
   on into u, where the outer Krylov method sees it.

   Real scalars: inner products without conjugation. Every reduction of this file leaves its result on the device
   (no fence) and has a label that contains "KCycle".
*/
#pragma once

#include "kp_kokkos.hpp"

namespace petsckp
{
/* four scalars summed together (the results of one fused reduction) */
struct Sums4 {
  Scalar v[4];
  KOKKOS_INLINE_FUNCTION Sums4() { v[0] = v[1] = v[2] = v[3] = Scalar(0); }
  KOKKOS_INLINE_FUNCTION Sums4 &operator+=(const Sums4 &o)
  {
    for (int k = 0; k < 4; k++) v[k] += o.v[k];
    return *this;
  }
#if !defined(PETSCKP_KOKKOS4)
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile Sums4 &o) volatile
  {
    for (int k = 0; k < 4; k++) v[k] += o.v[k];
  }
#endif
};
} // namespace petsckp

namespace Kokkos
{
template <>
struct reduction_identity<petsckp::Sums4> {
  KOKKOS_FORCEINLINE_FUNCTION static petsckp::Sums4 sum() { return petsckp::Sums4(); }
};
} // namespace Kokkos

namespace petsckp
{
/* The device scalars of the inner iteration of one level (n steps):
     step(0)     = {(r_1, r_1), 0, 0, 0}                      (for the early exit)
     step(1 + i) = {(p_i, A p_i), (p_i, r_i), (r_0, r_0) at i = 0 with the early exit, else 0, 0}
     ortho(c)    = {(p_i, A p_j) : j = 4c .. 4c + 3}          (the current step i's orthogonalisation)
     breakdowns  = the breakdowns counted so far
   hstep and hortho are host mirrors for the reads of the host (page-locked memory with CUDA: a small copy from the
   device is then one asynchronous transfer). */
#if defined(KOKKOS_ENABLE_CUDA)
using KCycleHostSpace = Kokkos::CudaHostPinnedSpace;
#else
using KCycleHostSpace = Kokkos::HostSpace;
#endif
struct KCycleScalars {
  Int                                   n = 0;
  View<Sums4>                           step, ortho;
  View<Int>                             breakdowns;
  Kokkos::View<Sums4 *, KCycleHostSpace> hstep, hortho;
};

/* allocates S for n >= 1 steps (the breakdown count starts at 0) */
void KCycleScalarsCreate(Int n, KCycleScalars &S);

/* step(1 + i) = {(p, Ap), (p, r), rr ? (r, r) : 0, 0} in one pass */
void KCycleStepDots(const KCycleScalars &S, Int i, UView<const Scalar> p, UView<const Scalar> Ap, UView<const Scalar> r, bool rr);

/* ortho(c) = {(p, Ap[q]) : q < k} (0 for q >= k) in one pass, 1 <= k <= 4: the coefficients of the directions
   j = 4c + q */
void KCycleOrthoDots(const KCycleScalars &S, Int c, UView<const Scalar> p, int k, const UView<const Scalar> Ap[]);

/* Unless the iteration stopped at a step before i: p += sum_{q<k} beta_j pj[q], beta_j = -(p, A p_j) / (p_j, A p_j)
   (j = 4c + q, from ortho(c) and step(1 + j)); p must not alias any pj[q] */
void KCycleOrthogonalise(const KCycleScalars &S, Int i, Int c, int k, const UView<const Scalar> pj[], UView<Scalar> p);

/* Step i's update with alpha = (p, r_i) / (p, A p) from step(1 + i): unless the iteration stopped at step i or
   before, u = alpha p (i == 0: u is not read) or u += alpha p, and rout = rin - alpha Ap when rout is not empty
   (rout may alias rin); when it stops at step i, u = 0 (i == 0) or unchanged, and rout = rin. With norm,
   step(0) = {(rout, rout), 0, 0, 0} (rout must not be empty). A breakdown at step i is counted. */
void KCycleUpdate(const KCycleScalars &S, Int i, UView<const Scalar> p, UView<const Scalar> Ap, UView<const Scalar> rin, UView<Scalar> rout, UView<Scalar> u, bool norm);

/* the reducer whose result is step(1 + i) of S, on the device (no fence): for a PC's kernel that fuses a level's
   product with the step's inner products (MGLevelOps::KCycleMultDots); its label should contain "KCycle" */
inline Kokkos::Sum<Sums4, MemSpace> KCycleStepReducer(const KCycleScalars &S, Int i)
{
  return Kokkos::Sum<Sums4, MemSpace>(Kokkos::View<Sums4, MemSpace>(S.step.data() + 1 + i));
}

/* the breakdown rule (host and device): (p_i, A p_i) <= 0 and finite */
KOKKOS_INLINE_FUNCTION bool KCycleStops(const Sums4 &s)
{
  const Real pap = PetscRealPart(s.v[0]);
  return pap <= 0 && pap - pap == 0;
}
} // namespace petsckp
