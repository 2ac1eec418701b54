/*
   kp_kokkos.hpp - the types of the shared Kokkos layer: execution space, memory space, views.

   Kernels of every solver are written against these names and never see a PETSc object.
*/
#pragma once

#define PETSCKP_COMPAT_KOKKOS
#include "petsckp_compat.h"
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <type_traits>

namespace petsckp
{
using ExecSpace     = Kokkos::DefaultExecutionSpace;
using MemSpace      = ExecSpace::memory_space;
using HostExecSpace = Kokkos::DefaultHostExecutionSpace;
using Scalar        = PetscScalar;
using Real          = PetscReal;
using Int           = PetscInt;

/* true when the execution space cannot dereference host memory (CUDA, HIP, ...) */
constexpr bool kDeviceExec = !Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;

template <class T>
using View = Kokkos::View<T *, MemSpace>;
template <class T>
using UView = Kokkos::View<T *, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class T>
using HostView = Kokkos::View<T *, Kokkos::HostSpace>;
template <class T>
using HostUView = Kokkos::View<T *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

using ScalarView      = View<Scalar>;
using ConstScalarView = Kokkos::View<const Scalar *, MemSpace>;
using IntView         = View<Int>;
using ConstIntView    = Kokkos::View<const Int *, MemSpace>;

/* The execution space instance our kernels run on: PETSc's CUDA stream when both PETSc and Kokkos use CUDA,
   so that our kernels are ordered with PETSc's own vector operations; the default instance otherwise. */
ExecSpace exec();

/* Kokkos initialisation on first use (no-op when someone, e.g. PETSc, already initialised it) */
PetscErrorCode KokkosInitializeOnce();
/* whether the device of Kokkos' default execution space is there (always true for a host backend) */
bool KokkosDevicePresent();

/* A Kokkos profiling region for the lifetime of the object (a solver's setup or application): Kokkos Tools (e.g.
   bench/kernel_timer.cxx) group the kernels launched inside by its name */
class ProfileRegion {
public:
  explicit ProfileRegion(const char *name) { Kokkos::Profiling::pushRegion(name); }
  ~ProfileRegion() { Kokkos::Profiling::popRegion(); }
  ProfileRegion(const ProfileRegion &)            = delete;
  ProfileRegion &operator=(const ProfileRegion &) = delete;
};

/* Parallel policies on our execution space */
inline Kokkos::RangePolicy<ExecSpace> range(Int n) { return Kokkos::RangePolicy<ExecSpace>(exec(), 0, n); }
inline Kokkos::RangePolicy<ExecSpace> range(Int b, Int e) { return Kokkos::RangePolicy<ExecSpace>(exec(), b, e); }
/* league teams of at most upto threads on a device (fewer when the kernel f's registers allow fewer), of one thread
   on a host backend: for kernels whose teams each reduce or sweep a long range, where the team size Kokkos picks by
   itself (128 on an H200) leaves most of the device's threads unused when the teams are few */
template <class F>
inline Kokkos::TeamPolicy<ExecSpace> TeamPolicyUpTo(const F &f, Int league, int upto)
{
  const int most = Kokkos::TeamPolicy<ExecSpace>(exec(), 1, Kokkos::AUTO).team_size_max(f, Kokkos::ParallelForTag());
  return Kokkos::TeamPolicy<ExecSpace>(exec(), league, std::max(1, std::min(kDeviceExec ? upto : 1, most)));
}
} // namespace petsckp
