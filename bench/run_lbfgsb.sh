#!/bin/bash
# GPU benchmark of TAO lbfgsb (petsckp) against TAO BLMVM and BQNLS on GPU vectors, and (merged) cuLBFGSB.
#   bench/run_lbfgsb.sh <build dir> <output dir> [cuLBFGSB results file, from .gpu/culbfgsb.sh]
#
# 1. MINPACK-2 steady-state combustion as cuLBFGSB's example dsscfg defines it (examples/minpack2 -problem dsscfg:
#    lambda 1, no bounds, cuLBFGSB's start), f and g evaluated on the device, at LBFGSB_SIZES (1024^2 2048^2 4096^2).
#    Every solver stops by ONE test, the example's -pg_stop: ||P(x - g) - x||_inf <= LBFGSB_PG (cuLBFGSB's eps_g
#    measure), with lbfgsb's relative-f test off (-tao_lbfgsb_factr 0) and TAO's gatol/grtol/gttol set to 0, so
#    neither BLMVM's 2-norm nor BQNLS's Fischer-norm test nor lbfgsb's factr test can stop a run earlier. A run that
#    reaches LBFGSB_TLIM seconds of TaoSolve stops (reason DIVERGED_USER) and still reports its iterations.
#    Time to solution = TaoSolve wall time (device synchronised); solver-only ms/iteration = (TaoSolve - f/g wall
#    time) / iterations, f/g measured inside the example's callback (synchronised), not from -log_view.
# 2. The bounded MINPACK-2 ssc (lambda 5, box [-1, 1]) at LBFGSB_SSC: lbfgsb exact and approximate Cauchy point,
#    BLMVM, BQNLS, same stopping test.
# 3. Unmodified PETSc tao/bound/tutorials/jbearing2 at 1024 x 1024 on GPU vectors (-dm_vec_type cuda
#    -dm_mat_type aijcusparse: its quadratic term is a cuSPARSE MatMult, but its f/g loop reads the vectors with
#    VecGetArray, so every evaluation copies them to the host and back): lbfgsb (-dll_append) vs bqnls vs blmvm
#    with TAO's default tolerances (gatol = grtol = 1e-8) and no iteration or evaluation cap (BQNLS's default cap of 50 iterations is
#    also run, as the anchor measurement of 11.3 s used it), lbfgsb told to test the 2-norm of P(x - g) - x
#    (-tao_lbfgsb_gnorm 2, BLMVM's norm) without its factr test. Times from -log_view: TaoSolve and the f/g events
#    (PETSc 3.25: TaoTermObjGrad/TaoTermObjEval/TaoTermGradEval; 3.18-3.24: TaoObjGradEval/TaoObjectiveEval/
#    TaoGradientEval; summed, they do not nest). lbfgsb without its factr test may end in "Line Search Failure" at the
#    round-off floor before ||P(x - g) - x||_2 reaches 1e-8 (at 64 x 64: 6e-8, f equal to BLMVM's to all printed
#    digits), as the reference L-BFGS-B does ("ABNORMAL_TERMINATION_IN_LNSRCH"). A run killed by its time limit
#    (LBFGSB_TLIM + 20 s) is reported with the iterations -tao_monitor printed. The numbers of the OUTER Tao are taken (BQNLS's -tao_view prints
#    its unused inner BNCG solver first, with 0 iterations: the reason why the previous table said "stopped at
#    iteration 0").
# 4. examples/cvt at LBFGSB_CVT (sites resolution), lbfgsb (m = 8) vs BLMVM, at most 200 iterations.
# 5. cuLBFGSB rows from the results file of .gpu/culbfgsb.sh (3rd argument or CULBFGSB_RESULTS), if present.
set -u
BUILD=${1:?build dir}
OUT=${2:?output dir}
CUL=${3:-${CULBFGSB_RESULTS:-}}
mkdir -p "$OUT"
BUILD=$(cd "$BUILD" && pwd)
EX=$BUILD/examples/minpack2
LIB=$BUILD/libpetsckp.so
GPU=${LBFGSB_VECOPTS-"-dm_vec_type cuda -vec_type cuda -dm_mat_type aijcusparse -mat_type aijcusparse -use_gpu_aware_mpi 0"} # (empty: a CPU smoke test)
SIZES=${LBFGSB_SIZES-1024 2048 4096}
PG=${LBFGSB_PG:-1e-6}
TLIM=${LBFGSB_TLIM:-20}
SSC=${LBFGSB_SSC-1024}
JBN=${LBFGSB_JBEARING:-1024}
CVTCFG=${LBFGSB_CVT-20000 2048}
HERE=$(cd "$(dirname "$0")" && pwd)
DEV=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
TABLE=$OUT/lbfgsb.md
CMDS=$OUT/commands.txt
: > "$CMDS"
{
  echo "# TAO lbfgsb GPU benchmark (${DEV:-no GPU found}, $(date -u +%Y-%m-%d))"
  echo ""
  echo "Stopping test of the minpack2 rows: ||P(x - g) - x||_inf <= $PG for every solver (example option -pg_stop),"
  echo "at most $TLIM s of TaoSolve per run (reason DIVERGED_USER: not reached). Solver-only ms/iteration = (TaoSolve - f/g) / iterations."
  echo ""
  echo "| problem | n | solver | iterations | f/g evals | time to solution s | f/g s | solver-only ms/iter | f | final pg_inf | reason |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
} > "$TABLE"

row_summary() { # log problem label : a row from the example's SUMMARY line
  python3 - "$@" <<'PY' >> "$TABLE"
import re, sys
log, prob, label = sys.argv[1:4]
t = open(log, errors='replace').read()
m = re.findall(r'^SUMMARY (.*)$', t, re.M)
if not m:
    err = re.search(r'PETSC ERROR: (.+)', t)
    print(f'| {prob} | - | {label} | - | - | - | - | - | - | - | failed or timed out: {err.group(1).strip() if err else "see " + log.split("/")[-1]} |')
    sys.exit(0)
d = dict(kv.split('=', 1) for kv in m[-1].split())
print(f"| {prob} | {d['n']} | {label} | {d['its']} | {d['fg']} | {float(d['solve_s']):.3f} | {float(d['fg_s']):.3f} | {float(d['solver_ms_per_it']):.3f} | {d['f']} | {d['pginf']} | {d['reason']} |")
PY
}

row_logview() { # log problem n label time-limit : a row from -tao_view and -log_view (unmodified programs)
  python3 - "$@" <<'PY' >> "$TABLE"
import re, sys
log, prob, n, label, tlim = sys.argv[1:6]
t = open(log, errors='replace').read()
def ev(e):
    m = re.search(r'^' + re.escape(e) + r'\s+(\d+)\s+\S+\s+(\S+)', t, re.M)
    return float(m.group(2)) if m else 0.0
solve = ev('TaoSolve')
fg = sum(ev(e) for e in ('TaoTermObjGrad', 'TaoTermObjEval', 'TaoTermGradEval', 'TaoObjGradEval', 'TaoObjectiveEval', 'TaoGradientEval'))
last = lambda pat: (re.findall(pat, t) or ['?'])[-1]   # the outer Tao's view comes last
its = last(r'total number of iterations=\s*(\d+)')
nfg = last(r'total number of function/gradient evaluations=\s*(\d+)')
f = last(r'Objective value=\s*(\S+)')
reason = last(r'(Solution converged:.*|Solver terminated:.*)').replace('|', '/').strip()
if not solve:
    mon = re.findall(r'^\s*(\d+) TAO,\s+Function value:\s*(\S+),', t, re.M)   # -tao_monitor lines survive a timeout
    if mon:
        print(f'| {prob} | {n} | {label} | > {mon[-1][0]} | - | > {tlim} | - | - | {mon[-1][1].rstrip(",")} | - | timed out after {tlim} s (iterations from -tao_monitor) |')
    else:
        print(f'| {prob} | {n} | {label} | - | - | - | - | - | - | - | failed or timed out (see {log.split("/")[-1]}) |')
    sys.exit(0)
ms = 1000.0 * (solve - fg) / max(int(its) if its.isdigit() else 1, 1)
print(f'| {prob} | {n} | {label} | {its} | {nfg} | {solve:.3f} | {fg:.3f} | {ms:.3f} | {f} | - | {" ".join(reason.split())} |')
PY
}

run_mp2() { # name problem N label solver-options...
  local name=$1 prob=$2 N=$3 label=$4; shift 4
  local cmd="$EX -problem $prob -nx $N -ny $N -check 0 -require_convergence 0 -pg_stop $PG -time_limit $TLIM -tao_max_it 100000 -tao_max_funcs 10000000 -tao_max_funcs 2000000 -summary -tao_view -log_view $GPU $*"
  echo "## $name" >> "$CMDS"; echo "$cmd" >> "$CMDS"
  timeout $((TLIM + 60)) $cmd > "$OUT/$name.log" 2>&1
  row_summary "$OUT/$name.log" "$prob" "$label"
}

# 1. DSSCFG (cuLBFGSB's problem), time to solution and solver-only cost; m = 8 is cuLBFGSB's fixed memory
for N in $SIZES; do
  run_mp2 dsscfg_${N}_lbfgsb dsscfg $N "lbfgsb m=8" -tao_type lbfgsb -tao_lbfgsb_m 8 -tao_lbfgsb_factr 0
  run_mp2 dsscfg_${N}_blmvm dsscfg $N "TAO blmvm" -tao_type blmvm
  run_mp2 dsscfg_${N}_bqnls dsscfg $N "TAO bqnls" -tao_type bqnls
done
# 2. bounded MINPACK-2 ssc: exact vs approximate Cauchy point against BLMVM/BQNLS
for N in $SSC; do
  run_mp2 ssc_${N}_lbfgsb ssc $N "lbfgsb m=5 exact" -tao_type lbfgsb -tao_lbfgsb_m 5 -tao_lbfgsb_factr 0
  run_mp2 ssc_${N}_lbfgsb_approx ssc $N "lbfgsb m=5 approximate" -tao_type lbfgsb -tao_lbfgsb_m 5 -tao_lbfgsb_factr 0 -tao_lbfgsb_cauchy approximate
  run_mp2 ssc_${N}_blmvm ssc $N "TAO blmvm" -tao_type blmvm
  run_mp2 ssc_${N}_bqnls ssc $N "TAO bqnls" -tao_type bqnls
done
# 3. unmodified PETSc jbearing2 (goal: lbfgsb >= 25x faster than BQNLS)
JB=$BUILD/tutorials/tutorial_jbearing2
if [ -x "$JB" ]; then
  for S in "lbfgsb:-dll_append $LIB -tao_type lbfgsb -tao_lbfgsb_gnorm 2 -tao_lbfgsb_factr 0 -tao_max_it 100000 -tao_max_funcs 1000000" \
           "bqnls with its defaults (at most 50 its, as the 11.3 s anchor):-tao_type bqnls" "bqnls:-tao_type bqnls -tao_max_it 100000 -tao_max_funcs 1000000" \
           "blmvm:-tao_type blmvm -tao_max_it 100000 -tao_max_funcs 1000000"; do
    label=${S%%:*}; opts=${S#*:}
    name=jbearing2_${JBN}_$(echo "$opts" | sed 's/.*-tao_type \([a-z]*\).*/\1/')$(case "$opts" in *max_it*) ;; *) echo _defaults;; esac)
    cmd="$JB -mx $JBN -my $JBN -tao_view -tao_monitor -log_view $GPU $opts"
    echo "## $name" >> "$CMDS"; echo "$cmd" >> "$CMDS"
    timeout $((TLIM + 20)) $cmd > "$OUT/$name.log" 2>&1
    row_logview "$OUT/$name.log" "jbearing2 (unmodified, gatol=grtol=1e-8)" $((JBN * JBN)) "$label" $((TLIM + 20))
  done
else
  echo "| jbearing2 | - | - | - | - | - | - | - | - | - | not built ($JB) |" >> "$TABLE"
fi
# 4. CVT: energy and moments on the device
CVT=$BUILD/examples/cvt
if [ -x "$CVT" ]; then
  echo "$CVTCFG" | tr ';' '\n' | while read -r cfg; do
    [ -n "$cfg" ] || continue
    set -- $cfg
    for S in "lbfgsb m=8:-tao_type lbfgsb -tao_lbfgsb_m 8" "blmvm:-tao_type blmvm"; do
      label=${S%%:*}; opts=${S#*:}
      name=cvt_$1_$2_${label%% *}
      cmd="$CVT -nsites $1 -res $2 -require_convergence 0 -tao_max_it 200 -tao_view -tao_monitor -log_view $GPU $opts"
      echo "## $name" >> "$CMDS"; echo "$cmd" >> "$CMDS"
      timeout $((TLIM + 30)) $cmd > "$OUT/$name.log" 2>&1
      row_logview "$OUT/$name.log" "cvt $1 sites, $2^2 samples (max 200 its)" $((2 * $1)) "$label" $((TLIM + 30))
    done
  done
fi
# 5. cuLBFGSB (built and run by .gpu/culbfgsb.sh, never committed)
if [ -n "$CUL" ] && [ -f "$CUL" ]; then
  python3 - "$CUL" <<'PY' >> "$TABLE"
import re, sys
for l in open(sys.argv[1], errors='replace'):
    if not l.startswith('CULBFGSB '):
        continue
    d = dict(kv.split('=', 1) for kv in l.split()[1:])
    print(f"| dsscfg | {d.get('n','?')} | cuLBFGSB m=8 ({d.get('stop','?')}) | {d.get('its','-')} | {d.get('fg','-')} | {d.get('total_s','-')} | {d.get('fg_s','-')} | {d.get('solver_ms_per_it','-')} | {d.get('f','-')} | {d.get('pginf','-')} | {d.get('info','-')} |")
PY
else
  echo "| dsscfg | - | cuLBFGSB | - | - | - | - | - | - | - | no results file (run .gpu/culbfgsb.sh and pass its results as the 3rd argument) |" >> "$TABLE"
fi
{
  echo ""
  echo "Commands: commands.txt; raw logs: *.log (-tao_view, -log_view with lbfgsb's per-phase events LBFGSBCauchy,"
  echo "LBFGSBBreakScan, LBFGSBSubspace, LBFGSBLineSearch, LBFGSBUpdate, and the example's MP2FunctionGrad)."
  echo "cuLBFGSB stops on its own tests (eps_g on the same ||P(x - g) - x||_inf, eps_f = eps_x = 0, see .gpu/culbfgsb.sh); its f/g"
  echo "time is the synchronised wall time of its callback; its m is fixed at 8."
} >> "$TABLE"
cat "$TABLE"
