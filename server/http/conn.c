/*
 * conn: what ppbenchd keeps of each open connection, apart from its requests: the whole-request deadline
 * (slow senders) and libmicrohttpd's own log lines. http.c hands MHD conn_notify and conn_mhd_log, and marks
 * where a request stands: conn_expect_request when a connection waits for its next request, conn_arrived once
 * one is whole (the handler's time is its own: long polls, event streams).
 *
 * Every open connection is on one list, with the time by which its current request must have arrived whole
 * (0: none); the sweeper thread looks every 250 ms and shuts down the socket of one past its deadline, and
 * MHD then closes it. The list is guarded by a mutex (MHD's pool threads and the sweeper). Log lines of one
 * source have a budget (5 per 10 s; the rest are counted and said with the next line), each source its own,
 * so libmicrohttpd's chatter about closed connections never crowds out the sweeper's line about the
 * connections it cut.
 */
#include "server/http/conn.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/log.h"

/* Every open connection, with the time by which its current request must have arrived whole (0: none, a
 * handler has it). The sweeper thread shuts down the socket of one past its deadline; MHD then closes it. */
struct tracked {
    struct tracked *prev, *next;
    int fd;
    double deadline;
};

static pthread_mutex_t tracked_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tracked *tracked_head;
static pthread_t sweeper;
static atomic_bool sweeper_stop;
static double request_timeout = 30; /* seconds for a whole request to arrive (conn_sweeper_start) */

static void track_deadline(struct MHD_Connection *conn, double deadline)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct tracked *t = ci ? ci->socket_context : NULL;

    if (!t)
        return;
    pthread_mutex_lock(&tracked_lock);
    t->deadline = deadline;
    pthread_mutex_unlock(&tracked_lock);
}

void conn_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                 enum MHD_ConnectionNotificationCode toe)
{
    struct tracked *t = *socket_context;
    const union MHD_ConnectionInfo *ci;

    (void)cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        if (!(ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD)) ||
            !(t = calloc(1, sizeof(*t))))
            return;
        t->fd = ci->connect_fd;
        t->deadline = clock_now() + request_timeout;
        pthread_mutex_lock(&tracked_lock);
        t->next = tracked_head;
        if (tracked_head)
            tracked_head->prev = t;
        tracked_head = t;
        pthread_mutex_unlock(&tracked_lock);
        *socket_context = t;
    } else if (t) {
        pthread_mutex_lock(&tracked_lock);
        if (t->prev)
            t->prev->next = t->next;
        else
            tracked_head = t->next;
        if (t->next)
            t->next->prev = t->prev;
        pthread_mutex_unlock(&tracked_lock);
        free(t);
        *socket_context = NULL;
    }
}

/* A log line's budget: at most 5 lines per 10 s window; the rest are counted and said with the next line. */
struct log_limit {
    pthread_mutex_t lock;
    double window;
    unsigned written, dropped;
};

/* Each source has its own budget, so libmicrohttpd's chatter about closed connections never crowds out the
 * sweeper's line about the connections it cut (an operator's signal of slow senders). */
static struct log_limit mhd_limit = {.lock = PTHREAD_MUTEX_INITIALIZER};
static struct log_limit sweep_limit = {.lock = PTHREAD_MUTEX_INITIALIZER};

static bool log_allowed(struct log_limit *l, unsigned *suppressed)
{
    double now = clock_now();
    bool ok;

    pthread_mutex_lock(&l->lock);
    if (now - l->window > 10) {
        l->window = now;
        l->written = 0;
    }
    ok = l->written < 5;
    if (ok) {
        l->written++;
        *suppressed = l->dropped;
        l->dropped = 0;
    } else {
        l->dropped++;
    }
    pthread_mutex_unlock(&l->lock);
    return ok;
}

static void *sweep(void *arg)
{
    (void)arg;
    while (!sweeper_stop) {
        double now = clock_now();
        unsigned cut = 0, suppressed = 0;

        pthread_mutex_lock(&tracked_lock);
        for (struct tracked *t = tracked_head; t; t = t->next)
            if (t->deadline > 0 && now > t->deadline) {
                shutdown(t->fd, SHUT_RDWR);
                t->deadline = 0;
                cut++;
            }
        pthread_mutex_unlock(&tracked_lock);
        if (cut && log_allowed(&sweep_limit, &suppressed))
            log_info(
                "closed %u connection(s) whose request did not arrive within %.0f s (%u lines suppressed)",
                cut, request_timeout, suppressed);
        usleep(250 * 1000);
    }
    return NULL;
}

/* MHD's own lines. One that says a response could not be sent because the socket is gone ("Failed to send the
 * chunked response body ... The socket is no longer available for sending", a reset, a broken pipe) is a
 * client that left, a normal end for an event stream (issue 25: leaving a Job page logged it): debug. */
static bool mhd_client_left(const char *line)
{
    return !strncmp(line, "Failed to send", 14) &&
           (strstr(line, "no longer available") || strstr(line, "reset") || strstr(line, "broken pipe") ||
            strstr(line, "Broken pipe"));
}

void conn_mhd_log(void *cls, const char *fmt, va_list ap)
{
    char line[512];
    unsigned suppressed = 0;

    (void)cls;
    vsnprintf(line, sizeof(line), fmt, ap);
    if (mhd_client_left(line)) {
        log_debug("libmicrohttpd: %.*s", (int)strcspn(line, "\n"), line);
        return;
    }
    if (log_allowed(&mhd_limit, &suppressed))
        log_info("libmicrohttpd: %.*s%s", (int)strcspn(line, "\n"), line,
                 suppressed ? " (and more lines like it suppressed)" : "");
}

void conn_expect_request(struct MHD_Connection *conn)
{
    track_deadline(conn, clock_now() + request_timeout);
}

void conn_arrived(struct MHD_Connection *conn)
{
    track_deadline(conn, 0);
}

int conn_sweeper_start(double request_timeout_s)
{
    request_timeout = request_timeout_s;
    sweeper_stop = false;
    return pthread_create(&sweeper, NULL, sweep, NULL) ? -1 : 0;
}

void conn_sweeper_stop(void)
{
    sweeper_stop = true;
    pthread_join(sweeper, NULL);
}
