/*
 * stream: the STREAM suite driver (paper 004, BabelStream). It owns everything the models share: problem
 * sizes, initial values, the run order, the byte and flop models, the timing statistics and verification
 * against the serial reference (stream_ref). A backend supplies kernels only (struct pp_stream_ops).
 */
#ifndef PP_STREAM_H
#define PP_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/sample.h"
#include "kernels/stream/stream_ops.h"
#include "lib/error.h"
#include "lib/stats.h"

enum stream_kernel {
    STREAM_COPY,
    STREAM_MUL,
    STREAM_ADD,
    STREAM_TRIAD,
    STREAM_DOT,
    STREAM_NSTREAM,
    STREAM_NKERNELS
};

#define STREAM_ALL_KERNELS      ((1u << STREAM_NKERNELS) - 1)
#define STREAM_DEFAULT_N        (1u << 25)
#define STREAM_MAX_N            (1LL << 40) /* the largest arraysize a job may name */
#define STREAM_DEFAULT_NUMTIMES 100

/* BabelStream's start values. */
#define STREAM_START_A 0.1
#define STREAM_START_B 0.2
#define STREAM_START_C 0.0
#define STREAM_SCALAR  0.4

struct stream_params {
    size_t n;          /* elements per array; 0: the device's default (stream_resolve) */
    unsigned numtimes; /* iterations per kernel; the first is warm-up, excluded from the statistics */
    enum pp_precision prec;
    unsigned kernels;             /* bit mask of enum stream_kernel */
    enum pp_stream_stores stores; /* the job's "stores"; AUTO: the model's choice */
    /* Optional: called after each iteration (done of total), from the running thread. */
    void (*progress)(void *arg, unsigned done, unsigned total);
    void *progress_arg;
};

struct stream_result {
    struct stream_params params;
    struct pp_stream_layout layout;
    double init_seconds, read_seconds;
    size_t nkernels;                           /* entries used, in run order */
    enum stream_kernel which[STREAM_NKERNELS]; /* the kernel of each entry */
    /* each entry as the report has it (kernels/sample.h): byte and flop models per application, numtimes
     * times (times[0] the warm-up), statistics and rates from the minimum, the check (dot: of the sum) */
    struct suite_kernel kernels[STREAM_NKERNELS];
    bool verified; /* every kernel verified */
};

const char *stream_kernel_name(enum stream_kernel k);

/* Parse "copy,triad,dot" into a mask. Unknown names are an error naming the kernel. */
int stream_kernels_parse(const char *list, unsigned *mask, struct pp_error *err) PP_WUR;

void stream_params_default(struct stream_params *p);

/* Bytes the three arrays need on the device. */
double stream_footprint(const struct stream_params *p);

/* The default array size on dev: STREAM_DEFAULT_N, doubled on a CPU whose last-level cache is known until
 * the three arrays (the working set) are at least CPUCACHE_LLC_FACTOR times that cache (the rule of every
 * memory-bound suite; kernels/cpucache.h); at most STREAM_MAX_DEFAULT_N, 4x BabelStream's default: a virtual
 * machine may report its host's whole L3 (hundreds of MiB), which grew the default to 2^28 elements,
 * gigabytes and minutes, before the cap (docs/METHODOLOGY.md, "Cache residency"). */
#define STREAM_MAX_DEFAULT_N (1ull << 27)
size_t stream_default_n(const struct pp_device *dev, enum pp_precision prec);

/* Make p the problem that runs on dev: n 0 becomes stream_default_n, then stream_check. */
int stream_resolve(struct stream_params *p, const struct pp_device *dev, struct pp_error *err) PP_WUR;

/* Reject what cannot run before anything is allocated: numtimes < 2, n == 0, no kernel, no fp64, or arrays
 * that do not fit the device's memory or its largest allocation. */
int stream_check(const struct stream_params *p, const struct pp_device *dev, struct pp_error *err) PP_WUR;

/* Run the suite on an open context. Returns -1 only when the device or runtime fails; a result that fails
 * verification returns 0 with res->verified == false. res must be released with stream_result_release. */
int stream_run(const struct pp_backend *b, struct pp_ctx *ctx, const struct stream_params *p,
               struct stream_result *res, struct pp_error *err) PP_WUR;

void stream_result_release(struct stream_result *res);

#endif
