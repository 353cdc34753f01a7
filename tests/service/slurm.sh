#!/bin/bash
# Slurm (issue 17): a real cluster from Debian's packages (tests/lib/slurm.sh: munged, slurmctld, three
# slurmd node names on loopback) and ppbenchd's Slurm executor against it. Skipped, saying why, where Slurm
# cannot start.
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../lib/server.sh"
. "$(dirname "$0")/../lib/slurm.sh"
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
server_db # the worker token, for the workers of the Slurm jobs
printf '%s\n' "$WORKER_TOKEN" >"$TMP/worker.token"
server_start "embedded_workers = false" "lease_s = 4" "heartbeat_s = 1" "slurm_partition = ppb" \
    "slurm_platforms = host=n*" "slurm_worker = $PWD/$WORKER" "slurm_token_file = $TMP/worker.token" \
    "slurm_output = $TMP/slurm/out/%j.out" "slurm_poll_s = 1" "slurm_time_margin_s = 60" \
    "slurm_export = NONE" "slurm_nodes_s = 1" "noise_best_percent = 100000" "noise_mean_percent = 100000" "baseline_min_results = 3"
J=/api/v1/jobs

# Discovery: before any run, each node of the partition is a platform, its kind from its gres (gpu:1), with
# Slurm's state.
nodes_listed() {
    api GET /api/v1/platforms
    [ "$(printf '%s' "$BODY" | jq '[.platforms[] | select(.id | test("^n[1-3]/gpu0$"))] | length')" = 3 ]
}
wait_for 10 nodes_listed
jq_true "slurm: each node of the partition is a gpu platform from its gres before any run, with Slurm's state" "$TMP/resp" \
    '[.platforms[] | select(.id | test("^n[1-3]/gpu0$")) | select(.kind == "gpu" and .name == "unknown gpu (Slurm node, gres gpu:1)" and .slurm.state == "idle" and .slurm.partition == "ppb" and (.models | index("cuda")))] | length == 3'
api GET /api/v1/health
jq_true "slurm: the Health page has them, never measured (not a stale worker), with Slurm's state" "$TMP/resp" \
    '[.platforms[] | select(.id | test("^n[1-3]/gpu0$")) | select(.state == "never_measured" and .slurm.state == "idle")] | length == 3'

# The nodes' platforms, as a first run on each registers them (the worker names its host after
# SLURMD_NODENAME, the Slurm node it runs on).
for n in $SLURM_NODES; do
    SLURMD_NODENAME=$n PPBENCH_WORKER_TOKEN=$WORKER_TOKEN \
        "$WORKER" serve --once --server "$URL" --platform cpu0 >>"$TMP/register.log" 2>&1
done
api GET /api/v1/platforms
if [ "$(printf '%s' "$BODY" | jq '[.platforms[].id] | map(select(test("^n[1-3]/cpu0$"))) | length')" = 3 ]; then
    pass "slurm: serve --once registers the node's platform under its Slurm node name"
else
    fail "slurm: serve --once registers the node's platform under its Slurm node name" "$(tail -n 3 "$TMP/register.log")"
fi

# slurm_job ID: the Slurm job id of ppbench job ID, once it has one (empty after 30 s).
has_slurm_job() {
    api GET "$J/$1"
    [ -n "$(printf '%s' "$BODY" | jq -r '.slurm.job_id // empty')" ]
}
slurm_job() { wait_for 30 has_slurm_job "$1" && printf '%s' "$BODY" | jq -r '.slurm.job_id'; }
# wait_slurm_state ID REGEX SECONDS: until the ppbench job shows that Slurm state.
in_slurm_state() {
    api GET "$J/$1"
    [[ "$(printf '%s' "$BODY" | jq -r '.slurm.state // empty')" =~ ^($2)$ ]]
}
wait_slurm_state() { wait_for "$3" in_slurm_state "$1" "$2"; }

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

# 1b. A job's own partition and gres are checked against Slurm's at submission: unknown ones are 422 naming
# the field and the value; a known partition is where the Slurm job runs.
expect_api "slurm: an unknown partition is refused at submission" 422 unknown_partition POST $J \
    '{"suite":"stream","model":"openmp","platform":"n3/cpu0","params":{"arraysize":65536,"numtimes":5},"slurm":{"partition":"nosuch"}}' "$ADMIN"
jq_true "slurm: ... naming the field and the partition" "$TMP/resp" '.error.field == "slurm.partition" and (.error.message | test("nosuch"))'
expect_api "slurm: an unknown gres type is refused at submission" 422 unknown_gres POST $J \
    '{"suite":"stream","model":"openmp","platform":"n3/cpu0","params":{"arraysize":65536,"numtimes":5},"slurm":{"gres":"gpu:a100:1"}}' "$ADMIN"
jq_true "slurm: ... naming the field and the gres" "$TMP/resp" '.error.field == "slurm.gres" and (.error.message | test("gpu:a100:1"))'
expect_api "slurm: a gres no node has is refused" 422 unknown_gres POST $J \
    '{"suite":"stream","model":"openmp","platform":"n3/cpu0","params":{"arraysize":65536,"numtimes":5},"slurm":{"partition":"alt","gres":"fpga:1"}}' "$ADMIN"
expect_api "slurm: a bad partition name is a wrong type" 422 wrong_type POST $J \
    '{"suite":"stream","model":"openmp","platform":"n3/cpu0","params":{"arraysize":65536,"numtimes":5},"slurm":{"partition":"a b"}}' "$ADMIN"
api POST $J '{"suite":"stream","model":"openmp","platform":"n3/cpu0","params":{"arraysize":65536,"numtimes":5},"slurm":{"partition":"alt","gres":"gpu:1"}}' "$ADMIN"
id=$(printf '%s' "$BODY" | jq -r .id)
sj=$(slurm_job "$id")
if wait_job "$id" "succeeded|failed|cancelled" 90 && [ "$(printf '%s' "$BODY" | jq -r .state)" = succeeded ] &&
    [ "$(squeue -h -t all -j "$sj" -o '%P %b' 2>/dev/null)" = "alt gres:gpu:1" ] &&
    printf '%s' "$BODY" | jq -e '.slurm.partition == "alt" and .slurm.gres == "gpu:1"' >/dev/null; then
    pass "slurm: a job naming partition alt and gres gpu:1 runs there ($(squeue -h -t all -j "$sj" -o '%P %b'))"
else
    fail "slurm: a job naming its partition and gres runs there" "slurm job '$sj': $(squeue -h -t all -j "$sj" -o '%P %b' 2>&1) $(printf '%s' "$BODY" | jq -c '{state,error,slurm}')"
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
expect_api "slurm: draining over someone else's drain is refused (409)" 409 not_our_drain POST /api/v1/slurm/nodes/n1/drain \
    '{"reason":"x"}' "$ADMIN"
if [[ "$(node_reason n1)" == "disk replacement, ticket 4711"* ]]; then pass "slurm: the other drain's reason is not overwritten"
else fail "slurm: the other drain's reason is not overwritten" "$(node_reason n1)"; fi
# The Fleet and Health pages' state of n1 comes from Slurm (refreshed every slurm_nodes_s = 1 s).
n1_unavailable() {
    api GET /api/v1/health
    printf '%s' "$BODY" | jq -e '.platforms[] | select(.id == "n1/cpu0") | .state == "unavailable"' >/dev/null
}
wait_for 5 n1_unavailable
jq_true "slurm: Health says n1's platforms are unavailable, with Slurm's state and reason" "$TMP/resp" \
    '[.platforms[] | select(.host == "n1")] | length == 2 and all(.state == "unavailable" and .slurm.state == "drained" and (.reason | test("^slurm node n1 is drained: disk replacement")))'
# (n3, resumed just before, may still be drained in the executor's last sinfo: count what the list says)
jq_true "slurm: Health counts them" "$TMP/resp" \
    '.counts.unavailable >= 2 and .counts.unavailable == ([.platforms[] | select(.state == "unavailable")] | length)'
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
expect "health: a failed verification is exit 1 with one line" 1 '^ERROR: ppbench health: cpu0: stream triad: verification failed' -- \
    env PPBENCH_TEST_FAULT=triad "$WORKER" health
expect "health: a triad below the floor is exit 1 naming both figures" 1 'ERROR: ppbench health: cpu0: stream triad [0-9.]+ GB/s \(openmp\) below the floor 1000000\.0 GB/s' -- \
    "$WORKER" health --min-gbs 1000000
expect "health: a Dslash below its floor is exit 1 naming both figures" 1 'ERROR: ppbench health: cpu0: wilson dslash [0-9.]+ GB/s \(openmp\) below the floor 100000\.0 GB/s' -- \
    "$WORKER" health --floor stream.triad=0.001 --floor wilson.dslash=100000
t0=$(date +%s.%N)
out=$("$WORKER" health --verbose 2>&1)
t1=$(date +%s.%N)
if printf '%s' "$out" | grep -q 'stream triad verified' && printf '%s' "$out" | grep -q 'wilson dslash verified' &&
    awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 20) }'; then
    pass "health: a verified STREAM and a verified Dslash per device in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
else
    fail "health: a verified STREAM and a verified Dslash per device, in seconds" "$out"
fi
expect "health: bad options are exit 2" 2 'bad or incomplete option' -- "$WORKER" health --min-gbs nope
expect "health: a floor of an unknown check is exit 2" 2 'bad or incomplete option' -- "$WORKER" health --floor stream.dot=1
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
# failures below max_attempts (each ended Slurm job is one), then fails it with Slurm's state and reason. The
# pretend GPU (a registration, no device) makes the node's worker fail at once.
AS_WORKER_ID="" AS_WORKER_SECRET=""
api POST /api/v1/workers/register '{"host":"n3","pid":1,"version":"test","platform":{"id":"gpu0","kind":"gpu","name":"pretend GPU","devices":[{"model":"opencl","index":0,"name":"pretend"}]}}' "$WORKER_TOKEN"
as_worker "$BODY"
api GET /api/v1/platforms
jq_true "slurm: the first run on a discovered node fills in its device" "$TMP/resp" \
    '.platforms[] | select(.id == "n3/gpu0") | .name == "pretend GPU" and .models == ["opencl"] and .slurm.node == "n3"'
api POST "/api/v1/workers/$AS_WORKER_ID/deregister" "" "$WORKER_TOKEN"
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
    printf '%s' "$BODY" | jq -e --arg sj "$sj" '.state == "failed" and .failures == 2 and (.error | test("^slurm job [0-9]+ ended FAILED \\(reason: NonZeroExitCode\\)")) and .slurm.job_id != ($sj | tonumber)' >/dev/null; then
    pass "slurm: a failed Slurm job re-queues the job, the second fails it with Slurm's reason ($(printf '%s' "$BODY" | jq -r .error))"
else
    fail "slurm: a failed Slurm job re-queues the job, then fails it with Slurm's reason" "first slurm job $sj: $(printf '%s' "$BODY" | jq -c '{state,attempts,failures,error,slurm}')"
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

# 9. Health events drain and resume the node (schema/functions/slurm.sql, server/slurm/fleet.c). A planted
# regression: three copies of a real triad of n2 at 10x its figure make its baseline; the next real run is a
# suspect, its automatic repeat (a Slurm job on n2 too) confirms it, and the node is drained with ppbench's
# reason. Arrays beyond the node's L3 (the jobs run in Slurm's environment, slurm_export = NONE, so the worker
# reads the cache from sysfs, not check.sh's PPBENCH_LLC_BYTES_CPU0): triad's three arrays at least twice the L3,
# 96 MB at least; the noise bound lifted: the results are judged, not flagged.
llc=$(awk '/K$/ { print $1 * 1024 } /M$/ { print $1 * 1048576 }' /sys/devices/system/cpu/cpu0/cache/index3/size 2>/dev/null)
big=$(awk -v l="${llc:-0}" 'BEGIN { n = int(2 * l / 24) + 1; if (n < 4194304) n = 4194304; print n }')
BIG="{\"suite\":\"stream\",\"model\":\"openmp\",\"platform\":\"n2/cpu0\",\"kernels\":[\"triad\"],\"params\":{\"arraysize\":$big,\"numtimes\":5},\"timeout_s\":120}"
api POST $J "$BIG" "$ADMIN"
id=$(printf '%s' "$BODY" | jq -r .id)
wait_job "$id" "succeeded|failed|cancelled" 90
rid=$(psql_q "SELECT id FROM results WHERE job_id = $id AND kernel = 'triad' AND verified AND flags = '{}'")
PLANTED=$(psql_q "INSERT INTO results (platform_id, suite, kernel, model, variant, precision, size, bytes, flops, times_s,
    min_s, max_s, mean_s, median_s, stddev_s, bandwidth, gflops, verified, provenance, flags)
    SELECT platform_id, suite, kernel, model, variant, precision, size, bytes, flops, times_s, min_s / 10, max_s / 10,
        mean_s / 10, median_s / 10, stddev_s / 10, bandwidth * 10, gflops * 10, verified, provenance, flags
    FROM results, generate_series(1, 3) WHERE id = ${rid:-0} RETURNING id" | tr '\n' ',' | sed 's/,$//')
api POST $J "$BIG" "$ADMIN"
id=$(printf '%s' "$BODY" | jq -r .id)
wait_job "$id" "succeeded|failed|cancelled" 90
drained=""
n2_drained() { [[ "$(node_state n2)" == *DRAIN* ]]; }
wait_for 90 n2_drained && drained=1
rep=$(psql_q "SELECT id || ' ' || state FROM jobs WHERE tags @> ARRAY['repeat:$id']")
REASON=$(sinfo -R -h -n n2 -o '%E')
if [ -n "$drained" ] && [[ "$REASON" =~ ^ppbench:\ stream\.triad\ openmp\ fp64\ size\ $big\ [0-9.]+\ GB/s\ below\ baseline\ [0-9.]+\ GB/s$ ]] &&
    [[ "$rep" == *succeeded ]]; then
    pass "slurm: a regression confirmed by its repeat (job $rep) drains n2; sinfo -R: $REASON"
else
    fail "slurm: a confirmed regression drains the node with ppbench's reason" "planted '$PLANTED' from '$rid'; repeat '$rep'; n2 $(node_state n2): '$REASON'; health $(psql_q "SELECT state || ' ' || coalesce(reason, '') FROM platform_health WHERE platform_id = 'n2/cpu0'")"
fi
fleet_n2_drained() {
    api GET /api/v1/platforms
    printf '%s' "$BODY" | jq -e '.platforms[] | select(.id == "n2/cpu0") | .slurm.state == "drained"' >/dev/null
}
wait_for 5 fleet_n2_drained
jq_true "slurm: the Fleet's platform shows the node drained by ppbench" "$TMP/resp" \
    '.platforms[] | select(.id == "n2/cpu0") | .slurm.state == "drained" and .slurm.ppbench_drain == true'
api GET /api/v1/health
jq_true "slurm: Health: n2/cpu0 is regressed (the judged state comes first), its node drained" "$TMP/resp" \
    '.platforms[] | select(.id == "n2/cpu0") | .state == "regressed" and .slurm.state == "drained"'

# The repair (the planted baseline goes), then a passing run: the job waits in Slurm (the node is drained),
# the operator runs it on the node by hand, it passes, and ppbench resumes its own drain.
psql_q "DELETE FROM results WHERE id IN (${PLANTED:-0})" >/dev/null
api POST $J "$BIG" "$ADMIN"
id=$(printf '%s' "$BODY" | jq -r .id)
wait_slurm_state "$id" PENDING 20
# The node's own environment, as Slurm gives it (slurm_export = NONE): check.sh's PPBENCH_LLC_BYTES_CPU0=0 would
# make the openmp stream store through the caches, another variant than the jobs Slurm ran, and its
# PPBENCH_SMBIOS_ROOT would register the node without the CPU peak those jobs found.
env -u PPBENCH_LLC_BYTES_CPU0 -u PPBENCH_SMBIOS_ROOT SLURMD_NODENAME=n2 PPBENCH_WORKER_TOKEN=$WORKER_TOKEN \
    "$WORKER" serve --once --job "$id" --server "$URL" --platform cpu0 >>"$TMP/byhand.log" 2>&1
resumed=""
n2_resumed() { ! n2_drained; }
wait_for 30 n2_resumed && resumed=1
if [ -n "$resumed" ] && [ "$(psql_q "SELECT state FROM platform_health WHERE platform_id = 'n2/cpu0'")" = ok ]; then
    pass "slurm: a passing run resumes ppbench's own drain ($(node_state n2))"
else
    fail "slurm: a passing run resumes ppbench's own drain" "n2 $(node_state n2) $(node_reason n2); health $(psql_q "SELECT state || ' ' || coalesce(reason, '') FROM platform_health WHERE platform_id = 'n2/cpu0'"); $(tail -n 3 "$TMP/byhand.log")"
fi
# Someone else's drain (n1, "disk replacement"): a raised event neither overwrites it, a recovery never lifts it.
psql_q "SELECT health_alert('raised', 'n1/cpu0', 'regressed', 'planted', NULL, 'p');
        SELECT health_alert('recovered', 'n1/cpu0', 'ok', 'planted', NULL, 'p')" >/dev/null
n1_events_done() { [ "$(psql_q "SELECT count(*) FROM alerts WHERE platform_id = 'n1/cpu0' AND NOT slurm_done")" = 0 ]; }
wait_for 10 n1_events_done
wait_for 5 grep -q "platform=n1/cpu0 slurm: node n1 left alone, drained by someone else" "$SERVER_LOG"
if [[ "$(node_state n1)" == *DRAIN* ]] && [[ "$(node_reason n1)" == "disk replacement, ticket 4711"* ]] &&
    grep -q "platform=n1/cpu0 slurm: node n1 left alone, drained by someone else" "$SERVER_LOG"; then
    pass "slurm: health events never touch a drain someone else set (n1 stays drained, its reason kept)"
else
    fail "slurm: health events never touch a drain someone else set" "n1 $(node_state n1) $(node_reason n1)"
fi

# 10. A partition Slurm does not know (ppbenchd's own slurm_partition): refused at submission, naming it.
server_stop
server_start "embedded_workers = false" "slurm_partition = nosuch" "slurm_platforms = host=n*" \
    "slurm_worker = $PWD/$WORKER" "slurm_poll_s = 1"
expect_api "slurm: a job for a partition Slurm does not know is refused (422)" 422 unknown_partition POST $J \
    '{"suite":"stream","model":"openmp","platform":"n2/cpu0","params":{"arraysize":65536,"numtimes":5}}' "$ADMIN"
expect "slurm: a bad slurm_platforms selector stops the start" 2 'slurm_platforms: "kind=tpu" is not all' -- \
    "$SERVER" --config <(printf 'slurm_partition = x\nslurm_platforms = kind=tpu\n') routes
