#!/usr/bin/env bash
# The lattice QCD suites on the host CPU through OpenMP (issue 5), against the ceiling of their compulsory traffic
# at the host's own STREAM triad measured in the same call (bench/qcd_summary.py): triad fp64 and fp32 at 2^25,
# then the Wilson Dslash (aos, soa) and the staggered Dslash (site, simd) in fp32 and fp64 on LATTICE, every run
# verified. Run from the repository root
# (or a folder holding build/ and bench/) on the machine to measure:
#   bench/host/qcd.sh [OUTDIR]
# Results: OUTDIR/triad.json, OUTDIR/wilson.json, OUTDIR/staggered.json (streams of the worker's JSON documents),
# OUTDIR/env.txt, and OUTDIR/summary.txt (bench/qcd_summary.py OUTDIR).
# Options (environment): LATTICE (default 24x24x24x24: fields far larger than the caches), NUMTIMES (wilson samples, 10), RUNS and ITERATIONS
# (staggered, 5 x 10), OMP_PROC_BIND/OMP_PLACES (spread, cores).
set -u
OUT=${1:-${OUT:-bench-out}}
mkdir -p "$OUT"
HERE=$(dirname "$0")
W=build/bin/ppbench-worker
LATTICE=${LATTICE:-24x24x24x24}
NUMTIMES=${NUMTIMES:-10}
RUNS=${RUNS:-5}
ITERATIONS=${ITERATIONS:-10}
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-cores}

{
    date -u +%Y-%m-%dT%H:%M:%SZ
    lscpu | grep -E 'Model name|^CPU\(s\)|Socket|NUMA node\(s\)|Thread|Flags' | cut -c1-200
    $W version
} >"$OUT/env.txt" 2>&1

: >"$OUT/triad.json"
for flag in --double --float; do
    echo "== triad openmp $flag" >&2
    $W run --platform cpu0 --model openmp --suite stream --kernels triad --arraysize 33554432 --numtimes 50 $flag \
        --json >>"$OUT/triad.json" || echo "triad failed: $flag (exit $?)" >&2
done
: >"$OUT/wilson.json"
: >"$OUT/staggered.json"
for flag in --float --double; do
    for layout in aos soa; do
        echo "== wilson openmp $layout $flag $LATTICE" >&2
        $W run --platform cpu0 --model openmp --suite wilson --lattice "$LATTICE" --layout "$layout" $flag \
            --numtimes "$NUMTIMES" --json >>"$OUT/wilson.json" || echo "wilson failed: $layout $flag (exit $?)" >&2
    done
    for strategy in site simd; do
        echo "== staggered openmp $strategy $flag $LATTICE" >&2
        $W run --platform cpu0 --model openmp --suite staggered --lattice "$LATTICE" --strategy "$strategy" $flag \
            --runs "$RUNS" --iterations "$ITERATIONS" --json >>"$OUT/staggered.json" ||
            echo "staggered failed: $strategy $flag (exit $?)" >&2
    done
done
python3 "$HERE/../qcd_summary.py" "$OUT" | tee "$OUT/summary.txt"
echo "done: $OUT" >&2
