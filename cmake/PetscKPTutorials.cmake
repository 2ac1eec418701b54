# petsckp_add_tutorial(name source): builds an unmodified PETSc tutorial (when the PETSc installation ships its
# source) and returns its target in the variable <name>_TARGET (empty when the source is absent). Tests add
# -dll_append $<TARGET_FILE:petsckp> to load the plugins at run time, as any PETSc application would.
set(PETSCKP_PETSC_TUTORIALS_DIRS
  ${PETSCKP_PETSC_PC_DIR}/../../share/petsc/examples/src
  /usr/share/petsc/3.18/share/petsc/examples/src
  $ENV{PETSC_DIR}/share/petsc/examples/src
  $ENV{PETSC_DIR}/src)

function(petsckp_add_tutorial name source)
  set(${name}_TARGET "" PARENT_SCOPE)
  foreach(dir ${PETSCKP_PETSC_TUTORIALS_DIRS})
    if(EXISTS ${dir}/${source})
      add_executable(petsc_${name} ${dir}/${source})
      target_link_libraries(petsc_${name} PRIVATE PkgConfig::PETSC MPI::MPI_C m)
      set_target_properties(petsc_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tutorials)
      set(${name}_TARGET petsc_${name} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(STATUS "petsckp: PETSc tutorial ${source} not found; its tests are skipped")
endfunction()

if(PETSCKP_ENABLE_TESTS)
  # unconstrained PCPSORMG preconditions CG on PETSc's ksp ex45 (65^3, DMDA given with KSPSetDM) in <= 20 iterations
  petsckp_add_tutorial(ksp_ex45 ksp/ksp/tutorials/ex45.c)
  if(ksp_ex45_TARGET)
    add_test(NAME tutorial/ksp_ex45_psormg_cg
             COMMAND ${ksp_ex45_TARGET} -dll_append $<TARGET_FILE:petsckp> -da_grid_x 65 -da_grid_y 65 -da_grid_z 65
                     -ksp_type cg -pc_type psormg -ksp_rtol 1e-8 -ksp_max_it 20 -ksp_error_if_not_converged -ksp_converged_reason)
    set_tests_properties(tutorial/ksp_ex45_psormg_cg PROPERTIES LABELS "tutorial" PASS_REGULAR_EXPRESSION "Linear solve converged" TIMEOUT 600)
  endif()
endif()
