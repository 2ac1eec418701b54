#!/bin/bash
# Every test of petsc-kokkos-plugins with PETSc's Kokkos vector and matrix types (VECKOKKOS, MATAIJKOKKOS) on a PETSc
# that built Kokkos and Kokkos Kernels itself (--download-kokkos=<tarball>), spread over the machine's GPUs.
#
#   bench/gpu/kokkos_types.sh start <PETSc src> <Kokkos src> <Kokkos Kernels src> [build jobs] [cores]
#       in a new process session (it outlives the device call that starts it): builds the stack with
#       tools/build-gpu-stack.sh --petsc-kokkos into .gpu/kstack (petsckp from a copy of the tree, .gpu/ktypes/src, in its
#       build-kokkos; skipped when an earlier call on this machine built it), then runs every ctest test (unit, example, tutorial, install; the examples' nsize 2
#       and 4 entries included) with the Kokkos types. Progress and logs in .gpu/ktypes/. [cores]: a taskset CPU list
#       for the build (e.g. 16-63), leaving the other cores to a benchmark run beside it.
#       With KTYPES_BUILD_ONLY=1 it stops after the build (bench/gpu/types_compare.sh times solvers on it).
#       With KTYPES_HOLD=1 the tests wait, after the build, until `bench/gpu/kokkos_types.sh release` (so that timed
#       benchmarks can use the GPUs first).
#   bench/gpu/kokkos_types.sh release
#       lets a held run start its tests
#   bench/gpu/kokkos_types.sh probe <out dir> [gtest filter]
#       after a run: one unit test that failed with the Kokkos types (default: a psormg test that did, in the fourth run
#       of bench/results/kokkos_types_gpu.md), under cuda-gdb (a backtrace; the machine has no gdb), and again with the
#       types on the command line only, with -sf_backend cuda, and with host types: which of them fails
#   bench/gpu/kokkos_types.sh wait <out dir> <seconds>
#       waits until the run is done or <seconds> have passed, then copies its summary and logs to <out dir>
#       (summary.md, logs.tar.gz); a later call can wait again.
#
# The tests are split into one ctest process per GPU (ctest -I <g>,,<number of GPUs>), each seeing that GPU alone
# (CUDA_VISIBLE_DEVICES), so that a test's ranks share one GPU as in the CPU harness. The unit tests read the types from
# PETSC_OPTIONS, the other tests from the harness's PETSCKP_TEST_ARGS (configured by build-gpu-stack.sh --test-types
# kokkos) only.
set -u
KT=.gpu/ktypes
case "${1:-}" in
start)
  [ $# -ge 4 ] || { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
  mkdir -p "$KT"
  rm -f "$KT/done" "$KT/hold" "$KT/built"
  [ "${KTYPES_HOLD:-0}" = 1 ] && touch "$KT/hold"
  setsid nohup "$0" run "$2" "$3" "$4" "${5:-$(nproc)}" "${6:-}" > "$KT/run.log" 2>&1 < /dev/null &
  echo "kokkos_types: started (pid $!), progress in $KT/run.log"
  ;;
run)
  PSRC=$2 KSRC=$3 KKSRC=$4 JOBS=$5 CORES=${6:-}
  T0=$(date +%s)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  PIN=()
  [ -z "$CORES" ] || PIN=(taskset -c "$CORES")
  # petsckp is built and tested from a copy of the tree: a device call may replace the work tree under a process that
  # outlives the call that started it (its build then failed with "no CMakeLists.txt")
  ROOT=$(pwd)
  SRC=$ROOT/$KT/src
  mkdir -p "$SRC"
  tar --exclude=./.gpu --exclude='./build*' -cf - . | tar -C "$SRC" -xf -
  for f in "$PSRC" "$KSRC" "$KKSRC"; do [ -e "$f" ] || { echo "kokkos_types: $f not found"; touch "$KT/done"; exit 1; }; done
  PSRC=$(readlink -f "$PSRC") KSRC=$(readlink -f "$KSRC") KKSRC=$(readlink -f "$KKSRC")
  cd "$SRC" || exit 1
  if [ ! -f build-kokkos/tests/petsckp_unit ]; then
    ${PIN[@]+"${PIN[@]}"} tools/build-gpu-stack.sh --petsc-kokkos --petsc "$PSRC" --kokkos "$KSRC" --kokkos-kernels "$KKSRC" \
      --prefix "$ROOT/.gpu/kstack" --build build-kokkos --jobs "$JOBS" --test-types kokkos > "$ROOT/$KT/build.log" 2>&1 ||
      { echo "kokkos_types: the stack failed to build: $(tail -5 "$ROOT/$KT/build.log")"; touch "$ROOT/$KT/done"; exit 1; }
  fi
  T1=$(date +%s)
  echo "kokkos_types: stack and petsckp $((T1 - T0)) s"
  touch "$ROOT/$KT/built"
  [ "${KTYPES_BUILD_ONLY:-0}" = 1 ] && { touch "$ROOT/$KT/done"; exit 0; }
  . "$ROOT/.gpu/kstack/env.sh"
  while [ -f "$ROOT/$KT/hold" ]; do sleep 5; done
  T1=$(date +%s)
  TYPES="-vec_type kokkos -mat_type aijkokkos -dm_vec_type kokkos -dm_mat_type aijkokkos"
  NG=$(nvidia-smi -L 2> /dev/null | grep -c "^GPU")
  [ "$NG" -ge 1 ] || NG=1
  PER=$(((${JOBS} + NG - 1) / NG))
  [ "$PER" -le 12 ] || PER=12
  # the unit tests take the types from PETSC_OPTIONS; the other tests from their command lines (PETSCKP_TEST_ARGS), as
  # a user gives them (PETSc's own type check, which passed when run alone, ended in a segmentation fault under ctest
  # with the types in PETSC_OPTIONS as well: the fourth run of bench/results/kokkos_types_gpu.md)
  for ((g = 0; g < NG; g++)); do
    (cd build-kokkos &&
      CUDA_VISIBLE_DEVICES=$g PETSC_OPTIONS="$TYPES -use_gpu_aware_mpi 0" ctest -L unit -I $((g + 1)),,$NG -j "$PER" \
        --timeout 300 --output-on-failure > "$ROOT/$KT/ctest_unit_gpu$g.log" 2>&1
      CUDA_VISIBLE_DEVICES=$g PETSC_OPTIONS="-use_gpu_aware_mpi 0" ctest -LE unit -I $((g + 1)),,$NG -j "$PER" \
        --timeout 300 --output-on-failure > "$ROOT/$KT/ctest_gpu$g.log" 2>&1) &
  done
  wait
  T2=$(date +%s)
  echo "kokkos_types: tests $((T2 - T1)) s on $NG GPUs, $PER at a time on each"
  touch "$ROOT/$KT/done"
  ;;
release) rm -f "$KT/hold" ;;
probe)
  OUTD=${2:?usage: kokkos_types.sh probe <out dir>}
  mkdir -p "$OUTD"
  . .gpu/kstack/env.sh
  U=$KT/src/build-kokkos/tests/petsckp_unit
  [ -x "$U" ] || U=build-kokkos/tests/petsckp_unit
  [ -x "$U" ] || { echo "kokkos_types: no petsckp_unit of the Kokkos stack"; exit 1; }
  T=${3:-'DeviceSetup/PsormgPC.SolvesTheObstacleProblem/0'}
  TYPES="-vec_type kokkos -mat_type aijkokkos -dm_vec_type kokkos -dm_mat_type aijkokkos"
  {
    for v in "env:$TYPES" "env:$TYPES -sf_backend cuda" "cmd:$TYPES" "env:"; do
      where=${v%%:*} opts=${v#*:}
      if [ "$where" = env ]; then
        r=$(PETSC_OPTIONS="$opts -use_gpu_aware_mpi 0" timeout 120 "$U" --gtest_filter="$T" 2>&1 | grep -cE "SEGV|FAILED")
      else
        r=$(PETSC_OPTIONS="-use_gpu_aware_mpi 0" timeout 120 "$U" --gtest_filter="$T" $opts 2>&1 | grep -cE "SEGV|FAILED")
      fi
      echo "$T, options in $where: '$opts': $([ "$r" = 0 ] && echo passed || echo FAILED)"
    done
    if command -v cuda-gdb > /dev/null; then
      echo "cuda-gdb backtrace (PETSC_OPTIONS with the types, -no_signal_handler):"
      PETSC_OPTIONS="$TYPES -use_gpu_aware_mpi 0 -no_signal_handler" timeout 300 cuda-gdb -batch -ex run -ex bt -ex "info sharedlibrary" \
        --args "$U" --gtest_filter="$T" 2>&1 | grep -E "^#|signal|SIG" | head -40
    fi
  } | tee "$OUTD/probe.txt"
  ;;
wait)
  OUTD=$2 SECS=$3
  T0=$(date +%s)
  mkdir -p "$OUTD"
  while [ ! -f "$KT/done" ] && [ $(($(date +%s) - T0)) -lt "$SECS" ]; do sleep 5; done
  {
    echo "# petsckp tests with PETSc's Kokkos types ($(date -u +%F), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | grep -c '^GPU'))"
    echo
    [ -f "$KT/done" ] && echo "Run finished." || echo "Run not finished after this wait."
    echo
    echo '```'
    cat "$KT/run.log" 2> /dev/null
    grep -h "build-gpu-stack:" "$KT/build.log" 2> /dev/null
    for f in "$KT"/ctest_*gpu*.log; do
      [ -f "$f" ] || continue
      echo "$(basename "$f"): $(grep -E 'tests passed|tests failed' "$f" || echo "(running)") finished so far: $(grep -cE '^ *[0-9]+/[0-9]+ Test +#' "$f"), passed $(grep -cE '^ *[0-9]+/[0-9]+ Test +#.* Passed' "$f"), skipped $(grep -cE '^ *[0-9]+/[0-9]+ Test +#.*Skipped' "$f")"
      grep -E '^ *[0-9]+/[0-9]+ Test +#' "$f" | grep -vE ' Passed|Skipped' | sed 's/^/  not passed: /'
      sed -n '/The following tests/,$p' "$f" | grep -E "^\s+[0-9]+ - " | sed 's/^/  /'
    done
    echo '```'
  } > "$OUTD/summary.md"
  tar -czf "$OUTD/logs.tar.gz" "$KT" .gpu/kstack/logs 2> /dev/null
  cat "$OUTD/summary.md"
  ;;
*) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
