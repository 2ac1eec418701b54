/*
   bench_pscr - time of one PSCR application (the kernels of PCPSCR, src/pc/pscr/pscr_kernels) on the device for the
   2D / 3D Poisson problem (n^dim unknowns), next to a cuFFT periodic Poisson solve of the same grid (n + 1 points per
   direction, the power of two when n = 2^k - 1) on the same device in the same process, when built with cuFFT.

     ./bench_pscr -dim 2 -n 4095 -radix 4 -reps 10 -o out.md

   Right-hand side: -rhs sawtooth (default: ((761 p) mod 1000) / 1000 - 0.5 at the natural index p, zero mean, little
   smooth content) or random (uniform in [0, 1), as PETSc's VecSetRandom: a nonzero mean, so the solution is
   dominated by the smoothest modes and || A || || u || ~ kappa(A) || f ||: the relative residual of any backward stable
   solve is then about eps kappa(A); see the PCPSCR man page).
   Problem: -mesh uniform (default: the 5/7-point difference Laplacian, M = I) or random (linear finite elements on a
   seeded random non-uniform tensor mesh, Dirichlet ends), -mass lumped (default for random) or consistent (Q1:
   tridiagonal M). Kernel options (defaults: what PCPSCR uses): -team 0 (no fused level kernels), -team_rows C (1, 2,
   4, 8: rows a thread of the fused kernels), -team_modes G (modes a team), -tridiag auto|team|thomas|partition|pcr
   (the stored path's tridiagonal solver), -tridiag_rows C (1, 2, 4, 8, 16: rows a thread of the team solver),
   -toeplitz 0 (the general team solver also where the last factor is interior-Toeplitz, e.g. the uniform mesh),
   -fuse_rhs 1 (the stored path's right-hand sides formed inside the team solves, not by a kernel of their own).

   Reported: eigen setup time (host), apply time (min and median over reps, device synchronised), the relative
   residual || f - A u || / || f || and the normwise backward error || f - A u || / (|| A ||_inf || u ||), Mdof/s, the
   modelled global-memory traffic of one application of the kernels taken (pscr::ModelBytes: every kernel's reads and
   writes of the data, stored solutions and work vectors once), its bandwidth and its fraction of the measured
   device-to-device copy bandwidth, and which level kernels ran (pscr::LevelPath).
   cuFFT: forward D2Z, division by the eigenvalues of the periodic Laplacian, inverse Z2D (min and median).

   -summary pscr|cufft also prints one line 'SUMMARY setup_s=.. solve_s=.. total_s=.. ..' for PSCR (setup: the host
   eigen setup; solve: the fastest application; first_s: the first application, which allocates the workspaces and is
   not in total_s; relres and the backward error) or for the cuFFT solve (setup: the two plans; solve: the fastest
   solve; grid: its points per direction, -fft_n), which bench/run_all.py reads.
*/
#include <petscsys.h>
#include <petsckp.h>
#include <algorithm>
#include <chrono>
#include <cstring>
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

/* the factors on the device: sub, main and super diagonals of A and M */
struct DevFactor {
  View<Real> al, ad, au, ml, md, mu;
};

static DevFactor ToDev(const pscr::Factor &F)
{
  const Int         n = F.n();
  std::vector<Real> h[6];
  for (auto &v : h) v.assign(n, 0);
  for (Int i = 0; i < n; i++) {
    h[1][i] = F.ad[i];
    h[4][i] = F.md.empty() ? 1 : F.md[i];
    if (i + 1 < n) h[2][i] = h[0][i + 1] = F.ao[i];
    if (i + 1 < n && !F.mo.empty()) h[5][i] = h[3][i + 1] = F.mo[i];
  }
  View<Real> v[6];
  for (int k = 0; k < 6; k++) {
    v[k] = View<Real>("bench factor", n);
    Kokkos::deep_copy(v[k], HostUView<Real>(h[k].data(), n));
  }
  return {v[0], v[1], v[2], v[3], v[4], v[5]};
}

KOKKOS_INLINE_FUNCTION Real Entry(const View<Real> &l, const View<Real> &d, const View<Real> &u, Int i, int o) { return o < 0 ? l(i) : (o > 0 ? u(i) : d(i)); }

/* || f - A u || / || f || and the normwise backward error || f - A u || / (|| A ||_inf || u ||) for
   A = sum_d M_1 (x) .. A_d .. (x) M_dim (natural ordering, the last index fastest) */
static double Residual(Int dim, Int n, const DevFactor *F, const View<Scalar> &u, const View<Scalar> &f, double *backward)
{
  const Int       N = dim == 2 ? n * n : n * n * n;
  const DevFactor F0 = F[0], F1 = F[1], F2 = F[dim == 3 ? 2 : 1];
  double          r2 = 0, f2 = 0, u2 = 0, amax = 0;
  Kokkos::parallel_reduce(
    "bench::PscrResidual", range(N),
    KOKKOS_LAMBDA(Int p, double &a, double &m) {
      const Int c[3] = {dim == 3 ? p / (n * n) : p / n, dim == 3 ? (p / n) % n : p % n, p % n};
      Scalar    y = 0;
      double    rs = 0;
      for (int o0 = -1; o0 <= 1; o0++)
        for (int o1 = -1; o1 <= 1; o1++)
          for (int o2 = -1; o2 <= 1; o2++) {
            if (dim == 2 && o2) continue;
            const int o[3] = {o0, o1, o2};
            bool      ok   = true;
            for (Int d = 0; d < dim; d++) ok = ok && c[d] + o[d] >= 0 && c[d] + o[d] < n;
            if (!ok) continue;
            const DevFactor *G[3] = {&F0, &F1, &F2};
            Real             coef = 0;
            for (Int d = 0; d < dim; d++) {
              Real t = Entry(G[d]->al, G[d]->ad, G[d]->au, c[d], o[d]);
              for (Int e = 0; e < dim; e++)
                if (e != d) t *= Entry(G[e]->ml, G[e]->md, G[e]->mu, c[e], o[e]);
              coef += t;
            }
            const Int q = dim == 3 ? ((c[0] + o0) * n + c[1] + o1) * n + c[2] + o2 : (c[0] + o0) * n + c[1] + o1;
            y += coef * u(q);
            rs += coef < 0 ? -coef : coef;
          }
      const double e = (double)(y - f(p));
      a += e * e;
      if (rs > m) m = rs;
    },
    r2, Kokkos::Max<double>(amax));
  Kokkos::parallel_reduce(
    "bench::PscrRhsNorm", range(N), KOKKOS_LAMBDA(Int p, double &b) { b += (double)f(p) * (double)f(p); }, f2);
  Kokkos::parallel_reduce(
    "bench::PscrSolNorm", range(N), KOKKOS_LAMBDA(Int p, double &b) { b += (double)u(p) * (double)u(p); }, u2);
  *backward = std::sqrt(r2) / (amax * std::sqrt(u2));
  return std::sqrt(r2 / f2);
}

/* 1D factors: the difference Laplacian (uniform, M = I), or linear finite elements on a seeded random mesh with
   lumped or consistent mass (Dirichlet ends) */
static pscr::Factor Make1D(Int n, bool random, bool lumped, bool consistent, unsigned seed)
{
  pscr::Factor      F;
  std::vector<Real> h(n + 1, 1.0 / (n + 1));
  if (random) {
    unsigned x = seed * 2654435761u + 12345u;
    for (auto &v : h) {
      x = x * 1664525u + 1013904223u;
      v = (0.5 + (x >> 8) / 16777216.0) / (n + 1);
    }
  }
  F.ad.assign(n, 0);
  F.ao.assign(n - 1, 0);
  if (!random && !lumped && !consistent) {
    F.ad.assign(n, 2.0);
    F.ao.assign(n - 1, -1.0);
    return F;
  }
  F.md.assign(n, 0);
  for (Int i = 0; i < n; i++) {
    F.ad[i] = 1 / h[i] + 1 / h[i + 1];
    F.md[i] = (h[i] + h[i + 1]) / (consistent ? 3 : 2);
    if (i + 1 < n) F.ao[i] = -1 / h[i + 1];
  }
  if (consistent) {
    F.mo.assign(n - 1, 0);
    for (Int i = 0; i + 1 < n; i++) F.mo[i] = h[i + 1] / 6;
  }
  return F;
}

#if defined(PETSCKP_BENCH_CUFFT)
/* periodic Poisson -lap u = f on m^dim points (zero-mean f): D2Z, divide by the eigenvalues, Z2D; returns the times */
static void CufftPoisson(Int dim, Int m, Int reps, double &tplan, double &tmin, double &tmed, std::string &err)
{
  const Int      N = dim == 2 ? m * m : m * m * m, Nc = (dim == 2 ? m : m * m) * (m / 2 + 1);
  View<double>   x("fft x", N);
  View<double>   c("fft c", 2 * Nc);
  cufftHandle    pf, pb;
  std::vector<double> t;
  Kokkos::parallel_for(
    "bench::FftInit", range(N), KOKKOS_LAMBDA(Int p) { x(p) = (double)((p * 2654435761u) % 1000) / 1000.0 - 0.5; });
  int          nn[3] = {(int)m, (int)m, (int)m};
  const double tp0   = Now();
  if (cufftPlanMany(&pf, (int)dim, nn, NULL, 1, 0, NULL, 1, 0, CUFFT_D2Z, 1) != CUFFT_SUCCESS || cufftPlanMany(&pb, (int)dim, nn, NULL, 1, 0, NULL, 1, 0, CUFFT_Z2D, 1) != CUFFT_SUCCESS) {
    err = "cufftPlanMany failed";
    return;
  }
  cufftSetStream(pf, exec().cuda_stream());
  cufftSetStream(pb, exec().cuda_stream());
  tplan          = Now() - tp0;
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
  PetscInt  dim = 2, n = 255, q = 4, reps = 10, fftn = -1, team = 1, team_rows = 0, team_modes = 0, tridiag_rows = -1, toeplitz = 1, fuse_rhs = 0;
  char      out[PETSC_MAX_PATH_LEN] = "", mesh[32] = "uniform", mass[32] = "", tridiag[32] = "auto", rhs[32] = "sawtooth", summary[32] = "";
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
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mesh", mesh, sizeof(mesh), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mass", mass, sizeof(mass), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-tridiag", tridiag, sizeof(tridiag), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-rhs", rhs, sizeof(rhs), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-team", &team, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-team_rows", &team_rows, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-team_modes", &team_modes, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-tridiag_rows", &tridiag_rows, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-toeplitz", &toeplitz, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-fuse_rhs", &fuse_rhs, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-summary", summary, sizeof(summary), &flg));
  PetscCheck(!flg || !strcmp(summary, "pscr") || !strcmp(summary, "cufft"), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-summary %s: use pscr or cufft", summary);
#if !defined(PETSCKP_BENCH_CUFFT)
  PetscCheck(strcmp(summary, "cufft"), PETSC_COMM_WORLD, PETSC_ERR_SUP, "-summary cufft: this bench_pscr was built without cuFFT (a CUDA build has it)");
#endif
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim %" PetscInt_FMT ": give 2 or 3", dim);
  PetscCheck(n >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n %" PetscInt_FMT ": give n >= 1", n);
  if (fftn < 0) fftn = ((n + 1) & n) == 0 ? n + 1 : n;
  reps = std::max<PetscInt>(reps, 1); /* the first application (workspace allocation) is not timed */
  {
    const std::string         smesh(mesh), smass(mass), stri(tridiag);
    const bool                random = smesh == "random", consistent = smass == "consistent", lumped = smass == "lumped" || (random && !consistent);
    std::vector<pscr::Factor> F(dim);
    for (Int d = 0; d < dim; d++) F[d] = Make1D(n, random, lumped, consistent, 7 + (unsigned)d);
    pscr::Solver S;
    double       t0  = Now();
    std::string  e   = pscr::Setup(F, q, S);
    double       tsu = Now() - t0;
    PetscCheck(e.empty(), PETSC_COMM_WORLD, PETSC_ERR_LIB, "PSCR setup: %s", e.c_str());
    S.team             = team != 0;
    S.team_rows        = team_rows;
    S.team_modes       = team_modes;
    S.topt.team_rows   = tridiag_rows;
    S.toeplitz         = toeplitz != 0;
    S.fuse_rhs         = fuse_rhs != 0;
    S.topt.alg         = stri == "team" ? TridiagAlgorithm::Team : stri == "thomas" ? TridiagAlgorithm::Thomas : stri == "partition" ? TridiagAlgorithm::Partition : stri == "pcr" ? TridiagAlgorithm::PCRThomas : TridiagAlgorithm::Auto;
    DevFactor DF[3];
    for (Int d = 0; d < dim; d++) DF[d] = ToDev(F[d]);
    const Int    N = dim == 2 ? n * n : n * n * n;
    View<Scalar> f("f", N), u("u", N), cp("copy", N);
    const bool   rnd = std::string(rhs) == "random";
    Kokkos::parallel_for(
      "bench::Rhs", range(N), KOKKOS_LAMBDA(Int p) {
        if (rnd) { /* a 64-bit mixing hash of p, uniform in [0, 1) */
          uint64_t z = (uint64_t)p + 0x9e3779b97f4a7c15ull;
          z          = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
          z          = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
          f(p)       = (Scalar)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
        } else f(p) = (Scalar)((p * 2654435761u) % 1000) / 1000.0 - 0.5;
      });
    std::vector<double> t;
    Int                 nf     = 0;
    double              tfirst = 0;
    for (Int r = 0; r <= reps; r++) {
      Kokkos::deep_copy(exec(), u, f);
      const double a = Now();
      nf += pscr::Apply(S, 0.0, UView<Scalar>(u.data(), N));
      const double b = Now();
      if (r) t.push_back(b - a); /* the first application allocates the workspaces */
      else tfirst = b - a;
    }
    double       bwd = 0;
    const double res = Residual(dim, n, DF, u, f, &bwd);
    /* device-to-device copy bandwidth (read + write) */
    std::vector<double> tc;
    for (Int r = 0; r < 5; r++) {
      const double a = Now();
      Kokkos::deep_copy(exec(), cp, f);
      tc.push_back(Now() - a);
    }
    const double bwcopy = 16.0 * N / *std::min_element(tc.begin(), tc.end());
    const double tmin = *std::min_element(t.begin(), t.end()), tmed = Median(t);
    const double bytes = pscr::ModelBytes(S), bw = bytes / tmin;
    char         line[2048];
    double       fplan = 0, fmin = 0, fmed = 0;
    std::string  ferr = "not built with cuFFT";
#if defined(PETSCKP_BENCH_CUFFT)
    ferr = "";
    CufftPoisson(dim, fftn, reps, fplan, fmin, fmed, ferr);
#endif
    std::string problem = smesh + (smass.empty() ? "" : ", " + smass + " M");
    if (rnd) problem += ", random f";
    if (!team) problem += ", -team 0";
    if (!toeplitz) problem += ", -toeplitz 0";
    if (fuse_rhs) problem += ", -fuse_rhs 1";
    if (team_rows) problem += ", -team_rows " + std::to_string(team_rows);
    if (team_modes) problem += ", -team_modes " + std::to_string(team_modes);
    if (stri != "auto") problem += ", -tridiag " + stri;
    if (tridiag_rows > 0) problem += ", -tridiag_rows " + std::to_string(tridiag_rows);
    const std::string fft     = ferr.empty() ? std::to_string(fftn) + "^" + std::to_string(dim) + ": " + std::to_string(1e3 * fmin).substr(0, 6) + " / " + std::to_string(1e3 * fmed).substr(0, 6) : ferr;
    PetscCall(PetscSNPrintf(line, sizeof(line), "| %" PetscInt_FMT "D | %" PetscInt_FMT " | %" PetscInt_FMT " | %" PetscInt_FMT " | %s | %.3f | %.3f | %.3f | %.1e / %.1e | %.0f | %.2f | %.0f | %.0f | %.2f | %s | %s | %s |\n", dim, n, q, S.plan[0].k, problem.c_str(), tsu, 1e3 * tmin, 1e3 * tmed, res, bwd, N / tmin / 1e6, bytes / 1e9, bw / 1e9, bwcopy / 1e9, bw / bwcopy, fft.c_str(), ferr.empty() ? std::to_string(tmin / fmin).substr(0, 5).c_str() : "-", pscr::LevelPath(S).c_str()));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s", line));
    if (nf) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "WARNING: %" PetscInt_FMT " failed shifted solves\n", nf));
    /* a direct solve: a backward error above 1e-10 (rounding gives about 1e-16) is a wrong answer */
    if (!strcmp(summary, "pscr")) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "SUMMARY setup_s=%.6g solve_s=%.6g total_s=%.6g first_s=%.6g relres=%.3g backward=%.3g reason=%s\n", tsu, tmin, tsu + tmin, tfirst, res, bwd, nf ? "DIVERGED_SHIFTED_SOLVE" : !(bwd <= 1e-10) ? "DIVERGED_INACCURATE" : "CONVERGED"));
    if (!strcmp(summary, "cufft")) {
      PetscCheck(ferr.empty(), PETSC_COMM_WORLD, PETSC_ERR_SUP, "-summary cufft: %s", ferr.c_str());
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "SUMMARY setup_s=%.6g solve_s=%.6g total_s=%.6g grid=%" PetscInt_FMT "\n", fplan, fmin, fplan + fmin, fftn));
    }
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
