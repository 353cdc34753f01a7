/*
 * api/schedule: recurring job sets over the API: create, list, get, pause, resume, run now. A schedule stores
 * its job (checked against the suite table as a submission is, completed with the defaults), a platform
 * selector and a spec (lib/cron.h); the database holds its due time, and the notifier fires it when due
 * (server/fleet/schedule.c). HTTP pool threads.
 */
#include "server/api/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/cron.h"
#include "lib/log.h"
#include "server/api/api.h"
#include "server/api/catalog.h"
#include "server/api/jobs.h"
#include "server/http/fields.h"
#include "server/http/parse.h"

static const char insert_sql[] =
    "INSERT INTO schedules (name, spec, job, selector, host_like, paused, due_at) "
    "VALUES ($1, $2, $3::jsonb, $4::jsonb, $5, $6::boolean, to_timestamp($7)) "
    "ON CONFLICT (name) DO NOTHING RETURNING schedule_doc(schedules)::text";

static const char list_sql[] =
    "SELECT jsonb_build_object('schedules', coalesce(jsonb_agg(schedule_doc(s) ORDER BY s.id), '[]'))::text "
    "FROM schedules s";

static const char get_sql[] = "SELECT schedule_doc(s)::text FROM schedules s WHERE id = $1";

static const char pause_sql[] =
    "UPDATE schedules SET paused = $2::boolean WHERE id = $1 RETURNING schedule_doc(schedules)::text";

/* Run now: fired at once, its due time unchanged. */
static const char run_sql[] =
    "UPDATE schedules s SET last_fired_at = now(), last_job_ids = schedule_fire(s.id, $2::float8), "
    "fired = s.fired + 1 WHERE id = $1 RETURNING schedule_doc(s)::text";

/* selector.host, a glob of host names (* and ?), as a LIKE pattern (new string) in *like. */
static int host_pattern(struct request *r, const char *glob, char **like)
{
    size_t n = strlen(glob);
    char *out, *o;

    if (n < 1 || n > 128 ||
        strspn(glob, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-*?") != n)
        return req_fail(
            r, ERR_INVALID_VALUE, "selector.host",
            "selector.host must be a host name or a pattern with * and ? (at most 128 characters)");
    if (!(o = out = malloc(2 * n + 1)))
        return req_fail(r, ERR_INTERNAL, NULL, "out of memory");
    for (const char *g = glob; *g; g++) {
        if (*g == '*')
            *o++ = '%';
        else if (*g == '?')
            *o++ = '_';
        else if (*g == '_') {
            *o++ = '\\';
            *o++ = '_';
        } else
            *o++ = *g;
    }
    *o = '\0';
    *like = out;
    return 0;
}

static int check_selector(struct request *r, json_t *sel, char **like)
{
    const char *key;
    json_t *v;

    *like = NULL;
    if (!sel)
        return 0;
    if (!json_is_object(sel))
        return fields_bad_type(r, "selector", "an object {\"kind\": \"gpu\", \"host\": \"node*\"}");
    json_object_foreach(sel, key, v)
    {
        if (!strcmp(key, "kind")) {
            const char *k = json_string_value(v);
            if (!k || (strcmp(k, "cpu") && strcmp(k, "gpu") && strcmp(k, "accel")))
                return req_fail(r, ERR_INVALID_VALUE, "selector.kind",
                                "selector.kind must be cpu, gpu or accel");
        } else if (!strcmp(key, "host")) {
            if (!json_is_string(v))
                return fields_bad_type(r, "selector.host", "a string");
        } else {
            char field[96];
            snprintf(field, sizeof(field), "selector.%s", key);
            return req_fail(r, ERR_UNKNOWN_FIELD, field, "unknown field \"%s\"", field);
        }
    }
    json_t *host = json_object_get(sel, "host");
    return host ? host_pattern(r, json_string_value(host), like) : 0;
}

int schedule_create(struct request *r)
{
    static const char *const fields[] = {"name",      "spec",         "suite",    "model",
                                         "kernels",   "params",       "selector", "priority",
                                         "timeout_s", "max_attempts", "paused",   NULL};
    json_t *j = r->json, *name = json_object_get(j, "name"), *spec = json_object_get(j, "spec");
    json_t *suite = json_object_get(j, "suite"), *model = json_object_get(j, "model");
    json_t *paused = json_object_get(j, "paused"), *job = NULL;
    const struct suite *s;
    long long priority = 0, timeout = 600, attempts = 3;
    char *job_s = NULL, *sel_s = NULL, *like = NULL, due_s[24];
    struct suite_values vals;
    struct suite_error se;
    struct cron c;
    struct pp_error perr;
    struct db_error dberr;
    PGresult *res = NULL;
    struct timespec ts;
    time_t now, due;
    int st;

    if ((st = fields_only(r, j, "", fields)))
        return st;
    if (!name || !spec || !suite || !model)
        return req_fail(r, ERR_MISSING_FIELD,
                        !name    ? "name"
                        : !spec  ? "spec"
                        : !suite ? "suite"
                                 : "model",
                        "%s is required",
                        !name    ? "name"
                        : !spec  ? "spec"
                        : !suite ? "suite"
                                 : "model");
    if (!json_is_string(name) || json_string_length(name) < 1 || json_string_length(name) > 64 ||
        strspn(json_string_value(name),
               "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
            json_string_length(name))
        return req_fail(r, ERR_INVALID_VALUE, "name",
                        "name must be 1 to 64 letters, digits, '.', '_' or '-'");
    if (!json_is_string(spec) || json_string_length(spec) > 128)
        return fields_bad_type(r, "spec", "a string of at most 128 characters");
    clock_gettime(CLOCK_REALTIME, &ts);
    now = ts.tv_sec + (ts.tv_nsec > 0); /* whole seconds, rounded up: never due before its interval */
    if (cron_parse(&c, json_string_value(spec), &perr))
        return req_fail(r, ERR_INVALID_VALUE, "spec", "spec: %s", perr.msg);
    if (cron_next(&c, now, now, &due))
        return req_fail(r, ERR_INVALID_VALUE, "spec", "spec \"%s\" never comes due", json_string_value(spec));
    if (!json_is_string(suite) || !(s = catalog_suite(json_string_value(suite))))
        return req_fail(r, ERR_UNKNOWN_SUITE, "suite", "unknown suite (known: %s)", suite_names());
    if (!json_is_string(model))
        return fields_bad_type(r, "model", "a string");
    if ((st = check_selector(r, json_object_get(j, "selector"), &like)))
        return st;
    /* a runner (issue 27) where a platform the selector matches lists it; its kernels when none are named */
    if (!suite_model_known(json_string_value(model)) &&
        (st = jobs_check_runner(r, s, json_string_value(model),
                                json_string_value(json_object_get(json_object_get(j, "selector"), "kind")),
                                like)))
        goto out;
    if (paused && !json_is_boolean(paused)) {
        st = fields_bad_type(r, "paused", "true or false");
        goto out;
    }
    if ((st = fields_int(r, "priority", -1000, 1000, &priority)) ||
        (st = fields_int(r, "timeout_s", 1, 86400, &timeout)) ||
        (st = fields_int(r, "max_attempts", 1, 100, &attempts)))
        goto out;
    if (suite_values_from_json(&vals, s, json_object_get(j, "params"), json_object_get(j, "kernels"), &se)) {
        st = req_fail(r, errors_from_code(se.code), se.field, "%s", se.msg);
        goto out;
    }

    job = json_pack("{s:O, s:O, s:o, s:o, s:I, s:I, s:I}", "suite", suite, "model", model, "kernels",
                    suite_values_kernels_json(&vals), "params", suite_values_params_json(&vals), "priority",
                    (json_int_t)priority, "timeout_s", (json_int_t)timeout, "max_attempts",
                    (json_int_t)attempts);
    job_s = json_dumps(job, JSON_COMPACT);
    sel_s = json_object_get(j, "selector") ? json_dumps(json_object_get(j, "selector"), JSON_COMPACT)
                                           : strdup("{}");
    snprintf(due_s, sizeof(due_s), "%lld", (long long)due);
    const char *p[7] = {json_string_value(name),
                        json_string_value(spec),
                        job_s,
                        sel_s,
                        like,
                        json_is_true(paused) ? "true" : "false",
                        due_s};
    if (!(res = db_query(insert_sql, 7, p, &dberr))) {
        st = api_db_fail(r, &dberr);
        goto out;
    }
    if (PQntuples(res) == 0) {
        st =
            req_fail(r, ERR_INVALID_VALUE, "name", "a schedule named \"%s\" exists", json_string_value(name));
        goto out;
    }
    st = req_reply_text(r, 201, strdup(PQgetvalue(res, 0, 0)), NULL);
    log_notice("request=%s schedule %s created: %s", r->id, json_string_value(name), json_string_value(spec));
out:
    PQclear(res);
    json_decref(job);
    free(job_s);
    free(sel_s);
    free(like);
    return st;
}

/* One statement with the path's id (and an optional second parameter) returning a schedule document. */
static int one(struct request *r, const char *sql, const char *arg)
{
    long long id = parse_id(r->args[0]);
    char id_s[24], missing[48];

    if (!id)
        return req_fail(r, ERR_NOT_FOUND, NULL, "no schedule %s", r->args[0]);
    snprintf(id_s, sizeof(id_s), "%lld", id);
    snprintf(missing, sizeof(missing), "no schedule %lld", id);
    const char *p[2] = {id_s, arg};
    return api_reply_value(r, sql, arg ? 2 : 1, p, NULL, missing);
}

int schedule_list(struct request *r)
{
    int st = req_check_query(r, "");

    return st ? st : api_reply_value(r, list_sql, 0, NULL, NULL, NULL);
}

int schedule_get(struct request *r)
{
    return one(r, get_sql, NULL);
}

int schedule_pause(struct request *r)
{
    return one(r, pause_sql, "true");
}

int schedule_resume(struct request *r)
{
    return one(r, pause_sql, "false");
}

int schedule_run(struct request *r)
{
    char stale[24];
    snprintf(stale, sizeof(stale), "%ld", api_settings()->lease_s); /* a worker is stale past its lease */
    return one(r, run_sql, stale);
}
