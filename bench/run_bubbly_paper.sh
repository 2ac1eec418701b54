#!/bin/bash
# Iteration counts of the bubbly-flow problems against the paper's Tables 2-4 (Gupta, van Gijzen, Vuik 2012).
# Iteration counts do not depend on the device, so this runs on the CPU (-dm_vec_type standard, one rank: the
# Neumann preconditioner acts on the rank-local block).
#   bench/run_bubbly_paper.sh <build dir> <output file> [seeds (default "0 1 2 3 4")] [seeds at 1024^2 (default "0 1 2")]
# Writes one line per configuration: label | min | max | mean over the seeds of x* (2D), b (3D) and x0.
set -euo pipefail
BUILD=${1:?build dir}
OUT=${2:?output file}
SEEDS=${3:-0 1 2 3 4}
SEEDS_BIG=${4:-0 1 2}
EXE="$BUILD/examples/bubbly"
CPU="-dm_vec_type standard -dm_mat_type aij"
: > "$OUT"

its() { # the iteration count of one run (no early-closing pipe: that would kill the run with SIGPIPE)
  local log
  log=$("$EXE" "$@" $CPU 2>&1) || { echo fail; return; }
  grep '^iterations' <<< "$log" | head -1 | awk '{print $2}' | tr -d ,
}
row() { # label, seeds, args
  local label="$1" seeds="$2"; shift 2
  local all=() i sd
  for sd in $seeds; do
    i=$(its "$@" -seed "$sd")
    all+=("$i")
  done
  printf '%s | %s | %s\n' "$label" "${all[*]}" "$*" >> "$OUT"
}

for n in 128 256 512 1024; do
  ss="$SEEDS"
  [ "$n" -ge 1024 ] && ss="$SEEDS_BIG"
  base=(-dim 2 -n $n -ksp_type dcg -ksp_dcg_space chunks -ksp_dcg_subdomains $((2 * n)) -ksp_dcg_coarse inverse)
  row "2D $n Neu1" "$ss" "${base[@]}" -pc_type neumann -pc_neumann_terms 1
  row "2D $n Neu2" "$ss" "${base[@]}" -pc_type neumann -pc_neumann_terms 2
  if [ "$n" -le 256 ]; then # the same two-level method on the PC side: KSPCG + PCNEUMANN A-DEF2
    row "2D $n cg + Neu1 A-DEF2" "$ss" -dim 2 -n $n -ksp_type cg -pc_type neumann -pc_neumann_terms 1 -pc_neumann_deflation_space chunks -pc_neumann_deflation_subdomains $((2 * n)) -pc_neumann_deflation_coarse inverse
    row "2D $n cg + Neu1 (one-level)" "$ss" -dim 2 -n $n -ksp_type cg -pc_type neumann -pc_neumann_terms 1
  fi
  if [ "$n" -le 512 ]; then
    for m in 2 4 8; do # Blk-IC(m n): block Jacobi with blocks of m n rows, IC(0) inside
      row "2D $n Blk-IC(${m}n)" "$ss" "${base[@]}" -pc_type bjacobi -pc_bjacobi_blocks $((n / m)) -sub_pc_type icc
    done
  fi
done
for g in slab bubble1 bubble8; do
  base=(-dim 3 -n 128 -geometry $g -ksp_type dcg -ksp_dcg_coarse cholesky)
  row "3D 128 $g planes Neu2" "0 1 2" "${base[@]}" -ksp_dcg_space chunks -ksp_dcg_subdomains 128 -pc_type neumann -pc_neumann_terms 2
  row "3D 128 $g 8 blocks IC(0)" "0" "${base[@]}" -ksp_dcg_space blocks -ksp_dcg_blocks 2,2,2 -pc_type icc
  row "3D 128 $g 8 blocks Neu2" "0" "${base[@]}" -ksp_dcg_space blocks -ksp_dcg_blocks 2,2,2 -pc_type neumann -pc_neumann_terms 2
done
echo "wrote $OUT"
