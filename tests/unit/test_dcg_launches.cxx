/* Kernel launches, PETSc operations and host synchronisations per iteration of KSPDCG (deflated CG, DEF1 of Tang,
   Nabben, Vuik and Erlangga, J. Sci. Comput. 39 (2009), with the kernels of Gupta, van Gijzen and Vuik, VECPAR 2012)
   with PCNEUMANN: at 128^3 an iteration on a GPU is latency-bound, so what counts is how many kernels it launches and
   how often the host waits for the device. Counted with Kokkos' profiling callbacks (parallel_for/reduce/scan,
   deep_copy, fence) and PETSc's event counts (kp_launches.hpp): "kernels" are our Kokkos kernels plus PETSc's vector
   operations and operator products (MatMult: one or more GPU kernels with a device matrix type).

   A host synchronisation here is: a PETSc vector reduction, a Kokkos reduction with its result in a host scalar
   (reductions whose label contains "Device" leave their result on the device), a deep_copy (Kokkos 3, which reports
   no fences: an upper bound, since the copies to the device are counted too) or an explicit fence (Kokkos 4).
   Under MPI (the test DcgLaunchesMPI2, 2 ranks) the global reductions are counted: PETSc's count of MPI_Allreduce on a
   communicator of more than one rank.

   The counts per iteration are the differences between the snapshots taken by a monitor at two iterations, divided by
   the number of iterations between them: the setup, the first residual and the end of the solve do not enter.

   Problem: 7-point finite volumes of -div(c grad u) on an n^3 grid (default n = 24: -dcg_launch_n <n>), c = 1e-3 in
   eight balls and 1 elsewhere, Neumann boundary with the last diagonal entry doubled (the bubbly problem of the
   paper), random b; KSPDCG with 2-term PCNEUMANN, without deflation (-ksp_dcg_space none) and with n chunks (planes),
   standard and single-reduction (-ksp_dcg_pipelined). The counts are printed, with PETSCKP_LAUNCH_LABELS=1 per
   label. */
#include "kp_test.hpp"
#include "kp_launches.hpp"
#include <petsckp.h>
#include <petscksp.h>
#include <iomanip>
#include <iostream>

using namespace kptest;

namespace
{
#define KP_OK(expr) ASSERT_EQ((int)(expr), 0)

const char *const kVecOps[]        = {"VecSet", "VecCopy", "VecAXPY", "VecAYPX", "VecAXPBY", "VecAXPBYCZ", "VecWAXPY", "VecMAXPY", "VecScale", "VecPointwiseMult", "VecSwap", "VecNorm", "VecDot", "VecTDot", "VecMDot", "VecMTDot"};
const char *const kVecReductions[] = {"VecNorm", "VecDot", "VecTDot", "VecMDot", "VecMTDot"};

struct Counts {
  double kernels = 0, ours = 0, vecops = 0, matmults = 0, syncs = 0, vecreductions = 0, host_reductions = 0, deep_copies = 0, fences = 0, allreduces = 0;
};

Counts Snapshot()
{
  Counts c;
  for (const char *n : kVecOps) c.vecops += EventCount(n);
  for (const char *n : kVecReductions) c.vecreductions += EventCount(n);
  c.matmults        = EventCount("MatMult");
  c.ours            = LaunchCounts().launches;
  c.host_reductions = LaunchCounts().host_reductions;
  c.deep_copies     = LaunchCounts().deep_copies;
  c.fences          = LaunchCounts().fences;
  c.allreduces      = petsc_allreduce_ct;
  return c;
}

/* the monitor takes a snapshot at iterations it0 and it1 */
struct Probe {
  PetscInt it0 = 2, it1 = 10;
  Counts   at0, at1;
  PetscInt seen = 0;
};

PetscErrorCode ProbeMonitor(KSP, PetscInt it, PetscReal, void *ctx)
{
  Probe *p = (Probe *)ctx;

  PetscFunctionBegin;
  if (it == p->it0) p->at0 = Snapshot(), p->seen++;
  if (it == p->it1) p->at1 = Snapshot(), p->seen++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the bubbly operator on n^3 cells, rows distributed in contiguous ranges over the communicator */
void Bubbly(MPI_Comm comm, PetscInt n, Mat *A)
{
  const PetscInt N = n * n * n;
  PetscInt       rs, re;
  auto           coef = [n](PetscInt i, PetscInt j, PetscInt k) {
    const double x = (i + 0.5) / n, y = (j + 0.5) / n, z = (k + 0.5) / n;
    const double cx = x < 0.5 ? 0.25 : 0.75, cy = y < 0.5 ? 0.25 : 0.75, cz = z < 0.5 ? 0.25 : 0.75;
    return (x - cx) * (x - cx) + (y - cy) * (y - cy) + (z - cz) * (z - cz) < 0.125 * 0.125 ? 1e-3 : 1.0;
  };
  KP_OK(MatCreate(comm, A));
  KP_OK(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  KP_OK(MatSetFromOptions(*A)); /* -mat_type aijcusparse: device matrices, as an application on a GPU has */
  KP_OK(MatSeqAIJSetPreallocation(*A, 7, NULL));
  KP_OK(MatMPIAIJSetPreallocation(*A, 7, NULL, 3, NULL));
  KP_OK(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt row = rs; row < re; row++) {
    const PetscInt t[3] = {row % n, (row / n) % n, row / (n * n)};
    PetscInt       cols[7], c = 0;
    PetscScalar    v[7], diag = 0;
    const double   cc = coef(t[0], t[1], t[2]);
    for (int a = 0; a < 3; a++)
      for (int s = -1; s <= 1; s += 2) {
        PetscInt u[3] = {t[0], t[1], t[2]};
        u[a] += s;
        if (u[a] < 0 || u[a] >= n) continue;
        const double cn = coef(u[0], u[1], u[2]), cf = 2 * cc * cn / (cc + cn);
        cols[c] = u[0] + n * (u[1] + n * u[2]), v[c++] = -cf;
        diag += cf;
      }
    if (row == N - 1) diag *= 2; /* the singular Neumann operator made definite (Tang and Vuik) */
    cols[c] = row, v[c++] = diag;
    KP_OK(MatSetValues(*A, 1, &row, c, cols, v, INSERT_VALUES));
  }
  KP_OK(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  KP_OK(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
}

enum class Config {
  Plain,    /* -ksp_dcg_space none */
  Deflated, /* n chunks (planes) */
};
const char *ConfigName(Config c) { return c == Config::Plain ? "no deflation" : "n planes"; }

/* counts per iteration of one solve */
void CountIterations(MPI_Comm comm, PetscInt n, Config cfg, bool pipelined, Counts *per)
{
  Mat         A;
  KSP         ksp;
  PC          pc;
  Vec         b, x;
  PetscRandom rnd;
  Probe       probe;

  ASSERT_NO_FATAL_FAILURE(Bubbly(comm, n, &A));
  KP_OK(MatCreateVecs(A, &x, &b));
  KP_OK(PetscRandomCreate(comm, &rnd));
  KP_OK(PetscRandomSetSeed(rnd, 3));
  KP_OK(PetscRandomSeed(rnd));
  KP_OK(VecSetRandom(b, rnd));
  KP_OK(KSPCreate(comm, &ksp));
  KP_OK(KSPSetOperators(ksp, A, A));
  KP_OK(KSPSetType(ksp, KSPDCG));
  KP_OK(KSPGetPC(ksp, &pc));
  KP_OK(PCSetType(pc, PCNEUMANN));
  KP_OK(PCNeumannSetTerms(pc, 2));
  KP_OK(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  if (cfg == Config::Plain) KP_OK(KSPDCGSetDeflationSpaceType(ksp, KSP_DCG_SPACE_NONE));
  else {
    KP_OK(KSPDCGSetDeflationSpaceType(ksp, KSP_DCG_SPACE_CHUNKS));
    KP_OK(KSPDCGSetSubdomains(ksp, n));
  }
  KP_OK(KSPDCGSetPipelined(ksp, pipelined ? PETSC_TRUE : PETSC_FALSE));
  KP_OK(KSPSetTolerances(ksp, 1e-12, 1e-50, PETSC_DEFAULT, 30));
  KP_OK(KSPMonitorSet(ksp, ProbeMonitor, &probe, NULL));
  KP_OK(KSPSetUp(ksp));
  KP_OK(KSPSolve(ksp, b, x)); /* the first solve allocates what the iteration needs */
  Kokkos::fence();
  probe = Probe();
  StartCounting(LaunchRules{nullptr, "(device sums)", false});
  KP_OK(KSPSolve(ksp, b, x));
  Kokkos::fence();
  StopCounting();
  ASSERT_EQ(probe.seen, 2) << "the solve ended before iteration " << probe.it1;
  {
    const double d = (double)(probe.it1 - probe.it0);
    const Counts &a = probe.at0, &c = probe.at1;
    per->ours            = (c.ours - a.ours) / d;
    per->vecops          = (c.vecops - a.vecops) / d;
    per->matmults        = (c.matmults - a.matmults) / d;
    per->vecreductions   = (c.vecreductions - a.vecreductions) / d;
    per->host_reductions = (c.host_reductions - a.host_reductions) / d;
    per->deep_copies     = (c.deep_copies - a.deep_copies) / d;
    per->fences          = (c.fences - a.fences) / d;
    per->allreduces      = (c.allreduces - a.allreduces) / d;
    per->kernels         = per->ours + per->vecops + per->matmults;
    per->syncs = HostSyncs(per->vecreductions, per->host_reductions, per->deep_copies, per->fences);
  }
  PetscMPIInt rank;
  MPI_Comm_rank(comm, &rank);
  if (std::getenv("PETSCKP_LAUNCH_LABELS") && rank == 0)
    for (auto &e : LaunchCounts().labels) std::cout << "    " << std::setw(8) << e.second << "  " << e.first << " (whole solve)\n";
  KP_OK(PetscRandomDestroy(&rnd));
  KP_OK(VecDestroy(&b));
  KP_OK(VecDestroy(&x));
  KP_OK(KSPDestroy(&ksp));
  KP_OK(MatDestroy(&A));
}

bool Rank0()
{
  PetscMPIInt rank;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  return rank == 0;
}

void PrintHeader()
{
  if (!Rank0()) return;
  std::cout << "  space         variant    kernels/it (ours, PETSc vec ops, MatMult)  host-syncs/it (vec-reductions, host-reductions, deep-copies, fences)  global reductions/it\n";
}

void PrintRow(Config cfg, bool pipelined, const Counts &c)
{
  if (!Rank0()) return;
  std::cout << std::fixed << std::setprecision(2) << "  " << std::left << std::setw(13) << ConfigName(cfg) << " " << std::setw(10) << (pipelined ? "pipelined" : "standard") << std::right << std::setw(6) << c.kernels << " (" << c.ours << ", " << c.vecops << ", " << c.matmults << ")" << std::setw(30) << c.syncs << " (" << c.vecreductions << ", " << c.host_reductions << ", " << c.deep_copies << ", " << c.fences << ")" << std::setw(26) << c.allreduces << "\n";
}
} // namespace

/* One rank. Before the fusion (this problem, standard iteration): without deflation 9.1 kernels (8 of ours, PETSc's
   MatMult, 0.1 VecWAXPY of the best-iterate bookkeeping) and 2 reductions read by the host per iteration; with
   deflation 12 kernels and 2 reductions. Now: the operator product is ours (fused with its inner product), the
   deflation correction is applied inside the x/r update, every inner product stays on the device and the host reads
   them once: standard 8.1 / 11 kernels, single-reduction 6.1 / 9 kernels, one host synchronisation each. */
TEST(DcgLaunches, PerIteration)
{
  const PetscInt n       = OptionInt("-dcg_launch_n", 24);
  PetscBool      logging = PETSC_FALSE;

  KP_OK(PetscLogIsActive(&logging));
  if (!logging) KP_OK(PetscLogDefaultBegin());
  PrintHeader();
  for (Config cfg : {Config::Plain, Config::Deflated})
    for (bool pipelined : {false, true}) {
      const double budget[2][2] = {{8.5, 6.5}, {11.25, 9.25}}; /* [deflated][pipelined] */
      Counts       c;
      ASSERT_NO_FATAL_FAILURE(CountIterations(PETSC_COMM_SELF, n, cfg, pipelined, &c));
      PrintRow(cfg, pipelined, c);
      const std::string what = std::string(ConfigName(cfg)) + (pipelined ? ", pipelined" : ", standard");
      EXPECT_LE(c.kernels, budget[cfg == Config::Deflated][pipelined]) << what;
      EXPECT_EQ(c.matmults, 0.0) << what << ": the operator product is the fused one";
      EXPECT_LE(c.vecops, 0.25) << what << ": PETSc vector operations (only the best-iterate bookkeeping)";
      EXPECT_EQ(c.vecreductions + c.host_reductions, 0.0) << what << ": every inner product stays on the device";
      EXPECT_LE(c.syncs, 1.0) << what << ": one host synchronisation per iteration";
    }
}

/* Two ranks: the global reductions (MPI_Allreduce) per iteration. Before: 2 without deflation, 3 with deflation (the
   restriction Z^T w, (p, P A p), (r, M^-1 r) with the norms). Now: standard 2 (the restriction with (p, A p), then the
   residual sums); single-reduction 1, with or without deflation. */
TEST(DcgLaunchesMPI2, PerIteration)
{
  const PetscInt n       = OptionInt("-dcg_launch_n", 24);
  PetscBool      logging = PETSC_FALSE;
  PetscMPIInt    size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size != 2) GTEST_SKIP() << "needs 2 ranks";
  KP_OK(PetscLogIsActive(&logging));
  if (!logging) KP_OK(PetscLogDefaultBegin());
  PrintHeader();
  for (Config cfg : {Config::Plain, Config::Deflated})
    for (bool pipelined : {false, true}) {
      Counts c;
      ASSERT_NO_FATAL_FAILURE(CountIterations(PETSC_COMM_WORLD, n, cfg, pipelined, &c));
      PrintRow(cfg, pipelined, c);
      const std::string what = std::string(ConfigName(cfg)) + (pipelined ? ", pipelined" : ", standard");
      EXPECT_LE(c.allreduces, pipelined ? 1.0 : 2.0) << what;
      EXPECT_EQ(c.vecreductions + c.host_reductions, 0.0) << what;
    }
}
