#!/usr/bin/env bash
# ppbenchd's memory under repeated large requests (issue 26, defect 5): its RSS (VmRSS) at start, after N large
# BabelStream imports, after N large worker results (a report at numtimes 100000: 14 MB), and after N results
# refused for a job the worker does not hold (60 MB each, refused from the headers). The embedded default in a
# temporary state directory, no supervised workers; db_timeout_s = 120 so a large import is not cut on a busy
# machine. Each import's rows are deleted after it, so the database stays the same size.
#   bench/memory.sh [N, default 100]   (IMPORT_ROWS, default 76240: a 3.7 MB file)
set -eu
cd "$(dirname "$0")/.."
N=${1:-100}
ROWS=${IMPORT_ROWS:-76240}
B=${BUILD:-build}
. bench/lib.sh
rss() { sleep 1; awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
hwm() { awk '/VmHWM/ {print $2}' "/proc/$pid/status"; }

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {print $2/1e6 " GB"}' /proc/meminfo); $(date -u +%Y-%m-%dT%H:%MZ); ppbench $(git describe --always --dirty)${GLIBC_TUNABLES:+; GLIBC_TUNABLES=$GLIBC_TUNABLES}"
awk -v rows="$ROWS" 'BEGIN {
    print "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime"
    split("Copy Mul Add Triad Dot", k, " "); split("2 2 3 3 2", w, " ")
    for (r = 0; r < rows; r++) { i = r % 5 + 1; n = 1000 + int(r / 5)
        printf "%s,100,%d,8,%.6f,0.001,0.00105,0.00102\n", k[i], n, w[i] * 8 * n * 1e-3 }
}' >"$T/bs.csv"
# A real report at the largest numtimes, from the worker itself (once; about a minute on a busy 2-core VM).
REPORT=${REPORT:-$T/report.json}
[ -s "$REPORT" ] || "$B/bin/ppbench-worker" run --platform cpu0 --model openmp --suite stream \
    --param arraysize=1000 --param numtimes=100000 --json >"$REPORT"

server_start "embedded_workers = false" "db_timeout_s = 120" "noise_repeats = 0"
PSQL=(psql -qAt -h "$T/state/pg/run" -U ppbench ppbench)
WT=$("$B/bin/ppbenchd" token create --role worker --state-dir "$T/state")
plat=$("$B/bin/ppbench-worker" list --json | jq -c '.platforms[] | select(.id == "cpu0")')
reg() { curl -sf -H "Authorization: Bearer $WT" -H 'Content-Type: application/json' \
    -d "{\"host\":\"$1\",\"pid\":1,\"platform\":$plat}" "$URL/api/v1/workers/register"; }
A=$(reg bench); B_=$(reg other)
wcurl() { # REGISTRATION ARGS...: a call as that worker
    local r=$1; shift
    curl -s -H "Authorization: Bearer $WT" -H "X-Worker-Id: $(jq -r .worker_id <<<"$r")" \
        -H "X-Worker-Secret: $(jq -r .worker_secret <<<"$r")" "$@"
}
job='{"suite":"stream","model":"openmp","platform":"bench/cpu0","params":{"arraysize":1000,"numtimes":100000}}'
rss0=$(rss)
echo "start: RSS $rss0 kB"

t0=$(date +%s.%N)
for i in $(seq "$N"); do
    c=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $ADMIN" -H 'Content-Type: text/csv' \
        --data-binary @"$T/bs.csv" "$URL/api/v1/import/babelstream?platform=mem&model=kokkos")
    [ "$c" = 201 ] || echo "import $i: $c"
    [ -z "${VERBOSE:-}" ] || echo "import $i: RSS $(rss) kB"
    "${PSQL[@]}" -c "DELETE FROM results WHERE platform_id = 'mem'" >/dev/null
done
rss1=$(rss)
printf 'after %d imports of %d rows (%d bytes): RSS %d kB, peak %d kB (%.1f s)\n' "$N" "$ROWS" \
    "$(stat -c %s "$T/bs.csv")" "$rss1" "$(hwm)" "$(echo "$(date +%s.%N) - $t0" | bc)"

t0=$(date +%s.%N)
for i in $(seq "$N"); do
    id=$(curl -sf -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' -d "$job" "$URL/api/v1/jobs" | jq .id)
    epoch=$(wcurl "$A" -X POST "$URL/api/v1/workers/$(jq -r .worker_id <<<"$A")/claim?wait=5" | jq .job.epoch)
    jq -c --argjson e "$epoch" '{epoch: $e, outcome: "succeeded", report: .}' "$REPORT" >"$T/result.json"
    c=$(wcurl "$A" -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
        --data-binary @"$T/result.json" "$URL/api/v1/jobs/$id/result")
    [ "$c" = 200 ] || echo "result $i: $c"
    [ -z "${VERBOSE:-}" ] || echo "result $i: RSS $(rss) kB"
    "${PSQL[@]}" -c "DELETE FROM results WHERE job_id = $id" >/dev/null
done
rss2=$(rss)
printf 'after %d results of %d bytes: RSS %d kB, peak %d kB (%.1f s)\n' "$N" "$(stat -c %s "$T/result.json")" \
    "$rss2" "$(hwm)" "$(echo "$(date +%s.%N) - $t0" | bc)"

id=$(curl -sf -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' -d "$job" "$URL/api/v1/jobs" | jq .id)
wcurl "$A" -X POST "$URL/api/v1/workers/$(jq -r .worker_id <<<"$A")/claim?wait=5" >/dev/null
python3 -c "
import sys
sys.stdout.write('{\"epoch\":1,\"outcome\":\"succeeded\",\"report\":{\"kernels\":[{\"times_s\":[')
sys.stdout.write(','.join(['1.2345678e-06'] * 4400000))
sys.stdout.write(']}]}}')" >"$T/big.json"
t0=$(date +%s.%N)
for i in $(seq "$N"); do
    c=$(wcurl "$B_" -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
        --data-binary @"$T/big.json" "$URL/api/v1/jobs/$id/result")
    [ "$c" = 409 ] || echo "refused $i: $c"
done
rss3=$(rss)
printf 'after %d refused results of %d bytes: RSS %d kB, peak %d kB (%.1f s)\n' "$N" "$(stat -c %s "$T/big.json")" \
    "$rss3" "$(hwm)" "$(echo "$(date +%s.%N) - $t0" | bc)"
