# The Wilson Dslash suite through `ppbench-worker run` on openmp, and on opencl where the host has an OpenCL
# CPU device (PoCL): every layout, fp32 and fp64, on 4^4, 8^4 and a non-hypercubic lattice, verified against the
# serial reference; the output formats; --iterations; the CPU's default lattice; planted faults caught and named;
# bad input refused with exit 2 and a message naming the parameter.
. "$(dirname "$0")/../lib/check.sh"

models="openmp"
if "$WORKER" list | grep -Eq '^cpu0 .*opencl'; then
    models="openmp opencl"
else
    skip "wilson opencl" "no OpenCL CPU device"
fi

# layouts of a model: aosoa (blocks of 32 sites) is a GPU layout, offered by opencl and cuda only
layouts_of() { if [ "$1" = opencl ]; then echo "aos soa aosoa"; else echo "aos soa"; fi; }

for model in $models; do
    for layout in $(layouts_of "$model"); do
        for prec in fp32 fp64; do
            flag=""; [ "$prec" = fp64 ] && flag="--double"
            for lat in 4x4x4x4 8x8x8x8 4x4x4x8; do
                name="wilson $model $layout $prec $lat"
                f="$TMP/$model-$layout-$prec-$lat.json"
                if "$WORKER" run --platform cpu0 --model "$model" --suite wilson --lattice "$lat" --layout "$layout" \
                    --numtimes 3 $flag --json >"$f" 2>"$TMP/err"; then
                    jq_true "$name: verified" "$f" \
                        ".verified == true and .kernels[0].verified == true and .variant.layout == \"$layout\"
                         and .model == \"$model\" and .problem.precision == \"$prec\"
                         and (.problem.lattice | map(tostring) | join(\"x\")) == \"$lat\""
                else
                    fail "$name" "exit $?: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
                fi
            done
        done
    done
done

f="$TMP/openmp-aos-fp32-4x4x4x8.json"
jq_true "json: times, stats without the warm-up" "$f" \
    '.kernels[0] | (.times_s | length) == 3 and .stats_s.count == 2 and .stats_s.min <= .stats_s.median and .stats_s.min > 0'
jq_true "json: 1320 flop per output site, 1440 B per site in fp32 (Eq. 2, R = 0)" "$f" \
    '.problem.output_sites == 256 and .kernels[0].flops == 1320 * 256 and .kernels[0].bytes == 1440 * 256'
jq_true "json: GFLOP/s and bandwidth from the minimum time" "$f" \
    '.kernels[0] | ((.gflops * 1e9 * .stats_s.min / .flops) - 1 | fabs) < 1e-9
     and ((.bandwidth_bytes_per_s * .stats_s.min / .bytes) - 1 | fabs) < 1e-9'
jq_true "json: fp64 counts 2880 B per site" "$TMP/openmp-aos-fp64-4x4x4x8.json" '.kernels[0].bytes == 2880 * 256'
jq_true "json: provenance and variant" "$f" \
    '.suite == "wilson" and .model == "openmp" and .platform.id == "cpu0" and .provenance.launch.threads >= 1
     and (.provenance | has("ppbench.version") and has("compiler") and (.backend | has("openmp.threads")))'

jq_true "json: one application per sample by default" "$f" '.problem.iterations == 1'
if [ "$models" != openmp ]; then
    jq_true "json: the opencl work-group size and kernel limits (no register budget on PoCL)" "$TMP/opencl-soa-fp32-4x4x4x8.json" \
        '.provenance.launch.work_group_size >= 1 and (.provenance.backend | has("opencl.wilson_kernel_max_work_group"))
         and .provenance.backend["opencl.wilson_index_bits"] == "32"
         and .provenance.backend["opencl.wilson_max_regs"] == "0"'
fi

# --iterations: samples of N back-to-back applications, times per application; on every model.
for model in $models; do
    f="$TMP/$model-iterations.json"
    if "$WORKER" run --platform cpu0 --model "$model" --suite wilson --lattice 4x4x4x8 --numtimes 3 \
        --iterations 4 --json >"$f" 2>"$TMP/err"; then
        jq_true "wilson $model --iterations 4: verified and in the json" "$f" \
            '.verified == true and .problem.iterations == 4 and .problem.numtimes == 3
             and (.kernels[0].times_s | length) == 3 and .kernels[0].stats_s.count == 2'
    else
        fail "wilson $model --iterations 4" "exit $?: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
    fi
done
expect "wilson: the table names the iterations" 0 'Running dslash 2 times, 3 applications back to back each' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite wilson --lattice 4x4x4x4 --numtimes 2 --iterations 3

# The default lattice on a CPU is 8^4, reported as resolved.
expect "wilson: default fp32 8^4 table" 0 '^Dslash .* yes$' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite wilson --numtimes 2
expect "wilson: the default lattice is reported resolved" 0 'Lattice: 8x8x8x8 \(4096 sites' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite wilson --numtimes 2
# Where the last-level cache is known, the CPU default is DRAM-bound: the smallest even L^4 whose fields are
# at least 4x the cache (fp32: 400 bytes per site; a 1 MiB cache: 10486 sites or more, 12^4).
expect "wilson: the CPU default lattice is 4x a 1 MiB last-level cache" 0 'Lattice: 12x12x12x12 \(20736 sites' -- \
    env PPBENCH_LLC_BYTES_CPU0=1048576 "$WORKER" run --platform cpu0 --model openmp --suite wilson --numtimes 2
"$WORKER" run --platform cpu0 --model openmp --suite wilson --lattice 4x4x4x4 --numtimes 2 --json >"$TMP/ws.json" 2>/dev/null
jq_true "json: the working set is the device fields (128 output sites x 800 bytes in fp32); the cache unknown" \
    "$TMP/ws.json" '.problem.working_set_bytes == 128 * 800 and .platform.llc_bytes == null'
if [ -r /sys/devices/system/cpu/cpu0/cache/index0/level ]; then
    env -u PPBENCH_LLC_BYTES_CPU0 "$WORKER" run --platform cpu0 --model openmp --suite wilson --lattice 4x4x4x4 \
        --numtimes 2 --json >"$TMP/sysfs.json" 2>/dev/null
    jq_true "json: the CPU's last-level cache from sysfs" "$TMP/sysfs.json" \
        '.platform.llc_bytes > 0 and (.platform.llc_source | test("^sysfs: L[0-9]$"))'
else
    skip "json: the CPU's last-level cache from sysfs" "no cache directories in sysfs"
fi
expect "wilson: table names lattice and layout" 0 'Lattice: 4x4x4x8 .*' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite wilson --lattice 4x4x4x8 --layout soa --numtimes 2
expect "wilson: csv" 0 '^Dslash,2,4x4x4x8,soa,4,' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite wilson --lattice 4x4x4x8 --layout soa --numtimes 2 --csv

# Planted faults (PPBENCH_TEST_FAULT, docs/METHODOLOGY.md): a wrong link, a wrong neighbour index (in the
# table: opencl reads it only with PPBENCH_WILSON_HOPS=table; its default computes the hops, which
# tests/unit/test_lattice_hop.c checks against the table).
for model in $models; do
    hops=""; [ "$model" = opencl ] && hops="PPBENCH_WILSON_HOPS=table"
    for layout in $(layouts_of "$model"); do
        expect "wilson $model $layout: planted link fault caught and named" 1 \
            'verification failed: dslash: site \([0-9,]+\) \[odd index 3\]' -- \
            env PPBENCH_TEST_FAULT=link:3 "$WORKER" run --platform cpu0 --model "$model" --suite wilson \
            --lattice 4x4x4x8 --layout "$layout" --numtimes 2
        expect "wilson $model $layout: planted neighbour fault caught and named" 1 \
            'verification failed: dslash: site \([0-9,]+\) \[odd index 100\]' -- \
            env PPBENCH_TEST_FAULT=neighbour:100 $hops "$WORKER" run --platform cpu0 --model "$model" --suite wilson \
            --lattice 4x4x4x8 --layout "$layout" --numtimes 2 --double
    done
done
# Verification sees every sample (issue 12): kernels that write half the sites in every application, only in
# the first (correct only on its first application: the last sample's output, poisoned before it, fails), or
# half in the warm-up only (caught because the warm-up's output is verified too: the verified unit is a sample,
# so this one runs one application per sample). 4x4x4x8: 256 output sites.
for layout in aos soa; do
    expect "wilson openmp $layout: a kernel writing half the sites fails" 1 \
        'verification failed: dslash: site \([0-9,]+\) \[odd index 128\]' -- \
        env PPBENCH_TEST_FAULT=half "$WORKER" run --platform cpu0 --model openmp --suite wilson \
        --lattice 4x4x4x8 --layout "$layout" --numtimes 3 --iterations 2
    expect "wilson openmp $layout: a kernel correct only on its first application fails" 1 \
        'verification failed: dslash: site \([0-9,]+\) \[odd index 128\].*last sample only' -- \
        env PPBENCH_TEST_FAULT=first "$WORKER" run --platform cpu0 --model openmp --suite wilson \
        --lattice 4x4x4x8 --layout "$layout" --numtimes 3 --iterations 2
    expect "wilson openmp $layout: a kernel wrong only in the warm-up fails" 1 \
        'verification failed: warm-up: dslash: site \([0-9,]+\) \[odd index 128\].*last sample verified' -- \
        env PPBENCH_TEST_FAULT=warmup "$WORKER" run --platform cpu0 --model openmp --suite wilson \
        --lattice 4x4x4x8 --layout "$layout" --numtimes 3 --iterations 1
done
# The 64-bit index kernels (large lattices, PPBENCH_WILSON_INDEX=64 forces them) compute the same.
if [ "$models" != openmp ]; then
    for layout in aos soa aosoa; do
        f="$TMP/opencl-$layout-index64.json"
        if env PPBENCH_WILSON_INDEX=64 "$WORKER" run --platform cpu0 --model opencl --suite wilson \
            --lattice 4x4x4x8 --layout "$layout" --numtimes 2 --double --json >"$f" 2>"$TMP/err"; then
            jq_true "wilson opencl $layout with 64-bit indices: verified" "$f" \
                '.verified == true and .provenance.backend["opencl.wilson_index_bits"] == "64"'
        else
            fail "wilson opencl $layout with 64-bit indices" "exit $?: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
        fi
    done
    expect "wilson opencl refuses a malformed PPBENCH_WILSON_WG" 3 \
        'PPBENCH_WILSON_WG=0: must be a work-group size' -- env PPBENCH_WILSON_WG=0 "$WORKER" run --platform cpu0 \
        --model opencl --suite wilson --lattice 4x4x4x4 --numtimes 2
    expect "wilson opencl refuses a register budget the kernels do not offer" 3 \
        'PPBENCH_WILSON_REGS=100: must be 0' -- env PPBENCH_WILSON_REGS=100 "$WORKER" run --platform cpu0 \
        --model opencl --suite wilson --lattice 4x4x4x4 --numtimes 2
fi
env PPBENCH_TEST_FAULT=link:0 "$WORKER" run --platform cpu0 --model openmp --suite wilson --lattice 4x4x4x4 \
    --numtimes 2 --json >"$TMP/fault.json" 2>/dev/null
jq_true "json: failed run stored as failed with its reason" "$TMP/fault.json" \
    '.verified == false and .kernels[0].verified == false and (.kernels[0].error | test("odd index 0"))'

# Bad input: exit 2, the parameter named.
bad() {
    expect "wilson refuses $1" 2 "$2" -- "$WORKER" run --platform cpu0 --model openmp --suite wilson "${@:3}"
}
bad "an odd extent" 'lattice extent 5 in z must be even' --lattice 4x4x5x4
bad "a too small extent" 'lattice extent 2 in t must be even and at least 4' --lattice 4x4x4x2
bad "a malformed lattice" 'invalid --lattice "8x8x8"' --lattice 8x8x8
bad "a lattice with junk" 'invalid --lattice "8x8x8x8y"' --lattice 8x8x8x8y
bad "a lattice too large for memory" 'lattice 256x256x256x256 too large: .* GB, the device has' --lattice 256x256x256x256
bad "a lattice whose volume overflows 64 bits" 'lattice 65536x65536x65536x65536 too large: more than 2\^32 sites' --lattice 65536x65536x65536x65536
bad "an unknown layout" 'unknown layout "left"' --layout left
bad "a stream option" '--arraysize is a stream option' --arraysize 100
bad "numtimes 1" '--numtimes must be from 2 to' --numtimes 1
bad "0 iterations" 'iterations must be from 1 to 1000000, got 0' --iterations 0
bad "a malformed iterations" 'invalid --iterations "x"' --iterations x
expect "stream refuses a wilson option" 2 '--lattice is a wilson and staggered option' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite stream --lattice 4x4x4x4
expect "stream refuses --iterations" 2 '--iterations is a wilson, staggered.* option' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite stream --iterations 2

# The input sites computed from the lattice shape (the GPU default) and read from the table give the same
# verified answer; aosoa is refused where it is not offered, with the layouts the model has.
if [ "$models" != openmp ]; then
    for hops in table lattice; do
        f="$TMP/opencl-hops-$hops.json"
        if env PPBENCH_WILSON_HOPS=$hops "$WORKER" run --platform cpu0 --model opencl --suite wilson \
            --lattice 6x4x8x4 --layout aosoa --numtimes 2 --json >"$f" 2>"$TMP/err"; then
            jq_true "wilson opencl aosoa, hops from the $hops: verified" "$f" \
                ".verified == true and .provenance.backend[\"opencl.wilson_hops\"] == \"$hops\""
        else
            fail "wilson opencl hops $hops" "exit $?: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
        fi
    done
    expect "wilson opencl refuses a malformed PPBENCH_WILSON_HOPS" 3 'PPBENCH_WILSON_HOPS=both: must be table or lattice' -- \
        env PPBENCH_WILSON_HOPS=both "$WORKER" run --platform cpu0 --model opencl --suite wilson --lattice 4x4x4x4 --numtimes 2
fi
expect "wilson openmp refuses the aosoa layout, naming its own" 2 'model openmp has no layout "aosoa" \(it has: aos, soa\)' -- \
    "$WORKER" run --platform cpu0 --model openmp --suite wilson --lattice 4x4x4x4 --layout aosoa --numtimes 2
