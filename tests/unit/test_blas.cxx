/* Unit tests of src/sys/kp_blas: dot products (single and fused) and linear combinations against serial loops. */
#include "kp_test.hpp"
#include "kp_blas.hpp"
#include "kp_segsort.hpp"

using namespace kptest;

TEST(Blas, DotAndFusedDots)
{
  for (Int n : Sizes()) {
    std::vector<std::vector<Scalar>> v;
    for (int j = 0; j < 5; j++) v.push_back(RandomVector(n, 10 * j + n));
    std::vector<View<Scalar>> d;
    for (auto &h : v) d.push_back(ToDevice(h));
    auto ref = [&](int a, int b) {
      double s = 0;
      for (Int i = 0; i < n; i++) s += v[a][i] * v[b][i];
      return s;
    };
    EXPECT_NEAR(Dot(ucv(d[0]), ucv(d[1])), ref(0, 1), 1e-12 * (1 + n));
    for (int k = 1; k <= 4; k++) {
      UView<const Scalar> ys[4];
      for (int j = 0; j < k; j++) ys[j] = ucv(d[j + 1]);
      Scalar out[4] = {-7, -7, -7, -7};
      Dots(ucv(d[0]), k, ys, out);
      for (int j = 0; j < k; j++) EXPECT_NEAR(out[j], ref(0, j + 1), 1e-12 * (1 + n)) << "k " << k << " j " << j;
      for (int j = k; j < 4; j++) EXPECT_EQ(out[j], -7); /* untouched */
    }
  }
}

TEST(Blas, Axpby)
{
  for (Int n : Sizes()) {
    auto x = RandomVector(n, 1 + n), y = RandomVector(n, 2 + n), z = RandomVector(n, 3 + n);
    auto dy = ToDevice(y);
    Axpby(2.0, ucv(ToDevice(x)), -0.5, uv(dy));
    std::vector<Scalar> r(n);
    for (Int i = 0; i < n; i++) r[i] = 2.0 * x[i] - 0.5 * y[i];
    EXPECT_LT(RelErr(ToHost(dy), r), 1e-15);
    /* beta = 0: y is not read (NaN there does not propagate) */
    Kokkos::deep_copy(dy, std::numeric_limits<double>::quiet_NaN());
    Axpby(3.0, ucv(ToDevice(x)), 0.0, uv(dy));
    for (Int i = 0; i < n; i++) r[i] = 3.0 * x[i];
    EXPECT_LT(RelErr(ToHost(dy), r), 1e-15);
    auto dz = ToDevice(z);
    Axpbypcz(1.5, ucv(ToDevice(x)), -2.0, ucv(ToDevice(y)), 0.25, uv(dz));
    for (Int i = 0; i < n; i++) r[i] = 1.5 * x[i] - 2.0 * y[i] + 0.25 * z[i];
    EXPECT_LT(RelErr(ToHost(dz), r), 1e-15);
    Kokkos::deep_copy(dz, std::numeric_limits<double>::quiet_NaN());
    Axpbypcz(1.5, ucv(ToDevice(x)), -2.0, ucv(ToDevice(y)), 0.0, uv(dz));
    for (Int i = 0; i < n; i++) r[i] = 1.5 * x[i] - 2.0 * y[i];
    EXPECT_LT(RelErr(ToHost(dz), r), 1e-15);
  }
}
