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
# 3. Unmodified PETSc tao/bound/tutorials/jbearing2 at LBFGSB_JBEARING x LBFGSB_JBEARING (default 1024; a small value is a
#    CPU smoke test; 0 leaves the part out). Its FormFunctionGradient is a host loop over VecGetArray (on GPU vectors every evaluation copies x
#    and g to the host and g back), so the host f/g cost sets a floor of (evaluations x seconds per evaluation).
#    What the anchor's 11.3 s was (bench/results/jbearing2_cpu_study.md): `-tao_type bqnls` with jbearing2's defaults
#    stops at BQNLS's default cap of 50 iterations (DIVERGED_MAXITS) far from the optimum (f = -0.1169 at 1024^2 vs
#    f* = -0.1806); BLMVM's 149.9 s is its default cap of 2000 iterations. So jbearing2 is run to the SAME f for all
#    solvers, with TAO's solver-independent test -tao_fmin (reason CONVERGED_MINF) and gatol = grtol = 0, lbfgsb's factr off:
#    3a. BQNLS as the anchor ran it: defaults (50 iterations), host vectors, then the same on GPU vectors;
#        its final f = f_anchor (the quality of the anchor's answer).
#    3b. lbfgsb on GPU vectors to f <= f_anchor: the ">= 25x faster than BQNLS" comparison at equal f.
#    3c. reference optimum f* of the same discretisation from examples/minpack2 -problem pjb (identical f to the printed
#        digits at 64x48 .. 512^2), lbfgsb with device f/g, ||P(x - g) - x||_inf <= 1e-9 (or LBFGSB_JB_FSTAR to skip it);
#        then lbfgsb, BQNLS and BLMVM on GPU vectors to f <= f* + LBFGSB_JB_RTOL |f*| (default 1e-3), no iteration cap,
#        each at most LBFGSB_JB_TLIM s (default 45; a killed run is reported with the iterations -tao_monitor printed).
#    3d. the same target on examples/minpack2 -problem pjb (same problem, f/g by a Kokkos kernel on the device, but
#        MINPACK-2's start max(sin xi, 0) instead of jbearing2's 0: about 2x the iterations; compare ms/iteration).
#    Times from -log_view: TaoSolve and the f/g events (PETSc 3.25: TaoTermObjGrad/TaoTermObjEval/TaoTermGradEval;
#    3.18-3.24: TaoObjGradEval/TaoObjectiveEval/TaoGradientEval). The numbers of the OUTER Tao are taken (BQNLS's
#    -tao_view prints its unused inner BNCG first). Wall time of part 3 at 1024^2 on an H100: about 3 minutes.
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
JBRTOL=${LBFGSB_JB_RTOL:-1e-3}
JBTLIM=${LBFGSB_JB_TLIM:-45}
JBFSTAR=${LBFGSB_JB_FSTAR:-}
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
import re, sys, traceback
log, prob, n, label, tlim = sys.argv[1:6]
def fail(e):
    print(f'| {prob} | {n} | {label} | - | - | - | - | - | - | - | could not read {log.split("/")[-1]}: {e} |')
    sys.exit(0)
sys.excepthook = lambda typ, val, tb: fail(f'{typ.__name__}: {val}')
t = open(log, errors='replace').read()
def ev(e):
    m = re.search(r'^' + re.escape(e) + r'\s+(\d+)\s+\S+\s+(\S+)', t, re.M)
    try:
        return float(m.group(2)) if m else 0.0
    except ValueError:  # 'n/a' columns of a GPU -log_view
        return 0.0
solve = ev('TaoSolve')
fg = sum(ev(e) for e in ('TaoTermObjGrad', 'TaoTermObjEval', 'TaoTermGradEval', 'TaoObjGradEval', 'TaoObjectiveEval', 'TaoGradientEval'))
last = lambda pat: (re.findall(pat, t) or ['?'])[-1]   # the outer Tao's view comes last
its = last(r'total number of iterations=\s*(\d+)')
nfg = last(r'total number of function/gradient evaluations=\s*(\d+)')
f = last(r'Objective value=\s*(\S+)')
reason = last(r'(Solution converged:.*|Solver terminated:.*|TAO solve (?:did not )?converged.*|Solution failed.*)').replace('|', '/').strip()
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
# 3. unmodified PETSc jbearing2 (goal: lbfgsb >= 25x faster than BQNLS), every solver to the same f (-tao_fmin)
JB=$BUILD/tutorials/tutorial_jbearing2
JBSTOP="-tao_gatol 0 -tao_grtol 0 -tao_max_it 1000000 -tao_max_funcs 100000000"
jb_run() { # name problem-label solver-label time-limit options... : run jbearing2, add a row
  local name=$1 prob=$2 label=$3 tl=$4; shift 4
  local cmd="$JB -mx $JBN -my $JBN -tao_view -tao_monitor -log_view $*"
  echo "## $name" >> "$CMDS"; echo "$cmd" >> "$CMDS"
  timeout "$tl" $cmd > "$OUT/$name.log" 2>&1
  row_logview "$OUT/$name.log" "$prob" $((JBN * JBN)) "$label" "$tl"
}
jb_f() { # log : final f of the outer Tao (-tao_view), empty when none
  python3 -c "import re,sys; m=re.findall(r'Objective value=\s*(\S+)', open(sys.argv[1], errors='replace').read()); print(m[-1] if m else '')" "$1"
}
if [ -x "$JB" ] && [ "$JBN" != 0 ]; then
  # 3a. the anchor as measured (BQNLS defaults: 50 iterations), host vectors and GPU vectors
  jb_run jbearing2_${JBN}_bqnls_defaults_host "jbearing2, BQNLS defaults (the anchor: host vectors)" "TAO bqnls, defaults, host vectors" 120 -tao_type bqnls
  jb_run jbearing2_${JBN}_bqnls_defaults "jbearing2, BQNLS defaults (GPU vectors)" "TAO bqnls, defaults" 120 $GPU -tao_type bqnls
  FANCHOR=$(jb_f "$OUT/jbearing2_${JBN}_bqnls_defaults_host.log")
  # 3b. lbfgsb to the anchor's f
  if [ -n "$FANCHOR" ]; then
    jb_run jbearing2_${JBN}_lbfgsb_to_anchor "jbearing2 to f <= $FANCHOR (BQNLS-defaults f)" "lbfgsb" "$JBTLIM" $GPU -dll_append "$LIB" -tao_type lbfgsb -tao_lbfgsb_factr 0 -tao_fmin "$FANCHOR" $JBSTOP
  else
    echo "| jbearing2 to the anchor's f | - | lbfgsb | - | - | - | - | - | - | - | no f from the BQNLS run (see jbearing2_${JBN}_bqnls_defaults_host.log) |" >> "$TABLE"
  fi
  # 3c. reference optimum, then every solver to f* + rtol |f*|
  FSTAR=$JBFSTAR
  if [ -z "$FSTAR" ]; then
    cmd="$EX -problem pjb -nx $JBN -ny $JBN -check 0 -require_convergence 0 -pg_stop 1e-9 -time_limit 60 -tao_type lbfgsb -tao_lbfgsb_factr 0 -tao_max_it 1000000 -tao_max_funcs 100000000 -summary $GPU"
    echo "## jbearing2_${JBN}_reference (f* of the same discretisation)" >> "$CMDS"; echo "$cmd" >> "$CMDS"
    timeout 120 $cmd > "$OUT/jbearing2_${JBN}_reference.log" 2>&1
    row_summary "$OUT/jbearing2_${JBN}_reference.log" "pjb = jbearing2's problem, reference f* (device f/g)" "lbfgsb, pg_inf <= 1e-9"
    FSTAR=$(python3 -c "import re,sys; m=re.findall(r'^SUMMARY .* f=(\S+)', open(sys.argv[1], errors='replace').read(), re.M); print(m[-1] if m else '')" "$OUT/jbearing2_${JBN}_reference.log")
  fi
  if [ -n "$FSTAR" ]; then
    FT=$(python3 -c "import sys; f=float(sys.argv[1]); print(repr(f + float(sys.argv[2]) * abs(f)))" "$FSTAR" "$JBRTOL")
    for S in "lbfgsb:-dll_append $LIB -tao_type lbfgsb -tao_lbfgsb_factr 0" "TAO bqnls:-tao_type bqnls" "TAO blmvm:-tao_type blmvm"; do
      label=${S%%:*}; opts=${S#*:}
      jb_run jbearing2_${JBN}_rtol_${label##* } "jbearing2 to f <= f* + $JBRTOL abs(f*) = $FT" "$label" "$JBTLIM" $GPU $opts -tao_fmin "$FT" $JBSTOP
    done
    # 3d. the same problem and target with f/g on the device (examples/minpack2 -problem pjb): what the solvers cost
    #     when the tutorial's host f/g is not the floor
    for S in "lbfgsb:-tao_type lbfgsb -tao_lbfgsb_factr 0" "TAO bqnls:-tao_type bqnls" "TAO blmvm:-tao_type blmvm"; do
      label=${S%%:*}; opts=${S#*:}
      name=pjb_${JBN}_rtol_${label##* }
      cmd="$EX -problem pjb -nx $JBN -ny $JBN -check 0 -require_convergence 0 -summary -tao_view -log_view $GPU $opts -tao_fmin $FT $JBSTOP"
      echo "## $name" >> "$CMDS"; echo "$cmd" >> "$CMDS"
      timeout "$JBTLIM" $cmd > "$OUT/$name.log" 2>&1
      row_summary "$OUT/$name.log" "pjb (jbearing2's problem, device f/g, MINPACK start) to f <= $FT" "$label"
    done
  else
    echo "| jbearing2 to f* | - | - | - | - | - | - | - | - | - | no reference f* (see jbearing2_${JBN}_reference.log) |" >> "$TABLE"
  fi
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
  echo "jbearing2 rows: every solver stops by -tao_fmin (CONVERGED_MINF) at the f named in the problem column, gatol = grtol = 0;"
  echo "the BQNLS-defaults rows are the anchor's command (50-iteration cap). f/g s = TaoObjGradEval (host loop + copies)."
  echo "cuLBFGSB stops on its own tests (eps_g on the same ||P(x - g) - x||_inf, eps_f = eps_x = 0, see .gpu/culbfgsb.sh); its f/g"
  echo "time is the synchronised wall time of its callback; its m is fixed at 8."
} >> "$TABLE"
cat "$TABLE"
