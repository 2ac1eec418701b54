/*
   neumann.cxx - PCNEUMANN: the truncated Neumann series of the symmetric Gauss-Seidel factors
   (R. Gupta, M. B. van Gijzen, C. Vuik, "Efficient two-level preconditioned conjugate gradient method on the
   GPU", VECPAR 2012), applied with Kokkos kernels.

   With -pc_neumann_deflation it becomes the two-level (deflated) preconditioner A-DEF2 (or BNN) with the deflation
   spaces of KSPDCG (petsckp::Deflation, src/sys/kp_deflation).

   Routines: PCSetUp_Neumann, PCApply_Neumann, PCApplySymmetricLeft/Right_Neumann, PCPreSolve/PostSolve_Neumann,
   PCReset_Neumann, PCDestroy_Neumann, PCSetFromOptions_Neumann, PCView_Neumann, PCCreate_Neumann,
   PCNeumannSetTerms/GetTerms, PCNeumannSetDeflationSpaceType/SetDeflationSpace/SetDeflationVariant,
   PCNeumannCreateDeflationSpaceMat.
*/
#include "petsckp_types.h" /*I "petsckp.h" I*/
#include "kp_sys.hpp"
#include "kp_deflation.hpp"
#include "neumann_kernels.hpp"

const char *const PCNeumannDeflationVariants[] = {"adef2", "bnn", "PCNeumannDeflationVariant", "PC_NEUMANN_DEFLATION_", nullptr};

struct PC_Neumann {
  PetscInt                    terms = 1;       /* k: highest power of (-L D^-1) kept in the series */
  PetscKPDeviceMat            dm    = nullptr; /* device copy of the preconditioning matrix */
  petsckp::NeumannFactors    *F     = nullptr; /* L D^-1, D^-1 U, D^-1 of the rank-local diagonal block */
  petsckp::View<PetscScalar> *work  = nullptr; /* two work views of the local size */
  PetscReal                   normB = 0;       /* max over ranks of || L D^-1 ||_inf */
  /* the two-level (deflated) variant */
  PetscBool                 deflation   = PETSC_FALSE;        /* requested (-pc_neumann_deflation, or a space other than none) */
  KSPDCGSpaceType           dspace      = KSP_DCG_SPACE_NONE; /* requested space, when dspace_set (none is shown by -help) */
  PetscBool                 dspace_set  = PETSC_FALSE;        /* otherwise: the user's Z if given, else DMDA blocks, else chunks */
  PetscInt                  dsubdomains = 0;                  /* chunks (0: 2 sqrt(N)) */
  PetscInt                  dblocks[3]  = {0, 0, 0};          /* DMDA boxes per direction (0: min(8, n/4)) */
  KSPDCGCoarseType          dcoarse     = KSP_DCG_COARSE_CHOLESKY;
  PetscReal                 dpivot_rtol = 1e-13;
  PCNeumannDeflationVariant variant     = PC_NEUMANN_DEFLATION_ADEF2;
  Mat                       Zuser       = nullptr;
  petsckp::Deflation       *defl        = nullptr;
  KSPDCGSpaceType           dbuilt      = KSP_DCG_SPACE_NONE; /* the space built */
  PetscInt                  dbuilt_blocks[3] = {0, 0, 0};
  Vec                       dwork         = nullptr;
  PetscBool                 restore_guess = PETSC_FALSE; /* PCPreSolve turned the KSP's zero initial guess into Q b */
};

/* builds (or rebuilds, after a change of the operator Amat or of the options) Z, AZ and E of the two-level variant
   with the space builder shared with KSPDCG; a no-op when nothing changed */
static PetscErrorCode PCNeumannSetUpDeflation(PC pc)
{
  PC_Neumann                    *nm = (PC_Neumann *)pc->data;
  PetscObjectState               st;
  petsckp::DeflationSpaceOptions opt;
  petsckp::DeflationSpaceType    built;

  PetscFunctionBegin;
  if (!nm->deflation) {
    PetscCallCXX(delete nm->defl);
    nm->defl = nullptr;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(pc->mat, PetscObjectComm((PetscObject)pc), PETSC_ERR_ORDER, "PCNEUMANN deflation needs the operators (PCSetOperators())");
  PetscCall(PetscObjectStateGet((PetscObject)pc->mat, &st));
  if (nm->defl && nm->defl->Aref == pc->mat && nm->defl->Astate == st) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(petsckp::KokkosInitializeOnce());
  PetscCall(PetscLogEventBegin(PC_Neumann_DeflSetup, pc, 0, 0, 0));
  opt.type       = (petsckp::DeflationSpaceType)nm->dspace;
  opt.type_set   = nm->dspace_set ? true : false;
  opt.subdomains = nm->dsubdomains;
  for (int i = 0; i < 3; i++) opt.blocks[i] = nm->dblocks[i];
  opt.form       = nm->dcoarse == KSP_DCG_COARSE_INVERSE ? petsckp::DenseSpdForm::Inverse : petsckp::DenseSpdForm::Cholesky;
  opt.pivot_rtol = nm->dpivot_rtol;
  /* the operator Amat (not Pmat) defines the projections, as in KSPDCG */
  PetscCall(petsckp::DeflationCreate(pc->mat, pc->dm, nm->Zuser, opt, "-pc_neumann_deflation", &nm->defl, &built, nm->dbuilt_blocks));
  nm->dbuilt = (KSPDCGSpaceType)built;
  if (nm->defl) PetscCall(nm->defl->PrepareResidualRestriction()); /* (AZ)^T for the A-DEF2 coarse correction */
  if (nm->defl) PetscCall(PetscInfo(pc, "PCNEUMANN deflation: %" PetscInt_FMT " vectors, E relative min Cholesky pivot %g\n", nm->defl->d, (double)nm->defl->E.min_pivot));
  PetscCall(PetscLogEventEnd(PC_Neumann_DeflSetup, pc, 0, 0, 0));
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

static PetscErrorCode PCNeumannSetDeflationSpaceType_Neumann(PC pc, KSPDCGSpaceType type)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCheck(type >= KSP_DCG_SPACE_NONE && type <= KSP_DCG_SPACE_USER, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "Unknown deflation space type %d", (int)type);
  nm->dspace     = type;
  nm->dspace_set = PETSC_TRUE;
  nm->deflation  = type == KSP_DCG_SPACE_NONE ? PETSC_FALSE : PETSC_TRUE;
  PetscCallCXX(delete nm->defl);
  nm->defl = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannSetDeflationSpace_Neumann(PC pc, Mat Z)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCall(PetscObjectReference((PetscObject)Z));
  PetscCall(MatDestroy(&nm->Zuser));
  nm->Zuser = Z;
  PetscCall(PCNeumannSetDeflationSpaceType_Neumann(pc, KSP_DCG_SPACE_USER));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannSetDeflationVariant_Neumann(PC pc, PCNeumannDeflationVariant v)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  nm->variant = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannCreateDeflationSpaceMat_Neumann(PC pc, Mat *Z)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCSetUp(pc));
  PetscCall(PCNeumannSetUpDeflation(pc));
  PetscCheck(nm->defl, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCNEUMANN has no deflation space (use -pc_neumann_deflation)");
  PetscCall(nm->defl->CreateZMat(pc->mat, Z));
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
  PetscCall(PCNeumannSetUpDeflation(pc));
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
  PetscCall(PetscLogGpuTimeBegin());
  if (which == 0) PetscCallCXX(petsckp::NeumannApply(*nm->F, nm->terms, xv.cview(), yv.view(), w1, w2));
  else if (which == 1) PetscCallCXX(petsckp::NeumannApplyLeft(*nm->F, nm->terms, xv.cview(), yv.view(), w1, w2));
  else PetscCallCXX(petsckp::NeumannApplyRight(*nm->F, nm->terms, xv.cview(), yv.view(), w1, w2));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(xv.Restore());
  PetscCall(yv.Restore());
  PetscCall(PetscLogFlops((which == 0 ? 4.0 : 2.0) * nm->terms * (nm->F->B.nnz + nm->F->n) + nm->F->n));
  PetscCall(PetscLogEventEnd(PC_Neumann_Apply, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one-level: y = M^-1 x. Two-level A-DEF2: y = P^T M^-1 x + Q x = M^-1 x + Q (x - A M^-1 x); BNN: the same with
   M^-1 P x in place of M^-1 x (P^T M^-1 P x + Q x) */
static PetscErrorCode PCApply_Neumann(PC pc, Vec x, Vec y)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCNeumannSetUpDeflation(pc)); /* no-op unless Amat or the options changed */
  if (!nm->defl) {
    PetscCall(PCNeumannApplyPart(pc, x, y, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (nm->variant == PC_NEUMANN_DEFLATION_BNN) {
    if (!nm->dwork) PetscCall(VecDuplicate(x, &nm->dwork));
    PetscCall(PetscLogEventBegin(PC_Neumann_Deflate, pc, x, 0, 0));
    PetscCall(nm->defl->ApplyP(x, nm->dwork));
    PetscCall(PetscLogEventEnd(PC_Neumann_Deflate, pc, x, 0, 0));
    PetscCall(PCNeumannApplyPart(pc, nm->dwork, y, 0));
  } else PetscCall(PCNeumannApplyPart(pc, x, y, 0));
  PetscCall(PetscLogEventBegin(PC_Neumann_Deflate, pc, x, y, 0));
  PetscCall(nm->defl->AddQResidual(x, y));
  PetscCall(PetscLogEventEnd(PC_Neumann_Deflate, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplySymmetricLeft_Neumann(PC pc, Vec x, Vec y)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCheck(!nm->deflation, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCNEUMANN with deflation has no symmetric splitting; use -ksp_pc_side left (the default) with KSPCG");
  PetscCall(PCNeumannApplyPart(pc, x, y, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplySymmetricRight_Neumann(PC pc, Vec x, Vec y)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCheck(!nm->deflation, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCNEUMANN with deflation has no symmetric splitting; use -ksp_pc_side left (the default) with KSPCG");
  PetscCall(PCNeumannApplyPart(pc, x, y, 2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* two-level variant: x0 <- x0 + Q (b - A x0), so that Z^T r0 = 0; then every residual of CG keeps Z^T r = 0, where
   A-DEF2 equals the symmetric BNN operator. A zero initial guess becomes Q b (and the KSP is told it is nonzero
   until PCPostSolve) */
static PetscErrorCode PCPreSolve_Neumann(PC pc, KSP ksp, Vec b, Vec x)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;
  PetscBool   nonzero;

  PetscFunctionBegin;
  if (!nm->deflation) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCNeumannSetUpDeflation(pc));
  if (!nm->defl || !b || !x) PetscFunctionReturn(PETSC_SUCCESS);
  if (!nm->dwork) PetscCall(VecDuplicate(b, &nm->dwork));
  PetscCall(KSPGetInitialGuessNonzero(ksp, &nonzero));
  if (nonzero) {
    PetscCall(MatMult(pc->mat, x, nm->dwork));
    PetscCall(VecAYPX(nm->dwork, -1.0, b));
  } else {
    PetscCall(VecSet(x, 0.0));
    PetscCall(VecCopy(b, nm->dwork));
    PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
    nm->restore_guess = PETSC_TRUE;
  }
  PetscCall(PetscLogEventBegin(PC_Neumann_Deflate, pc, x, 0, 0));
  PetscCall(nm->defl->AddQ(nm->dwork, x));
  PetscCall(PetscLogEventEnd(PC_Neumann_Deflate, pc, x, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPostSolve_Neumann(PC pc, KSP ksp, Vec b, Vec x)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  (void)b;
  (void)x;
  if (nm->restore_guess) PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_FALSE));
  nm->restore_guess = PETSC_FALSE;
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
  PetscCallCXX(delete nm->defl);
  nm->defl = nullptr;
  PetscCall(VecDestroy(&nm->dwork));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_Neumann(PC pc)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCReset_Neumann(pc));
  PetscCall(MatDestroy(&nm->Zuser));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetTerms_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannGetTerms_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetDeflationSpaceType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetDeflationSpace_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetDeflationVariant_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannCreateDeflationSpaceMat_C", NULL));
  PetscCall(petsckp::TypeDataDestroy<PC_Neumann>(&pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_Neumann(PC pc, PETSCKP_OPTIONS_ARG)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;
  PetscInt        k     = nm->terms, nb = 3;
  PetscBool       flg, on = nm->deflation;
  KSPDCGSpaceType space = nm->dspace;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Truncated Neumann series preconditioner options");

  PetscCall(PetscOptionsInt("-pc_neumann_terms", "Highest power k of (-L D^-1) kept in the series (0: Jacobi, 1: Neu1, 2: Neu2)", "PCNeumannSetTerms", k, &k, &flg));
  if (flg) PetscCall(PCNeumannSetTerms(pc, k));
  PetscCall(PetscOptionsBool("-pc_neumann_deflation", "Two-level (deflated) preconditioner, with the default space (user Z, else DMDA blocks, else chunks)", "PCNeumannSetDeflationSpaceType", on, &on, &flg));
  if (flg) nm->deflation = on;
  PetscCall(PetscOptionsEnum("-pc_neumann_deflation_space", "Deflation space of the two-level preconditioner (none: one-level)", "PCNeumannSetDeflationSpaceType", KSPDCGSpaceTypes, (PetscEnum)space, (PetscEnum *)&space, &flg));
  if (flg) PetscCall(PCNeumannSetDeflationSpaceType(pc, space));
  PetscCall(PetscOptionsInt("-pc_neumann_deflation_subdomains", "Number of chunks (contiguous index ranges; with a DMDA of the natural grid ordering) for space chunks (0: 2 sqrt(N))", "PCNEUMANN", nm->dsubdomains, &nm->dsubdomains, NULL));
  PetscCall(PetscOptionsIntArray("-pc_neumann_deflation_blocks", "DMDA boxes per direction bx,by,bz for space blocks (default min(8, n/4) each)", "PCNEUMANN", nm->dblocks, &nb, &flg));
  if (flg)
    for (PetscInt i = nb; i < 3; i++) nm->dblocks[i] = nb > 0 ? nm->dblocks[nb - 1] : 0;
  PetscCall(PetscOptionsEnum("-pc_neumann_deflation_coarse", "Coarse solve with E = Z^T A Z: Cholesky factor or explicit inverse", "PCNEUMANN", KSPDCGCoarseTypes, (PetscEnum)nm->dcoarse, (PetscEnum *)&nm->dcoarse, NULL));
  PetscCall(PetscOptionsReal("-pc_neumann_deflation_coarse_pivot_rtol", "Relative Cholesky pivot of E below which E is declared singular", "PCNEUMANN", nm->dpivot_rtol, &nm->dpivot_rtol, NULL));
  PetscCall(PetscOptionsEnum("-pc_neumann_deflation_variant", "Two-level form: adef2 (P^T M^-1 + Q, guess corrected in PCPreSolve) or bnn (P^T M^-1 P + Q)", "PCNeumannSetDeflationVariant", PCNeumannDeflationVariants, (PetscEnum)nm->variant, (PetscEnum *)&nm->variant, NULL));
  PetscOptionsHeadEnd();
  PetscCallCXX(delete nm->defl); /* rebuilt with the new options at the next setup or application */
  nm->defl = nullptr;
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
  if (nm->deflation) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  two-level (deflated) preconditioner, %s\n", nm->variant == PC_NEUMANN_DEFLATION_BNN ? "BNN: P^T M^-1 P + Q" : "A-DEF2: P^T M^-1 + Q, initial guess corrected to x0 + Q (b - A x0) in PCPreSolve"));
    if (nm->defl) {
      char blk[128] = "";
      if (nm->dbuilt == KSP_DCG_SPACE_BLOCKS) PetscCall(PetscSNPrintf(blk, sizeof(blk), " %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT, nm->dbuilt_blocks[0], nm->dbuilt_blocks[1], nm->dbuilt_blocks[2]));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  deflation space: %s%s, %" PetscInt_FMT " vectors\n", KSPDCGSpaceTypes[nm->dbuilt], blk, nm->defl->d));
    } else PetscCall(PetscViewerASCIIPrintf(viewer, "  deflation space: %s\n", nm->dspace_set ? KSPDCGSpaceTypes[nm->dspace] : (nm->Zuser ? "user" : "default (blocks with a DMDA, else chunks)")));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  coarse solve: %s of E = Z^T A Z (replicated on every rank, on the device), singular below relative pivot %g\n", KSPDCGCoarseTypes[nm->dcoarse], (double)nm->dpivot_rtol));
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "  one-level (no deflation)\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  execution space: %s\n", petsckp::ExecSpace::name()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCNEUMANN - the truncated Neumann series preconditioner of Gupta, van Gijzen and Vuik: the symmetric
   Gauss-Seidel preconditioner M = (D + L) D^-1 (D + L^T) with its triangular inverses replaced by truncated
   Neumann series, so that it is applied with sparse matrix-vector products only (no triangular solves)

   Options Database Keys:
+  -pc_neumann_terms <k>                               - highest power k of (-L D^-1) kept in the series (default 1):
                                                         0 is Jacobi, 1 is the paper's Neu1, 2 is Neu2; any k >= 0
.  -pc_neumann_deflation                               - the two-level (deflated) preconditioner, with the default
                                                         space: the user's Z (`PCNeumannSetDeflationSpace()`), else
                                                         DMDA blocks when the PC (or its KSP) has a DMDA, else chunks
.  -pc_neumann_deflation_space <none,chunks,blocks,user> - the deflation space (any value but none turns deflation on);
                                                         the spaces of `KSPDCG`, built by the same code
.  -pc_neumann_deflation_subdomains <d>                - number of chunks (contiguous ranges of the natural grid
                                                         ordering with a DMDA; default 2 sqrt(N), at most 2048)
.  -pc_neumann_deflation_blocks <bx,by,bz>             - DMDA boxes per direction (default min(8, n/4) each)
.  -pc_neumann_deflation_coarse <cholesky,inverse>     - solve with E = Z^T A Z through its Cholesky factor (default:
                                                        L^-1 kept, two triangular matrix-vector products per solve)
                                                        or its explicit inverse (one product; see `KSPDCG`)
.  -pc_neumann_deflation_coarse_pivot_rtol <tol>       - relative Cholesky pivot under which E is singular (1e-13)
-  -pc_neumann_deflation_variant <adef2,bnn>           - the two-level form (default adef2, see below)

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

   Two-level variant (deflation, for users of a plain `KSPCG`): with a deflation space Z (N x d), E = Z^T A Z,
   Q = Z E^-1 Z^T and P = I - A Q, `-pc_neumann_deflation` turns M^-1 into the A-DEF2 preconditioner of Tang, Nabben,
   Vuik and Erlangga (J. Sci. Comput. 39, 2009),
.vb
      P_A-DEF2 = P^T M^-1 + Q,   applied as   y = M^-1 r,  z = y + Q (r - A y)
.ve
   (one restriction Z^T r - (AZ)^T y, one `MPI_Allreduce()` of d values, one coarse solve and one prolongation per
   application, on the device). A-DEF2 is not a symmetric operator, but the preconditioner corrects the initial guess
   in `PCPreSolve()` to x0 + Q (b - A x0) (a zero guess becomes Q b), so that Z^T r0 = 0; then every residual that CG
   produces keeps Z^T r = 0, and on those vectors A-DEF2 equals the symmetric positive definite BNN operator
   P^T M^-1 P + Q. CG with A-DEF2 therefore runs as CG with BNN, at the cost of one coarse solve instead of two,
   and A-DEF2 is the variant that Tang et al. find the most robust to inexact coarse solves and rounding; it produces
   the same iterates as DEF1 (`KSPDCG`) and as `PCDEFLATION` with `-pc_deflation_correction` (factor 1) with the
   same space. `-pc_neumann_deflation_variant bnn` applies BNN itself (symmetric for any start, e.g. when the
   preconditioner is applied outside `KSPSolve()`; two coarse solves). The operator Amat (not Pmat) defines E, P and
   Q, which are rebuilt when it changes; A must be symmetric. `-ksp_pc_side symmetric` is not available with
   deflation. Do not combine the deflation of this preconditioner with `KSPDCG`, which deflates by itself.

   This is unrelated to PETSc's `PCNN` (Neumann-Neumann domain decomposition).

   Reference:
   R. Gupta, M. B. van Gijzen, C. Vuik, Efficient two-level preconditioned conjugate gradient method on the
   GPU, VECPAR 2012, LNCS 7851.

.seealso: `PCCreate()`, `PCSetType()`, `PCNeumannSetTerms()`, `PCNeumannSetDeflationSpace()`, `PCNeumannSetDeflationSpaceType()`,
          `PCNeumannSetDeflationVariant()`, `PCJACOBI`, `PCSOR`, `KSPCG`, `KSPDCG`, `PCDEFLATION`
M*/
PETSC_INTERN PetscErrorCode PCCreate_Neumann(PC pc)
{
  PC_Neumann *nm;

  PetscFunctionBegin;
  PetscCall(petsckp::TypeDataCreate(&pc->data, &nm));

  pc->ops->apply               = PCApply_Neumann;
  pc->ops->applysymmetricleft  = PCApplySymmetricLeft_Neumann;
  pc->ops->applysymmetricright = PCApplySymmetricRight_Neumann;
  pc->ops->setup               = PCSetUp_Neumann;
  pc->ops->reset               = PCReset_Neumann;
  pc->ops->destroy             = PCDestroy_Neumann;
  pc->ops->setfromoptions      = PCSetFromOptions_Neumann;
  pc->ops->view                = PCView_Neumann;
  pc->ops->presolve            = PCPreSolve_Neumann;
  pc->ops->postsolve           = PCPostSolve_Neumann;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetTerms_C", PCNeumannSetTerms_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannGetTerms_C", PCNeumannGetTerms_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetDeflationSpaceType_C", PCNeumannSetDeflationSpaceType_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetDeflationSpace_C", PCNeumannSetDeflationSpace_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetDeflationVariant_C", PCNeumannSetDeflationVariant_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannCreateDeflationSpaceMat_C", PCNeumannCreateDeflationSpaceMat_Neumann));
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

/*@
  PCNeumannSetDeflationSpaceType - turns `PCNEUMANN` into its two-level (deflated) variant with a built-in space, or
  back into the one-level preconditioner

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- type - `KSP_DCG_SPACE_CHUNKS` (contiguous index ranges), `KSP_DCG_SPACE_BLOCKS` (boxes of the DMDA of the PC or of
         its KSP), `KSP_DCG_SPACE_USER` (the space of `PCNeumannSetDeflationSpace()`) or `KSP_DCG_SPACE_NONE` (no deflation)

  Options Database Keys:
+ -pc_neumann_deflation_space <none,chunks,blocks,user> - the space
. -pc_neumann_deflation_subdomains <d>                  - number of chunks
- -pc_neumann_deflation_blocks <bx,by,bz>               - DMDA boxes per direction

  Level: intermediate

.seealso: `PCNEUMANN`, `PCNeumannSetDeflationSpace()`, `PCNeumannSetDeflationVariant()`, `KSPDCG`
@*/
PetscErrorCode PCNeumannSetDeflationSpaceType(PC pc, KSPDCGSpaceType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscTryMethod(pc, "PCNeumannSetDeflationSpaceType_C", (PC, KSPDCGSpaceType), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannSetDeflationSpace - gives `PCNEUMANN` a deflation space Z and turns on its two-level (deflated) variant

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- Z  - an N x d matrix (AIJ or dense, rows distributed as those of the operator) whose columns span the space

  Level: intermediate

  Note:
  The columns must be linearly independent and Z^T A Z nonsingular; otherwise the setup stops with an error.

.seealso: `PCNEUMANN`, `PCNeumannSetDeflationSpaceType()`, `PCNeumannCreateDeflationSpaceMat()`, `KSPDCGSetDeflationSpace()`
@*/
PetscErrorCode PCNeumannSetDeflationSpace(PC pc, Mat Z)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidHeaderSpecific(Z, MAT_CLASSID, 2);
  PetscTryMethod(pc, "PCNeumannSetDeflationSpace_C", (PC, Mat), (pc, Z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannSetDeflationVariant - chooses the two-level form of `PCNEUMANN` with deflation

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- v  - `PC_NEUMANN_DEFLATION_ADEF2` (P^T M^-1 + Q with the initial guess corrected in `PCPreSolve()`; default) or
       `PC_NEUMANN_DEFLATION_BNN` (P^T M^-1 P + Q)

  Options Database Key:
. -pc_neumann_deflation_variant <adef2,bnn> - the variant

  Level: advanced

.seealso: `PCNEUMANN`, `PCNeumannSetDeflationSpaceType()`
@*/
PetscErrorCode PCNeumannSetDeflationVariant(PC pc, PCNeumannDeflationVariant v)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, v, 2);
  PetscTryMethod(pc, "PCNeumannSetDeflationVariant_C", (PC, PCNeumannDeflationVariant), (pc, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannCreateDeflationSpaceMat - the deflation space that `PCNEUMANN` uses, as a new AIJ matrix (N x d), e.g. to
  give `PCDEFLATION` the same space with `PCDeflationSetSpace()`

  Collective

  Input Parameter:
. pc - the preconditioner, with its operators set and deflation turned on

  Output Parameter:
. Z - the space (destroy it with `MatDestroy()`)

  Level: advanced

.seealso: `PCNEUMANN`, `PCNeumannSetDeflationSpace()`, `KSPDCGCreateSpaceMat()`
@*/
PetscErrorCode PCNeumannCreateDeflationSpaceMat(PC pc, Mat *Z)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(Z, 2);
  PetscUseMethod(pc, "PCNeumannCreateDeflationSpaceMat_C", (PC, Mat *), (pc, Z));
  PetscFunctionReturn(PETSC_SUCCESS);
}
