#!/usr/bin/env bash
# The default CPU binding of issue 22 (worker/cpubind.c) against no binding, on the host CPU: ROUNDS rounds,
# each running `ppbench-worker run --platform cpu0 --model M --suite stream --json` once bound as ppbench binds
# by default (nothing set) and once unbound (OpenMP: OMP_PROC_BIND=false, a user's setting that wins, with
# libgomp's thread count; PoCL: POCL_AFFINITY=0 POCL_MAX_PTHREAD_COUNT=<CPUs of the mask>), alternating which
# goes first. Every OMP_*/POCL_* variable of the caller is cleared first.
#   bench/host/binding.sh WORKER [OUTDIR]
# Options (environment): MODEL (openmp), ROUNDS (10), ARRAYSIZE (default: the suite's), NUMTIMES (100).
# Results: OUTDIR/env.txt, OUTDIR/raw/<round>-<bound|unbound>.json (each run's report), OUTDIR/summary.txt
# (bench/host/binding.py: per mode and kernel the median and the worst over the runs of the samples' CV and of
# (p10 - min) / min, and the best and the median of the runs' bandwidths).
set -u
if [ $# -lt 1 ]; then
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
W=$1
OUT=${2:-${OUT:-bench-out}}
HERE=$(dirname "$0")
MODEL=${MODEL:-openmp}
ROUNDS=${ROUNDS:-10}
NUMTIMES=${NUMTIMES:-100}
for v in $(env | sed -n 's/^\(\(OMP\|GOMP\|POCL\)_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
mkdir -p "$OUT/raw"
{
    date -u +%Y-%m-%dT%H:%M:%SZ
    uname -r
    lscpu
    uptime
    echo "command: $W run --platform cpu0 --model $MODEL --suite stream --numtimes $NUMTIMES ${ARRAYSIZE:+--arraysize $ARRAYSIZE} --json"
} >"$OUT/env.txt"
unbound=(OMP_PROC_BIND=false)
[ "$MODEL" = opencl ] && unbound=(POCL_AFFINITY=0 "POCL_MAX_PTHREAD_COUNT=$(nproc)")
run() { # run ROUND MODE ENV...
    local r=$1 mode=$2
    shift 2
    env "$@" "$W" run --platform cpu0 --model "$MODEL" --suite stream --numtimes "$NUMTIMES" \
        ${ARRAYSIZE:+--arraysize "$ARRAYSIZE"} --json >"$OUT/raw/$r-$mode.json" 2>"$OUT/raw/$r-$mode.err" ||
        echo "round $r $mode: exit $?" >&2
}
for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then
        run "$r" bound && run "$r" unbound "${unbound[@]}"
    else
        run "$r" unbound "${unbound[@]}" && run "$r" bound
    fi
done
echo "end: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uptime)" >>"$OUT/env.txt"
python3 "$HERE/binding.py" "$OUT/raw" | tee "$OUT/summary.txt"
