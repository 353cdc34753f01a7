#!/usr/bin/env bash
# Launch-shape sweep on the GPU machine: CUDA variant (vec16, scalar) x block size, CUDA dot blocks per SM, and
# the OpenCL work-group size, at 2^25 elements in fp64 (and fp32 for the defaults). Appends the worker's JSON to
# OUTDIR/sweep.json; summarise with bench/summarize.sh (it reads sweep.json too).
#   bench/gpu/sweep.sh [OUTDIR]
set -u
OUT=${1:-${OUT:-bench-out}}
mkdir -p "$OUT"
W=build/bin/ppbench-worker
N=${N:-33554432}
. "$(dirname "$0")/lib.sh"
gpu_setup

run() { "$W" run --platform gpu0 --suite stream --arraysize "$N" --numtimes 50 --json "$@" >>"$OUT/sweep.json" ||
    echo "sweep run failed: $*" >&2; }

: >"$OUT/sweep.json"
for v in vec16 scalar; do
    for b in 256 512 1024; do
        PPBENCH_CUDA_VARIANT=$v PPBENCH_CUDA_BLOCK=$b run --model cuda --kernels copy,mul,add,triad,nstream
    done
done
for d in 1 2 4 8; do
    PPBENCH_CUDA_DOT_BLOCKS_PER_SM=$d run --model cuda --kernels dot
done
for wg in 128 256 512 1024; do
    PPBENCH_OPENCL_WG=$wg run --model opencl
done
echo "sweep done" >&2
