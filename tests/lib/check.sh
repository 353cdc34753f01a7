# Helpers of every test script: each check prints one PASS/FAIL/SKIP line (counted by tests/run.sh), and a test
# waits for a condition with a deadline (wait_for), never for a fixed time. Source it; WORKER is the binary under
# test, TMP the test's own directory (removed when the script ends).
BUILD=${BUILD:-build}
WORKER="$BUILD/bin/ppbench-worker"
# The host CPU's last-level cache, as an operator sets it (worker/platform.c): unknown, so that the CPU default
# lattices stay 8^4 and small jobs are not flagged cache-resident on whatever machine runs the tests. The tests
# of the cache itself set it (or unset it for sysfs) where they need it.
export PPBENCH_LLC_BYTES_CPU0=${PPBENCH_LLC_BYTES_CPU0-0}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# The host CPU's peak from SMBIOS (worker/smbios.c): none, from a folder that does not exist, so the CPU peak is
# unknown whether or not the machine running the tests can read /sys/firmware/dmi (root can: a root CI machine
# would otherwise get a peak, and results above it flagged). The tests of SMBIOS point it at their fixtures.
export PPBENCH_SMBIOS_ROOT="$TMP/no-smbios"

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }
# same NAME GOT EXPECTED: a check that two strings are equal.
same() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', expected '$3'"; fi; }

# expect NAME STATUS REGEX -- CMD...: CMD exits with STATUS and its stderr+stdout match REGEX (egrep).
expect() {
    local name=$1 want=$2 re=$3 out rc
    shift 4
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "$name" "exit $rc, expected $want; output: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
    elif ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
        fail "$name" "output does not match /$re/: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
    else
        pass "$name"
    fi
}

# jq, as every test calls it: with -e (the filter's last result decides the exit status) it fails when it read no
# input at all. jq 1.6's -e exits 0 then, so `printf '%s' "$BODY" | jq -e ...` passed on an empty answer.
# -e F becomes -n 'last(inputs | (F)) // error': no input, or a last result false or null, exits non-zero.
# Options that take values (--arg, --argjson, --slurpfile, --rawfile) are passed through; combined short
# flags holding e (-re) are not understood: spell them apart.
#
# The program is gojq where installed (scripts/deps.sh test installs it), else jq: gojq starts in 3 ms, jq 1.6 in
# 28, and the tests call it thousands of times. gojq always sorts an object's keys and has no -S (dropped).
# PPBENCH_TEST_JQ names another.
PPBENCH_TEST_JQ=${PPBENCH_TEST_JQ:-$(command -v gojq || command -v jq)}
jq() {
    local opts=() filter="" e=""
    while [ $# -gt 0 ]; do
        case $1 in
        -e) e=1 ;;
        -S) [ "${PPBENCH_TEST_JQ##*/}" = gojq ] || opts+=(-S) ;;
        --arg | --argjson | --slurpfile | --rawfile) opts+=("$1" "$2" "$3"); shift 2 ;;
        -?*) opts+=("$1") ;;
        *) filter=$1; shift; break ;;
        esac
        shift
    done
    if [ -n "$e" ]; then
        "$PPBENCH_TEST_JQ" -n "${opts[@]}" "last(inputs | ($filter)) // error(\"jq -e: no input, or not true\")" "$@"
    else
        "$PPBENCH_TEST_JQ" "${opts[@]}" "$filter" "$@"
    fi
}

# jq_true NAME FILE FILTER: the jq filter is true on the JSON file.
jq_true() {
    if jq -e "$3" "$2" >/dev/null 2>&1; then pass "$1"; else fail "$1" "jq '$3' is not true on $2"; fi
}

# wait_for SECONDS CMD...: run CMD (a command or a function, in this shell) every 0.1 s until it succeeds, for at
# most SECONDS of wall time; non-zero when the deadline passed first.
wait_for() {
    local end=$(($(now_us) + $(us "$1")))
    shift
    until "$@"; do
        [ "$(now_us)" -lt "$end" ] || return 1
        sleep 0.1
    done
}

# holds_for SECONDS CMD...: CMD stays true for SECONDS, polled every 0.1 s; non-zero as soon as it fails. For the
# checks that something does not happen, which need a window.
holds_for() {
    local end=$(($(now_us) + $(us "$1")))
    shift
    while "$@"; do
        [ "$(now_us)" -lt "$end" ] || return 0
        sleep 0.1
    done
    return 1
}

now_us() { echo "${EPOCHREALTIME//[!0-9]/}"; }
# us SECONDS: SECONDS (1, 0.5, 2.25) in microseconds
us() {
    local f=${1#*.}
    [ "$f" != "$1" ] || f=""
    f=${f}000000
    echo $((${1%.*} * 1000000 + 10#${f:0:6}))
}
