# A result whose reading, sending and storing outlast the job's lease is kept, not lost and run again (issue
# 22): while the worker reads the child's report and posts it, the job's heartbeats come from a thread of their
# own (worker/beat.c). A standalone `ppbench-worker serve` talks to a real ppbenchd (lease 6 s, heartbeats every
# 1 s) through a proxy that passes what the worker sends at 1 MB/s, so the 12 MB report of the largest numtimes
# takes about 12 s to arrive, two leases; the job must succeed at its first attempt. The proxy's log shows that
# the post did outlast the lease (else the check would prove nothing). Not a shorter lease: ppbenchd reads and
# checks the report in the thread that serves the post, and a heartbeat that thread also serves waits meanwhile
# (over 3 s under the sanitizers on a busy machine: with a 3 s lease the job went back to the queue).
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../lib/server.sh"
[ -x "$SERVER" ] && [ -x "$WORKER" ] || { skip "result lease" "ppbenchd or ppbench-worker not built"; exit 0; }
command -v python3 >/dev/null || { skip "result lease" "no python3 for the slow proxy"; exit 0; }
LEASE=6
server_start "embedded_workers = false" "lease_s = $LEASE" "heartbeat_s = 1"
WT=$WORKER_TOKEN
PPORT=$(free_port)
# The proxy: one thread per direction of each connection; what the worker sends is paced to RATE bytes/s per
# connection; one line per burst of it (bytes with no pause of 0.3 s): "<bytes> <seconds from its first byte
# to its last>".
python3 -u - "$PPORT" "$PORT" 1000000 >"$TMP/proxy.log" 2>&1 <<'EOF' &
import socket, sys, threading, time
listen, upstream, rate = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
def pump(src, dst, paced):
    n, start, last = 0, 0.0, 0.0
    src.settimeout(0.3 if paced else None)
    while True:
        try:
            data = src.recv(65536)
        except socket.timeout:
            if n:
                print(n, "%.2f" % (last - start), flush=True)
            n = 0
            continue
        except OSError:
            break
        if not data:
            break
        if not n:
            start = time.monotonic()
        try:
            dst.sendall(data)
        except OSError:
            break
        n += len(data)
        last = time.monotonic()
        if paced:
            time.sleep(max(0.0, start + n / rate - time.monotonic()))
    if paced and n:
        print(n, "%.2f" % (last - start), flush=True)
    for s in (dst, src):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
def serve(c):
    u = socket.create_connection(("127.0.0.1", upstream))
    threading.Thread(target=pump, args=(c, u, True), daemon=True).start()
    threading.Thread(target=pump, args=(u, c, False), daemon=True).start()
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", listen))
s.listen(64)
print("listening", flush=True)
while True:
    c, _ = s.accept()
    serve(c)
EOF
PROXY=$!
wait_for 5 grep -q listening "$TMP/proxy.log"
# one OpenMP thread: the run itself is not the subject, and its 600,000 samples run fastest alone on a busy machine
OMP_NUM_THREADS=1 PPBENCH_WORKER_TOKEN=$WT "$WORKER" serve --server "http://127.0.0.1:$PPORT" --platform cpu0 >"$TMP/worker.log" 2>&1 &
WPID=$!
trap 'kill $WPID $PROXY 2>/dev/null; wait $WPID $PROXY 2>/dev/null; server_cleanup' EXIT
wait_cpu_worker || { fail "result lease: the worker serves cpu0" "$(tail -n 3 "$TMP/worker.log" | tr '\n' ' ')"; exit 0; }
api POST /api/v1/jobs "{\"suite\":\"stream\",\"model\":\"openmp\",\"platform\":\"$CPU\",\"max_attempts\":2,\"params\":{\"arraysize\":100,\"numtimes\":100000}}" "$ADMIN"
id=$(printf '%s' "$BODY" | jq -r .id)
wait_job "$id" "succeeded|failed|cancelled" 150
api GET "/api/v1/jobs/$id"
state=$(printf '%s' "$BODY" | jq -r '"\(.state) attempts=\(.attempts) error=\(.error)"')
if printf '%s' "$BODY" | jq -e '.state == "succeeded" and .attempts == 1' >/dev/null; then
    pass "a result posted for longer than the lease is taken at the first attempt ($state)"
else
    fail "a result posted for longer than the lease is taken at the first attempt" \
        "$state; worker: $(grep -E 'result|stale|no longer|heartbeat' "$TMP/worker.log" | tail -n 6 | tr '\n' ' ');
        server: $(grep -E 'lease expired|job=1' "$SERVER_LOG" | tail -n 4 | tr '\n' ' ')"
fi
# The check above proves something only if the post did outlast the lease: the largest request through the
# proxy (the report) took longer than the lease to send.
big=$(sort -n "$TMP/proxy.log" | tail -n 1)
if awk -v l="$LEASE" -v b="$big" 'BEGIN { split(b, f, " "); exit !(f[1] > 10000000 && f[2] > l) }'; then
    pass "result lease: the report's post outlasted the $LEASE s lease (bytes, seconds: $big)"
else
    fail "result lease: the report's post outlasted the $LEASE s lease" "largest request: $big"
fi
