/*
   dcg.cxx - KSPDCG: deflated preconditioned conjugate gradients, Algorithm 1 (DEF1) of R. Gupta, M. B. van
   Gijzen, C. Vuik, "Efficient two-level preconditioned conjugate gradient method on the GPU" (VECPAR 2012).

   Routines: KSPSetUp_DCG, KSPSolve_DCG, KSPBuildSolution_DCG, KSPReset_DCG, KSPDestroy_DCG, KSPSetFromOptions_DCG, KSPView_DCG,
   KSPCreate_DCG, KSPDCGSetDeflationSpace, KSPDCGCreateSpaceMat, KSPDCGSet/GetDeflationSpaceType,
   KSPDCGSet/GetSubdomains, KSPDCGSet/GetBlocks, KSPDCGSet/GetCoarseType, KSPDCGSet/GetCoarsePivotRtol,
   KSPDCGSet/GetFinalCorrection, KSPDCGSet/GetPipelined.
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
  KSPDCGSpaceType       space            = KSP_DCG_SPACE_CHUNKS; /* chunks, blocks, user, none; default: blocks with a DMDA, chunks otherwise */
  PetscBool             space_set        = PETSC_FALSE;          /* the user chose the space */
  PetscInt              subdomains       = 0;                    /* number of chunks (0: default 2 ceil(sqrt(N)), at most N) */
  PetscInt              blocks[3]        = {0, 0, 0};            /* DMDA boxes per direction (0: default) */
  KSPDCGCoarseType      coarse           = KSP_DCG_COARSE_CHOLESKY;
  PetscReal             pivot_rtol       = 1e-13; /* relative Cholesky pivot of E below which E is declared singular */
  PetscBool             final_correction = PETSC_TRUE;
  PetscViewerAndFormat *monitor          = nullptr; /* -ksp_dcg_monitor_projection */
  Mat                   Zuser            = nullptr;
  petsckp::Deflation   *defl             = nullptr;
  KSPDCGSpaceType       built            = KSP_DCG_SPACE_NONE; /* the space actually built */
  PetscBool             have_built       = PETSC_FALSE;        /* built is valid (a space, or none, was set up) */
  PetscInt              built_blocks[3]  = {0, 0, 0};
  PetscInt              nreproject       = 0; /* re-projections of r_hat in the last solve */
  PetscInt              nrestart         = 0; /* restarts from the true residual in the last solve */
  PetscInt              best_it          = -1; /* the iteration whose iterate the last solve returned, when not the last */
  PetscBool             pipelined        = PETSC_FALSE; /* the single-reduction (Chronopoulos-Gear) iteration */
  PetscKPDeviceMat      Ad               = nullptr; /* the shared device copy of the operator (AIJ), for the fused product */
  petsckp::dcg::Sums    sums;                       /* the device sums of an iteration (dcg_kernels.hpp) */
  Kokkos::View<petsckp::Sums4 *, petsckp::KCycleHostSpace> hsums; /* their host mirror */
  PetscBool             in_solve         = PETSC_FALSE; /* vec_sol holds the deflated iterate x_hat (KSPSolve in progress) */
  Vec                   bs_x = nullptr, bs_r = nullptr; /* KSPBuildSolution() during a solve: x and b - A x_hat */
  Vec                   x0 = nullptr;                   /* a nonzero initial guess, kept until the solve succeeds */
  PetscReal             r0norm = 0;                     /* || b - A x0 || of the solve in progress */
};

/* the deflated residual is re-projected, r_hat <- P r_hat, when its part in range(Z) exceeds this fraction of it: a
   perturbation of r_hat of this relative size costs CG little, whereas 1e-3 already delays convergence by thousands
   of iterations on the bubbly problems (a rounding error of that size destroys CG's conjugacy) */
static const PetscReal KSPDCG_DRIFT_RTOL = 1e-6;

static const char *KSPDCGSpaceName(KSPDCGSpaceType t)
{
  return t >= KSP_DCG_SPACE_NONE && t <= KSP_DCG_SPACE_USER ? KSPDCGSpaceTypes[t] : "unknown";
}

/* "-<prefix>ksp_dcg<suffix>", the name of an option of this KSP for error messages */
static PetscErrorCode KSPDCGOptionName(KSP ksp, const char suffix[], char name[], size_t len)
{
  const char *prefix = ((PetscObject)ksp)->prefix;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(name, len, "-%sksp_dcg%s", prefix ? prefix : "", suffix));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the space must be rebuilt at the next setup (an option that changes Z, E or its factor changed) */
static PetscErrorCode KSPDCGResetSpace(KSP ksp)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  PetscCallCXX(delete dcg->defl);
  dcg->defl       = nullptr;
  dcg->built      = KSP_DCG_SPACE_NONE;
  dcg->have_built = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* builds (or rebuilds, after an operator change) Z, AZ and E with the shared space builder of src/sys */
static PetscErrorCode KSPDCGSetUpDeflation(KSP ksp)
{
  KSP_DCG                       *dcg = (KSP_DCG *)ksp->data;
  Mat                            A;
  PetscObjectState               st;
  petsckp::DeflationSpaceOptions opt;
  petsckp::DeflationSpaceType    built;
  char                           pre[256];

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
  PetscCall(KSPDCGOptionName(ksp, "", pre, sizeof(pre)));
  PetscCall(petsckp::DeflationCreate(A, ksp->dm, dcg->Zuser, opt, pre, &dcg->defl, &built, dcg->built_blocks));
  dcg->built      = (KSPDCGSpaceType)built;
  dcg->have_built = PETSC_TRUE;
  if (dcg->defl) {
    const PetscReal cond = dcg->defl->cond;
    PetscCall(PetscInfo(ksp, "DCG: %" PetscInt_FMT " deflation vectors, E relative min Cholesky pivot %g, condition number estimate %g\n", dcg->defl->d, (double)dcg->defl->E.min_pivot, (double)cond));
    if (cond * PETSC_MACHINE_EPSILON > 1e-10)
      PetscCall(PetscInfo(ksp, "DCG: E = Z^T A Z is ill-conditioned (condition number estimate %g): each coarse solve loses about %d digits; at tight tolerances the deflated residual drifts out of range(Z)^perp (re-projected, see -ksp_dcg_monitor_projection) and the attainable accuracy is limited\n", (double)cond, (int)PetscLog10Real(cond)));
  }
  PetscCall(PetscLogEventEnd(KSP_DCG_Setup, ksp, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* R, Y (the single-reduction variant's u), P, W, XB, XV, and S for the single-reduction variant */
static PetscErrorCode KSPDCGWorkVecs(KSP ksp)
{
  KSP_DCG       *dcg = (KSP_DCG *)ksp->data;
  const PetscInt nw  = dcg->pipelined ? 7 : 6;

  PetscFunctionBegin;
  if (ksp->nwork < nw) PetscCall(KSPSetWorkVecs(ksp, nw));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSetUp_DCG(KSP ksp)
{
  KSP_DCG  *dcg = (KSP_DCG *)ksp->data;
  PetscBool neumann, pcdefl = PETSC_FALSE;

  PetscFunctionBegin;
  {
    Mat A, P;
    PetscCall(KSPGetOperators(ksp, &A, &P));
    PetscCall(petsckp::MatCheckSquareLayout(A, "KSPDCG"));
    if (P != A) PetscCall(petsckp::MatCheckSquareLayout(P, "KSPDCG (preconditioning matrix)"));
  }
  PetscCall(KSPDCGWorkVecs(ksp));
  /* PCNEUMANN's checks of the operator (a NaN entry, a zero or negative diagonal, each naming its row) come first:
     the factorisation of the coarse matrix Z^T A Z would fail on the same operator with a vaguer message */
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp->pc, PCNEUMANN, &neumann));
  if (neumann) { /* (before KSPSetUp() would: with -ksp_error_if_not_converged a failed PC setup is an error) */
    PetscCall(PCSetErrorIfFailure(ksp->pc, ksp->errorifnotconverged));
    PetscCall(PCSetUp(ksp->pc));
  }
  PetscCall(KSPDCGSetUpDeflation(ksp));
  /* the two-level PCNEUMANN deflates by itself: under a deflating KSPDCG the coarse space would be removed twice */
  if (neumann) PetscCall(PCNeumannGetDeflation(ksp->pc, &pcdefl));
  PetscCheck(!pcdefl || !dcg->defl, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_INCOMP, "KSPDCG deflates by itself: use PCNEUMANN without -pc_neumann_deflation under it, -ksp_dcg_space none, or KSPCG with the deflated PCNEUMANN");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w <- P w */
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

/* the sums of the iteration and their host mirror (page-locked with CUDA: the read is one small transfer) */
static PetscErrorCode KSPDCGAllocateSums(KSP ksp)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  if (dcg->sums.extent(0) == (size_t)petsckp::dcg::NumSlots) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCXX(dcg->sums = petsckp::dcg::Sums("petsckp::KSPDCG sums", petsckp::dcg::NumSlots));
  PetscCallCXX(dcg->hsums = Kokkos::View<petsckp::Sums4 *, petsckp::KCycleHostSpace>("petsckp::KSPDCG sums (host)", petsckp::dcg::NumSlots));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device copy of Amat for the fused operator product: the one shared with the deflation and PCNEUMANN (made by
   them already in the usual case), its values refreshed when Amat changed; none for an operator that is not AIJ,
   whose product is then MatMult() */
static PetscErrorCode KSPDCGGetDeviceMat(KSP ksp, Mat Amat)
{
  KSP_DCG  *dcg = (KSP_DCG *)ksp->data;
  PetscBool isaij, ismpiaij;

  PetscFunctionBegin;
  if (dcg->Ad && dcg->Ad->A == Amat) {
    PetscCall(PetscKPDeviceMatUpdateValues(dcg->Ad));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscKPDeviceMatDestroy(&dcg->Ad));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)Amat, &isaij, MATSEQAIJ, MATSEQAIJCUSPARSE, MATSEQAIJKOKKOS, MATSEQAIJHIPSPARSE, MATSEQAIJPERM, MATSEQAIJSELL, MATSEQAIJMKL, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)Amat, &ismpiaij, MATMPIAIJ, MATMPIAIJCUSPARSE, MATMPIAIJKOKKOS, MATMPIAIJHIPSPARSE, MATMPIAIJPERM, MATMPIAIJSELL, MATMPIAIJMKL, ""));
  if (isaij || ismpiaij) PetscCall(petsckp::DeviceMatGetShared(Amat, &dcg->Ad));
  else PetscCall(PetscInfo(ksp, "DCG: the operator is not an AIJ matrix: MatMult() and a separate reduction for its inner product\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w = A x, with the sums of slot Product in the same pass: (x, w) and, when r is given, (r, x), (r, r), (x, x). With
   the device copy of A one kernel (after the ghost exchange under MPI); otherwise MatMult() and one reduction. */
static PetscErrorCode KSPDCGProduct(KSP ksp, Mat Amat, Vec x, Vec w, Vec r)
{
  KSP_DCG           *dcg = (KSP_DCG *)ksp->data;
  petsckp::DeviceVec xv, wv, rv, gv;
  Vec                ghosts = NULL;
  petsckp::CsrMatrix empty;

  PetscFunctionBegin;
  if (dcg->Ad) {
    PetscCall(PetscLogEventBegin(PETSCKP_SpMV, Amat, x, w, 0));
    PetscCall(petsckp::DeviceMatGhostUpdate(dcg->Ad, x, &ghosts));
    if (ghosts) PetscCall(gv.Get(ghosts, petsckp::Access::Read));
  } else {
    PetscCall(KSP_MatMult(ksp, Amat, x, w));
    PetscCall(PetscLogEventBegin(KSP_DCG_VecOps, ksp, x, w, 0));
  }
  PetscCall(xv.Get(x, petsckp::Access::Read));
  PetscCall(wv.Get(w, dcg->Ad ? petsckp::Access::Write : petsckp::Access::Read));
  if (r) PetscCall(rv.Get(r, petsckp::Access::Read));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(petsckp::dcg::ProductDots(dcg->Ad ? true : false, dcg->Ad ? petsckp::DeviceMatLocalCsr(dcg->Ad) : empty, ghosts ? petsckp::DeviceMatGhostCsr(dcg->Ad) : empty, gv.cview(), xv.cview(), wv.view(), rv.cview(), dcg->sums, petsckp::dcg::SlotProduct));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogFlops((r ? 8.0 : 2.0) * xv.size() + (dcg->Ad ? 2.0 * (petsckp::DeviceMatLocalCsr(dcg->Ad).nnz + (ghosts ? petsckp::DeviceMatGhostCsr(dcg->Ad).nnz : 0)) : 0.0)));
  if (r) PetscCall(rv.Restore());
  PetscCall(wv.Restore());
  PetscCall(xv.Restore());
  if (ghosts) PetscCall(gv.Restore());
  if (dcg->Ad) PetscCall(PetscLogEventEnd(PETSCKP_SpMV, Amat, x, w, 0));
  else PetscCall(PetscLogEventEnd(KSP_DCG_VecOps, ksp, x, w, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the sums of slot summed over the ranks, in place on the device (a host round trip and one MPI_Allreduce) */
static PetscErrorCode KSPDCGAllreduceSlot(KSP ksp, int slot)
{
  KSP_DCG    *dcg = (KSP_DCG *)ksp->data;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
  if (size == 1) PetscFunctionReturn(PETSC_SUCCESS);
  {
    Kokkos::View<petsckp::Sums4, petsckp::MemSpace> d(dcg->sums.data() + slot);
    Kokkos::View<petsckp::Sums4, petsckp::KCycleHostSpace> h(dcg->hsums.data() + slot);

    PetscCallCXX(Kokkos::deep_copy(petsckp::exec(), h, d));
    PetscCallCXX(petsckp::exec().fence());
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, h().v, 4, MPIU_SCALAR, MPIU_SUM, PetscObjectComm((PetscObject)ksp)));
    PetscCallCXX(Kokkos::deep_copy(petsckp::exec(), d, h));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The deflation step on w = A x: a1 = Z^T w and s1 = Z^T r in one restriction pass, summed over the ranks together
   with the sums of slot Product (one MPI_Allreduce), then a2 = E^-1 a1 with a1^T a2 and the drift sum of r (slot
   Coarse), all on the device. *mode says how (x, P A x) is obtained: (x, A x) - a1^T a2 for a symmetric operator
   ((AZ)^T x = Z^T A x), or for a nonsymmetric E by one more pass (slot Direct, and under MPI one more reduction).
   Without deflation only the sums of slot Product are summed over the ranks. */
static PetscErrorCode KSPDCGCoarseStep(KSP ksp, Vec x, Vec w, Vec r, petsckp::dcg::PwMode *mode)
{
  KSP_DCG    *dcg = (KSP_DCG *)ksp->data;
  PetscMPIInt size;

  PetscFunctionBegin;
  if (!dcg->defl) {
    *mode = petsckp::dcg::PwMode::Plain;
    PetscCall(KSPDCGAllreduceSlot(ksp, petsckp::dcg::SlotProduct));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
  PetscCall(PetscLogEventBegin(KSP_DCG_Deflate, ksp, w, r, 0));
  PetscCall(dcg->defl->RestrictPairReduce(w, r, (PetscScalar *)(dcg->sums.data() + petsckp::dcg::SlotProduct), size > 1 ? 4 : 0));
  PetscCall(dcg->defl->SolveDots(Kokkos::View<petsckp::Sums4, petsckp::MemSpace>(dcg->sums.data() + petsckp::dcg::SlotCoarse)));
  if (dcg->defl->E.symmetric) *mode = petsckp::dcg::PwMode::Identity;
  else {
    petsckp::DeviceVec xv, wv;

    *mode = petsckp::dcg::PwMode::Direct;
    PetscCall(xv.Get(x, petsckp::Access::Read));
    PetscCall(wv.Get(w, petsckp::Access::Read));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCallCXX(petsckp::dcg::DeflatedDot(dcg->defl->AZ, petsckp::UView<const PetscScalar>(dcg->defl->a2.data(), dcg->defl->d), xv.cview(), wv.cview(), dcg->sums, petsckp::dcg::SlotDirect));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogFlops(2.0 * xv.size() + 2.0 * dcg->defl->AZ.nnz));
    PetscCall(wv.Restore());
    PetscCall(xv.Restore());
    PetscCall(KSPDCGAllreduceSlot(ksp, petsckp::dcg::SlotDirect));
  }
  PetscCall(PetscLogEventEnd(KSP_DCG_Deflate, ksp, w, r, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the sums of the iteration on the host: the one host synchronisation of an iteration (with residual, the sums of slot
   Residual are then summed over the ranks: one MPI_Allreduce) */
static PetscErrorCode KSPDCGReadSums(KSP ksp, PetscBool residual, petsckp::Sums4 h[])
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  PetscCallCXX(Kokkos::deep_copy(petsckp::exec(), dcg->hsums, dcg->sums));
  PetscCallCXX(petsckp::exec().fence());
  for (int k = 0; k < petsckp::dcg::NumSlots; k++) h[k] = dcg->hsums(k);
  if (residual) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, h[petsckp::dcg::SlotResidual].v, 4, MPIU_SCALAR, MPIU_SUM, PetscObjectComm((PetscObject)ksp)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x += alpha p, r -= alpha (w - AZ a2) with alpha = dp / (p, P A p), (p, P A p) read from the sums on the device;
   nothing when (p, P A p) <= 0 */
static PetscErrorCode KSPDCGUpdateXR(KSP ksp, PetscScalar dp, petsckp::dcg::PwMode mode, Vec p, Vec w, Vec x, Vec r)
{
  KSP_DCG                          *dcg = (KSP_DCG *)ksp->data;
  petsckp::DeviceVec                pv, wv, xv, rv;
  petsckp::CsrMatrix                empty;
  const bool                        deflate = mode != petsckp::dcg::PwMode::Plain;
  petsckp::UView<const PetscScalar> a2;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(KSP_DCG_VecOps, ksp, x, r, 0));
  if (deflate) a2 = petsckp::UView<const PetscScalar>(dcg->defl->a2.data(), dcg->defl->d);
  PetscCall(pv.Get(p, petsckp::Access::Read));
  PetscCall(wv.Get(w, petsckp::Access::Read));
  PetscCall(xv.Get(x, petsckp::Access::ReadWrite));
  PetscCall(rv.Get(r, petsckp::Access::ReadWrite));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(petsckp::dcg::UpdateXR(dp, dcg->sums, mode, deflate ? dcg->defl->AZ : empty, a2, pv.cview(), wv.cview(), xv.view(), rv.view()));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogFlops(4.0 * xv.size() + (deflate ? 2.0 * dcg->defl->AZ.nnz : 0.0)));
  PetscCall(rv.Restore());
  PetscCall(xv.Restore());
  PetscCall(wv.Restore());
  PetscCall(pv.Restore());
  PetscCall(PetscLogEventEnd(KSP_DCG_VecOps, ksp, x, r, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the single-reduction update: s = (w - AZ a2) + beta s, p = u + beta p, x += alpha p, r -= alpha s */
static PetscErrorCode KSPDCGPipelinedUpdate(KSP ksp, PetscScalar alpha, PetscScalar beta, Vec u, Vec w, Vec p, Vec s, Vec x, Vec r)
{
  KSP_DCG                          *dcg = (KSP_DCG *)ksp->data;
  petsckp::DeviceVec                uv, wv, pv, sv, xv, rv;
  petsckp::CsrMatrix                empty;
  petsckp::UView<const PetscScalar> a2;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(KSP_DCG_VecOps, ksp, x, r, 0));
  if (dcg->defl) a2 = petsckp::UView<const PetscScalar>(dcg->defl->a2.data(), dcg->defl->d);
  PetscCall(uv.Get(u, petsckp::Access::Read));
  PetscCall(wv.Get(w, petsckp::Access::Read));
  PetscCall(pv.Get(p, petsckp::Access::ReadWrite));
  PetscCall(sv.Get(s, petsckp::Access::ReadWrite));
  PetscCall(xv.Get(x, petsckp::Access::ReadWrite));
  PetscCall(rv.Get(r, petsckp::Access::ReadWrite));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(petsckp::dcg::PipelinedUpdate(alpha, beta, dcg->defl ? true : false, dcg->defl ? dcg->defl->AZ : empty, a2, uv.cview(), wv.cview(), pv.view(), sv.view(), xv.view(), rv.view()));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogFlops(8.0 * xv.size() + (dcg->defl ? 2.0 * dcg->defl->AZ.nnz : 0.0)));
  PetscCall(rv.Restore());
  PetscCall(xv.Restore());
  PetscCall(sv.Restore());
  PetscCall(pv.Restore());
  PetscCall(wv.Restore());
  PetscCall(uv.Restore());
  PetscCall(PetscLogEventEnd(KSP_DCG_VecOps, ksp, x, r, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dp = (y, r), ||r|| = sqrt(rr) and the norm of the KSP's norm type (|| r ||, || y || or sqrt(dp)) from the sums
   {(y, r), (r, r), (y, y)} */
static void KSPDCGNormsFrom(KSP ksp, const PetscScalar s[3], PetscScalar *dp, PetscReal *rnorm, PetscReal *r2norm)
{
  *dp     = s[0];
  *r2norm = PetscSqrtReal(PetscAbsScalar(s[1]));
  switch (ksp->normtype) {
  case KSP_NORM_PRECONDITIONED:
    *rnorm = PetscSqrtReal(PetscAbsScalar(s[2]));
    break;
  case KSP_NORM_UNPRECONDITIONED:
    *rnorm = *r2norm;
    break;
  case KSP_NORM_NATURAL:
    *rnorm = PetscSqrtReal(PetscAbsScalar(s[0]));
    break;
  default:
    *rnorm = 0;
  }
}

/* (y, r), (r, r), (y, y) into slot Residual on the device */
static PetscErrorCode KSPDCGDotNormDevice(KSP ksp, Vec y, Vec r)
{
  KSP_DCG           *dcg = (KSP_DCG *)ksp->data;
  petsckp::DeviceVec yv, rv;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(KSP_DCG_VecOps, ksp, y, r, 0));
  PetscCall(yv.Get(y, petsckp::Access::Read));
  PetscCall(rv.Get(r, petsckp::Access::Read));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(petsckp::dcg::DotNorm(yv.cview(), rv.cview(), dcg->sums, petsckp::dcg::SlotResidual));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogFlops(6.0 * yv.size()));
  PetscCall(rv.Restore());
  PetscCall(yv.Restore());
  PetscCall(PetscLogEventEnd(KSP_DCG_VecOps, ksp, y, r, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dp = (y, r), ||r|| and the norm of the KSP's norm type (|| r ||, || y || or sqrt(dp)) with one device reduction and
   one MPI_Allreduce */
static PetscErrorCode KSPDCGDotNorm(KSP ksp, Vec y, Vec r, PetscScalar *dp, PetscReal *rnorm, PetscReal *r2norm)
{
  petsckp::DeviceVec yv, rv;
  PetscScalar        loc[3], glob[3];

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(KSP_DCG_VecOps, ksp, y, r, 0));
  PetscCall(yv.Get(y, petsckp::Access::Read));
  PetscCall(rv.Get(r, petsckp::Access::Read));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(petsckp::dcg::DotNorm(yv.cview(), rv.cview(), loc[0], loc[1], loc[2]));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogFlops(6.0 * yv.size()));
  PetscCall(rv.Restore());
  PetscCall(yv.Restore());
  PetscCall(MPIU_Allreduce(loc, glob, 3, MPIU_SCALAR, MPIU_SUM, PetscObjectComm((PetscObject)ksp)));
  KSPDCGNormsFrom(ksp, glob, dp, rnorm, r2norm);
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
  PetscCallCXX(petsckp::dcg::UpdateP(beta, yv.cview(), pv.view()));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogFlops(2.0 * pv.size()));
  PetscCall(pv.Restore());
  PetscCall(yv.Restore());
  PetscCall(PetscLogEventEnd(KSP_DCG_VecOps, ksp, y, p, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -ksp_dcg_monitor_projection: || Z^T r_hat || and the relative drift of r_hat_it, as measured in iteration it */
static PetscErrorCode KSPDCGMonitorProjection(KSP ksp, PetscInt it, PetscReal drift, PetscReal r2norm, PetscBool reprojected)
{
  KSP_DCG  *dcg = (KSP_DCG *)ksp->data;
  PetscReal s   = 0;

  PetscFunctionBegin;
  if (!dcg->monitor || !dcg->defl) PetscFunctionReturn(PETSC_SUCCESS);
  {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dcg->defl->s1);
    for (PetscInt i = 0; i < dcg->defl->d; i++) s += PetscRealPart(h(i) * PetscConj(h(i)));
  }
  PetscCall(petsckp::MonitorPrintf((PetscObject)ksp, dcg->monitor, "%3" PetscInt_FMT " DCG ||Z^T r_hat|| %g, part in range(Z) relative to ||r_hat|| %g%s\n", it, (double)PetscSqrtReal(s), (double)(r2norm > 0 ? drift / r2norm : 0.0), reprojected ? ": re-projected" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x_hat <- x_hat + Q (b - A x_hat), then R = b - A x_hat. This changes neither P^T x_hat (P^T Z = 0) nor, in exact
   arithmetic, P (b - A x_hat): x_hat becomes the corrected iterate x, whose residual b - A x is small, whereas
   b - A x_hat carries the arbitrary part of x_hat in range(Z) (of the initial guess, and of every search direction)
   times A, and a coarse solve with it loses eps cond(E) || b - A x_hat || */
static PetscErrorCode KSPDCGCorrect(KSP ksp, Mat Amat)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;
  Vec      X = ksp->vec_sol, B = ksp->vec_rhs, R = ksp->work[0];

  PetscFunctionBegin;
  PetscCall(KSP_MatMult(ksp, Amat, X, R));
  PetscCall(VecAYPX(R, -1.0, B));
  PetscCall(PetscLogEventBegin(KSP_DCG_Deflate, ksp, R, 0, 0));
  PetscCall(dcg->defl->AddQ(R, X));
  PetscCall(PetscLogEventEnd(KSP_DCG_Deflate, ksp, R, 0, 0));
  PetscCall(KSP_MatMult(ksp, Amat, X, R));
  PetscCall(VecAYPX(R, -1.0, B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the true deflated residual: x_hat corrected (KSPDCGCorrect()), r_hat <- P (b - A x_hat), then y = M^-1 r_hat,
   dp = (y, r_hat) and the norms; leaves E^-1 Z^T (b - A x_hat) in the deflation's a2 for the final correction */
static PetscErrorCode KSPDCGTrueResidual(KSP ksp, Mat Amat, PetscScalar *dp, PetscReal *rnorm, PetscReal *r2norm)
{
  Vec R = ksp->work[0], Y = ksp->work[1];

  PetscFunctionBegin;
  PetscCall(KSPDCGCorrect(ksp, Amat));
  PetscCall(KSPDCGDeflate(ksp, R));
  PetscCall(KSP_PCApply(ksp, R, Y));
  PetscCall(KSPDCGDotNorm(ksp, Y, R, dp, rnorm, r2norm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* at the end of a solve that did not converge: the best of the current iterate, the best one since the last restart by
   the recursive residual norm (XB, iteration best_it; -1 when that is the current one), and the best one whose true
   residual is known (XV, from a
   restart), compared by their true deflated residual norms (computed here for the current iterate unless cur_true
   says that cur is its true norm, and, if its recursive norm says it may be better, for XB); the winner is left in X.
   *coarse_valid: a2 holds the coarse solve of the true residual of X (for the final correction) */
static PetscErrorCode KSPDCGSelectBest(KSP ksp, Mat Amat, PetscBool cur_true, PetscReal cur, PetscReal best, PetscInt best_it, PetscReal bestv, PetscInt bestv_it, PetscBool *coarse_valid)
{
  KSP_DCG    *dcg = (KSP_DCG *)ksp->data;
  Vec         X = ksp->vec_sol, XB = ksp->work[4], XV = ksp->work[5];
  PetscScalar dp;
  PetscReal   rnorm, r2norm, mcur, mb;
  PetscInt    chosen = ksp->its;

  PetscFunctionBegin;
  if (!dcg->defl) {
    /* plain PCG: no true residual is computed; the recursive one is that of CG */
    mcur = ksp->normtype == KSP_NORM_NONE ? 0 : ksp->rnorm;
    if (best_it >= 0 && best < mcur && ksp->normtype != KSP_NORM_NONE) {
      PetscCall(VecCopy(XB, X));
      chosen     = best_it;
      ksp->rnorm = best;
    }
  } else {
    PetscReal mbest;
    if (cur_true) mcur = cur; /* the loop ended on a true residual of the current iterate */
    else {
      PetscCall(KSPDCGTrueResidual(ksp, Amat, &dp, &rnorm, &r2norm)); /* of the current iterate */
      *coarse_valid = PETSC_TRUE;
      mcur          = ksp->normtype == KSP_NORM_NONE ? r2norm : rnorm;
    }
    mbest = mcur;
    if (bestv < mbest) mbest = bestv, chosen = bestv_it;
    if (best_it >= 0 && best < mbest) {
      PetscCall(VecSwap(X, XB));
      PetscCall(KSPDCGTrueResidual(ksp, Amat, &dp, &rnorm, &r2norm)); /* of the recursive best */
      mb = ksp->normtype == KSP_NORM_NONE ? r2norm : rnorm;
      if (mb < mbest) mbest = mb, chosen = best_it;
      else {
        PetscCall(VecSwap(X, XB));
        *coarse_valid = PETSC_FALSE;
      }
    }
    if (chosen == bestv_it && chosen != ksp->its) {
      PetscCall(VecCopy(XV, X));
      *coarse_valid = PETSC_FALSE;
    }
    if (ksp->normtype != KSP_NORM_NONE) ksp->rnorm = mbest;
    PetscCall(PetscInfo(ksp, "DCG: %s after %" PetscInt_FMT " iterations: true deflated residual norm %g; returning the iterate of iteration %" PetscInt_FMT " (true residual norm %g)\n", KSPConvergedReasons[ksp->reason], ksp->its, (double)mcur, chosen, (double)mbest));
  }
  dcg->best_it = chosen != ksp->its ? chosen : -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* what the loop of KSPSolve_DCG() does after a step */
typedef enum {
  KSPDCG_STEP_NEXT,  /* the iteration went on: next step */
  KSPDCG_STEP_TRUE,  /* compute the true deflated residual (verification of a converged recursive residual, or restart) */
  KSPDCG_STEP_STOP,  /* the solve ends (ksp->reason set, or max_it): the best iterate and the final correction */
  KSPDCG_STEP_ABORT, /* KSPCheckDot()/KSPCheckNorm() set a NaN/Inf reason and returned: the solve returns at once */
} KSPDCGStep;

/* the state of one solve, shared by both iterations */
struct KSPDCGState {
  PetscScalar dp = 0;                       /* (r_hat, M^-1 r_hat) of the current residual */
  PetscReal   rnorm = 0, r2norm = 0;        /* its norm of the KSP's norm type, and || r_hat || */
  PetscReal   best = PETSC_MAX_REAL;        /* the smallest recursive norm since the last restart (of iteration best_it) */
  PetscReal   bestv = PETSC_MAX_REAL;       /* the smallest true norm of a restart point (iteration bestv_it, kept in XV) */
  PetscReal   last_true = 0;                /* the true norm at the last restart (or the start) */
  PetscInt    best_it = -1, bestv_it = -1, last_reproject = -2;
  PetscBool   coarse_valid = PETSC_TRUE;    /* a2 holds E^-1 Z^T (b - A x_hat) of the current iterate */
  PetscBool   best_in_x    = PETSC_TRUE;    /* X is the best iterate by the recursive norm (else XB is) */
  /* the single-reduction iteration */
  PetscScalar alpha_old = 0, gamma_old = 0; /* alpha and gamma = (r_hat, u) of the previous iteration */
  PetscBool   first       = PETSC_TRUE;     /* beta = 0: the first iteration, or one after a restart */
  PetscBool   have_u      = PETSC_FALSE;    /* Y holds u = M^-1 r_hat already (after a true residual) */
  PetscBool   just_tested = PETSC_FALSE;    /* the current residual was tested already (a true residual) */
  PetscBool   initial     = PETSC_TRUE;     /* the residual of x_0 is still to be tested */
};

/* the recursive norm of iteration it has been accepted: the best-iterate bookkeeping (x_it - alpha p is kept in XB when
   the iteration moves off the best iterate; alpha p: the last step, which produced x_it) */
static PetscErrorCode KSPDCGTrackBest(KSP ksp, KSPDCGState *st, PetscInt it, PetscReal measure, PetscScalar alpha)
{
  Vec X = ksp->vec_sol, P = ksp->work[2], XB = ksp->work[4];

  PetscFunctionBegin;
  if (measure < st->best) {
    st->best      = measure; /* x_it is the best iterate so far */
    st->best_it   = it;
    st->best_in_x = PETSC_TRUE;
  } else if (st->best_in_x) {
    PetscCall(VecWAXPY(XB, -alpha, P, X)); /* moving off the best iterate: keep x_it-1 = x_it - alpha p_it-1 */
    st->best_in_x = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the breakdown (x, P A x) <= 0: an operator that is not SPD when (x, A x) <= 0 too or (x, P A x) is clearly negative
   (*step STOP), otherwise rounding in the deflation (*step TRUE: restart from the true residual) */
static PetscErrorCode KSPDCGBreakdown(KSP ksp, PetscInt i, PetscScalar pw, PetscScalar pa, KSPDCGStep *step, PetscBool *restart)
{
  PetscFunctionBegin;
  if (PetscRealPart(pa) <= 0) {
    PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "KSPDCG: the operator is not positive definite: (p, A p) = %g", (double)PetscRealPart(pa));
    ksp->reason = KSP_DIVERGED_INDEFINITE_MAT;
    *step       = KSPDCG_STEP_STOP;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* (p, P A p) = (p, A p) - (Z^T A p)^T E^-1 Z^T A p is a Schur complement: for a symmetric positive definite A it is
     >= 0 up to rounding of the subtraction; clearly negative means A is not SPD */
  if (PetscAbsScalar(pw) > PETSC_SQRT_MACHINE_EPSILON * PetscRealPart(pa)) {
    PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "KSPDCG: the operator is not symmetric positive definite: the deflated (p, P A p) = %g < 0 although (p, A p) = %g > 0", (double)PetscRealPart(pw), (double)PetscRealPart(pa));
    ksp->reason = KSP_DIVERGED_INDEFINITE_MAT;
    *step       = KSPDCG_STEP_STOP;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* A p is fine, P A p lost it: rounding in the deflation */
  PetscCall(PetscInfo(ksp, "DCG: breakdown at iteration %" PetscInt_FMT ": (p, P A p) = %g <= 0 although (p, A p) = %g > 0: the deflation lost the positive definiteness of P A in rounding; restarting from the true residual\n", i, (double)PetscRealPart(pw), (double)PetscRealPart(pa)));
  *restart = PETSC_TRUE;
  *step    = KSPDCG_STEP_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One iteration of DEF1, all inner products on the device and read by the host once:
     w = A p with (p, A p); a1 = Z^T w, s1 = Z^T r_hat (one MPI_Allreduce with (p, A p)); a2 = E^-1 a1 with a1^T a2
     and the drift of r_hat; x_hat += alpha p, r_hat -= alpha (w - AZ a2) with alpha = (r_hat, y) / (p, P A p) read on
     the device (skipped when (p, P A p) <= 0); y = M^-1 r_hat and (y, r_hat), (r_hat, r_hat), (y, y); the host reads
     the sums (one synchronisation; under MPI one more MPI_Allreduce); p = y + beta p. */
static PetscErrorCode KSPDCGStepStandard(KSP ksp, Mat Amat, KSPDCGState *st, KSPDCGStep *step, PetscBool *restart)
{
  KSP_DCG             *dcg = (KSP_DCG *)ksp->data;
  Vec                  X = ksp->vec_sol, R = ksp->work[0], Y = ksp->work[1], P = ksp->work[2], W = ksp->work[3];
  const PetscInt       i = ksp->its;
  petsckp::dcg::PwMode mode;
  petsckp::Sums4       h[petsckp::dcg::NumSlots];
  PetscScalar          pw, pa, alpha, beta, dpold;
  PetscReal            drift, measure;
  PetscBool            reproject;

  PetscFunctionBegin;
  *step    = KSPDCG_STEP_ABORT;
  *restart = PETSC_FALSE;
  PetscCall(KSPDCGProduct(ksp, Amat, P, W, NULL));    /* 3: w = A p, (p, A p) */
  PetscCall(KSPDCGCoarseStep(ksp, P, W, R, &mode));  /* a1 = Z^T w, s1 = Z^T r_hat, a2 = E^-1 a1, a1^T a2, drift */
  st->coarse_valid = PETSC_FALSE;                     /* a2 is now E^-1 Z^T A p; below, the current norms become recursive */
  PetscCall(KSPDCGUpdateXR(ksp, st->dp, mode, P, W, X, R)); /* 4-6: x_hat += alpha p, r_hat -= alpha P A p */
  PetscCall(KSP_PCApply(ksp, R, Y));                 /* 7: y = M^-1 r_hat */
  PetscCall(KSPDCGDotNormDevice(ksp, Y, R));          /* (r_hat, y) and the residual norms */
  PetscCall(KSPDCGReadSums(ksp, PETSC_TRUE, h));
  pa    = h[petsckp::dcg::SlotProduct].v[0];
  pw    = petsckp::dcg::DeflatedPw(h[petsckp::dcg::SlotProduct], h[petsckp::dcg::SlotCoarse], h[petsckp::dcg::SlotDirect], mode);
  drift = dcg->defl ? PetscSqrtReal(PetscAbsScalar(h[petsckp::dcg::SlotCoarse].v[1])) : 0;
  KSPCheckDot(ksp, pw);
  reproject = dcg->defl && drift > KSPDCG_DRIFT_RTOL * st->r2norm ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(KSPDCGMonitorProjection(ksp, i, drift, st->r2norm, reproject));
  if (PetscRealPart(pw) <= 0) { /* the update was not applied: x_hat and r_hat are those of iteration i */
    PetscCall(KSPDCGBreakdown(ksp, i, pw, pa, step, restart));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reproject && st->last_reproject == i - 1) {
    PetscCall(PetscInfo(ksp, "DCG: iteration %" PetscInt_FMT ": the part of r_hat in range(Z) is again %g ||r_hat|| one iteration after a re-projection: the coarse solves cannot keep the residual deflated at this level; restarting from the true residual\n", i, (double)(drift / st->r2norm)));
    *restart = PETSC_TRUE;
    *step    = KSPDCG_STEP_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  alpha = st->dp / pw; /* 4: alpha = (r_hat, y) / (p, w_hat), as the update kernel computed it */
  dpold = st->dp;
  if (reproject) {
    PetscCall(PetscInfo(ksp, "DCG: iteration %" PetscInt_FMT ": the part of r_hat in range(Z) is %g ||r_hat||, re-projecting r_hat <- P r_hat\n", i, (double)(drift / st->r2norm)));
    PetscCall(KSPDCGDeflate(ksp, R));
    dcg->nreproject++;
    st->last_reproject = i;
    PetscCall(KSP_PCApply(ksp, R, Y));
    PetscCall(KSPDCGDotNorm(ksp, Y, R, &st->dp, &st->rnorm, &st->r2norm));
  } else KSPDCGNormsFrom(ksp, h[petsckp::dcg::SlotResidual].v, &st->dp, &st->rnorm, &st->r2norm);
  measure = ksp->normtype == KSP_NORM_NONE ? st->r2norm : st->rnorm;
  PetscCall(KSPDCGTrackBest(ksp, st, i + 1, measure, alpha));
  KSPCheckDot(ksp, st->dp);
  if (PetscRealPart(st->dp) < 0) {
    PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "KSPDCG: the preconditioner is not positive definite: (r, M^-1 r) = %g", (double)PetscRealPart(st->dp));
    ksp->reason = KSP_DIVERGED_INDEFINITE_PC;
    ksp->its    = i + 1;
    *step       = KSPDCG_STEP_STOP;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  KSPCheckNorm(ksp, st->rnorm);
  PetscCall(PetscObjectSAWsTakeAccess((PetscObject)ksp));
  ksp->its   = i + 1;
  ksp->rnorm = st->rnorm;
  PetscCall(PetscObjectSAWsGrantAccess((PetscObject)ksp));
  PetscCall(KSPLogResidualHistory(ksp, st->rnorm));
  PetscCall(KSPMonitor(ksp, i + 1, st->rnorm));
  PetscCall((*ksp->converged)(ksp, i + 1, st->rnorm, &ksp->reason, ksp->cnvP));
  if (!ksp->reason) {
    beta = st->dp / dpold;                     /* 8: beta = (r_hat_new, y_new) / (r_hat, y) */
    PetscCall(KSPDCGUpdateP(ksp, beta, Y, P)); /* 9: p = y + beta p */
    *step = KSPDCG_STEP_NEXT;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!dcg->defl || (ksp->reason != KSP_CONVERGED_RTOL && ksp->reason != KSP_CONVERGED_ATOL)) {
    *step = KSPDCG_STEP_STOP;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ksp->reason = KSP_CONVERGED_ITERATING; /* the recursive residual passed the test: verify with the true one */
  *step       = KSPDCG_STEP_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One iteration of the single-reduction variant (Chronopoulos and Gear) of DEF1, for the residual r_hat_i:
     u = M^-1 r_hat; w = A u with (u, A u), gamma = (r_hat, u), (r_hat, r_hat), (u, u); a1 = Z^T w, s1 = Z^T r_hat
     (one MPI_Allreduce with the four sums: the only global reduction); a2 = E^-1 a1 with a1^T a2 and the drift; the
     host reads the sums (one synchronisation), tests r_hat_i, and with delta = (u, P A u) = (u, A u) - a1^T a2,
     beta = gamma / gamma_old, alpha = gamma / (delta - beta gamma / alpha_old) updates in one pass
     s = P A u + beta s (= P A p), p = u + beta p, x_hat += alpha p, r_hat -= alpha s. */
static PetscErrorCode KSPDCGStepPipelined(KSP ksp, Mat Amat, KSPDCGState *st, KSPDCGStep *step, PetscBool *restart)
{
  KSP_DCG             *dcg = (KSP_DCG *)ksp->data;
  Vec                  X = ksp->vec_sol, R = ksp->work[0], U = ksp->work[1], P = ksp->work[2], W = ksp->work[3], S = ksp->work[6];
  const PetscInt       i = ksp->its;
  petsckp::dcg::PwMode mode;
  petsckp::Sums4       h[petsckp::dcg::NumSlots];
  PetscScalar          gamma, uw, delta, denom, alpha, beta, res[3];
  PetscReal            drift, measure;
  PetscBool            reproject;

  PetscFunctionBegin;
  *step    = KSPDCG_STEP_ABORT;
  *restart = PETSC_FALSE;
  if (!st->have_u) PetscCall(KSP_PCApply(ksp, R, U)); /* u = M^-1 r_hat */
  st->have_u = PETSC_FALSE;
  PetscCall(KSPDCGProduct(ksp, Amat, U, W, R));      /* w = A u and the four sums */
  PetscCall(KSPDCGCoarseStep(ksp, U, W, R, &mode));  /* a1 = Z^T w, s1 = Z^T r_hat, a2 = E^-1 a1, a1^T a2, drift */
  st->coarse_valid = PETSC_FALSE;
  PetscCall(KSPDCGReadSums(ksp, PETSC_FALSE, h));
  uw     = h[petsckp::dcg::SlotProduct].v[0];
  gamma  = h[petsckp::dcg::SlotProduct].v[1];
  res[0] = gamma, res[1] = h[petsckp::dcg::SlotProduct].v[2], res[2] = h[petsckp::dcg::SlotProduct].v[3];
  delta  = petsckp::dcg::DeflatedPw(h[petsckp::dcg::SlotProduct], h[petsckp::dcg::SlotCoarse], h[petsckp::dcg::SlotDirect], mode);
  drift  = dcg->defl ? PetscSqrtReal(PetscAbsScalar(h[petsckp::dcg::SlotCoarse].v[1])) : 0;
  KSPDCGNormsFrom(ksp, res, &st->dp, &st->rnorm, &st->r2norm);
  KSPCheckDot(ksp, gamma);
  if (PetscRealPart(gamma) < 0) {
    PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "KSPDCG: the preconditioner is not positive definite: (r, M^-1 r) = %g", (double)PetscRealPart(gamma));
    ksp->reason = KSP_DIVERGED_INDEFINITE_PC;
    *step       = KSPDCG_STEP_STOP;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!st->just_tested) {
    measure = ksp->normtype == KSP_NORM_NONE ? st->r2norm : st->rnorm;
    PetscCall(KSPDCGTrackBest(ksp, st, i, measure, st->alpha_old));
    KSPCheckNorm(ksp, st->rnorm);
    PetscCall(PetscObjectSAWsTakeAccess((PetscObject)ksp));
    ksp->rnorm = st->rnorm;
    PetscCall(PetscObjectSAWsGrantAccess((PetscObject)ksp));
    PetscCall(KSPLogResidualHistory(ksp, st->rnorm));
    PetscCall(KSPMonitor(ksp, i, st->rnorm));
    if (st->initial) {
      /* as in the standard iteration: the first test is relative to || b || (see KSPSolve_DCG()) */
      PetscBool gz = ksp->guess_zero;
      if (dcg->defl) ksp->guess_zero = PETSC_FALSE;
      PetscCall((*ksp->converged)(ksp, i, st->rnorm, &ksp->reason, ksp->cnvP));
      ksp->guess_zero = gz;
      st->initial     = PETSC_FALSE;
      st->last_true   = measure;
    } else PetscCall((*ksp->converged)(ksp, i, st->rnorm, &ksp->reason, ksp->cnvP));
    if (ksp->reason) {
      if (!dcg->defl || (ksp->reason != KSP_CONVERGED_RTOL && ksp->reason != KSP_CONVERGED_ATOL) || i == 0) {
        *step = KSPDCG_STEP_STOP;
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      ksp->reason = KSP_CONVERGED_ITERATING; /* the recursive residual passed the test: verify with the true one */
      *step       = KSPDCG_STEP_TRUE;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  st->just_tested = PETSC_FALSE;
  if (i >= ksp->max_it) {
    *step = KSPDCG_STEP_STOP;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  KSPCheckDot(ksp, delta);
  reproject = dcg->defl && drift > KSPDCG_DRIFT_RTOL * st->r2norm ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(KSPDCGMonitorProjection(ksp, i, drift, st->r2norm, reproject));
  beta  = st->first ? 0.0 : gamma / st->gamma_old;
  denom = st->first ? delta : delta - beta * gamma / st->alpha_old; /* (p, P A p) with p = u + beta p_old */
  if (PetscRealPart(delta) <= 0) { /* (u, P A u), formed directly: may show an operator that is not SPD */
    PetscCall(KSPDCGBreakdown(ksp, i, delta, uw, step, restart));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (PetscRealPart(denom) <= 0) {
    /* (p, P A p) = delta - beta gamma / alpha_old holds only as far as the recurrences keep r_hat orthogonal to the
       previous direction: a re-projection r_hat <- P r_hat, or rounding at high contrast, can leave it nonpositive
       with (u, P A u) > 0. That says nothing about the operator: restart from the true residual */
    PetscCall(PetscInfo(ksp, "DCG: iteration %" PetscInt_FMT ": the single-reduction recurrence gives (p, P A p) = %g <= 0 with (u, P A u) = %g > 0 (rounding, or a re-projection of r_hat); restarting from the true residual\n", i, (double)PetscRealPart(denom), (double)PetscRealPart(delta)));
    *restart = PETSC_TRUE;
    *step    = KSPDCG_STEP_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reproject && st->last_reproject == i - 1) {
    PetscCall(PetscInfo(ksp, "DCG: iteration %" PetscInt_FMT ": the part of r_hat in range(Z) is again %g ||r_hat|| one iteration after a re-projection: the coarse solves cannot keep the residual deflated at this level; restarting from the true residual\n", i, (double)(drift / st->r2norm)));
    *restart = PETSC_TRUE;
    *step    = KSPDCG_STEP_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  alpha = gamma / denom;
  PetscCall(KSPDCGPipelinedUpdate(ksp, alpha, beta, U, W, P, S, X, R));
  st->alpha_old = alpha;
  st->gamma_old = gamma;
  st->first     = PETSC_FALSE;
  PetscCall(PetscObjectSAWsTakeAccess((PetscObject)ksp));
  ksp->its = i + 1;
  PetscCall(PetscObjectSAWsGrantAccess((PetscObject)ksp));
  if (reproject) {
    PetscCall(PetscInfo(ksp, "DCG: iteration %" PetscInt_FMT ": the part of r_hat in range(Z) is %g ||r_hat||, re-projecting r_hat <- P r_hat\n", i, (double)(drift / st->r2norm)));
    PetscCall(KSPDCGDeflate(ksp, R));
    dcg->nreproject++;
    st->last_reproject = i;
  }
  *step = KSPDCG_STEP_NEXT;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r_hat <- P (b - A x_hat) with y = M^-1 r_hat: when the recursive residual converged (verification), or a restart
   after a breakdown or a drift, or stagnation. *step: NEXT (restarted from it), STOP or ABORT */
static PetscErrorCode KSPDCGTrueStep(KSP ksp, Mat Amat, PetscBool restart, KSPDCGState *st, KSPDCGStep *step)
{
  KSP_DCG  *dcg = (KSP_DCG *)ksp->data;
  Vec       X = ksp->vec_sol, Y = ksp->work[1], P = ksp->work[2], XV = ksp->work[5];
  PetscReal measure;

  PetscFunctionBegin;
  *step = KSPDCG_STEP_ABORT;
  PetscCheck(dcg->defl, PetscObjectComm((PetscObject)ksp), PETSC_ERR_PLIB, "KSPDCG: restart without deflation");
  PetscCall(KSPDCGTrueResidual(ksp, Amat, &st->dp, &st->rnorm, &st->r2norm));
  st->coarse_valid = PETSC_TRUE;
  KSPCheckDot(ksp, st->dp);
  KSPCheckNorm(ksp, st->rnorm);
  ksp->rnorm = st->rnorm;
  PetscCall(petsckp::MonitorPrintf((PetscObject)ksp, dcg->monitor, "%3" PetscInt_FMT " DCG true deflated residual norm %g (%s)\n", ksp->its, (double)st->rnorm, restart ? "breakdown or drift" : "the recursive residual converged"));
  PetscCall((*ksp->converged)(ksp, ksp->its, st->rnorm, &ksp->reason, ksp->cnvP));
  if (ksp->reason) {
    *step = KSPDCG_STEP_STOP;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  measure = ksp->normtype == KSP_NORM_NONE ? st->r2norm : st->rnorm;
  if (!(measure < 0.5 * st->last_true)) {
    /* (with -ksp_error_if_not_converged, KSPSolve() raises the error after the best iterate has been selected) */
    PetscCall(PetscInfo(ksp, "DCG: stagnation at iteration %" PetscInt_FMT ": the true deflated residual norm %g is not below half of %g, that of the last restart: attainable accuracy of the deflation reached\n", ksp->its, (double)measure, (double)st->last_true));
    ksp->reason = KSP_DIVERGED_BREAKDOWN;
    *step       = KSPDCG_STEP_STOP;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscInfo(ksp, "DCG: iteration %" PetscInt_FMT ": restart from the true deflated residual, norm %g (smallest recursive norm before: %g)\n", ksp->its, (double)measure, (double)st->best));
  if (measure < st->bestv) {
    st->bestv    = measure; /* the best iterate whose true residual is known */
    st->bestv_it = ksp->its;
    PetscCall(VecCopy(X, XV));
  }
  st->last_true      = measure;
  st->best           = measure; /* the recursive norms before are not comparable: x_hat now is the best known */
  st->best_it        = ksp->its;
  st->best_in_x      = PETSC_TRUE;
  st->last_reproject = -2;
  dcg->nrestart++;
  if (dcg->pipelined) {
    st->first       = PETSC_TRUE; /* p = u = M^-1 r_hat (in Y) */
    st->have_u      = PETSC_TRUE;
    st->just_tested = PETSC_TRUE;
  } else PetscCall(VecCopy(Y, P)); /* p = M^-1 r_hat */
  *step = KSPDCG_STEP_NEXT;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   DEF1 with safeguards against rounding (see "Rounding" in the KSPDCG page), each of which leaves a run that does not
   need it unchanged: r_hat re-projected when its measured part in range(Z) exceeds KSPDCG_DRIFT_RTOL ||r_hat||;
   convergence of the recursive r_hat verified with the true deflated residual of the corrected iterate, which
   otherwise replaces r_hat (restart), as after a breakdown in rounding; a restart without progress ends the solve
   (KSP_DIVERGED_BREAKDOWN); the best iterate returned when the solve does not converge. The standard iteration
   (KSPDCGStepStandard()) tests the residual it has just updated; the single-reduction one (KSPDCGStepPipelined())
   tests r_hat_i inside iteration i, with the inner products it reduces anyway.
*/
static PetscErrorCode KSPSolve_DCG_Iterate(KSP ksp)
{
  KSP_DCG    *dcg = (KSP_DCG *)ksp->data;
  Vec         X = ksp->vec_sol, R, Y, P;
  Mat         Amat;
  KSPDCGState st;
  KSPDCGStep  step;
  PetscBool   restart;

  PetscFunctionBegin;
  PetscCall(KSPDCGSetUpDeflation(ksp)); /* no-op unless the operator changed */
  PetscCall(KSPDCGWorkVecs(ksp));
  PetscCall(KSPDCGAllocateSums(ksp));
  R = ksp->work[0], Y = ksp->work[1], P = ksp->work[2];
  PetscCall(PCGetOperators(ksp->pc, &Amat, NULL));
  PetscCall(KSPDCGGetDeviceMat(ksp, Amat));
  ksp->its        = 0;
  dcg->nreproject = 0;
  dcg->nrestart   = 0;
  dcg->best_it    = -1;
  /* 1: r0 = b - A x0, r_hat0 = P r0 */
  if (!ksp->guess_zero) {
    PetscCall(KSP_MatMult(ksp, Amat, X, R));
    PetscCall(VecAYPX(R, -1.0, ksp->vec_rhs));
    PetscCall(VecNorm(R, NORM_2, &dcg->r0norm)); /* (KSPSolve_DCG: the initial guess's residual, against a failed solve's) */
  } else {
    PetscCall(VecCopy(ksp->vec_rhs, R));
    PetscCall(VecSet(X, 0.0));
  }
  PetscCall(KSPDCGDeflate(ksp, R));
  st.coarse_valid = PETSC_TRUE; /* a2 = E^-1 Z^T (b - A x0) */
  if (!dcg->pipelined) {
    /* y0 = M^-1 r_hat0, p0 = y0 */
    PetscCall(KSP_PCApply(ksp, R, Y));                                     /* y <- M^-1 r_hat */
    PetscCall(KSPDCGDotNorm(ksp, Y, R, &st.dp, &st.rnorm, &st.r2norm)); /* dp = r_hat' M^-1 r_hat */
    KSPCheckDot(ksp, st.dp);
    KSPCheckNorm(ksp, st.rnorm);
    ksp->rnorm = st.rnorm;
    PetscCall(KSPLogResidualHistory(ksp, st.rnorm));
    PetscCall(KSPMonitor(ksp, 0, st.rnorm));
    {
      /* with a zero guess r_hat0 = P b, not b: mark the guess nonzero for the first test, so that the default test is
         relative to || b || (the paper's criterion, and that of KSPCG + PCDEFLATION), not to || P b || */
      PetscBool gz = ksp->guess_zero;
      if (dcg->defl) ksp->guess_zero = PETSC_FALSE;
      PetscCall((*ksp->converged)(ksp, 0, st.rnorm, &ksp->reason, ksp->cnvP));
      ksp->guess_zero = gz;
    }
    st.last_true = st.best = ksp->normtype == KSP_NORM_NONE ? st.r2norm : st.rnorm;
    st.best_it             = 0;
    PetscCall(VecCopy(Y, P));
  }
  while (!ksp->reason) {
    if (!dcg->pipelined && ksp->its >= ksp->max_it) break;
    if (dcg->pipelined) PetscCall(KSPDCGStepPipelined(ksp, Amat, &st, &step, &restart));
    else PetscCall(KSPDCGStepStandard(ksp, Amat, &st, &step, &restart));
    if (step == KSPDCG_STEP_ABORT) PetscFunctionReturn(PETSC_SUCCESS);
    if (step == KSPDCG_STEP_STOP) break;
    if (step == KSPDCG_STEP_NEXT) continue;
    PetscCall(KSPDCGTrueStep(ksp, Amat, restart, &st, &step)); /* r_hat <- P (b - A x_hat) */
    if (step == KSPDCG_STEP_ABORT) PetscFunctionReturn(PETSC_SUCCESS);
    if (step == KSPDCG_STEP_STOP) break;
  }
  if (!ksp->reason && ksp->its >= ksp->max_it) ksp->reason = KSP_DIVERGED_ITS;
  /* not converged: return the best iterate seen */
  if (ksp->reason < 0) PetscCall(KSPDCGSelectBest(ksp, Amat, st.coarse_valid, ksp->normtype == KSP_NORM_NONE ? st.r2norm : st.rnorm, st.best, st.best_in_x ? -1 : st.best_it, st.bestv, st.bestv_it, &st.coarse_valid));
  /* 11: x = Q b + P^T x_hat = x_hat + Z E^-1 Z^T (b - A x_hat), reusing the coarse solve of the last true residual;
     otherwise x_hat is corrected twice (the second correction removes the coarse solve's error of the first) */
  if (dcg->defl && dcg->final_correction) {
    const PetscBool reuse = st.coarse_valid;

    if (!reuse) PetscCall(KSPDCGCorrect(ksp, Amat)); /* x_hat += Q (b - A x_hat), R = b - A x_hat */
    PetscCall(PetscLogEventBegin(KSP_DCG_Deflate, ksp, X, 0, 0));
    if (reuse) PetscCall(dcg->defl->AddCoarse(X));
    else PetscCall(dcg->defl->AddQ(R, X));
    PetscCall(PetscLogEventEnd(KSP_DCG_Deflate, ksp, X, 0, 0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the 2-norm of b - A x (in r) */
static PetscErrorCode KSPDCGTrueResidualNorm(KSP ksp, Vec x, Vec r, PetscReal *nrm)
{
  Mat Amat;

  PetscFunctionBegin;
  PetscCall(PCGetOperators(ksp->pc, &Amat, NULL));
  PetscCall(KSP_MatMult(ksp, Amat, x, r));
  PetscCall(VecAYPX(r, -1.0, ksp->vec_rhs));
  PetscCall(VecNorm(r, NORM_2, nrm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSolve_DCG(KSP ksp)
{
  KSP_DCG       *dcg = (KSP_DCG *)ksp->data;
  PetscErrorCode ierr;
  PetscReal      r0, rf;

  PetscFunctionBegin;
  /* the residual of the initial guess: a failed solve (breakdown, an operator that is not SPD, NaN, the iterations
     spent) returns its best iterate, or the initial guess where that iterate is worse (e.g. the coarse correction of
     an indefinite operator) */
  if (!dcg->bs_r) PetscCall(VecDuplicate(ksp->vec_sol, &dcg->bs_r));
  {
    /* b = 0: x = 0 is the solution (the deflated start of a nonzero guess can leave a residual at the rounding level
       that no relative test ever passes) */
    PetscReal bnorm;
    PetscCall(VecNorm(ksp->vec_rhs, NORM_2, &bnorm));
    if (bnorm == 0) {
      PetscCall(VecSet(ksp->vec_sol, 0.0));
      ksp->its    = 0;
      ksp->rnorm  = 0;
      ksp->reason = KSP_CONVERGED_ATOL;
      PetscCall(KSPMonitor(ksp, 0, 0.0));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    dcg->r0norm = bnorm;
  }
  if (!ksp->guess_zero) {
    if (!dcg->x0) PetscCall(VecDuplicate(ksp->vec_sol, &dcg->x0));
    PetscCall(VecCopy(ksp->vec_sol, dcg->x0));
  }
  dcg->in_solve = PETSC_TRUE;
  ierr          = KSPSolve_DCG_Iterate(ksp); /* sets r0norm = || b - A x0 || for a nonzero guess */
  dcg->in_solve = PETSC_FALSE;
  PetscCall(ierr);
  r0 = dcg->r0norm;
  if (ksp->reason < 0) {
    PetscCall(KSPDCGTrueResidualNorm(ksp, ksp->vec_sol, dcg->bs_r, &rf));
    if (!(rf <= r0)) {
      PetscCall(PetscInfo(ksp, "DCG: the solve failed (%s) with a true residual norm %g above the initial guess's %g: the initial guess is returned\n", KSPConvergedReasons[ksp->reason], (double)rf, (double)r0));
      if (ksp->guess_zero) PetscCall(VecSet(ksp->vec_sol, 0.0));
      else PetscCall(VecCopy(dcg->x0, ksp->vec_sol));
      if (ksp->normtype == KSP_NORM_UNPRECONDITIONED) ksp->rnorm = r0;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* During a solve vec_sol holds the deflated iterate x_hat; the iterate is x = x_hat + Q (b - A x_hat) (step 11 of
   KSPSolve_DCG), which monitors (-ksp_monitor_true_residual, KSPBuildResidual()) and user code must see. The coarse
   vectors of the iteration in progress are kept. */
static PetscErrorCode KSPBuildSolution_DCG(KSP ksp, Vec v, Vec *V)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;
  Mat      Amat;

  PetscFunctionBegin;
  if (!dcg->in_solve || !dcg->defl || !dcg->final_correction) {
    PetscCall(KSPBuildSolutionDefault(ksp, v, V));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!dcg->bs_r) PetscCall(VecDuplicate(ksp->vec_sol, &dcg->bs_r));
  if (!v) {
    if (!dcg->bs_x) PetscCall(VecDuplicate(ksp->vec_sol, &dcg->bs_x));
    v = dcg->bs_x;
  }
  PetscCall(PCGetOperators(ksp->pc, &Amat, NULL));
  PetscCall(VecCopy(ksp->vec_sol, v));
  PetscCall(KSP_MatMult(ksp, Amat, ksp->vec_sol, dcg->bs_r));
  PetscCall(VecAYPX(dcg->bs_r, -1.0, ksp->vec_rhs));
  PetscCall(dcg->defl->AddQKeepState(dcg->bs_r, v));
  if (V) *V = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPReset_DCG(KSP ksp)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  PetscCall(KSPDCGResetSpace(ksp));
  PetscCall(PetscKPDeviceMatDestroy(&dcg->Ad));
  PetscCall(VecDestroy(&dcg->bs_x));
  PetscCall(VecDestroy(&dcg->bs_r));
  PetscCall(VecDestroy(&dcg->x0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *const KSPDCGComposed[] = {"KSPDCGSetDeflationSpace_C", "KSPDCGCreateSpaceMat_C", "KSPDCGSetDeflationSpaceType_C", "KSPDCGGetDeflationSpaceType_C", "KSPDCGSetSubdomains_C", "KSPDCGGetSubdomains_C", "KSPDCGSetBlocks_C", "KSPDCGGetBlocks_C", "KSPDCGSetCoarseType_C", "KSPDCGGetCoarseType_C", "KSPDCGSetCoarsePivotRtol_C", "KSPDCGGetCoarsePivotRtol_C", "KSPDCGSetFinalCorrection_C", "KSPDCGGetFinalCorrection_C", "KSPDCGSetPipelined_C", "KSPDCGGetPipelined_C"};

static PetscErrorCode KSPDestroy_DCG(KSP ksp)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  PetscCall(KSPReset_DCG(ksp));
  PetscCall(MatDestroy(&dcg->Zuser));
  if (dcg->monitor) PetscCall(PetscViewerAndFormatDestroy(&dcg->monitor));
  for (size_t i = 0; i < sizeof(KSPDCGComposed) / sizeof(KSPDCGComposed[0]); i++) PetscCall(PetscObjectComposeFunction((PetscObject)ksp, KSPDCGComposed[i], NULL));
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
  PetscCall(KSPDCGResetSpace(ksp));
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

static PetscErrorCode KSPDCGSetDeflationSpaceType_DCG(KSP ksp, KSPDCGSpaceType type)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;
  char     name[256];

  PetscFunctionBegin;
  PetscCall(KSPDCGOptionName(ksp, "_space", name, sizeof(name)));
  PetscCheck(type >= KSP_DCG_SPACE_NONE && type <= KSP_DCG_SPACE_USER, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "%s: unknown deflation space type %d; use KSP_DCG_SPACE_NONE, _CHUNKS, _BLOCKS or _USER", name, (int)type);
  if (dcg->space_set && dcg->space == type) PetscFunctionReturn(PETSC_SUCCESS);
  dcg->space     = type;
  dcg->space_set = PETSC_TRUE;
  PetscCall(KSPDCGResetSpace(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDCGGetDeflationSpaceType_DCG(KSP ksp, KSPDCGSpaceType *type)
{
  KSP_DCG  *dcg = (KSP_DCG *)ksp->data;
  PetscBool isda = PETSC_FALSE;

  PetscFunctionBegin;
  if (dcg->space_set) *type = dcg->space;
  else if (dcg->defl) *type = dcg->built;
  else {
    /* the default DeflationCreate() will choose (blocks need a DMDA whose grid matches the operator) */
    if (ksp->dm) PetscCall(PetscObjectTypeCompare((PetscObject)ksp->dm, DMDA, &isda));
    *type = dcg->Zuser ? KSP_DCG_SPACE_USER : (isda ? KSP_DCG_SPACE_BLOCKS : KSP_DCG_SPACE_CHUNKS);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDCGSetSubdomains_DCG(KSP ksp, PetscInt d)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;
  char     name[256];

  PetscFunctionBegin;
  PetscCall(KSPDCGOptionName(ksp, "_subdomains", name, sizeof(name)));
  PetscCheck(d >= 0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "%s %" PetscInt_FMT " is negative: give the number of chunks (at most the number of rows), or 0 for the default 2 ceil(sqrt(N))", name, d);
  if (dcg->subdomains == d) PetscFunctionReturn(PETSC_SUCCESS);
  dcg->subdomains = d;
  PetscCall(KSPDCGResetSpace(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDCGGetSubdomains_DCG(KSP ksp, PetscInt *d)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  *d = dcg->subdomains;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDCGSetBlocks_DCG(KSP ksp, PetscInt bx, PetscInt by, PetscInt bz)
{
  KSP_DCG       *dcg = (KSP_DCG *)ksp->data;
  const PetscInt b[3] = {bx, by, bz};
  char           name[256];

  PetscFunctionBegin;
  PetscCall(KSPDCGOptionName(ksp, "_blocks", name, sizeof(name)));
  for (PetscInt i = 0; i < 3; i++) PetscCheck(b[i] >= 0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "%s: %" PetscInt_FMT " blocks in direction %" PetscInt_FMT " is negative: give at least 1 (at most the grid size), or 0 for the default min(8, n/4)", name, b[i], i);
  if (dcg->blocks[0] == bx && dcg->blocks[1] == by && dcg->blocks[2] == bz) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < 3; i++) dcg->blocks[i] = b[i];
  PetscCall(KSPDCGResetSpace(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDCGGetBlocks_DCG(KSP ksp, PetscInt *bx, PetscInt *by, PetscInt *bz)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  if (bx) *bx = dcg->blocks[0];
  if (by) *by = dcg->blocks[1];
  if (bz) *bz = dcg->blocks[2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDCGSetCoarseType_DCG(KSP ksp, KSPDCGCoarseType type)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;
  char     name[256];

  PetscFunctionBegin;
  PetscCall(KSPDCGOptionName(ksp, "_coarse", name, sizeof(name)));
  PetscCheck(type == KSP_DCG_COARSE_CHOLESKY || type == KSP_DCG_COARSE_INVERSE, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "%s: unknown coarse solve type %d; use KSP_DCG_COARSE_CHOLESKY or KSP_DCG_COARSE_INVERSE", name, (int)type);
  if (dcg->coarse == type) PetscFunctionReturn(PETSC_SUCCESS);
  dcg->coarse = type;
  PetscCall(KSPDCGResetSpace(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDCGGetCoarseType_DCG(KSP ksp, KSPDCGCoarseType *type)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  *type = dcg->coarse;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDCGSetCoarsePivotRtol_DCG(KSP ksp, PetscReal rtol)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;
  char     name[256];

  PetscFunctionBegin;
  PetscCall(KSPDCGOptionName(ksp, "_coarse_pivot_rtol", name, sizeof(name)));
  PetscCheck(!PetscIsInfOrNanReal(rtol) && rtol >= 0 && rtol < 1, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "%s %g must be in [0, 1) (the relative Cholesky pivot of E below which E is singular)", name, (double)rtol);
  if (dcg->pivot_rtol == rtol) PetscFunctionReturn(PETSC_SUCCESS);
  dcg->pivot_rtol = rtol;
  PetscCall(KSPDCGResetSpace(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDCGGetCoarsePivotRtol_DCG(KSP ksp, PetscReal *rtol)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  *rtol = dcg->pivot_rtol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDCGSetFinalCorrection_DCG(KSP ksp, PetscBool flg)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  dcg->final_correction = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDCGGetFinalCorrection_DCG(KSP ksp, PetscBool *flg)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  *flg = dcg->final_correction;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDCGSetPipelined_DCG(KSP ksp, PetscBool flg)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  dcg->pipelined = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDCGGetPipelined_DCG(KSP ksp, PetscBool *flg)
{
  KSP_DCG *dcg = (KSP_DCG *)ksp->data;

  PetscFunctionBegin;
  *flg = dcg->pipelined;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* options go through the setters, which rebuild the space (at the next setup) only when a value changes */
static PetscErrorCode KSPSetFromOptions_DCG(KSP ksp, PETSCKP_OPTIONS_ARG)
{
  KSP_DCG         *dcg = (KSP_DCG *)ksp->data;
  PetscInt         nb  = 3, b[3], d;
  PetscBool        flg, fc;
  KSPDCGSpaceType  space;
  KSPDCGCoarseType coarse;
  PetscReal        rtol;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "KSP DCG (deflated CG) options");
  PetscCall(KSPDCGGetDeflationSpaceType(ksp, &space));
  PetscCall(PetscOptionsEnum("-ksp_dcg_space", "Deflation space (default: the user's Z, else blocks when the KSP has a DMDA, else chunks)", "KSPDCGSetDeflationSpaceType", KSPDCGSpaceTypes, (PetscEnum)space, (PetscEnum *)&space, &flg));
  if (flg) PetscCall(KSPDCGSetDeflationSpaceType(ksp, space));
  PetscCall(PetscOptionsInt("-ksp_dcg_subdomains", "Number of chunks (contiguous index ranges) for -ksp_dcg_space chunks (0: 2 ceil(sqrt(N)), at most N)", "KSPDCGSetSubdomains", dcg->subdomains, &d, &flg));
  if (flg) PetscCall(KSPDCGSetSubdomains(ksp, d));
  for (PetscInt i = 0; i < 3; i++) b[i] = dcg->blocks[i];
  PetscCall(PetscOptionsIntArray("-ksp_dcg_blocks", "DMDA boxes per direction bx,by,bz for -ksp_dcg_space blocks (default min(8, n/4) each; a shorter list repeats its last value)", "KSPDCGSetBlocks", b, &nb, &flg));
  if (flg) {
    PetscCheck(nb > 0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_WRONG, "-%sksp_dcg_blocks needs 1 to 3 values bx[,by[,bz]]", ((PetscObject)ksp)->prefix ? ((PetscObject)ksp)->prefix : "");
    for (PetscInt i = nb; i < 3; i++) b[i] = b[nb - 1];
    PetscCall(KSPDCGSetBlocks(ksp, b[0], b[1], b[2]));
  }
  PetscCall(PetscOptionsEnum("-ksp_dcg_coarse", "Coarse solve with E = Z^T A Z: Cholesky factor or explicit inverse", "KSPDCGSetCoarseType", KSPDCGCoarseTypes, (PetscEnum)dcg->coarse, (PetscEnum *)&coarse, &flg));
  if (flg) PetscCall(KSPDCGSetCoarseType(ksp, coarse));
  PetscCall(PetscOptionsReal("-ksp_dcg_coarse_pivot_rtol", "Relative Cholesky pivot of E below which E is declared singular, in [0, 1)", "KSPDCGSetCoarsePivotRtol", dcg->pivot_rtol, &rtol, &flg));
  if (flg) PetscCall(KSPDCGSetCoarsePivotRtol(ksp, rtol));
  PetscCall(PetscOptionsBool("-ksp_dcg_final_correction", "Apply the final correction x = Q b + P^T x_hat (off only for debugging)", "KSPDCGSetFinalCorrection", dcg->final_correction, &fc, &flg));
  if (flg) PetscCall(KSPDCGSetFinalCorrection(ksp, fc));
  PetscCall(PetscOptionsBool("-ksp_dcg_pipelined", "Single-reduction (Chronopoulos-Gear) iteration: one global reduction per iteration", "KSPDCGSetPipelined", dcg->pipelined, &fc, &flg));
  if (flg) PetscCall(KSPDCGSetPipelined(ksp, fc));
  PetscCall(petsckp::MonitorSetFromOptions(PetscOptionsObject, "-ksp_dcg_monitor_projection", "Print || Z^T r_hat || and the part of r_hat in range(Z) every iteration", "KSPDCG", &dcg->monitor));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPView_DCG(KSP ksp, PetscViewer viewer)
{
  KSP_DCG  *dcg = (KSP_DCG *)ksp->data;
  PetscBool iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "deflated CG (DEF1%s, final correction %s)\n", dcg->pipelined ? ", single-reduction (Chronopoulos-Gear) iteration" : "", dcg->final_correction ? "on" : "off"));
  if (dcg->have_built) {
    char blk[128] = "";
    if (dcg->built == KSP_DCG_SPACE_BLOCKS) PetscCall(PetscSNPrintf(blk, sizeof(blk), " %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT, dcg->built_blocks[0], dcg->built_blocks[1], dcg->built_blocks[2]));
    PetscCall(PetscViewerASCIIPrintf(viewer, "deflation space: %s%s, %" PetscInt_FMT " vectors\n", KSPDCGSpaceName(dcg->built), blk, dcg->defl ? dcg->defl->d : 0));

  } else PetscCall(PetscViewerASCIIPrintf(viewer, "deflation space: %s\n", dcg->space_set ? KSPDCGSpaceName(dcg->space) : "default (user Z, else blocks with a DMDA, else chunks)"));
  const PetscBool lu = dcg->defl && !dcg->defl->E.symmetric ? PETSC_TRUE : PETSC_FALSE; /* a nonsymmetric operator */
  PetscCall(PetscViewerASCIIPrintf(viewer, "coarse solve: %s of E = Z^T A Z (replicated on every rank, on the device), singular below relative pivot %g\n", lu ? "explicit inverse by LU (E is not symmetric: a nonsymmetric operator)" : dcg->coarse == KSP_DCG_COARSE_INVERSE ? "explicit inverse" : (dcg->coarse == KSP_DCG_COARSE_CHOLESKY ? "cholesky (L^-1 kept)" : "unknown"), (double)dcg->pivot_rtol));
  if (dcg->defl) PetscCall(PetscViewerASCIIPrintf(viewer, "E: condition number estimate %.1e (1-norm), smallest relative %s pivot %.1e\n", (double)dcg->defl->cond, lu ? "LU" : "Cholesky", (double)dcg->defl->E.min_pivot));
  if (dcg->nreproject || dcg->nrestart || dcg->best_it >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "last solve: %" PetscInt_FMT " re-projections of the deflated residual, %" PetscInt_FMT " restarts from the true residual%s\n", dcg->nreproject, dcg->nrestart, dcg->best_it >= 0 ? ", returned the best iterate seen" : ""));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   KSPDCG - deflated preconditioned conjugate gradients (DPCG, "DEF1"), Algorithm 1 of Gupta, van Gijzen and Vuik,
   with the deflation kernels and the coarse solve on the device (Kokkos)

   Options Database Keys:
+  -ksp_dcg_space <chunks,blocks,user,none> - the deflation space Z: contiguous index ranges (the paper's stripes
                                              and planes), subdomain boxes of the KSP's DMDA, the user's
                                              `KSPDCGSetDeflationSpace()`, or none (plain PCG). Default: the user's Z
                                              if given, else blocks when the KSP has a DMDA, else chunks
                                              (`KSPDCGSetDeflationSpaceType()`)
.  -ksp_dcg_subdomains <d>                  - number of chunks (default 2 ceil(sqrt(N)), at most 2048 and at most N);
                                              with a DMDA the chunks are ranges of the natural grid ordering (x
                                              fastest), so that d = 2n gives the paper's 2D half-row stripes,
                                              d = n^2 the 3D stripes, d = n the 3D planes (`KSPDCGSetSubdomains()`)
.  -ksp_dcg_blocks <bx,by,bz>               - DMDA boxes per direction (default min(8, n/4) per direction;
                                              `KSPDCGSetBlocks()`)
.  -ksp_dcg_coarse <cholesky,inverse>       - solve with E = Z^T A Z through its Cholesky factor (default) or its
                                              explicit inverse (the paper's fast variant; less accurate for
                                              ill-conditioned E). See the Notes for what each keeps on the device
                                              (`KSPDCGSetCoarseType()`)
.  -ksp_dcg_coarse_pivot_rtol <tol>         - relative Cholesky pivot of E under which E is singular, in [0, 1)
                                              (default 1e-13; `KSPDCGSetCoarsePivotRtol()`)
.  -ksp_dcg_final_correction <bool>         - x = Q b + P^T x_hat at the end (default true; off only for debugging;
                                              `KSPDCGSetFinalCorrection()`)
.  -ksp_dcg_pipelined <bool>                - the single-reduction iteration of Chronopoulos and Gear: one global
                                              reduction and one host synchronisation per iteration (default false;
                                              see "Single-reduction iteration" below; `KSPDCGSetPipelined()`)
-  -ksp_dcg_monitor_projection [ascii[:file]] - print, every iteration, || Z^T r_hat || and the part of r_hat in
                                              range(Z) relative to || r_hat ||, and the true deflated residual
                                              norm where it is computed (see "Rounding" below)

   Level: intermediate

   Notes:
   With E = Z^T A Z, Q = Z E^-1 Z^T and P = I - A Q, DCG runs PCG on P A x_hat = P b with any preconditioner M
   (`PCNEUMANN`, `PCJACOBI`, `PCNONE`, ...), and returns x = Q b + P^T x_hat. The residual r_hat = P (b - A x_hat) it
   iterates on equals the true residual b - A x of the returned x, so the default unpreconditioned norm test
   || r_hat || < max(rtol || b ||, atol) is the paper's criterion (also with a zero initial guess, where r_hat0 = P b:
   the reference is || b ||, as for `KSPCG` with `PCDEFLATION`). Preconditioned and natural norms are supported.

   The operator (Amat) must be an AIJ matrix without NaN or Inf entries (checked when E is formed: the error names
   the row). E is formed on the device once per operator change (for chunk and block spaces by an aggregation kernel
   over the entries of A; for a user Z from A Z = `MatMatMult()`), summed over the ranks, and replicated on every
   rank; each application of P needs one `MPI_Allreduce()` of d values. A singular or rank-deficient E (dependent
   deflation vectors, or a null vector of A in the span of Z) is an error that says so. Its condition number is
   estimated at setup (Hager's 1-norm estimator, through the coarse solve) and shown by `KSPView()`; `-info` says when
   it is large.

   Coarse solve. 'cholesky' factors E = L L^T on the host (LAPACK potrf, where the singularity check is made) and keeps
   the triangular inverse L^-1 on the device (formed by a triangular solve with the identity); every solve is then two
   fully parallel triangular matrix-vector products, a2 = L^-T (L^-1 a1), instead of two sequential substitutions
   (d dependent steps). Its rounding error grows with cond(L) = sqrt(cond(E)). 'inverse' forms E^-1 = L^-T L^-1
   explicitly (potri) and applies one dense matrix-vector product: half the work per solve, but the error grows with
   cond(E), which for ill-conditioned E (Neumann problems, many deflation vectors) can stall the iteration, as the
   paper observed in 3D. Both keep O(d^2) numbers on every rank ('cholesky' 2 d^2, 'inverse' d^2): intended for d up
   to a few thousand.

   Rounding. In exact arithmetic Z^T r_hat = 0 in every iteration and r_hat = P (b - A x_hat). In floating point each
   deflation w_hat = w - AZ a2 errs by about the machine precision times || A p || (large where the coefficients are
   large) times cond(E), so that (1) r_hat drifts out of range(Z)^perp: P A is singular on range(Z), that part is
   never reduced, and once it is comparable with || r_hat || (high contrast, tight rtol) the iteration stalls and
   then breaks down; and (2) r_hat drifts away from the true deflated residual. DCG therefore
   - measures the part of r_hat in range(Z) in every iteration, || Z (Z^T Z)^-1 Z^T r_hat ||, computed as
     sqrt(sum_j (z_j^T r_hat)^2 / ||z_j||^2) (exact for disjoint aggregates), with Z^T r_hat restricted in the same
     kernel and `MPI_Allreduce()` as Z^T w (one more vector read, no more messages), and re-projects
     r_hat <- P r_hat when it exceeds 1e-6 || r_hat ||;
   - verifies convergence: when || r_hat || passes the test, x_hat is corrected, x_hat <- x_hat + Q (b - A x_hat) (this
     changes neither P^T x_hat nor P (b - A x_hat), but removes the arbitrary part of x_hat in range(Z) whose A-image
     would swamp the coarse solve), and the true deflated residual P (b - A x_hat) is tested (its coarse solve is
     reused by the final correction). If it fails, it replaces r_hat and the iteration restarts from it
     (p = M^-1 r_hat; a residual replacement in the sense of van der Vorst and Ye). A breakdown (p, P A p) <= 0
     although (p, A p) > 0 (rounding, not an indefinite A) and a drift that returns one iteration after a
     re-projection lead to the same restart; a clearly negative (p, P A p) (below -sqrt(eps) (p, A p): for a
     symmetric positive definite A it is a Schur complement, >= 0 up to rounding) is an A that is not SPD. In the
     single-reduction iteration (p, P A p) comes from a recurrence, delta - beta gamma / alpha_old, which a
     re-projection of r_hat or rounding can make nonpositive for an SPD A: that restarts from the true residual, and
     only (u, P A u), formed directly, can show an A that is not SPD;
   - stops with `KSP_DIVERGED_BREAKDOWN` when a restart finds the true residual norm not below half that of the
     previous restart (or of the start): the attainable accuracy of the deflation is reached (`-info` says why);
     an indefinite A still gives `KSP_DIVERGED_INDEFINITE_MAT`;
   - returns, whenever it ends without converging (breakdown, `KSP_DIVERGED_ITS`, ...), the best iterate it has seen,
     with the final correction: of the last one, the best one since the last restart by the recursive norm (kept,
     when the iteration moves off it, as x_i = x_i+1 - alpha_i p_i: one vector operation per local minimum of the
     residual norm) and the best restart point, the one whose true residual norm (in the KSP's norm type;
     || r_hat || with `KSP_NORM_NONE`) is smallest. `KSPView()` reports re-projections, restarts and a returned
     earlier iterate. Where even that iterate's true residual is larger than the initial guess's (e.g. the coarse
     correction of an indefinite operator), the initial guess is returned (kept at the start of the solve: one vector
     copy when it is nonzero; its residual norm is that of the first step).
   In a well-conditioned run none of this changes the iterates; its cost is one vector read per iteration (the
   drift), one vector update per local minimum of the residual norm, two work vectors, and at the end one more
   operator product and coarse solve.

   Each iteration runs the operator product fused with its inner product (one kernel over the device copy of A that
   the deflation and `PCNEUMANN` share, made here when neither made it, e.g. with `PCJACOBI` and no deflation: the
   memory of one more copy of A; `MatMult()` and one more kernel for an operator that is not AIJ), the
   restriction Z^T w and Z^T r_hat (one team per deflation vector, no atomics), the replicated coarse solve (which
   also forms a1^T E^-1 a1 and the drift), the x and r update with the deflation w_hat = w - AZ a2 inside it, the
   preconditioner, (y, r) with the residual norms, and the p update. The deflated product w_hat is never stored:
   for a symmetric A, (p, P A p) = (p, A p) - (Z^T A p)^T E^-1 (Z^T A p), since (AZ)^T p = Z^T A p (a nonsymmetric E,
   from a nonsymmetric A, costs one more pass for (p, w_hat)). Every inner product is reduced into device memory and
   the update reads alpha there; the host reads the sums once per iteration, after the preconditioner, to test the
   residual. Under MPI the restriction is summed with (p, A p) in one `MPI_Allreduce()`, the residual sums in a second.

   Single-reduction iteration. With -ksp_dcg_pipelined (`KSPDCGSetPipelined()`), DCG runs the CG variant of
   Chronopoulos and Gear on the same deflated system: per iteration u = M^-1 r_hat, w = A u with (u, A u),
   gamma = (r_hat, u), (r_hat, r_hat), (u, u) in the same kernel, the restriction Z^T w, Z^T r_hat, and one
   `MPI_Allreduce()` of the 2 d + 4 values; then the coarse solve a2 = E^-1 a1 with a1^T a2, and from
   delta = (u, P A u) = (u, A u) - a1^T a2, beta = gamma / gamma_old and alpha = gamma / (delta - beta gamma / alpha_old)
   one kernel updates s = (w - AZ a2) + beta s (= P A p), p = u + beta p, x_hat += alpha p, r_hat -= alpha s. The
   deflation therefore costs no reduction of its own: the d values of the restriction travel with the inner
   products. The residual r_hat_i is tested in iteration i (with the sums it reduces anyway), so a solve that
   converges in k iterations applies the preconditioner and the operator k + 1 times, like the standard iteration.
   Per iteration: 9 kernels with deflation and `PCNEUMANN` (2 terms) against the standard iteration's 11, one host
   synchronisation, one global reduction against two; the same bytes (the s update replaces the separate (y, r) pass).
   Why this variant, not the pipelined CG of Ghysels and Vanroose: (1) theirs hides the latency of the reduction behind
   the preconditioner and the operator product of the next iteration, which needs a nonblocking reduction in flight
   while those kernels run; on one GPU every kernel and the reduction are in one stream and the host must read the
   scalars before it can launch the update, so nothing is hidden, while the deflated operator would need its own
   restriction and coarse solve inside the overlap window (a second reduction); (2) it carries four more vector
   recurrences (z, q, s and w for M^-1 A p, A M^-1 A p, ...), i.e. about 64 more bytes per unknown (a read and a write each) in an iteration
   that is bandwidth-bound at 256^3, and each of them propagates its local rounding error into the residual gap
   (Cools et al.), whereas the Chronopoulos-Gear variant has one more recurrence (s) and attains about the accuracy of
   standard CG (Carson et al.). Accuracy: the convergence of the recursive r_hat is verified with the true deflated
   residual, and a failed verification restarts from it (residual replacement, see "Rounding"), as in the standard
   iteration. On the bubbly problems (bench/run_dcg_pipelined.sh; contrasts 1e-1 to 1e-6, rtol 1e-6 and 1e-10,
   `PCNEUMANN` and `PCJACOBI`, 1 and 2 ranks) both iterations take the same number of iterations and return the same
   true residual, also at the attainable accuracy of the deflation. When not to use it: with a nonsymmetric operator
   (both iterations are CG, but the recurrences of this one rely on symmetry and break down earlier: it then stops
   with `KSP_DIVERGED_BREAKDOWN`), and where a host synchronisation is cheap (CPU runs): it saves nothing there.

   With the same Z and M, `KSPCG` with `PCDEFLATION` produces the same iterates (`KSPDCGCreateSpaceMat()` gives Z as a
   matrix for `PCDeflationSetSpace()`).

   References:
   R. Gupta, M. B. van Gijzen, C. Vuik, Efficient two-level preconditioned conjugate gradient method on the GPU,
   VECPAR 2012, LNCS 7851.
   H. A. van der Vorst, Q. Ye, Residual replacement strategies for Krylov subspace iterative methods for the
   convergence of true residuals, SIAM J. Sci. Comput. 22 (2000).
   Y. Saad, M. Yeung, J. Erhel, F. Guyomarc'h, A deflated version of the conjugate gradient algorithm, SIAM J. Sci.
   Comput. 21 (2000).
   J. M. Tang, R. Nabben, C. Vuik, Y. A. Erlangga, Comparison of two-level preconditioners derived from deflation,
   domain decomposition and multigrid methods, J. Sci. Comput. 39 (2009).
   A. T. Chronopoulos, C. W. Gear, s-step iterative methods for symmetric linear systems, J. Comput. Appl. Math. 25
   (1989).
   P. Ghysels, W. Vanroose, Hiding global synchronization latency in the preconditioned conjugate gradient
   algorithm, Parallel Comput. 40 (2014).
   S. Cools, E. F. Yetkin, E. Agullo, L. Giraud, W. Vanroose, Analyzing the effect of local rounding error
   propagation on the maximal attainable accuracy of the pipelined conjugate gradient method, SIAM J. Matrix Anal.
   Appl. 39 (2018).
   E. Carson, M. Rozloznik, Z. Strakos, P. Tichy, M. Tuma, The numerical stability analysis of pipelined conjugate
   gradient methods: historical context and methodology, SIAM J. Sci. Comput. 40 (2018).

.seealso: `KSPCreate()`, `KSPSetType()`, `KSPCG`, `PCDEFLATION`, `PCNEUMANN`, `KSPDCGSetDeflationSpace()`,
          `KSPDCGSetDeflationSpaceType()`, `KSPDCGSetSubdomains()`, `KSPDCGSetBlocks()`, `KSPDCGSetCoarseType()`,
          `KSPDCGSetCoarsePivotRtol()`, `KSPDCGSetFinalCorrection()`, `KSPDCGSetPipelined()`, `KSPDCGCreateSpaceMat()`
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
  ksp->ops->buildsolution  = KSPBuildSolution_DCG;
  ksp->ops->buildresidual  = KSPBuildResidualDefault;
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGSetDeflationSpace_C", KSPDCGSetDeflationSpace_DCG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGCreateSpaceMat_C", KSPDCGCreateSpaceMat_DCG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGSetDeflationSpaceType_C", KSPDCGSetDeflationSpaceType_DCG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGGetDeflationSpaceType_C", KSPDCGGetDeflationSpaceType_DCG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGSetSubdomains_C", KSPDCGSetSubdomains_DCG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGGetSubdomains_C", KSPDCGGetSubdomains_DCG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGSetBlocks_C", KSPDCGSetBlocks_DCG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGGetBlocks_C", KSPDCGGetBlocks_DCG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGSetCoarseType_C", KSPDCGSetCoarseType_DCG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGGetCoarseType_C", KSPDCGGetCoarseType_DCG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGSetCoarsePivotRtol_C", KSPDCGSetCoarsePivotRtol_DCG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGGetCoarsePivotRtol_C", KSPDCGGetCoarsePivotRtol_DCG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGSetFinalCorrection_C", KSPDCGSetFinalCorrection_DCG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGGetFinalCorrection_C", KSPDCGGetFinalCorrection_DCG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGSetPipelined_C", KSPDCGSetPipelined_DCG));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPDCGGetPipelined_C", KSPDCGGetPipelined_DCG));
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
  Sets the space type to `KSP_DCG_SPACE_USER`.

.seealso: `KSPDCG`, `KSPDCGCreateSpaceMat()`, `KSPDCGSetDeflationSpaceType()`
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

/*@
  KSPDCGSetDeflationSpaceType - chooses the kind of deflation space of `KSPDCG`

  Logically Collective

  Input Parameters:
+ ksp  - the `KSPDCG` solver
- type - `KSP_DCG_SPACE_CHUNKS`, `KSP_DCG_SPACE_BLOCKS` (needs a DMDA, `KSPSetDM()`), `KSP_DCG_SPACE_USER` (needs
         `KSPDCGSetDeflationSpace()`) or `KSP_DCG_SPACE_NONE` (plain PCG)

  Options Database Key:
. -ksp_dcg_space <chunks,blocks,user,none> - the space

  Level: intermediate

  Note:
  Without a call, the space is the user's Z if one was given, else blocks when the KSP has a DMDA whose grid matches
  the operator, else chunks. The space is rebuilt at the next setup only if the type changes.

.seealso: `KSPDCG`, `KSPDCGSpaceType`, `KSPDCGGetDeflationSpaceType()`, `KSPDCGSetSubdomains()`, `KSPDCGSetBlocks()`
@*/
PetscErrorCode KSPDCGSetDeflationSpaceType(KSP ksp, KSPDCGSpaceType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(ksp, type, 2);
  PetscTryMethod(ksp, "KSPDCGSetDeflationSpaceType_C", (KSP, KSPDCGSpaceType), (ksp, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDCGGetDeflationSpaceType - the kind of deflation space of `KSPDCG`

  Not Collective

  Input Parameter:
. ksp - the `KSPDCG` solver

  Output Parameter:
. type - the type set with `KSPDCGSetDeflationSpaceType()` or `-ksp_dcg_space`; without one, the type of the space
         built at setup (before setup: the default that will be chosen)

  Level: intermediate

.seealso: `KSPDCG`, `KSPDCGSpaceType`, `KSPDCGSetDeflationSpaceType()`
@*/
PetscErrorCode KSPDCGGetDeflationSpaceType(KSP ksp, KSPDCGSpaceType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscKPAssertPointer(type, 2);
  PetscUseMethod(ksp, "KSPDCGGetDeflationSpaceType_C", (KSP, KSPDCGSpaceType *), (ksp, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDCGSetSubdomains - sets the number of chunks (deflation vectors) of the `KSP_DCG_SPACE_CHUNKS` space of `KSPDCG`

  Logically Collective

  Input Parameters:
+ ksp - the `KSPDCG` solver
- d   - the number of chunks, at most the number of rows N; 0 for the default 2 ceil(sqrt(N)) (at most 2048 and N)

  Options Database Key:
. -ksp_dcg_subdomains <d> - the number of chunks

  Level: intermediate

  Note:
  A negative d is an error; a d above N is an error at setup.

.seealso: `KSPDCG`, `KSPDCGGetSubdomains()`, `KSPDCGSetDeflationSpaceType()`
@*/
PetscErrorCode KSPDCGSetSubdomains(KSP ksp, PetscInt d)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveInt(ksp, d, 2);
  PetscTryMethod(ksp, "KSPDCGSetSubdomains_C", (KSP, PetscInt), (ksp, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDCGGetSubdomains - the number of chunks set for the `KSP_DCG_SPACE_CHUNKS` space of `KSPDCG`

  Not Collective

  Input Parameter:
. ksp - the `KSPDCG` solver

  Output Parameter:
. d - the number of chunks (0: the default)

  Level: intermediate

.seealso: `KSPDCG`, `KSPDCGSetSubdomains()`
@*/
PetscErrorCode KSPDCGGetSubdomains(KSP ksp, PetscInt *d)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscKPAssertPointer(d, 2);
  PetscUseMethod(ksp, "KSPDCGGetSubdomains_C", (KSP, PetscInt *), (ksp, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDCGSetBlocks - sets the number of DMDA boxes per direction of the `KSP_DCG_SPACE_BLOCKS` space of `KSPDCG`

  Logically Collective

  Input Parameters:
+ ksp - the `KSPDCG` solver
. bx  - boxes in x (0: the default min(8, n/4))
. by  - boxes in y (ignored in 1D)
- bz  - boxes in z (ignored in 1D and 2D)

  Options Database Key:
. -ksp_dcg_blocks <bx,by,bz> - the boxes (a shorter list repeats its last value)

  Level: intermediate

  Note:
  Negative values are an error; values above the grid size are an error at setup. The space has bx by bz vectors.

.seealso: `KSPDCG`, `KSPDCGGetBlocks()`, `KSPDCGSetDeflationSpaceType()`
@*/
PetscErrorCode KSPDCGSetBlocks(KSP ksp, PetscInt bx, PetscInt by, PetscInt bz)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveInt(ksp, bx, 2);
  PetscValidLogicalCollectiveInt(ksp, by, 3);
  PetscValidLogicalCollectiveInt(ksp, bz, 4);
  PetscTryMethod(ksp, "KSPDCGSetBlocks_C", (KSP, PetscInt, PetscInt, PetscInt), (ksp, bx, by, bz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDCGGetBlocks - the number of DMDA boxes per direction set for the `KSP_DCG_SPACE_BLOCKS` space of `KSPDCG`

  Not Collective

  Input Parameter:
. ksp - the `KSPDCG` solver

  Output Parameters:
+ bx - boxes in x (0: the default), or NULL
. by - boxes in y, or NULL
- bz - boxes in z, or NULL

  Level: intermediate

.seealso: `KSPDCG`, `KSPDCGSetBlocks()`
@*/
PetscErrorCode KSPDCGGetBlocks(KSP ksp, PetscInt *bx, PetscInt *by, PetscInt *bz)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscUseMethod(ksp, "KSPDCGGetBlocks_C", (KSP, PetscInt *, PetscInt *, PetscInt *), (ksp, bx, by, bz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDCGSetCoarseType - chooses how `KSPDCG` solves with the coarse matrix E = Z^T A Z

  Logically Collective

  Input Parameters:
+ ksp  - the `KSPDCG` solver
- type - `KSP_DCG_COARSE_CHOLESKY` (default) or `KSP_DCG_COARSE_INVERSE`

  Options Database Key:
. -ksp_dcg_coarse <cholesky,inverse> - the coarse solve

  Level: advanced

.seealso: `KSPDCG`, `KSPDCGCoarseType`, `KSPDCGGetCoarseType()`
@*/
PetscErrorCode KSPDCGSetCoarseType(KSP ksp, KSPDCGCoarseType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(ksp, type, 2);
  PetscTryMethod(ksp, "KSPDCGSetCoarseType_C", (KSP, KSPDCGCoarseType), (ksp, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDCGGetCoarseType - how `KSPDCG` solves with the coarse matrix E = Z^T A Z

  Not Collective

  Input Parameter:
. ksp - the `KSPDCG` solver

  Output Parameter:
. type - `KSP_DCG_COARSE_CHOLESKY` or `KSP_DCG_COARSE_INVERSE`

  Level: advanced

.seealso: `KSPDCG`, `KSPDCGCoarseType`, `KSPDCGSetCoarseType()`
@*/
PetscErrorCode KSPDCGGetCoarseType(KSP ksp, KSPDCGCoarseType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscKPAssertPointer(type, 2);
  PetscUseMethod(ksp, "KSPDCGGetCoarseType_C", (KSP, KSPDCGCoarseType *), (ksp, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDCGSetCoarsePivotRtol - sets the relative Cholesky pivot of E = Z^T A Z below which `KSPDCG` declares E singular

  Logically Collective

  Input Parameters:
+ ksp  - the `KSPDCG` solver
- rtol - the tolerance on min_j L_jj^2 / E_jj, in [0, 1) (default 1e-13)

  Options Database Key:
. -ksp_dcg_coarse_pivot_rtol <rtol> - the tolerance

  Level: advanced

.seealso: `KSPDCG`, `KSPDCGGetCoarsePivotRtol()`
@*/
PetscErrorCode KSPDCGSetCoarsePivotRtol(KSP ksp, PetscReal rtol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveReal(ksp, rtol, 2);
  PetscTryMethod(ksp, "KSPDCGSetCoarsePivotRtol_C", (KSP, PetscReal), (ksp, rtol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDCGGetCoarsePivotRtol - the relative Cholesky pivot of E below which `KSPDCG` declares E singular

  Not Collective

  Input Parameter:
. ksp - the `KSPDCG` solver

  Output Parameter:
. rtol - the tolerance

  Level: advanced

.seealso: `KSPDCG`, `KSPDCGSetCoarsePivotRtol()`
@*/
PetscErrorCode KSPDCGGetCoarsePivotRtol(KSP ksp, PetscReal *rtol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscKPAssertPointer(rtol, 2);
  PetscUseMethod(ksp, "KSPDCGGetCoarsePivotRtol_C", (KSP, PetscReal *), (ksp, rtol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDCGSetFinalCorrection - turns the final correction x = Q b + P^T x_hat of `KSPDCG` on or off

  Logically Collective

  Input Parameters:
+ ksp - the `KSPDCG` solver
- flg - `PETSC_TRUE` (default) to apply it

  Options Database Key:
. -ksp_dcg_final_correction <bool> - apply the final correction

  Level: developer

  Note:
  Without it the returned x is the deflated iterate x_hat, which does not solve A x = b; off only for debugging.

.seealso: `KSPDCG`, `KSPDCGGetFinalCorrection()`
@*/
PetscErrorCode KSPDCGSetFinalCorrection(KSP ksp, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ksp, flg, 2);
  PetscTryMethod(ksp, "KSPDCGSetFinalCorrection_C", (KSP, PetscBool), (ksp, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDCGGetFinalCorrection - whether `KSPDCG` applies the final correction x = Q b + P^T x_hat

  Not Collective

  Input Parameter:
. ksp - the `KSPDCG` solver

  Output Parameter:
. flg - `PETSC_TRUE` when it does

  Level: developer

.seealso: `KSPDCG`, `KSPDCGSetFinalCorrection()`
@*/
PetscErrorCode KSPDCGGetFinalCorrection(KSP ksp, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscKPAssertPointer(flg, 2);
  PetscUseMethod(ksp, "KSPDCGGetFinalCorrection_C", (KSP, PetscBool *), (ksp, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDCGSetPipelined - chooses the single-reduction (Chronopoulos-Gear) iteration of `KSPDCG`: one global reduction
  and one host synchronisation per iteration

  Logically Collective

  Input Parameters:
+ ksp - the `KSPDCG` solver
- flg - `PETSC_TRUE` for the single-reduction iteration, `PETSC_FALSE` (default) for the standard one

  Options Database Key:
. -ksp_dcg_pipelined <bool> - use the single-reduction iteration

  Level: intermediate

  Note:
  See the `KSPDCG` page ("Single-reduction iteration") for what it changes, why it is the variant of Chronopoulos and
  Gear rather than the pipelined CG of Ghysels and Vanroose, and when not to use it.

.seealso: `KSPDCG`, `KSPDCGGetPipelined()`, `KSPCGSetSingleReduction()`
@*/
PetscErrorCode KSPDCGSetPipelined(KSP ksp, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(ksp, flg, 2);
  PetscTryMethod(ksp, "KSPDCGSetPipelined_C", (KSP, PetscBool), (ksp, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  KSPDCGGetPipelined - whether `KSPDCG` uses the single-reduction (Chronopoulos-Gear) iteration

  Not Collective

  Input Parameter:
. ksp - the `KSPDCG` solver

  Output Parameter:
. flg - `PETSC_TRUE` when it does

  Level: intermediate

.seealso: `KSPDCG`, `KSPDCGSetPipelined()`
@*/
PetscErrorCode KSPDCGGetPipelined(KSP ksp, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscKPAssertPointer(flg, 2);
  PetscUseMethod(ksp, "KSPDCGGetPipelined_C", (KSP, PetscBool *), (ksp, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}
