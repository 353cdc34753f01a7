/*
 * api/health: fleet health over the API: GET /api/v1/health (every platform's state), POST
 * /api/v1/health/clear (an admin clears a platform's attention), the operator's baseline floors, and each
 * platform's baselines with the verdicts behind them. What they read is what judging decided
 * (server/fleet/health.c, schema/functions/judge.sql, health.sql). HTTP pool threads; one statement a
 * request.
 */
#include "server/api/health.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/suite.h"
#include "lib/log.h"
#include "lib/peak.h"
#include "server/api/api.h"
#include "server/http/fields.h"
#include "server/http/parse.h"

static const char health_sql[] = "SELECT health_doc($1)::text";

static const char clear_sql[] = "SELECT health_clear($1, $2), EXISTS (SELECT 1 FROM platforms WHERE id = $1)";

static const char floors_sql[] =
    "SELECT jsonb_build_object('floors', coalesce(jsonb_agg(jsonb_build_object('device', device, 'suite', "
    "suite, "
    "'kernel', kernel, 'precision', precision, 'floor_bytes_per_s', floor, 'set_at', set_at) "
    "ORDER BY device, suite, kernel, precision), '[]'))::text FROM baseline_floors";

static const char floor_set_sql[] =
    "INSERT INTO baseline_floors (device, suite, kernel, precision, floor) VALUES ($1, $2, $3, $4, $5) "
    "ON CONFLICT (device, suite, kernel, precision) DO UPDATE SET floor = EXCLUDED.floor, set_at = now() "
    "RETURNING jsonb_build_object('device', device, 'suite', suite, 'kernel', kernel, 'precision', "
    "precision, "
    "'floor_bytes_per_s', floor, 'set_at', set_at)::text";

static const char floor_delete_sql[] =
    "WITH d AS (DELETE FROM baseline_floors WHERE (device, suite, kernel, precision) = ($1, $2, $3, $4) "
    "RETURNING 1) SELECT jsonb_build_object('deleted', count(*))::text FROM d";

/* The evidence of a platform's health: its state, its baselines (with the band each judges within now) and
 * its latest 100 verdicts, or only result $2's (with the band each result was judged against), and the
 * settings of the band. */
static const char baselines_sql[] =
    "SELECT jsonb_build_object('platform', $1::text, "
    "'health', (SELECT to_jsonb(h) - 'platform_id' FROM platform_health h WHERE h.platform_id = $1), "
    "'judging', (SELECT jsonb_build_object('window_k', window_k, 'min_results', min_results, 'z_limit', "
    "z_limit, 'min_band', min_band, 'outlier_mads', outlier_mads) FROM judge_settings), "
    "'baselines', coalesce((SELECT jsonb_agg(to_jsonb(b) - 'platform_id' || jsonb_build_object('band', "
    "judge_band(b.median, b.mad, b.n)) ORDER BY b.suite, b.kernel, b.model, b.precision, b.size, b.variant) "
    "FROM baselines b WHERE b.platform_id = $1), '[]'), "
    "'verdicts', coalesce((SELECT jsonb_agg(to_jsonb(v) - 'platform_id' || jsonb_build_object('band', "
    "judge_band(v.baseline_median, v.baseline_mad, v.baseline_n)) ORDER BY v.result_id DESC) FROM "
    "(SELECT * FROM result_verdicts WHERE platform_id = $1 AND ($2::bigint IS NULL OR result_id = $2) "
    "ORDER BY result_id DESC LIMIT 100) v), "
    "'[]'))::text, "
    "EXISTS (SELECT 1 FROM platforms WHERE id = $1)";

int health_get(struct request *r)
{
    char stale[24];
    int st;

    if ((st = req_check_query(r, "")))
        return st;
    snprintf(stale, sizeof(stale), "%ld", api_settings()->lease_s);
    const char *p[1] = {stale};
    return api_reply_value(r, health_sql, 1, p, NULL, NULL);
}

int health_clear(struct request *r)
{
    static const char *const fields[] = {"platform", NULL};
    const char *platform;
    char by[32];
    struct db_error err;
    PGresult *res;
    int st;

    if ((st = fields_only(r, r->json, "", fields)) || (st = fields_string(r, "platform", 160, &platform)))
        return st;
    snprintf(by, sizeof(by), "token %lld", r->token_id);
    const char *p[2] = {platform, by};
    if (!(res = db_query(clear_sql, 2, p, &err)))
        return api_db_fail(r, &err);
    if (strcmp(PQgetvalue(res, 0, 1), "t"))
        st = req_fail(r, ERR_UNKNOWN_PLATFORM, "platform", "unknown platform \"%s\"", platform);
    else {
        json_t *reply =
            json_pack("{s:s, s:b}", "platform", platform, "cleared", !strcmp(PQgetvalue(res, 0, 0), "t"));
        r->reply = reply;
        st = 200;
        log_notice("request=%s platform=%s health cleared by %s", r->id, platform, by);
    }
    PQclear(res);
    return st;
}

int health_floors_get(struct request *r)
{
    int st;

    if ((st = req_check_query(r, "")))
        return st;
    return api_reply_value(r, floors_sql, 0, NULL, NULL, NULL);
}

/* {"device", "suite", "kernel", "precision", "floor_bytes_per_s"}: set a floor; floor_bytes_per_s null
 * deletes it. */
int health_floors_set(struct request *r)
{
    static const char *const fields[] = {"device", "suite", "kernel", "precision", "floor_bytes_per_s", NULL};
    const char *device, *suite, *kernel, *precision;
    json_t *floor = json_object_get(r->json, "floor_bytes_per_s");
    const struct suite *s;
    char floor_s[40];
    int st;

    if ((st = fields_only(r, r->json, "", fields)) || (st = fields_string(r, "device", 256, &device)) ||
        (st = fields_string(r, "suite", 32, &suite)) || (st = fields_string(r, "kernel", 32, &kernel)) ||
        (st = fields_string(r, "precision", 8, &precision)))
        return st;
    if (!(s = suite_find(suite)))
        return req_fail(r, ERR_UNKNOWN_SUITE, "suite", "unknown suite \"%s\"", suite);
    if (suite_kernel_index(s, kernel) < 0)
        return req_fail(r, ERR_UNKNOWN_KERNEL, "kernel", "suite %s has no kernel \"%s\"", suite, kernel);
    if (strcmp(precision, "fp32") && strcmp(precision, "fp64"))
        return req_fail(r, ERR_INVALID_VALUE, "precision", "precision must be fp32 or fp64");
    if (!floor)
        return req_fail(r, ERR_MISSING_FIELD, "floor_bytes_per_s",
                        "floor_bytes_per_s is required (null deletes)");
    const char *p[5] = {device, suite, kernel, precision, floor_s};
    if (json_is_null(floor))
        return api_reply_value(r, floor_delete_sql, 4, p, NULL, NULL);
    if (!json_is_number(floor) || !pp_peak_ok(json_number_value(floor))) /* a floor is below a peak */
        return req_fail(r, ERR_OUT_OF_RANGE, "floor_bytes_per_s",
                        "floor_bytes_per_s must be a number of bytes/s above 0 and at most %g",
                        PP_PEAK_MAX_BYTES_PER_S);
    snprintf(floor_s, sizeof(floor_s), "%.17g", json_number_value(floor));
    return api_reply_value(r, floor_set_sql, 5, p, NULL, NULL);
}

int health_baselines(struct request *r)
{
    const char *platform = req_query(r, "platform"), *result = req_query(r, "result");
    struct db_error err;
    PGresult *res;
    int st;

    if ((st = req_check_query(r, "platform,result")))
        return st;
    if (!platform)
        return req_fail(r, ERR_MISSING_PARAMETER, "platform", "platform is required");
    if (result && !parse_id(result))
        return req_fail(r, ERR_INVALID_PARAMETER, "result", "result must be a result id");
    const char *p[2] = {platform, result};
    if (!(res = db_query(baselines_sql, 2, p, &err)))
        return api_db_fail(r, &err);
    st = strcmp(PQgetvalue(res, 0, 1), "t")
             ? req_fail(r, ERR_UNKNOWN_PLATFORM, "platform", "unknown platform \"%s\"", platform)
             : req_reply_text(r, 200, strdup(PQgetvalue(res, 0, 0)), NULL);
    PQclear(res);
    return st;
}
