/*
 * fleet: the schedules and health commands of `ppbench`. Each builds one request, prints the answer as a
 * table (or the server's JSON with --json) and maps failures to exit statuses through cli_fail.
 * Single-threaded.
 */
#include "fleet.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char fleet_schedules_usage[] =
    "usage: ppbench schedules [list]\n"
    "       ppbench schedules create --name N --spec SPEC --suite S --model M [--kernels a,b]\n"
    "                                [--param NAME=VALUE]... [--kind cpu|gpu|accel] [--host PATTERN] "
    "[--paused]\n"
    "       ppbench schedules pause|resume|run ID\n"
    "SPEC: five cron fields in UTC (\"30 2 * * *\"), @hourly, @daily, @weekly or \"@every 6h\". When due, "
    "ppbenchd\n"
    "submits one job per platform that matches --kind and --host (* and ? as wildcards), tagged "
    "schedule:ID.\n"
    "create, pause, resume and run need an admin token.\n";

const char fleet_health_usage[] =
    "usage: ppbench health [--all] [--platform ID] [--host H]\n"
    "       ppbench health clear PLATFORM\n"
    "Lists the platforms that are not ok (--all: every platform) with the reason, never_measured ones too:\n"
    "each state listed is one the exit status counts; --platform and --host keep one platform or one host's\n"
    "(a node's cron job checks its own). \"no platform needs attention\" is said only with exit status 0.\n"
    "clear (admin) ends a platform's attention.\n"
    "exit status: the worst state of the platforms kept, as NHC's checks have one per fault:\n"
    "  0 ok, 5 never_measured (no baseline yet), 6 stale_worker, 7 unavailable (Slurm down or drained),\n"
    "  8 outlier, 9 regressed, 10 verification_failed, 11 a state this client does not know;\n"
    "  2 bad usage or refused, 4 server unreachable.\n";

/* The exit status of each health state (fleet_health_usage says them; the worst of the platforms wins). */
static const struct {
    const char *state;
    int status;
} health_states[] = {
    {"ok", 0},      {"never_measured", 5}, {"stale_worker", 6},         {"unavailable", 7},
    {"outlier", 8}, {"regressed", 9},      {"verification_failed", 10},
};
#define HEALTH_UNKNOWN_STATE 11

static int health_status(const char *state)
{
    for (size_t i = 0; i < sizeof(health_states) / sizeof(health_states[0]); i++)
        if (!strcmp(health_states[i].state, state))
            return health_states[i].status;
    return HEALTH_UNKNOWN_STATE;
}

/* One request; prints the body as JSON with --json, else calls print on the reply. */
static int request(struct cli *c, const char *method, const char *path, json_t *body,
                   void (*print)(json_t *doc, void *arg), void *arg)
{
    struct http_reply r = {0};
    struct pp_error err;
    int status = CLI_OK;

    if (http_request(&c->http, method, path, body, &r, &err))
        status = cli_fail(c, &r, &err);
    else if (c->json || !print)
        cli_print_body(&r);
    else
        print(r.json, arg);
    http_reply_clear(&r);
    return status;
}

static const char *str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static void print_schedule_row(json_t *s)
{
    json_t *last = json_object_get(s, "last"), *sel = json_object_get(s, "selector");
    char selector[160] = "", *p = selector;
    const char *k;
    json_t *v;

    json_object_foreach(sel, k, v)
    {
        p += snprintf(p, sizeof(selector) - (size_t)(p - selector), "%s%s=%s", p == selector ? "" : " ", k,
                      json_string_value(v) ? json_string_value(v) : "?");
    }
    printf("%-5lld %-20s %-16s %-7s %-20s %-22s %s\n",
           (long long)json_integer_value(json_object_get(s, "id")), str(s, "name"), str(s, "spec"),
           json_is_true(json_object_get(s, "paused")) ? "paused" : "active",
           selector[0] ? selector : "every platform", json_is_object(last) ? str(last, "fired_at") : "never",
           json_is_object(last) ? str(last, "outcome") : "");
}

static void print_schedules(json_t *doc, void *arg)
{
    size_t i;
    json_t *s;

    (void)arg;
    printf("%-5s %-20s %-16s %-7s %-20s %-22s %s\n", "id", "name", "spec", "state", "selector", "last fired",
           "outcome");
    json_array_foreach(json_object_get(doc, "schedules"), i, s) print_schedule_row(s);
}

static void print_one(json_t *doc, void *arg)
{
    json_t *list = json_pack("{s:[O]}", "schedules", doc);

    print_schedules(list, arg);
    json_decref(list);
}

/* NAME=VALUE into params: a number when VALUE is one, else a string. */
static int add_param(json_t *params, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char name[128], *end;
    double d;

    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(name))
        return cli_usage_error("--param wants NAME=VALUE, got \"%s\"", arg);
    snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
    d = strtod(eq + 1, &end);
    if (eq[1] && !*end)
        json_object_set_new(params, name,
                            d == (double)(long long)d && !strpbrk(eq + 1, ".eE") ? json_integer((json_int_t)d)
                                                                                 : json_real(d));
    else
        json_object_set_new(params, name, json_string(eq + 1));
    return 0;
}

static int create(struct cli *c, int argc, char **argv)
{
    enum { O_NAME = 1, O_SPEC, O_SUITE, O_MODEL, O_KERNELS, O_PARAM, O_KIND, O_HOST, O_PAUSED };
    static const struct option longopts[] = {
        CLI_GLOBAL_OPTIONS,
        {"name", required_argument, NULL, O_NAME},
        {"spec", required_argument, NULL, O_SPEC},
        {"suite", required_argument, NULL, O_SUITE},
        {"model", required_argument, NULL, O_MODEL},
        {"kernels", required_argument, NULL, O_KERNELS},
        {"param", required_argument, NULL, O_PARAM},
        {"kind", required_argument, NULL, O_KIND},
        {"host", required_argument, NULL, O_HOST},
        {"paused", no_argument, NULL, O_PAUSED},
        {NULL, 0, NULL, 0},
    };
    json_t *body = json_object(), *params = json_object(), *sel = json_object();
    int opt, status;

    optind = 0;
    while ((opt = cli_getopt(c, argc, argv, ":h", longopts)) != -1) {
        const char *key = NULL;
        switch (opt) {
        case O_NAME:
            key = "name";
            break;
        case O_SPEC:
            key = "spec";
            break;
        case O_SUITE:
            key = "suite";
            break;
        case O_MODEL:
            key = "model";
            break;
        case O_KERNELS: {
            json_t *k = json_array();
            char *list = strdup(optarg), *save = NULL;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
                json_array_append_new(k, json_string(t));
            free(list);
            json_object_set_new(body, "kernels", k);
            break;
        }
        case O_PARAM:
            if (add_param(params, optarg)) {
                status = CLI_USAGE;
                goto out;
            }
            break;
        case O_KIND:
            json_object_set_new(sel, "kind", json_string(optarg));
            break;
        case O_HOST:
            json_object_set_new(sel, "host", json_string(optarg));
            break;
        case O_PAUSED:
            json_object_set_new(body, "paused", json_true());
            break;
        case 'h':
            fputs(fleet_schedules_usage, stdout);
            status = CLI_OK;
            goto out;
        default:
            status = CLI_USAGE;
            goto out;
        }
        if (key)
            json_object_set_new(body, key, json_string(optarg));
    }
    if (optind != argc) {
        status = cli_usage_error("schedules create takes options only");
        goto out;
    }
    if (json_object_size(params))
        json_object_set(body, "params", params);
    if (json_object_size(sel))
        json_object_set(body, "selector", sel);
    status = request(c, "POST", "/api/v1/schedules", body, print_one, NULL);
out:
    json_decref(body);
    json_decref(params);
    json_decref(sel);
    return status;
}

int fleet_schedules_main(struct cli *c, int argc, char **argv)
{
    static const struct option longopts[] = {CLI_GLOBAL_OPTIONS, {NULL, 0, NULL, 0}};
    const char *verb = argc > 1 ? argv[1] : "list";
    char path[96];
    int opt;

    if (!strcmp(verb, "create"))
        return create(c, argc - 1, argv + 1);
    optind = 0;
    while ((opt = cli_getopt(c, argc, argv, ":h", longopts)) != -1) {
        if (opt != 'h')
            return CLI_USAGE;
        fputs(fleet_schedules_usage, stdout);
        return CLI_OK;
    }
    verb = optind < argc ? argv[optind] : "list";
    if (!strcmp(verb, "list") && argc - optind <= 1)
        return request(c, "GET", "/api/v1/schedules", NULL, print_schedules, NULL);
    if (strcmp(verb, "pause") && strcmp(verb, "resume") && strcmp(verb, "run"))
        return cli_usage_error("unknown schedules command \"%s\" (list, create, pause, resume, run)", verb);
    if (argc - optind != 2)
        return cli_usage_error("schedules %s needs one schedule id", verb);
    const char *id = argv[optind + 1];
    if (!*id || strspn(id, "0123456789") != strlen(id) || strlen(id) > 18)
        return cli_usage_error("invalid schedule id \"%s\"", id);
    snprintf(path, sizeof(path), "/api/v1/schedules/%s/%s", id, verb);
    return request(c, "POST", path, NULL, print_one, NULL);
}

/* Which platforms `ppbench health` looks at. */
struct health_filter {
    bool all;
    const char *platform, *host; /* NULL: any */
};

static bool health_kept(const struct health_filter *f, json_t *p)
{
    return (!f->platform || !strcmp(str(p, "id"), f->platform)) &&
           (!f->host || !strcmp(str(p, "host"), f->host));
}

static void print_health(json_t *doc, const struct health_filter *f)
{
    json_t *p, *counts = json_object_get(doc, "counts");
    size_t i, shown = 0;
    const char *k;
    json_t *v;

    if (!f->platform && !f->host) {
        json_object_foreach(counts, k, v) printf("%s %lld  ", k, (long long)json_integer_value(v));
        printf("\n");
    }
    json_array_foreach(json_object_get(doc, "platforms"), i, p)
    {
        const char *st = str(p, "state");
        /* every state but ok sets the exit status, so every one is shown: what is printed and the status
         * agree */
        if (!health_kept(f, p) || (!f->all && !strcmp(st, "ok")))
            continue;
        if (!shown++)
            printf("%-28s %-20s %s\n", "platform", "state", "reason");
        printf("%-28s %-20s %s\n", str(p, "id"), st, strcmp(st, "ok") ? str(p, "reason") : "");
    }
    if (!shown)
        printf("no platform needs attention\n");
}

/* GET /api/v1/health: printed (or its JSON), and the exit status of the worst state kept. */
static int health_check(struct cli *c, const struct health_filter *f)
{
    struct http_reply r = {0};
    struct pp_error err;
    size_t i, kept = 0;
    int status = CLI_OK;
    json_t *p;

    if (http_request(&c->http, "GET", "/api/v1/health", NULL, &r, &err)) {
        status = cli_fail(c, &r, &err);
        goto out;
    }
    if (!json_is_array(json_object_get(r.json, "platforms"))) {
        fprintf(stderr, "ppbench: the server's answer is not a health document\n");
        status = CLI_UNREACHABLE;
        goto out;
    }
    if (c->json)
        cli_print_body(&r);
    else
        print_health(r.json, f);
    json_array_foreach(json_object_get(r.json, "platforms"), i, p)
    {
        int st = health_status(str(p, "state"));
        if (!health_kept(f, p))
            continue;
        kept++;
        status = st > status ? st : status;
    }
    if (kept == 0 && (f->platform || f->host)) {
        fprintf(stderr, "ppbench: no platform %s%s\n", f->platform ? f->platform : "on host ",
                f->platform ? "" : f->host);
        status = CLI_USAGE;
    }
out:
    http_reply_clear(&r);
    return status;
}

int fleet_health_main(struct cli *c, int argc, char **argv)
{
    static const struct option longopts[] = {CLI_GLOBAL_OPTIONS,
                                             {"all", no_argument, NULL, 'a'},
                                             {"platform", required_argument, NULL, 'p'},
                                             {"host", required_argument, NULL, 'H'},
                                             {NULL, 0, NULL, 0}};
    struct health_filter f = {0};
    int opt, status;

    optind = 0;
    while ((opt = cli_getopt(c, argc, argv, ":hap:H:", longopts)) != -1) {
        if (opt == 'a')
            f.all = true;
        else if (opt == 'p')
            f.platform = optarg;
        else if (opt == 'H')
            f.host = optarg;
        else if (opt == 'h') {
            fputs(fleet_health_usage, stdout);
            return CLI_OK;
        } else
            return CLI_USAGE;
    }
    if (optind == argc)
        return health_check(c, &f);
    if (strcmp(argv[optind], "clear") || argc - optind != 2 || f.all || f.platform || f.host)
        return cli_usage_error(
            "usage: ppbench health [--all] [--platform ID] [--host H] | ppbench health clear PLATFORM");
    json_t *body = json_pack("{s:s}", "platform", argv[optind + 1]);
    status = request(c, "POST", "/api/v1/health/clear", body, NULL, NULL);
    json_decref(body);
    return status;
}
