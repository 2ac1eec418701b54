static char help[] = "3D heat transfer test of Wang, Hu, Cohen and Xu, \"A parallel auxiliary grid algebraic multigrid method\n\
for graphic processing units\" (SIAM J. Sci. Comput. 35(3), 2013, Section 5.2, Example 2): one backward Euler step\n\
of dT/dt - div grad T = 0 with T = 356 on the inlet (the patch 0.25 < y, z < 0.75 of the face x = 0), dT/dn = 0 on\n\
the rest of the boundary and T0 = 256, on the unit cube or on the cube with a box cavity (cells removed: a\n\
non-convex domain, part of its bounding box empty). Cell-centred finite volumes (two-point fluxes) on a tensor grid\n\
of boxes, optionally with jittered grid planes; the unknowns are the cells, their centroids the coordinates given\n\
to the preconditioner with PCSetCoordinates. The paper does not give the time step, the inlet or the cavity; the\n\
choices here are documented by the options.\n\
The example checks the solution: the discrete maximum principle (256 <= T <= 356), the heat balance (heat stored\n\
= heat through the inlet), and the difference to a tight reference solve (CG + Jacobi, rtol 1e-13).\n\n\
Options:\n\
  -n <n>              : cells per direction (default 16); -nx, -ny, -nz override it per direction\n\
  -domain <cube|cavity> : the unit cube, or the cube minus the box given by -cavity (default cube)\n\
  -cavity <x0,x1,y0,y1,z0,z1> : the removed box (default 0.375,1,0.25,0.75,0.5,1: a notch open at x = 1 and z = 1);\n\
                        a cell is removed when its centroid is inside\n\
  -jitter <j>         : move each interior grid plane by up to j times the mean spacing (default 0, j < 0.5)\n\
  -dt <dt>            : time step (default 0.1: dt / h^2 = 26 at n = 16, so that diffusion dominates)\n\
  -reference <bool>   : solve again with CG + Jacobi to rtol 1e-13 and compare (default true)\n\
  -reference_tol <t>  : fail unless max |T - T_ref| <= t (356 - 256) (default 1e-5)\n\
  -max_its_expected <m> : fail if the solver needs more iterations (default: no check)\n\
  -print_times        : print the wall-clock times of KSPSetUp and KSPSolve (device synchronised; Kokkos and the device\n\
                        initialised before)\n\
  -solver_view        : KSPView after the timed solve (e.g. the levels and complexities of the multigrid)\n\n\
The default solver is CG with rtol 1e-8; e.g. -ksp_type fcg -pc_type uaamg for the auxiliary-grid AMG.\n\n";

#include <petscksp.h>
#include <petsckp.h>

#define T_INLET   356.0
#define T_INITIAL 256.0

typedef struct {
  PetscInt   n[3];       /* cells per direction */
  PetscReal *x[3];       /* grid planes, n[d] + 1 per direction */
  PetscInt  *id;         /* global number of every cell (lexicographic, x fastest), -1 for removed cells */
  PetscInt   kStart, kEnd; /* the z-planes of cells of this rank */
  PetscInt   N, rstart, nloc;
  PetscReal  dt;
} Grid;

static PetscReal Jitter(PetscInt k)
{
  PetscReal s = PetscSinReal(12.9898 * (PetscReal)(k + 1) + 78.233) * 43758.5453;
  return 2.0 * (s - PetscFloorReal(s)) - 1.0;
}

static PetscReal Centre(const Grid *g, PetscInt d, PetscInt i) { return 0.5 * (g->x[d][i] + g->x[d][i + 1]); }

static PetscErrorCode GridCreate(MPI_Comm comm, Grid *g, PetscBool cavity, const PetscReal box[6], PetscReal jitter)
{
  PetscMPIInt rank, size;
  PetscInt    nc = g->n[0] * g->n[1] * g->n[2], count = 0, *first;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCheck(g->n[2] >= size, comm, PETSC_ERR_ARG_OUTOFRANGE, "-nz (%" PetscInt_FMT ") must be at least the number of ranks (%d)", g->n[2], size);
  for (PetscInt d = 0; d < 3; d++) {
    PetscCall(PetscMalloc1(g->n[d] + 1, &g->x[d]));
    for (PetscInt i = 0; i <= g->n[d]; i++) {
      g->x[d][i] = (PetscReal)i / g->n[d];
      if (i > 0 && i < g->n[d]) g->x[d][i] += jitter / g->n[d] * Jitter(1000 * d + i);
    }
  }
  /* z-planes split evenly over the ranks; numbering lexicographic, so each rank's cells are one range */
  g->kStart = (g->n[2] * rank) / size, g->kEnd = (g->n[2] * (rank + 1)) / size;
  PetscCall(PetscMalloc1(nc, &g->id));
  PetscCall(PetscMalloc1(g->n[2] + 1, &first)); /* first[k]: active cells below plane k */
  for (PetscInt k = 0; k < g->n[2]; k++) {
    first[k] = count;
    for (PetscInt j = 0; j < g->n[1]; j++)
      for (PetscInt i = 0; i < g->n[0]; i++) {
        PetscReal c[3] = {Centre(g, 0, i), Centre(g, 1, j), Centre(g, 2, k)};
        PetscBool in = (PetscBool)(cavity && c[0] > box[0] && c[0] < box[1] && c[1] > box[2] && c[1] < box[3] && c[2] > box[4] && c[2] < box[5]);
        g->id[(k * g->n[1] + j) * g->n[0] + i] = in ? -1 : count++;
      }
  }
  first[g->n[2]] = count;
  g->rstart = first[g->kStart], g->nloc = first[g->kEnd] - first[g->kStart];
  g->N = count;
  PetscCall(PetscFree(first));
  PetscCheck(g->nloc > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "rank %d holds no cell: the cavity removes all its z-planes; use fewer ranks or a larger -nz", rank);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GridDestroy(Grid *g)
{
  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree(g->x[d]));
  PetscCall(PetscFree(g->id));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* V/dt T + sum over faces of |f| / d (T - T_nb) = V/dt T0 + inlet terms; also the cell centroids and, per row, the
   inlet coefficient (for the heat balance) */
static PetscErrorCode Assemble(const Grid *g, Mat A, Vec b, Vec vol, Vec inlet, PetscReal *coords)
{
  PetscInt rstart = g->rstart;

  PetscFunctionBeginUser;
  for (PetscInt k = g->kStart; k < g->kEnd; k++)
    for (PetscInt j = 0; j < g->n[1]; j++)
      for (PetscInt i = 0; i < g->n[0]; i++) {
        PetscInt    ijk[3] = {i, j, k}, row = g->id[(k * g->n[1] + j) * g->n[0] + i], cols[7], nc = 1;
        PetscReal   h[3], c[3], V, diag, rhs, ain = 0;
        PetscScalar vals[7];

        if (row < 0) continue;
        for (PetscInt d = 0; d < 3; d++) h[d] = g->x[d][ijk[d] + 1] - g->x[d][ijk[d]], c[d] = Centre(g, d, ijk[d]);
        V    = h[0] * h[1] * h[2];
        diag = V / g->dt;
        rhs  = V / g->dt * T_INITIAL;
        for (PetscInt d = 0; d < 3; d++) {
          PetscReal af = V / h[d]; /* face area */
          for (PetscInt s = -1; s <= 1; s += 2) {
            PetscInt nb[3] = {i, j, k}, col;

            nb[d] += s;
            if (nb[d] < 0 || nb[d] >= g->n[d]) {
              /* the inlet: Dirichlet through the half cell */
              if (d == 0 && s == -1 && c[1] > 0.25 && c[1] < 0.75 && c[2] > 0.25 && c[2] < 0.75) {
                ain = af / (c[0] - g->x[0][0]);
                diag += ain;
                rhs += ain * T_INLET;
              }
              continue;
            }
            col = g->id[(nb[2] * g->n[1] + nb[1]) * g->n[0] + nb[0]];
            if (col < 0) continue; /* cavity wall: no flux */
            {
              PetscReal a = af / PetscAbsReal(Centre(g, d, nb[d]) - c[d]);
              diag += a;
              cols[nc] = col, vals[nc++] = -a;
            }
          }
        }
        cols[0] = row, vals[0] = diag;
        PetscCall(MatSetValues(A, 1, &row, nc, cols, vals, INSERT_VALUES));
        PetscCall(VecSetValue(b, row, rhs, INSERT_VALUES));
        PetscCall(VecSetValue(vol, row, V, INSERT_VALUES));
        PetscCall(VecSetValue(inlet, row, ain, INSERT_VALUES));
        for (PetscInt d = 0; d < 3; d++) coords[3 * (row - rstart) + d] = c[d];
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));
  PetscCall(VecAssemblyBegin(vol));
  PetscCall(VecAssemblyEnd(vol));
  PetscCall(VecAssemblyBegin(inlet));
  PetscCall(VecAssemblyEnd(inlet));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  Grid               g;
  Mat                A;
  Vec                T, Tref, b, vol, inlet, w;
  KSP                ksp;
  PC                 pc;
  PetscInt           n = 16, its, maxits = -1, nbox = 6;
  PetscReal          box[6] = {0.375, 1, 0.25, 0.75, 0.5, 1}, jitter = 0, *coords, tmin, tmax, stored, inflow, mean, reftol = 1e-5;
  PetscBool          cavity = PETSC_FALSE, reference = PETSC_TRUE, flg, ishypre;
  char               domain[16] = "cube";
  PetscBool          times = PETSC_FALSE;
  PetscReal          bnorm;
  PetscLogDouble     t0, t1, t2;
  KSPConvergedReason reason;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscKPRegisterAll());
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscMemzero(&g, sizeof(g)));
  g.dt = 0.1;
  PetscOptionsBegin(comm, NULL, "3D heat transfer example options", NULL);
  PetscCall(PetscOptionsInt("-n", "cells per direction", NULL, n, &n, NULL));
  g.n[0] = g.n[1] = g.n[2] = n;
  PetscCall(PetscOptionsInt("-nx", "cells in x", NULL, g.n[0], &g.n[0], NULL));
  PetscCall(PetscOptionsInt("-ny", "cells in y", NULL, g.n[1], &g.n[1], NULL));
  PetscCall(PetscOptionsInt("-nz", "cells in z", NULL, g.n[2], &g.n[2], NULL));
  PetscCall(PetscOptionsString("-domain", "cube or cavity", NULL, domain, domain, sizeof(domain), NULL));
  PetscCall(PetscOptionsRealArray("-cavity", "the removed box x0,x1,y0,y1,z0,z1", NULL, box, &nbox, &flg));
  PetscCheck(!flg || nbox == 6, comm, PETSC_ERR_ARG_SIZ, "-cavity needs 6 numbers x0,x1,y0,y1,z0,z1, not %" PetscInt_FMT, nbox);
  PetscCall(PetscOptionsReal("-jitter", "move interior grid planes by up to j mean spacings", NULL, jitter, &jitter, NULL));
  PetscCall(PetscOptionsReal("-dt", "time step", NULL, g.dt, &g.dt, NULL));
  PetscCall(PetscOptionsBool("-reference", "compare with a tight CG + Jacobi solve", NULL, reference, &reference, NULL));
  PetscCall(PetscOptionsReal("-reference_tol", "tolerance of the comparison, relative to 356 - 256", NULL, reftol, &reftol, NULL));
  PetscCall(PetscOptionsInt("-max_its_expected", "fail if the solver needs more iterations", NULL, maxits, &maxits, NULL));
  PetscCall(PetscOptionsBool("-print_times", "print the times of KSPSetUp and KSPSolve", NULL, times, &times, NULL));
  PetscOptionsEnd();
  PetscCheck(!strcmp(domain, "cube") || !strcmp(domain, "cavity"), comm, PETSC_ERR_ARG_OUTOFRANGE, "-domain must be cube or cavity, not %s", domain);
  cavity = !strcmp(domain, "cavity") ? PETSC_TRUE : PETSC_FALSE;
  for (PetscInt d = 0; d < 3; d++) PetscCheck(g.n[d] >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "at least 2 cells per direction");
  PetscCheck(jitter >= 0 && jitter < 0.5, comm, PETSC_ERR_ARG_OUTOFRANGE, "-jitter must be in [0, 0.5)");
  PetscCheck(g.dt > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-dt must be positive");

  PetscCall(GridCreate(comm, &g, cavity, box, jitter));
  PetscCall(MatCreate(comm, &A));
  PetscCall(MatSetSizes(A, g.nloc, g.nloc, g.N, g.N));
  PetscCall(MatSetType(A, MATAIJ));
  PetscCall(MatSetFromOptions(A)); /* e.g. -mat_type aijcusparse, before the preallocation */
  PetscCall(MatSeqAIJSetPreallocation(A, 7, NULL));
  PetscCall(MatMPIAIJSetPreallocation(A, 7, NULL, 2, NULL));
  PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE));
  PetscCall(MatCreateVecs(A, &T, &b));
  PetscCall(VecDuplicate(T, &Tref));
  PetscCall(VecDuplicate(T, &vol));
  PetscCall(VecDuplicate(T, &inlet));
  PetscCall(VecDuplicate(T, &w));
  PetscCall(PetscMalloc1(3 * g.nloc, &coords));
  PetscCall(Assemble(&g, A, b, vol, inlet, coords));
  PetscCall(PetscPrintf(comm, "heat transfer on the %s, %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cells: N = %" PetscInt_FMT " unknowns (%.1f%% of the bounding box)\n", cavity ? "cube with a cavity" : "unit cube",
                        g.n[0], g.n[1], g.n[2], g.N, 100.0 * g.N / (g.n[0] * g.n[1] * g.n[2])));

  /* solve */
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  /* BoomerAMG does not use coordinates for a scalar problem, and PETSc's PCSetCoordinates_HYPRE aborts inside hypre's
     device memcpy (cudaErrorInvalidValue) when hypre is built with CUDA: hypre is not given them */
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCHYPRE, &ishypre));
  if (!ishypre) PetscCall(PCSetCoordinates(pc, 3, g.nloc, coords)); /* after the PC's type is set, or it is ignored */
  /* setup and solve timed separately; a norm (a value on the host) waits for the device. With -print_times, Kokkos
     and the device are initialised before (a device copy of A, made and destroyed), so that no solver's setup time
     holds this one-time cost */
  if (times) {
    PetscKPDeviceMat dA;

    PetscCall(PetscKPDeviceMatCreate(A, PETSCKP_FORMAT_CSR, &dA));
    PetscCall(PetscKPDeviceMatDestroy(&dA));
  }
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t1));
  PetscCall(KSPSolve(ksp, b, T));
  PetscCall(VecNorm(T, NORM_2, &bnorm));
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t2));
  PetscCall(KSPViewFromOptions(ksp, NULL, "-solver_view")); /* outside the timed part */
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCheck(reason > 0, comm, PETSC_ERR_NOT_CONVERGED, "the solver did not converge: %s after %" PetscInt_FMT " iterations", KSPConvergedReasons[reason], its);
  PetscCall(PetscPrintf(comm, "iterations %" PetscInt_FMT "\n", its));
  if (times) PetscCall(PetscPrintf(comm, "times: setup %.4e s, solve %.4e s, iterations %" PetscInt_FMT "\n", t1 - t0, t2 - t1, its));
  if (maxits >= 0) {
    PetscCheck(its <= maxits, comm, PETSC_ERR_NOT_CONVERGED, "%" PetscInt_FMT " iterations, more than the %" PetscInt_FMT " expected", its, maxits);
    PetscCall(PetscPrintf(comm, "iteration check (<= %" PetscInt_FMT "): passed\n", maxits));
  }

  /* checks: maximum principle, heat balance, reference solve */
  PetscCall(VecMin(T, NULL, &tmin));
  PetscCall(VecMax(T, NULL, &tmax));
  PetscCall(VecDot(vol, T, &mean));
  PetscCall(VecSum(vol, &stored));
  mean /= stored;
  PetscCall(PetscPrintf(comm, "temperature: min %.4f, max %.4f, mean %.4f\n", (double)tmin, (double)tmax, (double)mean));
  PetscCheck(tmin >= T_INITIAL - 1e-6 * (T_INLET - T_INITIAL) && tmax <= T_INLET + 1e-6 * (T_INLET - T_INITIAL), comm, PETSC_ERR_NOT_CONVERGED, "the maximum principle is violated: T in [%g, %g]", (double)tmin, (double)tmax);
  PetscCall(PetscPrintf(comm, "maximum principle check: passed\n"));
  /* heat stored sum V (T - T0) / dt against the inflow sum a_in (356 - T) */
  PetscCall(VecCopy(T, w));
  PetscCall(VecShift(w, -T_INITIAL));
  PetscCall(VecDot(vol, w, &stored));
  stored /= g.dt;
  PetscCall(VecCopy(T, w));
  PetscCall(VecScale(w, -1.0));
  PetscCall(VecShift(w, T_INLET));
  PetscCall(VecDot(inlet, w, &inflow));
  PetscCall(PetscPrintf(comm, "heat balance: stored %.5e, inflow %.5e\n", (double)stored, (double)inflow));
  {
    /* the balance is the sum of the equations: its defect is the sum of the residual, which the solver's tolerance
       bounds only up to a factor that grows with the number of unknowns (1e-5 holds at the default rtol 1e-8) */
    PetscReal rtol, baltol;
    PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
    baltol = PetscMax(1e-5, 100 * rtol);
    PetscCheck(PetscAbsReal(stored - inflow) <= baltol * PetscAbsReal(inflow), comm, PETSC_ERR_NOT_CONVERGED, "heat balance defect %g relative, more than %g", (double)(PetscAbsReal(stored - inflow) / PetscAbsReal(inflow)), (double)baltol);
  }
  PetscCall(PetscPrintf(comm, "heat balance check: passed\n"));
  if (reference) {
    KSP       kref;
    PetscReal diff;

    PetscCall(KSPCreate(comm, &kref));
    PetscCall(KSPSetOptionsPrefix(kref, "ref_"));
    PetscCall(KSPSetOperators(kref, A, A));
    PetscCall(KSPSetType(kref, KSPCG));
    PetscCall(KSPGetPC(kref, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(KSPSetNormType(kref, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(kref, 1e-13, PETSC_DEFAULT, PETSC_DEFAULT, 100000));
    PetscCall(KSPSetFromOptions(kref));
    PetscCall(KSPSolve(kref, b, Tref));
    PetscCall(KSPGetConvergedReason(kref, &reason));
    PetscCheck(reason > 0, comm, PETSC_ERR_NOT_CONVERGED, "the reference solve did not converge: %s", KSPConvergedReasons[reason]);
    PetscCall(VecAXPY(Tref, -1.0, T));
    PetscCall(VecNorm(Tref, NORM_INFINITY, &diff));
    diff /= T_INLET - T_INITIAL;
    PetscCheck(diff <= reftol, comm, PETSC_ERR_NOT_CONVERGED, "max |T - T_ref| / (356 - 256) = %g, more than %g", (double)diff, (double)reftol);
    PetscCall(PetscPrintf(comm, "reference check (max |T - T_ref| <= %g (356 - 256)): passed\n", (double)reftol));
    PetscCall(KSPDestroy(&kref));
  }

  PetscCall(PetscFree(coords));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&T));
  PetscCall(VecDestroy(&Tref));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&vol));
  PetscCall(VecDestroy(&inlet));
  PetscCall(VecDestroy(&w));
  PetscCall(GridDestroy(&g));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # FCG + uaamg on the cube and on the cube with a cavity (jittered grid planes): one rank records the iterations
  testset:
    args: -n 24 -jitter 0.2 -ksp_type fcg -pc_type uaamg -max_its_expected 20
    test:
      suffix: cube
      args: -domain cube
    test:
      suffix: cavity
      args: -domain cavity

  testset:
    nsize: {{2 4}}
    args: -n 24 -jitter 0.2 -ksp_type fcg -pc_type uaamg -max_its_expected 20
    filter: grep -v "^iterations"
    test:
      suffix: cube_par
      args: -domain cube
    test:
      suffix: cavity_par
      args: -domain cavity

TEST*/
