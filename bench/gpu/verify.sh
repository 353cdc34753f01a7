#!/usr/bin/env bash
# Every suite on every GPU model, verified, in one call (after a change to the drivers or the model files, issue
# 23: one sample loop, one OpenMP file for both OpenMP models), and HACC measured at its GPU default and on the
# host (issue 24: the changed sph problem, the byte model, the simd variant). Runs where bench/gpu/offload.sh
# pack left OFFLOAD_RT (the worker, its models and the offload runtimes):
#   OFFLOAD_RT=.offload-rt OUT=$OUT bench/gpu/verify.sh
# Writes OUT/summary.txt (one line per run: suite, model, variant, exit status, verified, figure) and
# OUT/runs.tar.gz (every report).
set -u
: "${OFFLOAD_RT:?OFFLOAD_RT=<the folder bench/gpu/offload.sh pack made>}"
W=${W:-$OFFLOAD_RT/ppbench/bin/ppbench-worker}
OUT=${OUT:-$(mktemp -d)}
RUNS=$(mktemp -d)
mkdir -p "$OUT"
. "$(dirname "$0")/lib.sh"
offload_runtime "$OFFLOAD_RT"
gpu_setup >/dev/null

BUDGET_S=${BUDGET_S:-520}
# one NAME LIMIT PLATFORM MODEL ARGS...: a run's report into RUNS/NAME.json, a line into the summary.
one() {
    local name=$1 limit=$2 platform=$3 model=$4 left=$((BUDGET_S - SECONDS)) c="" rc
    shift 4
    if [ "$left" -lt 10 ]; then
        echo "$name skipped (budget spent)" >>"$OUT/summary.txt"
        return
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    case $model in omp-target-*) c=${model#omp-target-} model=omp-target ;; esac
    PPBENCH_OMPTARGET_COMPILER=$c timeout "$limit" $W run --platform "$platform" --model "$model" --json "$@" \
        >"$RUNS/$name.json" 2>"$RUNS/$name.err"
    rc=$?
    printf '%-34s exit %d %s\n' "$name" "$rc" "$(jq -r '[.verified, (.kernels | map("\(.name // .kernel) \(.bandwidth_bytes_per_s / 1e9 | floor) GB/s \(.gflops | floor) GF") | join(", ")),
        (.details.kernels // [] | map("\(.kernel) \(.interactions_per_s // 0 | . / 1e9 | . * 1000 | floor / 1000) Gint/s inside \(.inside_fraction // "-")") | join(", "))] | map(tostring) | join(" ")' \
        "$RUNS/$name.json" 2>/dev/null || tail -n 1 "$RUNS/$name.err")" | tee -a "$OUT/summary.txt"
}

for m in cuda opencl omp-target-gcc omp-target-clang; do
    one "stream-$m" 60 gpu0 $m --suite stream --arraysize $((1 << 25)) --numtimes 20
    one "wilson-$m" 60 gpu0 $m --suite wilson --numtimes 10
    one "staggered-$m" 60 gpu0 $m --suite staggered
    one "cg-$m" 60 gpu0 $m --suite cg --numtimes 5
done
for v in select memory-32 memory-object broadcast; do
    one "hacc-cuda-$v" 60 gpu0 cuda --suite hacc --variant $v --numtimes 10
    one "hacc-opencl-$v" 60 gpu0 opencl --suite hacc --variant $v --numtimes 10
done
for m in omp-target-gcc omp-target-clang; do
    for v in simd broadcast; do
        one "hacc-$m-$v" 60 gpu0 $m --suite hacc --variant $v --numtimes 10
    done
done
for v in simd scalar; do
    one "hacc-openmp-$v" 90 cpu0 openmp --suite hacc --variant $v --numtimes 10
done
gpu_clocks_after
tar -C "$RUNS" -czf "$OUT/runs.tar.gz" .
