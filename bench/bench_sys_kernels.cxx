/*
   bench_sys_kernels - times of the shared-layer kernels kp_colour, kp_galerkin and kp_tridiag on the device, next to
   PETSc's anchors where PETSc has one:
   - graph colouring of the 7-point 3D Laplacian (n^3 rows): GraphColour vs PETSc's MatColoring (jp, distance 1),
   - aggregation Galerkin product with 2x2x2 aggregates: GalerkinAggregate (symbolic + numeric) and
     GalerkinAggregateNumeric vs MatPtAP (MAT_INITIAL_MATRIX / MAT_REUSE_MATRIX) with the Boolean P as a Mat of
     the -mat_type given (aijcusparse on the GPU); the two coarse matrices are compared,
   - batched shifted tridiagonal solves (A + s_j M) x_j = f_j (1D FE stiffness + mass, what PSCR solves): Thomas in
     interleaved and contiguous layouts for many systems, Thomas and PCR-Thomas for few long systems; effective
     bandwidth against a device-to-device copy (16 bytes per unknown: f read, x written).

     ./bench_sys_kernels -n 128 -tri_n 512 -tri_nsys 65536 -reps 10 -mat_type aijcusparse -vec_type cuda -o out.md

   One MPI rank (the kernels are rank-local).
*/
#include <petscmat.h>
#include <petsckp.h>
#include <chrono>
#include <vector>
#include "kp_colour.hpp"
#include "kp_galerkin.hpp"
#include "kp_tridiag.hpp"
#include "kp_segsort.hpp"

using namespace petsckp;

static double Now()
{
  Kokkos::fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* max |(A + s M) x - f| over all systems (interleaved or contiguous) */
static double TridiagResidual(const TridiagShape &sh, const View<Scalar> &al, const View<Scalar> &ad, const View<Scalar> &au, const View<Scalar> &ml, const View<Scalar> &md, const View<Scalar> &mu, const View<Scalar> &shift, const View<Scalar> &f, const View<Scalar> &x)
{
  double    r = 0;
  const Int n = sh.n, nsys = sh.nsys;
  const auto s2 = sh;
  Kokkos::parallel_reduce(
    "bench::TridiagResidual", range(sh.size()),
    KOKKOS_LAMBDA(Int p, double &m) {
      const bool   il = s2.layout == TridiagLayout::Interleaved;
      const Int    s = il ? p % nsys : p / n, l = il ? p / nsys : p % n;
      const Scalar t = shift(s);
      Scalar       v = (ad(l) + t * md(l)) * x(p) - f(p);
      if (l > 0) v += (al(l) + t * ml(l)) * x(s2.index(s, l - 1));
      if (l < n - 1) v += (au(l) + t * mu(l)) * x(s2.index(s, l + 1));
      const double a = v < 0 ? -v : v;
      m              = a > m ? a : m;
    },
    Kokkos::Max<double>(r));
  return r;
}

int main(int argc, char **argv)
{
  PetscInt    n = 64, reps = 5, trin = 512, trinsys = 16384, m, N, nc, nfine;
  char        out[PETSC_MAX_PATH_LEN] = "", ver[256], mtype[64] = MATAIJ;
  PetscMPIInt size;
  std::string table;
  char        row[1024];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscKPRegisterAll());
  PetscCall(KokkosInitializeOnce());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "bench_sys_kernels runs on one rank (the kernels are rank-local)");
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-tri_n", &trin, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-tri_nsys", &trinsys, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", out, sizeof(out), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", mtype, sizeof(mtype), NULL));
  PetscCheck(n % 2 == 0 && n >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n must be even (2x2x2 aggregates)");
  PetscCall(PetscKPGetVersion(ver, sizeof(ver)));
  table += std::string(ver) + "\n\n";

  /* the 7-point Laplacian on n^3, host CSR */
  m = n * n * n;
  std::vector<Int>    rp(1, 0), ci;
  std::vector<Scalar> va;
  for (Int k = 0; k < n; k++)
    for (Int j = 0; j < n; j++)
      for (Int i = 0; i < n; i++) {
        const Int p = i + n * (j + n * k);
        if (k > 0) ci.push_back(p - n * n), va.push_back(-1);
        if (j > 0) ci.push_back(p - n), va.push_back(-1);
        if (i > 0) ci.push_back(p - 1), va.push_back(-1);
        ci.push_back(p), va.push_back(6);
        if (i < n - 1) ci.push_back(p + 1), va.push_back(-1);
        if (j < n - 1) ci.push_back(p + n), va.push_back(-1);
        if (k < n - 1) ci.push_back(p + n * n), va.push_back(-1);
        rp.push_back((Int)ci.size());
      }
  CsrMatrix A;
  {
    View<Int>    drp("rp", rp.size()), dci("ci", ci.size());
    View<Scalar> dva("va", va.size());
    Kokkos::deep_copy(drp, HostUView<Int>(rp.data(), rp.size()));
    Kokkos::deep_copy(dci, HostUView<Int>(ci.data(), ci.size()));
    Kokkos::deep_copy(dva, HostUView<Scalar>(va.data(), va.size()));
    CsrFromArrays(m, m, ucv(drp), ucv(dci), ucv(dva), A);
  }
  Mat PA, PP, PC = NULL;
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, m, m, rp.data(), ci.data(), va.data(), &PA)); /* host copy for MatColoring */

  /* 1. colouring */
  {
    View<Int> colour("colour", m);
    Int       ncol = 0;
    double    t    = Now();
    for (PetscInt r = 0; r < reps; r++) ncol = GraphColour(A.nrows, ucv(A.rowptr), ucv(A.colidx), uv(colour));
    const double tkp = (Now() - t) / reps;
    PetscCheck(GraphColourCheck(A.nrows, ucv(A.rowptr), ucv(A.colidx), ucv(colour), ncol) == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "invalid colouring");
    ColourPartition part;
    t = Now();
    ColourPartitionCreate(m, ucv(colour), ncol, part);
    const double tpart = Now() - t;
    MatColoring  mc;
    ISColoring   isc;
    PetscInt     pnc;
    t = Now();
    PetscCall(MatColoringCreate(PA, &mc));
    PetscCall(MatColoringSetType(mc, MATCOLORINGJP));
    PetscCall(MatColoringSetDistance(mc, 1));
    PetscCall(MatColoringApply(mc, &isc));
    const double tpetsc = Now() - t;
    PetscCall(ISColoringGetColors(isc, NULL, &pnc, NULL));
    PetscCall(ISColoringDestroy(&isc));
    PetscCall(MatColoringDestroy(&mc));
    PetscCall(PetscSNPrintf(row, sizeof(row), "| colouring 7-pt %" PetscInt_FMT "^3 | GraphColour %.2f ms, %" PetscInt_FMT " colours (+ partition %.2f ms) | PETSc MatColoring jp (host) %.2f ms, %" PetscInt_FMT " colours |\n", n, tkp * 1e3, ncol, tpart * 1e3, tpetsc * 1e3, pnc));
    table += "| kernel | petsckp | PETSc anchor |\n|---|---|---|\n";
    table += row;
  }

  /* 2. Galerkin product with 2x2x2 aggregates */
  {
    const Int        h = n / 2;
    std::vector<Int> agg(m);
    for (Int k = 0; k < n; k++)
      for (Int j = 0; j < n; j++)
        for (Int i = 0; i < n; i++) agg[i + n * (j + n * k)] = i / 2 + h * (j / 2 + h * (k / 2));
    nc = h * h * h;
    View<Int> dagg("agg", m);
    Kokkos::deep_copy(dagg, HostUView<Int>(agg.data(), m));
    Aggregation P;
    CsrMatrix   Ac;
    GalerkinMap map;
    double      t = Now();
    AggregationCreate(m, nc, ucv(dagg), P);
    GalerkinAggregate(A, P, P, Ac, map);
    const double tsym = Now() - t;
    t                 = Now();
    for (PetscInt r = 0; r < reps; r++) GalerkinAggregateNumeric(ucv(A.vals), map, Ac);
    const double tnum = (Now() - t) / reps;
    /* PETSc: A and P of -mat_type, MatPtAP */
    Mat AA;
    PetscCall(MatConvert(PA, mtype, MAT_INITIAL_MATRIX, &AA));
    PetscCall(MatCreate(PETSC_COMM_SELF, &PP));
    PetscCall(MatSetSizes(PP, m, nc, m, nc));
    PetscCall(MatSetType(PP, mtype));
    PetscCall(MatSeqAIJSetPreallocation(PP, 1, NULL));
    for (Int i = 0; i < m; i++) PetscCall(MatSetValue(PP, i, agg[i], 1.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(PP, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(PP, MAT_FINAL_ASSEMBLY));
    t = Now();
    PetscCall(MatPtAP(AA, PP, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &PC));
    const double tptap = Now() - t;
    t                  = Now();
    for (PetscInt r = 0; r < reps; r++) PetscCall(MatPtAP(AA, PP, MAT_REUSE_MATRIX, PETSC_DEFAULT, &PC));
    const double tptap2 = (Now() - t) / reps;
    /* compare: Ac xc against PtAP xc */
    Vec          xc, yc;
    PetscReal    err, nrm;
    PetscCall(MatCreateVecs(PC, &xc, &yc));
    PetscCall(VecSetRandom(xc, NULL));
    PetscCall(MatMult(PC, xc, yc));
    {
      std::vector<Scalar> hx(nc), hy(nc);
      const PetscScalar  *a;
      PetscCall(VecGetArrayRead(xc, &a));
      for (Int i = 0; i < nc; i++) hx[i] = a[i];
      PetscCall(VecRestoreArrayRead(xc, &a));
      View<Scalar> dx("x", nc), dy("y", nc);
      Kokkos::deep_copy(dx, HostUView<Scalar>(hx.data(), nc));
      Spmv(Ac, 1.0, ucv(dx), 0.0, uv(dy));
      Kokkos::deep_copy(HostUView<Scalar>(hy.data(), nc), dy);
      PetscScalar *b;
      PetscCall(VecGetArray(yc, &b));
      err = 0;
      nrm = 0;
      for (Int i = 0; i < nc; i++) {
        err = PetscMax(err, PetscAbsScalar(b[i] - hy[i]));
        nrm = PetscMax(nrm, PetscAbsScalar(b[i]));
      }
      PetscCall(VecRestoreArray(yc, &b));
    }
    PetscCheck(err <= 1e-12 * nrm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Galerkin product differs from MatPtAP: %g", (double)err);
    PetscCall(PetscSNPrintf(row, sizeof(row), "| Galerkin 2x2x2 aggregates, %" PetscInt_FMT "^3 -> %" PetscInt_FMT "^3 (%" PetscInt_FMT " coarse nnz) | symbolic+numeric %.2f ms, numeric %.3f ms | MatPtAP %s initial %.2f ms, reuse %.3f ms |\n", n, h, Ac.nnz, tsym * 1e3, tnum * 1e3, mtype, tptap * 1e3, tptap2 * 1e3));
    table += row;
    PetscCall(VecDestroy(&xc));
    PetscCall(VecDestroy(&yc));
    PetscCall(MatDestroy(&AA));
    PetscCall(MatDestroy(&PP));
    PetscCall(MatDestroy(&PC));
  }
  PetscCall(MatDestroy(&PA));

  /* 3. tridiagonal solves */
  {
    table += "\n| tridiagonal (A + s M) x = f | systems x rows | ms | Munknowns/s | GB/s (16 B/unknown) | % of copy | max residual |\n|---|---|---|---|---|---|---|\n";
    struct Case {
      const char      *name;
      Int              nsys, n;
      TridiagLayout    lay;
      TridiagAlgorithm alg;
    };
    const Int            big = trinsys * trin / 64;
    std::vector<Case> cases = {
      {"Thomas, interleaved", trinsys, trin, TridiagLayout::Interleaved, TridiagAlgorithm::Thomas},
      {"Thomas, contiguous", trinsys, trin, TridiagLayout::Contiguous, TridiagAlgorithm::Thomas},
      {"Auto, 64 long systems, contiguous", 64, big, TridiagLayout::Contiguous, TridiagAlgorithm::Auto},
      {"Thomas, 64 long systems, contiguous", 64, big, TridiagLayout::Contiguous, TridiagAlgorithm::Thomas},
      {"Auto, 64 long systems, interleaved", 64, big, TridiagLayout::Interleaved, TridiagAlgorithm::Auto},
    };
    /* device copy of 16 bytes per unknown */
    const Int    NN = trinsys * trin;
    double       tcopy;
    {
      View<Scalar> a("a", NN), b("b", NN);
      Kokkos::deep_copy(a, 1.0);
      Kokkos::deep_copy(b, a);
      double t = Now();
      for (PetscInt r = 0; r < reps; r++) Kokkos::deep_copy(b, a);
      tcopy = (Now() - t) / reps;
    }
    const double copybw = 16.0 * NN / tcopy * 1e-9;
    for (auto &c : cases) {
      const Int    nn = c.n, ns = c.nsys, NT = nn * ns;
      View<Scalar> al("al", nn), ad("ad", nn), au("au", nn), ml("ml", nn), md("md", nn), mu("mu", nn), sh("shift", ns), f("f", NT), x("x", NT);
      Kokkos::parallel_for(
        "bench::TridiagSetup", range(nn), KOKKOS_LAMBDA(Int l) {
          const double hl = 1.0 + 0.5 * ((l * 7919) % 13) / 13.0, hr = 1.0 + 0.5 * (((l + 1) * 7919) % 13) / 13.0;
          al(l) = -1.0 / hl;
          au(l) = -1.0 / hr;
          ad(l) = 1.0 / hl + 1.0 / hr;
          ml(l) = hl / 6.0;
          mu(l) = hr / 6.0;
          md(l) = (hl + hr) / 3.0;
        });
      Kokkos::parallel_for("bench::TridiagShift", range(ns), KOKKOS_LAMBDA(Int s) { sh(s) = 0.01 + (s % 97); });
      Kokkos::parallel_for("bench::TridiagRhs", range(NT), KOKKOS_LAMBDA(Int p) { f(p) = 1.0 + 1e-3 * (p % 101); });
      TridiagShape   shape{ns, nn, c.lay};
      TridiagOptions opt;
      opt.alg = c.alg;
      TridiagWork work;
      View<Int>   st("status", ns);
      TridiagSolveShifted(shape, ucv(al), ucv(ad), ucv(au), ucv(ml), ucv(md), ucv(mu), ucv(sh), ucv(f), uv(x), uv(st), opt, &work);
      double t = Now();
      for (PetscInt r = 0; r < reps; r++) TridiagSolveShifted(shape, ucv(al), ucv(ad), ucv(au), ucv(ml), ucv(md), ucv(mu), ucv(sh), ucv(f), uv(x), uv(st), opt, &work);
      const double tt = (Now() - t) / reps;
      PetscCheck(TridiagCountFailures(ucv(st)) == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "tridiagonal solve failed");
      const double res = TridiagResidual(shape, al, ad, au, ml, md, mu, sh, f, x);
      const double bw  = 16.0 * NT / tt * 1e-9;
      PetscCall(PetscSNPrintf(row, sizeof(row), "| %s%s | %" PetscInt_FMT " x %" PetscInt_FMT " | %.3f | %.0f | %.0f | %.0f%% | %.1e |\n", c.name, c.alg == TridiagAlgorithm::Auto ? (TridiagAutoPCRSteps(ns, nn) ? " (PCR-Thomas)" : " (Thomas)") : "", ns, nn, tt * 1e3, NT / tt * 1e-6, bw, 100 * bw / copybw, res));
      table += row;
    }
    PetscCall(PetscSNPrintf(row, sizeof(row), "\ndevice copy: %.0f GB/s\n", copybw));
    table += row;
  }
  nfine = m;
  (void)nfine;
  (void)N;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s", table.c_str()));
  if (out[0]) {
    FILE *fp;
    PetscCall(PetscFOpen(PETSC_COMM_WORLD, out, "a", &fp));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "%s", table.c_str()));
    PetscCall(PetscFClose(PETSC_COMM_WORLD, fp));
  }
  CsrMatrix empty;
  A = empty;
  PetscCall(PetscFinalize());
  return 0;
}
