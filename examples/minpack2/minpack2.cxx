static char help[] = "Bound-constrained MINPACK-2 problems (Averick, Carter, More, Xue 1992) on a DMDA, solved with TAO lbfgsb:\n"
                     "  -problem ept|ssc|pjb|dsscfg : elastic-plastic torsion (c = 5, |v| <= dist), steady-state combustion\n"
                     "                         (lambda = 5, box [-box, box]), pressure in a journal bearing (eps = 0.1, b = 10, v >= 0),\n"
                     "                         steady-state combustion as in cuLBFGSB's example dsscfg (lambda = 1, no bounds),\n"
                     "                         minimal surface with Enneper's boundary data (box [-box, box], inactive for box = 1)\n"
                     "  -nx <32> -ny <32>     : interior grid points\n"
                     "  -lambda <5 (ssc), 1 (dsscfg)> : combustion parameter, >= 0 (at most 6.81 without bounds)\n"
                     "  -box <1 (ssc), 0 (dsscfg)>    : bound of ssc/dsscfg/msa, finite, 0 for no bounds\n"
                     "  -fg device|host       : evaluate f and g with Kokkos kernels on the ghosted local arrays (default), or on the host\n"
                     "  -check_fg             : compare the device and host f/g (and g with central differences), then stop\n"
                     "  -pg_stop <0>          : stop every TAO solver by one test, ||P(x - g) - x||_inf <= pg_stop (0: the solver's own tests)\n"
                     "  -time_limit <0>       : with -pg_stop, end TaoSolve (DIVERGED_USER) after this many seconds\n"
                     "  -summary              : print one SUMMARY line (iterations, evaluations, wall times of TaoSolve and of f/g)\n"
                     "  -warmup <0>           : first solve this many iterations of the problem (untimed, no output), so that the\n"
                     "                         timed solve does not pay for first launches, device libraries and lazy loading\n"
                     "  -check <1>            : also solve with TAO BLMVM and compare the optimum\n\n";

/*
   All problems use MINPACK-2's piecewise-linear finite elements on the uniform triangulation of a rectangle
   with zero boundary values: lower triangles (v_ij, v_i+1,j, v_i,j+1), upper triangles (v_ij, v_i-1,j, v_i,j-1),

     f(v) = sum_T q_T (dx_T^2 + dy_T^2) / 2 + area sum_T sum_{vertices a of T} phi(v_a) + sum_k psi_k v_k

   with dx_T, dy_T the difference quotients on T, area = hx hy / 2 and
     ept: q_T = area, phi(v) = -(c/3) v,                     bounds -dist <= v <= dist, start v = dist
     ssc: q_T = area, phi(v) = -(lambda/3) exp(v),           bounds -box <= v <= box,  start lambda/(lambda+1) sqrt(dist)
     pjb: q_T = hx hy (2 w(xi_a) + w(xi_b)) / 6, w = (1 + eps cos xi)^3, phi = 0, psi_k = -eps hx hy sin(xi_k),
          bounds v >= 0 (no upper bound), start max(sin xi, 0)
     msa: instead of the quadratic term, area sqrt(1 + dx_T^2 + dy_T^2) on [-1/2, 1/2]^2 with Enneper's surface as
          boundary values (MINPACK-2 dmsafg/dmsabc), bounds -box <= v <= box (the paper's [-1, 1]; 0: none), start
          the average of the interpolants of the boundary data along x and along y
   MINPACK-2 sums over every triangle with an interior vertex, i.e. lower triangles anchored at i = -1 .. nx-1,
   j = -1 .. ny-1 and upper triangles anchored at i = 0 .. nx, j = 0 .. ny (0-based interior indices).
     dsscfg: the steady-state combustion problem exactly as cuLBFGSB's example examples/dsscfg defines it
          (github:nepluno/lbfgsb-gpu, the GPU L-BFGS-B of Fei et al. 2014): the ssc functional with lambda = 1 and
          no bounds, summed over the triangles anchored at interior points only (i = 0 .. nx-1, j = 0 .. ny-1), from
          the start lambda/(lambda+1) sqrt(min(min(i, nx-i) hx, min(j, ny-j) hy)) (0-based i, j).

   Two evaluations of f and g:
   - device (default): one Kokkos kernel over the ghosted local array of x (box stencil, taken where the Vec lives:
     no copy for -dm_vec_type cuda): every thread owns one anchor of the rank's triangles for f (a sum reduction,
     then one MPI_Allreduce), and gathers the gradient of its own grid point from the six triangles around it, so
     g is written straight into the global vector without atomics or a local-to-global sum;
   - host (-fg host): the reference loop over the rank's triangles, adding the gradient contributions into a ghosted
     local vector that is summed into the global one (DMDAVecGetArray, so GPU vectors travel to the host).
   -check_fg compares both (f to 1e-12 relative, g to 1e-12 relative in the max norm) at the start and at a
   perturbed point, and the gradient with a central difference of f along a smooth direction.
*/
#include "kp_kokkos.hpp" /* first: it asks petsckp_compat.h for the Kokkos part (device math) */
#include "kp_vec.hpp"
#include <petscdmda.h>
#include <petsctao.h>
#include <petsckp.h>
#include <vector>

using namespace petsckp;

typedef enum {
  EPT,
  SSC,
  PJB,
  DSSCFG,
  MSA
} Problem;
static const char *const Problems[] = {"ept", "ssc", "pjb", "dsscfg", "msa", "Problem", "", NULL};
static const char *const FGPlaces[] = {"device", "host", "FGPlace", "", NULL};

/* what the kernels need to know about the problem (plain data, copied into the kernels) */
struct Prm {
  Int  nx, ny, ext; /* ext = 1: MINPACK-2's boundary-anchored triangles too; 0: interior anchors only (dsscfg) */
  Real hx, hy, area, c, lambda;
  int  problem;
};

typedef struct {
  DM            da;
  Problem       problem;
  PetscInt      nx, ny, ext;
  PetscReal     hx, hy, c, lambda, eps, b, box;
  PetscBool     bounded, host;
  PetscReal     pgstop, tlimit;
  PetscInt      maxit; /* > 0: the iteration limit of a warm-up solve (its options prefix, not the command line's) */
  PetscLogDouble tstart;
  Vec           xloc, gloc;
  PetscInt      nevals;
  PetscLogDouble fgtime;
  View<Real>    wq, psi; /* pjb: w(xi_i) for i = -1 .. nx, psi_i for i = 0 .. nx-1 */
  std::vector<Real> bndh; /* boundary values (BoundaryIndex order): Enneper's surface for msa, zero otherwise */
  View<Real>    bnd;
} AppCtx;

static PetscLogEvent MP2_FunctionGradient;

static PetscReal Xi(AppCtx *user, PetscInt i) { return (i + 1) * user->hx; } /* x coordinate of column i (0-based) */
static PetscReal Wj(AppCtx *user, PetscInt i) { return PetscPowReal(1.0 + user->eps * PetscCosReal(Xi(user, i)), 3); }
static PetscReal Psi(AppCtx *user, PetscInt i) { return -user->eps * user->hx * user->hy * PetscSinReal(Xi(user, i)); }

/* Enneper's minimal surface at (x, y) of the boundary: u^2 - v^2 where x = u + u v^2 - u^3/3, y = -v - u^2 v + v^3/3
   (Newton from (x, -y), at most 5 steps, tolerance 1e-10, as MINPACK-2's dmsabc) */
static PetscReal Enneper(PetscReal xt, PetscReal yt)
{
  PetscReal u = xt, v = -yt;
  for (PetscInt k = 0; k < 5; k++) {
    const PetscReal f1 = u + u * v * v - u * u * u / 3.0 - xt, f2 = -v - u * u * v + v * v * v / 3.0 - yt;
    if (PetscSqrtReal(f1 * f1 + f2 * f2) <= 1e-10) break;
    const PetscReal j11 = 1.0 + v * v - u * u, j12 = 2.0 * u * v, j21 = -2.0 * u * v, j22 = -1.0 - u * u + v * v, det = j11 * j22 - j12 * j21;
    u -= (j22 * f1 - j12 * f2) / det;
    v -= (j11 * f2 - j21 * f1) / det;
  }
  return u * u - v * v;
}

static PetscReal Dist(AppCtx *user, PetscInt i, PetscInt j)
{
  PetscReal dx = PetscMin(i + 1, user->nx - i) * user->hx, dy = PetscMin(j + 1, user->ny - j) * user->hy;
  return PetscMin(dx, dy);
}

/* ----------------------------------------------------------------------------------------------------------------
   device f/g
   ---------------------------------------------------------------------------------------------------------------- */

/* index of the boundary value of (i, j) outside the interior grid in the boundary array: bottom (j = -1) and top
   (j = ny) rows for i = -1 .. nx, then left (i = -1) and right (i = nx) columns for j = -1 .. ny */
KOKKOS_INLINE_FUNCTION Int BoundaryIndex(Int i, Int j, Int nx, Int ny)
{
  if (j < 0) return i + 1;
  if (j >= ny) return (nx + 2) + i + 1;
  if (i < 0) return 2 * (nx + 2) + j + 1;
  return 2 * (nx + 2) + (ny + 2) + j + 1;
}

/* values of the ghosted local array by global grid index; outside the interior grid the boundary data (zero but
   for msa) */
struct Ghost {
  UView<const Real> x;
  Int               gxs, gys, gxm, nx, ny;
  View<Real>        bnd;
  KOKKOS_INLINE_FUNCTION Real operator()(Int i, Int j) const { return (i >= 0 && i < nx && j >= 0 && j < ny) ? x((j - gys) * gxm + (i - gxs)) : bnd(BoundaryIndex(i, j, nx, ny)); }
};

/* is the triangle anchored at (i, j) part of the problem (s = 1 lower, -1 upper) */
KOKKOS_INLINE_FUNCTION bool TriIn(const Prm &p, Int i, Int j, Int s)
{
  if (s > 0) return i >= -p.ext && i <= p.nx - 1 && j >= -p.ext && j <= p.ny - 1;
  return i >= 0 && i <= p.nx - 1 + p.ext && j >= 0 && j <= p.ny - 1 + p.ext;
}

/* the quadratic part of triangle (i, j, s): its energy and the gradient contributions of its vertices a, b, c */
KOKKOS_INLINE_FUNCTION void TriQuad(const Prm &p, const Ghost &v, const View<Real> &wq, Int i, Int j, Int s, Real &fq, Real &ga, Real &gb, Real &gc)
{
  const Real va = v(i, j), vb = v(i + s, j), vc = v(i, j + s);
  const Real dx = (vb - va) / p.hx, dy = (vc - va) / p.hy;
  if (p.problem == MSA) { /* area sqrt(1 + |grad v|^2) */
    const Real r = compat::sqrt(1.0 + dx * dx + dy * dy);
    fq           = p.area * r;
    ga           = p.area * (-dx / p.hx - dy / p.hy) / r;
    gb           = p.area * dx / p.hx / r;
    gc           = p.area * dy / p.hy / r;
    return;
  }
  const Real q = p.problem == PJB ? p.hx * p.hy * (2.0 * wq(i + 1) + wq(i + s + 1)) / 6.0 : p.area;
  fq           = 0.5 * q * (dx * dx + dy * dy);
  ga            = q * (-dx / p.hx - dy / p.hy);
  gb            = q * dx / p.hx;
  gc            = q * dy / p.hy;
}

/* area phi(v) and its derivative */
KOKKOS_INLINE_FUNCTION Real Phi(const Prm &p, Real v)
{
  if (p.problem == EPT) return -p.area * p.c / 3.0 * v;
  if (p.problem == SSC || p.problem == DSSCFG) return -p.area * p.lambda / 3.0 * compat::exp(v);
  return 0.0;
}
KOKKOS_INLINE_FUNCTION Real DPhi(const Prm &p, Real v)
{
  if (p.problem == EPT) return -p.area * p.c / 3.0;
  if (p.problem == SSC || p.problem == DSSCFG) return -p.area * p.lambda / 3.0 * compat::exp(v);
  return 0.0;
}

/* f of the rank's triangles (each triangle once over all ranks: its anchor clamped into the grid is owned here) and
   the gradient of the owned points, gathered from their six triangles */
static Real DeviceFG(const Prm p, const Ghost v, const View<Real> wq, const View<Real> psi, Int xs, Int ys, Int xm, Int ym, const UView<Scalar> g)
{
  const Int bw = xm + 2, bh = ym + 2;
  Real      f  = 0;
  Kokkos::parallel_reduce(
    "minpack2::FunctionGradient", range(bw * bh),
    KOKKOS_LAMBDA(const Int t, Real &fl) {
      const Int i = xs - 1 + t % bw, j = ys - 1 + t / bw;
      for (Int s = 1; s >= -1; s -= 2) {
        if (!TriIn(p, i, j, s)) continue;
        Int oi = i, oj = j; /* the grid point that owns the anchor */
        oi = oi < 0 ? 0 : (oi > p.nx - 1 ? p.nx - 1 : oi);
        oj = oj < 0 ? 0 : (oj > p.ny - 1 ? p.ny - 1 : oj);
        if (oi < xs || oi >= xs + xm || oj < ys || oj >= ys + ym) continue;
        Real fq, ga, gb, gc;
        TriQuad(p, v, wq, i, j, s, fq, ga, gb, gc);
        fl += fq + Phi(p, v(i, j)) + Phi(p, v(i + s, j)) + Phi(p, v(i, j + s));
      }
      if (i >= xs && i < xs + xm && j >= ys && j < ys + ym) {
        Real gi = 0, fq, ga, gb, gc;
        Int  ntri = 0;
        /* as vertex a of the lower and upper triangles anchored here, b of those anchored at (i -+ 1, j), c of (i, j -+ 1) */
        for (Int s = 1; s >= -1; s -= 2) {
          if (TriIn(p, i, j, s)) {
            TriQuad(p, v, wq, i, j, s, fq, ga, gb, gc);
            gi += ga;
            ntri++;
          }
          if (TriIn(p, i - s, j, s)) {
            TriQuad(p, v, wq, i - s, j, s, fq, ga, gb, gc);
            gi += gb;
            ntri++;
          }
          if (TriIn(p, i, j - s, s)) {
            TriQuad(p, v, wq, i, j - s, s, fq, ga, gb, gc);
            gi += gc;
            ntri++;
          }
        }
        gi += ntri * DPhi(p, v(i, j));
        if (p.problem == PJB) {
          gi += psi(i);
          fl += psi(i) * v(i, j);
        }
        g((j - ys) * xm + (i - xs)) = gi;
      }
    },
    f);
  return f;
}

static PetscErrorCode FormFunctionGradientDevice(AppCtx *user, Vec X, PetscReal *f, Vec G)
{
  PetscInt  xs, ys, xm, ym, gxs, gys, gxm;
  PetscReal floc = 0;
  DeviceVec xl, gv;
  Prm       p;

  PetscFunctionBeginUser;
  PetscCall(DMGlobalToLocalBegin(user->da, X, INSERT_VALUES, user->xloc));
  PetscCall(DMGlobalToLocalEnd(user->da, X, INSERT_VALUES, user->xloc));
  PetscCall(DMDAGetCorners(user->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAGetGhostCorners(user->da, &gxs, &gys, NULL, &gxm, NULL, NULL));
  p.nx      = user->nx;
  p.ny      = user->ny;
  p.ext     = user->ext;
  p.hx      = user->hx;
  p.hy      = user->hy;
  p.area    = 0.5 * user->hx * user->hy;
  p.c       = user->c;
  p.lambda  = user->lambda;
  p.problem = (int)user->problem;
  PetscCall(xl.Get(user->xloc, Access::Read));
  PetscCall(gv.Get(G, Access::Write));
  {
    Ghost v{xl.cview(), gxs, gys, gxm, user->nx, user->ny, user->bnd};
    PetscCallCXX(floc = DeviceFG(p, v, user->wq, user->psi, xs, ys, xm, ym, gv.view()));
  }
  PetscCall(gv.Restore());
  PetscCall(xl.Restore());
  PetscCallMPI(MPI_Allreduce(&floc, f, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)user->da)));
  PetscCall(PetscLogFlops(60.0 * xm * ym));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ----------------------------------------------------------------------------------------------------------------
   host f/g (the reference)
   ---------------------------------------------------------------------------------------------------------------- */
static PetscErrorCode FormFunctionGradientHost(AppCtx *user, Vec X, PetscReal *f, Vec G)
{
  PetscInt     xs, ys, xm, ym, nx = user->nx, ny = user->ny, ext = user->ext;
  PetscReal    hx = user->hx, hy = user->hy, area = 0.5 * hx * hy, floc = 0;
  PetscScalar **v, **g;

  PetscFunctionBeginUser;
  PetscCall(DMGlobalToLocalBegin(user->da, X, INSERT_VALUES, user->xloc));
  PetscCall(DMGlobalToLocalEnd(user->da, X, INSERT_VALUES, user->xloc));
  PetscCall(VecSet(user->gloc, 0.0));
  PetscCall(DMDAVecGetArrayRead(user->da, user->xloc, &v));
  PetscCall(DMDAVecGetArray(user->da, user->gloc, &g));
  PetscCall(DMDAGetCorners(user->da, &xs, &ys, NULL, &xm, &ym, NULL));
#define INSIDE(i, j) ((i) >= 0 && (i) < nx && (j) >= 0 && (j) < ny)
#define VAL(i, j)    (INSIDE(i, j) ? v[j][i] : user->bndh[BoundaryIndex(i, j, nx, ny)])
  for (PetscInt tri = 0; tri < 2; tri++) {
    const PetscInt s   = tri == 0 ? 1 : -1; /* lower: neighbours +1, upper: -1 */
    const PetscInt ilo = (tri == 0 && xs == 0) ? -ext : xs, ihi = (tri == 1 && xs + xm == nx) ? nx - 1 + ext : xs + xm - 1;
    const PetscInt jlo = (tri == 0 && ys == 0) ? -ext : ys, jhi = (tri == 1 && ys + ym == ny) ? ny - 1 + ext : ys + ym - 1;
    for (PetscInt j = jlo; j <= jhi; j++) {
      for (PetscInt i = ilo; i <= ihi; i++) {
        const PetscInt ia[3] = {i, i + s, i}, ja[3] = {j, j, j + s};
        PetscReal      va = VAL(i, j), vb = VAL(i + s, j), vc = VAL(i, j + s);
        PetscReal      dx = (vb - va) / hx, dy = (vc - va) / hy, q = area, dphi[3] = {0, 0, 0};
        if (user->problem == MSA) {
          const PetscReal r = PetscSqrtReal(1.0 + dx * dx + dy * dy);
          floc += area * r;
          if (INSIDE(i, j)) g[j][i] += area * (-dx / hx - dy / hy) / r;
          if (INSIDE(i + s, j)) g[j][i + s] += area * dx / hx / r;
          if (INSIDE(i, j + s)) g[j + s][i] += area * dy / hy / r;
          continue;
        }
        if (user->problem == PJB) q = hx * hy * (2.0 * Wj(user, i) + Wj(user, i + s)) / 6.0;
        floc += 0.5 * q * (dx * dx + dy * dy);
        for (PetscInt k = 0; k < 3; k++) {
          PetscReal vk = VAL(ia[k], ja[k]);
          if (user->problem == EPT) {
            floc -= area * user->c / 3.0 * vk;
            dphi[k] = -area * user->c / 3.0;
          } else if (user->problem == SSC || user->problem == DSSCFG) {
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
        PetscReal psi = Psi(user, i);
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
  PetscCallMPI(MPI_Allreduce(&floc, f, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)user->da)));
  PetscCall(PetscLogFlops(40.0 * xm * ym));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FormFunctionGradient(Tao tao, Vec X, PetscReal *f, Vec G, void *ptr)
{
  AppCtx        *user = (AppCtx *)ptr;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(MP2_FunctionGradient, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  if (user->host) PetscCall(FormFunctionGradientHost(user, X, f, G));
  else PetscCall(FormFunctionGradientDevice(user, X, f, G));
  PetscCallCXX(exec().fence()); /* f came back through a reduction; g's kernel is done too (wall time of f/g) */
  PetscCall(PetscTime(&t1));
  PetscCall(PetscLogEventEnd(MP2_FunctionGradient, 0, 0, 0, 0));
  user->fgtime += t1 - t0;
  user->nevals++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||P(x - g) - x||_inf, the projected-gradient measure of L-BFGS-B (and of cuLBFGSB), for any TAO solver */
static Real ProjGradInf(UView<const Scalar> x, UView<const Scalar> g, UView<const Scalar> l, UView<const Scalar> u, bool bounded)
{
  Real r = 0;
  Kokkos::parallel_reduce(
    "minpack2::ProjGradInf", range(x.extent(0)),
    KOKKOS_LAMBDA(const Int k, Real &m) {
      Real y = x(k) - g(k);
      if (bounded) y = compat::fmin(compat::fmax(y, l(k)), u(k));
      const Real d = compat::fabs(y - x(k));
      if (d > m) m = d;
    },
    Kokkos::Max<Real>(r));
  return r;
}

static PetscErrorCode PGNorm(Tao tao, AppCtx *user, PetscReal *pg)
{
  Vec       X, G, XL = NULL, XU = NULL;
  DeviceVec x, g, l, u;
  PetscReal loc;

  PetscFunctionBeginUser;
  PetscCall(TaoGetSolution(tao, &X));
  PetscCall(TaoGetGradient(tao, &G, NULL, NULL));
  if (user->bounded) PetscCall(TaoGetVariableBounds(tao, &XL, &XU));
  PetscCall(x.Get(X, Access::Read));
  PetscCall(g.Get(G, Access::Read));
  if (XL && XU) {
    PetscCall(l.Get(XL, Access::Read));
    PetscCall(u.Get(XU, Access::Read));
    PetscCallCXX(loc = ProjGradInf(x.cview(), g.cview(), l.cview(), u.cview(), true));
    PetscCall(l.Restore());
    PetscCall(u.Restore());
  } else PetscCallCXX(loc = ProjGradInf(x.cview(), g.cview(), x.cview(), x.cview(), false));
  PetscCall(x.Restore());
  PetscCall(g.Restore());
  PetscCallMPI(MPI_Allreduce(&loc, pg, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)tao)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -pg_stop: the same stopping test for every solver (TAO's default test still stops on iterations, evaluations, NaN) */
static PetscErrorCode ConvergenceTest(Tao tao, void *ctx)
{
  AppCtx   *user = (AppCtx *)ctx;
  PetscReal pg;

  PetscFunctionBeginUser;
  PetscCall(PGNorm(tao, user, &pg));
  if (pg <= user->pgstop) PetscCall(TaoSetConvergedReason(tao, TAO_CONVERGED_GATOL));
  else PetscCall(TaoDefaultConvergenceTest(tao, NULL));
  if (user->tlimit > 0) { /* benchmarks: a wall-time limit that still reports the iterations done */
    PetscLogDouble t;
    TaoConvergedReason r;
    PetscCall(PetscTime(&t));
    PetscCall(TaoGetConvergedReason(tao, &r));
    if (r == TAO_CONTINUE_ITERATING && t - user->tstart > user->tlimit) PetscCall(TaoSetConvergedReason(tao, TAO_DIVERGED_USER));
  }
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
      l[j][i]     = user->box > 0 ? -user->box : PETSC_NINFINITY;
      u[j][i]     = user->box > 0 ? user->box : PETSC_INFINITY;
      switch (user->problem) {
      case EPT:
        x0[j][i] = d;
        l[j][i]  = -d;
        u[j][i]  = d;
        break;
      case SSC:
        x0[j][i] = user->lambda / (user->lambda + 1.0) * PetscSqrtReal(d);
        break;
      case DSSCFG: /* cuLBFGSB's start (0-based distances to the first row and column) */
        x0[j][i] = user->lambda / (user->lambda + 1.0) * PetscSqrtReal(PetscMin(PetscMin(i, user->nx - i) * user->hx, PetscMin(j, user->ny - j) * user->hy));
        break;
      case MSA: { /* average of the interpolants of the boundary data along y and along x */
        const PetscReal ay = (j + 1.0) / (user->ny + 1), ax = (i + 1.0) / (user->nx + 1);
        const PetscReal vy = (1 - ay) * user->bndh[BoundaryIndex(i, -1, user->nx, user->ny)] + ay * user->bndh[BoundaryIndex(i, user->ny, user->nx, user->ny)];
        const PetscReal vx = (1 - ax) * user->bndh[BoundaryIndex(-1, j, user->nx, user->ny)] + ax * user->bndh[BoundaryIndex(user->nx, j, user->nx, user->ny)];
        x0[j][i] = 0.5 * (vx + vy);
      } break;
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

static PetscErrorCode Solve(AppCtx *user, TaoType type, const char prefix[], Vec x, Vec xl, Vec xu, PetscReal *f, PetscReal *pg, PetscInt *its, TaoConvergedReason *reason, PetscLogDouble *tsolve, PetscReal *pginf, char used[], size_t len)
{
  TaoType t;
  Tao            tao;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(FormStartAndBounds(user, x, xl, xu));
  PetscCall(TaoCreate(PETSC_COMM_WORLD, &tao));
  PetscCall(TaoSetType(tao, type));
  if (prefix) PetscCall(TaoSetOptionsPrefix(tao, prefix));
  PetscCall(TaoSetSolution(tao, x));
  if (user->bounded) PetscCall(TaoSetVariableBounds(tao, xl, xu));
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, FormFunctionGradient, user));
  if (user->pgstop > 0) {
    PetscCall(TaoSetTolerances(tao, 0.0, 0.0, 0.0));
    PetscCall(TaoSetConvergenceTest(tao, ConvergenceTest, user));
  } else PetscCall(TaoSetTolerances(tao, 1e-7, 0.0, 0.0));
  PetscCall(TaoSetMaximumIterations(tao, 5000));
  PetscCall(TaoSetMaximumFunctionEvaluations(tao, 10000));
  PetscCall(TaoSetFromOptions(tao));
  if (user->maxit > 0) PetscCall(TaoSetMaximumIterations(tao, user->maxit));
  PetscCall(TaoSetUp(tao)); /* the work vectors are allocated outside the timed solve */
  user->nevals = 0;
  user->fgtime = 0;
  PetscCallCXX(exec().fence());
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(&t0));
  user->tstart = t0;
  PetscCall(TaoSolve(tao));
  PetscCallCXX(exec().fence());
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(&t1));
  *tsolve = t1 - t0;
  PetscCall(TaoGetSolutionStatus(tao, its, f, pg, NULL, NULL, reason));
  PetscCall(PGNorm(tao, user, pginf));
  PetscCall(TaoGetType(tao, &t));
  PetscCall(PetscStrncpy(used, t, len));
  PetscCall(TaoDestroy(&tao));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* device vs host f/g at the start and at a perturbed point, and g against a central difference of f */
static PetscErrorCode CheckFG(AppCtx *user, Vec x, Vec xl, Vec xu)
{
  Vec       gd, gh, dir, xp;
  PetscReal fd, fh, fp, fm, dfd = 0, dgd = 0, errfd = 0, gdotd, gn, dn;
  PetscInt  xs, ys, xm, ym;
  PetscBool agree, fdok;

  PetscFunctionBeginUser;
  PetscCall(FormStartAndBounds(user, x, xl, xu));
  PetscCall(VecDuplicate(x, &gd));
  PetscCall(VecDuplicate(x, &gh));
  PetscCall(VecDuplicate(x, &dir));
  PetscCall(VecDuplicate(x, &xp));
  /* a smooth direction, the same on any rank count */
  PetscCall(DMDAGetCorners(user->da, &xs, &ys, NULL, &xm, &ym, NULL));
  {
    PetscScalar **d;
    PetscCall(DMDAVecGetArray(user->da, dir, &d));
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) d[j][i] = 0.3 * PetscSinReal(0.7 * i + 0.3) * PetscCosReal(0.45 * j + 0.2) + 0.1;
    PetscCall(DMDAVecRestoreArray(user->da, dir, &d));
  }
  for (PetscInt pt = 0; pt < 2; pt++) {
    if (pt == 1) PetscCall(VecAXPY(x, 1.0, dir)); /* the perturbed point */
    PetscCall(FormFunctionGradientDevice(user, x, &fd, gd));
    PetscCall(FormFunctionGradientHost(user, x, &fh, gh));
    if (pt == 0) PetscCall(PetscInfo(NULL, "f at the start: device %.16e, host %.16e\n", (double)fd, (double)fh));
    PetscCall(VecNorm(gh, NORM_INFINITY, &gn));
    PetscCall(VecAXPY(gd, -1.0, gh));
    PetscCall(VecNorm(gd, NORM_INFINITY, &dn));
    dfd = PetscMax(dfd, PetscAbsReal(fd - fh) / PetscMax(PetscAbsReal(fh), 1e-300));
    dgd = PetscMax(dgd, dn / PetscMax(gn, 1e-300));
    /* central difference of f along dir against g^T dir */
    {
      const PetscReal h = 1e-4;
      PetscReal       dnrm;
      PetscCall(VecDot(gh, dir, &gdotd));
      PetscCall(VecNorm(dir, NORM_2, &dnrm));
      PetscCall(VecWAXPY(xp, h, dir, x));
      PetscCall(FormFunctionGradientDevice(user, xp, &fp, gd));
      PetscCall(VecWAXPY(xp, -h, dir, x));
      PetscCall(FormFunctionGradientDevice(user, xp, &fm, gd));
      PetscCall(VecNorm(gh, NORM_2, &gn));
      errfd = PetscMax(errfd, PetscAbsReal((fp - fm) / (2 * h) - gdotd) / (gn * dnrm));
    }
  }
  PetscCall(PetscInfo(NULL, "device/host: f %g, g %g relative; central difference %g\n", (double)dfd, (double)dgd, (double)errfd));
  agree = (dfd <= 1e-12 && dgd <= 1e-12) ? PETSC_TRUE : PETSC_FALSE;
  fdok  = errfd <= 1e-6 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "device and host f/g agree at the start and a perturbed point: %s; gradient matches central differences: %s\n", agree ? "yes" : "no", fdok ? "yes" : "no"));
  PetscCheck(agree, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Device and host f/g differ: f by %g, g by %g (relative)", (double)dfd, (double)dgd);
  PetscCheck(fdok, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The gradient differs from central differences of f by %g (relative)", (double)errfd);
  PetscCall(VecDestroy(&gd));
  PetscCall(VecDestroy(&gh));
  PetscCall(VecDestroy(&dir));
  PetscCall(VecDestroy(&xp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  AppCtx             user;
  Vec                x, xl, xu;
  PetscReal          f, pg, fb, pgb, pginf, pginfb;
  PetscInt           its, itsb, pi = 0, fgi = 0, N, warmup = 0;
  PetscBool          check = PETSC_TRUE, require = PETSC_TRUE, checkfg = PETSC_FALSE, summary = PETSC_FALSE;
  PetscLogDouble     tsolve, tsolveb;
  char               type[64], typeb[64];
  TaoConvergedReason reason, reasonb;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscKPRegisterAll());
  PetscCall(KokkosInitializeOnce());
  PetscCall(PetscLogEventRegister("MP2FunctionGrad", TAO_CLASSID, &MP2_FunctionGradient));
  user.nx = user.ny = 32;
  user.c            = 5.0;
  user.lambda       = 5.0;
  user.eps          = 0.1;
  user.b            = 10.0;
  user.box          = 1.0;
  user.pgstop       = 0.0;
  user.tlimit       = 0.0;
  user.maxit        = 0;
  user.nevals       = 0;
  user.fgtime       = 0;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "MINPACK-2 bound-constrained problems", NULL);
  PetscCall(PetscOptionsEList("-problem", "the problem", NULL, Problems, 5, Problems[0], &pi, NULL));
  if (pi == MSA) user.box = 1.0; /* MINPACK-2's msa is unconstrained; the paper's Table 1 boxes it in [-1, 1] (-box 0: none) */
  if (pi == DSSCFG) { /* cuLBFGSB's example: lambda = 1, no bounds */
    user.lambda = 1.0;
    user.box    = 0.0;
  }
  PetscCall(PetscOptionsInt("-nx", "interior points in x", NULL, user.nx, &user.nx, NULL));
  PetscCall(PetscOptionsInt("-ny", "interior points in y", NULL, user.ny, &user.ny, NULL));
  PetscCall(PetscOptionsReal("-lambda", "combustion parameter of ssc/dsscfg", NULL, user.lambda, &user.lambda, NULL));
  PetscCall(PetscOptionsReal("-box", "bound of ssc/dsscfg (0: no bounds)", NULL, user.box, &user.box, NULL));
  PetscCall(PetscOptionsEList("-fg", "where f and g are evaluated", NULL, FGPlaces, 2, FGPlaces[0], &fgi, NULL));
  PetscCall(PetscOptionsBool("-check_fg", "compare the device and host f/g, then stop", NULL, checkfg, &checkfg, NULL));
  PetscCall(PetscOptionsReal("-pg_stop", "stop every solver when ||P(x - g) - x||_inf <= pg_stop (0: the solver's own tests)", NULL, user.pgstop, &user.pgstop, NULL));
  PetscCall(PetscOptionsReal("-time_limit", "with -pg_stop: stop (TAO_DIVERGED_USER) after this many seconds of TaoSolve (0: none)", NULL, user.tlimit, &user.tlimit, NULL));
  PetscCheck(!PetscIsInfOrNanReal(user.pgstop) && user.pgstop >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-pg_stop %g is out of range: it must be a finite number >= 0 (0: the solver's own tests)", (double)user.pgstop);
  PetscCheck(!PetscIsInfOrNanReal(user.tlimit) && user.tlimit >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-time_limit %g is out of range: it must be a finite number of seconds >= 0 (0: no limit)", (double)user.tlimit);
  PetscCall(PetscOptionsBool("-summary", "print a SUMMARY line", NULL, summary, &summary, NULL));
  PetscCall(PetscOptionsInt("-warmup", "iterations of an untimed solve before the timed one (0: none)", NULL, warmup, &warmup, NULL));
  PetscCheck(warmup >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-warmup %" PetscInt_FMT " must be >= 0 (0: no warm-up solve)", warmup);
  PetscCall(PetscOptionsBool("-check", "compare with TAO BLMVM", NULL, check, &check, NULL));
  PetscCall(PetscOptionsBool("-require_convergence", "error when the solver does not converge (benchmarks with -tao_max_it turn it off)", NULL, require, &require, NULL));
  PetscOptionsEnd();
  user.problem = (Problem)pi;
  user.host    = fgi == 1 ? PETSC_TRUE : PETSC_FALSE;
  user.ext     = user.problem == DSSCFG ? 0 : 1;
  user.bounded = (user.problem == SSC || user.problem == DSSCFG || user.problem == MSA) ? (user.box > 0 ? PETSC_TRUE : PETSC_FALSE) : PETSC_TRUE;
  PetscCheck(user.nx >= 2 && user.ny >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-nx %" PetscInt_FMT " -ny %" PetscInt_FMT " is out of range: -nx and -ny must be at least 2", user.nx, user.ny);
  PetscCheck(!PetscIsInfOrNanReal(user.box) && user.box >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-box %g is out of range: the bound must be a finite number > 0, or 0 for no bounds", (double)user.box);
  /* the combustion functional -(lambda/3) exp(v): lambda >= 0 (the Frank-Kamenetskii parameter); without bounds f is
     unbounded below and the problem has a local minimum only below the critical value, about 6.81 (MINPACK-2, Bratu) */
  PetscCheck(!PetscIsInfOrNanReal(user.lambda) && user.lambda >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-lambda %g is out of range: the combustion parameter must be a finite number >= 0 (at most 6.81 without bounds)", (double)user.lambda);
  PetscCheck(user.bounded || user.problem != DSSCFG || user.lambda <= 6.81, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-lambda %g is out of range for -problem dsscfg without bounds: the combustion problem has no minimum above the critical value 6.81; use -lambda in [0, 6.81], or bounds (-box > 0)", (double)user.lambda);
  PetscCheck(user.problem != SSC || user.bounded, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-problem ssc needs -box > 0 (use -problem dsscfg for the unbounded problem)");
  if (user.problem == PJB) {
    user.hx = 2.0 * PETSC_PI / (user.nx + 1);
    user.hy = 2.0 * user.b / (user.ny + 1);
  } else {
    user.hx = 1.0 / (user.nx + 1);
    user.hy = 1.0 / (user.ny + 1);
  }
  /* box stencil: the device gradient gathers from the six triangles around a point (corner neighbours included) */
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, user.nx, user.ny, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &user.da));
  PetscCall(DMSetFromOptions(user.da));
  PetscCall(DMSetUp(user.da));
  PetscCall(DMCreateGlobalVector(user.da, &x));
  PetscCall(VecDuplicate(x, &xl));
  PetscCall(VecDuplicate(x, &xu));
  PetscCall(DMCreateLocalVector(user.da, &user.xloc));
  PetscCall(VecDuplicate(user.xloc, &user.gloc));
  PetscCall(VecGetSize(x, &N));
  /* pjb's per-column weights, computed on the host as the host path does */
  {
    const PetscInt   nw = user.problem == PJB ? user.nx + 2 : 1, np = user.problem == PJB ? user.nx : 1;
    std::vector<Real> w(nw, 0.0), ps(np, 0.0);
    if (user.problem == PJB) {
      for (PetscInt i = -1; i <= user.nx; i++) w[i + 1] = Wj(&user, i);
      for (PetscInt i = 0; i < user.nx; i++) ps[i] = Psi(&user, i);
    }
    PetscCallCXX(user.wq = View<Real>(std::string("minpack2::w"), nw));
    PetscCallCXX(user.psi = View<Real>(std::string("minpack2::psi"), np));
    PetscCallCXX(Kokkos::deep_copy(exec(), user.wq, HostUView<Real>(w.data(), nw)));
    PetscCallCXX(Kokkos::deep_copy(exec(), user.psi, HostUView<Real>(ps.data(), np)));
    /* boundary data: Enneper's surface for msa */
    user.bndh.assign(2 * (user.nx + 2) + 2 * (user.ny + 2), 0.0);
    if (user.problem == MSA) {
      for (PetscInt i = -1; i <= user.nx; i++) {
        user.bndh[BoundaryIndex(i, -1, user.nx, user.ny)]      = Enneper(-0.5 + (i + 1) * user.hx, -0.5);
        user.bndh[BoundaryIndex(i, user.ny, user.nx, user.ny)] = Enneper(-0.5 + (i + 1) * user.hx, 0.5);
      }
      for (PetscInt j = -1; j <= user.ny; j++) {
        user.bndh[BoundaryIndex(-1, j, user.nx, user.ny)]      = Enneper(-0.5, -0.5 + (j + 1) * user.hy);
        user.bndh[BoundaryIndex(user.nx, j, user.nx, user.ny)] = Enneper(0.5, -0.5 + (j + 1) * user.hy);
      }
    }
    PetscCallCXX(user.bnd = View<Real>(std::string("minpack2::boundary"), user.bndh.size()));
    PetscCallCXX(Kokkos::deep_copy(exec(), user.bnd, HostUView<Real>(user.bndh.data(), user.bndh.size())));
    PetscCallCXX(exec().fence());
  }

  if (checkfg) {
    PetscCall(CheckFG(&user, x, xl, xu));
  } else {
    if (warmup > 0) { /* the same solver, under its own options prefix: no view, no monitor, warmup iterations */
      user.maxit = warmup;
      PetscCall(Solve(&user, TAOLBFGSB, "warmup_", x, xl, xu, &f, &pg, &its, &reason, &tsolve, &pginf, type, sizeof(type)));
      user.maxit = 0;
    }
    PetscCall(Solve(&user, TAOLBFGSB, NULL, x, xl, xu, &f, &pg, &its, &reason, &tsolve, &pginf, type, sizeof(type)));
    PetscCall(PetscInfo(NULL, "%s after %" PetscInt_FMT " iterations, projected gradient %g\n", TaoConvergedReasons[reason], its, (double)pg));
    if (summary) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "SUMMARY solver=%s problem=%s n=%" PetscInt_FMT " its=%" PetscInt_FMT " fg=%" PetscInt_FMT " f=%.10e pginf=%.3e reason=%s solve_s=%.4f fg_s=%.4f solver_ms_per_it=%.4f fg_place=%s\n", type, Problems[user.problem], N, its, user.nevals, (double)f, (double)pginf, TaoConvergedReasons[reason], tsolve, user.fgtime, 1000.0 * (tsolve - user.fgtime) / PetscMax(its, 1), FGPlaces[fgi]));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MINPACK-2 %s %" PetscInt_FMT " x %" PetscInt_FMT ": %s %s, f = %.8e\n", Problems[user.problem], user.nx, user.ny, type, reason > 0 ? "converged" : "did not converge", (double)f));
    PetscCheck(reason > 0 || !require, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%s did not converge: %s%s", type, TaoConvergedReasons[reason],
               user.problem == DSSCFG && !user.bounded ? " (without bounds the combustion functional is unbounded below and has only a local minimum, which the iteration can leave, the closer -lambda is to 6.81 and the coarser the grid the sooner: use a smaller -lambda, a finer grid or bounds -box)" : "");
    if (check) {
      /* the same problem with TAO BLMVM from the same start */
      PetscCall(Solve(&user, TAOBLMVM, "check_", x, xl, xu, &fb, &pgb, &itsb, &reasonb, &tsolveb, &pginfb, typeb, sizeof(typeb)));
      PetscCall(PetscInfo(NULL, "lbfgsb: f %.12e in %" PetscInt_FMT " iterations; blmvm: f %.12e in %" PetscInt_FMT " iterations\n", (double)f, its, (double)fb, itsb));
      PetscCheck(PetscAbsReal(f - fb) <= 1e-6 * PetscMax(PetscAbsReal(fb), 1e-3), PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "lbfgsb optimum %.12e differs from BLMVM's %.12e", (double)f, (double)fb);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "optimum check against TAO BLMVM: passed\n"));
    }
  }
  user.wq  = View<Real>();
  user.psi = View<Real>();
  user.bnd = View<Real>();
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
    suffix: dsscfg
    nsize: {{1 2 4}}
    args: -problem dsscfg -nx 24 -ny 24
    output_file: output/minpack2_dsscfg.out

  test:
    suffix: msa
    nsize: {{1 2 4}}
    args: -problem msa -nx 24 -ny 24
    output_file: output/minpack2_msa.out

  test:
    suffix: host_fg
    nsize: {{1 2}}
    args: -problem ssc -nx 24 -ny 24 -fg host
    output_file: output/minpack2_ssc.out

  test:
    suffix: check_fg
    nsize: {{1 2 4}}
    args: -problem {{ept ssc pjb dsscfg msa}} -nx 17 -ny 13 -check_fg
    output_file: output/minpack2_check_fg.out

  testset:
    nsize: {{1 2}}
    args: -problem dsscfg -nx 24 -ny 24 -check 0 -pg_stop 1e-7
    test:
      suffix: pg_stop_lbfgsb
      args: -tao_type lbfgsb -tao_lbfgsb_factr 0
      output_file: output/minpack2_pg_stop_lbfgsb.out
    # TAO's BLMVM/BQNLS at a looser test: at 1e-7 these two runs failed with PETSc 3.25 on the GPU, while PETSc 3.18's
    # BLMVM reaches 1e-7 only with a struggling line search (382 evaluations for 246 iterations; 84 for 81 at 1e-5).
    # With PETSc's Kokkos types (kokkos_types) their line search fails at the optimum (f = -9.44750029e-01) before the
    # projected gradient reaches 1e-5 (bench/results/kokkos_types_gpu.md): PETSc's TAO, not lbfgsb, so they are not
    # run there
    test:
      suffix: pg_stop_blmvm
      requires: !kokkos_types
      args: -tao_type blmvm -pg_stop 1e-5
      output_file: output/minpack2_pg_stop_blmvm.out
    test:
      suffix: pg_stop_bqnls
      requires: !kokkos_types
      args: -tao_type bqnls -pg_stop 1e-5
      output_file: output/minpack2_pg_stop_bqnls.out

  # a warm-up solve before the timed one changes nothing in the result
  test:
    suffix: warmup
    args: -problem ssc -nx 24 -ny 24 -warmup 3

  test:
    suffix: ept_approx
    nsize: {{1 2}}
    args: -problem ept -nx 24 -ny 20 -tao_lbfgsb_cauchy approximate -tao_lbfgsb_m 5
    output_file: output/minpack2_ept.out

  # problem parameters and options out of range: errors naming the option and its valid range
  test:
    suffix: bad_lambda
    args: -problem {{ssc dsscfg}} -nx 8 -ny 8 -lambda {{nan inf -1}}
    # PETSc 3.25 refuses NaN and +-Inf in PetscOptionsReal() itself (PETSc 3.18 leaves them to the example)
    expect_error: (-lambda \S+ is out of range: the combustion parameter must be a finite number >= 0 \(at most 6.81 without bounds\)|Newly set value \S+ (less|greater) than allowed bound)

  test:
    suffix: bad_lambda_unbounded
    args: -problem dsscfg -nx 8 -ny 8 -lambda 10
    expect_error: -lambda 10\S* is out of range for -problem dsscfg without bounds: .*use -lambda in \[0, 6.81\], or bounds

  test:
    suffix: bad_box
    args: -problem ssc -nx 8 -ny 8 -box {{nan inf -1}}
    # PETSc 3.25 refuses NaN and +-Inf in PetscOptionsReal() itself (PETSc 3.18 leaves them to the example)
    expect_error: (-box \S+ is out of range: the bound must be a finite number > 0, or 0 for no bounds|Newly set value \S+ (less|greater) than allowed bound)

  test:
    suffix: bad_stop
    args: -problem ept -nx 8 -ny 8 {{-pg_stop -time_limit}} {{nan inf -1}}
    # PETSc 3.25 refuses NaN and +-Inf in PetscOptionsReal() itself (PETSc 3.18 leaves them to the example)
    expect_error: (-(pg_stop|time_limit) \S+ is out of range: it must be a finite number|Newly set value \S+ (less|greater) than allowed bound)

TEST*/
