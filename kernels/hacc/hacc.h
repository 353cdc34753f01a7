/*
 * hacc: the HACC suite driver (paper 003: CRK-HACC's short-range particle pair kernels, Sec. 2 and 5.3). It
 * owns everything the models share: the leaves and pairs (kernels/hacc/hacc_ref.h), the run order, the flop
 * and byte models, the timing statistics and verification (the double-precision reference of every
 * interaction, Newton's third law, translation invariance). A model supplies kernels only (hacc_ops.h).
 */
#ifndef PP_HACC_H
#define PP_HACC_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/backend.h"
#include "kernels/hacc/hacc_ops.h"
#include "kernels/sample.h"
#include "lib/error.h"
#include "lib/stats.h"

#define HACC_ALL_KERNELS       ((1u << PP_HACC_NKERNELS) - 1)
#define HACC_DEFAULT_LEAF_SIZE 128u
#define HACC_DEFAULT_PAIRS_GPU 65536u /* 2.1e9 interactions at 128 a leaf: 65536 work-groups, 500 per SM */
#define HACC_DEFAULT_PAIRS_CPU 4096u
#define HACC_MAX_PAIRS         (1u << 22)
#define HACC_MAX_LEAF_SIZE     256u
#define HACC_DEFAULT_NUMTIMES  10u

/* Flops per interaction (one particle's update by one partner; docs/METHODOLOGY.md counts them). */
#define HACC_FLOPS_GRAVITY 30
#define HACC_FLOPS_SPH     69

struct hacc_params {
    unsigned leaf_size;  /* particles per leaf: a multiple of 16, 16 .. 256 */
    unsigned leaf_pairs; /* 0: the device's default (hacc_resolve) */
    unsigned numtimes;   /* samples per kernel; the first is warm-up */
    enum pp_precision prec;
    unsigned kernels; /* bit mask of enum pp_hacc_kernel */
    int variant;      /* enum pp_hacc_variant; -1: the model's default (hacc_resolve) */
    void (*progress)(void *arg, unsigned done, unsigned total);
    void *progress_arg;
};

/* What hacc says of a kernel beyond its report entry (struct hacc_result's kernels[]). */
struct hacc_kernel_figures {
    enum pp_hacc_kernel kernel;
    double interactions; /* per application: 2 leaf_size^2 per pair */
    double rate;         /* interactions per second, from the minimum */
    double momentum;     /* |sum m a| / sum m scale: Newton's third law */
    double energy;       /* sph: |sum m (du + v.a)| / its scale; 0 for gravity */
    double translation;  /* worst error of the translated run, relative as max_rel_err */
    double inside; /* the fraction of the interactions whose term is not zero (within rmax, the support) */
};

struct hacc_result {
    struct hacc_params params; /* as resolved */
    struct pp_hacc_launch launch;
    unsigned grid;
    size_t nleaves, nparticles;
    size_t touched; /* leaves the pair list names: the particles a kernel reads and writes */
    size_t chain;   /* most interactions summed into one particle */
    double build_seconds, init_seconds, read_seconds, reference_seconds;
    size_t nkernels;
    struct hacc_kernel_figures figures[PP_HACC_NKERNELS];
    /* each kernel as the report has it (kernels/sample.h): compulsory bytes and flops (interactions x flops
     * per interaction) per application, numtimes times (times[0] the warm-up), statistics and rates from the
     * minimum; the check: the worst per-particle error relative to its scale, the bound, and on failure what,
     * where, value, expected */
    struct suite_kernel kernels[PP_HACC_NKERNELS];
    bool verified;
};

const char *hacc_kernel_name(enum pp_hacc_kernel k);
const char *hacc_variant_name(enum pp_hacc_variant v);
/* -1 when name is no variant */
int hacc_variant_parse(const char *name);

void hacc_params_default(struct hacc_params *p);

/* The bytes the device's particle arrays (inputs and outputs of every particle of the grid) and pair list
 * take: the problem's working_set_bytes, which the server compares with the device's last-level cache
 * (docs/METHODOLOGY.md, "Cache residency"). */
double hacc_working_set(unsigned leaf_size, size_t pairs, enum pp_precision prec);

/* Make p the problem that runs on dev (dev->backend set): the device's default pairs (HACC_DEFAULT_PAIRS_GPU;
 * on CPUs HACC_DEFAULT_PAIRS_CPU, doubled up to HACC_MAX_PAIRS while the working set is below
 * CPUCACHE_LLC_FACTOR times a known last-level cache, kernels/cpucache.h) and variant, then
 * reject what cannot run, the message naming the parameter (leaf_size, leaf_pairs, numtimes, variant,
 * precision, memory). A variant the model has but this device cannot run is found at alloc ("unsupported:").
 */
int hacc_resolve(struct hacc_params *p, const struct pp_device *dev, struct pp_error *err) PP_WUR;

/* Run on an open context. -1 only when the device or runtime fails (or the variant is unsupported); a
 * result that fails verification returns 0 with res->verified false. Release with hacc_result_release. */
int hacc_run(const struct pp_backend *b, struct pp_ctx *ctx, const struct hacc_params *p,
             struct hacc_result *res, struct pp_error *err) PP_WUR;

void hacc_result_release(struct hacc_result *res);

#endif
