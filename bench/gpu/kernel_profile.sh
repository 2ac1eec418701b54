#!/bin/bash
# Where an iteration's time goes at moderate sizes: the GPU time of its kernels (Nsight Compute, gpu__time_duration per
# kernel) against its wall time. Each case runs twice with N and 2N iterations; (2N run - N run) / N is one iteration's
# cost, without the setup and the first iterations. The wall time per iteration comes from the same two runs without
# the profiler. kernel time / wall time near 1: the kernels themselves are slow (memory traffic, occupancy); far
# below 1: launches, host reductions and synchronisations dominate, and fusing or fewer round trips would pay.
#
#   bench/gpu/kernel_profile.sh <build dir> <out dir>
# Cases (KPROF_CASES, default "dcg128 dcg128pipe lbfgsb_pjb lbfgsb_dsscfg"):
#   dcg128, dcg128pipe  examples/bubbly 3D bubble8 128^3, contrast 1e-6, dcg + neumann(2), 8x8x8 blocks (the second
#                       with -ksp_dcg_pipelined), 40 and 80 iterations (-ksp_rtol 1e-30 -ksp_max_it)
#   lbfgsb_pjb, lbfgsb_dsscfg  examples/minpack2 1024^2 (bounded journal bearing; unbounded dsscfg), 30 and 60
#                       iterations of lbfgsb, m = 8
# Writes <out dir>/kernel_profile.md and <out dir>/raw.tar.gz (the ncu CSV files and logs, packed again after every case:
# two files, whatever the number of cases, since a device call brings back few files). Nsight Compute serialises the kernels it profiles:
# only those inside KSPSolve / TaoSolve are (PETSc's NVTX ranges, -log_nvtx, ncu --nvtx-include); without that
# (KPROF_NVTX=0) the setup's thousands of kernels are replayed too, and 93 s were not enough for the first dcg case on
# an H200.
set -u
B=${1:?usage: kernel_profile.sh <build dir> <out dir>}
O=${2:?usage: kernel_profile.sh <build dir> <out dir>}
mkdir -p "$O"
RAWP=$(mktemp -d)
mkdir -p "$RAWP/raw"
GPU=${KPROF_TYPES-"-dm_vec_type cuda -dm_mat_type aijcusparse -vec_type cuda -mat_type aijcusparse -use_gpu_aware_mpi 0"}
NCU=${NCU:-$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2> /dev/null | tail -1)}
[ -n "$NCU" ] || { echo "kernel_profile: no ncu (Nsight Compute) found" >&2; exit 1; }
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1)
T="$O/kernel_profile.md"
# sum of gpu__time_duration (ns) per kernel name from an ncu CSV: "<name> <count> <ns>" lines
summ() {
  python3 - "$1" << 'EOF'
import csv, sys, collections, re
tot = collections.defaultdict(lambda: [0, 0.0])
with open(sys.argv[1]) as f:
    lines = [l for l in f if l.startswith('"')]
for r in csv.DictReader(lines):
    if r.get("Metric Name") != "gpu__time_duration.sum":
        continue
    name = r["Kernel Name"]
    # a Kokkos kernel is named by its launch template: keep the functor (or the function holding the lambda)
    m = re.search(r"Parallel(?:For|Reduce|Scan)\w*<(.*)", name)
    if m:
        name = m.group(1).replace("Kokkos::Impl::CombinedFunctorReducer<", "")
    while True:  # drop parameter and template lists, innermost first
        n2 = re.sub(r"\([^()]*\)|<[^<>]*>", "", name)
        if n2 == name:
            break
        name = n2
    name = name.split(", Kokkos::")[0]
    name = name.replace("void ", "").replace(" ", "")[-60:] or "?"
    v = float(r["Metric Value"].replace(",", ""))
    unit = r.get("Metric Unit", "ns")
    v *= {"ns": 1, "nsecond": 1, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6}.get(unit, 1)
    tot[name][0] += 1
    tot[name][1] += v
for k, (c, v) in tot.items():
    print(k, c, v)
EOF
}
cmd_of() { # case, iterations -> command line
  case $1 in
  dcg128 | dcg128pipe)
    local extra=""
    [ "$1" = dcg128pipe ] && extra="-ksp_dcg_pipelined"
    echo "$B/examples/bubbly -dim 3 -n ${KPROF_N:-128} -geometry bubble8 -contrast 1e-6 -ksp_type dcg -ksp_dcg_blocks 8,8,8 -pc_type neumann -pc_neumann_terms 2 $extra -ksp_rtol 1e-30 -ksp_max_it $2 -dm_preallocate_only $GPU"
    ;;
  lbfgsb_pjb) echo "$B/examples/minpack2 -problem pjb -nx ${KPROF_LN:-1024} -ny ${KPROF_LN:-1024} -tao_lbfgsb_m 8 -tao_lbfgsb_factr 0 -pg_stop 0 -tao_max_it $2 -require_convergence 0 -check 0 -summary -warmup 0 $GPU" ;;
  lbfgsb_dsscfg) echo "$B/examples/minpack2 -problem dsscfg -nx ${KPROF_LN:-1024} -ny ${KPROF_LN:-1024} -tao_lbfgsb_m 8 -tao_lbfgsb_factr 0 -pg_stop 0 -tao_max_it $2 -require_convergence 0 -check 0 -summary -warmup 0 $GPU" ;;
  esac
}
# wall time of the iterations (s) from a run's output
wall_of() {
  case $1 in
  dcg*) sed -n 's/.*solve \([0-9.e+-]*\) s.*/\1/p' "$2" | head -1 ;;
  lbfgsb*) # TaoSolve time of the SUMMARY line
    tr ' ' '\n' < "$2" | sed -n 's/^tao_time=//p;s/^solve_s=//p' | head -1 ;;
  esac
}
its_of() { case $1 in dcg*) echo 40 ;; lbfgsb*) echo 30 ;; esac; }
range_of() { case $1 in dcg*) echo KSPSolve ;; lbfgsb*) echo TaoSolve ;; esac; }
{
  echo "# Kernel time against wall time per iteration (Nsight Compute)"
  echo
  echo "Device: ${DEVICE:-unknown}. Date: $(date -u +%Y-%m-%d). Script: \`bench/gpu/kernel_profile.sh\`. GPU options: \`$GPU\`."
  echo "Per iteration = (run of 2N iterations - run of N) / N. Kernel time: the sum of gpu__time_duration of every kernel"
  echo "(ncu --clock-control none; kernels serialised by the profiler, so launch gaps do not count). Wall: the same runs"
  echo "without the profiler (the example's solve time)."
  echo
  echo "| case | N | wall ms/it | kernel ms/it | kernel / wall | kernels/it | top kernels (us/it, count/it) |"
  echo "|---|---|---|---|---|---|---|"
} > "$T"
for c in ${KPROF_CASES:-dcg128 dcg128pipe lbfgsb_pjb lbfgsb_dsscfg}; do
  N=$(its_of "$c")
  for k in 1 2; do
    its=$((k * N))
    timeout 120 $(cmd_of "$c" $its) > "$RAWP/raw/${c}_${its}_plain.log" 2>&1
    # only the kernels inside the solve's range (PETSc's NVTX log handler, -log_nvtx): the setup's thousands of
    # kernels are neither replayed nor counted (KPROF_NVTX=0: every kernel, as before)
    NV=()
    [ "${KPROF_NVTX:-1}" = 1 ] && NV=(--nvtx --nvtx-include "$(range_of "$c")/")
    timeout 300 "$NCU" --csv --metrics gpu__time_duration.sum --clock-control none --print-units base ${NV[@]+"${NV[@]}"} \
      --log-file "$RAWP/raw/${c}_${its}.csv" $(cmd_of "$c" $its) $([ "${KPROF_NVTX:-1}" = 1 ] && echo -log_nvtx) > "$RAWP/raw/${c}_${its}_ncu.log" 2>&1
    summ "$RAWP/raw/${c}_${its}.csv" > "$RAWP/raw/${c}_${its}.sum" 2> "$RAWP/raw/${c}_${its}.sumerr"
  done
  w1=$(wall_of "$c" "$RAWP/raw/${c}_${N}_plain.log")
  w2=$(wall_of "$c" "$RAWP/raw/${c}_$((2 * N))_plain.log")
  python3 - "$c" "$N" "${w1:-nan}" "${w2:-nan}" "$RAWP/raw/${c}_${N}.sum" "$RAWP/raw/${c}_$((2 * N)).sum" >> "$T" << 'EOF'
import sys
c, N, w1, w2, f1, f2 = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
def load(f):
    d = {}
    for l in open(f):
        p = l.split()
        if len(p) == 3:
            d[p[0]] = (int(p[1]), float(p[2]))
    return d
a, b = load(f1), load(f2)
per = {}
for k in set(a) | set(b):
    ca, ta = a.get(k, (0, 0.0))
    cb, tb = b.get(k, (0, 0.0))
    if cb - ca or tb - ta:
        per[k] = ((cb - ca) / N, (tb - ta) / N / 1e3)  # count/it, us/it
kern = sum(v[1] for v in per.values()) / 1e3  # ms/it
cnt = sum(v[0] for v in per.values())
wall = (w2 - w1) / N * 1e3
top = sorted(per.items(), key=lambda kv: -kv[1][1])[:8]
tops = "; ".join("%s %.1f (%.2g)" % (k, v[1], v[0]) for k, v in top)
ratio = kern / wall if wall == wall and wall > 0 else float("nan")
print("| %s | %d | %.4f | %.4f | %.2f | %.1f | %s |" % (c, N, wall, kern, ratio, cnt, tops))
EOF
  tar -C "$RAWP" -czf "$O/raw.tar.gz" raw
done
cat "$T"
