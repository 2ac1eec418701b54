#!/usr/bin/env bash
# GPU benchmark of the constrained level-set segmentation (examples/segmentation: one upper-obstacle LCP per time step,
# solved by -ksp_type richardson -pc_type psormg) at the image sizes of Klement and Oberhuber's Tables I/II, next to
# the paper's times (GTX 480, one Core2 Duo core, 12-core Opteron with OpenMP).
#
#   bench/run_segmentation.sh <build-dir> <output-dir> [sizes...]      (default sizes: 256 512 1024)
#
# Every run: the synthetic disc-and-square image, 20 steps of tau = 0.02 (T = 0.4 in the domain units of the model,
# the same evolution at every size), the edge detector's presmoothing width fixed in domain units (-sigma_domain
# 1/256, i.e. 1, 2, 4 pixels at 256, 512, 1024: with a width fixed in pixels the per-pixel noise makes g ~ h^2, the
# curve stalls and the coefficient field roughens, which is what made 512^2 and 1024^2 fail and need 87-198 cycles
# per step; see examples/segmentation -help), LCP tolerance -ksp_rtol 1e-6, constraints/complementarity checked after the last step only (no host copies
# in the time loop), segmentation checked against the known shapes (Jaccard >= 0.95). The paper does not give its
# Cycles per step (CPU, Kokkos Serial, this setting), mean / max: monotone restriction 256^2 26.3 / 31, 512^2 44.0 / 82,
# 1024^2 61.6 / 89; truncated monotone multigrid (-pc_psormg_obstacle_restriction truncated) 26.3 / 31, 25.0 / 29, 32.1 / 40. Jaccard 0.998 at every
# size. With the monotone restriction the cycles grew once the contour reaches the seeds (about step 9 of 20): a few
# dozen points are active, and the coarse upper bound (min of the fine gaps over the support of P) forbids an upward
# coarse correction on every coarse point above an active one on every level (rate ~0.86 per cycle with a stable
# active set); the truncated coarse functions leave the active points out of those supports.
# SEG_RESTRICTIONS lists the obstacle restrictions run per size (default "truncated monotone"), one row each.
# The paper does not give its number of time steps, tolerance or images, so its times are quoted as published, not as a like-for-like target.
# Wall-clock limit per run: SEG_BENCH_TIMEOUT (default 100 s); the whole script stays under 3 minutes.
set -u
# SEG_BENCH_TYPES overrides the GPU type options (e.g. empty for a CPU dry run)
BUILD=${1:?usage: run_segmentation.sh <build-dir> <output-dir> [sizes...]}
OUT=${2:?usage: run_segmentation.sh <build-dir> <output-dir> [sizes...]}
shift 2
SIZES=${*:-256 512 1024}
TMO=${SEG_BENCH_TIMEOUT:-100}
RESTR=${SEG_RESTRICTIONS:-truncated monotone}
mkdir -p "$OUT"
GPU=${SEG_BENCH_TYPES-"-dm_vec_type cuda -dm_mat_type aijcusparse -use_gpu_aware_mpi 0"}
EXE="$BUILD/examples/segmentation"
TABLE="$OUT/segmentation.md"
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
DEVICE=${DEVICE:-unknown device}

# the paper's Table I (GTX 480 and one Core2 Duo core) and Table II (12-core Opteron, OpenMP), seconds
paper_gpu() { case $1 in 256) echo 2.6 ;; 512) echo 25 ;; 1024) echo 267 ;; *) echo "" ;; esac; }
paper_cpu() { case $1 in 256) echo 25.3 ;; 512) echo 368 ;; 1024) echo 5431 ;; *) echo "" ;; esac; }
paper_omp() { case $1 in 256) echo 6.4 ;; 512) echo 61 ;; 1024) echo 935 ;; *) echo "" ;; esac; }

{
  echo "# Constrained level-set segmentation with PCPSORMG vs Klement and Oberhuber, Tables I/II"
  echo
  echo "Device: $DEVICE. Date: $(date -u +%Y-%m-%d). Our times: whole time loop (assembly of A and b on the host with"
  echo "MatSetValuesCOO, LCP solves with richardson + psormg including the hierarchy setup of the first step), seconds."
  echo "Paper: GTX 480 / one Core2 Duo core (Table I) and 12-core Opteron with OpenMP (Table II), whole computation, unknown"
  echo "number of time steps and tolerance."
  echo
  echo "Edge detector presmoothing: 1/256 of the image side (-sigma_domain 0.00390625)."
  echo
  echo "| image | restriction | steps x tau | total (s) | assembly (s) | LCP solves (s) | psormg cycles per step (mean / max) | Jaccard | paper GTX 480 (s) | paper 1 core (s) | paper 12-core OpenMP (s) | vs paper GPU |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$TABLE"

for N in $SIZES; do
  for R in $RESTR; do
  LOG="$OUT/segmentation_${N}_$R.log"
  CMD="$EXE -n $N -sigma_domain 0.00390625 -tau 2e-2 -steps 20 -ksp_rtol 1e-6 -max_cycles 3000 -check_every_step false -verbose -pc_psormg_obstacle_restriction $R $GPU"
  echo "$CMD" > "$LOG"
  timeout "$TMO" $CMD >> "$LOG" 2>&1; rc=$?
  tot=$(grep -o "time: total [0-9.e+-]*" "$LOG" | awk '{print $3}')
  asm=$(grep -o "assembly [0-9.e+-]*" "$LOG" | awk '{print $2}')
  sol=$(grep -o "LCP solves [0-9.e+-]*" "$LOG" | awk '{print $3}')
  cyc=$(grep -o "cycles per step: mean [0-9.]*, max [0-9]*" "$LOG" | awk '{gsub(",", "", $5); print $5 " / " $7}')
  jac=$(grep -o "Jaccard index [0-9.]*" "$LOG" | awk '{print $3}')
  [ $rc -eq 124 ] && tot="timeout ${TMO}s"
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && tot="failed (rc $rc, see log)"
  pg=$(paper_gpu "$N"); pc=$(paper_cpu "$N"); po=$(paper_omp "$N")
  sp=""
  if [ -n "$pg" ] && [ $rc -eq 0 ] && [ -n "$tot" ]; then sp=$(awk -v a="$pg" -v b="$tot" 'BEGIN { if (b > 0) printf "%.1fx", a / b }'); fi
  echo "| ${N}^2 | $R | 20 x 0.02 | ${tot:-failed} | ${asm:-} | ${sol:-} | ${cyc:-} | ${jac:-} | ${pg:-n/a} | ${pc:-n/a} | ${po:-n/a} | ${sp} |" >> "$TABLE"
  done
done
{
  echo
  echo "Commands (one per log file in this directory):"
  echo
  for f in "$OUT"/segmentation_*.log; do [ -f "$f" ] && echo "    $(head -1 "$f")"; done
} >> "$TABLE"
cat "$TABLE"
