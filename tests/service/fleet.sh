# Fleet health through the real ppbenchd (embedded PostgreSQL, no workers; issue 16): schedules firing on
# time, once per matching platform and once after downtime; baselines and judging on synthetic histories
# inserted as rows (the trigger judges every path alike): a 15 % drop raised only after its repeat, a single
# low point not, an outlier among 8 identical devices, a new driver segment resetting the baseline, a failed
# verification raised at once, the automatic repeat job, an operator's floor, recovery and an admin's clear;
# the webhook (a loopback receiver that refuses the first delivery) gets each event once; the drain hook runs;
# histories stored in one INSERT are judged as when stored one row per INSERT (the statement trigger's rounds).
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../lib/server.sh"
[ -x "$SERVER" ] && [ -x "$WORKER" ] || { skip "fleet" "ppbenchd or ppbench-worker not built"; exit 0; }
command -v python3 >/dev/null || { skip "fleet" "python3 not installed"; exit 0; }

# The webhook receiver: answers 500 to the first POST, 200 after; logs each body it accepted, one a line.
HOOK_PORT=$(free_port)
cat >"$TMP/receiver.py" <<'EOF'
import http.server, sys
n = 0
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        global n
        n += 1
        body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        if n == 1:
            self.send_response(500); self.end_headers(); return
        with open(sys.argv[2], 'ab') as f:
            f.write(body.replace(b'\n', b' ') + b'\n')
        self.send_response(200); self.end_headers()
    def log_message(self, *a):
        pass
http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
EOF
python3 "$TMP/receiver.py" "$HOOK_PORT" "$TMP/received" &
RECEIVER_PID=$!
printf '#!/bin/sh\necho "$PPBENCH_EVENT|$1|$2" >>%s\n' "$TMP/drained" >"$TMP/drain.sh"
chmod 755 "$TMP/drain.sh"
touch "$TMP/received" "$TMP/drained"
chmod 666 "$TMP/drained"
trap 'kill $RECEIVER_PID 2>/dev/null; server_cleanup' EXIT

CONF=("embedded_workers = false" "lease_s = 600" "webhook_url = http://127.0.0.1:$HOOK_PORT/hook"
      "drain_hook = $TMP/drain.sh")
server_start "${CONF[@]}"
token() { "$SERVER" token create --role "$1" --state-dir "$STATE" 2>>"$SERVER_LOG"; }
WORKER_TOKEN=$(token worker); SUBMIT=$(token submit)
# check NAME FILTER: the jq filter is true on BODY.
check() {
    if printf '%s' "$BODY" | jq -e "$2" >/dev/null 2>&1; then pass "$1"; else
        fail "$1" "jq '$2' is false on: $(printf '%s' "$BODY" | head -c 600)"; fi
}

# ---- schedules ----
CPU=$("$WORKER" list --json | jq -c '.platforms[] | select(.id == "cpu0")')
register() { # HOST ID KIND
    local p
    p=$(printf '%s' "$CPU" | jq -c --arg id "$2" --arg kind "$3" '.id = $id | .kind = $kind')
    AS_WORKER_SECRET="" api POST /api/v1/workers/register \
        "{\"host\":\"$1\",\"pid\":$$,\"version\":\"t\",\"platform\":$p}" "$WORKER_TOKEN"
    [ "$STATUS" = 201 ] || fail "register $1/$2" "$STATUS $BODY"
}
register node-a gpu0 gpu; register node-a cpu0 cpu; register node-b gpu0 gpu; register other-c gpu0 gpu

JOB='"suite": "stream", "model": "openmp", "kernels": ["triad"], "params": {"arraysize": 4096, "numtimes": 2}'
expect_api "schedule: a spec that is not one" 422 invalid_value POST /api/v1/schedules \
    "{\"name\": \"x\", \"spec\": \"61 * * * *\", $JOB}" "$ADMIN"
expect_api "schedule: a bad parameter, by name" 422 out_of_range POST /api/v1/schedules \
    "{\"name\": \"x\", \"spec\": \"@every 1m\", \"suite\": \"stream\", \"model\": \"openmp\", \"params\": {\"numtimes\": 1}}" "$ADMIN"
expect_api "schedule: an unknown field" 422 unknown_field POST /api/v1/schedules \
    "{\"name\": \"x\", \"spec\": \"@every 1m\", \"colour\": 1, $JOB}" "$ADMIN"
expect_api "schedule: a submit token may not" 403 forbidden POST /api/v1/schedules \
    "{\"name\": \"x\", \"spec\": \"@every 1m\", $JOB}" "$SUBMIT"

t0=$(date +%s.%N)
api POST /api/v1/schedules "{\"name\": \"gpus\", \"spec\": \"@every 2s\", $JOB, \"selector\": {\"kind\": \"gpu\", \"host\": \"node-*\"}}" "$ADMIN"
check "schedule created (201) with its tag and due time" '.id and .tag == "schedule:\(.id)" and .due_at and .paused == false'
SID=$(printf '%s' "$BODY" | jq -r .id)
sched_jobs() { psql_q "SELECT count(*) || ' ' || count(DISTINCT platform_id) FROM jobs WHERE tags @> ARRAY['schedule:$SID']"; }
fired() { [ "$(sched_jobs)" != "0 0" ]; }
wait_for 6 fired
t1=$(date +%s.%N)
same "schedule: nothing before it is due" \
    "$(psql_q "SELECT count(*) FROM jobs j, schedules s WHERE s.id = $SID AND j.tags @> ARRAY['schedule:$SID']
               AND j.created_at < s.created_at + interval '2 s'")" "0"
same "schedule fires once per matching platform (gpu on node-*: 2 of 4)" "$(sched_jobs)" "2 2"
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 1.9 && b - a <= 4.5) }' &&
    pass "schedule fires on time (2 s after its creation)" || fail "schedule fires on time" "after $t0 -> $t1"
fired_twice() { [ "$(sched_jobs)" = "4 2" ]; }
wait_for 6 fired_twice
t2=$(date +%s.%N)
same "schedule fires again, once per platform" "$(sched_jobs)" "4 2"
awk -v a="$t0" -v b="$t2" 'BEGIN { exit !(b - a >= 3.9 && b - a <= 7) }' &&
    pass "schedule keeps its 2 s period" || fail "schedule keeps its 2 s period" "second firing $t2, created $t0"
api GET "/api/v1/schedules/$SID"
check "schedule shows its last outcome" '.fired == 2 and .last.outcome == "running" and (.last.jobs | length) == 2 and .last.states.queued == 2'
expect_api "pause a schedule" 200 - POST "/api/v1/schedules/$SID/pause" "" "$ADMIN"
# past_due ID SECONDS: the server's clock is SECONDS past the schedule's due time (a firing would have come)
past_due() { [ "$(psql_q "SELECT now() > due_at + interval '$2 s' FROM schedules WHERE id = $1")" = t ]; }
wait_for 5 past_due "$SID" 1.5
same "a paused schedule does not fire" "$(sched_jobs)" "4 2"
api POST "/api/v1/schedules/$SID/run" "" "$ADMIN"
check "run now fires a paused schedule at once" '.fired == 3 and (.last.jobs | length) == 2'
same "run now: one job per platform" "$(sched_jobs)" "6 2"
api GET /api/v1/schedules
check "schedules listed" '.schedules[0].name == "gpus" and .schedules[0].paused'
CLI="$BUILD/bin/ppbench"
if [ -x "$CLI" ]; then
    expect "ppbench schedules lists them with the last outcome" 0 '^[0-9]+ +gpus +@every 2s +paused +host=node-\* kind=gpu .* running' -- \
        "$CLI" --server "$URL" schedules
    expect "ppbench schedules create (admin)" 0 '^[0-9]+ +cli-made +@daily +paused' -- \
        "$CLI" --server "$URL" --token "$ADMIN" schedules create --name cli-made --spec @daily --suite stream \
        --model openmp --kernels triad --param arraysize=4096 --kind gpu --paused
    expect "ppbench schedules create: a bad spec is refused by name" 2 'spec' -- \
        "$CLI" --server "$URL" --token "$ADMIN" schedules create --name cli-bad --spec '* *' --suite stream --model openmp
fi
expect_api "schedule: a name taken" 422 invalid_value POST /api/v1/schedules \
    "{\"name\": \"gpus\", \"spec\": \"@every 1m\", $JOB}" "$ADMIN"

# Downtime: a schedule every 2 s, ppbenchd stopped past three of its due times, fires once on start.
api POST /api/v1/schedules "{\"name\": \"down\", \"spec\": \"@every 2s\", $JOB, \"selector\": {\"host\": \"other-c\"}}" "$ADMIN"
DID=$(printf '%s' "$BODY" | jq -r .id)
server_stop
wait_for 10 past_due "$DID" 4.5
restart=$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)
server_start "${CONF[@]}"
down_jobs() { psql_q "SELECT count(*) FROM jobs WHERE tags @> ARRAY['schedule:$DID'] AND created_at >= '$restart'"; }
down_fired() { [ "$(down_jobs)" != 0 ]; }
wait_for 5 down_fired
same "after downtime a schedule fires once, not once per missed time" "$(down_jobs)" "1"
same "and its next due time is after that firing, on its phase" \
    "$(psql_q "SELECT (due_at > last_fired_at AND due_at <= last_fired_at + interval '2 seconds')::text || ' due ' || due_at || ' fired ' || last_fired_at || ' created ' || created_at FROM schedules WHERE id = $DID" | cut -c1-1)" "t" ||
    psql_q "SELECT 'due ' || due_at || ' fired ' || last_fired_at || ' created ' || created_at || ' spec ' || spec FROM schedules WHERE id = $DID"
api POST "/api/v1/schedules/$DID/pause" "" "$ADMIN"
psql_q "UPDATE jobs SET state = 'cancelled', finished_at = now() WHERE state = 'queued'" >/dev/null

# ---- judging ----
# Synthetic platforms without a host (as imports make them), no peak: no figure is above a ceiling.
mkplat() { # ID DEVICE
    psql_q "INSERT INTO platforms (id, kind, name) VALUES ('$1', 'gpu', '$2')" >/dev/null
}
# res PLATFORM GB/S [DRIVER] [JOB] [VERIFIED]: one stream triad result as a row; prints its id.
res() {
    local bw=$2 drv=${3:-535.1} job=${4:-NULL} ok=${5:-true}
    psql_q "INSERT INTO results (job_id, platform_id, suite, kernel, model, variant, precision, size, bytes, flops,
        times_s, min_s, max_s, mean_s, median_s, stddev_s, bandwidth, gflops, verified, error, provenance)
        SELECT $job, '$1', 'stream', 'triad', 'openmp', '', 'fp64', 1048576, 25165824, 2097152,
            ARRAY[t, t, t], t, t, t, t, 0, $bw * 1e9, 0, $ok, CASE WHEN $ok THEN NULL ELSE 'triad: 3 of 1048576 wrong' END,
            jsonb_build_object('opencl.driver_version', '$drv', 'compiler', 'gcc 12', 'ppbench.version', 't')
        FROM (SELECT 25165824 / ($bw * 1e9) AS t) x RETURNING id"
}
history() { # PLATFORM N [DRIVER]: N results around 100 GB/s (+-1 %)
    local i
    for i in $(seq "$2"); do res "$1" "$(awk -v i="$i" 'BEGIN { printf "%.2f", 100 + (i % 3 - 1) }')" "${3:-}" >/dev/null; done
}
hstate() { psql_q "SELECT coalesce((SELECT state FROM platform_health WHERE platform_id = '$1'), 'none')"; }
nalerts() { psql_q "SELECT count(*) FROM alerts WHERE platform_id = '$1' AND kind = '${2:-raised}'"; }

mkplat sim-r "SimGPU"; history sim-r 10
r1=$(res sim-r 85)
same "a 15 % drop is a suspect, not yet raised" "$(hstate sim-r) $(nalerts sim-r)" "ok 0"
same "the suspect is recorded with its z" \
    "$(psql_q "SELECT verdict || ' ' || confirmed || ' ' || (z < -4) FROM result_verdicts WHERE result_id = $r1")" \
    "regressed false true"
r2=$(res sim-r 85)
same "its repeat confirms it: regressed, one alert" "$(hstate sim-r) $(nalerts sim-r)" "regressed 1"
api GET /api/v1/health
check "GET /api/v1/health: the platform with its reason and evidence" \
    '.platforms[] | select(.id == "sim-r") | .state == "regressed" and (.reason | test("15.0% below its baseline 100")) and (.reason | test("confirmed by a repeat")) and .evidence == "#/platform?id=sim-r"'
res sim-r 84 >/dev/null
same "a third low run raises nothing more" "$(nalerts sim-r)" "1"

mkplat sim-n "SimGPU"; history sim-n 10
res sim-n 85 >/dev/null; res sim-n 100 >/dev/null
same "a single low point is not raised" "$(hstate sim-n) $(nalerts sim-n)" "ok 0"
same "the suspect stays out of the baseline window" \
    "$(psql_q "SELECT n FROM baselines WHERE platform_id = 'sim-n'")" "10"

for i in 0 1 2 3 4 5 6; do mkplat "sim-o$i" "SimGPU O"; history "sim-o$i" 6 550.40; done
mkplat sim-o7 "SimGPU O"
for bw in 80 80.5 79.5 80 80.2 80.1; do res sim-o7 "$bw" 550.40 >/dev/null; done
same "an outlier among 8 identical devices is found" "$(hstate sim-o7) $(nalerts sim-o7)" "outlier 1"
same "its peers are fine" "$(hstate sim-o3)" "ok"
reason=$(psql_q "SELECT reason FROM platform_health WHERE platform_id = 'sim-o7'")
[[ "$reason" =~ (19|20)\.[0-9]%\ below\ the\ median\ 100\.[0-9]+\ GB/s\ of\ 7\ peers\ \(SimGPU\ O,\ driver\ 550\.40\) ]] &&
    pass "the outlier's reason names its peers" || fail "the outlier's reason names its peers" "$reason"
mkplat sim-o8 "SimGPU O"
for bw in 80 80; do res sim-o8 "$bw" 999.1 >/dev/null; done
same "a device with another driver is not their peer" "$(hstate sim-o8)" "ok"

mkplat sim-d "SimGPU"; history sim-d 10 1.0
d1=$(res sim-d 85 2.0)
same "a new driver starts a new segment: no suspect" \
    "$(psql_q "SELECT count(*) FROM result_verdicts WHERE platform_id = 'sim-d'")" "0"
same "and the baseline is reset" "$(psql_q "SELECT segment_from = $d1 AND n = 0 FROM baselines WHERE platform_id = 'sim-d'")" "t"
for i in 1 2 3 4 5 6; do res sim-d 85 2.0 >/dev/null; done
same "the new segment learns its own baseline" \
    "$(psql_q "SELECT round(median / 1e9) || ' ' || n || ' ' || last_verdict FROM baselines WHERE platform_id = 'sim-d'")" "85 6 ok"

mkplat sim-v "SimGPU"; history sim-v 3
res sim-v 100 535.1 NULL false >/dev/null
same "a failed verification needs attention at once" "$(hstate sim-v) $(nalerts sim-v)" "verification_failed 1"
res sim-v 100 >/dev/null
same "a passing run recovers it" "$(hstate sim-v) $(nalerts sim-v recovered)" "ok 1"

expect_api "floor: a submit token may not" 403 forbidden POST /api/v1/health/floors \
    '{"device": "SimGPU F", "suite": "stream", "kernel": "triad", "precision": "fp64", "floor_bytes_per_s": 9e10}' "$SUBMIT"
expect_api "floor: an unknown kernel" 422 unknown_kernel POST /api/v1/health/floors \
    '{"device": "SimGPU F", "suite": "stream", "kernel": "trid", "precision": "fp64", "floor_bytes_per_s": 9e10}' "$ADMIN"
expect_api "an operator sets a floor per device model" 200 - POST /api/v1/health/floors \
    '{"device": "SimGPU F", "suite": "stream", "kernel": "triad", "precision": "fp64", "floor_bytes_per_s": 9e10}' "$ADMIN"
mkplat sim-f "SimGPU F"
res sim-f 88 >/dev/null; res sim-f 88 >/dev/null
api GET /api/v1/health
check "below the floor, confirmed: regressed, with no history needed" \
    '.platforms[] | select(.id == "sim-f") | .state == "regressed" and (.reason | test("below the floor of 90.00 GB/s set for SimGPU F"))'

# The automatic repeat: a suspect result of a job queues the same job again on its platform.
GPU=$(psql_q "SELECT p.id FROM platforms p JOIN hosts h ON h.id = p.host_id WHERE h.name = 'node-b'")
psql_q "UPDATE platforms SET peak_bandwidth = NULL WHERE id = '$GPU'" >/dev/null
for i in $(seq 6); do res "$GPU" 100 >/dev/null; done
api POST /api/v1/jobs "{$JOB, \"platform\": \"$GPU\"}" "$SUBMIT"
JID=$(printf '%s' "$BODY" | jq -r .id)
res "$GPU" 80 535.1 "$JID" >/dev/null
same "a suspect from a job queues its repeat on the same platform" \
    "$(psql_q "SELECT count(*) || ' ' || min(platform_id) || ' ' || min(state) FROM jobs WHERE tags @> ARRAY['repeat:$JID']")" \
    "1 $GPU queued"
RID=$(psql_q "SELECT id FROM jobs WHERE tags @> ARRAY['repeat:$JID']")
res "$GPU" 80 535.1 "$RID" >/dev/null
same "its repeat's result confirms (and a repeat is not repeated)" \
    "$(hstate "$GPU") $(psql_q "SELECT count(*) FROM jobs WHERE tags @> ARRAY['repeat:$RID']")" "regressed 0"

api GET /api/v1/health
check "never measured and the counts" \
    '(.platforms[] | select(.id | test("node-a/cpu0")) | .state == "never_measured") and .counts.regressed == 3 and .counts.outlier == 1'
# A baseline short of the min_results (5) that judging against it needs judges nothing: no baseline yet, not ok.
mkplat sim-b "SimGPU"; history sim-b 2
api GET /api/v1/health
check "two results of a baseline: no baseline yet, its reason says how full the fullest is" \
    '.platforms[] | select(.id == "sim-b") | .state == "never_measured" and .reason == "no baseline yet: its fullest holds 2 of the 5 results judging needs (stream.triad openmp fp64 size 1048576)"'
psql_q "UPDATE results SET flags = ARRAY['noisy'] WHERE id = (SELECT max(id) FROM results WHERE platform_id = 'sim-b')" >/dev/null
api GET /api/v1/health
check "a flagged one leaves the window, and the reason counts it (not judged)" \
    '.platforms[] | select(.id == "sim-b") | .reason == "no baseline yet: its fullest holds 1 of the 5 results judging needs (stream.triad openmp fp64 size 1048576); 1 flagged result (noisy 1), and flagged results are not judged"'
history sim-b 4
api GET /api/v1/health
check "five results: ok" '.platforms[] | select(.id == "sim-b") | .state == "ok"'
# ppbench health's exit status is the worst state of the platforms it keeps (NHC style, for a node's cron job).
worst=$(printf '%s' "$BODY" | jq '[.platforms[].state | {ok: 0, never_measured: 5, stale_worker: 6, unavailable: 7,
                                   outlier: 8, regressed: 9, verification_failed: 10}[.] // 11] | max')
[ -x "$CLI" ] && expect "ppbench health: the platforms that need attention, with the reason; exit $worst, the worst state" \
    "$worst" '^sim-r +regressed +stream.triad openmp fp64 size 1048576: 85.00 GB/s, 15.0% below' -- "$CLI" --server "$URL" health
[ -x "$CLI" ] && expect "ppbench health --platform: a regressed platform exits 9" 9 '^sim-r +regressed' -- \
    "$CLI" --server "$URL" health --platform sim-r
[ -x "$CLI" ] && expect "ppbench health --platform: a platform never measured exits 5" 5 '^node-a/cpu0 +never_measured' -- \
    "$CLI" --server "$URL" health --all --platform node-a/cpu0
register node-s cpu0 cpu
psql_q "UPDATE workers SET last_heartbeat = now() - interval '1 hour' WHERE platform_id = 'node-s/cpu0'" >/dev/null
[ -x "$CLI" ] && expect "ppbench health --host: a host whose worker is stale exits 6" 6 \
    '^node-s/cpu0 +stale_worker +no heartbeat since' -- "$CLI" --server "$URL" health --host node-s
# A stale worker's platform takes no schedule's job (it would stay queued, the schedule "running"), and a job
# submitted to it is answered with a warning: ppbench submit says so and does not follow it (exit 5).
api POST /api/v1/schedules "{\"name\": \"stale-node\", \"spec\": \"0 0 1 1 *\", $JOB, \"selector\": {\"host\": \"node-s\"}}" "$ADMIN"
api POST "/api/v1/schedules/$(printf '%s' "$BODY" | jq -r .id)/run" "" "$ADMIN"
check "a schedule does not fire onto a platform whose worker is stale" '.last.jobs == [] and .last.outcome == "no matching platform"'
[ -x "$CLI" ] && expect "ppbench submit to a stale platform: the warning, not followed (exit 5)" 5 \
    '^ppbench: job [0-9]+ is queued, but the worker of node-s/cpu0 has sent no heartbeat since .*: the job waits until it is back$' -- \
    "$CLI" --server "$URL" --token "$ADMIN" submit --suite stream --model openmp --platform node-s/cpu0 --kernels triad
api GET "/api/v1/jobs?platform=node-s/cpu0&state=queued"
STALE_JOB=$(printf '%s' "$BODY" | jq -r '.jobs[0].id')
api GET "/api/v1/jobs/$STALE_JOB"
check "the stale platform's job says why it waits" '.warning | test("^the worker of node-s/cpu0 has sent no heartbeat since ")'
api POST "/api/v1/jobs/$STALE_JOB/cancel" "" "$ADMIN"
api POST /api/v1/jobs '{"suite": "stream", "model": "openmp", "kernels": ["triad"], "selector": {"kind": "cpu", "host": "node-s"}}' "$ADMIN"
check "a selector no live worker matches: the answer's warning" '.warning | test("^no live worker serves a platform of kind cpu on host node-s with model openmp")'
api POST "/api/v1/jobs/$(printf '%s' "$BODY" | jq -r .id)/cancel" "" "$ADMIN"
api POST /api/v1/jobs '{"suite": "stream", "model": "openmp", "kernels": ["triad"], "platform": "node-a/cpu0"}' "$ADMIN"
check "a live worker's platform: no warning" 'has("warning") | not'
api POST "/api/v1/jobs/$(printf '%s' "$BODY" | jq -r .id)/cancel" "" "$ADMIN"
[ -x "$CLI" ] && expect "ppbench health --host: an unknown host is refused" 2 'no platform on host nohost' -- \
    "$CLI" --server "$URL" health --host nohost
api GET "/api/v1/baselines?platform=sim-r"
check "GET /api/v1/baselines: the baseline and the verdicts behind the state" \
    '.health.state == "regressed" and (.baselines[0].median | . > 99e9 and . < 101e9) and ([.verdicts[] | select(.verdict == "regressed")] | length) == 3'
expect_api "baselines of an unknown platform" 422 unknown_platform GET "/api/v1/baselines?platform=nope"
# The evidence of the confirming result: its verdict alone, with the band it was judged within (median 100,
# MAD 1: scale max(1.4826, 2 % of 100) = 2 GB/s, band 100 +- 4 x 2), the band of the baseline now, the alert's
# link to it.
api GET "/api/v1/baselines?platform=sim-r&result=$r2"
check "GET /api/v1/baselines?result=: that result's verdict and its band (median +- z_limit x scale)" \
    "(.verdicts | length) == 1 and .verdicts[0].result_id == $r2 and (.verdicts[0].band | (.[0] - 92e9 | fabs) < 1 and (.[1] - 108e9 | fabs) < 1) and .judging.z_limit == 4 and .judging.min_band == 0.02 and (.baselines[0].band | length) == 2"
expect_api "baselines: result must be an id" 400 invalid_parameter GET "/api/v1/baselines?platform=sim-r&result=x"
same "the raised alert's evidence names its result" \
    "$(psql_q "SELECT doc->>'evidence' FROM alerts WHERE platform_id = 'sim-r' AND kind = 'raised'")" "/#/platform?id=sim-r&result=$r2"
expect_api "clear: a submit token may not" 403 forbidden POST /api/v1/health/clear '{"platform": "sim-r"}' "$SUBMIT"
api POST /api/v1/health/clear '{"platform": "sim-r"}' "$ADMIN"
check "an admin clears a platform" '.cleared == true'
same "cleared: ok, with a cleared alert" "$(hstate sim-r) $(nalerts sim-r cleared)" "ok 1"

# ---- alerts ----
want=$(psql_q "SELECT count(*) FROM alerts")
delivered() { [ "$(psql_q "SELECT count(*) FROM alerts WHERE pending")" = 0 ]; }
wait_for 15 delivered
same "every alert delivered" "$(psql_q "SELECT count(*) FROM alerts WHERE pending OR delivered_at IS NULL")" "0"
same "the receiver got each event once, the refused first delivery too" \
    "$(jq -r '"\(.event) \(.platform) \(.result_id)"' "$TMP/received" | sort -u | wc -l) $(wc -l <"$TMP/received")" "$want $want"
same "the first alert took two attempts" "$(psql_q "SELECT attempts FROM alerts ORDER BY id LIMIT 1")" "2"
check_doc=$(grep '"platform": *"sim-r"' "$TMP/received" | head -n 1)
printf '%s' "$check_doc" | jq -e '.event == "raised" and .state == "regressed" and (.reason | test("15.0% below")) and .device == "SimGPU"' >/dev/null &&
    pass "the webhook's document: event, platform, state, reason, device" || fail "the webhook's document" "$check_doc"
same "the drain hook ran once per raised event, with the platform and the reason" \
    "$(grep -c '^raised|sim-r|stream.triad openmp fp64 size 1048576: 85.00 GB/s, 15.0% below' "$TMP/drained") $(wc -l <"$TMP/drained")" \
    "1 $(psql_q "SELECT count(*) FROM alerts WHERE kind = 'raised'")"

# ---- judging a statement of many results ----
# The trigger judges the rows of one INSERT together, in rounds (the k-th result of every platform and problem
# in round k). The same histories stored one row per statement (group a) and all in one statement (group b)
# must be judged alike: verdicts, baselines, health and alerts. Each platform is its own device model (its
# peers' baselines would be read at another moment in the two orders).
hist_rows() { # GROUP: "platform|kernel|GB/s|driver|verified|flags" lines, in the order they are stored
    local g=$1 i
    for i in 1 2 3 4 5 6 7 8; do echo "eq$g-1|triad|$((99 + i % 3))|1|true|"; done
    echo "eq$g-1|triad|85|1|true|"; echo "eq$g-1|triad|84|1|true|"; echo "eq$g-1|triad|100|1|true|"
    for i in 1 2 3 4 5 6 7; do echo "eq$g-2|triad|$((99 + i % 3))|1|true|"; done
    echo "eq$g-2|triad|85|1|true|"; echo "eq$g-2|triad|101|1|true|"; echo "eq$g-2|triad|60|1|true|noisy"
    echo "eq$g-2|triad|120|1|true|"
    for i in 1 2 3 4 5 6; do echo "eq$g-3|triad|$((99 + i % 3))|1|true|"; done
    for i in 1 2 3 4 5 6; do echo "eq$g-3|triad|$((84 + i % 2))|2|true|"; done
    echo "eq$g-4|triad|100|1|true|"; echo "eq$g-4|triad|100|1|false|"; echo "eq$g-4|triad|100|1|true|"
    for i in 1 2 3 4 5 6; do echo "eq$g-5|copy|$((99 + i % 3))|1|true|"; echo "eq$g-5|triad|$((199 + i % 3))|1|true|"; done
    echo "eq$g-5|copy|80|1|true|"; echo "eq$g-5|copy|80|1|true|"; echo "eq$g-5|triad|200|1|true|"
    echo "eq$g-5|copy|80|1|false|"; echo "eq$g-5|copy|100|1|true|"; echo "eq$g-5|triad|199|1|true|"
    echo "eq$g-6|triad|88|1|true|"; echo "eq$g-6|triad|88|1|true|"; echo "eq$g-6|triad|95|1|true|"
}
hist_sql() { # the rows of hist_rows as a SELECT of (ord, platform, kernel, bw, driver, ok, flags)
    awk -F'|' 'BEGIN { printf "SELECT * FROM (VALUES " } { printf "%s(%d, '\''%s'\'', '\''%s'\'', %s::float8, '\''%s'\'', %s, '\''{%s}'\''::text[])", (NR > 1 ? ", " : ""), NR, $1, $2, $3, $4, $5, $6 }
        END { print ") v (ord, platform, kernel, bw, driver, ok, flags)" }'
}
eq_insert() { # SELECT of rows: stored as results
    psql_q "INSERT INTO results (platform_id, suite, kernel, model, variant, precision, size, bytes, flops, times_s,
        min_s, max_s, mean_s, median_s, stddev_s, bandwidth, gflops, verified, error, flags, provenance)
        SELECT platform, 'stream', kernel, 'openmp', '', 'fp64', 1048576, 25165824, 2097152, ARRAY[t, t, t], t, t, t, t, 0,
            bw * 1e9, 0, ok, CASE WHEN ok THEN NULL ELSE kernel || ': 3 of 1048576 wrong' END, flags,
            jsonb_build_object('opencl.driver_version', driver, 'compiler', 'gcc 12', 'ppbench.version', 't')
        FROM ($1) h, LATERAL (SELECT 25165824 / (bw * 1e9) AS t) x ORDER BY ord" >/dev/null
}
for g in a b; do
    for i in 1 2 3 4 5 6; do psql_q "INSERT INTO platforms (id, kind, name) VALUES ('eq$g-$i', 'gpu', 'Eq$g $i')" >/dev/null; done
    psql_q "INSERT INTO baseline_floors (device, suite, kernel, precision, floor) VALUES ('Eq$g 6', 'stream', 'triad', 'fp64', 9e10)" >/dev/null
done
hist_rows a | while read -r line; do eq_insert "$(echo "$line" | hist_sql)"; done
eq_insert "$(hist_rows b | hist_sql)"
same "one statement of $(hist_rows b | wc -l) results is one statement" \
    "$(psql_q "SELECT count(DISTINCT xmin::text) FROM results WHERE platform_id LIKE 'eqb-%'")" "1"
# eq_state GROUP: everything judging decided for the group, with result ids as their rank in the group
eq_state() {
    psql_q "WITH r AS (SELECT id, row_number() OVER (ORDER BY id) AS o FROM results WHERE platform_id LIKE 'eq$1-%')
    SELECT string_agg(line, E'\n' ORDER BY line) FROM (
        SELECT format('verdict %s %s %s %s z=%s n=%s med=%s peers=%s %s', r.o, right(v.platform_id, 1), v.verdict,
                      v.confirmed, round(v.z::numeric, 3), v.baseline_n, round(v.baseline_median::numeric),
                      v.peers_n, regexp_replace(regexp_replace(regexp_replace(v.reason, 'results [0-9]+ and [0-9]+', 'results'),
                                                ' since [^)]*', ''), 'Eq[ab] ', 'Eq ')) AS line
        FROM result_verdicts v JOIN r ON r.id = v.result_id
        UNION ALL
        SELECT format('baseline %s %s n=%s med=%s mad=%s last=%s z=%s %s suspect=%s from=%s', right(b.platform_id, 1),
                      b.kernel, b.n, round(b.median::numeric), round(b.mad::numeric), b.last_verdict,
                      round(b.last_z::numeric, 3), b.driver, s.o, f.o)
        FROM baselines b LEFT JOIN r s ON s.id = b.suspect_result_id LEFT JOIN r f ON f.id = b.segment_from
        WHERE b.platform_id LIKE 'eq$1-%'
        UNION ALL
        SELECT format('health %s %s %s last=%s %s', right(h.platform_id, 1), h.state, x.o, l.o,
                      regexp_replace(h.reason, 'results [0-9]+ and [0-9]+', 'results'))
        FROM platform_health h LEFT JOIN r x ON x.id = h.result_id LEFT JOIN r l ON l.id = h.last_result_id
        WHERE h.platform_id LIKE 'eq$1-%'
        UNION ALL
        SELECT format('alerts %s %s', right(a.platform_id, 1), string_agg(a.kind || ' ' || a.state, ', ' ORDER BY a.id))
        FROM alerts a WHERE a.platform_id LIKE 'eq$1-%' GROUP BY a.platform_id) s"
}
A=$(eq_state a); B=$(eq_state b)
if [ "$A" = "$B" ] && [ "$(printf '%s\n' "$A" | wc -l)" -gt 20 ]; then
    pass "one statement of many results is judged as one result per statement ($(printf '%s\n' "$A" | wc -l) facts)"
else fail "one statement of many results is judged as one result per statement" "$(diff <(echo "$A") <(echo "$B") | head -20)"; fi
same "what the histories say: confirmed, suspects, an improvement, failed verifications, recoveries (not by another problem)" \
    "$(printf '%s\n' "$B" | grep -c '^verdict .* regressed t ') $(printf '%s\n' "$B" | grep -c '^verdict .* regressed f ') $(printf '%s\n' "$B" | grep -c '^verdict .* improved t ') $(printf '%s\n' "$B" | grep -c '^verdict .* verification_failed t ') $(printf '%s\n' "$B" | grep '^alerts' | tr '\n' ';')" \
    "3 4 1 2 alerts 1 raised regressed, recovered ok;alerts 4 raised verification_failed, recovered ok;alerts 5 raised regressed, recovered ok;alerts 6 raised regressed, recovered ok;"
# Peers in one statement: 8 devices of one model, one of them 20 % low, six results each, in one INSERT.
for i in 0 1 2 3 4 5 6 7; do psql_q "INSERT INTO platforms (id, kind, name) VALUES ('eqp-$i', 'gpu', 'EqP')" >/dev/null; done
eq_insert "SELECT row_number() OVER () AS ord, 'eqp-' || p AS platform, 'triad' AS kernel,
           CASE WHEN p = 7 THEN 80 ELSE 99.5 + (p + k) % 3 * 0.5 END::float8 AS bw, '1' AS driver, true AS ok,
           '{}'::text[] AS flags FROM generate_series(1, 6) k, generate_series(0, 7) p"
same "an outlier among 8 identical devices is found within one statement" \
    "$(psql_q "SELECT string_agg(platform_id || ' ' || state, ', ' ORDER BY platform_id) FROM platform_health WHERE platform_id LIKE 'eqp-%' AND state <> 'ok'")" \
    "eqp-7 outlier"
# The windows kept in the baselines are the ones the history gives (the last K verified, unflagged results of
# the segment not judged regressed or outlier), and an exclusion (flags updated) takes its result out.
win_query="SELECT b.platform_id || ' ' || b.kernel || ' ' || (b.window_ids = coalesce((SELECT array_agg(h.id ORDER BY h.id)
      FROM (SELECT q.id FROM results q WHERE (q.platform_id, q.suite, q.kernel, q.model, q.precision, q.size, q.variant)
            = (b.platform_id, b.suite, b.kernel, b.model, b.precision, b.size, b.variant) AND q.id >= b.segment_from
            AND q.verified AND q.flags = '{}' AND NOT EXISTS (SELECT 1 FROM result_verdicts v WHERE v.result_id = q.id
            AND v.verdict IN ('regressed', 'outlier')) ORDER BY q.id DESC LIMIT 20) h), '{}'))::text
    FROM baselines b WHERE b.platform_id LIKE 'eq%' ORDER BY 1"
same "every window is its history's" "$(psql_q "$win_query" | grep -c ' false$') $(psql_q "$win_query" | grep -c ' true$')" "0 22"
# The series /metrics serves, kept by judging as it goes, are the ones rebuilt from the baselines.
same "every metric series kept is the one rebuilt from its baseline" "$(psql_q "
    CREATE TEMP TABLE kept AS SELECT * FROM metric_series;
    SELECT metric_series_rebuild(NULL);
    SELECT count(*) || ' ' || (SELECT count(*) FROM kept)
    FROM ((SELECT platform_id, suite, kernel, model, precision, size, fom_line, baseline_line FROM kept
           EXCEPT SELECT platform_id, suite, kernel, model, precision, size, fom_line, baseline_line FROM metric_series)
          UNION ALL (SELECT platform_id, suite, kernel, model, precision, size, fom_line, baseline_line FROM metric_series
           EXCEPT SELECT platform_id, suite, kernel, model, precision, size, fom_line, baseline_line FROM kept)) d" |
    tail -n 1 | sed 's/ [1-9][0-9]\{1,\}$/ many/')" "0 many"
# The peer groups as judging sees them (the groups with their pending changes: a baseline's new figure, a new
# driver's segment leaving the old group, a removed platform leaving its groups) are the ones rebuilt from the
# baselines, before and after the changes are folded in (members compared as sets of platform and figure, equal
# figures in any order; every group's figures ascending).
groups_rebuilt() { psql_q "
    CREATE TEMP TABLE seen AS SELECT g.suite, g.kernel, g.model, g.precision, g.size, g.variant, g.device, g.driver, x.id, x.f
        FROM peer_groups_now() g, unnest(g.ids, g.figs) x (id, f);
    CREATE TEMP TABLE unsorted AS SELECT 1 FROM peer_groups_now() g
        WHERE EXISTS (SELECT 1 FROM unnest(g.figs) WITH ORDINALITY a (f, i) JOIN unnest(g.figs) WITH ORDINALITY b (f, i)
                      ON b.i = a.i + 1 WHERE b.f < a.f);
    SELECT peer_groups_rebuild();
    SELECT count(*) || ' ' || (SELECT count(*) FROM seen) || ' ' || (SELECT count(*) FROM unsorted)
    FROM ((SELECT * FROM seen EXCEPT SELECT g.suite, g.kernel, g.model, g.precision, g.size, g.variant, g.device, g.driver, x.id, x.f
           FROM peer_groups g, unnest(g.ids, g.figs) x (id, f))
          UNION ALL (SELECT g.suite, g.kernel, g.model, g.precision, g.size, g.variant, g.device, g.driver, x.id, x.f
           FROM peer_groups g, unnest(g.ids, g.figs) x (id, f) EXCEPT SELECT * FROM seen)) d" |
    tail -n 1 | sed 's/^\([0-9]*\) [1-9][0-9]* /\1 some /'; }
# peer_merge: a few changes one after the other, more in one pass; a later change of a member wins, NULL takes
# it out, the figures stay ascending.
same "peer_merge: three changes one by one, six in one pass" "$(psql_q "
    SELECT array_to_string(ids, ',') || ' ' || array_to_string(figs, ',')
    FROM peer_merge(ARRAY['a', 'b', 'c'], ARRAY[1, 2, 3]::float8[], ARRAY['b', 'd', 'a'], ARRAY[5, 0.5, NULL]::float8[])
    UNION ALL
    SELECT array_to_string(ids, ',') || ' ' || array_to_string(figs, ',')
    FROM peer_merge(ARRAY['a', 'b', 'c'], ARRAY[1, 2, 3]::float8[], ARRAY['b', 'd', 'a', 'e', 'b', 'c'],
                    ARRAY[5, 0.5, NULL, 4, 2.5, NULL]::float8[])" | tr '\n' ';')" "d,c,b 0.5,3,5;d,b,e 0.5,2.5,4;"
# fold: the pending changes into the groups (the notifier does it each second; -1: it holds the lock now)
folded() { [ "$(psql_q "SELECT peer_groups_compact() >= 0")" = t ]; }
fold() { wait_for 5 folded; }
api DELETE /api/v1/platforms/sim-n "" "$ADMIN"
same "every peer group as judging sees it is the one rebuilt from the baselines (a platform removed: $STATUS)" \
    "$(groups_rebuilt)" "0 some 0"
# Two writers of one group at once (each appends its change; the second still waits, on the problem's row of
# pp_problem_keys): both are seen, and folding them in changes nothing judging sees.
for c in a b; do mkplat "conc-$c" "SimGPU C"; history "conc-$c" 2 7.7; done
one_sql() { # PLATFORM GB/S: one result's INSERT
    echo "INSERT INTO results (platform_id, suite, kernel, model, variant, precision, size, bytes, flops, times_s, min_s,
        max_s, mean_s, median_s, stddev_s, bandwidth, gflops, verified, provenance)
        SELECT '$1', 'stream', 'triad', 'openmp', '', 'fp64', 1048576, 25165824, 2097152, ARRAY[t, t], t, t, t, t, 0,
            $2 * 1e9, 0, true, jsonb_build_object('opencl.driver_version', '7.7', 'compiler', 'gcc 12', 'ppbench.version', 't')
        FROM (SELECT 25165824 / ($2 * 1e9) AS t) x;"
}
# The first writer commits once the second (conc-b) waits for it (5 s at most).
psql -qAt "$DB application_name=conc-a" -c "BEGIN; $(one_sql conc-a 120)
    DO \$\$ BEGIN FOR i IN 1..100 LOOP
        PERFORM pg_stat_clear_snapshot();
        EXIT WHEN EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = 'conc-b'
                          AND pg_backend_pid() = ANY (pg_blocking_pids(pid)));
        PERFORM pg_sleep(0.05);
    END LOOP; END \$\$; COMMIT;" >/dev/null &
cpid=$!
first_waits() { [ "$(psql -qAt "$DB" -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'conc-a' AND wait_event = 'PgSleep'")" = 1 ]; }
wait_for 10 first_waits
PGAPPNAME=conc-b psql_q "$(one_sql conc-b 130)" >/dev/null
wait "$cpid"
same "two writers of one peer group at once: both seen" \
    "$(psql_q "SELECT array_to_string(ARRAY(SELECT unnest(ids) ORDER BY 1), ',') FROM peer_groups_now() WHERE device = 'SimGPU C'") $(groups_rebuilt)" \
    "conc-a,conc-b 0 some 0"
fold
same "folded into the groups: no change pending, the groups are the baselines'" \
    "$(psql_q "SELECT count(*) FROM peer_changes") $(groups_rebuilt)" "0 0 some 0"
X=$(psql_q "SELECT window_ids[2] FROM baselines WHERE platform_id = 'eqb-1'")
api PATCH "/api/v1/results/$X" '{"exclude": true}' "$ADMIN"
same "an excluded result leaves its window ($STATUS)" \
    "$(psql_q "SELECT $X = ANY (window_ids) FROM baselines WHERE platform_id = 'eqb-1'") $(psql_q "$win_query" | grep -c ' false$')" "f 0"

# Judging is not the INSERT's (judge_pending, schema/functions/judge.sql): the statement only queues its rows, and the
# server's notifier, woken by the queue's notification, judges them by itself (no test drains here).
raw_q() { psql -qAt "$DB" -c "$1"; }
mkplat async-1 "SimGPU Q"
raw_q "BEGIN; $(one_sql async-1 100) SELECT count(*) FROM judge_queue; SELECT count(*) FROM baselines
       WHERE platform_id = 'async-1'; COMMIT;" >"$TMP/async"
judged=""
async_judged() { [ "$(raw_q "SELECT count(*) FROM judge_queue")/$(raw_q "SELECT count(*) FROM baselines WHERE platform_id = 'async-1'")" = 0/1 ]; }
wait_for 5 async_judged && judged=1
same "the INSERT queues its result, unjudged; the server judges it by itself" "$(tr '\n' ' ' <"$TMP/async")${judged:+judged}" \
    "1 0 judged"
