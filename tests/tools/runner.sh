# The test runner's own choice of files (tests/run.sh --list): each build tree runs its own unit tests, the C++
# one too (once, every tree ran the first tree's binaries and no tree ran test_hacc_flops), and a tree still to
# be built by --make has none in the pool until it has built.
. "$(dirname "$0")/../lib/check.sh"

for t in a b; do
    mkdir -p "$TMP/$t/tests"
    : >"$TMP/$t/tests/test_cron"
    : >"$TMP/$t/tests/test_hacc_flops"
done
list=$(tests/run.sh --list "$TMP/a" "$TMP/b")
for t in a b; do
    grep -qx "$TMP/$t $TMP/$t/tests/test_cron" <<<"$list" && pass "runner: tree $t runs its own C unit test" ||
        fail "runner: tree $t runs its own C unit test" "$(grep test_cron <<<"$list" | tr '\n' ' ')"
    grep -qx "$TMP/$t $TMP/$t/tests/test_hacc_flops" <<<"$list" && pass "runner: tree $t runs its C++ unit test" ||
        fail "runner: tree $t runs its C++ unit test" "$(grep test_hacc_flops <<<"$list" | tr '\n' ' ')"
done
same "runner: every service script once per tree" "$(grep -c ' tests/service/' <<<"$list")" \
    "$((2 * $(ls tests/service/*.sh | wc -l)))"
list=$(tests/run.sh --list --make some-target "$TMP/b" "$TMP/a" "$TMP/b")
same "runner: --make names its build first" "$(head -n 1 <<<"$list")" "make some-target, then the files of $TMP/b"
same "runner: the tree --make builds has no files in the pool yet" "$(grep -c "^$TMP/b " <<<"$list")" 0

# Each file's line names its CPU seconds beside its wall seconds (its own processes'): a unit test that spins
# (about 0.7 s of CPU here).
mkdir -p "$TMP/c/tests"
printf '#!/bin/bash\nfor ((i = 0; i < 300000; i++)); do :; done\necho "PASS spun"\n' >"$TMP/c/tests/test_cron"
chmod +x "$TMP/c/tests/test_cron"
line=$(tests/run.sh --quick "$TMP/c" 2>&1 | grep "/tests/test_cron:")
if [[ $line =~ cpu\ +([0-9]+)\.[0-9]\ s ]] && [ "${BASH_REMATCH[1]}" -ge 0 ] && [[ ! $line =~ cpu\ +0\.[0-2]\ s ]]; then
    pass "runner: a file's line names its CPU seconds ($line)"
else
    fail "runner: a file's line names its CPU seconds" "$line"
fi
