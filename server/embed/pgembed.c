/*
 * pgembed: the embedded PostgreSQL cluster that ppbenchd starts when no database URL is configured.
 *
 * Layout, all under <state_dir>/pg (mode 0700, owned by the user the cluster runs as):
 *   data/  the cluster (initdb on first start)     run/  the Unix socket (listen_addresses = '': no TCP)
 *   log    the server's log (pg_ctl -l), moved to log.old past 16 MiB at each start
 *
 * Who runs it: PostgreSQL refuses to run as root. When ppbenchd's euid is 0, initdb and pg_ctl (hence
 * postgres) run as $PPBENCH_PG_USER, default Debian's `postgres` user; never `nobody`, a user that unrelated
 * daemons share. Otherwise they run as ppbenchd's own user. Children start with fork + setgroups (the list
 * initgroups would set, looked up before the fork) + setgid + setuid + execve: no shell, no su, a clean
 * environment (only LD_LIBRARY_PATH passes, so that a PostgreSQL carried with its libraries to a machine
 * without them runs: bench/gpu/service.sh), no inherited descriptors, blocked signals or ignored
 * dispositions.
 *
 * Why `initdb -A trust` is safe here: the socket's directory run/ and its parent pg/ are 0700 and owned by
 * the cluster's user, and the socket file itself is 0700 (unix_socket_permissions); there is no TCP listener.
 * Only that user and root can connect, and ppbenchd is one of them: root (which bypasses directory
 * permissions) or the owner itself. The role `ppbench` is the bootstrap superuser of this private cluster
 * (initdb -U ppbench) and owns the database `ppbench`, created on first start: superuser of a cluster that
 * holds only ppbench's data and that nobody else can reach grants nothing the process does not already have.
 *
 * Lifetime: pg_ctl detaches the postmaster, so a ppbenchd restarted after a crash finds the cluster running
 * and reuses it; after kill -9 of the postmaster, pg_ctl start recovers from the stale postmaster.pid.
 * pgembed_stop stops the cluster. pgembed_start and pgembed_stop run on ppbenchd's main thread; pgembed_alive
 * only reads, from any thread. Children are waited for by pid, so nothing else in the process may
 * waitpid(-1).
 */
#include "server/embed/pgembed.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "server/spawn.h"

#define PG_DEFAULT_PORT 5432
#define PG_WAIT_S       60
#define PG_LOG_ROTATE   (16L << 20)
#define PG_MAX_GROUPS   64
#define PG_SOCKET_PATH  107 /* sizeof(sun_path) - 1 */
#define PG_DEBIAN_ROOT  "/usr/lib/postgresql"
#define PG_INSTALL_HINT "install them (Debian: apt-get install postgresql) or set PPBENCH_PG_BINDIR"
#define PG_SERVER_OPTIONS                                                                                    \
    "-c shared_buffers=128MB -c work_mem=16MB -c maintenance_work_mem=64MB "                                 \
    "-c fsync=on -c synchronous_commit=on -c full_page_writes=on "                                           \
    "-c log_min_duration_statement=1000"

struct pgembed {
    char bindir[PATH_MAX];
    char dir[PATH_MAX]; /* <state_dir>/pg, canonical */
    char data[PATH_MAX];
    char run[PATH_MAX];
    char log[PATH_MAX];
    char user[64]; /* "" when the cluster runs as ppbenchd's own user */
    uid_t uid;
    gid_t gid;
    gid_t groups[PG_MAX_GROUPS];
    int ngroups;
    int port;
};

static int has_server_bins(const char *dir)
{
    static const char *const names[] = {"initdb", "pg_ctl", "postgres"};
    char path[PATH_MAX];

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        if (access(path, X_OK) != 0)
            return 0;
    }
    return 1;
}

/* $PPBENCH_PG_BINDIR, else the cluster's major version or the newest in /usr/lib/postgresql, else PATH. */
static int find_bindir(const char *major, char *out, size_t size, struct pp_error *err)
{
    const char *env = getenv("PPBENCH_PG_BINDIR");
    char path[PATH_MAX], real[PATH_MAX], *copy, *save = NULL;
    long best = -1;
    DIR *d;

    if (env && *env) {
        if (!has_server_bins(env))
            return pp_error_set(err, "PPBENCH_PG_BINDIR=%s has no initdb, pg_ctl and postgres", env);
        snprintf(out, size, "%s", env);
        return 0;
    }
    snprintf(path, sizeof(path), PG_DEBIAN_ROOT "/%s/bin", major);
    if (*major && has_server_bins(path)) {
        snprintf(out, size, "%s", path);
        return 0;
    }
    if ((d = opendir(PG_DEBIAN_ROOT))) {
        struct dirent *e;
        while ((e = readdir(d))) {
            char *end;
            long v = strtol(e->d_name, &end, 10);
            snprintf(path, sizeof(path), PG_DEBIAN_ROOT "/%s/bin", e->d_name);
            if (end != e->d_name && !*end && v > best && has_server_bins(path)) {
                best = v;
                snprintf(out, size, "%s", path);
            }
        }
        closedir(d);
        if (best >= 0)
            return 0;
    }
    if (!(copy = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin")))
        return pp_error_set(err, "out of memory");
    for (char *p = strtok_r(copy, ":", &save); p && best < 0; p = strtok_r(NULL, ":", &save)) {
        snprintf(path, sizeof(path), "%s/pg_ctl", p);
        if (realpath(path, real) && (*strrchr(real, '/') = '\0', has_server_bins(real))) {
            snprintf(out, size, "%s", real); /* pg_ctl finds postgres next to its real path */
            best = 0;
        }
    }
    free(copy);
    if (best >= 0)
        return 0;
    return pp_error_set(err,
                        "postgresql server binaries (initdb, pg_ctl, postgres) not found: " PG_INSTALL_HINT);
}

static int resolve_user(struct pgembed *pg, struct pp_error *err)
{
    const char *name = getenv("PPBENCH_PG_USER");
    struct passwd pw, *res = NULL;
    char buf[4096];
    int n = PG_MAX_GROUPS;

    if (geteuid() != 0) {
        pg->user[0] = '\0';
        pg->uid = geteuid();
        pg->gid = getegid();
        return 0;
    }
    if (!name || !*name)
        name = "postgres";
    if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) != 0 || !res)
        return pp_error_set(
            err,
            "postgresql refuses to run as root and user \"%s\" does not exist: install postgresql "
            "(Debian creates the user postgres) or set PPBENCH_PG_USER to an unprivileged user",
            name);
    if (pw.pw_uid == 0)
        return pp_error_set(err, "PPBENCH_PG_USER=%s is root: postgresql needs an unprivileged user", name);
    snprintf(pg->user, sizeof(pg->user), "%s", name);
    pg->uid = pw.pw_uid;
    pg->gid = pw.pw_gid;
    if (getgrouplist(name, pw.pw_gid, pg->groups, &n) < 0) {
        pg->groups[0] = pw.pw_gid;
        n = 1;
    }
    pg->ngroups = n;
    return 0;
}

/* In a forked child: become the cluster's user. Async-signal-safe calls only. */
static int child_drop_privileges(const struct pgembed *pg)
{
    if (!pg->user[0])
        return 0;
    if (setgroups((size_t)pg->ngroups, pg->groups) != 0 || setgid(pg->gid) != 0 || setuid(pg->uid) != 0)
        return -1;
    return setuid(0) == 0 ? -1 : 0; /* must be irreversible */
}

/*
 * Run argv as the cluster's user with the output (stdout and stderr) captured into out (its tail when long).
 * Returns the exit status (128 + signal when killed), or -1 with err filled when it could not be run.
 */
static int run_cmd(const struct pgembed *pg, char *const argv[], char *out, size_t outsz,
                   struct pp_error *err)
{
    char home[PATH_MAX + 8], user[80], path[PATH_MAX + 32], libs[PATH_MAX + 32];
    const char *ld = getenv("LD_LIBRARY_PATH");
    char *envp[] = {path, home, user, "LC_ALL=C", "LANG=C", ld && *ld ? libs : NULL, NULL};
    char buf[8192];
    size_t len = 0;
    int fds[2], status;
    pid_t pid;
    ssize_t n;

    snprintf(path, sizeof(path), "PATH=%s:/usr/bin:/bin", pg->bindir);
    snprintf(home, sizeof(home), "HOME=%s", pg->dir);
    snprintf(user, sizeof(user), "USER=%s", pg->user[0] ? pg->user : "ppbench");
    snprintf(libs, sizeof(libs), "LD_LIBRARY_PATH=%s", ld ? ld : "");
    if (pipe2(fds, O_CLOEXEC) != 0)
        return pp_error_set(err, "pipe: %s", strerror(errno));
    if ((pid = fork()) < 0) {
        close(fds[0]);
        close(fds[1]);
        return pp_error_set(err, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        static const char msg[] = "cannot execute or cannot switch user for ";
        spawn_child_reset(fds[1]);
        if (child_drop_privileges(pg) == 0 && chdir(pg->dir) == 0)
            execve(argv[0], argv, envp);
        if (write(2, msg, sizeof(msg) - 1) > 0 && write(2, argv[0], strlen(argv[0])) > 0) {
        }
        _exit(127);
    }
    close(fds[1]);
    for (;;) {
        n = read(fds[0], buf + len, sizeof(buf) - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
        if (len == sizeof(buf) - 1) { /* keep the tail: errors come last */
            memmove(buf, buf + len / 2, len - len / 2);
            len -= len / 2;
        }
    }
    close(fds[0]);
    buf[len] = '\0';
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return pp_error_set(err, "waitpid: %s", strerror(errno));
    /* One line for an error message, its tail when long: trailing newlines go, the others become blanks. */
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
        buf[--len] = '\0';
    for (char *p = buf; (p = strchr(p, '\n'));)
        *p = ' ';
    snprintf(out, outsz, "%s", len + 1 > outsz ? buf + len + 1 - outsz : buf);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* 0 when the cluster's user can read, write and search dir (checked in a child that became that user). */
static int user_can_reach(const struct pgembed *pg, const char *dir)
{
    int status;
    pid_t pid = fork();

    if (pid < 0)
        return -1;
    if (pid == 0)
        _exit(child_drop_privileges(pg) == 0 && access(dir, R_OK | W_OK | X_OK) == 0 ? 0 : 1);
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* A directory of the cluster's user, mode 0700 (created when missing). */
static int own_dir(const struct pgembed *pg, const char *dir, struct pp_error *err)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return pp_error_set(err, "cannot create %s: %s", dir, strerror(errno));
    if (pg->user[0] && chown(dir, pg->uid, pg->gid) != 0)
        return pp_error_set(err, "cannot chown %s to %s: %s", dir, pg->user, strerror(errno));
    if (chmod(dir, 0700) != 0)
        return pp_error_set(err, "cannot chmod %s: %s", dir, strerror(errno));
    return 0;
}

/* The directories, owned by the cluster's user and reachable by it. */
static int prepare_dirs(struct pgembed *pg, const char *state_dir, struct pp_error *err)
{
    char state[PATH_MAX];
    struct stat st;

    if ((mkdir(state_dir, 0755) != 0 && errno != EEXIST) || !realpath(state_dir, state))
        return pp_error_set(err, "state directory %s: %s", state_dir, strerror(errno));
    snprintf(pg->dir, sizeof(pg->dir), "%s/pg", state);
    snprintf(pg->data, sizeof(pg->data), "%s/data", pg->dir);
    snprintf(pg->run, sizeof(pg->run), "%s/run", pg->dir);
    snprintf(pg->log, sizeof(pg->log), "%s/log", pg->dir);
    if (strpbrk(pg->dir, "'\",\\ \t\n\r"))
        return pp_error_set(err,
                            "state directory %s: quotes, commas, backslashes and blanks are not supported "
                            "in the embedded postgresql's path",
                            state);
    if (strlen(pg->run) + strlen("/.s.PGSQL.65535") > PG_SOCKET_PATH)
        return pp_error_set(err,
                            "socket path %s/.s.PGSQL.%d is too long for a unix socket (%d bytes at most): "
                            "choose a shorter state_dir",
                            pg->run, pg->port, PG_SOCKET_PATH);
    /* Another owner: PPBENCH_PG_USER changed, or a copy restored by root. Say so rather than chown -R as
     * root. */
    if (stat(pg->data, &st) == 0 && st.st_uid != pg->uid)
        return pp_error_set(err, "%s belongs to uid %d, not to %s: chown -R %s %s", pg->data, (int)st.st_uid,
                            pg->user[0] ? pg->user : "this user", pg->user[0] ? pg->user : "$(id -un)",
                            pg->dir);
    if (own_dir(pg, pg->dir, err) < 0 || own_dir(pg, pg->run, err) < 0)
        return -1;
    if (pg->user[0] && user_can_reach(pg, pg->dir) != 0) {
        /* Typical in CI: a root-owned 0700 state dir from mktemp -d. Let the user search it (not list). */
        if (stat(state, &st) == 0 && st.st_uid == geteuid() && !(st.st_mode & S_IXOTH) &&
            chmod(state, (st.st_mode & 07777) | S_IXOTH) == 0)
            fprintf(stderr, "<5>pgembed: made %s searchable by others (o+x) so that user %s can reach %s\n",
                    state, pg->user, pg->dir);
        if (user_can_reach(pg, pg->dir) != 0)
            return pp_error_set(err,
                                "user %s cannot reach %s: a parent directory is not searchable; choose a "
                                "state_dir it can reach (not under /root) or chmod o+x the parents",
                                pg->user, pg->dir);
    }
    return 0;
}

/* postmaster.pid: line 1 the pid, line 4 the port, line 5 the socket directory. 0 when read. */
static int read_pidfile(const struct pgembed *pg, pid_t *pid, int *port, char *sockdir, size_t size)
{
    char path[PATH_MAX + 32], line[PATH_MAX];
    FILE *f;
    int n = 0;

    snprintf(path, sizeof(path), "%s/postmaster.pid", pg->data);
    if (!(f = fopen(path, "r")))
        return -1;
    *pid = 0;
    *port = 0;
    sockdir[0] = '\0';
    while (fgets(line, sizeof(line), f) && ++n <= 5) {
        line[strcspn(line, "\n")] = '\0';
        if (n == 1)
            *pid = (pid_t)atol(line);
        else if (n == 4)
            *port = atoi(line);
        else if (n == 5)
            snprintf(sockdir, size, "%s", line);
    }
    fclose(f);
    return *pid > 0 ? 0 : -1;
}

/* 1 when /proc/<pid>/<name> (cwd, exe) links to want; 0 when not; -1 when unreadable (gone, a zombie:
 * ENOENT). */
static int proc_link_is(pid_t pid, const char *name, const char *want)
{
    char link[64], buf[PATH_MAX];
    ssize_t n;

    snprintf(link, sizeof(link), "/proc/%d/%s", (int)pid, name);
    if ((n = readlink(link, buf, sizeof(buf) - 1)) < 0)
        return -1;
    buf[n] = '\0';
    return strcmp(buf, want) == 0;
}

/* A live process whose working directory is the cluster (a postmaster always chdirs there). */
static int postmaster_alive(const struct pgembed *pg, pid_t pid)
{
    int r;

    if (pid <= 0 || (kill(pid, 0) != 0 && errno != EPERM))
        return 0;
    r = proc_link_is(pid, "cwd", pg->data);
    return r < 0 ? errno != ENOENT : r; /* unreadable but there: trust kill() */
}

static PGPing ping(const struct pgembed *pg)
{
    char conninfo[PATH_MAX + 96];

    snprintf(conninfo, sizeof(conninfo), "host=%s port=%d dbname=postgres user=ppbench connect_timeout=5",
             pg->run, pg->port);
    return PQping(conninfo);
}

/* The reason a start failed is in the server log: its last FATAL or PANIC line, else its last line. */
static void log_reason(const struct pgembed *pg, char *out, size_t size)
{
    char buf[4096], *line, *best = NULL, *last = NULL, *save = NULL;
    FILE *f = fopen(pg->log, "r");
    size_t n;

    out[0] = '\0';
    if (!f)
        return;
    if (fseek(f, 0, SEEK_END) == 0 && ftell(f) > (long)sizeof(buf) - 1)
        fseek(f, -(long)sizeof(buf) + 1, SEEK_END);
    else
        rewind(f);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        last = line;
        if (strstr(line, "FATAL:") || strstr(line, "PANIC:"))
            best = line;
    }
    if (best || last)
        snprintf(out, size, "%s", best ? best : last);
}

/* Processes running the postgres binary in the cluster's directory: after a failed start, the backends of a
 * postmaster that was killed (a live postmaster holds the lock file that this start just took). */
static int signal_orphans(const struct pgembed *pg, int sig)
{
    char want[PATH_MAX], path[PATH_MAX + 16];
    struct dirent *e;
    int n = 0;
    DIR *d;

    snprintf(path, sizeof(path), "%s/postgres", pg->bindir);
    if (!realpath(path, want) || !(d = opendir("/proc")))
        return 0;
    while ((e = readdir(d))) {
        pid_t pid = (pid_t)atol(e->d_name);
        if (pid > 0 && proc_link_is(pid, "cwd", pg->data) == 1 && proc_link_is(pid, "exe", want) == 1)
            n += kill(pid, sig) == 0;
    }
    closedir(d);
    return n;
}

static int start_server(const struct pgembed *pg, struct pp_error *err)
{
    char pg_ctl[PATH_MAX + 8], opts[PATH_MAX + 512], out[256], reason[256], timeout[16], old[PATH_MAX + 8];
    char *argv[] = {pg_ctl, "start", "-D", (char *)pg->data, "-l", (char *)pg->log, "-w", "-t", timeout, "-s",
                    "-o",   opts,    NULL};
    struct stat st;
    int rc;

    snprintf(pg_ctl, sizeof(pg_ctl), "%s/pg_ctl", pg->bindir);
    snprintf(timeout, sizeof(timeout), "%d", PG_WAIT_S);
    /* pg_ctl hands -o to /bin/sh: the path was checked for quotes, so single quotes carry it. */
    snprintf(opts, sizeof(opts),
             "-c listen_addresses='' -c unix_socket_directories='%s' -c unix_socket_permissions=0700 "
             "-c port=%d " PG_SERVER_OPTIONS,
             pg->run, pg->port);
    if (stat(pg->log, &st) == 0 && st.st_size > PG_LOG_ROTATE) {
        snprintf(old, sizeof(old), "%s.old", pg->log);
        rename(pg->log, old);
    }
    /* After kill -9 of the postmaster, its backends exit when they next wait, but one busy with a query runs
     * on, and until it has gone postgres refuses to start ("pre-existing shared memory block is still in
     * use"). Such orphans can do no more good: end them as postgres ends backends after a crash (SIGQUIT),
     * and retry. */
    for (int attempt = 1;; attempt++) {
        if ((rc = run_cmd(pg, argv, out, sizeof(out), err)) < 0)
            return pp_error_prefix(err, "pg_ctl start");
        if (rc == 0)
            return 0;
        log_reason(pg, reason, sizeof(reason));
        if (attempt == 4 || !strstr(reason, "still in use"))
            break;
        fprintf(stderr,
                "<4>pgembed: postgresql did not start (%s); ended %d backends of the dead postmaster\n",
                reason, signal_orphans(pg, attempt < 3 ? SIGQUIT : SIGKILL));
        sleep(1);
    }
    return pp_error_set(err, "postgresql did not start (pg_ctl exit %d: %s): %s (log: %s)", rc, out,
                        reason[0] ? reason : "empty", pg->log);
}

/* 0 when PostgreSQL stopped, -1 when neither stop could stop it (said on stderr). */
static int stop_server(const struct pgembed *pg)
{
    char pg_ctl[PATH_MAX + 8], out[256], timeout[16], mode[16] = "fast";
    char *argv[] = {pg_ctl, "stop", "-D", (char *)pg->data, "-m", mode, "-w", "-t", timeout, "-s", NULL};
    struct pp_error err;
    int rc;

    snprintf(pg_ctl, sizeof(pg_ctl), "%s/pg_ctl", pg->bindir);
    snprintf(timeout, sizeof(timeout), "%d", PG_WAIT_S);
    if ((rc = run_cmd(pg, argv, out, sizeof(out), &err)) == 0)
        return 0;
    fprintf(stderr, "<4>pgembed: pg_ctl stop -m fast failed (%s); stopping immediately\n",
            rc < 0 ? err.msg : out);
    snprintf(mode, sizeof(mode), "immediate");
    if ((rc = run_cmd(pg, argv, out, sizeof(out), &err)) == 0)
        return 0;
    fprintf(stderr, "<3>pgembed: pg_ctl stop -m immediate failed: %s\n", rc < 0 ? err.msg : out);
    return -1;
}

static int initdb(const struct pgembed *pg, struct pp_error *err)
{
    char path[PATH_MAX + 8], out[384];
    char *argv[] = {path,    "-D", (char *)pg->data, "-U",          "ppbench", "-A",
                    "trust", "-E", "UTF8",           "--no-locale", NULL};
    int rc;

    snprintf(path, sizeof(path), "%s/initdb", pg->bindir);
    fprintf(stderr, "<5>pgembed: creating a postgresql cluster in %s (%s, user %s)\n", pg->data, pg->bindir,
            pg->user[0] ? pg->user : "self");
    if ((rc = run_cmd(pg, argv, out, sizeof(out), err)) < 0)
        return pp_error_prefix(err, "initdb");
    if (rc != 0)
        return pp_error_set(err, "initdb %s failed (exit %d): %s", pg->data, rc, out);
    return 0;
}

/* Database `ppbench` (role `ppbench` is the bootstrap superuser), created when missing. */
static int create_database(const struct pgembed *pg, struct pp_error *err)
{
    char conninfo[PATH_MAX + 96];
    PGresult *res = NULL;
    PGconn *conn;
    int rc = -1;

    snprintf(conninfo, sizeof(conninfo), "host=%s port=%d dbname=postgres user=ppbench connect_timeout=10",
             pg->run, pg->port);
    conn = PQconnectdb(conninfo);
    if (PQstatus(conn) != CONNECTION_OK) {
        pp_error_set(err, "cannot connect to the embedded postgresql: %s", PQerrorMessage(conn));
        goto out;
    }
    res = PQexec(conn, "SELECT 1 FROM pg_database WHERE datname = 'ppbench'");
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        pp_error_set(err, "embedded postgresql: %s", PQerrorMessage(conn));
        goto out;
    }
    if (PQntuples(res) == 0) {
        PQclear(res);
        res = PQexec(conn, "CREATE DATABASE ppbench OWNER ppbench");
        if (PQresultStatus(res) != PGRES_COMMAND_OK) {
            const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
            if (!state || strcmp(state, "42P04") != 0) { /* duplicate_database: created meanwhile */
                pp_error_set(err, "cannot create database ppbench: %s", PQerrorMessage(conn));
                goto out;
            }
        }
        fprintf(stderr, "<5>pgembed: created database ppbench\n");
    }
    rc = 0;
out:
    if (err && rc < 0)
        err->msg[strcspn(err->msg, "\n")] = '\0';
    PQclear(res);
    PQfinish(conn);
    return rc;
}

/*
 * After kill -9 of the postmaster, postgres ignores a lock file (postmaster.pid, run/.s.PGSQL.<port>.lock)
 * whose pid is dead, but not one whose pid a zombie (the killed postmaster, while nobody reaps it) or another
 * process of its user holds: remove those. Orphaned backends are still caught: postgres finds their shared
 * memory by the data directory's inode and refuses to start while they live.
 */
static void clear_stale_locks(const struct pgembed *pg)
{
    char paths[2][PATH_MAX + 32];
    pid_t pid;

    snprintf(paths[0], sizeof(paths[0]), "%s/postmaster.pid", pg->data);
    snprintf(paths[1], sizeof(paths[1]), "%s/.s.PGSQL.%d.lock", pg->run, pg->port);
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(paths[i], "r");
        long v = 0;
        if (!f)
            continue;
        if (fscanf(f, "%ld", &v) != 1)
            v = 0;
        fclose(f);
        pid = (pid_t)v;
        if (pid > 0 && !postmaster_alive(pg, pid) && (kill(pid, 0) == 0 || errno == EPERM) &&
            unlink(paths[i]) == 0)
            fprintf(stderr, "<5>pgembed: removed stale %s (pid %d is no postmaster of %s)\n", paths[i],
                    (int)pid, pg->data);
    }
}

/* Reuse a running postmaster of this cluster when it answers on our socket, else stop it. 1 when reused. */
static int try_reuse(const struct pgembed *pg)
{
    char sockdir[PATH_MAX];
    pid_t pid;
    int port;

    if (read_pidfile(pg, &pid, &port, sockdir, sizeof(sockdir)) != 0 || !postmaster_alive(pg, pid))
        return 0; /* none, or stale: see clear_stale_locks */
    if (port == pg->port && strcmp(sockdir, pg->run) == 0) {
        for (int i = 0; i < PG_WAIT_S * 10; i++) { /* it may still be starting or recovering */
            PGPing p = ping(pg);
            if (!postmaster_alive(pg, pid))
                return 0; /* it died meanwhile */
            if (p == PQPING_OK) {
                fprintf(stderr, "<5>pgembed: reusing the running postgresql (pid %d) in %s\n", (int)pid,
                        pg->data);
                return 1;
            }
            if (p != PQPING_REJECT && i >= 50)
                break;
            usleep(100 * 1000);
        }
    }
    fprintf(stderr,
            "<4>pgembed: the running postgresql (pid %d) does not answer on %s port %d; restarting it\n",
            (int)pid, pg->run, pg->port);
    stop_server(pg);
    return 0;
}

int pgembed_start(const char *state_dir, struct pgembed **out, char *conninfo, size_t size,
                  struct pp_error *err)
{
    struct pgembed *pg = calloc(1, sizeof(*pg));
    const char *port = getenv("PPBENCH_PG_PORT");
    char version[PATH_MAX + 16], major[16] = "";
    int started = 0, rc = -1;
    FILE *f;

    *out = NULL;
    if (!pg)
        return pp_error_set(err, "out of memory");
    pg->port = PG_DEFAULT_PORT;
    if (port && *port) {
        char *end;
        long v = strtol(port, &end, 10);
        if (*end || v < 1 || v > 65535) {
            pp_error_set(err, "PPBENCH_PG_PORT=%s is not a port number", port);
            goto out;
        }
        pg->port = (int)v;
    }
    if (resolve_user(pg, err) < 0 || prepare_dirs(pg, state_dir, err) < 0)
        goto out;
    snprintf(version, sizeof(version), "%s/PG_VERSION", pg->data);
    if ((f = fopen(version, "r"))) {
        if (!fgets(major, sizeof(major), f))
            major[0] = '\0';
        major[strcspn(major, "\n")] = '\0';
        fclose(f);
    }
    if (find_bindir(major, pg->bindir, sizeof(pg->bindir), err) < 0)
        goto out;
    if (!*major && initdb(pg, err) < 0)
        goto out;
    if (!try_reuse(pg)) {
        clear_stale_locks(pg);
        if (start_server(pg, err) < 0)
            goto out;
        started = 1;
        fprintf(stderr, "<5>pgembed: postgresql started in %s (socket %s port %d)\n", pg->data, pg->run,
                pg->port);
    }
    if (create_database(pg, err) < 0)
        goto out;
    if ((size_t)snprintf(conninfo, size, "host=%s port=%d dbname=ppbench user=ppbench", pg->run, pg->port) >=
        size) {
        pp_error_set(err, "connection string does not fit in %zu bytes", size);
        goto out;
    }
    *out = pg;
    rc = 0;
out:
    if (rc < 0) {
        if (started)
            stop_server(pg);
        free(pg);
    }
    return rc;
}

int pgembed_alive(struct pgembed *pg)
{
    char sockdir[PATH_MAX];
    pid_t pid;
    int port;

    if (!pg || read_pidfile(pg, &pid, &port, sockdir, sizeof(sockdir)) != 0)
        return 0;
    return postmaster_alive(pg, pid);
}

int pgembed_restart(struct pgembed *pg, struct pp_error *err)
{
    clear_stale_locks(pg);
    if (start_server(pg, err) < 0)
        return -1;
    fprintf(stderr, "<5>pgembed: postgresql restarted in %s\n", pg->data);
    return 0;
}

int pgembed_running(const char *state_dir)
{
    struct pgembed pg;
    char state[PATH_MAX];

    memset(&pg, 0, sizeof(pg));
    if (!realpath(state_dir, state))
        return 0;
    snprintf(pg.dir, sizeof(pg.dir), "%s/pg", state);
    snprintf(pg.data, sizeof(pg.data), "%s/data", pg.dir);
    return pgembed_alive(&pg);
}

void pgembed_stop(struct pgembed *pg)
{
    if (!pg)
        return;
    if (stop_server(pg) == 0)
        fprintf(stderr, "<5>pgembed: postgresql stopped\n");
    else
        fprintf(stderr,
                "<3>pgembed: postgresql may still be running on %s (its pid is the first line of "
                "postmaster.pid there)\n",
                pg->data);
    free(pg);
}

void pgembed_release(struct pgembed *pg)
{
    free(pg);
}
