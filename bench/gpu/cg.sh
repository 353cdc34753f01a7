#!/usr/bin/env bash
# The CG suite (paper 002) on the GPU machine: effective bandwidth of axpby, dot, spmv and cg against size on
# CUDA (ppbench's SPMV and cuSPARSE's) and NVIDIA OpenCL, with the STREAM triad and copy of the same call at
# 2^28 elements. Run from the repository root there with the build tree carried (device tool: carry
# ["build"]); cuSPARSE is loaded from /usr/local/cuda/lib64.
#   bench/gpu/cg.sh [OUTDIR]      (SIZES="9 20 45 100 215 300 429", NUMTIMES, ITERATIONS)
# Results: OUTDIR/triad_<model>.json, OUTDIR/cg.json (the worker's JSON documents), OUTDIR/env.txt.
set -u
OUT=${1:-${OUT:-bench-out}}
mkdir -p "$OUT"
W=${W:-build/bin/ppbench-worker}
SIZES=${SIZES:-"9 20 45 100 215 300 429"}
NUMTIMES=${NUMTIMES:-20}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}

. "$(dirname "$0")/lib.sh"
gpu_setup

for m in cuda opencl; do
    $W run --platform gpu0 --model $m --suite stream --kernels copy,triad --arraysize 268435456 --numtimes 50 \
        --json >"$OUT/triad_$m.json" || echo "triad failed: $m (exit $?)" >&2
done
: >"$OUT/cg.json"
for n in $SIZES; do
    it=${ITERATIONS:-50}
    [ "$n" -ge 300 ] && it=${ITERATIONS:-20} # the serial reference solve is the slow part at 5e7+ rows
    for v in "cuda native" "cuda cusparse" "opencl native"; do
        set -- $v
        echo "== gpu0 $1 $2 n=$n" >&2
        $W run --platform gpu0 --model "$1" --suite cg --n "$n" --spmv-variant "$2" --numtimes "$NUMTIMES" \
            --iterations "$it" --json >>"$OUT/cg.json" || echo "run failed: $1 $2 n=$n (exit $?)" >&2
    done
done
gpu_clocks_after
