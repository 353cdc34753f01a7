/*
 * catalog: constant tables; any thread. The kernel names must match the worker's suite drivers
 * (kernels/stream.c); the worker validates again and refuses what it does not know.
 */
#include "catalog.h"

#include <string.h>

static const char *const stream_kernels[] = {"copy", "mul", "add", "triad", "dot", "nstream", NULL};
static const char *const precisions[] = {"fp64", "fp32", NULL};

static const struct catalog_param stream_params[] = {
    {"arraysize", "integer", 1, 1LL << 40, 1LL << 25, NULL, "elements per array"},
    {"numtimes", "integer", 2, 100000, 100, NULL, "iterations per kernel; the first is warm-up"},
    {"precision", "enum", 0, 0, 0, precisions, "element type"},
};

static const struct catalog_suite suites[] = {
    {"stream", stream_kernels, stream_params, (int)(sizeof(stream_params) / sizeof(stream_params[0]))},
};

static const char *const models[] = {"openmp", "opencl", "cuda", NULL};

const struct catalog_suite *catalog_suite(const char *name)
{
    for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
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

const char *catalog_suite_names(void)
{
    return "stream";
}

const char *catalog_model_names(void)
{
    return "openmp, opencl, cuda";
}

json_t *catalog_json(void)
{
    json_t *out = json_array();

    for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
        const struct catalog_suite *s = &suites[i];
        json_t *kernels = json_array(), *params = json_array();
        for (int k = 0; s->kernels[k]; k++)
            json_array_append_new(kernels, json_string(s->kernels[k]));
        for (int p = 0; p < s->nparams; p++) {
            const struct catalog_param *cp = &s->params[p];
            json_t *o = json_pack("{s:s, s:s, s:s}", "name", cp->name, "type", cp->type, "description",
                                  cp->description);
            if (cp->choices) {
                json_t *c = json_array();
                for (int k = 0; cp->choices[k]; k++)
                    json_array_append_new(c, json_string(cp->choices[k]));
                json_object_set_new(o, "choices", c);
                json_object_set_new(o, "default", json_string(cp->choices[cp->def]));
            } else {
                json_object_set_new(o, "min", json_integer(cp->min));
                json_object_set_new(o, "max", json_integer(cp->max));
                json_object_set_new(o, "default", json_integer(cp->def));
            }
            json_array_append_new(params, o);
        }
        json_array_append_new(
            out, json_pack("{s:s, s:o, s:o}", "name", s->name, "kernels", kernels, "params", params));
    }
    json_t *m = json_array();
    for (int i = 0; models[i]; i++)
        json_array_append_new(m, json_string(models[i]));
    return json_pack("{s:o, s:o}", "suites", out, "models", m);
}
