/*
 * report: prints a STREAM run as BabelStream's table, BabelStream's CSV, or one JSON document holding
 * everything the measurement rules ask for (docs/METHODOLOGY.md).
 */
#ifndef PP_REPORT_H
#define PP_REPORT_H

#include <stdio.h>

#include "kernels/stream.h"
#include "lib/info.h"
#include "worker/platform.h"

struct run_report {
    const struct pp_platform *platform;
    const struct pp_device *device;
    const char *model;
    const struct stream_result *result;
    struct pp_info_list provenance; /* ppbench, host, environment */
    struct pp_info_list backend;    /* runtime, driver, compiler of the model */
};

void report_table(FILE *f, const struct run_report *r);
void report_csv(FILE *f, const struct run_report *r);
int report_json(FILE *f, const struct run_report *r, struct pp_error *err) PP_WUR;

/* Verification failures, one line each, for stderr. */
void report_failures(FILE *f, const struct run_report *r);

#endif
