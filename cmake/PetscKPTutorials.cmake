# Tests that unmodified PETSc tutorials run with petsckp's solvers loaded at run time (-dll_append).
# petsckp_add_tutorial(<name> <source>): builds the tutorial from its path when it exists (nothing otherwise).
# petsckp_add_tutorial_compare(...): runs it with a reference and a petsckp solver and checks the iteration ratio
# (tests/harness/compare_iterations.cmake).
set(PETSCKP_PETSC_TUTORIALS "" CACHE PATH "PETSc's examples/src directory (default: $PETSC_DIR/share/petsc/examples/src or Debian's copy)")
if(NOT PETSCKP_PETSC_TUTORIALS)
  foreach(cand $ENV{PETSC_DIR}/share/petsc/examples/src ${PETSCKP_PETSC_PC_DIR}/../../share/petsc/examples/src
               /usr/share/petsc/3.18/share/petsc/examples/src)
    if(EXISTS ${cand}/ksp/ksp/tutorials/ex45.c)
      set(PETSCKP_PETSC_TUTORIALS ${cand})
      break()
    endif()
  endforeach()
endif()

function(petsckp_add_tutorial name source)
  if(NOT EXISTS ${source})
    message(STATUS "petsckp: tutorial ${source} not found, its tests are skipped")
    return()
  endif()
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE PkgConfig::PETSC MPI::MPI_C m)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tutorials)
  add_dependencies(${name} petsckp)
endfunction()

# petsckp_add_tutorial_compare(<test> <tutorial> <nranks> <max ratio> "<reference args>" "<petsckp args>")
function(petsckp_add_tutorial_compare test tutorial nranks ratio refargs kpargs)
  if(NOT TARGET ${tutorial})
    return()
  endif()
  add_test(NAME ${test}
           COMMAND ${CMAKE_COMMAND} -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNP=${nranks} -DEXE=$<TARGET_FILE:${tutorial}>
                   -DLIB=$<TARGET_FILE:petsckp> -DRATIO=${ratio} "-DREF=${refargs}" "-DKP=${kpargs}"
                   -P ${CMAKE_SOURCE_DIR}/tests/harness/compare_iterations.cmake)
  set_tests_properties(${test} PROPERTIES LABELS "tutorial" ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endfunction()

if(PETSCKP_ENABLE_TESTS AND PETSCKP_PETSC_TUTORIALS)
  petsckp_add_tutorial(tut_ksp_ex45 ${PETSCKP_PETSC_TUTORIALS}/ksp/ksp/tutorials/ex45.c)
  # seed 002: DCG + Neumann in at most half the iterations of CG + Jacobi (same norm, same tolerance)
  foreach(np 1 2)
    petsckp_add_tutorial_compare(tut_ksp_ex45_dcg_neumann_np${np} tut_ksp_ex45 ${np} 0.5
      "-da_grid_x 21 -da_grid_y 21 -da_grid_z 21 -ksp_type cg -pc_type jacobi -ksp_norm_type unpreconditioned -ksp_converged_reason"
      "-da_grid_x 21 -da_grid_y 21 -da_grid_z 21 -ksp_type dcg -pc_type neumann -ksp_norm_type unpreconditioned -ksp_converged_reason")
  endforeach()
endif()
