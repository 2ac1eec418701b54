/* Unit tests of src/sys/kp_dense: Cholesky and inverse of small SPD matrices against a serial reference, and
   the errors for indefinite and singular matrices. */
#include "kp_test.hpp"
#include "kp_dense.hpp"

using namespace kptest;

namespace
{
/* a random SPD matrix B B^T + shift I, column-major */
std::vector<Scalar> RandomSpd(Int d, unsigned seed, double shift)
{
  auto                B = RandomVector(d * d, seed);
  std::vector<Scalar> E((size_t)d * d, 0.0);
  for (Int i = 0; i < d; i++)
    for (Int j = 0; j < d; j++) {
      double s = (i == j) ? shift : 0.0;
      for (Int k = 0; k < d; k++) s += B[i + k * d] * B[j + k * d];
      E[i + (size_t)j * d] = s;
    }
  return E;
}

std::vector<Scalar> RefMatVec(Int d, const std::vector<Scalar> &E, const std::vector<Scalar> &x)
{
  std::vector<Scalar> y(d, 0.0);
  for (Int j = 0; j < d; j++)
    for (Int i = 0; i < d; i++) y[i] += E[i + (size_t)j * d] * x[j];
  return y;
}
} // namespace

TEST(Dense, CholeskyAndInverseSolve)
{
  for (Int d : {0, 1, 13, 200}) {
    auto E  = RandomSpd(d, 3 + (unsigned)d, 0.5);
    auto xs = RandomVector(d, 11);
    auto b  = RefMatVec(d, E, xs);
    auto bd = ToDevice(b);
    for (auto form : {DenseSpdForm::Cholesky, DenseSpdForm::Inverse}) {
      DenseSpd S;
      ASSERT_EQ((int)DenseSpdSetUp(PETSC_COMM_SELF, d, E.data(), form, 1e-13, S), 0);
      View<Scalar> x("x", d);
      DenseSpdSolve(S, UView<const Scalar>(bd.data(), d), UView<Scalar>(x.data(), d));
      EXPECT_LT(RelErr(ToHost(x), xs), 1e-9) << "d = " << d << (form == DenseSpdForm::Inverse ? " inverse" : " cholesky");
    }
  }
}

/* the solve with the two sums of the deflated CG iteration: {b^T E^-1 b, sum zw_i s_i^2} on the device, x as DenseSpdSolve()
   gives it, s of length d or empty (the sizes 0, 1, 13, 597 and a large 1024) */
TEST(Dense, SolveDotsMatchesReference)
{
  for (Int d : {0, 1, 13, 597, 1024}) {
    /* symmetric, diagonally dominant: SPD (O(d^2) to make) */
    auto                R = RandomVector(d * d, 5 + (unsigned)d);
    std::vector<Scalar> E((size_t)d * d);
    for (Int j = 0; j < d; j++)
      for (Int i = 0; i < d; i++) E[i + (size_t)j * d] = i == j ? 1.0 * d : 0.5 * (R[i + (size_t)j * d] + R[j + (size_t)i * d]);
    auto b  = RandomVector(d, 12), s = RandomVector(d, 13), zw = RandomVector(d, 14, 0.1, 2.0);
    auto bd = ToDevice(b), sd = ToDevice(s);
    auto zd = ToDevice(zw);
    for (auto form : {DenseSpdForm::Cholesky, DenseSpdForm::Inverse}) {
      DenseSpd S;
      ASSERT_EQ((int)DenseSpdSetUp(PETSC_COMM_SELF, d, E.data(), form, 1e-16, S), 0);
      for (bool withs : {true, false}) {
        View<Scalar>                   x("x", d), xref("xref", d);
        Kokkos::View<Sums4, MemSpace> out("out");
        Kokkos::deep_copy(out, Sums4());
        DenseSpdSolve(S, UView<const Scalar>(bd.data(), d), UView<Scalar>(xref.data(), d));
        DenseSpdSolveDots(S, UView<const Scalar>(bd.data(), d), UView<Scalar>(x.data(), d), withs ? UView<const Scalar>(sd.data(), d) : UView<const Scalar>(), UView<const Real>(zd.data(), d), out);
        auto   hx = ToHost(x);
        double q = 0, dr = 0, qs = 0;
        for (Int i = 0; i < d; i++) {
          q += b[i] * hx[i];
          qs += std::abs(b[i] * hx[i]);
          if (withs) dr += zw[i] * s[i] * s[i];
        }
        Sums4 h;
        Kokkos::fence();
        Kokkos::deep_copy(h, out);
        const char *name = form == DenseSpdForm::Inverse ? " inverse" : " cholesky";
        EXPECT_LE(RelErr(hx, ToHost(xref)), 1e-14) << "d = " << d << name;
        EXPECT_LE(std::abs(h.v[0] - q), 1e-10 * std::max(1.0, qs)) << "d = " << d << name;
        EXPECT_LE(std::abs(h.v[1] - dr), 1e-12 * std::max(1.0, dr)) << "d = " << d << name;
        EXPECT_EQ(h.v[2], 0.0);
        EXPECT_EQ(h.v[3], 0.0);
      }
    }
  }
}

TEST(Dense, GemvAllSizes)
{
  for (Int d : {0, 1, 13, 597}) {
    auto M  = RandomVector(d * d, 5);
    auto x  = RandomVector(d, 6);
    auto Md = ToDevice(M), xd = ToDevice(x);
    View<Scalar> y("y", d);
    DenseGemv(d, UView<const Scalar>(Md.data(), Md.extent(0)), UView<const Scalar>(xd.data(), d), UView<Scalar>(y.data(), d));
    EXPECT_LT(RelErr(ToHost(y), RefMatVec(d, M, x)), 1e-13);
  }
}

/* the triangular row-gemv of the Cholesky solve against a serial reference (lower and upper, row-stored) */
TEST(Dense, TriangularRowGemvAllSizes)
{
  for (Int d : {0, 1, 13, 597, 1500}) {
    auto T  = RandomVector(d * d, 15);
    auto x  = RandomVector(d, 16);
    auto Td = ToDevice(T), xd = ToDevice(x);
    for (bool lower : {true, false}) {
      std::vector<Scalar> ref(d, 0.0);
      for (Int i = 0; i < d; i++)
        for (Int j = lower ? 0 : i; j < (lower ? i + 1 : d); j++) ref[i] += T[(size_t)i * d + j] * x[j];
      auto y = ToDevice(std::vector<Scalar>(d, NAN));
      DenseTriRowGemv(d, lower, UView<const Scalar>(Td.data(), Td.extent(0)), UView<const Scalar>(xd.data(), d), UView<Scalar>(y.data(), d));
      EXPECT_LT(RelErr(ToHost(y), ref), 1e-13) << "d = " << d << (lower ? " lower" : " upper");
    }
  }
}

/* the Cholesky path (L^-1 kept) solves as accurately as the inverse on a moderately ill-conditioned E */
TEST(Dense, CholeskySolveLarger)
{
  for (Int d : {597}) {
    auto E  = RandomSpd(d, 21, 1e-3);
    auto xs = RandomVector(d, 22);
    auto b  = RefMatVec(d, E, xs);
    auto bd = ToDevice(b);
    DenseSpd S;
    ASSERT_EQ((int)DenseSpdSetUp(PETSC_COMM_SELF, d, E.data(), DenseSpdForm::Cholesky, 1e-16, S), 0);
    View<Scalar> x("x", d);
    DenseSpdSolve(S, UView<const Scalar>(bd.data(), d), UView<Scalar>(x.data(), d));
    auto r = RefMatVec(d, E, ToHost(x));
    EXPECT_LT(RelErr(r, b), 1e-10) << "residual of the Cholesky solve, d = " << d;
  }
}

TEST(Dense, ErrorsForIndefiniteAndSingular)
{
  DenseSpd S;
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  /* indefinite: diag(1, -1) has a negative diagonal; [[1,2],[2,1]] fails in the factorisation */
  std::vector<Scalar> A = {1, 0, 0, -1}, B = {1, 2, 2, 1};
  EXPECT_EQ((int)DenseSpdSetUp(PETSC_COMM_SELF, 2, A.data(), DenseSpdForm::Cholesky, 1e-13, S), (int)PETSC_ERR_MAT_CH_ZRPVT);
  EXPECT_EQ((int)DenseSpdSetUp(PETSC_COMM_SELF, 2, B.data(), DenseSpdForm::Cholesky, 1e-13, S), (int)PETSC_ERR_MAT_CH_ZRPVT);
  /* rank deficient: v v^T + tiny perturbation of rank 3 in 4 dims */
  std::vector<Scalar> C(16);
  double              v[4] = {1, 2, 3, 4}, w[4] = {1, -1, 1, -1}, u[4] = {0, 1, 0, 2};
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) C[i + 4 * j] = v[i] * v[j] + w[i] * w[j] + u[i] * u[j];
  EXPECT_EQ((int)DenseSpdSetUp(PETSC_COMM_SELF, 4, C.data(), DenseSpdForm::Inverse, 1e-13, S), (int)PETSC_ERR_MAT_CH_ZRPVT);
  PetscPopErrorHandler();
}

namespace
{
/* serial reference: L (column-major, 0 above the diagonal) and the pivots L_kk^2 of E = L L^T */
void RefCholesky(Int d, const std::vector<Scalar> &E, std::vector<Scalar> &L, std::vector<Scalar> &piv)
{
  L.assign((size_t)d * d, 0.0);
  piv.assign(d, 0.0);
  for (Int j = 0; j < d; j++) {
    double s = E[j + (size_t)j * d];
    for (Int k = 0; k < j; k++) s -= L[j + (size_t)k * d] * L[j + (size_t)k * d];
    piv[j]                 = s;
    L[j + (size_t)j * d] = std::sqrt(s);
    for (Int i = j + 1; i < d; i++) {
      double t = E[i + (size_t)j * d];
      for (Int k = 0; k < j; k++) t -= L[i + (size_t)k * d] * L[j + (size_t)k * d];
      L[i + (size_t)j * d] = t / L[j + (size_t)j * d];
    }
  }
}

/* serial reference: X = L^-1 column by column (forward substitution with the identity) */
std::vector<Scalar> RefTriInverse(Int d, const std::vector<Scalar> &L)
{
  std::vector<Scalar> X((size_t)d * d, 0.0);
  for (Int j = 0; j < d; j++)
    for (Int i = j; i < d; i++) {
      double s = i == j ? 1.0 : 0.0;
      for (Int k = j; k < i; k++) s -= L[i + (size_t)k * d] * X[k + (size_t)j * d];
      X[i + (size_t)j * d] = s / L[i + (size_t)i * d];
    }
  return X;
}

std::vector<Int> DenseSizes() { return {0, 1, 13, 597, 1024}; }
} // namespace

TEST(DenseDevice, CholeskyKernelMatchesReference)
{
  for (Int d : DenseSizes()) {
    auto                E = RandomSpd(d, 5 + (unsigned)d, 1.0);
    std::vector<Scalar> L, piv;
    RefCholesky(d, E, L, piv);
    auto         F = ToDevice(E);
    View<Scalar> p("piv", d);
    DenseCholeskyLower(d, UView<Scalar>(F.data(), F.extent(0)), UView<Scalar>(p.data(), d));
    EXPECT_LT(RelErr(ToHost(F), L), 1e-11) << "d = " << d;
    EXPECT_LT(RelErr(ToHost(p), piv), 1e-11) << "d = " << d;
  }
}

TEST(DenseDevice, TriangularInverseAndGramMatchReference)
{
  for (Int d : DenseSizes()) {
    auto                E = RandomSpd(d, 7 + (unsigned)d, 1.0);
    std::vector<Scalar> L, piv;
    RefCholesky(d, E, L, piv);
    auto X = RefTriInverse(d, L);
    /* X^T X, the serial reference of the Gram kernel */
    std::vector<Scalar> G((size_t)d * d, 0.0);
    for (Int j = 0; j < d; j++)
      for (Int i = 0; i < d; i++)
        for (Int m = std::max(i, j); m < d; m++) G[i + (size_t)j * d] += X[m + (size_t)i * d] * X[m + (size_t)j * d];
    auto         Ld = ToDevice(L);
    View<Scalar> Xd("X", (size_t)d * d), Gd("G", (size_t)d * d);
    DenseTriLowerInverse(d, UView<const Scalar>(Ld.data(), Ld.extent(0)), UView<Scalar>(Xd.data(), Xd.extent(0)));
    EXPECT_LT(RelErr(ToHost(Xd), X), 1e-10) << "d = " << d;
    DenseLowerGram(d, UView<const Scalar>(Xd.data(), Xd.extent(0)), UView<Scalar>(Gd.data(), Gd.extent(0)));
    EXPECT_LT(RelErr(ToHost(Gd), G), 1e-10) << "d = " << d;
  }
}

TEST(DenseDevice, AsymmetrySymmetrizeNorm1MatchReference)
{
  for (Int d : DenseSizes()) {
    auto   E    = RandomVector(d * d, 17 + (unsigned)d);
    double asym = 0, emax = 0, n1 = 0;
    for (Int j = 0; j < d; j++) {
      double c = 0;
      for (Int i = 0; i < d; i++) {
        asym = std::max(asym, std::abs((double)(E[i + (size_t)j * d] - E[j + (size_t)i * d])));
        emax = std::max(emax, std::abs((double)E[i + (size_t)j * d]));
        c += std::abs((double)E[i + (size_t)j * d]);
      }
      n1 = std::max(n1, c);
    }
    auto Ed = ToDevice(E);
    Real em = -1;
    EXPECT_EQ((double)DenseAsymmetry(d, UView<const Scalar>(Ed.data(), Ed.extent(0)), &em), asym) << "d = " << d;
    EXPECT_EQ((double)em, emax) << "d = " << d;
    EXPECT_NEAR((double)DenseNorm1(d, UView<const Scalar>(Ed.data(), Ed.extent(0))), n1, 1e-12 * std::max(1.0, n1)) << "d = " << d;
    std::vector<Scalar> S(E);
    for (Int j = 0; j < d; j++)
      for (Int i = 0; i < d; i++) S[i + (size_t)j * d] = 0.5 * (E[i + (size_t)j * d] + E[j + (size_t)i * d]);
    DenseSymmetrize(d, UView<Scalar>(Ed.data(), Ed.extent(0)));
    EXPECT_LT(RelErr(ToHost(Ed), S), 1e-15) << "d = " << d;
  }
}

/* the device setup gives the factors of the host setup (LAPACK) and the same solves */
TEST(DenseDevice, SetUpMatchesHostSetUp)
{
  for (Int d : {0, 1, 13, 200}) {
    auto E  = RandomSpd(d, 3 + (unsigned)d, 0.5);
    auto Ed = ToDevice(E);
    auto xs = RandomVector(d, 11);
    auto bd = ToDevice(RefMatVec(d, E, xs));
    for (auto form : {DenseSpdForm::Cholesky, DenseSpdForm::Inverse}) {
      DenseSpd H, S;
      ASSERT_EQ((int)DenseSpdSetUp(PETSC_COMM_SELF, d, E.data(), form, 1e-13, H), 0);
      ASSERT_EQ((int)DenseSpdSetUpDevice(PETSC_COMM_SELF, d, UView<const Scalar>(Ed.data(), Ed.extent(0)), form, 1e-13, S, nullptr, true), 0);
      EXPECT_EQ(S.d, d);
      EXPECT_TRUE(S.form == form && S.symmetric);
      EXPECT_LT(RelErr(ToHost(S.M), ToHost(H.M)), 1e-10) << "d = " << d;
      if (form == DenseSpdForm::Cholesky) EXPECT_LT(RelErr(ToHost(S.Mt), ToHost(H.Mt)), 1e-10) << "d = " << d;
      EXPECT_NEAR((double)S.min_pivot, (double)H.min_pivot, 1e-10 * std::max(1.0, (double)H.min_pivot));
      View<Scalar> x("x", d);
      DenseSpdSolve(S, UView<const Scalar>(bd.data(), d), UView<Scalar>(x.data(), d));
      EXPECT_LT(RelErr(ToHost(x), xs), 1e-9) << "d = " << d;
    }
  }
  /* a nonsymmetric matrix takes the LU of the host setup */
  {
    std::vector<Scalar> N = {4, 1, 0, 2, 5, 1, 0, 3, 6};
    auto                Nd = ToDevice(N);
    DenseSpd            S;
    ASSERT_EQ((int)DenseSpdSetUpDevice(PETSC_COMM_SELF, 3, UView<const Scalar>(Nd.data(), 9), DenseSpdForm::Cholesky, 1e-13, S, nullptr, true), 0);
    EXPECT_FALSE(S.symmetric);
    EXPECT_TRUE(S.form == DenseSpdForm::Inverse);
  }
}

TEST(DenseDevice, ErrorsForIndefiniteAndSingular)
{
  DenseSpd S;
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  std::vector<Scalar> A = {1, 0, 0, -1}, B = {1, 2, 2, 1};
  auto                Ad = ToDevice(A), Bd = ToDevice(B);
  EXPECT_EQ((int)DenseSpdSetUpDevice(PETSC_COMM_SELF, 2, UView<const Scalar>(Ad.data(), 4), DenseSpdForm::Cholesky, 1e-13, S, nullptr, true), (int)PETSC_ERR_MAT_CH_ZRPVT);
  EXPECT_EQ((int)DenseSpdSetUpDevice(PETSC_COMM_SELF, 2, UView<const Scalar>(Bd.data(), 4), DenseSpdForm::Cholesky, 1e-13, S, nullptr, true), (int)PETSC_ERR_MAT_CH_ZRPVT);
  std::vector<Scalar> C(16);
  double              v[4] = {1, 2, 3, 4}, w[4] = {1, -1, 1, -1}, u[4] = {0, 1, 0, 2};
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) C[i + 4 * j] = v[i] * v[j] + w[i] * w[j] + u[i] * u[j];
  auto Cd = ToDevice(C);
  EXPECT_EQ((int)DenseSpdSetUpDevice(PETSC_COMM_SELF, 4, UView<const Scalar>(Cd.data(), 16), DenseSpdForm::Inverse, 1e-13, S, nullptr, true), (int)PETSC_ERR_MAT_CH_ZRPVT);
  PetscPopErrorHandler();
}
