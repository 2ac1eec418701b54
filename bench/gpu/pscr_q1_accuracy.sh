#!/bin/bash
# PCPSCR on the GPU: the Q1 (9/27-point box) factor detection and the accuracy of one application (one device call,
# a few minutes):
#   1. the unit tests of the detection kernels and the accuracy test on the device (PSCR.Detect*, PSCR.SeparableFromLines,
#      PSCR.AccuracyRandomRhs, PSCR.SingularTridiagonalMass);
#   2. bench_pscr with a random right-hand side (-rhs random, uniform in [0, 1), as VecSetRandom) next to its default
#      zero-mean sawtooth, 2D 1023^2 / 2047^2 / 4095^2 and 3D 255^3: relative residual / normwise backward error
#      against eps kappa(A) (kappa = cot^2(pi / (2 (n + 1)))): the end-to-end residual of examples/pscr at 4095^2
#      above 1e-10 is this conditioning, not a defect;
#   3. examples/pscr end to end with -print_residual: the 5-point operator at 4095^2 and the Q1 operator (detected
#      9-point box) at 2047^2 and 4095^2, the 27-point Q1 operator at 127^3; PCPSCRSetUp (includes the detection on
#      the device) and PCPSCRApply from -log_view.
#
#   bench/gpu/pscr_q1_accuracy.sh <build dir> <output dir>
# Environment: PSCR_Q1_TYPES (GPU type options; empty for a dry run on a CPU), PSCR_Q1_TIMEOUT (s per run, default
# 240). Writes <output dir>/pscr_q1_accuracy_gpu.md and the logs.
set -u
B=${1:?usage: pscr_q1_accuracy.sh <build dir> <output dir>}
O=${2:?usage: pscr_q1_accuracy.sh <build dir> <output dir>}
mkdir -p "$O/logs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
GPU=${PSCR_Q1_TYPES-"-dm_vec_type cuda -dm_mat_type aijcusparse -vec_type cuda -mat_type aijcusparse -use_gpu_aware_mpi 0"}
TMO=${PSCR_Q1_TIMEOUT:-240}
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
T="$O/pscr_q1_accuracy_gpu.md"
evtime() { awk -v e="$1" '$1 == e { print $4; exit }' "$2"; }

{
  echo "# PCPSCR: Q1 detection and the accuracy of one application"
  echo
  echo "Device: ${DEVICE:-unknown}. Date: $(date -u +%Y-%m-%d). Script: \`bench/gpu/pscr_q1_accuracy.sh\`. Types: \`$GPU\`."
  echo
} > "$T"

timeout "$TMO" "$B/tests/petsckp_unit" --gtest_filter='PSCR.Detect*:PSCR.SeparableFromLines:PSCR.AccuracyRandomRhs:PSCR.SingularTridiagonalMass' > "$O/logs/unit.log" 2>&1
echo "Unit tests on the device: $(tail -1 "$O/logs/unit.log")" >> "$T"
{
  echo
  echo "## bench_pscr: relative residual / normwise backward error, radix 4"
  echo
  echo "| dim | n | kappa(A) | eps kappa | random f | sawtooth f (default) | apply min (ms) |"
  echo "|---|---|---|---|---|---|---|"
} >> "$T"
for s in 2:1023 2:2047 2:4095 3:255; do
  d=${s%%:*}; n=${s##*:}
  kap=$(awk -v n="$n" 'BEGIN { t = 3.14159265358979 / (2 * (n + 1)); k = (cos(t) / sin(t))^2; printf "%.3g | %.2g", k, k * 2.220446e-16 }')
  for r in random sawtooth; do
    timeout "$TMO" "$B/bench/bench_pscr" -dim "$d" -n "$n" -reps 3 -rhs "$r" > "$O/logs/bench_${d}d_${n}_$r.log" 2>&1
  done
  rr=$(tail -1 "$O/logs/bench_${d}d_${n}_random.log" | cut -d'|' -f10)
  rs=$(tail -1 "$O/logs/bench_${d}d_${n}_sawtooth.log" | cut -d'|' -f10)
  ap=$(tail -1 "$O/logs/bench_${d}d_${n}_random.log" | cut -d'|' -f8)
  echo "| ${d}D | $n | $kap | $rr | $rs | $ap |" >> "$T"
done
{
  echo
  echo "## examples/pscr end to end (-ksp_type preonly -pc_type pscr -print_residual)"
  echo
  echo "| operator | n | PCPSCRSetUp (s) | PCPSCRApply (s) | relative residual | backward error | eps ||A|| ||x|| / ||b|| | result |"
  echo "|---|---|---|---|---|---|---|---|"
} >> "$T"
for c in "fd:2:4095" "q1:2:2047" "q1:2:4095" "q1:3:127"; do
  IFS=: read -r disc d n <<< "$c"
  log="$O/logs/example_${disc}_${d}d_${n}.log"
  timeout "$TMO" "$B/examples/pscr" -disc "$disc" -dim "$d" -n "$n" -ksp_type preonly -pc_type pscr -print_residual -log_view -log_view_gpu_time $GPU > "$log" 2>&1
  rc=$?
  line=$(grep '^relative residual [0-9]' "$log" | head -1)
  rr=$(echo "$line" | sed -n 's/^relative residual \([^,]*\),.*/\1/p')
  bw=$(echo "$line" | sed -n 's/.*normwise backward error \([^,]*\),.*/\1/p')
  ep=$(echo "$line" | sed -n 's/.*eps ||A||_inf ||x|| \/ ||b|| = \(.*\)$/\1/p')
  res=$([ $rc = 0 ] && grep -m1 '^relative residual [<>]' "$log" || echo "rc $rc: $(grep -m1 -o 'PETSC ERROR: [A-Z].*' "$log" | cut -c14-120)")
  echo "| $disc ${d}D | $n | $(evtime PCPSCRSetUp "$log") | $(evtime PCPSCRApply "$log") | ${rr:--} | ${bw:--} | ${ep:--} | $res |" >> "$T"
done
cat "$T"
