#!/bin/bash
# Iteration latency of KSPDCG + PCNEUMANN on the GPU: ms per iteration at 128^3 and 256^3 for the standard iteration
# and the single-reduction one (-ksp_dcg_pipelined), against the bandwidth model of bench/run_bubbly.sh (goal: <= 1.3x
# the model at 128^3; before this work 2x: 0.70 / 0.62 ms against 0.34 ms). One device call, about 3 to 5 minutes per
# build with the defaults, plus an incremental build:
#   - examples/bubbly, 3D bubble8, contrasts DCG_LAT_CONTRASTS (default "1e-3 1e-6"), sizes DCG_LAT_SIZES (default
#     "128 256"), dcg + neumann(2) with 8x8x8 blocks, standard and pipelined, each run DCG_LAT_REPS times (default 3;
#     the table gives the fastest ms/iteration = solve / iterations, and the iterations and true residual of that run);
#   - the kernel launches, host synchronisations and PETSc operations per iteration counted by the unit test
#     DcgLaunches.PerIteration (Kokkos profiling callbacks: on Kokkos 4 the fences are the host synchronisations) at
#     DCG_LAT_LAUNCH_N^3 (default 128) on GPU vectors;
#   - with nsys on the PATH (DCG_LAT_NSYS=1, the default when it is there), the kernel summary of one 128^3 pipelined
#     and one standard solve: GPU time of the kernels against the wall time of the iterations (the gaps are launch
#     and synchronisation latency).
#
#   bench/gpu/dcg_latency.sh [<build dir> [<output dir> [<baseline build dir>]]]
# Run from the repository root. Defaults: build dir build-gpu (tools/build-gpu-stack.sh's), configured and built here
# (targets bubbly and petsckp_unit) against the stack of .gpu/stack/env.sh when PETSC_DIR is not set; output dir
# $OUT/dcg_latency (or /tmp/dcg_latency). A baseline build (e.g. main before the fused iteration, built the same way)
# gets the same rows, without the pipelined ones it does not know. Writes <output dir>/dcg_latency_gpu.md and the
# logs, and prints the table on stdout (progress on stderr).
# Environment: DCG_LAT_SIZES, DCG_LAT_CONTRASTS, DCG_LAT_REPS, DCG_LAT_BW (device bandwidth in TB/s for the model,
# default 3.0 as bench/run_bubbly.sh), DCG_LAT_TYPES (GPU type options; empty for a dry run on a CPU), DCG_LAT_BUILD
# (0: use the build as it is), DCG_LAT_TIMEOUT (s per run, default 60), DCG_LAT_WARMUP (default "0 5": rows without and
# with `-warmup N`, N iterations of the same solver on a copy of the matrix before the timed solve, so that the timed
# solve no longer pays for the first launch of each kernel in the process; the baseline build gets the cold rows only).
set -u
B=${1:-build-gpu}
O=${2:-${OUT:-/tmp}/dcg_latency}
BASE=${3:-}
mkdir -p "$O/logs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
GPU=${DCG_LAT_TYPES-"-dm_vec_type cuda -vec_type cuda -dm_mat_type aijcusparse -mat_type aijcusparse -use_gpu_aware_mpi 0"}
SIZES=${DCG_LAT_SIZES:-"128 256"}
CONTRASTS=${DCG_LAT_CONTRASTS:-"1e-3 1e-6"}
REPS=${DCG_LAT_REPS:-3}
BW=${DCG_LAT_BW:-3.0}
TMO=${DCG_LAT_TIMEOUT:-60}
LN=${DCG_LAT_LAUNCH_N:-128}
WARM=${DCG_LAT_WARMUP:-"0 5"}
t0=$(date +%s)

if [ -z "${PETSC_DIR:-}" ] && [ -f .gpu/stack/env.sh ]; then
  # shellcheck disable=SC1091
  . .gpu/stack/env.sh
fi
if [ "${DCG_LAT_BUILD:-1}" != 0 ]; then
  if [ ! -f "$B/CMakeCache.txt" ]; then
    [ -n "${PETSC_DIR:-}" ] || { echo "dcg_latency: no $B/CMakeCache.txt and no PETSC_DIR (build the stack with tools/build-gpu-stack.sh)" >&2; exit 1; }
    KR=${Kokkos_ROOT:-$PETSC_DIR/$PETSC_ARCH}
    KARGS=()
    [ -n "${Kokkos_ROOT:-}" ] && KARGS=("-DKokkos_ROOT=$Kokkos_ROOT")
    cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$KR/bin/nvcc_wrapper" ${KARGS[@]+"${KARGS[@]}"} \
      -DGTest_ROOT="${GTest_ROOT:-}" > "$O/build.log" 2>&1 || { tail -20 "$O/build.log" >&2; exit 1; }
  fi
  cmake --build "$B" --target bubbly -j "$(nproc)" >> "$O/build.log" 2>&1 || { grep -E "error" -A3 "$O/build.log" | head -40 >&2; exit 1; }
  cmake --build "$B" --target petsckp_unit -j "$(nproc)" >> "$O/build.log" 2>&1 || echo "dcg_latency: petsckp_unit not built (no GoogleTest?): no launch counts" >&2
  echo "dcg_latency: build $(( $(date +%s) - t0 )) s" >&2
fi
[ -x "$B/examples/bubbly" ] || { echo "dcg_latency: no $B/examples/bubbly" >&2; exit 1; }
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
T="$O/dcg_latency_gpu.md"
# bytes per unknown of one iteration, 7-point stencil, 8 B scalars, 4 B indices (the terms of bench/run_bubbly.sh):
#   A u or A p fused with its inner products (CSR, + r for the single-reduction sums)      104 / 112
#   neumann(2), 4 SELL kernels                                                              232
#   restriction Z^T w and Z^T r (team per vector)                                            28
#   standard: x/r update with AZ a2 (48 + 20), (y, r) with the norms 16, p update 24          108
#   single reduction: s, p, x, r update with AZ a2 (80 + 20)                                 100
MODEL_STD=472
MODEL_PIPE=472
# the figures before this work (bench/results/bubbly_gpu.md, H100, 2026-11-22: dcg + neumann(2), 8x8x8 blocks)
declare -A BEFORE=([128_1e-3]=0.70 [128_1e-6]=0.6213 [256_1e-3]=3.405 [256_1e-6]=3.413)

{
  echo "# KSPDCG iteration latency: standard and single-reduction iteration against the bandwidth model"
  echo
  echo "Device: ${DEVICE:-unknown}. Date: $(date -u +%Y-%m-%d). Script: \`bench/gpu/dcg_latency.sh\`. GPU options: \`$GPU\`."
  echo "3D bubble8, rtol 1e-6 (true residual), random x0, zero-mean random b, 1 rank, dcg + neumann(2), 8x8x8 blocks."
  echo "ms/it = KSPSolve wall time (measured by examples/bubbly after waiting for the device) / iterations, the fastest of"
  echo "$REPS runs. Model = $MODEL_STD B/unknown x N / $BW TB/s (launch and reduction latency not included). \"before\": the"
  echo "standard iteration before the fused kernels (bench/results/bubbly_gpu.md, H100, 488 B/unknown model)."
  echo
  echo "| build | size | contrast | iteration | iterations | true rel. residual | setup (s) | solve (s) | ms/it | model ms/it | measured/model | before (ms/it) |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$T"

builds="new:$B"
[ -n "$BASE" ] && builds="$builds base:$BASE"
for bb in $builds; do
  name=${bb%%:*}; dir=${bb#*:}
  for n in $SIZES; do
    N3=$((n * n * n))
    for c in $CONTRASTS; do
      for var in standard pipelined; do
       for wu in $WARM; do
        [ "$name" = base ] && { [ $var = pipelined ] || [ "$wu" != 0 ]; } && continue
        extra=""
        [ $var = pipelined ] && extra="-ksp_dcg_pipelined"
        [ "$wu" != 0 ] && extra="$extra -warmup $wu"
        label=$var
        [ "$wu" != 0 ] && label="$var, warm (-warmup $wu)"
        best=""; bestline=""
        for r in $(seq 1 "$REPS"); do
          log="$O/logs/${name}_${n}_${c}_${var}_w${wu}_$r.log"
          cmd="$dir/examples/bubbly -dim 3 -n $n -geometry bubble8 -contrast $c -ksp_type dcg -ksp_dcg_blocks 8,8,8 -pc_type neumann -pc_neumann_terms 2 $extra $GPU -dm_preallocate_only"
          echo "$cmd" > "$log"
          echo "dcg_latency: $name $n^3 $c $var run $r ($(( $(date +%s) - t0 )) s)" >&2
          timeout "$TMO" $cmd >> "$log" 2>&1
          line=$(grep -m1 '^iterations' "$log")
          [ -n "$line" ] || continue
          pi=$(echo "$line" | sed 's/.*, \([^ ]*\) ms per iteration.*/\1/')
          if [ -z "$best" ] || awk -v a="$pi" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$pi; bestline=$line; fi
        done
        if [ -z "$bestline" ]; then
          echo "| $name | $n^3 | $c | $label | failed: see logs/${name}_${n}_${c}_${var}_w${wu}_*.log |||||||| ${BEFORE[${n}_$c]:--} |" >> "$T"
          continue
        fi
        its=$(echo "$bestline" | awk '{print $2}' | tr -d ,)
        res=$(echo "$bestline" | sed 's/.*residual \([^ ]*\).*/\1/')
        su=$(echo "$bestline" | sed 's/.*(setup \([^ ]*\) s.*/\1/')
        so=$(echo "$bestline" | sed 's/.*, solve \([^ ]*\) s.*/\1/')
        mb=$MODEL_STD; [ $var = pipelined ] && mb=$MODEL_PIPE
        model=$(awk -v b="$mb" -v n="$N3" -v bw="$BW" 'BEGIN { printf "%.4g", b * n / (bw * 1e12) * 1e3 }')
        ratio=$(awk -v m="$model" -v p="$best" 'BEGIN { printf "%.2f", p / m }')
        echo "| $name | $n^3 | $c | $label | $its | $res | $su | $so | $best | $model | $ratio | ${BEFORE[${n}_$c]:--} |" >> "$T"
       done
      done
    done
  done
done

# launch counts per iteration on the GPU (the unit test, GPU vectors and matrices)
if [ -x "$B/tests/petsckp_unit" ]; then
  echo "dcg_latency: launch counts at $LN^3 ($(( $(date +%s) - t0 )) s)" >&2
  {
    echo
    echo "## Kernel launches and host synchronisations per iteration ($LN^3, \`DcgLaunches.PerIteration\`)"
    echo
    echo '```'
    PETSC_OPTIONS="${PETSC_OPTIONS:-} $GPU" timeout 300 "$B/tests/petsckp_unit" --gtest_filter='DcgLaunches.PerIteration' -dcg_launch_n "$LN" 2>&1 | grep -E "space|standard|pipelined|OK|FAILED|Failure|Expected|actual"
    echo '```'
  } >> "$T"
fi

# the kernel summary of one 128^3 solve per iteration variant: GPU time of the kernels against the wall time
if [ "${DCG_LAT_NSYS:-1}" != 0 ] && command -v nsys > /dev/null 2>&1; then
  for var in standard pipelined; do
    extra=""
    [ $var = pipelined ] && extra="-ksp_dcg_pipelined"
    echo "dcg_latency: nsys $var ($(( $(date +%s) - t0 )) s)" >&2
    rep="$O/logs/nsys_$var"
    timeout 180 nsys profile -o "$rep" -f true -t cuda --stats=false "$B/examples/bubbly" -dim 3 -n 128 -geometry bubble8 -contrast 1e-6 -ksp_type dcg -ksp_dcg_blocks 8,8,8 -pc_type neumann -pc_neumann_terms 2 $extra $GPU -dm_preallocate_only > "$O/logs/nsys_$var.log" 2>&1
    {
      echo
      echo "## nsys kernel summary, 128^3, contrast 1e-6, $var ($(grep -m1 '^iterations' "$O/logs/nsys_$var.log"))"
      echo
      echo '```'
      timeout 120 nsys stats -q -r cuda_gpu_kern_sum -f csv "$rep.nsys-rep" 2>/dev/null | head -25
      echo '```'
    } >> "$T"
  done
fi
cat "$T"
echo "dcg_latency: done in $(( $(date +%s) - t0 )) s; table in $T" >&2
