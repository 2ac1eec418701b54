#!/usr/bin/env bash
# GPU benchmark of PCPSORMG on the 2D hemispherical obstacle problem (Bueler; PETSc snes ex9's exact solution),
# side by side with PETSc's SNESVI (vinewtonrsls, CG + GAMG; snes tutorial ex9, unmodified) and TAO gpcg on the
# same GPU. Writes a markdown table.
#
#   bench/run_psormg.sh <build-dir> <output-dir> [sizes...]      (default sizes: 1025 2049 4097)
#
# psormg solves to a relative projected residual of 1e-8 (below the discretisation error: the example checks
# max|u - u_exact| <= 2 h^2); SNESVI runs ex9 with at most 50 Newton steps; TAO gpcg solves the example's own
# discretisation (-compare tao) and is capped in time. Every run has a wall-clock limit (PSORMG_BENCH_TIMEOUT,
# default 240 s) so that the script stays well under 10 minutes on one H100 when the anchors are slow.
set -u
# PSORMG_BENCH_TYPES overrides the GPU type options (e.g. empty for a CPU dry run); EX9_SRC the path of ex9.c
BUILD=${1:?usage: run_psormg.sh <build-dir> <output-dir> [sizes...]}
OUT=${2:?usage: run_psormg.sh <build-dir> <output-dir> [sizes...]}
shift 2
SIZES=${*:-1025 2049 4097}
TMO=${PSORMG_BENCH_TIMEOUT:-240}
mkdir -p "$OUT"
GPU=${PSORMG_BENCH_TYPES-"-dm_vec_type cuda -dm_mat_type aijcusparse -vec_type cuda -mat_type aijcusparse -use_gpu_aware_mpi 0"}
OBST="$BUILD/examples/obstacle"
TABLE="$OUT/psormg_obstacle.md"
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
DEVICE=${DEVICE:-unknown device}

# PETSc's snes ex9, built unmodified from the PETSc installation
EX9="$OUT/ex9"
if [ ! -x "$EX9" ] && [ -n "${PETSC_DIR:-}" ]; then
  SRC=${EX9_SRC:-"$PETSC_DIR/share/petsc/examples/src/snes/tutorials/ex9.c"}
  [ -f "$SRC" ] || SRC="$PETSC_DIR/src/snes/tutorials/ex9.c"
  PCDIR=$(ls -d "$PETSC_DIR"/lib/pkgconfig "$PETSC_DIR"/"${PETSC_ARCH:-}"/lib/pkgconfig 2>/dev/null | head -1)
  if [ -f "$SRC" ] && [ -n "$PCDIR" ]; then
    PKG_CONFIG_PATH="$PCDIR" mpicc -O2 -o "$EX9" "$SRC" $(PKG_CONFIG_PATH="$PCDIR" pkg-config --cflags --libs PETSc) -lm || rm -f "$EX9"
  fi
fi

# event time (max over ranks, seconds) from -log_view
evtime() { awk -v e="$1" '$1 == e { print $4; exit }' "$2"; }

{
  echo "# PCPSORMG vs SNESVI and TAO gpcg: 2D hemispherical obstacle"
  echo
  echo "Device: $DEVICE. Date: $(date -u +%Y-%m-%d). Times are solve times from -log_view (KSPSolve incl. PCSetUp for psormg,"
  echo "SNESSolve for SNESVI, TaoSolve for TAO), seconds; error = max |u - u_exact| on the grid."
  echo
  echo "| grid | psormg solve (s) | psormg setup (s) | cycles | psormg error | SNESVI vinewtonrsls CG+GAMG (s) | SNESVI result | TAO gpcg (s) | TAO result | speed-up vs SNESVI |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} > "$TABLE"

for N in $SIZES; do
  # 1. psormg
  LOG="$OUT/psormg_$N.log"
  CMD="$OBST -problem hemisphere -n $N -ksp_rtol 1e-8 -ksp_converged_reason -log_view $GPU"
  echo "$CMD" > "$LOG"
  timeout "$TMO" $CMD >> "$LOG" 2>&1
  ts=$(evtime KSPSolve "$LOG"); tsu=$(evtime PCPSORMGSetUp "$LOG")
  cyc=$(grep -o "iterations [0-9]*" "$LOG" | head -1 | awk '{print $2}')
  err=$(grep -o "exact solution [0-9.e+-]*" "$LOG" | awk '{print $3}')
  # 2. SNESVI (ex9), only up to PSORMG_ANCHOR_MAX points per direction
  SLOG="$OUT/snesvi_$N.log"
  if [ "$N" -gt "${PSORMG_ANCHOR_MAX:-100000}" ]; then
    tsn=""; sres="not run (N > PSORMG_ANCHOR_MAX)"
  elif [ -x "$EX9" ]; then
    SCMD="$EX9 -da_grid_x $N -da_grid_y $N -snes_type vinewtonrsls -snes_max_it 50 -ksp_type cg -pc_type gamg -snes_converged_reason -log_view $GPU"
    echo "$SCMD" > "$SLOG"
    timeout "$TMO" $SCMD >> "$SLOG" 2>&1; rc=$?
    tsn=$(evtime SNESSolve "$SLOG")
    sres=$(grep -o "solve converged due to [A-Z_]*\|solve did not converge due to [A-Z_]*" "$SLOG" | head -1)
    [ $rc -eq 124 ] && sres="timeout ${TMO}s"
  else
    tsn=""; sres="ex9 not built (set PETSC_DIR)"
  fi
  # 3. TAO gpcg on the same discretisation as psormg
  TLOG="$OUT/tao_$N.log"
  if [ "$N" -gt "${PSORMG_ANCHOR_MAX:-100000}" ]; then
    tt=""; tres="not run (N > PSORMG_ANCHOR_MAX)"
  else
  TCMD="$OBST -problem hemisphere -n $N -ksp_rtol 1e-8 -compare tao -require_reference false -ref_tao_converged_reason -log_view $GPU"
  echo "$TCMD" > "$TLOG"
  timeout "$TMO" $TCMD >> "$TLOG" 2>&1; rc=$?
  tt=$(evtime TaoSolve "$TLOG")
  tres=$(grep -o "solve converged due to [A-Z_]*\|solve did not converge due to [A-Z_]*\|same solution as the reference[^:]*: yes" "$TLOG" | tr '\n' ';')
  [ $rc -eq 124 ] && tres="timeout ${TMO}s"
  fi
  sp=""
  if [ -n "$ts" ] && [ -n "$tsn" ]; then sp=$(awk -v a="$tsn" -v b="$ts" 'BEGIN { if (b > 0) printf "%.1fx", a / b }'); fi
  echo "| ${N}^2 | ${ts:-failed} | ${tsu:-} | ${cyc:-} | ${err:-} | ${tsn:-n/a} | ${sres} | ${tt:-n/a} | ${tres} | ${sp} |" >> "$TABLE"
done
{
  echo
  echo "Commands (one per log file in this directory):"
  echo
  for f in "$OUT"/psormg_*.log "$OUT"/snesvi_*.log "$OUT"/tao_*.log; do [ -f "$f" ] && echo "    $(head -1 "$f")"; done
} >> "$TABLE"
cat "$TABLE"
