#!/usr/bin/env bash
# A fleet's history at scale (issue 16): a year of nightly sweeps of 1,000 GPUs. A temporary ppbenchd
# (embedded PostgreSQL, no workers), 125 hosts of 8 GPUs (4 device models of 250), and ROWS results of
# history generated straight into its database night by night, 28 problems per GPU and night (STREAM's 6
# kernels x cuda/opencl x fp64/fp32, CG's 4 kernels on cuda fp64; 100 timed samples per row as a worker
# stores them; 0.2 % failed verifications; a few GPUs 15 % slow from some night on). The history is stored
# with the judging trigger off and its baselines and health built afterwards in one statement each (the same
# window as the trigger's), so that the next measurements meet a judged fleet:
#   1. ingest with judging on: one night of the whole fleet (28,000 results, generated beforehand into a
#      staging table) as the workers send it (one INSERT per report: 5 reports per GPU, 4 to 6 results each,
#      autocommit) from 2 connections at once; the next night in statements of 980 results from 1
#      connection; each with the time until ppbenchd has judged them all (the INSERT queues them, 027);
#      then, for comparison, both again with the judging trigger off;
#   2. N calls each of the Results, PP, history (a platform's page), Health and baselines requests: median
#      and p95 of the total time (curl);
#   3. the disk (each relation with its indexes) and memory (the PostgreSQL and ppbenchd processes' RSS).
# Everything lies in a temporary folder removed at exit.
#   bench/scale.sh [ROWS, default 10000000] [N calls per request, default 20]
# KEEP=1: after the judged history, print the server's URL and database and keep them until interrupted.
set -eu
cd "$(dirname "$0")/.."
ROWS=${1:-10000000}
N=${2:-20}
B=${BUILD:-build}
GPUS=1000
PER=28 # problems per GPU and night
NIGHTS=$(((ROWS + GPUS * PER - 1) / (GPUS * PER)))
. bench/lib.sh
server_start "embedded_workers = false"
CONN="host=$T/state/pg/run dbname=ppbench user=ppbench"
sql() { psql -qAtX -v ON_ERROR_STOP=1 "$CONN" -c "$1"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
now() { date +%s.%N; }
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1e6}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%Y-%m-%dT%H:%MZ); ppbench $(git describe --always --dirty); $(sql 'SHOW server_version'); disk free $(df -h --output=avail "$T" | tail -n 1 | tr -d ' ')"
echo "fleet: $GPUS GPUs, $PER problems per GPU and night, $NIGHTS nights of history (~$((NIGHTS * GPUS * PER)) results)"

sql "INSERT INTO hosts (name) SELECT format('node-%s', lpad(h::text, 3, '0')) FROM generate_series(0, 124) h"
sql "INSERT INTO platforms (id, host_id, local_id, kind, name, peak_bandwidth, peak_source, models)
     SELECT format('node-%s/gpu%s', lpad((g / 8)::text, 3, '0'), g % 8), h.id, 'gpu' || g % 8, 'gpu',
            (ARRAY['NVIDIA H100 80GB HBM3', 'NVIDIA A100-SXM4-80GB', 'NVIDIA H200', 'NVIDIA L40S'])[1 + g % 4],
            (ARRAY[3.35e12, 2.04e12, 4.8e12, 0.864e12])[1 + g % 4], 'bench', '{cuda,opencl}'
     FROM generate_series(0, $GPUS - 1) g JOIN hosts h ON h.name = format('node-%s', lpad((g / 8)::text, 3, '0'))"
# bench_night(night, from gpu, to gpu, only the rows of report r or all (NULL)): the results of one night, in
# the order the reports arrive (GPU by GPU, report by report); gpu g is 15 % slow from night 200 + g / 5 when
# g % 97 = 13; one result in 500 failed its verification.
sql "CREATE FUNCTION bench_rows(p_night int, p_g0 int, p_g1 int, p_report int)
     RETURNS TABLE (platform_id text, suite text, kernel text, model text, variant text, \"precision\" text, size bigint,
                    bytes float8, bytes_compulsory float8, flops float8, times_s float8[], min_s float8, max_s float8,
                    mean_s float8, median_s float8, stddev_s float8, bandwidth float8, gflops float8, verified boolean,
                    error text, provenance jsonb, created_at timestamptz, stats_count int)
     LANGUAGE sql AS \$\$
     SELECT format('node-%s/gpu%s', lpad((g / 8)::text, 3, '0'), g % 8), pr.suite, pr.kernel, pr.model, '', pr.prec,
            pr.n, x.bytes, x.bytes, x.flops,
            ARRAY(SELECT x.t * (1 + ((g * 31 + j) % 17) / 1000.0) FROM generate_series(1, 100) j),
            x.t, x.t * 1.017, x.t * 1.005, x.t * 1.004, x.t * 0.003, x.bytes / x.t, x.flops / x.t * 1e-9, x.ok,
            CASE WHEN x.ok THEN NULL ELSE pr.kernel || ': 3 of ' || pr.n || ' wrong' END,
            jsonb_build_object('ppbench.version', 'v1.4.0', 'compiler', 'gcc 12.2.0', 'cuda.driver_version', '580.65',
                               'opencl.driver_version', '580.65', 'host', format('node-%s', lpad((g / 8)::text, 3, '0')),
                               'device', jsonb_build_object('name', 'bench', 'uuid', md5(g::text)),
                               'env', jsonb_build_object('CUDA_VISIBLE_DEVICES', (g % 8)::text)),
            now() - (($NIGHTS - p_night) * interval '1 day') + g * interval '2 second', 99
     FROM generate_series(p_g0, p_g1) g
     CROSS JOIN (VALUES
         (0, 0, 'stream', 'copy', 'cuda', 'fp64', 33554432, 16, 0), (1, 0, 'stream', 'mul', 'cuda', 'fp64', 33554432, 16, 1),
         (2, 0, 'stream', 'add', 'cuda', 'fp64', 33554432, 24, 1), (3, 0, 'stream', 'triad', 'cuda', 'fp64', 33554432, 24, 2),
         (4, 0, 'stream', 'dot', 'cuda', 'fp64', 33554432, 16, 2), (5, 0, 'stream', 'nstream', 'cuda', 'fp64', 33554432, 32, 3),
         (6, 1, 'stream', 'copy', 'cuda', 'fp32', 33554432, 8, 0), (7, 1, 'stream', 'mul', 'cuda', 'fp32', 33554432, 8, 1),
         (8, 1, 'stream', 'add', 'cuda', 'fp32', 33554432, 12, 1), (9, 1, 'stream', 'triad', 'cuda', 'fp32', 33554432, 12, 2),
         (10, 1, 'stream', 'dot', 'cuda', 'fp32', 33554432, 8, 2), (11, 1, 'stream', 'nstream', 'cuda', 'fp32', 33554432, 16, 3),
         (12, 2, 'stream', 'copy', 'opencl', 'fp64', 33554432, 16, 0), (13, 2, 'stream', 'mul', 'opencl', 'fp64', 33554432, 16, 1),
         (14, 2, 'stream', 'add', 'opencl', 'fp64', 33554432, 24, 1), (15, 2, 'stream', 'triad', 'opencl', 'fp64', 33554432, 24, 2),
         (16, 2, 'stream', 'dot', 'opencl', 'fp64', 33554432, 16, 2), (17, 2, 'stream', 'nstream', 'opencl', 'fp64', 33554432, 32, 3),
         (18, 3, 'stream', 'copy', 'opencl', 'fp32', 33554432, 8, 0), (19, 3, 'stream', 'mul', 'opencl', 'fp32', 33554432, 8, 1),
         (20, 3, 'stream', 'add', 'opencl', 'fp32', 33554432, 12, 1), (21, 3, 'stream', 'triad', 'opencl', 'fp32', 33554432, 12, 2),
         (22, 3, 'stream', 'dot', 'opencl', 'fp32', 33554432, 8, 2), (23, 3, 'stream', 'nstream', 'opencl', 'fp32', 33554432, 16, 3),
         (24, 4, 'cg', 'axpby', 'cuda', 'fp64', 16777216, 24, 3), (25, 4, 'cg', 'dot', 'cuda', 'fp64', 16777216, 16, 2),
         (26, 4, 'cg', 'spmv', 'cuda', 'fp64', 16777216, 132, 13), (27, 4, 'cg', 'cg', 'cuda', 'fp64', 16777216, 180, 21))
         pr (o, report, suite, kernel, model, prec, n, eb, ef)
     CROSS JOIN LATERAL (
         SELECT (p_night * 7919 + g * 31 + pr.o) % 500 <> 17 AS ok, pr.eb::float8 * pr.n AS bytes,
                pr.ef::float8 * pr.n AS flops,
                pr.eb::float8 * pr.n / ((ARRAY[3.35e12, 2.04e12, 4.8e12, 0.864e12])[1 + g % 4] * (0.80 + pr.o % 5 * 0.02)
                                * (1 + ((p_night * 13 + g * 7 + pr.o) % 11) / 1000.0)
                                * CASE WHEN g % 97 = 13 AND p_night >= 200 + g / 5 THEN 0.85 ELSE 1 END)::float8 AS t) x
     WHERE p_report IS NULL OR pr.report = p_report
     ORDER BY g, pr.o
\$\$"
COLS="platform_id, suite, kernel, model, variant, precision, size, bytes, bytes_compulsory, flops, times_s, min_s, max_s, mean_s, median_s, stddev_s, bandwidth, gflops, verified, error, provenance, created_at, stats_count"
night_sql() { # NIGHT G0 G1 [REPORT]
    echo "INSERT INTO results ($COLS) SELECT $COLS FROM bench_rows($1, $2, $3, ${4:-NULL})"
}

# ---- the history, judging off ----
sql "ALTER TABLE results DISABLE TRIGGER results_judge_rows"
t0=$(now)
for n in $(seq 0 $((NIGHTS - 1))); do
    sql "$(night_sql "$n" 0 $((GPUS - 1)))"
    [ $((n % 50)) = 49 ] && echo "  night $((n + 1)) of $NIGHTS stored, $(secs "$t0" "$(now)") s"
done
t1=$(now)
sql "ALTER TABLE results ENABLE TRIGGER results_judge_rows"
echo "history: $(sql 'SELECT count(*) FROM results') results stored in $(secs "$t0" "$t1") s ($(awk -v a="$t0" -v b="$t1" -v n="$((NIGHTS * GPUS * PER))" 'BEGIN { printf "%.0f", n / (b - a) }') results/s, judging off)"
t0=$(now)
sql "VACUUM ANALYZE results" 2>/dev/null
echo "VACUUM ANALYZE results: $(secs "$t0" "$(now)") s"
# The baselines and health the trigger would have left: per platform and problem its segment (from its first
# result), its last result and its window (judge_rewindow, schema/functions/judge.sql: the trigger's own
# window of the last 20), the median and MAD of that window; health ok.
t0=$(now)
sql "INSERT INTO baselines (platform_id, suite, kernel, model, variant, precision, size, device, driver, compiler,
                            version, segment_from, last_result_id, last_fom, last_verdict)
     SELECT k.platform_id, k.suite, k.kernel, k.model, k.variant, k.precision, k.size, p.name, '580.65', 'gcc 12.2.0',
            'v1.4.0', k.first_id, k.last_id, (SELECT bandwidth FROM results WHERE id = k.last_id), 'ok'
     FROM (SELECT platform_id, suite, kernel, model, variant, precision, size, min(id) AS first_id, max(id) AS last_id
           FROM results GROUP BY 1, 2, 3, 4, 5, 6, 7) k
     JOIN platforms p ON p.id = k.platform_id"
sql "SELECT judge_rewindow(NULL)"
sql "UPDATE baselines SET n = cardinality(window_figs),
            median = (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY f) FROM unnest(window_figs) f)"
sql "UPDATE baselines SET mad = (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(f - median)) FROM unnest(window_figs) f)"
sql "INSERT INTO platform_health (platform_id, state, last_result_id)
     SELECT platform_id, 'ok', max(last_result_id) FROM baselines GROUP BY platform_id"
# what judging keeps beside the baselines: /metrics' series (022) and the peer groups (023)
sql "SELECT metric_series_rebuild(NULL)"
sql "SELECT peer_groups_rebuild()"
sql "ANALYZE"
echo "baselines and health built: $(sql 'SELECT count(*) FROM baselines') baselines in $(secs "$t0" "$(now)") s"
if [ -n "${KEEP:-}" ]; then # the judged fleet kept for experiments, until interrupted
    echo "kept: $URL, database $CONN"
    while kill -0 "$pid" 2>/dev/null; do sleep 5; done
    exit 0
fi

# ---- 1. ingest with judging on ----
# The nights to ingest are generated first into a staging table (not timed: generating 100 samples per row
# in SQL costs more than storing them), then copied into results as the timed part.
stage() { # NIGHT: the night's rows in bench_stage (g: the GPU, report: its report)
    sql "SET client_min_messages = warning; DROP TABLE IF EXISTS bench_stage"
    sql "CREATE TABLE bench_stage AS SELECT split_part(split_part(platform_id, '/', 1), '-', 2)::int * 8
                + split_part(platform_id, '/gpu', 2)::int AS g,
            CASE WHEN suite = 'cg' THEN 4 ELSE (model = 'opencl')::int * 2 + (precision = 'fp32')::int END AS report, *
         FROM bench_rows($1, 0, $GPUS - 1, NULL)"
    sql "CREATE INDEX ON bench_stage (g, report)"
    sql "ANALYZE bench_stage"
}
copy_sql() { # WHERE
    echo "INSERT INTO results ($COLS) SELECT $COLS FROM bench_stage WHERE $1 ORDER BY g, report, kernel"
}
ingest2() { # LABEL: the staged night's reports from 2 connections at once (one INSERT per report, autocommit)
    local g r before t0 t1 p0 n
    rm -f "$T/rep.0" "$T/rep.1"
    for g in $(seq 0 $((GPUS - 1))); do
        for r in 0 1 2 3 4; do copy_sql "g = $g AND report = $r"; echo ";"; done >>"$T/rep.$((g % 2))"
    done
    before=$(sql 'SELECT count(*) FROM results')
    t0=$(now)
    psql -qX -v ON_ERROR_STOP=1 "$CONN" -f "$T/rep.0" >/dev/null &
    p0=$!
    psql -qX -v ON_ERROR_STOP=1 "$CONN" -f "$T/rep.1" >/dev/null
    wait "$p0"
    t1=$(now)
    n=$(($(sql 'SELECT count(*) FROM results') - before))
    echo "$1: $n results in $((GPUS * 5)) reports (2 connections, autocommit) in $(secs "$t0" "$t1") s: $(awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN { printf "%.0f", n / (b - a) }') results/s; load average $(cut -d' ' -f1 /proc/loadavg)"
    judged "$t0" "$n"
}
# judged T0 N: wait until ppbenchd has judged every queued result (judge_pending, schema/functions/judge.sql: the INSERT
# only queues them); the rate of N results stored and judged since T0.
judged() {
    local t2
    while [ "$(sql 'SELECT count(*) FROM judge_queue')" != 0 ]; do sleep 0.05; done
    t2=$(now)
    echo "  stored and judged by the server $(secs "$1" "$t2") s after the first: $(awk -v a="$1" -v b="$t2" -v n="$2" 'BEGIN { printf "%.0f", n / (b - a) }') results/s"
}
bulk() { # LABEL: the staged night in statements of 35 GPUs (980 results) from 1 connection
    local g t0 t1
    t0=$(now)
    for g in $(seq 0 35 $((GPUS - 1))); do sql "$(copy_sql "g BETWEEN $g AND $((g + 34))")"; done
    t1=$(now)
    echo "$1: $((GPUS * PER)) results in statements of 980 (1 connection) in $(secs "$t0" "$t1") s: $(awk -v a="$t0" -v b="$t1" -v n="$((GPUS * PER))" 'BEGIN { printf "%.0f", n / (b - a) }') results/s; load average $(cut -d' ' -f1 /proc/loadavg)"
    judged "$t0" "$((GPUS * PER))"
}
v0=$(sql 'SELECT count(*) FROM result_verdicts')
stage "$NIGHTS"
ingest2 "ingest, judging on, one night as reports"
echo "  judged: $(($(sql 'SELECT count(*) FROM result_verdicts') - v0)) verdicts (all: $(sql "SELECT string_agg(verdict || ' ' || n, ', ') FROM (SELECT verdict, count(*) n FROM result_verdicts GROUP BY verdict) v")), platforms $(sql "SELECT string_agg(state || ' ' || n, ', ') FROM (SELECT state, count(*) n FROM platform_health GROUP BY state) s")"
stage $((NIGHTS + 1))
bulk "ingest, judging on, one night"
sql "ALTER TABLE results DISABLE TRIGGER results_judge_rows"
stage $((NIGHTS + 2))
ingest2 "ingest, judging OFF (for comparison), one night as reports"
stage $((NIGHTS + 3))
bulk "ingest, judging OFF (for comparison), one night"
sql "ALTER TABLE results ENABLE TRIGGER results_judge_rows"
sql "DROP TABLE bench_stage"
sql "ANALYZE"

# ---- 2. the API calls ----
# measure NAME PATH: N calls after 2 warm-ups; median, p95 (nearest rank), max and the body size.
measure() {
    local name=$1 path=$2 code
    for _ in 1 2; do curl -s -o /dev/null "$URL$path"; done
    code=$(curl -s -o "$T/body" -w '%{http_code}' "$URL$path")
    for _ in $(seq "$N"); do curl -s -o /dev/null -w '%{time_total}\n' "$URL$path"; done | sort -n >"$T/times"
    awk -v n="$N" -v name="$name" -v code="$code" -v bytes="$(wc -c <"$T/body")" '{ t[NR] = $1 * 1000 }
        END { p95 = int(0.95 * n + 0.999); printf "%-66s %s  median %7.1f ms  p95 %7.1f ms  max %7.1f ms  (%d calls, %d bytes)\n",
              name, code, t[int((n + 1) / 2)], t[p95], t[n], n, bytes }' "$T/times"
}
P=node-042/gpu3
SLOW=$(sql "SELECT platform_id FROM platform_health WHERE state <> 'ok' ORDER BY platform_id LIMIT 1")
echo "load average before the calls: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "results suite=stream kernel=triad limit=100" "/api/v1/results?suite=stream&kernel=triad&limit=100"
measure "results model=opencl precision=fp32 kernel=dot limit=100" "/api/v1/results?model=opencl&precision=fp32&kernel=dot&limit=100"
measure "results suite=cg kernel=spmv since=2 days ago limit=100" "/api/v1/results?suite=cg&kernel=spmv&since=$(date -u -d '2 days ago' +%Y-%m-%dT%H:%M:%SZ)&limit=100"
measure "history: results platform=$P stream triad limit=1000" "/api/v1/results?platform=$P&suite=stream&kernel=triad&limit=1000"
measure "history: ... precision=fp64 size=33554432 (one line)" "/api/v1/results?platform=$P&suite=stream&kernel=triad&precision=fp64&size=33554432&limit=1000"
measure "pp problem=stream.triad (1,000 platforms)" "/api/v1/pp?problem=stream.triad"
measure "pp problem=stream.triad fp32, 5 platforms" "/api/v1/pp?problem=stream.triad&precision=fp32&platforms=node-000/gpu0,node-000/gpu1,node-000/gpu2,node-000/gpu3,node-001/gpu0"
measure "pp problem=cg.spmv efficiency=arch" "/api/v1/pp?problem=cg.spmv&efficiency=arch"
measure "health (1,000 platforms)" "/api/v1/health"
measure "baselines platform=${SLOW:-$P} (the evidence)" "/api/v1/baselines?platform=${SLOW:-$P}"
measure "metrics" "/metrics"
echo "load average after the calls: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- 3. disk and memory ----
echo "disk: database $(sql "SELECT pg_size_pretty(pg_database_size('ppbench'))"); WAL $(du -sh "$T/state/pg/data/pg_wal" 2>/dev/null | cut -f1)"
sql "SELECT format('  %-22s %10s table %10s indexes %10s  (%s rows)', c.relname, pg_size_pretty(pg_total_relation_size(c.oid)),
            pg_size_pretty(pg_relation_size(c.oid)), pg_size_pretty(pg_indexes_size(c.oid)), c.reltuples::bigint)
     FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace
     ORDER BY pg_total_relation_size(c.oid) DESC LIMIT 6"
sql "SELECT format('  index %-26s %10s', indexrelid::regclass, pg_size_pretty(pg_relation_size(indexrelid)))
     FROM pg_index WHERE indrelid = 'results'::regclass ORDER BY pg_relation_size(indexrelid) DESC"
pg_pids=$(head -n 1 "$T/state/pg/data/postmaster.pid"),$(pgrep -d, -P "$(head -n 1 "$T/state/pg/data/postmaster.pid")" || true)
echo "memory: ppbenchd RSS $(ps -o rss= -p "$pid" | awk '{printf "%.0f MB", $1/1024}'); PostgreSQL $(ps -o rss= -p "$pg_pids" 2>/dev/null | awk '{s += $1} END {printf "%.0f MB RSS summed over %d processes (shared_buffers counted in each that touched it)", s/1024, NR}'); shared_buffers $(sql 'SHOW shared_buffers')"
