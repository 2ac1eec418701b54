/* Unit tests of the shared deflation layer (src/sys/kp_deflation): the kernels against serial references, and, on a
   small DMDA Laplacian with variable coefficients, E = Z^T A Z against PETSc's MatPtAP, the projector and
   coarse-correction properties, user spaces (sparse and dense) against the built-in chunks, and the two-level
   PCNEUMANN against KSPDCG. */
#include "kp_test.hpp"
#include "kp_deflation.hpp"
#include <petsckp.h>
#include <petscdmda.h>
#include <petscksp.h>
#include <array>
#include <map>

using namespace kptest;

namespace
{
CsrMatrix ToDeviceCsr(const HostCsr &h)
{
  CsrMatrix A;
  auto      rp = ToDevice(h.rowptr), ci = ToDevice(h.colidx);
  auto      v  = ToDevice(h.vals);
  CsrFromArrays(h.nrows, h.ncols, UView<const Int>(rp.data(), rp.extent(0)), UView<const Int>(ci.data(), ci.extent(0)), UView<const Scalar>(v.data(), v.extent(0)), A);
  return A;
}

/* the rows of a device CSR as maps column -> value (duplicates summed) */
std::vector<std::map<Int, double>> RowMaps(const CsrMatrix &A)
{
  auto rp = ToHost(A.rowptr);
  auto ci = ToHost(A.colidx);
  auto v  = ToHost(A.vals);
  std::vector<std::map<Int, double>> r(A.nrows);
  for (Int i = 0; i < A.nrows; i++)
    for (Int q = rp[i]; q < rp[i + 1]; q++) r[i][(Int)ci[q]] += v[q];
  return r;
}
} // namespace

TEST(DeflationKernels, RestrictMatchesReference)
{
  for (Int n : Sizes()) {
    const Int d = std::max<Int>(1, n / 7);
    auto      h = RandomCsr(n, d, 11 + (unsigned)n);
    auto      M = ToDeviceCsr(h);
    CsrMatrix Mt;
    CsrTranspose(M, Mt); /* the restriction kernels take M^T (team per deflation vector, no atomics) */
    auto      w = RandomVector(n, 3);
    auto      a0 = RandomVector(d, 4);
    std::vector<Scalar> ref(d, 0.0), ref2(a0);
    for (Int i = 0; i < n; i++)
      for (Int q = h.rowptr[i]; q < h.rowptr[i + 1]; q++) ref[h.colidx[q]] += h.vals[q] * w[i], ref2[h.colidx[q]] -= 0.5 * h.vals[q] * w[i];
    auto dw = ToDevice(w);
    View<Scalar> a(std::string("a"), d);
    RestrictLocal(Mt, UView<const Scalar>(dw.data(), n), UView<Scalar>(a.data(), d));
    EXPECT_LE(RelErr(ToHost(a), ref), 1e-13) << "n = " << n;
    auto da = ToDevice(a0);
    RestrictLocalAdd(Mt, -0.5, UView<const Scalar>(dw.data(), n), UView<Scalar>(da.data(), d));
    EXPECT_LE(RelErr(ToHost(da), ref2), 1e-13) << "n = " << n;
  }
}

TEST(DeflationKernels, RestrictPairAndColumnNormsMatchReference)
{
  /* d = n / 7: short rows of Z^T; d = 1: one row of every entry (the reduction of a whole team over a long row, as for
     the blocks of a DMDA) */
  for (Int n : Sizes())
    for (Int d : {std::max<Int>(1, n / 7), (Int)1}) {
      SCOPED_TRACE("d " + std::to_string(d));
      auto      h = RandomCsr(n, d, 17 + (unsigned)n);
      auto      M = ToDeviceCsr(h);
      CsrMatrix Mt;
      CsrTranspose(M, Mt);
      auto                w = RandomVector(n, 5), r = RandomVector(n, 6);
      std::vector<Scalar> refw(d, 0.0), refr(d, 0.0), refz(d, 0.0);
      for (Int i = 0; i < n; i++)
        for (Int q = h.rowptr[i]; q < h.rowptr[i + 1]; q++) {
          refw[h.colidx[q]] += h.vals[q] * w[i];
          refr[h.colidx[q]] += h.vals[q] * r[i];
          refz[h.colidx[q]] += h.vals[q] * h.vals[q];
        }
      auto         dw = ToDevice(w), dr = ToDevice(r);
      View<Scalar> a(std::string("a"), d), sv(std::string("s"), d);
      View<Real>   zz(std::string("zz"), d);
      RestrictLocalPair(Mt, UView<const Scalar>(dw.data(), n), UView<const Scalar>(dr.data(), n), UView<Scalar>(a.data(), d), UView<Scalar>(sv.data(), d));
      EXPECT_LE(RelErr(ToHost(a), refw), 1e-13) << "n = " << n;
      EXPECT_LE(RelErr(ToHost(sv), refr), 1e-13) << "n = " << n;
      ColumnNorms2Local(Mt, UView<Real>(zz.data(), d));
      EXPECT_LE(RelErr(ToHost(zz), refz), 1e-13) << "n = " << n;
    }
}

TEST(DeflationKernels, FirstNonFiniteRow)
{
  for (Int n : Sizes()) {
    HostCsr h = RandomCsr(n, std::max<Int>(n, 1), 23 + (unsigned)n);
    EXPECT_EQ(CsrFirstNonFiniteRow(ToDeviceCsr(h)), -1) << "n = " << n;
    if (h.vals.empty()) continue;
    /* NaN, +Inf, -Inf in the last, middle and first stored entries: the smallest row is reported */
    const double bad[3] = {NAN, INFINITY, -INFINITY};
    for (int b = 0; b < 3; b++) {
      HostCsr    g  = h;
      const Int  nz = (Int)g.vals.size(), q = b == 0 ? nz - 1 : (b == 1 ? nz / 2 : 0);
      Int        row = 0;
      g.vals[q]      = bad[b];
      while (g.rowptr[row + 1] <= q) row++;
      EXPECT_EQ(CsrFirstNonFiniteRow(ToDeviceCsr(g)), row) << "n = " << n << " kind " << b;
      if (b == 0 && nz > 1) {
        g.vals[0] = NAN; /* a second one in an earlier row */
        Int r0    = 0;
        while (g.rowptr[r0 + 1] <= 0) r0++;
        EXPECT_EQ(CsrFirstNonFiniteRow(ToDeviceCsr(g)), r0) << "n = " << n;
      }
    }
  }
}

TEST(DeflationKernels, AggregateZAZAndGalerkinMatchReference)
{
  for (Int n : Sizes()) {
    const Int        d = std::min<Int>(std::max<Int>(1, n / 7), 97), ng = std::max<Int>(1, n / 5);
    std::mt19937     g(7 + (unsigned)n);
    std::vector<Int> agg(n), aggghost(ng);
    for (auto &a : agg) a = (Int)(g() % (unsigned)(d + 1)) - 1; /* -1: in no aggregate */
    for (auto &a : aggghost) a = (Int)(g() % (unsigned)(d + 1)) - 1;
    auto hl = RandomCsr(n, n, 21 + (unsigned)n), ho = RandomCsr(n, ng, 31 + (unsigned)n, 3);
    auto Al = ToDeviceCsr(hl), Ao = ToDeviceCsr(ho);
    auto dagg = ToDevice(agg), dghost = ToDevice(aggghost);
    CsrMatrix Z, AZ;
    AggregateZ(n, d, dagg, Z);
    AggregateAZ(Al, Ao, dagg, dghost, d, AZ);
    {
      /* Z^T: the rows of each aggregate in ascending order, value 1, and the same matrix as the general transpose */
      CsrMatrix Zt, Zt2;
      AggregateZt(n, d, dagg, Zt);
      CsrTranspose(Z, Zt2, true);
      auto             cols = [](const CsrMatrix &M) {
        auto             c = ToHost(M.colidx);
        std::vector<Int> r(c.begin(), c.end());
        return r;
      };
      std::vector<Int> rp(d + 1, 0), ci;
      for (Int J = 0; J < d; J++) {
        for (Int i = 0; i < n; i++)
          if (agg[i] == J) ci.push_back(i);
        rp[J + 1] = (Int)ci.size();
      }
      EXPECT_EQ(Zt.nrows, d);
      EXPECT_EQ(Zt.ncols, n);
      EXPECT_EQ(ToHost(Zt.rowptr), rp);
      EXPECT_EQ(cols(Zt), ci);
      EXPECT_EQ(ToHost(Zt.vals), std::vector<Scalar>(ci.size(), 1.0));
      EXPECT_EQ(ToHost(Zt2.rowptr), rp);
      EXPECT_EQ(cols(Zt2), ci);
    }
    /* references */
    std::vector<std::map<Int, double>> zref(n), azref(n);
    for (Int i = 0; i < n; i++) {
      if (agg[i] >= 0) zref[i][agg[i]] = 1.0;
      for (Int q = hl.rowptr[i]; q < hl.rowptr[i + 1]; q++)
        if (agg[hl.colidx[q]] >= 0) azref[i][agg[hl.colidx[q]]] += hl.vals[q];
      for (Int q = ho.rowptr[i]; q < ho.rowptr[i + 1]; q++)
        if (aggghost[ho.colidx[q]] >= 0) azref[i][aggghost[ho.colidx[q]]] += ho.vals[q];
    }
    auto zr = RowMaps(Z), azr = RowMaps(AZ);
    ASSERT_EQ((Int)zr.size(), n);
    double err = 0;
    for (Int i = 0; i < n; i++) {
      EXPECT_EQ(zr[i], zref[i]) << "row " << i;
      EXPECT_EQ(azr[i].size(), azref[i].size()) << "row " << i; /* one entry per aggregate, no duplicates */
      for (auto &kv : azref[i]) err = std::max(err, std::abs(azr[i][kv.first] - kv.second));
    }
    EXPECT_LE(err, 1e-13) << "n = " << n;
    /* E = Z^T AZ, column-major */
    if (n <= 597) {
      View<Scalar>        E(std::string("E"), (size_t)d * d);
      std::vector<Scalar> eref((size_t)d * d, 0.0);
      GalerkinLocal(Z, AZ, d, UView<Scalar>(E.data(), E.extent(0)));
      for (Int i = 0; i < n; i++)
        for (auto &kv : azref[i])
          if (agg[i] >= 0) eref[agg[i] + (size_t)kv.first * d] += kv.second;
      EXPECT_LE(RelErr(ToHost(E), eref), 1e-13) << "n = " << n;
    }
  }
}

/* ------------------------------------------------------------------ PETSc level */
namespace
{
/* cell-centred FV of -div(c grad u) on an nx x ny (x nz) DMDA with a rough coefficient c in [contrast, 1.4] (harmonic face
   means), Dirichlet on the face x = 0 (SPD), Neumann elsewhere */
PetscErrorCode CreateProblem(PetscInt dim, const PetscInt n[3], double contrast, DM *da, Mat *A)
{
  PetscInt xs, ys, zs, xm, ym, zm;
  auto     coef = [contrast](PetscInt i, PetscInt j, PetscInt k) { return (((i * 7 + j * 13 + k * 5) % 11) < 4 ? contrast : 1.0) * (1.0 + 0.1 * ((i + 2 * j + 3 * k) % 5)); };

  PetscFunctionBeginUser;
  if (dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_SELF, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n[0], n[1], PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, da));
  else PetscCall(DMDACreate3d(PETSC_COMM_SELF, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n[0], n[1], n[2], PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, da));
  PetscCall(DMSetUp(*da));
  PetscCall(DMCreateMatrix(*da, A));
  PetscCall(DMDAGetCorners(*da, &xs, &ys, &zs, &xm, &ym, &zm));
  if (dim == 2) zs = 0, zm = 1;
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        MatStencil  row = {k, j, i, 0}, col[7];
        PetscScalar v[7], diag = 0;
        PetscInt    c = 1, nb[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
        double      cc = coef(i, j, k);
        col[0] = row;
        for (PetscInt q = 0; q < 2 * dim; q++) {
          PetscInt ii = i + nb[q][0], jj = j + nb[q][1], kk = k + nb[q][2];
          if (ii < 0) {
            diag += 2 * cc;
            continue;
          }
          if (ii >= n[0] || jj < 0 || jj >= n[1] || kk < 0 || (dim == 3 && kk >= n[2])) continue;
          double cn = coef(ii, jj, kk), cf = 2 * cc * cn / (cc + cn);
          col[c].i = ii, col[c].j = jj, col[c].k = kk, col[c].c = 0;
          v[c++] = -cf;
          diag += cf;
        }
        v[0] = diag;
        PetscCall(MatSetValuesStencil(*A, 1, &row, c, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

struct Problem {
  DM  da = NULL;
  Mat A  = NULL;
  Problem(PetscInt dim, PetscInt nx, PetscInt ny, PetscInt nz, double contrast = 1e-3)
  {
    PetscInt n[3] = {nx, ny, nz};
    EXPECT_EQ((int)CreateProblem(dim, n, contrast, &da, &A), 0);
  }
  ~Problem()
  {
    MatDestroy(&A);
    DMDestroy(&da);
  }
};

Deflation *Build(const Problem &p, DeflationSpaceType type, Int subdomains, Int bx, Int by, Int bz, DenseSpdForm form = DenseSpdForm::Cholesky)
{
  DeflationSpaceOptions opt;
  DeflationSpaceType    built;
  Int                   bb[3];
  Deflation            *defl = nullptr;
  opt.type       = type;
  opt.type_set   = true;
  opt.subdomains = subdomains;
  opt.blocks[0] = bx, opt.blocks[1] = by, opt.blocks[2] = bz;
  opt.form = form;
  EXPECT_EQ((int)DeflationCreate(p.A, p.da, NULL, opt, "-test", &defl, &built, bb), 0);
  EXPECT_EQ((int)built, (int)type);
  return defl;
}

double VecNormOf(Vec v)
{
  PetscReal r;
  VecNorm(v, NORM_2, &r);
  return r;
}

/* || Z^T v || through the deflation object (a1 after Coarse) */
double RestrictNorm(Deflation *defl, Vec v)
{
  EXPECT_EQ((int)defl->Coarse(v), 0);
  auto   a = ToHost(defl->a1);
  double s = 0;
  for (auto x : a) s += x * x;
  return std::sqrt(s);
}
} // namespace

TEST(Deflation, CoarseMatrixEqualsMatPtAP)
{
  struct Case {
    PetscInt           dim, nx, ny, nz;
    DeflationSpaceType type;
    Int                d, bx, by, bz;
  } cases[] = {
    {2, 24, 20, 1, DeflationSpaceType::Chunks, 40, 0, 0, 0},
    {2, 24, 20, 1, DeflationSpaceType::Blocks, 0, 4, 3, 1},
    {2, 13, 7, 1, DeflationSpaceType::Chunks, 5, 0, 0, 0},
    {3, 8, 7, 6, DeflationSpaceType::Chunks, 6, 0, 0, 0},
    {3, 8, 7, 6, DeflationSpaceType::Blocks, 0, 2, 2, 3},
  };
  for (auto &c : cases) {
    Problem    p(c.dim, c.nx, c.ny, c.nz);
    Deflation *defl = Build(p, c.type, c.d, c.bx, c.by, c.bz);
    ASSERT_NE(defl, nullptr);
    Mat       Z, E;
    PetscInt  m, nn;
    ASSERT_EQ((int)defl->CreateZMat(p.A, &Z), 0);
    {
      /* the reference Z^T A Z on host AIJ copies, whatever the device types of A and Z (PETSc's product of two
         aijkokkos matrices depends on the Kokkos Kernels it was built with) */
      Mat Ah, Zh;
      ASSERT_EQ((int)MatConvert(p.A, MATAIJ, MAT_INITIAL_MATRIX, &Ah), 0);
      ASSERT_EQ((int)MatConvert(Z, MATAIJ, MAT_INITIAL_MATRIX, &Zh), 0);
      ASSERT_EQ((int)MatPtAP(Ah, Zh, MAT_INITIAL_MATRIX, 2.0, &E), 0);
      MatDestroy(&Ah);
      MatDestroy(&Zh);
    }
    MatGetSize(E, &m, &nn);
    ASSERT_EQ(m, defl->d);
    ASSERT_EQ(nn, defl->d);
    double                   err = 0, emax = 0;
    const std::vector<Scalar> Eh  = ToHost(defl->Edev);
    for (PetscInt i = 0; i < m; i++)
      for (PetscInt j = 0; j < m; j++) {
        PetscScalar v;
        MatGetValues(E, 1, &i, 1, &j, &v);
        err  = std::max(err, std::abs((double)(v - Eh[i + (size_t)j * m])));
        emax = std::max(emax, std::abs((double)v));
      }
    EXPECT_LE(err, 1e-13 * emax) << "dim " << c.dim << " type " << (int)c.type << " d " << m;
    MatDestroy(&E);
    MatDestroy(&Z);
    delete defl;
  }
}

TEST(Deflation, ProjectorAndCoarseCorrection)
{
  for (int form = 0; form < 2; form++)
    for (int type = 0; type < 2; type++) {
      Problem    p(2, 20, 16, 1);
      Deflation *defl = type == 0 ? Build(p, DeflationSpaceType::Chunks, 20, 0, 0, 0, form ? DenseSpdForm::Inverse : DenseSpdForm::Cholesky) : Build(p, DeflationSpaceType::Blocks, 0, 4, 4, 1, form ? DenseSpdForm::Inverse : DenseSpdForm::Cholesky);
      ASSERT_NE(defl, nullptr);
      Mat         Z;
      Vec         c, zc, azc, s, r, x, y, y0, t;
      PetscRandom rnd;
      PetscRandomCreate(PETSC_COMM_SELF, &rnd);
      PetscRandomSetInterval(rnd, -1.0, 1.0);
      ASSERT_EQ((int)defl->CreateZMat(p.A, &Z), 0);
      MatCreateVecs(Z, &c, &zc);
      VecDuplicate(zc, &azc);
      VecDuplicate(zc, &s);
      VecDuplicate(zc, &r);
      VecDuplicate(zc, &x);
      VecDuplicate(zc, &y);
      VecDuplicate(zc, &y0);
      VecDuplicate(zc, &t);
      /* P A Z c = 0 for random c (and for a single column) */
      for (int trial = 0; trial < 3; trial++) {
        if (trial < 2) VecSetRandom(c, rnd);
        else {
          VecSet(c, 0.0);
          VecSetValue(c, defl->d / 2, 1.0, INSERT_VALUES);
          VecAssemblyBegin(c);
          VecAssemblyEnd(c);
        }
        MatMult(Z, c, zc);
        MatMult(p.A, zc, azc);
        ASSERT_EQ((int)defl->ApplyP(azc, s), 0);
        EXPECT_LE(VecNormOf(s), 1e-12 * VecNormOf(azc)) << "P A Z != 0, form " << form << " type " << type;
      }
      /* Z^T P w = 0 for random w; P w = w - A Q w */
      VecSetRandom(r, rnd);
      ASSERT_EQ((int)defl->ApplyP(r, s), 0);
      EXPECT_LE(RestrictNorm(defl, s), 1e-12 * RestrictNorm(defl, r));
      VecSet(x, 0.0);
      ASSERT_EQ((int)defl->AddQ(r, x), 0); /* x = Q r */
      MatMult(p.A, x, t);
      VecAYPX(t, -1.0, r); /* r - A Q r = P r */
      VecAXPY(t, -1.0, s);
      EXPECT_LE(VecNormOf(t), 1e-12 * VecNormOf(r));
      /* Q correction: Z^T (r - A Q r) = 0, and Q A Z c = Z c (Q A is the A-orthogonal projection onto span Z) */
      MatMult(p.A, x, t);
      VecAYPX(t, -1.0, r);
      EXPECT_LE(RestrictNorm(defl, t), 1e-12 * RestrictNorm(defl, r));
      VecSetRandom(c, rnd);
      MatMult(Z, c, zc);
      MatMult(p.A, zc, azc);
      VecSet(x, 0.0);
      ASSERT_EQ((int)defl->AddQ(azc, x), 0);
      VecAXPY(x, -1.0, zc);
      EXPECT_LE(VecNormOf(x), 1e-11 * VecNormOf(zc));
      /* AddQResidual: y + Q (r - A y), and then Z^T (r - A y_new) = 0 */
      VecSetRandom(y0, rnd);
      VecCopy(y0, y);
      ASSERT_EQ((int)defl->AddQResidual(r, y), 0);
      MatMult(p.A, y0, t);
      VecAYPX(t, -1.0, r);
      VecCopy(y0, x);
      ASSERT_EQ((int)defl->AddQ(t, x), 0);
      VecAXPY(x, -1.0, y);
      EXPECT_LE(VecNormOf(x), 1e-12 * VecNormOf(y));
      MatMult(p.A, y, t);
      VecAYPX(t, -1.0, r);
      EXPECT_LE(RestrictNorm(defl, t), 1e-12 * RestrictNorm(defl, r));
      for (Vec *v : {&c, &zc, &azc, &s, &r, &x, &y, &y0, &t}) VecDestroy(v);
      MatDestroy(&Z);
      PetscRandomDestroy(&rnd);
      delete defl;
    }
}

namespace
{
/* solves A x = b from x0 (zero when x0 is NULL) and returns the residual history and the solution */
struct SolveRun {
  std::vector<double> hist;
  std::vector<Scalar> x;
  PetscInt            its = -1;
  KSPConvergedReason  reason;
  PetscBool           guess_after;
};

typedef void (*Configure)(KSP, Mat Z, void *);

SolveRun Solve(const Problem &p, const char *ktype, const char *ptype, Configure conf, Mat Z, void *cctx, Vec b, Vec x0)
{
  KSP              ksp;
  PC               pc;
  Vec              x;
  SolveRun              run;
  const PetscReal *h;
  PetscInt         nh;
  KSPCreate(PETSC_COMM_SELF, &ksp);
  KSPSetOperators(ksp, p.A, p.A);
  KSPSetDM(ksp, p.da);
  PetscKPKSPSetDMActive(ksp, PETSC_FALSE);
  KSPSetType(ksp, ktype);
  KSPGetPC(ksp, &pc);
  PCSetType(pc, ptype);
  KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED);
  KSPSetTolerances(ksp, 1e-8, 0.0, 1e30, 500);
  KSPSetResidualHistory(ksp, NULL, PETSC_DECIDE, PETSC_TRUE);
  conf(ksp, Z, cctx);
  VecDuplicate(b, &x);
  if (x0) {
    VecCopy(x0, x);
    KSPSetInitialGuessNonzero(ksp, PETSC_TRUE);
  }
  EXPECT_EQ((int)KSPSolve(ksp, b, x), 0);
  KSPGetIterationNumber(ksp, &run.its);
  KSPGetConvergedReason(ksp, &run.reason);
  KSPGetInitialGuessNonzero(ksp, &run.guess_after);
  KSPGetResidualHistory(ksp, &h, &nh);
  run.hist.assign(h, h + nh);
  {
    const PetscScalar *a;
    PetscInt           n;
    VecGetLocalSize(x, &n);
    VecGetArrayRead(x, &a);
    run.x.assign(a, a + n);
    VecRestoreArrayRead(x, &a);
  }
  VecDestroy(&x);
  KSPDestroy(&ksp);
  return run;
}

void ExpectSameIterates(const SolveRun &a, const SolveRun &b, double tol, const char *what)
{
  EXPECT_GT(a.reason, 0) << what;
  EXPECT_GT(b.reason, 0) << what;
  EXPECT_LE(std::abs(a.its - b.its), 0) << what;
  double d = 0;
  size_t first = 0;
  for (size_t i = 0; i < std::min(a.hist.size(), b.hist.size()); i++) {
    d = std::max(d, std::abs(a.hist[i] - b.hist[i]) / a.hist[0]);
    if (!first && d > tol) first = i;
  }
  if (first) printf("%s: first difference at %zu of %zu: %g vs %g (h0 %g)\n", what, first, a.hist.size(), a.hist[first], b.hist[first], a.hist[0]);
  EXPECT_LE(d, tol) << what << ": residual histories differ";
  EXPECT_LE(RelErr(b.x, a.x), 1e-8) << what << ": solutions differ";
}

void ConfDCGChunks(KSP ksp, Mat, void *)
{
  PetscOptionsSetValue(NULL, "-ksp_dcg_space", "chunks");
  PetscOptionsSetValue(NULL, "-ksp_dcg_subdomains", "12");
  KSPSetFromOptions(ksp);
  PetscOptionsClearValue(NULL, "-ksp_dcg_space");
  PetscOptionsClearValue(NULL, "-ksp_dcg_subdomains");
}
void ConfDCGUser(KSP ksp, Mat Z, void *) { KSPDCGSetDeflationSpace(ksp, Z); }
void ConfCGNeumannChunks(KSP ksp, Mat, void *v)
{
  PC pc;
  KSPGetPC(ksp, &pc);
  PCNeumannSetDeflationSpaceType(pc, PC_NEUMANN_DEFLATION_SPACE_CHUNKS);
  PetscOptionsSetValue(NULL, "-pc_neumann_deflation_subdomains", "12");
  KSPSetFromOptions(ksp);
  PetscOptionsClearValue(NULL, "-pc_neumann_deflation_subdomains");
  if (v) PCNeumannSetDeflationVariant(pc, *(PCNeumannDeflationVariant *)v);
}
void ConfCGNeumannUser(KSP ksp, Mat Z, void *)
{
  PC pc;
  KSPGetPC(ksp, &pc);
  PCNeumannSetDeflationSpace(pc, Z);
}
void ConfNone(KSP, Mat, void *) { }
} // namespace

TEST(Deflation, UserSpaceGivesSameIteratesAsChunks)
{
  Problem     p(2, 24, 20, 1, 0.1);
  Vec         b, x0;
  Mat         Zs, Zd;
  PetscRandom rnd;
  Deflation  *defl = Build(p, DeflationSpaceType::Chunks, 12, 0, 0, 0);
  ASSERT_NE(defl, nullptr);
  ASSERT_EQ((int)defl->CreateZMat(p.A, &Zs), 0);
  ASSERT_EQ((int)MatConvert(Zs, MATDENSE, MAT_INITIAL_MATRIX, &Zd), 0);
  delete defl;
  PetscRandomCreate(PETSC_COMM_SELF, &rnd);
  MatCreateVecs(p.A, &b, &x0);
  VecSetRandom(b, rnd);
  VecSetRandom(x0, rnd);
  for (const char *pt : {PCJACOBI, PCNEUMANN}) {
    SolveRun ref = Solve(p, KSPDCG, pt, ConfDCGChunks, NULL, NULL, b, x0);
    EXPECT_GT(ref.its, 3);
    ExpectSameIterates(ref, Solve(p, KSPDCG, pt, ConfDCGUser, Zs, NULL, b, x0), 1e-10, "dcg, sparse user Z");
    ExpectSameIterates(ref, Solve(p, KSPDCG, pt, ConfDCGUser, Zd, NULL, b, x0), 1e-10, "dcg, dense user Z");
  }
  /* the PC side: chunks built in vs user (sparse, dense) */
  SolveRun pref = Solve(p, KSPCG, PCNEUMANN, ConfCGNeumannChunks, NULL, NULL, b, x0);
  ExpectSameIterates(pref, Solve(p, KSPCG, PCNEUMANN, ConfCGNeumannUser, Zs, NULL, b, x0), 1e-10, "cg + neumann, sparse user Z");
  ExpectSameIterates(pref, Solve(p, KSPCG, PCNEUMANN, ConfCGNeumannUser, Zd, NULL, b, x0), 1e-10, "cg + neumann, dense user Z");
  VecDestroy(&b);
  VecDestroy(&x0);
  MatDestroy(&Zs);
  MatDestroy(&Zd);
  PetscRandomDestroy(&rnd);
}

TEST(Deflation, TwoLevelNeumannMatchesDCG)
{
  Problem     p(2, 24, 20, 1, 0.1);
  Vec         b, x0;
  PetscRandom rnd;
  PetscRandomCreate(PETSC_COMM_SELF, &rnd);
  MatCreateVecs(p.A, &b, &x0);
  VecSetRandom(b, rnd);
  VecSetRandom(x0, rnd);
  PCNeumannDeflationVariant adef2 = PC_NEUMANN_DEFLATION_ADEF2, bnn = PC_NEUMANN_DEFLATION_BNN;
  for (Vec guess : {x0, (Vec)NULL}) {
    /* DEF1 (KSPDCG) and CG with A-DEF2 or BNN (guess corrected in PCPreSolve) give the same iterates in exact arithmetic */
    SolveRun def1 = Solve(p, KSPDCG, PCNEUMANN, ConfDCGChunks, NULL, NULL, b, guess);
    SolveRun a    = Solve(p, KSPCG, PCNEUMANN, ConfCGNeumannChunks, NULL, &adef2, b, guess);
    SolveRun n    = Solve(p, KSPCG, PCNEUMANN, ConfCGNeumannChunks, NULL, &bnn, b, guess);
    SolveRun one  = Solve(p, KSPCG, PCNEUMANN, ConfNone, NULL, NULL, b, guess);
    ExpectSameIterates(def1, a, 1e-8, "dcg vs cg + neumann A-DEF2");
    ExpectSameIterates(a, n, 1e-8, "A-DEF2 vs BNN");
    EXPECT_LT(a.its, one.its); /* deflation helps */
    /* a zero initial guess is restored after the solve */
    EXPECT_EQ(a.guess_after, guess ? PETSC_TRUE : PETSC_FALSE);
  }
  VecDestroy(&b);
  VecDestroy(&x0);
  PetscRandomDestroy(&rnd);
}

TEST(Deflation, ErrorsTellWhatToFix)
{
  Problem               p(2, 12, 10, 1);
  DeflationSpaceOptions opt;
  DeflationSpaceType    built;
  Int                   bb[3];
  Deflation            *defl = nullptr;
  PetscErrorCode        ierr;
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  /* blocks need a DMDA */
  opt.type     = DeflationSpaceType::Blocks;
  opt.type_set = true;
  ierr         = DeflationCreate(p.A, NULL, NULL, opt, "-test", &defl, &built, bb);
  EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_WRONGSTATE);
  /* user space without a matrix */
  opt.type = DeflationSpaceType::User;
  ierr     = DeflationCreate(p.A, p.da, NULL, opt, "-test", &defl, &built, bb);
  EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_WRONGSTATE);
  /* more chunks than rows */
  opt.type       = DeflationSpaceType::Chunks;
  opt.subdomains = 1000;
  ierr           = DeflationCreate(p.A, p.da, NULL, opt, "-test", &defl, &built, bb);
  EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE);
  /* a user Z with dependent columns: E singular */
  {
    Mat      Z;
    PetscInt M;
    MatGetSize(p.A, &M, NULL);
    MatCreateSeqAIJ(PETSC_COMM_SELF, M, 2, 2, NULL, &Z);
    for (PetscInt i = 0; i < M; i++) {
      MatSetValue(Z, i, 0, 1.0, INSERT_VALUES);
      MatSetValue(Z, i, 1, 2.0, INSERT_VALUES);
    }
    MatAssemblyBegin(Z, MAT_FINAL_ASSEMBLY);
    MatAssemblyEnd(Z, MAT_FINAL_ASSEMBLY);
    opt.type = DeflationSpaceType::User;
    ierr     = DeflationCreate(p.A, p.da, Z, opt, "-test", &defl, &built, bb);
    EXPECT_NE((int)ierr, 0);
    MatDestroy(&Z);
    /* Z with the wrong number of rows */
    MatCreateSeqAIJ(PETSC_COMM_SELF, M - 1, 2, 1, NULL, &Z);
    MatAssemblyBegin(Z, MAT_FINAL_ASSEMBLY);
    MatAssemblyEnd(Z, MAT_FINAL_ASSEMBLY);
    ierr = DeflationCreate(p.A, p.da, Z, opt, "-test", &defl, &built, bb);
    EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_SIZ);
    MatDestroy(&Z);
  }
  PetscPopErrorHandler();
  delete defl;
}

namespace
{
/* || M^-1 ||_1 of a d x d column-major matrix by Gauss-Jordan elimination with partial pivoting */
double InverseNorm1(std::vector<double> M, Int d)
{
  std::vector<double> I((size_t)d * d, 0.0);
  for (Int i = 0; i < d; i++) I[i + (size_t)i * d] = 1.0;
  for (Int k = 0; k < d; k++) {
    Int p = k;
    for (Int i = k + 1; i < d; i++)
      if (std::abs(M[i + (size_t)k * d]) > std::abs(M[p + (size_t)k * d])) p = i;
    for (Int j = 0; j < d; j++) std::swap(M[k + (size_t)j * d], M[p + (size_t)j * d]), std::swap(I[k + (size_t)j * d], I[p + (size_t)j * d]);
    const double piv = M[k + (size_t)k * d];
    for (Int j = 0; j < d; j++) M[k + (size_t)j * d] /= piv, I[k + (size_t)j * d] /= piv;
    for (Int i = 0; i < d; i++)
      if (i != k) {
        const double f = M[i + (size_t)k * d];
        for (Int j = 0; j < d; j++) M[i + (size_t)j * d] -= f * M[k + (size_t)j * d], I[i + (size_t)j * d] -= f * I[k + (size_t)j * d];
      }
  }
  double nrm = 0;
  for (Int j = 0; j < d; j++) {
    double c = 0;
    for (Int i = 0; i < d; i++) c += std::abs(I[i + (size_t)j * d]);
    nrm = std::max(nrm, c);
  }
  return nrm;
}
} // namespace

/* the condition number estimate of E (Hager's estimator through the coarse solve) against ||E||_1 ||E^-1||_1 */
TEST(Deflation, ConditionEstimateOfE)
{
  for (double contrast : {1.0, 1e-3, 1e-6})
    for (int form = 0; form < 2; form++)
      for (int type = 0; type < 2; type++) {
        Problem    p(2, 24, 20, 1, contrast);
        Deflation *defl = type == 0 ? Build(p, DeflationSpaceType::Chunks, 30, 0, 0, 0, form ? DenseSpdForm::Inverse : DenseSpdForm::Cholesky) : Build(p, DeflationSpaceType::Blocks, 0, 6, 5, 1, form ? DenseSpdForm::Inverse : DenseSpdForm::Cholesky);
        ASSERT_NE(defl, nullptr);
        const Int           d = defl->d;
        std::vector<double> E = ToHost(defl->Edev);
        double              enorm = 0;
        for (Int j = 0; j < d; j++) {
          double c = 0;
          for (Int i = 0; i < d; i++) c += std::abs(E[i + (size_t)j * d]);
          enorm = std::max(enorm, c);
        }
        const double exact = enorm * InverseNorm1(E, d);
        /* a lower bound, in practice within a small factor (usually exact) */
        EXPECT_LE(defl->cond, exact * (1 + 1e-6)) << "contrast " << contrast << " form " << form << " type " << type;
        EXPECT_GE(defl->cond, exact / 3) << "contrast " << contrast << " form " << form << " type " << type;
        EXPECT_GT(defl->cond, 1.0);
        delete defl;
      }
}

/* the chunks' count: the default is clamped to N, an explicit or negative count out of range is an error naming it */
TEST(Deflation, ChunkCountDefaultAndLimits)
{
  Problem               p(2, 3, 1, 1); /* N = 3: the default 2 ceil(sqrt(3)) = 4 is clamped to 3 */
  DeflationSpaceOptions opt;
  DeflationSpaceType    built;
  Int                   bb[3];
  Deflation            *defl = nullptr;
  opt.type     = DeflationSpaceType::Chunks;
  opt.type_set = true;
  ASSERT_EQ((int)DeflationCreate(p.A, NULL, NULL, opt, "-test", &defl, &built, bb), 0);
  EXPECT_EQ(defl->d, 3);
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  for (Int d : {-1, 4}) {
    opt.subdomains = d;
    EXPECT_EQ((int)DeflationCreate(p.A, NULL, NULL, opt, "-test", &defl, &built, bb), (int)PETSC_ERR_ARG_OUTOFRANGE) << d;
  }
  PetscPopErrorHandler();
  delete defl;
}

namespace
{
/* local boxes (xm, ym, zm) at (xs, ys, zs) of an M x N x P grid with dof unknowns per cell, of 0, 1, 13, 597 and
   about 10^5 local rows */
std::vector<DeflationGrid> AggregateGrids()
{
  std::vector<DeflationGrid> g;
  auto                       add = [&](Int dim, Int M, Int N, Int P, Int dof, Int xs, Int ys, Int zs, Int xm, Int ym, Int zm) {
    DeflationGrid s;
    s.dim = dim, s.M = M, s.N = N, s.P = P, s.dof = dof, s.xs = xs, s.ys = ys, s.zs = zs, s.xm = xm, s.ym = ym, s.zm = zm;
    g.push_back(s);
  };
  add(3, 10, 7, 5, 1, 3, 2, 1, 0, 7, 4);
  add(1, 9, 1, 1, 1, 4, 0, 0, 1, 1, 1);
  add(2, 20, 11, 1, 1, 5, 3, 0, 13, 1, 1);
  add(3, 10, 300, 7, 1, 2, 50, 3, 3, 199, 1);
  add(3, 64, 50, 40, 2, 11, 3, 5, 47, 23, 47);
  return g;
}
} // namespace

TEST(DeflationKernels, BlockAndChunkAggregatesMatchReference)
{
  for (const DeflationGrid &s : AggregateGrids()) {
    const Int n = s.xm * s.ym * s.zm * s.dof;
    /* serial references: the natural cell (i, j, k) of local row l */
    auto cell = [&](Int l, Int &i, Int &j, Int &k) {
      Int c = l / s.dof;
      i = s.xs + c % s.xm, j = s.ys + (c / s.xm) % s.ym, k = s.zs + c / (s.xm * s.ym);
    };
    for (auto b : std::vector<std::array<Int, 3>>{{1, 1, 1}, {3, 2, 1}, {std::min<Int>(s.M, 8), std::min<Int>(s.N, 5), std::min<Int>(s.P, 4)}}) {
      std::vector<Int> ref(n);
      for (Int l = 0; l < n; l++) {
        Int i, j, k;
        cell(l, i, j, k);
        ref[l] = (Int)((int64_t)i * b[0] / s.M) + b[0] * ((Int)((int64_t)j * b[1] / s.N) + b[1] * (Int)((int64_t)k * b[2] / s.P));
      }
      View<Int> agg("agg", n);
      BlockAggregates(s, b.data(), UView<Int>(agg.data(), n));
      EXPECT_EQ(ToHost(agg), ref) << "n " << n << " blocks " << b[0] << "," << b[1] << "," << b[2];
    }
    const int64_t ncell = (int64_t)s.M * s.N * s.P;
    for (Int nchunks : {(Int)1, (Int)7, (Int)std::min<int64_t>(ncell, 1000)}) {
      std::vector<Int> ref(n), refrows(n);
      const Int        rstart = 17, M = rstart + n + 5;
      for (Int l = 0; l < n; l++) {
        Int i, j, k;
        cell(l, i, j, k);
        ref[l]     = (Int)((i + (int64_t)s.M * (j + (int64_t)s.N * k)) * nchunks / ncell);
        refrows[l] = (Int)((int64_t)(rstart + l) * nchunks / M);
      }
      View<Int> agg("agg", n);
      ChunkAggregates(&s, rstart, M, nchunks, n, UView<Int>(agg.data(), n));
      EXPECT_EQ(ToHost(agg), ref) << "n " << n << " chunks " << nchunks;
      ChunkAggregates(nullptr, rstart, M, nchunks, n, UView<Int>(agg.data(), n));
      EXPECT_EQ(ToHost(agg), refrows) << "n " << n << " chunks of rows " << nchunks;
      /* the round trip through scalars of the ghost exchange */
      View<Scalar> v("v", n);
      View<Int>    back("back", n);
      AggregatesToScalar(UView<const Int>(agg.data(), n), UView<Scalar>(v.data(), n));
      AggregatesFromScalar(UView<const Scalar>(v.data(), n), UView<Int>(back.data(), n));
      EXPECT_EQ(ToHost(back), refrows);
    }
  }
}
