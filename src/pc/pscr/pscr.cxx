/*
   pscr.cxx - PCPSCR: the radix-q PSCR fast direct solver for separable block tridiagonal operators
   (Yu. A. Kuznetsov and T. Rossi, East-West J. Numer. Math. 4, 1996; M. Myllykoski, T. Rossi and J. Toivanen,
   "On solving separable block tridiagonal linear systems using a GPU implementation of radix-4 PSCR method",
   J. Parallel Distrib. Comput. 115, 2018), with the kernels of pscr_kernels.

   Routines: PCSetUp_PSCR, PCApply_PSCR, PCReset_PSCR, PCDestroy_PSCR, PCSetFromOptions_PSCR, PCView_PSCR,
   PCCreate_PSCR, PCPSCRSetFactors/GetFactors, PCPSCRSetShift/GetShift, PCPSCRSetRadix/GetRadix.
*/
#include "petsckp_types.h" /*I "petsckp.h" I*/
#include "kp_sys.hpp"
#include "pscr_kernels.hpp"
#include "kp_segsort.hpp"
#include <petscdmda.h>
#include <string>
#include <vector>

struct PC_PSCR {
  PetscInt                   radix = 4;                       /* q */
  PetscScalar                shift = 0;                       /* c */
  PetscInt                   udim  = 0;                       /* number of user factor pairs (0: from the DMDA) */
  Mat                        uA[3] = {nullptr, nullptr, nullptr}, uM[3] = {nullptr, nullptr, nullptr};
  petsckp::pscr::Solver     *S     = nullptr;                 /* eigen data and device workspaces (rank 0) */
  petsckp::pscr::Boundary    B;                               /* rows outside the separable box (rank 0) */
  petsckp::View<PetscScalar> X;                               /* box work vector (rank 0) */
  PetscBool                  fromdm  = PETSC_FALSE;           /* factors detected from the DMDA's operator */
  PetscInt                   stencil = 0;                     /* detected: the points of the stencil (3/5/7 star, 9/27 box) */
  PetscBool                  boxstencil = PETSC_FALSE;        /* detected: a box stencil (tridiagonal mass factors) */
  PetscInt                   dim = 0, n[3] = {0, 0, 0};       /* factor sizes, slowest index first */
  PetscInt                   grid[3] = {1, 1, 1};             /* grid sizes (x, y, z) */
  PetscInt                   ndirichlet = 0, ncouplings = 0;  /* rows outside the box, couplings to them */
  PetscBool                  singular = PETSC_FALSE;          /* the smallest eigenvalues of all factors are known: A is singular for c = nullshift */
  PetscReal                  nullshift = 0, eigscale = 0;
  PetscScalar                gap_shift = PETSC_MAX_REAL;      /* the shift whose distance from singularity is gap (PETSC_MAX_REAL: none yet) */
  PetscReal                  gap       = 0;                   /* min |sum of eigenvalues of the factors' pencils + c| (-1: unknown) */
  PetscBool                  refine    = PETSC_FALSE;         /* an indefinite operator detected from the DMDA's matrix itself: one refinement step */
  Vec                        rres = nullptr, rcor = nullptr;  /* its residual and correction */
  PetscInt                   solves = 0, eig_solved = 0, eig_blocks = 0, levels[2] = {0, 0};
  size_t                     eig_bytes = 0;
  DM                         da      = nullptr;               /* the DMDA whose natural ordering the factors use (not referenced) */
  Vec                        seqin = nullptr, seqout = nullptr; /* the whole vector on rank 0 */
  VecScatter                 toz   = nullptr;               /* the gather to rank 0 (PETSc's order) */
  petsckp::pscr::GridLayout  layout;                          /* with a DMDA under MPI: the processes' boxes, for the natural order */
  PetscLogDouble             setup_time = 0;
};

/* the singularity test of the operator: c + (the sum of the smallest eigenvalues of the pencils (A_d, M_d)) within this
   fraction of the sum of the largest ones. The bisection gives the smallest eigenvalue of a singular pencil (pure
   Neumann ends) to a few units of rounding of the largest (about 4e-16 of it); a nonsingular operator on a strongly
   graded mesh has smallest eigenvalues of 1e-12 of the largest and more, which a looser test would refuse */
static const PetscReal PSCR_SINGULAR_RTOL = 1000 * PETSC_MACHINE_EPSILON;

/* the option prefix of the PC, for error messages that name an option */
static const char *OptionsPrefix(PC pc) { return ((PetscObject)pc)->prefix ? ((PetscObject)pc)->prefix : ""; }

static PetscErrorCode PCPSCRSetShift_PSCR(PC pc, PetscScalar c)
{
  PC_PSCR *ps = (PC_PSCR *)pc->data;

  PetscFunctionBegin;
  PetscCheck(!PetscIsInfOrNanScalar(c), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_pscr_shift must be a finite number, not %g", OptionsPrefix(pc), (double)PetscRealPart(c));
  ps->shift = c; /* the eigen data do not depend on c: no new setup */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSCRGetShift_PSCR(PC pc, PetscScalar *c)
{
  PetscFunctionBegin;
  *c = ((PC_PSCR *)pc->data)->shift;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSCRSetRadix_PSCR(PC pc, PetscInt q)
{
  PC_PSCR *ps = (PC_PSCR *)pc->data;

  PetscFunctionBegin;
  PetscCheck(q >= 2 && q <= petsckp::pscr::kMaxRadix, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_pscr_radix must be in [2, %" PetscInt_FMT "], not %" PetscInt_FMT, OptionsPrefix(pc), (PetscInt)petsckp::pscr::kMaxRadix, q);
  if (q != ps->radix && pc->setupcalled) pc->setupcalled = 0; /* new level sets: new eigen setup */
  ps->radix = q;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSCRGetRadix_PSCR(PC pc, PetscInt *q)
{
  PetscFunctionBegin;
  *q = ((PC_PSCR *)pc->data)->radix;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSCRSetFactors_PSCR(PC pc, Mat A1, Mat M1, Mat A2, Mat M2, Mat A3, Mat M3)
{
  PC_PSCR *ps = (PC_PSCR *)pc->data;
  Mat      A[3] = {A1, A2, A3}, M[3] = {M1, M2, M3};

  PetscFunctionBegin;
  for (int d = 0; d < 3; d++) {
    if (A[d]) PetscCall(PetscObjectReference((PetscObject)A[d]));
    if (M[d]) PetscCall(PetscObjectReference((PetscObject)M[d]));
    PetscCall(MatDestroy(&ps->uA[d]));
    PetscCall(MatDestroy(&ps->uM[d]));
    ps->uA[d] = A[d];
    ps->uM[d] = M[d];
  }
  ps->udim = A1 ? (A2 ? (A3 ? 3 : 2) : 1) : 0;
  PetscCheck(!(M1 && !A1) && !(M2 && !A2) && !(M3 && !A3) && !(A2 && !A1) && !(A3 && !A2), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "PCPSCRSetFactors(): give the pairs in order (A1, M1), (A2, M2), (A3, M3); a mass matrix needs its stiffness matrix");
  pc->setupcalled = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSCRGetFactors_PSCR(PC pc, Mat *A1, Mat *M1, Mat *A2, Mat *M2, Mat *A3, Mat *M3)
{
  PC_PSCR *ps = (PC_PSCR *)pc->data;

  PetscFunctionBegin;
  if (A1) *A1 = ps->uA[0];
  if (M1) *M1 = ps->uM[0];
  if (A2) *A2 = ps->uA[1];
  if (M2) *M2 = ps->uM[1];
  if (A3) *A3 = ps->uA[2];
  if (M3) *M3 = ps->uM[2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_PSCR(PC pc)
{
  PC_PSCR *ps = (PC_PSCR *)pc->data;

  PetscFunctionBegin;
  PetscCallCXX(delete ps->S);
  ps->S = nullptr;
  PetscCallCXX(ps->B = petsckp::pscr::Boundary());
  PetscCallCXX(ps->X = petsckp::View<PetscScalar>());
  PetscCall(VecDestroy(&ps->seqin));
  PetscCall(VecDestroy(&ps->seqout));
  PetscCall(VecScatterDestroy(&ps->toz));
  PetscCall(VecDestroy(&ps->rres));
  PetscCall(VecDestroy(&ps->rcor));
  PetscCallCXX(ps->layout = petsckp::pscr::GridLayout());
  ps->da = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a sequential symmetric tridiagonal Mat as a 1D factor; M = NULL: the identity */
static PetscErrorCode FactorFromMats(PC pc, PetscInt d, Mat A, Mat M, petsckp::pscr::Factor &F)
{
  PetscInt    m, nA, nM;
  PetscMPIInt size;
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);

  PetscFunctionBegin;
  for (int w = 0; w < 2; w++) {
    Mat X = w ? M : A;
    if (!X) continue;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)X), &size));
    PetscCheck(size == 1, comm, PETSC_ERR_ARG_WRONG, "PCPSCRSetFactors(): %s%" PetscInt_FMT " must be a sequential matrix (PETSC_COMM_SELF), the same on every rank", w ? "M" : "A", d + 1);
  }
  PetscCall(MatGetSize(A, &m, &nA));
  PetscCheck(m == nA && m > 0, comm, PETSC_ERR_ARG_SIZ, "PCPSCRSetFactors(): A%" PetscInt_FMT " must be square and nonempty, not %" PetscInt_FMT " x %" PetscInt_FMT, d + 1, m, nA);
  if (M) {
    PetscCall(MatGetSize(M, &nM, NULL));
    PetscCheck(nM == m, comm, PETSC_ERR_ARG_SIZ, "PCPSCRSetFactors(): M%" PetscInt_FMT " has %" PetscInt_FMT " rows, A%" PetscInt_FMT " %" PetscInt_FMT, d + 1, nM, d + 1, m);
  }
  PetscCallCXX(F = petsckp::pscr::Factor());
  PetscCallCXX(F.ad.assign(m, 0));
  PetscCallCXX(F.ao.assign(m - 1, 0));
  if (M) PetscCallCXX(F.md.assign(m, 0));
  std::vector<PetscReal> mo(m > 1 ? m - 1 : 0, 0), lower(m > 1 ? m - 1 : 0, 0), mlower(m > 1 ? m - 1 : 0, 0);
  for (int w = 0; w < 2; w++) {
    Mat X = w ? M : A;
    if (!X) continue;
    for (PetscInt i = 0; i < m; i++) {
      PetscInt           nc;
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscCall(MatGetRow(X, i, &nc, &cols, &vals));
      for (PetscInt t = 0; t < nc; t++) {
        const PetscInt  j = cols[t];
        const PetscReal v = PetscRealPart(vals[t]);
        if (PetscIsInfOrNanReal(v)) {
          PetscCall(MatRestoreRow(X, i, &nc, &cols, &vals));
          SETERRQ(comm, PETSC_ERR_FP, "PCPSCRSetFactors(): %s%" PetscInt_FMT " has a NaN or Inf entry (%" PetscInt_FMT ", %" PetscInt_FMT ")", w ? "M" : "A", d + 1, i, j);
        }
        if (v == 0) continue;
        if (j == i) (w ? F.md : F.ad)[i] = v;
        else if (j == i + 1) (w ? mo : F.ao)[i] = v;
        else if (j == i - 1) (w ? mlower : lower)[j] = v;
        else {
          PetscCall(MatRestoreRow(X, i, &nc, &cols, &vals));
          SETERRQ(comm, PETSC_ERR_ARG_WRONG, "PCPSCRSetFactors(): %s%" PetscInt_FMT " is not tridiagonal (entry (%" PetscInt_FMT ", %" PetscInt_FMT ")): PSCR needs symmetric tridiagonal 1D factors", w ? "M" : "A", d + 1, i, j);
        }
      }
      PetscCall(MatRestoreRow(X, i, &nc, &cols, &vals));
    }
  }
  for (PetscInt i = 0; i + 1 < m; i++) {
    PetscCheck(PetscAbsReal(F.ao[i] - lower[i]) <= 1e-12 * (PetscAbsReal(F.ao[i]) + PetscAbsReal(F.ad[i])), comm, PETSC_ERR_ARG_WRONG, "PCPSCRSetFactors(): A%" PetscInt_FMT " is not symmetric (entries (%" PetscInt_FMT ", %" PetscInt_FMT ") and (%" PetscInt_FMT ", %" PetscInt_FMT ") differ)", d + 1, i, i + 1, i + 1, i);
    PetscCheck(PetscAbsReal(mo[i] - mlower[i]) <= 1e-12 * (PetscAbsReal(mo[i]) + (M ? PetscAbsReal(F.md[i]) : 1)), comm, PETSC_ERR_ARG_WRONG, "PCPSCRSetFactors(): M%" PetscInt_FMT " is not symmetric (entries (%" PetscInt_FMT ", %" PetscInt_FMT ") and (%" PetscInt_FMT ", %" PetscInt_FMT ") differ)", d + 1, i, i + 1, i + 1, i);
  }
  bool tri = false;
  for (PetscReal v : mo) tri = tri || v != 0;
  if (tri) PetscCallCXX(F.mo = mo);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* where the rows of the operator A are (pscr::GridLayout): the matrix's ownership ranges and the DMDA's process boxes
   (x fastest in the process grid); an error unless every process owns the rows of its points of the DMDA */
static PetscErrorCode DMDAGridLayout(DM da, Mat A, petsckp::pscr::GridLayout &L)
{
  using namespace petsckp;
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);
  PetscMPIInt     size;
  PetscInt        dim, M, N, P, m, n, p;
  const PetscInt *ranges, *lx, *ly, *lz;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, &m, &n, &p, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(MatGetOwnershipRanges(A, &ranges));
  PetscCall(DMDAGetOwnershipRanges(da, &lx, &ly, &lz));
  {
    std::vector<Int> hbox((size_t)6 * size), hstart(size + 1);
    const PetscInt   one = 1;
    const PetscInt  *l[3] = {lx, ly ? ly : &one, lz ? lz : &one};
    const PetscInt   pg[3] = {m, dim > 1 ? n : 1, dim > 2 ? p : 1};
    PetscCheck(pg[0] * pg[1] * pg[2] == size, comm, PETSC_ERR_PLIB, "PCPSCR: the DMDA's process grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " does not have %d processes", pg[0], pg[1], pg[2], (int)size);
    for (PetscMPIInt q = 0; q < size; q++) {
      const PetscInt c[3] = {q % pg[0], (q / pg[0]) % pg[1], q / (pg[0] * pg[1])};
      PetscInt       cnt  = 1;
      for (int d = 0; d < 3; d++) {
        PetscInt s0 = 0;
        for (PetscInt t = 0; t < c[d]; t++) s0 += l[d][t];
        hbox[(size_t)6 * q + d]     = s0;
        hbox[(size_t)6 * q + 3 + d] = l[d][c[d]];
        cnt *= l[d][c[d]];
      }
      PetscCheck(cnt == ranges[q + 1] - ranges[q], comm, PETSC_ERR_ARG_INCOMP, "PCPSCR: rank %d owns %" PetscInt_FMT " rows of the operator but %" PetscInt_FMT " points of the DMDA: the rows are not distributed over the processes like the points of the DMDA that gives their ordering (create the matrix with DMCreateMatrix(), or give the factors with PCPSCRSetFactors() and no DMDA, in the global numbering of the matrix)", (int)q, ranges[q + 1] - ranges[q], cnt);
      hstart[q] = ranges[q];
    }
    hstart[size] = ranges[size];
    L.gn[0] = M, L.gn[1] = N, L.gn[2] = P, L.np = size;
    PetscCallCXX(L.start = View<Int>("pscr layout start", (size_t)size + 1));
    PetscCallCXX(L.box = View<Int>("pscr layout box", (size_t)6 * size));
    PetscCallCXX(Kokkos::deep_copy(exec(), L.start, HostUView<const Int>(hstart.data(), hstart.size())));
    PetscCallCXX(Kokkos::deep_copy(exec(), L.box, HostUView<const Int>(hbox.data(), hbox.size())));
    PetscCallCXX(exec().fence());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The factors of a DMDA operator: every row is either diagonal-only (a Dirichlet row kept in the matrix, as PETSc's
   KSP ex45 writes them) or one of a box of coupled points whose operator is separable:
   - a 3/5/7-point star: A_z (x) I (x) I + I (x) A_y (x) I + I (x) I (x) A_x with couplings that depend only on their
     own coordinate (e.g. constant) and a diagonal that is a sum of one function per coordinate, checked against the
     lines of the box through its first point;
   - otherwise a 9/27-point box (e.g. Q1 finite elements): A_z (x) M_y (x) M_x + M_z (x) A_y (x) M_x + M_z (x) M_y (x)
     A_x with tridiagonal factors recovered from the two stencils of each line through the first point and that
     point's coefficients (pscr_kernels' SeparableFromLines), every row checked against them.
   Every rank reads its rows into stencil coefficients on the device (pscr_kernels' StencilCoefficients, from the
   device copy of the matrix) and checks them; only the lines (O(n) values), the counts and the rows outside the box
   travel between the ranks. Rank 0, which solves, gets F (slowest axis first) and B; errors are raised on every rank
   and name the first offending point in natural order. */
static PetscErrorCode FactorsFromDMDA(PC pc, DM da, std::vector<petsckp::pscr::Factor> &F, petsckp::pscr::Boundary &B, PetscInt *ndir, PetscInt *ncpl)
{
  using namespace petsckp;
  PC_PSCR          *ps   = (PC_PSCR *)pc->data;
  MPI_Comm          comm = PetscObjectComm((PetscObject)pc);
  PetscInt          dim, M, N, P, m, n, p, dof, xs, ys, zs, xm, ym, zm, rstart, rend, nloc;
  DMBoundaryType    bx, by, bz;
  DMDAStencilType   dast;
  PetscMPIInt       rank, size;
  Mat               A = pc->pmat;
  PetscKPDeviceMat  dmat = nullptr;
  pscr::GridLayout  L;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, &m, &n, &p, &dof, NULL, &bx, &by, &bz, &dast));
  PetscCheck(dof == 1, comm, PETSC_ERR_SUP, "PCPSCR: the DMDA has %" PetscInt_FMT " degrees of freedom per point; the factors can be detected only for one (give them with PCPSCRSetFactors())", dof);
  PetscCheck(bx != DM_BOUNDARY_PERIODIC && by != DM_BOUNDARY_PERIODIC && bz != DM_BOUNDARY_PERIODIC, comm, PETSC_ERR_SUP, "PCPSCR: periodic DMDA boundaries give cyclic (not tridiagonal) factors, which PSCR does not support");
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  nloc = rend - rstart;
  PetscCheck(nloc == xm * ym * zm, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PCPSCR: the operator has %" PetscInt_FMT " local rows but the DMDA %" PetscInt_FMT " points on this rank: the operator is not the DMDA's", nloc, xm * ym * zm);
  ps->grid[0] = M, ps->grid[1] = N, ps->grid[2] = P;

  PetscCall(DMDAGridLayout(da, A, L));

  /* the coefficients of the local rows, from the device copy of the operator: a star stencil, else a box stencil */
  View<Real>    s;
  pscr::Stencil st = pscr::Stencil::Star();
  {
    View<Int> ghost;
    PetscCall(PetscKPDeviceMatCreate(A, PETSCKP_FORMAT_CSR, &dmat));
    const CsrMatrix &Ad = DeviceMatLocalCsr(dmat), &Ao = DeviceMatGhostCsr(dmat);
    if (Ao.nrows > 0 && dmat->ghostis) {
      const PetscInt *gi;
      PetscInt        ng;
      PetscCall(ISGetLocalSize(dmat->ghostis, &ng));
      PetscCall(ISGetIndices(dmat->ghostis, &gi));
      PetscCallCXX(ghost = View<Int>("pscr ghost columns", (size_t)ng));
      PetscCallCXX(Kokkos::deep_copy(exec(), ghost, HostUView<const Int>(gi, (size_t)ng)));
      PetscCallCXX(exec().fence());
      PetscCall(ISRestoreIndices(dmat->ghostis, &gi));
    }
    for (int pass = 0; pass < 2; pass++) {
      Int     bad[2];
      int64_t key[2], gkey[2];
      if (pass) PetscCallCXX(st = pscr::Stencil::Box(L.gn));
      PetscCallCXX(s = View<Real>()); /* free the star coefficients first */
      PetscCallCXX(s = View<Real>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("pscr stencil coefficients")), (size_t)st.w * nloc));
      PetscCallCXX(key[0] = pscr::StencilCoefficients(L, rank, st, Ad, Ao, ucv(ghost), uv(s), bad));
      key[1] = key[0] ? (int64_t)bad[0] * (M * N * P) + bad[1] : INT64_MAX;
      key[0] = -key[0]; /* any process with a bad row */
      PetscCallMPI(MPI_Allreduce(key, gkey, 2, MPI_INT64_T, MPI_MIN, comm));
      if (!gkey[0]) break;
      if (!pass && dim > 1) continue; /* not a star: a box? */
      PetscCall(PetscKPDeviceMatDestroy(&dmat));
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "PCPSCR: the operator is neither a 3/5/7-point star nor a 9/27-point box stencil (row %" PetscInt_FMT " couples to point %" PetscInt_FMT ", natural numbering), so its separable factors cannot be detected: give them with PCPSCRSetFactors()", (PetscInt)(gkey[1] / (M * N * P)), (PetscInt)(gkey[1] % (M * N * P)));
    }
    PetscCall(PetscKPDeviceMatDestroy(&dmat));
  }
  ps->stencil    = st.box ? st.w : 2 * dim + 1;
  ps->boxstencil = st.box ? PETSC_TRUE : PETSC_FALSE;

  /* the box of the coupled rows */
  PetscInt  lo[3], hi[3], bn[3];
  PetscReal amax;
  {
    Int l[3], h[3];
    Real a;
    PetscCallCXX(pscr::CoupledBox(L, rank, st, ucv(s), l, h, a));
    for (int d = 0; d < 3; d++) lo[d] = l[d], hi[d] = h[d];
    amax = a;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, lo, 3, MPIU_INT, MPI_MIN, comm));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, hi, 3, MPIU_INT, MPI_MAX, comm));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &amax, 1, MPIU_REAL, MPIU_MAX, comm));
  }
  if (hi[0] < 0) { /* no coupling at all: a diagonal matrix; PSCR of a 1 x 1 x 1 box at the first point */
    for (int d = 0; d < 3; d++) lo[d] = hi[d] = 0;
  }
  for (int d = 0; d < 3; d++) bn[d] = hi[d] - lo[d] + 1;
  const Int l3[3] = {lo[0], lo[1], lo[2]}, h3[3] = {hi[0], hi[1], hi[2]}, b3[3] = {bn[0], bn[1], bn[2]};

  /* the first violation of the separability check (key 16 g + c for the star, 32 g + c for the box), or INT64_MAX:
     the messages of the checks both stencils share */
  auto CommonViolation = [&](int64_t first, int64_t mult, char *msg, size_t len) -> PetscErrorCode {
    const PetscInt g = (PetscInt)(first / mult), code = (PetscInt)(first % mult);
    const PetscInt i = g % M, j = (g / M) % N, k = g / (M * N);
    PetscFunctionBegin;
    if (code == 0) PetscCall(PetscSNPrintf(msg, len, "PCPSCR: the diagonal-only row of point (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ") is zero: the operator is singular", i, j, k));
    else if (code == 1) PetscCall(PetscSNPrintf(msg, len, "PCPSCR: point (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ") has a diagonal-only row inside the box of coupled points (%" PetscInt_FMT "..%" PetscInt_FMT ", %" PetscInt_FMT "..%" PetscInt_FMT ", %" PetscInt_FMT "..%" PetscInt_FMT "): the operator is not separable", i, j, k, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]));
    PetscFunctionReturn(PETSC_SUCCESS);
  };
  /* the smallest violation key of a check over the processes (INT64_MAX when there is none) */
  auto FirstViolation = [&](const pscr::SeparableCount &c, int64_t *first) -> PetscErrorCode {
    PetscFunctionBegin;
    *first = c.nviol ? c.first : INT64_MAX;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, first, 1, MPI_INT64_T, MPI_MIN, comm));
    PetscFunctionReturn(PETSC_SUCCESS);
  };

  pscr::SeparableCount   cnt;
  std::vector<PetscReal> lines;
  pscr::Factor           Fx[3]; /* box: the factors of x, y, z */
  PetscInt               oay = 0, oaz = 0, odx = 0, ody = 0, odz = 0;
  if (!st.box) {
    /* star: the lines through the box's first point */
    oay = bn[0] - 1, oaz = oay + bn[1] - 1, odx = oaz + bn[2] - 1, ody = odx + bn[0], odz = ody + bn[1];
    const PetscInt nlines = odz + bn[2];
    PetscCallCXX(lines.assign(nlines, 0));
    View<Real> dlines("pscr box lines", (size_t)nlines);
    PetscCallCXX(pscr::BoxLines(L, rank, ucv(s), l3, b3, uv(dlines)));
    PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Real>(lines.data(), (size_t)nlines), dlines));
    PetscCallCXX(exec().fence());
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, lines.data(), (PetscMPIInt)nlines, MPIU_REAL, MPIU_SUM, comm));
    PetscCallCXX(Kokkos::deep_copy(exec(), dlines, HostUView<const Real>(lines.data(), (size_t)nlines)));

    /* the check of every row against the lines */
    int64_t first;
    PetscCallCXX(cnt = pscr::CheckSeparable(L, rank, ucv(s), l3, h3, ucv(dlines), 1e-10 * amax));
    PetscCall(FirstViolation(cnt, &first));
    if (first != INT64_MAX) {
      const PetscInt g = (PetscInt)(first / 16), code = (PetscInt)(first % 16);
      const PetscInt i = g % M, j = (g / M) % N, k = g / (M * N);
      char           msg[512];
      if (code < 2) PetscCall(CommonViolation(first, 16, msg, sizeof(msg)));
      else if (code < 8) {
        const int      d = (int)(code - 2) / 2, sgn = (int)(code - 2) % 2;
        const char     axis[3] = {'x', 'y', 'z'};
        const PetscInt c0[3] = {i, j, k}, oa[3] = {0, oay, oaz};
        PetscInt       nb[3] = {i, j, k};
        nb[d] += sgn ? 1 : -1;
        const PetscInt gnb = (nb[2] * N + nb[1]) * M + nb[0];
        PetscReal      v[2];
        PetscCallCXX(v[0] = pscr::StarCoefficientAt(L, rank, ucv(s), g, 1 + 2 * d + sgn));
        PetscCallCXX(v[1] = pscr::StarCoefficientAt(L, rank, ucv(s), gnb, 1 + 2 * d + (sgn ? 0 : 1)));
        PetscCall(MPIU_Allreduce(MPI_IN_PLACE, v, 2, MPIU_REAL, MPIU_SUM, comm));
        const PetscReal ref = lines[oa[d] + c0[d] - lo[d] - (sgn ? 0 : 1)];
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "PCPSCR: the operator is not separable: the %c-coupling of points (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ") and (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ") is %g (transpose %g), but %g on the first line of the box; PCPSCR detects only couplings that depend on their own coordinate (e.g. constant coefficients): give the factors of a separable approximation with PCPSCRSetFactors() to use it as a preconditioner", axis[d], i, j, k, nb[0], nb[1], nb[2], (double)v[0], (double)v[1], (double)ref));
      } else {
        PetscReal v;
        PetscCallCXX(v = pscr::StarCoefficientAt(L, rank, ucv(s), g, 0));
        PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &v, 1, MPIU_REAL, MPIU_SUM, comm));
        const PetscReal d0 = lines[odx], dsep = lines[odx + i - lo[0]] - d0 + lines[ody + j - lo[1]] - d0 + lines[odz + k - lo[2]];
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "PCPSCR: the operator is not separable: the diagonal at point (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ") is %g, not the sum of its x, y and z parts %g (a variable coefficient?); give the factors of a separable approximation with PCPSCRSetFactors() to use it as a preconditioner", i, j, k, (double)v, (double)dsep));
      }
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "%s", msg);
    }
  } else {
    /* box: the stencils of the lines through the box's first point give the factors (every rank the same) */
    const PetscInt nlines = pscr::BoxLinesLength(b3);
    std::string    err;
    bool           definite = true;
    PetscCallCXX(lines.assign(nlines, 0));
    View<Real> dlines("pscr box lines", (size_t)nlines);
    PetscCallCXX(pscr::StencilLines(L, rank, st, ucv(s), l3, b3, uv(dlines)));
    PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Real>(lines.data(), (size_t)nlines), dlines));
    PetscCallCXX(exec().fence());
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, lines.data(), (PetscMPIInt)nlines, MPIU_REAL, MPIU_SUM, comm));
    PetscLogDouble tr0, tr1;
    PetscCall(PetscTime(&tr0));
    PetscCallCXX(err = pscr::SeparableFromLines(b3, lines, Fx, &definite));
    PetscCall(PetscTime(&tr1));
    PetscCall(PetscInfo(pc, "box stencil: factors recovered from the lines in %g s\n", (double)(tr1 - tr0)));
    PetscCheck(err.empty(), comm, PETSC_ERR_ARG_WRONG, "PCPSCR: the operator is a %" PetscInt_FMT "-point box stencil, but %s: give the factors of a separable approximation with PCPSCRSetFactors()", ps->stencil, err.c_str());
    std::vector<PetscReal> hfac;
    PetscCallCXX(hfac = pscr::PackFactors(b3, Fx));
    View<Real> fac("pscr box factors", hfac.size());
    PetscCallCXX(Kokkos::deep_copy(exec(), fac, HostUView<const Real>(hfac.data(), hfac.size())));

    /* the check of every row against the separable operator of these factors */
    int64_t first;
    PetscCallCXX(cnt = pscr::CheckSeparableBox(L, rank, st, ucv(s), l3, h3, ucv(fac), 1e-10 * amax));
    PetscCall(FirstViolation(cnt, &first));
    if (first != INT64_MAX) {
      const PetscInt g = (PetscInt)(first / 32), code = (PetscInt)(first % 32);
      const PetscInt i = g % M, j = (g / M) % N, k = g / (M * N);
      char           msg[1024];
      if (code < 2) PetscCall(CommonViolation(first, 32, msg, sizeof(msg)));
      else {
        Int       o[3];
        PetscReal v;
        st.Offset((int)(code - 2), o);
        const Int b[3] = {i - lo[0], j - lo[1], k - lo[2]};
        PetscCallCXX(v = pscr::CoefficientAt(L, rank, st, ucv(s), g, (int)(code - 2)));
        PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &v, 1, MPIU_REAL, MPIU_SUM, comm));
        const PetscReal ref = pscr::SeparableCoefficient(b3, hfac, b, o);
        char            what[160];
        if (!o[0] && !o[1] && !o[2]) PetscCall(PetscSNPrintf(what, sizeof(what), "the diagonal at point (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ")", i, j, k));
        else PetscCall(PetscSNPrintf(what, sizeof(what), "the coefficient of row (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ") to point (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ")", i, j, k, i + (PetscInt)o[0], j + (PetscInt)o[1], k + (PetscInt)o[2]));
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "PCPSCR: the operator is not separable: %s is %g, but %g in the separable operator %s with tridiagonal factors that the %" PetscInt_FMT "-point stencils of the lines through the first point of the box give (a variable coefficient?); give the factors of a separable approximation with PCPSCRSetFactors() to use it as a preconditioner", what, (double)v, (double)ref, dim > 2 ? "A_z (x) M_y (x) M_x + M_z (x) A_y (x) M_x + M_z (x) M_y (x) A_x" : "A_y (x) M_x + M_y (x) A_x", ps->stencil));
      }
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "%s", msg);
    }
    {
      PetscReal def = cnt.defect;
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &def, 1, MPIU_REAL, MPIU_MAX, comm));
      PetscCall(PetscInfo(pc, "%" PetscInt_FMT "-point box stencil: largest difference of a coefficient from the separable factors %g (relative to the largest coefficient %g)\n", ps->stencil, (double)def, (double)(amax > 0 ? def / amax : 0)));
    }
    PetscCheck(definite, comm, PETSC_ERR_ARG_WRONG, "PCPSCR: the %" PetscInt_FMT "-point box operator is separable, but none of its decompositions has positive definite 1D mass factors M_d, which the eigen setup of PSCR needs (the operator is not positive definite?): give the factors with PCPSCRSetFactors()", ps->stencil);
  }
  {
    PetscInt c[2] = {cnt.nout, cnt.ncpl};
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, c, 2, MPIU_INT, MPI_SUM, comm));
    *ndir = c[0], *ncpl = c[1];
  }

  /* the rows outside the box and the couplings to them, gathered on rank 0 */
  View<Int>  didx("pscr didx", (size_t)cnt.nout), crow("pscr crow", (size_t)cnt.ncpl), ccol("pscr ccol", (size_t)cnt.ncpl);
  View<Real> dval("pscr dval", (size_t)cnt.nout), cval("pscr cval", (size_t)cnt.ncpl);
  PetscCallCXX(pscr::OutsideLists(L, rank, st, ucv(s), l3, h3, uv(didx), uv(dval), uv(crow), uv(ccol), uv(cval)));
  if (size > 1) {
    auto gather = [&](auto &v, auto mpitype, PetscInt total) -> PetscErrorCode {
      using T = typename std::decay_t<decltype(v)>::non_const_value_type;
      std::vector<T>           mine(v.extent(0)), all(rank == 0 ? total : 0);
      std::vector<PetscMPIInt> counts(size), displs(size);
      PetscMPIInt              cm;
      PetscFunctionBegin;
      PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<T>(mine.data(), mine.size()), v));
      PetscCallCXX(exec().fence());
      PetscCall(PetscMPIIntCast((PetscInt)mine.size(), &cm));
      PetscCallMPI(MPI_Gather(&cm, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
      for (PetscMPIInt q = 1; q < size; q++) displs[q] = displs[q - 1] + counts[q - 1];
      PetscCallMPI(MPI_Gatherv(mine.data(), cm, mpitype, all.data(), counts.data(), displs.data(), mpitype, 0, comm));
      PetscCallCXX(v = std::decay_t<decltype(v)>(v.label(), all.size()));
      if (!all.empty()) PetscCallCXX(Kokkos::deep_copy(exec(), v, HostUView<const T>(all.data(), all.size())));
      PetscFunctionReturn(PETSC_SUCCESS);
    };
    PetscCall(gather(didx, MPIU_INT, *ndir));
    PetscCall(gather(dval, MPIU_REAL, *ndir));
    PetscCall(gather(crow, MPIU_INT, *ncpl));
    PetscCall(gather(ccol, MPIU_INT, *ncpl));
    PetscCall(gather(cval, MPIU_REAL, *ncpl));
    PetscCallCXX(exec().fence());
  }
  if (rank == 0 && st.box) {
    F.clear();
    if (dim >= 3) F.push_back(Fx[2]);
    if (dim >= 2) F.push_back(Fx[1]);
    F.push_back(Fx[0]);
  } else if (rank == 0) {
    /* factors, slowest axis first; the constant part of the diagonal sits in the z line and moves to the slowest
       factor that is kept */
    const PetscReal        d0 = lines[odx];
    std::vector<PetscReal> ax(lines.begin(), lines.begin() + oay), ay(lines.begin() + oay, lines.begin() + oaz), az(lines.begin() + oaz, lines.begin() + odx);
    std::vector<PetscReal> bxd(lines.begin() + odx, lines.begin() + ody), byd(lines.begin() + ody, lines.begin() + odz), bzd(lines.begin() + odz, lines.end());
    for (auto &v : bxd) v -= d0;
    for (auto &v : byd) v -= d0;
    auto make = [](const std::vector<PetscReal> &diag, const std::vector<PetscReal> &off) {
      pscr::Factor f;
      f.ad = diag;
      f.ao = off;
      return f;
    };
    if (dim == 2)
      for (auto &v : byd) v += bzd[0];
    if (dim == 1)
      for (auto &v : bxd) v += byd[0] + bzd[0];
    F.clear();
    if (dim >= 3) F.push_back(make(bzd, az));
    if (dim >= 2) F.push_back(make(byd, ay));
    F.push_back(make(bxd, ax));
  }
  if (rank == 0) {
    B          = pscr::Boundary();
    B.nbox     = bn[0] * bn[1] * bn[2];
    B.identity = *ndir == 0 && *ncpl == 0;
    for (int d = 0; d < 3; d++) B.lo[d] = lo[d], B.bn[d] = bn[d];
    B.gn[0] = M, B.gn[1] = N, B.gn[2] = P;
    B.didx = didx, B.dval = dval, B.crow = crow, B.ccol = ccol, B.cval = cval;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_PSCR(PC pc)
{
  PC_PSCR                           *ps   = (PC_PSCR *)pc->data;
  MPI_Comm                           comm = PetscObjectComm((PetscObject)pc);
  PetscMPIInt                        rank, size;
  std::vector<petsckp::pscr::Factor> F;
  PetscBool                          isda = PETSC_FALSE;
  PetscInt                           N, Nf = 1;
  PetscLogDouble                     t0, t1;
  char                               msg[512] = "";
  PetscInt                           err      = 0;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(PetscLogEventBegin(PC_PSCR_SetUp, pc, 0, 0, 0));
  PetscCall(PCReset_PSCR(pc));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MatGetSize(pc->pmat, &N, NULL));
  {
    /* the factors are read from some rows of the operator only (and the user's factors need not be it): a NaN or
       Inf anywhere in it is an error, not a solve of another operator */
    PetscReal an, ai = 0; /* the Frobenius norm: a sum, through which a NaN passes (a maximum may drop it) */
    PetscCall(MatNorm(pc->pmat, NORM_FROBENIUS, &an));
    /* its squares overflow for finite entries from about 1e154: then the largest row sum tells Inf entries apart */
    if (PetscIsInfReal(an)) PetscCall(MatNorm(pc->pmat, NORM_INFINITY, &ai));
    PetscCheck(!PetscIsNanReal(an) && !PetscIsInfOrNanReal(ai), comm, PETSC_ERR_FP, "PCPSCR: the operator has NaN or Inf entries (its Frobenius norm is %g); fix the matrix", (double)an);
  }
  if (pc->dm) PetscCall(PetscObjectTypeCompare((PetscObject)pc->dm, DMDA, &isda));
  ps->ndirichlet = ps->ncouplings = 0;
  if (ps->udim) {
    PetscCallCXX(F.resize(ps->udim));
    for (PetscInt d = 0; d < ps->udim; d++) {
      PetscCall(FactorFromMats(pc, d, ps->uA[d], ps->uM[d], F[d]));
      Nf *= F[d].n();
    }
    PetscCheck(Nf == N, comm, PETSC_ERR_ARG_SIZ, "PCPSCR: the factors give an operator of size %" PetscInt_FMT ", the matrix has %" PetscInt_FMT " rows", Nf, N);
    ps->fromdm = PETSC_FALSE;
    PetscCallCXX(ps->B = petsckp::pscr::Boundary());
    ps->B.nbox = N;
    /* a DMDA of the same sizes (x = the last factor) gives the ordering; otherwise the rows are in natural order */
    if (isda) {
      PetscInt dim, M, Nn, P;
      PetscCall(DMDAGetInfo(pc->dm, &dim, &M, &Nn, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
      const PetscInt g[3] = {M, Nn, P};
      PetscBool      same = dim == ps->udim ? PETSC_TRUE : PETSC_FALSE;
      for (PetscInt d = 0; d < ps->udim && same; d++)
        if (F[ps->udim - 1 - d].n() != g[d]) same = PETSC_FALSE;
      if (same) ps->da = pc->dm;
    }
  } else {
    PetscCheck(isda, comm, PETSC_ERR_ARG_WRONG, "PCPSCR needs the factors of the separable operator: give them with PCPSCRSetFactors(), or give the KSP (KSPSetDM()) or the PC (PCSetDM()) the DMDA of a 3/5/7-point star or 9/27-point box (Q1) operator with constant (or per-coordinate) coefficients, whose factors are then detected");
    PetscLogDouble td0, td1;
    PetscCall(PetscTime(&td0));
    PetscCall(FactorsFromDMDA(pc, pc->dm, F, ps->B, &ps->ndirichlet, &ps->ncouplings));
    PetscCall(PetscTime(&td1));
    PetscCall(PetscInfo(pc, "factors detected from the DMDA operator in %g s\n", (double)(td1 - td0)));
    ps->fromdm = PETSC_TRUE;
    ps->da     = pc->dm;
  }
  /* the eigen setup on rank 0, which holds the whole problem */
  if (rank == 0) {
    PetscCallCXX(ps->S = new petsckp::pscr::Solver());
    std::string e;
    PetscLogDouble te0, te1;
    PetscCall(PetscTime(&te0));
    PetscCallCXX(e = petsckp::pscr::Setup(F, ps->radix, *ps->S));
    PetscCall(PetscTime(&te1));
    PetscCall(PetscInfo(pc, "eigen setup in %g s\n", (double)(te1 - te0)));
    if (!e.empty()) {
      err = 1;
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "PCPSCR: the factors cannot be used: %s", e.c_str()));
    } else {
      ps->dim = ps->S->dim;
      for (PetscInt d = 0; d < 3; d++) ps->n[d] = d < ps->dim ? ps->S->n[d] : 0;
      ps->singular   = ps->S->have_min ? PETSC_TRUE : PETSC_FALSE;
      ps->nullshift  = -ps->S->min_sum;
      ps->eigscale   = ps->S->eig_scale;
      ps->solves     = ps->S->solves;
      ps->eig_solved = ps->S->plan[0].eig_solved + ps->S->plan[1].eig_solved;
      ps->eig_blocks = ps->S->plan[0].eig_blocks + ps->S->plan[1].eig_blocks;
      ps->eig_bytes  = ps->S->plan[0].bytes + ps->S->plan[1].bytes;
      for (int d = 0; d < 2; d++) ps->levels[d] = ps->S->plan[d].k;
    }
  }
  PetscCallMPI(MPI_Bcast(&err, 1, MPIU_INT, 0, comm));
  if (err) {
    PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, comm));
    SETERRQ(comm, PETSC_ERR_ARG_WRONG, "%s", msg);
  }
  {
    PetscInt info[10] = {ps->dim, ps->n[0], ps->n[1], ps->n[2], ps->singular, ps->solves, ps->eig_solved, ps->eig_blocks, ps->levels[0], ps->levels[1]};
    PetscCallMPI(MPI_Bcast(info, 10, MPIU_INT, 0, comm));
    ps->dim = info[0], ps->n[0] = info[1], ps->n[1] = info[2], ps->n[2] = info[3], ps->singular = (PetscBool)info[4];
    ps->solves = info[5], ps->eig_solved = info[6], ps->eig_blocks = info[7], ps->levels[0] = info[8], ps->levels[1] = info[9];
    PetscReal r[2] = {ps->nullshift, ps->eigscale};
    PetscCallMPI(MPI_Bcast(r, 2, MPIU_REAL, 0, comm));
    ps->nullshift = r[0], ps->eigscale = r[1];
  }
  ps->gap_shift = PETSC_MAX_REAL;
  /* the whole vector on rank 0: PETSc's gather (one MPI_Gatherv of the processes' blocks, no index lists), then with a
     DMDA the natural order by a permutation on rank 0's device (PetscToNatural; the processes' boxes are the layout).
     On GPUs without GPU-aware MPI the vector passes through the hosts once each way. */
  if (size > 1) {
    Vec x;
    PetscCall(MatCreateVecs(pc->pmat, &x, NULL));
    PetscCall(VecScatterCreateToZero(x, &ps->toz, &ps->seqin));
    PetscCall(VecDuplicate(ps->seqin, &ps->seqout));
    PetscCall(VecDestroy(&x));
    if (ps->da) PetscCall(DMDAGridLayout(ps->da, pc->pmat, ps->layout));
  }
  PetscCall(PetscLogEventEnd(PC_PSCR_SetUp, pc, 0, 0, 0));
  PetscCall(PetscTime(&t1));
  ps->setup_time = t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A^-1 x by PSCR: gathered to rank 0 under MPI (and to the natural order with a DMDA), solved there */
static PetscErrorCode PSCRSolve(PC pc, Vec x, Vec y)
{
  PC_PSCR    *ps   = (PC_PSCR *)pc->data;
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);
  PetscMPIInt rank, size;
  PetscInt    nf   = 0;
  Vec         in = x, out = y;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size > 1) {
    PetscCall(VecScatterBegin(ps->toz, x, ps->seqin, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(ps->toz, x, ps->seqin, INSERT_VALUES, SCATTER_FORWARD));
    in  = ps->seqin;
    out = ps->seqout;
  }
  if (rank == 0 && size > 1 && ps->da) {
    /* the gathered vector is in PETSc's order: to the natural order in seqout, solved into seqin, and back */
    petsckp::DeviceVec av, bv;
    PetscCall(av.Get(in, petsckp::Access::ReadWrite));
    PetscCall(bv.Get(out, petsckp::Access::ReadWrite));
    PetscCallCXX(petsckp::pscr::PetscToNatural(ps->layout, av.cview(), bv.view()));
    PetscCallCXX(nf = petsckp::pscr::ApplyBoundary(*ps->S, ps->B, ps->shift, bv.cview(), av.view(), ps->X));
    PetscCallCXX(petsckp::pscr::NaturalToPetsc(ps->layout, av.cview(), bv.view()));
    PetscCall(bv.Restore());
    PetscCall(av.Restore());
  } else if (rank == 0) {
    petsckp::DeviceVec xv, yv;
    PetscCall(xv.Get(in, petsckp::Access::Read));
    PetscCall(yv.Get(out, petsckp::Access::Write));
    PetscCallCXX(nf = petsckp::pscr::ApplyBoundary(*ps->S, ps->B, ps->shift, xv.cview(), yv.view(), ps->X));
    PetscCall(yv.Restore());
    PetscCall(xv.Restore());
  }
  if (size > 1) {
    PetscCall(VecScatterBegin(ps->toz, ps->seqout, y, INSERT_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(ps->toz, ps->seqout, y, INSERT_VALUES, SCATTER_REVERSE));
    PetscCallMPI(MPI_Bcast(&nf, 1, MPIU_INT, 0, comm));
  }
  PetscCheck(!nf, comm, PETSC_ERR_CONV_FAILED, "PCPSCR: %" PetscInt_FMT " shifted tridiagonal systems A_d + (lambda + c) M_d met a zero pivot: the operator is singular (or indefinite) for the shift c = %g", nf, (double)PetscRealPart(ps->shift));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_PSCR(PC pc, Vec x, Vec y)
{
  PC_PSCR *ps   = (PC_PSCR *)pc->data;
  MPI_Comm comm = PetscObjectComm((PetscObject)pc);

  PetscFunctionBegin;
  PetscCheck(!(ps->singular && PetscAbsScalar(ps->shift - ps->nullshift) <= PSCR_SINGULAR_RTOL * ps->eigscale), comm, PETSC_ERR_SUP,
             "PCPSCR: the operator is singular: the sum of the smallest eigenvalues of the factors is %g and the shift c is %g (e.g. pure Neumann conditions in every direction with c = 0). Change the shift (-%spc_pscr_shift, PCPSCRSetShift()) or use a Dirichlet or Robin end in one direction; the singular case (null space) is not supported", PetscAbsReal(ps->nullshift) <= PSCR_SINGULAR_RTOL * ps->eigscale ? 0.0 : (double)-ps->nullshift, (double)PetscRealPart(ps->shift), OptionsPrefix(pc));
  if (ps->shift != ps->gap_shift) {
    /* a shift below minus the sum of the smallest eigenvalues makes the operator indefinite, and singular where the
       eigenvalues of the factors' pencils sum to -c for some modes: the shifted solves of those modes then meet a
       pivot at the rounding level, not a zero one, and would return a finite, meaningless solution. Checked once per
       shift on rank 0 (the whole spectra of the factors: O(n_d^2) once, for indefinite shifts only) */
    PetscReal   g[3] = {0, 0, 0};
    PetscMPIInt rk;
    PetscCallMPI(MPI_Comm_rank(comm, &rk));
    if (rk == 0 && ps->S) {
      std::string e;
      PetscReal   gap = 0;
      PetscCallCXX(e = petsckp::pscr::ShiftGap(*ps->S, PetscRealPart(ps->shift), &gap));
      if (!e.empty()) PetscCall(PetscInfo(pc, "PCPSCR: the distance of the operator from singularity is not known: %s\n", e.c_str()));
      g[0] = e.empty() ? gap : -1;
      g[1] = ps->S->eig_scale;
      g[2] = (ps->S->have_min && PetscRealPart(ps->shift) + ps->S->min_sum > 0) ? 0 : 1; /* indefinite (or not known to be definite) */
    }
    PetscCallMPI(MPI_Bcast(g, 3, MPIU_REAL, 0, comm));
    ps->gap_shift = ps->shift, ps->gap = g[0];
    /* the shifted solves of an indefinite operator are factored without pivoting (backward error up to about 1e-9):
       where the operator is the PC's matrix itself (factors detected from it, no shift of the PC's own), one step of
       iterative refinement against it restores the accuracy of a direct solve at twice the cost */
    ps->refine = (g[2] > 0 && ps->fromdm && ps->shift == (PetscScalar)0) ? PETSC_TRUE : PETSC_FALSE;
    if (ps->refine) PetscCall(PetscInfo(pc, "PCPSCR: indefinite operator: one step of iterative refinement per application\n"));
    if (g[0] >= 0) PetscCall(PetscInfo(pc, "PCPSCR: shift %g: the eigenvalues of the operator are at least %g from 0 (the largest %g in modulus: condition number about %g)\n", (double)PetscRealPart(ps->shift), (double)g[0], (double)(g[1] + PetscAbsScalar(ps->shift)), g[0] > 0 ? (double)((g[1] + PetscAbsScalar(ps->shift)) / g[0]) : (double)PETSC_INFINITY));
  }
  PetscCheck(!(ps->gap >= 0 && ps->gap <= PSCR_SINGULAR_RTOL * (ps->eigscale + PetscAbsScalar(ps->shift))), comm, PETSC_ERR_SUP,
             "PCPSCR: the operator is singular for the shift c = %g: the eigenvalues of the factors' pencils (A_d, M_d) of some modes sum to -c, to rounding (of the largest sum, %.4g). Change the shift (-%spc_pscr_shift, PCPSCRSetShift()); a singular operator is not supported", (double)PetscRealPart(ps->shift), (double)(ps->eigscale + PetscAbsScalar(ps->shift)), OptionsPrefix(pc));
  {
    /* a NaN or Inf right-hand side would give a NaN solution with a converged KSPPREONLY: a failed PC instead, which
       KSP reports as DIVERGED_PC_FAILED (one norm, against the dim^2 n^dim log n work of an application) */
    PetscReal xn;
    PetscCall(VecNorm(x, NORM_INFINITY, &xn));
    if (PetscIsInfOrNanReal(xn)) {
      PetscCall(PetscInfo(pc, "PCPSCR: the right-hand side has NaN or Inf entries\n"));
      PetscCall(PCSetFailedReason(pc, PC_INCONSISTENT_RHS));
      PetscCall(PetscKPVecSetInf(y));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(PetscLogEventBegin(PC_PSCR_Apply, pc, x, y, 0));
  PetscCall(PSCRSolve(pc, x, y));
  if (ps->refine) { /* y += A^-1 (x - A y) */
    if (!ps->rres) PetscCall(VecDuplicate(x, &ps->rres));
    if (!ps->rcor) PetscCall(VecDuplicate(x, &ps->rcor));
    PetscCall(MatMult(pc->pmat, y, ps->rres));
    PetscCall(VecAYPX(ps->rres, -1.0, x));
    PetscCall(PSCRSolve(pc, ps->rres, ps->rcor));
    PetscCall(VecAXPY(y, 1.0, ps->rcor));
  }
  PetscCall(PetscLogEventEnd(PC_PSCR_Apply, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_PSCR(PC pc)
{
  PC_PSCR *ps = (PC_PSCR *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCReset_PSCR(pc));
  for (int d = 0; d < 3; d++) {
    PetscCall(MatDestroy(&ps->uA[d]));
    PetscCall(MatDestroy(&ps->uM[d]));
  }
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSCRSetFactors_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSCRGetFactors_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSCRSetShift_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSCRGetShift_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSCRSetRadix_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSCRGetRadix_C", NULL));
  PetscCall(petsckp::TypeDataDestroy<PC_PSCR>(&pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_PSCR(PC pc, PETSCKP_OPTIONS_ARG)
{
  PC_PSCR    *ps = (PC_PSCR *)pc->data;
  PetscInt    q  = ps->radix;
  PetscScalar c  = ps->shift;
  PetscBool   flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "PSCR options (radix-q partial solution cyclic reduction, separable operators)");
  PetscCall(PetscOptionsInt("-pc_pscr_radix", "Radix q of the cyclic reduction, in [2, 8]", "PCPSCRSetRadix", q, &q, &flg));
  if (flg) PetscCall(PCPSCRSetRadix(pc, q));
  PetscCall(PetscOptionsScalar("-pc_pscr_shift", "Shift c of the operator A + c M1 (x) M2 (x) M3 (no new setup)", "PCPSCRSetShift", c, &c, &flg));
  if (flg) PetscCall(PCPSCRSetShift(pc, c));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_PSCR(PC pc, PetscViewer viewer)
{
  PC_PSCR    *ps = (PC_PSCR *)pc->data;
  PetscBool   iascii;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  PetscCall(PetscViewerASCIIPrintf(viewer, "radix %" PetscInt_FMT ", shift c = %g\n", ps->radix, (double)PetscRealPart(ps->shift)));
  if (!pc->setupcalled || !ps->dim) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (ps->dim == 1) PetscCall(PetscViewerASCIIPrintf(viewer, "factors: 1D, n = %" PetscInt_FMT " (one tridiagonal system)\n", ps->n[0]));
  else if (ps->dim == 2) PetscCall(PetscViewerASCIIPrintf(viewer, "factors: 2D, n1 x n2 = %" PetscInt_FMT " x %" PetscInt_FMT " (A1 (x) M2 + M1 (x) A2 + c M1 (x) M2), %s\n", ps->n[0], ps->n[1], ps->fromdm ? "detected from the DMDA operator" : "given with PCPSCRSetFactors()"));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "factors: 3D, n1 x n2 x n3 = %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", %s\n", ps->n[0], ps->n[1], ps->n[2], ps->fromdm ? "detected from the DMDA operator" : "given with PCPSCRSetFactors()"));
  if (ps->fromdm) PetscCall(PetscViewerASCIIPrintf(viewer, "DMDA grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ": %" PetscInt_FMT " diagonal-only (Dirichlet) rows outside the separable box, %" PetscInt_FMT " couplings to them\n", ps->grid[0], ps->grid[1], ps->grid[2], ps->ndirichlet, ps->ncouplings));
  if (ps->fromdm && ps->boxstencil) PetscCall(PetscViewerASCIIPrintf(viewer, "stencil: %" PetscInt_FMT "-point box (tridiagonal mass factors M_d, e.g. Q1 finite elements)\n", ps->stencil));
  else if (ps->fromdm) PetscCall(PetscViewerASCIIPrintf(viewer, "stencil: %" PetscInt_FMT "-point star (M_d = I)\n", ps->stencil));
  if (ps->dim == 2) PetscCall(PetscViewerASCIIPrintf(viewer, "levels: %" PetscInt_FMT " (dimension 1)\n", ps->levels[0]));
  if (ps->dim == 3) PetscCall(PetscViewerASCIIPrintf(viewer, "levels: %" PetscInt_FMT " (dimension 1), %" PetscInt_FMT " (dimension 2, nested)\n", ps->levels[0], ps->levels[1]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "eigenproblems: %" PetscInt_FMT " solved for %" PetscInt_FMT " blocks (identical blocks share them), eigen data %.3g MB\n", ps->eig_solved, ps->eig_blocks, (double)ps->eig_bytes / 1e6));
  PetscCall(PetscViewerASCIIPrintf(viewer, "shifted tridiagonal solves per application: %" PetscInt_FMT "\n", ps->solves));
  if (ps->refine && ps->gap_shift == ps->shift) PetscCall(PetscViewerASCIIPrintf(viewer, "indefinite operator: one step of iterative refinement against the matrix per application (the shifted solves do not pivot)\n"));
  if (ps->S) PetscCall(PetscViewerASCIIPrintf(viewer, "kernels of the last dimension: %s\n", petsckp::pscr::LevelPath(*ps->S).c_str()));
  if (ps->S) PetscCall(PetscViewerASCIIPrintf(viewer, "device workspace: %.3g MB (after the first application)\n", (double)(ps->S->work_bytes + ps->X.extent(0) * sizeof(PetscScalar)) / 1e6));
  PetscCall(PetscViewerASCIIPrintf(viewer, "distribution: %s\n", size > 1 ? "gathered to rank 0, solved on its device, scattered back" : "one process"));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCPSCR - the radix-q partial solution variant of the cyclic reduction (PSCR), a fast direct solver for separable
   block tridiagonal operators, on the device

   A  = A1 (x) M2 + M1 (x) A2 + c M1 (x) M2                                  (2D)
   A  = A1 (x) M2 (x) M3 + M1 (x) A2 (x) M3 + M1 (x) M2 (x) A3 + c M1 (x) M2 (x) M3   (3D)

   with symmetric tridiagonal factors A_d, M_d (M_d positive definite), e.g. finite differences or (lumped or
   consistent) linear finite elements (Q1 in 2D and 3D) of -div(grad u) + c u on tensor-product (also non-uniform)
   meshes with Dirichlet, Neumann or Robin ends. Used with `KSPPREONLY` it is a direct solver; under `KSPCG` or `KSPGMRES` it
   preconditions operators close to separable ones (e.g. variable coefficients, with the factors of a separable
   approximation).

   Options Database Keys:
+  -pc_pscr_radix <4>  - radix q in [2, 8], `PCPSCRSetRadix()`
-  -pc_pscr_shift <0>  - the shift c, `PCPSCRSetShift()` (no new setup)

   Level: intermediate

   Notes:
   The factors come from `PCPSCRSetFactors()` or, without them, are detected from the preconditioning matrix and the
   `DMDA` of the `KSP` (`KSPSetDM()`) or `PC` (`PCSetDM()`), on the device from its rows (only O(n) values and the
   counts travel between the ranks):
+  3/5/7-point star - a stencil whose couplings along each axis depend only on that axis' coordinate (e.g. constant
   coefficients) and whose diagonal is a sum of one function per coordinate is separable with M_d = I;
-  9/27-point box - bilinear / trilinear finite elements (Q1) and other operators
   A_z (x) M_y (x) M_x + M_z (x) A_y (x) M_x + M_z (x) M_y (x) A_x (+ c M_z (x) M_y (x) M_x) with tridiagonal A_d, M_d
   (2D: A_y (x) M_x + M_y (x) A_x): along each axis the coefficients of the line of points through the first point of
   the box are two 1D 3-point stencils spanning {A_d, M_d}; the operator is a tensor of multilinear rank 2 in these
   bases whose 2 x 2 (x 2) core follows from the coefficients of the first point, and the factors from the core. In 3D
   the mass directions are unique (the double root of the determinant of the core contracted along an axis); in 2D
   (and for the shifts A_d + s_d M_d, sum s_d = 0, in both) the decomposition is not unique and the balanced one is
   taken: the smallest eigenvalues of the pencils (A_d, M_d) equal and, in 2D, both M_d as well conditioned as
   possible, which recovers the true mass matrices of a tensor mesh. The recovery runs in extended precision (long
   double): the mass factors are combinations of the line stencils in which their larger stiffness parts cancel.
   Each M_d is scaled to largest diagonal entry 1.

   Every row is then checked against the factors (tolerance 1e-10 of the largest coefficient), so a detected operator
   is exactly the separable one. Rows with only a diagonal entry outside the box of coupled points (Dirichlet values
   kept in the matrix, as PETSc's KSP ex45 writes them) are solved as z = r / d and their couplings (along the star
   or the box stencil) moved to the right-hand side of the box, so the PC is then the exact inverse of the whole
   matrix. An operator that is not of either form (a variable coefficient, a stencil wider than the box, periodic
   boundaries, several fields) is refused with an error naming the first point where it fails (or, for a 27-point
   box stencil whose first point's coefficients are already not of the separable form, saying so); give the factors
   of a separable approximation instead. `-pc_view` names the stencil detected.

   Vector ordering of the factors: u[(i1 n2 + i2) n3 + i3], the last index fastest; with a `DMDA` the pair
   (A1, M1) is the z direction in 3D (y in 2D) and the last pair the x direction.

   Setup: for every level i and every block (maximal runs of rows not divisible by q^i, any n) the generalised
   eigenproblem of the block of (A1, M1) is solved on the host: in closed form (sine vectors, O(m q)) when the block
   has constant diagonals (every block of a uniform mesh, the interior ones with Neumann or Robin ends), otherwise by
   LAPACK's divide and conquer on the scaled problem (diagonal M) or after Crawford's banded reduction (tridiagonal M,
   `pbstf` + `sbgst`); identical blocks share their eigen data, and only the <= q + 1 eigenvector components at the
   rows that carry data are kept. In 3D the same is done for (A2, M2). The shift c does not enter the setup:
   `PCPSCRSetShift()` takes effect at the next application without a new setup.

   Apply: on the device, one kernel a level for the last reduced dimension (2D, and the inner problems of 3D) when a
   team of threads can hold a system (n_last <= 2048): every team takes a block and a group of its modes, keeps the
   block's right-hand side rows in registers, forms each mode's right-hand side, solves the shifted tridiagonal system
   (A_last + (lambda + c) M_last) by the partition method in registers with cyclic reduction of the separators in
   shared memory, and accumulates the weighted sums, so the solutions of the shifted systems never go through memory;
   for longer systems a kernel forms the right-hand sides (a block's rows read once for 8 of its modes), the team
   solver (16 rows a thread above 2048 rows) solves them in place and a third kernel sums them. When A_last and M_last are
   constant on their interior rows (a uniform mesh, whatever its ends), a shifted system is solved instead by two
   first-order recurrences (its symbol factors as kappa (1 - r z)(1 - r / z), |r| < 1) and a fit of its two end rows,
   each recurrence a pass over a thread's rows and a scan over the threads: no division per row and 3 barriers
   (about 2x faster on an H100); modes whose r is within 1/n_last of 1 (a zero eigenvalue in another direction with
   c near 0) take the partition method. In 3D every shifted solve of
   dimension 1 is a 2D PSCR problem, all of a level solved as one batch. O(N log N) work for N unknowns.

   The operator is singular when c equals minus the sum of the smallest eigenvalues of the pencils (A_d, M_d)
   (pure Neumann conditions in every direction with c = 0, diagonal or tridiagonal M_d), to 1000 units of rounding of
   the sum of the largest ones; this is refused with an error (change the shift or use a Dirichlet/Robin end; the
   null space is not handled). A zero pivot met in a shifted solve raises an error. A shift below minus the sum of
   the smallest eigenvalues makes the operator indefinite: at the first application with such a shift the whole
   spectra of the factors' pencils are computed on rank 0 (LAPACK sterf, O(n_d^2) once; the closed form of uniform
   factors), and a shift for which the eigenvalues of some modes sum to -c (e.g. c = -64 with the eigenvalues 32 + 32
   of the 3-point Laplacian at n = 3) is refused as singular, to the same tolerance; `-info` prints the distance from
   singularity and the condition number it implies. Indefinite shifts are solved, but the shifted tridiagonal
   systems of those modes are indefinite and are factored without pivoting: one application then has a backward
   error well above eps (measured on the CPU: 4e-10 for the 2D 5-point Laplacian at n = 31 with c = -49.2, condition
   number 6e5, and 1e-9 in 3D at n = 13 with c = -1500, condition number 8e3, where LU gives 4e-14). When the factors
   were detected from the PC's matrix and the PC adds no shift of its own, so that the operator is that matrix, each
   application therefore takes one step of iterative refinement against it (y += A^-1 (x - A y): twice the work and
   one product, for indefinite operators only), which gives a backward error of about eps (8e-17 and 5e-17 in the
   two cases); with factors given by the user the PC is left as it is (its matrix need not be the separable
   operator). A NaN or Inf in the
   operator is an error at the setup; a NaN or Inf right-hand side fails the preconditioner (`PC_INCONSISTENT_RHS`,
   `KSP_DIVERGED_PC_FAILED` under `KSPPREONLY`).

   Accuracy: one application is a direct solve with a normwise backward error || b - A x || / (|| A || || x ||) of a
   small multiple of eps (2e-16 to 4e-16 below), so its relative residual || b - A x || / || b || is about eps || A ||
   || x || / || b ||, which for a right-hand side with a smooth part (e.g. `VecSetRandom()`, uniform in [0, 1)) is
   about eps kappa(A), kappa ~ 0.4 (n + 1)^2 for the 5-point Laplacian: it grows like n^2 and passes 1e-10 near
   n = 1500. Measured (2D Dirichlet 5-point Laplacian, random right-hand side, radix 4, on the CPU; the end-to-end
   residual of the example on the GPU at 4095^2 is likewise above 1e-10):
.vb
     n       kappa(A)   eps kappa   PSCR ||b - Ax||/||b||   backward error   sparse Cholesky (nested dissection)
     255     2.66e4     5.9e-12     3.8e-12                 2.0e-16          1.8e-12
     511     1.06e5     2.4e-11     1.6e-11                 2.1e-16          7.8e-12
     1023    4.25e5     9.4e-11     6.5e-11                 2.2e-16          3.2e-11
     2047    1.70e6     3.8e-10     4.9e-10                 4.1e-16          -
     4095    6.80e6     1.5e-09     1.3e-09                 2.7e-16          -
.ve
   (a right-hand side without a smooth part gives much smaller residuals: 2.7e-12 at 4095^2 on the GPU for the
   zero-mean sawtooth of bench_pscr's default right-hand side). This is the conditioning, not a loss of accuracy: a backward stable sparse Cholesky
   factorisation does the same within a factor of 2, and one step of iterative refinement (`-ksp_type richardson
   -ksp_max_it 2`) brings both to about 1e-11 at n = 1023. Check a direct solve by its backward error, or against
   eps kappa(A). With tridiagonal mass factors (Q1) the backward error is a few times larger (up to about 1e-15).

   MPI: the vector is gathered onto rank 0 (one `MPI_Gatherv` of the processes' blocks), put in the natural ordering
   of the `DMDA` there on its device, solved, and scattered back the same way; setup and eigen data live on rank 0 only. This is correct on any number of ranks but does not
   scale: the time of an application is that of one device plus two transfers of the vector.

   References:
   Yu. A. Kuznetsov and T. Rossi, Fast direct method for solving algebraic systems with separable symmetric band
   matrices, East-West J. Numer. Math. 4 (1996). M. Myllykoski, T. Rossi and J. Toivanen, On solving separable block
   tridiagonal linear systems using a GPU implementation of radix-4 PSCR method, J. Parallel Distrib. Comput. 115
   (2018). M. Myllykoski, On GPU-accelerated fast direct solvers and their applications in image denoising, PhD
   thesis, University of Jyvaskyla (2015).

.seealso: `PCPSCRSetFactors()`, `PCPSCRSetShift()`, `PCPSCRSetRadix()`, `KSPPREONLY`, `PCMG`
M*/
PETSC_INTERN PetscErrorCode PCCreate_PSCR(PC pc)
{
  PC_PSCR *ps;

  PetscFunctionBegin;
#if defined(PETSC_USE_COMPLEX)
  SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCPSCR supports real scalars only");
#endif
  PetscCall(petsckp::KokkosInitializeOnce());
  PetscCall(petsckp::TypeDataCreate(&pc->data, &ps));

  pc->ops->setup          = PCSetUp_PSCR;
  pc->ops->apply          = PCApply_PSCR;
  pc->ops->reset          = PCReset_PSCR;
  pc->ops->destroy        = PCDestroy_PSCR;
  pc->ops->setfromoptions = PCSetFromOptions_PSCR;
  pc->ops->view           = PCView_PSCR;

  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSCRSetFactors_C", PCPSCRSetFactors_PSCR));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSCRGetFactors_C", PCPSCRGetFactors_PSCR));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSCRSetShift_C", PCPSCRSetShift_PSCR));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSCRGetShift_C", PCPSCRGetShift_PSCR));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSCRSetRadix_C", PCPSCRSetRadix_PSCR));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSCRGetRadix_C", PCPSCRGetRadix_PSCR));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSCRSetFactors - gives `PCPSCR` the 1D factors of the separable operator
  A = A1 (x) M2 (x) M3 + M1 (x) A2 (x) M3 + M1 (x) M2 (x) A3 + c M1 (x) M2 (x) M3 (2D: without the third pair)

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
. A1 - symmetric tridiagonal stiffness factor of the slowest index (a sequential `Mat`, the same on every rank)
. M1 - symmetric positive definite tridiagonal (or diagonal) mass factor, or NULL for the identity
. A2 - factor of the next index
. M2 - its mass factor, or NULL
. A3 - factor of the fastest index in 3D, or NULL in 2D
- M3 - its mass factor, or NULL

  Level: intermediate

  Notes:
  The vector is ordered u[(i1 n2 + i2) n3 + i3] (the last index fastest): with a `DMDA` of matching sizes the
  natural ordering of the `DMDA` (the last pair is x), otherwise the global numbering of the matrix. The factors
  need not describe the preconditioning matrix exactly: `PCPSCR` then preconditions it with the separable operator.
  The matrices are referenced, not copied; the next `PCSetUp()` reads them.

.seealso: `PCPSCR`, `PCPSCRGetFactors()`, `PCPSCRSetShift()`
@*/
PetscErrorCode PCPSCRSetFactors(PC pc, Mat A1, Mat M1, Mat A2, Mat M2, Mat A3, Mat M3)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscTryMethod(pc, "PCPSCRSetFactors_C", (PC, Mat, Mat, Mat, Mat, Mat, Mat), (pc, A1, M1, A2, M2, A3, M3));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSCRGetFactors - the 1D factors given to `PCPSCR` with `PCPSCRSetFactors()` (NULL when detected from a `DMDA`)

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameters:
+ A1 - (or NULL to skip) the factors, borrowed references
. M1 - mass factor
. A2 - factor
. M2 - mass factor
. A3 - factor
- M3 - mass factor

  Level: intermediate

.seealso: `PCPSCR`, `PCPSCRSetFactors()`
@*/
PetscErrorCode PCPSCRGetFactors(PC pc, Mat *A1, Mat *M1, Mat *A2, Mat *M2, Mat *A3, Mat *M3)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCPSCRGetFactors_C", (PC, Mat *, Mat *, Mat *, Mat *, Mat *, Mat *), (pc, A1, M1, A2, M2, A3, M3));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSCRSetShift - sets the shift c of the separable operator solved by `PCPSCR` (A + c M1 (x) M2 (x) M3)

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- c  - the shift (finite)

  Options Database Key:
. -pc_pscr_shift <c> - the shift

  Level: intermediate

  Note:
  The eigen data do not depend on c: a new shift takes effect at the next application without a new setup (for
  time steps or augmented Lagrangian penalties that change between solves). With factors detected from a `DMDA`
  operator the shift is added to that operator: c I for a star stencil, c M_z (x) M_y (x) M_x with the detected mass
  factors (each scaled to largest diagonal entry 1) for a box stencil.

.seealso: `PCPSCR`, `PCPSCRGetShift()`, `PCPSCRSetFactors()`
@*/
PetscErrorCode PCPSCRSetShift(PC pc, PetscScalar c)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveScalar(pc, c, 2);
  PetscTryMethod(pc, "PCPSCRSetShift_C", (PC, PetscScalar), (pc, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSCRGetShift - the shift c of `PCPSCR`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. c - the shift

  Level: intermediate

.seealso: `PCPSCR`, `PCPSCRSetShift()`
@*/
PetscErrorCode PCPSCRGetShift(PC pc, PetscScalar *c)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCPSCRGetShift_C", (PC, PetscScalar *), (pc, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSCRSetRadix - sets the radix q of the cyclic reduction of `PCPSCR`

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- q  - the radix, in [2, 8] (default 4)

  Options Database Key:
. -pc_pscr_radix <q> - the radix

  Level: advanced

  Note:
  k = min{k : q^k > n1} levels; a level costs about one shifted tridiagonal solve per row, so the work is about
  (2k - 1) n1 solves, flat for q = 4..8 and clearly larger for q = 2. A new radix needs a new setup.

.seealso: `PCPSCR`, `PCPSCRGetRadix()`
@*/
PetscErrorCode PCPSCRSetRadix(PC pc, PetscInt q)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, q, 2);
  PetscTryMethod(pc, "PCPSCRSetRadix_C", (PC, PetscInt), (pc, q));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSCRGetRadix - the radix q of `PCPSCR`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. q - the radix

  Level: advanced

.seealso: `PCPSCR`, `PCPSCRSetRadix()`
@*/
PetscErrorCode PCPSCRGetRadix(PC pc, PetscInt *q)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCPSCRGetRadix_C", (PC, PetscInt *), (pc, q));
  PetscFunctionReturn(PETSC_SUCCESS);
}
