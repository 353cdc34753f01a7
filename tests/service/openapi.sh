#!/bin/bash
# The OpenAPI document against the real service: every route of `ppbenchd routes` is called on a real ppbenchd
# (embedded PostgreSQL, a real worker running real jobs, a BabelStream import, the worker protocol spoken by the
# test itself, and a real Slurm cluster for the Slurm routes where it starts), each answer is recorded, and
# tests/service/openapi_check.py validates every body against the document's schema for its route, status and
# content type with a real JSON Schema validator (Debian's python3-jsonschema, Draft 2020-12: the document is
# OpenAPI 3.1). A route called by no request, or answered with a status or content type the document lacks,
# fails too.
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../lib/server.sh"
. "$(dirname "$0")/../lib/slurm.sh"
trap 'slurm_stop; server_cleanup' EXIT
[ -x "$SERVER" ] || { skip "openapi" "ppbenchd not built"; exit 0; }
PY=/usr/bin/python3
"$PY" -c 'import jsonschema' 2>/dev/null || {
    skip "openapi" "python3-jsonschema not installed (scripts/deps.sh installs it)"
    exit 0
}

# Slurm first: the Slurm routes answer only when the executor is configured. Without a cluster they are
# still called (and their 404 checked against the Error schema), and a SKIP line says so.
SLURM_CONF_LINES=()
if slurm_start >"$TMP/slurm_start.out" 2>&1; then
    SLURM_CONF_LINES=("slurm_partition = ppb" "slurm_platforms = host=n*")
else
    cat "$TMP/slurm_start.out"
fi
mkdir -p "$PWD/$BUILD/test-cache"
server_start "lease_s = 4" "max_wait_s = 2" "${SLURM_CONF_LINES[@]}"
SUBMIT=$("$SERVER" token create --role submit --state-dir "$STATE" 2>>"$SERVER_LOG")
WORKER_TOKEN=$("$SERVER" token create --role worker --state-dir "$STATE" 2>>"$SERVER_LOG")

# call METHOD PATH [BODY] [TOKEN] [CONTENT_TYPE]: one request, recorded in $LOG as "METHOD PATH STATUS
# CONTENT_TYPE ANSWER_FILE REQUEST_CONTENT_TYPE REQUEST_FILE" for the checker; sets STATUS and BODY as api does.
LOG="$TMP/calls.tsv"
: >"$LOG"
n=0
call() {
    local method=$1 path=$2 body=${3-} token=${4-} ctype=${5:-application/json} out
    local -a args=(-s -o "$TMP/resp" -w '%{http_code}\t%{content_type}' -X "$method" --max-time 30)
    [ -n "$token" ] && args+=(-H "Authorization: Bearer $token")
    [ -n "${AS_WORKER_SECRET:-}" ] && args+=(-H "X-Worker-Id: $AS_WORKER_ID" -H "X-Worker-Secret: $AS_WORKER_SECRET")
    [ -n "$body" ] && args+=(-H "Content-Type: $ctype" --data-binary "$body")
    out=$(curl "${args[@]}" "$URL$path")
    STATUS=${out%%$'\t'*}
    BODY=$(cat "$TMP/resp")
    n=$((n + 1))
    cp "$TMP/resp" "$TMP/body.$n"
    printf '%s' "$body" >"$TMP/request.$n"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$method" "$path" "$STATUS" "${out#*$'\t'}" "$TMP/body.$n" \
        "${body:+$ctype}" "$TMP/request.$n" >>"$LOG"
}

# The service's own files and health.
call GET /
call GET /ui/app.js
call GET /ui/nosuch.js
call GET /healthz
call GET /readyz
call GET /api/v1/openapi.json
cp "$TMP/resp" "$TMP/served.json"
call GET /api/v1/suites

# A real job on the supervised worker's cpu0, with its results.
wait_cpu_worker || fail "openapi: a supervised worker serves cpu0" "$(tail -n 3 "$SERVER_LOG")"
call POST /api/v1/jobs "{\"suite\":\"stream\",\"model\":\"openmp\",\"platform\":\"$CPU\",\"params\":{\"arraysize\":4096,\"numtimes\":4},\"tags\":[\"api\"]}" "$SUBMIT"
JOB=$(printf '%s' "$BODY" | jq -r .id)
wait_job "$JOB" "succeeded|failed" 60 || fail "openapi: the job ends" "$BODY"
call GET "/api/v1/jobs/$JOB"
call GET "/api/v1/jobs/$JOB/events"
call GET "/api/v1/jobs?limit=5"
call GET "/api/v1/jobs?state=bogus"
call GET "/api/v1/jobs/424242"
call POST /api/v1/jobs '{"suite":"stream","model":"openmp"}' "$SUBMIT"
call POST /api/v1/jobs "{\"suite\":\"stream\",\"model\":\"openmp\",\"platform\":\"$CPU\",\"sweep\":{\"param\":\"arraysize\",\"values\":[2048,4096]},\"params\":{\"numtimes\":3}}" "$SUBMIT"

# The worker protocol, spoken by the test for a platform of its own.
PLATFORM=$("$WORKER" list --json | jq -c '.platforms[] | select(.id == "cpu0")')
call POST /api/v1/workers/register "{\"host\":\"apihost\",\"pid\":$$,\"version\":\"t\",\"platform\":$PLATFORM}" "$WORKER_TOKEN"
WID=$(printf '%s' "$BODY" | jq -r .worker_id)
REG=$BODY
call POST /api/v1/jobs '{"suite":"stream","model":"openmp","platform":"apihost/cpu0","params":{"arraysize":4096,"numtimes":3}}' "$SUBMIT"
WJOB=$(printf '%s' "$BODY" | jq -r .id)
as_worker "$REG"
call POST "/api/v1/workers/$WID/claim?wait=2" "" "$WORKER_TOKEN"
EPOCH=$(printf '%s' "$BODY" | jq -r .job.epoch)
call POST "/api/v1/workers/$WID/heartbeat" "{\"job_id\":$WJOB,\"epoch\":$EPOCH}" "$WORKER_TOKEN"
call POST "/api/v1/jobs/$WJOB/progress" "{\"epoch\":$EPOCH,\"progress\":0.5}" "$WORKER_TOKEN"
call POST "/api/v1/jobs/$WJOB/progress" "{\"epoch\":99,\"progress\":0.5}" "$WORKER_TOKEN"
call POST "/api/v1/jobs/$WJOB/result" "{\"epoch\":$EPOCH,\"outcome\":\"failed\",\"error\":\"openapi test\"}" "$WORKER_TOKEN"
call POST "/api/v1/workers/$WID/claim?wait=0" "" "$WORKER_TOKEN"
call POST "/api/v1/workers/$WID/heartbeat" '{}' "$WORKER_TOKEN"
call POST "/api/v1/workers/$WID/deregister" "" "$WORKER_TOKEN"
AS_WORKER_SECRET=""
call POST "/api/v1/workers/$WID/claim" "" "$SUBMIT"

# A job cancelled while queued (nobody serves apihost/cpu0 any more).
call POST /api/v1/jobs '{"suite":"stream","model":"openmp","platform":"apihost/cpu0"}' "$SUBMIT"
call POST "/api/v1/jobs/$(printf '%s' "$BODY" | jq -r .id)/cancel" "" "$SUBMIT"

# The fleet; an import, an admin's peaks.
call GET /api/v1/platforms
call GET /api/v1/hosts
call GET /api/v1/workers
CSV='function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime
Copy,100,2097152,8,2.89262e+06,1.16e-05,1.26788e-05,1.18436e-05
Triad,100,2097152,8,2.90934e+06,1.73e-05,1.89089e-05,1.76633e-05'
call POST "/api/v1/import/babelstream?platform=imp-api&model=kokkos&kind=gpu&peak_gbs=3350" "$CSV" "$SUBMIT" text/csv
call POST "/api/v1/import/babelstream?platform=imp-api&model=kokkos" "Copy,1" "$SUBMIT" text/csv
call PUT /api/v1/platforms/imp-api/peak '{"peak_gbs":3000,"source":"datasheet"}' "$ADMIN"
call PUT "/api/v1/platforms/$CPU/peak" '{"peak_gbs":204.8,"source":"8 channels x 3200 MT/s"}' "$ADMIN"
call PUT "/api/v1/platforms/$CPU/peak" '{"peak_gbs":-1}' "$ADMIN"

# Results in every format, one result, an admin's note and a deletion.
call GET "/api/v1/results?limit=100"
IMPORTED=$(printf '%s' "$BODY" | jq -r '[.results[] | select(.origin == "import")][0].id')
MEASURED=$(printf '%s' "$BODY" | jq -r '[.results[] | select(.origin == "worker")][0].id')
call GET "/api/v1/results?suite=stream&kernel=triad&limit=1"
call GET "/api/v1/results?format=csv&limit=3"
call GET "/api/v1/results?format=babelstream&limit=3"
call GET "/api/v1/results?format=p3&kernel=triad"
call GET "/api/v1/results?suite=foo"
call GET "/api/v1/results/$IMPORTED"
call GET "/api/v1/results/$MEASURED"
call PATCH "/api/v1/results/$MEASURED" '{"note":"openapi test","exclude":true}' "$ADMIN"
call GET "/api/v1/results/424242"
call GET "/api/v1/pp?problem=stream.triad"
call GET "/api/v1/pp?problem=stream.triad&efficiency=arch"
call GET "/api/v1/pp?problem=stream.triad&precision=fp32"
call GET "/api/v1/pp?problem=stream.nosuch"
call GET "/api/v1/pp/policies?problem=stream.triad"
call DELETE "/api/v1/results/$IMPORTED" "" "$ADMIN"
call GET /metrics

# Fleet health and schedules.
call GET /api/v1/health
call POST /api/v1/health/clear "{\"platform\":\"$CPU\"}" "$ADMIN"
call POST /api/v1/health/floors '{"device":"bench device","suite":"stream","kernel":"triad","precision":"fp64","floor_bytes_per_s":1e9}' "$ADMIN"
call GET /api/v1/health/floors
call POST /api/v1/health/floors '{"device":"bench device","suite":"stream","kernel":"triad","precision":"fp64","floor_bytes_per_s":null}' "$ADMIN"
call GET "/api/v1/baselines?platform=$CPU"
call POST /api/v1/schedules '{"name":"api-nightly","spec":"30 2 * * *","suite":"stream","model":"openmp","kernels":["triad"],"params":{"arraysize":4096,"numtimes":3},"selector":{"kind":"cpu","host":"nohost*"}}' "$ADMIN"
SID=$(printf '%s' "$BODY" | jq -r .id)
call GET /api/v1/schedules
call GET "/api/v1/schedules/$SID"
call POST "/api/v1/schedules/$SID/pause" "" "$ADMIN"
call POST "/api/v1/schedules/$SID/resume" "" "$ADMIN"
call POST "/api/v1/schedules/$SID/run" "" "$ADMIN"
call POST /api/v1/schedules '{"name":"bad","spec":"61 * * * *","suite":"stream","model":"openmp"}' "$ADMIN"

# Removing platforms: an imported one goes, a registered one is refused.
call DELETE /api/v1/platforms/imp-api "" "$ADMIN"
call DELETE "/api/v1/platforms/$CPU" "" "$ADMIN"

# Slurm's nodes.
call GET /api/v1/slurm/nodes
call GET /api/v1/slurm/nodes/n1
call POST /api/v1/slurm/nodes/n1/drain '{"reason":"openapi test"}' "$ADMIN"
call POST /api/v1/slurm/nodes/n1/resume "" "$ADMIN"
[ -n "$SLURM_OK" ] || skip "openapi: the Slurm routes' success answers" "no Slurm cluster here (${SLURM_WHY:-})"

# What ppbenchd serves is the document (embedded at build time).
if [ -z "${OPENAPI_DOC:-}" ]; then
    [ "$(jq -n --slurpfile a "$TMP/served.json" --slurpfile b docs/openapi.json '$a == $b')" = true ] &&
        pass "openapi: GET /api/v1/openapi.json serves docs/openapi.json" ||
        fail "openapi: GET /api/v1/openapi.json serves docs/openapi.json" "rebuild ppbenchd (make)"
fi

# Every answer against the document; the checker prints one PASS/FAIL line per route.
"$SERVER" routes >"$TMP/routes"
if [ -n "${OPENAPI_KEEP:-}" ]; then # the answers, for writing the document: OPENAPI_KEEP=DIR
    mkdir -p "$OPENAPI_KEEP" && cp "$LOG" "$TMP"/body.* "$TMP"/request.* "$OPENAPI_KEEP/"
    sed -i "s|$TMP/|$OPENAPI_KEEP/|g" "$OPENAPI_KEEP/calls.tsv"
fi
# without a Slurm cluster the Slurm routes answer 404 only: their success is said unchecked, not failed
OPENAPI_UNREACHABLE=$([ -n "$SLURM_OK" ] || echo /api/v1/slurm/) \
    "$PY" "$(dirname "$0")/openapi_check.py" "${OPENAPI_DOC:-docs/openapi.json}" "$TMP/routes" "$LOG"
