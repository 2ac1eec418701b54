/*
   petsckp_types.h - the Create routines of the solver types of libpetsckp; registered in types.cxx.
*/
#pragma once

#include "petsckp_compat.h"
#include <petsc/private/pcimpl.h>
#include <petsc/private/kspimpl.h>
#include <petsc/private/taoimpl.h>

PETSC_INTERN PetscErrorCode PetscKPRegisterTypes_Private(void);

/* neumann, dcg */
PETSC_INTERN PetscErrorCode PCCreate_Neumann(PC);
PETSC_INTERN PetscErrorCode KSPCreate_DCG(KSP);

/* TAO lbfgsb (seed 004) */
PETSC_INTERN PetscErrorCode TaoCreate_LBFGSB(Tao);

/* psormg (seed 000) */
PETSC_INTERN PetscErrorCode PCCreate_PSORMG(PC);
