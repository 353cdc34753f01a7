#!/usr/bin/env bash
# BabelStream's CUDA build as a ppbench runner on the GPU machine (issue 27): in one call, the service
# (bench/gpu/service.sh: ppbenchd, its embedded PostgreSQL, a worker serving gpu0) runs stream jobs on ppbench's
# own cuda model and on the runner `babelstream-cuda`, then the same program is run by hand with the same
# arguments, HAND_N times (default 3), and each kernel's figure of the runner's job is set against the median of
# the hand runs. The program is built here (bench/host/stream_refs.sh --babelstream SRC DEST cuda; its code never
# enters the project) and carried with the service's bundle.
#
#   OUT=<folder> BS=<path of cuda-stream> bench/gpu/runner.sh
#       (carry: build/bin, build/lib, .gpucarry/carry.tar.xz and BS's folder) OUT gets what service.sh writes,
#       runner.txt (kernel, runner GB/s, hand GB/s (median, min, max), their ratio; ppbench's cuda beside) and
#       hand-N.csv, the hand runs' tables.
# Settings: ARRAYSIZE (33554432: BabelStream's default), NUMTIMES (100), HAND_N, TOLERANCE (0.02); PLATFORM (gpu0)
# and OWN (ppbench's model beside it, cuda): PLATFORM=cpu0 OWN=openmp with BabelStream's omp build tries the
# script here, without a GPU.
set -u
cd "$(dirname "$0")/../.." || exit 1
: "${OUT:?OUT: where the results go}" "${BS:?BS: the BabelStream CUDA program}"
BS=$(cd "$(dirname "$BS")" && pwd)/$(basename "$BS")
ARRAYSIZE=${ARRAYSIZE:-33554432} NUMTIMES=${NUMTIMES:-100} HAND_N=${HAND_N:-3} TOLERANCE=${TOLERANCE:-0.02}
OWN=${OWN:-cuda}
export ARRAYSIZE NUMTIMES
mkdir -p "$OUT"
R=$OUT/runner.txt
RUNNERS=$(mktemp)
cat >"$RUNNERS" <<CONF
[babelstream-cuda]
suite = stream
kernels = copy,mul,add,triad,dot
platform = ${PLATFORM:-gpu0}
program = $BS
args = --arraysize {arraysize} --numtimes {numtimes} {precision=fp32:--float} --csv
version_args = --arraysize 1024 --numtimes 2
output = babelstream-csv
timeout_s = 600
CONF
PPBENCH_RUNNERS=$RUNNERS MODELS="$OWN babelstream-cuda" SUITES=stream SIZE=babelstream bench/gpu/service.sh run
svc=$?

# The hand runs, right after the service's (the same GPU, the same arguments as the runner's args above).
for i in $(seq "$HAND_N"); do
    "$BS" --arraysize "$ARRAYSIZE" --numtimes "$NUMTIMES" --csv >"$OUT/hand-$i.csv" 2>&1
done
logs=$(mktemp -d)
tar -xzf "$OUT/service.tar.gz" -C "$logs" 2>/dev/null
job=$(find "$logs" -name 'job-stream-babelstream-cuda.json' | head -n 1)
own=$(find "$logs" -name "job-stream-$OWN.json" | head -n 1)
{
    echo "BabelStream CUDA as a runner against the same program by hand, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)"
    echo "program: $BS ($("$BS" --arraysize 1024 --numtimes 2 2>&1 | grep -m1 -i version)), arraysize $ARRAYSIZE, numtimes $NUMTIMES, fp64; service exit $svc"
    printf '%-6s %12s %12s %12s %12s %8s %12s\n' kernel runner_GB/s hand_median hand_min hand_max ratio ${OWN}_GB/s
    fail=0
    for k in copy mul add triad dot; do
        label=$(echo "$k" | sed 's/^./\U&/')
        # BabelStream's CSV: function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime
        hand=$(cat "$OUT"/hand-*.csv | awk -F, -v l="$label" '$1 == l { print $5 / 1000 }' | sort -n)
        med=$(echo "$hand" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
        run=$(jq -r --arg k "$k" '[.results[]? | select(.kernel == $k) | .bandwidth_bytes_per_s / 1e9][0] // empty' "$job" 2>/dev/null)
        cu=$(jq -r --arg k "$k" '[.results[]? | select(.kernel == $k) | .bandwidth_bytes_per_s / 1e9][0] // empty' "$own" 2>/dev/null)
        ratio=$(awk -v a="${run:-0}" -v b="${med:-0}" 'BEGIN { if (b > 0) printf "%.4f", a / b; else print "-" }')
        ok=$(awk -v r="$ratio" -v t="$TOLERANCE" 'BEGIN { print (r != "-" && r >= 1 - t && r <= 1 + t) ? "ok" : "OUT" }')
        [ "$ok" = ok ] || fail=1
        printf '%-6s %12.1f %12.1f %12.1f %12.1f %8s %12.1f %s\n' "$k" "${run:-0}" "${med:-0}" "$(echo "$hand" | head -n 1)" \
            "$(echo "$hand" | tail -n 1)" "$ratio" "${cu:-0}" "$ok"
    done
    [ "$fail" = 0 ] && echo "PASS every kernel of the runner within $TOLERANCE of the hand runs' median" ||
        echo "FAIL a kernel of the runner outside $TOLERANCE of the hand runs' median (or absent)"
} | tee "$R"
rm -rf "$logs" "$RUNNERS"
