/*
 * scaling: `ppbench scaling --platform ID --suite S`: GET /api/v1/results of that platform and suite (and its
 * STREAM triads, for the reference), then one row per kernel, model, precision and size with the best
 * verified figure of that size (the suite table's figure: GB/s, GFLOP/s or interactions/s), the number of
 * runs behind it, and, for a bandwidth suite, its share of the platform's triad at the triad's largest size.
 * Flagged results (noisy, cache_resident, above_ceiling, excluded: any flag), the reference triad's too, are
 * left out with a line saying how many and which flags, as the Scaling page does; --include-flagged counts
 * them, and a row whose best result is flagged names its flags in the FLAGS column. A superseded row (an
 * earlier run of its job, issue 25) counts nowhere, not even with --include-flagged, nor as left out.
 * Main thread.
 */
#include "scaling.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/format.h"
#include "kernels/suite.h"

const char scaling_usage[] =
    "usage: ppbench scaling --platform ID --suite S [--precision fp64|fp32] [--include-flagged] [--json]\n"
    "  a suite's figure of merit against problem size on one platform: one row per kernel, model,\n"
    "  precision and size (the best verified result of that size, and how many runs there are), with the\n"
    "  platform's STREAM triad at its largest size as the reference for bandwidth suites. Submit a sweep\n"
    "  (POST /api/v1/jobs with \"sweep\") to measure one.\n"
    "  --include-flagged  count flagged results too (noisy, cache_resident, above_ceiling, excluded: left\n"
    "                     out by default, with a line saying how many); a row whose best is flagged says\n"
    "                     which flags in its FLAGS column\n";

#define MAX_POINTS 4096

struct point {
    const char *kernel, *model, *precision;
    long long size;
    double value; /* the best */
    int runs;
    long long job;
    char flags[64]; /* the best result's flags, comma-separated ("" when none) */
};

/* Whether result r carries a flag (any: what the analysis leaves out), its flags in buf ("noisy,excluded").
 */
static bool flagged(json_t *r, char *buf, size_t size)
{
    return format_flags(r, buf, size)[0] != '\0';
}

/* The flags that left results out, counted: "noisy 2, above_ceiling 1". */
struct hidden {
    int results;
    struct {
        const char *flag;
        int n;
    } flags[16];
    size_t nflags;
};

static void hide(struct hidden *h, json_t *r)
{
    json_t *f;
    size_t k, j;

    h->results++;
    json_array_foreach(json_object_get(r, "flags"), k, f)
    {
        const char *name = json_string_value(f);
        if (!name)
            continue;
        for (j = 0; j < h->nflags && strcmp(h->flags[j].flag, name); j++)
            ;
        if (j == h->nflags && h->nflags < sizeof(h->flags) / sizeof(h->flags[0]))
            h->flags[h->nflags++].flag = name;
        if (j < h->nflags)
            h->flags[j].n++;
    }
}

/* Result r's figure of merit in the unit of the suite's figure (kernels/suite.h: a field of the result, or
 * the problem's size per second of the suite's timing statistic), times the figure's scale. */
static double figure_of(const struct suite *s, json_t *r)
{
    const struct suite_figure *f = s->figure;
    double t;

    if (strcmp(f->from, "size") != 0)
        return json_number_value(json_object_get(r, f->from)) * f->scale;
    t = json_number_value(json_object_get(json_object_get(r, "stats_s"), s->timing));
    return t > 0 ? (double)json_integer_value(json_object_get(r, "size")) / t * f->scale : 0;
}

static int compare(const void *a, const void *b)
{
    const struct point *x = a, *y = b;
    int c;

    if ((c = strcmp(x->kernel, y->kernel)) || (c = strcmp(x->model, y->model)) ||
        (c = strcmp(x->precision, y->precision)))
        return c;
    return (x->size > y->size) - (x->size < y->size);
}

/* The best verified triad at the largest size among results (GB/s), flagged ones only when include_flagged,
 * 0 when none. */
static double triad_reference(json_t *results, const char *precision, bool include_flagged, long long *size)
{
    char fl[64];
    double best = 0;
    json_t *r;
    size_t i;

    *size = 0;
    json_array_foreach(results, i, r)
    {
        long long n = json_integer_value(json_object_get(r, "size"));
        double bw = json_number_value(json_object_get(r, "bandwidth_bytes_per_s")) / 1e9;
        if (!json_is_true(json_object_get(r, "verified")) || format_superseded(r) ||
            (precision && strcmp(precision, json_string_value(json_object_get(r, "precision")) ?: "")) ||
            (!include_flagged && flagged(r, fl, sizeof(fl))))
            continue;
        if (n > *size || (n == *size && bw > best)) {
            *size = n;
            best = bw;
        }
    }
    return best;
}

static int get(const struct cli *c, const char *path, struct http_reply *r)
{
    struct pp_error err;

    if (http_request(&c->http, "GET", path, NULL, r, &err))
        return cli_fail(c, r, &err);
    if (!json_is_array(json_object_get(r->json, "results"))) {
        fprintf(stderr, "ppbench: the server's answer has no \"results\" array\n");
        return CLI_UNREACHABLE;
    }
    return CLI_OK;
}

int scaling_main(struct cli *c, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"platform", required_argument, NULL, 'p'},
        {"suite", required_argument, NULL, 's'},
        {"precision", required_argument, NULL, 'P'},
        {"include-flagged", no_argument, NULL, 'F'},
        CLI_GLOBAL_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    const char *platform = NULL, *suite_name = NULL, *precision = NULL;
    char path[1024], tpath[1024];
    struct http_reply r = {0}, t = {0};
    struct pp_error err;
    static struct point pts[MAX_POINTS];
    size_t npts = 0, i;
    const struct suite *s;
    long long tsize = 0;
    double triad;
    json_t *res;
    int opt, status;
    bool include_flagged = false;
    struct hidden hidden = {0};
    char fl[64];

    optind = 0;
    while ((opt = cli_getopt(c, argc, argv, ":h", longopts)) != -1) {
        if (opt == 'h') {
            fputs(scaling_usage, stdout);
            return CLI_OK;
        }
        if (opt == 'p')
            platform = optarg;
        else if (opt == 's')
            suite_name = optarg;
        else if (opt == 'P')
            precision = optarg;
        else if (opt == 'F')
            include_flagged = true;
        else
            return CLI_USAGE; /* cli_getopt said what */
    }
    if (optind < argc)
        return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
    if (!platform || !suite_name)
        return cli_usage_error("scaling needs --platform and --suite (see --help)");
    if (!(s = suite_find(suite_name)))
        return cli_usage_error("unknown suite \"%s\" (known: %s)", suite_name, suite_names());
    if (precision && strcmp(precision, "fp64") && strcmp(precision, "fp32"))
        return cli_usage_error("invalid --precision \"%s\": expected fp64 or fp32", precision);
    snprintf(path, sizeof(path), "/api/v1/results?limit=2000");
    snprintf(tpath, sizeof(tpath), "/api/v1/results?limit=200&suite=stream&kernel=triad");
    if (http_query_add(path, sizeof(path), "platform", platform, &err) ||
        http_query_add(path, sizeof(path), "suite", suite_name, &err) ||
        http_query_add(tpath, sizeof(tpath), "platform", platform, &err))
        return cli_usage_error("%s", err.msg);
    if ((status = get(c, path, &r)) != CLI_OK || (status = get(c, tpath, &t)) != CLI_OK)
        goto out;
    if (c->json) {
        cli_print_body(&r);
        goto out;
    }
    json_array_foreach(json_object_get(r.json, "results"), i, res)
    {
        const char *kernel = json_string_value(json_object_get(res, "kernel")),
                   *model = json_string_value(json_object_get(res, "model")),
                   *prec = json_string_value(json_object_get(res, "precision"));
        long long size = json_integer_value(json_object_get(res, "size"));
        double v = figure_of(s, res);
        size_t k;

        if (!json_is_true(json_object_get(res, "verified")) || format_superseded(res) || !kernel || !model ||
            !prec || (precision && strcmp(precision, prec)))
            continue;
        if (flagged(res, fl, sizeof(fl)) && !include_flagged) {
            hide(&hidden, res);
            continue;
        }
        for (k = 0; k < npts; k++)
            if (pts[k].size == size && !strcmp(pts[k].kernel, kernel) && !strcmp(pts[k].model, model) &&
                !strcmp(pts[k].precision, prec))
                break;
        if (k == npts) {
            if (npts == MAX_POINTS)
                continue;
            pts[npts++] = (struct point){kernel, model, prec, size, v, 0, 0, ""};
        }
        pts[k].runs++;
        if (v >= pts[k].value) {
            pts[k].value = v;
            pts[k].job = json_integer_value(json_object_get(res, "job_id"));
            snprintf(pts[k].flags, sizeof(pts[k].flags), "%s", fl);
        }
    }
    if (hidden.results) { /* said first, so that an empty table is not taken for no results */
        printf("left out: %d flagged result%s (", hidden.results, hidden.results == 1 ? "" : "s");
        for (i = 0; i < hidden.nflags; i++)
            printf("%s%s %d", i ? ", " : "", hidden.flags[i].flag, hidden.flags[i].n);
        printf("); --include-flagged counts them\n");
    }
    if (!npts) {
        printf("no %sverified %s results on %s%s%s\n", hidden.results ? "unflagged " : "", suite_name,
               platform, precision ? " in " : "", precision ? precision : "");
        goto out;
    }
    qsort(pts, npts, sizeof(pts[0]), compare);
    /* a bandwidth is measured against the platform's triad */
    triad = strcmp(s->figure->from, "bandwidth_bytes_per_s") == 0
                ? triad_reference(json_object_get(t.json, "results"), precision, include_flagged, &tsize)
                : 0;
    printf("%s on %s: %s against %s%s\n", s->title, platform, s->figure->label, s->size,
           include_flagged ? " (flagged results counted)" : "");
    if (triad > 0)
        printf("reference: STREAM triad %.1f GB/s at %lld elements (the best verified at its largest size, "
               "flagged ones %s)\n",
               triad, tsize, include_flagged ? "counted" : "left out");
    printf("%-10s %-8s %-9s %14s %12s %6s %9s %8s  %s\n", "KERNEL", "MODEL", "PRECISION", "SIZE",
           s->figure->unit, "RUNS", "OF TRIAD", "JOB", "FLAGS");
    for (i = 0; i < npts; i++) {
        char share[16] = "-";
        if (triad > 0)
            snprintf(share, sizeof(share), "%.1f %%", 100 * pts[i].value / triad);
        printf("%-10s %-8s %-9s %14lld %12.3f %6d %9s %8lld  %s\n", pts[i].kernel, pts[i].model,
               pts[i].precision, pts[i].size, pts[i].value, pts[i].runs, share, pts[i].job,
               pts[i].flags[0] ? pts[i].flags : "-");
    }
out:
    http_reply_clear(&r);
    http_reply_clear(&t);
    return status;
}
