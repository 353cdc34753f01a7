#!/bin/sh
# Build bench/gpu/cg.c against the build tree (make all first) and run the CG sweep on CUDA: native SPMV and
# cuSPARSE, fp64, with the STREAM triad of the same process. Usage: bench/gpu/cg.sh [SIZES]
set -e
B=${BUILD:-build}
mkdir -p $B/bench
gcc -std=c11 -O2 -fopenmp -Wall -Wextra -Werror -I. -I$B/gen -D_GNU_SOURCE -DPP_HAVE_CUDA=1 -o $B/bench/cg \
    bench/gpu/cg.c $(ls $B/obj/kernels/*.o $B/obj/kernels/*/*.o $B/obj/lib/*.o $B/obj/cl/*/*.o) \
    $(pkg-config --libs OpenCL 2>/dev/null || echo -lOpenCL) -ldl -lm
SIZES=${1:-"10 21 46 100 215 300 400 429"}
$B/bench/cg cuda 0 "$SIZES"
$B/bench/cg cuda 0 "$SIZES" cusparse
