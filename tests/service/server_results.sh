# The results API (issue 15): filters in the server (precision, variant, size, tag, job), a cursor, unknown
# suites refused, one result's provenance, the default CSV's identity and timing rule, BabelStream's CSV, an
# admin's note and exclusion, deletion; jobs filtered by suite and tag; an admin's peak for a platform (kept
# when its worker registers again); removing an imported platform; the host's last_seen from heartbeats.
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../lib/server.sh"
[ -x "$SERVER" ] || { skip "server results" "ppbenchd not built"; exit 0; }

server_start "lease_s = 3" "heartbeat_s = 1"
J=/api/v1/jobs
R=/api/v1/results
check() { printf '%s' "$BODY" | jq -e "$2" >/dev/null 2>&1 && pass "$1" || fail "$1" "$STATUS $(printf '%s' "$BODY" | head -c 300)"; }
SUBMIT=$("$SERVER" token create --role submit --state-dir "$STATE" 2>>"$SERVER_LOG")

wait_cpu_worker
[ -n "$CPU" ] || { fail "a supervised worker registered cpu0" "$(tail -n 5 "$SERVER_LOG" | tr '\n' ' ')"; exit 0; }

# Three jobs: two sizes of stream (tagged a and b) and one fp32.
submit() {
    api POST $J "{\"suite\":\"stream\",\"model\":\"openmp\",\"platform\":\"$CPU\",\"kernels\":[\"copy\",\"triad\"],\"params\":$1,\"tags\":[\"$2\"]}" "$SUBMIT"
    printf '%s' "$BODY" | jq -r .id
}
j1=$(submit '{"arraysize":4000,"numtimes":4}' a)
j2=$(submit '{"arraysize":8000,"numtimes":4}' b)
j3=$(submit '{"arraysize":4000,"numtimes":4,"precision":"fp32"}' b)
for j in $j1 $j2 $j3; do wait_job "$j" "succeeded|failed|cancelled" 60; done
[ "$(printf '%s' "$BODY" | jq -r .state)" = succeeded ] && pass "three stream jobs ran" || fail "three stream jobs ran" "$BODY"

api GET "$R?suite=stream&size=8000"
check "results filtered by size in the server" '(.results | length) == 2 and all(.results[]; .size == 8000)'
api GET "$R?suite=stream&precision=fp32"
check "results filtered by precision" '(.results | length) == 2 and all(.results[]; .precision == "fp32")'
api GET "$R?tag=b"
check "results filtered by the job's tag" '(.results | length) == 4 and all(.results[]; .job_id != '"$j1"')'
api GET "$R?job=$j1"
check "results of one job" '(.results | length) == 2 and all(.results[]; .job_id == '"$j1"')'
variant=$(printf '%s' "$BODY" | jq -r '.results[0].variant')
api GET "$R?variant=$(jq -rn --arg v "$variant" '$v|@uri')&kernel=copy"
check "results filtered by variant" '(.results | length) >= 1 and all(.results[]; .variant == '"$(jq -n --arg v "$variant" '$v')"')'
api GET "$R?limit=4"
check "a page of results carries the next cursor" '(.results | length) == 4 and (.next_cursor | type) == "string"'
cur=$(printf '%s' "$BODY" | jq -r .next_cursor)
first=$(printf '%s' "$BODY" | jq -c '[.results[].id]')
api GET "$R?limit=4&cursor=$cur"
check "the next page continues below the cursor" '(.results | length) == 2 and (.next_cursor == null)
    and all(.results[]; .id < '"$cur"')'
api GET "$R?suite=stream&kernel=triad"
check "each result names its timing rule" 'all(.results[]; .timing == "min")'
full=$(printf '%s' "$BODY" | jq -c '[.results[] | del(.times_s, .provenance)]')
api GET "$R?suite=stream&kernel=triad&view=summary"
check "view=summary: the same results without their samples and provenance" \
    '(.results | length) == 3 and all(.results[]; has("times_s") == false and has("provenance") == false
     and .bandwidth_bytes_per_s > 0) and ([.results[]] == '"$full"')'
expect_api "results: a bad view is refused" 400 invalid_parameter GET "$R?view=short"
expect_api "results: view with another format is refused" 400 invalid_parameter GET "$R?view=summary&format=csv"
expect_api "results: an unknown suite is refused" 400 invalid_parameter GET "$R?suite=foo"
expect_api "results: a kernel the suite lacks is refused" 400 invalid_parameter GET "$R?suite=stream&kernel=dslash"
expect_api "results: a bad precision is refused" 400 invalid_parameter GET "$R?precision=fp16"
expect_api "results: a bad cursor is refused" 400 invalid_parameter GET "$R?cursor=x"
expect_api "results: p3 takes no row filters" 400 invalid_parameter GET "$R?format=p3&tag=a"

# The default CSV: identity and timing rule; BabelStream's CSV as it was.
api GET "$R?job=$j1&format=csv"
head=$(printf '%s\n' "$BODY" | head -n 1)
row=$(printf '%s\n' "$BODY" | sed -n 2p)
[ "$head" = "result_id,date,platform,model,suite,kernel,precision,size,variant,job,verified,flags,timing,bandwidth_bytes_per_s,gflops,min_s,mean_s,max_s,samples,problem_key" ] &&
    printf '%s' "$row" | grep -Eq "^[0-9]+,20[0-9-]+T[0-9:]+Z,\"$CPU\",\"openmp\",stream,(copy|triad),fp64,4000,\".*\",$j1,true,(noisy)?,min," &&
    printf '%s' "$row" | grep -Eq ',"precision=fp64;size=4000;numtimes=[0-9]+"$' &&
    pass "the default CSV carries platform, model, variant, date, job, timing rule and problem key" ||
    fail "the default CSV carries platform, model, variant, date, job, timing rule and problem key" "$head / $row"
api GET "$R?job=$j1&format=babelstream"
printf '%s\n' "$BODY" | head -n 1 | grep -qx 'function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime' &&
    printf '%s\n' "$BODY" | grep -Eq '^(Copy|Triad),4,4000,8,' && pass "BabelStream's CSV is one format of its own" ||
    fail "BabelStream's CSV is one format of its own" "$BODY"

# One result: its whole provenance.
rid=$(printf '%s' "$first" | jq '.[0]')
api GET "$R/$rid"
check "one result with its platform, job and provenance" '.id == '"$rid"' and .platform_info.id == "'"$CPU"'"
    and .platform_info.origin == "worker" and (.job.tags | length) == 1 and .provenance.compiler != null
    and .timing == "min"'
expect_api "no such result" 404 not_found GET "$R/999999"

# An admin's note and exclusion; deletion.
expect_api "annotate needs an admin token" 403 forbidden PATCH "$R/$rid" '{"note":"x"}' "$SUBMIT"
expect_api "annotate: unknown field" 422 unknown_field PATCH "$R/$rid" '{"colour":1}' "$ADMIN"
expect_api "annotate: exclude must be a boolean" 422 wrong_type PATCH "$R/$rid" '{"exclude":"yes"}' "$ADMIN"
api PATCH "$R/$rid" '{"note":"thermal throttling","exclude":true}' "$ADMIN"
check "an admin's note and exclusion are stored" '.note == "thermal throttling" and (.flags | index("excluded")) != null
    and .annotated_at != null'
api PATCH "$R/$rid" '{"exclude":false}' "$ADMIN"
check "exclusion is undone, the note kept" '.note == "thermal throttling" and (.flags | index("excluded")) == null'
expect_api "delete needs an admin token" 403 forbidden DELETE "$R/$rid" "" "$SUBMIT"
expect_api "an admin deletes a result" 200 - DELETE "$R/$rid" "" "$ADMIN"
expect_api "a deleted result is gone" 404 not_found GET "$R/$rid"

# Jobs filtered by suite and tag.
api GET "$J?tag=b"
check "jobs filtered by tag" '(.jobs | length) == 2 and all(.jobs[]; .tags == ["b"])'
api GET "$J?suite=stream&model=openmp"
check "jobs filtered by suite and model" '(.jobs | length) >= 3 and all(.jobs[]; .suite == "stream")'
expect_api "jobs: an unknown suite is refused" 400 invalid_parameter GET "$J?suite=foo"

# An admin's peak, recorded with its source; an imported platform is removed, a registered one is not.
host=${CPU%%/*}; dev=${CPU#*/}
expect_api "peak needs an admin token" 403 forbidden PUT "/api/v1/platforms/$CPU/peak" '{"peak_gbs":99}' "$SUBMIT"
expect_api "peak must be positive" 422 out_of_range PUT "/api/v1/platforms/$CPU/peak" '{"peak_gbs":-1}' "$ADMIN"
api PUT "/api/v1/platforms/$CPU/peak" '{"peak_gbs":123.5,"source":"datasheet"}' "$ADMIN"
check "an admin sets a platform's peak with its source" '.platforms[] | select(.id == "'"$CPU"'")
    | .peak_bandwidth_bytes_per_s == 123500000000 and .peak_source == "admin: datasheet" and .peak_set_at != null'
printf 'function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime\nTriad,100,33554432,8,201326.592,0.004,0.005,0.0045\n' >"$TMP/bs.csv"
STATUS=$(curl -s -o "$TMP/resp" -w '%{http_code}' -H "Authorization: Bearer $SUBMIT" -H 'Content-Type: text/csv' \
    --data-binary @"$TMP/bs.csv" "$URL/api/v1/import/babelstream?platform=imp-x&model=kokkos")
[ "$STATUS" = 201 ] && pass "import a platform" || fail "import a platform" "$STATUS $(cat "$TMP/resp")"
# A table measured earlier is dated when it was measured (measured_at), its provenance keeps both dates; a
# malformed or future date is refused by name, and nothing is imported.
imp() { # imp QUERY: POST bs.csv to the import with that query; STATUS and $TMP/resp
    STATUS=$(curl -s -o "$TMP/resp" -w '%{http_code}' -H "Authorization: Bearer $SUBMIT" -H 'Content-Type: text/csv' \
        --data-binary @"$TMP/bs.csv" "$URL/api/v1/import/babelstream?$1")
}
imp "platform=imp-x&model=kokkos&measured_at=2026-11-20T09:30:00Z"
api GET "$R?platform=imp-x"
check "an import with measured_at is dated then, its provenance keeps when it was imported" \
    '[.results[] | select(.created_at | startswith("2026-11-20T09:30:00"))] | length == 1 and
     (.[0].provenance.imported_at != null)'
imp "platform=imp-x&model=kokkos&measured_at=2026-11-20T10:30:00%2B01:00"
api GET "$R?platform=imp-x"
check "measured_at with an offset is the same instant in UTC" \
    '[.results[] | select(.created_at | startswith("2026-11-20T09:30:00"))] | length == 2'
for bad in 2026-13-01 "2026-11-20T09:30" 2026-11-20x 2999-01-01 "2026-11-20T09:30:00%2B1"; do
    imp "platform=imp-x&model=kokkos&measured_at=$bad"
    [ "$STATUS" = 400 ] && jq -e '.error.field == "measured_at"' "$TMP/resp" >/dev/null &&
        pass "import: measured_at $bad is refused by name" ||
        fail "import: measured_at $bad is refused by name" "$STATUS $(cat "$TMP/resp")"
done
api GET /api/v1/platforms
check "an imported platform says so" '(.platforms[] | select(.id == "imp-x") | .origin == "import" and .results == 3)
    and (.platforms[] | select(.id == "'"$CPU"'") | .origin == "worker")'
expect_api "a registered platform is not removed" 422 platform_registered DELETE "/api/v1/platforms/$CPU" "" "$ADMIN"
expect_api "an admin removes an imported platform" 200 - DELETE /api/v1/platforms/imp-x "" "$ADMIN"
api GET "$R?platform=imp-x"
check "its results went with it" '(.results | length) == 0'

# The host's last_seen follows its worker's heartbeats.
api GET /api/v1/hosts
seen1=$(printf '%s' "$BODY" | jq -r --arg h "$host" '.hosts[] | select(.name == $h) | .last_seen')
seen_again() {
    api GET /api/v1/hosts
    seen2=$(printf '%s' "$BODY" | jq -r --arg h "$host" '.hosts[] | select(.name == $h) | .last_seen')
    [ "$seen2" \> "$seen1" ]
}
[ -n "$seen1" ] && wait_for 10 seen_again && pass "heartbeats refresh the host's last_seen" ||
    fail "heartbeats refresh the host's last_seen" "$seen1 -> $seen2 $(curl -s $URL/api/v1/workers)"
