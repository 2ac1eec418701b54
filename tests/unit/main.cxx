/* GoogleTest main for the unit tests: PETSc and Kokkos are initialised once for all tests. */
#include <gtest/gtest.h>
#include <petsckp.h>
#include "kp_kokkos.hpp"

int main(int argc, char **argv)
{
  ::testing::InitGoogleTest(&argc, argv);
  if (::testing::GTEST_FLAG(list_tests)) return RUN_ALL_TESTS(); /* test discovery: no PETSc, no device */
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  PetscCall(PetscKPRegisterAll());
  PetscCall(petsckp::KokkosInitializeOnce());
  int rc = RUN_ALL_TESTS();
  PetscCall(PetscFinalize());
  return rc;
}
