# Helpers for tests that need a running ppbenchd: the real binary with its embedded PostgreSQL (the default a
# user gets from `make run`), on a free loopback port, stopped when the test file ends. Source after lib.sh.
SERVER="$BUILD/bin/ppbenchd"
chmod 755 "$TMP" # the embedded PostgreSQL runs as postgres when the tests run as root
STATE="$TMP/state"
SERVER_LOG="$TMP/ppbenchd.log"
SERVER_PID=""

free_port() {
    local p
    for _ in $(seq 50); do
        p=$((20000 + RANDOM % 20000))
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
    done
    echo 0
}

# server_start [key = value ...]: start ppbenchd; sets URL and ADMIN (the admin token, read from the 0600 file
# ppbenchd keeps in its state directory: it prints the token only on the start that made it).
server_start() {
    local attempt
    for attempt in 1 2 3; do
        server_start_once "$@" && return 0
        # The port was taken between the probe and the bind (another test run): try another one.
        grep -q 'cannot listen' "$SERVER_LOG" || break
        PORT=""
    done
    echo "FAIL server start: $(tail -n 5 "$SERVER_LOG" | tr '\n' ' ')"
    exit 1
}

server_start_once() {
    local conf="$TMP/ppbench.conf" i
    PORT=${PORT:-$(free_port)}
    SERVER_STARTS=$((${SERVER_STARTS:-0} + 1))
    SERVER_LOG="$TMP/ppbenchd.$SERVER_STARTS.log"
    # noise_repeats = 0: a test about something else gets one attempt per job whatever the machine's load (the
    # noise rule's own tests ask for repeats)
    printf 'listen = 127.0.0.1:%s\nstate_dir = %s\nthreads = 4\nnoise_repeats = 0\n' "$PORT" "$STATE" >"$conf"
    for line in "$@"; do printf '%s\n' "$line" >>"$conf"; done
    "$SERVER" --config "$conf" >>"$SERVER_LOG" 2>&1 &
    SERVER_PID=$!
    for i in $(seq 300); do
        grep -q '^ppbench is ready' "$SERVER_LOG" && break
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    URL="http://127.0.0.1:$PORT"
    grep -q '^ppbench is ready' "$SERVER_LOG" || return 1
    ADMIN=$(cat "$STATE/admin.token" 2>/dev/null)
    [ -n "$ADMIN" ]
}

# psql_q SQL: run SQL in ppbenchd's database (tuples only, unaligned), with the judging queue drained before
# and after it: the server judges queued results within milliseconds (judge_pending, schema/functions/judge.sql), a test
# reads the verdicts of what it or a job stored at once.
psql_q() {
    psql -qAt "host=$STATE/pg/run dbname=ppbench user=ppbench" -c '\o /dev/null' -c 'SELECT judge_pending()' \
        -c '\o' -c "$1" -c '\o /dev/null' -c 'SELECT judge_pending()'
}

server_stop() {
    [ -n "$SERVER_PID" ] || return 0
    kill -TERM "$SERVER_PID" 2>/dev/null
    for _ in $(seq 150); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
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

# wait_job ID STATES SECONDS: poll until the job's state is one of STATES ("succeeded|failed").
wait_job() {
    local id=$1 states=$2 secs=$3 s
    for _ in $(seq $((secs * 10))); do
        api GET "/api/v1/jobs/$id"
        s=$(printf '%s' "$BODY" | jq -r .state)
        [[ "$s" =~ ^($states)$ ]] && return 0
        sleep 0.1
    done
    return 1
}

# wait_cpu_worker: wait (up to 20 s) until a supervised worker serves cpu0 and is idle; sets CPU to that
# platform's id ("host/cpu0"), empty when none came.
wait_cpu_worker() {
    CPU=""
    for _ in $(seq 100); do
        api GET /api/v1/platforms
        CPU=$(printf '%s' "$BODY" | jq -r '.platforms[] | select(.local_id == "cpu0" and .worker.state == "idle") | .id')
        [ -n "$CPU" ] && return 0
        sleep 0.2
    done
    return 1
}
