/*
 * api_fleet: read-only views of the fleet and the results, health and readiness, the suite catalogue and the
 * OpenAPI document. HTTP pool threads. The JSON is built by PostgreSQL (one query a request).
 */
#include "api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/catalog.h"
#include "server/migrate.h"

extern const char pp_openapi_json[]; /* docs/openapi.json, embedded by the Makefile */

static const char platforms_sql[] =
    "SELECT jsonb_build_object('platforms', coalesce(jsonb_agg(jsonb_build_object("
    "  'id', p.id, 'host', h.name, 'local_id', p.local_id, 'kind', p.kind, 'name', p.name, 'vendor', "
    "p.vendor, "
    "  'uuid', p.uuid, 'pci_bus_id', p.pci_bus_id, 'memory_bytes', p.memory_bytes, "
    "  'compute_units', p.compute_units, 'peak_bandwidth_bytes_per_s', p.peak_bandwidth, "
    "  'peak_source', p.peak_source, 'models', to_jsonb(p.models), 'last_seen', p.last_seen, "
    "  'worker', (SELECT jsonb_build_object('id', w.id, 'last_heartbeat', w.last_heartbeat, 'state', "
    "     CASE WHEN w.last_heartbeat < now() - make_interval(secs => $1) THEN 'stale' ELSE w.state END) "
    "     FROM workers w WHERE w.platform_id = p.id AND w.state <> 'gone' ORDER BY w.id DESC LIMIT 1)"
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

#define RESULTS_FILTER                                                                                       \
    "FROM results r WHERE ($1::text IS NULL OR r.suite = $1) AND ($2::text IS NULL OR r.kernel = $2) "       \
    "AND ($3::text IS NULL OR r.platform_id = $3) AND ($4::text IS NULL OR r.model = $4) "                   \
    "AND ($5::timestamptz IS NULL OR r.created_at >= $5) "

static const char results_sql[] =
    "SELECT jsonb_build_object('results', coalesce(jsonb_agg(result_doc(x) ORDER BY x.id DESC), '[]'))::text "
    "FROM (SELECT r.* " RESULTS_FILTER "ORDER BY r.id DESC LIMIT $6) x";

/* BabelStream's CSV columns, one row per stored kernel result. */
static const char results_csv_sql[] =
    "SELECT 'function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime' || "
    "chr(10) || coalesce(string_agg(concat_ws(',', initcap(x.kernel), "
    "coalesce(cardinality(x.times_s), (x.provenance->>'num_times')::int), x.size, "
    "CASE x.precision WHEN 'fp32' THEN 4 ELSE 8 END, round((x.bandwidth * 1e-6)::numeric, 6), x.min_s, "
    "x.max_s, "
    "x.mean_s), chr(10) ORDER BY x.id DESC) || chr(10), '') "
    "FROM (SELECT r.* " RESULTS_FILTER "ORDER BY r.id DESC LIMIT $6) x";

/* The P3 analysis library's columns: one row per problem, platform and application (schema/003_pp.sql). */
static const char results_p3_sql[] = "SELECT pp_p3_csv($1, $2, $3, $4, $5::timestamptz, $6::bigint)";

static const char ready_sql[] = "SELECT count(*) FROM schema_migrations";

static int reply_query(struct request *r, const char *sql, int n, const char *const *params, const char *type)
{
    struct db_error dberr;
    PGresult *res = db_query(sql, n, params, &dberr);
    int st;

    if (!res)
        return api_db_fail(r, &dberr);
    st = req_reply_text(r, 200, strdup(PQgetvalue(res, 0, 0)), type);
    PQclear(res);
    return st;
}

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
    return st ? st : reply_query(r, platforms_sql, 1, params, NULL);
}

int fleet_hosts(struct request *r)
{
    int st = req_check_query(r, "");
    return st ? st : reply_query(r, hosts_sql, 0, NULL, NULL);
}

int fleet_workers(struct request *r)
{
    char lease[24];
    const char *params[1] = {lease_param(lease, sizeof(lease))};
    int st = req_check_query(r, "");
    return st ? st : reply_query(r, workers_sql, 1, params, NULL);
}

int fleet_results(struct request *r)
{
    const char *format = req_query(r, "format"), *limit_s = req_query(r, "limit"),
               *since = req_query(r, "since");
    long long limit = 1000;
    char lim[24];
    int st;

    if ((st = req_check_query(r, "suite,kernel,platform,model,since,limit,format")))
        return st;
    if (format && strcmp(format, "json") && strcmp(format, "csv") && strcmp(format, "p3"))
        return req_fail(r, ERR_INVALID_PARAMETER, "format", "format must be json, csv or p3");
    if (limit_s && ((limit = api_parse_id(limit_s)) < 1 || limit > 100000))
        return req_fail(r, ERR_INVALID_PARAMETER, "limit", "limit must be from 1 to 100000");
    if (since && strspn(since, "0123456789-:TZ.+ ") != strlen(since))
        return req_fail(r, ERR_INVALID_PARAMETER, "since", "since must be an RFC 3339 time");
    snprintf(lim, sizeof(lim), "%lld", limit);
    const char *params[6] = {req_query(r, "suite"),
                             req_query(r, "kernel"),
                             req_query(r, "platform"),
                             req_query(r, "model"),
                             since,
                             lim};
    if (format && !strcmp(format, "csv"))
        return reply_query(r, results_csv_sql, 6, params, "text/csv");
    if (format && !strcmp(format, "p3"))
        st = reply_query(r, results_p3_sql, 6, params, "text/csv");
    else
        st = reply_query(r, results_sql, 6, params, NULL);
    if (st == 500 && !strncmp(r->err.code, "internal", 8) && since)
        return req_fail(r, ERR_INVALID_PARAMETER, "since", "since must be an RFC 3339 time");
    return st;
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
    PGresult *res = db_query(ready_sql, 0, NULL, &dberr);
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
