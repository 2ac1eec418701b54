static char help[] = "Checks of PCUAAMG (auxiliary-grid unsmoothed-aggregation AMG of Wang, Hu, Cohen and Xu) as a PETSc PC:\n"
                     "the stencil, device-CSR and host-MatPtAP hierarchies give the same preconditioner, the V-cycle is\n"
                     "symmetric positive definite, K-cycle iteration counts stay bounded under refinement in 2D and 3D on\n"
                     "jittered points, a same-pattern update reuses the aggregation, and bad input gives errors that say\n"
                     "what to fix; on graded coordinates the adaptive tree splits cells.\n";

#include <petscksp.h>
#include <petsckp.h>
#include <string.h>

/* the 5/7-point Laplacian of n^dim interior points (Dirichlet points eliminated), rows split by PETSc, and the
   points' coordinates (grid spacing 1/(n+1)) jittered by up to jitter h in every direction */
static PetscErrorCode Poisson(MPI_Comm comm, PetscInt dim, PetscInt n, PetscReal jitter, Mat *A, PetscReal **xyz, PetscInt *nloc)
{
  PetscInt    N = n, rs, re;
  PetscReal   h = 1.0 / (n + 1);
  PetscRandom rnd;

  PetscFunctionBeginUser;
  for (PetscInt d = 1; d < dim; d++) N *= n;
  PetscCall(MatCreateAIJ(comm, PETSC_DECIDE, PETSC_DECIDE, N, N, 2 * dim + 1, NULL, 2 * dim, NULL, A));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -jitter, jitter));
  PetscCall(PetscRandomSetSeed(rnd, 17));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscMalloc1((re - rs) * dim, xyz));
  for (PetscInt g = rs; g < re; g++) {
    PetscInt t[3] = {g % n, (g / n) % n, g / (n * n)};
    for (PetscInt a = 0; a < dim; a++) {
      PetscReal r;
      PetscCall(PetscRandomGetValueReal(rnd, &r));
      (*xyz)[(g - rs) * dim + a] = (t[a] + 1 + r) * h;
    }
    PetscCall(MatSetValue(*A, g, g, 2.0 * dim, INSERT_VALUES));
    for (PetscInt a = 0, s = 1; a < dim; a++, s *= n) {
      if (t[a] > 0) PetscCall(MatSetValue(*A, g, g - s, -1.0, INSERT_VALUES));
      if (t[a] < n - 1) PetscCall(MatSetValue(*A, g, g + s, -1.0, INSERT_VALUES));
    }
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  *nloc = re - rs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MakePC(Mat A, PetscInt dim, PetscInt nloc, PetscReal *xyz, PCUAAMGCycleType cycle, PCUAAMGCoarseFormat fmt, PetscBool dev, PC *pc)
{
  PetscFunctionBeginUser;
  PetscCall(PCCreate(PetscObjectComm((PetscObject)A), pc));
  PetscCall(PCSetType(*pc, PCUAAMG));
  PetscCall(PCSetOperators(*pc, A, A));
  if (xyz) PetscCall(PCSetCoordinates(*pc, dim, nloc, xyz));
  PetscCall(PCUAAMGSetCycleType(*pc, cycle));
  PetscCall(PCUAAMGSetCoarseFormat(*pc, fmt));
  PetscCall(PCUAAMGSetDeviceSetup(*pc, dev));
  PetscCall(PCUAAMGSetCoarseSize(*pc, 16));
  PetscCall(PCSetFromOptions(*pc));
  PetscCall(PCSetUp(*pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the three hierarchies of one process apply the same preconditioner, and the V-cycle is SPD */
static PetscErrorCode CheckPaths(PetscInt dim, PetscInt n)
{
  Mat         A;
  PetscReal  *xyz, diff, nrm;
  PetscInt    nloc;
  Vec         b, c, y[3], z;
  PetscRandom rnd;
  PetscMPIInt size;
  const char *names[3] = {"stencil", "csr (device products)", "csr (host MatPtAP)"};

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Poisson(PETSC_COMM_WORLD, dim, n, 0.3, &A, &xyz, &nloc));
  PetscCall(MatCreateVecs(A, &b, &c));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(VecSetRandom(c, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  for (PetscInt cyc = 0; cyc < 2; cyc++) {
    const PCUAAMGCycleType cycle = cyc ? PC_UAAMG_CYCLE_K : PC_UAAMG_CYCLE_V;
    for (PetscInt p = 0; p < 3; p++) {
      PC          pc;
      PetscScalar xBy, yBx, xBx;
      PetscCall(MakePC(A, dim, nloc, xyz, cycle, p == 0 ? PC_UAAMG_FORMAT_STENCIL : PC_UAAMG_FORMAT_CSR, p == 2 ? PETSC_FALSE : PETSC_TRUE, &pc));
      PetscCall(VecDuplicate(b, &y[p]));
      PetscCall(PCApply(pc, b, y[p]));
      if (p == 0 && size == 1) { /* b and y of another Vec type than the operator's ("mpi" against "seq"): the same result */
        Vec                bm, ym;
        const PetscScalar *u, *v;
        PetscInt           nl;
        PetscReal          dmax = 0, ymax = 0;
        PetscCall(VecGetLocalSize(b, &nl));
        PetscCall(VecCreateMPI(PETSC_COMM_WORLD, nl, PETSC_DETERMINE, &bm));
        PetscCall(VecDuplicate(bm, &ym));
        PetscCall(VecGetArrayRead(b, &u));
        PetscCall(VecGetArrayWrite(bm, (PetscScalar **)&v));
        PetscCall(PetscArraycpy((PetscScalar *)v, u, nl));
        PetscCall(VecRestoreArrayWrite(bm, (PetscScalar **)&v));
        PetscCall(VecRestoreArrayRead(b, &u));
        PetscCall(PCApply(pc, bm, ym));
        PetscCall(VecGetArrayRead(y[p], &u));
        PetscCall(VecGetArrayRead(ym, &v));
        for (PetscInt i = 0; i < nl; i++) dmax = PetscMax(dmax, PetscAbsScalar(u[i] - v[i])), ymax = PetscMax(ymax, PetscAbsScalar(u[i]));
        PetscCall(VecRestoreArrayRead(ym, &v));
        PetscCall(VecRestoreArrayRead(y[p], &u));
        PetscCheck(dmax <= 1e-12 * ymax, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s %s-cycle: b, y of another Vec type than the operator's give another result (difference %g)", names[p], cyc ? "K" : "V", (double)dmax);
        PetscCall(VecDestroy(&bm));
        PetscCall(VecDestroy(&ym));
      }
      if (cycle == PC_UAAMG_CYCLE_V) { /* (c, B b) = (b, B c) and (b, B b) > 0 */
        PetscCall(VecDuplicate(b, &z));
        PetscCall(PCApply(pc, c, z));
        PetscCall(VecDot(c, y[p], &xBy));
        PetscCall(VecDot(b, z, &yBx));
        PetscCall(VecDot(b, y[p], &xBx));
        PetscCheck(PetscAbsScalar(xBy - yBx) <= 1e-10 * PetscAbsScalar(xBx), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s V-cycle not symmetric: (c, B b) = %g, (b, B c) = %g", names[p], (double)PetscRealPart(xBy), (double)PetscRealPart(yBx));
        PetscCheck(PetscRealPart(xBx) > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s V-cycle not positive: (b, B b) = %g", names[p], (double)PetscRealPart(xBx));
        PetscCall(VecDestroy(&z));
      }
      PetscCall(PCDestroy(&pc));
      if (size > 1) break; /* under MPI every format is the host CSR hierarchy */
    }
    if (size == 1) {
      PetscCall(VecNorm(y[0], NORM_2, &nrm));
      for (PetscInt p = 1; p < 3; p++) {
        PetscCall(VecAXPY(y[p], -1.0, y[0]));
        PetscCall(VecNorm(y[p], NORM_2, &diff));
        PetscCheck(diff <= 1e-10 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD %s-cycle: the %s hierarchy differs from the stencil one by %g (relative)", (int)dim, cyc ? "K" : "V", names[p], (double)(diff / nrm));
      }
    }
    for (PetscInt p = 0; p < (size == 1 ? 3 : 1); p++) PetscCall(VecDestroy(&y[p]));
  }
  if (size == 1) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%dD: the stencil, device-CSR and host-MatPtAP hierarchies agree; the V-cycle is symmetric positive definite\n", (int)dim));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%dD: the V-cycle of the CSR hierarchy with process-local aggregates is symmetric positive definite\n", (int)dim));
  PetscCall(PetscFree(xyz));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&c));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FCG + K-cycle to 1e-8 on three refinements; a same-pattern update (A -> 2 A) keeps the hierarchy's structure */
static PetscErrorCode CheckIterations(PetscInt dim, PetscInt n0)
{
  PetscInt its[3];

  PetscFunctionBeginUser;
  for (PetscInt r = 0; r < 3; r++) {
    Mat                A;
    PetscReal         *xyz, e1, e2;
    PetscInt           nloc, its2, n = n0 << r;
    Vec                b, x, x2;
    KSP                ksp;
    PC                 pc;
    KSPConvergedReason reason;

    PetscCall(Poisson(PETSC_COMM_WORLD, dim, n, 0.3, &A, &xyz, &nloc));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecSet(b, 1.0));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetType(ksp, KSPFCG));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 200));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCUAAMG));
    PetscCall(PCSetCoordinates(pc, dim, nloc, xyz));
    PetscCall(PCUAAMGSetCoarseSize(pc, 16)); /* deep hierarchies at test sizes */
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPGetIterationNumber(ksp, &its[r]));
    PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%dD n = %" PetscInt_FMT ": FCG + PCUAAMG did not converge (%s)", (int)dim, n, KSPConvergedReasons[reason]);
    /* new values, same pattern: 2 A x2 = b gives x2 = x / 2 with the structure kept */
    PetscCall(MatScale(A, 2.0));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(VecDuplicate(x, &x2));
    PetscCall(KSPSolve(ksp, b, x2));
    PetscCall(KSPGetIterationNumber(ksp, &its2));
    PetscCall(VecNorm(x, NORM_2, &e1));
    PetscCall(VecAXPY(x2, -0.5, x));
    PetscCall(VecNorm(x2, NORM_2, &e2));
    PetscCheck(PetscAbsInt(its2 - its[r]) <= 1 && e2 <= 1e-6 * e1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD n = %" PetscInt_FMT ": after A -> 2 A, %" PetscInt_FMT " iterations (before %" PetscInt_FMT ") and |x2 - x/2| / |x| = %g", (int)dim, n, its2, its[r], (double)(e2 / e1));
    PetscCall(VecDestroy(&x2));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFree(xyz));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%dD FCG + K-cycle iterations to 1e-8 at n = %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT " per direction: %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT "\n", (int)dim, n0, 2 * n0, 4 * n0, its[0], its[1], its[2]));
  PetscCheck(its[2] <= 25 && its[2] <= (PetscInt)(1.5 * its[0]) + 1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD: the iteration counts grow under refinement", (int)dim);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the adaptive auxiliary tree (-pc_uaamg_fine_agg_max): on graded coordinates (x -> x^3 per axis) cells are split;
   the stencil format asked for falls back to CSR, the device and host Galerkin products give the same preconditioner,
   the V-cycle is SPD, FCG + K-cycle converges in few iterations, and a same-pattern update keeps the structure;
   threshold 0 is the uniform tree (no split) */
static PetscErrorCode CheckAdaptive(PetscInt dim, PetscInt n)
{
  Mat         A;
  PetscReal  *xyz, diff, nrm;
  PetscInt    nloc, its[2];
  Vec         b, c, y[3], z;
  PetscRandom rnd;
  PetscMPIInt size;
  const char *names[3] = {"stencil (CSR fallback)", "csr (device products)", "csr (host MatPtAP)"};

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Poisson(PETSC_COMM_WORLD, dim, n, 0.3, &A, &xyz, &nloc));
  for (PetscInt i = 0; i < nloc * dim; i++) xyz[i] = xyz[i] * xyz[i] * xyz[i];
  PetscCall(MatCreateVecs(A, &b, &c));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(VecSetRandom(c, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  for (PetscInt p = 0; p < (size == 1 ? 3 : 1); p++) {
    PC          pc;
    PetscScalar xBy, yBx, xBx;
    PetscReal   oc[2], gc[2];
    PetscInt    s;
    PetscCall(MakePC(A, dim, nloc, xyz, PC_UAAMG_CYCLE_V, p == 0 ? PC_UAAMG_FORMAT_STENCIL : PC_UAAMG_FORMAT_CSR, p == 2 ? PETSC_FALSE : PETSC_TRUE, &pc));
    PetscCall(PCUAAMGGetFineAggregateMax(pc, &s));
    PetscCheck(s == PETSC_DETERMINE, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the default split threshold is %" PetscInt_FMT ", not PETSC_DETERMINE", s);
    PetscCall(PCUAAMGGetComplexities(pc, &oc[0], &gc[0]));
    PetscCall(VecDuplicate(b, &y[p]));
    PetscCall(PCApply(pc, b, y[p]));
    PetscCall(VecDuplicate(b, &z));
    PetscCall(PCApply(pc, c, z));
    PetscCall(VecDot(c, y[p], &xBy));
    PetscCall(VecDot(b, z, &yBx));
    PetscCall(VecDot(b, y[p], &xBx));
    PetscCheck(PetscAbsScalar(xBy - yBx) <= 1e-10 * PetscAbsScalar(xBx), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "adaptive tree, %s V-cycle not symmetric: (c, B b) = %g, (b, B c) = %g", names[p], (double)PetscRealPart(xBy), (double)PetscRealPart(yBx));
    PetscCheck(PetscRealPart(xBx) > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "adaptive tree, %s V-cycle not positive: (b, B b) = %g", names[p], (double)PetscRealPart(xBx));
    PetscCall(VecDestroy(&z));
    /* the uniform tree: no split */
    PetscCall(PCUAAMGSetFineAggregateMax(pc, 0));
    PetscCall(PCUAAMGGetFineAggregateMax(pc, &s));
    PetscCheck(s == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "PCUAAMGGetFineAggregateMax() gives %" PetscInt_FMT " after setting 0", s);
    PetscCall(PCSetUp(pc));
    PetscCall(PCUAAMGGetComplexities(pc, &oc[1], &gc[1]));
    /* the split cells add fine aggregates: the grid complexity of the uniform tree is smaller */
    PetscCheck(gc[1] < gc[0] - 1e-3, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD %s: graded coordinates split no cell of the auxiliary tree (grid complexity %g, uniform tree %g)", (int)dim, names[p], (double)gc[0], (double)gc[1]);
    PetscCall(PCDestroy(&pc));
  }
  if (size == 1) {
    PetscCall(VecNorm(y[0], NORM_2, &nrm));
    for (PetscInt p = 1; p < 3; p++) {
      PetscCall(VecAXPY(y[p], -1.0, y[0]));
      PetscCall(VecNorm(y[p], NORM_2, &diff));
      PetscCheck(diff <= 1e-10 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD adaptive tree: the %s hierarchy differs from the %s one by %g (relative)", (int)dim, names[p], names[0], (double)(diff / nrm));
    }
  }
  for (PetscInt p = 0; p < (size == 1 ? 3 : 1); p++) PetscCall(VecDestroy(&y[p]));
  /* FCG + K-cycle, then a same-pattern update 2 A */
  {
    KSP                ksp;
    PC                 pc;
    Vec                x, x2;
    PetscReal          e1, e2;
    KSPConvergedReason reason;
    PetscCall(MatCreateVecs(A, &x, NULL));
    PetscCall(VecSet(b, 1.0));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetType(ksp, KSPFCG));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 200));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCUAAMG));
    PetscCall(PCSetCoordinates(pc, dim, nloc, xyz));
    PetscCall(PCUAAMGSetCoarseSize(pc, 16));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPGetIterationNumber(ksp, &its[0]));
    PetscCheck(reason > 0 && its[0] <= 25, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%dD adaptive tree: FCG + PCUAAMG needs %" PetscInt_FMT " iterations (%s)", (int)dim, its[0], KSPConvergedReasons[reason]);
    PetscCall(MatScale(A, 2.0));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(VecDuplicate(x, &x2));
    PetscCall(KSPSolve(ksp, b, x2));
    PetscCall(KSPGetIterationNumber(ksp, &its[1]));
    PetscCall(VecNorm(x, NORM_2, &e1));
    PetscCall(VecAXPY(x2, -0.5, x));
    PetscCall(VecNorm(x2, NORM_2, &e2));
    PetscCheck(PetscAbsInt(its[1] - its[0]) <= 1 && e2 <= 1e-6 * e1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD adaptive tree: after A -> 2 A, %" PetscInt_FMT " iterations (before %" PetscInt_FMT ") and |x2 - x/2| / |x| = %g", (int)dim, its[1], its[0], (double)(e2 / e1));
    PetscCall(VecDestroy(&x2));
    PetscCall(VecDestroy(&x));
    PetscCall(KSPDestroy(&ksp));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%dD graded coordinates: the adaptive tree splits cells; its hierarchies agree, the V-cycle is SPD, FCG + K-cycle converges\n", (int)dim));
  PetscCall(PetscFree(xyz));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&c));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Coarse-level replication under MPI (the first level of at most replicate_size rows and the coarser ones on every
   process) against the distributed levels (replicate size 0): the replicated V-cycle is symmetric positive definite,
   and FCG + K-cycle needs about the same iterations (the replicated levels' aggregates may span processes); on one
   process the option changes nothing. */
static PetscErrorCode CheckReplicated(PetscInt dim, PetscInt n)
{
  Mat         A;
  PetscReal  *xyz;
  PetscInt    nloc, its[2], nlev[2], rsize;
  Vec         b, c, y, z, x;
  PetscRandom rnd;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Poisson(PETSC_COMM_WORLD, dim, n, 0.3, &A, &xyz, &nloc));
  PetscCall(MatCreateVecs(A, &b, &c));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(VecDuplicate(b, &z));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(VecSetRandom(c, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  for (PetscInt r = 0; r < 2; r++) {
    PC          pc;
    KSP         ksp;
    PetscScalar        xBy, yBx, xBx;
    KSPConvergedReason reason;
    PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
    PetscCall(PCSetType(pc, PCUAAMG));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(PCSetCoordinates(pc, dim, nloc, xyz));
    PetscCall(PCUAAMGSetCycleType(pc, PC_UAAMG_CYCLE_V));
    PetscCall(PCUAAMGSetCoarseSize(pc, 16));
    PetscCall(PCUAAMGSetReplicateSize(pc, r ? 100000 : 0));
    PetscCall(PCUAAMGGetReplicateSize(pc, &rsize));
    PetscCheck(rsize == (r ? 100000 : 0), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "PCUAAMGGetReplicateSize() gives %" PetscInt_FMT, rsize);
    PetscCall(PCSetUp(pc));
    PetscCall(PCUAAMGGetNumberOfLevels(pc, &nlev[r]));
    PetscCall(PCApply(pc, b, y));
    PetscCall(PCApply(pc, c, z));
    PetscCall(VecDot(c, y, &xBy));
    PetscCall(VecDot(b, z, &yBx));
    PetscCall(VecDot(b, y, &xBx));
    PetscCheck(PetscAbsScalar(xBy - yBx) <= 1e-10 * PetscAbsScalar(xBx), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD V-cycle (replicate size %" PetscInt_FMT ") not symmetric: (c, B b) = %g, (b, B c) = %g", (int)dim, rsize, (double)PetscRealPart(xBy), (double)PetscRealPart(yBx));
    PetscCheck(PetscRealPart(xBx) > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD V-cycle (replicate size %" PetscInt_FMT ") not positive: (b, B b) = %g", (int)dim, rsize, (double)PetscRealPart(xBx));
    PetscCall(PCDestroy(&pc));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetType(ksp, KSPFCG));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 100));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCUAAMG));
    PetscCall(PCSetCoordinates(pc, dim, nloc, xyz));
    PetscCall(PCUAAMGSetCoarseSize(pc, 16));
    PetscCall(PCUAAMGSetReplicateSize(pc, r ? 100000 : 0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPGetIterationNumber(ksp, &its[r]));
    PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%dD FCG + PCUAAMG (replicate size %" PetscInt_FMT ") did not converge (%s)", (int)dim, rsize, KSPConvergedReasons[reason]);
    PetscCall(KSPDestroy(&ksp));
  }
  PetscCheck(PetscAbsInt(its[1] - its[0]) <= 2, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD: %" PetscInt_FMT " FCG iterations with replicated coarse levels, %" PetscInt_FMT " without", (int)dim, its[1], its[0]);
  PetscCheck(size == 1 || nlev[1] >= 2, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD: no coarse level", (int)dim);
  if (size == 1) PetscCheck(its[0] == its[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD: the replicate size changed the iterations on one process", (int)dim);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%dD: replicated coarse levels: the V-cycle is symmetric positive definite, FCG iterations within 2 of the distributed levels'\n", (int)dim));
  PetscCall(PetscFree(xyz));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&c));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one bad input: the setup must fail with an error whose message contains want */
typedef enum {
  BAD_NO_COORDINATES,
  BAD_COORDINATE_COUNT,
  BAD_NAN_COORDINATE,
  BAD_ZERO_DIAGONAL,
  BAD_NAN_ENTRY,
  BAD_NOT_SQUARE,
  BAD_BLOCK_SIZE,
  BAD_KCYCLE_UNDER_CG,
  BAD_OMEGA,
  BAD_BOX,
  BAD_FINE_AGG_MAX,
  BAD_KCYCLE_MIN,
  BAD_SAME_POINT,
  BAD_REPLICATE_SIZE,
  BAD_COUNT
} BadInput;
static const char *BadNames[] = {"no coordinates", "wrong coordinate count", "NaN coordinate", "zero diagonal", "NaN entry", "non-square operator", "block size 2", "K-cycle under CG", "omega out of range", "box of the wrong dimension", "negative split threshold", "K-cycle minimum level size below -1", "all coordinates the same point", "negative replicate size"};
static const char *BadWant[]  = {"PCSetCoordinates", "local points", "NaN or Inf coordinate", "diagonal 0", "NaN or Inf entry", "square operator", "block size 2", "-pc_uaamg_cycle", "-pc_uaamg_omega", "-pc_uaamg_bbox", "-pc_uaamg_fine_agg_max", "-pc_uaamg_kcycle_min_size", "same point", "-pc_uaamg_replicate_size"};

static PetscErrorCode RunBad(BadInput which)
{
  Mat       A;
  PetscReal *xyz;
  PetscInt  nloc, rs, n = 12, dim = 2;
  KSP       ksp;
  PC        pc;
  Vec       b, x;

  PetscFunctionBeginUser;
  if (which == BAD_NOT_SQUARE) {
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 20, 21, 1, NULL, 1, NULL, &A));
    PetscCall(MatGetOwnershipRange(A, &rs, &nloc));
    for (PetscInt i = rs; i < nloc; i++) PetscCall(MatSetValue(A, i, i, 1.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
    PetscCall(PCSetType(pc, PCUAAMG));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(PCSetUp(pc));
    PetscCall(PCDestroy(&pc));
    PetscCall(MatDestroy(&A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(Poisson(PETSC_COMM_WORLD, dim, n, 0.2, &A, &xyz, &nloc));
  PetscCall(MatGetOwnershipRange(A, &rs, NULL));
  if (which == BAD_NAN_COORDINATE && nloc) xyz[nloc / 2 * dim] = NAN;
  if (which == BAD_SAME_POINT)
    for (PetscInt i = 0; i < nloc * dim; i++) xyz[i] = 0.25;
  if (which == BAD_ZERO_DIAGONAL || which == BAD_NAN_ENTRY) {
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
    if (rs <= 30 && 30 < rs + nloc) PetscCall(MatSetValue(A, 30, 30, which == BAD_ZERO_DIAGONAL ? 0.0 : NAN, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  if (which == BAD_BLOCK_SIZE) {
    Mat B;
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, 2 * nloc, 2 * nloc, PETSC_DETERMINE, PETSC_DETERMINE, 1, NULL, 0, NULL, &B));
    PetscCall(MatSetBlockSize(B, 2));
    PetscCall(MatGetOwnershipRange(B, &rs, NULL));
    for (PetscInt i = rs; i < rs + 2 * nloc; i++) PetscCall(MatSetValue(B, i, i, 1.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatDestroy(&A));
    A = B;
  }
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetType(ksp, which == BAD_KCYCLE_UNDER_CG ? KSPCG : KSPFCG));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCUAAMG));
  PetscCall(PCUAAMGSetCoarseSize(pc, 16)); /* a hierarchy, not one dense level */
  if (which != BAD_NO_COORDINATES) PetscCall(PCSetCoordinates(pc, dim, which == BAD_COORDINATE_COUNT ? nloc - 1 : nloc, xyz));
  if (which == BAD_OMEGA) PetscCall(PCUAAMGSetOmega(pc, 3.0));
  if (which == BAD_FINE_AGG_MAX) PetscCall(PCUAAMGSetFineAggregateMax(pc, -5));
  if (which == BAD_KCYCLE_MIN) PetscCall(PCUAAMGSetKCycle(pc, 2, 0.2, -5));
  if (which == BAD_REPLICATE_SIZE) PetscCall(PCUAAMGSetReplicateSize(pc, -1));
  if (which == BAD_BOX) {
    const PetscReal box[6] = {0, 1, 0, 1, 0, 1};
    PetscCall(PCUAAMGSetBoundingBox(pc, 6, box));
  }
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFree(xyz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckBadInput(void)
{
  PetscFunctionBeginUser;
  for (PetscInt w = 0; w < BAD_COUNT; w++) {
    PetscErrorCode     ierr;
    PetscKPErrorString msg = NULL;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = RunBad((BadInput)w);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "bad input '%s' was accepted", BadNames[w]);
    PetscCall(PetscErrorMessage(ierr, NULL, &msg));
    PetscCheck(msg && strstr(msg, BadWant[w]), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "bad input '%s': the error \"%s\" does not mention \"%s\"", BadNames[w], msg ? msg : "(none)", BadWant[w]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bad input rejected: %s\n", BadNames[w]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscKPRegisterAll());
  PetscCall(CheckPaths(2, 24));
  PetscCall(CheckPaths(3, 10));
  PetscCall(CheckIterations(2, 32));
  PetscCall(CheckIterations(3, 8));
  PetscCall(CheckAdaptive(2, 24));
  PetscCall(CheckAdaptive(3, 10));
  PetscCall(CheckReplicated(2, 40));
  PetscCall(CheckReplicated(3, 16));
  PetscCall(CheckBadInput());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "uaamg checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
