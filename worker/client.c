/*
 * client: a small libcurl client for the worker protocol. One CURL easy handle per client, reused for every
 * call so the connection stays open (keep-alive). Bodies are jansson trees: the caller owns what it sends,
 * a reply owns what came back. A client belongs to one thread: the serve loop's thread makes its calls, and
 * client_clone gives another thread (worker/beat.c's heartbeats) a client of its own. A transfer or a backoff
 * wait is cut short when the interrupt fd (serve's signalfd for SIGTERM and SIGINT) becomes readable.
 */
#include "client.h"

#include <curl/curl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"
#include "lib/clock.h"

#define CLIENT_CONNECT_TIMEOUT_S 5
#define CLIENT_MAX_ANSWER        (16u << 20)
#define CLIENT_BACKOFF_MAX_S     30.0

struct client {
    CURL *curl;
    struct curl_slist *headers;
    char auth[512];      /* "Authorization: Bearer ...", "" without a token */
    char *base;          /* without a trailing slash */
    long long worker_id; /* the registered worker it names (client_set_worker), 0: none */
    char secret[128];
    long long epoch; /* the job epoch it names (client_set_epoch), 0: none */
    int interrupt_fd;
    client_retry_fn *retry_fn;
    void *retry_arg;
    /* the answer being received */
    char *buf;
    size_t len, cap;
    bool too_big;
};

static bool interrupt_ready(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};

    return fd >= 0 && poll(&p, 1, 0) > 0;
}

static size_t on_data(char *data, size_t size, size_t n, void *arg)
{
    struct client *c = arg;
    size_t add = size * n;

    if (c->len + add + 1 > CLIENT_MAX_ANSWER) {
        c->too_big = true;
        return 0;
    }
    if (c->len + add + 1 > c->cap) {
        size_t cap = c->cap ? c->cap : 4096;
        char *p;
        while (cap < c->len + add + 1)
            cap *= 2;
        if (!(p = realloc(c->buf, cap)))
            return 0;
        c->buf = p;
        c->cap = cap;
    }
    memcpy(c->buf + c->len, data, add);
    c->len += add;
    c->buf[c->len] = '\0';
    return add;
}

static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    return interrupt_ready(((struct client *)arg)->interrupt_fd); /* non-zero aborts the transfer */
}

/* The headers every call sends: the token, and the worker's identity and a job's epoch when it names them. */
static struct curl_slist *headers_new(const struct client *c)
{
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    char line[160];

    h = curl_slist_append(h, "Accept: application/json");
    h = curl_slist_append(h, "Expect:"); /* no 100-continue wait before large reports */
    if (c->auth[0])
        h = curl_slist_append(h, c->auth);
    if (c->worker_id > 0) {
        snprintf(line, sizeof(line), "X-Worker-Id: %lld", c->worker_id);
        h = curl_slist_append(h, line);
        snprintf(line, sizeof(line), "X-Worker-Secret: %s", c->secret);
        h = curl_slist_append(h, line);
    }
    if (c->epoch > 0) {
        snprintf(line, sizeof(line), "X-Job-Epoch: %lld", c->epoch);
        h = curl_slist_append(h, line);
    }
    return h;
}

/* The headers again, after a field they carry changed. */
static int headers_reset(struct client *c, struct pp_error *err)
{
    struct curl_slist *h = headers_new(c);

    if (!h)
        return pp_error_set(err, "out of memory");
    curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, h);
    curl_slist_free_all(c->headers);
    c->headers = h;
    return 0;
}

int client_set_worker(struct client *c, long long id, const char *secret, struct pp_error *err)
{
    c->worker_id = id > 0 ? id : 0;
    snprintf(c->secret, sizeof(c->secret), "%s", id > 0 && secret ? secret : "");
    return headers_reset(c, err);
}

int client_set_epoch(struct client *c, long long epoch, struct pp_error *err)
{
    c->epoch = epoch > 0 ? epoch : 0;
    return headers_reset(c, err);
}

struct client *client_new(const char *base_url, const char *token, struct pp_error *err)
{
    struct client *c = calloc(1, sizeof(*c));
    size_t len;

    if (!c || !(c->base = strdup(base_url)) || !(c->curl = curl_easy_init())) {
        pp_error_set(err, "cannot start the http client");
        goto fail;
    }
    if (strncmp(base_url, "http://", 7) != 0 && strncmp(base_url, "https://", 8) != 0) {
        pp_error_set(err, "server url \"%s\" must start with http:// or https://", base_url);
        goto fail;
    }
    len = strlen(c->base);
    while (len > 0 && c->base[len - 1] == '/')
        c->base[--len] = '\0';
    c->interrupt_fd = -1;
    if (token && *token)
        snprintf(c->auth, sizeof(c->auth), "Authorization: Bearer %s", token);
    c->headers = headers_new(c);
    curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, c->headers);
    curl_easy_setopt(c->curl, CURLOPT_USERAGENT, "ppbench-worker/" PPBENCH_VERSION);
    curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, (long)CLIENT_CONNECT_TIMEOUT_S);
    curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, c);
    curl_easy_setopt(c->curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c->curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c->curl, CURLOPT_XFERINFODATA, c);
    curl_easy_setopt(c->curl, CURLOPT_TCP_KEEPALIVE, 1L);
    return c;
fail:
    client_free(c);
    return NULL;
}

struct client *client_clone(const struct client *c, struct pp_error *err)
{
    struct client *n = client_new(c->base, NULL, err);

    if (!n)
        return NULL;
    memcpy(n->auth, c->auth, sizeof(n->auth));
    if (client_set_worker(n, c->worker_id, c->secret, err)) { /* the headers again, with the token */
        client_free(n);
        return NULL;
    }
    return n;
}

void client_free(struct client *c)
{
    if (!c)
        return;
    if (c->curl)
        curl_easy_cleanup(c->curl);
    curl_slist_free_all(c->headers);
    free(c->base);
    free(c->buf);
    free(c);
}

void client_set_interrupt(struct client *c, int fd)
{
    c->interrupt_fd = fd;
}

void client_set_retry_hook(struct client *c, client_retry_fn *fn, void *arg)
{
    c->retry_fn = fn;
    c->retry_arg = arg;
}

void client_reply_clear(struct client_reply *r)
{
    json_decref(r->body);
    memset(r, 0, sizeof(*r));
}

int client_sleep(struct client *c, double s)
{
    double end = clock_now() + s;
    struct pollfd p = {.fd = c->interrupt_fd, .events = POLLIN};

    for (double left = s; left > 0; left = end - clock_now())
        if (poll(&p, c->interrupt_fd >= 0 ? 1 : 0, (int)(left * 1000) + 1) > 0)
            return -1;
    return 0;
}

/* The answer's error object as "server: code: message"; the code into r->code. */
static int answer_error(const char *url, struct client_reply *r, struct pp_error *err)
{
    json_t *e = json_object_get(r->body, "error");
    const char *code = json_string_value(json_object_get(e, "code"));
    const char *msg = json_string_value(json_object_get(e, "message"));

    if (!code)
        return pp_error_set(err, "%s: http status %ld", url, r->status);
    snprintf(r->code, sizeof(r->code), "%s", code);
    return pp_error_set(err, "server: %s: %s", code, msg ? msg : "");
}

/* One attempt. *retry_after: the server's Retry-After in seconds, 0 if none. */
static int post_once(struct client *c, const char *url, const char *body, long timeout_s,
                     struct client_reply *r, double *retry_after, struct pp_error *err)
{
    curl_off_t ra = 0;
    json_error_t jerr;
    CURLcode rc;

    client_reply_clear(r);
    *retry_after = 0;
    c->len = 0;
    c->too_big = false;
    curl_easy_setopt(c->curl, CURLOPT_URL, url);
    curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, timeout_s);
    rc = curl_easy_perform(c->curl);
    if (rc == CURLE_ABORTED_BY_CALLBACK) {
        r->interrupted = true;
        return pp_error_set(err, "%s: interrupted", url);
    }
    if (rc != CURLE_OK)
        return pp_error_set(err, "%s: %s", url, c->too_big ? "answer too large" : curl_easy_strerror(rc));
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &r->status);
    if (curl_easy_getinfo(c->curl, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
        *retry_after = (double)ra;
    if (c->len > 0 && !(r->body = json_loadb(c->buf, c->len, 0, &jerr)) && r->status / 100 == 2)
        return pp_error_set(err, "%s: invalid json in the answer: %s", url, jerr.text);
    if (r->status / 100 != 2)
        return answer_error(url, r, err);
    return 0;
}

static bool retryable(const struct client_reply *r)
{
    return !r->interrupted && (r->status == 0 || r->status == 502 || r->status == 503 || r->status == 504);
}

int client_post(struct client *c, const char *path, json_t *body, long timeout_s, double retry_s,
                struct client_reply *r, struct pp_error *err)
{
    double start = clock_now(), wait = 1.0, retry_after;
    char url[1024], *text;
    int rc;

    memset(r, 0, sizeof(*r));
    snprintf(url, sizeof(url), "%s%s", c->base, path);
    if (!(text = body ? json_dumps(body, JSON_COMPACT) : strdup("{}")))
        return pp_error_set(err, "%s: cannot encode the request", url);
    while ((rc = post_once(c, url, text, timeout_s, r, &retry_after, err)) != 0 && retryable(r)) {
        double pause = retry_after > wait ? retry_after : wait;
        if (pause > CLIENT_BACKOFF_MAX_S)
            pause = CLIENT_BACKOFF_MAX_S;
        if (retry_s == 0 || (retry_s > 0 && clock_now() + pause - start > retry_s))
            break;
        if (c->retry_fn)
            c->retry_fn(c->retry_arg, path, err, pause);
        if (client_sleep(c, pause)) {
            r->interrupted = true;
            break;
        }
        wait = wait * 2 > CLIENT_BACKOFF_MAX_S ? CLIENT_BACKOFF_MAX_S : wait * 2;
    }
    free(text);
    return rc;
}
