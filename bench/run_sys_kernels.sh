#!/bin/sh
# GPU benchmark of the shared-layer kernels (kp_colour, kp_galerkin, kp_tridiag) next to PETSc's anchors
# (MatColoring jp, MatPtAP on aijcusparse). Usage: bench/run_sys_kernels.sh <build dir> <output dir>
# Writes <output dir>/sys_kernels.md (commands, device, tables). A few minutes on one H100.
# CPU smoke test: PETSCKP_BENCH_TYPES="" PETSCKP_BENCH_SIZES="-n 16 -tri_nsys 256 -tri_n 64 -reps 2" $0 build /tmp/out
set -e
BUILD=${1:?usage: $0 <build dir> <output dir>}
OUT=${2:?usage: $0 <build dir> <output dir>}
mkdir -p "$OUT"
MD="$OUT/sys_kernels.md"
EXE="$BUILD/bench/bench_sys_kernels"
GPU=${PETSCKP_BENCH_TYPES-"-vec_type cuda -mat_type aijcusparse -use_gpu_aware_mpi 0"}
DEV=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
[ -n "$DEV" ] || DEV="no NVIDIA GPU found"
{
  echo "# shared-layer kernels (bench_sys_kernels)"
  echo
  echo "device: $DEV, host: $(uname -n)"
  echo
} > "$MD"
SIZES=${PETSCKP_BENCH_SIZES:-"-n 128 -tri_nsys 65536 -tri_n 512 -reps 10;-n 256 -tri_nsys 262144 -tri_n 256 -reps 10"}
echo "$SIZES" | tr ';' '\n' | while read -r args; do
  echo "command: \`$EXE $args $GPU\`" >> "$MD"
  echo >> "$MD"
  "$EXE" $args $GPU -o "$MD"
  echo >> "$MD"
done
echo "wrote $MD"
