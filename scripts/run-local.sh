#!/usr/bin/env bash
# `make run`: the embedded default. ppbenchd starts its own PostgreSQL in ./ppbench-state (or $PPBENCH_STATE),
# one worker per local platform, and serves the API and the dashboard on 127.0.0.1:8080 (or $PPBENCH_LISTEN).
# It prints the URL and, on the first start, an admin token (kept in $STATE/admin.token, mode 0600), opens the
# URL where a desktop is there to open it, and runs until Ctrl-C. PPBENCH_CONFIG names a configuration file
# (deploy/ppbench.conf.example lists every setting) whose settings apply but for the state directory and the
# address, which PPBENCH_STATE and PPBENCH_LISTEN give (options override the file).
#   make run                                  the service
#   PPBENCH_CONFIG=my.conf make run           the service with my.conf's settings (log_level, lease_s, ...)
#   make run-standalone                       STREAM on every local platform and model, no server (tables)
set -u
BUILD=${BUILD:-build}
STATE=${PPBENCH_STATE:-ppbench-state}
LISTEN=${PPBENCH_LISTEN:-127.0.0.1:8080}
CONFIG=()
if [ -n "${PPBENCH_CONFIG:-}" ]; then
    [ -r "$PPBENCH_CONFIG" ] || { echo "run: PPBENCH_CONFIG=$PPBENCH_CONFIG: no such readable file" >&2; exit 2; }
    CONFIG=(--config "$PPBENCH_CONFIG")
fi
mkdir -p "$STATE"
[ "$(id -u)" = 0 ] && chmod 755 "$STATE" # the embedded PostgreSQL runs as the postgres user under root

"$BUILD/bin/ppbenchd" "${CONFIG[@]}" --state-dir "$STATE" --listen "$LISTEN" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid' INT TERM
for _ in $(seq 600); do
    curl -sf "http://$LISTEN/readyz" >/dev/null 2>&1 && break
    kill -0 $pid 2>/dev/null || exit 1
    sleep 0.1
done
url="http://$LISTEN/"
echo "dashboard: $url   (submit with: $BUILD/bin/ppbench --server http://$LISTEN --token \$(cat $STATE/admin.token) submit ...)"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && command -v xdg-open >/dev/null; then
    xdg-open "$url" >/dev/null 2>&1 || true
fi
wait $pid
