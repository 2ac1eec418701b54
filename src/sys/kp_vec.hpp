/*
   kp_vec.hpp - Kokkos views over PETSc Vecs, in the memory space where the Vec's values live.

   A DeviceVec wraps the Vec's array without a copy when the execution space can reach it (VECSEQ/VECMPI with
   a host backend; VECCUDA/VECKOKKOS with the CUDA backend, through VecGetArray...AndMemType); only when the
   Vec lives on the host and the kernels on the device is a device copy made (and written back on restore for
   write access).
*/
#pragma once

#include "kp_kokkos.hpp"
#include <petscvec.h>

namespace petsckp
{
enum class Access {
  Read,
  Write,
  ReadWrite
};

class DeviceVec {
public:
  DeviceVec() = default;
  DeviceVec(const DeviceVec &)            = delete;
  DeviceVec &operator=(const DeviceVec &) = delete;
  ~DeviceVec();

  PetscErrorCode Get(Vec v, Access mode);
  PetscErrorCode Restore();

  UView<Scalar>       view() const { return view_; }
  UView<const Scalar> cview() const { return UView<const Scalar>(view_.data(), view_.extent(0)); }
  Int                 size() const { return (Int)view_.extent(0); }
  bool                copied() const { return copied_; }

private:
  Vec           vec_  = nullptr;
  Access        mode_ = Access::Read;
  PetscScalar  *arr_  = nullptr;
  bool          copied_ = false;
  View<Scalar>  copy_;
  UView<Scalar> view_;
};

/* the sequential type that matches a Vec's memory (for ghost and work vectors): seq, seqcuda, seqkokkos, ... */
PetscErrorCode VecGetSeqTypeLike(Vec v, char seqtype[], size_t len);
/* whether two Vecs have the same type: PETSc's Vec operations (VecAXPY, VecCopy, ...) between Vecs of different
   types (host and device memory) are not valid */
PetscErrorCode VecSameType(Vec a, Vec b, PetscBool *same);
/* to = from for Vecs of the same local size and any types (host or device memory), through the execution space */
PetscErrorCode VecCopyAcrossTypes(Vec from, Vec to);
/* A user's Vec v in the type of a solver's work Vecs (like, e.g. from MatCreateVecs() of the operator): *use = v when
   the types agree, else *use = *work (created from like on first use, kept by the caller), holding a copy of v when
   copyin. PETSc's Vec operations between Vecs of different types are not valid (a VECSEQ x in VecAXPY() on a
   VECKOKKOS y: PETSc's optimized builds read a device view that x does not have), and a host DMDA with
   -mat_type aijkokkos in the options gives exactly that: DMCreateMatrix() applies the option, DMCreateGlobalVector()
   does not. VecRestoreAsTypeOf() copies *use back into v when copyout and it is a copy. */
PetscErrorCode VecGetAsTypeOf(Vec v, Vec like, PetscBool copyin, Vec *work, Vec *use);
PetscErrorCode VecRestoreAsTypeOf(Vec v, PetscBool copyout, Vec *use);
/* NaN/Inf check of a Vec, error naming what is wrong and where */
PetscErrorCode VecCheckFinite(Vec v, const char what[]);
} // namespace petsckp
