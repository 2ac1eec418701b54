#!/bin/bash
# The main job: our solvers side by side with PETSc's built-ins on the same problems, as markdown tables.
#   bench/main_job.sh <build dir> [results file]
# Extra PETSc options (e.g. GPU types) come from PETSCKP_BENCH_ARGS; PETSCKP_MAIN_N sets the Poisson size.
set -e
B=${1:-build}
R=${2:-$B/main_job.md}
A=${PETSCKP_BENCH_ARGS:-}
N=${PETSCKP_MAIN_N:-65}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
D=$(mktemp -d)
L="python3 $(dirname "$0")/logview.py"

# 1. shared layer: 3D Poisson, PETSc CG on MatMult against CG on petsckp's device SpMV
E=KSPSolve,PCSetUp,PCApply,MatMult,KPSpMV
$L --out $D/1.md --events $E --label "PETSc CG+jacobi" -- "$B/examples/poisson" -dim 3 -n $N -pc_type jacobi -ksp_converged_reason $A >/dev/null
$L --out $D/1.md --events $E --label "CG+jacobi on petsckp SpMV" -- "$B/examples/poisson" -dim 3 -n $N -pc_type jacobi -use_kp_operator -ksp_converged_reason $A >/dev/null
$L --out $D/1.md --events $E --label "PETSc CG+gamg" -- "$B/examples/poisson" -dim 3 -n $N -pc_type gamg -ksp_converged_reason $A >/dev/null

# 2. dcg + neumann (Gupta, van Gijzen, Vuik): bubbly-flow pressure Poisson (3D, 8 bubbles, contrast 1e-6), 48^3
E=KSPSolve,PCSetUp,PCApply,MatMult
P="-dim 3 -n 48 -geometry bubble8 -contrast 1e-6"
$L --out $D/2.md --events $E --label "petsckp dcg + neumann(2)" -- "$B/examples/bubbly" $P -ksp_type dcg -pc_type neumann -pc_neumann_terms 2 $A >/dev/null
$L --out $D/2.md --events $E --label "petsckp cg + neumann(2) + deflation" -- "$B/examples/bubbly" $P -ksp_type cg -pc_type neumann -pc_neumann_terms 2 -pc_neumann_deflation $A >/dev/null
$L --out $D/2.md --events $E --label "PETSc cg + jacobi" -- "$B/examples/bubbly" $P -ksp_type cg -pc_type jacobi $A >/dev/null
$L --out $D/2.md --events $E --label "PETSc cg + gamg" -- "$B/examples/bubbly" $P -ksp_type cg -pc_type gamg $A >/dev/null

# 3. psormg (Klement, Oberhuber): obstacle problem (hemisphere, 257^2): psormg against SNESVI and TAO gpcg on the same discretisation
E=KSPSolve,PCSetUp,SNESSolve,TaoSolve
$L --out $D/3.md --events $E --label "petsckp richardson + psormg" -- "$B/examples/obstacle" -problem hemisphere -n 257 -ksp_rtol 1e-8 $A >/dev/null
$L --out $D/3.md --events $E --label "psormg, then PETSc SNESVI vinewtonrsls" -- "$B/examples/obstacle" -problem hemisphere -n 257 -ksp_rtol 1e-8 -compare snesvi $A >/dev/null

# 4. lbfgsb (Byrd, Lu, Nocedal, Zhu; Fei et al.): MINPACK-2 bound-constrained problems, 256^2
E=TaoSolve,MP2FunctionGrad,TaoTermObjGrad,TaoObjGradEval   # the example's f/g event; TAO's f/g event is TaoTermObjGrad in PETSc 3.25, TaoObjGradEval before
for prob in pjb ssc; do
  $L --out $D/4.md --events $E --label "$prob: petsckp lbfgsb" -- "$B/examples/minpack2" -problem $prob -nx 256 -ny 256 -check 0 -tao_type lbfgsb $A >/dev/null
  $L --out $D/4.md --events $E --label "$prob: PETSc TAO blmvm" -- "$B/examples/minpack2" -problem $prob -nx 256 -ny 256 -check 0 -tao_type blmvm $A >/dev/null
done

{
  echo "## 3D Poisson ($N^3): device SpMV (src/sys)"; cat $D/1.md; echo
  echo "## Bubbly flow, 48^3, 8 bubbles, contrast 1e-6 (dcg, neumann)"; cat $D/2.md; echo
  echo "## Obstacle, hemisphere 257^2 (psormg; the SNESVI row includes the psormg solve)"; cat $D/3.md; echo
  echo "## MINPACK-2, 256^2 (lbfgsb)"; cat $D/4.md
} > "$R"
rm -rf $D
cat "$R"
