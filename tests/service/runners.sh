# External runners (issue 27) with real programs: BabelStream's OpenMP and TBB builds (built by
# bench/host/stream_refs.sh from BABEL_SRC, default the git-ignored .gpucarry/ext/BabelStream, into BABEL_BIN,
# default .gpucarry/ext/bin; skipped, saying why, where the sources are not here: CI has no network, so these run
# where the sources were fetched, `git clone https://github.com/UoB-HPC/BabelStream .gpucarry/ext/BabelStream`).
# The runners file's checks; jobs of both runners (and of BabelStream 5.0's Kokkos build against Debian's
# libtrilinos-kokkos-dev where installed) through a real ppbenchd and worker beside ppbench's openmp, stored with
# origin runner, ppbench's byte model, the program's checksum and version line; PP on cpu0 without the runners
# (named as left out) and with include_runners; a schedule of a runner and the 422s of one no platform lists; a
# program of ppbench's JSON form run with {device}; the failures (exit status, timeout, no table, a malformed
# one, one that disagrees with the job, the JSON form's) with the program's last lines; requests that try to smuggle a command or an argument refused with nothing run; and a
# mutant of the parameter check that lets a field through, caught by the same checks.
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../lib/server.sh"

# holds NAME JSON FILTER [jq options]: the filter is true on the JSON text.
holds() {
    if printf '%s' "$2" | jq -e "${@:4}" "$3" >/dev/null 2>&1; then pass "$1"; else fail "$1" "jq '$3' is not true on $(head -c 300 <<<"$2")"; fi
}

BABEL_SRC=${BABEL_SRC:-.gpucarry/ext/BabelStream}
BABEL_BIN=${BABEL_BIN:-.gpucarry/ext/bin}
if [ ! -f "$BABEL_SRC/src/omp/OMPStream.cpp" ] || ! command -v cmake >/dev/null; then
    skip "runners: BabelStream omp and tbb as jobs" "no BabelStream sources in $BABEL_SRC (or no cmake)"
    exit 0
fi
if ! [ -f /usr/include/tbb/tbb.h ] && ! [ -f /usr/include/oneapi/tbb.h ]; then
    skip "runners: BabelStream omp and tbb as jobs" "no TBB headers (Debian's libtbb-dev: scripts/deps.sh test)"
    exit 0
fi
# Kokkos from Debian (libtrilinos-kokkos-dev: its Serial backend, stream_refs.sh says why) where installed:
# BabelStream 5.0's Kokkos build as a third runner, a job end to end and in PP beside the others.
MODELS="omp tbb"
if [ -f /usr/include/trilinos/Kokkos_Core.hpp ]; then
    MODELS="omp tbb kokkos"
else
    skip "runners: BabelStream kokkos as a job" "no Kokkos headers (Debian's libtrilinos-kokkos-dev: scripts/deps.sh test)"
fi
# shellcheck disable=SC2086 # models are words
if ! bench/host/stream_refs.sh --babelstream "$BABEL_SRC" "$BABEL_BIN" $MODELS >"$TMP/refs.log" 2>&1; then
    fail "stream_refs: builds BabelStream $MODELS" "$(tail -n 3 "$TMP/refs.log" | tr '\n' ' ')"
    exit 0
fi
pass "stream_refs: builds BabelStream $MODELS"
BIN=$(cd "$BABEL_BIN" && pwd)
mkdir -p "$TMP/bin"

# Programs that fail as a site's program may: exit non-zero, hang, print no table, a malformed one, or one
# of another size than the job's.
cat >"$TMP/bin/noisy-fail" <<'X'
#!/bin/sh
echo "starting"; echo "device lost: ECC error at 0x7f" >&2; exit 3
X
cat >"$TMP/bin/no-table" <<'X'
#!/bin/sh
echo "BabelStream"; echo "Version: 5.0"; echo "all good, no csv here"
X
cat >"$TMP/bin/malformed" <<'X'
#!/bin/sh
printf 'function,num_times,n_elements,sizeof,max_MB_per_sec,min_runtime,max_runtime,avg_runtime\nCopy,5,1024,8,fast,0.1,0.2,0.15\n'
X
# A real table of 2048 elements, whatever the job asked.
cat >"$TMP/bin/other-size" <<X
#!/bin/sh
exec "$BIN/omp-stream" --arraysize 2048 --numtimes 5 --csv
X
# The real program behind a sentinel: a run leaves a file, so "nothing ran" is seen.
cat >"$TMP/bin/sentinel" <<X
#!/bin/sh
touch "$TMP/ran"
exec "$BIN/omp-stream" "\$@"
X
# The JSON form (output = ppbench-json): BabelStream's OpenMP build with its table put into ppbench's JSON
# form, run with the device's index ({device}); and documents that disagree with the job, name a kernel the
# suite lacks, or are not JSON.
cat >"$TMP/bin/json-stream" <<X
#!/bin/sh
"$BIN/omp-stream" "\$@" --csv | awk -F, 'BEGIN { n = 0 }
    /^(Copy|Mul|Add|Triad|Dot|Nstream),/ { k[n] = tolower(\$1); c[n] = \$2 - 1; e = \$3; b = \$4; t = \$2
        mn[n] = \$6; mx[n] = \$7; av[n] = \$8; n++ }
    END { printf "{\\"ppbench_runner\\": 1, \\"version\\": \\"BabelStream omp via json-stream\\", \\"problem\\": "
          printf "{\\"precision\\": \\"%s\\", \\"size\\": %d, \\"arraysize\\": %d, \\"numtimes\\": %d}, \\"kernels\\": [", b == 4 ? "fp32" : "fp64", e, e, t
          for (i = 0; i < n; i++)
              printf "%s{\\"kernel\\": \\"%s\\", \\"count\\": %d, \\"min_s\\": %s, \\"max_s\\": %s, \\"mean_s\\": %s}", i ? ", " : "", k[i], c[i], mn[i], mx[i], av[i]
          print "]}" }'
X
json_doc() { # NAME SIZE KERNEL: a program that prints one fixed document
    printf '#!/bin/sh\necho %s\n' "'{\"ppbench_runner\": 1, \"problem\": {\"precision\": \"fp64\", \"size\": $2, \"arraysize\": $2, \"numtimes\": 5}, \"kernels\": [{\"kernel\": \"$3\", \"count\": 4, \"min_s\": 0.001, \"max_s\": 0.002, \"mean_s\": 0.0015}]}'" >"$TMP/bin/$1"
}
json_doc json-other-size 2048 triad
json_doc json-odd-kernel 1024 scale
printf '#!/bin/sh\necho "{\\"ppbench_runner\\": 1, \\"kernels\\": ["\n' >"$TMP/bin/json-malformed"
chmod +x "$TMP"/bin/*

# runner NAME PROGRAM ARGS [TIMEOUT [OUTPUT [KERNELS]]]: a section of the runners file
runner() {
    printf '[%s]\nsuite = stream\nkernels = %s\nplatform = cpu0\nprogram = %s\nargs = %s\n' "$1" "${6:-copy,mul,add,triad,dot}" "$2" "$3"
    printf 'version_args = --arraysize 1024 --numtimes 2\noutput = %s\ntimeout_s = %s\nenv = OMP_PROC_BIND=spread\nenv = OMP_PLACES=cores\n\n' "${5:-babelstream-csv}" "${4:-120}"
}
STD='--arraysize {arraysize} --numtimes {numtimes} {precision=fp32:--float} --csv'
{
    echo "# tests/service/runners.sh"
    runner babelstream-omp "$BIN/omp-stream" "$STD"
    runner babelstream-tbb "$BIN/tbb-stream" "$STD"
    [ -x "$BIN/kokkos-stream" ] && runner babelstream-kokkos "$BIN/kokkos-stream" "$STD"
    runner noisy-fail "$TMP/bin/noisy-fail" "{arraysize}"
    runner hangs /bin/sleep "60 {numtimes}" 2
    runner no-table "$TMP/bin/no-table" "{arraysize}"
    runner malformed "$TMP/bin/malformed" "{arraysize}"
    runner other-size "$TMP/bin/other-size" "{arraysize}"
    runner sentinel "$TMP/bin/sentinel" "$STD"
    runner json-stream "$TMP/bin/json-stream" "--device {device} $STD" 120 ppbench-json
    runner json-other-size "$TMP/bin/json-other-size" "{arraysize}" 120 ppbench-json triad
    runner json-odd-kernel "$TMP/bin/json-odd-kernel" "{arraysize}" 120 ppbench-json triad
    runner json-malformed "$TMP/bin/json-malformed" "{arraysize}" 120 ppbench-json triad
} >"$TMP/runners.conf"

# ---- the runners file: what a site can get wrong is refused at once, naming its line ----
JOB='{"suite":"stream","model":"babelstream-omp","params":{"arraysize":4096,"numtimes":3}}'
bad_conf() { # NAME PATTERN FILE-TEXT
    printf '%s\n' "$3" >"$TMP/bad.conf"
    expect "runners file: $1" 2 "$2" -- "$WORKER" run --runners "$TMP/bad.conf" --platform cpu0 --job "$JOB" --json
}
bad_conf "a placeholder that names no parameter" 'bad\.conf:6: "\{exec\}": \{exec\} is no parameter of suite stream' \
    "$(printf '[babelstream-omp]\nsuite = stream\nplatform = cpu0\nprogram = %s\noutput = babelstream-csv\nargs = --arraysize {arraysize} {exec}\n' "$BIN/omp-stream")"
bad_conf "an unknown key" 'bad\.conf:2: unknown key "shell"' "$(printf '[babelstream-omp]\nshell = /bin/sh\n')"
bad_conf "a built-in model's name" 'openmp is a built-in model' "$(printf '[openmp]\n')"
bad_conf "a relative program" 'program must be an absolute path' "$(printf '[x]\nsuite = stream\nprogram = omp-stream\n')"
bad_conf "a section without its program" 'runner babelstream-omp needs suite, platform, program, args and output' \
    "$(printf '[babelstream-omp]\nsuite = stream\n')"

# ---- the job's child, standalone: a request's fields never reach the program ----
rm -f "$TMP/ran"
smuggle_child() { # NAME JOB: refused as bad input (2), and the program never started
    "$WORKER" run --runners "$TMP/runners.conf" --platform cpu0 --job "$2" --json >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    if [ "$rc" = 2 ] && [ ! -e "$TMP/ran" ]; then pass "child refuses $1, nothing runs"
    else fail "child refuses $1, nothing runs" "exit $rc, ran: $([ -e "$TMP/ran" ] && echo yes || echo no): $(head -c 200 "$TMP/err")"; fi
    rm -f "$TMP/ran"
}
smuggle_child "params.exec" '{"suite":"stream","model":"sentinel","params":{"arraysize":4096,"numtimes":3,"exec":"/bin/sh"}}'
smuggle_child "params.args" '{"suite":"stream","model":"sentinel","params":{"arraysize":4096,"numtimes":3,"args":["--only","Triad"]}}'
smuggle_child "an argument in a number" '{"suite":"stream","model":"sentinel","params":{"arraysize":"4096 --float","numtimes":3}}'
smuggle_child "a path as the model" '{"suite":"stream","model":"/bin/sh","params":{"arraysize":4096}}'
"$WORKER" run --runners "$TMP/runners.conf" --platform cpu0 \
    --job '{"suite":"stream","model":"sentinel","params":{"arraysize":4096,"numtimes":3}}' --json >"$TMP/out" 2>"$TMP/err"
if [ $? = 0 ] && [ -e "$TMP/ran" ]; then pass "child runs the sentinel runner (the refusals above are the check's)"
else fail "child runs the sentinel runner (the refusals above are the check's)" "$(head -c 200 "$TMP/err")"; fi
rm -f "$TMP/ran"

# ---- through a real ppbenchd and worker ----
export PPBENCH_RUNNERS="$TMP/runners.conf"
SERVER_PLATFORMS=cpu0
server_start
wait_cpu_worker
api GET /api/v1/platforms
holds "registration: the worker lists its runners beside its models" "$BODY" \
    '[.platforms[] | select(.local_id == "cpu0") | .models][0] as $m
     | all("openmp", "babelstream-omp", "babelstream-tbb"; . as $x | $m | index([$x]) != null)'

submit() { api POST /api/v1/jobs "$1" "$ADMIN"; printf '%s' "$BODY" | jq -r '.id // empty'; }
P=$(jq -cn --arg p "$CPU" '{platform: $p}')
problem='"arraysize":65536,"numtimes":5'
J_OMP=$(submit "$(jq -c --argjson x "{\"suite\":\"stream\",\"model\":\"babelstream-omp\",\"params\":{$problem}}" '. + $x' <<<"$P")")
J_TBB=$(submit "$(jq -c --argjson x "{\"suite\":\"stream\",\"model\":\"babelstream-tbb\",\"params\":{$problem}}" '. + $x' <<<"$P")")
J_PPB=$(submit "$(jq -c --argjson x "{\"suite\":\"stream\",\"model\":\"openmp\",\"kernels\":[\"copy\",\"mul\",\"add\",\"triad\",\"dot\"],\"params\":{$problem}}" '. + $x' <<<"$P")")
J_KOKKOS=
[ -x "$BIN/kokkos-stream" ] &&
    J_KOKKOS=$(submit "$(jq -c --argjson x "{\"suite\":\"stream\",\"model\":\"babelstream-kokkos\",\"params\":{$problem}}" '. + $x' <<<"$P")")
for j in "$J_OMP" "$J_TBB" "$J_PPB" $J_KOKKOS; do
    if [ -n "$j" ] && wait_job "$j" "succeeded|failed|cancelled" 240 && job_in "$j" succeeded; then
        pass "job $j ($(printf '%s' "$BODY" | jq -r .model)) succeeded"
    else
        fail "job ${j:-?} succeeded" "$(printf '%s' "$BODY" | head -c 400)"
    fi
done
api GET "/api/v1/jobs/$J_OMP"
OMP_DOC=$BODY
holds "runner result: origin runner, verified by the program, 5 kernels" "$OMP_DOC" \
    '(.results | length) == 5 and all(.results[]; .origin == "runner" and .verified_by == "program" and .verified)'
holds "runner result: ppbench's byte model (triad 3 x 8 x 65536) and flops, bandwidth from the minimum" "$OMP_DOC" \
    '.results[] | select(.kernel == "triad") | .bytes == 1572864 and .flops == 131072
     and ((.bandwidth_bytes_per_s - .bytes / .stats_s.min) | fabs) < 1e-3 * .bandwidth_bytes_per_s'
holds "runner result: min, max and mean of 4 timed iterations, no samples, no median" "$OMP_DOC" \
    '.results[] | select(.kernel == "copy") | .stats_s.count == 4 and .stats_s.median == null
     and .stats_s.min <= .stats_s.mean and .stats_s.mean <= .stats_s.max'
sum=$(sha256sum "$BIN/omp-stream" | cut -d' ' -f1)
holds "runner provenance: the program's path, sha256 (as sha256sum says), version line and argv" "$OMP_DOC" \
    '.results[0].provenance | ."runner.sha256" == $sum and ."runner.program" == $prog
     and ."runner.version" == "Version: 5.0"
     and ."runner.argv" == ($prog + " --arraysize 65536 --numtimes 5 --csv") and (.verification | test("program"))' \
    --arg sum "$sum" --arg prog "$BIN/omp-stream"
api GET "/api/v1/jobs/$J_TBB"
holds "tbb runner: its own program and checksum" "$BODY" \
    '.results[0].provenance."runner.sha256" == $sum and .results[0].origin == "runner"' \
    --arg sum "$(sha256sum "$BIN/tbb-stream" | cut -d' ' -f1)"
if [ -n "$J_KOKKOS" ]; then
    api GET "/api/v1/jobs/$J_KOKKOS"
    holds "kokkos runner: BabelStream 5.0's Kokkos build, its checksum, Kokkos in its version output, 5 kernels" "$BODY" \
        '(.results | length) == 5 and all(.results[]; .origin == "runner" and .verified_by == "program")
         and .results[0].provenance."runner.sha256" == $sum and .results[0].provenance."runner.version" == "Version: 5.0"' \
        --arg sum "$(sha256sum "$BIN/kokkos-stream" | cut -d' ' -f1)"
    "$BIN/kokkos-stream" --arraysize 1024 --numtimes 2 | grep -q '^Implementation: Kokkos' &&
        pass "kokkos runner: the program says Implementation: Kokkos" || fail "kokkos runner: Implementation: Kokkos" "$("$BIN/kokkos-stream" --arraysize 1024 --numtimes 2 | head -n 4)"
fi
api GET "/api/v1/jobs/$J_PPB"
holds "ppbench's own openmp result: verified by ppbench" "$BODY" 'all(.results[]; .origin == "worker" and .verified_by == "ppbench")'

# include_flagged: a busy machine may flag the openmp run noisy (a runner's summary has no samples to judge)
api GET "/api/v1/pp?problem=stream.triad&platforms=$CPU&precision=fp64&size=65536&include_flagged=true&include_runners=true"
RUNNERS_PP=$(jq -cn --arg k "$J_KOKKOS" '["babelstream-omp", "babelstream-tbb"] + (if $k == "" then [] else ["babelstream-kokkos"] end) | sort')
holds "PP on cpu0 over openmp and the runners (include_runners): each an application, PP 0 < pp <= 1" "$BODY" \
    '([.applications[] | select(.model == "openmp" or (.model | IN($r[])))
       | select(.pp > 0 and .pp <= 1)] | length == ($r | length) + 1)
     and ([.applications[] | select(.verified_by == "program") | .model] | sort) == $r' --argjson r "$RUNNERS_PP"
api GET "/api/v1/pp?problem=stream.triad&platforms=$CPU&precision=fp64&size=65536&include_flagged=true"
holds "PP on cpu0 without include_runners: openmp alone, the runners named as left out" "$BODY" \
    '[.applications[].model] == ["openmp"] and .applications[0].verified_by == "ppbench"
     and .runners_hidden.models == $r' --argjson r "$RUNNERS_PP"

# ---- schedules: a runner where a platform the selector matches lists it ----
api POST /api/v1/schedules '{"name":"omp-nightly","spec":"30 2 * * *","suite":"stream","model":"babelstream-omp","params":{"arraysize":65536,"numtimes":5},"selector":{"kind":"cpu"}}' "$ADMIN"
holds "schedule of a runner: created, with the runner's kernels" "$BODY" \
    '.model == "babelstream-omp" and .kernels == ["copy", "mul", "add", "triad", "dot"]'
SCHED=$(printf '%s' "$BODY" | jq -r '.id // empty')
api POST "/api/v1/schedules/$SCHED/run" '{}' "$ADMIN"
J_SCHED=$(printf '%s' "$BODY" | jq -r '.last.jobs[0] // empty')
if [ -n "$J_SCHED" ] && wait_job "$J_SCHED" "succeeded|failed|cancelled" 240 && job_in "$J_SCHED" succeeded; then
    pass "schedule run now: the runner's job on cpu0 succeeded"
else
    fail "schedule run now: the runner's job on cpu0 succeeded" "$(printf '%s' "$BODY" | head -c 300)"
fi
expect_api "schedule of an unknown runner: 422" 422 unknown_model POST /api/v1/schedules \
    '{"name":"sycl-nightly","spec":"30 2 * * *","suite":"stream","model":"babelstream-sycl"}' "$ADMIN"
printf '%s' "$BODY" | grep -q 'babelstream-sycl' && pass "schedule of an unknown runner: the message names it" ||
    fail "schedule of an unknown runner: the message names it" "$BODY"
expect_api "schedule of a runner no platform of the selector lists: 422" 422 unknown_model POST /api/v1/schedules \
    '{"name":"omp-gpu","spec":"30 2 * * *","suite":"stream","model":"babelstream-omp","selector":{"kind":"gpu"}}' "$ADMIN"
expect_api "schedule of a runner with a kernel it does not measure: 422" 422 invalid_value POST /api/v1/schedules \
    '{"name":"omp-nstream","spec":"30 2 * * *","suite":"stream","model":"babelstream-omp","kernels":["nstream"]}' "$ADMIN"

# ---- bad input: a clear error, the program's last lines ----
expect_api "unknown runner: 422 naming it" 422 unknown_model POST /api/v1/jobs \
    "$(jq -c '. + {suite: "stream", model: "babelstream-sycl", params: {arraysize: 1024}}' <<<"$P")" "$ADMIN"
printf '%s' "$BODY" | grep -q 'babelstream-sycl' && pass "unknown runner: the message names it" ||
    fail "unknown runner: the message names it" "$BODY"
expect_api "a kernel the runner does not measure" 422 invalid_value POST /api/v1/jobs \
    "$(jq -c '. + {suite: "stream", model: "babelstream-omp", kernels: ["nstream"], params: {arraysize: 1024}}' <<<"$P")" "$ADMIN"
expect_api "a runner on another suite" 422 invalid_value POST /api/v1/jobs \
    "$(jq -c '. + {suite: "wilson", model: "babelstream-omp"}' <<<"$P")" "$ADMIN"
fails() { # NAME RUNNER PATTERN
    local id
    id=$(submit "$(jq -c --arg m "$2" '. + {suite: "stream", model: $m, params: {arraysize: 1024, numtimes: 5}}' <<<"$P")")
    if [ -n "$id" ] && wait_job "$id" "succeeded|failed|cancelled" 120 && job_in "$id" failed &&
        printf '%s' "$BODY" | jq -e --arg re "$3" '.error | test($re)' >/dev/null; then
        pass "fails: $1"
    else
        fail "fails: $1" "$(printf '%s' "$BODY" | jq -c '{state, error}' 2>/dev/null | head -c 400)"
    fi
}
fails "a program that exits non-zero, with its last lines" noisy-fail 'noisy-fail exited with status 3\n(.|\n)*device lost: ECC error'
fails "a program past its timeout" hangs 'hangs timed out after 2 s'
fails "no table" no-table 'no BabelStream table from no-table(.|\n)*all good, no csv here'
fails "a malformed table" malformed 'no BabelStream table from malformed: line 2: max_MB_per_sec must be a number'
fails "a table whose size disagrees with the job" other-size 'the table disagrees with the job: Copy has n_elements 2048, the job asked for 1024'
fails "json: a document whose size disagrees with the job" json-other-size 'the output disagrees with the job: problem.arraysize is 2048, the job asked for 1024'
fails "json: a kernel the suite does not have" json-odd-kernel 'the output of json-odd-kernel names kernel scale, which suite stream does not have'
fails "json: not JSON" json-malformed 'no ppbench-json document from json-malformed: not JSON'
J_JSON=$(submit "$(jq -c --argjson x "{\"suite\":\"stream\",\"model\":\"json-stream\",\"params\":{$problem}}" '. + $x' <<<"$P")")
if [ -n "$J_JSON" ] && wait_job "$J_JSON" "succeeded|failed|cancelled" 240 && job_in "$J_JSON" succeeded; then
    pass "json: a runner of the JSON form succeeded"
else
    fail "json: a runner of the JSON form succeeded" "$(printf '%s' "$BODY" | jq -c '{state, error}' 2>/dev/null | head -c 400)"
fi
api GET "/api/v1/jobs/$J_JSON"
holds "json: 5 kernels, origin runner, ppbench's byte model (triad 3 x 8 x 65536), its own verification said" "$BODY" \
    '(.results | length) == 5 and all(.results[]; .origin == "runner" and .verified_by == "program")
     and (.results[] | select(.kernel == "triad") | .bytes == 1572864 and .flops == 131072 and .stats_s.count == 4)
     and (.results[0].provenance | ."runner.output" == "ppbench-json" and (.verification | test("printed its results")))'
holds "json: {device} filled from the platform's index (cpu0: 0)" "$BODY" \
    '.results[0].provenance."runner.argv" | startswith($p + " --device 0 --arraysize 65536 ")' --arg p "$TMP/bin/json-stream"

# ---- smuggling through the API: refused, no job, nothing runs ----
smuggle_api() { # NAME BODY-ADDITION
    local before after
    before=$(psql_q 'SELECT count(*) FROM jobs')
    api POST /api/v1/jobs "$(jq -c --argjson x "$2" '. + {suite: "stream", model: "sentinel"} + $x' <<<"$P")" "$ADMIN"
    after=$(psql_q 'SELECT count(*) FROM jobs')
    if [ "$STATUS" = 422 ] && [ "$before" = "$after" ]; then pass "API refuses $1, no job"
    else fail "API refuses $1, no job" "got $STATUS, jobs $before -> $after: $(head -c 200 <<<"$BODY")"; fi
}
smuggle_api "a command field" '{"command": "touch /tmp/x", "params": {"arraysize": 1024}}'
smuggle_api "an args field" '{"args": ["--only", "Triad"], "params": {"arraysize": 1024}}'
smuggle_api "params.exec" '{"params": {"arraysize": 1024, "exec": "/bin/sh"}}'
smuggle_api "params.program" '{"params": {"arraysize": 1024, "program": "/bin/sh"}}'
smuggle_api "an argument inside a number" '{"params": {"arraysize": "1024 --float"}}'
smuggle_api "a path as the model" '{"model": "/bin/sh", "params": {"arraysize": 1024}}'
sleep_until_idle() { api GET "/api/v1/jobs?state=running"; [ "$(printf '%s' "$BODY" | jq '.jobs | length')" = 0 ]; }
wait_for 30 sleep_until_idle
[ ! -e "$TMP/ran" ] && pass "nothing ran the sentinel program" || fail "nothing ran the sentinel program" "$TMP/ran exists"
server_stop

# ---- the mutant: the parameter check (kernels/suite.c, shared by ppbenchd and the job's child) lets an unknown
# parameter through; the same smuggling checks must catch it ----
M="$TMP/mutant"
mkdir -p "$M"
git ls-files -z | xargs -0 -I{} cp --parents -p {} "$M/" 2>/dev/null
cp -a "$BUILD" "$M/build"
sed -i 's|            return fail(e, "unknown_field", field, "unknown field \\"%s\\"", field);|            continue; /* MUTANT */|' \
    "$M/kernels/suite.c"
if [[ "$BUILD" == *-asan ]]; then # its objects are instrumented: the copy would need the sanitizer build's flags
    skip "mutant" "built and run once, from the normal build"
elif ! grep -q MUTANT "$M/kernels/suite.c"; then
    fail "mutant: applied" "the sed did not match kernels/suite.c"
elif ! make -C "$M" -j2 BUILD=build build/bin/ppbench-worker >"$TMP/mutant.log" 2>&1; then
    fail "mutant: builds" "$(tail -n 3 "$TMP/mutant.log" | tr '\n' ' ')"
else
    "$M/build/bin/ppbench-worker" run --runners "$TMP/runners.conf" --platform cpu0 \
        --job '{"suite":"stream","model":"sentinel","params":{"arraysize":4096,"numtimes":3,"exec":"/bin/sh"}}' \
        --json >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ "$rc" != 2 ] || [ -e "$TMP/ran" ]; then pass "mutant caught: a field let through runs the program (exit $rc)"
    else fail "mutant caught: a field let through runs the program" "the mutant refused it too"; fi
fi
