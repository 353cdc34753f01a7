/*
 * http: libmicrohttpd glue, routing, auth and response rendering. MHD pool threads run the handlers; the
 * waiter list is shared and guarded by a mutex; everything else in a request belongs to the thread that
 * handles it. The request context is freed in on_completed.
 *
 * What a request meets, in order: its target read raw in the URI callback (on_uri: too many query parameters
 * are answered 414 there by refuse_now, because libmicrohttpd 0.9.75 hangs on a query it cannot store); the
 * route, the token's role and a worker's identity, the framing headers and the declared size judged from the
 * headers before any body is read (per-route body limits: struct route); the body; the handler; the one
 * error writer (every error body is rendered here, from errors.h's table). A connection whose request has not
 * arrived whole within request_timeout_s is cut by conn.c's sweeper (slow senders), which also takes MHD's
 * log. Long polls and event streams suspend their connection and are resumed by http_wake_all (http.h).
 *
 * Memory stays flat (issue 26, defect 5): a large request (an import's jansson tree of 76,240 rows, a 14 MB
 * report, a large export) frees its memory when it completes, but glibc keeps freed pages in the arena of the
 * thread that used them, one arena per pool thread: ten 3.9 MB imports left ppbenchd at 2.1 GB. Three
 * causes, three measures (bench/memory.sh, docs/PERFORMANCE.md): glibc's thresholds are dynamic, so after
 * the first large free a pool thread's arena keeps up to 64 MB at its top: http_start fixes them at
 * HTTP_LARGE's order (M_MMAP_THRESHOLD, M_TRIM_THRESHOLD); libpq's buffers keep the size of the largest
 * message their connection carried: a large request closes its thread's connection when it completes; free
 * pages inside an arena stay mapped: it then calls malloc_trim(0). M_ARENA_MAX alone kept 139 MB after four
 * imports of 20,000 rows.
 */
#include "server/http/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "server/counters.h"
#include "server/db.h"
#include "server/http/auth.h"
#include "server/http/conn.h"
#include "server/http/parse.h"

struct http_server {
    struct MHD_Daemon *daemon;
    const struct route *routes;
};

static const struct route *g_routes;
static _Atomic size_t g_max_body = 4u << 20;
static atomic_bool g_require_read_token;
static atomic_ullong g_request_seq;
static atomic_bool g_stopping; /* no new suspensions: MHD must not be stopped with suspended connections */
static unsigned g_id_prefix;

/* Suspended connections waiting for http_wake_all. */
static pthread_mutex_t waiters_lock = PTHREAD_MUTEX_INITIALIZER;
static struct MHD_Connection **waiters;
static size_t nwaiters, cap_waiters;

void http_set_limits(size_t max_body, bool require_read_token)
{
    g_max_body = max_body;
    g_require_read_token = require_read_token;
}

int req_fail(struct request *r, enum http_err e, const char *field, const char *fmt, ...)
{
    int status = errors_status(e);
    va_list ap;

    snprintf(r->err.code, sizeof(r->err.code), "%s", errors_code(e));
    snprintf(r->err.field, sizeof(r->err.field), "%s", field ? field : "");
    va_start(ap, fmt);
    vsnprintf(r->err.message, sizeof(r->err.message), fmt, ap);
    va_end(ap);
    r->err.detail[0] = '\0';
    if (status == MHD_HTTP_SERVICE_UNAVAILABLE && !r->retry_after)
        r->retry_after = 1;
    return status;
}

void req_detail(struct request *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err.detail, sizeof(r->err.detail), fmt, ap);
    va_end(ap);
}

int req_reply_text(struct request *r, int status, char *text, const char *type)
{
    free(r->reply_text);
    r->reply_text = text;
    r->reply_type = type;
    return status;
}

const char *req_query(struct request *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

struct query_check {
    const char *allowed;
    const char *bad;
};

static enum MHD_Result check_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    struct query_check *qc = cls;

    (void)kind;
    (void)value;
    if (parse_listed(qc->allowed, key))
        return MHD_YES;
    qc->bad = key;
    return MHD_NO;
}

int req_check_query(struct request *r, const char *allowed)
{
    struct query_check qc = {allowed, NULL};

    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, check_arg, &qc);
    if (qc.bad)
        return req_fail(r, ERR_UNKNOWN_PARAMETER, qc.bad, "unknown query parameter \"%s\"", qc.bad);
    return 0;
}

bool http_suspend(struct request *r)
{
    bool ok = false;

    pthread_mutex_lock(&waiters_lock);
    if (g_stopping) {
        pthread_mutex_unlock(&waiters_lock);
        return false;
    }
    if (nwaiters == cap_waiters) {
        size_t cap = cap_waiters ? 2 * cap_waiters : 64;
        struct MHD_Connection **w = realloc(waiters, cap * sizeof(*w));
        if (w) {
            waiters = w;
            cap_waiters = cap;
        }
    }
    if (nwaiters < cap_waiters) {
        waiters[nwaiters++] = r->conn;
        r->suspended = true;
        MHD_suspend_connection(r->conn);
        ok = true;
    }
    pthread_mutex_unlock(&waiters_lock);
    return ok;
}

void http_wake_all(void)
{
    pthread_mutex_lock(&waiters_lock);
    for (size_t i = 0; i < nwaiters; i++)
        MHD_resume_connection(waiters[i]);
    nwaiters = 0;
    pthread_mutex_unlock(&waiters_lock);
}

const struct route *http_routes(void)
{
    return g_routes;
}

static int route(struct request *r, char *allow, size_t allow_size)
{
    bool path_known = false;

    allow[0] = '\0';
    for (const struct route *rt = g_routes; rt->method; rt++) {
        if (!parse_route(rt->pattern, r->path, r->args, &r->nargs))
            continue;
        path_known = true;
        if (!strcmp(rt->method, r->method) || (!strcmp(r->method, "HEAD") && !strcmp(rt->method, "GET"))) {
            r->route = rt;
            return 0;
        }
        snprintf(allow + strlen(allow), allow_size - strlen(allow), "%s%s", allow[0] ? ", " : "", rt->method);
    }
    if (path_known)
        return req_fail(r, ERR_METHOD_NOT_ALLOWED, NULL, "%s is not allowed on %s (allowed: %s)", r->method,
                        r->path, allow);
    return req_fail(r, ERR_NOT_FOUND, NULL, "no such resource: %s", r->path);
}

/* The worker a worker call names (X-Worker-Id) must be the one whose registration secret it presents. */
static int authenticate_worker(struct request *r)
{
    const char *id = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "X-Worker-Id");
    const char *secret = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "X-Worker-Secret");
    struct db_error dberr;
    long long wid;

    if (!id || !secret)
        return req_fail(r, ERR_UNAUTHORIZED, NULL,
                        "a worker call needs X-Worker-Id and X-Worker-Secret (from the registration)");
    wid = strspn(id, "0123456789") == strlen(id) && strlen(id) <= 18 ? strtoll(id, NULL, 10) : 0;
    switch (auth_worker(wid, secret, &dberr)) {
    case AUTH_OK:
        r->worker_id = wid;
        return 0;
    case AUTH_UNKNOWN:
        return req_fail(r, ERR_WRONG_WORKER, NULL, "the worker secret is not worker %.24s's", id);
    default:
        log_warn("request=%s worker auth: %s", r->id, dberr.e.msg);
        return req_fail(r, ERR_DATABASE_UNAVAILABLE, NULL, "the database is unavailable, try again");
    }
}

static int authenticate(struct request *r)
{
    const char *h = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    enum role need = r->route->need;
    struct db_error dberr;

    if (need == ROLE_NONE || (need == ROLE_READ && !g_require_read_token && !h))
        return 0;
    if (!h)
        return req_fail(r, ERR_UNAUTHORIZED, NULL, "this request needs a bearer token with role %s",
                        role_name(need));
    if (strncasecmp(h, "Bearer ", 7) != 0)
        return req_fail(r, ERR_UNAUTHORIZED, NULL, "authorization must be \"Bearer <token>\"");
    switch (auth_lookup(h + 7, &r->role, &r->token_id, &dberr)) {
    case AUTH_OK:
        break;
    case AUTH_UNKNOWN:
        return req_fail(r, ERR_UNAUTHORIZED, NULL, "unknown or revoked token");
    default:
        log_warn("request=%s auth: %s", r->id, dberr.e.msg);
        return req_fail(r, ERR_DATABASE_UNAVAILABLE, NULL, "the database is unavailable, try again");
    }
    if (!role_allows(r->role, need))
        return req_fail(r, ERR_FORBIDDEN, NULL, "this request needs role %s, the token has %s",
                        role_name(need), role_name(r->role));
    return r->route->as_worker ? authenticate_worker(r) : 0;
}

/* A content type's charset parameter, when it has one, names UTF-8. */
static bool charset_is_utf8(const char *ct)
{
    const char *p = strcasestr(ct, "charset=");
    size_t len;

    if (!p)
        return true;
    p += 8;
    if (*p == '"')
        p++;
    len = strcspn(p, "\"; \t");
    return (len == 5 && !strncasecmp(p, "utf-8", 5)) || (len == 4 && !strncasecmp(p, "utf8", 4));
}

static size_t body_limit(const struct request *r);

static int parse_body(struct request *r)
{
    const char *ct = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
    json_error_t jerr;

    if (r->too_large)
        return req_fail(r, ERR_BODY_TOO_LARGE, NULL, "request body larger than %zu bytes", body_limit(r));
    if (r->route->body == BODY_RAW)
        return 0;
    if (r->route->body == BODY_NONE) {
        /* No body expected; an empty JSON object alone is accepted from clients that always send one. */
        json_t *empty = r->body_len ? json_loadb(r->body, r->body_len, 0, NULL) : NULL;
        bool ok = !r->body_len || (json_is_object(empty) && json_object_size(empty) == 0);
        json_decref(empty);
        return ok ? 0 : req_fail(r, ERR_UNEXPECTED_BODY, NULL, "this request takes no body");
    }
    if (!ct || strncasecmp(ct, "application/json", 16) != 0 || (ct[16] && ct[16] != ';' && ct[16] != ' '))
        return req_fail(r, ERR_UNSUPPORTED_MEDIA_TYPE, NULL, "the body must be application/json");
    if (!charset_is_utf8(ct))
        return req_fail(r, ERR_UNSUPPORTED_MEDIA_TYPE, NULL,
                        "the body must be utf-8 (charset=utf-8 or none)");
    r->json = json_loadb(r->body ? r->body : "", r->body_len, JSON_REJECT_DUPLICATES, &jerr);
    if (!r->json) {
        req_fail(r, ERR_MALFORMED_JSON, NULL, "malformed json: %s", jerr.text);
        req_detail(r, "line %d, column %d", jerr.line, jerr.column);
        return MHD_HTTP_BAD_REQUEST;
    }
    if (!json_is_object(r->json))
        return req_fail(r, ERR_MALFORMED_JSON, NULL, "the body must be a json object");
    return 0;
}

static char *error_body(struct request *r)
{
    json_t *e = json_pack("{s:{s:s, s:s, s:s?, s:s?, s:s}}", "error", "code", r->err.code, "message",
                          r->err.message, "detail", r->err.detail[0] ? r->err.detail : NULL, "field",
                          r->err.field[0] ? r->err.field : NULL, "request_id", r->id);
    char *s = json_dumps(e, JSON_COMPACT);
    json_decref(e);
    return s;
}

static enum MHD_Result send_reply(struct request *r, int status)
{
    struct MHD_Response *resp;
    char *text = NULL;
    const char *type = "application/json";
    enum MHD_Result ret;

    r->status = status;
    if (status >= 400) {
        text = error_body(r);
        /* a request the stop cut short is part of a normal stop: said at info, not as a warning */
        if (status >= 500 && (r->cut_short || atomic_load(&g_stopping)))
            log_info("request=%s %s %s -> %d %s", r->id, r->method, r->path, status, r->err.message);
        else if (status >= 500)
            log_warn("request=%s %s %s -> %d %s", r->id, r->method, r->path, status, r->err.message);
    } else if (r->reply_text) {
        text = r->reply_text;
        r->reply_text = NULL;
        if (r->reply_type)
            type = r->reply_type;
    } else if (r->reply) {
        text = json_dumps(r->reply, JSON_COMPACT);
    }
    if (!text)
        text = strdup("");
    r->large = r->large || strlen(text) >= HTTP_LARGE;
    resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    if (status != MHD_HTTP_NO_CONTENT)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(resp, "X-Request-Id", r->id);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (r->location[0])
        MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, r->location);
    if (r->retry_after) {
        char ra[16];
        snprintf(ra, sizeof(ra), "%d", r->retry_after);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, ra);
    }
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED) {
        char allow[64] = "";
        for (const struct route *rt = g_routes; rt->method; rt++) {
            char args[PARSE_MAX_ARGS][PARSE_ARG_MAX];
            int nargs;
            if (parse_route(rt->pattern, r->path, args, &nargs) && !strstr(allow, rt->method))
                snprintf(allow + strlen(allow), sizeof(allow) - strlen(allow), "%s%s", allow[0] ? ", " : "",
                         rt->method);
        }
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
    }
    ret = MHD_queue_response(r->conn, (unsigned)status, resp);
    MHD_destroy_response(resp);
    log_debug("request=%s %s %s -> %d (%.3f ms)", r->id, r->method, r->path, status,
              (clock_now() - r->started) * 1e3);
    return ret;
}

static ssize_t stream_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct request *r = cls;
    ssize_t n;

    (void)pos;
    n = r->stream(r, buf, max);
    return n < 0 ? MHD_CONTENT_READER_END_OF_STREAM : n;
}

/* A stream's 200. To HEAD the headers alone: a response of unknown size goes chunked, and libmicrohttpd
 * 0.9.75 sends its last chunk ("0\r\n\r\n") even after the headers of a HEAD, which a kept-alive client reads
 * as the start of its next response. */
static enum MHD_Result send_stream(struct request *r)
{
    struct MHD_Response *resp =
        strcmp(r->method, "HEAD")
            ? MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 8192, stream_reader, r, NULL)
            : MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret;

    r->status = MHD_HTTP_OK;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(resp, "X-Request-Id", r->id);
    ret = MHD_queue_response(r->conn, MHD_HTTP_OK, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* The body limit of r's route. */
static size_t body_limit(const struct request *r)
{
    if (r->route->body == BODY_NONE)
        return HTTP_NO_BODY_MAX;
    if (r->route->as_worker && r->route->max_body)
        return r->route->max_body;
    return r->route->max_body && r->route->max_body < g_max_body ? r->route->max_body : g_max_body;
}

struct header_scan {
    int content_lengths, transfer_encodings;
    char first_length[32], coding[64]; /* coding: a Transfer-Encoding other than chunked, "" if none */
    bool conflict;
};

/* value is "chunked", give or take case and blanks around it: the one transfer coding we read. */
static bool only_chunked(const char *value)
{
    size_t n;

    value += strspn(value, " \t");
    n = strcspn(value, " \t");
    return n == strlen("chunked") && !strncasecmp(value, "chunked", n) &&
           !value[n + strspn(value + n, " \t")];
}

static enum MHD_Result scan_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    struct header_scan *hs = cls;

    (void)kind;
    if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH)) {
        if (hs->content_lengths++ == 0)
            snprintf(hs->first_length, sizeof(hs->first_length), "%s", value ? value : "");
        else if (strcmp(hs->first_length, value ? value : ""))
            hs->conflict = true;
    } else if (!strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
        hs->transfer_encodings++;
        if (!only_chunked(value ? value : "") && !hs->coding[0])
            snprintf(hs->coding, sizeof(hs->coding), "%s", value && *value ? value : "(empty)");
    }
    return MHD_YES;
}

/* What can be judged from the request line and the headers alone, before any body is read: the route, the
 * token (and a worker's identity), the framing headers, the declared size and the route's own check
 * (before_body). An anonymous, oversized or refused request is answered here and its body never read. */
static int admit(struct request *r)
{
    struct header_scan hs = {0};
    const char *cl;
    char allow[64];
    int status;

    if (r->raw_nul)
        return req_fail(r, ERR_BAD_REQUEST, NULL, "the path holds an encoded nul byte");
    MHD_get_connection_values(r->conn, MHD_HEADER_KIND, scan_header, &hs);
    if (hs.conflict || (hs.content_lengths && hs.transfer_encodings) || hs.transfer_encodings > 1)
        return req_fail(r, ERR_BAD_REQUEST, NULL,
                        "conflicting Content-Length headers, or Content-Length with Transfer-Encoding");
    if (hs.coding[0]) /* libmicrohttpd would wait for a body it cannot frame until the request's deadline */
        return req_fail(r, ERR_NOT_IMPLEMENTED, NULL,
                        "transfer encoding \"%s\" is not supported (only chunked)", hs.coding);
    if ((status = route(r, allow, sizeof(allow))) || (status = authenticate(r)))
        return status;
    cl = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl && strtoull(cl, NULL, 10) > body_limit(r))
        return req_fail(r, ERR_BODY_TOO_LARGE, NULL, "request body larger than %zu bytes", body_limit(r));
    return r->route->before_body ? r->route->before_body(r) : 0;
}

/* The handler runs with its client's socket watched by every statement it waits on (server/db.c): a client
 * that leaves ends its statement in PostgreSQL too, said once here. */
static int dispatch(struct request *r)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    int status;

    if (!r->parsed) {
        r->parsed = true;
        if ((status = parse_body(r)))
            return status;
    }
    db_request_begin(ci ? ci->connect_fd : -1, r->route->timeout_s);
    status = r->route->handler(r);
    if (db_client_left())
        log_info("request=%s %s %s: the client left after %.1f s; its statement was cancelled", r->id,
                 r->method, r->path, clock_now() - r->started);
    db_request_end();
    return status;
}

/* Answer and close a connection from the URI callback, before libmicrohttpd parses the query. libmicrohttpd
 * 0.9.75 splits the query into its per-connection memory pool before the request handler runs, and when that
 * runs out (a thousand parameters) it neither answers nor closes: the connection hangs until its timeout. So
 * the answer goes straight to the socket (small: it fits the send buffer) and the socket is shut down; the
 * daemon then sees the connection closed and frees it. */
static void refuse_now(struct MHD_Connection *conn, const char *status, const char *code, const char *message)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    char body[256], reply[512];
    int n;

    if (!ci)
        return;
    snprintf(body, sizeof(body), "{\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}", code, message);
    n = snprintf(reply, sizeof(reply),
                 "HTTP/1.1 %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\nConnection: "
                 "close\r\n\r\n%s",
                 status, strlen(body), body);
    if (send(ci->connect_fd, reply, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
        log_debug("refusing a request: %s", strerror(errno));
    shutdown(ci->connect_fd, SHUT_RDWR);
}

/* MHD's URI log callback: the raw request target, before libmicrohttpd decodes it or splits its query (a
 * decoded %00 would end the path early). It creates the request context. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    struct request *r = calloc(1, sizeof(*r));
    const char *q;

    (void)cls;
    (void)conn;
    if (!r)
        return NULL;
    r->raw_nul = strstr(uri, "%00") != NULL;
    if ((q = strchr(uri, '?')))
        for (r->raw_params = 1; *q; q++)
            r->raw_params += *q == '&' || *q == ';';
    if (r->raw_params > HTTP_MAX_QUERY_PARAMS)
        refuse_now(conn, "414 URI Too Long", "uri_too_long", "too many query parameters");
    return r;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size,
                                  void **con_cls)
{
    struct request *r = *con_cls;
    int status;

    (void)cls;
    (void)version;
    if (!r && !(r = *con_cls = calloc(1, sizeof(*r))))
        return MHD_NO;
    if (!r->conn) {
        r->conn = conn;
        r->method = method;
        r->started = clock_now();
        snprintf(r->path, sizeof(r->path), "%s", url);
        snprintf(r->id, sizeof(r->id), "%04x-%06llx", g_id_prefix, (unsigned long long)++g_request_seq);
        if ((status = admit(r))) {
            conn_arrived(conn);
            r->answered = true; /* the body, if any, is never read: MHD closes the connection after this */
            return send_reply(r, status);
        }
        return MHD_YES;
    }
    if (r->answered) {
        *upload_size = 0;
        return MHD_YES;
    }
    if (*upload_size) {
        if (!r->too_large && r->body_len + *upload_size <= body_limit(r)) {
            if (r->body_len + *upload_size + 1 > r->body_cap) {
                size_t cap = (r->body_len + *upload_size + 1) * 2;
                char *b = realloc(r->body, cap);
                if (!b)
                    return MHD_NO;
                r->body = b;
                r->body_cap = cap;
            }
            memcpy(r->body + r->body_len, upload, *upload_size);
            r->body_len += *upload_size;
            r->body[r->body_len] = '\0';
        } else {
            r->too_large = true; /* a chunked body past the limit: answered 413 at its end */
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (!r->parsed)
        conn_arrived(conn); /* arrived whole: the handler's time is its own (long polls, streams) */
    r->suspended = false;
    status = dispatch(r);
    if (status == HTTP_SUSPENDED)
        return MHD_YES;
    if (status == HTTP_STREAM)
        return send_stream(r);
    return send_reply(r, status);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct request *r = *con_cls;

    (void)cls;
    conn_expect_request(conn); /* the next request on a kept-alive connection */
    if (!r)
        return;
    /* A stream (a job's events) ends when its client leaves (the browser left the Job page): normal, no error
     * (conn_mhd_log lowers MHD's line about the failed write to debug as well). */
    if (r->stream && (toe == MHD_REQUEST_TERMINATED_WITH_ERROR ||
                      toe == MHD_REQUEST_TERMINATED_CLIENT_ABORT || toe == MHD_REQUEST_TERMINATED_READ_ERROR))
        log_debug("request=%s %s %s: the client closed the stream", r->id, r->method, r->path);
    if (r->status)
        counters_http(r->route ? (size_t)(r->route - g_routes) : COUNTERS_MAX_ROUTES, r->status,
                      clock_now() - r->started);
    if (r->state_free)
        r->state_free(r->state);
    json_decref(r->json);
    json_decref(r->reply);
    free(r->reply_text);
    free(r->body);
    if (r->large || r->body_cap >= HTTP_LARGE) {
        db_thread_close(); /* libpq's buffers keep the size of the largest message they held */
        malloc_trim(0);
    }
    free(r);
    *con_cls = NULL;
}

static void on_panic(void *cls, const char *file, unsigned line, const char *reason)
{
    (void)cls;
    log_err("libmicrohttpd panic at %s:%u: %s", file ? file : "?", line, reason ? reason : "?");
    abort();
}

int http_start(const char *addr, unsigned port, unsigned threads, unsigned max_connections,
               unsigned timeout_s, unsigned request_timeout_s, unsigned per_ip, const struct route *routes,
               struct http_server **out, struct pp_error *err)
{
    struct sockaddr_in sin;
    struct http_server *s;

    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
        return pp_error_set(err, "listen: \"%s\" is not an IPv4 address", addr);
    if (!(s = calloc(1, sizeof(*s))))
        return pp_error_set(err, "out of memory");
    g_routes = routes;
    g_id_prefix = (unsigned)getpid() & 0xffff;
    mallopt(M_MMAP_THRESHOLD, 1 << 20); /* fixed, not dynamic: memory stays flat (head comment) */
    mallopt(M_TRIM_THRESHOLD, 1 << 20);
    MHD_set_panic_func(on_panic, NULL);
    s->daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG,
        (uint16_t)port, NULL, NULL, on_request, NULL, MHD_OPTION_EXTERNAL_LOGGER, conn_mhd_log, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sin, MHD_OPTION_THREAD_POOL_SIZE, threads,
        MHD_OPTION_CONNECTION_LIMIT, max_connections, MHD_OPTION_CONNECTION_TIMEOUT, timeout_s,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024, MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
        MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL, MHD_OPTION_NOTIFY_CONNECTION, conn_notify, NULL,
        MHD_OPTION_END);
    if (!s->daemon) {
        free(s);
        return pp_error_set(err, "cannot listen on %s:%u (in use, or not permitted)", addr, port);
    }
    if (conn_sweeper_start(request_timeout_s)) {
        MHD_stop_daemon(s->daemon);
        free(s);
        return pp_error_set(err, "cannot start the request deadline thread");
    }
    s->routes = routes;
    *out = s;
    return 0;
}

void http_stop(struct http_server *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&waiters_lock);
    g_stopping = true;
    pthread_mutex_unlock(&waiters_lock);
    http_wake_all();
    conn_sweeper_stop();
    MHD_stop_daemon(s->daemon);
    free(s);
}
