# The lattice QCD suites (wilson, staggered) as jobs through the whole service: the embedded default (ppbenchd,
# its own PostgreSQL, a supervised worker on cpu0) running real kernels. The catalogue, parameters refused by
# name, jobs from submission to verified results (size = lattice sites, the problem and variant kept, GFLOP/s
# by the suite's timing rule; staggered jobs take no timing parameter), what only the worker can judge (a lattice too large for the device, a strategy
# the model lacks, a work-group size the strategy cannot use) failing the job with the worker's message, the
# results endpoint in its three formats, and PP for wilson.dslash and staggered.dslash.
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../lib/server.sh"
[ -x "$SERVER" ] || { skip "server lattice" "ppbenchd not built"; exit 0; }

# Tiny lattices with 2 or 3 samples on a shared test machine spread widely: the noisy bound is lifted here
# (tests/service/server_pp.sh tests it).
server_start "lease_s = 3" "heartbeat_s = 1" "noise_best_percent = 100000" "noise_mean_percent = 100000"
J=/api/v1/jobs

# check NAME FILTER: the jq filter is true on BODY.
check() {
    if printf '%s' "$BODY" | jq -e "$2" >/dev/null 2>&1; then pass "$1"; else
        fail "$1" "jq '$2' is false on: $(printf '%s' "$BODY" | head -c 600)"; fi
}
# refused NAME CODE FIELD JOB: the job is refused with 422, the code, and the parameter named in field and
# message.
refused() {
    api POST $J "$4" "$ADMIN"
    if [ "$STATUS" = 422 ] && printf '%s' "$BODY" | jq -e --arg c "$2" --arg f "$3" \
        '.error.code == $c and .error.field == $f and (.error.message | contains($f))' >/dev/null; then
        pass "$1 ($(printf '%s' "$BODY" | jq -r .error.message))"
    else
        fail "$1" "got $STATUS, expected 422 $2 naming $3: $(printf '%s' "$BODY" | head -c 300)"
    fi
}
# run_job NAME JOB SECONDS: submit, wait until terminal; BODY is the job at the end, ID its id.
run_job() {
    api POST $J "$2" "$ADMIN"
    ID=$(printf '%s' "$BODY" | jq -r .id)
    [ "$STATUS" = 202 ] || { fail "$1" "submit: $STATUS $BODY"; return 1; }
    wait_job "$ID" "succeeded|failed|cancelled" "$3" || { fail "$1" "not finished in $3 s: $BODY"; return 1; }
}

wait_cpu_worker
[ -n "$CPU" ] && pass "a supervised worker serves $CPU" ||
    { fail "a supervised worker serves cpu0" "$(tail -n 5 "$SERVER_LOG" | tr '\n' ' ')"; exit 0; }

# --- the catalogue ---
api GET /api/v1/suites
check "catalogue: wilson and staggered, kernel dslash" \
    '[.suites[] | select(.name == "wilson" or .name == "staggered") | .kernels] == [["dslash"], ["dslash"]]'
check "catalogue: wilson fp32 by default, staggered fp64" \
    '(.suites[] | select(.name == "wilson") | .params[] | select(.name == "precision") | .default) == "fp32" and
     (.suites[] | select(.name == "staggered") | .params[] | select(.name == "precision") | .default) == "fp64"'
check "catalogue: lattice is an optional string (the worker picks the device default)" \
    'all(.suites[] | select(.name != "stream") | .params[] | select(.name == "lattice");
         .type == "string" and .format == "lattice" and .optional and .default == null)'
check "catalogue: the staggered strategies and orders; no timing rule (jobs follow the paper's)" \
    '(.suites[] | select(.name == "staggered") | .params | map({(.name): .choices}) | add) as $p |
     $p.strategy == ["1lp","2lp","3lp-1","3lp-2","3lp-3","4lp-1","4lp-2","site","simd"] and
     $p.order == ["none","k","i","l"] and ($p | has("timing") | not)'

# --- parameters refused by name ---
W="\"suite\":\"wilson\",\"model\":\"openmp\",\"platform\":\"$CPU\""
S="\"suite\":\"staggered\",\"model\":\"openmp\",\"platform\":\"$CPU\""
refused "wilson: an odd extent"            invalid_value params.lattice    "{$W,\"params\":{\"lattice\":\"4x4x5x4\"}}"
refused "wilson: three extents"            invalid_value params.lattice    "{$W,\"params\":{\"lattice\":\"4x4x4\"}}"
refused "wilson: an extent below 4"        invalid_value params.lattice    "{$W,\"params\":{\"lattice\":\"2x4x4x4\"}}"
refused "wilson: a lattice past 2^32 sites a checkerboard" invalid_value params.lattice "{$W,\"params\":{\"lattice\":\"512x512x512x512\"}}"
refused "staggered: a lattice whose volume overflows 64 bits" invalid_value params.lattice "{$S,\"params\":{\"lattice\":\"65536x65536x65536x65536\"}}"
refused "wilson: a lattice that is not a string" wrong_type params.lattice "{$W,\"params\":{\"lattice\":8}}"
refused "wilson: an unknown layout"        invalid_value params.layout     "{$W,\"params\":{\"layout\":\"aosoa\"}}"
refused "wilson: numtimes 1"               out_of_range  params.numtimes   "{$W,\"params\":{\"numtimes\":1}}"
refused "wilson: a stream parameter"       unknown_field params.arraysize  "{$W,\"params\":{\"arraysize\":1000}}"
refused "staggered: an unknown strategy"   invalid_value params.strategy   "{$S,\"params\":{\"strategy\":\"5lp\"}}"
refused "staggered: an unknown order"      invalid_value params.order      "{$S,\"params\":{\"order\":\"j\"}}"
refused "staggered: work_group -1"         out_of_range  params.work_group "{$S,\"params\":{\"work_group\":-1}}"
refused "staggered: runs 0"                out_of_range  params.runs       "{$S,\"params\":{\"runs\":0}}"
refused "staggered: a timing rule (jobs take the paper's)" unknown_field params.timing "{$S,\"params\":{\"timing\":\"best\"}}"
refused "staggered: a wilson parameter"    unknown_field params.layout     "{$S,\"params\":{\"layout\":\"aos\"}}"
expect_api "wilson: a stream kernel"       422 unknown_kernel POST $J "{$W,\"kernels\":[\"triad\"]}" "$ADMIN"

# --- a wilson job end to end ---
if run_job "wilson job" "{$W,\"params\":{\"lattice\":\"4x4x4x8\",\"numtimes\":3}}" 60; then
    check "wilson job: defaults filled in (iterations from the suite table; no default lattice: the worker's)" \
        '.params == {"lattice":"4x4x4x8","layout":"aos","precision":"fp32","numtimes":3,"iterations":1} and .kernels == ["dslash"]'
    check "wilson job on openmp succeeded" '.state == "succeeded"'
    check "wilson result: suite, kernel, size = 512 sites, lattice, variant, GFLOP/s, verified" \
        '(.results | length) == 1 and (.results[0] | .suite == "wilson" and .kernel == "dslash" and .size == 512 and
         .precision == "fp32" and .problem.lattice == [4,4,4,8] and .problem.sites == 512 and
         .problem.output_sites == 256 and .provenance.variant.layout == "aos" and .variant == "aos" and
         .gflops > 0 and .flops == 1320 * 256 and .verified and .stats_s.count == 2 and (.times_s | length) == 3)'
    WILSON_RESULT=$(printf '%s' "$BODY" | jq -r '.results[0].id')
fi
if run_job "wilson soa fp64 job" "{$W,\"params\":{\"lattice\":\"4x4x4x4\",\"layout\":\"soa\",\"precision\":\"fp64\",\"numtimes\":3}}" 60; then
    check "wilson soa fp64 job succeeded with its variant and precision" \
        '.state == "succeeded" and (.results[0] | .precision == "fp64" and .size == 256 and
         .provenance.variant.layout == "soa" and .verified and .gflops > 0)'
fi
# Only the worker knows the device: a lattice the server accepts but the memory cannot hold fails the job
# with the worker's message, which names the lattice.
if run_job "wilson job too large for the device" "{$W,\"params\":{\"lattice\":\"256x256x256x256\",\"numtimes\":2}}" 60; then
    check "wilson job too large for the device fails naming the lattice" \
        '.state == "failed" and (.error | test("lattice 256x256x256x256 too large")) and (.results | length) == 0'
fi

# --- results: JSON, BabelStream CSV, P3 ---
api GET "/api/v1/results?suite=wilson&kernel=dslash"
check "results endpoint filters the wilson results" \
    '(.results | length) == 2 and all(.results[]; .suite == "wilson" and .kernel == "dslash" and .gflops > 0)'
api GET "/api/v1/results?suite=wilson&format=babelstream"
printf '%s\n' "$BODY" | grep -Eq '^Dslash,3,512,4,' && pass "results as BabelStream CSV: a Dslash row of 512 sites" ||
    fail "results as BabelStream CSV: a Dslash row of 512 sites" "$BODY"
api GET "/api/v1/results?suite=wilson&format=p3"
printf '%s\n' "$BODY" | grep -q "^wilson.dslash/precision=fp32;size=512;lattice=4x4x4x8;numtimes=3;iterations=1,$CPU,openmp," &&
    printf '%s\n' "$BODY" | grep -q "^wilson.dslash/precision=fp64;size=256;lattice=4x4x4x4;numtimes=3;iterations=1,$CPU,openmp," &&
    pass "results for P3: one row per wilson problem" || fail "results for P3: one row per wilson problem" "$BODY"

# --- performance portability on wilson.dslash ---
api GET "/api/v1/pp?problem=wilson.dslash&platforms=$CPU"
check "pp wilson.dslash: the suite's precision (fp32) by default, the platform, openmp at efficiency 1" \
    "[.problem, .precision, .size] == [\"wilson.dslash\", \"fp32\", 512] and .platforms[0].id == \"$CPU\" and
     .applications[0].model == \"openmp\" and .applications[0].pp == 1 and
     .applications[0].efficiencies[0].result_id == ${WILSON_RESULT:-0}"
api GET "/api/v1/pp?problem=wilson.dslash&precision=fp64"
check "pp wilson.dslash at fp64: the 4^4 lattice" '.precision == "fp64" and .size == 256 and (.applications | length) == 1'

# --- the problem key (issue 12): what changes the work per timed unit makes another problem ---
# The same lattice with 2 applications per sample, and the same volume in another shape: three problems of
# wilson.dslash fp32 at size 512, never mixed.
run_job "wilson job, 2 iterations per sample" "{$W,\"params\":{\"lattice\":\"4x4x4x8\",\"numtimes\":3,\"iterations\":2}}" 60 &&
    check "wilson job with 2 iterations: its result's problem key says so" \
        '.state == "succeeded" and .results[0].problem_key == "precision=fp32;size=512;lattice=4x4x4x8;numtimes=3;iterations=2"'
ITER2_RESULT=$(printf '%s' "$BODY" | jq -r '.results[0].id')
run_job "wilson job, 8x4x4x4 (the same volume)" "{$W,\"params\":{\"lattice\":\"8x4x4x4\",\"numtimes\":3}}" 60 &&
    check "wilson job on 8x4x4x4: its own problem key" \
        '.state == "succeeded" and .results[0].problem_key == "precision=fp32;size=512;lattice=8x4x4x4;numtimes=3;iterations=1"'
api GET "/api/v1/results?suite=wilson&format=p3"
n=$(printf '%s\n' "$BODY" | grep -c "^wilson.dslash/precision=fp32;size=512;")
[ "$n" = 3 ] && pass "results for P3: iterations and lattice shape make three problems of 512 sites, one row each" ||
    fail "results for P3: three problems of 512 sites" "$n rows: $BODY"
api GET "/api/v1/pp?problem=wilson.dslash&platforms=$CPU&key=precision%3Dfp32%3Bsize%3D512%3Blattice%3D4x4x4x8%3Bnumtimes%3D3%3Biterations%3D2"
check "pp wilson.dslash at the 2-iteration key: that result alone" \
    ".problem_key == \"precision=fp32;size=512;lattice=4x4x4x8;numtimes=3;iterations=2\" and
     (.applications | length) == 1 and .applications[0].efficiencies[0].result_id == ${ITER2_RESULT:-0}"
api GET "/api/v1/pp?problem=wilson.dslash&platforms=$CPU"
check "pp wilson.dslash default: one of the three keys (1 result each; ties to the key's text), said in key_note" \
    ".problem_key == \"precision=fp32;size=512;lattice=4x4x4x8;numtimes=3;iterations=1\" and
     .key_note == \"the problem key with the most verified results: 1 of 3\" and
     .applications[0].efficiencies[0].result_id == ${WILSON_RESULT:-0}"

# --- staggered jobs end to end ---
if run_job "staggered job" "{$S,\"params\":{\"lattice\":\"4x4x4x4\",\"strategy\":\"site\",\"runs\":2,\"iterations\":2}}" 60; then
    check "staggered job: defaults filled in" \
        '.params == {"lattice":"4x4x4x4","precision":"fp64","strategy":"site","runs":2,"iterations":2}'
    check "staggered result: suite, kernel, size = 256 sites, variant site, 1146 flop per site, GFLOP/s from the mean, verified" \
        '.state == "succeeded" and (.results | length) == 1 and (.results[0] | .suite == "staggered" and
         .kernel == "dslash" and .size == 256 and .precision == "fp64" and .problem.sites == 256 and
         .provenance.variant.strategy == "site" and .flops == 1146 * 128 and .gflops > 0 and .verified and
         .stats_s.count == 2 and ((.gflops - .flops / .stats_s.mean / 1e9) | fabs) < 1e-6 * .gflops)'
fi
if run_job "staggered simd job" "{$S,\"params\":{\"lattice\":\"4x4x4x8\",\"strategy\":\"simd\",\"precision\":\"fp32\",\"runs\":3,\"iterations\":1}}" 60; then
    check "staggered simd job: fp32, 512 sites, variant simd, three samples, the paper's mean rule" \
        '.state == "succeeded" and (.results[0] | .precision == "fp32" and .size == 512 and
         .provenance.variant.strategy == "simd" and .problem.timing == "mean" and .stats_s.count == 3 and
         (.times_s | length) == 3 and .verified and ((.gflops - .flops / .stats_s.mean / 1e9) | fabs) < 1e-6 * .gflops)'
fi
# A strategy the model lacks is refused at submission (the suite table's choice_models, issue 15).
api POST /api/v1/jobs "{$S,\"params\":{\"lattice\":\"4x4x4x4\",\"strategy\":\"3lp-1\"}}" "$ADMIN"
[ "$STATUS" = 422 ] && printf '%s' "$BODY" | jq -e '.error.field == "params.strategy" and (.error.message | test("no strategy \"3lp-1\""))' >/dev/null &&
    pass "staggered: a strategy openmp lacks is refused at submission, naming it" ||
    fail "staggered: a strategy openmp lacks is refused at submission, naming it" "$STATUS $BODY"
# What only the worker can judge fails the job with its message, which names the parameter.
if run_job "staggered: a work-group for a CPU loop" "{$S,\"params\":{\"lattice\":\"4x4x4x4\",\"strategy\":\"site\",\"work_group\":96}}" 60; then
    check "staggered: a work-group size the strategy cannot use fails the job naming it" \
        '.state == "failed" and (.error | test("work-group size 96"))'
fi
api GET "/api/v1/pp?problem=staggered.dslash"
check "pp staggered.dslash: fp64 by default, openmp on the platform" \
    ".precision == \"fp64\" and .size == 256 and .applications[0].efficiencies[0].platform == \"$CPU\""
