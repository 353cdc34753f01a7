#!/usr/bin/env bash
# Runs every test that needs no GPU: the C unit tests in $BUILD/tests and the command-line tests in
# tests/cli. Every test prints "PASS name", "FAIL name: why" or "SKIP name: why" lines; this script counts them
# and ends with the line "N passed, N failed, N skipped". Exit status 1 when anything failed.
set -u
cd "$(dirname "$0")/.."
export BUILD=${BUILD:-build}
export PPBENCH_CACHE_DIR="$BUILD/test-cache"   # OpenCL program binaries: rebuilt once per tree
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
pass=0 fail=0 skip=0 broken=0

run_one() {
    local out rc
    out=$("$@" 2>&1)
    rc=$?
    printf '%s\n' "$out" | grep -E '^(PASS|FAIL|SKIP) ' || true
    pass=$((pass + $(printf '%s\n' "$out" | grep -c '^PASS ')))
    fail=$((fail + $(printf '%s\n' "$out" | grep -c '^FAIL ')))
    skip=$((skip + $(printf '%s\n' "$out" | grep -c '^SKIP ')))
    if [ $rc -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^FAIL '; then
        # A test program that died without saying why is a failure too.
        echo "FAIL $*: exited $rc"
        printf '%s\n' "$out" | tail -n 20 | sed 's/^/    /'
        fail=$((fail + 1))
        broken=$((broken + 1))
    fi
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] && run_one "$t"
done
for t in tests/cli/*.sh; do
    run_one bash "$t"
done

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
