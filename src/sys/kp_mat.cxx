/*
   kp_mat.cxx - PetscKPDeviceMat: a PETSc AIJ matrix copied to the Kokkos memory space as CSR or SELL-C,
   with SpMV including the ghost exchange, and value refresh without rebuilding the structure.
*/
#include "kp_sys.hpp"
#include <petsc/private/matimpl.h>
#include <utility>

const char *const PetscKPMatFormats[] = {"csr", "sell", "PetscKPMatFormat", "PETSCKP_FORMAT_", nullptr};

namespace petsckp
{
PetscErrorCode MatCheckAIJ(Mat A, PetscBool *ismpi)
{
  PetscBool isseq, ismpiaij;
  MatType   type;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &isseq, MATSEQAIJ, MATSEQAIJCUSPARSE, MATSEQAIJKOKKOS, MATSEQAIJHIPSPARSE, MATSEQAIJPERM, MATSEQAIJSELL, MATSEQAIJMKL, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &ismpiaij, MATMPIAIJ, MATMPIAIJCUSPARSE, MATMPIAIJKOKKOS, MATMPIAIJHIPSPARSE, MATMPIAIJPERM, MATMPIAIJSELL, MATMPIAIJMKL, ""));
  PetscCall(MatGetType(A, &type));
  PetscCheck(isseq || ismpiaij, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "petsckp needs an AIJ matrix (aij, aijcusparse, aijkokkos), not %s; create it with MatSetType(A, MATAIJ) or -mat_type aij/aijcusparse, or convert it with MatConvert()", type);
  if (ismpi) *ismpi = ismpiaij;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvertCopy(Mat A, MatType type, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, B));
  PetscCall(MatConvert(*B, type, MAT_INPLACE_MATRIX, B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCheckSquareLayout(Mat A, const char *who)
{
  PetscInt  M, N, m, n;
  PetscBool bad;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatGetLocalSize(A, &m, &n));
  bad = m != n ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
  PetscCheck(M == N, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_SIZ, "%s needs a square operator, not %" PetscInt_FMT " x %" PetscInt_FMT, who, M, N);
  PetscCheck(!bad, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_SIZ, "%s needs the same row and column layouts of its operator on every process (local rows and columns differ on some process): create it with equal local row and column sizes", who);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatHostAIJCopy(Mat A, Mat *B)
{
  PetscBool       ismpi, plain;
  PetscInt        m, n, M, N, nr;
  const PetscInt *ia, *ja;
  const Scalar   *aa;
  PetscBool       done;
  Mat             L = nullptr;
  PetscMPIInt     size;

  PetscFunctionBegin;
  PetscCall(MatCheckAIJ(A, &ismpi));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &plain, MATSEQAIJ, MATMPIAIJ, ""));
  if (plain) {
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, B));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(MatGetSize(A, &M, &N));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (!ismpi) {
    PetscCall(PetscObjectReference((PetscObject)A));
    L = A;
  } else if (size == 1) { /* the local rows of a one-process MPIAIJ matrix are its diagonal block */
    Mat Ad, Ao;

    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    PetscCall(PetscObjectReference((PetscObject)Ad));
    L = Ad;
  } else PetscCall(MatMPIAIJGetLocalMat(A, MAT_INITIAL_MATRIX, &L)); /* host SeqAIJ of the local rows, global columns */
  PetscCall(MatGetRowIJ(L, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  PetscCheck(done && nr == m, PETSC_COMM_SELF, PETSC_ERR_SUP, "petsckp: MatGetRowIJ() gave no CSR of the local rows of this %s matrix", ((PetscObject)L)->type_name);
  PetscCall(MatSeqAIJGetArrayRead(L, &aa)); /* values where the host can read them (copied from the device if needed) */
  if (ismpi) PetscCall(MatCreateMPIAIJWithArrays(PetscObjectComm((PetscObject)A), m, n, M, N, ia, ja, aa, B));
  else {
    PetscCall(MatCreate(PETSC_COMM_SELF, B));
    PetscCall(MatSetSizes(*B, m, n, M, N));
    PetscCall(MatSetType(*B, MATSEQAIJ));
    PetscCall(MatSeqAIJSetPreallocationCSR(*B, ia, ja, aa));
  }
  PetscCall(MatSeqAIJRestoreArrayRead(L, &aa));
  PetscCall(MatRestoreRowIJ(L, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  PetscCall(MatDestroy(&L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CSR arrays of a sequential AIJ block in our memory space (values only when vals_only).
   Values are read where they live (PETSc's device copy for aijcusparse / aijkokkos: a device-to-device copy).
   Column indices: from PETSc's device CSR when there is one (PETSCKP_HAVE_DEVICE_CSR), converted to our 32-bit indices
   by a kernel; otherwise copied from the host arrays. Row offsets: always from the host arrays (every AIJ type keeps
   them; m + 1 integers, a small part of the matrix), because the device row offsets of aijcusparse are those of the
   compressed-row form when most rows are empty (the off-diagonal block of MPIAIJ), which this interface does not
   tell apart; the column indices and the values have the same order in both forms. */
static PetscErrorCode SeqBlockToDevice(Mat B, CsrMatrix &csr, View<Scalar> &valbuf, PetscBool vals_only)
{
  PetscInt        m, n, nnz;
  const PetscInt *ia, *ja, *dj = nullptr;
  PetscScalar    *aa;
  PetscMemType    mtype = PETSC_MEMTYPE_HOST;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(MatGetSize(B, &m, &n));
  PetscCheck(n < 2147483647, PETSC_COMM_SELF, PETSC_ERR_SUP, "petsckp device matrices use 32-bit local column indices; local block of %" PetscInt_FMT " columns is too large", n);
  PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ() failed for this matrix type");
  nnz = ia[m];
  if (kDeviceExec) PetscCall(MatSeqAIJGetCSRAndMemType(B, NULL, &dj, &aa, &mtype)); /* the row offsets come from ia (see above) */
  else PetscCall(MatSeqAIJGetArrayRead(B, (const PetscScalar **)&aa));
  if (PetscMemTypeHost(mtype)) {
    if ((Int)valbuf.extent(0) < nnz) PetscCallCXX(valbuf = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("vals stage")), nnz));
    PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(valbuf, Kokkos::make_pair((Int)0, nnz)), HostUView<const Scalar>(aa, nnz)));
    aa = valbuf.data();
  }
  if (!vals_only) {
    View<Int>  rp = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("rowptr stage")), m + 1);
    View<Int>  ci;
    const Int *cols = nullptr;

    PetscCallCXX(Kokkos::deep_copy(exec(), rp, HostUView<const Int>(ia, m + 1)));
#if defined(PETSCKP_HAVE_DEVICE_CSR)
    if (!PetscMemTypeHost(mtype) && dj) cols = dj; /* PETSc's device column indices */
#endif
    if (!cols) {
      PetscCallCXX(ci = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("colidx stage")), nnz));
      PetscCallCXX(Kokkos::deep_copy(exec(), ci, HostUView<const Int>(ja, nnz)));
      cols = ci.data();
    }
    PetscCallCXX(CsrFromArrays(m, n, UView<const Int>(rp.data(), m + 1), UView<const Int>(cols, nnz), UView<const Scalar>(aa, nnz), csr));
  } else {
    PetscCheck(nnz == csr.nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "nonzero count changed without a structure rebuild");
    PetscCallCXX(CsrUpdateValues(csr, UView<const Scalar>(aa, nnz)));
  }
  PetscCallCXX(exec().fence());
  if (!kDeviceExec) PetscCall(MatSeqAIJRestoreArrayRead(B, (const PetscScalar **)&aa));
  PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeviceMatBuild(PetscKPDeviceMat dm, PetscBool vals_only)
{
  Mat             blocks[2] = {nullptr, nullptr};
  const PetscInt *garray    = nullptr;
  PetscInt        nb;

  PetscFunctionBegin;
  if (dm->mpi) PetscCall(MatMPIAIJGetSeqAIJ(dm->A, &blocks[0], &blocks[1], &garray));
  else blocks[0] = dm->A;
  nb = dm->mpi ? 2 : 1;
  for (PetscInt b = 0; b < nb; b++) {
    PetscCall(SeqBlockToDevice(blocks[b], dm->csr[b], dm->valbuf, vals_only));
    if (dm->format == PETSCKP_FORMAT_SELL) {
      if (!vals_only) {
        PetscCallCXX(SellFromCsr(dm->csr[b], dm->sell[b]));
        /* the CSR copy is kept only when the solvers need it (format csr); SELL keeps its own values */
      } else PetscCallCXX(SellUpdateValues(dm->sell[b], UView<const Scalar>(dm->csr[b].vals.data(), dm->csr[b].nnz)));
    }
  }
  if (dm->mpi && !vals_only) {
    PetscInt nghost;
    PetscCall(MatGetSize(blocks[1], NULL, &nghost));
    dm->nghost = nghost;
    PetscCall(ISDestroy(&dm->ghostis));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nghost, garray, PETSC_COPY_VALUES, &dm->ghostis));
    PetscCall(VecDestroy(&dm->lvec));
    PetscCall(VecScatterDestroy(&dm->sct));
    PetscCall(VecDestroy(&dm->lvec2));
    PetscCall(VecScatterDestroy(&dm->sct2));
    dm->lvectype[0] = dm->lvectype2[0] = 0;
  }
  PetscCallCXX(exec().fence());
  PetscCall(PetscObjectStateGet((PetscObject)dm->A, &dm->state));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the ghost vector and scatter for the memory type of x: the current one, the one of the type used before (swapped
   in), or a new one (the current one kept as the one before) */
static PetscErrorCode DeviceMatSetUpGhosts(PetscKPDeviceMat dm, Vec x)
{
  char      seqtype[64];
  PetscBool same;

  PetscFunctionBegin;
  PetscCall(VecGetSeqTypeLike(x, seqtype, sizeof(seqtype)));
  PetscCall(PetscStrcmp(seqtype, dm->lvectype, &same));
  if (same && dm->lvec) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscStrcmp(seqtype, dm->lvectype2, &same));
  if (!same || !dm->lvec2) { /* the slot of the type before takes the current exchange, the current slot a new one */
    PetscCall(VecDestroy(&dm->lvec2));
    PetscCall(VecScatterDestroy(&dm->sct2));
    dm->lvectype2[0] = 0;
  }
  std::swap(dm->lvec, dm->lvec2);
  std::swap(dm->sct, dm->sct2);
  std::swap(dm->lvectype, dm->lvectype2);
  if (same && dm->lvec) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecCreate(PETSC_COMM_SELF, &dm->lvec));
  PetscCall(VecSetSizes(dm->lvec, dm->nghost, dm->nghost));
  PetscCall(VecSetType(dm->lvec, seqtype));
  PetscCall(VecScatterCreate(x, dm->ghostis, dm->lvec, NULL, &dm->sct));
  PetscCall(PetscStrncpy(dm->lvectype, seqtype, sizeof(dm->lvectype)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void LocalSpmv(PetscKPDeviceMat dm, PetscInt b, Scalar beta, UView<const Scalar> x, UView<Scalar> y)
{
  if (dm->format == PETSCKP_FORMAT_SELL) Spmv(dm->sell[b], 1.0, x, beta, y);
  else Spmv(dm->csr[b], 1.0, x, beta, y);
}

PetscErrorCode DeviceMatGhostUpdate(PetscKPDeviceMat dm, Vec x, Vec *ghosts)
{
  PetscFunctionBegin;
  *ghosts = nullptr;
  if (!dm->mpi) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DeviceMatSetUpGhosts(dm, x));
  PetscCall(VecScatterBegin(dm->sct, x, dm->lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(dm->sct, x, dm->lvec, INSERT_VALUES, SCATTER_FORWARD));
  *ghosts = dm->lvec;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DeviceMatMultLocal(PetscKPDeviceMat dm, Vec x, Vec y)
{
  DeviceVec xv, yv;

  PetscFunctionBegin;
  if (dm->mpi) {
    PetscCall(DeviceMatSetUpGhosts(dm, x));
    PetscCall(VecScatterBegin(dm->sct, x, dm->lvec, INSERT_VALUES, SCATTER_FORWARD));
  }
  PetscCall(xv.Get(x, Access::Read));
  PetscCall(yv.Get(y, Access::Write));
  PetscCallCXX(LocalSpmv(dm, 0, 0.0, xv.cview(), yv.view()));
  PetscCall(xv.Restore());
  if (dm->mpi) {
    DeviceVec lv;
    PetscCall(VecScatterEnd(dm->sct, x, dm->lvec, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(lv.Get(dm->lvec, Access::Read));
    PetscCallCXX(LocalSpmv(dm, 1, 1.0, lv.cview(), yv.view()));
    PetscCall(lv.Restore());
  }
  PetscCall(yv.Restore());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DeviceMatCreateFromCsr(const CsrMatrix &csr, PetscKPDeviceMat *dm)
{
  PetscKPDeviceMat d;

  PetscFunctionBegin;
  PetscKPAssertPointer(dm, 2);
  PetscCall(PetscKPInitializePackage());
  PetscCall(KokkosInitializeOnce());
  PetscCheck(csr.ncols < 2147483647, PETSC_COMM_SELF, PETSC_ERR_SUP, "petsckp device matrices use 32-bit local column indices; %" PetscInt_FMT " columns is too many", (PetscInt)csr.ncols);
  PetscCallCXX(d = new _p_PetscKPDeviceMat());
  d->format = PETSCKP_FORMAT_CSR;
  d->mpi    = PETSC_FALSE;
  d->m = d->M = csr.nrows;
  d->n = d->N = csr.ncols;
  PetscCallCXX(d->csr[0] = csr);
  *dm = d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DeviceMatCreateFromCsr(MPI_Comm comm, const CsrMatrix &Ad, const CsrMatrix &Ao, PetscInt nghost, const PetscInt garray[], PetscKPDeviceMat *dm)
{
  PetscKPDeviceMat d;
  PetscMPIInt      size;
  PetscInt         loc[2], glob[2], first[2];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size == 1) {
    PetscCheck(nghost == 0 && Ao.nnz == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "A sequential device matrix has no ghost block (%" PetscInt_FMT " ghost columns given)", nghost);
    PetscCall(DeviceMatCreateFromCsr(Ad, dm));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(Ao.nrows == Ad.nrows && Ao.ncols == nghost, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The ghost block has %" PetscInt_FMT " x %" PetscInt_FMT " entries, not %" PetscInt_FMT " x %" PetscInt_FMT, Ao.nrows, Ao.ncols, Ad.nrows, nghost);
  PetscCall(DeviceMatCreateFromCsr(Ad, &d));
  loc[0] = Ad.nrows, loc[1] = Ad.ncols;
  PetscCallMPI(MPI_Allreduce(loc, glob, 2, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPI_Exscan(loc, first, 2, MPIU_INT, MPI_SUM, comm));
  {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (rank == 0) first[0] = first[1] = 0; /* MPI_Exscan leaves rank 0's result undefined */
  }
  d->mpi    = PETSC_TRUE;
  d->M      = glob[0];
  d->N      = glob[1];
  d->rstart = first[0];
  d->cstart = first[1];
  d->nghost = nghost;
  PetscCallCXX(d->csr[1] = Ao);
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nghost, garray, PETSC_COPY_VALUES, &d->ghostis));
  *dm = d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a device copy of A; reference: whether it references A (PetscKPDeviceMatCreate()) or not (the shared copy, which A owns) */
static PetscErrorCode DeviceMatCreate(Mat A, PetscKPMatFormat format, PetscBool reference, PetscKPDeviceMat *dm)
{
  PetscKPDeviceMat d;

  PetscFunctionBegin;
  PetscCall(PetscKPInitializePackage());
  PetscCall(KokkosInitializeOnce());
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Matrix must be assembled before a petsckp device copy is made (call MatAssemblyBegin/End)");
  PetscCallCXX(d = new _p_PetscKPDeviceMat());
  d->format = format;
  d->shared = reference ? PETSC_FALSE : PETSC_TRUE;
  PetscCall(MatCheckAIJ(A, &d->mpi));
  if (reference) PetscCall(PetscObjectReference((PetscObject)A));
  d->A = A;
  PetscCall(MatGetLocalSize(A, &d->m, &d->n));
  PetscCall(MatGetSize(A, &d->M, &d->N));
  PetscCall(MatGetOwnershipRange(A, &d->rstart, NULL));
  PetscCall(MatGetOwnershipRangeColumn(A, &d->cstart, NULL));
  PetscCall(PetscLogEventBegin(PETSCKP_DeviceMatSetup, A, 0, 0, 0));
  PetscCall(DeviceMatBuild(d, PETSC_FALSE));
  PetscCall(PetscLogEventEnd(PETSCKP_DeviceMatSetup, A, 0, 0, 0));
  PetscCall(MatGetNonzeroState(A, &d->nzstate));
  *dm = d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char kSharedKey[] = "PetscKPDeviceMatShared_C";

/* the destroy routine of the container that composes the shared copy on A: A is being destroyed (or the copy replaced),
   so a reference still held elsewhere keeps a device matrix with no PETSc Mat behind it */
static PetscErrorCode DeviceMatSharedDestroy(PETSCKP_CONTAINER_DESTROY_ARG arg)
{
  PetscKPDeviceMat dm = (PetscKPDeviceMat)PetscKPContainerCtx(arg);

  PetscFunctionBegin;
  dm->A = nullptr;
  PetscCall(PetscKPDeviceMatDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DeviceMatGetShared(Mat A, PetscKPDeviceMat *dm)
{
  PetscContainer   c = nullptr;
  PetscKPDeviceMat d = nullptr;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscKPAssertPointer(dm, 2);
  PetscCall(PetscObjectQuery((PetscObject)A, kSharedKey, (PetscObject *)&c));
  if (c) PetscCall(PetscContainerGetPointer(c, (void **)&d));
  if (d && d->A == A) {
    PetscCall(PetscInfo(A, "petsckp: the shared device copy of the matrix is reused (%" PetscInt_FMT " references)\n", (PetscInt)d->refct));
    PetscCall(PetscKPDeviceMatUpdateValues(d)); /* values, or the structure after a new nonzero pattern */
  } else {
    PetscCall(PetscInfo(A, "petsckp: the shared device copy of the matrix is created\n"));
    /* the first use of A (or a copy composed on another matrix, e.g. by an object copy): a new copy, owned by A */
    PetscCall(DeviceMatCreate(A, PETSCKP_FORMAT_CSR, PETSC_FALSE, &d));
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
    PetscCall(PetscContainerSetPointer(c, d));
    PetscCall(PetscKPContainerSetDestroy(c, DeviceMatSharedDestroy));
    PetscCall(PetscObjectCompose((PetscObject)A, kSharedKey, (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c));
  }
  d->refct++;
  *dm = d;
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace petsckp

using namespace petsckp;

/*@C
  PetscKPDeviceMatCreate - copies an AIJ matrix into the Kokkos memory space for SpMV by the solvers of petsckp

  Collective

  Input Parameters:
+ A      - the matrix: `MATAIJ` (sequential or MPI), `MATAIJCUSPARSE` or `MATAIJKOKKOS`
- format - `PETSCKP_FORMAT_SELL` (sliced ELLPACK, fastest on GPUs) or `PETSCKP_FORMAT_CSR`

  Output Parameter:
. dm - the device matrix

  Level: intermediate

  Notes:
  Under MPI the local rows are stored as PETSc stores them: the diagonal block and the off-diagonal block with
  compressed columns; `PetscKPDeviceMatMult()` exchanges the ghost values with a `VecScatter` (GPU-aware when
  PETSc is) while it multiplies the diagonal block.

  When the values of `A` change (same nonzero pattern), `PetscKPDeviceMatMult()` refreshes them on its own;
  `PetscKPDeviceMatUpdateValues()` does it explicitly. A new nonzero pattern rebuilds the structure.

.seealso: `PetscKPDeviceMatMult()`, `PetscKPDeviceMatDestroy()`, `MatCreateKPShell()`
@*/
PetscErrorCode PetscKPDeviceMatCreate(Mat A, PetscKPMatFormat format, PetscKPDeviceMat *dm)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscKPAssertPointer(dm, 3);
  PetscCall(DeviceMatCreate(A, format, PETSC_TRUE, dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscKPDeviceMatUpdateValues - copies the current values of the matrix to the device copy; rebuilds the
  structure if the nonzero pattern changed

  Collective

  Input Parameter:
. dm - the device matrix

  Level: intermediate

.seealso: `PetscKPDeviceMatCreate()`
@*/
PetscErrorCode PetscKPDeviceMatUpdateValues(PetscKPDeviceMat dm)
{
  PetscObjectState nz, st;

  PetscFunctionBegin;
  PetscKPAssertPointer(dm, 1);
  if (!dm->A) PetscFunctionReturn(PETSC_SUCCESS); /* made from a device CSR (DeviceMatCreateFromCsr): nothing to copy */
  PetscCall(PetscObjectStateGet((PetscObject)dm->A, &st));
  if (st == dm->state) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetNonzeroState(dm->A, &nz));
  PetscCall(PetscLogEventBegin(PETSCKP_DeviceMatUpdate, dm->A, 0, 0, 0));
  PetscCall(DeviceMatBuild(dm, nz == dm->nzstate ? PETSC_TRUE : PETSC_FALSE));
  PetscCall(PetscLogEventEnd(PETSCKP_DeviceMatUpdate, dm->A, 0, 0, 0));
  dm->nzstate = nz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscKPDeviceMatMult - y = A x with the device copy of A

  Collective

  Input Parameters:
+ dm - the device matrix
- x  - input vector, with the column layout of A (any memory type: host or GPU)

  Output Parameter:
. y - output vector, with the row layout of A

  Level: intermediate

.seealso: `PetscKPDeviceMatCreate()`, `MatMult()`
@*/
PetscErrorCode PetscKPDeviceMatMult(PetscKPDeviceMat dm, Vec x, Vec y)
{
  PetscInt nx, ny;

  PetscFunctionBegin;
  PetscKPAssertPointer(dm, 1);
  PetscValidHeaderSpecific(x, VEC_CLASSID, 2);
  PetscValidHeaderSpecific(y, VEC_CLASSID, 3);
  PetscCheck(x != y, PetscObjectComm((PetscObject)x), PETSC_ERR_ARG_IDN, "x and y must be different vectors");
  PetscCall(VecGetLocalSize(x, &nx));
  PetscCall(VecGetLocalSize(y, &ny));
  PetscCheck(nx == dm->n && ny == dm->m, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Vector local sizes x %" PetscInt_FMT ", y %" PetscInt_FMT " do not match the matrix local size %" PetscInt_FMT " x %" PetscInt_FMT, nx, ny, dm->m, dm->n);
  PetscCall(PetscKPDeviceMatUpdateValues(dm));
  PetscCall(PetscLogEventBegin(PETSCKP_SpMV, dm->A, x, y, 0));
  PetscCall(DeviceMatMultLocal(dm, x, y));
  PetscCall(PetscLogFlops(2.0 * (dm->csr[0].nnz + (dm->mpi ? dm->csr[1].nnz : 0))));
  PetscCall(PetscLogEventEnd(PETSCKP_SpMV, dm->A, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscKPDeviceMatGetInfo - local sizes and storage of a device matrix

  Not Collective

  Input Parameter:
. dm - the device matrix

  Output Parameters:
+ m      - local rows
. nnz    - local nonzeros (diagonal plus off-diagonal block)
. stored - stored entries including SELL padding
- nghost - number of ghost columns

  Level: intermediate

.seealso: `PetscKPDeviceMatCreate()`
@*/
PetscErrorCode PetscKPDeviceMatGetInfo(PetscKPDeviceMat dm, PetscInt *m, PetscInt *nnz, PetscInt *stored, PetscInt *nghost)
{
  PetscFunctionBegin;
  PetscKPAssertPointer(dm, 1);
  if (m) *m = dm->m;
  if (nnz) *nnz = dm->csr[0].nnz + (dm->mpi ? dm->csr[1].nnz : 0);
  if (stored) *stored = dm->format == PETSCKP_FORMAT_SELL ? dm->sell[0].stored + (dm->mpi ? dm->sell[1].stored : 0) : dm->csr[0].nnz + (dm->mpi ? dm->csr[1].nnz : 0);
  if (nghost) *nghost = dm->nghost;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscKPDeviceMatView - prints the format and sizes of a device matrix

  Collective

  Input Parameters:
+ dm     - the device matrix
- viewer - an ASCII viewer

  Level: intermediate

.seealso: `PetscKPDeviceMatCreate()`
@*/
PetscErrorCode PetscKPDeviceMatView(PetscKPDeviceMat dm, PetscViewer viewer)
{
  PetscInt  m, nnz, stored, nghost;
  PetscBool iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscKPDeviceMatGetInfo(dm, &m, &nnz, &stored, &nghost));
  PetscCall(PetscViewerASCIIPrintf(viewer, "petsckp device matrix: format %s, %" PetscInt_FMT " x %" PetscInt_FMT " global, %s memory\n", PetscKPMatFormats[dm->format], dm->M, dm->N, kDeviceExec ? "device" : "host"));
  PetscCall(PetscViewerASCIIPushSynchronized(viewer));
  PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "  local rows %" PetscInt_FMT ", nonzeros %" PetscInt_FMT ", stored %" PetscInt_FMT ", ghosts %" PetscInt_FMT "\n", m, nnz, stored, nghost));
  PetscCall(PetscViewerFlush(viewer));
  PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscKPDeviceMatDestroy - releases a reference to a device matrix, and frees it with the last one

  Collective

  Input Parameter:
. dm - the device matrix (set to `NULL`)

  Level: intermediate

.seealso: `PetscKPDeviceMatCreate()`
@*/
PetscErrorCode PetscKPDeviceMatDestroy(PetscKPDeviceMat *dm)
{
  PetscFunctionBegin;
  if (!dm || !*dm) PetscFunctionReturn(PETSC_SUCCESS);
  if (--(*dm)->refct > 0) {
    *dm = nullptr;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecDestroy(&(*dm)->lvec));
  PetscCall(VecScatterDestroy(&(*dm)->sct));
  PetscCall(VecDestroy(&(*dm)->lvec2));
  PetscCall(VecScatterDestroy(&(*dm)->sct2));
  PetscCall(ISDestroy(&(*dm)->ghostis));
  if (!(*dm)->shared) PetscCall(MatDestroy(&(*dm)->A));
  PetscCallCXX(delete *dm);
  *dm = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_KPShell(Mat S, Vec x, Vec y)
{
  PetscKPDeviceMat dm;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &dm));
  PetscCall(PetscKPDeviceMatMult(dm, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetDiagonal_KPShell(Mat S, Vec d)
{
  PetscKPDeviceMat dm;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &dm));
  PetscCall(MatGetDiagonal(dm->A, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_KPShell(Mat S, PetscViewer viewer)
{
  PetscKPDeviceMat dm;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &dm));
  PetscCall(PetscKPDeviceMatView(dm, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_KPShell(Mat S)
{
  PetscKPDeviceMat dm;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &dm));
  PetscCall(PetscKPDeviceMatDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatCreateKPShell - a `MATSHELL` whose `MatMult()` is petsckp's device SpMV of `A`

  Collective

  Input Parameters:
+ A      - an AIJ matrix (host or GPU type)
- format - `PETSCKP_FORMAT_SELL` or `PETSCKP_FORMAT_CSR`

  Output Parameter:
. S - the shell matrix; its vectors have the type of `A`'s vectors

  Level: intermediate

  Note:
  Use it as the operator of a `KSP` (with `A` as the preconditioning matrix) to run the Krylov method on
  petsckp's SpMV. Changes of the values of `A` are picked up at the next `MatMult()`.

.seealso: `PetscKPDeviceMatCreate()`
@*/
PetscErrorCode MatCreateKPShell(Mat A, PetscKPMatFormat format, Mat *S)
{
  PetscKPDeviceMat dm;
  PetscInt         m, n, M, N;
  VecType          vtype;

  PetscFunctionBegin;
  PetscCall(PetscKPDeviceMatCreate(A, format, &dm));
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)A), m, n, M, N, dm, S));
  PetscCall(MatShellSetOperation(*S, MATOP_MULT, (void (*)(void))MatMult_KPShell));
  PetscCall(MatShellSetOperation(*S, MATOP_GET_DIAGONAL, (void (*)(void))MatGetDiagonal_KPShell));
  PetscCall(MatShellSetOperation(*S, MATOP_VIEW, (void (*)(void))MatView_KPShell));
  PetscCall(MatShellSetOperation(*S, MATOP_DESTROY, (void (*)(void))MatDestroy_KPShell));
  PetscCall(MatGetVecType(A, &vtype));
  PetscCall(MatShellSetVecType(*S, vtype));
  PetscFunctionReturn(PETSC_SUCCESS);
}
