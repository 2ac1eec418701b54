#!/bin/bash
# GPU benchmark of KSPDCG + PCNEUMANN (Gupta, van Gijzen, Vuik, VECPAR 2012) against PETSc's solvers on the bubbly-flow problems, and the
# iteration counts of the paper's Tables 2-4.
#   bench/run_bubbly.sh <build dir> <output dir> [--cpu]       time table (+ paper table with BUBBLY_PAPER=1)
#   bench/run_bubbly.sh <build dir> <output dir> --logview     kernel breakdown: 256^3, 8 bubbles, contrast 1e-3,
#                                                              dcg + neumann(2), -log_view -log_view_gpu_time
#   bench/run_bubbly.sh <build dir> <output dir> --setup       setup breakdown (bubbly_setup.md): per solver and size
#                                                              the setup's phases from -log_view (PETSc's upload of A,
#                                                              the shared device copy, deflation space, E and its factor,
#                                                              the Neumann factors) beside setup, solve, time to solution
# (--cpu: without the GPU types, a smoke test on a machine without a GPU)
# Writes <output dir>/bubbly_gpu.md: per solver the setup (KSPSetUp: PCSetUp, deflation space, E), the solve
# (KSPSolve), ms per iteration and time to solution (= setup + solve), each wall-clock time measured by the example
# after waiting for the device, and the bandwidth model of an iteration (bytes counted per unknown / bandwidth).
# --logview writes <output dir>/bubbly_logview.md (the event table, with the GPU time of each event).
# Knobs: BUBBLY_SIZES ("128 256"), BUBBLY_CONTRASTS ("1e-3 1e-6"), BUBBLY_GEOMS ("bubble8"), BUBBLY_TIMEOUT (s per
# run, default 45), BUBBLY_BUDGET (s for the whole table; later runs are skipped, default 330), BUBBLY_BW (device
# bandwidth in TB/s for the model, default 3.0 = H100 SXM measured STREAM-like), BUBBLY_QUICK=1 (our two rows and
# PETSc's cg + jacobi only), BUBBLY_LOGVIEW_N (grid of --logview, default 256), BUBBLY_PAPER=1 (also the paper tables: several more minutes).
set -euo pipefail
BUILD=${1:?build dir}
OUT=${2:?output dir}
MODE=table
CPU=0
for a in "${@:3}"; do
  case "$a" in
    --cpu) CPU=1 ;;
    --logview) MODE=logview ;;
    --setup) MODE=setup ;;
    *) echo "unknown option $a (--cpu, --logview, --setup)" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT"
EXE="$BUILD/examples/bubbly"
GPU="-dm_vec_type cuda -dm_mat_type aijcusparse -vec_type cuda -mat_type aijcusparse -use_gpu_aware_mpi 0"
TMO=${BUBBLY_TIMEOUT:-45}
BUDGET=${BUBBLY_BUDGET:-330}
BW=${BUBBLY_BW:-3.0}
[ "$CPU" = 1 ] && GPU=""
# the example sets every stencil entry itself: skip DMCreateMatrix's zero fill (host assembly, not part of any solver's time)
GPU="$GPU -dm_preallocate_only"
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
[ -n "$DEVICE" ] || DEVICE="cpu"
HERE=$(cd "$(dirname "$0")" && pwd)

if [ "$MODE" = logview ]; then
  log=$(mktemp)
  args=(-dim 3 -n "${BUBBLY_LOGVIEW_N:-256}" -geometry bubble8 -contrast 1e-3 -ksp_type dcg -ksp_dcg_blocks 8,8,8 -pc_type neumann -pc_neumann_terms 2)
  timeout 120 "$EXE" "${args[@]}" $GPU -log_view -log_view_gpu_time > "$log" 2>&1 || echo "run failed (rc $?)" >> "$log"
  {
    echo "# Kernel breakdown: 3D ${BUBBLY_LOGVIEW_N:-256}^3, 8 bubbles, contrast 1e-3, dcg + neumann(2), 8x8x8 blocks ($DEVICE, $(date -u +%F))"
    echo
    echo "Command: \`$EXE ${args[*]} $GPU -log_view -log_view_gpu_time\`"
    echo
    grep -m1 '^iterations' "$log" || echo "(no iteration line: see the log below)"
    echo
    /usr/bin/env python3 "$HERE/logview.py" --breakdown "$log" || true
  } > "$OUT/bubbly_logview.md"
  rm -f "$log"
  echo "wrote $OUT/bubbly_logview.md"
  exit 0
fi

if [ "$MODE" = setup ]; then
  # with GPUs, PETSc (>= 3.20) prints the event times only with -log_view_gpu_time (n/a otherwise)
  GPUTIME=""
  [ "$CPU" = 1 ] || GPUTIME="-log_view_gpu_time"
  # time of an event in the -log_view table of a log (max over ranks, column 4), its count (column 2); "-" if absent
  ev() { awk -v e="$2" '$1 == e { t = $4; c = $2 } END { if (t == "") print "-"; else printf "%s (%s)", t, c }' "$1"; }
  {
    echo "# Setup of dcg / neumann on the bubbly problems: where the time goes ($DEVICE, $(date -u +%F))"
    echo
    echo "Setup = KSPSetUp as timed by examples/bubbly (device work completed). Event times from -log_view (s, max over"
    echo "ranks; (calls)); events nest: KSPSetUp holds KSPDCGSetup and PCNeumannSetup, these hold KPDevMatSetup (the shared"
    echo "device copy of A, made once), KPDeflSpace (aggregates, Z, AZ, Z^T), KPDeflCoarse (E = Z^T A Z, its factor, the"
    echo "condition estimate). MatCUSPARSCopyTo is PETSc's own upload of the host-assembled matrix (paid by every GPU"
    echo "solver: by PETSc's at its first MatMult, inside KSPSolve); setup - upload is the part that is ours."
    echo "\"shared copy\": the -info lines of the shared device copy (created once, reused by the second solver)."
    echo "GPU options: \`$GPU\`"
    echo
    echo "| problem | solver | its | setup (s) | solve (s) | time to solution (s) | KSPDCGSetup | PCNeumannSetup | KPDevMatSetup | KPDevMatUpdate | KPDeflSpace | KPDeflCoarse | MatCUSPARSCopyTo | setup - upload (s) | shared copy (created/reused) |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for n in ${BUBBLY_SIZES:-256}; do
      for c in ${BUBBLY_CONTRASTS:-1e-6 1e-3}; do
        P="-dim 3 -n $n -geometry bubble8 -contrast $c"
        for s in "dcg + neumann(2), 8x8x8 blocks|-ksp_type dcg -ksp_dcg_blocks 8,8,8 -pc_type neumann -pc_neumann_terms 2" \
                 "cg + neumann(2) + A-DEF2, 8x8x8 blocks|-ksp_type cg -pc_type neumann -pc_neumann_terms 2 -pc_neumann_deflation_space blocks -pc_neumann_deflation_blocks 8,8,8" \
                 "dcg + neumann(2), $n planes|-ksp_type dcg -ksp_dcg_space chunks -ksp_dcg_subdomains $n -pc_type neumann -pc_neumann_terms 2"; do
          label=${s%%|*}; opts=${s#*|}
          log=$(mktemp); rc=0
          # shellcheck disable=SC2086
          timeout "$TMO" "$EXE" $P $opts $GPU $GPUTIME -log_view -info :mat > "$log" 2>&1 || rc=$?
          line=$(grep -m1 '^iterations' "$log" || true)
          if [ $rc -ne 0 ] || [ -z "$line" ]; then
            echo "| $n^3, $c | $label | failed (rc $rc): $(grep -v '^\[' "$log" | tail -1 | tr '|' ' ' | cut -c1-80) | | | | | | | | | | | | |"
            rm -f "$log"; continue
          fi
          its=$(echo "$line" | awk '{print $2}' | tr -d ,)
          t=$(echo "$line" | sed 's/.*time to solution \([^ ]*\) s.*/\1/')
          su=$(echo "$line" | sed 's/.*(setup \([^ ]*\) s.*/\1/')
          so=$(echo "$line" | sed 's/.*, solve \([^ ]*\) s.*/\1/')
          up=$(awk '$1 == "MatCUSPARSCopyTo" { print $4 }' "$log")
          own=$(awk -v s="$su" -v u="${up:-0}" 'BEGIN { printf "%.4g", s - u }')
          sh="$(grep -c 'shared device copy of the matrix is created' "$log")/$(grep -c 'shared device copy of the matrix is reused' "$log")"
          echo "| $n^3, $c | $label | $its | $su | $so | $t | $(ev "$log" KSPDCGSetup) | $(ev "$log" PCNeumannSetup) | $(ev "$log" KPDevMatSetup) | $(ev "$log" KPDevMatUpdate) | $(ev "$log" KPDeflSpace) | $(ev "$log" KPDeflCoarse) | $(ev "$log" MatCUSPARSCopyTo) | $own | $sh |"
          rm -f "$log"
        done
      done
    done
  } > "$OUT/bubbly_setup.md"
  echo "wrote $OUT/bubbly_setup.md"
  exit 0
fi

# bytes per unknown and iteration of the bandwidth model (8 B scalars, 4 B column indices, 7-point stencil; the
# neighbours' x values counted once, i.e. served by the caches):
#   A x (CSR):                          7 x 12 + 4 (row pointer) + 8 (x) + 8 (y)                          = 104
#   neumann(2) (SELL, 4 fused kernels): 52 + 68 + 52 + 60 (src/pc/neumann/neumann_kernels.cxx)         = 232
#   dcg vector kernels (fused; (p, A p) inside the product, the deflation inside the update):
#                                       x/r update 48, dot+norm 16, p update 24                          =  88
#                                       (single reduction: the r, u sums in the product 8, s/p/x/r update 80)
#   restriction Z^T w, Z^T r (team per vector): 12 (Z^T entry) + 8 (w) + 8 (r)                           =  28
#   AZ a2 (inside the x/r update):      12 per AZ entry + 4; AZ has ~1.3 entries per row for 8x8x8 blocks at
#                                       these sizes (rows on block faces have 2-4), 3 for planes           = 20 / 40
#   PETSc CG vector work:               2 dots 32, norm 8, 2 axpy 48, aypx 24                             = 112
#   A-DEF2 coarse correction:           Z^T r 20, (AZ)^T y 24, y += Z a2 32                               =  76
#   jacobi:                             r, diag, z                                                        =  24
declare -A MODEL=([dcgblocks]=472 [dcgplanes]=492 [adef2]=524 [cgneu]=448 [jacobi]=240)
START=$(date +%s)

run() { # label, model key, args -> a table row
  local label="$1" key="$2"; shift 2
  local now; now=$(date +%s)
  if [ $((now - START)) -ge "$BUDGET" ]; then
    echo "| $label | skipped (time budget BUBBLY_BUDGET=${BUDGET} s spent) | | | | | | | \`$*\` |"
    return
  fi
  local log; log=$(mktemp)
  local rc=0
  timeout "$TMO" "$EXE" "$@" $GPU > "$log" 2>&1 || rc=$?
  local line; line=$(grep -m1 '^iterations' "$log" || true)
  if [ $rc -eq 0 ] && [ -n "$line" ]; then
    local its res t su so pi model
    its=$(echo "$line" | awk '{print $2}' | tr -d ,)
    res=$(echo "$line" | sed 's/.*residual \([^ ]*\).*/\1/')
    t=$(echo "$line" | sed 's/.*time to solution \([^ ]*\) s.*/\1/')
    su=$(echo "$line" | sed 's/.*(setup \([^ ]*\) s.*/\1/')
    so=$(echo "$line" | sed 's/.*, solve \([^ ]*\) s.*/\1/')
    pi=$(echo "$line" | sed 's/.*, \([^ ]*\) ms per iteration.*/\1/')
    model="n/a"
    if [ -n "$key" ]; then
      model=$(awk -v b="${MODEL[$key]}" -v n="$N3" -v bw="$BW" -v pi="$pi" 'BEGIN { m = b * n / (bw * 1e12) * 1e3; printf "%.4g (%d B/unknown; measured/model %.2g)", m, b, pi / m }')
    fi
    echo "| $label | $its | $res | $su | $so | $pi | $model | $t | \`$*\` |"
  elif [ $rc -eq 124 ]; then
    echo "| $label | timed out after ${TMO} s (BUBBLY_TIMEOUT) | | | | | | | \`$*\` |"
  else
    echo "| $label | failed (rc $rc): $(tail -1 "$log" | tr '|' ' ' | cut -c1-100) | | | | | | | \`$*\` |"
  fi
  rm -f "$log"
}

{
  echo "# Bubbly-flow pressure problems: time to solution ($DEVICE, $(date -u +%F))"
  echo
  echo "rtol 1e-6 (true residual), random x0, zero-mean random b, 1 rank. Setup = KSPSetUp (PCSetUp, deflation space and"
  echo "E = Z^T A Z, GAMG hierarchy), solve = KSPSolve; both wall-clock, measured by examples/bubbly after waiting for the"
  echo "device; time to solution = setup + solve. Model = bytes per unknown of one iteration (counted in"
  echo "bench/run_bubbly.sh) x N / ${BW} TB/s (BUBBLY_BW; H100 SXM device bandwidth), launch and reduction latency not"
  echo "included. Per-run limit ${TMO} s, table budget ${BUDGET} s. GPU options: \`$GPU\`"
  for n in ${BUBBLY_SIZES:-128 256}; do
    N3=$((n * n * n))
    for c in ${BUBBLY_CONTRASTS:-1e-3 1e-6}; do
      for g in ${BUBBLY_GEOMS:-bubble8}; do
        P="-dim 3 -n $n -geometry $g -contrast $c"
        echo
        echo "## 3D $n^3, $g, contrast $c"
        echo
        echo "| solver | iterations | true rel. residual | setup (s) | solve (s) | ms / iteration | model ms / iteration | time to solution (s) | options |"
        echo "|---|---|---|---|---|---|---|---|---|"
        run "dcg + neumann(2), 8x8x8 blocks" dcgblocks $P -ksp_type dcg -ksp_dcg_blocks 8,8,8 -pc_type neumann -pc_neumann_terms 2
        run "dcg (single reduction) + neumann(2), 8x8x8 blocks" dcgblocks $P -ksp_type dcg -ksp_dcg_pipelined -ksp_dcg_blocks 8,8,8 -pc_type neumann -pc_neumann_terms 2
        run "cg + neumann(2) + A-DEF2, 8x8x8 blocks" adef2 $P -ksp_type cg -pc_type neumann -pc_neumann_terms 2 -pc_neumann_deflation_space blocks -pc_neumann_deflation_blocks 8,8,8
        [ "${BUBBLY_QUICK:-0}" = 1 ] || run "dcg + neumann(2), $n planes (chunks)" dcgplanes $P -ksp_type dcg -ksp_dcg_space chunks -ksp_dcg_subdomains $n -pc_type neumann -pc_neumann_terms 2
        [ "${BUBBLY_QUICK:-0}" = 1 ] || run "cg + neumann(2), one level" cgneu $P -ksp_type cg -pc_type neumann -pc_neumann_terms 2
        run "PETSc cg + jacobi" jacobi $P -ksp_type cg -pc_type jacobi
        [ "${BUBBLY_QUICK:-0}" = 1 ] || run "PETSc cg + gamg" "" $P -ksp_type cg -pc_type gamg
        [ "${BUBBLY_QUICK:-0}" = 1 ] || run "PETSc cg + PCDEFLATION(jacobi), aggregation 512" "" $P -ksp_type cg -pc_type deflation -pc_deflation_compute_space aggregation -pc_deflation_compute_space_size 512 -deflation_pc_pc_type jacobi
      done
    done
  done
} > "$OUT/bubbly_gpu.md"

[ "${BUBBLY_PAPER:-0}" = "0" ] && { echo "wrote $OUT/bubbly_gpu.md"; exit 0; }
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
