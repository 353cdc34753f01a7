#!/bin/sh
# Installs the Debian packages ppbench needs to build, test and run. As root it runs apt-get; otherwise it
# prints the exact apt-get line and stops, so nothing is installed behind a user's back.
set -eu

PKGS="build-essential pkg-config git jq libjansson-dev ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo
      libcurl4-openssl-dev libmicrohttpd-dev libpq-dev libsystemd-dev postgresql curl wrk
      libjs-chart.js chromium nodejs clang libclang-rt-14-dev prometheus"
# The dashboard's browser test needs npm: Debian's package, unless the installed nodejs brings its own (NodeSource's
# nodejs provides and conflicts with Debian's npm).
command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm"

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
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
