# The ppbench command-line client against a real ppbenchd (embedded default, supervised worker): submit and
# wait, exit statuses, listings, CSV, cancel, server errors shown with their field, an unreachable server; and
# a verification failure planted in the worker travelling through the service as a failed job.
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../lib/server.sh"
CLI="$BUILD/bin/ppbench"
[ -x "$SERVER" ] && [ -x "$CLI" ] || { skip "ppbench cli" "ppbenchd or ppbench not built"; exit 0; }

# The worker's last-level cache is 1 MiB whatever this machine has: a job of a few thousand elements fits it
# (cache_resident), one of 2^20 (24 MiB) does not.
PPBENCH_LLC_BYTES_CPU0=1048576 server_start "lease_s = 5" "heartbeat_s = 1"
export PPBENCH_SERVER=$URL PPBENCH_TOKEN=$ADMIN
wait_cpu_worker
# Before any result the platform is never_measured, which exits 5: the listing shows it, with its reason, and
# does not say that no platform needs attention (it did, with exit 5).
expect "ppbench health: a platform never measured is listed, and exits 5" 5 "^$CPU +never_measured +no result yet" -- \
    "$CLI" health --platform "$CPU"
out=$("$CLI" health 2>&1)
rc=$?
{ [ "$rc" = 0 ] || ! printf '%s' "$out" | grep -q 'no platform needs attention'; } &&
    pass "ppbench health: \"no platform needs attention\" only with exit 0" ||
    fail "ppbench health: \"no platform needs attention\" only with exit 0" "exit $rc: $out"
expect "ppbench platforms" 0 "^$CPU +cpu" -- "$CLI" platforms
# An idle worker beats every heartbeat_s (1 s here) as a busy one does: its last heartbeat, sampled for 5 s, is
# never older than two periods (it was the claim's long poll, lease_s - heartbeat_s = 4 s, before).
oldest=0
for _ in $(seq 20); do
    api GET /api/v1/workers
    age=$(printf '%s' "$BODY" | jq --arg p "$CPU" '[.workers[] | select(.platform == $p and .state != "gone")][0].last_heartbeat
        | . as $t | now - ($t | sub("\\.[0-9]+"; "") | sub("\\+00:00$"; "Z") | fromdateiso8601)
          - (($t | capture("(?<f>\\.[0-9]+)") | .f | tonumber) // 0)' 2>&1)
    [[ "$age" =~ ^-?[0-9.e-]+$ ]] || { oldest="no age: $age"; break; }
    oldest=$(echo "$age $oldest" | awk '{print ($1 > $2) ? $1 : $2}')
    sleep 0.25
done
[[ "$oldest" =~ ^[0-9.e-]+$ ]] && awk -v a="$oldest" 'BEGIN { exit !(a <= 2.5) }' && pass "an idle worker's last heartbeat stays within two periods" ||
    fail "an idle worker's last heartbeat stays within two periods" "${oldest} s old at most"
expect "ppbench submit waits and prints the verified results" 0 '^Triad +[0-9.]+ .* yes' -- \
    "$CLI" submit --suite stream --model openmp --platform "$CPU" --arraysize 5000 --numtimes 4
# Its table names the problem (every parameter of its key) and the code, and marks each flagged figure: 5000
# elements fit the 1 MiB cache, so every row is cache_resident, said in a FLAGS column and explained under it
# (issue 25: the README's examples were flagged on a VM with a big L3, and submit showed them unmarked).
"$CLI" submit --suite stream --model openmp --platform "$CPU" --arraysize 5000 --numtimes 4 >"$TMP/sub.out" 2>&1
if grep -q '^Problem: fp64, size 5000 elements, numtimes 4$' "$TMP/sub.out" && grep -Eq '^Variant: [a-z]+$' "$TMP/sub.out" &&
    grep -q '^Array size: 40.0 KB$' "$TMP/sub.out" && grep -Eq '^Copy +[0-9.]+ +[0-9]\.[0-9]{2}e-[0-9]{2} ' "$TMP/sub.out" &&
    grep -Eq '^Function .* Verified +Flags$' "$TMP/sub.out" &&
    [ "$(grep -Ec '^(Copy|Mul|Add|Triad|Dot) .* yes +([a-z_]+,)?cache_resident(,[a-z_]+)?$' "$TMP/sub.out")" = 5 ] &&
    grep -q '^  cache_resident: the working set fits the last-level cache' "$TMP/sub.out"; then
    pass "ppbench submit: the table names the problem and variant (the array's size in KB, not 0.0 MB; times below a millisecond in digits, not 0.00000), and marks flagged figures"
else
    fail "ppbench submit: the table names the problem and variant, and marks flagged figures" "$(tr '\n' '|' <"$TMP/sub.out" | tail -c 500)"
fi
# The job's address a user can open is the dashboard's page, not the API's; the help is printed text, not a format.
expect "ppbench submit prints the dashboard's page of the job" 0 "^job [0-9]+ submitted: $URL/#/job/[0-9]+\$" -- \
    "$CLI" submit --suite stream --model openmp --platform "$CPU" --arraysize 1000 --numtimes 2 --kernels copy
out=$("$CLI" submit --help 2>&1)
printf '%s' "$out" | grep -q '10 % of progress' && ! printf '%s' "$out" | grep -q '%%' &&
    pass "ppbench submit --help: no doubled %" || fail "ppbench submit --help: no doubled %" "$(printf '%s' "$out" | grep -m1 '%')"
expect "ppbench submit: server validation error with its field" 2 'unknown kernel "triadd".*field kernels' -- \
    "$CLI" submit --suite stream --model openmp --platform "$CPU" --kernels copy,triadd
out=$("$CLI" submit --suite wilson --model openmp --platform "$CPU" --param lattice=4x4x4x8 --param layout=soa \
    --param numtimes=3 --double 2>&1)
if printf '%s\n' "$out" | grep -q '^Lattice: 4x4x4x8$' && printf '%s\n' "$out" | grep -q '^Function  *GFLOP/s  *MBytes/sec' &&
    printf '%s\n' "$out" | grep -Eq '^Dslash +[0-9.]+ +[0-9.]+ .* yes +[a-z_,-]+$'; then
    pass "ppbench submit a wilson job with --param: lattice and GFLOP/s in the table"
else
    fail "ppbench submit a wilson job with --param: lattice and GFLOP/s in the table" "$(printf '%s' "$out" | tail -n 4 | tr '\n' ' ')"
fi
expect "ppbench submit a staggered job with --param" 0 '^Dslash +[0-9.]+ +[0-9.]+ .* yes' -- \
    "$CLI" submit --suite staggered --model openmp --platform "$CPU" --param lattice=4x4x4x4 --param strategy=simd \
    --param runs=2 --param iterations=2
expect "ppbench submit --param: the server names a bad value" 2 'params.lattice' -- \
    "$CLI" submit --suite wilson --model openmp --platform "$CPU" --param lattice=4x4x5x4
expect "ppbench submit --param without a value" 2 'invalid --param "lattice": expected NAME=VALUE' -- \
    "$CLI" submit --suite wilson --model openmp --platform "$CPU" --param lattice
expect "ppbench submit: usage error" 2 'platform|kind' -- "$CLI" submit --suite stream --model openmp
expect "ppbench submit --platform cpu0: unknown, with the platform it may mean" 2 "unknown platform \"cpu0\": did you mean $CPU\\?" -- \
    "$CLI" submit --suite stream --model openmp --platform cpu0 --no-wait
expect "ppbench submit without a token" 2 'token' -- env PPBENCH_TOKEN= HOME="$TMP" "$CLI" submit --suite stream \
    --model openmp --platform "$CPU" --no-wait
id=$("$CLI" submit --suite stream --model openmp --platform "$CPU" --arraysize 1000 --numtimes 3 --no-wait)
[[ "$id" =~ ^[0-9]+$ ]] && pass "ppbench submit --no-wait prints the id" || fail "ppbench submit --no-wait prints the id" "$id"
wait_job "$id" succeeded 30
# A number is a number or 2^k, as in a sweep (lib/sweep.h): --arraysize 2^10, --param numtimes=2^1.
pow=$("$CLI" submit --suite stream --model openmp --platform "$CPU" --arraysize 2^10 --param numtimes=2^1 --kernels copy --no-wait)
api GET "/api/v1/jobs/$pow"
printf '%s' "$BODY" | jq -e '.params.arraysize == 1024 and .params.numtimes == 2' >/dev/null &&
    pass "ppbench submit --arraysize 2^10 --param numtimes=2^1: sent as the numbers 1024 and 2" ||
    fail "ppbench submit --arraysize 2^10 --param numtimes=2^1: sent as the numbers 1024 and 2" "$pow: $(printf '%s' "$BODY" | jq -c .params)"
# A job's child gets the CPU binding a standalone run gets (worker/cpubind.c, applied by `run`), and its
# result's provenance says which variables were ppbench's defaults.
api GET "/api/v1/results?job=$id&kernel=triad"
printf '%s' "$BODY" | jq -e '.results[0].provenance as $p | $p.backend["openmp.proc_bind"] == "spread"
    and ($p["cpu_binding.default"] | test("OMP_PLACES=cores OMP_PROC_BIND=spread")) and $p["cpu_binding.user"] != null' >/dev/null &&
    pass "a job's run is bound by default, and its result says so" ||
    fail "a job's run is bound by default, and its result says so" "$(printf '%s' "$BODY" | jq -c '.results[0].provenance | with_entries(select(.key | test("binding|OMP")))' 2>&1 | head -c 300)"
expect "ppbench jobs --state succeeded" 0 "^ *$id +succeeded +stream +openmp" -- "$CLI" jobs --state succeeded
expect "ppbench results --format babelstream" 0 '^function,num_times,n_elements,sizeof,max_mbytes_per_sec' -- "$CLI" results --format babelstream --platform "$CPU"
# The default CSV and the table carry each result's identity and timing rule.
expect "ppbench results --format csv: identity columns" 0 '^result_id,date,platform,model,suite,kernel,precision,size,variant,job,verified,flags,timing,' -- \
    "$CLI" results --format csv --job "$id"
expect "ppbench results --format csv: a row names platform, model, variant, date, job and timing" 0 \
    "^[0-9]+,20[0-9-]+T[0-9:]+Z,\"$CPU\",\"openmp\",stream,nstream,fp64,1000,\"temporal\",$id,true,[a-z_ ]*,min," -- \
    "$CLI" results --format csv --job "$id"
expect "ppbench results: copy's GFLOP/s is none (-), not a measured 0.000" 0 \
    "^ *[0-9]+ +20[0-9-]+ [0-9:]+ +$id +$CPU +openmp +stream.copy +fp64 +1000 +numtimes 3 +temporal +[0-9.]+ +- +min " -- \
    "$CLI" results --job "$id" --kernel copy --suite stream
expect "ppbench results: the table has the problem, the variant, the job, the timing rule and the flags" 0 \
    "^ *[0-9]+ +20[0-9-]+ [0-9:]+ +$id +$CPU +openmp +stream.triad +fp64 +1000 +numtimes 3 +temporal +[0-9.]+ +[0-9.]+ +min +([a-z_]+,)?cache_resident(,[a-z_]+)? +yes$" -- \
    "$CLI" results --job "$id" --kernel triad --suite stream
# A sweep from the command line: one job per value (2^10..2^12: three), followed one after another, each
# stored at its size under one sweep tag; the forms of the values and their errors are the CLI's own.
"$CLI" submit --suite stream --model openmp --platform "$CPU" --numtimes 3 --kernels triad \
    --sweep arraysize=2^10..2^12 >"$TMP/sweep.out" 2>"$TMP/sweep.err"
sweep=$(sed -n 's/^3 jobs tagged \(sweep:[0-9a-f-]*\)$/\1/p' "$TMP/sweep.err")
api GET "/api/v1/results?tag=$sweep&kernel=triad"
[ -n "$sweep" ] && [ "$(grep -c '^job [0-9]*: succeeded 100 %$' "$TMP/sweep.err")" = 3 ] &&
    [ "$(grep '^Problem: ' "$TMP/sweep.out" | tr '\n' '|')" = "Problem: fp64, size 1024 elements, numtimes 3|Problem: fp64, size 2048 elements, numtimes 3|Problem: fp64, size 4096 elements, numtimes 3|" ] &&
    [ "$(printf '%s' "$BODY" | jq -c '[.results[].size] | sort')" = "[1024,2048,4096]" ] &&
    pass "ppbench submit --sweep arraysize=2^10..2^12: three jobs followed, a result at each size, each table its problem" ||
    fail "ppbench submit --sweep arraysize=2^10..2^12: three jobs followed, a result at each size, each table its problem" \
        "$(tr '\n' '|' <"$TMP/sweep.err" | tail -c 300) $(printf '%s' "$BODY" | head -c 200)"
# ppbench scaling leaves flagged results out, saying so, as the Scaling page does; --include-flagged counts
# them, and the row says which flags. The sweep's triad at 2048 flagged noisy here (its only result there), every
# other result of the platform unflagged (a tiny run may have been flagged noisy by the machine's load).
psql_q "UPDATE results SET flags = CASE WHEN kernel = 'triad' AND size = 2048
    AND job_id IN (SELECT id FROM jobs WHERE '$sweep' = ANY (tags)) THEN ARRAY['noisy'] ELSE '{}' END
    WHERE platform_id = '$CPU'" >/dev/null
"$CLI" scaling --platform "$CPU" --suite stream --precision fp64 >"$TMP/scaling.out" 2>&1
if grep -q '^left out: 1 flagged result (noisy 1); --include-flagged counts them$' "$TMP/scaling.out" &&
    ! grep -Eq '^triad +openmp +fp64 +2048 ' "$TMP/scaling.out" && grep -Eq '^triad +openmp +fp64 +4096 .* -$' "$TMP/scaling.out"; then
    pass "ppbench scaling: a flagged result is left out, with a line saying so"
else
    fail "ppbench scaling: a flagged result is left out, with a line saying so" "$(tr '\n' '|' <"$TMP/scaling.out" | head -c 400)"
fi
expect "ppbench scaling --include-flagged: the flagged result counted, its row marked" 0 \
    '^triad +openmp +fp64 +2048 .* noisy$' -- "$CLI" scaling --platform "$CPU" --suite stream --precision fp64 --include-flagged
psql_q "UPDATE results SET flags = '{}' WHERE job_id IN (SELECT id FROM jobs WHERE '$sweep' = ANY (tags))" >/dev/null

# ppbench pp chooses the same problem with and without --include-flagged, names it whole (every parameter of
# its key) and marks a flagged figure it counts (issue 25: --include-flagged took another numtimes, the header
# said only the size). At 2^20 elements (not cache-resident here): numtimes 3 has two results, the faster one
# flagged noisy; numtimes 4 has three, all flagged, so more results in all.
pp_ids=""
for nt in 3 3 4 4 4; do
    pp_ids="$pp_ids $("$CLI" submit --suite stream --model openmp --platform "$CPU" --arraysize 1048576 --numtimes $nt \
        --kernels triad --no-wait)"
done
for i in $pp_ids; do wait_job "$i" succeeded 60; done
pp_list=$(echo $pp_ids | tr ' ' ',')
psql_q "DELETE FROM results r WHERE r.job_id IN ($pp_list) AND r.id > (SELECT min(x.id) FROM results x WHERE x.job_id = r.job_id);
    UPDATE results SET flags = CASE WHEN problem_key LIKE '%numtimes=4' OR id = (SELECT id FROM results
        WHERE job_id IN ($pp_list) AND problem_key LIKE '%numtimes=3' ORDER BY bandwidth DESC LIMIT 1)
        THEN ARRAY['noisy'] ELSE '{}' END WHERE job_id IN ($pp_list)" >/dev/null
"$CLI" pp --problem stream.triad --size 1048576 >"$TMP/pp.out" 2>&1
"$CLI" pp --problem stream.triad --size 1048576 --include-flagged >"$TMP/ppf.out" 2>&1
head1=$(head -n 2 "$TMP/pp.out" | tr '\n' '|')
head2=$(head -n 2 "$TMP/ppf.out" | tr '\n' '|')
if [[ "$head1" == "stream.triad: fp64, size 1048576 elements, numtimes 3; application efficiency, best variant per platform|problem key precision=fp64;size=1048576;numtimes=3 ("* ]] &&
    [[ "$head2" == "stream.triad: fp64, size 1048576 elements, numtimes 3; application efficiency, best variant per platform, flagged results counted|problem key precision=fp64;size=1048576;numtimes=3 (the problem key with the most unflagged verified results: 1 of 1 (as without --include-flagged))|" ]] &&
    grep -Eq '^openmp +1\.000 +1\.000 \[noisy\]$' "$TMP/ppf.out" && grep -Eq '^openmp +1\.000 +1\.000$' "$TMP/pp.out"; then
    pass "ppbench pp --include-flagged: the same problem, named whole, its flagged figure marked"
else
    fail "ppbench pp --include-flagged: the same problem, named whole, its flagged figure marked" "$head1 / $(tr '\n' '|' <"$TMP/ppf.out" | head -c 500)"
fi
# The problem's other keys are listed as --key takes them, with their results; --key asks about one; the
# server's notes name this CLI's options, not the API's parameters (issue 25).
if grep -q '^other problem keys (--key K):$' "$TMP/pp.out" &&
    grep -q '^  precision=fp64;size=1048576;numtimes=4: 0 results, 3 more flagged$' "$TMP/pp.out" &&
    ! grep -q 'include_flagged\|include_runners' "$TMP/pp.out" "$TMP/ppf.out"; then
    pass "ppbench pp: the problem's other keys under the table, as --key takes them; notes in the CLI's words"
else
    fail "ppbench pp: the problem's other keys under the table, as --key takes them" "$(tr '\n' '|' <"$TMP/pp.out" | tail -c 400)"
fi
expect "ppbench pp --key: that problem key (numtimes 4, all flagged: counted with --include-flagged)" 0 \
    '^stream.triad: fp64, size 1048576 elements, numtimes 4; application efficiency, best variant per platform, flagged results counted$' -- \
    "$CLI" pp --problem stream.triad --key 'precision=fp64;size=1048576;numtimes=4' --include-flagged
"$CLI" pp --problem stream.triad --key 'precision=fp64;size=1048576;numtimes=4' >"$TMP/ppk.out" 2>&1
[ "$(grep -c -- '--include-flagged counts them' "$TMP/ppk.out")" = 1 ] &&
    grep -q '^no unflagged verified results for stream.triad in fp64 with problem key precision=fp64;size=1048576;numtimes=4: 3 verified, all flagged (noisy 3); --include-flagged counts them$' "$TMP/ppk.out" &&
    pass "ppbench pp --key, all its results flagged: said once, in the CLI's words" ||
    fail "ppbench pp --key, all its results flagged: said once" "$(tr '\n' '|' <"$TMP/ppk.out")"
[ "$("$CLI" pp --problem stream.triad --include-runners --policies --json | jq -r .include_runners)/$("$CLI" pp \
    --problem stream.triad --include-runners --json | jq -r .include_runners)" = true/true ] &&
    pass "ppbench pp --include-runners asks for runners' results (both questions)" ||
    fail "ppbench pp --include-runners asks for runners' results" "$("$CLI" pp --problem stream.triad --include-runners --json | head -c 200)"
ids=$("$CLI" submit --suite stream --model openmp --platform "$CPU" --numtimes 3 --kernels triad --no-wait \
    --sweep arraysize=1000..3000:1000 2>"$TMP/ids.err")
[ "$(printf '%s\n' "$ids" | grep -c '^[0-9][0-9]*$')" = 3 ] &&
    pass "ppbench submit --sweep a..b:step --no-wait prints every job's id" ||
    fail "ppbench submit --sweep a..b:step --no-wait prints every job's id" "$ids"
for i in $ids; do wait_job "$i" succeeded 30; done
expect "ppbench submit --sweep: a list reaches the server, which names a bad value" 2 'sweep.values' -- \
    "$CLI" submit --suite stream --model openmp --platform "$CPU" --sweep arraysize=1000,1000
expect "ppbench submit --sweep: a malformed range" 2 'a range is a..b' -- \
    "$CLI" submit --suite stream --model openmp --platform "$CPU" --sweep arraysize=10..5
expect "ppbench pp --help: each suite's default precision and size unit" 0 'wilson +fp32, lattice sites' -- "$CLI" pp --help
expect "ppbench results --suite foo: refused by the server" 2 'unknown suite "foo"' -- "$CLI" results --suite foo

# Output not a terminal: the job id at once and progress as lines; SIGINT says the job id and that it keeps
# running, or cancels it with --cancel-on-interrupt.
"$CLI" submit --suite stream --model openmp --platform "$CPU" --arraysize 1000 --numtimes 3 >"$TMP/out" 2>"$TMP/err"
grep -Eq '^job [0-9]+ submitted: http' "$TMP/err" && grep -Eq '^job [0-9]+: succeeded 100 %$' "$TMP/err" &&
    pass "ppbench submit not on a terminal: the id at once and progress lines" ||
    fail "ppbench submit not on a terminal: the id at once and progress lines" "$(tr '\n' '|' <"$TMP/err")"
interrupt() { # interrupt [OPTIONS]: submits a long job, waits until it runs, sends SIGINT
    # The last call's output goes first: read before the new process truncates it, its "running" line sent
    # SIGINT at once, to a process not yet submitting (CI, 2026-11-27).
    rm -f "$TMP/int.out" "$TMP/int.err"
    "$CLI" submit --suite stream --model openmp --platform "$CPU" --arraysize 2000000 --numtimes 100000 "$@" \
        >"$TMP/int.out" 2>"$TMP/int.err" &
    local pid=$!
    wait_for 10 grep -Eq '^job [0-9]+: running' "$TMP/int.err"
    kill -INT "$pid"
    wait "$pid"
    INT_RC=$?
    INT_ID=$(sed -n 's/^job \([0-9]*\) submitted.*/\1/p' "$TMP/int.err")
}
interrupt
api GET "/api/v1/jobs/$INT_ID"
[ "$INT_RC" = 130 ] && grep -q "interrupted: job $INT_ID keeps running" "$TMP/int.err" &&
    [ "$(printf '%s' "$BODY" | jq -r .state)" = running ] &&
    pass "ppbench submit on SIGINT: says the job id and leaves it running" ||
    fail "ppbench submit on SIGINT: says the job id and leaves it running" "rc $INT_RC $(tr '\n' '|' <"$TMP/int.err") $(printf '%s' "$BODY" | jq -r .state)"
"$CLI" cancel "$INT_ID" >/dev/null 2>&1
wait_job "$INT_ID" "cancelled" 20
interrupt --cancel-on-interrupt
api GET "/api/v1/jobs/$INT_ID"
[ "$INT_RC" = 130 ] && grep -q "interrupted: job $INT_ID cancelled" "$TMP/int.err" &&
    [ "$(printf '%s' "$BODY" | jq -r .state)" = cancelled ] &&
    pass "ppbench submit --cancel-on-interrupt: SIGINT cancels the job" ||
    fail "ppbench submit --cancel-on-interrupt: SIGINT cancels the job" "rc $INT_RC $(tr '\n' '|' <"$TMP/int.err") $(printf '%s' "$BODY" | jq -r .state)"
wait_cpu_worker
# A long job keeps the worker busy, so the next one stays queued and can be cancelled.
long=$("$CLI" submit --suite stream --model openmp --platform "$CPU" --arraysize 2000000 --numtimes 100000 --no-wait)
queued=$("$CLI" submit --suite stream --model openmp --platform "$CPU" --arraysize 1000 --numtimes 3 --no-wait)
expect "ppbench cancel a queued job" 0 'cancel' -- "$CLI" cancel "$queued"
expect "ppbench cancel it again: 409 shown" 2 'already cancelled' -- "$CLI" cancel "$queued"
expect "ppbench cancel the running job" 0 'cancel' -- "$CLI" cancel "$long"
expect "ppbench against no server" 4 'cannot reach' -- "$CLI" --server http://127.0.0.1:9 platforms

# ppbench login checks a token against the server before it saves it (issue 25: a wrong token was saved and
# failed only at the first submission), says what it may do, and saves nothing it could not check unless told.
home="$TMP/home"
mkdir -p "$home"
expect "ppbench login: an unknown token is refused by the server and not saved" 2 \
    "token not saved: $URL refused it: unknown or revoked token" -- \
    env HOME="$home" "$CLI" login ppb_0123456789abcdef0123456789abcdef01234567
[ ! -e "$home/.config/ppbench/token" ] && pass "ppbench login: nothing saved for the unknown token" ||
    fail "ppbench login: nothing saved for the unknown token" "$(cat "$home/.config/ppbench/token")"
expect "ppbench login: a malformed token is named as such" 2 'is not a ppbench API token \(ppb_ and 40' -- \
    env HOME="$home" "$CLI" login ppb_oops
expect "ppbench login: an unreachable server saves nothing and names --offline" 4 'login --offline. saves it unchecked' -- \
    env HOME="$home" "$CLI" --server http://127.0.0.1:9 login "$ADMIN"
read_token=$("$SERVER" token create --role read 2>/dev/null)
expect "ppbench login: a read token is saved, and said to be unable to submit" 0 'may read but not submit jobs' -- \
    env HOME="$home" "$CLI" login "$read_token"
out=$(printf '%s \r\n' "$ADMIN" | env HOME="$home" "$CLI" login 2>&1) # as pasted: a blank and CR after it
# saved with the server it was checked against, which later commands talk to without --server (the walk: on a
# port of its own, every command needed --server)
[[ "$out" == *"knows it, and it may submit jobs" ]] && [ "$(head -n 1 "$home/.config/ppbench/token")" = "$ADMIN" ] &&
    [ "$(sed -n 2p "$home/.config/ppbench/token")" = "server $URL" ] &&
    [ "$(stat -c %a "$home/.config/ppbench/token")" = 600 ] &&
    [[ "$(env -u PPBENCH_TOKEN -u PPBENCH_SERVER HOME="$home" "$CLI" cancel 999999 2>&1)" == *"no job 999999"* ]] &&
    pass "ppbench login: an admin token from stdin is checked, saved (0600) with its server, and both used" ||
    fail "ppbench login: an admin token from stdin is checked, saved (0600) with its server, and both used" "$out; $(cat "$home/.config/ppbench/token" | sed 's/ppb_[0-9a-f]*/ppb_.../'); $(env -u PPBENCH_TOKEN -u PPBENCH_SERVER HOME="$home" "$CLI" cancel 999999 2>&1)"
expect "ppbench login --offline: saved unchecked, and said so" 0 'not checked \(--offline\)' -- \
    env HOME="$home" "$CLI" --server http://127.0.0.1:9 login --offline "$ADMIN"
# a refused token says where it came from (the newcomer's walk: a wrong token saved --offline failed unexplained)
env HOME="$home" "$CLI" login --offline ppb_1111111111111111111111111111111111111111 >/dev/null 2>&1
expect "ppbench: a refused saved token names the file it came from and ppbench login" 2 \
    'the token came from ~/.config/ppbench/token \(ppbench login\); .ppbench login TOKEN. checks and saves another' -- \
    env -u PPBENCH_TOKEN HOME="$home" "$CLI" platforms

# The largest numtimes of the suite with the most kernels (on small arrays: the report's size is what counts):
# its report (about 14 MB) is taken, over
# max_body_bytes, the limit of what a user may send. With the default lease: under the sanitizers, reading,
# sending and storing such a report takes longer than the 5 s lease above (the CI run of 2026-11-27).
server_stop
server_start "heartbeat_s = 1"
export PPBENCH_TOKEN=$ADMIN
wait_cpu_worker
expect "ppbench submit at the largest numtimes: the report is stored" 0 '^Triad +[0-9.]+ .* yes' -- \
    "$CLI" submit --suite stream --model openmp --platform "$CPU" --arraysize 100 --numtimes 100000

# A failed verification is a failed job with its reason; its rows are stored unverified and never count.
server_stop
PPBENCH_TEST_FAULT=triad:3 server_start "lease_s = 5" "heartbeat_s = 1"
export PPBENCH_TOKEN=$ADMIN
wait_cpu_worker
expect "planted fault: the job fails and names the kernel" 1 'verification failed.*triad: a\[3\]' -- \
    "$CLI" submit --suite stream --model openmp --platform "$CPU" --kernels copy,mul,add,triad,dot --arraysize 1000 --numtimes 3
api GET "/api/v1/jobs?state=failed&limit=1"
fid=$(printf '%s' "$BODY" | jq -r '.jobs[0].id')
api GET "/api/v1/jobs/$fid"
printf '%s' "$BODY" | jq -e '.state == "failed" and ([.results[] | select(.verified == false) | .kernel] == ["triad"])' >/dev/null &&
    pass "planted fault: the failed kernel is stored unverified" || fail "planted fault: the failed kernel is stored unverified" "$(printf '%s' "$BODY" | head -c 300)"

# A kernel process that crashes: the job fails with the signal, and the worker goes on serving.
server_stop
# (In the sanitizer build ASan would catch the SIGSEGV and exit with a report instead: let it through.)
ASAN_OPTIONS=handle_segv=0 PPBENCH_TEST_FAULT=crash server_start "lease_s = 5" "heartbeat_s = 1"
export PPBENCH_TOKEN=$ADMIN
wait_cpu_worker
expect "a crashing kernel process fails the job with its signal" 1 'SIGSEGV' -- \
    "$CLI" submit --suite stream --model openmp --platform "$CPU" --arraysize 1000 --numtimes 3
expect "the worker serves on after the crash" 1 'SIGSEGV' -- \
    "$CLI" submit --suite stream --model openmp --platform "$CPU" --arraysize 1000 --numtimes 3

# A job that ran again for noise (issue 25): `ppbench submit` prints the table of the job's current run, then the
# earlier run's rows apart, labelled with their run and superseded, never mixed into one unlabelled table. The
# job is followed to its end while a worker of the test's own (clihost/cpu0) reports a noisy run (its second
# sample 3 times the first: past the 10 % limit), then a stable one.
server_stop
server_start "heartbeat_s = 1" "noise_repeats = 1"
export PPBENCH_TOKEN=$ADMIN
AS_WORKER_ID="" AS_WORKER_SECRET=""
api POST /api/v1/workers/register '{"host":"clihost","pid":1,"version":"test","platform":{"id":"cpu0","kind":"cpu","name":"CliCPU","devices":[{"model":"openmp","index":0,"name":"CliCPU"}]}}' "$WORKER_TOKEN"
as_worker "$BODY"
report_run() { # RATIO: claim the job and report its triad at 50 GB/s, the second timed sample RATIO times the first
    local id="" epoch body i
    for i in $(seq 1 30); do
        api POST "/api/v1/workers/$AS_WORKER_ID/claim?wait=1" "" "$WORKER_TOKEN"
        id=$(printf '%s' "$BODY" | jq -r '.job.id // empty')
        [ -n "$id" ] && break
    done
    epoch=$(printf '%s' "$BODY" | jq -r .job.epoch)
    api POST "/api/v1/jobs/${id:-0}/progress" "{\"epoch\":${epoch:-0},\"progress\":1.0}" "$WORKER_TOKEN"
    body=$(jq -nc --argjson e "${epoch:-0}" --argjson r "$1" '0.00048 as $t | ($r * $t) as $u | {epoch: $e,
        outcome: "succeeded", error: null, report: {suite: "stream", variant: {work_group_size: 0},
        platform: {llc_bytes: 33554432}, problem: {precision: "fp64", array_size: 1000000, size: 1000000, numtimes: 3,
        key: "precision=fp64;size=1000000;numtimes=3"}, kernels: [{kernel: "triad", bytes: 24000000,
        bytes_compulsory: 24000000, flops: 2000000, times_s: [0.5, $t, $u], stats_s: {count: 2, min: $t, max: $u,
        mean: (($t + $u) / 2), median: (($t + $u) / 2), stddev: 0}, bandwidth_bytes_per_s: (24000000 / $t),
        gflops: (2000000 / $t / 1e9), verified: true, error: null}]}}')
    api POST "/api/v1/jobs/${id:-0}/result" "$body" "$WORKER_TOKEN"
    printf '%s' "$BODY" | jq -r '.state // .error.message'
}
"$CLI" submit --suite stream --model openmp --platform clihost/cpu0 --kernels triad --arraysize 1000000 \
    --numtimes 3 >"$TMP/runs.out" 2>"$TMP/runs.err" &
sub=$!
states="$(report_run 3)/$(report_run 1.01)"
wait "$sub"
rc=$?
AS_WORKER_ID="" AS_WORKER_SECRET=""
# the current run first, its row unflagged; then the earlier run apart, its row marked noisy and superseded
if [ "$rc/$states" = 0/queued/succeeded ] &&
    tr '\n' '|' <"$TMP/runs.out" | grep -Eq "\|Run 2, the job's current run \(its results are the ones that count\):\|Function [^|]*\|Triad +[0-9.]+ [^|]* yes +-\|Earlier runs \(1 result, superseded: they count nowhere\):\|Run 1, superseded by run 2:\|Triad +[0-9.]+ [^|]* yes +noisy,superseded\|" &&
    [ "$(grep -c '^Triad' "$TMP/runs.out")" = 2 ] && grep -q '^  superseded: from an earlier run of its job' "$TMP/runs.out" &&
    ! grep -q 'queued 100 %' "$TMP/runs.err"; then # back in the queue, its progress starts again
    pass "ppbench submit: a job repeated for noise prints its current run, then the superseded run apart, labelled"
else
    fail "ppbench submit: a job repeated for noise prints its current run, then the superseded run apart, labelled" \
        "rc $rc, reports $states: $(tr '\n' '|' <"$TMP/runs.out") stderr: $(tr '\n' '|' <"$TMP/runs.err" | tail -c 300)"
fi
# ppbench scaling takes only the current run's row (unflagged here, one run): the superseded noisy one is neither left out
# with a line (without --include-flagged) nor counted as a flagged figure (with it).
out=$("$CLI" scaling --platform clihost/cpu0 --suite stream 2>&1; echo "--"; "$CLI" scaling --platform clihost/cpu0 --suite stream --include-flagged 2>&1)
if [ "$(grep -cE '^triad +openmp +fp64 +1000000 +50\.000 +1 +100\.0 % +[0-9]+ +- *$' <<<"$out")" = 2 ] && ! grep -qE 'superseded|noisy|^left out' <<<"$out"; then
    pass "ppbench scaling: a superseded run's row counts nowhere, nor as left out, with or without --include-flagged"
else
    fail "ppbench scaling: a superseded run's row counts nowhere, nor as left out, with or without --include-flagged" "$(tr '\n' '|' <<<"$out")"
fi
