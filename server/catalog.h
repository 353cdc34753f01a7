/*
 * catalog: the suites, kernels, models and parameters ppbenchd accepts in a job, with their ranges. It is
 * what validation checks against and what GET /api/v1/suites serves (the dashboard builds its submit form
 * from it).
 */
#ifndef PP_CATALOG_H
#define PP_CATALOG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"

enum catalog_type { CATALOG_INTEGER, CATALOG_ENUM, CATALOG_LATTICE };

struct catalog_param {
    const char *name;
    enum catalog_type type;
    long long min, max, def;    /* integer: the range and default */
    const char *const *choices; /* enum: NULL-terminated; def indexes it */
    /* No default: absent, the job does not name it and the worker decides (the device's lattice, the model's
     * strategy, ...). */
    bool optional;
    const char *description;
};

#define CATALOG_MAX_PARAMS 15 /* per suite */

struct catalog_suite {
    const char *name;
    const char *const *kernels; /* NULL-terminated */
    const struct catalog_param *params;
    int nparams; /* at most CATALOG_MAX_PARAMS */
};

const struct catalog_suite *catalog_suite(const char *name);
bool catalog_model(const char *name);
bool catalog_kernel(const struct catalog_suite *s, const char *name);
const char *catalog_suite_names(void); /* "stream, wilson, staggered" */
const char *catalog_model_names(void); /* "openmp, opencl, cuda" */

/* The suite's parameter named name, or NULL. */
const struct catalog_param *catalog_param(const struct catalog_suite *s, const char *name);

/* The default of an enum parameter ("fp64"), or NULL when the suite has no such enum or it is optional. */
const char *catalog_default_choice(const struct catalog_suite *s, const char *name);

/* A lattice parameter's value: "XxYxZxT", four extents each even and at least 4 (kernels/lattice.h's rule,
 * the one the worker applies). err says what is wrong. */
int catalog_check_lattice(const char *value, struct pp_error *err) PP_WUR;

/* The whole catalogue as JSON (new reference). */
json_t *catalog_json(void);

#endif
