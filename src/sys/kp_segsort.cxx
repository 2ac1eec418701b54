/*
   kp_segsort.cxx - the exclusive scan of the shared layer (see kp_segsort.hpp).
*/
#include "kp_segsort.hpp"

namespace petsckp
{
Int ExclusiveScan(const View<Int> &v, Int n, const std::string &label)
{
  auto a = v;
  Kokkos::parallel_scan(
    label, range(n + 1), KOKKOS_LAMBDA(Int i, Int & upd, const bool final) {
      const Int x = i < n ? a(i) : 0;
      if (final) a(i) = upd;
      upd += x;
    });
  Kokkos::View<Int, Kokkos::HostSpace> h("total");
  Kokkos::deep_copy(exec(), h, Kokkos::subview(a, n));
  exec().fence();
  return h();
}
} // namespace petsckp
