/*
 * report: prints a STREAM run as BabelStream's table, BabelStream's CSV, or one JSON document holding
 * everything the measurement rules ask for (docs/METHODOLOGY.md).
 */
#ifndef PP_REPORT_H
#define PP_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "kernels/staggered/staggered.h"
#include "kernels/stream/stream.h"
#include "kernels/wilson/wilson.h"
#include "lib/info.h"
#include "worker/platform.h"

struct run_report {
    const struct pp_platform *platform;
    const struct pp_device *device;
    const char *model;
    const struct stream_result *result;       /* --suite stream */
    const struct wilson_result *wilson;       /* --suite wilson (worker/runner_wilson.c reports it) */
    const struct staggered_result *staggered; /* --suite staggered (worker/runner_staggered.c) */
    struct pp_info_list provenance;           /* ppbench, host, environment */
    struct pp_info_list backend;              /* runtime, driver, compiler of the model */
};

void report_table(FILE *f, const struct run_report *r);
void report_csv(FILE *f, const struct run_report *r);
int report_json(FILE *f, const struct run_report *r, struct pp_error *err) PP_WUR;

/* Pieces every suite's JSON shares (new references): the entries of l whose key starts with prefix (prefix
 * dropped), and the platform object (also one element of `list --json` .platforms[], which `serve`
 * registers). */
json_t *report_info_json(const struct pp_info_list *l, const char *prefix);
json_t *report_platform_json(const struct pp_platform *p);

/* One element of a report's "kernels" (new reference): what every suite says of one kernel. */
struct report_kernel {
    const char *name;
    bool verified;
    const char *error; /* the failure, read when !verified */
    double bytes, flops, bandwidth, gflops;
    const struct pp_stats *stats;
    const double *times; /* ntimes samples, as measured (a warm-up included where the suite times one) */
    size_t ntimes;
    double max_rel_err, tolerance;
};
json_t *report_kernel_json(const struct report_kernel *k, double peak_bw);

/* Write the one JSON document of a run of any suite: schema, suite, model, platform, device, then the suite's
 * problem, variant and phases_s objects and kernels array (all four stolen), verified, and provenance with
 * the backend's part. */
int report_write_json(FILE *f, const struct run_report *r, const char *suite, json_t *problem,
                      json_t *variant, json_t *phases, bool verified, json_t *kernels,
                      struct pp_error *err) PP_WUR;

/* Verification failures, one line each, for stderr. */
void report_failures(FILE *f, const struct run_report *r);

#endif
