/*
 * report_check: see report_check.h. Pure functions over jansson trees; any thread. The catalogue
 * (catalog.h) says which choices a suite's job can fix; the size is the problem's `size`, which every suite
 * reports in the unit its row names.
 */
#include "server/api/report_check.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/suite.h"
#include "lib/stats.h"
#include "server/api/catalog.h"

/* Fill field and err; always -1. */
static int bad(char *field, size_t size, const char *name, struct pp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int bad(char *field, size_t size, const char *name, struct pp_error *err, const char *fmt, ...)
{
    va_list ap;

    snprintf(field, size, "%s", name);
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return -1;
}

/* A finite JSON number in [0, max] (jansson holds only finite reals; strings such as "NaN" are not numbers).
 */
static int check_number(const json_t *v, double max, const char *name, char *field, size_t size,
                        struct pp_error *err)
{
    double x;

    if (!json_is_number(v))
        return bad(field, size, name, err, "%s must be a number", name);
    x = json_number_value(v);
    if (!isfinite(x) || x < 0 || x > max)
        return bad(field, size, name, err, "%s must be a finite number from 0 to %g", name, max);
    return 0;
}

/* Whether got agrees with want to REPORT_REL_TOLERANCE (the worker prints 10 significant digits). */
static bool agrees(double got, double want)
{
    return fabs(got - want) <= REPORT_REL_TOLERANCE * fmax(fabs(want), 1e-300);
}

/* The figures re-derived from the samples: the statistics of the timed samples (the last stats_s.count of
 * times_s: a warm-up the suite times comes first), then bandwidth = bytes / t and GFLOP/s = flops / t / 1e9
 * with t the suite's timing rule ("min" or "mean"). The kernel's numbers are already known finite. */
/* A runner's kernel (no samples): min <= mean <= max, and the figures from min or mean as the rule says. */
static int check_summary(const json_t *k, const char *timing, const char *at, char *field, size_t size,
                         struct pp_error *err)
{
    static const char *const figure[] = {"bandwidth_bytes_per_s", "gflops"};
    const json_t *st = json_object_get(k, "stats_s"), *count = json_object_get(st, "count");
    double min = json_number_value(json_object_get(st, "min")),
           max = json_number_value(json_object_get(st, "max"));
    double mean = json_number_value(json_object_get(st, "mean"));
    double t = timing && !strcmp(timing, "mean") ? mean : min;
    char name[160];

    snprintf(name, sizeof(name), "%s.times_s", at);
    if (json_object_get(k, "times_s"))
        return bad(field, size, name, err, "%s: a runner's report holds no samples", name);
    snprintf(name, sizeof(name), "%s.stats_s.count", at);
    if (!json_is_integer(count) || json_integer_value(count) < 1)
        return bad(field, size, name, err, "%s must be the number of timed iterations", name);
    snprintf(name, sizeof(name), "%s.stats_s", at);
    if (json_object_get(st, "median") || json_object_get(st, "stddev"))
        return bad(field, size, name, err, "%s: a runner's summary has no median or stddev", name);
    if (!(min > 0) || min > mean || mean > max)
        return bad(field, size, name, err, "%s: min <= mean <= max does not hold (min above 0)", name);
    for (size_t i = 0; i < 2; i++) {
        double model = json_number_value(json_object_get(k, i == 0 ? "bytes" : "flops"));
        double got = json_number_value(json_object_get(k, figure[i]));
        double want = model / t * (i == 0 ? 1 : 1e-9);
        snprintf(name, sizeof(name), "%s.%s", at, figure[i]);
        if (!agrees(got, want))
            return bad(field, size, name, err, "%s is %.10g, the %s time gives %.10g", name, got,
                       timing ? timing : "min", want);
    }
    return 0;
}

static int check_derived(const json_t *k, const char *timing, const char *at, char *field, size_t size,
                         struct pp_error *err)
{
    const json_t *times = json_object_get(k, "times_s"), *st = json_object_get(k, "stats_s");
    const json_t *count = json_object_get(st, "count");
    double min = INFINITY, max = 0, sum = 0, t, want;
    size_t n, first, i;
    char name[160];
    static const char *const figure[] = {"bandwidth_bytes_per_s", "gflops"};

    snprintf(name, sizeof(name), "%s.times_s", at);
    if (!times)
        return bad(field, size, name, err, "%s is required: the figures are derived from it", name);
    n = json_array_size(times);
    snprintf(name, sizeof(name), "%s.stats_s.count", at);
    if (!json_is_integer(count) || json_integer_value(count) < 1 || (size_t)json_integer_value(count) > n)
        return bad(field, size, name, err, "%s must be an integer from 1 to the %zu samples of times_s", name,
                   n);
    first = n - (size_t)json_integer_value(count);
    for (i = first; i < n; i++) {
        double x = json_number_value(json_array_get(times, i));
        min = fmin(min, x);
        max = fmax(max, x);
        sum += x;
    }
    {
        const struct {
            const char *key;
            double value;
        } derived[] = {{"min", min}, {"max", max}, {"mean", sum / (double)(n - first)}};
        for (i = 0; i < sizeof(derived) / sizeof(derived[0]); i++) {
            double got = json_number_value(json_object_get(st, derived[i].key));
            snprintf(name, sizeof(name), "%s.stats_s.%s", at, derived[i].key);
            if (!agrees(got, derived[i].value))
                return bad(field, size, name, err, "%s is %.10g, its samples give %.10g", name, got,
                           derived[i].value);
        }
        t = timing && !strcmp(timing, "mean") ? derived[2].value : min;
    }
    for (i = 0; i < 2; i++) {
        double model = json_number_value(json_object_get(k, i == 0 ? "bytes" : "flops"));
        double got = json_number_value(json_object_get(k, figure[i]));
        want = t > 0 ? model / t * (i == 0 ? 1 : 1e-9) : 0;
        snprintf(name, sizeof(name), "%s.%s", at, figure[i]);
        if (!agrees(got, want))
            return bad(field, size, name, err, "%s is %.10g, the %s time of its samples gives %.10g", name,
                       got, timing ? timing : "min", want);
    }
    return 0;
}

/* The kernel's byte and flop models are the suite's (m: kernels/<suite>/model.c for the report's problem),
 * not the worker's word: a worker that doubles bytes and bandwidth together (or flops and GFLOP/s) would pass
 * check_derived, and its figure would become the platform's best. NULL m: the suite is unknown here. */
static int check_model(const json_t *k, const struct suite_model *m, const char *at, char *field, size_t size,
                       struct pp_error *err)
{
    const struct {
        const char *key;
        double want;
    } models[] = {{"bytes", m ? m->bytes : 0},
                  {"bytes_compulsory", m ? m->bytes_compulsory : 0},
                  {"flops", m ? m->flops : 0}};
    char name[160];

    for (size_t i = 0; m && i < sizeof(models) / sizeof(models[0]); i++) {
        double got = json_number_value(json_object_get(k, models[i].key));
        snprintf(name, sizeof(name), "%s.%s", at, models[i].key);
        if (!agrees(got, models[i].want))
            return bad(field, size, name, err, "%s is %.10g, the suite's model gives %.10g", name, got,
                       models[i].want);
    }
    return 0;
}

static int check_kernel(const json_t *k, const struct suite_model *m, const char *timing, bool runner,
                        const char *at, char *field, size_t size, struct pp_error *err)
{
    static const struct {
        const char *key;
        double max;
    } figures[] = {{"bytes", REPORT_MAX_MODEL},
                   {"bytes_compulsory", REPORT_MAX_MODEL},
                   {"flops", REPORT_MAX_MODEL},
                   {"bandwidth_bytes_per_s", REPORT_MAX_BANDWIDTH},
                   {"gflops", REPORT_MAX_GFLOPS}};
    static const char *const stats[] = {"min", "max", "mean", "median", "stddev"};
    const json_t *times = json_object_get(k, "times_s"), *st = json_object_get(k, "stats_s"), *v;
    const json_t *error = json_object_get(k, "error");
    char name[160];
    size_t i;

    snprintf(name, sizeof(name), "%s.verified", at);
    if (!json_is_boolean(json_object_get(k, "verified")))
        return bad(field, size, name, err, "%s must be true or false", name);
    snprintf(name, sizeof(name), "%s.error", at);
    if (error && !json_is_null(error) && (!json_is_string(error) || json_string_length(error) > 4096))
        return bad(field, size, name, err, "%s must be null or a string of at most 4096 bytes", name);
    for (i = 0; i < sizeof(figures) / sizeof(figures[0]); i++) {
        snprintf(name, sizeof(name), "%s.%s", at, figures[i].key);
        if (check_number(json_object_get(k, figures[i].key), figures[i].max, name, field, size, err))
            return -1;
    }
    snprintf(name, sizeof(name), "%s.times_s", at);
    if (times && (!json_is_array(times) || json_array_size(times) > REPORT_MAX_SAMPLES))
        return bad(field, size, name, err, "%s must be an array of at most %d numbers", name,
                   REPORT_MAX_SAMPLES);
    json_array_foreach(times, i, v)
    {
        snprintf(name, sizeof(name), "%s.times_s[%zu]", at, i);
        if (check_number(v, REPORT_MAX_SECONDS, name, field, size, err))
            return -1;
    }
    snprintf(name, sizeof(name), "%s.stats_s", at);
    if (!json_is_object(st))
        return bad(field, size, name, err, "%s must be an object", name);
    for (i = 0; i < sizeof(stats) / sizeof(stats[0]) - (runner ? 2 : 0);
         i++) { /* a summary: no median, stddev */
        snprintf(name, sizeof(name), "%s.stats_s.%s", at, stats[i]);
        if (check_number(json_object_get(st, stats[i]), REPORT_MAX_SECONDS, name, field, size, err))
            return -1;
    }
    v = json_object_get(st, "count");
    snprintf(name, sizeof(name), "%s.stats_s.count", at);
    if (v && (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > REPORT_MAX_SAMPLES))
        return bad(field, size, name, err, "%s must be an integer from 0 to %d", name, REPORT_MAX_SAMPLES);
    if (check_model(k, m, at, field, size, err))
        return -1;
    return runner ? check_summary(k, timing, at, field, size, err)
                  : check_derived(k, timing, at, field, size, err);
}

/* Each of the job's kernels exactly once, and no other; timing: the job's rule (suite_timing); runner: a
 * runner's summary report; models: the suite's for the report's problem, one per kernel of the suite (NULL
 * where the suite is unknown). */
static int check_kernels(const struct suite *s, const char *timing, bool runner,
                         const struct suite_model *models, const json_t *want, const json_t *got, char *field,
                         size_t size, struct pp_error *err)
{
    size_t i, j;
    const json_t *k;
    char at[48];

    if (!json_is_array(got) || json_array_size(got) == 0)
        return bad(field, size, "report.kernels", err, "report.kernels must be a non-empty array");
    if (json_array_size(got) > json_array_size(want))
        return bad(field, size, "report.kernels", err, "the report holds %zu kernels, the job asked for %zu",
                   json_array_size(got), json_array_size(want));
    json_array_foreach(got, i, k)
    {
        const char *name = json_string_value(json_object_get(k, "kernel"));
        bool asked = false;

        snprintf(at, sizeof(at), "report.kernels[%zu]", i);
        if (!json_is_object(k))
            return bad(field, size, at, err, "%s must be an object", at);
        snprintf(at, sizeof(at), "report.kernels[%zu].kernel", i);
        if (!name || (s && !catalog_kernel(s, name)))
            return bad(field, size, at, err, "%s must be a kernel of suite %s", at, s ? s->name : "?");
        for (j = 0; j < json_array_size(want) && !asked; j++)
            asked = json_is_string(json_array_get(want, j)) &&
                    !strcmp(json_string_value(json_array_get(want, j)), name);
        if (!asked)
            return bad(field, size, at, err, "kernel %.64s was not asked for by the job", name);
        for (j = 0; j < i; j++)
            if (!strcmp(json_string_value(json_object_get(json_array_get(got, j), "kernel")), name))
                return bad(field, size, at, err, "kernel %.64s is reported twice", name);
        snprintf(at, sizeof(at), "report.kernels[%zu]", i);
        if (check_kernel(k, models ? &models[suite_kernel_index(s, name)] : NULL, timing, runner, at, field,
                         size, err))
            return -1;
    }
    if (json_array_size(got) != json_array_size(want))
        return bad(field, size, "report.kernels", err, "the report holds %zu of the job's %zu kernels",
                   json_array_size(got), json_array_size(want));
    return 0;
}

/* The problem's size, problem.size in the unit the suite's row names (kernels/suite.h), against the job's
 * parameter that gives it, where the job gives one (the suite's parameter marked size). */
static int check_size(const struct suite *s, const json_t *params, const json_t *problem, char *field,
                      size_t size, struct pp_error *err)
{
    const json_t *v = json_object_get(problem, "size");
    const char *name = "report.problem.size";
    long long n, want = 0;

    if (!v)
        return bad(field, size, name, err, "%s is required", name);
    if (!json_is_integer(v) || (n = json_integer_value(v)) < 1 || n > REPORT_MAX_SIZE)
        return bad(field, size, name, err, "%s must be an integer from 1 to %lld", name, REPORT_MAX_SIZE);
    for (size_t i = 0; s && i < s->nparams; i++) {
        const json_t *given = json_object_get(params, s->params[i].name);
        if (s->params[i].size && json_is_integer(given))
            want = json_integer_value(given);
    }
    if (want && n != want)
        return bad(field, size, name, err, "%s is %lld, the job asked for %lld", name, n, want);
    return 0;
}

/* problem.key is the suite's key over the problem the report holds (kernels/suite.h): a worker cannot file
 * a result under another problem than the one it describes. */
static int check_key(const struct suite *s, const json_t *params, const json_t *problem, char *field,
                     size_t size, struct pp_error *err)
{
    const char *got = json_string_value(json_object_get(problem, "key"));
    char want[SUITE_KEY_MAX], ran[SUITE_KEY_MAX], name[96];
    struct suite_error e;

    if (!s)
        return 0;
    /* what the job fixed of the key is what ran (a parameter the job leaves to the device is the worker's) */
    for (size_t i = 0; i < s->nparams; i++) {
        const json_t *asked = json_object_get(params, s->params[i].name);
        if (!s->params[i].key || !asked || suite_key_value(asked, want, sizeof(want)))
            continue;
        snprintf(name, sizeof(name), "report.problem.%s", s->params[i].name);
        if (suite_key_value(json_object_get(problem, s->params[i].name), ran, sizeof(ran)) ||
            strcmp(ran, want))
            return bad(field, size, name, err, "%s must be the job's %.64s", name, want);
    }
    if (suite_problem_key(s, problem, want, sizeof(want), &e)) {
        snprintf(name, sizeof(name), "report.%s", e.field);
        return bad(field, size, name, err, "report.%s", e.msg);
    }
    if (!got)
        return bad(field, size, "report.problem.key", err, "report.problem.key is required: %s", want);
    if (strcmp(got, want))
        return bad(field, size, "report.problem.key", err,
                   "report.problem.key is %.120s, its problem gives %.120s", got, want);
    return 0;
}

/* The choices the job fixed (its enum parameters) must be the ones the report says it ran, where it says. */
static int check_choices(const struct suite *s, const json_t *params, const json_t *report, char *field,
                         size_t size, struct pp_error *err)
{
    static const char *const where[] = {"problem", "variant"};
    char name[96];

    for (size_t i = 0; s && i < s->nparams; i++) {
        const struct suite_param *p = &s->params[i];
        const char *want = json_string_value(json_object_get(params, p->name));

        if (p->type != SUITE_ENUM)
            continue;
        if (!want)
            want = catalog_default_choice(s, p->name);
        for (size_t w = 0; w < sizeof(where) / sizeof(where[0]); w++) {
            const json_t *got = json_object_get(json_object_get(report, where[w]), p->name);
            snprintf(name, sizeof(name), "report.%s.%s", where[w], p->name);
            if (!got)
                continue;
            if (!json_is_string(got))
                return bad(field, size, name, err, "%s must be a string", name);
            if (want && strcmp(json_string_value(got), want))
                return bad(field, size, name, err, "%s is %.32s, the job asked for %.32s", name,
                           json_string_value(got), want);
        }
    }
    return 0;
}

/* The suite's models of every kernel for the problem the report holds (kernels/<suite>/model.c): the problem
 * is already held to the job (check_size, check_key), and the model hook holds what the job left to the
 * device (a lattice, an array size, n, leaf_pairs) to the suite's ranges and to problem.size. */
static int check_problem_models(const struct suite *s, const json_t *problem, struct suite_model *models,
                                char *field, size_t size, struct pp_error *err)
{
    struct suite_error e;
    char name[96];

    if (suite_models_of(s, problem, models, &e) == 0)
        return 0;
    snprintf(name, sizeof(name), "report.%s", e.field);
    return bad(field, size, name, err, "report.%s", e.msg);
}

/* The variant document names its code with the suite's choices (suite_variant_name: the result's variant). */
static int check_variant(const struct suite *s, const json_t *report, char *field, size_t size,
                         struct pp_error *err)
{
    char name[SUITE_VARIANT_MAX], where[96];
    struct suite_error e;

    if (!s || !suite_variant_name(s, json_object_get(report, "variant"), name, sizeof(name), &e))
        return 0;
    snprintf(where, sizeof(where), "report.%s", e.field);
    return bad(field, size, where, err, "report.%s", e.msg);
}

int report_check(const char *suite, const json_t *kernels, const json_t *params, bool runner,
                 const json_t *report, char *field, size_t field_size, struct pp_error *err)
{
    const struct suite *s = catalog_suite(suite);
    const json_t *problem = json_object_get(report, "problem");
    const json_t *rsuite = json_object_get(report, "suite"), *prec;
    struct suite_model models[SUITE_MAX_KERNELS];

    if (!json_is_object(report))
        return bad(field, field_size, "report", err, "report must be an object");
    if (!json_is_string(rsuite) || strcmp(json_string_value(rsuite), suite))
        return bad(field, field_size, "report.suite", err, "report.suite must be the job's suite, %.32s",
                   suite);
    if (!json_is_object(problem))
        return bad(field, field_size, "report.problem", err, "report.problem must be an object");
    prec = json_object_get(problem, "precision");
    if (!json_is_string(prec) ||
        (strcmp(json_string_value(prec), "fp32") && strcmp(json_string_value(prec), "fp64")))
        return bad(field, field_size, "report.problem.precision", err,
                   "report.problem.precision must be fp32 or fp64");
    if (check_choices(s, params, report, field, field_size, err) ||
        check_variant(s, report, field, field_size, err) ||
        check_size(s, params, problem, field, field_size, err) ||
        check_key(s, params, problem, field, field_size, err) ||
        (s && check_problem_models(s, problem, models, field, field_size, err)) ||
        check_kernels(s, s ? suite_timing(s, params) : NULL, runner, s ? models : NULL, kernels,
                      json_object_get(report, "kernels"), field, field_size, err))
        return -1;
    return 0;
}

int report_derive(json_t *report, const char *suite, const json_t *params, double best_limit,
                  double mean_limit)
{
    const struct suite *s = catalog_suite(suite);
    enum stats_rule rule = s && !strcmp(suite_timing(s, params), "mean") ? STATS_MEAN : STATS_BEST;
    double limit = rule == STATS_MEAN ? mean_limit : best_limit;
    json_t *k;
    size_t i;
    int unstable = 0;

    json_array_foreach(json_object_get(report, "kernels"), i, k)
    {
        const json_t *times = json_object_get(k, "times_s");
        json_t *st = json_object_get(k, "stats_s");
        size_t n = json_array_size(times), count = (size_t)json_integer_value(json_object_get(st, "count"));
        double *x;
        struct pp_stats stats;
        double noise;

        if (!json_is_object(st) || count < 1 || count > n || !(x = malloc(count * sizeof(*x))))
            continue; /* report_check refused such a kernel already */
        for (size_t j = 0; j < count; j++)
            x[j] = json_number_value(json_array_get(times, n - count + j));
        stats_compute(x, count, &stats);
        noise = stats_noise(x, count, rule);
        free(x);
        json_object_set_new(st, "median", json_real(stats.median));
        json_object_set_new(st, "stddev", json_real(stats.stddev));
        json_object_set_new(
            k, "noise",
            json_pack("{s:s, s:f, s:f}", "rule", stats_noise_name(rule), "value", noise, "limit", limit));
        unstable += noise > limit;
    }
    return unstable;
}
