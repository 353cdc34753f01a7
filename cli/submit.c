/*
 * submit: `ppbench submit`. Builds the job document from the options, posts it, then (unless --no-wait)
 * follows the job: GET /api/v1/jobs/{id}/events as Server-Sent Events, falling back to polling GET
 * /api/v1/jobs/{id} every 0.5 s when the stream cannot be had, until the job ends; then prints its results
 * and turns its outcome into the exit status. The job id goes to stderr at once; progress is a bar on stderr
 * when it is a terminal, else one line per state and per tenth of progress. SIGINT and SIGTERM are blocked
 * and read from a signalfd while following (checked between polls and, through the HTTP client's stop hook,
 * during a transfer): the job keeps running and the message says so, or, with --cancel-on-interrupt, it is
 * cancelled. Main thread; everything allocated here is freed before submit_main returns.
 */
#include "submit.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "cli/format.h"
#include "lib/sweep.h"

#define FOLLOW_POLL_NS 500000000L /* polling period */
#define FOLLOW_RETRIES 20         /* consecutive failed polls (10 s) before giving up */
#define FOLLOW_QUIET   3          /* event streams that end with nothing new before polling instead */

const char submit_usage[] =
    "usage: ppbench submit --suite S --model M (--platform ID | --kind cpu|gpu [--host H]) [options]\n"
    "  --suite S          the suite to run (GET /api/v1/suites, or `ppbench-worker suites`, lists them)\n"
    "  --model M          the programming model: openmp, opencl, cuda, omp-target (`ppbench platforms`\n"
    "                     lists the models each platform's worker offers)\n"
    "  --platform ID      the platform to run on (see `ppbench platforms`)\n"
    "  --kind cpu|gpu     or any platform of this kind whose worker offers the model ...\n"
    "  --host H           ... on this host\n"
    "  --kernels LIST     comma-separated subset, e.g. copy,triad (default: every kernel of the suite)\n"
    "  --arraysize N      --param arraysize=N (stream: elements per array; N or 2^k, e.g. 2^25)\n"
    "  --numtimes K       --param numtimes=K (stream, wilson: iterations, the first is warm-up)\n"
    "  --float | --double --param precision=fp32 or fp64 (default: the suite's)\n"
    "  --param NAME=VALUE any parameter of the suite (GET /api/v1/suites lists them; digits or 2^k go\n"
    "                     as a number), e.g. --param lattice=8x8x8x16 --param layout=soa; repeat for more\n"
    "  --sweep NAME=VALUES one job per value of a parameter (at most 64), tagged sweep:<uuid>, e.g.\n"
    "                     arraysize=2^20..2^28 (each power of two), n=20..100:20 (a step), n=20,40,80\n"
    "                     (a list); the Scaling page and `ppbench scaling` show the sweep\n"
    "  --priority P       -1000..1000, higher runs first (default 0)\n"
    "  --timeout S        seconds the run may take (default 600)\n"
    "  --tag T            a tag for the job; repeat for more\n"
    "  --no-wait          print the job id and return without waiting\n"
    "  --cancel-on-interrupt\n"
    "                     on SIGINT (Ctrl-C) or SIGTERM, cancel the job (default: leave it running)\n"
    "  --json             print the finished job (with --no-wait: the server's answer) as JSON\n"
    "Without --no-wait, prints the job id on stderr at once, follows the job (a progress bar on a terminal,\n"
    "else a line per state and per 10 % of progress, on stderr) and prints its results; a sweep's jobs\n"
    "one after another (with --no-wait: their ids, one per line).\n"
    "exit status (of a sweep: its first job that did not succeed): 0 succeeded, 1 failed, 3 cancelled,\n"
    "2 bad usage or refused by the server, 4 server unreachable or failing, 5 queued but no live worker\n"
    "serves its platform (the server's warning is printed and the job is not followed), 130 interrupted\n"
    "(the job keeps running unless --cancel-on-interrupt)\n";

/* Adds v (stolen) to the object or array o; fails when v is NULL (a string that is not UTF-8). */
static int put(json_t *o, const char *key, json_t *v, struct pp_error *err)
{
    if (!v)
        return pp_error_set(err, "invalid value for --%s", key);
    if (json_is_array(o) ? json_array_append_new(o, v) : json_object_set_new(o, key, v))
        return pp_error_set(err, "out of memory");
    return 0;
}

static int put_number(json_t *o, const char *key, const char *opt, const char *s, struct pp_error *err)
{
    long long v;

    if (cli_parse_ll(opt, s, &v, err))
        return -1;
    return put(o, key, json_integer(v), err);
}

/* "lattice=8x8x8x16", "runs=5" or "arraysize=2^20" into params: a value of digits (with an optional leading
 * minus) or 2^k is sent as a number, anything else as a string; the server checks both against the suite's
 * catalogue. */
static int put_param(json_t *params, const char *arg, struct pp_error *err)
{
    const char *eq = strchr(arg, '=');
    const char *v = eq ? eq + 1 : NULL;
    char name[64];
    long long n;

    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(name) || !*v)
        return pp_error_set(err, "invalid --param \"%s\": expected NAME=VALUE", arg);
    snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
    if (!sweep_integer(v, strlen(v), &n))
        return put(params, name, json_integer(n), err);
    return put(params, name, json_string(v), err);
}

/* "--sweep arraysize=2^20..2^28" as "sweep": {"param": "arraysize", "values": "2^20..2^28"}: the server
 * expands the short forms (lib/sweep.h) and names what is wrong with them. */
static int put_sweep(json_t *req, const char *arg, struct pp_error *err)
{
    const char *eq = strchr(arg, '=');

    if (json_object_get(req, "sweep"))
        return pp_error_set(err, "--sweep is given once (one parameter swept)");
    if (!eq || eq == arg || !eq[1])
        return pp_error_set(err, "invalid --sweep \"%s\": expected NAME=VALUES", arg);
    return put(req, "sweep", json_pack("{s:s%, s:s}", "param", arg, (size_t)(eq - arg), "values", eq + 1),
               err);
}

/* "copy,triad" as ["copy", "triad"]. */
static int put_kernels(json_t *req, const char *list, struct pp_error *err)
{
    json_t *kernels = json_array();
    const char *p = list;

    if (!kernels)
        return pp_error_set(err, "out of memory");
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len && put(kernels, "kernels", json_stringn(p, len), err)) {
            json_decref(kernels);
            return -1;
        }
        p += len + (p[len] == ',');
    }
    if (json_array_size(kernels) == 0) {
        json_decref(kernels);
        return pp_error_set(err, "--kernels names no kernel");
    }
    return put(req, "kernels", kernels, err);
}

/* Fills req from the options. Returns 0, or -1 with *status set (CLI_OK after --help). */
static int parse(struct cli *c, int argc, char **argv, json_t *req, int *no_wait, int *cancel_on_int,
                 int *status)
{
    static const struct option longopts[] = {
        {"suite", required_argument, NULL, 's'},
        {"model", required_argument, NULL, 'm'},
        {"platform", required_argument, NULL, 'p'},
        {"kind", required_argument, NULL, 'k'},
        {"host", required_argument, NULL, 'H'},
        {"kernels", required_argument, NULL, 'K'},
        {"arraysize", required_argument, NULL, 'n'},
        {"numtimes", required_argument, NULL, 't'},
        {"float", no_argument, NULL, 'f'},
        {"double", no_argument, NULL, 'd'},
        {"param", required_argument, NULL, 'x'},
        {"sweep", required_argument, NULL, 'S'},
        {"priority", required_argument, NULL, 'P'},
        {"timeout", required_argument, NULL, 'T'},
        {"tag", required_argument, NULL, 'g'},
        {"no-wait", no_argument, NULL, 'w'},
        {"cancel-on-interrupt", no_argument, NULL, 'C'},
        CLI_GLOBAL_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    json_t *params = json_object(), *selector = json_object(), *tags = json_array();
    struct pp_error err = {""};
    int opt, rc = -1;

    *status = CLI_USAGE;
    if (!params || !selector || !tags) {
        pp_error_set(&err, "out of memory");
        goto out;
    }
    optind = 0;
    while ((opt = cli_getopt(c, argc, argv, ":h", longopts)) != -1) {
        int bad = 0;
        switch (opt) {
        case 's':
            bad = put(req, "suite", json_string(optarg), &err);
            break;
        case 'm':
            bad = put(req, "model", json_string(optarg), &err);
            break;
        case 'p':
            bad = put(req, "platform", json_string(optarg), &err);
            break;
        case 'k':
            bad = put(selector, "kind", json_string(optarg), &err);
            break;
        case 'H':
            bad = put(selector, "host", json_string(optarg), &err);
            break;
        case 'K':
            bad = put_kernels(req, optarg, &err);
            break;
        case 'n':
            bad = put_number(params, "arraysize", "--arraysize", optarg, &err);
            break;
        case 't':
            bad = put_number(params, "numtimes", "--numtimes", optarg, &err);
            break;
        case 'f':
            bad = put(params, "precision", json_string("fp32"), &err);
            break;
        case 'd':
            bad = put(params, "precision", json_string("fp64"), &err);
            break;
        case 'x':
            bad = put_param(params, optarg, &err);
            break;
        case 'S':
            bad = put_sweep(req, optarg, &err);
            break;
        case 'P':
            bad = put_number(req, "priority", "--priority", optarg, &err);
            break;
        case 'T':
            bad = put_number(req, "timeout_s", "--timeout", optarg, &err);
            break;
        case 'g':
            bad = put(tags, "tag", json_string(optarg), &err);
            break;
        case 'w':
            *no_wait = 1;
            break;
        case 'C':
            *cancel_on_int = 1;
            break;
        case 'h':
            fputs(submit_usage, stdout);
            *status = CLI_OK;
            goto out;
        default:
            goto out; /* cli_getopt said what */
        }
        if (bad)
            goto out;
    }
    if (optind < argc) {
        pp_error_set(&err, "unexpected argument \"%s\"", argv[optind]);
    } else if (!json_object_get(req, "suite") || !json_object_get(req, "model")) {
        pp_error_set(&err, "submit needs --suite and --model");
    } else if (!json_object_get(req, "platform") && !json_object_get(selector, "kind")) {
        pp_error_set(&err, "submit needs --platform or --kind");
    } else if (json_object_get(req, "platform") && json_object_get(selector, "kind")) {
        pp_error_set(&err, "--platform and --kind exclude each other");
    } else if (json_object_get(req, "platform") && json_object_size(selector)) {
        pp_error_set(&err, "--host goes with --kind, not with --platform");
    } else if ((json_object_size(selector) && put(req, "selector", json_incref(selector), &err)) ||
               (json_object_size(params) && put(req, "params", json_incref(params), &err)) ||
               (json_array_size(tags) && put(req, "tags", json_incref(tags), &err))) {
        /* err is set */
    } else {
        rc = 0;
    }
out:
    if (rc && err.msg[0])
        cli_usage_error("%s", err.msg);
    json_decref(params);
    json_decref(selector);
    json_decref(tags);
    return rc;
}

/* What is known of the followed job. */
struct follow {
    const struct cli *cli;
    long long id;
    char state[32];
    double progress;
    char last_id[128]; /* of the last event, to resume a stream */
    long events;
    int bar, drawn; /* stderr is a terminal; the bar is on screen */
    char said[32];  /* without a bar: the state last printed as a line, and its tenth of progress */
    char note[512]; /* the job's note last printed (a repeat for noise and why) */
    int said_tenth;
    int sigfd;       /* SIGINT and SIGTERM, blocked; -1 when none could be had */
    int interrupted; /* the signal that came, 0 while none */
};

/* Whether SIGINT or SIGTERM came (read from the signalfd, once). */
static int interrupted(struct follow *f)
{
    struct signalfd_siginfo si;

    if (!f->interrupted && f->sigfd >= 0 && read(f->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
        f->interrupted = (int)si.ssi_signo;
    return f->interrupted;
}

static int stop_hook(void *arg)
{
    return interrupted(arg);
}

static int terminal(const char *state)
{
    return strcmp(state, "succeeded") == 0 || strcmp(state, "failed") == 0 || strcmp(state, "cancelled") == 0;
}

static void show(struct follow *f)
{
    if (!f->bar) {
        int tenth = strcmp(f->state, "succeeded") == 0 ? 10 : (int)(f->progress * 10 + 1e-9);
        if (strcmp(f->said, f->state) || (!strcmp(f->state, "running") && tenth > f->said_tenth))
            fprintf(stderr, "job %lld: %s%s%.0f %%\n", f->id, f->state,
                    strcmp(f->state, "running") ? " " : ", ",
                    strcmp(f->state, "succeeded") == 0 ? 100.0 : 100 * f->progress);
        snprintf(f->said, sizeof(f->said), "%s", f->state);
        f->said_tenth = tenth;
        return;
    }
    format_progress(stderr, f->id, f->state, strcmp(f->state, "succeeded") == 0 ? 1.0 : f->progress);
    f->drawn = 1;
}

/* Takes "state" and "progress" from an event's data or from the job; a new note (the service repeating the
 * job because its figures were not stable, and why) is printed on a line of its own. */
static void update(struct follow *f, json_t *o)
{
    const char *state = json_string_value(json_object_get(o, "state"));
    const char *note = json_string_value(json_object_get(o, "note"));
    json_t *p = json_object_get(o, "progress");

    if (note && strcmp(note, f->note)) {
        fprintf(stderr, "%sjob %lld: %s\n", f->drawn ? "\n" : "", f->id, note);
        f->drawn = 0;
        snprintf(f->note, sizeof(f->note), "%s", note);
    }

    if (state)
        snprintf(f->state, sizeof(f->state), "%s", state);
    if (json_is_number(p))
        f->progress = json_number_value(p);
    else if (state && !strcmp(state, "queued"))
        f->progress = 0; /* back in the queue (a repeat, a handback): its next run starts from nothing */
}

static int on_event(void *arg, const char *event, const char *data, const char *id)
{
    struct follow *f = arg;
    json_t *d = json_loads(data, JSON_DECODE_ANY, NULL);

    f->events++;
    snprintf(f->last_id, sizeof(f->last_id), "%s", id);
    if (json_is_object(d))
        update(f, d);
    else if (strcmp(event, "state") == 0)
        snprintf(f->state, sizeof(f->state), "%s", json_is_string(d) ? json_string_value(d) : data);
    else if (strcmp(event, "progress") == 0 && json_is_number(d))
        f->progress = json_number_value(d);
    json_decref(d);
    show(f);
    return terminal(f->state);
}

/* Waits for the job to end. Returns 0 with the finished job in *job; -1 with err and the failed answer. */
static int follow(struct follow *f, struct http_reply *job, struct pp_error *err)
{
    const struct timespec period = {0, FOLLOW_POLL_NS};
    struct http_reply stream = {0};
    char path[64], events[80];
    int sse = 1, quiet = 0, failures = 0, rc = -1;
    long before;

    snprintf(path, sizeof(path), "/api/v1/jobs/%lld", f->id);
    snprintf(events, sizeof(events), "%s/events", path);
    for (;;) {
        if (interrupted(f))
            break;
        if (sse) {
            before = f->events;
            if (http_events(&f->cli->http, events, f->last_id, on_event, f, &stream, err))
                sse = 0; /* no stream to be had: poll */
            else if (f->events != before)
                quiet = 0;
            else if (++quiet >= FOLLOW_QUIET)
                sse = 0;
        }
        if (interrupted(f))
            break;
        /* After every stream, and every period when polling, the job itself says where it stands. */
        if (http_request(&f->cli->http, "GET", path, NULL, job, err) == 0 && json_is_object(job->json)) {
            failures = 0;
            update(f, job->json);
            show(f);
            if (terminal(f->state)) {
                rc = 0;
                break;
            }
        } else if (job->status / 100 == 4 || ++failures >= FOLLOW_RETRIES) {
            if (job->status / 100 == 2)
                pp_error_set(err, "the server's answer is not a job");
            break;
        }
        if (!sse && f->sigfd >= 0)
            poll(&(struct pollfd){.fd = f->sigfd, .events = POLLIN}, 1, FOLLOW_POLL_NS / 1000000);
        else if (!sse)
            nanosleep(&period, NULL);
    }
    if (f->drawn)
        fputc('\n', stderr);
    http_reply_clear(&stream);
    return rc;
}

/* The job's outcome: results on stdout, its error on stderr, and the exit status. */
static int outcome(const struct cli *c, const struct follow *f, json_t *job, const struct http_reply *r)
{
    const char *error = json_string_value(json_object_get(job, "error"));
    json_t *results = json_object_get(job, "results");

    if (c->json)
        cli_print_body(r);
    else if (strcmp(f->state, "succeeded") == 0 || json_array_size(results) > 0)
        format_job_results(stdout, job);
    if (strcmp(f->state, "succeeded") == 0)
        return CLI_OK;
    if (strcmp(f->state, "cancelled") == 0) {
        fprintf(stderr, "ppbench: job %lld was cancelled\n", f->id);
        return CLI_CANCELLED;
    }
    fprintf(stderr, "ppbench: job %lld failed: %s\n", f->id, error && *error ? error : "no reason given");
    return CLI_FAILED;
}

/* After SIGINT or SIGTERM: say which job and what becomes of it (cancelled when asked). */
static int on_interrupt(struct cli *c, struct follow *f, int cancel)
{
    struct http_reply r = {0};
    struct pp_error err;
    char path[64];

    c->http.stop = NULL; /* the cancel below must go through */
    if (!cancel) {
        fprintf(stderr,
                "ppbench: interrupted: job %lld keeps running (%s); `ppbench cancel %lld` stops it, "
                "`ppbench jobs` follows it\n",
                f->id, f->state, f->id);
        return CLI_INTERRUPTED;
    }
    snprintf(path, sizeof(path), "/api/v1/jobs/%lld/cancel", f->id);
    if (http_request(&c->http, "POST", path, NULL, &r, &err))
        fprintf(stderr, "ppbench: interrupted: job %lld could not be cancelled: %s\n", f->id, err.msg);
    else
        fprintf(stderr, "ppbench: interrupted: job %lld cancelled\n", f->id);
    http_reply_clear(&r);
    return CLI_INTERRUPTED;
}

/* Follows job id to its end (f holds the signal descriptor) and prints its outcome: the exit status. */
static int follow_job(struct cli *c, struct follow *f, long long id, int cancel_on_int)
{
    struct http_reply r = {0};
    struct pp_error err;
    int status;

    *f = (struct follow){.cli = c, .id = id, .state = "queued", .bar = f->bar, .sigfd = f->sigfd};
    /* the dashboard's page of the job, which a user can open (the API's address is for programs) */
    fprintf(stderr, "job %lld submitted: %s/#/job/%lld\n", id, c->http.server, id);
    c->http.stop = f->sigfd >= 0 ? stop_hook : NULL;
    c->http.stop_arg = f;
    show(f);
    if (follow(f, &r, &err) && !f->interrupted) {
        pp_error_prefix(&err, "following job %lld", id);
        status = cli_fail(c, &r, &err);
    } else if (f->interrupted) {
        status = on_interrupt(c, f, cancel_on_int);
    } else {
        status = outcome(c, f, r.json, &r);
    }
    c->http.stop = NULL;
    http_reply_clear(&r);
    return status;
}

int submit_main(struct cli *c, int argc, char **argv)
{
    struct follow f = {.cli = c, .state = "queued", .bar = isatty(STDERR_FILENO), .sigfd = -1};
    struct http_reply r = {0};
    json_t *req = json_object(), *ids, *id;
    struct pp_error err;
    int no_wait = 0, cancel_on_int = 0, status;
    sigset_t sigs, old;
    size_t i;

    if (!req)
        return cli_usage_error("out of memory");
    if (parse(c, argc, argv, req, &no_wait, &cancel_on_int, &status))
        goto out;
    /* From the submission on, an interrupt is read, not suffered: the job's id must be said. */
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    if (!no_wait && sigprocmask(SIG_BLOCK, &sigs, &old) == 0) {
        f.sigfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
        if (f.sigfd < 0)
            sigprocmask(SIG_SETMASK, &old, NULL);
    }
    if (http_request(&c->http, "POST", "/api/v1/jobs", req, &r, &err)) {
        status = cli_fail(c, &r, &err);
        goto out;
    }
    /* A sweep's answer lists every job in "ids" (the first is "id"); a plain job's has "id" only. */
    id = json_object_get(r.json, "id");
    ids = json_object_get(r.json, "ids");
    if (!json_is_integer(id) || (ids && !json_is_array(ids))) {
        fprintf(stderr, "ppbench: the server's answer has no job id\n");
        status = CLI_UNREACHABLE;
        goto out;
    }
    /* No live worker for it (the server's warning): said, and not followed, since it may wait for ever. */
    const char *warning = json_string_value(json_object_get(r.json, "warning"));
    if (warning)
        fprintf(stderr, "ppbench: job %lld is queued, but %s\n", (long long)json_integer_value(id), warning);
    if (no_wait && c->json) {
        cli_print_body(&r);
        status = CLI_OK;
        goto out;
    }
    if (warning && !no_wait) {
        if (c->json)
            cli_print_body(&r);
        else
            printf("%lld\n", (long long)json_integer_value(id));
        status = CLI_NOT_SERVED;
        goto out;
    }
    if (ids && json_string_value(json_object_get(r.json, "sweep")))
        fprintf(stderr, "%zu jobs tagged %s\n", json_array_size(ids),
                json_string_value(json_object_get(r.json, "sweep")));
    status = CLI_OK;
    for (i = 0; i < (ids ? json_array_size(ids) : 1); i++) {
        json_t *one = ids ? json_array_get(ids, i) : id;
        int st;

        if (!json_is_integer(one)) {
            fprintf(stderr, "ppbench: the server's answer has no job id\n");
            status = CLI_UNREACHABLE;
            break;
        }
        if (no_wait) {
            printf("%lld\n", (long long)json_integer_value(one));
            continue;
        }
        st = follow_job(c, &f, (long long)json_integer_value(one), cancel_on_int);
        if (status == CLI_OK)
            status = st;
        if (f.interrupted || st == CLI_UNREACHABLE)
            break;
    }
out:
    c->http.stop = NULL;
    if (f.sigfd >= 0) {
        close(f.sigfd);
        sigprocmask(SIG_SETMASK, &old, NULL);
    }
    http_reply_clear(&r);
    json_decref(req);
    return status;
}
