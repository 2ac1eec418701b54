/*
   types.cxx - the list of solver types of libpetsckp. Each solver issue adds its registration here, and
   only once the solver works.
*/
#include "petsckp_types.h"

PetscErrorCode PetscKPRegisterTypes_Private(void)
{
  PetscFunctionBegin;
  /* neumann, dcg */
  /* psormg */
  PetscCall(PCRegister("psormg", PCCreate_PSORMG));
  /* lbfgsb */
  /* uaamg */
  /* pscr */
  PetscFunctionReturn(PETSC_SUCCESS);
}
