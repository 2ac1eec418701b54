/*
   kp_tridiag.cxx - batched Thomas, PCR-Thomas and partition-method tridiagonal solvers.

   The solvers (kp_tridiag_impl.hpp) are written once against a coefficient accessor coef(s, l, flat index) ->
   (a, b, c) and a right-hand side accessor: the batched form reads its views, the shifted form generates
   A + shift(s) M on the fly.
*/
#include "kp_tridiag_impl.hpp"

namespace petsckp
{
Int TridiagAutoPCRSteps(Int nsys, Int n)
{
  if (!kDeviceExec) return 0; /* on the host, Thomas per system is optimal */
  const Int target = (Int)1 << 16; /* threads that fill a large GPU */
  Int       k      = 0;
  while (k < 20 && (nsys << k) < target && (n >> k) >= 16) k++;
  return k;
}

Int TridiagAutoChunks(Int nsys, Int n)
{
  if (!kDeviceExec) return 1;
  const Int target = (Int)1 << 17; /* threads that fill a large GPU, twice over */
  if (nsys >= target / 2 || n < 64) return 1;
  Int P = (target + nsys - 1) / nsys;
  if (P > n / 16) P = n / 16; /* chunks of at least 16 rows */
  return P < 2 ? 1 : P;
}

void TridiagSolveBatched(const TridiagShape &shape, UView<const Scalar> a, UView<const Scalar> b, UView<const Scalar> c, UView<const Scalar> f, UView<Scalar> x, UView<Int> status, const TridiagOptions &opt, TridiagWork *work)
{
  tridiag_detail::Solve(shape, tridiag_detail::CoefBatched{a, b, c}, tridiag_detail::RhsView{f}, x, status, opt, work);
}

void TridiagSolveShifted(const TridiagShape &shape, UView<const Scalar> al, UView<const Scalar> ad, UView<const Scalar> au, UView<const Scalar> ml, UView<const Scalar> md, UView<const Scalar> mu, UView<const Scalar> shift, UView<const Scalar> f, UView<Scalar> x, UView<Int> status, const TridiagOptions &opt, TridiagWork *work)
{
  tridiag_detail::CoefShifted coef{al, ad, au, ml, md, mu, shift, md.extent(0) > 0, shift.extent(0) > 0};
  tridiag_detail::Solve(shape, coef, tridiag_detail::RhsView{f}, x, status, opt, work);
}

Int TridiagCountFailures(UView<const Int> status)
{
  Int nf = 0;
  Kokkos::parallel_reduce(
    "petsckp::TridiagCountFailures", range((Int)status.extent(0)), KOKKOS_LAMBDA(Int s, Int & c) { c += status(s) != 0; }, nf);
  return nf;
}
} // namespace petsckp
