/*
   kernel_timer.cxx - a Kokkos Tools library that times every Kokkos kernel, deep copy and fence of a run, grouped by
   the innermost Kokkos profiling region (petsckp's solvers open one per setup and per application, e.g.
   "PCUAAMGApply"), so that the time of a preconditioner application can be split into its kernels without a
   profiler (the GPU machine has no Nsight Systems).

   Load it with  KOKKOS_TOOLS_LIBS=<build>/bench/libkp_kernel_timer.so  (Kokkos 4; KOKKOS_PROFILE_LIBRARY with Kokkos 3).
   With CUDA the device is synchronised (cudaDeviceSynchronize, found at run time) before and after each kernel, so
   that a kernel's time is its launch and its execution; the time between two kernels is counted as the host's
   ("host between kernels": PETSc calls, MPI, launches of other libraries). The synchronisations serialise the run:
   the total is an upper bound of the unprofiled time, and the per-kernel times are what to look at.

   Output at the end of the run (Kokkos::finalize): per region, the kernels sorted by total time: count, total (ms),
   mean (us), share of the region; to stderr, or to the file named by KP_KERNEL_TIMER_OUT (appended).
*/
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <string>
#include <vector>
#include <algorithm>

namespace
{
using Clock = std::chrono::steady_clock;

struct Entry {
  uint64_t count = 0;
  double   total = 0; /* seconds */
};

struct State {
  int (*sync)()                                 = nullptr; /* cudaDeviceSynchronize when the process has CUDA */
  std::vector<std::string>                     regions;
  std::map<std::string, std::map<std::string, Entry>> table; /* region -> label -> entry */
  std::vector<std::pair<std::string, Clock::time_point>> open; /* the kernels, copies and fences being timed (nested) */
  Clock::time_point                            last_end;
  bool                                         have_last = false;
  Clock::time_point                            start;
};

State &S()
{
  static State s;
  return s;
}

std::string Region()
{
  return S().regions.empty() ? std::string("(outside any region)") : S().regions.back();
}

void Sync()
{
  if (S().sync) (void)S().sync();
}

void Begin(const char *kind, const char *name)
{
  State &s = S();
  /* Kokkos fences around each kernel when a tool is loaded: what happens inside an open entry is part of it */
  if (!s.open.empty()) {
    s.open.emplace_back(std::string(), Clock::time_point());
    return;
  }
  Sync();
  Clock::time_point now = Clock::now();
  if (s.have_last) {
    Entry &h = s.table[Region()]["(host between kernels)"];
    h.count++;
    h.total += std::chrono::duration<double>(now - s.last_end).count();
  }
  s.open.emplace_back(std::string(kind) + " " + (name ? name : "?"), Clock::now());
}

void End()
{
  State &s = S();
  if (s.open.empty()) return;
  auto top = s.open.back();
  s.open.pop_back();
  if (top.first.empty()) return; /* nested */
  Sync();
  Clock::time_point now = Clock::now();
  Entry            &e   = s.table[Region()][top.first];
  e.count++;
  e.total += std::chrono::duration<double>(now - top.second).count();
  s.last_end  = now;
  s.have_last = true;
}
} // namespace

extern "C" {
void kokkosp_init_library(const int, const uint64_t, const uint32_t, void *)
{
  S().sync  = (int (*)())dlsym(RTLD_DEFAULT, "cudaDeviceSynchronize");
  S().start = Clock::now();
}

void kokkosp_finalize_library()
{
  State      &s    = S();
  const char *path = std::getenv("KP_KERNEL_TIMER_OUT");
  FILE       *f    = path ? std::fopen(path, "a") : stderr;
  if (!f) f = stderr;
  std::fprintf(f, "kernel timer: %.3f s from Kokkos initialisation to finalisation, device %s\n", std::chrono::duration<double>(Clock::now() - s.start).count(), s.sync ? "synchronised around each kernel (CUDA)" : "not synchronised (host backend)");
  for (auto &r : s.table) {
    std::vector<std::pair<std::string, Entry>> rows(r.second.begin(), r.second.end());
    double                                     total = 0;
    for (auto &e : rows)
      if (e.first != "(host between kernels)") total += e.second.total;
    std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) { return a.second.total > b.second.total; });
    std::fprintf(f, "region %s: kernels, copies and fences %.3f ms\n", r.first.c_str(), 1e3 * total);
    std::fprintf(f, "  %10s %12s %12s %7s  %s\n", "count", "total ms", "mean us", "share", "what");
    for (auto &e : rows) {
      const bool host = e.first == "(host between kernels)"; /* not part of the share's total */
      std::fprintf(f, "  %10llu %12.3f %12.2f %6.1f%c  %s\n", (unsigned long long)e.second.count, 1e3 * e.second.total, 1e6 * e.second.total / (double)std::max<uint64_t>(e.second.count, 1), total > 0 && !host ? 100.0 * e.second.total / total : 0.0, host ? ' ' : '%', e.first.c_str());
    }
  }
  if (f != stderr) std::fclose(f);
}

void kokkosp_begin_parallel_for(const char *name, const uint32_t, uint64_t *) { Begin("for", name); }
void kokkosp_end_parallel_for(const uint64_t) { End(); }
void kokkosp_begin_parallel_reduce(const char *name, const uint32_t, uint64_t *) { Begin("reduce", name); }
void kokkosp_end_parallel_reduce(const uint64_t) { End(); }
void kokkosp_begin_parallel_scan(const char *name, const uint32_t, uint64_t *) { Begin("scan", name); }
void kokkosp_end_parallel_scan(const uint64_t) { End(); }
void kokkosp_begin_fence(const char *name, const uint32_t, uint64_t *) { Begin("fence", name); }
void kokkosp_end_fence(const uint64_t) { End(); }

struct SpaceHandle {
  char name[64];
};
void kokkosp_begin_deep_copy(SpaceHandle dst, const char *, const void *, SpaceHandle src, const char *, const void *, uint64_t size)
{
  char what[256];
  /* a label per view would make many rows: the spaces, and the size rounded up to a power of 2 */
  unsigned long long b = 1;
  while (b < size) b <<= 1;
  std::snprintf(what, sizeof(what), "%s -> %s, <= %llu bytes", src.name, dst.name, b);
  Begin("deep_copy", what);
}
void kokkosp_end_deep_copy() { End(); }

void kokkosp_push_profile_region(const char *name) { S().regions.push_back(name ? name : "?"); }
void kokkosp_pop_profile_region()
{
  if (!S().regions.empty()) S().regions.pop_back();
}
}
