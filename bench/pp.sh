#!/usr/bin/env bash
# The API and the dashboard with 1,000,000 result rows: a temporary ppbenchd (embedded PostgreSQL, no workers),
# 24 platforms, 100,000 jobs and 1,000,000 results generated with generate_series straight into its database
# (6 kernels, 2 precisions, 4 sizes with 2^25 the most common, 5 models with 2 variants, 100 times per row, 2 %
# failed, 90 days), then N calls of every read route (and a submission) with curl: median and p95 of the total
# time; then every page of the dashboard in headless Chromium (bench/pages.mjs).
# The results are stored as an import of history is: with the judging trigger (results_judge_rows, issue 16)
# disabled for that one statement, so they carry no verdicts or baselines; every other trigger (problem keys,
# flags, the PP size and key counts) runs as for any insert. Judged one by one, a million rows take hours here.
#   bench/pp.sh [ROWS, default 1000000] [N calls per request, default 20]
# KEEP=1: after the data, print the server's URL and database and keep them until interrupted (to time a
# change against the same rows), instead of the calls.
set -eu
cd "$(dirname "$0")/.."
ROWS=${1:-1000000}
N=${2:-20}
B=${BUILD:-build}
. bench/lib.sh
server_start "embedded_workers = false"
sql() { psql -qAtX -v ON_ERROR_STOP=1 "host=$T/state/pg/run dbname=ppbench user=ppbench" -c "$1"; }

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1e6}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%Y-%m-%dT%H:%MZ); ppbench $(git describe --always --dirty); $(sql 'SHOW server_version')"

t0=$(date +%s.%N)
sql "INSERT INTO platforms (id, kind, name, peak_bandwidth, peak_source, models)
     SELECT format('bench-%s', lpad(i::text, 2, '0')), CASE WHEN i % 3 = 0 THEN 'cpu' ELSE 'gpu' END,
            format('bench device %s', i), CASE WHEN i % 5 = 4 THEN NULL ELSE (200 + 150 * i) * 1e9 END,
            CASE WHEN i % 5 = 4 THEN 'unknown' ELSE 'operator: bench' END, ARRAY['openmp', 'opencl', 'cuda']
     FROM generate_series(0, 23) i"
sql "INSERT INTO jobs (state, suite, kernels, model, platform_id, params, tags, attempts, error, created_at,
                       started_at, finished_at, progress)
     SELECT st, 'stream', ARRAY['copy', 'mul', 'add', 'triad', 'dot', 'nstream'],
            (ARRAY['openmp', 'opencl', 'cuda'])[1 + i % 3], format('bench-%s', lpad((i % 24)::text, 2, '0')),
            jsonb_build_object('arraysize', 33554432, 'numtimes', 100, 'precision', 'fp64'),
            ARRAY[format('nightly-%s', i % 30)], CASE WHEN st = 'queued' THEN 0 ELSE 1 END,
            CASE WHEN st = 'failed' THEN 'triad: a[3] = 0.5, expected 0.1' END, t, t + interval '1 second',
            CASE WHEN st <> 'queued' THEN t + interval '20 seconds' END, CASE WHEN st = 'succeeded' THEN 1 ELSE 0 END
     FROM (SELECT i, now() - (100000 - i) * interval '77 seconds' AS t,
                  CASE WHEN i > 99950 THEN 'queued' WHEN i % 50 = 7 THEN 'failed' WHEN i % 97 = 3 THEN 'cancelled'
                       ELSE 'succeeded' END AS st
           FROM generate_series(1, 100000) i) g"
sql "ALTER TABLE results DISABLE TRIGGER results_judge_rows"
sql "INSERT INTO results (job_id, platform_id, suite, kernel, model, variant, precision, size, bytes, flops, times_s,
                          min_s, max_s, mean_s, median_s, stddev_s, bandwidth, gflops, verified, error, provenance,
                          created_at)
     SELECT (i - 1) % 99984 + 1, p, 'stream', k, m, v, prec, n, bytes, fl * n,
            ARRAY(SELECT t * (1 + ((i * 31 + j) % 17) / 100.0) FROM generate_series(1, 100) j),
            t, t * 1.17, t * 1.05, t * 1.04, t * 0.03, bw, fl * n / t * 1e-9, ok,
            CASE WHEN ok THEN NULL ELSE 'triad: a[3] = 0.5, expected 0.1' END,
            jsonb_build_object('ppbench.version', 'bench', 'compiler', 'gcc 12.2.0', 'host', 'bench-host',
                               'device', jsonb_build_object('name', 'bench device', 'uuid', md5(p)),
                               'env', jsonb_build_object('OMP_NUM_THREADS', '16', 'OMP_PROC_BIND', 'spread')),
            now() - (i % 7776000) * interval '1 second'
     FROM (SELECT *, bytes / bw AS t FROM
           (SELECT i, p, k, m, v, prec, n, fl, ok, bw, w * eb * n AS bytes FROM
            (SELECT i, format('bench-%s', lpad((i % 24)::text, 2, '0')) AS p,
                    (ARRAY['copy', 'mul', 'add', 'triad', 'dot', 'nstream'])[1 + (i / 24) % 6] AS k,
                    (ARRAY[2, 2, 3, 3, 2, 4])[1 + (i / 24) % 6] AS w, (ARRAY[0, 1, 1, 2, 2, 3])[1 + (i / 24) % 6] AS fl,
                    (ARRAY['openmp', 'opencl', 'cuda', 'kokkos', 'sycl'])[1 + (i / 144) % 5] AS m,
                    (ARRAY['vec16', 'scalar'])[1 + (i / 720) % 2] AS v,
                    CASE WHEN (i / 1440) % 3 = 0 THEN 'fp32' ELSE 'fp64' END AS prec,
                    CASE WHEN (i / 1440) % 3 = 0 THEN 4 ELSE 8 END AS eb,
                    (ARRAY[1048576, 4194304, 33554432, 33554432, 33554432, 268435456]::bigint[])[1 + (i / 4320) % 6] AS n,
                    (i % 50) <> 7 AS ok, 1e11 * (1 + (i % 29)) AS bw
             FROM generate_series(1, $ROWS) i) a) b) g"
sql "ALTER TABLE results ENABLE TRIGGER results_judge_rows"
sql "VACUUM ANALYZE results" 2>/dev/null
sql "VACUUM ANALYZE jobs" 2>/dev/null
sql "VACUUM ANALYZE platforms" 2>/dev/null
t1=$(date +%s.%N)
echo "data: $(sql 'SELECT count(*) FROM jobs') jobs, $(sql 'SELECT count(*) FROM results') results ($(sql 'SELECT count(*) FROM results WHERE verified') verified), $(sql 'SELECT count(*) FROM platforms') platforms, table $(sql "SELECT pg_size_pretty(pg_total_relation_size('results'))") with indexes; generated in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s"
echo "stream.triad fp64 at 2^25: $(sql "SELECT count(*) FROM results WHERE verified AND kernel = 'triad' AND precision = 'fp64' AND size = 33554432") verified rows"
if [ -n "${KEEP:-}" ]; then
    echo "kept: $URL, database host=$T/state/pg/run dbname=ppbench user=ppbench, admin token $ADMIN"
    while kill -0 "$pid" 2>/dev/null; do sleep 5; done
    exit 0
fi

# measure NAME PATH: N calls after 2 warm-ups; prints median, p95 (nearest rank), max and the body size.
measure() {
    local name=$1 path=$2 code
    for _ in 1 2; do curl -s -o /dev/null "$URL$path"; done
    code=$(curl -s -o "$T/body" -w '%{http_code}' "$URL$path")
    for _ in $(seq "$N"); do curl -s -o /dev/null -w '%{time_total}\n' "$URL$path"; done | sort -n >"$T/times"
    awk -v n="$N" -v name="$name" -v code="$code" -v bytes="$(wc -c <"$T/body")" '{ t[NR] = $1 * 1000 }
        END { p95 = int(0.95 * n + 0.999); printf "%-58s %s  median %6.1f ms  p95 %6.1f ms  max %6.1f ms  (%d calls, %d bytes)\n",
              name, code, t[int((n + 1) / 2)], t[p95], t[n], n, bytes }' "$T/times"
}
P5=bench-00,bench-01,bench-02,bench-03,bench-05
RID=$(sql "SELECT max(id) FROM results WHERE platform_id = 'bench-07'")
JID=$(sql "SELECT max(id) FROM jobs WHERE state = 'succeeded'")
echo "load average before the calls: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== Results (the Results, Platform, Scaling and Compare pages' calls)"
measure "results suite=stream kernel=triad limit=100" "/api/v1/results?suite=stream&kernel=triad&limit=100"
measure "results suite=stream kernel=triad limit=1000 (Results page)" "/api/v1/results?suite=stream&kernel=triad&limit=1000"
measure "results limit=1000 (Results page, no filter)" "/api/v1/results?limit=1000"
measure "results kernel=triad platform=bench-07 model=sycl limit=100" "/api/v1/results?kernel=triad&platform=bench-07&model=sycl&limit=100"
measure "results platform=bench-07 suite=stream kernel=copy limit=1000 (Platform)" "/api/v1/results?platform=bench-07&suite=stream&kernel=copy&limit=1000"
measure "results platform=bench-07 suite=stream limit=2000 (whole)" "/api/v1/results?platform=bench-07&suite=stream&limit=2000"
measure "results ... limit=2000 view=summary (Scaling)" "/api/v1/results?platform=bench-07&suite=stream&limit=2000&view=summary"
measure "results precision=fp32 variant=scalar size=2^20 limit=100" "/api/v1/results?precision=fp32&variant=scalar&size=1048576&limit=100"
measure "results tag=nightly-7 limit=1000" "/api/v1/results?tag=nightly-7&limit=1000"
measure "results job=J (Compare by job)" "/api/v1/results?job=$JID&limit=1000"
measure "results cursor: the 100th page of 100" "/api/v1/results?limit=100&cursor=$(sql 'SELECT id FROM results ORDER BY id DESC OFFSET 9900 LIMIT 1')"
measure "results format=csv limit=1000" "/api/v1/results?format=csv&limit=1000"
measure "results format=babelstream kernel=triad limit=1000" "/api/v1/results?format=babelstream&kernel=triad&limit=1000"
measure "results/{id} (Result page)" "/api/v1/results/$RID"
echo "== Portability"
measure "pp problem=stream.triad (default size, all 24 platforms)" "/api/v1/pp?problem=stream.triad"
measure "pp problem=stream.triad efficiency=arch, 5 platforms" "/api/v1/pp?problem=stream.triad&efficiency=arch&platforms=$P5"
measure "pp problem=stream.dot fp32 size=2^28 fixed variant" "/api/v1/pp?problem=stream.dot&precision=fp32&size=268435456&variant_policy=fixed&variant=vec16"
measure "pp/policies problem=stream.triad" "/api/v1/pp/policies?problem=stream.triad"
measure "results format=p3 kernel=triad (the P3 export)" "/api/v1/results?kernel=triad&format=p3"
measure "results format=p3 p3_rows=variant kernel=triad" "/api/v1/results?kernel=triad&format=p3&p3_rows=variant"
echo "== Jobs and the fleet"
measure "jobs limit=100 (Jobs page)" "/api/v1/jobs?limit=100"
measure "jobs state=failed limit=100" "/api/v1/jobs?state=failed&limit=100"
measure "jobs state=queued limit=1000 (Fleet)" "/api/v1/jobs?state=queued&limit=1000"
measure "jobs state=running limit=1000 (Fleet)" "/api/v1/jobs?state=running&limit=1000"
measure "jobs platform=bench-07 tag=nightly-7 limit=100" "/api/v1/jobs?platform=bench-07&tag=nightly-7&limit=100"
measure "jobs/{id} (Job page, with its results)" "/api/v1/jobs/$JID"
measure "jobs/{id}/events (a finished job's stream)" "/api/v1/jobs/$JID/events"
measure "platforms (with result counts)" "/api/v1/platforms"
measure "hosts" "/api/v1/hosts"
measure "workers" "/api/v1/workers"
measure "suites" "/api/v1/suites"
measure "health" "/api/v1/health"
measure "baselines platform=bench-07" "/api/v1/baselines?platform=bench-07"
measure "health/floors" "/api/v1/health/floors"
measure "schedules" "/api/v1/schedules"
measure "metrics" "/metrics"
measure "openapi.json" "/api/v1/openapi.json"
measure "readyz" "/readyz"
# A write: a submission (to a platform no worker serves, so it stays queued), then its cancellation.
# JOIN: an awk function, join(c): "202 x20 " from an array of counts by status.
JOIN='function join(a, s, k) { s = ""; for (k in a) s = s k " x" a[k] " "; return s }'
submits() {
    : >"$T/subids"
    for _ in $(seq "$N"); do
        curl -s -o "$T/sub" -w '%{time_total} %{http_code}\n' -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
            --data '{"suite":"stream","model":"openmp","platform":"bench-00","params":{"arraysize":1024,"numtimes":2}}' "$URL/api/v1/jobs"
        jq -r .id "$T/sub" >>"$T/subids"
    done | sort -n | awk -v n="$N" "$JOIN"'{ t[NR] = $1 * 1000 } { c[$2]++ } END { printf "%-58s median %6.1f ms  p95 %6.1f ms  max %6.1f ms  (%d calls, status %s)\n",
        "POST jobs (submit)", t[int((n + 1) / 2)], t[int(0.95 * n + 0.999)], t[n], n, join(c) }'
    while read -r id; do curl -s -o /dev/null -w '%{time_total} %{http_code}\n' -X POST -H "Authorization: Bearer $ADMIN" "$URL/api/v1/jobs/$id/cancel"; done <"$T/subids" |
        sort -n | awk -v n="$N" "$JOIN"'{ t[NR] = $1 * 1000 } { c[$2]++ } END { printf "%-58s median %6.1f ms  p95 %6.1f ms  max %6.1f ms  (%d calls, status %s)\n",
        "POST jobs/{id}/cancel", t[int((n + 1) / 2)], t[int(0.95 * n + 0.999)], t[n], n, join(c) }'
}
submits
echo "load average after the calls: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -d tests/browser/node_modules/playwright-core ] && [ -x /usr/bin/chromium ]; then
    echo "== Pages in headless Chromium (navigation to chart and table drawn)"
    J2=$(sql "SELECT max(id) FROM jobs WHERE state = 'succeeded' AND id < $JID")
    PPBENCH_URL=$URL PPBENCH_PLATFORM=bench-07 PPBENCH_JOB=$JID PPBENCH_JOB2=$J2 PPBENCH_RESULT=$RID node bench/pages.mjs 7
else
    echo "== Pages: skipped (run make test once for tests/browser/node_modules, and install chromium)"
fi
