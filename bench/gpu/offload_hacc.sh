#!/usr/bin/env bash
# HACC (and staggered's 2lp and 3lp-3) on omp-target against CUDA on the GPU machine, in one call (issues 13
# and 14): the runtime travels as for bench/gpu/offload.sh (`bench/gpu/offload.sh fetch` prepares it here).
#
#   W=<worker> OFFLOAD_RT=<DIR/lib> OUT=<folder> bench/gpu/offload_hacc.sh
#       hacc fp32 at the GPU default (65536 leaf pairs of 128): cuda select and broadcast, omp-target simd,
#       broadcast and scalar; staggered fp64 32^4: omp-target 1lp, 2lp, 3lp-3 (k) beside cuda's; JSON per run
#       in OUT, then OUT/summary.txt (interactions/s or GFLOP/s per kernel, and the ratio to CUDA's best).
set -u
: "${W:?W=<ppbench-worker>}" "${OFFLOAD_RT:?OFFLOAD_RT=<folder with libgomp.so.1 and libgomp-plugin-nvptx.so.1>}"
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$OFFLOAD_RT${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
. "$(dirname "$0")/lib.sh"
gpu_setup
$W list | grep -Eq '^gpu0 .*omp-target' || echo "omp-target does not see gpu0 (see bench/gpu/offload.sh)" | tee "$OUT/env.txt"

BUDGET_S=${BUDGET_S:-270}
one() { # NAME TIMEOUT ARGS...: a run into OUT/NAME.json, bounded by its limit and by what is left of the budget
    local name=$1 limit=$2 left=$((BUDGET_S - SECONDS))
    shift 2
    if [ "$left" -lt 10 ]; then
        echo "$name: skipped (budget of ${BUDGET_S}s spent)" | tee "$OUT/$name.err"
        return
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    timeout "$limit" $W run --platform gpu0 --json "$@" >"$OUT/$name.json" 2>"$OUT/$name.err"
    echo "$name: exit $? after $SECONDS s $(tail -n 1 "$OUT/$name.err")"
}

for v in select broadcast; do
    one "hacc-cuda-$v" 30 --model cuda --suite hacc --precision fp32 --variant $v --numtimes 10
done
for v in simd broadcast scalar; do
    one "hacc-omp-target-$v" 60 --model omp-target --suite hacc --precision fp32 --variant $v --numtimes 10
done
one "staggered-cuda" 30 --model cuda --suite staggered --lattice 32x32x32x32 --precision fp64 --runs 5 --iterations 10
for s in 1lp 2lp 3lp-3; do
    one "staggered-omp-target-$s" 40 --model omp-target --suite staggered --lattice 32x32x32x32 --precision fp64 \
        --strategy $s --runs 5 --iterations 10
done
gpu_clocks_after

{
    echo "hacc fp32, interactions/s (G) per kernel, verified, and against CUDA's best variant of the kernel:"
    best=$(jq -s '[.[] | .details.kernels[]? | {k: .kernel, r: .interactions_per_s}] | group_by(.k)
                  | map({(.[0].k): (map(.r) | max)}) | add // {}' "$OUT"/hacc-cuda-*.json 2>/dev/null)
    [ -n "$best" ] || best='{}'
    for f in "$OUT"/hacc-*.json; do
        [ -s "$f" ] || { echo "$(basename "$f" .json): no result ($(tail -n 1 "${f%.json}.err"))"; continue; }
        jq -r --argjson best "$best" --arg run "$(basename "$f" .json)" '
            .verified as $v | .details.kernels[] |
            "\($run) \(.kernel) \(.interactions_per_s / 1e9 * 100 | round / 100) verified=\($v) x\(
                if ($best[.kernel] // 0) > 0 then (.interactions_per_s / $best[.kernel] * 1000 | round / 1000) else "?" end)"' "$f"
    done
    echo
    echo "staggered fp64 32^4, GFLOP/s (mean rule), verified:"
    for f in "$OUT"/staggered-*.json; do
        [ -s "$f" ] && jq -r --arg run "$(basename "$f" .json)" \
            '"\($run) \(.variant.strategy) \(.kernels[0].gflops * 10 | round / 10) verified=\(.verified)"' "$f"
    done
} | tee "$OUT/summary.txt"
