/*
   lbfgsb.cxx - TAO lbfgsb: L-BFGS-B 3.0 (Byrd, Lu, Nocedal, Zhu 1995; Morales, Nocedal 2011) for bound-constrained
   minimisation, with every n-length operation on the device (Fei, Rong, Wang, Wang, "Parallel L-BFGS-B algorithm
   on GPU", Computers & Graphics 40, 2014) and only O(m^2) scalar work on the host per iteration.

   One iteration, bounded or not (m stored pairs, n variables), and where the host waits for the device:
   - the generalised Cauchy point: its first pass (d, breakpoints, W^T d, the breakpoints' histogram over buckets of
     fixed edges) was made by the end pass of the iteration before; past the first breakpoint, the scan over chunks of
     breakpoints cut from that histogram (LBFGSBCauchyScanDevice: per round one read of the segment state, which brings
     the free set at the point the round ends at with the Gram corrections, computed from the segment state on the
     device); the point is described (CauchyPointDesc), not stored;
   - its free set (FreeSetList) with the corrections of the Gram blocks of `formk` for the variables that changed
     state (LBFGSBFreeSetGram): one read when no scan ran, none after it;
   - the subspace step: cmprlb's W^T r from the Gram blocks and the scan's W^T Z d (O(m^2) host work, no pass); subsm's
     direction, the projection, the descent test of v3.0 and the start of the line search in one pass that forms x^c on
     the fly (SubspaceStepStartGcp): one read;
   - the line search: x = z (stp = 1) and one g^T d per trial step;
   - the end pass (LBFGSBEndPass): the projected gradient, y = g - g_old, the update's products with the new pair and
     the next Cauchy point's first pass with W^T d: one read.
   Without bounds the Cauchy point is x and its free set everything: three reads per iteration.

   Routines: TaoSetUp_LBFGSB, TaoSolve_LBFGSB, TaoSetFromOptions_LBFGSB, TaoView_LBFGSB, TaoDestroy_LBFGSB,
   TaoCreate_LBFGSB, and the composed setters and getters of every option (TaoLBFGSBSetMemory, ...SetCauchyType,
   ...SetFactr, ...SetMaxLS, ...SetLineSearchTolerances, ...SetCauchyScanType, ...SetGNormType, ...SetGramType,
   ...SetChunk and their Get counterparts).
*/
#include "petsckp_types.h" /*I "petsckp.h" I*/
#include "kp_sys.hpp"
#include "kp_blas.hpp"
#include "lbfgsb_kernels.hpp"
#include <Kokkos_Sort.hpp>
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace petsckp;
using petsckp::lbfgsb::Breakpoint;
using petsckp::lbfgsb::CauchyScan;
using petsckp::lbfgsb::Memory;
using petsckp::lbfgsb::GramProduct;
using petsckp::lbfgsb::VecPtr;

const char *const TaoLBFGSBCauchyTypes[]     = {"exact", "approximate", "TaoLBFGSBCauchyType", "TAO_LBFGSB_CAUCHY_", NULL};
const char *const TaoLBFGSBCauchyScanTypes[] = {"device", "host", "TaoLBFGSBCauchyScanType", "TAO_LBFGSB_CAUCHY_SCAN_", NULL};
const char *const TaoLBFGSBGNormTypes[]      = {"inf", "2", "TaoLBFGSBGNormType", "TAO_LBFGSB_GNORM_", NULL};
const char *const TaoLBFGSBGramTypes[]       = {"incremental", "full", "TaoLBFGSBGramType", "TAO_LBFGSB_GRAM_", NULL};

/* the name of an enum value of a two-entry table, or "invalid" (View never indexes a table with an unchecked value) */
static const char *LBFGSBEnumName(const char *const *table, int value) { return value >= 0 && value < 2 ? table[value] : "invalid"; }

/* the options prefix of the solver, for error messages that name an option */
static const char *LBFGSBPrefix(Tao tao) { return ((PetscObject)tao)->prefix ? ((PetscObject)tao)->prefix : ""; }

/* growth of the chunks of the Cauchy scan from round to round: a round costs a fixed number of launches and host reads,
   so few rounds (fast growth) beat a tight last chunk */
static constexpr PetscInt LBFGSBChunkGrowth = 8;

struct TAO_LBFGSB {
  /* parameters */
  PetscInt                m       = 10;                            /* number of stored correction pairs */
  TaoLBFGSBCauchyType     cauchy  = TAO_LBFGSB_CAUCHY_EXACT;       /* exact (reference) or approximate (the paper's first-segment) Cauchy point */
  PetscReal               factr   = 1e7;                           /* relative f-decrease test factr * eps */
  PetscInt                maxls   = 20;                            /* most f/g evaluations per line search */
  PetscReal               ls_ftol = 1e-3, ls_gtol = 0.9, ls_xtol = 0.1;
  PetscInt                chunk   = 4096;                          /* first chunk of breakpoints of the exact Cauchy scan (LBFGSBChunkGrowth times larger each round) */
  TaoLBFGSBCauchyScanType scan    = TAO_LBFGSB_CAUCHY_SCAN_DEVICE; /* breakpoint scan on the device (prefix sums) or the host reference recurrences */
  TaoLBFGSBGNormType      gnorm   = TAO_LBFGSB_GNORM_INF;          /* norm of P(x - g) - x given to TAO's tests and monitors */
  TaoLBFGSBGramType       gram    = TAO_LBFGSB_GRAM_INCREMENTAL;   /* masked Gram blocks of formk: updated with the free-set changes (reference) or from scratch */
  /* work vectors */
  Vec       *S = nullptr, *Y = nullptr; /* ring buffers of s and y */
  Vec        d = nullptr, z = nullptr, r = nullptr, xold = nullptr, gold = nullptr, t = nullptr, work = nullptr;
  Vec        XL = nullptr, XU = nullptr; /* own +-infinity bounds when the problem has none */
  View<Int>  iwhere, idx;
  View<Real> tsort;
  View<Real> records;
  View<Real> recall, tkeys, p0dev, Mdev, carry, segout; /* device Cauchy scan: gathered records, sort keys, p0, M */
  View<Int>  perm;
  Kokkos::View<int64_t *, MemSpace>                    keys;
  Kokkos::View<Real **, Kokkos::LayoutLeft, MemSpace>  pre;    /* prefix sums of a chunk, (cnt + 1) x (4 col + 1) */
  Kokkos::View<VecPtr *, MemSpace>                     gvecs;  /* device pointers of (y_0..y_col-1, s_0..s_col-1), chronological */
  Kokkos::View<GramProduct *, MemSpace>                gprods; /* masked Gram: products, partial sums, results */
  Kokkos::View<Real **, Kokkos::LayoutRight, MemSpace> gpartial;
  View<Real>                                           gout;
  View<Int>                                            gfree, chg;            /* free flags of the stored Gram blocks; the variables whose state changed */
  View<Real>                                           pscratch, pout, pcoef; /* products with the stored pairs: scratch, results, combination coefficients */
  View<Real>                                           hedges;                /* histogram of the breakpoints: edges and counts */
  View<Int>                                            hcounts;
  View<Int>                                            selcount; /* the device count of a chunk's selection (one rank) */
  View<Real>                                           scanin;   /* M, p0 and carry of the device scan (Mdev, p0dev, carry view into it) */
  std::vector<PetscReal> gyy, gss, gszy, gsay, gszs; /* Gram blocks (m x m, chronological): y'ZZ'y, s'AA's, s'ZZ'y (full), s'AA'y (strictly lower), s'ZZ's */
  std::vector<VecPtr>    gptr;                         /* the pointers last copied into gvecs (the copy is skipped while they stay the same) */
  PetscInt               gprods_col = -1;              /* the memory size the products in gprods were listed for */
  View<Int>              fscount;                      /* FreeSetList's counts on the device: free variables, changes against gfree (in chg) */
  PetscBool              fsready = PETSC_FALSE;        /* fscount and chg are this iteration's (FreeSetList ran) */
  PetscBool              gramready = PETSC_FALSE;      /* the Gram blocks are corrected for this iteration's free set, which has gnfree variables (by the breakpoint scan) */
  PetscInt               gnfree    = 0;
  /* the first pass of the next Cauchy point, made by the end pass of the iteration before (LBFGSBEndPass) */
  PetscBool              cready = PETSC_FALSE, cstate = PETSC_FALSE; /* cinfo and cdots hold it; iwhere, d and t too (cstate) */
  PetscInt               ccol = 0, cnbreak = 0;                      /* the memory size of cdots; this rank's breakpoints */
  lbfgsb::CauchyInitInfo cinfo;                                      /* summed over the ranks */
  std::vector<PetscReal> cdots;                                      /* Y^T d and S^T d (not scaled by theta), summed over the ranks */
  std::vector<PetscInt>  chist;                                      /* its breakpoints per bucket of fixed edges (BreakBucket), summed over the ranks */
  PetscBool              chistready = PETSC_FALSE;                   /* chist is the histogram of this iteration's breakpoints */
  /* the Cauchy point of this iteration, described instead of stored: x^c is formed on the fly by the kernels that need it */
  PetscBool               gcpready = PETSC_FALSE; /* gcp and gcpp describe it (else lb->z holds it) */
  lbfgsb::CauchyPointDesc gcp;
  std::vector<PetscReal>  gcpp; /* W^T Z d at the Cauchy point: the scan's p (S part scaled by theta) */
  PetscInt                nlocal = 0, rstart = 0;
  /* limited-memory state */
  Memory    mem;
  PetscInt  head = 0, iupdat = 0;
  PetscBool updatd = PETSC_FALSE;
  /* statistics */
  PetscInt    nfgv = 0, nskip = 0, nreset = 0, nbreakscan = 0, nbreakpassed = 0, ntruncated = 0, nprojected = 0, nbacktrack = 0, nlsfail = 0, ngramchanged = 0, nnonfinite = 0;
  const char *termination = "none";
};

/* ---------------------------------------------------------------------------------------------------- helpers */

/* chronological Vec arrays of the stored pairs */
static void LBFGSBChrono(TAO_LBFGSB *lb, Vec *Sc, Vec *Yc)
{
  for (PetscInt j = 0; j < lb->mem.col; j++) {
    PetscInt p = (lb->head + j) % lb->m;
    Sc[j]      = lb->S[p];
    Yc[j]      = lb->Y[p];
  }
}

/* ptr (2 col entries) into lb->gvecs, unless they are the pointers copied last */
static PetscErrorCode LBFGSBPairsUpload(TAO_LBFGSB *lb, const std::vector<VecPtr> &ptr)
{
  const PetscInt n    = (PetscInt)ptr.size();
  bool           same = lb->gptr.size() == ptr.size();

  PetscFunctionBegin;
  for (PetscInt k = 0; same && k < n; k++) same = lb->gptr[k].p == ptr[k].p;
  if (n && !same) {
    PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(lb->gvecs, std::make_pair((PetscInt)0, n)), Kokkos::View<const VecPtr *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(ptr.data(), n)));
    lb->gptr = ptr;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device pointers of the pairs (Yc[j], Sc[j]), j < col, chronological (y_0..y_col-1, s_0..s_col-1), into
   lb->gvecs; dv (2 col entries) keeps the arrays until LBFGSBPairsRestore() */
static PetscErrorCode LBFGSBPairsGetList(TAO_LBFGSB *lb, PetscInt col, const Vec *Yc, const Vec *Sc, std::vector<DeviceVec> &dv)
{
  std::vector<VecPtr> ptr(2 * col);

  PetscFunctionBegin;
  for (PetscInt j = 0; j < col; j++) {
    PetscCall(dv[j].Get(Yc[j], Access::Read));
    PetscCall(dv[col + j].Get(Sc[j], Access::Read));
    ptr[j].p       = dv[j].cview().data();
    ptr[col + j].p = dv[col + j].cview().data();
  }
  PetscCall(LBFGSBPairsUpload(lb, ptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the stored pairs (LBFGSBPairsGetList of the memory) */
static PetscErrorCode LBFGSBPairsGet(TAO_LBFGSB *lb, std::vector<DeviceVec> &dv)
{
  Vec Sc[64], Yc[64];

  PetscFunctionBegin;
  LBFGSBChrono(lb, Sc, Yc);
  PetscCall(LBFGSBPairsGetList(lb, lb->mem.col, Yc, Sc, dv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LBFGSBPairsRestore(std::vector<DeviceVec> &dv)
{
  PetscFunctionBegin;
  for (auto &v : dv) PetscCall(v.Restore());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static Kokkos::View<VecPtr *, MemSpace> LBFGSBPairs(TAO_LBFGSB *lb) { return Kokkos::subview(lb->gvecs, std::make_pair((PetscInt)0, 2 * (PetscInt)lb->mem.col)); }

/* W^T v = (Y^T v, theta S^T v) summed over the ranks, one pass over the stored pairs */
static PetscErrorCode LBFGSBWtv(Tao tao, Vec v, PetscScalar *p)
{
  TAO_LBFGSB            *lb  = (TAO_LBFGSB *)tao->data;
  const PetscInt         col = lb->mem.col;
  std::vector<DeviceVec> dv(2 * lb->mem.col);
  DeviceVec              vv;

  PetscFunctionBegin;
  if (!col) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(LBFGSBPairsGet(lb, dv));
  PetscCall(vv.Get(v, Access::Read));
  PetscCallCXX(lbfgsb::PairDots(LBFGSBPairs(lb), col, vv.cview(), lb->pscratch, lb->pout));
  PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Real>(p, 2 * col), Kokkos::subview(lb->pout, std::make_pair((PetscInt)0, 2 * col))));
  PetscCallCXX(exec().fence());
  PetscCall(vv.Restore());
  PetscCall(LBFGSBPairsRestore(dv));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, p, (PetscMPIInt)(2 * col), MPIU_SCALAR, MPIU_SUM, PetscObjectComm((PetscObject)tao)));
  for (PetscInt j = 0; j < col; j++) p[col + j] *= lb->mem.theta;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* out = scale mask (c0 u0 + c1 u1 + c2 u2 + Y a + S b), coef = (a, b) of the stored pairs (NULL vectors: no term) */
static PetscErrorCode LBFGSBCombine(TAO_LBFGSB *lb, Vec out, PetscReal scale, PetscBool masked, PetscReal c0, Vec u0, PetscReal c1, Vec u1, PetscReal c2, Vec u2, const PetscScalar *coef)
{
  const PetscInt         col = lb->mem.col;
  std::vector<DeviceVec> dv(2 * lb->mem.col);
  DeviceVec              o, v0, v1, v2;
  lbfgsb::ConstView      e0, e1, e2;

  PetscFunctionBegin;
  PetscCall(LBFGSBPairsGet(lb, dv));
  if (col) PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(lb->pcoef, std::make_pair((PetscInt)0, 2 * col)), HostUView<const Real>(coef, 2 * col)));
  if (u0 && u0 != out) {
    PetscCall(v0.Get(u0, Access::Read));
    e0 = v0.cview();
  }
  if (u1) {
    PetscCall(v1.Get(u1, Access::Read));
    e1 = v1.cview();
  }
  if (u2) {
    PetscCall(v2.Get(u2, Access::Read));
    e2 = v2.cview();
  }
  PetscCall(o.Get(out, u0 == out ? Access::ReadWrite : Access::Write));
  if (u0 == out) e0 = o.cview();
  PetscCallCXX(lbfgsb::PairCombine(o.view(), scale, masked ? true : false, lb->iwhere, c0, e0, c1, e1, c2, e2, LBFGSBPairs(lb), col, lb->pcoef));
  PetscCall(o.Restore());
  if (u0 && u0 != out) PetscCall(v0.Restore());
  if (u1) PetscCall(v1.Restore());
  if (u2) PetscCall(v2.Restore());
  PetscCall(LBFGSBPairsRestore(dv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LBFGSBResetMemory(TAO_LBFGSB *lb)
{
  PetscFunctionBegin;
  lb->mem.col   = 0;
  lb->mem.theta = 1.0;
  lb->head      = 0;
  lb->iupdat    = 0;
  lb->updatd    = PETSC_FALSE;
  lb->nreset++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LBFGSBProjGradNorm(Tao tao, Vec XL, Vec XU, PetscReal *nrm)
{
  DeviceVec l, u, x, g;
  PetscReal loc;

  PetscFunctionBegin;
  PetscCall(l.Get(XL, Access::Read));
  PetscCall(u.Get(XU, Access::Read));
  PetscCall(x.Get(tao->solution, Access::Read));
  PetscCall(g.Get(tao->gradient, Access::Read));
  PetscCallCXX(loc = lbfgsb::ProjGradNormInf(l.cview(), u.cview(), x.cview(), g.cview(), PETSC_INFINITY));
  PetscCall(l.Restore());
  PetscCall(u.Restore());
  PetscCall(x.Restore());
  PetscCall(g.Restore());
  PetscCallMPI(MPI_Allreduce(&loc, nrm, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)tao)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the residual given to TAO's convergence test and monitors: L-BFGS-B's ||P(x - g) - x||_inf, or its 2-norm (the
   norm of TAO BLMVM's projected gradient) with -tao_lbfgsb_gnorm 2 */
static PetscErrorCode LBFGSBResidual(Tao tao, Vec XL, Vec XU, PetscReal sbgnrm, PetscReal *res)
{
  TAO_LBFGSB *lb = (TAO_LBFGSB *)tao->data;

  PetscFunctionBegin;
  if (lb->gnorm == TAO_LBFGSB_GNORM_INF) {
    *res = sbgnrm;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* in lb->z, free between the line search and the next subspace step (lb->work holds the next Cauchy point's d) */
  PetscCall(VecWAXPY(lb->z, -1.0, tao->gradient, tao->solution));
  PetscCall(VecPointwiseMax(lb->z, lb->z, XL));
  PetscCall(VecPointwiseMin(lb->z, lb->z, XU));
  PetscCall(VecAXPY(lb->z, -1.0, tao->solution));
  PetscCall(VecNorm(lb->z, NORM_2, res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the breakpoint times sorted on the device (no-break entries, kNoBreak, go to the end) */
static PetscErrorCode LBFGSBSortBreakpoints(TAO_LBFGSB *lb)
{
  DeviceVec t;

  PetscFunctionBegin;
  if ((PetscInt)lb->tsort.extent(0) != lb->nlocal) PetscCallCXX(lb->tsort = View<Real>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lbfgsb::tsort")), lb->nlocal)); /* the host scan only */
  PetscCall(t.Get(lb->t, Access::Read));
  auto tv = t.cview();
  PetscCallCXX(Kokkos::deep_copy(exec(), lb->tsort, tv));
  PetscCall(t.Restore());
  PetscCallCXX(lbfgsb::SortOnExec(lb->tsort));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the records (breakpoint, index, gradient, gap, and the W rows) of this rank's breakpoints in (lo, hi] */
/* (expect >= 0: the number of this rank's breakpoints in (lo, hi], known from the histograms: the selection leaves its
   count in lb->selcount for the caller to check later instead of being read now) */
static PetscErrorCode LBFGSBChunkRecords(Tao tao, Vec XL, Vec XU, Vec *Sc, Vec *Yc, PetscInt col, PetscInt stride, PetscReal lo, PetscReal hi, PetscInt expect, PetscInt *nsel)
{
  TAO_LBFGSB *lb = (TAO_LBFGSB *)tao->data;

  PetscFunctionBegin;
  {
    DeviceVec l, u, x, d, t;
    PetscCall(l.Get(XL, Access::Read));
    PetscCall(u.Get(XU, Access::Read));
    PetscCall(x.Get(tao->solution, Access::Read));
    PetscCall(d.Get(lb->d, Access::Read));
    PetscCall(t.Get(lb->t, Access::Read));
    if (expect >= 0) {
      if (!lb->selcount.extent(0)) PetscCallCXX(lb->selcount = View<Int>(std::string("lbfgsb::selcount"), 1));
      PetscCallCXX(lbfgsb::SelectBreakpointsCount(t.cview(), lo, hi, lb->idx, expect, lb->selcount));
      *nsel = expect;
    } else PetscCallCXX(*nsel = lbfgsb::SelectBreakpoints(t.cview(), lo, hi, lb->idx));
    if ((PetscInt)lb->records.extent(0) < *nsel * stride) PetscCallCXX(lb->records = View<Real>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lbfgsb::records")), *nsel * stride));
    std::vector<DeviceVec> dv(2 * col);
    PetscCall(LBFGSBPairsGet(lb, dv));
    PetscCallCXX(lbfgsb::BreakpointRecordsW(l.cview(), u.cview(), x.cview(), d.cview(), t.cview(), lb->idx, *nsel, lb->rstart, LBFGSBPairs(lb), col, lb->mem.theta, lb->records, stride));
    PetscCall(LBFGSBPairsRestore(dv));
  }
  (void)Sc;
  (void)Yc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LBFGSBCauchyScanDevice(Tao, Vec, Vec, Vec *, Vec *, PetscReal, PetscReal, PetscInt, PetscInt, bool, CauchyScan &, PetscInt *);
static PetscErrorCode LBFGSBGramProducts(Tao, PetscInt *);
static PetscErrorCode LBFGSBGramAdd(Tao, std::vector<PetscReal> &, PetscInt, PetscBool, PetscInt *);

/* The first pass of `cauchy` at (x, g): d, t, iwhere on the device and, summed over the ranks, its counts (ci) and the
   products p = (Y^T d, S^T d) (2 col entries, not scaled by theta). Taken from the end pass of the iteration before
   when it made them (LBFGSBEndPass), else one pass with W^T d in it and one read. */
static PetscErrorCode LBFGSBCauchyInit(Tao tao, Vec XL, Vec XU, lbfgsb::CauchyInitInfo *ci, PetscInt *nbreak_local, std::vector<PetscReal> &p)
{
  TAO_LBFGSB    *lb   = (TAO_LBFGSB *)tao->data;
  MPI_Comm       comm = PetscObjectComm((PetscObject)tao);
  const PetscInt col = lb->mem.col, col2 = 2 * col;
  PetscInt       cnt[4], gcnt[4];
  PetscReal      f1, tmin, tmax;

  PetscFunctionBegin;
  p.assign(col2, 0.0);
  if (lb->cready && lb->cstate && (lb->ccol == col || col == 0)) {
    lb->cready     = PETSC_FALSE;
    lb->chistready = PETSC_TRUE; /* (the end pass made the histogram with them) */
    *ci           = lb->cinfo;
    *nbreak_local = lb->cnbreak;
    for (PetscInt j = 0; j < col2; j++) p[j] = lb->cdots[j];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  lb->cready     = PETSC_FALSE;
  lb->chistready = PETSC_FALSE;
  {
    DeviceVec l, u, x, g, d, t;
    PetscCall(l.Get(XL, Access::Read));
    PetscCall(u.Get(XU, Access::Read));
    PetscCall(x.Get(tao->solution, Access::Read));
    PetscCall(g.Get(tao->gradient, Access::Read));
    PetscCall(d.Get(lb->d, Access::Write));
    PetscCall(t.Get(lb->t, Access::Write));
    if (col > 0) { /* with W^T d in the same pass: one read of the device by the host */
      std::vector<DeviceVec> dv(2 * col);
      std::vector<PetscReal> vals(col2 + 7);
      PetscCall(LBFGSBPairsGet(lb, dv));
      PetscCallCXX(lbfgsb::CauchyInitDots(l.cview(), u.cview(), x.cview(), g.cview(), lb->iwhere, d.view(), t.view(), PETSC_INFINITY, LBFGSBPairs(lb), col, lb->pscratch, lb->pout));
      PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Real>(vals.data(), col2 + 7), Kokkos::subview(lb->pout, std::make_pair((PetscInt)0, col2 + 7))));
      PetscCallCXX(exec().fence());
      PetscCall(LBFGSBPairsRestore(dv));
      for (PetscInt j = 0; j < col2; j++) p[j] = vals[j];
      *ci = lbfgsb::CauchyInitDotsInfo(vals.data() + col2);
    } else PetscCallCXX(*ci = lbfgsb::CauchyInit(l.cview(), u.cview(), x.cview(), g.cview(), lb->iwhere, d.view(), t.view(), PETSC_INFINITY));
  }
  *nbreak_local = ci->nbreak;
  cnt[0]        = ci->nbreak;
  cnt[1]        = ci->nmoving;
  cnt[2] = ci->nfreenb;
  cnt[3] = ci->nfreenb_nonzero;
  PetscCallMPI(MPI_Allreduce(cnt, gcnt, 4, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&ci->f1, &f1, 1, MPIU_REAL, MPIU_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&ci->tmin, &tmin, 1, MPIU_REAL, MPIU_MIN, comm));
  PetscCallMPI(MPI_Allreduce(&ci->tmax, &tmax, 1, MPIU_REAL, MPIU_MAX, comm));
  if (col2) PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, p.data(), (PetscMPIInt)col2, MPIU_SCALAR, MPIU_SUM, comm));
  ci->nbreak          = gcnt[0];
  ci->nmoving         = gcnt[1];
  ci->nfreenb         = gcnt[2];
  ci->nfreenb_nonzero = gcnt[3];
  ci->f1              = f1;
  ci->tmin            = tmin;
  ci->tmax            = tmax;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the free set at the Cauchy point lb->gcp (FreeSetList: iwhere of the passed variables, the changes against gfree in
   lb->chg, the counts on the device, no read) */
static PetscErrorCode LBFGSBCauchyFreeSet(Tao tao)
{
  TAO_LBFGSB *lb = (TAO_LBFGSB *)tao->data;
  DeviceVec   d, t;

  PetscFunctionBegin;
  PetscCall(d.Get(lb->d, Access::Read));
  PetscCall(t.Get(lb->t, Access::Read));
  PetscCallCXX(lbfgsb::FreeSetList(t.cview(), d.cview(), lb->iwhere, lb->gfree, lb->gcp, lb->chg, lb->fscount));
  PetscCall(t.Restore());
  PetscCall(d.Restore());
  lb->fsready  = PETSC_TRUE;
  lb->gcpready = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* lb->z := the Cauchy point that lb->gcp describes (the rare paths that read it as a vector) */
static PetscErrorCode LBFGSBCauchyPointVec(Tao tao, Vec XL, Vec XU)
{
  TAO_LBFGSB *lb = (TAO_LBFGSB *)tao->data;
  DeviceVec   l, u, x, g, t, z;

  PetscFunctionBegin;
  PetscCall(l.Get(XL, Access::Read));
  PetscCall(u.Get(XU, Access::Read));
  PetscCall(x.Get(tao->solution, Access::Read));
  PetscCall(g.Get(tao->gradient, Access::Read));
  PetscCall(t.Get(lb->t, Access::Read));
  PetscCall(z.Get(lb->z, Access::Write));
  PetscCallCXX(lbfgsb::CauchyPointVec(l.cview(), u.cview(), x.cview(), g.cview(), t.cview(), lb->iwhere, lb->gcp, z.view()));
  PetscCall(z.Restore());
  PetscCall(t.Restore());
  PetscCall(g.Restore());
  PetscCall(x.Restore());
  PetscCall(u.Restore());
  PetscCall(l.Restore());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LBFGSBCauchyScanDevice(Tao, Vec, Vec, Vec *, Vec *, PetscReal, PetscReal, PetscInt, PetscInt, bool, CauchyScan &, PetscInt *);

/* The generalised Cauchy point (reference `cauchy`): described by lb->gcp (x^c is not stored: see CauchyPointDesc) with
   its free set (LBFGSBCauchyFreeSet), lb->gcpp = W^T Z d and c = W^T (x^c - x); *info != 0 on a singular bmv. When the
   projected gradient is zero, lb->z = x instead (lb->gcpready false) */
static PetscErrorCode LBFGSBCauchy(Tao tao, Vec XL, Vec XU, PetscReal sbgnrm, std::vector<PetscReal> &c, PetscInt *info)
{
  TAO_LBFGSB              *lb  = (TAO_LBFGSB *)tao->data;
  MPI_Comm                 comm = PetscObjectComm((PetscObject)tao);
  const PetscInt           col = lb->mem.col, col2 = 2 * col;
  lbfgsb::CauchyInitInfo   ci;
  CauchyScan               scan;
  std::vector<PetscScalar> p;
  Vec                      Sc[64], Yc[64];
  PetscReal                tmin, tmax;
  PetscInt                 nbreak_local;
  PetscMPIInt              size;

  PetscFunctionBegin;
  *info         = 0;
  lb->fsready   = PETSC_FALSE;
  lb->gcpready  = PETSC_FALSE;
  lb->gramready = PETSC_FALSE;
  c.assign(col2, 0.0);
  if (sbgnrm <= 0) {
    lb->cready = PETSC_FALSE;
    PetscCall(VecCopy(tao->solution, lb->z));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(TAOLBFGSB_Cauchy, tao, 0, 0, 0));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(LBFGSBCauchyInit(tao, XL, XU, &ci, &nbreak_local, p));
  tmin = ci.tmin;
  tmax = ci.tmax;
  const PetscInt nbreak = ci.nbreak, nmoving = ci.nmoving;
  const bool     bnded  = ci.nfreenb_nonzero == 0;
  PetscInt       N;
  PetscCall(VecGetSize(tao->solution, &N));
  lb->gcp        = lbfgsb::CauchyPointDesc();
  lb->gcp.rstart = lb->rstart;
  if (nmoving == 0) { /* d = 0: x^c = x, W^T Z d = 0 */
    lb->gcpp.assign(col2, 0.0);
    PetscCall(LBFGSBCauchyFreeSet(tao));
    PetscCall(PetscLogEventEnd(TAOLBFGSB_Cauchy, tao, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* p = W^T d with W = [Y, theta S] */
  if (col > 0) {
    LBFGSBChrono(lb, Sc, Yc);
    for (PetscInt j = 0; j < col; j++) p[col + j] *= lb->mem.theta;
  }
  if (lbfgsb::CauchyScanStart(lb->mem, scan, p.data(), ci.f1, PETSC_MACHINE_EPSILON)) {
    *info = 1;
    PetscCall(PetscLogEventEnd(TAOLBFGSB_Cauchy, tao, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (nbreak > 0 && !(scan.dtm < tmin) && lb->scan == TAO_LBFGSB_CAUCHY_SCAN_DEVICE) {
    PetscCall(PetscLogEventBegin(TAOLBFGSB_Breakpoints, tao, 0, 0, 0));
    lb->nbreakscan++;
    PetscCall(LBFGSBCauchyScanDevice(tao, XL, XU, Sc, Yc, tmin, tmax, nbreak, N, bnded, scan, info));
    PetscCall(PetscLogEventEnd(TAOLBFGSB_Breakpoints, tao, 0, 0, 0));
    lb->nbreakpassed += scan.npassed;
  } else if (nbreak > 0 && !(scan.dtm < tmin)) {
    /* the minimiser is beyond the first breakpoint: scan the breakpoints in increasing order, chunk by chunk, on the
       host with the reference recurrences (-tao_lbfgsb_cauchy_scan host) */
    const bool       approx = lb->cauchy == TAO_LBFGSB_CAUCHY_APPROXIMATE;
    const PetscInt   stride = 4 + col2;
    PetscInt         nsorted = nbreak_local, pos = 0, chunk = lb->chunk;
    PetscReal        lo      = -1.0;
    std::vector<PetscReal> host, all;
    std::vector<Breakpoint> bp;
    std::vector<PetscMPIInt> counts(size), displs(size);

    PetscCall(PetscLogEventBegin(TAOLBFGSB_Breakpoints, tao, 0, 0, 0));
    lb->nbreakscan++;
    if (!approx) PetscCall(LBFGSBSortBreakpoints(lb));
    while (!scan.done) {
      PetscReal cand = lbfgsb::kNoBreak, hi;
      PetscInt  nsel;
      if (approx) hi = tmin;
      else {
        if (chunk <= nsorted - pos) { /* pos + chunk - 1 < nsorted, without overflow for a huge chunk */
          PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Real>(&cand, 1), Kokkos::subview(lb->tsort, std::make_pair(pos + chunk - 1, pos + chunk))));
          PetscCallCXX(exec().fence());
        }
        PetscCallMPI(MPI_Allreduce(&cand, &hi, 1, MPIU_REAL, MPIU_MIN, comm));
      }
      PetscCall(LBFGSBChunkRecords(tao, XL, XU, Sc, Yc, col, stride, lo, hi, -1, &nsel));
      host.resize((size_t)nsel * stride);
      if (nsel) PetscCallCXX(Kokkos::deep_copy(HostUView<Real>(host.data(), host.size()), Kokkos::subview(lb->records, std::make_pair((PetscInt)0, nsel * stride))));
      PetscCallCXX(exec().fence());
      pos += nsel;
      lo = hi;
      if (size > 1) {
        PetscMPIInt mycount = (PetscMPIInt)(nsel * stride), total = 0;
        PetscCallMPI(MPI_Allgather(&mycount, 1, MPI_INT, counts.data(), 1, MPI_INT, comm));
        for (PetscMPIInt r = 0; r < size; r++) {
          displs[r] = total;
          total += counts[r];
        }
        all.resize(total);
        PetscCallMPI(MPI_Allgatherv(host.data(), mycount, MPIU_REAL, all.data(), counts.data(), displs.data(), MPIU_REAL, comm));
      } else all.swap(host);
      const PetscInt nb = (PetscInt)(all.size() / stride);
      bp.resize(nb);
      for (PetscInt k = 0; k < nb; k++) {
        const PetscReal *rec = all.data() + (size_t)k * stride;
        bp[k]                = Breakpoint{rec[0], (PetscInt)rec[1], rec[2], rec[3], rec + 4};
      }
      std::sort(bp.begin(), bp.end(), [](const Breakpoint &a, const Breakpoint &b) { return a.t < b.t || (a.t == b.t && a.gid < b.gid); });
      if (lbfgsb::CauchyScanChunk(lb->mem, scan, bp.data(), nb, nbreak, N, bnded)) {
        *info = 1;
        break;
      }
      if (approx && !scan.done) { /* the paper's Cauchy point: stop at the first breakpoint(s) */
        scan.dtm = 0;
        lb->ntruncated++;
        break;
      }
      chunk = chunk <= PETSC_MAX_INT / LBFGSBChunkGrowth ? LBFGSBChunkGrowth * chunk : PETSC_MAX_INT;
    }
    PetscCall(PetscLogEventEnd(TAOLBFGSB_Breakpoints, tao, 0, 0, 0));
    lb->nbreakpassed += scan.npassed;
  }
  if (!*info) {
    lbfgsb::CauchyScanFinish(scan);
    lb->gcp.tsum    = scan.tsum;
    lb->gcp.tstar   = scan.tstar;
    lb->gcp.gidstar = scan.gidstar;
    lb->gcp.passed  = scan.gidstar >= 0;
    lb->gcpp        = scan.p;
    /* the free-set count and the list of the variables whose free/active state changed since the Gram blocks (made
       with the last round of the breakpoint scan when it ran) */
    if (lb->gramready) lb->gcpready = PETSC_TRUE;
    else PetscCall(LBFGSBCauchyFreeSet(tao));
    c = scan.c;
  }
  PetscCall(PetscLogEventEnd(TAOLBFGSB_Cauchy, tao, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The chunks of the device Cauchy scan: the breakpoints (lo, hi] with about `chunk` of them (globally) past the ones
   already scanned, cut from histograms of all the breakpoints (no sort of the n breakpoint times): the kBreakBuckets
   buckets of fixed edges (4 per octave, BreakBucket) that the end pass of the iteration before counted with the
   breakpoints (lb->chist; else one histogram pass and read here), and, where one bucket would give a chunk more than 4x
   too large, 64 linear buckets inside it (one pass and one read). The chunk sizes change the work per round, not the
   Cauchy point. */
struct LBFGSBChunker {
  static constexpr PetscInt nb = 64;     /* buckets of a refinement */
  std::vector<PetscReal>    e0, e1;      /* edges of the histograms (kBreakBuckets + 1, nb + 1) */
  std::vector<PetscInt>     c0, c1;      /* cumulative counts: c[k] = the breakpoints <= e[k + 1] (level 1: past e1[0] too) */
  PetscInt                  base1 = 0;   /* breakpoints <= e1[0] */
  bool                      lvl1  = false;
  PetscInt                  done  = 0;   /* breakpoints <= the last hi */
};

/* cum[k] = the breakpoints (of all ranks) <= edges[k + 1], k < edges.size() - 1 (one histogram pass and one read) */
static PetscErrorCode LBFGSBHistogram(Tao tao, const std::vector<PetscReal> &edges, std::vector<PetscInt> &cum)
{
  TAO_LBFGSB    *lb = (TAO_LBFGSB *)tao->data;
  const PetscInt nb = (PetscInt)edges.size() - 1;
  DeviceVec      t;

  PetscFunctionBegin;
  if ((PetscInt)lb->hedges.extent(0) < nb + 1) {
    PetscCallCXX(lb->hedges = View<Real>(std::string("lbfgsb::hedges"), nb + 1));
    PetscCallCXX(lb->hcounts = View<Int>(std::string("lbfgsb::hcounts"), nb));
  }
  cum.resize(nb);
  PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(lb->hedges, std::make_pair((PetscInt)0, nb + 1)), HostUView<const Real>(edges.data(), nb + 1)));
  PetscCall(t.Get(lb->t, Access::Read));
  PetscCallCXX(lbfgsb::BreakpointHistogram(t.cview(), lb->hedges, nb, lb->hcounts));
  PetscCall(t.Restore());
  PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Int>(cum.data(), nb), Kokkos::subview(lb->hcounts, std::make_pair((PetscInt)0, nb))));
  PetscCallCXX(exec().fence());
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, cum.data(), (PetscMPIInt)nb, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)tao)));
  for (PetscInt k = 1; k < nb; k++) cum[k] += cum[k - 1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LBFGSBChunkerStart(Tao tao, LBFGSBChunker &ch)
{
  TAO_LBFGSB    *lb = (TAO_LBFGSB *)tao->data;
  const PetscInt nb = lbfgsb::kBreakBuckets;

  PetscFunctionBegin;
  ch.e0.resize(nb + 1);
  for (PetscInt k = 0; k <= nb; k++) ch.e0[k] = lbfgsb::BreakBucketEdge(k);
  if (lb->chistready && (PetscInt)lb->chist.size() == nb) {
    ch.c0.resize(nb);
    for (PetscInt k = 0; k < nb; k++) ch.c0[k] = (k ? ch.c0[k - 1] : 0) + lb->chist[k];
  } else PetscCall(LBFGSBHistogram(tao, ch.e0, ch.c0));
  lb->chistready = PETSC_FALSE;
  ch.lvl1        = false;
  ch.done        = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the end hi of the next chunk of about `chunk` breakpoints (kNoBreak: all that are left) */
static PetscErrorCode LBFGSBChunkerNext(Tao tao, LBFGSBChunker &ch, PetscInt chunk, PetscReal *hi)
{
  const PetscInt nb     = LBFGSBChunker::nb, nb0 = (PetscInt)ch.c0.size();
  const PetscInt target = chunk > PETSC_MAX_INT - ch.done ? PETSC_MAX_INT : ch.done + chunk;

  PetscFunctionBegin;
  while (PETSC_TRUE) {
    if (ch.lvl1 && target <= ch.base1 + ch.c1[nb - 1]) {
      PetscInt k = 0;
      while (ch.base1 + ch.c1[k] < target) k++;
      *hi     = ch.e1[k + 1];
      ch.done = ch.base1 + ch.c1[k];
      break;
    }
    ch.lvl1 = false;
    if (target > ch.c0[nb0 - 1]) { /* the rest */
      *hi     = lbfgsb::kNoBreak;
      ch.done = ch.c0[nb0 - 1];
      break;
    }
    PetscInt k = 0;
    while (ch.c0[k] < target) k++;
    const PetscInt before = k ? ch.c0[k - 1] : 0;
    if ((double)(ch.c0[k] - target) > 4.0 * (double)chunk && ch.e0[k] < ch.e0[k + 1] && k > 0) { /* refine the bucket (e0[k], e0[k + 1]] */
      ch.e1.resize(nb + 1);
      for (PetscInt j = 0; j <= nb; j++) ch.e1[j] = ch.e0[k] + (ch.e0[k + 1] - ch.e0[k]) * (PetscReal)j / (PetscReal)nb;
      ch.e1[nb] = ch.e0[k + 1];
      PetscCall(LBFGSBHistogram(tao, ch.e1, ch.c1));
      ch.base1 = before;
      ch.lvl1  = true;
      if (ch.base1 + ch.c1[nb - 1] >= target) continue;
      ch.lvl1 = false; /* (rounding of the edges) */
    }
    *hi     = ch.e0[k + 1];
    ch.done = ch.c0[k];
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Exact Cauchy point past the first breakpoint, on the device (the generalised Cauchy point of Byrd, Lu, Nocedal and
   Zhu 1995 with sorting and prefix sums over the breakpoints in the spirit of Fei et al. 2014): the breakpoints are
   taken in increasing order chunk by chunk (gathered across ranks), each chunk is sorted on the device by (t, global
   index), the rank-one updates of p = W^T d, of W^T (x(t) - x) and of ||d||^2 are prefix-summed, every segment's f' and
   f'' are evaluated independently in O(m^2) with the dense middle matrix M, and the first segment that holds the
   minimiser is found by a min-index reduction. Host work per chunk: O(m^2) scalars (O(m^3) once to form M). On
   return scan holds tsum = t_prev, dtm, p and c = W^T (x(t_prev) - x) for CauchyScanFinish(). */
static PetscErrorCode LBFGSBCauchyScanDevice(Tao tao, Vec XL, Vec XU, Vec *Sc, Vec *Yc, PetscReal tmin, PetscReal tmax, PetscInt nbreak, PetscInt N, bool bnded, CauchyScan &scan, PetscInt *info)
{
  TAO_LBFGSB              *lb   = (TAO_LBFGSB *)tao->data;
  MPI_Comm                 comm = PetscObjectComm((PetscObject)tao);
  const PetscInt           col = lb->mem.col, col2 = 2 * col, stride = 4 + col2, ncol = 2 * col2 + 1;
  const bool               approx = lb->cauchy == TAO_LBFGSB_CAUCHY_APPROXIMATE;
  PetscInt                 chunk = lb->chunk, passed = 0;
  LBFGSBChunker            chunker;
  PetscReal                lo = -1.0;
  PetscMPIInt              size;
  std::vector<PetscReal>   host, all, Mh((size_t)col2 * col2 + 1), e(col2 + 1), out;
  std::vector<PetscMPIInt> counts, displs;
  lbfgsb::SegmentConsts    sc;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  counts.resize(size);
  displs.resize(size);
  /* the dense middle matrix M = [[-D, L^T], [L, theta S^T S]]^-1 by bmv on the unit vectors (O(m^3), host) */
  for (PetscInt i = 0; i < col2; i++) {
    std::fill(e.begin(), e.end(), 0.0);
    e[i] = 1.0;
    if (lbfgsb::Bmv(lb->mem, e.data(), Mh.data() + (size_t)i * col2)) {
      *info = 1;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  /* M, p0 and the zero carry of the prefix sums in one buffer, one copy to the device */
  {
    const PetscInt         nm = col2 * col2 + 1, np = col2 + 1, nin = nm + np + ncol;
    std::vector<PetscReal> in(nin, 0.0);
    std::copy(Mh.begin(), Mh.begin() + col2 * col2, in.begin());
    std::copy(scan.p.begin(), scan.p.begin() + col2, in.begin() + nm);
    if ((PetscInt)lb->scanin.extent(0) < nin) PetscCallCXX(lb->scanin = View<Real>(std::string("lbfgsb::scanin"), nin));
    PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(lb->scanin, std::make_pair((PetscInt)0, nin)), HostUView<const Real>(in.data(), nin)));
    lb->Mdev  = Kokkos::subview(lb->scanin, std::make_pair((PetscInt)0, nm));
    lb->p0dev = Kokkos::subview(lb->scanin, std::make_pair(nm, nm + np));
    lb->carry = Kokkos::subview(lb->scanin, std::make_pair(nm + np, nin));
  }
  /* the free set at the point each round ends at and the Gram corrections for its changes are computed before the
     round's read, from the segment state on the device (FreeSetList, MaskedGram), and come back with it: the segment
     state (6 + ncol values), the selection's count, then the nprod Gram corrections and the two counts */
  const bool     fuse = lb->gram == TAO_LBFGSB_GRAM_INCREMENTAL;
  const PetscInt nseg = 7 + ncol;
  PetscInt       nprod = 0;
  if (fuse) PetscCall(LBFGSBGramProducts(tao, &nprod));
  const PetscInt nread = nseg + (fuse ? nprod + 2 : 0);
  out.resize(nread);
  if ((PetscInt)lb->segout.extent(0) < nread) PetscCallCXX(lb->segout = View<Real>(std::string("lbfgsb::segout"), nread));
  sc.col2   = col2;
  sc.theta  = lb->mem.theta;
  sc.S0     = -scan.f1;
  sc.f2org  = scan.f2_org;
  sc.epsmch = scan.epsmch;
  if (!approx) PetscCall(LBFGSBChunkerStart(tao, chunker));
  (void)tmin;
  (void)tmax;
  while (PETSC_TRUE) {
    PetscReal      hi = lbfgsb::kNoBreak;
    PetscInt       nsel, cnt, expect = -1;
    const PetscInt before = chunker.done;
    const PetscReal lo0    = lo;
    View<Real>     R;
    if (approx) hi = tmin;
    else PetscCall(LBFGSBChunkerNext(tao, chunker, chunk, &hi));
    if (size == 1 && !approx) expect = chunker.done - before; /* one rank: the chunk's size from the histograms */
    PetscCall(LBFGSBChunkRecords(tao, XL, XU, Sc, Yc, col, stride, lo, hi, expect, &nsel));
    lo = hi;
    if (size > 1) { /* every rank gets the chunk's records in global index order and runs the same scan */
      PetscMPIInt mycount = (PetscMPIInt)(nsel * stride), total = 0;
      host.resize((size_t)nsel * stride);
      if (nsel) PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Real>(host.data(), host.size()), Kokkos::subview(lb->records, std::make_pair((PetscInt)0, nsel * stride))));
      PetscCallCXX(exec().fence());
      PetscCallMPI(MPI_Allgather(&mycount, 1, MPI_INT, counts.data(), 1, MPI_INT, comm));
      for (PetscMPIInt r = 0; r < size; r++) {
        displs[r] = total;
        total += counts[r];
      }
      all.resize(total);
      PetscCallMPI(MPI_Allgatherv(host.data(), mycount, MPIU_REAL, all.data(), counts.data(), displs.data(), MPIU_REAL, comm));
      cnt = total / stride;
      if ((PetscInt)lb->recall.extent(0) < total) PetscCallCXX(lb->recall = View<Real>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lbfgsb::recall")), total));
      if (total) PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(lb->recall, std::make_pair((PetscInt)0, (PetscInt)total)), HostUView<Real>(all.data(), total)));
      R = lb->recall;
    } else {
      cnt = nsel;
      R   = lb->records;
    }
    if ((PetscInt)lb->perm.extent(0) < cnt) {
      PetscCallCXX(lb->perm = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lbfgsb::perm")), cnt));
      PetscCallCXX(lb->tkeys = View<Real>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lbfgsb::tkeys")), cnt));
      PetscCallCXX(lb->keys = Kokkos::View<int64_t *, MemSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lbfgsb::keys")), cnt));
    }
    if ((PetscInt)lb->pre.extent(0) < cnt + 1 || (PetscInt)lb->pre.extent(1) < ncol) PetscCallCXX(lb->pre = Kokkos::View<Real **, Kokkos::LayoutLeft, MemSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lbfgsb::prefix")), cnt + 1, ncol));
    PetscInt kstop;
    PetscCallCXX(lbfgsb::BreakpointSort(R, cnt, stride, lb->tkeys, lb->keys, lb->perm));
    PetscCallCXX(lbfgsb::BreakpointPrefix(R, lb->perm, cnt, stride, col2, lb->carry, lb->pre));
    /* the first segment holding the minimiser and its state, read by the host once */
    PetscCallCXX(lbfgsb::BreakpointStopSegment(R, lb->perm, cnt, stride, lb->pre, lb->p0dev, lb->Mdev, sc, lb->segout, lb->carry, expect >= 0 ? lb->selcount : View<Int>()));
    if (fuse) {
      /* the free set at the point the round ends at, x^c itself when the round finds the minimiser: the variables
         passed so far go to their bounds (monotone, so that a later round only adds changes), with the corrections of
         the Gram blocks for the changed ones */
      std::vector<DeviceVec> dv(2 * col);
      DeviceVec              d, t;
      PetscCall(d.Get(lb->d, Access::Read));
      PetscCall(t.Get(lb->t, Access::Read));
      PetscCallCXX(lbfgsb::FreeSetList(t.cview(), d.cview(), lb->iwhere, lb->gfree, lb->gcp, lb->chg, lb->fscount, lb->segout));
      PetscCall(t.Restore());
      PetscCall(d.Restore());
      PetscCall(LBFGSBPairsGet(lb, dv));
      PetscCallCXX(lbfgsb::MaskedGram(LBFGSBPairs(lb), lb->nlocal, lb->chg, lb->iwhere, Kokkos::subview(lb->gprods, std::make_pair((PetscInt)0, nprod)), lb->gpartial, Kokkos::subview(lb->segout, std::make_pair(nseg, nread)), lb->gfree, lb->fscount));
      PetscCall(LBFGSBPairsRestore(dv));
    }
    /* one read: the segment state, the selection's own count and the free set with the Gram corrections */
    PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Real>(out.data(), nread), Kokkos::subview(lb->segout, std::make_pair((PetscInt)0, nread))));
    PetscCallCXX(exec().fence());
    if (expect >= 0) PetscCheck((PetscInt)out[6 + ncol] == expect, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The breakpoint histogram counted %" PetscInt_FMT " breakpoints in (%g, %g] but the selection found %" PetscInt_FMT, expect, (double)lo0, (double)hi, (PetscInt)out[6 + ncol]);
    if (fuse) {
      std::vector<PetscReal> vals(out.begin() + nseg, out.begin() + nread);
      PetscCall(LBFGSBGramAdd(tao, vals, nprod, PETSC_FALSE, &lb->gnfree));
      lb->gramready = PETSC_TRUE;
      lb->fsready   = PETSC_TRUE;
    }
    kstop = (PetscInt)out[5 + ncol];
    passed += kstop;
    const bool found = kstop < cnt, last = !found && passed == nbreak;
    if (found || last || approx) {
      PetscReal f1 = out[0], f2 = out[1], tprev = out[2], dtm;
      if (found) dtm = -f1 / f2;
      else if (last) dtm = bnded ? 0.0 : -f1 / f2; /* every breakpoint passed: the reference's final segment */
      else {                                      /* the paper's Cauchy point: stop at the first breakpoint(s) */
        dtm = 0.0;
        lb->ntruncated++;
      }
      scan.f1      = f1;
      scan.f2      = f2;
      scan.dtm     = dtm;
      scan.tsum    = tprev;
      scan.tj      = tprev;
      scan.tstar   = out[3];
      scan.gidstar = (PetscInt)out[4];
      scan.npassed = passed;
      for (PetscInt i = 0; i < col2; i++) {
        scan.p[i] = scan.p[i] - out[5 + i];
        scan.c[i] = out[5 + col2 + i] + tprev * scan.p[i];
      }
      scan.done = true;
      break;
    }
    sc.tcarry   = out[2];
    sc.tlastc   = out[3];
    sc.gidlastc = out[4];
    sc.origin   = false;
    chunk = chunk <= PETSC_MAX_INT / LBFGSBChunkGrowth ? LBFGSBChunkGrowth * chunk : PETSC_MAX_INT;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the products of the masked Gram blocks (*nprod of them) in lb->gprods, listed again only when the memory size changes */
static PetscErrorCode LBFGSBGramProducts(Tao tao, PetscInt *nprod)
{
  TAO_LBFGSB              *lb  = (TAO_LBFGSB *)tao->data;
  const PetscInt           col = lb->mem.col;
  std::vector<GramProduct> prods;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < col; i++) {
    for (PetscInt j = 0; j <= i; j++) prods.push_back(GramProduct{(int)i, (int)j, 1});                 /* yzzy(i, j) */
    for (PetscInt j = 0; j <= i; j++) prods.push_back(GramProduct{(int)(col + i), (int)(col + j), 0}); /* saas(i, j) */
    for (PetscInt j = 0; j < i; j++) prods.push_back(GramProduct{(int)(col + i), (int)j, 0});          /* saay(i, j) */
    for (PetscInt j = 0; j < col; j++) prods.push_back(GramProduct{(int)(col + i), (int)j, 1});        /* szzy(i, j) */
    for (PetscInt j = 0; j <= i; j++) prods.push_back(GramProduct{(int)(col + i), (int)(col + j), 1}); /* szzs(i, j) */
  }
  *nprod = (PetscInt)prods.size();
  if (*nprod && (PetscInt)lb->gprods.extent(0) < *nprod) {
    const PetscInt lmax = PetscMax(16, PetscMin(1024, ((PetscInt)1 << 21) / *nprod));
    PetscCallCXX(lb->gprods = Kokkos::View<GramProduct *, MemSpace>(std::string("lbfgsb::gprods"), *nprod));
    PetscCallCXX(lb->gpartial = Kokkos::View<Real **, Kokkos::LayoutRight, MemSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lbfgsb::gpartial")), lmax, *nprod));
    PetscCallCXX(lb->gout = View<Real>(std::string("lbfgsb::gout"), *nprod + 2));
    lb->gprods_col = -1;
  }
  if (*nprod && lb->gprods_col != col) {
    PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(lb->gprods, std::make_pair((PetscInt)0, *nprod)), Kokkos::View<const GramProduct *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(prods.data(), *nprod)));
    lb->gprods_col = col;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the blocks and the counts of this rank, vals = (the nprod products, free variables, changed rows), summed over the
   ranks in one reduction and set (full) or added (incremental corrections) into the host Gram blocks; *nfree: the free
   variables of all ranks */
static PetscErrorCode LBFGSBGramAdd(Tao tao, std::vector<PetscReal> &vals, PetscInt nprod, PetscBool full, PetscInt *nfree)
{
  TAO_LBFGSB    *lb   = (TAO_LBFGSB *)tao->data;
  const PetscInt col = lb->mem.col, m = lb->m;
  const bool     gram = col > 0; /* (on every rank alike: one reduction of the same length) */

  PetscFunctionBegin;
  PetscCheck((PetscInt)vals.size() == nprod + 2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Gram values %d, expected %d", (int)vals.size(), (int)(nprod + 2));
  if (full) vals[nprod + 1] = 0.0;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, vals.data(), (PetscMPIInt)vals.size(), MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)tao)));
  *nfree = (PetscInt)vals[nprod];
  if (gram) lb->ngramchanged += (PetscInt)vals[nprod + 1]; /* the rows the blocks were corrected for */
  if (gram) {
    const PetscReal keep = full ? 0.0 : 1.0; /* full: set; incremental: add the corrections */
    PetscInt        q    = 0;
    for (PetscInt i = 0; i < col; i++) {
      for (PetscInt j = 0; j <= i; j++, q++) lb->gyy[i + j * m] = lb->gyy[j + i * m] = keep * lb->gyy[i + j * m] + vals[q];
      for (PetscInt j = 0; j <= i; j++, q++) lb->gss[i + j * m] = lb->gss[j + i * m] = keep * lb->gss[i + j * m] + vals[q];
      for (PetscInt j = 0; j < i; j++, q++) lb->gsay[i + j * m] = keep * lb->gsay[i + j * m] + vals[q];
      for (PetscInt j = 0; j < col; j++, q++) lb->gszy[i + j * m] = keep * lb->gszy[i + j * m] + vals[q];
      for (PetscInt j = 0; j <= i; j++, q++) lb->gszs[i + j * m] = lb->gszs[j + i * m] = keep * lb->gszs[i + j * m] + vals[q];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The free set at the Cauchy point, summed over the ranks (*nfree), and the Gram blocks of `formk` for it (see
   LBFGSBSubspace). Incremental (default): the variables whose state differs from gfree (listed by FreeSetList, or by
   FreeSetChanges when the Cauchy point did not list them) have their contributions added (entering the free set) or
   removed (leaving it), O(m^2) work per changed variable, with the number of rows taken on the device, and the blocks
   and both counts come back in one read; after the exact breakpoint scan this was done with the scan's last read
   (LBFGSBCauchyScanDevice) and nothing is left to do; nothing runs when the problem has no bounds. Full: every block
   from scratch. skipgcp: the Cauchy point is x itself (no bounds), every variable free. */
static PetscErrorCode LBFGSBFreeSetGram(Tao tao, PetscBool cnstnd, PetscBool skipgcp, PetscInt *nfree)
{
  TAO_LBFGSB              *lb   = (TAO_LBFGSB *)tao->data;
  MPI_Comm                 comm = PetscObjectComm((PetscObject)tao);
  const PetscInt           col = lb->mem.col, full = lb->gram == TAO_LBFGSB_GRAM_FULL;
  PetscInt                 nloc = lb->nlocal, nprod = 0;
  PetscReal                cnt[2] = {0, 0}; /* this rank's free variables and free-set changes */
  bool                     gram   = false, counted = false;
  std::vector<PetscReal>   vals;
  std::vector<DeviceVec>   dv(2 * lb->mem.col);

  PetscFunctionBegin;
  if (lb->gramready) { /* corrected with the breakpoint scan's last read */
    lb->gramready = PETSC_FALSE;
    *nfree        = lb->gnfree;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!full && !cnstnd) { /* every variable free, as gfree */
    if (skipgcp) cnt[0] = (PetscReal)lb->nlocal;
    else if (lb->fsready) {
      Int h[2];
      PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Int>(h, 2), Kokkos::subview(lb->fscount, std::make_pair((PetscInt)0, (PetscInt)2))));
      PetscCallCXX(exec().fence());
      cnt[0] = (PetscReal)h[0];
    } else PetscCallCXX(cnt[0] = (PetscReal)lbfgsb::CountFree(lb->iwhere));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, cnt, 1, MPIU_REAL, MPIU_SUM, comm));
    *nfree = (PetscInt)cnt[0];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(LBFGSBGramProducts(tao, &nprod));
  auto prodv = Kokkos::subview(lb->gprods, std::make_pair((PetscInt)0, nprod));
  if (!full) {
    if (lb->fsready) counted = true; /* listed with the Cauchy point; MaskedGram updates gfree */
    else {
      PetscCallCXX(nloc = lbfgsb::FreeSetChanges(lb->iwhere, lb->gfree, lb->chg));
      PetscCallCXX(cnt[0] = (PetscReal)lbfgsb::CountFree(lb->iwhere));
      cnt[1] = (PetscReal)nloc;
    }
  } else {
    PetscCallCXX((void)lbfgsb::FreeSetChanges(lb->iwhere, lb->gfree, lb->chg)); /* gfree := the free set of the blocks */
    PetscCallCXX(cnt[0] = (PetscReal)lbfgsb::CountFree(lb->iwhere));
  }
  gram = col > 0;
  const PetscInt nout = nprod + (counted ? 2 : 0);
  if (gram) {
    PetscCall(LBFGSBPairsGet(lb, dv));
    PetscCallCXX(lbfgsb::MaskedGram(LBFGSBPairs(lb), full ? lb->nlocal : nloc, full ? View<Int>() : lb->chg, lb->iwhere, prodv, lb->gpartial, lb->gout, (!full && counted) ? lb->gfree : View<Int>(), counted ? lb->fscount : View<Int>()));
    vals.resize(nout);
    PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Real>(vals.data(), nout), Kokkos::subview(lb->gout, std::make_pair((PetscInt)0, nout))));
    PetscCallCXX(exec().fence());
    PetscCall(LBFGSBPairsRestore(dv));
  } else if (counted) {
    Int h[2];
    PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Int>(h, 2), Kokkos::subview(lb->fscount, std::make_pair((PetscInt)0, (PetscInt)2))));
    PetscCallCXX(exec().fence());
    vals.assign(2, 0.0);
    vals[0] = (PetscReal)h[0];
    vals[1] = (PetscReal)h[1];
  }
  if (counted) {
    cnt[0] = vals[gram ? nprod : 0];
    cnt[1] = vals[gram ? nprod + 1 : 1];
  }
  /* the blocks and the counts in one reduction */
  vals.resize(gram ? nprod + 2 : 2);
  vals[gram ? nprod : 0]     = cnt[0];
  vals[gram ? nprod + 1 : 1] = cnt[1];
  PetscCall(LBFGSBGramAdd(tao, vals, gram ? nprod : 0, full ? PETSC_TRUE : PETSC_FALSE, nfree));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Subspace minimisation (reference `formk`, `cmprlb`, `subsm`, v3.0 projection with backtracking): z := x-bar.
   zisx: the Cauchy point is x itself (no bounds). The Gram blocks are those of the free set (LBFGSBFreeSetGram).

   cmprlb without a pass over the variables: on the free set Z of the Cauchy point x^c = x + tsum d (d = -g there),
   r = -Z (g + theta (x^c - x) - W M c) = Z (-(1 - theta tsum) g + W a), a = M c, so that
   W^T r = (1 - theta tsum) W^T Z d + (W^T Z W) a, with W^T Z d the scan's p (lb->gcpp) and W^T Z W from the Gram
   blocks; subsm's direction (1/theta) Z (r + W K^-1 W^T r) then needs g, the pairs and 2 col coefficients only.
   Without a described Cauchy point (zero projected gradient) r and W^T r are formed as vectors (LBFGSBCombine).

   The last combination of subsm, the projection, the descent test of v3.0 and the start of the line search (d = z - x,
   x_old, g_old, d^T d, g^T d and, with maxstep, the largest feasible step) are one pass, with x^c formed on the fly:
   with the projected step accepted, ls = (d^T d, g^T d, stpmax) summed over the ranks and *lsready; after a backtrack
   the line search starts from z as usual. *info != 0 when a factorisation fails. */
static PetscErrorCode LBFGSBSubspace(Tao tao, Vec XL, Vec XU, PetscBool cnstnd, PetscBool zisx, PetscBool maxstep, const std::vector<PetscReal> &c, PetscReal ls[3], PetscBool *lsready, PetscInt *info)
{
  TAO_LBFGSB              *lb  = (TAO_LBFGSB *)tao->data;
  MPI_Comm                 comm = PetscObjectComm((PetscObject)tao);
  const PetscInt           col = lb->mem.col, m = lb->m;
  const PetscReal          theta = lb->mem.theta;
  std::vector<PetscScalar> yzzy(col * col), saas(col * col), szzy(col * col), saay(col * col), wv(2 * col), a(2 * col, 0.0), coef(2 * col);
  PetscInt                 giword;
  lbfgsb::StepInfo         si;
  const bool               desc = zisx || lb->gcpready; /* the Cauchy point described (else lb->z holds it) */
  lbfgsb::CauchyPointDesc  cp;
  PetscReal                c0;

  PetscFunctionBegin;
  *info    = 0;
  *lsready = PETSC_FALSE;
  PetscCall(PetscLogEventBegin(TAOLBFGSB_Subspace, tao, 0, 0, 0));
  /* formk from the masked Gram blocks Y'ZZ'Y, S'AA'S, S'AA'Y (strictly lower) and S'ZZ'Y (upper) */
  for (PetscInt j = 0; j < col; j++)
    for (PetscInt i = 0; i < col; i++) {
      yzzy[i + j * col] = lb->gyy[i + j * m];
      saas[i + j * col] = lb->gss[i + j * m];
      szzy[i + j * col] = i <= j ? lb->gszy[i + j * m] : 0.0;
      saay[i + j * col] = i > j ? lb->gsay[i + j * m] : 0.0;
    }
  if (lbfgsb::Formk(lb->mem, yzzy.data(), saas.data(), szzy.data(), saay.data())) {
    *info = 1;
    PetscCall(PetscLogEventEnd(TAOLBFGSB_Subspace, tao, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* cmprlb: W^T r */
  if (!cnstnd) { /* r = -g, W^T r = W^T d of the Cauchy point's first pass (d = -g), made by the last end pass */
    if (lb->cready && lb->ccol == col) {
      for (PetscInt j = 0; j < col; j++) {
        wv[j]       = lb->cdots[j];
        wv[col + j] = theta * lb->cdots[col + j];
      }
    } else {
      PetscCall(LBFGSBWtv(tao, tao->gradient, wv.data()));
      for (PetscInt j = 0; j < 2 * col; j++) wv[j] = -wv[j];
    }
    lb->cready = PETSC_FALSE;
    c0         = -1.0;
  } else {
    if (lbfgsb::Bmv(lb->mem, c.data(), a.data())) {
      *info = 1;
      PetscCall(PetscLogEventEnd(TAOLBFGSB_Subspace, tao, 0, 0, 0));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    for (PetscInt j = 0; j < col; j++) a[col + j] *= theta;
    if (desc) {
      const PetscReal k = 1.0 - theta * lb->gcp.tsum;
      for (PetscInt i = 0; i < col; i++) {
        PetscReal vy = k * lb->gcpp[i], vs = 0;
        for (PetscInt j = 0; j < col; j++) {
          vy += lb->gyy[i + j * m] * a[j] + lb->gszy[j + i * m] * a[col + j]; /* (Y'ZY) a_y + (Y'ZS) a_s */
          vs += lb->gszy[i + j * m] * a[j] + lb->gszs[i + j * m] * a[col + j]; /* (S'ZY) a_y + (S'ZS) a_s */
        }
        wv[i]       = vy;
        wv[col + i] = k * lb->gcpp[col + i] + theta * vs;
      }
      c0 = -k;
    } else {
      PetscCall(LBFGSBCombine(lb, lb->r, 1.0, PETSC_TRUE, -1.0, tao->gradient, -theta, lb->z, theta, tao->solution, a.data()));
      PetscCall(LBFGSBWtv(tao, lb->r, wv.data()));
      c0 = 1.0;
    }
  }
  /* subsm: d = (1/theta) r + (1/theta^2) Z^T W K^-1 W^T Z r, then (v3.0) the projected step P(x^c + d), kept when it
     is a descent direction from x; in the same pass the start of the line search from it */
  if (lbfgsb::SubsmSolve(lb->mem, wv.data())) {
    *info = 1;
    PetscCall(PetscLogEventEnd(TAOLBFGSB_Subspace, tao, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt j = 0; j < col; j++) wv[j] /= theta;
  for (PetscInt j = 0; j < 2 * col; j++) coef[j] = desc ? a[j] + wv[j] : wv[j]; /* direction = (1/theta) Z (c0 u0 + W coef) */
  if (desc && !zisx) cp = lb->gcp;
  {
    std::vector<DeviceVec> dv(2 * col);
    DeviceVec              l, u, z, x, g, r, t, w, d, xo, go;
    PetscCall(LBFGSBPairsGet(lb, dv));
    if (col) PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(lb->pcoef, std::make_pair((PetscInt)0, 2 * col)), HostUView<const Real>(coef.data(), 2 * col)));
    PetscCall(l.Get(XL, Access::Read));
    PetscCall(u.Get(XU, Access::Read));
    PetscCall(x.Get(tao->solution, Access::Read));
    PetscCall(g.Get(tao->gradient, Access::Read));
    PetscCall(w.Get(lb->work, Access::Write));
    PetscCall(d.Get(lb->d, Access::Write));
    PetscCall(xo.Get(lb->xold, Access::Write));
    PetscCall(go.Get(lb->gold, Access::Write));
    if (desc) {
      /* work := P(x^c + direction), x^c on the fly; t is read only when a breakpoint was passed */
      if (cp.passed) PetscCall(t.Get(lb->t, Access::Read));
      PetscCallCXX(si = lbfgsb::SubspaceStepStartGcp(l.cview(), u.cview(), lb->iwhere, t.cview(), cp, x.cview(), g.cview(), 1.0 / theta, c0, LBFGSBPairs(lb), col, lb->pcoef, w.view(), d.view(), xo.view(), go.view(), PETSC_INFINITY, maxstep ? true : false, 1e10));
      if (cp.passed) PetscCall(t.Restore());
    } else {
      /* r := the subspace direction (from r), work := P(z + r) */
      PetscCall(z.Get(lb->z, Access::Read));
      PetscCall(r.Get(lb->r, Access::ReadWrite));
      PetscCallCXX(si = lbfgsb::SubspaceStepStart(l.cview(), u.cview(), lb->iwhere, z.cview(), x.cview(), g.cview(), r.view(), 1.0 / theta, c0, r.cview(), LBFGSBPairs(lb), col, lb->pcoef, w.view(), d.view(), xo.view(), go.view(), PETSC_INFINITY, maxstep ? true : false, 1e10));
      PetscCall(r.Restore());
      PetscCall(z.Restore());
    }
    PetscCall(go.Restore());
    PetscCall(xo.Restore());
    PetscCall(d.Restore());
    PetscCall(w.Restore());
    PetscCall(g.Restore());
    PetscCall(x.Restore());
    PetscCall(u.Restore());
    PetscCall(l.Restore());
    PetscCall(LBFGSBPairsRestore(dv));
  }
  PetscCallMPI(MPI_Allreduce(&si.iword, &giword, 1, MPIU_INT, MPI_SUM, comm));
  {
    PetscReal loc[2] = {si.dtd, si.gtd}, glob[2];
    PetscCallMPI(MPI_Allreduce(loc, glob, 2, MPIU_REAL, MPIU_SUM, comm));
    PetscCallMPI(MPI_Allreduce(&si.stpmax, &ls[2], 1, MPIU_REAL, MPIU_MIN, comm));
    ls[0] = glob[0];
    ls[1] = glob[1];
  }
  /* v3.0: keep the projected step when it is a descent direction from x, (P(x^c + d) - x)^T g <= 0 (the g^T d of the
     line search); z and work trade places instead of a copy */
  if (!giword || !(ls[1] > 0)) {
    Vec tmp  = lb->z;
    lb->z    = lb->work;
    lb->work = tmp;
    lb->nprojected++;
    *lsready = PETSC_TRUE;
  } else {
    PetscReal alpha, galpha;
    PetscInt  blk = -1, gblk, mygid;
    DeviceVec l, u, z, d, w;
    Vec       zv = lb->z;
    lb->nbacktrack++;
    if (desc) { /* the Cauchy point and the direction as vectors: z and r */
      if (zisx) zv = tao->solution;
      else PetscCall(LBFGSBCauchyPointVec(tao, XL, XU));
      PetscCall(LBFGSBCombine(lb, lb->r, 1.0 / theta, PETSC_TRUE, c0, tao->gradient, 0.0, NULL, 0.0, NULL, coef.data()));
    }
    PetscCall(l.Get(XL, Access::Read));
    PetscCall(u.Get(XU, Access::Read));
    PetscCall(z.Get(zv, Access::Read));
    PetscCall(d.Get(lb->r, Access::Read));
    PetscCallCXX(alpha = lbfgsb::SubspaceMaxStep(l.cview(), u.cview(), lb->iwhere, z.cview(), d.cview(), PETSC_INFINITY, NULL));
    PetscCallMPI(MPI_Allreduce(&alpha, &galpha, 1, MPIU_REAL, MPIU_MIN, comm));
    if (galpha < 1) PetscCallCXX(blk = lbfgsb::SubspaceBlockingIndex(l.cview(), u.cview(), lb->iwhere, z.cview(), d.cview(), PETSC_INFINITY, galpha));
    mygid = blk >= 0 ? lb->rstart + blk : PETSC_MAX_INT;
    PetscCallMPI(MPI_Allreduce(&mygid, &gblk, 1, MPIU_INT, MPI_MIN, comm));
    blk = (gblk >= lb->rstart && gblk < lb->rstart + lb->nlocal) ? gblk - lb->rstart : -1;
    PetscCall(w.Get(lb->work, Access::Write));
    PetscCallCXX(lbfgsb::SubspaceBacktrack(l.cview(), u.cview(), lb->iwhere, z.cview(), d.cview(), w.view(), galpha, blk));
    PetscCall(w.Restore());
    PetscCall(z.Restore());
    PetscCall(d.Restore());
    PetscCall(u.Restore());
    PetscCall(l.Restore());
    Vec tmp  = lb->z;
    lb->z    = lb->work;
    lb->work = tmp;
  }
  PetscCall(PetscLogEventEnd(TAOLBFGSB_Subspace, tao, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* where the update of this iteration puts its pair: the slot of the ring buffers, the memory size and head after it */
struct LBFGSBSlot {
  PetscInt slot = 0, col = 0, head = 0;
};
static LBFGSBSlot LBFGSBNextSlot(const TAO_LBFGSB *lb)
{
  LBFGSBSlot ns;
  if (lb->iupdat + 1 <= lb->m) {
    ns.col  = lb->iupdat + 1;
    ns.head = lb->head;
    ns.slot = (lb->head + ns.col - 1) % lb->m;
  } else {
    ns.col  = lb->m;
    ns.slot = lb->head;
    ns.head = (lb->head + 1) % lb->m;
  }
  return ns;
}

/* The end of an iteration and the start of the next in one pass over the variables (EndPass) and one read: at the new
   iterate, the projected-gradient norm *sbgnrm and the gradient change r = g - g_old with *rr = r^T r; with upd, the
   products of the new pair (s, y) = (stp d, r) with the pairs kept by the update into pr (6 col values, see
   UpdateProducts; s goes to the slot's vector when stp != 1); and the first pass of the next Cauchy point at the new
   (x, g) with W^T d against the pairs the memory will hold (lb->cinfo, lb->cdots, lb->ccol; its d goes to lb->work,
   swapped into lb->d once the iteration goes on, t and iwhere in place: only when the next iteration computes a Cauchy
   point, i.e. with bounds or an empty memory). Everything summed over the ranks. */
static PetscErrorCode LBFGSBEndPass(Tao tao, Vec XL, Vec XU, PetscBool cnstnd, PetscBool upd, PetscReal stp, PetscReal *sbgnrm, PetscReal *rr, std::vector<PetscReal> &pr)
{
  TAO_LBFGSB            *lb   = (TAO_LBFGSB *)tao->data;
  MPI_Comm               comm = PetscObjectComm((PetscObject)tao);
  const LBFGSBSlot       ns   = LBFGSBNextSlot(lb);
  const PetscInt         pcol = upd ? ns.col : lb->mem.col, nold = upd ? pcol - 1 : pcol;
  const bool             state = cnstnd || pcol == 0, scaled = upd && stp != 1.0;
  const PetscInt         so = lbfgsb::EndScalars(pcol, upd ? true : false), ho = lbfgsb::EndHistogram(pcol, upd ? true : false);
  const PetscInt         nout = state ? lbfgsb::EndOutSize(pcol, upd ? true : false) : ho; /* the histogram only with the breakpoints */
  Vec                    Yc[64], Sc[64];
  std::vector<DeviceVec> dv(2 * nold);
  std::vector<VecPtr>    ptr(2 * pcol);
  std::vector<PetscReal> out(nout);
  DeviceVec              l, u, x, g, go, r, ds, sn, dn, t;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TAOLBFGSB_Update, tao, 0, 0, 0));
  if (upd)
    for (PetscInt j = 0; j < nold; j++) {
      const PetscInt q = (ns.head + j) % lb->m;
      Yc[j]            = lb->Y[q];
      Sc[j]            = lb->S[q];
    }
  else LBFGSBChrono(lb, Sc, Yc);
  PetscCall(l.Get(XL, Access::Read));
  PetscCall(u.Get(XU, Access::Read));
  PetscCall(x.Get(tao->solution, Access::Read));
  PetscCall(g.Get(tao->gradient, Access::Read));
  PetscCall(go.Get(lb->gold, Access::Read));
  PetscCall(r.Get(lb->r, Access::Write));
  PetscCall(ds.Get(lb->d, Access::Read));
  if (scaled) PetscCall(sn.Get(lb->S[ns.slot], Access::Write));
  if (state) {
    PetscCall(dn.Get(lb->work, Access::Write));
    PetscCall(t.Get(lb->t, Access::Write));
  }
  for (PetscInt j = 0; j < nold; j++) {
    PetscCall(dv[j].Get(Yc[j], Access::Read));
    PetscCall(dv[nold + j].Get(Sc[j], Access::Read));
    ptr[j].p        = dv[j].cview().data();
    ptr[pcol + j].p = dv[nold + j].cview().data();
  }
  if (upd) { /* the new pair last (formed in the pass, never read through these) */
    ptr[pcol - 1].p     = r.cview().data();
    ptr[2 * pcol - 1].p = scaled ? sn.cview().data() : ds.cview().data();
  }
  PetscCall(LBFGSBPairsUpload(lb, ptr));
  PetscCallCXX(lbfgsb::EndPass(l.cview(), u.cview(), x.cview(), g.cview(), go.cview(), r.view(), ds.cview(), stp, scaled ? sn.view() : lbfgsb::MutView(), upd ? true : false, lb->gfree, state, lb->iwhere, state ? dn.view() : lbfgsb::MutView(), state ? t.view() : lbfgsb::MutView(), PETSC_INFINITY, Kokkos::subview(lb->gvecs, std::make_pair((PetscInt)0, 2 * pcol)), pcol, lb->pscratch, lb->pout));
  PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Real>(out.data(), nout), Kokkos::subview(lb->pout, std::make_pair((PetscInt)0, nout))));
  PetscCallCXX(exec().fence());
  for (auto &v : dv) PetscCall(v.Restore());
  if (state) {
    PetscCall(t.Restore());
    PetscCall(dn.Restore());
  }
  if (scaled) PetscCall(sn.Restore());
  PetscCall(ds.Restore());
  PetscCall(r.Restore());
  PetscCall(go.Restore());
  PetscCall(g.Restore());
  PetscCall(x.Restore());
  PetscCall(u.Restore());
  PetscCall(l.Restore());
  /* the sums in one reduction (the counts as reals: exact below 2^53), then the minimum and the maxima */
  lb->cnbreak = (PetscInt)out[so + 1];
  {
    PetscReal mn = out[so + 5], mx[2] = {out[so + 6], out[so + 8]};
    out[so + 5] = out[so + 6] = out[so + 8] = 0;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, out.data(), (PetscMPIInt)nout, MPIU_REAL, MPIU_SUM, comm));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &mn, 1, MPIU_REAL, MPIU_MIN, comm));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, mx, 2, MPIU_REAL, MPIU_MAX, comm));
    out[so + 5] = mn;
    out[so + 6] = mx[0];
    out[so + 8] = mx[1];
  }
  *rr     = out[so + 7];
  *sbgnrm = out[so + 8];
  pr.assign(out.begin() + 2 * pcol, out.begin() + so); /* (empty without upd) */
  lb->cinfo = lbfgsb::CauchyInitDotsInfo(out.data() + so);
  lb->cdots.assign(out.begin(), out.begin() + 2 * pcol);
  lb->chist.resize(state ? lbfgsb::kBreakBuckets : 0);
  for (PetscInt k = 0; k < (PetscInt)lb->chist.size(); k++) lb->chist[k] = (PetscInt)out[ho + k];
  lb->ccol   = pcol;
  lb->cready = PETSC_TRUE;
  lb->cstate = state ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscLogEventEnd(TAOLBFGSB_Update, tao, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* reference `matupd` + `formt`: append (s, y) = (stp d, r) (the vectors are swapped into the ring buffers, not copied;
   s is in the slot's vector already when stp != 1), with S^T s, Y^T s and the new row of the Gram blocks for the free
   set gfree from the products pr of LBFGSBEndPass; returns *info != 0 when T is not positive definite */
static PetscErrorCode LBFGSBUpdate(Tao tao, PetscReal rr, PetscReal dr, PetscReal stp, PetscReal dtd, const std::vector<PetscReal> &pr, PetscInt *info)
{
  TAO_LBFGSB      *lb  = (TAO_LBFGSB *)tao->data;
  Memory          &mem = lb->mem;
  const int        m   = (int)lb->m;
  const LBFGSBSlot ns  = LBFGSBNextSlot(lb);

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TAOLBFGSB_Update, tao, 0, 0, 0));
  lb->iupdat++;
  if (ns.head != lb->head) {
    /* move the old information one place up */
    for (int j = 0; j < mem.col - 1; j++) {
      for (int i = 0; i <= j; i++) mem.SS(i, j) = mem.SS(i + 1, j + 1);
      for (int i = j; i < mem.col - 1; i++) mem.SY(i, j) = mem.SY(i + 1, j + 1);
    }
    for (int j = 0; j < mem.col - 1; j++)
      for (int i = 0; i < mem.col - 1; i++) {
        lb->gyy[i + j * m]  = lb->gyy[i + 1 + (j + 1) * m];
        lb->gss[i + j * m]  = lb->gss[i + 1 + (j + 1) * m];
        lb->gszy[i + j * m] = lb->gszy[i + 1 + (j + 1) * m];
        lb->gsay[i + j * m] = lb->gsay[i + 1 + (j + 1) * m];
        lb->gszs[i + j * m] = lb->gszs[i + 1 + (j + 1) * m];
      }
  }
  mem.col  = (int)ns.col;
  lb->head = ns.head;
  if (stp == 1.0) std::swap(lb->d, lb->S[ns.slot]);
  std::swap(lb->r, lb->Y[ns.slot]);
  mem.theta     = rr / dr;
  const int col = mem.col;
  PetscCheck((PetscInt)pr.size() == 6 * col, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Update products of %d pairs, expected %d", (int)(pr.size() / 6), col);
  const PetscReal *yzy = &pr[0], *sas = &pr[col], *say = &pr[2 * col], *szyn = &pr[3 * col], *szy = &pr[4 * col], *szs = &pr[5 * col];
  const int        c1  = col - 1;
  for (int j = 0; j < c1; j++) {
    mem.SY(c1, j) = szy[j] + say[j];
    mem.SS(j, c1) = szs[j] + sas[j];
  }
  mem.SS(c1, c1) = stp == 1.0 ? dtd : stp * stp * dtd;
  mem.SY(c1, c1) = dr;
  for (int j = 0; j < col; j++) {
    lb->gyy[c1 + j * m] = lb->gyy[j + c1 * m] = yzy[j];
    lb->gss[c1 + j * m] = lb->gss[j + c1 * m] = sas[j];
    lb->gszs[c1 + j * m] = lb->gszs[j + c1 * m] = szs[j];
    lb->gszy[j + c1 * m]                        = szyn[j];
    if (j < c1) {
      lb->gsay[c1 + j * m] = say[j];
      lb->gszy[c1 + j * m] = szy[j];
    }
  }
  *info = lbfgsb::Formt(mem);
  PetscCall(PetscLogEventEnd(TAOLBFGSB_Update, tao, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------- TAO ops */

static PetscErrorCode TaoLBFGSBFreeWork(TAO_LBFGSB *);

/* whether the work vectors (or TAO's gradient and step) are laid out differently from the solution, on any rank: a new
   solution vector given with TaoSetSolution() after a solve */
static PetscErrorCode LBFGSBLayoutChanged(Tao tao, PetscBool *changed)
{
  TAO_LBFGSB *lb    = (TAO_LBFGSB *)tao->data;
  Vec         vs[3] = {lb->d, tao->gradient, tao->stepdirection};
  PetscInt    N, n, Nv, nv, rstart, rv;
  PetscMPIInt loc = 0, glob;

  PetscFunctionBegin;
  PetscCall(VecGetSize(tao->solution, &N));
  PetscCall(VecGetLocalSize(tao->solution, &n));
  PetscCall(VecGetOwnershipRange(tao->solution, &rstart, NULL));
  for (Vec v : vs) {
    if (!v) continue;
    PetscCall(VecGetSize(v, &Nv));
    PetscCall(VecGetLocalSize(v, &nv));
    PetscCall(VecGetOwnershipRange(v, &rv, NULL));
    if (Nv != N || nv != n || rv != rstart) loc = 1;
  }
  PetscCallMPI(MPI_Allreduce(&loc, &glob, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)tao)));
  *changed = glob ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoSetUp_LBFGSB(Tao tao)
{
  TAO_LBFGSB *lb = (TAO_LBFGSB *)tao->data;
  PetscInt    n;
  PetscBool   changed = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(KokkosInitializeOnce());
  PetscCheck(lb->m >= 1 && lb->m <= 64, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE, "-%stao_lbfgsb_m %" PetscInt_FMT " is out of range: the number of stored correction pairs must be between 1 and 64", LBFGSBPrefix(tao), lb->m);
  PetscCall(LBFGSBLayoutChanged(tao, &changed));
  if (changed) {
    PetscCall(PetscInfo(tao, "The solution vector's layout changed since the last setup; rebuilding the work vectors\n"));
    PetscCall(TaoLBFGSBFreeWork(lb));
    PetscCall(VecDestroy(&tao->gradient));
    PetscCall(VecDestroy(&tao->stepdirection));
  }
  if (!tao->gradient) PetscCall(VecDuplicate(tao->solution, &tao->gradient));
  if (!tao->stepdirection) PetscCall(VecDuplicate(tao->solution, &tao->stepdirection));
  if (!lb->d) {
    /* one Vec each (not VecDuplicateVecs): the update swaps d and r into the ring buffers */
    PetscCall(PetscCalloc1(lb->m, &lb->S));
    PetscCall(PetscCalloc1(lb->m, &lb->Y));
    for (PetscInt j = 0; j < lb->m; j++) {
      PetscCall(VecDuplicate(tao->solution, &lb->S[j]));
      PetscCall(VecDuplicate(tao->solution, &lb->Y[j]));
    }
    PetscCall(VecDuplicate(tao->solution, &lb->d));
    PetscCall(VecDuplicate(tao->solution, &lb->z));
    PetscCall(VecDuplicate(tao->solution, &lb->r));
    PetscCall(VecDuplicate(tao->solution, &lb->xold));
    PetscCall(VecDuplicate(tao->solution, &lb->gold));
    PetscCall(VecDuplicate(tao->solution, &lb->t));
    PetscCall(VecDuplicate(tao->solution, &lb->work));
    PetscCall(VecGetLocalSize(tao->solution, &n));
    PetscCall(VecGetOwnershipRange(tao->solution, &lb->rstart, NULL));
    lb->nlocal = n;
    PetscCallCXX(lb->iwhere = View<Int>(std::string("lbfgsb::iwhere"), n));
    PetscCallCXX(lb->idx = View<Int>(std::string("lbfgsb::idx"), n));
    PetscCallCXX(lb->gfree = View<Int>(std::string("lbfgsb::gfree"), n));
    PetscCallCXX(lb->chg = View<Int>(std::string("lbfgsb::changed"), n > 0 ? n : 1));
    PetscCallCXX(lb->gvecs = Kokkos::View<VecPtr *, MemSpace>(std::string("lbfgsb::pairs"), 2 * lb->m));
    PetscCallCXX(lb->pscratch = View<Real>(std::string("lbfgsb::pairscratch"), std::max(lbfgsb::PairScratch(lb->m), lbfgsb::EndScratch(lb->m))));
    PetscCallCXX(lb->pout = View<Real>(std::string("lbfgsb::pairout"), std::max<PetscInt>(6 * lb->m + 8, lbfgsb::EndOutSize(lb->m, true))));
    PetscCallCXX(lb->fscount = View<Int>(std::string("lbfgsb::fscount"), 2));
    PetscCallCXX(lb->pcoef = View<Real>(std::string("lbfgsb::paircoef"), 2 * lb->m));
    lb->gyy.assign((size_t)lb->m * lb->m, 0.0);
    lb->gss.assign((size_t)lb->m * lb->m, 0.0);
    lb->gszy.assign((size_t)lb->m * lb->m, 0.0);
    lb->gsay.assign((size_t)lb->m * lb->m, 0.0);
    lb->gszs.assign((size_t)lb->m * lb->m, 0.0);
    lb->mem.Resize((int)lb->m);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBFreeWork(TAO_LBFGSB *lb)
{
  PetscFunctionBegin;
  if (lb->S) {
    for (PetscInt j = 0; j < lb->m; j++) {
      PetscCall(VecDestroy(&lb->S[j]));
      PetscCall(VecDestroy(&lb->Y[j]));
    }
    PetscCall(PetscFree(lb->S));
    PetscCall(PetscFree(lb->Y));
  }
  PetscCall(VecDestroy(&lb->d));
  PetscCall(VecDestroy(&lb->z));
  PetscCall(VecDestroy(&lb->r));
  PetscCall(VecDestroy(&lb->xold));
  PetscCall(VecDestroy(&lb->gold));
  PetscCall(VecDestroy(&lb->t));
  PetscCall(VecDestroy(&lb->work));
  PetscCall(VecDestroy(&lb->XL));
  PetscCall(VecDestroy(&lb->XU));
  PetscCallCXX(lb->iwhere = View<Int>());
  PetscCallCXX(lb->idx = View<Int>());
  PetscCallCXX(lb->tsort = View<Real>());
  PetscCallCXX(lb->records = View<Real>());
  PetscCallCXX(lb->recall = View<Real>());
  PetscCallCXX(lb->tkeys = View<Real>());
  PetscCallCXX(lb->p0dev = View<Real>());
  PetscCallCXX(lb->Mdev = View<Real>());
  PetscCallCXX(lb->carry = View<Real>());
  PetscCallCXX(lb->segout = View<Real>());
  PetscCallCXX(lb->perm = View<Int>());
  PetscCallCXX(lb->keys = Kokkos::View<int64_t *, MemSpace>());
  PetscCallCXX(lb->pre = Kokkos::View<Real **, Kokkos::LayoutLeft, MemSpace>());
  PetscCallCXX(lb->gvecs = Kokkos::View<VecPtr *, MemSpace>());
  PetscCallCXX(lb->gprods = Kokkos::View<GramProduct *, MemSpace>());
  PetscCallCXX(lb->gpartial = Kokkos::View<Real **, Kokkos::LayoutRight, MemSpace>());
  PetscCallCXX(lb->gout = View<Real>());
  PetscCallCXX(lb->gfree = View<Int>());
  PetscCallCXX(lb->chg = View<Int>());
  PetscCallCXX(lb->pscratch = View<Real>());
  PetscCallCXX(lb->pout = View<Real>());
  PetscCallCXX(lb->pcoef = View<Real>());
  PetscCallCXX(lb->hedges = View<Real>());
  PetscCallCXX(lb->hcounts = View<Int>());
  PetscCallCXX(lb->fscount = View<Int>());
  PetscCallCXX(lb->selcount = View<Int>());
  PetscCallCXX(lb->scanin = View<Real>());
  lb->gprods_col = -1;
  lb->gptr.clear();
  lb->cready = lb->cstate = lb->fsready = lb->gcpready = lb->gramready = lb->chistready = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the bound vectors given to TAO must have the solution's layout (the kernels run over the local parts) */
static PetscErrorCode LBFGSBCheckBoundSizes(Tao tao)
{
  MPI_Comm    comm    = PetscObjectComm((PetscObject)tao);
  Vec         b[2]    = {tao->XL, tao->XU};
  const char *name[2] = {"lower", "upper"};
  PetscInt    N, n, Nb, nb;
  PetscMPIInt loc = 0, glob;

  PetscFunctionBegin;
  PetscCall(VecGetSize(tao->solution, &N));
  PetscCall(VecGetLocalSize(tao->solution, &n));
  for (int k = 0; k < 2; k++) {
    if (!b[k]) continue;
    PetscCall(VecGetSize(b[k], &Nb));
    PetscCheck(Nb == N, comm, PETSC_ERR_ARG_SIZ, "The %s-bound vector has %" PetscInt_FMT " entries but the solution has %" PetscInt_FMT "; give TaoSetVariableBounds() vectors of the solution's size", name[k], Nb, N);
    PetscCall(VecGetLocalSize(b[k], &nb));
    if (nb != n) loc |= 1 << k;
  }
  PetscCallMPI(MPI_Allreduce(&loc, &glob, 1, MPI_INT, MPI_BOR, comm));
  PetscCheck(!glob, comm, PETSC_ERR_ARG_SIZ, "The %s-bound vector is distributed over the ranks differently from the solution; create the bounds with VecDuplicate() of the solution", name[(glob & 1) ? 0 : 1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rejects the bounds and initial points the algorithm cannot use, naming the first offending global index: a NaN or
   infinite entry of x_0, a NaN bound (NaN compares false with everything, so the bound would be dropped silently), a
   lower bound of +infinity, an upper bound of -infinity, or l_i > u_i. One device reduction and one MPI reduction. */
static PetscErrorCode LBFGSBCheckBounds(Tao tao, Vec XL, Vec XU)
{
  TAO_LBFGSB             *lb   = (TAO_LBFGSB *)tao->data;
  MPI_Comm                comm = PetscObjectComm((PetscObject)tao);
  lbfgsb::BoundsCheckInfo bi;
  int64_t                 key = INT64_MAX, gkey;
  PetscInt                gi;

  PetscFunctionBegin;
  {
    DeviceVec l, u, x;
    PetscCall(l.Get(XL, Access::Read));
    PetscCall(u.Get(XU, Access::Read));
    PetscCall(x.Get(tao->solution, Access::Read));
    PetscCallCXX(bi = lbfgsb::CheckBounds(l.cview(), u.cview(), x.cview(), PETSC_INFINITY));
    PetscCall(l.Restore());
    PetscCall(u.Restore());
    PetscCall(x.Restore());
  }
  if (bi.index >= 0) key = 8 * (int64_t)(lb->rstart + bi.index) + (int64_t)bi.kind;
  PetscCallMPI(MPI_Allreduce(&key, &gkey, 1, MPIU_INT64, MPI_MIN, comm));
  if (gkey == INT64_MAX) PetscFunctionReturn(PETSC_SUCCESS);
  gi = (PetscInt)(gkey / 8);
  switch ((lbfgsb::BoundsDefect)(int)(gkey % 8)) {
  case lbfgsb::BoundsDefect::XNan:
    SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "The initial point is NaN at global index %" PetscInt_FMT "; give TaoSetSolution() a finite initial point", gi);
  case lbfgsb::BoundsDefect::XInf:
    SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "The initial point is infinite at global index %" PetscInt_FMT "; give TaoSetSolution() a finite initial point", gi);
  case lbfgsb::BoundsDefect::LowerNan:
    SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "The lower bound at global index %" PetscInt_FMT " is NaN; use PETSC_NINFINITY for no lower bound", gi);
  case lbfgsb::BoundsDefect::UpperNan:
    SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "The upper bound at global index %" PetscInt_FMT " is NaN; use PETSC_INFINITY for no upper bound", gi);
  case lbfgsb::BoundsDefect::LowerPlusInf:
    SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "The lower bound at global index %" PetscInt_FMT " is +infinity (at or above PETSC_INFINITY): no point is feasible; use PETSC_NINFINITY for no lower bound", gi);
  case lbfgsb::BoundsDefect::UpperMinusInf:
    SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "The upper bound at global index %" PetscInt_FMT " is -infinity (at or below PETSC_NINFINITY): no point is feasible; use PETSC_INFINITY for no upper bound", gi);
  case lbfgsb::BoundsDefect::Inverted: {
    PetscReal          lu[2] = {-PETSC_MAX_REAL, -PETSC_MAX_REAL}, glu[2];
    const PetscScalar *a;
    if (gi >= lb->rstart && gi < lb->rstart + lb->nlocal) {
      PetscCall(VecGetArrayRead(XL, &a));
      lu[0] = PetscRealPart(a[gi - lb->rstart]);
      PetscCall(VecRestoreArrayRead(XL, &a));
      PetscCall(VecGetArrayRead(XU, &a));
      lu[1] = PetscRealPart(a[gi - lb->rstart]);
      PetscCall(VecRestoreArrayRead(XU, &a));
    }
    PetscCallMPI(MPI_Allreduce(lu, glu, 2, MPIU_REAL, MPIU_MAX, comm));
    SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "The lower bound %g exceeds the upper bound %g at global index %" PetscInt_FMT ": no point is feasible; fix the bounds given to TaoSetVariableBounds()", (double)glu[0], (double)glu[1], gi);
  }
  default:
    SETERRQ(comm, PETSC_ERR_PLIB, "Unknown bounds defect %d", (int)(gkey % 8));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the error for a NaN or infinite objective or gradient at the initial point (sbgnrm is +infinity when the gradient has
   such an entry, see LBFGSBProjGradNorm), naming the first such entry of the gradient */
static PetscErrorCode LBFGSBCheckInitialFG(Tao tao, PetscReal f, PetscReal sbgnrm)
{
  TAO_LBFGSB *lb   = (TAO_LBFGSB *)tao->data;
  MPI_Comm    comm = PetscObjectComm((PetscObject)tao);
  PetscInt    loc, gloc;

  PetscFunctionBegin;
  PetscCheck(!PetscIsInfOrNanReal(f), comm, PETSC_ERR_USER, "The objective at the initial point is %s: the objective routine must return a finite value", PetscIsNanReal(f) ? "NaN" : "infinite");
  if (!PetscIsInfOrNanReal(sbgnrm)) PetscFunctionReturn(PETSC_SUCCESS);
  {
    DeviceVec g;
    PetscCall(g.Get(tao->gradient, Access::Read));
    PetscCallCXX(loc = FirstNonFinite(g.cview()));
    PetscCall(g.Restore());
  }
  loc = loc >= 0 ? lb->rstart + loc : PETSC_MAX_INT;
  PetscCallMPI(MPI_Allreduce(&loc, &gloc, 1, MPIU_INT, MPI_MIN, comm));
  SETERRQ(comm, PETSC_ERR_USER, "The gradient at the initial point is NaN or infinite at global index %" PetscInt_FMT ": the gradient routine must return finite values", gloc);
}

static PetscErrorCode TaoSolve_LBFGSB(Tao tao)
{
  TAO_LBFGSB            *lb   = (TAO_LBFGSB *)tao->data;
  MPI_Comm               comm = PetscObjectComm((PetscObject)tao);
  Vec                    XL, XU, x = tao->solution, g;
  PetscReal              f, fold = 0, sbgnrm, res, stp = 0, gd, gdold = 0, dtd, dnorm, stpmx, tol;
  PetscInt               info, iter = 0;
  PetscBool              cnstnd, boxed;
  std::vector<PetscReal> c;
  lbfgsb::ActiveInfo     ai;

  PetscFunctionBegin;
  /* the work is rebuilt when it was freed (a new memory size) or the solution has a new layout */
  PetscCall(TaoSetUp_LBFGSB(tao));
  g = tao->gradient;
  PetscCall(LBFGSBResetMemory(lb));
  lb->nreset = lb->nskip = lb->nbreakscan = lb->nbreakpassed = lb->ntruncated = lb->nprojected = lb->nbacktrack = lb->nlsfail = lb->ngramchanged = lb->nnonfinite = 0;
  PetscCallCXX(Kokkos::deep_copy(exec(), lb->gfree, (Int)1)); /* the (empty) Gram blocks: every variable free */
  lb->cready = lb->cstate = lb->fsready = lb->gcpready = lb->gramready = lb->chistready = PETSC_FALSE;
  lb->termination = "none";
  tol             = lb->factr * PETSC_MACHINE_EPSILON;
  /* bounds: TAO's, or +-infinity */
  PetscCall(TaoComputeVariableBounds(tao));
  PetscCall(LBFGSBCheckBoundSizes(tao));
  {
    /* TAO's bounds are used in place when both are given in the solution's type; else a missing bound is +-infinity
       and a bound of another type (a host Vec beside a VECKOKKOS solution) is copied into the solution's type, since
       the iteration combines the bounds with its work Vecs in PETSc Vec operations (VecGetAsTypeOf()) */
    PetscBool same[2] = {PETSC_FALSE, PETSC_FALSE};
    if (tao->XL) PetscCall(VecSameType(tao->XL, x, &same[0]));
    if (tao->XU) PetscCall(VecSameType(tao->XU, x, &same[1]));
    if (same[0] && same[1]) {
      XL = tao->XL;
      XU = tao->XU;
    } else {
      if (!lb->XL) {
        PetscCall(VecDuplicate(x, &lb->XL));
        PetscCall(VecDuplicate(x, &lb->XU));
      }
      if (tao->XL) PetscCall(VecCopyAcrossTypes(tao->XL, lb->XL));
      else PetscCall(VecSet(lb->XL, PETSC_NINFINITY));
      if (tao->XU) PetscCall(VecCopyAcrossTypes(tao->XU, lb->XU));
      else PetscCall(VecSet(lb->XU, PETSC_INFINITY));
      XL = lb->XL;
      XU = lb->XU;
    }
  }
  PetscCall(LBFGSBCheckBounds(tao, XL, XU));
  /* project x_0, classify the variables */
  {
    DeviceVec l, u, xv;
    PetscInt  loc[3], glob[3], N;
    PetscCall(l.Get(XL, Access::Read));
    PetscCall(u.Get(XU, Access::Read));
    PetscCall(xv.Get(x, Access::ReadWrite));
    PetscCallCXX(ai = lbfgsb::Active(l.cview(), u.cview(), xv.view(), lb->iwhere, PETSC_INFINITY));
    PetscCall(l.Restore());
    PetscCall(u.Restore());
    PetscCall(xv.Restore());
    loc[0] = ai.nprojected;
    loc[1] = ai.nbounded;
    loc[2] = ai.nboxed;
    PetscCallMPI(MPI_Allreduce(loc, glob, 3, MPIU_INT, MPI_SUM, comm));
    PetscCall(VecGetSize(x, &N));
    cnstnd = glob[1] > 0 ? PETSC_TRUE : PETSC_FALSE;
    boxed  = glob[2] == N ? PETSC_TRUE : PETSC_FALSE;
    if (glob[0]) PetscCall(PetscInfo(tao, "Projected %" PetscInt_FMT " entries of the initial point onto the bounds\n", glob[0]));
  }
  PetscCall(TaoComputeObjectiveAndGradient(tao, x, &f, g));
  lb->nfgv = 1;
  PetscCall(LBFGSBProjGradNorm(tao, XL, XU, &sbgnrm));
  PetscCall(LBFGSBCheckInitialFG(tao, f, sbgnrm));
  PetscCall(LBFGSBResidual(tao, XL, XU, sbgnrm, &res));
  tao->reason = TAO_CONTINUE_ITERATING;
  tao->niter  = 0;
  PetscCall(TaoLogConvergenceHistory(tao, f, res, 0.0, tao->ksp_its));
  PetscCall(TaoMonitor(tao, tao->niter, f, res, 0.0, 0.0));
  PetscUseTypeMethod(tao, convergencetest, tao->cnvP);
  if (tao->reason != TAO_CONTINUE_ITERATING) lb->termination = "projected gradient test at the initial point";

  while (tao->reason == TAO_CONTINUE_ITERATING) {
    PetscBool skipgcp = (!cnstnd && lb->mem.col > 0) ? PETSC_TRUE : PETSC_FALSE, lsready = PETSC_FALSE, zset = PETSC_FALSE;
    PetscReal lsv[3]  = {0, 0, 0};
    PetscInt  nfree;

    /* 1. generalised Cauchy point */
    if (skipgcp) { /* x itself; iwhere is -1 everywhere since Active (no bounds) */
      lb->fsready   = PETSC_FALSE;
      lb->gcpready  = PETSC_FALSE;
      lb->gramready = PETSC_FALSE;
      c.assign(2 * lb->mem.col, 0.0);
    } else {
      PetscCall(LBFGSBCauchy(tao, XL, XU, sbgnrm, c, &info));
      if (info) {
        PetscCall(PetscInfo(tao, "Singular triangular system in the Cauchy point; refreshing the limited memory\n"));
        PetscCall(LBFGSBResetMemory(lb));
        continue;
      }
    }
    /* the free set at the Cauchy point and the Gram blocks of the subspace step for it */
    PetscCall(LBFGSBFreeSetGram(tao, cnstnd, skipgcp, &nfree));
    /* 2. subspace minimisation */
    if (nfree > 0 && lb->mem.col > 0) {
      PetscCall(LBFGSBSubspace(tao, XL, XU, cnstnd, skipgcp, (cnstnd && iter > 0) ? PETSC_TRUE : PETSC_FALSE, c, lsv, &lsready, &info));
      if (info) {
        PetscCall(PetscInfo(tao, "Factorisation failed in the subspace minimisation; refreshing the limited memory\n"));
        PetscCall(LBFGSBResetMemory(lb));
        continue;
      }
      zset = PETSC_TRUE; /* lb->z: the projected or backtracked subspace point */
    }
    /* 3. line search along d = z - x (reference `lnsrlb` with More-Thuente `dcsrch`) */
    PetscCall(PetscLogEventBegin(TAOLBFGSB_LineSearch, tao, 0, 0, 0));
    if (!lsready) {
      /* d = z - x, x_old = x, g_old = g, d^T d, g^T d and the largest feasible step in one pass (after the subspace
         step they came with its last pass) */
      DeviceVec        l, u, zv, xv, gv, dv, xo, go;
      lbfgsb::StepInfo si;
      PetscReal        loc[2];
      if (skipgcp) PetscCall(VecCopy(x, lb->z));
      else if (lb->gcpready && !zset) PetscCall(LBFGSBCauchyPointVec(tao, XL, XU)); /* z := x^c (no subspace step: empty memory or free set) */
      PetscCall(l.Get(XL, Access::Read));
      PetscCall(u.Get(XU, Access::Read));
      PetscCall(zv.Get(lb->z, Access::Read));
      PetscCall(xv.Get(x, Access::Read));
      PetscCall(gv.Get(g, Access::Read));
      PetscCall(dv.Get(lb->d, Access::Write));
      PetscCall(xo.Get(lb->xold, Access::Write));
      PetscCall(go.Get(lb->gold, Access::Write));
      PetscCallCXX(si = lbfgsb::LineSearchStartMax(l.cview(), u.cview(), zv.cview(), xv.cview(), gv.cview(), dv.view(), xo.view(), go.view(), PETSC_INFINITY, (cnstnd && iter > 0) ? true : false, 1e10));
      PetscCall(l.Restore());
      PetscCall(u.Restore());
      PetscCall(zv.Restore());
      PetscCall(xv.Restore());
      PetscCall(gv.Restore());
      PetscCall(dv.Restore());
      PetscCall(xo.Restore());
      PetscCall(go.Restore());
      loc[0] = si.dtd;
      loc[1] = si.gtd;
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, loc, 2, MPIU_REAL, MPIU_SUM, comm));
      PetscCallMPI(MPI_Allreduce(&si.stpmax, &lsv[2], 1, MPIU_REAL, MPIU_MIN, comm));
      lsv[0] = loc[0];
      lsv[1] = loc[1];
    }
    dtd   = lsv[0];
    gd    = lsv[1];
    dnorm = PetscSqrtReal(dtd);
    stpmx = cnstnd ? (iter == 0 ? 1.0 : lsv[2]) : 1e10;
    stp   = (iter == 0 && !boxed) ? PetscMin(1.0 / dnorm, stpmx) : 1.0;
    fold  = f;
    gdold = gd;
    PetscInt       ifun = 0, iback = 0;
    PetscBool      lsfail = PETSC_FALSE, lsnonfinite = PETSC_FALSE;
    PetscReal      stpcap = stpmx; /* largest step of the search; lowered below every step with a NaN or infinite f or g */
    lbfgsb::Dcsrch ls;
    if (!(gd < 0)) {
      PetscCall(PetscInfo(tao, "Ascent direction in the projection, g^T d = %g\n", (double)gd));
      lsfail      = PETSC_TRUE;
      lsnonfinite = PetscIsInfOrNanReal(gd) ? PETSC_TRUE : PETSC_FALSE;
    }
    while (!lsfail) {
      ls.Step(f, gd, stp, lb->ls_ftol, lb->ls_gtol, lb->ls_xtol, 0.0, stpcap);
      if (ls.task == lbfgsb::Dcsrch::CONVERGENCE || ls.task == lbfgsb::Dcsrch::WARNING) break;
      if (ls.task == lbfgsb::Dcsrch::ERROR) {
        PetscCall(PetscInfo(tao, "Line search error: %s\n", ls.msg.c_str()));
        lsfail = PETSC_TRUE;
        break;
      }
      ifun++;
      iback = ifun - 1;
      if (iback >= lb->maxls) {
        lsfail = PETSC_TRUE;
        break;
      }
      if (stp == 1.0) PetscCall(VecCopy(lb->z, x));
      else PetscCall(VecWAXPY(x, stp, lb->d, lb->xold));
      PetscCall(TaoComputeObjectiveAndGradient(tao, x, &f, g));
      lb->nfgv++;
      PetscCall(VecDot(g, lb->d, &gd));
      lsnonfinite = (PetscIsInfOrNanReal(f) || PetscIsInfOrNanReal(gd)) ? PETSC_TRUE : PETSC_FALSE;
      if (lsnonfinite) {
        /* f or g is NaN or infinite at this step (g^T d is NaN for any such entry of g): backtrack, restarting the
           More-Thuente search from x_old with its largest step halfway between the best step so far and this one */
        lb->nnonfinite++;
        PetscCall(PetscInfo(tao, "NaN or Inf in f or g at step %g; backtracking\n", (double)stp));
        stpcap = ls.stx + 0.5 * (stp - ls.stx);
        stp    = stpcap;
        ls     = lbfgsb::Dcsrch();
        f      = fold;
        gd     = gdold;
      }
    }
    PetscCall(PetscLogEventEnd(TAOLBFGSB_LineSearch, tao, 0, 0, 0));
    if (lsfail) {
      lb->nlsfail++;
      PetscCall(VecCopy(lb->xold, x));
      PetscCall(VecCopy(lb->gold, g));
      f = fold;
      if (lb->mem.col == 0) {
        if (lsnonfinite) {
          tao->reason     = TAO_DIVERGED_NAN;
          lb->termination = "NaN or Inf in f or g that the line search could not backtrack from (the last accepted iterate is returned)";
        } else {
          tao->reason     = TAO_DIVERGED_LS_FAILURE;
          lb->termination = "abnormal termination in the line search";
        }
        tao->niter++;
        break;
      }
      PetscCall(PetscInfo(tao, "Line search failed; refreshing the limited memory and restarting from steepest descent\n"));
      PetscCall(LBFGSBResetMemory(lb));
      continue;
    }
    /* 4. new iterate: monitors and tests, with the update's products and the next Cauchy point's first pass made in the
       same pass (LBFGSBEndPass); whether the update is skipped (s^T y <= eps (-g_old^T s)) is known before it */
    iter++;
    tao->niter++;
    PetscReal              rr, dr, ddum; /* r^T r of the gradient change r = g - g_old, s^T y, -g_old^T s */
    std::vector<PetscReal> pr;
    if (stp == 1.0) {
      dr   = gd - gdold;
      ddum = -gdold;
    } else {
      dr   = (gd - gdold) * stp;
      ddum = -gdold * stp;
    }
    const PetscBool upd = dr <= PETSC_MACHINE_EPSILON * ddum ? PETSC_FALSE : PETSC_TRUE;
    PetscCall(LBFGSBEndPass(tao, XL, XU, cnstnd, upd, stp, &sbgnrm, &rr, pr));
    PetscCall(LBFGSBResidual(tao, XL, XU, sbgnrm, &res));
    PetscCall(TaoLogConvergenceHistory(tao, f, res, 0.0, tao->ksp_its));
    PetscCall(TaoMonitor(tao, tao->niter, f, res, 0.0, stp));
    PetscUseTypeMethod(tao, convergencetest, tao->cnvP);
    if (tao->reason != TAO_CONTINUE_ITERATING) {
      lb->termination = "TAO convergence test";
      break;
    }
    if (fold - f <= tol * PetscMax(PetscMax(PetscAbsReal(fold), PetscAbsReal(f)), 1.0)) {
      /* L-BFGS-B 3.0 reports this test as convergence also when the line search (ending with a dcsrch warning)
         did not decrease f at all; that is a failure of the search, not a converged solve (and with factr = 0, which
         turns the test off, the only way it fires) */
      if (!(fold - f > 0)) {
        tao->reason     = TAO_DIVERGED_LS_FAILURE;
        lb->termination = "the line search did not decrease f";
      } else {
        tao->reason     = TAO_CONVERGED_USER;
        lb->termination = "relative reduction of f <= factr * epsmch";
      }
      break;
    }
    /* 5. limited-memory update with (s, y) = (stp d, g - g_old) */
    if (!upd) {
      lb->nskip++;
      lb->updatd = PETSC_FALSE;
    } else {
      lb->updatd = PETSC_TRUE;
      PetscCall(LBFGSBUpdate(tao, rr, dr, stp, dtd, pr, &info));
      if (info) {
        PetscCall(PetscInfo(tao, "Nonpositive definite T; refreshing the limited memory\n"));
        PetscCall(LBFGSBResetMemory(lb));
      }
    }
    if (lb->cstate) { /* the next Cauchy point's d, made by the end pass */
      Vec tmp  = lb->d;
      lb->d    = lb->work;
      lb->work = tmp;
    }
  }
  PetscCall(VecCopy(lb->d, tao->stepdirection));
  tao->step = stp;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBSetMemory_LBFGSB(Tao tao, PetscInt m)
{
  TAO_LBFGSB *lb = (TAO_LBFGSB *)tao->data;

  PetscFunctionBegin;
  PetscCheck(m >= 1 && m <= 64, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE, "-%stao_lbfgsb_m %" PetscInt_FMT " is out of range: the number of stored correction pairs must be between 1 and 64", LBFGSBPrefix(tao), m);
  if (m != lb->m) { /* the work is sized by m: free it and have TaoSolve() set the solver up again */
    PetscCall(TaoLBFGSBFreeWork(lb));
    lb->m            = m;
    tao->setupcalled = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBGetMemory_LBFGSB(Tao tao, PetscInt *m)
{
  PetscFunctionBegin;
  *m = ((TAO_LBFGSB *)tao->data)->m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBSetCauchyType_LBFGSB(Tao tao, TaoLBFGSBCauchyType type)
{
  PetscFunctionBegin;
  PetscCheck(type == TAO_LBFGSB_CAUCHY_EXACT || type == TAO_LBFGSB_CAUCHY_APPROXIMATE, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE, "-%stao_lbfgsb_cauchy: %d is not a TaoLBFGSBCauchyType (exact or approximate)", LBFGSBPrefix(tao), (int)type);
  ((TAO_LBFGSB *)tao->data)->cauchy = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBGetCauchyType_LBFGSB(Tao tao, TaoLBFGSBCauchyType *type)
{
  PetscFunctionBegin;
  *type = ((TAO_LBFGSB *)tao->data)->cauchy;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBSetFactr_LBFGSB(Tao tao, PetscReal factr)
{
  PetscFunctionBegin;
  PetscCheck(!PetscIsInfOrNanReal(factr) && factr >= 0, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE, "-%stao_lbfgsb_factr %g is out of range: factr must be a finite number >= 0 (0 disables the relative f test)", LBFGSBPrefix(tao), (double)factr);
  ((TAO_LBFGSB *)tao->data)->factr = factr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBGetFactr_LBFGSB(Tao tao, PetscReal *factr)
{
  PetscFunctionBegin;
  *factr = ((TAO_LBFGSB *)tao->data)->factr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBSetMaxLS_LBFGSB(Tao tao, PetscInt maxls)
{
  PetscFunctionBegin;
  PetscCheck(maxls >= 1, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE, "-%stao_lbfgsb_maxls %" PetscInt_FMT " is out of range: a line search needs at least 1 function evaluation", LBFGSBPrefix(tao), maxls);
  ((TAO_LBFGSB *)tao->data)->maxls = maxls;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBGetMaxLS_LBFGSB(Tao tao, PetscInt *maxls)
{
  PetscFunctionBegin;
  *maxls = ((TAO_LBFGSB *)tao->data)->maxls;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBSetLineSearchTolerances_LBFGSB(Tao tao, PetscReal ftol, PetscReal gtol, PetscReal xtol)
{
  TAO_LBFGSB *lb   = (TAO_LBFGSB *)tao->data;
  MPI_Comm    comm = PetscObjectComm((PetscObject)tao);
  const char *pre  = LBFGSBPrefix(tao);

  PetscFunctionBegin;
  PetscCheck(!PetscIsInfOrNanReal(ftol), comm, PETSC_ERR_ARG_OUTOFRANGE, "-%stao_lbfgsb_ls_ftol %g is not a finite number", pre, (double)ftol);
  PetscCheck(!PetscIsInfOrNanReal(gtol), comm, PETSC_ERR_ARG_OUTOFRANGE, "-%stao_lbfgsb_ls_gtol %g is not a finite number", pre, (double)gtol);
  PetscCheck(!PetscIsInfOrNanReal(xtol), comm, PETSC_ERR_ARG_OUTOFRANGE, "-%stao_lbfgsb_ls_xtol %g is not a finite number", pre, (double)xtol);
  PetscCheck(ftol > 0 && ftol < gtol && gtol < 1, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-%stao_lbfgsb_ls_ftol %g and -%stao_lbfgsb_ls_gtol %g are out of range: the More-Thuente line search needs 0 < ftol < gtol < 1 (sufficient decrease ftol, curvature gtol) to end at a step that satisfies both (strong Wolfe) conditions", pre, (double)ftol, pre, (double)gtol);
  PetscCheck(xtol >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%stao_lbfgsb_ls_xtol %g is out of range: the More-Thuente line search (MINPACK-2 dcsrch) needs xtol >= 0, the relative width of the interval of uncertainty at which it stops", pre, (double)xtol);
  lb->ls_ftol = ftol;
  lb->ls_gtol = gtol;
  lb->ls_xtol = xtol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBGetLineSearchTolerances_LBFGSB(Tao tao, PetscReal *ftol, PetscReal *gtol, PetscReal *xtol)
{
  TAO_LBFGSB *lb = (TAO_LBFGSB *)tao->data;

  PetscFunctionBegin;
  if (ftol) *ftol = lb->ls_ftol;
  if (gtol) *gtol = lb->ls_gtol;
  if (xtol) *xtol = lb->ls_xtol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBSetCauchyScanType_LBFGSB(Tao tao, TaoLBFGSBCauchyScanType type)
{
  PetscFunctionBegin;
  PetscCheck(type == TAO_LBFGSB_CAUCHY_SCAN_DEVICE || type == TAO_LBFGSB_CAUCHY_SCAN_HOST, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE, "-%stao_lbfgsb_cauchy_scan: %d is not a TaoLBFGSBCauchyScanType (device or host)", LBFGSBPrefix(tao), (int)type);
  ((TAO_LBFGSB *)tao->data)->scan = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBGetCauchyScanType_LBFGSB(Tao tao, TaoLBFGSBCauchyScanType *type)
{
  PetscFunctionBegin;
  *type = ((TAO_LBFGSB *)tao->data)->scan;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBSetGNormType_LBFGSB(Tao tao, TaoLBFGSBGNormType type)
{
  PetscFunctionBegin;
  PetscCheck(type == TAO_LBFGSB_GNORM_INF || type == TAO_LBFGSB_GNORM_2, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE, "-%stao_lbfgsb_gnorm: %d is not a TaoLBFGSBGNormType (inf or 2)", LBFGSBPrefix(tao), (int)type);
  ((TAO_LBFGSB *)tao->data)->gnorm = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBGetGNormType_LBFGSB(Tao tao, TaoLBFGSBGNormType *type)
{
  PetscFunctionBegin;
  *type = ((TAO_LBFGSB *)tao->data)->gnorm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBSetGramType_LBFGSB(Tao tao, TaoLBFGSBGramType type)
{
  PetscFunctionBegin;
  PetscCheck(type == TAO_LBFGSB_GRAM_INCREMENTAL || type == TAO_LBFGSB_GRAM_FULL, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE, "-%stao_lbfgsb_gram: %d is not a TaoLBFGSBGramType (incremental or full)", LBFGSBPrefix(tao), (int)type);
  ((TAO_LBFGSB *)tao->data)->gram = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBGetGramType_LBFGSB(Tao tao, TaoLBFGSBGramType *type)
{
  PetscFunctionBegin;
  *type = ((TAO_LBFGSB *)tao->data)->gram;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBSetChunk_LBFGSB(Tao tao, PetscInt chunk)
{
  PetscFunctionBegin;
  PetscCheck(chunk >= 1, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE, "-%stao_lbfgsb_chunk %" PetscInt_FMT " is out of range: the first chunk of the Cauchy scan needs at least 1 breakpoint", LBFGSBPrefix(tao), chunk);
  ((TAO_LBFGSB *)tao->data)->chunk = chunk;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoLBFGSBGetChunk_LBFGSB(Tao tao, PetscInt *chunk)
{
  PetscFunctionBegin;
  *chunk = ((TAO_LBFGSB *)tao->data)->chunk;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoSetFromOptions_LBFGSB(Tao tao, PETSCKP_OPTIONS_ARG)
{
  TAO_LBFGSB             *lb    = (TAO_LBFGSB *)tao->data;
  PetscInt                m     = lb->m, maxls = lb->maxls, chunk = lb->chunk;
  TaoLBFGSBCauchyType     ct    = lb->cauchy;
  TaoLBFGSBCauchyScanType scan  = lb->scan;
  TaoLBFGSBGNormType      gnorm = lb->gnorm;
  TaoLBFGSBGramType       gram  = lb->gram;
  PetscReal               factr = lb->factr, ftol = lb->ls_ftol, gtol = lb->ls_gtol, xtol = lb->ls_xtol;
  PetscBool               flg, flgf, flgg, flgx;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "L-BFGS-B (TAO lbfgsb) options");
  PetscCall(PetscOptionsInt("-tao_lbfgsb_m", "number of stored correction pairs (1 to 64)", "TaoLBFGSBSetMemory", m, &m, &flg));
  if (flg) PetscCall(TaoLBFGSBSetMemory(tao, m));
  PetscCall(PetscOptionsEnum("-tao_lbfgsb_cauchy", "generalised Cauchy point: exact (L-BFGS-B 3.0) or approximate (first segment, Fei et al. 2014)", "TaoLBFGSBSetCauchyType", TaoLBFGSBCauchyTypes, (PetscEnum)ct, (PetscEnum *)&ct, &flg));
  if (flg) PetscCall(TaoLBFGSBSetCauchyType(tao, ct));
  PetscCall(PetscOptionsReal("-tao_lbfgsb_factr", "stop when (f_k - f_k+1)/max(|f_k|,|f_k+1|,1) <= factr * machine epsilon (>= 0; 0 disables)", "TaoLBFGSBSetFactr", factr, &factr, &flg));
  if (flg) PetscCall(TaoLBFGSBSetFactr(tao, factr));
  PetscCall(PetscOptionsInt("-tao_lbfgsb_maxls", "most function evaluations per line search (>= 1)", "TaoLBFGSBSetMaxLS", maxls, &maxls, &flg));
  if (flg) PetscCall(TaoLBFGSBSetMaxLS(tao, maxls));
  PetscCall(PetscOptionsReal("-tao_lbfgsb_ls_ftol", "sufficient-decrease constant of the More-Thuente line search (0 < ftol < gtol)", "TaoLBFGSBSetLineSearchTolerances", ftol, &ftol, &flgf));
  PetscCall(PetscOptionsReal("-tao_lbfgsb_ls_gtol", "curvature constant of the More-Thuente line search (ftol < gtol < 1)", "TaoLBFGSBSetLineSearchTolerances", gtol, &gtol, &flgg));
  PetscCall(PetscOptionsReal("-tao_lbfgsb_ls_xtol", "relative interval-width tolerance of the More-Thuente line search (>= 0)", "TaoLBFGSBSetLineSearchTolerances", xtol, &xtol, &flgx));
  if (flgf || flgg || flgx) PetscCall(TaoLBFGSBSetLineSearchTolerances(tao, ftol, gtol, xtol));
  PetscCall(PetscOptionsEnum("-tao_lbfgsb_cauchy_scan", "breakpoint scan of the exact Cauchy point: device (sorted prefix sums, parallel search) or host (reference recurrences)", "TaoLBFGSBSetCauchyScanType", TaoLBFGSBCauchyScanTypes, (PetscEnum)scan, (PetscEnum *)&scan, &flg));
  if (flg) PetscCall(TaoLBFGSBSetCauchyScanType(tao, scan));
  PetscCall(PetscOptionsEnum("-tao_lbfgsb_gnorm", "norm of the projected step P(x - g) - x in TAO's convergence test and monitors: inf (L-BFGS-B's pgtol) or 2 (as TAO BLMVM's projected gradient)", "TaoLBFGSBSetGNormType", TaoLBFGSBGNormTypes, (PetscEnum)gnorm, (PetscEnum *)&gnorm, &flg));
  if (flg) PetscCall(TaoLBFGSBSetGNormType(tao, gnorm));
  PetscCall(PetscOptionsEnum("-tao_lbfgsb_gram", "masked Gram blocks of the subspace step: incremental (kept across iterations, corrected for the variables entering or leaving the free set, as the reference formk) or full (recomputed every iteration)", "TaoLBFGSBSetGramType", TaoLBFGSBGramTypes, (PetscEnum)gram, (PetscEnum *)&gram, &flg));
  if (flg) PetscCall(TaoLBFGSBSetGramType(tao, gram));
  PetscCall(PetscOptionsInt("-tao_lbfgsb_chunk", "breakpoints in the first chunk of the exact Cauchy scan (>= 1, 8x larger each round)", "TaoLBFGSBSetChunk", chunk, &chunk, &flg));
  if (flg) PetscCall(TaoLBFGSBSetChunk(tao, chunk));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TaoView_LBFGSB(Tao tao, PetscViewer viewer)
{
  TAO_LBFGSB *lb = (TAO_LBFGSB *)tao->data;
  PetscBool   isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "L-BFGS-B 3.0 on the device (Kokkos %s): memory m = %" PetscInt_FMT ", %s Cauchy point\n", Kokkos::DefaultExecutionSpace::name(), lb->m, LBFGSBEnumName(TaoLBFGSBCauchyTypes, (int)lb->cauchy)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "factr = %g (relative f tolerance %g), projected-gradient test: TAO gatol/grtol/gttol on ||P(x - g) - x||_%s\n", (double)lb->factr, (double)(lb->factr * PETSC_MACHINE_EPSILON), LBFGSBEnumName(TaoLBFGSBGNormTypes, (int)lb->gnorm)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "More-Thuente line search: ftol = %g, gtol = %g, xtol = %g, at most %" PetscInt_FMT " evaluations\n", (double)lb->ls_ftol, (double)lb->ls_gtol, (double)lb->ls_xtol, lb->maxls));
  PetscCall(PetscViewerASCIIPrintf(viewer, "breakpoint scan on the %s (%s), first chunk of %" PetscInt_FMT " breakpoints, 8x larger each round\n", LBFGSBEnumName(TaoLBFGSBCauchyScanTypes, (int)lb->scan), lb->scan == TAO_LBFGSB_CAUCHY_SCAN_DEVICE ? "sorted prefix sums, parallel segment search" : "reference recurrences", lb->chunk));
  PetscCall(PetscViewerASCIIPrintf(viewer, "statistics: %" PetscInt_FMT " f/g evaluations, %" PetscInt_FMT " skipped updates, %" PetscInt_FMT " memory resets, %" PetscInt_FMT " line-search failures, %" PetscInt_FMT " trial steps with NaN or Inf\n", lb->nfgv, lb->nskip, lb->nreset, lb->nlsfail, lb->nnonfinite));
  PetscCall(PetscViewerASCIIPrintf(viewer, "Cauchy points past the first breakpoint: %" PetscInt_FMT " (breakpoints passed %" PetscInt_FMT ", truncated by the approximation %" PetscInt_FMT ")\n", lb->nbreakscan, lb->nbreakpassed, lb->ntruncated));
  PetscCall(PetscViewerASCIIPrintf(viewer, "subspace steps: %" PetscInt_FMT " projected, %" PetscInt_FMT " backtracked\n", lb->nprojected, lb->nbacktrack));
  PetscCall(PetscViewerASCIIPrintf(viewer, "Gram blocks of the subspace step: %s (%" PetscInt_FMT " free-set changes)\n", LBFGSBEnumName(TaoLBFGSBGramTypes, (int)lb->gram), lb->ngramchanged));
  PetscCall(PetscViewerASCIIPrintf(viewer, "termination: %s\n", lb->termination));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *const LBFGSBComposed[] = {"TaoLBFGSBSetMemory_C", "TaoLBFGSBGetMemory_C", "TaoLBFGSBSetCauchyType_C", "TaoLBFGSBGetCauchyType_C", "TaoLBFGSBSetFactr_C", "TaoLBFGSBGetFactr_C", "TaoLBFGSBSetMaxLS_C", "TaoLBFGSBGetMaxLS_C", "TaoLBFGSBSetLineSearchTolerances_C", "TaoLBFGSBGetLineSearchTolerances_C", "TaoLBFGSBSetCauchyScanType_C", "TaoLBFGSBGetCauchyScanType_C", "TaoLBFGSBSetGNormType_C", "TaoLBFGSBGetGNormType_C", "TaoLBFGSBSetGramType_C", "TaoLBFGSBGetGramType_C", "TaoLBFGSBSetChunk_C", "TaoLBFGSBGetChunk_C"};

static PetscErrorCode TaoDestroy_LBFGSB(Tao tao)
{
  PetscFunctionBegin;
  PetscCall(TaoLBFGSBFreeWork((TAO_LBFGSB *)tao->data));
  for (const char *name : LBFGSBComposed) PetscCall(PetscObjectComposeFunction((PetscObject)tao, name, NULL));
  PetscCall(TypeDataDestroy<TAO_LBFGSB>(&tao->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  TAOLBFGSB - "lbfgsb": limited-memory BFGS for bound-constrained minimisation, L-BFGS-B 3.0 semantics
  (Byrd, Lu, Nocedal, Zhu 1995; Morales, Nocedal 2011) with all n-length work on the device as in Fei, Rong, Wang,
  Wang, "Parallel L-BFGS-B algorithm on GPU" (2014).

  Options Database Keys:
+ -tao_lbfgsb_m <10>                        - number of stored correction pairs, 1 to 64 (scipy's default 10)
. -tao_lbfgsb_cauchy <exact,approximate>    - the exact generalised Cauchy point (default), or the paper's first-segment
                                              approximation (blocking variables are put on their bounds)
. -tao_lbfgsb_factr <1e7>                   - stop when the relative decrease of f is at most factr * machine epsilon
                                              (factr >= 0; 0 disables the test)
. -tao_lbfgsb_maxls <20>                    - most function evaluations per line search (>= 1)
. -tao_lbfgsb_ls_ftol <1e-3>                - sufficient-decrease constant of the More-Thuente line search (0 < ftol < gtol)
. -tao_lbfgsb_ls_gtol <0.9>                 - its curvature constant (ftol < gtol < 1)
. -tao_lbfgsb_ls_xtol <0.1>                 - its relative interval-width tolerance (>= 0)
. -tao_lbfgsb_gnorm <inf,2>                 - the norm of P(x - g) - x in TAO's tests and monitors: inf (L-BFGS-B's pgtol,
                                              default) or 2 (the norm TAO BLMVM uses, for comparisons with one tolerance)
. -tao_lbfgsb_cauchy_scan <device,host>     - the breakpoint scan past the first breakpoint: on the device by sorting
                                              and prefix sums (default), or on the host with the reference recurrences
. -tao_lbfgsb_gram <incremental,full>       - the masked Gram blocks of the subspace step: kept across iterations and
                                              corrected for the variables entering or leaving the free set, as the
                                              reference formk (default), or recomputed over all variables
- -tao_lbfgsb_chunk <4096>                  - breakpoints in the first round of the Cauchy scan (>= 1, 8x larger each round)

  Level: beginner

  Notes:
  Each iteration: projected gradient; generalised Cauchy point along the projected steepest-descent path (the
  breakpoints are computed on the device; when the model minimiser lies beyond the first breakpoint the breakpoints
  are selected in increasing order by threshold compaction, chunk by chunk (the chunk ends cut from histograms of the
  breakpoint times, so that the n breakpoints are never sorted), gathered across MPI
  ranks and sorted in the global order (t, global index); the rank-one updates of W^T d, W^T (x(t) - x) and
  ||d||^2 are prefix-summed on the device, every segment's f' and f'' evaluated independently and the first segment
  holding the minimiser found by a min-index reduction, so that every rank count gives the same Cauchy point);
  direct primal subspace minimisation with the 2m x 2m matrix K (its masked Gram blocks kept across iterations: each
  update appends one row, computed with S^T s and Y^T s in one pass over the stored pairs, and the variables that
  entered or left the free set are compacted and their products added or removed, one MPI reduction each;
  O(m^3) factorisations on the host; every product with W and every combination of the stored pairs is one fused
  pass over them); the projected step with the backtracking fallback of version 3.0; the More-Thuente
  line search; the update skipped when s^T y <= eps (-g^T s).

  The residual passed to the TAO monitors and convergence test is the infinity norm of the projected gradient, so
  -tao_gatol is L-BFGS-B's pgtol. The relative f test (factr) ends with `TAO_CONVERGED_USER`; `TaoView()` names the
  test that ended the solve. Bounds come from `TaoSetVariableBounds()`; entries at or beyond +-`PETSC_INFINITY`
  mean no bound. An infeasible initial point is projected onto the bounds.

  Inputs the method cannot use are errors that name the first offending global index: a NaN bound, a lower bound of
  +infinity or an upper bound of -infinity, a lower bound above the upper bound, a NaN or infinite entry of the initial
  point, and a NaN or infinite objective or gradient at the initial point. A trial step of the line search with a
  NaN or infinite objective or gradient is backtracked (the search restarts with its largest step halfway back to the
  best step so far); when that does not recover within -tao_lbfgsb_maxls evaluations from steepest descent, the
  solve stops with `TAO_DIVERGED_NAN` and returns the last accepted iterate.

.seealso: `TaoCreate()`, `TAOBLMVM`, `TAOBQNLS`, `TaoLBFGSBSetMemory()`, `TaoLBFGSBSetCauchyType()`, `TaoLBFGSBSetFactr()`,
          `TaoLBFGSBSetMaxLS()`, `TaoLBFGSBSetLineSearchTolerances()`, `TaoLBFGSBSetCauchyScanType()`, `TaoLBFGSBSetGNormType()`,
          `TaoLBFGSBSetGramType()`, `TaoLBFGSBSetChunk()`
M*/
PETSC_INTERN PetscErrorCode TaoCreate_LBFGSB(Tao tao)
{
  TAO_LBFGSB *lb;

  PetscFunctionBegin;
  PetscCall(KokkosInitializeOnce());
  PetscCall(TypeDataCreate(&tao->data, &lb));

  tao->ops->setup          = TaoSetUp_LBFGSB;
  tao->ops->solve          = TaoSolve_LBFGSB;
  tao->ops->view           = TaoView_LBFGSB;
  tao->ops->setfromoptions = TaoSetFromOptions_LBFGSB;
  tao->ops->destroy        = TaoDestroy_LBFGSB;
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBSetMemory_C", TaoLBFGSBSetMemory_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBGetMemory_C", TaoLBFGSBGetMemory_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBSetCauchyType_C", TaoLBFGSBSetCauchyType_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBGetCauchyType_C", TaoLBFGSBGetCauchyType_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBSetFactr_C", TaoLBFGSBSetFactr_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBGetFactr_C", TaoLBFGSBGetFactr_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBSetMaxLS_C", TaoLBFGSBSetMaxLS_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBGetMaxLS_C", TaoLBFGSBGetMaxLS_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBSetLineSearchTolerances_C", TaoLBFGSBSetLineSearchTolerances_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBGetLineSearchTolerances_C", TaoLBFGSBGetLineSearchTolerances_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBSetCauchyScanType_C", TaoLBFGSBSetCauchyScanType_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBGetCauchyScanType_C", TaoLBFGSBGetCauchyScanType_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBSetGNormType_C", TaoLBFGSBSetGNormType_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBGetGNormType_C", TaoLBFGSBGetGNormType_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBSetGramType_C", TaoLBFGSBSetGramType_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBGetGramType_C", TaoLBFGSBGetGramType_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBSetChunk_C", TaoLBFGSBSetChunk_LBFGSB));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoLBFGSBGetChunk_C", TaoLBFGSBGetChunk_LBFGSB));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBSetMemory - sets the number of correction pairs kept by `TAOLBFGSB`

  Logically Collective

  Input Parameters:
+ tao - the `Tao` solver
- m   - number of pairs, 1 to 64 (default 10)

  Options Database Key:
. -tao_lbfgsb_m <m> - the number of pairs

  Level: intermediate

  Note:
  The work vectors are sized by m: a new value after `TaoSetUp()` or `TaoSolve()` frees them, and the next
  `TaoSolve()` sets the solver up again.

.seealso: `TAOLBFGSB`, `TaoLBFGSBGetMemory()`, `TaoLBFGSBSetCauchyType()`
@*/
PetscErrorCode TaoLBFGSBSetMemory(Tao tao, PetscInt m)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscValidLogicalCollectiveInt(tao, m, 2);
  PetscTryMethod(tao, "TaoLBFGSBSetMemory_C", (Tao, PetscInt), (tao, m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBGetMemory - gets the number of correction pairs kept by `TAOLBFGSB`

  Not Collective

  Input Parameter:
. tao - the `Tao` solver

  Output Parameter:
. m - the number of pairs

  Level: intermediate

.seealso: `TAOLBFGSB`, `TaoLBFGSBSetMemory()`
@*/
PetscErrorCode TaoLBFGSBGetMemory(Tao tao, PetscInt *m)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscKPAssertPointer(m, 2);
  PetscUseMethod(tao, "TaoLBFGSBGetMemory_C", (Tao, PetscInt *), (tao, m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBSetCauchyType - chooses the exact generalised Cauchy point of L-BFGS-B 3.0 or the first-segment
  approximation of Fei et al. (2014) in `TAOLBFGSB`

  Logically Collective

  Input Parameters:
+ tao  - the `Tao` solver
- type - `TAO_LBFGSB_CAUCHY_EXACT` (default) or `TAO_LBFGSB_CAUCHY_APPROXIMATE`

  Options Database Key:
. -tao_lbfgsb_cauchy <exact,approximate> - the type

  Level: intermediate

.seealso: `TAOLBFGSB`, `TaoLBFGSBCauchyType`, `TaoLBFGSBGetCauchyType()`, `TaoLBFGSBSetMemory()`
@*/
PetscErrorCode TaoLBFGSBSetCauchyType(Tao tao, TaoLBFGSBCauchyType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(tao, type, 2);
  PetscTryMethod(tao, "TaoLBFGSBSetCauchyType_C", (Tao, TaoLBFGSBCauchyType), (tao, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBGetCauchyType - gets the kind of generalised Cauchy point `TAOLBFGSB` computes

  Not Collective

  Input Parameter:
. tao - the `Tao` solver

  Output Parameter:
. type - `TAO_LBFGSB_CAUCHY_EXACT` or `TAO_LBFGSB_CAUCHY_APPROXIMATE`

  Level: intermediate

.seealso: `TAOLBFGSB`, `TaoLBFGSBCauchyType`, `TaoLBFGSBSetCauchyType()`
@*/
PetscErrorCode TaoLBFGSBGetCauchyType(Tao tao, TaoLBFGSBCauchyType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscKPAssertPointer(type, 2);
  PetscUseMethod(tao, "TaoLBFGSBGetCauchyType_C", (Tao, TaoLBFGSBCauchyType *), (tao, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBSetFactr - sets the relative function-decrease tolerance of `TAOLBFGSB`: the solve stops with
  `TAO_CONVERGED_USER` when (f_k - f_{k+1}) / max(|f_k|, |f_{k+1}|, 1) <= factr * machine epsilon; an iteration whose
  line search did not decrease f at all stops with `TAO_DIVERGED_LS_FAILURE` instead (L-BFGS-B 3.0 reports it as this
  convergence)

  Logically Collective

  Input Parameters:
+ tao   - the `Tao` solver
- factr - the factor, finite and >= 0 (default 1e7, as L-BFGS-B and scipy; 0 disables the test)

  Options Database Key:
. -tao_lbfgsb_factr <factr> - the factor

  Level: intermediate

.seealso: `TAOLBFGSB`, `TaoLBFGSBGetFactr()`
@*/
PetscErrorCode TaoLBFGSBSetFactr(Tao tao, PetscReal factr)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscValidLogicalCollectiveReal(tao, factr, 2);
  PetscTryMethod(tao, "TaoLBFGSBSetFactr_C", (Tao, PetscReal), (tao, factr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBGetFactr - gets the relative function-decrease tolerance factor of `TAOLBFGSB`

  Not Collective

  Input Parameter:
. tao - the `Tao` solver

  Output Parameter:
. factr - the factor

  Level: intermediate

.seealso: `TAOLBFGSB`, `TaoLBFGSBSetFactr()`
@*/
PetscErrorCode TaoLBFGSBGetFactr(Tao tao, PetscReal *factr)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscKPAssertPointer(factr, 2);
  PetscUseMethod(tao, "TaoLBFGSBGetFactr_C", (Tao, PetscReal *), (tao, factr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBSetMaxLS - sets the largest number of function evaluations of one line search of `TAOLBFGSB`

  Logically Collective

  Input Parameters:
+ tao   - the `Tao` solver
- maxls - the number, >= 1 (default 20, as scipy)

  Options Database Key:
. -tao_lbfgsb_maxls <maxls> - the number

  Level: intermediate

  Note:
  A line search that reaches the limit restores the last accepted iterate and restarts from steepest descent; from
  steepest descent the solve stops with `TAO_DIVERGED_LS_FAILURE` (or `TAO_DIVERGED_NAN` when the last trial step
  had a NaN or infinite objective or gradient).

.seealso: `TAOLBFGSB`, `TaoLBFGSBGetMaxLS()`, `TaoLBFGSBSetLineSearchTolerances()`
@*/
PetscErrorCode TaoLBFGSBSetMaxLS(Tao tao, PetscInt maxls)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscValidLogicalCollectiveInt(tao, maxls, 2);
  PetscTryMethod(tao, "TaoLBFGSBSetMaxLS_C", (Tao, PetscInt), (tao, maxls));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBGetMaxLS - gets the largest number of function evaluations of one line search of `TAOLBFGSB`

  Not Collective

  Input Parameter:
. tao - the `Tao` solver

  Output Parameter:
. maxls - the number

  Level: intermediate

.seealso: `TAOLBFGSB`, `TaoLBFGSBSetMaxLS()`
@*/
PetscErrorCode TaoLBFGSBGetMaxLS(Tao tao, PetscInt *maxls)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscKPAssertPointer(maxls, 2);
  PetscUseMethod(tao, "TaoLBFGSBGetMaxLS_C", (Tao, PetscInt *), (tao, maxls));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBSetLineSearchTolerances - sets the constants of the More-Thuente line search of `TAOLBFGSB`

  Logically Collective

  Input Parameters:
+ tao  - the `Tao` solver
. ftol - the sufficient-decrease constant: f(stp) <= f(0) + ftol stp f'(0) (default 1e-3)
. gtol - the curvature constant: |f'(stp)| <= gtol |f'(0)| (default 0.9)
- xtol - the relative width of the interval of uncertainty at which the search stops (default 0.1)

  Options Database Keys:
+ -tao_lbfgsb_ls_ftol <ftol> - the sufficient-decrease constant
. -tao_lbfgsb_ls_gtol <gtol> - the curvature constant
- -tao_lbfgsb_ls_xtol <xtol> - the interval-width tolerance

  Level: advanced

  Note:
  The values must be finite with 0 < ftol < gtol < 1, so that the search (More and Thuente, "Line search algorithms
  with guaranteed sufficient decrease", ACM TOMS 20, 1994; MINPACK-2 dcsrch) ends at a step satisfying both
  conditions, and xtol >= 0 (dcsrch's requirement). The defaults are those of L-BFGS-B 3.0.

.seealso: `TAOLBFGSB`, `TaoLBFGSBGetLineSearchTolerances()`, `TaoLBFGSBSetMaxLS()`
@*/
PetscErrorCode TaoLBFGSBSetLineSearchTolerances(Tao tao, PetscReal ftol, PetscReal gtol, PetscReal xtol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscValidLogicalCollectiveReal(tao, ftol, 2);
  PetscValidLogicalCollectiveReal(tao, gtol, 3);
  PetscValidLogicalCollectiveReal(tao, xtol, 4);
  PetscTryMethod(tao, "TaoLBFGSBSetLineSearchTolerances_C", (Tao, PetscReal, PetscReal, PetscReal), (tao, ftol, gtol, xtol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBGetLineSearchTolerances - gets the constants of the More-Thuente line search of `TAOLBFGSB`

  Not Collective

  Input Parameter:
. tao - the `Tao` solver

  Output Parameters:
+ ftol - the sufficient-decrease constant (or `NULL`)
. gtol - the curvature constant (or `NULL`)
- xtol - the interval-width tolerance (or `NULL`)

  Level: advanced

.seealso: `TAOLBFGSB`, `TaoLBFGSBSetLineSearchTolerances()`
@*/
PetscErrorCode TaoLBFGSBGetLineSearchTolerances(Tao tao, PetscReal *ftol, PetscReal *gtol, PetscReal *xtol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscUseMethod(tao, "TaoLBFGSBGetLineSearchTolerances_C", (Tao, PetscReal *, PetscReal *, PetscReal *), (tao, ftol, gtol, xtol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBSetCauchyScanType - chooses where `TAOLBFGSB` scans the breakpoints of the exact generalised Cauchy point
  past the first one

  Logically Collective

  Input Parameters:
+ tao  - the `Tao` solver
- type - `TAO_LBFGSB_CAUCHY_SCAN_DEVICE` (default) or `TAO_LBFGSB_CAUCHY_SCAN_HOST`

  Options Database Key:
. -tao_lbfgsb_cauchy_scan <device,host> - the scan

  Level: advanced

.seealso: `TAOLBFGSB`, `TaoLBFGSBCauchyScanType`, `TaoLBFGSBGetCauchyScanType()`, `TaoLBFGSBSetChunk()`
@*/
PetscErrorCode TaoLBFGSBSetCauchyScanType(Tao tao, TaoLBFGSBCauchyScanType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(tao, type, 2);
  PetscTryMethod(tao, "TaoLBFGSBSetCauchyScanType_C", (Tao, TaoLBFGSBCauchyScanType), (tao, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBGetCauchyScanType - gets where `TAOLBFGSB` scans the breakpoints of the exact generalised Cauchy point

  Not Collective

  Input Parameter:
. tao - the `Tao` solver

  Output Parameter:
. type - `TAO_LBFGSB_CAUCHY_SCAN_DEVICE` or `TAO_LBFGSB_CAUCHY_SCAN_HOST`

  Level: advanced

.seealso: `TAOLBFGSB`, `TaoLBFGSBCauchyScanType`, `TaoLBFGSBSetCauchyScanType()`
@*/
PetscErrorCode TaoLBFGSBGetCauchyScanType(Tao tao, TaoLBFGSBCauchyScanType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscKPAssertPointer(type, 2);
  PetscUseMethod(tao, "TaoLBFGSBGetCauchyScanType_C", (Tao, TaoLBFGSBCauchyScanType *), (tao, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBSetGNormType - chooses the norm of the projected step P(x - g) - x that `TAOLBFGSB` gives to TAO's
  convergence test and monitors

  Logically Collective

  Input Parameters:
+ tao  - the `Tao` solver
- type - `TAO_LBFGSB_GNORM_INF` (default: L-BFGS-B's pgtol test) or `TAO_LBFGSB_GNORM_2` (the norm of `TAOBLMVM`)

  Options Database Key:
. -tao_lbfgsb_gnorm <inf,2> - the norm

  Level: intermediate

.seealso: `TAOLBFGSB`, `TaoLBFGSBGNormType`, `TaoLBFGSBGetGNormType()`, `TaoSetTolerances()`
@*/
PetscErrorCode TaoLBFGSBSetGNormType(Tao tao, TaoLBFGSBGNormType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(tao, type, 2);
  PetscTryMethod(tao, "TaoLBFGSBSetGNormType_C", (Tao, TaoLBFGSBGNormType), (tao, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBGetGNormType - gets the norm of the projected step that `TAOLBFGSB` gives to TAO's tests and monitors

  Not Collective

  Input Parameter:
. tao - the `Tao` solver

  Output Parameter:
. type - `TAO_LBFGSB_GNORM_INF` or `TAO_LBFGSB_GNORM_2`

  Level: intermediate

.seealso: `TAOLBFGSB`, `TaoLBFGSBGNormType`, `TaoLBFGSBSetGNormType()`
@*/
PetscErrorCode TaoLBFGSBGetGNormType(Tao tao, TaoLBFGSBGNormType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscKPAssertPointer(type, 2);
  PetscUseMethod(tao, "TaoLBFGSBGetGNormType_C", (Tao, TaoLBFGSBGNormType *), (tao, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBSetGramType - chooses how `TAOLBFGSB` forms the masked Gram blocks of its subspace step

  Logically Collective

  Input Parameters:
+ tao  - the `Tao` solver
- type - `TAO_LBFGSB_GRAM_INCREMENTAL` (default: kept across iterations and corrected for the variables entering or
         leaving the free set, as the reference formk) or `TAO_LBFGSB_GRAM_FULL` (recomputed every iteration)

  Options Database Key:
. -tao_lbfgsb_gram <incremental,full> - the construction

  Level: advanced

.seealso: `TAOLBFGSB`, `TaoLBFGSBGramType`, `TaoLBFGSBGetGramType()`
@*/
PetscErrorCode TaoLBFGSBSetGramType(Tao tao, TaoLBFGSBGramType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(tao, type, 2);
  PetscTryMethod(tao, "TaoLBFGSBSetGramType_C", (Tao, TaoLBFGSBGramType), (tao, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBGetGramType - gets how `TAOLBFGSB` forms the masked Gram blocks of its subspace step

  Not Collective

  Input Parameter:
. tao - the `Tao` solver

  Output Parameter:
. type - `TAO_LBFGSB_GRAM_INCREMENTAL` or `TAO_LBFGSB_GRAM_FULL`

  Level: advanced

.seealso: `TAOLBFGSB`, `TaoLBFGSBGramType`, `TaoLBFGSBSetGramType()`
@*/
PetscErrorCode TaoLBFGSBGetGramType(Tao tao, TaoLBFGSBGramType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscKPAssertPointer(type, 2);
  PetscUseMethod(tao, "TaoLBFGSBGetGramType_C", (Tao, TaoLBFGSBGramType *), (tao, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBSetChunk - sets the number of breakpoints in the first round of the exact Cauchy-point scan of `TAOLBFGSB`
  (each further round takes 8x more)

  Logically Collective

  Input Parameters:
+ tao   - the `Tao` solver
- chunk - the number, >= 1 (default 4096)

  Options Database Key:
. -tao_lbfgsb_chunk <chunk> - the number

  Level: advanced

  Note:
  The chunk size changes the work per round, not the Cauchy point. On a GPU a round costs about ten kernel launches
  and two reads by the host whatever its size up to some 10^4 breakpoints, so that large chunks and a fast growth
  (few rounds) are cheapest; most Cauchy points that pass the first breakpoint need one round.

.seealso: `TAOLBFGSB`, `TaoLBFGSBGetChunk()`, `TaoLBFGSBSetCauchyScanType()`
@*/
PetscErrorCode TaoLBFGSBSetChunk(Tao tao, PetscInt chunk)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscValidLogicalCollectiveInt(tao, chunk, 2);
  PetscTryMethod(tao, "TaoLBFGSBSetChunk_C", (Tao, PetscInt), (tao, chunk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  TaoLBFGSBGetChunk - gets the number of breakpoints in the first round of the exact Cauchy-point scan of `TAOLBFGSB`

  Not Collective

  Input Parameter:
. tao - the `Tao` solver

  Output Parameter:
. chunk - the number

  Level: advanced

.seealso: `TAOLBFGSB`, `TaoLBFGSBSetChunk()`
@*/
PetscErrorCode TaoLBFGSBGetChunk(Tao tao, PetscInt *chunk)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscKPAssertPointer(chunk, 2);
  PetscUseMethod(tao, "TaoLBFGSBGetChunk_C", (Tao, PetscInt *), (tao, chunk));
  PetscFunctionReturn(PETSC_SUCCESS);
}
