#!/usr/bin/env bash
# Builds reference STREAMs from their public sources, with Debian's compilers as their own instructions say, into
# DEST (default .gpucarry/ext/bin: git-ignored; their code never enters the project). Two forms:
#   bench/host/stream_refs.sh STREAM_SRC BABELSTREAM_SRC [DEST]
#   bench/host/stream_refs.sh --babelstream BABELSTREAM_SRC DEST MODEL...
# The first builds the two that bench/host/stream_compare.sh runs beside ppbench; the second only BabelStream's
# builds of the MODELs named (omp, tbb: Debian's libtbb-dev; kokkos: Debian's libtrilinos-kokkos-dev, see
# below; cuda: nvcc for CUDA_ARCH, default sm_90, for the GPU machine; each MODEL-stream), which
# tests/service/runners.sh and bench/gpu/runner.sh run as ppbench runners. STREAM_SRC: a checkout of McCalpin's
# stream.c (github.com/jeffhammond/STREAM);
# BABELSTREAM_SRC: a checkout of github.com/UoB-HPC/BabelStream. Writes DEST/stream_c.exe (gcc -O3 -fopenmp
# -mcmodel=medium -DSTREAM_ARRAY_SIZE=$ARRAYSIZE -DNTIMES=$NUMTIMES: its static arrays exceed 2 GiB),
# DEST/<model>-stream (CMake -DMODEL=<model> with RELEASE_FLAGS=-O3: BabelStream's default adds -march=native,
# which would target the machine that builds, not the one that runs it) and DEST/refs.txt (the commits,
# compiler and flags). A build whose binary is newer than its sources is kept.
# Options (environment): ARRAYSIZE (134217728), NUMTIMES (20): McCalpin's are compiled in, and stream_compare.sh
# runs all three with the same ones.
# kokkos: Debian 12's Kokkos is 3.4.1, built with its Serial backend only (KokkosCore_config.h: no OPENMP), so
# kokkos-stream runs on one thread; it is built from BabelStream's v5.0 tag (git archive of BABELSTREAM_SRC: the
# main line calls Kokkos::InitializationSettings, Kokkos 3.7 or later), and the package's CMake file, which
# points its include directory at /usr/lib/include, is corrected by a project include that defines
# Kokkos::kokkos first (its config defines the target only when it is absent).
set -eu
usage() {
    sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
[ $# -ge 2 ] || usage
if [ "$1" = --babelstream ]; then
    [ $# -ge 4 ] || usage
    STREAM_SRC="" BABEL_SRC=$2 DEST=$3
    shift 3
    MODELS=$*
else
    STREAM_SRC=$1 BABEL_SRC=$2 DEST=${3:-.gpucarry/ext/bin} MODELS=omp
fi
ARRAYSIZE=${ARRAYSIZE:-134217728}
NUMTIMES=${NUMTIMES:-20}
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
BABEL_SRC=$(cd "$BABEL_SRC" && pwd)
build=$(mktemp -d)
# A checkout's commit; '?' for a copy without its own git (git would name the repository around it).
commit() { [ "$(git -C "$1" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$1" && pwd -P)" ] && git -C "$1" rev-parse HEAD || echo '?'; }
trap 'rm -rf "$build"' EXIT

stream_flags="-O3 -fopenmp -mcmodel=medium -DSTREAM_ARRAY_SIZE=$ARRAYSIZE -DNTIMES=$NUMTIMES"
if [ -n "$STREAM_SRC" ]; then
    # shellcheck disable=SC2086 # flags are words
    gcc $stream_flags "$STREAM_SRC/stream.c" -o "$DEST/stream_c.exe"
fi

# One BabelStream model: DEST/<model>-stream, unless it is newer than every source file.
babel() {
    local model=$1 out="$DEST/$1-stream"
    if [ -x "$out" ] && [ -z "$(find "$BABEL_SRC/src" "$BABEL_SRC/CMakeLists.txt" -newer "$out" -print -quit)" ]; then
        return 0
    fi
    local src=$BABEL_SRC extra=()
    [ "$model" = cuda ] && extra=(-DCMAKE_CUDA_COMPILER="${NVCC:-/usr/local/cuda/bin/nvcc}" -DCUDA_ARCH="${CUDA_ARCH:-sm_90}")
    if [ "$model" = kokkos ]; then
        src=$build/BabelStream-v5.0
        mkdir -p "$src"
        git -C "$BABEL_SRC" archive v5.0 | tar -x -C "$src"
        printf '%s\n' 'add_library(Kokkos::kokkos INTERFACE IMPORTED)' \
            'set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_INCLUDE_DIRECTORIES /usr/include/trilinos' \
            '  INTERFACE_LINK_LIBRARIES "trilinos_kokkosalgorithms;trilinos_kokkoscontainers;trilinos_kokkoscore")' \
            >"$build/kokkos-fix.cmake"
        extra=(-DKOKKOS_IN_PACKAGE=/usr -DCMAKE_PROJECT_INCLUDE="$build/kokkos-fix.cmake")
    fi
    cmake -S "$src" -B "$build/$model" -DMODEL="$model" -DCMAKE_CXX_COMPILER=g++ -DRELEASE_FLAGS=-O3 "${extra[@]}" \
        >"$build/$model.log"
    cmake --build "$build/$model" -j "$(nproc)" >>"$build/$model.log"
    cp "$build/$model/$model-stream" "$out"
    grep -m1 'CXX Flags' "$build/$model.log" | sed 's/^-- //' >"$out.flags"
}
for m in $MODELS; do
    babel "$m"
done

{
    if [ -n "$STREAM_SRC" ]; then
        echo "stream.c: $(commit "$STREAM_SRC") ($STREAM_SRC)"
        echo "  gcc $stream_flags"
    fi
    echo "BabelStream: $(commit "$BABEL_SRC") ($BABEL_SRC)"
    for m in $MODELS; do
        echo "  $m-stream: cmake -DMODEL=$m -DCMAKE_CXX_COMPILER=g++ -DRELEASE_FLAGS=-O3 ($(cat "$DEST/$m-stream.flags"))"
        [ "$m" != kokkos ] || echo "    from BabelStream v5.0 against Debian's Kokkos $(dpkg-query -W -f '${Version}' libtrilinos-kokkos-dev 2>/dev/null) (Serial backend)"
    done
    gcc --version | head -n 1
} >"$DEST/refs.txt"
cat "$DEST/refs.txt"
