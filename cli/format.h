/*
 * format: the client's tables of jobs, platforms, results and PP (from the server's JSON, borrowed), and the
 * progress bar. Fields a document lacks print as "-".
 */
#ifndef PP_CLI_FORMAT_H
#define PP_CLI_FORMAT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "lib/error.h"

/* Tables of the arrays of GET /api/v1/jobs, /api/v1/platforms and /api/v1/results. */
int format_jobs(FILE *f, json_t *jobs, struct pp_error *err) PP_WUR;
int format_platforms(FILE *f, json_t *platforms, struct pp_error *err) PP_WUR;
int format_results(FILE *f, json_t *results, struct pp_error *err) PP_WUR;

/* The PP table of GET /api/v1/pp: a line naming the problem, then one row per application with its PP and its
 * efficiency on each platform ("-": no verified result, "n/a": undefined), then the applications' notes. */
int format_pp(FILE *f, json_t *doc, struct pp_error *err) PP_WUR;
/* GET /api/v1/pp/policies: every variant policy's PP, code divergence and convergence, and the variant and
 * efficiency it runs on each platform. */
int format_policies(FILE *f, json_t *doc, struct pp_error *err) PP_WUR;

/* One finished job as BabelStream prints a run: a few header lines, then one row per kernel of its current
 * run, then the rows of its earlier runs (superseded) apart, each run labelled. */
void format_job_results(FILE *f, json_t *job);

/* A result's flags as "noisy,cache_resident" in buf ("" when it has none); returns buf. */
const char *format_flags(json_t *r, char *buf, size_t size);

/* Whether result r is superseded: a row of an earlier run of its job, replaced by a later run's, which counts
 * nowhere (not even with --include-flagged). */
bool format_superseded(json_t *r);

/* "\rjob 42 running   [#######      ]  45%", redrawn in place (for a terminal). */
void format_progress(FILE *f, long long id, const char *state, double progress);

#endif
