/*
 * api/pp: performance portability (paper 003) over the API. GET /api/v1/pp checks its parameters and asks
 * PostgreSQL for the whole document (pp_doc in schema/functions/pp.sql, where every efficiency and PP
 * definition lives). POST /api/v1/import/babelstream parses BabelStream's CSV (lib/babelstream.c, the parser
 * the runners share) before touching the database, then stores the rows, and the platform when it is new, in
 * one statement: a malformed file imports nothing. GET /api/v1/pp/policies asks pp_policies
 * (schema/functions/pp.sql) for the PP of every variant policy and adds each policy's code divergence over
 * the line sets the build embedded (linesets.c). HTTP pool threads; each request owns what it allocates.
 */
#include "server/api/pp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "lib/log.h"
#include "lib/strbuf.h"
#include "lib/peak.h"
#include "server/api/api.h"
#include "server/api/catalog.h"
#include "lib/babelstream.h"
#include "server/api/linesets.h"
#include "server/http/parse.h"

static const char pp_sql[] = "SELECT d->'error'->>'code', d->'error'->>'field', d->'error'->>'message', "
                             "CASE WHEN d ? 'error' THEN NULL ELSE d::text END "
                             "FROM pp_doc($1, $2, $3, $4::bigint, $8, string_to_array($5, ','), $6, $7, "
                             "$9::boolean, $10::boolean) d";

static const char policies_sql[] =
    "SELECT d->'error'->>'code', d->'error'->>'field', d->'error'->>'message', "
    "CASE WHEN d ? 'error' THEN NULL ELSE d::text END "
    "FROM pp_policies($1, $2, $3, $4::bigint, $10, string_to_array($5, ','), $6, $7::jsonb, $8::boolean, "
    "$9::boolean) d";

static const char platform_sql[] = "SELECT host_id IS NOT NULL FROM platforms WHERE id = $1";

/* $1 platform, $2 model, $3 platform_name, $4 kind, $5 peak GB/s, $6 variant, $7 the rows (JSON), $8 when the
 * rows were measured (NULL: now). A new platform has no host; an imported platform takes the description
 * given; a registered one keeps its own. A given date is the results' date, and their provenance keeps both.
 */
static const char import_sql[] =
    "WITH np AS (INSERT INTO platforms (id, kind, name, peak_bandwidth, peak_source) "
    "  VALUES ($1, coalesce($4, 'gpu'), coalesce($3, $1), $5::float8 * 1e9, "
    "    CASE WHEN $5 IS NULL THEN 'unknown: give peak_gbs (GB/s) when importing' "
    "    ELSE 'operator: peak_gbs given at import' END) "
    "  ON CONFLICT (id) DO UPDATE SET name = coalesce($3, platforms.name), "
    "    kind = coalesce($4, platforms.kind), "
    "    peak_bandwidth = coalesce($5::float8 * 1e9, platforms.peak_bandwidth), "
    "    peak_source = CASE WHEN $5 IS NULL THEN platforms.peak_source "
    "      ELSE 'operator: peak_gbs given at import' END, last_seen = now() "
    "  WHERE platforms.host_id IS NULL RETURNING (xmax = 0) AS created), "
    "ins AS (INSERT INTO results (platform_id, suite, kernel, model, variant, precision, size, bytes, flops, "
    "    min_s, max_s, mean_s, bandwidth, gflops, verified, provenance, origin, created_at) "
    "  SELECT $1, 'stream', x.kernel, $2, $6, x.precision, x.size, x.bytes, x.flops, x.min_s, x.max_s, "
    "    x.mean_s, x.bandwidth, x.gflops, true, x.provenance || CASE WHEN $8::timestamptz IS NULL THEN '{}' "
    "      ELSE jsonb_build_object('measured_at', $8::timestamptz, 'imported_at', now()) END, 'import', "
    "    coalesce($8::timestamptz, now()) "
    "  FROM jsonb_to_recordset($7::jsonb) AS x(line int, kernel text, precision text, size bigint, "
    "    bytes float8, flops float8, min_s float8, max_s float8, mean_s float8, bandwidth float8, "
    "    gflops float8, provenance jsonb) ORDER BY x.line RETURNING id) "
    "SELECT coalesce((SELECT created FROM np), false), "
    "  (SELECT coalesce(jsonb_agg(id ORDER BY id), '[]') FROM ins)::text";

static const char *or_default(const char *v, const char *def)
{
    return v && *v ? v : def;
}

int pp_include_runners(struct request *r, const char **out)
{
    const char *v = req_query(r, "include_runners");

    *out = v && *v ? v : "false";
    if (strcmp(*out, "true") && strcmp(*out, "false"))
        return req_fail(r, ERR_INVALID_PARAMETER, "include_runners", "include_runners must be true or false");
    return 0;
}

/* problem=suite.kernel, both in the catalogue; *out is the suite. */
static int parse_problem(struct request *r, const char *problem, char *suite, char *kernel, size_t size,
                         const struct suite **out)
{
    const char *dot;
    const struct suite *s;

    if (!problem || !*problem)
        return req_fail(r, ERR_MISSING_PARAMETER, "problem",
                        "problem is required, e.g. problem=stream.triad");
    dot = strchr(problem, '.');
    if (!dot || dot == problem || !dot[1] || (size_t)(dot - problem) >= size || strlen(dot + 1) >= size)
        return req_fail(r, ERR_INVALID_PARAMETER, "problem",
                        "problem must be suite.kernel, e.g. stream.triad");
    snprintf(suite, size, "%.*s", (int)(dot - problem), problem);
    snprintf(kernel, size, "%s", dot + 1);
    s = catalog_suite(suite);
    if (!s || !catalog_kernel(s, kernel))
        return req_fail(r, ERR_UNKNOWN_PROBLEM, "problem", "unknown problem \"%s\"", problem);
    *out = s;
    return 0;
}

/* The query's key= (NULL: none given): a problem key as results carry it (problem_key). */
static int check_key(struct request *r, const char *key)
{
    if (key && (!*key || !parse_text(key, SUITE_KEY_MAX - 1, false)))
        return req_fail(r, ERR_INVALID_PARAMETER, "key",
                        "key must be a problem key (a result's problem_key)");
    return 0;
}

int pp_get(struct request *r)
{
    const char *platforms = or_default(req_query(r, "platforms"), NULL),
               *efficiency = or_default(req_query(r, "efficiency"), "app"),
               *precision = req_query(r, "precision"), *size_s = req_query(r, "size"),
               *policy = or_default(req_query(r, "variant_policy"), "best"),
               *variant = req_query(r, "variant"), *key = req_query(r, "key"),
               *flagged = or_default(req_query(r, "include_flagged"), "false"), *runners = NULL;
    const struct suite *s = NULL;
    char suite[64], kernel[64], size[24];
    struct db_error dberr;
    PGresult *res;
    int st;

    if ((st = req_check_query(r, "problem,platforms,efficiency,precision,size,variant_policy,variant,key,"
                                 "include_flagged,include_runners")) ||
        (st = parse_problem(r, req_query(r, "problem"), suite, kernel, sizeof(suite), &s)) ||
        (st = pp_include_runners(r, &runners)))
        return st;
    if (!precision || !*precision) /* the suite's own default: fp32 for wilson, fp64 for the others */
        precision = catalog_default_choice(s, "precision") ? catalog_default_choice(s, "precision") : "fp64";
    if (strcmp(efficiency, "app") && strcmp(efficiency, "arch"))
        return req_fail(r, ERR_INVALID_PARAMETER, "efficiency", "efficiency must be app or arch");
    if (strcmp(precision, "fp64") && strcmp(precision, "fp32"))
        return req_fail(r, ERR_INVALID_PARAMETER, "precision", "precision must be fp64 or fp32");
    if (size_s && *size_s && parse_id(size_s) == 0)
        return req_fail(r, ERR_INVALID_PARAMETER, "size",
                        "size must be a positive number of elements or lattice sites");
    snprintf(size, sizeof(size), "%lld", size_s && *size_s ? parse_id(size_s) : 0);
    if (strcmp(policy, "best") && strcmp(policy, "fixed"))
        return req_fail(r, ERR_INVALID_PARAMETER, "variant_policy", "variant_policy must be best or fixed");
    if (!strcmp(policy, "fixed") && !variant)
        return req_fail(r, ERR_MISSING_PARAMETER, "variant", "variant_policy=fixed needs variant=...");
    if (!strcmp(policy, "best") && variant)
        return req_fail(r, ERR_INVALID_PARAMETER, "variant",
                        "variant is only used with variant_policy=fixed");
    if (variant && !parse_text(variant, 512, true))
        return req_fail(r, ERR_INVALID_PARAMETER, "variant", "variant must be printable text");
    if (platforms && !parse_platform_list(platforms))
        return req_fail(r, ERR_INVALID_PARAMETER, "platforms",
                        "platforms must be a comma-separated list of ids");

    if ((st = check_key(r, key)))
        return st;
    if (strcmp(flagged, "true") && strcmp(flagged, "false"))
        return req_fail(r, ERR_INVALID_PARAMETER, "include_flagged", "include_flagged must be true or false");

    const char *params[10] = {suite,     kernel,     precision, size_s && *size_s ? size : NULL,
                              platforms, efficiency, variant,   key,
                              flagged,   runners};
    if (!(res = db_query(pp_sql, 10, params, &dberr)))
        return api_db_fail(r, &dberr);
    if (!PQgetisnull(res, 0, 0))
        st = req_fail(r, errors_from_code(PQgetvalue(res, 0, 0)), PQgetvalue(res, 0, 1), "%s",
                      PQgetvalue(res, 0, 2));
    else
        st = req_reply_text(r, 200, strdup(PQgetvalue(res, 0, 3)), NULL);
    PQclear(res);
    return st;
}

/* A model name as jobs allow it: [a-z][a-z0-9_-]{0,31}. */
static bool valid_model(const char *s, size_t n)
{
    return n >= 1 && n <= 32 && s[0] >= 'a' && s[0] <= 'z' &&
           strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") >= n;
}

/* subsets=model:variant,model:variant;...: the user's policies as pp_policies reads them (new reference),
 * [{"name": "m:v + m:v", "members": [[m, v], ...]}]; NULL with *why set when malformed. */
static json_t *parse_subsets(const char *s, const char **why)
{
    json_t *all = json_array();
    char name[2048];

    while (all && s && *s) {
        size_t n = strcspn(s, ";"), used = 0;
        json_t *members = json_array();
        const char *p = s, *end = s + n;

        if (!members || json_array_size(all) == 16) {
            *why = "at most 16 subsets";
            goto bad;
        }
        name[0] = '\0';
        while (p < end) {
            size_t m = strcspn(p, ",;"), ml;
            const char *colon = memchr(p, ':', m);
            char model[40], variant[160];

            if (m > (size_t)(end - p))
                m = (size_t)(end - p);
            ml = colon ? (size_t)(colon - p) : 0;
            if (!colon || !valid_model(p, ml) || m - ml - 1 == 0 || m - ml - 1 >= sizeof(variant)) {
                *why = "subsets must be model:variant,model:variant;... e.g. opencl:memory-32,openmp:simd";
                json_decref(members);
                goto bad;
            }
            snprintf(model, sizeof(model), "%.*s", (int)ml, p);
            snprintf(variant, sizeof(variant), "%.*s", (int)(m - ml - 1), colon + 1);
            if (!parse_text(variant, sizeof(variant) - 1, false) || json_array_size(members) == 16) {
                *why = "a subset's variant must be printable text; at most 16 members";
                json_decref(members);
                goto bad;
            }
            json_array_append_new(members, json_pack("[s, s]", model, variant));
            if (used < sizeof(name))
                used += (size_t)snprintf(name + used, sizeof(name) - used, "%s%s:%s", used ? " + " : "",
                                         model, variant);
            p += m;
            if (p < end && *p == ',')
                p++;
        }
        if (json_array_size(members) == 0) {
            *why = "an empty subset";
            json_decref(members);
            goto bad;
        }
        json_array_append_new(all, json_pack("{s:s, s:o}", "name", name, "members", members));
        s += n;
        if (*s == ';')
            s++;
    }
    return all;
bad:
    json_decref(all);
    return NULL;
}

/* The code divergence of one policy (its efficiencies name the model and variant run on each platform):
 * code_divergence, code_convergence and divergence_note added to it. */
static void policy_divergence(json_t *policy, const char *suite, const char *precision)
{
    json_t *cells = json_object_get(policy, "efficiencies"), *cell;
    struct divergence_set sets[64];
    size_t i, n = 0, idle = 0;
    char note[512] = "";
    struct pp_error err;
    double d;

    json_array_foreach(cells, i, cell)
    {
        const char *model = json_string_value(json_object_get(cell, "model")),
                   *variant = json_string_value(json_object_get(cell, "variant"));
        const struct divergence_set *set;

        if (!model || !variant) {
            idle++;
            continue;
        }
        if (!(set = linesets_find(suite, model, variant, precision))) {
            snprintf(note, sizeof(note), "no line set for %s on %s, variant %s, %s", suite, model, variant,
                     precision);
            break;
        }
        if (n == sizeof(sets) / sizeof(sets[0])) {
            snprintf(note, sizeof(note), "more than %zu platforms", n);
            break;
        }
        sets[n++] = *set;
    }
    if (!*note && n == 0)
        snprintf(note, sizeof(note), "the policy ran on no platform");
    if (!*note && divergence_code(sets, n, &d, &err))
        snprintf(note, sizeof(note), "%s", err.msg);
    if (*note) {
        json_object_set_new(policy, "code_divergence", json_null());
        json_object_set_new(policy, "code_convergence", json_null());
    } else {
        json_object_set_new(policy, "code_divergence", json_real(d));
        json_object_set_new(policy, "code_convergence", json_real(1 - d));
        if (idle)
            snprintf(note, sizeof(note), "over the %zu of %zu platforms where the policy ran", n, n + idle);
    }
    json_object_set_new(policy, "divergence_note", *note ? json_string(note) : json_null());
}

int pp_policies_get(struct request *r)
{
    const char *platforms = or_default(req_query(r, "platforms"), NULL),
               *efficiency = or_default(req_query(r, "efficiency"), "app"),
               *precision = req_query(r, "precision"), *size_s = req_query(r, "size"),
               *subsets_s = req_query(r, "subsets"), *why = NULL, *runners = NULL, *key = req_query(r, "key"),
               *flagged = or_default(req_query(r, "include_flagged"), "false");
    const struct suite *s = NULL;
    char suite[64], kernel[64], size[24], *subsets = NULL;
    json_t *subsets_json = NULL, *doc, *policy;
    struct db_error dberr;
    PGresult *res = NULL;
    size_t i;
    int st;

    if ((st = req_check_query(
             r, "problem,platforms,efficiency,precision,size,key,subsets,include_flagged,include_runners")) ||
        (st = parse_problem(r, req_query(r, "problem"), suite, kernel, sizeof(suite), &s)) ||
        (st = pp_include_runners(r, &runners)))
        return st;
    if (!precision || !*precision)
        precision = catalog_default_choice(s, "precision") ? catalog_default_choice(s, "precision") : "fp64";
    if (strcmp(efficiency, "app") && strcmp(efficiency, "arch"))
        return req_fail(r, ERR_INVALID_PARAMETER, "efficiency", "efficiency must be app or arch");
    if (strcmp(precision, "fp64") && strcmp(precision, "fp32"))
        return req_fail(r, ERR_INVALID_PARAMETER, "precision", "precision must be fp64 or fp32");
    if (strcmp(flagged, "true") && strcmp(flagged, "false"))
        return req_fail(r, ERR_INVALID_PARAMETER, "include_flagged", "include_flagged must be true or false");
    if (size_s && *size_s && parse_id(size_s) == 0)
        return req_fail(r, ERR_INVALID_PARAMETER, "size",
                        "size must be a positive number of elements or lattice sites");
    snprintf(size, sizeof(size), "%lld", size_s && *size_s ? parse_id(size_s) : 0);
    if ((st = check_key(r, key)))
        return st;
    if (platforms && !parse_platform_list(platforms))
        return req_fail(r, ERR_INVALID_PARAMETER, "platforms",
                        "platforms must be a comma-separated list of ids");
    if (!(subsets_json = parse_subsets(subsets_s, &why)))
        return req_fail(r, why ? ERR_INVALID_PARAMETER : ERR_INTERNAL, why ? "subsets" : NULL, "%s",
                        why ? why : "out of memory");
    if (!(subsets = json_dumps(subsets_json, JSON_COMPACT))) {
        st = req_fail(r, ERR_INTERNAL, NULL, "out of memory");
        goto out;
    }

    const char *params[10] = {suite,     kernel,     precision, size_s && *size_s ? size : NULL,
                              platforms, efficiency, subsets,   flagged,
                              runners,   key};
    if (!(res = db_query(policies_sql, 10, params, &dberr))) {
        st = api_db_fail(r, &dberr);
        goto out;
    }
    if (!PQgetisnull(res, 0, 0)) {
        st = req_fail(r, errors_from_code(PQgetvalue(res, 0, 0)), PQgetvalue(res, 0, 1), "%s",
                      PQgetvalue(res, 0, 2));
        goto out;
    }
    if (!(doc = json_loads(PQgetvalue(res, 0, 3), 0, NULL))) {
        st = req_fail(r, ERR_INTERNAL, NULL, "out of memory");
        goto out;
    }
    json_array_foreach(json_object_get(doc, "policies"), i, policy)
        policy_divergence(policy, suite, precision);
    json_object_set_new(
        doc, "divergence_method",
        json_string("code divergence over the source lines the preprocessor keeps when the "
                    "application is built for each model, variant and precision: the suite's "
                    "driver and plug-in, the model's core and the suite's model files, with the "
                    "project headers they include, fingerprinted at build time "
                    "(docs/METHODOLOGY.md, \"Code divergence\")"));
    r->reply = doc;
    st = 200;
out:
    PQclear(res);
    free(subsets);
    json_decref(subsets_json);
    return st;
}

/* text/csv, or text/plain as BabelStream's output piped from a shell often is. */
static bool csv_type(const char *ct)
{
    static const char *const ok[] = {"text/csv", "text/plain"};

    for (int i = 0; ct && i < 2; i++) {
        size_t n = strlen(ok[i]);
        if (!strncasecmp(ct, ok[i], n) && (!ct[n] || ct[n] == ';' || ct[n] == ' '))
            return true;
    }
    return false;
}

/* An imported row's problem as the stream suite reports one (size, precision, numtimes: BabelStream's
 * num_times counts its first, excluded, iteration as ours does), with its problem key, so that it meets the
 * workers' results of the same key (new reference). */
static json_t *import_problem(const struct babelstream_row *x)
{
    json_t *p = json_pack("{s:I, s:I, s:s, s:I}", "size", (json_int_t)x->n_elements, "array_size",
                          (json_int_t)x->n_elements, "precision", x->element_bytes == 4 ? "fp32" : "fp64",
                          "numtimes", (json_int_t)x->num_times);
    char key[SUITE_KEY_MAX];
    struct suite_error e;

    if (p && suite_problem_key(suite_find("stream"), p, key, sizeof(key), &e) == 0)
        json_object_set_new(p, "key", json_string(key));
    return p;
}

/* json_dump_callback's writer: into a strbuf. */
static int dump_to(const char *buf, size_t size, void *data)
{
    struct strbuf *t = data;

    strbuf_add(t, buf, size);
    return t->failed ? -1 : 0;
}

/* One row as an element of the array import_sql reads (new reference). */
static json_t *row_json(struct request *r, const struct babelstream_row *x)
{
    json_t *prov =
        json_pack("{s:s, s:s, s:i, s:s, s:I, s:s, s:s, s:s, s:I, s:o}", "source", "babelstream-csv",
                  "babelstream_format", x->format, "csv_line", x->line, "function", x->function, "num_times",
                  (json_int_t)x->num_times, "unit", x->unit, "verified_by",
                  "babelstream (its own check; an imported row is taken as verified)", "request_id", r->id,
                  "token_id", (json_int_t)r->token_id, "problem", import_problem(x));

    return json_pack("{s:i, s:s, s:s, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:o}", "line", x->line,
                     "kernel", x->kernel, "precision", x->element_bytes == 4 ? "fp32" : "fp64", "size",
                     (json_int_t)x->n_elements, "bytes", x->bytes, "flops", x->flops, "min_s", x->min_s,
                     "max_s", x->max_s, "mean_s", x->mean_s, "bandwidth", x->bandwidth, "gflops",
                     x->min_s > 0 ? x->flops / x->min_s * 1e-9 : 0.0, "provenance", prov);
}

/* The rows as the JSON array import_sql reads (new string, free()), or NULL when out of memory. Written a row
 * at a time: a tree of every row held 447 MB for 76,240 rows (docs/PERFORMANCE.md); the text is about 50. */
static char *rows_json(struct request *r, const struct babelstream_set *set)
{
    struct strbuf t = {malloc(1u << 16), 0, 1u << 16, false};

    if (!t.p)
        return NULL;
    strbuf_add(&t, "[", 1);
    for (size_t i = 0; i < set->n && !t.failed; i++) {
        json_t *o = row_json(r, &set->rows[i]);

        if (!o || (i > 0 && dump_to(",", 1, &t)) || json_dump_callback(o, dump_to, &t, JSON_COMPACT))
            t.failed = true;
        json_decref(o);
    }
    strbuf_add(&t, "]", 1);
    if (t.failed) {
        free(t.p);
        return NULL;
    }
    return t.p;
}

/* "5.0" or "5.0, 6.0": the formats the rows came in, in order of appearance. */
static void formats(const struct babelstream_set *set, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < set->n; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(set->rows[j].format, set->rows[i].format);
        if (!seen && len < size)
            len += snprintf(buf + len, size - len, "%s%s", len ? ", " : "", set->rows[i].format);
    }
}

/* measured_at: an ISO 8601 date (2026-11-20) or UTC time (2026-11-20T09:30:00Z, with seconds' fractions or an
 * offset +01:00), not in the future (a minute of clock skew allowed). */
static bool measured_at_ok(const char *s)
{
    struct tm tm = {0};
    const char *rest = strptime(s, "%Y-%m-%d", &tm);
    long offset = 0;
    int oh, om, n = 0;

    if (!rest || tm.tm_year < 70)
        return false;
    if (*rest) {
        if (!(rest = strptime(rest, "T%H:%M:%S", &tm)))
            return false;
        if (*rest == '.' && rest[1] >= '0' && rest[1] <= '9')
            rest += 1 + strspn(rest + 1, "0123456789");
        if (*rest == 'Z')
            rest++;
        else if ((*rest == '+' || *rest == '-') && sscanf(rest + 1, "%2d:%2d%n", &oh, &om, &n) == 2 &&
                 n == 5 && oh < 24 && om < 60)
            offset = (*rest == '+' ? 1 : -1) * (oh * 3600L + om * 60L), rest += 6;
        else
            return false;
    }
    return !*rest && timegm(&tm) - offset <= time(NULL) + 60;
}

/* The query parameters of an import, checked. */
static int import_params(struct request *r, const char **p)
{
    const char *peak = p[4];
    char *end;
    double v;

    if (!p[0] || !*p[0])
        return req_fail(r, ERR_MISSING_PARAMETER, "platform", "platform is required");
    if (!parse_platform_id(p[0]))
        return req_fail(r, ERR_INVALID_PARAMETER, "platform",
                        "platform must be 1 to 160 of the characters A-Z a-z 0-9 . _ / : -");
    if (!p[1] || !*p[1])
        return req_fail(r, ERR_MISSING_PARAMETER, "model",
                        "model is required (the implementation, e.g. kokkos)");
    if (strlen(p[1]) > 32 || p[1][0] < 'a' || p[1][0] > 'z' ||
        strspn(p[1], "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(p[1]))
        return req_fail(r, ERR_INVALID_PARAMETER, "model",
                        "model must start with a-z and hold up to 32 of a-z 0-9 _ -");
    if (p[2] && !parse_text(p[2], 128, false))
        return req_fail(r, ERR_INVALID_PARAMETER, "platform_name",
                        "platform_name must be 1 to 128 printable characters");
    if (p[3] && strcmp(p[3], "cpu") && strcmp(p[3], "gpu") && strcmp(p[3], "accel"))
        return req_fail(r, ERR_INVALID_PARAMETER, "kind", "kind must be cpu, gpu or accel");
    if (peak) {
        v = strtod(peak, &end);
        if (!*peak || *end || !pp_peak_ok(v * 1e9))
            return req_fail(r, ERR_INVALID_PARAMETER, "peak_gbs",
                            "peak_gbs must be a number of GB/s above 0 and at most %.0f", PP_PEAK_MAX_GBS);
    }
    if (p[5] && !parse_text(p[5], 512, true))
        return req_fail(r, ERR_INVALID_PARAMETER, "variant", "variant must be printable text");
    if (p[6] && !measured_at_ok(p[6]))
        return req_fail(
            r, ERR_INVALID_PARAMETER, "measured_at",
            "measured_at must be a date or a UTC time, 2026-11-20 or 2026-11-20T09:30:00Z, not in "
            "the future");
    return 0;
}

/* An existing platform: registered by a worker (its description is the worker's; importing into it is an
 * admin's) or not; a new id must not look like a worker's host/device id. */
static int check_platform(struct request *r, const char **p)
{
    const char *params[1] = {p[0]};
    struct db_error dberr;
    PGresult *res = db_query(platform_sql, 1, params, &dberr);
    int st = 0;

    if (!res)
        return api_db_fail(r, &dberr);
    if (PQntuples(res) == 0 && strchr(p[0], '/'))
        st =
            req_fail(r, ERR_INVALID_VALUE, "platform",
                     "a new platform id may not contain \"/\": host/device ids belong to registered workers");
    else if (PQntuples(res) == 1 && !strcmp(PQgetvalue(res, 0, 0), "t") && r->role != ROLE_ADMIN)
        /* A worker measures it (or a Slurm node runs it): its results feed baselines and drains, so what a
         * table claims of it is an admin's to add (imports are never judged: schema/functions/judge.sql). */
        st =
            req_fail(r, ERR_FORBIDDEN, "platform",
                     "platform \"%s\" is measured by a worker: importing into it needs an admin token", p[0]);
    else if (PQntuples(res) == 1 && !strcmp(PQgetvalue(res, 0, 0), "t") && (p[2] || p[3] || p[4]))
        st = req_fail(r, ERR_PLATFORM_REGISTERED,
                      p[2]   ? "platform_name"
                      : p[3] ? "kind"
                             : "peak_gbs",
                      "platform \"%s\" is registered by a worker: its name, kind and peak come from there",
                      p[0]);
    PQclear(res);
    return st;
}

int import_babelstream(struct request *r)
{
    const char *p[7] = {req_query(r, "platform"),
                        req_query(r, "model"),
                        req_query(r, "platform_name"),
                        req_query(r, "kind"),
                        req_query(r, "peak_gbs"),
                        or_default(req_query(r, "variant"), ""),
                        or_default(req_query(r, "measured_at"), NULL)};
    struct babelstream_set set = {0};
    struct pp_error perr;
    struct db_error dberr;
    char *rows = NULL, fmt[64];
    PGresult *res = NULL;
    int st;

    if ((st = req_check_query(r, "platform,model,variant,platform_name,kind,peak_gbs,measured_at")) ||
        (st = import_params(r, p)))
        return st;
    if (!csv_type(MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE)))
        return req_fail(r, ERR_UNSUPPORTED_MEDIA_TYPE, NULL,
                        "the body must be text/csv (BabelStream's --csv output)");
    if (babelstream_parse(r->body, r->body_len, &set, &perr))
        return req_fail(r, ERR_INVALID_CSV, NULL, "%s", perr.msg);
    if ((st = check_platform(r, p)))
        goto out;
    if (!(rows = rows_json(r, &set))) {
        st = req_fail(r, ERR_INTERNAL, NULL, "out of memory");
        goto out;
    }
    const char *params[8] = {p[0], p[1], p[2], p[3], p[4], p[5], rows, p[6]};
    if (!(res = db_query(import_sql, 8, params, &dberr))) {
        if (!strncmp(dberr.sqlstate, "22", 2) || !strncmp(dberr.sqlstate, "23", 2)) {
            log_info("request=%s import refused: %s", r->id, dberr.e.msg);
            st = req_fail(r, ERR_INVALID_VALUE, NULL, "the import does not satisfy the database's checks");
        } else {
            st = api_db_fail(r, &dberr);
        }
        goto out;
    }
    formats(&set, fmt, sizeof(fmt));
    log_info("request=%s import platform=%s model=%s rows=%zu format=%s%s", r->id, p[0], p[1], set.n, fmt,
             !strcmp(PQgetvalue(res, 0, 0), "t") ? " (new platform)" : "");
    r->reply =
        json_pack("{s:s, s:b, s:s, s:s, s:s, s:I, s:o}", "platform", p[0], "platform_created",
                  !strcmp(PQgetvalue(res, 0, 0), "t"), "model", p[1], "variant", p[5], "format", fmt,
                  "imported", (json_int_t)set.n, "result_ids", json_loads(PQgetvalue(res, 0, 1), 0, NULL));
    st = r->reply ? 201 : req_fail(r, ERR_INTERNAL, NULL, "out of memory");
out:
    PQclear(res);
    free(rows);
    babelstream_set_clear(&set);
    return st;
}
