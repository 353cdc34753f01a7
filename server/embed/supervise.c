/*
 * supervise: in the embedded default, ppbenchd runs one `ppbench-worker serve` per local platform and
 * restarts a worker that exits, with backoff (1 s doubling to 60 s; back to 1 s once a worker has run 60 s).
 *
 * Threads: supervise_start asks `ppbench-worker list --json` for the platforms on the calling thread, then
 * starts a supervisor thread (all signals blocked) that owns the workers: it alone forks them, so that
 * PR_SET_PDEATHSIG, which fires when the forking *thread* ends, means "ppbenchd is gone" (kill -9 included)
 * and a worker never outlives the server that supervises it. The thread notices exits itself, polling
 * waitpid(pid, WNOHANG) every second; the server's signal loop (signalfd, SIGCHLD blocked everywhere) calls
 * supervise_reap on SIGCHLD to notice them at once. Every worker is reaped by its own pid, never waitpid(-1),
 * so other children of the process (pg_ctl, for one) stay with their owners. A mutex guards the worker table;
 * a condition variable wakes the thread. supervise_stop tells the thread to stop the workers and joins it.
 *
 * Each worker leads its own process group: SIGTERM goes to the worker alone (it gives a running job its own
 * grace, job_grace_s = 10 s by default, kills it, and deregisters: the server re-queues the job), while
 * SIGKILL at the end of that grace and SUP_STOP_EXTRA_S, longer than the worker's whole stop so that it can
 * say goodbye itself, and the clean-up after any worker exits, go to the whole group, so that a job's runner
 * child cannot go on loading a device after its worker is gone.
 *
 * A goodbye is never lost (issue 25: a Ctrl-C of `make run` left the job `running` and the restarted worker
 * refused for a lease, "platform already served by worker 1"): every worker is started with --host, so the
 * supervisor knows the identity it registers under (host/platform and pid), and once its process has ended
 * the supervisor releases that registration in the database (worker_release_process,
 * schema/functions/workers.sql): nothing when the worker deregistered; else the registration is gone, so its
 * restart registers at once, and a job it held goes back to the queue with a note saying how the worker
 * ended. Workers inherit ppbenchd's stdout and stderr (the journal) and its environment minus its secrets and
 * systemd's per-service variables (PPBENCH_DATABASE_URL, PGPASSWORD, NOTIFY_SOCKET, WATCHDOG_*, LISTEN_*).
 */
#include "server/embed/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "server/db.h"
#include "server/spawn.h"

#define SUP_BACKOFF_MAX_S 60u
#define SUP_RESET_AFTER_S 60.0
#define SUP_STOP_EXTRA_S                                                                                     \
    5.0 /* past the workers' job grace: their job's kill (2 s) and their deregistration */
#define SUP_POLL_S       1.0
#define SUP_LIST_TIMEOUT 60.0
#define SUP_LIST_MAX     (16u << 20)

extern char **environ;

struct worker {
    char *platform;
    pid_t pid;        /* 0 while waiting for its (re)start */
    double started;   /* monotonic seconds */
    double due;       /* when pid == 0: when to start it */
    unsigned delay_s; /* the wait before its next restart */
    unsigned starts;
};

struct supervisor {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    int stopping;
    char host[256]; /* what every worker registers as its host (--host) */
    char *bin, *url;
    char grace[24]; /* the workers' job grace (--grace), in seconds */
    double grace_s;
    char **envp; /* owned copies */
    struct worker *workers;
    size_t n;
};

/* The supervisor's lines, named as such (ppbenchd's logger). */
#define slog(prio, ...) log_msg((enum log_level)(prio), "supervise: " __VA_ARGS__)

/* environ minus secrets and what systemd meant for ppbenchd alone, plus the worker token (in the environment,
 * not on the command line, where any local user could read it with ps). NULL when out of memory. */
static char **worker_env(const char *token)
{
    static const char *const drop[] = {
        "PPBENCH_DATABASE_URL=", "PGPASSWORD=", "NOTIFY_SOCKET=", "WATCHDOG_", "LISTEN_",
        "PPBENCH_WORKER_TOKEN="};
    size_t n = 0, k = 0;
    char **envp;

    while (environ && environ[n])
        n++;
    if (!(envp = calloc(n + 2, sizeof(*envp))))
        return NULL;
    if (asprintf(&envp[k++], "PPBENCH_WORKER_TOKEN=%s", token) < 0) {
        free(envp);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        int keep = 1;
        for (size_t j = 0; j < sizeof(drop) / sizeof(drop[0]); j++)
            keep = keep && strncmp(environ[i], drop[j], strlen(drop[j])) != 0;
        if (keep && !(envp[k++] = strdup(environ[i]))) {
            for (size_t j = 0; j + 1 < k; j++)
                free(envp[j]);
            free(envp);
            return NULL;
        }
    }
    return envp;
}

static void child_exec_failed(const char *bin)
{
    static const char msg[] = "<3>supervise: cannot execute ";

    if (write(2, msg, sizeof(msg) - 1) > 0 && write(2, bin, strlen(bin)) > 0 && write(2, "\n", 1) > 0) {
    }
    _exit(127);
}

/* `bin list --json` → its .platforms[].id, a new array of strings. */
static int list_platforms(const char *bin, char **envp, json_t **ids, struct pp_error *err)
{
    char *argv[] = {(char *)bin, "list", "--json", NULL};
    char *buf = NULL, errtail[256] = "";
    size_t len = 0, cap = 0, elen = 0;
    int out[2] = {-1, -1}, errp[2] = {-1, -1}, status = 0, rc = -1, open_fds = 2;
    double deadline = clock_now() + SUP_LIST_TIMEOUT;
    json_t *doc = NULL, *platforms, *p;
    json_error_t jerr;
    size_t i;
    pid_t pid = -1;

    *ids = NULL;
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0) {
        pp_error_set(err, "pipe: %s", strerror(errno));
        goto out;
    }
    if ((pid = fork()) < 0) {
        pp_error_set(err, "fork: %s", strerror(errno));
        goto out;
    }
    if (pid == 0) {
        setpgid(0, 0); /* a timeout kills the group: helpers of a hung `list` too */
        dup2(out[1], 1);
        dup2(errp[1], 2);
        spawn_child_reset(-1);
        spawn_oom_score("0"); /* ppbenchd and PostgreSQL go last, a worker and its jobs as usual */
        execve(bin, argv, envp);
        child_exec_failed(bin);
    }
    close(out[1]);
    close(errp[1]);
    out[1] = errp[1] = -1;
    while (open_fds > 0) {
        struct pollfd fds[2] = {{.fd = out[0], .events = POLLIN}, {.fd = errp[0], .events = POLLIN}};
        double left = deadline - clock_now();
        char chunk[4096];
        ssize_t n;

        if (left <= 0) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            pp_error_set(err, "%s list --json did not answer in %.0f s", bin, SUP_LIST_TIMEOUT);
            goto out;
        }
        if (poll(fds, 2, (int)(left * 1000) + 1) < 0) {
            if (errno == EINTR)
                continue;
            pp_error_set(err, "poll: %s", strerror(errno));
            goto out;
        }
        for (int k = 0; k < 2; k++) {
            if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            if ((n = read(fds[k].fd, chunk, sizeof(chunk))) < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                close(fds[k].fd);
                *(k ? &errp[0] : &out[0]) = -1;
                open_fds--;
                continue;
            }
            if (k == 1) { /* stderr: keep the tail */
                size_t take = (size_t)n < sizeof(errtail) - 1 ? (size_t)n : sizeof(errtail) - 1;
                if (elen + take > sizeof(errtail) - 1) {
                    size_t drop = elen + take - (sizeof(errtail) - 1);
                    memmove(errtail, errtail + drop, elen - drop);
                    elen -= drop;
                }
                memcpy(errtail + elen, chunk + n - take, take);
                errtail[elen += take] = '\0';
                continue;
            }
            if (len + (size_t)n + 1 > cap) {
                char *nb;
                cap = (len + (size_t)n + 1) * 2;
                if (cap > SUP_LIST_MAX || !(nb = realloc(buf, cap))) {
                    kill(pid, SIGKILL);
                    pp_error_set(err, "%s list --json: output too large", bin);
                    goto out;
                }
                buf = nb;
            }
            memcpy(buf + len, chunk, (size_t)n);
            len += (size_t)n;
        }
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    pid = -1;
    for (char *nl; elen > 0 && (nl = strrchr(errtail, '\n')) && nl[1] == '\0'; elen--)
        *nl = '\0';
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        pp_error_set(err, "%s list --json failed (%s %d)%s%s", bin, WIFEXITED(status) ? "exit" : "signal",
                     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), errtail[0] ? ": " : "",
                     strrchr(errtail, '\n') ? strrchr(errtail, '\n') + 1 : errtail);
        goto out;
    }
    if (!(doc = json_loadb(buf ? buf : "", len, 0, &jerr))) {
        pp_error_set(err, "%s list --json: invalid json: %s", bin, jerr.text);
        goto out;
    }
    if (!json_is_array(platforms = json_object_get(doc, "platforms"))) {
        pp_error_set(err, "%s list --json: no \"platforms\" array", bin);
        goto out;
    }
    *ids = json_array();
    json_array_foreach(platforms, i, p)
    {
        const char *id = json_string_value(json_object_get(p, "id"));
        if (!id || !*id) {
            pp_error_set(err, "%s list --json: platform %zu has no id", bin, i);
            goto out;
        }
        json_array_append_new(*ids, json_string(id));
    }
    rc = 0;
out:
    if (pid > 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    for (int k = 0; k < 2; k++) {
        if (out[k] >= 0)
            close(out[k]);
        if (errp[k] >= 0)
            close(errp[k]);
    }
    if (rc < 0) {
        json_decref(*ids);
        *ids = NULL;
    }
    json_decref(doc);
    free(buf);
    return rc;
}

/* Supervisor thread, lock held. A failed fork is retried like an exit. */
static void spawn_locked(struct supervisor *s, struct worker *w)
{
    char *argv[] = {s->bin,   "serve", "--server", s->url,   "--platform", w->platform,
                    "--host", s->host, "--grace",  s->grace, NULL};
    pid_t parent = getpid(), pid = fork();
    int e = errno;

    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) /* ppbenchd died before prctl */
            _exit(0);
        spawn_child_reset(-1);
        spawn_oom_score("0"); /* ppbenchd and PostgreSQL go last, a worker and its jobs as usual */
        execve(s->bin, argv, s->envp);
        child_exec_failed(s->bin);
    }
    w->started = clock_now();
    if (pid < 0) {
        w->due = w->started + w->delay_s;
        slog(3, "cannot start worker platform=%s: fork: %s; retrying in %u s", w->platform, strerror(e),
             w->delay_s);
        w->delay_s = w->delay_s * 2 > SUP_BACKOFF_MAX_S ? SUP_BACKOFF_MAX_S : w->delay_s * 2;
        return;
    }
    setpgid(pid, pid); /* also here, so that a kill of the group never misses (EACCES once it has exec'd) */
    w->pid = pid;
    w->starts++;
    slog(6, "started worker platform=%s pid=%d%s", w->platform, (int)pid, w->starts > 1 ? " (restart)" : "");
}

static const char release_sql[] =
    "SELECT worker, released::int, requeued, failed FROM worker_release_process($1, $2, $3::int, $4)";

/* After worker w (pid) ended, how: its registration released and a job it held re-queued, unless it said
 * goodbye itself (then there is nothing to do). Lock held; the statement has db_timeout_s's deadline. */
static void release(struct supervisor *s, const struct worker *w, pid_t pid, const char *how)
{
    char pid_s[24];
    const char *params[4] = {s->host, w->platform, pid_s, how};
    struct db_error err;
    PGresult *res;

    snprintf(pid_s, sizeof(pid_s), "%d", (int)pid);
    if (!(res = db_query(release_sql, 4, params, &err))) {
        slog(4, "worker platform=%s pid=%d: cannot release its registration: %s", w->platform, (int)pid,
             err.e.msg);
        return;
    }
    if (PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 1), "0"))
        slog(4,
             "worker=%s platform=%s pid=%d ended without deregistering: released, %s job(s) re-queued, %s "
             "failed",
             PQgetvalue(res, 0, 0), w->platform, (int)pid, PQgetvalue(res, 0, 2), PQgetvalue(res, 0, 3));
    PQclear(res);
}

/* Notice exited workers (lock held): kill what they left in their group, release their registration,
 * schedule the restart. */
static void reap_locked(struct supervisor *s)
{
    for (size_t i = 0; i < s->n; i++) {
        struct worker *w = &s->workers[i];
        char how[64];
        double now, up;
        int status = 0;
        pid_t r;

        if (w->pid <= 0)
            continue;
        while ((r = waitpid(w->pid, &status, WNOHANG)) < 0 && errno == EINTR)
            ;
        if (r == 0)
            continue;
        if (r < 0) /* ECHILD: someone reaped it with waitpid(-1), or SIGCHLD is ignored */
            snprintf(how, sizeof(how), "is gone (reaped elsewhere)");
        else if (WIFEXITED(status))
            snprintf(how, sizeof(how), "exited with status %d", WEXITSTATUS(status));
        else
            snprintf(how, sizeof(how), "was killed by signal %d (SIG%s)", WTERMSIG(status),
                     sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
        if (kill(-w->pid, SIGKILL) == 0)
            slog(4, "worker platform=%s pid=%d left processes behind; killed them", w->platform, (int)w->pid);
        release(s, w, w->pid, how);
        now = clock_now();
        up = now - w->started;
        if (s->stopping) {
            slog(6, "worker platform=%s pid=%d %s", w->platform, (int)w->pid, how);
            w->pid = 0;
            continue;
        }
        if (up >= SUP_RESET_AFTER_S)
            w->delay_s = 1;
        w->due = now + w->delay_s;
        slog(4, "worker platform=%s pid=%d %s after %.1f s; restarting in %u s", w->platform, (int)w->pid,
             how, up, w->delay_s);
        w->delay_s = w->delay_s * 2 > SUP_BACKOFF_MAX_S ? SUP_BACKOFF_MAX_S : w->delay_s * 2;
        w->pid = 0;
    }
}

static void wait_until_locked(struct supervisor *s, double when)
{
    double t = when > 0 ? when : 0;
    struct timespec ts = {.tv_sec = (time_t)t, .tv_nsec = (long)((t - (double)(time_t)t) * 1e9)};

    pthread_cond_timedwait(&s->wake, &s->lock, &ts);
}

/* SIGTERM each worker, give them their job grace and SUP_STOP_EXTRA_S to exit, then SIGKILL their groups
 * (lock held). */
static void terminate_locked(struct supervisor *s)
{
    double deadline = clock_now() + s->grace_s + SUP_STOP_EXTRA_S;
    int alive;

    for (size_t i = 0; i < s->n; i++)
        if (s->workers[i].pid > 0)
            kill(s->workers[i].pid, SIGTERM);
    for (;;) {
        reap_locked(s);
        alive = 0;
        for (size_t i = 0; i < s->n; i++)
            alive += s->workers[i].pid > 0;
        if (!alive || clock_now() >= deadline)
            break;
        wait_until_locked(s, clock_now() + 0.05);
    }
    for (size_t i = 0; i < s->n; i++) {
        struct worker *w = &s->workers[i];
        if (w->pid <= 0)
            continue;
        slog(4, "worker platform=%s pid=%d did not stop in %.0f s; killing it", w->platform, (int)w->pid,
             s->grace_s + SUP_STOP_EXTRA_S);
        kill(-w->pid, SIGKILL);
        kill(w->pid, SIGKILL);
        while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        release(s, w, w->pid, "was killed: it did not stop within the grace of ppbenchd's stop");
        w->pid = 0;
    }
}

static void *supervisor_main(void *arg)
{
    struct supervisor *s = arg;

    pthread_mutex_lock(&s->lock);
    while (!s->stopping) {
        double now = clock_now(), next = now + SUP_POLL_S;
        reap_locked(s);
        for (size_t i = 0; i < s->n; i++) {
            struct worker *w = &s->workers[i];
            if (w->pid == 0 && w->due <= now)
                spawn_locked(s, w);
            if (w->pid == 0 && w->due < next)
                next = w->due;
        }
        wait_until_locked(s, next);
    }
    terminate_locked(s);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static void supervisor_free(struct supervisor *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->workers[i].platform);
    for (size_t i = 0; s->envp && s->envp[i]; i++)
        free(s->envp[i]);
    free(s->envp);
    free(s->workers);
    free(s->bin);
    free(s->url);
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

int supervise_default_worker_bin(char *buf, size_t size, struct pp_error *err)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *slash;

    if (n < 0)
        return pp_error_set(err, "/proc/self/exe: %s", strerror(errno));
    exe[n] = '\0';
    if ((slash = strrchr(exe, '/')))
        *slash = '\0';
    if ((size_t)snprintf(buf, size, "%s/ppbench-worker", exe) >= size)
        return pp_error_set(err, "path of ppbench-worker too long");
    if (access(buf, X_OK) != 0)
        return pp_error_set(err, "ppbench-worker not found next to ppbenchd (%s): %s", buf, strerror(errno));
    return 0;
}

int supervise_start(const char *worker_bin, const char *server_url, const char *token, long grace_s,
                    struct supervisor **out, struct pp_error *err)
{
    struct supervisor *s = calloc(1, sizeof(*s));
    pthread_condattr_t attr;
    sigset_t all, old;
    json_t *ids = NULL;
    int rc = -1, e;

    *out = NULL;
    if (!s)
        return pp_error_set(err, "out of memory");
    pthread_mutex_init(&s->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wake, &attr);
    pthread_condattr_destroy(&attr);
    if (access(worker_bin, X_OK) != 0) {
        pp_error_set(err, "cannot execute %s: %s", worker_bin, strerror(errno));
        goto out;
    }
    /* the worker's own default (serve --host): $SLURMD_NODENAME under Slurm, else the host name */
    if (getenv("SLURMD_NODENAME") && *getenv("SLURMD_NODENAME"))
        snprintf(s->host, sizeof(s->host), "%s", getenv("SLURMD_NODENAME"));
    else if (gethostname(s->host, sizeof(s->host) - 1) != 0)
        snprintf(s->host, sizeof(s->host), "localhost");
    s->grace_s = (double)grace_s;
    snprintf(s->grace, sizeof(s->grace), "%ld", grace_s);
    if (!(s->bin = strdup(worker_bin)) || !(s->url = strdup(server_url)) || !(s->envp = worker_env(token))) {
        pp_error_set(err, "out of memory");
        goto out;
    }
    if (list_platforms(worker_bin, s->envp, &ids, err) < 0)
        goto out;
    if (!(s->workers = calloc(json_array_size(ids) + 1, sizeof(*s->workers)))) {
        pp_error_set(err, "out of memory");
        goto out;
    }
    for (; s->n < json_array_size(ids); s->n++) {
        struct worker *w = &s->workers[s->n];
        if (!(w->platform = strdup(json_string_value(json_array_get(ids, s->n))))) {
            pp_error_set(err, "out of memory");
            goto out;
        }
        w->delay_s = 1; /* due = 0: start at once */
    }
    if (s->n == 0)
        slog(4, "%s list found no platform: no worker to run", worker_bin);
    /* The thread blocks every signal: they belong to the server's signal loop. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    e = pthread_create(&s->thread, NULL, supervisor_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e != 0) {
        pp_error_set(err, "pthread_create: %s", strerror(e));
        goto out;
    }
    slog(5, "supervising %zu worker%s (%s)", s->n, s->n == 1 ? "" : "s", worker_bin);
    *out = s;
    rc = 0;
out:
    json_decref(ids);
    if (rc < 0)
        supervisor_free(s);
    return rc;
}

void supervise_reap(struct supervisor *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    reap_locked(s);
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
}

void supervise_stop(struct supervisor *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->stopping = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    slog(5, "workers stopped");
    supervisor_free(s);
}
