/*
 * http: the command-line client's side of the REST API (docs/API.md) over libcurl: one blocking request with
 * a JSON or text answer, a Server-Sent Events stream, query strings. Knows the error body of the API and
 * turns it into one message; knows nothing of commands or exit statuses.
 */
#ifndef PP_CLI_HTTP_H
#define PP_CLI_HTTP_H

#include <jansson.h>
#include <stddef.h>

#include "lib/error.h"

struct http_client {
    char server[1024]; /* base URL without a trailing slash, e.g. http://127.0.0.1:8080 */
    char token[512];   /* bearer token; empty when none */
    /* When set, asked about once a second during a transfer: nonzero aborts it (the request fails as
     * unreachable; the caller knows why). `ppbench submit` stops on SIGINT with it. */
    int (*stop)(void *arg);
    void *stop_arg;
};

/* One answer. The caller owns it and clears it with http_reply_clear (which also zeroes it for reuse). */
struct http_reply {
    long status;  /* HTTP status; 0 when no answer came (connection refused, timeout, ...) */
    char *body;   /* NUL-terminated body (possibly empty), NULL when none came */
    size_t len;   /* body length in bytes */
    json_t *json; /* the body parsed as JSON (new reference), NULL when it is not JSON */
};

void http_reply_clear(struct http_reply *r);

/*
 * Sends METHOD server+path (path starts with '/', may carry a query) with an optional JSON body (borrowed).
 * Returns 0 on a 2xx answer. Returns -1 otherwise and says why in err: "cannot reach URL: curl's message"
 * (reply->status 0), or the API error body as "message (field F, code C)", or "server answered STATUS".
 * reply holds whatever answer came, either way.
 */
int http_request(const struct http_client *c, const char *method, const char *path, json_t *body,
                 struct http_reply *reply, struct pp_error *err) PP_WUR;

/* One event of a stream; fields are borrowed for the call. Returns nonzero to close the stream. */
typedef int (*http_event_fn)(void *arg, const char *event, const char *data, const char *id);

/*
 * GETs server+path as text/event-stream (sending Last-Event-ID: last_id when last_id is non-empty) and calls
 * fn for each event until the server ends the stream, the connection drops or fn returns nonzero. Returns 0
 * when a stream was opened (however it ended), -1 when none was: no answer, a non-2xx status (err as
 * http_request) or a 2xx that is not an event stream.
 */
int http_events(const struct http_client *c, const char *path, const char *last_id, http_event_fn fn,
                void *arg, struct http_reply *reply, struct pp_error *err) PP_WUR;

/* Appends "?name=value" or "&name=value" (value URL-escaped) to path when value is non-NULL. */
int http_query_add(char *path, size_t size, const char *name, const char *value, struct pp_error *err) PP_WUR;

#endif
