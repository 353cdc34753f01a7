/*
 * runner_wilson: the Wilson suite's part of the runner (worker/runner.c resolves the platform and model, then
 * hands over): check the lattice against the device, open, run, and write the report as a table, CSV or JSON.
 */
#ifndef PP_RUNNER_WILSON_H
#define PP_RUNNER_WILSON_H

#include <stdio.h>

#include "kernels/wilson/wilson.h"
#include "worker/report.h"
#include "worker/runner.h"

/* r has platform, device and model set; the rest is filled here. Returns a run.h exit status, as runner_run.
 */
int runner_wilson(const struct pp_backend *b, struct run_report *r, const struct wilson_params *p, FILE *out,
                  enum runner_format fmt, struct pp_error *err) PP_WUR;

#endif
