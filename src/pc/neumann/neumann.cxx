/*
   neumann.cxx - PCNEUMANN: the truncated Neumann series of the symmetric Gauss-Seidel factors
   (R. Gupta, M. B. van Gijzen, C. Vuik, "Efficient two-level preconditioned conjugate gradient method on the
   GPU", VECPAR 2012), applied with Kokkos kernels.

   With -pc_neumann_deflation it becomes the two-level (deflated) preconditioner A-DEF2 (or BNN) with the deflation
   spaces of KSPDCG (petsckp::Deflation, src/sys/kp_deflation).

   Routines: PCSetUp_Neumann, PCApply_Neumann, PCApplySymmetricLeft/Right_Neumann, PCPreSolve/PostSolve_Neumann,
   PCReset_Neumann, PCDestroy_Neumann, PCSetFromOptions_Neumann, PCView_Neumann, PCCreate_Neumann,
   PCNeumannSet/GetTerms, PCNeumannSet/GetDeflation, PCNeumannSet/GetDeflationSpaceType, PCNeumannSetDeflationSpace,
   PCNeumannSet/GetDeflationSubdomains, PCNeumannSet/GetDeflationBlocks, PCNeumannSet/GetDeflationCoarseType,
   PCNeumannSet/GetDeflationCoarsePivotRtol, PCNeumannSet/GetDeflationVariant, PCNeumannCreateDeflationSpaceMat.
*/
#include "petsckp_types.h" /*I "petsckp.h" I*/
#include "kp_sys.hpp"
#include "kp_deflation.hpp"
#include "neumann_kernels.hpp"
#include <array>

const char *const PCNeumannDeflationSpaceTypes[]  = {"none", "chunks", "blocks", "user", "PCNeumannDeflationSpaceType", "PC_NEUMANN_DEFLATION_SPACE_", nullptr};
const char *const PCNeumannDeflationCoarseTypes[] = {"cholesky", "inverse", "PCNeumannDeflationCoarseType", "PC_NEUMANN_DEFLATION_COARSE_", nullptr};
const char *const PCNeumannDeflationVariants[]    = {"adef2", "bnn", "PCNeumannDeflationVariant", "PC_NEUMANN_DEFLATION_", nullptr};

static_assert((int)petsckp::DeflationSpaceType::None == (int)PC_NEUMANN_DEFLATION_SPACE_NONE && (int)petsckp::DeflationSpaceType::Chunks == (int)PC_NEUMANN_DEFLATION_SPACE_CHUNKS && (int)petsckp::DeflationSpaceType::Blocks == (int)PC_NEUMANN_DEFLATION_SPACE_BLOCKS && (int)petsckp::DeflationSpaceType::User == (int)PC_NEUMANN_DEFLATION_SPACE_USER, "PCNeumannDeflationSpaceType and petsckp::DeflationSpaceType must agree");
static_assert((int)petsckp::DenseSpdForm::Cholesky == (int)PC_NEUMANN_DEFLATION_COARSE_CHOLESKY && (int)petsckp::DenseSpdForm::Inverse == (int)PC_NEUMANN_DEFLATION_COARSE_INVERSE, "PCNeumannDeflationCoarseType and petsckp::DenseSpdForm must agree");

struct PC_Neumann {
  PetscInt                                  terms = 1;           /* k: highest power of (-L D^-1) kept in the series */
  PetscInt                                  depth = -1;          /* petsckp::neumann::SeriesDepth() of the local L D^-1 (-1: not computed) */
  PetscObjectState                          depth_nzstate = -1;  /* nonzero state of Pmat for which depth holds */
  PetscKPDeviceMat                          dm    = nullptr;     /* the shared device copy of the preconditioning matrix */
  petsckp::neumann::Factors                   F;                   /* L D^-1, D^-1 U, D^-1 of the rank-local diagonal block */
  std::array<petsckp::View<PetscScalar>, 2> work;                /* two work views of the local size */
  PetscReal                                 normB = 0;           /* max over ranks of || L D^-1 ||_inf */
  /* the two-level (deflated) variant */
  PetscBool                    deflation   = PETSC_FALSE;                     /* on (-pc_neumann_deflation, or a space other than none) */
  PCNeumannDeflationSpaceType  dspace      = PC_NEUMANN_DEFLATION_SPACE_NONE; /* the space requested, when dspace_set */
  PetscBool                    dspace_set  = PETSC_FALSE;                     /* otherwise: the user's Z if given, else DMDA blocks, else chunks */
  PetscInt                     dsubdomains = 0;                               /* chunks (0: 2 sqrt(N)) */
  PetscInt                     dblocks[3]  = {0, 0, 0};                       /* DMDA boxes per direction (0: min(8, n/4)) */
  PCNeumannDeflationCoarseType dcoarse     = PC_NEUMANN_DEFLATION_COARSE_CHOLESKY;
  PetscReal                    dpivot_rtol = 1e-13;
  PCNeumannDeflationVariant    variant     = PC_NEUMANN_DEFLATION_ADEF2;
  Mat                          Zuser       = nullptr;
  petsckp::Deflation          *defl        = nullptr;                         /* Z, AZ, E; rebuilt when Amat or a deflation setting changes */
  PCNeumannDeflationSpaceType  dbuilt      = PC_NEUMANN_DEFLATION_SPACE_NONE; /* the space built */
  PetscInt                     dbuilt_blocks[3] = {0, 0, 0};
  Vec                          dwork          = nullptr;
  PetscBool                    restore_guess  = PETSC_FALSE; /* PCPreSolve turned the KSP's zero initial guess into Q b */
  PetscBool                    norm_replaced  = PETSC_FALSE; /* PCPreSolve replaced the KSP's default preconditioned norm */
};

/* the option prefix of the PC, for error messages that name an option */
static const char *OptionsPrefix(PC pc) { return ((PetscObject)pc)->prefix ? ((PetscObject)pc)->prefix : ""; }

/* an entry of an enum's string table (n values), with the index checked */
static const char *EnumName(const char *const *table, int n, int v) { return v >= 0 && v < n ? table[v] : "(invalid value)"; }

/* the number of terms the application uses: k capped at the depth d of L D^-1 (computed on the host from the structure
   when k > 2, at most n - 1), since (L D^-1)^j = 0 for j > d: more terms add zeros to an already exact symmetric
   Gauss-Seidel. Local: each rank's diagonal block has its own depth. */
static PetscInt PCNeumannTermsUsed(PC_Neumann *nm)
{
  PetscInt k = nm->terms;

  if (k > PetscMax(nm->F.n - 1, 0)) k = PetscMax(nm->F.n - 1, 0);
  if (k > 2) {
    if (nm->depth < 0) nm->depth = petsckp::neumann::SeriesDepth(nm->F.B);
    if (k > nm->depth) k = nm->depth;
  }
  return k;
}

/* a deflation setting changed: Z, AZ and E are rebuilt at the next setup or application */
static PetscErrorCode PCNeumannDeflationReset(PC_Neumann *nm)
{
  PetscFunctionBegin;
  PetscCallCXX(delete nm->defl);
  nm->defl = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A-DEF2 and BNN restrict r - A y as Z^T r - (AZ)^T y (one pass), which is Z^T (r - A y) only when Z^T A = (AZ)^T,
   i.e. for a symmetric A; with a nonsymmetric A (e.g. KSP ex45's Dirichlet rows, identity rows that their neighbours
   still couple to) the coarse correction is wrong and CG stagnates. The test on one random vector y: the relative
   difference of Z^T (A y) and (AZ)^T y (rounding for a symmetric A). */
static PetscErrorCode PCNeumannResidualRestrictionError(PC pc, PetscReal *rel)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;
  Vec         y, r;
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(pc->mat, &y, &r));
  PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)pc), &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(VecSetRandom(y, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatMult(pc->mat, y, r));
  PetscCall(nm->defl->ResidualRestrictionAsymmetry(r, y, rel));
  PetscCall(PetscInfo(pc, "PCNEUMANN deflation: Z^T A y and (A Z)^T y differ by %g (relative; a symmetric A: rounding)\n", (double)*rel));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* builds (or rebuilds, after a change of the operator Amat or of the options) Z, AZ and E of the two-level variant
   with the space builder shared with KSPDCG; a no-op when nothing changed */
static PetscErrorCode PCNeumannSetUpDeflation(PC pc)
{
  PC_Neumann                    *nm = (PC_Neumann *)pc->data;
  PetscObjectState               st;
  petsckp::DeflationSpaceOptions opt;
  petsckp::DeflationSpaceType    built;
  char                           prefix[256];

  PetscFunctionBegin;
  if (!nm->deflation) {
    PetscCall(PCNeumannDeflationReset(nm));
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
  opt.form       = (petsckp::DenseSpdForm)nm->dcoarse;
  opt.pivot_rtol = nm->dpivot_rtol;
  /* the option names in the messages of the space builder carry the PC's prefix */
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "-%spc_neumann_deflation", OptionsPrefix(pc)));
  /* the operator Amat (not Pmat) defines the projections, as in KSPDCG */
  PetscCall(petsckp::DeflationCreate(pc->mat, pc->dm, nm->Zuser, opt, prefix, &nm->defl, &built, nm->dbuilt_blocks));
  nm->dbuilt = (PCNeumannDeflationSpaceType)built;
  if (nm->defl) PetscCall(nm->defl->PrepareResidualRestriction()); /* (AZ)^T for the A-DEF2 coarse correction */
  if (nm->defl) PetscCall(PetscInfo(pc, "PCNEUMANN deflation: %" PetscInt_FMT " vectors, E relative min Cholesky pivot %g\n", nm->defl->d, (double)nm->defl->E.min_pivot));
  PetscCall(PetscLogEventEnd(PC_Neumann_DeflSetup, pc, 0, 0, 0));
  if (nm->defl) {
    PetscReal rel;
    PetscCall(PCNeumannResidualRestrictionError(pc, &rel));
    /* refused: the space is dropped, so that a later setup with the same operator checks again */
    if (rel > 1e-8) PetscCall(PCNeumannDeflationReset(nm));
    PetscCheck(rel <= 1e-8, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "%s needs a symmetric operator: Z^T A differs from (A Z)^T by %g (relative), so A is not symmetric (e.g. Dirichlet rows kept as identity rows that other rows couple to: eliminate them, or keep the symmetry with MatZeroRowsColumns()); deflated CG (-ksp_type dcg) handles a nonsymmetric operator, or use PCNEUMANN without deflation", prefix, (double)rel);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannSetTerms_Neumann(PC pc, PetscInt k)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCheck(k >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_neumann_terms must be >= 0 (0 is Jacobi), not %" PetscInt_FMT, OptionsPrefix(pc), k);
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

static PetscErrorCode PCNeumannSetDeflation_Neumann(PC pc, PetscBool flg)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  if (flg == nm->deflation) PetscFunctionReturn(PETSC_SUCCESS);
  nm->deflation = flg;
  if (flg && nm->dspace_set && nm->dspace == PC_NEUMANN_DEFLATION_SPACE_NONE) nm->dspace_set = PETSC_FALSE; /* the default space */
  PetscCall(PCNeumannDeflationReset(nm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannGetDeflation_Neumann(PC pc, PetscBool *flg)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  *flg = nm->deflation;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannSetDeflationSpaceType_Neumann(PC pc, PCNeumannDeflationSpaceType type)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCheck(type >= PC_NEUMANN_DEFLATION_SPACE_NONE && type <= PC_NEUMANN_DEFLATION_SPACE_USER, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_neumann_deflation_space: %d is not a PCNeumannDeflationSpaceType (none, chunks, blocks or user)", OptionsPrefix(pc), (int)type);
  if (nm->dspace_set && type == nm->dspace && nm->deflation == (type != PC_NEUMANN_DEFLATION_SPACE_NONE ? PETSC_TRUE : PETSC_FALSE)) PetscFunctionReturn(PETSC_SUCCESS);
  nm->dspace     = type;
  nm->dspace_set = PETSC_TRUE;
  nm->deflation  = type == PC_NEUMANN_DEFLATION_SPACE_NONE ? PETSC_FALSE : PETSC_TRUE;
  PetscCall(PCNeumannDeflationReset(nm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannGetDeflationSpaceType_Neumann(PC pc, PCNeumannDeflationSpaceType *type)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  if (!nm->deflation) *type = PC_NEUMANN_DEFLATION_SPACE_NONE;
  else if (nm->dspace_set) *type = nm->dspace;
  else if (nm->defl) *type = nm->dbuilt;
  else {
    /* the default that the setup will choose (it falls back to chunks when the DMDA's grid does not match the matrix) */
    PetscBool isda = PETSC_FALSE;
    if (pc->dm) PetscCall(PetscObjectTypeCompare((PetscObject)pc->dm, DMDA, &isda));
    *type = nm->Zuser ? PC_NEUMANN_DEFLATION_SPACE_USER : (isda ? PC_NEUMANN_DEFLATION_SPACE_BLOCKS : PC_NEUMANN_DEFLATION_SPACE_CHUNKS);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannSetDeflationSpace_Neumann(PC pc, Mat Z)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCall(PetscObjectReference((PetscObject)Z));
  PetscCall(MatDestroy(&nm->Zuser));
  nm->Zuser = Z;
  PetscCall(PCNeumannSetDeflationSpaceType_Neumann(pc, PC_NEUMANN_DEFLATION_SPACE_USER));
  PetscCall(PCNeumannDeflationReset(nm)); /* a new Z, also when the type was user already */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannSetDeflationSubdomains_Neumann(PC pc, PetscInt d)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCheck(d >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_neumann_deflation_subdomains must be >= 1, or 0 for the default 2 sqrt(N), not %" PetscInt_FMT, OptionsPrefix(pc), d);
  if (d == nm->dsubdomains) PetscFunctionReturn(PETSC_SUCCESS);
  nm->dsubdomains = d;
  PetscCall(PCNeumannDeflationReset(nm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannGetDeflationSubdomains_Neumann(PC pc, PetscInt *d)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  *d = nm->dsubdomains;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannSetDeflationBlocks_Neumann(PC pc, PetscInt bx, PetscInt by, PetscInt bz)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;
  PetscInt    b[3] = {bx, by, bz};

  PetscFunctionBegin;
  for (int i = 0; i < 3; i++) PetscCheck(b[i] >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_neumann_deflation_blocks: the number of boxes in direction %d must be >= 1, or 0 for the default min(8, n/4), not %" PetscInt_FMT, OptionsPrefix(pc), i, b[i]);
  if (b[0] == nm->dblocks[0] && b[1] == nm->dblocks[1] && b[2] == nm->dblocks[2]) PetscFunctionReturn(PETSC_SUCCESS);
  for (int i = 0; i < 3; i++) nm->dblocks[i] = b[i];
  PetscCall(PCNeumannDeflationReset(nm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannGetDeflationBlocks_Neumann(PC pc, PetscInt *bx, PetscInt *by, PetscInt *bz)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  if (bx) *bx = nm->dblocks[0];
  if (by) *by = nm->dblocks[1];
  if (bz) *bz = nm->dblocks[2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannSetDeflationCoarseType_Neumann(PC pc, PCNeumannDeflationCoarseType type)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCheck(type == PC_NEUMANN_DEFLATION_COARSE_CHOLESKY || type == PC_NEUMANN_DEFLATION_COARSE_INVERSE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_neumann_deflation_coarse: %d is not a PCNeumannDeflationCoarseType (cholesky or inverse)", OptionsPrefix(pc), (int)type);
  if (type == nm->dcoarse) PetscFunctionReturn(PETSC_SUCCESS);
  nm->dcoarse = type;
  PetscCall(PCNeumannDeflationReset(nm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannGetDeflationCoarseType_Neumann(PC pc, PCNeumannDeflationCoarseType *type)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  *type = nm->dcoarse;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannSetDeflationCoarsePivotRtol_Neumann(PC pc, PetscReal rtol)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCheck(rtol >= 0 && rtol < 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_neumann_deflation_coarse_pivot_rtol must be in [0, 1), not %g", OptionsPrefix(pc), (double)rtol); /* false for NaN */
  if (rtol == nm->dpivot_rtol) PetscFunctionReturn(PETSC_SUCCESS);
  nm->dpivot_rtol = rtol;
  PetscCall(PCNeumannDeflationReset(nm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannGetDeflationCoarsePivotRtol_Neumann(PC pc, PetscReal *rtol)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  *rtol = nm->dpivot_rtol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannSetDeflationVariant_Neumann(PC pc, PCNeumannDeflationVariant v)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCheck(v == PC_NEUMANN_DEFLATION_ADEF2 || v == PC_NEUMANN_DEFLATION_BNN, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-%spc_neumann_deflation_variant: %d is not a PCNeumannDeflationVariant (adef2 or bnn)", OptionsPrefix(pc), (int)v);
  nm->variant = v; /* Z, AZ and E serve both variants */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannGetDeflationVariant_Neumann(PC pc, PCNeumannDeflationVariant *v)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  *v = nm->variant;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannCreateDeflationSpaceMat_Neumann(PC pc, Mat *Z)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCSetUp(pc));
  PetscCall(PCNeumannSetUpDeflation(pc));
  PetscCheck(nm->defl, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCNEUMANN has no deflation space (use -%spc_neumann_deflation)", OptionsPrefix(pc));
  PetscCall(nm->defl->CreateZMat(pc->mat, Z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_Neumann(PC pc)
{
  PC_Neumann               *nm = (PC_Neumann *)pc->data;
  petsckp::neumann::SetupInfo info;
  PetscInt                  rstart, m, loc[2], glob[2], ghostrow;
  PetscObjectState          nzstate;
  MPI_Comm                  comm = PetscObjectComm((PetscObject)pc);
  PetscReal                 nb;

  PetscFunctionBegin;
  PetscCall(petsckp::KokkosInitializeOnce());
  PetscCall(petsckp::MatCheckSquareLayout(pc->pmat, "PCNEUMANN"));
  if (pc->mat != pc->pmat) PetscCall(petsckp::MatCheckSquareLayout(pc->mat, "PCNEUMANN (operator)"));
  PetscCall(PetscLogEventBegin(PC_Neumann_Setup, pc, 0, 0, 0));
  {
    /* the device copy of Pmat shared with the other petsckp solvers of the matrix (e.g. KSPDCG's deflation): made by
       the first of them, its values refreshed here when Pmat changed */
    PetscKPDeviceMat dm;
    PetscCall(petsckp::DeviceMatGetShared(pc->pmat, &dm));
    if (dm != nm->dm) nm->depth = -1;
    PetscCall(PetscKPDeviceMatDestroy(&nm->dm));
    nm->dm = dm;
  }
  PetscCall(MatGetOwnershipRange(pc->pmat, &rstart, NULL));
  PetscCall(MatGetLocalSize(pc->pmat, &m, NULL));
  PetscCall(MatGetNonzeroState(pc->pmat, &nzstate));
  PetscCallCXX(petsckp::neumann::Setup(petsckp::DeviceMatLocalCsr(nm->dm), nm->F, info));
  if (nzstate != nm->depth_nzstate) nm->depth = -1; /* the structure changed */
  nm->depth_nzstate = nzstate;
  /* collective checks: the smallest global row with a NaN/Inf entry (in the diagonal block, which the preconditioner
     uses, or in the couplings to other ranks, which the operator and the deflation use), then with a non-positive
     diagonal */
  PetscCallCXX(ghostrow = petsckp::CsrFirstNonFiniteRow(petsckp::DeviceMatGhostCsr(nm->dm)));
  if (ghostrow >= 0 && (info.nonfinite_row < 0 || ghostrow < info.nonfinite_row)) info.nonfinite_row = ghostrow;
  loc[0] = info.nonfinite_row >= 0 ? rstart + info.nonfinite_row : PETSC_MAX_INT;
  loc[1] = info.bad_diag_row >= 0 ? rstart + info.bad_diag_row : PETSC_MAX_INT;
  PetscCall(MPIU_Allreduce(loc, glob, 2, MPIU_INT, MPI_MIN, comm));
  PetscCheck(glob[0] == PETSC_MAX_INT, comm, PETSC_ERR_FP, "PCNEUMANN: the preconditioning matrix has a NaN or Inf entry in row %" PetscInt_FMT "; fix the matrix", glob[0]);
  if (glob[1] != PETSC_MAX_INT) {
    PetscReal dv = loc[1] == glob[1] ? (PetscReal)info.diag_value : 0, dvg;
    PetscCall(MPIU_Allreduce(&dv, &dvg, 1, MPIU_REAL, MPIU_SUM, comm));
    /* a wrong operator, not a failed factorisation (PCNEUMANN factors nothing): not PETSC_ERR_MAT_LU_ZRPVT */
    SETERRQ(comm, PETSC_ERR_ARG_WRONG, "PCNEUMANN needs a positive diagonal (the Neumann series uses D^-1 and needs an SPD matrix), but row %" PetscInt_FMT " of the preconditioning matrix has diagonal %g%s; fix the matrix or choose another preconditioner", glob[1], (double)dvg, dvg == 0 ? " (zero or missing)" : "");
  }
  nb = info.norm_BInf;
  PetscCall(MPIU_Allreduce(&nb, &nm->normB, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscCall(PetscInfo(pc, "|| L D^-1 ||_inf = %g%s\n", (double)nm->normB, nm->normB >= 1 ? " (>= 1: the Neumann series need not converge, the preconditioner is still SPD)" : ""));
  if ((PetscInt)nm->work[0].extent(0) != m || !nm->work[0].data()) {
    PetscCallCXX(nm->work[0] = petsckp::View<PetscScalar>(std::string("neumann work 1"), m));
    PetscCallCXX(nm->work[1] = petsckp::View<PetscScalar>(std::string("neumann work 2"), m));
  }
  PetscCallCXX((void)PCNeumannTermsUsed(nm)); /* the depth of L D^-1 for a large k, here rather than in the first application */
  PetscCallCXX(petsckp::exec().fence());
  PetscCall(PetscLogEventEnd(PC_Neumann_Setup, pc, 0, 0, 0));
  PetscCall(PCNeumannSetUpDeflation(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* which: 0 full application, 1 left half D^-1/2 K, 2 right half Kt D^-1/2 */
static PetscErrorCode PCNeumannApplyPart(PC pc, Vec x, Vec y, int which)
{
  PC_Neumann                 *nm = (PC_Neumann *)pc->data;
  petsckp::DeviceVec          xv, yv;
  petsckp::UView<PetscScalar> w1(nm->work[0].data(), nm->work[0].extent(0)), w2(nm->work[1].data(), nm->work[1].extent(0));
  PetscInt                    k;

  PetscFunctionBegin;
  PetscCallCXX(k = PCNeumannTermsUsed(nm));
  PetscCall(PetscLogEventBegin(PC_Neumann_Apply, pc, x, y, 0));
  PetscCall(xv.Get(x, petsckp::Access::Read));
  PetscCall(yv.Get(y, petsckp::Access::Write));
  PetscCall(PetscLogGpuTimeBegin());
  if (which == 0) PetscCallCXX(petsckp::neumann::Apply(nm->F, k, xv.cview(), yv.view(), w1, w2));
  else if (which == 1) PetscCallCXX(petsckp::neumann::ApplyLeft(nm->F, k, xv.cview(), yv.view(), w1, w2));
  else PetscCallCXX(petsckp::neumann::ApplyRight(nm->F, k, xv.cview(), yv.view(), w1, w2));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(xv.Restore());
  PetscCall(yv.Restore());
  PetscCall(PetscLogFlops((which == 0 ? 4.0 : 2.0) * k * (nm->F.B.nnz + nm->F.n) + nm->F.n));
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

/* The norm of the stopping test with deflation. The preconditioned norm || B r || of the two-level preconditioner B
   holds the coarse correction Z E^-1 (AZ)^T M^-1 r, which grows with the condition number of E = Z^T A Z (with the
   contrast of the coefficients), and the reference || B b || of the default test holds the coarse solution Q b; so
   || B r || < rtol || B b || says little about || b - A x || / || b || (KSPCG stopped 5 to 10^5 times above rtol on
   Poisson and bubbly-flow problems, with the guess either zero or not). Unless the user chose the norm
   (KSPSetNormType(), -ksp_norm_type), the two-level preconditioner therefore has the KSP test the unpreconditioned
   residual, as KSPDCG does by default, when the KSP supports it on its preconditioner side and uses the default test;
   the replacement lasts while deflation is on (KSPView() shows it), the KSP's own default comes back without it. */
static PetscErrorCode PCNeumannSetKSPNorm(PC pc, KSP ksp)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  if (ksp->normtype_set != KSP_NORM_DEFAULT) {
    nm->norm_replaced = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (nm->defl) {
    if (ksp->normtype == KSP_NORM_PRECONDITIONED && ksp->converged == KSPConvergedDefault && ksp->pc_side >= 0 && ksp->pc_side < PC_SIDE_MAX && ksp->normsupporttable[KSP_NORM_UNPRECONDITIONED][ksp->pc_side] > 0) {
      ksp->normtype     = KSP_NORM_UNPRECONDITIONED;
      nm->norm_replaced = PETSC_TRUE;
      PetscCall(PetscInfo(pc, "PCNEUMANN deflation: the KSP tests the unpreconditioned residual norm (its default, the preconditioned norm, measures the coarse correction); -ksp_norm_type preconditioned keeps that\n"));
    }
  } else if (nm->norm_replaced) {
    if (ksp->normtype == KSP_NORM_UNPRECONDITIONED) ksp->normtype = KSP_NORM_PRECONDITIONED;
    nm->norm_replaced = PETSC_FALSE;
  }
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
  PetscCall(PCNeumannSetUpDeflation(pc));
  if (ksp) PetscCall(PCNeumannSetKSPNorm(pc, ksp));
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
  PetscCallCXX(nm->F = petsckp::neumann::Factors());
  PetscCallCXX(nm->work[0] = petsckp::View<PetscScalar>());
  PetscCallCXX(nm->work[1] = petsckp::View<PetscScalar>());
  nm->depth = -1;
  PetscCall(PCNeumannDeflationReset(nm));
  PetscCall(VecDestroy(&nm->dwork));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_Neumann(PC pc)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;
  const char *names[] = {"PCNeumannSetTerms_C", "PCNeumannGetTerms_C", "PCNeumannSetDeflation_C", "PCNeumannGetDeflation_C", "PCNeumannSetDeflationSpaceType_C", "PCNeumannGetDeflationSpaceType_C", "PCNeumannSetDeflationSpace_C", "PCNeumannSetDeflationSubdomains_C", "PCNeumannGetDeflationSubdomains_C", "PCNeumannSetDeflationBlocks_C", "PCNeumannGetDeflationBlocks_C", "PCNeumannSetDeflationCoarseType_C", "PCNeumannGetDeflationCoarseType_C", "PCNeumannSetDeflationCoarsePivotRtol_C", "PCNeumannGetDeflationCoarsePivotRtol_C", "PCNeumannSetDeflationVariant_C", "PCNeumannGetDeflationVariant_C", "PCNeumannCreateDeflationSpaceMat_C"};

  PetscFunctionBegin;
  PetscCall(PCReset_Neumann(pc));
  PetscCall(MatDestroy(&nm->Zuser));
  for (const char *name : names) PetscCall(PetscObjectComposeFunction((PetscObject)pc, name, NULL));
  PetscCall(petsckp::TypeDataDestroy<PC_Neumann>(&pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* every option goes through its setter, which validates it and rebuilds the deflation only when a value changes */
static PetscErrorCode PCSetFromOptions_Neumann(PC pc, PETSCKP_OPTIONS_ARG)
{
  PC_Neumann                  *nm = (PC_Neumann *)pc->data;
  PetscInt                     k = nm->terms, d = nm->dsubdomains, b[3] = {nm->dblocks[0], nm->dblocks[1], nm->dblocks[2]}, nb = 3;
  PetscBool                    flg, on = nm->deflation;
  PCNeumannDeflationSpaceType  space   = nm->dspace;
  PCNeumannDeflationCoarseType coarse  = nm->dcoarse;
  PCNeumannDeflationVariant    variant = nm->variant;
  PetscReal                    rtol    = nm->dpivot_rtol;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Truncated Neumann series preconditioner options");
  PetscCall(PetscOptionsInt("-pc_neumann_terms", "Highest power k of (-L D^-1) kept in the series (0: Jacobi, 1: Neu1, 2: Neu2); capped at the setup at the depth d <= n - 1 of L D^-1, from which on the series is exact symmetric Gauss-Seidel", "PCNeumannSetTerms", k, &k, &flg));
  if (flg) PetscCall(PCNeumannSetTerms(pc, k));
  PetscCall(PetscOptionsBool("-pc_neumann_deflation", "Two-level (deflated) preconditioner, with the default space (user Z, else DMDA blocks, else chunks)", "PCNeumannSetDeflation", on, &on, &flg));
  if (flg) PetscCall(PCNeumannSetDeflation(pc, on));
  PetscCall(PetscOptionsEnum("-pc_neumann_deflation_space", "Deflation space of the two-level preconditioner (none: one-level)", "PCNeumannSetDeflationSpaceType", PCNeumannDeflationSpaceTypes, (PetscEnum)space, (PetscEnum *)&space, &flg));
  if (flg) PetscCall(PCNeumannSetDeflationSpaceType(pc, space));
  PetscCall(PetscOptionsInt("-pc_neumann_deflation_subdomains", "Number of chunks (contiguous index ranges; with a DMDA of the natural grid ordering) for space chunks (0: 2 sqrt(N))", "PCNeumannSetDeflationSubdomains", d, &d, &flg));
  if (flg) PetscCall(PCNeumannSetDeflationSubdomains(pc, d));
  PetscCall(PetscOptionsIntArray("-pc_neumann_deflation_blocks", "DMDA boxes per direction bx,by,bz for space blocks (0: min(8, n/4) each)", "PCNeumannSetDeflationBlocks", b, &nb, &flg));
  if (flg) {
    for (PetscInt i = nb; i < 3; i++) b[i] = nb > 0 ? b[nb - 1] : 0;
    PetscCall(PCNeumannSetDeflationBlocks(pc, b[0], b[1], b[2]));
  }
  PetscCall(PetscOptionsEnum("-pc_neumann_deflation_coarse", "Coarse solve with E = Z^T A Z: Cholesky factor or explicit inverse", "PCNeumannSetDeflationCoarseType", PCNeumannDeflationCoarseTypes, (PetscEnum)coarse, (PetscEnum *)&coarse, &flg));
  if (flg) PetscCall(PCNeumannSetDeflationCoarseType(pc, coarse));
  PetscCall(PetscOptionsReal("-pc_neumann_deflation_coarse_pivot_rtol", "Relative Cholesky pivot of E below which E is declared singular, in [0, 1)", "PCNeumannSetDeflationCoarsePivotRtol", rtol, &rtol, &flg));
  if (flg) PetscCall(PCNeumannSetDeflationCoarsePivotRtol(pc, rtol));
  PetscCall(PetscOptionsEnum("-pc_neumann_deflation_variant", "Two-level form: adef2 (P^T M^-1 + Q, guess corrected in PCPreSolve) or bnn (P^T M^-1 P + Q)", "PCNeumannSetDeflationVariant", PCNeumannDeflationVariants, (PetscEnum)variant, (PetscEnum *)&variant, &flg));
  if (flg) PetscCall(PCNeumannSetDeflationVariant(pc, variant));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_Neumann(PC pc, PetscViewer viewer)
{
  PC_Neumann *nm = (PC_Neumann *)pc->data;
  PetscBool   iascii;
  char        cap[128] = "";

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (pc->setupcalled && nm->dm) {
    PetscInt used, gused;
    PetscCallCXX(used = PCNeumannTermsUsed(nm));
    PetscCall(MPIU_Allreduce(&used, &gused, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)pc)));
    if (gused < nm->terms) PetscCall(PetscSNPrintf(cap, sizeof(cap), " (capped at %" PetscInt_FMT ": exact symmetric Gauss-Seidel)", gused));
  }
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "truncated Neumann series M^-1 = K^T D^-1 K, K = sum_{j<=k} (-L D^-1)^j, terms k = %" PetscInt_FMT "%s%s\n", nm->terms, nm->terms == 0 ? " (Jacobi)" : "", cap));
  PetscCall(PetscViewerASCIIPrintf(viewer, "scope: rank-local diagonal blocks (no communication)\n"));
  if (pc->setupcalled && nm->dm) PetscCall(PetscViewerASCIIPrintf(viewer, "|| L D^-1 ||_inf = %g\n", (double)nm->normB));
  if (nm->deflation) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "two-level (deflated) preconditioner, %s\n", nm->variant == PC_NEUMANN_DEFLATION_BNN ? "BNN: P^T M^-1 P + Q" : "A-DEF2: P^T M^-1 + Q, initial guess corrected to x0 + Q (b - A x0) in PCPreSolve"));
    if (nm->defl) {
      char blk[128] = "";
      if (nm->dbuilt == PC_NEUMANN_DEFLATION_SPACE_BLOCKS) PetscCall(PetscSNPrintf(blk, sizeof(blk), " %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT, nm->dbuilt_blocks[0], nm->dbuilt_blocks[1], nm->dbuilt_blocks[2]));
      PetscCall(PetscViewerASCIIPrintf(viewer, "deflation space: %s%s, %" PetscInt_FMT " vectors\n", EnumName(PCNeumannDeflationSpaceTypes, 4, (int)nm->dbuilt), blk, nm->defl->d));
    } else PetscCall(PetscViewerASCIIPrintf(viewer, "deflation space: %s\n", nm->dspace_set ? EnumName(PCNeumannDeflationSpaceTypes, 4, (int)nm->dspace) : (nm->Zuser ? "user" : "default (blocks with a DMDA, else chunks)")));
    PetscCall(PetscViewerASCIIPrintf(viewer, "coarse solve: %s of E = Z^T A Z (replicated on every rank, on the device), singular below relative pivot %g\n", EnumName(PCNeumannDeflationCoarseTypes, 2, (int)nm->dcoarse), (double)nm->dpivot_rtol));
    if (nm->norm_replaced) PetscCall(PetscViewerASCIIPrintf(viewer, "stopping test of the KSP on the unpreconditioned residual norm (the preconditioned norm measures the coarse correction)\n"));
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "one-level (no deflation)\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "execution space: %s\n", petsckp::ExecSpace::name()));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCNEUMANN - the truncated Neumann series preconditioner of Gupta, van Gijzen and Vuik: the symmetric
   Gauss-Seidel preconditioner M = (D + L) D^-1 (D + L^T) with its triangular inverses replaced by truncated
   Neumann series, so that it is applied with sparse matrix-vector products only (no triangular solves)

   Options Database Keys:
+  -pc_neumann_terms <k>                               - highest power k of (-L D^-1) kept in the series (default 1):
                                                         0 is Jacobi, 1 is the paper's Neu1, 2 is Neu2; any k >= 0,
                                                         capped at the setup at the depth d of L D^-1 (see below)
.  -pc_neumann_deflation                               - the two-level (deflated) preconditioner, with the default
                                                         space: the user's Z (`PCNeumannSetDeflationSpace()`), else
                                                         DMDA blocks when the PC (or its KSP) has a DMDA, else chunks
.  -pc_neumann_deflation_space <none,chunks,blocks,user> - the deflation space (any value but none turns deflation on);
                                                         the spaces of `KSPDCG`, built by the same code
.  -pc_neumann_deflation_subdomains <d>                - number of chunks (contiguous ranges of the natural grid
                                                         ordering with a DMDA; 0, the default: 2 sqrt(N), at most 2048)
.  -pc_neumann_deflation_blocks <bx,by,bz>             - DMDA boxes per direction (0, the default: min(8, n/4) each)
.  -pc_neumann_deflation_coarse <cholesky,inverse>     - solve with E = Z^T A Z through its Cholesky factor (default:
                                                        L^-1 kept, two triangular matrix-vector products per solve)
                                                        or its explicit inverse (one product; see `KSPDCG`)
.  -pc_neumann_deflation_coarse_pivot_rtol <tol>       - relative Cholesky pivot under which E is singular, in [0, 1)
                                                         (default 1e-13)
-  -pc_neumann_deflation_variant <adef2,bnn>           - the two-level form (default adef2, see below)

   Level: intermediate

   Notes:
   With A = L + D + L^T (strictly lower part, diagonal, strictly upper part), the preconditioner is
   M^-1 = K^T D^-1 K with K = sum_{j=0..k} (-L D^-1)^j. It is applied in Horner form with the prescaled
   triangles L D^-1 and D^-1 L^T: 2k sparse products with a strict triangle and one diagonal scaling, all on the
   device (Kokkos). Since L D^-1 is nilpotent, K = (I + L D^-1)^-1 exactly once k reaches the depth d of L D^-1, the
   length of the longest chain i_0 > i_1 > ... > i_d of stored entries (i_{l-1}, i_l) of L (d <= n - 1; d = 2m - 2 for
   the 5-point stencil on an m x m grid in lexicographic order): the preconditioner is then exactly symmetric
   Gauss-Seidel (`PCSOR` with `-pc_sor_symmetric`, omega = 1). The setup therefore caps k at d (computed from the
   structure, on the host, when k > 2), and `PCView()` shows the cap; `PCNeumannGetTerms()` returns the k set.

   M^-1 is symmetric positive definite for every k when A is symmetric with a positive diagonal, so the
   preconditioner may be used with `KSPCG` (and with petsckp's `KSPDCG`, deflated CG). `-ksp_pc_side symmetric`
   is supported (D^-1/2 K and K^T D^-1/2). A diagonal entry that is zero or negative is an error naming the row;
   so is a NaN or Inf entry anywhere in the preconditioning matrix (also in the couplings to other ranks).

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
   Q, which are rebuilt when it changes or a deflation setting changes (`PCSetFromOptions()` without such a change
   keeps them); A must be symmetric (the setup checks Z^T A y = (AZ)^T y for a random y and refuses a nonsymmetric A, e.g. KSP ex45's Dirichlet identity rows, for which `KSPDCG` is the deflated solver). `-ksp_pc_side symmetric` is not available with deflation. Do not combine the
   deflation of this preconditioner with `KSPDCG`, which deflates by itself.

   Stopping test with deflation: the preconditioned residual norm of the two-level preconditioner contains the coarse
   correction Z E^-1 (AZ)^T M^-1 r, which grows with the condition number of E (the contrast of the coefficients), so
   the default test of `KSPCG` in that norm stopped 5 to 10^5 times above rtol in the true relative residual. Unless the
   norm was chosen (`KSPSetNormType()`, `-ksp_norm_type`), the two-level preconditioner therefore has the KSP (if it
   supports it, and with the default convergence test) use the unpreconditioned norm, which `KSPDCG` uses by default:
   the test is then || b - A x || < rtol || b || on the recursively updated residual, and CG + A-DEF2 stops where
   `KSPDCG` stops. `KSPView()` shows the norm used.

   This is unrelated to PETSc's `PCNN` (Neumann-Neumann domain decomposition).

   Reference:
   R. Gupta, M. B. van Gijzen, C. Vuik, Efficient two-level preconditioned conjugate gradient method on the
   GPU, VECPAR 2012, LNCS 7851.

.seealso: `PCCreate()`, `PCSetType()`, `PCNeumannSetTerms()`, `PCNeumannGetTerms()`, `PCNeumannSetDeflation()`,
          `PCNeumannGetDeflation()`, `PCNeumannSetDeflationSpace()`, `PCNeumannSetDeflationSpaceType()`,
          `PCNeumannGetDeflationSpaceType()`, `PCNeumannSetDeflationSubdomains()`, `PCNeumannGetDeflationSubdomains()`,
          `PCNeumannSetDeflationBlocks()`, `PCNeumannGetDeflationBlocks()`, `PCNeumannSetDeflationCoarseType()`,
          `PCNeumannGetDeflationCoarseType()`, `PCNeumannSetDeflationCoarsePivotRtol()`,
          `PCNeumannGetDeflationCoarsePivotRtol()`, `PCNeumannSetDeflationVariant()`, `PCNeumannGetDeflationVariant()`,
          `PCNeumannCreateDeflationSpaceMat()`, `PCNeumannDeflationSpaceType`, `PCNeumannDeflationCoarseType`,
          `PCNeumannDeflationVariant`, `PCJACOBI`, `PCSOR`, `KSPCG`, `KSPDCG`, `PCDEFLATION`
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
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetDeflation_C", PCNeumannSetDeflation_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannGetDeflation_C", PCNeumannGetDeflation_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetDeflationSpaceType_C", PCNeumannSetDeflationSpaceType_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannGetDeflationSpaceType_C", PCNeumannGetDeflationSpaceType_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetDeflationSpace_C", PCNeumannSetDeflationSpace_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetDeflationSubdomains_C", PCNeumannSetDeflationSubdomains_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannGetDeflationSubdomains_C", PCNeumannGetDeflationSubdomains_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetDeflationBlocks_C", PCNeumannSetDeflationBlocks_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannGetDeflationBlocks_C", PCNeumannGetDeflationBlocks_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetDeflationCoarseType_C", PCNeumannSetDeflationCoarseType_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannGetDeflationCoarseType_C", PCNeumannGetDeflationCoarseType_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetDeflationCoarsePivotRtol_C", PCNeumannSetDeflationCoarsePivotRtol_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannGetDeflationCoarsePivotRtol_C", PCNeumannGetDeflationCoarsePivotRtol_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannSetDeflationVariant_C", PCNeumannSetDeflationVariant_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannGetDeflationVariant_C", PCNeumannGetDeflationVariant_Neumann));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNeumannCreateDeflationSpaceMat_C", PCNeumannCreateDeflationSpaceMat_Neumann));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannSetTerms - sets the number of terms k of the truncated Neumann series of `PCNEUMANN`

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- k  - highest power of (-L D^-1) kept: 0 is Jacobi, 1 the paper's Neu1, 2 Neu2; any k >= 0

  Options Database Key:
. -pc_neumann_terms <k> - the number of terms

  Level: intermediate

  Note:
  The setup caps k at the depth d <= n - 1 of L D^-1 (the longest chain of entries of the strictly lower triangle),
  from which on the series is exact symmetric Gauss-Seidel; `PCView()` shows the cap.

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
. k - the number of terms set (the application uses at most the depth of L D^-1, see `PCNeumannSetTerms()`)

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
  PCNeumannSetDeflation - turns the two-level (deflated) variant of `PCNEUMANN` on or off

  Logically Collective

  Input Parameters:
+ pc  - the preconditioner context
- flg - `PETSC_TRUE` for the two-level preconditioner (with the space type set, else the default space: the user's
        Z if given, else DMDA blocks when the PC or its KSP has a DMDA, else chunks), `PETSC_FALSE` for the one-level one

  Options Database Key:
. -pc_neumann_deflation <bool> - the two-level preconditioner

  Level: intermediate

.seealso: `PCNEUMANN`, `PCNeumannGetDeflation()`, `PCNeumannSetDeflationSpaceType()`, `PCNeumannSetDeflationSpace()`
@*/
PetscErrorCode PCNeumannSetDeflation(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, flg, 2);
  PetscTryMethod(pc, "PCNeumannSetDeflation_C", (PC, PetscBool), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannGetDeflation - whether `PCNEUMANN` is the two-level (deflated) preconditioner

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. flg - `PETSC_TRUE` for the two-level preconditioner

  Level: intermediate

.seealso: `PCNEUMANN`, `PCNeumannSetDeflation()`
@*/
PetscErrorCode PCNeumannGetDeflation(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(flg, 2);
  PetscUseMethod(pc, "PCNeumannGetDeflation_C", (PC, PetscBool *), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannSetDeflationSpaceType - turns `PCNEUMANN` into its two-level (deflated) variant with a built-in space, or
  back into the one-level preconditioner

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- type - `PC_NEUMANN_DEFLATION_SPACE_CHUNKS` (contiguous index ranges), `PC_NEUMANN_DEFLATION_SPACE_BLOCKS` (boxes of
         the DMDA of the PC or of its KSP), `PC_NEUMANN_DEFLATION_SPACE_USER` (the space of `PCNeumannSetDeflationSpace()`)
         or `PC_NEUMANN_DEFLATION_SPACE_NONE` (no deflation)

  Options Database Keys:
+ -pc_neumann_deflation_space <none,chunks,blocks,user> - the space
. -pc_neumann_deflation_subdomains <d>                  - number of chunks
- -pc_neumann_deflation_blocks <bx,by,bz>               - DMDA boxes per direction

  Level: intermediate

.seealso: `PCNEUMANN`, `PCNeumannDeflationSpaceType`, `PCNeumannGetDeflationSpaceType()`, `PCNeumannSetDeflationSpace()`,
          `PCNeumannSetDeflationVariant()`, `KSPDCG`
@*/
PetscErrorCode PCNeumannSetDeflationSpaceType(PC pc, PCNeumannDeflationSpaceType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscTryMethod(pc, "PCNeumannSetDeflationSpaceType_C", (PC, PCNeumannDeflationSpaceType), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannGetDeflationSpaceType - gets the deflation space type of `PCNEUMANN`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. type - `PC_NEUMANN_DEFLATION_SPACE_NONE` without deflation; else the type set, or without one the space that
         `PCSetUp()` built (before the setup: the default it will choose, user with a space from
         `PCNeumannSetDeflationSpace()`, else blocks with a DMDA, else chunks)

  Level: intermediate

.seealso: `PCNEUMANN`, `PCNeumannSetDeflationSpaceType()`
@*/
PetscErrorCode PCNeumannGetDeflationSpaceType(PC pc, PCNeumannDeflationSpaceType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(type, 2);
  PetscUseMethod(pc, "PCNeumannGetDeflationSpaceType_C", (PC, PCNeumannDeflationSpaceType *), (pc, type));
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
  PCNeumannSetDeflationSubdomains - sets the number of chunks of the deflation space chunks of `PCNEUMANN`

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- d  - the number of chunks (contiguous ranges of the rows, of the natural grid ordering with a DMDA), 1 to N; 0 for
       the default 2 sqrt(N), at most 2048

  Options Database Key:
. -pc_neumann_deflation_subdomains <d> - the number of chunks

  Level: intermediate

.seealso: `PCNEUMANN`, `PCNeumannGetDeflationSubdomains()`, `PCNeumannSetDeflationSpaceType()`
@*/
PetscErrorCode PCNeumannSetDeflationSubdomains(PC pc, PetscInt d)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, d, 2);
  PetscTryMethod(pc, "PCNeumannSetDeflationSubdomains_C", (PC, PetscInt), (pc, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannGetDeflationSubdomains - gets the number of chunks of the deflation space chunks of `PCNEUMANN`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. d - the number of chunks set (0: the default)

  Level: intermediate

.seealso: `PCNEUMANN`, `PCNeumannSetDeflationSubdomains()`
@*/
PetscErrorCode PCNeumannGetDeflationSubdomains(PC pc, PetscInt *d)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(d, 2);
  PetscUseMethod(pc, "PCNeumannGetDeflationSubdomains_C", (PC, PetscInt *), (pc, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannSetDeflationBlocks - sets the DMDA boxes per direction of the deflation space blocks of `PCNEUMANN`

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
. bx - the number of boxes in x, from 1 to the grid size (0: the default min(8, n/4))
. by - the number of boxes in y
- bz - the number of boxes in z (ignored in 2D)

  Options Database Key:
. -pc_neumann_deflation_blocks <bx,by,bz> - the boxes (one value for all directions, or two for x and y)

  Level: intermediate

.seealso: `PCNEUMANN`, `PCNeumannGetDeflationBlocks()`, `PCNeumannSetDeflationSpaceType()`
@*/
PetscErrorCode PCNeumannSetDeflationBlocks(PC pc, PetscInt bx, PetscInt by, PetscInt bz)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, bx, 2);
  PetscValidLogicalCollectiveInt(pc, by, 3);
  PetscValidLogicalCollectiveInt(pc, bz, 4);
  PetscTryMethod(pc, "PCNeumannSetDeflationBlocks_C", (PC, PetscInt, PetscInt, PetscInt), (pc, bx, by, bz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannGetDeflationBlocks - gets the DMDA boxes per direction set for the deflation space blocks of `PCNEUMANN`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameters:
+ bx - the number of boxes in x (0: the default), or `NULL`
. by - the number of boxes in y, or `NULL`
- bz - the number of boxes in z, or `NULL`

  Level: intermediate

.seealso: `PCNEUMANN`, `PCNeumannSetDeflationBlocks()`
@*/
PetscErrorCode PCNeumannGetDeflationBlocks(PC pc, PetscInt *bx, PetscInt *by, PetscInt *bz)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCNeumannGetDeflationBlocks_C", (PC, PetscInt *, PetscInt *, PetscInt *), (pc, bx, by, bz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannSetDeflationCoarseType - sets how the two-level variant of `PCNEUMANN` solves with E = Z^T A Z

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- type - `PC_NEUMANN_DEFLATION_COARSE_CHOLESKY` (default) or `PC_NEUMANN_DEFLATION_COARSE_INVERSE`

  Options Database Key:
. -pc_neumann_deflation_coarse <cholesky,inverse> - the coarse solve

  Level: advanced

.seealso: `PCNEUMANN`, `PCNeumannDeflationCoarseType`, `PCNeumannGetDeflationCoarseType()`
@*/
PetscErrorCode PCNeumannSetDeflationCoarseType(PC pc, PCNeumannDeflationCoarseType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscTryMethod(pc, "PCNeumannSetDeflationCoarseType_C", (PC, PCNeumannDeflationCoarseType), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannGetDeflationCoarseType - gets how the two-level variant of `PCNEUMANN` solves with E = Z^T A Z

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. type - the coarse solve

  Level: advanced

.seealso: `PCNEUMANN`, `PCNeumannSetDeflationCoarseType()`
@*/
PetscErrorCode PCNeumannGetDeflationCoarseType(PC pc, PCNeumannDeflationCoarseType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(type, 2);
  PetscUseMethod(pc, "PCNeumannGetDeflationCoarseType_C", (PC, PCNeumannDeflationCoarseType *), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannSetDeflationCoarsePivotRtol - sets the relative Cholesky pivot of E = Z^T A Z under which the two-level
  variant of `PCNEUMANN` declares E singular (an error at the setup)

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- rtol - the tolerance, in [0, 1) (default 1e-13)

  Options Database Key:
. -pc_neumann_deflation_coarse_pivot_rtol <rtol> - the tolerance

  Level: advanced

.seealso: `PCNEUMANN`, `PCNeumannGetDeflationCoarsePivotRtol()`
@*/
PetscErrorCode PCNeumannSetDeflationCoarsePivotRtol(PC pc, PetscReal rtol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, rtol, 2);
  PetscTryMethod(pc, "PCNeumannSetDeflationCoarsePivotRtol_C", (PC, PetscReal), (pc, rtol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannGetDeflationCoarsePivotRtol - gets the relative Cholesky pivot of E under which `PCNEUMANN` declares E singular

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. rtol - the tolerance

  Level: advanced

.seealso: `PCNEUMANN`, `PCNeumannSetDeflationCoarsePivotRtol()`
@*/
PetscErrorCode PCNeumannGetDeflationCoarsePivotRtol(PC pc, PetscReal *rtol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(rtol, 2);
  PetscUseMethod(pc, "PCNeumannGetDeflationCoarsePivotRtol_C", (PC, PetscReal *), (pc, rtol));
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

.seealso: `PCNEUMANN`, `PCNeumannDeflationVariant`, `PCNeumannGetDeflationVariant()`, `PCNeumannSetDeflationSpaceType()`
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
  PCNeumannGetDeflationVariant - gets the two-level form of `PCNEUMANN` with deflation

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. v - the variant

  Level: advanced

.seealso: `PCNEUMANN`, `PCNeumannSetDeflationVariant()`
@*/
PetscErrorCode PCNeumannGetDeflationVariant(PC pc, PCNeumannDeflationVariant *v)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(v, 2);
  PetscUseMethod(pc, "PCNeumannGetDeflationVariant_C", (PC, PCNeumannDeflationVariant *), (pc, v));
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
