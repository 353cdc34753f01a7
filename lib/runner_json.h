/*
 * runner_json: the one JSON form a runner's program other than BabelStream prints (issue 27; output =
 * ppbench-json in the runners file, docs/API.md "Runners" and deploy/runners.conf.example say it in full):
 *
 *   {"ppbench_runner": 1,
 *    "version": "site-cg 2.1 (gcc 12.2)",
 *    "problem": {"precision": "fp64", "size": 1048576, "arraysize": 1048576, "numtimes": 100},
 *    "kernels": [{"kernel": "triad", "count": 99, "min_s": 0.0011, "max_s": 0.0013, "mean_s": 0.0012}]}
 *
 * problem is the suite's problem document as the program ran it (the job's parameters by their names, with
 * the precision and the size in the suite's unit); each kernel its timed iterations' count and their minimum,
 * maximum and mean time in seconds. This parser checks the form alone: the fields and their types, times
 * finite, positive and ordered, no kernel twice. What the document must agree with (the job's values, the
 * suite's kernels and models) is the caller's (worker/external.c). Pure parsing of outside input: no
 * database, no HTTP, any thread; fuzzed by tests/fuzz/runner_json_fuzz.c.
 */
#ifndef PP_RUNNER_JSON_H
#define PP_RUNNER_JSON_H

#include <jansson.h>
#include <stddef.h>

#include "lib/error.h"

#define RUNNER_JSON_MAX_KERNELS 16

struct runner_json_kernel {
    char kernel[64];
    long long count; /* timed iterations */
    double min_s, max_s, mean_s;
};

struct runner_json {
    json_t *problem; /* owned */
    char version[256];
    struct runner_json_kernel kernels[RUNNER_JSON_MAX_KERNELS];
    size_t nkernels;
};

/* Parses len bytes of text (need not be NUL-terminated) into out (zeroed first). 0, or -1 with what is wrong
 * ("kernels[1].min_s must be a finite number above 0") in err and out empty. */
int runner_json_parse(const char *text, size_t len, struct runner_json *out, struct pp_error *err) PP_WUR;

/* Frees what out owns and zeroes it (NULL-safe). */
void runner_json_clear(struct runner_json *out);

#endif
