/* Unit tests of src/ksp/dcg/dcg_kernels: the fused vector kernels of one KSPDCG iteration (standard and
   single-reduction) against a serial reference, at sizes 0, 1, 13, 597 and large. The inner products are reduced into
   device memory (Sums); the tests read them back. */
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

double RelDiff(double a, double b, double scale = 1) { return std::abs(a - b) / std::max({1.0, scale, std::abs(b)}); }

template <class T>
UView<const T> C(const View<T> &v)
{
  return UView<const T>(v.data(), v.extent(0));
}
template <class T>
UView<T> M(const View<T> &v)
{
  return UView<T>(v.data(), v.extent(0));
}

std::vector<Sums4> Read(const Sums &S)
{
  std::vector<Sums4> h(S.extent(0));
  Kokkos::fence();
  Kokkos::deep_copy(Kokkos::View<Sums4 *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h.data(), h.size()), S);
  return h;
}

/* sums filled with a marker, to see which slot a kernel writes */
Sums Marked()
{
  Sums  S("sums", NumSlots);
  Sums4 m;
  for (int k = 0; k < 4; k++) m.v[k] = -7;
  Kokkos::deep_copy(S, m);
  return S;
}
} // namespace

/* w = A x + Ao g and the four sums; w given (no product); without r only (x, w) */
TEST(DcgKernels, ProductDotsMatchesReference)
{
  for (Int n : Sizes()) {
    const Int ng = std::max<Int>(1, n / 7);
    HostCsr   ha = RandomCsr(n, n, 3 + (unsigned)n, 7), ho = RandomCsr(n, ng, 4 + (unsigned)n, 3);
    CsrMatrix A = ToDeviceCsr(ha), Ao = ToDeviceCsr(ho), empty;
    auto      x = RandomVector(n, 5), g = RandomVector(ng, 6), r = RandomVector(n, 7), w0 = RandomVector(n, 8);
    auto      dx = ToDevice(x), dg = ToDevice(g), dr = ToDevice(r);
    auto      wl = RefSpmv(ha, x), wo = RefSpmv(ho, g);
    for (int variant = 0; variant < 4; variant++) {
      /* 0: local product, r; 1: local + ghost product, r; 2: no product, r; 3: local product, no r */
      const bool          product = variant != 2, ghost = variant == 1, withr = variant != 3;
      std::vector<Scalar> w(n);
      for (Int i = 0; i < n; i++) w[i] = product ? wl[i] + (ghost ? wo[i] : 0.0) : w0[i];
      double xw = 0, rx = 0, rr = 0, xx = 0, sxw = 0;
      for (Int i = 0; i < n; i++) {
        xw += x[i] * w[i];
        sxw += std::abs(x[i] * w[i]);
        if (withr) rx += r[i] * x[i], rr += r[i] * r[i], xx += x[i] * x[i];
      }
      auto dw = ToDevice(w0);
      Sums S  = Marked();
      ProductDots(product, A, ghost ? Ao : empty, ghost ? C(dg) : UView<const Scalar>(), C(dx), M(dw), withr ? C(dr) : UView<const Scalar>(), S, SlotResidual);
      auto h = Read(S);
      EXPECT_LE(RelErr(ToHost(dw), w), 1e-14) << "n " << n << " variant " << variant;
      EXPECT_LE(RelDiff(h[SlotResidual].v[0], xw, sxw), 1e-13) << "n " << n << " variant " << variant;
      EXPECT_LE(RelDiff(h[SlotResidual].v[1], rx, n), 1e-12) << "n " << n << " variant " << variant;
      EXPECT_LE(RelDiff(h[SlotResidual].v[2], rr), 1e-12) << "n " << n << " variant " << variant;
      EXPECT_LE(RelDiff(h[SlotResidual].v[3], xx), 1e-12) << "n " << n << " variant " << variant;
      EXPECT_EQ(h[SlotProduct].v[0], -7.0) << "another slot written";
    }
  }
}

/* (p, w - AZ a2), and the standard update with alpha = dp / (p, P A p) read on the device in its three modes */
TEST(DcgKernels, DeflatedDotAndUpdateXRMatchReference)
{
  for (Int n : Sizes()) {
    const Int d  = std::max<Int>(1, n / 9);
    HostCsr   h  = RandomCsr(n, d, 5 + (unsigned)n, 7);
    CsrMatrix AZ = ToDeviceCsr(h), empty;
    auto      a2 = RandomVector(d, 6), w = RandomVector(n, 7), p = RandomVector(n, 8), x = RandomVector(n, 9), r = RandomVector(n, 10);
    auto      da2 = ToDevice(a2), dw = ToDevice(w), dp = ToDevice(p);
    std::vector<Scalar> wh(w);
    double              pwh = 0, spwh = 0;
    for (Int i = 0; i < n; i++) {
      for (Int q = h.rowptr[i]; q < h.rowptr[i + 1]; q++) wh[i] -= h.vals[q] * a2[h.colidx[q]];
      pwh += p[i] * wh[i];
      spwh += std::abs(p[i] * wh[i]);
    }
    Sums S = Marked();
    DeflatedDot(AZ, C(da2), C(dp), C(dw), S, SlotDirect);
    auto hs = Read(S);
    EXPECT_LE(RelDiff(hs[SlotDirect].v[0], pwh, spwh), 1e-13) << "n " << n;
    EXPECT_EQ(hs[SlotDirect].v[1], 0.0);
    EXPECT_EQ(ToHost(dw), w) << "w is only read";
    /* the sums: (p, A p) = 3, a1^T E^-1 a1 = 1, direct 1.5: pw = 3 (plain), 2 (identity), 1.5 (direct) */
    for (PwMode mode : {PwMode::Plain, PwMode::Identity, PwMode::Direct})
      for (bool breakdown : {false, true}) {
        Sums4 s0, s1, s3;
        s0.v[0] = breakdown ? 0.5 : 3.0, s1.v[0] = 1.0, s3.v[0] = breakdown ? -1.0 : 1.5;
        if (mode == PwMode::Plain && breakdown) s0.v[0] = 0;
        Kokkos::deep_copy(Kokkos::View<Sums4, MemSpace>(S.data() + SlotProduct), s0);
        Kokkos::deep_copy(Kokkos::View<Sums4, MemSpace>(S.data() + SlotCoarse), s1);
        Kokkos::deep_copy(Kokkos::View<Sums4, MemSpace>(S.data() + SlotDirect), s3);
        const Scalar        pw = DeflatedPw(s0, s1, s3, mode), dpr = 0.8, alpha = dpr / pw;
        const bool          deflate = mode != PwMode::Plain;
        auto                dx = ToDevice(x), dr = ToDevice(r);
        std::vector<Scalar> xr(x), rr(r);
        EXPECT_EQ(pw <= 0, breakdown);
        if (!breakdown)
          for (Int i = 0; i < n; i++) {
            xr[i] += alpha * p[i];
            rr[i] -= alpha * (deflate ? wh[i] : w[i]);
          }
        UpdateXR(dpr, S, mode, deflate ? AZ : empty, deflate ? C(da2) : UView<const Scalar>(), C(dp), C(dw), M(dx), M(dr));
        EXPECT_LE(RelErr(ToHost(dx), xr), 1e-14) << "n " << n << " mode " << (int)mode << (breakdown ? " breakdown" : "");
        EXPECT_LE(RelErr(ToHost(dr), rr), 1e-14) << "n " << n << " mode " << (int)mode << (breakdown ? " breakdown" : "");
      }
  }
}

TEST(DcgKernels, DotNormAndUpdatePMatchReference)
{
  for (Int n : Sizes()) {
    auto         p = RandomVector(n, 11), r = RandomVector(n, 14), y = RandomVector(n, 15);
    const Scalar beta = -1.25;
    auto         dp = ToDevice(p), dr = ToDevice(r), dy = ToDevice(y);
    std::vector<Scalar> pr(p);
    double              yr = 0, rn = 0, yn = 0;
    for (Int i = 0; i < n; i++) {
      yr += y[i] * r[i];
      rn += r[i] * r[i];
      yn += y[i] * y[i];
      pr[i] = y[i] + beta * p[i];
    }
    Scalar a = -1, b = -1, c = -1;
    DotNorm(C(dy), C(dr), a, b, c);
    EXPECT_LE(RelDiff(a, yr, n), 1e-12) << "n " << n;
    EXPECT_LE(RelDiff(b, rn), 1e-12) << "n " << n;
    EXPECT_LE(RelDiff(c, yn), 1e-12) << "n " << n;
    Sums S = Marked();
    DotNorm(C(dy), C(dr), S, SlotResidual);
    auto h = Read(S);
    EXPECT_LE(RelDiff(h[SlotResidual].v[0], yr, n), 1e-12) << "n " << n;
    EXPECT_LE(RelDiff(h[SlotResidual].v[1], rn), 1e-12) << "n " << n;
    EXPECT_LE(RelDiff(h[SlotResidual].v[2], yn), 1e-12) << "n " << n;
    EXPECT_EQ(h[SlotResidual].v[3], 0.0);
    UpdateP(beta, C(dy), M(dp));
    EXPECT_LE(RelErr(ToHost(dp), pr), 1e-14) << "n " << n;
  }
}

/* s = (w - AZ a2) + beta s, p = u + beta p, x += alpha p, r -= alpha s, with and without deflation */
TEST(DcgKernels, PipelinedUpdateMatchesReference)
{
  for (Int n : Sizes()) {
    const Int d  = std::max<Int>(1, n / 9);
    HostCsr   h  = RandomCsr(n, d, 15 + (unsigned)n, 7);
    CsrMatrix AZ = ToDeviceCsr(h), empty;
    auto      a2 = RandomVector(d, 16), u = RandomVector(n, 17), w = RandomVector(n, 18), p = RandomVector(n, 19), s = RandomVector(n, 20), x = RandomVector(n, 21), r = RandomVector(n, 22);
    auto      da2 = ToDevice(a2), du = ToDevice(u), dw = ToDevice(w);
    const Scalar alpha = 0.37, beta = 0.61;
    for (bool deflate : {false, true}) {
      auto                dp = ToDevice(p), ds = ToDevice(s), dx = ToDevice(x), dr = ToDevice(r);
      std::vector<Scalar> pr(p), sr(s), xr(x), rr(r);
      for (Int i = 0; i < n; i++) {
        Scalar wi = w[i];
        if (deflate)
          for (Int q = h.rowptr[i]; q < h.rowptr[i + 1]; q++) wi -= h.vals[q] * a2[h.colidx[q]];
        sr[i] = wi + beta * s[i];
        pr[i] = u[i] + beta * p[i];
        xr[i] += alpha * pr[i];
        rr[i] -= alpha * sr[i];
      }
      PipelinedUpdate(alpha, beta, deflate, deflate ? AZ : empty, deflate ? C(da2) : UView<const Scalar>(), C(du), C(dw), M(dp), M(ds), M(dx), M(dr));
      EXPECT_LE(RelErr(ToHost(dp), pr), 1e-14) << "n " << n << (deflate ? " deflated" : "");
      EXPECT_LE(RelErr(ToHost(ds), sr), 1e-14) << "n " << n << (deflate ? " deflated" : "");
      EXPECT_LE(RelErr(ToHost(dx), xr), 1e-14) << "n " << n << (deflate ? " deflated" : "");
      EXPECT_LE(RelErr(ToHost(dr), rr), 1e-14) << "n " << n << (deflate ? " deflated" : "");
    }
  }
}
