#!/bin/bash
# Slurm (issue 17): a real cluster from Debian's packages (tests/cli/slurm_lib.sh: munged, slurmctld, three
# slurmd node names on loopback) and ppbenchd's Slurm executor against it. Skipped, saying why, where Slurm
# cannot start.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
. "$(dirname "$0")/slurm_lib.sh"
trap 'slurm_stop; server_cleanup' EXIT

slurm_start || exit 0

# The harness itself: a batch job on a named node runs there.
out="$TMP/hello.out"
jid=$(sbatch --parsable -p ppb -w n2 -o "$out" --wrap 'echo "on $SLURMD_NODENAME"' 2>&1)
if slurm_wait_state "$jid" COMPLETED 20 && grep -q '^on n2$' "$out"; then
    pass "slurm harness: a batch job runs on node n2"
else
    fail "slurm harness: a batch job runs on node n2" "sbatch: $jid; $(squeue -h -t all -o '%i %T %r' | tr '\n' ';')"
fi

# ppbenchd with the Slurm executor for the platforms of hosts n1..n3, no resident worker: every job of those
# platforms goes through sbatch, and `ppbench-worker serve --once --job ID` runs it on the allocated node.
mkdir -p "$TMP/slurm/out" "$PWD/$BUILD/test-cache"
server_start "embedded_workers = false" "lease_s = 4" "heartbeat_s = 1" "slurm_partition = ppb" \
    "slurm_platforms = host=n*" "slurm_worker = $PWD/$WORKER" "slurm_token_file = $STATE/worker.token" \
    "slurm_output = $TMP/slurm/out/%j.out" "slurm_poll_s = 1" "slurm_time_margin_s = 60" \
    "slurm_export = NONE"
J=/api/v1/jobs

# The nodes' platforms, as a first run on each registers them (the worker names its host after
# SLURMD_NODENAME, the Slurm node it runs on).
for n in $SLURM_NODES; do
    SLURMD_NODENAME=$n PPBENCH_WORKER_TOKEN=$(cat "$STATE/worker.token") \
        "$WORKER" serve --once --server "$URL" --platform cpu0 >>"$TMP/register.log" 2>&1
done
api GET /api/v1/platforms
if [ "$(printf '%s' "$BODY" | jq '[.platforms[].id] | map(select(test("^n[1-3]/cpu0$"))) | length')" = 3 ]; then
    pass "slurm: serve --once registers the node's platform under its Slurm node name"
else
    fail "slurm: serve --once registers the node's platform under its Slurm node name" "$(tail -n 3 "$TMP/register.log")"
fi

# slurm_job ID: the Slurm job id of ppbench job ID, once it has one (empty after 30 s).
slurm_job() {
    local s
    for _ in $(seq 300); do
        api GET "$J/$1"
        s=$(printf '%s' "$BODY" | jq -r '.slurm.job_id // empty')
        [ -n "$s" ] && { echo "$s"; return; }
        sleep 0.1
    done
}
# wait_slurm_state ID REGEX SECONDS: until the ppbench job shows that Slurm state.
wait_slurm_state() {
    for _ in $(seq $(($3 * 10))); do
        api GET "$J/$1"
        [[ "$(printf '%s' "$BODY" | jq -r '.slurm.state // empty')" =~ ^($2)$ ]] && return 0
        sleep 0.1
    done
    return 1
}

# 1. A job end to end: sbatch on the named node, the result stored.
api POST $J '{"suite":"stream","model":"openmp","platform":"n2/cpu0","params":{"arraysize":65536,"numtimes":5},"timeout_s":120}' "$ADMIN"
id=$(printf '%s' "$BODY" | jq -r .id)
sj=$(slurm_job "$id")
if wait_job "$id" "succeeded|failed|cancelled" 90 && [ "$(printf '%s' "$BODY" | jq -r .state)" = succeeded ] &&
    [ "$(printf '%s' "$BODY" | jq '.results | length')" -ge 5 ] &&
    [ "$(printf '%s' "$BODY" | jq -r .ran_on)" = n2/cpu0 ] &&
    [ "$(squeue -h -t all -j "$sj" -o %N 2>/dev/null)" = n2 ]; then
    pass "slurm: a ppbench job runs as Slurm job $sj on node n2 and its results are stored"
else
    fail "slurm: a ppbench job runs as a Slurm job and its result is stored" \
        "slurm job '$sj': $(printf '%s' "$BODY" | jq -c '{state,error,slurm,ran_on}') $(cat "$TMP"/slurm/out/*.out 2>/dev/null | tail -n 5 | tr '\n' ' ')"
fi
if [ "$(squeue -h -t all -j "$sj" -o '%P %l %j' 2>/dev/null)" = "ppb 3:00 ppbench-$id" ]; then
    pass "slurm: sbatch got the partition, the time limit (timeout 120 s + margin 60 s) and the job's name"
else
    fail "slurm: sbatch got the partition, the time limit and the job's name" "$(squeue -h -t all -j "$sj" -o '%P %l %j' 2>&1)"
fi
if slurm_wait_state "$sj" COMPLETED 20 && wait_slurm_state "$id" COMPLETED 10; then
    pass "slurm: the job shows its Slurm job id and state (COMPLETED)"
else
    fail "slurm: the job shows its Slurm job id and state" "$(printf '%s' "$BODY" | jq -c .slurm)"
fi

# 2. Drain and resume: ppbench resumes its own drain, never someone else's.
node_reason() { scontrol -o show node "$1" | sed -n 's/.* Reason=//p'; }
node_state() { scontrol -o show node "$1" | sed -n 's/.* State=\([^ ]*\).*/\1/p'; }
expect_api "slurm: an admin drains node n3 with ppbench's reason" 200 - POST /api/v1/slurm/nodes/n3/drain \
    '{"reason":"stream triad 1.0e9 below baseline 2.0e9"}' "$ADMIN"
if [[ "$(node_state n3)" == *DRAIN* ]] && [[ "$(node_reason n3)" == "ppbench: stream triad 1.0e9 below baseline 2.0e9"* ]]; then
    pass "slurm: sinfo -R shows ppbench's reason on n3"
else
    fail "slurm: sinfo -R shows ppbench's reason on n3" "$(node_state n3) / $(node_reason n3)"
fi
expect_api "slurm: ppbench resumes its own drain" 200 - POST /api/v1/slurm/nodes/n3/resume "" "$ADMIN"
if [[ "$(node_state n3)" != *DRAIN* ]]; then pass "slurm: n3 is no longer drained"
else fail "slurm: n3 is no longer drained" "$(node_state n3)"; fi
scontrol update NodeName=n1 State=DRAIN Reason="disk replacement, ticket 4711"
expect_api "slurm: a drain set by someone else is refused (409)" 409 not_our_drain POST /api/v1/slurm/nodes/n1/resume "" "$ADMIN"
if [[ "$(node_state n1)" == *DRAIN* ]] && [[ "$(node_reason n1)" == "disk replacement, ticket 4711"* ]]; then
    pass "slurm: the other drain and its reason stay"
else
    fail "slurm: the other drain and its reason stay" "$(node_state n1) / $(node_reason n1)"
fi
expect_api "slurm: draining needs an admin token" 401 unauthorized POST /api/v1/slurm/nodes/n3/drain '{"reason":"x"}'
expect_api "slurm: a bad node name is refused" 400 invalid_parameter GET "/api/v1/slurm/nodes/-n1"
api GET /api/v1/slurm/nodes/n1
jq_true "slurm: GET node says drained, not ppbench's" "$TMP/resp" '.drained == true and .ppbench_drain == false'
# The same as a command (the drain hook fleet health runs): ppbenchd slurm drain|resume|show.
expect "slurm: ppbenchd slurm drain sets ppbench's reason" 0 '^n2 [A-Z+]*DRAIN[A-Z+]* ppbench: hook test' -- \
    "$SERVER" slurm drain n2 "hook test"
expect "slurm: ppbenchd slurm resume lifts ppbench's drain" 0 '^n2 (IDLE|MIXED|ALLOCATED)(\+(NOT_RESPONDING|COMPLETING))*$' -- "$SERVER" slurm resume n2
expect "slurm: ppbenchd slurm resume leaves someone else's drain (exit 1)" 1 "^n1 .*left drained: not ppbench's drain \\(disk replacement" -- \
    "$SERVER" slurm resume n1

# 3. Cancelling the ppbench job cancels its Slurm job: one pending on the node drained above (it shows
# Slurm's reason), and one running.
api POST $J '{"suite":"stream","model":"openmp","platform":"n1/cpu0","params":{"arraysize":65536,"numtimes":5}}' "$ADMIN"
id=$(printf '%s' "$BODY" | jq -r .id)
sj=$(slurm_job "$id")
if wait_slurm_state "$id" PENDING 20 && printf '%s' "$BODY" | jq -e '.state == "queued" and (.slurm.reason | test("ReqNodeNotAvail|Resources|Priority|Nodes"))' >/dev/null; then
    pass "slurm: a job for a drained node waits in Slurm with Slurm's reason ($(printf '%s' "$BODY" | jq -r .slurm.reason))"
else
    fail "slurm: a job for a drained node waits in Slurm with Slurm's reason" "$(printf '%s' "$BODY" | jq -c '{state,slurm}')"
fi
api POST "$J/$id/cancel" "" "$ADMIN"
if slurm_wait_state "$sj" CANCELLED 20; then
    pass "slurm: cancelling a pending ppbench job scancels Slurm job $sj"
else
    fail "slurm: cancelling a pending ppbench job scancels its Slurm job" "slurm job '$sj': $(squeue -h -t all -j "$sj" -o '%T %r' 2>&1)"
fi

LONG='{"suite":"stream","model":"openmp","platform":"n2/cpu0","params":{"arraysize":4194304,"numtimes":20000},"timeout_s":600}'
api POST $J "$LONG" "$ADMIN"
id=$(printf '%s' "$BODY" | jq -r .id)
sj=$(slurm_job "$id")
if wait_job "$id" running 60; then
    api POST "$J/$id/cancel" "" "$ADMIN"
    # the worker hears of the cancel at its next heartbeat and ends the job, or scancel comes first
    if slurm_wait_state "$sj" "CANCELLED|COMPLETED" 20 && wait_job "$id" cancelled 5; then
        pass "slurm: cancelling a running ppbench job ends Slurm job $sj ($(squeue -h -t all -j "$sj" -o %T))"
    else
        fail "slurm: cancelling a running ppbench job ends its Slurm job" "slurm job '$sj': $(squeue -h -t all -j "$sj" -o '%T %r' 2>&1)"
    fi
else
    fail "slurm: cancelling a running ppbench job ends its Slurm job" "never ran: $(printf '%s' "$BODY" | jq -c '{state,error,slurm}')"
fi

# 4. Killing the Slurm job (scancel, as an operator would) fails the ppbench job with Slurm's word for it.
api POST $J "$LONG" "$ADMIN"
id=$(printf '%s' "$BODY" | jq -r .id)
sj=$(slurm_job "$id")
if wait_job "$id" running 60; then
    scancel "$sj"
    if wait_job "$id" "failed" 30 &&
        printf '%s' "$BODY" | jq -e --arg sj "$sj" '.state == "failed" and (.error | test("slurm job " + $sj + " ended CANCELLED"))' >/dev/null; then
        pass "slurm: scancel of the Slurm job fails the ppbench job with the reason ($(printf '%s' "$BODY" | jq -r .error))"
    else
        fail "slurm: scancel of the Slurm job fails the ppbench job with the reason" "$(printf '%s' "$BODY" | jq -c '{state,error,slurm}')"
    fi
else
    fail "slurm: scancel of the Slurm job fails the ppbench job" "never ran: $(printf '%s' "$BODY" | jq -c '{state,error,slurm}')"
fi

# 5. ppbench-worker health: silent and 0 when healthy; one line and 1 when not; --drain drains the node with
# ppbench's reason, which ppbench may then resume.
out=$("$WORKER" health --timeout 60 2>&1); rc=$?
if [ "$rc" = 0 ] && [ -z "$out" ]; then pass "health: a healthy node passes silently (exit 0)"
else fail "health: a healthy node passes silently (exit 0)" "exit $rc: $out"; fi
expect "health: a failed verification is exit 1 with one line" 1 '^ERROR: ppbench health: cpu0: verification failed' -- \
    env PPBENCH_TEST_FAULT=triad "$WORKER" health
expect "health: a triad below the floor is exit 1 naming both figures" 1 'ERROR: ppbench health: cpu0: stream triad [0-9.]+ GB/s \(openmp\) below the floor 1000000\.0 GB/s' -- \
    "$WORKER" health --min-gbs 1000000
expect "health: bad options are exit 2" 2 'bad or incomplete option' -- "$WORKER" health --min-gbs nope
SLURMD_NODENAME=n3 "$WORKER" health --drain --min-gbs 1000000 >/dev/null 2>&1
if [[ "$(node_state n3)" == *DRAIN* ]] && [[ "$(node_reason n3)" == "ppbench: health: cpu0: stream triad"* ]]; then
    pass "health --drain: the node is drained with ppbench's reason"
else
    fail "health --drain: the node is drained with ppbench's reason" "$(node_state n3) / $(node_reason n3)"
fi
expect_api "health --drain: ppbench may resume its own health drain" 200 - POST /api/v1/slurm/nodes/n3/resume "" "$ADMIN"

# 6. Slurm unreachable: the job stays queued with the reason, and is submitted once the controller is back.
slurm_ctld_stop
api POST $J '{"suite":"stream","model":"openmp","platform":"n2/cpu0","params":{"arraysize":65536,"numtimes":5}}' "$ADMIN"
id=$(printf '%s' "$BODY" | jq -r .id)
if wait_slurm_state "$id" UNSUBMITTED 40 &&
    printf '%s' "$BODY" | jq -e '.state == "queued" and (.slurm.reason | test("sbatch failed \\(retried\\): .*Unable to contact slurm controller"))' >/dev/null; then
    pass "slurm unreachable: the job stays queued with the reason ($(printf '%s' "$BODY" | jq -r .slurm.reason))"
else
    fail "slurm unreachable: the job stays queued with the reason" "$(printf '%s' "$BODY" | jq -c '{state,slurm}')"
fi
if slurm_ctld_start && wait_job "$id" "succeeded|failed|cancelled" 90 && [ "$(printf '%s' "$BODY" | jq -r .state)" = succeeded ] &&
    [ "$(printf '%s' "$BODY" | jq -r '.slurm.job_id // empty')" != "" ]; then
    pass "slurm unreachable: once the controller is back the job is submitted again and succeeds"
else
    fail "slurm unreachable: once the controller is back the job is submitted again and succeeds" "$(printf '%s' "$BODY" | jq -c '{state,error,slurm}')"
fi

# 7. A GPU platform's job asks for a GPU (gres); a Slurm job that fails re-queues the ppbench job while it has
# attempts left, then fails it with Slurm's state and reason. The pretend GPU (a registration, no device) makes
# the node's worker fail at once.
AS_WORKER_ID="" AS_WORKER_SECRET=""
api POST /api/v1/workers/register '{"host":"n3","pid":1,"version":"test","platform":{"id":"gpu0","kind":"gpu","name":"pretend GPU","devices":[{"model":"opencl","index":0,"name":"pretend"}]}}' "$(cat "$STATE/worker.token")"
as_worker "$BODY"
api POST "/api/v1/workers/$AS_WORKER_ID/deregister" "" "$(cat "$STATE/worker.token")"
AS_WORKER_ID="" AS_WORKER_SECRET=""
api POST $J '{"suite":"stream","model":"opencl","platform":"n3/gpu0","params":{"arraysize":65536,"numtimes":5},"max_attempts":2}' "$ADMIN"
id=$(printf '%s' "$BODY" | jq -r .id)
sj=$(slurm_job "$id")
if [[ "$(squeue -h -t all -j "$sj" -o %b 2>/dev/null)" == *gpu:1 ]]; then
    pass "slurm: a GPU platform's job asks for a GPU ($(squeue -h -t all -j "$sj" -o %b))"
else
    fail "slurm: a GPU platform's job asks for a GPU" "slurm job '$sj': $(squeue -h -t all -j "$sj" -o '%b' 2>&1)"
fi
if wait_job "$id" "failed|succeeded|cancelled" 90 &&
    printf '%s' "$BODY" | jq -e --arg sj "$sj" '.state == "failed" and .attempts == 2 and (.error | test("^slurm job [0-9]+ ended FAILED \\(reason: NonZeroExitCode\\)")) and .slurm.job_id != ($sj | tonumber)' >/dev/null; then
    pass "slurm: a failed Slurm job re-queues the job, the second fails it with Slurm's reason ($(printf '%s' "$BODY" | jq -r .error))"
else
    fail "slurm: a failed Slurm job re-queues the job, then fails it with Slurm's reason" "first slurm job $sj: $(printf '%s' "$BODY" | jq -c '{state,attempts,error,slurm}')"
fi

# 8. A sweep of a partition (what fleet health's schedules expand "every node of partition ppb" to): the nodes
# from GET /api/v1/slurm/nodes, one job per node that is up, each run on its own node through --nodelist.
api GET /api/v1/slurm/nodes
jq_true "slurm: the partition's nodes with Slurm's state and reason" "$TMP/resp" \
    '.partition == "ppb" and (.nodes | length) == 3 and (.nodes[] | select(.node == "n1") | .state == "drained" and (.reason | test("disk replacement")) and .ppbench_drain == false)'
ids=""
for n in $(jq -r '.nodes[] | select(.state == "idle" or .state == "mixed") | .node' "$TMP/resp"); do
    api POST $J "{\"suite\":\"stream\",\"model\":\"openmp\",\"platform\":\"$n/cpu0\",\"params\":{\"arraysize\":65536,\"numtimes\":5},\"tags\":[\"sweep:ppb\"]}" "$ADMIN"
    ids="$ids $(printf '%s' "$BODY" | jq -r .id)"
done
ok=0
for id in $ids; do
    wait_job "$id" "succeeded|failed|cancelled" 90 && [ "$(printf '%s' "$BODY" | jq -r .state)" = succeeded ] &&
        sj=$(printf '%s' "$BODY" | jq -r .slurm.job_id) &&
        [ "$(squeue -h -t all -j "$sj" -o %N)/cpu0" = "$(printf '%s' "$BODY" | jq -r .ran_on)" ] && ok=$((ok + 1))
done
if [ "$ok" = 2 ] && [ "$(echo $ids | wc -w)" = 2 ]; then
    pass "slurm: a sweep runs one Slurm job per node that is up (n2, n3), each on its node"
else
    fail "slurm: a sweep runs one Slurm job per node that is up" "$ok of ids '$ids' ran on their node; last: $(printf '%s' "$BODY" | jq -c '{state,error,slurm,ran_on}')"
fi
api GET "$J?tag=sweep:ppb"
jq_true "slurm: the sweep's jobs carry its tag" "$TMP/resp" '(.jobs | length) == 2'

# 9. A partition Slurm does not know: sbatch's refusal fails the job, naming it (not retried for ever).
server_stop
server_start "embedded_workers = false" "slurm_partition = nosuch" "slurm_platforms = host=n*" \
    "slurm_worker = $PWD/$WORKER" "slurm_poll_s = 1"
api POST $J '{"suite":"stream","model":"openmp","platform":"n2/cpu0","params":{"arraysize":65536,"numtimes":5}}' "$ADMIN"
id=$(printf '%s' "$BODY" | jq -r .id)
if wait_job "$id" "failed|succeeded|cancelled" 40 &&
    printf '%s' "$BODY" | jq -e '.state == "failed" and (.error | test("^slurm refused the job: .*Invalid partition"))' >/dev/null; then
    pass "slurm: an unknown partition fails the job with sbatch's reason ($(printf '%s' "$BODY" | jq -r .error))"
else
    fail "slurm: an unknown partition fails the job with sbatch's reason" "$(printf '%s' "$BODY" | jq -c '{state,error,slurm}')"
fi
expect "slurm: a bad slurm_platforms selector stops the start" 2 'slurm_platforms: "kind=tpu" is not all' -- \
    "$SERVER" --config <(printf 'slurm_partition = x\nslurm_platforms = kind=tpu\n') routes
