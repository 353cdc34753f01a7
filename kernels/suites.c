/*
 * suites: THE table of suites (and of the models a job may name). Everything else that knows which suites
 * exist, which kernels and parameters they have, with what types, ranges and defaults, reads it: the
 * worker's options and its job children, ppbenchd's catalogue and validation, and through the API the CLI
 * and the dashboard. Adding a suite adds a row here (and kernels/<suite>/); nothing in server/, cli/ or web/.
 *
 * Constant data; any thread. Each row's driver (kernels/<suite>/suite.c) is a weak reference: ppbenchd links
 * this file without the drivers, and sees NULL there.
 */
#include "kernels/suite.h"

#include "kernels/lattice.h"
#include "kernels/stream/stream.h"
#include "kernels/suite_driver.h"
#include "kernels/wilson/wilson.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *const suite_models[] = {"openmp", "opencl", "cuda", NULL};

static const char *const precisions[] = {"fp64", "fp32", NULL};

#define PRECISION(def)                                                                                       \
    {                                                                                                        \
        "precision", SUITE_ENUM, 0, 0, def, precisions, false, false, "element type"                         \
    }
#define LATTICE                                                                                              \
    {                                                                                                        \
        "lattice", SUITE_LATTICE, 0, 0, 0, NULL, true, false,                                                \
            "lattice extents XxYxZxT, each even and at least 4 (absent: 32^4 on GPUs, 8^4 on CPUs)"          \
    }

/* ---- stream (paper 004, BabelStream) ---- */
static const char *const stream_kernels[] = {"copy", "mul", "add", "triad", "dot", "nstream", NULL};
static const struct suite_param stream_params[] = {
    {"arraysize", SUITE_INTEGER, 1, 1LL << 40, STREAM_DEFAULT_N, NULL, false, false, "elements per array"},
    {"numtimes", SUITE_INTEGER, 2, 100000, STREAM_DEFAULT_NUMTIMES, NULL, false, false,
     "iterations per kernel; the first is warm-up"},
    PRECISION(0),
};

/* ---- wilson (paper 000) ---- */
static const char *const dslash_kernels[] = {"dslash", NULL};
static const char *const layouts[] = {"aos", "soa", NULL};
static const struct suite_param wilson_params[] = {
    LATTICE,
    {"layout", SUITE_ENUM, 0, 0, 0, layouts, false, false,
     "data layout: aos (site-major) or soa (structure of arrays over sites)"},
    PRECISION(1),
    {"numtimes", SUITE_INTEGER, 2, 100000, WILSON_DEFAULT_NUMTIMES, NULL, false, false,
     "timed samples; the first is warm-up"},
    {"iterations", SUITE_INTEGER, 1, WILSON_MAX_ITERATIONS, WILSON_DEFAULT_ITERATIONS, NULL, false, false,
     "applications per timed sample, back to back"},
};

/* ---- staggered (paper 001) ---- */
static const char *const strategies[] = {"1lp",   "2lp",   "3lp-1", "3lp-2", "3lp-3",
                                         "4lp-1", "4lp-2", "site",  "simd",  NULL};
static const char *const orders[] = {"none", "k", "i", "l", NULL};
static const char *const timings[] = {"mean", "best", NULL};
static const struct suite_param staggered_params[] = {
    LATTICE,
    PRECISION(0),
    {"strategy", SUITE_ENUM, 0, 0, 0, strategies, true, false,
     "parallel strategy (paper 001; absent: 3lp-1 on GPUs, site on CPUs)"},
    {"order", SUITE_ENUM, 0, 0, 0, orders, true, false,
     "work-item order: k-, i- or l-major (absent: the strategy's default)"},
    {"work_group", SUITE_INTEGER, 0, 1 << 20, 0, NULL, true, false, /* the device's limit is the worker's */
     "work-group size (0 or absent: the largest of 768, 384, 192, 96 the strategy allows)"},
    {"runs", SUITE_INTEGER, 1, 100000, 10, NULL, false, false, "timed samples after one warm-up application"},
    {"iterations", SUITE_INTEGER, 1, 100000, 100, NULL, false, false, "applications per timed sample"},
    /* Jobs follow the paper's rule only, so PP never mixes the two. */
    {"timing", SUITE_ENUM, 0, 0, 0, timings, false, true,
     "mean (rates from the mean sample, the paper's rule) or best (the fastest)"},
};

extern const struct suite_driver stream_driver __attribute__((weak));
extern const struct suite_driver wilson_driver __attribute__((weak));
extern const struct suite_driver staggered_driver __attribute__((weak));

static const struct suite suites[] = {
    {"stream", "STREAM (BabelStream, paper 004)", stream_kernels, stream_params, COUNT(stream_params),
     "bandwidth", "elements", "min", &stream_driver},
    {"wilson", "Wilson Dslash (paper 000)", dslash_kernels, wilson_params, COUNT(wilson_params), "gflops",
     "sites", "min", &wilson_driver},
    {"staggered", "MILC staggered Dslash (paper 001)", dslash_kernels, staggered_params,
     COUNT(staggered_params), "gflops", "sites", "mean", &staggered_driver},
};

_Static_assert(COUNT(stream_params) <= SUITE_MAX_PARAMS && COUNT(wilson_params) <= SUITE_MAX_PARAMS &&
                   COUNT(staggered_params) <= SUITE_MAX_PARAMS,
               "a suite has more parameters than SUITE_MAX_PARAMS");

size_t suite_count(void)
{
    return COUNT(suites);
}

const struct suite *suite_at(size_t i)
{
    return i < COUNT(suites) ? &suites[i] : NULL;
}
