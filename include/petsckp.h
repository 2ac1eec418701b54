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

/* ---- PC neumann and KSP dcg (seed 002) */
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
/*E
  PCNeumannDeflationVariant - the two-level (deflated) form of `PCNEUMANN`, with P = I - A Q, Q = Z E^-1 Z^T

  Values:
+ `PC_NEUMANN_DEFLATION_ADEF2` - P^T M^-1 + Q, with the initial guess corrected in `PCPreSolve()` (one coarse solve per application)
- `PC_NEUMANN_DEFLATION_BNN`   - P^T M^-1 P + Q, symmetric for any initial guess (two coarse solves per application)

  Level: intermediate

.seealso: `PCNEUMANN`, `PCNeumannSetDeflationVariant()`
E*/
typedef enum {
  PC_NEUMANN_DEFLATION_ADEF2,
  PC_NEUMANN_DEFLATION_BNN
} PCNeumannDeflationVariant;
PETSC_EXTERN const char *const PCNeumannDeflationVariants[];
PETSC_EXTERN PetscErrorCode    PCNeumannSetDeflationSpaceType(PC, KSPDCGSpaceType);
PETSC_EXTERN PetscErrorCode    PCNeumannSetDeflationSpace(PC, Mat);
PETSC_EXTERN PetscErrorCode    PCNeumannSetDeflationVariant(PC, PCNeumannDeflationVariant);
PETSC_EXTERN PetscErrorCode    PCNeumannCreateDeflationSpaceMat(PC, Mat *);
/* ---- PC psormg (seed 000) */
#define PCPSORMG "psormg"
/*E
  PCPSORMGObstacleRestriction - how `PCPSORMG` makes the bounds of the coarse-grid correction from the fine gaps

  Values:
+ `PC_PSORMG_OBSTACLE_MONOTONE` - max (lower) / min (upper) of the gaps over the support of the interpolation: every coarse correction is feasible
- `PC_PSORMG_OBSTACLE_LINEAR`   - row-normalised linear restriction of the gaps (Klement and Oberhuber): no feasibility guarantee

  Level: intermediate

.seealso: `PCPSORMG`, `PCPSORMGSetObstacleRestriction()`
E*/
typedef enum {
  PC_PSORMG_OBSTACLE_MONOTONE,
  PC_PSORMG_OBSTACLE_LINEAR
} PCPSORMGObstacleRestriction;
PETSC_EXTERN const char *const PCPSORMGObstacleRestrictions[];
PETSC_EXTERN PetscErrorCode    PCPSORMGSetVariableBounds(PC, Vec, Vec);
PETSC_EXTERN PetscErrorCode    PCPSORMGGetVariableBounds(PC, Vec *, Vec *);
PETSC_EXTERN PetscErrorCode    PCPSORMGSetObstacleRestriction(PC, PCPSORMGObstacleRestriction);
PETSC_EXTERN PetscErrorCode    PCPSORMGSetOmega(PC, PetscReal);
PETSC_EXTERN PetscErrorCode    PCPSORMGSetLevels(PC, PetscInt);
PETSC_EXTERN PetscErrorCode    PCPSORMGGetLevels(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode    PCPSORMGSetCycleType(PC, PCMGCycleType);
PETSC_EXTERN PetscErrorCode    PCPSORMGSetSmooths(PC, PetscInt, PetscInt);
/* ---- TAO lbfgsb (seed 004) */
#define TAOLBFGSB "lbfgsb"
typedef enum {
  TAO_LBFGSB_CAUCHY_EXACT,
  TAO_LBFGSB_CAUCHY_APPROXIMATE
} TaoLBFGSBCauchyType;
PETSC_EXTERN const char *const TaoLBFGSBCauchyTypes[];
PETSC_EXTERN PetscErrorCode    TaoLBFGSBSetMemory(Tao, PetscInt);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBSetCauchyType(Tao, TaoLBFGSBCauchyType);
PETSC_EXTERN PetscErrorCode    TaoLBFGSBSetFactr(Tao, PetscReal);
/* ---- PC uaamg (seed 001) */
/* ---- PC pscr (seed 003) */
