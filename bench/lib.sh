# Shared by the service benchmarks (bench/server.sh, bench/pp.sh): a temporary state folder $T (removed at
# exit), a loopback port and $URL, and server_start to run ppbenchd there. Source it from the repository root
# with B (the build folder) set.
T=$(mktemp -d)
chmod 755 "$T" # the embedded PostgreSQL runs as the postgres user under root: it must reach $T/state
PORT=$((30000 + RANDOM % 20000))
URL=http://127.0.0.1:$PORT
pid=""
bench_cleanup() { [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$T"; }
trap bench_cleanup EXIT

# server_start [CONFIG LINE...]: ppbenchd with the embedded default in $T/state plus the lines given; waits
# for it to be ready and sets pid and ADMIN (read from the state directory's admin.token; exits when it does
# not start).
server_start() {
    printf 'listen = 127.0.0.1:%s\nstate_dir = %s/state\nlog_level = warning\n' "$PORT" "$T" >"$T/conf"
    for l in "$@"; do echo "$l" >>"$T/conf"; done
    "$B/bin/ppbenchd" --config "$T/conf" >"$T/log" 2>&1 &
    pid=$!
    for _ in $(seq 300); do grep -q '^ppbench is ready' "$T/log" && break; sleep 0.1; done
    grep -q '^ppbench is ready' "$T/log" || { echo "ppbenchd did not start: $(tail -n 5 "$T/log")" >&2; exit 1; }
    ADMIN=$(cat "$T/state/admin.token")
}
