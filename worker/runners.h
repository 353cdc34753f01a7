/*
 * runners: the external programs this host offers as models (issue 27), defined in the worker's host
 * configuration and never in a request. One file of sections (deploy/runners.conf.example says it in full):
 *
 *   [babelstream-omp]
 *   suite = stream
 *   kernels = copy,mul,add,triad,dot
 *   platform = cpu0
 *   program = /opt/babelstream/omp-stream
 *   args = --arraysize {arraysize} --numtimes {numtimes} {precision=fp32:--float} --csv
 *   version_args = --arraysize 1024 --numtimes 2
 *   output = babelstream-csv
 *   timeout_s = 3600
 *   env = OMP_PROC_BIND=spread
 *
 * A job names a runner as its model; its program runs with the words of `args`, each placeholder filled
 * from the job's parameters as the suite table checked them ({name}: the value; {name=value:WORD}: WORD
 * when the parameter has that value, else no word; {device}: the index its platform's id ends with, gpu1: 1),
 * never through a shell. A placeholder that names no
 * parameter of the suite is refused when the file is read, so nothing in a job can become a word the site
 * did not write. The file is read by `serve` (which registers the runners of its platform) and again by the
 * job's child (which runs one): main thread of either.
 */
#ifndef PP_RUNNERS_H
#define PP_RUNNERS_H

#include <jansson.h>
#include <stdbool.h>

#include "kernels/suite.h"
#include "lib/error.h"

#define RUNNERS_MAX      32
#define RUNNER_MAX_WORDS 32
#define RUNNER_MAX_ENV   16
#define RUNNERS_DEFAULT  "/etc/ppbench/runners.conf"

struct runner_def {
    char name[64];
    const struct suite *suite;
    unsigned kernels;  /* bit mask over suite->kernels: what the program measures */
    char platform[64]; /* the local platform id it runs on ("cpu0") */
    char program[512]; /* an absolute path */
    char *args[RUNNER_MAX_WORDS], *version_args[RUNNER_MAX_WORDS]; /* template words, owned */
    int nargs, nversion_args;
    char *env[RUNNER_MAX_ENV]; /* "NAME=VALUE", owned */
    int nenv;
    char output[32]; /* "babelstream-csv" (stream only) or "ppbench-json" (lib/runner_json.h) */
    long timeout_s;
    int line; /* of its section, for messages */
};

struct runners {
    char path[512]; /* the file read; "" when there is none */
    struct runner_def items[RUNNERS_MAX];
    int n;
};

/* The runners file: path, else $PPBENCH_RUNNERS, else RUNNERS_DEFAULT when it exists (none: an empty set).
 * A file that is named and cannot be read, or holds anything wrong, is an error naming its line. */
int runners_load(struct runners *rs, const char *path, struct pp_error *err) PP_WUR;
void runners_release(struct runners *rs);

const struct runner_def *runners_find(const struct runners *rs, const char *name);

/* The runners of a local platform for the registration: [{name, suite, kernels, output, program}] (new
 * reference). */
json_t *runners_json(const struct runners *rs, const char *platform);

/* The program's argv for v (the job's checked values): words newly allocated into argv (at most
 * RUNNER_MAX_WORDS + 1, NULL-terminated; argv[0] is the program). A placeholder whose parameter the job
 * left absent is an error naming it. */
int runners_argv(const struct runner_def *d, char *const *words, int nwords, const struct suite_values *v,
                 char **argv, struct pp_error *err) PP_WUR;
void runners_argv_free(char **argv);

#endif
