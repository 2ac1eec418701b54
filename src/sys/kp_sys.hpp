/*
   kp_sys.hpp - package-wide state of libpetsckp: class id, log events, the device matrix object.
*/
#pragma once

#include <petsckp.h>
#include "kp_sparse.hpp"
#include "kp_vec.hpp"

PETSC_EXTERN PetscClassId  PETSCKP_CLASSID;
PETSC_EXTERN PetscLogEvent PETSCKP_DeviceMatSetup, PETSCKP_DeviceMatUpdate, PETSCKP_SpMV;
PETSC_EXTERN PetscLogEvent PETSCKP_MGGalerkin, PETSCKP_MGCoarseFactor, PETSCKP_MGCoarseSolve; /* the multigrid layer kp_mg */
/* the phases of the distributed Galerkin product (inside PETSCKP_MGGalerkin): the ghost rows of P, R = P^T, the local
   products on the extended blocks, the off-process rows of R A P sent to their owners */
PETSC_EXTERN PetscLogEvent PETSCKP_MGGalerkinGhostP, PETSCKP_MGGalerkinTranspose, PETSCKP_MGGalerkinLocal, PETSCKP_MGGalerkinMerge;
PETSC_EXTERN PetscLogEvent PETSCKP_MGReplicated; /* a visit of the replicated coarse levels (kp_mg): its gather, cycle and return */
PETSC_EXTERN PetscLogEvent PETSCKP_DeflSpace, PETSCKP_DeflCoarse; /* deflation (kp_deflation): Z, Z^T, AZ; E, its factor */

struct _p_PetscKPDeviceMat {
  Mat              A         = nullptr; /* the PETSc matrix (referenced, unless shared) */
  PetscInt         refct     = 1;       /* PetscKPDeviceMatDestroy() frees it when the last reference goes */
  PetscBool        shared    = PETSC_FALSE; /* composed on A (DeviceMatGetShared()): A owns it and is not referenced */
  PetscKPMatFormat format    = PETSCKP_FORMAT_SELL;
  PetscObjectState state     = 0; /* of A when the values were last copied */
  PetscObjectState nzstate   = 0; /* nonzero state of A when the structure was built */
  PetscBool        mpi       = PETSC_FALSE;
  PetscInt         m = 0, n = 0, M = 0, N = 0, nghost = 0;
  PetscInt         rstart = 0, cstart = 0; /* first global row and column of this rank */

  /* diagonal block (or the whole sequential matrix) and off-diagonal block with compressed columns */
  petsckp::CsrMatrix  csr[2];
  petsckp::SellMatrix sell[2];
  petsckp::View<petsckp::Scalar> valbuf; /* staging for values that live on the host */

  /* ghost exchange for Vecs of the memory type lvectype; lvec2/sct2 keep the exchange of the type used before, so
     that a solver alternating between the user's Vecs and its own of another type (host and device) does not
     create a scatter at every change */
  Vec        lvec = nullptr, lvec2 = nullptr;
  VecScatter sct = nullptr, sct2 = nullptr;
  char       lvectype[64] = {0}, lvectype2[64] = {0};
  IS         ghostis = nullptr;
};

namespace petsckp
{
/* Access for solver kernels: the diagonal-block (local) CSR of a device matrix */
inline const CsrMatrix &DeviceMatLocalCsr(PetscKPDeviceMat dm) { return dm->csr[0]; }
/* y = A x with the ghost exchange; x, y PETSc Vecs of A's layout */
PetscErrorCode DeviceMatMultLocal(PetscKPDeviceMat dm, Vec x, Vec y);
/* the off-process block (columns numbered like the ghost vector); nrows 0 when sequential */
inline const CsrMatrix &DeviceMatGhostCsr(PetscKPDeviceMat dm) { return dm->csr[1]; }
/* gathers the ghost values of x (column layout of the matrix) into the device matrix's ghost vector and returns
   that vector in *ghosts (owned by dm, valid until the next call); *ghosts = NULL for a sequential matrix.
   Solvers whose kernels read neighbours between two phases (coloured sweeps) call it before each phase. */
PetscErrorCode DeviceMatGhostUpdate(PetscKPDeviceMat dm, Vec x, Vec *ghosts);
/* a sequential device matrix (format CSR) over a device CSR matrix made by a kernel, with no PETSc Mat behind it
   (e.g. coarse Galerkin operators formed on the device): the views are shared, not copied, so new values written
   into csr.vals are seen by the next product; PetscKPDeviceMatUpdateValues() does nothing for it */
PetscErrorCode DeviceMatCreateFromCsr(const CsrMatrix &csr, PetscKPDeviceMat *dm);
/* the same for a distributed matrix whose local rows are given as blocks made by kernels (no PETSc Mat behind it):
   the local block Ad (local rows x local columns), the ghost block Ao (local rows x nghost) whose column g is the
   global column garray[g] (ascending, owned by other ranks), the local and global sizes of the row and column
   layouts; collective. The ghost exchange is a VecScatter from a Vec of the column layout, as for an MPIAIJ matrix.
   On one process (or with a communicator of one rank) Ao must be empty and the matrix is sequential. */
PetscErrorCode DeviceMatCreateFromCsr(MPI_Comm comm, const CsrMatrix &Ad, const CsrMatrix &Ao, PetscInt nghost, const PetscInt garray[], PetscKPDeviceMat *dm);
/* The one device copy of A (format CSR) that every petsckp solver using A shares (e.g. KSPDCG's deflation and
   PCNEUMANN): made at the first call and composed on A, so that it lives as long as A; later calls refresh its values
   when A's object state changed and rebuild its structure when A's nonzero state changed. *dm is a new reference
   (release it with PetscKPDeviceMatDestroy()); after A is destroyed a reference still held has dm->A == NULL. */
PetscErrorCode DeviceMatGetShared(Mat A, PetscKPDeviceMat *dm);
/* check that a matrix is of a supported AIJ type; err names the caller */
PetscErrorCode MatCheckAIJ(Mat A, PetscBool *ismpi);
/* *B = a copy of A converted to `type` (MatDuplicate() and MatConvert(MAT_INPLACE_MATRIX)): PETSc's conversion of an
   MPIAIJ matrix to MPIAIJKOKKOS with MAT_INITIAL_MATRIX converts the diagonal and off-diagonal blocks of its input
   instead of those of the new matrix (MatConvert_MPIAIJ_MPIAIJKokkos() up to at least PETSc 3.25), whose blocks are
   then left without their device data */
PetscErrorCode MatConvertCopy(Mat A, MatType type, Mat *B);
/* *B = a host AIJ copy (MATSEQAIJ or MATMPIAIJ, the same rows, columns and values) of an AIJ matrix of any AIJ type,
   made from the CSR arrays of its local rows: PETSc has no converter from aijcusparse or aijkokkos to aij and falls back
   to MatConvert_Basic(), which inserts row by row into a matrix without preallocation (reallocating as rows fill):
   about 10 s for 3.6 million rows per process of a 7-point operator on an H100 machine; collective */
PetscErrorCode MatHostAIJCopy(Mat A, Mat *B);
/* an error (PETSC_ERR_ARG_SIZ, naming who) unless A is square with the same row and column layouts on every process
   (what a solver that applies A to its own iterates needs); collective */
PetscErrorCode MatCheckSquareLayout(Mat A, const char *who);

/* The private data of every solver type is a C++ struct T with default member initialisers (Kokkos views,
   std::vectors and PETSc objects as members), made by TypeDataCreate(&pc->data, &ctx) in the type's Create routine and freed by
   TypeDataDestroy<T>(&pc->data) in its Destroy routine, which leaves obj->data NULL so that PETSc's default destroy
   (KSPDestroyDefault() and the like) frees nothing more. */
template <class T>
inline PetscErrorCode TypeDataCreate(void **slot, T **data)
{
  PetscFunctionBegin;
  PetscCallCXX(*data = new T());
  *slot = static_cast<void *>(*data);
  PetscFunctionReturn(PETSC_SUCCESS);
}
template <class T>
inline PetscErrorCode TypeDataDestroy(void **slot)
{
  PetscFunctionBegin;
  PetscCallCXX(delete static_cast<T *>(*slot));
  *slot = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Monitors of the solver types: -<prefix><name> [ascii[:file[:format]]], read by MonitorSetFromOptions() inside
   the type's SetFromOptions (replacing *vf, NULL when the option is absent or false), printed with MonitorPrintf()
   indented like the object's own output, and freed with PetscViewerAndFormatDestroy() (only when not NULL: PETSc 3.18
   dereferences a NULL *vf). */
PetscErrorCode MonitorSetFromOptions(PETSCKP_OPTIONS_ARG, const char name[], const char text[], const char man[], PetscViewerAndFormat **vf);
PetscErrorCode MonitorPrintf(PetscObject obj, PetscViewerAndFormat *vf, const char format[], ...) PETSC_ATTRIBUTE_FORMAT(3, 4);
} // namespace petsckp
