#!/usr/bin/env bash
# The Results and Portability API calls with 1,000,000 result rows: a temporary ppbenchd (embedded PostgreSQL,
# no workers), 24 platforms and 1,000,000 results generated with generate_series straight into its database
# (6 kernels, 2 precisions, 4 sizes with 2^25 the most common, 5 models with 2 variants, 100 times per row, 2 %
# failed, 90 days), then N calls of each request with curl: median and p95 of the total time.
#   bench/pp.sh [ROWS, default 1000000] [N calls per request, default 20]
set -eu
cd "$(dirname "$0")/.."
ROWS=${1:-1000000}
N=${2:-20}
B=${BUILD:-build}
. bench/lib.sh
server_start "embedded_workers = false"
sql() { psql -qAtX -v ON_ERROR_STOP=1 "host=$T/state/pg/run dbname=ppbench user=ppbench" -c "$1"; }

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1e6}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%Y-%m-%dT%H:%MZ); ppbench $(git describe --always --dirty); $(sql 'SHOW server_version')"

t0=$(date +%s.%N)
sql "INSERT INTO platforms (id, kind, name, peak_bandwidth, peak_source)
     SELECT format('bench-%s', lpad(i::text, 2, '0')), CASE WHEN i % 3 = 0 THEN 'cpu' ELSE 'gpu' END,
            format('bench device %s', i), CASE WHEN i % 5 = 4 THEN NULL ELSE (200 + 150 * i) * 1e9 END,
            CASE WHEN i % 5 = 4 THEN 'unknown' ELSE 'operator: bench' END
     FROM generate_series(0, 23) i"
sql "INSERT INTO results (platform_id, suite, kernel, model, variant, precision, size, bytes, flops, times_s,
                          min_s, max_s, mean_s, median_s, stddev_s, bandwidth, gflops, verified, error, provenance,
                          created_at)
     SELECT p, 'stream', k, m, v, prec, n, bytes, fl * n,
            ARRAY(SELECT t * (1 + ((i * 31 + j) % 17) / 100.0) FROM generate_series(1, 100) j),
            t, t * 1.17, t * 1.05, t * 1.04, t * 0.03, bw, fl * n / t * 1e-9, ok,
            CASE WHEN ok THEN NULL ELSE 'triad: a[3] = 0.5, expected 0.1' END,
            jsonb_build_object('ppbench.version', 'bench', 'compiler', 'gcc 12.2.0', 'host', 'bench-host',
                               'device', jsonb_build_object('name', 'bench device', 'uuid', md5(p)),
                               'env', jsonb_build_object('OMP_NUM_THREADS', '16', 'OMP_PROC_BIND', 'spread')),
            now() - (i % 7776000) * interval '1 second'
     FROM (SELECT *, bytes / bw AS t FROM
           (SELECT i, p, k, m, v, prec, n, fl, ok, bw, w * eb * n AS bytes FROM
            (SELECT i, format('bench-%s', lpad((i % 24)::text, 2, '0')) AS p,
                    (ARRAY['copy', 'mul', 'add', 'triad', 'dot', 'nstream'])[1 + (i / 24) % 6] AS k,
                    (ARRAY[2, 2, 3, 3, 2, 4])[1 + (i / 24) % 6] AS w, (ARRAY[0, 1, 1, 2, 2, 3])[1 + (i / 24) % 6] AS fl,
                    (ARRAY['openmp', 'opencl', 'cuda', 'kokkos', 'sycl'])[1 + (i / 144) % 5] AS m,
                    (ARRAY['vec16', 'scalar'])[1 + (i / 720) % 2] AS v,
                    CASE WHEN (i / 1440) % 3 = 0 THEN 'fp32' ELSE 'fp64' END AS prec,
                    CASE WHEN (i / 1440) % 3 = 0 THEN 4 ELSE 8 END AS eb,
                    (ARRAY[1048576, 4194304, 33554432, 33554432, 33554432, 268435456]::bigint[])[1 + (i / 4320) % 6] AS n,
                    (i % 50) <> 7 AS ok, 1e11 * (1 + (i % 29)) AS bw
             FROM generate_series(1, $ROWS) i) a) b) g"
sql "VACUUM ANALYZE results" 2>/dev/null
sql "VACUUM ANALYZE platforms" 2>/dev/null
t1=$(date +%s.%N)
echo "data: $(sql 'SELECT count(*) FROM results') results ($(sql 'SELECT count(*) FROM results WHERE verified') verified), $(sql 'SELECT count(*) FROM platforms') platforms, table $(sql "SELECT pg_size_pretty(pg_total_relation_size('results'))") with indexes; generated in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s"
echo "stream.triad fp64 at 2^25: $(sql "SELECT count(*) FROM results WHERE verified AND kernel = 'triad' AND precision = 'fp64' AND size = 33554432") verified rows"

# measure NAME PATH: N calls after 2 warm-ups; prints median, p95 (nearest rank), max and the body size.
measure() {
    local name=$1 path=$2 code
    for _ in 1 2; do curl -s -o /dev/null "$URL$path"; done
    code=$(curl -s -o "$T/body" -w '%{http_code}' "$URL$path")
    for _ in $(seq "$N"); do curl -s -o /dev/null -w '%{time_total}\n' "$URL$path"; done | sort -n >"$T/times"
    awk -v n="$N" -v name="$name" -v code="$code" -v bytes="$(wc -c <"$T/body")" '{ t[NR] = $1 * 1000 }
        END { p95 = int(0.95 * n + 0.999); printf "%-58s %s  median %6.1f ms  p95 %6.1f ms  max %6.1f ms  (%d calls, %d bytes)\n",
              name, code, t[int((n + 1) / 2)], t[p95], t[n], n, bytes }' "$T/times"
}
P5=bench-00,bench-01,bench-02,bench-03,bench-05
echo "load average before the calls: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== Results"
measure "results suite=stream kernel=triad limit=100" "/api/v1/results?suite=stream&kernel=triad&limit=100"
measure "results suite=stream kernel=triad limit=1000" "/api/v1/results?suite=stream&kernel=triad&limit=1000"
measure "results kernel=triad platform=bench-07 model=sycl limit=100" "/api/v1/results?kernel=triad&platform=bench-07&model=sycl&limit=100"
echo "== Portability"
measure "pp problem=stream.triad (default size, all 24 platforms)" "/api/v1/pp?problem=stream.triad"
measure "pp problem=stream.triad efficiency=arch, 5 platforms" "/api/v1/pp?problem=stream.triad&efficiency=arch&platforms=$P5"
measure "pp problem=stream.dot fp32 size=2^28 fixed variant" "/api/v1/pp?problem=stream.dot&precision=fp32&size=268435456&variant_policy=fixed&variant=vec16"
measure "results format=p3 kernel=triad (the P3 export)" "/api/v1/results?kernel=triad&format=p3"
echo "load average after the calls: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -d tests/browser/node_modules/playwright-core ] && [ -x /usr/bin/chromium ]; then
    echo "== Pages in headless Chromium (navigation to chart and table drawn)"
    PPBENCH_URL=$URL node bench/pages.mjs 7
else
    echo "== Pages: skipped (run make test once for tests/browser/node_modules, and install chromium)"
fi
