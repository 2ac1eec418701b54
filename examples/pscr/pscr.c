static char help[] = "-div(a grad u) + c u = f on a DMDA (2D or 3D) with the PSCR fast direct solver (-pc_type pscr).\n\
The example checks the relative residual of the solve and reports the KSP iterations.\n\n\
Options:\n\
  -dim <2|3>                  : dimension (default 2)\n\
  -n <n>, -nx/-ny/-nz <n>     : grid points per direction (default 33)\n\
  -bc <dirichlet|neumann|robin> : boundary conditions on every side (default dirichlet)\n\
  -form <eliminated|kept>     : Dirichlet values eliminated, or kept as diagonal-only rows on a boundary layer of points\n\
                                (as PETSc's KSP ex45 writes them)\n\
  -c <c>                      : the shift c of the operator (default 0)\n\
  -coef <const|variable>      : a = 1, or a(x,y,z) = 1 + 0.8 sin(3 pi x) sin(2 pi y) (not separable)\n\
  -use_factors                : give PCPSCR the 1D factors of the constant-coefficient operator (PCPSCRSetFactors())\n\
  -no_dm                      : do not give the KSP the DMDA\n\
  -shift_check                : after the solve, apply the PC with a second shift (no new setup) and check it\n\
  -catch_errors               : print the error message of the solve instead of failing\n\n";

#include <petscdmda.h>
#include <petscksp.h>
#include <petsckp.h>

typedef enum {
  BC_DIRICHLET,
  BC_NEUMANN,
  BC_ROBIN
} BcType;
static const char *const BcTypes[] = {"dirichlet", "neumann", "robin", "BcType", "BC_", NULL};

typedef struct {
  PetscInt  dim, n[3];
  BcType    bc;
  PetscBool kept, variable;
  PetscReal c, h[3];
} Problem;

static PetscReal Coef(const Problem *P, PetscReal x, PetscReal y)
{
  return P->variable ? 1.0 + 0.8 * PetscSinReal(3 * PETSC_PI * x) * PetscSinReal(2 * PETSC_PI * y) : 1.0;
}

/* the 1D factor of direction d: (1/h^2) tridiag(-1, 2, -1) on the points of the box, with Neumann ends (1 on the
   diagonal) or Robin ends (1 + alpha h, alpha = 2) */
static PetscReal Diag1D(const Problem *P, PetscInt d, PetscInt i, PetscInt nb)
{
  PetscReal s = 1.0 / (P->h[d] * P->h[d]), v = 2 * s;
  if (P->bc != BC_DIRICHLET && (i == 0 || i == nb - 1)) v = nb == 1 ? 0 : s;
  if (P->bc == BC_ROBIN && (i == 0 || i == nb - 1)) v += (nb == 1 ? 2 : 1) * 2.0 * s * P->h[d];
  return v;
}

/* the operator on the grid: with -form kept the outer layer holds diagonal-only rows, the inner box the stencil */
static PetscErrorCode Assemble(DM da, const Problem *P, Mat A)
{
  PetscInt    i, j, k, xs, ys, zs, xm, ym, zm, off = P->kept ? 1 : 0, nb[3];
  MatStencil  row, col[7];
  PetscScalar v[7];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (int d = 0; d < 3; d++) nb[d] = d < P->dim ? P->n[d] - 2 * off : 1;
  for (k = zs; k < zs + zm; k++)
    for (j = ys; j < ys + ym; j++)
      for (i = xs; i < xs + xm; i++) {
        PetscInt  c = 0, b[3] = {i - off, j - off, k - off};
        PetscBool inbox = PETSC_TRUE;
        row.i = i, row.j = j, row.k = k, row.c = 0;
        for (int d = 0; d < P->dim; d++)
          if (b[d] < 0 || b[d] >= nb[d]) inbox = PETSC_FALSE;
        if (!inbox) {
          v[0] = 2.0 * P->dim / (P->h[0] * P->h[0]);
          PetscCall(MatSetValuesStencil(A, 1, &row, 1, &row, v, INSERT_VALUES));
          continue;
        }
        PetscScalar diag = P->c;
        for (int d = 0; d < P->dim; d++) {
          PetscReal s = 1.0 / (P->h[d] * P->h[d]);
          for (int sg = -1; sg <= 1; sg += 2) {
            PetscInt  nbc[3] = {i, j, k};
            PetscReal xm_[3], a;
            nbc[d] += sg;
            for (int e = 0; e < 3; e++) {
              const PetscInt  ce[3] = {i, j, k};
              const PetscReal pe    = e == d ? 0.5 * (ce[e] + nbc[e]) : (PetscReal)ce[e];
              xm_[e]                = (pe + 1 - off) * P->h[e];
            }
            a = Coef(P, xm_[0], xm_[1]);
            if (b[d] + sg < 0 || b[d] + sg >= nb[d]) {
              /* a box edge: Dirichlet (eliminated, or kept on the outer layer), Neumann or Robin */
              if (P->bc == BC_DIRICHLET) {
                diag += a * s;
                if (P->kept) v[c] = -a * s, col[c] = row, col[c].i = nbc[0], col[c].j = nbc[1], col[c].k = nbc[2], c++;
              } else if (P->bc == BC_ROBIN) diag += a * 2.0 * s * P->h[d];
              continue;
            }
            diag += a * s;
            v[c] = -a * s, col[c] = row, col[c].i = nbc[0], col[c].j = nbc[1], col[c].k = nbc[2], c++;
          }
        }
        v[c] = diag, col[c++] = row;
        PetscCall(MatSetValuesStencil(A, 1, &row, c, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the factors of the constant-coefficient operator, slowest direction (z in 3D, y in 2D) first */
static PetscErrorCode Factors(const Problem *P, Mat F[3])
{
  PetscFunctionBeginUser;
  for (PetscInt t = 0; t < 3; t++) F[t] = NULL;
  for (PetscInt t = 0; t < P->dim; t++) {
    PetscInt  d = P->dim - 1 - t, nb = P->n[d] - (P->kept ? 2 : 0);
    PetscReal s = 1.0 / (P->h[d] * P->h[d]);
    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, nb, nb, 3, NULL, &F[t]));
    for (PetscInt i = 0; i < nb; i++) {
      PetscScalar v = Diag1D(P, d, i, nb) + (t == 0 ? P->c : 0.0), o = -s;
      PetscCall(MatSetValue(F[t], i, i, v, INSERT_VALUES));
      if (i > 0) PetscCall(MatSetValue(F[t], i, i - 1, o, INSERT_VALUES));
      if (i + 1 < nb) PetscCall(MatSetValue(F[t], i, i + 1, o, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(F[t], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(F[t], MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Run(KSP ksp, Mat A, Vec b, Vec x, const Problem *P, PetscBool shift_check, PetscReal *rres, PetscInt *its)
{
  Vec       r;
  PetscReal nb, nr;
  PC        pc;

  PetscFunctionBeginUser;
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &nr));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *rres = nr / nb;
  if (shift_check) {
    /* a new shift c2 applies to the next application without a new setup: A + (c2 - c1) I */
    PetscScalar c1, c2 = 7.5;
    Mat         A2;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCPSCRGetShift(pc, &c1));
    PetscCall(PCPSCRSetShift(pc, c2));
    PetscCall(PCApply(pc, b, x));
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A2));
    PetscCall(MatShift(A2, c2 - c1));
    PetscCall(MatMult(A2, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &nr));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "shift changed from %g to %g without a new setup: relative residual %s 1e-11\n", (double)PetscRealPart(c1), (double)PetscRealPart(c2), nr / nb <= 1e-11 ? "<=" : ">"));
    PetscCall(MatDestroy(&A2));
    /* a new radix needs a new setup, which the next solve does */
    PetscCall(PCPSCRSetShift(pc, c1));
    PetscCall(PCPSCRSetRadix(pc, 3));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &nr));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "radix changed to 3: relative residual %s 1e-10\n", nr / nb <= 1e-10 ? "<=" : ">"));
  }
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM             da;
  Mat            A, F[3];
  Vec            x, b;
  KSP            ksp;
  PC             pc;
  Problem        P;
  PetscInt       n = 33, its = 0;
  PetscBool      use_factors = PETSC_FALSE, no_dm = PETSC_FALSE, shift_check = PETSC_FALSE, catch_errors = PETSC_FALSE, flg;
  PetscReal      rres = 0;
  PetscErrorCode ierr;
  char           type[256];
  const char    *forms[] = {"eliminated", "kept"}, *coefs[] = {"const", "variable"};
  PetscInt       form = 0, coef = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscKPRegisterAll());
  P.dim = 2, P.bc = BC_DIRICHLET, P.c = 0;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "PSCR example options", NULL);
  PetscCall(PetscOptionsInt("-dim", "dimension (2 or 3)", NULL, P.dim, &P.dim, NULL));
  PetscCall(PetscOptionsInt("-n", "grid points per direction", NULL, n, &n, NULL));
  P.n[0] = P.n[1] = P.n[2] = n;
  PetscCall(PetscOptionsInt("-nx", "grid points in x", NULL, P.n[0], &P.n[0], NULL));
  PetscCall(PetscOptionsInt("-ny", "grid points in y", NULL, P.n[1], &P.n[1], NULL));
  PetscCall(PetscOptionsInt("-nz", "grid points in z", NULL, P.n[2], &P.n[2], NULL));
  PetscCall(PetscOptionsEnum("-bc", "boundary conditions", NULL, BcTypes, (PetscEnum)P.bc, (PetscEnum *)&P.bc, NULL));
  PetscCall(PetscOptionsEList("-form", "Dirichlet values eliminated or kept as diagonal rows", NULL, forms, 2, forms[form], &form, NULL));
  PetscCall(PetscOptionsEList("-coef", "coefficient", NULL, coefs, 2, coefs[coef], &coef, NULL));
  PetscCall(PetscOptionsReal("-c", "shift of the operator", NULL, P.c, &P.c, NULL));
  PetscCall(PetscOptionsBool("-use_factors", "give PCPSCR the factors", NULL, use_factors, &use_factors, NULL));
  PetscCall(PetscOptionsBool("-no_dm", "do not give the KSP the DMDA", NULL, no_dm, &no_dm, NULL));
  PetscCall(PetscOptionsBool("-shift_check", "apply the PC with a second shift", NULL, shift_check, &shift_check, NULL));
  PetscCall(PetscOptionsBool("-catch_errors", "print the error of the solve", NULL, catch_errors, &catch_errors, NULL));
  PetscOptionsEnd();
  PetscCheck(P.dim == 2 || P.dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3, not %" PetscInt_FMT, P.dim);
  P.kept     = form == 1 ? PETSC_TRUE : PETSC_FALSE;
  P.variable = coef == 1 ? PETSC_TRUE : PETSC_FALSE;
  if (P.dim == 2) P.n[2] = 1;
  for (int d = 0; d < 3; d++) P.h[d] = 1.0 / (P.n[d] + 1 - (P.kept ? 2 : 0));

  if (P.dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, P.n[0], P.n[1], PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  else PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, P.n[0], P.n[1], P.n[2], PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-vec_type", type, sizeof(type), &flg));
  if (flg) PetscCall(DMSetVecType(da, type));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", type, sizeof(type), &flg));
  if (flg) PetscCall(DMSetMatType(da, type));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(Assemble(da, &P, A));
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecSetRandom(b, NULL));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  if (!no_dm) {
    PetscCall(KSPSetDM(ksp, da));
    PetscCall(PetscKPKSPSetDMActive(ksp, PETSC_FALSE));
  }
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCPSCR));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 500));
  if (use_factors) {
    PetscCall(Factors(&P, F));
    PetscCall(PCPSCRSetFactors(pc, F[0], NULL, F[1], NULL, F[2], NULL));
    for (int t = 0; t < 3; t++) PetscCall(MatDestroy(&F[t]));
  }
  if (catch_errors) PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = Run(ksp, A, b, x, &P, shift_check, &rres, &its);
  if (catch_errors) {
    PetscKPErrorString msg = NULL;
    PetscCall(PetscPopErrorHandler());
    if (ierr) {
      PetscCall(PetscErrorMessage(ierr, NULL, &msg));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error: %s\n", msg ? msg : "(no message)"));
    }
  } else PetscCall(ierr);
  if (!ierr) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PSCR %" PetscInt_FMT "D, Dirichlet values %s, %s coefficient: %" PetscInt_FMT " iterations\n", P.dim, forms[form], coefs[coef], its));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "relative residual %s 1e-10\n", rres <= 1e-10 ? "<=" : ">"));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: 2d
    nsize: {{1 2 4}}
    args: -dim 2 -nx 33 -ny 20 -bc {{dirichlet neumann robin}} -c 1 -pc_pscr_radix {{2 3 4 5}}
    output_file: output/pscr_2d.out

  test:
    suffix: 3d
    nsize: {{1 2 4}}
    args: -dim 3 -nx 13 -ny 11 -nz 9 -bc {{dirichlet robin}} -pc_pscr_radix {{2 4}}
    output_file: output/pscr_3d.out

  test:
    suffix: kept
    nsize: {{1 2 4}}
    args: -dim 3 -n 17 -form kept -ksp_type cg
    output_file: output/pscr_kept.out

  test:
    suffix: neumann_shift
    nsize: {{1 2}}
    args: -dim 2 -n 31 -bc neumann -c 0.5 -shift_check
    output_file: output/pscr_neumann_shift.out

  test:
    suffix: factors
    nsize: {{1 2 4}}
    args: -dim 3 -n 15 -bc robin -use_factors -shift_check
    output_file: output/pscr_factors.out

  test:
    suffix: factors_no_dm
    nsize: {{1 2}}
    args: -dim 2 -n 15 -bc dirichlet -use_factors -no_dm
    output_file: output/pscr_factors_no_dm.out

  test:
    suffix: variable_pc
    nsize: {{1 2}}
    args: -dim 2 -n 63 -coef variable -use_factors -ksp_type cg -ksp_norm_type unpreconditioned
    output_file: output/pscr_variable_pc.out

  test:
    suffix: view
    args: -dim 3 -nx 9 -ny 8 -nz 7 -form kept -ksp_view
    filter: grep -v "device workspace\|Mat Object\|type: seq\|type: mpi\|rows=\|total\|I-node\|convergence\|tolerances:\|linear system matrix"
    output_file: output/pscr_view.out

  test:
    suffix: bad_variable
    nsize: {{1 2}}
    args: -dim 2 -n 15 -coef variable -catch_errors
    output_file: output/pscr_bad_variable.out

  test:
    suffix: bad_no_dm
    args: -dim 2 -n 15 -no_dm -catch_errors
    output_file: output/pscr_bad_no_dm.out

  test:
    suffix: bad_singular
    nsize: {{1 2}}
    args: -dim 2 -n 15 -bc neumann -catch_errors
    output_file: output/pscr_bad_singular.out

  test:
    suffix: bad_shift
    args: -dim 2 -n 15 -pc_pscr_shift {{nan inf}} -catch_errors
    filter: sed -E -e "s/^error: .*(must be a finite number|allowed bound|is not a finite number|no numeric value).*$/error: non-finite shift refused/"
    output_file: output/pscr_bad_shift.out

  test:
    suffix: bad_radix
    args: -dim 2 -n 15 -pc_pscr_radix 1 -catch_errors
    output_file: output/pscr_bad_radix.out

TEST*/
