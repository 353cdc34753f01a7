/*
 * runner_args: a job object of the API (its "suite", "model", "kernels" and "params") into the command line
 * of `ppbench-worker run --json --progress-fd 3` that `serve` starts for it (worker/runner.h declares it).
 * Pure: no state, any thread; the struct runner_args owns the strings argv points into.
 */
#include <stdio.h>
#include <string.h>

#include "worker/runner.h"

/* How each parameter of a job becomes an option of `run`: the one place where the API's parameter names
 * (server/catalog.c) meet the command line's. A parameter that is not here fails the job; one that is here
 * but that the job's suite does not take is refused by `run` itself ("--arraysize is a stream option"), which
 * fails the job too. */
enum arg_kind {
    ARG_INTEGER,   /* a JSON integer, as a decimal */
    ARG_STRING,    /* a JSON string, as it is (an enum value or a lattice) */
    ARG_PRECISION, /* "fp32" or "fp64": --float or --double */
};

static const struct param_option {
    const char *param, *option;
    enum arg_kind kind;
} param_options[] = {
    {"arraysize", "--arraysize", ARG_INTEGER}, {"numtimes", "--numtimes", ARG_INTEGER},
    {"precision", NULL, ARG_PRECISION},        {"lattice", "--lattice", ARG_STRING},
    {"layout", "--layout", ARG_STRING},        {"strategy", "--strategy", ARG_STRING},
    {"order", "--order", ARG_STRING},          {"work_group", "--work-group", ARG_INTEGER},
    {"runs", "--runs", ARG_INTEGER},           {"iterations", "--iterations", ARG_INTEGER},
};

static const struct param_option *param_option(const char *param)
{
    for (size_t i = 0; i < sizeof(param_options) / sizeof(param_options[0]); i++)
        if (strcmp(param_options[i].param, param) == 0)
            return &param_options[i];
    return NULL;
}

/* value of the parameter key as the option's argument in out; the option itself in *option. */
static int param_value(const char *key, json_t *v, char *out, size_t size, const char **option,
                       struct pp_error *err)
{
    const struct param_option *po = param_option(key);
    const char *s = json_string_value(v);

    if (!po)
        return pp_error_set(err, "invalid job: unknown parameter params.%s", key);
    *option = po->option;
    if (po->kind == ARG_INTEGER && json_is_integer(v)) {
        snprintf(out, size, "%lld", (long long)json_integer_value(v));
        return 0;
    }
    if (po->kind == ARG_PRECISION && s && (strcmp(s, "fp32") == 0 || strcmp(s, "fp64") == 0)) {
        *option = strcmp(s, "fp32") == 0 ? "--float" : "--double";
        snprintf(out, size, "%s", s);
        return 0;
    }
    if (po->kind == ARG_STRING && s && *s && strlen(s) < size) {
        snprintf(out, size, "%s", s);
        return 0;
    }
    return pp_error_set(err, "invalid job: invalid value for params.%s", key);
}

/* A job's "params" as options of `run`, appended to a->argv from *n; the summary gets "key=value" for each.
 */
static int args_params(struct runner_args *a, json_t *params, int *n, size_t *sum, struct pp_error *err)
{
    const char *key, *option = NULL;
    json_t *v;
    int i = 0;

    if (params && !json_is_object(params))
        return pp_error_set(err, "invalid job: params must be an object");
    json_object_foreach(params, key, v)
    {
        if (i == RUNNER_MAX_PARAMS)
            return pp_error_set(err, "invalid job: more than %d parameters", RUNNER_MAX_PARAMS);
        if (param_value(key, v, a->values[i], sizeof(a->values[i]), &option, err))
            return -1;
        a->argv[(*n)++] = (char *)option;
        if (param_option(key)->kind != ARG_PRECISION)
            a->argv[(*n)++] = a->values[i];
        if (*sum < sizeof(a->summary))
            *sum +=
                (size_t)snprintf(a->summary + *sum, sizeof(a->summary) - *sum, " %s=%s", key, a->values[i]);
        i++;
    }
    return 0;
}

/* The job's kernels: stream's as --kernels; a lattice suite has the one kernel dslash and no such option. */
static int args_kernels(struct runner_args *a, json_t *job, const char *suite, int *n, struct pp_error *err)
{
    bool stream = strcmp(suite, "stream") == 0;
    json_t *k;
    size_t i, used = 0;

    json_array_foreach(json_object_get(job, "kernels"), i, k)
    {
        if (!json_is_string(k))
            return pp_error_set(err, "invalid job: kernels must be strings");
        if (!stream && strcmp(json_string_value(k), "dslash") != 0)
            return pp_error_set(err, "invalid job: suite %s has the one kernel dslash, not \"%s\"", suite,
                                json_string_value(k));
        used += (size_t)snprintf(a->kernels + used, used < sizeof(a->kernels) ? sizeof(a->kernels) - used : 0,
                                 "%s%s", used ? "," : "", json_string_value(k));
    }
    if (used >= sizeof(a->kernels))
        return pp_error_set(err, "invalid job: kernel list too long");
    if (stream && used)
        a->argv[(*n)++] = "--kernels", a->argv[(*n)++] = a->kernels;
    return 0;
}

int runner_args_from_job(struct runner_args *a, json_t *job, const char *platform, struct pp_error *err)
{
    const char *model = json_string_value(json_object_get(job, "model"));
    const char *suite = json_string_value(json_object_get(job, "suite"));
    size_t sum;
    int n = 0;

    memset(a, 0, sizeof(*a));
    if (!model || !suite)
        return pp_error_set(err, "invalid job: no model or suite");
    if (strlen(model) >= sizeof(a->model) || strlen(suite) >= sizeof(a->suite) ||
        strlen(platform) >= sizeof(a->platform))
        return pp_error_set(err, "invalid job: model, suite or platform too long");
    snprintf(a->platform, sizeof(a->platform), "%s", platform);
    snprintf(a->model, sizeof(a->model), "%s", model);
    snprintf(a->suite, sizeof(a->suite), "%s", suite);
    a->argv[n++] = "ppbench-worker";
    a->argv[n++] = "run";
    a->argv[n++] = "--platform";
    a->argv[n++] = a->platform;
    a->argv[n++] = "--model";
    a->argv[n++] = a->model;
    a->argv[n++] = "--suite";
    a->argv[n++] = a->suite;
    if (args_kernels(a, job, suite, &n, err))
        return -1;
    sum =
        (size_t)snprintf(a->summary, sizeof(a->summary), "%s %s", suite, a->kernels[0] ? a->kernels : "all");
    if (args_params(a, json_object_get(job, "params"), &n, &sum, err))
        return -1;
    a->argv[n++] = "--json";
    a->argv[n++] = "--progress-fd";
    a->argv[n++] = "3";
    a->argv[n] = NULL;
    return 0;
}
