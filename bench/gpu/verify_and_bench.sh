#!/bin/bash
# One device call: build petsckp (if not built), run the unit tests and a chosen set of example/tutorial tests with
# GPU types, then one part of the solver benchmarks.
#   PETSC_DIR=... Kokkos_ROOT=... GTest_ROOT=... bench/gpu/verify_and_bench.sh <build> <out> "<ctest regex>" <bench part>
set -u
B=$1; O=$2; R=$3; PART=$4
mkdir -p "$O"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 PETSC_OPTIONS="-use_gpu_aware_mpi 0"
GPUARGS="-vec_type cuda -mat_type aijcusparse -dm_vec_type cuda -dm_mat_type aijcusparse -use_gpu_aware_mpi 0 -options_left 0"
t0=$(date +%s)
if [ ! -f "$B/CMakeCache.txt" ]; then
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$Kokkos_ROOT/bin/nvcc_wrapper" -DKokkos_ROOT="$Kokkos_ROOT" \
    -DGTest_ROOT="${GTest_ROOT:-}" "-DPETSCKP_TEST_ARGS=$GPUARGS" > "$O/build.log" 2>&1 || { tail -20 "$O/build.log"; exit 1; }
fi
make -C "$B" -j16 >> "$O/build.log" 2>&1 || { grep -E "error" -A3 "$O/build.log" | head -40; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
PETSC_OPTIONS="$GPUARGS" timeout 120 "$B/tests/petsckp_unit" > "$O/unit_gpu_types.log" 2>&1; echo "unit tests, GPU types: rc=$? $(tail -1 "$O/unit_gpu_types.log")"
grep -E "^\[  FAILED" "$O/unit_gpu_types.log" | head
if [ -n "$R" ]; then
  (cd "$B" && timeout ${CTEST_TIMEOUT:-150} ctest -R "$R" -j6 --output-on-failure > "$O/ctest_gpu.log" 2>&1)
  echo "ctest -R '$R' with GPU types: $(grep -E 'tests passed|tests failed' "$O/ctest_gpu.log")"
  grep -E "\*\*\*(Failed|Timeout)|Not Run" "$O/ctest_gpu.log" | head -20
fi
echo "tests done at $(( $(date +%s) - t0 )) s"
for p in $PART; do bash bench/gpu/bench_solvers.sh "$B" "$O" "$p"; done
echo "total $(( $(date +%s) - t0 )) s"
