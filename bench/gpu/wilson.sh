#!/usr/bin/env bash
# Wilson Dslash on the GPU machine (issue 5; ../shared/GPU.md) in one call: the CUDA STREAM triad (2^28 fp32, as
# bench/gpu/stream.sh's large size) for the roofline, then the Wilson Dslash on CUDA and on NVIDIA's OpenCL, aos
# and soa, fp32 and fp64, on 32^4 with ITERATIONS applications back to back per timed sample, every run
# verified. Run from a folder holding build/ (bin, lib) and bench/ on that machine (device tool: carry them):
#   bench/gpu/wilson.sh [OUTDIR]
# Results: OUTDIR/triad.json and OUTDIR/wilson.json (streams of the worker's JSON documents), OUTDIR/env.txt (GPU,
# driver, clocks before and after) and OUTDIR/summary.txt (bench/qcd_summary.py OUTDIR: GFLOP/s, the bandwidth of
# the compulsory traffic, the ceiling (that traffic at this call's triad: Eq. 2 with R = 7) and the share of it,
# implied reuse R, OpenCL/CUDA).
# Options (environment): LATTICE, NUMTIMES, ITERATIONS, TRIAD_N; SWEEP=1 adds the launch sweep (OUTDIR/sweep.json,
# some 32 runs more: register budgets 0, 128, 255 and work-group sizes 64, 256 on both models); NCU=1 adds
# Nsight Compute's view of the CUDA fp32 kernels (OUTDIR/ncu.csv: kernel time, DRAM bytes, L2 hit rate,
# occupancy).
set -u
OUT=${1:-${OUT:-bench-out}}
mkdir -p "$OUT"
HERE=$(dirname "$0")
W=build/bin/ppbench-worker
LATTICE=${LATTICE:-32x32x32x32}
NUMTIMES=${NUMTIMES:-20}
ITERATIONS=${ITERATIONS:-20}
TRIAD_N=${TRIAD_N:-268435456}

. "$(dirname "$0")/lib.sh"
gpu_setup

# wilson FILE MODEL LAYOUT PREC [ENV=VALUE...]: one verified run on gpu0, its JSON appended to FILE.
wilson() {
    local file=$1 model=$2 layout=$3 prec=$4 flag=""
    shift 4
    [ "$prec" = fp64 ] && flag="--double"
    echo "== wilson $model $layout $prec $LATTICE $*" >&2
    env "$@" $W run --platform gpu0 --model "$model" --suite wilson --lattice "$LATTICE" --layout "$layout" $flag \
        --numtimes "$NUMTIMES" --iterations "$ITERATIONS" --json >>"$file" ||
        echo "run failed: $model $layout $prec $* (exit $?)" >&2
}

echo "== triad cuda fp32 n=$TRIAD_N" >&2
$W run --platform gpu0 --model cuda --suite stream --kernels triad --arraysize "$TRIAD_N" --numtimes 100 --float \
    --json >"$OUT/triad.json" || echo "triad failed (exit $?)" >&2

: >"$OUT/wilson.json"
for prec in fp32 fp64; do
    for layout in aosoa soa aos; do
        for model in cuda opencl; do
            wilson "$OUT/wilson.json" "$model" "$layout" "$prec"
        done
    done
done
gpu_clocks_after
python3 "$HERE/../qcd_summary.py" "$OUT" | tee "$OUT/summary.txt"

if [ "${SWEEP:-0}" = 1 ]; then
    f="$OUT/sweep.json"
    : >"$f"
    for prec in fp32 fp64; do
        for layout in aosoa soa aos; do
            for model in cuda opencl; do
                for regs in 0 128 255; do
                    wilson "$f" "$model" "$layout" "$prec" PPBENCH_WILSON_REGS=$regs
                done
                [ "$prec" = fp32 ] && for wg in 64 256; do
                    wilson "$f" "$model" "$layout" "$prec" PPBENCH_WILSON_WG=$wg
                done
            done
        done
    done
    python3 "$HERE/../qcd_summary.py" "$OUT" | tee "$OUT/summary.txt"
fi

if [ "${NCU:-0}" = 1 ]; then
    NCU_BIN=$(ls /usr/local/cuda/bin/ncu /usr/local/cuda/nsight-compute*/ncu /opt/nvidia/nsight-compute/*/ncu \
        2>/dev/null | head -n 1)
    [ -n "$NCU_BIN" ] || NCU_BIN=$(command -v ncu)
    : >"$OUT/ncu.csv"
    for layout in aosoa soa aos; do
        "$NCU_BIN" --csv -k regex:dslash --launch-skip 3 --launch-count 1 \
            --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread \
            $W run --platform gpu0 --model cuda --suite wilson --lattice "$LATTICE" --layout "$layout" --numtimes 2 \
            --iterations 2 >>"$OUT/ncu.csv" || echo "ncu $layout failed (exit $?)" >&2
    done
fi
echo "done: $OUT" >&2
