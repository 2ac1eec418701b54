/*
   kp_init.cxx - Kokkos initialisation on first use, and the execution space instance of our kernels.
*/
#include "kp_kokkos.hpp"
#include <petscdevice.h>
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

static PetscErrorCode KokkosFinalizeIfOurs(void)
{
  PetscFunctionBegin;
  if (g_exec) PetscCallCXX(delete g_exec);
  g_exec = nullptr;
  if (g_we_initialized && Kokkos::is_initialized()) PetscCallCXX(Kokkos::finalize());
  g_we_initialized = PETSC_FALSE;
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
    PetscCall(PetscRegisterFinalize(KokkosFinalizeIfOurs));
  }
  PetscCall(SetExecInstance());
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace petsckp
