# Shared by the bench/gpu scripts (source it after setting W, the worker binary, and OUT).
# gpu_setup: registers NVIDIA's OpenCL driver beside the ICDs the machine lists (it lists only PoCL, see
# ../shared/GPU.md), gives the OpenCL program cache a folder (PPBENCH_CACHE_DIR, unless set), and writes
# OUT/env.txt: the time, the GPU with its clocks, the CPU, the worker's version and platforms; also shown.
# gpu_clocks_after: appends the clocks and temperature at the end of the run to OUT/env.txt.
# offload_runtime RT: the omp-target runtimes that `bench/gpu/offload.sh pack` put in RT on LD_LIBRARY_PATH.
gpu_setup() {
    local vend
    vend=$(mktemp -d)
    echo libnvidia-opencl.so.1 >"$vend/nvidia.icd"
    cp /etc/OpenCL/vendors/*.icd "$vend/" 2>/dev/null
    export OCL_ICD_VENDORS=$vend
    export PPBENCH_CACHE_DIR=${PPBENCH_CACHE_DIR:-$(mktemp -d)}
    {
        date -u +%Y-%m-%dT%H:%M:%SZ
        nvidia-smi --query-gpu=name,uuid,pci.bus_id,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit,temperature.gpu --format=csv
        lscpu | grep -E 'Model name|^CPU\(s\)|Socket|NUMA node\(s\)|Thread'
        $W version
        $W list
    } >"$OUT/env.txt" 2>&1
    cat "$OUT/env.txt"
}

gpu_clocks_after() {
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$OUT/env.txt"
}

# The omp-target runtimes of RT (bench/gpu/offload.sh pack): GCC's folder RT/lib as it is; clang's RT/llvm.tar.xz
# unpacked, with a fallback linked in for each library the machine lacks, and libcuda.so pointing at the
# driver's libcuda.so.1 where the machine has no such name (LLVM's CUDA plugin asks for libcuda.so). Prepends
# them to LD_LIBRARY_PATH; RT_NOTES names the fallbacks and links used.
offload_runtime() {
    local rt=$1 libs=$1/lib llvm f n cuda1 d
    has_lib() { ldconfig -p | awk -v n="$1" '$1 == n && /x86-64/ {f = 1} END {exit !f}'; }
    RT_NOTES=""
    if [ -f "$rt/llvm.tar.xz" ]; then
        llvm=$(mktemp -d)
        # tar needs xz for this, which a base image may lack; Python's tarfile reads it too.
        if command -v xz >/dev/null; then
            tar -C "$llvm" -xJf "$rt/llvm.tar.xz"
        else
            python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2], filter="data")' \
                "$rt/llvm.tar.xz" "$llvm"
        fi
        for f in "$llvm"/llvm/fallback/*; do
            n=$(basename "$f")
            has_lib "$n" || { ln -s "$f" "$llvm/llvm/lib/$n"; RT_NOTES="$RT_NOTES $n"; }
        done
        if ! has_lib libcuda.so; then
            cuda1=$(ldconfig -p | awk '$1 == "libcuda.so.1" && /x86-64/ {print $NF; exit}')
            for d in ${LD_LIBRARY_PATH:+${LD_LIBRARY_PATH//:/ }} /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu; do
                [ -z "$cuda1" ] && [ -e "$d/libcuda.so.1" ] && cuda1=$d/libcuda.so.1
            done
            [ -n "$cuda1" ] && ln -s "$cuda1" "$llvm/llvm/lib/libcuda.so" && RT_NOTES="$RT_NOTES libcuda.so->$cuda1"
        fi
        libs=$libs:$llvm/llvm/lib
    fi
    export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
}
