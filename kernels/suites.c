/*
 * suites: THE table of suites (and of the models a job may name). Everything else that knows which suites
 * exist, which kernels and parameters they have, with what types, ranges and defaults, reads it: the
 * worker's options and its job children, ppbenchd's catalogue and validation, and through the API the CLI
 * and the dashboard. Adding a suite adds a row here (and kernels/<suite>/); nothing in server/, cli/ or web/.
 *
 * Constant data; any thread. Each row's driver (kernels/<suite>/suite.c) is a weak reference: ppbenchd links
 * this file without the drivers, and sees NULL there. Each row's model hook (kernels/<suite>/model.c, pure)
 * is linked everywhere: the driver states those models in its report and ppbenchd holds the report to them.
 */
#include "kernels/suite.h"

#include "kernels/cg/cg.h"
#include "kernels/cg/model.h"
#include "kernels/hacc/hacc.h"
#include "kernels/hacc/model.h"
#include "kernels/lattice.h"
#include "kernels/staggered/model.h"
#include "kernels/stream/model.h"
#include "kernels/stream/stream.h"
#include "kernels/suite_driver.h"
#include "kernels/wilson/model.h"
#include "kernels/wilson/wilson.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *const suite_models[] = {"openmp", "opencl", "cuda", "omp-target", NULL};

static const char *const precisions[] = {"fp64", "fp32", NULL};

/* A parameter of each type (kernels/suite.h): a default, or _OPT for none (absent: the driver decides). */
#define INTEGER(n, lo, hi, d, text, ...)                                                                     \
    {                                                                                                        \
        .name = n, .type = SUITE_INTEGER, .min = lo, .max = hi, .def = d, .description = text, __VA_ARGS__   \
    }
#define INTEGER_OPT(n, lo, hi, text, ...)                                                                    \
    {                                                                                                        \
        .name = n, .type = SUITE_INTEGER, .min = lo, .max = hi, .optional = true, .description = text,       \
        __VA_ARGS__                                                                                          \
    }
#define NUMBER(n, lo, hi, d, text, ...)                                                                      \
    {                                                                                                        \
        .name = n, .type = SUITE_NUMBER, .fmin = lo, .fmax = hi, .fdef = d, .description = text, __VA_ARGS__ \
    }
#define CHOICE(n, list, d, text, ...)                                                                        \
    {                                                                                                        \
        .name = n, .type = SUITE_ENUM, .choices = list, .def = d, .description = text, __VA_ARGS__           \
    }
#define CHOICE_OPT(n, list, text, ...)                                                                       \
    {                                                                                                        \
        .name = n, .type = SUITE_ENUM, .choices = list, .optional = true, .description = text, __VA_ARGS__   \
    }
/* KEY as the last argument: the parameter is part of the problem key (kernels/suite.h); precision and the
 * lattice always are. */
#define KEY .key = true
/* SIZE as the last argument: the integer is the problem's size (kernels/suite.h). */
#define SIZE .size = true
/* VARIANT as the last argument: the parameter's value names the code that ran (kernels/suite.h). */
#define VARIANT      .variant = true
#define PRECISION(d) CHOICE("precision", precisions, d, "element type", KEY)
/* An optional choice that not every model offers: models lists, per choice, the models that have it. */
#define CHOICE_OPT_MODELS(n, list, models, text, ...)                                                        \
    {                                                                                                        \
        .name = n, .type = SUITE_ENUM, .choices = list, .choice_models = models, .optional = true,           \
        .description = text, __VA_ARGS__                                                                     \
    }
#define GPU_MODELS "opencl,cuda"
#define LATTICE                                                                                              \
    {                                                                                                        \
        .name = "lattice", .type = SUITE_LATTICE, .optional = true, .key = true,                             \
        .description =                                                                                       \
            "lattice extents XxYxZxT, each even and at least 4 (absent: 32^4 on GPUs; on CPUs 8^4, or the "  \
            "smallest even L^4 whose fields are at least 4x a known last-level cache)"                       \
    }

/* The figures of merit (kernels/suite.h): a suite's row names one; a suite with a figure of its own adds one
 * here. */
static const struct suite_figure bandwidth = {.name = "bandwidth",
                                              .label = "bandwidth (GB/s)",
                                              .unit = "GB/s",
                                              .from = "bandwidth_bytes_per_s",
                                              .scale = 1e-9};
static const struct suite_figure gflops = {
    .name = "gflops", .label = "GFLOP/s", .unit = "GFLOP/s", .from = "gflops", .scale = 1, .flops = true};
/* interactions per second: problem.size, the interactions of one application, over the timing statistic */
static const struct suite_figure interactions = {.name = "interactions",
                                                 .label = "G interactions/s",
                                                 .unit = "Ginter/s",
                                                 .from = "size",
                                                 .scale = 1e-9,
                                                 .flops = true};

/* ---- stream (paper 004, BabelStream) ---- */
static const char *const stream_kernels[] = {"copy", "mul", "add", "triad", "dot", "nstream", NULL};
static const char *const stores[] = {"temporal", "streaming", NULL};
static const char *const stores_models[] = {"openmp", "openmp"};
static const struct suite_param stream_params[] = {
    INTEGER_OPT(
        "arraysize", 1, STREAM_MAX_N,
        "elements per array (absent: 2^25, on a CPU whose last-level cache is known doubled until the "
        "three arrays are at least 4x that cache, at most 2^27)",
        SIZE),
    INTEGER("numtimes", 2, 100000, STREAM_DEFAULT_NUMTIMES, "iterations per kernel; the first is warm-up",
            KEY),
    PRECISION(0),
    CHOICE_OPT_MODELS("stores", stores, stores_models,
                      "openmp: how the kernels store the array they write: temporal (through the caches, as "
                      "gcc compiles STREAM's loops) or streaming (non-temporal stores, no read for "
                      "ownership); absent: streaming when the three arrays exceed the last-level cache (256 "
                      "MiB where it is unknown)",
                      VARIANT),
};

/* ---- wilson (paper 000) ---- */
static const char *const dslash_kernels[] = {"dslash", NULL};
static const char *const layouts[] = {"aos", "soa", "aosoa", NULL};
/* aosoa (blocks of 32 sites, component-major within a block) is a GPU layout: one block is one warp's loads.
 */
static const char *const layout_models[] = {"openmp,opencl,cuda,omp-target", "openmp,opencl,cuda,omp-target",
                                            GPU_MODELS};
static const char *const layout_help[] = {"site-major", "structure of arrays over sites",
                                          "soa within blocks of 32 sites"};
static const struct suite_param wilson_params[] = {
    LATTICE,
    CHOICE("layout", layouts, 0, "data layout", .choice_models = layout_models, .choice_help = layout_help,
           VARIANT),
    PRECISION(1),
    INTEGER("numtimes", 2, 100000, WILSON_DEFAULT_NUMTIMES, "timed samples; the first is warm-up", KEY),
    INTEGER("iterations", 1, WILSON_MAX_ITERATIONS, WILSON_DEFAULT_ITERATIONS,
            "applications per timed sample, back to back", KEY),
};

/* ---- staggered (paper 001) ---- */
static const char *const strategies[] = {"1lp",   "2lp",   "3lp-1", "3lp-2", "3lp-3",
                                         "4lp-1", "4lp-2", "site",  "simd",  NULL};
/* omp-target expresses 1lp, 2lp and 3lp-3: the others need work-items of a site to share memory behind
 * barriers. */
static const char *const strategy_models[] = {GPU_MODELS ",omp-target",
                                              GPU_MODELS ",omp-target",
                                              GPU_MODELS,
                                              GPU_MODELS,
                                              GPU_MODELS ",omp-target",
                                              GPU_MODELS,
                                              GPU_MODELS,
                                              "openmp",
                                              "openmp"};
static const char *const orders[] = {"none", "k", "i", "l", NULL};
static const char *const timings[] = {"mean", "best", NULL};
static const struct suite_param staggered_params[] = {
    LATTICE,
    PRECISION(0),
    CHOICE_OPT_MODELS(
        "strategy", strategies, strategy_models,
        "parallel strategy (paper 001: the work-item strategies on opencl and cuda, site and simd "
        "on openmp; absent: 3lp-1 on GPUs, site on CPUs)",
        VARIANT),
    CHOICE_OPT("order", orders, "work-item order: k-, i- or l-major (absent: the strategy's default)",
               VARIANT),
    /* the device's limit is the worker's to judge */
    INTEGER_OPT("work_group", 0, 1 << 20,
                "work-group size (0 or absent: the largest of 768, 384, 192, 96 the strategy allows)"),
    INTEGER("runs", 1, 100000, 10, "timed samples after one warm-up application", KEY),
    INTEGER("iterations", 1, 100000, 100, "applications per timed sample", KEY),
    /* Jobs follow the paper's rule only, so PP never mixes the two. */
    {.name = "timing",
     .type = SUITE_ENUM,
     .choices = timings,
     .standalone = true,
     .key = true,
     .description = "mean (rates from the mean sample, the paper's rule) or best (the fastest)"},
};

/* ---- cg (paper 002) ---- */
static const char *const cg_kernels[] = {"axpby", "dot", "spmv", "cg", NULL};
static const char *const spmv_variants[] = {"native", "cusparse", NULL};
static const char *const spmv_models[] = {NULL, "cuda"};
static const struct suite_param cg_params[] = {
    INTEGER_OPT("n", 1, CG_MAX_N,
                "grid cells per side: (n+1)^3 rows (absent: 200 on GPUs; on CPUs 100, grown by 10 while the "
                "matrix and vectors are below 4x a known last-level cache)",
                KEY),
    PRECISION(0),
    INTEGER("numtimes", 2, 100000, CG_DEFAULT_NUMTIMES, "samples per kernel; the first is warm-up", KEY),
    INTEGER("iterations", 1, CG_MAX_ITERATIONS, CG_DEFAULT_ITERATIONS, "CG iterations per cg sample", KEY),
    NUMBER("tolerance", 0, 0.5, 0,
           "cg stops once the relative residual is below it (0: every iteration runs)", KEY),
    {.name = "spmv_variant",
     .type = SUITE_ENUM,
     .choices = spmv_variants,
     .choice_models = spmv_models,
     .variant = true,
     .description = "SPMV: ppbench's kernel (native) or the vendor library's (cusparse, CUDA only)"},
    INTEGER_OPT("rows_per_group", 1, 1024,
                "SPMV rows per work-group, a power of two (the paper's rows per team; absent: the model's)"),
    INTEGER_OPT("items_per_row", 1, 32,
                "SPMV work-items per row, a power of two (the paper's vector length; 1 on CPUs; absent: the "
                "model's)"),
};

/* ---- hacc (paper 003) ---- */
static const char *const hacc_kernels[] = {"gravity", "sph", NULL};
static const char *const hacc_variants[] = {"select", "memory-32", "memory-object", "broadcast", "scalar",
                                            "simd",   NULL};
/* omp-target takes every variant and refuses select and the memory exchanges as unsupported (with the reason)
 * at run time, so that a job records them (kernels/hacc/openmp.c). */
#define HACC_GPU_MODELS GPU_MODELS ",omp-target"
static const char *const hacc_variant_models[] = {HACC_GPU_MODELS, HACC_GPU_MODELS,     HACC_GPU_MODELS,
                                                  HACC_GPU_MODELS, "openmp,omp-target", "openmp,omp-target"};
static const struct suite_param hacc_params[] = {
    INTEGER("leaf_size", 16, HACC_MAX_LEAF_SIZE, HACC_DEFAULT_LEAF_SIZE,
            "particles per leaf, a multiple of 16 (HACC's leaves hold 64 to 256)", KEY),
    INTEGER_OPT("leaf_pairs", 1, HACC_MAX_PAIRS,
                "leaf pairs of neighbouring cells (absent: 65536 on GPUs, 4096 on CPUs)", KEY),
    PRECISION(1),
    INTEGER("numtimes", 2, 100000, HACC_DEFAULT_NUMTIMES, "samples per kernel; the first is warm-up", KEY),
    CHOICE_OPT_MODELS(
        "variant", hacc_variants, hacc_variant_models,
        "exchange between the half-warps (paper 003 Sec. 5.3: select, memory-32, memory-object, "
        "broadcast; OpenMP: scalar, simd; omp-target: broadcast, scalar, simd; absent: select on cuda, "
        "memory-object on opencl GPUs, broadcast on opencl CPUs, simd on openmp and omp-target)",
        VARIANT),
};

extern const struct suite_driver stream_driver __attribute__((weak));
extern const struct suite_driver wilson_driver __attribute__((weak));
extern const struct suite_driver staggered_driver __attribute__((weak));
extern const struct suite_driver cg_driver __attribute__((weak));
extern const struct suite_driver hacc_driver __attribute__((weak));

static const struct suite suites[] = {
    {"stream", "STREAM (BabelStream, paper 004)", stream_kernels, stream_params, COUNT(stream_params),
     &bandwidth, "elements", "min", "memory", &stream_driver, stream_model_problem},
    {"wilson", "Wilson Dslash (paper 000)", dslash_kernels, wilson_params, COUNT(wilson_params), &gflops,
     "lattice sites", "min", "memory", &wilson_driver, wilson_model_problem},
    {"staggered", "MILC staggered Dslash (paper 001)", dslash_kernels, staggered_params,
     COUNT(staggered_params), &gflops, "lattice sites", "mean", "memory", &staggered_driver,
     staggered_model_problem},
    {"cg", "CG solve (Kokkos SYCL, paper 002)", cg_kernels, cg_params, COUNT(cg_params), &bandwidth, "rows",
     "min", "memory", &cg_driver, cg_model_problem},
    {"hacc", "HACC short-range pair kernels (CRK-HACC, paper 003)", hacc_kernels, hacc_params,
     COUNT(hacc_params), &interactions, "interactions", "min", "compute", &hacc_driver, hacc_model_problem},
};

_Static_assert(COUNT(stream_params) <= SUITE_MAX_PARAMS && COUNT(wilson_params) <= SUITE_MAX_PARAMS &&
                   COUNT(staggered_params) <= SUITE_MAX_PARAMS && COUNT(cg_params) <= SUITE_MAX_PARAMS &&
                   COUNT(hacc_params) <= SUITE_MAX_PARAMS,
               "a suite has more parameters than SUITE_MAX_PARAMS");

size_t suite_count(void)
{
    return COUNT(suites);
}

const struct suite *suite_at(size_t i)
{
    return i < COUNT(suites) ? &suites[i] : NULL;
}
