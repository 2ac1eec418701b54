#!/bin/bash
# The solver benchmarks on the GPU machine, each capped in time so that a part fits in one 10-minute device call.
#   PETSC_DIR=... bench/gpu/bench_solvers.sh <build dir> <output dir> <part: dcg | dcg-setup | dcg-latency | lbfgsb | psormg | psormg+lbfgsb | uaamg | pscr | pscr-kernels>
# Each solver's script writes its markdown table into <output dir>; copy them to bench/results/.
set -u
B=$1; O=$2; PART=$3
mkdir -p "$O"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PETSC_OPTIONS="-use_gpu_aware_mpi 0"
export DEVICE="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
case "$PART" in
  dcg)
    BUBBLY_QUICK=${BUBBLY_QUICK:-0} BUBBLY_PAPER=0 BUBBLY_GEOMS=bubble8 BUBBLY_SIZES=${BUBBLY_SIZES:-128 256} timeout ${BUBBLY_TOTAL:-420} bash bench/run_bubbly.sh "$B" "$O" > "$O/bubbly.log" 2>&1
    echo "bubbly: rc=$?"; cat "$O"/bubbly_gpu.md 2>/dev/null | tail -60 ;;
  dcg-setup) # the setup breakdown of dcg / neumann at 256^3 (bubbly_setup.md), then the quick time table at 256^3
    BUBBLY_SIZES=${BUBBLY_SIZES:-256} BUBBLY_TIMEOUT=${BUBBLY_TIMEOUT:-60} timeout ${BUBBLY_SETUP_TOTAL:-300} bash bench/run_bubbly.sh "$B" "$O" --setup > "$O/bubbly_setup.log" 2>&1
    echo "bubbly setup: rc=$?"; cat "$O"/bubbly_setup.md 2>/dev/null
    BUBBLY_QUICK=1 BUBBLY_PAPER=0 BUBBLY_GEOMS=bubble8 BUBBLY_SIZES=${BUBBLY_SIZES:-256} timeout ${BUBBLY_TOTAL:-240} bash bench/run_bubbly.sh "$B" "$O" > "$O/bubbly.log" 2>&1
    echo "bubbly: rc=$?"; cat "$O"/bubbly_gpu.md 2>/dev/null | tail -30 ;;
  dcg-latency) # ms per iteration at 128^3 and 256^3, standard and single-reduction dcg, against the bandwidth model
    DCG_LAT_BUILD=0 timeout ${DCG_LAT_TOTAL:-540} bash bench/gpu/dcg_latency.sh "$B" "$O/dcg_latency" > "$O/dcg_latency.log" 2>&1
    echo "dcg-latency: rc=$?"; cat "$O"/dcg_latency/dcg_latency_gpu.md 2>/dev/null ;;
  lbfgsb)
    LBFGSB_TLIM=${LBFGSB_TLIM:-20} timeout ${LBFGSB_TOTAL:-480} bash bench/run_lbfgsb.sh "$B" "$O/lbfgsb" ${CULBFGSB_RESULTS:-} > "$O/lbfgsb.log" 2>&1
    echo "lbfgsb: rc=$?"; cat "$O/lbfgsb/lbfgsb.md" 2>/dev/null ;;
  psormg)
    PSORMG_ANCHOR_MAX=1025 PSORMG_ANCHOR_TIMEOUT=75 PSORMG_BENCH_TIMEOUT=100 timeout 290 bash bench/run_psormg.sh "$B" "$O/psormg" 1025 2049 4097 > "$O/psormg.log" 2>&1
    echo "psormg: rc=$?"; cat "$O"/psormg/psormg_obstacle.md 2>/dev/null
    SEG_BENCH_TIMEOUT=60 timeout 120 bash bench/run_segmentation.sh "$B" "$O/seg" 256 512 1024 > "$O/seg.log" 2>&1
    echo "segmentation: rc=$?"; cat "$O"/seg/segmentation.md 2>/dev/null ;;
  psormg+lbfgsb)
    LBFGSB_TLIM=${LBFGSB_TLIM:-20} timeout ${LBFGSB_TOTAL:-480} bash bench/run_lbfgsb.sh "$B" "$O/lbfgsb" ${CULBFGSB_RESULTS:-} > "$O/lbfgsb.log" 2>&1
    echo "lbfgsb: rc=$?"; cat "$O/lbfgsb/lbfgsb.md" 2>/dev/null
    PSORMG_ANCHOR_MAX=1025 PSORMG_ANCHOR_TIMEOUT=60 PSORMG_BENCH_TIMEOUT=60 timeout 220 bash bench/run_psormg.sh "$B" "$O/psormg" 1025 2049 4097 > "$O/psormg.log" 2>&1
    echo "psormg: rc=$?"; cat "$O"/psormg/psormg_obstacle.md 2>/dev/null
    SEG_BENCH_TIMEOUT=60 timeout 120 bash bench/run_segmentation.sh "$B" "$O/seg" 256 512 1024 > "$O/seg.log" 2>&1
    echo "segmentation: rc=$?"; cat "$O"/seg/segmentation.md 2>/dev/null ;;
  uaamg) # UAAMG_GROUPS picks groups of bench/run_uaamg.sh; calls with other groups append to the same table, e.g.
          # UAAMG_GROUPS="poisson3d poisson2d", then "fem", then "heat3d ex45" in three device calls
    UAAMG_BENCH_TIMEOUT=${UAAMG_BENCH_TIMEOUT:-120} timeout ${UAAMG_TOTAL:-560} bash bench/run_uaamg.sh "$B" "$O/uaamg" ${UAAMG_GROUPS:-} > "$O/uaamg.log" 2>&1
    echo "uaamg: rc=$?"; cat "$O"/uaamg/uaamg_gpu.md 2>/dev/null ;;
  pscr)
    PSCR_BENCH_TIMEOUT=${PSCR_BENCH_TIMEOUT:-120} timeout ${PSCR_TOTAL:-540} bash bench/run_pscr.sh "$B" "$O/pscr" > "$O/pscr.log" 2>&1
    echo "pscr: rc=$?"; cat "$O"/pscr/pscr_gpu.md 2>/dev/null ;;
  pscr-kernels) # the PSCR kernel table and its variants only (bench_pscr; a few minutes)
    PSCR_BENCH_SECTIONS="kernels variants" PSCR_BENCH_TIMEOUT=${PSCR_BENCH_TIMEOUT:-90} timeout ${PSCR_TOTAL:-540} bash bench/run_pscr.sh "$B" "$O/pscr" > "$O/pscr.log" 2>&1
    echo "pscr-kernels: rc=$?"; cat "$O"/pscr/pscr_gpu.md 2>/dev/null ;;
esac
