# The fuzz targets of tests/fuzz that have no test of their own (the CSV import's runs in server_pp.sh): built
# with clang's libFuzzer, AddressSanitizer and UBSan, and run for a few seconds each from a small seed corpus.
# Once per `make test` (the fuzzer is its own sanitizer build).
. "$(dirname "$0")/lib.sh"
case "$BUILD" in *-asan) skip "fuzz targets" "run once, with the first build"; exit 0 ;; esac

name="fuzz: the configuration parser"
if ! clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE -o "$TMP/config_fuzz" \
    tests/fuzz/config_fuzz.c server/config.c lib/log.c lib/error.c >"$TMP/build.log" 2>&1; then
    skip "$name" "clang with libFuzzer not available ($(tail -n 1 "$TMP/build.log"))"
    exit 0
fi
mkdir -p "$TMP/corpus"
printf 'listen = 127.0.0.1:8080\nthreads = 4\n# comment\nlease_s = 30\nrequire_read_token = true\n' >"$TMP/corpus/seed"
if "$TMP/config_fuzz" -max_total_time=3 -max_len=2048 -print_final_stats=1 "$TMP/corpus" >"$TMP/log" 2>&1; then
    pass "$name survives 3 s of libFuzzer ($(sed -n 's/^stat::number_of_executed_units: *//p' "$TMP/log") runs)"
else
    fail "$name" "$(grep -m1 -E 'ERROR|SUMMARY|deadly' "$TMP/log")"
fi

name="fuzz: a worker's result report against its job"
if ! clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE -o "$TMP/report_fuzz" tests/fuzz/report_fuzz.c \
    server/report_check.c server/catalog.c kernels/suite.c kernels/suites.c kernels/lattice.c lib/error.c -ljansson \
    -lm >"$TMP/build.log" 2>&1; then
    # clang and libFuzzer built the first target: a second that does not build is broken, not unavailable.
    fail "$name" "does not build: $(grep -m1 -E 'error|undefined' "$TMP/build.log")"
    exit 0
fi
mkdir -p "$TMP/rcorpus"
cp tests/fuzz/corpus-report/* "$TMP/rcorpus/"
if "$TMP/report_fuzz" -max_total_time=3 -max_len=4096 -print_final_stats=1 "$TMP/rcorpus" >"$TMP/log" 2>&1; then
    pass "$name survives 3 s of libFuzzer ($(sed -n 's/^stat::number_of_executed_units: *//p' "$TMP/log") runs)"
else
    fail "$name" "$(grep -m1 -E 'ERROR|SUMMARY|deadly' "$TMP/log")"
fi
