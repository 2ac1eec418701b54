/*
   kp_init.cxx - Kokkos initialisation on first use, and the execution space instance of our kernels.
*/
#include "kp_kokkos.hpp"
#include <petscdevice.h>
#include <cstdlib>
#if defined(KOKKOS_ENABLE_CUDA)
  #include <cuda_runtime.h>
#endif

namespace petsckp
{
static ExecSpace *g_exec          = nullptr;
static PetscBool  g_we_initialized = PETSC_FALSE;

ExecSpace exec()
{
  if (g_exec) return *g_exec;
  return ExecSpace();
}

/* Kokkos cannot be initialised again once finalised, and an application may call PetscInitialize() again after
   PetscFinalize(): Kokkos, when petsckp started it, is finalised at the exit of the process, before the static objects
   of the libraries are destroyed. Kokkos::finalize() runs the finalize hooks that libraries registered with Kokkos,
   and Kokkos Kernels' hooks (its cuBLAS and cuSPARSE handles, used by PETSc's VECKOKKOS and MATAIJKOKKOS) read static
   holders that are destroyed at exit in the reverse order of their construction: the handler is therefore registered
   again at each PetscFinalize(), after every such object of the session (exit handlers run last-registered first,
   all of them before the CUDA runtime's, registered at its first call). */
static void KokkosFinalizeAtExit(void)
{
  if (g_we_initialized && Kokkos::is_initialized()) Kokkos::finalize();
  g_we_initialized = PETSC_FALSE;
}

/* PetscFinalize(): forget the execution space instance, which wraps PETSc's stream, and move the finalisation of
   Kokkos after the static objects created in this session */
static PetscErrorCode ExecInstanceRelease(void)
{
  PetscFunctionBegin;
  /* (a Kokkos that PETSc initialised is finalised by PetscFinalize() before this runs: the instance is then left) */
  if (g_exec && Kokkos::is_initialized()) PetscCallCXX(delete g_exec);
  g_exec = nullptr;
  if (g_we_initialized) PetscCheck(std::atexit(KokkosFinalizeAtExit) == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "petsckp: cannot register the finalisation of Kokkos at exit");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Run on PETSc's CUDA stream when PETSc's vectors live on the same device, so that no synchronisation is
   needed between PETSc's vector operations and our kernels. */
static PetscErrorCode SetExecInstance(void)
{
  PetscFunctionBegin;
  if (g_exec) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(KOKKOS_ENABLE_CUDA) && defined(PETSC_HAVE_CUDA) && defined(PETSCKP_HAVE_DEVICE_CONTEXT_STREAM)
  {
    PetscDeviceContext dctx;
    PetscDeviceType    dtype;
    void              *handle = nullptr;

    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceContextGetDeviceType(dctx, &dtype));
    if (dtype == PETSC_DEVICE_CUDA) {
      PetscCall(PetscDeviceContextGetStreamHandle(dctx, &handle));
      if (handle && *(cudaStream_t *)handle) {
        PetscCallCXX(g_exec = new ExecSpace(*(cudaStream_t *)handle));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
  }
#endif
  PetscCallCXX(g_exec = new ExecSpace());
  PetscFunctionReturn(PETSC_SUCCESS);
}

bool KokkosDevicePresent()
{
#if defined(KOKKOS_ENABLE_CUDA)
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError(); /* clear the error state of the runtime */
    return false;
  }
  return n > 0;
#else
  return true;
#endif
}

PetscErrorCode KokkosInitializeOnce()
{
  PetscFunctionBegin;
  if (!Kokkos::is_initialized()) {
    int device_id = -1;
#if defined(KOKKOS_ENABLE_CUDA)
  #if defined(PETSC_HAVE_CUDA)
    PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA)); /* let PETSc choose the device (rank % ndevices) first */
  #endif
    PetscCheck(cudaGetDevice(&device_id) == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "petsckp: no usable CUDA device (cudaGetDevice failed); this libpetsckp was built for CUDA");
#endif
    PetscCallCXX(compat::kokkos_initialize(device_id));
    g_we_initialized = PETSC_TRUE;
    PetscCheck(std::atexit(KokkosFinalizeAtExit) == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "petsckp: cannot register the finalisation of Kokkos at exit");
  }
  if (!g_exec) {
    PetscCall(SetExecInstance());
    PetscCall(PetscRegisterFinalize(ExecInstanceRelease));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace petsckp
