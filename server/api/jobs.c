/*
 * api/jobs: submitting, reading, listing and cancelling jobs, and their event stream. HTTP pool threads.
 * Validation is strict: every field is checked for type and range and unknown fields are refused by name, so
 * a typo never silently becomes a default.
 */
#include "server/api/jobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "lib/sweep.h"
#include "server/api/api.h"
#include "server/api/catalog.h"
#include "server/http/fields.h"
#include "server/http/parse.h"
#include "server/slurm/node.h"
#include "server/slurm/slurm.h"

/* The platform check is part of the insert: no row back means the platform is unknown or cannot run the model
 * (platform_error says which). */
/* One job per element of $6 (an array of params objects: one for a plain job, one per value of a sweep), in
 * one statement; a sweep's jobs share the tag "sweep:<uuid>" ($12 true). Returns the ids in order. */
static const char insert_sql[] =
    "WITH sw AS (SELECT CASE WHEN $12::boolean THEN 'sweep:' || gen_random_uuid() END AS tag), "
    "ins AS (INSERT INTO jobs (suite, kernels, model, platform_id, selector, params, priority, timeout_s, "
    "  max_attempts, tags, submitted_by, slurm_partition, slurm_gres) "
    "  SELECT $1, ARRAY(SELECT jsonb_array_elements_text($2::jsonb)), $3, $4, $5::jsonb, p.value, $7, $8, "
    "$9, "
    "  ARRAY(SELECT jsonb_array_elements_text($10::jsonb)) || CASE WHEN sw.tag IS NULL THEN '{}'::text[] "
    "    ELSE ARRAY[sw.tag] END, $11, $13, $14 "
    "  FROM jsonb_array_elements($6::jsonb) WITH ORDINALITY p, sw "
    "  WHERE $4::text IS NULL OR EXISTS (SELECT 1 FROM platforms WHERE id = $4 AND $3 = ANY (models)) "
    "  ORDER BY p.ordinality RETURNING id) "
    "SELECT ins.id, sw.tag FROM ins, sw ORDER BY ins.id";

/* A runner of that name that some registered platform offers (issue 27), of kind $2 and on a host LIKE $3
 * when given (a schedule's selector): its suite and kernels. */
static const char runner_sql[] =
    "SELECT x->>'suite', (x->'kernels')::text FROM platforms p LEFT JOIN hosts h ON h.id = p.host_id "
    "CROSS JOIN LATERAL jsonb_array_elements(p.runners) x "
    "WHERE x->>'name' = $1 AND ($2::text IS NULL OR p.kind = $2) AND ($3::text IS NULL OR h.name LIKE $3) "
    "ORDER BY p.last_seen DESC LIMIT 1";

/* The platform named, or else one whose id ends in it ("cpu0" for "node7/cpu0": a hint, never taken). */
static const char platform_sql[] =
    "SELECT $2 = ANY (models), array_to_string(models, ', '), id = $1, id FROM platforms "
    "WHERE id = $1 OR right(id, length($1) + 1) = '/' || $1 ORDER BY id = $1 DESC, id LIMIT 1";

static const char selector_sql[] =
    "SELECT count(*) FROM platforms p LEFT JOIN hosts h ON h.id = p.host_id "
    "WHERE $1 = ANY (p.models) AND ($2::text IS NULL OR p.kind = $2) AND ($3::text IS NULL OR h.name = $3)";

/* A job's document; a queued job also says which running job of its host holds it back (the claim's rule,
 * docs/ARCHITECTURE.md "One measurement at a time", over the exclusive_<kind> settings $2), or null, and why
 * it may wait for ever (job_warning: no worker beat within $3 s, the lease), or null. */
static const char get_sql[] =
    "WITH m AS (SELECT $2::jsonb AS m), "
    "p AS (SELECT pl.id, pl.kind, pl.host_id FROM platforms pl JOIN jobs j ON pl.id = j.platform_id "
    "  WHERE j.id = $1 AND j.state = 'queued'), "
    "run AS (SELECT r.id, r.ran_on FROM jobs r JOIN platforms rq ON rq.id = r.ran_on, p, m "
    "  WHERE r.state = 'running' AND rq.host_id = p.host_id AND (rq.id = p.id "
    "    OR coalesce(m.m->>p.kind, 'none') = 'host' OR coalesce(m.m->>rq.kind, 'none') = 'host') "
    "  ORDER BY r.claimed_at, r.id LIMIT 1) "
    "SELECT (job_doc(j, true) || jsonb_build_object('waiting', "
    "  (SELECT format('%s runs job %s', ran_on, id) FROM run), 'warning', job_warning(j, $3::float8)))::text "
    "FROM jobs j WHERE id = $1";

/* Why a just submitted job may wait for ever (no live worker for it), or no row: the answer's "warning". */
static const char warning_sql[] = "SELECT job_warning(j, $2::float8) FROM jobs j WHERE id = $1 "
                                  "AND job_warning(j, $2::float8) IS NOT NULL";

static const char list_sql[] =
    "SELECT coalesce(jsonb_agg(job_doc(j, false) ORDER BY j.id DESC), '[]')::text, min(j.id), count(*) FROM "
    "(SELECT * FROM jobs WHERE ($1::text IS NULL OR state = $1) "
    "AND ($2::text IS NULL OR platform_id = $2 OR ran_on = $2) AND ($3::bigint IS NULL OR id < $3) "
    "AND ($5::text IS NULL OR suite = $5) AND ($6::text IS NULL OR $6 = ANY (tags)) "
    "AND ($7::text IS NULL OR model = $7) ORDER BY id DESC LIMIT $4) j";

static const char cancel_sql[] =
    "UPDATE jobs SET state = 'cancelled', finished_at = now(), lease_expires = NULL "
    "WHERE id = $1 AND state IN ('queued', 'running') AND ($3 OR submitted_by = $2) "
    "RETURNING job_doc(jobs, false)::text";

static const char state_sql[] = "SELECT state, submitted_by FROM jobs WHERE id = $1";

static const char events_sql[] = "SELECT e.id, e.kind, e.data::text, j.state FROM jobs j LEFT JOIN LATERAL "
                                 "(SELECT * FROM job_events WHERE job_id = j.id AND id > $2 ORDER BY id "
                                 "LIMIT 64) e ON true WHERE j.id = $1 "
                                 "ORDER BY e.id";

/* Compact JSON of v, or a copy of empty when v is absent (new string, free()). */
static char *dump_or(json_t *v, const char *empty)
{
    return v ? json_dumps(v, JSON_COMPACT) : strdup(empty);
}

/* The job's kernels and params checked against the suite table (kernels/suite.h: the checks the worker's
 * child makes again) and completed with the defaults: new references in *kernels and *params. */
static int check_suite(struct request *r, const struct suite *s, const char *model, json_t *kernels_in,
                       json_t *params_in, json_t **kernels, json_t **params)
{
    struct suite_values v;
    struct suite_error e;

    if (suite_values_from_json(&v, s, params_in, kernels_in, &e) || suite_values_check_model(&v, model, &e))
        return req_fail(r, errors_from_code(e.code), e.field, "%s", e.msg);
    *kernels = suite_values_kernels_json(&v);
    *params = suite_values_params_json(&v);
    return 0;
}

#define SWEEP_MAX_VALUES 64

/* The job's params, one object per job, as a new array in *out: [params] for a plain job; for a sweep
 * ({"param": name, "values": [...]}) one object per value, each checked as a job of its own (the paper's
 * figures are one problem per size, so a sweep is one job, and one stored result, per size). */
static int check_params_list(struct request *r, const struct suite *s, const char *model, json_t *job,
                             json_t **kernels, json_t **out)
{
    static const char *const sweep_fields[] = {"param", "values", NULL};
    json_t *sweep = json_object_get(job, "sweep"), *given = json_object_get(job, "params"), *values, *v, *one;
    const char *name;
    size_t i, k;
    int st;

    *out = json_array();
    if (!sweep) {
        if ((st = check_suite(r, s, model, json_object_get(job, "kernels"), given, kernels, &one)))
            return st;
        json_array_append_new(*out, one);
        return 0;
    }
    if (!json_is_object(sweep))
        return fields_bad_type(r, "sweep", "an object {\"param\": name, \"values\": [...]}");
    if ((st = fields_only(r, sweep, "sweep.", sweep_fields)))
        return st;
    name = json_string_value(json_object_get(sweep, "param"));
    values = json_object_get(sweep, "values");
    if (!name || !suite_param(s, name) || suite_param(s, name)->standalone)
        return req_fail(r, ERR_INVALID_VALUE, "sweep.param", "sweep.param must name a parameter of suite %s",
                        s->name);
    if (given && json_is_object(given) && json_object_get(given, name))
        return req_fail(r, ERR_CONFLICTING_FIELDS, "sweep.param",
                        "params.%s is swept: give it in sweep.values only", name);
    if (json_is_string(values)) { /* a short form (lib/sweep.h), expanded in place */
        struct pp_error err;
        if (!(values = sweep_expand(json_string_value(values), SWEEP_MAX_VALUES, &err)))
            return req_fail(r, ERR_INVALID_VALUE, "sweep.values", "sweep.values %s", err.msg);
        json_object_set_new(sweep, "values", values);
    }
    if (!json_is_array(values) || json_array_size(values) < 1 || json_array_size(values) > SWEEP_MAX_VALUES)
        return fields_bad_type(r, "sweep.values",
                               "an array of 1 to 64 values, or a text 2^a..2^b, a..b[:step] or v1,v2,...");
    json_array_foreach(values, i, v)
    {
        for (k = 0; k < i; k++)
            if (json_equal(v, json_array_get(values, k)))
                return req_fail(r, ERR_INVALID_VALUE, "sweep.values", "sweep.values names a value twice");
        json_t *p = given && json_is_object(given) ? json_deep_copy(given) : json_object();
        json_object_set(p, name, v);
        if (*kernels) {
            json_decref(*kernels);
            *kernels = NULL;
        }
        st = check_suite(r, s, model, json_object_get(job, "kernels"), p, kernels, &one);
        json_decref(p);
        if (st)
            return st;
        json_array_append_new(*out, one);
    }
    return 0;
}

static int check_tags(struct request *r, json_t *tags)
{
    size_t i;
    json_t *t;

    if (!tags)
        return 0;
    if (!json_is_array(tags) || json_array_size(tags) > 16)
        return fields_bad_type(r, "tags", "an array of at most 16 strings");
    json_array_foreach(tags, i, t)
    {
        if (!json_is_string(t) || json_string_length(t) < 1 || json_string_length(t) > 64)
            return req_fail(r, ERR_INVALID_VALUE, "tags", "each tag must be a string of 1 to 64 characters");
    }
    return 0;
}

static int check_selector(struct request *r, const char *model, json_t *selector)
{
    static const char *const selector_fields[] = {"kind", "host", NULL};
    struct db_error dberr;
    PGresult *res;
    int st;

    if (!json_is_object(selector))
        return fields_bad_type(r, "selector", "an object");
    if ((st = fields_only(r, selector, "selector.", selector_fields)))
        return st;
    json_t *kind = json_object_get(selector, "kind"), *host = json_object_get(selector, "host");
    if ((kind && !json_is_string(kind)) ||
        (host && (!json_is_string(host) || json_string_length(host) > 128)))
        return fields_bad_type(r, kind && !json_is_string(kind) ? "selector.kind" : "selector.host",
                               "a string (a host name: at most 128 characters)");
    if (kind && strcmp(json_string_value(kind), "cpu") && strcmp(json_string_value(kind), "gpu") &&
        strcmp(json_string_value(kind), "accel"))
        return req_fail(r, ERR_INVALID_VALUE, "selector.kind", "selector.kind must be cpu, gpu or accel");
    const char *params[3] = {model, kind ? json_string_value(kind) : NULL,
                             host ? json_string_value(host) : NULL};
    if (!(res = db_query(selector_sql, 3, params, &dberr)))
        return api_db_fail(r, &dberr);
    st = strcmp(PQgetvalue(res, 0, 0), "0")
             ? 0
             : req_fail(r, ERR_NO_MATCHING_PLATFORM, "selector",
                        "no platform matches the selector and runs model %s", model);
    PQclear(res);
    return st;
}

/* platform or selector: the job must be able to run somewhere now. A platform is checked by the insert itself
 * (one round trip on the hot path); a selector here. */
static int check_target(struct request *r, const char *model, json_t *platform, json_t *selector)
{
    if (platform && selector)
        return req_fail(r, ERR_CONFLICTING_FIELDS, "selector", "give platform or selector, not both");
    if (!platform && !selector)
        return req_fail(r, ERR_MISSING_FIELD, "platform", "platform (or selector) is required");
    if (platform)
        return json_is_string(platform) && json_string_length(platform) <= 160
                   ? 0
                   : fields_bad_type(r, "platform", "a platform id (a string of at most 160 characters)");
    return check_selector(r, model, selector);
}

static const char platform_host_sql[] =
    "SELECT p.kind, h.name FROM platforms p LEFT JOIN hosts h ON h.id = p.host_id WHERE p.id = $1";

/* The job's own Slurm partition and gres ("slurm": {"partition", "gres"}, each optional), and, for a job the
 * Slurm executor will take, the partition and gres it will ask for, checked against Slurm's (slurm/node.c):
 * an unknown one is refused now rather than failed by sbatch later. *part and *gres: borrowed from the body,
 * NULL when not given. */
static int check_slurm(struct request *r, json_t *job, const char **part, const char **gres)
{
    static const char *const slurm_fields[] = {"partition", "gres", NULL};
    json_t *sl = json_object_get(job, "slurm"), *platform = json_object_get(job, "platform"),
           *selector = json_object_get(job, "selector");
    const char *kind = NULL, *host = NULL, *field;
    char msg[300];
    struct db_error dberr;
    PGresult *res = NULL;
    int st = 0;

    *part = *gres = NULL;
    if (sl) {
        if (!json_is_object(sl))
            return fields_bad_type(r, "slurm", "an object {\"partition\": name, \"gres\": \"gpu:1\"}");
        if ((st = fields_only(r, sl, "slurm.", slurm_fields)))
            return st;
        json_t *p = json_object_get(sl, "partition"), *g = json_object_get(sl, "gres");
        if (p && (!json_is_string(p) || !slurm_node_name_ok(json_string_value(p))))
            return fields_bad_type(r, "slurm.partition",
                                   "a partition name (1 to 127 letters, digits, '.', '_', '-')");
        if (g && (!json_is_string(g) || json_string_length(g) < 1 || json_string_length(g) > 120 ||
                  strspn(json_string_value(g),
                         "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:._-") !=
                      json_string_length(g)))
            return fields_bad_type(r, "slurm.gres", "a gres request such as \"gpu:1\" or \"gpu:h100:2\"");
        *part = json_string_value(p);
        *gres = json_string_value(g);
        if (!slurm_enabled())
            return req_fail(r, ERR_INVALID_VALUE, "slurm",
                            "the slurm executor is not configured (slurm_partition)");
    }
    if (!slurm_enabled())
        return 0;
    if (platform) {
        const char *p[1] = {json_string_value(platform)};
        if (!(res = db_query(platform_host_sql, 1, p, &dberr)))
            return api_db_fail(r, &dberr);
        if (PQntuples(res) == 0)
            goto out; /* the insert says the platform is unknown */
        kind = PQgetvalue(res, 0, 0);
        host = PQgetisnull(res, 0, 1) ? NULL : PQgetvalue(res, 0, 1);
    } else {
        kind = json_string_value(json_object_get(selector, "kind"));
        host = json_string_value(json_object_get(selector, "host"));
    }
    if (!slurm_takes(kind, host)) {
        if (sl)
            st = req_fail(r, ERR_INVALID_VALUE, "slurm",
                          "the job's platform does not run through slurm (slurm_platforms)");
        goto out;
    }
    const char *want_gres = *gres ? *gres
                            : kind && !strcmp(kind, "gpu") && slurm_config()->slurm_gres[0]
                                ? slurm_config()->slurm_gres
                                : NULL;
    if (slurm_target_check(*part ? *part : slurm_config()->slurm_partition, want_gres, &field, msg,
                           sizeof(msg)))
        st = req_fail(r, !strcmp(field, "slurm.partition") ? ERR_UNKNOWN_PARTITION : ERR_UNKNOWN_GRES, field,
                      "%s", msg);
out:
    PQclear(res);
    return st;
}

/* Why the insert found no platform for the job: unknown, or it does not run the model. */
static int platform_error(struct request *r, const char *platform, const char *model)
{
    const char *params[2] = {platform, model};
    struct db_error dberr;
    PGresult *res;
    int st;

    if (!(res = db_query(platform_sql, 2, params, &dberr)))
        return api_db_fail(r, &dberr);
    if (PQntuples(res) == 0)
        st = req_fail(r, ERR_UNKNOWN_PLATFORM, "platform", "unknown platform \"%s\"", platform);
    else if (strcmp(PQgetvalue(res, 0, 2), "t") != 0)
        st = req_fail(r, ERR_UNKNOWN_PLATFORM, "platform", "unknown platform \"%s\": did you mean %s?",
                      platform, PQgetvalue(res, 0, 3));
    else if (strcmp(PQgetvalue(res, 0, 0), "t") != 0)
        st = req_fail(r, ERR_MODEL_NOT_SUPPORTED, "model", "platform %s cannot run model %s (it runs: %s)",
                      platform, model, PQgetvalue(res, 0, 1));
    else
        st = req_fail(r, ERR_PLATFORM_CHANGED, "platform", "platform %s changed during the submission",
                      platform);
    PQclear(res);
    return st;
}

int jobs_check_runner(struct request *r, const struct suite *s, const char *model, const char *kind,
                      const char *host_like)
{
    const char *params[3] = {model, kind, host_like};
    json_t *kernels = NULL, *asked = json_object_get(r->json, "kernels"), *k;
    struct db_error dberr;
    PGresult *res;
    size_t i, j;
    int st = 0;

    if (!(res = db_query(runner_sql, 3, params, &dberr)))
        return api_db_fail(r, &dberr);
    if (PQntuples(res) == 0) {
        st = req_fail(r, ERR_UNKNOWN_MODEL, "model",
                      "unknown model \"%s\" (known: %s; no platform %shas a runner of that name)", model,
                      suite_model_names(), kind || host_like ? "the selector matches " : "");
        goto out;
    }
    if (strcmp(PQgetvalue(res, 0, 0), s->name)) {
        st = req_fail(r, ERR_INVALID_VALUE, "model", "runner %s measures suite %s, not %s", model,
                      PQgetvalue(res, 0, 0), s->name);
        goto out;
    }
    kernels = json_loads(PQgetvalue(res, 0, 1), 0, NULL);
    if (!asked) {
        json_object_set(r->json, "kernels", kernels);
        goto out;
    }
    json_array_foreach(asked, i, k)
    {
        bool has = false;
        for (j = 0; j < json_array_size(kernels) && !has; j++)
            has = json_equal(k, json_array_get(kernels, j));
        if (!has && json_is_string(k)) {
            st = req_fail(r, ERR_INVALID_VALUE, "kernels", "runner %s does not measure %s", model,
                          json_string_value(k));
            goto out;
        }
    }
out:
    json_decref(kernels);
    PQclear(res);
    return st;
}

int jobs_submit(struct request *r)
{
    static const char *const fields[] = {"suite",     "model", "platform", "selector", "kernels",
                                         "params",    "sweep", "priority", "slurm",    "max_attempts",
                                         "timeout_s", "tags",  NULL};
    json_t *j = r->json, *suite = json_object_get(j, "suite"), *model = json_object_get(j, "model");
    json_t *kernels = NULL, *params = NULL;
    const struct suite *s;
    long long priority = 0, timeout = 600, attempts = 3;
    char *kernels_s = NULL, *params_s = NULL, *selector_s = NULL, *tags_s = NULL;
    const char *slurm_part = NULL, *slurm_gres = NULL;
    char pr[24], to[24], at[24], by[24];
    struct db_error dberr;
    PGresult *res = NULL;
    int st;

    if ((st = fields_only(r, j, "", fields)))
        return st;
    if (!suite)
        return req_fail(r, ERR_MISSING_FIELD, "suite", "suite is required (%s)", suite_names());
    if (!json_is_string(suite))
        return fields_bad_type(r, "suite", "a string");
    if (!(s = suite_find(json_string_value(suite))))
        return req_fail(r, ERR_UNKNOWN_SUITE, "suite", "unknown suite \"%s\" (known: %s)",
                        json_string_value(suite), suite_names());
    if (!model)
        return req_fail(r, ERR_MISSING_FIELD, "model", "model is required (%s)", suite_model_names());
    if (!json_is_string(model))
        return fields_bad_type(r, "model", "a string");
    if (!suite_model_known(json_string_value(model)) &&
        (st = jobs_check_runner(r, s, json_string_value(model), NULL, NULL)))
        return st;
    if ((st = fields_int(r, "priority", -1000, 1000, &priority)) ||
        (st = fields_int(r, "timeout_s", 1, 86400, &timeout)) ||
        (st = fields_int(r, "max_attempts", 1, 100, &attempts)) ||
        (st = check_tags(r, json_object_get(j, "tags"))) ||
        (st = check_params_list(r, s, json_string_value(model), j, &kernels, &params)) ||
        (st = check_target(r, json_string_value(model), json_object_get(j, "platform"),
                           json_object_get(j, "selector"))) ||
        (st = check_slurm(r, j, &slurm_part, &slurm_gres)))
        goto out;

    kernels_s = json_dumps(kernels, JSON_COMPACT);
    params_s = json_dumps(params, JSON_COMPACT);
    selector_s = dump_or(json_object_get(j, "selector"), "{}");
    tags_s = dump_or(json_object_get(j, "tags"), "[]");
    snprintf(pr, sizeof(pr), "%lld", priority);
    snprintf(to, sizeof(to), "%lld", timeout);
    snprintf(at, sizeof(at), "%lld", attempts);
    snprintf(by, sizeof(by), "%lld", r->token_id);
    const char *qp[14] = {json_string_value(suite),
                          kernels_s,
                          json_string_value(model),
                          json_string_value(json_object_get(j, "platform")),
                          selector_s,
                          params_s,
                          pr,
                          to,
                          at,
                          tags_s,
                          r->token_id ? by : NULL,
                          json_object_get(j, "sweep") ? "true" : "false",
                          slurm_part,
                          slurm_gres};
    if (!(res = db_query(insert_sql, 14, qp, &dberr))) {
        st = api_db_fail(r, &dberr);
        goto out;
    }
    if (PQntuples(res) == 0) {
        st = platform_error(r, qp[3], qp[2]);
        goto out;
    }
    long long id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
    snprintf(r->location, sizeof(r->location), "/api/v1/jobs/%lld", id);
    r->reply = json_pack("{s:I, s:s, s:s}", "id", (json_int_t)id, "url", r->location, "state", "queued");
    if (json_object_get(j, "sweep")) { /* the first job is the answer's id; all of them follow */
        json_t *ids = json_array();
        for (int row = 0; row < PQntuples(res); row++)
            json_array_append_new(ids, json_integer(strtoll(PQgetvalue(res, row, 0), NULL, 10)));
        json_object_set_new(r->reply, "ids", ids);
        json_object_set_new(r->reply, "sweep", json_string(PQgetvalue(res, 0, 1)));
    }
    {
        char id_s[24], stale[24];
        snprintf(id_s, sizeof(id_s), "%lld", id);
        snprintf(stale, sizeof(stale), "%ld", api_settings()->lease_s);
        const char *wp[2] = {id_s, stale};
        PGresult *w = db_query(warning_sql, 2, wp, &dberr);
        if (w && PQntuples(w) == 1)
            json_object_set_new(r->reply, "warning", json_string(PQgetvalue(w, 0, 0)));
        PQclear(w);
    }
    log_info("job=%lld suite=%s model=%s submitted (%d job%s)", id, json_string_value(suite),
             json_string_value(model), PQntuples(res), PQntuples(res) == 1 ? "" : "s");
    st = MHD_HTTP_ACCEPTED;
out:
    PQclear(res);
    json_decref(kernels);
    json_decref(params);
    free(kernels_s);
    free(params_s);
    free(selector_s);
    free(tags_s);
    return st;
}

int jobs_get(struct request *r)
{
    long long id = parse_id(r->args[0]);
    char stale[24];
    snprintf(stale, sizeof(stale), "%ld", api_settings()->lease_s);
    const char *params[3] = {r->args[0], api_settings()->exclusive[0] ? api_settings()->exclusive : "{}",
                             stale};
    struct db_error dberr;
    PGresult *res;
    int st;

    if ((st = req_check_query(r, "")))
        return st;
    if (!id)
        return req_fail(r, ERR_NOT_FOUND, NULL, "no job \"%s\"", r->args[0]);
    if (!(res = db_query(get_sql, 3, params, &dberr)))
        return api_db_fail(r, &dberr);
    if (PQntuples(res) == 0)
        st = req_fail(r, ERR_NOT_FOUND, NULL, "no job %lld", id);
    else
        st = req_reply_text(r, 200, strdup(PQgetvalue(res, 0, 0)), NULL);
    PQclear(res);
    return st;
}

int jobs_list(struct request *r)
{
    static const char *const states[] = {"queued", "running", "succeeded", "failed", "cancelled", NULL};
    const char *state = req_query(r, "state"), *platform = req_query(r, "platform");
    const char *limit_s = req_query(r, "limit"), *cursor = req_query(r, "cursor");
    long long limit = 100;
    char lim[24], *text;
    struct db_error dberr;
    PGresult *res;
    int st, ok = !state;

    if ((st = req_check_query(r, "state,platform,limit,cursor,suite,tag,model")))
        return st;
    if (req_query(r, "suite") && !catalog_suite(req_query(r, "suite")))
        return req_fail(r, ERR_INVALID_PARAMETER, "suite", "unknown suite \"%s\" (%s)", req_query(r, "suite"),
                        suite_names());
    for (int i = 0; state && states[i]; i++)
        ok |= !strcmp(states[i], state);
    if (!ok)
        return req_fail(r, ERR_INVALID_PARAMETER, "state",
                        "state must be queued, running, succeeded, failed or cancelled");
    if (limit_s && ((limit = parse_id(limit_s)) < 1 || limit > 1000))
        return req_fail(r, ERR_INVALID_PARAMETER, "limit", "limit must be from 1 to 1000");
    if (cursor && !parse_id(cursor))
        return req_fail(r, ERR_INVALID_PARAMETER, "cursor", "cursor must be a job id");
    snprintf(lim, sizeof(lim), "%lld", limit);
    const char *params[7] = {
        state, platform, cursor, lim, req_query(r, "suite"), req_query(r, "tag"), req_query(r, "model")};
    if (!(res = db_query(list_sql, 7, params, &dberr)))
        return api_db_fail(r, &dberr);
    const char *next = strtoll(PQgetvalue(res, 0, 2), NULL, 10) == limit ? PQgetvalue(res, 0, 1) : NULL;
    if (asprintf(&text, "{\"jobs\":%s,\"next_cursor\":%s%s%s}", PQgetvalue(res, 0, 0), next ? "\"" : "",
                 next ? next : "null", next ? "\"" : "") < 0)
        text = NULL;
    PQclear(res);
    return text ? req_reply_text(r, 200, text, NULL) : req_fail(r, ERR_INTERNAL, NULL, "out of memory");
}

int jobs_cancel(struct request *r)
{
    char by[24];
    const char *params[3] = {r->args[0], by, r->role == ROLE_ADMIN ? "true" : "false"};
    struct db_error dberr;
    PGresult *res;
    int st;

    if (!parse_id(r->args[0]))
        return req_fail(r, ERR_NOT_FOUND, NULL, "no job \"%s\"", r->args[0]);
    snprintf(by, sizeof(by), "%lld", r->token_id);
    if (!(res = db_query(cancel_sql, 3, params, &dberr)))
        return api_db_fail(r, &dberr);
    if (PQntuples(res) == 1) {
        log_info("job=%s cancelled", r->args[0]);
        st = req_reply_text(r, 200, strdup(PQgetvalue(res, 0, 0)), NULL);
        PQclear(res);
        return st;
    }
    PQclear(res);
    if (!(res = db_query(state_sql, 1, params, &dberr)))
        return api_db_fail(r, &dberr);
    if (PQntuples(res) == 0)
        st = req_fail(r, ERR_NOT_FOUND, NULL, "no job %s", r->args[0]);
    else if (!strcmp(PQgetvalue(res, 0, 0), "queued") || !strcmp(PQgetvalue(res, 0, 0), "running"))
        st = req_fail(r, ERR_FORBIDDEN, NULL,
                      "job %s was submitted with another token (cancel it with that one "
                      "or an admin token)",
                      r->args[0]);
    else
        st = req_fail(r, ERR_JOB_FINISHED, NULL, "job %s already %s", r->args[0], PQgetvalue(res, 0, 0));
    PQclear(res);
    return st;
}

/* Server-Sent Events: the job's events after Last-Event-ID, then suspend until something new; end after the
 * terminal state has been sent. */
struct event_stream {
    char job[24];
    long long last_id;
    double last_write;
};

static ssize_t events_write(struct request *r, char *buf, size_t max)
{
    struct event_stream *es = r->state;
    char last[24];
    const char *params[2] = {es->job, last};
    struct db_error dberr;
    PGresult *res;
    size_t used = 0;
    int terminal;

    snprintf(last, sizeof(last), "%lld", es->last_id);
    if (!(res = db_query(events_sql, 2, params, &dberr))) {
        log_warn("request=%s events: %s", r->id, dberr.e.msg);
        return -1;
    }
    terminal = PQntuples(res) > 0 && strcmp(PQgetvalue(res, 0, 3), "queued") &&
               strcmp(PQgetvalue(res, 0, 3), "running");
    for (int i = 0; i < PQntuples(res) && !PQgetisnull(res, i, 0); i++) {
        int n = snprintf(buf + used, max - used, "id: %s\nevent: %s\ndata: %s\n\n", PQgetvalue(res, i, 0),
                         PQgetvalue(res, i, 1), PQgetvalue(res, i, 2));
        if (n < 0 || (size_t)n >= max - used)
            break;
        used += (size_t)n;
        es->last_id = strtoll(PQgetvalue(res, i, 0), NULL, 10);
    }
    int more = PQntuples(res) > 0 && !PQgetisnull(res, 0, 0);
    PQclear(res);
    if (used) {
        es->last_write = clock_now();
        return (ssize_t)used;
    }
    if (terminal && !more)
        return -1;
    if (clock_now() - es->last_write > 15.0) { /* keep proxies and clients from timing out */
        es->last_write = clock_now();
        return snprintf(buf, max, ":\n\n");
    }
    return http_suspend(r) ? 0 : -1;
}

int jobs_events(struct request *r)
{
    const char *params[1] = {r->args[0]};
    const char *last = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Last-Event-ID");
    struct event_stream *es;
    struct db_error dberr;
    PGresult *res;
    int found;

    if (!parse_id(r->args[0]))
        return req_fail(r, ERR_NOT_FOUND, NULL, "no job \"%s\"", r->args[0]);
    if (!(res = db_query(state_sql, 1, params, &dberr)))
        return api_db_fail(r, &dberr);
    found = PQntuples(res) == 1;
    PQclear(res);
    if (!found)
        return req_fail(r, ERR_NOT_FOUND, NULL, "no job %s", r->args[0]);
    if (!(es = calloc(1, sizeof(*es))))
        return req_fail(r, ERR_INTERNAL, NULL, "out of memory");
    snprintf(es->job, sizeof(es->job), "%s", r->args[0]);
    es->last_id = parse_event_id(last);
    es->last_write = clock_now();
    r->state = es;
    r->state_free = free;
    r->stream = events_write;
    return HTTP_STREAM;
}
