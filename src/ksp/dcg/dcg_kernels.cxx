/*
   dcg_kernels.cxx - fused vector kernels of KSPDCG (see dcg_kernels.hpp).

   Bytes per unknown and iteration of these kernels (8 B scalars; AZ of an aggregate space has at most 7 entries
   per row in 3D, 12 B each, plus 4 B of row pointer): DcgDeflateDot 16 (w r/w) + 8 (p) + ~88 (AZ) = ~112,
   DcgUpdateXR 48, DcgDotNorm 16, DcgUpdateP 24: about 200 B, in 4 kernels and 2 reductions (formerly 7 PETSc
   vector operations with 3 reductions plus the separate AZ product).
*/
#include "dcg_kernels.hpp"

namespace petsckp
{
Scalar DcgDeflateDot(bool deflate, const CsrMatrix &AZ, UView<const Scalar> a2, UView<Scalar> w, UView<const Scalar> p)
{
  const Int n   = (Int)w.extent(0);
  auto      rp  = AZ.rowptr;
  auto      ci  = AZ.colidx;
  auto      v   = AZ.vals;
  Scalar    sum = 0;
  if (n == 0) return 0;
  Kokkos::parallel_reduce(
    "petsckp::DcgDeflateDot", range(n),
    KOKKOS_LAMBDA(Int i, Scalar & acc) {
      Scalar wi = w(i);
      if (deflate) {
        for (Int q = rp(i); q < rp(i + 1); q++) wi -= v(q) * a2(ci(q));
        w(i) = wi;
      }
      acc += wi * p(i);
    },
    sum);
  return sum;
}

void DcgUpdateXR(Scalar alpha, UView<const Scalar> p, UView<const Scalar> w, UView<Scalar> x, UView<Scalar> r)
{
  Kokkos::parallel_for(
    "petsckp::DcgUpdateXR", range((Int)x.extent(0)), KOKKOS_LAMBDA(Int i) {
      x(i) += alpha * p(i);
      r(i) -= alpha * w(i);
    });
}

void DcgDotNorm(UView<const Scalar> y, UView<const Scalar> r, int norm, Scalar &yr, Scalar &vv)
{
  const Int n = (Int)y.extent(0);
  yr = vv = 0;
  if (n == 0) return;
  Kokkos::parallel_reduce(
    "petsckp::DcgDotNorm", range(n),
    KOKKOS_LAMBDA(Int i, Scalar & a, Scalar & b) {
      const Scalar yi = y(i), ri = r(i);
      a += yi * ri;
      b += norm == 1 ? ri * ri : (norm == 2 ? yi * yi : 0.0);
    },
    yr, vv);
}

void DcgUpdateP(Scalar beta, UView<const Scalar> y, UView<Scalar> p)
{
  Kokkos::parallel_for(
    "petsckp::DcgUpdateP", range((Int)p.extent(0)), KOKKOS_LAMBDA(Int i) { p(i) = y(i) + beta * p(i); });
}
} // namespace petsckp
