/*
   kp_blas.cxx - dot products and linear combinations on device views (see kp_blas.hpp).
*/
#include "kp_blas.hpp"

namespace petsckp
{
Scalar Dot(UView<const Scalar> x, UView<const Scalar> y)
{
  Scalar s = 0;
  Kokkos::parallel_reduce(
    "petsckp::Dot", range((Int)x.extent(0)), KOKKOS_LAMBDA(Int i, Scalar & a) { a += x(i) * y(i); }, s);
  return s; /* a reduction into a host scalar: complete on return */
}

void Dots(UView<const Scalar> x, int k, const UView<const Scalar> y[], Scalar out[])
{
  const Int n = (Int)x.extent(0);
  Scalar    s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  switch (k) {
  case 1:
    s0 = Dot(x, y[0]);
    break;
  case 2: {
    auto y0 = y[0], y1 = y[1];
    Kokkos::parallel_reduce(
      "petsckp::Dots2", range(n),
      KOKKOS_LAMBDA(Int i, Scalar & a0, Scalar & a1) {
        const Scalar xi = x(i);
        a0 += xi * y0(i);
        a1 += xi * y1(i);
      },
      s0, s1);
  } break;
  case 3: {
    auto y0 = y[0], y1 = y[1], y2 = y[2];
    Kokkos::parallel_reduce(
      "petsckp::Dots3", range(n),
      KOKKOS_LAMBDA(Int i, Scalar & a0, Scalar & a1, Scalar & a2) {
        const Scalar xi = x(i);
        a0 += xi * y0(i);
        a1 += xi * y1(i);
        a2 += xi * y2(i);
      },
      s0, s1, s2);
  } break;
  case 4: {
    auto y0 = y[0], y1 = y[1], y2 = y[2], y3 = y[3];
    Kokkos::parallel_reduce(
      "petsckp::Dots4", range(n),
      KOKKOS_LAMBDA(Int i, Scalar & a0, Scalar & a1, Scalar & a2, Scalar & a3) {
        const Scalar xi = x(i);
        a0 += xi * y0(i);
        a1 += xi * y1(i);
        a2 += xi * y2(i);
        a3 += xi * y3(i);
      },
      s0, s1, s2, s3);
  } break;
  default:
    break;
  }
  const Scalar s[4] = {s0, s1, s2, s3};
  for (int j = 0; j < k && j < 4; j++) out[j] = s[j];
}

void Axpby(Scalar a, UView<const Scalar> x, Scalar b, UView<Scalar> y)
{
  Kokkos::parallel_for(
    "petsckp::Axpby", range((Int)x.extent(0)), KOKKOS_LAMBDA(Int i) { y(i) = b == Scalar(0) ? a * x(i) : a * x(i) + b * y(i); });
}

void Axpbypcz(Scalar a, UView<const Scalar> x, Scalar b, UView<const Scalar> y, Scalar c, UView<Scalar> z)
{
  Kokkos::parallel_for(
    "petsckp::Axpbypcz", range((Int)x.extent(0)), KOKKOS_LAMBDA(Int i) {
      const Scalar v = a * x(i) + b * y(i);
      z(i)           = c == Scalar(0) ? v : v + c * z(i);
    });
}
Int FirstNonFinite(UView<const Scalar> x)
{
  const Int n     = (Int)x.extent(0);
  Int       first = n;
  if (n == 0) return -1;
  Kokkos::parallel_reduce(
    "petsckp::FirstNonFinite", range(n),
    KOKKOS_LAMBDA(const Int i, Int &m) {
      const Real v = PetscRealPart(x(i)) + PetscImaginaryPart(x(i));
      if (!(v - v == 0) && i < m) m = i; /* v - v is 0 for every finite v, NaN for NaN and +-Inf */
    },
    Kokkos::Min<Int>(first));
  return first < n ? first : -1;
}
} // namespace petsckp
