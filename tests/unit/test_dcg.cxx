/* Unit tests of KSPDCG (src/ksp/dcg/dcg.cxx) at the PETSc level: the default space on tiny systems, the checks of its
   options and setters (the messages name the option with the KSP's prefix), a NaN or Inf matrix entry named by its
   row, a deflation space that survives KSPSetFromOptions(), and the best iterate returned at max_it. */
#include "kp_test.hpp"
#include <petsckp.h>
#include <petscksp.h>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace kptest;

namespace
{
/* N x N tridiagonal SPD matrix (2, -1) */
Mat Tridiag(PetscInt N)
{
  Mat A;
  MatCreateSeqAIJ(PETSC_COMM_SELF, N, N, 3, NULL, &A);
  for (PetscInt i = 0; i < N; i++) {
    if (i > 0) MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES);
    MatSetValue(A, i, i, 2.0, INSERT_VALUES);
    if (i < N - 1) MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES);
  }
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  return A;
}

/* 5-point finite volumes of -div(c grad u) on nx x ny cells, c jumping between contrast and 1, Dirichlet at x = 0 */
Mat Rough2D(PetscInt nx, PetscInt ny, double contrast)
{
  Mat  A;
  auto coef = [contrast](PetscInt i, PetscInt j) { return ((i * 7 + j * 13) % 11) < 4 ? contrast : 1.0; };
  MatCreateSeqAIJ(PETSC_COMM_SELF, nx * ny, nx * ny, 5, NULL, &A);
  for (PetscInt j = 0; j < ny; j++)
    for (PetscInt i = 0; i < nx; i++) {
      const PetscInt row = i + nx * j, nb[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
      double         diag = 0, cc = coef(i, j);
      for (auto &o : nb) {
        PetscInt ii = i + o[0], jj = j + o[1];
        if (ii < 0) {
          diag += 2 * cc;
          continue;
        }
        if (ii >= nx || jj < 0 || jj >= ny) continue;
        double cf = 2 * cc * coef(ii, jj) / (cc + coef(ii, jj));
        MatSetValue(A, row, ii + nx * jj, -cf, INSERT_VALUES);
        diag += cf;
      }
      MatSetValue(A, row, row, diag, INSERT_VALUES);
    }
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  return A;
}

KSP CreateDCG(Mat A, const char *pctype, const char *prefix = NULL)
{
  KSP ksp;
  PC  pc;
  KSPCreate(PETSC_COMM_SELF, &ksp);
  if (prefix) KSPSetOptionsPrefix(ksp, prefix);
  KSPSetOperators(ksp, A, A);
  KSPSetType(ksp, KSPDCG);
  KSPGetPC(ksp, &pc);
  PCSetType(pc, pctype);
  KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED);
  return ksp;
}

/* the message of the last error raised (with the PetscReturnErrorHandler pushed) */
std::string LastError()
{
  const char *text;
  PetscKPErrorString specific = NULL;
  PetscErrorMessage(PETSC_ERR_ARG_OUTOFRANGE, &text, &specific);
  return specific ? std::string(specific) : std::string();
}

/* the -ksp_view text of ksp (through an ASCII viewer on a temporary file: a string viewer gets the type only) */
std::string ViewString(KSP ksp)
{
  char        name[] = "/tmp/petsckp_dcg_view_XXXXXX";
  int         fd     = mkstemp(name);
  PetscViewer v;
  std::string text;
  if (fd < 0) return text;
  close(fd);
  PetscViewerASCIIOpen(PETSC_COMM_SELF, name, &v);
  KSPView(ksp, v);
  PetscViewerDestroy(&v);
  std::ifstream in(name);
  std::stringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  std::remove(name);
  return text;
}

double TrueResidual(Mat A, Vec b, Vec x)
{
  Vec       r;
  PetscReal nr;
  VecDuplicate(b, &r);
  MatMult(A, x, r);
  VecAYPX(r, -1.0, b);
  VecNorm(r, NORM_2, &nr);
  VecDestroy(&r);
  return nr;
}
} // namespace

/* the default number of chunks 2 ceil(sqrt(N)) exceeds N for N <= 5: clamped to N (one chunk per row); an explicit
   number above N stays an error that names the option */
TEST(DCG, DefaultSpaceOnTinySystems)
{
  for (PetscInt N : {1, 2, 3, 5}) {
    Mat       A = Tridiag(N);
    Vec       b, x;
    PetscReal nb;
    KSP       ksp = CreateDCG(A, PCJACOBI);
    KSPConvergedReason reason;
    MatCreateVecs(A, &x, &b);
    VecSet(b, 1.0);
    VecSetValue(b, 0, 3.0, INSERT_VALUES);
    VecAssemblyBegin(b);
    VecAssemblyEnd(b);
    VecNorm(b, NORM_2, &nb);
    EXPECT_EQ((int)KSPSolve(ksp, b, x), 0) << "N = " << N;
    KSPGetConvergedReason(ksp, &reason);
    EXPECT_GT((int)reason, 0) << "N = " << N;
    EXPECT_LE(TrueResidual(A, b, x), 1e-10 * nb) << "N = " << N;
    KSPDestroy(&ksp);

    ksp = CreateDCG(A, PCJACOBI);
    PetscOptionsSetValue(NULL, "-ksp_dcg_subdomains", std::to_string(N + 1).c_str());
    KSPSetFromOptions(ksp);
    PetscOptionsClearValue(NULL, "-ksp_dcg_subdomains");
    PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
    PetscErrorCode ierr = KSPSetUp(ksp);
    PetscPopErrorHandler();
    EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE) << "N = " << N;
    EXPECT_NE(LastError().find("-ksp_dcg_subdomains"), std::string::npos) << LastError();
    KSPDestroy(&ksp);
    VecDestroy(&b);
    VecDestroy(&x);
    MatDestroy(&A);
  }
}

TEST(DCG, OptionsAndSettersAreChecked)
{
  Mat            A   = Tridiag(50);
  KSP            ksp = CreateDCG(A, PCJACOBI, "sub_");
  PetscErrorCode ierr;
  struct {
    const char *name, *value, *expect;
  } bad[] = {
    {"-sub_ksp_dcg_subdomains", "-3", "-sub_ksp_dcg_subdomains"},
    {"-sub_ksp_dcg_coarse_pivot_rtol", "nan", "-sub_ksp_dcg_coarse_pivot_rtol"},
    {"-sub_ksp_dcg_coarse_pivot_rtol", "-1e-3", "-sub_ksp_dcg_coarse_pivot_rtol"},
    {"-sub_ksp_dcg_coarse_pivot_rtol", "1.5", "-sub_ksp_dcg_coarse_pivot_rtol"},
    {"-sub_ksp_dcg_blocks", "2,-1", "-sub_ksp_dcg_blocks"},
  };
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  for (auto &c : bad) {
    PetscOptionsSetValue(NULL, c.name, c.value);
    ierr = KSPSetFromOptions(ksp);
    PetscOptionsClearValue(NULL, c.name);
    EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE) << c.name << " " << c.value;
    EXPECT_TRUE(kptest::NamesOption(LastError(), c.expect)) << c.name << " " << c.value << ": " << LastError();
  }
  /* enum setters check their argument */
  ierr = KSPDCGSetCoarseType(ksp, (KSPDCGCoarseType)7);
  EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE);
  EXPECT_NE(LastError().find("-sub_ksp_dcg_coarse"), std::string::npos) << LastError();
  ierr = KSPDCGSetDeflationSpaceType(ksp, (KSPDCGSpaceType)-1);
  EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE);
  EXPECT_NE(LastError().find("-sub_ksp_dcg_space"), std::string::npos) << LastError();
  ierr = KSPDCGSetDeflationSpaceType(ksp, (KSPDCGSpaceType)4);
  EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE);
  ierr = KSPDCGSetSubdomains(ksp, -1);
  EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE);
  PetscPopErrorHandler();
  /* valid values through the options reach the getters; the view prints them */
  PetscOptionsSetValue(NULL, "-sub_ksp_dcg_space", "chunks");
  PetscOptionsSetValue(NULL, "-sub_ksp_dcg_subdomains", "7");
  PetscOptionsSetValue(NULL, "-sub_ksp_dcg_blocks", "3");
  PetscOptionsSetValue(NULL, "-sub_ksp_dcg_coarse", "inverse");
  PetscOptionsSetValue(NULL, "-sub_ksp_dcg_coarse_pivot_rtol", "1e-10");
  PetscOptionsSetValue(NULL, "-sub_ksp_dcg_final_correction", "0");
  EXPECT_EQ((int)KSPSetFromOptions(ksp), 0);
  for (const char *o : {"-sub_ksp_dcg_space", "-sub_ksp_dcg_subdomains", "-sub_ksp_dcg_blocks", "-sub_ksp_dcg_coarse", "-sub_ksp_dcg_coarse_pivot_rtol", "-sub_ksp_dcg_final_correction"}) PetscOptionsClearValue(NULL, o);
  KSPDCGSpaceType  st;
  KSPDCGCoarseType ct;
  PetscInt         d, bx, by, bz;
  PetscReal        rtol;
  PetscBool        fc;
  KSPDCGGetDeflationSpaceType(ksp, &st);
  KSPDCGGetSubdomains(ksp, &d);
  KSPDCGGetBlocks(ksp, &bx, &by, &bz);
  KSPDCGGetCoarseType(ksp, &ct);
  KSPDCGGetCoarsePivotRtol(ksp, &rtol);
  KSPDCGGetFinalCorrection(ksp, &fc);
  EXPECT_EQ(st, KSP_DCG_SPACE_CHUNKS);
  EXPECT_EQ(d, 7);
  EXPECT_EQ(bx, 3);
  EXPECT_EQ(by, 3);
  EXPECT_EQ(bz, 3);
  EXPECT_EQ(ct, KSP_DCG_COARSE_INVERSE);
  EXPECT_EQ(rtol, 1e-10);
  EXPECT_EQ(fc, PETSC_FALSE);
  EXPECT_EQ((int)KSPSetUp(ksp), 0);
  std::string view = ViewString(ksp);
  EXPECT_NE(view.find("chunks, 7 vectors"), std::string::npos) << view;
  EXPECT_NE(view.find("explicit inverse"), std::string::npos) << view;
  EXPECT_NE(view.find("condition number estimate"), std::string::npos) << view;
  KSPDestroy(&ksp);
  MatDestroy(&A);
}

/* KSPSetFromOptions() rebuilds the deflation space only when an option that defines it changed */
TEST(DCG, SetFromOptionsKeepsAValidSpace)
{
  Mat A   = Tridiag(100);
  KSP ksp = CreateDCG(A, PCJACOBI);
  EXPECT_EQ((int)KSPSetUp(ksp), 0);
  EXPECT_NE(ViewString(ksp).find("chunks, 20 vectors"), std::string::npos) << ViewString(ksp);
  EXPECT_EQ((int)KSPSetFromOptions(ksp), 0); /* no option: the space stays */
  EXPECT_NE(ViewString(ksp).find("chunks, 20 vectors"), std::string::npos) << ViewString(ksp);
  PetscOptionsSetValue(NULL, "-ksp_dcg_coarse", "cholesky"); /* the value it has: the space stays */
  EXPECT_EQ((int)KSPSetFromOptions(ksp), 0);
  PetscOptionsClearValue(NULL, "-ksp_dcg_coarse");
  EXPECT_NE(ViewString(ksp).find("chunks, 20 vectors"), std::string::npos) << ViewString(ksp);
  PetscOptionsSetValue(NULL, "-ksp_dcg_subdomains", "10"); /* a new space, built at the next setup */
  EXPECT_EQ((int)KSPSetFromOptions(ksp), 0);
  PetscOptionsClearValue(NULL, "-ksp_dcg_subdomains");
  EXPECT_EQ(ViewString(ksp).find("vectors"), std::string::npos) << ViewString(ksp);
  {
    Vec b, x;
    MatCreateVecs(A, &x, &b);
    VecSet(b, 1.0);
    EXPECT_EQ((int)KSPSolve(ksp, b, x), 0);
    VecDestroy(&b);
    VecDestroy(&x);
  }
  EXPECT_NE(ViewString(ksp).find("chunks, 10 vectors"), std::string::npos) << ViewString(ksp);
  KSPDestroy(&ksp);
  MatDestroy(&A);
}

/* a NaN or Inf entry of A is an error that names its row, before E is formed (with built-in and user spaces, with
   any preconditioner) */
TEST(DCG, NonFiniteMatrixEntryIsNamed)
{
  struct Case {
    PetscInt    row, col;
    double      value;
    const char *pc;
    bool        user;
  } cases[] = {
    {10, 10, NAN, PCJACOBI, false},
    {10, 10, NAN, PCNEUMANN, false},
    {37, 36, INFINITY, PCJACOBI, false},
    {37, 36, -INFINITY, PCNEUMANN, true},
  };
  for (auto &c : cases) {
    Mat A = Rough2D(12, 10, 1e-3), Z = NULL;
    MatSetValue(A, c.row, c.col, c.value, INSERT_VALUES);
    MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
    MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
    KSP ksp = CreateDCG(A, c.pc);
    if (c.user) {
      MatCreateSeqAIJ(PETSC_COMM_SELF, 120, 6, 1, NULL, &Z);
      for (PetscInt i = 0; i < 120; i++) MatSetValue(Z, i, i / 20, 1.0, INSERT_VALUES);
      MatAssemblyBegin(Z, MAT_FINAL_ASSEMBLY);
      MatAssemblyEnd(Z, MAT_FINAL_ASSEMBLY);
      KSPDCGSetDeflationSpace(ksp, Z);
    }
    PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
    PetscErrorCode ierr = KSPSetUp(ksp);
    PetscPopErrorHandler();
    EXPECT_EQ((int)ierr, (int)PETSC_ERR_FP) << "row " << c.row << " " << c.pc;
    std::string want = "NaN or Inf entry in row " + std::to_string(c.row);
    EXPECT_NE(LastError().find(want), std::string::npos) << LastError();
    KSPDestroy(&ksp);
    MatDestroy(&Z);
    MatDestroy(&A);
  }
}

/* a solve that stops at max_it returns the best iterate it has seen, not the last one: its true residual is the
   smallest of the residual history (the recursive residual of a well-conditioned run is the true one) */
TEST(DCG, ReturnsTheBestIterateAtMaxIt)
{
  Mat         A = Rough2D(24, 20, 1e-3);
  Vec         b, x, x0;
  PetscRandom rnd;
  int         worse_last = 0;
  PetscRandomCreate(PETSC_COMM_SELF, &rnd);
  PetscRandomSetInterval(rnd, -1.0, 1.0);
  MatCreateVecs(A, &x, &b);
  VecDuplicate(x, &x0);
  VecSetRandom(b, rnd);
  VecSetRandom(x0, rnd);
  for (PetscInt maxit = 1; maxit <= 80; maxit++) {
    const PetscBool    pipelined = maxit > 40 ? PETSC_TRUE : PETSC_FALSE; /* 1..40 standard, 41..80 single-reduction */
    KSP                ksp       = CreateDCG(A, PCJACOBI);
    const PetscReal   *h;
    PetscInt           nh;
    PetscReal          rnorm;
    KSPConvergedReason reason;
    PetscOptionsSetValue(NULL, "-ksp_dcg_subdomains", "12");
    KSPSetFromOptions(ksp);
    PetscOptionsClearValue(NULL, "-ksp_dcg_subdomains");
    KSPDCGSetPipelined(ksp, pipelined);
    KSPSetTolerances(ksp, 1e-14, 0.0, 1e30, pipelined ? maxit - 40 : maxit);
    KSPSetResidualHistory(ksp, NULL, PETSC_DECIDE, PETSC_TRUE);
    KSPSetInitialGuessNonzero(ksp, PETSC_TRUE);
    VecCopy(x0, x);
    ASSERT_EQ((int)KSPSolve(ksp, b, x), 0);
    KSPGetConvergedReason(ksp, &reason);
    EXPECT_EQ(reason, KSP_DIVERGED_ITS);
    KSPGetResidualHistory(ksp, &h, &nh);
    KSPGetResidualNorm(ksp, &rnorm);
    double hmin = h[0];
    for (PetscInt i = 1; i < nh; i++) hmin = std::min(hmin, (double)h[i]);
    if (h[nh - 1] > 1.5 * hmin) worse_last++;
    const double tr = TrueResidual(A, b, x);
    EXPECT_LE(tr, (1 + 1e-6) * hmin) << "max_it " << maxit << ": last " << h[nh - 1] << ", best " << hmin;
    EXPECT_LE(std::abs(rnorm - tr), 1e-6 * tr) << "max_it " << maxit; /* the reported norm is that of the iterate */
    KSPDestroy(&ksp);
  }
  EXPECT_GT(worse_last, 6); /* the history is not monotone: the test means something (for both variants) */
  VecDestroy(&b);
  VecDestroy(&x);
  VecDestroy(&x0);
  PetscRandomDestroy(&rnd);
  MatDestroy(&A);
}

/* KSPDCG's deflation and PCNEUMANN share one device copy of the matrix: after MatSetValues() both see the new values
   (E = Z^T A Z, its factor and the Neumann factors rebuilt), i.e. the second solve with the same KSP gives the
   iterates of a new KSP on the changed matrix and the true residual meets the tolerance */
TEST(DCG, SharedDeviceCopyFollowsMatrixChanges)
{
  for (const char *pc : {PCNEUMANN, PCJACOBI}) {
    Mat A = Rough2D(24, 20, 1e-3);
    Vec b, x, x2, r;
    MatCreateVecs(A, &x, &b);
    VecDuplicate(x, &x2);
    VecDuplicate(x, &r);
    VecSet(b, 1.0);
    KSP ksp = CreateDCG(A, pc);
    KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 500);
    ASSERT_EQ((int)KSPSolve(ksp, b, x), 0);
    /* new values in the same pattern: a larger diagonal on a band of rows, a new coupling value */
    for (PetscInt i = 100; i < 300; i++) MatSetValue(A, i, i, 5.0 + 0.01 * i, ADD_VALUES);
    MatSetValue(A, 150, 151, -0.25, ADD_VALUES);
    MatSetValue(A, 151, 150, -0.25, ADD_VALUES);
    MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
    MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
    ASSERT_EQ((int)KSPSolve(ksp, b, x), 0);
    PetscInt its, its2;
    KSPGetIterationNumber(ksp, &its);
    MatMult(A, x, r);
    VecAYPX(r, -1.0, b);
    PetscReal nr, nb;
    VecNorm(r, NORM_2, &nr);
    VecNorm(b, NORM_2, &nb);
    EXPECT_LE(nr / nb, 1e-8) << pc << ": the solve after MatSetValues() does not solve the new system";
    KSP fresh = CreateDCG(A, pc);
    KSPSetTolerances(fresh, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 500);
    ASSERT_EQ((int)KSPSolve(fresh, b, x2), 0);
    KSPGetIterationNumber(fresh, &its2);
    EXPECT_EQ(its, its2) << pc;
    /* the same iterates up to rounding: on a GPU the reductions' order varies between runs (atomics), so not to the
       last bit; a stale device copy would differ by the size of the change of the matrix */
    PetscReal nx;
    VecNorm(x, NORM_INFINITY, &nx);
    VecAXPY(x2, -1.0, x);
    VecNorm(x2, NORM_INFINITY, &nr);
    EXPECT_LE(nr, 1e-8 * nx) << pc;
    KSPDestroy(&fresh);
    KSPDestroy(&ksp);
    VecDestroy(&b);
    VecDestroy(&x);
    VecDestroy(&x2);
    VecDestroy(&r);
    MatDestroy(&A);
  }
}

namespace
{
/* Rough2D with a skew-symmetric perturbation eps on the couplings (i, i + 1): a mildly nonsymmetric operator */
Mat Skewed(PetscInt nx, PetscInt ny, double contrast, double eps)
{
  Mat A = Rough2D(nx, ny, contrast);
  for (PetscInt i = 0; i + 1 < nx * ny; i++) {
    if ((i + 1) % nx == 0) continue;
    MatSetValue(A, i, i + 1, eps, ADD_VALUES);
    MatSetValue(A, i + 1, i, -eps, ADD_VALUES);
  }
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  return A;
}

struct RunResult {
  PetscInt           its = -1;
  KSPConvergedReason reason;
  std::vector<double> hist;
  double             res = 0;
  std::string        view;
};

RunResult RunDCG(Mat A, Vec b, Vec x0, const char *pc, KSPDCGSpaceType space, KSPNormType norm, PetscBool pipelined, bool by_option = false)
{
  RunResult        out;
  KSP              ksp = CreateDCG(A, pc);
  Vec              x;
  const PetscReal *h;
  PetscInt         nh;
  PetscBool        got;
  VecDuplicate(b, &x);
  VecCopy(x0, x);
  KSPDCGSetDeflationSpaceType(ksp, space);
  if (space == KSP_DCG_SPACE_CHUNKS) KSPDCGSetSubdomains(ksp, 12);
  KSPSetNormType(ksp, norm);
  if (by_option) {
    PetscOptionsSetValue(NULL, "-ksp_dcg_pipelined", pipelined ? "1" : "0");
    KSPSetFromOptions(ksp);
    PetscOptionsClearValue(NULL, "-ksp_dcg_pipelined");
  } else KSPDCGSetPipelined(ksp, pipelined);
  KSPDCGGetPipelined(ksp, &got);
  EXPECT_EQ(got, pipelined);
  KSPSetTolerances(ksp, 1e-9, 0.0, 1e30, 2000);
  KSPSetInitialGuessNonzero(ksp, PETSC_TRUE);
  KSPSetResidualHistory(ksp, NULL, PETSC_DECIDE, PETSC_TRUE);
  EXPECT_EQ((int)KSPSolve(ksp, b, x), 0);
  KSPGetIterationNumber(ksp, &out.its);
  KSPGetConvergedReason(ksp, &out.reason);
  KSPGetResidualHistory(ksp, &h, &nh);
  out.hist.assign(h, h + nh);
  out.res  = TrueResidual(A, b, x);
  out.view = ViewString(ksp);
  KSPDestroy(&ksp);
  VecDestroy(&x);
  return out;
}
} // namespace

/* -ksp_dcg_pipelined (Chronopoulos-Gear) and the standard iteration are the same method: with and without deflation,
   Jacobi and Neumann, every norm type, the same iteration count and residual histories, and the tolerance met by the
   true residual; -ksp_view says which iteration ran */
TEST(DCG, PipelinedMatchesStandard)
{
  Mat         A = Rough2D(24, 20, 1e-3);
  Vec         b, x0;
  PetscRandom rnd;
  PetscReal   nb;
  PetscRandomCreate(PETSC_COMM_SELF, &rnd);
  PetscRandomSetInterval(rnd, -1.0, 1.0);
  MatCreateVecs(A, &x0, &b);
  VecSetRandom(b, rnd);
  VecSetRandom(x0, rnd);
  VecNorm(b, NORM_2, &nb);
  for (const char *pc : {PCJACOBI, PCNEUMANN})
    for (KSPDCGSpaceType space : {KSP_DCG_SPACE_NONE, KSP_DCG_SPACE_CHUNKS})
      for (KSPNormType norm : {KSP_NORM_UNPRECONDITIONED, KSP_NORM_PRECONDITIONED, KSP_NORM_NATURAL}) {
        const std::string what = std::string(pc) + (space == KSP_DCG_SPACE_NONE ? ", no deflation, " : ", chunks, ") + KSPNormTypes[norm];
        RunResult         s = RunDCG(A, b, x0, pc, space, norm, PETSC_FALSE);
        RunResult         p = RunDCG(A, b, x0, pc, space, norm, PETSC_TRUE, norm == KSP_NORM_NATURAL);
        EXPECT_GT((int)s.reason, 0) << what;
        EXPECT_GT((int)p.reason, 0) << what;
        /* the same method: the histories agree while rounding has not yet separated them (on this problem CG needs
           about 60 % of N iterations, so the late iterations depend on the rounding of each variant) */
        EXPECT_LE(std::abs(s.its - p.its), std::max<PetscInt>(2, s.its / 25)) << what << ": " << s.its << " / " << p.its;
        double diff = 0;
        for (size_t i = 0; i < std::min<size_t>(40, std::min(s.hist.size(), p.hist.size())); i++) diff = std::max(diff, std::abs(s.hist[i] - p.hist[i]) / s.hist[0]);
        EXPECT_LE(diff, 1e-10) << what;
        if (norm == KSP_NORM_UNPRECONDITIONED) EXPECT_LE(p.res, 1.1e-9 * std::max((double)nb, p.hist[0])) << what;
        EXPECT_EQ(s.view.find("single-reduction"), std::string::npos) << what;
        EXPECT_NE(p.view.find("single-reduction (Chronopoulos-Gear) iteration"), std::string::npos) << what << "\n" << p.view;
      }
  VecDestroy(&b);
  VecDestroy(&x0);
  PetscRandomDestroy(&rnd);
  MatDestroy(&A);
}

/* a nonsymmetric operator makes E = Z^T A Z nonsymmetric: (p, P A p) is then computed by its own pass (not by
   (p, A p) - a1^T E^-1 a1, which needs (AZ)^T = Z^T A); both iterations still converge on a mildly nonsymmetric
   operator, with the same iterates */
TEST(DCG, NonsymmetricOperatorComputesTheDeflatedProduct)
{
  Mat       A = Skewed(24, 20, 1e-1, 1e-6);
  Vec       b, x0;
  PetscReal nb;
  MatCreateVecs(A, &x0, &b);
  VecSet(b, 1.0);
  VecSet(x0, 0.0);
  VecNorm(b, NORM_2, &nb);
  RunResult s = RunDCG(A, b, x0, PCJACOBI, KSP_DCG_SPACE_CHUNKS, KSP_NORM_UNPRECONDITIONED, PETSC_FALSE);
  RunResult p = RunDCG(A, b, x0, PCJACOBI, KSP_DCG_SPACE_CHUNKS, KSP_NORM_UNPRECONDITIONED, PETSC_TRUE);
  EXPECT_NE(s.view.find("E is not symmetric"), std::string::npos) << s.view;
  EXPECT_GT((int)s.reason, 0);
  EXPECT_GT((int)p.reason, 0);
  EXPECT_LE(std::abs(s.its - p.its), std::max<PetscInt>(2, s.its / 20)) << s.its << " / " << p.its;
  EXPECT_LE(s.res, 1.01e-9 * nb);
  EXPECT_LE(p.res, 1.01e-9 * nb);
  VecDestroy(&b);
  VecDestroy(&x0);
  MatDestroy(&A);
}

/* the iteration can be switched between two solves with the same KSP (the single-reduction one needs one more work
   vector): the second solve gives the iterates of a fresh KSP of that kind */
TEST(DCG, PipelinedSwitchedBetweenSolves)
{
  Mat A = Rough2D(24, 20, 1e-2);
  Vec b, x, x2;
  MatCreateVecs(A, &x, &b);
  VecDuplicate(x, &x2);
  VecSet(b, 1.0);
  for (PetscBool first : {PETSC_FALSE, PETSC_TRUE}) {
    KSP      ksp = CreateDCG(A, PCNEUMANN), fresh = CreateDCG(A, PCNEUMANN);
    PetscInt its, its2;
    KSPDCGSetPipelined(ksp, first);
    ASSERT_EQ((int)KSPSolve(ksp, b, x), 0);
    KSPDCGSetPipelined(ksp, first ? PETSC_FALSE : PETSC_TRUE);
    ASSERT_EQ((int)KSPSolve(ksp, b, x), 0);
    KSPDCGSetPipelined(fresh, first ? PETSC_FALSE : PETSC_TRUE);
    ASSERT_EQ((int)KSPSolve(fresh, b, x2), 0);
    KSPGetIterationNumber(ksp, &its);
    KSPGetIterationNumber(fresh, &its2);
    EXPECT_EQ(its, its2);
    PetscReal nx, nd;
    VecNorm(x, NORM_INFINITY, &nx);
    VecAXPY(x2, -1.0, x);
    VecNorm(x2, NORM_INFINITY, &nd);
    EXPECT_LE(nd, 1e-10 * nx);
    KSPDestroy(&ksp);
    KSPDestroy(&fresh);
  }
  VecDestroy(&b);
  VecDestroy(&x);
  VecDestroy(&x2);
  MatDestroy(&A);
}

namespace
{
PetscErrorCode ShellMult(Mat S, Vec x, Vec y)
{
  Mat A;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &A));
  PetscCall(MatMult(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/* an operator that is not AIJ (a shell; no deflation space, which needs AIJ): the product is MatMult() and its inner
   products one more kernel; both iterations give the iterates of the AIJ operator (up to rounding) */
TEST(DCG, ShellOperatorWithoutDeflation)
{
  Mat      A = Rough2D(24, 20, 1e-2), S;
  Vec      b, x, x2;
  PetscInt n;
  MatGetSize(A, &n, NULL);
  MatCreateShell(PETSC_COMM_SELF, n, n, n, n, A, &S);
  MatShellSetOperation(S, MATOP_MULT, (void (*)(void))ShellMult);
  MatCreateVecs(A, &x, &b);
  VecDuplicate(x, &x2);
  VecSet(b, 1.0);
  for (PetscBool pipelined : {PETSC_FALSE, PETSC_TRUE}) {
    KSP      ks = CreateDCG(S, PCNONE), ka = CreateDCG(A, PCNONE);
    PetscInt its, its2;
    for (KSP k : {ks, ka}) {
      KSPDCGSetDeflationSpaceType(k, KSP_DCG_SPACE_NONE);
      KSPDCGSetPipelined(k, pipelined);
      KSPSetTolerances(k, 1e-8, 0.0, PETSC_DEFAULT, 1000);
    }
    ASSERT_EQ((int)KSPSolve(ks, b, x), 0);
    ASSERT_EQ((int)KSPSolve(ka, b, x2), 0);
    KSPGetIterationNumber(ks, &its);
    KSPGetIterationNumber(ka, &its2);
    /* the shell's product is PETSc's MatMult, the AIJ operator's our SpMV: the same iterates up to rounding, which over
       ~300 iterations of the pipelined recurrences may shift the stopping test by an iteration */
    EXPECT_LE(std::abs((int)(its - its2)), 1 + (int)its / 100) << (pipelined ? "pipelined" : "standard");
    PetscReal nx, nd;
    VecNorm(x, NORM_INFINITY, &nx);
    VecAXPY(x2, -1.0, x);
    VecNorm(x2, NORM_INFINITY, &nd);
    EXPECT_LE(nd, 1e-8 * nx) << (pipelined ? "pipelined" : "standard");
    KSPDestroy(&ks);
    KSPDestroy(&ka);
  }
  VecDestroy(&b);
  VecDestroy(&x);
  VecDestroy(&x2);
  MatDestroy(&S);
  MatDestroy(&A);
}

namespace
{
struct TrueResidualLog {
  std::vector<double> recursive, built;
};

/* a monitor as -ksp_monitor_true_residual is one: KSPBuildResidual() (through KSPBuildSolution()) at each iteration */
PetscErrorCode LogBuiltResidual(KSP ksp, PetscInt, PetscReal rnorm, void *ctx)
{
  auto     *log = (TrueResidualLog *)ctx;
  Vec       b, t, v, r;
  PetscReal nr;

  PetscFunctionBeginUser;
  PetscCall(KSPGetRhs(ksp, &b));
  PetscCall(VecDuplicate(b, &t));
  PetscCall(VecDuplicate(b, &v));
  PetscCall(KSPBuildResidual(ksp, t, v, &r));
  PetscCall(VecNorm(r, NORM_2, &nr));
  log->recursive.push_back(rnorm);
  log->built.push_back(nr);
  PetscCall(VecDestroy(&t));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/* during a solve the iterate is x = x_hat + Q (b - A x_hat), not the deflated iterate x_hat in vec_sol: a monitor
   that builds the solution or the residual sees || b - A x || equal to the recursive unpreconditioned norm, and
   building it leaves the iteration alone (the same iterates and count as without the monitor), for the standard and
   the single-reduction iteration; after the solve KSPBuildSolution() gives the returned x */
TEST(DCG, BuildSolutionDuringTheSolveIsTheIterate)
{
  Mat         A = Rough2D(24, 20, 1e-3);
  Vec         b, x, y;
  PetscRandom rnd;
  PetscRandomCreate(PETSC_COMM_SELF, &rnd);
  MatCreateVecs(A, &x, &b);
  VecDuplicate(x, &y);
  VecSetRandom(b, rnd);
  for (PetscBool pipelined : {PETSC_FALSE, PETSC_TRUE}) {
    const std::string what = pipelined ? "single-reduction" : "standard";
    PetscInt          its[2];
    TrueResidualLog   log;
    for (int monitored = 0; monitored < 2; monitored++) {
      KSP ksp = CreateDCG(A, PCNEUMANN);
      KSPDCGSetDeflationSpaceType(ksp, KSP_DCG_SPACE_CHUNKS);
      KSPDCGSetPipelined(ksp, pipelined);
      KSPSetTolerances(ksp, 1e-9, PETSC_DEFAULT, PETSC_DEFAULT, 500);
      if (monitored) KSPMonitorSet(ksp, LogBuiltResidual, &log, NULL);
      VecZeroEntries(x);
      ASSERT_EQ(KSPSolve(ksp, b, x), PETSC_SUCCESS) << what;
      KSPGetIterationNumber(ksp, &its[monitored]);
      if (monitored) { /* the solution built after the solve is the returned x */
        Vec       s;
        PetscReal d;
        KSPBuildSolution(ksp, y, &s);
        VecAXPY(y, -1.0, x);
        VecNorm(y, NORM_INFINITY, &d);
        EXPECT_EQ(d, 0.0) << what;
      }
      KSPDestroy(&ksp);
    }
    /* the same count, up to rounding: on a GPU the reductions' order varies between runs (atomics), and at contrast
       1e-3 this iteration of ~150 steps ended 3 apart on two runs with PETSc's Kokkos vectors */
    EXPECT_LE(PetscAbsInt(its[0] - its[1]), its[0] / 20) << what << ": " << its[0] << " iterations without the monitor, " << its[1] << " with it";
    ASSERT_GT(log.built.size(), 2u) << what;
    for (size_t i = 0; i < log.built.size(); i++)
      EXPECT_NEAR(log.built[i], log.recursive[i], 1e-6 * log.recursive[0] + 1e-3 * log.recursive[i]) << what << ", iteration " << i;
  }
  VecDestroy(&b);
  VecDestroy(&x);
  VecDestroy(&y);
  PetscRandomDestroy(&rnd);
  MatDestroy(&A);
}

/* an indefinite operator (the 2D Laplacian shifted by -0.2 h^-2-scaled, whose deflated (p, P A p) turns clearly
   negative while (p, A p) > 0) is reported as KSP_DIVERGED_INDEFINITE_MAT, standard and pipelined, with zero and
   nonzero initial guesses, and the solve returns the initial guess, whose residual is smaller than the coarse
   correction's; with -ksp_error_if_not_converged it is an error that says so */
TEST(DCG, IndefiniteOperatorKeepsTheInitialGuess)
{
  const PetscInt n = 12, N = n * n;
  Mat            A;
  MatCreateSeqAIJ(PETSC_COMM_SELF, N, N, 5, NULL, &A);
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt r = i + n * j;
      MatSetValue(A, r, r, 4.0 - 0.2, INSERT_VALUES);
      if (i > 0) MatSetValue(A, r, r - 1, -1.0, INSERT_VALUES);
      if (i < n - 1) MatSetValue(A, r, r + 1, -1.0, INSERT_VALUES);
      if (j > 0) MatSetValue(A, r, r - n, -1.0, INSERT_VALUES);
      if (j < n - 1) MatSetValue(A, r, r + n, -1.0, INSERT_VALUES);
    }
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  Vec b, x, x0;
  MatCreateVecs(A, &x, &b);
  VecSet(b, 1.0);
  VecDuplicate(x, &x0);
  for (PetscBool pipelined : {PETSC_FALSE, PETSC_TRUE})
    for (bool guess : {false, true}) {
      KSP ksp = CreateDCG(A, PCNONE);
      KSPDCGSetPipelined(ksp, pipelined);
      PetscOptionsSetValue(NULL, "-ksp_dcg_subdomains", "2");
      KSPSetFromOptions(ksp);
      PetscOptionsClearValue(NULL, "-ksp_dcg_subdomains");
      VecSet(x0, guess ? 0.05 : 0.0);
      VecCopy(x0, x);
      if (guess) KSPSetInitialGuessNonzero(ksp, PETSC_TRUE);
      const double r0 = TrueResidual(A, b, x0);
      ASSERT_EQ((int)KSPSolve(ksp, b, x), 0);
      KSPConvergedReason reason;
      KSPGetConvergedReason(ksp, &reason);
      EXPECT_EQ(reason, KSP_DIVERGED_INDEFINITE_MAT) << "pipelined " << pipelined << " guess " << guess;
      EXPECT_LE(TrueResidual(A, b, x), r0 * (1 + 1e-12)) << "pipelined " << pipelined << " guess " << guess;
      KSPSetErrorIfNotConverged(ksp, PETSC_TRUE);
      VecCopy(x0, x);
      PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
      PetscErrorCode ierr = KSPSolve(ksp, b, x);
      PetscPopErrorHandler();
      EXPECT_EQ((int)ierr, (int)PETSC_ERR_NOT_CONVERGED);
      KSPDestroy(&ksp);
    }
  VecDestroy(&x0);
  VecDestroy(&b);
  VecDestroy(&x);
  MatDestroy(&A);
}

/* a rectangular operator is refused by KSPDCG and PCNEUMANN with an error that says it must be square */
TEST(DCG, RectangularOperatorIsAnError)
{
  Mat A;
  MatCreateSeqAIJ(PETSC_COMM_SELF, 10, 11, 3, NULL, &A);
  for (PetscInt i = 0; i < 10; i++) {
    MatSetValue(A, i, i, 2.0, INSERT_VALUES);
    MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES);
  }
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  for (const char *pc : {PCJACOBI, PCNEUMANN}) {
    KSP ksp = CreateDCG(A, pc);
    PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
    PetscErrorCode ierr = KSPSetUp(ksp);
    PetscPopErrorHandler();
    EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_SIZ) << pc;
    EXPECT_NE(LastError().find("square"), std::string::npos) << LastError();
    KSPDestroy(&ksp);
  }
  /* PCNEUMANN alone (under KSPCG) */
  KSP ksp;
  PC  p;
  KSPCreate(PETSC_COMM_SELF, &ksp);
  KSPSetOperators(ksp, A, A);
  KSPSetType(ksp, KSPCG);
  KSPGetPC(ksp, &p);
  PCSetType(p, PCNEUMANN);
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  PetscErrorCode ierr = KSPSetUp(ksp);
  PetscPopErrorHandler();
  EXPECT_NE((int)ierr, 0);
  EXPECT_NE(LastError().find("square"), std::string::npos) << LastError();
  KSPDestroy(&ksp);
  MatDestroy(&A);
}

/* b = 0 with a nonzero initial guess (here one the deflated start solves to the rounding level): x = 0 at once,
   KSP_CONVERGED_ATOL; before, the relative test against that rounding-level residual ended in KSP_DIVERGED_DTOL */
TEST(DCG, ZeroRightHandSide)
{
  Mat A = Rough2D(10, 10, 1.0);
  Vec b, x;
  MatCreateVecs(A, &x, &b);
  VecSet(b, 0.0);
  for (PetscBool pipelined : {PETSC_FALSE, PETSC_TRUE}) {
    KSP ksp = CreateDCG(A, PCJACOBI);
    KSPDCGSetPipelined(ksp, pipelined);
    KSPSetInitialGuessNonzero(ksp, PETSC_TRUE);
    KSPSetErrorIfNotConverged(ksp, PETSC_TRUE);
    VecSet(x, 1.0);
    ASSERT_EQ((int)KSPSolve(ksp, b, x), 0);
    KSPConvergedReason reason;
    PetscReal          xn;
    KSPGetConvergedReason(ksp, &reason);
    VecNorm(x, NORM_INFINITY, &xn);
    EXPECT_EQ(reason, KSP_CONVERGED_ATOL);
    EXPECT_EQ(xn, 0.0);
    KSPDestroy(&ksp);
  }
  VecDestroy(&b);
  VecDestroy(&x);
  MatDestroy(&A);
}
