# ppbenchd's API without workers: the table of bad requests (status and error code), tokens and roles, health
# and readiness, the OpenAPI document against the served routes, PostgreSQL going away and coming back.
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../lib/server.sh"
SERVER_EMBEDDED=1 # PostgreSQL goes away: the embedded cluster, not the run's shared one
[ -x "$SERVER" ] || { skip "server api" "ppbenchd not built"; exit 0; }

server_start "embedded_workers = false" "max_body_bytes = 65536" "lease_s = 2" "max_wait_s = 2"
token() { "$SERVER" token create --role "$1" --state-dir "$STATE" 2>>"$SERVER_LOG"; }
READ=$(token read); SUBMIT=$(token submit); WORKER=$(token worker)
[ -n "$READ" ] && [ -n "$SUBMIT" ] && [ -n "$WORKER" ] && pass "ppbenchd token create for each role" ||
    fail "ppbenchd token create for each role" "$(tail -n 3 "$SERVER_LOG")"

expect_api "healthz" 200 - GET /healthz
expect_api "readyz: database reachable, migrations applied" 200 - GET /readyz

# Register a platform through the worker protocol so jobs have somewhere to go.
PLATFORM=$("$BUILD/bin/ppbench-worker" list --json | jq -c '.platforms[] | select(.id == "cpu0")')
api POST /api/v1/workers/register "{\"host\":\"testhost\",\"pid\":$$,\"version\":\"t\",\"platform\":$PLATFORM}" "$WORKER"
[ "$STATUS" = 201 ] && pass "register a platform" || fail "register a platform" "$STATUS $BODY"
WID=$(printf '%s' "$BODY" | jq -r .worker_id)
as_worker "$BODY" # the calls below act as this worker (X-Worker-Id, X-Worker-Secret)
expect_api "a second worker for the same platform is refused" 409 platform_taken \
    POST /api/v1/workers/register "{\"host\":\"testhost\",\"pid\":2,\"platform\":$PLATFORM}" "$WORKER"

good='{"suite":"stream","model":"openmp","platform":"testhost/cpu0","params":{"arraysize":1000,"numtimes":3}}'
J=/api/v1/jobs
expect_api "submit without a token"      401 unauthorized          POST $J "$good"
expect_api "submit with a wrong token"   401 unauthorized          POST $J "$good" "ppb_0000000000000000000000000000000000000000"
expect_api "submit with a malformed token" 401 unauthorized        POST $J "$good" "not-a-token"
expect_api "submit with a read token"    403 forbidden             POST $J "$good" "$READ"
expect_api "submit with a worker token"  403 forbidden             POST $J "$good" "$WORKER"
expect_api "worker call with a submit token" 403 forbidden         POST "/api/v1/workers/$WID/claim" "" "$SUBMIT"
expect_api "malformed json"              400 malformed_json        POST $J '{"suite":' "$SUBMIT"
expect_api "json that is not an object"  400 malformed_json        POST $J '[1,2]' "$SUBMIT"
expect_api "duplicate key"               400 malformed_json        POST $J '{"suite":"stream","suite":"x"}' "$SUBMIT"
expect_api "unknown field, named"        422 unknown_field         POST $J '{"suite":"stream","model":"openmp","platform":"testhost/cpu0","colour":1}' "$SUBMIT"
expect_api "unknown param, named"        422 unknown_field         POST $J '{"suite":"stream","model":"openmp","platform":"testhost/cpu0","params":{"arraysze":9}}' "$SUBMIT"
expect_api "missing suite"               422 missing_field         POST $J '{"model":"openmp","platform":"testhost/cpu0"}' "$SUBMIT"
expect_api "wrong type"                  422 wrong_type            POST $J '{"suite":"stream","model":"openmp","platform":"testhost/cpu0","priority":"high"}' "$SUBMIT"
expect_api "out of range"                422 out_of_range          POST $J '{"suite":"stream","model":"openmp","platform":"testhost/cpu0","params":{"numtimes":1}}' "$SUBMIT"
expect_api "bad enum value"              422 invalid_value         POST $J '{"suite":"stream","model":"openmp","platform":"testhost/cpu0","params":{"precision":"fp16"}}' "$SUBMIT"
expect_api "unknown suite"               422 unknown_suite         POST $J '{"suite":"nbody","model":"openmp","platform":"testhost/cpu0"}' "$SUBMIT"
expect_api "a choice the model lacks (strategy 3lp-1 on openmp)" 422 invalid_value POST $J '{"suite":"staggered","model":"openmp","platform":"testhost/cpu0","params":{"strategy":"3lp-1"}}' "$SUBMIT"
[ "$(printf '%s' "$BODY" | jq -r '.error.field + " " + .error.message')" = 'params.strategy params.strategy: model openmp has no strategy "3lp-1" (it has: site, simd)' ] &&
    pass "the refusal names the parameter and what the model offers" || fail "the refusal names the parameter and what the model offers" "$BODY"
expect_api "cusparse is cuda's only" 422 invalid_value POST $J '{"suite":"cg","model":"openmp","platform":"testhost/cpu0","params":{"spmv_variant":"cusparse"}}' "$SUBMIT"
api GET /api/v1/suites
printf '%s' "$BODY" | jq -e '.suites[] | select(.name == "staggered") | .params[] | select(.name == "strategy")
    | .choice_models["3lp-1"] == ["opencl","cuda"] and .choice_models.site == ["openmp"]' >/dev/null &&
    pass "the suite table says which models offer each choice" || fail "the suite table says which models offer each choice" "$BODY"
# What each choice is comes from the table too (choice_help), so a form's help names only what a model offers.
printf '%s' "$BODY" | jq -e '.suites[] | select(.name == "wilson") | .params[] | select(.name == "layout")
    | .choice_help == {"aos": "site-major", "soa": "structure of arrays over sites", "aosoa": "soa within blocks of 32 sites"}
      and .choice_models.aosoa == ["opencl","cuda"] and (.description | test("aosoa") | not)' >/dev/null &&
    pass "the suite table says what each layout is, apart from the description" ||
    fail "the suite table says what each layout is, apart from the description" "$(printf '%s' "$BODY" | jq -c '.suites[] | select(.name == "wilson") | .params[] | select(.name == "layout")' 2>&1)"
expect_api "unknown kernel"              422 unknown_kernel        POST $J '{"suite":"stream","model":"openmp","platform":"testhost/cpu0","kernels":["triadd"]}' "$SUBMIT"
expect_api "unknown model"               422 unknown_model         POST $J '{"suite":"stream","model":"sycl","platform":"testhost/cpu0"}' "$SUBMIT"
expect_api "unknown platform"            422 unknown_platform      POST $J '{"suite":"stream","model":"openmp","platform":"elsewhere/gpu7"}' "$SUBMIT"
expect_api "platform that cannot run the model" 422 model_not_supported POST $J '{"suite":"stream","model":"cuda","platform":"testhost/cpu0"}' "$SUBMIT"
expect_api "selector no platform matches" 422 no_matching_platform POST $J '{"suite":"stream","model":"cuda","selector":{"kind":"gpu"}}' "$SUBMIT"
expect_api "platform and selector"       422 conflicting_fields    POST $J '{"suite":"stream","model":"openmp","platform":"testhost/cpu0","selector":{}}' "$SUBMIT"
expect_api "neither platform nor selector" 422 missing_field       POST $J '{"suite":"stream","model":"openmp"}' "$SUBMIT"
expect_api "too many tags"               422 wrong_type            POST $J "{\"suite\":\"stream\",\"model\":\"openmp\",\"platform\":\"testhost/cpu0\",\"tags\":$(jq -cn '[range(17)|tostring]')}" "$SUBMIT"
big=$(head -c 70000 /dev/zero | tr '\0' 'x')
expect_api "body too large"              413 body_too_large        POST $J "{\"suite\":\"$big\"}" "$SUBMIT"
STATUS=$(curl -s -o "$TMP/resp" -w '%{http_code}' -H "Authorization: Bearer $SUBMIT" -H 'Content-Type: text/plain' --data "$good" "$URL$J")
[ "$STATUS" = 415 ] && pass "not json: 415" || fail "not json: 415" "got $STATUS"
expect_api "method not allowed"          405 method_not_allowed    DELETE $J
expect_api "no such route"               404 not_found             GET /api/v1/nothing
expect_api "no such job"                 404 not_found             GET $J/424242
expect_api "job id not a number"         404 not_found             GET $J/abc
expect_api "unknown query parameter"     400 unknown_parameter     GET "$J?colour=red"
expect_api "bad state filter"            400 invalid_parameter     GET "$J?state=done"
expect_api "bad limit"                   400 invalid_parameter     GET "$J?limit=0"
expect_api "results: bad format"         400 invalid_parameter     GET "/api/v1/results?format=xml"
expect_api "cancel a job that does not exist" 404 not_found        POST $J/424242/cancel "" "$SUBMIT"
expect_api "claim for another worker's id" 403 wrong_worker        POST /api/v1/workers/999999/claim "" "$WORKER"
expect_api "claim with a bad wait"       400 invalid_parameter     POST "/api/v1/workers/$WID/claim?wait=soon" "" "$WORKER"
# A wait beyond max_wait_s is cut to it, not refused (refusing it stopped every worker with a longer long poll).
t0=$(date +%s%N)
api POST "/api/v1/workers/$WID/claim?wait=9999" "" "$WORKER"
t1=$(date +%s%N)
if [ "$STATUS" = 204 ] || [ "$STATUS" = 200 ]; then
    [ $(((t1 - t0) / 1000000)) -lt 10000 ] && pass "a claim's wait beyond max_wait_s (2 s here) is cut to it ($STATUS in $(((t1 - t0) / 1000000)) ms)" ||
        fail "a claim's wait beyond max_wait_s is cut to it" "took $(((t1 - t0) / 1000000)) ms"
else
    fail "a claim's wait beyond max_wait_s is cut to it" "$STATUS $BODY"
fi
expect_api "a result for no job is refused before its body" 404 not_found POST $J/1/result '{"outcome":"succeeded"}' "$WORKER"

api POST $J "$good" "$SUBMIT"
id=$(printf '%s' "$BODY" | jq -r .id)
[ "$STATUS" = 202 ] && [ "$(printf '%s' "$BODY" | jq -r .state)" = queued ] && pass "submit: 202 queued" ||
    fail "submit: 202 queued" "$STATUS $BODY"
api GET "$J/$id"
printf '%s' "$BODY" | jq -e '.params == {"arraysize":1000,"numtimes":3,"precision":"fp64"} and (.kernels|length) == 6' >/dev/null &&
    pass "submit: defaults filled in" || fail "submit: defaults filled in" "$BODY"
expect_api "a late result with a wrong epoch is refused" 409 stale_epoch POST "$J/$id/result" '{"epoch":99,"outcome":"succeeded"}' "$WORKER"
expect_api "cancel a queued job"         200 -                     POST "$J/$id/cancel" "" "$SUBMIT"
expect_api "cancel it again"             409 job_finished          POST "$J/$id/cancel" "" "$SUBMIT"
api GET "$J?state=cancelled&limit=5"
printf '%s' "$BODY" | jq -e --argjson id "$id" '.jobs[0].id == $id and .jobs[0].finished_at != null' >/dev/null &&
    pass "list by state" || fail "list by state" "$BODY"

# A late result from an expired lease: claim (epoch 1), miss the heartbeats until the lease expires and the job
# goes back to the queue, claim again (epoch 2); the old holder's result is refused, the new holder's accepted.
api POST $J "$good" "$SUBMIT"
late=$(printf '%s' "$BODY" | jq -r .id)
api POST "/api/v1/workers/$WID/claim?wait=5" "" "$WORKER"
e1=$(printf '%s' "$BODY" | jq -r .job.epoch)
wait_job "$late" queued 8 && pass "an expired lease puts the job back in the queue" || fail "an expired lease puts the job back in the queue" "$BODY"
api POST "/api/v1/workers/$WID/heartbeat" '{}' "$WORKER"
api POST "/api/v1/workers/$WID/claim?wait=5" "" "$WORKER"
e2=$(printf '%s' "$BODY" | jq -r .job.epoch)
[ "$e2" -gt "$e1" ] && pass "the second claim has a new epoch ($e1 -> $e2)" || fail "the second claim has a new epoch" "$e1 -> $e2"
expect_api "the old holder's late result is refused" 409 stale_epoch POST "$J/$late/result" "{\"epoch\":$e1,\"outcome\":\"succeeded\"}" "$WORKER"
expect_api "the current holder's result is accepted" 200 - POST "$J/$late/result" "{\"epoch\":$e2,\"outcome\":\"failed\",\"error\":\"test\"}" "$WORKER"

# Reads can require a token.
server_stop
server_start "embedded_workers = false" "require_read_token = true"
expect_api "require_read_token: anonymous read refused" 401 unauthorized GET /api/v1/platforms
expect_api "require_read_token: read token accepted" 200 - GET /api/v1/platforms "" "$READ"

# The OpenAPI document lists exactly the routes the server serves.
api GET /api/v1/openapi.json
printf '%s' "$BODY" | jq -r '.paths | to_entries[] | .key as $p | .value | keys[] | "\(ascii_upcase) \($p)"' |
    sort >"$TMP/doc_routes"
"$SERVER" routes | sort >"$TMP/served_routes"
if diff -u "$TMP/served_routes" "$TMP/doc_routes" >"$TMP/route_diff"; then
    pass "openapi document matches the served routes ($(wc -l <"$TMP/served_routes") routes)"
else
    fail "openapi document matches the served routes" "$(tr '\n' ' ' <"$TMP/route_diff")"
fi

# PostgreSQL goes away under load: every answer meanwhile is 200 or 503 (never a dropped connection or a crash),
# 503 carries Retry-After, and the server recovers by itself when the database can run again. ppbenchd restarts
# its embedded PostgreSQL at once (server/main.c), so its configuration file is moved aside first: the restarts
# fail (with backoff) until it is back, and then ppbenchd brings the database back on its own.
pgctl=$(ls /usr/lib/postgresql/*/bin/pg_ctl | tail -n 1)
asuser() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi; }
load() { # bounded: at most 600 requests or until $TMP/stop_load exists
    for _ in $(seq 600); do
        [ -e "$TMP/stop_load" ] && break
        curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $READ" "$URL/api/v1/jobs?limit=5"
    done >"$TMP/load_codes"
}
load &
loadpid=$!
answered() { [ -s "$TMP/load_codes" ]; } # the load runs
wait_for 10 answered
mv "$STATE/pg/data/postgresql.conf" "$TMP/postgresql.conf"
asuser "$pgctl -D '$STATE/pg/data' -m fast stop" >/dev/null 2>&1
curl -s -D "$TMP/headers" -o "$TMP/resp" -H "Authorization: Bearer $READ" "$URL/api/v1/jobs" >/dev/null
if grep -q '^HTTP/1.1 503' "$TMP/headers" && grep -qi '^Retry-After: ' "$TMP/headers" &&
    jq -e '.error.code == "database_unavailable"' "$TMP/resp" >/dev/null; then
    pass "database down: 503 with Retry-After"
else
    fail "database down: 503 with Retry-After" "$(head -n 1 "$TMP/headers") $(cat "$TMP/resp")"
fi
expect_api "database down: readyz says not ready" 503 not_ready GET /readyz
expect_api "database down: healthz still answers" 200 - GET /healthz
mv "$TMP/postgresql.conf" "$STATE/pg/data/postgresql.conf"
ready() { api GET /readyz; [ "$STATUS" = 200 ]; }
wait_for 40 ready
# the load's last answers come after the database is back
ok_again() { [ "$(tail -n 1 "$TMP/load_codes")" = 200 ]; }
wait_for 10 ok_again
touch "$TMP/stop_load"
wait "$loadpid"
codes=$(sort "$TMP/load_codes" | uniq -c | tr '\n' ' ')
if grep -q 503 "$TMP/load_codes" && [ -z "$(grep -vE '^(200|503)$' "$TMP/load_codes")" ] &&
    [ "$(tail -n 1 "$TMP/load_codes")" = 200 ]; then
    pass "restart under load: only 200 and 503 answers, then 200 again ($codes)"
else
    fail "restart under load: only 200 and 503 answers, then 200 again" "$codes"
fi
expect_api "database back: the server recovers by itself" 200 - GET /api/v1/jobs "" "$READ"

# SIGHUP validates the whole new configuration before applying it; a bad file changes nothing.
echo "lease_s = 9" >>"$TMP/ppbench.conf"
kill -HUP "$SERVER_PID"
wait_for 5 grep -q 'reload: configuration' "$SERVER_LOG"
api POST /api/v1/workers/register "{\"host\":\"reloadhost\",\"pid\":3,\"platform\":$PLATFORM}" "$WORKER"
[ "$(printf '%s' "$BODY" | jq -r .lease_s)" = 9 ] && pass "SIGHUP applies a valid configuration" ||
    fail "SIGHUP applies a valid configuration" "$STATUS $BODY"
echo "lease_s = -1" >>"$TMP/ppbench.conf"
kill -HUP "$SERVER_PID"
wait_for 5 grep -q 'reload refused' "$SERVER_LOG"
api POST /api/v1/workers/register "{\"host\":\"reloadhost2\",\"pid\":4,\"platform\":$PLATFORM}" "$WORKER"
grep -q 'reload refused.*lease_s: -1 is out of range' "$SERVER_LOG" && [ "$(printf '%s' "$BODY" | jq -r .lease_s)" = 9 ] &&
    pass "SIGHUP refuses an invalid configuration and keeps the running one" ||
    fail "SIGHUP refuses an invalid configuration and keeps the running one" "$(grep reload "$SERVER_LOG" | tail -n 2 | tr '\n' ' ') $BODY"
