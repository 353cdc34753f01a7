/*
 * runner_json_fuzz: libFuzzer target for the runners' JSON form (lib/runner_json.c), the parser of what a
 * site's program prints (issue 27). Every input must either parse into kernels whose times are finite,
 * positive and ordered and a problem with precision and size, or fail with a message and leave nothing;
 * nothing may crash, leak or read out of bounds. A line of tests/fuzz/targets.sh (run by
 * tests/tools/fuzz.sh).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/runner_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct runner_json doc;
    struct pp_error err;

    if (runner_json_parse((const char *)data, size, &doc, &err) == 0) {
        if (doc.nkernels < 1 || doc.nkernels > RUNNER_JSON_MAX_KERNELS || !json_is_object(doc.problem))
            abort();
        for (size_t i = 0; i < doc.nkernels; i++) {
            const struct runner_json_kernel *k = &doc.kernels[i];
            if (!k->kernel[0] || k->count < 1 || !isfinite(k->max_s) || !(k->min_s > 0) ||
                k->mean_s < k->min_s || k->max_s < k->mean_s)
                abort();
        }
    } else if (doc.problem || doc.nkernels || !err.msg[0]) {
        abort();
    }
    runner_json_clear(&doc);
    return 0;
}
