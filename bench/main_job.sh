#!/bin/bash
# The main job: our solvers side by side with PETSc's built-ins on the same problems, as a markdown table.
#   bench/main_job.sh <build dir> [results file]
# Extra PETSc options (e.g. GPU types) come from PETSCKP_BENCH_ARGS.
set -e
B=${1:-build}
R=${2:-$B/main_job.md}
A=${PETSCKP_BENCH_ARGS:-}
N=${PETSCKP_MAIN_N:-65}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -f "$R"
L="python3 $(dirname "$0")/logview.py --out $R --events KSPSolve,PCSetUp,PCApply,MatMult,KPSpMV"
# 3D Poisson (N^3 interior points, N = PETSCKP_MAIN_N, default 65): PETSc CG on MatMult against CG on petsckp's device SpMV
$L --label "poisson $N^3: PETSc CG+jacobi" -- "$B/examples/poisson" -dim 3 -n $N -pc_type jacobi -ksp_converged_reason $A >/dev/null
$L --label "poisson $N^3: CG+jacobi on petsckp SpMV" -- "$B/examples/poisson" -dim 3 -n $N -pc_type jacobi -use_kp_operator -ksp_converged_reason $A >/dev/null
$L --label "poisson $N^3: PETSc CG+gamg" -- "$B/examples/poisson" -dim 3 -n $N -pc_type gamg -ksp_converged_reason $A >/dev/null
# rows of the solvers are added here by their issues
cat "$R"
