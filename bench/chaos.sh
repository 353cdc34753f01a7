#!/usr/bin/env bash
# Chaos on loopback (issue 11): ppbenchd with its embedded PostgreSQL and supervised workers in a temporary
# state directory, a steady submit load of small STREAM jobs, and ROUNDS rounds of kill -9 of one of a worker,
# ppbenchd or the embedded postmaster, picked at random (ppbenchd is started again by this script; PostgreSQL
# and the workers by ppbenchd). Then the load stops, the queue drains, and the invariants are checked:
#   accepted = ended    every job a 202 answered is in the database and terminal
#   no job stuck        no job at all (acknowledged or not) is still queued or running after the drain
#   no duplicate result no (job, kernel) has two results
# Bounded: it stops after ROUNDS rounds or MAX_S seconds of rounds, whichever comes first, and says which.
#   bench/chaos.sh [ROUNDS, default 1000]      MAX_S (default 600), GAP_S (pause after a kill, default 1),
#                                              DRAIN_S (default 180), SEED (for $RANDOM), BUILD
# Exit status 0 when every invariant holds, 1 otherwise. Only processes this script started are killed, by pid.
set -u
cd "$(dirname "$0")/.."
ROUNDS=${1:-1000}
MAX_S=${MAX_S:-600}
GAP_S=${GAP_S:-1}
DRAIN_S=${DRAIN_S:-180}
RANDOM=${SEED:-$$}
B=${BUILD:-build}
. bench/lib.sh
LOAD_PID=""
chaos_cleanup() {
    [ -n "$LOAD_PID" ] && kill "$LOAD_PID" 2>/dev/null
    [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    pid=""
    # A ppbenchd killed -9 at the end leaves its PostgreSQL running: stop it (ppbenchd's own stop does otherwise).
    local pgctl
    pgctl=$(ls /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null | tail -n 1)
    if [ -n "$pgctl" ] && [ -f "$T/state/pg/data/postmaster.pid" ]; then
        if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$pgctl -D '$T/state/pg/data' -m immediate stop" >/dev/null 2>&1
        else "$pgctl" -D "$T/state/pg/data" -m immediate stop >/dev/null 2>&1; fi
    fi
    bench_cleanup
}
trap chaos_cleanup EXIT
[ -n "${KEEP:-}" ] && trap 'cp -r "$T" "$KEEP"; chaos_cleanup' EXIT

CONF=(
    "lease_s = 4" "heartbeat_s = 1" "threads = 4" "log_level = notice"
)
STARTS=0
# start: ppbenchd on $T/state (the same each time); waits until it is ready; sets pid and ADMIN.
start() {
    STARTS=$((STARTS + 1))
    printf 'listen = 127.0.0.1:%s\nstate_dir = %s/state\n' "$PORT" "$T" >"$T/conf"
    for l in "${CONF[@]}"; do echo "$l" >>"$T/conf"; done
: >"$T/log.$STARTS" # before the grep below looks for it
    "$B/bin/ppbenchd" --config "$T/conf" >>"$T/log.$STARTS" 2>&1 &
    pid=$!
    for _ in $(seq 600); do
        grep -q '^ppbench is ready' "$T/log.$STARTS" && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    grep -q '^ppbench is ready' "$T/log.$STARTS" || return 1
    ADMIN=$(cat "$T/state/admin.token")
}
api() { curl -s --max-time 10 -H "Authorization: Bearer $ADMIN" "$@"; }
# get PATH: its JSON, retried for up to 60 s while the service answers anything but 200 (PostgreSQL restarting).
get() {
    local out
    for _ in $(seq 120); do
        out=$(api -w '\n%{http_code}' "$URL$1") && [ "${out##*$'\n'}" = 200 ] && { printf '%s' "${out%$'\n'*}"; return 0; }
        sleep 0.5
    done
    echo "GET $1: no 200 in 60 s (${out##*$'\n'})" >&2
    return 1
}

echo "machine: $(nproc) cores; $(date -u +%Y-%m-%dT%H:%MZ); ppbench $(git describe --always --dirty)"
start || { echo "ppbenchd did not start: $(tail -n 5 "$T/log.$STARTS")" >&2; exit 1; }
PLATFORM=""
for _ in $(seq 100); do
    PLATFORM=$(api "$URL/api/v1/platforms" | jq -r '[.platforms[] | select(.id | endswith("/cpu0"))][0].id // empty')
    [ -n "$PLATFORM" ] && break
    sleep 0.2
done
[ -n "$PLATFORM" ] || { echo "no cpu0 platform registered" >&2; exit 1; }
JOB="{\"suite\":\"stream\",\"model\":\"openmp\",\"platform\":\"$PLATFORM\",\"kernels\":[\"copy\",\"triad\"],\"params\":{\"arraysize\":1000,\"numtimes\":2}}"
echo "platform $PLATFORM; rounds $ROUNDS within ${MAX_S} s; kill, then ${GAP_S} s"

# The load: one submission every 0.25 s; a 202's id is an accepted job, anything else is counted as refused.
: >"$T/accepted"
: >"$T/refused"
load() {
    local out
    for ((;;)); do
        out=$(curl -s --max-time 5 -w '\n%{http_code}' -H "Authorization: Bearer $(cat "$T/state/admin.token" 2>/dev/null)" \
            -H 'Content-Type: application/json' -d "$JOB" "$URL/api/v1/jobs" 2>/dev/null)
        if [ "${out##*$'\n'}" = 202 ]; then printf '%s\n' "${out%$'\n'*}" | jq -r .id >>"$T/accepted"
        else echo "${out##*$'\n'}" >>"$T/refused"; fi
        sleep 0.25
    done
}
load &
LOAD_PID=$!

workers() { ps -o pid=,comm= --ppid "$pid" 2>/dev/null | awk '$2 ~ /^ppbench-worker/ {print $1}'; }
postmaster() { head -n 1 "$T/state/pg/data/postmaster.pid" 2>/dev/null; }
kills_worker=0 kills_server=0 kills_pg=0 skipped=0 restarts_failed=0
t0=$(date +%s)
round=0
while [ "$round" -lt "$ROUNDS" ] && [ $(($(date +%s) - t0)) -lt "$MAX_S" ]; do
    round=$((round + 1))
    case $((RANDOM % 3)) in
    0)
        mapfile -t ws < <(workers)
        if [ "${#ws[@]}" -gt 0 ]; then kill -9 "${ws[RANDOM % ${#ws[@]}]}" 2>/dev/null && kills_worker=$((kills_worker + 1))
        else skipped=$((skipped + 1)); fi
        ;;
    1)
        kill -9 "$pid" 2>/dev/null && kills_server=$((kills_server + 1))
        wait "$pid" 2>/dev/null
        if ! start; then
            restarts_failed=$((restarts_failed + 1))
            tail -n 1 "$T/log.$STARTS" >>"$T/restart_failures"
            sleep 1
            start || { echo "ppbenchd does not start again: $(tail -n 5 "$T/log.$STARTS")"; break; }
        fi
        ;;
    2)
        pg=$(postmaster)
        if [ -n "$pg" ] && kill -9 "$pg" 2>/dev/null; then kills_pg=$((kills_pg + 1)); else skipped=$((skipped + 1)); fi
        ;;
    esac
    sleep "$GAP_S"
done
elapsed=$(($(date +%s) - t0))
why="all $ROUNDS rounds"
[ "$round" -lt "$ROUNDS" ] && why="the ${MAX_S} s bound"
kill "$LOAD_PID" 2>/dev/null
wait "$LOAD_PID" 2>/dev/null
LOAD_PID=""
kill -0 "$pid" 2>/dev/null || start

# Drain: every job terminal, or DRAIN_S passes.
jobs_all() {
    local cursor="" page
    : >"$T/jobs"
    for ((;;)); do
        page=$(get "/api/v1/jobs?limit=1000${cursor:+&cursor=$cursor}") || return 1
        printf '%s' "$page" | jq -c '.jobs[] | {id, state, attempts}' >>"$T/jobs" || return 1
        cursor=$(printf '%s' "$page" | jq -r '.next_cursor // empty')
        [ -n "$cursor" ] || return 0
    done
}
t1=$(date +%s)
while [ $(($(date +%s) - t1)) -lt "$DRAIN_S" ]; do
    jobs_all && ! grep -qE '"state":"(queued|running)"' "$T/jobs" && break
    sleep 2
done
drained=$(($(date +%s) - t1))
jobs_all || exit 1
: >"$T/results"
cursor=""
for ((;;)); do
    page=$(get "/api/v1/results?limit=100000${cursor:+&cursor=$cursor}") || exit 1
    printf '%s' "$page" | jq -r '.results[] | "\(.job_id) \(.kernel)"' >>"$T/results"
    cursor=$(printf '%s' "$page" | jq -r '.next_cursor // empty')
    [ -n "$cursor" ] || break
done

sort -u "$T/accepted" >"$T/accepted_ids" # comm and join want the lexical order
accepted=$(wc -l <"$T/accepted_ids")
jq -r .id "$T/jobs" | sort -u >"$T/job_ids"
missing=$(comm -23 "$T/accepted_ids" "$T/job_ids" | wc -l)
unacked=$(comm -13 "$T/accepted_ids" "$T/job_ids" | wc -l)
count() { jq -r .state "$T/jobs" | grep -cx "$1"; }
succeeded=$(count succeeded) failed=$(count failed) cancelled=$(count cancelled)
stuck=$(jq -r 'select(.state == "queued" or .state == "running") | .id' "$T/jobs" | wc -l)
ended=$(join "$T/accepted_ids" <(jq -r 'select(.state == "succeeded" or .state == "failed" or .state == "cancelled") | .id' "$T/jobs" | sort) | wc -l)
retried=$(jq -r 'select(.attempts > 1) | .id' "$T/jobs" | wc -l)
results=$(wc -l <"$T/results")
dups=$(sort "$T/results" | uniq -d | wc -l)
refused=$(wc -l <"$T/refused")

echo "rounds $round in ${elapsed} s (stopped by $why): kill -9 of a worker $kills_worker, ppbenchd $kills_server, postgresql $kills_pg; skipped $skipped (none to kill); ppbenchd starts $STARTS ($restarts_failed needed a second try)"
echo "submissions: accepted $accepted, not accepted $refused (server or database down); jobs in the database $(wc -l <"$T/jobs") (without a 202: $unacked)"
echo "jobs: succeeded $succeeded, failed $failed, cancelled $cancelled, retried after a lost lease $retried; drained in ${drained} s"
echo "results: $results rows, duplicate (job, kernel) $dups"
rc=0
[ "$missing" = 0 ] && [ "$ended" = "$accepted" ] && echo "PASS accepted = ended ($accepted)" ||
    { echo "FAIL accepted = ended: accepted $accepted, ended $ended, missing $missing"; rc=1; }
[ "$stuck" = 0 ] && echo "PASS no job stuck" || { echo "FAIL no job stuck: $stuck queued or running after ${DRAIN_S} s"; rc=1; }
[ "$dups" = 0 ] && echo "PASS no duplicate result" || { echo "FAIL no duplicate result: $dups"; rc=1; }
if [ "$restarts_failed" -gt 0 ]; then
    echo "why a start of ppbenchd needed a second try:"
    sed -E 's/[0-9]+/N/g' "$T/restart_failures" | sort | uniq -c | sort -rn | head -n 5
fi
if [ "$failed" -gt 0 ]; then
    echo "failed jobs' reasons:"
    jq -r 'select(.state == "failed") | .id' "$T/jobs" | head -n 200 | while read -r id; do
        get "/api/v1/jobs/$id" | jq -r '.error // "?"'
    done | sed -E 's/[0-9]+/N/g' | sort | uniq -c | sort -rn | head -n 5
fi
exit $rc
