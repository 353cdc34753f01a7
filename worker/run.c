/*
 * run: `ppbench-worker list` and `ppbench-worker run`. Parses options and hands the run to the runner
 * (worker/runner.c: resolve, check, run, report), with the suite options derived from the suite table
 * (kernels/suites.c: --<param> for every parameter, --param NAME=VALUE, the "--X is a S option" errors,
 * --help); `suites` prints that table; builds the platform objects of `list --json`, which are
 * also what `serve` registers. Main thread; every error becomes one message on stderr and an exit status
 * (run.h).
 */
#include "run.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/registry.h"
#include "kernels/suite.h"
#include "worker/cpubind.h"
#include "worker/platform.h"
#include "worker/report.h"
#include "worker/runner.h"
#include "worker/runners.h"

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "ppbench-worker: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return RUN_USAGE;
}

static int parse_count(const char *opt, const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;

    errno = 0;
    if (!s || !*s || *s == '-' || (*out = strtoull(s, &end, 10), errno) || *end || *out > max) {
        fprintf(stderr, "ppbench-worker: invalid %s \"%s\": expected a whole number from 0 to %llu\n", opt,
                s ? s : "", max);
        return -1;
    }
    return 0;
}

/* ---- options derived from the suite table ---- */

/* Every parameter name of every suite, once, in table order: the suite options `run` takes. */
#define MAX_NAMES (SUITE_MAX_PARAMS * 8)
static const char *param_names[MAX_NAMES];
static size_t nparam_names;

static void collect_param_names(void)
{
    nparam_names = 0;
    for (size_t i = 0; i < suite_count(); i++)
        for (size_t p = 0; p < suite_at(i)->nparams; p++) {
            const char *name = suite_at(i)->params[p].name;
            size_t k = 0;
            while (k < nparam_names && strcmp(param_names[k], name) != 0)
                k++;
            if (k == nparam_names && nparam_names < MAX_NAMES)
                param_names[nparam_names++] = name;
        }
}

/* "N", "XxYxZxT" or "aos|soa": what a parameter's option takes, for --help. */
static void metavar(const struct suite_param *p, char *out, size_t size)
{
    size_t used = 0;

    if (p->type == SUITE_INTEGER)
        snprintf(out, size, "N");
    else if (p->type == SUITE_NUMBER)
        snprintf(out, size, "X");
    else if (p->type == SUITE_LATTICE)
        snprintf(out, size, "XxYxZxT");
    else
        for (size_t k = 0; p->choices[k] && used < size; k++)
            used += (size_t)snprintf(out + used, size - used, "%s%s", k ? "|" : "", p->choices[k]);
}

static void print_help(void)
{
    char opt[48], meta[96], def[64];

    printf("usage: ppbench-worker run --platform ID --model MODEL --suite SUITE [options]\n"
           "  --platform ID        platform id (see `ppbench-worker list`), GPU UUID or PCI bus id\n"
           "  --model MODEL        programming model (built: %s)\n"
           "  --suite SUITE        %s\n"
           "  --kernels LIST       comma-separated subset of the suite's kernels (default all)\n"
           "  --param NAME=VALUE   any parameter of the suite by its name (as a job names it)\n"
           "  --float | --double   precision fp32 or fp64 (--precision)\n"
           "  --job JSON           suite, model, kernels and params as one job document (used by `serve`)\n"
           "  --csv | --json       CSV, or one JSON document with everything (default: a table)\n"
           "  --progress-fd FD     write \"progress 0.42\" lines to FD while running (used by `serve`)\n"
           "  --runners FILE       the runners file (default $PPBENCH_RUNNERS, else %s if it exists):\n"
           "                       a runner's name is a model here (worker/runners.h)\n",
           registry_names(), suite_names(), RUNNERS_DEFAULT);
    for (size_t i = 0; i < suite_count(); i++) {
        const struct suite *s = suite_at(i);
        printf("%s: %s; kernels:", s->name, s->title);
        for (size_t k = 0; s->kernels[k]; k++)
            printf(" %s", s->kernels[k]);
        printf("\n");
        for (size_t p = 0; p < s->nparams; p++) {
            const struct suite_param *sp = &s->params[p];
            suite_option_name(sp->name, opt, sizeof(opt));
            metavar(sp, meta, sizeof(meta));
            if (sp->optional || sp->type == SUITE_LATTICE)
                snprintf(def, sizeof(def), "%s", "");
            else if (sp->type == SUITE_ENUM)
                snprintf(def, sizeof(def), " (default %s)", sp->choices[sp->def]);
            else if (sp->type == SUITE_NUMBER)
                snprintf(def, sizeof(def), " (default %g)", sp->fdef);
            else
                snprintf(def, sizeof(def), " (default %lld)", sp->def);
            printf("  %s %s\n      %s", opt, meta, sp->description);
            /* each choice in its words, with the models that offer it where not all do */
            for (int k = 0; sp->choice_help && sp->choices[k]; k++)
                printf("%s%s (%s%s%s)", k ? ", " : ": ", sp->choices[k], sp->choice_help[k],
                       sp->choice_models && sp->choice_models[k] ? "; " : "",
                       sp->choice_models && sp->choice_models[k] ? sp->choice_models[k] : "");
            printf("%s%s\n", def, sp->standalone ? "; not for jobs" : "");
        }
    }
}

/* One suite parameter given on the command line, applied once the suite is known. */
struct given {
    const char *name, *value, *as; /* as: how it was written, for messages ("--lattice", "--param") */
};

/* The suite options s takes, "--lattice, --layout, ..." */
static void suite_options(const struct suite *s, char *out, size_t size)
{
    char opt[48];
    size_t used = 0;

    out[0] = '\0';
    for (size_t p = 0; p < s->nparams && used < size; p++) {
        suite_option_name(s->params[p].name, opt, sizeof(opt));
        used += (size_t)snprintf(out + used, size - used, "%s%s", p ? ", " : "", opt);
    }
}

/* The given parameters, and --kernels, into job->values for the suite now known. */
static int apply_given(struct runner_job *job, const struct given *given, size_t ngiven, const char *kernels)
{
    const struct suite *s = job->values.suite;
    struct suite_error e;
    char owners[160], takes[512];

    for (size_t i = 0; i < ngiven; i++) {
        if (!suite_param(s, given[i].name)) {
            suite_param_owners(given[i].name, owners, sizeof(owners));
            suite_options(s, takes, sizeof(takes));
            if (!owners[0] || strcmp(given[i].as, "--param") == 0)
                return usage_error("%s", (snprintf(owners, sizeof(owners), "suite %s has no parameter \"%s\"",
                                                   s->name, given[i].name),
                                          owners));
            fprintf(stderr, "ppbench-worker: %s is a %s option (%s takes %s)\n", given[i].as, owners, s->name,
                    takes);
            return RUN_USAGE;
        }
        if (suite_values_set(&job->values, given[i].name, given[i].value, &e))
            return usage_error("%s", e.msg);
    }
    if (kernels && suite_values_set_kernels(&job->values, kernels, &e))
        return usage_error("%s", e.msg);
    /* a choice the model does not offer (the suite table's choice_models), as the server refuses it */
    if (job->model && suite_values_check_model(&job->values, job->model, &e))
        return usage_error("%s", e.msg);
    return RUN_OK;
}

/* --job: the job document of the API, checked as the server checks it. */
static int apply_job(struct runner_job *job, const char *text, json_t **doc)
{
    const struct suite *s;
    struct suite_error e;
    json_error_t jerr;

    if (!(*doc = json_loads(text, 0, &jerr)) || !json_is_object(*doc))
        return usage_error("invalid --job: %s", *doc ? "not an object" : jerr.text);
    job->model = json_string_value(json_object_get(*doc, "model"));
    const char *suite = json_string_value(json_object_get(*doc, "suite"));
    if (!job->model || !suite)
        return usage_error("%s", "invalid --job: it needs a suite and a model");
    if (!(s = suite_find(suite))) {
        fprintf(stderr, "ppbench-worker: unknown suite \"%s\" (built: %s)\n", suite, suite_names());
        return RUN_USAGE;
    }
    if (suite_values_from_json(&job->values, s, json_object_get(*doc, "params"),
                               json_object_get(*doc, "kernels"), &e))
        return usage_error("invalid job: %s", e.msg);
    if (suite_values_check_model(&job->values, job->model, &e))
        return usage_error("invalid job: %s", e.msg);
    return RUN_OK;
}

/* parse_run's answer to --help: the help is printed, nothing is to run (run_main returns RUN_OK, having freed
 * what it holds: an exit here left its copy of argv to LeakSanitizer). */
#define PARSE_HELP (-1)

static int parse_run(int argc, char **argv, struct runner_job *job, enum runner_format *fmt, json_t **doc,
                     const char **runners)
{
    enum { OPT_PARAM0 = 1000 };
    static struct option longopts[16 + MAX_NAMES];
    static char optnames[MAX_NAMES][48];
    static const struct option fixed[] = {
        {"platform", required_argument, NULL, 'p'},
        {"model", required_argument, NULL, 'm'},
        {"suite", required_argument, NULL, 's'},
        {"kernels", required_argument, NULL, 'K'},
        {"float", no_argument, NULL, 'f'},
        {"double", no_argument, NULL, 'd'},
        {"param", required_argument, NULL, 'X'},
        {"job", required_argument, NULL, 'J'},
        {"csv", no_argument, NULL, 'c'},
        {"json", no_argument, NULL, 'j'},
        {"progress-fd", required_argument, NULL, 'P'},
        {"runners", required_argument, NULL, 'R'},
        {"help", no_argument, NULL, 'h'},
    };
    struct given given[64];
    size_t ngiven = 0, nopts = 0;
    const char *suite = NULL, *kernels = NULL, *job_text = NULL;
    static char precision_value[8];
    unsigned long long v;
    int c, li = 0;

    memset(job, 0, sizeof(*job));
    job->progress_fd = -1;
    *fmt = RUNNER_TABLE;
    collect_param_names();
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        longopts[nopts++] = fixed[i];
    for (size_t i = 0; i < nparam_names; i++) {
        suite_option_name(param_names[i], optnames[i], sizeof(optnames[i]));
        longopts[nopts++] = (struct option){optnames[i] + 2, required_argument, NULL, OPT_PARAM0 + (int)i};
    }
    longopts[nopts] = (struct option){NULL, 0, NULL, 0};
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, &li)) != -1) {
        if (c >= OPT_PARAM0 && c < OPT_PARAM0 + (int)nparam_names) {
            if (ngiven < sizeof(given) / sizeof(given[0]))
                given[ngiven++] =
                    (struct given){param_names[c - OPT_PARAM0], optarg, optnames[c - OPT_PARAM0]};
            continue;
        }
        switch (c) {
        case 'p':
            job->platform = optarg;
            break;
        case 'm':
            job->model = optarg;
            break;
        case 's':
            suite = optarg;
            break;
        case 'K':
            kernels = optarg;
            break;
        case 'f':
        case 'd':
            snprintf(precision_value, sizeof(precision_value), "%s", c == 'f' ? "fp32" : "fp64");
            if (ngiven < sizeof(given) / sizeof(given[0]))
                given[ngiven++] =
                    (struct given){"precision", precision_value, c == 'f' ? "--float" : "--double"};
            break;
        case 'X': {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg)
                return usage_error("invalid --param \"%s\": expected NAME=VALUE", optarg);
            *eq = '\0';
            if (ngiven < sizeof(given) / sizeof(given[0]))
                given[ngiven++] = (struct given){optarg, eq + 1, "--param"};
            break;
        }
        case 'J':
            job_text = optarg;
            break;
        case 'c':
            *fmt = RUNNER_CSV;
            break;
        case 'j':
            *fmt = RUNNER_JSON;
            break;
        case 'P':
            if (parse_count("--progress-fd", optarg, 1024, &v))
                return RUN_USAGE;
            job->progress_fd = (int)v;
            break;
        case 'R':
            *runners = optarg;
            break;
        case 'h':
            print_help();
            return PARSE_HELP;
        default:
            return usage_error("unknown or incomplete option \"%s\" (see --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument \"%s\"", argv[optind]);
    if (job_text) {
        if (suite || job->model || kernels || ngiven)
            return usage_error("%s",
                               "--job carries the suite, model, kernels and parameters: give no others");
        if (!job->platform)
            return usage_error("%s", "run needs --platform");
        int rc = apply_job(job, job_text, doc);
        job->kernels_default = !json_object_get(*doc, "kernels");
        return rc;
    }
    if (!job->platform || !job->model || !suite)
        return usage_error("%s", "run needs --platform, --model and --suite (see --help)");
    if (!suite_find(suite)) {
        fprintf(stderr, "ppbench-worker: unknown suite \"%s\" (built: %s)\n", suite, suite_names());
        return RUN_USAGE;
    }
    suite_values_default(&job->values, suite_find(suite));
    job->kernels_default = !kernels;
    return apply_given(job, given, ngiven, kernels);
}

int run_main(int argc, char **argv)
{
    struct runner_job job;
    enum runner_format fmt;
    struct pp_error err;
    static struct cpubind binding;
    static struct runners runners;
    const char *runners_path = NULL;
    json_t *doc = NULL; /* --job's document: job.model points into it */
    /* The command line as given, for cpubind's exec (parse_run writes into --param's text). */
    char **again = calloc((size_t)argc + 2, sizeof(*again));
    int rc;

    for (int i = 0; again && i < argc; i++)
        if (!(again[i + 1] = strdup(argv[i]))) {
            free(again); /* out of memory at start: nothing else to free worth the lines */
            again = NULL;
        }
    if (!again) {
        fprintf(stderr, "ppbench-worker: out of memory\n");
        return RUN_FAILED;
    }
    again[0] = "ppbench-worker";
    if ((rc = parse_run(argc, argv, &job, &fmt, &doc, &runners_path)) == RUN_OK &&
        !registry_find(job.model)) {
        /* not a built model: a runner of this host's runners file, or unknown (runner_run says so) */
        if (runners_load(&runners, runners_path, &err)) {
            fprintf(stderr, "ppbench-worker: %s\n", err.msg);
            rc = RUN_USAGE;
        }
        if ((job.external = runners_find(&runners, job.model)) && job.kernels_default)
            job.values.kernels &= job.external->kernels;
    }
    if (rc == PARSE_HELP)
        rc = RUN_OK;
    else if (rc == RUN_OK) {
        /* Before any runtime starts; the openmp model's defaults exec this command again. A runner's program
         * binds itself as its env lines say. */
        if (!job.external)
            cpubind_apply(&binding, job.model, job.platform, again);
        job.binding = &binding;
        rc = runner_run(&job, stdout, fmt, &err);
        /* Verification failures were printed one per line by the runner. */
        if (rc == RUN_USAGE || rc == RUN_FAILED)
            fprintf(stderr, "ppbench-worker: %s\n", err.msg);
    }
    json_decref(doc);
    runners_release(&runners);
    for (int i = 1; i <= argc; i++)
        free(again[i]);
    free(again);
    return rc;
}

/* `ppbench-worker suites [--json]`: the suite table, the document GET /api/v1/suites serves. */
int run_suites_main(int argc, char **argv)
{
    json_t *doc;

    if (argc > 2 || (argc == 2 && strcmp(argv[1], "--json") != 0))
        return usage_error("unexpected argument \"%s\" (suites takes only --json)", argv[argc - 1]);
    if (argc == 1) {
        for (size_t i = 0; i < suite_count(); i++)
            printf("%-10s %s\n", suite_at(i)->name, suite_at(i)->title);
        return RUN_OK;
    }
    doc = suite_catalog_json();
    json_dumpf(doc, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(doc);
    return RUN_OK;
}

static int list_json(const struct pp_platform_list *pl)
{
    json_t *arr = json_array(), *notes = json_array(), *doc;

    for (size_t i = 0; i < pl->len; i++)
        json_array_append_new(arr, report_platform_json(&pl->items[i]));
    for (size_t i = 0; i < pl->nnotes; i++)
        json_array_append_new(notes, json_string(pl->notes[i]));
    doc = json_pack("{s:o, s:o}", "platforms", arr, "notes", notes);
    json_dumpf(doc, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(doc);
    return RUN_OK;
}

int run_list_main(int argc, char **argv)
{
    static struct pp_platform_list pl;
    struct pp_error err;
    int json = argc > 1 && strcmp(argv[1], "--json") == 0;

    if (argc > 1 + json)
        return usage_error("unexpected argument \"%s\" (list takes only --json)", argv[1 + json]);
    if (platform_discover(&pl, &err)) {
        fprintf(stderr, "ppbench-worker: %s\n", err.msg);
        return RUN_FAILED;
    }
    if (json)
        return list_json(&pl);
    printf("%-7s %-5s %-40s %10s %6s %12s  %s\n", "ID", "KIND", "NAME", "MEMORY", "UNITS", "PEAK GB/s",
           "MODELS");
    for (size_t i = 0; i < pl.len; i++) {
        const struct pp_platform *p = &pl.items[i];
        char models[128], peak[32] = "-";
        platform_models(p, models, sizeof(models));
        if (p->peak_bw > 0)
            snprintf(peak, sizeof(peak), "%.1f", p->peak_bw * 1e-9);
        printf("%-7s %-5s %-40.40s %7.1f GB %6u %12s  %s\n", p->id, platform_kind_name(p->kind), p->name,
               (double)p->mem_bytes * 1e-9, p->compute_units, peak, models);
    }
    for (size_t i = 0; i < pl.len; i++)
        printf("%s peak: %s\n", pl.items[i].id, pl.items[i].peak_source);
    for (size_t i = 0; i < pl.nnotes; i++)
        printf("note: %s\n", pl.notes[i]);
    return RUN_OK;
}
