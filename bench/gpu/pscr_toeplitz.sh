#!/bin/bash
# PCPSCR's interior-Toeplitz recurrences (tridiag_detail::TeamToeplitzSolve) on the GPU, in one device call after the
# stack is built:
#   1. the unit tests of the tridiagonal solvers and of PSCR on the device (Tridiag.*, PSCR.*: the warp scans of the
#      recurrences run only there);
#   2. bench_pscr with the recurrences and without them (-toeplitz 0, the general team solver of every earlier
#      measurement), each next to a cuFFT periodic Poisson solve of the same grid in the same process: 2D 2047^2,
#      4095^2 (radix 4 and 8), 8191^2, 3D 255^3 (radix 4 and 8), 511^3.
#
#   bench/gpu/pscr_toeplitz.sh <build dir> <output dir>
# Writes <output dir>/pscr_toeplitz_gpu.md and the logs. PSCR_TOEPLITZ_TIMEOUT: seconds per run (default 120).
set -u
B=${1:?usage: pscr_toeplitz.sh <build dir> <output dir>}
O=${2:?usage: pscr_toeplitz.sh <build dir> <output dir>}
TMO=${PSCR_TOEPLITZ_TIMEOUT:-120}
mkdir -p "$O/logs"
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
T="$O/pscr_toeplitz_gpu.md"
{
  echo "# PSCR: the interior-Toeplitz recurrences against the general team solver"
  echo
  echo "Device: ${DEVICE:-unknown}. Date: $(date -u +%Y-%m-%d). Script: \`bench/gpu/pscr_toeplitz.sh\`. Commit: ${PETSCKP_GIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}."
  echo
} > "$T"
timeout "$TMO" "$B/tests/petsckp_unit" --gtest_filter='Tridiag.*:PSCR.*' > "$O/logs/unit.log" 2>&1
echo "Unit tests on the device (\`petsckp_unit --gtest_filter='Tridiag.*:PSCR.*'\`): $(grep -E '^\[  (PASSED|FAILED) ' "$O/logs/unit.log" | tr '\n' ' ')" >> "$T"
grep -E '^\[  FAILED  \]' "$O/logs/unit.log" | head -20 | sed 's/^/    /' >> "$T"
{
  echo
  echo "\`bench_pscr -dim D -n N -radix Q [-toeplitz 0]\`: the zero-mean sawtooth right-hand side, 10 applications (min / median)."
  echo
  echo "| dim | n | radix | levels | problem | setup (s) | apply min (ms) | apply median (ms) | residual | Mdof/s | traffic (GB) | BW model (GB/s) | copy BW (GB/s) | fraction | cuFFT (ms) | PSCR / cuFFT | kernels |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} >> "$T"
for c in "2 2047 4" "2 4095 4" "2 4095 8" "2 8191 4" "3 255 4" "3 255 8" "3 511 4"; do
  set -- $c
  for tz in 1 0; do
    log="$O/logs/bench_${1}d_${2}_q${3}_t${tz}.log"
    timeout "$TMO" "$B/bench/bench_pscr" -dim "$1" -n "$2" -radix "$3" -toeplitz "$tz" > "$log" 2>&1
    grep -E '^\| [23]D' "$log" >> "$T" || echo "| ${1}D | $2 | $3 | | -toeplitz $tz: failed (rc $?, $(tail -1 "$log" | cut -c1-80)) |" >> "$T"
  done
done
cat "$T"
