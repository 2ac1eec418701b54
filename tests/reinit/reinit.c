static char help[] = "PetscInitialize() again after PetscFinalize() in one process: petsckp's types, log events and Kokkos\n\
must work in every round (a 1D Laplacian with KSPDCG + PCNEUMANN, a DMDA Poisson problem with CG + PCPSORMG, and a\n\
bound-constrained quadratic with TAOLBFGSB), with logging on so that the events are used.\n\n";

#include <petscdmda.h>
#include <petscksp.h>
#include <petsctao.h>
#include <petsckp.h>

/* tridiag(-1, 2, -1) x = b with x = 1: returns the error of the solution of KSPDCG + PCNEUMANN */
static PetscErrorCode SolveDCG(PetscReal *err)
{
  Mat      A;
  Vec      x, b, u;
  KSP      ksp;
  PC       pc;
  PetscInt i, rs, re, n = 200;

  PetscFunctionBeginUser;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, NULL, 2, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (i = rs; i < re; i++) {
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
    PetscCall(MatSetValue(A, i, i, 2.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &u));
  PetscCall(VecSet(u, 1.0));
  PetscCall(MatMult(A, u, b));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPDCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCNEUMANN));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(VecAXPY(x, -1.0, u));
  PetscCall(VecNorm(x, NORM_INFINITY, err));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&u));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 5-point Laplacian on a 33 x 33 DMDA with x = 1: the error of CG + PCPSORMG */
static PetscErrorCode SolvePSORMG(PetscReal *err)
{
  DM       da;
  Mat      A;
  Vec      x, b, u;
  KSP      ksp;
  PC       pc;
  PetscInt i, j, xs, ys, xm, ym, M = 33;

  PetscFunctionBeginUser;
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, M, M, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  for (j = ys; j < ys + ym; j++)
    for (i = xs; i < xs + xm; i++) {
      MatStencil  row = {0}, col[5];
      PetscScalar v[5];
      PetscInt    c = 0;
      row.i = i, row.j = j;
      v[c] = 4.0, col[c++] = row;
      if (i > 0) v[c] = -1.0, col[c] = row, col[c++].i = i - 1;
      if (i < M - 1) v[c] = -1.0, col[c] = row, col[c++].i = i + 1;
      if (j > 0) v[c] = -1.0, col[c] = row, col[c++].j = j - 1;
      if (j < M - 1) v[c] = -1.0, col[c] = row, col[c++].j = j + 1;
      PetscCall(MatSetValuesStencil(A, 1, &row, c, col, v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecDuplicate(x, &u));
  PetscCall(VecSet(u, 1.0));
  PetscCall(MatMult(A, u, b));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, da));
  PetscCall(PetscKPKSPSetDMActive(ksp, PETSC_FALSE));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCPSORMG));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 100));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(VecAXPY(x, -1.0, u));
  PetscCall(VecNorm(x, NORM_INFINITY, err));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&u));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* min 1/2 sum (x_i - c_i)^2 with c_i = (i mod 3) - 1 over 0 <= x <= 1/2: x_i = min(max(c_i, 0), 1/2) */
static PetscErrorCode FG(Tao tao, Vec x, PetscReal *f, Vec g, void *ctx)
{
  Vec c = (Vec)ctx;

  PetscFunctionBeginUser;
  PetscCall(VecWAXPY(g, -1.0, c, x));
  PetscCall(VecDot(g, g, f));
  *f *= 0.5;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SolveLBFGSB(PetscReal *err)
{
  Tao         tao;
  Vec         x, c, lo, up, ex;
  PetscInt    i, rs, re, n = 301;
  PetscScalar v;

  PetscFunctionBeginUser;
  PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
  PetscCall(VecSetSizes(x, PETSC_DECIDE, n));
  PetscCall(VecSetFromOptions(x));
  PetscCall(VecDuplicate(x, &c));
  PetscCall(VecDuplicate(x, &lo));
  PetscCall(VecDuplicate(x, &up));
  PetscCall(VecDuplicate(x, &ex));
  PetscCall(VecGetOwnershipRange(x, &rs, &re));
  for (i = rs; i < re; i++) {
    v = (PetscScalar)(i % 3) - 1.0;
    PetscCall(VecSetValue(c, i, v, INSERT_VALUES));
    PetscCall(VecSetValue(ex, i, PetscMin(PetscMax(PetscRealPart(v), 0.0), 0.5), INSERT_VALUES));
  }
  PetscCall(VecAssemblyBegin(c));
  PetscCall(VecAssemblyEnd(c));
  PetscCall(VecAssemblyBegin(ex));
  PetscCall(VecAssemblyEnd(ex));
  PetscCall(VecSet(lo, 0.0));
  PetscCall(VecSet(up, 0.5));
  PetscCall(VecSet(x, 0.25));
  PetscCall(TaoCreate(PETSC_COMM_WORLD, &tao));
  PetscCall(TaoSetType(tao, TAOLBFGSB));
  PetscCall(TaoSetSolution(tao, x));
  PetscCall(TaoSetVariableBounds(tao, lo, up));
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, FG, (void *)c));
  PetscCall(TaoSetFromOptions(tao));
  PetscCall(TaoSolve(tao));
  PetscCall(VecAXPY(x, -1.0, ex));
  PetscCall(VecNorm(x, NORM_INFINITY, err));
  PetscCall(TaoDestroy(&tao));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&c));
  PetscCall(VecDestroy(&lo));
  PetscCall(VecDestroy(&up));
  PetscCall(VecDestroy(&ex));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the event of this name was registered in this round and counted by the solves (a stale id from an earlier round
   would name another event or none) */
static PetscErrorCode CheckEvent(const char name[], int round)
{
  PetscLogEvent      id;
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventGetId(name, &id));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, id, &info));
  PetscCheck(info.count > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "round %d: log event %s was not counted", round, name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  /* MPI outlives the PETSc rounds: PetscFinalize() finalises MPI only when PetscInitialize() initialised it */
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  for (int round = 0; round < 3; round++) {
    PetscReal e1, e2, e3;

    PetscCall(PetscInitialize(&argc, &argv, NULL, help));
    PetscCall(PetscKPRegisterAll());
    PetscCall(PetscLogDefaultBegin());
    PetscCall(SolveDCG(&e1));
    PetscCall(SolvePSORMG(&e2));
    e3 = 0;
#if defined(PETSCKP_TAO_REINITIALIZE_BROKEN)
    if (round == 0) /* PETSc itself cannot create a Tao after a new PetscInitialize() (see petsckp_compat.h) */
#endif
      PetscCall(SolveLBFGSB(&e3));
    PetscCall(CheckEvent("KSPDCGSetup", round));
    PetscCall(CheckEvent("PCNeumannSetup", round));
    PetscCall(CheckEvent("PCPSORMGSetUp", round));
#if defined(PETSCKP_TAO_REINITIALIZE_BROKEN)
    if (round == 0)
#endif
      PetscCall(CheckEvent("LBFGSBLineSearch", round));
    PetscCheck(e1 < 1e-6 && e2 < 1e-6 && e3 < 1e-8, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "round %d: errors dcg %g psormg %g lbfgsb %g", round, (double)e1, (double)e2, (double)e3);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "round %d: dcg + neumann, cg + psormg and lbfgsb solved\n", round));
    PetscCall(PetscFinalize());
  }
  return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}
