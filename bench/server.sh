#!/usr/bin/env bash
# ppbenchd on this machine with wrk (loopback only, bounded runs): GET /api/v1/jobs/{id} and POST /api/v1/jobs
# throughput, submission-to-kernel-start latency on an idle worker, and ppbenchd's memory over 100,000+
# requests. Uses the embedded default in a temporary state directory.
#   bench/server.sh [SECONDS per wrk run, default 10]
set -eu
cd "$(dirname "$0")/.."
SECS=${1:-10}
B=${BUILD:-build}
. bench/lib.sh
rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {print $2/1e6 " GB"}' /proc/meminfo); $(date -u +%Y-%m-%dT%H:%MZ); ppbench $(git describe --always --dirty)"

# 1. Throughput, with no worker (the submitted jobs stay queued).
server_start "embedded_workers = false" "threads = 8"
WT=$("$B/bin/ppbenchd" token create --role worker --state-dir "$T/state")
plat=$("$B/bin/ppbench-worker" list --json | jq -c '.platforms[] | select(.id == "cpu0")')
curl -sf -H "Authorization: Bearer $WT" -H 'Content-Type: application/json' \
    -d "{\"host\":\"bench\",\"pid\":1,\"platform\":$plat}" "$URL/api/v1/workers/register" >/dev/null
job='{"suite":"stream","model":"openmp","platform":"bench/cpu0","params":{"arraysize":1000,"numtimes":3}}'
id=$(curl -sf -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' -d "$job" "$URL/api/v1/jobs" | jq .id)
cat >"$T/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '$job'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $ADMIN"
LUA
rss0=$(rss)
echo "== GET /api/v1/jobs/$id: wrk -t2 -c32 -d${SECS}s"
wrk -t2 -c32 -d"${SECS}s" --latency "$URL/api/v1/jobs/$id" | grep -E 'Requests/sec|Latency|50%|99%|requests in|Non-2xx'
rss1=$(rss)
echo "== POST /api/v1/jobs: wrk -t2 -c16 -d${SECS}s"
wrk -t2 -c16 -d"${SECS}s" --latency -s "$T/post.lua" "$URL/api/v1/jobs" | grep -E 'Requests/sec|Latency|50%|99%|requests in|Non-2xx'
rss2=$(rss)
echo "== GET again (memory after): wrk -t2 -c32 -d${SECS}s"
wrk -t2 -c32 -d"${SECS}s" "$URL/api/v1/jobs/$id" | grep -E 'Requests/sec|requests in'
rss3=$(rss)
echo "ppbenchd RSS (kB): start $rss0, after GET run $rss1, after POST run $rss2, after second GET run $rss3"
kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=""; rm -rf "$T/state"

# 2. Submission to kernel start on an idle worker (the embedded default's supervised worker). The kernel start
# is the first progress event, posted by the job's process after its first timed iteration (tiny problem).
server_start "embedded_workers = true"
for _ in $(seq 100); do
    curl -sf "$URL/api/v1/platforms" | jq -e '.platforms[] | select(.local_id == "cpu0" and .worker.state == "idle")' >/dev/null && break
    sleep 0.2
done
cpu=$(curl -sf "$URL/api/v1/platforms" | jq -r '.platforms[] | select(.local_id == "cpu0") | .id')
N=30
for i in $(seq $N); do
    id=$(curl -sf -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
        -d "{\"suite\":\"stream\",\"model\":\"openmp\",\"platform\":\"$cpu\",\"kernels\":[\"copy\"],\"params\":{\"arraysize\":1000,\"numtimes\":50}}" \
        "$URL/api/v1/jobs" | jq .id)
    for _ in $(seq 200); do
        s=$(curl -sf "$URL/api/v1/jobs/$id" | jq -r .state)
        [ "$s" = succeeded ] || [ "$s" = failed ] && break
        sleep 0.05
    done
done
psql -qAt "host=$T/state/pg/run dbname=ppbench user=ppbench" -c "
  WITH l AS (SELECT j.id, extract(epoch FROM j.claimed_at - j.created_at) * 1000 AS claim_ms,
        extract(epoch FROM (SELECT min(at) FROM job_events e WHERE e.job_id = j.id AND e.kind = 'progress') - j.created_at) * 1000 AS start_ms
        FROM jobs j WHERE j.state = 'succeeded')
  SELECT format('submission to claim: median %s ms, max %s ms; submission to kernel start (first progress): median %s ms, p90 %s ms, max %s ms (n=%s)',
    round(percentile_cont(0.5) WITHIN GROUP (ORDER BY claim_ms)::numeric, 1), round(max(claim_ms)::numeric, 1),
    round(percentile_cont(0.5) WITHIN GROUP (ORDER BY start_ms)::numeric, 1),
    round(percentile_cont(0.9) WITHIN GROUP (ORDER BY start_ms)::numeric, 1), round(max(start_ms)::numeric, 1), count(*)) FROM l"
