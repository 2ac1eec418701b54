/*
   petsckp_compat.h - the one place where versions of PETSc (3.18 ... 3.25+) and Kokkos (3.4 ... 4.x) differ.

   Every other file of the project is written against the names defined here; no other file tests a
   version number.
*/
#pragma once

#include <petscsys.h>
#include <petscversion.h>

#if !PETSC_VERSION_GE(3, 18, 0)
  #error "petsc-kokkos-plugins needs PETSc 3.18 or newer"
#endif

/* PETSC_SUCCESS appeared in PETSc 3.19 */
#if !PETSC_VERSION_GE(3, 19, 0)
  #ifndef PETSC_SUCCESS
    #define PETSC_SUCCESS 0
  #endif
#endif

/* PetscOptionItems became a pointer type in PETSc 3.23; setfromoptions hooks take it by value since then */
#if PETSC_VERSION_GE(3, 23, 0)
  #define PETSCKP_OPTIONS_ARG PetscOptionItems PetscOptionsObject
#else
  #define PETSCKP_OPTIONS_ARG PetscOptionItems *PetscOptionsObject
#endif

/* PetscAssertPointer replaced PetscValidPointer in PETSc 3.20 */
#if PETSC_VERSION_GE(3, 20, 0)
  #define PetscKPAssertPointer(p, arg) PetscAssertPointer(p, arg)
#else
  #define PetscKPAssertPointer(p, arg) PetscValidPointer(p, arg)
#endif

/* PetscDeviceContextGetStreamHandle() is public since PETSc 3.20 (used to run Kokkos on PETSc's CUDA stream) */
#if PETSC_VERSION_GE(3, 20, 0)
  #define PETSCKP_HAVE_DEVICE_CONTEXT_STREAM 1
#endif

/* KSPSetDMActive() says which parts of the KSP's work the DM does (operator, rhs, guess) on PETSc's main branch
   after 3.25 (a development PETSc compares greater than every release) */
#if PETSC_VERSION_GE(3, 26, 0)
  #define PetscKPKSPSetDMActive(ksp, flg) KSPSetDMActive(ksp, KSP_DMACTIVE_ALL, flg)
#else
  #define PetscKPKSPSetDMActive(ksp, flg) KSPSetDMActive(ksp, flg)
#endif

/* PETSc 3.25's TaoFinalizePackage() destroys the list of TaoTerm types without resetting the flag that guards their
   registration, so after PetscFinalize() and a new PetscInitialize() no Tao can be created (in PETSc, not petsckp) */
#if PETSC_VERSION_GE(3, 25, 0)
  #define PETSCKP_TAO_REINITIALIZE_BROKEN 1
#endif

/* The destroy routine of a PetscContainer's context: PetscContainerSetCtxDestroy() (PETSc 3.23) passes the address of
   the context (declared void ** in 3.23 and 3.24, void * since 3.25), PetscContainerSetUserDestroy() (deprecated since
   3.23) the context itself. A routine declared PetscErrorCode f(PETSCKP_CONTAINER_DESTROY_ARG arg) finds its context
   as PetscKPContainerCtx(arg) and is set with PetscKPContainerSetDestroy(container, f). */
#if PETSC_VERSION_GE(3, 25, 0)
  #define PETSCKP_CONTAINER_DESTROY_ARG    void *
  #define PetscKPContainerCtx(arg)         (*(void **)(arg))
  #define PetscKPContainerSetDestroy(c, f) PetscContainerSetCtxDestroy(c, f)
#elif PETSC_VERSION_GE(3, 23, 0)
  #define PETSCKP_CONTAINER_DESTROY_ARG    void **
  #define PetscKPContainerCtx(arg)         (*(arg))
  #define PetscKPContainerSetDestroy(c, f) PetscContainerSetCtxDestroy(c, f)
#else
  #define PETSCKP_CONTAINER_DESTROY_ARG    void *
  #define PetscKPContainerCtx(arg)         (arg)
  #define PetscKPContainerSetDestroy(c, f) PetscContainerSetUserDestroy(c, f)
#endif

/* The device CSR of aijcusparse / aijkokkos from MatSeqAIJGetCSRAndMemType() is used for the column indices of petsckp's
   device matrices since PETSc 3.19 (no host round trip); with PETSc 3.18 the structure is copied from the host arrays.
   With 64-bit PetscInt the host arrays are used too: aijcusparse keeps 32-bit device indices, which that routine
   returns under a PetscInt pointer. */
#if PETSC_VERSION_GE(3, 19, 0) && !defined(PETSC_USE_64BIT_INDICES)
  #define PETSCKP_HAVE_DEVICE_CSR 1
#endif

/* A vector filled with Inf marks a failed application (PCSetFailedReason()): VecFlag(v, 1) since PETSc 3.22, whose
   deprecated VecSetInf() is declared without C linkage and so cannot be linked from C++ */
#if PETSC_VERSION_GE(3, 22, 0)
  #define PetscKPVecSetInf(v) VecFlag(v, 1)
#else
  #define PetscKPVecSetInf(v) VecSetInf(v)
#endif

/* PetscErrorMessage() gives the specific message of the last error as a const string since PETSc 3.25 */
#if PETSC_VERSION_GE(3, 25, 0)
typedef const char *PetscKPErrorString;
#else
typedef char *PetscKPErrorString;
#endif

/* While PetscOptionsPushGetViewerOff(PETSC_TRUE) is in force, the viewer options (-ksp_view, -ksp_converged_reason,
   -ksp_monitor, the solvers' monitors) give no viewer, e.g. to an untimed warm-up solve; the functions are named
   PetscOptionsPush/PopCreateViewerOff() since PETSc 3.22 (the old names deprecated) */
#if PETSC_VERSION_GE(3, 22, 0)
  #define PetscKPOptionsPushViewerOff(flg) PetscOptionsPushCreateViewerOff(flg)
  #define PetscKPOptionsPopViewerOff()     PetscOptionsPopCreateViewerOff()
#else
  #define PetscKPOptionsPushViewerOff(flg) PetscOptionsPushGetViewerOff(flg)
  #define PetscKPOptionsPopViewerOff()     PetscOptionsPopGetViewerOff()
#endif

#if defined(__cplusplus) && defined(PETSCKP_COMPAT_KOKKOS)
  #include <Kokkos_Core.hpp>
  #if KOKKOS_VERSION >= 40000
    #define PETSCKP_KOKKOS4 1
  #endif
namespace petsckp
{
namespace compat
{
/* Kokkos 4 replaced InitArguments by InitializationSettings */
inline void kokkos_initialize(int device_id)
{
  #if defined(PETSCKP_KOKKOS4)
  Kokkos::InitializationSettings args;
  if (device_id >= 0) args.set_device_id(device_id);
  args.set_disable_warnings(true);
  Kokkos::initialize(args);
  #else
  Kokkos::InitArguments args;
  args.device_id        = device_id;
  args.disable_warnings = true;
  Kokkos::initialize(args);
  #endif
}

/* math in kernels: Kokkos 4 has Kokkos::sqrt etc., Kokkos 3.4 has them in Kokkos::Experimental */
KOKKOS_INLINE_FUNCTION double sqrt(double x)
{
  #if defined(PETSCKP_KOKKOS4)
  return Kokkos::sqrt(x);
  #else
  return Kokkos::Experimental::sqrt(x);
  #endif
}
KOKKOS_INLINE_FUNCTION double exp(double x)
{
  #if defined(PETSCKP_KOKKOS4)
  return Kokkos::exp(x);
  #else
  return Kokkos::Experimental::exp(x);
  #endif
}
KOKKOS_INLINE_FUNCTION double fabs(double x) { return x < 0 ? -x : x; }
KOKKOS_INLINE_FUNCTION double fmin(double a, double b) { return a < b ? a : b; }
KOKKOS_INLINE_FUNCTION double fmax(double a, double b) { return a > b ? a : b; }
KOKKOS_INLINE_FUNCTION bool   isfinite(double x)
{
  #if defined(PETSCKP_KOKKOS4)
  return Kokkos::isfinite(x);
  #else
  return x - x == 0.0;
  #endif
}
} // namespace compat
} // namespace petsckp
#endif
