# The HACC suite (paper 003) through `ppbench-worker run` on the CPU models (openmp; opencl on PoCL): the
# variants verified; the JSON report (interactions as the size, the models, the checks); the table and CSV;
# the planted faults caught (exit 1); select refused as unsupported on PoCL (exit 3); bad input refused with
# exit 2 and the parameter named.
. "$(dirname "$0")/../lib/check.sh"

run() { "$WORKER" run --platform cpu0 --suite hacc --leaf-pairs 40 --leaf-size 32 --numtimes 3 "$@"; }

for v in scalar simd; do
    expect "hacc openmp $v verified" 0 '^Sph .* yes$' -- run --model openmp --variant "$v"
done
if "$WORKER" list | grep -Eq '^cpu0 .*opencl'; then
    for v in memory-32 memory-object broadcast; do
        expect "hacc opencl $v fp64 verified" 0 '^Gravity .* yes$' -- run --model opencl --variant "$v" --precision fp64
    done
    expect "hacc opencl select is unsupported on PoCL" 3 'unsupported: variant select needs sub-group shuffles' -- \
        run --model opencl --variant select
else
    skip "hacc opencl" "no OpenCL CPU device (is pocl-opencl-icd installed?)"
fi

f="$TMP/hacc.json"
if run --model openmp --json >"$f" 2>"$TMP/err"; then
    jq_true "json: verified, both kernels" "$f" '.verified == true and ([.kernels[].kernel] == ["gravity", "sph"])'
    jq_true "json: size is the interactions of one application" "$f" \
        '.problem.size == 2 * 32 * 32 * 40 and .problem.leaf_pairs == 40 and .problem.leaf_size == 32
         and .problem.precision == "fp32" and .suite == "hacc"'
    jq_true "json: working_set_bytes: every particle's 9 inputs and 4 outputs in fp32, 8 B a pair" "$f" \
        '.problem.working_set_bytes == .problem.particles * 13 * 4 + 8 * 40 and .problem.particles == .problem.leaves * 32'
    jq_true "json: flops per interaction 30 and 69, interactions per second from the minimum" "$f" \
        '(.kernels[0].flops == 30 * .problem.size) and (.kernels[1].flops == 69 * .problem.size)
         and all(.details.kernels[]; ((.interactions_per_s * 1e0) > 0))
         and ((.details.kernels[0].interactions_per_s * .kernels[0].stats_s.min / .problem.size) - 1 | fabs) < 1e-9'
    # The byte model counts the particles the pair list touches (18 of the 64 leaves at 40 pairs), not the grid's;
    # the interactions whose term is not zero are reported (gravity within rmax, sph within the support).
    jq_true "json: bytes of the touched leaves only, and the fraction of interactions inside the support" "$f" \
        '.problem.leaves_touched == 18 and .problem.leaves == 64
         and .kernels[0].bytes == 18 * 32 * (4 + 3) * 4 + 8 * 40 and .kernels[1].bytes == 18 * 32 * (9 + 4) * 4 + 8 * 40
         and (.details.kernels[0].inside_fraction | . > 0.5 and . < 0.7)
         and (.details.kernels[1].inside_fraction | . > 0.1 and . < 0.2)'
    jq_true "json: bytes per leaf pair, checks within their bound" "$f" \
        '.details.kernels[0].bytes_per_leaf_pair == 2 * 32 * (4 + 6) * 4 + 8
         and all(.kernels[]; .max_rel_err <= .tolerance)
         and all(.details.kernels[]; .momentum_rel_err < 1e-5 and .translation_rel_err < 1e-3)'
    jq_true "json: variant and phases" "$f" \
        '.variant.variant == "simd" and .provenance.launch.threads >= 1 and .phases_s.reference >= 0'
else
    fail "hacc json" "exit $?: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
fi
expect "hacc: table names the problem" 0 'Problem: 40 leaf pairs of 32 particles' -- run --model openmp
expect "hacc: table has GInter/s" 0 'GInter/s +GFLOP/s' -- run --model openmp
expect "hacc: csv" 0 '^gravity,3,32,40,4,scalar,81920,' -- run --model openmp --variant scalar --csv

for fault in skip sign; do
    expect "hacc: planted $fault fault caught" 1 'verification failed: gravity: particle [0-9]+ \(leaf [0-9]+\)' -- \
        env PPBENCH_TEST_FAULT=$fault "$WORKER" run --platform cpu0 --model openmp --suite hacc --leaf-pairs 40 \
        --leaf-size 32 --numtimes 2
done

bad() { expect "hacc refuses $1" 2 "$2" -- "$WORKER" run --platform cpu0 --model openmp --suite hacc "${@:3}"; }
bad "a leaf size not a multiple of 16" 'leaf_size must be a multiple of 16' --leaf-size 40
bad "a leaf size out of range" '--leaf-size must be from 16 to 256, got 512' --leaf-size 512
bad "too many pairs" '--leaf-pairs must be from 1 to' --leaf-pairs 99999999
bad "an unknown variant" 'unknown variant "shuffle"' --variant shuffle
bad "a GPU variant on openmp" 'model openmp has no variant "select" \(it has: scalar, simd\)' --variant select
bad "a stream option" '--arraysize is a stream option' --arraysize 100

# A variant must be different code: in the object code every clone of the simd variant's pair loops does packed
# square roots and divisions (sqrtps/divps, sqrtpd/divpd: vectorised), the scalar variant none (issue 24: with
# errno and trapping math every simd clone was scalar, simd equal to scalar bit for bit).
OBJ="$BUILD/obj/kernels/hacc/openmp.o"
if [[ "$BUILD" == *-asan ]]; then
    skip "hacc openmp simd in the object code" "the sanitizer build's code is instrumented, not the measured one"
elif [ -f "$OBJ" ] && command -v objdump >/dev/null; then
    packed=$(objdump -d --no-show-raw-insn "$OBJ" | awk '/^[0-9a-f]+ <.*>:$/ { name = $2; n[name] += 0 }
        /(sqrt|div)p[sd]/ { n[name]++ } END { for (k in n) print k, n[k] }' | sed 's/[<>:]//g')
    simd=$(printf '%s\n' "$packed" | grep -E '^(gravity|sph)_simd_fp(32|64)\.' | grep -v resolver | sort)
    scalar=$(printf '%s\n' "$packed" | grep -E '^(gravity|sph)_scalar_fp(32|64) ')
    if [ "$(printf '%s\n' "$simd" | grep -c .)" -ge 8 ] && ! printf '%s\n' "$simd" | grep -q ' 0$' &&
        [ -n "$scalar" ] && ! printf '%s\n' "$scalar" | grep -qv ' 0$'; then
        pass "hacc openmp simd is vectorised in every clone, scalar is not (object code)"
    else
        fail "hacc openmp simd is vectorised in every clone, scalar is not (object code)" \
            "$(printf '%s\n' "$simd" "$scalar" | tr '\n' ';')"
    fi
else
    skip "hacc openmp simd in the object code" "no $OBJ or objdump"
fi
