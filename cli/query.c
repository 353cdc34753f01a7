/*
 * query: `ppbench jobs`, `results`, `platforms`, `pp` and `cancel`: one request each, printed as a table
 * (format.c), as the server's JSON (--json) or, for results, as the server's CSV. Options of jobs and results
 * are passed through as query parameters of the same name; the server checks their values. Main thread.
 */
#include "query.h"

#include <stdio.h>
#include <string.h>

#include "cli/format.h"
#include "kernels/suite.h"

const char query_jobs_usage[] =
    "usage: ppbench jobs [--state S] [--platform ID] [--suite S] [--model M] [--tag T]\n"
    "                    [--limit N] [--json]\n"
    "  --state S          queued, running, succeeded, failed or cancelled\n"
    "  --platform ID      jobs for this platform\n"
    "  --suite S, --model M, --tag T\n"
    "                     jobs of this suite, model, or with this tag\n"
    "  --limit N          at most N jobs, newest first (1..1000, default 100)\n"
    "  --json             the server's JSON instead of a table\n";

const char query_results_usage[] =
    "usage: ppbench results [--suite S] [--kernel K] [--platform ID] [--model M] [--precision P]\n"
    "                       [--variant V] [--size N] [--tag T] [--job ID] [--since T] [--limit N]\n"
    "                       [--format table|csv|babelstream|json|p3|p3-variant]\n"
    "  --suite S, --kernel K, --platform ID, --model M, --precision P, --variant V, --size N\n"
    "                     only results that match (the variant as the results print it in --json)\n"
    "  --tag T, --job ID  only results of jobs with this tag, or of this job\n"
    "  --since T          only results stored at or after T (RFC 3339, e.g. 2024-05-01T00:00:00Z)\n"
    "  --limit N          at most N results, newest first\n"
    "  --format F         table (default) or csv: each result with its identity (id, date, job, platform,\n"
    "                     model, variant) and TIMING, the statistic its rates come from (min or mean time);\n"
    "                     babelstream: BabelStream's CSV columns; json; or p3 (the P3 analysis library's\n"
    "                     columns: one row per problem, platform and application); p3-variant: one row\n"
    "                     per variant, unsupported ones with their reason\n"
    "  --json             the same as --format json\n";

const char query_pp_usage[] =
    "usage: ppbench pp --problem SUITE.KERNEL [--platforms ID,ID,...] [--efficiency app|arch]\n"
    "                  [--precision fp64|fp32] [--size N | --key K] [--variant V] [--include-flagged]\n"
    "                  [--include-runners] [--json]\n"
    "       ppbench pp --policies --problem SUITE.KERNEL [--platforms ...] [--subsets LIST] [...]\n"
    "  performance portability (PP) of each application (a model, best variant per platform) over a set of\n"
    "  platforms, with its efficiency on each (docs/METHODOLOGY.md, \"Performance portability\")\n"
    "  --problem P        e.g. stream.triad (required)\n"
    "  --platforms LIST   the platform set (default: every platform with a verified result)\n"
    "  --efficiency E     app: of the best on each platform (default); arch: of the platform's peak\n"
    "  --precision P      fp64 or fp32 (default: the suite's, below)\n"
    "  --size N           in the suite's unit, below (default: the size with the most verified results)\n"
    "  --key K            the problem key (a result's problem_key, e.g. precision=fp64;size=1048576;\n"
    "                     numtimes=100; default: the key with the most verified results); the answer lists\n"
    "                     the problem's other keys under the table\n"
    "  --variant V        one fixed variant instead of the best per platform\n"
    "  --include-flagged  count flagged results too (noisy, cache_resident, above_ceiling: left out and\n"
    "                     counted under the table otherwise)\n"
    "  --include-runners  count runners' results too (a site's programs, verified by themselves: left out\n"
    "                     and counted under the table otherwise)\n"
    "  --policies         every variant policy (per model: the best variant per platform, each variant\n"
    "                     everywhere; and --subsets) with its PP and code divergence (paper 003 Sec. 6)\n"
    "  --subsets LIST     with --policies: more policies, each a set of model:variant members, e.g.\n"
    "                     opencl:memory-32,openmp:simd;opencl:select,opencl:memory-32\n"
    "  --json             the server's JSON instead of a table\n"
    "  in the table, \"-\" marks a platform without a verified result, \"n/a\" an undefined efficiency\n";

const char query_platforms_usage[] =
    "usage: ppbench platforms [--json]\n"
    "  the platforms of the fleet, their peak bandwidth, models and workers\n"
    "  --json             the server's JSON instead of a table\n";

const char query_cancel_usage[] = "usage: ppbench cancel ID [--json]\n"
                                  "  cancels job ID (queued or running)\n"
                                  "  --json             print the job as JSON\n";

/*
 * Parses options whose val is their 1-based index in longopts (1..31) into query parameters of the same name
 * on path,
 * --format (val 'F') into *format, and the global options. Returns 0, or -1 with *status (CLI_OK after
 * --help).
 */
static int parse_query(struct cli *c, int argc, char **argv, const struct option *longopts, const char *usage,
                       char *path, size_t size, const char **format, int *status)
{
    struct pp_error err;
    int opt;

    *status = CLI_USAGE;
    optind = 0;
    while ((opt = cli_getopt(c, argc, argv, ":h", longopts)) != -1) {
        if (opt == 'h') {
            fputs(usage, stdout);
            *status = CLI_OK;
            return -1;
        }
        if (opt == 'F' && format) {
            *format = optarg;
        } else if (opt >= 1 && opt < 32) {
            if (http_query_add(path, size, longopts[opt - 1].name, optarg, &err)) {
                cli_usage_error("%s", err.msg);
                return -1;
            }
        } else {
            return -1; /* cli_getopt said what */
        }
    }
    if (optind < argc) {
        cli_usage_error("unexpected argument \"%s\"", argv[optind]);
        return -1;
    }
    return 0;
}

/* GETs path and prints the array under key with fn, or the server's JSON. */
static int get_table(const struct cli *c, const char *path, const char *key,
                     int (*fn)(FILE *, json_t *, struct pp_error *))
{
    struct http_reply r = {0};
    struct pp_error err;
    json_t *rows;
    int status = CLI_OK;

    if (http_request(&c->http, "GET", path, NULL, &r, &err)) {
        status = cli_fail(c, &r, &err);
        goto out;
    }
    rows = json_object_get(r.json, key);
    if (!json_is_array(rows)) {
        fprintf(stderr, "ppbench: the server's answer has no \"%s\" array\n", key);
        status = CLI_UNREACHABLE;
    } else if (c->json) {
        cli_print_body(&r);
    } else if (fn(stdout, rows, &err)) {
        fprintf(stderr, "ppbench: %s\n", err.msg);
        status = CLI_UNREACHABLE;
    }
out:
    http_reply_clear(&r);
    return status;
}

int query_jobs_main(struct cli *c, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"state", required_argument, NULL, 1},
        {"platform", required_argument, NULL, 2},
        {"limit", required_argument, NULL, 3},
        {"suite", required_argument, NULL, 4},
        {"model", required_argument, NULL, 5},
        {"tag", required_argument, NULL, 6},
        CLI_GLOBAL_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    char path[2048] = "/api/v1/jobs";
    int status;

    if (parse_query(c, argc, argv, longopts, query_jobs_usage, path, sizeof(path), NULL, &status))
        return status;
    return get_table(c, path, "jobs", format_jobs);
}

int query_results_main(struct cli *c, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"suite", required_argument, NULL, 1},
        {"kernel", required_argument, NULL, 2},
        {"platform", required_argument, NULL, 3},
        {"model", required_argument, NULL, 4},
        {"since", required_argument, NULL, 5},
        {"limit", required_argument, NULL, 6},
        {"precision", required_argument, NULL, 7},
        {"variant", required_argument, NULL, 8},
        {"size", required_argument, NULL, 9},
        {"tag", required_argument, NULL, 10},
        {"job", required_argument, NULL, 11},
        {"format", required_argument, NULL, 'F'},
        CLI_GLOBAL_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    char path[2048] = "/api/v1/results";
    const char *format = "table";
    struct http_reply r = {0};
    struct pp_error err;
    int status;

    if (parse_query(c, argc, argv, longopts, query_results_usage, path, sizeof(path), &format, &status))
        return status;
    status = CLI_OK;
    if (strcmp(format, "json") == 0)
        c->json = 1;
    else if (strcmp(format, "csv") != 0 && strcmp(format, "babelstream") != 0 && strcmp(format, "p3") != 0 &&
             strcmp(format, "p3-variant") != 0 && strcmp(format, "table") != 0)
        return cli_usage_error(
            "invalid --format \"%s\": expected table, csv, babelstream, json, p3 or p3-variant", format);
    if (c->json || strcmp(format, "table") == 0)
        return get_table(c, path, "results", format_results);
    if (strcmp(format, "p3-variant") ==
        0) { /* the P3 export one row per variant: format=p3&p3_rows=variant */
        format = "p3";
        if (http_query_add(path, sizeof(path), "p3_rows", "variant", &err))
            return cli_usage_error("%s", err.msg);
    }
    if (http_query_add(path, sizeof(path), "format", format, &err))
        return cli_usage_error("%s", err.msg);
    if (http_request(&c->http, "GET", path, NULL, &r, &err))
        status = cli_fail(c, &r, &err);
    else
        cli_print_body(&r); /* the server's CSV as it came (identity, BabelStream's or P3's columns) */
    http_reply_clear(&r);
    return status;
}

/* Each suite's default precision and the unit of its size, from the suite table (kernels/suites.c). */
static void pp_suite_defaults(FILE *f)
{
    fputs("  suites: default precision, unit of --size\n", f);
    for (size_t i = 0; i < suite_count(); i++) {
        const struct suite *s = suite_at(i);
        const struct suite_param *p = suite_param(s, "precision");
        fprintf(f, "    %-12s %s, %s\n", s->name, p && p->type == SUITE_ENUM ? p->choices[p->def] : "-",
                s->size);
    }
}

int query_pp_main(struct cli *c, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"problem", required_argument, NULL, 1},
        {"platforms", required_argument, NULL, 2},
        {"efficiency", required_argument, NULL, 3},
        {"precision", required_argument, NULL, 4},
        {"size", required_argument, NULL, 5},
        {"variant", required_argument, NULL, 6},
        {"subsets", required_argument, NULL, 7},
        {"key", required_argument, NULL, 8},
        CLI_GLOBAL_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    char path[2048] = "/api/v1/pp";
    struct http_reply r = {0};
    struct pp_error err;
    int status, policies = 0, flagged = 0, runners = 0, n = 0;
    char *args[argc + 1];

    /* --policies chooses the endpoint; --include-flagged and --include-runners, flags, parameters */
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--policies") == 0)
            policies = 1;
        else if (strcmp(argv[i], "--include-flagged") == 0)
            flagged = 1;
        else if (strcmp(argv[i], "--include-runners") == 0)
            runners = 1;
        else
            args[n++] = argv[i];
    args[n] = NULL;
    if (policies)
        strcpy(path, "/api/v1/pp/policies");
    if (parse_query(c, n, args, longopts, query_pp_usage, path, sizeof(path), NULL, &status)) {
        if (status == CLI_OK)
            pp_suite_defaults(stdout);
        return status;
    }
    status = CLI_OK;
    if (!strstr(path, "?problem=") && !strstr(path, "&problem="))
        return cli_usage_error("pp needs --problem, e.g. --problem stream.triad");
    if (policies && (strstr(path, "?variant=") || strstr(path, "&variant=")))
        return cli_usage_error("--variant and --policies do not go together: --policies lists every variant");
    if (!policies && (strstr(path, "?subsets=") || strstr(path, "&subsets=")))
        return cli_usage_error("--subsets needs --policies");
    if ((flagged && http_query_add(path, sizeof(path), "include_flagged", "true", &err)) ||
        (runners && http_query_add(path, sizeof(path), "include_runners", "true", &err)))
        return cli_usage_error("%s", err.msg);
    if (policies) {
        if (http_request(&c->http, "GET", path, NULL, &r, &err))
            status = cli_fail(c, &r, &err);
        else if (!json_is_array(json_object_get(r.json, "policies"))) {
            fprintf(stderr, "ppbench: the server's answer has no \"policies\" array\n");
            status = CLI_UNREACHABLE;
        } else if (c->json) {
            cli_print_body(&r);
        } else if (format_policies(stdout, r.json, &err)) {
            fprintf(stderr, "ppbench: %s\n", err.msg);
            status = CLI_UNREACHABLE;
        }
        http_reply_clear(&r);
        return status;
    }
    if ((strstr(path, "?variant=") || strstr(path, "&variant=")) &&
        http_query_add(path, sizeof(path), "variant_policy", "fixed", &err))
        return cli_usage_error("%s", err.msg);
    if (http_request(&c->http, "GET", path, NULL, &r, &err)) {
        status = cli_fail(c, &r, &err);
    } else if (!json_is_array(json_object_get(r.json, "applications"))) {
        fprintf(stderr, "ppbench: the server's answer has no \"applications\" array\n");
        status = CLI_UNREACHABLE;
    } else if (c->json) {
        cli_print_body(&r);
    } else if (format_pp(stdout, r.json, &err)) {
        fprintf(stderr, "ppbench: %s\n", err.msg);
        status = CLI_UNREACHABLE;
    }
    http_reply_clear(&r);
    return status;
}

int query_platforms_main(struct cli *c, int argc, char **argv)
{
    static const struct option longopts[] = {CLI_GLOBAL_OPTIONS, {NULL, 0, NULL, 0}};
    char path[64] = "/api/v1/platforms";
    int status;

    if (parse_query(c, argc, argv, longopts, query_platforms_usage, path, sizeof(path), NULL, &status))
        return status;
    return get_table(c, path, "platforms", format_platforms);
}

int query_cancel_main(struct cli *c, int argc, char **argv)
{
    static const struct option longopts[] = {CLI_GLOBAL_OPTIONS, {NULL, 0, NULL, 0}};
    struct http_reply r = {0};
    struct pp_error err;
    const char *id, *state;
    char path[96];
    int opt, status = CLI_OK;

    optind = 0;
    while ((opt = cli_getopt(c, argc, argv, ":h", longopts)) != -1) {
        if (opt != 'h')
            return CLI_USAGE;
        fputs(query_cancel_usage, stdout);
        return CLI_OK;
    }
    if (argc - optind != 1)
        return cli_usage_error("cancel needs one job id");
    id = argv[optind];
    if (!*id || strspn(id, "0123456789") != strlen(id) || strlen(id) > 19)
        return cli_usage_error("invalid job id \"%s\"", id);
    snprintf(path, sizeof(path), "/api/v1/jobs/%s/cancel", id);
    if (http_request(&c->http, "POST", path, NULL, &r, &err)) {
        status = cli_fail(c, &r, &err);
        goto out;
    }
    state = json_string_value(json_object_get(r.json, "state"));
    if (c->json)
        cli_print_body(&r);
    else if (state && strcmp(state, "cancelled") != 0)
        printf("job %s: cancel requested (now %s)\n", id, state);
    else
        printf("job %s cancelled\n", id);
out:
    http_reply_clear(&r);
    return status;
}
