#!/bin/bash
# GPU benchmark of seed 002 (KSPDCG + PCNEUMANN) against PETSc's solvers on the bubbly-flow problems, and the
# iteration counts of the paper's Tables 2-4.
#   bench/run_bubbly.sh <build dir> <output dir> [--cpu]
# Writes <output dir>/bubbly_gpu.md (times: KSPSolve time from -log_view, iterations, true residual) and
# <output dir>/bubbly_paper.md (iteration counts next to the paper's). --cpu drops the GPU types (smoke test).
set -euo pipefail
BUILD=${1:?build dir}
OUT=${2:?output dir}
mkdir -p "$OUT"
EXE="$BUILD/examples/bubbly"
GPU="-dm_vec_type cuda -dm_mat_type aijcusparse -vec_type cuda -mat_type aijcusparse -use_gpu_aware_mpi 0"
# knobs: BUBBLY_QUICK=1 (the main rows only), BUBBLY_SIZES, BUBBLY_CONTRASTS, BUBBLY_GEOMS, BUBBLY_TIMEOUT (per run, s), BUBBLY_PAPER=0 skips the paper tables
TMO=${BUBBLY_TIMEOUT:-120}
[ "${3:-}" = "--cpu" ] && GPU=""
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo "cpu")

run() { # label, args -> a table row
  local label="$1"; shift
  local log; log=$(mktemp)
  if timeout "$TMO" "$EXE" "$@" $GPU -log_view > "$log" 2>&1; then
    local its res t
    its=$(grep -m1 '^iterations' "$log" | awk '{print $2}' | tr -d ,)
    res=$(grep -m1 '^iterations' "$log" | sed 's/.*residual \([^ ]*\).*/\1/')
    t=$(grep -m1 '^iterations' "$log" | sed 's/.*time to solution \([^ ]*\) s.*/\1/')
    echo "| $label | $its | $res | $t | \`$*\` |"
  else
    echo "| $label | failed | | | \`$*\` |"
  fi
  rm -f "$log"
}

{
  echo "# Bubbly-flow pressure problems: time to solution ($DEVICE, $(date -u +%F))"
  echo
  echo "rtol 1e-6 (true residual), random x0, zero-mean random b; wall time of KSPSolve, waiting for the device (includes the"
  echo "preconditioner/deflation setup done inside KSPSolve). GPU options: \`$GPU\`"
  for n in ${BUBBLY_SIZES:-128 256}; do
    for c in ${BUBBLY_CONTRASTS:-1e-3 1e-6}; do
      for g in ${BUBBLY_GEOMS:-slab bubble8}; do
        P="-dim 3 -n $n -geometry $g -contrast $c"
        echo
        echo "## 3D $n^3, $g, contrast $c"
        echo
        echo "| solver | iterations | true rel. residual | time to solution (s) | options |"
        echo "|---|---|---|---|---|"
        run "dcg + neumann(2), 8x8x8 blocks" $P -ksp_type dcg -ksp_dcg_blocks 8,8,8 -pc_type neumann -pc_neumann_terms 2
        [ "${BUBBLY_QUICK:-0}" = 1 ] || run "dcg + neumann(1), 8x8x8 blocks" $P -ksp_type dcg -ksp_dcg_blocks 8,8,8 -pc_type neumann -pc_neumann_terms 1
        [ "${BUBBLY_QUICK:-0}" = 1 ] || run "dcg + neumann(2), planes" $P -ksp_type dcg -ksp_dcg_space chunks -ksp_dcg_subdomains $n -pc_type neumann -pc_neumann_terms 2
        [ "${BUBBLY_QUICK:-0}" = 1 ] || run "cg + neumann(2)" $P -ksp_type cg -pc_type neumann -pc_neumann_terms 2
        run "cg + neumann(2) + A-DEF2 deflation, 8x8x8 blocks" $P -ksp_type cg -pc_type neumann -pc_neumann_terms 2 -pc_neumann_deflation_space blocks -pc_neumann_deflation_blocks 8,8,8
        run "PETSc cg + jacobi" $P -ksp_type cg -pc_type jacobi
        run "PETSc cg + gamg" $P -ksp_type cg -pc_type gamg
        [ "${BUBBLY_QUICK:-0}" = 1 ] || run "PETSc cg + PCDEFLATION(jacobi), aggregation 512" $P -ksp_type cg -pc_type deflation -pc_deflation_compute_space aggregation -pc_deflation_compute_space_size 512 -deflation_pc_pc_type jacobi
      done
    done
  done
} > "$OUT/bubbly_gpu.md"

[ "${BUBBLY_PAPER:-1}" = "0" ] && { echo "wrote $OUT/bubbly_gpu.md"; exit 0; }
{
  echo "# Iteration counts against the paper (Gupta, van Gijzen, Vuik 2012), $DEVICE"
  echo
  echo "DPCG = dcg, rtol 1e-6, random x0. 2D: Dirichlet top, heavy fluid below, b = A x*, 2n half-row stripes"
  echo "(chunks of n/2 cells), explicit inverse of E. 3D: Neumann + last diagonal doubled, zero-mean random b,"
  echo "n planes (chunks of n^2 cells), Cholesky. Our Neumann acts on the rank-local block: run on 1 rank."
  echo
  echo "| problem | ours Neu1 | paper Neu1 | ours Neu2 | paper Neu2 |"
  echo "|---|---|---|---|---|"
  declare -A P1=([128]=76 [256]=117 [512]=129 [1024]=224) P2=([128]=61 [256]=92 [512]=101 [1024]=175)
  for n in 128 256 512 1024; do
    a=(-dim 2 -n $n -ksp_type dcg -ksp_dcg_space chunks -ksp_dcg_subdomains $((2 * n)) -ksp_dcg_coarse inverse -pc_type neumann)
    i1=$("$EXE" "${a[@]}" -pc_neumann_terms 1 $GPU | grep -m1 '^iterations' | awk '{print $2}' | tr -d ,)
    i2=$("$EXE" "${a[@]}" -pc_neumann_terms 2 $GPU | grep -m1 '^iterations' | awk '{print $2}' | tr -d ,)
    echo "| 2D $n^2 layer (Table 2) | $i1 | ${P1[$n]} | $i2 | ${P2[$n]} |"
  done
  declare -A P3=([slab]=324 [bubble1]=287 [bubble8]=402)
  for g in slab bubble1 bubble8; do
    a=(-dim 3 -n 128 -geometry $g -ksp_type dcg -ksp_dcg_space chunks -ksp_dcg_subdomains 128 -pc_type neumann -pc_neumann_terms 2)
    i2=$("$EXE" "${a[@]}" $GPU | grep -m1 '^iterations' | awk '{print $2}' | tr -d ,)
    echo "| 3D 128^3 $g, planes (Tables 3-4) | | | $i2 | ${P3[$g]} |"
  done
} > "$OUT/bubbly_paper.md"
echo "wrote $OUT/bubbly_gpu.md and $OUT/bubbly_paper.md"
