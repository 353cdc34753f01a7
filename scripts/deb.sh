#!/usr/bin/env bash
# scripts/deb.sh: `make deb`. The Debian packages of a built tree ($BUILD, default build) into $BUILD/deb/, one
# per row of PACKAGES below, with dpkg-deb: no debian/ folder and no debhelper, since the Makefile has already
# built everything and a package here is a list of built files plus its control data. For each row:
#  - the files, stripped as dh_strip does (debug information out, every allocated section kept: the models'
#    device images included), at the paths of PREFIX=/usr: the worker finds its models in
#    <its folder>/../lib/ppbench (kernels/model_loader.c), so /usr/bin and /usr/lib/ppbench;
#  - the systemd units of deploy/, /usr/local/bin read as /usr/bin, in /lib/systemd/system (Debian 12's place);
#  - conffiles in /etc/ppbench from deploy/*.example (the .env files hold secrets: mode 0600, read by systemd);
#  - Depends: what dpkg-shlibdeps finds for the shared libraries the files link, plus the row's own (what is
#    loaded by name at run time: the NVIDIA driver's libcuda.so.1, GCC's nvptx offload plugin, adduser);
#  - maintainer scripts that create the ppbench system user and reload systemd, and enable and start nothing
#    (deploy/README.md says how the admin does); a running unit is restarted on upgrade and stopped on removal;
#  - copyright, changelog.gz and docs in /usr/share/doc/<package>.
# A row whose first file was not built (no nvcc, no offload compiler) is left out with a note. The version is
# `git describe`'s, as the binaries carry it: tag v1.2, 5 commits on: 1.2+5.g<hash>; with no such tag
# 0~<commits>.g<hash> (commits counted, so that a later build is a newer version); .dirty when edited.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OUT=$(realpath -m "$BUILD/deb")
MAINTAINER=${DEB_MAINTAINER:-ppbench maintainers <maintainers@users.noreply.a-seed-157c99ad.example>}

# name | contents | depends (beside the shared libraries') | recommends | summary | what it is, one sentence
#  contents: bin/X ($BUILD/bin/X -> /usr/bin), model/X ($BUILD/lib/ppbench/X -> /usr/lib/ppbench),
#  unit/X (deploy/X -> /lib/systemd/system), conf/X=SRC:MODE (conffile /etc/ppbench/X from SRC),
#  doc/SRC[=NAME] (into /usr/share/doc/<name>), user (the ppbench system user, made by postinst),
#  lintian/TAG (a lintian override, its reason in lintian_reason below).
#  depends, recommends: comma apart, "a/b" for "a | b"; @V is this build's version (a model runs only in the
#  worker it was built with).
PACKAGES="
ppbench-server | bin/ppbenchd unit/ppbenchd.service conf/ppbench.conf=deploy/ppbench.conf.example:644 conf/ppbenchd.env=deploy/ppbenchd.env.example:600 user lintian/non-standard-file-perm lintian/no-manual-page doc/README.md doc/deploy/README.md=README.deploy.md doc/docs/API.md doc/docs/METHODOLOGY.md doc/deploy/prometheus/ppbench-rules.yml doc/deploy/prometheus/prometheus.yml doc/deploy/grafana/ppbench-fleet.json | adduser | postgresql | performance-portability benchmarking service: API server | ppbenchd takes benchmark jobs over HTTP, keeps the queue, the results and the fleet in PostgreSQL (its own embedded cluster when no database URL is set) and serves the dashboard.
ppbench-worker | bin/ppbench-worker unit/ppbench-worker@.service conf/worker.env=deploy/worker.env.example:600 user lintian/non-standard-file-perm lintian/no-manual-page | adduser | pocl-opencl-icd/opencl-icd | performance-portability benchmarking service: worker | ppbench-worker serves one platform (a CPU or a GPU) of its node: it claims jobs from ppbenchd and runs them with the OpenMP and OpenCL models; ppbench-worker run measures without a server.
ppbench-cli | bin/ppbench lintian/no-manual-page | | | performance-portability benchmarking service: client | ppbench submits jobs to ppbenchd and follows them, and lists jobs, results and platforms.
ppbench-model-cuda | model/libppbench-cuda.so | ppbench-worker (= @V), libcuda1/libcuda.so.1 | | performance-portability benchmarking service: CUDA model | The CUDA model of ppbench-worker (the CUDA runtime linked in), for NVIDIA GPUs; it needs the NVIDIA driver.
ppbench-model-omptarget | model/libppbench-omptarget.so | ppbench-worker (= @V), libgomp-plugin-nvptx1, libcuda1/libcuda.so.1 | | performance-portability benchmarking service: OpenMP offload model (GCC) | The omp-target model of ppbench-worker built by GCC for NVIDIA GPUs; it needs GCC's nvptx offload plugin and the NVIDIA driver.
ppbench-model-omptarget-clang | model/libppbench-omptarget-clang.so lintian/custom-library-search-path | ppbench-worker (= @V), libcuda1/libcuda.so.1 | | performance-portability benchmarking service: OpenMP offload model (clang) | The omp-target model of ppbench-worker built by clang 19 for NVIDIA GPUs; it needs LLVM 19's OpenMP runtime and the NVIDIA driver.
"

describe=$(git describe --always --dirty 2>/dev/null || echo unknown)
if tag=$(git describe --tags --dirty --match 'v[0-9]*' 2>/dev/null); then
    VERSION=$(echo "${tag#v}" | sed 's/-\([0-9]*\)-g/+\1.g/; s/-dirty$/.dirty/')
else
    VERSION=0~$(git rev-list --count HEAD 2>/dev/null || echo 0).g${describe%-dirty}
    [ "$describe" = "${describe%-dirty}" ] || VERSION=$VERSION.dirty
fi
ARCH=$(dpkg --print-architecture)
YEARS=$(git log --reverse --format=%ad --date=format:%Y | sed -n '1p;$p' | uniq | paste -sd-)
trim() { sed 's/^ *//; s/ *$//' <<<"$1"; }

# maintainer scripts: the user, daemon-reload; nothing enabled, nothing started that was not running
scripts() {
    local dir=$1 user=$2 units=$3
    [ -n "$user$units" ] || return 0
    {
        echo '#!/bin/sh'
        echo 'set -e'
        [ -z "$user" ] || cat <<'EOF'
if [ "$1" = configure ]; then
    adduser --system --group --quiet --home /var/lib/ppbench ppbench
fi
EOF
        [ -z "$units" ] || cat <<EOF
# The units are installed, not enabled nor started: the admin does that (deploy/README.md). A running one is
# restarted on upgrade, to run the new binary.
if [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
    if [ "\$1" = configure ] && [ -n "\$2" ]; then
        deb-systemd-invoke try-restart $units >/dev/null || true
    fi
fi
EOF
    } >"$dir/DEBIAN/postinst"
    [ -z "$units" ] || cat >"$dir/DEBIAN/prerm" <<EOF
#!/bin/sh
set -e
if [ -d /run/systemd/system ] && [ "\$1" = remove ]; then
    deb-systemd-invoke stop $units >/dev/null || true
fi
EOF
    [ -z "$units" ] || cat >"$dir/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
# The ppbench user and /var/lib/ppbench (the embedded database) are kept, also on purge.
if [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
fi
EOF
    chmod 755 "$dir"/DEBIAN/p*
}

# Why each lintian override is right (tests/service/deb.sh runs lintian and fails on any other warning).
lintian_reason() {
    case $1 in
    non-standard-file-perm) echo "the .env conffiles hold secrets (the database URL, the worker token); systemd reads them as root" ;;
    no-manual-page) echo "the usage is the program's own (--help, or no arguments); the manual is docs/ and deploy/README.md, in ppbench-server's doc folder" ;;
    custom-library-search-path) echo "libomptarget.so.19.1 (libomp5-19) is only in /usr/lib/llvm-19/lib, not on the linker's path: clang links the model with that RUNPATH" ;;
    *) echo "deb: no reason written for the lintian override $1" >&2 && exit 1 ;;
    esac
}

copyright() {
    cat <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: ppbench

Files: *
Copyright: $YEARS the ppbench authors
License: ppbench
 No licence has been chosen for ppbench yet: all rights reserved by its authors. These packages are built
 for the nodes of the project's own fleet.
EOF
    case $1 in
    ppbench-server) cat <<'EOF'

Files: usr/bin/ppbenchd
Comment: the dashboard embeds Chart.js, from Debian's libjs-chart.js
Copyright: 2014-2021, Chart.js Contributors
License: Expat
 Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
 associated documentation files (the "Software"), to deal in the Software without restriction, including
 without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the
 following conditions:
 .
 The above copyright notice and this permission notice shall be included in all copies or substantial
 portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT
 LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO
 EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN
 AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE
 OR OTHER DEALINGS IN THE SOFTWARE.
EOF
        ;;
    ppbench-model-cuda) cat <<'EOF'

Files: usr/lib/ppbench/libppbench-cuda.so
Comment: the CUDA runtime, linked statically
Copyright: NVIDIA Corporation
License: CUDA-EULA
 The CUDA runtime library (cudart_static) is redistributable in applications under the CUDA Toolkit End
 User License Agreement, Attachment A: https://docs.nvidia.com/cuda/eula/
EOF
        ;;
    esac
}

changelog() {
    printf '%s (%s) unstable; urgency=medium\n\n  * Built from git %s.\n\n -- %s  %s\n' "$1" "$VERSION" \
        "$describe" "$MAINTAINER" "$(git log -1 --format=%aD 2>/dev/null || date -R)"
}

# build_one ROW: one package into $OUT, or a note when its first file was not built
build_one() {
    local name contents depends recommends summary about dir item src dst mode user="" units="" elves=() shl
    IFS='|' read -r name contents depends recommends summary about <<<"$1"
    name=$(trim "$name") depends=$(trim "$depends") recommends=$(trim "$recommends")
    depends=${depends//@V/$VERSION} depends=${depends//\// | } recommends=${recommends//\// | }
    summary=$(trim "$summary") about=$(trim "$about")
    dir=$OUT/stage/debian/$name # where dpkg-shlibdeps expects a package's files
    rm -rf "$dir" && mkdir -p "$dir/DEBIAN" "$dir/usr/share/doc/$name"
    for item in $contents; do
        case $item in
        bin/* | model/*)
            src=$BUILD/${item/#model/lib/ppbench} dst=$dir/usr/${item/#model/lib/ppbench}
            if [ ! -f "$src" ]; then
                echo "deb: $name not built: no $src (see make's notes)"
                rm -rf "$dir"
                return 0
            fi
            mkdir -p "$(dirname "$dst")"
            case $item in
            bin/*) install -m 755 "$src" "$dst" && strip --remove-section=.comment --remove-section=.note "$dst" ;;
            *) install -m 644 "$src" "$dst" && strip --remove-section=.comment --remove-section=.note --strip-unneeded "$dst" ;;
            esac
            elves+=("$dst")
            ;;
        unit/*)
            install -d "$dir/lib/systemd/system"
            sed 's|/usr/local/bin/|/usr/bin/|g' "deploy/${item#unit/}" >"$dir/lib/systemd/system/${item#unit/}"
            chmod 644 "$dir/lib/systemd/system/${item#unit/}"
            units="$units '${item#unit/}'"
            units=${units/@.service/@*.service} # a template: its instances
            ;;
        conf/*)
            dst=${item#conf/} && dst=${dst%%=*} && src=${item#*=} && mode=${src##*:} && src=${src%:*}
            install -D -m "$mode" "$src" "$dir/etc/ppbench/$dst"
            echo "/etc/ppbench/$dst" >>"$dir/DEBIAN/conffiles"
            ;;
        doc/*)
            src=${item#doc/} && dst=$(basename "${src#*=}") && src=${src%%=*}
            gzip -9n <"$src" >"$dir/usr/share/doc/$name/$dst.gz"
            ;;
        user) user=1 ;;
        lintian/*)
            install -d "$dir/usr/share/lintian/overrides"
            printf '# %s\n%s: %s\n' "$(lintian_reason "${item#lintian/}")" "$name" "${item#lintian/}" \
                >>"$dir/usr/share/lintian/overrides/$name"
            ;;
        *) echo "deb: $name: unknown item $item" >&2 && exit 1 ;;
        esac
    done
    copyright "$name" >"$dir/usr/share/doc/$name/copyright"
    changelog "$name" | gzip -9n >"$dir/usr/share/doc/$name/changelog.gz"
    scripts "$dir" "$user" "$(trim "$units")"
    # dpkg-shlibdeps reads debian/control: an empty one
    shl=$(cd "$OUT/stage" && touch debian/control && dpkg-shlibdeps -O "${elves[@]}" | sed -n 's/^shlibs:Depends=//p')
    depends=$(echo "$shl${depends:+, $depends}" | sed 's/^, //')
    {
        echo "Package: $name"
        echo "Version: $VERSION"
        echo "Architecture: $ARCH"
        echo "Maintainer: $MAINTAINER"
        echo "Installed-Size: $(du -sk --exclude=DEBIAN "$dir" | cut -f1)"
        echo "Depends: $depends"
        [ -z "$recommends" ] || echo "Recommends: $recommends"
        echo "Section: misc"
        echo "Priority: optional"
        echo "Description: $summary"
        printf '%s\n.\n%s\n' "$about" "ppbench measures the kernels of performance-portability studies (STREAM, \
Dslash, CG, HACC) through several programming models on every device of a fleet, verifies and stores every \
run, and computes the performance-portability metric PP across them." | fold -s -w 78 | sed 's/ *$//; s/^/ /'
    } >"$dir/DEBIAN/control"
    (cd "$dir" && find . -type f ! -path './DEBIAN/*' ! -path './etc/*' -printf '%P\0' | sort -z | xargs -0 md5sum) \
        >"$dir/DEBIAN/md5sums"
    # gzip: xz would take twice as long for packages of a few MB
    dpkg-deb --root-owner-group -Zgzip --build "$dir" "$OUT/${name}_${VERSION}_$ARCH.deb" >/dev/null
    rm -rf "$dir"
    echo "deb: $OUT/${name}_${VERSION}_$ARCH.deb"
}

rm -rf "$OUT" && mkdir -p "$OUT"
while IFS= read -r row; do
    [ -z "$row" ] || build_one "$row"
done <<<"$PACKAGES"
rm -rf "$OUT/stage"
