/*
 * serve: `ppbench-worker serve`, the job loop of one worker for one platform (docs/API.md, "Worker
 * protocol"): register, then claim (long poll), run, heartbeat, forward progress and post the result, one job
 * at a time.
 *
 * Processes. The serving process never starts a device runtime. A process that initialised the CUDA driver
 * cannot use CUDA in a forked child, and a driver fault must cost one job, not the worker. So it learns its
 * platform by running `ppbench-worker list --json` as a child, and runs each job as `ppbench-worker run
 * --platform ... --json --progress-fd 3`, exec'd from /proc/self/exe (worker/runner.c, child_*): the
 * report arrives on the child's stdout (an anonymous file), its stderr through a pipe (a bounded tail kept
 * for error messages), progress lines through a pipe on its fd 3. The exit status says what happened (run.h).
 *
 * Signals. SIGTERM, SIGINT and SIGCHLD are blocked and read from two signalfds in the loops below; the HTTP
 * client cuts a transfer or a backoff short when the SIGTERM/SIGINT one becomes readable. On a stop request
 * the worker claims no more, gives a running job its grace (--grace, SERVE_GRACE_S by default) to end (its
 * result is posted), else kills it,
 * then deregisters (the server re-queues a job it still holds) and exits 0.
 *
 * Ownership: struct serve owns the client, the signalfds and the registration; struct job owns the claimed
 * job and its child. One thread (libcurl's resolver may start its own while it resolves), and while it reads
 * a job's report and posts its result, the job's heartbeat thread (worker/beat.c: its own client, nothing
 * shared).
 */
#include "serve.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "buildinfo.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "worker/beat.h"
#include "worker/child.h"
#include "worker/client.h"
#include "worker/run.h"
#include "worker/runner.h"
#include "worker/runners.h"

#define SERVE_CLAIM_WAIT_S     25
#define SERVE_CALL_TIMEOUT_S   10  /* heartbeat, progress, register, deregister */
#define SERVE_RESULT_TIMEOUT_S 120 /* a report with many iterations is megabytes */
#define SERVE_GRACE_S          10  /* a running job may end this long after a stop request (--grace) */
#define SERVE_DELIVER_S        10  /* then its result may take this long more to be posted */
#define SERVE_KILL_AFTER_S     2   /* SIGTERM, then SIGKILL */
#define SERVE_PROGRESS_EVERY_S 2.0
#define SERVE_DISCOVERY_S      300 /* `list --json` (drivers can be slow to start) */

struct serve {
    struct client *http;
    int sig_fd, chld_fd;
    sigset_t child_mask; /* the signal mask children run with (the one we started with) */
    char platform[48];   /* what `run --platform` gets: the GPU's UUID or PCI bus id when known, else the
                          * local id ("cpu0"); with those the job's process discovers only its own model */
    char platform_id[160];
    json_t *registration; /* the register request, kept for registering again */
    long long worker_id;
    double heartbeat_s, lease_s;
    double grace_s; /* --grace: a running job's time to end after a stop request */
    bool stopping;
    double stop_at;
    bool once;          /* --once: one claim (of only_job when set), then deregister and exit */
    long long only_job; /* --job: claim this job only (a Slurm job's own ppbench job) */
    bool ran;           /* --once: a job was claimed */
    bool waiting;       /* --job: the server says the job waits for its host (claim again) */
};

enum job_end { END_NONE, END_EXIT, END_TIMEOUT, END_CANCELLED, END_STALE, END_SHUTDOWN };
enum answer { ANSWER_OK, ANSWER_CANCEL, ANSWER_STALE, ANSWER_NONE };

struct job {
    long long id, epoch;
    long timeout_s;
    char ctx[256]; /* log prefix: "job=42 platform=node7/cpu0 model=openmp" */
    struct runner_args args;
    struct child child;
    enum job_end end;
    double term_at, kill_at; /* when SIGTERM and SIGKILL went; 0: not yet */
    double next_beat;        /* when the job's next heartbeat is due */
    double sent_progress, progress_at;
};

static double min_d(double a, double b)
{
    return a < b ? a : b;
}

#define slog(level, ...) log_msg((enum log_level)(level), __VA_ARGS__)

static void on_retry(void *arg, const char *path, const struct pp_error *why, double wait_s)
{
    (void)arg;
    slog(4, "%s: %s: retrying in %.0f s", path, why->msg, wait_s);
}

/* Consume pending SIGTERM/SIGINT: the first one starts the stop. */
static void read_signals(struct serve *s)
{
    struct signalfd_siginfo si;

    while (read(s->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
        if (!s->stopping) {
            s->stopping = true;
            s->stop_at = clock_now();
            slog(5, "got %s: stopping",
                 sigabbrev_np((int)si.ssi_signo) ? sigabbrev_np((int)si.ssi_signo) : "?");
        }
}

static void drop_sigchld(struct serve *s)
{
    struct signalfd_siginfo si;

    while (read(s->chld_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
        ;
}

/* ---- discovery and registration ---- */

/* The register request; steals platform. */
static json_t *registration_new(const char *host, json_t *platform)
{
    struct utsname u;
    char kernel[256] = "";
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    double mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);

    if (uname(&u) == 0)
        snprintf(kernel, sizeof(kernel), "%s %s %s", u.sysname, u.release, u.machine);
    return json_pack("{s:s, s:I, s:s, s:o, s:{s:s, s:I, s:I}}", "host", host, "pid", (json_int_t)getpid(),
                     "version", PPBENCH_VERSION, "platform", platform, "host_info", "kernel", kernel, "cpus",
                     (json_int_t)cpus, "memory_bytes", (json_int_t)mem);
}

/* The registration answer into s. */
static int registered(struct serve *s, json_t *answer, struct pp_error *err)
{
    json_t *id = json_object_get(answer, "worker_id");
    const char *pid = json_string_value(json_object_get(answer, "platform_id"));
    const char *secret = json_string_value(json_object_get(answer, "worker_secret"));

    if (!json_is_integer(id) || !secret)
        return pp_error_set(err, "server: no worker_id or worker_secret in the registration answer");
    if (client_set_worker(s->http, json_integer_value(id), secret, err))
        return -1;
    s->worker_id = json_integer_value(id);
    snprintf(s->platform_id, sizeof(s->platform_id), "%s", pid ? pid : s->platform);
    s->heartbeat_s = json_number_value(json_object_get(answer, "heartbeat_s"));
    s->lease_s = json_number_value(json_object_get(answer, "lease_s"));
    s->heartbeat_s = s->heartbeat_s > 0 ? s->heartbeat_s : 5;
    s->lease_s = s->lease_s > s->heartbeat_s ? s->lease_s : 6 * s->heartbeat_s;
    slog(6, "worker=%lld platform=%s registered (heartbeat %.0f s, lease %.0f s)", s->worker_id,
         s->platform_id, s->heartbeat_s, s->lease_s);
    return 0;
}

/* Register, retrying while the server is unreachable or failing. Returns RUN_OK (registered, or a stop was
 * asked), SERVE_TAKEN or RUN_USAGE (refused: token, request). */
static int do_register(struct serve *s)
{
    struct client_reply r;
    struct pp_error err;
    double wait = 1;
    int rc = -1;

    while (rc < 0 && !s->stopping) {
        if (client_post(s->http, "/api/v1/workers/register", s->registration, SERVE_CALL_TIMEOUT_S, -1, &r,
                        &err) == 0) {
            if (registered(s, r.body, &err) == 0)
                rc = RUN_OK;
        } else if (r.interrupted) {
            read_signals(s);
        } else if (r.status == 409 && strcmp(r.code, "platform_taken") == 0) {
            /* The server's message names the worker: "platform node7/cpu0 is already served by worker 3". */
            const char *msg = json_string_value(json_object_get(json_object_get(r.body, "error"), "message"));
            slog(3, "%s", msg ? msg : err.msg);
            rc = SERVE_TAKEN;
        } else if (r.status >= 400 && r.status < 500) {
            slog(3, "registration refused: %s", err.msg);
            rc = RUN_USAGE;
        }
        client_reply_clear(&r);
        if (rc < 0 && !s->stopping) {
            slog(4, "registration failed: %s: retrying in %.0f s", err.msg, wait);
            if (client_sleep(s->http, wait))
                read_signals(s);
            wait = min_d(wait * 2, 30);
        }
    }
    return rc < 0 ? RUN_OK : rc;
}

/* ---- one job ---- */

/* A call about the job (heartbeat, progress) and what its answer means for the job. */
static enum answer job_call(struct serve *s, struct job *j, const char *path, json_t *body)
{
    struct client_reply r;
    struct pp_error err;
    enum answer a = ANSWER_NONE;

    if (client_post(s->http, path, body, SERVE_CALL_TIMEOUT_S, 0, &r, &err) == 0)
        a = json_is_true(json_object_get(r.body, "cancel")) ? ANSWER_CANCEL : ANSWER_OK;
    else if (r.interrupted)
        read_signals(s);
    else if (r.status == 409 && strcmp(r.code, "job_cancelled") == 0)
        a = ANSWER_CANCEL;
    else if (r.status == 409 || r.status == 404 || strcmp(r.code, "wrong_worker") == 0)
        a = ANSWER_STALE; /* stale_epoch, or the server no longer knows this worker or job */
    else
        slog(4, "%s %s: %s", j->ctx, path, err.msg);
    if (a == ANSWER_STALE)
        slog(4, "%s %s: %s", j->ctx, path, err.msg);
    client_reply_clear(&r);
    json_decref(body);
    return a;
}

static enum answer job_heartbeat(struct serve *s, struct job *j)
{
    char path[96];

    snprintf(path, sizeof(path), "/api/v1/workers/%lld/heartbeat", s->worker_id);
    j->next_beat = clock_now() + s->heartbeat_s;
    return job_call(s, j, path, json_pack("{s:I, s:I}", "job_id", j->id, "epoch", j->epoch));
}

static enum answer job_progress(struct serve *s, struct job *j)
{
    char path[96];

    snprintf(path, sizeof(path), "/api/v1/jobs/%lld/progress", j->id);
    j->sent_progress = j->child.progress;
    j->progress_at = clock_now();
    return job_call(s, j, path, json_pack("{s:I, s:f}", "epoch", j->epoch, "progress", j->child.progress));
}

/* Ask the child to end (SIGTERM; SIGKILL follows SERVE_KILL_AFTER_S later) and remember why. */
static void job_stop(struct job *j, enum job_end why)
{
    static const char *const what[] = {
        "", "", "timed out", "cancelled", "no longer ours (stale epoch)", "stopping the worker"};

    if (j->end == END_NONE || why == END_STALE)
        j->end = why;
    if (j->term_at == 0 && j->child.pid > 0) {
        slog(5, "%s %s: stopping the run", j->ctx, what[why]);
        child_signal(&j->child, SIGTERM);
        j->term_at = clock_now();
    }
}

/* The job's heartbeats from their own thread while this one is busy with one long step (beat.h), from when
 * the next is due; job_beat_end carries the cadence back. A thread that cannot start is logged, and the step
 * runs without (as every step did before). */
static struct beat *job_beat_start(struct serve *s, struct job *j)
{
    struct pp_error err;
    struct beat *b =
        beat_start(s->http, s->worker_id, j->id, j->epoch, j->next_beat, s->heartbeat_s, j->ctx, &err);

    if (!b)
        slog(4, "%s %s", j->ctx, err.msg);
    return b;
}

static void job_beat_end(struct job *j, struct beat *b)
{
    if (b)
        j->next_beat = beat_stop(b);
}

static void job_answer(struct job *j, enum answer a)
{
    if (a == ANSWER_CANCEL)
        job_stop(j, END_CANCELLED);
    else if (a == ANSWER_STALE)
        job_stop(j, END_STALE);
}

/* Watch the child until it has exited and been reaped: its pipes, the job's timeout, heartbeats, progress,
 * cancel, a stale epoch, and a stop request. */
static void job_watch(struct serve *s, struct job *j)
{
    double start = clock_now(), now, wake;

    while (!child_reap(&j->child)) {
        struct pollfd p[4] = {{.fd = s->sig_fd, .events = POLLIN},
                              {.fd = s->chld_fd, .events = POLLIN},
                              {.fd = j->child.err_fd, .events = POLLIN},
                              {.fd = j->child.progress_fd, .events = POLLIN}};
        bool progressed = j->child.progress > j->sent_progress;

        now = clock_now();
        wake = j->end == END_STALE ? now + 1 : j->next_beat; /* no heartbeats for a job no longer ours */
        if (j->end == END_NONE) {
            wake = min_d(wake, start + (double)j->timeout_s);
            if (s->stopping)
                wake = min_d(wake, s->stop_at + s->grace_s);
            if (progressed)
                wake = min_d(wake, j->progress_at + SERVE_PROGRESS_EVERY_S);
        }
        if (j->term_at > 0 && j->kill_at == 0)
            wake = min_d(wake, j->term_at + SERVE_KILL_AFTER_S);
        poll(p, 4, wake > now ? (int)((wake - now) * 1000) + 1 : 0);
        read_signals(s);
        drop_sigchld(s);
        child_read(&j->child);

        now = clock_now();
        if (j->end == END_NONE && now >= start + (double)j->timeout_s)
            job_stop(j, END_TIMEOUT);
        if (j->end == END_NONE && s->stopping && now >= s->stop_at + s->grace_s)
            job_stop(j, END_SHUTDOWN);
        if (j->term_at > 0 && j->kill_at == 0 && now >= j->term_at + SERVE_KILL_AFTER_S) {
            child_signal(&j->child, SIGKILL);
            j->kill_at = now;
        }
        if (j->end != END_STALE && now >= j->next_beat)
            job_answer(j, job_heartbeat(s, j));
        if (j->end == END_NONE && j->child.progress > j->sent_progress &&
            now >= j->progress_at + SERVE_PROGRESS_EVERY_S)
            job_answer(j, job_progress(s, j));
    }
    child_read(&j->child);
    /* A stop that signalled the whole job (scancel, systemd's control group) may reach the child first: its
     * death is the shutdown's, not the job's, and the server re-queues the job when we deregister. */
    read_signals(s);
    if (j->end == END_NONE && s->stopping && WIFSIGNALED(j->child.status))
        j->end = END_SHUTDOWN;
    if (j->end == END_NONE)
        j->end = END_EXIT;
}

/* Post the result until the server answers, heartbeating the job meanwhile: between attempts from here,
 * during one from the heartbeat thread (encoding, sending and storing a 14 MB report can outlast the lease).
 * An unreachable or unavailable server is retried (backoff 1 s doubling to 30 s) for as long as it takes:
 * the server alone knows whether the lease still holds, and says so (409). Steals report. */
static void job_result(struct serve *s, struct job *j, const char *outcome, const char *error, json_t *report)
{
    json_t *body = json_pack("{s:I, s:s}", "epoch", j->epoch, "outcome", outcome);
    double wait = 1, next_try = clock_now(), now;
    bool unreachable = false;
    struct client_reply r = {0};
    struct pp_error err;
    char path[96];

    snprintf(path, sizeof(path), "/api/v1/jobs/%lld/result", j->id);
    if (error)
        json_object_set_new(body, "error", json_string(error));
    if (report)
        json_object_set_new(body, "report", report);
    j->next_beat = 0; /* a fresh lease first */
    for (;;) {
        if (clock_now() >= j->next_beat) { /* keep the lease: the post may take a while */
            enum answer a = job_heartbeat(s, j);
            if (a == ANSWER_STALE) {
                slog(5, "%s result dropped: the job is no longer ours", j->ctx);
                goto out;
            }
            if (a != ANSWER_NONE && unreachable)
                next_try = clock_now(); /* the server is back: try now */
            unreachable = a == ANSWER_NONE;
        }
        now = clock_now();
        if (now >= next_try) {
            client_reply_clear(&r);
            struct beat *beat = job_beat_start(s, j);
            /* X-Job-Epoch: a post for an epoch the server has moved past is refused before its body is read
             */
            int rc = client_set_epoch(s->http, j->epoch, &err)
                         ? -1
                         : client_post(s->http, path, body, SERVE_RESULT_TIMEOUT_S, 0, &r, &err);
            struct pp_error clear_err;
            if (client_set_epoch(s->http, 0, &clear_err))
                slog(4, "%s: %s", j->ctx, clear_err.msg);
            job_beat_end(j, beat);
            if (rc == 0) {
                const char *state = json_string_value(json_object_get(r.body, "state"));
                slog(6, "%s %s: result posted (job %s)", j->ctx, outcome, state ? state : "?");
                goto out;
            }
            if (r.status == 409) {
                slog(5, "%s result not taken: %s", j->ctx, err.msg);
                goto out;
            }
            if (r.status != 0 && r.status != 502 && r.status != 503 && r.status != 504) {
                if (!json_object_get(body, "report")) {
                    slog(3, "%s result refused: %s", j->ctx, err.msg);
                    goto out;
                }
                /* A report the server cannot take must not leave the job hanging: fail it, saying why. */
                slog(3, "%s result refused: %s: posting it failed without the report", j->ctx, err.msg);
                json_object_del(body, "report");
                json_object_set_new(body, "outcome", json_string("failed"));
                pp_error_prefix(&err, "the server refused the report");
                json_object_set_new(body, "error", json_string(err.msg));
                continue;
            }
            if (r.interrupted)
                read_signals(s);
            else
                slog(4, "%s cannot post the result: %s: retrying in %.0f s", j->ctx, err.msg, wait);
            next_try = clock_now() + wait;
            wait = min_d(wait * 2, 30);
        }
        if (s->stopping && now >= s->stop_at + s->grace_s + SERVE_DELIVER_S) {
            slog(3, "%s stopping: the result was not delivered (the server re-queues the job)", j->ctx);
            goto out;
        }
        if (client_sleep(s->http, min_d(next_try, j->next_beat) - clock_now()))
            read_signals(s);
    }
out:
    client_reply_clear(&r);
    json_decref(body);
}

/* Run one claimed job in a child, then report it. */
static void job_run(struct serve *s, json_t *claimed)
{
    struct job *j = calloc(1, sizeof(*j));
    char error[2048];
    json_t *report = NULL;
    const char *model = json_string_value(json_object_get(claimed, "model"));
    struct pp_error err;
    int code;

    if (!j)
        return;
    j->child.out_fd = j->child.err_fd = j->child.progress_fd = -1;
    j->id = json_integer_value(json_object_get(claimed, "id"));
    j->epoch = json_integer_value(json_object_get(claimed, "epoch"));
    snprintf(j->ctx, sizeof(j->ctx), "job=%lld platform=%s model=%s", j->id, s->platform_id,
             model ? model : "?");
    if (!json_is_integer(json_object_get(claimed, "id")) ||
        !json_is_integer(json_object_get(claimed, "epoch"))) {
        slog(3, "claim answer without a job id and epoch: ignored");
        goto out;
    }
    j->timeout_s = json_is_integer(json_object_get(claimed, "timeout_s"))
                       ? (long)json_integer_value(json_object_get(claimed, "timeout_s"))
                       : 600;
    if (runner_args_from_job(&j->args, claimed, s->platform, &err)) {
        slog(3, "%s %s", j->ctx, err.msg);
        job_result(s, j, "failed", err.msg, NULL);
        goto out;
    }
    slog(6, "%s claimed (epoch %lld, %s, timeout %ld s)", j->ctx, j->epoch, j->args.summary, j->timeout_s);
    if (child_start(&j->child, j->args.argv, true, &s->child_mask, &err)) {
        slog(3, "%s cannot start the run: %s", j->ctx, err.msg);
        job_result(s, j, "failed", err.msg, NULL);
        goto out;
    }
    j->next_beat = clock_now() + s->heartbeat_s;
    job_watch(s, j);
    switch (j->end) {
    case END_STALE:
        slog(5, "%s dropped: the job is no longer this worker's", j->ctx);
        break;
    case END_SHUTDOWN:
        slog(5, "%s killed to stop the worker: the server re-queues it", j->ctx);
        break;
    case END_CANCELLED:
        job_result(s, j, "failed", "cancelled", NULL);
        break;
    case END_TIMEOUT:
        snprintf(error, sizeof(error), "timeout after %ld s", j->timeout_s);
        slog(4, "%s %s", j->ctx, error);
        job_result(s, j, "failed", error, NULL);
        break;
    default:
        code = WIFEXITED(j->child.status) ? WEXITSTATUS(j->child.status) : -1;
        if (code == RUN_OK || code == RUN_UNVERIFIED) {
            struct beat *beat = job_beat_start(s, j); /* reading 14 MB takes a while too */
            report = child_json(&j->child, &err);
            job_beat_end(j, beat);
        }
        if (code == RUN_OK && report) {
            slog(6, "%s succeeded", j->ctx);
            job_result(s, j, "succeeded", NULL, report);
            break;
        }
        if (code == RUN_OK)
            snprintf(error, sizeof(error), "the run ended without a report: %s", err.msg);
        else
            child_error(&j->child, report, error, sizeof(error));
        slog(4, "%s failed: %s", j->ctx, error);
        job_result(s, j, "failed", error, report);
    }
out:
    child_release(&j->child);
    runner_args_release(&j->args);
    free(j);
}

/* ---- the loop ---- */

enum call { CALL_OK, CALL_FAILED, CALL_GONE };

/* The server no longer knows this worker (it was marked gone, or its database was reset). */
static enum call call_failed(const struct client_reply *r)
{
    bool gone = r->status == 404 || r->status == 410 || strcmp(r->code, "worker_gone") == 0 ||
                strcmp(r->code, "wrong_worker") == 0; /* the server no longer knows this registration */
    return gone ? CALL_GONE : CALL_FAILED;
}

/* A heartbeat between jobs ({}). */
static enum call idle_heartbeat(struct serve *s)
{
    struct client_reply r;
    struct pp_error err;
    enum call c = CALL_OK;
    char path[96];

    snprintf(path, sizeof(path), "/api/v1/workers/%lld/heartbeat", s->worker_id);
    if (client_post(s->http, path, NULL, SERVE_CALL_TIMEOUT_S, 0, &r, &err) != 0) {
        c = call_failed(&r);
        if (r.interrupted)
            read_signals(s);
        else
            slog(4, "worker=%lld heartbeat: %s", s->worker_id, err.msg);
    }
    client_reply_clear(&r);
    return c;
}

/* One long-poll claim, and the job if one came. */
static enum call claim(struct serve *s, long wait_s, double *last_beat)
{
    struct client_reply r;
    struct pp_error err;
    enum call c = CALL_OK;
    char path[128];

    if (s->only_job > 0)
        snprintf(path, sizeof(path), "/api/v1/workers/%lld/claim?wait=%ld&job=%lld", s->worker_id, wait_s,
                 s->only_job);
    else
        snprintf(path, sizeof(path), "/api/v1/workers/%lld/claim?wait=%ld", s->worker_id, wait_s);
    s->waiting = false;
    if (client_post(s->http, path, NULL, wait_s + SERVE_CALL_TIMEOUT_S, 0, &r, &err) == 0) {
        const char *waiting = json_string_value(json_object_get(r.body, "waiting"));
        if (json_is_object(json_object_get(r.body, "job"))) {
            s->ran = true;
            job_run(s, json_object_get(r.body, "job"));
            *last_beat = 0; /* the job's heartbeats are over: send an idle one now */
        } else if (waiting && s->only_job > 0) {
            /* one measurement at a time: another job of this host keeps it queued (docs/ARCHITECTURE.md) */
            s->waiting = true;
            slog(6, "worker=%lld job=%lld waits: %s", s->worker_id, s->only_job, waiting);
        }
    } else {
        c = call_failed(&r);
        if (r.interrupted)
            read_signals(s);
        else
            slog(4, "worker=%lld claim: %s", s->worker_id, err.msg);
    }
    client_reply_clear(&r);
    return c;
}

/* Claim and run jobs until a stop is asked. Returns RUN_OK, or what a needed new registration returned. */
static int serve_loop(struct serve *s)
{
    double wait = 1, last_beat = 0;
    long wait_s = SERVE_CLAIM_WAIT_S;
    enum call c;
    int rc;

    /* An idle heartbeat goes before each claim, and a claim's long poll lasts at most one heartbeat period:
     * an idle worker beats every heartbeat_s as a busy one does (a waiting claim does not refresh its
     * heartbeat, and "last heartbeat 25 s ago" of a worker told to beat every 5 s reads as a fault), and the
     * claim ends within the lease. */
    if (s->heartbeat_s < wait_s)
        wait_s = s->heartbeat_s >= 1 ? (long)s->heartbeat_s : 1;
    if (s->lease_s - s->heartbeat_s < wait_s)
        wait_s = s->lease_s - s->heartbeat_s > 1 ? (long)(s->lease_s - s->heartbeat_s) : 1;
    if (s->once && !s->only_job) /* --job long-polls: its job may wait for its host to be free */
        wait_s = 0;
    while (!s->stopping) {
        c = CALL_OK;
        if (clock_now() - last_beat >= s->heartbeat_s) {
            c = idle_heartbeat(s);
            last_beat = clock_now();
        }
        if (c != CALL_GONE && !s->stopping)
            c = claim(s, wait_s, &last_beat);
        if (c == CALL_GONE) {
            slog(5, "worker=%lld unknown to the server: registering again", s->worker_id);
            if ((rc = do_register(s)) != RUN_OK)
                return rc;
            last_beat = clock_now();
        } else if (c == CALL_OK || s->stopping) {
            wait = 1;
            /* one claim: a job named by --job is queued already, or it is not ours to run; unless the server
             * says it waits for its host, then claim it again */
            if (s->once && !s->waiting)
                break;
        } else {
            slog(4, "worker=%lld retrying in %.0f s", s->worker_id, wait);
            if (client_sleep(s->http, wait))
                read_signals(s);
            wait = min_d(wait * 2, 30);
        }
    }
    return RUN_OK;
}

static void deregister(struct serve *s)
{
    struct client_reply r;
    struct pp_error err;
    char path[96];

    snprintf(path, sizeof(path), "/api/v1/workers/%lld/deregister", s->worker_id);
    if (client_post(s->http, path, NULL, SERVE_CALL_TIMEOUT_S, 5, &r, &err) == 0)
        slog(6, "worker=%lld deregistered", s->worker_id);
    else
        slog(4, "worker=%lld deregister: %s", s->worker_id, err.msg);
    client_reply_clear(&r);
}

static const char serve_usage[] =
    "usage: ppbench-worker serve --server URL --platform ID [--token TOKEN]\n"
    "  --server URL     ppbenchd's base url, e.g. http://127.0.0.1:8080 (default: $PPBENCH_SERVER)\n"
    "  --token TOKEN    a worker token (default: $PPBENCH_WORKER_TOKEN, which keeps it out of ps)\n"
    "  --platform ID    an id from `ppbench-worker list`, host/id, GPU UUID or PCI bus id\n"
    "  --host NAME      the host name to register (default: $SLURMD_NODENAME under Slurm, else the "
    "hostname)\n"
    "  --once           register, claim one job (no long poll), run it, post its result, deregister, exit:\n"
    "                   what a Slurm batch job runs (docs/ARCHITECTURE.md, \"Slurm\")\n"
    "  --job ID         with --once: claim only this job (the ppbench job the Slurm job was submitted for),\n"
    "                   waiting while another job of the host keeps it queued (exclusive_<kind>)\n"
    "  --grace S        seconds a running job may go on after a stop request (SIGTERM) before it is killed\n"
    "                   and handed back to the queue (default 10; ppbenchd's job_grace_s for its workers)\n"
    "  --runners FILE   the site's external programs offered as models (default $PPBENCH_RUNNERS, else\n"
    "                   " RUNNERS_DEFAULT " if it exists): the platform's runners are registered beside its\n"
    "                   models, and a job that names one runs its program (worker/runners.h)\n"
    "Exit status: 0 after SIGTERM or SIGINT, 2 bad options, unknown platform or refused token,\n"
    "3 discovery failed, 4 another worker serves the platform.\n";

int serve_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"server", required_argument, NULL, 's'},   {"token", required_argument, NULL, 't'},
        {"platform", required_argument, NULL, 'p'}, {"host", required_argument, NULL, 'H'},
        {"once", no_argument, NULL, 'o'},           {"job", required_argument, NULL, 'j'},
        {"runners", required_argument, NULL, 'R'},  {"grace", required_argument, NULL, 'g'},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
    };

    log_set_prefix("serve: ");
    struct serve s = {.sig_fd = -1, .chld_fd = -1, .grace_s = SERVE_GRACE_S};
    const char *server = getenv("PPBENCH_SERVER"), *token = getenv("PPBENCH_WORKER_TOKEN"), *want = NULL;
    const char *host_opt = getenv("SLURMD_NODENAME"), *runners_path = NULL;
    static struct runners runners;
    char *end;
    char host[256] = "", url[512] = "", tok[512] = "";
    json_t *platform = NULL;
    struct pp_error err;
    sigset_t stop, chld;
    int c, fd, rc = RUN_FAILED;

    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 's')
            server = optarg;
        else if (c == 't')
            token = optarg;
        else if (c == 'p')
            want = optarg;
        else if (c == 'H')
            host_opt = optarg;
        else if (c == 'o')
            s.once = true;
        else if (c == 'R')
            runners_path = optarg;
        else if (c == 'g') {
            long g = strtol(optarg, &end, 10);
            if (*end || !*optarg || g < 0 || g > 3600) {
                fprintf(stderr, "ppbench-worker: --grace needs whole seconds from 0 to 3600, got \"%s\"\n",
                        optarg);
                return RUN_USAGE;
            }
            s.grace_s = (double)g;
        } else if (c == 'j') {
            s.only_job = strtoll(optarg, &end, 10);
            if (*end || s.only_job < 1) {
                fprintf(stderr, "ppbench-worker: --job needs a job id, got \"%s\"\n", optarg);
                return RUN_USAGE;
            }
        } else if (c == 'h') {
            fputs(serve_usage, stdout);
            return RUN_OK;
        } else {
            fprintf(stderr, "ppbench-worker: unknown or incomplete option \"%s\" (see serve --help)\n",
                    argv[optind - 1]);
            return RUN_USAGE;
        }
    }
    if (s.only_job && !s.once) {
        fprintf(stderr, "ppbench-worker: --job goes with --once\n");
        return RUN_USAGE;
    }
    if (optind < argc || !server || !*server || !want) {
        fprintf(stderr,
                "ppbench-worker: serve needs --server (or PPBENCH_SERVER) and --platform (see --help)\n");
        return RUN_USAGE;
    }
    /* The runners are checked now, whole: a site's mistake stops the worker with its line, not a job later.
     * The job's child reads the same file (PPBENCH_RUNNERS), for the one it runs. */
    if (runners_load(&runners, runners_path, &err)) {
        fprintf(stderr, "ppbench-worker: %s\n", err.msg);
        return RUN_USAGE;
    }
    if (runners.path[0])
        setenv("PPBENCH_RUNNERS", runners.path, 1);
    /* Children must not see the token (the report records PPBENCH_* variables). */
    snprintf(url, sizeof(url), "%s", server);
    snprintf(tok, sizeof(tok), "%s", token ? token : "");
    unsetenv("PPBENCH_WORKER_TOKEN");
    unsetenv("PPBENCH_SERVER");
    while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2) /* children's stdio must be fds 0..2 */
        ;
    if (fd > 2)
        close(fd);
    if (host_opt && *host_opt)
        snprintf(host, sizeof(host), "%s", host_opt);
    else
        gethostname(host, sizeof(host) - 1);
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &stop, &s.child_mask);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    signal(SIGPIPE, SIG_IGN);
    if ((s.sig_fd = signalfd(-1, &stop, SFD_NONBLOCK | SFD_CLOEXEC)) < 0 ||
        (s.chld_fd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
        slog(3, "cannot create a signalfd: %s", strerror(errno));
        goto out;
    }
    if ((rc = child_platform(want, host, &s.child_mask, SERVE_DISCOVERY_S, &platform, &err)) != RUN_OK) {
        slog(3, "%s", err.msg);
        goto out;
    }
    const char *uuid = json_string_value(json_object_get(platform, "uuid"));
    const char *pci = json_string_value(json_object_get(platform, "pci_bus_id"));
    snprintf(s.platform, sizeof(s.platform), "%s",
             uuid && *uuid ? uuid
             : pci && *pci ? pci
                           : json_string_value(json_object_get(platform, "id")));
    rc = RUN_FAILED;
    /* the platform's runners, beside its models (they are models to the server: platforms.models) */
    json_object_set_new(platform, "runners",
                        runners_json(&runners, json_string_value(json_object_get(platform, "id"))));
    s.registration = registration_new(host, platform);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0 || !(s.http = client_new(url, tok, &err))) {
        slog(3, "%s", err.msg);
        rc = RUN_USAGE;
        goto out;
    }
    client_set_interrupt(s.http, s.sig_fd);
    client_set_retry_hook(s.http, on_retry, NULL);
    slog(6, "serving platform %s of %s at %s", s.platform, host, url);
    rc = do_register(&s);
    /* Under Slurm the previous job's worker on this platform may have been killed without deregistering:
     * its registration expires after one lease, so a --once worker waits that long for the platform. */
    for (int i = 0; s.once && rc == SERVE_TAKEN && i < 60 && !s.stopping; i++) {
        if (client_sleep(s.http, 2))
            read_signals(&s);
        rc = do_register(&s);
    }
    if (rc == RUN_OK && !s.stopping)
        rc = serve_loop(&s);
    if (rc == RUN_OK && s.once && !s.ran && s.only_job)
        slog(5, "job=%lld not claimable (cancelled, finished or run elsewhere)", s.only_job);
    else if (rc == RUN_OK && s.once && !s.ran)
        slog(5, "nothing to claim");
    if (rc == RUN_OK && s.worker_id > 0)
        deregister(&s);
    slog(6, "stopped");
out:
    client_free(s.http);
    curl_global_cleanup();
    json_decref(s.registration);
    if (s.sig_fd >= 0)
        close(s.sig_fd);
    if (s.chld_fd >= 0)
        close(s.chld_fd);
    runners_release(&runners);
    return rc;
}
