/* Kernel launches and host synchronisations per iteration of TAO lbfgsb (L-BFGS-B 3.0 of Byrd, Lu, Nocedal and Zhu
   with the device passes of Fei, Rong, Wang and Wang, "Parallel L-BFGS-B algorithm on GPU", 2014), bounded and
   unbounded: at a million variables an iteration on a GPU is latency-bound, so what counts is how many kernels it
   launches and how often the host waits for the device. Counted with Kokkos' profiling callbacks
   (parallel_for/reduce/scan, deep_copy, fence) and PETSc's event counts of the vector operations
   (kp_launches.hpp); the objective's own kernel (label "test::") is left out.

   A host synchronisation here is: a PETSc vector reduction, a Kokkos reduction or scan with its result in a host scalar
   (every reduction but the one of the breakpoint scan that leaves its result on the device), a deep_copy (Kokkos 3,
   which reports no fences: an upper bound, since the small copies to the device are counted too) or an explicit fence
   (Kokkos 4). The counts per iteration are the difference between two solves of K1 and
   K2 iterations from the same start, divided by K2 - K1 (the setup cancels).

   Problem: f(x) = 1/2 sum (x_(i+1) - x_i)^2 + 1/200 sum x_i^2 + sum b_i x_i, b random in [-1, 1], on one process,
   with the box [-1, 1] (bounded: a large part of the variables ends on a bound) or without bounds. The size is an
   option of the test binary, -lbfgsb_launch_n <n> (default 20000); the counts are printed, with
   PETSCKP_LAUNCH_LABELS=1 per label. */
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
  PetscInt its = 0;
};

Counts Snapshot()
{
  Counts c;
  for (const char *n : kVecOps) c.vecops += EventCount(n);
  for (const char *n : kVecReductions) c.vecreductions += EventCount(n);
  c.kernels         = LaunchCounts().launches;
  c.host_reductions = LaunchCounts().host_reductions;
  c.deep_copies     = LaunchCounts().deep_copies;
  c.fences          = LaunchCounts().fences;
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
  StartCounting(LaunchRules{"test::", "BreakpointStopSegmentFirst", true});
  const Counts c0 = Snapshot();
  KP_OK(TaoSolve(tao));
  Kokkos::fence();
  Counts c1 = Snapshot();
  StopCounting();
  c1.kernels -= c0.kernels;
  c1.vecops -= c0.vecops;
  c1.vecreductions -= c0.vecreductions;
  c1.host_reductions -= c0.host_reductions;
  c1.deep_copies -= c0.deep_copies;
  c1.fences -= c0.fences;
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

PetscInt OptionInt(const char *name, PetscInt def)
{
  PetscInt  v = def;
  PetscBool flg;
  if (PetscOptionsGetInt(NULL, NULL, name, &v, &flg)) return def;
  return v;
}
} // namespace

/* Prints the counts per iteration, bounded and unbounded, and checks them against budgets: an unbounded iteration
   waits for the device 5 times (the products with the stored pairs of subsm, the subspace step with the start of the
   line search, one per trial step for g^T d, the projected gradient with the gradient change, the update); a bounded
   one adds the Cauchy point (one read of its first pass with W^T d, one of its last pass with the free set, and per
   round of the breakpoint scan the selection and the segment state), the reduced gradient's products and the
   corrections of the Gram blocks. On this problem the scan runs in most iterations, in one round (1.2 rounds on
   average at 1M variables: with the first chunk of 4096 breakpoints growing 8x per round; 2.7 rounds when it was 64
   and doubled). */
TEST(LbfgsbLaunches, PerIteration)
{
  const PetscInt n = OptionInt("-lbfgsb_launch_n", 20000), k1 = 10, k2 = 30;
  PetscBool      logging = PETSC_FALSE;
  Chain          ch;

  KP_OK(PetscLogIsActive(&logging));
  if (!logging) KP_OK(PetscLogDefaultBegin());
  ch.b = ToDevice(RandomVector(n, 5));
  std::cout << "  problem            its  kernels/it  PETSc-vec-ops/it  host-syncs/it (vec-reductions, host-reductions, deep-copies, fences)\n";
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
#if KOKKOS_VERSION >= 40000
    c.syncs = c.vecreductions + c.host_reductions + c.fences;
#else
    c.syncs = c.vecreductions + c.host_reductions + c.deep_copies;
#endif
    std::cout << std::fixed << std::setprecision(2) << "  " << (bounded ? "bounded  " : "unbounded") << " n=" << std::left << std::setw(7) << n << std::right << std::setw(4) << k2 << std::setw(12) << c.kernels << std::setw(18) << c.vecops << std::setw(15) << c.syncs << " (" << c.vecreductions << ", " << c.host_reductions << ", " << c.deep_copies << ", " << c.fences << ")\n";
    /* budgets (the counts before the fused passes, same problem: bounded 41.5 kernels, 5 PETSc Vec operations and
       11.8 reductions read by the host per iteration; unbounded 10, 5 and 5) */
    if (bounded) {
      EXPECT_LE(c.kernels, 30.0);
      EXPECT_LE(c.vecreductions + c.host_reductions, 6.0);
    } else {
      EXPECT_LE(c.kernels, 7.0);
      EXPECT_LE(c.vecreductions + c.host_reductions, 3.5);
    }
    EXPECT_LE(c.vecops, 2.5);
  }
}
