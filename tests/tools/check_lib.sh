# The helpers' own checks (tests/lib/check.sh): a check that cannot fail proves nothing, so each helper that
# decides a PASS is held to inputs that must fail it. jq -e on no input at all exited 0 with jq 1.6 (an empty
# server answer passed every `printf '%s' "$BODY" | jq -e ...` check); the tests' jq fails it.
. "$(dirname "$0")/../lib/check.sh"

# fails NAME CMD...: CMD must exit non-zero.
fails() {
    local name=$1
    shift
    if "$@" >/dev/null 2>&1; then fail "$name" "exited 0"; else pass "$name"; fi
}
holds() {
    local name=$1
    shift
    if "$@" >/dev/null 2>&1; then pass "$name"; else fail "$name" "exited non-zero"; fi
}
on() { local in=$1; shift; printf '%s' "$in" | "$@"; }

fails "jq -e: no input is not true" on '' jq -e '.a == 1'
fails "jq -e: false is not true" on '{"a":2}' jq -e '.a == 1'
fails "jq -e: the last of several results decides" on '{"a":1}{"a":2}' jq -e '.a == 1'
holds "jq -e: true is true" on '{"a":1}' jq -e '.a == 1'
holds "jq -e: --arg passes through" on '{"a":"x"}' jq -e --arg v x '.a == $v'
holds "jq -e: a filter that defines a function" on '{"a":1}' jq -e 'def f: .a; f == 1'
: >"$TMP/empty.json"
printf '{"a":1}' >"$TMP/one.json"
fails "jq -e: an empty file is not true" jq -e '.a == 1' "$TMP/empty.json"
holds "jq -e: a file" jq -e '.a == 1' "$TMP/one.json"
same "jq without -e: every result" "$(on '{"a":[1,2]}' jq -r '.a[]' | tr '\n' ' ')" "1 2 "
same "jq_true: an empty file fails it" "$(jq_true x "$TMP/empty.json" '.a == 1' | cut -c1-4)" FAIL
