/*
   uaamg.cxx - PCUAAMG: the auxiliary-grid unsmoothed-aggregation algebraic multigrid of L. Wang, X. Hu, J. Cohen and
   J. Xu, "A parallel auxiliary grid algebraic multigrid method for graphic processing units", SIAM J. Sci. Comput.
   35(3), 2013 (section numbers below are the paper's).

   Routines: PCSetUp_UAAMG (coordinates, auxiliary grid, aggregation, Galerkin levels, smoothers, coarsest
   factorisation), PCApply_UAAMG (one cycle from zero), PCPreSolve_UAAMG (the K-cycle needs a flexible Krylov
   method), PCReset_UAAMG, PCDestroy_UAAMG, PCSetFromOptions_UAAMG, PCView_UAAMG, PCCreate_UAAMG and the composed
   PCUAAMGSet/Get...() functions. The level hierarchy, the cycles (V, W and the K-cycle of Algorithms 2.1-2.2) and
   the coarsest direct solve are those of the shared multigrid layer (src/sys/kp_mg); the kernels of the auxiliary
   grid, the stencil levels and the coloured smoothers are in uaamg_kernels.
*/
#include "kp_sys.hpp"
#include "kp_blas.hpp"
#include "kp_colour.hpp"
#include "kp_mg.hpp"
#include "kp_segsort.hpp"
#include "petsckp_types.h" /*I "petsckp.h" I*/
#include "uaamg_kernels.hpp"
#include <petscdmda.h>
#include <petscdmplex.h>
#include <algorithm>
#include <cmath>
#include <vector>

using namespace petsckp;
namespace ua = petsckp::uaamg;

const char *const PCUAAMGCycleTypes[]    = {"k", "v", "w", "PCUAAMGCycleType", "PC_UAAMG_CYCLE_", nullptr};
const char *const PCUAAMGDepthRules[]    = {"target", "paper", "PCUAAMGDepthRule", "PC_UAAMG_DEPTH_", nullptr};
const char *const PCUAAMGSmootherTypes[] = {"gs", "block_gs", "jacobi", "chebyshev", "PCUAAMGSmootherType", "PC_UAAMG_SMOOTHER_", nullptr};
const char *const PCUAAMGCoarseFormats[] = {"stencil", "csr", "PCUAAMGCoarseFormat", "PC_UAAMG_FORMAT_", nullptr};

/* the option name with the PC's prefix, for error messages: "-" prefix "pc_uaamg_" name */
struct UAAMGOptionName {
  char text[256];
  UAAMGOptionName(PC pc, const char *name)
  {
    const char *pre = ((PetscObject)pc)->prefix ? ((PetscObject)pc)->prefix : "";
    (void)PetscSNPrintf(text, sizeof(text), "-%spc_uaamg_%s", pre, name);
  }
};
#define UAAMG_OPT(pc, name) (UAAMGOptionName(pc, name).text)

static const char *UAAMGEnumName(const char *const *table, PetscInt n, PetscInt value)
{
  return value >= 0 && value < n ? table[value] : "unknown";
}

enum class LevelKind {
  Fine,    /* the user's operator (device CSR of the layer) */
  Stencil, /* a tree level in stencil storage (one process) */
  Csr      /* a tree level of nonempty aggregates as CSR (the layer's Galerkin products) */
};

/* one level of the hierarchy beyond what the shared layer holds (MGHierarchy::levels[l]) */
struct UAAMGLevel {
  LevelKind          kind = LevelKind::Fine;
  ua::StencilGrid    grid;       /* Fine: the level-L grid of its blocks; Stencil and Csr: the tree grid of its cells */
  ua::StencilMatrix  S;          /* Stencil levels */
  View<Int>          cellof;     /* Csr levels: the cell (of grid) of every local aggregate */
  ColourPartition    colours;    /* Csr levels: local rows by colour */
  std::vector<Int>   colourids;  /* Csr levels: colours present on some process, ascending */
  View<std::uint64_t> keys;      /* Csr levels of the adaptive tree: the tree key of every local aggregate */
  PetscInt           dmin = 0, dmax = 0; /* Csr levels of the adaptive tree: depths of its aggregates (global) */
  PetscInt           ncolours = 0; /* Csr levels of the adaptive tree: colours of the graph colouring (global) */
  Vec                dinv = nullptr, d = nullptr; /* Jacobi / Chebyshev: inverse diagonal, Chebyshev direction */
  PetscReal          lmax = 0;   /* Chebyshev: estimate of the largest eigenvalue of D^-1 A */
  PetscInt           rows = 0, nnz = 0; /* global, for the view */
};

enum class CoordSource {
  None,
  User,
  DMDACoordinates,
  DMDAIndices,
  PlexVertices,
  PlexCentroids
};
static const char *CoordSourceName(CoordSource s)
{
  switch (s) {
  case CoordSource::User:
    return "PCSetCoordinates()";
  case CoordSource::DMDACoordinates:
    return "the DMDA's coordinates";
  case CoordSource::DMDAIndices:
    return "the DMDA's grid indices (it has no coordinates)";
  case CoordSource::PlexVertices:
    return "the DMPlex's vertex coordinates";
  case CoordSource::PlexCentroids:
    return "the DMPlex's cell centroids";
  default:
    return "none";
  }
}

struct PC_UAAMG {
  /* parameters */
  PCUAAMGCycleType    cycle         = PC_UAAMG_CYCLE_K;
  PetscInt            kcycle_its    = 2;   /* n of Algorithm 2.1 */
  PetscReal           kcycle_rtol   = 0.2; /* early exit after the first inner step when ||r_1|| <= t ||r_0|| (0: never) */
  PetscInt            kcycle_min    = PETSC_DETERMINE; /* GCG on coarse levels of at least this many rows, V-cycles below (0: all;
                                                          PETSC_DETERMINE: UAAMGKCycleMinSize()) */
  PetscInt            pre           = 1, post = 1;
  PCUAAMGSmootherType fine_smoother = PC_UAAMG_SMOOTHER_BLOCK_GS;
  PCUAAMGSmootherType smoother      = PC_UAAMG_SMOOTHER_GS;
  PetscReal           omega         = 1.0;
  PetscInt            block_max     = 0; /* 0: 16 in 2D, 32 in 3D */
  PetscInt            coarse_size   = 1024;
  PetscInt            max_levels    = 25;
  PCUAAMGDepthRule    depth_rule    = PC_UAAMG_DEPTH_TARGET;
  PetscReal           agg_size      = 0; /* 0: 2^d */
  PetscInt            fine_agg_max  = PETSC_DETERMINE; /* split level-L cells of more unknowns (PETSC_DETERMINE: 4 x the target; 0: never) */
  PetscInt            nbox          = 0; /* 2 dim entries of box when given */
  PetscReal           box[6]        = {0, 0, 0, 0, 0, 0};
  PCUAAMGCoarseFormat format        = PC_UAAMG_FORMAT_STENCIL;
  PetscBool           device_setup  = PETSC_TRUE; /* CSR levels: device Galerkin products or MatPtAP on the host */
  PetscBool           hybrid        = PETSC_TRUE; /* under MPI: one ghost exchange per Gauss-Seidel sweep, not per colour */
  PetscInt            replicate_size = 50000;     /* under MPI: levels of at most this many rows replicated on every process (0: never) */
  /* coordinates of PCSetCoordinates() (interlaced, copied to the device when given) */
  PetscInt   cdim = 0, cnloc = -1;
  View<Real> ucoords;
  /* b and y of PCApply in vectors of the operator's type, when the Krylov method's are of another (host vectors with a
     GPU operator): the cycle combines them with the levels' vectors in PETSc Vec operations */
  Vec bw = nullptr, yw = nullptr;
  /* setup */
  MGHierarchy             H;
  std::vector<UAAMGLevel> lev;  /* the levels of H */
  std::vector<UAAMGLevel> rlev; /* the replicated levels (H.replicated->T): rlev[0] is H's coarsest level, whole */
  bool                    stencil = false; /* coarse levels in stencil storage */
  CoordSource             source  = CoordSource::None;
  int                     dim     = 0;
  ua::AuxGrid             aux;
  Int                     reach[3] = {0, 0, 0};
  View<Int>               cell; /* level-L cell of every local fine row (-1: in no aggregate) */
  Aggregation             aggfull; /* fine rows -> their aggregates: every cell of the level-L grid (empty ones included)
                                      for the stencil levels, the nonempty cells of this process for the CSR levels, the
                                      leaves of the adaptive tree */
  View<Int>               aggcell; /* CSR levels of the uniform tree: the level-L cell of every fine aggregate */
  ColourPartition         blockcolours;   /* CSR levels: the fine aggregates by colour (the parity of their cells, or the
                                             graph colouring of level 1 on the adaptive tree) */
  std::vector<Int>        blockcolourids; /* CSR levels: the colours of fine aggregates present on some process */
  ua::FineBlocks          B;
  PetscInt                nagg = 0, nempty = 0, nmembers = 0, minsize = 0, maxsize = 0, ndecoupled = 0; /* global */
  PetscInt                nexact = 0, nfailed = 0;                                                      /* global */
  PetscInt                nsplitcoloured = 0; /* CSR levels coloured by the graph colouring because cells split between processes left coupled rows of one parity colour */
  PetscInt                block_used = 0;
  PetscReal               oc = 0, gc = 0;
  /* the adaptive auxiliary tree of the fine level (when some level-L cell was split) */
  bool                    adaptive = false, format_fallback = false;
  ua::TreeKeys            tree;
  View<std::uint64_t>     finekeys;                                 /* tree keys of the local fine aggregates */
  PetscInt                nsplitcells = 0, leafmin = 0, leafmax = 0, smax = 0; /* global; smax: the split threshold used */
  PetscBool               restore_guess_zero = PETSC_FALSE; /* PCPreSolve made the KSP's zero initial guess nonzero */
};

/* the levels of the cycle: those of H (ua->lev), then the replicated ones below H's coarsest level k (ua->rlev[0] is
   level k, whole on every process) */
static PetscInt UAAMGNumLevels(const PC_UAAMG *ua)
{
  return (PetscInt)ua->lev.size() + (ua->rlev.empty() ? 0 : (PetscInt)ua->rlev.size() - 1);
}
static const UAAMGLevel &UAAMGLevelOf(const PC_UAAMG *ua, PetscInt l)
{
  const PetscInt k = (PetscInt)ua->lev.size() - 1;
  return ua->rlev.empty() || l < k ? ua->lev[l] : ua->rlev[l - k];
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* coordinates */

/* the coordinates of the local rows, interlaced, from PCSetCoordinates() or the DM */
/* the coordinates of the nlocal local rows, interlaced, on the device: PCSetCoordinates' copy, a DMDA's coordinate
   vector or grid indices (made on the device), or a DMPlex's vertices or cell centroids (gathered on the host) */
static PetscErrorCode UAAMGGetCoordinates(PC pc, PetscInt nlocal, View<Real> &dc)
{
  PC_UAAMG *ua   = (PC_UAAMG *)pc->data;
  MPI_Comm  comm = PetscObjectComm((PetscObject)pc);
  DM        dm   = pc->dm;
  PetscBool isda = PETSC_FALSE, isplex = PETSC_FALSE, bad;

  PetscFunctionBegin;
  if (ua->cnloc >= 0) {
    bad = ua->cnloc != nlocal ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_BOOL, MPI_LOR, comm));
    PetscCheck(!bad, comm, PETSC_ERR_ARG_SIZ, "PCUAAMG: PCSetCoordinates() gave %" PetscInt_FMT " local points on some process where the operator has %" PetscInt_FMT " local rows; give one point per row (interlaced x0,y0,(z0),x1,...)", ua->cnloc, nlocal);
    ua->dim    = (int)ua->cdim;
    ua->source = CoordSource::User;
    dc         = ua->ucoords;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (dm) PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (dm) PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMPLEX, &isplex));
  PetscCheck(isda || isplex, comm, PETSC_ERR_ARG_WRONGSTATE, "PCUAAMG aggregates the unknowns by their coordinates: call PCSetCoordinates() after PCSetType(pc, PCUAAMG), or give the KSP/PC a DMDA or DMPlex (KSPSetDM(), PCSetDM())%s", dm ? "; the attached DM is of another type" : "");
  if (isda) {
    PetscInt dim, dof, xs, ys, zs, xm, ym, zm;
    Vec      c;
    PetscCall(DMDAGetInfo(dm, &dim, NULL, NULL, NULL, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
    PetscCheck(dof == 1, comm, PETSC_ERR_SUP, "PCUAAMG is for scalar problems: the DMDA has %" PetscInt_FMT " degrees of freedom per point", dof);
    PetscCall(DMDAGetCorners(dm, &xs, &ys, &zs, &xm, &ym, &zm));
    bad = xm * ym * zm != nlocal ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_BOOL, MPI_LOR, comm));
    PetscCheck(!bad, comm, PETSC_ERR_ARG_SIZ, "PCUAAMG: the operator's local rows do not match the DMDA's local points; create the matrix with DMCreateMatrix() of the DMDA given to the KSP/PC, or call PCSetCoordinates()");
    ua->dim = (int)dim;
    PetscCallCXX(dc = View<Real>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg coords")), (size_t)nlocal * dim));
    PetscCall(DMGetCoordinates(dm, &c));
    if (c) {
      DeviceVec cv;
      PetscInt  n;
      PetscCall(VecGetLocalSize(c, &n));
      PetscCheck(n == nlocal * dim, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PCUAAMG: the DMDA's coordinate vector has %" PetscInt_FMT " local entries, not %" PetscInt_FMT, n, nlocal * dim);
      PetscCall(cv.Get(c, Access::Read));
      PetscCallCXX(ua::RealsFromScalars(cv.cview(), UView<Real>(dc.data(), dc.extent(0))));
      PetscCall(cv.Restore());
      ua->source = CoordSource::DMDACoordinates;
    } else {
      const Int start[3] = {(Int)xs, (Int)ys, (Int)zs}, count[3] = {(Int)xm, (Int)ym, (Int)zm};
      PetscCallCXX(ua::GridIndexCoordinates((int)dim, start, count, UView<Real>(dc.data(), dc.extent(0))));
      ua->source = CoordSource::DMDAIndices;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* DMPlex: the point of every unconstrained global DoF, a vertex (P1/Q1) or a cell (finite volumes) */
  {
    PetscSection       gsec, csec;
    Vec                cloc;
    const PetscScalar *ca;
    PetscInt           cdim, pStart, pEnd, vStart, vEnd, cStart, cEnd, rstart, set = 0, other = 0, multi = 0, cells = 0;

    PetscCall(DMGetCoordinateDim(dm, &cdim));
    PetscCall(DMGetGlobalSection(dm, &gsec));
    PetscCall(DMGetCoordinateSection(dm, &csec));
    PetscCall(DMGetCoordinatesLocal(dm, &cloc));
    PetscCheck(cloc, comm, PETSC_ERR_ARG_WRONGSTATE, "PCUAAMG: the DMPlex has no coordinates; call PCSetCoordinates()");
    PetscCall(PetscSectionGetChart(gsec, &pStart, &pEnd));
    PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
    PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
    PetscCall(MatGetOwnershipRange(pc->pmat, &rstart, NULL));
    ua->dim = (int)cdim;
    std::vector<PetscReal> xyz;
    PetscCallCXX(xyz.assign((size_t)nlocal * cdim, NAN));
    PetscCall(VecGetArrayRead(cloc, &ca));
    for (PetscInt p = pStart; p < pEnd; p++) {
      PetscInt dof, cdof, off;
      PetscCall(PetscSectionGetDof(gsec, p, &dof));
      PetscCall(PetscSectionGetConstraintDof(gsec, p, &cdof));
      PetscCall(PetscSectionGetOffset(gsec, p, &off));
      if (dof <= 0 || off < 0 || dof - cdof <= 0) continue; /* not owned, or no unknown here */
      if (dof - cdof > 1) multi++;
      PetscReal x[3] = {0, 0, 0};
      if (p >= vStart && p < vEnd) {
        PetscInt coff;
        PetscCall(PetscSectionGetOffset(csec, p, &coff));
        for (PetscInt a = 0; a < cdim; a++) x[a] = PetscRealPart(ca[coff + a]);
      } else if (p >= cStart && p < cEnd) {
        PetscReal vol;
        PetscCall(DMPlexComputeCellGeometryFVM(dm, p, &vol, x, NULL));
        cells++;
      } else {
        other++;
        continue;
      }
      for (PetscInt k = 0; k < dof - cdof; k++) {
        const PetscInt row = off - rstart + k;
        if (row < 0 || row >= nlocal) continue;
        for (PetscInt a = 0; a < cdim; a++) xyz[(size_t)row * cdim + a] = x[a];
        set++;
      }
    }
    PetscCall(VecRestoreArrayRead(cloc, &ca));
    PetscInt v[3] = {other, multi, set != nlocal ? 1 : 0};
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, v, 3, MPIU_INT, MPI_SUM, comm));
    PetscCheck(!v[0], comm, PETSC_ERR_SUP, "PCUAAMG takes the coordinates of a DMPlex from the vertices (P1/Q1) or cells (finite volumes) that hold the unknowns; %" PetscInt_FMT " unknowns sit on edges or faces (higher-order elements): call PCSetCoordinates() with one point per unknown", v[0]);
    PetscCheck(!v[1], comm, PETSC_ERR_SUP, "PCUAAMG is for scalar problems: %" PetscInt_FMT " mesh points hold several unknowns", v[1]);
    PetscCheck(!v[2], comm, PETSC_ERR_ARG_SIZ, "PCUAAMG: the unknowns of the DMPlex's global section do not match the operator's local rows; call PCSetCoordinates()");
    ua->source = cells ? CoordSource::PlexCentroids : CoordSource::PlexVertices;
    PetscCallCXX(dc = View<Real>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg coords")), xyz.size()));
    PetscCallCXX(Kokkos::deep_copy(exec(), dc, HostUView<const Real>(xyz.data(), xyz.size())));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* smoothers */

static PetscErrorCode FineGhosts(PC_UAAMG *ua, Vec x, DeviceVec &gv)
{
  Vec g;

  PetscFunctionBegin;
  PetscCall(DeviceMatGhostUpdate(ua->H.levels[0].Ad, x, &g));
  if (g) PetscCall(gv.Get(g, Access::Read));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the paper's fine-level smoother: coloured block Gauss-Seidel with the level-L aggregates as blocks; under MPI
   each colour after a ghost exchange (blocks split by the partition are smoothed as independent pieces). The blocks of
   one colour are the cells of that colour of the level-L grid (stencil levels), or the listed aggregates of this
   process (CSR levels: no loop over the cells of the whole grid) */
static PetscErrorCode FineBlockSweeps(PC_UAAMG *ua, Vec b, Vec x, PetscInt nsweeps, bool backward)
{
  MGLevel         &L  = ua->H.levels[0];
  const CsrMatrix &Ad = DeviceMatLocalCsr(L.Ad), &Ao = DeviceMatGhostCsr(L.Ad);
  const bool       listed = !ua->stencil; /* the blocks are the aggregates of this process, coloured by blockcolours */
  const Int        nc = listed ? (Int)ua->blockcolourids.size() : ua->lev[0].grid.ncolours();
  const ua::Sweep  dir = backward ? ua::Sweep::Backward : ua::Sweep::Forward;

  PetscFunctionBegin;
  for (PetscInt s = 0; s < nsweeps; s++) {
    if (!L.Ad->mpi) { /* (not Ao.nrows == 0: a rank without rows still takes part in the ghost exchanges) */
      DeviceVec bv, xv;
      PetscCall(bv.Get(b, Access::Read));
      PetscCall(xv.Get(x, Access::ReadWrite));
      if (listed) PetscCallCXX(ua::FineBlockGaussSeidel(ua->blockcolours, ua->aggfull, ua->B, Ad, Ao, UView<const Scalar>(), dir, ua->omega, bv.cview(), xv.view()));
      else PetscCallCXX(ua::FineBlockGaussSeidel(ua->lev[0].grid, ua->aggfull, ua->B, Ad, Ao, UView<const Scalar>(), dir, ua->omega, bv.cview(), xv.view()));
      PetscCall(xv.Restore());
      PetscCall(bv.Restore());
      continue;
    }
    Vec g = nullptr;
    for (Int cc = -1; cc <= nc; cc++) {
      const bool loose = backward ? cc == nc : cc == -1;
      if (!loose && (cc < 0 || cc >= nc)) continue;
      const Int k = backward ? nc - 1 - cc : cc;
      DeviceVec bv, xv, gv;
      /* the neighbours' values on other processes: before every colour, or (hybrid) held for the whole sweep */
      if (!ua->hybrid || ua->omega > 1 || !g) PetscCall(DeviceMatGhostUpdate(L.Ad, x, &g)); /* (as MGLevelColourSweeps: omega <= 1 only) */
      if (g) PetscCall(gv.Get(g, Access::Read));
      PetscCall(bv.Get(b, Access::Read));
      PetscCall(xv.Get(x, Access::ReadWrite));
      if (loose) PetscCallCXX(ua::FineLooseUpdate(ua->B, Ad, Ao, gv.cview(), ua->omega, bv.cview(), xv.view()));
      else if (listed) PetscCallCXX(ua::FineBlockGaussSeidelColour(ua->blockcolours, ua->aggfull, ua->B, Ad, Ao, gv.cview(), ua->blockcolourids[k], dir, ua->omega, bv.cview(), xv.view()));
      else PetscCallCXX(ua::FineBlockGaussSeidelColour(ua->lev[0].grid, ua->aggfull, ua->B, Ad, Ao, gv.cview(), k, dir, ua->omega, bv.cview(), xv.view()));
      PetscCall(xv.Restore());
      PetscCall(bv.Restore());
      PetscCall(gv.Restore());
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the cycle's operations on the levels lev of the hierarchy H: ua->H with ua->lev, or the replicated levels
   ua->H.replicated->T with ua->rlev */
class UAAMGOps : public MGLevelOps {
public:
  UAAMGOps(PC_UAAMG *ua, MGHierarchy &H, std::vector<UAAMGLevel> &lev) : MGLevelOps(H), ua_(ua), lev_(lev) { }

  PetscErrorCode Smooth(PetscInt l, Vec b, Vec x, PetscInt nsweeps, MGSweepDirection dir, bool zero) override
  {
    UAAMGLevel               &G    = lev_[l];
    const bool                back = dir == MGSweepDirection::Backward;
    const PCUAAMGSmootherType type = lev_[l].kind == LevelKind::Fine ? ua_->fine_smoother : ua_->smoother;

    PetscFunctionBegin;
    if (nsweeps <= 0) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(PetscLogEventBegin(PC_UAAMG_Smooth, 0, 0, 0, 0));
    if (type == PC_UAAMG_SMOOTHER_JACOBI) PetscCall(Jacobi(l, b, x, nsweeps, zero));
    else if (type == PC_UAAMG_SMOOTHER_CHEBYSHEV) PetscCall(Chebyshev(l, b, x, nsweeps, zero));
    else if (G.kind == LevelKind::Fine) PetscCall(FineBlockSweeps(ua_, b, x, nsweeps, back));
    else if (G.kind == LevelKind::Stencil) {
      DeviceVec bv, xv;
      PetscCall(bv.Get(b, Access::Read));
      PetscCall(xv.Get(x, Access::ReadWrite));
      for (PetscInt s = 0; s < nsweeps; s++) PetscCallCXX(ua::StencilGaussSeidel(G.S, back ? ua::Sweep::Backward : ua::Sweep::Forward, ua_->omega, bv.cview(), xv.view()));
      PetscCall(xv.Restore());
      PetscCall(bv.Restore());
    } else PetscCall(MGLevelColourSweeps(Hierarchy(), l, G.colours, G.colourids, nsweeps, ua_->omega, back, b, x, nullptr, nullptr, ua_->hybrid)); /* parity colours of the aggregates' cells */
    PetscCall(PetscLogEventEnd(PC_UAAMG_Smooth, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the first smoothing of a cycle from zero with the zeroing folded into the first kernel of the sweep: the
     coloured Gauss-Seidel of the stencil levels, and the fine block Gauss-Seidel on one process (forward) */
  PetscErrorCode SmoothFromZero(PetscInt l, Vec b, Vec x, PetscInt nsweeps, MGSweepDirection dir) override
  {
    UAAMGLevel               &G    = lev_[l];
    const PCUAAMGSmootherType type = lev_[l].kind == LevelKind::Fine ? ua_->fine_smoother : ua_->smoother;
    const bool                gs   = type == PC_UAAMG_SMOOTHER_GS || type == PC_UAAMG_SMOOTHER_BLOCK_GS;
    const bool                back = dir == MGSweepDirection::Backward;
    const bool fine1 = G.kind == LevelKind::Fine && !Hierarchy().levels[0].Ad->mpi && !back; /* no ghost exchanges between colours */
    DeviceVec  bv, xv;

    PetscFunctionBegin;
    if (nsweeps <= 0 || !gs || !(G.kind == LevelKind::Stencil || fine1)) {
      PetscCall(MGLevelOps::SmoothFromZero(l, b, x, nsweeps, dir));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(PetscLogEventBegin(PC_UAAMG_Smooth, 0, 0, 0, 0));
    PetscCall(bv.Get(b, Access::Read));
    PetscCall(xv.Get(x, Access::Write));
    if (G.kind == LevelKind::Stencil) {
      const ua::Sweep sd = back ? ua::Sweep::Backward : ua::Sweep::Forward;
      PetscCallCXX(ua::StencilGaussSeidelFromZero(G.S, sd, ua_->omega, bv.cview(), xv.view()));
      for (PetscInt s = 1; s < nsweeps; s++) PetscCallCXX(ua::StencilGaussSeidel(G.S, sd, ua_->omega, bv.cview(), xv.view()));
    } else {
      const CsrMatrix &Ad = DeviceMatLocalCsr(Hierarchy().levels[0].Ad);
      if (!ua_->stencil) {
        const ColourPartition &C = ua_->blockcolours;
        PetscCallCXX(ua::FineBlockGaussSeidelFromZero(C, ua_->aggfull, ua_->B, Ad, ua_->omega, bv.cview(), xv.view()));
        for (PetscInt s = 1; s < nsweeps; s++) PetscCallCXX(ua::FineBlockGaussSeidel(C, ua_->aggfull, ua_->B, Ad, CsrMatrix(), UView<const Scalar>(), ua::Sweep::Forward, ua_->omega, bv.cview(), xv.view()));
      } else {
        PetscCallCXX(ua::FineBlockGaussSeidelFromZero(G.grid, ua_->aggfull, ua_->B, Ad, ua_->omega, bv.cview(), xv.view()));
        for (PetscInt s = 1; s < nsweeps; s++) PetscCallCXX(ua::FineBlockGaussSeidel(G.grid, ua_->aggfull, ua_->B, Ad, CsrMatrix(), UView<const Scalar>(), ua::Sweep::Forward, ua_->omega, bv.cview(), xv.view()));
      }
    }
    PetscCall(xv.Restore());
    PetscCall(bv.Restore());
    PetscCall(PetscLogEventEnd(PC_UAAMG_Smooth, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* a small stencil level smoothed by Gauss-Seidel: each half of its cycle in one kernel of one team of threads
     (uaamg_kernels' StencilSmoothRestrictTeam, StencilProlongSmoothTeam: the same values as the kernel per colour).
     On a GPU a level of a few thousand cells takes one multiprocessor a few microseconds per sweep, less than the
     launches of its colours cost; larger levels keep one kernel per colour. */
  static constexpr Int kTeamCells = 4096;
  bool                 TeamLevel(PetscInt l) const
  {
    const UAAMGLevel &G = lev_[l];
    return l > 0 && G.kind == LevelKind::Stencil && ua_->smoother == PC_UAAMG_SMOOTHER_GS && G.grid.ncells() <= kTeamCells;
  }
  PetscErrorCode SmoothResidualRestrict(PetscInt l, Vec b, Vec x, PetscInt nsweeps, bool zero, Vec bc) override
  {
    const UAAMGLevel &G = lev_[l];
    DeviceVec         bv, xv, cv;

    PetscFunctionBegin;
    if (!TeamLevel(l)) {
      PetscCall(MGLevelOps::SmoothResidualRestrict(l, b, x, nsweeps, zero, bc));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(PetscLogEventBegin(PC_UAAMG_Smooth, 0, 0, 0, 0));
    PetscCall(bv.Get(b, Access::Read));
    PetscCall(xv.Get(x, zero ? Access::Write : Access::ReadWrite));
    PetscCall(cv.Get(bc, Access::Write));
    PetscCallCXX(ua::StencilSmoothRestrictTeam(G.S, ua::Sweep::Forward, ua_->omega, nsweeps, zero, bv.cview(), xv.view(), cv.view()));
    PetscCall(cv.Restore());
    PetscCall(xv.Restore());
    PetscCall(bv.Restore());
    PetscCall(PetscLogEventEnd(PC_UAAMG_Smooth, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode ProlongSmooth(PetscInt l, Vec ec, Vec b, Vec x, PetscInt nsweeps) override
  {
    const UAAMGLevel &G = lev_[l];
    DeviceVec         ev, bv, xv;

    PetscFunctionBegin;
    if (!TeamLevel(l)) {
      PetscCall(MGLevelOps::ProlongSmooth(l, ec, b, x, nsweeps));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(PetscLogEventBegin(PC_UAAMG_Smooth, 0, 0, 0, 0));
    PetscCall(ev.Get(ec, Access::Read));
    PetscCall(bv.Get(b, Access::Read));
    PetscCall(xv.Get(x, Access::ReadWrite));
    PetscCallCXX(ua::StencilProlongSmoothTeam(G.S, ev.cview(), ua::Sweep::Backward, ua_->omega, nsweeps, bv.cview(), xv.view()));
    PetscCall(xv.Restore());
    PetscCall(bv.Restore());
    PetscCall(ev.Restore());
    PetscCall(PetscLogEventEnd(PC_UAAMG_Smooth, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the stencil levels' product and the K-cycle's inner products in one kernel */
  PetscErrorCode KCycleMultDots(PetscInt l, Vec p, Vec Ap, Vec r, bool rr, const KCycleScalars &S, PetscInt i) override
  {
    DeviceVec pv, av, rv;

    PetscFunctionBegin;
    if (lev_[l].kind != LevelKind::Stencil) {
      PetscCall(MGLevelOps::KCycleMultDots(l, p, Ap, r, rr, S, i));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(pv.Get(p, Access::Read));
    PetscCall(av.Get(Ap, Access::Write));
    PetscCall(rv.Get(r, Access::Read));
    PetscCallCXX(ua::StencilKCycleMultDots(lev_[l].S, pv.cview(), av.view(), rv.cview(), rr, S, i));
    PetscCall(rv.Restore());
    PetscCall(av.Restore());
    PetscCall(pv.Restore());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the coarsest solve is direct: it does not read x */
  bool CoarseSolveUsesGuess(PetscInt) const override { return false; }
  /* bc = R (b - A x) in one kernel: stencil levels (a parent's children), and levels whose restriction is an
     aggregation (the fine level of the stencil hierarchy, and the device-built CSR levels) */
  PetscErrorCode ResidualRestrict(PetscInt l, Vec b, Vec x, Vec bc) override
  {
    MGLevel           &L   = Hierarchy().levels[l];
    const Aggregation *agg = nullptr;
    DeviceVec          bv, xv, cv;

    PetscFunctionBegin;
    if (lev_[l].kind != LevelKind::Stencil) {
      if (ua_->stencil && lev_[l].kind == LevelKind::Fine) agg = &ua_->aggfull;
      else if (!ua_->stencil && L.aggregated) agg = &L.agg;
      if (!agg || !L.Ad || L.Ad->mpi) { /* the same choice on every process: the default exchanges ghosts */
        PetscCall(MGLevelOps::ResidualRestrict(l, b, x, bc));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
    PetscCall(bv.Get(b, Access::Read));
    PetscCall(xv.Get(x, Access::Read));
    PetscCall(cv.Get(bc, Access::Write));
    if (agg) PetscCallCXX(AggResidualRestrict(*agg, DeviceMatLocalCsr(L.Ad), CsrMatrix(), UView<const Scalar>(), bv.cview(), xv.cview(), cv.view()));
    else PetscCallCXX(ua::StencilResidualRestrict(lev_[l].S, bv.cview(), xv.cview(), cv.view()));
    PetscCall(cv.Restore());
    PetscCall(xv.Restore());
    PetscCall(bv.Restore());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode Mult(PetscInt l, Vec x, Vec y) override
  {
    PetscFunctionBegin;
    if (lev_[l].kind == LevelKind::Stencil) {
      DeviceVec xv, yv;
      PetscCall(xv.Get(x, Access::Read));
      PetscCall(yv.Get(y, Access::Write));
      PetscCallCXX(ua::StencilSpmv(lev_[l].S, 1.0, xv.cview(), 0.0, yv.view()));
      PetscCall(yv.Restore());
      PetscCall(xv.Restore());
    } else PetscCall(MGLevelOps::Mult(l, x, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode Residual(PetscInt l, Vec b, Vec x, Vec r) override
  {
    PetscFunctionBegin;
    if (lev_[l].kind == LevelKind::Stencil) {
      DeviceVec xv, bv, rv;
      PetscCall(xv.Get(x, Access::Read));
      PetscCall(bv.Get(b, Access::Read));
      PetscCall(rv.Get(r, Access::Write));
      PetscCallCXX(ua::StencilResidual(lev_[l].S, bv.cview(), xv.cview(), rv.view()));
      PetscCall(rv.Restore());
      PetscCall(bv.Restore());
      PetscCall(xv.Restore());
    } else PetscCall(MGLevelOps::Residual(l, b, x, r));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode Restrict(PetscInt l, Vec r, Vec bc) override
  {
    PetscFunctionBegin;
    if (ua_->stencil) {
      DeviceVec rv, bv;
      PetscCall(rv.Get(r, Access::Read));
      PetscCall(bv.Get(bc, Access::Write));
      if (l == 0) PetscCallCXX(AggRestrict(ua_->aggfull, rv.cview(), bv.view()));
      else PetscCallCXX(ua::TreeRestrict(lev_[l].grid, rv.cview(), bv.view()));
      PetscCall(bv.Restore());
      PetscCall(rv.Restore());
    } else PetscCall(MGLevelOps::Restrict(l, r, bc));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode ProlongAdd(PetscInt l, Vec ec, Vec x) override
  {
    PetscFunctionBegin;
    if (ua_->stencil) {
      DeviceVec ev, xv;
      PetscCall(ev.Get(ec, Access::Read));
      PetscCall(xv.Get(x, Access::ReadWrite));
      if (l == 0) PetscCallCXX(AggProlong(ua_->aggfull, 1.0, ev.cview(), 1.0, xv.view()));
      else PetscCallCXX(ua::TreeProlong(lev_[l].grid, 1.0, ev.cview(), 1.0, xv.view()));
      PetscCall(xv.Restore());
      PetscCall(ev.Restore());
    } else PetscCall(MGLevelOps::ProlongAdd(l, ec, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* weighted Jacobi, x += omega D^-1 (b - A x) */
  PetscErrorCode Jacobi(PetscInt l, Vec b, Vec x, PetscInt nsweeps, bool zero)
  {
    MGLevel &L = Hierarchy().levels[l];

    PetscFunctionBegin;
    for (PetscInt s = 0; s < nsweeps; s++) {
      if (s == 0 && zero) PetscCall(VecCopy(b, L.r));
      else PetscCall(Residual(l, b, x, L.r));
      PetscCall(VecPointwiseMult(L.w, lev_[l].dinv, L.r));
      PetscCall(VecAXPY(x, ua_->omega, L.w));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* Chebyshev polynomial of degree nsweeps in D^-1 A on [0.1, 1.1] lmax (the three-term recurrence of Saad, Iterative
     Methods for Sparse Linear Systems, Algorithm 12.1): a linear, symmetric smoother */
  PetscErrorCode Chebyshev(PetscInt l, Vec b, Vec x, PetscInt nsweeps, bool zero)
  {
    MGLevel        &L = Hierarchy().levels[l];
    UAAMGLevel     &G = lev_[l];
    const PetscReal lo = 0.1 * G.lmax, hi = 1.1 * G.lmax, theta = 0.5 * (hi + lo), delta = 0.5 * (hi - lo), sigma = theta / delta;
    PetscReal       rho = 1.0 / sigma;

    PetscFunctionBegin;
    if (!(G.lmax > 0)) PetscFunctionReturn(PETSC_SUCCESS); /* a zero operator (empty level) */
    if (zero) PetscCall(VecCopy(b, L.r));
    else PetscCall(Residual(l, b, x, L.r));
    PetscCall(VecPointwiseMult(G.d, G.dinv, L.r));
    PetscCall(VecScale(G.d, 1.0 / theta));
    PetscCall(VecAXPY(x, 1.0, G.d));
    for (PetscInt k = 1; k < nsweeps; k++) {
      const PetscReal rnew = 1.0 / (2.0 * sigma - rho);
      PetscCall(Residual(l, b, x, L.r));
      PetscCall(VecPointwiseMult(L.w, G.dinv, L.r));
      PetscCall(VecAXPBY(G.d, 2.0 * rnew / delta, rnew * rho, L.w)); /* d = rnew rho d + 2 rnew / delta D^-1 r */
      PetscCall(VecAXPY(x, 1.0, G.d));
      rho = rnew;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }

private:
  PC_UAAMG                *ua_;
  std::vector<UAAMGLevel> &lev_;
};

/* ---------------------------------------------------------------------------------------------------------------- */
/* setup */

static PetscErrorCode PCReset_UAAMG(PC pc)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  for (int h = 0; h < 2; h++)
    for (UAAMGLevel &G : h ? ua->rlev : ua->lev) {
      PetscCall(VecDestroy(&G.dinv));
      PetscCall(VecDestroy(&G.d));
    }
  PetscCallCXX(ua->lev.clear());
  PetscCallCXX(ua->rlev.clear());
  PetscCall(VecDestroy(&ua->bw));
  PetscCall(VecDestroy(&ua->yw));
  PetscCall(MGHierarchyReset(ua->H));
  PetscCallCXX(ua->cell = View<Int>());
  PetscCallCXX(ua->aggfull = Aggregation());
  PetscCallCXX(ua->aggcell = View<Int>());
  PetscCallCXX(ua->blockcolours = ColourPartition());
  PetscCallCXX(ua->blockcolourids.clear());
  PetscCallCXX(ua->B = ua::FineBlocks());
  ua->stencil = false;
  ua->source  = CoordSource::None;
  ua->adaptive = ua->format_fallback = false;
  PetscCallCXX(ua->finekeys = View<std::uint64_t>());
  ua->nsplitcells = ua->leafmin = ua->leafmax = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the split threshold s of the adaptive tree: the option, or 4 x the fine aggregate target (16 in 2D, 32 in 3D) */
static PetscInt UAAMGFineAggregateMax(PC_UAAMG *ua)
{
  if (ua->fine_agg_max != PETSC_DETERMINE) return ua->fine_agg_max;
  return (PetscInt)(4 * (ua->agg_size > 0 ? ua->agg_size : (PetscReal)(1 << ua->dim)));
}

/* The adaptive auxiliary tree of the fine level: a level-L cell of more than s coupled unknowns of this process is
   split into its 2^d children, recursively, until every leaf holds at most s unknowns or the depth cap is reached;
   the fine aggregates are the leaves (aggfull, numbered by their tree keys). The paper's uniform tree leaves the
   dense part of a graded mesh with hundreds of unknowns per cell (the fine-level imbalance Wang, Hu, Cohen and Xu
   concede for their shape-regular grid, Sec. 5.2, Table 4). Sets ua->adaptive when some process split a cell;
   otherwise nothing changes. A threshold so small that the leaves do not coarsen is doubled until they do. All on
   the device: cap keys, a radix sort, binary searches for the occupancy of the ancestors, a sort-based compaction of
   the leaf keys. */
static PetscErrorCode UAAMGAdaptiveTree(PC pc, const View<Real> &dc, Int ncoupled)
{
  PC_UAAMG       *ua   = (PC_UAAMG *)pc->data;
  MPI_Comm        comm = PetscObjectComm((PetscObject)pc);
  const Int       n    = ua->H.levels[0].nlocal;
  const PetscInt  s    = UAAMGFineAggregateMax(ua);
  PetscInt        v[2];
  Int             nsplit, rm, m;

  PetscFunctionBegin;
  ua->adaptive = false;
  ua->smax     = s;
  if (s <= 0) PetscFunctionReturn(PETSC_SUCCESS); /* the paper's uniform tree */
  {
    bool can;
    PetscCallCXX(can = ua::TreeKeysSetUp(ua->aux, ua->tree)); /* the same on every process (a global box) */
    if (!can) PetscFunctionReturn(PETSC_SUCCESS);
  }
  View<std::uint64_t> cap, sorted, leaf;
  View<Int>           perm, r, id;
  PetscCallCXX(cap = View<std::uint64_t>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg cap keys")), n));
  PetscCallCXX(sorted = View<std::uint64_t>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg sorted keys")), n));
  PetscCallCXX(perm = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg key perm")), n));
  PetscCallCXX(r = View<Int>("uaamg leaf depth", n));
  PetscCallCXX(id = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg fine aggregate")), n));
  PetscCallCXX(ua::CapKeys(ua->tree, ua->aux, ucv(dc), ucv(ua->cell), uv(cap)));
  PetscCallCXX(KeySortPermutation(ucv(cap), uv(sorted), uv(perm))); /* the ncoupled real keys first, kNoKey last */
  PetscCallCXX(leaf = View<std::uint64_t>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg leaf keys")), n));
  /* a threshold so small that the leaves hold one unknown each would give no coarsening: it is doubled until the
     fine aggregates are fewer than the unknowns */
  for (PetscInt st = s;; st *= 2) {
    PetscCallCXX(nsplit = ua::LeafDepths(ua->tree, UView<const std::uint64_t>(sorted.data(), ncoupled), UView<const Int>(perm.data(), ncoupled), (Int)st, uv(r), &rm));
    v[0] = nsplit;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, v, 1, MPIU_INT, MPI_SUM, comm));
    if (v[0] == 0) PetscFunctionReturn(PETSC_SUCCESS); /* no cell holds more than st unknowns: the uniform tree */
    ua->nsplitcells = v[0];
    ua->smax        = st;
    /* the fine aggregates: the leaves, numbered in key order */
    PetscCallCXX(ua::LeafKeys(ua->tree, ucv(cap), ucv(r), uv(leaf)));
    PetscCallCXX(m = KeyCompact(ucv(leaf), uv(id), &ua->finekeys));
    v[0] = m, v[1] = ncoupled;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, v, 2, MPIU_INT, MPI_SUM, comm));
    if (v[0] < v[1] || st >= 1073741824) break;
    PetscCall(PetscInfo(pc, "adaptive auxiliary tree: leaves of at most %" PetscInt_FMT " unknowns do not coarsen (%" PetscInt_FMT " leaves for %" PetscInt_FMT " unknowns); threshold doubled\n", st, v[0], v[1]));
  }
  PetscCallCXX(AggregationCreate(n, m, ucv(id), ua->aggfull));
  {
    Int dmin, dmax;
    PetscCallCXX(ua::TreeKeyDepths(ua->tree, ucv(ua->finekeys), &dmin, &dmax));
    v[0] = m ? dmin : PETSC_MAX_INT, v[1] = m ? -dmax : PETSC_MAX_INT;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, v, 2, MPIU_INT, MPI_MIN, comm));
    ua->leafmin = v[0], ua->leafmax = -v[1];
  }
  ua->adaptive = true;
  PetscCall(PetscInfo(pc, "adaptive auxiliary tree: %" PetscInt_FMT " cells of more than %" PetscInt_FMT " unknowns split, leaf depths %" PetscInt_FMT "..%" PetscInt_FMT " (level-L grid at depth %d, cap %d)\n", ua->nsplitcells, ua->smax, ua->leafmin, ua->leafmax, ua->tree.L, ua->tree.L + ua->tree.e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the level-L grid: box, depths, cells of the local rows, reach (Sections 3.1 and 4.2) */
static PetscErrorCode UAAMGAuxiliaryGrid(PC pc)
{
  PC_UAAMG              *ua   = (PC_UAAMG *)pc->data;
  MPI_Comm               comm = PetscObjectComm((PetscObject)pc);
  MGLevel               &F    = ua->H.levels[0];
  const CsrMatrix       &Ad = DeviceMatLocalCsr(F.Ad), &Ao = DeviceMatGhostCsr(F.Ad);
  const Int              n  = Ad.nrows;
  View<Real>             dc;
  Real                   lo[3], hi[3], ext[3];
  PetscInt               N, cnt[2];
  Int                    nbadcoord, ndec;

  PetscFunctionBegin;
  PetscCall(UAAMGGetCoordinates(pc, n, dc));
  PetscCheck(ua->dim >= 1 && ua->dim <= 3, comm, PETSC_ERR_ARG_OUTOFRANGE, "PCUAAMG: coordinates of dimension 1, 2 or 3 expected, not %d", ua->dim);
  const int dim = ua->dim;
  /* decoupled rows (e.g. Dirichlet rows kept in the matrix) are in no aggregate */
  View<Int> dec("uaamg decoupled", n);
  PetscCallCXX(ndec = ua::DecoupledRows(Ad, Ao, UView<Int>(dec.data(), n)));
  /* the root box: the hull of the coordinates of the coupled rows, or the user's */
  PetscCallCXX(ua::BoundingBox(dim, ucv(dc), lo, hi));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, lo, 3, MPIU_REAL, MPIU_MIN, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, hi, 3, MPIU_REAL, MPIU_MAX, comm));
  if (ua->nbox) {
    PetscCheck(ua->nbox == 2 * dim, comm, PETSC_ERR_ARG_SIZ, "PCUAAMG: the bounding box (%s) has %" PetscInt_FMT " entries but the coordinates have dimension %d: give xmin,xmax%s", UAAMG_OPT(pc, "bbox"), ua->nbox, dim, dim == 1 ? "" : (dim == 2 ? ",ymin,ymax" : ",ymin,ymax,zmin,zmax"));
    for (int a = 0; a < dim; a++) lo[a] = ua->box[2 * a], hi[a] = ua->box[2 * a + 1];
  }
  for (int a = 0; a < 3; a++) ext[a] = a < dim ? hi[a] - lo[a] : 0;
  cnt[0] = n - ndec, cnt[1] = ndec;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, cnt, 2, MPIU_INT, MPI_SUM, comm));
  N              = cnt[0];
  ua->ndecoupled = cnt[1];
  {
    bool flat = N > 1;
    for (int a = 0; a < dim; a++) flat = flat && ext[a] == 0;
    PetscCheck(!flat, comm, PETSC_ERR_ARG_WRONG, "PCUAAMG: all %" PetscInt_FMT " coupled unknowns are at the same point (%g, %g, %g) of %s%s: the auxiliary grid needs their positions (PCSetCoordinates(), a DMDA or a DMPlex)", N, (double)lo[0], dim > 1 ? (double)lo[1] : 0.0, dim > 2 ? (double)lo[2] : 0.0, ua->nbox ? "the bounding box " : "", ua->nbox ? UAAMG_OPT(pc, "bbox") : CoordSourceName(ua->source));
  }
  ua->aux        = ua::AuxGrid();
  ua->aux.dim    = dim;
  for (int a = 0; a < 3; a++) ua->aux.lo[a] = a < dim ? lo[a] : 0, ua->aux.hi[a] = a < dim ? hi[a] : 0;
  PetscCallCXX(ua::AuxDepths(ua->depth_rule == PC_UAAMG_DEPTH_PAPER ? ua::DepthRule::Paper : ua::DepthRule::Target, dim, (int64_t)N, ext, ua->agg_size > 0 ? ua->agg_size : (Real)(1 << dim), ua->aux.depth));
  /* cells */
  PetscCallCXX(ua->cell = View<Int>("uaamg cell", n));
  PetscCallCXX(nbadcoord = ua::CellIds(ua->aux, ucv(dc), ucv(dec), UView<Int>(ua->cell.data(), n)));
  PetscInt nb = nbadcoord;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nb, 1, MPIU_INT, MPI_SUM, comm));
  PetscCheck(nb == 0, comm, PETSC_ERR_FP, "PCUAAMG: %" PetscInt_FMT " unknowns have a NaN or Inf coordinate (from %s)", nb, CoordSourceName(ua->source));
  /* reach of the operator on the level-L grid, with the cells of the ghost columns under MPI */
  {
    const Int       rzero[3] = {0, 0, 0};
    ua::StencilGrid g0       = ua::StencilGridFromAux(ua->aux, rzero); /* only the cell counts are used */
    Int             r[3] = {0, 0, 0}, r2[3] = {0, 0, 0};
    PetscCallCXX(ua::MeasureReach(g0, ucv(ua->cell), Ad, ucv(ua->cell), r));
    if (F.Ad->mpi) { /* collective: also on a rank without rows */
      Vec       cv, g;
      DeviceVec cvv, gv;
      PetscCall(VecDuplicate(F.r, &cv));
      PetscCall(cvv.Get(cv, Access::Write));
      PetscCallCXX(ColourScalars(ucv(ua->cell), cvv.view()));
      PetscCall(cvv.Restore());
      PetscCall(DeviceMatGhostUpdate(F.Ad, cv, &g));
      PetscCall(gv.Get(g, Access::Read));
      View<Int> gcell("uaamg ghost cells", gv.size());
      PetscCallCXX(ua::IntsFromScalars(gv.cview(), UView<Int>(gcell.data(), gv.size())));
      PetscCall(gv.Restore());
      PetscCall(VecDestroy(&cv));
      PetscCallCXX(ua::MeasureReach(g0, ucv(ua->cell), Ao, ucv(gcell), r2));
    }
    PetscInt rr[3];
    for (int a = 0; a < 3; a++) rr[a] = std::max(r[a], r2[a]);
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, rr, 3, MPIU_INT, MPI_MAX, comm));
    for (int a = 0; a < 3; a++) ua->reach[a] = std::max<Int>((Int)rr[a], a < dim && ua->aux.n(a) > 1 ? 1 : 0);
  }
  PetscCall(UAAMGAdaptiveTree(pc, dc, n - ndec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the host interpolation of a level of aggregates (agg: aggregate of every local row, -1 none; nc local aggregates)
   for the host Galerkin product under MPI */
static PetscErrorCode UAAMGHostInterpolation(MPI_Comm comm, Int nf, const View<Int> &agg, Int nc, Mat *P)
{
  std::vector<Int> a(nf);
  PetscInt         cstart = 0, rstart;

  PetscFunctionBegin;
  if (nf) PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Int>(a.data(), nf), UView<const Int>(agg.data(), nf)));
  PetscCallCXX(exec().fence());
  PetscCallMPI(MPI_Exscan(&nc, &cstart, 1, MPIU_INT, MPI_SUM, comm));
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) cstart = 0;
  PetscCall(MatCreateAIJ(comm, nf, nc, PETSC_DETERMINE, PETSC_DETERMINE, 1, NULL, 0, NULL, P));
  PetscCall(MatGetOwnershipRange(*P, &rstart, NULL));
  for (Int i = 0; i < nf; i++)
    if (a[i] >= 0) PetscCall(MatSetValue(*P, rstart + i, cstart + a[i], 1.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the next coarse level from the aggregates agg (nc of them on this process): R A P of the piecewise-constant P, on the
   device by the aggregation product of the shared multigrid layer (under MPI of A's local and ghost blocks: the
   aggregates never cross processes, so the ghost columns' aggregates are fetched once and no coarse row is sent), or
   by MatPtAP on the host */
static PetscErrorCode UAAMGGalerkinLevel(PC pc, const Aggregation &agg, Int nc)
{
  PC_UAAMG   *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_UAAMG_Galerkin, pc, 0, 0, 0));
  {
    PetscBool bad = agg.nagg != nc ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)pc)));
    PetscCheck(!bad, PetscObjectComm((PetscObject)pc), PETSC_ERR_PLIB, "PCUAAMG: the aggregates of some process do not match its coarse rows");
  }
  if (ua->H.device) PetscCall(MGHierarchyAddLevelAggregation(ua->H, agg));
  else {
    Mat P;
    PetscCall(UAAMGHostInterpolation(PetscObjectComm((PetscObject)pc), agg.n, agg.agg, nc, &P));
    PetscCall(MGHierarchyAddLevelHost(ua->H, P));
  }
  PetscCallCXX(exec().fence());
  PetscCall(PetscLogEventEnd(PC_UAAMG_Galerkin, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the coarse levels of the adaptive tree (CSR storage, any number of processes): level 1 holds the leaves, each
   next level the parents of the aggregates of the last one (the leaf-depth class rule: one depth up, aggregates of
   different depths never merge before the root), numbered by a sort of their keys */
static PetscErrorCode UAAMGAdaptiveLevels(PC pc)
{
  PC_UAAMG           *ua   = (PC_UAAMG *)pc->data;
  MPI_Comm            comm = PetscObjectComm((PetscObject)pc);
  Aggregation         agg  = ua->aggfull;
  View<std::uint64_t> keys = ua->finekeys;
  PetscInt            Nprev;

  PetscFunctionBegin;
  PetscCall(MatGetSize(pc->pmat, &Nprev, NULL));
  for (;;) {
    const PetscInt nlev = (PetscInt)ua->lev.size();
    const Int      nc   = agg.nagg;
    PetscInt       Nc, v[2];
    Int            dmin, dmax;
    PetscCall(MPIU_Allreduce(&nc, &Nc, 1, MPIU_INT, MPI_SUM, comm));
    if (Nc >= Nprev || Nc == 0) break; /* no coarsening left */
    UAAMGLevel G;
    G.kind = LevelKind::Csr;
    G.grid = ua->lev[0].grid;
    G.keys = keys;
    PetscCallCXX(ua::TreeKeyDepths(ua->tree, ucv(keys), &dmin, &dmax));
    v[0] = nc ? dmin : PETSC_MAX_INT, v[1] = nc ? -dmax : PETSC_MAX_INT;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, v, 2, MPIU_INT, MPI_MIN, comm));
    G.dmin = v[0], G.dmax = -v[1];
    PetscCall(UAAMGGalerkinLevel(pc, agg, nc));
    PetscCallCXX(ua->lev.push_back(G));
    Nprev = Nc;
    if (Nc <= ua->coarse_size || nlev + 1 >= ua->max_levels) break;
    /* the next level: the parents of this level's aggregates */
    View<std::uint64_t> parent;
    View<Int>           pid;
    Int                 m;
    PetscCallCXX(parent = View<std::uint64_t>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg parent keys")), nc));
    PetscCallCXX(pid = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg parent ids")), nc));
    PetscCallCXX(ua::TreeParents(ua->tree, ucv(keys), uv(parent)));
    PetscCallCXX(m = KeyCompact(ucv(parent), uv(pid), &keys));
    PetscCallCXX(AggregationCreate(nc, m, ucv(pid), agg));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the coarse levels in CSR storage (any number of processes): the aggregates of a level are its nonempty cells on
   this process (aggregates never cross processes), the next level merges the 2^d children of a parent cell. Every
   array is over the rows and aggregates of this process: the cells of a level are those of its aggregates (cellof),
   the next level's aggregates the distinct parents of these cells (CellAggregation), never an array over the cells of
   the grid, which under MPI grows with the global problem. */
static PetscErrorCode UAAMGCsrLevels(PC pc, bool *replicate)
{
  PC_UAAMG   *ua     = (PC_UAAMG *)pc->data;
  MPI_Comm    comm   = PetscObjectComm((PetscObject)pc);
  Aggregation agg    = ua->aggfull; /* level 1: the fine aggregates, the nonempty level-L cells of this process */
  View<Int>   cellof = ua->aggcell;
  PetscInt    Nprev;
  PetscMPIInt size;

  PetscFunctionBegin;
  *replicate = false;
  if (ua->adaptive) {
    PetscCall(UAAMGAdaptiveLevels(pc));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MatGetSize(pc->pmat, &Nprev, NULL));
  ua::StencilGrid grid = ua->lev[0].grid;
  for (;;) {
    const PetscInt nlev = (PetscInt)ua->lev.size();
    const Int      nc   = agg.nagg;
    PetscInt       Nc;
    PetscCall(MPIU_Allreduce(&nc, &Nc, 1, MPIU_INT, MPI_SUM, comm));
    if (Nc >= Nprev || Nc == 0) break; /* no coarsening left */
    UAAMGLevel G;
    G.kind   = LevelKind::Csr;
    G.grid   = grid;
    G.cellof = cellof;
    PetscCall(UAAMGGalerkinLevel(pc, agg, nc));
    PetscCallCXX(ua->lev.push_back(G));
    Nprev = Nc;
    if (Nc <= ua->coarse_size || nlev + 1 >= ua->max_levels || grid.ncells() <= 1) break;
    if (size > 1 && Nc <= ua->replicate_size) { /* this level and the coarser ones on every process */
      *replicate = true;
      break;
    }
    /* the next level: the parents of the cells of this level's aggregates */
    View<Int> parent("uaamg parent", nc);
    Int       nout;
    PetscCallCXX(ua::ParentCells(grid, ucv(cellof), uv(parent)));
    PetscCallCXX(nout = ua::CellAggregation(ucv(parent), agg, cellof));
    PetscCheck(nout == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCUAAMG: %" PetscInt_FMT " parent cells of level %" PetscInt_FMT " out of range", (PetscInt)nout, nlev);
    grid = ua::StencilGridCoarsen(grid);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The replicated coarse levels (coarse-level replication, kp_mg section 7): H's coarsest level k (at most
   replicate_size rows) gathered to every process with the cells of its aggregates, and the coarser levels built
   there as on one process: the aggregates of level k + 1 are the parents of the cells of level k's rows, so the pieces
   of one cell that level k holds on several processes (the distributed aggregates never cross processes) merge
   into one aggregate, and the replicated levels coarsen as those of one process do. */
static PetscErrorCode UAAMGReplicatedLevels(PC pc)
{
  PC_UAAMG         *ua   = (PC_UAAMG *)pc->data;
  MPI_Comm          comm = PetscObjectComm((PetscObject)pc);
  const UAAMGLevel &Gk   = ua->lev.back();
  std::vector<Int>  lcell, gcell;
  Aggregation       agg;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_UAAMG_Galerkin, pc, 0, 0, 0));
  PetscCall(MGHierarchyReplicateCoarsest(ua->H));
  MGReplicatedLevels &Rp = *ua->H.replicated;
  MGHierarchy        &T  = Rp.T;
  /* level k: the cells of every row, in the rank-major order of the gathered operator */
  PetscCallCXX(lcell.resize(Gk.cellof.extent(0)));
  if (!lcell.empty()) PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Int>(lcell.data(), lcell.size()), ucv(Gk.cellof)));
  PetscCallCXX(exec().fence());
  PetscCall(MGCoarseReplicaGatherInt(comm, Rp.R, lcell, gcell));
  UAAMGLevel G0;
  G0.kind = LevelKind::Csr;
  G0.grid = Gk.grid;
  G0.rows = Rp.R.n;
  PetscCallCXX(G0.cellof = View<Int>("uaamg cellof", Rp.R.n));
  if (Rp.R.n) PetscCallCXX(Kokkos::deep_copy(exec(), G0.cellof, HostUView<const Int>(gcell.data(), gcell.size())));
  PetscCallCXX(ua->rlev.push_back(G0));
  /* the coarser levels, on this process */
  ua::StencilGrid grid  = Gk.grid;
  PetscInt        Nprev = Rp.R.n;
  while ((PetscInt)ua->lev.size() + (PetscInt)ua->rlev.size() - 1 < ua->max_levels && grid.ncells() > 1) {
    const Int       nf = (Int)ua->rlev.back().cellof.extent(0);
    ua::StencilGrid gc = ua::StencilGridCoarsen(grid);
    View<Int>       parent("uaamg parent", nf), cellof;
    Int             nc, nout;
    PetscCallCXX(ua::ParentCells(grid, ucv(ua->rlev.back().cellof), uv(parent)));
    PetscCallCXX(nout = ua::CellAggregation(ucv(parent), agg, cellof)); /* the distinct parents, ascending */
    PetscCheck(nout == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCUAAMG: %" PetscInt_FMT " parent cells of a replicated level out of range", (PetscInt)nout);
    nc = agg.nagg;
    if (nc >= Nprev || nc == 0) break; /* no coarsening left */
    UAAMGLevel G;
    G.kind   = LevelKind::Csr;
    G.grid   = gc;
    G.cellof = cellof;
    PetscCall(MGHierarchyAddLevelAggregation(T, agg));
    PetscCallCXX(ua->rlev.push_back(G));
    Nprev = nc;
    grid  = gc;
    if (nc <= ua->coarse_size) break;
  }
  PetscCall(MGHierarchySetUpVecs(T));
  PetscCallCXX(exec().fence());
  PetscCall(PetscLogEventEnd(PC_UAAMG_Galerkin, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the coarse levels in stencil storage (one process): A_L = P^T A P by GalerkinStencil, then the tree levels by
   StencilCoarsen, every cell of every level stored (empty ones inactive) */
static PetscErrorCode UAAMGStencilLevels(PC pc, bool refresh)
{
  PC_UAAMG        *ua = (PC_UAAMG *)pc->data;
  const CsrMatrix &Ad = DeviceMatLocalCsr(ua->H.levels[0].Ad);

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_UAAMG_Galerkin, pc, 0, 0, 0));
  if (refresh) {
    bool ok;
    PetscCallCXX(ok = ua::GalerkinStencil(Ad, ua->aggfull, ucv(ua->cell), ua->lev[1].S));
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCUAAMG: the Galerkin product of the new operator failed (sizes)");
    for (size_t l = 2; l < ua->lev.size(); l++) PetscCallCXX(ua::StencilCoarsen(ua->lev[l - 1].S, ua->lev[l].S));
  } else {
    UAAMGLevel G;
    bool       ok;
    G.kind = LevelKind::Stencil;
    G.grid = ua->lev[0].grid;
    PetscCallCXX(ua::StencilAllocate(G.grid, G.S));
    PetscCallCXX(ok = ua::GalerkinStencil(Ad, ua->aggfull, ucv(ua->cell), G.S));
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCUAAMG: the level-L Galerkin product failed (sizes)");
    PetscCallCXX(ua->lev.push_back(G));
    PetscCall(MGHierarchyAddLevel(ua->H, G.grid.ncells()));
    while (ua->lev.back().grid.ncells() > ua->coarse_size && (PetscInt)ua->lev.size() < ua->max_levels && ua->lev.back().grid.ncells() > 1) {
      UAAMGLevel C;
      C.kind = LevelKind::Stencil;
      PetscCallCXX(ua::StencilCoarsen(ua->lev.back().S, C.S));
      C.grid = C.S.grid;
      PetscCallCXX(ua->lev.push_back(C));
      PetscCall(MGHierarchyAddLevel(ua->H, C.grid.ncells()));
    }
  }
  PetscCallCXX(exec().fence());
  PetscCall(PetscLogEventEnd(PC_UAAMG_Galerkin, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the coarsest solve: dense factorisation of the coarsest operator (inactive cells of a stencil level get a unit
   diagonal: their right-hand side is zero, so is their solution) */
static PetscErrorCode UAAMGCoarseFactor(PC pc)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_UAAMG_CoarseFactor, pc, 0, 0, 0));
  UAAMGLevel &G = ua->lev.back();
  if (ua->H.replicated) PetscCall(MGHierarchySetUpCoarseDirect(ua->H.replicated->T)); /* on every process, as in H */
  else if (G.kind == LevelKind::Stencil) {
    CsrMatrix M;
    PetscCallCXX(ua::StencilToCsr(G.S, true, M));
    PetscCall(MGCoarseDirectSetUp(ua->H.comm, M.nrows, 0, M, ua->H.coarse_rtol, ua->H.coarse));
  } else PetscCall(MGHierarchySetUpCoarseDirect(ua->H));
  PetscCall(PetscLogEventEnd(PC_UAAMG_CoarseFactor, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Colours of the aggregates of CSR level l from the pattern of its Galerkin operator, for the adaptive tree (its
   aggregates of mixed depths have no parity colouring): Jones-Plassmann on the local block (kp_colour's GraphColour),
   then, under MPI, rounds of repair of the couplings to other processes (ColourLosers / ColourRecolour with weights
   hashed from the global row numbers) until no coupled rows share a colour on any process. The result is the
   guarantee the parity colouring gives: rows of one colour are never coupled, on one process or across processes,
   so the per-colour ghost exchange of MGLevelColourSweeps makes every colour a true Gauss-Seidel step. */
static PetscErrorCode UAAMGGraphColours(PC pc, MGHierarchy &H, PetscInt l, View<Int> &colour, PetscInt *ncolours)
{
  MPI_Comm         comm = H.comm;
  MGLevel         &L    = H.levels[l];
  const CsrMatrix &Ad = DeviceMatLocalCsr(L.Ad), &Ao = DeviceMatGhostCsr(L.Ad);
  const Int        m  = Ad.nrows;
  CsrGraph         G;
  PetscInt         nc;

  PetscFunctionBegin;
  PetscCallCXX(colour = View<Int>("uaamg colour", m));
  PetscCallCXX(GraphSymmetrize(Ad, G));
  PetscCallCXX(GraphColour(G, uv(colour)));
  if (L.Ad->mpi) {
    Vec                 cv, g;
    DeviceVec           cvv, gv;
    PetscInt            rstart, nl, nr, rounds = 0;
    const Int           ng = Ao.ncols;
    View<std::uint64_t> wl, wg;
    View<Scalar>        gcol, glos;
    View<Int>           loser;
    PetscCall(VecGetOwnershipRange(L.r, &rstart, NULL));
    PetscCall(VecDuplicate(L.r, &cv));
    PetscCallCXX(wl = View<std::uint64_t>("uaamg weights", m));
    PetscCallCXX(wg = View<std::uint64_t>("uaamg ghost weights", ng));
    PetscCallCXX(gcol = View<Scalar>("uaamg ghost colours", ng));
    PetscCallCXX(glos = View<Scalar>("uaamg ghost losers", ng));
    PetscCallCXX(loser = View<Int>("uaamg losers", m));
    PetscCallCXX(ua::RowWeights((Int)rstart, UView<const Scalar>(), uv(wl)));
    PetscCall(cvv.Get(cv, Access::Write));
    PetscCallCXX(ua::GlobalRowNumbers((Int)rstart, cvv.view()));
    PetscCall(cvv.Restore());
    PetscCall(DeviceMatGhostUpdate(L.Ad, cv, &g));
    if (g) {
      PetscCall(gv.Get(g, Access::Read));
      PetscCallCXX(ua::RowWeights(0, gv.cview(), uv(wg)));
      PetscCall(gv.Restore());
    }
    for (;; rounds++) {
      /* the ghosts' colours, the losers, the ghosts' loser flags, the recolouring */
      PetscCall(cvv.Get(cv, Access::Write));
      PetscCallCXX(ColourScalars(ucv(colour), cvv.view()));
      PetscCall(cvv.Restore());
      PetscCall(DeviceMatGhostUpdate(L.Ad, cv, &g));
      if (g) {
        PetscCall(gv.Get(g, Access::Read));
        PetscCallCXX(Kokkos::deep_copy(exec(), gcol, gv.cview()));
        PetscCall(gv.Restore());
      }
      PetscCallCXX(nl = ua::ColourLosers(Ad, Ao, ucv(wl), ucv(wg), ucv(colour), ucv(gcol), uv(loser)));
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nl, 1, MPIU_INT, MPI_SUM, comm));
      if (nl == 0) break;
      PetscCheck(rounds < 10000, comm, PETSC_ERR_PLIB, "PCUAAMG: the colouring of level %" PetscInt_FMT " across processes did not settle (%" PetscInt_FMT " conflicts left); is the operator structurally symmetric?", l, nl);
      PetscCall(cvv.Get(cv, Access::Write));
      PetscCallCXX(ColourScalars(ucv(loser), cvv.view()));
      PetscCall(cvv.Restore());
      PetscCall(DeviceMatGhostUpdate(L.Ad, cv, &g));
      if (g) {
        PetscCall(gv.Get(g, Access::Read));
        PetscCallCXX(Kokkos::deep_copy(exec(), glos, gv.cview()));
        PetscCall(gv.Restore());
      }
      PetscCallCXX(nr = ua::ColourRecolour(Ad, Ao, ucv(wl), ucv(wg), ucv(loser), ucv(glos), ucv(gcol), uv(colour)));
      (void)nr;
    }
    PetscCall(VecDestroy(&cv));
    PetscCall(PetscInfo(pc, "level %" PetscInt_FMT ": graph colouring made consistent across processes in %" PetscInt_FMT " rounds\n", l, rounds));
  }
  PetscCallCXX(nc = ua::ColourCount(ucv(colour)));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nc, 1, MPIU_INT, MPI_MAX, comm));
  *ncolours = nc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* adaptive tree: the colours of the graph colouring of level l (l >= 1) as its ColourPartition, checked against the
   level's operator; for l == 1 also against the fine operator, whose blocks (the fine aggregates) take these colours */
static PetscErrorCode UAAMGAdaptiveColours(PC pc, PetscInt l)
{
  PC_UAAMG  *ua   = (PC_UAAMG *)pc->data;
  MPI_Comm   comm = PetscObjectComm((PetscObject)pc);
  UAAMGLevel &G   = ua->lev[l];
  const Int  m    = (Int)ua->H.levels[l].nlocal;
  View<Int>  colour;
  PetscInt   ncol, viol;
  Int        nout;

  PetscFunctionBegin;
  PetscCall(UAAMGGraphColours(pc, ua->H, l, colour, &ncol));
  PetscCall(MGLevelColourCheck(ua->H, l, ucv(colour), (Int)ncol, &viol));
  PetscCheck(viol == 0, comm, PETSC_ERR_PLIB, "PCUAAMG: the graph colouring of level %" PetscInt_FMT " has %" PetscInt_FMT " coupled rows of equal colour", l, viol);
  PetscCallCXX(nout = ColourPartitionCreate(m, ucv(colour), (Int)ncol, G.colours));
  PetscCheck(nout == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCUAAMG: %" PetscInt_FMT " aggregates of level %" PetscInt_FMT " have no colour", (PetscInt)nout, l);
  G.ncolours = ncol;
  {
    std::vector<PetscInt> cnt(ncol);
    for (PetscInt c = 0; c < ncol; c++) cnt[c] = G.colours.hoffsets(c + 1) - G.colours.hoffsets(c);
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, cnt.data(), (PetscMPIInt)ncol, MPIU_INT, MPI_SUM, comm));
    G.colourids.clear();
    for (PetscInt c = 0; c < ncol; c++)
      if (cnt[c]) G.colourids.push_back((Int)c);
  }
  if (l == 1) { /* the fine blocks: no two coupled aggregates of one colour */
    MGLevel  &F = ua->H.levels[0];
    Vec       cv, g;
    DeviceVec cvv, gv;
    View<Int> rowc;
    Int       bad;
    PetscCallCXX(rowc = View<Int>("uaamg row colours", F.nlocal));
    PetscCallCXX(ua::RowColoursOfAggregates(ua->aggfull, ucv(colour), uv(rowc)));
    PetscCall(VecDuplicate(F.r, &cv));
    PetscCall(cvv.Get(cv, Access::Write));
    PetscCallCXX(ColourScalars(ucv(rowc), cvv.view()));
    PetscCall(cvv.Restore());
    PetscCall(DeviceMatGhostUpdate(F.Ad, cv, &g));
    if (g) PetscCall(gv.Get(g, Access::Read));
    PetscCallCXX(bad = ua::FineAggregateColourConflicts(ua->aggfull, ucv(colour), DeviceMatLocalCsr(F.Ad), DeviceMatGhostCsr(F.Ad), gv.cview()));
    PetscCall(gv.Restore());
    PetscCall(VecDestroy(&cv));
    viol = bad;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &viol, 1, MPIU_INT, MPI_SUM, comm));
    PetscCheck(viol == 0, comm, PETSC_ERR_PLIB, "PCUAAMG: %" PetscInt_FMT " couplings of the fine operator join blocks of equal colour", viol);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the parity colours of the cells cellof of grid, the cells of the aggregates of a CSR level of the uniform tree (level
   l; l = 0: the fine aggregates, the blocks of the fine smoother): C = the aggregates by colour, ids = the colours
   present on some process. Aggregates of one colour are never coupled. */
static PetscErrorCode UAAMGCellColours(MPI_Comm comm, PetscInt l, const ua::StencilGrid &grid, const View<Int> &cellof, ColourPartition &C, std::vector<Int> &ids, View<Int> *colours = nullptr)
{
  const Int        m = (Int)cellof.extent(0), ncol = grid.ncolours();
  View<Int>        colour("uaamg colour", m);
  std::vector<Int> cnt(ncol);
  Int              nout;

  PetscFunctionBegin;
  PetscCallCXX(ua::CellColours(grid, ucv(cellof), UView<Int>(colour.data(), m)));
  PetscCallCXX(nout = ColourPartitionCreate(m, ucv(colour), ncol, C));
  PetscCheck(nout == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCUAAMG: %" PetscInt_FMT " aggregates of level %" PetscInt_FMT " have no colour", (PetscInt)nout, l);
  for (Int c = 0; c < ncol; c++) cnt[c] = C.hoffsets(c + 1) - C.hoffsets(c);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, cnt.data(), (PetscMPIInt)ncol, MPIU_INT, MPI_SUM, comm));
  ids.clear();
  for (Int c = 0; c < ncol; c++)
    if (cnt[c]) ids.push_back(c);
  if (colours) *colours = colour; /* the colour of every aggregate */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the colours of the first replicated level: the graph colouring of its operator (its rows are the pieces of cells
   on the processes, and the pieces of one cell are coupled: the parity of their cell does not separate them) */
static PetscErrorCode UAAMGReplicatedColours(PC pc, UAAMGLevel &G)
{
  MGHierarchy &T = ((PC_UAAMG *)pc->data)->H.replicated->T;
  View<Int>    colour;
  PetscInt     ncol, viol;
  Int          nout;

  PetscFunctionBegin;
  PetscCall(UAAMGGraphColours(pc, T, 0, colour, &ncol));
  PetscCall(MGLevelColourCheck(T, 0, ucv(colour), (Int)ncol, &viol));
  PetscCheck(viol == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCUAAMG: the graph colouring of the first replicated level has %" PetscInt_FMT " coupled rows of equal colour", viol);
  PetscCallCXX(nout = ColourPartitionCreate((Int)T.levels[0].nlocal, ucv(colour), (Int)ncol, G.colours));
  PetscCheck(nout == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCUAAMG: %" PetscInt_FMT " rows of the first replicated level have no colour", (PetscInt)nout);
  G.colourids.clear();
  for (PetscInt c = 0; c < ncol; c++)
    if (G.colours.hoffsets(c + 1) > G.colours.hoffsets(c)) G.colourids.push_back((Int)c);
  G.ncolours = (PetscInt)G.colourids.size();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* inverse diagonals (Jacobi, Chebyshev) and the largest eigenvalue of D^-1 A (Chebyshev, 10 power steps) of the levels
   lev of H but its coarsest (solved directly) */
static PetscErrorCode UAAMGDiagonals(PC pc, MGHierarchy &H, std::vector<UAAMGLevel> &lev)
{
  PC_UAAMG      *ua = (PC_UAAMG *)pc->data;
  UAAMGOps       ops(ua, H, lev);
  const PetscInt nl = (PetscInt)lev.size();

  PetscFunctionBegin;
  for (PetscInt l = 0; l + 1 < nl; l++) {
    UAAMGLevel               &G    = lev[l];
    MGLevel                  &L    = H.levels[l];
    const PCUAAMGSmootherType type = G.kind == LevelKind::Fine ? ua->fine_smoother : ua->smoother;
    if (type != PC_UAAMG_SMOOTHER_JACOBI && type != PC_UAAMG_SMOOTHER_CHEBYSHEV) continue;
    if (!G.dinv) PetscCall(VecDuplicate(L.r, &G.dinv));
    {
      DeviceVec dv;
      PetscCall(dv.Get(G.dinv, Access::Write));
      if (G.kind == LevelKind::Stencil) PetscCallCXX(ua::StencilDiagonal(G.S, dv.view()));
      else PetscCallCXX(CsrDiagonal(DeviceMatLocalCsr(L.Ad), dv.view()));
      PetscCall(dv.Restore());
    }
    PetscCall(VecReciprocal(G.dinv)); /* zero entries (inactive cells) stay zero */
    if (type == PC_UAAMG_SMOOTHER_CHEBYSHEV) {
      PetscRandom rnd;
      PetscReal   nrm, lam = 0;
      if (!G.d) PetscCall(VecDuplicate(L.r, &G.d));
      PetscCall(PetscRandomCreate(H.comm, &rnd));
      PetscCall(PetscRandomSetSeed(rnd, 0x5eed + (unsigned long)l));
      PetscCall(PetscRandomSeed(rnd));
      PetscCall(VecSetRandom(G.d, rnd));
      PetscCall(PetscRandomDestroy(&rnd));
      PetscCall(VecNorm(G.d, NORM_2, &nrm));
      for (PetscInt it = 0; it < 10 && nrm > 0; it++) {
        PetscCall(VecScale(G.d, 1.0 / nrm));
        PetscCall(ops.Mult(l, G.d, L.w));
        PetscCall(VecPointwiseMult(G.d, G.dinv, L.w));
        PetscCall(VecNorm(G.d, NORM_2, &nrm));
        lam = nrm;
      }
      PetscCheck(!PetscIsInfOrNanReal(lam), H.comm, PETSC_ERR_FP, "PCUAAMG: the eigenvalue estimate of the Chebyshev smoother on level %" PetscInt_FMT " is not finite", l);
      G.lmax = lam;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Under MPI the pieces of a cell split between processes are distinct aggregates with the cell's parity colour, and
   they are coupled: the parity colouring does not separate them, and a per-colour sweep would relax them together
   (Jacobi between them, which over-relaxation can make diverge: CG, omega 1.9, 2D 33^2 on two processes). Where the
   operator of CSR level l couples rows of one parity colour, the distributed graph colouring of the adaptive tree
   (UAAMGAdaptiveColours: Jones-Plassmann and repair across processes) replaces it; for l = 1 the fine blocks take
   these colours too. Done at the setup for the per-colour exchange (hybrid off, or omega > 1), which
   PCUAAMGSetOmega() and PCUAAMGSetHybridSmoother() should therefore choose before PCSetUp(). */
static PetscErrorCode UAAMGSplitCellColours(PC pc, PetscInt l, const View<Int> &colour)
{
  PC_UAAMG   *ua = (PC_UAAMG *)pc->data;
  UAAMGLevel &G  = ua->lev[l];
  PetscInt    viol;

  PetscFunctionBegin;
  PetscCall(MGLevelColourCheck(ua->H, l, ucv(colour), (Int)G.grid.ncolours(), &viol));
  if (viol) {
    PetscCall(PetscInfo(pc, "PCUAAMG: level %" PetscInt_FMT ": %" PetscInt_FMT " coupled rows share a parity colour (cells split between processes): graph colouring\n", l, viol));
    PetscCall(UAAMGAdaptiveColours(pc, l));
    ua->nsplitcoloured++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* smoother data: fine blocks, colours of the CSR levels (the replicated ones included), inverse diagonals and
   Chebyshev bounds */
static PetscErrorCode UAAMGSmootherSetUp(PC pc, bool refresh)
{
  PC_UAAMG *ua   = (PC_UAAMG *)pc->data;
  MPI_Comm  comm = PetscObjectComm((PetscObject)pc);

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_UAAMG_SmootherSetUp, pc, 0, 0, 0));
  const PetscInt nl = (PetscInt)ua->lev.size();
  if (nl > 1) { /* the blocks of the fine Gauss-Seidel, and the decoupled (loose) rows of every fine smoother */
    PetscInt v[2];
    ua->block_used = ua->fine_smoother != PC_UAAMG_SMOOTHER_BLOCK_GS ? 0 : (ua->block_max > 0 ? ua->block_max : (ua->dim == 3 ? 32 : 16));
    PetscCallCXX(ua::FineBlocksSetUp(DeviceMatLocalCsr(ua->H.levels[0].Ad), ua->aggfull, (Int)ua->block_used, ua->B));
    v[0] = ua->B.nexact, v[1] = ua->B.nfailed;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, v, 2, MPIU_INT, MPI_SUM, comm));
    ua->nexact = v[0], ua->nfailed = v[1];
  }
  if (!refresh) ua->nsplitcoloured = 0;
  for (PetscInt l = 1; l < nl && !refresh; l++) {
    UAAMGLevel &G = ua->lev[l];
    if (G.kind != LevelKind::Csr) continue;
    if (ua->adaptive) PetscCall(UAAMGAdaptiveColours(pc, l));
    else if (!(ua->H.replicated && l == nl - 1)) { /* (H's coarsest level is smoothed as the replicated level 0) */
      PetscMPIInt size;
      View<Int>   colour;
      PetscCall(UAAMGCellColours(comm, l, G.grid, G.cellof, G.colours, G.colourids, &colour));
      G.ncolours = (PetscInt)G.colourids.size();
      PetscCallMPI(MPI_Comm_size(comm, &size));
      /* (the hybrid sweep, the default for omega <= 1, relaxes the pieces on other processes by Jacobi anyway: there
         the parity colours, fewer than a graph colouring's, are kept) */
      if (size > 1 && !(ua->hybrid && ua->omega <= 1)) PetscCall(UAAMGSplitCellColours(pc, l, colour));
    }
  }
  if (nl > 1 && !ua->stencil && !refresh) {
    /* the colours of the fine blocks: those of level 1, whose rows are the fine aggregates (on the uniform tree the
       parity of their cells, level 1's grid being the level-L grid), or, when level 1 is smoothed as the first
       replicated level, the parity colours of their cells here */
    if (ua->adaptive || !(ua->H.replicated && nl == 2)) {
      ua->blockcolours   = ua->lev[1].colours;
      ua->blockcolourids = ua->lev[1].colourids;
    } else PetscCall(UAAMGCellColours(comm, 0, ua->lev[0].grid, ua->aggcell, ua->blockcolours, ua->blockcolourids));
  }
  for (size_t l = 0; l < ua->rlev.size() && !refresh; l++) {
    UAAMGLevel &G = ua->rlev[l];
    if (l == 0) PetscCall(UAAMGReplicatedColours(pc, G));
    else {
      PetscCall(UAAMGCellColours(PETSC_COMM_SELF, nl - 1 + (PetscInt)l, G.grid, G.cellof, G.colours, G.colourids));
      G.ncolours = (PetscInt)G.colourids.size();
    }
  }
  PetscCall(UAAMGDiagonals(pc, ua->H, ua->lev));
  if (ua->H.replicated) PetscCall(UAAMGDiagonals(pc, ua->H.replicated->T, ua->rlev));
  PetscCallCXX(exec().fence());
  PetscCall(PetscLogEventEnd(PC_UAAMG_SmootherSetUp, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rows and nonzeros of every level, and the complexities */
static PetscErrorCode UAAMGLevelSizes(PC pc)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;
  PetscReal so = 0, sg = 0;

  PetscFunctionBegin;
  for (size_t l = 0; l < ua->lev.size(); l++) {
    UAAMGLevel &G = ua->lev[l];
    if (G.kind == LevelKind::Stencil) {
      G.rows = G.grid.ncells();
      PetscCallCXX(G.nnz = ua::StencilNonzeros(G.S));
    } else PetscCall(MGHierarchyLevelInfo(ua->H, (PetscInt)l, &G.rows, &G.nnz));
    so += (PetscReal)G.nnz;
    sg += (PetscReal)G.rows;
  }
  for (size_t l = 0; l < ua->rlev.size(); l++) { /* the replicated levels, counted once */
    UAAMGLevel &G = ua->rlev[l];
    PetscCall(MGHierarchyLevelInfo(ua->H.replicated->T, (PetscInt)l, &G.rows, &G.nnz));
    if (l == 0) continue; /* H's coarsest level */
    so += (PetscReal)G.nnz;
    sg += (PetscReal)G.rows;
  }
  ua->oc = ua->lev[0].nnz > 0 ? so / ua->lev[0].nnz : 0;
  ua->gc = ua->lev[0].rows > 0 ? sg / ua->lev[0].rows : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_UAAMG(PC pc)
{
  PC_UAAMG   *ua   = (PC_UAAMG *)pc->data;
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);
  PetscInt    M, N, m, n, bs;
  PetscMPIInt size;
  bool        replicate = false;

  PetscFunctionBegin;
  PetscCall(KokkosInitializeOnce());
  ProfileRegion region("PCUAAMGSetUp");
  PetscCall(MatCheckAIJ(pc->pmat, NULL));
  PetscCall(MatGetSize(pc->pmat, &M, &N));
  PetscCall(MatGetLocalSize(pc->pmat, &m, &n));
  PetscCheck(M == N, comm, PETSC_ERR_ARG_SIZ, "PCUAAMG needs a square operator, not %" PetscInt_FMT " x %" PetscInt_FMT, M, N);
  {
    PetscBool bad = m != n ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_BOOL, MPI_LOR, comm));
    PetscCheck(!bad, comm, PETSC_ERR_ARG_SIZ, "PCUAAMG needs the same row and column layout on every process (a square local block)");
  }
  PetscCall(MatGetBlockSize(pc->pmat, &bs));
  PetscCheck(bs == 1, comm, PETSC_ERR_SUP, "PCUAAMG is for scalar problems (piecewise-constant aggregates of one unknown per point): the operator has block size %" PetscInt_FMT "; use PCGAMG for systems", bs);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (pc->setupcalled && pc->flag == SAME_NONZERO_PATTERN && !ua->lev.empty() && ua->H.levels[0].A == pc->pmat) {
    /* new values, same pattern and coordinates: keep the grid and the aggregates, redo the Galerkin products, the
       smoother data and the coarsest factorisation (Section 7.4 step 9 of the design: time stepping) */
    PetscCall(PetscLogEventBegin(PC_UAAMG_SetUp, pc, 0, 0, 0));
    PetscCall(MGHierarchyRefreshFine(ua->H));
    PetscCall(MGHierarchyCheckOperator(ua->H, "PCUAAMG", "PCUAAMG needs a symmetric positive definite operator"));
    if (ua->lev.size() < 2) { /* one level: the operator itself is factored */
    } else if (ua->stencil) PetscCall(UAAMGStencilLevels(pc, true));
    else {
      PetscCall(PetscLogEventBegin(PC_UAAMG_Galerkin, pc, 0, 0, 0));
      ua->H.coarse.ready = false; /* refactored below */
      PetscCall(MGHierarchyRefreshCoarse(ua->H));
      if (ua->H.replicated) {
        ua->H.replicated->T.coarse.ready = false;
        PetscCall(MGHierarchyRefreshReplicated(ua->H));
      }
      PetscCall(PetscLogEventEnd(PC_UAAMG_Galerkin, pc, 0, 0, 0));
    }
    PetscCall(UAAMGCoarseFactor(pc));
    PetscCall(UAAMGSmootherSetUp(pc, true));
    PetscCall(UAAMGLevelSizes(pc));
    PetscCall(PetscLogEventEnd(PC_UAAMG_SetUp, pc, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCReset_UAAMG(pc));
  PetscCall(PetscLogEventBegin(PC_UAAMG_SetUp, pc, 0, 0, 0));
  ua->stencil = ua->format == PC_UAAMG_FORMAT_STENCIL && size == 1;
  PetscCall(MGHierarchyCreate(comm, pc->pmat, ua->device_setup, ua->H));
  PetscCall(MGHierarchyCheckOperator(ua->H, "PCUAAMG", "PCUAAMG needs a symmetric positive definite operator"));
  PetscCall(MGHierarchySetUpVecs(ua->H)); /* level 0's r and w (reach, smoother estimates) */
  PetscCallCXX(ua->lev.emplace_back());
  if (M > ua->coarse_size && ua->max_levels > 1) {
    PetscCall(PetscLogEventBegin(PC_UAAMG_Aggregate, pc, 0, 0, 0));
    PetscCall(UAAMGAuxiliaryGrid(pc));
    UAAMGLevel &F = ua->lev[0];
    F.kind        = LevelKind::Fine;
    PetscCallCXX(F.grid = ua::StencilGridFromAux(ua->aux, ua->reach));
    if (ua->adaptive && ua->stencil) { /* the stencil storage needs the uniform tree */
      ua->stencil         = false;
      ua->format_fallback = true;
      PetscCall(PetscInfo(pc, "adaptive auxiliary tree: the levels are stored as CSR (stencil storage needs the uniform tree)\n"));
    }
    {
      const Int            n0 = ua->H.levels[0].nlocal;
      Int                  nout = 0;
      ua::AggregateStats   st;
      PetscInt             v[2];
      /* the stencil levels hold every cell of the grid; the CSR levels the nonempty cells of this process only (their
         number follows the local rows, where the grid's follows the global problem); the adaptive tree its leaves */
      if (ua->adaptive) { /* aggfull: the leaves */
      } else if (ua->stencil) PetscCallCXX(nout = AggregationCreate(n0, F.grid.ncells(), UView<const Int>(ua->cell.data(), n0), ua->aggfull));
      else PetscCallCXX(nout = ua::CellAggregation(UView<const Int>(ua->cell.data(), n0), ua->aggfull, ua->aggcell));
      PetscCheck(nout == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCUAAMG: %" PetscInt_FMT " cell ids outside the grid", (PetscInt)nout);
      PetscCallCXX(st = ua::AggregateSizes(ua->aggfull));
      v[0] = st.nagg - st.nempty, v[1] = st.nmembers;
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, v, 2, MPIU_INT, MPI_SUM, comm));
      ua->nagg = v[0], ua->nmembers = v[1], ua->nempty = size == 1 && !ua->adaptive ? (PetscInt)F.grid.ncells() - v[0] : -1;
      PetscCall(MPIU_Allreduce(&st.maxsize, &ua->maxsize, 1, MPIU_INT, MPI_MAX, comm));
      v[0] = st.nagg > st.nempty ? st.minsize : PETSC_MAX_INT;
      PetscCall(MPIU_Allreduce(v, &ua->minsize, 1, MPIU_INT, MPI_MIN, comm));
    }
    PetscCallCXX(exec().fence());
    PetscCall(PetscLogEventEnd(PC_UAAMG_Aggregate, pc, 0, 0, 0));
    if (ua->stencil) PetscCall(UAAMGStencilLevels(pc, false));
    else PetscCall(UAAMGCsrLevels(pc, &replicate));
  }
  PetscCall(MGHierarchySetUpVecs(ua->H));
  if (replicate) PetscCall(UAAMGReplicatedLevels(pc));
  PetscCall(UAAMGCoarseFactor(pc));
  PetscCall(UAAMGSmootherSetUp(pc, false));
  PetscCall(UAAMGLevelSizes(pc));
  PetscCall(PetscLogEventEnd(PC_UAAMG_SetUp, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The coarse levels with GCG corrections. A K-cycle with n = 2 visits level l 2^l times: on a GPU the small levels cost
   kernel launches and host reads rather than bandwidth, and their GCG corrections cost more time than they save
   (H100, 2D Poisson 2048^2: 12.6 ms per iteration with GCG on every level, 8.2 ms with GCG on the levels of at least
   65536 rows, the same iterations; bench/results/uaamg_gpu.md). The default (PETSC_DETERMINE) is therefore 0 (every
   level) with a host execution space, and 65536 rows with a device one, except when no coarse level is that large
   (a small problem: the full K-cycle). Returns the level count limit in rows (0: every level). */
static PetscInt UAAMGKCycleMinSize(const PC_UAAMG *ua)
{
  if (ua->kcycle_min != PETSC_DETERMINE) return ua->kcycle_min;
  if (!kDeviceExec) return 0;
  const PetscInt auto_min = 65536;
  for (PetscInt l = 1; l < UAAMGNumLevels(ua); l++)
    if (UAAMGLevelOf(ua, l).rows >= auto_min) return auto_min;
  return 0;
}

static PetscErrorCode PCApply_UAAMG(PC pc, Vec b, Vec y)
{
  PC_UAAMG     *ua = (PC_UAAMG *)pc->data;
  UAAMGOps      ops(ua, ua->H, ua->lev);
  MGCycleParams p;

  PetscFunctionBegin;
  p.type        = ua->cycle == PC_UAAMG_CYCLE_K ? MGCycleType::K : (ua->cycle == PC_UAAMG_CYCLE_W ? MGCycleType::W : MGCycleType::V);
  p.pre         = ua->pre;
  p.post        = ua->post;
  p.kcycle_its  = ua->kcycle_its;
  p.kcycle_rtol = ua->kcycle_rtol;
  const PetscInt kmin = UAAMGKCycleMinSize(ua);
  for (PetscInt l = 1; l < UAAMGNumLevels(ua) && kmin > 0; l++)
    if (UAAMGLevelOf(ua, l).rows >= kmin) p.kcycle_last = l;
  if (kmin > 0 && p.kcycle_last < 0) p.kcycle_last = 0; /* every coarse level is small: V-cycles */
  PetscCall(PetscLogEventBegin(PC_UAAMG_Apply, pc, b, y, 0));
  {
    ProfileRegion region("PCUAAMGApply");
    Vec bu, yu;
    PetscCall(VecGetAsTypeOf(b, ua->H.levels[0].r, PETSC_TRUE, &ua->bw, &bu));
    PetscCall(VecGetAsTypeOf(y, ua->H.levels[0].r, PETSC_FALSE, &ua->yw, &yu));
    if (ua->H.replicated) {
      UAAMGOps rops(ua, ua->H.replicated->T, ua->rlev);
      ops.SetReplicated(&rops);
      PetscCall(MGCycleApply(ua->H, ops, p, bu, yu, true));
    } else PetscCall(MGCycleApply(ua->H, ops, p, bu, yu, true));
    PetscCall(VecRestoreAsTypeOf(y, PETSC_TRUE, &yu));
    PetscCall(VecRestoreAsTypeOf(b, PETSC_FALSE, &bu));
  }
  PetscCall(PetscLogEventEnd(PC_UAAMG_Apply, pc, b, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the K-cycle is a nonlinear preconditioner: refuse Krylov methods that assume a fixed linear one */
static PetscErrorCode UAAMGCheckKSP(PC pc, KSP ksp)
{
  PC_UAAMG   *ua = (PC_UAAMG *)pc->data;
  const char *linear[] = {KSPCG, KSPPIPECG, KSPGROPPCG, KSPPIPECGRR, KSPCR, KSPPIPECR, KSPMINRES, KSPSYMMLQ, KSPGMRES, KSPLGMRES, KSPDGMRES, KSPPGMRES, KSPBCGS, KSPIBCGS, KSPBCGSL, KSPTFQMR, KSPTCQMR, KSPCGS, KSPCHEBYSHEV, KSPQCG, KSPNASH, KSPSTCG, KSPGLTR, "dcg"};
  PetscBool   bad = PETSC_FALSE;

  PetscFunctionBegin;
  if (ua->cycle != PC_UAAMG_CYCLE_K || !ksp) PetscFunctionReturn(PETSC_SUCCESS);
  for (const char *t : linear) {
    PetscBool same;
    PetscCall(PetscObjectTypeCompare((PetscObject)ksp, t, &same));
    if (same) bad = PETSC_TRUE;
  }
  if (bad) {
    /* name the KSP by its prefix too: the one that applies the PC first may be an inner one (e.g. KSPCHEBYSHEV's
       eigenvalue estimator, a GMRES with prefix ..._esteig_) */
    const char *prefix;
    PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
    SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_INCOMP, "PCUAAMG's default K-cycle is a nonlinear preconditioner, which KSP type %s%s%s%s does not allow: use -ksp_type fcg (or gcr, fgmres), or a linear cycle with %s v (or w) under CG", ((PetscObject)ksp)->type_name, prefix ? " (options prefix -" : "", prefix ? prefix : "", prefix ? ")" : "", UAAMG_OPT(pc, "cycle"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Decoupled rows (a Dirichlet row kept as a_ii x_i = b_i while the other rows still couple to x_i) make the operator
   nonsymmetric, and the conjugate-gradient methods stagnate on the residual they leave there. Their values are known:
   the initial guess takes x_i = b_i / a_ii before the Krylov method starts, so that every residual vanishes on them;
   the smoothers keep it so (they update these rows by Jacobi, exact on a diagonal row), and the iteration stays in the
   coupled rows, where the operator is SPD. */
static PetscErrorCode PCPreSolve_UAAMG(PC pc, KSP ksp, Vec b, Vec x)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCall(UAAMGCheckKSP(pc, ksp));
  ua->restore_guess_zero = PETSC_FALSE;
  if (!ksp || ksp->dscale || ua->ndecoupled == 0 || ua->lev.size() < 2) PetscFunctionReturn(PETSC_SUCCESS);
  if (ksp->guess_zero) {
    PetscCall(VecSet(x, 0.0));
    ksp->guess_zero        = PETSC_FALSE; /* restored by PCPostSolve_UAAMG */
    ua->restore_guess_zero = PETSC_TRUE;
  }
  {
    MGLevel  &F = ua->H.levels[0];
    DeviceVec bv, xv, gv;
    PetscCall(FineGhosts(ua, x, gv)); /* (explicit zeros of a decoupled row may still be stored) */
    PetscCall(bv.Get(b, Access::Read));
    PetscCall(xv.Get(x, Access::ReadWrite));
    PetscCallCXX(ua::FineLooseUpdate(ua->B, DeviceMatLocalCsr(F.Ad), DeviceMatGhostCsr(F.Ad), gv.cview(), 1.0, bv.cview(), xv.view()));
    PetscCall(xv.Restore());
    PetscCall(bv.Restore());
    PetscCall(gv.Restore());
  }
  PetscCall(PetscInfo(pc, "initial guess set to b_i / a_ii on the %" PetscInt_FMT " decoupled rows\n", ua->ndecoupled));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPostSolve_UAAMG(PC pc, KSP ksp, Vec, Vec)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  if (ksp && ua->restore_guess_zero) ksp->guess_zero = PETSC_TRUE;
  ua->restore_guess_zero = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* composed functions */

static PetscErrorCode PCSetCoordinates_UAAMG(PC pc, PetscInt dim, PetscInt nloc, PetscReal *coords)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(dim >= 1 && dim <= 3, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCSetCoordinates() for PCUAAMG: the dimension must be 1, 2 or 3, not %" PetscInt_FMT, dim);
  PetscCheck(nloc >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCSetCoordinates() for PCUAAMG: the number of local points must be >= 0, not %" PetscInt_FMT, nloc);
  PetscCheck(nloc == 0 || coords, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "PCSetCoordinates() for PCUAAMG: NULL coordinates for %" PetscInt_FMT " points", nloc);
  PetscCall(KokkosInitializeOnce());
  ua->cdim  = dim;
  ua->cnloc = nloc;
  PetscCallCXX(ua->ucoords = View<Real>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("uaamg user coords")), (size_t)(nloc * dim)));
  PetscCallCXX(Kokkos::deep_copy(exec(), ua->ucoords, HostUView<const Real>(coords, (size_t)(nloc * dim))));
  PetscCallCXX(exec().fence()); /* the caller may free coords on return */
  pc->setupcalled = PETSC_FALSE; /* new coordinates: a new aggregation */
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define UAAMG_STRUCTURAL_CHANGE(pc, cond) \
  do { \
    if (cond) (pc)->setupcalled = PETSC_FALSE; \
  } while (0)

static PetscErrorCode PCUAAMGSetCycleType_UAAMG(PC pc, PCUAAMGCycleType type)
{
  PetscFunctionBegin;
  PetscCheck(type >= PC_UAAMG_CYCLE_K && type <= PC_UAAMG_CYCLE_W, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s must be k, v or w, not %d", UAAMG_OPT(pc, "cycle"), (int)type);
  ((PC_UAAMG *)pc->data)->cycle = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetCycleType_UAAMG(PC pc, PCUAAMGCycleType *type)
{
  PetscFunctionBegin;
  *type = ((PC_UAAMG *)pc->data)->cycle;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGSetKCycle_UAAMG(PC pc, PetscInt its, PetscReal rtol, PetscInt min_size)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(its >= 1 && its <= 20, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s (inner iterations of the K-cycle) must lie in [1, 20], not %" PetscInt_FMT, UAAMG_OPT(pc, "kcycle_its"), its);
  PetscCheck(rtol >= 0 && rtol < 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s (early exit of the K-cycle) must lie in [0, 1), not %g", UAAMG_OPT(pc, "kcycle_rtol"), (double)rtol);
  PetscCheck(min_size >= 0 || min_size == PETSC_DETERMINE || min_size == PETSC_DECIDE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s (smallest coarse level with a GCG correction; 0: every level, -1: the default) must be >= -1, not %" PetscInt_FMT, UAAMG_OPT(pc, "kcycle_min_size"), min_size);
  if (min_size == PETSC_DECIDE) min_size = PETSC_DETERMINE;
  ua->kcycle_its  = its;
  ua->kcycle_rtol = rtol;
  ua->kcycle_min  = min_size;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetKCycle_UAAMG(PC pc, PetscInt *its, PetscReal *rtol, PetscInt *min_size)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  if (its) *its = ua->kcycle_its;
  if (rtol) *rtol = ua->kcycle_rtol;
  if (min_size) *min_size = ua->kcycle_min;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGSetSmoothingSweeps_UAAMG(PC pc, PetscInt pre, PetscInt post)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(pre >= 0 && pre <= 100, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s must lie in [0, 100], not %" PetscInt_FMT, UAAMG_OPT(pc, "pre_sweeps"), pre);
  PetscCheck(post >= 0 && post <= 100, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s must lie in [0, 100], not %" PetscInt_FMT, UAAMG_OPT(pc, "post_sweeps"), post);
  PetscCheck(pre + post > 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s and %s cannot both be 0: the multigrid would not smooth", UAAMG_OPT(pc, "pre_sweeps"), UAAMG_OPT(pc, "post_sweeps"));
  ua->pre  = pre;
  ua->post = post;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetSmoothingSweeps_UAAMG(PC pc, PetscInt *pre, PetscInt *post)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  if (pre) *pre = ua->pre;
  if (post) *post = ua->post;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGSetSmoother_UAAMG(PC pc, PCUAAMGSmootherType fine, PCUAAMGSmootherType coarse)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(fine >= PC_UAAMG_SMOOTHER_GS && fine <= PC_UAAMG_SMOOTHER_CHEBYSHEV, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s must be gs, block_gs, jacobi or chebyshev, not %d", UAAMG_OPT(pc, "fine_smoother"), (int)fine);
  PetscCheck(coarse == PC_UAAMG_SMOOTHER_GS || coarse == PC_UAAMG_SMOOTHER_JACOBI || coarse == PC_UAAMG_SMOOTHER_CHEBYSHEV, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s must be gs, jacobi or chebyshev (block_gs is for the finest level only), not %s", UAAMG_OPT(pc, "smoother"), UAAMGEnumName(PCUAAMGSmootherTypes, 4, coarse));
  UAAMG_STRUCTURAL_CHANGE(pc, fine != ua->fine_smoother || coarse != ua->smoother);
  ua->fine_smoother = fine;
  ua->smoother      = coarse;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetSmoother_UAAMG(PC pc, PCUAAMGSmootherType *fine, PCUAAMGSmootherType *coarse)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  if (fine) *fine = ua->fine_smoother;
  if (coarse) *coarse = ua->smoother;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGSetOmega_UAAMG(PC pc, PetscReal omega)
{
  PetscFunctionBegin;
  PetscCheck(omega > 0 && omega < 2, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s (relaxation factor of the smoothers) must lie in (0, 2), not %g", UAAMG_OPT(pc, "omega"), (double)omega);
  ((PC_UAAMG *)pc->data)->omega = omega;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetOmega_UAAMG(PC pc, PetscReal *omega)
{
  PetscFunctionBegin;
  *omega = ((PC_UAAMG *)pc->data)->omega;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGSetBlockMax_UAAMG(PC pc, PetscInt bmax)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(bmax >= 0 && bmax <= 128, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s (largest aggregate solved exactly by the fine block smoother) must lie in [0, 128] (0: 16 in 2D, 32 in 3D), not %" PetscInt_FMT, UAAMG_OPT(pc, "block_max"), bmax);
  UAAMG_STRUCTURAL_CHANGE(pc, bmax != ua->block_max);
  ua->block_max = bmax;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetBlockMax_UAAMG(PC pc, PetscInt *bmax)
{
  PetscFunctionBegin;
  *bmax = ((PC_UAAMG *)pc->data)->block_max;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGSetCoarseSize_UAAMG(PC pc, PetscInt size)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(size >= 1 && size <= 65536, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s (rows of the coarsest level, solved by a dense factorisation) must lie in [1, 65536], not %" PetscInt_FMT, UAAMG_OPT(pc, "coarse_size"), size);
  UAAMG_STRUCTURAL_CHANGE(pc, size != ua->coarse_size);
  ua->coarse_size = size;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetCoarseSize_UAAMG(PC pc, PetscInt *size)
{
  PetscFunctionBegin;
  *size = ((PC_UAAMG *)pc->data)->coarse_size;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGSetReplicateSize_UAAMG(PC pc, PetscInt size)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(size >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s (rows of the first level replicated on every process; 0: none) must be >= 0, not %" PetscInt_FMT, UAAMG_OPT(pc, "replicate_size"), size);
  UAAMG_STRUCTURAL_CHANGE(pc, size != ua->replicate_size);
  ua->replicate_size = size;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetReplicateSize_UAAMG(PC pc, PetscInt *size)
{
  PetscFunctionBegin;
  *size = ((PC_UAAMG *)pc->data)->replicate_size;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGSetMaxLevels_UAAMG(PC pc, PetscInt levels)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(levels >= 1 && levels <= 64, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s must lie in [1, 64], not %" PetscInt_FMT, UAAMG_OPT(pc, "max_levels"), levels);
  UAAMG_STRUCTURAL_CHANGE(pc, levels != ua->max_levels);
  ua->max_levels = levels;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetMaxLevels_UAAMG(PC pc, PetscInt *levels)
{
  PetscFunctionBegin;
  *levels = ((PC_UAAMG *)pc->data)->max_levels;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGSetDepthRule_UAAMG(PC pc, PCUAAMGDepthRule rule)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(rule == PC_UAAMG_DEPTH_TARGET || rule == PC_UAAMG_DEPTH_PAPER, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s must be target or paper, not %d", UAAMG_OPT(pc, "depth_rule"), (int)rule);
  UAAMG_STRUCTURAL_CHANGE(pc, rule != ua->depth_rule);
  ua->depth_rule = rule;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetDepthRule_UAAMG(PC pc, PCUAAMGDepthRule *rule)
{
  PetscFunctionBegin;
  *rule = ((PC_UAAMG *)pc->data)->depth_rule;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGSetFineAggregateSize_UAAMG(PC pc, PetscReal s)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(s == 0 || (s >= 1 && s <= 1e6), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s (mean unknowns per fine aggregate of the target depth rule) must be 0 (2^d) or lie in [1, 1e6], not %g", UAAMG_OPT(pc, "fine_agg_size"), (double)s);
  UAAMG_STRUCTURAL_CHANGE(pc, s != ua->agg_size);
  ua->agg_size = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetFineAggregateSize_UAAMG(PC pc, PetscReal *s)
{
  PetscFunctionBegin;
  *s = ((PC_UAAMG *)pc->data)->agg_size;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGSetFineAggregateMax_UAAMG(PC pc, PetscInt s)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(s == PETSC_DETERMINE || s == PETSC_DEFAULT || (s >= 0 && s <= 1073741824), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s (largest fine aggregate before its cell of the auxiliary tree is split) must be 0 (never split), PETSC_DETERMINE (4 x the fine aggregate size: 16 in 2D, 32 in 3D) or lie in [1, 2^30], not %" PetscInt_FMT, UAAMG_OPT(pc, "fine_agg_max"), s);
  if (s == PETSC_DEFAULT) s = PETSC_DETERMINE;
  UAAMG_STRUCTURAL_CHANGE(pc, s != ua->fine_agg_max);
  ua->fine_agg_max = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetFineAggregateMax_UAAMG(PC pc, PetscInt *s)
{
  PetscFunctionBegin;
  *s = ((PC_UAAMG *)pc->data)->fine_agg_max;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGSetBoundingBox_UAAMG(PC pc, PetscInt n, const PetscReal box[])
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(n == 0 || n == 2 || n == 4 || n == 6, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_SIZ, "%s takes xmin,xmax[,ymin,ymax[,zmin,zmax]] (2, 4 or 6 numbers; 0 to use the hull of the coordinates), not %" PetscInt_FMT, UAAMG_OPT(pc, "bbox"), n);
  for (PetscInt a = 0; a < n / 2; a++) {
    PetscCheck(!PetscIsInfOrNanReal(box[2 * a]) && !PetscIsInfOrNanReal(box[2 * a + 1]), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s: entries must be finite", UAAMG_OPT(pc, "bbox"));
    PetscCheck(box[2 * a] <= box[2 * a + 1], PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s: axis %" PetscInt_FMT " has min %g > max %g", UAAMG_OPT(pc, "bbox"), a, (double)box[2 * a], (double)box[2 * a + 1]);
  }
  pc->setupcalled = PETSC_FALSE;
  ua->nbox        = n;
  for (PetscInt i = 0; i < n; i++) ua->box[i] = box[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetBoundingBox_UAAMG(PC pc, PetscInt *n, PetscReal box[])
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  if (n) *n = ua->nbox;
  if (box)
    for (PetscInt i = 0; i < ua->nbox; i++) box[i] = ua->box[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGSetCoarseFormat_UAAMG(PC pc, PCUAAMGCoarseFormat format)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(format == PC_UAAMG_FORMAT_STENCIL || format == PC_UAAMG_FORMAT_CSR, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s must be stencil or csr, not %d", UAAMG_OPT(pc, "coarse_format"), (int)format);
  UAAMG_STRUCTURAL_CHANGE(pc, format != ua->format);
  ua->format = format;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetCoarseFormat_UAAMG(PC pc, PCUAAMGCoarseFormat *format)
{
  PetscFunctionBegin;
  *format = ((PC_UAAMG *)pc->data)->format;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGSetDeviceSetup_UAAMG(PC pc, PetscBool flg)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  UAAMG_STRUCTURAL_CHANGE(pc, flg != ua->device_setup);
  ua->device_setup = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetDeviceSetup_UAAMG(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((PC_UAAMG *)pc->data)->device_setup;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGSetHybridSmoother_UAAMG(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  ((PC_UAAMG *)pc->data)->hybrid = flg; /* a property of the cycle, not of the levels: no new setup */
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetHybridSmoother_UAAMG(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((PC_UAAMG *)pc->data)->hybrid;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetComplexities_UAAMG(PC pc, PetscReal *oc, PetscReal *gc)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(!ua->lev.empty(), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCUAAMGGetComplexities(): call PCSetUp() (or KSPSetUp()) first");
  if (oc) *oc = ua->oc;
  if (gc) *gc = ua->gc;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCUAAMGGetNumberOfLevels_UAAMG(PC pc, PetscInt *n)
{
  PetscFunctionBegin;
  *n = UAAMGNumLevels((PC_UAAMG *)pc->data);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */

static const char *const UAAMGComposed[] = {"PCSetCoordinates_C",          "PCUAAMGSetCycleType_C",       "PCUAAMGGetCycleType_C",       "PCUAAMGSetKCycle_C",     "PCUAAMGGetKCycle_C",     "PCUAAMGSetSmoothingSweeps_C", "PCUAAMGGetSmoothingSweeps_C", "PCUAAMGSetSmoother_C", "PCUAAMGGetSmoother_C",
                                            "PCUAAMGSetOmega_C",           "PCUAAMGGetOmega_C",           "PCUAAMGSetBlockMax_C",        "PCUAAMGGetBlockMax_C",   "PCUAAMGSetCoarseSize_C", "PCUAAMGGetCoarseSize_C",      "PCUAAMGSetMaxLevels_C",       "PCUAAMGGetMaxLevels_C", "PCUAAMGSetDepthRule_C",
                                            "PCUAAMGGetDepthRule_C",       "PCUAAMGSetFineAggregateSize_C", "PCUAAMGGetFineAggregateSize_C", "PCUAAMGSetFineAggregateMax_C", "PCUAAMGGetFineAggregateMax_C", "PCUAAMGSetBoundingBox_C", "PCUAAMGGetBoundingBox_C", "PCUAAMGSetCoarseFormat_C", "PCUAAMGGetCoarseFormat_C", "PCUAAMGGetComplexities_C", "PCUAAMGGetNumberOfLevels_C", "PCUAAMGSetDeviceSetup_C", "PCUAAMGGetDeviceSetup_C", "PCUAAMGSetHybridSmoother_C", "PCUAAMGGetHybridSmoother_C", "PCUAAMGSetReplicateSize_C", "PCUAAMGGetReplicateSize_C"};

static PetscErrorCode PCDestroy_UAAMG(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_UAAMG(pc));
  for (const char *name : UAAMGComposed) PetscCall(PetscObjectComposeFunction((PetscObject)pc, name, NULL));
  PetscCall(TypeDataDestroy<PC_UAAMG>(&pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_UAAMG(PC pc, PETSCKP_OPTIONS_ARG)
{
  PC_UAAMG           *ua = (PC_UAAMG *)pc->data;
  PCUAAMGCycleType    cycle = ua->cycle;
  PCUAAMGDepthRule    rule  = ua->depth_rule;
  PCUAAMGSmootherType fsm = ua->fine_smoother, csm = ua->smoother;
  PCUAAMGCoarseFormat fmt = ua->format;
  PetscInt            amax = ua->fine_agg_max;
  PetscInt            kits = ua->kcycle_its, kmin = ua->kcycle_min, pre = ua->pre, post = ua->post, bmax = ua->block_max, csize = ua->coarse_size, levels = ua->max_levels, nbox = 6, rsize = ua->replicate_size;
  PetscReal           krtol = ua->kcycle_rtol, omega = ua->omega, asize = ua->agg_size, box[6] = {0, 0, 0, 0, 0, 0};
  PetscBool           flg, flg2, flg3, dev = ua->device_setup, hyb = ua->hybrid;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "UAAMG options (auxiliary-grid unsmoothed-aggregation AMG)");
  PetscCall(PetscOptionsEnum("-pc_uaamg_cycle", "Cycle: k (nonlinear AMLI/K-cycle, needs -ksp_type fcg, gcr or fgmres), v or w (linear and symmetric, for CG)", "PCUAAMGSetCycleType", PCUAAMGCycleTypes, (PetscEnum)cycle, (PetscEnum *)&cycle, &flg));
  if (flg) PetscCall(PCUAAMGSetCycleType(pc, cycle));
  PetscCall(PetscOptionsInt("-pc_uaamg_kcycle_its", "Inner GCG iterations of the K-cycle on every level, in [1, 20]", "PCUAAMGSetKCycle", kits, &kits, &flg));
  PetscCall(PetscOptionsReal("-pc_uaamg_kcycle_rtol", "K-cycle early exit: one inner iteration when it reduces the residual by this factor, in [0, 1) (0: never)", "PCUAAMGSetKCycle", krtol, &krtol, &flg2));
  PetscCall(PetscOptionsInt("-pc_uaamg_kcycle_min_size", "GCG corrections on coarse levels of at least this many rows, V-cycles below (0: every level; -1: 65536 on a GPU when a coarse level is that large, else 0)", "PCUAAMGSetKCycle", kmin, &kmin, &flg3));
  if (flg || flg2 || flg3) PetscCall(PCUAAMGSetKCycle(pc, kits, krtol, kmin));
  PetscCall(PetscOptionsInt("-pc_uaamg_pre_sweeps", "Smoothing sweeps before the coarse correction", "PCUAAMGSetSmoothingSweeps", pre, &pre, &flg));
  PetscCall(PetscOptionsInt("-pc_uaamg_post_sweeps", "Smoothing sweeps after the coarse correction (colours in reverse order)", "PCUAAMGSetSmoothingSweeps", post, &post, &flg2));
  if (flg || flg2) PetscCall(PCUAAMGSetSmoothingSweeps(pc, pre, post));
  PetscCall(PetscOptionsEnum("-pc_uaamg_fine_smoother", "Smoother of the finest level", "PCUAAMGSetSmoother", PCUAAMGSmootherTypes, (PetscEnum)fsm, (PetscEnum *)&fsm, &flg));
  PetscCall(PetscOptionsEnum("-pc_uaamg_smoother", "Smoother of the coarse levels (gs, jacobi or chebyshev)", "PCUAAMGSetSmoother", PCUAAMGSmootherTypes, (PetscEnum)csm, (PetscEnum *)&csm, &flg2));
  if (flg || flg2) PetscCall(PCUAAMGSetSmoother(pc, fsm, csm));
  PetscCall(PetscOptionsReal("-pc_uaamg_omega", "Relaxation factor of the smoothers, in (0, 2)", "PCUAAMGSetOmega", omega, &omega, &flg));
  if (flg) PetscCall(PCUAAMGSetOmega(pc, omega));
  PetscCall(PetscOptionsInt("-pc_uaamg_block_max", "Largest aggregate solved exactly by the fine block Gauss-Seidel (0: 16 in 2D, 32 in 3D)", "PCUAAMGSetBlockMax", bmax, &bmax, &flg));
  if (flg) PetscCall(PCUAAMGSetBlockMax(pc, bmax));
  PetscCall(PetscOptionsInt("-pc_uaamg_coarse_size", "Coarsen until a level has at most this many rows; solved by a dense factorisation", "PCUAAMGSetCoarseSize", csize, &csize, &flg));
  if (flg) PetscCall(PCUAAMGSetCoarseSize(pc, csize));
  PetscCall(PetscOptionsInt("-pc_uaamg_replicate_size", "Under MPI: the first level of at most this many rows and the coarser ones are replicated on every process (0: none)", "PCUAAMGSetReplicateSize", rsize, &rsize, &flg));
  if (flg) PetscCall(PCUAAMGSetReplicateSize(pc, rsize));
  PetscCall(PetscOptionsInt("-pc_uaamg_max_levels", "Maximum number of levels, the finest included", "PCUAAMGSetMaxLevels", levels, &levels, &flg));
  if (flg) PetscCall(PCUAAMGSetMaxLevels(pc, levels));
  PetscCall(PetscOptionsEnum("-pc_uaamg_depth_rule", "Depth of the auxiliary tree: target (about N / fine_agg_size cells, near-square) or paper (floor(log_{2^d} N) on every axis)", "PCUAAMGSetDepthRule", PCUAAMGDepthRules, (PetscEnum)rule, (PetscEnum *)&rule, &flg));
  if (flg) PetscCall(PCUAAMGSetDepthRule(pc, rule));
  PetscCall(PetscOptionsReal("-pc_uaamg_fine_agg_size", "Mean unknowns per fine aggregate of the target depth rule (0: 2^d)", "PCUAAMGSetFineAggregateSize", asize, &asize, &flg));
  if (flg) PetscCall(PCUAAMGSetFineAggregateSize(pc, asize));
  PetscCall(PetscOptionsInt("-pc_uaamg_fine_agg_max", "Split a cell of the auxiliary tree holding more unknowns into its 2^d children, recursively (adaptive tree; -1: 4 x fine_agg_size, 16 in 2D, 32 in 3D; 0: never, the paper's uniform tree)", "PCUAAMGSetFineAggregateMax", amax, &amax, &flg));
  if (flg) PetscCall(PCUAAMGSetFineAggregateMax(pc, amax));
  PetscCall(PetscOptionsRealArray("-pc_uaamg_bbox", "Root box of the auxiliary grid xmin,xmax[,ymin,ymax[,zmin,zmax]] (default: the hull of the coordinates)", "PCUAAMGSetBoundingBox", box, &nbox, &flg));
  if (flg) PetscCall(PCUAAMGSetBoundingBox(pc, nbox, box));
  PetscCall(PetscOptionsEnum("-pc_uaamg_coarse_format", "Storage of the coarse levels: stencil (one process) or csr", "PCUAAMGSetCoarseFormat", PCUAAMGCoarseFormats, (PetscEnum)fmt, (PetscEnum *)&fmt, &flg));
  if (flg) PetscCall(PCUAAMGSetCoarseFormat(pc, fmt));
  PetscCall(PetscOptionsBool("-pc_uaamg_device_setup", "CSR coarse levels: Galerkin products on the device (distributed under MPI) or by MatPtAP on the host", "PCUAAMGSetDeviceSetup", dev, &dev, &flg));
  if (flg) PetscCall(PCUAAMGSetDeviceSetup(pc, dev));
  PetscCall(PetscOptionsBool("-pc_uaamg_hybrid_smoother", "Under MPI: one ghost exchange per Gauss-Seidel sweep (Jacobi between processes) instead of one per colour", "PCUAAMGSetHybridSmoother", hyb, &hyb, &flg));
  if (flg) PetscCall(PCUAAMGSetHybridSmoother(pc, hyb));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *SmootherText(PCUAAMGSmootherType t, bool fine)
{
  switch (t) {
  case PC_UAAMG_SMOOTHER_GS:
    return fine ? "coloured block Gauss-Seidel, point Gauss-Seidel inside every aggregate" : "coloured point Gauss-Seidel";
  case PC_UAAMG_SMOOTHER_BLOCK_GS:
    return "coloured block Gauss-Seidel over the aggregates";
  case PC_UAAMG_SMOOTHER_JACOBI:
    return "weighted Jacobi";
  case PC_UAAMG_SMOOTHER_CHEBYSHEV:
    return "Chebyshev (Jacobi-preconditioned, on [0.1, 1.1] lambda_max)";
  default:
    return "unknown";
  }
}

static PetscErrorCode PCView_UAAMG(PC pc, PetscViewer viewer)
{
  PC_UAAMG *ua = (PC_UAAMG *)pc->data;
  PetscBool iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (ua->cycle == PC_UAAMG_CYCLE_K) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "auxiliary-grid unsmoothed-aggregation AMG: K-cycle (nonlinear: use a flexible Krylov method), %" PetscInt_FMT " inner GCG iterations, early exit at %g", ua->kcycle_its, (double)ua->kcycle_rtol));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE)); /* the rest of the line continues it */
    if (UAAMGKCycleMinSize(ua) > 0) PetscCall(PetscViewerASCIIPrintf(viewer, ", V-cycles on levels of fewer than %" PetscInt_FMT " rows\n", UAAMGKCycleMinSize(ua)));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  }
  else PetscCall(PetscViewerASCIIPrintf(viewer, "auxiliary-grid unsmoothed-aggregation AMG: %s-cycle (linear, symmetric)\n", ua->cycle == PC_UAAMG_CYCLE_V ? "V" : "W"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "smoothers: %" PetscInt_FMT " pre / %" PetscInt_FMT " post sweeps, omega %g; finest level: %s", ua->pre, ua->post, (double)ua->omega, SmootherText(ua->fine_smoother, true)));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE)); /* the rest of the line continues it */
  if (ua->fine_smoother == PC_UAAMG_SMOOTHER_BLOCK_GS) {
    if (ua->block_max > 0) PetscCall(PetscViewerASCIIPrintf(viewer, ", exact solves of aggregates of at most %" PetscInt_FMT " unknowns\n", ua->block_max));
    else PetscCall(PetscViewerASCIIPrintf(viewer, ", exact solves of aggregates of at most 16 (2D) / 32 (3D) unknowns\n"));
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  PetscCall(PetscViewerASCIIPrintf(viewer, "coarse levels: %s\n", SmootherText(ua->smoother, false)));
  {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
    const bool gs = ua->fine_smoother == PC_UAAMG_SMOOTHER_GS || ua->fine_smoother == PC_UAAMG_SMOOTHER_BLOCK_GS || ua->smoother == PC_UAAMG_SMOOTHER_GS;
    if (size > 1 && gs) PetscCall(PetscViewerASCIIPrintf(viewer, "Gauss-Seidel under MPI: %s\n", ua->hybrid && ua->omega <= 1 ? "hybrid, one ghost exchange per sweep (Jacobi between processes)" : ua->hybrid ? "one ghost exchange per colour (hybrid sweeps are taken only for omega <= 1)" : "one ghost exchange per colour"));
    if (size > 1 && gs && !(ua->hybrid && ua->omega <= 1)) PetscCall(PetscViewerASCIIPrintf(viewer, "  levels coloured by a graph colouring because cells split between processes coupled rows of one parity colour: %" PetscInt_FMT "\n", ua->nsplitcoloured));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "depth rule %s", UAAMGEnumName(PCUAAMGDepthRules, 2, ua->depth_rule)));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE)); /* the rest of the line continues it */
  if (ua->depth_rule == PC_UAAMG_DEPTH_TARGET) {
    if (ua->agg_size > 0) PetscCall(PetscViewerASCIIPrintf(viewer, " (%g unknowns per fine aggregate)", (double)ua->agg_size));
    else PetscCall(PetscViewerASCIIPrintf(viewer, " (2^d unknowns per fine aggregate)"));
  }
  if (ua->fine_agg_max == 0) PetscCall(PetscViewerASCIIPrintf(viewer, ", uniform tree (cells never split)"));
  else if (ua->fine_agg_max > 0) PetscCall(PetscViewerASCIIPrintf(viewer, ", cells of more than %" PetscInt_FMT " unknowns split", ua->fine_agg_max));
  else if (ua->dim > 0) PetscCall(PetscViewerASCIIPrintf(viewer, ", cells of more than %" PetscInt_FMT " unknowns split (4 x the fine aggregate size)", UAAMGFineAggregateMax(ua)));
  else PetscCall(PetscViewerASCIIPrintf(viewer, ", cells of more than 4 x the fine aggregate size split"));
  PetscCall(PetscViewerASCIIPrintf(viewer, ", coarse size %" PetscInt_FMT ", at most %" PetscInt_FMT " levels, coarse storage %s%s\n", ua->coarse_size, ua->max_levels, UAAMGEnumName(PCUAAMGCoarseFormats, 2, ua->format),
                                   ua->format == PC_UAAMG_FORMAT_STENCIL && ua->lev.size() > 1 && !ua->stencil ? " (csr used: stencil storage needs one process and the uniform tree)" : ""));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  if (ua->lev.empty()) PetscFunctionReturn(PETSC_SUCCESS);
  if (ua->lev.size() > 1) {
    const ua::StencilGrid &gL = ua->lev[0].grid;
    PetscCall(PetscViewerASCIIPrintf(viewer, "coordinates from %s, dimension %d\n", CoordSourceName(ua->source), ua->dim));
    PetscCall(PetscViewerASCIIPrintf(viewer, "auxiliary grid: box"));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE)); /* the rest of the line continues it */
    for (int a = 0; a < ua->dim; a++) PetscCall(PetscViewerASCIIPrintf(viewer, " [%g, %g]", (double)ua->aux.lo[a], (double)ua->aux.hi[a]));
    PetscCall(PetscViewerASCIIPrintf(viewer, ", %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cells, reach %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT " (stencil %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " colours)\n", (PetscInt)gL.n[0], (PetscInt)gL.n[1], (PetscInt)gL.n[2], (PetscInt)gL.r[0], (PetscInt)gL.r[1], (PetscInt)gL.r[2], (PetscInt)gL.width(0), (PetscInt)gL.width(1), (PetscInt)gL.width(2), (PetscInt)gL.ncolours()));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
    PetscCall(PetscViewerASCIIPrintf(viewer, "fine aggregates: %" PetscInt_FMT " nonempty", ua->nagg));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE)); /* the rest of the line continues it */
    if (ua->nempty >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, ", %" PetscInt_FMT " empty cells", ua->nempty));
    PetscCall(PetscViewerASCIIPrintf(viewer, ", unknowns per aggregate min %" PetscInt_FMT " mean %.2f max %" PetscInt_FMT ", %" PetscInt_FMT " decoupled rows in none\n", ua->minsize, ua->nagg ? (double)ua->nmembers / ua->nagg : 0.0, ua->maxsize, ua->ndecoupled));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
    if (ua->adaptive)
      PetscCall(PetscViewerASCIIPrintf(viewer, "adaptive auxiliary tree: %" PetscInt_FMT " split cells (more than %" PetscInt_FMT " unknowns), leaf depths %" PetscInt_FMT "..%" PetscInt_FMT ", levels stored as CSR%s, coloured by a graph colouring of their operators\n", ua->nsplitcells, ua->smax, ua->leafmin, ua->leafmax, ua->format_fallback ? " (not in the stencil storage asked for: it needs the uniform tree)" : ""));
    if (ua->fine_smoother == PC_UAAMG_SMOOTHER_BLOCK_GS || ua->fine_smoother == PC_UAAMG_SMOOTHER_GS) PetscCall(PetscViewerASCIIPrintf(viewer, "fine blocks: %" PetscInt_FMT " solved exactly, %" PetscInt_FMT " not positive definite (point Gauss-Seidel instead)\n", ua->nexact, ua->nfailed));
  }
  if (!ua->stencil && ua->lev.size() > 1) {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
    PetscCall(PetscViewerASCIIPrintf(viewer, "coarse operators: %s\n", !ua->H.device ? "MatPtAP() on host AIJ copies" : size > 1 ? "device Galerkin products of the aggregation, local and ghost blocks (the aggregates never cross processes)" : "device Galerkin products of the aggregation"));
  }
  {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
    if (size > 1 && ua->H.replicated)
      PetscCall(PetscViewerASCIIPrintf(viewer, "replicated levels: %" PetscInt_FMT " .. %" PetscInt_FMT " on every process (from the first level of at most %" PetscInt_FMT " rows), one gather per visit, the first coloured by a graph colouring\n", (PetscInt)ua->lev.size() - 1, UAAMGNumLevels(ua) - 1, ua->replicate_size));
    else if (size > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "replicated levels: none (replicate size %" PetscInt_FMT "%s)\n", ua->replicate_size, ua->adaptive ? ", adaptive tree" : ""));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "levels: %" PetscInt_FMT ", operator complexity %.4f, grid complexity %.4f\n", UAAMGNumLevels(ua), (double)ua->oc, (double)ua->gc));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  for (PetscInt l = 0; l < UAAMGNumLevels(ua); l++) {
    const UAAMGLevel &G = UAAMGLevelOf(ua, l);
    if (ua->H.replicated && l >= (PetscInt)ua->lev.size() - 1)
      PetscCall(PetscViewerASCIIPrintf(viewer, "level %d: %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, CSR, replicated, grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cells, %" PetscInt_FMT " colours\n", (int)l, G.rows, G.nnz, (PetscInt)G.grid.n[0], (PetscInt)G.grid.n[1], (PetscInt)G.grid.n[2], G.ncolours));
    else if (G.kind == LevelKind::Fine) PetscCall(PetscViewerASCIIPrintf(viewer, "level %d: %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros (the operator)\n", (int)l, G.rows, G.nnz));
    else if (ua->adaptive) PetscCall(PetscViewerASCIIPrintf(viewer, "level %d: %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, CSR, adaptive tree cells of depths %" PetscInt_FMT "..%" PetscInt_FMT ", %" PetscInt_FMT " colours\n", (int)l, G.rows, G.nnz, G.dmin, G.dmax, G.ncolours));
    else
      PetscCall(PetscViewerASCIIPrintf(viewer, "level %d: %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, %s, grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cells, stencil %" PetscInt_FMT "-point, %" PetscInt_FMT " colours\n", (int)l, G.rows, G.nnz, G.kind == LevelKind::Stencil ? "stencil storage" : "CSR", (PetscInt)G.grid.n[0], (PetscInt)G.grid.n[1], (PetscInt)G.grid.n[2], (PetscInt)G.grid.nslots(), (PetscInt)G.grid.ncolours()));
  }
  PetscCall(PetscViewerASCIIPopTab(viewer));
  {
    const UAAMGLevel &C = UAAMGLevelOf(ua, UAAMGNumLevels(ua) - 1);
    PetscCall(PetscViewerASCIIPrintf(viewer, "coarsest level: dense Cholesky factorisation of %" PetscInt_FMT " rows on every process%s\n", C.rows, C.kind == LevelKind::Stencil ? " (empty cells: unit rows)" : ""));
  }
  {
    PetscInt nbreak;
    PetscCall(MGHierarchyGetKCycleBreakdowns(ua->H, &nbreak));
    if (nbreak) PetscCall(PetscViewerASCIIPrintf(viewer, "K-cycle inner iterations stopped by a breakdown so far: %" PetscInt_FMT "\n", nbreak));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCUAAMG - auxiliary-grid unsmoothed-aggregation algebraic multigrid (Wang, Hu, Cohen and Xu) for symmetric
   positive definite systems from scalar, (nearly) isotropic elliptic problems, with its whole setup on the device.

   Options Database Keys:
+  -pc_uaamg_cycle <k,v,w>                          - nonlinear AMLI/K-cycle (default), or a linear symmetric V/W-cycle, `PCUAAMGSetCycleType()`
.  -pc_uaamg_kcycle_its <2>                         - inner GCG iterations of the K-cycle, `PCUAAMGSetKCycle()`
.  -pc_uaamg_kcycle_rtol <0.2>                      - one inner iteration only when it reduces the residual by this factor (0: never), `PCUAAMGSetKCycle()`
.  -pc_uaamg_kcycle_min_size <-1>                   - GCG corrections only on coarse levels of at least this many rows, V-cycles below (0: every level; -1: 65536 on a GPU, 0 on a CPU), `PCUAAMGSetKCycle()`
.  -pc_uaamg_pre_sweeps <1>                         - smoothing sweeps before the coarse correction, `PCUAAMGSetSmoothingSweeps()`
.  -pc_uaamg_post_sweeps <1>                        - sweeps after it, colours (and unknowns in a block) in reverse order, `PCUAAMGSetSmoothingSweeps()`
.  -pc_uaamg_fine_smoother <block_gs,gs,jacobi,chebyshev> - smoother of the finest level, `PCUAAMGSetSmoother()`
.  -pc_uaamg_smoother <gs,jacobi,chebyshev>          - smoother of the coarse levels, `PCUAAMGSetSmoother()`
.  -pc_uaamg_omega <1>                              - relaxation factor of the smoothers, `PCUAAMGSetOmega()`
.  -pc_uaamg_block_max <0>                          - largest aggregate solved exactly by the fine block smoother (0: 16 in 2D, 32 in 3D), `PCUAAMGSetBlockMax()`
.  -pc_uaamg_coarse_size <1024>                     - coarsen until a level has at most this many rows, `PCUAAMGSetCoarseSize()`
.  -pc_uaamg_replicate_size <50000>                 - under MPI, replicate the first level of at most this many rows and the coarser ones on every process (0: none), `PCUAAMGSetReplicateSize()`
.  -pc_uaamg_max_levels <25>                        - maximum number of levels, `PCUAAMGSetMaxLevels()`
.  -pc_uaamg_depth_rule <target,paper>              - depth of the auxiliary tree, `PCUAAMGSetDepthRule()`
.  -pc_uaamg_fine_agg_size <0>                      - mean unknowns per fine aggregate of the target rule (0: 2^d), `PCUAAMGSetFineAggregateSize()`
.  -pc_uaamg_fine_agg_max <-1>                      - split cells of more unknowns into their 2^d children, recursively (-1: 4 x fine_agg_size, i.e. 16 in 2D, 32 in 3D; 0: never), `PCUAAMGSetFineAggregateMax()`
.  -pc_uaamg_bbox <xmin,xmax,ymin,ymax,...>         - root box of the auxiliary grid (default: the hull of the coordinates), `PCUAAMGSetBoundingBox()`
.  -pc_uaamg_coarse_format <stencil,csr>            - storage of the coarse levels, `PCUAAMGSetCoarseFormat()`
.  -pc_uaamg_device_setup <true>                    - CSR levels: Galerkin products on the device (distributed under MPI), or `MatPtAP()` on the host, `PCUAAMGSetDeviceSetup()`
-  -pc_uaamg_hybrid_smoother <true>                 - under MPI, one ghost exchange per Gauss-Seidel sweep instead of one per colour, `PCUAAMGSetHybridSmoother()`

   Level: intermediate

   Notes:
   The aggregates come from geometry, not from the graph of the matrix (Section 3 of the paper): the bounding box of
   the unknowns' coordinates is split into 2^{L_x} x 2^{L_y} (x 2^{L_z}) equal cells (a full region quadtree or
   octree), the unknowns in one cell form one aggregate, P is piecewise constant (never formed), and A_L = P^T A P is
   a sum over the cells; every coarser level merges 2 x 2 (x 2) children (Sections 4.2-4.4). The depth follows
   `-pc_uaamg_depth_rule`: target (default) puts about 2^d unknowns in a cell and gives each split to the axis with
   the widest cells, so that cells stay near square for any box; paper takes L = floor(log N / log 2^d) splits of
   every axis, the rule of Section 3.1 (with N just above a power of 2^d it leaves about one unknown per cell).
   Rows with no off-diagonal entry (Dirichlet rows kept in the matrix) join no aggregate and are smoothed by Jacobi.

   Adaptive tree: on graded meshes the uniform tree leaves hundreds of unknowns in the cells of the dense region (the
   fine-level imbalance the paper concedes for its shape-regular grid, Section 5.2, Table 4), far too aggressive a
   coarsening for piecewise-constant aggregates, and the iteration counts grow under refinement. A cell holding more
   than `-pc_uaamg_fine_agg_max` unknowns of a process is split into its 2^d children, recursively (at most 31 levels
   per axis in 2D, 20 in 3D); the fine aggregates are the leaves. An unknown whose leaf is at depth c belongs on
   level j of the hierarchy to its ancestor at depth max(c - j + 1, 0): every part of the mesh coarsens by 2^d per
   level, and aggregates of different depths merge only in the root. With the default threshold (4 x the target size)
   the cells of uniform and quasi-uniform meshes, which hold about the target, are normally not split, and their
   hierarchy is that of the uniform tree. When a cell is split the levels are stored as CSR (the stencil storage
   needs the uniform tree) and the smoothers' colours come from a graph colouring of every level's Galerkin operator
   (made consistent across processes) instead of the parity of the cells; `-pc_view` reports it.

   Coordinates come from `PCSetCoordinates()` (one point per row, interlaced; call it after `PCSetType()`), else
   from the `DM` of the `PC`: a `DMDA`'s coordinates (its grid indices when it has none), or a `DMPlex`'s vertex
   coordinates (P1/Q1 fields) or cell centroids (finite volumes). Without either, `PCSetUp()` raises an error.

   The paper asserts a 9-point (27-point) coarse stencil; that holds only when no matrix entry couples unknowns more
   than one cell apart in an axis. The setup measures that reach r (`-pc_view` shows it) and uses (2r+1)^d-point
   stencils with (r+1)^d colours, so that the coloured smoothers never update coupled cells at once on any mesh.

   Smoothers (Section 4.5): on the finest level a coloured block Gauss-Seidel with the aggregates as blocks (exact
   dense block solves up to `-pc_uaamg_block_max` unknowns, a point Gauss-Seidel pass inside larger blocks or
   blocks that are not numerically SPD), on the coarse levels a coloured point Gauss-Seidel; 4 parity colours in 2D,
   8 in 3D; forward before and backward after the coarse correction. Jacobi and Chebyshev are alternatives.

   The default cycle is the nonlinear AMLI-cycle (K-cycle, Algorithms 2.1-2.2): the coarse correction of every level
   is `-pc_uaamg_kcycle_its` steps of a generalised conjugate gradient preconditioned by the cycle below, with the
   early exit of Notay and Vassilevski. The preconditioner is then nonlinear: use `-ksp_type fcg` (`KSPFCG`), `gcr`
   or `fgmres`; `KSPSolve()` raises an error with `KSPCG`, `KSPGMRES` and the other methods that assume a fixed
   linear preconditioner. On GPU vectors prefer `KSPFGMRES` or `KSPGCR`: PETSc's `KSPFCG` moves two vectors to the
   host every iteration there (PETSc 3.25, CUDA), which made it 9x slower than `KSPFGMRES` at 257^3 on an H100 for
   the same iterations. With `-pc_uaamg_cycle v` (or `w`) and equal pre- and post-sweeps of a Gauss-Seidel or
   Chebyshev smoother the preconditioner is linear and symmetric positive definite: use `KSPCG`. The coarsest level
   (at most `-pc_uaamg_coarse_size` rows) is solved by a dense Cholesky factorisation.

   Setup on the device: on one process every step (box, depths, cells, reach, the Galerkin product in stencil
   storage, the tree levels, the block inverses and the coarsest factorisation's input) runs in Kokkos kernels; only
   the dense coarsest factorisation runs on the host. A new matrix with the same nonzero pattern
   (`SAME_NONZERO_PATTERN`, time stepping) keeps the grid and the aggregates and redoes the Galerkin products, the
   smoother data and the coarsest factorisation. Under MPI the aggregates never cross processes: an aggregate is the
   set of a process's unknowns in one cell, the coarse levels are CSR matrices formed on the device by the aggregation
   products of the shared multigrid layer, of the local block and of the ghost block, whose columns' aggregates are
   fetched from their owners once per level; no coarse row is sent (`-pc_uaamg_device_setup false`: PETSc's `MatPtAP()` on host copies; the device stencil storage
   needs one process), smoothed by the same parity colours (cells split between processes are smoothed as independent
   pieces) with one ghost exchange per sweep, the other processes' values held for all colours of the sweep (hybrid
   Gauss-Seidel: Jacobi between processes; `-pc_uaamg_hybrid_smoother false`, and any omega > 1, exchange after each
   colour: Gauss-Seidel between processes too. The pieces of a cell split by a process boundary are coupled aggregates
   of the cell's parity colour: a level where that happens is coloured by the distributed graph colouring instead,
   so that no coupled rows share a colour; `-pc_view` counts those levels), and the coarsest level is gathered to every process for the dense solve. `-pc_uaamg_coarse_format csr` selects the CSR levels on one process too (formed there by the
   aggregation's device Galerkin products).

   Coarse-level replication (agglomeration, as distributed AMG codes do it): the small coarse levels cost a ghost
   exchange per sweep, product and transfer and a reduction per inner product of the K-cycle, each a round trip through
   the hosts on GPUs without GPU-aware MPI, for little work; and the K-cycle visits level l 2^l times. The first level
   of at most `-pc_uaamg_replicate_size` rows (above the coarse size) is therefore gathered to every process with the
   cells of its aggregates, and the coarser levels are built there from the parents of those cells, as on one process
   (the pieces of a cell on several processes then merge into one aggregate). Each process runs the cycle on these
   levels redundantly, the inner GCG iterations of the K-cycle on the first of them included, without communication:
   one `MPI_Allgatherv` of the restricted residual per visit, and each process keeps its rows of the correction. The
   replicated levels are coloured as on one process (the first of them by a graph colouring of its operator, since
   the pieces of one cell on several processes are coupled) and smoothed by a true Gauss-Seidel sweep; iteration
   counts stay close to those of the distributed levels. The adaptive tree keeps its levels distributed.

   b and x of another type than the operator's vectors (host vectors with a GPU operator) are copied to and from
   vectors of the operator's type around each application: PETSc's vector operations between two types are not valid.

   Limitations: scalar problems only (block size 1); the constant is the only coarse-space vector, so strongly
   anisotropic or high-contrast coefficients and elasticity need `PCGAMG` or `PCHYPRE`; a singular operator (pure
   Neumann) is refused by the coarsest factorisation.

   References:
   L. Wang, X. Hu, J. Cohen and J. Xu, A parallel auxiliary grid algebraic multigrid method for graphic processing
   units, SIAM J. Sci. Comput. 35 (2013). Y. Notay and P. S. Vassilevski, Recursive Krylov-based multigrid cycles,
   Numer. Linear Algebra Appl. 15 (2008).

.seealso: `PCGAMG`, `PCHYPRE`, `KSPFCG`, `PCSetCoordinates()`, `PCUAAMGSetCycleType()`, `PCUAAMGSetKCycle()`,
          `PCUAAMGSetSmoothingSweeps()`, `PCUAAMGSetSmoother()`, `PCUAAMGSetOmega()`, `PCUAAMGSetBlockMax()`,
          `PCUAAMGSetCoarseSize()`, `PCUAAMGSetMaxLevels()`, `PCUAAMGSetDepthRule()`, `PCUAAMGSetFineAggregateSize()`,
          `PCUAAMGSetFineAggregateMax()`,
          `PCUAAMGSetBoundingBox()`, `PCUAAMGSetCoarseFormat()`, `PCUAAMGSetDeviceSetup()`, `PCUAAMGSetHybridSmoother()`,
          `PCUAAMGGetComplexities()`, `PCUAAMGGetNumberOfLevels()`
M*/
PETSC_INTERN PetscErrorCode PCCreate_UAAMG(PC pc)
{
  PC_UAAMG *ua;

  PetscFunctionBegin;
  PetscCall(KokkosInitializeOnce());
  PetscCall(TypeDataCreate(&pc->data, &ua));

  pc->ops->setup          = PCSetUp_UAAMG;
  pc->ops->apply          = PCApply_UAAMG;
  pc->ops->presolve       = PCPreSolve_UAAMG;
  pc->ops->postsolve      = PCPostSolve_UAAMG;
  pc->ops->reset          = PCReset_UAAMG;
  pc->ops->destroy        = PCDestroy_UAAMG;
  pc->ops->setfromoptions = PCSetFromOptions_UAAMG;
  pc->ops->view           = PCView_UAAMG;

  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSetCoordinates_C", PCSetCoordinates_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGSetCycleType_C", PCUAAMGSetCycleType_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetCycleType_C", PCUAAMGGetCycleType_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGSetKCycle_C", PCUAAMGSetKCycle_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetKCycle_C", PCUAAMGGetKCycle_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGSetSmoothingSweeps_C", PCUAAMGSetSmoothingSweeps_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetSmoothingSweeps_C", PCUAAMGGetSmoothingSweeps_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGSetSmoother_C", PCUAAMGSetSmoother_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetSmoother_C", PCUAAMGGetSmoother_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGSetOmega_C", PCUAAMGSetOmega_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetOmega_C", PCUAAMGGetOmega_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGSetBlockMax_C", PCUAAMGSetBlockMax_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetBlockMax_C", PCUAAMGGetBlockMax_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGSetCoarseSize_C", PCUAAMGSetCoarseSize_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetCoarseSize_C", PCUAAMGGetCoarseSize_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGSetReplicateSize_C", PCUAAMGSetReplicateSize_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetReplicateSize_C", PCUAAMGGetReplicateSize_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGSetMaxLevels_C", PCUAAMGSetMaxLevels_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetMaxLevels_C", PCUAAMGGetMaxLevels_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGSetDepthRule_C", PCUAAMGSetDepthRule_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetDepthRule_C", PCUAAMGGetDepthRule_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGSetFineAggregateSize_C", PCUAAMGSetFineAggregateSize_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetFineAggregateSize_C", PCUAAMGGetFineAggregateSize_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGSetFineAggregateMax_C", PCUAAMGSetFineAggregateMax_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetFineAggregateMax_C", PCUAAMGGetFineAggregateMax_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGSetBoundingBox_C", PCUAAMGSetBoundingBox_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetBoundingBox_C", PCUAAMGGetBoundingBox_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGSetCoarseFormat_C", PCUAAMGSetCoarseFormat_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetCoarseFormat_C", PCUAAMGGetCoarseFormat_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetComplexities_C", PCUAAMGGetComplexities_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetNumberOfLevels_C", PCUAAMGGetNumberOfLevels_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGSetDeviceSetup_C", PCUAAMGSetDeviceSetup_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetDeviceSetup_C", PCUAAMGGetDeviceSetup_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGSetHybridSmoother_C", PCUAAMGSetHybridSmoother_UAAMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCUAAMGGetHybridSmoother_C", PCUAAMGGetHybridSmoother_UAAMG));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGSetCycleType - sets the multigrid cycle of `PCUAAMG`

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- type - `PC_UAAMG_CYCLE_K` (default: the nonlinear K-cycle, for `KSPFCG`/`KSPGCR`/`KSPFGMRES`), `PC_UAAMG_CYCLE_V` or `PC_UAAMG_CYCLE_W` (linear, symmetric: for `KSPCG`)

  Options Database Key:
. -pc_uaamg_cycle <k,v,w> - the cycle

  Level: intermediate

.seealso: `PCUAAMG`, `PCUAAMGGetCycleType()`, `PCUAAMGCycleType`
@*/
PetscErrorCode PCUAAMGSetCycleType(PC pc, PCUAAMGCycleType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscTryMethod(pc, "PCUAAMGSetCycleType_C", (PC, PCUAAMGCycleType), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetCycleType - gets the multigrid cycle of `PCUAAMG`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. type - `PC_UAAMG_CYCLE_K` (default: the nonlinear K-cycle, for `KSPFCG`/`KSPGCR`/`KSPFGMRES`), `PC_UAAMG_CYCLE_V` or `PC_UAAMG_CYCLE_W` (linear, symmetric: for `KSPCG`)

  Level: intermediate

.seealso: `PCUAAMG`, `PCUAAMGSetCycleType()`
@*/
PetscErrorCode PCUAAMGGetCycleType(PC pc, PCUAAMGCycleType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(type, 2);
  PetscUseMethod(pc, "PCUAAMGGetCycleType_C", (PC, PCUAAMGCycleType *), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGSetKCycle - sets the parameters of the K-cycle of `PCUAAMG` (Algorithm 2.1 of Wang, Hu, Cohen and Xu, with the early exit of Notay and Vassilevski)

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
. its      - inner generalised conjugate gradient iterations of the K-cycle on every level, in [1, 20] (default 2)
. rtol     - early exit: only one inner iteration when it reduces the residual norm by this factor, in [0, 1) (default 0.2; 0: never)
- min_size - GCG corrections only on coarse levels of at least this many rows, V-cycle corrections on smaller ones (0: every level;
             `PETSC_DETERMINE`, the default: 65536 with a device execution space when some coarse level has that many
             rows, otherwise 0)

  Options Database Keys:
+ -pc_uaamg_kcycle_its <2>      - inner iterations
. -pc_uaamg_kcycle_rtol <0.2>   - early exit threshold
- -pc_uaamg_kcycle_min_size <-1> - smallest level with a GCG correction

  Note:
  With n = 2 inner iterations the number of visits of a level doubles from one level to the next: the small levels
  are visited most often and, on a GPU, cost launches and reductions rather than bandwidth (Section 3.4 of the paper's
  timings imply a truncated hierarchy). `min_size` keeps the GCG where it pays and uses V-cycles below.

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGGetKCycle()`, `PCUAAMGSetCycleType()`
@*/
PetscErrorCode PCUAAMGSetKCycle(PC pc, PetscInt its, PetscReal rtol, PetscInt min_size)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, its, 2);
  PetscValidLogicalCollectiveReal(pc, rtol, 3);
  PetscValidLogicalCollectiveInt(pc, min_size, 4);
  PetscTryMethod(pc, "PCUAAMGSetKCycle_C", (PC, PetscInt, PetscReal, PetscInt), (pc, its, rtol, min_size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetKCycle - gets the parameters of the K-cycle of `PCUAAMG` (Algorithm 2.1 of Wang, Hu, Cohen and Xu, with the early exit of Notay and Vassilevski)

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameters:
+ its      - inner iterations (may be NULL)
. rtol     - early exit threshold (may be NULL)
- min_size - smallest coarse level with a GCG correction, 0 for every level (may be NULL)

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGSetKCycle()`
@*/
PetscErrorCode PCUAAMGGetKCycle(PC pc, PetscInt *its, PetscReal *rtol, PetscInt *min_size)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCUAAMGGetKCycle_C", (PC, PetscInt *, PetscReal *, PetscInt *), (pc, its, rtol, min_size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGSetSmoothingSweeps - sets the numbers of smoothing sweeps of `PCUAAMG` (the degree of the polynomial for the Chebyshev smoother)

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
. pre - sweeps before the coarse correction, in [0, 100] (default 1)
- post - sweeps after it, colours in reverse order, in [0, 100] (default 1)

  Options Database Keys:
+ -pc_uaamg_pre_sweeps <1> - sweeps before
- -pc_uaamg_post_sweeps <1> - sweeps after

  Level: intermediate

.seealso: `PCUAAMG`, `PCUAAMGGetSmoothingSweeps()`, `PCUAAMGSetSmoother()`
@*/
PetscErrorCode PCUAAMGSetSmoothingSweeps(PC pc, PetscInt pre, PetscInt post)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, pre, 2);
  PetscValidLogicalCollectiveInt(pc, post, 3);
  PetscTryMethod(pc, "PCUAAMGSetSmoothingSweeps_C", (PC, PetscInt, PetscInt), (pc, pre, post));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetSmoothingSweeps - gets the numbers of smoothing sweeps of `PCUAAMG` (the degree of the polynomial for the Chebyshev smoother)

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameters:
+ pre - sweeps before the coarse correction, in [0, 100] (default 1) (may be NULL)
- post - sweeps after it, colours in reverse order, in [0, 100] (default 1) (may be NULL)

  Level: intermediate

.seealso: `PCUAAMG`, `PCUAAMGSetSmoothingSweeps()`
@*/
PetscErrorCode PCUAAMGGetSmoothingSweeps(PC pc, PetscInt *pre, PetscInt *post)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCUAAMGGetSmoothingSweeps_C", (PC, PetscInt *, PetscInt *), (pc, pre, post));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGSetSmoother - sets the smoothers of `PCUAAMG`

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
. fine - smoother of the finest level: `PC_UAAMG_SMOOTHER_BLOCK_GS` (default), `PC_UAAMG_SMOOTHER_GS`, `PC_UAAMG_SMOOTHER_JACOBI` or `PC_UAAMG_SMOOTHER_CHEBYSHEV`
- coarse - smoother of the coarse levels: `PC_UAAMG_SMOOTHER_GS` (default), `PC_UAAMG_SMOOTHER_JACOBI` or `PC_UAAMG_SMOOTHER_CHEBYSHEV`

  Options Database Keys:
+ -pc_uaamg_fine_smoother <block_gs,gs,jacobi,chebyshev> - finest level
- -pc_uaamg_smoother <gs,jacobi,chebyshev> - coarse levels

  Level: intermediate

.seealso: `PCUAAMG`, `PCUAAMGGetSmoother()`, `PCUAAMGSmootherType`, `PCUAAMGSetOmega()`, `PCUAAMGSetBlockMax()`
@*/
PetscErrorCode PCUAAMGSetSmoother(PC pc, PCUAAMGSmootherType fine, PCUAAMGSmootherType coarse)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, fine, 2);
  PetscValidLogicalCollectiveEnum(pc, coarse, 3);
  PetscTryMethod(pc, "PCUAAMGSetSmoother_C", (PC, PCUAAMGSmootherType, PCUAAMGSmootherType), (pc, fine, coarse));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetSmoother - gets the smoothers of `PCUAAMG`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameters:
+ fine - smoother of the finest level: `PC_UAAMG_SMOOTHER_BLOCK_GS` (default), `PC_UAAMG_SMOOTHER_GS`, `PC_UAAMG_SMOOTHER_JACOBI` or `PC_UAAMG_SMOOTHER_CHEBYSHEV` (may be NULL)
- coarse - smoother of the coarse levels: `PC_UAAMG_SMOOTHER_GS` (default), `PC_UAAMG_SMOOTHER_JACOBI` or `PC_UAAMG_SMOOTHER_CHEBYSHEV` (may be NULL)

  Level: intermediate

.seealso: `PCUAAMG`, `PCUAAMGSetSmoother()`
@*/
PetscErrorCode PCUAAMGGetSmoother(PC pc, PCUAAMGSmootherType *fine, PCUAAMGSmootherType *coarse)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCUAAMGGetSmoother_C", (PC, PCUAAMGSmootherType *, PCUAAMGSmootherType *), (pc, fine, coarse));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGSetOmega - sets the relaxation factor of the smoothers of `PCUAAMG`

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- omega - relaxation factor of the Gauss-Seidel and Jacobi smoothers, in (0, 2) (default 1)

  Options Database Key:
. -pc_uaamg_omega <1> - relaxation factor

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGGetOmega()`, `PCUAAMGSetSmoother()`
@*/
PetscErrorCode PCUAAMGSetOmega(PC pc, PetscReal omega)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, omega, 2);
  PetscTryMethod(pc, "PCUAAMGSetOmega_C", (PC, PetscReal), (pc, omega));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetOmega - gets the relaxation factor of the smoothers of `PCUAAMG`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. omega - relaxation factor of the Gauss-Seidel and Jacobi smoothers, in (0, 2) (default 1)

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGSetOmega()`
@*/
PetscErrorCode PCUAAMGGetOmega(PC pc, PetscReal *omega)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(omega, 2);
  PetscUseMethod(pc, "PCUAAMGGetOmega_C", (PC, PetscReal *), (pc, omega));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGSetBlockMax - sets the size limit of the exact block solves of the fine-level smoother of `PCUAAMG`

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- bmax - largest aggregate whose diagonal block the fine block Gauss-Seidel solves exactly, in [0, 128] (0, the default: 16 in 2D, 32 in 3D); larger aggregates get a point Gauss-Seidel pass

  Options Database Key:
. -pc_uaamg_block_max <0> - largest exact block

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGGetBlockMax()`, `PCUAAMGSetSmoother()`
@*/
PetscErrorCode PCUAAMGSetBlockMax(PC pc, PetscInt bmax)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, bmax, 2);
  PetscTryMethod(pc, "PCUAAMGSetBlockMax_C", (PC, PetscInt), (pc, bmax));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetBlockMax - gets the size limit of the exact block solves of the fine-level smoother of `PCUAAMG`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. bmax - largest aggregate whose diagonal block the fine block Gauss-Seidel solves exactly, in [0, 128] (0, the default: 16 in 2D, 32 in 3D); larger aggregates get a point Gauss-Seidel pass

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGSetBlockMax()`
@*/
PetscErrorCode PCUAAMGGetBlockMax(PC pc, PetscInt *bmax)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(bmax, 2);
  PetscUseMethod(pc, "PCUAAMGGetBlockMax_C", (PC, PetscInt *), (pc, bmax));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGSetCoarseSize - sets the size of the coarsest level of `PCUAAMG`

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- size - coarsen until a level has at most this many rows, in [1, 65536] (default 1024); that level is solved by a dense Cholesky factorisation

  Options Database Key:
. -pc_uaamg_coarse_size <1024> - rows of the coarsest level

  Level: intermediate

.seealso: `PCUAAMG`, `PCUAAMGGetCoarseSize()`, `PCUAAMGSetMaxLevels()`
@*/
PetscErrorCode PCUAAMGSetCoarseSize(PC pc, PetscInt size)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, size, 2);
  PetscTryMethod(pc, "PCUAAMGSetCoarseSize_C", (PC, PetscInt), (pc, size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetCoarseSize - gets the size of the coarsest level of `PCUAAMG`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. size - coarsen until a level has at most this many rows, in [1, 65536] (default 1024); that level is solved by a dense Cholesky factorisation

  Level: intermediate

.seealso: `PCUAAMG`, `PCUAAMGSetCoarseSize()`
@*/
PetscErrorCode PCUAAMGGetCoarseSize(PC pc, PetscInt *size)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(size, 2);
  PetscUseMethod(pc, "PCUAAMGGetCoarseSize_C", (PC, PetscInt *), (pc, size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGSetReplicateSize - sets the size below which the coarse levels of `PCUAAMG` are replicated on every process

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- size - under MPI, the first coarse level of at most this many rows, and every coarser level, are held whole by every process (default 50000; 0: no replication)

  Options Database Key:
. -pc_uaamg_replicate_size <50000> - rows of the first replicated level

  Level: intermediate

  Note:
  The replicated levels are smoothed, and their part of the cycle (the inner GCG iterations of the K-cycle included)
  is run, redundantly on every process without communication; each visit of them costs one `MPI_Allgatherv` of the
  restricted residual instead of the ghost exchanges and reductions of the distributed levels. Coarse-level
  replication (agglomeration) as in distributed AMG codes. On one process it does nothing. A level at most
  `-pc_uaamg_coarse_size` rows is the coarsest one and is gathered for its dense solve in any case.

.seealso: `PCUAAMG`, `PCUAAMGGetReplicateSize()`, `PCUAAMGSetCoarseSize()`
@*/
PetscErrorCode PCUAAMGSetReplicateSize(PC pc, PetscInt size)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, size, 2);
  PetscTryMethod(pc, "PCUAAMGSetReplicateSize_C", (PC, PetscInt), (pc, size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetReplicateSize - gets the size below which the coarse levels of `PCUAAMG` are replicated on every process

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. size - rows of the first replicated level at most (0: no replication)

  Level: intermediate

.seealso: `PCUAAMG`, `PCUAAMGSetReplicateSize()`
@*/
PetscErrorCode PCUAAMGGetReplicateSize(PC pc, PetscInt *size)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(size, 2);
  PetscUseMethod(pc, "PCUAAMGGetReplicateSize_C", (PC, PetscInt *), (pc, size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGSetMaxLevels - sets the maximum number of levels of `PCUAAMG`

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- levels - maximum number of levels, the finest included, in [1, 64] (default 25); 1 solves the operator itself densely

  Options Database Key:
. -pc_uaamg_max_levels <25> - maximum number of levels

  Level: intermediate

.seealso: `PCUAAMG`, `PCUAAMGGetMaxLevels()`, `PCUAAMGSetCoarseSize()`
@*/
PetscErrorCode PCUAAMGSetMaxLevels(PC pc, PetscInt levels)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, levels, 2);
  PetscTryMethod(pc, "PCUAAMGSetMaxLevels_C", (PC, PetscInt), (pc, levels));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetMaxLevels - gets the maximum number of levels of `PCUAAMG`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. levels - maximum number of levels, the finest included, in [1, 64] (default 25); 1 solves the operator itself densely

  Level: intermediate

.seealso: `PCUAAMG`, `PCUAAMGSetMaxLevels()`
@*/
PetscErrorCode PCUAAMGGetMaxLevels(PC pc, PetscInt *levels)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(levels, 2);
  PetscUseMethod(pc, "PCUAAMGGetMaxLevels_C", (PC, PetscInt *), (pc, levels));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGSetDepthRule - sets how `PCUAAMG` chooses the depth of its auxiliary quadtree / octree

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- rule - `PC_UAAMG_DEPTH_TARGET` (default) or `PC_UAAMG_DEPTH_PAPER`

  Options Database Key:
. -pc_uaamg_depth_rule <target,paper> - the rule

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGGetDepthRule()`, `PCUAAMGDepthRule`, `PCUAAMGSetFineAggregateSize()`
@*/
PetscErrorCode PCUAAMGSetDepthRule(PC pc, PCUAAMGDepthRule rule)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, rule, 2);
  PetscTryMethod(pc, "PCUAAMGSetDepthRule_C", (PC, PCUAAMGDepthRule), (pc, rule));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetDepthRule - gets how `PCUAAMG` chooses the depth of its auxiliary quadtree / octree

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. rule - `PC_UAAMG_DEPTH_TARGET` (default) or `PC_UAAMG_DEPTH_PAPER`

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGSetDepthRule()`
@*/
PetscErrorCode PCUAAMGGetDepthRule(PC pc, PCUAAMGDepthRule *rule)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(rule, 2);
  PetscUseMethod(pc, "PCUAAMGGetDepthRule_C", (PC, PCUAAMGDepthRule *), (pc, rule));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGSetFineAggregateSize - sets the mean fine aggregate size of the target depth rule of `PCUAAMG`

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- size - mean number of unknowns per fine aggregate of the target depth rule, 0 (2^d, the default) or in [1, 1e6]

  Options Database Key:
. -pc_uaamg_fine_agg_size <0> - unknowns per fine aggregate

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGGetFineAggregateSize()`, `PCUAAMGSetDepthRule()`
@*/
PetscErrorCode PCUAAMGSetFineAggregateSize(PC pc, PetscReal size)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, size, 2);
  PetscTryMethod(pc, "PCUAAMGSetFineAggregateSize_C", (PC, PetscReal), (pc, size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetFineAggregateSize - gets the mean fine aggregate size of the target depth rule of `PCUAAMG`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. size - mean number of unknowns per fine aggregate of the target depth rule, 0 (2^d, the default) or in [1, 1e6]

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGSetFineAggregateSize()`
@*/
PetscErrorCode PCUAAMGGetFineAggregateSize(PC pc, PetscReal *size)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(size, 2);
  PetscUseMethod(pc, "PCUAAMGGetFineAggregateSize_C", (PC, PetscReal *), (pc, size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGSetFineAggregateMax - sets the largest number of unknowns a cell of the auxiliary tree of `PCUAAMG` may hold
  before it is split into its 2^d children (the adaptive tree of the fine level)

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- s  - the threshold, in [1, 2^30]; 0 never splits (the paper's uniform tree); `PETSC_DETERMINE` (default) takes 4 x
       the fine aggregate size of `PCUAAMGSetFineAggregateSize()` (16 in 2D, 32 in 3D)

  Options Database Key:
. -pc_uaamg_fine_agg_max <s> - the threshold (-1: the default)

  Notes:
  A cell of the level-L grid that holds more than s coupled unknowns of a process is split, recursively, until every
  leaf holds at most s unknowns or the depth cap (31 levels per axis in 2D, 20 in 3D) is reached; the leaves are
  the fine aggregates and every coarser level takes the parents of the aggregates of the last (one tree level up).
  This keeps the coarsening at 2^d : 1 in the dense part of graded meshes, where the uniform tree puts hundreds of
  unknowns into one aggregate and the iteration counts grow under refinement. With the default, uniform and
  quasi-uniform meshes are never split. When some cell is split, the levels are stored as CSR and coloured by graph
  colourings of their operators.

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGGetFineAggregateMax()`, `PCUAAMGSetFineAggregateSize()`, `PCUAAMGSetCoarseFormat()`
@*/
PetscErrorCode PCUAAMGSetFineAggregateMax(PC pc, PetscInt s)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, s, 2);
  PetscTryMethod(pc, "PCUAAMGSetFineAggregateMax_C", (PC, PetscInt), (pc, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetFineAggregateMax - gets the split threshold of the adaptive auxiliary tree of `PCUAAMG`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. s - the threshold; 0: never split; `PETSC_DETERMINE`: the default, 4 x the fine aggregate size

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGSetFineAggregateMax()`
@*/
PetscErrorCode PCUAAMGGetFineAggregateMax(PC pc, PetscInt *s)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(s, 2);
  PetscUseMethod(pc, "PCUAAMGGetFineAggregateMax_C", (PC, PetscInt *), (pc, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGSetCoarseFormat - sets the storage of the coarse levels of `PCUAAMG`

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- format - `PC_UAAMG_FORMAT_STENCIL` (default; one process only, else CSR is used) or `PC_UAAMG_FORMAT_CSR`

  Options Database Key:
. -pc_uaamg_coarse_format <stencil,csr> - coarse storage

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGGetCoarseFormat()`, `PCUAAMGCoarseFormat`
@*/
PetscErrorCode PCUAAMGSetCoarseFormat(PC pc, PCUAAMGCoarseFormat format)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, format, 2);
  PetscTryMethod(pc, "PCUAAMGSetCoarseFormat_C", (PC, PCUAAMGCoarseFormat), (pc, format));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetCoarseFormat - gets the storage of the coarse levels of `PCUAAMG`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. format - `PC_UAAMG_FORMAT_STENCIL` (default; one process only, else CSR is used) or `PC_UAAMG_FORMAT_CSR`

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGSetCoarseFormat()`
@*/
PetscErrorCode PCUAAMGGetCoarseFormat(PC pc, PCUAAMGCoarseFormat *format)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(format, 2);
  PetscUseMethod(pc, "PCUAAMGGetCoarseFormat_C", (PC, PCUAAMGCoarseFormat *), (pc, format));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGSetBoundingBox - sets the root box of the auxiliary grid of `PCUAAMG`

  Logically Collective

  Input Parameters:
+ pc  - the preconditioner context
. n   - number of entries of box: 2, 4 or 6 (twice the dimension of the coordinates), or 0 to use the hull of the coordinates (the default)
- box - xmin, xmax[, ymin, ymax[, zmin, zmax]]

  Options Database Key:
. -pc_uaamg_bbox <xmin,xmax,...> - the box

  Level: advanced

  Note:
  The paper's root box is the bounding box of the domain, boundary included (eq. (6)); a preconditioner sees only
  the unknowns, whose hull is smaller when Dirichlet points are eliminated. Give the domain's box to reproduce the
  paper's 2 x 2 aggregates of a uniform grid. Points outside the box go to the nearest cell.

.seealso: `PCUAAMG`, `PCUAAMGGetBoundingBox()`, `PCSetCoordinates()`
@*/
PetscErrorCode PCUAAMGSetBoundingBox(PC pc, PetscInt n, const PetscReal box[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, n, 2);
  if (n) PetscKPAssertPointer(box, 3);
  PetscTryMethod(pc, "PCUAAMGSetBoundingBox_C", (PC, PetscInt, const PetscReal[]), (pc, n, box));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetBoundingBox - gets the root box of the auxiliary grid of `PCUAAMG` given by `PCUAAMGSetBoundingBox()`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameters:
+ n   - number of entries (0: the hull of the coordinates is used)
- box - the entries (an array of 6 entries, or NULL)

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGSetBoundingBox()`
@*/
PetscErrorCode PCUAAMGGetBoundingBox(PC pc, PetscInt *n, PetscReal box[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCUAAMGGetBoundingBox_C", (PC, PetscInt *, PetscReal[]), (pc, n, box));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetComplexities - gets the operator and grid complexities of the hierarchy of `PCUAAMG`

  Not Collective

  Input Parameter:
. pc - the preconditioner context, set up

  Output Parameters:
+ oc - operator complexity: the nonzeros of all levels over those of the operator (may be NULL)
- gc - grid complexity: the rows of all levels over those of the operator (may be NULL)

  Level: intermediate

.seealso: `PCUAAMG`, `PCUAAMGGetNumberOfLevels()`
@*/
PetscErrorCode PCUAAMGGetComplexities(PC pc, PetscReal *oc, PetscReal *gc)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCUAAMGGetComplexities_C", (PC, PetscReal *, PetscReal *), (pc, oc, gc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetNumberOfLevels - gets the number of levels of `PCUAAMG`, the finest included (0 before the setup)

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. n - the number of levels

  Level: intermediate

.seealso: `PCUAAMG`, `PCUAAMGSetMaxLevels()`, `PCUAAMGGetComplexities()`
@*/
PetscErrorCode PCUAAMGGetNumberOfLevels(PC pc, PetscInt *n)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(n, 2);
  PetscUseMethod(pc, "PCUAAMGGetNumberOfLevels_C", (PC, PetscInt *), (pc, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGSetDeviceSetup - sets how `PCUAAMG` forms coarse levels stored as CSR

  Logically Collective

  Input Parameters:
+ pc  - the preconditioner context
- flg - `PETSC_TRUE` (default): Galerkin products of the aggregation on the device (under MPI of the local and
        ghost blocks: aggregates never cross processes); `PETSC_FALSE`: `MatPtAP()` on host AIJ copies

  Options Database Key:
. -pc_uaamg_device_setup <true,false> - device or host products

  Level: advanced

  Note:
  Only for `-pc_uaamg_coarse_format csr`: stencil levels are always formed on the device. All paths give the same
  operators up to rounding.

.seealso: `PCUAAMG`, `PCUAAMGGetDeviceSetup()`, `PCUAAMGSetCoarseFormat()`
@*/
PetscErrorCode PCUAAMGSetDeviceSetup(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, flg, 2);
  PetscTryMethod(pc, "PCUAAMGSetDeviceSetup_C", (PC, PetscBool), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetDeviceSetup - gets whether `PCUAAMG` forms CSR coarse levels on the device

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. flg - `PETSC_TRUE` for the device products

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGSetDeviceSetup()`
@*/
PetscErrorCode PCUAAMGGetDeviceSetup(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(flg, 2);
  PetscUseMethod(pc, "PCUAAMGGetDeviceSetup_C", (PC, PetscBool *), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGSetHybridSmoother - sets how the Gauss-Seidel smoothers of `PCUAAMG` exchange ghost values under MPI

  Logically Collective

  Input Parameters:
+ pc  - the preconditioner context
- flg - `PETSC_TRUE` (default): one ghost exchange per sweep, the other processes' values then held for all colours of
        the sweep (Gauss-Seidel inside each process, Jacobi between processes: the hybrid smoother of distributed AMG
        codes); `PETSC_FALSE`: one exchange per colour, Gauss-Seidel between processes too (a level whose cells
        are split between processes is coloured by a graph colouring)

  Options Database Key:
. -pc_uaamg_hybrid_smoother <true,false> - hybrid or per-colour exchanges

  Level: advanced

  Note:
  Without GPU-aware MPI every exchange passes through the hosts; the per-colour sweep costs one exchange for each of
  the (up to 8) colours and the fine level's loose rows, the hybrid sweep one. On one process both are the same. The
  hybrid sweep changes the smoother, not the cycle's symmetry (the backward sweep is the adjoint of the forward one);
  on the 3D Poisson problem it took the same iterations at 2 and 4 processes (`bench/results/scaling_gpu.md`). Only for
  omega <= 1 (`PCUAAMGSetOmega()`): over-relaxed Jacobi between processes need not converge, so an omega > 1 keeps the
  per-colour exchanges.

.seealso: `PCUAAMG`, `PCUAAMGGetHybridSmoother()`, `PCUAAMGSetSmoother()`
@*/
PetscErrorCode PCUAAMGSetHybridSmoother(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, flg, 2);
  PetscTryMethod(pc, "PCUAAMGSetHybridSmoother_C", (PC, PetscBool), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCUAAMGGetHybridSmoother - gets whether the Gauss-Seidel smoothers of `PCUAAMG` exchange ghost values once per sweep

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. flg - `PETSC_TRUE` for one exchange per sweep

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGSetHybridSmoother()`
@*/
PetscErrorCode PCUAAMGGetHybridSmoother(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(flg, 2);
  PetscUseMethod(pc, "PCUAAMGGetHybridSmoother_C", (PC, PetscBool *), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}
