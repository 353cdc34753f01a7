/*
 * slurm_fleet: the Slurm executor's side of the fleet. On the executor's thread, each tick: every
 * slurm_nodes_s, the partition's nodes from sinfo -N into slurm_nodes (their state for the Fleet and Health
 * pages; a node the executor runs jobs for becomes a platform <node>/gpu0 or <node>/cpu0 from its gres before
 * any run: schema/functions/slurm.sql); and the health events of platforms on Slurm nodes acted on once each
 * (alerts.slurm_done): a raised event drains the node with Reason="ppbench: <problem> <x> below baseline
 * <y>", a recovery (a passing run of that problem) resumes it when the drain is ppbench's own. On HTTP pool
 * threads: the check of a job's partition and gres at submission, against sinfo's answer kept for
 * SLURM_CHECK_TTL_S (one sinfo call per TTL, under a mutex, whichever thread asks first).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "server/db.h"
#include "server/slurm/slurm.h"

#define SLURM_CHECK_TTL_S     30
#define SLURM_FLEET_TIMEOUT_S 30

/* ---- the partition's nodes (executor thread) ---- */

static double next_nodes; /* executor thread only */

void slurm_fleet_refresh_soon(void)
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

/* ---- health events: drain, resume (executor thread) ---- */

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
            slurm_fleet_refresh_soon();
        }
    }
    PQclear(res);
}

void slurm_fleet_tick(void)
{
    act_on_alerts();
    refresh_nodes();
}

/* ---- a job's partition and gres at submission (HTTP pool threads) ---- */

static pthread_mutex_t check_lock = PTHREAD_MUTEX_INITIALIZER;
static char check_out[65536]; /* "partition|gres" lines of sinfo -a; under check_lock */
static double check_at = -1e9;

/* Whether one of a partition's gres lists ("gpu:h100:4(S:0-1),nic:1") offers the request's name and type
 * ("gpu:1", "gpu:h100:2", "gpu"). */
static bool gres_offers(const char *list, const char *want)
{
    char name[64], type[64] = "";
    size_t n = strcspn(want, ":");
    const char *rest = want + n;

    snprintf(name, sizeof(name), "%.*s", (int)n, want);
    if (*rest == ':' && rest[1] && !strchr("0123456789", rest[1]))
        snprintf(type, sizeof(type), "%.*s", (int)strcspn(rest + 1, ":"), rest + 1);
    for (const char *g = list; g && *g; g = strchr(g, ',') ? strchr(g, ',') + 1 : NULL) {
        size_t gn = strcspn(g, ":,(");
        if (gn != strlen(name) || strncmp(g, name, gn))
            continue;
        if (!type[0])
            return true;
        if (g[gn] == ':' && !strncmp(g + gn + 1, type, strlen(type)) &&
            strchr(":,(", g[gn + 1 + strlen(type)] ? g[gn + 1 + strlen(type)] : ','))
            return true;
    }
    return false;
}

int slurm_target_check(const char *partition, const char *gres, const char **field, char *msg, size_t size)
{
    const char *argv[] = {slurm_config()->slurm_sinfo, "-h", "-a", "-o", "%R|%G", NULL};
    struct pp_error err;
    bool part_found = false, gres_found = !gres;
    int rc = 0;

    pthread_mutex_lock(&check_lock);
    if (clock_now() - check_at > SLURM_CHECK_TTL_S) {
        if ((rc = slurm_exec(argv, check_out, sizeof(check_out), SLURM_FLEET_TIMEOUT_S, &err)) != 0) {
            log_warn("slurm: sinfo for the check of a job's partition: %s; the job is accepted",
                     rc < 0 ? err.msg : slurm_last_line(check_out));
            pthread_mutex_unlock(&check_lock);
            return 0; /* Slurm away: the executor retries the submission, as it does */
        }
        check_at = clock_now();
    }
    for (const char *l = check_out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        size_t pn = strcspn(l, "|\n");
        if (pn != strlen(partition) || strncmp(l, partition, pn) || l[pn] != '|')
            continue;
        part_found = true;
        char list[1024];
        snprintf(list, sizeof(list), "%.*s", (int)strcspn(l + pn + 1, "\n"), l + pn + 1);
        gres_found = gres_found || gres_offers(list, gres);
    }
    pthread_mutex_unlock(&check_lock);
    if (!part_found) {
        *field = "slurm.partition";
        snprintf(msg, size, "slurm has no partition \"%s\"", partition);
        return 1;
    }
    if (!gres_found) {
        *field = "slurm.gres";
        snprintf(msg, size, "no node of slurm partition %s has gres \"%s\"", partition, gres);
        return 1;
    }
    return 0;
}
