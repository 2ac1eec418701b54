/* A consumer of the installed libpetsckp: built with find_package(PetscKP), pkg-config and petsckp.mk */
#include <petsckp.h>
int main(int argc, char **argv)
{
  char v[256];
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscKPRegisterAll());
  PetscCall(PetscKPGetVersion(v, sizeof(v)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", v));
  PetscCall(PetscFinalize());
  return 0;
}
