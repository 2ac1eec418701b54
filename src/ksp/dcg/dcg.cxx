/*
   dcg.cxx - KSPDCG: deflated preconditioned conjugate gradients, Algorithm 1 (DEF1) of R. Gupta, M. B. van
   Gijzen, C. Vuik, "Efficient two-level preconditioned conjugate gradient method on the GPU" (VECPAR 2012).

   Routines: KSPSetUp_DCG, KSPSolve_DCG, KSPReset_DCG, KSPDestroy_DCG, KSPSetFromOptions_DCG, KSPView_DCG,
   KSPCreate_DCG, KSPDCGSetDeflationSpace, KSPDCGCreateSpaceMat.
*/
#include "petsckp_types.h" /*I "petsckp.h" I*/
#include "kp_sys.hpp"
#include "kp_deflation.hpp"
#include "dcg_kernels.hpp"
#include <petscdmda.h>

const char *const KSPDCGSpaceTypes[]  = {"none", "chunks", "blocks", "user", "KSPDCGSpaceType", "KSP_DCG_SPACE_", nullptr};
const char *const KSPDCGCoarseTypes[] = {"cholesky", "inverse", "KSPDCGCoarseType", "KSP_DCG_COARSE_", nullptr};

static_assert((int)petsckp::DeflationSpaceType::None == (int)KSP_DCG_SPACE_NONE && (int)petsckp::DeflationSpaceType::Chunks == (int)KSP_DCG_SPACE_CHUNKS && (int)petsckp::DeflationSpaceType::Blocks == (int)KSP_DCG_SPACE_BLOCKS && (int)petsckp::DeflationSpaceType::User == (int)KSP_DCG_SPACE_USER, "KSPDCGSpaceType and petsckp::DeflationSpaceType must agree");

struct KSP_DCG {
  KSPDCGSpaceType     space              = KSP_DCG_SPACE_CHUNKS; /* chunks, blocks, user, none; default: blocks with a DMDA, chunks otherwise */
  PetscBool           space_set          = PETSC_FALSE;          /* the user chose the space */
  PetscInt            subdomains         = 0;                    /* number of chunks (0: default 2 sqrt(N)) */
  PetscInt            blocks[3]          = {0, 0, 0};            /* DMDA boxes per direction (0: default) */
  KSPDCGCoarseType    coarse             = KSP_DCG_COARSE_CHOLESKY;
  PetscReal           pivot_rtol         = 1e-13; /* relative Cholesky pivot below which E is declared singular */
  PetscBool           final_correction   = PETSC_TRUE;
  PetscBool           monitor_projection = PETSC_FALSE;
  Mat                 Zuser              = nullptr;
  petsckp::Deflation *defl               = nullptr;
  KSPDCGSpaceType     built              = KSP_DCG_SPACE_NONE; /* the space actually built */
  PetscInt            built_blocks[3]    = {0, 0, 0};
};

/* builds (or rebuilds, after an operator change) Z, AZ and E with the shared space builder of src/sys */
static PetscErrorCode KSPDCGSetUpDeflation(KSP ksp)
{
  KSP_DCG                        *dcg = (KSP_DCG *)ksp->data;
  Mat                             A;
  PetscObjectState                st;
  petsckp::DeflationSpaceOptions  opt;
  petsckp::DeflationSpaceType     built;

  PetscFunctionBegin;
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(PetscObjectStateGet((PetscObject)A, &st));
  if (dcg->defl && dcg->defl->Aref == A && dcg->defl->Astate == st) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(petsckp::KokkosInitializeOnce());
  PetscCall(PetscLogEventBegin(KSP_DCG_Setup, ksp, 0, 0, 0));
  opt.type       = (petsckp::DeflationSpaceType)dcg->space;
  opt.type_set   = dcg->space_set ? true : false;
  opt.subdomains = dcg->subdomains;
  for (int i = 0; i < 3; i++) opt.blocks[i] = dcg->blocks[i];
  opt.form       = dcg->coarse == KSP_DCG_COARSE_INVERSE ? petsckp::DenseSpdForm::Inverse : petsckp::DenseSpdForm::Cholesky;
  opt.pivot_rtol = dcg->pivot_rtol;
  PetscCall(petsckp::DeflationCreate(A, ksp->dm, dcg->Zuser, opt, "-ksp_dcg", &dcg->defl, &built, dcg->built_blocks));
  dcg->built = (KSPDCGSpaceType)built;
  if (dcg->defl) PetscCall(PetscInfo(ksp, "DCG: %" PetscInt_FMT " deflation vectors, E relative min Cholesky pivot %g\n", dcg->defl->d, (double)dcg->defl->E.min_pivot));
  PetscCall(PetscLogEventEnd(KSP_DCG_Setup, ksp, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSetUp_DCG(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPSetWorkVecs(ksp, 4));
  PetscCall(KSPDCGSetUpDeflation(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDCGDeflate(KSP ksp, Vec w)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  if (!dcg->defl) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(KSP_DCG_Deflate, ksp, w, 0, 0));
  PetscCall(dcg->defl->ApplyP(w, w));
  PetscCall(PetscLogEventEnd(KSP_DCG_Deflate, ksp, w, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* || Z^T r || for -ksp_dcg_monitor_projection (the invariant Z^T r_hat = 0) */
static PetscErrorCode KSPDCGMonitorProjection(KSP ksp, Vec r, PetscInt it)
{
  KSP_DCG  *dcg = (KSP_DCG *)ksp->data;
  PetscReal s   = 0;

  PetscFunctionBegin;
  if (!dcg->monitor_projection || !dcg->defl) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(dcg->defl->Coarse(r)); /* a1 = Z^T r, replicated */
  {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dcg->defl->a1);
    for (PetscInt i = 0; i < dcg->defl->d; i++) s += PetscRealPart(h(i) * PetscConj(h(i)));
  }
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)ksp), "  %3" PetscInt_FMT " DCG ||Z^T r_hat|| %g\n", it, (double)PetscSqrtReal(s)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w <- P w = w - AZ E^-1 Z^T w (skipped without a space) and pw = (w, p), with one device reduction and one
   MPI_Allreduce: the restriction and coarse solve, then one fused kernel */
static PetscErrorCode KSPDCGDeflateDot(KSP ksp, Vec w, Vec p, PetscScalar *pw)
{
  KSP_DCG           *dcg = (KSP_DCG *)ksp->data;
  petsckp::DeviceVec wv, pv;
  PetscScalar        loc;
  petsckp::CsrMatrix empty;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(KSP_DCG_Deflate, ksp, w, p, 0));
  if (dcg->defl) PetscCall(dcg->defl->Coarse(w)); /* a2 = E^-1 Z^T w, replicated */
  PetscCall(wv.Get(w, petsckp::Access::ReadWrite));
  PetscCall(pv.Get(p, petsckp::Access::Read));
  PetscCall(PetscLogGpuTimeBegin());
  if (dcg->defl) PetscCallCXX(loc = petsckp::DcgDeflateDot(true, dcg->defl->AZ, petsckp::UView<const PetscScalar>(dcg->defl->a2.data(), dcg->defl->d), wv.view(), pv.cview()));
  else PetscCallCXX(loc = petsckp::DcgDeflateDot(false, empty, petsckp::UView<const PetscScalar>(), wv.view(), pv.cview()));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogFlops(2.0 * wv.size() + (dcg->defl ? 2.0 * dcg->defl->AZ.nnz : 0.0)));
  PetscCall(pv.Restore());
  PetscCall(wv.Restore());
  PetscCall(MPIU_Allreduce(&loc, pw, 1, MPIU_SCALAR, MPIU_SUM, PetscObjectComm((PetscObject)ksp)));
  PetscCall(PetscLogEventEnd(KSP_DCG_Deflate, ksp, w, p, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x += alpha p, r -= alpha w */
static PetscErrorCode KSPDCGUpdateXR(KSP ksp, PetscScalar alpha, Vec p, Vec w, Vec x, Vec r)
{
  petsckp::DeviceVec pv, wv, xv, rv;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(KSP_DCG_VecOps, ksp, x, r, 0));
  PetscCall(pv.Get(p, petsckp::Access::Read));
  PetscCall(wv.Get(w, petsckp::Access::Read));
  PetscCall(xv.Get(x, petsckp::Access::ReadWrite));
  PetscCall(rv.Get(r, petsckp::Access::ReadWrite));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(petsckp::DcgUpdateXR(alpha, pv.cview(), wv.cview(), xv.view(), rv.view()));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogFlops(4.0 * xv.size()));
  PetscCall(rv.Restore());
  PetscCall(xv.Restore());
  PetscCall(wv.Restore());
  PetscCall(pv.Restore());
  PetscCall(PetscLogEventEnd(KSP_DCG_VecOps, ksp, x, r, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dp = (y, r) and the norm of the KSP's norm type (|| r ||, || y || or sqrt(dp)) with one device reduction and one
   MPI_Allreduce */
static PetscErrorCode KSPDCGDotNorm(KSP ksp, Vec y, Vec r, PetscScalar *dp, PetscReal *rnorm)
{
  petsckp::DeviceVec yv, rv;
  PetscScalar        loc[2], glob[2];
  const int          which = ksp->normtype == KSP_NORM_UNPRECONDITIONED ? 1 : (ksp->normtype == KSP_NORM_PRECONDITIONED ? 2 : 0);

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(KSP_DCG_VecOps, ksp, y, r, 0));
  PetscCall(yv.Get(y, petsckp::Access::Read));
  PetscCall(rv.Get(r, petsckp::Access::Read));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(petsckp::DcgDotNorm(yv.cview(), rv.cview(), which, loc[0], loc[1]));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogFlops((which ? 4.0 : 2.0) * yv.size()));
  PetscCall(rv.Restore());
  PetscCall(yv.Restore());
  PetscCall(MPIU_Allreduce(loc, glob, 2, MPIU_SCALAR, MPIU_SUM, PetscObjectComm((PetscObject)ksp)));
  *dp = glob[0];
  switch (ksp->normtype) {
  case KSP_NORM_PRECONDITIONED:
  case KSP_NORM_UNPRECONDITIONED:
    *rnorm = PetscSqrtReal(PetscAbsScalar(glob[1]));
    break;
  case KSP_NORM_NATURAL:
    *rnorm = PetscSqrtReal(PetscAbsScalar(glob[0]));
    break;
  default:
    *rnorm = 0;
  }
  PetscCall(PetscLogEventEnd(KSP_DCG_VecOps, ksp, y, r, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* p = y + beta p */
static PetscErrorCode KSPDCGUpdateP(KSP ksp, PetscScalar beta, Vec y, Vec p)
{
  petsckp::DeviceVec yv, pv;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(KSP_DCG_VecOps, ksp, y, p, 0));
  PetscCall(yv.Get(y, petsckp::Access::Read));
  PetscCall(pv.Get(p, petsckp::Access::ReadWrite));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(petsckp::DcgUpdateP(beta, yv.cview(), pv.view()));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogFlops(2.0 * pv.size()));
  PetscCall(pv.Restore());
  PetscCall(yv.Restore());
  PetscCall(PetscLogEventEnd(KSP_DCG_VecOps, ksp, y, p, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSolve_DCG(KSP ksp)
{
  KSP_DCG    *dcg = (KSP_DCG *)ksp->data;
  Vec         X = ksp->vec_sol, B = ksp->vec_rhs, R = ksp->work[0], Y = ksp->work[1], P = ksp->work[2], W = ksp->work[3];
  Mat         Amat;
  PetscScalar dp, dpold, pw, alpha, beta;
  PetscReal   rnorm = 0;
  PetscInt    i;

  PetscFunctionBegin;
  PetscCall(KSPDCGSetUpDeflation(ksp)); /* no-op unless the operator changed */
  PetscCall(PCGetOperators(ksp->pc, &Amat, NULL));
  ksp->its = 0;
  /* 1: r0 = b - A x0, r_hat0 = P r0, y0 = M^-1 r_hat0, p0 = y0 */
  if (!ksp->guess_zero) {
    PetscCall(KSP_MatMult(ksp, Amat, X, R));
    PetscCall(VecAYPX(R, -1.0, B));
  } else {
    PetscCall(VecCopy(B, R));
    PetscCall(VecSet(X, 0.0));
  }
  PetscCall(KSPDCGDeflate(ksp, R));
  PetscCall(KSP_PCApply(ksp, R, Y)); /* y <- M^-1 r_hat */
  PetscCall(VecDot(Y, R, &dp));      /* dp = r_hat' M^-1 r_hat */
  KSPCheckDot(ksp, dp);
  switch (ksp->normtype) {
  case KSP_NORM_PRECONDITIONED:
    PetscCall(VecNorm(Y, NORM_2, &rnorm));
    break;
  case KSP_NORM_UNPRECONDITIONED:
    PetscCall(VecNorm(R, NORM_2, &rnorm)); /* = || b - A x || of the corrected iterate (A P^T = P A) */
    break;
  case KSP_NORM_NATURAL:
    rnorm = PetscSqrtReal(PetscAbsScalar(dp));
    break;
  default:
    rnorm = 0;
  }
  KSPCheckNorm(ksp, rnorm);
  ksp->rnorm = rnorm;
  PetscCall(KSPLogResidualHistory(ksp, rnorm));
  PetscCall(KSPMonitor(ksp, 0, rnorm));
  PetscCall(KSPDCGMonitorProjection(ksp, R, 0));
  {
    /* with a zero guess r_hat0 = P b, not b: mark the guess nonzero for the first test, so that the default test is
       relative to || b || (the paper's criterion, and that of KSPCG + PCDEFLATION), not to || P b || */
    PetscBool gz = ksp->guess_zero;
    if (dcg->defl) ksp->guess_zero = PETSC_FALSE;
    PetscCall((*ksp->converged)(ksp, 0, rnorm, &ksp->reason, ksp->cnvP));
    ksp->guess_zero = gz;
  }
  PetscCall(VecCopy(Y, P));
  for (i = 0; i < ksp->max_it && !ksp->reason; i++) {
    PetscCall(KSP_MatMult(ksp, Amat, P, W)); /* 3: w_hat = P A p, 4: (p, w_hat), fused */
    PetscCall(KSPDCGDeflateDot(ksp, W, P, &pw));
    KSPCheckDot(ksp, pw);
    if (PetscRealPart(pw) <= 0) {
      PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "KSPDCG: the deflated operator is not positive definite: (p, P A p) = %g", (double)PetscRealPart(pw));
      ksp->reason = KSP_DIVERGED_INDEFINITE_MAT;
      break;
    }
    alpha = dp / pw;                                /* 4: alpha = (r_hat, y) / (p, w_hat) */
    PetscCall(KSPDCGUpdateXR(ksp, alpha, P, W, X, R)); /* 5, 6: x_hat += alpha p, r_hat -= alpha w_hat */
    PetscCall(KSP_PCApply(ksp, R, Y));              /* 7: y = M^-1 r_hat */
    dpold = dp;
    PetscCall(KSPDCGDotNorm(ksp, Y, R, &dp, &rnorm)); /* (r_hat, y) and the residual norm, one reduction */
    KSPCheckDot(ksp, dp);
    if (PetscRealPart(dp) < 0) {
      PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "KSPDCG: the preconditioner is not positive definite: (r, M^-1 r) = %g", (double)PetscRealPart(dp));
      ksp->reason = KSP_DIVERGED_INDEFINITE_PC;
      break;
    }
    KSPCheckNorm(ksp, rnorm);
    PetscCall(PetscObjectSAWsTakeAccess((PetscObject)ksp));
    ksp->its   = i + 1;
    ksp->rnorm = rnorm;
    PetscCall(PetscObjectSAWsGrantAccess((PetscObject)ksp));
    PetscCall(KSPLogResidualHistory(ksp, rnorm));
    PetscCall(KSPMonitor(ksp, i + 1, rnorm));
    PetscCall(KSPDCGMonitorProjection(ksp, R, i + 1));
    PetscCall((*ksp->converged)(ksp, i + 1, rnorm, &ksp->reason, ksp->cnvP));
    if (ksp->reason) break;
    beta = dp / dpold;                        /* 8: beta = (r_hat_new, y_new) / (r_hat, y) */
    PetscCall(KSPDCGUpdateP(ksp, beta, Y, P)); /* 9: p = y + beta p */
  }
  if (!ksp->reason && ksp->its >= ksp->max_it) ksp->reason = KSP_DIVERGED_ITS;
  /* 11: x = Q b + P^T x_hat = x_hat + Z E^-1 Z^T (b - A x_hat) */
  if (dcg->defl && dcg->final_correction) {
    PetscCall(KSP_MatMult(ksp, Amat, X, W));
    PetscCall(VecAYPX(W, -1.0, B));
    PetscCall(PetscLogEventBegin(KSP_DCG_Deflate, ksp, W, 0, 0));
    PetscCall(dcg->defl->AddQ(W, X));
    PetscCall(PetscLogEventEnd(KSP_DCG_Deflate, ksp, W, 0, 0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPReset_DCG(KSP ksp)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  PetscCallCXX(delete dcg->defl);
  dcg->defl = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDestroy_DCG(KSP ksp)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  PetscCall(KSPReset_DCG(ksp));
  PetscCall(MatDestroy(&dcg->Zuser));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGSetDeflationSpace_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGCreateSpaceMat_C", NULL));
  PetscCall(petsckp::TypeDataDestroy<KSP_DCG>(&ksp->data));
  PetscCall(KSPDestroyDefault(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDCGSetDeflationSpace_DCG(KSP ksp, Mat Z)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  PetscCall(PetscObjectReference((PetscObject)Z));
  PetscCall(MatDestroy(&dcg->Zuser));
  dcg->Zuser     = Z;
  dcg->space     = KSP_DCG_SPACE_USER;
  dcg->space_set = PETSC_TRUE;
  PetscCallCXX(delete dcg->defl);
  dcg->defl = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDCGCreateSpaceMat_DCG(KSP ksp, Mat *Z)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;
  Mat      A;

  PetscFunctionBegin;
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPDCGSetUpDeflation(ksp));
  PetscCheck(dcg->defl, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_WRONGSTATE, "KSPDCG has no deflation space (-ksp_dcg_space none)");
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(dcg->defl->CreateZMat(A, Z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSetFromOptions_DCG(KSP ksp, PETSCKP_OPTIONS_ARG)
{
  KSP_DCG  *dcg = (KSP_DCG *)ksp->data;
  PetscInt  nb  = 3;
  PetscBool flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "KSP DCG (deflated CG) options");
  PetscCall(PetscOptionsEnum("-ksp_dcg_space", "Deflation space (default: blocks when the KSP has a DMDA, chunks otherwise)", "KSPDCGSetDeflationSpace", KSPDCGSpaceTypes, (PetscEnum)dcg->space, (PetscEnum *)&dcg->space, &flg));
  if (flg) dcg->space_set = PETSC_TRUE;
  PetscCall(PetscOptionsInt("-ksp_dcg_subdomains", "Number of chunks (contiguous index ranges) for -ksp_dcg_space chunks (0: 2 sqrt(N))", "KSPDCG", dcg->subdomains, &dcg->subdomains, NULL));
  PetscCall(PetscOptionsIntArray("-ksp_dcg_blocks", "DMDA boxes per direction bx,by,bz for -ksp_dcg_space blocks (default min(8, n/4) each)", "KSPDCG", dcg->blocks, &nb, &flg));
  if (flg)
    for (PetscInt i = nb; i < 3; i++) dcg->blocks[i] = nb > 0 ? dcg->blocks[nb - 1] : 0;
  PetscCall(PetscOptionsEnum("-ksp_dcg_coarse", "Coarse solve with E = Z^T A Z: Cholesky factor or explicit inverse", "KSPDCG", KSPDCGCoarseTypes, (PetscEnum)dcg->coarse, (PetscEnum *)&dcg->coarse, NULL));
  PetscCall(PetscOptionsReal("-ksp_dcg_coarse_pivot_rtol", "Relative Cholesky pivot of E below which E is declared singular", "KSPDCG", dcg->pivot_rtol, &dcg->pivot_rtol, NULL));
  PetscCall(PetscOptionsBool("-ksp_dcg_final_correction", "Apply the final correction x = Q b + P^T x_hat (off only for debugging)", "KSPDCG", dcg->final_correction, &dcg->final_correction, NULL));
  PetscCall(PetscOptionsBool("-ksp_dcg_monitor_projection", "Print || Z^T r_hat || every iteration", "KSPDCG", dcg->monitor_projection, &dcg->monitor_projection, NULL));
  PetscOptionsHeadEnd();
  PetscCallCXX(delete dcg->defl);
  dcg->defl = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPView_DCG(KSP ksp, PetscViewer viewer)
{
  KSP_DCG  *dcg = (KSP_DCG *)ksp->data;
  PetscBool iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  deflated CG (DEF1, final correction %s)\n", dcg->final_correction ? "on" : "off"));
  if (dcg->defl || (ksp->setupstage && dcg->built == KSP_DCG_SPACE_NONE)) {
    char blk[128] = "";
    if (dcg->built == KSP_DCG_SPACE_BLOCKS) PetscCall(PetscSNPrintf(blk, sizeof(blk), " %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT, dcg->built_blocks[0], dcg->built_blocks[1], dcg->built_blocks[2]));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  deflation space: %s%s, %" PetscInt_FMT " vectors\n", KSPDCGSpaceTypes[dcg->built], blk, dcg->defl ? dcg->defl->d : 0));
    if (dcg->defl && !dcg->defl->E.symmetric) PetscCall(PetscViewerASCIIPrintf(viewer, "  E is not symmetric (nonsymmetric operator): explicit inverse by LU\n"));
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "  deflation space: %s\n", dcg->space_set ? KSPDCGSpaceTypes[dcg->space] : "default (blocks with a DMDA, else chunks)"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  coarse solve: %s of E = Z^T A Z (replicated on every rank, on the device), singular below relative pivot %g\n", dcg->coarse == KSP_DCG_COARSE_INVERSE ? "explicit inverse" : "cholesky (L^-1 kept)", (double)dcg->pivot_rtol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   KSPDCG - deflated preconditioned conjugate gradients (DPCG, "DEF1"), Algorithm 1 of Gupta, van Gijzen and Vuik,
   with the deflation kernels and the coarse solve on the device (Kokkos)

   Options Database Keys:
+  -ksp_dcg_space <chunks,blocks,user,none> - the deflation space Z: contiguous index ranges (the paper's stripes
                                              and planes), subdomain boxes of the KSP's DMDA, the user's
                                              `KSPDCGSetDeflationSpace()`, or none (plain PCG). Default: blocks
                                              when the KSP has a DMDA, chunks otherwise
.  -ksp_dcg_subdomains <d>                  - number of chunks (default 2 sqrt(N), at most 2048); with a DMDA the
                                              chunks are ranges of the natural grid ordering (x fastest), so that
                                              d = 2n gives the paper's 2D half-row stripes, d = n^2 the 3D stripes,
                                              d = n the 3D planes
.  -ksp_dcg_blocks <bx,by,bz>               - DMDA boxes per direction (default min(8, n/4) per direction)
.  -ksp_dcg_coarse <cholesky,inverse>       - solve with E = Z^T A Z through its Cholesky factor (default) or its
                                              explicit inverse (the paper's fast variant; less accurate for
                                              ill-conditioned E). See the Notes for what each keeps on the device
.  -ksp_dcg_coarse_pivot_rtol <tol>         - relative Cholesky pivot of E under which E is singular (default 1e-13)
.  -ksp_dcg_final_correction <bool>         - x = Q b + P^T x_hat at the end (default true; off only for debugging)
-  -ksp_dcg_monitor_projection              - print || Z^T r_hat ||, which should stay at round-off level

   Level: intermediate

   Notes:
   With E = Z^T A Z, Q = Z E^-1 Z^T and P = I - A Q, DCG runs PCG on P A x_hat = P b with any preconditioner M
   (`PCNEUMANN`, `PCJACOBI`, `PCNONE`, ...), and returns x = Q b + P^T x_hat. The residual r_hat = P (b - A x_hat) it
   iterates on equals the true residual b - A x of the returned x, so the default unpreconditioned norm test
   || r_hat || < max(rtol || b ||, atol) is the paper's criterion (also with a zero initial guess, where r_hat0 = P b:
   the reference is || b ||, as for `KSPCG` with `PCDEFLATION`). Preconditioned and natural norms are supported.

   The operator (Amat) must be an AIJ matrix. E is formed on the device once per operator change (for chunk and block
   spaces by an aggregation kernel over the entries of A; for a user Z from A Z = `MatMatMult()`), summed over the
   ranks, and replicated on every rank; each application of P needs one `MPI_Allreduce()` of d values. A singular
   or rank-deficient E (dependent deflation vectors, or a null vector of A in the span of Z) is an error that says so.

   Coarse solve. 'cholesky' factors E = L L^T on the host (LAPACK potrf, where the singularity check is made) and keeps
   the triangular inverse L^-1 on the device (formed by a triangular solve with the identity); every solve is then two
   fully parallel triangular matrix-vector products, a2 = L^-T (L^-1 a1), instead of two sequential substitutions
   (d dependent steps). Its rounding error grows with cond(L) = sqrt(cond(E)). 'inverse' forms E^-1 = L^-T L^-1
   explicitly (potri) and applies one dense matrix-vector product: half the work per solve, but the error grows with
   cond(E), which for ill-conditioned E (Neumann problems, many deflation vectors) can stall the iteration, as the
   paper observed in 3D. Both keep O(d^2) numbers on every rank ('cholesky' 2 d^2, 'inverse' d^2): intended for d up
   to a few thousand.

   Each iteration runs the operator product, the restriction Z^T w (one team per deflation vector, no atomics), the
   replicated coarse solve, and four fused vector kernels with two device reductions (w - AZ a2 with (w, p);
   x and r updates; (y, r) with the residual norm; p update), each reduction followed by one `MPI_Allreduce()`.

   With the same Z and M, `KSPCG` with `PCDEFLATION` produces the same iterates (`KSPDCGCreateSpaceMat()` gives Z as a
   matrix for `PCDeflationSetSpace()`).

   Reference:
   R. Gupta, M. B. van Gijzen, C. Vuik, Efficient two-level preconditioned conjugate gradient method on the GPU,
   VECPAR 2012, LNCS 7851.

.seealso: `KSPCreate()`, `KSPSetType()`, `KSPCG`, `PCDEFLATION`, `PCNEUMANN`, `KSPDCGSetDeflationSpace()`
M*/
PETSC_INTERN PetscErrorCode KSPCreate_DCG(KSP ksp)
{
  KSP_DCG *dcg;

  PetscFunctionBegin;
  PetscCall(petsckp::TypeDataCreate(&ksp->data, &dcg));

  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_LEFT, 3));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_PRECONDITIONED, PC_LEFT, 2));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NATURAL, PC_LEFT, 2));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_LEFT, 1));

  ksp->ops->setup          = KSPSetUp_DCG;
  ksp->ops->solve          = KSPSolve_DCG;
  ksp->ops->reset          = KSPReset_DCG;
  ksp->ops->destroy        = KSPDestroy_DCG;
  ksp->ops->view           = KSPView_DCG;
  ksp->ops->setfromoptions = KSPSetFromOptions_DCG;
  ksp->ops->buildsolution  = KSPBuildSolutionDefault;
  ksp->ops->buildresidual  = KSPBuildResidualDefault;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGSetDeflationSpace_C", KSPDCGSetDeflationSpace_DCG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGCreateSpaceMat_C", KSPDCGCreateSpaceMat_DCG));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDCGSetDeflationSpace - gives `KSPDCG` its deflation space Z

  Logically Collective

  Input Parameters:
+ ksp - the `KSPDCG` solver
- Z   - an N x d matrix (AIJ or dense, rows distributed as those of the operator) whose columns span the space

  Level: intermediate

  Note:
  The columns must be linearly independent, and Z^T A Z nonsingular; otherwise `KSPSolve()` stops with an error.

.seealso: `KSPDCG`, `KSPDCGCreateSpaceMat()`
@*/
PetscErrorCode KSPDCGSetDeflationSpace(KSP ksp, Mat Z)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidHeaderSpecific(Z, MAT_CLASSID, 2);
  PetscTryMethod(ksp, "KSPDCGSetDeflationSpace_C", (KSP, Mat), (ksp, Z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDCGCreateSpaceMat - the deflation space that `KSPDCG` uses, as a new AIJ matrix (N x d), e.g. to give
  `PCDEFLATION` the same space with `PCDeflationSetSpace()`

  Collective

  Input Parameter:
. ksp - the `KSPDCG` solver, with its operators set

  Output Parameter:
. Z - the space (destroy it with `MatDestroy()`)

  Level: advanced

.seealso: `KSPDCG`, `KSPDCGSetDeflationSpace()`, `PCDeflationSetSpace()`
@*/
PetscErrorCode KSPDCGCreateSpaceMat(KSP ksp, Mat *Z)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscKPAssertPointer(Z, 2);
  PetscUseMethod(ksp, "KSPDCGCreateSpaceMat_C", (KSP, Mat *), (ksp, Z));
  PetscFunctionReturn(PETSC_SUCCESS);
}
