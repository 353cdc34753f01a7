# The Debian packages (make deb, scripts/deb.sh) checked by lintian, installed into a fresh root and run there as
# on a node: the installed ppbenchd (as the ppbench user its postinst made, with its conffile) on a real
# PostgreSQL, the installed ppbench-worker serving cpu0, the installed ppbench submitting a STREAM job, over real
# HTTP; then removed and purged. Builds the packages from $BUILD's files (scripts/deb.sh), or takes DEB_DIR's.
#
# The fresh root is a chroot made of the host's own installed packages: the Essential set and the packages'
# Depends, closed over Depends and Pre-Depends (the first installed alternative, a virtual name by its installed
# provider), each copied from the host (its files by dpkg -L, its dpkg status and info files) and nothing else.
# So `dpkg -i` there checks the Depends against exactly that set, the maintainer scripts run for real (adduser
# makes the user), and the binaries find only the libraries that the Depends bring: a Depends left out fails the
# install, ldd or the run. Why not the others: debootstrap and mmdebstrap need a mirror (none here); `dpkg --root`
# runs the maintainer scripts chrooted into a root with no shell (or needs DPKG_ROOT, which adduser lacks);
# `dpkg -x` checks no Depends and runs no script. A GPU node's NVIDIA driver is a stand-in libcuda1 package made
# here (no library in it): the model packages install with it and the worker loads them (their own libraries are
# real); running them needs a GPU (tests/suites/omptarget.sh, bench/gpu). Needs root (chroot, proc and sysfs
# mounts); about a minute, a third of it lintian. KEEP_ROOT=1 leaves the root for a look.
. "$(dirname "$0")/../lib/check.sh"
. "$(dirname "$0")/../lib/pg.sh"
[ "$(id -u)" = 0 ] || { skip "debian packages" "needs root (a chroot with proc and sysfs)"; exit 0; }
command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null ||
    { skip "debian packages" "dpkg-dev not installed"; exit 0; }
[ -x "$BUILD/bin/ppbenchd" ] || { skip "debian packages" "ppbenchd not built"; exit 0; }
ROOT=$TMP/root
PIDS=()

cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for p in "${PIDS[@]}"; do wait_for 10 pid_gone "$p" || kill -KILL "$p" 2>/dev/null; done
    pg_stop_all
    for p in proc sys; do mountpoint -q "$ROOT/$p" && umount -l "$ROOT/$p"; done
    # nothing of the host below the root any more, and never across a file system boundary
    if [ -n "${KEEP_ROOT:-}" ]; then echo "deb.sh: the root left in $ROOT" >&2
    elif grep -q " $ROOT/" /proc/mounts; then echo "deb.sh: left $TMP: still mounted" >&2; else rm -rf --one-file-system "$TMP"; fi
}
trap cleanup EXIT
pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# --- the packages and lintian ---
if [ -n "${DEB_DIR:-}" ]; then
    DEBS=$DEB_DIR
else
    BUILD=$BUILD scripts/deb.sh >"$TMP/deb.log" 2>&1 || { fail "scripts/deb.sh (make deb)" "$(tail -n 3 "$TMP/deb.log" | tr '\n' ' ')"; exit 0; }
    DEBS=$BUILD/deb
fi
deb() { ls "$DEBS"/"$1"_*.deb 2>/dev/null | head -n 1; }
CORE=(ppbench-server ppbench-worker ppbench-cli)
MODELS=()
for m in ppbench-model-cuda ppbench-model-omptarget ppbench-model-omptarget-clang; do [ -z "$(deb $m)" ] || MODELS+=("$m"); done
missing=$(for p in "${CORE[@]}"; do [ -n "$(deb "$p")" ] || echo "$p"; done)
[ -z "$missing" ] && pass "scripts/deb.sh (make deb): server, worker and cli packages (models: ${MODELS[*]:-none built})" ||
    { fail "scripts/deb.sh (make deb): server, worker and cli packages" "missing: $missing"; exit 0; }
if command -v lintian >/dev/null; then
    # errors and warnings fail; the overrides the packages carry (scripts/deb.sh, with their reasons) hold
    out=$(lintian --fail-on error,warning "$DEBS"/*.deb 2>&1)
    [ $? = 0 ] && pass "lintian: no error or warning" || fail "lintian: no error or warning" "$(grep -E '^[EW]:' <<<"$out" | head -n 5 | tr '\n' ' ')"
else
    skip "lintian" "lintian not installed (scripts/deps.sh test installs it)"
fi

# --- the fresh root: the host's Essential packages and the packages' Depends, closed ---
# closure DEB...: the host's installed packages those Depends need, one a line
closure() {
    { dpkg-query -W -f='${db:Status-Abbrev}\t${Package}\t${Essential}\t${Provides}\t${Depends}, ${Pre-Depends}\n'
        for d in "$@"; do printf 'deb\t\t\t\t%s\n' "$(dpkg-deb -f "$d" Depends)"; done; } | python3 -c '
import re, sys
pkgs, provides, todo = {}, {}, []
for line in sys.stdin:
    status, name, essential, prov, deps = line.rstrip("\n").split("\t")
    groups = [[re.sub(r"[ (].*|:any", "", a.strip()) for a in g.split("|")] for g in deps.split(",") if g.strip()]
    if status == "deb":
        todo += groups
        continue
    if not status.startswith("ii"):
        continue
    pkgs[name] = groups
    for p in prov.split(","):
        provides.setdefault(re.sub(r"[ (].*", "", p.strip()), name)
    if essential == "yes":
        todo.append([name])
seen = set()
while todo:
    for alt in todo.pop():
        name = alt if alt in pkgs else provides.get(alt)
        if name:
            if name not in seen:
                seen.add(name)
                todo += pkgs[name]
            break
print("\n".join(sorted(seen)))'
}
mkdir -p "$ROOT" && chmod 755 "$ROOT"
# the models' Depends too, but their NVIDIA driver (no host here has it)
closure $(for p in "${CORE[@]}" "${MODELS[@]}"; do deb "$p"; done) >"$TMP/closure"
for d in bin sbin lib lib32 lib64 libx32; do # merged /usr: bin -> usr/bin, ...
    [ -L "/$d" ] && ln -s "$(readlink "/$d")" "$ROOT/$d" && mkdir -p "$ROOT/$(readlink "/$d")"
done
xargs dpkg-query -L <"$TMP/closure" 2>/dev/null | sort -u | while read -r f; do [ -e "$f" ] || [ -L "$f" ] && echo "${f#/}"; done >"$TMP/files"
tar -C / --no-recursion -cf - -T "$TMP/files" 2>"$TMP/tar.log" | tar -C "$ROOT" --keep-directory-symlink -xf - 2>>"$TMP/tar.log"
mkdir -p "$ROOT"/{proc,sys,dev,tmp,run,var/lib/dpkg/info,var/lib/dpkg/updates,var/lib/dpkg/triggers,etc/systemd/system}
chmod 1777 "$ROOT/tmp"
xargs dpkg-query -s <"$TMP/closure" >"$ROOT/var/lib/dpkg/status"
while read -r p; do cp -a /var/lib/dpkg/info/"$p".* /var/lib/dpkg/info/"$p":*.* "$ROOT/var/lib/dpkg/info/" 2>/dev/null; done <"$TMP/closure"
cp /var/lib/dpkg/info/format "$ROOT/var/lib/dpkg/info/" && touch "$ROOT/var/lib/dpkg/available"
cp /usr/share/base-passwd/passwd.master "$ROOT/etc/passwd" && cp /usr/share/base-passwd/group.master "$ROOT/etc/group"
for n in null zero random urandom; do cp -a "/dev/$n" "$ROOT/dev/"; done
mount -t proc proc "$ROOT/proc" && mount -t sysfs sysfs "$ROOT/sys"
in_root() { chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C "$@"; }
in_root pwconv && in_root grpconv
if in_root dpkg --audit >"$TMP/audit" 2>&1 && [ ! -s "$TMP/audit" ] && ! in_root dpkg-query -W 'ppbench*' >/dev/null 2>&1; then
    pass "a fresh root of $(wc -l <"$TMP/closure") host packages, no ppbench in it"
else
    fail "a fresh root of $(wc -l <"$TMP/closure") host packages, no ppbench in it" "$(head -n 3 "$TMP/audit" | tr '\n' ' ')"
fi

# --- install: the packages, their user, conffiles and units ---
mkdir -p "$ROOT/debs" && cp "$DEBS"/*.deb "$ROOT/debs/"
in_deb() { local p; for p; do p=$(deb "$p") && echo "/debs/${p##*/}"; done; }
expect "dpkg -i the server, worker and cli packages" 0 "Setting up ppbench-server" -- in_root dpkg -i $(in_deb "${CORE[@]}")
if [ ${#MODELS[@]} -gt 0 ]; then
    expect "dpkg -i the model packages: refused without the NVIDIA driver (libcuda1)" 1 "depends on libcuda1 \\| libcuda.so.1" -- \
        in_root dpkg -i $(in_deb "${MODELS[@]}")
    # the driver of a GPU node: an empty stand-in package
    mkdir -p "$TMP/libcuda1/DEBIAN"
    printf 'Package: libcuda1\nVersion: 999\nArchitecture: %s\nMaintainer: deb.sh <root@localhost>\nDescription: stand-in\n' \
        "$(dpkg --print-architecture)" >"$TMP/libcuda1/DEBIAN/control"
    dpkg-deb --root-owner-group -b "$TMP/libcuda1" "$ROOT/debs/libcuda1.deb" >/dev/null
    expect "dpkg -i the model packages with the driver: ${MODELS[*]}" 0 "Setting up ppbench-model" -- \
        in_root sh -c 'dpkg -i /debs/libcuda1.deb && dpkg --configure -a'
fi
status=$(in_root dpkg-query -W -f='${Package} ${Status}\n' 'ppbench*' | sort)
same "every package installed" "$status" "$(printf '%s install ok installed\n' "${CORE[@]}" "${MODELS[@]}" | sort)"
user=$(in_root getent passwd ppbench)
[[ "$user" =~ ^ppbench:x:([0-9]+):[0-9]+:[^:]*:/var/lib/ppbench:/usr/sbin/nologin$ ]] && [ "${BASH_REMATCH[1]}" -lt 1000 ] &&
    pass "postinst made the system user ppbench" || fail "postinst made the system user ppbench" "passwd: '$user'"
conf=$(in_root dpkg-query -W -f='${Conffiles}\n' ppbench-server ppbench-worker | awk 'NF { print $1 }' | sort | tr '\n' ' ')
same "the conffiles" "$conf" "/etc/ppbench/ppbench.conf /etc/ppbench/ppbenchd.env /etc/ppbench/worker.env "
same "the .env conffiles are root's alone" "$(stat -c '%a %U' "$ROOT"/etc/ppbench/*.env | sort -u)" "600 root"
units=""
for u in ppbenchd.service ppbench-worker@.service; do
    exe=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$ROOT/lib/systemd/system/$u" 2>/dev/null)
    [ -n "$exe" ] && [ -x "$ROOT$exe" ] || units="$units $u (ExecStart '$exe')"
done
[ -z "$units" ] && pass "the units run the installed binaries" || fail "the units run the installed binaries" "$units"
enabled=$(find "$ROOT/etc/systemd" "$ROOT/etc/rc"*.d -name '*ppbench*' 2>/dev/null)
[ -z "$enabled" ] && pass "nothing enabled by the maintainer scripts" || fail "nothing enabled by the maintainer scripts" "$enabled"
# every library every installed file links comes from the root, that is from the Depends
notfound=$(for f in $(in_root dpkg -L "${CORE[@]}" "${MODELS[@]}" | grep -E '^/usr/(bin|lib/ppbench)/.'); do
    in_root ldd "$f" | sed -n "s|^\s*\(.*not found\)|$f: \1|p"; done)
nelves=$(in_root dpkg -L "${CORE[@]}" "${MODELS[@]}" | grep -cE '^/usr/(bin|lib/ppbench)/.')
[ "$nelves" -ge 3 ] && [ -z "$notfound" ] && pass "every installed program and model finds its libraries in the fresh root" ||
    fail "every installed program and model finds its libraries in the fresh root" "$nelves files; $(head -n 3 <<<"$notfound" | tr '\n' ' ')"
if [ ${#MODELS[@]} -gt 0 ]; then
    # loaded (the driver's absence is the reason there is no device) rather than "not loaded: <a library>"
    out=$(in_root /usr/bin/ppbench-worker list 2>&1; in_root PPBENCH_OMPTARGET_COMPILER=gcc /usr/bin/ppbench-worker list 2>&1)
    grep -q 'note: cuda: no device: no CUDA driver' <<<"$out" && ! grep -q 'not loaded' <<<"$out" &&
        pass "the installed worker loads the installed models" ||
        fail "the installed worker loads the installed models" "$(grep -m 3 '^note' <<<"$out" | tr '\n' ' ' | head -c 400)"
fi

# --- run: the installed ppbenchd as its user on a real PostgreSQL, the installed worker and CLI, over HTTP ---
if ! pg_start "$ROOT/pg" >"$TMP/pg.log" 2>&1; then
    fail "postgresql for the installed ppbenchd" "$(tail -n 3 "$TMP/pg.log" | tr '\n' ' ')"
    exit 0
fi
chmod 711 "$ROOT/pg" # the socket's folder, for the ppbench user
DBURL="postgresql://ppbench@/ppbench?host=/pg&port=$PGPORT"
# as the ppbench user: an array, not a function, so that `"${AS_PPBENCH[@]}" ... &` is the process itself (a
# backgrounded function is a subshell, and killing it once left the installed ppbenchd running after every run)
AS_PPBENCH=(chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
    setpriv --reuid=ppbench --regid=ppbench --init-groups env HOME=/var/lib/ppbench)
# what an admin does (deploy/README.md): the port, the database, workers as units of their own
port=$(for _ in $(seq 50); do p=$((20000 + RANDOM % 20000)); (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; break; }; done)
URL=http://127.0.0.1:$port
sed -i "s/^listen = .*/listen = 127.0.0.1:$port/; s/^embedded_workers = .*/embedded_workers = false/; s/^noise_repeats = .*/noise_repeats = 0/" \
    "$ROOT/etc/ppbench/ppbench.conf"
echo "PPBENCH_DATABASE_URL=$DBURL" >>"$ROOT/etc/ppbench/ppbenchd.env"
# shellcheck disable=SC2046 # the environment file's lines as words
ppbenchd() { "${AS_PPBENCH[@]}" $(grep -v '^#' "$ROOT/etc/ppbench/ppbenchd.env") /usr/bin/ppbenchd --config /etc/ppbench/ppbench.conf "$@"; }
# shellcheck disable=SC2046
"${AS_PPBENCH[@]}" $(grep -v '^#' "$ROOT/etc/ppbench/ppbenchd.env") /usr/bin/ppbenchd --config /etc/ppbench/ppbench.conf >"$TMP/ppbenchd.log" 2>&1 &
PIDS+=($!)
ready() { grep -qs '^ppbench is ready' "$TMP/ppbenchd.log" || ! kill -0 "${PIDS[0]}"; }
wait_for 30 ready
if grep -q '^ppbench is ready' "$TMP/ppbenchd.log" && [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/readyz")" = 200 ]; then
    pass "the installed ppbenchd runs as ppbench with its conffile and answers /readyz"
else
    fail "the installed ppbenchd runs as ppbench with its conffile and answers /readyz" "$(tail -n 3 "$TMP/ppbenchd.log" | tr '\n' ' ')"
    exit 0
fi
ADMIN=$(ppbenchd token create --role admin 2>>"$TMP/ppbenchd.log")
WTOKEN=$(ppbenchd token create --role worker 2>>"$TMP/ppbenchd.log")
"${AS_PPBENCH[@]}" PPBENCH_WORKER_TOKEN="$WTOKEN" PPBENCH_LLC_BYTES_CPU0=0 PPBENCH_SMBIOS_ROOT=/nonexistent OMP_NUM_THREADS=2 \
    /usr/bin/ppbench-worker serve --server "$URL" --platform cpu0 >"$TMP/worker.log" 2>&1 &
PIDS+=($!)
cpu_idle() {
    CPU=$(curl -s "$URL/api/v1/platforms" | jq -r '.platforms[] | select(.local_id == "cpu0" and .worker.state == "idle") | .id' 2>/dev/null)
    [ -n "$CPU" ]
}
wait_for 20 cpu_idle && pass "the installed ppbench-worker registers cpu0" ||
    fail "the installed ppbench-worker registers cpu0" "$(tail -n 3 "$TMP/worker.log" | tr '\n' ' ')"
expect "the installed ppbench submits a stream job that the installed worker runs" 0 '^Triad +[0-9.]+ .* yes' -- \
    in_root HOME=/root PPBENCH_SERVER="$URL" PPBENCH_TOKEN="$ADMIN" /usr/bin/ppbench submit --suite stream --model openmp \
    --platform "$CPU" --arraysize 5000 --numtimes 4
for p in "${PIDS[@]}"; do kill -TERM "$p"; done
for p in "${PIDS[@]}"; do wait_for 15 pid_gone "$p" || kill -KILL "$p"; done
PIDS=()
in_the_root() { for p in /proc/[0-9]*; do [ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ] && echo "${p#/proc/}"; done; }
left=$(in_the_root)
same "nothing of the installed service left running once stopped" "$left" ""
[ -z "$left" ] || kill -KILL $left

# --- remove and purge ---
all=("${MODELS[@]}" "${CORE[@]}")
out=$(in_root dpkg -r "${all[@]}" 2>&1)
if [ $? = 0 ] && [ ! -e "$ROOT/usr/bin/ppbenchd" ] && [ ! -e "$ROOT/lib/systemd/system/ppbenchd.service" ] &&
    grep -q "^listen = 127.0.0.1:$port" "$ROOT/etc/ppbench/ppbench.conf" 2>/dev/null; then
    pass "dpkg -r: the programs and units gone, the edited conffile kept"
else
    fail "dpkg -r: the programs and units gone, the edited conffile kept" "$(tail -n 3 <<<"$out" | tr '\n' ' ')"
fi
out=$(in_root dpkg -P "${all[@]}" 2>&1)
if [ $? = 0 ] && [ ! -e "$ROOT/etc/ppbench" ] && [ -z "$(in_root dpkg-query -W -f='${Package} ${Status}\n' 'ppbench*' 2>/dev/null |
    grep -v 'not-installed')" ] && in_root getent passwd ppbench >/dev/null; then
    pass "dpkg -P: the conffiles gone, the user kept"
else
    fail "dpkg -P: the conffiles gone, the user kept" "$(tail -n 3 <<<"$out" | tr '\n' ' ')"
fi
