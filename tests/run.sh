#!/usr/bin/env bash
# Runs every test that needs no GPU against each build tree given (default $BUILD or build): the C unit tests in
# <build>/tests and the test scripts of tests/suites, tests/service and tests/tools (tests/lib: their helpers). Every test prints "PASS name", "FAIL name: why" or "SKIP name: why" lines; this script counts them
# and ends with the line "N passed, N failed, N skipped". Exit status 1 when anything failed.
set -u
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- "${BUILD:-build}"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
pass=0 fail=0 skip=0

# run_one TAG CMD...: run a test program, echo its result lines (tagged with the build), count them.
run_one() {
    local tag=$1 out rc
    shift
    out=$("$@" 2>&1)
    rc=$?
    out=$(printf '%s\n' "$out" | sed -E "s/^(PASS|FAIL|SKIP) /\1 $tag/")
    printf '%s\n' "$out" | grep -E '^(PASS|FAIL|SKIP) ' || true
    pass=$((pass + $(printf '%s\n' "$out" | grep -c '^PASS ')))
    fail=$((fail + $(printf '%s\n' "$out" | grep -c '^FAIL ')))
    skip=$((skip + $(printf '%s\n' "$out" | grep -c '^SKIP ')))
    if [ $rc -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^FAIL '; then
        # A test program that died without saying why is a failure too (a sanitizer report, a crash).
        echo "FAIL $tag$*: exited $rc"
        printf '%s\n' "$out" | tail -n 20 | sed 's/^/    /'
        fail=$((fail + 1))
    fi
}

for build in "$@"; do
    export BUILD=$build
    export PPBENCH_CACHE_DIR="$build/test-cache" # OpenCL program binaries: built once per tree
    tag=""
    [ $# -gt 1 ] && tag="[$build] "
    for t in "$build"/tests/test_*; do
        [ -x "$t" ] && run_one "$tag" "$t"
    done
    for t in tests/suites/*.sh tests/service/*.sh tests/tools/*.sh; do
        run_one "$tag" bash "$t"
    done
done

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
