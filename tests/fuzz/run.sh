#!/usr/bin/env bash
# `make fuzz`: build every libFuzzer target of tests/fuzz with Debian's clang (libFuzzer, ASan, UBSan) and run
# each for FUZZ_TIME seconds (default 60) from its seed corpus in tests/fuzz (the table: tests/fuzz/targets.sh);
# what a run finds is kept in <build>/fuzz/corpus-<name> for the next run (copy new finds into tests/fuzz to keep
# them for good). Exit status 1 when a target crashed or could not be built. CI runs a short pass of the same targets (tests/tools/fuzz.sh).
set -u
cd "$(dirname "$0")/../.."
TIME=${FUZZ_TIME:-60}
OUT=${BUILD:-build}/fuzz
mkdir -p "$OUT"
. tests/fuzz/targets.sh
rc=0
for t in "${fuzz_targets[@]}"; do
    IFS='|' read -r name srcs corpus max_len _ <<<"$t"
    mkdir -p "$OUT/corpus-$name"
    cp -n "$corpus"/* "$OUT/corpus-$name/" 2>/dev/null
    # shellcheck disable=SC2086
    if ! $FUZZ_CC -o "$OUT/$name" "tests/fuzz/$name.c" $srcs >"$OUT/$name.build" 2>&1; then
        echo "fuzz: $name: build failed: $(tail -n 1 "$OUT/$name.build")"
        rc=1
        continue
    fi
    if "$OUT/$name" -max_total_time="$TIME" -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$OUT/" "$OUT/corpus-$name" >"$OUT/$name.log" 2>&1; then
        echo "fuzz: $name: $(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/$name.log") runs in $TIME s, no crash"
    else
        echo "fuzz: $name: CRASH: $(grep -m1 -E 'ERROR|SUMMARY|deadly' "$OUT/$name.log") (log: $OUT/$name.log)"
        rc=1
    fi
done
exit $rc
