#!/bin/bash
# Build petsckp on the GPU machine and run every test with GPU types, then the SpMV benchmark.
#   PETSC_DIR=<PETSc with CUDA> Kokkos_ROOT=<Kokkos with CUDA> GTest_ROOT=<GoogleTest> bench/gpu/build_and_test.sh <builddir> <outdir>
# Writes build.log, unit*.log, ctest.log, spmv.md into <outdir>.
set -u
B=${1:-build-gpu}; O=${2:-.}
mkdir -p "$O"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
GPUARGS="-vec_type cuda -mat_type aijcusparse -dm_vec_type cuda -dm_mat_type aijcusparse -use_gpu_aware_mpi 0 -options_left 0"
export PETSC_OPTIONS="-use_gpu_aware_mpi 0"
t0=$(date +%s)
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$Kokkos_ROOT/bin/nvcc_wrapper" \
  -DKokkos_ROOT="$Kokkos_ROOT" -DGTest_ROOT="${GTest_ROOT:-}" "-DPETSCKP_TEST_ARGS=$GPUARGS" > "$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 1; }
make -C "$B" -j16 >> "$O/build.log" 2>&1 || { grep -E "error" -A3 "$O/build.log" | head -60; exit 1; }
t1=$(date +%s)
echo "GPU build (configure + make -j16): $((t1 - t0)) s"
# unit tests: host Vec/Mat types (device copies) and GPU types
PETSC_OPTIONS="-use_gpu_aware_mpi 0" "$B/tests/petsckp_unit" > "$O/unit_host_types.log" 2>&1; echo "unit tests, host types: rc=$? $(tail -1 "$O/unit_host_types.log")"
PETSC_OPTIONS="$GPUARGS" "$B/tests/petsckp_unit" > "$O/unit_gpu_types.log" 2>&1; echo "unit tests, GPU types: rc=$? $(tail -1 "$O/unit_gpu_types.log")"
(cd "$B" && ctest -LE unit -j4 --output-on-failure > "$O/ctest_examples_gpu.log" 2>&1); echo "example, tutorial and install tests with GPU types: $(grep -E 'tests passed|tests failed' "$O/ctest_examples_gpu.log")"
grep -E "Failed|\*\*\*" "$O/ctest_examples_gpu.log" | head -20
t2=$(date +%s)
echo "tests: $((t2 - t1)) s"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$O/device.txt" 2>/dev/null
PETSCKP_MAIN_N=${MAIN_N:-129} PETSCKP_BENCH_ARGS="$GPUARGS" bash bench/main_job.sh "$B" "$O/main_job.md" > /dev/null 2>&1; echo "main job:"; cat "$O/main_job.md"
for n in ${SPMV_SIZES:-128 256 320}; do
  "$B/bench/bench_spmv" -n $n -reps 50 $GPUARGS -o "$O/spmv.md" 2>&1 | tail -1
done
