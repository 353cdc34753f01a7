#!/usr/bin/env bash
# The whole service on the GPU machine (issue 16, item 7): ppbenchd with its embedded PostgreSQL and one worker
# serving the GPU, jobs of every suite on cuda and opencl submitted over the API, then checks of the results, PP,
# baselines and /metrics, and the latency from a job's submission to its kernel's start.
#
# That machine (Ubuntu 24.04, glibc 2.39, root, no package manager; ../shared/GPU.md) has no PostgreSQL, libpq or
# libmicrohttpd, so they travel from Debian's packages: `fetch` here downloads postgresql-15, postgresql-client-15,
# libpq5, libmicrohttpd12 and the packages of every other library the binaries load that such a machine may lack
# (apt-get download, dpkg -x; glibc, libstdc++, libgcc_s, zlib, OpenSSL, libcurl, jansson, libgomp, OpenCL and
# NVIDIA's own are taken from the machine), and packs PostgreSQL's programs, modules and share files, jq and curl
# with those libraries into one xz tar. `run` unpacks it into a temporary folder, points LD_LIBRARY_PATH and
# PPBENCH_PG_BINDIR at it (ppbenchd passes LD_LIBRARY_PATH to initdb and pg_ctl), and, as root, runs PostgreSQL
# as an unprivileged user (PPBENCH_PG_USER: postgres, else ubuntu, else one made with useradd; PostgreSQL refuses
# root). Here, without a GPU, `run` serves cpu0 with openmp and opencl (PoCL) and small sizes: the same script,
# tested end to end.
#
#   bench/gpu/service.sh fetch [DIR]     here: DIR (default .gpucarry, ignored by git) gets debs/, root/ and
#                                        carry.tar.xz; prints its size and the carry's total
#   OUT=<folder> bench/gpu/service.sh run
#                                        there (carry: build/bin, build/lib, .gpucarry/carry.tar.xz): OUT gets
#                                        summary.txt (the checks, PASS/FAIL lines, and the latency) and
#                                        service.tar.gz (every document, log and the environment)
# Settings (environment): B (build folder, default build), CARRY (default .gpucarry), MODELS (default "cuda
# opencl" with a GPU, plus omp-target with OFFLOAD_RT, else "openmp opencl"), PLATFORM (default gpu0, else cpu0),
# SIZE (default: the suites' own sizes with a GPU, "small" without; "pp": the GPU's default sizes named, so that
# cpu0 and gpu0 run the same problems; "babelstream": BabelStream's defaults named, or ARRAYSIZE and NUMTIMES, for runners), SUITES (default
# every suite the server lists), PPBENCH_RUNNERS (a runners file the workers read: its runners' names can be MODELS;
# a suite a runner does not measure is refused and logged as such), LATENCY_N (tiny jobs for the latency, default 20), BUDGET_S (default 480),
# OFFLOAD_RT (the folder `bench/gpu/offload.sh pack` made: omp-target's runtimes), CPU_MODELS (models run on cpu0
# too, by a second worker, with SIZE pp: then PP over {cpu0, PLATFORM} per suite and kernel, OUT/pp.txt, and the
# PP cells that are 0 only because of flags), AT_ONCE (1, the default: cpu0's jobs submitted with the GPU's, the
# server keeping one measurement at a time per host; 0: the GPU's jobs first, cpu0's after them). summary.txt
# also says how many results were flagged, how many jobs the noise rule repeated, and each platform's noise.
# GPU2 (e.g. gpu1 on a machine with two GPUs): a worker for it too, PLATFORM's jobs on it at once, and checks
# that the two GPUs ran beside each other while no CPU job ran beside anything; their peers in peers.json.
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${B:-build}
CARRY=${CARRY:-.gpucarry}
PGV=15

# ---------------------------------------------------------------- fetch (here) ----------------------------------
# The libraries taken from the machine there, never carried (GPU.md lists them as present, or they are the C
# and C++ runtimes a newer system has newer copies of).
SYSTEM_LIBS='^(linux-vdso|ld-linux|libc\.|libm\.|libpthread\.|libdl\.|librt\.|libresolv\.|libutil\.|libstdc\+\+\.|libgcc_s\.|libz\.|libssl\.|libcrypto\.|libcurl\.|libjansson\.|libgomp\.|libOpenCL\.|libcuda|libcudart|libcublas|libcusparse|libnvidia)'

if [ "${1:-}" = fetch ]; then
    dir=${2:-$CARRY}
    pgbin=/usr/lib/postgresql/$PGV/bin
    for f in "$pgbin/postgres" "$pgbin/initdb" "$pgbin/pg_ctl" "$pgbin/psql" "$B/bin/ppbenchd" "$B/bin/ppbench-worker"; do
        [ -x "$f" ] || { echo "fetch: $f missing (apt-get install postgresql-$PGV postgresql-client-$PGV; make)" >&2; exit 1; }
    done
    rm -rf "$dir/root" "$dir/carry" && mkdir -p "$dir/debs" "$dir/root" "$dir/carry/lib" || exit 1
    # the programs and modules
    objs=""
    for f in "$pgbin"/{postgres,initdb,pg_ctl,psql} /usr/bin/jq /usr/bin/curl "$B"/bin/ppbench* "$B"/lib/ppbench/*.so \
        /usr/lib/postgresql/$PGV/lib/*.so; do
        # omptarget's modules are not served here (their runtimes travel with bench/gpu/offload.sh)
        case $f in *llvmjit* | *omptarget*) ;; *) [ -e "$f" ] && objs="$objs $f" ;; esac
    done
    # what they need (NEEDED), and what those need in turn, never descending into a library taken from the
    # machine (libcurl's own dependencies stay Ubuntu's)
    : >"$dir/libs.txt"
    todo=$objs
    while [ -n "$todo" ]; do
        next=""
        for o in $todo; do
            for so in $(readelf -d "$o" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
                echo "$so" | grep -Eq "$SYSTEM_LIBS" && continue
                grep -q "^$so " "$dir/libs.txt" && continue
                path=$(ldconfig -p | awk -v so="$so" '$1 == so && /x86-64/ { print $NF; exit }')
                [ -n "$path" ] || { echo "fetch: $so (needed by $o) not found here" >&2; exit 1; }
                echo "$so $path" >>"$dir/libs.txt"
                next="$next $path"
            done
        done
        todo=$next
    done
    pkgs=$(cut -d' ' -f2 "$dir/libs.txt" | xargs -r realpath | xargs -r -n 1 basename | xargs -r dpkg -S 2>/dev/null |
           grep 'x86_64-linux-gnu/' | cut -d: -f1 | sort -u)
    pkgs="$pkgs postgresql-$PGV postgresql-client-$PGV libpq5 libmicrohttpd12 jq curl"
    echo "packages: $(echo $pkgs | tr '\n' ' ')"
    (cd "$dir/debs" && apt-get download $pkgs) >"$dir/download.log" 2>&1 ||
        { echo "fetch: apt-get download failed: $(tail -n 3 "$dir/download.log")" >&2; exit 1; }
    for d in "$dir"/debs/*.deb; do dpkg -x "$d" "$dir/root" || exit 1; done
    # the libraries, under their sonames, from the unpacked packages
    while read -r soname path; do
        src=$(find "$dir/root" -name "$(basename "$(realpath "$path")")" \( -type f -o -type l \) | head -n 1)
        [ -n "$src" ] || { echo "fetch: $soname ($path) not found in the downloaded packages" >&2; exit 1; }
        cp -L "$src" "$dir/carry/lib/$soname"
    done <"$dir/libs.txt"
    # PostgreSQL: its programs, its modules (no JIT: no libLLVM) and share files, in their relative layout, which
    # postgres finds its share folder and modules by
    mkdir -p "$dir/carry/pg/usr/lib/postgresql/$PGV/bin" "$dir/carry/pg/usr/share/postgresql"
    cp -a "$dir/root/usr/lib/postgresql/$PGV/bin"/{postgres,initdb,pg_ctl,psql} "$dir/carry/pg/usr/lib/postgresql/$PGV/bin/"
    cp -a "$dir/root/usr/lib/postgresql/$PGV/lib" "$dir/carry/pg/usr/lib/postgresql/$PGV/"
    rm -rf "$dir/carry/pg/usr/lib/postgresql/$PGV/lib"/{bitcode,llvmjit*}
    cp -a "$dir/root/usr/share/postgresql/$PGV" "$dir/carry/pg/usr/share/postgresql/"
    rm -rf "$dir/carry/pg/usr/share/postgresql/$PGV/man"
    # jq and curl, which the run uses (the machine may have neither)
    mkdir -p "$dir/carry/bin" && cp -a "$dir/root/usr/bin/jq" "$dir/root/usr/bin/curl" "$dir/carry/bin/"
    tar -C "$dir" -cJf "$dir/carry.tar.xz" carry || exit 1
    echo "carried libraries ($(wc -l <"$dir/libs.txt")): $(cut -d' ' -f1 "$dir/libs.txt" | tr '\n' ' ')"
    echo "unpacked: $(du -sh "$dir/carry" | cut -f1); packed: $dir/carry.tar.xz $(du -k "$dir/carry.tar.xz" | cut -f1) KiB"
    echo "with $B/bin and $B/lib: $(du -ck "$B/bin" "$B/lib" "$dir/carry.tar.xz" | tail -n 1 | cut -f1) KiB of the 65536 KiB a call carries"
    echo "carry: $B/bin $B/lib $dir/carry.tar.xz; there: OUT=\$OUT bench/gpu/service.sh run"
    exit 0
fi
[ "${1:-}" = run ] || { sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

# ---------------------------------------------------------------- run (there) -----------------------------------
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
BUDGET_S=${BUDGET_S:-480}
if nvidia-smi -L >/dev/null 2>&1; then GPU=1; else GPU=0; fi
MODELS=${MODELS:-$([ $GPU = 1 ] && echo "cuda opencl${OFFLOAD_RT:+ omp-target}" || echo "openmp opencl")}
PLATFORM=${PLATFORM:-$([ $GPU = 1 ] && echo gpu0 || echo cpu0)}
CPU_MODELS=${CPU_MODELS:-}
SIZE=${SIZE:-$([ -n "$CPU_MODELS" ] && echo pp || { [ $GPU = 1 ] && echo default || echo small; })}
LATENCY_N=${LATENCY_N:-20}
D=$(mktemp -d /tmp/ppbench-service.XXXXXX)
chmod 755 "$D" # the PostgreSQL user must reach the state folder in it
LOG="$D/logs"
mkdir -p "$LOG"
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
check() { if eval "$2"; then say "PASS $1"; else say "FAIL $1${3:+: $3}"; fi; }
spid="" wpid=""
finish() {
    [ -n "$wpid" ] && kill -TERM "$wpid" 2>/dev/null && wait "$wpid" 2>/dev/null
    [ -n "${cwpid:-}" ] && kill -TERM "$cwpid" 2>/dev/null && wait "$cwpid" 2>/dev/null
    [ -n "${gwpid:-}" ] && kill -TERM "$gwpid" 2>/dev/null && wait "$gwpid" 2>/dev/null
    [ -n "$spid" ] && kill -TERM "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
    cp -a "$D/state/pg/log" "$LOG/postgresql.log" 2>/dev/null
    tar -C "$D" -czf "$OUT/service.tar.gz" logs 2>/dev/null
    rm -rf "$D"
    echo "OUT: $OUT (summary.txt, service.tar.gz)"
}
trap finish EXIT

# The carry, unpacked (xz by tar, else by Python)
[ -f "$CARRY/carry.tar.xz" ] || { say "FAIL carry: $CARRY/carry.tar.xz missing (bench/gpu/service.sh fetch here first)"; exit 1; }
tar -C "$D" -xJf "$CARRY/carry.tar.xz" 2>/dev/null ||
    python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$CARRY/carry.tar.xz" "$D" ||
    { say "FAIL carry: cannot unpack $CARRY/carry.tar.xz (no xz, no python3)"; exit 1; }
SYS_LD=${LD_LIBRARY_PATH:-}
# The machine's own jq and curl, if it has them, run with its own libraries: Debian's older copies on the path
# below (libzstd, libldap, ...) would break an Ubuntu curl; carried ones (on PATH last) need the carried libraries.
for t in jq curl; do
    if p=$(command -v "$t"); then eval "$t() { LD_LIBRARY_PATH='$SYS_LD' '$p' \"\$@\"; }"; fi
done
export LD_LIBRARY_PATH=$D/carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
. bench/gpu/lib.sh
[ -n "${OFFLOAD_RT:-}" ] && offload_runtime "$OFFLOAD_RT"
export PPBENCH_PG_BINDIR=$D/carry/pg/usr/lib/postgresql/$PGV/bin
export PATH=$PPBENCH_PG_BINDIR:$PATH:$D/carry/bin
if [ "$(id -u)" = 0 ] && [ -z "${PPBENCH_PG_USER:-}" ]; then
    for u in postgres ubuntu; do id "$u" >/dev/null 2>&1 && { export PPBENCH_PG_USER=$u; break; }; done
    if [ -z "${PPBENCH_PG_USER:-}" ]; then
        if command -v useradd >/dev/null && useradd --system --no-create-home --shell /usr/sbin/nologin ppbench-pg; then
            export PPBENCH_PG_USER=ppbench-pg
        else
            say "FAIL postgresql user: running as root with no user postgres or ubuntu and no useradd; set PPBENCH_PG_USER to an unprivileged user"
            exit 1
        fi
    fi
fi
say "ppbench service on $(hostname): $(date -u +%Y-%m-%dT%H:%M:%SZ), platform $PLATFORM, models $MODELS, sizes $SIZE, PostgreSQL user ${PPBENCH_PG_USER:-$(id -un)}"
missing=$(ldd "$B/bin/ppbenchd" "$B/bin/ppbench-worker" "$PPBENCH_PG_BINDIR/postgres" "$PPBENCH_PG_BINDIR/psql" 2>&1 | grep 'not found' | sort -u | tr -s ' \t\n' ' ')
check "every library of ppbenchd, the worker, postgres and psql is found" '[ -z "$missing" ]' "$missing"
[ -f /usr/share/zoneinfo/UTC ] || say "note: /usr/share/zoneinfo/UTC is missing (Debian's PostgreSQL reads the system's tzdata): TZ=GMT is used"
[ -f /usr/share/zoneinfo/UTC ] || export TZ=GMT
if [ $GPU = 1 ]; then # NVIDIA's OpenCL driver registered beside PoCL; the GPU, its clocks, the CPU: env.txt
    export W=$B/bin/ppbench-worker # lib.sh's name for the worker
    OUT_SAVE=$OUT OUT=$LOG
    gpu_setup >/dev/null 2>&1
    OUT=$OUT_SAVE
else
    { date -u; lscpu | grep -E 'Model name|^CPU\(s\)'; "$B/bin/ppbench-worker" version; "$B/bin/ppbench-worker" list; } >"$LOG/env.txt" 2>&1
fi

# ppbenchd with its embedded PostgreSQL, no supervised workers; one worker for PLATFORM, started below
PORT=$((30000 + RANDOM % 20000))
URL=http://127.0.0.1:$PORT
printf 'listen = 127.0.0.1:%s\nstate_dir = %s/state\nlog_level = notice\nembedded_workers = false\n' "$PORT" "$D" >"$D/conf"
t0=$(date +%s.%N)
"$B/bin/ppbenchd" --config "$D/conf" >"$LOG/ppbenchd.log" 2>&1 &
spid=$!
for _ in $(seq 600); do grep -q '^ppbench is ready' "$LOG/ppbenchd.log" && break; kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
check "ppbenchd starts with its embedded PostgreSQL (initdb, migrations) in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" \
    "grep -q '^ppbench is ready' '$LOG/ppbenchd.log'" "$(tail -n 5 "$LOG/ppbenchd.log" | tr '\n' ' ')"
grep -q '^ppbench is ready' "$LOG/ppbenchd.log" || exit 1
ADMIN=$(cat "$D/state/admin.token")
WTOKEN=$("$B/bin/ppbenchd" token create --role worker --state-dir "$D/state" 2>>"$LOG/ppbenchd.log")
api() { # METHOD PATH [BODY]: the body to stdout
    curl -s -X "$1" -H "Authorization: Bearer $ADMIN" ${3:+-H 'Content-Type: application/json' -d "$3"} "$URL$2"
}
sql() { psql -qAtX "host=$D/state/pg/run dbname=ppbench user=ppbench" -c "$1"; }
"$B/bin/ppbench-worker" serve --server "$URL" --platform "$PLATFORM" --token "$WTOKEN" >"$LOG/worker.log" 2>&1 &
wpid=$!
PID=""
for _ in $(seq 300); do
    PID=$(api GET /api/v1/platforms | jq -r --arg p "$PLATFORM" '.platforms[] | select(.local_id == $p and .worker.state == "idle") | .id' 2>/dev/null)
    [ -n "$PID" ] && break
    sleep 0.2
done
check "the worker registers $PLATFORM and is idle ($PID)" '[ -n "$PID" ]' \
    "$(tail -n 3 "$LOG/worker.log" | tr '\n' ' '); GET /api/v1/platforms: $(api GET /api/v1/platforms 2>&1 | head -c 600)"
[ -n "$PID" ] || exit 1
CPID="" cwpid=""
if [ -n "$CPU_MODELS" ]; then
    "$B/bin/ppbench-worker" serve --server "$URL" --platform cpu0 --token "$WTOKEN" >"$LOG/worker-cpu0.log" 2>&1 &
    cwpid=$!
    for _ in $(seq 300); do
        CPID=$(api GET /api/v1/platforms | jq -r '.platforms[] | select(.local_id == "cpu0" and .worker.state == "idle") | .id' 2>/dev/null)
        [ -n "$CPID" ] && break
        sleep 0.2
    done
    check "a second worker registers cpu0 ($CPID)" '[ -n "$CPID" ]' "$(tail -n 3 "$LOG/worker-cpu0.log" | tr '\n' ' ')"
fi
# A second GPU of the host (GPU2=gpu1 on a machine with two): its own worker, the same jobs as PLATFORM's
G2ID="" gwpid=""
if [ -n "${GPU2:-}" ]; then
    "$B/bin/ppbench-worker" serve --server "$URL" --platform "$GPU2" --token "$WTOKEN" >"$LOG/worker-$GPU2.log" 2>&1 &
    gwpid=$!
    for _ in $(seq 300); do
        G2ID=$(api GET /api/v1/platforms | jq -r --arg p "$GPU2" '.platforms[] | select(.local_id == $p and .worker.state == "idle") | .id' 2>/dev/null)
        [ -n "$G2ID" ] && break
        sleep 0.2
    done
    check "a worker registers $GPU2 ($G2ID)" '[ -n "$G2ID" ]' "$(tail -n 3 "$LOG/worker-$GPU2.log" | tr '\n' ' ')"
fi
api GET /api/v1/platforms >"$LOG/platforms.json"

# Jobs of every suite on each model, one after another (one worker: they queue)
params() { # SUITE: the job's params for SIZE
    if [ "$SIZE" = pp ]; then # the GPU's defaults, named (a CPU's own defaults differ)
        case $1 in
        stream) echo '{"arraysize": 33554432}' ;;
        wilson | staggered) echo '{"lattice": "32x32x32x32"}' ;;
        cg) echo '{"n": 215}' ;;
        hacc) echo '{"leaf_pairs": 65536}' ;;
        *) echo '{}' ;;
        esac
        return
    fi
    if [ "$SIZE" = babelstream ]; then # BabelStream's own defaults, named (a runner needs every value it passes)
        case $1 in
        stream) echo "{\"arraysize\": ${ARRAYSIZE:-33554432}, \"numtimes\": ${NUMTIMES:-100}, \"precision\": \"fp64\"}" ;;
        *) echo '{}' ;;
        esac
        return
    fi
    [ "$SIZE" = small ] || { echo '{}'; return; }
    case $1 in
    stream) echo '{"arraysize": 1048576, "numtimes": 10}' ;;
    wilson) echo '{"lattice": "8x8x8x8", "numtimes": 5}' ;;
    staggered) echo '{"lattice": "8x8x8x8", "runs": 2, "iterations": 5}' ;;
    cg) echo '{"n": 20, "numtimes": 5, "iterations": 10}' ;;
    hacc) echo '{"leaf_pairs": 512, "numtimes": 3}' ;;
    *) echo '{}' ;;
    esac
}
SUITES=${SUITES:-$(api GET /api/v1/suites | jq -r '.suites[].name')}
: >"$LOG/jobs.txt"
# submit_jobs PLATFORM MODELS: a job of every suite on each model, submitted at once (one worker: they queue);
# wait_jobs: each job submitted waited for and checked. AT_ONCE=1 (the default) submits cpu0's jobs with the
# GPU's and lets the server keep them apart (one measurement at a time per host: a CPU job runs alone on its
# host, issue 22); AT_ONCE=0 runs the GPU's jobs first and cpu0's after them, as before that rule.
: >"$LOG/jobs-now.txt"
submit_jobs() {
    local plat=$1 m s id body
    for m in $2; do
        for s in $SUITES; do
            body=$(jq -nc --arg s "$s" --arg m "$m" --arg p "$plat" --argjson params "$(params "$s")" \
                '{suite: $s, model: $m, platform: $p, params: $params, timeout_s: 300}')
            id=$(api POST /api/v1/jobs "$body" | jq -r '.id // empty')
            echo "$s $m ${id:-refused} $plat" | tee -a "$LOG/jobs.txt" >>"$LOG/jobs-now.txt"
        done
    done
}
wait_jobs() {
    local s m id plat st doc m_at
    while read -r s m id plat; do
        [ "$plat" = "$PID" ] && m_at=$m || m_at="$m@${plat#*/}"
        [ "$id" = refused ] && continue
        for _ in $(seq $((BUDGET_S * 4))); do
            st=$(api GET "/api/v1/jobs/$id" | jq -r .state)
            case $st in succeeded | failed | cancelled) break ;; esac
            [ "$SECONDS" -gt "$BUDGET_S" ] && break
            sleep 0.25
        done
        api GET "/api/v1/jobs/$id" >"$LOG/job-$s-$m_at.json"
        doc="$LOG/job-$s-$m_at.json"
        check "$s on $m_at: job $id succeeded, every result verified" \
            "jq -e '.state == \"succeeded\" and (.results | length) > 0 and all(.results[]; .verified)' '$doc' >/dev/null" \
            "$(jq -c '{state, error, results: [.results[]? | {kernel, verified, error}]}' "$doc" | head -c 300)"
        say "  $s $m_at: $(jq -r '[.results[]? | "\(.kernel) \(.bandwidth_bytes_per_s / 1e9 * 100 | round / 100) GB/s \(.gflops * 100 | round / 100) GFLOP/s noise \(if .noise then (.noise.value * 1000 | round / 10 | tostring) + " %" else "-" end)\(if (.flags | length) > 0 then " " + (.flags | join(",")) else "" end)"] | join(", ")' "$doc")$(jq -r 'if (.repeats // 0) > 0 then "; " + .note else "" end' "$doc")"
    done <"$LOG/jobs-now.txt"
    : >"$LOG/jobs-now.txt"
}
AT_ONCE=${AT_ONCE:-1}
submit_jobs "$PID" "$MODELS"
[ -n "$G2ID" ] && submit_jobs "$G2ID" "$MODELS"
if [ -n "$CPID" ] && [ "$AT_ONCE" = 1 ]; then
    submit_jobs "$CPID" "$CPU_MODELS"
    wait_jobs
else
    wait_jobs
    if [ -n "$CPID" ]; then submit_jobs "$CPID" "$CPU_MODELS"; wait_jobs; fi
fi
# One measurement at a time per host: no CPU job ran beside another job; with two GPUs, their jobs ran beside
# each other (the job documents' started_at and finished_at; a repeated job's span covers its attempts)
cat "$LOG"/job-*.json | jq -s -r '[.[] | select(.started_at and .finished_at) | {id, p: .ran_on, s: .started_at, f: .finished_at}]
    | . as $j | [$j[] as $a | $j[] as $b | select($a.id < $b.id and $a.p != $b.p and $a.s < $b.f and $b.s < $a.f)
    | "\($a.p)+\($b.p)"] | group_by(.) | map("\(.[0]) \(length)") | "overlapping jobs by platform pair: " + (if length == 0 then "none" else join(", ") end)' |
    tee -a "$SUMMARY" >"$LOG/overlaps.txt"
if [ -n "$CPID" ]; then
    check "no cpu0 job ran beside another job of the host" "! grep -q '$CPID' '$LOG/overlaps.txt'" "$(cat "$LOG/overlaps.txt")"
fi
if [ -n "$G2ID" ]; then
    check "the two GPUs' jobs ran beside each other" "grep -q '$PID+$G2ID\\|$G2ID+$PID' '$LOG/overlaps.txt'" "$(cat "$LOG/overlaps.txt")"
fi
# What the noise rule did: results flagged of all, jobs repeated, and each platform's noise (the statistic of
# its figures, docs/METHODOLOGY.md "Noise")
cat "$LOG"/job-*.json | jq -s -r '[.[] | .results[]?] as $r | [.[] | select((.repeats // 0) > 0)] as $rep |
    "noise: \($r | map(select(.flags | index("noisy"))) | length) of \($r | length) results flagged noisy, \($r | map(select((.flags | length) > 0)) | length) flagged at all; \($rep | length) jobs repeated (\($rep | map(.repeats) | add // 0) repeats)",
    ($r | group_by(.platform)[] | "noise on \(.[0].platform): median \(map(.noise.value // empty) | sort | .[length / 2 | floor] * 1000 | round / 10) %, max \(map(.noise.value // empty) | max * 1000 | round / 10) % over \(length) results")' |
    tee -a "$SUMMARY"

# PP, baselines, health, /metrics
# (flagged results count here: small sizes on a CPU are cache-resident, and a busy host makes samples noisy)
api GET "/api/v1/pp?problem=stream.triad&platforms=$PID&include_flagged=true" >"$LOG/pp-stream-triad.json"
check "PP of stream.triad on $PLATFORM: above 0 for each of $MODELS" \
    "jq -e --argjson ms '$(printf '%s\n' $MODELS | jq -R . | jq -sc .)' '[.applications[] | select(.pp > 0) | .model] as \$got | all(\$ms[]; . as \$m | \$got | index(\$m) != null)' '$LOG/pp-stream-triad.json' >/dev/null" \
    "$(head -c 300 "$LOG/pp-stream-triad.json")"
api GET "/api/v1/baselines?platform=$PID" >"$LOG/baselines.json"
if [ -n "$G2ID" ]; then # the two identical GPUs are each other's peers (same device model and driver)
    sleep 2 # the notifier folds pending peer changes once a second
    sql "SELECT suite || '.' || kernel || ' ' || model || ' ' || precision || ' ' || size || ': ' || array_to_string(ids, ' ')
         FROM peer_groups WHERE ids @> ARRAY['$PID', '$G2ID'] ORDER BY 1" >"$LOG/peers.txt" 2>&1
    check "the two GPUs are peers in $(grep -c . "$LOG/peers.txt") problems" '[ "$(grep -c . "$LOG/peers.txt")" -gt 0 ]' \
        "$(head -c 300 "$LOG/peers.txt")"
fi
nprob=$(api GET "/api/v1/results?platform=$PID&limit=1000" | tee "$LOG/results.json" |
        jq '[.results[] | select(.verified and (.flags | length) == 0) | [.suite, .kernel, .model, .variant, .precision, .size]] | unique | length')
check "a baseline for every problem measured ($nprob)" \
    "[ \"\$(jq '.baselines | length' '$LOG/baselines.json')\" = '$nprob' ]" "$(jq '.baselines | length' "$LOG/baselines.json") baselines"
api GET /api/v1/health >"$LOG/health.json"
check "health: $PLATFORM judged ($(jq -r --arg p "$PID" '.platforms[] | select(.id == $p) | .state' "$LOG/health.json"))" \
    "jq -e --arg p '$PID' '.platforms[] | select(.id == \$p) | .state != \"never_measured\"' '$LOG/health.json' >/dev/null"
curl -s "$URL/metrics" >"$LOG/metrics.txt"
check "/metrics: the platform's figures and baselines, jobs by state" \
    "grep -q 'ppbench_result_bytes_per_second{.*platform=\"$PID\"' '$LOG/metrics.txt' && grep -q '^ppbench_jobs{state=\"succeeded\"} [1-9]' '$LOG/metrics.txt'" \
    "$(grep -c '^ppbench_' "$LOG/metrics.txt") series"

# PP over {cpu0, PLATFORM} of every suite's kernels (paper 002's harmonic mean of application efficiencies),
# per model as the API computes it, and for "OpenMP" as one application (openmp on cpu0, omp-target on the GPU:
# on each platform the better of the two, computed here from the API's efficiencies; docs/METHODOLOGY.md)
if [ -n "$CPID" ]; then
    : >"$OUT/pp.txt"
    for s in $SUITES; do
        for k in $(api GET /api/v1/suites | jq -r --arg s "$s" '.suites[] | select(.name == $s) | .kernels[]'); do
            api GET "/api/v1/pp?problem=$s.$k&platforms=$CPID,$PID${G2ID:+,$G2ID}" >"$LOG/pp-$s.$k.json"
            jq -r --arg c "$CPID" --arg g "$PID" '
                def eff($a; $p): ($a.efficiencies[] | select(.platform == $p) | .efficiency) // 0;
                def hm($x; $y): if $x > 0 and $y > 0 then 2 / (1 / $x + 1 / $y) else 0 end;
                def r: . * 1000 | round / 1000;
                (.applications | map({(.model): .}) | add // {}) as $m |
                "\(.problem) \(.precision) size \(.size): " +
                ([.applications[] | "\(.model) \(.pp // "n/a" | if type == "number" then r else . end) (cpu \(eff(.; $c) | r), gpu \(eff(.; $g) | r))"] | join(", ")) +
                (if $m.openmp and $m["omp-target"] then
                    ([eff($m.openmp; $c), eff($m["omp-target"]; $c)] | max) as $ec |
                    ([eff($m.openmp; $g), eff($m["omp-target"]; $g)] | max) as $eg |
                    "; OpenMP (openmp + omp-target) \(hm($ec; $eg) | r)" else "" end)' \
                "$LOG/pp-$s.$k.json" >>"$OUT/pp.txt" 2>>"$LOG/pp-errors.txt"
        done
    done
    zero=$(cat "$LOG"/pp-*.*.json | jq -s '[.[] | .applications[]? | select(.pp == 0 and ((.pp_note // "") | test("all flagged")))] | length')
    say "PP cells 0 only because of flags (the API's default, without include_flagged): $zero"
    check "PP over {$CPID, $PID} for every kernel" '[ "$(grep -c . "$OUT/pp.txt")" -gt 0 ] && [ ! -s "$LOG/pp-errors.txt" ]' \
        "$(head -c 300 "$LOG/pp-errors.txt")"
    cat "$OUT/pp.txt"
fi

# Submission to kernel start on the idle worker: LATENCY_N tiny STREAM copies, one at a time; the kernel's start
# is the job's first progress event (posted after the first timed iteration: an upper bound)
lm=$(echo "$MODELS" | cut -d' ' -f1)
for _ in $(seq "$LATENCY_N"); do
    [ "$SECONDS" -gt "$BUDGET_S" ] && break
    id=$(api POST /api/v1/jobs "{\"suite\":\"stream\",\"model\":\"$lm\",\"platform\":\"$PID\",\"kernels\":[\"copy\"],\"params\":{\"arraysize\":1000,\"numtimes\":50},\"tags\":[\"latency\"]}" | jq -r .id)
    for _ in $(seq 400); do
        st=$(api GET "/api/v1/jobs/$id" | jq -r .state)
        [ "$st" = succeeded ] || [ "$st" = failed ] && break
        sleep 0.05
    done
done
lat=$(sql "WITH l AS (SELECT extract(epoch FROM j.claimed_at - j.created_at) * 1000 AS claim_ms,
        extract(epoch FROM (SELECT min(at) FROM job_events e WHERE e.job_id = j.id AND e.kind = 'progress') - j.created_at) * 1000 AS start_ms
        FROM jobs j WHERE j.state = 'succeeded' AND j.tags @> ARRAY['latency'])
  SELECT format('submission to claim: median %s ms, max %s ms; submission to kernel start (first progress): median %s ms, p90 %s ms, max %s ms (n=%s, model $lm)',
    round(percentile_cont(0.5) WITHIN GROUP (ORDER BY claim_ms)::numeric, 1), round(max(claim_ms)::numeric, 1),
    round(percentile_cont(0.5) WITHIN GROUP (ORDER BY start_ms)::numeric, 1),
    round(percentile_cont(0.9) WITHIN GROUP (ORDER BY start_ms)::numeric, 1), round(max(start_ms)::numeric, 1), count(*)) FROM l")
check "latency measured" '[ -n "$lat" ]'
say "$lat"
say "$(grep -c '^PASS' "$SUMMARY") passed, $(grep -c '^FAIL' "$SUMMARY") failed; $SECONDS s"
