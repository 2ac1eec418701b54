#!/bin/bash
# compute-sanitizer (memcheck and racecheck) over petsckp on the GPU machine: the unit tests, and one small example
# per solver, with GPU vector and matrix types.
#   bench/gpu/sanitize.sh <petsckp GPU build dir> <outdir> [memcheck|racecheck|all] [runs...]
# runs: unit_host_types unit_gpu_types poisson_dcg_neumann bubbly_deflated obstacle_psormg bounded_lbfgsb minpack2_ept
# (default: all but minpack2_ept). SANITIZE_TYPES replaces the GPU type options, e.g. PETSc's Kokkos types
# "-vec_type kokkos -mat_type aijkokkos -dm_vec_type kokkos -dm_mat_type aijkokkos -use_gpu_aware_mpi 0" (minpack2_ept:
# the smallest example that fails with them, after it converged).
# Writes <outdir>/sanitize_<tool>_<name>.log and prints one line per run. A run passes when the sanitizer reports no
# error in a petsckp kernel (petsckp::, Kokkos kernels launched by petsckp) and the program itself succeeds.
# Hazards that racecheck reports inside NVIDIA libraries (cuSPARSE kernels behind PETSc's own MatMult) are counted
# apart: they are not petsckp's. The unit tests also run with host PETSc types, where no cuSPARSE kernel runs.
set -u
B=${1:?build dir}; O=${2:?outdir}; TOOLS=${3:-all}; shift 2; [ $# -gt 0 ] && shift
RUNS=${*:-unit_host_types unit_gpu_types poisson_dcg_neumann bubbly_deflated obstacle_psormg bounded_lbfgsb}
[ "$TOOLS" = all ] && TOOLS="memcheck racecheck"
mkdir -p "$O"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
G=${SANITIZE_TYPES:-"-vec_type cuda -mat_type aijcusparse -dm_vec_type cuda -dm_mat_type aijcusparse -use_gpu_aware_mpi 0"}
fail=0
run() { # tool name petsc_options command...
  local tool=$1 name=$2 opts=$3; shift 3
  local log="$O/sanitize_${tool}_${name}.log"
  PETSC_OPTIONS="$opts" timeout 900 compute-sanitizer --tool "$tool" --print-limit 100000 --error-exitcode 97 "$@" > "$log" 2>&1
  local rc=$?
  local ours lib
  ours=$(grep -E "^========= (Error|Warning|Invalid|Race)" -A2 "$log" | grep -vE "cusparse::|cublas|libcusparse|libcublas" | grep -cE "^========= (Error|Warning|Invalid|Race)")
  lib=$(grep -cE "^========= (Error|Warning): Race reported .*cusparse::" "$log")
  local summary
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1 | sed 's/=========//')
  if [ "$ours" -eq 0 ] && { [ $rc -eq 0 ] || { [ $rc -eq 97 ] && [ "$lib" -gt 0 ]; }; }; then
    echo "PASS $tool $name:$summary; reports in petsckp kernels: 0; in cuSPARSE: $lib"
  else
    echo "FAIL $tool $name (rc $rc):$summary; reports outside NVIDIA libraries: $ours"; fail=1
  fi
}
for tool in $TOOLS; do
  for r in $RUNS; do
    case $r in
    unit_host_types) run $tool $r "-use_gpu_aware_mpi 0" "$B/tests/petsckp_unit" ;;
    unit_gpu_types) run $tool $r "$G" "$B/tests/petsckp_unit" ;;
    poisson_dcg_neumann) run $tool $r "$G" "$B/examples/poisson" -dim 3 -n 17 -ksp_type dcg -pc_type neumann ;;
    bubbly_deflated) run $tool $r "$G" "$B/examples/bubbly" -dim 3 -n 16 -geometry bubble8 -contrast 1e-6 -ksp_dcg_blocks 2,2,2 -max_its_expected 80 ;;
    obstacle_psormg) run $tool $r "$G" "$B/examples/obstacle" -problem hemisphere -n 65 -max_cycles 35 ;;
    bounded_lbfgsb) run $tool $r "$G" "$B/examples/bounded" -tao_type lbfgsb -tao_lbfgsb_m 5 ;;
    minpack2_ept) run $tool $r "$G" "$B/examples/minpack2" -problem ept -nx 24 -ny 20 ;;
    *) echo "unknown run $r"; fail=1 ;;
    esac
  done
done
exit $fail
