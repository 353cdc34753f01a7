# The MILC staggered Dslash suite on opencl (PoCL on cpu0) through `ppbench-worker run`: every strategy of paper
# 001 with each of its work-item orders, fp32 and fp64, on 4^4, 8^4 and 4x4x4x8, verified against the five-loop
# reference, two work-group sizes per strategy and order; planted link and neighbour faults caught on opencl; a
# work-group above the device's limit refused naming --work-group. SKIP where there is no OpenCL CPU device.
. "$(dirname "$0")/../lib/check.sh"

if ! "$WORKER" list 2>/dev/null | grep -Eq '^cpu0 .*opencl'; then
    skip "staggered opencl" "no OpenCL CPU device (PoCL)"
    exit 0
fi

run() {
    "$WORKER" run --platform cpu0 --model opencl --suite staggered --runs 1 --iterations 2 "$@"
}

# strategy:order:work-group on 4^4 and 4x4x4x8 (global sizes 128 and 256 sites x work-items per site):work-group
# on 8^4 (2048 sites). i-major 3LP takes multiples of 4 that need not hold whole sites (64).
cases="1lp:none:64:256 2lp:none:96:192 3lp-1:k:96:384 3lp-1:i:64:768 3lp-2:k:96:384 3lp-2:i:64:768
       3lp-3:k:96:384 3lp-3:i:64:768 4lp-1:k:48:768 4lp-1:i:96:48 4lp-2:l:48:768 4lp-2:i:96:48"
for c in $cases; do
    IFS=: read -r strategy order wg_small wg_large <<<"$c"
    for prec in fp32 fp64; do
        flag="--double"; [ "$prec" = fp32 ] && flag="--float"
        for lat in 4x4x4x4 8x8x8x8 4x4x4x8; do
            wg=$wg_small; [ "$lat" = 8x8x8x8 ] && wg=$wg_large
            name="staggered opencl $strategy $order wg $wg $prec $lat"
            f="$TMP/$strategy-$order-$prec-$lat.json"
            if run --lattice "$lat" --strategy "$strategy" --order "$order" --work-group "$wg" $flag --json \
                >"$f" 2>"$TMP/err"; then
                jq_true "$name: verified" "$f" \
                    ".verified == true and .kernels[0].verified == true and .kernels[0].max_rel_err <= .kernels[0].tolerance
                     and .variant.strategy == \"$strategy\" and (.variant.order // \"none\") == \"$order\"
                     and .provenance.launch.work_group_size == $wg and .problem.precision == \"$prec\"
                     and (.problem.lattice | map(tostring) | join(\"x\")) == \"$lat\""
            else
                fail "$name" "exit $?: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
            fi
        done
    done
done

jq_true "json: opencl provenance names the build options" "$TMP/4lp-2-i-fp64-4x4x4x8.json" \
    '.model == "opencl" and (.provenance.backend["opencl.build_options"] | test("-DSTAG_STRATEGY=6 -DSTAG_ORDER=2"))'
"$WORKER" run --platform cpu0 --model opencl --suite staggered --lattice 4x4x4x8 --runs 1 --iterations 1 --json \
    >"$TMP/default.json" 2>/dev/null
jq_true "json: default on opencl: 3lp-1 k-major, fp64" "$TMP/default.json" \
    '.verified == true and .variant.strategy == "3lp-1" and .variant.order == "k" and .problem.precision == "fp64"'

# Planted faults (PPBENCH_TEST_FAULT): a wrong link, a wrong neighbour index, through strategies that meet their
# partial sums in different ways (local memory, atomics, two barriers).
for strategy in 3lp-1 3lp-3 4lp-2; do
    expect "staggered opencl $strategy: planted link fault caught and named" 1 \
        'verification failed: dslash: site \([0-9,]+\) \[odd index 3\] colour [0-2] (re|im)' -- \
        env PPBENCH_TEST_FAULT=link:3 "$WORKER" run --platform cpu0 --model opencl --suite staggered \
        --lattice 4x4x4x8 --strategy "$strategy" --runs 1 --iterations 1
    expect "staggered opencl $strategy: planted neighbour fault caught and named" 1 \
        'verification failed: dslash: site \([0-9,]+\) \[odd index 3\]' -- \
        env PPBENCH_TEST_FAULT=neighbour:3 "$WORKER" run --platform cpu0 --model opencl --suite staggered \
        --lattice 4x4x4x8 --strategy "$strategy" --runs 1 --iterations 1 --float
done

# What the device cannot do: a work-group above its limit (PoCL: 4096), valid for the strategy (a multiple of
# 12 dividing 8^4's global size 24576). The backend refuses it when it allocates: exit 3, as every backend error
# (worker/run.h), where the driver's own rules give 2.
expect "staggered opencl refuses a work-group above the device limit" 3 \
    '--work-group 6144 is above the [0-9]+ work-items per work-group of ' -- \
    run --lattice 8x8x8x8 --strategy 3lp-1 --work-group 6144
