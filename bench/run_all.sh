#!/bin/bash
# Every petsckp solver next to its anchors, side by side, in one command; raw results as JSON lines.
#
#   bench/run_all.sh <build dir> <output dir> [part ...] [--cpu] [--toy] [--types cuda|kokkos|host] [--part-budget S]
#                    [--resume earlier.jsonl ...] [--share-gpus] [--only REGEX]
#   python3 bench/run_all.py --out <output dir> --reparse      (the -log_view events of the rows read again)
#
# Parts (default: all of them; each fits one 10-minute device call on one H100, several may share a call):
#   sys dcg psormg lbfgsb uaamg pscr main          (bench/run_all.py --help says what each one runs)
#   scaling   every solver on 1, 2 and 4 GPUs, one rank per GPU (a machine of 4 GPUs; bench/gpu/multi_gpu.sh)
# --cpu   host vector and matrix types, sizes for a CPU (the main job's CPU table: `bench/run_all.sh build out --cpu main`)
# --toy   toy sizes: every part in seconds, a smoke test of the whole chain on the CPU build (with --cpu)
# --types the PETSc vector/matrix types: cuda (aijcusparse, default on a GPU), kokkos (aijkokkos, PETSc built with
#         Kokkos), host
# --only  only the rows whose "solver | problem | size" matches a regular expression (e.g. "FGMRES \+ uaamg")
# Writes <output dir>/results.jsonl (appended: one JSON object per row with device, versions, command, date, status,
# iterations, setup/solve/total seconds, residual) and <output dir>/logs/<row>.log; then
#   python3 bench/report.py <output dir>/results.jsonl [more.jsonl ...] -o bench/results/REPORT.md
# turns any set of raw files into the report (tables and plots).
set -eu
[ $# -ge 2 ] || { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
BUILD=$1 OUT=$2
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
[ -d "$BUILD" ] || { echo "run_all: no build directory $BUILD" >&2; exit 2; }
command -v python3 > /dev/null || { echo "run_all: python3 is needed" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# one BLAS thread per process (as for any MPI run of one rank per GPU or core) unless the caller says otherwise:
# OpenBLAS otherwise starts a thread per core in every rank for the small dense factorisations of the coarse levels,
# and a 512-row Cholesky took 0.18 s instead of 0.03 s when other work held the cores (bench/results/scaling_gpu.md)
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
exec python3 "$HERE/run_all.py" --build "$BUILD" --out "$OUT" "$@"
