/*
 * libFuzzer target: job-submission validation (kernels/suite.c's suite_values_from_json and
 * suite_values_check_model) over every suite of the table (kernels/suites.c). The first byte picks the suite,
 * the second the model; the rest is a JSON document whose "params" and "kernels" are checked as ppbenchd
 * checks a submitted job. Whatever it holds, the check must not crash; a refusal names a code, a field and a
 * reason; and what it accepts, completed with the defaults (what ppbenchd stores), is accepted again
 * unchanged (what the job's child checks with the same function).
 *   clang -g -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE tests/fuzz/suite_fuzz.c kernels/suite.c \
 *         kernels/suites.c kernels/lattice.c lib/error.c -ljansson -lm -o suite_fuzz
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/suite.h"

static size_t model_count(void)
{
    size_t n = 0;

    while (suite_models[n])
        n++;
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct suite *s;
    struct suite_values v, again;
    struct suite_error e;
    json_t *doc, *params, *kernels;
    const char *model;

    if (size < 2)
        return 0;
    s = suite_at(data[0] % suite_count());
    model = suite_models[data[1] % model_count()];
    doc = json_loadb((const char *)data + 2, size - 2, JSON_DECODE_ANY, NULL);
    params = json_is_object(doc) && json_object_get(doc, "params") ? json_object_get(doc, "params") : doc;
    kernels = json_is_object(doc) ? json_object_get(doc, "kernels") : NULL;
    memset(&e, 0, sizeof(e));
    if (suite_values_from_json(&v, s, params, kernels, &e) || suite_values_check_model(&v, model, &e)) {
        if (!e.code || !e.msg[0] || !e.field[0])
            abort(); /* a refusal names its code, its field and why */
    } else {
        json_t *p = suite_values_params_json(&v), *k = suite_values_kernels_json(&v);
        json_t *p2 = NULL;

        if (!p || !k || suite_values_from_json(&again, s, p, k, &e) ||
            suite_values_check_model(&again, model, &e))
            abort(); /* what ppbenchd stores, the job's child must accept */
        p2 = suite_values_params_json(&again);
        if (!json_equal(p, p2) || again.kernels != v.kernels)
            abort(); /* and read as the same job */
        json_decref(p);
        json_decref(k);
        json_decref(p2);
    }
    json_decref(doc);
    return 0;
}
