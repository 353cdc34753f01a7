#!/usr/bin/env bash
# Nsight Compute view of the CUDA STREAM kernels at 2^28 fp64 (what limits them): kernel-only time, DRAM
# throughput as % of its sustained peak, bytes read and written. Writes OUTDIR/ncu.csv.
#   bench/gpu/ncu.sh [OUTDIR]
set -u
OUT=${1:-${OUT:-bench-out}}
mkdir -p "$OUT"
NCU=$(ls /usr/local/cuda/bin/ncu /usr/local/cuda/nsight-compute*/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
if [ -z "$NCU" ]; then
    echo "ncu not found" >&2
    exit 1
fi
"$NCU" --csv --kernel-name-base demangled -k 'regex:copy|mul|add|triad|dot|nstream' --launch-skip 6 --launch-count 6 \
    --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed \
    build/bin/ppbench-worker run --platform gpu0 --model cuda --suite stream --arraysize 268435456 --numtimes 3 \
    >"$OUT/ncu.csv" 2>"$OUT/ncu.err"
echo "ncu exit $?" >&2
