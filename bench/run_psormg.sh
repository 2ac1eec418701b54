#!/usr/bin/env bash
# GPU benchmark of PCPSORMG on the 2D hemispherical obstacle problem (Bueler; PETSc snes ex9's exact solution),
# side by side with PETSc's SNESVI (vinewtonrsls, CG + GAMG; snes tutorial ex9, unmodified) and TAO gpcg on the
# same GPU. Writes a markdown table with setup / solve / time to solution.
#
#   bench/run_psormg.sh <build-dir> <output-dir> [sizes...]      (default sizes: 1025 2049 4097)
#
# psormg: build/examples/obstacle -print_times, which reports the wall-clock time of KSPSetUp (= PCSetUp, the grid
#   hierarchy and Galerkin operators) and of KSPSolve separately, each after the device has finished (the
#   -log_view PCSetUp time column is "n/a" on GPU builds). Tolerance: relative projected residual 1e-8, below the
#   discretisation error (the example checks max|u - u_exact| <= 2 h^2).
# SNESVI: PETSc's snes ex9, built unmodified by CMake as build/tutorials/tutorial_snes_ex9 (cmake/PetscKPTutorials.cmake;
#   fallback: compiled here with mpicc + pkg-config from $PETSC_DIR), vinewtonrsls with CG + GAMG, at most 50 Newton
#   steps; time = wall clock of the whole program (its SNESSolve event time from -log_view is shown next to it).
# TAO gpcg: the obstacle example's own discretisation (-compare tao), reference solve timed by the example.
# The anchors run up to PSORMG_ANCHOR_MAX points per direction (default 1025), each with a wall-clock limit
# PSORMG_ANCHOR_TIMEOUT (default 75 s); psormg runs have PSORMG_BENCH_TIMEOUT (default 120 s). With the default
# sizes the script takes about 3 minutes on one H100.
# PSORMG_BENCH_TYPES overrides the GPU type options (e.g. empty for a CPU dry run).
# PSORMG_RESTRICTIONS lists the obstacle restrictions run per size (default "truncated monotone": Kornhuber's truncated
# monotone multigrid next to the monotone restriction, PCPSORMG's default); each gets its own psormg row
# (-pc_psormg_obstacle_restriction R), the anchors run once per size.
set -u
BUILD=${1:?usage: run_psormg.sh <build-dir> <output-dir> [sizes...]}
OUT=${2:?usage: run_psormg.sh <build-dir> <output-dir> [sizes...]}
shift 2
SIZES=${*:-1025 2049 4097}
TMO=${PSORMG_BENCH_TIMEOUT:-120}
ATMO=${PSORMG_ANCHOR_TIMEOUT:-75}
AMAX=${PSORMG_ANCHOR_MAX:-1025}
RESTR=${PSORMG_RESTRICTIONS:-truncated monotone}
mkdir -p "$OUT"
GPU=${PSORMG_BENCH_TYPES-"-dm_vec_type cuda -dm_mat_type aijcusparse -vec_type cuda -mat_type aijcusparse -use_gpu_aware_mpi 0"}
OBST="$BUILD/examples/obstacle"
TABLE="$OUT/psormg_obstacle.md"
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
DEVICE=${DEVICE:-${DEVICE_NAME:-unknown device (no nvidia-smi)}}

# PETSc's snes ex9, unmodified
EX9="$BUILD/tutorials/tutorial_snes_ex9"
if [ ! -x "$EX9" ]; then
  EX9="$OUT/ex9"
  if [ ! -x "$EX9" ] && [ -n "${PETSC_DIR:-}" ]; then
    SRC=${EX9_SRC:-"$PETSC_DIR/share/petsc/examples/src/snes/tutorials/ex9.c"}
    [ -f "$SRC" ] || SRC="$PETSC_DIR/src/snes/tutorials/ex9.c"
    PCDIR=$(ls -d "$PETSC_DIR"/lib/pkgconfig "$PETSC_DIR"/"${PETSC_ARCH:-}"/lib/pkgconfig 2>/dev/null | head -1)
    if [ -f "$SRC" ] && [ -n "$PCDIR" ]; then
      PKG_CONFIG_PATH="$PCDIR" mpicc -O2 -o "$EX9" "$SRC" $(PKG_CONFIG_PATH="$PCDIR" pkg-config --cflags --libs PETSc) -lm > "$OUT/ex9_build.log" 2>&1 || rm -f "$EX9"
    fi
  fi
fi

# event time (max over ranks, seconds) from -log_view; "n/a" stays as is
evtime() { awk -v e="$1" '$1 == e { print $4; exit }' "$2"; }
# first PETSc error message of a log (so that a failed run never leaves an empty cell)
firsterr() { grep -m1 -o "PETSC ERROR: [A-Z][^-].*" "$1" | head -1 | cut -c14-90; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

{
  echo "# PCPSORMG vs SNESVI and TAO gpcg: 2D hemispherical obstacle"
  echo
  echo "Device: $DEVICE, 1 MPI rank. Date: $(date -u +%Y-%m-%d). psormg times are wall clock with the device synchronised"
  echo "(setup = KSPSetUp/PCSetUp: hierarchy, P, R, Galerkin operators, colourings; solve = KSPSolve; time to solution ="
  echo "setup + solve), seconds; error = max |u - u_exact| on the grid. SNESVI = PETSc snes ex9 (vinewtonrsls, CG + GAMG, at"
  echo "most 50 Newton steps): wall clock of the program (SNESSolve event time in brackets). TAO gpcg: reference solve"
  echo "of the same discretisation, wall clock. Anchors run up to ${AMAX}^2 with a ${ATMO} s limit."
  echo
  echo "| grid | restriction | psormg setup (s) | psormg solve (s) | psormg time to solution (s) | cycles | psormg error | SNESVI vinewtonrsls CG+GAMG (s) | SNESVI result | TAO gpcg (s) | TAO result | speed-up vs SNESVI |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$TABLE"

for N in $SIZES; do
  # 1. psormg, one run per restriction (first one: the row with the anchors)
  declare -A RSU RSO RTS RCY RER
  for R in $RESTR; do
    LOG="$OUT/psormg_${N}_$R.log"
    CMD="$OBST -problem hemisphere -n $N -ksp_rtol 1e-8 -ksp_converged_reason -print_times -pc_psormg_obstacle_restriction $R -log_view $GPU"
    echo "$CMD" > "$LOG"
    timeout "$TMO" $CMD >> "$LOG" 2>&1; rc=$?
    tl=$(grep -m1 "psormg cycles" "$LOG")
    RCY[$R]=$(echo "$tl" | awk '{print $3}' | tr -d ,)
    RSU[$R]=$(echo "$tl" | sed -n 's/.*setup time \([0-9.e+-]*\) s.*/\1/p')
    RSO[$R]=$(echo "$tl" | sed -n 's/.*solve time \([0-9.e+-]*\) s.*/\1/p')
    RTS[$R]=$(echo "$tl" | sed -n 's/.*time to solution \([0-9.e+-]*\) s.*/\1/p')
    RER[$R]=$(grep -o "exact solution [0-9.e+-]*" "$LOG" | awk '{print $3}')
    if [ -z "${RTS[$R]}" ]; then
      [ $rc -eq 124 ] && RTS[$R]="timeout ${TMO}s" || RTS[$R]="failed: $(firsterr "$LOG")"
    fi
  done
  set -- $RESTR
  R1=$1
  tsu=${RSU[$R1]}; tso=${RSO[$R1]}; tts=${RTS[$R1]}; cyc=${RCY[$R1]}; err=${RER[$R1]}
  # 2. SNESVI (ex9)
  SLOG="$OUT/snesvi_$N.log"
  if [ "$N" -gt "$AMAX" ]; then
    tsn=""; sres="not run (N > PSORMG_ANCHOR_MAX)"
  elif [ -x "$EX9" ]; then
    SCMD="$EX9 -da_grid_x $N -da_grid_y $N -snes_type vinewtonrsls -snes_max_it 50 -ksp_type cg -pc_type gamg -snes_converged_reason -log_view $GPU"
    echo "$SCMD" > "$SLOG"
    a=$(now); timeout "$ATMO" $SCMD >> "$SLOG" 2>&1; rc=$?; b=$(now)
    tsn=$(elapsed "$a" "$b"); sev=$(evtime SNESSolve "$SLOG")
    sres=$(grep -o "solve converged due to [A-Z_]*\|solve did not converge due to [A-Z_]*" "$SLOG" | head -1)
    ex9err=$(grep -o "|u-uexact|_inf = [0-9.e+-]*" "$SLOG" | head -1)
    [ -n "$ex9err" ] && sres="$sres; $ex9err"
    [ -n "$sev" ] && tsn="$tsn ($sev)"
    if [ $rc -eq 124 ]; then sres="timeout ${ATMO}s"; tsn="> $ATMO"
    elif [ $rc -ne 0 ]; then sres="failed (rc $rc): $(firsterr "$SLOG")"; tsn=""; fi
    [ -z "$sres" ] && sres="no convergence line (hit -snes_max_it 50?)"
  else
    tsn=""; sres="ex9 not built (PETSc example sources not found by CMake, and PETSC_DIR not set)"
  fi
  # 3. TAO gpcg on the same discretisation as psormg
  TLOG="$OUT/tao_$N.log"
  if [ "$N" -gt "$AMAX" ]; then
    tt=""; tres="not run (N > PSORMG_ANCHOR_MAX)"
  else
    TCMD="$OBST -problem hemisphere -n $N -ksp_rtol 1e-8 -compare tao -require_reference false -ref_tao_converged_reason -print_times $GPU"
    echo "$TCMD" > "$TLOG"
    timeout "$ATMO" $TCMD >> "$TLOG" 2>&1; rc=$?
    tt=$(sed -n 's/.*reference tao solve time \([0-9.e+-]*\) s.*/\1/p' "$TLOG" | head -1)
    tres=$(grep -o "solve converged due to [A-Z_]*\|solve did not converge due to [A-Z_]*\|same solution as the reference[^:]*: yes" "$TLOG" | tr '\n' ';')
    if [ $rc -eq 124 ]; then tres="timeout ${ATMO}s"; tt="> $ATMO"
    elif [ $rc -ne 0 ]; then tres="failed (rc $rc): $(firsterr "$TLOG")"; fi
  fi
  sp=""
  snum=$(echo "$tsn" | awk '{print $1}')
  [ "$snum" = ">" ] && snum=$ATMO
  if [ -n "$tts" ] && [ -n "$snum" ]; then
    sp=$(awk -v a="$snum" -v b="$tts" -v gt="$(echo "$tsn" | grep -c '^>')" 'BEGIN { if (b + 0 > 0) printf "%s%.0fx", gt ? "> " : "", a / b }')
  fi
  echo "| ${N}^2 | $R1 | ${tsu:-} | ${tso:-} | ${tts} | ${cyc:-} | ${err:-} | ${tsn:-n/a} | ${sres} | ${tt:-n/a} | ${tres} | ${sp} |" >> "$TABLE"
  for R in $RESTR; do
    [ "$R" = "$R1" ] && continue
    sp=""
    if [ -n "${RTS[$R]}" ] && [ -n "$snum" ]; then
      sp=$(awk -v a="$snum" -v b="${RTS[$R]}" -v gt="$(echo "$tsn" | grep -c '^>')" 'BEGIN { if (b + 0 > 0) printf "%s%.0fx", gt ? "> " : "", a / b }')
    fi
    echo "| ${N}^2 | $R | ${RSU[$R]:-} | ${RSO[$R]:-} | ${RTS[$R]} | ${RCY[$R]:-} | ${RER[$R]:-} | (as above) | | | | ${sp} |" >> "$TABLE"
  done
  unset RSU RSO RTS RCY RER
done
{
  echo
  echo "Commands (one per log file in this directory):"
  echo
  for f in "$OUT"/psormg_*.log "$OUT"/snesvi_*.log "$OUT"/tao_*.log; do [ -f "$f" ] && echo "    $(head -1 "$f")"; done
  echo
  echo "psormg event times (-log_view, max over ranks, seconds; PCSetUp = the whole setup, KPMGGalerkin = Galerkin products of"
  echo "the setup and, with the truncated restriction, of the truncations, KPDevMatSetup = copy of the operator to device CSR):"
  echo
  echo "| run | PCSetUp | KPDevMatSetup | KPMGGalerkin | PCPSORMGCycle | PCPSORMGSweep | KSPSolve |"
  echo "|---|---|---|---|---|---|---|"
  for f in "$OUT"/psormg_*.log; do
    [ -f "$f" ] || continue
    echo "| $(basename "$f" .log) | $(evtime PCSetUp "$f") | $(evtime KPDevMatSetup "$f") | $(evtime KPMGGalerkin "$f") | $(evtime PCPSORMGCycle "$f") | $(evtime PCPSORMGSweep "$f") | $(evtime KSPSolve "$f") |"
  done
} >> "$TABLE"
cat "$TABLE"
