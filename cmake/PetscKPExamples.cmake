# petsckp_add_examples(<dir>): one executable per examples/<name>/*.c|*.cxx file, and one CTest test per
# entry of the /*TEST ... TEST*/ block at the end of each source (see tests/harness/petsckp_harness.py).
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(PETSCKP_HARNESS ${CMAKE_CURRENT_LIST_DIR}/../tests/harness/petsckp_harness.py)

function(petsckp_add_examples dir)
  file(GLOB srcs ${dir}/*.c ${dir}/*.cxx)
  foreach(src ${srcs})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name} ${src})
    target_link_libraries(${name} PRIVATE petsckp)
    set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/examples)
    if(PETSCKP_ENABLE_TESTS)
      set(out ${CMAKE_BINARY_DIR}/harness/${name}_tests.cmake)
      execute_process(COMMAND ${Python3_EXECUTABLE} ${PETSCKP_HARNESS} cmake --source ${src} --target ${name}
                              "--features=${PETSCKP_FEATURES}" --out ${out}
                      RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR "petsckp: could not read the TEST block of ${src}")
      endif()
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${src})
      include(${out})
    endif()
  endforeach()
  if(PETSCKP_ENABLE_TESTS AND PETSCKP_TEST_ARGS)
    # GPU runs: the extra options travel through the environment of every example test
    get_property(tests DIRECTORY PROPERTY TESTS)
    foreach(t ${tests})
      set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "PETSCKP_TEST_ARGS=${PETSCKP_TEST_ARGS}")
    endforeach()
  endif()
endfunction()
