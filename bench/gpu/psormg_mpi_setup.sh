#!/bin/bash
# PCPSORMG's grid hierarchy under MPI, ranks sharing one GPU: device setup (P by a kernel, R = P^T, R A P by device
# sparse products; ghost rows of P and off-process rows of R A P exchanged between the ranks) against the host setup
# (MatPtAP on host AIJ copies), on the hemispherical obstacle at 1025^2 and 2049^2 with 1, 2 and 4 ranks.
# Per run: the setup time (KSPSetUp = PCSetUp, device synchronised, max over ranks), the solve time and the cycles;
# per size and rank count the two setups must need the same cycles (the script says SAME or DIFFERENT), since both
# form the same operators up to rounding. Also the -log_view times of KPMGGalerkin and KPDevMatSetup.
#
#   bench/gpu/psormg_mpi_setup.sh <build-dir> <output-dir> [sizes...]     (default sizes: 1025 2049)
#
# About 2 minutes on one H100 with an existing build. Environment: MPIEXEC (default mpiexec; Open MPI gets
# --oversubscribe --bind-to none, and --allow-run-as-root as root), PSORMG_MPI_RANKS (default "1 2 4"),
# PSORMG_MPI_TYPES (GPU type options; empty for a CPU dry run), PSORMG_MPI_TIMEOUT (default 120 s a run),
# PSORMG_RESTRICTIONS (default "monotone truncated").
set -u
B=${1:?usage: psormg_mpi_setup.sh <build-dir> <output-dir> [sizes...]}
O=${2:?usage: psormg_mpi_setup.sh <build-dir> <output-dir> [sizes...]}
shift 2
SIZES=${*:-1025 2049}
RANKS=${PSORMG_MPI_RANKS:-1 2 4}
TMO=${PSORMG_MPI_TIMEOUT:-120}
RESTR=${PSORMG_RESTRICTIONS:-monotone truncated}
GPU=${PSORMG_MPI_TYPES-"-dm_vec_type cuda -dm_mat_type aijcusparse -vec_type cuda -mat_type aijcusparse -use_gpu_aware_mpi 0"}
MPIEXEC=${MPIEXEC:-mpiexec}
MPIFLAGS=""
if $MPIEXEC --version 2>/dev/null | grep -q "Open MPI\|OpenRTE"; then
  MPIFLAGS="--oversubscribe --bind-to none"
  [ "$(id -u)" = 0 ] && MPIFLAGS="$MPIFLAGS --allow-run-as-root"
fi
mkdir -p "$O"
TABLE="$O/psormg_mpi_setup.md"
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
evtime() { awk -v e="$1" '$1 == e { print $4; exit }' "$2"; }
{
  echo "# PCPSORMG setup under MPI: device vs host, hemispherical obstacle, ranks sharing one GPU"
  echo
  echo "Device: ${DEVICE:-unknown}. Date: $(date -u +%Y-%m-%d). -ksp_rtol 1e-8; times in seconds (wall clock, device"
  echo "synchronised); KPMGGalerkin / KPDevMatSetup: -log_view max over ranks."
  echo
  echo "| grid | restriction | ranks | setup path | setup (s) | solve (s) | time to solution (s) | cycles | KPMGGalerkin (s) | KPDevMatSetup (s) | error | same cycles |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$TABLE"
for N in $SIZES; do
  for R in $RESTR; do
    for NP in $RANKS; do
      declare -A CY=()
      for S in true false; do
        LOG="$O/psormg_mpi_${N}_${R}_np${NP}_$S.log"
        CMD="$B/examples/obstacle -problem hemisphere -n $N -ksp_rtol 1e-8 -ksp_converged_reason -print_times -pc_psormg_obstacle_restriction $R -pc_psormg_device_setup $S -log_view $GPU"
        [ "$NP" -gt 1 ] && CMD="$MPIEXEC $MPIFLAGS -n $NP $CMD"
        echo "$CMD" > "$LOG"
        timeout "$TMO" $CMD >> "$LOG" 2>&1; rc=$?
        T=$(grep -m1 "^psormg cycles" "$LOG")
        CY[$S]=$(echo "$T" | sed -n 's/^psormg cycles \([0-9]*\),.*/\1/p')
        SU=$(echo "$T" | sed -n 's/.*setup time \([0-9.e+-]*\) s.*/\1/p')
        SO=$(echo "$T" | sed -n 's/.*solve time \([0-9.e+-]*\) s.*/\1/p')
        TS=$(echo "$T" | sed -n 's/.*time to solution \([0-9.e+-]*\) s.*/\1/p')
        ER=$(grep -m1 -o "max error against the exact solution [0-9.e+-]*" "$LOG" | awk '{ print $NF }')
        [ "$S" = true ] && P=device || P=host
        SAME=""
        if [ "$S" = false ]; then
          if [ -n "${CY[true]}" ] && [ "${CY[true]}" = "${CY[false]}" ]; then SAME=SAME; else SAME="DIFFERENT (device ${CY[true]:-?}, host ${CY[false]:-?})"; fi
        fi
        [ $rc -ne 0 ] && SU="failed rc=$rc: $(grep -m1 -o 'PETSC ERROR: [A-Z][^-].*' "$LOG" | cut -c14-80)"
        echo "| ${N}^2 | $R | $NP | $P | ${SU:-?} | ${SO:-?} | ${TS:-?} | ${CY[$S]:-?} | $(evtime KPMGGalerkin "$LOG") | $(evtime KPDevMatSetup "$LOG") | ${ER:-?} | $SAME |" >> "$TABLE"
        echo "obstacle ${N}^2 $R np $NP $P setup: rc=$rc $T $SAME"
      done
    done
  done
done
echo
cat "$TABLE"
