/*
 * run: `ppbench-worker list` and `ppbench-worker run`. Parses options, resolves platform and model, checks
 * the problem against the device before anything is allocated, runs the suite driver and prints the report.
 * Main thread; every error becomes one message on stderr and an exit status (run.h).
 */
#include "run.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/registry.h"
#include "kernels/stream.h"
#include "worker/affinity.h"
#include "worker/nvml.h"
#include "worker/platform.h"
#include "worker/provenance.h"
#include "worker/report.h"

enum output { OUT_TABLE, OUT_CSV, OUT_JSON };

struct run_opts {
    const char *platform, *model, *suite;
    struct stream_params stream;
    enum output output;
};

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
    "usage: ppbench-worker run --platform ID --model MODEL --suite stream [options]\n"
    "  --platform ID      platform id (see `ppbench-worker list`), GPU UUID or PCI bus id\n"
    "  --model MODEL      programming model (%s)\n"
    "  --suite stream     the suite to run\n"
    "  --arraysize N      elements per array (default 2^25)\n"
    "  --numtimes K       iterations per kernel, K >= 2; the first is warm-up (default 100)\n"
    "  --float            single precision (default double)\n"
    "  --kernels LIST     comma-separated subset of copy,mul,add,triad,dot,nstream (default all)\n"
    "  --csv | --json     BabelStream CSV, or one JSON document with everything (default: a table)\n";

static int parse_run(int argc, char **argv, struct run_opts *o)
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
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    unsigned long long v;
    struct pp_error err;
    int c;

    memset(o, 0, sizeof(*o));
    stream_params_default(&o->stream);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            o->platform = optarg;
            break;
        case 'm':
            o->model = optarg;
            break;
        case 's':
            o->suite = optarg;
            break;
        case 'n':
            if (parse_count("--arraysize", optarg, (unsigned long long)SIZE_MAX / 16, &v))
                return RUN_USAGE;
            o->stream.n = (size_t)v;
            break;
        case 'k':
            if (parse_count("--numtimes", optarg, 100000000ull, &v))
                return RUN_USAGE;
            o->stream.numtimes = (unsigned)v;
            break;
        case 'f':
            o->stream.prec = PP_FP32;
            break;
        case 'K':
            if (stream_kernels_parse(optarg, &o->stream.kernels, &err))
                return usage_error("%s", err.msg);
            break;
        case 'c':
            o->output = OUT_CSV;
            break;
        case 'j':
            o->output = OUT_JSON;
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
    if (!o->platform || !o->model || !o->suite)
        return usage_error("%s", "run needs --platform, --model and --suite (see --help)");
    if (strcmp(o->suite, "stream") != 0)
        return usage_error("unknown suite \"%s\" (built: stream)", o->suite);
    if (o->stream.numtimes < 2)
        return usage_error("%s", "numtimes must be at least 2 (the first iteration is warm-up)");
    if (o->stream.n == 0)
        return usage_error("%s", "array size must be at least 1");
    return RUN_OK;
}

static void list_ids(const struct pp_platform_list *pl, char *out, size_t size)
{
    size_t used = 0;
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

int run_main(int argc, char **argv)
{
    static struct pp_platform_list pl; /* large: keep it off the stack */
    struct run_opts o;
    struct run_report r;
    struct stream_result res;
    const struct pp_backend *b;
    struct pp_ctx *ctx = NULL;
    struct pp_error err;
    char ids[256], models[128];
    int rc;

    if ((rc = parse_run(argc, argv, &o)) != RUN_OK)
        return rc;
    if (!(b = registry_find(o.model))) {
        fprintf(stderr, "ppbench-worker: unknown model \"%s\" (built: %s)\n", o.model, registry_names());
        return RUN_USAGE;
    }
    /* Before any runtime starts its threads (discovery starts them): they inherit this thread's mask. */
    if (strcmp(o.model, "openmp") != 0)
        affinity_release_openmp_binding();
    if (platform_discover(&pl, &err)) {
        fprintf(stderr, "ppbench-worker: %s\n", err.msg);
        return RUN_FAILED;
    }
    memset(&r, 0, sizeof(r));
    r.model = o.model;
    if (!(r.platform = platform_find(&pl, o.platform))) {
        list_ids(&pl, ids, sizeof(ids));
        fprintf(stderr, "ppbench-worker: unknown platform \"%s\" (this host has: %s)\n", o.platform, ids);
        return RUN_USAGE;
    }
    if (!(r.device = platform_device(r.platform, o.model))) {
        platform_models(r.platform, models, sizeof(models));
        fprintf(stderr, "ppbench-worker: model %s cannot drive platform %s (%s runs: %s)\n", o.model,
                r.platform->id, r.platform->id, models);
        for (size_t i = 0; i < pl.nnotes; i++)
            if (strncmp(pl.notes[i], o.model, strlen(o.model)) == 0)
                fprintf(stderr, "  %s\n", pl.notes[i]);
        return RUN_USAGE;
    }
    if (stream_check(&o.stream, r.device, &err)) {
        fprintf(stderr, "ppbench-worker: %s\n", err.msg);
        return RUN_USAGE;
    }
    if (b->open(r.device, &ctx, &err)) {
        fprintf(stderr, "ppbench-worker: %s on %s: %s\n", o.model, r.platform->id, err.msg);
        return RUN_FAILED;
    }
    provenance_collect(&r.provenance);
    add_clocks(&r, "before");
    if (stream_run(b, ctx, &o.stream, &res, &err)) {
        fprintf(stderr, "ppbench-worker: %s on %s: %s\n", o.model, r.platform->id, err.msg);
        stream_result_release(&res);
        b->close(ctx);
        return RUN_FAILED;
    }
    add_clocks(&r, "after");
    b->describe(ctx, &r.backend);
    r.result = &res;
    rc = res.verified ? RUN_OK : RUN_UNVERIFIED;
    if (o.output == OUT_CSV)
        report_csv(stdout, &r);
    else if (o.output == OUT_TABLE)
        report_table(stdout, &r);
    else if (report_json(stdout, &r, &err)) {
        fprintf(stderr, "ppbench-worker: %s\n", err.msg);
        rc = RUN_FAILED;
    }
    report_failures(stderr, &r);
    stream_result_release(&res);
    b->close(ctx);
    return rc;
}

static int list_json(const struct pp_platform_list *pl)
{
    json_t *arr = json_array(), *notes = json_array(), *doc;

    for (size_t i = 0; i < pl->len; i++) {
        const struct pp_platform *p = &pl->items[i];
        json_t *devs = json_array();
        for (size_t d = 0; d < p->ndevices; d++)
            json_array_append_new(devs, json_pack("{s:s, s:i, s:s}", "model", p->devices[d].backend->name,
                                                  "index", p->devices[d].index, "name", p->devices[d].name));
        json_array_append_new(
            arr, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:i, s:o, s:s, s:o}", "id", p->id, "kind",
                           platform_kind_name(p->kind), "name", p->name, "vendor", p->vendor, "uuid", p->uuid,
                           "pci_bus_id", p->pci_bus_id, "memory_bytes", (json_int_t)p->mem_bytes,
                           "compute_units", (int)p->compute_units, "peak_bandwidth_bytes_per_s",
                           p->peak_bw > 0 ? json_real(p->peak_bw) : json_null(), "peak_source",
                           p->peak_source, "devices", devs));
    }
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
