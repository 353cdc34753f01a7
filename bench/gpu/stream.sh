#!/usr/bin/env bash
# STREAM on the GPU machine (../shared/GPU.md): CUDA and NVIDIA OpenCL on the GPU in fp64 and fp32 at 2^25 and
# 2^28 elements, a device-to-device cudaMemcpy reference in the same run, then OpenMP and PoCL on the host CPU.
# Run from the repository root on that machine with the build tree carried (device tool: carry ["build"]):
#   bench/gpu/stream.sh [OUTDIR]
# Results: OUTDIR/gpu.json and OUTDIR/cpu.json (a stream of the worker's JSON documents and d2d lines),
# OUTDIR/env.txt (GPU, driver, clocks, CPU). Summarise here with bench/summarize.sh OUTDIR.
set -u
OUT=${1:-${OUT:-bench-out}}
mkdir -p "$OUT"
W=build/bin/ppbench-worker
NUMTIMES=${NUMTIMES:-100}
SIZES=${SIZES:-"33554432 268435456"}

. "$(dirname "$0")/lib.sh"
gpu_setup

: >"$OUT/gpu.json"
for n in $SIZES; do
    for prec in fp64 fp32; do
        flag=""; beta=8
        [ "$prec" = fp32 ] && flag="--float" && beta=4
        build/bench/d2d $((n * beta)) "$NUMTIMES" >>"$OUT/gpu.json" || echo "d2d failed" >&2
        for model in cuda opencl; do
            echo "== gpu0 $model $prec n=$n" >&2
            $W run --platform gpu0 --model "$model" --suite stream --arraysize "$n" --numtimes "$NUMTIMES" $flag \
                --json >>"$OUT/gpu.json" || echo "run failed: $model $prec $n (exit $?)" >&2
        done
    done
done
gpu_clocks_after

: >"$OUT/cpu.json"
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-cores}
for prec in fp64 fp32; do
    flag=""; [ "$prec" = fp32 ] && flag="--float"
    for model in openmp opencl; do
        echo "== cpu0 $model $prec n=33554432" >&2
        $W run --platform cpu0 --model "$model" --suite stream --arraysize 33554432 --numtimes "$NUMTIMES" $flag \
            --json >>"$OUT/cpu.json" || echo "run failed: cpu0 $model $prec (exit $?)" >&2
    done
done
echo "done: $OUT" >&2
