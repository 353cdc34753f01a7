/*
 * error: the one error type every fallible function fills.
 *
 * A function that can fail returns 0 or -1 and writes a short, lowercase message (PostgreSQL style: no
 * trailing period) into a caller-supplied struct pp_error. No globals, no errno-style side channels.
 * Header is C and C++ (the CUDA backend includes it).
 */
#ifndef PP_ERROR_H
#define PP_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#define PP_WUR __attribute__((warn_unused_result))

struct pp_error {
    char msg[512];
};

/* Format into err (if non-NULL); always returns -1 so callers can `return pp_error_set(...)`. */
int pp_error_set(struct pp_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prefix an existing message: "context: old message". Returns -1. */
int pp_error_prefix(struct pp_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif
