/*
 * suite: a suite as a plug-in. One descriptor per suite (its kernels, its parameters with type, range or
 * choices, default and description, what its figures mean) in one table (kernels/suites.c), from which the
 * worker's `run` options, the job's conversion for its child, the server's catalogue and validation
 * (GET /api/v1/suites), the CLI and the dashboard's forms are derived. ppbenchd links this file and the table
 * (pure data: jansson and kernels/lattice.c); the worker links the drivers too, through each descriptor's
 * `driver` (NULL in ppbenchd).
 *
 * A job's parameters have one form from the API to the driver: a JSON object, checked and completed by
 * suite_values_from_json (in the server at submission, and again in the job's child, which gets the job's
 * JSON as it was claimed), into struct suite_values, which the suite's driver reads by name.
 *
 * GET /api/v1/suites is suite_catalog_json(), the same document `ppbench-worker suites --json` prints; the
 * dashboard's forms and charts and the CLI's tables read the parameters and the figure of merit from it
 * (struct suite_figure, the catalogue's figure_of) rather than from lists of their own (the dashboard names
 * suites only in its defaults and in what is STREAM's own: the triad reference line, BabelStream's import). A
 * result stores the report's problem.size, in the unit the row names, and its problem key (suite_problem_key:
 * the parameters the row marks key, which the driver's problem document holds under their names), which the
 * runner builds and ppbenchd checks the same way.
 *
 * Pure functions and constant tables: any thread.
 */
#ifndef PP_SUITE_H
#define PP_SUITE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kernels/backend.h"
#include "lib/error.h"
#include "lib/stats.h"

enum suite_param_type {
    SUITE_INTEGER, /* a whole number in [min, max] */
    SUITE_ENUM,    /* one of choices */
    SUITE_LATTICE, /* "XxYxZxT": kernels/lattice.h's extent rule */
    SUITE_NUMBER,  /* a real number in [fmin, fmax] */
};

struct suite_param {
    const char *name; /* the API's and `--param`'s name; `run --<name>` with '_' as '-' */
    enum suite_param_type type;
    long long min, max, def;    /* integer: range and default */
    const char *const *choices; /* enum: NULL-terminated; def indexes it */
    /* enum, optional: parallel to choices, the models that offer each choice ("opencl,cuda"), NULL for a
     * choice every model offers; the server refuses a job that names a choice its model lacks. */
    const char *const *choice_models;
    /* enum, optional: parallel to choices, what each choice is, in a few words ("site-major"): the catalogue
     * serves them (choice_help), so that a form says only what the chosen model offers, not a hand-written
     * list of every choice (issue 25: the Submit page offered openmp's layouts with aosoa's text). */
    const char *const *choice_help;
    /* No default: absent, the job does not name it and the driver decides (the device's lattice, the
     * model's strategy, ...). */
    bool optional;
    /* Only for `ppbench-worker run` (a standalone choice jobs do not offer); left out of the catalogue. */
    bool standalone;
    /* Part of the problem key: its value changes the work per timed unit (samples, applications per sample,
     * the timing rule, the lattice's shape, ...), so results that differ in it are other problems, never
     * compared (suite_problem_key). Precision and size are always in the key. */
    bool key;
    /* An integer whose value is the problem's size (problem.size, in the suite's size unit): a report of a
     * job that gives it must hold that size (server/api/report_check.c). A lattice is held by the key and the
     * suite's model hook instead (its sites are the size). */
    bool size;
    /* Names the code that ran: an enum whose value, as the report's variant document holds it, is part of the
     * result's variant name (suite_variant_name). Launch shapes and figures derived from the size (work-group
     * sizes, threads, a dot's blocks and chain) are kept in the document, never in the name. */
    bool variant;
    const char *description;
    double fmin, fmax, fdef; /* number: range and default */
};

#define SUITE_MAX_PARAMS  16
#define SUITE_MAX_KERNELS 8
#define SUITE_VALUE_MAX   64 /* longest string value, NUL included */

struct suite_driver; /* kernels/suite_driver.h: the worker's part */
struct suite_error;

/* A kernel's models per application, as its report states them: bytes (the paper's byte model),
 * bytes_compulsory (each input read once, each output written once: what bounds the architectural efficiency)
 * and flops. */
struct suite_model {
    double bytes, bytes_compulsory, flops;
};

/* A figure of merit, as every reader of results (the CLI's tables, the dashboard's charts) derives it from a
 * stored result's fields, so that a suite with a figure of its own needs no code outside its row. */
struct suite_figure {
    const char *name;  /* "bandwidth", "gflops", "interactions": the catalogue's `figure` */
    const char *label; /* "bandwidth (GB/s)": a chart's axis */
    const char *unit;  /* "GB/s": a table's column */
    /* the result's field it is read from ("bandwidth_bytes_per_s", "gflops"), or "size": the problem's size
     * (in the suite's size unit) per second of the suite's timing statistic (stats_s.min or .mean) */
    const char *from;
    double scale; /* the figure in unit is the field (or the rate) times scale */
    /* proportional to GFLOP/s (a fixed flop count per unit of size): tables show GFLOP/s beside bandwidth */
    bool flops;
};

struct suite {
    const char *name;           /* "stream" */
    const char *title;          /* "STREAM (BabelStream, paper 004)" */
    const char *const *kernels; /* NULL-terminated, at most SUITE_MAX_KERNELS, in run order */
    const struct suite_param *params;
    size_t nparams;                    /* at most SUITE_MAX_PARAMS */
    const struct suite_figure *figure; /* the figure of merit its tables and charts show first */
    const char *size;                  /* what a result's size counts: "elements", "sites", "rows" */
    const char *timing;                /* the statistic its rates come from: "min" or "mean" */
    /* what limits it: "memory" (a working set that fits the last-level cache is not a DRAM figure: such a
     * result is flagged cache_resident, and CPU defaults grow to 4x the cache) or "compute" (the working set
     * is meant to sit in cache, as HACC's leaves do: neither applies) */
    const char *bound;
    const struct suite_driver *driver; /* the worker's; NULL where the drivers are not linked (ppbenchd) */
    /* The byte and flop models of every kernel (out[k] for kernels[k]) for the problem a report describes
     * (its "problem" document, borrowed: what ran, resolved on the device), from the suite's
     * kernels/<suite>/model.c, the one definition the driver uses too. Pure and linked everywhere (ppbenchd
     * holds every report to it: server/api/report_check.c). -1 when the problem lacks a quantity the models
     * need, holds one out of the suite's range, or its size is not what those quantities give (e names the
     * field: "problem.lattice"). */
    int (*model)(const json_t *problem, struct suite_model *out, struct suite_error *e);
};

/* One value per parameter of the suite, in the order of suite->params. */
struct suite_value {
    bool set; /* given, or filled from the default; false: absent and optional */
    long long i;
    double f;
    char s[SUITE_VALUE_MAX];
};

struct suite_values {
    const struct suite *suite;
    struct suite_value v[SUITE_MAX_PARAMS];
    unsigned kernels; /* bit mask over suite->kernels */
};

/* What is wrong with a job's suite, kernels or parameters: a stable code (the API's), the field it names
 * ("params.arraysize", "kernels") and a message. */
struct suite_error {
    const char *code; /* "unknown_field", "wrong_type", "out_of_range", "invalid_value", "unknown_kernel" */
    char field[80];
    char msg[256];
};

/* The table (kernels/suites.c). */
extern const char *const suite_models[]; /* NULL-terminated */
size_t suite_count(void);
const struct suite *suite_at(size_t i);
const struct suite *suite_find(const char *name);
const char *suite_names(void); /* "stream, wilson, staggered" */
/* The timing rule of a job of s with params (borrowed, may be NULL): its "timing" parameter where the suite
 * has one ("best" is "min"), else the table's: "min" or "mean". */
const char *suite_timing(const struct suite *s, const json_t *params);

const struct suite_param *suite_param(const struct suite *s, const char *name);
int suite_param_index(const struct suite *s, const char *name);  /* -1 when it has none */
int suite_kernel_index(const struct suite *s, const char *name); /* -1 when it has none */
size_t suite_nkernels(const struct suite *s);

/* Every parameter at its default (optional ones absent) and every kernel. */
void suite_values_default(struct suite_values *v, const struct suite *s);

/* params (a JSON object or NULL) and kernels (a JSON array of names or NULL: all) checked against the suite
 * and completed with the defaults. Unknown, ill-typed, out-of-range, duplicate or unknown-kernel input is
 * an error naming the field. */
int suite_values_from_json(struct suite_values *v, const struct suite *s, json_t *params, json_t *kernels,
                           struct suite_error *e) PP_WUR;

/* The enum choices in v that the model does not offer (the parameters' choice_models) are refused:
 * invalid_value naming the parameter and what the model has. */
int suite_values_check_model(const struct suite_values *v, const char *model, struct suite_error *e) PP_WUR;

/* One parameter given as text ("--param lattice=8x8x8x16", "--arraysize 1000"): checked as the JSON form. */
int suite_values_set(struct suite_values *v, const char *name, const char *text,
                     struct suite_error *e) PP_WUR;

/* "copy,triad": the kernels, checked. */
int suite_values_set_kernels(struct suite_values *v, const char *list, struct suite_error *e) PP_WUR;

/* The parameters that are set, as the job stores them (new reference); the kernels as an array. */
json_t *suite_values_params_json(const struct suite_values *v);
json_t *suite_values_kernels_json(const struct suite_values *v);

/* Reading a value by name: the integer, the string ("" when absent), whether it is set. The name must be one
 * of the suite's parameters (a driver reads only its own). */
long long suite_int(const struct suite_values *v, const char *name);
double suite_number(const struct suite_values *v, const char *name);
const char *suite_str(const struct suite_values *v, const char *name);
bool suite_is_set(const struct suite_values *v, const char *name);
bool suite_kernel_on(const struct suite_values *v, const char *kernel);

/* The problem key of a run (docs/METHODOLOGY.md, "Problem"): "precision=fp32;size=65536;lattice=16x16x16x16;
 * numtimes=100;iterations=1", the precision and size, then each parameter marked key in table order, with
 * the value the report's problem document (problem, borrowed) holds under the parameter's name: what ran,
 * resolved on the device. Integers in decimal, numbers with %.17g, strings as they are, arrays of integers
 * joined by 'x'. -1 when problem lacks one of them or holds a value of another form, or the key does not
 * fit out (e names the field: "problem.lattice"). Results are compared only within one key. */
#define SUITE_KEY_MAX 256
int suite_problem_key(const struct suite *s, const json_t *problem, char *out, size_t size,
                      struct suite_error *e) PP_WUR;

/* The variant name of a run (docs/METHODOLOGY.md, "Code divergence"): the values that the report's variant
 * document (variant, borrowed; NULL: none) holds under the suite's parameters marked variant, in table order,
 * joined by '/' ("3lp-1/k", "soa", "native"); "default" when it holds none (a model with one code for the
 * suite). Results, PP's variant policies and line sets are keyed by it. -1 when such a value is not one of
 * the parameter's choices (e names "variant.<parameter>"). */
#define SUITE_VARIANT_MAX 64
int suite_variant_name(const struct suite *s, const json_t *variant, char *out, size_t size,
                       struct suite_error *e) PP_WUR;

/* Splits a run's variant document (variant, an object, changed in place) in two: what names the code (the
 * values of the suite's parameters marked variant) stays; the rest (work-group sizes, threads, a dot's groups
 * and chain: the launch, derived from the size and the device; a 0 there, a dimension the model's launch does
 * not have such as OpenMP's work-group size, is left out) moves to a new object, returned (new
 * reference; an empty object when there is none; NULL when variant is not an object or memory ran out). The
 * report carries the launch in its provenance ("launch"), so a variant a user sees is a name of code. */
json_t *suite_variant_launch(const struct suite *s, json_t *variant);

/* One value as the key writes it (a job's "4x4x4x8" and a problem's [4, 4, 4, 8] alike); -1 when it has none
 * of those forms or does not fit out. */
int suite_key_value(const json_t *v, char *out, size_t size) PP_WUR;

/* s's models of every kernel for problem into out[0 .. suite_nkernels(s)) (s->model,
 * kernels/<suite>/model.c); -1 naming the field when the problem does not give them, or the suite has no
 * models. */
int suite_models_of(const struct suite *s, const json_t *problem, struct suite_model out[SUITE_MAX_KERNELS],
                    struct suite_error *e) PP_WUR;

/* What a suite's model hook reads of a report's problem (borrowed), each -1 naming "problem.<name>" when the
 * value is absent or out of range: an integer in [min, max]; the precision ("fp32", "fp64"); a lattice (four
 * integers, kernels/lattice.h's extent rule); and whether problem.size is want, the size the other values
 * give (what of them gives it named in from: "its lattice"). */
int suite_problem_int(const json_t *problem, const char *name, long long min, long long max, long long *out,
                      struct suite_error *e) PP_WUR;
int suite_problem_precision(const json_t *problem, enum pp_precision *out, struct suite_error *e) PP_WUR;
int suite_problem_lattice(const json_t *problem, unsigned dims[4], struct suite_error *e) PP_WUR;
int suite_problem_size(const json_t *problem, long long want, const char *from, struct suite_error *e) PP_WUR;

/* The programming models a job may name (kernels/suites.c: every model the project has, built here or not).
 */
bool suite_model_known(const char *name);
const char *suite_model_names(void); /* "openmp, opencl, cuda" */

/* The catalogue (GET /api/v1/suites; `ppbench-worker suites --json`): every suite with its kernels,
 * parameters (standalone ones left out), figure, size and timing, and the models (new reference). */
json_t *suite_catalog_json(void);

/* The command-line option of a parameter: "--work-group" for work_group. */
void suite_option_name(const char *name, char *out, size_t size);

/* "stream, wilson" (the suites that have a parameter named name, in table order) into out. */
void suite_param_owners(const char *name, char *out, size_t size);

#endif
