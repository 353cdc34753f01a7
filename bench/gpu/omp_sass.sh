#!/usr/bin/env bash
# omp_sass: the size of the SASS clang's OpenMP offload makes of a STREAM triad, alone in its device module and
# beside a dot of either form, and of ppbench's own omp-target STREAM kernels (issue 14: ppbench's triad was
# 2-4 % below BabelStream's at 2^25 and its copy 10-15 %). No GPU needed: clang 19 with the omp-target build's
# flags, CUDA 11.8's ptxas and cuobjdump (scripts/cuda118.sh), SASS lines counted per kernel.
#   bench/gpu/omp_sass.sh
set -eu
cd "$(dirname "$0")/../.."
CLANG=${OFFLOAD_CLANG:-/usr/lib/llvm-19/bin/clang}
CUDA=${OMPT_CLANG_CUDA:-$PWD/.deps/cuda-11.8}
[ -x "$CUDA/bin/cuobjdump" ] || { echo "omp_sass: no $CUDA/bin/cuobjdump (scripts/cuda118.sh unpacks it)" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
TRIAD='void triad(double *a, const double *b, const double *c, double s, size_t n, int dev)
{
#pragma omp target teams distribute parallel for simd device(dev) is_device_ptr(a, b, c)
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}'
# ppbench's dot: a team per block, its own parallel reduction (the block sums added on the host)
BLOCKED='void dot(const double *a, const double *b, double *part, size_t n, size_t nb, int dev)
{
#pragma omp target teams distribute device(dev) is_device_ptr(a, b, part)
    for (size_t t = 0; t < nb; t++) {
        size_t lo = n * t / nb, hi = n * (t + 1) / nb;
        double s = 0;
#pragma omp parallel for simd reduction(+ : s)
        for (size_t i = lo; i < hi; i++)
            s += a[i] * b[i];
        part[t] = s;
    }
}'
# BabelStream's dot: one combined construct with a reduction
COMBINED='double dot(const double *a, const double *b, size_t n, int dev)
{
    double s = 0;
#pragma omp target teams distribute parallel for simd device(dev) is_device_ptr(a, b) reduction(+ : s)
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}'
FLAGS=(-O3 -fopenmp --offload-arch=sm_90 "--cuda-path=$CUDA" --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib
       -Wno-pass-failed -Wno-unknown-pragmas -fPIC -shared -save-temps)
# sass NAME SOURCE-FILE [FLAGS...]: the device image's kernels and their SASS lines
sass() {
    local name=$1 src=$2
    shift 2
    # (the device image is linked before the host side, whose other files are not given: its failure is no matter)
    (cd "$T" && "$CLANG" "${FLAGS[@]}" "$@" -o "$name.so" "$src" >/dev/null 2>&1) || true
    "$CUDA/bin/cuobjdump" -sass "$T/$name.so.nvptx64.sm_90.img" |
        awk -v m="$name" '/Function :/ { k = $3 } /^ +\/\*[0-9a-f]+\*\// { n[k]++ }
            END { for (k in n) printf "%-28s %5d  %s\n", m, n[k], k }' | sort -k3
}
printf '#include <stddef.h>\n%s\n' "$TRIAD" >"$T/alone.c"
printf '#include <stddef.h>\n%s\n%s\n' "$TRIAD" "$BLOCKED" >"$T/blocked.c"
printf '#include <stddef.h>\n%s\n%s\n' "$TRIAD" "$COMBINED" >"$T/combined.c"
echo "module                       lines  kernel"
sass "triad alone" "$T/alone.c"
sass "triad + blocked dot" "$T/blocked.c"
sass "triad + combined dot" "$T/combined.c"
make -s "BUILD=${BUILD:-build}" "${BUILD:-build}/gen/buildinfo.h" >/dev/null
sass "ppbench stream" "$PWD/kernels/stream/openmp.c" -I"$PWD" -I"$PWD/${BUILD:-build}/gen" -D_GNU_SOURCE -DPP_OMP_TARGET -std=c11 |
    grep -E '_(triad|copy|dot)_fp64_l[0-9]+$'
