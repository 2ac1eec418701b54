/* Counting what a solver step costs on a latency-bound GPU: kernel launches and host synchronisations, from Kokkos'
   profiling callbacks (parallel_for/reduce/scan, deep_copy, fence) and PETSc's event counts of vector operations.
   Shared by the launch-count tests of the solvers; each test says which of its kernels it leaves out and which
   reductions keep their result on the device (those are launches, not host synchronisations). */
#pragma once

#include <petscsys.h>
#include <Kokkos_Core.hpp>
#include <cstring>
#include <map>
#include <string>

namespace kptest
{
struct LaunchRules {
  const char *ignore_prefix    = nullptr; /* labels starting with it are not counted (e.g. a test's own kernels) */
  const char *device_reduction = nullptr; /* reductions whose label contains it leave their result on the device */
  bool        scan_to_host     = false;   /* every scan returns its total to the host */
};

struct KokkosCounts {
  long                        launches = 0, host_reductions = 0, deep_copies = 0, fences = 0;
  std::map<std::string, long> labels;
};

namespace launches_detail
{
inline KokkosCounts g_counts;
inline LaunchRules  g_rules;

inline bool Ignored(const char *name) { return g_rules.ignore_prefix && std::strncmp(name, g_rules.ignore_prefix, std::strlen(g_rules.ignore_prefix)) == 0; }
inline void Launch(const char *name)
{
  g_counts.launches++;
  g_counts.labels[name]++;
}
inline void BeginFor(const char *name, const uint32_t, uint64_t *id)
{
  *id = 0;
  if (!Ignored(name)) Launch(name);
}
inline void BeginReduce(const char *name, const uint32_t, uint64_t *id)
{
  *id = 0;
  if (Ignored(name)) return;
  Launch(name);
  if (!g_rules.device_reduction || !std::strstr(name, g_rules.device_reduction)) g_counts.host_reductions++;
}
inline void BeginScan(const char *name, const uint32_t, uint64_t *id)
{
  *id = 0;
  if (Ignored(name)) return;
  Launch(name);
  if (g_rules.scan_to_host) g_counts.host_reductions++;
}
inline void BeginDeepCopy(Kokkos_Profiling_SpaceHandle, const char *, const void *, Kokkos_Profiling_SpaceHandle, const char *, const void *, uint64_t)
{
  g_counts.deep_copies++;
  g_counts.labels["(deep_copy)"]++;
}
inline void BeginFence(const char *name, const uint32_t, uint64_t *id)
{
  *id = 0;
  /* the fences of a deep_copy or of a reduction into a host scalar are counted there */
  if (std::strstr(name, "deep_copy") || std::strstr(name, "result being value")) return;
  g_counts.fences++;
  g_counts.labels["(fence)"]++;
}
inline void EndAny(uint64_t) { }
} // namespace launches_detail

/* the counts since the last StartCounting() */
inline const KokkosCounts &LaunchCounts() { return launches_detail::g_counts; }

/* zero the counts and install the callbacks */
inline void StartCounting(const LaunchRules &rules)
{
  namespace KT = Kokkos::Tools::Experimental;
  namespace D  = launches_detail;
  D::g_counts  = KokkosCounts();
  D::g_rules   = rules;
  KT::set_begin_parallel_for_callback(D::BeginFor);
  KT::set_begin_parallel_reduce_callback(D::BeginReduce);
  KT::set_begin_parallel_scan_callback(D::BeginScan);
  KT::set_end_parallel_for_callback(D::EndAny);
  KT::set_end_parallel_reduce_callback(D::EndAny);
  KT::set_end_parallel_scan_callback(D::EndAny);
  KT::set_begin_deep_copy_callback(D::BeginDeepCopy);
  KT::set_begin_fence_callback(D::BeginFence);
  KT::set_end_fence_callback(D::EndAny);
}

inline void StopCounting()
{
  namespace KT = Kokkos::Tools::Experimental;
  KT::set_begin_parallel_for_callback(nullptr);
  KT::set_begin_parallel_reduce_callback(nullptr);
  KT::set_begin_parallel_scan_callback(nullptr);
  KT::set_end_parallel_for_callback(nullptr);
  KT::set_end_parallel_reduce_callback(nullptr);
  KT::set_end_parallel_scan_callback(nullptr);
  KT::set_begin_deep_copy_callback(nullptr);
  KT::set_begin_fence_callback(nullptr);
  KT::set_end_fence_callback(nullptr);
}

/* how often PETSc's event name ran (0 when it never did) */
inline long EventCount(const char *name)
{
  PetscLogEvent      e;
  PetscEventPerfInfo info;
  if (PetscLogEventGetId(name, &e)) return 0;
  if (e < 0) return 0; /* PETSc >= 3.20 answers -1 for an event not registered (e.g. no such Vec operation logged yet) */
  if (PetscLogEventGetPerfInfo(PETSC_DETERMINE, e, &info)) return 0;
  return (long)info.count;
}
} // namespace kptest
