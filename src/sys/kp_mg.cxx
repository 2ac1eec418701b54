/*
   kp_mg.cxx - the shared multigrid layer: level hierarchy with device or host Galerkin setup, V/W/K cycles, coarsest
   direct solve. See kp_mg.hpp for the contract and the mathematics.
*/
#include "kp_mg.hpp"
#include "kp_colour.hpp"
#include "kp_segsort.hpp"
#include <algorithm>

namespace petsckp
{
/* ---------------------------------------------------------------------------------------------------------------- */
/* coarsest-level direct solve */

/* factors the dense matrix whose local rows (nlocal x n, row-major, on the host) this rank holds */
static PetscErrorCode CoarseDirectFactor(MPI_Comm comm, Int n, Int rstart, Int nlocal, const std::vector<Scalar> &rows, Real rtol, MGCoarseDirect &D)
{
  std::vector<Scalar>      full, E;
  std::vector<PetscMPIInt> rcounts, rdispls;
  PetscMPIInt              size, rank, nl;
  Int                      total = 0;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PETSCKP_MGCoarseFactor, 0, 0, 0, 0));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMPIIntCast(nlocal, &nl));
  PetscCallCXX(D.counts.assign(size, 0));
  PetscCallCXX(D.displs.assign(size + 1, 0));
  PetscCallMPI(MPI_Allgather(&nl, 1, MPI_INT, D.counts.data(), 1, MPI_INT, comm));
  for (PetscMPIInt p = 0; p < size; p++) D.displs[p + 1] = D.displs[p] + D.counts[p], total += D.counts[p];
  PetscCheck(total == n, comm, PETSC_ERR_PLIB, "The coarsest operator has %" PetscInt_FMT " rows over the ranks, not %" PetscInt_FMT, total, n);
  PetscCheck(n <= 46340, comm, PETSC_ERR_SUP, "The coarsest multigrid level has %" PetscInt_FMT " rows, too many for its dense direct solve (at most 46340; a few thousand are sensible): coarsen further (a smaller coarse size or more levels)", n);
  if (size > 1) {
    PetscCallCXX(rcounts.resize(size));
    PetscCallCXX(rdispls.resize(size));
    for (PetscMPIInt p = 0; p < size; p++) {
      PetscCall(PetscMPIIntCast((Int)D.counts[p] * n, &rcounts[p]));
      PetscCall(PetscMPIIntCast((Int)D.displs[p] * n, &rdispls[p]));
    }
    PetscCallCXX(full.resize((size_t)n * n));
    PetscMPIInt sc;
    PetscCall(PetscMPIIntCast(nlocal * n, &sc));
    PetscCallMPI(MPI_Allgatherv(rows.data(), sc, MPIU_SCALAR, full.data(), rcounts.data(), rdispls.data(), MPIU_SCALAR, comm));
  }
  const std::vector<Scalar> &G = size > 1 ? full : rows;
  /* row-major -> column-major */
  PetscCallCXX(E.resize((size_t)n * n));
  for (Int i = 0; i < n; i++)
    for (Int j = 0; j < n; j++) E[i + (size_t)j * n] = G[(size_t)i * n + j];
  PetscCall(DenseSpdSetUp(comm, n, E.data(), DenseSpdForm::Cholesky, rtol, D.S, "The coarsest multigrid operator"));
  D.n      = n;
  D.rstart = rstart;
  D.nlocal = nlocal;
  D.size   = size;
  D.rank   = rank;
  if (size > 1) {
    PetscCallCXX(D.bfull = View<Scalar>(std::string("mg coarse b"), n));
    PetscCallCXX(D.xfull = View<Scalar>(std::string("mg coarse x"), n));
    PetscCallCXX(D.hlocal = HostView<Scalar>(std::string("mg coarse local"), nlocal));
    PetscCallCXX(D.hfull = HostView<Scalar>(std::string("mg coarse full"), n));
  }
  D.ready = true;
  PetscCall(PetscLogEventEnd(PETSCKP_MGCoarseFactor, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* adds the entries of a host copy of a device CSR block to the dense rows; columns mapped by colmap (NULL: col + cshift) */
static PetscErrorCode CoarseDirectAddBlock(const CsrMatrix &B, Int n, Int cshift, const PetscInt *colmap, std::vector<Scalar> &rows)
{
  std::vector<Int>     rp(B.nrows + 1);
  std::vector<Ordinal> ci(B.nnz);
  std::vector<Scalar>  va(B.nnz);
  Int                  bad = -1;

  PetscFunctionBegin;
  if (B.nrows == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCXX(Kokkos::deep_copy(HostUView<Int>(rp.data(), rp.size()), Kokkos::subview(B.rowptr, Kokkos::make_pair((Int)0, B.nrows + 1))));
  PetscCallCXX(Kokkos::deep_copy(HostUView<Ordinal>(ci.data(), ci.size()), Kokkos::subview(B.colidx, Kokkos::make_pair((Int)0, B.nnz))));
  PetscCallCXX(Kokkos::deep_copy(HostUView<Scalar>(va.data(), va.size()), Kokkos::subview(B.vals, Kokkos::make_pair((Int)0, B.nnz))));
  for (Int i = 0; i < B.nrows; i++)
    for (Int k = rp[i]; k < rp[i + 1]; k++) {
      const Int j = colmap ? colmap[ci[k]] : (Int)ci[k] + cshift;
      if (j < 0 || j >= n) bad = i;
      else rows[(size_t)i * n + j] += va[k];
    }
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The coarsest operator has a column outside [0, %" PetscInt_FMT ") in local row %" PetscInt_FMT, n, bad);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGCoarseDirectSetUp(MPI_Comm comm, Int n, Int rstart, const CsrMatrix &Aglobal, Real rtol, MGCoarseDirect &D)
{
  std::vector<Scalar> rows;

  PetscFunctionBegin;
  PetscCall(MGCoarseDirectReset(D));
  PetscCheck(n <= 46340, comm, PETSC_ERR_SUP, "The coarsest multigrid level has %" PetscInt_FMT " rows, too many for its dense direct solve (at most 46340; a few thousand are sensible): coarsen further (a smaller coarse size or more levels)", n);
  PetscCallCXX(rows.assign((size_t)Aglobal.nrows * n, 0.0));
  PetscCall(CoarseDirectAddBlock(Aglobal, n, 0, nullptr, rows));
  PetscCall(CoarseDirectFactor(comm, n, rstart, Aglobal.nrows, rows, rtol, D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGCoarseDirectSetUp(MPI_Comm comm, PetscKPDeviceMat A, Real rtol, MGCoarseDirect &D)
{
  std::vector<Scalar> rows;
  const PetscInt     *garray = nullptr;
  Int                 n = A->M, nlocal = A->m, rstart = 0, cstart = 0;

  PetscFunctionBegin;
  PetscCall(MGCoarseDirectReset(D));
  PetscCheck(A->M == A->N, comm, PETSC_ERR_ARG_SIZ, "The coarsest multigrid operator must be square, not %" PetscInt_FMT " x %" PetscInt_FMT, A->M, A->N);
  PetscCheck(n <= 46340, comm, PETSC_ERR_SUP, "The coarsest multigrid level has %" PetscInt_FMT " rows, too many for its dense direct solve (at most 46340; a few thousand are sensible): coarsen further (a smaller coarse size or more levels)", n);
  if (A->mpi) rstart = A->rstart, cstart = A->cstart;
  PetscCallCXX(rows.assign((size_t)nlocal * n, 0.0));
  PetscCall(CoarseDirectAddBlock(A->csr[0], n, cstart, nullptr, rows));
  if (A->mpi && A->nghost > 0) {
    PetscCall(ISGetIndices(A->ghostis, &garray));
    PetscCall(CoarseDirectAddBlock(A->csr[1], n, 0, garray, rows));
    PetscCall(ISRestoreIndices(A->ghostis, &garray));
  }
  PetscCall(CoarseDirectFactor(comm, n, rstart, nlocal, rows, rtol, D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the host CSR structure of a device block (rows, columns) */
static void BlockToHost(const CsrMatrix &B, std::vector<Int> &rp, std::vector<Ordinal> &ci)
{
  rp.assign(B.nrows + 1, 0);
  ci.resize(B.nnz);
  if (B.nrows > 0) Kokkos::deep_copy(HostUView<Int>(rp.data(), rp.size()), Kokkos::subview(B.rowptr, Kokkos::make_pair((Int)0, B.nrows + 1)));
  if (B.nnz > 0) Kokkos::deep_copy(HostUView<Ordinal>(ci.data(), ci.size()), Kokkos::subview(B.colidx, Kokkos::make_pair((Int)0, B.nnz)));
}

/* the values of a device block on the host (at every gather of the replica: the structure is the setup's) */
static void BlockValuesToHost(const CsrMatrix &B, std::vector<Scalar> &va)
{
  va.resize(B.nnz);
  if (B.nnz > 0) Kokkos::deep_copy(HostUView<Scalar>(va.data(), va.size()), Kokkos::subview(B.vals, Kokkos::make_pair((Int)0, B.nnz)));
}

PetscErrorCode MGCoarseReplicaSetUp(MPI_Comm comm, PetscKPDeviceMat A, MGCoarseReplica &R)
{
  std::vector<Int>     rpd, rpo, lrp, rowlen, grp;
  std::vector<Ordinal> cid, cio;
  std::vector<Int>     lcol, gcol;
  const PetscInt      *garray = nullptr;
  PetscMPIInt          size, nl, nz;
  Int                  nlocal = A->m, cstart = A->mpi ? A->cstart : 0;

  PetscFunctionBegin;
  PetscCallCXX(R = MGCoarseReplica());
  PetscCheck(A->M == A->N, comm, PETSC_ERR_ARG_SIZ, "The coarsest multigrid operator must be square, not %" PetscInt_FMT " x %" PetscInt_FMT, A->M, A->N);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  R.n      = A->M;
  R.rstart = A->mpi ? A->rstart : 0;
  R.nlocal = nlocal;
  const CsrMatrix &D = A->csr[0], &O = A->csr[1];
  PetscCallCXX(BlockToHost(D, rpd, cid));
  if (A->mpi && A->nghost > 0) PetscCallCXX(BlockToHost(O, rpo, cio));
  else PetscCallCXX(rpo.assign(nlocal + 1, 0));
  if (A->mpi && A->nghost > 0) PetscCall(ISGetIndices(A->ghostis, &garray));
  /* this rank's rows with global columns: the local block's entries, then the ghost block's, each row sorted */
  PetscCallCXX(lrp.assign(nlocal + 1, 0));
  for (Int i = 0; i < nlocal; i++) lrp[i + 1] = lrp[i] + (rpd[i + 1] - rpd[i]) + (rpo[i + 1] - rpo[i]);
  R.nnzd = rpd[nlocal];
  PetscCallCXX(R.perm.assign(lrp[nlocal], 0));
  PetscCallCXX(lcol.assign(lrp[nlocal], 0));
  for (Int i = 0; i < nlocal; i++) {
    std::vector<std::pair<Int, Int>> row; /* (global column, source entry) */
    for (Int k = rpd[i]; k < rpd[i + 1]; k++) row.emplace_back((Int)cid[k] + cstart, k);
    for (Int k = rpo[i]; k < rpo[i + 1]; k++) row.emplace_back((Int)garray[cio[k]], R.nnzd + k);
    std::sort(row.begin(), row.end());
    for (size_t q = 0; q < row.size(); q++) {
      lcol[lrp[i] + q]       = row[q].first;
      R.perm[row[q].second] = lrp[i] + (Int)q;
    }
  }
  if (garray) PetscCall(ISRestoreIndices(A->ghostis, &garray));
  /* the ranks' row counts and entry counts */
  PetscCall(PetscMPIIntCast(nlocal, &nl));
  PetscCall(PetscMPIIntCast(lrp[nlocal], &nz));
  PetscCallCXX(R.counts.assign(size, 0));
  PetscCallCXX(R.displs.assign(size + 1, 0));
  PetscCallCXX(R.ncounts.assign(size, 0));
  PetscCallCXX(R.ndispls.assign(size + 1, 0));
  PetscCallMPI(MPI_Allgather(&nl, 1, MPI_INT, R.counts.data(), 1, MPI_INT, comm));
  PetscCallMPI(MPI_Allgather(&nz, 1, MPI_INT, R.ncounts.data(), 1, MPI_INT, comm));
  for (PetscMPIInt p = 0; p < size; p++) R.displs[p + 1] = R.displs[p] + R.counts[p], R.ndispls[p + 1] = R.ndispls[p] + R.ncounts[p];
  PetscCheck(R.displs[size] == R.n, comm, PETSC_ERR_PLIB, "The coarsest operator has %d rows over the ranks, not %" PetscInt_FMT, R.displs[size], R.n);
  /* the global structure: row lengths and columns */
  PetscCallCXX(rowlen.assign(nlocal, 0));
  for (Int i = 0; i < nlocal; i++) rowlen[i] = lrp[i + 1] - lrp[i];
  PetscCallCXX(grp.assign(R.n + 1, 0));
  PetscCallCXX(gcol.assign(R.ndispls[size], 0));
  PetscCallMPI(MPI_Allgatherv(rowlen.data(), nl, MPIU_INT, grp.data() + 1, R.counts.data(), R.displs.data(), MPIU_INT, comm));
  for (Int i = 0; i < R.n; i++) grp[i + 1] += grp[i];
  PetscCallMPI(MPI_Allgatherv(lcol.data(), nz, MPIU_INT, gcol.data(), R.ncounts.data(), R.ndispls.data(), MPIU_INT, comm));
  R.A.nrows = R.A.ncols = R.n;
  R.A.nnz               = grp[R.n];
  PetscCallCXX(R.A.rowptr = View<Int>(std::string("mg replica rowptr"), R.n + 1));
  PetscCallCXX(R.A.colidx = View<Ordinal>(std::string("mg replica colidx"), R.A.nnz));
  PetscCallCXX(R.A.vals = View<Scalar>(std::string("mg replica vals"), R.A.nnz));
  {
    std::vector<Ordinal> gc(gcol.begin(), gcol.end());
    PetscCallCXX(Kokkos::deep_copy(R.A.rowptr, HostUView<const Int>(grp.data(), grp.size())));
    if (R.A.nnz) PetscCallCXX(Kokkos::deep_copy(R.A.colidx, HostUView<const Ordinal>(gc.data(), gc.size())));
  }
  PetscCallCXX(R.hvfull = HostView<Scalar>(std::string("mg replica vals"), R.A.nnz));
  R.ready = true;
  PetscCall(MGCoarseReplicaRefresh(comm, A, R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGCoarseReplicaGatherAll(MPI_Comm comm, PetscKPDeviceMat A, MGCoarseReplica &R, PetscInt nv, const Vec v[], const View<Scalar> full[])
{
  std::vector<Scalar>      vd, vo, send, recv;
  std::vector<PetscMPIInt> counts, displs;
  std::vector<DeviceVec>   vv(nv);
  PetscMPIInt              size, ns;
  const Int                nz = A ? (Int)R.perm.size() : 0, nl = R.nlocal;

  PetscFunctionBegin;
  PetscCheck(R.ready, comm, PETSC_ERR_ARG_WRONGSTATE, "The replicated coarsest operator is not set up (MGCoarseReplicaSetUp())");
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallCXX(send.resize(nz + nv * nl));
  if (A) {
    PetscBool changed;
    PetscCallCXX(BlockValuesToHost(A->csr[0], vd));
    if (A->mpi && A->nghost > 0) PetscCallCXX(BlockValuesToHost(A->csr[1], vo));
    changed = (Int)(vd.size() + vo.size()) != nz || (Int)vd.size() != R.nnzd ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &changed, 1, MPIU_BOOL, MPI_LOR, comm)); /* every rank errors, none waits in the gather */
    PetscCheck(!changed, comm, PETSC_ERR_ARG_WRONGSTATE, "The coarsest operator has another number of entries than its replica on some rank: a new pattern needs MGCoarseReplicaSetUp()");
    for (size_t k = 0; k < vd.size(); k++) send[R.perm[k]] = vd[k];
    for (size_t k = 0; k < vo.size(); k++) send[R.perm[R.nnzd + k]] = vo[k];
  }
  /* this rank's entries of the vectors, copied from where they live, behind the values */
  for (PetscInt q = 0; q < nv; q++) {
    PetscCall(vv[q].Get(v[q], Access::Read));
    PetscCheck(vv[q].size() == nl && (Int)full[q].extent(0) >= R.n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The vector has %" PetscInt_FMT " local entries and the replica %" PetscInt_FMT " for an operator of %" PetscInt_FMT " local and %" PetscInt_FMT " global rows", vv[q].size(), (PetscInt)full[q].extent(0), nl, R.n);
    PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Scalar>(send.data() + nz + q * nl, nl), vv[q].cview()));
  }
  PetscCallCXX(exec().fence());
  for (PetscInt q = 0; q < nv; q++) PetscCall(vv[q].Restore());
  /* one gather: rank p sends its values, then its rows of each vector */
  PetscCallCXX(counts.assign(size, 0));
  PetscCallCXX(displs.assign(size + 1, 0));
  for (PetscMPIInt p = 0; p < size; p++) {
    PetscCall(PetscMPIIntCast((A ? (Int)R.ncounts[p] : 0) + nv * (Int)R.counts[p], &counts[p]));
    PetscCall(PetscMPIIntCast((Int)displs[p] + counts[p], &displs[p + 1]));
  }
  PetscCallCXX(recv.resize(displs[size]));
  PetscCall(PetscMPIIntCast((Int)send.size(), &ns));
  PetscCallMPI(MPI_Allgatherv(send.data(), ns, MPIU_SCALAR, recv.data(), counts.data(), displs.data(), MPIU_SCALAR, comm));
  /* the values in the replica's global order, the vectors whole */
  std::vector<Scalar> vec(nv * R.n);
  for (PetscMPIInt p = 0; p < size; p++) {
    const Scalar *in = recv.data() + displs[p];
    if (A) {
      for (PetscMPIInt k = 0; k < R.ncounts[p]; k++) R.hvfull(R.ndispls[p] + k) = in[k];
      in += R.ncounts[p];
    }
    for (PetscInt q = 0; q < nv; q++, in += R.counts[p]) std::copy(in, in + R.counts[p], vec.data() + q * R.n + R.displs[p]);
  }
  if (A) PetscCallCXX(Kokkos::deep_copy(exec(), R.A.vals, R.hvfull));
  for (PetscInt q = 0; q < nv; q++) PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(full[q], Kokkos::make_pair((Int)0, R.n)), HostUView<const Scalar>(vec.data() + q * R.n, R.n)));
  PetscCallCXX(exec().fence());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGCoarseReplicaRefresh(MPI_Comm comm, PetscKPDeviceMat A, MGCoarseReplica &R)
{
  PetscFunctionBegin;
  PetscCall(MGCoarseReplicaGatherAll(comm, A, R, 0, nullptr, nullptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGCoarseReplicaGather(MPI_Comm comm, MGCoarseReplica &R, Vec v, const View<Scalar> &full)
{
  PetscFunctionBegin;
  PetscCall(MGCoarseReplicaGatherAll(comm, nullptr, R, 1, &v, &full));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGCoarseReplicaScatter(MGCoarseReplica &R, const View<Scalar> &full, Vec v)
{
  DeviceVec vv;

  PetscFunctionBegin;
  PetscCall(vv.Get(v, Access::Write));
  PetscCheck(vv.size() == R.nlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The vector has %" PetscInt_FMT " local entries, the operator %" PetscInt_FMT " local rows", vv.size(), R.nlocal);
  PetscCallCXX(Kokkos::deep_copy(exec(), vv.view(), Kokkos::subview(full, Kokkos::make_pair(R.rstart, R.rstart + R.nlocal))));
  PetscCall(vv.Restore());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGCoarseReplicaGatherInt(MPI_Comm comm, const MGCoarseReplica &R, const std::vector<Int> &local, std::vector<Int> &full)
{
  PetscMPIInt nl;

  PetscFunctionBegin;
  PetscCheck((Int)local.size() == R.nlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%" PetscInt_FMT " local integers for %" PetscInt_FMT " local rows", (PetscInt)local.size(), R.nlocal);
  PetscCallCXX(full.assign(R.n, 0));
  PetscCall(PetscMPIIntCast(R.nlocal, &nl));
  PetscCallMPI(MPI_Allgatherv(local.data(), nl, MPIU_INT, full.data(), R.counts.data(), R.displs.data(), MPIU_INT, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGCoarseDirectSolve(MPI_Comm comm, MGCoarseDirect &D, Vec b, Vec x)
{
  DeviceVec bv, xv;

  PetscFunctionBegin;
  PetscCheck(D.ready, comm, PETSC_ERR_ARG_WRONGSTATE, "The coarsest-level direct solve is not set up (MGCoarseDirectSetUp())");
  PetscCall(PetscLogEventBegin(PETSCKP_MGCoarseSolve, 0, 0, 0, 0));
  PetscCall(bv.Get(b, Access::Read));
  PetscCall(xv.Get(x, Access::Write));
  PetscCheck(bv.size() == D.nlocal && xv.size() == D.nlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The vectors of the coarsest-level solve have %" PetscInt_FMT " and %" PetscInt_FMT " local entries, the operator %" PetscInt_FMT " local rows", bv.size(), xv.size(), D.nlocal);
  if (D.size == 1) PetscCallCXX(DenseSpdSolve(D.S, bv.cview(), xv.view()));
  else {
    /* gather the right-hand side on every rank (through the host), solve there, keep this rank's rows */
    PetscCallCXX(Kokkos::deep_copy(exec(), D.hlocal, bv.cview()));
    PetscCallCXX(exec().fence());
    PetscCallMPI(MPI_Allgatherv(D.hlocal.data(), D.counts[D.rank], MPIU_SCALAR, D.hfull.data(), D.counts.data(), D.displs.data(), MPIU_SCALAR, comm));
    PetscCallCXX(Kokkos::deep_copy(exec(), D.bfull, D.hfull));
    PetscCallCXX(DenseSpdSolve(D.S, ucv(D.bfull), uv(D.xfull)));
    PetscCallCXX(Kokkos::deep_copy(exec(), xv.view(), Kokkos::subview(D.xfull, Kokkos::make_pair(D.rstart, D.rstart + D.nlocal))));
  }
  PetscCall(xv.Restore());
  PetscCall(bv.Restore());
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)D.n * D.n));
  PetscCall(PetscLogEventEnd(PETSCKP_MGCoarseSolve, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGCoarseDirectReset(MGCoarseDirect &D)
{
  PetscFunctionBegin;
  PetscCallCXX(D = MGCoarseDirect());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* hierarchy */

/* A itself (referenced) when it has type `type`, else a copy converted to that type */
static PetscErrorCode MatConvertOrReference(Mat A, MatType type, Mat *B)
{
  PetscBool same;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, type, &same));
  if (same) {
    PetscCall(PetscObjectReference((PetscObject)A));
    *B = A;
  } else PetscCall(MatConvertCopy(A, type, B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A itself (referenced) when it is a host AIJ matrix (seqaij, mpiaij), else a host AIJ copy (e.g. of aijcusparse) */
static PetscErrorCode MatGetHostAIJ(Mat A, Mat *Ah)
{
  PetscBool host;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &host, MATSEQAIJ, MATMPIAIJ, ""));
  if (host) {
    PetscCall(PetscObjectReference((PetscObject)A));
    *Ah = A;
  } else PetscCall(MatHostAIJCopy(A, Ah));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchyReset(MGHierarchy &H)
{
  PetscFunctionBegin;
  for (MGLevel &L : H.levels) {
    PetscCall(PetscKPDeviceMatDestroy(&L.Ad));
    PetscCall(PetscKPDeviceMatDestroy(&L.Pd));
    PetscCall(PetscKPDeviceMatDestroy(&L.Rd));
    PetscCall(MatDestroy(&L.A));
    PetscCall(MatDestroy(&L.Ah));
    PetscCall(MatDestroy(&L.P));
    PetscCall(MatDestroy(&L.Ph));
    PetscCall(MatDestroy(&L.R));
    PetscCall(MatDestroy(&L.Ph0));
    PetscCall(MGRapDistReset(L.dist));
    PetscCall(VecDestroy(&L.x));
    PetscCall(VecDestroy(&L.b));
    PetscCall(VecDestroy(&L.r));
    PetscCall(VecDestroy(&L.w));
    for (Vec &v : L.kv) PetscCall(VecDestroy(&v));
  }
  PetscCallCXX(H.levels.clear());
  PetscCall(MGCoarseDirectReset(H.coarse));
  if (H.replicated) {
    PetscCall(MGHierarchyReset(H.replicated->T));
    PetscCall(VecDestroy(&H.replicated->b));
    PetscCall(VecDestroy(&H.replicated->x));
    PetscCallCXX(H.replicated.reset());
  }
  H.device                  = false;
  H.truncated_refresh_rows  = 0;
  H.truncated_refresh_level = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchyCreate(MPI_Comm comm, Mat A, bool device, MGHierarchy &H)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(MGHierarchyReset(H));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  H.comm   = comm;
  H.device = device;
  PetscCallCXX(H.levels.emplace_back());
  MGLevel &L = H.levels[0];
  PetscCall(PetscObjectReference((PetscObject)A));
  L.A = A;
  PetscCall(PetscKPDeviceMatCreate(A, PETSCKP_FORMAT_CSR, &L.Ad));
  if (!device) PetscCall(MatGetHostAIJ(A, &L.Ah)); /* for the host Galerkin products */
  PetscCall(MatGetLocalSize(A, &L.nlocal, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchyAddLevelDevice(MGHierarchy &H, const CsrMatrix &P)
{
  MGLevel     C;
  CsrMatrix   R, Ac;
  bool        ok;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCheck(!H.levels.empty() && H.device && H.levels.back().Ad, H.comm, PETSC_ERR_ARG_WRONGSTATE, "The device setup needs a hierarchy made with MGHierarchyCreate(..., device = true)");
  PetscCallMPI(MPI_Comm_size(H.comm, &size));
  PetscCheck(size == 1, H.comm, PETSC_ERR_SUP, "Under MPI the device setup needs the local and ghost blocks of the interpolation (MGHierarchyAddLevelDevice() with Pd, Po and the ghost columns)");
  MGLevel &F = H.levels.back();
  PetscCall(PetscLogEventBegin(PETSCKP_MGGalerkin, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(PETSCKP_MGGalerkinTranspose, 0, 0, 0, 0));
  PetscCallCXX(CsrTranspose(P, R));
  PetscCallCXX(exec().fence());
  PetscCall(PetscLogEventEnd(PETSCKP_MGGalerkinTranspose, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(PETSCKP_MGGalerkinLocal, 0, 0, 0, 0));
  PetscCallCXX(ok = GalerkinRapSymbolic(R, DeviceMatLocalCsr(F.Ad), P, F.rap, Ac));
  PetscCallCXX(exec().fence());
  PetscCall(PetscLogEventEnd(PETSCKP_MGGalerkinLocal, 0, 0, 0, 0));
  PetscCheck(ok, H.comm, PETSC_ERR_PLIB, "The sizes of R, A and P do not chain in the device Galerkin product (A %" PetscInt_FMT " x %" PetscInt_FMT ", P %" PetscInt_FMT " x %" PetscInt_FMT ")", DeviceMatLocalCsr(F.Ad).nrows, DeviceMatLocalCsr(F.Ad).ncols, P.nrows, P.ncols);
  PetscCall(DeviceMatCreateFromCsr(P, &F.Pd));
  PetscCall(DeviceMatCreateFromCsr(R, &F.Rd));
  PetscCall(DeviceMatCreateFromCsr(Ac, &C.Ad));
  PetscCall(PetscLogEventEnd(PETSCKP_MGGalerkin, 0, 0, 0, 0));
  C.nlocal = Ac.nrows;
  PetscCallCXX(H.levels.push_back(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchyAddLevelDevice(MGHierarchy &H, const CsrMatrix &Pd, const CsrMatrix &Po, const std::vector<PetscInt> &gP)
{
  MGLevel     C;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(H.comm, &size));
  if (size == 1) {
    PetscCheck(gP.empty() && Po.nnz == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "On one process the interpolation has no ghost columns (%" PetscInt_FMT " given)", (PetscInt)gP.size());
    PetscCall(MGHierarchyAddLevelDevice(H, Pd));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(!H.levels.empty() && H.device && H.levels.back().Ad, H.comm, PETSC_ERR_ARG_WRONGSTATE, "The device setup needs a hierarchy made with MGHierarchyCreate(..., device = true)");
  MGLevel &F = H.levels.back();
  PetscCheck(Pd.nrows == F.Ad->m && Po.nrows == Pd.nrows && Po.ncols == (Int)gP.size(), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The blocks of the interpolation (%" PetscInt_FMT " and %" PetscInt_FMT " rows, %" PetscInt_FMT " ghost columns for %" PetscInt_FMT " ghost indices) do not fit the %" PetscInt_FMT " local rows of the operator", Pd.nrows, Po.nrows, Po.ncols, (PetscInt)gP.size(), F.Ad->m);
  PetscCall(PetscLogEventBegin(PETSCKP_MGGalerkin, 0, 0, 0, 0));
  PetscCall(DeviceMatCreateFromCsr(H.comm, Pd, Po, (PetscInt)gP.size(), gP.data(), &F.Pd));
  PetscCall(MGRapDistSetUp(H.comm, F.Ad, F.Pd, F.dist, &F.Rd)); /* R = P^T from the product's transpose */
  PetscCall(DeviceMatCreateFromCsr(H.comm, F.dist.merge.D, F.dist.merge.O, (PetscInt)F.dist.merge.garray.size(), F.dist.merge.garray.data(), &C.Ad));
  PetscCallCXX(exec().fence());
  PetscCall(PetscLogEventEnd(PETSCKP_MGGalerkin, 0, 0, 0, 0));
  C.nlocal = F.dist.merge.D.nrows;
  PetscCallCXX(H.levels.push_back(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchyAddLevelAggregation(MGHierarchy &H, const Aggregation &agg)
{
  MGLevel     C;
  CsrMatrix   Ac;
  bool        ok;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCheck(!H.levels.empty() && H.device && H.levels.back().Ad, H.comm, PETSC_ERR_ARG_WRONGSTATE, "The device setup needs a hierarchy made with MGHierarchyCreate(..., device = true)");
  PetscCallMPI(MPI_Comm_size(H.comm, &size));
  MGLevel &F = H.levels.back();
  {
    /* the local block: the same check on every rank before the collective part */
    PetscBool bad = agg.n != DeviceMatLocalCsr(F.Ad).nrows || agg.n != DeviceMatLocalCsr(F.Ad).ncols ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_BOOL, MPI_LOR, H.comm));
    PetscCheck(!bad, H.comm, PETSC_ERR_ARG_SIZ, "The aggregation of some process does not have the local rows of its operator (this rank: %" PetscInt_FMT " fine rows, the operator %" PetscInt_FMT " x %" PetscInt_FMT ")", agg.n, DeviceMatLocalCsr(F.Ad).nrows, DeviceMatLocalCsr(F.Ad).ncols);
  }
  PetscCall(PetscLogEventBegin(PETSCKP_MGGalerkin, 0, 0, 0, 0));
  PetscCallCXX(ok = GalerkinAggregate(DeviceMatLocalCsr(F.Ad), agg, agg, Ac, F.gmap));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The aggregation product of the local block failed (sizes)");
  if (size == 1 || !F.Ad->mpi) PetscCall(DeviceMatCreateFromCsr(Ac, &C.Ad));
  else {
    /* the ghost block: A's ghost columns to the aggregates of their owners; no coarse row is sent anywhere */
    Aggregation           Pg;
    std::vector<PetscInt> garray;
    CsrMatrix             Ao = DeviceMatGhostCsr(F.Ad), Aco;
    PetscCall(MGGhostAggregation(H.comm, F.Ad, agg, Pg, garray));
    PetscCallCXX(ok = GalerkinAggregate(Ao, agg, Pg, Aco, F.gmapo));
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The aggregation product of the ghost block failed (A's ghost block %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " ghost columns)", Ao.nrows, Ao.ncols, Pg.n);
    PetscCall(DeviceMatCreateFromCsr(H.comm, Ac, Aco, (PetscInt)garray.size(), garray.data(), &C.Ad));
  }
  F.agg        = agg;
  F.aggregated = true;
  PetscCall(PetscLogEventEnd(PETSCKP_MGGalerkin, 0, 0, 0, 0));
  C.nlocal = Ac.nrows;
  PetscCallCXX(H.levels.push_back(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchyAddLevelHost(MGHierarchy &H, Mat Ph)
{
  MGLevel C;
  MatType type;
  Mat     Ach = nullptr;

  PetscFunctionBegin;
  PetscCheck(!H.levels.empty() && !H.device && H.levels.back().A, H.comm, PETSC_ERR_ARG_WRONGSTATE, "The host setup needs a hierarchy made with MGHierarchyCreate(..., device = false) whose coarsest level has a PETSc operator");
  MGLevel &F = H.levels.back();
  PetscCall(PetscLogEventBegin(PETSCKP_MGGalerkin, 0, 0, 0, 0));
  if (!F.Ah) PetscCall(MatGetHostAIJ(F.A, &F.Ah));
  PetscCall(MatGetType(F.A, &type));
  PetscCall(MatConvertOrReference(Ph, type, &F.P));
  F.Ph = Ph;
  PetscCall(MatPtAP(F.Ah, Ph, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Ach));
  PetscCall(MatTranspose(F.P, MAT_INITIAL_MATRIX, &F.R));
  C.Ah = Ach;
  PetscCall(MatConvertOrReference(Ach, type, &C.A));
  PetscCall(MatGetLocalSize(C.A, &C.nlocal, NULL));
  PetscCall(PetscLogEventEnd(PETSCKP_MGGalerkin, 0, 0, 0, 0));
  PetscCallCXX(H.levels.push_back(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchyAddLevel(MGHierarchy &H, PetscInt nlocal)
{
  MGLevel C;

  PetscFunctionBegin;
  PetscCheck(!H.levels.empty(), H.comm, PETSC_ERR_ARG_WRONGSTATE, "The hierarchy has no finest level (MGHierarchyCreate())");
  PetscCheck(nlocal >= 0, H.comm, PETSC_ERR_ARG_OUTOFRANGE, "A level needs nlocal >= 0 rows, not %" PetscInt_FMT, nlocal);
  C.nlocal = nlocal;
  PetscCallCXX(H.levels.push_back(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchySetUpVecs(MGHierarchy &H)
{
  VecType vtype = nullptr;

  PetscFunctionBegin;
  PetscCallCXX(exec().fence());
  for (size_t l = 0; l < H.levels.size(); l++) {
    MGLevel &L = H.levels[l];
    if (!H.device) {
      if (L.A && !L.Ad) PetscCall(PetscKPDeviceMatCreate(L.A, PETSCKP_FORMAT_CSR, &L.Ad));
      if (L.P && !L.Pd) PetscCall(PetscKPDeviceMatCreate(L.P, PETSCKP_FORMAT_CSR, &L.Pd));
      if (L.R && !L.Rd) PetscCall(PetscKPDeviceMatCreate(L.R, PETSCKP_FORMAT_CSR, &L.Rd));
    }
    if (!L.r) {
      if (L.A) PetscCall(MatCreateVecs(L.A, &L.r, &L.w));
      else {
        PetscCheck(vtype, H.comm, PETSC_ERR_ARG_WRONGSTATE, "The finest level of the hierarchy needs a PETSc operator");
        PetscCall(VecCreate(H.comm, &L.r));
        PetscCall(VecSetSizes(L.r, L.nlocal, PETSC_DECIDE));
        PetscCall(VecSetType(L.r, vtype));
        PetscCall(VecDuplicate(L.r, &L.w));
      }
    }
    if (l == 0) PetscCall(VecGetType(L.r, &vtype));
    if (l > 0 && !L.x) {
      PetscCall(VecDuplicate(L.r, &L.x));
      PetscCall(VecDuplicate(L.r, &L.b));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchyReplicateCoarsest(MGHierarchy &H)
{
  PetscMPIInt size;
  char        seqtype[64];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(H.comm, &size));
  PetscCheck(size > 1, H.comm, PETSC_ERR_ARG_WRONGSTATE, "Replicated coarse levels are for a hierarchy distributed over several processes");
  PetscCheck(!H.levels.empty() && H.levels.back().Ad && H.levels.back().r, H.comm, PETSC_ERR_ARG_WRONGSTATE, "The coarsest level needs a device operator and its vectors (MGHierarchySetUpVecs()) to be replicated");
  PetscCheck(!H.replicated, H.comm, PETSC_ERR_ARG_WRONGSTATE, "The hierarchy already has replicated levels");
  MGLevel &L = H.levels.back();
  PetscCallCXX(H.replicated = std::make_shared<MGReplicatedLevels>());
  MGReplicatedLevels &Rp = *H.replicated;
  PetscCall(MGCoarseReplicaSetUp(H.comm, L.Ad, Rp.R));
  PetscCallCXX(Rp.bfull = View<Scalar>("mg replicated b", Rp.R.n));
  PetscCallCXX(Rp.xfull = View<Scalar>("mg replicated x", Rp.R.n));
  /* T: level 0 over the replica's views (its values refreshed in place by MGCoarseReplicaRefresh) */
  MGHierarchy &T = Rp.T;
  T.comm         = PETSC_COMM_SELF;
  T.device       = true;
  T.coarse_rtol  = H.coarse_rtol;
  PetscCallCXX(T.levels.emplace_back());
  MGLevel &T0 = T.levels[0];
  T0.nlocal   = Rp.R.n;
  PetscCall(DeviceMatCreateFromCsr(Rp.R.A, &T0.Ad));
  PetscCall(VecGetSeqTypeLike(L.r, seqtype, sizeof(seqtype)));
  PetscCall(VecCreate(PETSC_COMM_SELF, &T0.r));
  PetscCall(VecSetSizes(T0.r, Rp.R.n, Rp.R.n));
  PetscCall(VecSetType(T0.r, seqtype));
  PetscCall(VecDuplicate(T0.r, &T0.w));
  PetscCall(VecDuplicate(T0.r, &Rp.b));
  PetscCall(VecDuplicate(T0.r, &Rp.x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchyRefreshReplicated(MGHierarchy &H)
{
  PetscFunctionBegin;
  if (!H.replicated) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MGCoarseReplicaRefresh(H.comm, H.levels.back().Ad, H.replicated->R)); /* into the views of T's level 0 */
  PetscCall(MGHierarchyRefreshCoarse(H.replicated->T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchySetUpCoarseDirect(MGHierarchy &H)
{
  PetscFunctionBegin;
  PetscCheck(!H.levels.empty() && H.levels.back().Ad, H.comm, PETSC_ERR_ARG_WRONGSTATE, "The direct solve needs the coarsest operator as a device matrix of the hierarchy (else use MGCoarseDirectSetUp() with a CSR matrix)");
  PetscCall(MGCoarseDirectSetUp(H.comm, H.levels.back().Ad, H.coarse_rtol, H.coarse));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchyRefreshFine(MGHierarchy &H)
{
  PetscFunctionBegin;
  PetscCheck(!H.levels.empty(), H.comm, PETSC_ERR_ARG_WRONGSTATE, "The hierarchy has no levels");
  MGLevel &L = H.levels[0];
  if (L.Ah && L.Ah != L.A) PetscCall(MatCopy(L.A, L.Ah, SAME_NONZERO_PATTERN));
  if (L.Ad) PetscCall(PetscKPDeviceMatUpdateValues(L.Ad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the numeric Galerkin products of the levels below level l0 */
static PetscErrorCode RefreshCoarseFrom(MGHierarchy &H, size_t l0)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PETSCKP_MGGalerkin, 0, 0, 0, 0));
  for (size_t l = l0; l + 1 < H.levels.size(); l++) {
    MGLevel &F = H.levels[l], &C = H.levels[l + 1];
    if (!C.Ad) continue; /* a level the PC stores: its PC refreshes it */
    if (H.device && F.dist.active) PetscCall(MGRapDistNumeric(F.Ad, F.Pd, F.dist)); /* writes into the blocks of C.Ad */
    else if (H.device) {
      CsrMatrix Ac = DeviceMatLocalCsr(C.Ad); /* shares the views of the coarse device matrix */
      if (F.aggregated) {
        PetscCallCXX(GalerkinAggregateNumeric(ucv(DeviceMatLocalCsr(F.Ad).vals), F.gmap, Ac));
        if (C.Ad->mpi && F.Ad->mpi) {
          CsrMatrix Aco = DeviceMatGhostCsr(C.Ad);
          PetscCallCXX(GalerkinAggregateNumeric(ucv(DeviceMatGhostCsr(F.Ad).vals), F.gmapo, Aco));
        }
      }
      else PetscCallCXX(GalerkinRapNumeric(DeviceMatLocalCsr(F.Rd), DeviceMatLocalCsr(F.Ad), DeviceMatLocalCsr(F.Pd), F.rap, Ac));
    } else {
      PetscCall(MatPtAP(F.Ah, F.Ph, MAT_REUSE_MATRIX, PETSC_DEFAULT, &C.Ah));
      if (C.A != C.Ah) PetscCall(MatCopy(C.Ah, C.A, SAME_NONZERO_PATTERN));
      PetscCall(PetscKPDeviceMatUpdateValues(C.Ad));
    }
  }
  PetscCallCXX(exec().fence());
  PetscCall(PetscLogEventEnd(PETSCKP_MGGalerkin, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchyRefreshCoarse(MGHierarchy &H)
{
  PetscFunctionBegin;
  PetscCall(RefreshCoarseFrom(H, 0));
  if (H.coarse.ready) PetscCall(MGHierarchySetUpCoarseDirect(H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* values of a device matrix's blocks kept aside (copies) */
static void KeepValues(PetscKPDeviceMat A, View<Scalar> vals0[2])
{
  for (int b = 0; b < 2; b++) {
    const CsrMatrix &M = b ? DeviceMatGhostCsr(A) : DeviceMatLocalCsr(A);
    vals0[b]           = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("mg transfer values")), M.nnz);
    if (M.nnz) Kokkos::deep_copy(exec(), vals0[b], Kokkos::subview(M.vals, Kokkos::make_pair((Int)0, M.nnz)));
  }
}

/* The Galerkin products below level l after the truncation mask of level l changed at the points flagged in
   levels[l].tflag (device setup, one process), with no host synchronisation: on level l the rows of A_l P_l^t with a
   changed point among their columns (or their own) are recomputed, and the rows of R_l^t (A_l P_l^t) with a changed
   row of A_l P_l^t among their columns (which holds the rows of R_l^t that changed, those with a changed column);
   on every level m below, the rows of A_m P_m of the changed rows of A_m (flagged by the level above), then the rows
   of R_m (A_m P_m) they reach, which are the changed rows of A_{m+1}. The flags of each product are found in the
   kernel that recomputes it (SpgemmNumericChanged): two kernels per level, in the same order of summation as a full
   refresh. A level below made by aggregation (or stored by the PC) ends the incremental refresh: the full numeric
   products from there on. The number of coarse rows recomputed is read on request only (MGHierarchyTruncatedRefreshRows). */
static PetscErrorCode RefreshCoarseTruncated(MGHierarchy &H, size_t l)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PETSCKP_MGGalerkin, 0, 0, 0, 0));
  H.truncated_refresh_level = (PetscInt)l;
  H.truncated_refresh_full  = 0;
  for (size_t m = l; m + 1 < H.levels.size(); m++) {
    MGLevel &F = H.levels[m], &C = H.levels[m + 1];
    if (F.aggregated || !F.Pd || !F.Rd || !C.Ad) {
      /* no interpolation transfers here: the full numeric products from this level on */
      PetscCall(PetscLogEventEnd(PETSCKP_MGGalerkin, 0, 0, 0, 0));
      PetscCall(RefreshCoarseFrom(H, m));
      for (size_t q = m + 1; q < H.levels.size(); q++) H.truncated_refresh_full += H.levels[q].nlocal;
      H.truncated_refresh_last = (PetscInt)m; /* the flags of the levels up to m are those of this refresh */
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    const CsrMatrix A = DeviceMatLocalCsr(F.Ad), P = DeviceMatLocalCsr(F.Pd), R = DeviceMatLocalCsr(F.Rd);
    CsrMatrix       Ac = DeviceMatLocalCsr(C.Ad);
    View<Int>       apflag = F.tflag;

    if (C.tflag.extent(0) != (size_t)Ac.nrows) PetscCallCXX(C.tflag = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("mg truncation flags")), Ac.nrows));
    if (m == l) {
      /* the rows of A P^t next to a changed point of the mask (P^t changed in those rows) */
      if (F.rflag.extent(0) != (size_t)A.nrows) PetscCallCXX(F.rflag = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("mg refresh flags")), A.nrows));
      apflag = F.rflag;
      PetscCallCXX(SpgemmNumericChanged(A, P, F.rap.AP, UView<const Int>(), ucv(F.tflag), true, apflag));
    } else PetscCallCXX(SpgemmNumericChanged(A, P, F.rap.AP, ucv(F.tflag), UView<const Int>(), false, UView<Int>())); /* the changed rows of A_m */
    PetscCallCXX(SpgemmNumericChanged(R, F.rap.AP, Ac, UView<const Int>(), ucv(apflag), false, C.tflag));
  }
  H.truncated_refresh_last = (PetscInt)H.levels.size() - 1;
  PetscCall(PetscLogEventEnd(PETSCKP_MGGalerkin, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchyTruncatedRefreshRows(MGHierarchy &H, PetscInt *rows)
{
  PetscFunctionBegin;
  if (H.truncated_refresh_level >= 0) {
    PetscInt total = H.truncated_refresh_full;
    for (PetscInt m = H.truncated_refresh_level + 1; m <= H.truncated_refresh_last && m < (PetscInt)H.levels.size(); m++) PetscCallCXX(total += FlagCount(ucv(H.levels[m].tflag)));
    H.truncated_refresh_rows  = total;
    H.truncated_refresh_level = -1;
  }
  *rows = H.truncated_refresh_rows;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchyTruncate(MGHierarchy &H, PetscInt l, Vec keep)
{
  DeviceVec kv, gv;
  Vec       g = nullptr;
  Int       nchanged;

  PetscFunctionBegin;
  PetscCheck(l >= 0 && l + 1 < (PetscInt)H.levels.size(), H.comm, PETSC_ERR_ARG_OUTOFRANGE, "Level %" PetscInt_FMT " has no transfers to truncate (the hierarchy has %" PetscInt_FMT " levels)", l, (PetscInt)H.levels.size());
  MGLevel &F = H.levels[l];
  PetscCheck(F.Pd && F.Rd && !F.aggregated, H.comm, PETSC_ERR_SUP, "Level %" PetscInt_FMT ": only interpolation transfers (device CSR P and R) can be truncated", l);
  if (!keep && !F.truncated) PetscFunctionReturn(PETSC_SUCCESS);
  H.truncated_refresh_rows  = 0;
  H.truncated_refresh_level = -1;
  if (!F.keep.extent(0) && F.nlocal) {
    /* once: the setup's values of the transfers, and the mask they stand for */
    PetscCallCXX(KeepValues(F.Pd, F.pvals0));
    PetscCallCXX(KeepValues(F.Rd, F.rvals0));
    PetscCallCXX(F.keep = View<Scalar>(std::string("mg truncation mask"), F.nlocal));
    PetscCallCXX(Kokkos::deep_copy(exec(), F.keep, 1.0));
    PetscCallCXX(F.tflag = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("mg truncation flags")), F.nlocal));
  }
  if (!H.device && !F.Ph0) PetscCall(MatDuplicate(F.Ph, MAT_COPY_VALUES, &F.Ph0)); /* collective */
  /* P^t = D P (rows), R^t = R D (columns; the ghost columns of R with the ghost values of keep); keep NULL: D = I */
  if (keep) {
    if (!(H.device && !F.dist.active)) {
      PetscCall(DeviceMatGhostUpdate(F.Rd, keep, &g));
      if (g) PetscCall(gv.Get(g, Access::Read));
    }
    PetscCall(kv.Get(keep, Access::Read));
    PetscCheck(kv.size() == F.nlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The truncation mask has %" PetscInt_FMT " local entries, level %" PetscInt_FMT " %" PetscInt_FMT " rows", kv.size(), l, (PetscInt)F.nlocal);
  }
  if (H.device && !F.dist.active) {
    /* one process, device setup: no host synchronisation. The points whose mask changed (flags; the mask taken over),
       the rows of P and R^T of those points rewritten from the setup's values, then the coarse rows that change */
    PetscCallCXX(MaskUpdate(F.keep, kv.cview(), F.tflag));
    PetscCall(kv.Restore());
    PetscCallCXX(CsrScaleValues(DeviceMatLocalCsr(F.Pd), ucv(F.pvals0[0]), ucv(F.keep), UView<const Scalar>(), ucv(F.tflag), UView<const Int>()));
    PetscCallCXX(CsrScaleValues(DeviceMatLocalCsr(F.Rd), ucv(F.rvals0[0]), UView<const Scalar>(), ucv(F.keep), UView<const Int>(), ucv(F.tflag)));
    PetscCall(RefreshCoarseTruncated(H, (size_t)l));
    F.truncated = keep ? true : false;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the points whose mask differs from the one in use (none: nothing to do) */
  PetscCallCXX(nchanged = MaskChanges(ucv(F.keep), kv.cview(), F.tflag));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nchanged, 1, MPIU_INT, MPI_SUM, H.comm));
  if (nchanged && F.keep.extent(0)) {
    if (keep) PetscCallCXX(Kokkos::deep_copy(exec(), F.keep, kv.cview()));
    else PetscCallCXX(Kokkos::deep_copy(exec(), F.keep, 1.0));
  }
  if (nchanged) {
    PetscCallCXX(CsrScaleValues(DeviceMatLocalCsr(F.Pd), ucv(F.pvals0[0]), kv.cview(), UView<const Scalar>()));
    PetscCallCXX(CsrScaleValues(DeviceMatGhostCsr(F.Pd), ucv(F.pvals0[1]), kv.cview(), UView<const Scalar>()));
    PetscCallCXX(CsrScaleValues(DeviceMatLocalCsr(F.Rd), ucv(F.rvals0[0]), UView<const Scalar>(), kv.cview()));
    PetscCallCXX(CsrScaleValues(DeviceMatGhostCsr(F.Rd), ucv(F.rvals0[1]), UView<const Scalar>(), gv.cview()));
  }
  PetscCall(kv.Restore());
  PetscCall(gv.Restore());
  /* the coarse operators were those of the last mask: every coarse operator below level l is recomputed (under MPI:
     numeric products, ghost rows exchanged; on the host: MatPtAP with the truncated P) */
  if (nchanged && H.device) {
    PetscCall(RefreshCoarseFrom(H, (size_t)l));
    for (size_t m = l + 1; m < H.levels.size(); m++) H.truncated_refresh_rows += H.levels[m].nlocal;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &H.truncated_refresh_rows, 1, MPIU_INT, MPI_SUM, H.comm));
  } else if (nchanged) {
    PetscCall(MatCopy(F.Ph0, F.Ph, SAME_NONZERO_PATTERN));
    if (keep) PetscCall(MatDiagonalScale(F.Ph, keep, NULL));
    PetscCall(RefreshCoarseFrom(H, (size_t)l));
    for (size_t m = l + 1; m < H.levels.size(); m++) H.truncated_refresh_rows += H.levels[m].nlocal;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &H.truncated_refresh_rows, 1, MPIU_INT, MPI_SUM, H.comm));
  }
  F.truncated = keep ? true : false; /* keep NULL: the setup's transfers again (and keep all ones) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchyUntruncate(MGHierarchy &H, bool refresh)
{
  PetscFunctionBegin;
  for (size_t l = 0; l < H.levels.size(); l++) {
    MGLevel &F = H.levels[l];
    if (!F.truncated) continue;
    if (refresh) PetscCall(MGHierarchyTruncate(H, (PetscInt)l, nullptr)); /* the products that change, from the transfers of the setup */
    else {
      for (int b = 0; b < 2; b++) {
        const CsrMatrix &P = b ? DeviceMatGhostCsr(F.Pd) : DeviceMatLocalCsr(F.Pd);
        const CsrMatrix &R = b ? DeviceMatGhostCsr(F.Rd) : DeviceMatLocalCsr(F.Rd);
        if (P.nnz) PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(P.vals, Kokkos::make_pair((Int)0, P.nnz)), F.pvals0[b]));
        if (R.nnz) PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(R.vals, Kokkos::make_pair((Int)0, R.nnz)), F.rvals0[b]));
      }
      if (F.keep.extent(0)) PetscCallCXX(Kokkos::deep_copy(exec(), F.keep, 1.0));
      if (F.Ph0) PetscCall(MatCopy(F.Ph0, F.Ph, SAME_NONZERO_PATTERN));
      F.truncated = false;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the transfers of level l are truncated */
bool MGHierarchyTruncated(const MGHierarchy &H, PetscInt l)
{
  return l >= 0 && l < (PetscInt)H.levels.size() && H.levels[l].truncated;
}

PetscErrorCode MGHierarchyCheckOperator(MGHierarchy &H, const char name[], const char need[])
{
  OperatorInfo info;
  PetscInt     rstart, loc[2], glob[2];

  PetscFunctionBegin;
  PetscCheck(!H.levels.empty() && H.levels[0].Ad && H.levels[0].A, H.comm, PETSC_ERR_ARG_WRONGSTATE, "The hierarchy has no finest operator (MGHierarchyCreate())");
  MGLevel &L = H.levels[0];
  PetscCallCXX(info = CsrCheckOperator(DeviceMatLocalCsr(L.Ad), DeviceMatGhostCsr(L.Ad)));
  PetscCall(MatGetOwnershipRange(L.A, &rstart, NULL));
  loc[0] = info.nonfinite_row >= 0 ? rstart + info.nonfinite_row : PETSC_MAX_INT;
  loc[1] = info.bad_diag_row >= 0 ? rstart + info.bad_diag_row : PETSC_MAX_INT;
  PetscCall(MPIU_Allreduce(loc, glob, 2, MPIU_INT, MPI_MIN, H.comm));
  PetscCheck(glob[0] == PETSC_MAX_INT, H.comm, PETSC_ERR_FP, "%s: the operator has a NaN or Inf entry in row %" PetscInt_FMT, name, glob[0]);
  if (glob[1] != PETSC_MAX_INT) {
    PetscReal dv = loc[1] == glob[1] ? (PetscReal)info.diag_value : 0, dvg;
    PetscCall(MPIU_Allreduce(&dv, &dvg, 1, MPIU_REAL, MPIU_SUM, H.comm));
    SETERRQ(H.comm, PETSC_ERR_ARG_WRONG, "%s, but row %" PetscInt_FMT " of the operator has diagonal %g%s; fix the matrix or choose another preconditioner", need, glob[1], (double)dvg, dvg == 0 ? " (zero or missing)" : "");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchyGetKCycleBreakdowns(MGHierarchy &H, PetscInt *n)
{
  PetscInt cnt = 0;

  PetscFunctionBegin;
  for (int h = 0; h < (H.replicated ? 2 : 1); h++) /* the replicated levels count once: every process has them */
    for (MGLevel &L : h ? H.replicated->T.levels : H.levels) {
      Int c = 0;
      if (!L.ks.breakdowns.data()) continue;
      PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Int>(&c, 1), L.ks.breakdowns));
      PetscCallCXX(exec().fence());
      cnt += c;
    }
  /* every rank with rows on a level counts the same (global) breakdowns; a rank without rows counts none */
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &cnt, 1, MPIU_INT, MPI_MAX, H.comm));
  *n = cnt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGHierarchyLevelInfo(MGHierarchy &H, PetscInt l, PetscInt *rows, PetscInt *nnz)
{
  PetscInt v[2] = {0, 0};

  PetscFunctionBegin;
  PetscCheck(l >= 0 && l < (PetscInt)H.levels.size(), H.comm, PETSC_ERR_ARG_OUTOFRANGE, "Level %" PetscInt_FMT " is not in [0, %" PetscInt_FMT ")", l, (PetscInt)H.levels.size());
  MGLevel &L = H.levels[l];
  v[0]       = L.nlocal;
  if (L.Ad) PetscCall(PetscKPDeviceMatGetInfo(L.Ad, NULL, &v[1], NULL, NULL));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, v, 2, MPIU_INT, MPI_SUM, H.comm));
  if (rows) *rows = v[0];
  if (nnz) *nnz = L.Ad ? v[1] : -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* default level operations: the hierarchy's device matrices */

PetscErrorCode MGLevelOps::CoarseSolve(PetscInt l, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCheck(H_.coarse.ready, H_.comm, PETSC_ERR_ARG_WRONGSTATE, "The coarsest level %" PetscInt_FMT " has no solver: set up its direct solve (MGHierarchySetUpCoarseDirect()) or give the MGLevelOps a CoarseSolve", l);
  PetscCall(MGCoarseDirectSolve(H_.comm, H_.coarse, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGLevelOps::Mult(PetscInt l, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCheck(H_.levels[l].Ad, H_.comm, PETSC_ERR_ARG_WRONGSTATE, "Level %" PetscInt_FMT " has no device operator: its MGLevelOps must provide Mult", l);
  PetscCall(PetscKPDeviceMatMult(H_.levels[l].Ad, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGLevelOps::Residual(PetscInt l, Vec b, Vec x, Vec r)
{
  PetscFunctionBegin;
  PetscCall(Mult(l, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGLevelOps::Restrict(PetscInt l, Vec r, Vec bc)
{
  MGLevel &L = H_.levels[l];

  PetscFunctionBegin;
  if (L.aggregated) {
    DeviceVec rv, bv;
    PetscCall(rv.Get(r, Access::Read));
    PetscCall(bv.Get(bc, Access::Write));
    PetscCallCXX(AggRestrict(L.agg, rv.cview(), bv.view()));
    PetscCall(bv.Restore());
    PetscCall(rv.Restore());
  } else {
    PetscCheck(L.Rd, H_.comm, PETSC_ERR_ARG_WRONGSTATE, "Level %" PetscInt_FMT " has no restriction: its MGLevelOps must provide Restrict", l);
    PetscCall(PetscKPDeviceMatMult(L.Rd, r, bc));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGLevelOps::ResidualRestrict(PetscInt l, Vec b, Vec x, Vec bc)
{
  PetscFunctionBegin;
  PetscCall(Residual(l, b, x, H_.levels[l].r));
  PetscCall(Restrict(l, H_.levels[l].r, bc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGLevelOps::SmoothFromZero(PetscInt l, Vec b, Vec x, PetscInt nsweeps, MGSweepDirection dir)
{
  PetscFunctionBegin;
  PetscCall(VecSet(x, 0.0));
  PetscCall(Smooth(l, b, x, nsweeps, dir, true));
  PetscFunctionReturn(PETSC_SUCCESS);
}

bool MGLevelOps::CoarseSolveUsesGuess(PetscInt) const { return true; }

PetscErrorCode MGLevelOps::SmoothResidualRestrict(PetscInt l, Vec b, Vec x, PetscInt nsweeps, bool zero, Vec bc)
{
  PetscFunctionBegin;
  if (zero) PetscCall(SmoothFromZero(l, b, x, nsweeps, MGSweepDirection::Forward));
  else PetscCall(Smooth(l, b, x, nsweeps, MGSweepDirection::Forward, false));
  PetscCall(ResidualRestrict(l, b, x, bc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGLevelOps::ProlongSmooth(PetscInt l, Vec ec, Vec b, Vec x, PetscInt nsweeps)
{
  PetscFunctionBegin;
  PetscCall(ProlongAdd(l, ec, x));
  PetscCall(EndCoarse(l, b, x));
  PetscCall(Smooth(l, b, x, nsweeps, MGSweepDirection::Backward, false));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGLevelOps::KCycleMultDots(PetscInt l, Vec p, Vec Ap, Vec r, bool rr, const KCycleScalars &S, PetscInt i)
{
  DeviceVec pw, aw, rw;

  PetscFunctionBegin;
  PetscCall(Mult(l, p, Ap));
  PetscCall(pw.Get(p, Access::Read));
  PetscCall(aw.Get(Ap, Access::Read));
  PetscCall(rw.Get(r, Access::Read));
  PetscCallCXX(KCycleStepDots(S, i, pw.cview(), aw.cview(), rw.cview(), rr));
  PetscCall(rw.Restore());
  PetscCall(aw.Restore());
  PetscCall(pw.Restore());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGLevelOps::ProlongAdd(PetscInt l, Vec ec, Vec x)
{
  MGLevel &L = H_.levels[l];

  PetscFunctionBegin;
  if (L.aggregated) {
    DeviceVec ev, xv;
    PetscCall(ev.Get(ec, Access::Read));
    PetscCall(xv.Get(x, Access::ReadWrite));
    PetscCallCXX(AggProlong(L.agg, 1.0, ev.cview(), 1.0, xv.view()));
    PetscCall(xv.Restore());
    PetscCall(ev.Restore());
  } else {
    PetscCheck(L.Pd, H_.comm, PETSC_ERR_ARG_WRONGSTATE, "Level %" PetscInt_FMT " has no prolongation: its MGLevelOps must provide ProlongAdd", l);
    PetscCall(PetscKPDeviceMatMult(L.Pd, ec, L.w));
    PetscCall(VecAXPY(x, 1.0, L.w));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGLevelOps::BeginCoarse(PetscInt, Vec, Vec)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGLevelOps::EndCoarse(PetscInt, Vec, Vec)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* cycles */

static PetscErrorCode Cycle(MGHierarchy &H, MGLevelOps &ops, const MGCycleParams &p, PetscInt l, Vec b, Vec x, bool zero);
static PetscErrorCode KCycle(MGHierarchy &H, MGLevelOps &ops, const MGCycleParams &p, PetscInt l, Vec f, Vec u);

/* under MPI: adds the ranks' partial sums v(first .. first + count - 1) (through the host; the host mirror h keeps
   them); on one process nothing */
static PetscErrorCode KCycleAllreduce(MPI_Comm comm, const View<Sums4> &v, Int first, Int count, const Kokkos::View<Sums4 *, KCycleHostSpace> &h)
{
  PetscMPIInt size, cnt;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size == 1) PetscFunctionReturn(PETSC_SUCCESS);
  const auto range = Kokkos::make_pair(first, first + count);
  PetscCall(PetscMPIIntCast(4 * count, &cnt));
  PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(h, range), Kokkos::subview(v, range)));
  PetscCallCXX(exec().fence());
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, (PetscScalar *)h.data() + 4 * first, cnt, MPIU_SCALAR, MPIU_SUM, comm));
  PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(v, range), Kokkos::subview(h, range)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* p_i -= sum_{j<i} ((p_i, A p_j) / (p_j, A p_j)) p_j, in groups of four directions: one fused reduction and one
   update per group, the coefficients on the device */
static PetscErrorCode KCycleOrthogonalise(MGHierarchy &H, MGLevel &L, PetscInt i, Vec *pv, Vec *Apv)
{
  DeviceVec pw;

  PetscFunctionBegin;
  PetscCall(pw.Get(pv[i], Access::ReadWrite));
  for (PetscInt j0 = 0, c = 0; j0 < i; j0 += 4, c++) {
    const int           k = (int)PetscMin(4, i - j0);
    DeviceVec           a[4];
    UView<const Scalar> av[4];
    for (int q = 0; q < k; q++) {
      PetscCall(a[q].Get(Apv[j0 + q], Access::Read));
      av[q] = a[q].cview();
    }
    PetscCallCXX(KCycleOrthoDots(L.ks, c, pw.cview(), k, av));
    for (int q = 0; q < k; q++) PetscCall(a[q].Restore());
    PetscCall(KCycleAllreduce(H.comm, L.ks.ortho, c, 1, L.ks.hortho));
  }
  for (PetscInt j0 = 0, c = 0; j0 < i; j0 += 4, c++) {
    const int           k = (int)PetscMin(4, i - j0);
    DeviceVec           a[4];
    UView<const Scalar> av[4];
    for (int q = 0; q < k; q++) {
      PetscCall(a[q].Get(pv[j0 + q], Access::Read));
      av[q] = a[q].cview();
    }
    PetscCallCXX(KCycleOrthogonalise(L.ks, i, c, k, av, pw.view()));
    for (int q = 0; q < k; q++) PetscCall(a[q].Restore());
  }
  PetscCall(pw.Restore());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the coarse correction on the coarsest level l of H when its levels from l down are replicated (section 7): b (and
   x, unless zero) gathered on every process in one MPI_Allgatherv, then on the replicated hierarchy T (whose level 0
   is level l) the GCG of Algorithm 2.1 (gcg) or one cycle, redundantly and without communication, and this
   process's rows of the result into x */
static PetscErrorCode ReplicatedCorrection(MGHierarchy &H, MGLevelOps &ops, const MGCycleParams &p, PetscInt l, Vec b, Vec x, bool zero, bool gcg)
{
  MGReplicatedLevels &Rp   = *H.replicated;
  MGLevelOps         *tops = ops.Replicated();
  MGCycleParams       q    = p;
  const Vec           v[2] = {b, x};
  const View<Scalar>  full[2] = {Rp.bfull, Rp.xfull};

  PetscFunctionBegin;
  PetscCheck(tops && &tops->Hierarchy() == &Rp.T, H.comm, PETSC_ERR_ARG_WRONGSTATE, "The hierarchy has replicated levels: its MGLevelOps need those of the replicated hierarchy (MGLevelOps::SetReplicated())");
  PetscCall(PetscLogEventBegin(PETSCKP_MGReplicated, 0, 0, 0, 0));
  PetscCall(MGCoarseReplicaGatherAll(H.comm, nullptr, Rp.R, zero ? 1 : 2, v, full));
  {
    DeviceVec bw, xw;
    PetscCall(bw.Get(Rp.b, Access::Write));
    PetscCallCXX(Kokkos::deep_copy(exec(), bw.view(), Rp.bfull));
    PetscCall(bw.Restore());
    if (!zero) {
      PetscCall(xw.Get(Rp.x, Access::Write));
      PetscCallCXX(Kokkos::deep_copy(exec(), xw.view(), Rp.xfull));
      PetscCall(xw.Restore());
    }
  }
  /* T's levels are H's levels l, l+1, ...: the last GCG level shifts with them */
  q.kcycle_last = p.kcycle_last < 0 ? -1 : PetscMax(0, p.kcycle_last - l);
  if (gcg) PetscCall(KCycle(Rp.T, *tops, q, 0, Rp.b, Rp.x));
  else PetscCall(Cycle(Rp.T, *tops, q, 0, Rp.b, Rp.x, zero));
  {
    DeviceVec xw;
    PetscCall(xw.Get(Rp.x, Access::Read));
    PetscCallCXX(Kokkos::deep_copy(exec(), Rp.xfull, xw.cview()));
    PetscCall(xw.Restore());
  }
  PetscCall(MGCoarseReplicaScatter(Rp.R, Rp.xfull, x));
  PetscCall(PetscLogEventEnd(PETSCKP_MGReplicated, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Algorithm 2.1 of Wang, Hu, Cohen and Xu on level l: u = n steps of GCG for A_l u = f, preconditioned by the cycle
   (Algorithm 2.2) on level l; the direct (coarsest) solve where l is the coarsest level. The scalars stay on the
   device (kp_kcycle); r_0 = f is read in place and u_0 = 0 is never stored (the first update writes u). */
static PetscErrorCode KCycle(MGHierarchy &H, MGLevelOps &ops, const MGCycleParams &p, PetscInt l, Vec f, Vec u)
{
  MGLevel       &L     = H.levels[l];
  const PetscInt n     = p.kcycle_its;
  const bool     early = p.kcycle_rtol > 0 && n > 1; /* the early exit after the first step */

  PetscFunctionBegin;
  if (l == (PetscInt)H.levels.size() - 1) {
    if (H.replicated) PetscCall(ReplicatedCorrection(H, ops, p, l, f, u, true, true)); /* the GCG on the replicated level */
    else PetscCall(Cycle(H, ops, p, l, f, u, true));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if ((PetscInt)L.kv.size() < 1 + 2 * n) {
    for (Vec &v : L.kv) PetscCall(VecDestroy(&v));
    PetscCallCXX(L.kv.assign(1 + 2 * n, nullptr));
    for (Vec &v : L.kv) PetscCall(VecDuplicate(L.r, &v));
  }
  if (L.ks.n < n) {
    KCycleScalars old = L.ks;
    PetscCallCXX(KCycleScalarsCreate(n, L.ks));
    if (old.breakdowns.data()) PetscCallCXX(Kokkos::deep_copy(exec(), L.ks.breakdowns, old.breakdowns)); /* keep the count */
  }
  Vec  r  = L.kv[0];
  Vec *pv = &L.kv[1], *Apv = &L.kv[1 + n];
  for (PetscInt i = 0; i < n; i++) {
    const bool last = i + 1 == n, norm = i == 0 && early;
    Vec        ri   = i == 0 ? f : r;

    PetscCall(Cycle(H, ops, p, l, ri, pv[i], true));              /* p_i = Bhat[r_i] */
    if (i > 0) PetscCall(KCycleOrthogonalise(H, L, i, pv, Apv)); /* A-orthogonal to every earlier direction */
    /* A p_i; (p_i, A p_i), (p_i, r_i) and, for the early exit, (r_0, r_0) */
    PetscCall(ops.KCycleMultDots(l, pv[i], Apv[i], ri, norm, L.ks, i));
    PetscCall(KCycleAllreduce(H.comm, L.ks.step, 1 + i, 1, L.ks.hstep));
    {
      DeviceVec pw, aw, rw, uw, rinw;
      PetscCall(pw.Get(pv[i], Access::Read));
      PetscCall(aw.Get(Apv[i], Access::Read));
      PetscCall(rinw.Get(ri, last || i == 0 ? Access::Read : Access::ReadWrite));
      /* u_{i+1} = u_i + alpha_i p_i, r_{i+1} = r_i - alpha_i A p_i (not after the last step) */
      PetscCall(uw.Get(u, i == 0 ? Access::Write : Access::ReadWrite));
      if (!last && i == 0) PetscCall(rw.Get(r, Access::Write));
      const UView<Scalar> rout = last ? UView<Scalar>() : (i == 0 ? rw.view() : rinw.view());
      PetscCallCXX(KCycleUpdate(L.ks, i, pw.cview(), aw.cview(), rinw.cview(), rout, uw.view(), norm));
      PetscCall(rw.Restore());
      PetscCall(uw.Restore());
      PetscCall(rinw.Restore());
      PetscCall(aw.Restore());
      PetscCall(pw.Restore());
    }
    if (norm) {
      /* the one read of the host: stop after a breakdown, or when ||r_1|| <= t ||r_0|| (Notay and Vassilevski) */
      PetscMPIInt size;
      PetscCallMPI(MPI_Comm_size(H.comm, &size));
      if (size == 1) {
        PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(L.ks.hstep, Kokkos::make_pair(0, 2)), Kokkos::subview(L.ks.step, Kokkos::make_pair(0, 2))));
        PetscCallCXX(exec().fence());
      } else PetscCall(KCycleAllreduce(H.comm, L.ks.step, 0, 1, L.ks.hstep));
      const Sums4    &s0 = L.ks.hstep(1), &s1 = L.ks.hstep(0);
      const PetscReal rho0 = PetscSqrtReal(PetscRealPart(s0.v[2])), rho1 = PetscSqrtReal(PetscRealPart(s1.v[0]));
      if (KCycleStops(s0) || rho1 <= p.kcycle_rtol * rho0) break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Algorithm 2.2 (and the V/W cycles) on level l */
static PetscErrorCode Cycle(MGHierarchy &H, MGLevelOps &ops, const MGCycleParams &p, PetscInt l, Vec b, Vec x, bool zero)
{
  PetscFunctionBegin;
  if (l == (PetscInt)H.levels.size() - 1 && H.replicated) {
    PetscCall(ReplicatedCorrection(H, ops, p, l, b, x, zero, false));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (l == (PetscInt)H.levels.size() - 1) {
    if (zero && ops.CoarseSolveUsesGuess(l)) PetscCall(VecSet(x, 0.0));
    PetscCall(ops.CoarseSolve(l, b, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  MGLevel &C = H.levels[l + 1];
  PetscCall(ops.SmoothResidualRestrict(l, b, x, p.pre, zero, C.b)); /* smooth; b_c = R (b - A x) */
  PetscCall(ops.BeginCoarse(l, b, x));
  if (p.type == MGCycleType::K && (p.kcycle_last < 0 || l + 1 <= p.kcycle_last)) PetscCall(KCycle(H, ops, p, l + 1, C.b, C.x));
  else if (p.type == MGCycleType::K) PetscCall(Cycle(H, ops, p, l + 1, C.b, C.x, true)); /* a V-cycle below kcycle_last */
  else
    for (PetscInt g = 0; g < (p.type == MGCycleType::W ? 2 : 1); g++) PetscCall(Cycle(H, ops, p, l + 1, C.b, C.x, g == 0));
  PetscCall(ops.ProlongSmooth(l, C.x, b, x, p.post)); /* x += P e; smooth */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGCycleApply(MGHierarchy &H, MGLevelOps &ops, const MGCycleParams &p, Vec b, Vec x, bool zero)
{
  PetscFunctionBegin;
  PetscCheck(!H.levels.empty(), H.comm, PETSC_ERR_ARG_WRONGSTATE, "The multigrid hierarchy is empty (not set up)");
  PetscCheck(&ops.Hierarchy() == &H, H.comm, PETSC_ERR_ARG_WRONG, "The MGLevelOps belong to another hierarchy");
  PetscCheck(p.pre >= 0 && p.post >= 0, H.comm, PETSC_ERR_ARG_OUTOFRANGE, "The numbers of smoothing sweeps must be >= 0, not %" PetscInt_FMT " and %" PetscInt_FMT, p.pre, p.post);
  PetscCheck(p.type != MGCycleType::K || p.kcycle_its >= 1, H.comm, PETSC_ERR_ARG_OUTOFRANGE, "The K-cycle needs at least one inner iteration, not %" PetscInt_FMT, p.kcycle_its);
  PetscCall(Cycle(H, ops, p, 0, b, x, zero));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */

PetscErrorCode MGLevelColourSweeps(MGHierarchy &H, PetscInt l, const ColourPartition &colours, const std::vector<Int> &colourids, PetscInt nsweeps, Real omega, bool backward, Vec b, Vec x, Vec lo, Vec up, bool hybrid)
{
  MGLevel       &L  = H.levels[l];
  const PetscInt nc = (PetscInt)colourids.size();
  Vec            g  = nullptr;

  PetscFunctionBegin;
  hybrid = hybrid && omega <= 1; /* over-relaxed Jacobi between processes need not converge */
  for (PetscInt s = 0; s < nsweeps; s++)
    for (PetscInt cc = 0; cc < nc; cc++) {
      const Int c = colourids[backward ? nc - 1 - cc : cc];
      const Int r0 = colours.hoffsets(c), r1 = colours.hoffsets(c + 1);
      DeviceVec xv, bv, gv, lv, uv;

      /* the values of the other colours on the neighbours: before every colour, or (hybrid) before every sweep */
      if (!hybrid || cc == 0) PetscCall(DeviceMatGhostUpdate(L.Ad, x, &g));
      if (g) PetscCall(gv.Get(g, Access::Read));
      if (lo) PetscCall(lv.Get(lo, Access::Read));
      if (up) PetscCall(uv.Get(up, Access::Read));
      PetscCall(bv.Get(b, Access::Read));
      PetscCall(xv.Get(x, Access::ReadWrite));
      PetscCallCXX(ColourSweep(DeviceMatLocalCsr(L.Ad), DeviceMatGhostCsr(L.Ad), UView<const Int>(colours.rows.data() + r0, r1 - r0), omega, bv.cview(), gv.cview(), lv.cview(), uv.cview(), xv.view()));
      PetscCall(xv.Restore());
      PetscCall(bv.Restore());
      PetscCall(uv.Restore());
      PetscCall(lv.Restore());
      PetscCall(gv.Restore());
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGLevelColourCheck(MGHierarchy &H, PetscInt l, UView<const Int> colour, Int ncolours, PetscInt *violations)
{
  MGLevel  &L = H.levels[l];
  Vec       cv, g;
  DeviceVec cvv, gv;
  Int       bad;

  PetscFunctionBegin;
  PetscCheck(L.Ad && L.r, H.comm, PETSC_ERR_ARG_WRONGSTATE, "Level %" PetscInt_FMT " needs a device operator and its vectors (MGHierarchySetUpVecs()) for a colouring check", l);
  PetscCall(VecDuplicate(L.r, &cv));
  PetscCall(cvv.Get(cv, Access::Write));
  PetscCheck((Int)colour.extent(0) == cvv.size(), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%" PetscInt_FMT " colours for %" PetscInt_FMT " local rows", (Int)colour.extent(0), cvv.size());
  PetscCallCXX(ColourScalars(colour, cvv.view()));
  PetscCall(cvv.Restore());
  PetscCall(DeviceMatGhostUpdate(L.Ad, cv, &g)); /* the colours of the neighbours on other ranks */
  if (g) PetscCall(gv.Get(g, Access::Read));
  PetscCallCXX(bad = GraphColourCheck(DeviceMatLocalCsr(L.Ad), DeviceMatGhostCsr(L.Ad), colour, gv.cview(), ncolours));
  PetscCall(gv.Restore());
  PetscCall(VecDestroy(&cv));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_SUM, H.comm));
  *violations = bad;
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace petsckp
