/*
 * child: a job in a child process. child_start forks and execs `ppbench-worker <args>` from /proc/self/exe;
 * the rest watch it from the parent's single thread (worker/serve.c's main loop): the struct child owns the
 * child's fds and is responsible for reaping it. Also `list --json` in a child, for serve's platform.
 */
#include "child.h"

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

#include "lib/clock.h"
#include "worker/run.h"

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Between fork and exec: async-signal-safe calls only (the parent may have libcurl's resolver threads). */
static void exec_in_child(char *const argv[], int out_fd, int err_fd, int progress_fd, pid_t parent,
                          const sigset_t *sigmask)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    static const char msg[] = "ppbench-worker: cannot exec /proc/self/exe\n";

    setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(127);
    /* A benchmark that outgrows the memory is the first the OOM killer takes, never ppbenchd or PostgreSQL
     * (best effort: raising one's own score needs no privilege). */
    int oom = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (oom >= 0) {
        if (write(oom, "1000", 4) < 0) { /* best effort */
        }
        close(oom);
    }
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

int child_start(struct child *ch, char *const argv[], bool progress, const sigset_t *sigmask,
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
        exec_in_child(argv, ch->out_fd, errp[1], progp[1], parent, sigmask);
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
static void tail_add(struct child *ch, const char *buf, size_t n)
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

static void progress_add(struct child *ch, const char *buf, size_t n)
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
static void drain(struct child *ch, int *fd, void (*add)(struct child *, const char *, size_t))
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

void child_read(struct child *ch)
{
    drain(ch, &ch->err_fd, tail_add);
    drain(ch, &ch->progress_fd, progress_add);
}

bool child_reap(struct child *ch)
{
    if (ch->pid > 0 && waitpid(ch->pid, &ch->status, WNOHANG) == ch->pid)
        ch->pid = 0;
    return ch->pid == 0;
}

bool child_wait(struct child *ch, double timeout_s)
{
    double end = clock_now() + timeout_s;

    while (!child_reap(ch)) {
        struct pollfd p[2] = {{.fd = ch->err_fd, .events = POLLIN},
                              {.fd = ch->progress_fd, .events = POLLIN}};
        if (clock_now() >= end)
            return false;
        poll(p, 2, 50); /* negative fds are skipped; the poll also paces the reaping */
        child_read(ch);
    }
    child_read(ch);
    return true;
}

void child_signal(struct child *ch, int sig)
{
    if (ch->pid > 0)
        kill(-ch->pid, sig); /* its process group: anything it started goes too */
}

json_t *child_json(struct child *ch, struct pp_error *err)
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
static const char *last_lines(const struct child *ch, int n)
{
    const char *p = ch->tail + ch->tail_len;

    if (p > ch->tail && p[-1] == '\n')
        p--;
    while (p > ch->tail && (p[-1] != '\n' || --n > 0))
        p--;
    return p;
}

/* The runner's own message: from the last line starting "ppbench-worker: " to the end of stderr. */
static bool own_message(const struct child *ch, char *out, size_t size)
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

void child_error(const struct child *ch, json_t *report, char *out, size_t size)
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
    struct child ch;
    char why[1024];
    json_t *doc = NULL;

    if (child_start(&ch, argv, false, sigmask, err))
        return NULL;
    if (!child_wait(&ch, timeout_s)) {
        pp_error_set(err, "platform discovery did not end within %.0f s", timeout_s);
        goto out;
    }
    if (!WIFEXITED(ch.status) || WEXITSTATUS(ch.status) != 0) {
        child_error(&ch, NULL, why, sizeof(why));
        pp_error_set(err, "platform discovery failed: %s", why);
        goto out;
    }
    doc = child_json(&ch, err);
out:
    child_release(&ch);
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

int child_platform(const char *key, const char *host, const sigset_t *sigmask, double timeout_s, json_t **out,
                   struct pp_error *err)
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

void child_release(struct child *ch)
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
