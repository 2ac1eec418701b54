/*
   kp_vec.cxx - Vec access by memory type.
*/
#include "kp_vec.hpp"

namespace petsckp
{
DeviceVec::~DeviceVec()
{
  if (vec_) (void)Restore();
}

PetscErrorCode DeviceVec::Get(Vec v, Access mode)
{
  PetscMemType mtype = PETSC_MEMTYPE_HOST;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCheck(!vec_, PETSC_COMM_SELF, PETSC_ERR_ORDER, "petsckp::DeviceVec already holds a Vec; call Restore() first");
  PetscCall(VecGetLocalSize(v, &n));
  vec_    = v;
  mode_   = mode;
  copied_ = false;
  if (!kDeviceExec) {
    /* host execution space: let PETSc bring the values to the host if they live on a device */
    switch (mode) {
    case Access::Read:
      PetscCall(VecGetArrayRead(v, (const PetscScalar **)&arr_));
      break;
    case Access::Write:
      PetscCall(VecGetArrayWrite(v, &arr_));
      break;
    case Access::ReadWrite:
      PetscCall(VecGetArray(v, &arr_));
      break;
    }
    view_ = UView<Scalar>(arr_, n);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  switch (mode) {
  case Access::Read:
    PetscCall(VecGetArrayReadAndMemType(v, (const PetscScalar **)&arr_, &mtype));
    break;
  case Access::Write:
    PetscCall(VecGetArrayWriteAndMemType(v, &arr_, &mtype));
    break;
  case Access::ReadWrite:
    PetscCall(VecGetArrayAndMemType(v, &arr_, &mtype));
    break;
  }
  if (PetscMemTypeHost(mtype)) {
    /* a host Vec with a device execution space: work on a device copy */
    PetscCallCXX(copy_ = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "petsckp::DeviceVec copy"), n));
    if (mode != Access::Write) PetscCallCXX(Kokkos::deep_copy(exec(), copy_, HostUView<Scalar>(arr_, n)));
    view_   = UView<Scalar>(copy_.data(), n);
    copied_ = true;
  } else view_ = UView<Scalar>(arr_, n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DeviceVec::Restore()
{
  PetscFunctionBegin;
  if (!vec_) PetscFunctionReturn(PETSC_SUCCESS);
  if (copied_) {
    if (mode_ != Access::Read) PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Scalar>(arr_, view_.extent(0)), copy_));
    PetscCallCXX(exec().fence());
    copy_ = View<Scalar>();
  }
  if (!kDeviceExec) {
    switch (mode_) {
    case Access::Read:
      PetscCall(VecRestoreArrayRead(vec_, (const PetscScalar **)&arr_));
      break;
    case Access::Write:
      PetscCall(VecRestoreArrayWrite(vec_, &arr_));
      break;
    case Access::ReadWrite:
      PetscCall(VecRestoreArray(vec_, &arr_));
      break;
    }
  } else {
    switch (mode_) {
    case Access::Read:
      PetscCall(VecRestoreArrayReadAndMemType(vec_, (const PetscScalar **)&arr_));
      break;
    case Access::Write:
      PetscCall(VecRestoreArrayWriteAndMemType(vec_, &arr_));
      break;
    case Access::ReadWrite:
      PetscCall(VecRestoreArrayAndMemType(vec_, &arr_));
      break;
    }
  }
  vec_  = nullptr;
  arr_  = nullptr;
  view_ = UView<Scalar>();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VecGetSeqTypeLike(Vec v, char seqtype[], size_t len)
{
  VecType   type;
  PetscBool ismpi;

  PetscFunctionBegin;
  PetscCall(VecGetType(v, &type));
  PetscCall(PetscStrncmp(type, "mpi", 3, &ismpi));
  if (ismpi) {
    PetscCall(PetscStrncpy(seqtype, "seq", len));
    PetscCall(PetscStrlcat(seqtype, type + 3, len));
  } else PetscCall(PetscStrncpy(seqtype, type, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VecSameType(Vec a, Vec b, PetscBool *same)
{
  VecType ta, tb;

  PetscFunctionBegin;
  PetscCall(VecGetType(a, &ta));
  PetscCall(VecGetType(b, &tb));
  PetscCall(PetscStrcmp(ta, tb, same));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VecCopyAcrossTypes(Vec from, Vec to)
{
  DeviceVec f, t;

  PetscFunctionBegin;
  PetscCall(f.Get(from, Access::Read));
  PetscCall(t.Get(to, Access::Write));
  PetscCheck(f.size() == t.size(), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Vectors of %" PetscInt_FMT " and %" PetscInt_FMT " local entries", f.size(), t.size());
  PetscCallCXX(Kokkos::deep_copy(exec(), t.view(), f.cview()));
  PetscCall(t.Restore());
  PetscCall(f.Restore());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VecGetAsTypeOf(Vec v, Vec like, PetscBool copyin, Vec *work, Vec *use)
{
  PetscBool same;

  PetscFunctionBegin;
  PetscCall(VecSameType(v, like, &same));
  if (same) {
    *use = v;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!*work) PetscCall(VecDuplicate(like, work));
  if (copyin) PetscCall(VecCopyAcrossTypes(v, *work));
  *use = *work;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VecRestoreAsTypeOf(Vec v, PetscBool copyout, Vec *use)
{
  PetscFunctionBegin;
  if (*use != v && copyout) PetscCall(VecCopyAcrossTypes(*use, v));
  *use = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VecCheckFinite(Vec v, const char what[])
{
  PetscReal nrm;

  PetscFunctionBegin;
  PetscCall(VecNorm(v, NORM_INFINITY, &nrm));
  PetscCheck(!PetscIsInfOrNanReal(nrm), PetscObjectComm((PetscObject)v), PETSC_ERR_FP, "%s contains NaN or Inf entries", what);
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace petsckp
