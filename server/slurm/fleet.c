/*
 * fleet: the Slurm executor's side of the fleet, on the executor's thread at each tick: every slurm_nodes_s,
 * the partition's nodes from sinfo -N into slurm_nodes (their state for the Fleet and Health pages; a node
 * the executor runs jobs for becomes a platform <node>/gpu0 or <node>/cpu0 from its gres before any run:
 * schema/functions/slurm.sql); and the health events of platforms on Slurm nodes acted on once each
 * (alerts.slurm_done): a raised event drains the node with Reason="ppbench: <problem> <x> GB/s below baseline
 * <y> GB/s" (slurm_drain_reason, schema/functions/slurm.sql), a recovery (a passing run of that problem)
 * resumes it when the drain is ppbench's own (node.c).
 *
 * A guessed platform is replaced by the device the first `serve --once` on the node registers. The platforms
 * and Health documents join slurm_nodes by host name (schema/functions/health.sql): a platform on a Slurm
 * node shows Slurm's state, is `unavailable` while its node is down, drained or not responding
 * (slurm_unavailable), and is never a `stale_worker` (it has no resident worker); schedule_fire takes it
 * while its node can run a job. The events are claimed once each (slurm_alerts_claim: FOR UPDATE SKIP LOCKED,
 * so several ppbenchd act once); an admin's clear leaves the node alone (the operator's to resume); a Slurm
 * that cannot be reached gets the event again at the next tick. A drained node runs no Slurm job, so the
 * passing run that resumes it comes from a job already running there, or from the operator running the
 * pending job on the node after the repair (`ppbench-worker serve --once --job ID`; the executor then
 * scancels its Slurm job, still pending).
 */
#include "server/slurm/fleet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "server/db.h"
#include "server/slurm/node.h"
#include "server/slurm/slurm.h"

/* ---- the partition's nodes ---- */

static double next_nodes; /* executor thread only */

static void refresh_soon(void)
{
    next_nodes = 0;
}

static void refresh_nodes(void)
{
    const struct config *c = slurm_config();
    struct pp_error err;
    struct db_error dberr;
    json_t *nodes;
    char *doc;
    PGresult *res;

    if (clock_now() < next_nodes)
        return;
    next_nodes = clock_now() + (double)c->slurm_nodes_s;
    if (!(nodes = slurm_nodes(c->slurm_partition, &err))) {
        log_warn("slurm: the nodes of partition %s: %s", c->slurm_partition, err.msg);
        return;
    }
    doc = json_dumps(nodes, JSON_COMPACT);
    json_decref(nodes);
    const char *p[4] = {c->slurm_partition, doc ? doc : "[]", slurm_takes_kind(), slurm_takes_like()};
    if ((res = db_query("SELECT slurm_nodes_sync($1, $2::jsonb, $3, $4)", 4, p, &dberr)) &&
        atoi(PQgetvalue(res, 0, 0)) > 0)
        log_notice("slurm: %s platform(s) found on the nodes of partition %s (their first run fills them in)",
                   PQgetvalue(res, 0, 0), c->slurm_partition);
    PQclear(res);
    free(doc);
}

/* ---- health events: drain, resume ---- */

/* Slurm away (not a refusal): the event is acted on again at the next tick. */
static bool unreachable(const char *msg)
{
    return strstr(msg, "contact") || strstr(msg, "did not end") || strstr(msg, "cannot run") ||
           strstr(msg, "Unable");
}

static void act_on_alerts(void)
{
    struct db_error dberr;
    struct pp_error err;
    PGresult *res =
        db_query("SELECT id, kind, platform_id, node, reason FROM slurm_alerts_claim()", 0, NULL, &dberr);

    for (int i = 0; res && i < PQntuples(res); i++) {
        const char *id = PQgetvalue(res, i, 0), *kind = PQgetvalue(res, i, 1),
                   *platform = PQgetvalue(res, i, 2), *node = PQgetvalue(res, i, 3);
        struct slurm_node n;
        int rc;

        if (PQgetisnull(res, i, 3) || !slurm_node_name_ok(node))
            continue; /* not on a Slurm node */
        if (!strcmp(kind, "raised"))
            rc = slurm_drain(node, PQgetvalue(res, i, 4), &n, &err);
        else if (!strcmp(kind, "recovered"))
            rc = slurm_resume(node, &n, &err);
        else
            continue; /* an admin's clear: the node is the operator's to resume */
        if (rc < 0 && unreachable(err.msg)) {
            const char *p[1] = {id};
            PQclear(db_query("UPDATE alerts SET slurm_done = false WHERE id = $1", 1, p, &dberr));
            log_warn("alert=%s platform=%s slurm: %s of node %s: %s (tried again)", id, platform,
                     !strcmp(kind, "raised") ? "drain" : "resume", node, err.msg);
        } else if (rc < 0) {
            log_warn("alert=%s platform=%s slurm: %s of node %s: %s", id, platform,
                     !strcmp(kind, "raised") ? "drain" : "resume", node, err.msg);
        } else {
            log_notice("alert=%s platform=%s slurm: node %s %s: %s%s%s", id, platform, node,
                       rc == 1 ? "left alone, drained by someone else" : kind, n.state,
                       n.reason[0] ? " " : "", n.reason);
            refresh_soon();
        }
    }
    PQclear(res);
}

void slurm_fleet_tick(void)
{
    act_on_alerts();
    refresh_nodes();
}
