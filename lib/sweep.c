/*
 * sweep: expands the short forms of sweep.h into the values of a sweep. A range is counted before it is
 * built, so "1..1000000000" costs nothing to refuse.
 */
#include "lib/sweep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An integer of s[0..len), all of it, into *v. */
static int integer(const char *s, size_t len, long long *v)
{
    char buf[32], *end;

    if (len == 0 || len >= sizeof(buf))
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (buf[strspn(buf + (*buf == '-'), "0123456789") + (*buf == '-')] != '\0' || buf[*buf == '-'] == '\0')
        return -1;
    errno = 0;
    *v = strtoll(buf, &end, 10);
    return errno ? -1 : 0;
}

int sweep_integer(const char *s, size_t len, long long *v)
{
    long long e;

    if (len > 2 && s[0] == '2' && s[1] == '^') {
        if (integer(s + 2, len - 2, &e) || e < 0 || e > 62)
            return -1;
        *v = 1LL << e;
        return 0;
    }
    return integer(s, len, v);
}

static json_t *range(const char *spec, const char *dots, size_t max, struct pp_error *err)
{
    const char *colon = strchr(dots + 2, ':'), *end = colon ? colon : dots + strlen(dots);
    long long a, b, step = 1;
    json_t *values;

    if (!strncmp(spec, "2^", 2) && !strncmp(dots, "..2^", 4) && !colon) {
        if (integer(spec + 2, (size_t)(dots - spec - 2), &a) || integer(dots + 4, strlen(dots + 4), &b) ||
            a < 0 || b < a || b > 62) {
            pp_error_set(err, "\"%s\": powers of two are 2^a..2^b with 0 <= a <= b <= 62", spec);
            return NULL;
        }
        if ((unsigned long long)(b - a) >= max) {
            pp_error_set(err, "\"%s\" names %lld values, more than %zu", spec, b - a + 1, max);
            return NULL;
        }
        values = json_array();
        for (long long e = a; values && e <= b; e++)
            json_array_append_new(values, json_integer(1LL << e));
        return values;
    }
    if (integer(spec, (size_t)(dots - spec), &a) || integer(dots + 2, (size_t)(end - dots - 2), &b) ||
        (colon && integer(colon + 1, strlen(colon + 1), &step)) || b < a || step < 1) {
        pp_error_set(err, "\"%s\": a range is a..b or a..b:step (integers, a <= b, step >= 1), or 2^a..2^b",
                     spec);
        return NULL;
    }
    if ((unsigned long long)(b - a) / (unsigned long long)step >= max) {
        pp_error_set(err, "\"%s\" names %llu values, more than %zu", spec,
                     (unsigned long long)(b - a) / (unsigned long long)step + 1, max);
        return NULL;
    }
    values = json_array();
    for (long long v = a; values && v <= b; v += step) {
        json_array_append_new(values, json_integer(v));
        if (v > b - step)
            break; /* no overflow past b */
    }
    return values;
}

json_t *sweep_expand(const char *spec, size_t max, struct pp_error *err)
{
    const char *dots = strstr(spec, "..");
    json_t *values;

    if (dots)
        return range(spec, dots, max, err);
    if (!(values = json_array())) {
        pp_error_set(err, "out of memory");
        return NULL;
    }
    for (const char *p = spec;;) {
        size_t len = strcspn(p, ",");
        long long v;

        if (len == 0) {
            pp_error_set(err, "\"%s\": an empty value in the list", spec);
            break;
        }
        if (json_array_size(values) == max) {
            pp_error_set(err, "\"%s\" names more than %zu values", spec, max);
            break;
        }
        if (json_array_append_new(values,
                                  sweep_integer(p, len, &v) ? json_stringn(p, len) : json_integer(v))) {
            pp_error_set(err, "\"%s\": a value that is not UTF-8, or out of memory", spec);
            break;
        }
        if (!p[len])
            return values;
        p += len + 1;
    }
    json_decref(values);
    return NULL;
}
