/*
 * errors: every error code the API answers, each with its one HTTP status, in one table. Handlers name a code
 * (req_fail(r, ERR_NOT_FOUND, ...)) and the status comes from here, so a code never answers two statuses and
 * docs/API.md's list of codes is this table. Pure data, any thread.
 */
#ifndef PP_ERRORS_H
#define PP_ERRORS_H

/* X(name, "code", status) */
#define HTTP_ERRORS(X)                                                                                       \
    X(BAD_REQUEST, "bad_request", 400)                                                                       \
    X(MALFORMED_JSON, "malformed_json", 400)                                                                 \
    X(UNEXPECTED_BODY, "unexpected_body", 400)                                                               \
    X(UNKNOWN_PARAMETER, "unknown_parameter", 400)                                                           \
    X(INVALID_PARAMETER, "invalid_parameter", 400)                                                           \
    X(MISSING_PARAMETER, "missing_parameter", 400)                                                           \
    X(UNAUTHORIZED, "unauthorized", 401)                                                                     \
    X(FORBIDDEN, "forbidden", 403)                                                                           \
    X(WRONG_WORKER, "wrong_worker", 403)                                                                     \
    X(NOT_FOUND, "not_found", 404)                                                                           \
    X(METHOD_NOT_ALLOWED, "method_not_allowed", 405)                                                         \
    X(WORKER_GONE, "worker_gone", 409)                                                                       \
    X(PLATFORM_TAKEN, "platform_taken", 409)                                                                 \
    X(PLATFORM_CHANGED, "platform_changed", 409)                                                             \
    X(STALE_EPOCH, "stale_epoch", 409)                                                                       \
    X(JOB_CANCELLED, "job_cancelled", 409)                                                                   \
    X(JOB_FINISHED, "job_finished", 409)                                                                     \
    X(NOT_OUR_DRAIN, "not_our_drain", 409)                                                                   \
    X(BODY_TOO_LARGE, "body_too_large", 413)                                                                 \
    X(URI_TOO_LONG, "uri_too_long", 414)                                                                     \
    X(UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type", 415)                                                 \
    X(MISSING_FIELD, "missing_field", 422)                                                                   \
    X(WRONG_TYPE, "wrong_type", 422)                                                                         \
    X(INVALID_VALUE, "invalid_value", 422)                                                                   \
    X(OUT_OF_RANGE, "out_of_range", 422)                                                                     \
    X(UNKNOWN_FIELD, "unknown_field", 422)                                                                   \
    X(CONFLICTING_FIELDS, "conflicting_fields", 422)                                                         \
    X(UNKNOWN_SUITE, "unknown_suite", 422)                                                                   \
    X(UNKNOWN_KERNEL, "unknown_kernel", 422)                                                                 \
    X(UNKNOWN_MODEL, "unknown_model", 422)                                                                   \
    X(UNKNOWN_PLATFORM, "unknown_platform", 422)                                                             \
    X(UNKNOWN_PROBLEM, "unknown_problem", 422)                                                               \
    X(MODEL_NOT_SUPPORTED, "model_not_supported", 422)                                                       \
    X(NO_MATCHING_PLATFORM, "no_matching_platform", 422)                                                     \
    X(PLATFORM_REGISTERED, "platform_registered", 422)                                                       \
    X(UNKNOWN_PARTITION, "unknown_partition", 422)                                                           \
    X(UNKNOWN_GRES, "unknown_gres", 422)                                                                     \
    X(INVALID_REPORT, "invalid_report", 422)                                                                 \
    X(INVALID_CSV, "invalid_csv", 422)                                                                       \
    X(HEADERS_TOO_LARGE, "headers_too_large", 431)                                                           \
    X(INTERNAL, "internal", 500)                                                                             \
    X(NOT_IMPLEMENTED, "not_implemented", 501)                                                               \
    X(SLURM_FAILED, "slurm_failed", 502)                                                                     \
    X(DATABASE_UNAVAILABLE, "database_unavailable", 503)                                                     \
    X(NOT_READY, "not_ready", 503)

#define HTTP_ERROR_ENUM(name, code, status) ERR_##name,
enum http_err { HTTP_ERRORS(HTTP_ERROR_ENUM) ERR_COUNT };
#undef HTTP_ERROR_ENUM

/* The error's stable code ("not_found") and its HTTP status (404). */
const char *errors_code(enum http_err e);
int errors_status(enum http_err e);

/* The error whose code is code (codes chosen in SQL functions), or ERR_INTERNAL when there is none. */
enum http_err errors_from_code(const char *code);

#endif
