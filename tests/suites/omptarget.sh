# The OpenMP offload model (omp-target): built in CI from the same sources by GCC's nvptx offload compiler
# (libppbench-omptarget.so) and by clang's OpenMP offload (libppbench-omptarget-clang.so), each loaded with
# dlopen (PPBENCH_OMPTARGET_COMPILER picks one); without a GPU a build finds no offload device and says so, and
# with PPBENCH_OMPTARGET_HOST=1 its target regions run on the host (the initial device), verified by the same
# drivers as every model. The checks below run once per build that exists, each line tagged with its
# compiler; without an offload compiler (or in the sanitizer build) the model is not built and they skip,
# saying why.
. "$(dirname "$0")/../lib/check.sh"

if [ "$BUILD" != "${PPBENCH_OMPTARGET_BUILD-$BUILD}" ] || ! "$WORKER" version | grep -q 'omp-target'; then
    skip "omp-target" "not part of this build (install gcc-12-offload-nvptx or clang-19 + libomp-19-dev; the sanitizer build leaves it out)"
    exit 0
fi

# The builds and their shared objects (kernels/model_loader.c's omptarget_builds).
so_of() { case $1 in gcc) echo "$BUILD/lib/ppbench/libppbench-omptarget.so" ;; clang) echo "$BUILD/lib/ppbench/libppbench-omptarget-clang.so" ;; esac; }
if [ -z "${OMPT_TEST_COMPILER:-}" ]; then
    expect "omp-target missing its shared objects says why, for each build" 0 \
        'note: omp-target: no device: omp-target backend not loaded: .*libppbench-omptarget-clang.so.*; .*libppbench-omptarget.so' -- \
        env -u PPBENCH_OMPTARGET_COMPILER PPBENCH_LIBDIR=/nonexistent PPBENCH_OMPTARGET_HOST=1 sh -c "cp '$WORKER' '$TMP/w' && '$TMP/w' list"
    expect "omp-target: an unknown compiler is refused, naming the choices" 0 \
        'omp-target backend not loaded: PPBENCH_OMPTARGET_COMPILER must be gcc or clang, not "icc"' -- \
        env PPBENCH_OMPTARGET_COMPILER=icc PPBENCH_OMPTARGET_HOST=1 "$WORKER" list
    for c in gcc clang; do
        if [ -f "$(so_of $c)" ]; then
            OMPT_TEST_COMPILER=$c bash "$0"
        else
            skip "omp-target[$c]" "not built (gcc: install gcc-12-offload-nvptx; clang: clang-19, libomp-19-dev and CUDA's ptxas and nvlink)"
        fi
    done
    exit 0
fi

c=$OMPT_TEST_COMPILER
so=$(so_of "$c")
export PPBENCH_OMPTARGET_COMPILER=$c
pass() { echo "PASS omp-target[$c] $1"; }
fail() { echo "FAIL omp-target[$c] $1: $2"; }
skip() { echo "SKIP omp-target[$c] $1: $2"; }

if [ -f "$so" ] && nm -D --defined-only "$so" | grep -q ' pp_backend_omptarget$'; then
    pass "backend compiles and exports pp_backend_omptarget"
else
    fail "backend compiles" "$so missing or without pp_backend_omptarget"
fi
other=$(nm -D --defined-only "$so" | awk '$2 ~ /[TDBR]/ {print $3}' |
    grep -Ev '^(pp_backend_omptarget|__start_pp_suites_omptarget|__stop_pp_suites_omptarget|_init|_fini)$')
if [ -z "$other" ]; then pass "exports only its backend"; else fail "exports only its backend" "$other"; fi

if ! nvidia-smi -L >/dev/null 2>&1; then
    expect "without a GPU says no device, which build, and how to get host fallback" 0 \
        "^note: omp-target: no device: the $c build's runtime .*PPBENCH_OMPTARGET_HOST=1" -- \
        env -u PPBENCH_OMPTARGET_HOST "$WORKER" list
fi
expect "missing its shared object says why" 0 "note: omp-target: no device: omp-target backend not loaded: .*$(basename "$so")" -- \
    env PPBENCH_LIBDIR=/nonexistent PPBENCH_OMPTARGET_HOST=1 sh -c "cp '$WORKER' '$TMP/w' && '$TMP/w' list"

export PPBENCH_OMPTARGET_HOST=1
expect "host fallback: the initial device joins cpu0" 0 '^cpu0 +cpu .*openmp.*omp-target' -- "$WORKER" list
"$WORKER" list --json >"$TMP/list.json"
jq_true "list --json: one CPU platform, omp-target among its devices" "$TMP/list.json" \
    '([.platforms[] | select(.kind == "cpu")] | length) == 1 and
     (.platforms[] | select(.id == "cpu0") | .devices | map(.model) | index("omp-target") != null)'

run() { "$WORKER" run --platform cpu0 --model omp-target "$@"; }

# STREAM: every kernel in both precisions at sizes that are no multiple of anything, under the runtime's launch
# shape and explicit ones, and with offload disabled.
for prec in fp64 fp32; do
    for n in 1 1000 4097 100003; do
        f="$TMP/stream-$prec-$n.json"
        if run --suite stream --arraysize "$n" --numtimes 4 --precision "$prec" --json >"$f" 2>"$TMP/err"; then
            jq_true "stream $prec n=$n: all six kernels verified" "$f" \
                '.verified == true and ([.kernels[] | select(.verified)] | length) == 6 and .model == "omp-target"'
        else
            fail "stream $prec n=$n" "exit $?: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
        fi
    done
done
jq_true "stream: provenance names the device, host fallback, the build and its compiler" "$TMP/stream-fp64-100003.json" \
    '.provenance.backend | (.["omptarget.device"] | test("host fallback")) and has("omptarget.cflags")
     and .["omptarget.toolchain"] == "'$c'" and (.["omptarget.compiler"] | startswith("'$c' "))
     and (.["omptarget.library"] | endswith("/'"$(basename "$so")"'"))'
jq_true "stream: dot chain bound from its blocks" "$TMP/stream-fp64-100003.json" \
    '.provenance.launch.dot_chain == ((100003 + .provenance.launch.dot_groups - 1) / .provenance.launch.dot_groups | floor) + .provenance.launch.dot_groups'
f="$TMP/shape.json"
if PPBENCH_OMPTARGET_TEAMS=7 PPBENCH_OMPTARGET_THREADS=3 OMP_TARGET_OFFLOAD=DISABLED \
    run --suite stream --arraysize 10007 --numtimes 3 --precision fp32 --json >"$f" 2>"$TMP/err"; then
    jq_true "stream: explicit num_teams 7, thread_limit 3, offload disabled: verified, shape recorded" "$f" \
        '.verified == true and .provenance.launch.work_group_size == 3 and .provenance.launch.dot_groups == 7 and
         .provenance.backend["omptarget.teams"] == "7" and .provenance.backend["omptarget.offload"] == "DISABLED"'
else
    fail "stream: explicit launch shape" "exit $?: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
fi
expect "stream: a malformed launch shape is refused" 3 'PPBENCH_OMPTARGET_TEAMS must be a number' -- \
    env PPBENCH_OMPTARGET_TEAMS=many "$WORKER" run --platform cpu0 --model omp-target --suite stream --arraysize 100
expect "stream: planted triad fault caught and named" 1 'verification failed: triad: a\[7\] = ' -- \
    env PPBENCH_TEST_FAULT=triad:7 "$WORKER" run --platform cpu0 --model omp-target --suite stream \
    --arraysize 1000 --numtimes 4 --kernels copy,mul,add,triad,dot
expect "stream: planted dot fault caught and named" 1 'verification failed: dot: sum = ' -- \
    env PPBENCH_TEST_FAULT=dot "$WORKER" run --platform cpu0 --model omp-target --suite stream \
    --arraysize 1000 --numtimes 4

# CG: every kernel and the solve verified in both precisions, the SPMV's rows per team and a row over the simd
# lanes; widths the directives cannot set are refused as unsupported; a planted matrix fault is caught.
for v in "" "--rows-per-group 8" "--items-per-row 32" "--float" "--float --items-per-row 32 --rows-per-group 4"; do
    f="$TMP/cg.json"
    if run --suite cg --n 12 --numtimes 3 --iterations 20 $v --json >"$f" 2>"$TMP/err"; then
        jq_true "cg ${v:-fp64}: axpby, dot, spmv and cg verified" "$f" \
            '.verified == true and ([.kernels[] | select(.verified)] | length) == 4'
    else
        fail "cg ${v:-fp64}" "exit $?: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
    fi
done
case $c in gcc) lanes='32 lanes' ;; clang) lanes='one lane' ;; esac
expect "cg: items_per_row 4 is unsupported, with the reason" 3 "unsupported: items_per_row 4 on omp-target .*$lanes" -- \
    run --suite cg --n 5 --numtimes 2 --items-per-row 4
expect "cg: cusparse refused" 2 'cusparse' -- run --suite cg --n 3 --spmv-variant cusparse
expect "cg: planted matrix fault caught" 1 'verification failed: spmv' -- \
    env PPBENCH_TEST_FAULT=column "$WORKER" run --platform cpu0 --model omp-target --suite cg --n 5 --numtimes 2

# The lattice suites: Wilson in both layouts and precisions, staggered 1lp, 2lp and 3lp-3 (both orders) in both
# precisions, verified against their double references; the strategies OpenMP's loops cannot express are not
# offered.
for layout in aos soa; do
    for prec in fp32 fp64; do
        f="$TMP/wilson.json"
        if run --suite wilson --lattice 4x4x4x8 --layout $layout --precision $prec --numtimes 3 --json >"$f" 2>"$TMP/err"; then
            jq_true "wilson $layout $prec: verified" "$f" '.verified == true and .variant.layout == "'$layout'"'
        else
            fail "wilson $layout $prec" "exit $?: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
        fi
    done
done
for st in 1lp 2lp "3lp-3 --order k" "3lp-3 --order i"; do
    for prec in fp32 fp64; do
        f="$TMP/staggered.json"
        if run --suite staggered --lattice 4x4x6x8 --precision $prec --runs 2 --iterations 3 --strategy $st --json \
            >"$f" 2>"$TMP/err"; then
            jq_true "staggered $st $prec: verified" "$f" \
                '.verified == true and .variant.strategy == "'"${st%% *}"'" and (.variant.order == "'"${st##* }"'" or .variant.order == null)'
        else
            fail "staggered $st $prec" "exit $?: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
        fi
    done
done
expect "staggered: 3lp-1 (local memory and barriers) is not offered" 2 'model omp-target has no strategy "3lp-1" \(it has: 1lp, 2lp, 3lp-3\)' -- \
    run --suite staggered --lattice 4x4x4x4 --strategy 3lp-1

# HACC: every variant OpenMP can express, both kernels and precisions, against the double reference with
# Newton's third law and translation invariance; leaf sizes 16 (a warp's two halves) and 48 (no power of two);
# the planted faults caught by each; the variants it cannot express refused as unsupported with the reason.
for v in simd scalar broadcast; do
    for prec in fp32 fp64; do
        for leaf in 16 48; do
            f="$TMP/hacc.json"
            if run --suite hacc --variant $v --precision $prec --leaf-size $leaf --leaf-pairs 37 --numtimes 3 \
                --json >"$f" 2>"$TMP/err"; then
                jq_true "hacc $v $prec leaf $leaf: gravity and sph verified, momentum and translation checked" "$f" \
                    '.verified == true and .variant.variant == "'$v'" and
                     ([.kernels[] | select(.verified)] | length) == 2 and
                     ([.details.kernels[] | select(.momentum_rel_err < 1e-4 and .translation_rel_err < 1e-4)] | length) == 2'
            else
                fail "hacc $v $prec leaf $leaf" "exit $?: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
            fi
        done
    done
    for fault in skip sign; do
        expect "hacc $v: planted $fault fault caught" 1 'verification failed: (gravity|sph): particle' -- \
            env PPBENCH_TEST_FAULT=$fault "$WORKER" run --platform cpu0 --model omp-target --suite hacc \
            --variant $v --leaf-size 32 --leaf-pairs 20 --numtimes 2
    done
done
f="$TMP/hacc.json"
if run --suite hacc --leaf-pairs 5 --numtimes 2 --json >"$f" 2>"$TMP/err"; then
    jq_true "hacc: simd by default, fp32" "$f" '.variant.variant == "simd" and .problem.precision == "fp32"'
else
    fail "hacc: default variant" "exit $?: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
fi
expect "hacc: select is unsupported on omp-target, with the reason" 3 'unsupported: select .*shuffles.*simd lanes' -- \
    run --suite hacc --leaf-pairs 4 --variant select
for v in memory-32 memory-object; do
    expect "hacc: $v is unsupported on omp-target, with the reason" 3 "unsupported: $v .*local memory.*cannot synchronise" -- \
        run --suite hacc --leaf-pairs 4 --variant $v
done
