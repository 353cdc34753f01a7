# One device call (NVIDIA H200 and its 16-core host, 2026-11-28): the worker and its models of main at 0cde4f9
# (the CUDA suites through PP_SUITE_SLOT), stripped and packed with the offload runtimes as bench/gpu/offload.sh
# does (.gpucarry/pp: rt.tar.xz, llvm.tar.xz), then:
mkdir -p /tmp/rt && tar -C /tmp/rt -xJf .gpucarry/pp/rt.tar.xz && cp .gpucarry/pp/llvm.tar.xz /tmp/rt/
D=$(mktemp -d) && OFFLOAD_RT=/tmp/rt OUT=$D bash bench/gpu/hacc_pp.sh
W=/tmp/rt/ppbench/bin/ppbench-worker
for s in stream wilson staggered; do $W run --platform gpu0 --model cuda --suite $s --json > $D/slot-cuda-$s.json; done
# here: the policies from the reports and this build's line sets (the build of main at 0f0348f)
python3 bench/pp_policies.py <reports> build/gen/linesets.txt fp32 > pp.txt   (line sets of main at 0f0348f)
