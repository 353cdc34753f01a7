#!/bin/sh
# Installs the Debian packages ppbench needs to build, test and run. As root it runs apt-get; otherwise it
# prints the exact apt-get line and stops, so nothing is installed behind a user's back.
set -eu

PKGS="build-essential pkg-config git jq libjansson-dev ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo
      libcurl4-openssl-dev libmicrohttpd-dev libpq-dev libsystemd-dev postgresql curl wrk
      libjs-chart.js chromium nodejs clang libclang-rt-14-dev slurm-wlm munge prometheus python3-jsonschema
      dmidecode"
# The dashboard's browser test needs npm: Debian's package, unless the installed nodejs brings its own (NodeSource's
# nodejs provides and conflicts with Debian's npm).
command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm"

# Optional: GCC's nvptx offload compiler builds the omp-target model (OpenMP target offload to NVIDIA GPUs);
# without it the build leaves the model out and says so. Installed when it can be, never a failure.
OPTIONAL="gcc-12-offload-nvptx"

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
            echo "deps: optional$optional not installed: the omp-target model will not be built" >&2
    elif [ "$(id -u)" -eq 0 ]; then
        missing="$missing$optional"
    else
        echo "optional (the omp-target model): sudo apt-get install -y$optional" >&2
    fi
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
