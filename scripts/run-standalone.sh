#!/usr/bin/env bash
# `make run-standalone`: runs every suite (STREAM, Wilson, staggered; SUITES to choose) on every local platform
# through every model that can drive it, with no server, and prints the tables. Extra worker options go in
# RUN_ARGS and reach every suite run, so name the suite they belong to, e.g.
#   make run-standalone SUITES=stream RUN_ARGS="--arraysize 1048576 --numtimes 20"
set -u
BUILD=${BUILD:-build}
W="$BUILD/bin/ppbench-worker"
SUITES=${SUITES:-stream wilson staggered}
status=0

"$W" list || exit $?
echo
while read -r id models; do
    for m in ${models//,/ }; do
        for suite in $SUITES; do
            echo "=== $id / $m / $suite"
            "$W" run --platform "$id" --model "$m" --suite "$suite" ${RUN_ARGS:-} || status=1
            echo
        done
    done
done < <("$W" list --json | jq -r '.platforms[] | "\(.id) \([.devices[].model] | unique | join(","))"')
exit $status
