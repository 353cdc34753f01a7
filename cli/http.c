/*
 * http: blocking libcurl calls for the command-line client. One easy handle per call, created and cleaned up
 * inside it; an answer is owned by the caller's struct http_reply. Server-Sent Events are parsed in curl's
 * write callback, line by line, and handed to the caller's function as they arrive. Main thread only (the
 * caller runs curl_global_init once before any call).
 */
#include "http.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buildinfo.h"

/* A growing NUL-terminated byte buffer. */
struct buf {
    char *p;
    size_t len, cap;
};

static int buf_add(struct buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        char *p;
        while (cap < b->len + n + 1)
            cap *= 2;
        p = realloc(b->p, cap);
        if (!p)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

static void buf_reset(struct buf *b)
{
    b->len = 0;
    if (b->p)
        b->p[0] = '\0';
}

void http_reply_clear(struct http_reply *r)
{
    free(r->body);
    json_decref(r->json);
    memset(r, 0, sizeof(*r));
}

/* Moves the body into the reply and parses it when it is JSON. */
static void reply_take(struct http_reply *r, long status, struct buf *body)
{
    r->status = status;
    r->body = body->p ? body->p : strdup("");
    r->len = body->len;
    memset(body, 0, sizeof(*body));
    if (r->body && r->len)
        r->json = json_loadb(r->body, r->len, 0, NULL);
}

/* The API's error body as one message: "message (field F, code C)". */
static int reply_error(const struct http_reply *r, struct pp_error *err)
{
    json_t *e = json_object_get(r->json, "error");
    const char *msg = json_string_value(json_object_get(e, "message"));
    const char *field = json_string_value(json_object_get(e, "field"));
    const char *code = json_string_value(json_object_get(e, "code"));

    if (!msg || !*msg)
        return pp_error_set(err, "server answered %ld without an error message", r->status);
    if (field && *field && code && *code)
        return pp_error_set(err, "%s (field %s, code %s)", msg, field, code);
    if (field && *field)
        return pp_error_set(err, "%s (field %s)", msg, field);
    if (code && *code)
        return pp_error_set(err, "%s (code %s)", msg, code);
    return pp_error_set(err, "%s", msg);
}

static size_t write_body(char *p, size_t size, size_t n, void *arg)
{
    return buf_add(arg, p, size * n) ? 0 : size * n;
}

/* A handle for server+path with the headers every call sends (an Accept header when accept is non-NULL,
 * else curl's default of any type); *headers is the caller's to free. */
static int xfer_stop(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    const struct http_client *c = arg;

    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    return c->stop(c->stop_arg) ? 1 : 0;
}

static CURL *open_handle(const struct http_client *c, const char *path, const char *accept,
                         struct curl_slist **headers, char *errbuf, struct pp_error *err)
{
    char url[2048], auth[600], acc[128];
    struct curl_slist *h = NULL, *next;
    CURL *curl;

    if ((size_t)snprintf(url, sizeof(url), "%s%s", c->server, path) >= sizeof(url)) {
        pp_error_set(err, "url too long");
        return NULL;
    }
    curl = curl_easy_init();
    if (!curl) {
        pp_error_set(err, "cannot start libcurl");
        return NULL;
    }
    snprintf(acc, sizeof(acc), "Accept: %s", accept ? accept : "");
    snprintf(auth, sizeof(auth), "Authorization: Bearer %s", c->token);
    /* "Expect:" stops curl from waiting for 100-continue before a larger body. */
    const char *lines[] = {accept ? acc : NULL, "Expect:", c->token[0] ? auth : NULL};
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        if (!lines[i])
            continue;
        next = curl_slist_append(h, lines[i]);
        if (!next) {
            curl_slist_free_all(h);
            curl_easy_cleanup(curl);
            pp_error_set(err, "out of memory");
            return NULL;
        }
        h = next;
    }
    errbuf[0] = '\0';
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "ppbench/" PPBENCH_VERSION);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
    if (c->stop) {
        curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, xfer_stop);
        curl_easy_setopt(curl, CURLOPT_XFERINFODATA, (void *)c);
    }
    *headers = h;
    return curl;
}

static int unreachable(const struct http_client *c, CURLcode res, const char *errbuf, struct pp_error *err)
{
    return pp_error_set(err, "cannot reach %s: %s", c->server, errbuf[0] ? errbuf : curl_easy_strerror(res));
}

int http_request(const struct http_client *c, const char *method, const char *path, json_t *body,
                 struct http_reply *reply, struct pp_error *err)
{
    char errbuf[CURL_ERROR_SIZE];
    struct curl_slist *headers = NULL, *next;
    struct buf in = {0};
    char *text = NULL;
    long status = 0;
    CURLcode res;
    CURL *curl;
    int rc = -1;

    http_reply_clear(reply);
    curl = open_handle(c, path, NULL, &headers, errbuf, err); /* JSON, or CSV for results */
    if (!curl)
        return -1;
    if (strcmp(method, "POST") == 0) {
        text = body ? json_dumps(body, JSON_COMPACT) : strdup("");
        next = body ? curl_slist_append(headers, "Content-Type: application/json") : headers;
        if (!text || !next) {
            pp_error_set(err, "out of memory");
            goto out;
        }
        headers = next;
        curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, text);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)strlen(text));
    } else if (strcmp(method, "GET") != 0) {
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    }
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &in);
    /* A server that goes silent for a minute mid-answer is treated as gone. */
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 60L);
    res = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    if (res != CURLE_OK) {
        unreachable(c, res, errbuf, err);
        goto out;
    }
    reply_take(reply, status, &in);
    if (status / 100 != 2) {
        reply_error(reply, err);
        goto out;
    }
    rc = 0;
out:
    free(in.p);
    free(text);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return rc;
}

/* The state of one event stream: the line being read and the event being assembled. */
struct stream {
    CURL *curl;
    http_event_fn fn;
    void *arg;
    int mode; /* STREAM_UNKNOWN until the first bytes, then whether they are events */
    int stopped;
    struct buf line, data, body;
    char event[64], id[128];
};

enum { STREAM_UNKNOWN, STREAM_EVENTS, STREAM_BODY };

static int is_event_stream(CURL *curl)
{
    char *type = NULL;
    long status = 0;

    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &type);
    return status / 100 == 2 && type && strncasecmp(type, "text/event-stream", 17) == 0;
}

/* One line of the stream (the WHATWG event-stream format); returns nonzero when fn asked to stop. */
static int stream_line(struct stream *s)
{
    char *line = s->line.p ? s->line.p : "", *value;
    int rc = 0;

    if (s->line.len && line[s->line.len - 1] == '\r')
        line[--s->line.len] = '\0';
    if (!*line) {
        if (s->data.len) {
            s->data.p[--s->data.len] = '\0'; /* the last "\n" */
            rc = s->fn(s->arg, s->event[0] ? s->event : "message", s->data.p, s->id);
        }
        buf_reset(&s->data);
        s->event[0] = '\0';
        return rc;
    }
    if (line[0] == ':')
        return 0; /* a comment: keep-alive */
    value = strchr(line, ':');
    if (value) {
        *value++ = '\0';
        if (*value == ' ')
            value++;
    } else {
        value = "";
    }
    if (strcmp(line, "event") == 0)
        snprintf(s->event, sizeof(s->event), "%s", value);
    else if (strcmp(line, "id") == 0)
        snprintf(s->id, sizeof(s->id), "%s", value);
    else if (strcmp(line, "data") == 0 &&
             (buf_add(&s->data, value, strlen(value)) || buf_add(&s->data, "\n", 1)))
        return -1;
    return 0;
}

static size_t write_stream(char *p, size_t size, size_t n, void *arg)
{
    struct stream *s = arg;
    size_t len = size * n, done = 0;

    if (s->mode == STREAM_UNKNOWN)
        s->mode = is_event_stream(s->curl) ? STREAM_EVENTS : STREAM_BODY;
    if (s->mode == STREAM_BODY)
        return buf_add(&s->body, p, len) ? 0 : len;
    while (done < len) {
        char *nl = memchr(p + done, '\n', len - done);
        size_t chunk = nl ? (size_t)(nl - (p + done)) : len - done;
        if (buf_add(&s->line, p + done, chunk))
            return 0;
        done += chunk;
        if (!nl)
            break;
        done++;
        if (stream_line(s)) {
            s->stopped = 1;
            return 0; /* curl ends the transfer with CURLE_WRITE_ERROR */
        }
        buf_reset(&s->line);
    }
    return len;
}

int http_events(const struct http_client *c, const char *path, const char *last_id, http_event_fn fn,
                void *arg, struct http_reply *reply, struct pp_error *err)
{
    char errbuf[CURL_ERROR_SIZE], resume[160];
    struct stream s = {.fn = fn, .arg = arg};
    struct curl_slist *headers = NULL, *next;
    long status = 0;
    CURLcode res;
    int rc = -1;

    http_reply_clear(reply);
    s.curl = open_handle(c, path, "text/event-stream", &headers, errbuf, err);
    if (!s.curl)
        return -1;
    if (last_id && *last_id) {
        snprintf(resume, sizeof(resume), "Last-Event-ID: %s", last_id);
        next = curl_slist_append(headers, resume);
        if (!next) {
            pp_error_set(err, "out of memory");
            goto out;
        }
        headers = next;
        curl_easy_setopt(s.curl, CURLOPT_HTTPHEADER, headers);
    }
    curl_easy_setopt(s.curl, CURLOPT_WRITEFUNCTION, write_stream);
    curl_easy_setopt(s.curl, CURLOPT_WRITEDATA, &s);
    res = curl_easy_perform(s.curl);
    curl_easy_getinfo(s.curl, CURLINFO_RESPONSE_CODE, &status);
    if (s.mode == STREAM_EVENTS || (res == CURLE_OK && is_event_stream(s.curl))) {
        reply->status = status;
        rc = 0; /* ended by the server, by fn or by a dropped connection: the caller looks at the job */
        goto out;
    }
    if (res != CURLE_OK && status == 0) {
        unreachable(c, res, errbuf, err);
        goto out;
    }
    reply_take(reply, status, &s.body);
    if (status / 100 == 2)
        pp_error_set(err, "the server sent no event stream");
    else
        reply_error(reply, err);
out:
    free(s.line.p);
    free(s.data.p);
    free(s.body.p);
    curl_slist_free_all(headers);
    curl_easy_cleanup(s.curl);
    return rc;
}

int http_query_add(char *path, size_t size, const char *name, const char *value, struct pp_error *err)
{
    size_t len = strlen(path);
    char *esc;
    int n;

    if (!value)
        return 0;
    esc = curl_easy_escape(NULL, value, 0);
    if (!esc)
        return pp_error_set(err, "out of memory");
    n = snprintf(path + len, size - len, "%c%s=%s", strchr(path, '?') ? '&' : '?', name, esc);
    curl_free(esc);
    if (n < 0 || (size_t)n >= size - len)
        return pp_error_set(err, "query too long at %s", name);
    return 0;
}
