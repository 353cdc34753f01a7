/*
 * register_check: a worker's registration document, checked field by field (register_check.h).
 */
#include "server/api/register_check.h"

#include <stdio.h>
#include <string.h>

#include "kernels/suite.h"
#include "lib/peak.h"

static const char host_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";
static const char id_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-";
static const char runner_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789._-";

/* -1 with the code, the field and the message. */
static int refuse(enum http_err *code, enum http_err c, char *field, size_t field_size, const char *name,
                  struct pp_error *err, const char *msg)
{
    *code = c;
    snprintf(field, field_size, "%s", name);
    return pp_error_set(err, "%s", msg);
}

/* s: 1 to max characters, all of chars */
static int well_formed(const char *s, size_t max, const char *chars)
{
    size_t n = strlen(s);

    return n >= 1 && n <= max && strspn(s, chars) == n;
}

/* platform.runners: what worker/runners.c's runners_json writes (issue 27). A runner's name becomes a model
 * of the platform, so it must look like one and never be a built-in model's. */
static const char *runners_wrong(const json_t *runners, char *field, size_t field_size)
{
    const json_t *r, *k;
    size_t i, j;

    if (!runners)
        return NULL;
    snprintf(field, field_size, "platform.runners");
    if (!json_is_array(runners) || json_array_size(runners) > REGISTER_RUNNERS_MAX)
        return "platform.runners must be an array of at most 32 runners";
    json_array_foreach(runners, i, r)
    {
        const char *name = json_string_value(json_object_get(r, "name"));
        const struct suite *s = suite_find(json_string_value(json_object_get(r, "suite")) ?: "");
        const json_t *kernels = json_object_get(r, "kernels");
        snprintf(field, field_size, "platform.runners[%zu]", i);
        if (!json_is_object(r) || !name || !well_formed(name, 63, runner_chars) || name[0] < 'a' ||
            name[0] > 'z' || suite_model_known(name) ||
            json_string_length(json_object_get(r, "name")) != strlen(name))
            return "a runner's name must be 1 to 63 of a-z, 0-9, '.', '_', '-', starting with a letter, and "
                   "no "
                   "built-in model's";
        if (!s)
            return "a runner's suite must be a suite of the catalogue";
        if (!json_is_array(kernels) || json_array_size(kernels) < 1)
            return "a runner's kernels must be a non-empty array of its suite's kernels";
        json_array_foreach(kernels, j, k)
        {
            if (!json_is_string(k) || suite_kernel_index(s, json_string_value(k)) < 0)
                return "a runner's kernels must be a non-empty array of its suite's kernels";
        }
        if (!json_is_string(json_object_get(r, "output")) || !json_is_string(json_object_get(r, "program")) ||
            json_string_length(json_object_get(r, "program")) > 512 ||
            json_string_length(json_object_get(r, "output")) > 32)
            return "a runner's output and program must be strings (at most 32 and 512 bytes)";
    }
    return NULL;
}

int register_check(const json_t *doc, struct register_doc *out, enum http_err *code, char *field,
                   size_t field_size, struct pp_error *err)
{
    const json_t *host = json_object_get(doc, "host"), *version = json_object_get(doc, "version");
    const json_t *pid = json_object_get(doc, "pid"), *platform = json_object_get(doc, "platform");
    const json_t *info = json_object_get(doc, "host_info"), *peak;
    char msg[128];

    memset(out, 0, sizeof(*out));
    if (!json_is_object(doc))
        return refuse(code, ERR_WRONG_TYPE, field, field_size, "body", err, "the body must be a JSON object");
    if (!host)
        return refuse(code, ERR_MISSING_FIELD, field, field_size, "host", err, "host is required");
    if (!json_is_string(host))
        return refuse(code, ERR_WRONG_TYPE, field, field_size, "host", err, "host must be a string");
    out->host = json_string_value(host);
    /* strlen stops at an embedded NUL, which JSON allows (\u0000): such a host is not well formed */
    if (json_string_length(host) != strlen(out->host) ||
        !well_formed(out->host, REGISTER_HOST_MAX, host_chars))
        return refuse(code, ERR_INVALID_VALUE, field, field_size, "host", err,
                      "host must be 1 to 128 letters, digits, '.', '_' or '-'");
    out->version = "";
    if (version && !json_is_string(version))
        return refuse(code, ERR_WRONG_TYPE, field, field_size, "version", err, "version must be a string");
    if (version)
        out->version = json_string_value(version);
    if (!json_is_integer(pid) || json_integer_value(pid) < 1)
        return refuse(code, ERR_INVALID_VALUE, field, field_size, "pid", err,
                      "pid must be a positive integer");
    out->pid = (long long)json_integer_value(pid);
    if (!json_is_object(platform) || !json_is_string(json_object_get(platform, "id")) ||
        !json_is_string(json_object_get(platform, "kind")) ||
        !json_is_string(json_object_get(platform, "name")))
        return refuse(code, ERR_INVALID_VALUE, field, field_size, "platform", err,
                      "platform must be an object with id, kind and name (ppbench-worker list --json)");
    out->platform = platform;
    out->local_id = json_string_value(json_object_get(platform, "id"));
    if (json_string_length(json_object_get(platform, "id")) != strlen(out->local_id) ||
        out->local_id[0] == '.' || !well_formed(out->local_id, REGISTER_PLATFORM_MAX, id_chars))
        return refuse(
            code, ERR_INVALID_VALUE, field, field_size, "platform.id", err,
            "platform.id must be 1 to 64 letters, digits, '.', '_', ':' or '-', not starting with '.'");
    peak = json_object_get(platform, "peak_bandwidth_bytes_per_s");
    if (peak && !json_is_null(peak) && !json_is_number(peak))
        return refuse(code, ERR_WRONG_TYPE, field, field_size, "platform.peak_bandwidth_bytes_per_s", err,
                      "platform.peak_bandwidth_bytes_per_s must be a number of bytes/s, or null");
    if (json_is_number(peak) && !pp_peak_ok(json_number_value(peak))) {
        snprintf(msg, sizeof(msg),
                 "platform.peak_bandwidth_bytes_per_s must be above 0 and at most %g, got %g",
                 PP_PEAK_MAX_BYTES_PER_S, json_number_value(peak));
        return refuse(code, ERR_OUT_OF_RANGE, field, field_size, "platform.peak_bandwidth_bytes_per_s", err,
                      msg);
    }
    char at[64];
    const char *wrong = runners_wrong(json_object_get(platform, "runners"), at, sizeof(at));
    if (wrong)
        return refuse(code, ERR_INVALID_VALUE, field, field_size, at, err, wrong);
    out->host_info = json_is_object(info) ? info : NULL;
    return 0;
}
