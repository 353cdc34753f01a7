#!/usr/bin/env bash
# Builds the two reference STREAMs that bench/host/stream_compare.sh runs beside ppbench, from their public
# sources, with Debian's gcc as their own instructions say, into DEST (default .gpucarry/ext/bin: git-ignored;
# their code never enters the project):
#   bench/host/stream_refs.sh STREAM_SRC BABELSTREAM_SRC [DEST]
# STREAM_SRC: a checkout of McCalpin's stream.c (github.com/jeffhammond/STREAM); BABELSTREAM_SRC: a checkout of
# github.com/UoB-HPC/BabelStream. Writes DEST/stream_c.exe (gcc -O3 -fopenmp -mcmodel=medium
# -DSTREAM_ARRAY_SIZE=$ARRAYSIZE -DNTIMES=$NUMTIMES: its static arrays exceed 2 GiB), DEST/omp-stream (CMake
# -DMODEL=omp with RELEASE_FLAGS=-O3: BabelStream's default adds -march=native, which would target the machine
# that builds, not the one that runs it) and DEST/refs.txt (the commits, compiler and flags).
# Options (environment): ARRAYSIZE (134217728), NUMTIMES (20): McCalpin's are compiled in, and stream_compare.sh
# runs all three with the same ones.
set -eu
if [ $# -lt 2 ]; then
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
STREAM_SRC=$1 BABEL_SRC=$2 DEST=${3:-.gpucarry/ext/bin}
ARRAYSIZE=${ARRAYSIZE:-134217728}
NUMTIMES=${NUMTIMES:-20}
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)

stream_flags="-O3 -fopenmp -mcmodel=medium -DSTREAM_ARRAY_SIZE=$ARRAYSIZE -DNTIMES=$NUMTIMES"
# shellcheck disable=SC2086 # flags are words
gcc $stream_flags "$STREAM_SRC/stream.c" -o "$DEST/stream_c.exe"

build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cmake -S "$BABEL_SRC" -B "$build" -DMODEL=omp -DCMAKE_CXX_COMPILER=g++ -DRELEASE_FLAGS=-O3 >"$build/cmake.log"
cmake --build "$build" -j "$(nproc)" >>"$build/cmake.log"
cp "$build/omp-stream" "$DEST/omp-stream"

{
    echo "stream.c: $(git -C "$STREAM_SRC" rev-parse HEAD 2>/dev/null || echo '?') ($STREAM_SRC)"
    echo "  gcc $stream_flags"
    echo "BabelStream: $(git -C "$BABEL_SRC" rev-parse HEAD 2>/dev/null || echo '?') ($BABEL_SRC)"
    echo "  cmake -DMODEL=omp -DCMAKE_CXX_COMPILER=g++ -DRELEASE_FLAGS=-O3 ($(grep -m1 'CXX Flags' "$build/cmake.log" | sed 's/^-- //'))"
    gcc --version | head -n 1
} >"$DEST/refs.txt"
cat "$DEST/refs.txt"
