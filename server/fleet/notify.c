/*
 * notify: the notifier, one thread with its own database connections (a LISTEN connection and the reaper's
 * thread-local one). On NOTIFY and once a second it wakes the suspended requests (server/http/http.c); once a
 * second it reaps expired leases, timed-out jobs and jobs queued too long, and runs the fleet's ticks:
 * judging (health.c, also at once when results were queued) and due schedules (schedule.c). Survives the
 * database going away: it reconnects every second and keeps waking waiters so long polls end.
 */
#include "server/fleet/notify.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "server/db.h"
#include "server/fleet/health.h"
#include "server/fleet/schedule.h"
#include "server/http/http.h"

struct notifier {
    pthread_t thread;
    atomic_bool stop;
};

static atomic_long lease_s = 30;            /* the grace past a job's timeout (notify_configure) */
static atomic_long queue_timeout_s = 86400; /* the longest a job stays queued */

/* A lease that expired is a failure of the job's run (042_attempts: only failures spend max_attempts): the
 * job goes back to the queue with a note saying so, or fails once its failures reach max_attempts. */
static const char requeue_sql[] =
    "WITH o AS (SELECT id, failures + 1 < max_attempts AS again, "
    "  format('worker lost: the lease expired on run %s (failure %s of %s)', attempts, failures + 1, "
    "max_attempts) AS why "
    "  FROM jobs WHERE state = 'running' AND lease_expires < now() FOR UPDATE SKIP LOCKED) "
    "UPDATE jobs SET state = CASE WHEN o.again THEN 'queued' ELSE 'failed' END, failures = failures + 1, "
    "note = CASE WHEN o.again THEN 're-queued: ' || o.why ELSE note END, "
    "error = CASE WHEN o.again THEN error ELSE o.why END, "
    "finished_at = CASE WHEN o.again THEN NULL ELSE now() END, "
    "worker_id = CASE WHEN o.again THEN NULL ELSE worker_id END, "
    "lease_expires = NULL, claimed_at = CASE WHEN o.again THEN NULL ELSE claimed_at END, "
    "progress = CASE WHEN o.again THEN 0 ELSE progress END "
    "FROM o WHERE jobs.id = o.id RETURNING jobs.id, jobs.state";

/* The worker enforces timeout_s itself; this is the backstop for a worker that heartbeats but never ends. */
static const char timeout_sql[] =
    "UPDATE jobs SET state = 'failed', error = format('timeout: no result %s s after the claim', timeout_s), "
    "finished_at = now(), lease_expires = NULL "
    "WHERE state = 'running' AND claimed_at + make_interval(secs => timeout_s + $1) < now() RETURNING id";

/* A queued job no worker took within queue_timeout_s of entering the queue (jobs.queued_at, set again by the
 * trigger jobs_queued_at whenever a job goes back to the queue) fails, saying so.
 * A job the Slurm executor owns (slurm_state) waits in Slurm's queue by the executor's rules instead. */
static const char queue_timeout_sql[] =
    "UPDATE jobs SET state = 'failed', finished_at = now(), "
    "error = format('queued for more than %s s: no worker took it', $1::int) "
    "WHERE state = 'queued' AND slurm_state IS NULL AND queued_at < now() - make_interval(secs => $1::int) "
    "RETURNING id";

static void reap(void)
{
    char grace[24], queue[24];
    const char *params[1] = {grace}, *qparams[1] = {queue};
    struct db_error err;
    PGresult *res;

    if ((res = db_query(requeue_sql, 0, NULL, &err))) {
        for (int i = 0; i < PQntuples(res); i++)
            log_notice("job=%s lease expired: %s", PQgetvalue(res, i, 0), PQgetvalue(res, i, 1));
        PQclear(res);
    }
    snprintf(grace, sizeof(grace), "%ld", atomic_load(&lease_s));
    if ((res = db_query(timeout_sql, 1, params, &err))) {
        for (int i = 0; i < PQntuples(res); i++)
            log_notice("job=%s failed: timeout", PQgetvalue(res, i, 0));
        PQclear(res);
    }
    snprintf(queue, sizeof(queue), "%ld", atomic_load(&queue_timeout_s));
    if ((res = db_query(queue_timeout_sql, 1, qparams, &err))) {
        for (int i = 0; i < PQntuples(res); i++)
            log_notice("job=%s failed: queued for more than %s s", PQgetvalue(res, i, 0), queue);
        PQclear(res);
    }
}

static PGconn *listen_conn(void)
{
    struct db_error err;
    PGconn *c = db_connect(&err);
    PGresult *res;

    if (!c)
        return NULL;
    res = PQexec(c, "LISTEN ppbench; LISTEN ppbench_judge");
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        PQclear(res);
        PQfinish(c);
        return NULL;
    }
    PQclear(res);
    return c;
}

static void *run(void *arg)
{
    struct notifier *n = arg;
    PGconn *c = NULL;
    double next_tick = 0;
    bool judge_more = false; /* results still queued after the last batch */

    while (!n->stop) {
        double now = clock_now();
        bool woke = false, judge = judge_more;

        if (!c && !(c = listen_conn())) {
            http_wake_all();
            struct pollfd none = {.fd = -1};
            poll(&none, 0, 1000);
            continue;
        }
        struct pollfd pfd = {.fd = PQsocket(c), .events = POLLIN};
        int timeout_ms = (int)((next_tick - now) * 1000);
        if (judge)
            timeout_ms = 0;
        if (poll(&pfd, 1, timeout_ms > 0 ? (timeout_ms < 1000 ? timeout_ms : 1000) : 0) > 0) {
            if (!PQconsumeInput(c)) {
                log_warn("notify: listen connection lost: %.*s", (int)strcspn(PQerrorMessage(c), "\n"),
                         PQerrorMessage(c));
                PQfinish(c);
                c = NULL;
                continue;
            }
            PGnotify *nt;
            while ((nt = PQnotifies(c))) {
                if (strcmp(nt->relname, "ppbench_judge") == 0)
                    judge = true;
                else
                    woke = true;
                PQfreemem(nt);
            }
        }
        if (woke)
            http_wake_all();
        if (judge || clock_now() >= next_tick)
            judge_more = health_judge();
        if (clock_now() >= next_tick) {
            reap();
            health_sync();
            health_compact();
            schedule_tick(atomic_load(&lease_s));
            http_wake_all();
            next_tick = clock_now() + 1.0;
        }
    }
    PQfinish(c);
    db_thread_close();
    return NULL;
}

void notify_configure(long lease, long queue_timeout)
{
    atomic_store(&lease_s, lease);
    atomic_store(&queue_timeout_s, queue_timeout);
}

int notify_start(struct notifier **out, struct pp_error *err)
{
    struct notifier *n = calloc(1, sizeof(*n));

    if (!n)
        return pp_error_set(err, "out of memory");
    if (pthread_create(&n->thread, NULL, run, n)) {
        free(n);
        return pp_error_set(err, "cannot start the notifier thread");
    }
    *out = n;
    return 0;
}

void notify_stop(struct notifier *n)
{
    if (!n)
        return;
    n->stop = true;
    pthread_join(n->thread, NULL);
    free(n);
}
