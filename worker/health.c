/*
 * health: `ppbench-worker health`, a node health check in seconds for Slurm's HealthCheckProgram or LBNL NHC:
 * per device one small verified STREAM run and one small verified Wilson Dslash (8^4 sites on a CPU, 16^4 on
 * a GPU; a second or two in all on the development machine; each in a child, as serve
 * runs jobs: a driver fault costs the check, not the process), the triad's and the Dslash's bandwidth held
 * against optional floors (--floor stream.triad=GBS, --floor wilson.dslash=GBS: the operator's floors of
 * the fleet-health page, in GB/s). NHC's conventions: silent and exit 0
 * when healthy; otherwise one line "ERROR: ppbench health: <device>: <reason>" on stdout and exit 1 (2: bad
 * options). With --drain it also drains the node itself (scontrol, Reason="ppbench: health: ..."), for use as
 * HealthCheckProgram without NHC. One thread.
 */
#include "health.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "worker/child.h"
#include "worker/run.h"

#define HEALTH_MAX_PLATFORMS 32

extern char **environ;

/* The checks, each one small verified run per device; its floor (GB/s, 0 none) from --floor. */
static struct check {
    const char *suite, *kernel, *name;
    double floor_gbs;
} checks[] = {
    {"stream", "triad", "stream triad", 0},
    {"wilson", "dslash", "wilson dslash", 0},
};
#define NCHECKS (sizeof(checks) / sizeof(checks[0]))

struct health {
    const char *only[HEALTH_MAX_PLATFORMS];
    int nonly;
    const char *arraysize;
    double timeout_s;
    bool verbose;
    sigset_t mask;
};

/* Run `ppbench-worker <argv...>` in a child; its JSON stdout (new reference) or NULL with why. */
static json_t *run_child(struct health *h, char *const argv[], char *why, size_t size)
{
    struct child ch = {.out_fd = -1, .err_fd = -1, .progress_fd = -1};
    struct pp_error err;
    json_t *out = NULL;
    int code;

    if (child_start(&ch, argv, false, &h->mask, &err)) {
        snprintf(why, size, "%s", err.msg);
        return NULL;
    }
    if (!child_wait(&ch, h->timeout_s)) {
        snprintf(why, size, "%s did not end within %.0f s", argv[1], h->timeout_s);
        goto out;
    }
    code = WIFEXITED(ch.status) ? WEXITSTATUS(ch.status) : -1;
    if (code == RUN_OK || code == RUN_UNVERIFIED)
        out = child_json(&ch, &err);
    if (code != RUN_OK) {
        child_error(&ch, out, why, size);
        json_decref(out);
        out = NULL;
    } else if (!out)
        snprintf(why, size, "%s gave no report: %s", argv[1], err.msg);
out:
    child_release(&ch);
    return out;
}

/* The model that checks a platform: a GPU's native one first. */
static const char *pick_model(json_t *p)
{
    static const char *const gpu[] = {"cuda", "opencl", "omp-target", "openmp", NULL};
    static const char *const cpu[] = {"openmp", "opencl", NULL};
    const char *models = json_string_value(json_object_get(p, "models"));
    const char *kind = json_string_value(json_object_get(p, "kind"));
    const char *const *pref = kind && !strcmp(kind, "gpu") ? gpu : cpu;

    for (int i = 0; models && pref[i]; i++) {
        const char *m = strstr(models, pref[i]);
        size_t n = strlen(pref[i]);
        if (m && (m == models || m[-1] == ' ') && (m[n] == '\0' || m[n] == ','))
            return pref[i];
    }
    return NULL;
}

/* The bandwidth of kernel in a report, in GB/s; -1 when absent. */
static double report_gbs(json_t *report, const char *kernel)
{
    json_t *k;
    size_t i;

    json_array_foreach(json_object_get(report, "kernels"), i, k)
    {
        const char *name = json_string_value(json_object_get(k, "kernel"));
        if (name && !strcmp(name, kernel))
            return json_number_value(json_object_get(k, "bandwidth_bytes_per_s")) / 1e9;
    }
    return -1;
}

/* One check on one device: 0 healthy, else -1 with the reason. */
static int check_one(struct health *h, const struct check *c, const char *id, const char *model, bool gpu,
                     char *why, size_t size)
{
    char *stream_argv[] = {"ppbench-worker", "run",         "--platform",  (char *)id,
                           "--model",        (char *)model, "--suite",     "stream",
                           "--kernels",      "triad",       "--arraysize", (char *)h->arraysize,
                           "--numtimes",     "10",          "--json",      NULL};
    /* 8^4 sites on a CPU, 16^4 on a GPU: milliseconds per application, verified like any run */
    char *wilson_argv[] = {
        "ppbench-worker", "run",     "--platform", (char *)id,  "--model",
        (char *)model,    "--suite", "wilson",     "--lattice", gpu ? "16x16x16x16" : "8x8x8x8",
        "--numtimes",     "10",      "--json",     NULL};
    json_t *report = run_child(h, !strcmp(c->suite, "stream") ? stream_argv : wilson_argv, why, size);
    double gbs;

    if (!report) {
        char inner[900];
        snprintf(inner, sizeof(inner), "%s", why);
        snprintf(why, size, "%s: %s", c->name, inner);
        return -1;
    }
    gbs = report_gbs(report, c->kernel);
    json_decref(report);
    if (c->floor_gbs > 0 && gbs < c->floor_gbs) {
        snprintf(why, size, "%s %.1f GB/s (%s) below the floor %.1f GB/s", c->name, gbs, model, c->floor_gbs);
        return -1;
    }
    if (h->verbose)
        printf("OK: ppbench health: %s: %s verified, %.1f GB/s (%s)\n", id, c->name, gbs, model);
    return 0;
}

/* One device: 0 healthy, else -1 with the first failure's reason. */
static int check_platform(struct health *h, json_t *p, char *why, size_t size)
{
    const char *id = json_string_value(json_object_get(p, "id")), *model = pick_model(p);
    const char *kind = json_string_value(json_object_get(p, "kind"));

    if (!model) {
        snprintf(why, size, "no model drives it (%s)", json_string_value(json_object_get(p, "models")));
        return -1;
    }
    for (size_t i = 0; i < NCHECKS; i++)
        if (check_one(h, &checks[i], id, model, kind && !strcmp(kind, "gpu"), why, size))
            return -1;
    return 0;
}

/* --floor SUITE.KERNEL=GBS */
static int set_floor(const char *arg)
{
    const char *eq = strchr(arg, '=');
    char *end = NULL;
    double v;

    if (!eq)
        return -1;
    v = strtod(eq + 1, &end);
    if (!(v > 0) || *end)
        return -1;
    for (size_t i = 0; i < NCHECKS; i++) {
        size_t ns = strlen(checks[i].suite);
        if ((size_t)(eq - arg) == ns + 1 + strlen(checks[i].kernel) && !strncmp(arg, checks[i].suite, ns) &&
            arg[ns] == '.' && !strncmp(arg + ns + 1, checks[i].kernel, strlen(checks[i].kernel))) {
            checks[i].floor_gbs = v;
            return 0;
        }
    }
    return -1;
}

static void drain(const char *scontrol, const char *node, const char *reason)
{
    char nn[160], rr[600];
    char *argv[] = {(char *)scontrol, "update", nn, "State=DRAIN", rr, NULL};
    pid_t pid;
    int status;

    snprintf(nn, sizeof(nn), "NodeName=%s", node);
    snprintf(rr, sizeof(rr), "Reason=ppbench: health: %.400s", reason);
    if (posix_spawnp(&pid, scontrol, NULL, NULL, argv, environ) != 0) {
        fprintf(stderr, "ppbench-worker: health: cannot run %s\n", scontrol);
        return;
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        fprintf(stderr, "ppbench-worker: health: %s update %s State=DRAIN failed\n", scontrol, nn);
}

static const char health_usage[] =
    "usage: ppbench-worker health [--platform ID]... [--arraysize N] [--floor SUITE.KERNEL=GBS]...\n"
    "                             [--min-gbs X] [--timeout S] [--drain [--node NAME] [--scontrol PATH]]\n"
    "                             [--verbose]\n"
    "  per device (or per --platform), in seconds: one small verified STREAM triad and one small\n"
    "  verified Wilson Dslash (8^4 sites on a CPU, 16^4 on a GPU)\n"
    "  --arraysize N   STREAM's elements per array (default 1048576)\n"
    "  --floor stream.triad=X, --floor wilson.dslash=X\n"
    "                  a floor in GB/s (the device's baseline floor) for every device checked\n"
    "  --min-gbs X     the same as --floor stream.triad=X\n"
    "  --timeout S     per device (default 60)\n"
    "  --drain         on failure also run scontrol update NodeName=<node> State=DRAIN\n"
    "                  Reason=\"ppbench: health: <reason>\" (node: --node, else $SLURMD_NODENAME)\n"
    "Exit status (NHC's): 0 healthy (silent unless --verbose); 1 unhealthy, with one line\n"
    "\"ERROR: ppbench health: <device>: <reason>\" on stdout; 2 bad options.\n";

int health_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"platform", required_argument, NULL, 'p'},
        {"arraysize", required_argument, NULL, 'a'},
        {"min-gbs", required_argument, NULL, 'm'},
        {"timeout", required_argument, NULL, 't'},
        {"drain", no_argument, NULL, 'd'},
        {"node", required_argument, NULL, 'n'},
        {"scontrol", required_argument, NULL, 's'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"floor", required_argument, NULL, 'f'},
        {NULL, 0, NULL, 0},
    };
    struct health h = {.arraysize = "1048576", .timeout_s = 60};
    const char *node = getenv("SLURMD_NODENAME"), *scontrol = "scontrol";
    char *list_argv[] = {"ppbench-worker", "list", "--json", NULL};
    char why[1024], line[2048] = "";
    bool do_drain = false;
    json_t *list, *p;
    size_t i;
    int c, checked = 0;

    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        char *end = NULL;
        if (c == 'p' && h.nonly < HEALTH_MAX_PLATFORMS)
            h.only[h.nonly++] = optarg;
        else if (c == 'a' && strtoull(optarg, &end, 10) > 0 && !*end)
            h.arraysize = optarg;
        else if (c == 'm' && (checks[0].floor_gbs = strtod(optarg, &end)) > 0 && !*end)
            ;
        else if (c == 'f' && set_floor(optarg) == 0)
            ;
        else if (c == 't' && (h.timeout_s = strtod(optarg, &end)) > 0 && !*end)
            ;
        else if (c == 'd')
            do_drain = true;
        else if (c == 'n')
            node = optarg;
        else if (c == 's')
            scontrol = optarg;
        else if (c == 'v')
            h.verbose = true;
        else if (c == 'h') {
            fputs(health_usage, stdout);
            return RUN_OK;
        } else {
            fprintf(stderr, "ppbench-worker: health: bad or incomplete option \"%s\" (see health --help)\n",
                    argv[optind - 1]);
            return RUN_USAGE;
        }
    }
    if (optind < argc || (do_drain && (!node || !*node))) {
        fprintf(stderr, "ppbench-worker: health: %s (see health --help)\n",
                optind < argc ? "unexpected argument" : "--drain needs --node or $SLURMD_NODENAME");
        return RUN_USAGE;
    }
    sigprocmask(SIG_SETMASK, NULL, &h.mask);
    if (!(list = run_child(&h, list_argv, why, sizeof(why)))) {
        snprintf(line, sizeof(line), "discovery: %s", why);
        goto out;
    }
    json_array_foreach(json_object_get(list, "platforms"), i, p)
    {
        const char *id = json_string_value(json_object_get(p, "id"));
        bool want = h.nonly == 0;
        for (int k = 0; k < h.nonly && id; k++)
            want |= !strcmp(h.only[k], id);
        if (!want || !id)
            continue;
        checked++;
        if (check_platform(&h, p, why, sizeof(why)) && !line[0]) /* the first failure is the line */
            snprintf(line, sizeof(line), "%s: %s", id, why);
    }
    json_decref(list);
    if (!checked && !line[0])
        snprintf(line, sizeof(line), "%s",
                 h.nonly ? "no such platform here (ppbench-worker list)" : "no device found");
out:
    if (!line[0])
        return RUN_OK;
    for (char *q = line; *q; q++) /* one line */
        if (*q == '\n' || *q == '\r')
            *q = ' ';
    printf("ERROR: ppbench health: %s\n", line);
    fflush(stdout);
    if (do_drain)
        drain(scontrol, node, line);
    return 1;
}
