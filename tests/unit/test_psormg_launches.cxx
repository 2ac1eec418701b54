/* Kernel launches and host synchronisations of one cycle of PCPSORMG on the hemispherical obstacle problem (Bueler's
   test of an obstacle solver), with the truncated monotone multigrid (R. Kornhuber, Monotone multigrid methods for
   elliptic variational inequalities I, Numer. Math. 69 (1994)) against the monotone restriction. A cycle of a large
   grid is latency-bound on a GPU: what the truncation adds per cycle (the mask of the active set, the truncated
   transfers and the refresh of the coarse Galerkin operators where the active set moved) must be a few kernels and no
   host round trip beyond the one that reads the active set's moves.

   One cycle is counted as the difference of PCApplyRichardson() with one cycle and with none (the measures of the
   initial iterate, the checks of the bounds, the projection of the initial guess are the call's, not the cycle's).
   The coarsest-grid solve runs a fixed number of sweeps (PCPSORMGSetCoarseSolve with a tolerance never met), so that
   the counts do not depend on how fast it converges. Counted with Kokkos' profiling callbacks (kp_launches.hpp) and
   PETSc's event counts of the vector operations. The size is an option of the test binary: -psormg_launch_n <n>
   (default 129: n x n points); PETSCKP_LAUNCH_LABELS=1 prints the kernels of every cycle. */
#include "kp_test.hpp"
#include "kp_launches.hpp"
#include <petsckp.h>
#include <petscdmda.h>
#include <cstdlib>
#include <iomanip>
#include <iostream>

using namespace kptest;

namespace
{
#define KP_OK(expr) ASSERT_EQ((int)(expr), 0)

const char *const kVecOps[]        = {"VecSet", "VecCopy", "VecAXPY", "VecAYPX", "VecAXPBY", "VecAXPBYCZ", "VecWAXPY", "VecMAXPY", "VecScale", "VecPointwiseMult", "VecPointwiseMax", "VecPointwiseMin", "VecReciprocal", "VecSwap", "VecNorm", "VecDot", "VecTDot", "VecMDot", "VecMTDot"};
const char *const kVecReductions[] = {"VecNorm", "VecDot", "VecTDot", "VecMDot", "VecMTDot"};

struct Counts {
  long                        kernels = 0, vecops = 0, syncs = 0, vecreductions = 0, host_reductions = 0, deep_copies = 0, fences = 0;
  std::map<std::string, long> labels;
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
  c.labels          = LaunchCounts().labels;
  return c;
}

Counts Difference(const Counts &a, const Counts &b)
{
  Counts d;
  d.kernels         = b.kernels - a.kernels;
  d.vecops          = b.vecops - a.vecops;
  d.vecreductions   = b.vecreductions - a.vecreductions;
  d.host_reductions = b.host_reductions - a.host_reductions;
  d.deep_copies     = b.deep_copies - a.deep_copies;
  d.fences          = b.fences - a.fences;
  d.syncs = HostSyncs(d.vecreductions, d.host_reductions, d.deep_copies, d.fences);
  for (auto &e : b.labels) {
    auto      it = a.labels.find(e.first);
    const long n = e.second - (it == a.labels.end() ? 0 : it->second);
    if (n) d.labels[e.first] = n;
  }
  return d;
}

/* one cycle minus no cycle */
Counts CycleOnly(const Counts &cycle, const Counts &none)
{
  Counts d;
  d.kernels         = cycle.kernels - none.kernels;
  d.vecops          = cycle.vecops - none.vecops;
  d.vecreductions   = cycle.vecreductions - none.vecreductions;
  d.host_reductions = cycle.host_reductions - none.host_reductions;
  d.deep_copies     = cycle.deep_copies - none.deep_copies;
  d.fences          = cycle.fences - none.fences;
  d.syncs           = cycle.syncs - none.syncs;
  for (auto &e : cycle.labels) {
    auto      it = none.labels.find(e.first);
    const long n = e.second - (it == none.labels.end() ? 0 : it->second);
    if (n) d.labels[e.first] = n;
  }
  return d;
}

/* hemisphere (Bueler): free-boundary radius and the coefficients of the exact solution -A log r + B */
const PetscReal hs_a = 0.697965148223374, hs_A = 0.680259411891719, hs_B = 0.471519893402112;
PetscReal       HemiExact(PetscReal x, PetscReal y)
{
  PetscReal r = PetscSqrtReal(x * x + y * y);
  return r <= hs_a ? PetscSqrtReal(1 - r * r) : -hs_A * PetscLogReal(r) + hs_B;
}
PetscReal HemiObstacle(PetscReal x, PetscReal y)
{
  PetscReal r2 = x * x + y * y;
  return r2 <= 1 ? PetscSqrtReal(1 - r2) : -1.0;
}

/* the obstacle example's hemisphere on an n x n DMDA of [-2, 2]^2: 5-point Laplacian, boundary points decoupled
   Dirichlet rows, lower bound the hemisphere; PCPSORMG set up, x = 0 (projected by the first call) */
struct Hemisphere {
  DM  da = nullptr;
  Mat A  = nullptr;
  Vec b = nullptr, x = nullptr, w = nullptr, lo = nullptr;
  PC  pc = nullptr;

  void Create(PetscInt n, PCPSORMGObstacleRestriction restriction)
  {
    PetscInt     xs, ys, xm, ym, t = 0;
    PetscScalar *ba, *la;
    const PetscReal h = 4.0 / (n - 1);
    KP_OK(DMDACreate2d(PETSC_COMM_SELF, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, 1, 1, 1, 1, NULL, NULL, &da));
#if defined(PETSC_HAVE_CUDA)
    if (kDeviceExec) {
      KP_OK(DMSetVecType(da, VECCUDA));
      KP_OK(DMSetMatType(da, MATAIJCUSPARSE));
    }
#endif
    KP_OK(DMSetFromOptions(da)); /* -dm_vec_type, -dm_mat_type (the tests give them with -vec_type, -mat_type) */
    KP_OK(DMSetUp(da));
    KP_OK(DMCreateMatrix(da, &A));
    KP_OK(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        MatStencil  row = {0, j, i, 0}, col[5];
        PetscScalar v[5];
        PetscInt    c = 0;
        auto        onb = [&](PetscInt a, PetscInt e) { return a == 0 || e == 0 || a == n - 1 || e == n - 1; };
        col[c] = row, v[c++] = 4;
        if (!onb(i, j)) {
          const PetscInt nb[4][2] = {{i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
          for (auto &q : nb)
            if (!onb(q[0], q[1])) col[c].i = q[0], col[c].j = q[1], col[c].k = 0, col[c].c = 0, v[c++] = -1;
        }
        KP_OK(MatSetValuesStencil(A, 1, &row, c, col, v, INSERT_VALUES));
      }
    KP_OK(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    KP_OK(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    KP_OK(DMCreateGlobalVector(da, &b));
    KP_OK(VecDuplicate(b, &x));
    KP_OK(VecDuplicate(b, &w));
    KP_OK(VecDuplicate(b, &lo));
    KP_OK(VecGetArray(b, &ba));
    KP_OK(VecGetArray(lo, &la));
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, t++) {
        const PetscReal xx = -2 + i * h, yy = -2 + j * h;
        la[t] = HemiObstacle(xx, yy);
        if (i == 0 || j == 0 || i == n - 1 || j == n - 1) ba[t] = 4.0 * HemiExact(xx, yy);
        else {
          ba[t] = 0;
          if (i == 1) ba[t] += HemiExact(xx - h, yy);
          if (i == n - 2) ba[t] += HemiExact(xx + h, yy);
          if (j == 1) ba[t] += HemiExact(xx, yy - h);
          if (j == n - 2) ba[t] += HemiExact(xx, yy + h);
        }
      }
    KP_OK(VecRestoreArray(lo, &la));
    KP_OK(VecRestoreArray(b, &ba));
    KP_OK(VecSet(x, 0.0));
    KP_OK(PCCreate(PETSC_COMM_SELF, &pc));
    KP_OK(PCSetDM(pc, da));
    KP_OK(PCSetType(pc, PCPSORMG));
    KP_OK(PCSetOperators(pc, A, A));
    KP_OK(PCPSORMGSetVariableBounds(pc, lo, NULL));
    KP_OK(PCPSORMGSetObstacleRestriction(pc, restriction));
    KP_OK(PCPSORMGSetCoarseSolve(pc, 1.5, 8, 1e-300)); /* 8 sweeps every time: counts independent of its convergence */
    KP_OK(PCSetUp(pc));
  }
  /* its cycles of PCApplyRichardson from x */
  void Apply(PetscInt its, PetscInt *outits)
  {
    PCRichardsonConvergedReason reason;
    KP_OK(PCApplyRichardson(pc, b, x, w, 1e-300, 0.0, 1e300, its, PETSC_FALSE, outits, &reason));
  }
  ~Hemisphere()
  {
    PCDestroy(&pc);
    MatDestroy(&A);
    VecDestroy(&b);
    VecDestroy(&x);
    VecDestroy(&w);
    VecDestroy(&lo);
    DMDestroy(&da);
  }
};

/* the counts of cycles 1 .. ncycles of PCPSORMG (each one cycle of PCApplyRichardson minus a call with none) */
void CountCycles(PetscInt n, PCPSORMGObstacleRestriction restriction, int ncycles, std::vector<Counts> &per, PetscInt *nlevels)
{
  Hemisphere p;
  PetscInt   its;
  ASSERT_NO_FATAL_FAILURE(p.Create(n, restriction));
  if (kptest::VecOpsAreKokkosKernels(p.x)) GTEST_SKIP() << "PETSc's VECKOKKOS operations are Kokkos kernels: counted with the CUDA and host types";
  KP_OK(PCPSORMGGetLevels(p.pc, nlevels));
  per.clear();
  for (int k = 0; k < ncycles; k++) {
    Counts none, cycle;
    Kokkos::fence();
    StartCounting(LaunchRules{});
    Counts c0 = Snapshot();
    ASSERT_NO_FATAL_FAILURE(p.Apply(0, &its));
    Counts c1 = Snapshot();
    ASSERT_NO_FATAL_FAILURE(p.Apply(1, &its));
    Counts c2 = Snapshot();
    StopCounting();
    ASSERT_EQ(its, 1);
    none  = Difference(c0, c1);
    cycle = Difference(c1, c2);
    per.push_back(CycleOnly(cycle, none));
  }
}

long Label(const Counts &c, const char *name)
{
  auto it = c.labels.find(name);
  return it == c.labels.end() ? 0 : it->second;
}
} // namespace

/* Prints the counts of the first cycles from x = 0 (projected) with the truncated and the monotone restriction, and
   checks what the truncation adds to a cycle of the monotone restriction (the same cycle otherwise, with the coarsest
   solve fixed at 8 sweeps):
   - every cycle: one kernel and one host synchronisation, the mask of the active set and the read of its moves
     (psormg::TruncationMask);
   - a cycle whose active set moved, once truncation is on: the refresh, at most 2 L + 1 kernels for L levels (the
     changed points of the mask, the changed rows of P and of R, then the changed rows of A P and R (A P) on each of
     the L - 1 coarse levels) and no host synchronisation;
   - the first truncation also keeps the setup's values of the transfers and makes the mask (up to 3 copies and 2
     kernels on the device, and what their allocation waits for, once);
   - no PETSc vector operation (after the first cycle, which makes the mask vector).
   And of the cycle itself: the coarsest-grid solve is one kernel (psormg::CoarsePsor), and the only host read of a
   monotone cycle is the convergence test of the iteration.
   On the first two cycles from x = 0 the active set moves by far more than 10% (no truncation), then it settles: the
   cycles counted include refreshes and cycles with an active set that did not move. */
TEST(PsormgLaunches, TruncatedCycle)
{
  const PetscInt n       = OptionInt("-psormg_launch_n", 129);
  const int      ncycles = 8;
  PetscBool      logging = PETSC_FALSE;
  const bool     labels  = std::getenv("PETSCKP_LAUNCH_LABELS") != nullptr;
  std::vector<Counts> tr, mo;
  PetscInt            nlt = 0, nlm = 0;

  KP_OK(PetscLogIsActive(&logging));
  if (!logging) KP_OK(PetscLogDefaultBegin());
  ASSERT_NO_FATAL_FAILURE(CountCycles(n, PC_PSORMG_OBSTACLE_TRUNCATED, ncycles, tr, &nlt));
  if (IsSkipped()) return;
  ASSERT_NO_FATAL_FAILURE(CountCycles(n, PC_PSORMG_OBSTACLE_MONOTONE, ncycles, mo, &nlm));
  ASSERT_EQ(nlt, nlm);
  std::cout << "  hemisphere " << n << "^2, " << nlt << " levels; per cycle: kernels, PETSc vec ops, host syncs (vec reductions, host reductions, deep copies, fences)\n";
  for (int k = 0; k < ncycles; k++) {
    for (int r = 0; r < 2; r++) {
      const Counts &c = r ? mo[k] : tr[k];
      std::cout << "  cycle " << k + 1 << (r ? " monotone " : " truncated") << std::setw(7) << c.kernels << std::setw(6) << c.vecops << std::setw(6) << c.syncs << " (" << c.vecreductions << ", " << c.host_reductions << ", " << c.deep_copies << ", " << c.fences << ")\n";
      if (labels)
        for (auto &e : c.labels) std::cout << "      " << std::setw(6) << e.second << "  " << e.first << "\n";
    }
  }
  int refreshes = 0, unchanged = 0;
  for (int k = 0; k < ncycles; k++) {
    const Counts &t = tr[k], &m = mo[k];
    /* the first truncated cycle allocates the truncation's arrays (the mask, the flags of every level, the setup's
       values of the transfers): one-time copies, kernels and, with Kokkos 4 on a GPU, fences (a View initialised by a
       memset is a deep copy there, not a labelled kernel, so the first truncation is told by its order, not a label) */
    const bool refresh = Label(t, "petsckp::SpgemmNumericChanged") > 0, first = refresh && refreshes == 0;
    SCOPED_TRACE("cycle " + std::to_string(k + 1));
    EXPECT_EQ(Label(t, "petsckp::psormg::TruncationMask"), 1);
    /* the coarsest-grid solve is one kernel, and the monotone cycle reads the host once (the convergence test) */
    EXPECT_EQ(Label(m, "petsckp::psormg::CoarsePsor"), 1);
    EXPECT_EQ(m.vecreductions + m.host_reductions, 1);
    EXPECT_LE(t.syncs, m.syncs + 1 + (first ? 3 * nlt : 0)); /* the read of the moves (once: an allocation's fence per array and level) */
    EXPECT_EQ(t.vecreductions + t.host_reductions, m.vecreductions + m.host_reductions + 1);
    EXPECT_LE(t.deep_copies, m.deep_copies + (first ? 3 : 0));
    if (k > 0) EXPECT_EQ(t.vecops, m.vecops);
    if (refresh) {
      refreshes++;
      EXPECT_LE(t.kernels, m.kernels + 1 + 2 * nlt + 1 + (first ? 2 : 0));
      EXPECT_EQ(Label(t, "petsckp::SpgemmNumericChanged"), 2 * (nlt - 1));
    } else {
      EXPECT_EQ(t.kernels, m.kernels + 1);
      if (k >= 2) unchanged++;
    }
    if (::testing::Test::HasFailure() && !labels)
      for (auto &e : t.labels) std::cout << "      " << std::setw(6) << e.second << "  " << e.first << "\n";
  }
  EXPECT_GE(refreshes, 1);
  if (n == 129) EXPECT_GE(unchanged, 1); /* at this size the active set stops moving within the cycles counted */
}
