#!/usr/bin/env bash
# GPU benchmark of PCUAAMG (auxiliary-grid unsmoothed-aggregation AMG; Wang, Hu, Cohen, Xu, SIAM J. Sci. Comput.
# 35(3), 2013) against PETSc's GAMG (unsmoothed and smoothed aggregation) and hypre BoomerAMG (when PETSc has it) on
# the same problems, same GPU, one run. Writes a markdown table (setup, solve, total, iterations, complexities) and
# the raw logs.
#
#   bench/run_uaamg.sh <build-dir> <output-dir> [problem groups...]
#
# groups (default: all of them, in this order):
#   poisson3d  examples/poisson -dim 3, 129^3 and 257^3 unknowns, rtol 1e-8 (unpreconditioned residual)
#   poisson2d  examples/poisson -dim 2, 2048^2 unknowns, rtol 1e-8
#   fem        examples/fem, P1 on the paper's 2D meshes at the paper's first sizes (Tables 2-5), rtol 1e-6, all
#              solvers in one process per mesh (-extra_solvers, the tolerances repeated with each prefix):
#              uniform 1023^2, quasi-uniform 1,439,745, graded 3,404,545, disk 2,761,921 (the paper: 2,881,025);
#              UAAMG_FEM_LARGE=1 adds the second sizes (4,190,209 / 5,763,073 / 13,624,833 / 11,053,441)
#   heat3d     examples/heat3d, one backward Euler step of the paper's heat test (Tables 6-7), rtol 1e-6:
#              cube 97^3 = 912,673 (paper: 909,749) and 121^3 = 1,771,561 (1,766,015); cavity 80^3 -> 432,000
#              (410,482) and 136^3 -> 2,122,496 (2,094,240)
#   ex45       PETSc's ksp ex45 (unmodified, -dll_append) on 2 ranks at 33^3, 65^3, 129^3: the iteration counts of
#              FCG + uaamg (rtol 1e-6, unpreconditioned norm) and their growth
#
# Solvers (UAAMG_BENCH_SOLVERS, default "uaamg uaamgp gamg0 gamg1 hypre"):
#   uaamg  -ksp_type fgmres -pc_type uaamg (K-cycle, defaults; PETSc 3.25's KSPFCG copies vectors to the host on GPUs)
#   uaamgp the paper's configuration: depth rule floor(log_{2^d} N), the domain's box as the root of the auxiliary
#          grid (-pc_uaamg_bbox), no early exit in the K-cycle (-pc_uaamg_kcycle_rtol 0)
#   gamg0  -ksp_type cg -pc_type gamg -pc_gamg_agg_nsmooths 0 (unsmoothed aggregation, the closest relative)
#   gamg1  -ksp_type cg -pc_type gamg -pc_gamg_agg_nsmooths 1 (smoothed aggregation, GAMG's default)
#   hypre  -ksp_type cg -pc_type hypre -pc_hypre_type boomeramg, PMIS coarsening, ext+i interpolation, l1-Jacobi
#          relaxation (the device path of hypre); skipped when PETSc has no hypre
# The examples are given GAMG's and hypre's coordinates interface too (PCSetCoordinates), so every solver sees the same
# system. Times: the examples' -print_times (KSPSetUp = PCSetUp, and KSPSolve, each ended by a norm that waits for the
# device, wall clock, max over ranks by barrier) and -log_view's PCSetUp / KSPSolve event times (max over ranks);
# ex45 has no -print_times: setup = PCSetUp event, solve = KSPSolve event (KSPSolve calls KSPSetUp before its event).
#
# Environment: UAAMG_BENCH_TYPES (GPU type options; empty for a CPU dry run), UAAMG_BENCH_TIMEOUT (s per run,
# default 150), UAAMG_BENCH_QUICK=1 (small sizes: a dry run of the script on a CPU), MPIEXEC (default mpiexec).
set -u
BUILD=${1:?usage: run_uaamg.sh <build-dir> <output-dir> [groups...]}
OUT=${2:?usage: run_uaamg.sh <build-dir> <output-dir> [groups...]}
shift 2
GROUPS_=${*:-poisson3d poisson2d fem heat3d ex45}
TMO=${UAAMG_BENCH_TIMEOUT:-150}
QUICK=${UAAMG_BENCH_QUICK:-0}
SOLVERS=${UAAMG_BENCH_SOLVERS:-uaamg uaamgp gamg0 gamg1 hypre}
GPU=${UAAMG_BENCH_TYPES-"-vec_type cuda -mat_type aijcusparse -dm_vec_type cuda -dm_mat_type aijcusparse -use_gpu_aware_mpi 0"}
MPIEXEC=${MPIEXEC:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$OUT/logs"
TABLE="$OUT/uaamg_gpu.md" # rows appended: remove the output directory for a fresh table
RAW="$OUT/uaamg_raw.csv"
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
DEVICE=${DEVICE:-${DEVICE_NAME:-$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | sed 's/^ */CPU: /')}}

solver_args() {
  case "$1" in
    uaamg) echo "-ksp_type fgmres -pc_type uaamg" ;;
    uaamgp) echo "-ksp_type fgmres -pc_type uaamg -pc_uaamg_depth_rule paper -pc_uaamg_kcycle_rtol 0 -pc_uaamg_bbox $BBOX" ;;
    gamg0) echo "-ksp_type cg -pc_type gamg -pc_gamg_agg_nsmooths 0" ;;
    gamg1) echo "-ksp_type cg -pc_type gamg -pc_gamg_agg_nsmooths 1" ;;
    hypre) echo "-ksp_type cg -pc_type hypre -pc_hypre_type boomeramg -pc_hypre_boomeramg_coarsen_type PMIS -pc_hypre_boomeramg_interp_type ext+i -pc_hypre_boomeramg_relax_type_all l1scaled-Jacobi" ;;
  esac
}

# event time (max over ranks, seconds) from -log_view
evtime() { awk -v e="$1" '$1 == e { print $4; exit }' "$2"; }
firsterr() { grep -m1 -o "PETSC ERROR: [A-Z][^-].*" "$1" | head -1 | cut -c14-100; }
fmt() { awk -v x="$1" 'BEGIN { if (x == "" || x == "n/a") print "-"; else printf "%.4g", x }'; }

HAVE_HYPRE=0
if echo " $SOLVERS " | grep -q " hypre "; then
  "$BUILD/examples/poisson" -dim 2 -n 8 $(solver_args hypre) $GPU > "$OUT/logs/hypre_probe.log" 2>&1 && HAVE_HYPRE=1
fi

if [ ! -f "$TABLE" ]; then # a later call with other groups appends its rows to the same table
{
  echo "# PCUAAMG against GAMG and BoomerAMG"
  echo
  echo "Device: $DEVICE. Date: $(date -u +%Y-%m-%d). Script: \`bench/run_uaamg.sh\`; GPU types: \`$GPU\`."
  echo "Setup = KSPSetUp (PCSetUp), solve = KSPSolve, wall clock with the device synchronised (examples' -print_times);"
  echo "in brackets the -log_view event times. Seconds. uaamg runs under FCG (its K-cycle is nonlinear), the others under CG."
  echo "hypre: $([ $HAVE_HYPRE = 1 ] && echo "BoomerAMG (PMIS, ext+i, l1-Jacobi)" || echo "not available in this PETSc (see logs/hypre_probe.log)")."
  echo "The paper's tables side by side: \`uaamg_paper.md\`."
  echo
  echo "| problem | N | solver | iterations | setup (s) | solve (s) | total (s) | [PCSetUp / KSPSolve log_view] | complexities | result |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} > "$TABLE"
echo "problem,N,solver,iterations,setup_s,solve_s,total_s,logview_pcsetup_s,logview_kspsolve_s,complexities,result,command" > "$RAW"
fi

# run <problem label> <solver> <nranks> <command...>
run() {
  local label=$1 solver=$2 np=$3
  shift 3
  local log="$OUT/logs/${label}_${solver}.log" rc cmd
  if [ "$solver" = hypre ] && [ $HAVE_HYPRE = 0 ]; then return; fi
  if [ "$np" -gt 1 ]; then cmd="$MPIEXEC -n $np $*"; else cmd="$*"; fi
  cmd="$cmd $(solver_args "$solver") $GPU -log_view"
  echo "$cmd" > "$log"
  timeout "$TMO" $cmd >> "$log" 2>&1; rc=$?
  local N its su so tot lsu lso cx res
  N=$(grep -m1 -o "N = [0-9]*" "$log" | awk '{print $3}')
  [ -z "$N" ] && N=$(sed -n 's/^Poisson \([23]\)D, \([0-9]*\) points per direction.*/\2 \1/p' "$log" | awk '{ print $1 ^ $2; exit }')
  [ -z "$N" ] && N=$(grep -o "rows=[0-9]*" "$log" | cut -d= -f2 | sort -n | tail -1) # the finest level
  its=$(sed -n 's/^times: .*iterations \([0-9]*\).*/\1/p' "$log" | head -1)
  [ -z "$its" ] && its=$(grep -m1 -o "iterations [0-9]*" "$log" | awk '{print $2}')
  su=$(sed -n 's/^times: setup \([0-9.e+-]*\) s.*/\1/p' "$log" | head -1)
  so=$(sed -n 's/^times: .*solve \([0-9.e+-]*\) s.*/\1/p' "$log" | head -1)
  lsu=$(evtime PCSetUp "$log"); lso=$(evtime KSPSolve "$log")
  if [ -z "$su" ]; then # ex45: KSPSolve sets the KSP up before its KSPSolve event begins
    su=$lsu; so=$lso
  fi
  tot=$( [ -n "$su" ] && [ -n "$so" ] && awk -v a="$su" -v b="$so" 'BEGIN { printf "%g", a + b }')
  cx=$(grep -m1 -o "operator complexity [0-9.]*, grid complexity [0-9.]*" "$log" | sed 's/operator complexity /op /; s/grid complexity /grid /')
  [ -z "$cx" ] && cx=$(grep -m1 -E "Complexity: +grid" "$log" | sed -E 's/.*grid = *([0-9.]+) +operator = *([0-9.]+).*/op \2, grid \1/')
  if [ $rc -eq 0 ]; then res=ok; elif [ $rc -eq 124 ]; then res="timeout ${TMO} s"; else res="rc $rc: $(firsterr "$log")"; fi
  echo "| $label | ${N:--} | $solver | ${its:--} | $(fmt "$su") | $(fmt "$so") | $(fmt "$tot") | [$(fmt "$lsu") / $(fmt "$lso")] | ${cx:--} | $res |" >> "$TABLE"
  echo "$label,${N},$solver,${its},${su},${so},${tot},${lsu},${lso},\"${cx}\",\"$res\",\"$cmd\"" >> "$RAW"
  echo "$label $solver: its ${its:--} setup $(fmt "$su") solve $(fmt "$so") $res"
}

# event time in one -log_view stage (by name)
evstage() { awk -v e="$1" -v st="$2" '/^--- Event Stage/ { on = ($NF == st) } on && $1 == e { print $4; exit }' "$3"; }
# the complexities printed by -solver_view in the k-th part of a log (parts end at the lines "times:" / "solver ")
cxpart() {
  awk -v k="$1" '/^(times:|solver )/ { part++; next } part == k && !done && /operator complexity|Complexity: +grid/ { print; done = 1 }' "$2" |
    sed -E 's/.*operator complexity ([0-9.]+), grid complexity ([0-9.]+).*/op \1, grid \2/; s/.*grid = *([0-9.]+) +operator = *([0-9.]+).*/op \2, grid \1/'
}
row() { # label N solver its su so lsu lso cx res cmd
  local tot
  tot=$( [ -n "$5" ] && [ -n "$6" ] && awk -v a="$5" -v b="$6" 'BEGIN { printf "%g", a + b }')
  echo "| $1 | ${2:--} | $3 | ${4:--} | $(fmt "$5") | $(fmt "$6") | $(fmt "$tot") | [$(fmt "$7") / $(fmt "$8")] | ${9:--} | ${10} |" >> "$TABLE"
  echo "$1,$2,$3,$4,$5,$6,$tot,$7,$8,\"$9\",\"${10}\",\"${11}\"" >> "$RAW"
  echo "$1 $3: its ${4:--} setup $(fmt "$5") solve $(fmt "$6") ${10}"
}

# run_multi <problem label> <command...>: one process for all solvers (examples/fem -extra_solvers: the mesh is made
# once); the first solver of $SOLVERS is the example's own KSP, the others get the options prefixes <solver>_ (with
# $KSPOPTS, the tolerances) and their own -log_view stages
run_multi() {
  local label=$1
  shift
  local log="$OUT/logs/${label}.log" first="" extras="" xargs_="" cmd rc s k res N
  for s in $SOLVERS; do
    if [ "$s" = hypre ] && [ $HAVE_HYPRE = 0 ]; then continue; fi
    if [ -z "$first" ]; then first=$s; continue; fi
    extras="$extras${extras:+,}${s}_"
    xargs_="$xargs_ $(echo " $(solver_args "$s") $KSPOPTS -solver_view" | sed "s/ -\([a-z]\)/ -${s}_\1/g")"
  done
  cmd="$* $(solver_args "$first") ${extras:+-extra_solvers $extras} $xargs_ $GPU -log_view"
  echo "$cmd" > "$log"
  timeout "$TMO" $cmd >> "$log" 2>&1; rc=$?
  if [ $rc -eq 0 ]; then res=ok; elif [ $rc -eq 124 ]; then res="timeout ${TMO} s"; else res="rc $rc: $(firsterr "$log")"; fi
  N=$(grep -m1 -o "N = [0-9]*" "$log" | awk '{print $3}')
  row "$label" "$N" "$first" "$(sed -n 's/^times: .*iterations \([0-9]*\).*/\1/p' "$log" | head -1)" \
      "$(sed -n 's/^times: setup \([0-9.e+-]*\) s.*/\1/p' "$log" | head -1)" "$(sed -n 's/^times: .*solve \([0-9.e+-]*\) s.*/\1/p' "$log" | head -1)" \
      "$(evtime PCSetUp "$log")" "$(evtime KSPSolve "$log")" "$(cxpart 0 "$log")" "$res" "$cmd"
  k=0
  for s in $(echo "$extras" | tr , ' '); do
    k=$((k + 1))
    local l
    l=$(grep -m1 "^solver $s:" "$log")
    row "$label" "$N" "${s%_}" "$(echo "$l" | sed -n 's/.*iterations \([0-9]*\).*/\1/p')" \
        "$(echo "$l" | sed -n 's/.*setup \([0-9.e+-]*\) s.*/\1/p')" "$(echo "$l" | sed -n 's/.*solve \([0-9.e+-]*\) s.*/\1/p')" \
        "$(evstage PCSetUp "$s" "$log")" "$(evstage KSPSolve "$s" "$log")" "$(cxpart $k "$log")" \
        "$( [ -n "$l" ] && echo "$l" | cut -d: -f2 | cut -d, -f1 | tr -d ' ' || echo "$res")" "$cmd"
  done
}

POI="$BUILD/examples/poisson"
FEM="$BUILD/examples/fem"
HEAT="$BUILD/examples/heat3d"
EX45="$BUILD/tutorials/tutorial_ksp_ex45"
LIB=$(ls "$BUILD"/libpetsckp.so* 2>/dev/null | head -1)
for g in $GROUPS_; do
  BBOX=0,1,0,1,0,1 # the domain's box (for uaamgp)
  case $g in
    poisson3d)
      if [ "$QUICK" = 1 ]; then SIZES="17 33"; else SIZES="129 257"; fi
      for n in $SIZES; do for s in $SOLVERS; do
        run "poisson3d_$n^3" "$s" 1 "$POI" -dim 3 -n "$n" -ksp_rtol 1e-8 -ksp_norm_type unpreconditioned -ksp_max_it 2000 -print_times -solver_view
      done; done ;;
    poisson2d)
      BBOX=0,1,0,1
      if [ "$QUICK" = 1 ]; then SIZES="129"; else SIZES="2048"; fi
      for n in $SIZES; do for s in $SOLVERS; do
        run "poisson2d_$n^2" "$s" 1 "$POI" -dim 2 -n "$n" -ksp_rtol 1e-8 -ksp_norm_type unpreconditioned -ksp_max_it 2000 -print_times -solver_view
      done; done ;;
    fem)
      if [ "$QUICK" = 1 ]; then
        CASES="uniform:-base_n_2_-refine_5 quasiuniform:-refine_4 graded:-refine_4 disk:-disk_rings_15_-refine_2"
      else
        CASES="uniform:-base_n_2_-refine_9 quasiuniform:-refine_8 graded:-refine_8 disk:-disk_rings_15_-refine_6"
        [ "${UAAMG_FEM_LARGE:-0}" = 1 ] && CASES="$CASES uniform:-base_n_2_-refine_10 quasiuniform:-refine_9 graded:-refine_9 disk:-disk_rings_15_-refine_7"
      fi
      for c in $CASES; do
        m=${c%%:*}; a=$(echo "${c#*:}" | tr _ ' ')
        if [ "$m" = disk ]; then BBOX=-1,1,-1,1; else BBOX=0,1,0,1; fi
        KSPOPTS="-ksp_rtol 1e-6 -ksp_norm_type unpreconditioned -ksp_max_it 2000"
        run_multi "fem_${m}$(echo "$a" | grep -o 'refine [0-9]*' | tr -d ' ')" "$FEM" -mesh "$m" $a $KSPOPTS -error_bound 1e9 -print_times -solver_view
      done ;;
    heat3d)
      if [ "$QUICK" = 1 ]; then CASES="cube:24 cavity:24"; else CASES="cube:97 cube:121 cavity:80 cavity:136"; fi
      for c in $CASES; do
        d=${c%%:*}; n=${c#*:}
        for s in $SOLVERS; do
          run "heat3d_${d}_$n^3" "$s" 1 "$HEAT" -domain "$d" -n "$n" -ksp_rtol 1e-6 -ksp_norm_type unpreconditioned -ksp_max_it 2000 -reference 0 -print_times -solver_view
        done
      done ;;
    ex45)
      if [ ! -x "$EX45" ]; then echo "ex45: $EX45 not built"; continue; fi
      if [ "$QUICK" = 1 ]; then SIZES="17 33"; else SIZES="33 65 129"; fi
      for n in $SIZES; do for s in $SOLVERS; do
        [ "$s" = uaamgp ] && continue # the DMDA has no coordinates: the PC aggregates grid indices, no domain box
        run "ex45_np2_$n^3" "$s" 2 "$EX45" -dll_append "$LIB" -da_grid_x "$n" -da_grid_y "$n" -da_grid_z "$n" -ksp_rtol 1e-6 -ksp_norm_type unpreconditioned -ksp_converged_reason -ksp_view
      done; done
      # iteration growth of FCG + uaamg over the sizes (Done-when: <= 30 iterations, growth <= 30%)
      its=$(grep "^| ex45_np2_.* | uaamg |" "$TABLE" | awk -F'|' '{gsub(/ /, "", $5); print $5}' | tr '\n' ' ')
      echo "$its" | awk '{ if (NF >= 2 && $1 > 0) printf "\nex45 on 2 ranks, FCG + uaamg iterations over the sizes: %s (growth %.0f%% from the first to the last)\n", $0, 100 * ($NF - $1) / $1 }' >> "$TABLE" ;;
    *) echo "unknown group $g" ;;
  esac
done

{
  echo "# The paper's tables side by side (Wang, Hu, Cohen, Xu 2013; Tesla C2070, CUSP 0.3.0 smoothed aggregation as the baseline)"
  echo
  echo "| paper case | paper N | paper new: setup / its / solve (s) | paper CUSP: setup / its / solve (s) | our case (rows above) |"
  echo "|---|---|---|---|---|"
  echo "| Table 2, uniform 1024^2 | 1,046,529 | 0.03 / 10 / 0.13 | 0.63 / 36 / 0.35 | fem_uniformrefine9 |"
  echo "| Table 3, quasi-uniform | 1,439,745 | 0.16 / 15 / 0.49 | 1.09 / 40 / 0.82 | fem_quasiuniformrefine8 |"
  echo "| Table 4, shape-regular (graded) | 3,404,545 | 0.35 / 25 / 2.12 | 2.23 / 52 / 2.51 | fem_gradedrefine8 |"
  echo "| Table 5, disk | 2,881,025 | 0.30 / 21 / 1.65 | 2.19 / 50 / 1.68 | fem_diskrefine6 (2,761,921) |"
  echo "| Table 6, heat cube | 909,749 | 0.26 / - / 0.37 | 1.75 / - / 0.60 | heat3d_cube_97^3 |"
  echo "| Table 6, heat cube | 1,766,015 | 0.39 / - / 0.64 | 1.94 / - / 0.52 | heat3d_cube_121^3 |"
  echo "| Table 7, heat cavity | 410,482 | 0.11 / - / 0.05 | 0.67 / - / 0.12 | heat3d_cavity_80^3 |"
  echo "| Table 7, heat cavity | 2,094,240 | 0.22 / - / 0.32 | 1.14 / - / 0.38 | heat3d_cavity_136^3 |"
  echo
  echo
  echo "Our rows: \`uaamg_gpu.md\`. Logs (command, output, -log_view) in \`logs/\`; the same rows as CSV in \`uaamg_raw.csv\`."
} > "$OUT/uaamg_paper.md"
# kernel breakdown of the largest uaamg runs
for l in "$OUT"/logs/poisson3d_257^3_uaamg.log "$OUT"/logs/poisson2d_2048^2_uaamg.log; do
  [ -f "$l" ] && python3 "$(dirname "$0")/logview.py" --breakdown "$l" > "${l%.log}_breakdown.md" 2>/dev/null
done
cat "$TABLE"
