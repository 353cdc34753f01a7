#!/usr/bin/env bash
# The CUDA toolkit clang's OpenMP offload (the omp-target model's clang build) sends its device code through:
# Debian's nvidia-cuda-toolkit 11.8 (bookworm, non-free), of which ptxas, nvlink, fatbinary and libdevice are
# unpacked into DIR (default .deps/cuda-11.8, ignored by git), with cuobjdump and nvdisasm to read the SASS
# (bench/gpu/omp_sass.sh). Why not the machine's CUDA: from 12.8 on,
# ptxas writes cubins in the CUDA ELF ABI v2 (EI_ABIVERSION 8, the SM in e_flags bits 8-15), and LLVM 19's
# offload runtime reads the SM from the low byte and finds no 64-bit addressing flag, so it refuses every
# image and reports no device (seen on the H100 with CUDA 13: docs/PERFORMANCE.md); 11.8's ptxas writes ABI
# v1 cubins for sm_90, which LLVM 19 and today's drivers load. include/cuda.h holds only the CUDA_VERSION line
# clang reads to pick the PTX ISA (7.8, which this ptxas takes); nothing else of the toolkit is needed.
#
# apt-get download with lists of its own in a temporary folder: the machine's sources are left as they are.
set -eu
dir=${1:-.deps/cuda-11.8}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/parts" "$tmp/lists/partial" "$tmp/archives/partial" "$tmp/debs" "$tmp/root"
cat >"$tmp/parts/non-free.sources" <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
apt_opts=(-o Dir::Etc::sourcelist=/dev/null -o "Dir::Etc::sourceparts=$tmp/parts" -o "Dir::State::Lists=$tmp/lists"
          -o "Dir::Cache::archives=$tmp/archives" -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" -qq update
chmod 777 "$tmp/debs"
(cd "$tmp/debs" && apt-get "${apt_opts[@]}" -qq download nvidia-cuda-toolkit)
dpkg -x "$tmp"/debs/nvidia-cuda-toolkit_*.deb "$tmp/root"
rm -rf "$dir" && mkdir -p "$dir/bin" "$dir/nvvm/libdevice" "$dir/include"
cp "$tmp/root/usr/bin/ptxas" "$tmp/root/usr/bin/nvlink" "$tmp/root/usr/bin/fatbinary" "$tmp/root/usr/bin/cuobjdump" \
    "$tmp/root/usr/bin/nvdisasm" "$dir/bin/"
cp "$tmp/root/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc" "$dir/nvvm/libdevice/"
echo '#define CUDA_VERSION 11080 /* scripts/cuda118.sh: the version clang reads; no other header is used */' \
    >"$dir/include/cuda.h"
"$dir/bin/ptxas" --version | tail -n 1
echo "cuda118: $dir (ptxas, nvlink, fatbinary, cuobjdump, nvdisasm, libdevice of Debian's nvidia-cuda-toolkit 11.8)"
