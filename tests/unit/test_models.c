/*
 * test_models: the suites' byte and flop models (kernels/<suite>/model.c), the one definition the drivers
 * state in their reports and ppbenchd holds a report to through the suite table's hook. The hook of every
 * suite against the papers' figures, against the functions the drivers call, and against what it refuses; the
 * HACC pair list's touched leaves against the built problem, and their cost at the largest problem a job may
 * ask.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/cg/model.h"
#include "kernels/hacc/hacc.h"
#include "kernels/hacc/hacc_ref.h"
#include "kernels/hacc/model.h"
#include "kernels/staggered/model.h"
#include "kernels/stream/model.h"
#include "kernels/suite.h"
#include "kernels/wilson/model.h"
#include "tests/unit/check.h"

/* The hook's models of suite for the problem (JSON text); -1 with e. */
static int hook(const char *suite, const char *problem, struct suite_model out[SUITE_MAX_KERNELS],
                struct suite_error *e)
{
    json_t *p = json_loads(problem, 0, NULL);
    int rc = suite_models_of(suite_find(suite), p, out, e);

    json_decref(p);
    return rc;
}

/* Every suite has models, and the hook's kernel order is the table's (out[k] is kernels[k]). */
static void test_every_suite(void)
{
    for (size_t i = 0; i < suite_count(); i++)
        CHECK(suite_at(i)->model != NULL, "suite %s has no model hook", suite_at(i)->name);
    for (unsigned k = 0; k < STREAM_NKERNELS; k++)
        CHECK(!strcmp(suite_find("stream")->kernels[k], stream_kernel_name((enum stream_kernel)k)),
              "stream kernel %u", k);
    for (unsigned k = 0; k < CG_NKERNELS; k++)
        CHECK(!strcmp(suite_find("cg")->kernels[k], cg_kernel_name((enum cg_kernel)k)), "cg kernel %u", k);
    for (unsigned k = 0; k < PP_HACC_NKERNELS; k++)
        CHECK(!strcmp(suite_find("hacc")->kernels[k], hacc_kernel_name((enum pp_hacc_kernel)k)),
              "hacc kernel %u", k);
}

/* The papers' figures through the hook (docs/METHODOLOGY.md's tables). */
static void test_papers(void)
{
    struct suite_model m[SUITE_MAX_KERNELS];
    struct suite_error e;

    CHECK(hook("stream", "{\"precision\": \"fp64\", \"size\": 1000}", m, &e) == 0, "%s", e.msg);
    CHECK(m[3].bytes == 3 * 1000 * 8 && m[3].flops == 2000 && m[3].bytes_compulsory == m[3].bytes,
          "triad 3N beta, 2N flops");
    CHECK(m[5].bytes == 4 * 1000 * 8 && m[5].flops == 3000 && m[0].flops == 0,
          "nstream 4N beta, copy 0 flops");
    CHECK(hook("wilson", "{\"precision\": \"fp32\", \"size\": 65536, \"lattice\": [16, 16, 16, 16]}", m,
               &e) == 0,
          "%s", e.msg);
    CHECK(m[0].flops == 1320.0 * 32768 && m[0].bytes == 1440.0 * 32768 &&
              m[0].bytes_compulsory == 768.0 * 32768,
          "wilson 1320 flop, 1440 B, 768 B compulsory per output site");
    CHECK(hook("staggered", "{\"precision\": \"fp64\", \"size\": 1048576, \"lattice\": [32, 32, 32, 32]}", m,
               &e) == 0,
          "%s", e.msg);
    CHECK(m[0].flops == 600834048.0 && m[0].bytes == 3120.0 * 524288 &&
              m[0].bytes_compulsory == 2400.0 * 524288,
          "staggered 600.8 MFLOP at 32^4, 3120 B and 2400 B per output site in fp64");
    CHECK(hook("cg", "{\"precision\": \"fp64\", \"size\": 1000, \"n\": 9}", m, &e) == 0, "%s", e.msg);
    CHECK(m[2].bytes == 4.0 * 1001 + 21952.0 * 12 + 2 * 1000.0 * 8 && m[2].flops == 2.0 * 21952 &&
              m[3].flops == 2.0 * 21952 + 13.0 * 1000 && m[3].bytes == m[2].bytes + 12 * 1000.0 * 8,
          "cg spmv 4(R + 1) + Z(4 + beta) + 2R beta, cg spmv + 12 R beta");
    /* 40 pairs touch 18 of the 64 leaves (METHODOLOGY) */
    CHECK(hook("hacc", "{\"precision\": \"fp32\", \"size\": 20480, \"leaf_size\": 16, \"leaf_pairs\": 40}", m,
               &e) == 0,
          "%s", e.msg);
    CHECK(m[0].bytes == 18.0 * 16 * 7 * 4 + 40 * 8 && m[1].bytes == 18.0 * 16 * 13 * 4 + 40 * 8 &&
              m[0].flops == 30.0 * 20480 && m[1].flops == 69.0 * 20480 && m[0].bytes_compulsory == 0,
          "hacc bytes of the 18 touched leaves, 30 and 69 flops an interaction: %g %g", m[0].bytes,
          m[1].bytes);
}

/* The hook gives what the drivers' functions give, over sizes and precisions. */
static void test_same_as_drivers(void)
{
    struct suite_model m[SUITE_MAX_KERNELS], d;
    struct suite_error e;
    char doc[256];

    for (unsigned n = 1; n <= 60; n += 7) {
        snprintf(doc, sizeof(doc), "{\"precision\": \"fp32\", \"size\": %llu, \"n\": %u}",
                 (unsigned long long)cg_rows(n), n);
        CHECK(hook("cg", doc, m, &e) == 0, "%s", e.msg);
        for (unsigned k = 0; k < CG_NKERNELS; k++) {
            cg_model((enum cg_kernel)k, n, PP_FP32, &d);
            CHECK(!memcmp(&d, &m[k], sizeof(d)), "cg n %u kernel %u", n, k);
        }
    }
    for (unsigned pairs = 1; pairs < 5000; pairs = pairs * 3 + 1) {
        struct hacc_problem p;
        struct pp_error err;
        snprintf(doc, sizeof(doc),
                 "{\"precision\": \"fp64\", \"size\": %.0f, \"leaf_size\": 32, \"leaf_pairs\": %u}",
                 hacc_interactions(32, pairs), pairs);
        CHECK(hook("hacc", doc, m, &e) == 0, "%s", e.msg);
        CHECK(hacc_problem_build(&p, 32, pairs, PP_FP64, &err) == 0, "%s", err.msg);
        for (unsigned k = 0; k < PP_HACC_NKERNELS; k++) {
            hacc_model((enum pp_hacc_kernel)k, 32, pairs, p.touched, PP_FP64, &d);
            CHECK(!memcmp(&d, &m[k], sizeof(d)), "hacc %u pairs kernel %u", pairs, k);
        }
        hacc_problem_release(&p);
    }
}

/* The touched leaves: the distinct leaves of the built pair list, counted apart here; and their cost at the
 * largest leaf_pairs, which ppbenchd pays once per hacc report (about 30 ms; the bound is loose for the
 * sanitizer build and a busy host). */
static void test_touched(void)
{
    static const unsigned pairs[] = {1, 13, 40, 500, 4096, 65536};
    struct timespec t0, t1;
    double ms;
    size_t touched;

    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        struct hacc_problem p;
        struct pp_error err;
        unsigned char *seen;
        size_t count = 0;

        CHECK(hacc_problem_build(&p, 16, pairs[i], PP_FP32, &err) == 0, "%s", err.msg);
        seen = calloc(p.nleaves, 1);
        for (size_t q = 0; q < 2 * p.npairs; q++)
            count += !seen[p.pairs[q]]++;
        CHECK(count == p.touched && count == hacc_touched_leaves(pairs[i]), "%u pairs: %zu touched, %zu, %zu",
              pairs[i], count, p.touched, hacc_touched_leaves(pairs[i]));
        free(seen);
        hacc_problem_release(&p);
    }
    CHECK(hacc_touched_leaves(40) == 18 && hacc_touched_leaves(4096) == 447,
          "18 of 64 at 40, 447 of 512 at 4096");
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    touched = hacc_touched_leaves(HACC_MAX_PAIRS);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
    CHECK(touched > 0 && touched <= (size_t)hacc_grid_for(HACC_MAX_PAIRS) * hacc_grid_for(HACC_MAX_PAIRS) *
                                        hacc_grid_for(HACC_MAX_PAIRS),
          "%zu touched", touched);
    CHECK(ms < 1000, "the touched leaves of %u pairs took %.0f ms of CPU", HACC_MAX_PAIRS, ms);
    printf("note test_touched: %u pairs touch %zu leaves, counted in %.1f ms of CPU\n", HACC_MAX_PAIRS,
           touched, ms);
}

/* What the hooks refuse, naming the field: a problem whose size is not what its values give, a value out of
 * the suite's range or of the wrong form. */
static void test_refused(void)
{
    static const struct {
        const char *suite, *problem, *field;
    } cases[] = {
        {"stream", "{\"precision\": \"fp64\"}", "problem.size"},
        {"stream", "{\"precision\": \"fp16\", \"size\": 10}", "problem.precision"},
        {"stream", "{\"precision\": \"fp64\", \"size\": 0}", "problem.size"},
        {"wilson", "{\"precision\": \"fp32\", \"size\": 4096, \"lattice\": [8, 8, 8, 16]}", "problem.size"},
        {"wilson", "{\"precision\": \"fp32\", \"size\": 1536, \"lattice\": [6, 4, 8]}", "problem.lattice"},
        {"staggered", "{\"precision\": \"fp64\", \"size\": 375, \"lattice\": [5, 5, 5, 3]}",
         "problem.lattice"},
        {"staggered", "{\"precision\": \"fp64\", \"size\": 512, \"lattice\": \"4x4x4x8\"}",
         "problem.lattice"},
        {"cg", "{\"precision\": \"fp64\", \"size\": 8000, \"n\": 9}", "problem.size"},
        {"cg", "{\"precision\": \"fp64\", \"size\": 1000, \"n\": 100000}", "problem.n"},
        {"hacc", "{\"precision\": \"fp32\", \"size\": 40960, \"leaf_size\": 16, \"leaf_pairs\": 40}",
         "problem.size"},
        {"hacc", "{\"precision\": \"fp32\", \"size\": 8000, \"leaf_size\": 20, \"leaf_pairs\": 10}",
         "problem.leaf_size"},
        {"hacc", "{\"precision\": \"fp32\", \"size\": 512, \"leaf_size\": 16, \"leaf_pairs\": 0}",
         "problem.leaf_pairs"},
    };
    struct suite_model m[SUITE_MAX_KERNELS];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct suite_error e = {0};
        CHECK(hook(cases[i].suite, cases[i].problem, m, &e) == -1 && !strcmp(e.field, cases[i].field) &&
                  e.msg[0],
              "%s %s: field %s (%s), want %s", cases[i].suite, cases[i].problem, e.field, e.msg,
              cases[i].field);
    }
}

int main(void)
{
    RUN(test_every_suite);
    RUN(test_papers);
    RUN(test_same_as_drivers);
    RUN(test_touched);
    RUN(test_refused);
    return check_failures ? 1 : 0;
}
