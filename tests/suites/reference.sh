# The second reference (docs/METHODOLOGY.md, "A second reference"): Wilson and staggered runs of
# `ppbench-worker run` on small non-hypercubic lattices dump their fields and the outputs they read back
# (PPBENCH_TEST_DUMP, kernels/fielddump.h), and tests/ref/dslash.py recomputes both operators in numpy from the
# papers' definitions and compares every output site within 100 epsilon of the site's scale. On openmp, and on
# opencl where the host has an OpenCL CPU device (PoCL). Then the proof that the comparison can fail: numpy's
# own mutants (D-dagger, a negated gamma_t, a wrong hop; staggered: backward terms added, long links reaching
# 2 sites, a wrong hop) disagree with the kernel's output, and so does a kernel that used a wrong link or wrote
# half its sites (PPBENCH_TEST_FAULT), though the dump keeps the true fields.
. "$(dirname "$0")/../lib/check.sh"

# Debian's python3 with python3-numpy (scripts/deps.sh); another python3 on PATH may lack numpy.
PY=""
for p in /usr/bin/python3 python3; do
    if "$p" -c 'import numpy' 2>/dev/null; then
        PY=$p
        break
    fi
done
if [ -z "$PY" ]; then
    fail "reference: numpy" "no python3 with numpy (scripts/deps.sh installs python3-numpy)"
    exit 0
fi
REF=tests/ref/dslash.py

models="openmp"
if "$WORKER" list 2>/dev/null | grep -Eq '^cpu0 .*opencl'; then
    models="openmp opencl"
else
    skip "reference opencl" "no OpenCL CPU device (PoCL)"
fi

# dumped NAME SUITE DIR -- WORKER-ARGS...: a verified run that dumped into DIR (fresh), compared by numpy.
dumped() {
    local name=$1 suite=$2 dir=$3 out
    shift 4
    mkdir -p "$dir"
    if ! PPBENCH_TEST_DUMP="$dir" "$WORKER" run --platform cpu0 --suite "$suite" "$@" >"$dir/run.txt" 2>&1; then
        fail "$name" "the run failed: $(tail -n 2 "$dir/run.txt" | tr '\n' ' ')"
        return
    fi
    if out=$("$PY" "$REF" "$dir" "$suite" 2>&1) && [ "$(printf '%s\n' "$out" | grep -c '^ok ')" = 2 ]; then
        pass "$name: numpy agrees ($(printf '%s\n' "$out" | tail -n 1 | sed 's/^ok [a-z]* out: //'))"
    else
        fail "$name" "numpy: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"
    fi
}

for model in $models; do
    for layout in aos soa; do
        for prec in fp32 fp64; do
            dumped "reference: wilson $model $layout $prec 4x6x8x10" wilson "$TMP/wilson-$model-$layout-$prec" -- --model "$model" \
                --lattice 4x6x8x10 --layout "$layout" --precision "$prec" --numtimes 3
        done
    done
done
# staggered: the CPU loops, and on opencl strategies that meet their partial sums in different ways (one
# work-item per site, local memory, atomics, two barriers); 8x6x4x10 aliases third neighbours on its 6 and 4
# extents (x + 3k is x - k on 4, x - 3k on 6), 8x8x10x12 does not
cases="openmp:site openmp:simd"
[ "$models" != openmp ] && cases="$cases opencl:1lp opencl:3lp-1 opencl:3lp-3 opencl:4lp-2"
for c in $cases; do
    IFS=: read -r model strategy <<<"$c"
    for prec in fp32 fp64; do
        for lat in 8x6x4x10 8x8x10x12; do
            [ "$model" = opencl ] && [ "$lat" = 8x8x10x12 ] && [ "$prec" = fp32 ] && continue
            dumped "reference: staggered $model $strategy $prec $lat" staggered \
                "$TMP/staggered-$model-$strategy-$prec-$lat" -- --model "$model" \
                --lattice "$lat" --strategy "$strategy" --precision "$prec" --runs 2 --iterations 2
        done
    done
done

# The comparison can fail: numpy's mutants against a kernel's true output.
w="$TMP/wilson-openmp-soa-fp32" s="$TMP/staggered-openmp-site-fp64-8x8x10x12"
for m in projector gamma hop; do
    expect "reference: numpy's wilson mutant $m disagrees with the kernel" 1 '^FAIL wilson out: site \(' -- \
        "$PY" "$REF" --mutant "$m" "$w" wilson
done
for m in backward third hop; do
    expect "reference: numpy's staggered mutant $m disagrees with the kernel" 1 '^FAIL staggered out: site \(' -- \
        "$PY" "$REF" --mutant "$m" "$s" staggered
done
expect "reference: an unknown mutant is refused" 2 'wilson has no mutant third' -- \
    "$PY" "$REF" --mutant third "$w" wilson

# ...and a kernel that computed something else: a wrong link (the dump keeps the true one) and half the sites
# written (the rest stay NaN from the poisoning); the worker's own verification fails too (exit 1).
for suite in wilson staggered; do
    d="$TMP/fault-link-$suite"
    mkdir -p "$d"
    PPBENCH_TEST_FAULT=link:3 PPBENCH_TEST_DUMP="$d" "$WORKER" run --platform cpu0 --model openmp --suite "$suite" \
        --lattice 4x6x8x10 --precision fp64 >/dev/null 2>&1
    expect "reference: numpy catches a $suite kernel's wrong link at odd index 3" 1 \
        "^FAIL $suite out: site \\([0-9,]+\\) \\[odd index 3\\]" -- "$PY" "$REF" "$d" "$suite"
    d="$TMP/fault-half-$suite"
    mkdir -p "$d"
    PPBENCH_TEST_FAULT=half PPBENCH_TEST_DUMP="$d" "$WORKER" run --platform cpu0 --model openmp --suite "$suite" \
        --lattice 4x6x8x10 --precision fp64 >/dev/null 2>&1
    expect "reference: numpy catches a $suite kernel that writes half the sites" 1 \
        "^FAIL $suite out: .*error inf" -- "$PY" "$REF" "$d" "$suite"
done
