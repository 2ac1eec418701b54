/*
   kp_segsort.hpp - small device helpers shared by the graph kernels (colouring, symmetrisation, aggregation
   Galerkin product): an in-place heap sort of a key range run by one thread (segmented sorts with one thread
   per segment), a deterministic integer hash, and an exclusive scan of a view.

   Everything here is deterministic: results never depend on thread scheduling.
*/
#pragma once

#include "kp_kokkos.hpp"
#include <cstdint>
#include <string>

namespace petsckp
{
/* sift-down of heap keys[b + 0 .. b + len) from root (helper of HeapSortRange) */
template <class KeyView>
KOKKOS_INLINE_FUNCTION void HeapSift(const KeyView &keys, Int b, Int root, Int len)
{
  using K = typename KeyView::non_const_value_type;
  K v     = keys(b + root);
  while (true) {
    Int child = 2 * root + 1;
    if (child >= len) break;
    if (child + 1 < len && keys(b + child) < keys(b + child + 1)) child++;
    if (!(v < keys(b + child))) break;
    keys(b + root) = keys(b + child);
    root           = child;
  }
  keys(b + root) = v;
}

/* heap sort of keys[b..e) ascending, by one thread; O(m log m), no extra memory */
template <class KeyView>
KOKKOS_INLINE_FUNCTION void HeapSortRange(const KeyView &keys, Int b, Int e)
{
  using K     = typename KeyView::non_const_value_type;
  const Int m = e - b;
  if (m < 2) return;
  for (Int r = m / 2 - 1; r >= 0; r--) HeapSift(keys, b, r, m);
  for (Int len = m - 1; len > 0; len--) {
    K t           = keys(b);
    keys(b)       = keys(b + len);
    keys(b + len) = t;
    HeapSift(keys, b, (Int)0, len);
  }
}

/* splitmix64 finaliser: a well-mixed deterministic 64-bit hash of (x, seed) */
KOKKOS_INLINE_FUNCTION std::uint64_t HashMix(std::uint64_t x, std::uint64_t seed)
{
  std::uint64_t z = x + 0x9E3779B97F4A7C15ULL * (seed + 1);
  z               = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z               = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* in-place exclusive scan of v[0..n]: on return v(i) = sum_{j<i} old v(j) for i <= n; returns the total (fences) */
/* (defined once, in kp_segsort.cxx: a kernel written in a header function would be instantiated in every translation
   unit that calls it, and nvcc's device lambdas of such duplicated instantiations crashed on the GPU at the first
   launch from a second translation unit) */
Int ExclusiveScan(const View<Int> &v, Int n, const std::string &label);

/* an unmanaged view of a managed one (the argument type of the kernels of the shared layer) */
template <class T>
inline UView<T> uv(const View<T> &v)
{
  return UView<T>(v.data(), v.extent(0));
}
template <class T>
inline UView<const T> ucv(const View<T> &v)
{
  return UView<const T>(v.data(), v.extent(0));
}
} // namespace petsckp
