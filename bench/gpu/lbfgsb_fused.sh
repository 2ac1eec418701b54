#!/bin/bash
# Cost per iteration of TAO lbfgsb on bounded problems against unbounded ones (one device call, 3 to 6 minutes per
# build with the defaults, plus an incremental build): the goal is bounded <= 1.2x unbounded per iteration at 1M and
# 16.8M variables. For every build given (this one, and optionally a baseline build, e.g. main before the fused
# passes), same GPU:
#   - examples/minpack2 at n x n for n in LBFGSB_FUSED_SIZES (default "1024 4096"), m = 8, each run capped at
#     LBFGSB_FUSED_ITS iterations (default 400; -require_convergence 0) and LBFGSB_FUSED_TLIM s of TaoSolve, stopping
#     test ||P(x - g) - x||_inf <= 1e-6 (-pg_stop, lbfgsb's factr test off):
#       dsscfg        unbounded (cuLBFGSB's problem), the reference cost per iteration;
#       dsscfg_box    the same with the box [-LBFGSB_FUSED_BOX, LBFGSB_FUSED_BOX] (default 0.05: binding; at 0.5 the
#                     bounds are present but inactive at the solution);
#       ssc           MINPACK-2 steady-state combustion, lambda 5, box [-1, 1];
#       pjb           MINPACK-2 journal bearing (bounded below by 0);
#     solver-only ms/iteration = (TaoSolve - f/g time) / iterations from the example's SUMMARY line, and the ratio to
#     the unbounded dsscfg of the same build and size; the Cauchy scan and subspace statistics from -tao_view;
#   - the kernel launches and host synchronisations per iteration counted by the unit test LbfgsbLaunches.PerIteration
#     (Kokkos profiling callbacks and PETSc's Vec events) at 1M variables on GPU vectors.
#
#   bench/gpu/lbfgsb_fused.sh [<build dir> [<output dir> [<baseline build dir>]]]
# Run from the repository root. Defaults: build dir build-gpu (tools/build-gpu-stack.sh's), configured and built here
# (targets minpack2 and petsckp_unit only) against the stack of .gpu/stack/env.sh when PETSC_DIR is not set; output
# dir $OUT/lbfgsb_fused (or /tmp/lbfgsb_fused without $OUT). Writes <output dir>/lbfgsb_fused.md and the logs, and
# prints the table on stdout (progress on stderr).
# Environment: LBFGSB_FUSED_SIZES, LBFGSB_FUSED_ITS, LBFGSB_FUSED_TLIM (default 30), LBFGSB_FUSED_BOX,
# LBFGSB_FUSED_TYPES (GPU type options; empty for a dry run on a CPU), LBFGSB_FUSED_BUILD (0: use the build as it is),
# LBFGSB_FUSED_BW (bytes/s of the traffic model's column, default 2.9e12), LBFGSB_FUSED_LAUNCH_N (variables of the
# launch counts, default 1048576), LBFGSB_FUSED_WARMUP (default 5: iterations of an untimed solve in the same process before the timed one, so that no row
# pays for first launches, lazy module loading or device-library start-up; minpack2's -warmup).
set -u
B=${1:-build-gpu}
O=${2:-${OUT:-/tmp}/lbfgsb_fused}
BASE=${3:-}
mkdir -p "$O/logs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
GPU=${LBFGSB_FUSED_TYPES-"-dm_vec_type cuda -vec_type cuda -dm_mat_type aijcusparse -mat_type aijcusparse -use_gpu_aware_mpi 0"}
SIZES=${LBFGSB_FUSED_SIZES:-"1024 4096"}
ITS=${LBFGSB_FUSED_ITS:-400}
TLIM=${LBFGSB_FUSED_TLIM:-30}
BOX=${LBFGSB_FUSED_BOX:-0.05}
WARMUP=${LBFGSB_FUSED_WARMUP:-5}
BW=${LBFGSB_FUSED_BW:-2.9e12}
LN=${LBFGSB_FUSED_LAUNCH_N:-1048576}
t0=$(date +%s)

# the GPU stack of tools/build-gpu-stack.sh (PETSC_DIR, PETSC_ARCH, Kokkos_ROOT, GTest_ROOT, PATH, LD_LIBRARY_PATH)
if [ -z "${PETSC_DIR:-}" ] && [ -f .gpu/stack/env.sh ]; then
  # shellcheck disable=SC1091
  . .gpu/stack/env.sh
fi
if [ "${LBFGSB_FUSED_BUILD:-1}" != 0 ]; then
  if [ ! -f "$B/CMakeCache.txt" ]; then
    [ -n "${PETSC_DIR:-}" ] || { echo "lbfgsb_fused: no $B/CMakeCache.txt and no PETSC_DIR (build the stack with tools/build-gpu-stack.sh)" >&2; exit 1; }
    KR=${Kokkos_ROOT:-$PETSC_DIR/$PETSC_ARCH}
    KARGS=()
    [ -n "${Kokkos_ROOT:-}" ] && KARGS=("-DKokkos_ROOT=$Kokkos_ROOT")
    cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$KR/bin/nvcc_wrapper" ${KARGS[@]+"${KARGS[@]}"} \
      -DGTest_ROOT="${GTest_ROOT:-}" > "$O/build.log" 2>&1 || { tail -20 "$O/build.log" >&2; exit 1; }
  fi
  cmake --build "$B" --target minpack2 -j "$(nproc)" >> "$O/build.log" 2>&1 || { grep -E "error" -A3 "$O/build.log" | head -40 >&2; exit 1; }
  cmake --build "$B" --target petsckp_unit -j "$(nproc)" >> "$O/build.log" 2>&1 || echo "lbfgsb_fused: petsckp_unit not built (no GoogleTest?): no launch counts" >&2
  echo "lbfgsb_fused: build $(( $(date +%s) - t0 )) s" >&2
fi
[ -x "$B/examples/minpack2" ] || { echo "lbfgsb_fused: no $B/examples/minpack2" >&2; exit 1; }
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
T="$O/lbfgsb_fused.md"
COMMON="-tao_lbfgsb_m 8 -tao_lbfgsb_factr 0 -pg_stop 1e-6 -time_limit $TLIM -tao_max_it $ITS -require_convergence 0 -check 0 -summary -tao_view -warmup $WARMUP"

{
  echo "# TAO lbfgsb: bounded against unbounded cost per iteration"
  echo
  echo "Device: ${DEVICE:-unknown}. Date: $(date -u +%Y-%m-%d). Script: \`bench/gpu/lbfgsb_fused.sh\`. Options: \`$COMMON $GPU\`."
  echo
  echo "Earlier figures (bench/results/lbfgsb_gpu.md, H100, before the fused passes): pjb 1024^2 1.37 ms/it solver-only"
  echo "(1.5-2.5 ms/it over runs), ssc 512^2 1.02 ms/it, against 0.555 ms/it for the unbounded dsscfg at 1024^2 and 4.49 at 4096^2."
  echo "Last run before the end pass and the described Cauchy point (bench/results/lbfgsb_fused_gpu.md, H100, no warm-up):"
  echo "4096^2 solver-only ms/it dsscfg 4.18, dsscfg_box 6.48 (1.55x), ssc 7.52 (1.80x), pjb 6.96 (1.66x); 1024^2 dsscfg_box 0.99,"
  echo "ssc 0.98, pjb 1.07 (the dsscfg row, 3.04, held the program's start-up); at 1M variables bounded 21 kernels and 114"
  echo "host synchronisations counted per iteration, unbounded 6 and 38 (most of them the fences Kokkos adds around every"
  echo "kernel while a profiling tool is attached, no longer counted)."
  echo
  echo "model ms/it: the memory-traffic model of LbfgsbLaunches (bytes per variable and iteration, bounded or unbounded,"
  echo "at m = 8, no breakpoint passed) times n^2 over LBFGSB_FUSED_BW = ${BW} B/s (the copy bandwidth of bench_spmv on"
  echo "the H100 at 256^3, bench/results/kokkos_types_gpu.md)."
  echo
  echo "| build | problem | n | iterations | f/g evals | TaoSolve s | f/g s | solver-only ms/it | model ms/it | ratio to dsscfg | f | pg_inf | reason | scans past the 1st breakpoint | backtracks |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$T"

builds="new:$B"
[ -n "$BASE" ] && builds="$builds base:$BASE"
for bb in $builds; do
  name=${bb%%:*}; dir=${bb#*:}
  # the launch counts and the traffic model first (the model's bytes per variable go into the rows); the log has every
  # kernel, copy and fence label of the four solves
  llog="$O/logs/${name}_launches.log"
  mb=""; mu=""
  if [ -x "$dir/tests/petsckp_unit" ]; then
    echo "lbfgsb_fused: $name launch counts ($(( $(date +%s) - t0 )) s)" >&2
    PETSC_OPTIONS="${GPU}" PETSCKP_LAUNCH_LABELS=1 timeout 300 "$dir/tests/petsckp_unit" --gtest_filter='LbfgsbLaunches*' -lbfgsb_launch_n "$LN" > "$llog" 2>&1
    if grep -q "model" "$llog"; then
      mb=$(awk '/^  bounded /{print $NF}' "$llog" | head -1)
      mu=$(awk '/^  unbounded /{print $NF}' "$llog" | head -1)
    fi
  fi
  for n in $SIZES; do
    ref=""
    for prob in dsscfg dsscfg_box ssc pjb; do
      args="-problem $prob"
      [ $prob = dsscfg_box ] && args="-problem dsscfg -box $BOX"
      log="$O/logs/${name}_${prob}_${n}.log"
      cmd="$dir/examples/minpack2 $args -nx $n -ny $n $COMMON $GPU"
      echo "$cmd" > "$log"
      echo "lbfgsb_fused: $name $prob $n^2 ($(( $(date +%s) - t0 )) s)" >&2
      timeout $((TLIM + 120)) $cmd >> "$log" 2>&1
      line=$(grep -m1 '^SUMMARY' "$log")
      if [ -z "$line" ]; then
        echo "| $name | $prob | $n^2 | failed: see logs/$(basename "$log") ||||||||||||" >> "$T"
        continue
      fi
      get() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
      ms=$(get solver_ms_per_it)
      [ $prob = dsscfg ] && ref=$ms
      ratio=$(python3 -c "print('%.2f' % ($ms / $ref) if '$ref' else '-')" 2>/dev/null)
      bpv=$mb
      [ $prob = dsscfg ] && bpv=$mu
      model=$(python3 -c "print('%.3f' % ($bpv * $n * $n / $BW * 1e3) if '$bpv' else '-')" 2>/dev/null)
      scans=$(sed -n 's/.*Cauchy points past the first breakpoint: \([0-9]*\).*/\1/p' "$log" | head -1)
      bt=$(sed -n 's/.*subspace steps: [0-9]* projected, \([0-9]*\) backtracked.*/\1/p' "$log" | head -1)
      echo "| $name | $prob | $n^2 | $(get its) | $(get fg) | $(get solve_s) | $(get fg_s) | $ms | ${model:--} | $ratio | $(get f) | $(get pginf) | $(get reason) | ${scans:--} | ${bt:--} |" >> "$T"
    done
  done
  if [ -f "$llog" ]; then
    {
      echo
      echo "Launches and host synchronisations per iteration ($name, LbfgsbLaunches.PerIteration, 1M variables, m = 8; every label in logs/$(basename "$llog")):"
      echo
      echo '```'
      grep -E "^  problem|^  bounded|^  unbounded|^  model|Failure|FAILED|PASSED" "$llog"
      echo '```'
    } >> "$T"
  fi
done
echo "lbfgsb_fused: wrote $T, $(( $(date +%s) - t0 )) s" >&2
cat "$T"
