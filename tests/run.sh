#!/usr/bin/env bash
# tests/run.sh [--quick] [--list] [--make TARGET TREE] [BUILD...]: the runner of `make test` and `make check`. For
# each build tree given (default $BUILD or build) it runs the C unit tests (<build>/tests/test_*) and the test
# scripts, every (build, file) pair in one pool of PPBENCH_TEST_JOBS jobs (default: one per core and one more: the
# service scripts spend much of their time waiting on their servers; on the 2-core machine 3 jobs took make test
# from 14.7 to 13.0 minutes), the longest first by the seconds each took last time (kept in <build>/test-times;
# files never timed go first). --quick: the unit tests and tests/suites only. --list: print the pairs, longest first, and run nothing. --make TARGET TREE: TREE
# is not built yet: `make TARGET` builds it beside the pool, outside its job count and at a lower priority (nice
# 10), so the compiler takes the CPU time the service scripts leave while they wait on their servers and the
# scripts' timing is theirs; TREE's files join the pool once it has built (a build that fails is one FAIL, with
# its log's tail).
#
# The layout: tests/lib/ the helpers, sourced and never run (check.sh: PASS/FAIL/SKIP and wait_for; server.sh:
# ppbenchd and its workers; pg.sh: PostgreSQL; slurm.sh: a Slurm cluster); tests/unit/ the C unit tests (each
# build's own binaries, the C++ one too); tests/suites/ the worker's runs of the suites (formats, faults,
# references, models); tests/service/ ppbenchd on PostgreSQL, the CLI, the dashboard in a browser, Slurm;
# tests/tools/ the fuzz targets' short pass and the bench scripts' parsers; tests/fuzz/ the fuzz targets (`make
# fuzz`).
#
# Every test prints "PASS name", "FAIL name: why" or "SKIP name: why" lines. A file's lines are printed together
# when it ends, after a line with its seconds and counts; a file that exits non-zero without a FAIL line fails
# (a sanitizer report, a crash). The service scripts share one PostgreSQL cluster, started here and stopped at the
# end (on failure and interrupt too), each in a database of its own (tests/lib/server.sh). Ends with the line
# "N passed, N failed, N skipped"; exit status 1 when anything failed.
set -u
cd "$(dirname "$0")/.."
dirs="tests/service tests/tools tests/suites"
list="" make_target="" make_tree=""
while [ $# -gt 0 ]; do
    case $1 in
    --quick) dirs=tests/suites ;;
    --list) list=1 ;;
    --make)
        [ $# -ge 3 ] || { echo "usage: tests/run.sh [--quick] [--list] [--make TARGET TREE] [BUILD...]" >&2; exit 2; }
        make_target=$2 make_tree=$3
        shift 2
        ;;
    *) break ;;
    esac
    shift
done
[ $# -gt 0 ] || set -- "${BUILD:-build}"
JOBS=${PPBENCH_TEST_JOBS:-$(($(nproc) + 1))}
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}

# pairs BUILD...: the pairs to run, longest first: "seconds build file" sorted; pairs never timed go first, in the
# order listed (the service scripts, which take longest, first; each file of every build before the next file).
pairs() {
    local f build file s
    for f in $(for d in $dirs; do echo "$d"/*.sh; done) tests/unit/test_*.c tests/unit/test_*.cc; do
        for build in "$@"; do
            file=$f # a unit test's binary is the build's own
            case $f in tests/unit/*) file=$build/tests/$(basename "${f%.*}") ;; esac
            [ -f "$file" ] || continue
            s=$(awk -v f="$file" '$2 == f { print $1 }' "$build/test-times" 2>/dev/null)
            echo "${s:-999999} $build $file"
        done
    done
}
built=() # the trees whose files are in the pool
for build in "$@"; do [ "$build" = "$make_tree" ] || built+=("$build"); done
queue=$(pairs "${built[@]}" | sort -k1,1rn -s)
if [ -n "$list" ]; then
    [ -z "$make_tree" ] || echo "make $make_target, then the files of $make_tree"
    awk '{ print $2, $3 }' <<<"$queue"
    exit 0
fi
RUN=$(mktemp -d)
. tests/lib/pg.sh

pass=0 fail=0 skip=0
nbuilds=$#
declare -A running=() # pid -> "build file"

# finish PID: print the file's lines after its seconds and counts, add them up, keep its seconds.
finish() {
    local pid=$1 build file rc secs cpu lines p f s dead="" tag=""
    read -r build file <<<"${running[$pid]}"
    unset "running[$pid]"
    read -r rc secs cpu <"$RUN/$pid.rc"
    [ "$nbuilds" -eq 1 ] || tag="[$build] "
    lines=$(grep -E '^(PASS|FAIL|SKIP) ' "$RUN/$pid.out" | sed -E "s/^(PASS|FAIL|SKIP) /\1 $tag/")
    p=$(grep -c '^PASS ' <<<"$lines") f=$(grep -c '^FAIL ' <<<"$lines") s=$(grep -c '^SKIP ' <<<"$lines")
    # a file that died without saying why is a failure too (a sanitizer report, a crash)
    [ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || { dead=1 f=1; }
    printf '== %6.1f s, cpu %6.1f s  %s%s: %d passed, %d failed, %d skipped\n' "$secs" "${cpu:-0}" "$tag" "$file" \
        "$p" "$f" "$s"
    [ -z "$lines" ] || printf '%s\n' "$lines"
    if [ -n "$dead" ]; then
        echo "FAIL $tag$file: exited $rc"
        grep -Ev '^(PASS|FAIL|SKIP) ' "$RUN/$pid.out" | tail -n 20 | sed 's/^/    /'
    fi
    pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
    echo "$secs $file" >>"$RUN/times.$(echo "$build" | tr / _)"
}

# stop: on an interrupt, every running file's process group gets SIGTERM, and once their EXIT traps have
# stopped their servers, the EXIT trap here stops the run's cluster.
stop() {
    local pid
    for pid in "${!running[@]}" $make_pid; do kill -TERM -- "-$pid" 2>/dev/null; done
    wait 2>/dev/null
    exit 130
}
trap stop INT TERM
trap 'pg_stop_all; rm -rf "$RUN"' EXIT

# The run's PostgreSQL cluster: the tests find it through PPBENCH_TEST_PG alone (no PG* variables of its own).
if pg_start "$RUN/pg" >"$RUN/pg.log" 2>&1; then
    export PPBENCH_TEST_PG=$RUN/pg
else
    echo "note: no shared PostgreSQL cluster ($(tail -n 1 "$RUN/pg.log")): each service test starts its own"
fi
unset PGHOST PGPORT PGUSER PGDATABASE PPBENCH_DATABASE_URL

# start BUILD FILE: one file of the pool, in the background (running[pid]).
start() {
    (
        trap : TERM # outlive the file's own cleanup after stop()
        export BUILD=$1 PPBENCH_CACHE_DIR=$1/test-cache # OpenCL program binaries: built once per tree
        t0=${EPOCHREALTIME//[!0-9]/}
        case $2 in
        *.sh) bash "$2" ;;
        *) "$2" ;;
        esac >"$RUN/$BASHPID.out" 2>&1 </dev/null
        rc=$?
        t1=${EPOCHREALTIME//[!0-9]/}
        # the CPU seconds (user and system) of the file's processes that ended, its servers and workers too,
        # not the shared PostgreSQL cluster's: `times`' second line, taken in this shell
        me=$BASHPID # (a command substitution has its own)
        times >"$RUN/$me.times"
        cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] }
                            printf "%.1f", s }' "$RUN/$me.times")
        echo "$rc $(((t1 - t0) / 1000000)).$(((t1 - t0) / 100000 % 10)) $cpu" >"$RUN/$me.rc"
    ) &
    running[$!]="$1 $2"
}

# made: the --make build ended: its tree's files join the queue (in their place by seconds), or it is one FAIL.
made() {
    local rc secs
    read -r rc secs <"$RUN/make.rc"
    if [ "$rc" -eq 0 ]; then
        printf '== %6.1f s  make %s: built %s\n' "$secs" "$make_target" "$make_tree"
        queue=$( (
            [ -z "$queue" ] || echo "$queue"
            pairs "$make_tree"
        ) | sort -k1,1rn -s)
    else
        printf '== %6.1f s  make %s: exited %d\n' "$secs" "$make_target" "$rc"
        echo "FAIL make $make_target: the tree $make_tree did not build; its files did not run"
        tail -n 20 "$RUN/make.out" | sed 's/^/    /'
        fail=$((fail + 1))
    fi
    make_pid=""
}

set -m # each file leads its own process group: stop() reaches its servers and workers
make_pid=""
if [ -n "$make_tree" ]; then
    (
        trap : TERM
        t0=${EPOCHREALTIME//[!0-9]/}
        nice -n 10 make --no-print-directory -j"$(nproc)" "$make_target" >"$RUN/make.out" 2>&1 </dev/null
        rc=$?
        t1=${EPOCHREALTIME//[!0-9]/}
        echo "$rc $(((t1 - t0) / 1000000)).$(((t1 - t0) / 100000 % 10))" >"$RUN/make.rc"
    ) &
    make_pid=$!
fi
# The pool: a free slot takes the queue's head; with the queue empty and the build running, the pool waits for
# either to end (a file that ends frees a slot for nothing until the build's files come).
while [ -n "$queue" ] || [ ${#running[@]} -gt 0 ] || [ -n "$make_pid" ]; do
    if [ -n "$queue" ] && [ ${#running[@]} -lt "$JOBS" ]; then
        read -r _ build file <<<"${queue%%$'\n'*}"
        case $queue in *$'\n'*) queue=${queue#*$'\n'} ;; *) queue="" ;; esac
        start "$build" "$file"
        continue
    fi
    wait -n -p done_pid
    if [ "$done_pid" = "$make_pid" ]; then made; else finish "$done_pid"; fi
done
set +m

# The seconds of this run replace those of the files it ran (of files that are gone, none are kept).
for build in "$@"; do
    t="$RUN/times.$(echo "$build" | tr / _)"
    [ -f "$t" ] || continue
    cat "$t" "$build/test-times" 2>/dev/null | awk '!seen[$2]++' | while read -r secs f; do
        [ -e "$f" ] && echo "$secs $f"
    done >"$t.all"
    cp "$t.all" "$build/test-times"
done

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
