# Platform discovery and grouping, and the CUDA backend's presence: built in CI (compiled by nvcc), loaded by
# dlopen, and on a host without a GPU it says "no device" and its run tests are skipped, saying so.
. "$(dirname "$0")/lib.sh"

expect "list shows the CPU platform with openmp" 0 '^cpu0 +cpu .*openmp' -- "$WORKER" list
"$WORKER" list --json >"$TMP/list.json" 2>&1
jq_true "list --json: exactly one CPU platform holding every CPU device" "$TMP/list.json" \
    '([.platforms[] | select(.kind == "cpu")] | length) == 1 and
     (.platforms[] | select(.id == "cpu0") | .devices | map(.model) | index("openmp") != null)'
jq_true "list --json: ids unique" "$TMP/list.json" '[.platforms[].id] | length == (unique | length)'
expect "cpu peak from the operator, with its source" 0 'cpu0 peak: operator: PPBENCH_PEAK_GBS_CPU0=123.5' -- \
    env PPBENCH_PEAK_GBS_CPU0=123.5 "$WORKER" list
expect "cpu peak absent without one" 0 'cpu0 peak: unknown: set PPBENCH_PEAK_GBS_CPU0' -- "$WORKER" list
expect "bad operator peak is refused, not used" 0 'cpu0 peak: unknown: PPBENCH_PEAK_GBS_CPU0="fast"' -- \
    env PPBENCH_PEAK_GBS_CPU0=fast "$WORKER" list

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
