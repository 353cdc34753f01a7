#!/usr/bin/env bash
# GET /metrics and the judging trigger at fleet scale (issue 16): a temporary ppbenchd (embedded PostgreSQL, no
# workers), 1,000 platforms (125 device models of 8) and ROWS results generated with generate_series straight
# into its database (PROBLEMS problems per platform: the first of STREAM's 6 kernels x cuda/opencl x fp64/fp32
# and CG's 4 kernels, one size; 2 % failed verifications, 1 % 15 % low) in statements of 10,000 (each its own
# transaction, as reports arrive), each judged by the trigger as it is stored; then N scrapes of /metrics with
# curl: median and p95, and the body's series.
#   bench/metrics.sh [ROWS, default 1000000] [N scrapes, default 20] [PROBLEMS, 1 to 28, default 6]
set -eu
cd "$(dirname "$0")/.."
ROWS=${1:-1000000}
N=${2:-20}
PROBLEMS=${3:-6}
B=${BUILD:-build}
. bench/lib.sh
server_start "embedded_workers = false"
sql() { psql -qAtX -v ON_ERROR_STOP=1 "host=$T/state/pg/run dbname=ppbench user=ppbench" -c "$1"; }

[ "$PROBLEMS" -ge 1 ] && [ "$PROBLEMS" -le 28 ] || { echo "PROBLEMS must be from 1 to 28" >&2; exit 2; }
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1e6}' /proc/meminfo); $(date -u +%Y-%m-%dT%H:%MZ); ppbench $(git describe --always --dirty); $(sql 'SHOW server_version')"
sql "INSERT INTO platforms (id, kind, name) SELECT format('fleet-%s', lpad(i::text, 4, '0')), 'gpu',
     format('bench gpu %s', i % 125) FROM generate_series(0, 999) i"
t0=$(date +%s.%N)
CHUNK=10000
for a in $(seq 1 $CHUNK "$ROWS"); do
b=$((a + CHUNK - 1 < ROWS ? a + CHUNK - 1 : ROWS))
sql "INSERT INTO results (platform_id, suite, kernel, model, variant, precision, size, bytes, flops, times_s,
                          min_s, max_s, mean_s, median_s, stddev_s, bandwidth, gflops, verified, error, provenance)
     SELECT p, pr.suite, pr.kernel, pr.model, '', pr.prec, 33554432, bytes, 0, ARRAY[t, t], t, t, t, t, 0, bytes / t, 0,
            ok, CASE WHEN ok THEN NULL ELSE 'triad: a[3] = 0.5, expected 0.1' END,
            jsonb_build_object('ppbench.version', 'bench', 'compiler', 'gcc 12.2.0', 'cuda.driver_version', '12.4',
                               'opencl.driver_version', '12.4')
     FROM (SELECT i, format('fleet-%s', lpad((i % 1000)::text, 4, '0')) AS p, (i / 1000) % $PROBLEMS AS o,
                  (i % 50) <> 7 AS ok, 805306368.0 AS bytes,
                  805306368.0 / (3e12 * (CASE WHEN i % 100 = 3 THEN 0.85 ELSE 1 END) * (1 + (i % 7) / 1000.0)) AS t
           FROM generate_series($a, $b) i) g
     JOIN (SELECT row_number() OVER () - 1 AS o, * FROM (VALUES
         ('stream', 'copy', 'cuda', 'fp64'), ('stream', 'mul', 'cuda', 'fp64'), ('stream', 'add', 'cuda', 'fp64'),
         ('stream', 'triad', 'cuda', 'fp64'), ('stream', 'dot', 'cuda', 'fp64'), ('stream', 'nstream', 'cuda', 'fp64'),
         ('stream', 'copy', 'cuda', 'fp32'), ('stream', 'mul', 'cuda', 'fp32'), ('stream', 'add', 'cuda', 'fp32'),
         ('stream', 'triad', 'cuda', 'fp32'), ('stream', 'dot', 'cuda', 'fp32'), ('stream', 'nstream', 'cuda', 'fp32'),
         ('stream', 'copy', 'opencl', 'fp64'), ('stream', 'mul', 'opencl', 'fp64'), ('stream', 'add', 'opencl', 'fp64'),
         ('stream', 'triad', 'opencl', 'fp64'), ('stream', 'dot', 'opencl', 'fp64'), ('stream', 'nstream', 'opencl', 'fp64'),
         ('stream', 'copy', 'opencl', 'fp32'), ('stream', 'mul', 'opencl', 'fp32'), ('stream', 'add', 'opencl', 'fp32'),
         ('stream', 'triad', 'opencl', 'fp32'), ('stream', 'dot', 'opencl', 'fp32'), ('stream', 'nstream', 'opencl', 'fp32'),
         ('cg', 'axpby', 'cuda', 'fp64'), ('cg', 'dot', 'cuda', 'fp64'), ('cg', 'spmv', 'cuda', 'fp64'),
         ('cg', 'cg', 'cuda', 'fp64')) v (suite, kernel, model, prec)) pr ON pr.o = g.o"
done
t1=$(date +%s.%N)
sql "VACUUM ANALYZE" 2>/dev/null
echo "data: $(sql 'SELECT count(*) FROM results') results stored and judged in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s ($(awk -v a="$t0" -v b="$t1" -v n="$ROWS" 'BEGIN { printf "%.0f", (b - a) / n * 1e6 }') us per result with the insert itself); $(sql 'SELECT count(*) FROM baselines') baselines, $(sql 'SELECT count(*) FROM metric_series') metric series, $(sql "SELECT string_agg(state || ' ' || n, ', ') FROM (SELECT state, count(*) n FROM platform_health GROUP BY state) s"), $(sql 'SELECT count(*) FROM alerts') alerts"
echo "load average before the scrapes: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in 1 2; do curl -s -o /dev/null "$URL/metrics"; done
curl -s -o "$T/body" "$URL/metrics"
for _ in $(seq "$N"); do curl -s -o /dev/null -w '%{time_total}\n' "$URL/metrics"; done | sort -n >"$T/times"
awk -v n="$N" -v bytes="$(wc -c <"$T/body")" -v series="$(grep -vc '^#' "$T/body")" '{ t[NR] = $1 * 1000 }
    END { p95 = int(0.95 * n + 0.999); printf "GET /metrics  median %6.1f ms  p95 %6.1f ms  max %6.1f ms  (%d scrapes, %d bytes, %d series)\n",
          t[int((n + 1) / 2)], t[p95], t[n], n, bytes, series }' "$T/times"
echo "load average after the scrapes: $(cut -d' ' -f1-3 /proc/loadavg)"
