/*
   dcg_kernels.cxx - fused vector kernels of KSPDCG (see dcg_kernels.hpp).

   Bytes per unknown and iteration of these kernels (8 B scalars; AZ of an aggregate space has at most 7 entries
   per row in 3D, 12 B each, plus 4 B of row pointer): DeflateDot 16 (w r/w) + 8 (p) + ~88 (AZ) = ~112,
   UpdateXR 48, DotNorm 16, UpdateP 24: about 200 B, in 4 kernels and 2 reductions (formerly 7 PETSc vector
   operations with 3 reductions plus the separate AZ product). The restriction of r_hat next to that of w (the drift
   measure) adds 8 B.
*/
#include "dcg_kernels.hpp"

namespace petsckp
{
namespace dcg
{
Dots DeflateDot(bool deflate, const CsrMatrix &AZ, UView<const Scalar> a2, UView<Scalar> w, UView<const Scalar> p, UView<const Scalar> s, UView<const Real> zw)
{
  const Int n  = (Int)w.extent(0);
  const Int ds = (Int)s.extent(0);
  auto      rp = AZ.rowptr;
  auto      ci = AZ.colidx;
  auto      v  = AZ.vals;
  Dots   out;
  if (n == 0 && ds == 0) return out;
  Kokkos::parallel_reduce(
    "DeflateDot", range(n > ds ? n : ds),
    KOKKOS_LAMBDA(Int i, Scalar & pw, Scalar & pa, Scalar & dr) {
      if (i < n) {
        Scalar wi = w(i);
        pa += wi * p(i);
        if (deflate) {
          for (Int q = rp(i); q < rp(i + 1); q++) wi -= v(q) * a2(ci(q));
          w(i) = wi;
        }
        pw += wi * p(i);
      }
      if (i < ds) dr += zw(i) * s(i) * s(i);
    },
    out.pw, out.pa, out.drift);
  return out;
}

void UpdateXR(Scalar alpha, UView<const Scalar> p, UView<const Scalar> w, UView<Scalar> x, UView<Scalar> r)
{
  Kokkos::parallel_for(
    "UpdateXR", range((Int)x.extent(0)), KOKKOS_LAMBDA(Int i) {
      x(i) += alpha * p(i);
      r(i) -= alpha * w(i);
    });
}

void DotNorm(UView<const Scalar> y, UView<const Scalar> r, Scalar &yr, Scalar &rr, Scalar &yy)
{
  const Int n = (Int)y.extent(0);
  yr = rr = yy = 0;
  if (n == 0) return;
  Kokkos::parallel_reduce(
    "DotNorm", range(n),
    KOKKOS_LAMBDA(Int i, Scalar & a, Scalar & b, Scalar & c) {
      const Scalar yi = y(i), ri = r(i);
      a += yi * ri;
      b += ri * ri;
      c += yi * yi;
    },
    yr, rr, yy);
}

void UpdateP(Scalar beta, UView<const Scalar> y, UView<Scalar> p)
{
  Kokkos::parallel_for(
    "UpdateP", range((Int)p.extent(0)), KOKKOS_LAMBDA(Int i) { p(i) = y(i) + beta * p(i); });
}
} // namespace dcg
} // namespace petsckp
