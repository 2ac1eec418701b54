static char help[] = "Poisson's equation -laplace u = f on the unit square or cube with homogeneous Dirichlet conditions,\n\
on a DMDA, solved with PETSc's KSP while petsckp's device SpMV is checked against MatMult.\n\
The exact solution is u = prod_i x_i^3 (1 - x_i); the example checks that the discretisation error is O(h^2).\n\n\
Options:\n\
  -dim <2|3>            : dimension (default 2)\n\
  -n <n>                : interior grid points per direction (default 33)\n\
  -use_kp_operator      : give KSP petsckp's SpMV (MatCreateKPShell) as the operator, A as preconditioning matrix\n\
  -kp_format <sell|csr> : device matrix format (default sell)\n\
  -coordinates <pc|dm|none> : how a preconditioner that needs the grid (e.g. -pc_type uaamg or gamg) gets it: pc:\n\
                          PCSetCoordinates with the points' coordinates (default; ignored by other PCs); dm: the\n\
                          DMDA is given to the KSP (not active) with uniform coordinates; none: neither\n\
  -print_times          : print the wall-clock times of KSPSetUp and KSPSolve (device synchronised)\n\
  -solver_view          : KSPView after the timed solve (e.g. the levels and complexities of the multigrid)\n\
  -warmup <its>         : first run this many iterations of the same solver on a copy of the matrix (untimed, no\n\
                          output): the timed solve then no longer pays for the first launch of each kernel in the\n\
                          process, while its setup finds no copy or hierarchy made for the warm-up (default 0)\n\
  -vec_type/-mat_type   : types of the DMDA's vectors and matrix (e.g. cuda/aijcusparse)\n\n";

#include <petscdmda.h>
#include <petscksp.h>
#include <petsckp.h>

/* scaled 5/7-point Laplacian (1/h^2) on the interior points; Dirichlet boundary values are zero */
static PetscErrorCode AssembleLaplacian(DM da, PetscInt dim, PetscReal h, Mat A)
{
  PetscInt    i, j, k, M, N, P, xs, ys, zs, xm, ym, zm;
  MatStencil  row, col[7];
  PetscScalar v[7];
  PetscReal   s = 1.0 / (h * h);

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  if (dim == 2) zs = 0, zm = 1, P = 1;
  for (k = zs; k < zs + zm; k++)
    for (j = ys; j < ys + ym; j++)
      for (i = xs; i < xs + xm; i++) {
        PetscInt c = 0;
        row.i = i, row.j = j, row.k = k, row.c = 0;
        v[c] = 2.0 * dim * s, col[c++] = row;
        if (i > 0) v[c] = -s, col[c] = row, col[c++].i = i - 1;
        if (i < M - 1) v[c] = -s, col[c] = row, col[c++].i = i + 1;
        if (j > 0) v[c] = -s, col[c] = row, col[c++].j = j - 1;
        if (j < N - 1) v[c] = -s, col[c] = row, col[c++].j = j + 1;
        if (dim == 3 && k > 0) v[c] = -s, col[c] = row, col[c++].k = k - 1;
        if (dim == 3 && k < P - 1) v[c] = -s, col[c] = row, col[c++].k = k + 1;
        PetscCall(MatSetValuesStencil(A, 1, &row, c, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* u = prod g(x_i) with g(x) = x^3 (1 - x) and f = -laplace u at the interior points (not an eigenvector of the
   discrete Laplacian, and its 4th derivative makes the O(h^2) error visible) */
static PetscReal G(PetscReal x) { return x * x * x * (1 - x); }
static PetscReal G2(PetscReal x) { return 6 * x - 12 * x * x; }

static PetscErrorCode ExactAndRhs(DM da, PetscInt dim, PetscReal h, Vec u, Vec f)
{
  PetscInt     i, j, k, xs, ys, zs, xm, ym, zm, idx = 0;
  PetscScalar *ua, *fa;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  if (dim == 2) zs = 0, zm = 1;
  PetscCall(VecGetArrayWrite(u, &ua));
  PetscCall(VecGetArrayWrite(f, &fa));
  for (k = zs; k < zs + zm; k++)
    for (j = ys; j < ys + ym; j++)
      for (i = xs; i < xs + xm; i++, idx++) {
        PetscReal x = (i + 1) * h, y = (j + 1) * h, z = (k + 1) * h;
        PetscReal gz = dim == 3 ? G(z) : 1.0;
        ua[idx]      = G(x) * G(y) * gz;
        fa[idx]      = -(G2(x) * G(y) * gz + G(x) * G2(y) * gz + (dim == 3 ? G(x) * G(y) * G2(z) : 0.0));
      }
  PetscCall(VecRestoreArrayWrite(u, &ua));
  PetscCall(VecRestoreArrayWrite(f, &fa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the solver of the example on A: KSPCG unless the options say otherwise, on petsckp's SpMV of A (*S, created here)
   with -use_kp_operator, and the grid for the PCs that need it (coord_mode 0: PCSetCoordinates, 1: the DMDA) */
static PetscErrorCode CreateSolver(DM da, PetscInt dim, PetscReal h, PetscInt coord_mode, PetscBool use_kp, PetscKPMatFormat format, Mat A, Mat *S, KSP *ksp)
{
  PetscFunctionBeginUser;
  *S = NULL;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  if (use_kp) {
    PetscCall(MatCreateKPShell(A, format, S));
    PetscCall(KSPSetOperators(*ksp, *S, A));
  } else PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPCG));
  PetscCall(KSPSetTolerances(*ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 10000));
  if (coord_mode == 1) { /* the PC takes the coordinates from the DMDA */
    PetscCall(DMDASetUniformCoordinates(da, h, 1 - h, h, 1 - h, h, 1 - h));
    PetscCall(KSPSetDM(*ksp, da));
    PetscCall(PetscKPKSPSetDMActive(*ksp, PETSC_FALSE));
  }
  PetscCall(KSPSetFromOptions(*ksp));
  /* BoomerAMG does not use coordinates for a scalar problem, and PETSc's PCSetCoordinates_HYPRE aborts inside hypre's
     device memcpy (cudaErrorInvalidValue) when hypre is built with CUDA: hypre is not given them */
  if (coord_mode == 0) { /* the points' coordinates, after the PC's type is set (PCSetCoordinates is ignored before) */
    PC         pc;
    PetscBool  ishypre;
    PetscInt   nloc, xs, ys, zs, xm, ym, zm, idx = 0;
    PetscReal *coords;

    PetscCall(MatGetLocalSize(A, &nloc, NULL));
    PetscCall(PetscMalloc1(dim * nloc, &coords));
    PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
    if (dim == 2) zs = 0, zm = 1;
    for (PetscInt k = zs; k < zs + zm; k++)
      for (PetscInt j = ys; j < ys + ym; j++)
        for (PetscInt i = xs; i < xs + xm; i++, idx++) {
          coords[dim * idx]     = (i + 1) * h;
          coords[dim * idx + 1] = (j + 1) * h;
          if (dim == 3) coords[dim * idx + 2] = (k + 1) * h;
        }
    PetscCall(KSPGetPC(*ksp, &pc));
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCHYPRE, &ishypre));
    if (!ishypre) PetscCall(PCSetCoordinates(pc, dim, nloc, coords));
    PetscCall(PetscFree(coords));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* warmup iterations of the solver the options choose, on a copy of A (so that nothing cached on the matrix, such as
   petsckp's device copy, serves the timed solve), with no monitor or view: every kernel the timed solve launches has
   been launched once in the process. It runs before the timed solver is created, so that with -coordinates dm the
   timed one gets new coordinates of the DMDA (the local, ghosted ones made for the warm-up's PC are not reused).
   KSPSetFromOptions reads the viewers of -ksp_view and (in recent PETSc releases) -ksp_converged_reason, and the
   monitors: with the viewer options off during the warm-up it gets none; the options prefix warmup_, set after
   KSPSetFromOptions, keeps those read at the solve silent too. */
static PetscErrorCode WarmUp(DM da, PetscInt dim, PetscReal h, PetscInt coord_mode, PetscBool use_kp, PetscKPMatFormat format, Mat A, Vec f, PetscInt warmup)
{
  KSP kw;
  Mat Aw, Sw;
  Vec xw;

  PetscFunctionBeginUser;
  PetscCall(PetscKPOptionsPushViewerOff(PETSC_TRUE));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &Aw));
  PetscCall(CreateSolver(da, dim, h, coord_mode, use_kp, format, Aw, &Sw, &kw));
  PetscCall(KSPMonitorCancel(kw));
  PetscCall(KSPSetOptionsPrefix(kw, "warmup_"));
  PetscCall(KSPSetTolerances(kw, 1e-30, PETSC_DEFAULT, 1e30, warmup));
  PetscCall(KSPSetErrorIfNotConverged(kw, PETSC_FALSE));
  PetscCall(VecDuplicate(f, &xw));
  PetscCall(KSPSolve(kw, f, xw));
  PetscCall(VecDestroy(&xw));
  PetscCall(KSPDestroy(&kw));
  PetscCall(MatDestroy(&Sw));
  PetscCall(MatDestroy(&Aw));
  PetscCall(PetscKPOptionsPopViewerOff());
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM               da;
  Mat              A, S = NULL;
  Vec              u, uh, f, x, y1, y2;
  KSP              ksp;
  PetscInt         dim = 2, n = 33;
  PetscBool        use_kp = PETSC_FALSE, flg, times = PETSC_FALSE;
  PetscInt         coord_mode = 0, warmup = 0;
  PetscLogDouble   t0, t1, t2;
  const char      *coord_modes[] = {"pc", "dm", "none", "CoordinateMode", "COORD_", NULL};
  PetscKPMatFormat format = PETSCKP_FORMAT_SELL;
  PetscKPDeviceMat dm;
  PetscReal        h, err, nrm, diff;
  char             type[256];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscKPRegisterAll());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Poisson example options", NULL);
  PetscCall(PetscOptionsInt("-dim", "dimension (2 or 3)", NULL, dim, &dim, NULL));
  PetscCall(PetscOptionsInt("-n", "interior grid points per direction", NULL, n, &n, NULL));
  PetscCall(PetscOptionsBool("-use_kp_operator", "use petsckp's SpMV as the KSP operator", NULL, use_kp, &use_kp, NULL));
  PetscCall(PetscOptionsEnum("-kp_format", "device matrix format", "PetscKPDeviceMatCreate", PetscKPMatFormats, (PetscEnum)format, (PetscEnum *)&format, NULL));
  PetscCall(PetscOptionsEList("-coordinates", "how the PC gets the grid", NULL, coord_modes, 3, coord_modes[coord_mode], &coord_mode, NULL));
  PetscCall(PetscOptionsBool("-print_times", "print the times of KSPSetUp and KSPSolve", NULL, times, &times, NULL));
  PetscCall(PetscOptionsInt("-warmup", "iterations of an untimed solve on a copy of the matrix before the timed one (0: none)", NULL, warmup, &warmup, NULL));
  PetscOptionsEnd();
  PetscCheck(warmup >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-warmup %" PetscInt_FMT " must be >= 0 (0: no warm-up solve)", warmup);
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3, not %" PetscInt_FMT, dim);
  PetscCheck(n >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n must be at least 2");
  h = 1.0 / (n + 1);

  if (dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  else PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-vec_type", type, sizeof(type), &flg));
  if (flg) PetscCall(DMSetVecType(da, type));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", type, sizeof(type), &flg));
  if (flg) PetscCall(DMSetMatType(da, type));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(AssembleLaplacian(da, dim, h, A));
  PetscCall(DMCreateGlobalVector(da, &u));
  PetscCall(VecDuplicate(u, &uh));
  PetscCall(VecDuplicate(u, &f));
  PetscCall(VecDuplicate(u, &x));
  PetscCall(VecDuplicate(u, &y1));
  PetscCall(VecDuplicate(u, &y2));
  PetscCall(ExactAndRhs(da, dim, h, u, f));

  /* 1. petsckp's SpMV (with the ghost exchange under MPI) equals MatMult, also after new values */
  PetscCall(PetscKPDeviceMatCreate(A, format, &dm));
  for (PetscInt pass = 0; pass < 2; pass++) {
    PetscCall(VecSetRandom(x, NULL));
    PetscCall(MatMult(A, x, y1));
    PetscCall(PetscKPDeviceMatMult(dm, x, y2));
    PetscCall(VecAXPY(y2, -1.0, y1));
    PetscCall(VecNorm(y2, NORM_INFINITY, &diff));
    PetscCall(VecNorm(y1, NORM_INFINITY, &nrm));
    PetscCheck(diff <= 1e-13 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "petsckp SpMV differs from MatMult: %g relative", (double)(diff / nrm));
    if (!pass) {
      PetscCall(MatScale(A, 2.0)); /* values change: the device copy must follow */
    } else PetscCall(MatScale(A, 0.5));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "SpMV check: passed\n"));
  PetscCall(PetscKPDeviceMatDestroy(&dm));

  /* 2. solve with PETSc's KSP; optionally on petsckp's SpMV */
  if (warmup > 0) PetscCall(WarmUp(da, dim, h, coord_mode, use_kp, format, A, f, warmup));
  PetscCall(CreateSolver(da, dim, h, coord_mode, use_kp, format, A, &S, &ksp));
  /* setup and solve timed separately; a norm (a value on the host) waits for the device */
  PetscCall(VecNorm(f, NORM_2, &nrm));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(VecNorm(f, NORM_2, &nrm));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(&t1));
  PetscCall(KSPSolve(ksp, f, uh));
  PetscCall(VecNorm(uh, NORM_2, &nrm));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(&t2));
  PetscCall(KSPViewFromOptions(ksp, NULL, "-solver_view")); /* outside the timed part */
  if (times) {
    PetscInt its;

    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "times: setup %.4e s, solve %.4e s, iterations %" PetscInt_FMT "\n", t1 - t0, t2 - t1, its));
  }

  /* 3. discretisation error: the 2nd-order scheme gives max|u - u_h| ~ c h^2 with c ~ 0.02 (2D), 0.002 (3D) */
  PetscCall(VecAXPY(uh, -1.0, u));
  PetscCall(VecNorm(uh, NORM_INFINITY, &err));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Poisson %" PetscInt_FMT "D, %" PetscInt_FMT " points per direction: max error / h^2 = %.4f\n", dim, n, (double)(err / (h * h))));
  PetscCheck(err / (h * h) < 0.05, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "discretisation error %g is not O(h^2)", (double)err);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error check: passed\n"));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&uh));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y1));
  PetscCall(VecDestroy(&y2));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: 2d
    nsize: {{1 2 4}}
    args: -dim 2 -n 33 -pc_type jacobi
    output_file: output/poisson_2d.out

  test:
    suffix: 2d_kp
    nsize: {{1 2 4}}
    args: -dim 2 -n 33 -use_kp_operator -kp_format {{sell csr}}
    output_file: output/poisson_2d_kp.out

  test:
    suffix: 3d
    nsize: {{1 2 4}}
    args: -dim 3 -n 17 -use_kp_operator
    output_file: output/poisson_3d.out

  test:
    suffix: 3d_odd
    nsize: {{2 4}}
    args: -dim 3 -n 16 -use_kp_operator -kp_format csr -pc_type jacobi
    output_file: output/poisson_3d_odd.out

  # Wang, Hu, Cohen, Xu: FCG + uaamg (K-cycle); the coordinates by PCSetCoordinates or from the DMDA
  test:
    suffix: 2d_uaamg
    nsize: {{1 2 4}}
    args: -dim 2 -n 33 -ksp_type fcg -pc_type uaamg -ksp_max_it 25 -ksp_error_if_not_converged
    output_file: output/poisson_2d.out

  test:
    suffix: 2d_uaamg_dm
    nsize: {{1 4}}
    args: -dim 2 -n 33 -ksp_type fcg -pc_type uaamg -coordinates dm -ksp_max_it 25 -ksp_error_if_not_converged
    output_file: output/poisson_2d.out

  test:
    suffix: 3d_uaamg
    nsize: {{1 2 4}}
    args: -dim 3 -n 17 -use_kp_operator -ksp_type fcg -pc_type uaamg -ksp_max_it 25 -ksp_error_if_not_converged
    output_file: output/poisson_3d.out

  # the Gauss-Seidel smoothers under MPI: one ghost exchange per sweep (hybrid, the default) or per colour
  test:
    suffix: 3d_uaamg_hybrid
    nsize: {{2 3 4}}
    args: -dim 3 -n 17 -use_kp_operator -ksp_type fcg -pc_type uaamg -ksp_max_it 25 -ksp_error_if_not_converged -pc_uaamg_hybrid_smoother {{true false}}
    output_file: output/poisson_3d.out

  test:
    suffix: 3d_uaamg_dm
    nsize: 2
    args: -dim 3 -n 17 -ksp_type fcg -pc_type uaamg -coordinates dm -ksp_max_it 25 -ksp_error_if_not_converged
    output_file: output/poisson_3d.out

  # coarse-level replication: the levels of at most 2000 rows held and cycled on every process (K-cycle, and the
  # linear V- and W-cycles under plain CG, which need them to stay symmetric)
  test:
    suffix: 3d_uaamg_replicated
    nsize: {{2 3 4}}
    args: -dim 3 -n 17 -use_kp_operator -ksp_type fcg -pc_type uaamg -pc_uaamg_replicate_size 2000 -pc_uaamg_coarse_size 32 -ksp_max_it 25 -ksp_error_if_not_converged
    output_file: output/poisson_3d.out

  test:
    suffix: 3d_uaamg_replicated_cg
    nsize: {{2 4}}
    args: -dim 3 -n 17 -use_kp_operator -ksp_type cg -pc_type uaamg -pc_uaamg_cycle {{v w}} -pc_uaamg_replicate_size 2000 -pc_uaamg_coarse_size 32 -ksp_max_it 40 -ksp_error_if_not_converged
    output_file: output/poisson_3d.out

  # the linear V- and W-cycles under plain CG
  test:
    suffix: 2d_uaamg_cg
    nsize: {{1 2}}
    args: -dim 2 -n 33 -ksp_type cg -pc_type uaamg -pc_uaamg_cycle {{v w}} -ksp_max_it 40 -ksp_error_if_not_converged
    output_file: output/poisson_2d.out

  # over-relaxed per-colour Gauss-Seidel under MPI: cells split between processes are coloured apart (graph colouring),
  # so the iterations stay those of one process (with the parity colours of the cells: 20 / 398 / 596 at 1 / 2 / 4)
  test:
    suffix: 2d_uaamg_split_cells_omega
    nsize: {{1 2 4}}
    args: -dim 2 -n 33 -ksp_type fcg -pc_type uaamg -pc_uaamg_hybrid_smoother false -pc_uaamg_omega 1.9 -ksp_max_it 24 -ksp_error_if_not_converged
    filter: grep -v "^ " | sed -e "s/ [0-9]\+ MPI process\(es\)\?$//"
    output_file: output/poisson_2d_uaamg_split_cells_omega.out

  # -warmup: 3 iterations of the same solver (the grid from PCSetCoordinates or the DMDA) on a copy of the matrix
  # before the timed solve, silent (one converged reason, one -ksp_view, no error at its maximum iterations), and the
  # timed solve's iterations and error unchanged
  test:
    suffix: 2d_uaamg_warmup
    nsize: {{1 2}}
    args: -dim 2 -n 33 -use_kp_operator -ksp_type fcg -pc_type uaamg -coordinates {{pc dm}} -ksp_max_it 25 -ksp_error_if_not_converged -ksp_converged_reason -ksp_view -warmup 3
    filter: grep -v "^ " | sed -e "s/ [0-9]\+ MPI process\(es\)\?$//"
    output_file: output/poisson_2d_uaamg_warmup.out

  test:
    suffix: bad_warmup
    args: -dim 2 -n 9 -warmup -1
    expect_error: -warmup -1 must be >= 0

TEST*/
