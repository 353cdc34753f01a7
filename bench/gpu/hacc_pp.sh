#!/usr/bin/env bash
# Every HACC variant of every model on cpu0 and gpu0 at one problem, in one call (issue 24: PP against code
# divergence per variant policy over {cpu0, gpu0}, paper 003 Sec. 6). Runs where bench/gpu/offload.sh pack left
# OFFLOAD_RT (the worker, its models and the offload runtimes; omp-target as clang's build, the one a worker takes
# where it loads):
#   OFFLOAD_RT=<rt> OUT=<dir> bench/gpu/hacc_pp.sh
# Writes OUT/<platform>_<model>_<variant>.json (each run's report; .err its stderr) and OUT/summary.txt (one line
# per run: exit status, verified, GFLOP/s per kernel). bench/pp_policies.sh then computes every policy's PP and
# code divergence from those reports through a real ppbenchd. The problem: fp32, PAIRS leaf pairs of 128
# particles (default 65536, the GPU's default), NUMTIMES samples (default 5); CPU runs take the worker's default
# binding, as a job's would.
set -u
: "${OFFLOAD_RT:?OFFLOAD_RT=<the folder bench/gpu/offload.sh pack made>}"
W=${W:-$OFFLOAD_RT/ppbench/bin/ppbench-worker}
OUT=${OUT:-$(mktemp -d)}
PAIRS=${PAIRS:-65536}
NUMTIMES=${NUMTIMES:-5}
mkdir -p "$OUT"
. "$(dirname "$0")/lib.sh"
offload_runtime "$OFFLOAD_RT"
gpu_setup >/dev/null

# run PLATFORM MODEL VARIANT: one run's report and a summary line
run() {
    local plat=$1 model=$2 v=$3 f="$OUT/$1_$2_$3" rc
    PPBENCH_OMPTARGET_COMPILER=clang timeout 300 "$W" run --platform "$plat" --model "$model" --suite hacc \
        --leaf-pairs "$PAIRS" --leaf-size 128 --numtimes "$NUMTIMES" --variant "$v" --json >"$f.json" 2>"$f.err"
    rc=$?
    printf '%-40s exit %d %s\n' "$plat $model $v" "$rc" \
        "$(jq -r '"\(.verified) " + ([.kernels[] | "\(.kernel) \(.gflops | floor) GF"] | join(", "))' "$f.json" 2>/dev/null)" \
        >>"$OUT/summary.txt"
}
for v in scalar simd; do run cpu0 openmp "$v"; done
for v in select memory-32 memory-object broadcast; do run cpu0 opencl "$v"; done
for v in select memory-32 memory-object broadcast; do run gpu0 cuda "$v"; run gpu0 opencl "$v"; done
for v in scalar simd broadcast select; do run gpu0 omp-target "$v"; done
cat "$OUT/summary.txt"
