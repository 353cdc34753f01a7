# Helpers for tests that need a running ppbenchd: the real binary on a free loopback port, with its workers,
# stopped when the test file ends. Source after check.sh. The database is one of two:
#  - by default a database of the test's own in the run's PostgreSQL cluster (pg_shared of tests/lib/pg.sh: the one
#    tests/run.sh started, else one in $TMP), made from a template that holds the schema. ppbenchd gets its URL and,
#    as in production, the workers are services of their own: one `ppbench-worker serve` per local platform,
#    started and stopped here with the server (none with "embedded_workers = false");
#  - with SERVER_EMBEDDED=1: the embedded default a user gets from `make run`, ppbenchd's own PostgreSQL in
#    $STATE/pg with its supervised workers and its token files, for the tests of that default itself.
# server_start sets URL, PORT, ADMIN (an admin token), WORKER_TOKEN (a worker token) and DB (the database as a
# libpq conninfo, for psql).
. "$(dirname "${BASH_SOURCE[0]}")/pg.sh"
SERVER="$BUILD/bin/ppbenchd"
chmod 755 "$TMP" # the embedded PostgreSQL runs as postgres when the tests run as root
STATE="$TMP/state"
SERVER_LOG="$TMP/ppbenchd.log"
SERVER_PID=""
WORKER_PIDS=()
DB=""

free_port() {
    local p
    for _ in $(seq 50); do
        p=$((20000 + RANDOM % 20000))
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
    done
    echo 0
}

# server_start [key = value ...]: start ppbenchd (and its workers); sets URL, PORT, ADMIN, WORKER_TOKEN and DB.
server_start() {
    local attempt
    server_db
    for attempt in 1 2 3; do
        server_start_once "$@" && { server_workers "$@"; return 0; }
        # The port was taken between the probe and the bind (another test run): try another one.
        grep -q 'cannot listen' "$SERVER_LOG" || break
        PORT=""
    done
    echo "FAIL server start: $(tail -n 5 "$SERVER_LOG" | tr '\n' ' ')"
    exit 1
}

# server_db: once, the test's database in the run's cluster (its URL exported for every ppbenchd the test runs)
# and its tokens; DB alone in the embedded default.
server_db() {
    local name=t$$_$(basename "$0" .sh)
    [ -z "$DB" ] || return 0
    if [ -n "${SERVER_EMBEDDED:-}" ]; then
        DB="host=$STATE/pg/run dbname=ppbench user=ppbench"
        return 0
    fi
    if ! { pg_shared "$TMP/pg" && pg_template_db "$name" "$SERVER"; } >>"$TMP/pg.log" 2>&1; then
        echo "FAIL server database: $(tail -n 3 "$TMP/pg.log" | tr '\n' ' ')"
        exit 1
    fi
    DB="host=$PGHOST port=$PGPORT dbname=$name user=ppbench"
    export PPBENCH_DATABASE_URL=$DB
    ADMIN=$("$SERVER" token create --role admin 2>>"$TMP/pg.log")
    WORKER_TOKEN=$("$SERVER" token create --role worker 2>>"$TMP/pg.log")
}

server_ready() { grep -q '^ppbench is ready' "$SERVER_LOG" || ! kill -0 "$SERVER_PID" 2>/dev/null; }

server_start_once() {
    local conf="$TMP/ppbench.conf"
    PORT=${PORT:-$(free_port)}
    SERVER_STARTS=$((${SERVER_STARTS:-0} + 1))
    SERVER_LOG="$TMP/ppbenchd.$SERVER_STARTS.log"
    # noise_repeats = 0: a test about something else gets one attempt per job whatever the machine's load (the
    # noise rule's own tests ask for repeats)
    printf 'listen = 127.0.0.1:%s\nstate_dir = %s\nthreads = 4\nnoise_repeats = 0\n' "$PORT" "$STATE" >"$conf"
    for line in "$@"; do printf '%s\n' "$line" >>"$conf"; done
    "$SERVER" --config "$conf" >>"$SERVER_LOG" 2>&1 &
    SERVER_PID=$!
    wait_for 30 server_ready
    URL="http://127.0.0.1:$PORT"
    grep -q '^ppbench is ready' "$SERVER_LOG" || return 1
    if [ -n "${SERVER_EMBEDDED:-}" ]; then
        ADMIN=$(cat "$STATE/admin.token" 2>/dev/null)
        WORKER_TOKEN=$(cat "$STATE/worker.token" 2>/dev/null)
    fi
    [ -n "$ADMIN" ]
}

# server_workers [key = value ...]: beside a ppbenchd on the run's cluster, one `ppbench-worker serve` per local
# platform, as the embedded default's supervisor starts them (its own process group, the server's log, the
# environment without the database URL); none with "embedded_workers = false".
server_workers() {
    local p
    [ -z "${SERVER_EMBEDDED:-}" ] || return 0
    for p in "$@"; do [[ "$p" =~ ^embedded_workers\ *=\ *false$ ]] && return 0; done
    [ -n "${SERVER_PLATFORMS:-}" ] || SERVER_PLATFORMS=$("$WORKER" list --json 2>>"$SERVER_LOG" | jq -r '.platforms[].id')
    for p in $SERVER_PLATFORMS; do
        env -u PPBENCH_DATABASE_URL PPBENCH_WORKER_TOKEN="$WORKER_TOKEN" \
            setsid "$WORKER" serve --server "$URL" --platform "$p" >>"$SERVER_LOG" 2>&1 &
        WORKER_PIDS+=($!)
    done
}

# psql_q SQL: run SQL in ppbenchd's database (tuples only, unaligned), with the judging queue drained before
# and after it: the server judges queued results within milliseconds (judge_pending, schema/functions/judge.sql), a test
# reads the verdicts of what it or a job stored at once.
psql_q() {
    psql -qAt "$DB" -c '\o /dev/null' -c 'SELECT judge_pending()' \
        -c '\o' -c "$1" -c '\o /dev/null' -c 'SELECT judge_pending()'
}

# stop_pid PID SECONDS: SIGTERM, after SECONDS SIGKILL (to its process group too, where it leads one); reaped.
pid_gone() { ! kill -0 "$1" 2>/dev/null; }
stop_pid() {
    kill -TERM "$1" 2>/dev/null
    wait_for "$2" pid_gone "$1"
    kill -KILL -- "-$1" "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}

server_stop() {
    local p
    # the workers first, as ppbenchd's supervisor does: they finish or release their jobs while the API answers
    for p in "${WORKER_PIDS[@]}"; do stop_pid "$p" 10; done
    WORKER_PIDS=()
    [ -n "$SERVER_PID" ] || return 0
    stop_pid "$SERVER_PID" 15
    SERVER_PID=""
    # In the sanitizer build, a leak or undefined behaviour in the server is a failure like any other.
    if [ -f "$SERVER_LOG" ] && grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$SERVER_LOG"; then
        fail "ppbenchd sanitizer report ($(basename "$SERVER_LOG"))" \
            "$(grep -m1 -A6 -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$SERVER_LOG" | tr '\n' ' ' | head -c 600)"
    fi
}

server_cleanup() {
    server_stop
    # A server killed with -9 leaves its embedded PostgreSQL running: stop it too.
    local pgctl
    pgctl=$(ls /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null | tail -n 1)
    if [ -n "$pgctl" ] && [ -f "$STATE/pg/data/postmaster.pid" ]; then
        if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$pgctl -D '$STATE/pg/data' -m immediate stop" >/dev/null 2>&1
        else "$pgctl" -D "$STATE/pg/data" -m immediate stop >/dev/null 2>&1; fi
    fi
    pg_stop_all # a cluster of the test's own (the run's goes at the end of the run, with every database in it)
    rm -rf "$TMP"
}
trap server_cleanup EXIT
[ -n "${KEEP_LOG:-}" ] && trap 'cp "$SERVER_LOG" /tmp/last-ppbenchd.log; server_cleanup' EXIT

# api METHOD PATH [BODY] [TOKEN]: sets STATUS and BODY (the response). With AS_WORKER_ID and AS_WORKER_SECRET
# set (a registration's answer: as_worker "$BODY"), the call names that worker and presents its secret.
api() {
    local method=$1 path=$2 body=${3-} token=${4-}
    local -a args=(-s -o "$TMP/resp" -w '%{http_code}' -X "$method")
    [ -n "$token" ] && args+=(-H "Authorization: Bearer $token")
    [ -n "${AS_WORKER_SECRET:-}" ] && args+=(-H "X-Worker-Id: $AS_WORKER_ID" -H "X-Worker-Secret: $AS_WORKER_SECRET")
    [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
    STATUS=$(curl "${args[@]}" "$URL$path")
    BODY=$(cat "$TMP/resp")
}

# as_worker REGISTRATION_ANSWER: later calls act as that worker (see api).
as_worker() {
    AS_WORKER_ID=$(printf '%s' "$1" | jq -r .worker_id)
    AS_WORKER_SECRET=$(printf '%s' "$1" | jq -r .worker_secret)
}

# expect_api NAME STATUS CODE METHOD PATH [BODY] [TOKEN]: the status and the error code (or - for none).
expect_api() {
    local name=$1 want=$2 code=$3
    shift 3
    api "$@"
    local got_code
    got_code=$(printf '%s' "$BODY" | jq -r '.error.code // "-"' 2>/dev/null)
    if [ "$STATUS" = "$want" ] && [ "$got_code" = "$code" ]; then
        pass "$name"
    else
        fail "$name" "got $STATUS $got_code, expected $want $code: $(printf '%s' "$BODY" | head -c 200)"
    fi
}

# wait_job ID STATES SECONDS: until the job's state is one of STATES ("succeeded|failed"), for at most SECONDS;
# BODY is its document. Between two looks it blocks on the job's event stream (GET /api/v1/jobs/{id}/events,
# from the last event seen: a state event comes the moment it is recorded, and the stream ends after the
# terminal one) instead of polling, so a waiting script takes no CPU from the job it waits for. A job that
# ended in another state never gets there: non-zero at once. A stream that ends without the state (the server
# restarting, say) is looked at again after 0.1 s, as wait_for does.
job_in() {
    api GET "/api/v1/jobs/$1"
    [[ "$(printf '%s' "$BODY" | jq -r .state)" =~ ^($2)$ ]]
}
wait_job() {
    local id=$1 states=$2 end=$(($(now_us) + $(us "$3"))) last=0 event="" line left seen
    until job_in "$id" "$states"; do
        [[ "$(printf '%s' "$BODY" | jq -r .state)" =~ ^(succeeded|failed|cancelled)$ ]] && return 1
        left=$((end - $(now_us)))
        [ "$left" -gt 0 ] || return 1
        seen=""
        while IFS= read -r line; do
            case $line in
            id:*) last=${line#id: } ;;
            event:*) event=${line#event: } ;;
            data:*) [ "$event" = state ] && [[ $line =~ \"state\":\ ?\"($states)\" ]] && seen=1 && break ;;
            esac
        done < <(curl -sN -m "$((left / 1000000)).$(printf %06d $((left % 1000000)))" -H "Last-Event-ID: $last" \
            "$URL/api/v1/jobs/$id/events" 2>/dev/null)
        kill "$!" 2>/dev/null
        [ -n "$seen" ] || sleep 0.1
    done
}

# wait_cpu_worker: wait (up to 20 s) until a worker serves cpu0 and is idle; sets CPU to that platform's id
# ("host/cpu0"), empty when none came.
cpu_worker_idle() {
    api GET /api/v1/platforms
    CPU=$(printf '%s' "$BODY" | jq -r '.platforms[] | select(.local_id == "cpu0" and .worker.state == "idle") | .id')
    [ -n "$CPU" ]
}
wait_cpu_worker() { wait_for 20 cpu_worker_idle; }
