/*
   bench_pscr - time of one PSCR application (the kernels of PCPSCR, src/pc/pscr/pscr_kernels) on the device for the
   2D / 3D Poisson problem (5/7-point, Dirichlet, n^dim unknowns), next to a cuFFT periodic Poisson solve of the same
   grid (n + 1 points per direction, the power of two when n = 2^k - 1) on the same device in the same process, when
   built with cuFFT.

     ./bench_pscr -dim 2 -n 4095 -radix 4 -reps 10 -o out.md

   Reported: eigen setup time (host), apply time (min and median over reps, device synchronised), the relative
   residual || f - A u || / || f || and the normwise backward error || f - A u || / (|| A ||_inf || u ||), Mdof/s, an effective bandwidth from a traffic model (per level the solutions y
   of the shifted solves are written once and read once by the weighted sums: 2 x 8 bytes per entry, the minimum
   of any implementation that stores them; the right-hand sides are formed inside the solves) and its fraction of
   the measured device-to-device copy bandwidth.
   cuFFT: forward D2Z, division by the eigenvalues of the periodic Laplacian, inverse Z2D (min and median).
*/
#include <petscsys.h>
#include <petsckp.h>
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>
#include "kp_kokkos.hpp"
#include "pc/pscr/pscr_kernels.hpp"
#if defined(PETSCKP_BENCH_CUFFT)
  #include <cufft.h>
#endif

using namespace petsckp;

static double Now()
{
  Kokkos::fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double Median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/* || f - A u || / || f || and the normwise backward error || f - A u || / (|| A ||_inf || u ||) for the FD Laplacian
   tridiag(-1, 2, -1) in every direction (natural ordering, x fastest) */
static double Residual(Int dim, Int n, const View<Scalar> &u, const View<Scalar> &f, double *backward)
{
  const Int N = dim == 2 ? n * n : n * n * n;
  double    r2 = 0, f2 = 0;
  Kokkos::parallel_reduce(
    "bench::PscrResidual", range(N),
    KOKKOS_LAMBDA(Int p, double &a) {
      Int    c[3] = {p % n, (p / n) % n, dim == 3 ? p / (n * n) : 0}, st[3] = {1, n, n * n};
      Scalar y    = 0;
      for (Int d = 0; d < dim; d++) {
        y += 2 * u(p);
        if (c[d] > 0) y -= u(p - st[d]);
        if (c[d] < n - 1) y -= u(p + st[d]);
      }
      const double e = (double)(y - f(p));
      a += e * e;
    },
    r2);
  Kokkos::parallel_reduce(
    "bench::PscrRhsNorm", range(N), KOKKOS_LAMBDA(Int p, double &b) { b += (double)f(p) * (double)f(p); }, f2);
  double u2 = 0;
  Kokkos::parallel_reduce(
    "bench::PscrSolNorm", range(N), KOKKOS_LAMBDA(Int p, double &b) { b += (double)u(p) * (double)u(p); }, u2);
  *backward = std::sqrt(r2) / (4.0 * dim * std::sqrt(u2));
  return std::sqrt(r2 / f2);
}

#if defined(PETSCKP_BENCH_CUFFT)
/* periodic Poisson -lap u = f on m^dim points (zero-mean f): D2Z, divide by the eigenvalues, Z2D; returns the times */
static void CufftPoisson(Int dim, Int m, Int reps, double &tmin, double &tmed, std::string &err)
{
  const Int      N = dim == 2 ? m * m : m * m * m, Nc = (dim == 2 ? m : m * m) * (m / 2 + 1);
  View<double>   x("fft x", N);
  View<double>   c("fft c", 2 * Nc);
  cufftHandle    pf, pb;
  std::vector<double> t;
  Kokkos::parallel_for(
    "bench::FftInit", range(N), KOKKOS_LAMBDA(Int p) { x(p) = (double)((p * 2654435761u) % 1000) / 1000.0 - 0.5; });
  int nn[3] = {(int)m, (int)m, (int)m};
  if (cufftPlanMany(&pf, (int)dim, nn, NULL, 1, 0, NULL, 1, 0, CUFFT_D2Z, 1) != CUFFT_SUCCESS || cufftPlanMany(&pb, (int)dim, nn, NULL, 1, 0, NULL, 1, 0, CUFFT_Z2D, 1) != CUFFT_SUCCESS) {
    err = "cufftPlanMany failed";
    return;
  }
  cufftSetStream(pf, exec().cuda_stream());
  cufftSetStream(pb, exec().cuda_stream());
  const Int    mh = m / 2 + 1;
  const double pi = 3.14159265358979323846;
  for (Int r = 0; r <= reps; r++) {
    const double t0 = Now();
    cufftExecD2Z(pf, (cufftDoubleReal *)x.data(), (cufftDoubleComplex *)c.data());
    Kokkos::parallel_for(
      "bench::FftScale", range(Nc), KOKKOS_LAMBDA(Int p) {
        const Int k0 = p % mh, k1 = (p / mh) % m, k2 = dim == 3 ? p / (mh * m) : 0;
        const double s0 = Kokkos::sin(pi * k0 / m), s1 = Kokkos::sin(pi * k1 / m), s2 = Kokkos::sin(pi * k2 / m);
        double       lam = 4 * s0 * s0 + 4 * s1 * s1 + (dim == 3 ? 4 * s2 * s2 : 0.0);
        double    s   = lam > 0 ? 1.0 / (lam * (double)N) : 0.0;
        c(2 * p) *= s;
        c(2 * p + 1) *= s;
      });
    cufftExecZ2D(pb, (cufftDoubleComplex *)c.data(), (cufftDoubleReal *)x.data());
    const double t1 = Now();
    if (r) t.push_back(t1 - t0);
  }
  cufftDestroy(pf);
  cufftDestroy(pb);
  tmin = *std::min_element(t.begin(), t.end());
  tmed = Median(t);
}
#endif

int main(int argc, char **argv)
{
  PetscInt  dim = 2, n = 255, q = 4, reps = 10, fftn = -1;
  char      out[PETSC_MAX_PATH_LEN] = "";
  PetscBool flg;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscKPRegisterAll());
  PetscCall(KokkosInitializeOnce());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-radix", &q, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-fft_n", &fftn, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", out, sizeof(out), &flg));
  if (fftn < 0) fftn = ((n + 1) & n) == 0 ? n + 1 : n;
  {
    std::vector<pscr::Factor> F(dim);
    for (auto &f : F) {
      f.ad.assign(n, 2.0);
      f.ao.assign(n - 1, -1.0);
    }
    pscr::Solver S;
    double       t0  = Now();
    std::string  e   = pscr::Setup(F, q, S);
    double       tsu = Now() - t0;
    PetscCheck(e.empty(), PETSC_COMM_WORLD, PETSC_ERR_LIB, "PSCR setup: %s", e.c_str());
    const Int    N = dim == 2 ? n * n : n * n * n;
    View<Scalar> f("f", N), u("u", N), cp("copy", N);
    Kokkos::parallel_for(
      "bench::Rhs", range(N), KOKKOS_LAMBDA(Int p) { f(p) = (Scalar)((p * 2654435761u) % 1000) / 1000.0 - 0.5; });
    std::vector<double> t;
    Int                 nf = 0;
    for (Int r = 0; r <= reps; r++) {
      Kokkos::deep_copy(exec(), u, f);
      const double a = Now();
      nf += pscr::Apply(S, 0.0, UView<Scalar>(u.data(), N));
      const double b = Now();
      if (r) t.push_back(b - a); /* the first application allocates the workspaces */
    }
    double       bwd = 0;
    const double res = Residual(dim, n, u, f, &bwd);
    /* device-to-device copy bandwidth (read + write) */
    std::vector<double> tc;
    for (Int r = 0; r < 5; r++) {
      const double a = Now();
      Kokkos::deep_copy(exec(), cp, f);
      tc.push_back(Now() - a);
    }
    const double bwcopy = 16.0 * N / *std::min_element(tc.begin(), tc.end());
    /* traffic model: 2 passes of 8 bytes over the solutions of every level (see the header) */
    double Gentries = 0;
    {
      Int L = 1;
      for (Int d = 1; d < dim; d++) L *= n;
      const auto &P = S.plan[0];
      for (Int i = 1; i <= P.k; i++) Gentries += (double)P.levels[i - 1].nmodes * L * (i < P.k ? 2 : 1);
      if (dim == 3) {
        /* every outer level's solves are 2D PSCR problems: each of those passes its G through the inner levels */
        double inner = 0;
        for (Int i = 1; i <= S.plan[1].k; i++) inner += (double)S.plan[1].levels[i - 1].nmodes * n * (i < S.plan[1].k ? 2 : 1) / ((double)n * n);
        Gentries *= 1 + inner;
      }
    }
    const double tmin = *std::min_element(t.begin(), t.end()), tmed = Median(t);
    const double bw   = 16.0 * Gentries / tmin;
    char         line[2048];
    double       fmin = 0, fmed = 0;
    std::string  ferr = "not built with cuFFT";
#if defined(PETSCKP_BENCH_CUFFT)
    ferr = "";
    CufftPoisson(dim, fftn, reps, fmin, fmed, ferr);
#endif
    PetscCall(PetscSNPrintf(line, sizeof(line), "| %" PetscInt_FMT "D | %" PetscInt_FMT " | %" PetscInt_FMT " | %" PetscInt_FMT " | %.3f | %.3f | %.3f | %.1e / %.1e | %.0f | %.0f | %.0f | %.2f | %s | %s |\n", dim, n, q, S.plan[0].k, tsu, 1e3 * tmin, 1e3 * tmed, res, bwd, N / tmin / 1e6, bw / 1e9, bwcopy / 1e9, bw / bwcopy,
                            ferr.empty() ? (std::to_string(fftn) + "^" + std::to_string(dim) + ": " + std::to_string(1e3 * fmin).substr(0, 6) + " / " + std::to_string(1e3 * fmed).substr(0, 6)).c_str() : ferr.c_str(), ferr.empty() ? std::to_string(tmin / fmin).substr(0, 5).c_str() : "-"));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s", line));
    if (nf) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "WARNING: %" PetscInt_FMT " failed shifted solves\n", nf));
    if (out[0]) {
      FILE *fp;
      PetscCall(PetscFOpen(PETSC_COMM_WORLD, out, "a", &fp));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "%s", line));
      PetscCall(PetscFClose(PETSC_COMM_WORLD, fp));
    }
  }
  PetscCall(PetscFinalize());
  return 0;
}
