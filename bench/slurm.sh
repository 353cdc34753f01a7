#!/bin/bash
# Overhead of a job through Slurm against the resident worker path (docs/PERFORMANCE.md, "Jobs through
# Slurm"): N tiny STREAM jobs (64 Ki elements, 5 iterations: the kernel time is a few ms) one after the other,
# first each as a Slurm job on the test cluster of tests/lib/slurm.sh (three slurmd node names on this
# machine), then to a resident `ppbench-worker serve`. Per job, from the job document: queue (created_at to
# the claim: for Slurm, sbatch + Slurm's scheduling + the node's worker starting, discovering its platform and
# registering), run (claim to the result stored) and total. Run from the repository root as root:
#   BUILD=build N=10 bench/slurm.sh
# With SWEEP=M instead: a sweep of M node names (s001..sM, one slurmd each on this machine), each node's
# platform registered by a first run, then one job per node submitted at once and all collected: the wall
# time from the first submission to the last result, and the queue spans.
#   BUILD=build SWEEP=32 bench/slurm.sh
set -u
BUILD=${BUILD:-build}
N=${N:-10}
SWEEP=${SWEEP:-}
. tests/lib/check.sh
. tests/lib/server.sh
SERVER_EMBEDDED=1 # the service as measured in docs/PERFORMANCE.md: the embedded default
[ -n "$SWEEP" ] && SLURM_NODES=$(seq -f 's%03g' 1 "$SWEEP" | tr '\n' ' ' | sed 's/ $//')
. tests/lib/slurm.sh
trap 'slurm_stop; server_cleanup' EXIT
slurm_start || exit 1
if [ -n "$SWEEP" ]; then
    server_start "embedded_workers = false" "slurm_partition = ppb" "slurm_platforms = host=s*" \
        "slurm_worker = $PWD/$WORKER" "slurm_token_file = $STATE/worker.token" "slurm_poll_s = ${POLL:-1}" \
        "log_level = warning"
    TOKEN=$(cat "$STATE/worker.token")
    for n in $SLURM_NODES; do
        SLURMD_NODENAME=$n PPBENCH_WORKER_TOKEN=$TOKEN "$WORKER" serve --once --server "$URL" --platform cpu0 2>/dev/null
    done
    t0=$(date +%s.%N)
    ids=""
    for n in $SLURM_NODES; do
        api POST /api/v1/jobs "{\"suite\":\"stream\",\"model\":\"openmp\",\"platform\":\"$n/cpu0\",\"params\":{\"arraysize\":65536,\"numtimes\":5},\"tags\":[\"sweep:bench\"]}" "$ADMIN"
        ids="$ids $(printf '%s' "$BODY" | jq -r .id)"
    done
    t1=$(date +%s.%N)
    for id in $ids; do wait_job "$id" "succeeded|failed|cancelled" 600; done
    t2=$(date +%s.%N)
    api GET "/api/v1/jobs?tag=sweep:bench&limit=1000"
    printf '%s' "$BODY" | python3 -c '
import json, sys, datetime
t = lambda s: datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
jobs = json.load(sys.stdin)["jobs"]
ok = [j for j in jobs if j["state"] == "succeeded"]
q = sorted(t(j["started_at"]) - t(j["created_at"]) for j in ok)
same = sum(1 for j in ok if j["ran_on"] == j["platform"])
print("nodes %d, jobs %d, succeeded %d (on their own node: %d), queue min %.2f s, median %.2f s, max %.2f s"
      % (len(sys.argv) - 1, len(jobs), len(ok), same, q[0], q[len(q) // 2], q[-1]))' $SLURM_NODES
    awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "submitted in %.2f s, all collected %.2f s after the first submission\n", b - a, c - a }'
    exit 0
fi
server_start "embedded_workers = false" "slurm_partition = ppb" "slurm_platforms = host=n*" \
    "slurm_worker = $PWD/$WORKER" "slurm_token_file = $STATE/worker.token" "slurm_poll_s = ${POLL:-1}" \
    "log_level = warning"
TOKEN=$(cat "$STATE/worker.token")
SLURMD_NODENAME=n1 PPBENCH_WORKER_TOKEN=$TOKEN "$WORKER" serve --once --server "$URL" --platform cpu0 2>/dev/null
PPBENCH_WORKER_TOKEN=$TOKEN "$WORKER" serve --server "$URL" --platform cpu0 --host resident 2>/dev/null &
RESIDENT=$!
sleep 2

# one PLATFORM: submit, wait, print the job document's three spans in seconds
one() {
    api POST /api/v1/jobs "{\"suite\":\"stream\",\"model\":\"openmp\",\"platform\":\"$1\",\"params\":{\"arraysize\":65536,\"numtimes\":5}}" "$ADMIN"
    local id
    id=$(printf '%s' "$BODY" | jq -r .id)
    wait_job "$id" "succeeded|failed|cancelled" 120
    printf '%s' "$BODY" | python3 -c '
import json, sys, datetime
j = json.load(sys.stdin)
t = lambda k: datetime.datetime.fromisoformat(j[k].replace("Z", "+00:00")).timestamp()
print("%s %.3f %.3f %.3f" % (j["state"], t("started_at") - t("created_at"), t("finished_at") - t("started_at"),
                             t("finished_at") - t("created_at")))'
}
for path in slurm:n1/cpu0 resident:resident/cpu0; do
    for i in $(seq "$N"); do echo "${path%%:*} $(one "${path#*:}")"; done
done | awk '{ n[$1]++; q[$1] += $3; r[$1] += $4; t[$1] += $5; if ($2 != "succeeded") bad[$1]++ }
    END { printf "%-9s %4s %10s %10s %10s %s\n", "path", "jobs", "queue_s", "run_s", "total_s", "(means)";
          for (p in n) printf "%-9s %4d %10.3f %10.3f %10.3f %s\n", p, n[p], q[p]/n[p], r[p]/n[p], t[p]/n[p],
                               bad[p] ? bad[p] " not succeeded" : "" }'
kill -TERM "$RESIDENT"; wait "$RESIDENT" 2>/dev/null
