/*
   kp_segsort.hpp - the sorts and scans shared by the graph kernels (colouring, symmetrisation, aggregation
   Galerkin product, aggregations named by sparse keys): an in-place heap sort of a key range run by one thread
   (segmented sorts with one thread per segment), a deterministic integer hash, an exclusive scan of a view, and a
   global sort and compaction of 64-bit keys for aggregates named by sparse keys (e.g. the cells of an adaptive
   quadtree/octree, whose linear keys span 2^62 values, where AggregationCreate of kp_galerkin counts over a dense
   range):
   - KeySortPairs: stable least-significant-digit radix sort of (key, value) pairs, 8-bit digits, only over the bits
     the keys use. Each pass: every block of consecutive items counts its digits (one thread per block), an exclusive
     scan of the counts (digit-major, block-minor) gives every block its output offsets, every block scatters its
     items in order. No atomics.
   - KeyCompact: consecutive numbers 0..m-1 for the m distinct keys, in ascending key order (a sort, then a scan of
     the run heads), with the distinct keys themselves.

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

/* ranges of at most this many keys are sorted by insertion in HeapSortRange */
constexpr Int kSortInsertionMax = 16;

/* sort of keys[b..e) ascending, by one thread, no extra memory: a short range (at most kSortInsertionMax keys, e.g. a
   row of a stencil matrix or of a transfer operator) by insertion, a few moves and none when it is sorted already;
   a longer one by heap sort, O(m log m) */
template <class KeyView>
KOKKOS_INLINE_FUNCTION void HeapSortRange(const KeyView &keys, Int b, Int e)
{
  using K     = typename KeyView::non_const_value_type;
  const Int m = e - b;
  if (m < 2) return;
  if (m <= kSortInsertionMax) {
    for (Int p = b + 1; p < e; p++) {
      const K v = keys(p);
      Int     q = p;
      for (; q > b && v < keys(q - 1); q--) keys(q) = keys(q - 1);
      keys(q) = v;
    }
    return;
  }
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

/* the key that stands for "no key" (a row in no aggregate): it is left out of KeyCompact's numbering */
constexpr std::uint64_t kNoKey = ~std::uint64_t(0);

/* number of bits needed for the largest key of keys, kNoKey left out (0 when there is none or all are 0) */
int KeyBits(UView<const std::uint64_t> keys);

/* sorts keys ascending in place, permuting vals alike (stable: equal keys keep their order); only the lowest bits bits
   of the keys are looked at (bits in [0, 64]: pass KeyBits(keys), or 64). keys and vals have the same extent. */
void KeySortPairs(UView<std::uint64_t> keys, UView<Int> vals, int bits);

/* sorted = keys ascending (stable), perm(p) = the index of sorted(p) in keys (sorted, perm: keys' extent); kNoKey
   sorts last */
void KeySortPermutation(UView<const std::uint64_t> keys, UView<std::uint64_t> sorted, UView<Int> perm);

/* id(i) = rank of keys(i) among the distinct keys (ascending), -1 where keys(i) == kNoKey; returns the number m of
   distinct keys. unique (when not null) gets the m distinct keys, ascending (unique(id(i)) == keys(i)). */
Int KeyCompact(UView<const std::uint64_t> keys, UView<Int> id, View<std::uint64_t> *unique = nullptr);

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
