static char help[] = "Pressure-Poisson problems of bubbly flow, -div((1/rho) grad p) = f, with discontinuous coefficients\n\
(Gupta, van Gijzen, Vuik, VECPAR 2012), on a DMDA, solved with KSPDCG + PCNEUMANN or any PETSc solver.\n\
Cell-centred finite volumes, n cells per direction, harmonic face means. 2D: Neumann on three sides, Dirichlet\n\
on top (y = 1); 3D: Neumann on all faces with the last diagonal entry doubled (Tang & Vuik), or with -dirichlet_top\n\
Neumann on the sides and the bottom and Dirichlet on top.\n\n\
Options:\n\
  -dim <2|3>                 : dimension (default 2)\n\
  -n <n>                     : cells per direction (default 64)\n\
  -geometry <layer|slab|bubble1|bubble8> : layer: 2D heavy fluid below y = 0.5; slab: 3D middle slab 0.25<z<0.75\n\
                               of coefficient 1/contrast times the rest; bubble1/bubble8: bubbles of coefficient\n\
                               1/contrast times the medium (default layer in 2D, slab in 3D)\n\
  -contrast <c>              : density ratio light/heavy (default 1e-3)\n\
  -dirichlet_top             : 3D: Dirichlet on top (y = 1) instead of the doubled last diagonal entry (always on in 2D)\n\
  -rhs <ax|zero_mean_random|random|ones|sin> : b = A x* with random x* (default 2D), zero-mean random (default 3D), ...,\n\
                               sin: b = h^2 (sin(3i + 1.7j + 0.3k) + 0.2) at cell (i, j, k)\n\
  -zero_guess                : x0 = 0 (default: random x0, as in the paper)\n\
  -user_blocks <bx,by,bz>    : KSPDCG: give the DMDA's block-constant deflation vectors (bx by bz of them) as a user\n\
                               space with KSPDCGSetDeflationSpace()\n\
  -seed <s>                  : seed of the random x*, b and x0 (rank-count independent)\n\
  -check_pcdeflation         : solve again with KSPCG + PCDEFLATION (same space, same inner PC) and check that the\n\
                               iterates agree (to 1e-10) with those of KSPDCG, or, for KSPCG + PCNEUMANN with\n\
                               -pc_neumann_deflation, with those of PCDEFLATION with -pc_deflation_correction (A-DEF2)\n\
  -compare_pcdeflation <f>   : solve again with KSPCG + PCDEFLATION (same space, same inner PC, no iterate check) and\n\
                               accept a KSPDCG run that stops short of rtol (breakdown at the attainable accuracy)\n\
                               when its true residual is within f times that of KSPCG + PCDEFLATION\n\
  -check_one_level <ratio>   : PCNEUMANN with deflation: solve again without deflation (same KSP) and fail unless the\n\
                               two-level preconditioner needs at most ratio times the iterations of the one-level one\n\
  -max_its_expected <m>      : fail if the solver needs more iterations (default: no check)\n\
  -warmup <its>              : first run this many iterations of the same solver on a copy of the matrix (untimed, no\n\
                               output): the timed solve then no longer pays for the first launch of each kernel in the\n\
                               process, while its setup finds no copy or factor made for the warm-up (default 0)\n\n\
The divergence tolerance is 1e30: with a random x0 and contrast 1e-6 the initial residual exceeds 1e4 ||b||.\n\n";

#include <petscdmda.h>
#include <petscksp.h>
#include <petsckp.h>

typedef enum {
  GEOM_LAYER,
  GEOM_SLAB,
  GEOM_BUBBLE1,
  GEOM_BUBBLE8
} Geometry;
static const char *const Geometries[] = {"layer", "slab", "bubble1", "bubble8", "Geometry", "GEOM_", NULL};
typedef enum {
  RHS_AX,
  RHS_ZERO_MEAN_RANDOM,
  RHS_RANDOM,
  RHS_ONES,
  RHS_SIN
} RhsType;
static const char *const RhsTypes[] = {"ax", "zero_mean_random", "random", "ones", "sin", "RhsType", "RHS_", NULL};

typedef struct {
  PetscInt  dim, n;
  Geometry  geom;
  PetscReal contrast;
  RhsType   rhs;
  PetscInt  seed;
  PetscBool dirichlet_top; /* 3D: Dirichlet on top instead of the doubled last diagonal entry */
} AppCtx;

/* coefficient 1/rho at a cell centre */
static PetscReal Coefficient(const AppCtx *ctx, PetscReal x, PetscReal y, PetscReal z)
{
  switch (ctx->geom) {
  case GEOM_LAYER:
    return y < 0.5 ? ctx->contrast : 1.0; /* heavy fluid (rho = 1/contrast) below */
  case GEOM_SLAB:
    return (z > 0.25 && z < 0.75) ? 1.0 / ctx->contrast : 1.0;
  case GEOM_BUBBLE1: {
    PetscReal r2 = (x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5) + (ctx->dim == 3 ? (z - 0.5) * (z - 0.5) : 0);
    return r2 < 0.25 * 0.25 ? 1.0 / ctx->contrast : 1.0;
  }
  case GEOM_BUBBLE8: {
    PetscReal cx = x < 0.5 ? 0.25 : 0.75, cy = y < 0.5 ? 0.25 : 0.75, cz = z < 0.5 ? 0.25 : 0.75;
    PetscReal r2 = (x - cx) * (x - cx) + (y - cy) * (y - cy) + (ctx->dim == 3 ? (z - cz) * (z - cz) : 0);
    return r2 < 0.125 * 0.125 ? 1.0 / ctx->contrast : 1.0;
  }
  }
  return 1.0;
}

/* PNG pictures of the density (log scale) and of the solution, middle plane in 3D */
static PetscErrorCode WritePictures(DM da, const AppCtx *ctx, Vec x, const char prefix[])
{
  Vec          rho;
  PetscScalar *r;
  PetscInt     xs, ys, zs, xm, ym, zm, idx = 0;
  char         name[PETSC_MAX_PATH_LEN];
  PetscReal    h = 1.0 / ctx->n;
  PetscInt     plane = ctx->geom == GEOM_BUBBLE8 ? ctx->n / 4 : ctx->n / 2; /* through bubble centres */

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(da, &rho));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  if (ctx->dim == 2) zs = 0, zm = 1;
  PetscCall(VecGetArrayWrite(rho, &r));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) r[idx++] = 1.0 / Coefficient(ctx, (i + 0.5) * h, (j + 0.5) * h, (k + 0.5) * h);
  PetscCall(VecRestoreArrayWrite(rho, &r));
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s_density.png", prefix));
  PetscCall(PetscKPDMDAWriteSlicePNG(da, rho, plane, PETSC_TRUE, name));
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s_solution.png", prefix));
  PetscCall(PetscKPDMDAWriteSlicePNG(da, x, plane, PETSC_FALSE, name));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "pictures: %s_density.png, %s_solution.png\n", prefix, prefix));
  PetscCall(VecDestroy(&rho));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* U[0,1) from a hash of (natural index, seed): the same values for any number of ranks */
static PetscReal HashUniform(PetscInt64 g, PetscInt seed)
{
  unsigned long long h = (unsigned long long)g * 0x9E3779B97F4A7C15ULL + (unsigned long long)(seed + 1) * 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 30, h *= 0xBF58476D1CE4E5B9ULL, h ^= h >> 27, h *= 0x94D049BB133111EBULL, h ^= h >> 31;
  return (PetscReal)(h >> 11) / 9007199254740992.0;
}

static PetscErrorCode Assemble(DM da, const AppCtx *ctx, Mat A)
{
  PetscInt    i, j, k, xs, ys, zs, xm, ym, zm, n = ctx->n, dim = ctx->dim;
  PetscReal   h = 1.0 / n, hs = dim == 3 ? h : 1.0;
  MatStencil  row, col[7];
  PetscScalar v[7];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  if (dim == 2) zs = 0, zm = 1;
  for (k = zs; k < zs + zm; k++)
    for (j = ys; j < ys + ym; j++)
      for (i = xs; i < xs + xm; i++) {
        PetscInt  c = 1, d, nb[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
        PetscReal cc = Coefficient(ctx, (i + 0.5) * h, (j + 0.5) * h, (k + 0.5) * h), diag = 0;
        row.i = i, row.j = j, row.k = k, row.c = 0;
        col[0] = row;
        for (d = 0; d < 2 * dim; d++) {
          PetscInt ii = i + nb[d][0], jj = j + nb[d][1], kk = k + nb[d][2];
          if (ii < 0 || ii >= n || jj < 0 || kk < 0 || kk >= n) continue; /* homogeneous Neumann */
          if (jj >= n) {
            if (dim == 2 || ctx->dirichlet_top) diag += 2 * cc * hs; /* Dirichlet on top through a ghost cell */
            continue;
          }
          PetscReal cn = Coefficient(ctx, (ii + 0.5) * h, (jj + 0.5) * h, (kk + 0.5) * h), cf = 2 * cc * cn / (cc + cn);
          col[c].i = ii, col[c].j = jj, col[c].k = kk, col[c].c = 0;
          v[c++] = -cf * hs;
          diag += cf * hs;
        }
        if (dim == 3 && !ctx->dirichlet_top && i == n - 1 && j == n - 1 && k == n - 1) diag *= 2; /* make the pure Neumann matrix SPD */
        v[0] = diag;
        PetscCall(MatSetValuesStencil(A, 1, &row, c, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* values from HashUniform in the natural ordering */
static PetscErrorCode FillRandom(DM da, const AppCtx *ctx, PetscInt seed, Vec v)
{
  PetscInt     i, j, k, xs, ys, zs, xm, ym, zm, idx = 0, n = ctx->n;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  if (ctx->dim == 2) zs = 0, zm = 1;
  PetscCall(VecGetArrayWrite(v, &a));
  for (k = zs; k < zs + zm; k++)
    for (j = ys; j < ys + ym; j++)
      for (i = xs; i < xs + xm; i++) a[idx++] = HashUniform(i + (PetscInt64)n * (j + (PetscInt64)n * k), seed);
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* b = h^2 (sin(3i + 1.7j + 0.3k) + 0.2) at cell (i, j, k) */
static PetscErrorCode FillSin(DM da, const AppCtx *ctx, Vec v)
{
  PetscInt     i, j, k, xs, ys, zs, xm, ym, zm, idx = 0;
  PetscReal    h = 1.0 / ctx->n;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  if (ctx->dim == 2) zs = 0, zm = 1;
  PetscCall(VecGetArrayWrite(v, &a));
  for (k = zs; k < zs + zm; k++)
    for (j = ys; j < ys + ym; j++)
      for (i = xs; i < xs + xm; i++) a[idx++] = h * h * (PetscSinReal(3.0 * i + 1.7 * j + 0.3 * k) + 0.2);
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Z (N x bx by bz, AIJ): the indicator vectors of bx x by x bz boxes of the grid, as a user deflation space */
static PetscErrorCode CreateBlockSpace(DM da, const AppCtx *ctx, const PetscInt nb[3], Mat *Z)
{
  PetscInt xs, ys, zs, xm, ym, zm, rs, m, n = ctx->n, d = nb[0] * nb[1] * (ctx->dim == 3 ? nb[2] : 1);

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  if (ctx->dim == 2) zs = 0, zm = 1;
  m = xm * ym * zm;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, m, PETSC_DECIDE, PETSC_DETERMINE, d, 1, NULL, 1, NULL, Z));
  PetscCall(MatGetOwnershipRange(*Z, &rs, NULL));
  for (PetscInt k = zs, r = rs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, r++) {
        PetscInt c = i * nb[0] / n + nb[0] * (j * nb[1] / n + nb[1] * (ctx->dim == 3 ? k * nb[2] / n : 0));
        PetscCall(MatSetValue(*Z, r, c, 1.0, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(*Z, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*Z, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* solves from x0 with the KSP; returns the iterations and the true relative residual */
static PetscLogDouble solve_wall; /* wall time of the last KSPSetUp + KSPSolve (time to solution), device work completed */
static PetscLogDouble setup_wall; /* of which KSPSetUp (PCSetUp, KSPDCG's deflation space and coarse matrix) */
static PetscLogDouble iter_wall;  /* of which KSPSolve (the iterations, the initial residual, the final correction) */

static PetscErrorCode Solve(KSP ksp, Mat A, Vec b, Vec x0, Vec x, PetscInt *its, PetscReal *relres, KSPConvergedReason *reason)
{
  Vec            r;
  PetscReal      nb, nr;
  PetscLogDouble t0, t1, t2;

  PetscFunctionBeginUser;
  PetscCall(VecCopy(x0, x));
  PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
  /* the device fence is a VecNorm (a reduction returned to the host waits for the work queued before it on PETSc's
     stream, where the plugins' kernels also run), which works on every PETSc version */
  PetscCall(VecNorm(x, NORM_1, &nr));
  PetscCallMPI(MPI_Barrier(PetscObjectComm((PetscObject)ksp)));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp)); /* PCSetUp; KSPDCG's deflation space and coarse matrix (no-op when already set up) */
  PetscCall(VecNorm(x, NORM_1, &nr));
  PetscCallMPI(MPI_Barrier(PetscObjectComm((PetscObject)ksp)));
  PetscCall(PetscTime(&t1));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(VecNorm(x, NORM_1, &nr));
  PetscCall(PetscTime(&t2));
  setup_wall = t1 - t0;
  iter_wall  = t2 - t1;
  solve_wall = t2 - t0;
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &nr));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *relres = nr / nb;
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the solver of the example on A: KSPDCG + PCNEUMANN unless the options say otherwise, with the DMDA's blocks as a user
   deflation space when user_blocks[0] > 0 */
static PetscErrorCode CreateSolver(DM da, const AppCtx *ctx, Mat A, const PetscInt user_blocks[3], KSP *ksp)
{
  PC pc;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetDM(*ksp, da));
  PetscCall(PetscKPKSPSetDMActive(*ksp, PETSC_FALSE));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPDCG));
  PetscCall(KSPSetNormType(*ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(*ksp, 1e-6, PETSC_DEFAULT, 1e30, 20000));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCNEUMANN));
  PetscCall(KSPSetFromOptions(*ksp));
  if (user_blocks[0] > 0) {
    Mat       Z;
    PetscBool isdcg;
    PetscCall(PetscObjectTypeCompare((PetscObject)*ksp, KSPDCG, &isdcg));
    PetscCheck(isdcg, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-user_blocks needs -ksp_type dcg");
    PetscCheck(user_blocks[0] <= ctx->n && user_blocks[1] >= 1 && user_blocks[1] <= ctx->n && user_blocks[2] >= 1 && user_blocks[2] <= ctx->n, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-user_blocks must be in [1, n]");
    PetscCall(CreateBlockSpace(da, ctx, user_blocks, &Z));
    PetscCall(KSPDCGSetDeflationSpace(*ksp, Z));
    PetscCall(MatDestroy(&Z));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* warmup iterations of the solver the options choose, on a copy of A (so that nothing cached on the matrix, such as
   the device copy and the deflation factor, serves the timed solve), with no monitor or view: every kernel the timed
   solve launches has been launched once in the process */
static PetscErrorCode WarmUp(DM da, const AppCtx *ctx, Mat A, Vec b, Vec x0, const PetscInt user_blocks[3], PetscInt warmup)
{
  KSP kw;
  Mat Aw;
  Vec xw;

  PetscFunctionBeginUser;
  PetscCall(PetscKPOptionsPushViewerOff(PETSC_TRUE)); /* KSPSetFromOptions makes the viewers of -ksp_view (and, in recent PETSc, -ksp_converged_reason): none for the warm-up */
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &Aw));
  PetscCall(CreateSolver(da, ctx, Aw, user_blocks, &kw));
  PetscCall(KSPMonitorCancel(kw));
  PetscCall(KSPSetOptionsPrefix(kw, "warmup_")); /* after KSPSetFromOptions: KSPSolve's -ksp_view, -ksp_converged_reason stay silent */
  PetscCall(KSPSetTolerances(kw, 1e-30, PETSC_DEFAULT, 1e30, warmup));
  PetscCall(KSPSetErrorIfNotConverged(kw, PETSC_FALSE));
  PetscCall(VecDuplicate(x0, &xw));
  PetscCall(VecCopy(x0, xw));
  PetscCall(KSPSetInitialGuessNonzero(kw, PETSC_TRUE));
  PetscCall(KSPSolve(kw, b, xw));
  PetscCall(VecDestroy(&xw));
  PetscCall(KSPDestroy(&kw));
  PetscCall(MatDestroy(&Aw));
  PetscCall(PetscKPOptionsPopViewerOff());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSPCG + PCDEFLATION with the space of ksp (KSPDCG's, or PCNEUMANN's with deflation) and its inner PC: the same
   iterates as KSPDCG (DEF2 ~ DEF1), or as KSPCG + PCNEUMANN's A-DEF2 with the correction factor 1 */
static PetscErrorCode CreateCGDeflation(KSP ksp, Mat A, PetscReal rtol, KSP *kc, Mat *Z)
{
  PC          pc, pcin, pcd;
  PCType      ptype;
  PetscBool   isdcg;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetType(pc, &ptype));
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPDCG, &isdcg));
  if (isdcg) PetscCall(KSPDCGCreateSpaceMat(ksp, Z));
  else PetscCall(PCNeumannCreateDeflationSpaceMat(pc, Z)); /* KSPCG + PCNEUMANN with deflation */
  PetscCall(KSPCreate(PETSC_COMM_WORLD, kc));
  PetscCall(KSPSetOperators(*kc, A, A));
  PetscCall(KSPSetType(*kc, KSPCG));
  PetscCall(KSPSetNormType(*kc, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(*kc, rtol, PETSC_DEFAULT, 1e30, 20000));
  PetscCall(KSPGetPC(*kc, &pcd));
  PetscCall(PCSetType(pcd, PCDEFLATION));
  PetscCall(PCDeflationSetSpace(pcd, *Z, PETSC_FALSE));
  if (!isdcg) PetscCall(PCDeflationSetCorrectionFactor(pcd, 1.0)); /* P^T M^-1 + Q: A-DEF2 */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PCDeflationSetReductionFactor(pcd, size)); /* coarse LU on one rank: GPU matrix types have no parallel LU */
  PetscCall(KSPSetOptionsPrefix(*kc, "cmp_"));
  PetscCall(KSPSetFromOptions(*kc));
  PetscCall(KSPSetUp(*kc)); /* creates the inner PC of PCDEFLATION */
  PetscCall(PCDeflationGetPC(pcd, &pcin));
  PetscCall(PCSetType(pcin, ptype));
  if (!strcmp(ptype, PCNEUMANN)) {
    PetscInt k;
    PetscCall(PCNeumannGetTerms(pc, &k));
    PetscCall(PCNeumannSetTerms(pcin, k));
    PetscCall(PCNeumannSetDeflationSpaceType(pcin, PC_NEUMANN_DEFLATION_SPACE_NONE)); /* PCDEFLATION deflates */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  AppCtx             ctx = {2, 64, GEOM_LAYER, 1e-3, RHS_AX, 0, PETSC_FALSE};
  DM                 da;
  Mat                A;
  Vec                b, x, x0, xs;
  KSP                ksp;
  PetscBool          check_def = PETSC_FALSE, zero_guess = PETSC_FALSE, flg;
  PetscInt           its, maxits = -1, user_blocks[3] = {0, 0, 0}, nub = 3, warmup = 0;
  PetscReal          relres, rtol, one_level_ratio = 0, compare_factor = 0;
  KSPConvergedReason reason;
  KSPType            ktype;
  PCType             ptype;
  char               type[256], png[PETSC_MAX_PATH_LEN] = "";

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscKPRegisterAll());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Bubbly flow pressure problem options", NULL);
  PetscCall(PetscOptionsInt("-dim", "dimension (2 or 3)", NULL, ctx.dim, &ctx.dim, NULL));
  ctx.geom = ctx.dim == 3 ? GEOM_SLAB : GEOM_LAYER;
  ctx.rhs  = ctx.dim == 3 ? RHS_ZERO_MEAN_RANDOM : RHS_AX;
  PetscCall(PetscOptionsInt("-n", "cells per direction", NULL, ctx.n, &ctx.n, NULL));
  PetscCall(PetscOptionsEnum("-geometry", "layer, slab, bubble1, bubble8", NULL, Geometries, (PetscEnum)ctx.geom, (PetscEnum *)&ctx.geom, NULL));
  PetscCall(PetscOptionsReal("-contrast", "density ratio (light/heavy)", NULL, ctx.contrast, &ctx.contrast, NULL));
  PetscCall(PetscOptionsBool("-dirichlet_top", "3D: Dirichlet on top instead of the doubled last diagonal entry", NULL, ctx.dirichlet_top, &ctx.dirichlet_top, NULL));
  PetscCall(PetscOptionsEnum("-rhs", "right-hand side", NULL, RhsTypes, (PetscEnum)ctx.rhs, (PetscEnum *)&ctx.rhs, NULL));
  PetscCall(PetscOptionsBool("-zero_guess", "x0 = 0 (default random)", NULL, zero_guess, &zero_guess, NULL));
  PetscCall(PetscOptionsIntArray("-user_blocks", "KSPDCG: block-constant deflation vectors given with KSPDCGSetDeflationSpace()", NULL, user_blocks, &nub, &flg));
  if (flg) {
    PetscCheck(nub >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-user_blocks takes bx[,by[,bz]], at least one number");
    for (PetscInt i = nub; i < 3; i++) user_blocks[i] = user_blocks[nub - 1];
    for (PetscInt i = 0; i < 3; i++) PetscCheck(user_blocks[i] >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-user_blocks: %" PetscInt_FMT " blocks in direction %" PetscInt_FMT "; each must be in [1, n]", user_blocks[i], i);
  }
  PetscCall(PetscOptionsReal("-compare_pcdeflation", "accept a stop short of rtol within this factor of the true residual of KSPCG + PCDEFLATION", NULL, compare_factor, &compare_factor, NULL));
  PetscCall(PetscOptionsInt("-seed", "seed of the random vectors", NULL, ctx.seed, &ctx.seed, NULL));
  PetscCall(PetscOptionsBool("-check_pcdeflation", "compare with KSPCG + PCDEFLATION", NULL, check_def, &check_def, NULL));
  PetscCall(PetscOptionsString("-png", "write <prefix>_density.png and <prefix>_solution.png (in 3D the plane through the bubble centres, or the middle one)", NULL, png, png, sizeof(png), NULL));
  PetscCall(PetscOptionsInt("-max_its_expected", "fail above this many iterations", NULL, maxits, &maxits, NULL));
  PetscCall(PetscOptionsInt("-warmup", "iterations of an untimed solve on a copy of the matrix before the timed one (0: none)", NULL, warmup, &warmup, NULL));
  PetscCall(PetscOptionsReal("-check_one_level", "fail unless PCNEUMANN with deflation needs at most this ratio of the one-level iterations", NULL, one_level_ratio, &one_level_ratio, NULL));
  PetscOptionsEnd();
  PetscCheck(warmup >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-warmup %" PetscInt_FMT " must be >= 0 (0: no warm-up solve)", warmup);
  PetscCheck(ctx.dim == 2 || ctx.dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3");
  PetscCheck(ctx.n >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n must be at least 2");
  PetscCheck(ctx.contrast > 0 && ctx.contrast <= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-contrast must be in (0, 1]");
  PetscCheck(ctx.dim == 3 || ctx.geom != GEOM_SLAB, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-geometry slab is 3D");

  if (ctx.dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, ctx.n, ctx.n, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  else PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, ctx.n, ctx.n, ctx.n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-vec_type", type, sizeof(type), &flg));
  if (flg) PetscCall(DMSetVecType(da, type));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", type, sizeof(type), &flg));
  if (flg) PetscCall(DMSetMatType(da, type));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(Assemble(da, &ctx, A));
  PetscCall(DMCreateGlobalVector(da, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &x0));
  PetscCall(VecDuplicate(b, &xs));
  switch (ctx.rhs) {
  case RHS_AX:
    PetscCall(FillRandom(da, &ctx, ctx.seed, xs));
    PetscCall(MatMult(A, xs, b));
    break;
  case RHS_ZERO_MEAN_RANDOM:
  case RHS_RANDOM: {
    PetscScalar sum;
    PetscInt    N;
    PetscCall(FillRandom(da, &ctx, ctx.seed, b));
    if (ctx.rhs == RHS_ZERO_MEAN_RANDOM) {
      PetscCall(VecSum(b, &sum));
      PetscCall(VecGetSize(b, &N));
      PetscCall(VecShift(b, -sum / N));
    }
  } break;
  case RHS_ONES:
    PetscCall(VecSet(b, 1.0));
    break;
  case RHS_SIN:
    PetscCall(FillSin(da, &ctx, b));
    break;
  }
  if (zero_guess) PetscCall(VecSet(x0, 0.0));
  else PetscCall(FillRandom(da, &ctx, ctx.seed + 1000, x0)); /* random x0, as in the paper */

  PetscCall(CreateSolver(da, &ctx, A, user_blocks, &ksp));
  if (warmup > 0) PetscCall(WarmUp(da, &ctx, A, b, x0, user_blocks, warmup));
  PetscCall(Solve(ksp, A, b, x0, x, &its, &relres, &reason));
  PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
  PetscCall(KSPGetType(ksp, &ktype));
  {
    PC pc;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCGetType(pc, &ptype));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bubbly %" PetscInt_FMT "D %s n = %" PetscInt_FMT ", contrast %g, rhs %s: %s + %s\n", ctx.dim, Geometries[ctx.geom], ctx.n, (double)ctx.contrast, RhsTypes[ctx.rhs], ktype, ptype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "iterations %" PetscInt_FMT ", true relative residual %.3e (%s), time to solution %.4g s (setup %.4g s, solve %.4g s, %.4g ms per iteration)\n", its, (double)relres, KSPConvergedReasons[reason], (double)solve_wall, (double)setup_wall, (double)iter_wall, its > 0 ? 1e3 * (double)iter_wall / its : 0.0));
  if (compare_factor > 0) {
    /* a stop short of rtol is accepted when it is a breakdown at the attainable accuracy: the returned iterate's true
       residual within compare_factor times that of KSPCG + PCDEFLATION (same space, same inner PC) */
    KSP                kc;
    Mat                Z;
    Vec                xc;
    PetscInt           itc;
    PetscReal          relc;
    KSPConvergedReason rc;

    PetscCall(CreateCGDeflation(ksp, A, rtol, &kc, &Z));
    PetscCall(VecDuplicate(x, &xc));
    PetscCall(Solve(kc, A, b, x0, xc, &itc, &relc, &rc));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCDEFLATION comparison: KSPCG + PCDEFLATION: iterations %" PetscInt_FMT ", true relative residual %.3e (%s)\n", itc, (double)relc, KSPConvergedReasons[rc]));
    PetscCheck((reason > 0 && relres <= 1.01 * rtol) || (reason == KSP_DIVERGED_BREAKDOWN && relres <= compare_factor * relc), PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "true residual %g (%s) neither below the tolerance %g nor, after a breakdown, within %g times the %g of KSPCG + PCDEFLATION", (double)relres, KSPConvergedReasons[reason], (double)rtol, (double)compare_factor, (double)relc);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "attainable accuracy check: passed\n"));
    PetscCall(VecDestroy(&xc));
    PetscCall(MatDestroy(&Z));
    PetscCall(KSPDestroy(&kc));
  } else {
    PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "the solver did not converge: %s", KSPConvergedReasons[reason]);
    PetscCheck(relres <= 1.01 * rtol, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "true residual %g above the tolerance %g", (double)relres, (double)rtol);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "true residual check: passed\n"));
  }
  PetscCheck(maxits < 0 || its <= maxits, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%" PetscInt_FMT " iterations, more than the expected %" PetscInt_FMT, its, maxits);
  if (png[0]) PetscCall(WritePictures(da, &ctx, x, png));

  if (check_def) {
    /* KSPCG + PCDEFLATION with the same space and inner PC produces the same iterates (DEF2 ~ DEF1) */
    KSP        kc;
    Mat        Z;
    Vec        xc;
    const PetscReal *h1, *h2;
    PetscReal        diff = 0, nx;
    PetscInt   n1, n2, itc;
    PetscReal  relc;
    KSPConvergedReason rc;

    PetscCall(CreateCGDeflation(ksp, A, rtol, &kc, &Z));
    PetscCall(KSPSetResidualHistory(ksp, NULL, PETSC_DECIDE, PETSC_TRUE));
    PetscCall(KSPSetResidualHistory(kc, NULL, PETSC_DECIDE, PETSC_TRUE));
    PetscCall(VecDuplicate(x, &xc));
    PetscCall(Solve(ksp, A, b, x0, x, &its, &relres, &reason));
    PetscCall(Solve(kc, A, b, x0, xc, &itc, &relc, &rc));
    PetscCall(KSPGetResidualHistory(ksp, &h1, &n1));
    PetscCall(KSPGetResidualHistory(kc, &h2, &n2));
    for (PetscInt i = 0; i < PetscMin(n1, n2); i++) diff = PetscMax(diff, PetscAbsReal(h1[i] - h2[i]) / h1[0]);
    PetscCall(VecAXPY(xc, -1.0, x));
    PetscCall(VecNorm(xc, NORM_2, &relc));
    PetscCall(VecNorm(x, NORM_2, &nx));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCDEFLATION comparison: iterations %" PetscInt_FMT " vs %" PetscInt_FMT ", residual histories differ by %.1e, solutions by %.1e\n", its, itc, (double)diff, (double)(relc / nx)));
    PetscCheck(PetscAbsInt(its - itc) <= 1 && diff <= 1e-10 && relc <= 1e-8 * nx, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "KSPDCG and KSPCG + PCDEFLATION differ");
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCDEFLATION check: passed\n"));
    PetscCall(VecDestroy(&xc));
    PetscCall(MatDestroy(&Z));
    PetscCall(KSPDestroy(&kc));
  }

  if (one_level_ratio > 0) {
    /* the same KSP with the one-level PCNEUMANN */
    PC       pc;
    PetscInt its1;

    PetscCheck(!strcmp(ptype, PCNEUMANN), PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-check_one_level needs -pc_type neumann");
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCNeumannSetDeflationSpaceType(pc, PC_NEUMANN_DEFLATION_SPACE_NONE));
    PetscCall(Solve(ksp, A, b, x0, x, &its1, &relres, &reason));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "one-level comparison: %" PetscInt_FMT " iterations with deflation, %" PetscInt_FMT " without\n", its, its1));
    PetscCheck(reason > 0 && (PetscReal)its <= one_level_ratio * its1, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "the two-level preconditioner needs %" PetscInt_FMT " iterations, more than %g times the %" PetscInt_FMT " of the one-level one", its, (double)one_level_ratio, its1);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "one-level check: passed\n"));
  }

  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&xs));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: 2d
    nsize: {{1 2 4}}
    args: -n 32 -max_its_expected 20
    filter: grep -v "^iterations"
    output_file: output/bubbly_2d.out

  test:
    suffix: 2d_pcdeflation
    nsize: {{1 2 4}}
    args: -n 32 -pc_type jacobi -ksp_dcg_space chunks -ksp_dcg_subdomains 64 -check_pcdeflation -max_its_expected 60
    filter: grep -v "^iterations\|comparison"
    output_file: output/bubbly_2d_pcdeflation.out

  test:
    suffix: 3d_png
    nsize: {{1 2}}
    args: -dim 3 -n 16 -geometry bubble8 -contrast 1e-6 -ksp_dcg_blocks 2,2,2 -max_its_expected 80 -png bubbly_3d
    filter: grep -v "^iterations"
    output_file: output/bubbly_3d_png.out

  test:
    suffix: 3d_warmup
    nsize: {{1 2}}
    args: -dim 3 -n 16 -geometry bubble8 -contrast 1e-6 -ksp_dcg_blocks 2,2,2 -warmup 5 -ksp_converged_reason -max_its_expected 80
    filter: grep -v "^iterations"
    output_file: output/bubbly_3d_warmup.out

  test:
    suffix: 3d_planes
    nsize: {{1 2 4}}
    args: -dim 3 -n 16 -ksp_dcg_space chunks -ksp_dcg_subdomains 16 -pc_neumann_terms 2 -max_its_expected 60
    filter: grep -v "^iterations"
    output_file: output/bubbly_3d_planes.out

  test:
    suffix: 3d_bubbles
    nsize: {{1 2 4}}
    args: -dim 3 -n 16 -geometry bubble8 -contrast 1e-6 -ksp_dcg_blocks 2,2,2 -ksp_dcg_coarse {{cholesky inverse}} -max_its_expected 80
    filter: grep -v "^iterations"
    output_file: output/bubbly_3d_bubbles.out

  test:
    suffix: 2d_cg_deflation
    nsize: {{1 2 4}}
    args: -n 32 -ksp_type cg -pc_neumann_deflation -check_one_level 0.5 -check_pcdeflation
    filter: grep -v "^iterations\|comparison"
    output_file: output/bubbly_2d_cg_deflation.out

  test:
    suffix: 3d_cg_deflation
    nsize: {{1 2 4}}
    args: -dim 3 -n 16 -geometry bubble8 -contrast 1e-6 -ksp_type cg -pc_neumann_terms 2 -pc_neumann_deflation_space blocks -pc_neumann_deflation_blocks 2,2,2 -pc_neumann_deflation_variant {{adef2 bnn}} -check_one_level 0.5
    filter: grep -v "^iterations\|comparison"
    output_file: output/bubbly_3d_cg_deflation.out

  test:
    suffix: 2d_cg_deflation_view
    args: -n 32 -ksp_type cg -pc_neumann_deflation_space chunks -pc_neumann_deflation_subdomains 64 -pc_neumann_deflation_coarse inverse -max_its_expected 60 -ksp_view
    filter: grep "deflat\|coarse solve\|type: \|check" | grep -v "type: \(seq\|mpi\)aij"
    output_file: output/bubbly_2d_cg_deflation_view.out

  # high contrast and a tight tolerance, Dirichlet on top (the attainable accuracy of the deflation is about 1e-8):
  # KSPDCG converges to rtol or stops with KSP_DIVERGED_BREAKDOWN and the best iterate, whose true residual must be
  # within 10 times that of KSPCG + PCDEFLATION with the same space (before: KSP_DIVERGED_INDEFINITE_MAT, true
  # relative residuals of 0.01 to 0.8)
  test:
    suffix: 3d_attainable_jacobi
    nsize: {{1 2}}
    args: -dim 3 -n 24 -geometry bubble8 -dirichlet_top -rhs sin -ksp_rtol 1e-8 -pc_type jacobi -user_blocks 4,4,4 -compare_pcdeflation 10 -contrast 1e-6 -zero_guess
    filter: grep "check"
    output_file: output/bubbly_3d_attainable.out

  test:
    suffix: 3d_attainable_jacobi_guess
    args: -dim 3 -n 24 -geometry bubble8 -dirichlet_top -rhs sin -ksp_rtol 1e-8 -pc_type jacobi -user_blocks 4,4,4 -compare_pcdeflation 10 -contrast {{1e-6 1e-3}}
    filter: grep "check"
    output_file: output/bubbly_3d_attainable.out

  test:
    suffix: 3d_attainable_neumann
    nsize: {{1 2}}
    args: -dim 3 -n 24 -geometry bubble8 -dirichlet_top -rhs sin -ksp_rtol 1e-8 -pc_type neumann -ksp_dcg_blocks 4,4,4 -compare_pcdeflation 10 -contrast {{1e-6 1e-3}} -zero_guess
    filter: grep "check"
    output_file: output/bubbly_3d_attainable.out

  test:
    suffix: 3d_dcg_view
    nsize: {{1 2}}
    args: -dim 3 -n 16 -geometry bubble8 -contrast 1e-6 -ksp_dcg_blocks 2,2,2 -max_its_expected 80 -ksp_view
    filter: grep "deflat\|coarse solve\|E: \|type: dcg\|check"
    output_file: output/bubbly_3d_dcg_view.out

  # the single-reduction iteration (-ksp_dcg_pipelined, Chronopoulos-Gear): the same iterates as the standard one
  # (the PCDEFLATION check compares the residual histories to 1e-10), the same outputs, and at the attainable accuracy
  # the same safeguards (re-projection, restart from the true residual, best iterate)
  test:
    suffix: 2d_pcdeflation_pipelined
    nsize: {{1 2 4}}
    args: -n 32 -pc_type jacobi -ksp_dcg_space chunks -ksp_dcg_subdomains 64 -check_pcdeflation -max_its_expected 60 -ksp_dcg_pipelined
    filter: grep -v "^iterations\|comparison"
    output_file: output/bubbly_2d_pcdeflation.out

  test:
    suffix: 3d_bubbles_pipelined
    nsize: {{1 2 4}}
    args: -dim 3 -n 16 -geometry bubble8 -contrast 1e-6 -ksp_dcg_blocks 2,2,2 -ksp_dcg_coarse {{cholesky inverse}} -max_its_expected 80 -ksp_dcg_pipelined
    filter: grep -v "^iterations"
    output_file: output/bubbly_3d_bubbles.out

  test:
    suffix: 3d_planes_pipelined
    nsize: {{1 2 4}}
    args: -dim 3 -n 16 -ksp_dcg_space {{chunks none}} -ksp_dcg_subdomains 16 -pc_neumann_terms 2 -max_its_expected 80 -ksp_dcg_pipelined
    filter: grep -v "^iterations"
    output_file: output/bubbly_3d_planes.out

  test:
    suffix: 3d_attainable_neumann_pipelined
    nsize: {{1 2 4}}
    args: -dim 3 -n 24 -geometry bubble8 -dirichlet_top -rhs sin -ksp_rtol 1e-8 -pc_type neumann -ksp_dcg_blocks 4,4,4 -compare_pcdeflation 10 -contrast 1e-6 -zero_guess -ksp_dcg_pipelined
    filter: grep "check"
    output_file: output/bubbly_3d_attainable.out

  test:
    suffix: 3d_attainable_jacobi_pipelined
    args: -dim 3 -n 24 -geometry bubble8 -dirichlet_top -rhs sin -ksp_rtol 1e-8 -pc_type jacobi -user_blocks 4,4,4 -compare_pcdeflation 10 -contrast 1e-6 -ksp_dcg_pipelined
    filter: grep "check"
    output_file: output/bubbly_3d_attainable.out

  test:
    suffix: 3d_dcg_view_pipelined
    nsize: {{1 2}}
    args: -dim 3 -n 16 -geometry bubble8 -contrast 1e-6 -ksp_dcg_blocks 2,2,2 -max_its_expected 80 -ksp_view -ksp_dcg_pipelined
    filter: grep "deflat\|coarse solve\|E: \|type: dcg\|check"
    output_file: output/bubbly_3d_dcg_view_pipelined.out

  # the single-reduction recurrence's (p, P A p) turns nonpositive after a re-projection of the deflated residual
  # (iteration 98 here): DCG restarts from the true residual and converges; it must not call the SPD operator indefinite
  test:
    suffix: 3d_pipelined_recurrence_restart
    args: -dim 3 -n 96 -geometry bubble8 -contrast 1e-6 -ksp_dcg_blocks 8,8,8 -pc_neumann_terms 2 -ksp_dcg_pipelined -ksp_rtol 1e-8
    filter: grep "check"
    output_file: output/bubbly_3d_pipelined_recurrence_restart.out

TEST*/
