/*
 * suite_driver: the worker's part of a suite plug-in (kernels/suite.h has the descriptor and the table). The
 * runner (worker/runner.c) does what every suite shares: it finds the platform and the model, opens the
 * device, collects provenance, writes the report's frame; a suite's driver hooks do the rest: resolve its
 * parameters for the device, run and verify, say what the report holds, and write its own table and CSV.
 *
 * Main thread of `ppbench-worker run`; a driver's state is its own from prepare to release.
 */
#ifndef PP_SUITE_DRIVER_H
#define PP_SUITE_DRIVER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "kernels/backend.h"
#include "kernels/sample.h"
#include "kernels/suite.h"
#include "lib/error.h"
#include "lib/stats.h"

/* What a run asks of a suite: the parameters checked against the table, and where it runs. */
struct suite_run {
    const struct suite_values *values;
    const struct pp_backend *backend;
    const struct pp_device *device;
    /* Optional: called after each timed unit (done of total), from the running thread. */
    void (*progress)(void *arg, unsigned done, unsigned total);
    void *progress_arg;
};

/* What a finished run reports, filled by the driver's run: the suite's problem, variant and phases (new
 * references the runner steals into the JSON report), its kernels (the driver's, valid until release) and
 * whether every kernel verified. The problem holds "size" (in the suite's size unit) and "precision" beside
 * the suite's own keys. */
struct suite_output {
    json_t *problem, *variant, *phases;
    json_t *
        details; /* optional: what else the run found (a solver's residual history): the report's "details" */
    /* optional: a JSON array of strings, what a reader of the result must know (a problem accepted with a
     * caveat, such as staggered third neighbours aliasing on an extent of 4 or 6): the report's "warnings" */
    json_t *warnings;
    const struct suite_kernel *kernels; /* nkernels of them, in run order */
    size_t nkernels;
    bool verified;
};

/* What the runner knows, for a suite's table header. */
struct suite_header {
    const char *platform_id, *platform_name, *model, *version;
    double peak_bw;          /* bytes per second, 0 when unknown */
    const char *peak_source; /* where the peak comes from */
};

struct suite_driver {
    /* Resolve the values for this device and model (defaults that depend on them, such as the device's
     * lattice) and reject what cannot run, naming the parameter: a new state in *state. */
    int (*prepare)(const struct suite_run *run, void **state, struct pp_error *err);
    /* Run on an open context and fill out. -1 only when the device or runtime fails; a result that fails
     * verification returns 0 with out->verified false. */
    int (*run)(void *state, const struct pp_backend *b, struct pp_ctx *ctx, struct suite_output *out,
               struct pp_error *err);
    /* The suite's own table and CSV (its paper's or BabelStream's columns), of a finished run. */
    void (*table)(FILE *f, const struct suite_header *h, const void *state);
    void (*csv)(FILE *f, const void *state);
    void (*release)(void *state); /* NULL-safe */
};

#endif
