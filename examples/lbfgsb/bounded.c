static char help[] = "Small bound-constrained test problems for TAO lbfgsb, also solved by scipy's L-BFGS-B in\n"
                     "tests/lbfgsb_scipy.py (iterate-by-iterate comparison).\n"
                     "  -problem driver1|rosenbrock|onesided|atbounds|degenerate|tridiag : the problem\n"
                     "  -n <n> : number of variables (driver1 default 25)\n"
                     "  -print_iterates : print f at every iteration with 17 digits\n"
                     "  -change_memory <m2> : TaoSetUp(), then TaoLBFGSBSetMemory(m2) and solve; then the memory back to -tao_lbfgsb_m\n"
                     "                        and solve again from x0 (both answers are checked against fresh solvers)\n"
                     "  -bad none|lower_nan|upper_nan|lower_inf|both_inf|upper_ninf|inverted|x0_nan|x0_inf|short_bounds|layout_bounds :\n"
                     "        spoil the bounds or the initial point at global index -bad_index (default n - 1)\n"
                     "  -nan_gradient_after <k> : a NaN gradient entry (index n - 1) from the k-th evaluation on (0: the initial point)\n"
                     "  -nan_beyond <r> : f and g are NaN wherever some x_i > r\n"
                     "  -catch_errors : report an error of the solver as one line and exit normally\n"
                     "  -require_convergence <bool> : fail when the solver does not converge (default true)\n"
                     "  -prefix <p> : options prefix of the solver\n\n";

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
  PetscInt   nevals;            /* evaluations so far */
  PetscInt   nan_gradient_after; /* -1: never */
  PetscReal  nan_beyond;        /* f, g NaN where some x_i is beyond (PETSC_INFINITY: never) */
  PetscInt   nnan;              /* evaluations that returned NaN */
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
  /* hostile variants: NaN beyond a threshold, or a NaN gradient entry after some evaluations */
  {
    PetscBool beyond = PETSC_FALSE;
    for (PetscInt i = 0; i < n; i++)
      if (x[i] > user->nan_beyond) beyond = PETSC_TRUE;
    if (beyond) {
      ff = NAN;
      for (PetscInt i = 0; i < n; i++) ga[i] = NAN;
    }
    if (user->nan_gradient_after >= 0 && user->nevals >= user->nan_gradient_after) ga[n - 1] = NAN;
    if (beyond || (user->nan_gradient_after >= 0 && user->nevals >= user->nan_gradient_after)) user->nnan++;
    user->nevals++;
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

/* x0 and the bounds of the problem (entries with both bounds infinite when the problem has none), spoiled as -bad asks */
static PetscErrorCode FormStart(AppCtx *user, Vec x, Vec xl, Vec xu, PetscBool *bounded, const char *bad, PetscInt badindex)
{
  PetscInt  lo, hi;
  PetscBool is;

  PetscFunctionBeginUser;
  *bounded = PETSC_TRUE;
  PetscCall(VecGetOwnershipRange(x, &lo, &hi));
  for (PetscInt i = lo; i < hi; i++) {
    PetscReal x0 = 0, l = PETSC_NINFINITY, u = PETSC_INFINITY;
    PetscCall(PetscStrcmp(user->problem, "driver1", &is));
    if (is) {
      x0 = 3.0;
      l  = (i % 2 == 0) ? 1.0 : -100.0;
      u  = 100.0;
    }
    PetscCall(PetscStrcmp(user->problem, "rosenbrock", &is));
    if (is) {
      x0       = (i % 2 == 0) ? -1.2 : 1.0;
      *bounded = PETSC_FALSE;
    }
    PetscCall(PetscStrcmp(user->problem, "onesided", &is));
    if (is) {
      x0 = 1.0;
      if (i % 2 == 0) l = 0.0;
      else u = 0.3;
    }
    PetscCall(PetscStrcmp(user->problem, "atbounds", &is));
    if (is) {
      x0 = 0.5;
      l  = 0.0;
      u  = 1.0;
    }
    PetscCall(PetscStrcmp(user->problem, "degenerate", &is));
    if (is) {
      x0 = 1.0;
      l  = 0.0;
      u  = 10.0;
    }
    PetscCall(PetscStrcmp(user->problem, "tridiag", &is));
    if (is) {
      x0 = 0.0;
      l  = -0.2;
      u  = 0.2;
    }
    if (i == badindex) {
      PetscCall(PetscStrcmp(bad, "lower_nan", &is));
      if (is) l = NAN;
      PetscCall(PetscStrcmp(bad, "upper_nan", &is));
      if (is) u = NAN;
      PetscCall(PetscStrcmp(bad, "lower_inf", &is));
      if (is) l = PETSC_INFINITY;
      PetscCall(PetscStrcmp(bad, "both_inf", &is));
      if (is) l = u = PETSC_INFINITY;
      PetscCall(PetscStrcmp(bad, "upper_ninf", &is));
      if (is) u = PETSC_NINFINITY;
      PetscCall(PetscStrcmp(bad, "inverted", &is));
      if (is) {
        l = 2.0;
        u = 1.5;
      }
      PetscCall(PetscStrcmp(bad, "x0_nan", &is));
      if (is) x0 = NAN;
      PetscCall(PetscStrcmp(bad, "x0_inf", &is));
      if (is) x0 = INFINITY;
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
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bounds of the wrong global size (one entry short) or of the right size laid out differently (all on rank 0) */
static PetscErrorCode SpoilBoundSizes(const char *bad, Vec *xl, Vec *xu)
{
  PetscBool short_bounds, layout;
  PetscInt  N;
  Vec       nl, nu;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(bad, "short_bounds", &short_bounds));
  PetscCall(PetscStrcmp(bad, "layout_bounds", &layout));
  if (!short_bounds && !layout) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetSize(*xl, &N));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)*xl), &nl));
  if (short_bounds) PetscCall(VecSetSizes(nl, PETSC_DECIDE, N - 1));
  else {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)*xl), &rank));
    PetscCall(VecSetSizes(nl, rank ? 0 : N, N));
  }
  PetscCall(VecSetFromOptions(nl));
  PetscCall(VecDuplicate(nl, &nu));
  PetscCall(VecSet(nl, -100.0));
  PetscCall(VecSet(nu, 100.0));
  PetscCall(VecDestroy(xl));
  PetscCall(VecDestroy(xu));
  *xl = nl;
  *xu = nu;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a solve from x0; the result line; the solution in xsol (if given) */
static PetscErrorCode SolveFrom(AppCtx *user, Tao tao, Vec x, Vec x0, PetscBool require, Vec xsol, PetscInt *its)
{
  PetscInt           nfuncs;
  PetscReal          f, pg;
  TaoConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(VecCopy(x0, x));
  nfuncs = user->nevals;
  PetscCall(TaoSolve(tao));
  PetscCall(TaoGetSolutionStatus(tao, its, &f, &pg, NULL, NULL, &reason));
  nfuncs = user->nevals - nfuncs; /* counted here: TAO's count is cumulative over solves in newer PETSc */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem %s n %" PetscInt_FMT ": %s after %" PetscInt_FMT " iterations, %" PetscInt_FMT " function evaluations, f %.10e\n", user->problem, user->n, TaoConvergedReasons[reason], *its, nfuncs, (double)f));
  PetscCheck(!require || reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "the solver did not converge (%s)", TaoConvergedReasons[reason]);
  if (xsol) PetscCall(VecCopy(x, xsol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the same solve by a new lbfgsb solver with memory m must give the same iterate (the setter forced a new setup) */
static PetscErrorCode CheckAgainstNewSolver(AppCtx *user, Tao tao, Vec x0, Vec xsol, PetscInt its, PetscInt m)
{
  Tao       fresh;
  Vec       y, xl, xu;
  PetscInt  itsf;
  PetscReal gatol, grtol, gttol, diff, nrm;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(x0, &y));
  PetscCall(TaoCreate(PETSC_COMM_WORLD, &fresh));
  PetscCall(TaoSetType(fresh, TAOLBFGSB));
  PetscCall(TaoLBFGSBSetMemory(fresh, m));
  PetscCall(TaoSetSolution(fresh, y));
  PetscCall(TaoGetVariableBounds(tao, &xl, &xu));
  if (xl && xu) PetscCall(TaoSetVariableBounds(fresh, xl, xu));
  PetscCall(TaoSetObjectiveAndGradient(fresh, NULL, FormFunctionGradient, user));
  PetscCall(TaoGetTolerances(tao, &gatol, &grtol, &gttol));
  PetscCall(TaoSetTolerances(fresh, gatol, grtol, gttol));
  PetscCall(VecCopy(x0, y));
  PetscCall(TaoSolve(fresh));
  PetscCall(TaoGetIterationNumber(fresh, &itsf));
  PetscCall(VecAXPY(y, -1.0, xsol));
  PetscCall(VecNorm(y, NORM_INFINITY, &diff));
  PetscCall(VecNorm(xsol, NORM_INFINITY, &nrm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "memory %" PetscInt_FMT ": %s a new solver (%" PetscInt_FMT " iterations)\n", m, itsf == its && diff <= 1e-12 * (1 + nrm) ? "same iterates as" : "DIFFERENT from", itsf));
  PetscCheck(itsf == its && diff <= 1e-12 * (1 + nrm), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "after TaoLBFGSBSetMemory(%" PetscInt_FMT ") the solve differs from a new solver's: %" PetscInt_FMT " vs %" PetscInt_FMT " iterations, |x - x_new| = %g", m, its, itsf, (double)diff);
  PetscCall(TaoDestroy(&fresh));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* TaoSetFromOptions() and the solves (any error is returned to main) */
static PetscErrorCode Run(AppCtx *user, Tao tao, Vec x, Vec x0, PetscInt m2, PetscBool require)
{
  PetscInt  its, m1;
  Vec       xsol;
  PetscBool islbfgsb;

  PetscFunctionBeginUser;
  PetscCall(TaoSetFromOptions(tao));
  PetscCall(PetscObjectTypeCompare((PetscObject)tao, TAOLBFGSB, &islbfgsb));
  if (m2 <= 0 || !islbfgsb) {
    PetscCall(SolveFrom(user, tao, x, x0, require, NULL, &its));
    if (user->nan_gradient_after >= 0 || user->nan_beyond < PETSC_INFINITY) {
      PetscReal d;
      Vec       dx;
      PetscCall(VecDuplicate(x, &dx));
      PetscCall(VecWAXPY(dx, -1.0, x0, x));
      PetscCall(VecNorm(dx, NORM_INFINITY, &d));
      PetscCall(VecDestroy(&dx));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "evaluations with NaN: %" PetscInt_FMT "; the solution %s the initial point\n", user->nnan, d == 0 ? "is" : "differs from"));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the memory size changed after TaoSetUp() and after a solve: each solve must run as a new solver's */
  PetscCall(VecDuplicate(x, &xsol));
  PetscCall(TaoLBFGSBGetMemory(tao, &m1));
  PetscCall(TaoSetUp(tao));
  PetscCall(TaoLBFGSBSetMemory(tao, m2));
  PetscCall(SolveFrom(user, tao, x, x0, require, xsol, &its));
  PetscCall(CheckAgainstNewSolver(user, tao, x0, xsol, its, m2));
  PetscCall(TaoLBFGSBSetMemory(tao, m1));
  PetscCall(SolveFrom(user, tao, x, x0, require, xsol, &its));
  PetscCall(CheckAgainstNewSolver(user, tao, x0, xsol, its, m1));
  PetscCall(VecDestroy(&xsol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  AppCtx         user;
  Tao            tao;
  Vec            x, x0, xl, xu;
  PetscInt       m2 = 0, badindex = -1;
  PetscBool      print = PETSC_FALSE, is, bounded, catch_errors = PETSC_FALSE, require = PETSC_TRUE;
  char           bad[32] = "none", prefix[32] = "";
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscKPRegisterAll());
  PetscCall(PetscStrncpy(user.problem, "driver1", sizeof(user.problem)));
  user.n                  = 25;
  user.nevals             = 0;
  user.nnan               = 0;
  user.nan_gradient_after = -1;
  user.nan_beyond         = PETSC_INFINITY;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "lbfgsb test problems", NULL);
  PetscCall(PetscOptionsString("-problem", "driver1|rosenbrock|onesided|atbounds|degenerate|tridiag", NULL, user.problem, user.problem, sizeof(user.problem), NULL));
  PetscCall(PetscOptionsInt("-n", "number of variables", NULL, user.n, &user.n, NULL));
  PetscCall(PetscOptionsBool("-print_iterates", "print f at every iteration", NULL, print, &print, NULL));
  PetscCall(PetscOptionsInt("-change_memory", "solve with this memory size set after TaoSetUp(), then with the original one", NULL, m2, &m2, NULL));
  PetscCall(PetscOptionsString("-bad", "spoil the bounds or x0", NULL, bad, bad, sizeof(bad), NULL));
  PetscCall(PetscOptionsInt("-bad_index", "global index spoilt by -bad (default n - 1)", NULL, badindex, &badindex, NULL));
  PetscCall(PetscOptionsInt("-nan_gradient_after", "a NaN gradient entry from this evaluation on", NULL, user.nan_gradient_after, &user.nan_gradient_after, NULL));
  PetscCall(PetscOptionsReal("-nan_beyond", "f and g are NaN where some x_i exceeds this", NULL, user.nan_beyond, &user.nan_beyond, NULL));
  PetscCall(PetscOptionsBool("-catch_errors", "report an error of the solver as one line and exit normally", NULL, catch_errors, &catch_errors, NULL));
  PetscCall(PetscOptionsString("-prefix", "options prefix of the solver", NULL, prefix, prefix, sizeof(prefix), NULL));
  PetscCall(PetscOptionsBool("-require_convergence", "fail when the solver does not converge", NULL, require, &require, NULL));
  PetscOptionsEnd();
  PetscCheck(user.n >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n must be positive");
  PetscCall(PetscStrcmp(user.problem, "driver1", &is));
  PetscCheck(!is || user.n >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "driver1 needs -n >= 2");
  if (badindex < 0) badindex = user.n - 1;

  PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
  PetscCall(VecSetSizes(x, PETSC_DECIDE, user.n));
  PetscCall(VecSetFromOptions(x));
  PetscCall(VecDuplicate(x, &x0));
  PetscCall(VecDuplicate(x, &xl));
  PetscCall(VecDuplicate(x, &xu));
  PetscCall(VecScatterCreateToAll(x, &user.toall, &user.xall));
  PetscCall(FormStart(&user, x0, xl, xu, &bounded, bad, badindex));
  PetscCall(SpoilBoundSizes(bad, &xl, &xu));
  PetscCall(VecCopy(x0, x));

  PetscCall(TaoCreate(PETSC_COMM_WORLD, &tao));
  PetscCall(TaoSetType(tao, TAOBLMVM));
  if (prefix[0]) PetscCall(TaoSetOptionsPrefix(tao, prefix));
  PetscCall(TaoSetSolution(tao, x));
  if (bounded) PetscCall(TaoSetVariableBounds(tao, xl, xu));
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, FormFunctionGradient, &user));
  PetscCall(TaoSetTolerances(tao, 1e-5, 0.0, 0.0));
  if (print) PetscCall(TaoSetMonitor(tao, PrintIterate, NULL, NULL));
  if (catch_errors) PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = Run(&user, tao, x, x0, m2, require);
  if (catch_errors) {
    PetscKPErrorString msg = NULL;
    PetscCall(PetscPopErrorHandler());
    if (ierr) {
      PetscCall(PetscErrorMessage(ierr, NULL, &msg));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error: %s\n", msg ? msg : "(no message)"));
    } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "no error\n"));
  } else PetscCall(ierr);

  PetscCall(TaoDestroy(&tao));
  PetscCall(VecScatterDestroy(&user.toall));
  PetscCall(VecDestroy(&user.xall));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&x0));
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

  # the memory size set after TaoSetUp() (3) and after a solve (back to 5): each solve runs as a new solver's
  test:
    suffix: change_memory
    nsize: {{1 2}}
    args: -tao_type lbfgsb -tao_lbfgsb_m 5 -change_memory 3

  # bounds and initial points the method cannot use: errors naming the global index (n - 1: on the last rank)
  testset:
    nsize: {{1 2}}
    args: -tao_type lbfgsb -catch_errors
    test:
      suffix: bad_lower_nan
      args: -bad lower_nan
    test:
      suffix: bad_upper_nan
      args: -bad upper_nan
    test:
      suffix: bad_lower_inf
      args: -bad lower_inf
    test:
      suffix: bad_both_inf
      args: -bad both_inf
    test:
      suffix: bad_upper_ninf
      args: -bad upper_ninf
    test:
      suffix: bad_inverted
      args: -bad inverted -bad_index 12
    test:
      suffix: bad_x0_nan
      args: -bad x0_nan
    test:
      suffix: bad_x0_inf
      args: -bad x0_inf -bad_index 3
    test:
      suffix: bad_short_bounds
      args: -bad short_bounds
    test:
      suffix: nan_gradient_start
      args: -nan_gradient_after 0
    test:
      suffix: nan_objective_start
      args: -nan_beyond 2

  test:
    suffix: bad_layout_bounds
    nsize: 2
    args: -tao_type lbfgsb -catch_errors -bad layout_bounds

  # a NaN gradient entry at every trial step: TAO_DIVERGED_NAN with the last accepted iterate (here x0)
  test:
    suffix: nan_gradient_trials
    nsize: {{1 2}}
    args: -tao_type lbfgsb -nan_gradient_after 1 -require_convergence 0

  # f and g NaN beyond x_i = 4: the line search backtracks and the solve converges
  test:
    suffix: nan_region
    nsize: {{1 2}}
    args: -tao_type lbfgsb -nan_beyond 4

  # option values out of range: errors naming the option with the solver's prefix
  testset:
    args: -prefix opt_ -opt_tao_type lbfgsb -catch_errors
    test:
      suffix: option_m
      args: -opt_tao_lbfgsb_m 0
    test:
      suffix: option_ls_xtol_negative
      args: -opt_tao_lbfgsb_ls_xtol -1
    test:
      suffix: option_ls_xtol_nan
      args: -opt_tao_lbfgsb_ls_xtol nan
      filter: sed -E -e "s/^error: .*(is not a finite number|allowed bound).*$/error: NaN refused/"
    test:
      suffix: option_ls_ftol
      args: -opt_tao_lbfgsb_ls_ftol 0.95
    test:
      suffix: option_factr
      args: -opt_tao_lbfgsb_factr -1
    test:
      suffix: option_maxls
      args: -opt_tao_lbfgsb_maxls 0
    test:
      suffix: option_chunk
      args: -opt_tao_lbfgsb_chunk 0

TEST*/
