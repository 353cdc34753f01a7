# The fuzz targets of tests/fuzz (the table: tests/fuzz/targets.sh) that have no test of their own (the CSV
# import's runs in server_pp.sh): built with clang's libFuzzer, AddressSanitizer and UBSan, and run for a few
# seconds each from their kept seed corpus. Once per `make test` (the fuzzer is its own sanitizer build).
. "$(dirname "$0")/../lib/check.sh"
case "$BUILD" in *-asan) skip "fuzz targets" "run once, with the first build"; exit 0 ;; esac
. tests/fuzz/targets.sh

built=0
for t in "${fuzz_targets[@]}"; do
    IFS='|' read -r target srcs corpus max_len what <<<"$t"
    [ "$target" = import_fuzz ] && continue
    name="fuzz: $what"
    # shellcheck disable=SC2086
    if ! $FUZZ_CC -o "$TMP/$target" "tests/fuzz/$target.c" $srcs >"$TMP/build.log" 2>&1; then
        if [ "$built" = 0 ]; then
            skip "$name" "clang with libFuzzer not available ($(tail -n 1 "$TMP/build.log"))"
            exit 0
        fi
        # clang and libFuzzer built an earlier target: one that does not build is broken, not unavailable.
        fail "$name" "does not build: $(grep -m1 -E 'error|undefined' "$TMP/build.log")"
        continue
    fi
    built=$((built + 1))
    mkdir -p "$TMP/corpus-$target"
    cp "$corpus"/* "$TMP/corpus-$target/"
    if "$TMP/$target" -max_total_time=3 -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$BUILD/fuzz-$target-" "$TMP/corpus-$target" >"$TMP/log" 2>&1; then
        pass "$name survives 3 s of libFuzzer ($(sed -n 's/^stat::number_of_executed_units: *//p' "$TMP/log") runs)"
    else
        fail "$name" "$(grep -m1 -E 'ERROR|SUMMARY|deadly' "$TMP/log") (the input: $BUILD/fuzz-$target-*)"
    fi
done
