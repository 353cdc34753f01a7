/*
 * slurm: what every part of the Slurm executor stands on: its settings and the running of a Slurm command.
 * The settings (the slurm_* keys; none is reloadable) are copied once by slurm_configure, at start by
 * slurm_start (executor.c) or by the `ppbenchd slurm` command (node.c), and read-only afterwards, by any
 * thread. slurm_exec runs one command (sbatch, squeue, scancel, scontrol, sinfo) with a deadline and reaps
 * its child by pid, so it never takes another thread's child; it waits (seconds at most) on whichever thread
 * calls it. The rest of the folder stands on this file, which includes none of it: executor.c (the thread:
 * submit, follow, recover), fleet.c (the thread's side of fleet health), node.c (nodes and partitions:
 * scontrol, sinfo).
 */
#include "server/slurm/slurm.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/clock.h"
#include "server/spawn.h"

/* The settings, copied by slurm_configure; read-only afterwards. enabled: the executor runs. */
static struct {
    bool enabled;
    struct config c;
    char url[512];
    char kind[8];        /* "" any, else "cpu" or "gpu" */
    char host_like[260]; /* slurm_platforms' host pattern as a LIKE pattern; "%" any */
    char host_glob[260]; /* the same as given ("*" any) */
} g;

bool slurm_enabled(void)
{
    return g.enabled;
}

void slurm_set_enabled(bool on)
{
    g.enabled = on;
}

const char *slurm_url(void)
{
    return g.url;
}

const struct config *slurm_config(void)
{
    return &g.c;
}

const char *slurm_takes_kind(void)
{
    return g.kind;
}

const char *slurm_takes_like(void)
{
    return g.host_like;
}

bool slurm_takes(const char *kind, const char *host)
{
    return g.enabled && (!g.kind[0] || (kind && !strcmp(kind, g.kind))) &&
           fnmatch(g.host_glob, host ? host : "", 0) == 0;
}

static int parse_platforms(const char *sel, char *kind, size_t ksize, char *like, size_t lsize, char *glob,
                           size_t gsize, struct pp_error *err)
{
    char buf[256], *save = NULL, *t;
    size_t n = 0;

    snprintf(kind, ksize, "%s", "");
    snprintf(like, lsize, "%s", "%");
    snprintf(glob, gsize, "%s", "*");
    snprintf(buf, sizeof(buf), "%s", sel);
    for (t = strtok_r(buf, " ,", &save); t; t = strtok_r(NULL, " ,", &save)) {
        if (!strcmp(t, "all"))
            continue;
        if (!strcmp(t, "kind=cpu") || !strcmp(t, "kind=gpu")) {
            snprintf(kind, ksize, "%s", t + 5);
        } else if (!strncmp(t, "host=", 5) && t[5]) {
            snprintf(glob, gsize, "%s", t + 5);
            /* a glob: '*' any run, '?' one character; the rest as is */
            for (const char *p = t + 5; *p && n + 2 < lsize; p++) {
                if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-*?", *p))
                    return pp_error_set(err, "slurm_platforms: bad character '%c' in host pattern \"%s\"", *p,
                                        t + 5);
                like[n++] = *p == '*' ? '%' : *p == '?' ? '_' : *p;
            }
            like[n] = '\0';
        } else {
            return pp_error_set(err, "slurm_platforms: \"%s\" is not all, kind=cpu, kind=gpu or host=PATTERN",
                                t);
        }
    }
    return 0;
}

int slurm_check_config(const struct config *c, struct pp_error *err)
{
    char kind[8], like[260], glob[260];
    const char *quoted[] = {c->slurm_worker,    c->slurm_server_url, c->slurm_token_file, c->slurm_output,
                            c->slurm_partition, c->slurm_account,    c->slurm_gres,       c->slurm_export};
    const char *names[] = {"slurm_worker",    "slurm_server_url", "slurm_token_file", "slurm_output",
                           "slurm_partition", "slurm_account",    "slurm_gres",       "slurm_export"};

    for (size_t i = 0; i < sizeof(quoted) / sizeof(quoted[0]); i++)
        if (strpbrk(quoted[i], "'\n\\"))
            return pp_error_set(err, "%s: no quote, backslash or newline allowed", names[i]);
    return parse_platforms(c->slurm_platforms, kind, sizeof(kind), like, sizeof(like), glob, sizeof(glob),
                           err);
}

int slurm_configure(const struct config *c, const char *url, struct pp_error *err)
{
    if (slurm_check_config(c, err))
        return -1;
    g.c = *c;
    memset(g.c.database_url, 0, sizeof(g.c.database_url)); /* not needed here: keep one copy of the secret */
    snprintf(g.url, sizeof(g.url), "%s", c->slurm_server_url[0] ? c->slurm_server_url : url);
    return parse_platforms(c->slurm_platforms, g.kind, sizeof(g.kind), g.host_like, sizeof(g.host_like),
                           g.host_glob, sizeof(g.host_glob), err);
}

/* ---- running the Slurm commands ---- */

int slurm_exec(const char *const argv[], char *out, size_t size, int timeout_s, struct pp_error *err)
{
    int fds[2], status = 0;
    size_t len = 0;
    pid_t pid;
    double deadline = clock_now() + timeout_s;
    bool killed = false;

    out[0] = '\0';
    if (pipe2(fds, O_CLOEXEC))
        return pp_error_set(err, "pipe: %s", strerror(errno));
    if ((pid = fork()) < 0) {
        close(fds[0]);
        close(fds[1]);
        return pp_error_set(err, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        spawn_own_group();
        spawn_child_reset(fds[1]);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    spawn_own_group_of(pid);
    close(fds[1]);
    for (;;) {
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        double left = deadline - clock_now();
        char buf[1024];
        ssize_t n;

        if (left <= 0) {
            spawn_kill_group(pid); /* and what it started */
            killed = true;
            break;
        }
        if (poll(&p, 1, (int)(left * 1000) + 1) <= 0)
            continue;
        if ((n = read(fds[0], buf, sizeof(buf))) <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            break;
        }
        if (len + 1 < size) {
            size_t take = (size_t)n < size - 1 - len ? (size_t)n : size - 1 - len;
            memcpy(out + len, buf, take);
            len += take;
            out[len] = '\0';
        }
    }
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (killed)
        return pp_error_set(err, "%s did not end within %d s", argv[0], timeout_s);
    if (!WIFEXITED(status))
        return pp_error_set(err, "%s died of signal %d", argv[0], WTERMSIG(status));
    if (WEXITSTATUS(status) == 127)
        return pp_error_set(err, "%s: cannot run it (not installed?)", argv[0]);
    return WEXITSTATUS(status);
}

/* The last non-empty line of a command's output, without "sbatch: error: " and the like. */
const char *slurm_last_line(char *out)
{
    char *e = out + strlen(out), *s, *colon;

    while (e > out && (e[-1] == '\n' || e[-1] == ' '))
        *--e = '\0';
    s = strrchr(out, '\n') ? strrchr(out, '\n') + 1 : out;
    while ((colon = strstr(s, "error: ")) && colon - s < 24)
        s = colon + 7;
    return *s ? s : "no output";
}
