/* Unit tests of src/ksp/dcg/dcg_kernels: the fused vector kernels of one KSPDCG iteration against a serial
   reference, at sizes 0, 1, 13, 597 and large. */
#include "kp_test.hpp"
#include "ksp/dcg/dcg_kernels.hpp"

using namespace kptest;
using namespace petsckp::dcg;

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

double RelDiff(double a, double b) { return std::abs(a - b) / std::max(1.0, std::abs(b)); }
} // namespace

TEST(DcgKernels, DeflateDotMatchesReference)
{
  for (Int n : Sizes()) {
    const Int d  = std::max<Int>(1, n / 9);
    HostCsr   h  = RandomCsr(n, d, 5 + (unsigned)n, 7);
    CsrMatrix AZ = ToDeviceCsr(h);
    auto      a2 = RandomVector(d, 6), w = RandomVector(n, 7), p = RandomVector(n, 8);
    auto      s = RandomVector(d, 9), zw = RandomVector(d, 10, 0.1, 2.0);
    auto      ref = w;
    double    dref = 0, dplain = 0, drift = 0;
    for (Int i = 0; i < n; i++) {
      for (Int q = h.rowptr[i]; q < h.rowptr[i + 1]; q++) ref[i] -= h.vals[q] * a2[h.colidx[q]];
      dref += ref[i] * p[i];
      dplain += w[i] * p[i];
    }
    for (Int j = 0; j < d; j++) drift += zw[j] * s[j] * s[j];
    auto da2 = ToDevice(a2), dw = ToDevice(w), dp = ToDevice(p), ds = ToDevice(s), dzw = ToDevice(zw);
    /* no deflation: w unchanged, plain dot (twice), no drift */
    Dots s0 = DeflateDot(false, CsrMatrix(), UView<const Scalar>(), UView<Scalar>(dw.data(), n), UView<const Scalar>(dp.data(), n), UView<const Scalar>(), UView<const Real>());
    EXPECT_LE(RelDiff(s0.pw, dplain), 1e-12) << "n " << n;
    EXPECT_LE(RelDiff(s0.pa, dplain), 1e-12) << "n " << n;
    EXPECT_EQ(s0.drift, 0.0);
    EXPECT_EQ(ToHost(dw), w);
    /* deflation with the drift of a d-vector s: the range covers max(n, d) */
    Dots s1 = DeflateDot(true, AZ, UView<const Scalar>(da2.data(), d), UView<Scalar>(dw.data(), n), UView<const Scalar>(dp.data(), n), UView<const Scalar>(ds.data(), d), UView<const Real>(dzw.data(), d));
    EXPECT_LE(RelErr(ToHost(dw), ref), 1e-13) << "n " << n;
    EXPECT_LE(RelDiff(s1.pw, dref), 1e-12) << "n " << n;
    EXPECT_LE(RelDiff(s1.pa, dplain), 1e-12) << "n " << n;
    EXPECT_LE(RelDiff(s1.drift, drift), 1e-12) << "n " << n;
  }
}

TEST(DcgKernels, UpdatesAndDotNormMatchReference)
{
  for (Int n : Sizes()) {
    auto p = RandomVector(n, 11), w = RandomVector(n, 12), x = RandomVector(n, 13), r = RandomVector(n, 14), y = RandomVector(n, 15);
    const Scalar alpha = 0.37, beta = -1.25;
    auto         dp = ToDevice(p), dw = ToDevice(w), dx = ToDevice(x), dr = ToDevice(r), dy = ToDevice(y);
    UpdateXR(alpha, UView<const Scalar>(dp.data(), n), UView<const Scalar>(dw.data(), n), UView<Scalar>(dx.data(), n), UView<Scalar>(dr.data(), n));
    std::vector<Scalar> xr(x), rr(r), pr(p);
    double              yr = 0, rn = 0, yn = 0;
    for (Int i = 0; i < n; i++) {
      xr[i] += alpha * p[i];
      rr[i] -= alpha * w[i];
      yr += y[i] * rr[i];
      rn += rr[i] * rr[i];
      yn += y[i] * y[i];
      pr[i] = y[i] + beta * p[i];
    }
    EXPECT_LE(RelErr(ToHost(dx), xr), 1e-14) << "n " << n;
    EXPECT_LE(RelErr(ToHost(dr), rr), 1e-14) << "n " << n;
    Scalar a = -1, b = -1, c = -1;
    DotNorm(UView<const Scalar>(dy.data(), n), UView<const Scalar>(dr.data(), n), a, b, c);
    EXPECT_LE(RelDiff(a, yr), 1e-12) << "n " << n;
    EXPECT_LE(RelDiff(b, rn), 1e-12) << "n " << n;
    EXPECT_LE(RelDiff(c, yn), 1e-12) << "n " << n;
    UpdateP(beta, UView<const Scalar>(dy.data(), n), UView<Scalar>(dp.data(), n));
    EXPECT_LE(RelErr(ToHost(dp), pr), 1e-14) << "n " << n;
  }
}
