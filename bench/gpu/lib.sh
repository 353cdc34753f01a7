# Shared by the bench/gpu scripts (source it after setting W, the worker binary, and OUT).
# gpu_setup: registers NVIDIA's OpenCL driver beside the ICDs the machine lists (it lists only PoCL, see
# ../shared/GPU.md), gives the OpenCL program cache a folder (PPBENCH_CACHE_DIR, unless set), and writes
# OUT/env.txt: the time, the GPU with its clocks, the CPU, the worker's version and platforms; also shown.
# gpu_clocks_after: appends the clocks and temperature at the end of the run to OUT/env.txt.
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
