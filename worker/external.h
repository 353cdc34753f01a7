/*
 * external: one job of a runner (worker/runners.h): the site's program run with the job's checked values,
 * its output read by the one parser of its form (lib/babelstream.c), and the report `run --json` writes for
 * any model, with origin "runner", ppbench's byte and flop models of the suite, and the program's own
 * verification said where the result is read (provenance "verification").
 */
#ifndef PP_EXTERNAL_H
#define PP_EXTERNAL_H

#include <stdio.h>

#include "lib/error.h"
#include "worker/runner.h"
#include "worker/runners.h"

/* Runs d for job on its platform and writes the report (RUNNER_JSON) or the program's own output. Returns a
 * run.h status: RUN_OK, RUN_USAGE (the job does not fit the runner) or RUN_FAILED (the program failed, timed
 * out, or printed no table or one that disagrees with the job: err holds why and its last lines). */
int external_run(const struct runner_def *d, const struct runner_job *job, FILE *out, enum runner_format fmt,
                 struct pp_error *err) PP_WUR;

#endif
