/*
 * catalog: what ppbenchd accepts in a job, read from the one suite table (kernels/suite.h, kernels/suites.c,
 * linked into ppbenchd without the drivers): the suites, their kernels and parameters, the models. GET
 * /api/v1/suites serves it; submission checks a job with suite_values_from_json, as the worker's child does.
 */
#ifndef PP_CATALOG_H
#define PP_CATALOG_H

#include <jansson.h>
#include <stdbool.h>

#include "kernels/suite.h"

static inline const struct suite *catalog_suite(const char *name)
{
    return suite_find(name);
}

static inline bool catalog_kernel(const struct suite *s, const char *name)
{
    return suite_kernel_index(s, name) >= 0;
}

static inline const struct suite_param *catalog_param(const struct suite *s, const char *name)
{
    return suite_param(s, name);
}

/* The default of an enum parameter ("fp64"), or NULL when the suite has no such enum or it is optional. */
const char *catalog_default_choice(const struct suite *s, const char *name);

/* The whole catalogue as JSON (new reference): the document `ppbench-worker suites --json` prints. */
static inline json_t *catalog_json(void)
{
    return suite_catalog_json();
}

#endif
