# Variant policies and code divergence (issue 13 items 5-6) through the real ppbenchd: hacc jobs run by the
# supervised worker on this machine's cpu0 (openmp simd; opencl on PoCL: memory-32, broadcast, and select,
# which PoCL cannot run: the job fails "unsupported: ..."), and a second platform (testhost/cpu0) registered
# through the worker protocol, which posts real reports of `ppbench-worker run` (openmp scalar, opencl
# memory-32; omp-target simd by host fallback where the offload model is built) and an unsupported select. GET /api/v1/pp/policies is checked against hand computation: PP of each
# policy from its efficiencies, divergence 0 for one variant everywhere, and the Jaccard distance of the
# embedded line sets ($BUILD/gen/linesets.txt) where the policy runs different variants; `ppbench pp
# --policies` prints the same numbers.
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../lib/server.sh"
CLI="$BUILD/bin/ppbench"
[ -x "$SERVER" ] && [ -x "$CLI" ] || { skip "server policies" "ppbenchd or ppbench not built"; exit 0; }
"$WORKER" list | grep -Eq '^cpu0 .*opencl' || { skip "server policies" "no OpenCL CPU device (pocl-opencl-icd)"; exit 0; }
LINESETS="$BUILD/gen/linesets.txt"

# A known last-level cache (tests/lib/check.sh makes it unknown), so that the cache-residency rule applies: every
# job here names its size, so no default grows with it.
export PPBENCH_LLC_BYTES_CPU0=33554432
# A 2-core machine shared with other tests spreads small runs: the noise bound is lifted so that PP sees them.
server_start "noise_best_percent = 100000" "noise_mean_percent = 100000" "lease_s = 5" "heartbeat_s = 1"
wait_cpu_worker
[ -n "$CPU" ] || { fail "policies: a supervised worker" "$(tail -n 5 "$SERVER_LOG" | tr '\n' ' ')"; exit 0; }
token() { "$SERVER" token create --role "$1" --state-dir "$STATE" 2>>"$SERVER_LOG"; }
READ=$(token read); WTOKEN=$(token worker)
P='"leaf_pairs":40,"leaf_size":32,"numtimes":3,"precision":"fp32"'

submit() { # MODEL VARIANT PLATFORM: the job id
    api POST /api/v1/jobs "{\"suite\":\"hacc\",\"model\":\"$1\",\"platform\":\"$3\",\"params\":{$P,\"variant\":\"$2\"}}" "$ADMIN"
    printf '%s' "$BODY" | jq -r .id
}
ids=""
for mv in openmp:simd opencl:memory-32 opencl:broadcast opencl:select; do
    ids="$ids $(submit "${mv%%:*}" "${mv#*:}" "$CPU")"
done
states=""
for id in $ids; do
    wait_job "$id" "succeeded|failed|cancelled" 120 || true
    states="$states $(printf '%s' "$BODY" | jq -r .state)"
    [ "$(printf '%s' "$BODY" | jq -r .params.variant)" = select ] && SELECT_ERR=$(printf '%s' "$BODY" | jq -r .error)
done
[ "$states" = " succeeded succeeded succeeded failed" ] && pass "policies: hacc jobs on $CPU (openmp simd, opencl memory-32 and broadcast verified; select failed)" ||
    fail "policies: hacc jobs on $CPU" "states$states"
# hacc is compute-bound (the suite table's bound): its working set, a few kB here, fits any last-level cache,
# and its results are still not flagged cache_resident (a memory-bound suite's would be: server_pp.sh).
api GET "/api/v1/results?suite=hacc&platform=$CPU"
printf "%s" "$BODY" >"$TMP/hacc-results"
jq_true "policies: hacc results state their working set, within the cache, and are not flagged cache_resident" "$TMP/hacc-results" \
    '(.results | length) >= 6 and all(.results[]; .problem.working_set_bytes < .provenance.platform.llc_bytes and (.flags | index("cache_resident") | not))'
[[ "${SELECT_ERR:-}" == *"unsupported: variant select needs sub-group shuffles"* ]] &&
    pass "policies: the select job failed as unsupported (the worker's exit 3 and its message)" ||
    fail "policies: the select job failed as unsupported" "error: ${SELECT_ERR:-none}"

# testhost/cpu0: a registered worker that posts real reports (this machine's runs) for its own jobs.
# Where the offload model is built, testhost also has omp-target (host fallback: its target regions on the
# host), so that "OpenMP everywhere" (host parallel for on one platform, target regions on the other) is a policy.
OMPT=""
PPBENCH_OMPTARGET_HOST=1 "$WORKER" list | grep -Eq '^cpu0 .*omp-target' && OMPT=1
PLATFORM=$(PPBENCH_OMPTARGET_HOST=1 "$WORKER" list --json | jq -c '.platforms[] | select(.id == "cpu0")')
api POST /api/v1/workers/register "{\"host\":\"testhost\",\"pid\":$$,\"version\":\"t\",\"platform\":$PLATFORM}" "$WTOKEN"
WID=$(printf '%s' "$BODY" | jq -r .worker_id)
REG=$BODY
as_worker "$BODY"
post() { # MODEL VARIANT OUTCOME: submit to testhost/cpu0, claim, report (a real run's JSON, or the failure)
    local id epoch rep=null err=null
    id=$(submit "$1" "$2" testhost/cpu0)
    api POST "/api/v1/workers/$WID/claim?wait=0" "" "$WTOKEN"
    epoch=$(printf '%s' "$BODY" | jq -r .job.epoch)
    if [ "$3" = succeeded ]; then
        PPBENCH_OMPTARGET_HOST=1 "$WORKER" run --platform cpu0 --suite hacc --model "$1" --variant "$2" --leaf-pairs 40 --leaf-size 32 \
            --numtimes 3 --precision fp32 --json >"$TMP/rep.json" 2>"$TMP/rep.err"
        rep=$(cat "$TMP/rep.json")
    else
        err='"unsupported: variant select needs sub-group shuffles (cl_khr_subgroup_shuffle or cl_intel_subgroups), which testhost lacks"'
    fi
    api POST "/api/v1/jobs/$id/result" "{\"epoch\":$epoch,\"outcome\":\"$3\",\"error\":$err,\"report\":$rep}" "$WTOKEN"
    printf '%s' "$BODY" | jq -r .state
}
s=$(post openmp scalar succeeded) && s="$s $(post opencl memory-32 succeeded)" && s="$s $(post opencl select failed)"
[ -n "$OMPT" ] && s="$s $(post omp-target simd succeeded)" || s="$s succeeded"
AS_WORKER_SECRET=""
[ "$s" = "succeeded succeeded failed succeeded" ] && pass "policies: testhost/cpu0 posts openmp scalar, opencl memory-32 and an unsupported select" ||
    fail "policies: testhost/cpu0 results" "states $s"

# check NAME FILTER: the jq filter is true on BODY; near(a; b) to 1e-9; jacc(a; b): the Jaccard distance of
# two embedded line sets ("model variant", of fp32: the queries' precision), from $LINESETS.
awk '$1 == "hacc" && $4 == "fp32" { printf "%s{\"k\":\"%s %s\",\"l\":[", (n++ ? "," : "["), $2, $3;
    for (i = 5; i <= NF; i++) printf "%s\"%s\"", (i > 5 ? "," : ""), $i; printf "]}" } END { print "]" }' "$LINESETS" \
    >"$TMP/sets.json" # a file: the sets outgrow one argument (128 KiB)
check() {
    if printf '%s' "$BODY" | jq -e --slurpfile sets "$TMP/sets.json" "
        def near(a; b): ((a - b) | fabs) < 1e-9 * (1 + (b | fabs));
        def set(k): (\$sets[0][] | select(.k == k) | .l);
        def jacc(a; b): (set(a) | unique) as \$x | (set(b) | unique) as \$y
            | 1 - (([\$x[] | select(IN(\$y[]))] | length) / ((\$x + \$y | unique) | length));
        def pol(n): .policies[] | select(.policy == n);
        def ppof(p): (p.efficiencies | length) / ([p.efficiencies[] | 1 / .efficiency] | add);
        $2" >/dev/null 2>&1
    then pass "$1"; else fail "$1" "jq '$2' is false on: $(printf '%s' "$BODY" | head -c 1500)"; fi
}

Q="problem=hacc.gravity&precision=fp32"
EXTRA=""
[ -n "$OMPT" ] && EXTRA=', "omp-target (best)", "omp-target (simd)"'
api GET "/api/v1/pp/policies?$Q&subsets=openmp:scalar,opencl:broadcast;opencl:memory-32;openmp:simd,omp-target:simd" "" "$READ"
[ "$STATUS" = 200 ] && pass "policies: GET /api/v1/pp/policies answers 200" || fail "policies: GET /api/v1/pp/policies" "$STATUS $BODY"
check "policies: the default platform set is every platform with a verified result (both), the policies listed" \
    "([.platforms[].id] | sort) == ([\"$CPU\", \"testhost/cpu0\"] | sort)
     and ([.policies[].policy] | sort) == ([\"openmp (best)\", \"openmp (scalar)\", \"openmp (simd)\", \"opencl (best)\",
        \"opencl (broadcast)\", \"opencl (memory-32)\", \"opencl (select)\", \"openmp:scalar + opencl:broadcast\",
        \"opencl:memory-32\", \"openmp:simd + omp-target:simd\"$EXTRA] | sort)"
check "policies: one variant everywhere (opencl memory-32 on both) has code divergence 0, convergence 1, PP from its efficiencies" \
    'pol("opencl (memory-32)") as $p | $p.kind == "fixed" and $p.code_divergence == 0 and $p.code_convergence == 1
     and ($p.efficiencies | length == 2 and all(.[]; .variant == "memory-32" and .model == "opencl" and .efficiency > 0 and .efficiency <= 1))
     and near($p.pp; ppof($p)) and $p.pp_note == null'
check "policies: the user's one-member subset is the fixed policy (same PP, divergence 0)" \
    'near(pol("opencl:memory-32").pp; pol("opencl (memory-32)").pp) and pol("opencl:memory-32").code_divergence == 0
     and pol("opencl:memory-32").kind == "subset"'
check "policies: an unsupported variant counts 0 (opencl select: PP 0, both cells 0 with the reason)" \
    'pol("opencl (select)") as $p | $p.pp == 0 and ($p.pp_note | startswith("unsupported on"))
     and all($p.efficiencies[]; .efficiency == 0 and .result_id == null and (.unsupported | test("unsupported: variant select")))'
check "policies: a variant with no result on a platform gives PP 0 (openmp simd: none on testhost)" \
    "pol(\"openmp (simd)\") as \$p | \$p.pp == 0 and \$p.pp_note == \"no unflagged verified result on testhost/cpu0\""
check "policies: best per platform (openmp: scalar on testhost, simd on $CPU): divergence = Jaccard distance of the two line sets" \
    "pol(\"openmp (best)\") as \$p | ([\$p.efficiencies[] | .variant] | sort) == [\"scalar\", \"simd\"]
     and near(\$p.code_divergence; jacc(\"openmp scalar\"; \"openmp simd\")) and \$p.code_divergence > 0.02
     and near(\$p.code_convergence; 1 - \$p.code_divergence) and near(\$p.pp; ppof(\$p))"
check "policies: a subset across models (openmp scalar on testhost, opencl broadcast on $CPU): the distance of their line sets" \
    "pol(\"openmp:scalar + opencl:broadcast\") as \$p
     | ([\$p.efficiencies[] | .model + \" \" + .variant] | sort) == [\"opencl broadcast\", \"openmp scalar\"]
     and near(\$p.code_divergence; jacc(\"openmp scalar\"; \"opencl broadcast\")) and \$p.code_divergence > 0.4
     and near(\$p.pp; ppof(\$p))"
if [ -n "$OMPT" ]; then
    check "policies: OpenMP everywhere (openmp simd on $CPU, omp-target simd on testhost): PP and the distance of the two builds' line sets" \
        "pol(\"openmp:simd + omp-target:simd\") as \$p
         | ([\$p.efficiencies[] | .model + \" \" + .variant] | sort) == [\"omp-target simd\", \"openmp simd\"]
         and near(\$p.code_divergence; jacc(\"openmp simd\"; \"omp-target simd\")) and \$p.code_divergence > 0.3
         and \$p.code_divergence < 0.9 and near(\$p.pp; ppof(\$p))"
else
    skip "policies: OpenMP everywhere" "omp-target is not part of this build"
fi
check "policies: application efficiency is against the best run on the platform by any model or variant" \
    '([.policies[].efficiencies[] | select(.efficiency != null) | .efficiency] | all(. >= 0 and . <= 1))
     and ([.policies[] | select(.kind == "best") | .efficiencies[] | select(.efficiency == 1)] | length) >= 2'
PPB=$(printf '%s' "$BODY" | jq '.policies[] | select(.policy == "openmp (best)") | .pp')
api GET "/api/v1/pp?$Q" "" "$READ"
check "policies: PP of the best-variant policy equals GET /api/v1/pp's for the model" \
    "near((.applications[] | select(.model == \"openmp\") | .pp); $PPB)"
# model:* stands for every variant of the model: one application over both models, best run per platform.
api GET "/api/v1/pp/policies?$Q&subsets=openmp:*,opencl:*" "" "$READ"
check "policies: a subset of model:* members takes each platform's best run of those models (openmp:* + opencl:*)" \
    "(pol(\"openmp:* + opencl:*\") as \$s | pol(\"openmp (best)\") as \$a | pol(\"opencl (best)\") as \$b
      | [range(\$s.efficiencies | length) as \$i
         | near(\$s.efficiencies[\$i].efficiency; [\$a.efficiencies[\$i].efficiency // 0, \$b.efficiencies[\$i].efficiency // 0] | max)]
      | all) and pol(\"openmp:* + opencl:*\").pp > 0"
api GET "/api/v1/pp?$Q" "" "$READ"
KEY=$(printf '%s' "$BODY" | jq -r .problem_key)
api GET "/api/v1/pp/policies?$Q" "" "$READ"
check "policies: on GET /api/v1/pp's default problem key, named" \
    "(.problem_key == \"$KEY\") and (.key_note | startswith(\"the problem key with the most verified results\"))"
# Another key of the same size (other numtimes) is another problem: a planted run of it, 1000 times faster, is
# never compared (pp_policies, schema/functions/pp.sql; it once filtered on the size alone and took it).
OMPB=$(printf '%s' "$BODY" | jq '[.policies[] | select(.policy == "openmp (scalar)") | .efficiencies[] | .fom // 0] | max')
PLANT=$(psql_q "INSERT INTO results (platform_id, suite, kernel, model, variant, precision, size, bytes, flops, times_s,
        min_s, max_s, mean_s, median_s, stddev_s, bandwidth, gflops, verified, provenance, flags, problem_key)
    SELECT platform_id, suite, kernel, model, variant, precision, size, bytes, flops, times_s, min_s / 1000,
        max_s / 1000, mean_s / 1000, median_s / 1000, stddev_s / 1000, bandwidth * 1000, gflops * 1000, verified,
        provenance, flags, problem_key || ';numtimes=999'
    FROM results WHERE platform_id = 'testhost/cpu0' AND suite = 'hacc' AND kernel = 'gravity' AND model = 'openmp'
      AND verified ORDER BY id LIMIT 1 RETURNING id")
api GET "/api/v1/pp/policies?$Q" "" "$READ"
check "policies: a faster run of another key of the same size is left out (planted result ${PLANT:-none})" \
    "([.policies[] | select(.policy == \"openmp (scalar)\") | .efficiencies[] | .fom // 0] | max) == $OMPB and $OMPB > 0
     and ([.policies[].efficiencies[].result_id] | all(.[]; . != ${PLANT:-0}))"
psql_q "DELETE FROM results WHERE id = ${PLANT:-0}" >/dev/null

# The unsupported records and bad input.
api GET "/api/v1/pp/policies?$Q&platforms=testhost/cpu0" "" "$READ"
check "policies: platforms= restricts the set; one platform: divergence 0" \
    '[.platforms[].id] == ["testhost/cpu0"] and all(.policies[] | select(.code_divergence != null); .code_divergence == 0)'
expect_api "policies: a malformed subset is refused with the parameter named" 400 invalid_parameter GET \
    "/api/v1/pp/policies?$Q&subsets=openmp" "" "$READ"
expect_api "policies: an unknown platform" 422 unknown_platform GET "/api/v1/pp/policies?$Q&platforms=nope" "" "$READ"
expect_api "policies: an unknown query parameter" 400 unknown_parameter GET "/api/v1/pp/policies?$Q&variant=x" "" "$READ"

# The P3 export one row per variant (pp_p3_variant_csv, schema/functions/pp.sql): each variant's best run, named model:variant,
# and the unsupported select with its reason and no figure; the default export keeps one row per model.
api GET "/api/v1/results?format=p3&p3_rows=variant&suite=hacc&kernel=gravity" "" "$READ"
P3V=$BODY
hdr=$(printf '%s\n' "$P3V" | head -n 1)
row() { printf '%s\n' "$P3V" | awk -F, -v p="$1" -v a="$2" '$2 == p && $3 == "\"" a "\"" { print; exit }'; }
sel=$(row testhost/cpu0 opencl:select)
if [ "$STATUS" = 200 ] && [[ "$hdr" == *",problem_key,unsupported" ]] && [ -n "$(row testhost/cpu0 openmp:scalar)" ] &&
    [ -n "$(row testhost/cpu0 opencl:memory-32)" ] && [[ "$sel" == *'"unsupported: variant select needs sub-group shuffles'* ]] &&
    [ "$(printf '%s' "$sel" | cut -d, -f4)" = "" ] && [ -n "$(row "$CPU" openmp:simd)" ]; then
    pass "results: format=p3&p3_rows=variant has a row per variant, the unsupported one with its reason and no figure"
else
    fail "results: format=p3&p3_rows=variant" "$STATUS; $(printf '%s' "$P3V" | head -c 1200)"
fi
# Without a suite the export reads every suite (the key index probed per suite): gravity is hacc's alone.
api GET "/api/v1/results?format=p3&p3_rows=variant&kernel=gravity" "" "$READ"
[ "$STATUS" = 200 ] && [ "$BODY" = "$P3V" ] && pass "results: p3_rows=variant without a suite reads every suite" ||
    fail "results: p3_rows=variant without a suite reads every suite" "$STATUS; $(printf '%s' "$BODY" | head -c 400)"
api GET "/api/v1/results?format=p3&suite=hacc&kernel=gravity" "" "$READ"
if [ "$STATUS" = 200 ] && ! printf '%s' "$BODY" | grep -q unsupported &&
    [ "$(printf '%s\n' "$BODY" | awk -F, '$2 == "testhost/cpu0" && $3 == "openmp"' | wc -l)" = 1 ]; then
    pass "results: the default P3 export keeps one row per (problem, platform, model)"
else
    fail "results: the default P3 export" "$(printf '%s' "$BODY" | head -c 800)"
fi
cliv=$(PPBENCH_SERVER="$URL" PPBENCH_TOKEN="$READ" "$CLI" results --suite hacc --kernel gravity --format p3-variant 2>&1)
[ "$cliv" = "$(printf '%s' "$P3V")" ] && pass "results: ppbench results --format p3-variant prints the same rows" ||
    fail "results: ppbench results --format p3-variant" "$(printf '%s' "$cliv" | head -c 400)"
expect_api "results: a bad p3_rows is refused" 400 invalid_parameter GET "/api/v1/results?format=p3&p3_rows=x" "" "$READ"
expect_api "results: p3_rows without format=p3 is refused" 400 invalid_parameter GET "/api/v1/results?p3_rows=variant" "" "$READ"

# ppbench pp --policies prints the same numbers.
out=$(PPBENCH_SERVER="$URL" PPBENCH_TOKEN="$READ" "$CLI" pp --problem hacc.gravity --precision fp32 --policies 2>&1)
api GET "/api/v1/pp/policies?$Q" "" "$READ"
want=$(printf '%s' "$BODY" | jq -r '.policies[] | select(.policy == "openmp (best)") | "\(.pp * 1000 | round / 1000) \(.code_divergence * 1000 | round / 1000)"')
line=$(printf '%s\n' "$out" | grep -E '^openmp \(best\)' | head -n 1)
if [ -n "$line" ] && [ "$(printf '%s' "$line" | awk '{ printf "%g %g", $3, $4 }')" = "$(printf '%s' "$want" | awk '{ printf "%g %g", $1, $2 }')" ]; then
    pass "policies: ppbench pp --policies prints the API's PP and divergence"
else
    fail "policies: ppbench pp --policies" "line '$line', API: $want; output: $(printf '%s' "$out" | head -n 12 | tr '\n' '|')"
fi

# Every suite has line sets, and a result's variant is the name of the code that ran (issue 25 item 6), never
# its size-derived details: stream on $CPU (openmp temporal, opencl) and on testhost (openmp streaming, a real
# run posted), so that "openmp (best)" runs two variants; cg at two sizes, whose dot chains differ.
SP='"arraysize":2000000,"numtimes":3,"precision":"fp64"' # 48 MB of arrays: beyond the 32 MiB cache set above
sids=""
for body in "\"suite\":\"stream\",\"model\":\"openmp\",\"params\":{$SP,\"stores\":\"temporal\"}" \
    "\"suite\":\"stream\",\"model\":\"opencl\",\"params\":{$SP}" \
    "\"suite\":\"cg\",\"model\":\"openmp\",\"params\":{\"n\":10,\"numtimes\":3,\"precision\":\"fp64\"}" \
    "\"suite\":\"cg\",\"model\":\"openmp\",\"params\":{\"n\":14,\"numtimes\":3,\"precision\":\"fp64\"}"; do
    api POST /api/v1/jobs "{\"platform\":\"$CPU\",$body}" "$ADMIN"
    sids="$sids $(printf '%s' "$BODY" | jq -r .id)"
done
s=""
for id in $sids; do wait_job "$id" "succeeded|failed|cancelled" 120 || true; s="$s $(printf '%s' "$BODY" | jq -r .state)"; done
as_worker "$REG"
api POST /api/v1/jobs "{\"suite\":\"stream\",\"model\":\"openmp\",\"platform\":\"testhost/cpu0\",\"params\":{$SP,\"stores\":\"streaming\"}}" "$ADMIN"
id=$(printf '%s' "$BODY" | jq -r .id)
api POST "/api/v1/workers/$WID/claim?wait=0" "" "$WTOKEN"
epoch=$(printf '%s' "$BODY" | jq -r .job.epoch)
"$WORKER" run --platform cpu0 --suite stream --model openmp --arraysize 2000000 --numtimes 3 --precision fp64 \
    --stores streaming --json >"$TMP/rep.json" 2>"$TMP/rep.err"
api POST "/api/v1/jobs/$id/result" "{\"epoch\":$epoch,\"outcome\":\"succeeded\",\"report\":$(cat "$TMP/rep.json")}" "$WTOKEN"
s="$s $(printf '%s' "$BODY" | jq -r .state)"
AS_WORKER_SECRET=""
[ "$s" = " succeeded succeeded succeeded succeeded succeeded" ] && pass "variants: stream and cg jobs verified (testhost's streaming run posted)" ||
    fail "variants: stream and cg jobs" "states$s"
api GET "/api/v1/results?suite=stream&kernel=triad" "" "$READ"
# The worker's report names the code in its variant and puts the launch (size- and device-derived) in its
# provenance, so the stored variant document holds the name's values alone; a launch leaves out a dimension its
# model does not have (OpenMP's work-group size, 0).
check "variants: a stream result's variant is its stores on openmp, default on opencl; the launch details in provenance.launch only" \
    '([.results[] | .model + " " + .variant] | unique) == ["opencl default", "openmp streaming", "openmp temporal"]
     and all(.results[]; .model as $m | (.provenance.launch | has("dot_chain") and (has("work_group_size") == ($m == "opencl")))
                         and (.provenance.variant | has("work_group_size") or has("dot_chain") | not))'
api GET "/api/v1/results?suite=cg&kernel=dot" "" "$READ"
check "variants: cg at two sizes is one variant, native, its dot chains (size-derived) only in provenance.launch" \
    '([.results[].variant] | unique) == ["native"] and ([.results[].provenance.launch.dot_chain] | unique | length) == 2
     and all(.results[]; .provenance.variant == {"spmv_variant": "native"})'
awk '$1 == "stream" && $4 == "fp64" { printf "%s{\"k\":\"%s %s\",\"l\":[", (n++ ? "," : "["), $2, $3;
    for (i = 5; i <= NF; i++) printf "%s\"%s\"", (i > 5 ? "," : ""), $i; printf "]}" } END { print "]" }' "$LINESETS" \
    >"$TMP/sets.json"
api GET "/api/v1/pp/policies?problem=stream.triad&precision=fp64" "" "$READ"
check "policies: stream has line sets for every variant (a divergence each, no \"no line set\" note), and openmp (best) over temporal and streaming is their distance" \
    "all(.policies[]; (.divergence_note // \"\" | test(\"no line set\") | not) and .code_divergence != null)
     and (pol(\"openmp (best)\") as \$p | ([\$p.efficiencies[] | .variant] | sort) == [\"streaming\", \"temporal\"]
          and near(\$p.code_divergence; jacc(\"openmp temporal\"; \"openmp streaming\")) and \$p.code_divergence > 0.02)"
