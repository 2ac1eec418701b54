/*
   petsckp.h - public interface of libpetsckp, GPU solvers for PETSc written with Kokkos.

   Load the library into any PETSc application with -dll_append /path/to/libpetsckp.so, or link it and
   call PetscKPRegisterAll() after PetscInitialize().
*/
#pragma once

#include "petsckp_compat.h"
#include <petscksp.h>
#include <petsctao.h>

#define PETSCKP_VERSION_MAJOR 0
#define PETSCKP_VERSION_MINOR 1
#define PETSCKP_VERSION_PATCH 0

PETSC_EXTERN PetscErrorCode PetscKPRegisterAll(void);
PETSC_EXTERN PetscErrorCode PetscKPInitializePackage(void);
PETSC_EXTERN PetscErrorCode PetscKPFinalizePackage(void);
PETSC_EXTERN PetscErrorCode PetscKPGetVersion(char[], size_t);
PETSC_EXTERN PetscErrorCode PetscKPViewBackend(PetscViewer);

/* Device sparse matrix of the shared layer: a copy of an AIJ matrix in the Kokkos memory space, with SpMV */
typedef struct _p_PetscKPDeviceMat *PetscKPDeviceMat;
typedef enum {
  PETSCKP_FORMAT_CSR,
  PETSCKP_FORMAT_SELL
} PetscKPMatFormat;
PETSC_EXTERN const char *const PetscKPMatFormats[];

PETSC_EXTERN PetscErrorCode PetscKPDeviceMatCreate(Mat, PetscKPMatFormat, PetscKPDeviceMat *);
PETSC_EXTERN PetscErrorCode PetscKPDeviceMatUpdateValues(PetscKPDeviceMat);
PETSC_EXTERN PetscErrorCode PetscKPDeviceMatMult(PetscKPDeviceMat, Vec, Vec);
PETSC_EXTERN PetscErrorCode PetscKPDeviceMatGetInfo(PetscKPDeviceMat, PetscInt *, PetscInt *, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode PetscKPDeviceMatView(PetscKPDeviceMat, PetscViewer);
PETSC_EXTERN PetscErrorCode PetscKPDeviceMatDestroy(PetscKPDeviceMat *);
PETSC_EXTERN PetscErrorCode MatCreateKPShell(Mat, PetscKPMatFormat, Mat *);

/* Pictures of results (examples): grayscale PNG without zlib, a DMDA plane as a PNG */
PETSC_EXTERN PetscErrorCode PetscKPPNGEncodeGray(const unsigned char *, PetscInt, PetscInt, unsigned char **, size_t *);
PETSC_EXTERN PetscErrorCode PetscKPDMDAWriteSlicePNG(DM, Vec, PetscInt, PetscBool, const char[]);

/* ---- PC neumann and KSP dcg (Gupta, van Gijzen, Vuik, VECPAR 2012) */
#define PCNEUMANN "neumann"
#define KSPDCG    "dcg"
PETSC_EXTERN PetscErrorCode PCNeumannSetTerms(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCNeumannGetTerms(PC, PetscInt *);
/*E
  KSPDCGSpaceType - the deflation space Z of `KSPDCG` (and of `PCNEUMANN`'s two-level variant)

  Values:
+ `KSP_DCG_SPACE_NONE`   - no deflation (plain PCG; one-level `PCNEUMANN`)
. `KSP_DCG_SPACE_CHUNKS` - d contiguous index ranges (with a DMDA, of the natural grid ordering: the paper's stripes and planes)
. `KSP_DCG_SPACE_BLOCKS` - bx x by x bz boxes of the solver's DMDA
- `KSP_DCG_SPACE_USER`   - the columns of a matrix given with `KSPDCGSetDeflationSpace()` (or `PCNeumannSetDeflationSpace()`)

  Level: intermediate

.seealso: `KSPDCG`, `KSPDCGSetDeflationSpaceType()`, `KSPDCGSetSubdomains()`, `KSPDCGSetBlocks()`, `PCNeumannSetDeflationSpaceType()`
E*/
typedef enum {
  KSP_DCG_SPACE_NONE,
  KSP_DCG_SPACE_CHUNKS,
  KSP_DCG_SPACE_BLOCKS,
  KSP_DCG_SPACE_USER
} KSPDCGSpaceType;
PETSC_EXTERN const char *const KSPDCGSpaceTypes[];
/*E
  KSPDCGCoarseType - how `KSPDCG` solves with the coarse matrix E = Z^T A Z

  Values:
+ `KSP_DCG_COARSE_CHOLESKY` - E = L L^T; L^-1 is kept on the device, a solve is two triangular matrix-vector products (error grows with sqrt(cond(E)))
- `KSP_DCG_COARSE_INVERSE`  - E^-1 is kept on the device, a solve is one matrix-vector product (error grows with cond(E))

  Level: advanced

.seealso: `KSPDCG`, `KSPDCGSetCoarseType()`
E*/
typedef enum {
  KSP_DCG_COARSE_CHOLESKY,
  KSP_DCG_COARSE_INVERSE
} KSPDCGCoarseType;
PETSC_EXTERN const char *const KSPDCGCoarseTypes[];
PETSC_EXTERN PetscErrorCode KSPDCGSetDeflationSpace(KSP, Mat);
PETSC_EXTERN PetscErrorCode KSPDCGCreateSpaceMat(KSP, Mat *);
PETSC_EXTERN PetscErrorCode KSPDCGSetDeflationSpaceType(KSP, KSPDCGSpaceType);
PETSC_EXTERN PetscErrorCode KSPDCGGetDeflationSpaceType(KSP, KSPDCGSpaceType *);
PETSC_EXTERN PetscErrorCode KSPDCGSetSubdomains(KSP, PetscInt);
PETSC_EXTERN PetscErrorCode KSPDCGGetSubdomains(KSP, PetscInt *);
PETSC_EXTERN PetscErrorCode KSPDCGSetBlocks(KSP, PetscInt, PetscInt, PetscInt);
PETSC_EXTERN PetscErrorCode KSPDCGGetBlocks(KSP, PetscInt *, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode KSPDCGSetCoarseType(KSP, KSPDCGCoarseType);
PETSC_EXTERN PetscErrorCode KSPDCGGetCoarseType(KSP, KSPDCGCoarseType *);
PETSC_EXTERN PetscErrorCode KSPDCGSetCoarsePivotRtol(KSP, PetscReal);
PETSC_EXTERN PetscErrorCode KSPDCGGetCoarsePivotRtol(KSP, PetscReal *);
PETSC_EXTERN PetscErrorCode KSPDCGSetFinalCorrection(KSP, PetscBool);
PETSC_EXTERN PetscErrorCode KSPDCGGetFinalCorrection(KSP, PetscBool *);
PETSC_EXTERN PetscErrorCode KSPDCGSetPipelined(KSP, PetscBool);
PETSC_EXTERN PetscErrorCode KSPDCGGetPipelined(KSP, PetscBool *);
/*E
  PCNeumannDeflationSpaceType - the deflation space of the two-level (deflated) variant of `PCNEUMANN`

  Values:
+ `PC_NEUMANN_DEFLATION_SPACE_NONE`   - no deflation: the one-level preconditioner
. `PC_NEUMANN_DEFLATION_SPACE_CHUNKS` - contiguous ranges of the rows (of the natural grid ordering with a DMDA)
. `PC_NEUMANN_DEFLATION_SPACE_BLOCKS` - boxes of the DMDA of the PC (or of its KSP)
- `PC_NEUMANN_DEFLATION_SPACE_USER`   - the space given with `PCNeumannSetDeflationSpace()`

  Level: intermediate

.seealso: `PCNEUMANN`, `PCNeumannSetDeflationSpaceType()`, `PCNeumannGetDeflationSpaceType()`, `KSPDCG`
E*/
typedef enum {
  PC_NEUMANN_DEFLATION_SPACE_NONE,
  PC_NEUMANN_DEFLATION_SPACE_CHUNKS,
  PC_NEUMANN_DEFLATION_SPACE_BLOCKS,
  PC_NEUMANN_DEFLATION_SPACE_USER
} PCNeumannDeflationSpaceType;
PETSC_EXTERN const char *const PCNeumannDeflationSpaceTypes[];
/*E
  PCNeumannDeflationCoarseType - how the two-level variant of `PCNEUMANN` solves with the coarse matrix E = Z^T A Z

  Values:
+ `PC_NEUMANN_DEFLATION_COARSE_CHOLESKY` - through the Cholesky factor E = L L^T (L^-1 kept: two triangular products per solve)
- `PC_NEUMANN_DEFLATION_COARSE_INVERSE`  - through the explicit inverse (one product per solve)

  Level: intermediate

.seealso: `PCNEUMANN`, `PCNeumannSetDeflationCoarseType()`, `PCNeumannGetDeflationCoarseType()`
E*/
typedef enum {
  PC_NEUMANN_DEFLATION_COARSE_CHOLESKY,
  PC_NEUMANN_DEFLATION_COARSE_INVERSE
} PCNeumannDeflationCoarseType;
PETSC_EXTERN const char *const PCNeumannDeflationCoarseTypes[];
/*E
  PCNeumannDeflationVariant - the two-level (deflated) form of `PCNEUMANN`, with P = I - A Q, Q = Z E^-1 Z^T

  Values:
+ `PC_NEUMANN_DEFLATION_ADEF2` - P^T M^-1 + Q, with the initial guess corrected in `PCPreSolve()` (one coarse solve per application)
- `PC_NEUMANN_DEFLATION_BNN`   - P^T M^-1 P + Q, symmetric for any initial guess (two coarse solves per application)

  Level: intermediate

.seealso: `PCNEUMANN`, `PCNeumannSetDeflationVariant()`, `PCNeumannGetDeflationVariant()`
E*/
typedef enum {
  PC_NEUMANN_DEFLATION_ADEF2,
  PC_NEUMANN_DEFLATION_BNN
} PCNeumannDeflationVariant;
PETSC_EXTERN const char *const PCNeumannDeflationVariants[];
PETSC_EXTERN PetscErrorCode    PCNeumannSetDeflation(PC, PetscBool);
PETSC_EXTERN PetscErrorCode    PCNeumannGetDeflation(PC, PetscBool *);
PETSC_EXTERN PetscErrorCode    PCNeumannSetDeflationSpaceType(PC, PCNeumannDeflationSpaceType);
PETSC_EXTERN PetscErrorCode    PCNeumannGetDeflationSpaceType(PC, PCNeumannDeflationSpaceType *);
PETSC_EXTERN PetscErrorCode    PCNeumannSetDeflationSpace(PC, Mat);
PETSC_EXTERN PetscErrorCode    PCNeumannSetDeflationSubdomains(PC, PetscInt);
PETSC_EXTERN PetscErrorCode    PCNeumannGetDeflationSubdomains(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode    PCNeumannSetDeflationBlocks(PC, PetscInt, PetscInt, PetscInt);
PETSC_EXTERN PetscErrorCode    PCNeumannGetDeflationBlocks(PC, PetscInt *, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode    PCNeumannSetDeflationCoarseType(PC, PCNeumannDeflationCoarseType);
PETSC_EXTERN PetscErrorCode    PCNeumannGetDeflationCoarseType(PC, PCNeumannDeflationCoarseType *);
PETSC_EXTERN PetscErrorCode    PCNeumannSetDeflationCoarsePivotRtol(PC, PetscReal);
PETSC_EXTERN PetscErrorCode    PCNeumannGetDeflationCoarsePivotRtol(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode    PCNeumannSetDeflationVariant(PC, PCNeumannDeflationVariant);
PETSC_EXTERN PetscErrorCode    PCNeumannGetDeflationVariant(PC, PCNeumannDeflationVariant *);
PETSC_EXTERN PetscErrorCode    PCNeumannCreateDeflationSpaceMat(PC, Mat *);
/* ---- PC psormg (Klement, Oberhuber) */
#define PCPSORMG "psormg"
/*E
  PCPSORMGObstacleRestriction - how `PCPSORMG` makes the bounds of the coarse-grid correction from the fine gaps

  Values:
+ `PC_PSORMG_OBSTACLE_MONOTONE`  - max (lower) / min (upper) of the gaps over the support of the interpolation: every coarse correction is feasible
. `PC_PSORMG_OBSTACLE_LINEAR`    - row-normalised linear restriction of the gaps (Klement and Oberhuber): no feasibility guarantee
- `PC_PSORMG_OBSTACLE_TRUNCATED` - truncated monotone multigrid (Kornhuber): the coarse functions are truncated at the fine points on a
                                   bound (no residual restricted from there, no correction made there, Galerkin coarse operators of the
                                   truncated interpolation), and the monotone restriction runs over the truncated supports

  Level: intermediate

.seealso: `PCPSORMG`, `PCPSORMGSetObstacleRestriction()`
E*/
typedef enum {
  PC_PSORMG_OBSTACLE_MONOTONE,
  PC_PSORMG_OBSTACLE_LINEAR,
  PC_PSORMG_OBSTACLE_TRUNCATED
} PCPSORMGObstacleRestriction;
PETSC_EXTERN const char *const PCPSORMGObstacleRestrictions[];
/*E
  PCPSORMGEdgeInterpolation - how the interpolation of `PCPSORMG` gives the last point of an even grid line, which lies
  past the last coarse point

  Values:
+ `PC_PSORMG_EDGE_AUTO`     - chosen per level and direction from the operator's rows at that edge (Dirichlet: zero, Neumann: constant)
. `PC_PSORMG_EDGE_ZERO`     - half the last coarse value: linear interpolation to an eliminated zero Dirichlet value
- `PC_PSORMG_EDGE_CONSTANT` - the last coarse value: constant extrapolation, for Neumann (natural) boundaries

  Level: advanced

.seealso: `PCPSORMG`, `PCPSORMGSetEdgeInterpolation()`
E*/
typedef enum {
  PC_PSORMG_EDGE_AUTO,
  PC_PSORMG_EDGE_ZERO,
  PC_PSORMG_EDGE_CONSTANT
} PCPSORMGEdgeInterpolation;
PETSC_EXTERN const char *const PCPSORMGEdgeInterpolations[];
PETSC_EXTERN PetscErrorCode    PCPSORMGSetVariableBounds(PC, Vec, Vec);
PETSC_EXTERN PetscErrorCode    PCPSORMGGetVariableBounds(PC, Vec *, Vec *);
PETSC_EXTERN PetscErrorCode    PCPSORMGSetObstacleRestriction(PC, PCPSORMGObstacleRestriction);
PETSC_EXTERN PetscErrorCode    PCPSORMGGetObstacleRestriction(PC, PCPSORMGObstacleRestriction *);
PETSC_EXTERN PetscErrorCode    PCPSORMGSetOmega(PC, PetscReal);
PETSC_EXTERN PetscErrorCode    PCPSORMGGetOmega(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode    PCPSORMGSetLevels(PC, PetscInt);
PETSC_EXTERN PetscErrorCode    PCPSORMGGetLevels(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode    PCPSORMGSetCoarseSize(PC, PetscInt);
PETSC_EXTERN PetscErrorCode    PCPSORMGGetCoarseSize(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode    PCPSORMGSetCycleType(PC, PCMGCycleType);
PETSC_EXTERN PetscErrorCode    PCPSORMGGetCycleType(PC, PCMGCycleType *);
PETSC_EXTERN PetscErrorCode    PCPSORMGSetSmooths(PC, PetscInt, PetscInt);
PETSC_EXTERN PetscErrorCode    PCPSORMGGetSmooths(PC, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode    PCPSORMGSetCoarseSolve(PC, PetscReal, PetscInt, PetscReal);
PETSC_EXTERN PetscErrorCode    PCPSORMGGetCoarseSolve(PC, PetscReal *, PetscInt *, PetscReal *);
PETSC_EXTERN PetscErrorCode    PCPSORMGSetEdgeInterpolation(PC, PCPSORMGEdgeInterpolation);
PETSC_EXTERN PetscErrorCode    PCPSORMGGetEdgeInterpolation(PC, PCPSORMGEdgeInterpolation *);
PETSC_EXTERN PetscErrorCode    PCPSORMGSetProjectCorrection(PC, PetscBool);
PETSC_EXTERN PetscErrorCode    PCPSORMGGetProjectCorrection(PC, PetscBool *);
PETSC_EXTERN PetscErrorCode    PCPSORMGSetDeviceSetup(PC, PetscBool);
PETSC_EXTERN PetscErrorCode    PCPSORMGGetDeviceSetup(PC, PetscBool *);
PETSC_EXTERN PetscErrorCode    PCPSORMGSetHybridSmoother(PC, PetscBool);
PETSC_EXTERN PetscErrorCode    PCPSORMGGetHybridSmoother(PC, PetscBool *);
/* ---- TAO lbfgsb (Byrd, Lu, Nocedal, Zhu 1995; Fei, Rong, Wang, Wang 2014) */
#define TAOLBFGSB "lbfgsb"
/*E
  TaoLBFGSBCauchyType - the generalised Cauchy point computed by `TAOLBFGSB`

  Values:
+ `TAO_LBFGSB_CAUCHY_EXACT`       - the first local minimiser of the quadratic model along the projected steepest-descent
                                    path, as L-BFGS-B 3.0 (Byrd, Lu, Nocedal, Zhu 1995)
- `TAO_LBFGSB_CAUCHY_APPROXIMATE` - the minimiser on the first segment of that path only, with the blocking variables on
                                    their bounds (Fei, Rong, Wang, Wang, "Parallel L-BFGS-B algorithm on GPU", 2014)

  Level: intermediate

.seealso: `TAOLBFGSB`, `TaoLBFGSBSetCauchyType()`, `TaoLBFGSBGetCauchyType()`
E*/
typedef enum {
  TAO_LBFGSB_CAUCHY_EXACT,
  TAO_LBFGSB_CAUCHY_APPROXIMATE
} TaoLBFGSBCauchyType;
PETSC_EXTERN const char *const TaoLBFGSBCauchyTypes[];
/*E
  TaoLBFGSBCauchyScanType - where `TAOLBFGSB` scans the breakpoints of the exact Cauchy point past the first one

  Values:
+ `TAO_LBFGSB_CAUCHY_SCAN_DEVICE` - chunks of breakpoints sorted on the device, their updates prefix-summed and every
                                    segment evaluated in parallel
- `TAO_LBFGSB_CAUCHY_SCAN_HOST`   - the reference recurrences, one breakpoint after the other on the host

  Level: advanced

.seealso: `TAOLBFGSB`, `TaoLBFGSBSetCauchyScanType()`, `TaoLBFGSBGetCauchyScanType()`
E*/
typedef enum {
  TAO_LBFGSB_CAUCHY_SCAN_DEVICE,
  TAO_LBFGSB_CAUCHY_SCAN_HOST
} TaoLBFGSBCauchyScanType;
PETSC_EXTERN const char *const TaoLBFGSBCauchyScanTypes[];
/*E
  TaoLBFGSBGNormType - the norm of the projected step P(x - g) - x that `TAOLBFGSB` gives to TAO's convergence test and
  monitors

  Values:
+ `TAO_LBFGSB_GNORM_INF` - the infinity norm (L-BFGS-B's pgtol test)
- `TAO_LBFGSB_GNORM_2`   - the 2-norm (the norm `TAOBLMVM` reports, for comparisons with one tolerance)

  Level: intermediate

.seealso: `TAOLBFGSB`, `TaoLBFGSBSetGNormType()`, `TaoLBFGSBGetGNormType()`
E*/
typedef enum {
  TAO_LBFGSB_GNORM_INF,
  TAO_LBFGSB_GNORM_2
} TaoLBFGSBGNormType;
PETSC_EXTERN const char *const TaoLBFGSBGNormTypes[];
/*E
  TaoLBFGSBGramType - how `TAOLBFGSB` forms the masked Gram blocks of its subspace step

  Values:
+ `TAO_LBFGSB_GRAM_INCREMENTAL` - kept across iterations and corrected for the variables entering or leaving the free
                                  set, as the reference formk
- `TAO_LBFGSB_GRAM_FULL`        - recomputed over all variables every iteration

  Level: advanced

.seealso: `TAOLBFGSB`, `TaoLBFGSBSetGramType()`, `TaoLBFGSBGetGramType()`
E*/
typedef enum {
  TAO_LBFGSB_GRAM_INCREMENTAL,
  TAO_LBFGSB_GRAM_FULL
} TaoLBFGSBGramType;
PETSC_EXTERN const char *const TaoLBFGSBGramTypes[];
PETSC_EXTERN PetscErrorCode    TaoLBFGSBSetMemory(Tao, PetscInt);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBGetMemory(Tao, PetscInt *);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBSetCauchyType(Tao, TaoLBFGSBCauchyType);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBGetCauchyType(Tao, TaoLBFGSBCauchyType *);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBSetFactr(Tao, PetscReal);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBGetFactr(Tao, PetscReal *);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBSetMaxLS(Tao, PetscInt);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBGetMaxLS(Tao, PetscInt *);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBSetLineSearchTolerances(Tao, PetscReal, PetscReal, PetscReal);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBGetLineSearchTolerances(Tao, PetscReal *, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBSetCauchyScanType(Tao, TaoLBFGSBCauchyScanType);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBGetCauchyScanType(Tao, TaoLBFGSBCauchyScanType *);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBSetGNormType(Tao, TaoLBFGSBGNormType);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBGetGNormType(Tao, TaoLBFGSBGNormType *);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBSetGramType(Tao, TaoLBFGSBGramType);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBGetGramType(Tao, TaoLBFGSBGramType *);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBSetChunk(Tao, PetscInt);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBGetChunk(Tao, PetscInt *);
/* ---- PC uaamg (Wang, Hu, Cohen, Xu 2013) */
#define PCUAAMG "uaamg"
/*E
  PCUAAMGCycleType - the multigrid cycle of `PCUAAMG`

  Values:
+ `PC_UAAMG_CYCLE_K` - the nonlinear AMLI-cycle (K-cycle): the coarse correction of every level is a few steps of a generalised
                       conjugate gradient preconditioned by the cycle below (Algorithms 2.1-2.2 of the paper); a nonlinear
                       preconditioner for `KSPFCG`, `KSPGCR` or `KSPFGMRES`
. `PC_UAAMG_CYCLE_V` - the symmetric V-cycle: a linear SPD preconditioner, usable under `KSPCG`
- `PC_UAAMG_CYCLE_W` - the symmetric W-cycle

  Level: intermediate

.seealso: `PCUAAMG`, `PCUAAMGSetCycleType()`
E*/
typedef enum {
  PC_UAAMG_CYCLE_K,
  PC_UAAMG_CYCLE_V,
  PC_UAAMG_CYCLE_W
} PCUAAMGCycleType;
PETSC_EXTERN const char *const PCUAAMGCycleTypes[];
/*E
  PCUAAMGDepthRule - how `PCUAAMG` chooses the depth of the auxiliary quadtree / octree

  Values:
+ `PC_UAAMG_DEPTH_TARGET` - about N / s cells (s = `PCUAAMGSetFineAggregateSize()`, 2^d by default), each split given to the
                            axis whose cells are widest (near-square cells for any bounding box)
- `PC_UAAMG_DEPTH_PAPER`  - L = floor(log N / log 2^d) splits of every axis (Section 3.1 of the paper)

  Level: intermediate

.seealso: `PCUAAMG`, `PCUAAMGSetDepthRule()`
E*/
typedef enum {
  PC_UAAMG_DEPTH_TARGET,
  PC_UAAMG_DEPTH_PAPER
} PCUAAMGDepthRule;
PETSC_EXTERN const char *const PCUAAMGDepthRules[];
/*E
  PCUAAMGSmootherType - the smoother of `PCUAAMG`

  Values:
+ `PC_UAAMG_SMOOTHER_GS`        - coloured Gauss-Seidel: 4 (2D) / 8 (3D) parity colours of the auxiliary cells, forward before and
                                  backward after the coarse correction
. `PC_UAAMG_SMOOTHER_BLOCK_GS`  - on the finest level: coloured block Gauss-Seidel with the aggregates as blocks, exact block solves
                                  for aggregates of at most `-pc_uaamg_block_max` DoFs (the paper's fine-level smoother)
. `PC_UAAMG_SMOOTHER_JACOBI`    - weighted Jacobi
- `PC_UAAMG_SMOOTHER_CHEBYSHEV` - Chebyshev polynomial of the Jacobi-preconditioned operator on [0.1, 1.1] times its estimated
                                  largest eigenvalue, of degree the number of sweeps

  Level: intermediate

.seealso: `PCUAAMG`, `PCUAAMGSetSmoother()`
E*/
typedef enum {
  PC_UAAMG_SMOOTHER_GS,
  PC_UAAMG_SMOOTHER_BLOCK_GS,
  PC_UAAMG_SMOOTHER_JACOBI,
  PC_UAAMG_SMOOTHER_CHEBYSHEV
} PCUAAMGSmootherType;
PETSC_EXTERN const char *const PCUAAMGSmootherTypes[];
/*E
  PCUAAMGCoarseFormat - the storage of the coarse levels of `PCUAAMG`

  Values:
+ `PC_UAAMG_FORMAT_STENCIL` - the cells of a tree level store their (2r+1)^d stencil coefficients, neighbours computed from the cell
                              indices (one process)
- `PC_UAAMG_FORMAT_CSR`     - compressed sparse rows of the nonempty aggregates (any number of processes)

  Level: advanced

.seealso: `PCUAAMG`, `PCUAAMGSetCoarseFormat()`
E*/
typedef enum {
  PC_UAAMG_FORMAT_STENCIL,
  PC_UAAMG_FORMAT_CSR
} PCUAAMGCoarseFormat;
PETSC_EXTERN const char *const PCUAAMGCoarseFormats[];
PETSC_EXTERN PetscErrorCode    PCUAAMGSetCycleType(PC, PCUAAMGCycleType);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetCycleType(PC, PCUAAMGCycleType *);
PETSC_EXTERN PetscErrorCode    PCUAAMGSetKCycle(PC, PetscInt, PetscReal, PetscInt);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetKCycle(PC, PetscInt *, PetscReal *, PetscInt *);
PETSC_EXTERN PetscErrorCode    PCUAAMGSetSmoothingSweeps(PC, PetscInt, PetscInt);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetSmoothingSweeps(PC, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode    PCUAAMGSetSmoother(PC, PCUAAMGSmootherType, PCUAAMGSmootherType);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetSmoother(PC, PCUAAMGSmootherType *, PCUAAMGSmootherType *);
PETSC_EXTERN PetscErrorCode    PCUAAMGSetOmega(PC, PetscReal);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetOmega(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode    PCUAAMGSetBlockMax(PC, PetscInt);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetBlockMax(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode    PCUAAMGSetCoarseSize(PC, PetscInt);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetCoarseSize(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode    PCUAAMGSetReplicateSize(PC, PetscInt);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetReplicateSize(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode    PCUAAMGSetMaxLevels(PC, PetscInt);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetMaxLevels(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode    PCUAAMGSetDepthRule(PC, PCUAAMGDepthRule);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetDepthRule(PC, PCUAAMGDepthRule *);
PETSC_EXTERN PetscErrorCode    PCUAAMGSetFineAggregateSize(PC, PetscReal);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetFineAggregateSize(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode    PCUAAMGSetFineAggregateMax(PC, PetscInt);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetFineAggregateMax(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode    PCUAAMGSetBoundingBox(PC, PetscInt, const PetscReal[]);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetBoundingBox(PC, PetscInt *, PetscReal[]);
PETSC_EXTERN PetscErrorCode    PCUAAMGSetCoarseFormat(PC, PCUAAMGCoarseFormat);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetCoarseFormat(PC, PCUAAMGCoarseFormat *);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetComplexities(PC, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetNumberOfLevels(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode    PCUAAMGSetDeviceSetup(PC, PetscBool);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetDeviceSetup(PC, PetscBool *);
PETSC_EXTERN PetscErrorCode    PCUAAMGSetHybridSmoother(PC, PetscBool);
PETSC_EXTERN PetscErrorCode    PCUAAMGGetHybridSmoother(PC, PetscBool *);
/* ---- PC pscr (partial solution variant of cyclic reduction) */
#define PCPSCR "pscr"
PETSC_EXTERN PetscErrorCode PCPSCRSetFactors(PC, Mat, Mat, Mat, Mat, Mat, Mat);
PETSC_EXTERN PetscErrorCode PCPSCRGetFactors(PC, Mat *, Mat *, Mat *, Mat *, Mat *, Mat *);
PETSC_EXTERN PetscErrorCode PCPSCRSetShift(PC, PetscScalar);
PETSC_EXTERN PetscErrorCode PCPSCRGetShift(PC, PetscScalar *);
PETSC_EXTERN PetscErrorCode PCPSCRSetRadix(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCPSCRGetRadix(PC, PetscInt *);
