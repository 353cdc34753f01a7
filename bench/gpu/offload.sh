#!/usr/bin/env bash
# OpenMP target offload (omp-target) against CUDA on the GPU machine, in one call (issue 14).
#
# That machine has gcc 13 without the nvptx plugin and no package manager, so the offload runtime travels with
# the build: Debian's libgomp1 and libgomp-plugin-nvptx1 (GCC 12, the compiler that built
# libppbench-omptarget.so; a plugin must match its libgomp), unpacked into one folder of libraries. The plugin
# loads the NVIDIA driver (libcuda.so.1) that is there.
#
#   bench/gpu/offload.sh fetch [DIR]    here: apt-get download + dpkg -x into DIR (default .offload-rt, ignored
#                                       by git); prints the folder of libraries to carry (DIR/lib)
#   W=<worker> OFFLOAD_RT=<DIR/lib> OUT=<folder> bench/gpu/offload.sh
#                                       there: STREAM fp64 2^25 and 2^28, a launch-shape sweep of the 2^28 triad,
#                                       Wilson fp32 32^4, staggered fp64 32^4, CG spmv at n = 215, each on
#                                       omp-target and cuda; JSON per run in OUT, then OUT/summary.txt (best
#                                       figure per kernel and the ratio omp-target / cuda). Worker's shared
#                                       objects: <worker dir>/../lib/ppbench, or PPBENCH_LIBDIR.
set -u

if [ "${1:-}" = fetch ]; then
    dir=${2:-.offload-rt}
    mkdir -p "$dir/debs" "$dir/root" "$dir/lib"
    (cd "$dir/debs" && apt-get download libgomp1 libgomp-plugin-nvptx1) || exit 1
    for d in "$dir"/debs/*.deb; do dpkg -x "$d" "$dir/root"; done
    cp -a "$dir"/root/usr/lib/x86_64-linux-gnu/libgomp*.so* "$dir/lib/"
    ls -l "$dir/lib"
    echo "carry: $dir/lib (set OFFLOAD_RT to it there)"
    exit 0
fi

: "${W:?W=<ppbench-worker>}" "${OFFLOAD_RT:?OFFLOAD_RT=<folder with libgomp.so.1 and libgomp-plugin-nvptx.so.1>}"
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$OFFLOAD_RT${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
. "$(dirname "$0")/lib.sh"
gpu_setup
if ! $W list | grep -Eq '^gpu0 .*omp-target'; then
    echo "omp-target does not see gpu0: the loader's view follows" | tee -a "$OUT/env.txt"
    ldd "$(dirname "$W")/../lib/ppbench/libppbench-omptarget.so" 2>&1 | tee -a "$OUT/env.txt"
    GOMP_DEBUG=1 $W list 2>&1 | tail -n 30 | tee -a "$OUT/env.txt"
fi

# The whole call stays under BUDGET_S seconds (default 270: the device tool's 5-minute call with room to
# start): each run is bounded by its own limit and by what is left; runs past the budget are skipped, saying so.
BUDGET_S=${BUDGET_S:-270}
# one NAME TIMEOUT ARGS...: a run into OUT/NAME.json (stderr into OUT/NAME.err), bounded in time.
one() {
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

for m in cuda omp-target; do
    one "stream-2p25-$m" 30 --model $m --suite stream --arraysize $((1 << 25)) --numtimes 100
    one "stream-2p28-$m" 60 --model $m --suite stream --arraysize $((1 << 28)) --numtimes 20
done
# Launch shapes of the 2^28 triad: the runtime's, then num_teams x thread_limit (an OpenMP thread is a warp
# on GCC's nvptx offload: thread_limit 8 is 256 CUDA threads a block). 132 SMs on the H100.
for shape in 0x0 528x8 1056x8 264x32 2112x16; do
    PPBENCH_OMPTARGET_TEAMS=${shape%x*} PPBENCH_OMPTARGET_THREADS=${shape#*x} \
        one "triad-shape-$shape" 20 --model omp-target --suite stream --arraysize $((1 << 28)) --numtimes 10 \
        --kernels triad,dot
done
for m in cuda omp-target; do
    one "wilson-$m" 45 --model $m --suite wilson --lattice 32x32x32x32 --precision fp32 --numtimes 10
    one "staggered-$m" 40 --model $m --suite staggered --lattice 32x32x32x32 --precision fp64 --strategy 1lp \
        --runs 5 --iterations 10
    one "cg-$m" 40 --model $m --suite cg --n 215 --kernels spmv,axpby,dot --numtimes 20
done
# CUDA's own best staggered strategy beside 1lp (the paper's default on GPUs).
one "staggered-cuda-default" 30 --model cuda --suite staggered --lattice 32x32x32x32 --precision fp64 --runs 5 \
    --iterations 10
gpu_clocks_after

# The summary: per run group and kernel, the figure (GB/s for stream and cg, GFLOP/s for the Dslash), verified
# or not, and omp-target / cuda.
{
    printf '%-28s %-8s %12s %12s %7s  %s\n' run kernel cuda omp-target ratio verified
    for pair in stream-2p25 stream-2p28 wilson staggered cg; do
        c="$OUT/$pair-cuda.json" o="$OUT/$pair-omp-target.json"
        [ -s "$c" ] || c=/dev/null
        [ -s "$o" ] || o=/dev/null
        jq -rn --slurpfile c "$c" --slurpfile o "$o" --arg run "$pair" '
            def fig: if (.gflops // 0) > 0 and ($run | test("wilson|staggered")) then .gflops
                     else (.bandwidth_bytes_per_s // 0) / 1e9 end;
            ([$c[0].kernels[]? | {(.kernel): {f: fig, v: .verified}}] | add // {}) as $cu |
            ([$o[0].kernels[]? | {(.kernel): {f: fig, v: .verified}}] | add // {}) as $om |
            (($cu | keys) + ($om | keys) | unique)[] as $k |
            [$run, $k, ($cu[$k].f // 0), ($om[$k].f // 0),
             (if ($cu[$k].f // 0) > 0 then ($om[$k].f // 0) / $cu[$k].f else 0 end),
             "\($cu[$k].v // "-")/\($om[$k].v // "-")"] |
            "\(.[0]) \(.[1]) \(.[2] * 10 | round / 10) \(.[3] * 10 | round / 10) \(.[4] * 1000 | round / 1000) \(.[5])"' |
            awk '{printf "%-28s %-8s %12s %12s %7s  %s\n", $1, $2, $3, $4, $5, $6}'
    done
    echo
    echo "launch shapes of omp-target at 2^28 (num_teams x thread_limit, 0 = the runtime's): triad, dot GB/s"
    for f in "$OUT"/triad-shape-*.json; do
        [ -s "$f" ] || continue
        jq -r --arg s "$(basename "$f" .json | sed 's/triad-shape-//')" \
            '"\($s) " + ([.kernels[] | "\(.kernel) \(.bandwidth_bytes_per_s / 1e9 * 10 | round / 10) \(.verified)"] | join("  "))' "$f"
    done
    echo
    echo "staggered on cuda with its default strategy:"
    jq -r '"\(.variant.strategy) \(.kernels[0].gflops * 10 | round / 10) GFLOP/s verified \(.verified)"' \
        "$OUT/staggered-cuda-default.json" 2>/dev/null
} | tee "$OUT/summary.txt"
