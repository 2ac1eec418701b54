#!/bin/bash
# One solver per seed, and its anchors, on PETSc's Kokkos types and on its CUDA types, on one GPU: the main part of
# bench/run_all.sh twice, once against a PETSc built with CUDA alone (-vec_type cuda -mat_type aijcusparse) and once
# against a PETSc built with its own Kokkos and Kokkos Kernels (-vec_type kokkos -mat_type aijkokkos); bench/report.py
# puts the rows side by side ("PETSc's Kokkos types against its CUDA types").
#
#   bench/gpu/types_compare.sh <PETSc src> <Kokkos src> <Kokkos Kernels src> <out dir> [seconds]
#
# Builds what this machine does not have yet: the CUDA stack and its programs in build-gpu (as bench/gpu/multi_gpu.sh,
# in the foreground), and PETSc with Kokkos and petsckp against it (bench/gpu/kokkos_types.sh start with
# KTYPES_BUILD_ONLY=1; about 9 minutes on 48 cores, 14 on 16): on a machine of more than 24 cores beside the CUDA rows,
# niced and on the cores above 16 (the rows run on cores 0-15), else after them, so that no build shares the cores of
# a timed row. The Kokkos rows run once it is built, in this call if there is time, else in the next call of the same
# machine (the script resumes: rows recorded in .gpu/types-<types>.jsonl are not run again; a failed build is started
# again). Writes <out dir>/results.jsonl (the rows of both types so far), logs-cuda.tar.gz and logs-kokkos.tar.gz.
# Within [seconds] (default 560) after its start. TYPES_COMPARE_ONLY: the rows to run (run_all's --only; default our
# solver of each seed and PETSc's CG + Jacobi: the anchors that take minutes, SNESVI, BLMVM, BQNLS, GAMG, compare PETSc
# with itself; TYPES_COMPARE_ONLY=. runs every row of the part).
set -u
[ $# -ge 4 ] || { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
PSRC=$1 KSRC=$2 KKSRC=$3 OUTD=$4 SECS=${5:-560}
T0=$(date +%s)
left() { echo $((SECS - ($(date +%s) - T0))); }
mkdir -p "$OUTD" .gpu
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
NC=$(nproc)
ONLY=${TYPES_COMPARE_ONLY:-'petsckp SpMV|PETSc CG \+ Jacobi|uaamg|PSCR|dcg \+ neumann|psormg|lbfgsb'}
# PETSc with Kokkos: started unless built or building (a build that ended without petsckp is started again)
kbuild() {
  if [ -f .gpu/ktypes/built ] || { [ -f .gpu/ktypes/run.log ] && [ ! -f .gpu/ktypes/done ]; }; then return 0; fi
  if [ "$NC" -gt 24 ]; then
    KTYPES_BUILD_ONLY=1 nice -n 10 bash bench/gpu/kokkos_types.sh start "$PSRC" "$KSRC" "$KKSRC" $((NC - 16)) "16-$((NC - 1))"
  else
    KTYPES_BUILD_ONLY=1 bash bench/gpu/kokkos_types.sh start "$PSRC" "$KSRC" "$KKSRC" "$NC"
  fi
}
[ "$NC" -gt 24 ] && kbuild
if [ ! -f .gpu/stack/env.sh ]; then
  tools/build-gpu-stack.sh --petsc "$PSRC" --kokkos "$KSRC" --no-petsckp > "$OUTD/build-cuda.txt" 2>&1 ||
    { tail -40 "$OUTD/build-cuda.txt"; exit 1; }
fi
(
  . .gpu/stack/env.sh
  GPUARGS="-vec_type cuda -mat_type aijcusparse -dm_vec_type cuda -dm_mat_type aijcusparse -use_gpu_aware_mpi 0 -options_left 0"
  { [ -f build-gpu/CMakeCache.txt ] || cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$Kokkos_ROOT/bin/nvcc_wrapper" \
      -DKokkos_ROOT="$Kokkos_ROOT" "-DPETSCKP_TEST_ARGS=$GPUARGS"; } > .gpu/petsckp-build.log 2>&1 &&
    taskset -c 0-15 cmake --build build-gpu -j 16 --target petsckp bubbly obstacle minpack2 poisson >> .gpu/petsckp-build.log 2>&1
) || { grep -E "error" -A3 .gpu/petsckp-build.log | head -40; exit 1; }
echo "types_compare: CUDA stack and programs ready at $(($(date +%s) - T0)) s"
# one part of run_all for one build and types, resuming this machine's earlier rows
rows() { # <build> <types> <env script>
  local f=.gpu/types-$2.jsonl run=.gpu/types-$2-$T0 budget
  budget=$(($(left) - 130))
  [ "$budget" -gt 30 ] || { echo "types_compare: no time left for the $2 rows"; return 0; }
  local resume=()
  [ -s "$f" ] && resume=(--resume "$f")
  (. "$3" && taskset -c 0-15 bench/run_all.sh "$1" "$run" main --types "$2" --part-budget "$budget" --only "$ONLY" ${resume[@]+"${resume[@]}"})
  cat "$run/results.jsonl" >> "$f" 2> /dev/null
  tar -C "$run" -czf "$OUTD/logs-$2.tar.gz" logs 2> /dev/null
}
rows build-gpu cuda .gpu/stack/env.sh
kbuild
while [ ! -f .gpu/ktypes/done ] && [ "$(left)" -gt 200 ]; do sleep 5; done
if [ -f .gpu/ktypes/built ]; then
  rows .gpu/ktypes/src/build-kokkos kokkos .gpu/kstack/env.sh
else
  echo "types_compare: PETSc with Kokkos not built yet ($(tail -1 .gpu/ktypes/run.log 2> /dev/null)); call again on this machine"
fi
cat .gpu/types-cuda.jsonl .gpu/types-kokkos.jsonl > "$OUTD/results.jsonl" 2> /dev/null
echo "types_compare: $(wc -l < "$OUTD/results.jsonl") rows so far, $(($(date +%s) - T0)) s"
