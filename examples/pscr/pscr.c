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
  -shift_check                : after the solve, apply the PC with a second shift (no new setup) and check it (fd)\n\
  -print_residual             : print the relative residual, the normwise backward error and eps kappa(A)\n\
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
  PetscBool kept, variable, q1;
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

/* Q1: bilinear (2D) / trilinear (3D) finite elements of -div(a grad u) + c u on the uniform mesh of [0, 1]^dim whose
   nodes are the grid points (Dirichlet eliminated: the boundary nodes are not grid points; kept: the outer layer of
   grid points are the boundary nodes, with diagonal-only rows; Neumann and Robin: every node is a grid point, Robin
   adds alpha u v with alpha = 2 on the boundary). Element matrices: a(element centre) times the sum over the axes of
   the 1D element stiffness (1/h)[1 -1; -1 1] times the 1D element masses (h/6)[2 1; 1 2] of the other axes. With a
   constant coefficient the operator is A_z (x) M_y (x) M_x + M_z (x) A_y (x) M_x + M_z (x) M_y (x) A_x + c M_z (x)
   M_y (x) M_x (Q1Factor1D: the 1D factors). */
static PetscInt Q1Offset(const Problem *P) { return P->bc == BC_DIRICHLET && !P->kept ? 1 : 0; } /* node of grid point 0 */
static PetscInt Q1Nodes(const Problem *P, PetscInt d) { return P->n[d] + 2 * Q1Offset(P); }      /* nodes of axis d */

/* the 1D element stiffness (what = 0) or mass (what = 1) entry of local nodes l, m of an element of size h */
static PetscReal Q1Local(int what, PetscReal h, PetscInt l, PetscInt m) { return what ? h * (l == m ? 2.0 : 1.0) / 6 : (l == m ? 1.0 : -1.0) / h; }

static PetscErrorCode AssembleQ1(DM da, const Problem *P, Mat A)
{
  PetscInt    i, j, k, xs, ys, zs, xm, ym, zm, off = Q1Offset(P);
  MatStencil  row, col[27];
  PetscScalar v[27];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (k = zs; k < zs + zm; k++)
    for (j = ys; j < ys + ym; j++)
      for (i = xs; i < xs + xm; i++) {
        const PetscInt g[3] = {i, j, k};
        PetscInt       c    = 0;
        PetscBool      edge = PETSC_FALSE;
        row.i = i, row.j = j, row.k = k, row.c = 0;
        for (int d = 0; d < P->dim; d++)
          if (P->kept && (g[d] == 0 || g[d] == P->n[d] - 1)) edge = PETSC_TRUE;
        if (edge) { /* a kept Dirichlet row */
          v[0] = 1.0;
          PetscCall(MatSetValuesStencil(A, 1, &row, 1, &row, v, INSERT_VALUES));
          continue;
        }
        for (int t = 0; t < (P->dim == 2 ? 9 : 27); t++) {
          const PetscInt o[3] = {t % 3 - 1, (t / 3) % 3 - 1, P->dim == 2 ? 0 : t / 9 - 1};
          PetscInt       q[3], np[3], nq[3];
          PetscBool      skip = PETSC_FALSE;
          PetscScalar    val  = 0;
          for (int d = 0; d < 3; d++) {
            q[d]  = g[d] + o[d];
            np[d] = g[d] + (d < P->dim ? off : 0);
            nq[d] = q[d] + (d < P->dim ? off : 0);
            if (q[d] < 0 || q[d] >= (d < P->dim ? P->n[d] : 1)) skip = PETSC_TRUE; /* outside the grid: an eliminated node */
          }
          if (skip) continue;
          /* the elements e (lower corner node) that hold both nodes */
          for (int s = 0; s < (1 << P->dim); s++) {
            PetscInt  e[3] = {0, 0, 0}, lp[3] = {0, 0, 0}, lq[3] = {0, 0, 0};
            PetscReal xc[3] = {0, 0, 0}, a, sk = 0, ms = 1;
            PetscBool in = PETSC_TRUE;
            for (int d = 0; d < P->dim; d++) {
              e[d]  = np[d] - ((s >> d) & 1);
              lp[d] = np[d] - e[d], lq[d] = nq[d] - e[d];
              if (e[d] < 0 || e[d] > Q1Nodes(P, d) - 2 || lq[d] < 0 || lq[d] > 1) in = PETSC_FALSE;
              xc[d] = (e[d] + 0.5) * P->h[d];
            }
            if (!in) continue;
            a = Coef(P, xc[0], xc[1]);
            for (int d = 0; d < P->dim; d++) {
              PetscReal t1 = Q1Local(0, P->h[d], lp[d], lq[d]);
              for (int f = 0; f < P->dim; f++)
                if (f != d) t1 *= Q1Local(1, P->h[f], lp[f], lq[f]);
              sk += t1;
              ms *= Q1Local(1, P->h[d], lp[d], lq[d]);
              /* Robin: the face of the element on the boundary x_d = 0 or 1 when both nodes lie on it */
              if (P->bc == BC_ROBIN && lp[d] == lq[d] && ((np[d] == 0 && e[d] == 0) || (np[d] == Q1Nodes(P, d) - 1 && e[d] == Q1Nodes(P, d) - 2))) {
                PetscReal t2 = 2.0;
                for (int f = 0; f < P->dim; f++)
                  if (f != d) t2 *= Q1Local(1, P->h[f], lp[f], lq[f]);
                val += t2;
              }
            }
            val += a * sk + P->c * ms;
          }
          col[c] = row, col[c].i = q[0], col[c].j = q[1], col[c].k = q[2];
          v[c++] = val;
        }
        PetscCall(MatSetValuesStencil(A, 1, &row, c, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the 1D Q1 factors of axis d on the points of the separable box: stiffness (what = 0, with the Robin term) or mass
   (what = 1) entry (i, i + o) */
static PetscReal Q1Factor1D(const Problem *P, int what, PetscInt d, PetscInt i, PetscInt o)
{
  const PetscInt off = P->kept ? 1 : Q1Offset(P), nn = Q1Nodes(P, d), ni = i + off; /* the node of box point i */
  PetscReal      v   = 0;
  if (o) return Q1Local(what, P->h[d], 0, 1);
  for (int s = 0; s < 2; s++) {
    const PetscInt e = ni - s;
    if (e >= 0 && e <= nn - 2) v += Q1Local(what, P->h[d], s, s);
  }
  if (!what && P->bc == BC_ROBIN && (ni == 0 || ni == nn - 1)) v += 2.0;
  return v;
}

/* the factors of the constant-coefficient operator, slowest direction (z in 3D, y in 2D) first; fd: M = I (mass
   NULL), q1: the 1D stiffness and mass; the shift goes to the slowest factor (c M_1) */
static PetscErrorCode Factors(const Problem *P, Mat F[3], Mat Mf[3])
{
  PetscFunctionBeginUser;
  for (PetscInt t = 0; t < 3; t++) F[t] = Mf[t] = NULL;
  for (PetscInt t = 0; t < P->dim && P->q1; t++) {
    const PetscInt d = P->dim - 1 - t, nb = P->n[d] - (P->kept ? 2 : 0);
    for (int what = 0; what < 2; what++) {
      Mat X;
      PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, nb, nb, 3, NULL, &X));
      for (PetscInt i = 0; i < nb; i++) {
        PetscScalar dv = Q1Factor1D(P, what, d, i, 0) + (!what && t == 0 ? P->c * Q1Factor1D(P, 1, d, i, 0) : 0.0);
        PetscScalar ov = Q1Factor1D(P, what, d, i, 1) + (!what && t == 0 ? P->c * Q1Factor1D(P, 1, d, i, 1) : 0.0);
        PetscCall(MatSetValue(X, i, i, dv, INSERT_VALUES));
        if (i > 0) PetscCall(MatSetValue(X, i, i - 1, ov, INSERT_VALUES));
        if (i + 1 < nb) PetscCall(MatSetValue(X, i, i + 1, ov, INSERT_VALUES));
      }
      PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
      if (what) Mf[t] = X;
      else F[t] = X;
    }
  }
  for (PetscInt t = 0; t < P->dim && !P->q1; t++) {
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

/* the solve and its check: rres = ||b - A x|| / ||b||, eta = ||b - A x|| / (||A||_inf ||x|| + ||b||) (the normwise
   backward error; ||A||_inf bounds ||A||_2 of a symmetric A) and scale = ||A||_inf ||x|| / ||b||. A direct solve has a
   backward error of a small multiple of eps, so its relative residual is about eps ||A|| ||x|| / ||b||, which for a
   right-hand side with a smooth part (VecSetRandom: a nonzero mean) is about eps kappa(A) ~ eps n^2 */
static PetscErrorCode Run(KSP ksp, Mat A, Vec b, Vec x, const Problem *P, PetscBool shift_check, PetscReal *rres, PetscReal *eta, PetscReal *scale, PetscInt *its)
{
  Vec       r;
  PetscReal nb, nr, nx, na;
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
  PetscCall(VecNorm(x, NORM_2, &nx));
  PetscCall(MatNorm(A, NORM_INFINITY, &na));
  *rres  = nr / nb;
  *eta   = nr / (na * nx + nb);
  *scale = na * nx / nb;
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
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "radix changed to 3: relative residual %s 1e-11\n", nr / nb <= 1e-11 ? "<=" : ">"));
  }
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM             da;
  Mat            A, F[3], Mf[3];
  Vec            x, b;
  KSP            ksp;
  PC             pc;
  Problem        P;
  PetscInt       n = 33, its = 0;
  PetscBool      use_factors = PETSC_FALSE, no_dm = PETSC_FALSE, shift_check = PETSC_FALSE, catch_errors = PETSC_FALSE, print_residual = PETSC_FALSE, preonly, flg;
  PetscReal      rres = 0, eta = 0, scale = 0;
  PetscErrorCode ierr;
  char           type[256];
  const char    *forms[] = {"eliminated", "kept"}, *coefs[] = {"const", "variable"}, *discs[] = {"fd", "q1"};
  PetscInt       form = 0, coef = 0, disc = 0;

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
  PetscCall(PetscOptionsEList("-disc", "discretisation", NULL, discs, 2, discs[disc], &disc, NULL));
  PetscCall(PetscOptionsReal("-c", "shift of the operator", NULL, P.c, &P.c, NULL));
  PetscCall(PetscOptionsBool("-use_factors", "give PCPSCR the factors", NULL, use_factors, &use_factors, NULL));
  PetscCall(PetscOptionsBool("-no_dm", "do not give the KSP the DMDA", NULL, no_dm, &no_dm, NULL));
  PetscCall(PetscOptionsBool("-shift_check", "apply the PC with a second shift", NULL, shift_check, &shift_check, NULL));
  PetscCall(PetscOptionsBool("-catch_errors", "print the error of the solve", NULL, catch_errors, &catch_errors, NULL));
  PetscCall(PetscOptionsBool("-print_residual", "print the relative residual and the backward error", NULL, print_residual, &print_residual, NULL));
  PetscOptionsEnd();
  PetscCheck(P.dim == 2 || P.dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3, not %" PetscInt_FMT, P.dim);
  P.kept     = form == 1 ? PETSC_TRUE : PETSC_FALSE;
  P.variable = coef == 1 ? PETSC_TRUE : PETSC_FALSE;
  P.q1       = disc == 1 ? PETSC_TRUE : PETSC_FALSE;
  PetscCheck(!(P.q1 && shift_check), PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-shift_check checks the shift c I of the finite difference operator; with -disc q1 the shift is c M (the mass matrix)");
  if (P.dim == 2) P.n[2] = 1;
  for (int d = 0; d < 3; d++) P.h[d] = P.q1 ? 1.0 / (Q1Nodes(&P, d) - 1) : 1.0 / (P.n[d] + 1 - (P.kept ? 2 : 0));

  {
    const DMDAStencilType stype = P.q1 ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR;
    if (P.dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, stype, P.n[0], P.n[1], PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
    else PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, stype, P.n[0], P.n[1], P.n[2], PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  }
  PetscCall(DMSetFromOptions(da));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-vec_type", type, sizeof(type), &flg));
  if (flg) PetscCall(DMSetVecType(da, type));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", type, sizeof(type), &flg));
  if (flg) PetscCall(DMSetMatType(da, type));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  if (P.q1) PetscCall(AssembleQ1(da, &P, A));
  else PetscCall(Assemble(da, &P, A));
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
    PetscCall(Factors(&P, F, Mf));
    PetscCall(PCPSCRSetFactors(pc, F[0], Mf[0], F[1], Mf[1], F[2], Mf[2]));
    for (int t = 0; t < 3; t++) PetscCall(MatDestroy(&F[t]));
    for (int t = 0; t < 3; t++) PetscCall(MatDestroy(&Mf[t]));
  }
  if (catch_errors) PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = Run(ksp, A, b, x, &P, shift_check, &rres, &eta, &scale, &its);
  if (catch_errors) {
    PetscKPErrorString msg = NULL;
    PetscCall(PetscPopErrorHandler());
    if (ierr) {
      PetscCall(PetscErrorMessage(ierr, NULL, &msg));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error: %s\n", msg ? msg : "(no message)"));
    }
  } else PetscCall(ierr);
  if (!ierr) {
    /* one application of a direct solver: relative residual <= 1e-11, or, for large n, where that exceeds eps kappa(A),
       a normwise backward error <= 1e-14 (about 50 eps); an iterative solve: its tolerance 1e-10 */
    PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPPREONLY, &preonly));
    if (P.q1) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PSCR %" PetscInt_FMT "D Q1, Dirichlet values %s, %s coefficient: %" PetscInt_FMT " iterations\n", P.dim, forms[form], coefs[coef], its));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PSCR %" PetscInt_FMT "D, Dirichlet values %s, %s coefficient: %" PetscInt_FMT " iterations\n", P.dim, forms[form], coefs[coef], its));
    if (print_residual) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "relative residual %.3e, normwise backward error %.3e, ||A||_inf ||x|| / ||b|| = %.3e, eps ||A||_inf ||x|| / ||b|| = %.3e\n", (double)rres, (double)eta, (double)scale, (double)(PETSC_MACHINE_EPSILON * scale)));
    if (!preonly) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "relative residual %s 1e-10\n", rres <= 1e-10 ? "<=" : ">"));
    else if (rres <= 1e-11) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "relative residual <= 1e-11\n"));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "relative residual > 1e-11, normwise backward error ||b - A x|| / (||A|| ||x|| + ||b||) %s 1e-14\n", eta <= 1e-14 ? "<=" : ">"));
    /* the example checks itself: a wrong solution is an error (exit status), not only a line of output */
    PetscCheck(preonly ? rres <= 1e-11 || eta <= 1e-14 : rres <= 1e-10, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "the solution is wrong: relative residual %.3e, normwise backward error %.3e%s", (double)rres, (double)eta, no_dm ? " (with -no_dm the factors follow the matrix's global numbering, which for a DMDA matrix on several ranks is not the grid's natural one)" : "");
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

  test:
    suffix: q1_2d
    nsize: {{1 2 4}}
    args: -dim 2 -disc q1 -nx 37 -ny 23 -bc {{dirichlet neumann robin}} -c 10
    output_file: output/pscr_q1_2d.out

  test:
    suffix: q1_2d_kept
    nsize: {{1 2 4}}
    args: -dim 2 -disc q1 -nx 33 -ny 21 -form kept -pc_pscr_radix 3
    output_file: output/pscr_q1_2d_kept.out

  test:
    suffix: q1_3d
    nsize: {{1 2 4}}
    args: -dim 3 -disc q1 -nx 13 -ny 11 -nz 7 -bc {{dirichlet robin}}
    output_file: output/pscr_q1_3d.out

  test:
    suffix: q1_3d_kept
    nsize: {{1 4}}
    args: -dim 3 -disc q1 -n 15 -form kept
    output_file: output/pscr_q1_3d_kept.out

  test:
    suffix: q1_factors
    args: -dim {{2 3}} -disc q1 -n 11 -bc robin -use_factors
    filter: sed -E "s/PSCR [23]D/PSCR nD/"
    output_file: output/pscr_q1_factors.out

  test:
    suffix: q1_variable_pc
    nsize: {{1 2}}
    args: -dim 2 -disc q1 -n 63 -coef variable -use_factors -ksp_type cg -ksp_norm_type unpreconditioned
    output_file: output/pscr_q1_variable_pc.out

  test:
    suffix: q1_view
    args: -dim 2 -disc q1 -nx 9 -ny 8 -form kept -ksp_view
    filter: grep -v "device workspace\|Mat Object\|type: seq\|type: mpi\|rows=\|total\|I-node\|convergence\|tolerances:\|linear system matrix"
    output_file: output/pscr_q1_view.out

  test:
    suffix: bad_q1_variable
    nsize: {{1 2}}
    args: -dim 2 -disc q1 -n 15 -coef variable -catch_errors
    output_file: output/pscr_bad_q1_variable.out

  test:
    suffix: bad_q1_variable_3d
    args: -dim 3 -disc q1 -n 9 -coef variable -catch_errors
    output_file: output/pscr_bad_q1_variable_3d.out

  test:
    suffix: indefinite_refined
    nsize: {{1 2}}
    args: -dim 3 -n 13 -c -1500
    output_file: output/pscr_3d.out

  test:
    suffix: indefinite_refined_2d
    nsize: {{1 2}}
    args: -dim 2 -n 31 -c -49.2
    output_file: output/pscr_2d_indefinite.out

  test:
    suffix: bad_singular_interior
    nsize: {{1 2}}
    args: -dim 2 -n 31 -c -49.21342550952477 -catch_errors
    output_file: output/pscr_bad_singular_interior.out

  test:
    suffix: bad_q1_singular
    args: -dim 2 -disc q1 -n 15 -bc neumann -catch_errors
    output_file: output/pscr_bad_singular.out

  test:
    suffix: ill_conditioned
    args: -dim 2 -disc {{fd q1}} -n 31 -bc neumann -c 1e-5
    filter: sed -e "s/ Q1,/,/"
    output_file: output/pscr_ill_conditioned.out

TEST*/
