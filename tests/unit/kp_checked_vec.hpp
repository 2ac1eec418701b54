/* Host Vec types for the unit tests that refuse PETSc Vec operations between Vecs of two different types.

   PETSc's optimized builds do not check that the Vecs of an operation have the same type: VecAXPY() of a VECKOKKOS y
   with a VECSEQ x reads a device view that x does not have (a segmentation fault), while on the host VECSEQ and
   VECMPI share their implementations and mix without a sign. The types here are VECSEQ/VECMPI under other names
   ("seqchecka", "mpichecka", and the same with b) whose binary operations (VecCopy, VecAXPY, VecPointwiseMax, ...)
   raise PETSC_ERR_ARG_NOTSAMETYPE when the other Vec has another type name: a solver that combines a user's Vec with
   its own in a PETSc Vec operation fails on the CPU as it would crash on a GPU. */
#pragma once

#include <petscvec.h>
#include <petsc/private/vecimpl.h>
#include <cstring>
#include "petsckp_compat.h"


namespace kptest
{
namespace checked
{
inline _VecOps &Ops(bool mpi)
{
  static _VecOps seq, par;
  return mpi ? par : seq;
}

inline _VecOps &Orig(Vec v) { return Ops(std::strncmp(((PetscObject)v)->type_name, "mpi", 3) == 0); }

inline PetscErrorCode Same(const char op[], Vec a, Vec b)
{
  PetscFunctionBegin;
  if (a && b && a != b) {
    const char *ta = ((PetscObject)a)->type_name, *tb = ((PetscObject)b)->type_name;
    PetscCheck(!std::strcmp(ta, tb), PETSC_COMM_SELF, PETSC_ERR_ARG_NOTSAMETYPE, "%s between a %s and a %s Vec", op, ta, tb);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode Dot(Vec x, Vec y, PetscScalar *z)
{
  PetscFunctionBegin;
  PetscCall(Same("VecDot", x, y));
  PetscCall(Orig(x).dot(x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode TDot(Vec x, Vec y, PetscScalar *z)
{
  PetscFunctionBegin;
  PetscCall(Same("VecTDot", x, y));
  PetscCall(Orig(x).tdot(x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode Copy(Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(Same("VecCopy", x, y));
  PetscCall(Orig(x).copy(x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode Swap(Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(Same("VecSwap", x, y));
  PetscCall(Orig(x).swap(x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode AXPY(Vec y, PetscScalar a, Vec x)
{
  PetscFunctionBegin;
  PetscCall(Same("VecAXPY", y, x));
  PetscCall(Orig(y).axpy(y, a, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode AXPBY(Vec y, PetscScalar a, PetscScalar b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(Same("VecAXPBY", y, x));
  PetscCall(Orig(y).axpby(y, a, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode AYPX(Vec y, PetscScalar a, Vec x)
{
  PetscFunctionBegin;
  PetscCall(Same("VecAYPX", y, x));
  PetscCall(Orig(y).aypx(y, a, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode WAXPY(Vec w, PetscScalar a, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(Same("VecWAXPY", w, x));
  PetscCall(Same("VecWAXPY", w, y));
  PetscCall(Orig(w).waxpy(w, a, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode PointwiseMult(Vec w, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(Same("VecPointwiseMult", w, x));
  PetscCall(Same("VecPointwiseMult", w, y));
  PetscCall(Orig(w).pointwisemult(w, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode PointwiseMax(Vec w, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(Same("VecPointwiseMax", w, x));
  PetscCall(Same("VecPointwiseMax", w, y));
  PetscCall(Orig(w).pointwisemax(w, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode PointwiseMin(Vec w, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(Same("VecPointwiseMin", w, x));
  PetscCall(Same("VecPointwiseMin", w, y));
  PetscCall(Orig(w).pointwisemin(w, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode MAXPY(Vec y, PetscInt n, const PetscScalar *a, Vec *x)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) PetscCall(Same("VecMAXPY", y, x[i]));
  PetscCall(Orig(y).maxpy(y, n, a, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode MDot(Vec x, PetscInt n, const Vec y[], PetscScalar *z)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) PetscCall(Same("VecMDot", x, y[i]));
  PetscCall(Orig(x).mdot(x, n, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a duplicate of the same (checked) type: PETSc's VecDuplicate_MPI() would give the new Vec the name VECMPI */
inline PetscErrorCode Duplicate(Vec v, Vec *w)
{
  PetscInt n, N;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetSize(v, &N));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)v), w));
  PetscCall(VecSetSizes(*w, n, N));
  PetscCall(VecSetType(*w, ((PetscObject)v)->type_name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline void Wrap(Vec v)
{
  v->ops->duplicate     = Duplicate;
  v->ops->dot           = Dot;
  v->ops->tdot          = TDot;
  v->ops->copy          = Copy;
  v->ops->swap          = Swap;
  v->ops->axpy          = AXPY;
  v->ops->axpby         = AXPBY;
  v->ops->aypx          = AYPX;
  v->ops->waxpy         = WAXPY;
  v->ops->pointwisemult = PointwiseMult;
  v->ops->pointwisemax  = PointwiseMax;
  v->ops->pointwisemin  = PointwiseMin;
  v->ops->maxpy         = MAXPY;
  v->ops->mdot          = MDot;
}

template <bool MPI, char K>
PetscErrorCode Create(Vec v)
{
  static const char name[] = {MPI ? 'm' : 's', MPI ? 'p' : 'e', MPI ? 'i' : 'q', 'c', 'h', 'e', 'c', 'k', 'e', 'd', K, 0};

  PetscFunctionBegin;
  PetscCall(VecSetType(v, MPI ? VECMPI : VECSEQ)); /* VecCreate_Seq/_MPI are not exported by recent PETSc */
  Ops(MPI) = *v->ops;
  PetscCall(PetscObjectChangeTypeName((PetscObject)v, name));
  Wrap(v);
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace checked

/* the name of a checked Vec type on comm for the letter k ('a' or 'b'): "seqcheckeda" (VECSEQ) on one process,
   "mpicheckeda" (VECMPI) on more; the four types are registered on the first call */
inline PetscErrorCode CheckedVecType(MPI_Comm comm, char k, char type[], size_t len)
{
  static bool registered = false;
  PetscMPIInt size;

  PetscFunctionBegin;
  if (!registered) {
    PetscCall(VecRegister("seqcheckeda", checked::Create<false, 'a'>));
    PetscCall(VecRegister("seqcheckedb", checked::Create<false, 'b'>));
    PetscCall(VecRegister("mpicheckeda", checked::Create<true, 'a'>));
    PetscCall(VecRegister("mpicheckedb", checked::Create<true, 'b'>));
    registered = true;
  }
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscSNPrintf(type, len, "%scheckedb", size > 1 ? "mpi" : "seq"));
  type[std::strlen(type) - 1] = k;
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace kptest
