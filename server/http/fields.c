/*
 * fields: the one reader of request bodies' fields that every handler uses, so that a field that does not
 * fit is refused the same way on every route: the error code by what is wrong (missing_field, wrong_type,
 * out_of_range, unknown_field; status from server/http/errors.h's table), the field named by its path in
 * the body, and a message that says what it must be. Unknown fields are refused by name, so a typo never
 * silently becomes a default. HTTP pool threads; nothing here keeps state.
 */
#include "server/http/fields.h"

#include <stdio.h>
#include <string.h>

int fields_bad_type(struct request *r, const char *field, const char *want)
{
    return req_fail(r, ERR_WRONG_TYPE, field, "%s must be %s", field, want);
}

int fields_only(struct request *r, json_t *obj, const char *prefix, const char *const *known)
{
    const char *key;
    json_t *v;

    json_object_foreach(obj, key, v)
    {
        int found = 0;
        for (int i = 0; known[i] && !found; i++)
            found = !strcmp(known[i], key);
        if (!found) {
            char field[300];
            snprintf(field, sizeof(field), "%s%s", prefix, key);
            return req_fail(r, ERR_UNKNOWN_FIELD, field, "unknown field \"%s\"", field);
        }
    }
    return 0;
}

int fields_int(struct request *r, const char *key, long long min, long long max, long long *out)
{
    json_t *v = json_object_get(r->json, key);

    if (!v)
        return 0;
    if (!json_is_integer(v))
        return fields_bad_type(r, key, "an integer");
    if (json_integer_value(v) < min || json_integer_value(v) > max)
        return req_fail(r, ERR_OUT_OF_RANGE, key, "%s must be from %lld to %lld, got %lld", key, min, max,
                        (long long)json_integer_value(v));
    *out = json_integer_value(v);
    return 0;
}

int fields_string(struct request *r, const char *key, size_t max, const char **out)
{
    json_t *v = json_object_get(r->json, key);

    if (!v)
        return req_fail(r, ERR_MISSING_FIELD, key, "%s is required", key);
    if (!json_is_string(v) || (max && (json_string_length(v) < 1 || json_string_length(v) > max)))
        return max ? req_fail(r, ERR_WRONG_TYPE, key, "%s must be a string of 1 to %zu characters", key, max)
                   : fields_bad_type(r, key, "a string");
    *out = json_string_value(v);
    return 0;
}

int fields_id(struct request *r, const char *key, bool required, char *out, size_t size)
{
    json_t *v = json_object_get(r->json, key);

    out[0] = '\0';
    if (!v && !required)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return req_fail(r, v ? ERR_WRONG_TYPE : ERR_MISSING_FIELD, key, "%s must be a non-negative integer",
                        key);
    snprintf(out, size, "%lld", (long long)json_integer_value(v));
    return 0;
}
