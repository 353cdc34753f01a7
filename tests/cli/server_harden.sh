# Issue 11's defects, each as the check that would have caught it: worker identity, reports checked against
# their job, the state directory's lock and the supervised PostgreSQL, slow and oversized requests, and the
# smaller protocol items. A real ppbenchd with its embedded PostgreSQL; no supervised workers (the worker
# protocol is driven by hand, as two workers sharing one worker token).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
[ -x "$SERVER" ] || { skip "server hardening" "ppbenchd not built"; exit 0; }

server_start "embedded_workers = false" "lease_s = 30"
token() { "$SERVER" token create --role "$1" --state-dir "$STATE" 2>>"$SERVER_LOG"; }
SUBMIT=$(token submit); WTOKEN=$(token worker); SUBMIT2=$(token submit)
J=/api/v1/jobs
PLATFORM=$("$BUILD/bin/ppbench-worker" list --json | jq -c '.platforms[] | select(.id == "cpu0")')

# register HOST: sets REG (the answer) for a worker of HOST's cpu0, registered with the shared worker token.
register() {
    AS_WORKER_SECRET="" api POST /api/v1/workers/register "{\"host\":\"$1\",\"pid\":$$,\"platform\":$PLATFORM}" "$WTOKEN"
    REG=$BODY
}
register hosta; A=$REG
register hostb; B=$REG
AID=$(printf '%s' "$A" | jq -r .worker_id); BID=$(printf '%s' "$B" | jq -r .worker_id)
printf '%s' "$A" | jq -e '.worker_secret | test("^pws_[0-9a-f]{40}$")' >/dev/null &&
    pass "identity: registration returns a worker secret" || fail "identity: registration returns a worker secret" "$A"

# submit_to HOST [KERNELS_JSON] [PARAMS_JSON]: a stream job for HOST's cpu0; sets JOB.
submit_to() {
    api POST $J "{\"suite\":\"stream\",\"model\":\"openmp\",\"platform\":\"$1/cpu0\",\"kernels\":${2:-[\"copy\"]},\"params\":${3:-{\"arraysize\":1000,\"numtimes\":3\}}}" "$SUBMIT"
    JOB=$(printf '%s' "$BODY" | jq -r .id)
}
submit_to hosta
as_worker "$A"
api POST "/api/v1/workers/$AID/claim?wait=2" "" "$WTOKEN"
EPOCH=$(printf '%s' "$BODY" | jq -r .job.epoch)
[ "$(printf '%s' "$BODY" | jq -r .job.id)" = "$JOB" ] && pass "identity: worker A claims the job" ||
    fail "identity: worker A claims the job" "$STATUS $BODY"

as_worker "$B"
expect_api "identity: B's result for A's job is refused" 409 stale_epoch \
    POST "$J/$JOB/result" "{\"epoch\":$EPOCH,\"outcome\":\"failed\",\"error\":\"hijack\"}" "$WTOKEN"
expect_api "identity: B's progress on A's job is refused" 409 stale_epoch \
    POST "$J/$JOB/progress" "{\"epoch\":$EPOCH,\"progress\":0.5}" "$WTOKEN"
expect_api "identity: B cannot deregister A" 403 wrong_worker POST "/api/v1/workers/$AID/deregister" "" "$WTOKEN"
expect_api "identity: B cannot heartbeat as A" 403 wrong_worker POST "/api/v1/workers/$AID/heartbeat" '{}' "$WTOKEN"
AS_WORKER_ID=$AID
expect_api "identity: A's id with B's secret is refused" 403 wrong_worker POST "/api/v1/workers/$AID/claim" "" "$WTOKEN"
AS_WORKER_SECRET=""
expect_api "identity: a worker call without the secret is refused" 401 unauthorized \
    POST "$J/$JOB/result" "{\"epoch\":$EPOCH,\"outcome\":\"failed\",\"error\":\"hijack\"}" "$WTOKEN"
api GET "$J/$JOB"
[ "$(printf '%s' "$BODY" | jq -r .state)" = running ] && pass "identity: A's job is still running" ||
    fail "identity: A's job is still running" "$BODY"
as_worker "$A"
expect_api "identity: A's own result is accepted" 200 - \
    POST "$J/$JOB/result" "{\"epoch\":$EPOCH,\"outcome\":\"failed\",\"error\":\"test\"}" "$WTOKEN"
