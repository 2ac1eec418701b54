/*
   neumann.cxx - PCNEUMANN: the truncated Neumann series of the symmetric Gauss-Seidel factors
   (R. Gupta, M. B. van Gijzen, C. Vuik, "Efficient two-level preconditioned conjugate gradient method on the
   GPU", VECPAR 2012), applied with Kokkos kernels.

   Routines: PCSetUp_Neumann, PCApply_Neumann, PCApplySymmetricLeft/Right_Neumann, PCReset_Neumann,
   PCDestroy_Neumann, PCSetFromOptions_Neumann, PCView_Neumann, PCCreate_Neumann, PCNeumannSetTerms/GetTerms.
*/
#include "petsckp_types.h" /*I "petsckp.h" I*/
#include "kp_sys.hpp"
#include "neumann_kernels.hpp"

static PetscLogEvent PC_Neumann_Setup, PC_Neumann_Apply;

typedef struct {
  PetscInt                  terms; /* k: highest power of (-L D^-1) kept in the series */
  PetscKPDeviceMat          dm;    /* device copy of the preconditioning matrix */
  petsckp::NeumannFactors  *F;     /* L D^-1, D^-1 U, D^-1 of the rank-local diagonal block */
  petsckp::View<PetscScalar> *work; /* two work views of the local size */
  PetscReal                 normB; /* max over ranks of || L D^-1 ||_inf */
} PC_Neumann;

static PetscErrorCode PCNeumannInitializeEvents(void)
{
  static PetscBool done = PETSC_FALSE;

  PetscFunctionBegin;
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  done = PETSC_TRUE;
  PetscCall(PetscLogEventRegister("PCNeumannSetup", PC_CLASSID, &PC_Neumann_Setup));
  PetscCall(PetscLogEventRegister("PCNeumannApply", PC_CLASSID, &PC_Neumann_Apply));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannSetTerms_Neumann(PC pc, PetscInt k)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCheck(k >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "The number of Neumann series terms must be >= 0 (0 is Jacobi), not %" PetscInt_FMT, k);
  nm->terms = k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannGetTerms_Neumann(PC pc, PetscInt *k)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  *k = nm->terms;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_Neumann(PC pc)
{
  PC_Neumann                *nm = (PC_Neumann *)pc->data;
  petsckp::NeumannSetupInfo  info;
  PetscInt                   rstart, m, loc[2], glob[2];
  MPI_Comm                   comm = PetscObjectComm((PetscObject)pc);
  PetscReal                  nb;

  PetscFunctionBegin;
  PetscCall(PCNeumannInitializeEvents());
  PetscCall(petsckp::KokkosInitializeOnce());
  PetscCall(PetscLogEventBegin(PC_Neumann_Setup, pc, 0, 0, 0));
  if (nm->dm && nm->dm->A != pc->pmat) PetscCall(PetscKPDeviceMatDestroy(&nm->dm));
  if (!nm->dm) PetscCall(PetscKPDeviceMatCreate(pc->pmat, PETSCKP_FORMAT_CSR, &nm->dm));
  else PetscCall(PetscKPDeviceMatUpdateValues(nm->dm));
  PetscCall(MatGetOwnershipRange(pc->pmat, &rstart, NULL));
  PetscCall(MatGetLocalSize(pc->pmat, &m, NULL));
  if (!nm->F) PetscCallCXX(nm->F = new petsckp::NeumannFactors());
  PetscCallCXX(petsckp::NeumannSetup(petsckp::DeviceMatLocalCsr(nm->dm), *nm->F, info));
  /* collective checks: the smallest global row with a NaN/Inf entry, then with a non-positive diagonal */
  loc[0] = info.nonfinite_row >= 0 ? rstart + info.nonfinite_row : PETSC_MAX_INT;
  loc[1] = info.bad_diag_row >= 0 ? rstart + info.bad_diag_row : PETSC_MAX_INT;
  PetscCall(MPIU_Allreduce(loc, glob, 2, MPIU_INT, MPI_MIN, comm));
  PetscCheck(glob[0] == PETSC_MAX_INT, comm, PETSC_ERR_FP, "PCNEUMANN: the preconditioning matrix has a NaN or Inf entry in row %" PetscInt_FMT, glob[0]);
  if (glob[1] != PETSC_MAX_INT) {
    PetscReal dv = loc[1] == glob[1] ? (PetscReal)info.diag_value : 0, dvg;
    PetscCall(MPIU_Allreduce(&dv, &dvg, 1, MPIU_REAL, MPIU_SUM, comm));
    SETERRQ(comm, PETSC_ERR_MAT_LU_ZRPVT, "PCNEUMANN needs a positive diagonal (an SPD matrix), but row %" PetscInt_FMT " has diagonal %g%s", glob[1], (double)dvg, dvg == 0 ? " (zero or missing)" : "");
  }
  nb = info.norm_BInf;
  PetscCall(MPIU_Allreduce(&nb, &nm->normB, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscCall(PetscInfo(pc, "|| L D^-1 ||_inf = %g%s\n", (double)nm->normB, nm->normB >= 1 ? " (>= 1: the Neumann series need not converge, the preconditioner is still SPD)" : ""));
  if (!nm->work || (PetscInt)nm->work[0].extent(0) != m) {
    if (nm->work) PetscCallCXX(delete[] nm->work);
    PetscCallCXX(nm->work = new petsckp::View<PetscScalar>[2]);
    PetscCallCXX(nm->work[0] = petsckp::View<PetscScalar>(std::string("neumann work 1"), m));
    PetscCallCXX(nm->work[1] = petsckp::View<PetscScalar>(std::string("neumann work 2"), m));
  }
  PetscCallCXX(petsckp::exec().fence());
  PetscCall(PetscLogEventEnd(PC_Neumann_Setup, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* which: 0 full application, 1 left half D^-1/2 K, 2 right half Kt D^-1/2 */
static PetscErrorCode PCNeumannApplyPart(PC pc, Vec x, Vec y, int which)
{
  PC_Neumann         *nm = (PC_Neumann *)pc->data;
  petsckp::DeviceVec  xv, yv;
  petsckp::UView<PetscScalar> w1(nm->work[0].data(), nm->work[0].extent(0)), w2(nm->work[1].data(), nm->work[1].extent(0));

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_Neumann_Apply, pc, x, y, 0));
  PetscCall(xv.Get(x, petsckp::Access::Read));
  PetscCall(yv.Get(y, petsckp::Access::Write));
  if (which == 0) PetscCallCXX(petsckp::NeumannApply(*nm->F, nm->terms, xv.cview(), yv.view(), w1, w2));
  else if (which == 1) PetscCallCXX(petsckp::NeumannApplyLeft(*nm->F, nm->terms, xv.cview(), yv.view(), w1, w2));
  else PetscCallCXX(petsckp::NeumannApplyRight(*nm->F, nm->terms, xv.cview(), yv.view(), w1, w2));
  PetscCall(xv.Restore());
  PetscCall(yv.Restore());
  PetscCall(PetscLogFlops((which == 0 ? 4.0 : 2.0) * nm->terms * (nm->F->B.nnz + nm->F->n) + nm->F->n));
  PetscCall(PetscLogEventEnd(PC_Neumann_Apply, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_Neumann(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCNeumannApplyPart(pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplySymmetricLeft_Neumann(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCNeumannApplyPart(pc, x, y, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplySymmetricRight_Neumann(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCNeumannApplyPart(pc, x, y, 2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_Neumann(PC pc)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCall(PetscKPDeviceMatDestroy(&nm->dm));
  PetscCallCXX(delete nm->F);
  PetscCallCXX(delete[] nm->work);
  nm->F    = nullptr;
  nm->work = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_Neumann(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_Neumann(pc));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetTerms_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannGetTerms_C", NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_Neumann(PC pc, PETSCKP_OPTIONS_ARG)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;
  PetscInt    k  = nm->terms;
  PetscBool   flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Truncated Neumann series preconditioner options");
  PetscCall(PetscOptionsInt("-pc_neumann_terms", "Highest power k of (-L D^-1) kept in the series (0: Jacobi, 1: Neu1, 2: Neu2)", "PCNeumannSetTerms", k, &k, &flg));
  if (flg) PetscCall(PCNeumannSetTerms(pc, k));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_Neumann(PC pc, PetscViewer viewer)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;
  PetscBool   iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  truncated Neumann series M^-1 = K^T D^-1 K, K = sum_{j<=k} (-L D^-1)^j, terms k = %" PetscInt_FMT "%s\n", nm->terms, nm->terms == 0 ? " (Jacobi)" : ""));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  scope: rank-local diagonal blocks (no communication)\n"));
  if (pc->setupcalled && nm->F) PetscCall(PetscViewerASCIIPrintf(viewer, "  || L D^-1 ||_inf = %g\n", (double)nm->normB));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  execution space: %s\n", petsckp::ExecSpace::name()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCNEUMANN - the truncated Neumann series preconditioner of Gupta, van Gijzen and Vuik: the symmetric
   Gauss-Seidel preconditioner M = (D + L) D^-1 (D + L^T) with its triangular inverses replaced by truncated
   Neumann series, so that it is applied with sparse matrix-vector products only (no triangular solves)

   Options Database Key:
.  -pc_neumann_terms <k> - highest power k of (-L D^-1) kept in the series (default 1): 0 is Jacobi, 1 is the
                           paper's Neu1, 2 is Neu2; any k >= 0 is allowed

   Level: intermediate

   Notes:
   With A = L + D + L^T (strictly lower part, diagonal, strictly upper part), the preconditioner is
   M^-1 = K^T D^-1 K with K = sum_{j=0..k} (-L D^-1)^j. It is applied in Horner form with the prescaled
   triangles L D^-1 and D^-1 L^T: 2k sparse products with a strict triangle and one diagonal scaling, all on the
   device (Kokkos). Since L D^-1 is nilpotent, k >= n - 1 gives exactly symmetric Gauss-Seidel (`PCSOR` with
   `-pc_sor_symmetric`, omega = 1); on a 2D lexicographic 5-point grid of n x n points k >= 2n - 2 suffices.

   M^-1 is symmetric positive definite for every k when A is symmetric with a positive diagonal, so the
   preconditioner may be used with `KSPCG` (and with petsckp's `KSPDCG`, deflated CG). `-ksp_pc_side symmetric`
   is supported (D^-1/2 K and K^T D^-1/2). A diagonal entry that is zero or negative is an error naming the row;
   so is a NaN or Inf entry.

   In parallel the preconditioner acts on each rank's diagonal block of the matrix (the couplings between ranks
   are dropped, as in block Jacobi), so that its application needs no communication; the iteration counts
   therefore depend somewhat on the number of ranks.

   This is unrelated to PETSc's `PCNN` (Neumann-Neumann domain decomposition).

   Reference:
   R. Gupta, M. B. van Gijzen, C. Vuik, Efficient two-level preconditioned conjugate gradient method on the
   GPU, VECPAR 2012, LNCS 7851.

.seealso: `PCCreate()`, `PCSetType()`, `PCNeumannSetTerms()`, `PCJACOBI`, `PCSOR`, `KSPCG`
M*/
PETSC_INTERN PetscErrorCode PCCreate_Neumann(PC pc)
{
  PC_Neumann *nm;

  PetscFunctionBegin;
  PetscCall(PetscNew(&nm));
  pc->data = (void *)nm;
  nm->terms = 1;
  nm->dm    = NULL;
  nm->F     = NULL;
  nm->work  = NULL;
  nm->normB = 0;

  pc->ops->apply               = PCApply_Neumann;
  pc->ops->applysymmetricleft  = PCApplySymmetricLeft_Neumann;
  pc->ops->applysymmetricright = PCApplySymmetricRight_Neumann;
  pc->ops->setup               = PCSetUp_Neumann;
  pc->ops->reset               = PCReset_Neumann;
  pc->ops->destroy             = PCDestroy_Neumann;
  pc->ops->setfromoptions      = PCSetFromOptions_Neumann;
  pc->ops->view                = PCView_Neumann;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetTerms_C", PCNeumannSetTerms_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannGetTerms_C", PCNeumannGetTerms_Neumann));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannSetTerms - sets the number of terms k of the truncated Neumann series of `PCNEUMANN`

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- k  - highest power of (-L D^-1) kept: 0 is Jacobi, 1 the paper's Neu1, 2 Neu2

  Options Database Key:
. -pc_neumann_terms <k> - the number of terms

  Level: intermediate

.seealso: `PCNEUMANN`, `PCNeumannGetTerms()`
@*/
PetscErrorCode PCNeumannSetTerms(PC pc, PetscInt k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, k, 2);
  PetscTryMethod(pc, "PCNeumannSetTerms_C", (PC, PetscInt), (pc, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannGetTerms - gets the number of terms k of the truncated Neumann series of `PCNEUMANN`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. k - the number of terms

  Level: intermediate

.seealso: `PCNEUMANN`, `PCNeumannSetTerms()`
@*/
PetscErrorCode PCNeumannGetTerms(PC pc, PetscInt *k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(k, 2);
  PetscUseMethod(pc, "PCNeumannGetTerms_C", (PC, PetscInt *), (pc, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}
