/*
 * catalog: the suites, kernels, models and parameters ppbenchd accepts in a job, with their ranges. It is
 * what validation checks against and what GET /api/v1/suites serves (the dashboard builds its submit form
 * from it).
 */
#ifndef PP_CATALOG_H
#define PP_CATALOG_H

#include <jansson.h>
#include <stdbool.h>

struct catalog_param {
    const char *name;
    const char *type; /* "integer" or "enum" */
    long long min, max, def;
    const char *const *choices; /* enum: NULL-terminated; def indexes it */
    const char *description;
};

struct catalog_suite {
    const char *name;
    const char *const *kernels; /* NULL-terminated */
    const struct catalog_param *params;
    int nparams;
};

const struct catalog_suite *catalog_suite(const char *name);
bool catalog_model(const char *name);
bool catalog_kernel(const struct catalog_suite *s, const char *name);
const char *catalog_suite_names(void); /* "stream" */
const char *catalog_model_names(void); /* "openmp, opencl, cuda" */

/* The whole catalogue as JSON (new reference). */
json_t *catalog_json(void);

#endif
