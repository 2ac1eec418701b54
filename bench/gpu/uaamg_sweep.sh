#!/bin/bash
# Where a PCUAAMG application spends its time on the GPU, and which configuration is fastest to a solution (one device
# call, a few minutes). For each problem (examples/poisson, FGMRES + uaamg, rtol 1e-8 on the unpreconditioned residual):
#   1. (first) the default configuration under the Kokkos Tools kernel timer (bench/kernel_timer.cxx: every kernel timed with
#      the device synchronised around it, grouped by the regions PCUAAMGSetUp / PCUAAMGApply) -> logs/<problem>_kernels.txt
#   2. a sweep over the options that trade work per cycle against kernel launches: the fine-level smoother
#      (block_gs, gs, jacobi, chebyshev), the coarsest size, the levels with GCG corrections (kcycle_min_size), the inner
#      GCG steps, the sweeps; wall-clock setup and solve from -print_times (device synchronised), iterations.
#
#   bench/gpu/uaamg_sweep.sh <build dir> <output dir>
# Environment: UAAMG_SWEEP_PROBLEMS (default "2:2048 3:257 3:129", dim:n), UAAMG_SWEEP_TYPES (GPU type options; empty for
# a CPU dry run), UAAMG_SWEEP_TIMEOUT (s per run, default 60), UAAMG_SWEEP_BUDGET (s for the whole sweep, default 480).
# Writes <output dir>/uaamg_sweep.md and the logs.
set -u
B=${1:?usage: uaamg_sweep.sh <build dir> <output dir>}
O=${2:?usage: uaamg_sweep.sh <build dir> <output dir>}
mkdir -p "$O/logs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PETSC_OPTIONS="${PETSC_OPTIONS:--use_gpu_aware_mpi 0}"
GPU=${UAAMG_SWEEP_TYPES-"-vec_type cuda -mat_type aijcusparse -dm_vec_type cuda -dm_mat_type aijcusparse"}
SOLVE="-ksp_type fgmres -pc_type uaamg -ksp_rtol 1e-8 -ksp_norm_type unpreconditioned -ksp_max_it 200 -print_times"
TMO=${UAAMG_SWEEP_TIMEOUT:-60}
BUDGET=${UAAMG_SWEEP_BUDGET:-480}
PROBLEMS=${UAAMG_SWEEP_PROBLEMS:-"2:2048 3:257 3:129"}
TIMER="$B/bench/libkp_kernel_timer.so"
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
T="$O/uaamg_sweep.md"
t0=$(date +%s)

CONFIGS=(
  "default|"
  "fine gs|-pc_uaamg_fine_smoother gs"
  "fine jacobi|-pc_uaamg_fine_smoother jacobi"
  "fine chebyshev|-pc_uaamg_fine_smoother chebyshev"
  "kcycle_min_size 4096|-pc_uaamg_kcycle_min_size 4096"
  "kcycle_min_size 65536|-pc_uaamg_kcycle_min_size 65536"
  "kcycle_min_size 262144|-pc_uaamg_kcycle_min_size 262144"
  "coarse_size 4096|-pc_uaamg_coarse_size 4096"
  "coarse_size 256|-pc_uaamg_coarse_size 256"
  "kcycle_its 1 (V-like)|-pc_uaamg_kcycle_its 1"
  "kcycle_rtol 0|-pc_uaamg_kcycle_rtol 0"
  "cycle v|-pc_uaamg_cycle v"
  "cycle w|-pc_uaamg_cycle w"
  "2+2 sweeps|-pc_uaamg_pre_sweeps 2 -pc_uaamg_post_sweeps 2"
  "coarse csr|-pc_uaamg_coarse_format csr"
  "fine gs, kcycle_min_size 65536|-pc_uaamg_fine_smoother gs -pc_uaamg_kcycle_min_size 65536"
  "fine gs, cycle v|-pc_uaamg_fine_smoother gs -pc_uaamg_cycle v"
)

{
  echo "# PCUAAMG on the GPU: kernel times and a configuration sweep"
  echo
  echo "Device: ${DEVICE:-unknown}. Date: $(date -u +%Y-%m-%d). Script: \`bench/gpu/uaamg_sweep.sh\`. Options: \`$SOLVE $GPU\`."
  echo "Setup / solve: -print_times (wall clock, device synchronised). The kernel tables (the default configuration) are"
  echo "below the sweep: every kernel timed with the device synchronised around it (an upper bound of its cost)."
  echo
  echo "| problem | configuration | iterations | setup (s) | solve (s) | total (s) | solve per iteration (ms) | result |"
  echo "|---|---|---|---|---|---|---|---|"
} > "$T"

K="$O/uaamg_kernels.tmp"
rm -f "$K"
if [ -f "$TIMER" ]; then
  for pr in $PROBLEMS; do
    d=${pr%%:*}; n=${pr#*:}
    k="$O/logs/${d}d_${n}_kernels.txt"
    rm -f "$k"
    # shellcheck disable=SC2086
    KOKKOS_TOOLS_LIBS="$TIMER" KOKKOS_PROFILE_LIBRARY="$TIMER" KP_KERNEL_TIMER_OUT="$k" timeout $((2 * TMO)) "$B/examples/poisson" -dim "$d" -n "$n" $SOLVE $GPU > "$k.log" 2>&1
    {
      echo
      echo "Kernel times, ${d}D ${n}^$d, default configuration ($(grep -m1 '^times' "$k.log")):"
      echo
      echo '```'
      # the 25 most expensive rows of each region
      awk '/^region/ { print; c = 0; next } /^kernel timer/ { print; next } { if (c++ < 26) print }' "$k" 2>/dev/null
      echo '```'
    } >> "$K"
  done
fi

for pr in $PROBLEMS; do
  d=${pr%%:*}; n=${pr#*:}
  for c in "${CONFIGS[@]}"; do
    label=${c%%|*}; opts=${c#*|}
    [ $(( $(date +%s) - t0 )) -gt "$BUDGET" ] && { echo "| ${d}D ${n}^$d | $label | | | | | | not run: budget of $BUDGET s spent |" >> "$T"; break 2; }
    log="$O/logs/${d}d_${n}_$(echo "$label" | tr -c 'a-zA-Z0-9' '_').log"
    # shellcheck disable=SC2086
    timeout "$TMO" "$B/examples/poisson" -dim "$d" -n "$n" $SOLVE $GPU $opts > "$log" 2>&1; rc=$?
    its=$(sed -n 's/^times: .*iterations \([0-9]*\).*/\1/p' "$log" | head -1)
    su=$(sed -n 's/^times: setup \([0-9.e+-]*\) s.*/\1/p' "$log" | head -1)
    so=$(sed -n 's/^times: .*solve \([0-9.e+-]*\) s.*/\1/p' "$log" | head -1)
    tot=$( [ -n "$su" ] && [ -n "$so" ] && awk -v a="$su" -v b="$so" 'BEGIN { printf "%.4g", a + b }')
    per=$( [ -n "$so" ] && [ -n "$its" ] && [ "$its" -gt 0 ] && awk -v s="$so" -v i="$its" 'BEGIN { printf "%.3g", 1000 * s / i }')
    if [ $rc -eq 0 ]; then res=ok; elif [ $rc -eq 124 ]; then res="timeout $TMO s"; else res="rc $rc: $(grep -m1 'PETSC ERROR: [A-Za-z]' "$log" | cut -c1-80)"; fi
    echo "| ${d}D ${n}^$d | $label | ${its:--} | ${su:--} | ${so:--} | ${tot:--} | ${per:--} | $res |" >> "$T"
  done
done

[ -f "$K" ] && cat "$K" >> "$T" && rm -f "$K"
echo "total $(( $(date +%s) - t0 )) s" >> "$T"
cat "$T"
