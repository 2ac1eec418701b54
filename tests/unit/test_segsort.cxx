/* Unit tests of the global key sorts of src/sys/kp_segsort (KeyBits, KeySortPairs, KeySortPermutation, KeyCompact)
   against std::stable_sort and std::map, at sizes 0, 1, 13, 597 and 100003, with keys of few and of all 64 bits,
   many duplicates, and "no key" entries. */
#include "kp_test.hpp"
#include "kp_segsort.hpp"
#include <cstdint>
#include <map>
#include <numeric>

using namespace kptest;

namespace
{
/* n keys: kind 0 all 64 bits, 1 few distinct values (< 2^10, many duplicates), 2 sparse tree-like keys (a leading bit
   at 20..62 plus low bits), each with about 5% kNoKey when none */
std::vector<std::uint64_t> RandomKeys(Int n, unsigned seed, int kind, bool none)
{
  std::mt19937_64            g(seed);
  std::vector<std::uint64_t> k(n);
  for (auto &x : k) {
    const std::uint64_t r = g();
    if (kind == 0) x = r == kNoKey ? 0 : r;
    else if (kind == 1) x = r % 1000;
    else {
      const int b = 20 + (int)(r % 43);
      x           = (std::uint64_t(1) << b) | ((g() >> 1) & ((std::uint64_t(1) << b) - 1) & ~std::uint64_t(0xff)); /* runs of equal keys */
    }
    if (none && g() % 20 == 0) x = kNoKey;
  }
  return k;
}
} // namespace

TEST(KeySort, KeyBits)
{
  for (Int n : Sizes()) {
    for (int kind = 0; kind < 3; kind++) {
      auto          k  = RandomKeys(n, 3 + n + kind, kind, true);
      std::uint64_t mx = 0;
      for (auto x : k)
        if (x != kNoKey) mx = std::max(mx, x);
      int b = 0;
      while (b < 64 && (mx >> b)) b++;
      EXPECT_EQ(KeyBits(ucv(ToDevice(k))), b) << "n " << n << " kind " << kind;
    }
  }
}

TEST(KeySort, PairsStableAgainstStdStableSort)
{
  for (Int n : Sizes())
    for (int kind = 0; kind < 3; kind++) {
      auto             k = RandomKeys(n, 11 + n + kind, kind, false);
      std::vector<Int> v(n);
      std::iota(v.begin(), v.end(), 0);
      std::vector<std::pair<std::uint64_t, Int>> ref(n);
      for (Int i = 0; i < n; i++) ref[i] = {k[i], v[i]};
      std::stable_sort(ref.begin(), ref.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
      for (int bits : {KeyBits(ucv(ToDevice(k))), 64}) {
        auto dk = ToDevice(k);
        auto dv = ToDevice(v);
        KeySortPairs(uv(dk), uv(dv), bits);
        auto hk = ToHost(dk);
        auto hv = ToHost(dv);
        bool ok = true;
        for (Int i = 0; i < n && ok; i++) ok = hk[i] == ref[i].first && hv[i] == ref[i].second;
        EXPECT_TRUE(ok) << "n " << n << " kind " << kind << " bits " << bits;
      }
    }
}

TEST(KeySort, PermutationAndCompact)
{
  for (Int n : Sizes())
    for (int kind = 0; kind < 3; kind++) {
      auto             k = RandomKeys(n, 21 + n + kind, kind, true);
      std::vector<Int> p(n);
      std::iota(p.begin(), p.end(), 0);
      std::stable_sort(p.begin(), p.end(), [&](Int a, Int b) { return k[a] < k[b]; }); /* kNoKey is the largest value */
      auto                dk = ToDevice(k);
      View<std::uint64_t> sorted("sorted", n);
      View<Int>           perm("perm", n);
      KeySortPermutation(ucv(dk), uv(sorted), uv(perm));
      auto hs = ToHost(sorted);
      EXPECT_EQ(ToHost(perm), p) << "n " << n << " kind " << kind;
      bool ok = true;
      for (Int i = 0; i < n && ok; i++) ok = hs[i] == k[p[i]];
      EXPECT_TRUE(ok);
      /* compaction: ranks among the distinct real keys */
      std::map<std::uint64_t, Int> rank;
      for (auto x : k)
        if (x != kNoKey) rank[x] = 0;
      Int r = 0;
      for (auto &e : rank) e.second = r++;
      View<Int>           id("id", n);
      View<std::uint64_t> uniq;
      EXPECT_EQ(KeyCompact(ucv(dk), uv(id), &uniq), (Int)rank.size()) << "n " << n << " kind " << kind;
      auto             hid = ToHost(id);
      auto             hu  = ToHost(uniq);
      std::vector<Int> rid(n);
      for (Int i = 0; i < n; i++) rid[i] = k[i] == kNoKey ? -1 : rank[k[i]];
      EXPECT_EQ(hid, rid);
      ASSERT_EQ((Int)hu.size(), (Int)rank.size());
      Int q = 0;
      for (auto &e : rank) EXPECT_EQ(hu[q++], e.first);
      EXPECT_EQ(KeyCompact(ucv(dk), uv(id)), (Int)rank.size()); /* without the distinct keys */
    }
}

/* the one-thread sort of a segment (insertion up to kSortInsertionMax keys, heap sort above) against std::sort:
   segments of every length around the switch, sorted, reversed, random and with many repeated keys, one thread per
   segment in one kernel */
/* one thread per segment; a free function, since nvcc refuses a device lambda inside a test body (a private member) */
template <class KeyView, class OffView>
static void SortSegments(KeyView dk, OffView doff, Int ns)
{
  Kokkos::parallel_for(
    "test::SegmentSort", range(ns), KOKKOS_LAMBDA(Int s) { HeapSortRange(dk, doff(s), doff(s + 1)); });
}

TEST(KeySort, SegmentSortAgainstStdSort)
{
  for (Int n : Sizes()) {
    SCOPED_TRACE("size " + std::to_string(n));
    std::mt19937         g(29 + (unsigned)n);
    std::vector<Int>     off = {0};
    std::vector<Int>     keys;
    for (Int s = 0; off.back() < n; s++) {
      const Int len = std::min<Int>(n - off.back(), s % 40); /* 0 .. 39: both sides of the switch */
      for (Int q = 0; q < len; q++) {
        const int kind = s % 4;
        keys.push_back(kind == 0 ? q : kind == 1 ? len - q : kind == 2 ? (Int)(g() % 100000) : (Int)(g() % 3));
      }
      off.push_back(off.back() + len);
    }
    std::vector<Int> ref = keys;
    for (size_t s = 0; s + 1 < off.size(); s++) std::sort(ref.begin() + off[s], ref.begin() + off[s + 1]);
    auto      dk = ToDevice(keys);
    auto      doff = ToDevice(off);
    const Int ns = (Int)off.size() - 1;
    SortSegments(dk, doff, ns);
    EXPECT_EQ(ToHost(dk), ref);
  }
}
