static char help[] = "Centroidal Voronoi tessellation of the unit square with a density, by TAO lbfgsb (Fei, Rong, Wang, Wang 2014, section 5.1):\n"
                     "  -nsites <32>              : number of sites (2 nsites variables, bounded to [0, 1]^2), 1 to 1e8\n"
                     "  -res <128>                : samples per side of the fine grid that discretises the integrals, 2 to 46340,\n"
                     "                              at least sqrt(nsites) (every Voronoi cell needs samples)\n"
                     "  -density uniform|radial   : rho = 1, or rho = 1 / (1 + 20 |x - (1/2, 1/2)|^2) (default radial)\n"
                     "  -seed <1>                 : seed of the initial sites (uniform pseudo-random in the square; any integer)\n"
                     "  -centroid_tol <2e-3>      : largest allowed |site - centroid of its cell| at the solution, finite and > 0\n"
                     "  -pg_tol <1e-4>            : largest allowed projected-gradient norm at the solution, finite and > 0\n"
                     "  -require_convergence <1>  : error when the checks fail (benchmarks with -tao_max_it turn it off)\n"
                     "  -ppm <file>               : write the cells and sites as a PPM image (P6)\n\n";

/*
   CVT energy (the paper's eq. 8) discretised on the midpoints q_p of an res x res grid of cells of area A:

     F(X) = sum_p rho(q_p) A |q_p - x_{s(p)}|^2,   s(p) = the site nearest to q_p (smallest index on ties),

   and the gradient of the continuous energy dF/dx_i = 2 m_i (x_i - c_i), with the mass m_i = sum_{s(p) = i} rho A
   and the centroid c_i = (1/m_i) sum_{s(p) = i} rho A q_p of the discrete cell (Du, Faber, Gunzburger 1999). For a
   fixed assignment F is exactly quadratic in X with that gradient, and F is continuous when a sample changes site.

   On the device (one Kokkos kernel per evaluation): every sample finds its nearest site through a uniform bucket
   grid of the sites (rings of buckets around the sample's bucket until no closer site can exist) and adds rho A,
   rho A q and rho A |q - x_s|^2 to its site with atomics, in 2^-60 fixed point so that the sums are exact and
   the same on any device and rank count. The sites are replicated on every rank (a scatter to all);
   the sample rows are divided among the ranks, and the per-site sums are combined with one MPI_Allreduce. The TAO
   solution vector (x_0, y_0, x_1, y_1, ...) is distributed as usual; bounds 0 <= x <= 1.

   TAO minimises N F: F itself is about (area of a cell) x (its squared size) ~ 1/N^2 per cell, so for thousands of
   sites it falls below the scale of L-BFGS-B's relative-decrease test, (f_k - f_k+1) / max(|f_k|, |f_k+1|, 1) <=
   factr eps, which then stops the reference algorithm after one iteration; N F is O(0.1) for every N, with the
   gradient 2 N m_i (x_i - c_i) ~ 2 (x_i - c_i). The printed energies and the -pg_tol check are of F.

   The example checks itself: the energy decreased, the solver converged (projected-gradient or relative-f test)
   with the projected gradient below -pg_tol, and every site is within -centroid_tol of the centroid of its cell.
   The iterates on different rank counts agree to round-off only, and the CVT energy has many local minima that
   differ little, so the printed energies are compared to 1e-2.
*/
#include <petsctao.h>
#include <petsckp.h>
#include "kp_kokkos.hpp"
#include "kp_vec.hpp"
#include <cstdio>
#include <vector>

using namespace petsckp;

struct AppCtx {
  PetscInt               N = 32, R = 128, r0 = 0, r1 = 0, G = 1;
  PetscInt               density = 1;
  PetscInt               nevals  = 0;
  VecScatter             scat    = NULL;
  Vec                    xall    = NULL;
  View<long long>        mom;           /* 4 N: mass, first moments x and y, energy of each cell (fixed point) */
  std::vector<long long> momi;
  View<Int>              bstart, bsite; /* bucket grid: sites of bucket b are bsite[bstart[b] .. bstart[b + 1]) */
  std::vector<PetscReal> momh;
};

static const char *const Densities[] = {"uniform", "radial", "Density", "", NULL};

/* the nearest site of sample (qx, qy) among the buckets of a G x G grid (smallest index on equal distance) */
KOKKOS_INLINE_FUNCTION Int NearestSite(Real qx, Real qy, const UView<const Real> &xs, Int G, const View<Int> &bstart, const View<Int> &bsite)
{
  const Real hb = 1.0 / G;
  Int        bx = (Int)(qx * G), by = (Int)(qy * G);
  bx            = bx < 0 ? 0 : (bx >= G ? G - 1 : bx);
  by            = by < 0 ? 0 : (by >= G ? G - 1 : by);
  Real best     = 1e300;
  Int  bi       = -1;
  for (Int ring = 0; ring <= G; ring++) {
    /* sites in rings >= ring are at distance >= (ring - 1) hb from the sample */
    if (bi >= 0 && ring >= 1 && best < ((ring - 1) * hb) * ((ring - 1) * hb)) break;
    for (Int cy = by - ring; cy <= by + ring; cy++) {
      if (cy < 0 || cy >= G) continue;
      const bool edge = cy == by - ring || cy == by + ring;
      for (Int cx = bx - ring; cx <= bx + ring; cx += (edge || ring == 0) ? 1 : 2 * ring) {
        if (cx < 0 || cx >= G) continue;
        const Int b = cy * G + cx;
        for (Int k = bstart(b); k < bstart(b + 1); k++) {
          const Int  s  = bsite(k);
          const Real dx = qx - xs(2 * s), dy = qy - xs(2 * s + 1), d = dx * dx + dy * dy;
          if (d < best || (d == best && s < bi)) {
            best = d;
            bi   = s;
          }
        }
      }
    }
  }
  return bi;
}

constexpr double kFixed = 1152921504606846976.0; /* 2^60: every per-site sum is at most 2 */

/* per-site sums over the sample rows [r0, r1) of the res x res grid: mom(4 s + 0..3) = (m, m cx, m cy, energy) */
static void CvtMoments(UView<const Real> xs, Int R, Int r0, Int r1, Int G, View<Int> bstart, View<Int> bsite, Int density, View<long long> mom)
{
  const Int  ns = (r1 - r0) * R;
  const Real h  = 1.0 / R;
  Kokkos::deep_copy(exec(), mom, 0LL);
  Kokkos::parallel_for(
    "cvt::Moments", range(ns), KOKKOS_LAMBDA(const Int p) {
      const Int  j = r0 + p / R, i = p - (p / R) * R;
      const Real qx = (i + 0.5) * h, qy = (j + 0.5) * h;
      const Real r2 = (qx - 0.5) * (qx - 0.5) + (qy - 0.5) * (qy - 0.5);
      const Real w  = (density == 0 ? 1.0 : 1.0 / (1.0 + 20.0 * r2)) * h * h;
      const Int  s  = NearestSite(qx, qy, xs, G, bstart, bsite);
      const Real dx = qx - xs(2 * s), dy = qy - xs(2 * s + 1);
      /* nonnegative contributions in fixed point (2^-60): exact sums in any order, any rank count, any device */
      Kokkos::atomic_add(&mom(4 * s + 0), (long long)(w * kFixed + 0.5));
      Kokkos::atomic_add(&mom(4 * s + 1), (long long)(w * qx * kFixed + 0.5));
      Kokkos::atomic_add(&mom(4 * s + 2), (long long)(w * qy * kFixed + 0.5));
      Kokkos::atomic_add(&mom(4 * s + 3), (long long)(w * (dx * dx + dy * dy) * kFixed + 0.5));
    });
}

/* all sites on every rank, the bucket grid (host counting sort of N sites), the per-site sums on the device */
static PetscErrorCode CvtSums(Vec X, AppCtx *user)
{
  const PetscScalar *xa;
  const PetscInt     N = user->N, G = user->G;
  std::vector<Int>   start(G * G + 1, 0), sites(N), bucket(N);

  PetscFunctionBeginUser;
  PetscCall(VecScatterBegin(user->scat, X, user->xall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(user->scat, X, user->xall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(user->xall, &xa));
  for (PetscInt s = 0; s < N; s++) {
    PetscInt bx = (PetscInt)(PetscRealPart(xa[2 * s]) * G), by = (PetscInt)(PetscRealPart(xa[2 * s + 1]) * G);
    bx        = PetscMin(PetscMax(bx, 0), G - 1);
    by        = PetscMin(PetscMax(by, 0), G - 1);
    bucket[s] = by * G + bx;
    start[bucket[s] + 1]++;
  }
  PetscCall(VecRestoreArrayRead(user->xall, &xa));
  for (PetscInt b = 0; b < G * G; b++) start[b + 1] += start[b];
  {
    std::vector<Int> fill(start.begin(), start.end() - 1);
    for (PetscInt s = 0; s < N; s++) sites[fill[bucket[s]]++] = s; /* increasing site index inside each bucket */
  }
  PetscCallCXX(Kokkos::deep_copy(exec(), user->bstart, HostUView<Int>(start.data(), start.size())));
  PetscCallCXX(Kokkos::deep_copy(exec(), user->bsite, HostUView<Int>(sites.data(), sites.size())));
  {
    DeviceVec xs;
    PetscCall(xs.Get(user->xall, Access::Read));
    PetscCallCXX(CvtMoments(xs.cview(), user->R, user->r0, user->r1, G, user->bstart, user->bsite, user->density, user->mom));
    PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<long long>(user->momi.data(), 4 * N), user->mom));
    PetscCallCXX(exec().fence());
    PetscCall(xs.Restore());
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, user->momi.data(), (PetscMPIInt)(4 * N), MPI_LONG_LONG, MPI_SUM, PETSC_COMM_WORLD));
  for (PetscInt k = 0; k < 4 * N; k++) user->momh[k] = (PetscReal)user->momi[k] / kFixed;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FormFunctionGradient(Tao tao, Vec X, PetscReal *f, Vec G, void *ctx)
{
  AppCtx            *user = (AppCtx *)ctx;
  const PetscScalar *xa;
  PetscScalar       *ga;
  PetscInt           lo, hi;
  PetscReal          F = 0;

  PetscFunctionBeginUser;
  PetscCall(CvtSums(X, user));
  user->nevals++;
  for (PetscInt s = 0; s < user->N; s++) F += user->momh[4 * s + 3];
  *f = user->N * F; /* TAO minimises N F (see the file comment) */
  /* d(N F)/dx_s = 2 N (m_s x_s - first moment_s) on the owned entries */
  PetscCall(VecGetOwnershipRange(G, &lo, &hi));
  PetscCall(VecGetArrayRead(user->xall, &xa));
  PetscCall(VecGetArrayWrite(G, &ga));
  for (PetscInt k = lo; k < hi; k++) {
    const PetscInt s = k / 2, c = k % 2;
    ga[k - lo]       = 2.0 * user->N * (user->momh[4 * s] * PetscRealPart(xa[k]) - user->momh[4 * s + 1 + c]);
  }
  PetscCall(VecRestoreArrayWrite(G, &ga));
  PetscCall(VecRestoreArrayRead(user->xall, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the largest distance between a site and the centroid of its cell, and the number of empty cells */
static PetscErrorCode CentroidDistance(Vec X, AppCtx *user, PetscReal *dmax, PetscInt *nempty)
{
  const PetscScalar *xa;

  PetscFunctionBeginUser;
  PetscCall(CvtSums(X, user));
  PetscCall(VecGetArrayRead(user->xall, &xa));
  *dmax   = 0;
  *nempty = 0;
  for (PetscInt s = 0; s < user->N; s++) {
    const PetscReal m = user->momh[4 * s];
    if (m <= 0) {
      (*nempty)++;
      continue;
    }
    const PetscReal dx = PetscRealPart(xa[2 * s]) - user->momh[4 * s + 1] / m, dy = PetscRealPart(xa[2 * s + 1]) - user->momh[4 * s + 2] / m;
    *dmax = PetscMax(*dmax, PetscSqrtReal(dx * dx + dy * dy));
  }
  PetscCall(VecRestoreArrayRead(user->xall, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cells in colour, sites in black (rank 0 writes; the assignment is recomputed on the host) */
static PetscErrorCode WritePPM(const char *file, AppCtx *user)
{
  const PetscScalar *xa;
  PetscMPIInt        rank;
  const PetscInt     R = user->R, N = user->N;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArrayRead(user->xall, &xa));
  std::vector<unsigned char> img((size_t)3 * R * R);
  for (PetscInt j = 0; j < R; j++)
    for (PetscInt i = 0; i < R; i++) {
      const PetscReal qx = (i + 0.5) / R, qy = (j + 0.5) / R;
      PetscReal       best = PETSC_MAX_REAL;
      PetscInt        bi   = 0;
      for (PetscInt s = 0; s < N; s++) {
        const PetscReal dx = qx - PetscRealPart(xa[2 * s]), dy = qy - PetscRealPart(xa[2 * s + 1]), d = dx * dx + dy * dy;
        if (d < best) best = d, bi = s;
      }
      unsigned char *px = &img[((size_t)(R - 1 - j) * R + i) * 3];
      px[0]             = (unsigned char)(80 + (bi * 97) % 170);
      px[1]             = (unsigned char)(80 + (bi * 57) % 170);
      px[2]             = (unsigned char)(80 + (bi * 31) % 170);
      if (best < 4.0 / ((PetscReal)R * R)) px[0] = px[1] = px[2] = 0;
    }
  PetscCall(VecRestoreArrayRead(user->xall, &xa));
  FILE *fp = fopen(file, "wb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s for writing; give -ppm a writable path", file);
  fprintf(fp, "P6\n%d %d\n255\n", (int)R, (int)R);
  fwrite(img.data(), 1, img.size(), fp);
  fclose(fp);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  AppCtx             user;
  Tao                tao;
  Vec                x, xl, xu;
  PetscInt           seed = 1, di = 1, its, lo, hi, nempty;
  PetscReal          f0, f, pg, ctol = 2e-3, pgtol = 1e-4, dmax;
  PetscBool          require = PETSC_TRUE, ppm = PETSC_FALSE;
  char               ppmfile[PETSC_MAX_PATH_LEN] = "cvt.ppm";
  PetscMPIInt        rank, size;
  TaoConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscKPRegisterAll());
  PetscCall(KokkosInitializeOnce());
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "CVT example", NULL);
  PetscCall(PetscOptionsInt("-nsites", "number of sites", NULL, user.N, &user.N, NULL));
  PetscCall(PetscOptionsInt("-res", "samples per side of the fine grid", NULL, user.R, &user.R, NULL));
  PetscCall(PetscOptionsEList("-density", "density", NULL, Densities, 2, Densities[di], &di, NULL));
  PetscCall(PetscOptionsInt("-seed", "seed of the initial sites", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsReal("-centroid_tol", "largest allowed distance between a site and its cell's centroid", NULL, ctol, &ctol, NULL));
  PetscCall(PetscOptionsReal("-pg_tol", "largest allowed projected-gradient norm at the solution", NULL, pgtol, &pgtol, NULL));
  PetscCall(PetscOptionsBool("-require_convergence", "error when the checks fail", NULL, require, &require, NULL));
  PetscCall(PetscOptionsString("-ppm", "write the tessellation as a PPM image", NULL, ppmfile, ppmfile, sizeof(ppmfile), &ppm));
  PetscOptionsEnd();
  /* the per-site sums travel in one MPI_Allreduce of 4 nsites integers; the res^2 samples are indexed by a PetscInt */
  PetscCheck(user.N >= 1 && user.N <= 100000000, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-nsites %" PetscInt_FMT " is out of range: the number of sites must be between 1 and 1e8", user.N);
  PetscCheck(user.R >= 2 && user.R <= 46340, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-res %" PetscInt_FMT " is out of range: the samples per side must be between 2 and 46340 (res^2 samples)", user.R);
  PetscCheck(user.R * user.R >= user.N, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-res %" PetscInt_FMT " gives %" PetscInt_FMT " samples for -nsites %" PetscInt_FMT ": at least %" PetscInt_FMT " Voronoi cells would contain no sample, so their sites would have no centroid to move to; use -res %" PetscInt_FMT " at the very least, better many samples per site (the defaults give 512), or fewer sites", user.R, user.R * user.R, user.N, user.N - user.R * user.R, (PetscInt)PetscCeilReal(PetscSqrtReal((PetscReal)user.N)));
  PetscCheck(!PetscIsInfOrNanReal(ctol) && ctol > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-centroid_tol %g is out of range: the largest allowed distance between a site and the centroid of its cell must be a finite number > 0", (double)ctol);
  PetscCheck(!PetscIsInfOrNanReal(pgtol) && pgtol > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-pg_tol %g is out of range: the largest allowed projected-gradient norm must be a finite number > 0", (double)pgtol);
  user.density = di;
  user.G       = PetscMax(1, (PetscInt)PetscSqrtReal((PetscReal)user.N / 2.0)); /* about two sites per bucket */
  user.r0      = (user.R * rank) / size;
  user.r1      = (user.R * (rank + 1)) / size;
  user.momh.resize(4 * user.N);
  user.momi.resize(4 * user.N);
  PetscCallCXX(user.mom = View<long long>(std::string("cvt::moments"), 4 * user.N));
  PetscCallCXX(user.bstart = View<Int>(std::string("cvt::bstart"), user.G * user.G + 1));
  PetscCallCXX(user.bsite = View<Int>(std::string("cvt::bsite"), user.N));

  /* sites (x_0, y_0, x_1, y_1, ...), uniform pseudo-random from the global index (the same on any rank count) */
  PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
  PetscCall(VecSetSizes(x, PETSC_DECIDE, 2 * user.N));
  PetscCall(VecSetFromOptions(x));
  PetscCall(VecGetOwnershipRange(x, &lo, &hi));
  {
    PetscScalar *xa;
    PetscCall(VecGetArrayWrite(x, &xa));
    for (PetscInt k = lo; k < hi; k++) {
      unsigned long long z = (unsigned long long)(k + 1) * 0x9E3779B97F4A7C15ull + (unsigned long long)seed * 0xBF58476D1CE4E5B9ull;
      z                    = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z                    = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      xa[k - lo] = (PetscReal)(z >> 11) / 9007199254740992.0;
    }
    PetscCall(VecRestoreArrayWrite(x, &xa));
  }
  PetscCall(VecScatterCreateToAll(x, &user.scat, &user.xall));
  PetscCall(VecDuplicate(x, &xl));
  PetscCall(VecDuplicate(x, &xu));
  PetscCall(VecSet(xl, 0.0));
  PetscCall(VecSet(xu, 1.0));

  PetscCall(TaoCreate(PETSC_COMM_WORLD, &tao));
  PetscCall(TaoSetType(tao, TAOLBFGSB));
  PetscCall(TaoSetSolution(tao, x));
  PetscCall(TaoSetVariableBounds(tao, xl, xu));
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, FormFunctionGradient, &user));
  PetscCall(TaoSetTolerances(tao, 1e-7, 0.0, 0.0));
  PetscCall(TaoSetMaximumIterations(tao, 1000));
  PetscCall(TaoSetFromOptions(tao));
  {
    Vec g;
    PetscCall(VecDuplicate(x, &g));
    PetscCall(FormFunctionGradient(tao, x, &f0, g, &user));
    PetscCall(VecDestroy(&g));
  }
  PetscCall(TaoSolve(tao));
  PetscCall(TaoGetSolutionStatus(tao, &its, &f, &pg, NULL, NULL, &reason));
  f0 /= user.N; /* F, not the scaled objective */
  f /= user.N;
  pg /= user.N;
  PetscCall(CentroidDistance(x, &user, &dmax, &nempty));
  PetscCall(PetscInfo(NULL, "%s after %" PetscInt_FMT " iterations, %" PetscInt_FMT " evaluations: F %.10e -> %.10e, projected gradient %g, max |site - centroid| %g\n", TaoConvergedReasons[reason], its, user.nevals, (double)f0, (double)f, (double)pg, (double)dmax));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "CVT of %" PetscInt_FMT " sites, %s density, %" PetscInt_FMT "^2 samples: energy %.2e -> %.2e\n", user.N, Densities[di], user.R, (double)f0, (double)f));
  {
    const PetscBool decreased = f < f0 ? PETSC_TRUE : PETSC_FALSE, converged = (reason > 0 && pg <= pgtol) ? PETSC_TRUE : PETSC_FALSE;
    const PetscBool central = (dmax <= ctol && nempty == 0) ? PETSC_TRUE : PETSC_FALSE;
    const PetscInt  rsuggest = PetscMax(2 * user.R, (PetscInt)PetscCeilReal(16 * PetscSqrtReal((PetscReal)user.N)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "energy decreased: %s; converged with projected gradient below %g: %s; sites within %g of their centroids: %s\n", decreased ? "yes" : "no", (double)pgtol, converged ? "yes" : "no", (double)ctol, central ? "yes" : "no"));
    PetscCheck(!require || decreased, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "The CVT energy did not decrease (%g -> %g)", (double)f0, (double)f);
    PetscCheck(!require || converged, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "lbfgsb did not converge: %s (projected gradient %g, -pg_tol %g)", TaoConvergedReasons[reason], (double)pg, (double)pgtol);
    /* a cell without a sample has no mass: its site sees no gradient and stays where it is, its centroid is undefined */
    PetscCheck(!require || nempty == 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%" PetscInt_FMT " of the %" PetscInt_FMT " Voronoi cells contain none of the %" PetscInt_FMT " x %" PetscInt_FMT " sample points at the solution: their sites have no centroid, the discrete energy does not move them, and the tessellation is not centroidal; use a finer sampling grid (e.g. -res %" PetscInt_FMT ") or fewer sites (-nsites)", nempty, user.N, user.R, user.R, PetscMin(rsuggest, 46340));
    PetscCheck(!require || central, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "A site is %g from the centroid of its cell, more than -centroid_tol %g: lbfgsb stopped before the tessellation became centroidal; tighten its tolerances (-tao_gatol, -tao_lbfgsb_factr) or loosen -centroid_tol", (double)dmax, (double)ctol);
  }
  if (ppm) PetscCall(WritePPM(ppmfile, &user));

  PetscCall(TaoDestroy(&tao));
  PetscCall(VecScatterDestroy(&user.scat));
  PetscCall(VecDestroy(&user.xall));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xl));
  PetscCall(VecDestroy(&xu));
  user.mom    = View<long long>();
  user.bstart = View<Int>();
  user.bsite  = View<Int>();
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: radial
    nsize: {{1 2 4}}
    args: -nsites 32 -res 128
    output_file: output/cvt_radial.out
    tolerance: 1e-2

  test:
    suffix: uniform
    nsize: {{1 2}}
    args: -nsites 20 -res 96 -density uniform -tao_lbfgsb_m 5
    output_file: output/cvt_uniform.out
    tolerance: 1e-2

  # options out of range, and a sampling grid too coarse for the sites: errors that name the option, its valid range
  # or what to change
  test:
    suffix: bad_pg_tol
    args: -nsites 8 -res 16 -pg_tol {{nan inf -1 0}}
    # PETSc 3.25 refuses NaN and +-Inf in PetscOptionsReal() itself (PETSc 3.18 leaves them to the example)
    expect_error: (-pg_tol \S+ is out of range: the largest allowed projected-gradient norm must be a finite number > 0|Newly set value \S+ (less|greater) than allowed bound)

  test:
    suffix: bad_centroid_tol
    args: -nsites 8 -res 16 -centroid_tol {{nan -inf -1 0}}
    # PETSc 3.25 refuses NaN and +-Inf in PetscOptionsReal() itself (PETSc 3.18 leaves them to the example)
    expect_error: (-centroid_tol \S+ is out of range: .* must be a finite number > 0|Newly set value \S+ (less|greater) than allowed bound)

  test:
    suffix: bad_nsites
    args: -res 16 -nsites {{0 200000000}}
    expect_error: -nsites \d+ is out of range: the number of sites must be between 1 and 1e8

  test:
    suffix: bad_res
    args: -nsites 8 -res {{1 50000}}
    expect_error: -res \d+ is out of range: the samples per side must be between 2 and 46340

  test:
    suffix: too_few_samples
    args: -nsites 64 -res 6
    expect_error: -res 6 gives 36 samples for -nsites 64: at least 28 Voronoi cells would contain no sample.* use -res 8 at the very least

  test:
    suffix: empty_cells
    nsize: {{1 2}}
    args: -nsites 64 -res 8
    expect_error: \d+ of the 64 Voronoi cells contain none of the 8 x 8 sample points at the solution: .* use a finer sampling grid \(e.g. -res 128\) or fewer sites

TEST*/
