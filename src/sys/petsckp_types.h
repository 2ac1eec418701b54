/*
   petsckp_types.h - the Create routines of the solver types of libpetsckp; registered in types.cxx.
*/
#pragma once

#include "petsckp_compat.h"
#include <petsc/private/pcimpl.h>
#include <petsc/private/kspimpl.h>
#include <petsc/private/taoimpl.h>

PETSC_INTERN PetscErrorCode PetscKPRegisterTypes_Private(void);

/* Log events of the solver types. All are registered in PetscKPInitializePackage() (register.cxx), and registered
   again after PetscFinalize() and a new PetscInitialize(): no type registers an event of its own. */
PETSC_INTERN PetscLogEvent KSP_DCG_Setup, KSP_DCG_Deflate, KSP_DCG_VecOps;
PETSC_INTERN PetscLogEvent PC_Neumann_Setup, PC_Neumann_Apply, PC_Neumann_DeflSetup, PC_Neumann_Deflate;
PETSC_INTERN PetscLogEvent PC_PSORMG_SetUp, PC_PSORMG_Cycle, PC_PSORMG_Sweep;
PETSC_INTERN PetscLogEvent PC_PSCR_SetUp, PC_PSCR_Apply;
PETSC_INTERN PetscLogEvent PC_UAAMG_SetUp, PC_UAAMG_Aggregate, PC_UAAMG_Galerkin, PC_UAAMG_SmootherSetUp, PC_UAAMG_CoarseFactor, PC_UAAMG_Apply, PC_UAAMG_Smooth;
PETSC_INTERN PetscLogEvent TAOLBFGSB_Cauchy, TAOLBFGSB_Breakpoints, TAOLBFGSB_Subspace, TAOLBFGSB_LineSearch, TAOLBFGSB_Update;

/* neumann, dcg */
PETSC_INTERN PetscErrorCode PCCreate_Neumann(PC);
PETSC_INTERN PetscErrorCode KSPCreate_DCG(KSP);

/* TAO lbfgsb */
PETSC_INTERN PetscErrorCode TaoCreate_LBFGSB(Tao);

/* psormg */
PETSC_INTERN PetscErrorCode PCCreate_PSORMG(PC);

/* pscr */
PETSC_INTERN PetscErrorCode PCCreate_PSCR(PC);
/* uaamg */
PETSC_INTERN PetscErrorCode PCCreate_UAAMG(PC);
