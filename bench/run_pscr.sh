#!/usr/bin/env bash
# GPU benchmark of PSCR (PCPSCR and its kernels) on the 2D / 3D Poisson problem (Dirichlet, 5/7-point), next to a
# cuFFT periodic Poisson solve of the same grid (same GPU, same process: bench/bench_pscr.cxx) and PETSc's CG + GAMG
# to a relative residual of 1e-10 (examples/pscr, same operator), with the thesis' K40c times (Myllykoski 2015,
# Tables 4.1 and 4.3) side by side.
#
#   bench/run_pscr.sh <build-dir> <output-dir>
#
# 1. kernels: bench_pscr -dim 2 -n 4095 / 8191, -dim 3 -n 255 / 511 (radix 4; radix 2 and 8 at 4095^2 and 255^3):
#    eigen setup (host), apply min / median of 10, relative residual, Mdof/s, modelled traffic, its bandwidth and its
#    fraction of the device-to-device copy bandwidth, cuFFT D2Z + scale + Z2D on (n+1)^dim points, the kernels taken.
#    Then kernel variants (PSCR_BENCH_VARIANTS): rows a thread of the team solvers, the old interleaved tridiagonal
#    path, modes a team, non-uniform meshes with lumped and consistent mass (the general eigen setup).
# PSCR_BENCH_SECTIONS selects sections (default "kernels variants pc denoise"; "kernels variants" fits one device
# call of a few minutes).
# 2. PC end to end: examples/pscr -ksp_type preonly -pc_type pscr with GPU vectors at 4095^2 and 255^3 (PCPSCRSetUp and
#    PCPSCRApply from -log_view: includes the factor detection from the assembled DMDA matrix).
# 3. CG + GAMG to 1e-10 (unpreconditioned residual norm) on the same operator: PCSetUp and KSPSolve from -log_view;
#    every run has a wall-clock limit PSCR_BENCH_TIMEOUT (default 300 s); 8191^2 and 511^3 GAMG only when
#    PSCR_BENCH_LARGE_GAMG=1.
# 4. examples/denoise -print_times at 512^2 and 2048^2 (PSCR_BENCH_DENOISE_SIZES), next to the GPU paper's per-iteration times.
# PSCR_BENCH_TYPES overrides the GPU type options (empty for a CPU dry run); PSCR_BENCH_KERNEL_SIZES / PSCR_BENCH_PC_SIZES
# override the sizes ("2:4095 3:255" ...).
set -u
BUILD=${1:?usage: run_pscr.sh <build-dir> <output-dir>}
OUT=${2:?usage: run_pscr.sh <build-dir> <output-dir>}
mkdir -p "$OUT"
TMO=${PSCR_BENCH_TIMEOUT:-300}
GPU=${PSCR_BENCH_TYPES-"-dm_vec_type cuda -dm_mat_type aijcusparse -vec_type cuda -mat_type aijcusparse -use_gpu_aware_mpi 0"}
KSIZES=${PSCR_BENCH_KERNEL_SIZES:-"2:4095 2:8191 3:255 3:511"}
PSIZES=${PSCR_BENCH_PC_SIZES:-"2:4095 3:255"}
GSIZES=${PSCR_BENCH_GAMG_SIZES:-"2:4095 3:255"}
[ "${PSCR_BENCH_LARGE_GAMG:-0}" = 1 ] && GSIZES="$GSIZES 2:8191 3:511"
MD="$OUT/pscr_gpu.md"
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
DEVICE=${DEVICE:-${DEVICE_NAME:-unknown device (no nvidia-smi)}}
evtime() { awk -v e="$1" '$1 == e { print $4; exit }' "$2"; }
firsterr() { grep -m1 -o "PETSC ERROR: [A-Z][^-].*" "$1" | head -1 | cut -c14-90; }

{
  echo "# PSCR on the GPU: Poisson 2D / 3D (Dirichlet), against cuFFT and CG + GAMG"
  echo
  echo "Device: $DEVICE, 1 MPI rank. Date: $(date -u +%Y-%m-%d). Commands and logs in this directory."
  echo
  echo "## 1. PSCR kernels (bench_pscr) and cuFFT periodic Poisson of the same grid"
  echo
  echo "setup = host eigen setup (s); apply = one PSCR application (ms, min / median of 10, device synchronised);"
  echo "residual = ||f - A u|| / ||f|| / normwise backward error ||f - A u|| / (||A||_inf ||u||); traffic = modelled global-memory"
  echo "traffic of one application of the kernels taken (pscr::ModelBytes: every kernel's reads and writes of the data, the"
  echo "stored solutions and the work vectors once), BW = traffic / apply min and its fraction of the measured device-to-device"
  echo "copy bandwidth; cuFFT = D2Z + eigenvalue scaling + Z2D on (n+1)^dim points (ms, min / median); ratio = PSCR apply /"
  echo "cuFFT (min); kernels = the level kernels of the last reduced dimension (fused: solutions never stored)."
  echo
  echo "| dim | n | radix | levels | problem | setup (s) | apply min (ms) | apply median (ms) | residual | Mdof/s | traffic (GB) | BW model (GB/s) | copy BW (GB/s) | fraction | cuFFT (ms) | PSCR / cuFFT | kernels |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$MD"
SECTIONS=${PSCR_BENCH_SECTIONS:-"kernels variants pc denoise"}
has() { echo " $SECTIONS " | grep -q " $1 "; }
kbench() { # <dim> <n> <radix> [bench_pscr options]
  local d=$1 n=$2 q=$3; shift 3
  local tag; tag=$(echo "$*" | tr -c 'a-z0-9\n' '_' | tr -s '_')
  local LOG="$OUT/bench_pscr_${d}d_${n}_q${q}${tag:+_$tag}.log"
  local CMD="$BUILD/bench/bench_pscr -dim $d -n $n -radix $q -reps 10 -o $MD $*"
  echo "$CMD" > "$LOG"
  timeout "$TMO" $CMD >> "$LOG" 2>&1 || echo "| ${d}D | $n | $q | failed (rc $?): $* $(tail -1 "$LOG" | cut -c1-80) |" >> "$MD"
}
if has kernels; then
  for s in $KSIZES; do
    d=${s%%:*}; n=${s##*:}
    radices="4"
    { [ "$s" = "2:4095" ] || [ "$s" = "3:255" ]; } && radices="2 4 8"
    for q in $radices; do kbench "$d" "$n" "$q"; done
  done
fi
if has variants; then
  { echo; echo "Kernel variants (same columns; the options in the problem column):"; echo; } >> "$MD"
  echo "| dim | n | radix | levels | problem | setup (s) | apply min (ms) | apply median (ms) | residual | Mdof/s | traffic (GB) | BW model (GB/s) | copy BW (GB/s) | fraction | cuFFT (ms) | PSCR / cuFFT | kernels |" >> "$MD"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|" >> "$MD"
  echo "${PSCR_BENCH_VARIANTS:-2:4095:-tridiag_rows,16 2:4095:-tridiag,partition 2:4095:-mesh,random 2:4095:-mesh,random,-mass,consistent 2:2047: 2:2047:-team,0 3:255:-team_rows,4 3:255:-team_rows,2 3:255:-team,0 3:255:-team_modes,4 3:255:-mesh,random,-mass,consistent 3:511:-team_rows,4}" | tr ' ' '\n' | while IFS=: read -r d n opts; do
    [ -n "$d" ] && kbench "$d" "$n" 4 $(echo "$opts" | tr ',' ' ')
  done
fi
has pc || has denoise || { echo "wrote $MD"; exit 0; }

has pc && {
  echo
  echo "## 2. PCPSCR end to end and 3. CG + GAMG to 1e-10 (examples/pscr, same operator, GPU vectors and matrices)"
  echo
  echo "| dim | n | PCPSCR setup (s) | PCPSCR apply (s) | PSCR residual / backward error | GAMG PCSetUp (s) | GAMG KSPSolve (s) | GAMG iterations | GAMG / PSCR (setup + solve) |"
  echo "|---|---|---|---|---|---|---|---|---|"
} >> "$MD"
has pc && for s in $(echo "$PSIZES $GSIZES" | tr ' ' '\n' | sort -u); do
  d=${s%%:*}; n=${s##*:}
  L1="$OUT/pc_pscr_${d}d_$n.log"; L2="$OUT/gamg_${d}d_$n.log"
  su="-"; ap="-"; rr="-"; gsu="-"; gso="-"; git="-"; ratio="-"
  if echo " $PSIZES " | grep -q " $s "; then
    CMD="$BUILD/examples/pscr -dim $d -n $n -ksp_type preonly -pc_type pscr -print_residual -log_view -log_view_gpu_time $GPU"
    echo "$CMD" > "$L1"
    if timeout "$TMO" $CMD >> "$L1" 2>&1; then
      su=$(evtime PCPSCRSetUp "$L1"); ap=$(evtime PCPSCRApply "$L1"); rr=$(sed -n 's/^relative residual \([^,]*\), normwise backward error \([^,]*\),.*/\1 \/ \2/p' "$L1" | head -1)
    else su="failed: $(firsterr "$L1")"; fi
  fi
  if echo " $GSIZES " | grep -q " $s "; then
    CMD="$BUILD/examples/pscr -dim $d -n $n -ksp_type cg -pc_type gamg -ksp_rtol 1e-10 -ksp_norm_type unpreconditioned -ksp_max_it 1000 -log_view -log_view_gpu_time $GPU"
    echo "$CMD" > "$L2"
    if timeout "$TMO" $CMD >> "$L2" 2>&1; then
      gsu=$(evtime PCSetUp "$L2"); gso=$(evtime KSPSolve "$L2"); git=$(grep -o "[0-9]* iterations" "$L2" | awk '{print $1}')
      ratio=$(awk -v a="$gsu" -v b="$gso" -v c="$su" -v e="$ap" 'BEGIN { if (c + e > 0 && a + b > 0) printf "%.1f", (a + b) / (c + e); else print "-" }')
    else gsu="failed or timed out (rc $?): $(firsterr "$L2")"; fi
  fi
  echo "| ${d}D | $n | $su | $ap | $rr | $gsu | $gso | $git | $ratio |" >> "$MD"
done

has denoise || { echo "wrote $MD"; exit 0; }
{
  echo
  echo "## 4. L1-mean-curvature denoising (examples/denoise, synthetic shapes image, uniform noise sigma 0.1, r0 0.005, h 0.005)"
  echo
  echo "| image | ADMM iterations | PSNR noisy -> denoised (dB) | time (s) | per iteration (s) | subproblem 1 | 2 (CG) | 3 | 4 (PSCR) | multipliers + L |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} >> "$MD"
for n in ${PSCR_BENCH_DENOISE_SIZES:-512 2048}; do
  LOG="$OUT/denoise_$n.log"
  CMD="$BUILD/examples/denoise -size $n -noise 0.1 -r0 0.005 -print_times -o $OUT/denoise_$n.png -o_noisy $OUT/denoise_${n}_noisy.png $GPU"
  echo "$CMD" > "$LOG"
  if timeout "$TMO" $CMD >> "$LOG" 2>&1; then
    its=$(grep -o "ADMM iterations [0-9]*" "$LOG" | awk '{print $3}')
    ps=$(sed -n 's/.*PSNR noisy \([0-9.]*\) dB, denoised \([0-9.]*\) dB.*/\1 -> \2/p' "$LOG")
    tl=$(grep "^time" "$LOG")
    tt=$(echo "$tl" | awk '{print $2}'); tp=$(echo "$tl" | awk '{print $6}')
    s1=$(echo "$tl" | sed -n 's/.*subproblem 1 \([0-9.]*\),.*/\1/p'); s2=$(echo "$tl" | sed -n 's/.*2 (CG) \([0-9.]*\),.*/\1/p')
    s3=$(echo "$tl" | sed -n 's/.*, 3 \([0-9.]*\),.*/\1/p'); s4=$(echo "$tl" | sed -n 's/.*pscr) \([0-9.]*\),.*/\1/p'); s5=$(echo "$tl" | sed -n 's/.*Lagrangian \([0-9.]*\).*/\1/p')
    echo "| ${n}^2 | $its | $ps | $tt | $tp | $s1 | $s2 | $s3 | $s4 | $s5 |" >> "$MD"
  else echo "| ${n}^2 | failed or timed out: $(firsterr "$LOG") |" >> "$MD"; fi
done
{
  echo
  echo "Paper (Myllykoski et al., WSCG 2015, Tables 1-3; Mercado, sigma 0.1, r0 0.005): 512^2 205 iterations, K40c 0.0274 s per"
  echo "iteration (subproblem 4: 0.0037 s), CPU 0.678 s; 2048^2 205 iterations, K40c 0.3721 s per iteration (subproblem 4:"
  echo "0.0721 s), CPU 10.66 s."
} >> "$MD"

{
  echo
  echo "## Thesis (Myllykoski 2015, Tables 4.1 and 4.3): solve time (s) without transfers, double precision"
  echo
  echo "| problem | n | CPU (1 core, Xeon E5-2630 v2) | GTX580 | K40c | K40c cuFFT (2D) |"
  echo "|---|---|---|---|---|---|"
  echo "| 2D Poisson | 4095 | 2.9455 | 0.3384 | 0.2454 | 0.1619 |"
  echo "| 2D Poisson | 8191 | 13.991 | - | 1.2558 | - |"
  echo "| 3D Poisson | 255 | 10.977 | 0.8434 | 0.6665 | - |"
  echo "| 3D Poisson | 361 | 47.380 | - | 3.3248 | - |"
  echo
  echo "Goal (issue): 2D 4095^2 within 1.5x of cuFFT's periodic Poisson solve, 3D 255^3 within 2x (column PSCR / cuFFT)."
} >> "$MD"
echo "wrote $MD"
