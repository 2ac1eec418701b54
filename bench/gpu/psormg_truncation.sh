#!/bin/bash
# One device call (about 8 minutes on one H100) for the truncated monotone multigrid of PCPSORMG:
#   1. build, the unit tests with GPU types and the psormg example tests (obstacle, segmentation) with GPU types;
#   2. bench/run_psormg.sh 1025 2049 4097 and bench/run_segmentation.sh 256 512 1024, each with a truncated (the default then)
#      and a monotone row per size, and the table of event times (PCSetUp, KPDevMatSetup, KPMGGalerkin, cycles);
#   3. the obstacle at 4097^2 with -pc_psormg_monitor (per cycle: truncation on/off, moves of the active set, coarse
#      rows recomputed) and -log_view, truncated and monotone.
#   PETSC_DIR=... Kokkos_ROOT=... GTest_ROOT=... bench/gpu/psormg_truncation.sh <build> <out> [tests | bench | all]
# "tests" is 1. alone (with a fresh build it may take most of a call), "bench" 2. and 3. (about 7 minutes); all (default)
# both, for a build that exists already.
set -u
B=$1; O=$2; WHAT=${3:-all}
mkdir -p "$O"
case "$WHAT" in
  tests) bash bench/gpu/verify_and_bench.sh "$B" "$O" "obstacle|segmentation|psormg|Psormg|Truncat" ""; exit ;;
  bench) bash bench/gpu/bench_solvers.sh "$B" "$O" psormg ;;
  *) bash bench/gpu/verify_and_bench.sh "$B" "$O" "obstacle|segmentation|psormg|Psormg|Truncat" psormg ;;
esac
GPU="-dm_vec_type cuda -dm_mat_type aijcusparse -vec_type cuda -mat_type aijcusparse -use_gpu_aware_mpi 0"
for R in truncated monotone; do
  timeout 100 "$B/examples/obstacle" -problem hemisphere -n 4097 -ksp_rtol 1e-8 -print_times -pc_psormg_monitor \
    -pc_psormg_obstacle_restriction $R -log_view $GPU > "$O/obstacle4097_$R.log" 2>&1
  echo "obstacle 4097^2 $R: rc=$? $(grep -m1 'psormg cycles' "$O/obstacle4097_$R.log")"
  grep -E "truncation:" "$O/obstacle4097_$R.log" | head -20
  grep -E "^(PCSetUp|PCPSORMGSetUp|KPDevMatSetup|KPMGGalerkin|PCPSORMGCycle|PCPSORMGSweep|KPSpMV|KSPSolve) " "$O/obstacle4097_$R.log"
done
