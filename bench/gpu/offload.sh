#!/usr/bin/env bash
# OpenMP target offload (omp-target) against CUDA on the GPU machine, in one call (issue 14): the model's two
# builds, GCC's (libppbench-omptarget.so) and clang's (libppbench-omptarget-clang.so), picked per run with
# PPBENCH_OMPTARGET_COMPILER, each beside CUDA on the same kernels.
#
# That machine has gcc 13 without the nvptx plugin, no clang and no package manager, so the offload runtimes
# travel with the build, from Debian's packages of the compilers that built them (a runtime must match its
# compiler):
#   GCC's:   libgomp1 and libgomp-plugin-nvptx1 (GCC 12), unpacked into DIR/lib;
#   clang's: libomp5-19 (libomp.so.5, and libomptarget.so.19.1 with its CUDA plugin inside) and libllvm19
#            (libLLVM.so.19.1, which libomptarget needs), packed with xz into DIR/llvm.tar.xz (libLLVM alone is
#            124 MiB, 24 MiB packed), with the libraries libLLVM needs that Ubuntu 24.04 may lack (libz3, libxml2
#            and its ICU 72, libedit, libffi, ...) as fallbacks, used only where the machine has none.
# Both plugins load the NVIDIA driver that is there (LLVM's asks for the unversioned libcuda.so: where the
# machine has only libcuda.so.1, a link to it is made beside the runtime).
#
#   bench/gpu/offload.sh pack [DIR]      here, after make: apt-get download + dpkg -x of the runtimes into DIR
#                                        (default .offload-rt, ignored by git), and copies of the worker and
#                                        its models without debug sections in DIR/ppbench (the build with
#                                        them is 85 MiB, over the device call's 64 MiB); prints what to carry.
#   OFFLOAD_RT=<DIR> OUT=<folder> bench/gpu/offload.sh
#                                        there: STREAM fp64 2^25 and 2^28, Wilson fp32 32^4, staggered fp64 32^4
#                                        (1lp), CG at n = 215 (spmv, axpby, dot), each on cuda, omp-target built
#                                        by gcc and omp-target built by clang; a launch-shape sweep of clang's
#                                        2^28 triad; the launch geometry each runtime chose (launch.txt). In OUT:
#                                        summary.txt (best figure per kernel, the ratios to cuda), env.txt,
#                                        launch.txt, runs.tar.gz (every run's JSON and stderr): four files, the
#                                        device tool returns eight at most. W (default DIR/ppbench/bin/
#                                        ppbench-worker) is the worker; its models are in <W dir>/../lib/ppbench.
set -u

BUILD=${BUILD:-build}
if [ "${1:-}" = pack ] || [ "${1:-}" = fetch ]; then
    dir=${2:-.offload-rt}
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    rm -rf "${dir:?}/lib" "$dir/llvm.tar.xz" "$dir/ppbench"
    mkdir -p "$dir/lib" "$tmp/debs" "$tmp/root" "$tmp/llvm/lib" "$tmp/llvm/fallback" "$dir/ppbench/bin" \
        "$dir/ppbench/lib/ppbench" || exit 1
    # apt-get download writes as _apt where it can: a folder it may write to.
    chmod 755 "$tmp" && chmod 777 "$tmp/debs"
    (cd "$tmp/debs" && apt-get download libgomp1 libgomp-plugin-nvptx1 libomp5-19 libllvm19 libz3-4 libffi8 \
        libedit2 libbsd0 libmd0 libtinfo6 libxml2 libicu72 liblzma5 libzstd1) || exit 1
    for d in "$tmp"/debs/*.deb; do dpkg -x "$d" "$tmp/root"; done
    cp -a "$tmp"/root/usr/lib/x86_64-linux-gnu/libgomp*.so* "$dir/lib/"
    cp -L "$tmp/root/usr/lib/llvm-19/lib/libomp.so.5" "$tmp/root/usr/lib/llvm-19/lib/libomptarget.so.19.1" \
        "$tmp/root/usr/lib/x86_64-linux-gnu/libLLVM.so.19.1" "$tmp/llvm/lib/" || exit 1
    for n in libz3.so.4 libffi.so.8 libedit.so.2 libbsd.so.0 libmd.so.0 libtinfo.so.6 libxml2.so.2 \
        libicuuc.so.72 libicudata.so.72 liblzma.so.5 libzstd.so.1; do
        f=$(find "$tmp/root" -name "$n" | head -n 1)
        [ -n "$f" ] || { echo "pack: $n not in the packages" >&2; exit 1; }
        cp -L "$f" "$tmp/llvm/fallback/"
    done
    # Every library libomptarget needs resolves from the runtime and its fallbacks (or the base system).
    if LD_LIBRARY_PATH="$tmp/llvm/lib:$tmp/llvm/fallback" ldd "$tmp/llvm/lib/libomptarget.so.19.1" | grep 'not found'; then
        echo "pack: the LLVM runtime is incomplete" >&2
        exit 1
    fi
    echo "pack: xz of the LLVM runtime (a minute or two)"
    XZ_OPT="-9 -T2" tar -C "$tmp" -cJf "$dir/llvm.tar.xz" llvm || exit 1
    cp "$BUILD/bin/ppbench-worker" "$dir/ppbench/bin/" || { echo "pack: build first (make)" >&2; exit 1; }
    cp "$BUILD"/lib/ppbench/*.so "$dir/ppbench/lib/ppbench/"
    strip --strip-debug "$dir/ppbench/bin/ppbench-worker" "$dir"/ppbench/lib/ppbench/*.so
    ls -l "$dir/lib" "$dir/llvm.tar.xz" "$dir/ppbench/bin" "$dir/ppbench/lib/ppbench"
    echo "carry: $dir ($(du -sm "$dir" | cut -f1) MiB; set OFFLOAD_RT to it there)"
    exit 0
fi

: "${OFFLOAD_RT:?OFFLOAD_RT=<the folder bench/gpu/offload.sh pack made>}"
W=${W:-$OFFLOAD_RT/ppbench/bin/ppbench-worker}
OUT=${OUT:-$(mktemp -d)}
RUNS=$(mktemp -d)
mkdir -p "$OUT"
. "$(dirname "$0")/lib.sh"

offload_runtime "$OFFLOAD_RT"
gpu_setup
{
    echo "LLVM runtime: fallbacks and links used:${RT_NOTES:- none}"
    ldd "$(dirname "$W")/../lib/ppbench/libppbench-omptarget-clang.so" 2>&1 | grep -E 'omp|LLVM|not found'
} | tee -a "$OUT/env.txt"
COMPILERS=""
for c in gcc clang; do
    if PPBENCH_OMPTARGET_COMPILER=$c $W list | grep -Eq '^gpu0 .*omp-target'; then
        COMPILERS="$COMPILERS $c"
    else
        echo "omp-target built by $c does not see gpu0: its view follows" | tee -a "$OUT/env.txt"
        PPBENCH_OMPTARGET_COMPILER=$c GOMP_DEBUG=1 LIBOMPTARGET_INFO=-1 $W list 2>&1 | tail -n 20 |
            tee -a "$OUT/env.txt"
    fi
done

# The whole call stays under BUDGET_S seconds (default 540: the device tool's 10-minute call with room to
# start and to unpack): each run is bounded by its own limit and by what is left; runs past the budget are
# skipped, saying so.
BUDGET_S=${BUDGET_S:-540}
# one NAME TIMEOUT MODEL ARGS...: a run into RUNS/NAME.json (stderr into RUNS/NAME.err), bounded in time;
# MODEL is cuda, or omp-target-gcc / omp-target-clang (omp-target with that build).
one() {
    local name=$1 limit=$2 model=$3 left=$((BUDGET_S - SECONDS)) c=""
    shift 3
    if [ "$left" -lt 10 ]; then
        echo "$name: skipped (budget of ${BUDGET_S}s spent)" | tee "$RUNS/$name.err"
        return
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    case $model in omp-target-*) c=${model#omp-target-} model=omp-target ;; esac
    PPBENCH_OMPTARGET_COMPILER=$c timeout "$limit" $W run --platform gpu0 --model $model --json "$@" \
        >"$RUNS/$name.json" 2>"$RUNS/$name.err"
    echo "$name: exit $? after $SECONDS s $(tail -n 1 "$RUNS/$name.err")"
}
MODELS="cuda$(for c in $COMPILERS; do printf ' omp-target-%s' "$c"; done)"

for m in $MODELS; do
    one "stream-2p25-$m" 40 $m --suite stream --arraysize $((1 << 25)) --numtimes 100
    one "stream-2p28-$m" 60 $m --suite stream --arraysize $((1 << 28)) --numtimes 20
done
# The launch geometry each runtime chose for the 2^25 stream kernels: LLVM's libomptarget prints blocks and
# threads per launch (LIBOMPTARGET_INFO=16), libgomp's plugin teams, warps and lanes (GOMP_DEBUG=1).
for c in $COMPILERS; do
    echo "== $c" >>"$OUT/launch.txt"
    PPBENCH_OMPTARGET_COMPILER=$c LIBOMPTARGET_INFO=16 GOMP_DEBUG=1 timeout 40 $W run --platform gpu0 \
        --model omp-target --suite stream --arraysize $((1 << 25)) --numtimes 2 2>&1 >/dev/null |
        grep -E 'Launching kernel|GOMP_OFFLOAD_run: kernel.*launch' | sed -E 's/0x[0-9a-f]+/P/g' | sort | uniq -c |
        sort -rn | head -n 20 >>"$OUT/launch.txt"
done
# Launch shapes of clang's 2^28 triad: the runtime's, then num_teams x thread_limit (a thread is a CUDA thread
# under clang: thread_limit is the block size; 0 is the runtime's). 132 SMs on the H100.
case " $COMPILERS " in *" clang "*)
    for shape in 0x0 0x256 0x1024 1056x256 2112x256 264x1024 4224x512; do
        PPBENCH_OMPTARGET_TEAMS=${shape%x*} PPBENCH_OMPTARGET_THREADS=${shape#*x} \
            one "triad-shape-clang-$shape" 25 omp-target-clang --suite stream --arraysize $((1 << 28)) \
            --numtimes 10 --kernels triad,dot
    done
    ;;
esac
for m in $MODELS; do
    one "wilson-$m" 45 $m --suite wilson --lattice 32x32x32x32 --precision fp32 --numtimes 10
    one "staggered-$m" 40 $m --suite staggered --lattice 32x32x32x32 --precision fp64 --strategy 1lp \
        --runs 5 --iterations 10
    one "cg-$m" 40 $m --suite cg --n 215 --kernels spmv,axpby,dot --numtimes 20
done
gpu_clocks_after

# The summary: per run group and kernel, the figure (GB/s for stream and cg, GFLOP/s for the Dslash) of each
# model, the ratios of the two omp-target builds to cuda, and verified (cuda/gcc/clang).
fig() { # FILE: "kernel figure verified" lines of one run
    [ -s "$1" ] || return
    jq -r --arg run "$1" '.kernels[]? | [.kernel,
        (if (.gflops // 0) > 0 and ($run | test("wilson|staggered")) then .gflops
         else (.bandwidth_bytes_per_s // 0) / 1e9 end * 10 | round / 10), .verified] | @tsv' "$1"
}
{
    printf '%-12s %-8s %9s %9s %9s %7s %7s  %s\n' run kernel cuda omp-gcc omp-clang gcc/cu clang/cu verified
    for pair in stream-2p25 stream-2p28 wilson staggered cg; do
        join -a 1 -e - -o 0,1.2,1.3,2.2,2.3 <(fig "$RUNS/$pair-cuda.json" | sort) \
            <(fig "$RUNS/$pair-omp-target-gcc.json" | sort) |
            join -a 1 -e - -o 0,1.2,1.3,1.4,1.5,2.2,2.3 - <(fig "$RUNS/$pair-omp-target-clang.json" | sort) |
            awk -v run="$pair" '{ g = ($2 > 0 && $4 != "-") ? sprintf("%.3f", $4 / $2) : "-";
                l = ($2 > 0 && $6 != "-") ? sprintf("%.3f", $6 / $2) : "-";
                printf "%-12s %-8s %9s %9s %9s %7s %7s  %s/%s/%s\n", run, $1, $2, $4, $6, g, l, $3, $5, $7 }'
    done
    echo
    echo "launch shapes of clang's omp-target at 2^28 (num_teams x thread_limit, 0 = the runtime's): GB/s"
    for f in "$RUNS"/triad-shape-clang-*.json; do
        [ -s "$f" ] || continue
        echo "$(basename "$f" .json | sed 's/triad-shape-clang-//') $(fig "$f" | tr '\t\n' '  ')"
    done
    echo
    echo "provenance of the omp-target runs (toolchain, compiler):"
    for c in $COMPILERS; do
        jq -r '.provenance.backend | "\(.["omptarget.toolchain"]): \(.["omptarget.compiler"]); \(.["omptarget.runtime"])"' \
            "$RUNS/stream-2p28-omp-target-$c.json" 2>/dev/null
    done
} | tee "$OUT/summary.txt"
tar -C "$RUNS" -czf "$OUT/runs.tar.gz" .
