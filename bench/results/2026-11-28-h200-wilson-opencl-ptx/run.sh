# The device call (one NVIDIA H200, 2026-11-28), from a tree holding build/ (bin, lib) and bench/:
W=build/bin/ppbench-worker
bench/gpu/wilson.sh $OUT/hints > $OUT/hints.log 2>&1
PPBENCH_OPENCL_WILSON_OPTIONS=-UWILSON_NV_PTX bench/gpu/wilson.sh $OUT/nohints > $OUT/nohints.log 2>&1
for s in stream staggered; do $W run --platform gpu0 --model cuda --suite $s --json > $OUT/cuda-$s.json; done
