# A new job wakes a waiting worker's long poll at once: the job's insert notifies the channel the notifier
# listens to (jobs_record_event, schema/functions/documents.sql), not only the notifier's one-second tick. A standalone
# `ppbench-worker serve` on cpu0 (no supervised workers), five tiny jobs one after another, each claimed within
# 400 ms of its submission (with the tick alone, claims came after 0.15 to 1 s).
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../lib/server.sh"
[ -x "$SERVER" ] && [ -x "$WORKER" ] || { skip "claim wake" "ppbenchd or ppbench-worker not built"; exit 0; }
server_start "embedded_workers = false"
PPBENCH_WORKER_TOKEN=$WORKER_TOKEN "$WORKER" serve --server "$URL" --platform cpu0 >"$TMP/worker.log" 2>&1 &
WPID=$!
trap 'kill $WPID 2>/dev/null; wait $WPID 2>/dev/null; server_cleanup' EXIT
wait_cpu_worker || { fail "claim wake: the worker serves cpu0" "$(tail -n 3 "$TMP/worker.log" | tr '\n' ' ')"; exit 0; }
# in_poll JOB: the worker's idle heartbeat after JOB came, which it sends just before its next long poll
in_poll() { [ "$(psql_q "SELECT w.last_heartbeat > j.finished_at FROM jobs j JOIN workers w ON w.id = j.worker_id WHERE j.id = $1")" = t ]; }
lat="" id=""
for _ in 1 2 3 4 5; do
    [ -z "$id" ] || wait_for 10 in_poll "$id"
    api POST /api/v1/jobs "{\"suite\":\"stream\",\"model\":\"openmp\",\"platform\":\"$CPU\",\"kernels\":[\"copy\"],\"params\":{\"arraysize\":1000,\"numtimes\":5}}" "$ADMIN"
    id=$(printf '%s' "$BODY" | jq -r .id)
    wait_job "$id" "succeeded|failed|cancelled" 30 >/dev/null
    lat="$lat $(psql_q "SELECT coalesce(round(extract(epoch FROM claimed_at - created_at) * 1000), 99999) FROM jobs WHERE id = $id")"
done
if [ -n "$(echo $lat | awk '{ for (i = 1; i <= NF; i++) if ($i >= 400) bad = 1 } END { if (NF == 5 && !bad) print 1 }')" ]; then
    pass "a new job wakes the waiting worker at once (claimed after$lat ms)"
else
    fail "a new job wakes the waiting worker at once" "claimed after$lat ms"
fi
