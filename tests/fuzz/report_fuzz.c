/*
 * libFuzzer target: the check of a worker's result report against its job (server/api/report_check.c) on
 * arbitrary bytes. The first byte picks the job (a stream job for copy and add at 1000 elements, a Wilson job
 * on an 8^4 lattice, a staggered job on the device's default lattice, a cg job at n = 6, a hacc job of 40
 * leaf pairs); the rest is the report, parsed as JSON. Whatever it holds, the check must not crash, and a
 * report it accepts must hold each of the job's kernels exactly once with finite figures, byte and flop
 * models that are the suite's for the problem it holds (kernels/<suite>/model.c, through the table's hook),
 * and a bandwidth that is its bytes over its samples' minimum (stream, wilson, cg, hacc) or mean
 * (staggered) time. The seed corpus holds a true report of each job (the worker's, provenance left out).
 *   clang -g -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE tests/fuzz/report_fuzz.c \
 *         server/api/report_check.c server/api/catalog.c kernels/suite.c kernels/suites.c kernels/lattice.c \
 *         kernels/{stream,wilson,staggered,cg,hacc}/model.c lib/error.c lib/stats.c -ljansson -lm \
 *         -o report_fuzz   (tests/fuzz/targets.sh builds it so)
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/suite.h"
#include "server/api/report_check.h"

static const struct {
    const char *suite, *kernels, *params;
} jobs[] = {
    {"stream", "[\"copy\", \"add\"]", "{\"arraysize\": 1000, \"numtimes\": 3, \"precision\": \"fp64\"}"},
    {"wilson", "[\"dslash\"]", "{\"lattice\": \"8x8x8x8\", \"layout\": \"aos\", \"precision\": \"fp32\"}"},
    {"staggered", "[\"dslash\"]", "{\"precision\": \"fp64\", \"runs\": 10}"},
    {"cg", "[\"spmv\", \"cg\"]", "{\"n\": 6, \"numtimes\": 3, \"iterations\": 3, \"precision\": \"fp64\"}"},
    {"hacc", "[\"gravity\", \"sph\"]",
     "{\"leaf_size\": 16, \"leaf_pairs\": 40, \"numtimes\": 2, \"precision\": \"fp32\"}"},
};

/* Whether got agrees with want as report_check holds it (REPORT_REL_TOLERANCE), with room for rounding. */
static int near(double got, double want)
{
    return fabs(got - want) <= 2 * REPORT_REL_TOLERANCE * fmax(fabs(want), 1e-300);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *kernels, *params, *report, *k;
    char field[160];
    struct pp_error err;
    size_t i, n = sizeof(jobs) / sizeof(jobs[0]), pick;

    if (size < 1)
        return 0;
    pick = data[0] % n;
    report = json_loadb((const char *)data + 1, size - 1, 0, NULL);
    kernels = json_loads(jobs[pick].kernels, 0, NULL);
    params = json_loads(jobs[pick].params, 0, NULL);
    if (report_check(jobs[pick].suite, kernels, params, size % 2 == 1, report, field, sizeof(field), &err) ==
        0) {
        const struct suite *s = suite_find(jobs[pick].suite);
        json_t *got = json_object_get(report, "kernels");
        struct suite_model models[SUITE_MAX_KERNELS];
        struct suite_error e;

        if (json_array_size(got) != json_array_size(kernels))
            abort();
        if (suite_models_of(s, json_object_get(report, "problem"), models, &e))
            abort(); /* accepted with a problem the suite's models do not take */
        json_array_foreach(got, i, k)
        {
            const struct suite_model *m =
                &models[suite_kernel_index(s, json_string_value(json_object_get(k, "kernel")))];
            if (!near(json_number_value(json_object_get(k, "bytes")), m->bytes) ||
                !near(json_number_value(json_object_get(k, "bytes_compulsory")), m->bytes_compulsory) ||
                !near(json_number_value(json_object_get(k, "flops")), m->flops))
                abort(); /* a model that is the worker's, not the suite's */
        }
        json_array_foreach(got, i, k)
        {
            double bw = json_number_value(json_object_get(k, "bandwidth_bytes_per_s"));
            const json_t *st = json_object_get(k, "stats_s");
            double t = json_number_value(json_object_get(st, pick == 2 ? "mean" : "min"));
            double want = t > 0 ? json_number_value(json_object_get(k, "bytes")) / t : 0;
            if (!isfinite(bw) || bw < 0 || bw > REPORT_MAX_BANDWIDTH)
                abort();
            if (json_object_get(k, "times_s") && fabs(bw - want) > 2 * REPORT_REL_TOLERANCE * want)
                abort(); /* a figure its samples do not support */
        }
        /* what the server then derives from the samples: a finite noise, a median within [min, max] (as the
         * report states them: its samples' to REPORT_REL_TOLERANCE) */
        report_derive(report, jobs[pick].suite, params, 0.1, 0.1);
        json_array_foreach(got, i, k)
        {
            const json_t *st = json_object_get(k, "stats_s");
            double noise = json_number_value(json_object_get(json_object_get(k, "noise"), "value"));
            double med = json_number_value(json_object_get(st, "median"));
            if (!isfinite(noise) || noise < 0 || !isfinite(med) ||
                med < json_number_value(json_object_get(st, "min")) * (1 - 2 * REPORT_REL_TOLERANCE) ||
                med > json_number_value(json_object_get(st, "max")) * (1 + 2 * REPORT_REL_TOLERANCE))
                abort();
        }
    } else if (!field[0] || !err.msg[0]) {
        abort(); /* a refusal always names the field and says why */
    }
    json_decref(report);
    json_decref(kernels);
    json_decref(params);
    return 0;
}
