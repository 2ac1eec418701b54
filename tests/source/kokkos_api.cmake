# Kokkos calls that the Kokkos a GPU user's PETSc builds (--download-kokkos: Kokkos 4 configured with
# Kokkos_ENABLE_DEPRECATED_CODE_4=OFF) no longer has, although the Kokkos 3 of a CPU build still compiles them:
# a use in the sources fails only on that stack, so it is looked for here, on every build.
#   cmake -DSOURCE_DIR=<petsckp source> -P kokkos_api.cmake
# (the functions that Kokkos 4.6 marks KOKKOS_DEPRECATED, in the spelling a call has)
set(_removed
    "Kokkos::atomic_increment" "Kokkos::atomic_decrement"   # Kokkos::atomic_inc / atomic_dec, or atomic_add(&x, 1)
    "Kokkos::atomic_assign" "Kokkos::atomic_compare_exchange_strong" "Kokkos::atomic_query_version"
    "Kokkos::in_parallel" "::is_asynchronous(" "::detect_device_count(" "::detect_device_arch(")
file(GLOB_RECURSE _files "${SOURCE_DIR}/src/*.cxx" "${SOURCE_DIR}/src/*.hpp" "${SOURCE_DIR}/include/*.h"
     "${SOURCE_DIR}/tests/unit/*.cxx" "${SOURCE_DIR}/tests/unit/*.hpp" "${SOURCE_DIR}/bench/*.cxx" "${SOURCE_DIR}/examples/*.cxx")
set(_found "")
foreach(_f IN LISTS _files)
  file(STRINGS "${_f}" _lines)
  set(_n 0)
  foreach(_l IN LISTS _lines)
    math(EXPR _n "${_n} + 1")
    foreach(_api IN LISTS _removed)
      string(FIND "${_l}" "${_api}" _at)
      if(NOT _at EQUAL -1)
        file(RELATIVE_PATH _r "${SOURCE_DIR}" "${_f}")
        string(APPEND _found "  ${_r}:${_n}: ${_api}\n")
      endif()
    endforeach()
  endforeach()
endforeach()
list(LENGTH _files _nf)
if(_found)
  message(FATAL_ERROR "Kokkos calls that Kokkos 4 without its deprecated code lacks (PETSc's --download-kokkos):\n${_found}")
endif()
message(STATUS "OK: ${_nf} sources, no Kokkos call that Kokkos 4 without deprecated code lacks")
