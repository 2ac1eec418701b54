/* Kernel launches and host synchronisations per iteration of TAO lbfgsb (L-BFGS-B 3.0 of Byrd, Lu, Nocedal and Zhu
   with the device passes of Fei, Rong, Wang and Wang, "Parallel L-BFGS-B algorithm on GPU", 2014), bounded and
   unbounded: at a million variables an iteration on a GPU is latency-bound, so what counts is how many kernels it
   launches and how often the host waits for the device. Counted with Kokkos' profiling callbacks
   (parallel_for/reduce/scan, deep_copy, fence) and PETSc's event counts of the vector operations
   (kp_launches.hpp); the objective's own kernel (label "test::") is left out.

   A host synchronisation here is: a PETSc vector reduction, a Kokkos reduction or scan with its result in a host scalar
   (every reduction but the one of the breakpoint scan that leaves its result on the device, every scan but FreeSetList
   and SelectBreakpointsCount, which leave their counts on the device; the Gram corrections and those counts come back
   with the segment state of the scan), a deep_copy (Kokkos 3, which reports no fences:
   an upper bound, since the small copies to the device are counted too) or a fence (Kokkos 4; not the global fences
   Kokkos adds around every kernel while a profiling tool such as this counter is attached, see kp_launches.hpp). The
   counts per iteration are the difference between two solves of K1 and K2 iterations from the same start, divided by
   K2 - K1 (the setup cancels). The memory traffic is a model (Words()): the bytes each kernel must move over the
   n-vectors, so that times on a GPU can be set against the bandwidth.

   Problem: f(x) = 1/2 sum (x_(i+1) - x_i)^2 + 1/200 sum x_i^2 + sum b_i x_i, b random in [-1, 1], on one process,
   with the box [-1, 1] (bounded: a large part of the variables ends on a bound) or without bounds. The size is an
   option of the test binary, -lbfgsb_launch_n <n> (default 20000); the counts are printed, with
   PETSCKP_LAUNCH_LABELS=1 per label (kernels, "(deep_copy)", "(fence) <Kokkos' label>"). */
#include "kp_test.hpp"
#include "kp_launches.hpp"
#include "kp_vec.hpp"
#include <petsckp.h>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>

using namespace kptest;

namespace
{
#define KP_OK(expr) ASSERT_EQ((int)(expr), 0)

const char *const kVecOps[]        = {"VecSet", "VecCopy", "VecAXPY", "VecAYPX", "VecAXPBY", "VecAXPBYCZ", "VecWAXPY", "VecMAXPY", "VecScale", "VecPointwiseMult", "VecPointwiseMax", "VecPointwiseMin", "VecSwap", "VecNorm", "VecDot", "VecTDot", "VecMDot"};
const char *const kVecReductions[] = {"VecNorm", "VecDot", "VecTDot", "VecMDot"};

struct Counts {
  double kernels = 0, vecops = 0, syncs = 0, vecreductions = 0, host_reductions = 0, deep_copies = 0, fences = 0;
  double words = 0; /* modelled memory traffic, in 8-byte words per variable (see Words()) */
  PetscInt its = 0;
};

/* The memory-traffic model: the 8-byte words per variable that a kernel (by its label) or a PETSc Vec operation reads
   and writes over the n-vectors, for m stored pairs (the memory full, an update every iteration), with or without
   bounds. Integers count sizeof(PetscInt)/8. Not modelled (0): the work over the breakpoint records and the changed
   rows of the Gram blocks (proportional to their numbers, not to n), the small sums, the objective. Assumed: the step
   of the line search is 1 (no scaled copy of s), and no breakpoint is passed in FreeSetList and the subspace step
   (else each reads t once more: +2 and +1 words). */
double Words(const std::string &label, int m, bool bounded)
{
  const double c = m, I = sizeof(PetscInt) / 8.0;
  if (label == "lbfgsb::EndPass") /* l, u, x, g, g_old, d, the m - 1 kept pairs, gfree; r (and with bounds d, t, iwhere) */
    return 6 + 2 * (c - 1) + I + 1 + (bounded ? 2 + I : 0);
  if (label == "lbfgsb::FreeSetList") return 2 * 2 * I;                 /* iwhere, gfree, in both passes of the scan */
  if (label == "lbfgsb::SubspaceStepStartGcp") return 4 + I + 2 * c + 4; /* l, u, x, g, iwhere, the pairs; x_new, d, x_old, g_old */
  if (label == "lbfgsb::BreakpointHistogram") return 1;                 /* t */
  if (label == "lbfgsb::SelectBreakpoints" || label == "lbfgsb::SelectBreakpointsCount") return 2; /* t, in both passes of the scan */
  /* the kernels of the other paths (first iteration, option variants, earlier passes) */
  if (label == "lbfgsb::CauchyInitDots") return 4 + 2 * c + 2 + I;
  if (label == "lbfgsb::CauchyInit") return 4 + 2 + I;
  if (label == "lbfgsb::PairDots") return 1 + 2 * c;
  if (label == "lbfgsb::UpdateProducts") return 2 * c + I;
  if (label == "lbfgsb::PairCombine") return 2 * c + 4 + I;
  if (label == "lbfgsb::SubspaceStepStart") return 5 + I + 2 * c + 6;
  if (label == "lbfgsb::LineSearchStartMax") return 5 + 3;
  if (label == "lbfgsb::ProjGrad") return 4;
  if (label == "lbfgsb::CauchyPointVec") return 5 + I + 1;
  return 0;
}
double VecOpWords(const char *op)
{
  const std::string o(op);
  if (o == "VecSet" || o == "VecNorm") return 1;
  if (o == "VecCopy" || o == "VecScale" || o == "VecDot" || o == "VecTDot" || o == "VecSwap") return 2;
  if (o == "VecAXPY" || o == "VecAYPX" || o == "VecWAXPY" || o == "VecPointwiseMult" || o == "VecPointwiseMax" || o == "VecPointwiseMin") return 3;
  if (o == "VecAXPBY") return 3;
  if (o == "VecAXPBYCZ") return 4;
  return 0; /* VecMAXPY, VecMDot: not used by lbfgsb */
}

Counts Snapshot(int m, bool bounded)
{
  Counts c;
  for (const char *n : kVecOps) {
    c.vecops += EventCount(n);
    c.words += EventCount(n) * VecOpWords(n);
  }
  for (const char *n : kVecReductions) c.vecreductions += EventCount(n);
  c.kernels         = LaunchCounts().launches;
  c.host_reductions = LaunchCounts().host_reductions;
  c.deep_copies     = LaunchCounts().deep_copies;
  c.fences          = LaunchCounts().fences;
  for (auto &e : LaunchCounts().labels) c.words += e.second * Words(e.first, m, bounded);
  return c;
}

struct Chain {
  View<Real> b;
};

/* the objective and its gradient in one kernel (label "test::", not counted) */
PetscErrorCode FormFG(Tao, Vec X, PetscReal *f, Vec G, void *ctx)
{
  Chain            *ch = (Chain *)ctx;
  petsckp::DeviceVec x, g;
  PetscReal         s = 0;

  PetscFunctionBegin;
  PetscCall(x.Get(X, petsckp::Access::Read));
  PetscCall(g.Get(G, petsckp::Access::Write));
  {
    auto       xv = x.cview();
    auto       gv = g.view();
    auto       b  = ch->b;
    const Int  n  = x.size();
    Kokkos::parallel_reduce(
      "test::chain_fg", Kokkos::RangePolicy<petsckp::ExecSpace>(petsckp::exec(), 0, n),
      KOKKOS_LAMBDA(const Int i, Real &a) {
        const Real xi = xv(i), xl = i > 0 ? xv(i - 1) : 0.0, xr = i + 1 < n ? xv(i + 1) : 0.0;
        Real       gi = 0.01 * xi + b(i);
        if (i > 0) gi += xi - xl;
        if (i + 1 < n) {
          gi -= xr - xi;
          a += 0.5 * (xr - xi) * (xr - xi);
        }
        gv(i) = gi;
        a += 0.005 * xi * xi + b(i) * xi;
      },
      s);
  }
  PetscCall(g.Restore());
  PetscCall(x.Restore());
  *f = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* counts of one solve of at most maxit iterations */
void Solve(PetscInt n, bool bounded, PetscInt maxit, Chain *ch, Counts *c)
{
  Tao tao;
  Vec x, xl, xu;

  KP_OK(VecCreate(PETSC_COMM_SELF, &x));
  KP_OK(VecSetSizes(x, n, n));
  KP_OK(VecSetFromOptions(x));
  KP_OK(VecSet(x, 0.0));
  KP_OK(TaoCreate(PETSC_COMM_SELF, &tao));
  KP_OK(TaoSetType(tao, TAOLBFGSB));
  KP_OK(TaoSetSolution(tao, x));
  KP_OK(TaoSetObjectiveAndGradient(tao, NULL, FormFG, ch));
  if (bounded) {
    KP_OK(VecDuplicate(x, &xl));
    KP_OK(VecDuplicate(x, &xu));
    KP_OK(VecSet(xl, -1.0));
    KP_OK(VecSet(xu, 1.0));
    KP_OK(TaoSetVariableBounds(tao, xl, xu));
  }
  KP_OK(TaoSetTolerances(tao, 0.0, 0.0, 0.0));
  KP_OK(TaoSetMaximumIterations(tao, maxit));
  KP_OK(TaoSetMaximumFunctionEvaluations(tao, 100 * maxit));
  KP_OK(TaoLBFGSBSetFactr(tao, 0.0));
  KP_OK(TaoLBFGSBSetMemory(tao, 8));
  KP_OK(TaoSetUp(tao));
  Kokkos::fence();
  /* the reductions of the breakpoint scan that stay on the device; every scan returns its total to the host but
     FreeSetList's and SelectBreakpointsCount's, which leave their counts on the device */
  StartCounting(LaunchRules{"test::", "BreakpointStopSegmentFirst", true, "FreeSetList|SelectBreakpointsCount"});
  const Counts c0 = Snapshot(8, bounded);
  KP_OK(TaoSolve(tao));
  Kokkos::fence();
  Counts c1 = Snapshot(8, bounded);
  StopCounting();
  c1.kernels -= c0.kernels;
  c1.vecops -= c0.vecops;
  c1.vecreductions -= c0.vecreductions;
  c1.host_reductions -= c0.host_reductions;
  c1.deep_copies -= c0.deep_copies;
  c1.fences -= c0.fences;
  c1.words -= c0.words;
  KP_OK(TaoGetIterationNumber(tao, &c1.its));
  *c = c1;
  if (std::getenv("PETSCKP_LAUNCH_LABELS"))
    for (auto &e : LaunchCounts().labels) std::cout << "    " << std::setw(8) << e.second << "  " << e.first << "\n";
  if (bounded) {
    KP_OK(VecDestroy(&xl));
    KP_OK(VecDestroy(&xu));
  }
  KP_OK(TaoDestroy(&tao));
  KP_OK(VecDestroy(&x));
}

} // namespace

/* Prints the counts per iteration, bounded and unbounded, and the modelled memory traffic (Words()), and checks them
   against budgets. An unbounded iteration waits for the device 3 times: the end pass (the projected gradient, the
   gradient change, the update's products, W^T d of the next step and the histogram of its breakpoints, one read), the
   subspace step with the start of the line search, and one g^T d per trial step. A bounded one adds one read per round
   of the breakpoint scan: the segment state with the selection's count and, computed from that state on the device
   before the read, the free set at the point the round ends at with the Gram corrections for its changes (FreeSetList,
   MaskedGram); when no scan runs, the free set with the Gram corrections is that one read. The first chunk is cut from
   the end pass's histogram (no histogram pass of its own). On this problem the scan runs in most iterations, in one
   round. Host synchronisations: PETSc vector reductions + Kokkos reductions and scans into host values + fences
   (Kokkos 4; on Kokkos 3, which reports no fences, the deep copies stand in for them: an upper bound, since the small
   copies to the device are counted too). */
TEST(LbfgsbLaunches, PerIteration)
{
  const PetscInt n = OptionInt("-lbfgsb_launch_n", 20000), k1 = 10, k2 = 30;
  PetscBool      logging = PETSC_FALSE;
  Chain          ch;
  double         words[2] = {0, 0};

  {
    Vec  probe;
    bool kokkos;
    KP_OK(VecCreate(PETSC_COMM_SELF, &probe));
    KP_OK(VecSetSizes(probe, 1, 1));
    KP_OK(VecSetFromOptions(probe));
    kokkos = kptest::VecOpsAreKokkosKernels(probe);
    KP_OK(VecDestroy(&probe));
    if (kokkos) GTEST_SKIP() << "PETSc's VECKOKKOS operations are Kokkos kernels: counted with the CUDA and host types";
  }
  KP_OK(PetscLogIsActive(&logging));
  if (!logging) KP_OK(PetscLogDefaultBegin());
  ch.b = ToDevice(RandomVector(n, 5));
  std::cout << "  problem            its  kernels/it  PETSc-vec-ops/it  host-syncs/it (vec-reductions, host-reductions, deep-copies, fences)  model: bytes/variable/it\n";
  for (int bounded = 1; bounded >= 0; bounded--) {
    Counts a, b;
    ASSERT_NO_FATAL_FAILURE(Solve(n, bounded != 0, k1, &ch, &a));
    ASSERT_NO_FATAL_FAILURE(Solve(n, bounded != 0, k2, &ch, &b));
    ASSERT_EQ(a.its, k1);
    ASSERT_EQ(b.its, k2);
    const double d = (double)(k2 - k1);
    Counts       c;
    c.kernels         = (b.kernels - a.kernels) / d;
    c.vecops          = (b.vecops - a.vecops) / d;
    c.vecreductions   = (b.vecreductions - a.vecreductions) / d;
    c.host_reductions = (b.host_reductions - a.host_reductions) / d;
    c.deep_copies     = (b.deep_copies - a.deep_copies) / d;
    c.fences          = (b.fences - a.fences) / d;
    c.words           = (b.words - a.words) / d;
    words[bounded]    = c.words;
    c.syncs = HostSyncs(c.vecreductions, c.host_reductions, c.deep_copies, c.fences);
    std::cout << std::fixed << std::setprecision(2) << "  " << (bounded ? "bounded  " : "unbounded") << " n=" << std::left << std::setw(7) << n << std::right << std::setw(4) << k2 << std::setw(12) << c.kernels << std::setw(18) << c.vecops << std::setw(15) << c.syncs << " (" << c.vecreductions << ", " << c.host_reductions << ", " << c.deep_copies << ", " << c.fences << ")" << std::setw(28) << 8 * c.words << "\n";
    /* budgets (before the fused passes, same problem: bounded 41.5 kernels, 5 PETSc Vec operations and 11.8 reductions
       read by the host per iteration, unbounded 10, 5 and 5; before the end pass and the described Cauchy point, at 1M
       variables: bounded 21 kernels, 5 reads, 15 deep copies and 127 modelled words per variable, unbounded 6, 3, 4
       and 68; before the histogram in the end pass and the free set in the scan's read: bounded 16, 2, 10 and 57.5
       (4 fences on Kokkos 4); now 14, 2, 5 and 56.5 (2 fences), unbounded 3, 2, 3 and 50 (1 fence)) */
    if (bounded) {
      EXPECT_LE(c.kernels, 14.0);
      EXPECT_LE(c.vecreductions + c.host_reductions, 2.5);
      EXPECT_LE(c.deep_copies, 5.5);
      EXPECT_LE(c.words, 57.0);
    } else {
      EXPECT_LE(c.kernels, 3.0);
      EXPECT_LE(c.vecreductions + c.host_reductions, 2.2);
      EXPECT_LE(c.deep_copies, 3.0);
      EXPECT_LE(c.words, 51.0);
    }
#if KOKKOS_VERSION >= 40000
    /* the explicit waits: bounded the end pass and per round of the breakpoint scan the segment state with the free
       set and the Gram corrections (or that free set alone when no scan runs); unbounded the end pass */
    EXPECT_LE(c.fences, bounded ? 2.5 : 1.5);
#endif
    EXPECT_LE(c.vecops, 2.5);
  }
  std::cout << std::setprecision(2) << "  model: bounded / unbounded traffic per iteration " << words[1] / words[0] << " (" << 8 * words[1] * n / 1e6 << " and " << 8 * words[0] * n / 1e6 << " MB at n = " << n << ")\n";
  if (std::getenv("PETSCKP_LAUNCH_LABELS")) std::cout << std::flush;
}
