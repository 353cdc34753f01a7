/*
 * catalog: constant tables; any thread. The kernel and parameter names must match the worker's suite drivers
 * (kernels/stream/stream.c, kernels/wilson/wilson.c, kernels/staggered/staggered.c) and the options of `ppbench-worker run` they map
 * to (worker/runner.c); the worker validates again and refuses what it does not know. What only the device
 * can judge (a lattice too large for its memory, a work-group size the strategy cannot use there) is the
 * worker's to refuse: the job fails with its message.
 */
#include "catalog.h"

#include <string.h>

#include "kernels/lattice.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const stream_kernels[] = {"copy", "mul", "add", "triad", "dot", "nstream", NULL};
static const char *const dslash_kernels[] = {"dslash", NULL};
static const char *const precisions[] = {"fp64", "fp32", NULL};
static const char *const layouts[] = {"aos", "soa", NULL};
static const char *const strategies[] = {"1lp",   "2lp",   "3lp-1", "3lp-2", "3lp-3",
                                         "4lp-1", "4lp-2", "site",  "simd",  NULL};
static const char *const orders[] = {"none", "k", "i", "l", NULL};

#define LATTICE_PARAM                                                                                        \
    {                                                                                                        \
        "lattice", CATALOG_LATTICE, 0, 0, 0, NULL, true,                                                     \
            "lattice extents XxYxZxT, each even and at least 4 (absent: 32^4 on GPUs, 8^4 on CPUs)"          \
    }

static const struct catalog_param stream_params[] = {
    {"arraysize", CATALOG_INTEGER, 1, 1LL << 40, 1LL << 25, NULL, false, "elements per array"},
    {"numtimes", CATALOG_INTEGER, 2, 100000, 100, NULL, false, "iterations per kernel; the first is warm-up"},
    {"precision", CATALOG_ENUM, 0, 0, 0, precisions, false, "element type"},
};

static const struct catalog_param wilson_params[] = {
    LATTICE_PARAM,
    {"layout", CATALOG_ENUM, 0, 0, 0, layouts, false,
     "data layout: aos (site-major) or soa (structure of arrays over sites)"},
    {"precision", CATALOG_ENUM, 0, 0, 1, precisions, false, "element type"},
    {"numtimes", CATALOG_INTEGER, 2, 100000, 100, NULL, false, "timed samples; the first is warm-up"},
    {"iterations", CATALOG_INTEGER, 1, 100000, 0, NULL, true,
     "applications per timed sample (absent: the worker's default)"},
};

static const struct catalog_param staggered_params[] = {
    LATTICE_PARAM,
    {"precision", CATALOG_ENUM, 0, 0, 0, precisions, false, "element type"},
    {"strategy", CATALOG_ENUM, 0, 0, 0, strategies, true,
     "parallel strategy (paper 001; absent: 3lp-1 on GPUs, site on CPUs)"},
    {"order", CATALOG_ENUM, 0, 0, 0, orders, true,
     "work-item order: k-, i- or l-major (absent: the strategy's default)"},
    {"work_group", CATALOG_INTEGER, 0, 4096, 0, NULL, true,
     "work-group size (0 or absent: the largest of 768, 384, 192, 96 the strategy allows)"},
    {"runs", CATALOG_INTEGER, 1, 100000, 10, NULL, false, "timed samples after one warm-up application"},
    {"iterations", CATALOG_INTEGER, 1, 100000, 100, NULL, false, "applications per timed sample"},
};

_Static_assert(COUNT(stream_params) <= CATALOG_MAX_PARAMS && COUNT(wilson_params) <= CATALOG_MAX_PARAMS &&
                   COUNT(staggered_params) <= CATALOG_MAX_PARAMS,
               "a suite has more parameters than CATALOG_MAX_PARAMS");

static const struct catalog_suite suites[] = {
    {"stream", stream_kernels, stream_params, COUNT(stream_params)},
    {"wilson", dslash_kernels, wilson_params, COUNT(wilson_params)},
    {"staggered", dslash_kernels, staggered_params, COUNT(staggered_params)},
};

static const char *const models[] = {"openmp", "opencl", "cuda", NULL};

const struct catalog_suite *catalog_suite(const char *name)
{
    for (int i = 0; i < COUNT(suites); i++)
        if (!strcmp(suites[i].name, name))
            return &suites[i];
    return NULL;
}

bool catalog_model(const char *name)
{
    for (int i = 0; models[i]; i++)
        if (!strcmp(models[i], name))
            return true;
    return false;
}

bool catalog_kernel(const struct catalog_suite *s, const char *name)
{
    for (int i = 0; s->kernels[i]; i++)
        if (!strcmp(s->kernels[i], name))
            return true;
    return false;
}

/* The lists in messages, in the order of the tables above. */
const char *catalog_suite_names(void)
{
    return "stream, wilson, staggered";
}

const char *catalog_model_names(void)
{
    return "openmp, opencl, cuda";
}

const struct catalog_param *catalog_param(const struct catalog_suite *s, const char *name)
{
    for (int i = 0; i < s->nparams; i++)
        if (!strcmp(s->params[i].name, name))
            return &s->params[i];
    return NULL;
}

const char *catalog_default_choice(const struct catalog_suite *s, const char *name)
{
    const struct catalog_param *p = catalog_param(s, name);
    return p && p->type == CATALOG_ENUM && !p->optional ? p->choices[p->def] : NULL;
}

int catalog_check_lattice(const char *value, struct pp_error *err)
{
    unsigned dims[4];

    if (lattice_parse(value, dims, err))
        return pp_error_set(err, "must be four extents XxYxZxT like 8x8x8x16, got \"%s\"", value);
    return lattice_check_extents(dims, err);
}

static json_t *param_json(const struct catalog_param *cp)
{
    static const char *const types[] = {
        [CATALOG_INTEGER] = "integer", [CATALOG_ENUM] = "enum", [CATALOG_LATTICE] = "string"};
    json_t *o = json_pack("{s:s, s:s, s:s, s:b}", "name", cp->name, "type", types[cp->type], "description",
                          cp->description, "optional", cp->optional);

    if (cp->type == CATALOG_ENUM) {
        json_t *c = json_array();
        for (int k = 0; cp->choices[k]; k++)
            json_array_append_new(c, json_string(cp->choices[k]));
        json_object_set_new(o, "choices", c);
    } else if (cp->type == CATALOG_INTEGER) {
        json_object_set_new(o, "min", json_integer(cp->min));
        json_object_set_new(o, "max", json_integer(cp->max));
    } else {
        json_object_set_new(o, "format", json_string("lattice"));
    }
    json_object_set_new(o, "default",
                        cp->optional                  ? json_null()
                        : cp->type == CATALOG_ENUM    ? json_string(cp->choices[cp->def])
                        : cp->type == CATALOG_INTEGER ? json_integer(cp->def)
                                                      : json_null());
    return o;
}

json_t *catalog_json(void)
{
    json_t *out = json_array();

    for (int i = 0; i < COUNT(suites); i++) {
        const struct catalog_suite *s = &suites[i];
        json_t *kernels = json_array(), *params = json_array();
        for (int k = 0; s->kernels[k]; k++)
            json_array_append_new(kernels, json_string(s->kernels[k]));
        for (int p = 0; p < s->nparams; p++)
            json_array_append_new(params, param_json(&s->params[p]));
        json_array_append_new(
            out, json_pack("{s:s, s:o, s:o}", "name", s->name, "kernels", kernels, "params", params));
    }
    json_t *m = json_array();
    for (int i = 0; models[i]; i++)
        json_array_append_new(m, json_string(models[i]));
    return json_pack("{s:o, s:o}", "suites", out, "models", m);
}
