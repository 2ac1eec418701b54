/* Counting what a solver step costs on a latency-bound GPU: kernel launches and host synchronisations, from Kokkos'
   profiling callbacks (parallel_for/reduce/scan, deep_copy, fence) and PETSc's event counts of vector operations.
   Shared by the launch-count tests of the solvers; each test says which of its kernels it leaves out and which
   reductions keep their result on the device (those are launches, not host synchronisations). */
#pragma once

#include <petscsys.h>
#include <petscvec.h>
#include <Kokkos_Core.hpp>
#include <cstring>
#include <map>
#include <string>

namespace kptest
{
struct LaunchRules {
  const char *ignore_prefix    = nullptr; /* labels starting with it are not counted (e.g. a test's own kernels) */
  const char *device_reduction = nullptr; /* reductions whose label contains it (or one of its '|'-separated parts) leave their result on the device */
  bool        scan_to_host     = false;   /* every scan returns its total to the host ... */
  const char *device_scan      = nullptr; /* ... but those whose label contains it (or one of its '|'-separated parts) */
};

struct KokkosCounts {
  long                        launches = 0, host_reductions = 0, deep_copies = 0, fences = 0;
  long                        tool_fences = 0; /* the fences Kokkos adds around the callbacks of a tool (not the code's own) */
  std::map<std::string, long> labels;          /* launches per kernel label, "(deep_copy)", "(fence) <label>" per fence label */
};

namespace launches_detail
{
inline KokkosCounts g_counts;
inline LaunchRules  g_rules;

inline bool Ignored(const char *name) { return g_rules.ignore_prefix && std::strncmp(name, g_rules.ignore_prefix, std::strlen(g_rules.ignore_prefix)) == 0; }
/* whether name contains one of the '|'-separated parts of list */
inline bool Matches(const char *name, const char *list)
{
  if (!list) return false;
  std::string l(list);
  for (size_t b = 0, e; b <= l.size(); b = e + 1) {
    e = l.find('|', b);
    if (e == std::string::npos) e = l.size();
    if (e > b && std::strstr(name, l.substr(b, e - b).c_str())) return true;
  }
  return false;
}
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
  if (!Matches(name, g_rules.device_reduction)) g_counts.host_reductions++;
}
inline void BeginScan(const char *name, const uint32_t, uint64_t *id)
{
  *id = 0;
  if (Ignored(name)) return;
  Launch(name);
  if (g_rules.scan_to_host && !Matches(name, g_rules.device_scan)) g_counts.host_reductions++;
}
inline void BeginDeepCopy(Kokkos_Profiling_SpaceHandle, const char *, const void *, Kokkos_Profiling_SpaceHandle, const char *, const void *, uint64_t)
{
  g_counts.deep_copies++;
  g_counts.labels["(deep_copy)"]++;
}
inline void BeginFence(const char *name, const uint32_t, uint64_t *id)
{
  *id = 0;
  /* Kokkos 4 fences globally before and after every callback of a loaded tool that may need it (kernel begin/end:
     "Kokkos Profile Tool Fence", once per execution space), unless the tool asks otherwise: these are the counting's
     own, not the code's, and absent when nothing is profiling */
  if (std::strstr(name, "Profile Tool Fence")) {
    g_counts.tool_fences++;
    return;
  }
  /* the fences of a deep_copy (Kokkos 4 labels "Kokkos::deep_copy: ...") are counted with the copy, those of a reduction
     or scan into a host value (Kokkos 4: "fence due to result being value, not view", "... being a value, not a view",
     the CUDA backend's "Result Not Device Accessible", the combined reducers' "fence after copying values back") with the
     reduction */
  if (std::strstr(name, "deep_copy") || std::strstr(name, "fence due to result being") || std::strstr(name, "Result Not Device Accessible") || std::strstr(name, "fence after copying values back")) return;
  g_counts.fences++;
  g_counts.labels[std::string("(fence) ") + name]++;
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
/* an integer option of the command line (sizes of the launch tests), def when absent or unreadable */
inline PetscInt OptionInt(const char *name, PetscInt def)
{
  PetscInt  v = def;
  PetscBool flg;
  if (PetscOptionsGetInt(NULL, NULL, name, &v, &flg)) return def;
  return v;
}

/* host synchronisations from the counts: a copy to the host is waited for by a fence with Kokkos 4; Kokkos 3 reports
   no fences, its deep copies stand for them */
inline double HostSyncs(double vecreductions, double host_reductions, double deep_copies, double fences)
{
#if KOKKOS_VERSION >= 40000
  (void)deep_copies;
  return vecreductions + host_reductions + fences;
#else
  (void)fences;
  return vecreductions + host_reductions + deep_copies;
#endif
}
/* PETSc's own vector operations are Kokkos kernels on VECKOKKOS (PETSc configured with Kokkos): Kokkos' callbacks then
   count them as the solver's kernels and host reductions, besides PETSc's events; the launch counts of the solvers are
   taken with the CUDA and host types, and skipped with these */
inline bool VecOpsAreKokkosKernels(Vec v)
{
  VecType type;
  if (VecGetType(v, &type) || !type) return false;
  return std::strstr(type, "kokkos") != nullptr;
}
} // namespace kptest
