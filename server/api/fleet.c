/*
 * api/fleet: views of the fleet (platforms, hosts, workers), an admin's peak for a platform and the removal
 * of an imported one, health and readiness, the suite catalogue and the OpenAPI document. HTTP pool threads.
 * The JSON is built by PostgreSQL (one query a request).
 */
#include "server/api/fleet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/peak.h"
#include "server/api/api.h"
#include "server/api/catalog.h"
#include "server/http/fields.h"
#include "server/migrate.h"

extern const char pp_openapi_json[]; /* docs/openapi.json, embedded by the Makefile */

static const char platforms_sql[] =
    "SELECT jsonb_build_object('platforms', coalesce(jsonb_agg(jsonb_build_object("
    "  'id', p.id, 'host', h.name, 'local_id', p.local_id, 'kind', p.kind, 'name', p.name, 'vendor', "
    "p.vendor, "
    "  'uuid', p.uuid, 'pci_bus_id', p.pci_bus_id, 'memory_bytes', p.memory_bytes, "
    "  'compute_units', p.compute_units, 'peak_bandwidth_bytes_per_s', p.peak_bandwidth, "
    "  'peak_source', p.peak_source, 'peak_set_at', p.peak_set_at, 'models', to_jsonb(p.models), "
    "  'runners', p.runners, "
    "  'last_seen', p.last_seen, 'origin', CASE WHEN p.host_id IS NULL THEN 'import' ELSE 'worker' END, "
    "  'results', (SELECT count(*) FROM results r WHERE r.platform_id = p.id), "
    "  'worker', (SELECT jsonb_build_object('id', w.id, 'last_heartbeat', w.last_heartbeat, 'state', "
    "     CASE WHEN w.last_heartbeat < now() - make_interval(secs => $1) THEN 'stale' ELSE w.state END) "
    "     FROM workers w WHERE w.platform_id = p.id AND w.state <> 'gone' ORDER BY w.id DESC LIMIT 1), "
    /* the Slurm node it is on, as the executor's sinfo last saw it (schema/017_slurm_nodes.sql's slurm_nodes)
     */
    "  'slurm', (SELECT jsonb_build_object('node', n.name, 'partition', n.partition, 'state', n.state, "
    "     'reason', n.reason, 'gres', n.gres, 'ppbench_drain', n.ppbench_drain, 'seen_at', n.seen_at) "
    "     FROM slurm_nodes n WHERE n.name = h.name)"
    ") ORDER BY p.id), '[]'))::text FROM platforms p LEFT JOIN hosts h ON h.id = p.host_id";

static const char hosts_sql[] =
    "SELECT jsonb_build_object('hosts', coalesce(jsonb_agg(jsonb_build_object('id', h.id, 'name', h.name, "
    "  'info', h.info, 'first_seen', h.first_seen, 'last_seen', h.last_seen, 'platforms', "
    "  (SELECT coalesce(jsonb_agg(p.id ORDER BY p.id), '[]') FROM platforms p WHERE p.host_id = h.id)) "
    "  ORDER BY h.name), '[]'))::text FROM hosts h";

static const char workers_sql[] =
    "SELECT jsonb_build_object('workers', coalesce(jsonb_agg(jsonb_build_object('id', w.id, 'host', h.name, "
    "  'platform', w.platform_id, 'pid', w.pid, 'version', w.version, 'state', "
    "  CASE WHEN w.state <> 'gone' AND w.last_heartbeat < now() - make_interval(secs => $1) THEN 'stale' "
    "  ELSE w.state END, 'started_at', w.started_at, 'last_heartbeat', w.last_heartbeat, 'job_id', "
    "  (SELECT j.id FROM jobs j WHERE j.worker_id = w.id AND j.state = 'running' LIMIT 1)) ORDER BY w.id), "
    "'[]'))::text "
    "FROM workers w JOIN hosts h ON h.id = w.host_id WHERE w.state <> 'gone' OR w.gone_at > now() - interval "
    "'1 hour'";

/* An admin's peak ($2 bytes/s, or NULL to drop it until the worker registers again) with its source. */
static const char peak_sql[] =
    "UPDATE platforms SET peak_bandwidth = $2::float8, peak_source = CASE WHEN $2 IS NULL THEN '' ELSE $3 "
    "END, "
    "peak_set_at = CASE WHEN $2 IS NULL THEN NULL ELSE now() END WHERE id = $1 RETURNING id";

/* Only an imported platform (no host) is removed, with its results; jobs that named it keep no platform. */
static const char platform_delete_sql[] =
    "WITH p AS (SELECT id, host_id FROM platforms WHERE id = $1), "
    "d AS (DELETE FROM platforms WHERE id = (SELECT id FROM p WHERE host_id IS NULL) RETURNING id) "
    "SELECT (SELECT count(*) FROM p), (SELECT count(*) FROM d)";

static const char ready_sql[] = "SELECT count(*) FROM schema_migrations";

static const char *lease_param(char *buf, size_t size)
{
    snprintf(buf, size, "%ld", api_settings()->lease_s);
    return buf;
}

int fleet_platforms(struct request *r)
{
    char lease[24];
    const char *params[1] = {lease_param(lease, sizeof(lease))};
    int st = req_check_query(r, "");
    return st ? st : api_reply_value(r, platforms_sql, 1, params, NULL, NULL);
}

int fleet_hosts(struct request *r)
{
    int st = req_check_query(r, "");
    return st ? st : api_reply_value(r, hosts_sql, 0, NULL, NULL, NULL);
}

int fleet_workers(struct request *r)
{
    char lease[24];
    const char *params[1] = {lease_param(lease, sizeof(lease))};
    int st = req_check_query(r, "");
    return st ? st : api_reply_value(r, workers_sql, 1, params, NULL, NULL);
}

/* The platform id of a route: {id} (an imported platform) or {host}/{device} (a worker's). */
static void route_platform(struct request *r, char *out, size_t size)
{
    if (r->nargs >= 2)
        snprintf(out, size, "%s/%s", r->args[0], r->args[1]);
    else
        snprintf(out, size, "%s", r->args[0]);
}

/* PUT {"peak_gbs": G|null, "source": "..."}. */
int fleet_platform_peak(struct request *r)
{
    static const char *const fields[] = {"peak_gbs", "source", NULL};
    json_t *peak = json_object_get(r->json, "peak_gbs"), *source = json_object_get(r->json, "source");
    char id[160], bytes[40], src[300];
    struct db_error dberr;
    PGresult *res;
    int found, st;

    route_platform(r, id, sizeof(id));
    if ((st = fields_only(r, r->json, "", fields)))
        return st;
    if (!peak)
        return req_fail(r, ERR_MISSING_FIELD, "peak_gbs", "peak_gbs is required (a number of GB/s, or null)");
    if (!json_is_null(peak) && !json_is_number(peak))
        return req_fail(r, ERR_WRONG_TYPE, "peak_gbs", "peak_gbs must be a number of GB/s, or null");
    if (json_is_number(peak) && !pp_peak_ok(json_number_value(peak) * 1e9))
        return req_fail(r, ERR_OUT_OF_RANGE, "peak_gbs", "peak_gbs must be above 0 and at most %.0f, got %g",
                        PP_PEAK_MAX_GBS, json_number_value(peak));
    if (source &&
        (!json_is_string(source) || json_string_length(source) < 1 || json_string_length(source) > 200))
        return req_fail(r, ERR_WRONG_TYPE, "source", "source must be a string of 1 to 200 characters");
    snprintf(bytes, sizeof(bytes), "%.17g", json_is_number(peak) ? json_number_value(peak) * 1e9 : 0);
    snprintf(src, sizeof(src), "admin: %s", source ? json_string_value(source) : "set over the API");
    const char *params[3] = {id, json_is_number(peak) ? bytes : NULL, src};
    if (!(res = db_query(peak_sql, 3, params, &dberr)))
        return api_db_fail(r, &dberr);
    found = PQntuples(res);
    PQclear(res);
    if (!found)
        return req_fail(r, ERR_NOT_FOUND, NULL, "no platform \"%s\"", id);
    char lease[24];
    const char *lp[1] = {lease_param(lease, sizeof(lease))};
    return api_reply_value(r, platforms_sql, 1, lp, NULL, NULL);
}

int fleet_platform_delete(struct request *r)
{
    char id[160];
    const char *params[1] = {id};
    struct db_error dberr;
    PGresult *res;
    long exists, deleted;

    route_platform(r, id, sizeof(id));
    if (!(res = db_query(platform_delete_sql, 1, params, &dberr)))
        return api_db_fail(r, &dberr);
    exists = atol(PQgetvalue(res, 0, 0));
    deleted = atol(PQgetvalue(res, 0, 1));
    PQclear(res);
    if (!exists)
        return req_fail(r, ERR_NOT_FOUND, NULL, "no platform \"%s\"", id);
    if (!deleted)
        return req_fail(r, ERR_PLATFORM_REGISTERED, NULL,
                        "platform \"%s\" was registered by a worker: only an imported platform is removed",
                        id);
    r->reply = json_pack("{s:s}", "deleted", id);
    return 200;
}

int fleet_suites(struct request *r)
{
    int st = req_check_query(r, "");
    if (st)
        return st;
    r->reply = catalog_json();
    return 200;
}

int fleet_healthz(struct request *r)
{
    r->reply = json_pack("{s:s}", "status", "ok");
    return 200;
}

int fleet_readyz(struct request *r)
{
    struct db_error dberr;
    PGresult *res = db_query_probe(ready_sql, 0, NULL, &dberr); /* a probe never waits on a stuck database */
    int applied;

    if (!res)
        return req_fail(r, ERR_NOT_READY, NULL, "the database is unavailable");
    applied = atoi(PQgetvalue(res, 0, 0));
    PQclear(res);
    if (applied < migrate_count())
        return req_fail(r, ERR_NOT_READY, NULL, "migrations applied: %d of %d", applied, migrate_count());
    r->reply = json_pack("{s:s, s:i}", "status", "ready", "migrations", applied);
    return 200;
}

int fleet_openapi(struct request *r)
{
    return req_reply_text(r, 200, strdup(pp_openapi_json), NULL);
}
