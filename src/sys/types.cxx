/*
   types.cxx - the list of solver types of libpetsckp. A type is registered here only once it
   works.
*/
#include <petsckp.h>
#include "petsckp_types.h"

PetscErrorCode PetscKPRegisterTypes_Private(void)
{
  PetscFunctionBegin;
  /* neumann, dcg */
  PetscCall(PCRegister(PCNEUMANN, PCCreate_Neumann));
  PetscCall(KSPRegister(KSPDCG, KSPCreate_DCG));
  /* psormg */
  PetscCall(PCRegister(PCPSORMG, PCCreate_PSORMG));
  /* lbfgsb */
  PetscCall(TaoRegister(TAOLBFGSB, TaoCreate_LBFGSB));
  /* uaamg */
  PetscCall(PCRegister(PCUAAMG, PCCreate_UAAMG));
  /* pscr */
  PetscCall(PCRegister(PCPSCR, PCCreate_PSCR));
  PetscFunctionReturn(PETSC_SUCCESS);
}
