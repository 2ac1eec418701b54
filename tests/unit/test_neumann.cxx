/* Unit tests of the PCNEUMANN kernels (src/pc/neumann/neumann_kernels) against dense and serial references,
   and of the PC itself (k = 0 is Jacobi, errors for a bad diagonal). */
#include "kp_test.hpp"
#include "kp_sys.hpp"
#include "pc/neumann/neumann_kernels.hpp"

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
  NeumannFactors          F;
  NeumannSetupInfo        info;
  auto                    A = DeviceCsr(h);
  View<Scalar>            r("r", n), z("z", n), w1("w1", n), w2("w2", n);
  Dense                   M(n, std::vector<double>(n, 0.0));
  NeumannSetup(A, F, info);
  for (Int c = 0; c < n; c++) {
    std::vector<Scalar> e(n, 0.0);
    e[c] = 1;
    Kokkos::deep_copy(r, HostUView<const Scalar>(e.data(), n));
    NeumannApply(F, k, UView<const Scalar>(r.data(), n), UView<Scalar>(z.data(), n), UView<Scalar>(w1.data(), n), UView<Scalar>(w2.data(), n));
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
    NeumannFactors   F;
    NeumannSetupInfo info;
    NeumannSetup(A, F, info);
    EXPECT_EQ(info.bad_diag_row, -1);
    EXPECT_EQ(info.nonfinite_row, -1);
    auto r = RandomVector(n, 7 + (unsigned)n);
    auto rd = ToDevice(r);
    View<Scalar> z("z", n), w1("w1", n), w2("w2", n), y("y", n);
    for (Int k : {0, 1, 2, 3}) {
      NeumannApply(F, k, UView<const Scalar>(rd.data(), n), UView<Scalar>(z.data(), n), UView<Scalar>(w1.data(), n), UView<Scalar>(w2.data(), n));
      EXPECT_LT(RelErr(ToHost(z), RefNeumann(h, k, r)), 1e-13) << "n = " << n << ", k = " << k;
      /* left and right halves compose to the full application */
      NeumannApplyLeft(F, k, UView<const Scalar>(rd.data(), n), UView<Scalar>(y.data(), n), UView<Scalar>(w1.data(), n), UView<Scalar>(w2.data(), n));
      NeumannApplyRight(F, k, UView<const Scalar>(y.data(), n), UView<Scalar>(z.data(), n), UView<Scalar>(w1.data(), n), UView<Scalar>(w2.data(), n));
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
  NeumannFactors   F;
  NeumannSetupInfo info;
  NeumannSetup(DeviceCsr(h), F, info);
  EXPECT_EQ(info.bad_diag_row, 17);
  EXPECT_EQ(info.diag_value, -2.0);
  auto g       = SymmetricCsr(50, 1.0);
  g.vals[g.rowptr[41]] = NAN;
  NeumannSetup(DeviceCsr(g), F, info);
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
  EXPECT_EQ((int)ierr, (int)PETSC_ERR_MAT_LU_ZRPVT);
  VecDestroy(&x);
  VecDestroy(&y1);
  VecDestroy(&y2);
}
