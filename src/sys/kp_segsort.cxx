/*
   kp_segsort.cxx - the exclusive scan and the radix sort of 64-bit keys of the shared layer (see kp_segsort.hpp).
*/
#include "kp_segsort.hpp"
#include <string>
#include <utility>

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

namespace
{
constexpr int kDigitBits = 8;
constexpr Int kDigits    = Int(1) << kDigitBits;
constexpr Int kBlock     = 256; /* items counted and scattered by one thread */
} // namespace

int KeyBits(UView<const std::uint64_t> keys)
{
  std::uint64_t mx = 0;
  Kokkos::parallel_reduce(
    "petsckp::KeyBits", range((Int)keys.extent(0)),
    KOKKOS_LAMBDA(Int i, std::uint64_t & m) {
      const std::uint64_t k = keys(i);
      if (k != kNoKey && k > m) m = k;
    },
    Kokkos::Max<std::uint64_t>(mx));
  int b = 0;
  while (b < 64 && (mx >> b) != 0) b++;
  return b;
}

void KeySortPairs(UView<std::uint64_t> keys, UView<Int> vals, int bits)
{
  const Int n  = (Int)keys.extent(0);
  const Int nb = (n + kBlock - 1) / kBlock;
  if (n < 2 || bits <= 0) return;
  View<std::uint64_t> k2(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("keysort keys")), n);
  View<Int>           v2(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("keysort vals")), n);
  View<Int>           cnt("keysort counts", kDigits * nb + 1);
  UView<std::uint64_t> ka = keys, kb(k2.data(), n);
  UView<Int>           va = vals, vb(v2.data(), n);
  const int            npass = (bits + kDigitBits - 1) / kDigitBits;
  for (int pass = 0; pass < npass; pass++) {
    const int shift = pass * kDigitBits;
    auto      c     = cnt;
    auto      ki = ka, ko = kb;
    auto      vi = va, vo = vb;
    Kokkos::deep_copy(exec(), cnt, Int(0));
    Kokkos::parallel_for(
      "petsckp::KeySortCount", range(nb), KOKKOS_LAMBDA(Int blk) {
        const Int e = blk * kBlock + kBlock < n ? blk * kBlock + kBlock : n;
        for (Int i = blk * kBlock; i < e; i++) c((Int)((ki(i) >> shift) & (kDigits - 1)) * nb + blk)++;
      });
    ExclusiveScan(cnt, kDigits * nb, "petsckp::KeySortScan");
    Kokkos::parallel_for(
      "petsckp::KeySortScatter", range(nb), KOKKOS_LAMBDA(Int blk) {
        const Int e = blk * kBlock + kBlock < n ? blk * kBlock + kBlock : n;
        for (Int i = blk * kBlock; i < e; i++) {
          const Int p = c((Int)((ki(i) >> shift) & (kDigits - 1)) * nb + blk)++;
          ko(p)       = ki(i);
          vo(p)       = vi(i);
        }
      });
    std::swap(ka, kb);
    std::swap(va, vb);
  }
  if (npass % 2) { /* the result is in the work arrays */
    Kokkos::deep_copy(exec(), keys, UView<const std::uint64_t>(k2.data(), n));
    Kokkos::deep_copy(exec(), vals, UView<const Int>(v2.data(), n));
  }
  exec().fence();
}

void KeySortPermutation(UView<const std::uint64_t> keys, UView<std::uint64_t> sorted, UView<Int> perm)
{
  const Int n = (Int)keys.extent(0);
  if (n == 0) return;
  Kokkos::deep_copy(exec(), sorted, keys);
  Kokkos::parallel_for(
    "petsckp::KeySortIota", range(n), KOKKOS_LAMBDA(Int i) { perm(i) = i; });
  KeySortPairs(sorted, perm, 64);
}

Int KeyCompact(UView<const std::uint64_t> keys, UView<Int> id, View<std::uint64_t> *unique)
{
  const Int n = (Int)keys.extent(0);
  if (unique) *unique = View<std::uint64_t>("keycompact unique", 0);
  if (n == 0) return 0;
  View<std::uint64_t> k(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("keycompact keys")), n);
  View<Int>           perm(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("keycompact perm")), n);
  View<Int>           head("keycompact heads", n + 1);
  Kokkos::deep_copy(exec(), k, keys);
  Kokkos::parallel_for(
    "petsckp::KeyCompactIota", range(n), KOKKOS_LAMBDA(Int i) { perm(i) = i; });
  /* kNoKey sorts last whatever the number of bits looked at: give it the value just above the largest key */
  const int bits = KeyBits(keys);
  if (bits < 64) {
    const std::uint64_t above = std::uint64_t(1) << bits;
    Kokkos::parallel_for(
      "petsckp::KeyCompactNone", range(n), KOKKOS_LAMBDA(Int i) {
        if (k(i) == kNoKey) k(i) = above;
      });
    KeySortPairs(uv(k), uv(perm), bits + 1);
  } else KeySortPairs(uv(k), uv(perm), 64);
  /* run heads of the keys that are real keys (looked up in the input, not in the shifted copy) */
  Kokkos::parallel_for(
    "petsckp::KeyCompactHeads", range(n), KOKKOS_LAMBDA(Int p) { head(p) = keys(perm(p)) != kNoKey && (p == 0 || k(p) != k(p - 1)) ? 1 : 0; });
  const Int m = ExclusiveScan(head, n, "petsckp::KeyCompactScan");
  View<std::uint64_t> u(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("keycompact unique")), m);
  Kokkos::parallel_for(
    "petsckp::KeyCompactIds", range(n), KOKKOS_LAMBDA(Int p) {
      const Int i = perm(p);
      if (keys(i) == kNoKey) {
        id(i) = -1;
        return;
      }
      const bool first = p == 0 || k(p) != k(p - 1);
      const Int  g     = first ? head(p) : head(p) - 1; /* head(p): heads before p (exclusive scan) */
      id(i)            = g;
      if (first) u(g) = k(p);
    });
  exec().fence();
  if (unique) *unique = u;
  return m;
}
} // namespace petsckp
