/*
 * runner_args: a claimed job into the command line of its child, `ppbench-worker run --platform P --job JSON
 * --json --progress-fd 3`. The job's suite, model, kernels and parameters travel as the JSON the server
 * stored; the child checks them against the suite table (kernels/suite.h), as the server did at submission.
 * Pure: any thread; the struct runner_args owns the strings argv points into.
 */
#include <stdlib.h>
#include <string.h>

#include "worker/runner.h"

/* " lattice=4x4x4x8 layout=aos" for the log. */
static void summarize(struct runner_args *a, const char *suite, json_t *kernels, json_t *params)
{
    size_t used = (size_t)snprintf(a->summary, sizeof(a->summary), "%s", suite), i;
    const char *key;
    json_t *v;
    char *text;

    json_array_foreach(kernels, i, v)
    {
        if (used < sizeof(a->summary))
            used += (size_t)snprintf(a->summary + used, sizeof(a->summary) - used, "%s%s", i ? "," : " ",
                                     json_string_value(v) ? json_string_value(v) : "?");
    }
    json_object_foreach(params, key, v)
    {
        if (used >= sizeof(a->summary))
            break;
        text = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY);
        used += (size_t)snprintf(a->summary + used, sizeof(a->summary) - used, " %s=%s", key,
                                 text ? text : json_string_value(v));
        free(text);
    }
}

int runner_args_from_job(struct runner_args *a, json_t *job, const char *platform, struct pp_error *err)
{
    const char *suite = json_string_value(json_object_get(job, "suite"));
    json_t *doc;
    int n = 0;

    memset(a, 0, sizeof(*a));
    if (!suite || !json_is_string(json_object_get(job, "model")))
        return pp_error_set(err, "invalid job: no model or suite");
    if (strlen(platform) >= sizeof(a->platform))
        return pp_error_set(err, "invalid job: platform too long");
    snprintf(a->platform, sizeof(a->platform), "%s", platform);
    doc = json_pack("{s:O, s:O, s:O?, s:O?}", "suite", json_object_get(job, "suite"), "model",
                    json_object_get(job, "model"), "kernels", json_object_get(job, "kernels"), "params",
                    json_object_get(job, "params"));
    if (!doc || !(a->job = json_dumps(doc, JSON_COMPACT))) {
        json_decref(doc);
        return pp_error_set(err, "invalid job: cannot encode it");
    }
    json_decref(doc);
    summarize(a, suite, json_object_get(job, "kernels"), json_object_get(job, "params"));
    a->argv[n++] = "ppbench-worker";
    a->argv[n++] = "run";
    a->argv[n++] = "--platform";
    a->argv[n++] = a->platform;
    a->argv[n++] = "--job";
    a->argv[n++] = a->job;
    a->argv[n++] = "--json";
    a->argv[n++] = "--progress-fd";
    a->argv[n++] = "3";
    a->argv[n] = NULL;
    return 0;
}

void runner_args_release(struct runner_args *a)
{
    free(a->job);
    a->job = NULL;
}
