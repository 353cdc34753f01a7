/*
 * runner: one suite on one platform through one model, start to report: what `ppbench-worker run` does, and
 * so what the job child of `serve` does (worker/child.h starts it). The suite is a plug-in (kernels/suite.h):
 * the runner does what every suite shares and calls the suite's driver for the rest.
 */
#ifndef PP_RUNNER_H
#define PP_RUNNER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "kernels/suite.h"
#include "lib/error.h"

enum runner_format { RUNNER_TABLE, RUNNER_CSV, RUNNER_JSON };

struct cpubind;
struct runner_def;

struct runner_job {
    const char *platform, *model;
    struct suite_values values; /* the suite, its kernels and parameters, checked against the table */
    int progress_fd;            /* -1, or a pipe that gets "progress 0.42\n" lines (at most ~10 per second) */
    const struct cpubind
        *binding; /* the CPU binding run applied (worker/cpubind.h), for the provenance; NULL */
    const struct runner_def *external; /* the model is this runner (worker/runners.h), not a backend; NULL */
    bool kernels_default;              /* no kernels were named: a runner's are its own */
};

/* Discover, resolve platform and model, prepare the suite for the device, open, run, and write the report to
 * out in fmt; verification failures go to stderr, one line each. Returns a run.h exit status: RUN_OK,
 * RUN_UNVERIFIED (err: the first failures), RUN_USAGE or RUN_FAILED (err: why). err may span lines (a
 * model's discovery notes follow its message, indented). */
int runner_run(const struct runner_job *job, FILE *out, enum runner_format fmt, struct pp_error *err) PP_WUR;

/* The command line of `run --platform P --job JSON --json --progress-fd 3` for a job object of the API (its
 * "suite", "model", "kernels" and "params", passed on as one JSON document: the job's parameters keep their
 * form to the child, which checks them against the suite table as the server did), for child_start. */
struct runner_args {
    char *argv[10];
    char platform[48];
    char *job;         /* the JSON document; owned, freed by runner_args_release */
    char summary[256]; /* for the log: "wilson dslash lattice=4x4x4x8 layout=aos precision=fp32" */
};
int runner_args_from_job(struct runner_args *a, json_t *job, const char *platform,
                         struct pp_error *err) PP_WUR;
void runner_args_release(struct runner_args *a);

#endif
