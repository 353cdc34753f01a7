/*
 * error: formatting helpers for struct pp_error. Pure functions, any thread.
 */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int pp_error_set(struct pp_error *err, const char *fmt, ...)
{
    va_list ap;

    if (!err)
        return -1;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return -1;
}

int pp_error_prefix(struct pp_error *err, const char *fmt, ...)
{
    char prefix[256], old[sizeof(err->msg)];
    va_list ap;

    if (!err)
        return -1;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof(old));
    snprintf(err->msg, sizeof(err->msg), "%s: %s", prefix, old);
    return -1;
}
