/*
 * test_suite: the suite table (kernels/suites.c) and the one check of a job's parameters (kernels/suite.c)
 * that ppbenchd and the worker share.
 */
#include <string.h>

#include "kernels/suite.h"
#include "kernels/suite_driver.h"
#include "tests/unit/check.h"

/* Every parameter has a default in range, or is optional (a lattice's default is the device's); every
 * enum's default is one of its choices; names are unique in a suite; every suite has kernels and a driver. */
static void test_table_complete(void)
{
    CHECK(suite_count() >= 4, "%zu suites", suite_count());
    for (size_t i = 0; i < suite_count(); i++) {
        const struct suite *s = suite_at(i);
        CHECK(s->driver != NULL, "suite %s has no driver linked into the worker", s->name);
        CHECK(suite_nkernels(s) >= 1 && suite_nkernels(s) <= SUITE_MAX_KERNELS, "suite %s kernels", s->name);
        CHECK(s->nparams <= SUITE_MAX_PARAMS, "suite %s has %zu parameters", s->name, s->nparams);
        CHECK(s->figure && s->figure->name && s->figure->label && s->figure->unit && s->figure->scale > 0 &&
                  s->figure->from &&
                  (!strcmp(s->figure->from, "size") || !strcmp(s->figure->from, "gflops") ||
                   !strcmp(s->figure->from, "bandwidth_bytes_per_s")),
              "suite %s figure", s->name);
        CHECK(!strcmp(s->timing, "min") || !strcmp(s->timing, "mean"), "suite %s timing", s->name);
        CHECK(suite_param(s, "precision") != NULL, "suite %s has no precision", s->name);
        for (size_t p = 0; p < s->nparams; p++) {
            const struct suite_param *sp = &s->params[p];
            CHECK(suite_param_index(s, sp->name) == (int)p, "%s.%s named twice", s->name, sp->name);
            CHECK(sp->description && *sp->description, "%s.%s has no description", s->name, sp->name);
            if (sp->optional || sp->type == SUITE_LATTICE)
                continue;
            if (sp->type == SUITE_INTEGER)
                CHECK(sp->min <= sp->def && sp->def <= sp->max, "%s.%s default %lld outside [%lld, %lld]",
                      s->name, sp->name, sp->def, sp->min, sp->max);
            else if (sp->type == SUITE_NUMBER)
                CHECK(sp->fmin <= sp->fdef && sp->fdef <= sp->fmax, "%s.%s default %g outside [%g, %g]",
                      s->name, sp->name, sp->fdef, sp->fmin, sp->fmax);
            else {
                long long n = 0;
                while (sp->choices[n])
                    n++;
                CHECK(sp->def >= 0 && sp->def < n, "%s.%s default index %lld of %lld", s->name, sp->name,
                      sp->def, n);
            }
        }
    }
}

/* A job's parameters keep their form: what is given comes back unchanged, the defaults are added, and the
 * values the driver reads are the ones given. */
static void test_values_round_trip(void)
{
    const struct suite *s = suite_find("staggered");
    json_t *params = json_pack("{s:s, s:s, s:i, s:i}", "lattice", "4x4x4x8", "strategy", "simd", "runs", 3,
                               "work_group", 96);
    struct suite_values v;
    struct suite_error e;

    CHECK(s && suite_values_from_json(&v, s, params, NULL, &e) == 0, "%s", e.msg);
    json_t *back = suite_values_params_json(&v);
    const char *key;
    json_t *val;
    json_object_foreach(params, key, val)
    {
        CHECK(json_equal(val, json_object_get(back, key)), "params.%s changed on its way", key);
    }
    CHECK(!strcmp(json_string_value(json_object_get(back, "precision")), "fp64"), "default precision added");
    CHECK(json_integer_value(json_object_get(back, "iterations")) == 100, "default iterations added");
    CHECK(!json_object_get(back, "order"), "an optional parameter left absent stays absent");
    CHECK(!json_object_get(back, "timing"), "a standalone parameter is not a job's");
    CHECK(suite_int(&v, "runs") == 3 && !strcmp(suite_str(&v, "lattice"), "4x4x4x8") &&
              suite_int(&v, "work_group") == 96,
          "the driver reads what was given");
    CHECK(suite_kernel_on(&v, "dslash"), "absent kernels: all");
    json_decref(back);
    json_decref(params);
}

static void expect_error(const char *suite, const char *params_json, const char *kernels_json,
                         const char *code, const char *field, const char *msg_part)
{
    json_t *params = params_json ? json_loads(params_json, 0, NULL) : NULL;
    json_t *kernels = kernels_json ? json_loads(kernels_json, 0, NULL) : NULL;
    struct suite_values v;
    struct suite_error e = {0};

    CHECK(suite_values_from_json(&v, suite_find(suite), params, kernels, &e) == -1, "%s %s accepted", suite,
          params_json ? params_json : kernels_json);
    CHECK(e.code && !strcmp(e.code, code), "%s: code %s, expected %s", params_json, e.code, code);
    CHECK(!strcmp(e.field, field), "%s: field %s, expected %s", params_json, e.field, field);
    CHECK(strstr(e.msg, msg_part), "%s: message \"%s\" lacks \"%s\"", params_json, e.msg, msg_part);
    json_decref(params);
    json_decref(kernels);
}

static void test_values_refused(void)
{
    expect_error("stream", "{\"arraysize\": 0}", NULL, "out_of_range", "params.arraysize",
                 "params.arraysize must be from 1 to");
    expect_error("stream", "{\"numtimes\": \"5\"}", NULL, "wrong_type", "params.numtimes",
                 "must be an integer");
    expect_error("stream", "{\"lattice\": \"8x8x8x8\"}", NULL, "unknown_field", "params.lattice",
                 "unknown field");
    expect_error("staggered", "{\"timing\": \"best\"}", NULL, "unknown_field", "params.timing",
                 "unknown field");
    expect_error("wilson", "{\"layout\": \"left\"}", NULL, "invalid_value", "params.layout",
                 "unknown layout \"left\" (wilson has: aos, soa, aosoa)");
    expect_error("wilson", "{\"lattice\": \"4x4x5x4\"}", NULL, "invalid_value", "params.lattice",
                 "must be even");
    expect_error("wilson", "{\"lattice\": \"8x8x8\"}", NULL, "invalid_value", "params.lattice",
                 "four extents");
    expect_error("stream", NULL, "[\"triad\", \"triad\"]", "invalid_value", "kernels", "named twice");
    expect_error("stream", NULL, "[\"triadd\"]", "unknown_kernel", "kernels", "unknown kernel \"triadd\"");
    expect_error("stream", NULL, "[]", "wrong_type", "kernels", "non-empty");
}

/* The command-line form goes through the same checks. */
static void test_values_text(void)
{
    struct suite_values v;
    struct suite_error e;

    suite_values_default(&v, suite_find("wilson"));
    CHECK(suite_values_set(&v, "iterations", "0", &e) == -1 && strstr(e.msg, "--iterations must be from 1"),
          "%s", e.msg);
    CHECK(suite_values_set(&v, "iterations", "x", &e) == -1 && strstr(e.msg, "invalid --iterations \"x\""),
          "%s", e.msg);
    CHECK(suite_values_set(&v, "lattice", "4x4x4x8", &e) == 0 && suite_is_set(&v, "lattice"), "%s", e.msg);
    CHECK(suite_values_set(&v, "arraysize", "10", &e) == -1, "wilson took arraysize");
    suite_values_default(&v, suite_find("stream"));
    CHECK(suite_values_set_kernels(&v, "copy,triad", &e) == 0 && suite_kernel_on(&v, "triad") &&
              !suite_kernel_on(&v, "dot"),
          "%s", e.msg);
    CHECK(suite_values_set_kernels(&v, "copy,", &e) == -1 && strstr(e.msg, "empty kernel name"), "%s", e.msg);
}

/* A real-valued parameter: JSON numbers (integer or real), text, its range, and NaN refused. */
static void test_values_number(void)
{
    struct suite_values v;
    struct suite_error e;
    json_t *p = json_pack("{s:f}", "tolerance", 1e-8);

    CHECK(suite_values_from_json(&v, suite_find("cg"), p, NULL, &e) == 0 &&
              suite_number(&v, "tolerance") == 1e-8,
          "%s", e.msg);
    json_decref(p);
    p = json_pack("{s:i}", "tolerance", 0);
    CHECK(suite_values_from_json(&v, suite_find("cg"), p, NULL, &e) == 0, "an integer is a number: %s",
          e.msg);
    json_decref(p);
    p = json_pack("{s:s}", "tolerance", "1e-8");
    CHECK(suite_values_from_json(&v, suite_find("cg"), p, NULL, &e) == -1 && !strcmp(e.code, "wrong_type"),
          "a string is not a number");
    json_decref(p);
    suite_values_default(&v, suite_find("cg"));
    CHECK(suite_values_set(&v, "tolerance", "nan", &e) == -1 && !strcmp(e.code, "out_of_range"),
          "NaN refused");
    CHECK(suite_values_set(&v, "tolerance", "2", &e) == -1 &&
              strstr(e.msg, "--tolerance must be from 0 to 0.5"),
          "%s", e.msg);
    CHECK(suite_values_set(&v, "tolerance", "1e-6", &e) == 0 && suite_number(&v, "tolerance") == 1e-6, "%s",
          e.msg);
}

/* The catalogue: what GET /api/v1/suites serves (the server test compares it with the worker's). */
/* The problem key: precision and size first, then the key parameters in table order, with the values of the
 * problem document; what changes the work per timed unit is in it (wilson's iterations, numtimes and the
 * lattice's shape; staggered's timing rule), the variant choices are not; a missing or malformed value is
 * refused naming the field. */
static void test_problem_key(void)
{
    const struct suite *w = suite_find("wilson"), *st = suite_find("staggered");
    json_t *p = json_pack("{s:s, s:I, s:[i,i,i,i], s:i, s:i, s:s, s:I}", "precision", "fp32", "size", 512,
                          "lattice", 4, 4, 4, 8, "numtimes", 3, "iterations", 2, "layout", "soa", "seed", 7);
    char key[SUITE_KEY_MAX], v[32];
    struct suite_error e;

    CHECK(suite_problem_key(w, p, key, sizeof(key), &e) == 0 &&
              !strcmp(key, "precision=fp32;size=512;lattice=4x4x4x8;numtimes=3;iterations=2"),
          "wilson key: %s", key);
    CHECK(suite_param(w, "iterations")->key && suite_param(w, "numtimes")->key &&
              suite_param(w, "lattice")->key && !suite_param(w, "layout")->key,
          "wilson marks iterations, numtimes and lattice, not the layout");
    CHECK(suite_param(st, "timing")->key && suite_param(st, "runs")->key && !suite_param(st, "strategy")->key,
          "staggered marks its timing rule and runs, not the strategy");
    for (size_t i = 0; i < suite_count(); i++)
        CHECK(suite_param(suite_at(i), "precision")->key, "%s: precision is in the key", suite_at(i)->name);
    json_object_del(p, "iterations");
    CHECK(suite_problem_key(w, p, key, sizeof(key), &e) && !strcmp(e.field, "problem.iterations"),
          "a key parameter missing: %s", e.field);
    json_object_set_new(p, "iterations", json_string("two;three"));
    CHECK(suite_problem_key(w, p, key, sizeof(key), &e) && !strcmp(e.field, "problem.iterations"),
          "a value that would break the key's form: %s", e.field);
    json_decref(p);
    p = json_pack("{s:s}", "x", "4x4x4x8");
    CHECK(suite_key_value(json_object_get(p, "x"), v, sizeof(v)) == 0 && !strcmp(v, "4x4x4x8"),
          "a job's lattice as the key writes it");
    json_decref(p);
}

/* A result's variant name (suite_variant_name): the code that ran, from the report's variant document, never
 * its size-derived or launch figures; "default" where a model has one code; a value that is no choice is
 * refused naming the field. Every suite marks at least one variant parameter, and only enums. */
static void test_variant_name(void)
{
    static const struct {
        const char *suite, *doc, *name;
    } cases[] = {
        {"cg", "{\"spmv_variant\": \"native\", \"dot_chain\": 524290, \"dot_groups\": 1056, \"threads\": 16}",
         "native"},
        {"cg", "{\"spmv_variant\": \"native\", \"dot_chain\": 2097154, \"dot_groups\": 132, \"threads\": 0}",
         "native"},
        {"stream", "{\"work_group_size\": 1024, \"dot_groups\": 528, \"dot_chain\": 8193}", "default"},
        {"stream", "{\"work_group_size\": 0, \"stores\": \"streaming\"}", "streaming"},
        {"wilson", "{\"layout\": \"soa\", \"work_group_size\": 128, \"threads\": 0}", "soa"},
        {"staggered", "{\"strategy\": \"3lp-1\", \"order\": \"k\", \"work_group_size\": 768}", "3lp-1/k"},
        {"staggered", "{\"strategy\": \"1lp\", \"work_group_size\": 256}", "1lp"},
        {"hacc", "{\"variant\": \"memory-32\", \"leaf_size\": 64}", "memory-32"},
    };
    char name[SUITE_VARIANT_MAX];
    struct suite_error e;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *doc = json_loads(cases[i].doc, 0, NULL);
        CHECK(doc && suite_variant_name(suite_find(cases[i].suite), doc, name, sizeof(name), &e) == 0 &&
                  !strcmp(name, cases[i].name),
              "%s %s: \"%s\", want \"%s\"", cases[i].suite, cases[i].doc, name, cases[i].name);
        json_decref(doc);
    }
    /* The report's split (suite_variant_launch): the name's values stay, the launch moves but for a 0 (a
     * dimension the model's launch does not have), the name holds. */
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *doc = json_loads(cases[i].doc, 0, NULL), *whole = json_deep_copy(doc), *v;
        json_t *launch = suite_variant_launch(suite_find(cases[i].suite), doc);
        const char *key;
        size_t zeros = 0;
        int ok = launch && suite_variant_name(suite_find(cases[i].suite), doc, name, sizeof(name), &e) == 0 &&
                 !strcmp(name, cases[i].name);
        json_object_foreach(whole, key, v)
        {
            const struct suite_param *p = suite_param(suite_find(cases[i].suite), key);
            int zero = !(p && p->variant) && json_is_integer(v) && json_integer_value(v) == 0;
            zeros += (size_t)zero;
            ok = ok && (zero ? !json_object_get(launch, key) && !json_object_get(doc, key)
                             : json_equal(json_object_get(p && p->variant ? doc : launch, key), v));
        }
        ok = ok && json_object_size(doc) + json_object_size(launch) + zeros == json_object_size(whole);
        CHECK(ok, "%s %s: split into %s and a launch of %zu values", cases[i].suite, cases[i].doc,
              json_dumps(doc, JSON_COMPACT), launch ? json_object_size(launch) : 0);
        json_decref(launch);
        json_decref(doc);
        json_decref(whole);
    }
    json_t *bad = json_pack("{s:s}", "layout", "zigzag");
    CHECK(suite_variant_name(suite_find("wilson"), bad, name, sizeof(name), &e) &&
              !strcmp(e.field, "variant.layout"),
          "a layout that is no choice: %s", e.field);
    json_decref(bad);
    for (size_t i = 0; i < suite_count(); i++) {
        const struct suite *s = suite_at(i);
        size_t n = 0;
        for (size_t p = 0; p < s->nparams; p++) {
            n += s->params[p].variant;
            CHECK(!s->params[p].variant || (s->params[p].type == SUITE_ENUM && !s->params[p].key),
                  "%s.%s: a variant parameter is an enum outside the problem key", s->name,
                  s->params[p].name);
        }
        CHECK(n >= 1, "%s marks no variant parameter", s->name);
    }
}

static void test_catalog(void)
{
    json_t *doc = suite_catalog_json(), *s;
    size_t i;

    CHECK(json_array_size(json_object_get(doc, "suites")) == suite_count(), "every suite in the catalogue");
    json_array_foreach(json_object_get(doc, "suites"), i, s)
    {
        CHECK(json_array_size(json_object_get(s, "params")) <= suite_at(i)->nparams, "params");
        CHECK(!strcmp(json_string_value(json_object_get(s, "name")), suite_at(i)->name), "order");
    }
    CHECK(json_array_size(json_object_get(doc, "models")) == 4 &&
              !strcmp(json_string_value(json_array_get(json_object_get(doc, "models"), 3)), "omp-target"),
          "models: openmp, opencl, cuda, omp-target");
    json_decref(doc);
}

int main(void)
{
    RUN(test_table_complete);
    RUN(test_values_round_trip);
    RUN(test_values_refused);
    RUN(test_values_text);
    RUN(test_values_number);
    RUN(test_problem_key);
    RUN(test_variant_name);
    RUN(test_catalog);
    return check_failures ? 1 : 0;
}
