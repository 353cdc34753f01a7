/*
 * run: `ppbench-worker list` and `ppbench-worker run`. Parses options and hands the run to the runner
 * (worker/runner.c: resolve, check, run, report); builds the platform objects of `list --json`, which are
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

#include "kernels/lattice.h"
#include "kernels/registry.h"
#include "kernels/staggered/staggered.h"
#include "kernels/stream/stream.h"
#include "kernels/wilson/wilson.h"
#include "worker/platform.h"
#include "worker/report.h"
#include "worker/runner.h"

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

static const char run_usage[] =
    "usage: ppbench-worker run --platform ID --model MODEL --suite stream|wilson|staggered [options]\n"
    "  --platform ID      platform id (see `ppbench-worker list`), GPU UUID or PCI bus id\n"
    "  --model MODEL      programming model (%s)\n"
    "  --suite SUITE      stream (BabelStream), wilson (Wilson Dslash) or staggered (MILC staggered Dslash)\n"
    "  --float            single precision (wilson's default)\n"
    "  --double           double precision (the default of stream and staggered)\n"
    "stream:\n"
    "  --arraysize N      elements per array (default 2^25)\n"
    "  --kernels LIST     comma-separated subset of copy,mul,add,triad,dot,nstream (default all)\n"
    "  --numtimes K       iterations per kernel, K >= 2; the first is warm-up (default 100; wilson too)\n"
    "wilson and staggered (even to odd checkerboard, periodic):\n"
    "  --lattice XxYxZxT  lattice extents, each even and >= 4 (default 32^4 on GPUs, 8^4 on CPUs)\n"
    "wilson:\n"
    "  --layout LAYOUT    aos (site-major) or soa (structure of arrays over sites; default aos)\n"
    "  --iterations N     applications per timed sample, back to back (default 1)\n"
    "staggered (paper 001):\n"
    "  --strategy S       1lp, 2lp, 3lp-1, 3lp-2, 3lp-3, 4lp-1, 4lp-2 (OpenCL, CUDA) or site, simd "
    "(OpenMP);\n"
    "                     default 3lp-1 on GPUs, site on CPUs\n"
    "  --order O          work-item order: k or i (3lp-*, 4lp-1; default k), l or i (4lp-2; default l), "
    "none\n"
    "  --work-group N     work-items per work-group (GPU strategies): a multiple of 12 (3lp k), 4 (3lp i) "
    "or\n"
    "                     48 (4lp) dividing the global size; default the largest of 768, 384, 192, 96 that "
    "fits\n"
    "  --runs R           timed samples after one warm-up application (default 10)\n"
    "  --iterations N     applications per sample, timed together (default 100)\n"
    "  --timing T         mean (rates from the mean sample, the paper's rule; default) or best (the "
    "fastest)\n"
    "output:\n"
    "  --csv | --json     CSV, or one JSON document with everything (default: a table)\n"
    "  --progress-fd FD   write \"progress 0.42\" lines to FD while running (used by `serve`)\n";

/* The suites an option belongs to; an option given to a suite that does not take it is an error. */
enum { SUITE_STREAM = 1, SUITE_WILSON = 2, SUITE_STAGGERED = 4 };

struct suite_option {
    const char *name;
    unsigned suites;
};

static const char *suite_options(unsigned suite)
{
    return suite == SUITE_STREAM ? "--arraysize, --kernels, --numtimes"
           : suite == SUITE_WILSON
               ? "--lattice, --layout, --numtimes, --iterations"
               : "--lattice, --strategy, --order, --work-group, --runs, --iterations, --timing";
}

static const char *suite_names(unsigned suites)
{
    static const char *const names[8] = {"",
                                         "stream",
                                         "wilson",
                                         "stream and wilson",
                                         "staggered",
                                         "stream and staggered",
                                         "wilson and staggered",
                                         "any"};
    return names[suites & 7];
}

static unsigned suite_bit(const char *suite)
{
    return strcmp(suite, "stream") == 0      ? SUITE_STREAM
           : strcmp(suite, "wilson") == 0    ? SUITE_WILSON
           : strcmp(suite, "staggered") == 0 ? SUITE_STAGGERED
                                             : 0;
}

static int parse_run(int argc, char **argv, struct runner_job *job, enum runner_format *fmt)
{
    static const struct option longopts[] = {
        {"platform", required_argument, NULL, 'p'},
        {"model", required_argument, NULL, 'm'},
        {"suite", required_argument, NULL, 's'},
        {"arraysize", required_argument, NULL, 'n'},
        {"numtimes", required_argument, NULL, 'k'},
        {"float", no_argument, NULL, 'f'},
        {"kernels", required_argument, NULL, 'K'},
        {"csv", no_argument, NULL, 'c'},
        {"json", no_argument, NULL, 'j'},
        {"progress-fd", required_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},
        {"double", no_argument, NULL, 'd'},
        {"lattice", required_argument, NULL, 'L'},
        {"layout", required_argument, NULL, 'Y'},
        {"strategy", required_argument, NULL, 'S'},
        {"order", required_argument, NULL, 'O'},
        {"work-group", required_argument, NULL, 'W'},
        {"runs", required_argument, NULL, 'R'},
        {"iterations", required_argument, NULL, 'I'},
        {"timing", required_argument, NULL, 'T'},
        {NULL, 0, NULL, 0},
    };
    struct suite_option given[32]; /* the suite-specific options given, in order */
    size_t ngiven = 0;
    unsigned suite;
    int prec = -1, li = 0;
    unsigned long long v;
    struct pp_error err;
    int c;

    memset(job, 0, sizeof(*job));
    job->progress_fd = -1;
    *fmt = RUNNER_TABLE;
    stream_params_default(&job->stream);
    wilson_params_default(&job->wilson);
    staggered_params_default(&job->staggered);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, &li)) != -1) {
        unsigned suites = c == 'n' || c == 'K' ? SUITE_STREAM
                          : c == 'k'           ? SUITE_STREAM | SUITE_WILSON
                          : c == 'L'           ? SUITE_WILSON | SUITE_STAGGERED
                          : c == 'Y'           ? SUITE_WILSON
                          : c == 'I'           ? SUITE_WILSON | SUITE_STAGGERED
                          : strchr("SOWRT", c) ? SUITE_STAGGERED
                                               : 0;
        if (suites && ngiven < sizeof(given) / sizeof(given[0]))
            given[ngiven++] = (struct suite_option){longopts[li].name, suites};
        switch (c) {
        case 'p':
            job->platform = optarg;
            break;
        case 'm':
            job->model = optarg;
            break;
        case 's':
            job->suite = optarg;
            break;
        case 'n':
            if (parse_count("--arraysize", optarg, (unsigned long long)SIZE_MAX / 16, &v))
                return RUN_USAGE;
            job->stream.n = (size_t)v;
            break;
        case 'k':
            if (parse_count("--numtimes", optarg, 100000000ull, &v))
                return RUN_USAGE;
            job->stream.numtimes = job->wilson.numtimes = (unsigned)v;
            break;
        case 'f':
            prec = PP_FP32;
            break;
        case 'd':
            prec = PP_FP64;
            break;
        case 'K':
            if (stream_kernels_parse(optarg, &job->stream.kernels, &err))
                return usage_error("%s", err.msg);
            break;
        case 'L':
            if (lattice_parse(optarg, job->wilson.dims, &err))
                return usage_error("%s", err.msg);
            memcpy(job->staggered.dims, job->wilson.dims, sizeof(job->staggered.dims));
            break;
        case 'Y':
            if (wilson_layout_parse(optarg, &job->wilson.layout, &err))
                return usage_error("%s", err.msg);
            break;
        case 'S':
            if (staggered_strategy_parse(optarg, &job->staggered.variant.strategy, &err))
                return usage_error("%s", err.msg);
            break;
        case 'O':
            if (staggered_order_parse(optarg, &job->staggered.variant.order, &err))
                return usage_error("%s", err.msg);
            break;
        case 'W':
            if (parse_count("--work-group", optarg, 1u << 20, &v))
                return RUN_USAGE;
            job->staggered.variant.work_group = (unsigned)v;
            break;
        case 'R':
            if (parse_count("--runs", optarg, 1000000ull, &v))
                return RUN_USAGE;
            job->staggered.runs = (unsigned)v;
            break;
        case 'I':
            if (parse_count("--iterations", optarg, WILSON_MAX_ITERATIONS, &v))
                return RUN_USAGE;
            job->staggered.iterations = job->wilson.iterations = (unsigned)v;
            break;
        case 'T':
            if (strcmp(optarg, "mean") && strcmp(optarg, "best"))
                return usage_error("invalid --timing \"%s\": expected mean or best", optarg);
            job->staggered.timing = strcmp(optarg, "best") ? STAGGERED_TIMING_MEAN : STAGGERED_TIMING_BEST;
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
        case 'h':
            printf(run_usage, registry_names());
            exit(RUN_OK);
        default:
            return usage_error("unknown or incomplete option \"%s\" (see --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument \"%s\"", argv[optind]);
    if (!job->platform || !job->model || !job->suite)
        return usage_error("%s", "run needs --platform, --model and --suite (see --help)");
    if (!(suite = suite_bit(job->suite)))
        return usage_error("unknown suite \"%s\" (built: stream, wilson, staggered)", job->suite);
    for (size_t i = 0; i < ngiven; i++)
        if (!(given[i].suites & suite)) {
            fprintf(stderr, "ppbench-worker: --%s is a %s option (%s takes %s)\n", given[i].name,
                    suite_names(given[i].suites), job->suite, suite_options(suite));
            return RUN_USAGE;
        }
    if (prec >= 0)
        job->stream.prec = job->wilson.prec = job->staggered.prec = (enum pp_precision)prec;
    if (job->stream.numtimes < 2)
        return usage_error("%s", "numtimes must be at least 2 (the first iteration is warm-up)");
    if (job->stream.n == 0)
        return usage_error("%s", "array size must be at least 1");
    return RUN_OK;
}

int run_main(int argc, char **argv)
{
    struct runner_job job;
    enum runner_format fmt;
    struct pp_error err;
    int rc;

    if ((rc = parse_run(argc, argv, &job, &fmt)) != RUN_OK)
        return rc;
    rc = runner_run(&job, stdout, fmt, &err);
    /* Verification failures were printed one per line by the runner. */
    if (rc == RUN_USAGE || rc == RUN_FAILED)
        fprintf(stderr, "ppbench-worker: %s\n", err.msg);
    return rc;
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
