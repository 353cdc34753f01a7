#!/bin/sh
# deps.sh [run|test]: installs the Debian packages ppbench needs. `run` (make run, make all): what building and
# running the service need; `test` (make test): those and the test and benchmark tooling (a browser, Slurm,
# Prometheus, clang's libFuzzer, numpy). As root it runs apt-get; otherwise it prints the exact apt-get line and
# stops, so nothing is installed behind a user's back.
set -eu
purpose=${1:-run}

# Building and running: the compiler, the libraries, PostgreSQL (the embedded default starts its own cluster),
# PoCL (OpenCL on the CPU), Chart.js (the dashboard's charts), dmidecode (provenance), jq (run-standalone).
PKGS="build-essential pkg-config git jq libjansson-dev ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo
      libcurl4-openssl-dev libmicrohttpd-dev libpq-dev libsystemd-dev postgresql curl libjs-chart.js dmidecode"
# Testing: headless Chromium and node (tests/browser), Slurm and munge (tests/service/slurm.sh), Prometheus (the
# rules, the scrape and the Grafana dashboard's queries: tests/service/metrics.sh, prometheus.sh), clang with
# libFuzzer (tests/fuzz), numpy (tests/ref/dslash.py, the lattice suites' second reference), jsonschema (the
# OpenAPI check), wrk (bench/server.sh), lintian (tests/service/deb.sh), cmake, TBB and Kokkos (BabelStream's
# OpenMP, TBB and Kokkos builds that tests/service/runners.sh runs as runners, from sources fetched into
# .gpucarry/ext: bench/host/stream_refs.sh), gojq (the tests' jq: it starts in a tenth of jq 1.6's time, and the
# tests call it thousands of times: tests/lib/check.sh).
TEST_PKGS="chromium nodejs clang libclang-rt-14-dev slurm-wlm munge prometheus python3-numpy python3-jsonschema wrk
           lintian cmake libtbb-dev libtrilinos-kokkos-dev gojq"
case $purpose in
run) ;;
test) PKGS="$PKGS $TEST_PKGS" ;;
*) echo "usage: scripts/deps.sh [run|test]" >&2; exit 2 ;;
esac
# The dashboard's browser test needs npm: Debian's package, unless the installed nodejs brings its own (NodeSource's
# nodejs provides and conflicts with Debian's npm).
[ "$purpose" = run ] || command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm"

# Optional: the offload compilers of the omp-target model (OpenMP target offload to NVIDIA GPUs): GCC's nvptx
# offload compiler, and clang 19 with LLVM's OpenMP runtime, whose libomp-19-dev holds the nvptx device runtime
# and libomptarget (clang's build also needs the CUDA toolkit's ptxas and nvlink). Without one the build leaves
# that build of the model out and says so. Installed when they can be, never a failure.
OPTIONAL="gcc-12-offload-nvptx clang-19 libomp-19-dev"

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

missing=""
for p in $PKGS; do
    installed "$p" || missing="$missing $p"
done
optional=""
for p in $OPTIONAL; do
    installed "$p" || optional="$optional $p"
done
if [ -n "$optional" ]; then
    if [ "$(id -u)" -eq 0 ] && [ -z "$missing" ]; then
        echo "deps: installing optional$optional"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$optional >/dev/null; } ||
            echo "deps: optional$optional not installed: the omp-target builds they make will be left out" >&2
    elif [ "$(id -u)" -eq 0 ]; then
        missing="$missing$optional"
    else
        echo "optional (the omp-target model): sudo apt-get install -y$optional" >&2
    fi
fi
# clang's omp-target build sends its device code through CUDA 11.8's ptxas (scripts/cuda118.sh says why): fetched
# once where that build is made (clang-19's nvptx device runtime and a CUDA toolkit here).
if [ ! -d .deps/cuda-11.8 ] && [ -f /usr/lib/llvm-19/lib/libomptarget-nvptx-sm_90.bc ] &&
    [ -x "${CUDA_PATH:-/usr/local/cuda}/bin/ptxas" ] && [ -z "$missing" ]; then
    echo "deps: Debian's CUDA 11.8 ptxas for omp-target's clang build (scripts/cuda118.sh)"
    scripts/cuda118.sh >/dev/null || echo "deps: scripts/cuda118.sh failed: omp-target's clang build will find no GPU" >&2
fi
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    echo "deps: installing$missing"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$missing >/dev/null
else
    echo "ppbench needs these Debian packages:$missing" >&2
    echo "install them with: sudo apt-get install -y$missing" >&2
    exit 1
fi
