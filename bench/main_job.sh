#!/bin/bash
# The main job: each petsckp solver next to the PETSc built-in most users would reach for, one problem each, as one
# markdown table (iterations, setup, solve, time to solution, speed-up against the built-in; commands and date below).
#   bench/main_job.sh <build dir> [results file]
# It is the `main` part of bench/run_all.sh followed by bench/report.py --main; the raw rows are kept next to the
# results file (<results>.jsonl). PETSCKP_BENCH_ARGS naming the CUDA or Kokkos types (e.g. "-vec_type cuda ...") runs
# the GPU sizes with those types; otherwise host types at CPU sizes. PETSCKP_MAIN_TOY=1: toy sizes (seconds).
set -eu
B=${1:-build}
R=${2:-$B/main_job.md}
HERE=$(cd "$(dirname "$0")" && pwd)
case "${PETSCKP_BENCH_ARGS:-}" in
  *kokkos*) MODE=(--types kokkos) ;;
  *cuda*) MODE=(--types cuda) ;;
  *) MODE=(--cpu) ;;
esac
[ "${PETSCKP_MAIN_TOY:-0}" = 1 ] && MODE+=(--toy)
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
python3 "$HERE/run_all.py" --build "$B" --out "$D" "${MODE[@]}" main
mkdir -p "$(dirname "$R")"
cp "$D/results.jsonl" "${R%.md}.jsonl"
python3 "$HERE/report.py" "$D/results.jsonl" -o "$R" --main
cat "$R"
