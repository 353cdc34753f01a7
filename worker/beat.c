/*
 * beat: see beat.h. beat_start's caller (serve's thread) owns the struct beat; the thread it starts owns the
 * cloned client and uses nothing else of the caller's until beat_stop joins it, which hands back the time of
 * the next heartbeat. The stop is an eventfd: the clone's interrupt fd, so the thread's wait and its call in
 * flight both end when it becomes readable.
 */
#include "beat.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/log.h"

#define BEAT_CALL_TIMEOUT_S 10 /* as serve's other calls about a job */

struct beat {
    pthread_t thread;
    struct client *http; /* the thread's own */
    int stop_fd;
    char path[96];
    json_t *body;
    double next_at, every_s;
    const char *ctx;
    unsigned sent; /* heartbeats the server took */
};

static void *beat_main(void *arg)
{
    struct beat *b = arg;
    struct client_reply r;
    struct pp_error err;

    for (;;) {
        double wait = b->next_at - clock_now();
        if (wait > 0 && client_sleep(b->http, wait))
            break; /* stopped */
        b->next_at = clock_now() + b->every_s;
        if (client_post(b->http, b->path, b->body, BEAT_CALL_TIMEOUT_S, 0, &r, &err) == 0)
            b->sent++;
        else if (!r.interrupted)
            log_msg(LOG_WARNING, "%s heartbeat (thread): %s", b->ctx, err.msg);
        bool stopped = r.interrupted;
        client_reply_clear(&r);
        if (stopped)
            break;
    }
    return NULL;
}

static void beat_free(struct beat *b)
{
    client_free(b->http);
    json_decref(b->body);
    if (b->stop_fd >= 0)
        close(b->stop_fd);
    free(b);
}

struct beat *beat_start(const struct client *http, long long worker_id, long long job_id, long long epoch,
                        double next_at, double every_s, const char *ctx, struct pp_error *err)
{
    struct beat *b = calloc(1, sizeof(*b));
    int e;

    if (!b) {
        pp_error_set(err, "out of memory");
        return NULL;
    }
    b->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    b->next_at = next_at;
    b->every_s = every_s > 0 ? every_s : 1;
    b->ctx = ctx;
    snprintf(b->path, sizeof(b->path), "/api/v1/workers/%lld/heartbeat", worker_id);
    if (b->stop_fd < 0) {
        pp_error_set(err, "cannot create an eventfd: %s", strerror(errno));
        goto fail;
    }
    if (!(b->body = json_pack("{s:I, s:I}", "job_id", (json_int_t)job_id, "epoch", (json_int_t)epoch)) ||
        !(b->http = client_clone(http, err))) {
        if (!b->http && !b->body)
            pp_error_set(err, "out of memory");
        goto fail;
    }
    client_set_interrupt(b->http, b->stop_fd);
    if ((e = pthread_create(&b->thread, NULL, beat_main, b)) != 0) {
        pp_error_set(err, "cannot start the heartbeat thread: %s", strerror(e));
        goto fail;
    }
    return b;
fail:
    beat_free(b);
    return NULL;
}

double beat_stop(struct beat *b)
{
    uint64_t one = 1;
    double next_at;

    if (!b)
        return 0;
    if (write(b->stop_fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
        log_msg(LOG_ERR, "%s cannot stop the heartbeat thread: %s", b->ctx, strerror(errno));
    pthread_join(b->thread, NULL);
    if (b->sent)
        log_msg(LOG_DEBUG, "%s %u heartbeat(s) from the heartbeat thread", b->ctx, b->sent);
    next_at = b->next_at;
    beat_free(b);
    return next_at;
}
