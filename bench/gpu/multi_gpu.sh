#!/bin/bash
# Several GPUs: the scaling part of bench/run_all.sh (every solver on 1, 2 and 4 GPUs, strong and weak, next to its
# PETSc built-in) on a machine of 2 or more GPUs, within one device call, after building the GPU stack when needed.
#
#   bench/gpu/multi_gpu.sh <PETSc source dir|tarball> <Kokkos source dir|tarball> <out dir> [seconds]
#
# Builds, on the first call of a machine, PETSc (CUDA) and Kokkos with tools/build-gpu-stack.sh into .gpu/stack (later
# calls on the same machine reuse it), and at every call the programs of the scaling rows in build-gpu. Then runs
# `bench/run_all.sh build-gpu .gpu/scaling-<time> scaling` until <seconds> (default 560) after the start are nearly
# spent; the rows that earlier calls on this machine recorded (.gpu/scaling-all.jsonl) are not run again. Writes to
# <out dir>: results.jsonl (the raw rows of every call on this machine), logs.tar.gz (every row's output of this
# call), build.txt (the build's times and the check of PETSc's GPU types), gpus.txt (nvidia-smi). MULTI_GPU_ONLY=<regex>
# runs only the rows it matches (run_all's --only), e.g. MULTI_GPU_ONLY='FGMRES \+ uaamg' for uaamg's own rows.
set -u
T0=$(date +%s)
[ $# -ge 3 ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
PSRC=$1 KSRC=$2 OUTD=$3 SECS=${4:-560}
RESUME=()
[ -s .gpu/scaling-all.jsonl ] && RESUME=(--resume .gpu/scaling-all.jsonl)
mkdir -p "$OUTD"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
nvidia-smi -L > "$OUTD/gpus.txt" 2>&1
nvidia-smi topo -m >> "$OUTD/gpus.txt" 2>&1
if [ ! -f .gpu/stack/env.sh ]; then
  tools/build-gpu-stack.sh --petsc "$PSRC" --kokkos "$KSRC" --no-petsckp > "$OUTD/build.txt" 2>&1 ||
    { tail -40 "$OUTD/build.txt"; exit 1; }
  cat .gpu/stack/logs/check-petsc-gpu-types.log >> "$OUTD/build.txt" 2>/dev/null
else
  echo "multi_gpu: the stack of an earlier call reused" > "$OUTD/build.txt"
fi
T1=$(date +%s)
. .gpu/stack/env.sh
# petsckp and the programs of the scaling rows, again at every call (incremental: the tree may have changed)
GPUARGS="-vec_type cuda -mat_type aijcusparse -dm_vec_type cuda -dm_mat_type aijcusparse -use_gpu_aware_mpi 0 -options_left 0"
{ [ -f build-gpu/CMakeCache.txt ] || cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$Kokkos_ROOT/bin/nvcc_wrapper" \
    -DKokkos_ROOT="$Kokkos_ROOT" "-DPETSCKP_TEST_ARGS=$GPUARGS"; } > .gpu/petsckp-build.log 2>&1 &&
  cmake --build build-gpu -j "$(nproc)" --target petsckp bubbly obstacle minpack2 poisson >> .gpu/petsckp-build.log 2>&1 ||
  { grep -E "error" -A3 .gpu/petsckp-build.log | head -40; exit 1; }
T2=$(date +%s)
echo "multi_gpu: stack $((T1 - T0)) s, petsckp and the scaling programs $((T2 - T1)) s" | tee -a "$OUTD/build.txt"
LEFT=$((SECS - ($(date +%s) - T0) - 65))
[ "$LEFT" -gt 30 ] || { echo "multi_gpu: $LEFT s left for rows; not started"; exit 0; }
RUN=.gpu/scaling-$T0
mkdir -p "$RUN"
# the rows so far, every 5 s: what a call cut off by its time limit still brings back
(while sleep 5; do cat .gpu/scaling-all.jsonl "$RUN/results.jsonl" > "$OUTD/results.partial.jsonl" 2>/dev/null; done) &
WATCH=$!
ONLY=()
[ -n "${MULTI_GPU_ONLY:-}" ] && ONLY=(--only "$MULTI_GPU_ONLY")
bench/run_all.sh build-gpu "$RUN" scaling --part-budget "$LEFT" ${RESUME[@]+"${RESUME[@]}"} ${ONLY[@]+"${ONLY[@]}"}
kill $WATCH 2>/dev/null
rm -f "$OUTD/results.partial.jsonl"
cat "$RUN/results.jsonl" >> .gpu/scaling-all.jsonl
cp .gpu/scaling-all.jsonl "$OUTD/results.jsonl"
tar -C "$RUN" -czf "$OUTD/logs.tar.gz" logs
echo "multi_gpu: $(($(date +%s) - T0)) s"
