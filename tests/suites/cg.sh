# The CG-solve suite (paper 002) through the worker and the service: the table, CSV and JSON of a run on
# openmp and PoCL, the solve's residual history, a planted column fault caught, bad input refused naming the
# parameter, and a size sweep submitted as one request that stores one verified result per size.
. "$(dirname "$0")/../lib/check.sh"

run() { "$WORKER" run --platform cpu0 --suite cg "$@"; }
expect "cg: openmp table, every kernel verified" 0 '^Cg .* yes$' -- run --model openmp --n 7 --numtimes 3 --iterations 10
expect "cg: the table names the matrix" 0 'Matrix: n = 7, 512 rows, 10648 nonzeros' -- \
    run --model openmp --n 7 --numtimes 3 --iterations 10
expect "cg: csv" 0 '^spmv,3,7,512,10648,8,native,' -- run --model openmp --n 7 --numtimes 3 --iterations 10 --csv
if "$WORKER" list | grep -Eq '^cpu0 .*opencl'; then
    run --model opencl --n 9 --numtimes 3 --iterations 15 --float --json >"$TMP/cg.json" 2>"$TMP/cg.err"
    jq_true "cg: opencl json: rows, nnz ((3n+1)^3, the 27-point count), every kernel verified, fp32" "$TMP/cg.json" \
        '.problem.rows == 1000 and .problem.nnz == 21952 and .problem.size == 1000 and .verified and
         .problem.precision == "fp32" and ([.kernels[].kernel] == ["axpby", "dot", "spmv", "cg"])'
    jq_true "cg: the residual decreases and the history is the iterations + 1" "$TMP/cg.json" \
        '(.details.residual | length) == 16 and .details.residual[-1] < .details.residual[0]'
    jq_true "cg: bytes are the compulsory traffic (spmv 4(R+1) + Z(4+b) + 2Rb)" "$TMP/cg.json" \
        '(.kernels[] | select(.kernel == "spmv") | .bytes) == (4 * 1001 + 21952 * 8 + 2 * 1000 * 4)'
    jq_true "cg: working_set_bytes: offsets, indices, values and 5 vectors (fp32)" "$TMP/cg.json" \
        '.problem.working_set_bytes == 4 * 1001 + 21952 * 8 + 5 * 1000 * 4'
else
    skip "cg: opencl" "no OpenCL platform on cpu0"
fi
expect "cg: a planted column fault is caught and named" 1 'verification failed: spmv' -- \
    env PPBENCH_TEST_FAULT=column "$WORKER" run --platform cpu0 --suite cg --model openmp --n 5 --numtimes 2 \
    --iterations 5
expect "cg refuses n 0" 2 '--n must be from 1 to 429, got 0' -- run --model openmp --n 0
expect "cg refuses n beyond 32-bit offsets" 2 '--n must be from 1 to 429' -- run --model openmp --n 500
expect "cg refuses 0 iterations" 2 '--iterations must be from 1 to' -- run --model openmp --iterations 0
expect "cg refuses an unknown spmv variant" 2 'unknown spmv_variant "mkl"' -- run --model openmp --spmv-variant mkl
expect "cg refuses cusparse on openmp" 2 'cusparse' -- run --model openmp --n 3 --spmv-variant cusparse
expect "cg refuses a tolerance out of range" 2 '--tolerance must be from 0 to 0.5' -- run --model openmp --tolerance 2

# A sweep: one request, one job and one verified result per size, tagged with the sweep.
. "$(dirname "$0")/../lib/server.sh"
[ -x "$SERVER" ] || { skip "cg sweep" "ppbenchd not built"; exit 0; }
server_start "lease_s = 3" "heartbeat_s = 1"
wait_cpu_worker
[ -n "$CPU" ] || { fail "cg sweep: a supervised worker" "$(tail -n 5 "$SERVER_LOG" | tr '\n' ' ')"; exit 0; }
api POST /api/v1/jobs "{\"suite\":\"cg\",\"model\":\"openmp\",\"platform\":\"$CPU\",\"kernels\":[\"spmv\",\"cg\"],
    \"params\":{\"numtimes\":3,\"iterations\":5},\"sweep\":{\"param\":\"n\",\"values\":[2,5,9]}}" "$ADMIN"
IDS=$(printf '%s' "$BODY" | jq -r '.ids[]?' | tr '\n' ' ')
SWEEP=$(printf '%s' "$BODY" | jq -r .sweep)
if [ "$STATUS" = 202 ] && [ "$(echo $IDS | wc -w)" = 3 ] && [[ "$SWEEP" == sweep:* ]]; then
    pass "cg sweep: one request makes three jobs with a sweep tag"
else
    fail "cg sweep: one request makes three jobs with a sweep tag" "$STATUS $BODY"
fi
sizes=""
for id in $IDS; do
    wait_job "$id" "succeeded|failed|cancelled" 90 || true
    sizes="$sizes $(printf '%s' "$BODY" | jq -r --arg s "$SWEEP" 'select(.state == "succeeded" and (.tags | index($s)))
        | [.results[] | select(.verified) | .size] | unique | map(tostring) | join(",")')"
done
[ "$sizes" = " 27 216 1000" ] && pass "cg sweep: one verified result per size (rows 27, 216, 1000)" ||
    fail "cg sweep: one verified result per size (rows 27, 216, 1000)" "sizes:$sizes"
api POST /api/v1/jobs "{\"suite\":\"cg\",\"model\":\"openmp\",\"platform\":\"$CPU\",\"params\":{\"n\":4},
    \"sweep\":{\"param\":\"n\",\"values\":[2,5]}}" "$ADMIN"
[ "$STATUS" = 422 ] && [ "$(printf '%s' "$BODY" | jq -r .error.code)" = conflicting_fields ] &&
    pass "cg sweep: a swept parameter given in params too is refused" || fail "cg sweep: conflict" "$STATUS $BODY"
api POST /api/v1/jobs "{\"suite\":\"cg\",\"model\":\"openmp\",\"platform\":\"$CPU\",\"sweep\":{\"param\":\"n\",\"values\":[2,0]}}" "$ADMIN"
[ "$STATUS" = 422 ] && [ "$(printf '%s' "$BODY" | jq -r .error.field)" = params.n ] &&
    pass "cg sweep: a bad value is refused naming the parameter" || fail "cg sweep: bad value" "$STATUS $BODY"
api POST /api/v1/jobs "{\"suite\":\"cg\",\"model\":\"openmp\",\"platform\":\"$CPU\",\"sweep\":{\"param\":\"colour\",\"values\":[2]}}" "$ADMIN"
[ "$STATUS" = 422 ] && [ "$(printf '%s' "$BODY" | jq -r .error.field)" = sweep.param ] &&
    pass "cg sweep: an unknown swept parameter is refused" || fail "cg sweep: unknown param" "$STATUS $BODY"
api POST /api/v1/jobs "{\"suite\":\"stream\",\"model\":\"openmp\",\"platform\":\"$CPU\",\"params\":{\"numtimes\":3},
    \"sweep\":{\"param\":\"arraysize\",\"values\":[1000,100000]}}" "$ADMIN"
[ "$STATUS" = 202 ] && [ "$(printf '%s' "$BODY" | jq '.ids | length')" = 2 ] &&
    pass "stream sweep over arraysize" || fail "stream sweep over arraysize" "$STATUS $BODY"

# The CLI prints the same view as the dashboard's Scaling page: one row per kernel, model, precision and size.
# Every run counts (--include-flagged): a 3-sample run of 27 rows on a busy machine may be flagged noisy.
"$BUILD/bin/ppbench" --server "$URL" --token "$ADMIN" scaling --platform "$CPU" --suite cg --precision fp64 \
    --include-flagged >"$TMP/scaling.txt" 2>&1
if grep -Eq '^spmv +openmp +fp64 +27 ' "$TMP/scaling.txt" && grep -Eq '^spmv +openmp +fp64 +1000 ' "$TMP/scaling.txt" &&
    [ "$(grep -Ec '^(spmv|cg) +openmp +fp64 ' "$TMP/scaling.txt")" = 6 ]; then
    pass "ppbench scaling prints the sweep: spmv and cg at 27, 216 and 1000 rows"
else
    fail "ppbench scaling prints the sweep" "$(head -c 400 "$TMP/scaling.txt")"
fi
expect "ppbench scaling refuses an unknown suite" 2 'unknown suite "nbody"' -- \
    "$BUILD/bin/ppbench" --server "$URL" scaling --platform "$CPU" --suite nbody
