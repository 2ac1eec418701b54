#!/bin/bash
# KSPDCG: the single-reduction iteration (-ksp_dcg_pipelined, Chronopoulos-Gear) against the standard one on the
# bubbly problems (examples/bubbly): iterations, true relative residual, converged reason, and the re-projections and
# restarts from the true residual that the rounding safeguards of KSPDCG needed (-ksp_view's "last solve" line).
#   bench/run_dcg_pipelined.sh <build dir> <output dir> [extra options, e.g. the GPU types]
# Writes <output dir>/dcg_pipelined.md. Knobs: DCGP_N (cells per direction, default 32), DCGP_RANKS ("1 2"),
# DCGP_CONTRASTS ("1e-1 1e-3 1e-6"), DCGP_RTOLS ("1e-6 1e-10"). CPU: about a minute with the defaults.
set -uo pipefail
BUILD=${1:?build dir}
OUT=${2:?output dir}
EXTRA="${*:3}"
mkdir -p "$OUT"
EXE="$BUILD/examples/bubbly"
N=${DCGP_N:-32}
MPIEXEC=${MPIEXEC:-mpiexec}
row() { # ranks, label, args -> "| its | true res | reason | repro/restarts |" of one variant
  local np="$1"; shift
  local log; log=$(mktemp)
  # shellcheck disable=SC2086
  $MPIEXEC -n "$np" "$EXE" "$@" $EXTRA -ksp_view > "$log" 2>&1
  local line; line=$(grep -m1 '^iterations' "$log")
  if [ -z "$line" ]; then echo "failed: $(grep -m1 -i error "$log" | cut -c1-60) | | |"; rm -f "$log"; return; fi
  local its res reason last
  its=$(echo "$line" | awk '{print $2}' | tr -d ,)
  res=$(echo "$line" | sed 's/.*residual \([^ ]*\) .*/\1/')
  reason=$(echo "$line" | sed 's/.*(\([A-Z_]*\)).*/\1/')
  last=$(grep -m1 'last solve:' "$log" | sed 's/.*last solve: \([0-9]*\) re-projections[^,]*, \([0-9]*\) restarts.*/\1 \/ \2/')
  echo "$its | $res | $reason | ${last:-0 / 0}"
  rm -f "$log"
}
{
  echo "# KSPDCG single-reduction (-ksp_dcg_pipelined) against standard DEF1 on the bubbly problems ($(uname -n), $(date -u +%F))"
  echo
  echo "3D bubble8, ${N}^3 cells, random x0, zero-mean random b, 4x4x4 blocks, unpreconditioned residual norm, rtol as given."
  echo "Columns: iterations | true relative residual of the returned x | converged reason | re-projections / restarts"
  echo "from the true residual (KSPView's \"last solve\" line). Extra options: \`${EXTRA:-none}\`"
  echo
  echo "| ranks | PC | contrast | rtol | standard: its | res | reason | repro / restarts | pipelined: its | res | reason | repro / restarts |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  for np in ${DCGP_RANKS:-1 2}; do
    for pc in "neumann(2)|-pc_type neumann -pc_neumann_terms 2" "jacobi|-pc_type jacobi"; do
      for c in ${DCGP_CONTRASTS:-1e-1 1e-3 1e-6}; do
        for rt in ${DCGP_RTOLS:-1e-6 1e-10}; do
          a=(-dim 3 -n "$N" -geometry bubble8 -contrast "$c" -ksp_dcg_blocks 4,4,4 -ksp_rtol "$rt" ${pc#*|})
          echo "| $np | ${pc%%|*} | $c | $rt | $(row "$np" "${a[@]}" -ksp_dcg_pipelined 0) | $(row "$np" "${a[@]}" -ksp_dcg_pipelined 1) |"
        done
      done
    done
    # the attainable-accuracy problem of the example's tests: Dirichlet top, smooth b, rtol 1e-8, contrast 1e-6
    for pc in "neumann(2)|-pc_type neumann -pc_neumann_terms 2" "jacobi|-pc_type jacobi"; do
      a=(-dim 3 -n "$N" -geometry bubble8 -dirichlet_top -rhs sin -zero_guess -contrast 1e-6 -ksp_dcg_blocks 4,4,4 -ksp_rtol 1e-8 -compare_pcdeflation 10 ${pc#*|})
      echo "| $np | ${pc%%|*}, Dirichlet top, sin | 1e-6 | 1e-8 | $(row "$np" "${a[@]}" -ksp_dcg_pipelined 0) | $(row "$np" "${a[@]}" -ksp_dcg_pipelined 1) |"
    done
  done
} > "$OUT/dcg_pipelined.md"
echo "wrote $OUT/dcg_pipelined.md"
