#!/usr/bin/env bash
# `make run-standalone`: runs the STREAM suite on every local platform through every model that can drive it,
# with no server, and prints BabelStream-style tables. Extra worker options go in RUN_ARGS, e.g.
#   make run-standalone RUN_ARGS="--arraysize 1048576 --numtimes 20"
set -u
BUILD=${BUILD:-build}
W="$BUILD/bin/ppbench-worker"
status=0

"$W" list || exit $?
echo
while read -r id models; do
    for m in ${models//,/ }; do
        echo "=== $id / $m"
        "$W" run --platform "$id" --model "$m" --suite stream ${RUN_ARGS:-} || status=1
        echo
    done
done < <("$W" list --json | jq -r '.platforms[] | "\(.id) \([.devices[].model] | unique | join(","))"')
exit $status
