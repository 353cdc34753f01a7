/*
 * schedule: the firing of recurring job sets (the schedules table; schema/functions/schedules.sql). The
 * notifier thread calls schedule_tick every second: each due schedule is claimed with FOR UPDATE SKIP LOCKED
 * and fired (schedule_fire: one job per matching platform with a live worker, one whose heartbeat is within
 * stale_s, tagged schedule:<id>) in the
 * statement that moves its due time on, so several ppbenchd on one database submit a firing once, and a
 * schedule missed while none ran fires once. A spec that has no next time pauses its schedule. The API that
 * makes and changes schedules is server/api/schedule.c.
 */
#include "server/fleet/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lib/cron.h"
#include "lib/log.h"
#include "server/db.h"

static const char due_sql[] =
    "SELECT id, spec, floor(extract(epoch FROM due_at))::bigint, floor(extract(epoch FROM now()))::bigint, "
    "extract(epoch FROM now())::text FROM schedules WHERE NOT paused AND due_at <= now() ORDER BY due_at "
    "LIMIT 64";

static const char fire_sql[] =
    "UPDATE schedules s SET due_at = to_timestamp($2), last_fired_at = to_timestamp($3::float8), "
    "last_job_ids = "
    "schedule_fire(s.id, $4::float8), "
    "fired = s.fired + 1 FROM (SELECT id FROM schedules WHERE id = $1 AND NOT paused AND due_at <= now() "
    "FOR UPDATE SKIP LOCKED) c WHERE s.id = c.id RETURNING s.name, cardinality(s.last_job_ids)";

static const char stuck_sql[] = "UPDATE schedules SET paused = true WHERE id = $1";

void schedule_tick(long stale_s)
{
    struct db_error err;
    PGresult *due, *res;

    if (!(due = db_query(due_sql, 0, NULL, &err)))
        return;
    for (int i = 0; i < PQntuples(due); i++) {
        const char *id = PQgetvalue(due, i, 0), *spec = PQgetvalue(due, i, 1);
        time_t prev = (time_t)atoll(PQgetvalue(due, i, 2)), now = (time_t)atoll(PQgetvalue(due, i, 3)), next;
        struct cron c;
        struct pp_error perr;
        char next_s[24];

        if (cron_parse(&c, spec, &perr) || cron_next(&c, prev, now, &next)) {
            log_warn("schedule=%s spec \"%s\" has no next time: paused", id, spec);
            const char *p1[1] = {id};
            if ((res = db_query(stuck_sql, 1, p1, &err)))
                PQclear(res);
            continue;
        }
        snprintf(next_s, sizeof(next_s), "%lld", (long long)next);
        /* The firing is recorded at the time the next due time was computed from, so the next one is after it
         * even when the update runs late on a loaded server (it used the update's own now()). */
        char stale[24];
        snprintf(stale, sizeof(stale), "%ld", stale_s);
        const char *p[4] = {id, next_s, PQgetvalue(due, i, 4), stale};
        if (!(res = db_query(fire_sql, 4, p, &err)))
            continue;
        if (PQntuples(res)) /* none: another ppbenchd holds it, or fired it first */
            log_notice("schedule=%s name=%s fired: %s jobs", id, PQgetvalue(res, 0, 0),
                       PQgetvalue(res, 0, 1));
        PQclear(res);
    }
    PQclear(due);
}
