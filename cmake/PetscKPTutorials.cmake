# Unmodified PETSc tutorials, compiled from PETSc's installed example sources against PETSc alone (they do not
# link petsckp) and run with -dll_append libpetsckp.so, as a PETSc user would.
#
#   petsckp_add_tutorial(<name> <path below PETSc's examples/src>)    builds tutorial_<name> when the source exists
#   petsckp_add_tutorial_test(<test> <name> NSIZE <n> ARGS <args...> EXPECT <regex...>)
#   petsckp_add_tutorial_compare(<test> <name> <nranks> <max ratio> "<reference args>" "<petsckp args>")
#       runs the tutorial with a PETSc reference solver and a petsckp solver; both must converge and the petsckp
#       run may take at most <max ratio> times the reference's iterations (tests/harness/compare_iterations.cmake)
set(PETSCKP_PETSC_EXAMPLES "" CACHE PATH "PETSc's example sources (the directory holding ksp/, snes/, tao/)")
if(NOT PETSCKP_PETSC_EXAMPLES)
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" _kp_mm "${PETSC_VERSION}")
  foreach(d ${PETSCKP_PETSC_PREFIX}/share/petsc/examples/src /usr/share/petsc/${_kp_mm}/share/petsc/examples/src ${PETSC_DIR}/src)
    if(EXISTS ${d}/ksp/ksp/tutorials)
      set(PETSCKP_PETSC_EXAMPLES ${d})
      break()
    endif()
  endforeach()
endif()
if(PETSCKP_PETSC_EXAMPLES)
  message(STATUS "petsckp: PETSc tutorials from ${PETSCKP_PETSC_EXAMPLES}")
else()
  message(STATUS "petsckp: PETSc's example sources not found (Debian: libpetsc3.18-dev-examples); tutorial tests skipped")
endif()

function(petsckp_add_tutorial name relpath)
  if(PETSCKP_PETSC_EXAMPLES AND EXISTS ${PETSCKP_PETSC_EXAMPLES}/${relpath} AND NOT TARGET tutorial_${name})
    add_executable(tutorial_${name} ${PETSCKP_PETSC_EXAMPLES}/${relpath})
    target_link_libraries(tutorial_${name} PRIVATE PkgConfig::PETSC MPI::MPI_C m)
    set_target_properties(tutorial_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tutorials)
  endif()
endfunction()

function(petsckp_add_tutorial_test test name)
  cmake_parse_arguments(T "" "NSIZE" "ARGS;EXPECT" ${ARGN})
  if(NOT TARGET tutorial_${name} OR NOT PETSCKP_ENABLE_TESTS)
    return()
  endif()
  if(NOT T_NSIZE)
    set(T_NSIZE 1)
  endif()
  set(expect)
  foreach(e ${T_EXPECT})
    list(APPEND expect --expect ${e})
  endforeach()
  string(REPLACE ";" " " args "${T_ARGS}")
  add_test(NAME tutorial/${test}_np${T_NSIZE}
           COMMAND ${Python3_EXECUTABLE} ${PETSCKP_HARNESS} run --exe $<TARGET_FILE:tutorial_${name}> --nsize ${T_NSIZE}
                   "--args=-dll_append $<TARGET_FILE:petsckp> ${args}" ${expect})
  set_tests_properties(tutorial/${test}_np${T_NSIZE} PROPERTIES PROCESSORS ${T_NSIZE} LABELS "tutorial" TIMEOUT 600)
  if(PETSCKP_TEST_ARGS)
    set_property(TEST tutorial/${test}_np${T_NSIZE} APPEND PROPERTY ENVIRONMENT "PETSCKP_TEST_ARGS=${PETSCKP_TEST_ARGS}")
  endif()
endfunction()

function(petsckp_add_tutorial_compare test name nranks ratio refargs kpargs)
  if(NOT TARGET tutorial_${name} OR NOT PETSCKP_ENABLE_TESTS)
    return()
  endif()
  add_test(NAME tutorial/${test}
           COMMAND ${CMAKE_COMMAND} -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNP=${nranks} -DEXE=$<TARGET_FILE:tutorial_${name}>
                   -DLIB=$<TARGET_FILE:petsckp> -DRATIO=${ratio} "-DREF=${refargs}" "-DKP=${kpargs}"
                   -P ${CMAKE_SOURCE_DIR}/tests/harness/compare_iterations.cmake)
  set_tests_properties(tutorial/${test} PROPERTIES LABELS "tutorial" PROCESSORS ${nranks} TIMEOUT 600
                       ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;PETSCKP_TEST_ARGS=${PETSCKP_TEST_ARGS}")
endfunction()

petsckp_add_tutorial(ksp_ex45 ksp/ksp/tutorials/ex45.c)
# the library loads into an unmodified application and registers itself
petsckp_add_tutorial_test(ex45_dll_append ksp_ex45 NSIZE 2 ARGS -da_grid_x 9 -da_grid_y 9 -da_grid_z 9 -info :sys -ksp_converged_reason
                          EXPECT "Loading registered routines from .*libpetsckp" "CONVERGED_RTOL")

# Gupta, van Gijzen, Vuik (VECPAR 2012): DCG + Neumann in at most half the iterations of CG + Jacobi (same norm, same tolerance)
foreach(np 1 2)
  petsckp_add_tutorial_compare(ex45_dcg_neumann_np${np} ksp_ex45 ${np} 0.5
    "-da_grid_x 21 -da_grid_y 21 -da_grid_z 21 -ksp_type cg -pc_type jacobi -ksp_norm_type unpreconditioned -ksp_converged_reason"
    "-da_grid_x 21 -da_grid_y 21 -da_grid_z 21 -ksp_type dcg -pc_type neumann -ksp_norm_type unpreconditioned -ksp_converged_reason")
endforeach()

# L-BFGS-B (Byrd, Lu, Nocedal, Zhu; Fei et al. on the GPU): unmodified jbearing2 and plate2 with -tao_type lbfgsb reach BLMVM's optimum in no more iterations
petsckp_add_tutorial(jbearing2 tao/bound/tutorials/jbearing2.c)
petsckp_add_tutorial(plate2 tao/bound/tutorials/plate2.c)
if(PETSCKP_ENABLE_TESTS)
  foreach(np 1 2)
    if(TARGET tutorial_jbearing2)
      add_test(NAME tutorial/jbearing2_lbfgsb_np${np} COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/lbfgsb_tutorial.py
               --exe $<TARGET_FILE:tutorial_jbearing2> --lib $<TARGET_FILE:petsckp> --nsize ${np} --args "-mx 48 -my 48 -tao_gatol 1e-6 -tao_grtol 0")
      set_tests_properties(tutorial/jbearing2_lbfgsb_np${np} PROPERTIES LABELS "tutorial" PROCESSORS ${np} ENVIRONMENT "PETSCKP_TEST_ARGS=${PETSCKP_TEST_ARGS}")
    endif()
    if(TARGET tutorial_plate2)
      add_test(NAME tutorial/plate2_lbfgsb_np${np} COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/lbfgsb_tutorial.py
               --exe $<TARGET_FILE:tutorial_plate2> --lib $<TARGET_FILE:petsckp> --nsize ${np} --args "-mx 24 -my 24 -tao_gatol 1e-6 -tao_grtol 0")
      set_tests_properties(tutorial/plate2_lbfgsb_np${np} PROPERTIES LABELS "tutorial" PROCESSORS ${np} ENVIRONMENT "PETSCKP_TEST_ARGS=${PETSCKP_TEST_ARGS}")
    endif()
  endforeach()
endif()

# Klement and Oberhuber (projected-SOR multigrid): PETSc's SNESVI obstacle tutorial, the anchor of bench/run_psormg.sh (built here so that the benchmark does
# not depend on compilers and pkg-config on the GPU machine); a small run checks that it works in this build. The
# benchmark's CG + GAMG runs on PETSc 3.25, but PETSc 3.18's GAMG stops at the second Newton step of vinewtonrsls
# ("Cannot change local size of Amat after use": its levels keep the size of the previous inactive set), so the
# smoke test here uses CG + Jacobi.
# Not with PETSc's Kokkos types: vinewtonrsls's reduced-space vectors are host vectors (VecCreateMPI() in
# src/snes/impls/vi/rs/virs.c) beside a MATAIJKOKKOS submatrix, a segmentation fault in PETSc's optimized builds.
petsckp_add_tutorial(snes_ex9 snes/tutorials/ex9.c)
if(NOT "kokkos_types" IN_LIST PETSCKP_FEATURES)
  petsckp_add_tutorial_test(snes_ex9_vinewtonrsls snes_ex9 NSIZE 1
    ARGS -da_grid_x 33 -da_grid_y 33 -snes_type vinewtonrsls -snes_max_it 50 -ksp_type cg -pc_type jacobi -snes_converged_reason
    EXPECT "Nonlinear solve converged due to" "errors on 33 x 33 grid")
endif()

# Klement and Oberhuber: unconstrained psormg preconditions CG on ex45 (65^3, DMDA given with KSPSetDM) in <= 20 iterations
foreach(np 1 2 4)
  petsckp_add_tutorial_test(ex45_psormg_cg ksp_ex45 NSIZE ${np}
    ARGS -da_grid_x 65 -da_grid_y 65 -da_grid_z 65 -ksp_type cg -pc_type psormg -ksp_rtol 1e-8 -ksp_max_it 20 -ksp_error_if_not_converged -ksp_converged_reason
    EXPECT "Linear solve converged due to CONVERGED_RTOL")
endforeach()

# Wang, Hu, Cohen, Xu (auxiliary-grid unsmoothed-aggregation AMG): the unmodified 3D Poisson tutorial ksp ex45 (DMDA,
# no coordinates: the PC takes the grid indices) with FCG + uaamg on 2 ranks in at most 30 iterations at 33^3 (to the
# paper's relative residual 1e-6, unpreconditioned norm); bench/run_uaamg.sh records the counts at 33^3, 65^3, 129^3
petsckp_add_tutorial(snes_ex12 snes/tutorials/ex12.c)
if(TARGET tutorial_snes_ex12)
  # ex12 includes petscviewerhdf5.h, which needs hdf5.h when PETSc has HDF5 (Debian: the MPI flavour's directory)
  find_path(PETSCKP_HDF5_INCLUDE_DIR hdf5.h PATHS /usr/include/hdf5/openmpi /usr/include/hdf5/mpich /usr/include/hdf5/serial)
  if(PETSCKP_HDF5_INCLUDE_DIR)
    target_include_directories(tutorial_snes_ex12 PRIVATE ${PETSCKP_HDF5_INCLUDE_DIR})
  endif()
endif()
foreach(np 1 2 4)
  petsckp_add_tutorial_test(ex45_uaamg_fcg ksp_ex45 NSIZE ${np}
    ARGS -da_grid_x 33 -da_grid_y 33 -da_grid_z 33 -ksp_type fcg -pc_type uaamg -ksp_rtol 1e-6 -ksp_norm_type unpreconditioned
         -ksp_max_it 30 -ksp_error_if_not_converged -ksp_converged_reason
    EXPECT "Linear solve converged due to CONVERGED_RTOL iterations")
  # PETSc's DMPlex tutorial snes ex12: Q1 on 128 x 128 quadrilaterals, Dirichlet conditions constrained in the section;
  # the PC takes the vertex coordinates from the DMPlex
  petsckp_add_tutorial_test(snes_ex12_uaamg_q1 snes_ex12 NSIZE ${np}
    ARGS -dm_plex_simplex 0 -dm_plex_box_faces 128,128 -petscspace_degree 1 -ksp_type fcg -pc_type uaamg -ksp_rtol 1e-8
         -ksp_max_it 50 -snes_converged_reason -ksp_converged_reason -snes_error_if_not_converged -ksp_error_if_not_converged
    EXPECT "Linear solve converged due to CONVERGED_RTOL iterations" "Nonlinear solve converged due to CONVERGED")
endforeach()

# PSCR (Kuznetsov and Rossi; Myllykoski, Rossi and Toivanen): the factors are detected from ex45's DMDA operator (its
# Dirichlet rows are kept as diagonal-only rows); PCPSCR is then the exact inverse and CG converges at once (<= 12)
foreach(np 1 2)
  petsckp_add_tutorial_test(ex45_pscr_cg ksp_ex45 NSIZE ${np}
    ARGS -da_grid_x 63 -da_grid_y 65 -da_grid_z 67 -ksp_type cg -pc_type pscr -ksp_max_it 12 -ksp_error_if_not_converged -ksp_converged_reason
    EXPECT "Linear solve converged due to CONVERGED_RTOL iterations [1-9]")
endforeach()
