/* Kernel launches and host synchronisations of one application of PCUAAMG (the auxiliary-grid AMG of Wang, Hu, Cohen
   and Xu, SIAM J. Sci. Comput. 35(3), 2013) on 2D and 3D Poisson problems: a small preconditioner application is
   latency-bound on a GPU, so what counts there is how many kernels it launches and how often the host waits for the
   device. Counted with Kokkos' profiling callbacks (parallel_for/reduce/scan, deep_copy, fence) and PETSc's event
   counts of the vector operations (each one or more GPU kernels with a device vector type; VecNorm, VecDot and VecMDot
   also wait for their result on the host).

   A host synchronisation here is: a PETSc vector reduction, a Kokkos reduction into a host scalar (every reduction
   whose label does not contain "KCycle": those leave their results on the device), a deep_copy, or an
   explicit fence (Kokkos 4 reports fences; Kokkos 3 on the host does not). The sizes are options of the test binary:
   -uaamg_launch_n2d <n> (default 256: n x n points) and -uaamg_launch_n3d <n> (default 32: n^3 points); the counts
   are printed, e.g. petsckp_unit --gtest_filter='UAAMGLaunches*' -uaamg_launch_n2d 2048 -uaamg_launch_n3d 129. */
#include "kp_test.hpp"
#include "kp_launches.hpp"
#include <petsckp.h>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>

using namespace kptest;

namespace
{
#define KP_OK(expr) ASSERT_EQ((int)(expr), 0)

/* ---- PETSc's vector operations, from the event counts of the default log handler */
const char *const kVecOps[]        = {"VecSet", "VecCopy", "VecAXPY", "VecAYPX", "VecAXPBY", "VecAXPBYCZ", "VecWAXPY", "VecMAXPY", "VecScale", "VecPointwiseMult", "VecReciprocal", "VecSwap", "VecNorm", "VecDot", "VecTDot", "VecMDot", "VecMTDot"};
const char *const kVecReductions[] = {"VecNorm", "VecDot", "VecTDot", "VecMDot", "VecMTDot"};

struct Counts {
  long kernels = 0, vecops = 0, syncs = 0, vecreductions = 0, host_reductions = 0, deep_copies = 0, fences = 0;
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

/* 5-point (2D) or 7-point (3D) Laplacian on n^d interior points, lexicographic order, and the points' coordinates */
void Poisson(int dim, PetscInt n, Mat *A, std::vector<PetscReal> &xyz)
{
  const PetscInt  N = dim == 2 ? n * n : n * n * n;
  const PetscReal h = 1.0 / (n + 1);
  KP_OK(MatCreate(PETSC_COMM_SELF, A));
  KP_OK(MatSetSizes(*A, N, N, N, N));
#if defined(PETSC_HAVE_CUDA)
  KP_OK(MatSetType(*A, kDeviceExec ? MATSEQAIJCUSPARSE : MATSEQAIJ)); /* device vectors, as an application on a GPU has */
#else
  KP_OK(MatSetType(*A, MATSEQAIJ));
#endif
  KP_OK(MatSeqAIJSetPreallocation(*A, 2 * dim + 1, NULL));
  xyz.resize((size_t)N * dim);
  for (PetscInt row = 0; row < N; row++) {
    PetscInt    t[3] = {row % n, (row / n) % n, dim == 3 ? row / (n * n) : 0}, cols[7], c = 0;
    PetscScalar v[7];
    cols[c] = row, v[c++] = 2.0 * dim;
    for (int a = 0; a < dim; a++) {
      const PetscInt stride = a == 0 ? 1 : (a == 1 ? n : n * n);
      if (t[a] > 0) cols[c] = row - stride, v[c++] = -1.0;
      if (t[a] < n - 1) cols[c] = row + stride, v[c++] = -1.0;
      xyz[(size_t)row * dim + a] = (t[a] + 1) * h;
    }
    KP_OK(MatSetValues(*A, 1, &row, c, cols, v, INSERT_VALUES));
  }
  KP_OK(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  KP_OK(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
}

enum class Config {
  Default, /* K-cycle, 2 inner steps, early exit 0.2 */
  Paper,   /* K-cycle without early exit (-pc_uaamg_kcycle_rtol 0) */
  VCycle   /* -pc_uaamg_cycle v */
};
const char *ConfigName(Config c) { return c == Config::Default ? "kcycle" : c == Config::Paper ? "kcycle_rtol0" : "vcycle"; }

/* per application: counts averaged over napply applications (after one that allocates the work vectors) */
void CountApplications(int dim, PetscInt n, Config cfg, int napply, Counts *per, PetscInt *nlevels)
{
  Mat                    A;
  PC                     pc;
  Vec                    b, y;
  PetscRandom            rnd;
  std::vector<PetscReal> xyz;

  ASSERT_NO_FATAL_FAILURE(Poisson(dim, n, &A, xyz));
  KP_OK(PCCreate(PETSC_COMM_SELF, &pc));
  KP_OK(PCSetType(pc, PCUAAMG));
  KP_OK(PCSetOperators(pc, A, A));
  KP_OK(PCSetCoordinates(pc, dim, (PetscInt)(xyz.size() / dim), xyz.data()));
  if (cfg == Config::Paper) KP_OK(PCUAAMGSetKCycle(pc, 2, 0.0, 0));
  if (cfg == Config::VCycle) KP_OK(PCUAAMGSetCycleType(pc, PC_UAAMG_CYCLE_V));
  KP_OK(PCSetUp(pc));
  KP_OK(PCUAAMGGetNumberOfLevels(pc, nlevels));
  KP_OK(MatCreateVecs(A, &b, &y));
  KP_OK(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  KP_OK(PetscRandomSetSeed(rnd, 7));
  KP_OK(PetscRandomSeed(rnd));
  KP_OK(VecSetRandom(b, rnd));
  KP_OK(PCApply(pc, b, y)); /* the first application allocates the K-cycle's vectors */
  Kokkos::fence();
  StartCounting(LaunchRules{nullptr, "KCycle", false});
  const Counts c0 = Snapshot();
  for (int k = 0; k < napply; k++) KP_OK(PCApply(pc, b, y));
  const Counts c1 = Snapshot();
  StopCounting();
  per->kernels         = (c1.kernels - c0.kernels) / napply;
  per->vecops          = (c1.vecops - c0.vecops) / napply;
  per->vecreductions   = (c1.vecreductions - c0.vecreductions) / napply;
  per->host_reductions = (c1.host_reductions - c0.host_reductions) / napply;
  per->deep_copies     = (c1.deep_copies - c0.deep_copies) / napply;
  per->fences          = (c1.fences - c0.fences) / napply;
  per->syncs = HostSyncs(per->vecreductions, per->host_reductions, per->deep_copies, per->fences);
  if (std::getenv("PETSCKP_LAUNCH_LABELS"))
    for (auto &e : LaunchCounts().labels) std::cout << "    " << std::setw(8) << e.second / napply << "  " << e.first << "\n";
  KP_OK(PetscRandomDestroy(&rnd));
  KP_OK(VecDestroy(&b));
  KP_OK(VecDestroy(&y));
  KP_OK(PCDestroy(&pc));
  KP_OK(MatDestroy(&A));
}

} // namespace

/* Prints the counts of one application for 2D and 3D, K-cycle (default), K-cycle without early exit, V-cycle, and
   checks them: no PETSc vector operation (every vector kernel of the cycles is one of ours), no host synchronisation
   but the K-cycle's one read per K-cycle on a level (for its early exit), at most 2^(levels - 2) - 1 of them; at the
   default sizes the kernel launches stay within the counts of the fused kernels (2D: 256 x 256 points, 4 levels; 3D:
   32^3, 3 levels). */
TEST(UAAMGLaunches, PerApplication)
{
  const PetscInt n2 = OptionInt("-uaamg_launch_n2d", 256), n3 = OptionInt("-uaamg_launch_n3d", 32);
  PetscBool      logging = PETSC_FALSE;

  KP_OK(PetscLogIsActive(&logging));
  if (!logging) KP_OK(PetscLogDefaultBegin());
  std::cout << "  problem        cycle          levels  kernels  PETSc-vec-ops  host-syncs (vec-reductions, host-reductions, deep-copies, fences)\n";
  for (int dim : {2, 3})
    for (Config cfg : {Config::Default, Config::Paper, Config::VCycle}) {
      const PetscInt n = dim == 2 ? n2 : n3;
      Counts         c;
      PetscInt       nl = 0;
      ASSERT_NO_FATAL_FAILURE(CountApplications(dim, n, cfg, 3, &c, &nl));
      std::cout << "  " << dim << "D n=" << std::left << std::setw(8) << n << " " << std::setw(14) << ConfigName(cfg) << std::right << std::setw(6) << nl << std::setw(9) << c.kernels << std::setw(15) << c.vecops << std::setw(12) << c.syncs << " (" << c.vecreductions << ", " << c.host_reductions << ", " << c.deep_copies << ", " << c.fences << ")\n";
      EXPECT_EQ(c.vecops, 0) << dim << "D " << ConfigName(cfg);
      EXPECT_EQ(c.vecreductions + c.host_reductions, 0) << dim << "D " << ConfigName(cfg);
      if (cfg == Config::Default) {
        EXPECT_GE(c.syncs, 1) << dim << "D";
        EXPECT_LE(c.syncs, nl >= 2 ? ((PetscInt)1 << (nl - 2)) - 1 : 0) << dim << "D";
      } else EXPECT_EQ(c.syncs, 0) << dim << "D " << ConfigName(cfg);
      if (n == (dim == 2 ? 256 : 32)) {
        const long budget[2][3] = {{66, 66, 26}, {34, 34, 24}}; /* kcycle, kcycle_rtol0, vcycle */
        EXPECT_LE(c.kernels, budget[dim - 2][(int)cfg]) << dim << "D " << ConfigName(cfg);
      }
    }
}
