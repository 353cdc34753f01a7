/*
 * runner_staggered: the staggered suite's part of the runner (worker/runner.c resolves the platform and
 * model, then hands over): resolve the parameters against the device and model, open, run, and write the
 * report as a table, CSV or JSON.
 */
#ifndef PP_RUNNER_STAGGERED_H
#define PP_RUNNER_STAGGERED_H

#include <stdio.h>

#include "kernels/staggered/staggered.h"
#include "worker/report.h"
#include "worker/runner.h"

/* r has platform, device and model set; the rest is filled here. p is resolved in place. Returns a run.h exit
 * status, as runner_run. */
int runner_staggered(const struct pp_backend *b, struct run_report *r, struct staggered_params *p, FILE *out,
                     enum runner_format fmt, struct pp_error *err) PP_WUR;

#endif
