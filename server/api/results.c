/*
 * api/results: the stored results: the list (filters, a cursor, JSON or CSV with each row's identity and
 * timing rule, BabelStream's CSV, the P3 columns), one result with its whole provenance, and an admin's note,
 * exclusion from analysis or deletion. HTTP pool threads; the JSON and CSV are built by PostgreSQL, one query
 * a request.
 */
#include "server/api/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/api/api.h"
#include "server/api/catalog.h"
#include "server/api/pp.h"
#include "server/http/fields.h"
#include "server/http/parse.h"

/* The statistic a result's rates come from: its report's problem.timing where it names one (staggered: mean,
 * or best, the minimum), else its suite's rule from the suite table ($T: {"suite": "min"|"mean"}); imported
 * BabelStream rows are from the minimum. */
#define TIMING(x, T)                                                                                         \
    "CASE WHEN " x ".origin = 'import' THEN 'min' WHEN " x                                                   \
    ".provenance->'problem'->>'timing' = 'best' THEN "                                                       \
    "'min' WHEN " x ".provenance->'problem'->>'timing' = 'mean' THEN 'mean' ELSE coalesce(" T "::jsonb->>" x \
    ".suite, 'min') END"

/* What the list adds to result_doc: the admin's note and the timing rule. */
#define EXTRA(x, T)                                                                                          \
    "jsonb_build_object('note', " x ".note, 'annotated_at', " x ".annotated_at, 'timing', " TIMING(x, T) ")"

#define RESULTS_FILTER                                                                                       \
    "FROM results r WHERE ($1::text IS NULL OR r.suite = $1) AND ($2::text IS NULL OR r.kernel = $2) "       \
    "AND ($3::text IS NULL OR r.platform_id = $3) AND ($4::text IS NULL OR r.model = $4) "                   \
    "AND ($5::timestamptz IS NULL OR r.created_at >= $5) AND ($6::text IS NULL OR r.precision = $6) "        \
    "AND ($7::text IS NULL OR r.variant = $7) AND ($8::bigint IS NULL OR r.size = $8) "                      \
    "AND ($9::text IS NULL OR EXISTS (SELECT 1 FROM jobs j WHERE j.id = r.job_id AND $9 = ANY (j.tags))) "   \
    "AND ($10::bigint IS NULL OR r.id < $10) AND ($11::bigint IS NULL OR r.job_id = $11) "

#define RESULTS_PAGE "FROM (SELECT r.* " RESULTS_FILTER "ORDER BY r.id DESC LIMIT $12) x"

/* view=summary ($14): each result without its timed samples and provenance, the bulk of a document (a chart's
 * 2,000 results: 6.2 MB and 190 ms in SQL at 1,000,000 rows, 1.6 MB and 105 ms without them). */
static const char results_sql[] =
    "SELECT jsonb_build_object('results', coalesce(jsonb_agg(CASE WHEN $14 THEN result_doc(x) - 'times_s' - "
    "'provenance' ELSE result_doc(x) END || " EXTRA("x", "$13") " ORDER BY x.id DESC), '[]'), 'next_cursor', "
                                                                "CASE WHEN count(*) = $12 THEN "
                                                                "min(x.id)::text END)::text " RESULTS_PAGE;

/* The default CSV: one row per result with its identity (platform, model, variant, date, job), the timing
 * rule behind its figures and its problem key last (two numtimes of one size are two problems, issue 25).
 * Every text cell goes through csv_text or csv_cell (schema/functions/results.sql: quoted, and a formula's
 * first character neutralised); numbers are written as they are. */
#define CSV_TIMING TIMING("x", "$13")
static const char results_csv_sql[] =
    "SELECT 'result_id,date,platform,model,suite,kernel,precision,size,variant,job,verified,flags,timing,"
    "bandwidth_bytes_per_s,gflops,min_s,mean_s,max_s,samples,problem_key' || chr(10) || "
    "coalesce(string_agg(concat_ws(',', x.id, to_char(x.created_at AT TIME ZONE 'UTC', "
    "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), csv_text(x.platform_id), csv_text(x.model), csv_cell(x.suite), "
    "csv_cell(x.kernel), csv_cell(x.precision), x.size, csv_text(x.variant), "
    "coalesce(x.job_id::text, 'import'), x.verified::text, csv_cell(array_to_string(x.flags, ' ')), "
    "csv_cell(" CSV_TIMING "), x.bandwidth, x.gflops, x.min_s, x.mean_s, x.max_s, "
    "coalesce(x.stats_count, cardinality(x.times_s) - 1, 0), csv_text(x.problem_key)), chr(10) ORDER BY x.id "
    "DESC) "
    "|| chr(10), '') " RESULTS_PAGE;

/* BabelStream's CSV columns, one row per stored kernel result (its bandwidth from the minimum time). */
static const char results_babelstream_sql[] =
    "SELECT 'function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime' || "
    "chr(10) || coalesce(string_agg(concat_ws(',', csv_cell(initcap(x.kernel)), "
    "coalesce(cardinality(x.times_s), (x.provenance->>'num_times')::int), x.size, "
    "CASE x.precision WHEN 'fp32' THEN 4 ELSE 8 END, round((x.bandwidth * 1e-6)::numeric, 6), x.min_s, "
    "x.max_s, x.mean_s), chr(10) ORDER BY x.id DESC) || chr(10), '') " RESULTS_PAGE;

/* The P3 analysis library's columns: one row per problem, platform and application (schema/functions/pp.sql).
 */
static const char results_p3_sql[] =
    "SELECT pp_p3_csv($1, $2, $3, $4, $5::timestamptz, $6::bigint, $7::boolean)";
/* p3_rows=variant: one row per variant, unsupported ones with their reason (pp_p3_variant_csv,
 * schema/functions/pp.sql). */
static const char results_p3_variant_sql[] =
    "SELECT pp_p3_variant_csv($1, $2, $3, $4, $6::bigint, $7::boolean) "
    "WHERE $5::timestamptz IS NULL"; /* since: refused */

/* One result, whole: its document, the platform and host it ran on, and its job. */
static const char result_get_sql[] = "SELECT (result_doc(x) || " EXTRA(
    "x",
    "$2") " || jsonb_build_object("
          "'platform_info', (SELECT jsonb_build_object('id', p.id, 'name', p.name, 'kind', p.kind, 'vendor', "
          "  p.vendor, 'host', h.name, 'uuid', p.uuid, 'pci_bus_id', p.pci_bus_id, 'memory_bytes', "
          "p.memory_bytes, "
          "  'compute_units', p.compute_units, 'peak_bandwidth_bytes_per_s', p.peak_bandwidth, "
          "'peak_source', "
          "  p.peak_source, 'origin', CASE WHEN p.host_id IS NULL THEN 'import' ELSE 'worker' END) "
          "  FROM platforms p LEFT JOIN hosts h ON h.id = p.host_id WHERE p.id = x.platform_id), "
          "'job', (SELECT jsonb_build_object('id', j.id, 'state', j.state, 'params', j.params, 'tags', "
          "  to_jsonb(j.tags), 'attempts', j.attempts, 'created_at', j.created_at, 'started_at', "
          "j.started_at, "
          "  'finished_at', j.finished_at, 'ran_on', j.ran_on) FROM jobs j WHERE j.id = x.job_id)))::text "
          "FROM results x WHERE x.id = $1";

static const char result_note_sql[] =
    "UPDATE results SET note = CASE WHEN $2::boolean THEN $3 ELSE note END, "
    "flags = CASE WHEN $4::boolean IS NULL THEN flags "
    "  WHEN $4 THEN CASE WHEN 'excluded' = ANY (flags) THEN flags ELSE flags || 'excluded'::text END "
    "  ELSE array_remove(flags, 'excluded') END, annotated_at = now() WHERE id = $1 RETURNING id";

static const char result_delete_sql[] = "DELETE FROM results WHERE id = $1 RETURNING id";

/* {"stream": "min", ...}: each suite's timing rule, from the suite table (new string, free()). */
static char *timing_map(void)
{
    json_t *m = json_object();
    char *s;

    for (size_t i = 0; i < suite_count(); i++)
        json_object_set_new(m, suite_at(i)->name, json_string(suite_at(i)->timing));
    s = json_dumps(m, JSON_COMPACT);
    json_decref(m);
    return s;
}

/* The suite and kernel filters name what the suite table has (imported rows are stream's). */
static int check_suite_filter(struct request *r, const char *suite, const char *kernel)
{
    const struct suite *s = suite ? catalog_suite(suite) : NULL;

    if (suite && !s)
        return req_fail(r, ERR_INVALID_PARAMETER, "suite", "unknown suite \"%s\" (%s)", suite, suite_names());
    if (s && kernel && !catalog_kernel(s, kernel))
        return req_fail(r, ERR_INVALID_PARAMETER, "kernel", "suite %s has no kernel \"%s\"", suite, kernel);
    return 0;
}

int results_list(struct request *r)
{
    const char *format = req_query(r, "format"), *limit_s = req_query(r, "limit"),
               *since = req_query(r, "since"), *precision = req_query(r, "precision"),
               *size = req_query(r, "size"), *cursor = req_query(r, "cursor"), *job = req_query(r, "job"),
               *p3_rows = req_query(r, "p3_rows"), *view = req_query(r, "view");
    long long limit = 1000;
    char lim[24];
    int st;

    if ((st = req_check_query(r, "suite,kernel,platform,model,since,limit,format,precision,variant,size,tag,"
                                 "cursor,job,p3_rows,view,include_runners")) ||
        (st = check_suite_filter(r, req_query(r, "suite"), req_query(r, "kernel"))))
        return st;
    if (format && strcmp(format, "json") && strcmp(format, "csv") && strcmp(format, "babelstream") &&
        strcmp(format, "p3"))
        return req_fail(r, ERR_INVALID_PARAMETER, "format", "format must be json, csv, babelstream or p3");
    if (limit_s && ((limit = parse_id(limit_s)) < 1 || limit > 100000))
        return req_fail(r, ERR_INVALID_PARAMETER, "limit", "limit must be from 1 to 100000");
    if (since && !parse_time_chars(since))
        return req_fail(r, ERR_INVALID_PARAMETER, "since", "since must be an RFC 3339 time");
    if (precision && strcmp(precision, "fp64") && strcmp(precision, "fp32"))
        return req_fail(r, ERR_INVALID_PARAMETER, "precision", "precision must be fp64 or fp32");
    if (size && !parse_id(size))
        return req_fail(r, ERR_INVALID_PARAMETER, "size", "size must be a positive integer");
    if (cursor && !parse_id(cursor))
        return req_fail(r, ERR_INVALID_PARAMETER, "cursor", "cursor must be a result id");
    if (job && !parse_id(job))
        return req_fail(r, ERR_INVALID_PARAMETER, "job", "job must be a job id");
    if (p3_rows && (!format || strcmp(format, "p3")))
        return req_fail(r, ERR_INVALID_PARAMETER, "p3_rows", "p3_rows goes with format=p3");
    if (p3_rows && strcmp(p3_rows, "application") && strcmp(p3_rows, "variant"))
        return req_fail(r, ERR_INVALID_PARAMETER, "p3_rows", "p3_rows must be application or variant");
    if (p3_rows && !strcmp(p3_rows, "variant") && since)
        return req_fail(r, ERR_INVALID_PARAMETER, "since", "format=p3 with p3_rows=variant takes no since");
    if (view && strcmp(view, "full") && strcmp(view, "summary"))
        return req_fail(r, ERR_INVALID_PARAMETER, "view", "view must be full or summary");
    if (req_query(r, "include_runners") && (!format || strcmp(format, "p3")))
        return req_fail(r, ERR_INVALID_PARAMETER, "include_runners", "include_runners goes with format=p3");
    if (view && format && strcmp(format, "json"))
        return req_fail(r, ERR_INVALID_PARAMETER, "view", "view goes with format=json");
    snprintf(lim, sizeof(lim), "%lld", limit);
    if (format && !strcmp(format, "p3")) {
        static const char *const only_rows[] = {"precision", "variant", "size", "tag", "cursor", "job", NULL};
        const char *runners;
        for (int i = 0; only_rows[i]; i++)
            if (req_query(r, only_rows[i]))
                return req_fail(r, ERR_INVALID_PARAMETER, only_rows[i],
                                "format=p3 takes suite, kernel, platform, model, since, limit, p3_rows and "
                                "include_runners only");
        if ((st = pp_include_runners(r, &runners)))
            return st;
        const char *params[7] = {req_query(r, "suite"),
                                 req_query(r, "kernel"),
                                 req_query(r, "platform"),
                                 req_query(r, "model"),
                                 since,
                                 lim,
                                 runners};
        st = api_reply_value(r,
                             p3_rows && !strcmp(p3_rows, "variant") ? results_p3_variant_sql : results_p3_sql,
                             7, params, "text/csv", "no such result");
    } else {
        char *timings = timing_map();
        const char *params[14] = {req_query(r, "suite"),
                                  req_query(r, "kernel"),
                                  req_query(r, "platform"),
                                  req_query(r, "model"),
                                  since,
                                  precision,
                                  req_query(r, "variant"),
                                  size,
                                  req_query(r, "tag"),
                                  cursor,
                                  job,
                                  lim,
                                  timings,
                                  view && !strcmp(view, "summary") ? "true" : "false"};
        if (format && !strcmp(format, "csv"))
            st = api_reply_value(r, results_csv_sql, 13, params, "text/csv", "no such result");
        else if (format && !strcmp(format, "babelstream"))
            st = api_reply_value(r, results_babelstream_sql, 12, params, "text/csv", "no such result");
        else
            st = api_reply_value(r, results_sql, 14, params, NULL, "no such result");
        free(timings);
    }
    if (st == 500 && !strncmp(r->err.code, "internal", 8) && since)
        return req_fail(r, ERR_INVALID_PARAMETER, "since", "since must be an RFC 3339 time");
    return st;
}

int results_get(struct request *r)
{
    char *timings;
    int st;

    if ((st = req_check_query(r, "")))
        return st;
    if (!parse_id(r->args[0]))
        return req_fail(r, ERR_NOT_FOUND, NULL, "no such result");
    timings = timing_map();
    const char *params[2] = {r->args[0], timings};
    st = api_reply_value(r, result_get_sql, 2, params, NULL, "no such result");
    free(timings);
    return st;
}

/* PATCH {"note": "..."|null, "exclude": true|false}: either or both. */
int results_annotate(struct request *r)
{
    static const char *const fields[] = {"note", "exclude", NULL};
    json_t *note = json_object_get(r->json, "note"), *exclude = json_object_get(r->json, "exclude");
    struct db_error dberr;
    PGresult *res;
    int st;

    if (!parse_id(r->args[0]))
        return req_fail(r, ERR_NOT_FOUND, NULL, "no such result");
    if ((st = fields_only(r, r->json, "", fields)))
        return st;
    if (!note && !exclude)
        return req_fail(r, ERR_MISSING_FIELD, "note", "give a note, exclude, or both");
    if (note && !json_is_null(note) && (!json_is_string(note) || json_string_length(note) > 2000))
        return req_fail(r, ERR_WRONG_TYPE, "note", "note must be a string of at most 2000 bytes, or null");
    if (exclude && !json_is_boolean(exclude))
        return req_fail(r, ERR_WRONG_TYPE, "exclude", "exclude must be true or false");
    const char *params[4] = {r->args[0], note ? "true" : "false",
                             json_is_string(note) ? json_string_value(note) : NULL,
                             exclude ? (json_is_true(exclude) ? "true" : "false") : NULL};
    if (!(res = db_query(result_note_sql, 4, params, &dberr)))
        return api_db_fail(r, &dberr);
    int found = PQntuples(res);
    PQclear(res);
    if (!found)
        return req_fail(r, ERR_NOT_FOUND, NULL, "no such result");
    return results_get(r);
}

int results_delete(struct request *r)
{
    const char *params[1] = {r->args[0]};
    struct db_error dberr;
    PGresult *res;
    int found;

    if (!parse_id(r->args[0]))
        return req_fail(r, ERR_NOT_FOUND, NULL, "no such result");
    if (!(res = db_query(result_delete_sql, 1, params, &dberr)))
        return api_db_fail(r, &dberr);
    found = PQntuples(res);
    PQclear(res);
    if (!found)
        return req_fail(r, ERR_NOT_FOUND, NULL, "no such result");
    r->reply = json_pack("{s:I}", "deleted", (json_int_t)parse_id(r->args[0]));
    return 200;
}
