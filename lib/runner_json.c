/*
 * runner_json: see runner_json.h. One pass over the parsed document: every field known, of its type, in its
 * range; the first fault is the message. Any thread.
 */
#include "lib/runner_json.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Whether every key of o is one of the NULL-terminated names; else *bad is the first that is not. */
static bool keys_known(const json_t *o, const char *const *names, const char **bad)
{
    const char *key;
    json_t *v;

    json_object_foreach((json_t *)o, key, v)
    {
        size_t i = 0;
        while (names[i] && strcmp(names[i], key))
            i++;
        if (!names[i]) {
            *bad = key;
            return false;
        }
    }
    return true;
}

static int time_of(const json_t *k, const char *name, size_t i, double *out, struct pp_error *err)
{
    const json_t *v = json_object_get(k, name);

    if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) <= 0 ||
        json_number_value(v) > 1e9)
        return pp_error_set(err, "kernels[%zu].%s must be a number of seconds above 0", i, name);
    *out = json_number_value(v);
    return 0;
}

static int kernel_of(const json_t *k, size_t i, struct runner_json *out, struct pp_error *err)
{
    static const char *const names[] = {"kernel", "count", "min_s", "max_s", "mean_s", NULL};
    struct runner_json_kernel *x = &out->kernels[i];
    const json_t *name = json_object_get(k, "kernel"), *count = json_object_get(k, "count");
    const char *bad;

    if (!json_is_object(k))
        return pp_error_set(err, "kernels[%zu] must be an object", i);
    if (!keys_known(k, names, &bad))
        return pp_error_set(err, "kernels[%zu]: unknown field \"%s\"", i, bad);
    if (!json_is_string(name) || json_string_length(name) < 1 ||
        json_string_length(name) >= sizeof(x->kernel))
        return pp_error_set(err, "kernels[%zu].kernel must be a kernel's name", i);
    snprintf(x->kernel, sizeof(x->kernel), "%s", json_string_value(name));
    for (size_t j = 0; j < i; j++)
        if (!strcmp(out->kernels[j].kernel, x->kernel))
            return pp_error_set(err, "kernels[%zu]: %s is there twice", i, x->kernel);
    if (!json_is_integer(count) || json_integer_value(count) < 1 || json_integer_value(count) > 1000000000)
        return pp_error_set(err, "kernels[%zu].count must be the number of timed iterations (1 or more)", i);
    x->count = json_integer_value(count);
    if (time_of(k, "min_s", i, &x->min_s, err) || time_of(k, "max_s", i, &x->max_s, err) ||
        time_of(k, "mean_s", i, &x->mean_s, err))
        return -1;
    if (!(x->min_s <= x->mean_s && x->mean_s <= x->max_s))
        return pp_error_set(err, "kernels[%zu]: min_s <= mean_s <= max_s does not hold", i);
    return 0;
}

int runner_json_parse(const char *text, size_t len, struct runner_json *out, struct pp_error *err)
{
    static const char *const names[] = {"ppbench_runner", "version", "problem", "kernels", NULL};
    json_error_t jerr;
    json_t *doc, *kernels, *version, *problem;
    const char *bad;
    size_t i;
    int rc = -1;

    memset(out, 0, sizeof(*out));
    if (!(doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr)))
        return pp_error_set(err, "not JSON: line %d: %s", jerr.line, jerr.text);
    kernels = json_object_get(doc, "kernels");
    version = json_object_get(doc, "version");
    problem = json_object_get(doc, "problem");
    if (!json_is_object(doc)) {
        pp_error_set(err, "the document must be an object");
        goto out;
    }
    if (!keys_known(doc, names, &bad)) {
        pp_error_set(err, "unknown field \"%s\"", bad);
        goto out;
    }
    if (!json_is_integer(json_object_get(doc, "ppbench_runner")) ||
        json_integer_value(json_object_get(doc, "ppbench_runner")) != 1) {
        pp_error_set(err, "ppbench_runner must be 1 (the form's version)");
        goto out;
    }
    if (version && (!json_is_string(version) || json_string_length(version) >= sizeof(out->version))) {
        pp_error_set(err, "version must be a string of at most %zu bytes", sizeof(out->version) - 1);
        goto out;
    }
    if (!json_is_object(problem) || !json_is_string(json_object_get(problem, "precision")) ||
        !json_is_integer(json_object_get(problem, "size")) ||
        json_integer_value(json_object_get(problem, "size")) < 1) {
        pp_error_set(err, "problem must be an object with precision and size (a positive integer)");
        goto out;
    }
    if (!json_is_array(kernels) || json_array_size(kernels) < 1 ||
        json_array_size(kernels) > RUNNER_JSON_MAX_KERNELS) {
        pp_error_set(err, "kernels must be an array of 1 to %d kernels", RUNNER_JSON_MAX_KERNELS);
        goto out;
    }
    for (i = 0; i < json_array_size(kernels); i++)
        if (kernel_of(json_array_get(kernels, i), i, out, err))
            goto out;
    out->nkernels = i;
    snprintf(out->version, sizeof(out->version), "%s", version ? json_string_value(version) : "");
    out->problem = json_incref(problem);
    rc = 0;
out:
    json_decref(doc);
    if (rc)
        memset(out, 0, sizeof(*out));
    return rc;
}

void runner_json_clear(struct runner_json *out)
{
    if (!out)
        return;
    json_decref(out->problem);
    memset(out, 0, sizeof(*out));
}
