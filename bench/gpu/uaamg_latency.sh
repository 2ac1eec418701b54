#!/bin/bash
# Latency of PCUAAMG's preconditioner application on the GPU (one device call, a few minutes): a small multigrid
# application is bound by kernel launches and host synchronisations, not by bandwidth. For 3D Poisson 129^3 and 257^3
# and 2D Poisson 2048^2 (examples/poisson, FGMRES + uaamg, rtol 1e-8 on the unpreconditioned residual), with the
# default K-cycle and with the paper's K-cycle without early exit (-pc_uaamg_kcycle_rtol 0):
#   - wall-clock setup and solve of -print_times (device synchronised), in a run without -log_view;
#   - a second run with -log_view -log_view_gpu_time: PCApply and KSPSolve (count, time, GpuToCpu copies);
#   - the kernel launches and host synchronisations of one application, counted by the unit test
#     UAAMGLaunches.PerApplication (Kokkos profiling callbacks and PETSc's vector events) at 2048^2 and 129^3;
#   - with UAAMG_LATENCY_NSYS=1 and nsys on the PATH, nsys's CUDA API summary of the 129^3 solve (cudaLaunchKernel,
#     cudaStreamSynchronize, cudaMemcpyAsync counts: every launch, PETSc's included).
# With a second build directory (e.g. the main branch before this work) every run is repeated with it, same GPU.
#
#   bench/gpu/uaamg_latency.sh <build dir> <output dir> [<baseline build dir>]
# Environment: UAAMG_LATENCY_PROBLEMS (default "3:129 3:257 2:2048", dim:n), UAAMG_LATENCY_TYPES (GPU type options;
# empty for a dry run on a CPU), UAAMG_LATENCY_TIMEOUT (s per run,
# default 90), UAAMG_LATENCY_NSYS (1: nsys summary). Writes <output dir>/uaamg_latency.md and the logs.
set -u
B=${1:?usage: uaamg_latency.sh <build dir> <output dir> [<baseline build dir>]}
O=${2:?usage: uaamg_latency.sh <build dir> <output dir> [<baseline build dir>]}
BASE=${3:-}
mkdir -p "$O/logs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PETSC_OPTIONS="-use_gpu_aware_mpi 0"
GPU=${UAAMG_LATENCY_TYPES-"-vec_type cuda -mat_type aijcusparse"}
SOLVE="-ksp_type fgmres -pc_type uaamg -ksp_rtol 1e-8 -ksp_norm_type unpreconditioned -ksp_max_it 500 -print_times"
TMO=${UAAMG_LATENCY_TIMEOUT:-90}
PROBLEMS=${UAAMG_LATENCY_PROBLEMS:-"3:129 3:257 2:2048"}
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
T="$O/uaamg_latency.md"
t0=$(date +%s)

# fields of a -log_view event line: count, max time (s), GpuToCpu count (third from the end when GPU columns are there)
evline() { awk -v e="$1" '$1 == e { print $2, $4, (NF >= 25 ? $(NF-2) : "-"); exit }' "$2"; }

{
  echo "# PCUAAMG application latency on the GPU"
  echo
  echo "Device: ${DEVICE:-unknown}. Date: $(date -u +%Y-%m-%d). Script: \`bench/gpu/uaamg_latency.sh\`. Options: \`$SOLVE $GPU\`."
  echo "setup/solve: -print_times of a run without -log_view (wall clock, device synchronised); PCApply/KSPSolve: a second"
  echo "run with -log_view -log_view_gpu_time (count, max time in s, GpuToCpu copies)."
  echo
  echo "| build | problem | K-cycle | iterations | setup (s) | solve (s) | solve per iteration (ms) | PCApply count / s / GpuToCpu | KSPSolve s | result |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} > "$T"

builds="new:$B"
[ -n "$BASE" ] && builds="$builds base:$BASE"
for bb in $builds; do
  name=${bb%%:*}; dir=${bb#*:}
  for pr in $PROBLEMS; do
    d=${pr%%:*}; n=${pr#*:}
    for kc in default rtol0; do
      extra=""; [ $kc = rtol0 ] && extra="-pc_uaamg_kcycle_rtol 0"
      log="$O/logs/${name}_${d}d_${n}_${kc}"
      cmd="$dir/examples/poisson -dim $d -n $n $SOLVE $GPU $extra"
      echo "$cmd" > "$log.times.log"
      timeout "$TMO" $cmd >> "$log.times.log" 2>&1; rc=$?
      echo "$cmd -log_view -log_view_gpu_time" > "$log.logview.log"
      timeout "$TMO" $cmd -log_view -log_view_gpu_time >> "$log.logview.log" 2>&1
      its=$(sed -n 's/^times: .*iterations \([0-9]*\).*/\1/p' "$log.times.log" | head -1)
      su=$(sed -n 's/^times: setup \([0-9.e+-]*\) s.*/\1/p' "$log.times.log" | head -1)
      so=$(sed -n 's/^times: .*solve \([0-9.e+-]*\) s.*/\1/p' "$log.times.log" | head -1)
      per=$( [ -n "$so" ] && [ -n "$its" ] && [ "$its" -gt 0 ] && awk -v s="$so" -v i="$its" 'BEGIN { printf "%.3g", 1000 * s / i }')
      pa=$(evline PCApply "$log.logview.log" | awk '{ printf "%s / %s / %s", $1, $2, $3 }')
      ks=$(evline KSPSolve "$log.logview.log" | awk '{ print $2 }')
      if [ $rc -eq 0 ]; then res=ok; elif [ $rc -eq 124 ]; then res="timeout $TMO s"; else res="rc $rc"; fi
      echo "| $name | ${d}D ${n}^$d | $kc | ${its:--} | ${su:--} | ${so:--} | ${per:--} | ${pa:--} | ${ks:--} | $res |" >> "$T"
      echo "$name ${d}D n=$n $kc: its ${its:--} setup ${su:--} solve ${so:--} ($res)"
    done
  done
done

# launches and host synchronisations per application (Kokkos callbacks, PETSc's vector events)
for bb in $builds; do
  name=${bb%%:*}; dir=${bb#*:}
  [ -x "$dir/tests/petsckp_unit" ] || continue
  log="$O/logs/${name}_launch_counts.log"
  PETSC_OPTIONS="-use_gpu_aware_mpi 0" timeout 240 "$dir/tests/petsckp_unit" --gtest_filter='UAAMGLaunches*' -uaamg_launch_n2d 2048 -uaamg_launch_n3d 129 > "$log" 2>&1
  grep -q "^  problem" "$log" || continue # a build without the test
  {
    echo
    echo "Kernel launches and host synchronisations per application ($name build; unit test UAAMGLaunches.PerApplication):"
    echo
    echo '```'
    grep -E "^  " "$log"
    grep -E "^\[  (PASSED|FAILED)" "$log"
    echo '```'
  } >> "$T"
done

# every CUDA launch and synchronisation of one solve (nsys), optional
if [ "${UAAMG_LATENCY_NSYS:-0}" = 1 ] && command -v nsys > /dev/null; then
  for bb in $builds; do
    name=${bb%%:*}; dir=${bb#*:}
    rep="$O/logs/${name}_nsys_3d_129"
    timeout 240 nsys profile -o "$rep" --force-overwrite true -t cuda "$dir/examples/poisson" -dim 3 -n 129 $SOLVE $GPU > "$rep.log" 2>&1
    nsys stats --report cuda_api_sum --format csv "$rep.nsys-rep" > "$rep.api.csv" 2>/dev/null
    {
      echo
      echo "nsys CUDA API calls of the 3D 129^3 run ($name build, setup and solve):"
      echo
      echo '```'
      grep -E "cudaLaunchKernel|cudaStreamSynchronize|cudaDeviceSynchronize|cudaMemcpyAsync|cudaEventSynchronize|cudaMemcpy\b" "$rep.api.csv" | cut -d, -f2-3,9
      echo '```'
    } >> "$T"
  done
fi
echo "total $(( $(date +%s) - t0 )) s"
cat "$T"
