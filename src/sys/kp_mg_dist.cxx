/*
   kp_mg_dist.cxx - the distributed device Galerkin product of the multigrid layer (kp_mg.hpp, section 1): the ghost
   rows of P fetched from their owners, AP and P^T AP formed by the kernels of kp_galerkin on each rank, and the rows of
   P^T AP that belong to other ranks sent to them, in the design of PETSc's MatPtAP() for MPIAIJ matrices
   (src/mat/impls/aij/mpi/mpiptap.c: P_oth, the rows of P for the off-diagonal columns of A, and the off-process
   rows of C sent to their owners and merged there). The communication (PetscSF) is staged through the host: only
   the ghost rows of P and the off-process rows of C travel, O(surface) of the local block; everything O(local) runs
   in the kernels.
*/
#include "kp_mg.hpp"
#include "kp_segsort.hpp"
#include <petscsf.h>
#include <algorithm>

namespace petsckp
{
/* host copy of the structure of a device CSR matrix (rowptr nrows + 1 entries, colidx nnz) */
static PetscErrorCode CsrStructureToHost(const CsrMatrix &A, std::vector<Int> &rp, std::vector<Int> &ci)
{
  PetscFunctionBegin;
  PetscCallCXX(rp.assign(A.nrows + 1, 0));
  PetscCallCXX(ci.assign(A.nnz, 0));
  if (A.nrows > 0) PetscCallCXX(Kokkos::deep_copy(HostUView<Int>(rp.data(), rp.size()), Kokkos::subview(A.rowptr, Kokkos::make_pair((Int)0, A.nrows + 1))));
  if (A.nnz > 0) {
    std::vector<Ordinal> c(A.nnz);
    PetscCallCXX(Kokkos::deep_copy(HostUView<Ordinal>(c.data(), c.size()), Kokkos::subview(A.colidx, Kokkos::make_pair((Int)0, A.nnz))));
    for (Int k = 0; k < A.nnz; k++) ci[k] = c[k];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a device CSR matrix from host arrays (vals may be NULL: zeros) */
static PetscErrorCode CsrFromHost(Int nrows, Int ncols, const std::vector<Int> &rp, const std::vector<Int> &ci, const Scalar *vals, CsrMatrix &A)
{
  const Int nnz = rp.empty() ? 0 : rp[nrows];
  View<Int> drp(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("host csr rowptr")), nrows + 1);
  std::vector<Ordinal> c(ci.begin(), ci.end());

  PetscFunctionBegin;
  PetscCallCXX(CsrAllocate(A, nrows, ncols, drp, nnz, "host csr"));
  if (rp.empty()) PetscCallCXX(Kokkos::deep_copy(exec(), drp, (Int)0));
  else PetscCallCXX(Kokkos::deep_copy(exec(), drp, HostUView<const Int>(rp.data(), nrows + 1)));
  if (nnz > 0) {
    PetscCallCXX(Kokkos::deep_copy(exec(), A.colidx, HostUView<const Ordinal>(c.data(), nnz)));
    if (vals) PetscCallCXX(Kokkos::deep_copy(exec(), A.vals, HostUView<const Scalar>(vals, nnz)));
    else PetscCallCXX(Kokkos::deep_copy(exec(), A.vals, 0.0));
  }
  PetscCallCXX(exec().fence());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a device view of host integers */
static PetscErrorCode IntsToDevice(const std::vector<Int> &h, View<Int> &d, const char *label)
{
  PetscFunctionBegin;
  PetscCallCXX(d = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), h.size()));
  if (!h.empty()) PetscCallCXX(Kokkos::deep_copy(exec(), d, HostUView<const Int>(h.data(), h.size())));
  PetscCallCXX(exec().fence());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* values of a device view (n entries) to a host vector and back */
static PetscErrorCode ValuesToHost(const View<Scalar> &d, Int n, std::vector<Scalar> &h)
{
  PetscFunctionBegin;
  PetscCallCXX(h.resize(n));
  if (n > 0) PetscCallCXX(Kokkos::deep_copy(HostUView<Scalar>(h.data(), n), Kokkos::subview(d, Kokkos::make_pair((Int)0, n))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ValuesToDevice(const std::vector<Scalar> &h, const View<Scalar> &d, Int offset = 0)
{
  PetscFunctionBegin;
  if (!h.empty()) PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(d, Kokkos::make_pair(offset, offset + (Int)h.size())), HostUView<const Scalar>(h.data(), h.size())));
  PetscCallCXX(exec().fence());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* off-process rows sent to their owners */

PetscErrorCode MGDistRowsReset(MGDistRows &M)
{
  PetscFunctionBegin;
  PetscCall(PetscSFDestroy(&M.sf));
  PetscCallCXX(M = MGDistRows());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGDistRowsSetUp(MPI_Comm comm, PetscLayout rowmap, PetscLayout colmap, CsrMatrix &Top, const std::vector<PetscInt> &ig, const CsrMatrix &Off, const std::vector<PetscInt> &offrows, MGDistRows &M)
{
  PetscMPIInt              size, rank;
  PetscInt                 rstart, rend, cstart, cend;
  std::vector<Int>         orp, oci;
  std::vector<PetscMPIInt> sendcnt, recvcnt, rdispl, myoff, run;
  std::vector<PetscSFNode> iremote;
  std::vector<PetscInt>    leafrow, leafcol, rootrow, rootcol, G;
  Int                      nlc, nrecv = 0;

  PetscFunctionBegin;
  PetscCall(MGDistRowsReset(M));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscLayoutGetRange(rowmap, &rstart, &rend));
  PetscCall(PetscLayoutGetRange(colmap, &cstart, &cend));
  nlc = cend - cstart;
  PetscCheck(Top.nrows == rend - rstart && Off.nrows == (Int)offrows.size() && Top.ncols == nlc + (Int)ig.size() && Off.ncols <= Top.ncols, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Inconsistent sizes of the distributed rows");
  /* 1. the entries of Off with their global rows and columns, and their owners' receive slots */
  PetscCall(CsrStructureToHost(Off, orp, oci));
  PetscCallCXX(sendcnt.assign(size, 0));
  PetscCallCXX(run.assign(size, 0));
  PetscCallCXX(leafrow.resize(Off.nnz));
  PetscCallCXX(leafcol.resize(Off.nnz));
  std::vector<PetscMPIInt> owner(Off.nrows);
  for (Int r = 0; r < Off.nrows; r++) {
    PetscCall(PetscLayoutFindOwner(rowmap, offrows[r], &owner[r]));
    for (Int k = orp[r]; k < orp[r + 1]; k++) {
      leafrow[k] = offrows[r];
      leafcol[k] = oci[k] < nlc ? cstart + oci[k] : ig[oci[k] - nlc];
    }
    sendcnt[owner[r]] += (PetscMPIInt)(orp[r + 1] - orp[r]);
  }
  PetscCallCXX(recvcnt.assign(size, 0));
  PetscCallCXX(rdispl.assign(size, 0));
  PetscCallCXX(myoff.assign(size, 0));
  PetscCallMPI(MPI_Alltoall(sendcnt.data(), 1, MPI_INT, recvcnt.data(), 1, MPI_INT, comm));
  for (PetscMPIInt p = 0; p < size; p++) rdispl[p] = (PetscMPIInt)nrecv, nrecv += recvcnt[p];
  PetscCallMPI(MPI_Alltoall(rdispl.data(), 1, MPI_INT, myoff.data(), 1, MPI_INT, comm)); /* where my entries go at each owner */
  PetscCallCXX(iremote.resize(Off.nnz));
  for (Int r = 0; r < Off.nrows; r++)
    for (Int k = orp[r]; k < orp[r + 1]; k++) {
      iremote[k].rank  = owner[r];
      iremote[k].index = myoff[owner[r]] + run[owner[r]]++;
    }
  PetscCall(PetscSFCreate(comm, &M.sf));
  PetscCall(PetscSFSetGraph(M.sf, nrecv, Off.nnz, NULL, PETSC_COPY_VALUES, iremote.data(), PETSC_COPY_VALUES));
  PetscCall(PetscSFSetUp(M.sf));
  PetscCallCXX(rootrow.assign(nrecv, -1));
  PetscCallCXX(rootcol.assign(nrecv, -1));
  PetscCall(PetscSFReduceBegin(M.sf, MPIU_INT, leafrow.data(), rootrow.data(), MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(M.sf, MPIU_INT, leafrow.data(), rootrow.data(), MPI_REPLACE));
  PetscCall(PetscSFReduceBegin(M.sf, MPIU_INT, leafcol.data(), rootcol.data(), MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(M.sf, MPIU_INT, leafcol.data(), rootcol.data(), MPI_REPLACE));

  /* 2. the ghost columns of the result: those of Top and the received ones that others own (ascending) */
  PetscCallCXX(G.assign(ig.begin(), ig.end()));
  for (Int s = 0; s < nrecv; s++) {
    PetscCheck(rootrow[s] >= rstart && rootrow[s] < rend, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Received row %" PetscInt_FMT " outside [%" PetscInt_FMT ", %" PetscInt_FMT ")", rootrow[s], rstart, rend);
    if (rootcol[s] < cstart || rootcol[s] >= cend) PetscCallCXX(G.push_back(rootcol[s]));
  }
  std::sort(G.begin(), G.end());
  G.erase(std::unique(G.begin(), G.end()), G.end());
  const Int ng     = (Int)G.size();
  auto      ghosti = [&](PetscInt gcol) { return (Int)(std::lower_bound(G.begin(), G.end(), gcol) - G.begin()); };

  /* 3. the received entries grouped by their rows, in slot order within a row (deterministic): O(received) on the
        host, nothing over the local rows */
  std::vector<std::pair<Int, Int>> rs(nrecv); /* (local row, receive slot) */
  std::vector<Int>                 recvrows;  /* the rows that receive entries, ascending */
  for (Int s = 0; s < nrecv; s++) rs[s] = std::make_pair((Int)(rootrow[s] - rstart), s);
  std::sort(rs.begin(), rs.end());
  for (Int s = 0; s < nrecv; s++)
    if (s == 0 || rs[s].first != rs[s - 1].first) PetscCallCXX(recvrows.push_back(rs[s].first));
  /* 4. Top's ghost columns in the numbering of G, the sum of both, split into the local and the ghost block; only the
        rows that receive entries (and any row of Top with unsorted or repeated columns) are merged, O(surface) of
        them: the other rows of Top are copied as they are */
  if (!ig.empty()) {
    std::vector<Int> igmap(ig.size());
    View<Int>        dmap;
    for (size_t j = 0; j < ig.size(); j++) igmap[j] = ghosti(ig[j]);
    PetscCall(IntsToDevice(igmap, dmap, "dist rows ghost map"));
    PetscCallCXX(CsrRemapColumns(Top, nlc, ucv(dmap), nlc + ng));
  } else Top.ncols = nlc + ng;
  {
    bool             ok;
    Int              nm;
    View<Int>        used, drr;
    std::vector<Int> hm, rp(1, 0), ci, perm;
    PetscCall(IntsToDevice(recvrows, drr, "dist rows receiving"));
    PetscCallCXX(nm = CsrRowsToMerge(Top, ucv(drr), M.mrows));
    PetscCallCXX(hm.resize(nm));
    if (nm > 0) PetscCallCXX(Kokkos::deep_copy(HostUView<Int>(hm.data(), nm), M.mrows));
    /* the received entries of the merged rows (every receiving row is merged), their columns in the numbering of G */
    for (Int r = 0, t = 0; r < nm; r++) {
      while (t < nrecv && rs[t].first < hm[r]) t++;
      for (; t < nrecv && rs[t].first == hm[r]; t++) {
        const PetscInt c = rootcol[rs[t].second];
        PetscCallCXX(ci.push_back(c >= cstart && c < cend ? (Int)(c - cstart) : nlc + ghosti(c)));
        PetscCallCXX(perm.push_back(rs[t].second));
      }
      PetscCallCXX(rp.push_back((Int)ci.size()));
    }
    PetscCheck((Int)ci.size() == nrecv, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Received rows missing among the merged rows");
    PetscCall(CsrFromHost(nm, nlc + ng, rp, ci, nullptr, M.RecvM));
    PetscCall(IntsToDevice(perm, M.recvperm, "dist rows receive perm"));
    PetscCallCXX(CsrExtractRows(Top, ucv(M.mrows), M.TopM, M.tsrc));
    PetscCallCXX(ok = CsrInterleaveRows(M.TopM, M.RecvM, M.S, M.ssrc));
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Inconsistent rows of the distributed rows");
    M.S.ncols = nlc + ng;
    PetscCallCXX(CsrSumDuplicates(M.S, M.Cm, M.smap));
    PetscCallCXX(ok = CsrReplaceRowsSplit(Top, ucv(M.mrows), M.Cm, nlc, M.D, M.O, used, M.dsrc, M.osrc)); /* Top with the merged rows, split */
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Inconsistent merged rows of the distributed rows");
    std::vector<Int> hused(used.extent(0));
    if (!hused.empty()) PetscCallCXX(Kokkos::deep_copy(HostUView<Int>(hused.data(), hused.size()), used));
    PetscCallCXX(M.garray.resize(hused.size()));
    for (size_t g = 0; g < hused.size(); g++) M.garray[g] = G[hused[g]];
  }
  PetscCallCXX(M.drecv = View<Scalar>(std::string("dist rows receive values"), nrecv));
  PetscCallCXX(M.hrecv.assign(nrecv, 0.0));
  PetscCall(MGDistRowsNumeric(M, Top, Off));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGDistRowsNumeric(MGDistRows &M, const CsrMatrix &Top, const CsrMatrix &Off)
{
  PetscFunctionBegin;
  PetscCallCXX(exec().fence());
  PetscCall(ValuesToHost(Off.vals, Off.nnz, M.hsend));
  PetscCall(PetscSFReduceBegin(M.sf, MPIU_SCALAR, M.hsend.data(), M.hrecv.data(), MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(M.sf, MPIU_SCALAR, M.hsend.data(), M.hrecv.data(), MPI_REPLACE));
  PetscCall(ValuesToDevice(M.hrecv, M.drecv));
  PetscCallCXX(GatherValues(ucv(M.drecv), ucv(M.recvperm), uv(M.RecvM.vals)));
  PetscCallCXX(GatherValues(ucv(Top.vals), ucv(M.tsrc), uv(M.TopM.vals)));
  PetscCallCXX(CsrInterleaveRowsNumeric(ucv(M.TopM.vals), ucv(M.RecvM.vals), ucv(M.ssrc), M.S));
  PetscCallCXX(GalerkinAggregateNumeric(ucv(M.S.vals), M.smap, M.Cm));
  PetscCallCXX(CsrInterleaveRowsNumeric(Kokkos::subview(ucv(Top.vals), Kokkos::make_pair((Int)0, Top.nnz)), ucv(M.Cm.vals), ucv(M.dsrc), M.D));
  PetscCallCXX(CsrInterleaveRowsNumeric(Kokkos::subview(ucv(Top.vals), Kokkos::make_pair((Int)0, Top.nnz)), ucv(M.Cm.vals), ucv(M.osrc), M.O));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* the distributed Galerkin product */

/* the ghost columns (global indices) of a device matrix, none for a sequential one */
static PetscErrorCode DeviceMatGhosts(PetscKPDeviceMat A, std::vector<PetscInt> &g)
{
  const PetscInt *idx;

  PetscFunctionBegin;
  PetscCallCXX(g.clear());
  if (!A->mpi || !A->ghostis) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ISGetIndices(A->ghostis, &idx));
  PetscCallCXX(g.assign(idx, idx + A->nghost));
  PetscCall(ISRestoreIndices(A->ghostis, &idx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* iota(b .. e-1) on the device */
static PetscErrorCode IotaView(Int b, Int e, View<Int> &v)
{
  PetscFunctionBegin;
  PetscCallCXX(v = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("iota")), e - b));
  auto w = v;
  Kokkos::parallel_for(
    "petsckp::Iota", range(e - b), KOKKOS_LAMBDA(Int i) { w(i) = b + i; });
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the values of the ghost rows of P from their owners (the numeric phase of step 1) */
static PetscErrorCode RapDistGhostValues(MGRapDist &W)
{
  PetscFunctionBegin;
  PetscCallCXX(GatherValues(ucv(W.Ploc.vals), ucv(W.reqsrc), uv(W.dsend)));
  PetscCallCXX(exec().fence());
  PetscCall(ValuesToHost(W.dsend, (Int)W.dsend.extent(0), W.hsend));
  PetscCall(PetscSFBcastBegin(W.sfent, MPIU_SCALAR, W.hsend.data(), W.hrecv.data(), MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(W.sfent, MPIU_SCALAR, W.hsend.data(), W.hrecv.data(), MPI_REPLACE));
  PetscCall(ValuesToDevice(W.hrecv, W.Pext.vals, W.Ploc.nnz)); /* the ghost rows: the rows of P_ext after P_local */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGRapDistReset(MGRapDist &W)
{
  PetscFunctionBegin;
  PetscCall(PetscSFDestroy(&W.sfrow));
  PetscCall(PetscSFDestroy(&W.sfent));
  PetscCall(MGDistRowsReset(W.merge));
  PetscCallCXX(W = MGRapDist());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The rows of a layout that other ranks want (their ghost columns gcols, global indices, any order): the ascending list
   req of this rank's wanted rows (local indices) and, for each entry of gcols, its owner and the position of the row
   in the owner's list. Three small collectives over O(ghost) data (counts, the wanted indices, their positions back):
   no array over the local rows, unlike the degrees of a PetscSF whose roots are all the rows. */
static PetscErrorCode WantedRows(MPI_Comm comm, PetscLayout lay, const std::vector<PetscInt> &gcols, std::vector<Int> &req, std::vector<PetscSFNode> &remote)
{
  PetscMPIInt              size;
  const PetscInt          *ranges;
  const size_t             ng = gcols.size();
  std::vector<PetscMPIInt> owner(ng), scnt, rcnt, sdsp, rdsp;
  std::vector<PetscInt>    sidx(ng), ridx, rpos, spos(ng);
  std::vector<size_t>      slot(ng);

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscLayoutGetRanges(lay, &ranges));
  PetscCallCXX(scnt.assign(size, 0));
  PetscCallCXX(rcnt.assign(size, 0));
  PetscCallCXX(sdsp.assign(size + 1, 0));
  PetscCallCXX(rdsp.assign(size + 1, 0));
  for (size_t r = 0; r < ng; r++) {
    PetscCall(PetscLayoutFindOwner(lay, gcols[r], &owner[r]));
    scnt[owner[r]]++;
  }
  PetscCallMPI(MPI_Alltoall(scnt.data(), 1, MPI_INT, rcnt.data(), 1, MPI_INT, comm));
  for (PetscMPIInt p = 0; p < size; p++) sdsp[p + 1] = sdsp[p] + scnt[p], rdsp[p + 1] = rdsp[p] + rcnt[p];
  {
    std::vector<PetscMPIInt> run(sdsp.begin(), sdsp.end() - 1);
    for (size_t r = 0; r < ng; r++) {
      slot[r]       = (size_t)run[owner[r]]++;
      sidx[slot[r]] = gcols[r] - ranges[owner[r]];
    }
  }
  PetscCallCXX(ridx.resize(rdsp[size]));
  PetscCallMPI(MPI_Alltoallv(sidx.data(), scnt.data(), sdsp.data(), MPIU_INT, ridx.data(), rcnt.data(), rdsp.data(), MPIU_INT, comm));
  PetscCallCXX(req.assign(ridx.begin(), ridx.end()));
  std::sort(req.begin(), req.end());
  req.erase(std::unique(req.begin(), req.end()), req.end());
  PetscCallCXX(rpos.resize(ridx.size()));
  for (size_t k = 0; k < ridx.size(); k++) rpos[k] = (PetscInt)(std::lower_bound(req.begin(), req.end(), (Int)ridx[k]) - req.begin());
  PetscCallMPI(MPI_Alltoallv(rpos.data(), rcnt.data(), rdsp.data(), MPIU_INT, spos.data(), scnt.data(), sdsp.data(), MPIU_INT, comm));
  PetscCallCXX(remote.resize(ng));
  for (size_t r = 0; r < ng; r++) remote[r].rank = owner[r], remote[r].index = spos[slot[r]];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the first nrows rows of A as a matrix that shares A's row offsets and values (colidx too unless copycols: then
   a copy of the first entries, e.g. to renumber them in place); one host read of a row offset */
static PetscErrorCode CsrLeadingRows(const CsrMatrix &A, Int nrows, bool copycols, CsrMatrix &B)
{
  Int nnz = 0;

  PetscFunctionBegin;
  if (nrows > 0) PetscCallCXX(Kokkos::deep_copy(nnz, Kokkos::subview(A.rowptr, nrows)));
  PetscCallCXX(B = CsrLeadingRowsShared(A, nrows, nnz));
  if (copycols) {
    PetscCallCXX(B.colidx = View<Ordinal>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("leading rows colidx")), nnz));
    if (nnz > 0) PetscCallCXX(Kokkos::deep_copy(exec(), B.colidx, Kokkos::subview(A.colidx, Kokkos::make_pair((Int)0, nnz))));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C = P^T A P of distributed device matrices A (fine x fine) and P (fine x coarse): the blocks of this rank's rows
   of C (local block, ghost block, the ghost columns) in W.merge; R = P^T as a distributed device matrix when R is not
   NULL (the same transpose of P's rows as the product's). Collective. */
PetscErrorCode MGRapDistSetUp(MPI_Comm comm, PetscKPDeviceMat A, PetscKPDeviceMat P, MGRapDist &W, PetscKPDeviceMat *R)
{
  const CsrMatrix         &Ad = DeviceMatLocalCsr(A), &Pd = DeviceMatLocalCsr(P);
  CsrMatrix                Ao = DeviceMatGhostCsr(A), Po = DeviceMatGhostCsr(P);
  const Int                mf = Ad.nrows, mc = Pd.ncols;
  std::vector<PetscInt>    gA, gP, E;
  PetscLayout              flay = nullptr, clay = nullptr;
  PetscInt                 cstart, cend;
  CsrMatrix                Preq;
  std::vector<Int>         qrp, qci, req;
  std::vector<PetscInt>    rootinfo, leafinfo, rootcol, leafcol;
  std::vector<PetscSFNode> rremote;
  Int                      nleafent = 0;
  bool                     ok;

  PetscFunctionBegin;
  PetscCall(MGRapDistReset(W));
  PetscCall(DeviceMatGhosts(A, gA));
  PetscCall(DeviceMatGhosts(P, gP));
  PetscCheck(Pd.nrows == mf && (Int)gA.size() == A->nghost, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The distributed Galerkin product needs P with the rows of A (%" PetscInt_FMT ", not %" PetscInt_FMT ")", mf, Pd.nrows);
  if (!A->mpi) Ao = CsrMatrix(), Ao.nrows = mf, Ao.rowptr = View<Int>("empty rowptr", mf + 1);
  if (!P->mpi) Po = CsrMatrix(), Po.nrows = mf, Po.rowptr = View<Int>("empty rowptr", mf + 1);
  PetscCall(PetscLayoutCreateFromSizes(comm, mf, PETSC_DECIDE, 1, &flay));
  PetscCall(PetscLayoutCreateFromSizes(comm, mc, PETSC_DECIDE, 1, &clay));
  PetscCall(PetscLayoutGetRange(clay, &cstart, &cend));
  PetscCall(PetscLogEventBegin(PETSCKP_MGGalerkinGhostP, 0, 0, 0, 0));

  /* 1. the ghost rows of P: the owners learn which of their rows are wanted (WantedRows: a PetscSF whose roots are
        the wanted rows only), send their lengths and offsets, then the entries (global columns and values) */
  PetscCall(WantedRows(comm, flay, gA, req, rremote));
  PetscCall(PetscSFCreate(comm, &W.sfrow));
  PetscCall(PetscSFSetGraph(W.sfrow, (PetscInt)req.size(), (PetscInt)gA.size(), NULL, PETSC_COPY_VALUES, rremote.data(), PETSC_COPY_VALUES));
  PetscCall(PetscSFSetUp(W.sfrow));
  {
    View<Int> dreq;
    PetscCall(IntsToDevice(req, dreq, "ghost rows of P requested"));
    PetscCallCXX(ok = CsrExtractRows(Pd, Po, ucv(dreq), Preq, W.reqsrc)); /* rows of [Pd | Po]: columns local, then mc + gP's */
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The blocks of P have different numbers of rows");
    PetscCall(CsrStructureToHost(Preq, qrp, qci));
    PetscCallCXX(rootinfo.assign(2 * req.size(), 0));
    for (size_t r = 0; r < req.size(); r++) rootinfo[2 * r] = qrp[r], rootinfo[2 * r + 1] = qrp[r + 1] - qrp[r];
    PetscCallCXX(rootcol.resize(Preq.nnz));
    for (Int k = 0; k < Preq.nnz; k++) rootcol[k] = qci[k] < mc ? cstart + qci[k] : gP[qci[k] - mc];
  }
  PetscCallCXX(leafinfo.assign(2 * gA.size(), 0));
  PetscCall(PetscSFBcastBegin(W.sfrow, MPIU_2INT, rootinfo.data(), leafinfo.data(), MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(W.sfrow, MPIU_2INT, rootinfo.data(), leafinfo.data(), MPI_REPLACE));
  {
    std::vector<PetscSFNode> eremote;
    for (size_t r = 0; r < gA.size(); r++) nleafent += (Int)leafinfo[2 * r + 1];
    PetscCallCXX(eremote.resize(nleafent));
    for (size_t r = 0, q = 0; r < gA.size(); r++)
      for (PetscInt k = 0; k < leafinfo[2 * r + 1]; k++, q++) eremote[q].rank = rremote[r].rank, eremote[q].index = leafinfo[2 * r] + k;
    PetscCall(PetscSFCreate(comm, &W.sfent));
    PetscCall(PetscSFSetGraph(W.sfent, Preq.nnz, nleafent, NULL, PETSC_COPY_VALUES, eremote.data(), PETSC_COPY_VALUES));
    PetscCall(PetscSFSetUp(W.sfent));
  }
  PetscCallCXX(leafcol.assign(nleafent, 0));
  PetscCall(PetscSFBcastBegin(W.sfent, MPIU_INT, rootcol.data(), leafcol.data(), MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(W.sfent, MPIU_INT, rootcol.data(), leafcol.data(), MPI_REPLACE));

  /* 2. the compact coarse column space of this rank: its columns, then E = the ghost columns of P and of the ghost
        rows (ascending); P_ext = [P_local; P_ghost] in it, P_local = [Pd | Po] its leading rows, formed in one pass;
        AP = [Ad | Ao] P_ext, C = P_local^T AP */
  PetscCallCXX(E.assign(gP.begin(), gP.end()));
  for (PetscInt c : leafcol)
    if (c < cstart || c >= cend) PetscCallCXX(E.push_back(c));
  std::sort(E.begin(), E.end());
  E.erase(std::unique(E.begin(), E.end()), E.end());
  const Int nE   = (Int)E.size();
  auto      posE = [&](PetscInt g) { return (Int)(std::lower_bound(E.begin(), E.end(), g) - E.begin()); };
  {
    std::vector<Int> pmap(gP.size()), orp(gA.size() + 1, 0), oci(nleafent);
    View<Int>        dmap;
    CsrMatrix        Poth;
    for (size_t j = 0; j < gP.size(); j++) pmap[j] = posE(gP[j]);
    PetscCall(IntsToDevice(pmap, dmap, "ghost columns of P"));
    for (size_t r = 0; r < gA.size(); r++) orp[r + 1] = orp[r] + (Int)leafinfo[2 * r + 1];
    for (Int k = 0; k < nleafent; k++) oci[k] = leafcol[k] >= cstart && leafcol[k] < cend ? leafcol[k] - cstart : mc + posE(leafcol[k]);
    PetscCall(CsrFromHost((Int)gA.size(), mc + nE, orp, oci, nullptr, Poth)); /* the values: RapDistGhostValues, into P_ext */
    PetscCallCXX(ok = CsrConcatBlocks(Pd, Po, ucv(dmap), Poth, mc + nE, W.Pext));
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The blocks of P have different numbers of rows");
    W.Ploc = CsrLeadingRowsShared(W.Pext, mf, Pd.nnz + Po.nnz);
  }
  PetscCallCXX(W.dsend = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("ghost rows of P send")), W.reqsrc.extent(0)));
  PetscCallCXX(W.hrecv.assign(nleafent, 0.0));
  PetscCall(RapDistGhostValues(W));
  PetscCall(PetscLogEventEnd(PETSCKP_MGGalerkinGhostP, 0, 0, 0, 0));

  /* 3. R_ext = P_local^T (the rows of this rank's coarse points, then those of E), once for the product and for R:
        R's own rows are its leading rows, the rows of P's ghost columns are sent to their owners */
  PetscCall(PetscLogEventBegin(PETSCKP_MGGalerkinTranspose, 0, 0, 0, 0));
  PetscCallCXX(CsrTransposePerm(W.Ploc, W.Rext, W.rperm));
  if (R) {
    CsrMatrix        Rtop, Roff;
    std::vector<Int> rows(gP.size());
    View<Int>        drows, rsrc;
    MGDistRows       M;
    for (size_t j = 0; j < gP.size(); j++) rows[j] = mc + posE(gP[j]);
    PetscCall(IntsToDevice(rows, drows, "ghost columns of P in E"));
    PetscCall(CsrLeadingRows(W.Rext, mc, false, Rtop));
    PetscCallCXX(CsrExtractRows(W.Rext, ucv(drows), Roff, rsrc));
    PetscCall(MGDistRowsSetUp(comm, clay, flay, Rtop, std::vector<PetscInt>(), Roff, gP, M));
    PetscCall(DeviceMatCreateFromCsr(comm, M.D, M.O, (PetscInt)M.garray.size(), M.garray.data(), R));
    PetscCall(MGDistRowsReset(M));
  }
  PetscCallCXX(exec().fence());
  PetscCall(PetscLogEventEnd(PETSCKP_MGGalerkinTranspose, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(PETSCKP_MGGalerkinLocal, 0, 0, 0, 0));
  Ao.ncols = (Int)gA.size();
  PetscCallCXX(ok = GalerkinRapSymbolic(W.Rext, Ad, Ao, W.Pext, W.rap, W.Cx)); /* A P = [Ad | Ao] [P_local; P_ghost] */
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The sizes of R, A and P do not chain in the distributed Galerkin product (A %" PetscInt_FMT " x (%" PetscInt_FMT " + %" PetscInt_FMT "), P %" PetscInt_FMT " x %" PetscInt_FMT ")", Ad.nrows, Ad.ncols, Ao.ncols, W.Pext.nrows, W.Pext.ncols);

  /* 4. this rank's rows of C (the leading rows of C_ext: its values, its own copy of the columns that the merge
        renumbers) and the rows of its ghost coarse points, sent to their owners */
  {
    View<Int> io;
    PetscCall(CsrLeadingRows(W.Cx, mc, true, W.Top));
    PetscCall(IotaView(mc, mc + nE, io));
    PetscCallCXX(CsrExtractRows(W.Cx, ucv(io), W.Off, W.offsrc));
  }
  PetscCallCXX(exec().fence());
  PetscCall(PetscLogEventEnd(PETSCKP_MGGalerkinLocal, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(PETSCKP_MGGalerkinMerge, 0, 0, 0, 0));
  PetscCall(MGDistRowsSetUp(comm, clay, clay, W.Top, E, W.Off, E, W.merge));
  PetscCall(PetscLogEventEnd(PETSCKP_MGGalerkinMerge, 0, 0, 0, 0));
  PetscCall(PetscLayoutDestroy(&flay));
  PetscCall(PetscLayoutDestroy(&clay));
  W.active = true;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* new values of C (same patterns: new values of A, or of P, e.g. truncated); W.Top shares the values of W.Cx, W.Ploc
   those of W.Pext */
PetscErrorCode MGRapDistNumeric(PetscKPDeviceMat A, PetscKPDeviceMat P, MGRapDist &W)
{
  CsrMatrix Ao = DeviceMatGhostCsr(A), Po = DeviceMatGhostCsr(P);

  PetscFunctionBegin;
  if (!P->mpi) Po = CsrMatrix(), Po.nrows = P->m, Po.rowptr = View<Int>("empty rowptr", P->m + 1);
  if (!A->mpi) Ao = CsrMatrix(), Ao.nrows = A->m, Ao.rowptr = View<Int>("empty rowptr", A->m + 1);
  PetscCallCXX(CsrConcatColumnsNumeric(DeviceMatLocalCsr(P), Po, W.Ploc)); /* the leading rows of P_ext */
  PetscCall(RapDistGhostValues(W));                                          /* its ghost rows */
  PetscCallCXX(GatherValues(ucv(W.Ploc.vals), ucv(W.rperm), uv(W.Rext.vals)));
  PetscCallCXX(GalerkinRapNumeric(W.Rext, DeviceMatLocalCsr(A), Ao, W.Pext, W.rap, W.Cx));
  PetscCallCXX(GatherValues(ucv(W.Cx.vals), ucv(W.offsrc), uv(W.Off.vals)));
  PetscCall(MGDistRowsNumeric(W.merge, W.Top, W.Off));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MGGhostAggregation(MPI_Comm comm, PetscKPDeviceMat A, const Aggregation &agg, Aggregation &Pg, std::vector<PetscInt> &garray)
{
  const Int                mf = DeviceMatLocalCsr(A).nrows;
  std::vector<PetscInt>    gA, root, leaf;
  std::vector<Int>         req, hagg, pos;
  std::vector<PetscSFNode> remote;
  PetscLayout              flay = nullptr;
  PetscSF                  sf   = nullptr;
  PetscInt                 cstart = 0, nagg = agg.nagg;
  View<Int>                dpos, dreq, dagg;

  PetscFunctionBegin;
  PetscCheck(agg.n == mf, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The aggregation has %" PetscInt_FMT " fine rows, the operator %" PetscInt_FMT " local rows", agg.n, mf);
  PetscCall(DeviceMatGhosts(A, gA));
  PetscCallMPI(MPI_Exscan(&nagg, &cstart, 1, MPIU_INT, MPI_SUM, comm));
  {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (rank == 0) cstart = 0; /* MPI_Exscan leaves rank 0's result undefined */
  }
  /* the global coarse number of the aggregate (-1: none) of each local fine row that other ranks hold as a ghost
     column: gathered on the device for those rows only (WantedRows), O(ghost) to the host */
  PetscCall(PetscLayoutCreateFromSizes(comm, mf, PETSC_DECIDE, 1, &flay));
  PetscCall(WantedRows(comm, flay, gA, req, remote));
  PetscCall(IntsToDevice(req, dreq, "wanted rows of the aggregation"));
  PetscCallCXX(dagg = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("aggregates of the wanted rows")), req.size()));
  PetscCallCXX(GatherInts(ucv(agg.agg), ucv(dreq), uv(dagg)));
  PetscCallCXX(hagg.resize(req.size()));
  if (!req.empty()) PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Int>(hagg.data(), hagg.size()), dagg));
  PetscCallCXX(exec().fence());
  PetscCallCXX(root.resize(req.size()));
  for (size_t t = 0; t < req.size(); t++) root[t] = hagg[t] >= 0 ? cstart + hagg[t] : -1;
  PetscCallCXX(leaf.assign(gA.size(), -1));
  PetscCall(PetscSFCreate(comm, &sf));
  PetscCall(PetscSFSetGraph(sf, (PetscInt)req.size(), (PetscInt)gA.size(), NULL, PETSC_COPY_VALUES, remote.data(), PETSC_COPY_VALUES));
  PetscCall(PetscSFSetUp(sf));
  PetscCall(PetscSFBcastBegin(sf, MPIU_INT, root.data(), leaf.data(), MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, MPIU_INT, root.data(), leaf.data(), MPI_REPLACE));
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscLayoutDestroy(&flay));
  /* the ghost aggregates in ascending global order, and each ghost column's position among them */
  PetscCallCXX(garray.clear());
  for (PetscInt c : leaf)
    if (c >= 0) PetscCallCXX(garray.push_back(c));
  std::sort(garray.begin(), garray.end());
  garray.erase(std::unique(garray.begin(), garray.end()), garray.end());
  PetscCallCXX(pos.resize(leaf.size()));
  for (size_t k = 0; k < leaf.size(); k++) pos[k] = leaf[k] >= 0 ? (Int)(std::lower_bound(garray.begin(), garray.end(), leaf[k]) - garray.begin()) : -1;
  PetscCall(IntsToDevice(pos, dpos, "ghost aggregate of each ghost column"));
  {
    Int bad;
    PetscCallCXX(bad = AggregationCreate((Int)pos.size(), (Int)garray.size(), ucv(dpos), Pg));
    PetscCheck(bad == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The ghost aggregation has %" PetscInt_FMT " entries out of range", bad);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace petsckp
