#!/usr/bin/env bash
# ppbench's OpenMP STREAM against McCalpin's STREAM and BabelStream's OpenMP build on the host CPU (issue 14), side
# by side in one call: ROUNDS rounds, each running every program once, the order rotated by one each round (no
# program always follows the same one). ppbench runs twice a round: as it runs by default (stores chosen by the
# model: streaming beyond the last-level cache) and with --stores temporal (the loop gcc makes of the others');
# BabelStream twice: as built, and with glibc's malloc advising its arrays for huge pages as ppbench advises its own
# (GLIBC_TUNABLES=glibc.malloc.hugetlb=1, glibc >= 2.35); McCalpin's static arrays get what the THP setting gives.
#   bench/host/stream_compare.sh WORKER MCCALPIN BABELSTREAM [OUTDIR]
# WORKER: ppbench-worker; MCCALPIN: stream.c built with -DSTREAM_ARRAY_SIZE=$ARRAYSIZE -DNTIMES=$NUMTIMES;
# BABELSTREAM: its omp-stream (CMake, -DMODEL=omp). OUTDIR: default $OUT, else bench-out.
# Options (environment): ARRAYSIZE (134217728 = 2^27 fp64 elements per array), NUMTIMES (20: iterations per
# kernel, the first excluded by all three), ROUNDS (6), OMP_PROC_BIND (spread), OMP_PLACES (cores),
# OMP_NUM_THREADS (nproc).
# Results: OUTDIR/env.txt (CPU, THP settings, versions), OUTDIR/raw/<round>-<program>.txt and .err (each run's
# stdout and stderr), OUTDIR/runs.tsv (one line per run and kernel: GB/s, verified, the run's THP faults from
# /proc/vmstat, seconds), OUTDIR/summary.txt (min/median/max per program and kernel, ratios of medians:
# bench/host/stream_compare.py). Exit status 1 when a run failed or did not verify.
set -u
if [ $# -lt 3 ]; then
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
W=$1 MCCALPIN=$2 BABEL=$3
OUT=${4:-${OUT:-bench-out}}
HERE=$(dirname "$0")
ARRAYSIZE=${ARRAYSIZE:-134217728}
NUMTIMES=${NUMTIMES:-20}
ROUNDS=${ROUNDS:-6}
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-cores} OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
for bin in "$W" "$MCCALPIN" "$BABEL"; do
    [ -x "$bin" ] || { echo "not an executable: $bin" >&2; exit 2; }
done
mkdir -p "$OUT/raw"

{
    date -u +%Y-%m-%dT%H:%M:%SZ
    uname -r
    lscpu
    for f in enabled defrag; do
        echo "thp.$f: $(cat /sys/kernel/mm/transparent_hugepage/$f 2>/dev/null)"
    done
    grep -E 'MemTotal|MemAvailable|HugePages_Total|Hugepagesize' /proc/meminfo
    env | grep -E '^OMP_' | sort
    echo "arraysize=$ARRAYSIZE numtimes=$NUMTIMES rounds=$ROUNDS"
    "$W" version
    echo "mccalpin: $MCCALPIN ($(sha256sum <"$MCCALPIN" | cut -c1-16))"
    echo "babelstream: $BABEL ($(sha256sum <"$BABEL" | cut -c1-16))"
} >"$OUT/env.txt" 2>&1

# One run of program $1.
run_program() {
    case $1 in
    ppbench) "$W" run --platform cpu0 --model openmp --suite stream --arraysize "$ARRAYSIZE" \
        --numtimes "$NUMTIMES" --kernels copy,mul,add,triad,dot --json ;;
    ppbench-temporal) "$W" run --platform cpu0 --model openmp --suite stream --arraysize "$ARRAYSIZE" \
        --numtimes "$NUMTIMES" --kernels copy,mul,add,triad,dot --stores temporal --json ;;
    mccalpin) "$MCCALPIN" ;;
    babelstream) "$BABEL" --arraysize "$ARRAYSIZE" --numtimes "$NUMTIMES" --csv ;;
    babelstream-thp) GLIBC_TUNABLES=glibc.malloc.hugetlb=1 "$BABEL" --arraysize "$ARRAYSIZE" --numtimes "$NUMTIMES" \
        --csv ;;
    esac
}

vmstat_thp() { awk '$1 == "thp_fault_alloc" { a = $2 } $1 == "thp_fault_fallback" { f = $2 } END { print a + 0, f + 0 }' /proc/vmstat; }

programs=(ppbench ppbench-temporal mccalpin babelstream babelstream-thp)
printf 'round\tposition\tprogram\tkernel\tgbs\tverified\tarray_size\tnumtimes\tthp_fault_alloc\tthp_fault_fallback\tseconds\n' \
    >"$OUT/runs.tsv"
failed=0
for ((r = 1; r <= ROUNDS; r++)); do
    for ((i = 0; i < ${#programs[@]}; i++)); do
        p=${programs[$(((i + r - 1) % ${#programs[@]}))]}
        raw="$OUT/raw/$r-$p.txt"
        read -r a0 f0 < <(vmstat_thp)
        t0=$(date +%s.%N)
        run_program "$p" >"$raw" 2>"${raw%.txt}.err"
        rc=$?
        t1=$(date +%s.%N)
        read -r a1 f1 < <(vmstat_thp)
        echo "== round $r: $p (exit $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)" >&2
        # A run that failed verification still reports its rates (runs.tsv marks them); one that did not: failed.
        if ! python3 "$HERE/stream_compare.py" parse "$p" "$raw" >"$OUT/parsed.tmp" 2>"$OUT/parsed.err"; then
            echo "   failed: $(cat "$OUT/parsed.err") $(tail -n 3 "${raw%.txt}.err" | tr '\n' ' ')" >&2
            failed=1
            continue
        fi
        [ "$rc" -eq 0 ] || failed=1
        while IFS=$'\t' read -r kernel gbs ok n times; do
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$i" "$p" "$kernel" "$gbs" "$ok" "$n" "$times" \
                $((a1 - a0)) $((f1 - f0)) "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
        done <"$OUT/parsed.tmp" >>"$OUT/runs.tsv"
    done
done
rm -f "$OUT/parsed.tmp" "$OUT/parsed.err"
python3 "$HERE/stream_compare.py" summary "$OUT" | tee "$OUT/summary.txt"
echo "done: $OUT" >&2
exit $failed
