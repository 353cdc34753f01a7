# STREAM through every CPU model available here (openmp, opencl on PoCL): the whole suite at small sizes, in
# fp32 and fp64, including sizes that are not multiples of any work-group size, verified; the output formats;
# the planted-fault hook caught and named by verification.
. "$(dirname "$0")/../lib/check.sh"

models="openmp"
if "$WORKER" list | grep -Eq '^cpu0 .*opencl'; then
    models="openmp opencl"
else
    skip "opencl on cpu0" "no OpenCL CPU device (is pocl-opencl-icd installed?)"
fi

for model in $models; do
    for prec in fp64 fp32; do
        flag=""; [ "$prec" = fp32 ] && flag="--float"
        for n in 1 1000 4097 100003; do
            name="$model $prec n=$n"
            f="$TMP/$model-$prec-$n.json"
            if "$WORKER" run --platform cpu0 --model "$model" --suite stream --arraysize "$n" --numtimes 5 $flag \
                --json >"$f" 2>"$TMP/err"; then
                jq_true "$name: all six kernels verified" "$f" \
                    '.verified == true and ([.kernels[] | select(.verified)] | length) == 6'
            else
                fail "$name" "exit $?: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
            fi
        done
    done
done

# The JSON document carries what the measurement rules require.
f="$TMP/openmp-fp64-100003.json"
jq_true "json: one time per iteration, warm-up excluded from stats" "$f" \
    'all(.kernels[]; (.times_s | length) == 5 and .stats_s.count == 4)'
jq_true "json: stats are ordered" "$f" \
    'all(.kernels[]; .stats_s.min <= .stats_s.median and .stats_s.median <= .stats_s.max and .stats_s.min > 0)'
jq_true "json: byte model 2N 2N 3N 3N 2N 4N words" "$f" \
    '[.kernels[] | .bytes / (100003 * 8)] == [2, 2, 3, 3, 2, 4]'
jq_true "json: bandwidth from the minimum time" "$f" \
    'all(.kernels[]; ((.bandwidth_bytes_per_s * .stats_s.min / .bytes) - 1 | fabs) < 1e-9)'
jq_true "json: provenance" "$f" \
    '.provenance | has("ppbench.version") and has("compiler") and has("cflags") and has("host") and has("time")
     and .["env.OMP_NUM_THREADS"] != null and (.backend | has("openmp.threads"))'
jq_true "json: problem and platform" "$f" \
    '.problem.array_size == 100003 and .problem.precision == "fp64" and .platform.id == "cpu0" and .model == "openmp"'

# OMP_NUM_THREADS is honoured and recorded.
if OMP_NUM_THREADS=1 "$WORKER" run --platform cpu0 --model openmp --suite stream --arraysize 1000 --numtimes 2 \
    --json >"$TMP/t1.json" 2>&1; then
    jq_true "openmp honours OMP_NUM_THREADS" "$TMP/t1.json" '.provenance.backend["openmp.threads"] == "1" and .provenance.launch.dot_groups == 1'
else
    fail "openmp honours OMP_NUM_THREADS" "run failed"
fi

# CPU runs are bound by default (worker/cpubind.c): where the user set none, OpenMP's places and binding (and
# its thread count, the cores of the mask) go into the environment libgomp reads (the run execs itself once for
# that), PoCL's count and pinning into its own; the provenance says which were ppbench's; a user's variable wins.
if "$WORKER" run --platform cpu0 --model openmp --suite stream --arraysize 1000 --numtimes 2 --json >"$TMP/b.json"; then
    jq_true "openmp is bound by default, recorded as ppbench's" "$TMP/b.json" \
        '.provenance.backend["openmp.proc_bind"] == "spread" and .provenance["env.OMP_PLACES"] == "cores"
         and (.provenance["cpu_binding.default"] | test("OMP_PLACES=cores OMP_PROC_BIND=spread"))'
else
    fail "openmp is bound by default, recorded as ppbench's" "run failed"
fi
if env -u OMP_NUM_THREADS "$WORKER" run --platform cpu0 --model openmp --suite stream --arraysize 1000 --numtimes 2 \
    --json >"$TMP/b.json"; then
    jq_true "openmp's default thread count: the cores of the mask, ppbench's" "$TMP/b.json" \
        '.provenance["cpu_binding.default"] == "OMP_NUM_THREADS=\(.provenance.backend["openmp.threads"]) OMP_PLACES=cores OMP_PROC_BIND=spread"
         and .provenance["cpu_binding.user"] == "none" and .provenance.backend["openmp.num_places"] == .provenance.backend["openmp.threads"]'
else
    fail "openmp's default thread count: the cores of the mask, ppbench's" "run failed"
fi
if OMP_PROC_BIND=close OMP_NUM_THREADS=1 "$WORKER" run --platform cpu0 --model openmp --suite stream --arraysize 1000 \
    --numtimes 2 --json >"$TMP/b.json"; then
    jq_true "openmp: the user's binding wins, recorded as the user's" "$TMP/b.json" \
        '.provenance.backend["openmp.proc_bind"] == "close" and .provenance.backend["openmp.threads"] == "1"
         and .provenance["cpu_binding.default"] == "none"
         and .provenance["cpu_binding.user"] == "OMP_NUM_THREADS=1 OMP_PROC_BIND=close"'
else
    fail "openmp: the user's binding wins, recorded as the user's" "run failed"
fi
if [[ " $models " == *" opencl "* ]]; then
    if "$WORKER" run --platform cpu0 --model opencl --suite stream --arraysize 1000 --numtimes 2 --json >"$TMP/b.json"; then
        jq_true "opencl on cpu0: PoCL's thread count by default, recorded as ppbench's" "$TMP/b.json" \
            '(.provenance["cpu_binding.default"] | test("^POCL_MAX_PTHREAD_COUNT=[0-9]+"))
             and .provenance["env.POCL_MAX_PTHREAD_COUNT"] != null'
    else
        fail "opencl on cpu0: PoCL's thread count by default, recorded as ppbench's" "run failed"
    fi
fi

# OMP_PROC_BIND binds the process's first thread when libgomp loads; runtimes other than OpenMP must not inherit
# that one-core mask (PoCL's threads would share one core). The run records the mask it ran with.
if [ "$(nproc)" -gt 1 ] && [[ " $models " == *" opencl "* ]]; then
    all=$("$WORKER" run --platform cpu0 --model opencl --suite stream --arraysize 100 --numtimes 2 --json |
        jq -r '.provenance.cpus_allowed')
    expect "opencl runs on every CPU despite OMP_PROC_BIND" 0 "^$all\$" -- sh -c \
        "OMP_PROC_BIND=spread OMP_PLACES=cores '$WORKER' run --platform cpu0 --model opencl --suite stream \
         --arraysize 100 --numtimes 2 --json | jq -r .provenance.cpus_allowed"
    # (an OpenMP run's cpus_allowed is its places' CPUs: the initial thread is bound to the first)
    expect "openmp keeps OMP_PROC_BIND's binding" 0 "^spread $all\$" -- sh -c \
        "OMP_PROC_BIND=spread OMP_PLACES=cores '$WORKER' run --platform cpu0 --model openmp --suite stream \
         --arraysize 100 --numtimes 2 --json | jq -r '.provenance.backend[\"openmp.proc_bind\"] + \" \" + .provenance.cpus_allowed'"
else
    skip "opencl runs on every CPU despite OMP_PROC_BIND" "needs 2 CPUs and an OpenCL CPU device"
fi

# A kernel subset replays only what ran.
for k in triad dot nstream copy,add; do
    expect "subset --kernels $k verifies" 0 'Verified' -- \
        "$WORKER" run --platform cpu0 --model openmp --suite stream --arraysize 777 --numtimes 3 --kernels "$k"
done

# openmp's stores: streaming and temporal both verify, in both precisions, at sizes and a thread count whose
# shares start and end off a 16-byte boundary (the plain-store ends of the streamed middle); the variant and the
# provenance say which ran.
for stores in streaming temporal; do
    for prec in fp64 fp32; do
        flag=""; [ "$prec" = fp32 ] && flag="--float"
        for n in 1 7 4097 100003; do
            name="openmp --stores $stores $prec n=$n"
            f="$TMP/stores-$stores-$prec-$n.json"
            if OMP_NUM_THREADS=3 "$WORKER" run --platform cpu0 --model openmp --suite stream --arraysize "$n" \
                --numtimes 3 --stores "$stores" $flag --json >"$f" 2>"$TMP/err"; then
                jq_true "$name: all six kernels verified, the stores recorded" "$f" \
                    ".verified == true and ([.kernels[] | select(.verified)] | length) == 6 and
                     .variant.stores == \"$stores\" and
                     (.provenance.backend[\"openmp.stream_stores\"] | startswith(\"$stores\"))"
            else
                fail "$name" "exit $?: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
            fi
        done
    done
done
# Absent, the arrays stream once the three exceed the last-level cache (an operator's value counts): 43691 fp64
# elements are 1048584 bytes, exactly the cache given here; one more element streams.
for n in 43691 43692; do
    env PPBENCH_LLC_BYTES_CPU0=1048584 "$WORKER" run --platform cpu0 --model openmp --suite stream --arraysize "$n" \
        --numtimes 2 --kernels triad --json >"$TMP/auto-$n.json" 2>/dev/null
done
jq_true "openmp stores absent: temporal while the arrays fit the cache" "$TMP/auto-43691.json" \
    '.verified and .variant.stores == "temporal"'
jq_true "openmp stores absent: streaming beyond the cache" "$TMP/auto-43692.json" \
    '.verified and .variant.stores == "streaming"'
jq_true "openmp records the huge pages behind its arrays" "$TMP/auto-43692.json" \
    '.provenance.backend["openmp.stream_anon_huge_bytes"] | test("^[0-9]+$")'
if [[ " $models " == *" opencl "* ]]; then
    expect "opencl: --stores is openmp's" 2 'model opencl has no stores' -- \
        "$WORKER" run --platform cpu0 --model opencl --suite stream --arraysize 100 --numtimes 2 --stores temporal
fi

# BabelStream's CSV columns, one row per kernel.
"$WORKER" run --platform cpu0 --model openmp --suite stream --arraysize 1000 --numtimes 3 --csv >"$TMP/out.csv" 2>&1
if [ "$(head -n 1 "$TMP/out.csv")" = "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime" ] &&
    [ "$(tail -n +2 "$TMP/out.csv" | cut -d, -f1 | tr '\n' ' ')" = "Copy Mul Add Triad Dot Nstream " ] &&
    [ "$(tail -n +2 "$TMP/out.csv" | cut -d, -f2-4 | sort -u)" = "3,1000,8" ]; then
    pass "csv: BabelStream columns"
else
    fail "csv: BabelStream columns" "$(head -n 3 "$TMP/out.csv" | tr '\n' ' ')"
fi

expect "table: BabelStream layout" 0 '^Function +MBytes/sec +Min \(sec\) +Max +Average' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite stream --arraysize 1000 --numtimes 3

# A planted wrong result is caught and named (test-only hook PPBENCH_TEST_FAULT, docs/METHODOLOGY.md).
for model in $models; do
    expect "$model: planted triad fault caught and named" 1 'verification failed: triad: a\[7\] = ' -- \
        env PPBENCH_TEST_FAULT=triad:7 "$WORKER" run --platform cpu0 --model "$model" --suite stream \
        --arraysize 1000 --numtimes 4 --kernels copy,mul,add,triad,dot
    # With nstream in the run it writes a last, so a wrong a is nstream's.
    expect "$model: planted nstream fault caught and named" 1 'verification failed: nstream: a\[0\] = ' -- \
        env PPBENCH_TEST_FAULT=nstream:0 "$WORKER" run --platform cpu0 --model "$model" --suite stream \
        --arraysize 1000 --numtimes 4
    expect "$model: planted mul fault in fp32 caught" 1 'verification failed: mul: b\[999\]' -- \
        env PPBENCH_TEST_FAULT=mul:999 "$WORKER" run --platform cpu0 --model "$model" --suite stream \
        --arraysize 1000 --numtimes 4 --float
    expect "$model: planted dot fault caught and named" 1 'verification failed: dot: sum = ' -- \
        env PPBENCH_TEST_FAULT=dot "$WORKER" run --platform cpu0 --model "$model" --suite stream \
        --arraysize 1000 --numtimes 4
done
env PPBENCH_TEST_FAULT=add:3 "$WORKER" run --platform cpu0 --model openmp --suite stream --arraysize 100 \
    --numtimes 3 --json >"$TMP/fault.json" 2>/dev/null
jq_true "json: failed kernel stored as failed with its reason" "$TMP/fault.json" \
    '.verified == false and (.kernels[] | select(.kernel == "add") | .verified == false and (.error | test("c\\[3\\]")))
     and (.kernels[] | select(.kernel == "triad") | .verified == true)'

# The default array size (arraysize absent): 2^25, and on a CPU whose last-level cache is known doubled until
# the three arrays are at least 4x it: a 192 MiB cache makes it 2^26 in fp32 (768 MiB for the three).
"$WORKER" run --platform cpu0 --model openmp --suite stream --kernels copy --numtimes 2 --float --json \
    >"$TMP/default.json" 2>/dev/null
jq_true "json: default array size 2^25 where the cache is unknown, the working set its 3 arrays" "$TMP/default.json" \
    '.problem.array_size == 33554432 and .problem.working_set_bytes == 3 * 33554432 * 4 and .verified'
env PPBENCH_LLC_BYTES_CPU0=201326592 "$WORKER" run --platform cpu0 --model openmp --suite stream --kernels copy \
    --numtimes 2 --float --json >"$TMP/llc.json" 2>/dev/null
jq_true "json: default array size 2^26 in fp32 on a 192 MiB cache (the three arrays 4x the cache)" "$TMP/llc.json" \
    '.problem.array_size == 67108864 and .platform.llc_bytes == 201326592 and .verified'
env PPBENCH_LLC_BYTES_CPU0=67108864 "$WORKER" run --platform cpu0 --model openmp --suite stream --kernels copy \
    --arraysize 1000 --numtimes 2 --json >"$TMP/given.json" 2>/dev/null
jq_true "json: a given array size stays whatever the cache" "$TMP/given.json" '.problem.array_size == 1000'
