/*
 * libFuzzer target: the worker's parsing of a claimed job (worker/runner_args.c's runner_args_from_job, which
 * makes it the child's command line) and the child's check of the `--job` document it gets (the suite table's
 * suite_values_from_json, as worker/run.c applies it). The input is the claim's JSON. Whatever it holds,
 * neither may crash; a refusal says why; an accepted claim gives a NULL-terminated argv whose --job is a JSON
 * object with the claim's suite and model, and a summary that fits its buffer.
 *   clang -g -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE tests/fuzz/claim_fuzz.c
 * worker/runner_args.c \ kernels/suite.c kernels/suites.c kernels/lattice.c lib/error.c -ljansson -lm -o
 * claim_fuzz
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "worker/runner.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *claim = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL), *doc;
    struct runner_args a;
    struct pp_error err;
    const struct suite *s;

    if (!claim)
        return 0;
    err.msg[0] = '\0';
    if (runner_args_from_job(&a, claim, "hosta/cpu0", &err)) {
        if (!err.msg[0])
            abort(); /* a refusal says why */
        json_decref(claim);
        return 0;
    }
    if (a.argv[9] != NULL || strcmp(a.argv[4], "--job") || a.argv[5] != a.job ||
        strnlen(a.summary, sizeof(a.summary)) == sizeof(a.summary))
        abort();
    doc = json_loads(a.job, 0, NULL);
    if (!json_is_object(doc) || !json_equal(json_object_get(doc, "suite"), json_object_get(claim, "suite")) ||
        !json_equal(json_object_get(doc, "model"), json_object_get(claim, "model")))
        abort(); /* the child gets the job the server handed out */
    /* The child's side: `run --job` checks the document against the suite table. */
    if ((s = suite_find(json_string_value(json_object_get(doc, "suite"))))) {
        struct suite_values v;
        struct suite_error e;
        memset(&e, 0, sizeof(e));
        if (suite_values_from_json(&v, s, json_object_get(doc, "params"), json_object_get(doc, "kernels"),
                                   &e) &&
            !e.msg[0])
            abort();
    }
    json_decref(doc);
    runner_args_release(&a);
    json_decref(claim);
    return 0;
}
