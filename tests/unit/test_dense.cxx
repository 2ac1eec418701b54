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
