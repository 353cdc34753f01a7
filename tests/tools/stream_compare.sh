# bench/host/stream_compare.{sh,py}: the parsers on outputs recorded from the real McCalpin STREAM and BabelStream
# OpenMP builds (tests/tools/stream_compare/: 2^22 fp64, 5 iterations), each rate held to ppbench's byte model (a
# triad counted as 2 arrays is refused), failed validation marked; the summary's medians and ratios; then, where
# their sources are here (STREAM_SRC, BABEL_SRC; default the git-ignored .gpucarry/ext checkouts), both built by
# bench/host/stream_refs.sh and run beside the worker in 2 interleaved rounds.
. "$(dirname "$0")/../lib/check.sh"

D=tests/tools/stream_compare
P=bench/host/stream_compare.py
tab=$'\t'

expect "parse: McCalpin's four kernels in GB/s, validated" 0 "^triad${tab}51\.5711${tab}1${tab}4194304${tab}5\$" -- \
    python3 "$P" parse mccalpin "$D/mccalpin.txt"
expect "parse: McCalpin's Scale is mul" 0 "^mul${tab}47\.6995${tab}1" -- python3 "$P" parse mccalpin "$D/mccalpin.txt"
expect "parse: BabelStream's CSV, the dot left out" 0 "^triad${tab}52\.6354[0-9]*${tab}1${tab}4194304${tab}5\$" -- \
    python3 "$P" parse babelstream "$D/babelstream.txt"
sed -E 's/^(Triad:\s+)51571\.1/\134381.0/' "$D/mccalpin.txt" >"$TMP/m2.txt"
expect "parse: a McCalpin triad rate of 2 arrays is refused" 1 'mccalpin triad: 34381\.0 MB/s is not 3 arrays' -- \
    python3 "$P" parse mccalpin "$TMP/m2.txt"
sed 's/^Copy,5,4194304,8,52852.3,/Copy,5,4194304,8,79278.4,/' "$D/babelstream.txt" >"$TMP/b2.txt"
expect "parse: a BabelStream copy rate of 3 arrays is refused" 1 'babelstream copy: 79278\.4 MB/s is not 2 arrays' -- \
    python3 "$P" parse babelstream "$TMP/b2.txt"
grep -v 'Solution Validates' "$D/mccalpin.txt" >"$TMP/m3.txt"
expect "parse: McCalpin without its validation line is not verified" 0 "^triad${tab}51\.5711${tab}0" -- \
    python3 "$P" parse mccalpin "$TMP/m3.txt"
cp "$D/babelstream.txt" "$TMP/b3.txt"
echo 'FAILED validation of a[0]: 1 (is) != 2 (should)' >"$TMP/b3.err"
expect "parse: BabelStream's FAILED on stderr is not verified" 0 "^triad${tab}52\.6354[0-9]*${tab}0" -- \
    python3 "$P" parse babelstream "$TMP/b3.txt"

# The summary: medians per program and kernel, ratios of medians, warnings for unverified runs.
mkdir -p "$TMP/sum"
{
    printf 'round\tposition\tprogram\tkernel\tgbs\tverified\tarray_size\tnumtimes\tthp_fault_alloc\tthp_fault_fallback\tseconds\n'
    for r in 1 2 3; do
        for k in copy mul add triad; do
            printf '%s\t0\tppbench\t%s\t%s\t1\t8\t5\t0\t0\t1\n' "$r" "$k" "$((100 + 10 * r))"
            printf '%s\t1\tmccalpin\t%s\t100\t%s\t8\t5\t0\t0\t1\n' "$r" "$k" "$([ "$r$k" = 2add ] && echo 0 || echo 1)"
        done
    done
} >"$TMP/sum/runs.tsv"
python3 "$P" summary "$TMP/sum" >"$TMP/sum.txt" 2>&1
if grep -Eq '^ppbench +triad +3 +110\.0 +120\.0 +130\.0$' "$TMP/sum.txt" &&
    grep -Eq '^ppbench +mccalpin +1\.200 +1\.200 +1\.200 +1\.200$' "$TMP/sum.txt" &&
    grep -q 'WARNING: not verified: round 2 mccalpin add' "$TMP/sum.txt"; then
    pass "summary: min/median/max, ratios of medians, unverified runs named"
else
    fail "summary: min/median/max, ratios of medians, unverified runs named" "$(tr '\n' '|' <"$TMP/sum.txt")"
fi

# End to end with the real programs, where their sources are here.
STREAM_SRC=${STREAM_SRC:-.gpucarry/ext/STREAM}
BABEL_SRC=${BABEL_SRC:-.gpucarry/ext/BabelStream}
if [ ! -f "$STREAM_SRC/stream.c" ] || [ ! -f "$BABEL_SRC/src/omp/OMPStream.cpp" ] || ! command -v cmake >/dev/null; then
    skip "stream_compare: 2 rounds against McCalpin and BabelStream" "no sources in $STREAM_SRC and $BABEL_SRC (or no cmake)"
elif ! ARRAYSIZE=100003 NUMTIMES=3 bench/host/stream_refs.sh "$STREAM_SRC" "$BABEL_SRC" "$TMP/refs" >"$TMP/refs.log" 2>&1; then
    fail "stream_refs: builds both" "$(tail -n 3 "$TMP/refs.log" | tr '\n' ' ')"
else
    pass "stream_refs: builds both"
    ARRAYSIZE=100003 NUMTIMES=3 ROUNDS=2 bench/host/stream_compare.sh "$WORKER" "$TMP/refs/stream_c.exe" \
        "$TMP/refs/omp-stream" "$TMP/cmp" >"$TMP/cmp.log" 2>&1
    rc=$?
    lines=$(tail -n +2 "$TMP/cmp/runs.tsv" | awk -F'\t' '$6 == 1 && $7 == 100003 && $8 == 3' | wc -l)
    if [ "$rc" -eq 0 ] && [ "$lines" -eq 40 ] && ! grep -q WARNING "$TMP/cmp/summary.txt" &&
        grep -Eq '^ppbench-temporal +babelstream-thp +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' "$TMP/cmp/summary.txt"; then
        pass "stream_compare: 2 rounds of 5 programs x 4 kernels, all verified, one size, ratios"
    else
        fail "stream_compare: 2 rounds of 5 programs x 4 kernels, all verified, one size, ratios" \
            "exit $rc, $lines good lines: $(tail -n 5 "$TMP/cmp.log" | tr '\n' ' ')"
    fi
    PPBENCH_TEST_FAULT=triad:3 ARRAYSIZE=100003 NUMTIMES=3 ROUNDS=1 bench/host/stream_compare.sh "$WORKER" \
        "$TMP/refs/stream_c.exe" "$TMP/refs/omp-stream" "$TMP/fault" >"$TMP/fault.log" 2>&1
    rc=$?
    if [ "$rc" -eq 1 ] && grep -q 'WARNING: not verified: round 1 ppbench triad; round 1 ppbench-temporal triad' \
        "$TMP/fault/summary.txt"; then
        pass "stream_compare: an unverified ppbench run is named and fails the call"
    else
        fail "stream_compare: an unverified ppbench run is named and fails the call" \
            "exit $rc: $(tail -n 3 "$TMP/fault/summary.txt" 2>/dev/null | tr '\n' ' ')"
    fi
fi
