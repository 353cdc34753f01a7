# The MILC staggered Dslash suite through `ppbench-worker run` on openmp: both strategies (site, simd), fp32 and
# fp64, on 4^4, 8^4 and a non-hypercubic lattice, verified against the five-loop reference; the JSON fields,
# flop and byte models and rates from the mean; the table and CSV; planted faults caught and named; bad input
# refused with exit 2 and a message naming the parameter.
. "$(dirname "$0")/../lib/check.sh"

for strategy in site simd; do
    for prec in fp32 fp64; do
        flag="--double"; [ "$prec" = fp32 ] && flag="--float"
        for lat in 4x4x4x4 8x8x8x8 4x4x4x8; do
            name="staggered openmp $strategy $prec $lat"
            f="$TMP/$strategy-$prec-$lat.json"
            if "$WORKER" run --platform cpu0 --model openmp --suite staggered --lattice "$lat" --strategy "$strategy" \
                --runs 3 --iterations 2 $flag --json >"$f" 2>"$TMP/err"; then
                jq_true "$name: verified" "$f" \
                    ".verified == true and .kernels[0].verified == true and .variant.strategy == \"$strategy\"
                     and (.variant | has(\"order\") | not) and (.provenance.launch | has(\"work_group_size\") | not)
                     and .problem.precision == \"$prec\" and (.problem.lattice | map(tostring) | join(\"x\")) == \"$lat\""
            else
                fail "$name" "exit $?: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
            fi
        done
    done
done

f="$TMP/simd-fp64-4x4x4x8.json"
jq_true "json: problem describes the run" "$f" \
    '.suite == "staggered" and .problem.output_parity == "odd" and .problem.boundary == "periodic"
     and .problem.runs == 3 and .problem.iterations == 2 and .problem.warmup == 1 and .problem.timing == "mean"
     and .problem.sites == 512 and .problem.output_sites == 256 and .problem.element_bytes == 8
     and (.problem.seed | type) == "number"'
jq_true "json: one time per run, stats over them, a warm-up phase" "$f" \
    '.kernels[0] | (.times_s | length) == 3 and .stats_s.count == 3 and .stats_s.min <= .stats_s.median
     and .stats_s.min > 0'
jq_true "json: warm-up and phases timed" "$f" '.phases_s.warmup > 0 and .phases_s.init >= 0 and .phases_s.read >= 0'
jq_true "json: 1146 flop per output site, 3120 B per site in fp64" "$f" \
    '.problem.flops_per_site == 1146 and .problem.bytes_per_site == 3120
     and .kernels[0].flops == 1146 * 256 and .kernels[0].bytes == 3120 * 256'
jq_true "json: fp32 counts 1560 B per site" "$TMP/site-fp32-4x4x4x8.json" \
    '.problem.bytes_per_site == 1560 and .kernels[0].bytes == 1560 * 256'
jq_true "json: GFLOP/s and bandwidth from the mean time (the paper's rule)" "$f" \
    '.kernels[0] | ((.gflops * 1e9 * .stats_s.mean / .flops) - 1 | fabs) < 1e-9
     and ((.bandwidth_bytes_per_s * .stats_s.mean / .bytes) - 1 | fabs) < 1e-9'
jq_true "json: verification bound and error" "$f" \
    '.kernels[0] | .tolerance > 0 and .max_rel_err <= .tolerance'
jq_true "json: provenance and variant" "$f" \
    '.model == "openmp" and .platform.id == "cpu0" and .provenance.launch.threads >= 1
     and (.provenance | has("ppbench.version") and (.backend | has("openmp.threads")))'
"$WORKER" run --platform cpu0 --model openmp --suite staggered --lattice 4x4x4x4 --runs 3 --iterations 2 \
    --timing best --json >"$TMP/best.json" 2>/dev/null
jq_true "json: --timing best takes rates from the fastest run" "$TMP/best.json" \
    '.problem.timing == "best" and (.kernels[0] | ((.gflops * 1e9 * .stats_s.min / .flops) - 1 | fabs) < 1e-9)'
jq_true "json: defaults on a CPU: strategy site, fp64" "$TMP/best.json" \
    '.variant.strategy == "site" and .problem.precision == "fp64"'
# Extents of 4 and 6 are accepted with a warning (issue 12): the third neighbours alias there.
jq_true "json: an extent of 4 is accepted with a warning per direction" "$TMP/best.json" \
    '.verified and (.warnings | length) == 4 and (.warnings[0] | test("^extent 4 in x: the third neighbour x \\+ 3 is the first neighbour x - 1$"))'
"$WORKER" run --platform cpu0 --model openmp --suite staggered --lattice 8x6x8x8 --runs 1 --iterations 1 --json \
    >"$TMP/six.json" 2>/dev/null
jq_true "json: an extent of 6 warns once, and only there" "$TMP/six.json" \
    '.verified and .warnings == ["extent 6 in y: the third neighbours y + 3 and y - 3 are one site"]'

expect "staggered: default table (site, fp64, 8^4)" 0 '^Dslash .* yes$' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite staggered --runs 1 --iterations 1
# fp64: (16 x 18 + 12) x 8 + 64 = 2464 bytes per output site; a 4 MiB cache: 16 MiB / 1232 per site, 12^4.
expect "staggered: the CPU default lattice is 4x a 4 MiB last-level cache" 0 'Lattice: 12x12x12x12 \(20736 sites' -- \
    env PPBENCH_LLC_BYTES_CPU0=4194304 "$WORKER" run --platform cpu0 --model openmp --suite staggered --runs 1 --iterations 1
expect "staggered: table names lattice" 0 'Lattice: 4x4x4x8 \(512 sites, 256 output sites\), periodic' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite staggered --lattice 4x4x4x8 --strategy simd --runs 1 --iterations 1
expect "staggered: table names strategy and threads" 0 'Model: openmp \(strategy simd, [0-9]+ threads\)' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite staggered --lattice 4x4x4x8 --strategy simd --runs 1 --iterations 1
expect "staggered: table has GFLOP/s and GB/s" 0 'GFLOP/s +GB/s' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite staggered --lattice 4x4x4x4 --runs 1 --iterations 1
expect "staggered: csv" 0 '^Dslash,2,3,4x4x4x8,simd,none,0,4,mean,' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite staggered --lattice 4x4x4x8 --strategy simd --runs 2 \
    --iterations 3 --float --csv
expect "staggered: --help names the options" 0 '--strategy 1lp[|]2lp' -- "$WORKER" run --help

# Planted faults (PPBENCH_TEST_FAULT, docs/METHODOLOGY.md): a wrong link, a wrong neighbour index.
for strategy in site simd; do
    expect "staggered $strategy: planted link fault caught and named" 1 \
        'verification failed: dslash: site \([0-9,]+\) \[odd index 3\] colour [0-2] (re|im)' -- \
        env PPBENCH_TEST_FAULT=link:3 "$WORKER" run --platform cpu0 --model openmp --suite staggered \
        --lattice 4x4x4x8 --strategy "$strategy" --runs 1 --iterations 1
    expect "staggered $strategy: planted neighbour fault caught and named" 1 \
        'verification failed: dslash: site \([0-9,]+\) \[odd index 100\]' -- \
        env PPBENCH_TEST_FAULT=neighbour:100 "$WORKER" run --platform cpu0 --model openmp --suite staggered \
        --lattice 4x4x4x8 --strategy "$strategy" --runs 1 --iterations 1 --float
done
# Verification sees every sample (issue 12): kernels that write half the sites in every application, only in
# the first (correct only on its first application: the last sample's output, poisoned before it, fails), or
# only half in the warm-up (caught because the warm-up's output is verified too). 4x4x4x8: 256 output sites.
for strategy in site simd; do
    expect "staggered $strategy: a kernel writing half the sites fails" 1 \
        'verification failed: dslash: site \([0-9,]+\) \[odd index 128\]' -- \
        env PPBENCH_TEST_FAULT=half "$WORKER" run --platform cpu0 --model openmp --suite staggered \
        --lattice 4x4x4x8 --strategy "$strategy" --runs 2 --iterations 2
    expect "staggered $strategy: a kernel correct only on its first application fails" 1 \
        'verification failed: dslash: site \([0-9,]+\) \[odd index 128\].*last sample only' -- \
        env PPBENCH_TEST_FAULT=first "$WORKER" run --platform cpu0 --model openmp --suite staggered \
        --lattice 4x4x4x8 --strategy "$strategy" --runs 2 --iterations 2
    expect "staggered $strategy: a kernel wrong only in the warm-up fails" 1 \
        'verification failed: warm-up: dslash: site \([0-9,]+\) \[odd index 128\].*last sample verified' -- \
        env PPBENCH_TEST_FAULT=warmup "$WORKER" run --platform cpu0 --model openmp --suite staggered \
        --lattice 4x4x4x8 --strategy "$strategy" --runs 2 --iterations 2
done
env PPBENCH_TEST_FAULT=link:0 "$WORKER" run --platform cpu0 --model openmp --suite staggered --lattice 4x4x4x4 \
    --runs 1 --iterations 1 --json >"$TMP/fault.json" 2>/dev/null
jq_true "json: failed run stored as failed with its reason" "$TMP/fault.json" \
    '.verified == false and .kernels[0].verified == false and (.kernels[0].error | test("odd index 0"))'
expect "staggered: the crash hook dies of SIGSEGV" 139 '' -- \
    env ASAN_OPTIONS=handle_segv=0 PPBENCH_TEST_FAULT=crash "$WORKER" run --platform cpu0 --model openmp --suite staggered --lattice 4x4x4x4

# Bad input: exit 2, the parameter named.
bad() {
    expect "staggered refuses $1" 2 "$2" -- "$WORKER" run --platform cpu0 --model openmp --suite staggered "${@:3}"
}
bad "an odd extent" 'lattice extent 5 in z must be even' --lattice 4x4x5x4
bad "a too small extent" 'lattice extent 2 in t must be even and at least 4' --lattice 4x4x4x2
bad "a lattice too large for memory" 'lattice 256x256x256x256 too large: .* GB, the device has' --lattice 256x256x256x256
bad "a lattice whose volume overflows 64 bits" 'lattice 65536x65536x65536x65536 too large: more than 2\^32 sites' --lattice 65536x65536x65536x65536
bad "an unknown strategy" 'unknown strategy "5lp" \(staggered has: 1lp, 2lp, 3lp-1, 3lp-2, 3lp-3, 4lp-1, 4lp-2, site, simd\)' --strategy 5lp
bad "a GPU strategy on openmp" 'model openmp has no strategy "3lp-1" \(it has: site, simd\)' --strategy 3lp-1
bad "an unknown order" 'unknown order "j"' --order j
bad "a wrong order" 'strategy simd has no order k \(it has: none\)' --strategy simd --order k
bad "a work-group on a CPU strategy" 'work-group size 96 given for strategy site' --work-group 96
bad "--runs 0" '--runs must be from 1 to 100000, got 0' --runs 0
bad "--iterations 0" '--iterations must be from 1 to 100000, got 0' --iterations 0
bad "an unknown timing" 'unknown timing "median" \(staggered has: mean, best\)' --timing median
bad "a stream option" '--arraysize is a stream option' --arraysize 100
bad "a wilson option" '--layout is a wilson option' --layout soa
bad "--numtimes (staggered has runs and iterations)" '--numtimes is a stream, wilson.* option \(staggered takes' --numtimes 5
expect "wilson refuses a staggered option" 2 '--strategy is a staggered option' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite wilson --strategy site
expect "stream refuses a staggered option" 2 '--runs is a staggered option' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite stream --runs 3
