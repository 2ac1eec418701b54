/* Unit tests of the PCNEUMANN kernels (src/pc/neumann/neumann_kernels) against dense and serial references,
   and of the PC itself (k = 0 is Jacobi, errors for a bad diagonal). */
#include "kp_test.hpp"
#include "kp_sys.hpp"
#include "pc/neumann/neumann_kernels.hpp"
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

using namespace kptest;

namespace
{
/* a symmetric sparse matrix with neighbours i +- {1, off2, off3}; values from a hash of the unordered pair;
   diagonal = dom * (sum of |offdiagonal| in the row) + 0.1 */
HostCsr SymmetricCsr(Int n, double dom, Int off2 = 7, Int off3 = 31)
{
  HostCsr A;
  A.nrows = A.ncols = n;
  A.rowptr.push_back(0);
  auto val = [](Int a, Int b) {
    double s = std::sin(12.9898 * (double)a + 78.233 * (double)b) * 43758.5453;
    return -(0.1 + 0.8 * (s - std::floor(s)));
  };
  const Int offs[3] = {1, off2, off3};
  for (Int i = 0; i < n; i++) {
    std::vector<std::pair<Int, double>> row;
    double                              sum = 0;
    for (Int o : offs) {
      if (i - o >= 0) row.push_back({i - o, val(i - o, i)});
      if (i + o < n) row.push_back({i + o, val(i, i + o)});
    }
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end(), [](auto &a, auto &b) { return a.first == b.first; }), row.end());
    for (auto &e : row) sum += std::abs(e.second);
    row.push_back({i, dom * sum + 0.1});
    std::sort(row.begin(), row.end());
    for (auto &e : row) {
      A.colidx.push_back(e.first);
      A.vals.push_back(e.second);
    }
    A.rowptr.push_back((Int)A.colidx.size());
  }
  return A;
}

/* 2D lexicographic 5-point Laplacian on an n x n grid */
HostCsr Laplace2d(Int n)
{
  HostCsr A;
  A.nrows = A.ncols = n * n;
  A.rowptr.push_back(0);
  for (Int j = 0; j < n; j++)
    for (Int i = 0; i < n; i++) {
      Int r = i + n * j;
      if (j > 0) A.colidx.push_back(r - n), A.vals.push_back(-1);
      if (i > 0) A.colidx.push_back(r - 1), A.vals.push_back(-1);
      A.colidx.push_back(r), A.vals.push_back(4);
      if (i < n - 1) A.colidx.push_back(r + 1), A.vals.push_back(-1);
      if (j < n - 1) A.colidx.push_back(r + n), A.vals.push_back(-1);
      A.rowptr.push_back((Int)A.colidx.size());
    }
  return A;
}

CsrMatrix DeviceCsr(const HostCsr &h)
{
  CsrMatrix A;
  auto      rp = ToDevice(h.rowptr), ci = ToDevice(h.colidx);
  auto      v  = ToDevice(h.vals);
  CsrFromArrays(h.nrows, h.ncols, UView<const Int>(rp.data(), rp.extent(0)), UView<const Int>(ci.data(), ci.extent(0)), UView<const Scalar>(v.data(), v.extent(0)), A);
  return A;
}

using Dense = std::vector<std::vector<double>>;

Dense ToDense(const HostCsr &h)
{
  Dense A(h.nrows, std::vector<double>(h.ncols, 0.0));
  for (Int i = 0; i < h.nrows; i++)
    for (Int q = h.rowptr[i]; q < h.rowptr[i + 1]; q++) A[i][h.colidx[q]] += h.vals[q];
  return A;
}

Dense MatMul(const Dense &A, const Dense &B)
{
  size_t n = A.size(), m = B.empty() ? 0 : B[0].size(), l = B.size();
  Dense  C(n, std::vector<double>(m, 0.0));
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < l; k++)
      if (A[i][k] != 0)
        for (size_t j = 0; j < m; j++) C[i][j] += A[i][k] * B[k][j];
  return C;
}

Dense Transpose(const Dense &A)
{
  Dense T(A.empty() ? 0 : A[0].size(), std::vector<double>(A.size()));
  for (size_t i = 0; i < A.size(); i++)
    for (size_t j = 0; j < A[i].size(); j++) T[j][i] = A[i][j];
  return T;
}

/* the dense formula M^-1 = K^T D^-1 K, K = sum_{j<=k} (-L D^-1)^j */
Dense DenseNeumann(const Dense &A, Int k)
{
  size_t n = A.size();
  Dense  B(n, std::vector<double>(n, 0.0)), Dinv(n, std::vector<double>(n, 0.0)), K(n, std::vector<double>(n, 0.0)), P;
  for (size_t i = 0; i < n; i++) {
    Dinv[i][i] = 1.0 / A[i][i];
    K[i][i]    = 1.0;
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++) B[i][j] = -A[i][j] / A[j][j];
  P = K;
  for (Int j = 1; j <= k; j++) {
    P = MatMul(P, B);
    for (size_t a = 0; a < n; a++)
      for (size_t b = 0; b < n; b++) K[a][b] += P[a][b];
  }
  return MatMul(MatMul(Transpose(K), Dinv), K);
}

/* dense symmetric Gauss-Seidel M^-1 = (D+U)^-1 D (D+L)^-1, column by column with triangular solves */
Dense DenseSGS(const Dense &A)
{
  size_t n = A.size();
  Dense  M(n, std::vector<double>(n, 0.0));
  for (size_t c = 0; c < n; c++) {
    std::vector<double> y(n, 0.0), z(n, 0.0);
    for (size_t i = 0; i < n; i++) {
      double s = (i == c) ? 1.0 : 0.0;
      for (size_t j = 0; j < i; j++) s -= A[i][j] * y[j];
      y[i] = s / A[i][i];
    }
    for (size_t i = 0; i < n; i++) y[i] *= A[i][i];
    for (size_t ii = n; ii-- > 0;) {
      double s = y[ii];
      for (size_t j = ii + 1; j < n; j++) s -= A[ii][j] * z[j];
      z[ii] = s / A[ii][ii];
    }
    for (size_t i = 0; i < n; i++) M[i][c] = z[i];
  }
  return M;
}

/* the kernel's M^-1 as a dense matrix, column by column */
Dense KernelDense(const HostCsr &h, Int k)
{
  Int                     n = h.nrows;
  petsckp::neumann::Factors          F;
  petsckp::neumann::SetupInfo        info;
  auto                    A = DeviceCsr(h);
  View<Scalar>            r("r", n), z("z", n), w1("w1", n), w2("w2", n);
  Dense                   M(n, std::vector<double>(n, 0.0));
  petsckp::neumann::Setup(A, F, info);
  for (Int c = 0; c < n; c++) {
    std::vector<Scalar> e(n, 0.0);
    e[c] = 1;
    Kokkos::deep_copy(r, HostUView<const Scalar>(e.data(), n));
    petsckp::neumann::Apply(F, k, UView<const Scalar>(r.data(), n), UView<Scalar>(z.data(), n), UView<Scalar>(w1.data(), n), UView<Scalar>(w2.data(), n));
    auto zh = ToHost(z);
    for (Int i = 0; i < n; i++) M[i][c] = zh[i];
  }
  return M;
}

double MaxDiff(const Dense &A, const Dense &B)
{
  double d = 0, s = 0;
  for (size_t i = 0; i < A.size(); i++)
    for (size_t j = 0; j < A[i].size(); j++) {
      d = std::max(d, std::abs(A[i][j] - B[i][j]));
      s = std::max(s, std::abs(B[i][j]));
    }
  return d / std::max(s, 1e-300);
}

/* serial Horner reference z = Kt D^-1 K r on a host CSR */
std::vector<Scalar> RefNeumann(const HostCsr &h, Int k, const std::vector<Scalar> &r)
{
  Int                 n = h.nrows;
  std::vector<double> d(n, 0.0), t(r.begin(), r.end()), s(n), z(n), tmp(n);
  for (Int i = 0; i < n; i++)
    for (Int q = h.rowptr[i]; q < h.rowptr[i + 1]; q++)
      if (h.colidx[q] == i) d[i] += h.vals[q];
  for (Int it = 0; it < k; it++) {
    for (Int i = 0; i < n; i++) {
      double v = r[i];
      for (Int q = h.rowptr[i]; q < h.rowptr[i + 1]; q++)
        if (h.colidx[q] < i) v -= h.vals[q] / d[h.colidx[q]] * t[h.colidx[q]];
      tmp[i] = v;
    }
    t.swap(tmp);
  }
  for (Int i = 0; i < n; i++) s[i] = t[i] / d[i];
  z = s;
  for (Int it = 0; it < k; it++) {
    for (Int i = 0; i < n; i++) {
      double v = s[i];
      for (Int q = h.rowptr[i]; q < h.rowptr[i + 1]; q++)
        if (h.colidx[q] > i) v -= h.vals[q] / d[i] * z[h.colidx[q]];
      tmp[i] = v;
    }
    z.swap(tmp);
  }
  return std::vector<Scalar>(z.begin(), z.end());
}
} // namespace

TEST(Neumann, EqualsDenseFormula)
{
  for (Int n : {1, 2, 13, 40}) {
    auto h = SymmetricCsr(n, 0.7);
    auto A = ToDense(h);
    for (Int k : {0, 1, 2, 5}) {
      double e = MaxDiff(KernelDense(h, k), DenseNeumann(A, k));
      EXPECT_LT(e, 1e-13) << "n = " << n << ", k = " << k;
    }
  }
}

TEST(Neumann, ZeroTermsIsJacobi)
{
  auto h = SymmetricCsr(30, 1.1);
  auto M = KernelDense(h, 0);
  auto A = ToDense(h);
  for (Int i = 0; i < 30; i++)
    for (Int j = 0; j < 30; j++) EXPECT_EQ(M[i][j], i == j ? 1.0 / A[i][i] : 0.0);
}

TEST(Neumann, ManyTermsIsSymmetricGaussSeidel)
{
  for (Int n : {3, 6}) {
    auto h   = Laplace2d(n);
    auto A   = ToDense(h);
    auto SGS = DenseSGS(A);
    EXPECT_LT(MaxDiff(KernelDense(h, 2 * n - 2), SGS), 1e-13) << "k = 2n-2, n = " << n;
    EXPECT_GT(MaxDiff(KernelDense(h, 2 * n - 3), SGS), 1e-6) << "k = 2n-3 must still differ from SGS, n = " << n;
  }
  auto h = SymmetricCsr(12, 0.6, 3, 5);
  EXPECT_LT(MaxDiff(KernelDense(h, 11), DenseSGS(ToDense(h))), 1e-13);
}

TEST(Neumann, SymmetricPositiveDefinite)
{
  /* weak diagonal dominance (0.5): ||L D^-1|| may exceed 1, M^-1 must be SPD anyway */
  auto h = SymmetricCsr(25, 0.5, 4, 9);
  for (Int k : {0, 1, 2, 3, 7}) {
    auto M = KernelDense(h, k);
    Int  n = (Int)M.size();
    EXPECT_LT(MaxDiff(M, Transpose(M)), 1e-14) << "k = " << k;
    /* Cholesky of M succeeds with positive pivots */
    Dense L(n, std::vector<double>(n, 0.0));
    bool  spd = true;
    for (Int j = 0; j < n && spd; j++) {
      double s = M[j][j];
      for (Int q = 0; q < j; q++) s -= L[j][q] * L[j][q];
      if (!(s > 1e-14 * M[j][j])) spd = false;
      else L[j][j] = std::sqrt(s);
      for (Int i = j + 1; i < n && spd; i++) {
        double t = M[i][j];
        for (Int q = 0; q < j; q++) t -= L[i][q] * L[j][q];
        L[i][j] = t / L[j][j];
      }
    }
    EXPECT_TRUE(spd) << "k = " << k;
  }
}

TEST(Neumann, ApplyAllSizes)
{
  for (Int n : Sizes()) {
    auto             h = SymmetricCsr(n, 0.8);
    auto             A = DeviceCsr(h);
    petsckp::neumann::Factors   F;
    petsckp::neumann::SetupInfo info;
    petsckp::neumann::Setup(A, F, info);
    EXPECT_EQ(info.bad_diag_row, -1);
    EXPECT_EQ(info.nonfinite_row, -1);
    auto r = RandomVector(n, 7 + (unsigned)n);
    auto rd = ToDevice(r);
    View<Scalar> z("z", n), w1("w1", n), w2("w2", n), y("y", n);
    for (Int k : {0, 1, 2, 3}) {
      petsckp::neumann::Apply(F, k, UView<const Scalar>(rd.data(), n), UView<Scalar>(z.data(), n), UView<Scalar>(w1.data(), n), UView<Scalar>(w2.data(), n));
      EXPECT_LT(RelErr(ToHost(z), RefNeumann(h, k, r)), 1e-13) << "n = " << n << ", k = " << k;
      /* left and right halves compose to the full application */
      petsckp::neumann::ApplyLeft(F, k, UView<const Scalar>(rd.data(), n), UView<Scalar>(y.data(), n), UView<Scalar>(w1.data(), n), UView<Scalar>(w2.data(), n));
      petsckp::neumann::ApplyRight(F, k, UView<const Scalar>(y.data(), n), UView<Scalar>(z.data(), n), UView<Scalar>(w1.data(), n), UView<Scalar>(w2.data(), n));
      EXPECT_LT(RelErr(ToHost(z), RefNeumann(h, k, r)), 1e-13) << "halves, n = " << n << ", k = " << k;
    }
  }
}

TEST(Neumann, SetupDetectsBadDiagonalAndNaN)
{
  auto h = SymmetricCsr(50, 1.0);
  for (Int q = h.rowptr[17]; q < h.rowptr[18]; q++)
    if (h.colidx[q] == 17) h.vals[q] = -2.0;
  for (Int q = h.rowptr[33]; q < h.rowptr[34]; q++)
    if (h.colidx[q] == 33) h.vals[q] = 0.0;
  petsckp::neumann::Factors   F;
  petsckp::neumann::SetupInfo info;
  petsckp::neumann::Setup(DeviceCsr(h), F, info);
  EXPECT_EQ(info.bad_diag_row, 17);
  EXPECT_EQ(info.diag_value, -2.0);
  auto g       = SymmetricCsr(50, 1.0);
  g.vals[g.rowptr[41]] = NAN;
  petsckp::neumann::Setup(DeviceCsr(g), F, info);
  EXPECT_EQ(info.nonfinite_row, 41);
}

/* PETSc level: PCNEUMANN with k = 0 equals PCJACOBI; a zero diagonal is an error */
static void PCOnMat(const HostCsr &h, const char *type, PetscInt k, Vec x, Vec y, PetscErrorCode *ierr)
{
  Mat A;
  PC  pc;
  std::vector<PetscInt> nnz(h.nrows);
  MatCreate(PETSC_COMM_SELF, &A);
  MatSetSizes(A, h.nrows, h.ncols, h.nrows, h.ncols);
  MatSetType(A, MATAIJ);
  MatSetFromOptions(A);
  for (Int i = 0; i < h.nrows; i++) nnz[i] = h.rowptr[i + 1] - h.rowptr[i];
  MatSeqAIJSetPreallocation(A, 0, nnz.data());
  for (Int i = 0; i < h.nrows; i++) MatSetValues(A, 1, &i, nnz[i], h.colidx.data() + h.rowptr[i], h.vals.data() + h.rowptr[i], INSERT_VALUES);
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  PCCreate(PETSC_COMM_SELF, &pc);
  PCSetOperators(pc, A, A);
  PCSetType(pc, type);
  PCNeumannSetTerms(pc, k);
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  *ierr = PCSetUp(pc);
  if (!*ierr) *ierr = PCApply(pc, x, y);
  PetscPopErrorHandler();
  PCDestroy(&pc);
  MatDestroy(&A);
}

TEST(Neumann, PCMatchesJacobiAndChecksDiagonal)
{
  auto     h = SymmetricCsr(97, 0.9);
  Vec      x, y1, y2;
  PetscInt k;
  PetscReal d, nrm;
  PetscErrorCode ierr;
  VecCreateSeq(PETSC_COMM_SELF, 97, &x);
  VecDuplicate(x, &y1);
  VecDuplicate(x, &y2);
  VecSetRandom(x, nullptr);
  PCOnMat(h, PCJACOBI, 0, x, y1, &ierr);
  ASSERT_EQ((int)ierr, 0);
  PCOnMat(h, PCNEUMANN, 0, x, y2, &ierr);
  ASSERT_EQ((int)ierr, 0);
  VecAXPY(y2, -1.0, y1);
  VecNorm(y2, NORM_INFINITY, &d);
  VecNorm(y1, NORM_INFINITY, &nrm);
  EXPECT_LE(d, 1e-15 * nrm);
  /* terms option round trip */
  {
    PC pc;
    PCCreate(PETSC_COMM_SELF, &pc);
    PCSetType(pc, PCNEUMANN);
    PCNeumannSetTerms(pc, 3);
    PCNeumannGetTerms(pc, &k);
    EXPECT_EQ(k, 3);
    PCDestroy(&pc);
  }
  for (Int q = h.rowptr[5]; q < h.rowptr[6]; q++)
    if (h.colidx[q] == 5) h.vals[q] = 0.0;
  PCOnMat(h, PCNEUMANN, 1, x, y2, &ierr);
  EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_WRONG);
  VecDestroy(&x);
  VecDestroy(&y1);
  VecDestroy(&y2);
}

/* ---- the depth of L D^-1 (the cap of the number of terms) and the NaN/Inf scan */
namespace
{
/* strictly lower part of a random pattern */
HostCsr RandomStrictlyLower(Int n, unsigned seed)
{
  HostCsr r = RandomCsr(n, n, seed), L;
  L.nrows = L.ncols = n;
  L.rowptr.push_back(0);
  for (Int i = 0; i < n; i++) {
    for (Int q = r.rowptr[i]; q < r.rowptr[i + 1]; q++)
      if (r.colidx[q] < i) L.colidx.push_back(r.colidx[q]), L.vals.push_back(r.vals[q]);
    L.rowptr.push_back((Int)L.colidx.size());
  }
  return L;
}

/* reference depth by level sets: R_1 = rows with an entry, R_j = rows with an entry in a column of R_{j-1};
   the depth is the last j with R_j not empty */
Int RefDepth(const HostCsr &L)
{
  std::vector<char> in(L.nrows, 1), next(L.nrows);
  Int               j = 0;
  for (;;) {
    bool any = false;
    for (Int i = 0; i < L.nrows; i++) {
      next[i] = 0;
      for (Int q = L.rowptr[i]; q < L.rowptr[i + 1]; q++)
        if (in[L.colidx[q]]) next[i] = 1;
      any = any || next[i];
    }
    if (!any) return j;
    in.swap(next);
    j++;
  }
}
} // namespace

TEST(Neumann, SeriesDepthAgainstLevelSets)
{
  for (Int n : Sizes()) {
    auto L = RandomStrictlyLower(n, 17 + (unsigned)n);
    EXPECT_EQ(petsckp::neumann::SeriesDepth(DeviceCsr(L)), RefDepth(L)) << "n = " << n;
  }
  /* the 5-point stencil on an m x m grid: 2m - 2, through the factors of the setup */
  for (Int m : {1, 2, 5, 25}) {
    petsckp::neumann::Factors   F;
    petsckp::neumann::SetupInfo info;
    petsckp::neumann::Setup(DeviceCsr(Laplace2d(m)), F, info);
    EXPECT_EQ(petsckp::neumann::SeriesDepth(F.B), 2 * m - 2) << "m = " << m;
  }
}

/* ---- PETSc level: options, messages, the stopping test with deflation */
namespace
{
/* the first message of the first error raised while the handler is pushed */
PetscErrorCode CaptureError(MPI_Comm, int, const char *, const char *, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  auto *s = static_cast<std::string *>(ctx);
  if (p == PETSC_ERROR_INITIAL && s->empty() && mess) *s = mess;
  return n;
}

/* runs f with errors returned (not printed); the error code and its message */
template <class F>
PetscErrorCode Capture(F f, std::string &msg)
{
  msg.clear();
  PetscPushErrorHandler(CaptureError, &msg);
  PetscErrorCode ierr = f();
  PetscPopErrorHandler();
  return ierr;
}

Mat SeqAIJ(const HostCsr &h)
{
  Mat                   A;
  std::vector<PetscInt> nnz(h.nrows);
  MatCreate(PETSC_COMM_SELF, &A);
  MatSetSizes(A, h.nrows, h.ncols, h.nrows, h.ncols);
  MatSetType(A, MATSEQAIJ);
  for (Int i = 0; i < h.nrows; i++) nnz[i] = h.rowptr[i + 1] - h.rowptr[i];
  MatSeqAIJSetPreallocation(A, 0, nnz.data());
  for (Int i = 0; i < h.nrows; i++) MatSetValues(A, 1, &i, nnz[i], h.colidx.data() + h.rowptr[i], h.vals.data() + h.rowptr[i], INSERT_VALUES);
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  return A;
}

/* the 2D bubbly-flow pressure matrix of Gupta, van Gijzen and Vuik: cell-centred, n x n cells, coefficient (1/rho)
   `contrast` below y = 1/2 and 1 above, harmonic face means, Neumann on three sides, Dirichlet on top */
HostCsr Layer2d(Int n, double contrast)
{
  HostCsr A;
  auto    coef = [&](Int j) { return (j + 0.5) / n < 0.5 ? contrast : 1.0; };
  A.nrows = A.ncols = n * n;
  A.rowptr.push_back(0);
  for (Int j = 0; j < n; j++)
    for (Int i = 0; i < n; i++) {
      std::vector<std::pair<Int, double>> row;
      double                              c = coef(j), diag = 0;
      const Int                           nb[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
      for (auto &d : nb) {
        Int ii = i + d[0], jj = j + d[1];
        if (ii < 0 || ii >= n || jj < 0) continue;
        if (jj >= n) {
          diag += 2 * c;
          continue;
        }
        double cn = coef(jj), cf = 2 * c * cn / (c + cn);
        row.push_back({ii + n * jj, -cf});
        diag += cf;
      }
      row.push_back({i + n * j, diag});
      std::sort(row.begin(), row.end());
      for (auto &e : row) A.colidx.push_back(e.first), A.vals.push_back(e.second);
      A.rowptr.push_back((Int)A.colidx.size());
    }
  return A;
}

/* a KSP of the given type on A with PCNEUMANN (its PC in *pc) */
KSP NeumannKSP(Mat A, const char *ktype, PC *pc)
{
  KSP ksp;
  KSPCreate(PETSC_COMM_SELF, &ksp);
  KSPSetOperators(ksp, A, A);
  KSPSetType(ksp, ktype);
  KSPGetPC(ksp, pc);
  PCSetType(*pc, PCNEUMANN);
  return ksp;
}

struct SolveResult {
  PetscInt           its    = 0;
  KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
  KSPNormType        norm   = KSP_NORM_DEFAULT;
  double             relres = 0;
};

/* solves A x = b (b = h^2 (sin(3i + 1.7j) + 0.2), the smooth right-hand side of the bubbly-flow tests) with the KSP
   type and PCNEUMANN configured by conf, from x0 = 0 or a random x0; the true relative residual at the end */
template <class Conf>
SolveResult SolveLayer(Mat A, Int n, const char *ktype, bool zero_guess, Conf conf)
{
  KSP         ksp;
  PC          pc;
  Vec         b, x, r;
  PetscScalar *a;
  PetscReal   nb, nr;
  SolveResult run;
  MatCreateVecs(A, &x, &b);
  VecDuplicate(b, &r);
  VecGetArray(b, &a);
  for (Int j = 0; j < n; j++)
    for (Int i = 0; i < n; i++) a[i + n * j] = (std::sin(3.0 * i + 1.7 * j) + 0.2) / ((double)n * n);
  VecRestoreArray(b, &a);
  if (zero_guess) VecSet(x, 0.0);
  else {
    PetscRandom rnd;
    PetscRandomCreate(PETSC_COMM_SELF, &rnd);
    VecSetRandom(x, rnd);
    PetscRandomDestroy(&rnd);
  }
  ksp = NeumannKSP(A, ktype, &pc);
  KSPSetTolerances(ksp, 1e-6, 0.0, 1e30, 2000);
  KSPSetInitialGuessNonzero(ksp, zero_guess ? PETSC_FALSE : PETSC_TRUE);
  conf(ksp, pc);
  EXPECT_EQ((int)KSPSolve(ksp, b, x), 0);
  KSPGetIterationNumber(ksp, &run.its);
  KSPGetConvergedReason(ksp, &run.reason);
  KSPGetNormType(ksp, &run.norm);
  MatMult(A, x, r);
  VecAYPX(r, -1.0, b);
  VecNorm(r, NORM_2, &nr);
  VecNorm(b, NORM_2, &nb);
  run.relres = nr / nb;
  KSPDestroy(&ksp);
  VecDestroy(&b);
  VecDestroy(&x);
  VecDestroy(&r);
  return run;
}
} // namespace

/* CG + PCNEUMANN with deflation and the KSP's default norm: the true residual meets rtol (before, the test in the
   preconditioned norm stopped 170 to 800 times above it here), as KSPDCG with the same space does, in as many
   iterations; an explicit norm is kept; without deflation the KSP's default norm comes back */
TEST(Neumann, DeflationStopsOnTheTrueResidual)
{
  const Int n = 32;
  Mat       A = SeqAIJ(Layer2d(n, 1e-3));
  auto      neumann = [](KSP, PC pc) {
    PCNeumannSetDeflationSpaceType(pc, PC_NEUMANN_DEFLATION_SPACE_CHUNKS);
    PCNeumannSetDeflationSubdomains(pc, 16);
  };
  for (bool zero : {true, false}) {
    SolveResult cg = SolveLayer(A, n, KSPCG, zero, neumann);
    EXPECT_GT(cg.reason, 0);
    EXPECT_LE(cg.relres, 1.01e-6) << (zero ? "zero" : "random") << " guess: true relative residual above rtol";
    EXPECT_EQ(cg.norm, KSP_NORM_UNPRECONDITIONED);
    SolveResult dcg = SolveLayer(A, n, KSPDCG, zero, [](KSP ksp, PC) {
      PetscOptionsSetValue(NULL, "-ksp_dcg_space", "chunks");
      PetscOptionsSetValue(NULL, "-ksp_dcg_subdomains", "16");
      KSPSetFromOptions(ksp);
      PetscOptionsClearValue(NULL, "-ksp_dcg_space");
      PetscOptionsClearValue(NULL, "-ksp_dcg_subdomains");
    });
    EXPECT_GT(dcg.reason, 0);
    EXPECT_LE(std::abs((double)(cg.its - dcg.its)), 1.0) << "CG + A-DEF2 and DEF1 stop together";
    /* BNN too */
    SolveResult bnn = SolveLayer(A, n, KSPCG, zero, [&](KSP ksp, PC pc) {
      neumann(ksp, pc);
      PCNeumannSetDeflationVariant(pc, PC_NEUMANN_DEFLATION_BNN);
    });
    EXPECT_LE(bnn.relres, 1.01e-6);
  }
  /* an explicit norm is the user's */
  SolveResult pre = SolveLayer(A, n, KSPCG, true, [&](KSP ksp, PC pc) {
    neumann(ksp, pc);
    KSPSetNormType(ksp, KSP_NORM_PRECONDITIONED);
  });
  EXPECT_EQ(pre.norm, KSP_NORM_PRECONDITIONED);
  /* deflation off again on the same KSP: its default norm comes back */
  {
    KSP      ksp;
    PC       pc;
    Vec      b, x;
    KSPNormType nt;
    MatCreateVecs(A, &x, &b);
    VecSet(b, 1.0);
    ksp = NeumannKSP(A, KSPCG, &pc);
    neumann(ksp, pc);
    EXPECT_EQ((int)KSPSolve(ksp, b, x), 0);
    KSPGetNormType(ksp, &nt);
    EXPECT_EQ(nt, KSP_NORM_UNPRECONDITIONED);
    PCNeumannSetDeflation(pc, PETSC_FALSE);
    EXPECT_EQ((int)KSPSolve(ksp, b, x), 0);
    KSPGetNormType(ksp, &nt);
    EXPECT_EQ(nt, KSP_NORM_PRECONDITIONED);
    KSPDestroy(&ksp);
    VecDestroy(&b);
    VecDestroy(&x);
  }
  MatDestroy(&A);
}

/* every option has a setter and a getter; out-of-range values, NaN and invalid enum values are errors that name the
   option with the PC's prefix */
TEST(Neumann, OptionsCheckedAndNamedWithPrefix)
{
  PC                           pc;
  std::string                  msg;
  PetscInt                     k, d, bx, by, bz;
  PetscBool                    on;
  PCNeumannDeflationSpaceType  st;
  PCNeumannDeflationCoarseType ct;
  PCNeumannDeflationVariant    v;
  PetscReal                    rt;

  PCCreate(PETSC_COMM_SELF, &pc);
  PCSetType(pc, PCNEUMANN);
  PCSetOptionsPrefix(pc, "sub_");
  /* round trips */
  PCNeumannSetTerms(pc, 3);
  PCNeumannGetTerms(pc, &k);
  EXPECT_EQ(k, 3);
  PCNeumannGetDeflation(pc, &on);
  EXPECT_EQ(on, PETSC_FALSE);
  PCNeumannGetDeflationSpaceType(pc, &st);
  EXPECT_EQ(st, PC_NEUMANN_DEFLATION_SPACE_NONE);
  PCNeumannSetDeflation(pc, PETSC_TRUE);
  PCNeumannGetDeflation(pc, &on);
  EXPECT_EQ(on, PETSC_TRUE);
  PCNeumannGetDeflationSpaceType(pc, &st);
  EXPECT_EQ(st, PC_NEUMANN_DEFLATION_SPACE_CHUNKS); /* the default without a DMDA */
  PCNeumannSetDeflationSpaceType(pc, PC_NEUMANN_DEFLATION_SPACE_BLOCKS);
  PCNeumannGetDeflationSpaceType(pc, &st);
  EXPECT_EQ(st, PC_NEUMANN_DEFLATION_SPACE_BLOCKS);
  PCNeumannSetDeflationSubdomains(pc, 12);
  PCNeumannGetDeflationSubdomains(pc, &d);
  EXPECT_EQ(d, 12);
  PCNeumannSetDeflationBlocks(pc, 2, 3, 4);
  PCNeumannGetDeflationBlocks(pc, &bx, &by, &bz);
  EXPECT_EQ(bx * 100 + by * 10 + bz, 234);
  PCNeumannSetDeflationCoarseType(pc, PC_NEUMANN_DEFLATION_COARSE_INVERSE);
  PCNeumannGetDeflationCoarseType(pc, &ct);
  EXPECT_EQ(ct, PC_NEUMANN_DEFLATION_COARSE_INVERSE);
  PCNeumannSetDeflationCoarsePivotRtol(pc, 1e-10);
  PCNeumannGetDeflationCoarsePivotRtol(pc, &rt);
  EXPECT_EQ(rt, 1e-10);
  PCNeumannSetDeflationVariant(pc, PC_NEUMANN_DEFLATION_BNN);
  PCNeumannGetDeflationVariant(pc, &v);
  EXPECT_EQ(v, PC_NEUMANN_DEFLATION_BNN);
  PCNeumannSetDeflation(pc, PETSC_FALSE); /* off, and on again with the same space type */
  PCNeumannGetDeflationSpaceType(pc, &st);
  EXPECT_EQ(st, PC_NEUMANN_DEFLATION_SPACE_NONE);
  PCNeumannSetDeflationSpaceType(pc, PC_NEUMANN_DEFLATION_SPACE_BLOCKS);
  PCNeumannGetDeflation(pc, &on);
  EXPECT_EQ(on, PETSC_TRUE);
  PCNeumannSetDeflationSpaceType(pc, PC_NEUMANN_DEFLATION_SPACE_NONE);
  PCNeumannGetDeflation(pc, &on);
  EXPECT_EQ(on, PETSC_FALSE);

  /* bad values through the setters */
  struct Case {
    std::function<PetscErrorCode()> call;
    const char                     *option;
  };
  std::vector<Case> cases = {
    {[&] { return PCNeumannSetTerms(pc, -1); }, "-sub_pc_neumann_terms"},
    {[&] { return PCNeumannSetDeflationSubdomains(pc, -3); }, "-sub_pc_neumann_deflation_subdomains"},
    {[&] { return PCNeumannSetDeflationBlocks(pc, 2, -1, 2); }, "-sub_pc_neumann_deflation_blocks"},
    {[&] { return PCNeumannSetDeflationCoarsePivotRtol(pc, NAN); }, "-sub_pc_neumann_deflation_coarse_pivot_rtol"},
    {[&] { return PCNeumannSetDeflationCoarsePivotRtol(pc, -1e-3); }, "-sub_pc_neumann_deflation_coarse_pivot_rtol"},
    {[&] { return PCNeumannSetDeflationCoarsePivotRtol(pc, 1.0); }, "-sub_pc_neumann_deflation_coarse_pivot_rtol"},
    {[&] { return PCNeumannSetDeflationSpaceType(pc, (PCNeumannDeflationSpaceType)7); }, "-sub_pc_neumann_deflation_space"},
    {[&] { return PCNeumannSetDeflationSpaceType(pc, (PCNeumannDeflationSpaceType)-1); }, "-sub_pc_neumann_deflation_space"},
    {[&] { return PCNeumannSetDeflationCoarseType(pc, (PCNeumannDeflationCoarseType)2); }, "-sub_pc_neumann_deflation_coarse"},
    {[&] { return PCNeumannSetDeflationVariant(pc, (PCNeumannDeflationVariant)5); }, "-sub_pc_neumann_deflation_variant"},
  };
  for (auto &c : cases) {
    EXPECT_EQ((int)Capture(c.call, msg), (int)PETSC_ERR_ARG_OUTOFRANGE) << c.option;
    EXPECT_NE(msg.find(c.option), std::string::npos) << "message \"" << msg << "\" does not name " << c.option;
  }
  /* the values are unchanged */
  PCNeumannGetTerms(pc, &k);
  PCNeumannGetDeflationSubdomains(pc, &d);
  PCNeumannGetDeflationCoarsePivotRtol(pc, &rt);
  EXPECT_EQ(k, 3);
  EXPECT_EQ(d, 12);
  EXPECT_EQ(rt, 1e-10);
  /* and through the options database */
  for (auto opt : std::vector<std::pair<const char *, const char *>>{{"-sub_pc_neumann_deflation_subdomains", "-4"}, {"-sub_pc_neumann_deflation_coarse_pivot_rtol", "nan"}, {"-sub_pc_neumann_terms", "-2"}}) {
    PetscOptionsSetValue(NULL, opt.first, opt.second);
    EXPECT_EQ((int)Capture([&] { return PCSetFromOptions(pc); }, msg), (int)PETSC_ERR_ARG_OUTOFRANGE) << opt.first;
    EXPECT_TRUE(kptest::NamesOption(msg, opt.first)) << "message \"" << msg << "\" does not name " << opt.first;
    PetscOptionsClearValue(NULL, opt.first);
  }
  PCDestroy(&pc);
}

/* a huge number of terms is capped at the depth of L D^-1 (exact symmetric Gauss-Seidel from there on): the same
   preconditioner, applied at once, and -pc_view says so */
TEST(Neumann, TermsCappedAtSeriesDepth)
{
  const Int m = 25; /* 625 unknowns, depth 2m - 2 = 48 */
  Mat       A = SeqAIJ(Laplace2d(m));
  Vec       x, y1, y2;
  PC        pc;
  PetscReal d, nrm;
  MatCreateVecs(A, &x, &y1);
  VecDuplicate(y1, &y2);
  VecSetRandom(x, nullptr);
  for (PetscInt k : {(PetscInt)48, (PetscInt)2000000000}) {
    PCCreate(PETSC_COMM_SELF, &pc);
    PCSetOperators(pc, A, A);
    PCSetType(pc, PCNEUMANN);
    PCNeumannSetTerms(pc, k);
    ASSERT_EQ((int)PCSetUp(pc), 0);
    ASSERT_EQ((int)PCApply(pc, x, k == 48 ? y1 : y2), 0);
    if (k > 48) {
      PetscViewer v;
      std::string path = ::testing::TempDir() + "neumann_view.txt";
      PetscViewerASCIIOpen(PETSC_COMM_SELF, path.c_str(), &v);
      PCView(pc, v);
      PetscViewerDestroy(&v);
      std::ifstream f(path);
      std::string   text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      EXPECT_NE(text.find("terms k = 2000000000 (capped at 48: exact symmetric Gauss-Seidel)"), std::string::npos) << text;
    }
    PCDestroy(&pc);
  }
  VecAXPY(y2, -1.0, y1);
  VecNorm(y2, NORM_INFINITY, &d);
  VecNorm(y1, NORM_INFINITY, &nrm);
  EXPECT_LE(d, 1e-14 * nrm);
  VecDestroy(&x);
  VecDestroy(&y1);
  VecDestroy(&y2);
  MatDestroy(&A);
}

/* a NaN matrix entry is reported as such, with its row, also with deflation on (before the deflation setup, whose
   coarse matrix it would spoil) */
TEST(Neumann, NaNEntryReportedWithDeflation)
{
  auto        h = Layer2d(16, 1e-3);
  std::string msg;
  h.vals[h.rowptr[41] + 1] = NAN;
  Mat A = SeqAIJ(h);
  for (PetscBool defl : {PETSC_FALSE, PETSC_TRUE}) {
    KSP ksp;
    PC  pc;
    Vec b, x;
    MatCreateVecs(A, &x, &b);
    VecSet(b, 1.0);
    ksp = NeumannKSP(A, KSPCG, &pc);
    PCNeumannSetDeflation(pc, defl);
    EXPECT_EQ((int)Capture([&] { return KSPSolve(ksp, b, x); }, msg), (int)PETSC_ERR_FP) << "deflation " << (int)defl;
    EXPECT_NE(msg.find("NaN or Inf entry in row 41"), std::string::npos) << msg;
    KSPDestroy(&ksp);
    VecDestroy(&b);
    VecDestroy(&x);
  }
  MatDestroy(&A);
}

/* a zero or negative diagonal entry is reported as such, with its row, as a wrong operator (not as a zero pivot of a
   factorisation: PCNEUMANN factors nothing), also with deflation, PCNEUMANN's or KSPDCG's (checked before the
   deflation setup) */
TEST(Neumann, BadDiagonalReportedWithItsRow)
{
  for (double d : {0.0, -1.0})
    for (int defl : {0, 1, 2}) { /* none, PCNEUMANN's, KSPDCG's (whose coarse factorisation used to fail first) */
      auto        h = Layer2d(16, 1e-3);
      std::string msg;
      for (Int q = h.rowptr[41]; q < h.rowptr[42]; q++)
        if (h.colidx[q] == 41) h.vals[q] = d;
      Mat A = SeqAIJ(h);
      Vec b, x;
      PC  pc;
      MatCreateVecs(A, &x, &b);
      VecSet(b, 1.0);
      KSP ksp = NeumannKSP(A, defl == 2 ? KSPDCG : KSPCG, &pc);
      PCNeumannSetDeflation(pc, defl == 1 ? PETSC_TRUE : PETSC_FALSE);
      EXPECT_EQ((int)Capture([&] { return KSPSolve(ksp, b, x); }, msg), (int)PETSC_ERR_ARG_WRONG) << "diagonal " << d << ", deflation " << defl << ": " << msg;
      EXPECT_NE(msg.find("PCNEUMANN needs a positive diagonal"), std::string::npos) << msg;
      EXPECT_NE(msg.find("row 41 of the preconditioning matrix has diagonal"), std::string::npos) << msg;
      if (d == 0) EXPECT_NE(msg.find("(zero or missing)"), std::string::npos) << msg;
      KSPDestroy(&ksp);
      VecDestroy(&b);
      VecDestroy(&x);
      MatDestroy(&A);
    }
}

/* PCSetFromOptions() without a change keeps the deflation space; a changed setting rebuilds it */
TEST(Neumann, SetFromOptionsKeepsTheDeflationSpace)
{
  Mat                A = SeqAIJ(Layer2d(16, 1e-3));
  KSP                ksp;
  PC                 pc;
  Vec                b, x;
  PetscLogEvent      ev;
  PetscEventPerfInfo info;
  int                c0;
  PetscLogDefaultBegin();
  PetscLogEventGetId("PCNeumannDeflSetup", &ev);
  MatCreateVecs(A, &x, &b);
  VecSet(b, 1.0);
  ksp = NeumannKSP(A, KSPCG, &pc);
  PCNeumannSetDeflation(pc, PETSC_TRUE);
  ASSERT_EQ((int)KSPSolve(ksp, b, x), 0);
  PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info);
  c0 = info.count;
  EXPECT_GE(c0, 1);
  KSPSetFromOptions(ksp);
  PCSetFromOptions(pc);
  ASSERT_EQ((int)KSPSolve(ksp, b, x), 0);
  PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info);
  EXPECT_EQ(info.count, c0) << "the deflation space was rebuilt although no option changed";
  PetscOptionsSetValue(NULL, "-pc_neumann_deflation_subdomains", "9");
  PCSetFromOptions(pc);
  PetscOptionsClearValue(NULL, "-pc_neumann_deflation_subdomains");
  ASSERT_EQ((int)KSPSolve(ksp, b, x), 0);
  PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info);
  EXPECT_EQ(info.count, c0 + 1) << "a new number of chunks must rebuild the space";
  KSPDestroy(&ksp);
  VecDestroy(&b);
  VecDestroy(&x);
  MatDestroy(&A);
}

/* the 1D Laplacian of N rows (row 0 with 3 on the diagonal) split evenly over two ranks; bad(rank, A) inserts the
   entries of a bad operator before the assembly */
static Mat Laplace1DTwoRanks(PetscMPIInt rank, PetscInt N, const std::function<void(PetscMPIInt, Mat)> &bad)
{
  const PetscInt m = N / 2;
  Mat            A;
  MatCreateAIJ(PETSC_COMM_WORLD, m, m, N, N, 3, NULL, 1, NULL, &A);
  for (PetscInt i = rank * m; i < (rank + 1) * m; i++) {
    if (i > 0) MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES);
    MatSetValue(A, i, i, 2.0 + (i == 0), INSERT_VALUES);
    if (i < N - 1) MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES);
  }
  bad(rank, A);
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  return A;
}

/* CG + PCNEUMANN on A, without and with deflation, fails on every rank with the error code and a message holding text */
static void ExpectNeumannSolveError(Mat A, PetscMPIInt rank, PetscErrorCode code, const std::string &text)
{
  for (PetscBool defl : {PETSC_FALSE, PETSC_TRUE}) {
    KSP         ksp;
    PC          pc;
    Vec         b, x;
    std::string msg;
    MatCreateVecs(A, &x, &b);
    VecSet(b, 1.0);
    KSPCreate(PETSC_COMM_WORLD, &ksp);
    KSPSetOperators(ksp, A, A);
    KSPSetType(ksp, KSPCG);
    KSPGetPC(ksp, &pc);
    PCSetType(pc, PCNEUMANN);
    PCNeumannSetDeflationSpaceType(pc, defl ? PC_NEUMANN_DEFLATION_SPACE_CHUNKS : PC_NEUMANN_DEFLATION_SPACE_NONE);
    EXPECT_EQ((int)Capture([&] { return KSPSolve(ksp, b, x); }, msg), (int)code) << "rank " << rank << ", deflation " << (int)defl;
    EXPECT_NE(msg.find(text), std::string::npos) << "rank " << rank << ": " << msg;
    KSPDestroy(&ksp);
    VecDestroy(&b);
    VecDestroy(&x);
  }
}

/* two ranks: a NaN in a coupling to the other rank (which the preconditioner drops, but the operator and the
   deflation use) is reported as a NaN matrix entry with its row, not as a singular coarse matrix */
TEST(NeumannMPI2, NaNInCouplingToOtherRank)
{
  PetscMPIInt size, rank;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  if (size != 2) GTEST_SKIP() << "needs 2 ranks";
  /* row 20 (rank 1) couples to row 19 of rank 0 */
  Mat A = Laplace1DTwoRanks(rank, 40, [](PetscMPIInt r, Mat M) { if (r == 1) MatSetValue(M, 20, 19, NAN, INSERT_VALUES); });
  ExpectNeumannSolveError(A, rank, PETSC_ERR_FP, "NaN or Inf entry in row 20");
  MatDestroy(&A);
}

/* two ranks: a zero diagonal entry on one rank is an error on both (collective), naming its global row */
TEST(NeumannMPI2, ZeroDiagonalOnOneRank)
{
  PetscMPIInt size, rank;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  if (size != 2) GTEST_SKIP() << "needs 2 ranks";
  Mat A = Laplace1DTwoRanks(rank, 40, [](PetscMPIInt r, Mat M) { if (r == 1) MatSetValue(M, 27, 27, 0.0, INSERT_VALUES); });
  ExpectNeumannSolveError(A, rank, PETSC_ERR_ARG_WRONG, "row 27 of the preconditioning matrix has diagonal 0. (zero or missing)");
  MatDestroy(&A);
}

/* A-DEF2 restricts r - A y as Z^T r - (AZ)^T y, right for a symmetric A only: a nonsymmetric operator (here the
   Dirichlet rows of the layer problem kept as identity rows that their neighbours still couple to, as KSP ex45
   writes them) is refused at the setup with a message that says why and what to use instead, where CG used to
   stagnate to its iteration limit; the symmetric layer problem passes the same test (rounding) */
TEST(Neumann, DeflationRefusesANonsymmetricOperator)
{
  const Int n = 16;
  HostCsr   h = Layer2d(n, 1e-3);
  for (Int i = 0; i < n; i++) { /* the top row of cells: identity rows */
    const Int row = (n - 1) * n + i;
    for (Int k = h.rowptr[row]; k < h.rowptr[row + 1]; k++) h.vals[k] = h.colidx[k] == row ? 1.0 : 0.0;
  }
  for (bool symmetric : {true, false}) {
    Mat         A = SeqAIJ(symmetric ? Layer2d(n, 1e-3) : h);
    KSP         ksp;
    PC          pc;
    std::string msg;
    ksp = NeumannKSP(A, KSPCG, &pc);
    PCNeumannSetDeflationSpaceType(pc, PC_NEUMANN_DEFLATION_SPACE_CHUNKS);
    PCNeumannSetDeflationSubdomains(pc, 8);
    PetscErrorCode ierr = Capture([&]() { return KSPSetUp(ksp); }, msg);
    if (symmetric) EXPECT_EQ(ierr, PETSC_SUCCESS) << msg;
    else {
      EXPECT_EQ(ierr, PETSC_ERR_ARG_WRONG);
      EXPECT_NE(msg.find("-pc_neumann_deflation needs a symmetric operator"), std::string::npos) << msg;
      EXPECT_NE(msg.find("-ksp_type dcg"), std::string::npos) << msg;
      /* a second setup with the same operator is refused again (the refused space is not kept) */
      EXPECT_EQ(Capture([&]() { return KSPSetUp(ksp); }, msg), PETSC_ERR_ARG_WRONG) << msg;
    }
    KSPDestroy(&ksp);
    MatDestroy(&A);
  }
}
