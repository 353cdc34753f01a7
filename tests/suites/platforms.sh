# Platform discovery and grouping, and the CUDA backend's presence: built in CI (compiled by nvcc), loaded by
# dlopen, and on a host without a GPU it says "no device" and its run tests are skipped, saying so.
. "$(dirname "$0")/../lib/check.sh"

expect "list shows the CPU platform with openmp" 0 '^cpu0 +cpu .*openmp' -- "$WORKER" list
"$WORKER" list --json >"$TMP/list.json" 2>&1
jq_true "list --json: exactly one CPU platform holding every CPU device" "$TMP/list.json" \
    '([.platforms[] | select(.kind == "cpu")] | length) == 1 and
     (.platforms[] | select(.id == "cpu0") | .devices | map(.model) | index("openmp") != null)'
jq_true "list --json: ids unique" "$TMP/list.json" '[.platforms[].id] | length == (unique | length)'
expect "cpu peak from the operator, with its source" 0 'cpu0 peak: operator: PPBENCH_PEAK_GBS_CPU0=123.5' -- \
    env PPBENCH_PEAK_GBS_CPU0=123.5 "$WORKER" list
expect "cpu peak unknown without SMBIOS, with the reason and the variable to set" 0 \
    'cpu0 peak: unknown: SMBIOS not readable \(.*no-smbios: No such file or directory\); set PPBENCH_PEAK_GBS_CPU0 \(GB/s\)$' \
    -- "$WORKER" list
expect "bad operator peak is refused, not used" 0 'cpu0 peak: unknown: PPBENCH_PEAK_GBS_CPU0="fast"' -- \
    env PPBENCH_PEAK_GBS_CPU0=fast "$WORKER" list

# The CPU peak from SMBIOS type-17 entries (worker/smbios.c): four 16 GB DDR5 DIMMs at 4800 MT/s, two on each
# of the channels their bank locators name, and an empty slot. dimm N SIZE BANK writes 17-N/raw: a 0x28-byte
# entry (SMBIOS 2.8: data width 64, SIZE in MB as two little-endian printf escapes, speed and configured speed
# 4800 = 0x12c0), then its strings (the device and bank locators).
dimm() {
    mkdir -p "$TMP/smbios/17-$1"
    {
        printf "\x11\x28\x00\x00\x00\x10\xfe\xff\x48\x00\x40\x00$2\x09\x00\x01\x02\x22\x00\x00\xc0\x12\x00\x00\x00\x00\x00"
        printf "\x00\x00\x00\x00\xc0\x12\x00\x00\x00\x00\x00\x00DIMM %s\0%s\0\0" "$1" "$3"
    } >"$TMP/smbios/17-$1/raw"
}
dimm 0 '\x00\x40' "P0 CHANNEL A"
dimm 1 '\x00\x40' "P0 CHANNEL A"
dimm 2 '\x00\x40' "P0 CHANNEL B"
dimm 3 '\x00\x40' "P0 CHANNEL B"
dimm 4 '\x00\x00' "P0 CHANNEL C"
expect "cpu peak from SMBIOS: channels named by the locators x speed x width" 0 \
    '^cpu0 peak: smbios: 2 channels \(named by the locators\) x 4800 MT/s x 8 B$' \
    -- env PPBENCH_SMBIOS_ROOT="$TMP/smbios" "$WORKER" list
env PPBENCH_SMBIOS_ROOT="$TMP/smbios" "$WORKER" list --json >"$TMP/smbios.json" 2>&1
jq_true "list --json: the SMBIOS peak in bytes/s with its source" "$TMP/smbios.json" \
    '.platforms[] | select(.id == "cpu0") | .peak_bandwidth_bytes_per_s == 76.8e9 and (.peak_source | startswith("smbios: "))'
expect "the operator's peak wins over SMBIOS" 0 'cpu0 peak: operator: PPBENCH_PEAK_GBS_CPU0=123.5' -- \
    env PPBENCH_SMBIOS_ROOT="$TMP/smbios" PPBENCH_PEAK_GBS_CPU0=123.5 "$WORKER" list

so="$BUILD/lib/ppbench/libppbench-cuda.so"
if [ "$BUILD" != "${PPBENCH_CUDA_BUILD-$BUILD}" ]; then
    skip "cuda backend compiles" "not part of this build (nvcc not found, or a sanitizer build)"
elif [ -f "$so" ] && nm -D "$so" | grep -q ' pp_backend_cuda$'; then
    pass "cuda backend compiles and exports pp_backend_cuda"
    if ldd "$so" | grep -q libcudart; then
        fail "cuda backend links the CUDA runtime statically" "$(ldd "$so" | grep cudart)"
    else
        pass "cuda backend links the CUDA runtime statically"
    fi
else
    fail "cuda backend compiles" "$so missing or without pp_backend_cuda"
fi

if nvidia-smi -L >/dev/null 2>&1; then
    expect "cuda: gpu platform listed" 0 '^gpu0 +gpu .*cuda' -- "$WORKER" list
    f="$TMP/cuda.json"
    if "$WORKER" run --platform gpu0 --model cuda --suite stream --arraysize 100003 --numtimes 5 --json >"$f"; then
        jq_true "cuda: whole suite verified" "$f" '.verified == true and (.kernels | length) == 6'
    else
        fail "cuda: whole suite verified" "run failed"
    fi
elif "$WORKER" version | grep -q cuda; then
    expect "cuda without a GPU says no device" 0 '^note: cuda: no device' -- "$WORKER" list
    skip "cuda run tests" "no GPU on this machine (they run on the GPU machine: bench/gpu/stream.sh)"
fi
