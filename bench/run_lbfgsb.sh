#!/bin/bash
# GPU benchmark of TAO lbfgsb (petsckp) against TAO BLMVM and BQNLS on GPU vectors.
#   bench/run_lbfgsb.sh <build dir> <output dir>
# Problems: MINPACK-2 steady-state combustion (DSSCFG, lambda = 5, box [-1, 1]) at 1024^2, 2048^2, 4096^2 (a fixed
# number of iterations, ms per iteration from -log_view's TaoSolve time, f/g evaluation excluded via the
# TAO objective/gradient events), time to solution at 1024^2; PETSc's jbearing2 at 1024 x 1024 (-dll_append).
# cuLBFGSB (nepluno/lbfgsb-gpu) is not built on the benchmark machine, so it is not in the table.
set -u
BUILD=${1:?build dir}
OUT=${2:?output dir}
mkdir -p "$OUT"
EX=$BUILD/examples/minpack2
LIB=$BUILD/libpetsckp.so
GPU="-dm_vec_type cuda -vec_type cuda -use_gpu_aware_mpi 0"
# knobs: sizes, per-run time limit, CVT configurations (sites resolution;...)
SIZES=${LBFGSB_SIZES:-1024 2048 4096}
TMO=${LBFGSB_TIMEOUT:-300}
CVTCFG=${LBFGSB_CVT:-2000 1024;20000 2048;60000 2048}
DEV=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
TABLE=$OUT/lbfgsb.md
echo "# TAO lbfgsb GPU benchmark ($DEV, $(date -u +%Y-%m-%d))" > "$TABLE"
echo "" >> "$TABLE"
echo "| problem | n | solver | iterations | f/g evals | TaoSolve s | f/g s | solver ms/iter (excl. f/g) | f |" >> "$TABLE"
echo "|---|---|---|---|---|---|---|---|---|" >> "$TABLE"

parse() { # log name problem n solver
  python3 - "$@" <<'PY' >> "$TABLE"
import re, sys
log, name, prob, n, solver = sys.argv[1:6]
t = open(log).read()
def ev(e):
    m = re.search(r'^' + re.escape(e) + r'\s+\d+\s+\S+\s+(\S+)', t, re.M)
    return float(m.group(1)) if m else 0.0
its = re.search(r'total number of iterations=\s*(\d+)', t)
nf = re.search(r'total number of function/gradient evaluations=\s*(\d+)', t)
f = re.search(r'Objective value=\s*(\S+)', t)
its = int(its.group(1)) if its else 0
solve, fg = ev('TaoSolve'), ev('TaoObjGradEval')
ms = 1000.0 * (solve - fg) / max(its, 1)
print(f'| {prob} | {n} | {solver} | {its} | {nf.group(1) if nf else "?"} | {solve:.3f} | {fg:.3f} | {ms:.3f} | {f.group(1) if f else "?"} |')
PY
}

run() { # name problem N maxit solver-options...
  local name=$1 prob=$2 N=$3 maxit=$4; shift 4
  local log=$OUT/$name.log
  echo "## $name" >> "$OUT/commands.txt"
  local cmd="$EX -problem $prob -nx $N -ny $N -check 0 -require_convergence 0 -tao_max_it $maxit -tao_view -log_view $GPU $*"
  echo "$cmd" >> "$OUT/commands.txt"
  timeout $TMO $cmd > "$log" 2>&1
  parse "$log" "$name" "$prob" "$((N*N))" "$*"
}

# ms per iteration at fixed iteration counts
for N in $SIZES; do
  IT=100; [ $N -eq 4096 ] && IT=50
  run ssc_${N}_lbfgsb ssc $N $IT -tao_type lbfgsb -tao_lbfgsb_m 5
  run ssc_${N}_lbfgsb_approx ssc $N $IT -tao_type lbfgsb -tao_lbfgsb_m 5 -tao_lbfgsb_cauchy approximate
  run ssc_${N}_blmvm ssc $N $IT -tao_type blmvm
  run ssc_${N}_bqnls ssc $N $IT -tao_type bqnls
done
# the exact Cauchy point's breakpoint scan: device prefix sums (default) vs the host reference recurrences
run ssc_1024_lbfgsb_hostscan ssc 1024 100 -tao_type lbfgsb -tao_lbfgsb_m 5 -tao_lbfgsb_cauchy_scan host
run ept_1024_lbfgsb ept 1024 100 -tao_type lbfgsb -tao_lbfgsb_m 5
run ept_1024_lbfgsb_hostscan ept 1024 100 -tao_type lbfgsb -tao_lbfgsb_m 5 -tao_lbfgsb_cauchy_scan host
# time to solution at 1024^2 (gatol 1e-6 on the projected gradient, at most 2000 iterations)
for S in "lbfgsb -tao_lbfgsb_m 5" "blmvm" "bqnls"; do
  run ssc_1024_solve_${S%% *} ssc 1024 2000 -tao_type $S -tao_gatol 1e-6 -tao_grtol 0
done
# unmodified PETSc jbearing2 at 1024 x 1024 (goal: >= 25x faster than BQNLS)
JB=$BUILD/tutorials/tutorial_jbearing2
if [ -x "$JB" ]; then
  for S in "-dll_append $LIB -tao_type lbfgsb" "-tao_type bqnls" "-tao_type blmvm"; do
    name=jbearing2_1024_$(echo $S | awk '{print $NF}')
    cmd="$JB -mx 1024 -my 1024 -tao_view -log_view $GPU $S"
    echo "## $name" >> "$OUT/commands.txt"; echo "$cmd" >> "$OUT/commands.txt"
    timeout $TMO $cmd > "$OUT/$name.log" 2>&1
    parse "$OUT/$name.log" "$name" jbearing2 $((1024*1024)) "$S"
  done
fi
# CVT (the paper's Table 2 sizes): sites on the device-evaluated energy, lbfgsb (m = 8, as the paper) vs BLMVM
CVT=$BUILD/examples/cvt
if [ -x "$CVT" ]; then
  echo "$CVTCFG" | tr ';' '\n' | while read -r cfg; do
    [ -n "$cfg" ] || continue
    set -- $cfg
    for S in "-tao_type lbfgsb -tao_lbfgsb_m 8" "-tao_type lbfgsb -tao_lbfgsb_m 8 -tao_lbfgsb_cauchy approximate" "-tao_type blmvm"; do
      name=cvt_$1_$2_$(echo $S | awk '{print $NF}')
      cmd="$CVT -nsites $1 -res $2 -require_convergence 0 -tao_max_it 100 -tao_view -log_view -vec_type cuda -use_gpu_aware_mpi 0 $S"
      echo "## $name" >> "$OUT/commands.txt"; echo "$cmd" >> "$OUT/commands.txt"
      timeout $TMO $cmd > "$OUT/$name.log" 2>&1
      parse "$OUT/$name.log" "$name" "cvt R=$2" $((2 * $1)) "$S"
    done
  done
fi
echo "" >> "$TABLE"
echo "Commands: commands.txt; raw logs: *.log. cuLBFGSB is not included (not available on the benchmark machine)." >> "$TABLE"
cat "$TABLE"
