# tests/lib/pg.sh: a real, throwaway PostgreSQL for the tests. Source it (bash), then:
#   pg_start DIR            initdb (first time) and start a cluster in DIR/data with its socket in DIR (no TCP);
#                           creates role and database `ppbench` (the role is the cluster's superuser) and exports
#                           PGHOST, PGPORT, PGUSER, PGDATABASE and PPBENCH_DATABASE_URL (libpq key=value)
#   pg_stop DIR             stop it: fast, else immediate, else kill -9; nothing of it runs afterwards
#   pg_sql SQL              run SQL with psql on the last started cluster; prints rows unaligned, no headers
#   pg_stop_all             stop every cluster this shell started (for an EXIT trap, before removing DIR)
#   pg_shared DIR           the run's cluster: the one tests/run.sh started ($PPBENCH_TEST_PG, its DIR), else
#                           pg_start DIR (the test's own); exports PGHOST, PGPORT, PGUSER (PGDATABASE=postgres)
#   pg_template_db NAME PPBENCHD
#                           create database NAME from the cluster's template `ppbench_template`, which holds the
#                           schema: made on first use by `PPBENCHD migrate`, under a lock (tests run in parallel)
# PostgreSQL refuses to run as root: as root (CI), the cluster runs as $PPBENCH_PG_USER, default `postgres`, which
# then owns DIR; a root-owned 0700 parent under $TMPDIR or /tmp (mktemp -d) is made searchable (o+x) for it.
# Clients connect as whoever runs the test: root passes the 0700 socket directory, a normal user owns it.
# Server binaries: $PPBENCH_PG_BINDIR, else the newest /usr/lib/postgresql/*/bin, else pg_ctl on PATH. $PG_PORT
# (default 5432) names the socket file, .s.PGSQL.<port>: clusters in different directories never collide.
# Settings favour speed over durability (fsync off): a throwaway cluster, not the product's.
# Functions return non-zero with a message on stderr when something fails; they never exit the caller.

_PG_DIRS=()

_pg_bindir() {
    local best
    if [ -n "${PPBENCH_PG_BINDIR:-}" ]; then
        echo "$PPBENCH_PG_BINDIR"
        return
    fi
    best=$(for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && echo "$d"; done | sort -V | tail -n 1)
    if [ -z "$best" ] && command -v pg_ctl >/dev/null 2>&1; then
        best=$(dirname "$(readlink -f "$(command -v pg_ctl)")")
    fi
    echo "$best"
}

PG_BINDIR=$(_pg_bindir)

_pg_user() {
    [ "$(id -u)" -eq 0 ] && echo "${PPBENCH_PG_USER:-postgres}"
}

# _pg_as DIR CMD...: run a server command as the cluster's user, in DIR, with a clean locale.
_pg_as() {
    local dir=$1 user
    shift
    user=$(_pg_user)
    if [ -n "$user" ]; then
        (cd "$dir" && LC_ALL=C setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups -- "$@")
    else
        (cd "$dir" && LC_ALL=C "$@")
    fi
}

# As root: DIR belongs to the cluster's user, who must reach it through its parents.
_pg_prepare_dir() {
    local dir=$1 user p
    user=$(_pg_user)
    [ -n "$user" ] || return 0
    if ! id "$user" >/dev/null 2>&1; then
        echo "pg.sh: postgresql refuses to run as root and user $user does not exist: install postgresql or set PPBENCH_PG_USER" >&2
        return 1
    fi
    chown "$user:" "$dir" && chmod 700 "$dir" || return 1
    if ! _pg_as / test -w "$dir"; then
        p=$(dirname "$dir")
        while [ "$p" != / ]; do
            case "$p" in "${TMPDIR:-/tmp}"/* | /tmp/*) [ -O "$p" ] && chmod o+x "$p" ;; esac
            p=$(dirname "$p")
        done
    fi
    if ! _pg_as / test -w "$dir"; then
        echo "pg.sh: user $user cannot reach $dir (a parent directory is not searchable)" >&2
        return 1
    fi
}

_pg_ctl_start() {
    local dir=$1 port
    port=$(cat "$dir/port")
    if ! _pg_as "$dir" "$PG_BINDIR/pg_ctl" start -D "$dir/data" -l "$dir/log" -w -t 30 -s \
        -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c port=$port -c fsync=off \
            -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=32MB -c max_connections=200"; then
        echo "pg.sh: postgresql did not start in $dir; its log ends:" >&2
        tail -n 5 "$dir/log" >&2
        return 1
    fi
}

pg_start() {
    local dir=$1 port=${PG_PORT:-5432}
    PG_BINDIR=$(_pg_bindir)
    if [ -z "$PG_BINDIR" ] || [ ! -x "$PG_BINDIR/initdb" ]; then
        echo "pg.sh: postgresql server binaries not found: install postgresql or set PPBENCH_PG_BINDIR" >&2
        return 1
    fi
    mkdir -p "$dir" && dir=$(cd "$dir" && pwd -P) || return 1
    case "$dir" in *[[:space:]\'\",\\]*)
        echo "pg.sh: $dir: blanks, quotes, commas and backslashes are not supported" >&2
        return 1
        ;;
    esac
    if [ $((${#dir} + 16)) -gt 107 ]; then
        echo "pg.sh: $dir is too long for a unix socket path" >&2
        return 1
    fi
    _pg_prepare_dir "$dir" || return 1
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        if ! _pg_as "$dir" "$PG_BINDIR/initdb" -D "$dir/data" -U ppbench -A trust -E UTF8 --no-locale --no-sync \
            >"$dir/initdb.log" 2>&1; then
            echo "pg.sh: initdb failed:" >&2
            tail -n 5 "$dir/initdb.log" >&2
            return 1
        fi
    fi
    echo "$port" >"$dir/port"
    _pg_ctl_start "$dir" || return 1
    _PG_DIRS+=("$dir")
    export PGHOST=$dir PGPORT=$port PGUSER=ppbench PGDATABASE=postgres
    if [ "$(pg_sql "SELECT count(*) FROM pg_database WHERE datname = 'ppbench'")" != 1 ] &&
        ! pg_sql "CREATE DATABASE ppbench" >/dev/null; then
        echo "pg.sh: cannot create database ppbench" >&2
        return 1
    fi
    export PGDATABASE=ppbench
    export PPBENCH_DATABASE_URL="host=$dir port=$port dbname=ppbench user=ppbench"
}

# _pg_kill_rest DIR: kill -9 whatever runs in DIR/data (a postmaster and its backends chdir there), wait until it
# has gone (a zombie no longer counts: its cwd is unreadable) and drop the lock files it left.
_pg_kill_rest() {
    local dir=$1 p alive
    for _ in $(seq 100); do
        alive=0
        for p in /proc/[0-9]*; do
            [ "$(readlink "$p/cwd" 2>/dev/null)" = "$dir/data" ] || continue
            alive=1
            kill -9 "${p#/proc/}" 2>/dev/null
        done
        [ $alive = 0 ] && break
        sleep 0.05
    done
    rm -f "$dir/data/postmaster.pid" "$dir"/.s.PGSQL.*.lock
}

_pg_down() {
    local dir=$1 mode=${2:-fast}
    [ -f "$dir/data/postmaster.pid" ] || return 0
    if [ "$mode" = kill ]; then # a crash: the postmaster and its backends die at once
        kill -9 "$(head -n 1 "$dir/data/postmaster.pid")" 2>/dev/null
        _pg_kill_rest "$dir"
        return 0
    fi
    _pg_as "$dir" "$PG_BINDIR/pg_ctl" stop -D "$dir/data" -m "$mode" -w -t 20 -s >/dev/null 2>&1 ||
        _pg_as "$dir" "$PG_BINDIR/pg_ctl" stop -D "$dir/data" -m immediate -w -t 10 -s >/dev/null 2>&1 ||
        _pg_kill_rest "$dir"
}

pg_stop() {
    local dir=$1 d rest=()
    [ -d "$dir" ] || return 0
    dir=$(cd "$dir" && pwd -P)
    _pg_down "$dir" fast
    for d in "${_PG_DIRS[@]}"; do [ "$d" != "$dir" ] && rest+=("$d"); done
    _PG_DIRS=("${rest[@]}")
}

pg_sql() {
    "$PG_BINDIR/psql" -X -A -t -q -v ON_ERROR_STOP=1 -c "$1"
}

pg_stop_all() {
    local d
    for d in "${_PG_DIRS[@]}"; do pg_stop "$d"; done
}

pg_shared() {
    local dir=${PPBENCH_TEST_PG:-}
    if [ -z "$dir" ]; then
        pg_start "$1" || return 1
        dir=$PGHOST
    fi
    export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=ppbench PGDATABASE=postgres
}

pg_template_db() {
    local name=$1 bin=$2
    (
        flock 9 || exit 1
        if [ "$(pg_sql "SELECT count(*) FROM pg_database WHERE datname = 'ppbench_template'")" != 1 ]; then
            pg_sql "CREATE DATABASE ppbench_template" >/dev/null &&
                "$bin" --database "host=$PGHOST port=$PGPORT dbname=ppbench_template user=$PGUSER" migrate >/dev/null || {
                pg_sql "DROP DATABASE IF EXISTS ppbench_template" >/dev/null
                echo "pg.sh: $bin migrate failed on the template database" >&2
                exit 1
            }
        fi
        pg_sql "CREATE DATABASE \"$name\" TEMPLATE ppbench_template" >/dev/null
    ) 9>"$PGHOST/template.lock"
}
