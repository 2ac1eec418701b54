/*
   dcg_kernels.cxx - fused vector kernels of KSPDCG (see dcg_kernels.hpp).

   Bytes per unknown and iteration (8 B scalars; A: 7-point stencil, 12 B per entry and 4 B of row pointer; AZ of an
   aggregate space about 1.3 entries per row for 8x8x8 blocks, 12 B each, plus 4 B of row pointer: ~20 B):
     standard:  ProductDots 104 (A, p, w), UpdateXR 48 + 20 (AZ), DotNorm 16, UpdateP 24           = 212
     single reduction: ProductDots 112 (A, u, w, r), PipelinedUpdate 80 + 20 (AZ)                   = 212
   (before the fusion: PETSc's MatMult 104, DeflateDot 24 + 20, UpdateXR 48, DotNorm 16, UpdateP 24 = 236, in one
   more kernel and one more reduction read by the host). The restriction Z^T w, Z^T r adds 28 B, the preconditioner
   its own.
*/
#include "dcg_kernels.hpp"

namespace petsckp
{
namespace dcg
{
namespace
{
/* a reducer whose result is the device element S(slot) (no fence) */
Kokkos::Sum<Sums4, MemSpace> Into(const Sums &S, int slot) { return Kokkos::Sum<Sums4, MemSpace>(Kokkos::View<Sums4, MemSpace>(S.data() + slot)); }
} // namespace

void ProductDots(bool product, const CsrMatrix &A, const CsrMatrix &Ao, UView<const Scalar> g, UView<const Scalar> x, UView<Scalar> w, UView<const Scalar> r, Sums S, int slot)
{
  const Int  n     = (Int)w.extent(0);
  const bool ghost = product && Ao.nrows > 0;
  const bool withr = r.extent(0) > 0;
  auto       rp = A.rowptr, orp = Ao.rowptr;
  auto       ci = A.colidx, oci = Ao.colidx;
  auto       v = A.vals, ov = Ao.vals;

  if (n == 0) {
    Kokkos::deep_copy(exec(), Kokkos::View<Sums4, MemSpace>(S.data() + slot), Sums4());
    return;
  }
  Kokkos::parallel_reduce(
    "petsckp::dcg::ProductDots (device sums)", range(n),
    KOKKOS_LAMBDA(Int i, Sums4 & acc) {
      Scalar wi;
      if (product) {
        wi = 0;
        for (Int q = rp(i); q < rp(i + 1); q++) wi += v(q) * x(ci(q));
        if (ghost)
          for (Int q = orp(i); q < orp(i + 1); q++) wi += ov(q) * g(oci(q));
        w(i) = wi;
      } else wi = w(i);
      const Scalar xi = x(i);
      acc.v[0] += xi * wi;
      if (withr) {
        const Scalar ri = r(i);
        acc.v[1] += ri * xi;
        acc.v[2] += ri * ri;
        acc.v[3] += xi * xi;
      }
    },
    Into(S, slot));
}

void DeflatedDot(const CsrMatrix &AZ, UView<const Scalar> a2, UView<const Scalar> p, UView<const Scalar> w, Sums S, int slot)
{
  const Int n  = (Int)w.extent(0);
  auto      rp = AZ.rowptr;
  auto      ci = AZ.colidx;
  auto      v  = AZ.vals;

  if (n == 0) {
    Kokkos::deep_copy(exec(), Kokkos::View<Sums4, MemSpace>(S.data() + slot), Sums4());
    return;
  }
  Kokkos::parallel_reduce(
    "petsckp::dcg::DeflatedDot (device sums)", range(n),
    KOKKOS_LAMBDA(Int i, Sums4 & acc) {
      Scalar wi = w(i);
      for (Int q = rp(i); q < rp(i + 1); q++) wi -= v(q) * a2(ci(q));
      acc.v[0] += p(i) * wi;
    },
    Into(S, slot));
}

void UpdateXR(Scalar dp, Sums S, PwMode mode, const CsrMatrix &AZ, UView<const Scalar> a2, UView<const Scalar> p, UView<const Scalar> w, UView<Scalar> x, UView<Scalar> r)
{
  const bool deflate = mode != PwMode::Plain;
  auto       rp      = AZ.rowptr;
  auto       ci      = AZ.colidx;
  auto       v       = AZ.vals;

  Kokkos::parallel_for(
    "petsckp::dcg::UpdateXR", range((Int)x.extent(0)), KOKKOS_LAMBDA(Int i) {
      const Scalar pw = DeflatedPw(S(SlotProduct), S(SlotCoarse), S(SlotDirect), mode);
      if (!(PetscRealPart(pw) > 0)) return; /* breakdown or NaN: the host sees it and keeps this iterate */
      const Scalar alpha = dp / pw;
      Scalar       wi    = w(i);
      if (deflate)
        for (Int q = rp(i); q < rp(i + 1); q++) wi -= v(q) * a2(ci(q));
      x(i) += alpha * p(i);
      r(i) -= alpha * wi;
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

void DotNorm(UView<const Scalar> y, UView<const Scalar> r, Sums S, int slot)
{
  const Int n = (Int)y.extent(0);
  if (n == 0) {
    Kokkos::deep_copy(exec(), Kokkos::View<Sums4, MemSpace>(S.data() + slot), Sums4());
    return;
  }
  Kokkos::parallel_reduce(
    "petsckp::dcg::DotNorm (device sums)", range(n),
    KOKKOS_LAMBDA(Int i, Sums4 & acc) {
      const Scalar yi = y(i), ri = r(i);
      acc.v[0] += yi * ri;
      acc.v[1] += ri * ri;
      acc.v[2] += yi * yi;
    },
    Into(S, slot));
}

void UpdateP(Scalar beta, UView<const Scalar> y, UView<Scalar> p)
{
  Kokkos::parallel_for(
    "petsckp::dcg::UpdateP", range((Int)p.extent(0)), KOKKOS_LAMBDA(Int i) { p(i) = y(i) + beta * p(i); });
}

void PipelinedUpdate(Scalar alpha, Scalar beta, bool deflate, const CsrMatrix &AZ, UView<const Scalar> a2, UView<const Scalar> u, UView<const Scalar> w, UView<Scalar> p, UView<Scalar> s, UView<Scalar> x, UView<Scalar> r)
{
  auto rp = AZ.rowptr;
  auto ci = AZ.colidx;
  auto v  = AZ.vals;

  Kokkos::parallel_for(
    "petsckp::dcg::PipelinedUpdate", range((Int)x.extent(0)), KOKKOS_LAMBDA(Int i) {
      Scalar wi = w(i);
      if (deflate)
        for (Int q = rp(i); q < rp(i + 1); q++) wi -= v(q) * a2(ci(q));
      const Scalar si = wi + beta * s(i), pi = u(i) + beta * p(i);
      s(i) = si;
      p(i) = pi;
      x(i) += alpha * pi;
      r(i) -= alpha * si;
    });
}
} // namespace dcg
} // namespace petsckp
