/*
 * report: the one JSON document of a run of any suite (the frame every suite shares: schema, suite, model,
 * platform, device, the suite's problem, variant and phases, kernels, verified, provenance), and the platform
 * object of `list --json`, which `serve` registers. A suite's own table and CSV are its driver's.
 */
#ifndef PP_REPORT_H
#define PP_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "kernels/suite_driver.h"
#include "lib/info.h"
#include "worker/platform.h"

struct run_report {
    const struct pp_platform *platform;
    const struct pp_device *device;
    const char *model, *suite;
    struct pp_info_list provenance; /* ppbench, host, environment */
    struct pp_info_list backend;    /* runtime, driver, compiler of the model */
};

/* Write the JSON document of a finished run: o's problem, variant and phases are stolen (set to NULL). */
int report_json(FILE *f, const struct run_report *r, struct suite_output *o, struct pp_error *err) PP_WUR;

/* The entries of l whose key starts with prefix (prefix dropped), as an object (new reference). */
json_t *report_info_json(const struct pp_info_list *l, const char *prefix);

/* The platform object (also one element of `list --json` .platforms[]) (new reference). */
json_t *report_platform_json(const struct pp_platform *p);

#endif
