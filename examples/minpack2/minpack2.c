static char help[] = "Bound-constrained MINPACK-2 problems (Averick, Carter, More, Xue 1992) on a DMDA, solved with TAO lbfgsb:\n"
                     "  -problem ept|ssc|pjb : elastic-plastic torsion (c = 5, |v| <= dist), steady-state combustion\n"
                     "                         (lambda = 5, box [-box, box]), pressure in a journal bearing (eps = 0.1, b = 10, v >= 0)\n"
                     "  -nx <32> -ny <32>     : interior grid points\n"
                     "  -box <1>              : bound of ssc\n"
                     "  -check <1>            : also solve with TAO BLMVM and compare the optimum\n\n";

/*
   All three problems use MINPACK-2's piecewise-linear finite elements on the uniform triangulation of a rectangle
   with zero boundary values: lower triangles (v_ij, v_i+1,j, v_i,j+1), upper triangles (v_ij, v_i-1,j, v_i,j-1),

     f(v) = sum_T q_T (dx_T^2 + dy_T^2) / 2 + area sum_T sum_{vertices a of T} phi(v_a) + sum_k psi_k v_k

   with dx_T, dy_T the difference quotients on T, area = hx hy / 2 and
     ept: q_T = area, phi(v) = -(c/3) v,                     bounds -dist <= v <= dist, start v = dist
     ssc: q_T = area, phi(v) = -(lambda/3) exp(v),           bounds -box <= v <= box,  start lambda/(lambda+1) sqrt(dist)
     pjb: q_T = hx hy (2 w(xi_a) + w(xi_b)) / 6, w = (1 + eps cos xi)^3, phi = 0, psi_k = -eps hx hy sin(xi_k),
          bounds v >= 0 (no upper bound), start max(sin xi, 0)
   Each rank evaluates the triangles anchored at its grid points (and the boundary anchors next to them) and adds the
   gradient contributions into a ghosted local vector.
*/
#include <petscdmda.h>
#include <petsctao.h>
#include <petsckp.h>

typedef enum {
  EPT,
  SSC,
  PJB
} Problem;
static const char *const Problems[] = {"ept", "ssc", "pjb", "Problem", "", NULL};

typedef struct {
  DM        da;
  Problem   problem;
  PetscInt  nx, ny;
  PetscReal hx, hy, c, lambda, eps, b, box;
  Vec       xloc, gloc;
} AppCtx;

static PetscReal Xi(AppCtx *user, PetscInt i) { return (i + 1) * user->hx; } /* x coordinate of column i (0-based) */

static PetscReal Dist(AppCtx *user, PetscInt i, PetscInt j)
{
  PetscReal dx = PetscMin(i + 1, user->nx - i) * user->hx, dy = PetscMin(j + 1, user->ny - j) * user->hy;
  return PetscMin(dx, dy);
}

static PetscErrorCode FormFunctionGradient(Tao tao, Vec X, PetscReal *f, Vec G, void *ptr)
{
  AppCtx        *user = (AppCtx *)ptr;
  PetscInt       xs, ys, xm, ym, nx = user->nx, ny = user->ny;
  PetscReal      hx = user->hx, hy = user->hy, area = 0.5 * hx * hy, floc = 0;
  PetscScalar  **v, **g;

  PetscFunctionBeginUser;
  PetscCall(DMGlobalToLocalBegin(user->da, X, INSERT_VALUES, user->xloc));
  PetscCall(DMGlobalToLocalEnd(user->da, X, INSERT_VALUES, user->xloc));
  PetscCall(VecSet(user->gloc, 0.0));
  PetscCall(DMDAVecGetArrayRead(user->da, user->xloc, &v));
  PetscCall(DMDAVecGetArray(user->da, user->gloc, &g));
  PetscCall(DMDAGetCorners(user->da, &xs, &ys, NULL, &xm, &ym, NULL));
#define INSIDE(i, j) ((i) >= 0 && (i) < nx && (j) >= 0 && (j) < ny)
#define VAL(i, j)    (INSIDE(i, j) ? v[j][i] : 0.0)
  for (PetscInt tri = 0; tri < 2; tri++) {
    const PetscInt s   = tri == 0 ? 1 : -1; /* lower: neighbours +1, upper: -1 */
    const PetscInt ilo = (tri == 0 && xs == 0) ? -1 : xs, ihi = (tri == 1 && xs + xm == nx) ? nx : xs + xm - 1;
    const PetscInt jlo = (tri == 0 && ys == 0) ? -1 : ys, jhi = (tri == 1 && ys + ym == ny) ? ny : ys + ym - 1;
    for (PetscInt j = jlo; j <= jhi; j++) {
      for (PetscInt i = ilo; i <= ihi; i++) {
        const PetscInt ia[3] = {i, i + s, i}, ja[3] = {j, j, j + s};
        PetscReal      va = VAL(i, j), vb = VAL(i + s, j), vc = VAL(i, j + s);
        PetscReal      dx = (vb - va) / hx, dy = (vc - va) / hy, q = area, dphi[3] = {0, 0, 0};
        if (user->problem == PJB) {
          PetscReal wa = PetscPowReal(1.0 + user->eps * PetscCosReal(Xi(user, i)), 3), wb = PetscPowReal(1.0 + user->eps * PetscCosReal(Xi(user, i + s)), 3);
          q            = hx * hy * (2.0 * wa + wb) / 6.0;
        }
        floc += 0.5 * q * (dx * dx + dy * dy);
        for (PetscInt k = 0; k < 3; k++) {
          PetscReal vk = VAL(ia[k], ja[k]);
          if (user->problem == EPT) {
            floc -= area * user->c / 3.0 * vk;
            dphi[k] = -area * user->c / 3.0;
          } else if (user->problem == SSC) {
            floc -= area * user->lambda / 3.0 * PetscExpReal(vk);
            dphi[k] = -area * user->lambda / 3.0 * PetscExpReal(vk);
          }
        }
        if (INSIDE(i, j)) g[j][i] += q * (-dx / hx - dy / hy) + dphi[0];
        if (INSIDE(i + s, j)) g[j][i + s] += q * dx / hx + dphi[1];
        if (INSIDE(i, j + s)) g[j + s][i] += q * dy / hy + dphi[2];
      }
    }
  }
  if (user->problem == PJB) {
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        PetscReal psi = -user->eps * hx * hy * PetscSinReal(Xi(user, i));
        floc += psi * v[j][i];
        g[j][i] += psi;
      }
  }
#undef VAL
#undef INSIDE
  PetscCall(DMDAVecRestoreArrayRead(user->da, user->xloc, &v));
  PetscCall(DMDAVecRestoreArray(user->da, user->gloc, &g));
  PetscCall(VecSet(G, 0.0));
  PetscCall(DMLocalToGlobalBegin(user->da, user->gloc, ADD_VALUES, G));
  PetscCall(DMLocalToGlobalEnd(user->da, user->gloc, ADD_VALUES, G));
  PetscCallMPI(MPI_Allreduce(&floc, f, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscLogFlops(40.0 * xm * ym));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FormStartAndBounds(AppCtx *user, Vec x, Vec xl, Vec xu)
{
  PetscInt      xs, ys, xm, ym;
  PetscScalar **x0, **l, **u;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(user->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAVecGetArray(user->da, x, &x0));
  PetscCall(DMDAVecGetArray(user->da, xl, &l));
  PetscCall(DMDAVecGetArray(user->da, xu, &u));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++) {
      PetscReal d = Dist(user, i, j);
      switch (user->problem) {
      case EPT:
        x0[j][i] = d;
        l[j][i]  = -d;
        u[j][i]  = d;
        break;
      case SSC:
        x0[j][i] = user->lambda / (user->lambda + 1.0) * PetscSqrtReal(d);
        l[j][i]  = -user->box;
        u[j][i]  = user->box;
        break;
      case PJB:
        x0[j][i] = PetscMax(PetscSinReal(Xi(user, i)), 0.0);
        l[j][i]  = 0.0;
        u[j][i]  = PETSC_INFINITY;
        break;
      }
    }
  PetscCall(DMDAVecRestoreArray(user->da, x, &x0));
  PetscCall(DMDAVecRestoreArray(user->da, xl, &l));
  PetscCall(DMDAVecRestoreArray(user->da, xu, &u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(AppCtx *user, TaoType type, const char prefix[], Vec x, Vec xl, Vec xu, PetscReal *f, PetscReal *pg, PetscInt *its, TaoConvergedReason *reason)
{
  Tao tao;

  PetscFunctionBeginUser;
  PetscCall(FormStartAndBounds(user, x, xl, xu));
  PetscCall(TaoCreate(PETSC_COMM_WORLD, &tao));
  PetscCall(TaoSetType(tao, type));
  if (prefix) PetscCall(TaoSetOptionsPrefix(tao, prefix));
  PetscCall(TaoSetSolution(tao, x));
  PetscCall(TaoSetVariableBounds(tao, xl, xu));
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, FormFunctionGradient, user));
  PetscCall(TaoSetTolerances(tao, 1e-7, 0.0, 0.0));
  PetscCall(TaoSetMaximumIterations(tao, 5000));
  PetscCall(TaoSetMaximumFunctionEvaluations(tao, 10000));
  PetscCall(TaoSetFromOptions(tao));
  PetscCall(TaoSolve(tao));
  PetscCall(TaoGetSolutionStatus(tao, its, f, pg, NULL, NULL, reason));
  PetscCall(TaoDestroy(&tao));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  AppCtx             user;
  Vec                x, xl, xu;
  PetscReal          f, pg, fb, pgb;
  PetscInt           its, itsb, pi = 0;
  PetscBool          check = PETSC_TRUE, require = PETSC_TRUE;
  TaoConvergedReason reason, reasonb;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscKPRegisterAll());
  user.nx = user.ny = 32;
  user.c            = 5.0;
  user.lambda       = 5.0;
  user.eps          = 0.1;
  user.b            = 10.0;
  user.box          = 1.0;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "MINPACK-2 bound-constrained problems", NULL);
  PetscCall(PetscOptionsEList("-problem", "the problem", NULL, Problems, 3, Problems[0], &pi, NULL));
  PetscCall(PetscOptionsInt("-nx", "interior points in x", NULL, user.nx, &user.nx, NULL));
  PetscCall(PetscOptionsInt("-ny", "interior points in y", NULL, user.ny, &user.ny, NULL));
  PetscCall(PetscOptionsReal("-box", "bound of ssc", NULL, user.box, &user.box, NULL));
  PetscCall(PetscOptionsBool("-check", "compare with TAO BLMVM", NULL, check, &check, NULL));
  PetscCall(PetscOptionsBool("-require_convergence", "error when the solver does not converge (benchmarks with -tao_max_it turn it off)", NULL, require, &require, NULL));
  PetscOptionsEnd();
  user.problem = (Problem)pi;
  PetscCheck(user.nx >= 2 && user.ny >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-nx and -ny must be at least 2");
  if (user.problem == PJB) {
    user.hx = 2.0 * PETSC_PI / (user.nx + 1);
    user.hy = 2.0 * user.b / (user.ny + 1);
  } else {
    user.hx = 1.0 / (user.nx + 1);
    user.hy = 1.0 / (user.ny + 1);
  }
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, user.nx, user.ny, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &user.da));
  PetscCall(DMSetFromOptions(user.da));
  PetscCall(DMSetUp(user.da));
  PetscCall(DMCreateGlobalVector(user.da, &x));
  PetscCall(VecDuplicate(x, &xl));
  PetscCall(VecDuplicate(x, &xu));
  PetscCall(DMCreateLocalVector(user.da, &user.xloc));
  PetscCall(VecDuplicate(user.xloc, &user.gloc));

  PetscCall(Solve(&user, TAOLBFGSB, NULL, x, xl, xu, &f, &pg, &its, &reason));
  PetscCall(PetscInfo(NULL, "%s after %" PetscInt_FMT " iterations, projected gradient %g\n", TaoConvergedReasons[reason], its, (double)pg));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MINPACK-2 %s %" PetscInt_FMT " x %" PetscInt_FMT ": lbfgsb %s, f = %.8e\n", Problems[user.problem], user.nx, user.ny, reason > 0 ? "converged" : "did not converge", (double)f));
  PetscCheck(reason > 0 || !require, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "lbfgsb did not converge: %s", TaoConvergedReasons[reason]);
  if (check) {
    /* the same problem with TAO BLMVM from the same start */
    PetscCall(Solve(&user, TAOBLMVM, "check_", x, xl, xu, &fb, &pgb, &itsb, &reasonb));
    PetscCall(PetscInfo(NULL, "lbfgsb: f %.12e in %" PetscInt_FMT " iterations; blmvm: f %.12e in %" PetscInt_FMT " iterations\n", (double)f, its, (double)fb, itsb));
    PetscCheck(PetscAbsReal(f - fb) <= 1e-6 * PetscMax(PetscAbsReal(fb), 1e-3), PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "lbfgsb optimum %.12e differs from BLMVM's %.12e", (double)f, (double)fb);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "optimum check against TAO BLMVM: passed\n"));
  }
  PetscCall(VecDestroy(&user.xloc));
  PetscCall(VecDestroy(&user.gloc));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xl));
  PetscCall(VecDestroy(&xu));
  PetscCall(DMDestroy(&user.da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: ept
    nsize: {{1 2 4}}
    args: -problem ept -nx 24 -ny 20
    output_file: output/minpack2_ept.out

  test:
    suffix: ssc
    nsize: {{1 2 4}}
    args: -problem ssc -nx 24 -ny 24
    output_file: output/minpack2_ssc.out

  test:
    suffix: pjb
    nsize: {{1 2 4}}
    args: -problem pjb -nx 24 -ny 24
    output_file: output/minpack2_pjb.out

  test:
    suffix: ept_approx
    nsize: {{1 2}}
    args: -problem ept -nx 24 -ny 20 -tao_lbfgsb_cauchy approximate -tao_lbfgsb_m 5
    output_file: output/minpack2_ept.out

TEST*/
