# One measurement at a time (issue 22, item 3): the claim keeps apart the jobs that disturb each other, by the
# settings exclusive_cpu (default host: alone on its host) and exclusive_gpu (default device: alone on its GPU,
# never beside a CPU job of its host). Through the real ppbenchd: GPU platforms are workers this script
# registers over HTTP and drives itself (claim, hold, post a result), the CPU platform is either one of those
# or a real `ppbench-worker serve` running real STREAM jobs.
#  - host hy, every worker faked, each check one claim: two GPUs at once; a CPU job held back while a GPU job
#    runs and a GPU job while a CPU job runs; a later GPU job does not overtake a CPU job that waits for its
#    host; the held-back CPU worker's long poll is woken when the host frees up; the Slurm path (`serve --once
#    --job`) waits for its host instead of giving up; `none` for every kind brings back one job per worker
#    only (SIGHUP); a bad value is refused.
#  - host hx, a real worker on cpu0 and a faked gpu0, CPU and GPU jobs submitted at once: the job documents'
#    times show that no CPU job ran beside another job of the host, and that they started in queue order.
#  - host hz, two ppbenchd on one database, the CPU worker claiming through one and the GPU worker through the
#    other at the same moment, 20 rounds, a higher-priority CPU job submitted between the two claims (so the
#    queue's order cannot keep them apart, only the host lock), behind 50,000 queued jobs of another platform
#    (so that claims take long enough to overlap): never both.
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../lib/server.sh"
[ -x "$SERVER" ] && [ -x "$WORKER" ] || { skip "exclusive" "ppbenchd or ppbench-worker not built"; exit 0; }

PIDS=()
SERVER2_PID=""
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    [ -n "$SERVER2_PID" ] && { kill "$SERVER2_PID" 2>/dev/null; wait "$SERVER2_PID" 2>/dev/null; }
    server_cleanup
}
trap cleanup EXIT

# max_wait_s = 4: the Slurm path's worker hears that its job waits every 4 s (its long poll is cut to that)
server_start "embedded_workers = false" "lease_s = 30" "heartbeat_s = 2" "max_wait_s = 4"
WT=$WORKER_TOKEN
CPUDOC=$("$WORKER" list --json | jq -c '.platforms[] | select(.id == "cpu0")')
STREAM='"suite": "stream", "model": "openmp", "kernels": ["copy"]'

# fake HOST ID KIND [URL]: register HOST/ID over HTTP; sets FW_<HOST>_<ID> to "worker_id secret".
fake() {
    local p url=${4:-$URL}
    p=$(printf '%s' "$CPUDOC" | jq -c --arg id "$2" --arg kind "$3" '.id = $id | .kind = $kind')
    local out
    out=$(curl -s -X POST -H "Authorization: Bearer $WT" -H 'Content-Type: application/json' \
        --data-binary "{\"host\":\"$1\",\"pid\":$$,\"version\":\"t\",\"platform\":$p}" "$url/api/v1/workers/register")
    printf -v "FW_$1_$2" '%s' "$(printf '%s' "$out" | jq -r '"\(.worker_id) \(.worker_secret)"')"
}
# wcall WORKER METHOD PATH [BODY] [URL]: a call as the fake worker ("id secret"); sets STATUS and BODY.
wcall() {
    local id=${1% *} secret=${1#* } url=${5:-$URL}
    local -a args=(-s -o "$TMP/wresp.$id" -w '%{http_code}' -X "$2" -H "Authorization: Bearer $WT"
        -H "X-Worker-Id: $id" -H "X-Worker-Secret: $secret")
    [ -n "${4:-}" ] && args+=(-H 'Content-Type: application/json' --data-binary "$4")
    STATUS=$(curl "${args[@]}" "$url$3")
    BODY=$(cat "$TMP/wresp.$id")
}
# claim WORKER WAIT [URL]: sets STATUS, BODY, and JOB/EPOCH ("" when none came).
claim() {
    local id=${1% *}
    wcall "$1" POST "/api/v1/workers/$id/claim?wait=$2" "" "${3:-$URL}"
    JOB=$(printf '%s' "$BODY" | jq -r '.job.id // empty' 2>/dev/null)
    EPOCH=$(printf '%s' "$BODY" | jq -r '.job.epoch // empty' 2>/dev/null)
}
# finish WORKER JOB EPOCH: the fake run ends (a failed outcome: only its times matter here).
finish() {
    wcall "$1" POST "/api/v1/jobs/$2/result" "{\"epoch\": $3, \"outcome\": \"failed\", \"error\": \"fake run\"}"
}
# submit PLATFORM [PRIORITY] [PARAMS]: prints the job id.
SMALL='{"arraysize": 1000, "numtimes": 2}'
submit() {
    local params=${3:-$SMALL}
    api POST /api/v1/jobs "{$STREAM, \"platform\": \"$1\", \"priority\": ${2:-0}, \"params\": $params}" "$ADMIN"
    printf '%s' "$BODY" | jq -r .id
}
state() { psql_q "SELECT state FROM jobs WHERE id = $1"; }

# ---- host hy: every worker faked, one claim per check ----
fake hy gpu0 gpu; fake hy gpu1 gpu; fake hy cpu0 cpu
G0=$FW_hy_gpu0; G1=$FW_hy_gpu1; C0=$FW_hy_cpu0
j1=$(submit hy/gpu0); claim "$G0" 0; e1=$EPOCH
same "hy: gpu0 claims its job" "$JOB" "$j1"
j2=$(submit hy/gpu1); claim "$G1" 0; e2=$EPOCH
same "two GPUs of one host run at once (exclusive_gpu = device)" "$JOB" "$j2"
jc=$(submit hy/cpu0); claim "$C0" 1
same "a CPU job waits while GPU jobs of its host run (exclusive_cpu = host)" "$STATUS $(state "$jc")" "204 queued"
api GET "/api/v1/jobs/$jc" ""
same "the waiting job's document says which job holds it back" "$(printf '%s' "$BODY" | jq -r .waiting)" "hy/gpu0 runs job $j1"
api GET "/api/v1/jobs/$j1" ""
same "a running job's document waits for nothing" "$(printf '%s' "$BODY" | jq -r .waiting)" "null"
finish "$G1" "$j2" "$e2"
j3=$(submit hy/gpu1); claim "$G1" 1
same "a later GPU job does not overtake the CPU job that waits for its host" "$STATUS $(state "$j3")" "204 queued"
# The CPU worker long-polls; the host frees up when gpu0's job ends, which wakes it.
( claim "$C0" 4; echo "$STATUS $JOB $EPOCH $(date +%s.%N)" >"$TMP/cpu_claim" ) &
holds_for 1.5 test ! -s "$TMP/cpu_claim" || fail "the held-back CPU worker keeps waiting" "$(cat "$TMP/cpu_claim")"
t0=$(date +%s.%N)
finish "$G0" "$j1" "$e1"
wait $!
read -r st got ec t1 <"$TMP/cpu_claim"
same "the CPU job is claimed once the host is free" "$st $got" "200 $jc"
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 0.5) }' &&
    pass "the waiting claim is woken when the host frees up ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }') ms)" ||
    fail "the waiting claim is woken when the host frees up" "after $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s"
j4=$(submit hy/gpu0); claim "$G0" 1
same "a GPU job waits while a CPU job of its host runs" "$STATUS $(state "$j3") $(state "$j4")" "204 queued queued"
finish "$C0" "$jc" "$ec"
claim "$G1" 1
same "after the CPU job the GPU jobs run, in the queue's order" "$STATUS $JOB" "200 $j3"
e3=$EPOCH
claim "$G0" 1; e4=$EPOCH
same "and beside each other" "$STATUS $JOB" "200 $j4"

# The Slurm path: `serve --once --job ID` (what a Slurm job runs) waits for its host instead of giving up.
wcall "$C0" POST "/api/v1/workers/${C0% *}/deregister"
js=$(submit hy/cpu0 0 '{"arraysize": 20000, "numtimes": 3}')
psql_q "UPDATE jobs SET slurm_state = 'RUNNING', slurm_job_id = 4242 WHERE id = $js" >/dev/null
PPBENCH_WORKER_TOKEN=$WT "$WORKER" serve --server "$URL" --platform cpu0 --host hy --once --job "$js" \
    >"$TMP/once.log" 2>&1 &
ONCE=$!
PIDS+=("$ONCE")
wait_for 10 grep -q "job=$js waits: hy/gpu" "$TMP/once.log" # its claim's long poll (max_wait_s) ends first
if kill -0 "$ONCE" 2>/dev/null && [ "$(state "$js")" = queued ] && grep -q "job=$js waits: hy/gpu" "$TMP/once.log"; then
    pass "serve --once --job waits while GPU jobs of its host run"
else
    fail "serve --once --job waits while GPU jobs of its host run" "state $(state "$js"), $(tail -n 3 "$TMP/once.log" | tr '\n' ' ')"
fi
finish "$G1" "$j3" "$e3"
finish "$G0" "$j4" "$e4"
wait_job "$js" "succeeded|failed|cancelled" 30
wait "$ONCE"; rc=$?
same "serve --once --job runs its job once the host is free, and exits" "$(state "$js") $rc" "succeeded 0"

# A bad value is refused by name, and SIGHUP with none for every kind: one job per worker, nothing more.
cp "$TMP/ppbench.conf" "$TMP/ppbench.conf.orig"
echo "exclusive_gpu = sometimes" >>"$TMP/ppbench.conf"
# reloaded N: the server's log has more than N reload lines
reloaded() { [ "$(grep -c 'reload\(:\| refused\)' "$SERVER_LOG")" -gt "$1" ]; }
kill -HUP "$SERVER_PID"
wait_for 5 reloaded 0
grep -q 'reload refused.*exclusive_gpu: "sometimes" is not host, device or none' "$SERVER_LOG" &&
    pass "a bad exclusive value is refused by name" || fail "a bad exclusive value is refused by name" "$(grep reload "$SERVER_LOG" | tail -n 1)"
cp "$TMP/ppbench.conf.orig" "$TMP/ppbench.conf"
printf 'exclusive_cpu = none\nexclusive_gpu = none\nexclusive_accel = none\n' >>"$TMP/ppbench.conf"
kill -HUP "$SERVER_PID"
wait_for 5 reloaded 1
fake hy cpu0 cpu; C0=$FW_hy_cpu0
j5=$(submit hy/gpu0); claim "$G0" 0; e5=$EPOCH
j6=$(submit hy/cpu0); claim "$C0" 0; e6=$EPOCH
j7=$(submit hy/gpu1); claim "$G1" 0; e7=$EPOCH
same "none: a CPU job and two GPU jobs of one host run at once" "$(state "$j5") $(state "$j6") $(state "$j7")" "running running running"
finish "$G0" "$j5" "$e5"; finish "$C0" "$j6" "$e6"; finish "$G1" "$j7" "$e7"
cp "$TMP/ppbench.conf.orig" "$TMP/ppbench.conf"
kill -HUP "$SERVER_PID"
wait_for 5 reloaded 2

# ---- host hx: a real worker on cpu0 running real jobs, a faked gpu0 beside it ----
fake hx gpu0 gpu
GX=$FW_hx_gpu0
( # the fake GPU worker: claim, hold the job 0.4 s, post, until told to stop
    while [ ! -f "$TMP/stop_gpu" ]; do
        claim "$GX" 2
        [ -n "$JOB" ] && { sleep 0.4; finish "$GX" "$JOB" "$EPOCH"; }
    done
) &
PIDS+=($!)
PPBENCH_WORKER_TOKEN=$WT "$WORKER" serve --server "$URL" --platform cpu0 --host hx >"$TMP/worker.log" 2>&1 &
PIDS+=($!)
hx_idle() { [ "$(psql_q "SELECT count(*) FROM workers WHERE platform_id = 'hx/cpu0' AND state = 'idle'")" = 1 ]; }
wait_for 20 hx_idle
ids=""
for i in 1 2 3 4 5; do
    ids="$ids $(submit hx/cpu0 0 '{"arraysize": 400000, "numtimes": 20}') $(submit hx/gpu0)"
done
left=0
for id in $ids; do wait_job "$id" "succeeded|failed|cancelled" 120 || left=$((left + 1)); done
touch "$TMP/stop_gpu"
idlist=$(echo $ids | tr ' ' ',')
same "hx: every job ended, the CPU jobs verified" \
    "$left $(psql_q "SELECT count(*) FILTER (WHERE state = 'succeeded') || ' ' || count(*) FILTER (WHERE error = 'fake run') FROM jobs WHERE id IN ($idlist)")" "0 5 5"
overlaps=$(psql_q "SELECT count(*) FROM jobs c JOIN jobs o ON o.id <> c.id AND o.ran_on LIKE 'hx/%'
    WHERE c.ran_on = 'hx/cpu0' AND tstzrange(c.claimed_at, c.finished_at) && tstzrange(o.claimed_at, o.finished_at)")
same "hx: no CPU job ran beside another job of its host (claimed_at..finished_at)" "$overlaps" "0"
same "hx: the host's jobs started in the queue's order" \
    "$(psql_q "SELECT string_agg(id::text, ' ' ORDER BY claimed_at) FROM jobs WHERE id IN ($idlist)")" "$(echo $ids)"

# ---- host hz: two ppbenchd on one database, the CPU and the GPU worker claiming through each at once ----
PORT2=$(free_port)
mkdir -p "$TMP/state2"
printf 'listen = 127.0.0.1:%s\nstate_dir = %s\nthreads = 4\nembedded_workers = false\nlease_s = 30\n' \
    "$PORT2" "$TMP/state2" >"$TMP/ppbench2.conf"
PPBENCH_DATABASE_URL="$DB" "$SERVER" --config "$TMP/ppbench2.conf" \
    >"$TMP/ppbenchd2.log" 2>&1 &
SERVER2_PID=$!
wait_for 30 grep -q '^ppbench is ready' "$TMP/ppbenchd2.log"
URL2="http://127.0.0.1:$PORT2"
grep -q '^ppbench is ready' "$TMP/ppbenchd2.log" && pass "a second ppbenchd on the first one's database" ||
    fail "a second ppbenchd on the first one's database" "$(tail -n 3 "$TMP/ppbenchd2.log" | tr '\n' ' ')"
fake hz cpu0 cpu "$URL"; fake hz gpu0 gpu "$URL2"
CZ=$FW_hz_cpu0; GZ=$FW_hz_gpu0
# A long queue of another platform's jobs, ahead of hz's (priority 100): each claim reads through it, so the
# time between a claim's snapshot and its commit is tens of milliseconds, as on a busy fleet, and the claims
# of a round overlap in the database.
psql_q "INSERT INTO platforms (id, kind, name, models) VALUES ('filler', 'gpu', 'filler', '{openmp}');
    INSERT INTO jobs (suite, kernels, model, platform_id, priority)
    SELECT 'stream', '{copy}', 'openmp', 'filler', 100 FROM generate_series(1, 50000)" >/dev/null
CLAIM_MS=100000
for _ in 1 2 3; do
    t0=$(date +%s%N); claim "$CZ" 0; t1=$(date +%s%N)
    [ $(((t1 - t0) / 1000000)) -lt "$CLAIM_MS" ] && CLAIM_MS=$(((t1 - t0) / 1000000))
done
echo "# hz: an empty claim with 50,000 other jobs queued takes $CLAIM_MS ms (the least of 3)"
# In each round the GPU claim goes first, a quarter of a claim's time before the CPU job is submitted, so that
# its snapshot is taken before that job exists, and the CPU claim's after, while the GPU claim still runs.
PAUSE=$(awk -v ms="$CLAIM_MS" 'BEGIN { printf "%.3f", ms / 4000 }')
both=0 one=0 rounds=20
for r in $(seq $rounds); do
    g=$(submit hz/gpu0 0)
    ( claim "$GZ" 0 "$URL2"; echo "$JOB $EPOCH" >"$TMP/gz" ) &
    gp=$!
    sleep "$PAUSE"
    c=$(submit hz/cpu0 10) # higher priority: the queue's order does not hold it behind g
    ( claim "$CZ" 0 "$URL"; echo "$JOB $EPOCH" >"$TMP/cz" ) &
    cp_=$!
    wait $gp $cp_
    read -r gj ge <"$TMP/gz"; read -r cj ce <"$TMP/cz"
    n=0
    [ -n "$gj" ] && { n=$((n + 1)); finish "$GZ" "$gj" "$ge"; }
    [ -n "$cj" ] && { n=$((n + 1)); finish "$CZ" "$cj" "$ce"; }
    [ $n = 2 ] && both=$((both + 1))
    [ $n = 1 ] && one=$((one + 1))
    for id in $g $c; do api POST "/api/v1/jobs/$id/cancel" "" "$ADMIN"; done
done
psql_q "UPDATE jobs SET state = 'cancelled', finished_at = now() WHERE platform_id = 'filler' AND state = 'queued'" >/dev/null
same "two ppbenchd, $rounds rounds of a CPU and a GPU claim of one host at once: never both ($one with one)" "$both" "0"
same "hz: no CPU job ran beside another job of its host" "$(psql_q "SELECT count(*) FROM jobs c JOIN jobs o ON o.id <> c.id
    AND o.ran_on LIKE 'hz/%' WHERE c.ran_on = 'hz/cpu0' AND tstzrange(c.claimed_at, c.finished_at) && tstzrange(o.claimed_at, o.finished_at)")" "0"
