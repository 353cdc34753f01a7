/*
 * register_check: the document a worker posts to register (POST /api/v1/workers), checked before anything
 * is stored: host (1 to 128 of [A-Za-z0-9._-]), an optional version string, pid (a positive integer),
 * platform (an object with string id, kind and name; id 1 to 64 of [A-Za-z0-9._:-], not starting with '.';
 * its peak_bandwidth_bytes_per_s null, absent or within lib/peak.h's bound; its runners absent or an array of
 * at most REGISTER_RUNNERS_MAX {name, suite, kernels, output, program}, each name a runner's (1 to 63 of
 * [a-z0-9._-], a letter first, no built-in model's), its suite and kernels the suite table's), and host_info
 * (an object, or absent). Pure: no database, any thread; the fuzz target
 * tests/fuzz/register_fuzz.c drives it, server/api/worker.c stores what it accepts.
 */
#ifndef PP_REGISTER_CHECK_H
#define PP_REGISTER_CHECK_H

#include <jansson.h>
#include <stddef.h>

#include "lib/error.h"
#include "server/http/errors.h"

#define REGISTER_HOST_MAX     128
#define REGISTER_PLATFORM_MAX 64
#define REGISTER_RUNNERS_MAX  32

/* What a valid document holds: pointers into it (borrowed: valid while the document is). */
struct register_doc {
    const char *host, *version, *local_id;
    long long pid;
    const json_t *platform, *host_info; /* host_info NULL when absent or not an object */
};

/* 0 with out filled when doc is a valid registration; else -1 with *code the API error (missing_field,
 * wrong_type, invalid_value), field the part at fault ("platform.id") and err what is wrong. */
int register_check(const json_t *doc, struct register_doc *out, enum http_err *code, char *field,
                   size_t field_size, struct pp_error *err) PP_WUR;

#endif
