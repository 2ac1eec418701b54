static char help[] = "Small bound-constrained test problems for TAO lbfgsb, also solved by scipy's L-BFGS-B in\n"
                     "tests/lbfgsb_scipy.py (iterate-by-iterate comparison).\n"
                     "  -problem driver1|rosenbrock|onesided|atbounds|degenerate|tridiag : the problem\n"
                     "  -n <n> : number of variables (driver1 default 25)\n"
                     "  -print_iterates : print f at every iteration with 17 digits\n\n";

/*
   The problems (x is 0-based, i = 0..n-1; the same formulas are in tests/lbfgsb_scipy.py):

   driver1    f = 0.25 (x_0 - 1)^2 + sum_{i>=1} (x_i - x_{i-1}^2)^2, times 4 (the L-BFGS-B distribution's driver1),
              bounds [1, 100] for even i, [-100, 100] for odd i, x0 = 3
   rosenbrock f = sum_{i<n-1} 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2, no bounds, x0 = (-1.2, 1, -1.2, 1, ...)
   onesided   f = sum_i (i+1) (x_i - a_i)^2 / n + 0.5 sum_{i<n-1} (x_{i+1} - x_i)^2 with a_i = cos(i), lower bound 0 on
              even i, upper bound 0.3 on odd i (one-sided bounds, some active), infeasible x0 = 1 (projected)
   atbounds   f = sum_i (x_i - 2)^2 + 0.1 sum_{i<n-1} x_i x_{i+1}, bounds [0, 1], x0 = 0.5: every variable ends on its
              upper bound (the Cauchy point passes every breakpoint)
   degenerate f = sum_i (x_i + 1)^2 + 0.1 (sum_i x_i)^2, bounds [0, 10], x0 = 1: all breakpoints are equal
   tridiag    f = 0.5 x^T A x - b^T x, A = tridiag(-1, 2.5, -1), b_i = sin(i + 1), bounds [-0.2, 0.2], x0 = 0
*/
#include <petsctao.h>
#include <petsckp.h>

typedef struct {
  char       problem[32];
  PetscInt   n;
  VecScatter toall;
  Vec        xall;
} AppCtx;

static PetscErrorCode FormFunctionGradient(Tao tao, Vec X, PetscReal *f, Vec G, void *ptr)
{
  AppCtx            *user = (AppCtx *)ptr;
  const PetscScalar *x;
  PetscScalar       *g;
  PetscInt           n = user->n, lo, hi;
  PetscReal          ff = 0;
  PetscBool          is;
  PetscReal         *ga;

  PetscFunctionBeginUser;
  /* every rank evaluates the (small) problem on a full copy of x, and keeps its part of the gradient */
  PetscCall(VecScatterBegin(user->toall, X, user->xall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(user->toall, X, user->xall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(user->xall, &x));
  PetscCall(PetscCalloc1(n, &ga));
  PetscCall(PetscStrcmp(user->problem, "driver1", &is));
  if (is) {
    PetscReal t1 = x[0] - 1.0;
    ff           = 0.25 * t1 * t1;
    for (PetscInt i = 1; i < n; i++) {
      PetscReal t = x[i] - x[i - 1] * x[i - 1];
      ff += t * t;
    }
    ff *= 4.0;
    PetscReal t2 = x[1] - x[0] * x[0];
    ga[0]        = 2.0 * (x[0] - 1.0) - 16.0 * x[0] * t2;
    for (PetscInt i = 1; i < n - 1; i++) {
      PetscReal t1i = t2;
      t2            = x[i + 1] - x[i] * x[i];
      ga[i]         = 8.0 * t1i - 16.0 * x[i] * t2;
    }
    ga[n - 1] = 8.0 * t2;
  }
  PetscCall(PetscStrcmp(user->problem, "rosenbrock", &is));
  if (is) {
    for (PetscInt i = 0; i < n - 1; i++) {
      PetscReal a = x[i + 1] - x[i] * x[i], b = 1.0 - x[i];
      ff += 100.0 * a * a + b * b;
      ga[i] += -400.0 * x[i] * a - 2.0 * b;
      ga[i + 1] += 200.0 * a;
    }
  }
  PetscCall(PetscStrcmp(user->problem, "onesided", &is));
  if (is) {
    for (PetscInt i = 0; i < n; i++) {
      PetscReal a = x[i] - PetscCosReal((PetscReal)i);
      ff += (i + 1) * a * a / n;
      ga[i] += 2.0 * (i + 1) * a / n;
    }
    for (PetscInt i = 0; i < n - 1; i++) {
      PetscReal a = x[i + 1] - x[i];
      ff += 0.5 * a * a;
      ga[i] -= a;
      ga[i + 1] += a;
    }
  }
  PetscCall(PetscStrcmp(user->problem, "atbounds", &is));
  if (is) {
    for (PetscInt i = 0; i < n; i++) {
      ff += (x[i] - 2.0) * (x[i] - 2.0);
      ga[i] += 2.0 * (x[i] - 2.0);
    }
    for (PetscInt i = 0; i < n - 1; i++) {
      ff += 0.1 * x[i] * x[i + 1];
      ga[i] += 0.1 * x[i + 1];
      ga[i + 1] += 0.1 * x[i];
    }
  }
  PetscCall(PetscStrcmp(user->problem, "degenerate", &is));
  if (is) {
    PetscReal s = 0;
    for (PetscInt i = 0; i < n; i++) s += x[i];
    for (PetscInt i = 0; i < n; i++) {
      ff += (x[i] + 1.0) * (x[i] + 1.0);
      ga[i] = 2.0 * (x[i] + 1.0) + 0.2 * s;
    }
    ff += 0.1 * s * s;
  }
  PetscCall(PetscStrcmp(user->problem, "tridiag", &is));
  if (is) {
    for (PetscInt i = 0; i < n; i++) {
      PetscReal ax = 2.5 * x[i] - (i > 0 ? x[i - 1] : 0.0) - (i < n - 1 ? x[i + 1] : 0.0);
      ff += 0.5 * x[i] * ax - PetscSinReal((PetscReal)(i + 1)) * x[i];
      ga[i] = ax - PetscSinReal((PetscReal)(i + 1));
    }
  }
  PetscCall(VecRestoreArrayRead(user->xall, &x));
  PetscCall(VecGetOwnershipRange(G, &lo, &hi));
  PetscCall(VecGetArray(G, &g));
  for (PetscInt i = lo; i < hi; i++) g[i - lo] = ga[i];
  PetscCall(VecRestoreArray(G, &g));
  PetscCall(PetscFree(ga));
  *f = ff;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PrintIterate(Tao tao, void *ctx)
{
  PetscInt           its;
  PetscReal          f, res;
  TaoConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(TaoGetSolutionStatus(tao, &its, &f, &res, NULL, NULL, &reason));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "iter %3" PetscInt_FMT " f %.17e pg %.10e\n", its, (double)f, (double)res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  AppCtx             user;
  Tao                tao;
  Vec                x, xl, xu;
  PetscInt           lo, hi, its, nfuncs;
  PetscReal          f, pg;
  PetscBool          print = PETSC_FALSE, is, bounded = PETSC_TRUE;
  TaoConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscKPRegisterAll());
  PetscCall(PetscStrncpy(user.problem, "driver1", sizeof(user.problem)));
  user.n = 25;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "lbfgsb test problems", NULL);
  PetscCall(PetscOptionsString("-problem", "driver1|rosenbrock|onesided|atbounds|degenerate|tridiag", NULL, user.problem, user.problem, sizeof(user.problem), NULL));
  PetscCall(PetscOptionsInt("-n", "number of variables", NULL, user.n, &user.n, NULL));
  PetscCall(PetscOptionsBool("-print_iterates", "print f at every iteration", NULL, print, &print, NULL));
  PetscOptionsEnd();
  PetscCheck(user.n >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n must be positive");
  PetscCall(PetscStrcmp(user.problem, "driver1", &is));
  PetscCheck(!is || user.n >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "driver1 needs -n >= 2");

  PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
  PetscCall(VecSetSizes(x, PETSC_DECIDE, user.n));
  PetscCall(VecSetFromOptions(x));
  PetscCall(VecDuplicate(x, &xl));
  PetscCall(VecDuplicate(x, &xu));
  PetscCall(VecScatterCreateToAll(x, &user.toall, &user.xall));
  PetscCall(VecGetOwnershipRange(x, &lo, &hi));
  for (PetscInt i = lo; i < hi; i++) {
    PetscReal x0 = 0, l = PETSC_NINFINITY, u = PETSC_INFINITY;
    PetscCall(PetscStrcmp(user.problem, "driver1", &is));
    if (is) {
      x0 = 3.0;
      l  = (i % 2 == 0) ? 1.0 : -100.0;
      u  = 100.0;
    }
    PetscCall(PetscStrcmp(user.problem, "rosenbrock", &is));
    if (is) {
      x0      = (i % 2 == 0) ? -1.2 : 1.0;
      bounded = PETSC_FALSE;
    }
    PetscCall(PetscStrcmp(user.problem, "onesided", &is));
    if (is) {
      x0 = 1.0;
      if (i % 2 == 0) l = 0.0;
      else u = 0.3;
    }
    PetscCall(PetscStrcmp(user.problem, "atbounds", &is));
    if (is) {
      x0 = 0.5;
      l  = 0.0;
      u  = 1.0;
    }
    PetscCall(PetscStrcmp(user.problem, "degenerate", &is));
    if (is) {
      x0 = 1.0;
      l  = 0.0;
      u  = 10.0;
    }
    PetscCall(PetscStrcmp(user.problem, "tridiag", &is));
    if (is) {
      x0 = 0.0;
      l  = -0.2;
      u  = 0.2;
    }
    PetscCall(VecSetValue(x, i, x0, INSERT_VALUES));
    PetscCall(VecSetValue(xl, i, l, INSERT_VALUES));
    PetscCall(VecSetValue(xu, i, u, INSERT_VALUES));
  }
  PetscCall(VecAssemblyBegin(x));
  PetscCall(VecAssemblyEnd(x));
  PetscCall(VecAssemblyBegin(xl));
  PetscCall(VecAssemblyEnd(xl));
  PetscCall(VecAssemblyBegin(xu));
  PetscCall(VecAssemblyEnd(xu));

  PetscCall(TaoCreate(PETSC_COMM_WORLD, &tao));
  PetscCall(TaoSetType(tao, TAOBLMVM));
  PetscCall(TaoSetSolution(tao, x));
  if (bounded) PetscCall(TaoSetVariableBounds(tao, xl, xu));
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, FormFunctionGradient, &user));
  PetscCall(TaoSetTolerances(tao, 1e-5, 0.0, 0.0));
  if (print) PetscCall(TaoSetMonitor(tao, PrintIterate, NULL, NULL));
  PetscCall(TaoSetFromOptions(tao));
  PetscCall(TaoSolve(tao));
  PetscCall(TaoGetSolutionStatus(tao, &its, &f, &pg, NULL, NULL, &reason));
  PetscCall(TaoGetCurrentFunctionEvaluations(tao, &nfuncs));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem %s n %" PetscInt_FMT ": %s after %" PetscInt_FMT " iterations, %" PetscInt_FMT " function evaluations, f %.10e\n", user.problem, user.n, TaoConvergedReasons[reason], its, nfuncs, (double)f));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "the solver did not converge (%s)", TaoConvergedReasons[reason]);

  PetscCall(TaoDestroy(&tao));
  PetscCall(VecScatterDestroy(&user.toall));
  PetscCall(VecDestroy(&user.xall));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xl));
  PetscCall(VecDestroy(&xu));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: driver1
    nsize: {{1 2 4}}
    args: -tao_type lbfgsb -tao_lbfgsb_m 5
    output_file: output/bounded_driver1.out

TEST*/
