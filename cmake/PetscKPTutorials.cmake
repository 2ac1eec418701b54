# Unmodified PETSc tutorials run with libpetsckp's solvers loaded at run time (-dll_append), to check that the
# plugins work in applications that know nothing about them.
#
#   petsckp_add_tutorial(<name> <source>): builds <source> (a PETSc tutorial, linked with PETSc only) as the
#   executable tutorial_<name> when the file exists; tests are added by the caller with add_test().
set(PETSCKP_PETSC_TUTORIALS_DIR "" CACHE PATH "Directory holding PETSc's src/ tree of examples (default: $PETSC_DIR/share/petsc/examples or Debian's copy)")
if(NOT PETSCKP_PETSC_TUTORIALS_DIR)
  foreach(d ${PETSC_DIR}/share/petsc/examples ${PETSCKP_PETSC_PREFIX}/share/petsc/examples /usr/share/petsc/${PETSC_VERSION_MAJOR}.${PETSC_VERSION_MINOR}/share/petsc/examples)
    if(EXISTS ${d}/src)
      set(PETSCKP_PETSC_TUTORIALS_DIR ${d})
      break()
    endif()
  endforeach()
endif()

function(petsckp_add_tutorial name source)
  set(src ${PETSCKP_PETSC_TUTORIALS_DIR}/${source})
  if(NOT PETSCKP_PETSC_TUTORIALS_DIR OR NOT EXISTS ${src})
    message(STATUS "petsckp: PETSc tutorial ${source} not found; its tests are skipped")
    return()
  endif()
  if(NOT TARGET tutorial_${name})
    add_executable(tutorial_${name} ${src})
    target_link_libraries(tutorial_${name} PRIVATE PkgConfig::PETSC MPI::MPI_C m)
    set_target_properties(tutorial_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tutorials)
  endif()
endfunction()

# ---- TAO lbfgsb (seed 004): jbearing2 and plate2 with -tao_type lbfgsb reach TAO BLMVM's optimum in no more iterations
if(PETSCKP_ENABLE_TESTS)
  set(PETSCKP_SCIPY_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with scipy for the L-BFGS-B agreement tests")
  petsckp_add_tutorial(jbearing2 src/tao/bound/tutorials/jbearing2.c)
  petsckp_add_tutorial(plate2 src/tao/bound/tutorials/plate2.c)
  foreach(np 1 2)
    if(TARGET tutorial_jbearing2)
      add_test(NAME tutorial_jbearing2_lbfgsb_np${np} COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/lbfgsb_tutorial.py
               --exe $<TARGET_FILE:tutorial_jbearing2> --lib $<TARGET_FILE:petsckp> --nsize ${np} --args "-mx 48 -my 48 -tao_gatol 1e-6 -tao_grtol 0")
    endif()
    if(TARGET tutorial_plate2)
      add_test(NAME tutorial_plate2_lbfgsb_np${np} COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/lbfgsb_tutorial.py
               --exe $<TARGET_FILE:tutorial_plate2> --lib $<TARGET_FILE:petsckp> --nsize ${np} --args "-mx 24 -my 24 -tao_gatol 1e-6 -tao_grtol 0")
    endif()
  endforeach()
endif()
