# GET /metrics through the real ppbenchd: `promtool check metrics` passes on what it serves, a real Prometheus
# server (Debian's prometheus, on loopback) scrapes it and answers queries on its series, the counters count,
# and the per-platform families keep to metrics_max_series.
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../lib/server.sh"
[ -x "$SERVER" ] && [ -x "$WORKER" ] || { skip "metrics" "ppbenchd or ppbench-worker not built"; exit 0; }

server_start "embedded_workers = false" "lease_s = 600" "metrics_max_series = 3"
token() { "$SERVER" token create --role "$1" --state-dir "$STATE" 2>>"$SERVER_LOG"; }
WORKER_TOKEN=$(token worker)
CPU=$("$WORKER" list --json | jq -c '.platforms[] | select(.id == "cpu0")')
api POST /api/v1/workers/register "{\"host\":\"mhost\",\"pid\":$$,\"version\":\"t\",\"platform\":$CPU}" "$WORKER_TOKEN"
# Three imported-style platforms with a result each (one with a quote in its name: label escaping).
for i in 1 2 3; do
    psql_q "INSERT INTO platforms (id, kind, name) VALUES ('m-$i', 'gpu', 'Sim \"GPU\" $i')" >/dev/null
    psql_q "INSERT INTO results (platform_id, suite, kernel, model, precision, size, bytes, flops, times_s, min_s,
        max_s, mean_s, median_s, stddev_s, bandwidth, gflops, verified, provenance)
        VALUES ('m-$i', 'stream', 'triad', 'openmp', 'fp64', 1024, 24576, 2048, '{1e-6,1e-6}', 1e-6, 1e-6, 1e-6,
                1e-6, 0, 24576e6, 0, true, '{}')" >/dev/null
done
# Two variants of m-1's problem in one statement (one series: the later one's figure); the series as judging
# kept them equal the ones rebuilt from the baselines; then m-2 renamed (its series' labels follow).
psql_q "INSERT INTO results (platform_id, suite, kernel, model, variant, precision, size, bytes, flops, times_s, min_s,
    max_s, mean_s, median_s, stddev_s, bandwidth, gflops, verified, provenance)
    SELECT 'm-1', 'stream', 'triad', 'openmp', v, 'fp64', 1024, 24576, 2048, '{1e-6,1e-6}', 1e-6, 1e-6, 1e-6, 1e-6, 0,
           bw, 0, true, '{}' FROM (VALUES ('v1', 30e9), ('v2', 31e9)) x (v, bw)" >"$TMP/variants" 2>&1 &&
    pass "two variants of one series judged in one statement" || fail "two variants in one statement" "$(head -c 300 "$TMP/variants")"
same "the series kept as judged are the series rebuilt from the baselines" "$(psql_q "
    CREATE TEMP TABLE kept AS SELECT * FROM metric_series;
    SELECT metric_series_rebuild(NULL);
    SELECT count(*) FROM ((SELECT platform_id, suite, kernel, model, precision, size, fom_line, baseline_line FROM kept
                           EXCEPT SELECT platform_id, suite, kernel, model, precision, size, fom_line, baseline_line FROM metric_series)
                          UNION ALL (SELECT platform_id, suite, kernel, model, precision, size, fom_line, baseline_line FROM metric_series
                           EXCEPT SELECT platform_id, suite, kernel, model, precision, size, fom_line, baseline_line FROM kept)) d" | tail -n 1)" "0"
psql_q "UPDATE platforms SET name = 'Renamed GPU' WHERE id = 'm-2'" >/dev/null
for _ in 1 2 3; do api GET /api/v1/platforms; done
api GET /api/v1/jobs/999999
api GET /no/such/route

curl -s -o "$TMP/metrics" -w '%{http_code} %{content_type}' "$URL/metrics" >"$TMP/status"
grep -q '^200 text/plain; version=0.0.4' "$TMP/status" && pass "GET /metrics: 200 in the text format 0.0.4" ||
    fail "GET /metrics: 200 in the text format 0.0.4" "$(cat "$TMP/status")"
if command -v promtool >/dev/null; then
    if promtool check metrics <"$TMP/metrics" >"$TMP/promtool" 2>&1; then pass "promtool check metrics passes"
    else fail "promtool check metrics passes" "$(head -c 600 "$TMP/promtool")"; fi
else
    skip "promtool check metrics" "promtool not installed (Debian's prometheus package; make deps)"
fi
m() { grep -c -- "$1" "$TMP/metrics"; }
[ "$(m '^ppbench_http_requests_total{route="GET /api/v1/platforms",status="200"} [3-9]')" = 1 ] &&
    pass "requests counted by route and status" || fail "requests counted by route and status" "$(grep http_requests_total "$TMP/metrics" | head -5)"
[ "$(m '^ppbench_http_requests_total{route="GET /api/v1/jobs/{id}",status="404"} 1$')" = 1 ] &&
    [ "$(m '^ppbench_http_requests_total{route="unmatched",status="404"} 1$')" = 1 ] &&
    pass "a route's pattern, never its path, is the label; unmatched paths share one" ||
    fail "route labels are patterns" "$(grep 'status="404"' "$TMP/metrics")"
[ "$(m '^ppbench_http_request_duration_seconds_bucket{route="GET /api/v1/platforms",le="+Inf"} [3-9]')" = 1 ] &&
    pass "latency histogram per route" || fail "latency histogram per route" "$(grep duration_seconds_bucket "$TMP/metrics" | head -3)"
[ "$(m '^ppbench_workers{state="idle"} 1$')" = 1 ] && [ "$(m '^ppbench_queue_depth 0$')" = 1 ] &&
    pass "workers by state and the queue depth" || fail "workers by state and the queue depth" "$(grep -E 'workers|queue' "$TMP/metrics")"
# Judging's lag: a result stored while the judge is held (this test holds judging's lock, in a session it ends
# when done) counts as queued, and not once judged.
psql -qAt "$DB application_name=judge-held" \
    -c "SELECT pg_advisory_lock(hashtext('ppbench judge')), pg_sleep(60)" >/dev/null 2>&1 &
lock_pid=$!
held() { [ "$(psql -qAt "$DB" -c "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
    WHERE a.application_name = 'judge-held' AND l.locktype = 'advisory' AND l.granted")" = 1 ]; }
wait_for 10 held
psql -qAt "$DB" -c "INSERT INTO results (platform_id, suite, kernel,
    model, precision, size, bytes, flops, times_s, min_s, max_s, mean_s, median_s, stddev_s, bandwidth, gflops,
    verified, provenance) VALUES ('m-3', 'stream', 'copy', 'openmp', 'fp64', 1024, 16384, 0, '{1e-6,1e-6}', 1e-6,
    1e-6, 1e-6, 1e-6, 0, 16384e6, 0, true, '{}')"
held=$(curl -s "$URL/metrics" | grep '^ppbench_judge_queue ')
psql -qAt "$DB" -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'judge-held'" >/dev/null
wait "$lock_pid"
psql_q "SELECT 1" >/dev/null
[ "$held" = "ppbench_judge_queue 1" ] && [ "$(curl -s "$URL/metrics" | grep '^ppbench_judge_queue ')" = "ppbench_judge_queue 0" ] &&
    pass "ppbench_judge_queue: a result stored and not judged yet, none once judged" ||
    fail "ppbench_judge_queue: a result stored and not judged yet, none once judged" "while held: '$held'"
[ "$(m '^ppbench_platform_health{')" = 3 ] && [ "$(m '^ppbench_result_bytes_per_second{')" = 3 ] &&
    [ "$(m '^ppbench_metrics_series_dropped 1$')" = 1 ] &&
    pass "per-platform families keep to metrics_max_series (3 of 4 platforms; 1 dropped)" ||
    fail "metrics_max_series" "$(grep -E 'platform_health|result_bytes|dropped' "$TMP/metrics")"
grep -q '^ppbench_result_bytes_per_second{host="",platform="m-1",device="Sim \\"GPU\\" 1",suite="stream",kernel="triad",model="openmp",precision="fp64",size="1024"} 31000000000$' "$TMP/metrics" &&
    pass "one series per platform and problem: the variant judged last" ||
    fail "one series per platform and problem: the variant judged last" "$(grep 'result_bytes.*m-1' "$TMP/metrics")"
grep -q '^ppbench_result_bytes_per_second{host="",platform="m-2",device="Renamed GPU",' "$TMP/metrics" &&
    pass "a renamed platform's series carry its new name" || fail "a renamed platform's series" "$(grep 'result_bytes.*m-2' "$TMP/metrics")"
grep -q 'device="Sim \\"GPU\\" 3",suite="stream",kernel="triad",model="openmp",precision="fp64",size="1024"} 24576000000' "$TMP/metrics" &&
    pass "a platform's last figure with its labels, quotes escaped" ||
    fail "a platform's last figure with its labels" "$(grep result_bytes "$TMP/metrics")"

# A real Prometheus scrapes it.
if ! command -v prometheus >/dev/null; then
    skip "prometheus scrapes /metrics" "prometheus not installed (Debian's prometheus package; make deps)"
    exit 0
fi
PPORT=$(free_port)
cat >"$TMP/prometheus.yml" <<EOF
global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
  - job_name: ppbench
    static_configs: [{targets: ['127.0.0.1:$PORT']}]
EOF
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/prom" \
    --web.listen-address="127.0.0.1:$PPORT" >"$TMP/prometheus.log" 2>&1 &
PROM_PID=$!
trap 'kill $PROM_PID 2>/dev/null; wait $PROM_PID 2>/dev/null; server_cleanup' EXIT
q() { curl -s --get --data-urlencode "query=$1" "http://127.0.0.1:$PPORT/api/v1/query"; }
scraped() {
    up=$(q 'up{job="ppbench"}' | jq -r '.data.result[0].value[1] // empty' 2>/dev/null)
    [ "$up" = 1 ]
}
wait_for 30 scraped
[ "$up" = 1 ] && pass "prometheus scrapes ppbenchd (up == 1)" ||
    fail "prometheus scrapes ppbenchd" "up=$up; $(curl -s "http://127.0.0.1:$PPORT/api/v1/targets" | head -c 400) $(tail -n 3 "$TMP/prometheus.log")"
v=$(q 'sum(ppbench_http_requests_total{route="GET /api/v1/platforms"})' | jq -r '.data.result[0].value[1] // empty')
[ -n "$v" ] && [ "$v" -ge 3 ] 2>/dev/null && pass "prometheus answers a query on the request counter ($v)" ||
    fail "prometheus answers a query on the request counter" "$v"
v=$(q 'count(ppbench_platform_health)' | jq -r '.data.result[0].value[1] // empty')
[ "$v" = 3 ] && pass "prometheus holds the platforms' health series" || fail "prometheus holds the platforms' health series" "$v"
