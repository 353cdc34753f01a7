/*
 * http: ppbenchd's HTTP layer over libmicrohttpd (thread pool; each pool thread owns one PostgreSQL
 * connection through server/db.c). It owns the request context (one per request, freed when the request
 * completes), routes by method and path pattern, checks auth, body size and content type, and renders every
 * response: handlers return a status and fill either a reply or an error; they never write errors themselves.
 *
 * Long polls and event streams do not block a pool thread: a handler suspends its connection (http_suspend)
 * and returns HTTP_SUSPENDED; http_wake_all (called by the notifier thread on NOTIFY and on a tick) resumes
 * every suspended connection and its handler runs again with its state.
 */
#ifndef PP_HTTP_H
#define PP_HTTP_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/error.h"
#include "server/http/errors.h"
#include "server/http/parse.h"
#include "server/http/role.h"

#define HTTP_NO_BODY_MAX      1024 /* bytes a route without a body reads (an empty JSON object fits) */
#define HTTP_MAX_QUERY_PARAMS 64   /* more: 414, answered before the query is looked at */
#define HTTP_LARGE            (256u << 10) /* a body or reply this large: memory handed back at its end */

#define HTTP_SUSPENDED 0 /* handler suspended its connection; it will be called again */
#define HTTP_STREAM    1 /* handler set r->stream: a streamed 200 response (Server-Sent Events) */

struct request;
typedef int (*handler_fn)(struct request *r);
/* Stream writer: fill buf (up to max) and return the bytes written; 0 after calling http_suspend (no data
 * yet); -1 at the end of the stream. */
typedef ssize_t (*stream_fn)(struct request *r, char *buf, size_t max);

enum route_body {
    BODY_NONE = 0, /* no body (an empty JSON object is tolerated) */
    BODY_JSON,     /* a JSON object, parsed into r->json (an empty body is an error) */
    BODY_RAW,      /* any body, left in r->body for the handler (which checks its content type) */
};

struct route {
    const char *method;  /* "GET", "POST" */
    const char *pattern; /* "/api/v1/jobs/{id}/cancel": {name} matches one path segment */
    handler_fn handler;
    enum role need; /* ROLE_READ routes are open unless require_read_token */
    enum route_body body;
    /* Bytes; 0: the max_body_bytes setting, which also caps any smaller limit given here, except on a route
     * as_worker, whose caller is proven before its body is read: there this limit is the route's own. */
    size_t max_body;
    /* A call of one registered worker: it names itself (X-Worker-Id) and proves it (X-Worker-Secret, from
     * its registration) before its body is read; r->worker_id holds it. */
    bool as_worker;
    /* The deadline of each statement of its requests, in seconds (server/db.c); 0, or less than db_timeout_s:
     * db_timeout_s. For the routes whose work grows with the data (exports, imports). */
    long timeout_s;
    /* What the route must know before it reads a body, from the path and headers alone, once the role and a
     * worker's identity are proven: 0 to go on, else the status of the refusal (the body is then never read;
     * a worker's result for a job it does not hold, issue 26). NULL: nothing. */
    handler_fn before_body;
};

struct http_error {
    char code[48];
    char message[256];
    char detail[512];
    char field[128];
};

struct request {
    struct MHD_Connection *conn;
    const char *method;
    char path[512];
    char id[24];
    const struct route *route;
    char args[PARSE_MAX_ARGS][PARSE_ARG_MAX]; /* the {param} segments, in order (parse.c) */
    int nargs;
    enum role role;
    long long token_id;  /* 0 when anonymous */
    long long worker_id; /* the proven worker of an as_worker route, else 0 */
    char *body;
    size_t body_len, body_cap;
    bool too_large;
    bool parsed;    /* the body was parsed (once, before the handler's first run) */
    bool answered;  /* refused from the headers alone: the body is never read */
    bool raw_nul;   /* the raw target held %00 */
    bool large;     /* its reply reached HTTP_LARGE: memory is handed back when it completes */
    int raw_params; /* query parameters in the raw target */
    json_t *json;   /* the parsed body of BODY_JSON routes (borrowed by handlers) */

    /* response */
    json_t *reply;          /* owned; rendered compact */
    char *reply_text;       /* owned; alternative body (SQL-built JSON, CSV) */
    const char *reply_type; /* content type of reply_text */
    char location[192];
    struct http_error err;
    int retry_after;
    bool cut_short; /* its 5xx is the server's stop (a worker's claim waiting for a job): logged at info */

    /* suspended handlers and streams */
    void *state;
    void (*state_free)(void *);
    stream_fn stream;
    bool suspended;
    double started;
    int status; /* the status sent, counted (server/counters.c) when the request completes (0: none) */
};

struct http_server;

/* routes is borrowed and must outlive the server (NULL-terminated by a NULL method). */
/* Start listening. timeout_s bounds the idle time between bytes, request_timeout_s the whole of a request's
 * headers and body (a slow sender is cut off), per_ip the connections of one client address. */
int http_start(const char *addr, unsigned port, unsigned threads, unsigned max_connections,
               unsigned timeout_s, unsigned request_timeout_s, unsigned per_ip, const struct route *routes,
               struct http_server **out, struct pp_error *err) PP_WUR;
void http_stop(struct http_server *s);

/* Settings read per request (reloadable). */
void http_set_limits(size_t max_body, bool require_read_token);

/* The route table the server was started with (any thread, once http_start ran): what the counters'
 * route index (server/counters.h) is an index of. */
const struct route *http_routes(void);

/* Resume every suspended connection (any thread). */
void http_wake_all(void);

/* Record an error for the reply; returns its status (errors.h's table) so handlers can
 * `return req_fail(...)`. field may be NULL. */
int req_fail(struct request *r, enum http_err e, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Add detail to the last error. */
void req_detail(struct request *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reply with text built elsewhere (steals text; type NULL means application/json). */
int req_reply_text(struct request *r, int status, char *text, const char *type);

/* Query parameter, or NULL. */
const char *req_query(struct request *r, const char *name);
/* 400 unknown_parameter when the query string has a parameter not in allowed ("a,b,c"); 0 when fine. */
int req_check_query(struct request *r, const char *allowed);

/* Suspend this connection until the next http_wake_all (long poll, stream without data). Returns false when
 * the server is stopping (answer now instead). */
bool http_suspend(struct request *r);

#endif
