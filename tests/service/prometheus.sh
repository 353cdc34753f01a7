# Prometheus and Grafana as an operator wires them (deploy/README.md): a real Prometheus runs
# deploy/prometheus/prometheus.yml, its "site:" lines pointed at this test's ppbenchd (a read token required,
# scrapes every second), with ppbench-rules.yml beside it, while a real worker runs small stream jobs on cpu0
# (a judged baseline from the third on) and is then killed (-9: a lost node, so a worker goes stale and an
# alert pends). Then every PromQL expression of deploy/grafana/ppbench-fleet.json, its template variables
# given real values, must return data with a finite value, and every ppbench metric it names must exist in
# Prometheus: a renamed or misspelt metric fails here. Grafana itself is not packaged for Debian; the
# dashboard's JSON model is checked with jq.
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../lib/server.sh"
CONF=deploy/prometheus/prometheus.yml
RULES=deploy/prometheus/ppbench-rules.yml
DASH=deploy/grafana/ppbench-fleet.json
[ -x "$SERVER" ] && [ -x "$WORKER" ] || { skip "prometheus" "ppbenchd or ppbench-worker not built"; exit 0; }
command -v prometheus >/dev/null && command -v promtool >/dev/null ||
    { skip "prometheus" "prometheus not installed (Debian's prometheus package; make deps)"; exit 0; }

# json_true FILTER: the JSON on stdin makes FILTER true (no input is false: tests/lib/check.sh's jq -e).
json_true() { jq -e "$1" >/dev/null 2>&1; }
# The dashboard's JSON model: what Grafana's import needs, and every query on the datasource variable (so the
# import asks for a Prometheus and nothing names one of this site's datasources).
json_true '(.uid | length > 0) and (.title | length > 0) and .schemaVersion >= 36 and
     ([.panels[].id] | length == (unique | length)) and all(.panels[]; .gridPos.w > 0 and .gridPos.h > 0)' <"$DASH" &&
    pass "dashboard: a Grafana dashboard (uid, title, schemaVersion, unique panel ids, panels on the grid)" ||
    fail "dashboard: a Grafana dashboard" "$DASH lacks uid, title, schemaVersion >= 36, unique ids or gridPos"
json_true 'any(.templating.list[]; .name == "DS_PROMETHEUS" and .type == "datasource" and .query == "prometheus") and
     all(.panels[] | select(.type != "row"); .datasource.uid == "${DS_PROMETHEUS}" and (.targets | length > 0) and
         all(.targets[]; .datasource.uid == "${DS_PROMETHEUS}" and (.expr | length > 0) and (.refId | length > 0)))' <"$DASH" &&
    pass "dashboard: every panel queries the datasource variable DS_PROMETHEUS" ||
    fail "dashboard: every panel queries the datasource variable DS_PROMETHEUS" "a panel or target without it, or no expr"

# A baseline judges from the second result on; judge_z = 100 keeps the noise of tiny jobs on a shared machine
# from being judged a regression (a regressed platform is not stale_worker, and PpbenchWorkerStale would not pend).
SERVER_PLATFORMS=cpu0 server_start "lease_s = 5" "heartbeat_s = 1" "baseline_min_results = 2" "judge_z = 100" \
    "require_read_token = true"
READ=$("$SERVER" token create --role read --name prometheus 2>>"$SERVER_LOG")
cpu_idle() {
    api GET /api/v1/platforms "" "$ADMIN"
    CPU=$(printf '%s' "$BODY" | jq -r '.platforms[] | select(.local_id == "cpu0" and .worker.state == "idle") | .id')
    [ -n "$CPU" ]
}
job_done() {
    api GET "/api/v1/jobs/$1" "" "$ADMIN"
    [[ "$(printf '%s' "$BODY" | jq -r .state)" =~ ^(succeeded|failed|cancelled)$ ]]
}
wait_for 20 cpu_idle || { fail "a worker serves cpu0" "$(tail -n 5 "$SERVER_LOG" | tr '\n' ' ')"; exit 0; }

# The site's copy of the configuration: only the lines marked "site:" (and the intervals) differ.
mkdir "$TMP/etc"
printf '%s\n' "$READ" >"$TMP/etc/ppbench.token"
cp "$RULES" "$TMP/etc/"
sed -e "s|'ppbench.example.org:8080'|'127.0.0.1:$PORT'|" -e "s|/etc/prometheus/ppbench.token|$TMP/etc/ppbench.token|" \
    -e 's|^\(  scrape_interval:\) 30s|\1 1s|' -e 's|^\(  evaluation_interval:\) 30s|\1 1s|' "$CONF" >"$TMP/etc/prometheus.yml"
same "prometheus.yml: the site's lines are the ones its comments mark" \
    "$(diff "$CONF" "$TMP/etc/prometheus.yml" | grep -c '^>')" 4
expect "promtool check config: prometheus.yml and the rules it loads" 0 'SUCCESS: [0-9]+ rules found' -- \
    promtool check config "$TMP/etc/prometheus.yml"

PPORT=$(free_port)
P="http://127.0.0.1:$PPORT"
prometheus --config.file="$TMP/etc/prometheus.yml" --storage.tsdb.path="$TMP/prom" \
    --web.listen-address="127.0.0.1:$PPORT" >"$TMP/prometheus.log" 2>&1 &
PROM_PID=$!
trap 'kill $PROM_PID 2>/dev/null; wait $PROM_PID 2>/dev/null; server_cleanup' EXIT
q() { curl -s --get --data-urlencode "query=$1" "$P/api/v1/query"; }
# holds QUERY: the instant query returns at least one series.
holds() { q "$1" | json_true '.data.result | length > 0'; }
if wait_for 30 holds 'up{job="ppbench"} == 1'; then pass "prometheus scrapes ppbenchd with the read token (up == 1)"
else fail "prometheus scrapes ppbenchd" "$(curl -s "$P/api/v1/targets" | head -c 400) $(tail -n 3 "$TMP/prometheus.log")"; fi

# Jobs while Prometheus watches (the rates and quantiles need the counters to move under its scrapes).
ok=0
for _ in 1 2 3; do
    api POST /api/v1/jobs "{\"suite\":\"stream\",\"model\":\"openmp\",\"platform\":\"$CPU\",\"params\":{\"arraysize\":20000,\"numtimes\":5}}" "$ADMIN"
    id=$(printf '%s' "$BODY" | jq -r .id)
    wait_for 60 job_done "$id" && [ "$(printf '%s' "$BODY" | jq -r .state)" = succeeded ] && ok=$((ok + 1))
done
same "three stream jobs on cpu0 succeeded" "$ok" 3
wait_for 30 holds 'sum(ppbench_job_duration_seconds_count{state="succeeded"}) >= 3 and
    count(ppbench:result_over_baseline:ratio) > 0' &&
    pass "prometheus sees the jobs and the recording rule's figures over their baselines" ||
    fail "prometheus sees the jobs and the baselines" "$(q 'ppbench_job_duration_seconds_count') $(q 'ppbench_baseline_bytes_per_second' | head -c 300)"

# The worker lost (no deregistration): stale after the lease, and the rule's alert pending.
kill -KILL -- "-${WORKER_PIDS[0]}"
wait "${WORKER_PIDS[0]}" 2>/dev/null
WORKER_PIDS=()
wait_for 30 holds 'max(ppbench_workers{state="stale"}) == 1 and on() count(ALERTS{alertname="PpbenchWorkerStale"}) > 0' &&
    pass "a killed worker: stale in /metrics, PpbenchWorkerStale pending in Prometheus" ||
    fail "a killed worker goes stale and its alert pends" "$(q 'ppbench_workers' | head -c 300) $(q 'ALERTS' | head -c 300)"

# Every expression of the dashboard, with the values Grafana would give its variables: one platform (regex
# metacharacters escaped, as Grafana does for =~), and the rate window ($__rate_interval: the 5 minutes here
# cover the whole test).
pval=$(printf '%s' "$CPU" | sed 's/[]\\.*+?(){}|^$[]/\\\\&/g')
jq -r --arg p "$pval" '.panels[] | select(.targets) | .title as $t | .targets[] |
    [$t, .refId, (.expr | gsub("\\$platform"; $p) | gsub("\\$__rate_interval"; "5m") | gsub("\n"; " "))] | @tsv' \
    "$DASH" >"$TMP/exprs"
n=0 bad=0
while IFS=$'\t' read -r title ref expr; do
    n=$((n + 1))
    if [[ "$expr" == *'$'* ]]; then
        fail "dashboard: $title ($ref)" "a variable the test does not know: $expr"
        bad=$((bad + 1))
        continue
    fi
    ans=$(q "$expr")
    if ! printf '%s' "$ans" | json_true '.status == "success" and (.data.result | length > 0) and
            any(.data.result[]; .value[1] | test("^[-+]?(Inf|NaN)$") | not)'; then
        fail "dashboard: $title ($ref) returns data" "$expr -> $(printf '%s' "$ans" | head -c 300)"
        bad=$((bad + 1))
    fi
done <"$TMP/exprs"
if [ "$n" = 0 ]; then fail "dashboard: expressions" "none found in $DASH"
elif [ "$bad" = 0 ]; then pass "dashboard: all $n expressions return data with a finite value"; fi

# Every ppbench metric an expression names exists (an expression can hide a missing one, e.g. behind "or").
curl -s "$P/api/v1/label/__name__/values" | jq -r '.data[]' >"$TMP/names"
missing=$(jq -r '.. | .expr? // empty' "$DASH" | grep -oE 'ppbench[_:][a-zA-Z0-9_:]*' | sort -u | grep -vxF -f "$TMP/names")
[ -z "$missing" ] && pass "dashboard: every ppbench metric it names exists in Prometheus" ||
    fail "dashboard: metrics that do not exist" "$(echo $missing)"

# The template variables' own queries (Grafana's label_values(METRIC, LABEL): Prometheus' label values API)
# list the platform.
jq -r '.templating.list[] | select(.type == "query") | [.name, (.query | if type == "object" then .query else . end)] | @tsv' \
    "$DASH" >"$TMP/vars"
[ -s "$TMP/vars" ] || fail "dashboard: template variables" "no query variable in $DASH"
while IFS=$'\t' read -r name query; do
    if [[ "$query" =~ ^label_values\(([^,]+),\ *([a-zA-Z_]+)\)$ ]] &&
        curl -s --get --data-urlencode "match[]=${BASH_REMATCH[1]}" "$P/api/v1/label/${BASH_REMATCH[2]}/values" |
        json_true ".data | index(\"$CPU\")"; then
        pass "dashboard: variable $name lists $CPU"
    else
        fail "dashboard: variable $name" "$query does not list $CPU"
    fi
done <"$TMP/vars"
