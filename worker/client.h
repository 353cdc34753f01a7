/*
 * client: the worker's HTTP client for the worker protocol (docs/API.md): JSON in, JSON out, a bearer token,
 * one reused connection, timeouts, and retry with backoff on an unreachable or unavailable server.
 */
#ifndef PP_CLIENT_H
#define PP_CLIENT_H

#include <jansson.h>
#include <stdbool.h>

#include "lib/error.h"

struct client;

struct client_reply {
    long status;      /* HTTP status; 0 when no answer came (unreachable, timeout, interrupted) */
    bool interrupted; /* the interrupt fd became readable: the call or its backoff wait was cut short */
    json_t *body;     /* the parsed answer (new reference; the error object too), NULL when empty */
    char code[64];    /* the server's error code on a non-2xx answer ("stale_epoch"), else "" */
};

/* Called before each backoff wait of a retried call. */
typedef void client_retry_fn(void *arg, const char *path, const struct pp_error *why, double wait_s);

/* base_url "http://host:port" (a trailing slash is dropped); token may be NULL. Needs curl_global_init. */
struct client *client_new(const char *base_url, const char *token, struct pp_error *err);
void client_free(struct client *c); /* NULL-safe */

/* A new client for another thread: the same server, token and worker, its own connection; no interrupt fd
 * and no retry hook (set them anew). */
struct client *client_clone(const struct client *c, struct pp_error *err);

/* Name the registered worker on every later call (X-Worker-Id, X-Worker-Secret: the registration's answer);
 * id 0 stops naming one. */
int client_set_worker(struct client *c, long long id, const char *secret, struct pp_error *err) PP_WUR;

/* Name a job's epoch on every later call (X-Job-Epoch: the server refuses a result for an epoch it has moved
 * past before reading its body); 0 stops naming one. */
int client_set_epoch(struct client *c, long long epoch, struct pp_error *err) PP_WUR;

/* Transfers and waits stop early once fd is readable (a signalfd); -1 for none. */
void client_set_interrupt(struct client *c, int fd);
void client_set_retry_hook(struct client *c, client_retry_fn *fn, void *arg);

/* POST body (borrowed; NULL sends {}) to base_url + path, with a whole-call limit of timeout_s seconds
 * (connecting: 5 s). Returns 0 on a 2xx answer. Otherwise -1 with r->status (0: no answer), r->code and
 * err: "server: <code>: <message>" for an error answer, "<url>: <reason>" when none came.
 * retry_s: 0 tries once; > 0 retries an unreachable server and 502/503/504 answers for up to that many
 * seconds; < 0 retries until an answer or an interrupt. Waits start at 1 s and double to 30 s (a longer
 * Retry-After wins). Clear r with client_reply_clear, whatever the result. */
int client_post(struct client *c, const char *path, json_t *body, long timeout_s, double retry_s,
                struct client_reply *r, struct pp_error *err) PP_WUR;
void client_reply_clear(struct client_reply *r);

/* Wait s seconds; returns -1 early when the interrupt fd becomes readable. */
int client_sleep(struct client *c, double s);

#endif
