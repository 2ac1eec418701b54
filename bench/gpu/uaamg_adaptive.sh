#!/bin/bash
# The adaptive auxiliary tree of PCUAAMG (-pc_uaamg_fine_agg_max) on the GPU (one device call, a few minutes):
#   1. the unit tests of its kernels on the device (key sorts of kp_segsort, the tree's leaves and parents, the colour
#      repair rounds, the fine block Gauss-Seidel coloured by a partition of the aggregates);
#   2. examples/fem on the paper's graded mesh (refine 6, 7 and 8: 212,161 / 850,945 / 3,404,545 unknowns; Table 4 is
#      at refine 8), FGMRES + uaamg, rtol 1e-6 on the unpreconditioned residual (the settings of bench/run_uaamg.sh):
#      the default adaptive tree against the paper's uniform tree (-pc_uaamg_fine_agg_max 0), same GPU, same run;
#      setup, solve, iterations and the aggregate sizes of -ksp_view;
#   3. the same solves on 2 ranks (aggregates never cross ranks; the colourings are made consistent across them).
#
#   bench/gpu/uaamg_adaptive.sh <build dir> <output dir>
# Environment: UAAMG_ADAPTIVE_TYPES (GPU type options; empty for a dry run on a CPU), UAAMG_ADAPTIVE_REFINE (default
# "6 7 8"), UAAMG_ADAPTIVE_TIMEOUT (s per run, default 120). Writes <output dir>/uaamg_adaptive.md and the logs.
set -u
B=${1:?usage: uaamg_adaptive.sh <build dir> <output dir>}
O=${2:?usage: uaamg_adaptive.sh <build dir> <output dir>}
mkdir -p "$O/logs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PETSC_OPTIONS="-use_gpu_aware_mpi 0"
GPU=${UAAMG_ADAPTIVE_TYPES-"-vec_type cuda -mat_type aijcusparse"}
SOLVE="-ksp_type fgmres -pc_type uaamg -ksp_rtol 1e-6 -ksp_norm_type unpreconditioned -ksp_max_it 500 -error_bound 1e9 -print_times -ksp_view"
TMO=${UAAMG_ADAPTIVE_TIMEOUT:-120}
REFINE=${UAAMG_ADAPTIVE_REFINE:-"6 7 8"}
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
T="$O/uaamg_adaptive.md"

{
  echo "# PCUAAMG: adaptive auxiliary tree on the graded mesh"
  echo
  echo "Device: ${DEVICE:-unknown}. Date: $(date -u +%Y-%m-%d). Script: \`bench/gpu/uaamg_adaptive.sh\`. Options: \`$SOLVE $GPU\`."
  echo
} > "$T"

"$B/tests/petsckp_unit" --gtest_filter='KeySort*:UAAMG.AdaptiveTree*:UAAMG.ColourRepair*:UAAMG.FineBlockGaussSeidelColourPartition' > "$O/logs/unit.log" 2>&1
echo "Unit tests of the new kernels on the device: $(tail -1 "$O/logs/unit.log")" >> "$T"
echo >> "$T"
echo "| ranks | refine | N | tree | iterations | setup (s) | solve (s) | unknowns per aggregate | levels / op. complexity | result |" >> "$T"
echo "|---|---|---|---|---|---|---|---|---|---|" >> "$T"
for np in 1 2; do
  for r in $REFINE; do
    for m in -1 0; do
      tree=$([ "$m" = 0 ] && echo "uniform (0)" || echo "adaptive (default)")
      log="$O/logs/fem_graded_refine${r}_np${np}_max${m}.log"
      timeout "$TMO" mpiexec -n "$np" "$B/examples/fem" -mesh graded -refine "$r" $SOLVE $GPU -pc_uaamg_fine_agg_max "$m" > "$log" 2>&1
      rc=$?
      N=$(grep -o 'N = [0-9]*' "$log" | head -1 | cut -d' ' -f3)
      times=$(grep '^times' "$log" | head -1)
      setup=$(echo "$times" | sed -n 's/.*setup \([^ ]*\) s.*/\1/p')
      solve=$(echo "$times" | sed -n 's/.*solve \([^ ]*\) s.*/\1/p')
      its=$(grep '^iterations' "$log" | head -1 | awk '{print $2}')
      agg=$(grep 'fine aggregates' "$log" | head -1 | sed -n 's/.*per aggregate \(min [0-9]* mean [0-9.]* max [0-9]*\).*/\1/p')
      cx=$(grep 'operator complexity' "$log" | head -1 | sed -n 's/.*levels: \([0-9]*\), operator complexity \([0-9.]*\).*/\1 \/ \2/p')
      res=$([ $rc = 0 ] && echo ok || echo "rc $rc")
      echo "| $np | $r | ${N:--} | $tree | ${its:--} | ${setup:--} | ${solve:--} | ${agg:--} | ${cx:--} | $res |" >> "$T"
    done
  done
done
cat "$T"
