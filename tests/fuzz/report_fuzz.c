/*
 * libFuzzer target: the check of a worker's result report against its job (server/api/report_check.c) on
 * arbitrary bytes. The first byte picks the job (a stream job for copy and add at 1000 elements, a Wilson job
 * on an 8^4 lattice, a staggered job on the device's default lattice); the rest is the report, parsed as
 * JSON. Whatever it holds, the check must not crash, and a report it accepts must hold each of the job's
 * kernels exactly once with finite figures, and a bandwidth that is its bytes over its samples' minimum
 * (stream, wilson) or mean (staggered) time.
 *   clang -g -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE tests/fuzz/report_fuzz.c \
 *         server/api/report_check.c server/api/catalog.c kernels/lattice.c lib/error.c -ljansson -lm \
 *         -o report_fuzz
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/api/report_check.h"

static const struct {
    const char *suite, *kernels, *params;
} jobs[] = {
    {"stream", "[\"copy\", \"add\"]", "{\"arraysize\": 1000, \"numtimes\": 3, \"precision\": \"fp64\"}"},
    {"wilson", "[\"dslash\"]", "{\"lattice\": \"8x8x8x8\", \"layout\": \"aos\", \"precision\": \"fp32\"}"},
    {"staggered", "[\"dslash\"]", "{\"precision\": \"fp64\", \"runs\": 10}"},
};

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
        json_t *got = json_object_get(report, "kernels");
        if (json_array_size(got) != json_array_size(kernels))
            abort();
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
        /* what the server then derives from the samples: a finite noise, a median within [min, max] */
        report_derive(report, jobs[pick].suite, params, 0.1, 0.1);
        json_array_foreach(got, i, k)
        {
            const json_t *st = json_object_get(k, "stats_s");
            double noise = json_number_value(json_object_get(json_object_get(k, "noise"), "value"));
            double med = json_number_value(json_object_get(st, "median"));
            if (!isfinite(noise) || noise < 0 || !isfinite(med) ||
                med < json_number_value(json_object_get(st, "min")) * (1 - 1e-9) ||
                med > json_number_value(json_object_get(st, "max")) * (1 + 1e-9))
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
