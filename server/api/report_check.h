/*
 * report_check: a worker's result report held against the job it answers, before anything is stored. The
 * report must be the job's (its suite, each of the job's kernels exactly once, its precision, its size, the
 * variant choices the job fixed), every figure a finite number in a physical range, each kernel's bytes,
 * bytes_compulsory and flops the suite's models for the problem it holds (the suite table's hook,
 * kernels/<suite>/model.c, which the worker's driver states them by), and the statistics, bandwidth and
 * GFLOP/s what the samples (times_s), those models and the suite's timing rule give (refused naming the
 * figure that disagrees). Pure: no database,
 * any thread; the fuzz target tests/fuzz/report_fuzz.c drives it.
 */
#ifndef PP_REPORT_CHECK_H
#define PP_REPORT_CHECK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"

/* The largest figures a report may hold: far above any device, far below what breaks arithmetic. */
#define REPORT_MAX_BANDWIDTH 1e15 /* bytes/s: 1 PB/s */
#define REPORT_MAX_GFLOPS    1e7  /* 10 PFLOP/s */
#define REPORT_MAX_MODEL     1e18 /* bytes or flops per application */
#define REPORT_MAX_SECONDS   86400.0
#define REPORT_MAX_SAMPLES   1000000
#define REPORT_MAX_SIZE      (1LL << 40)
/* How far a figure may stand from what its samples give: the worker prints 10 significant digits. */
#define REPORT_REL_TOLERANCE 1e-6

/* 0 when report (borrowed) fits the job: suite, kernels (a JSON array of names) and params (the job's
 * validated parameters). runner: the job's model is a runner's (issue 27), whose program prints a summary,
 * not samples: each kernel then has no times_s and its stats_s holds count, min, max and mean only, ordered,
 * and the figures are what those give under the suite's timing rule. Else -1: field names the part at fault
 * ("report.kernels[1].bandwidth_bytes_per_s") and err says what is wrong. */
int report_check(const char *suite, const json_t *kernels, const json_t *params, bool runner,
                 const json_t *report, char *field, size_t field_size, struct pp_error *err) PP_WUR;

/* What the server stores of a report that report_check accepted is derived from its samples (the last
 * stats_s.count of each kernel's times_s), never taken from the worker: each kernel's stats_s.median and
 * stats_s.stddev are set from them (min, max and mean were checked against them; a runner's kernel, with no
 * samples, gets neither, nor noise), and "noise" is set to
 * {"rule", "value", "limit"}: the stability of the figure under the job's timing rule (stats_noise:
 * best_tenth for best-of, mean_ci95 for mean-of, a fraction) and the limit of that rule (best_limit or
 * mean_limit). Returns how many kernels are past their limit. */
int report_derive(json_t *report, const char *suite, const json_t *params, double best_limit,
                  double mean_limit);

#endif
