#!/bin/sh
# Build bench/gpu/cg.c against the kernel objects of the build tree (only what it needs: no jansson, curl or
# server libraries) and run the CG sweep on CUDA: native SPMV and cuSPARSE, fp64, with the STREAM triad of
# the same process. Usage: bench/gpu/cg.sh [SIZES]   (env ITER, NUMTIMES, KERNELS pass to bench/gpu/cg.c)
set -e
B=${BUILD:-build}
objs=""
for f in kernels/*.c kernels/*/*.c lib/error.c lib/info.c lib/stats.c; do objs="$objs $B/obj/${f%.c}.o"; done
for f in kernels/*/*.cl kernels/wilson/wilson_dslash.h; do
    g=${f#kernels/}
    objs="$objs $B/obj/cl/${g%.*}.o"
done
make -j"$(nproc)" $objs $B/lib/ppbench/libppbench-cuda.so
mkdir -p $B/bench
gcc -std=c11 -O2 -fopenmp -Wall -Wextra -Werror -I. -I$B/gen -D_GNU_SOURCE -DPP_HAVE_CUDA=1 -o $B/bench/cg \
    bench/gpu/cg.c $objs -lOpenCL -ldl -lm
SIZES=${1:-"10 21 46 100 215 300 400 429"}
$B/bench/cg cuda 0 "$SIZES"
$B/bench/cg cuda 0 "$SIZES" cusparse
