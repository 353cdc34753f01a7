# The suite table as the one source: the server's catalogue is the worker's; a job's parameters reach the
# driver unchanged (the child gets the job's JSON and reports the problem it ran); the worker's options come
# from the table (an option of another suite is named as such).
. "$(dirname "$0")/../lib/check.sh"

# One form from the job to the driver: each suite run from a job document reports the parameters it was given.
run_job() { "$WORKER" run --platform cpu0 --job "$1" --json >"$TMP/$2.json" 2>"$TMP/$2.err"; }
run_job '{"suite":"stream","model":"openmp","kernels":["triad","copy"],"params":{"arraysize":1001,"numtimes":3,"precision":"fp32"}}' stream
jq_true "job json reaches the stream driver unchanged" "$TMP/stream.json" \
    '.problem.size == 1001 and .problem.numtimes == 3 and .problem.precision == "fp32" and
     ([.kernels[].kernel] | sort) == ["copy", "triad"] and (.kernels[0].times_s | length) == 3'
run_job '{"suite":"wilson","model":"openmp","params":{"lattice":"4x4x4x8","layout":"soa","numtimes":2,"iterations":3,"precision":"fp64"}}' wilson
jq_true "job json reaches the wilson driver unchanged" "$TMP/wilson.json" \
    '.problem.lattice == [4,4,4,8] and .problem.size == 512 and .problem.iterations == 3 and
     .problem.numtimes == 2 and .problem.precision == "fp64" and .variant.layout == "soa"'
run_job '{"suite":"staggered","model":"openmp","params":{"lattice":"4x4x4x8","strategy":"simd","runs":2,"iterations":2,"precision":"fp32"}}' staggered
jq_true "job json reaches the staggered driver unchanged" "$TMP/staggered.json" \
    '.problem.lattice == [4,4,4,8] and .problem.runs == 2 and .problem.iterations == 2 and
     .problem.precision == "fp32" and .variant.strategy == "simd"'
expect "a job's parameters are checked in the child as the server checks them" 2 \
    'invalid job: params.arraysize must be from 1 to' -- \
    "$WORKER" run --platform cpu0 --job '{"suite":"stream","model":"openmp","params":{"arraysize":0}}' --json
expect "a job's unknown parameter is refused in the child" 2 'unknown field "params.colour"' -- \
    "$WORKER" run --platform cpu0 --job '{"suite":"stream","model":"openmp","params":{"colour":1}}' --json
expect "--job takes no other suite options" 2 'give no others' -- \
    "$WORKER" run --platform cpu0 --job '{"suite":"stream","model":"openmp"}' --arraysize 10
expect "--param NAME=VALUE is any parameter" 0 '^Triad .* yes$' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite stream --param arraysize=999 --param numtimes=2
expect "--param of another suite is refused by name" 2 'suite stream has no parameter "lattice"' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite stream --param lattice=4x4x4x4
expect "suites lists the table" 0 '^staggered +MILC staggered Dslash' -- "$WORKER" suites

# The server serves the same catalogue the worker prints (both read kernels/suites.c).
. "$(dirname "$0")/../lib/server.sh"
if [ -x "$SERVER" ]; then
    server_start "embedded_workers = false"
    api GET /api/v1/suites
    "$WORKER" suites --json >"$TMP/worker-suites.json"
    if [ "$STATUS" = 200 ] &&
        [ "$(printf '%s' "$BODY" | jq --slurpfile w "$TMP/worker-suites.json" '. == $w[0]')" = true ]; then
        pass "GET /api/v1/suites is the worker's catalogue"
    else
        fail "GET /api/v1/suites is the worker's catalogue" "$STATUS $(printf '%s' "$BODY" | head -c 200)"
    fi
else
    skip "GET /api/v1/suites is the worker's catalogue" "ppbenchd not built"
fi
