/*
 * runner: runs one suite on one platform through one model and writes its report; `run` and the job child
 * of `serve` both come through here, so a job runs exactly what the standalone command runs. runner_run owns
 * the discovered platform list, the backend context and the result for the length of one call, on the main
 * thread (the progress callback runs there too, between iterations). runner_child_* start `run` in a child
 * process and watch it from the parent's single thread: the struct runner_child owns the child's fds and is
 * responsible for reaping it.
 */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernels/registry.h"
#include "lib/clock.h"
#include "worker/affinity.h"
#include "worker/nvml.h"
#include "worker/platform.h"
#include "worker/provenance.h"
#include "worker/report.h"
#include "worker/run.h"
#include "worker/runner_staggered.h"
#include "worker/runner_wilson.h"

struct progress_state {
    int fd;
    double last; /* clock_now() of the last line written */
};

/* "progress 0.42\n" at most every 0.1 s, and always the last one. A full pipe drops the line (the write
 * end is non-blocking when serve made it): the benchmark never waits for its parent. */
static void progress_write(void *arg, unsigned done, unsigned total)
{
    struct progress_state *s = arg;
    double now = clock_now();
    char line[32];
    int len;

    if (done < total && now - s->last < 0.1)
        return;
    s->last = now;
    len = snprintf(line, sizeof(line), "progress %.4f\n", total ? (double)done / total : 1.0);
    if (s->fd >= 0 && write(s->fd, line, (size_t)len) < 0 && errno != EAGAIN)
        s->fd = -1; /* the reader is gone: progress is best effort */
}

static void list_ids(const struct pp_platform_list *pl, char *out, size_t size)
{
    size_t used = 0;

    out[0] = '\0';
    for (size_t i = 0; i < pl->len; i++)
        used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%s%s", i ? ", " : "",
                                 pl->items[i].id);
}

/* Record the GPU's clocks (before or after the run) where NVML can tell. */
static void add_clocks(struct run_report *r, const char *when)
{
    unsigned sm, mem;
    struct pp_error err;
    char key[48];

    if (r->platform->kind != PP_DEVICE_GPU)
        return;
    if (nvml_clocks(r->platform->uuid, r->platform->pci_bus_id, &sm, &mem, &err) == 0) {
        snprintf(key, sizeof(key), "gpu.clocks_%s", when);
        info_add(&r->provenance, key, "sm %u MHz, memory %u MHz", sm, mem);
    }
}

/* "model cuda cannot drive platform cpu0 (cpu0 runs: openmp, opencl)", then that model's discovery notes. */
static int no_device(const struct pp_platform_list *pl, const struct pp_platform *p, const char *model,
                     struct pp_error *err)
{
    char models[128];
    size_t used;

    platform_models(p, models, sizeof(models));
    pp_error_set(err, "model %s cannot drive platform %s (%s runs: %s)", model, p->id, p->id, models);
    for (size_t i = 0; i < pl->nnotes; i++) {
        used = strlen(err->msg);
        if (strncmp(pl->notes[i], model, strlen(model)) == 0)
            snprintf(err->msg + used, sizeof(err->msg) - used, "\n  %s", pl->notes[i]);
    }
    return RUN_USAGE;
}

/* The verification failures, joined, as far as they fit. */
static int unverified(const struct stream_result *res, struct pp_error *err)
{
    size_t used = 0;

    err->msg[0] = '\0';
    for (size_t i = 0; i < res->nkernels && used < sizeof(err->msg); i++)
        if (!res->kernels[i].verified)
            used += (size_t)snprintf(err->msg + used, sizeof(err->msg) - used, "%sverification failed: %s",
                                     used ? "; " : "", res->kernels[i].detail);
    return RUN_UNVERIFIED;
}

static int write_report(FILE *out, enum runner_format fmt, const struct run_report *r, struct pp_error *err)
{
    if (fmt == RUNNER_CSV)
        report_csv(out, r);
    else if (fmt == RUNNER_TABLE)
        report_table(out, r);
    else if (report_json(out, r, err))
        return -1;
    if (fflush(out) != 0)
        return pp_error_set(err, "cannot write the report: %s", strerror(errno));
    return 0;
}

int runner_report(FILE *out, enum runner_format fmt, const struct run_report *r,
                  const struct runner_writers *w, bool verified, const char *detail, struct pp_error *err)
{
    if (fmt == RUNNER_CSV)
        w->csv(out, r);
    else if (fmt == RUNNER_TABLE)
        w->table(out, r);
    else if (w->json(out, r, err))
        return RUN_FAILED;
    if (fflush(out) != 0) {
        pp_error_set(err, "cannot write the report: %s", strerror(errno));
        return RUN_FAILED;
    }
    if (verified)
        return RUN_OK;
    fprintf(stderr, "verification failed: %s\n", detail);
    snprintf(err->msg, sizeof(err->msg), "verification failed: %s", detail);
    return RUN_UNVERIFIED;
}

/* The device of model on the platform key names, or NULL. */
static const struct pp_device *platform_device_of(const struct pp_platform_list *pl, const char *key,
                                                  const char *model)
{
    const struct pp_platform *p = platform_find(pl, key);
    return p ? platform_device(p, model) : NULL;
}

int runner_run(const struct runner_job *job, FILE *out, enum runner_format fmt, struct pp_error *err)
{
    static struct pp_platform_list pl; /* large: keep it off the stack */
    struct stream_params params = job->stream;
    struct progress_state progress = {.fd = job->progress_fd, .last = 0};
    struct run_report r;
    struct stream_result res;
    const struct pp_backend *b;
    struct pp_ctx *ctx = NULL;
    char ids[256];
    int rc;

    bool wilson = strcmp(job->suite, "wilson") == 0, staggered = strcmp(job->suite, "staggered") == 0;

    if (strcmp(job->suite, "stream") != 0 && !wilson && !staggered) {
        pp_error_set(err, "unknown suite \"%s\" (built: stream, wilson, staggered)", job->suite);
        return RUN_USAGE;
    }
    if (!(b = registry_find(job->model))) {
        pp_error_set(err, "unknown model \"%s\" (built: %s)", job->model, registry_names());
        return RUN_USAGE;
    }
    if ((wilson || staggered) && pp_backend_ops(b, job->suite) == NULL) {
        pp_error_set(err, "model %s has no %s suite", job->model, job->suite);
        return RUN_USAGE;
    }
    /* Before any runtime starts its threads (discovery starts them): they inherit this thread's mask. */
    if (strcmp(job->model, "openmp") != 0)
        affinity_release_openmp_binding();
    /* Discover only the job's model when the key names one platform whatever is asked; ask every model when
     * that finds nothing, so the error says what the platform does run. */
    if (!platform_key_is_global(job->platform) || platform_discover_model(&pl, job->model, err) ||
        !platform_device_of(&pl, job->platform, job->model)) {
        if (platform_discover(&pl, err))
            return RUN_FAILED;
    }
    memset(&r, 0, sizeof(r));
    r.model = job->model;
    if (!(r.platform = platform_find(&pl, job->platform))) {
        list_ids(&pl, ids, sizeof(ids));
        pp_error_set(err, "unknown platform \"%s\" (this host has: %s)", job->platform, ids);
        return RUN_USAGE;
    }
    if (!(r.device = platform_device(r.platform, job->model)))
        return no_device(&pl, r.platform, job->model, err);
    if (wilson) {
        struct wilson_params wp = job->wilson;
        if (job->progress_fd >= 0) {
            wp.progress = progress_write;
            wp.progress_arg = &progress;
        }
        return runner_wilson(b, &r, &wp, out, fmt, err);
    }
    if (staggered) {
        struct staggered_params sp = job->staggered;
        if (job->progress_fd >= 0) {
            sp.progress = progress_write;
            sp.progress_arg = &progress;
        }
        return runner_staggered(b, &r, &sp, out, fmt, err);
    }
    if (stream_check(&params, r.device, err))
        return RUN_USAGE;
    if (b->open(r.device, &ctx, err)) {
        pp_error_prefix(err, "%s on %s", job->model, r.platform->id);
        return RUN_FAILED;
    }
    if (job->progress_fd >= 0) {
        params.progress = progress_write;
        params.progress_arg = &progress;
    }
    provenance_collect(&r.provenance);
    add_clocks(&r, "before");
    if (stream_run(b, ctx, &params, &res, err)) {
        pp_error_prefix(err, "%s on %s", job->model, r.platform->id);
        rc = RUN_FAILED;
        goto out;
    }
    add_clocks(&r, "after");
    b->describe(ctx, &r.backend);
    r.result = &res;
    if (write_report(out, fmt, &r, err)) {
        rc = RUN_FAILED;
        goto out;
    }
    report_failures(stderr, &r);
    rc = res.verified ? RUN_OK : unverified(&res, err);
out:
    stream_result_release(&res);
    b->close(ctx);
    return rc;
}

/* ---- a job in a child process ---- */

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Between fork and exec: async-signal-safe calls only (the parent may have libcurl's resolver threads). */
static void child_exec(char *const argv[], int out_fd, int err_fd, int progress_fd, pid_t parent,
                       const sigset_t *sigmask)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    static const char msg[] = "ppbench-worker: cannot exec /proc/self/exe\n";

    setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(127);
    sigaction(SIGPIPE, &dfl, NULL); /* ignored in the parent; SIG_IGN would survive exec */
    sigprocmask(SIG_SETMASK, sigmask, NULL);
    if (dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0 || (progress_fd >= 0 && dup2(progress_fd, 3) < 0))
        _exit(127);
    if (progress_fd == 3)
        fcntl(3, F_SETFD, 0); /* dup2 onto itself keeps close-on-exec */
    if (close_range(progress_fd >= 0 ? 4 : 3, ~0u, 0) != 0)
        for (int fd = progress_fd >= 0 ? 4 : 3; fd < 1024; fd++)
            close(fd);
    execv("/proc/self/exe", argv);
    if (write(2, msg, sizeof(msg) - 1) < 0)
        _exit(127);
    _exit(127);
}

int runner_child_start(struct runner_child *ch, char *const argv[], bool progress, const sigset_t *sigmask,
                       struct pp_error *err)
{
    int errp[2] = {-1, -1}, progp[2] = {-1, -1};
    pid_t parent = getpid();

    memset(ch, 0, sizeof(*ch));
    ch->err_fd = ch->progress_fd = -1;
    ch->progress = -1;
    if ((ch->out_fd = memfd_create("ppbench-report", MFD_CLOEXEC)) < 0 || pipe2(errp, O_CLOEXEC) != 0 ||
        fcntl(errp[0], F_SETFL, O_NONBLOCK) != 0 ||
        (progress && pipe2(progp, O_CLOEXEC | O_NONBLOCK) != 0)) { /* a full pipe drops a progress line */
        pp_error_set(err, "cannot create the job's pipes: %s", strerror(errno));
        goto fail;
    }
    if ((ch->pid = fork()) < 0) {
        pp_error_set(err, "cannot fork: %s", strerror(errno));
        goto fail;
    }
    if (ch->pid == 0)
        child_exec(argv, ch->out_fd, errp[1], progp[1], parent, sigmask);
    close(errp[1]);
    close_fd(&progp[1]);
    ch->err_fd = errp[0];
    ch->progress_fd = progp[0];
    return 0;
fail:
    ch->pid = 0;
    close_fd(&errp[0]);
    close_fd(&errp[1]);
    close_fd(&progp[0]);
    close_fd(&progp[1]);
    close_fd(&ch->out_fd);
    return -1;
}

/* Keep the last bytes of stderr, NUL-terminated. */
static void tail_add(struct runner_child *ch, const char *buf, size_t n)
{
    size_t cap = sizeof(ch->tail) - 1;

    if (n > cap) {
        buf += n - cap;
        n = cap;
    }
    if (ch->tail_len + n > cap) {
        size_t drop = ch->tail_len + n - cap;
        memmove(ch->tail, ch->tail + drop, ch->tail_len - drop);
        ch->tail_len -= drop;
    }
    memcpy(ch->tail + ch->tail_len, buf, n);
    ch->tail_len += n;
    ch->tail[ch->tail_len] = '\0';
}

static void progress_add(struct runner_child *ch, const char *buf, size_t n)
{
    double v;

    for (size_t i = 0; i < n; i++) {
        if (buf[i] != '\n') {
            if (ch->line_len < sizeof(ch->line) - 1)
                ch->line[ch->line_len++] = buf[i];
            continue;
        }
        ch->line[ch->line_len] = '\0';
        ch->line_len = 0;
        if (sscanf(ch->line, "progress %lf", &v) == 1 && v >= 0 && v <= 1)
            ch->progress = v;
    }
}

/* Read fd until it would block; at EOF close it. */
static void drain(struct runner_child *ch, int *fd, void (*add)(struct runner_child *, const char *, size_t))
{
    char buf[4096];
    ssize_t n;

    while (*fd >= 0) {
        n = read(*fd, buf, sizeof(buf));
        if (n > 0)
            add(ch, buf, (size_t)n);
        else if (n == 0 || (errno != EINTR && errno != EAGAIN))
            close_fd(fd);
        else if (errno == EAGAIN)
            break;
    }
}

void runner_child_read(struct runner_child *ch)
{
    drain(ch, &ch->err_fd, tail_add);
    drain(ch, &ch->progress_fd, progress_add);
}

bool runner_child_reap(struct runner_child *ch)
{
    if (ch->pid > 0 && waitpid(ch->pid, &ch->status, WNOHANG) == ch->pid)
        ch->pid = 0;
    return ch->pid == 0;
}

bool runner_child_wait(struct runner_child *ch, double timeout_s)
{
    double end = clock_now() + timeout_s;

    while (!runner_child_reap(ch)) {
        struct pollfd p[2] = {{.fd = ch->err_fd, .events = POLLIN},
                              {.fd = ch->progress_fd, .events = POLLIN}};
        if (clock_now() >= end)
            return false;
        poll(p, 2, 50); /* negative fds are skipped; the poll also paces the reaping */
        runner_child_read(ch);
    }
    runner_child_read(ch);
    return true;
}

void runner_child_signal(struct runner_child *ch, int sig)
{
    if (ch->pid > 0)
        kill(-ch->pid, sig); /* its process group: anything it started goes too */
}

json_t *runner_child_json(struct runner_child *ch, struct pp_error *err)
{
    json_error_t jerr;
    json_t *doc;

    if (lseek(ch->out_fd, 0, SEEK_SET) != 0) {
        pp_error_set(err, "cannot read the child's output: %s", strerror(errno));
        return NULL;
    }
    if (!(doc = json_loadfd(ch->out_fd, 0, &jerr)))
        pp_error_set(err, "no json document from the child: %s", jerr.text);
    return doc;
}

/* The last n lines of stderr, newline-terminated lines, without the final newline. */
static const char *last_lines(const struct runner_child *ch, int n)
{
    const char *p = ch->tail + ch->tail_len;

    if (p > ch->tail && p[-1] == '\n')
        p--;
    while (p > ch->tail && (p[-1] != '\n' || --n > 0))
        p--;
    return p;
}

/* The runner's own message: from the last line starting "ppbench-worker: " to the end of stderr. */
static bool own_message(const struct runner_child *ch, char *out, size_t size)
{
    static const char prefix[] = "ppbench-worker: ";
    const char *found = NULL, *p = ch->tail;
    size_t len;

    for (; (p = strstr(p, prefix)); p++)
        if (p == ch->tail || p[-1] == '\n')
            found = p;
    if (!found)
        return false;
    found += sizeof(prefix) - 1;
    len = strlen(found);
    while (len > 0 && found[len - 1] == '\n')
        len--;
    snprintf(out, size, "%.*s", (int)len, found);
    return true;
}

/* "verification failed: triad: a[7] = ...; verification failed: dot: ..." from the report. */
static bool failures(json_t *report, char *out, size_t size)
{
    json_t *k;
    size_t i, used = 0;

    out[0] = '\0';
    json_array_foreach(json_object_get(report, "kernels"), i, k)
    {
        const char *e = json_string_value(json_object_get(k, "error"));
        if (json_is_false(json_object_get(k, "verified")) && used < size)
            used += (size_t)snprintf(out + used, size - used, "%sverification failed: %s", used ? "; " : "",
                                     e ? e : json_string_value(json_object_get(k, "kernel")));
    }
    return used > 0;
}

void runner_child_error(const struct runner_child *ch, json_t *report, char *out, size_t size)
{
    int code = WIFEXITED(ch->status) ? WEXITSTATUS(ch->status) : -1;
    const char *abbrev = WIFSIGNALED(ch->status) ? sigabbrev_np(WTERMSIG(ch->status)) : NULL;
    size_t len;

    if (WIFSIGNALED(ch->status))
        snprintf(out, size, "killed by signal %d (SIG%s)\n%s", WTERMSIG(ch->status), abbrev ? abbrev : "?",
                 last_lines(ch, 20));
    else if (code == RUN_UNVERIFIED && failures(report, out, size))
        return;
    else if ((code == RUN_UNVERIFIED || code == RUN_USAGE || code == RUN_FAILED) &&
             own_message(ch, out, size))
        return;
    else
        snprintf(out, size, "exited with status %d\n%s", code, last_lines(ch, 20));
    for (len = strlen(out); len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' '); len--)
        out[len - 1] = '\0'; /* no stderr: no empty line */
}

/* `ppbench-worker list --json` in a child: the document (new reference), or NULL with err. */
static json_t *child_list(const sigset_t *sigmask, double timeout_s, struct pp_error *err)
{
    char *argv[] = {"ppbench-worker", "list", "--json", NULL};
    struct runner_child ch;
    char why[1024];
    json_t *doc = NULL;

    if (runner_child_start(&ch, argv, false, sigmask, err))
        return NULL;
    if (!runner_child_wait(&ch, timeout_s)) {
        pp_error_set(err, "platform discovery did not end within %.0f s", timeout_s);
        goto out;
    }
    if (!WIFEXITED(ch.status) || WEXITSTATUS(ch.status) != 0) {
        runner_child_error(&ch, NULL, why, sizeof(why));
        pp_error_set(err, "platform discovery failed: %s", why);
        goto out;
    }
    doc = runner_child_json(&ch, err);
out:
    runner_child_release(&ch);
    return doc;
}

static bool platform_matches(json_t *p, const char *key, const char *host)
{
    const char *id = json_string_value(json_object_get(p, "id"));
    const char *uuid = json_string_value(json_object_get(p, "uuid"));
    const char *pci = json_string_value(json_object_get(p, "pci_bus_id"));
    size_t hl = strlen(host), kl, pl = pci ? strlen(pci) : 0;

    if (hl && strncasecmp(key, host, hl) == 0 && key[hl] == '/') /* the server's form: "node7/cpu0" */
        key += hl + 1;
    kl = strlen(key);
    if ((id && strcasecmp(id, key) == 0) || (uuid && *uuid && strcasecmp(uuid, key) == 0))
        return true;
    /* PCI bus ids: nvidia-smi's 8-digit domain as well as 4 digits, as platform_find takes them. */
    return pl && kl >= pl && strcasecmp(key + kl - pl, pci) == 0 && strspn(key, "0") >= kl - pl;
}

int runner_child_platform(const char *key, const char *host, const sigset_t *sigmask, double timeout_s,
                          json_t **out, struct pp_error *err)
{
    json_t *doc = child_list(sigmask, timeout_s, err), *p;
    char ids[256] = "";
    size_t i, used = 0;

    *out = NULL;
    if (!doc)
        return RUN_FAILED;
    json_array_foreach(json_object_get(doc, "platforms"), i, p)
    {
        if (platform_matches(p, key, host)) {
            *out = json_incref(p);
            break;
        }
        used += (size_t)snprintf(ids + used, used < sizeof(ids) ? sizeof(ids) - used : 0, "%s%s",
                                 used ? ", " : "", json_string_value(json_object_get(p, "id")));
    }
    json_decref(doc);
    if (*out)
        return RUN_OK;
    pp_error_set(err, "unknown platform \"%s\" (this host has: %s)", key, ids);
    return RUN_USAGE;
}

void runner_child_release(struct runner_child *ch)
{
    if (ch->pid > 0) {
        kill(-ch->pid, SIGKILL);
        while (waitpid(ch->pid, &ch->status, 0) < 0 && errno == EINTR)
            ;
        ch->pid = 0;
    }
    close_fd(&ch->out_fd);
    close_fd(&ch->err_fd);
    close_fd(&ch->progress_fd);
}
