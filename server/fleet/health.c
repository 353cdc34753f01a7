/*
 * health: fleet health's judging, on the notifier thread (fleet/notify.c). Judging itself is SQL, in the
 * statement trigger that queues every stored result and in judge_pending (schema/functions/judge.sql; the
 * tables in schema/012_fleet.sql), so that every path that stores a result is judged once and a statement of
 * many results is judged set-based; this file carries the settings there (health_sync), judges the queue a
 * batch at a time (health_judge: HEALTH_JUDGE_BATCH results a call, again until the queue is empty; one judge
 * at a time, judge_pending taking an advisory lock, whichever ppbenchd calls) and folds the peer groups'
 * pending changes once a second (health_compact).
 * The settings are set by the main thread and written by the notifier thread. What judging decided is
 * served by server/api/health.c.
 */
#include "server/fleet/health.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "server/db.h"

static pthread_mutex_t settings_lock = PTHREAD_MUTEX_INITIALIZER;
static struct health_settings settings = {20, 5, 4, 2, 3, 4};
static atomic_bool settings_dirty = true;

static const char sync_sql[] =
    "UPDATE judge_settings SET window_k = $1, min_results = $2, z_limit = $3, min_band = $4::float8 / 100, "
    "outlier_mads = $5, outlier_min_peers = $6";

void health_configure(const struct health_settings *s)
{
    pthread_mutex_lock(&settings_lock);
    settings = *s;
    pthread_mutex_unlock(&settings_lock);
    settings_dirty = true;
}

void health_sync(void)
{
    struct health_settings s;
    struct db_error err;
    char v[6][24];
    PGresult *res;

    if (!atomic_exchange(&settings_dirty, false))
        return;
    pthread_mutex_lock(&settings_lock);
    s = settings;
    pthread_mutex_unlock(&settings_lock);
    snprintf(v[0], sizeof(v[0]), "%ld", s.window_k);
    snprintf(v[1], sizeof(v[1]), "%ld", s.min_results);
    snprintf(v[2], sizeof(v[2]), "%ld", s.z_limit);
    snprintf(v[3], sizeof(v[3]), "%ld", s.min_band_percent);
    snprintf(v[4], sizeof(v[4]), "%ld", s.outlier_mads);
    snprintf(v[5], sizeof(v[5]), "%ld", s.outlier_peers);
    const char *p[6] = {v[0], v[1], v[2], v[3], v[4], v[5]};
    if (!(res = db_query(sync_sql, 6, p, &err))) {
        settings_dirty = true; /* try again on the next tick */
        return;
    }
    PQclear(res);
}

void health_compact(void)
{
    struct db_error err;
    PGresult *res = db_query("SELECT peer_groups_compact()", 0, NULL, &err);

    if (!res && !err.unavailable) /* the changes wait for the next tick; judging reads them meanwhile */
        log_warn("peer groups: folding the pending changes failed: %s", err.e.msg);
    PQclear(res);
}

bool health_judge(void)
{
    char batch[16];
    const char *p[1] = {batch};
    struct db_error err;
    PGresult *res;
    bool more;

    snprintf(batch, sizeof(batch), "%d", HEALTH_JUDGE_BATCH);
    if (!(res = db_query("SELECT judge_pending($1)", 1, p, &err))) {
        if (!err.unavailable) /* the queue keeps them; the next tick tries again */
            log_warn("judging: %s", err.e.msg);
        return false;
    }
    more = atoi(PQgetvalue(res, 0, 0)) >= HEALTH_JUDGE_BATCH;
    PQclear(res);
    return more;
}
