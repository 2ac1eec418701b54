/*
   psormg.cxx - PCPSORMG: red-black projected-SOR multigrid for linear complementarity (obstacle) problems
   (Klement and Oberhuber, "Multigrid method for linear complementarity problem and its implementation on GPU").

   Routines: PCSetUp_PSORMG, PCApplyRichardson_PSORMG (the projected multigrid iteration), PCApply_PSORMG (one
   symmetric linear V/W cycle, without bounds), PCReset_PSORMG, PCDestroy_PSORMG, PCSetFromOptions_PSORMG,
   PCView_PSORMG, PCCreate_PSORMG, and the composed PCPSORMGSet...() functions. The level hierarchy (operators,
   transfers, vectors, device or host Galerkin setup) and the cycle are those of the shared multigrid layer
   (src/sys/kp_mg), the colourings those of src/sys/kp_colour; this file adds the grids of the DMDA, the projected
   SOR smoother, the obstacle hooks of the cycle and the projected coarsest-grid solve. The kernels are in
   psormg_kernels.
*/
#include "kp_sys.hpp"
#include "kp_blas.hpp"
#include "kp_colour.hpp"
#include "kp_mg.hpp"
#include "kp_segsort.hpp"
#include "petsckp_types.h" /*I "petsckp.h" I*/
#include "psormg_kernels.hpp"
#include <petscdmda.h>
#include <algorithm>
#include <limits>
#include <vector>

using namespace petsckp;
using petsckp::psormg::ObstacleRestriction;

const char *const PCPSORMGObstacleRestrictions[]  = {"monotone", "linear", "truncated", "PCPSORMGObstacleRestriction", "PC_PSORMG_OBSTACLE_", nullptr};
const char *const PCPSORMGEdgeInterpolations[]    = {"auto", "zero", "constant", "PCPSORMGEdgeInterpolation", "PC_PSORMG_EDGE_", nullptr};
static const char *const PSORMGCycleTypes[]       = {"v", "w"}; /* PCMGCycleTypes starts with "invalid": PC_MG_CYCLE_V is 1 */
static const PCMGCycleType PSORMGCycleTypeValues[] = {PC_MG_CYCLE_V, PC_MG_CYCLE_W};

/* the option name with the PC's prefix, for error messages: "-" prefix "pc_psormg_" name */
struct PSORMGOptionName {
  char text[256];
  PSORMGOptionName(PC pc, const char *name)
  {
    const char *pre = ((PetscObject)pc)->prefix ? ((PetscObject)pc)->prefix : "";
    (void)PetscSNPrintf(text, sizeof(text), "-%spc_psormg_%s", pre, name);
  }
};
#define PSORMG_OPT(pc, name) (PSORMGOptionName(pc, name).text)

/* names of enum values for the viewer, safe for a value outside the table */
static const char *PSORMGEnumName(const char *const *table, PetscInt n, PetscInt value)
{
  return value >= 0 && value < n ? table[value] : "unknown";
}

/* one grid of the hierarchy: its geometry, colouring and bounds (the operator, transfers and vectors are level l
   of the shared hierarchy, PC_PSORMG::H) */
struct PSORMGGrid {
  PetscInt         M[3] = {1, 1, 1};  /* global grid points per direction */
  std::vector<Int> own[3];            /* per direction: first point of each process column, np + 1 entries */
  PetscInt         xs[3] = {0, 0, 0}; /* this process's block */
  PetscInt         xm[3] = {0, 0, 0};
  Vec              lo = nullptr, up = nullptr; /* bounds (of the correction below level 0); level 0: the user's */
  PetscBool        parity       = PETSC_FALSE; /* colouring: red-black (star stencils) or 2^dim parity colours (box stencils) */
  PetscBool        edgeconst[3] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}; /* per direction: the far-edge rule of P (to this level from the next coarser) */
  PetscReal        edgeratio[3] = {-1, -1, -1}; /* per direction: row sum / coupling to the plane before, over the far-edge rows (-1: no such edge) */
  ColourPartition  colours;   /* rows of each colour (kp_colour) */
  std::vector<Int> colourids; /* the colours present somewhere on the grid, in the order of a forward sweep */
};

/* private context */
struct PC_PSORMG {
  /* parameters */
  PetscInt                    levels_max    = 0;  /* 0: as many as coarse_size allows */
  PetscInt                    coarse_size   = 64; /* stop coarsening at this many unknowns */
  PCMGCycleType               cycle_type    = PC_MG_CYCLE_V;
  PetscInt                    nu1           = 2, nu2 = 2; /* pre / post smoothing sweeps (one sweep = all colours) */
  PetscReal                   omega         = 1.0;        /* smoother relaxation */
  PetscReal                   coarse_omega  = 1.5;        /* coarsest-grid PSOR relaxation */
  PetscInt                    coarse_max_it = 500;        /* coarsest-grid PSOR sweeps at most */
  PetscReal                   coarse_rtol   = 1e-10;      /* coarsest-grid PSOR relative projected residual */
  PCPSORMGObstacleRestriction restriction   = PC_PSORMG_OBSTACLE_MONOTONE;
  PetscBool                   project       = PETSC_TRUE;  /* clamp after x += P e */
  PCPSORMGEdgeInterpolation   edge          = PC_PSORMG_EDGE_AUTO; /* far-edge interpolation of even grid lines */
  PetscViewerAndFormat       *monitor       = nullptr;     /* -pc_psormg_monitor: per-cycle measures */
  PetscBool                   device_setup  = PETSC_TRUE;  /* form P, R and R A P on the device (every rank under MPI) */
  PetscBool                   hybrid        = PETSC_FALSE; /* under MPI: one ghost exchange per sweep (Jacobi between processes), not per colour */
  /* bounds (referenced) */
  Vec xl = nullptr, xu = nullptr;
  /* b, x and the bounds of a solve in vectors of the operator's type, when they are of another (host vectors with a
     GPU operator): the cycle combines them with the levels' vectors in PETSc Vec operations (VecGetAsTypeOf()) */
  Vec bw = nullptr, xw = nullptr, xlw = nullptr, xuw = nullptr;
  /* hierarchy: the shared levels (H.device: built by the device setup) and the grids, one per level */
  MGHierarchy             H;
  std::vector<PSORMGGrid> grids;
  PetscBool               havelo = PETSC_FALSE, haveup = PETSC_FALSE; /* during a solve */
  /* truncated restriction: the active set of the last cycle (keep: 1 free, 0 on a bound), whether the hierarchy is
     truncated with it, and its size and moves in the last cycle (monitor) */
  Vec       tkeep         = nullptr;
  PetscBool trunc_on      = PETSC_FALSE;
  PetscInt  trunc_changed = 0, trunc_active = 0, trunc_rows = 0;
  View<Int> coarse_pairs; /* sweep pairs of the last coarsest-grid solve in one kernel (device) */
  /* under MPI, a coarsest grid of at most PSORMG_COARSE_FUSED_MAX points replicated on every rank (kp_mg's
     MGCoarseReplica): its colours, and b, x and the bounds gathered for the one-kernel iteration */
  MGCoarseReplica creplica;
  PetscInt        creplica_level = -1;
  ColourPartition ccolours;
  View<Scalar>    cb, cx, clo, cup;
  /* statistics of the last PCApplyRichardson */
  PetscInt  last_its   = 0;
  PetscReal last_pnorm = 0;
  /* a KSPRICHARDSON solve with bounds and -ksp_max_it 0 is under way: its reason is set by PCPreSolve_PSORMG(), no
     cycle runs, and PCApply() is the identity */
  PetscBool no_cycles = PETSC_FALSE;
};

/* ---------------------------------------------------------------------------------------------------------------- */
/* hierarchy helpers */

/* global index (PETSc ordering of a DMDA-like layout) of grid point (i, j, k) of a level */
static PetscInt LevelGlobalIndex(const PSORMGGrid &L, const std::vector<PetscInt> &offset, PetscInt i, PetscInt j, PetscInt k)
{
  const PetscInt idx[3] = {i, j, k};
  PetscInt       p[3], np[3];

  for (int d = 0; d < 3; d++) {
    np[d] = (PetscInt)L.own[d].size() - 1;
    p[d]  = (PetscInt)(std::upper_bound(L.own[d].begin(), L.own[d].end(), idx[d]) - L.own[d].begin()) - 1;
    p[d]  = std::min(p[d], np[d] - 1);
  }
  const PetscInt rank = p[0] + np[0] * (p[1] + np[1] * p[2]);
  const PetscInt xm = L.own[0][p[0] + 1] - L.own[0][p[0]], ym = L.own[1][p[1] + 1] - L.own[1][p[1]];
  return offset[rank] + (i - L.own[0][p[0]]) + xm * ((j - L.own[1][p[1]]) + ym * (k - L.own[2][p[2]]));
}

/* grid point (i, j, k) of global index g of a level (inverse of LevelGlobalIndex) */
static void LevelGridPoint(const PSORMGGrid &L, const std::vector<PetscInt> &offset, PetscInt g, PetscInt idx[3])
{
  const PetscInt np0 = (PetscInt)L.own[0].size() - 1, np1 = (PetscInt)L.own[1].size() - 1;
  const PetscInt rank = (PetscInt)(std::upper_bound(offset.begin(), offset.end(), g) - offset.begin()) - 1;
  const PetscInt p[3] = {rank % np0, (rank / np0) % np1, rank / (np0 * np1)};
  const PetscInt xm = L.own[0][p[0] + 1] - L.own[0][p[0]], ym = L.own[1][p[1] + 1] - L.own[1][p[1]], t = g - offset[rank];

  idx[0] = L.own[0][p[0]] + t % xm;
  idx[1] = L.own[1][p[1]] + (t / xm) % ym;
  idx[2] = L.own[2][p[2]] + t / (xm * ym);
}

/* first global index of each process of a level */
static std::vector<PetscInt> LevelOffsets(const PSORMGGrid &L)
{
  const PetscInt        np0 = (PetscInt)L.own[0].size() - 1, np1 = (PetscInt)L.own[1].size() - 1, np2 = (PetscInt)L.own[2].size() - 1;
  std::vector<PetscInt> off(np0 * np1 * np2 + 1, 0);

  for (PetscInt pz = 0; pz < np2; pz++)
    for (PetscInt py = 0; py < np1; py++)
      for (PetscInt px = 0; px < np0; px++) {
        const PetscInt r = px + np0 * (py + np1 * pz);
        off[r + 1]       = off[r] + (L.own[0][px + 1] - L.own[0][px]) * (L.own[1][py + 1] - L.own[1][py]) * (L.own[2][pz + 1] - L.own[2][pz]);
      }
  return off;
}

/* The far-edge rule of the interpolation into level l, per direction d with an even line (the last fine point M-1
   lies past the last coarse point). Over the rows of the edge plane i_d = M-1 (those not on another boundary,
   where there are such), compare the row sums s with the couplings c = -sum a_ij to the plane i_d = M-2:
   - an eliminated Dirichlet boundary (or a decoupled Dirichlet row) leaves a clearly positive row sum, s ~ c
     (the coupling to the eliminated neighbour) or s = a_ii with c = 0: the smooth error vanishes past the edge
     and half the last coarse value (linear interpolation to zero) is right;
   - a Neumann/natural boundary leaves s ~ 0 (or a small mass term, s << c): constants are near-null vectors and
     the interpolation must reproduce them, so the last coarse value is copied (constant extrapolation).
   The rule is constant extrapolation when sum s <= 1/2 sum c. */
static PetscErrorCode LevelEdgeRule(PC pc, PetscInt l)
{
  PC_PSORMG                  *mg   = (PC_PSORMG *)pc->data;
  PSORMGGrid                 &F    = mg->grids[l];
  MGLevel                    &FL   = mg->H.levels[l];
  MPI_Comm                    comm = PetscObjectComm((PetscObject)pc);
  const std::vector<PetscInt> off  = LevelOffsets(F);
  PetscInt                    rstart = 0;

  PetscFunctionBegin;
  if (!mg->H.device) PetscCall(MatGetOwnershipRange(FL.Ah, &rstart, NULL));
  for (int d = 0; d < 3; d++) {
    PetscReal sums[3] = {0, 0, 0}; /* row sums, couplings to the plane before, rows */

    F.edgeconst[d] = PETSC_FALSE, F.edgeratio[d] = -1;
    if (psormg::CoarseSize1D(F.M[d]) == F.M[d] || F.M[d] % 2) continue;
    if (mg->edge != PC_PSORMG_EDGE_AUTO) {
      F.edgeconst[d] = mg->edge == PC_PSORMG_EDGE_CONSTANT ? PETSC_TRUE : PETSC_FALSE;
      continue;
    }
    if (mg->H.device) {
      /* this rank's rows of the edge plane; the couplings to the plane before through the local block, or through
         the ghost block where that plane lies on a neighbour (the grid coordinates of the ghost columns) */
      Real             s[3];
      const Int        xs[3] = {F.xs[0], F.xs[1], F.xs[2]}, xm[3] = {F.xm[0], F.xm[1], F.xm[2]}, Mg[3] = {F.M[0], F.M[1], F.M[2]};
      std::vector<Int> gc;
      View<Int>        dgc;
      if (FL.Ad->mpi && FL.Ad->nghost > 0) {
        const PetscInt *gidx;
        PetscCallCXX(gc.resize(FL.Ad->nghost));
        PetscCall(ISGetIndices(FL.Ad->ghostis, &gidx));
        for (PetscInt g = 0; g < FL.Ad->nghost; g++) {
          PetscInt q[3];
          LevelGridPoint(F, off, gidx[g], q);
          gc[g] = q[d];
        }
        PetscCall(ISRestoreIndices(FL.Ad->ghostis, &gidx));
        PetscCallCXX(dgc = View<Int>(std::string("psormg ghost coordinates"), gc.size()));
        PetscCallCXX(Kokkos::deep_copy(exec(), dgc, HostUView<const Int>(gc.data(), gc.size())));
      }
      PetscCallCXX(psormg::EdgeRowSums(DeviceMatLocalCsr(FL.Ad), DeviceMatGhostCsr(FL.Ad), ucv(dgc), Mg, xs, xm, d, s));
      sums[0] = s[0], sums[1] = s[1], sums[2] = s[2];
    } else if (F.xs[d] + F.xm[d] == F.M[d] && F.xm[d] > 0) {
      for (PetscInt k = F.xs[2], t = 0; k < F.xs[2] + F.xm[2]; k++)
        for (PetscInt j = F.xs[1]; j < F.xs[1] + F.xm[1]; j++)
          for (PetscInt i = F.xs[0]; i < F.xs[0] + F.xm[0]; i++, t++) {
            const PetscInt     p[3] = {i, j, k};
            PetscBool          use  = p[d] == F.M[d] - 1 ? PETSC_TRUE : PETSC_FALSE;
            PetscInt           ncols, q[3];
            const PetscInt    *cols;
            const PetscScalar *vals;

            for (int e = 0; e < 3 && use; e++)
              if (e != d && F.M[e] > 2 && (p[e] == 0 || p[e] == F.M[e] - 1)) use = PETSC_FALSE;
            if (!use) continue;
            PetscCall(MatGetRow(FL.Ah, rstart + t, &ncols, &cols, &vals));
            for (PetscInt c = 0; c < ncols; c++) {
              sums[0] += PetscRealPart(vals[c]);
              if (cols[c] == rstart + t) continue;
              LevelGridPoint(F, off, cols[c], q);
              if (q[d] == F.M[d] - 2) sums[1] -= PetscRealPart(vals[c]);
            }
            sums[2] += 1;
            PetscCall(MatRestoreRow(FL.Ah, rstart + t, &ncols, &cols, &vals));
          }
    }
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sums, 3, MPIU_REAL, MPIU_SUM, comm));
    F.edgeratio[d] = sums[1] > 0 ? sums[0] / sums[1] : PETSC_INFINITY;
    F.edgeconst[d] = sums[2] > 0 && sums[0] <= 0.5 * sums[1] ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the next coarser grid C of F (sizes and the process blocks) */
static PetscErrorCode LevelCoarseGrid(PC pc, PSORMGGrid &F, PSORMGGrid &C)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);
  PetscMPIInt rank;
  PetscInt    pcoord[3];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  {
    const PetscInt np0 = (PetscInt)F.own[0].size() - 1, np1 = (PetscInt)F.own[1].size() - 1;
    pcoord[0] = rank % np0, pcoord[1] = (rank / np0) % np1, pcoord[2] = rank / (np0 * np1);
  }
  for (int d = 0; d < 3; d++) {
    C.M[d] = psormg::CoarseSize1D(F.M[d]);
    C.own[d].resize(F.own[d].size());
    for (size_t p = 0; p < F.own[d].size(); p++) {
      PetscInt cs, ce;
      psormg::CoarseRange1D(F.M[d], F.own[d][p], F.own[d][p], &cs, &ce);
      C.own[d][p] = cs;
    }
    C.xs[d] = C.own[d][pcoord[d]];
    C.xm[d] = C.own[d][pcoord[d] + 1] - C.xs[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the interpolation from the next coarser grid C of F (fine rows, coarse columns) as a host AIJ matrix, for the
   host Galerkin setup of the shared hierarchy */
static PetscErrorCode LevelProlongationHost(PC pc, PSORMGGrid &F, PSORMGGrid &C, Mat *Ph)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)pc);
  PetscInt nf, nc, rstart;
  Mat      Pm;

  PetscFunctionBegin;
  nf = F.xm[0] * F.xm[1] * F.xm[2];
  nc = C.xm[0] * C.xm[1] * C.xm[2];
  const std::vector<PetscInt> offc = LevelOffsets(C);
  PetscCall(MatCreate(comm, &Pm));
  PetscCall(MatSetSizes(Pm, nf, nc, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(Pm, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(Pm, 8, NULL));
  PetscCall(MatMPIAIJSetPreallocation(Pm, 8, NULL, 8, NULL));
  PetscCall(MatGetOwnershipRange(Pm, &rstart, NULL));
  for (PetscInt k = F.xs[2], t = 0; k < F.xs[2] + F.xm[2]; k++)
    for (PetscInt j = F.xs[1]; j < F.xs[1] + F.xm[1]; j++)
      for (PetscInt i = F.xs[0]; i < F.xs[0] + F.xm[0]; i++, t++) {
        PetscInt    I[2], J[2], K[2], cols[8], cnt = 0, row = rstart + t;
        PetscReal   wi[2], wj[2], wk[2];
        PetscScalar v[8];
        PetscInt    ni = psormg::Prolong1D(i, F.M[0], I, wi, F.edgeconst[0]), nj = psormg::Prolong1D(j, F.M[1], J, wj, F.edgeconst[1]), nk = psormg::Prolong1D(k, F.M[2], K, wk, F.edgeconst[2]);

        for (PetscInt c = 0; c < nk; c++)
          for (PetscInt b = 0; b < nj; b++)
            for (PetscInt a = 0; a < ni; a++) {
              cols[cnt] = LevelGlobalIndex(C, offc, I[a], J[b], K[c]);
              v[cnt++]  = wi[a] * wj[b] * wk[c];
            }
        PetscCall(MatSetValues(Pm, 1, &row, cnt, cols, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(Pm, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Pm, MAT_FINAL_ASSEMBLY));
  *Ph = Pm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* This rank's rows of the interpolation from the next coarser grid C of F for the device setup: the local block Pd
   (columns: C's points of this rank), the ghost block Po and the global indices gP of its columns (ascending): the
   coarse points that the rows reach outside this rank's coarse block, O(surface) of them, numbered on the host; the
   rows themselves are made by a kernel (psormg::StructuredProlongation). */
static PetscErrorCode LevelProlongationDevice(PSORMGGrid &F, PSORMGGrid &C, CsrMatrix &Pd, CsrMatrix &Po, std::vector<PetscInt> &gP)
{
  const std::vector<PetscInt>          offc = LevelOffsets(C);
  Int                                  lo[3], hi[3], xs[3], xm[3], cxs[3], cxm[3], M[3];
  bool                                 edge[3];
  std::vector<std::pair<PetscInt, Int>> ghosts; /* (global index, box index) */
  std::vector<Int>                     boxidx;
  View<Int>                            dbox, ghostid;

  PetscFunctionBegin;
  for (int d = 0; d < 3; d++) {
    psormg::ProlongRange1D(F.M[d], F.xs[d], F.xs[d] + F.xm[d], &lo[d], &hi[d]);
    xs[d] = F.xs[d], xm[d] = F.xm[d], cxs[d] = C.xs[d], cxm[d] = C.xm[d], M[d] = F.M[d];
    edge[d] = F.edgeconst[d] ? true : false;
  }
  const Int b0 = cxm[0] + 2, b1 = cxm[1] + 2, b2 = cxm[2] + 2;
  for (Int K = lo[2]; K <= hi[2]; K++)
    for (Int J = lo[1]; J <= hi[1]; J++) {
      const bool in = J >= cxs[1] && J < cxs[1] + cxm[1] && K >= cxs[2] && K < cxs[2] + cxm[2];
      for (Int I = lo[0]; I <= hi[0]; I++) {
        if (in && I >= cxs[0] && I < cxs[0] + cxm[0]) {
          I = cxs[0] + cxm[0] - 1; /* skip the own block */
          continue;
        }
        PetscCallCXX(ghosts.emplace_back(LevelGlobalIndex(C, offc, I, J, K), (I - cxs[0] + 1) + b0 * ((J - cxs[1] + 1) + b1 * (K - cxs[2] + 1))));
      }
    }
  std::sort(ghosts.begin(), ghosts.end());
  PetscCallCXX(gP.resize(ghosts.size()));
  PetscCallCXX(boxidx.resize(ghosts.size()));
  for (size_t g = 0; g < ghosts.size(); g++) gP[g] = ghosts[g].first, boxidx[g] = ghosts[g].second;
  PetscCallCXX(dbox = View<Int>(std::string("psormg ghost box points"), boxidx.size()));
  if (!boxidx.empty()) PetscCallCXX(Kokkos::deep_copy(exec(), dbox, HostUView<const Int>(boxidx.data(), boxidx.size())));
  PetscCallCXX(psormg::ProlongationGhostBox(b0 * b1 * b2, ucv(dbox), ghostid));
  PetscCallCXX(psormg::StructuredProlongation(M, edge, xs, xm, cxs, cxm, ucv(ghostid), (Int)gP.size(), Pd, Po));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* choose the colouring of a level (red-black if the stencil allows it, else parity colours) and the row lists */
static PetscErrorCode LevelColour(PC pc, PetscInt lev)
{
  PC_PSORMG     *mg   = (PC_PSORMG *)pc->data;
  PSORMGGrid    &L    = mg->grids[lev];
  MPI_Comm       comm = PetscObjectComm((PetscObject)pc);
  const PetscInt n    = L.xm[0] * L.xm[1] * L.xm[2];
  View<Int>      colour;
  Int            ncolours = 0;
  PetscBool      found    = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCallCXX(colour = View<Int>(std::string("psormg colour"), n));
  /* the closed-form colourings of the grid indices (so that they agree across ranks): a star stencil of width 1,
     (i + j + k) mod 2, then a box stencil of width 1, (i mod 2) + 2 (j mod 2) + 4 (k mod 2) */
  for (int box = 0; box < 2 && !found; box++) {
    PetscInt bad;

    PetscCallCXX(ncolours = StructuredColour(3, 1, box ? true : false, L.xs[0], L.xs[1], L.xs[2], L.xm[0], L.xm[1], L.xm[2], uv(colour)));
    PetscCall(MGLevelColourCheck(mg->H, lev, ucv(colour), ncolours, &bad));
    if (!bad) {
      found    = PETSC_TRUE;
      L.parity = box ? PETSC_TRUE : PETSC_FALSE;
    } else PetscCall(PetscInfo(pc, "level %" PetscInt_FMT ": %s colouring has %" PetscInt_FMT " couplings inside a colour\n", lev, box ? "parity" : "red-black", bad));
  }
  PetscCheck(found, comm, PETSC_ERR_SUP, "PCPSORMG could not colour level %" PetscInt_FMT ": its operator couples grid points more than one grid line apart (only 3/5/7/9/27-point stencils of width 1 on a DMDA are supported)", lev);
  {
    std::vector<PetscInt> cnt(ncolours);
    Int                   nout;

    PetscCallCXX(nout = ColourPartitionCreate(n, ucv(colour), ncolours, L.colours));
    PetscCheck(nout == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCPSORMG: %" PetscInt_FMT " rows of level %" PetscInt_FMT " have no valid colour", nout, lev);
    for (Int c = 0; c < ncolours; c++) cnt[c] = L.colours.hoffsets(c + 1) - L.colours.hoffsets(c);
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, cnt.data(), (PetscMPIInt)ncolours, MPIU_INT, MPI_SUM, comm));
    L.colourids.clear();
    for (Int c = 0; c < ncolours; c++)
      if (cnt[c]) L.colourids.push_back(c);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* the projected multigrid cycle: the smoother, the obstacle hooks and the coarsest-grid solve plugged into the
   shared cycle of kp_mg */

/* nsweeps projected SOR sweeps over all colours (reverse colour order when backward) on A_l x = b; hybrid: one ghost
   exchange per sweep (MGLevelColourSweeps) */
static PetscErrorCode LevelSweeps(PC_PSORMG *mg, PetscInt l, Vec b, Vec x, PetscInt nsweeps, PetscReal omega, PetscBool backward, bool hybrid)
{
  PSORMGGrid &G = mg->grids[l];
  MGLevel    &L = mg->H.levels[l];

  PetscFunctionBegin;
  if (nsweeps <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(PC_PSORMG_Sweep, L.A, 0, 0, 0));
  PetscCall(MGLevelColourSweeps(mg->H, l, G.colours, G.colourids, nsweeps, omega, backward ? true : false, b, x, mg->havelo ? G.lo : nullptr, mg->haveup ? G.up : nullptr, hybrid));
  PetscCall(PetscLogFlops(2.0 * nsweeps * (DeviceMatLocalCsr(L.Ad).nnz + DeviceMatGhostCsr(L.Ad).nnz)));
  PetscCall(PetscLogEventEnd(PC_PSORMG_Sweep, L.A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r = b - A x on a level (into the level's r) and the global LCP measures of x (all = false: only the projected
   residual) */
static PetscErrorCode LevelMeasures(PC pc, PetscInt l, Vec b, Vec x, PetscBool all, psormg::LcpMeasures *m)
{
  PC_PSORMG  *mg = (PC_PSORMG *)pc->data;
  PSORMGGrid &G  = mg->grids[l];
  MGLevel    &L  = mg->H.levels[l];
  DeviceVec   xv, rv, bv, lv, uv;
  PetscReal   sums[4], mx;

  PetscFunctionBegin;
  PetscCall(PetscKPDeviceMatMult(L.Ad, x, L.r));
  PetscCall(VecAYPX(L.r, -1.0, b));
  PetscCall(xv.Get(x, Access::Read));
  PetscCall(rv.Get(L.r, Access::Read));
  PetscCall(bv.Get(b, Access::Read));
  if (mg->havelo) PetscCall(lv.Get(G.lo, Access::Read));
  if (mg->haveup) PetscCall(uv.Get(G.up, Access::Read));
  PetscCallCXX(*m = psormg::ComputeLcpMeasures(xv.cview(), rv.cview(), bv.cview(), lv.cview(), uv.cview(), 100 * PETSC_MACHINE_EPSILON, all ? true : false));
  PetscCall(uv.Restore());
  PetscCall(lv.Restore());
  PetscCall(bv.Restore());
  PetscCall(rv.Restore());
  PetscCall(xv.Restore());
  sums[0] = m->pnorm2, sums[1] = m->comp, sums[2] = m->energy, sums[3] = (PetscReal)m->nactive;
  mx      = m->infeas;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sums, all ? 4 : 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)pc)));
  if (all) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &mx, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)pc)));
  m->pnorm2 = sums[0], m->comp = sums[1], m->energy = sums[2], m->nactive = (PetscInt)sums[3], m->infeas = mx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* coarse bound of the correction from the fine gaps g = bound - x on level l */
static PetscErrorCode LevelRestrictGap(PC_PSORMG *mg, PetscInt l, PetscBool lower, Vec g, Vec gc)
{
  MGLevel  &F = mg->H.levels[l];
  DeviceVec gv, ghv, gcv;
  Vec       gh;

  PetscFunctionBegin;
  PetscCall(DeviceMatGhostUpdate(F.Rd, g, &gh));
  if (gh) PetscCall(ghv.Get(gh, Access::Read));
  PetscCall(gv.Get(g, Access::Read));
  PetscCall(gcv.Get(gc, Access::Write));
  PetscCallCXX(psormg::RestrictGap(mg->restriction == PC_PSORMG_OBSTACLE_LINEAR ? ObstacleRestriction::Linear : ObstacleRestriction::Monotone, lower ? true : false, DeviceMatLocalCsr(F.Rd), DeviceMatGhostCsr(F.Rd), gv.cview(), ghv.cview(), gcv.view()));
  PetscCall(gcv.Restore());
  PetscCall(gv.Restore());
  PetscCall(ghv.Restore());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LevelProject(PC_PSORMG *mg, PetscInt l, Vec x)
{
  PSORMGGrid &G = mg->grids[l];

  PetscFunctionBegin;
  if (mg->havelo) PetscCall(VecPointwiseMax(x, x, G.lo));
  if (mg->haveup) PetscCall(VecPointwiseMin(x, x, G.up));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The truncated monotone multigrid cycle (R. Kornhuber, Monotone multigrid methods for elliptic variational
   inequalities I, Numer. Math. 69 (1994); C. Graeser and R. Kornhuber, Multigrid methods for obstacle problems,
   J. Comput. Math. 27 (2009), section 3): after the pre-smoothing of level 0 the points of x on a bound form the
   active set, and the coarse functions are truncated there (MGHierarchyTruncate: rows of P and columns of R zeroed,
   the coarse operators the Galerkin products of the truncated transfers), so that the coarse-grid correction
   neither sees the residual of an active point nor moves it, and the monotone restriction of the gaps runs over the
   truncated supports only (an active point no longer pins every coarse function whose support holds it).

   Truncation freezes the active points for the coarse grids: only the smoother can release them, one grid line per
   sweep. From a poor first iterate (e.g. x = 0 projected onto an obstacle, far more points on the bound than at the
   solution) that takes O(n^(1/d)) cycles, which nested iteration would avoid. A preconditioner is given its first
   iterate, so a cycle is truncated only once the active set has settled: when it
   moved by at most PSORMG_TRUNCATION_SETTLED of its size since the last cycle (or is empty); until then the cycle is
   the monotone one (untruncated transfers, coarse bounds over the whole support of P), whose coarse corrections
   release large parts of the active set at once. The active set of the last cycle is kept between solves, so that
   a sequence of similar problems (time steps) truncates from its first cycle. */
#define PSORMG_TRUNCATION_SETTLED 0.1

static PetscErrorCode LevelTruncate(PC pc, Vec x)
{
  PC_PSORMG             *mg = (PC_PSORMG *)pc->data;
  PSORMGGrid            &G  = mg->grids[0];
  DeviceVec              xv, kv, lv, uv;
  psormg::TruncationInfo info;
  PetscInt               c[2];

  PetscFunctionBegin;
  if (!mg->tkeep) {
    PetscCall(VecDuplicate(mg->H.levels[0].r, &mg->tkeep));
    PetscCall(VecSet(mg->tkeep, 1.0));
  }
  PetscCall(xv.Get(x, Access::Read));
  PetscCall(kv.Get(mg->tkeep, Access::ReadWrite));
  if (mg->havelo) PetscCall(lv.Get(G.lo, Access::Read));
  if (mg->haveup) PetscCall(uv.Get(G.up, Access::Read));
  PetscCallCXX(info = psormg::TruncationMask(xv.cview(), lv.cview(), uv.cview(), 100 * PETSC_MACHINE_EPSILON, kv.view()));
  PetscCall(uv.Restore());
  PetscCall(lv.Restore());
  PetscCall(kv.Restore());
  PetscCall(xv.Restore());
  c[0] = info.changed, c[1] = info.active;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, c, 2, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)pc)));
  mg->trunc_changed = c[0], mg->trunc_active = c[1], mg->trunc_rows = 0;
  /* this read of the two counts is the one host synchronisation of the truncation in a cycle: the refresh itself
     (MGHierarchyTruncate) stays on the device, and an active set that did not move costs nothing more */
  if (c[0] <= PSORMG_TRUNCATION_SETTLED * c[1]) {
    if (c[0] || !mg->trunc_on) {
      PetscCall(MGHierarchyTruncate(mg->H, 0, mg->tkeep)); /* recomputes what changed */
      if (mg->monitor) PetscCall(MGHierarchyTruncatedRefreshRows(mg->H, &mg->trunc_rows));
    }
    mg->trunc_on = PETSC_TRUE;
  } else if (mg->trunc_on) {
    PetscCall(MGHierarchyTruncate(mg->H, 0, nullptr));
    if (mg->monitor) PetscCall(MGHierarchyTruncatedRefreshRows(mg->H, &mg->trunc_rows));
    mg->trunc_on = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* back to the transfers (and, with refresh, the coarse operators) of the setup */
static PetscErrorCode LevelUntruncate(PC pc, PetscBool refresh)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  PetscCall(MGHierarchyUntruncate(mg->H, refresh ? true : false));
  mg->trunc_on = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* coarsest grid: symmetric pairs of projected SOR sweeps until the projected residual dropped by coarse_rtol. A
   coarsest grid of at most PSORMG_COARSE_FUSED_MAX points runs the whole iteration in one kernel (psormg::CoarsePsor:
   the same sweeps and tests, no launch per colour and no host read per test): on one process directly, under MPI on
   every rank on a replica of the grid (CoarseSolveReplicated), since the distributed iteration exchanges ghosts after
   every colour of every sweep (most of a cycle's exchanges: some 70 sweeps of 4 colours a cycle on the obstacle);
   else a launch per colour and sweep, and a host reduction every fourth pair. */
#define PSORMG_COARSE_FUSED_MAX 4096

/* the coarsest level l gathered to every rank (operator: structure once, values at every solve, since truncation
   and refreshes change them; b, x and the bounds), the one-kernel projected SOR there with the global colouring of the
   grid (the same colours in the same order as the distributed sweeps, so the same iteration up to rounding), this
   rank's rows of x kept */
static PetscErrorCode CoarseSolveReplicated(PC pc, PetscInt l, Vec b, Vec x)
{
  PC_PSORMG  *mg   = (PC_PSORMG *)pc->data;
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);
  MGLevel    &L    = mg->H.levels[l];
  PSORMGGrid &G    = mg->grids[l];

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_PSORMG_Sweep, L.A, 0, 0, 0));
  if (mg->creplica_level != l || !mg->creplica.ready) {
    MGCoarseReplica &R = mg->creplica;
    std::vector<Int> local(L.Ad->m, 0), full;
    HostView<Int>    rows;
    Int              nout;

    PetscCall(MGCoarseReplicaSetUp(comm, L.Ad, R));
    PetscCallCXX(rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), G.colours.rows));
    for (Int c = 0; c < G.colours.ncolours; c++)
      for (Int k = G.colours.hoffsets(c); k < G.colours.hoffsets(c + 1); k++) local[rows(k)] = c;
    PetscCall(MGCoarseReplicaGatherInt(comm, R, local, full));
    View<Int> colour(std::string("psormg replica colour"), R.n);
    PetscCallCXX(Kokkos::deep_copy(colour, HostUView<const Int>(full.data(), full.size())));
    PetscCallCXX(nout = ColourPartitionCreate(R.n, ucv(colour), G.colours.ncolours, mg->ccolours));
    PetscCheck(nout == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCPSORMG: %" PetscInt_FMT " rows of the replicated coarsest grid have no valid colour", nout);
    PetscCallCXX(mg->cb = View<Scalar>(std::string("psormg replica b"), R.n));
    PetscCallCXX(mg->cx = View<Scalar>(std::string("psormg replica x"), R.n));
    PetscCallCXX(mg->clo = mg->havelo ? View<Scalar>(std::string("psormg replica lo"), R.n) : View<Scalar>());
    PetscCallCXX(mg->cup = mg->haveup ? View<Scalar>(std::string("psormg replica up"), R.n) : View<Scalar>());
    mg->creplica_level = l;
  }
  MGCoarseReplica &R = mg->creplica;
  if (mg->havelo && (Int)mg->clo.extent(0) != R.n) PetscCallCXX(mg->clo = View<Scalar>(std::string("psormg replica lo"), R.n));
  if (mg->haveup && (Int)mg->cup.extent(0) != R.n) PetscCallCXX(mg->cup = View<Scalar>(std::string("psormg replica up"), R.n));
  if (!mg->coarse_pairs.extent(0)) PetscCallCXX(mg->coarse_pairs = View<Int>(std::string("psormg coarse pairs"), 1));
  {
    /* the operator's values (truncation and refreshes change them), b, x and the bounds in one gather */
    Vec          vs[4] = {b, x};
    View<Scalar> fs[4] = {mg->cb, mg->cx};
    PetscInt     nv    = 2;
    if (mg->havelo) vs[nv] = G.lo, fs[nv++] = mg->clo;
    if (mg->haveup) vs[nv] = G.up, fs[nv++] = mg->cup;
    PetscCall(MGCoarseReplicaGatherAll(comm, L.Ad, R, nv, vs, fs));
  }
  PetscCallCXX(psormg::CoarsePsor(R.A, ucv(mg->ccolours.rows), ucv(mg->ccolours.offsets), mg->ccolours.ncolours, mg->coarse_omega, mg->coarse_max_it, mg->coarse_rtol, 100 * PETSC_MACHINE_EPSILON, ucv(mg->cb), mg->havelo ? ucv(mg->clo) : UView<const Scalar>(), mg->haveup ? ucv(mg->cup) : UView<const Scalar>(), uv(mg->cx), uv(mg->coarse_pairs)));
  PetscCall(MGCoarseReplicaScatter(R, mg->cx, x));
  PetscCall(PetscLogEventEnd(PC_PSORMG_Sweep, L.A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CoarseSolve(PC pc, PetscInt l, Vec b, Vec x)
{
  PC_PSORMG          *mg = (PC_PSORMG *)pc->data;
  MGLevel            &L  = mg->H.levels[l];
  psormg::LcpMeasures m;
  PetscReal           p0;
  PetscMPIInt         size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  if (size > 1 && L.Ad && L.Ad->M <= PSORMG_COARSE_FUSED_MAX) {
    PetscCall(CoarseSolveReplicated(pc, l, b, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (size == 1 && L.Ad && DeviceMatGhostCsr(L.Ad).nrows == 0 && L.nlocal <= PSORMG_COARSE_FUSED_MAX) {
    PSORMGGrid &G = mg->grids[l];
    DeviceVec   bv, xv, lv, upv;

    PetscCall(PetscLogEventBegin(PC_PSORMG_Sweep, L.A, 0, 0, 0));
    if (!mg->coarse_pairs.extent(0)) PetscCallCXX(mg->coarse_pairs = View<Int>(std::string("psormg coarse pairs"), 1));
    PetscCall(bv.Get(b, Access::Read));
    PetscCall(xv.Get(x, Access::ReadWrite));
    if (mg->havelo) PetscCall(lv.Get(G.lo, Access::Read));
    if (mg->haveup) PetscCall(upv.Get(G.up, Access::Read));
    PetscCallCXX(psormg::CoarsePsor(DeviceMatLocalCsr(L.Ad), ucv(G.colours.rows), ucv(G.colours.offsets), G.colours.ncolours, mg->coarse_omega, mg->coarse_max_it, mg->coarse_rtol, 100 * PETSC_MACHINE_EPSILON, bv.cview(), lv.cview(), upv.cview(), xv.view(), uv(mg->coarse_pairs)));
    PetscCall(upv.Restore());
    PetscCall(lv.Restore());
    PetscCall(xv.Restore());
    PetscCall(bv.Restore());
    PetscCall(PetscLogEventEnd(PC_PSORMG_Sweep, L.A, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(LevelMeasures(pc, l, b, x, PETSC_FALSE, &m));
  p0 = PetscSqrtReal(m.pnorm2);
  for (PetscInt it = 0; it < mg->coarse_max_it && p0 > 0; it += 2) {
    /* the iteration of a solve: per-colour exchanges (over-relaxed Jacobi between processes need not converge) */
    PetscCall(LevelSweeps(mg, l, b, x, 1, mg->coarse_omega, PETSC_FALSE, false));
    PetscCall(LevelSweeps(mg, l, b, x, 1, mg->coarse_omega, PETSC_TRUE, false));
    if ((it / 2) % 4 == 3) {
      PetscCall(LevelMeasures(pc, l, b, x, PETSC_FALSE, &m));
      if (PetscSqrtReal(m.pnorm2) <= mg->coarse_rtol * p0) break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The projected multigrid cycle on level l for A_l x >= b_l, lo_l <= x <= up_l (the paper's Algorithm 1 with box
   bounds, post-smoothing and the monotone restriction by default (truncated on request)) is the shared V/W cycle with
   - the smoother: projected SOR sweeps (colours forward before, backward after the coarse correction);
   - Residual: r = b - A x, and on level 0 with the truncated restriction the truncation of the transfers at the
     active points of x (LevelTruncate), before the cycle restricts r;
   - BeginCoarse: the coarse problem for the correction e is A_c e >= R (b - A x) with the bounds lo_c <= e <= up_c
     restricted from the gaps lo - x, up - x (max / min over the supports of the, possibly truncated, R);
   - EndCoarse: x += P e is projected onto the bounds;
   - the coarsest grid: projected SOR to a tolerance. */
class PSORMGOps : public MGLevelOps {
public:
  explicit PSORMGOps(PC pc) : MGLevelOps(((PC_PSORMG *)pc->data)->H), pc_(pc), mg_((PC_PSORMG *)pc->data) { }

  PetscErrorCode Smooth(PetscInt l, Vec b, Vec x, PetscInt nsweeps, MGSweepDirection dir, bool) override
  {
    PetscFunctionBegin;
    PetscCall(LevelSweeps(mg_, l, b, x, nsweeps, mg_->omega, dir == MGSweepDirection::Backward ? PETSC_TRUE : PETSC_FALSE, mg_->hybrid ? true : false));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* r = b - A x; with the truncated restriction, level 0 then truncates the transfers at the active points of x */
  PetscErrorCode Residual(PetscInt l, Vec b, Vec x, Vec r) override
  {
    PetscFunctionBegin;
    PetscCall(MGLevelOps::Residual(l, b, x, r));
    if (l == 0 && mg_->restriction == PC_PSORMG_OBSTACLE_TRUNCATED && (mg_->havelo || mg_->haveup)) PetscCall(LevelTruncate(pc_, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode CoarseSolve(PetscInt l, Vec b, Vec x) override
  {
    PetscFunctionBegin;
    PetscCall(::CoarseSolve(pc_, l, b, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode BeginCoarse(PetscInt l, Vec, Vec x) override
  {
    PSORMGGrid &F = mg_->grids[l], &C = mg_->grids[l + 1];
    Vec         w = mg_->H.levels[l].w;

    PetscFunctionBegin;
    if (mg_->havelo) {
      PetscCall(VecWAXPY(w, -1.0, x, F.lo));
      PetscCall(LevelRestrictGap(mg_, l, PETSC_TRUE, w, C.lo));
    }
    if (mg_->haveup) {
      PetscCall(VecWAXPY(w, -1.0, x, F.up));
      PetscCall(LevelRestrictGap(mg_, l, PETSC_FALSE, w, C.up));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode EndCoarse(PetscInt l, Vec, Vec x) override
  {
    PetscFunctionBegin;
    if (mg_->project) PetscCall(LevelProject(mg_, l, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

private:
  PC         pc_;
  PC_PSORMG *mg_;
};

/* one projected multigrid cycle on the finest level for A x >= b (from x, or from zero) */
static PetscErrorCode PSORMGCycle(PC pc, Vec b, Vec x, PetscBool zero)
{
  PC_PSORMG    *mg = (PC_PSORMG *)pc->data;
  PSORMGOps     ops(pc);
  MGCycleParams p;

  PetscFunctionBegin;
  p.type = mg->cycle_type == PC_MG_CYCLE_W ? MGCycleType::W : MGCycleType::V;
  p.pre  = mg->nu1;
  p.post = mg->nu2;
  PetscCall(PetscLogEventBegin(PC_PSORMG_Cycle, pc, 0, 0, 0));
  PetscCall(MGCycleApply(mg->H, ops, p, b, x, zero ? true : false));
  PetscCall(PetscLogEventEnd(PC_PSORMG_Cycle, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* composed setters */

static PetscErrorCode PCPSORMGSetVariableBounds_PSORMG(PC pc, Vec xl, Vec xu)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  if (xl) PetscCall(PetscObjectReference((PetscObject)xl));
  if (xu) PetscCall(PetscObjectReference((PetscObject)xu));
  PetscCall(VecDestroy(&mg->xl));
  PetscCall(VecDestroy(&mg->xu));
  mg->xl = xl;
  mg->xu = xu;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGGetVariableBounds_PSORMG(PC pc, Vec *xl, Vec *xu)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  if (xl) *xl = mg->xl;
  if (xu) *xu = mg->xu;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGSetObstacleRestriction_PSORMG(PC pc, PCPSORMGObstacleRestriction type)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(type == PC_PSORMG_OBSTACLE_MONOTONE || type == PC_PSORMG_OBSTACLE_LINEAR || type == PC_PSORMG_OBSTACLE_TRUNCATED, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s must be monotone, linear or truncated (PC_PSORMG_OBSTACLE_MONOTONE, PC_PSORMG_OBSTACLE_LINEAR or PC_PSORMG_OBSTACLE_TRUNCATED), not %d", PSORMG_OPT(pc, "obstacle_restriction"), (int)type);
  mg->restriction = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGGetObstacleRestriction_PSORMG(PC pc, PCPSORMGObstacleRestriction *type)
{
  PetscFunctionBegin;
  *type = ((PC_PSORMG *)pc->data)->restriction;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGSetOmega_PSORMG(PC pc, PetscReal omega)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(omega > 0 && omega < 2, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s (the relaxation factor of projected SOR) must lie in (0, 2), not %g", PSORMG_OPT(pc, "omega"), (double)omega);
  mg->omega = omega;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGGetOmega_PSORMG(PC pc, PetscReal *omega)
{
  PetscFunctionBegin;
  *omega = ((PC_PSORMG *)pc->data)->omega;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGSetLevels_PSORMG(PC pc, PetscInt levels)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(levels >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s must be >= 1 (or 0: coarsen down to the coarse size), not %" PetscInt_FMT, PSORMG_OPT(pc, "levels"), levels);
  if (levels != mg->levels_max && pc->setupcalled) pc->setupcalled = 0; /* rebuild the hierarchy */
  mg->levels_max = levels;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGGetLevels_PSORMG(PC pc, PetscInt *levels)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  *levels = (PetscInt)mg->H.levels.size();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGSetCoarseSize_PSORMG(PC pc, PetscInt size)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(size >= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s (the number of unknowns at which coarsening stops) must be >= 1, not %" PetscInt_FMT, PSORMG_OPT(pc, "coarse_size"), size);
  if (size != mg->coarse_size && pc->setupcalled) pc->setupcalled = 0; /* rebuild the hierarchy */
  mg->coarse_size = size;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGGetCoarseSize_PSORMG(PC pc, PetscInt *size)
{
  PetscFunctionBegin;
  *size = ((PC_PSORMG *)pc->data)->coarse_size;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGSetCycleType_PSORMG(PC pc, PCMGCycleType type)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(type == PC_MG_CYCLE_V || type == PC_MG_CYCLE_W, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s must be v or w (PC_MG_CYCLE_V or PC_MG_CYCLE_W), not %d", PSORMG_OPT(pc, "cycle_type"), (int)type);
  mg->cycle_type = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGGetCycleType_PSORMG(PC pc, PCMGCycleType *type)
{
  PetscFunctionBegin;
  *type = ((PC_PSORMG *)pc->data)->cycle_type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGSetSmooths_PSORMG(PC pc, PetscInt pre, PetscInt post)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(pre >= 0 && post >= 0 && pre + post > 0 && pre <= 100 && post <= 100, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s and %s must be in [0, 100] with at least one sweep in all, not %" PetscInt_FMT " and %" PetscInt_FMT, PSORMG_OPT(pc, "pre_smooths"), PSORMG_OPT(pc, "post_smooths"), pre, post);
  mg->nu1 = pre;
  mg->nu2 = post;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGGetSmooths_PSORMG(PC pc, PetscInt *pre, PetscInt *post)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  if (pre) *pre = mg->nu1;
  if (post) *post = mg->nu2;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGSetCoarseSolve_PSORMG(PC pc, PetscReal omega, PetscInt max_it, PetscReal rtol)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;
  MPI_Comm   comm = PetscObjectComm((PetscObject)pc);

  PetscFunctionBegin;
  PetscCheck(omega > 0 && omega < 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s (the relaxation factor of the coarsest-grid projected SOR) must lie in (0, 2), not %g", PSORMG_OPT(pc, "coarse_omega"), (double)omega);
  PetscCheck(max_it >= 1 && max_it <= 1000000, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s (the most coarsest-grid sweeps) must be in [1, 1e6], not %" PetscInt_FMT, PSORMG_OPT(pc, "coarse_max_it"), max_it);
  PetscCheck(rtol > 0 && rtol < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s (the relative projected residual of the coarsest grid) must lie in (0, 1), not %g", PSORMG_OPT(pc, "coarse_rtol"), (double)rtol);
  mg->coarse_omega  = omega;
  mg->coarse_max_it = max_it;
  mg->coarse_rtol   = rtol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGGetCoarseSolve_PSORMG(PC pc, PetscReal *omega, PetscInt *max_it, PetscReal *rtol)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  if (omega) *omega = mg->coarse_omega;
  if (max_it) *max_it = mg->coarse_max_it;
  if (rtol) *rtol = mg->coarse_rtol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGSetEdgeInterpolation_PSORMG(PC pc, PCPSORMGEdgeInterpolation type)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  PetscCheck(type == PC_PSORMG_EDGE_AUTO || type == PC_PSORMG_EDGE_ZERO || type == PC_PSORMG_EDGE_CONSTANT, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s must be auto, zero or constant (PC_PSORMG_EDGE_AUTO, PC_PSORMG_EDGE_ZERO or PC_PSORMG_EDGE_CONSTANT), not %d", PSORMG_OPT(pc, "edge_interpolation"), (int)type);
  if (type != mg->edge && pc->setupcalled) pc->setupcalled = 0; /* rebuild the hierarchy */
  mg->edge = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGGetEdgeInterpolation_PSORMG(PC pc, PCPSORMGEdgeInterpolation *type)
{
  PetscFunctionBegin;
  *type = ((PC_PSORMG *)pc->data)->edge;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGSetProjectCorrection_PSORMG(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  ((PC_PSORMG *)pc->data)->project = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGGetProjectCorrection_PSORMG(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((PC_PSORMG *)pc->data)->project;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGSetDeviceSetup_PSORMG(PC pc, PetscBool flg)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  if (flg != mg->device_setup && pc->setupcalled) pc->setupcalled = 0; /* rebuild the hierarchy */
  mg->device_setup = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGSetHybridSmoother_PSORMG(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  ((PC_PSORMG *)pc->data)->hybrid = flg; /* a property of the sweeps: no new setup */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGGetHybridSmoother_PSORMG(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((PC_PSORMG *)pc->data)->hybrid;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPSORMGGetDeviceSetup_PSORMG(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((PC_PSORMG *)pc->data)->device_setup;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */

static PetscErrorCode PCReset_PSORMG(PC pc)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  for (size_t l = 1; l < mg->grids.size(); l++) {
    PetscCall(VecDestroy(&mg->grids[l].lo));
    PetscCall(VecDestroy(&mg->grids[l].up));
  }
  PetscCall(VecDestroy(&mg->tkeep));
  for (Vec *v : {&mg->bw, &mg->xw, &mg->xlw, &mg->xuw}) PetscCall(VecDestroy(v));
  mg->trunc_on = PETSC_FALSE;
  PetscCallCXX(mg->grids.clear());
  PetscCallCXX(mg->creplica = MGCoarseReplica());
  PetscCallCXX(mg->ccolours = ColourPartition());
  mg->creplica_level = -1;
  PetscCall(MGHierarchyReset(mg->H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_PSORMG(PC pc)
{
  PC_PSORMG      *mg = (PC_PSORMG *)pc->data;
  MPI_Comm        comm = PetscObjectComm((PetscObject)pc);
  DM              da   = pc->dm;
  PetscBool       isda;
  PetscInt        dim, M[3], np[3], dof, sw, nlocal, mlocal;
  const PetscInt *lx[3];
  PetscMPIInt     rank, size;

  PetscFunctionBegin;
  PetscCall(MatCheckSquareLayout(pc->pmat, "PCPSORMG"));
  PetscCall(KokkosInitializeOnce());
  PetscCheck(da, comm, PETSC_ERR_ARG_WRONGSTATE, "PCPSORMG builds its grid hierarchy from a DMDA: call KSPSetDM() (with KSPSetDMActive(ksp, PETSC_FALSE) if you set the operators yourself) or PCSetDM() before the solve");
  PetscCall(PetscObjectTypeCompare((PetscObject)da, DMDA, &isda));
  PetscCheck(isda, comm, PETSC_ERR_SUP, "PCPSORMG needs a DMDA, not a DM of type %s", ((PetscObject)da)->type_name);
  PetscCall(MatCheckAIJ(pc->pmat, NULL));
  if (pc->setupcalled && pc->flag == SAME_NONZERO_PATTERN && !mg->H.levels.empty() && mg->H.levels[0].A == pc->pmat) {
    /* new values, same pattern: numeric Galerkin products only (on the device, or on the host AIJ copies) */
    PetscCall(PetscLogEventBegin(PC_PSORMG_SetUp, pc, 0, 0, 0));
    PetscCall(LevelUntruncate(pc, PETSC_FALSE)); /* the refresh below forms the coarse operators of the setup's transfers */
    PetscCall(MGHierarchyRefreshFine(mg->H));
    PetscCall(MGHierarchyCheckOperator(mg->H, "PCPSORMG", "PCPSORMG needs a positive diagonal (projected SOR on an SPD M-matrix)"));
    PetscCall(MGHierarchyRefreshCoarse(mg->H));
    PetscCall(PetscLogEventEnd(PC_PSORMG_SetUp, pc, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCReset_PSORMG(pc));
  PetscCall(PetscLogEventBegin(PC_PSORMG_SetUp, pc, 0, 0, 0));
  PetscCall(DMDAGetInfo(da, &dim, &M[0], &M[1], &M[2], &np[0], &np[1], &np[2], &dof, &sw, NULL, NULL, NULL, NULL));
  PetscCheck(dof == 1, comm, PETSC_ERR_SUP, "PCPSORMG supports scalar problems (DMDA with 1 degree of freedom), not %" PetscInt_FMT, dof);
  PetscCall(DMDAGetOwnershipRanges(da, &lx[0], &lx[1], &lx[2]));
  PetscCall(MatGetLocalSize(pc->pmat, &mlocal, NULL));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallCXX(mg->grids.emplace_back());
  {
    PSORMGGrid &F = mg->grids[0];
    for (int d = 0; d < 3; d++) {
      if (d >= dim || !lx[d]) M[d] = 1, np[d] = 1;
      F.M[d] = M[d];
      F.own[d].assign(np[d] + 1, 0);
      for (PetscInt p = 0; p < np[d]; p++) F.own[d][p + 1] = F.own[d][p] + ((d < dim && lx[d]) ? lx[d][p] : 1);
    }
    const PetscInt pc3[3] = {rank % np[0], (rank / np[0]) % np[1], rank / (np[0] * np[1])};
    for (int d = 0; d < 3; d++) F.xs[d] = F.own[d][pc3[d]], F.xm[d] = F.own[d][pc3[d] + 1] - F.own[d][pc3[d]];
    nlocal = F.xm[0] * F.xm[1] * F.xm[2];
    PetscCheck(nlocal == mlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "PCPSORMG: the operator has %" PetscInt_FMT " local rows but the DMDA %" PetscInt_FMT " local points; create the matrix with DMCreateMatrix() of the DMDA given to the KSP/PC", mlocal, nlocal);
  }
  /* Device setup (default, any number of processes): the fine operator is copied to the device once; this rank's
     rows of P (the same tensor-product stencil and far-edge rules as the host path) are made by a kernel, and R = P^T
     and every coarse operator R A P are formed there by the shared hierarchy, whose coarse levels are then device
     CSR matrices only (no PETSc Mat); under MPI the ghost rows of P and the off-process rows of R A P travel between
     the ranks (O(surface), through the host). Host setup (on request): P is assembled as a host AIJ matrix and the hierarchy forms the
     Galerkin products on host AIJ copies (PETSc's cuSPARSE MatPtAP() returned zero operators from the third grid
     down), converted to the operator's type. The cycle itself uses only the device copies of these matrices. */
  PetscCall(MGHierarchyCreate(comm, pc->pmat, mg->device_setup ? true : false, mg->H));
  PetscCall(MGHierarchyCheckOperator(mg->H, "PCPSORMG", "PCPSORMG needs a positive diagonal (projected SOR on an SPD M-matrix)"));
  for (;;) {
    const PetscInt l = (PetscInt)mg->grids.size() - 1;
    PSORMGGrid    &F = mg->grids[l];
    const PetscInt N = F.M[0] * F.M[1] * F.M[2];
    if (N <= mg->coarse_size || (F.M[0] <= 2 && F.M[1] <= 2 && F.M[2] <= 2)) break;
    if (mg->levels_max > 0 && (PetscInt)mg->grids.size() >= mg->levels_max) break;
    PSORMGGrid C;
    PetscCall(LevelEdgeRule(pc, l));
    PetscCall(LevelCoarseGrid(pc, F, C));
    if (mg->H.device && size == 1) {
      CsrMatrix P;
      bool      edge[3];
      for (int d = 0; d < 3; d++) edge[d] = F.edgeconst[d] ? true : false;
      PetscCallCXX(psormg::StructuredProlongation(F.M, edge, P));
      PetscCall(MGHierarchyAddLevelDevice(mg->H, P));
    } else if (mg->H.device) {
      CsrMatrix             Pd, Po;
      std::vector<PetscInt> gP;
      PetscCall(LevelProlongationDevice(F, C, Pd, Po, gP));
      PetscCall(MGHierarchyAddLevelDevice(mg->H, Pd, Po, gP));
    } else {
      Mat Ph = nullptr;
      PetscCall(LevelProlongationHost(pc, F, C, &Ph));
      PetscCall(MGHierarchyAddLevelHost(mg->H, Ph));
    }
    PetscCallCXX(mg->grids.push_back(C));
  }
  PetscCall(MGHierarchySetUpVecs(mg->H));
  for (size_t l = 0; l < mg->grids.size(); l++) {
    if (l > 0) {
      PetscCall(VecDuplicate(mg->H.levels[l].r, &mg->grids[l].lo));
      PetscCall(VecDuplicate(mg->H.levels[l].r, &mg->grids[l].up));
    }
    PetscCall(LevelColour(pc, (PetscInt)l));
  }
  PetscCall(PetscLogEventEnd(PC_PSORMG_SetUp, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bounds of a solve, validated (layout of the operator, no NaN, no +inf lower / -inf upper bound, xl <= xu);
   lo/up of level 0 point to them */
static PetscErrorCode PSORMGBeginSolve(PC pc)
{
  PC_PSORMG         *mg   = (PC_PSORMG *)pc->data;
  MPI_Comm           comm = PetscObjectComm((PetscObject)pc);
  psormg::BoundsInfo info;
  DeviceVec          lv, uv;
  PetscInt           n, rstart, loc[5], glob[5];
  PetscBool          bad = PETSC_FALSE;

  PetscFunctionBegin;
  mg->havelo = mg->xl ? PETSC_TRUE : PETSC_FALSE;
  mg->haveup = mg->xu ? PETSC_TRUE : PETSC_FALSE;
  /* a hierarchy truncated by an earlier solve (the truncation is kept between solves, so that a solve with the same
     active set costs no Galerkin products) is restored for any other restriction, and for PCApply() without bounds */
  if (mg->restriction != PC_PSORMG_OBSTACLE_TRUNCATED || (!mg->havelo && !mg->haveup)) PetscCall(LevelUntruncate(pc, PETSC_TRUE));
  if (mg->havelo || mg->haveup) {
    PetscCall(VecGetLocalSize(mg->H.levels[0].r, &n));
    for (Vec v : {mg->xl, mg->xu}) {
      PetscInt nv;
      if (!v) continue;
      PetscCall(VecGetLocalSize(v, &nv));
      if (nv != n) bad = PETSC_TRUE;
    }
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_BOOL, MPI_LOR, comm));
    PetscCheck(!bad, comm, PETSC_ERR_ARG_SIZ, "PCPSORMG: the bounds of PCPSORMGSetVariableBounds() must have the layout of the operator (create them with DMCreateGlobalVector() or MatCreateVecs())");
    if (mg->havelo) PetscCall(lv.Get(mg->xl, Access::Read));
    if (mg->haveup) PetscCall(uv.Get(mg->xu, Access::Read));
    PetscCallCXX(info = psormg::CheckBounds(lv.cview(), uv.cview()));
    PetscCall(uv.Restore());
    PetscCall(lv.Restore());
    PetscCall(VecGetOwnershipRange(mg->H.levels[0].r, &rstart, NULL));
    loc[0] = info.nan_lo >= 0 ? rstart + info.nan_lo : PETSC_MAX_INT;
    loc[1] = info.nan_up >= 0 ? rstart + info.nan_up : PETSC_MAX_INT;
    loc[2] = info.pinf_lo >= 0 ? rstart + info.pinf_lo : PETSC_MAX_INT;
    loc[3] = info.ninf_up >= 0 ? rstart + info.ninf_up : PETSC_MAX_INT;
    loc[4] = info.crossed >= 0 ? rstart + info.crossed : PETSC_MAX_INT;
    PetscCall(MPIU_Allreduce(loc, glob, 5, MPIU_INT, MPI_MIN, comm));
    PetscCheck(glob[0] == PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE, "PCPSORMG: lower bound %" PetscInt_FMT " is NaN; use PETSC_NINFINITY for an entry without a lower bound (PCPSORMGSetVariableBounds())", glob[0]);
    PetscCheck(glob[1] == PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE, "PCPSORMG: upper bound %" PetscInt_FMT " is NaN; use PETSC_INFINITY for an entry without an upper bound (PCPSORMGSetVariableBounds())", glob[1]);
    PetscCheck(glob[2] == PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE, "PCPSORMG: lower bound %" PetscInt_FMT " is +infinity: the problem is infeasible", glob[2]);
    PetscCheck(glob[3] == PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE, "PCPSORMG: upper bound %" PetscInt_FMT " is -infinity: the problem is infeasible", glob[3]);
    if (glob[4] != PETSC_MAX_INT) {
      PetscReal v[2] = {0, 0};
      if (loc[4] == glob[4]) v[0] = info.lo_crossed, v[1] = info.up_crossed;
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, v, 2, MPIU_REAL, MPIU_SUM, comm));
      SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "PCPSORMG: the bounds cross at entry %" PetscInt_FMT " (xl = %g > xu = %g): the problem is infeasible; PCPSORMGSetVariableBounds() needs xl <= xu", glob[4], (double)v[0], (double)v[1]);
    }
  }
  mg->grids[0].lo = mg->grids[0].up = nullptr;
  if (mg->xl) PetscCall(VecGetAsTypeOf(mg->xl, mg->H.levels[0].r, PETSC_TRUE, &mg->xlw, &mg->grids[0].lo));
  if (mg->xu) PetscCall(VecGetAsTypeOf(mg->xu, mg->H.levels[0].r, PETSC_TRUE, &mg->xuw, &mg->grids[0].up));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PSORMGEndSolve(PC pc)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  mg->grids[0].lo = mg->grids[0].up = nullptr;
  mg->havelo = mg->haveup = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the projected multigrid iteration on b and x of the operator's type (PCApplyRichardson_PSORMG()) */
static PetscErrorCode PSORMGRichardson(PC pc, Vec b, Vec x, PetscReal rtol, PetscReal abstol, PetscReal dtol, PetscInt its, PetscBool guesszero, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  PC_PSORMG          *mg = (PC_PSORMG *)pc->data;
  psormg::LcpMeasures m;
  PetscReal           p0, pn, rn;
  const PetscBool     all = mg->monitor ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PSORMGBeginSolve(pc));
  MGLevel &F = mg->H.levels[0];
  if (guesszero) PetscCall(VecSet(x, 0.0));
  if (mg->havelo || mg->haveup) {
    /* an infeasible initial guess is projected onto [xl, xu] */
    PetscCall(VecCopy(x, F.w));
    PetscCall(LevelProject(mg, 0, x));
    PetscCall(VecAXPY(F.w, -1.0, x));
    PetscCall(VecNorm(F.w, NORM_INFINITY, &pn));
    if (pn > 0) PetscCall(PetscInfo(pc, "initial guess was infeasible by %g: projected onto the bounds\n", (double)pn));
  }
  *reason = (PCRichardsonConvergedReason)0;
  *outits = 0;
  PetscCall(LevelMeasures(pc, 0, b, x, all, &m));
  /* the projected residual hides a NaN or Inf of b, of the initial guess or of A x at a point on a bound (there it
     is max(r_i, 0) or min(r_i, 0)), and the projected sweeps would then clamp the iterate to a finite value: check
     the full initial residual, as the Krylov methods check theirs. KSPRICHARDSON copies this reason into the KSP's. */
  PetscCall(VecNorm(F.r, NORM_2, &rn));
  {
    /* and entry by entry: the 2-norm depends on the implementation (PETSc's host norm squares the entries and
       overflows to Inf for an entry of PETSC_INFINITY = PETSC_MAX_REAL / 4, cuBLAS's scaled nrm2 returns that entry,
       a finite number), while PETSc itself writes +-PETSC_INFINITY for an infinite value: an entry of that size, or a
       NaN, makes the residual infinite. rn itself is kept for the message. */
    DeviceVec   rv;
    PetscMPIInt lbad, gbad;
    PetscReal   rmax;
    PetscCall(VecNorm(F.r, NORM_INFINITY, &rmax));
    PetscCall(rv.Get(F.r, Access::Read));
    PetscCallCXX(lbad = FirstNonFinite(rv.cview()) >= 0 ? 1 : 0);
    PetscCall(rv.Restore());
    PetscCall(MPIU_Allreduce(&lbad, &gbad, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)pc)));
    if ((gbad || !(rmax < PETSC_INFINITY)) && !PetscIsInfOrNanReal(rn)) rn = std::numeric_limits<PetscReal>::infinity(); /* PETSC_INFINITY is finite */
  }
  if (PetscIsInfOrNanReal(rn)) {
    PetscCall(PetscInfo(pc, "the initial residual b - A x has norm %g: the right-hand side or the initial guess has NaN or Inf (or +-PETSC_INFINITY) entries\n", (double)rn));
    *reason        = (PCRichardsonConvergedReason)KSP_DIVERGED_NANORINF;
    mg->last_its   = 0;
    mg->last_pnorm = rn;
    PetscCall(PSORMGEndSolve(pc));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  p0 = pn = PetscSqrtReal(m.pnorm2);
  PetscCall(MonitorPrintf((PetscObject)pc, mg->monitor, "%3" PetscInt_FMT " PSORMG projected residual %14.12e complementarity %g infeasibility %g energy %.10e active %" PetscInt_FMT "\n", (PetscInt)0, (double)pn, (double)m.comp, (double)m.infeas, (double)m.energy, (PetscInt)m.nactive));
  if (pn <= abstol) *reason = PCRICHARDSON_CONVERGED_ATOL;
  for (PetscInt k = 0; k < its && !*reason; k++) {
    PetscCall(PSORMGCycle(pc, b, x, PETSC_FALSE));
    PetscCall(LevelMeasures(pc, 0, b, x, all, &m));
    pn      = PetscSqrtReal(m.pnorm2);
    *outits = k + 1;
    if (mg->restriction == PC_PSORMG_OBSTACLE_TRUNCATED) PetscCall(MonitorPrintf((PetscObject)pc, mg->monitor, "    truncation: %s, active-set moves %" PetscInt_FMT " of %" PetscInt_FMT ", coarse rows recomputed %" PetscInt_FMT "\n", mg->trunc_on ? "on" : "off", mg->trunc_changed, mg->trunc_active, mg->trunc_rows));
    PetscCall(MonitorPrintf((PetscObject)pc, mg->monitor, "%3" PetscInt_FMT " PSORMG projected residual %14.12e complementarity %g infeasibility %g energy %.10e active %" PetscInt_FMT "\n", k + 1, (double)pn, (double)m.comp, (double)m.infeas, (double)m.energy, (PetscInt)m.nactive));
    PetscCheck(!PetscIsInfOrNanReal(pn), PetscObjectComm((PetscObject)pc), PETSC_ERR_FP, "PCPSORMG: the projected residual is %g after cycle %" PetscInt_FMT "; check the operator (SPD M-matrix expected), the bounds and omega", (double)pn, k + 1);
    if (pn <= abstol) *reason = PCRICHARDSON_CONVERGED_ATOL;
    else if (pn <= rtol * p0) *reason = PCRICHARDSON_CONVERGED_RTOL;
    else if (pn >= dtol * p0) *reason = PCRICHARDSON_DIVERGED_DTOL;
  }
  /* the cycles ran out before a tolerance was met: not converged (KSPRichardson's own loop says so too; PCMG would
     say PCRICHARDSON_CONVERGED_ITS, which would pass -ksp_error_if_not_converged with an unsolved LCP) */
  if (!*reason) *reason = (PCRichardsonConvergedReason)KSP_DIVERGED_ITS;
  mg->last_its   = *outits;
  mg->last_pnorm = pn;
  PetscCall(PSORMGEndSolve(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyRichardson_PSORMG(PC pc, Vec b, Vec x, Vec w, PetscReal rtol, PetscReal abstol, PetscReal dtol, PetscInt its, PetscBool guesszero, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;
  Vec        bu, xu;

  PetscFunctionBegin;
  (void)w;
  PetscCall(VecGetAsTypeOf(b, mg->H.levels[0].r, PETSC_TRUE, &mg->bw, &bu));
  PetscCall(VecGetAsTypeOf(x, mg->H.levels[0].r, guesszero ? PETSC_FALSE : PETSC_TRUE, &mg->xw, &xu));
  PetscCall(PSORMGRichardson(pc, bu, xu, rtol, abstol, dtol, its, guesszero, outits, reason));
  PetscCall(VecRestoreAsTypeOf(x, PETSC_TRUE, &xu));
  PetscCall(VecRestoreAsTypeOf(b, PETSC_FALSE, &bu));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSPRICHARDSON uses PCApplyRichardson() only for -ksp_max_it >= 1; with -ksp_max_it 0 it would call PCApply() for
   its residual norm, the error of a PCApply() fallback with bounds. PETSc's KSPs run no iteration then and return
   the initial guess with the reason of their convergence test at iteration 0; here that is the reason of the
   projected iteration with no cycle: KSP_DIVERGED_ITS, KSP_CONVERGED_ATOL if the projected residual of a feasible
   initial guess is at most -ksp_atol, KSP_DIVERGED_NANORINF for NaN or Inf. It is set before KSPSolve_Richardson(),
   which then returns at once (PCApply() is the identity until PCPostSolve(), for its self-scaling variant). */
static PetscErrorCode PCPreSolve_PSORMG(PC pc, KSP ksp, Vec b, Vec x)
{
  PC_PSORMG                  *mg = (PC_PSORMG *)pc->data;
  PetscBool                   rich;
  Vec                         x0;
  PetscInt                    its;
  PCRichardsonConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPRICHARDSON, &rich));
  mg->no_cycles = PETSC_FALSE;
  if (!(mg->xl || mg->xu) || !rich || ksp->max_it > 0) PetscFunctionReturn(PETSC_SUCCESS);
  /* on a copy: the initial guess is returned as it is, as by PETSc's KSPs (KSPSolve() zeroes it after this call for
     a zero initial guess) */
  PetscCall(VecDuplicate(x, &x0));
  if (!ksp->guess_zero) PetscCall(VecCopy(x, x0));
  PetscCall(PCApplyRichardson_PSORMG(pc, b, x0, NULL, ksp->rtol, ksp->abstol, ksp->divtol, 0, ksp->guess_zero, &its, &reason));
  if ((PetscInt)reason > 0) { /* converged only if the guess itself, not its projection onto the bounds, is feasible */
    PetscReal d;
    if (!ksp->guess_zero) PetscCall(VecAXPY(x0, -1.0, x));
    PetscCall(VecNorm(x0, NORM_INFINITY, &d));
    if (d > 0) reason = (PCRichardsonConvergedReason)KSP_DIVERGED_ITS;
  }
  PetscCall(VecDestroy(&x0));
  PetscCall(PetscInfo(pc, "-ksp_max_it 0: no cycle, the initial guess is returned (%s, projected residual %g)\n", KSPConvergedReasons[reason], (double)mg->last_pnorm));
  ksp->its      = 0;
  ksp->rnorm    = mg->last_pnorm;
  ksp->reason   = (KSPConvergedReason)reason;
  mg->no_cycles = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPostSolve_PSORMG(PC pc, KSP ksp, Vec b, Vec x)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  (void)ksp, (void)b, (void)x;
  mg->no_cycles = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_PSORMG(PC pc, Vec b, Vec y)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  if (mg->no_cycles) { /* KSPRICHARDSON with -ksp_max_it 0 (PCPreSolve_PSORMG()) */
    PetscCall(VecCopy(b, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(!mg->xl && !mg->xu, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
             "PCPSORMG with variable bounds is a projected (nonlinear) iteration that runs only through PCApplyRichardson(): use -ksp_type richardson without KSP monitors "
             "(use -pc_psormg_monitor instead), with the default convergence test, -ksp_richardson_scale 1 and no null space. "
             "PETSc fell back to PCApply(), which would return a wrong answer for a complementarity problem");
  {
    Vec bu, yu;
    PetscCall(VecGetAsTypeOf(b, mg->H.levels[0].r, PETSC_TRUE, &mg->bw, &bu));
    PetscCall(VecGetAsTypeOf(y, mg->H.levels[0].r, PETSC_FALSE, &mg->xw, &yu));
    PetscCall(PSORMGBeginSolve(pc));
    PetscCall(PSORMGCycle(pc, bu, yu, PETSC_TRUE)); /* from y = 0 */
    PetscCall(PSORMGEndSolve(pc));
    PetscCall(VecRestoreAsTypeOf(y, PETSC_TRUE, &yu));
    PetscCall(VecRestoreAsTypeOf(b, PETSC_FALSE, &bu));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_PSORMG(PC pc)
{
  PC_PSORMG *mg = (PC_PSORMG *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCReset_PSORMG(pc));
  PetscCall(VecDestroy(&mg->xl));
  PetscCall(VecDestroy(&mg->xu));
  if (mg->monitor) PetscCall(PetscViewerAndFormatDestroy(&mg->monitor)); /* PETSc 3.18's destroy does not accept NULL */
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetVariableBounds_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetVariableBounds_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetObstacleRestriction_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetObstacleRestriction_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetOmega_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetOmega_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetLevels_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetLevels_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetCoarseSize_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetCoarseSize_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetCycleType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetCycleType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetSmooths_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetSmooths_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetCoarseSolve_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetCoarseSolve_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetEdgeInterpolation_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetEdgeInterpolation_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetProjectCorrection_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetProjectCorrection_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetDeviceSetup_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetDeviceSetup_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetHybridSmoother_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetHybridSmoother_C", NULL));
  PetscCall(TypeDataDestroy<PC_PSORMG>(&pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_PSORMG(PC pc, PETSCKP_OPTIONS_ARG)
{
  PC_PSORMG                  *mg = (PC_PSORMG *)pc->data;
  PetscInt                    levels = mg->levels_max, csize = mg->coarse_size, pre = mg->nu1, post = mg->nu2, cmax = mg->coarse_max_it, cycle = 0;
  PetscReal                   omega = mg->omega, comega = mg->coarse_omega, crtol = mg->coarse_rtol;
  PCPSORMGObstacleRestriction rtype = mg->restriction;
  PCPSORMGEdgeInterpolation   edge  = mg->edge;
  PetscBool                   project = mg->project, dev = mg->device_setup, hyb = mg->hybrid, flg, flg2, flg3;

  PetscFunctionBegin;
  for (PetscInt c = 0; c < 2; c++)
    if (PSORMGCycleTypeValues[c] == mg->cycle_type) cycle = c;
  PetscOptionsHeadBegin(PetscOptionsObject, "PSORMG options (projected SOR multigrid for complementarity problems)");
  PetscCall(PetscOptionsInt("-pc_psormg_levels", "Maximum number of levels (0 = coarsen down to -pc_psormg_coarse_size)", "PCPSORMGSetLevels", levels, &levels, &flg));
  if (flg) PetscCall(PCPSORMGSetLevels(pc, levels));
  PetscCall(PetscOptionsInt("-pc_psormg_coarse_size", "Stop coarsening at this many unknowns (>= 1)", "PCPSORMGSetCoarseSize", csize, &csize, &flg));
  if (flg) PetscCall(PCPSORMGSetCoarseSize(pc, csize));
  PetscCall(PetscOptionsEList("-pc_psormg_cycle_type", "Multigrid cycle", "PCPSORMGSetCycleType", PSORMGCycleTypes, 2, PSORMGCycleTypes[cycle], &cycle, &flg));
  if (flg) PetscCall(PCPSORMGSetCycleType(pc, PSORMGCycleTypeValues[cycle]));
  PetscCall(PetscOptionsInt("-pc_psormg_pre_smooths", "Projected SOR sweeps before the coarse correction", "PCPSORMGSetSmooths", pre, &pre, &flg));
  PetscCall(PetscOptionsInt("-pc_psormg_post_smooths", "Projected SOR sweeps after the coarse correction", "PCPSORMGSetSmooths", post, &post, &flg2));
  if (flg || flg2) PetscCall(PCPSORMGSetSmooths(pc, pre, post));
  PetscCall(PetscOptionsReal("-pc_psormg_omega", "Relaxation factor of the smoothing sweeps, in (0, 2)", "PCPSORMGSetOmega", omega, &omega, &flg));
  if (flg) PetscCall(PCPSORMGSetOmega(pc, omega));
  PetscCall(PetscOptionsReal("-pc_psormg_coarse_omega", "Relaxation factor of the coarsest-grid projected SOR, in (0, 2)", "PCPSORMGSetCoarseSolve", comega, &comega, &flg));
  PetscCall(PetscOptionsInt("-pc_psormg_coarse_max_it", "Coarsest-grid projected SOR sweeps at most (>= 1)", "PCPSORMGSetCoarseSolve", cmax, &cmax, &flg2));
  PetscCall(PetscOptionsReal("-pc_psormg_coarse_rtol", "Coarsest-grid relative projected residual, in (0, 1)", "PCPSORMGSetCoarseSolve", crtol, &crtol, &flg3));
  if (flg || flg2 || flg3) PetscCall(PCPSORMGSetCoarseSolve(pc, comega, cmax, crtol));
  PetscCall(PetscOptionsEnum("-pc_psormg_obstacle_restriction", "Restriction of the bounds to the coarse grids: truncated (truncated monotone multigrid), monotone or linear", "PCPSORMGSetObstacleRestriction", PCPSORMGObstacleRestrictions, (PetscEnum)rtype, (PetscEnum *)&rtype, &flg));
  if (flg) PetscCall(PCPSORMGSetObstacleRestriction(pc, rtype));
  PetscCall(PetscOptionsEnum("-pc_psormg_edge_interpolation", "Interpolation of the last fine point past the last coarse point of even grid lines: auto (from the operator's edge rows), zero (half the coarse value, Dirichlet) or constant (Neumann)", "PCPSORMGSetEdgeInterpolation", PCPSORMGEdgeInterpolations, (PetscEnum)edge, (PetscEnum *)&edge, &flg));
  if (flg) PetscCall(PCPSORMGSetEdgeInterpolation(pc, edge));
  PetscCall(PetscOptionsBool("-pc_psormg_project_correction", "Project onto the bounds after adding the coarse correction", "PCPSORMGSetProjectCorrection", project, &project, &flg));
  if (flg) PetscCall(PCPSORMGSetProjectCorrection(pc, project));
  PetscCall(PetscOptionsBool("-pc_psormg_device_setup", "Form the interpolation, its transpose and the Galerkin coarse operators on the device (on every rank under MPI, with the ghost rows exchanged); false: on the host with MatPtAP", "PCPSORMGSetDeviceSetup", dev, &dev, &flg));
  if (flg) PetscCall(PCPSORMGSetDeviceSetup(pc, dev));
  PetscCall(PetscOptionsBool("-pc_psormg_hybrid_smoother", "Under MPI: one ghost exchange per projected SOR sweep (Jacobi between processes) instead of one per colour (then the result depends on the number of processes)", "PCPSORMGSetHybridSmoother", hyb, &hyb, &flg));
  if (flg) PetscCall(PCPSORMGSetHybridSmoother(pc, hyb));
  PetscCall(MonitorSetFromOptions(PetscOptionsObject, "-pc_psormg_monitor", "Print per cycle the projected residual, complementarity, infeasibility, energy and active-set size", "PCPSORMG", &mg->monitor));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_PSORMG(PC pc, PetscViewer viewer)
{
  PC_PSORMG  *mg = (PC_PSORMG *)pc->data;
  PetscBool   iascii;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  PetscCall(PetscViewerASCIIPrintf(viewer, "projected SOR multigrid: %s-cycle, %" PetscInt_FMT " pre / %" PetscInt_FMT " post sweeps, omega %g\n", mg->cycle_type == PC_MG_CYCLE_V ? "V" : (mg->cycle_type == PC_MG_CYCLE_W ? "W" : "unknown"), mg->nu1, mg->nu2, (double)mg->omega));
  PetscCall(PetscViewerASCIIPrintf(viewer, "levels: max %" PetscInt_FMT " (0 = automatic), coarse size %" PetscInt_FMT "\n", mg->levels_max, mg->coarse_size));
  PetscCall(PetscViewerASCIIPrintf(viewer, "coarsest grid: projected SOR, omega %g, at most %" PetscInt_FMT " sweeps, rtol %g%s\n", (double)mg->coarse_omega, mg->coarse_max_it, (double)mg->coarse_rtol,
                                   size > 1 && !mg->H.levels.empty() && mg->H.levels.back().Ad && mg->H.levels.back().Ad->M <= PSORMG_COARSE_FUSED_MAX ? "; gathered to every process, one kernel there" : ""));
  PetscCall(PetscViewerASCIIPrintf(viewer, "obstacle restriction: %s, projected correction: %s, monitor: %s\n", PSORMGEnumName(PCPSORMGObstacleRestrictions, 3, mg->restriction), mg->project ? "yes" : "no", mg->monitor ? "yes" : "no"));
  if (mg->restriction == PC_PSORMG_OBSTACLE_TRUNCATED) PetscCall(PetscViewerASCIIPrintf(viewer, "truncated monotone multigrid: coarse functions truncated at the active points, Galerkin coarse operators of the truncated interpolation recomputed where the active set moved, from the cycle whose active set moved by at most %g of its size\n", (double)PSORMG_TRUNCATION_SETTLED));
  PetscCall(PetscViewerASCIIPrintf(viewer, "variable bounds: lower %s, upper %s\n", mg->xl ? "set" : "none", mg->xu ? "set" : "none"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "far-edge interpolation of even grid lines: %s\n", PSORMGEnumName(PCPSORMGEdgeInterpolations, 3, mg->edge)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "device setup (P, R = P^T, R A P formed on the device, on every rank under MPI): %s\n", mg->device_setup ? "requested" : "off"));
  {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
    if (size > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "projected SOR under MPI: %s\n", mg->hybrid && mg->omega <= 1 ? "hybrid smoothing, one ghost exchange per sweep (Jacobi between processes); the coarsest grid per colour" : mg->hybrid ? "one ghost exchange per colour (the sweep of one process; hybrid sweeps are taken only for omega <= 1)" : "one ghost exchange per colour (the sweep of one process)"));
  }
  if (!mg->grids.empty()) {
    MatType type;
    PetscCall(MatGetType(mg->H.levels[0].A, &type));
    if (mg->H.device) PetscCall(PetscViewerASCIIPrintf(viewer, "setup on the device: P built by a kernel, R = P^T by a device transpose, coarse operators R A P by device row-wise sparse products (petsckp CSR, %s memory)%s; operator of type %s\n", kDeviceExec ? "device" : "host", size > 1 ? ", ghost rows of P and off-process rows of R A P exchanged between the ranks" : "", type));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "setup on the host: coarse operators R A P by MatPtAP on host AIJ copies, converted to type %s, copied to the device as CSR (%s memory)\n", type, kDeviceExec ? "device" : "host"));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    for (size_t l = 0; l < mg->grids.size(); l++) {
      const PSORMGGrid &L = mg->grids[l];
      const MGLevel    &ML = mg->H.levels[l];
      PetscInt          nnz;
      PetscCall(PetscKPDeviceMatGetInfo(ML.Ad, NULL, &nnz, NULL, NULL));
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nnz, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)pc)));
      PetscCall(PetscViewerASCIIPrintf(viewer, "level %" PetscInt_FMT ": grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", nonzeros %" PetscInt_FMT ", %s colouring, %" PetscInt_FMT " colours\n", (PetscInt)l, L.M[0], L.M[1], L.M[2], nnz, L.parity ? "parity" : "red-black", (PetscInt)L.colourids.size()));
      PetscCall(PetscViewerASCIIPushTab(viewer));
      for (int d = 0; d < 3; d++) {
        if (!ML.P && !ML.Pd) continue;
        if (psormg::CoarseSize1D(L.M[d]) == L.M[d] || L.M[d] % 2) continue;
        if (L.edgeratio[d] >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "direction %d, last point past the last coarse one: %s (edge row sum / coupling inwards %g)\n", d, L.edgeconst[d] ? "constant extrapolation" : "half the coarse value", (double)L.edgeratio[d]));
        else PetscCall(PetscViewerASCIIPrintf(viewer, "direction %d, last point past the last coarse one: %s\n", d, L.edgeconst[d] ? "constant extrapolation" : "half the coarse value"));
      }
      PetscCall(PetscViewerASCIIPopTab(viewer));
    }
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCPSORMG - red-black projected SOR multigrid (Klement and Oberhuber) for the linear complementarity problem
   A x >= b, xl <= x <= xu with complementarity, A symmetric positive definite (an M-matrix in practice), on a DMDA.

   Options Database Keys:
+  -pc_psormg_levels <0>                              - maximum number of levels (0: coarsen down to the coarse size), `PCPSORMGSetLevels()`
.  -pc_psormg_coarse_size <64>                        - stop coarsening at this many unknowns, `PCPSORMGSetCoarseSize()`
.  -pc_psormg_cycle_type <v,w>                        - V or W cycle, `PCPSORMGSetCycleType()`
.  -pc_psormg_pre_smooths <2>                         - projected SOR sweeps (all colours) before the coarse correction, 0 to 100, `PCPSORMGSetSmooths()`
.  -pc_psormg_post_smooths <2>                        - projected SOR sweeps after it (colours in reverse order), 0 to 100, `PCPSORMGSetSmooths()`
.  -pc_psormg_omega <1>                               - relaxation factor of the smoother, in (0, 2), `PCPSORMGSetOmega()`
.  -pc_psormg_coarse_omega <1.5>                      - relaxation factor of the coarsest-grid projected SOR, in (0, 2), `PCPSORMGSetCoarseSolve()`
.  -pc_psormg_coarse_max_it <500>                     - coarsest-grid sweeps at most, 1 to 1e6, `PCPSORMGSetCoarseSolve()`
.  -pc_psormg_coarse_rtol <1e-10>                     - coarsest-grid relative projected residual, in (0, 1), `PCPSORMGSetCoarseSolve()`
.  -pc_psormg_edge_interpolation <auto,zero,constant> - last point of an even grid line: from the operator's edge rows, half the last coarse value (Dirichlet), or that value (Neumann), `PCPSORMGSetEdgeInterpolation()`
.  -pc_psormg_obstacle_restriction <monotone,truncated,linear> - how the bounds reach the coarse grids, `PCPSORMGSetObstacleRestriction()`
.  -pc_psormg_project_correction <true>              - project onto the bounds after x += P e, `PCPSORMGSetProjectCorrection()`
.  -pc_psormg_device_setup <true>                     - form P, R = P^T and the coarse operators R A P on the device (every rank under MPI), or with `MatPtAP()` on the host, `PCPSORMGSetDeviceSetup()`
.  -pc_psormg_hybrid_smoother <false>                 - under MPI, one ghost exchange per sweep instead of one per colour, `PCPSORMGSetHybridSmoother()`
-  -pc_psormg_monitor [ascii[:file[:format]]]         - print per cycle the projected residual, complementarity, infeasibility, energy and active-set size

   Level: intermediate

   Notes:
   The solver is the projected multigrid cycle of the paper in correction form: pre-smoothing by projected SOR,
   the residual r = b - A x and the gaps gl = xl - x, gu = xu - x are restricted, the coarse LCP for the correction
   e (A_c e >= R r, gl_c <= e <= gu_c) is solved recursively (projected SOR to a tolerance on the coarsest grid),
   x += P e is projected onto the bounds, and post-smoothing follows. Without bounds the cycle is linear
   multigrid with red-black Gauss-Seidel (omega 1) smoothing. How the bounds reach the coarse grids
   (`PCPSORMGSetObstacleRestriction()`):
+  truncated - Kornhuber's truncated monotone multigrid: the coarse functions are truncated at the active
               fine points (x_i on a bound after the pre-smoothing), i.e. the rows of P and the columns of R = P^T
               there are zeroed, so the coarse correction neither sees the residual of an active point nor moves it,
               the coarse operators are the Galerkin products R^t A P^t of the truncated transfers, and the coarse
               bounds are the max / min of the gaps over the truncated supports. Every iterate is feasible and the
               energy 1/2 x^T A x - b^T x decreases, as with monotone; but an active point no longer pins every coarse
               function whose support holds it, so the cycles per solve stay flat as the grid is refined
               (segmentation 256^2 / 512^2 / 1024^2: 26 / 25 / 32 cycles per step, against 26 / 44 / 62 with
               monotone; hemisphere 257^2 / 513^2 / 1025^2 to rtol 1e-8: 8 / 9 / 9 cycles against 20 / 22 / 20).
.  monotone  - max / min of the gaps over the whole support of P (Mandel; Kornhuber's standard monotone multigrid):
               feasible and energy-decreasing, but conservative next to the active set: the coarse correction of a
               function whose support holds one active point may not move towards that bound at all.
-  linear    - the paper's linear restriction (averaging, no feasibility guarantee): the cycle is not monotone, and
               the projected residual can stall (on the hemisphere at 17^2 it stops at 0.24 from the tenth cycle on),
               so the solve then ends with KSP_DIVERGED_ITS; kept for the paper's comparisons.

   Why this variant of truncation: the cheaper one, which masks the residual and the correction at the active points
   but keeps the coarse operators of the untruncated P, solves a coarse problem whose energy is not that of the
   fine correction (the truncated coarse functions have other stiffness than the untruncated ones); it made the
   energy rise and the projected residual stall on the hemisphere. The Galerkin operators of the truncated
   interpolation (Kornhuber 1994, Graeser and Kornhuber 2009) make the coarse problem the exact restriction of the
   fine energy to the truncated coarse space, which is what the monotone convergence argument needs. Their cost is
   kept small: the truncation keeps every pattern (the zeroed entries stay stored), so that on the device only the
   rows of A P and R A P next to points whose status changed are recomputed (none once the active set is fixed),
   on one process by two kernels per level that find the changed rows themselves, with no host synchronisation
   beyond the one read per cycle of the moves of the active set; under MPI every product is recomputed when the
   active set changes, which costs about what the saved cycles gain there. A coarse function
   truncated away entirely leaves a zero row, which the sweeps leave alone. The truncated cycle starts once the
   active set has settled (moved by at most 10% of its size in a cycle; the first cycles are monotone ones, which
   release the excess of a poor first iterate at once, where truncation could release it only through the
   smoother); the active set is kept between solves, so a time step starts truncated.

   The grids come from the `DMDA` given to the `KSP` (`KSPSetDM()`) or the `PC` (`PCSetDM()`), in 1, 2 or 3
   dimensions and of any size: a line of M > 2 points is coarsened to (M + 1)/2 points (coarse point I on fine
   point 2I), P is tensor-product linear interpolation, R = P^T, and the coarse operators are the Galerkin
   products R A P. With `-pc_psormg_device_setup true` (the default) the whole setup runs on the device, on one
   process or on each rank under MPI: the fine operator is copied once to petsckp's device CSR, this rank's rows of
   P are made by a kernel, R by a device CSR transpose, and R A P by two row-wise sparse products (symbolic then
   numeric; a `SAME_NONZERO_PATTERN` update reruns the numeric phases only); the coarse levels are device matrices
   without a PETSc `Mat`. Under MPI the products follow PETSc's `MatPtAP()` for MPIAIJ matrices: the rows of P of
   the ghost points of A are fetched from their owners, each rank forms P^T A P of its rows of P, and the rows that
   belong to coarse points of other ranks are sent to their owners and added there (a `PetscSF`, through the host;
   only O(surface) values travel). With `-pc_psormg_device_setup false` P is assembled on the host and the products
   are PETSc's `MatPtAP()` on
   host AIJ copies of A and P (PETSc's cuSPARSE `MatPtAP()` returned zero operators from the third grid down),
   converted to the matrix type of the operator, then copied to the device CSR. Both paths give the same
   operators up to rounding, so that results do not depend on the number of processes. `-pc_view` says which
   path was taken. Each level is coloured red-black when
   its stencil is a 3/5/7-point star and with 2^dim parity colours when it is a 9/27-point box (the Galerkin coarse
   operators); the colours are swept in turn, each after a ghost exchange, so that the result does not depend on
   the number of MPI processes (`-pc_psormg_hybrid_smoother`: one exchange per sweep, the other processes' values
   held for all its colours, about half the exchanges of a cycle; the cycles may then differ by one or two with the
   number of processes). A coarsest grid of at most 4096 points is gathered to every process under MPI
   (operator, right-hand side, iterate and bounds, the operator's values at every coarsest solve) and iterated there
   in one kernel with the same colours: the distributed iteration would exchange ghosts after every colour of every
   one of its sweeps, most of the exchanges of a cycle.

   On an even grid line the last fine point lies past the last coarse point. Where the operator has an eliminated
   (or decoupled) Dirichlet boundary there, its edge rows have clearly positive row sums and the point takes half
   the last coarse value (linear interpolation to zero beyond the edge); where the boundary is Neumann/natural
   (row sums about zero against the couplings inwards, e.g. the segmentation operator), it takes the last coarse
   value, so that P reproduces constants up to every edge and even grids need no more cycles than odd ones. The
   choice is made per level and direction from the rows of that level's operator (`-pc_psormg_edge_interpolation
   auto`, shown by `-pc_view`) or forced with `zero` / `constant`. P stays >= 0 with row sums <= 1, as the
   monotone obstacle restriction needs.

   The operator must have finite entries and a positive diagonal (`PCSetUp()` raises an error naming the first row
   that has not); the bounds must not be NaN, nor cross (an error naming the entry at the start of the solve). A
   right-hand side or initial guess with NaN or Inf entries stops the solve at once with `KSP_DIVERGED_NANORINF`.

   Bounds are given with `PCPSORMGSetVariableBounds()` (NULL or entries of +-`PETSC_INFINITY` mean unbounded).
   The projected iteration runs through `PCApplyRichardson()`: use `-ksp_type richardson -pc_type psormg`; the
   KSP tolerances (`-ksp_rtol`, `-ksp_atol`, `-ksp_max_it`) apply to the Euclidean norm of the projected residual
   (r_i at free points, max(r_i, 0) at the lower bound, min(r_i, 0) at the upper bound), relative to that of the
   (projected) initial guess; `-ksp_max_it 0` runs no cycle and returns the initial guess with `KSP_DIVERGED_ITS`,
   as PETSc's KSPs do. PETSc uses `PCApplyRichardson()` only without KSP monitors, with the default
   convergence test, Richardson scale 1 and no null space; otherwise it would call `PCApply()`, which raises an
   error when bounds are set. Without bounds `PCApply()` is one symmetric cycle (with equal pre and post sweeps),
   a preconditioner for `KSPCG`.

   b, x and the bounds should have the type of the operator's vectors (`MatCreateVecs()`, or a `DMDA` whose types
   come from `-dm_vec_type` and `-dm_mat_type`). When they have another (a host `DMDA`'s vectors with
   `-mat_type aijkokkos` in the options: `DMCreateMatrix()` applies that option, `DMCreateGlobalVector()` does not),
   the iteration runs on copies in the operator's type, since PETSc's vector operations between two types are not
   valid; PETSc's own KSPs multiply such vectors with the operator without a check and may fail there.

   References:
   V. Klement and T. Oberhuber, Multigrid method for linear complementarity problem and its implementation on
   GPU, 2014. R. Kornhuber, Monotone multigrid methods for elliptic variational inequalities I, Numer. Math. 69
   (1994), for the monotone constraint restriction and the truncated coarse functions. C. Graeser and R. Kornhuber,
   Multigrid methods for obstacle problems, J. Comput. Math. 27 (2009), the survey of monotone and truncated
   multigrid.

.seealso: `PCPSORMGSetVariableBounds()`, `PCPSORMGSetObstacleRestriction()`, `PCPSORMGSetOmega()`, `PCPSORMGSetLevels()`,
          `PCPSORMGSetCoarseSize()`, `PCPSORMGSetCycleType()`, `PCPSORMGSetSmooths()`, `PCPSORMGSetCoarseSolve()`,
          `PCPSORMGSetEdgeInterpolation()`, `PCPSORMGSetProjectCorrection()`, `PCPSORMGSetDeviceSetup()`,
          `PCPSORMGSetHybridSmoother()`, `KSPRICHARDSON`,
          `SNESVINEWTONRSLS`, `TAOGPCG`
M*/
PETSC_INTERN PetscErrorCode PCCreate_PSORMG(PC pc)
{
  PC_PSORMG *mg;

  PetscFunctionBegin;
  PetscCall(KokkosInitializeOnce());
  PetscCall(TypeDataCreate(&pc->data, &mg));

  pc->ops->setup           = PCSetUp_PSORMG;
  pc->ops->apply           = PCApply_PSORMG;
  pc->ops->applyrichardson = PCApplyRichardson_PSORMG;
  pc->ops->presolve        = PCPreSolve_PSORMG;
  pc->ops->postsolve       = PCPostSolve_PSORMG;
  pc->ops->reset           = PCReset_PSORMG;
  pc->ops->destroy         = PCDestroy_PSORMG;
  pc->ops->setfromoptions  = PCSetFromOptions_PSORMG;
  pc->ops->view            = PCView_PSORMG;

  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetVariableBounds_C", PCPSORMGSetVariableBounds_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetVariableBounds_C", PCPSORMGGetVariableBounds_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetObstacleRestriction_C", PCPSORMGSetObstacleRestriction_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetObstacleRestriction_C", PCPSORMGGetObstacleRestriction_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetOmega_C", PCPSORMGSetOmega_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetOmega_C", PCPSORMGGetOmega_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetLevels_C", PCPSORMGSetLevels_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetLevels_C", PCPSORMGGetLevels_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetCoarseSize_C", PCPSORMGSetCoarseSize_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetCoarseSize_C", PCPSORMGGetCoarseSize_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetCycleType_C", PCPSORMGSetCycleType_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetCycleType_C", PCPSORMGGetCycleType_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetSmooths_C", PCPSORMGSetSmooths_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetSmooths_C", PCPSORMGGetSmooths_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetCoarseSolve_C", PCPSORMGSetCoarseSolve_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetCoarseSolve_C", PCPSORMGGetCoarseSolve_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetEdgeInterpolation_C", PCPSORMGSetEdgeInterpolation_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetEdgeInterpolation_C", PCPSORMGGetEdgeInterpolation_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetProjectCorrection_C", PCPSORMGSetProjectCorrection_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetProjectCorrection_C", PCPSORMGGetProjectCorrection_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetDeviceSetup_C", PCPSORMGSetDeviceSetup_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetDeviceSetup_C", PCPSORMGGetDeviceSetup_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGSetHybridSmoother_C", PCPSORMGSetHybridSmoother_PSORMG));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPSORMGGetHybridSmoother_C", PCPSORMGGetHybridSmoother_PSORMG));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGSetVariableBounds - sets the bounds xl <= x <= xu of the complementarity problem solved by `PCPSORMG`

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
. xl - lower bounds (NULL: none; entries `PETSC_NINFINITY` are unbounded), a vector of the operator's layout (may be a GPU vector)
- xu - upper bounds (NULL: none; entries `PETSC_INFINITY` are unbounded)

  Level: intermediate

  Notes:
  The bounds are referenced, not copied: changing their values between solves changes the problem. Every solve
  checks xl <= xu and projects an infeasible initial guess. With bounds the PC must be used through
  `PCApplyRichardson()` (`-ksp_type richardson`); `PCApply()` then raises an error.

.seealso: `PCPSORMG`, `PCPSORMGGetVariableBounds()`, `SNESVISetVariableBounds()`, `TaoSetVariableBounds()`
@*/
PetscErrorCode PCPSORMGSetVariableBounds(PC pc, Vec xl, Vec xu)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  if (xl) PetscValidHeaderSpecific(xl, VEC_CLASSID, 2);
  if (xu) PetscValidHeaderSpecific(xu, VEC_CLASSID, 3);
  PetscTryMethod(pc, "PCPSORMGSetVariableBounds_C", (PC, Vec, Vec), (pc, xl, xu));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGGetVariableBounds - gets the bounds set with `PCPSORMGSetVariableBounds()`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameters:
+ xl - lower bounds or NULL
- xu - upper bounds or NULL

  Level: intermediate

.seealso: `PCPSORMG`, `PCPSORMGSetVariableBounds()`
@*/
PetscErrorCode PCPSORMGGetVariableBounds(PC pc, Vec *xl, Vec *xu)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCPSORMGGetVariableBounds_C", (PC, Vec *, Vec *), (pc, xl, xu));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGSetObstacleRestriction - how `PCPSORMG` restricts the bounds to the coarse grids

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- type - `PC_PSORMG_OBSTACLE_MONOTONE` (default), `PC_PSORMG_OBSTACLE_TRUNCATED` or `PC_PSORMG_OBSTACLE_LINEAR`

  Options Database Key:
. -pc_psormg_obstacle_restriction <monotone,truncated,linear> - the restriction

  Level: intermediate

  Notes:
  `PC_PSORMG_OBSTACLE_TRUNCATED` is Kornhuber's truncated monotone multigrid: the coarse functions are truncated at
  the points on a bound (no residual restricted from them, no correction made there, the coarse operators the
  Galerkin products of the truncated interpolation), and the coarse bounds are the monotone ones over the truncated
  supports; it starts once the active set has settled (the first cycles of a solve from a poor iterate are monotone
  ones). It is not the default: on the GPU at 4097^2 (hemisphere, rtol 1e-8) it stopped after 11 cycles with a
  maximum error of 2.5e-6 against monotone's 5.7e-7 after 18 cycles, so the residual test of the truncated cycles is
  looser than it should be. `PC_PSORMG_OBSTACLE_MONOTONE` restricts the bounds by max / min over the whole support of the
  interpolation; `PC_PSORMG_OBSTACLE_LINEAR` averages them (the paper's choice, no feasibility guarantee). See
  `PCPSORMG` for the comparison of the three.

.seealso: `PCPSORMG`, `PCPSORMGObstacleRestriction`, `PCPSORMGGetObstacleRestriction()`
@*/
PetscErrorCode PCPSORMGSetObstacleRestriction(PC pc, PCPSORMGObstacleRestriction type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscTryMethod(pc, "PCPSORMGSetObstacleRestriction_C", (PC, PCPSORMGObstacleRestriction), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGGetObstacleRestriction - gets how `PCPSORMG` restricts the bounds to the coarse grids

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. type - `PC_PSORMG_OBSTACLE_TRUNCATED`, `PC_PSORMG_OBSTACLE_MONOTONE` or `PC_PSORMG_OBSTACLE_LINEAR`

  Level: intermediate

.seealso: `PCPSORMG`, `PCPSORMGObstacleRestriction`, `PCPSORMGSetObstacleRestriction()`
@*/
PetscErrorCode PCPSORMGGetObstacleRestriction(PC pc, PCPSORMGObstacleRestriction *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(type, 2);
  PetscUseMethod(pc, "PCPSORMGGetObstacleRestriction_C", (PC, PCPSORMGObstacleRestriction *), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGSetOmega - relaxation factor of the projected SOR smoother of `PCPSORMG`

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
- omega - the factor, in (0, 2); default 1 (projected red-black Gauss-Seidel)

  Options Database Key:
. -pc_psormg_omega <omega> - the factor

  Level: intermediate

.seealso: `PCPSORMG`, `PCPSORMGGetOmega()`, `PCPSORMGSetCoarseSolve()`
@*/
PetscErrorCode PCPSORMGSetOmega(PC pc, PetscReal omega)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, omega, 2);
  PetscTryMethod(pc, "PCPSORMGSetOmega_C", (PC, PetscReal), (pc, omega));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGGetOmega - gets the relaxation factor of the projected SOR smoother of `PCPSORMG`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. omega - the factor

  Level: intermediate

.seealso: `PCPSORMG`, `PCPSORMGSetOmega()`
@*/
PetscErrorCode PCPSORMGGetOmega(PC pc, PetscReal *omega)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(omega, 2);
  PetscUseMethod(pc, "PCPSORMGGetOmega_C", (PC, PetscReal *), (pc, omega));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGSetLevels - maximum number of grids of `PCPSORMG`

  Logically Collective

  Input Parameters:
+ pc     - the preconditioner context
- levels - the maximum; 0 (default) coarsens until the coarse size is reached; 1 is projected SOR alone

  Options Database Key:
. -pc_psormg_levels <levels> - the maximum

  Level: intermediate

.seealso: `PCPSORMG`, `PCPSORMGGetLevels()`, `PCPSORMGSetCoarseSize()`
@*/
PetscErrorCode PCPSORMGSetLevels(PC pc, PetscInt levels)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, levels, 2);
  PetscTryMethod(pc, "PCPSORMGSetLevels_C", (PC, PetscInt), (pc, levels));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGGetLevels - number of grids `PCPSORMG` built (0 before `PCSetUp()`)

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. levels - the number of grids

  Level: intermediate

  Note:
  This is the number of grids of the hierarchy, at most the maximum set with `PCPSORMGSetLevels()`.

.seealso: `PCPSORMG`, `PCPSORMGSetLevels()`
@*/
PetscErrorCode PCPSORMGGetLevels(PC pc, PetscInt *levels)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(levels, 2);
  PetscUseMethod(pc, "PCPSORMGGetLevels_C", (PC, PetscInt *), (pc, levels));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGSetCoarseSize - number of unknowns at which `PCPSORMG` stops coarsening

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- size - the number of unknowns, >= 1; default 64

  Options Database Key:
. -pc_psormg_coarse_size <size> - the number of unknowns

  Level: intermediate

  Note:
  A grid is coarsened while it has more than `size` unknowns (and more than 2 points in some direction), unless the
  maximum number of levels of `PCPSORMGSetLevels()` is reached. The coarsest grid is solved by projected SOR to the
  tolerance of `PCPSORMGSetCoarseSolve()`.

.seealso: `PCPSORMG`, `PCPSORMGGetCoarseSize()`, `PCPSORMGSetLevels()`, `PCPSORMGSetCoarseSolve()`
@*/
PetscErrorCode PCPSORMGSetCoarseSize(PC pc, PetscInt size)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, size, 2);
  PetscTryMethod(pc, "PCPSORMGSetCoarseSize_C", (PC, PetscInt), (pc, size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGGetCoarseSize - gets the number of unknowns at which `PCPSORMG` stops coarsening

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. size - the number of unknowns

  Level: intermediate

.seealso: `PCPSORMG`, `PCPSORMGSetCoarseSize()`
@*/
PetscErrorCode PCPSORMGGetCoarseSize(PC pc, PetscInt *size)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(size, 2);
  PetscUseMethod(pc, "PCPSORMGGetCoarseSize_C", (PC, PetscInt *), (pc, size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGSetCycleType - V or W cycle of `PCPSORMG`

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- type - `PC_MG_CYCLE_V` (default) or `PC_MG_CYCLE_W`

  Options Database Key:
. -pc_psormg_cycle_type <v,w> - the cycle

  Level: intermediate

.seealso: `PCPSORMG`, `PCPSORMGGetCycleType()`
@*/
PetscErrorCode PCPSORMGSetCycleType(PC pc, PCMGCycleType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscTryMethod(pc, "PCPSORMGSetCycleType_C", (PC, PCMGCycleType), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGGetCycleType - gets the cycle of `PCPSORMG`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. type - `PC_MG_CYCLE_V` or `PC_MG_CYCLE_W`

  Level: intermediate

.seealso: `PCPSORMG`, `PCPSORMGSetCycleType()`
@*/
PetscErrorCode PCPSORMGGetCycleType(PC pc, PCMGCycleType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(type, 2);
  PetscUseMethod(pc, "PCPSORMGGetCycleType_C", (PC, PCMGCycleType *), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGSetSmooths - numbers of projected SOR sweeps before and after the coarse correction of `PCPSORMG`

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
. pre  - sweeps before (default 2), >= 0
- post - sweeps after (default 2), >= 0; 0 reproduces the paper's cycle; equal numbers make `PCApply()` symmetric

  Options Database Keys:
+ -pc_psormg_pre_smooths <pre>   - sweeps before
- -pc_psormg_post_smooths <post> - sweeps after

  Level: intermediate

  Note:
  At least one sweep in all (pre + post >= 1).

.seealso: `PCPSORMG`, `PCPSORMGGetSmooths()`, `PCPSORMGSetOmega()`
@*/
PetscErrorCode PCPSORMGSetSmooths(PC pc, PetscInt pre, PetscInt post)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, pre, 2);
  PetscValidLogicalCollectiveInt(pc, post, 3);
  PetscTryMethod(pc, "PCPSORMGSetSmooths_C", (PC, PetscInt, PetscInt), (pc, pre, post));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGGetSmooths - gets the numbers of projected SOR sweeps before and after the coarse correction of `PCPSORMG`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameters:
+ pre  - sweeps before (or NULL)
- post - sweeps after (or NULL)

  Level: intermediate

.seealso: `PCPSORMG`, `PCPSORMGSetSmooths()`
@*/
PetscErrorCode PCPSORMGGetSmooths(PC pc, PetscInt *pre, PetscInt *post)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCPSORMGGetSmooths_C", (PC, PetscInt *, PetscInt *), (pc, pre, post));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGSetCoarseSolve - the projected SOR iteration of `PCPSORMG` on the coarsest grid

  Logically Collective

  Input Parameters:
+ pc     - the preconditioner context
. omega  - relaxation factor, in (0, 2); default 1.5
. max_it - most sweeps, >= 1; default 500
- rtol   - relative decrease of the projected residual at which the iteration stops, in (0, 1); default 1e-10

  Options Database Keys:
+ -pc_psormg_coarse_omega <omega>   - relaxation factor
. -pc_psormg_coarse_max_it <max_it> - most sweeps
- -pc_psormg_coarse_rtol <rtol>     - relative decrease of the projected residual

  Level: intermediate

  Note:
  The coarsest grid runs symmetric pairs of sweeps (colours forward, then backward) and measures the projected
  residual every 8 sweeps. On one process a coarsest grid of at most 4096 points runs this whole iteration in one
  device kernel (one team of threads: no launch per colour and sweep, no host read per test), the same sweeps and
  tests; under MPI such a grid is gathered to every process and iterated there in the same way (the same colours
  in the same order, so the same iteration up to rounding); a larger coarsest grid under MPI takes a kernel for
  each colour of each sweep and a reduction for each test. To change one of the three values, get all three with
  `PCPSORMGGetCoarseSolve()` first.

.seealso: `PCPSORMG`, `PCPSORMGGetCoarseSolve()`, `PCPSORMGSetCoarseSize()`, `PCPSORMGSetOmega()`
@*/
PetscErrorCode PCPSORMGSetCoarseSolve(PC pc, PetscReal omega, PetscInt max_it, PetscReal rtol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, omega, 2);
  PetscValidLogicalCollectiveInt(pc, max_it, 3);
  PetscValidLogicalCollectiveReal(pc, rtol, 4);
  PetscTryMethod(pc, "PCPSORMGSetCoarseSolve_C", (PC, PetscReal, PetscInt, PetscReal), (pc, omega, max_it, rtol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGGetCoarseSolve - gets the parameters of the coarsest-grid projected SOR of `PCPSORMG`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameters:
+ omega  - relaxation factor (or NULL)
. max_it - most sweeps (or NULL)
- rtol   - relative decrease of the projected residual (or NULL)

  Level: intermediate

.seealso: `PCPSORMG`, `PCPSORMGSetCoarseSolve()`
@*/
PetscErrorCode PCPSORMGGetCoarseSolve(PC pc, PetscReal *omega, PetscInt *max_it, PetscReal *rtol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCPSORMGGetCoarseSolve_C", (PC, PetscReal *, PetscInt *, PetscReal *), (pc, omega, max_it, rtol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGSetEdgeInterpolation - how the interpolation of `PCPSORMG` treats the last point of an even grid line

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- type - `PC_PSORMG_EDGE_AUTO` (default), `PC_PSORMG_EDGE_ZERO` or `PC_PSORMG_EDGE_CONSTANT`

  Options Database Key:
. -pc_psormg_edge_interpolation <auto,zero,constant> - the rule

  Level: advanced

  Note:
  On a line of an even number of points the last fine point lies past the last coarse point. `PC_PSORMG_EDGE_AUTO`
  chooses, per level and direction, from the rows of the operator at that edge: half the last coarse value where
  the boundary is an eliminated Dirichlet one, the last coarse value where it is Neumann (natural). `-pc_view`
  shows the choice.

.seealso: `PCPSORMG`, `PCPSORMGEdgeInterpolation`, `PCPSORMGGetEdgeInterpolation()`
@*/
PetscErrorCode PCPSORMGSetEdgeInterpolation(PC pc, PCPSORMGEdgeInterpolation type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscTryMethod(pc, "PCPSORMGSetEdgeInterpolation_C", (PC, PCPSORMGEdgeInterpolation), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGGetEdgeInterpolation - gets how the interpolation of `PCPSORMG` treats the last point of an even grid line

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. type - `PC_PSORMG_EDGE_AUTO`, `PC_PSORMG_EDGE_ZERO` or `PC_PSORMG_EDGE_CONSTANT`

  Level: advanced

.seealso: `PCPSORMG`, `PCPSORMGEdgeInterpolation`, `PCPSORMGSetEdgeInterpolation()`
@*/
PetscErrorCode PCPSORMGGetEdgeInterpolation(PC pc, PCPSORMGEdgeInterpolation *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(type, 2);
  PetscUseMethod(pc, "PCPSORMGGetEdgeInterpolation_C", (PC, PCPSORMGEdgeInterpolation *), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGSetProjectCorrection - whether `PCPSORMG` projects the iterate onto the bounds after adding the coarse correction

  Logically Collective

  Input Parameters:
+ pc  - the preconditioner context
- flg - `PETSC_TRUE` (default) to project after x += P e

  Options Database Key:
. -pc_psormg_project_correction <true,false> - project or not

  Level: advanced

  Note:
  With the truncated or the monotone obstacle restriction the corrected iterate is feasible already (up to rounding);
  with the linear restriction it need not be, and the projection keeps it feasible.

.seealso: `PCPSORMG`, `PCPSORMGGetProjectCorrection()`, `PCPSORMGSetObstacleRestriction()`
@*/
PetscErrorCode PCPSORMGSetProjectCorrection(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, flg, 2);
  PetscTryMethod(pc, "PCPSORMGSetProjectCorrection_C", (PC, PetscBool), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGGetProjectCorrection - gets whether `PCPSORMG` projects the iterate onto the bounds after the coarse correction

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. flg - `PETSC_TRUE` when it projects

  Level: advanced

.seealso: `PCPSORMG`, `PCPSORMGSetProjectCorrection()`
@*/
PetscErrorCode PCPSORMGGetProjectCorrection(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(flg, 2);
  PetscUseMethod(pc, "PCPSORMGGetProjectCorrection_C", (PC, PetscBool *), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGSetDeviceSetup - whether `PCPSORMG` forms its grid hierarchy on the device

  Logically Collective

  Input Parameters:
+ pc  - the preconditioner context
- flg - `PETSC_TRUE` (default): P, R = P^T and the coarse operators R A P are formed on the device, on every rank
        under MPI (the ghost rows of P and the off-process rows of R A P exchanged between the ranks);
        `PETSC_FALSE`: on the host with `MatPtAP()`

  Options Database Key:
. -pc_psormg_device_setup <true,false> - device or host setup

  Level: advanced

  Note:
  Both paths give the same operators up to rounding, at any number of processes; `-pc_view` says which was taken.

.seealso: `PCPSORMG`, `PCPSORMGGetDeviceSetup()`
@*/
PetscErrorCode PCPSORMGSetDeviceSetup(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, flg, 2);
  PetscTryMethod(pc, "PCPSORMGSetDeviceSetup_C", (PC, PetscBool), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGGetDeviceSetup - gets whether `PCPSORMG` forms its grid hierarchy on the device (on any number of processes)

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. flg - `PETSC_TRUE` when the device setup is requested

  Level: advanced

.seealso: `PCPSORMG`, `PCPSORMGSetDeviceSetup()`
@*/
PetscErrorCode PCPSORMGGetDeviceSetup(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(flg, 2);
  PetscUseMethod(pc, "PCPSORMGGetDeviceSetup_C", (PC, PetscBool *), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGSetHybridSmoother - sets how the projected SOR sweeps of `PCPSORMG` exchange ghost values under MPI

  Logically Collective

  Input Parameters:
+ pc  - the preconditioner context
- flg - `PETSC_FALSE` (default): one exchange before every colour, the sweep of one process (results independent of
        the number of processes); `PETSC_TRUE`: one exchange per sweep, the other processes' values held for all its
        colours (projected Gauss-Seidel inside each process, Jacobi between processes)

  Options Database Key:
. -pc_psormg_hybrid_smoother <true,false> - hybrid or per-colour exchanges

  Level: advanced

  Note:
  Without GPU-aware MPI every exchange passes through the hosts. On the obstacle problem at 257^2 the hybrid sweeps
  took 994 exchanges instead of 2274 on 2 processes, with 20 cycles (21 on 4 processes against 20) and the same error;
  at 4097^2 on 2 / 4 H100s the solve phase took 0.196 / 0.164 s instead of 0.278 / 0.262 s. On one process both are
  the same. Only the smoothing sweeps with omega <= 1 are hybrid: over-relaxed Jacobi between processes need not
  converge, so an omega > 1 (`-pc_psormg_omega`) keeps the per-colour exchanges, and so does the iteration of a
  distributed coarsest grid (`-pc_psormg_coarse_omega`, 1.5 by default).

.seealso: `PCPSORMG`, `PCPSORMGGetHybridSmoother()`
@*/
PetscErrorCode PCPSORMGSetHybridSmoother(PC pc, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, flg, 2);
  PetscTryMethod(pc, "PCPSORMGSetHybridSmoother_C", (PC, PetscBool), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCPSORMGGetHybridSmoother - gets whether the projected SOR sweeps of `PCPSORMG` exchange ghost values once per sweep

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. flg - `PETSC_TRUE` for one exchange per sweep

  Level: advanced

.seealso: `PCPSORMG`, `PCPSORMGSetHybridSmoother()`
@*/
PetscErrorCode PCPSORMGGetHybridSmoother(PC pc, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscKPAssertPointer(flg, 2);
  PetscUseMethod(pc, "PCPSORMGGetHybridSmoother_C", (PC, PetscBool *), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}
