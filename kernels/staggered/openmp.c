/*
 * staggered/openmp: the MILC staggered Dslash through OpenMP, one file for both OpenMP models
 * (kernels/openmp/body.h), each with the strategies it can express (openmp_kernels.h):
 *
 *   host (`openmp`): site (a parallel loop over output sites on the canonical arrays) and simd (sites in
 *   blocks of STAG_BLOCK, site-fastest within a block, the lanes of a block an `omp simd` loop); the fields
 *   are page aligned and first touched by the threads of the kernel's schedule; the planted-fault hook of
 *   kernels/lattice.h is read at alloc;
 *
 *   device (`omp-target`, built with -DPP_OMP_TARGET): on the canonical arrays (staggered_ops.h), each
 *   strategy one or two `target teams distribute parallel for simd` loops (paper 001): 1lp, one iteration
 *   per output site, its 16 products M v summed in registers; 2lp, three per site, row i of every product;
 *   3lp-3, twelve per site (row i, direction k, in the variant's k- or i-major order), each adding its four
 *   terms with `omp atomic update` into the output, which a loop of its own zeroes first (the OpenCL kernel
 *   zeroes it in the same kernel behind a work-group barrier; here the end of a target region is that
 *   barrier). The strategies whose work-items of a site share local memory behind barriers (3lp-1, 3lp-2,
 *   4lp-1, 4lp-2) have no counterpart in OpenMP's worksharing loops, whose iterations cannot synchronise,
 *   and the model does not list them. Fields are device memory, moved through a host staging buffer.
 *
 * Ownership: the suite's state (struct omb_staggered, private to this file) is created by the first alloc
 * and kept in the context's suite slots (PP_SUITE_SLOT); release frees the fields, close frees the state.
 * Threads: the context's thread; every call returns when its loop has joined or its region finished.
 */
#include "kernels/openmp/body.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/lattice.h"
#include "kernels/staggered/staggered_ops.h"

#define STAG_BLOCK 16 /* host simd: sites per block, a multiple of every x86 vector width */

/* The suite's state in a context: all zero after release. */
struct omb_staggered {
    size_t n; /* output sites = input sites */
#if !OMB_TARGET
    size_t blocks; /* simd: blocks of sites, the last one padded */
#endif
    enum pp_precision prec;
    enum pp_staggered_strategy strategy;
    void *links, *vec, *out; /* the model's memory, in the strategy's layout and precision */
    uint32_t *nbr;           /* [16][n], or per host simd block [16][STAG_BLOCK] */
#if OMB_TARGET
    enum pp_staggered_order order; /* 3lp-3: k- or i-major */
    void *staging;                 /* host: the links in the precision */
#else
    size_t share;               /* the sites an application writes: n (the test hook may make it fewer) */
    enum lattice_fault fault;   /* the test hook (kernels/lattice.h), read at alloc */
    unsigned long applications; /* since alloc */
#endif
};

#define PP_KERNELS "kernels/staggered/openmp_kernels.h"
#include "kernels/precisions.h"

PP_SUITE_SLOT(OMB_MODEL, staggered, struct omb_staggered, ctx->suites, staggered_release)

static const struct pp_staggered_ops staggered_ops;

/* The state of ctx for a kernel: NULL with err before the first alloc. */
static struct omb_staggered *fields(struct pp_ctx *ctx, struct pp_error *err)
{
    struct omb_staggered *st = slot_get(ctx);

    if (!st || !st->out)
        pp_error_set(err, "no staggered arrays allocated (alloc first)");
    return st && st->out ? st : NULL;
}

static void staggered_release(struct pp_ctx *ctx)
{
    struct omb_staggered *st = slot_get(ctx);

    if (!st)
        return;
    omb_free(ctx, st->links);
    omb_free(ctx, st->vec);
    omb_free(ctx, st->out);
    omb_free(ctx, st->nbr);
#if OMB_TARGET
    free(st->staging);
#endif
    memset(st, 0, sizeof(*st));
}

/* The sites the layout holds: host simd pads the last block. */
static size_t padded(const struct omb_staggered *st)
{
#if OMB_TARGET
    return st->n;
#else
    return st->strategy == PP_STAG_SIMD ? st->blocks * STAG_BLOCK : st->n;
#endif
}

static int staggered_alloc(struct pp_ctx *ctx, size_t n, const unsigned dims[4], enum pp_precision prec,
                           struct pp_staggered_variant *variant, struct pp_error *err)
{
    struct omb_staggered *st = slot_new(ctx);
    size_t beta = pp_precision_bytes(prec), sites;

    (void)dims; /* the neighbour table is read */

    if (!st)
        return pp_error_set(err, "out of memory");
    staggered_release(ctx);
    if (!(staggered_ops.strategies & 1u << variant->strategy))
        return pp_error_set(err, "unsupported: strategy %d on %s", (int)variant->strategy,
                            OMB_TARGET ? "omp-target" : "openmp");
    st->n = n;
    st->prec = prec;
    st->strategy = variant->strategy;
#if OMB_TARGET
    st->order = variant->order;
#else
    st->share = n;
    st->fault = lattice_fault_kind();
    st->blocks = (n + STAG_BLOCK - 1) / STAG_BLOCK;
#endif
    sites = padded(st);
    if (!(st->links = omb_alloc(ctx, sites * 16 * 18 * beta, "links", err)) ||
        !(st->vec = omb_alloc(ctx, n * 6 * beta, "input vector", err)) ||
        !(st->out = omb_alloc(ctx, sites * 6 * beta, "output vector", err)) ||
        !(st->nbr = omb_alloc(ctx, sites * 16 * sizeof(uint32_t), "neighbour table", err))) {
        staggered_release(ctx);
        return -1;
    }
#if OMB_TARGET
    if (!(st->staging = malloc(n * 16 * 18 * beta))) {
        staggered_release(ctx);
        return pp_error_set(err, "out of memory");
    }
    /* The driver's work-group (its rule for the GPU models) has no counterpart here: what runs is the launch
     * shape (PPBENCH_OMPTARGET_THREADS, 0 for the runtime's), and that is what the variant records. */
    variant->work_group = ctx->shape.threads;
    variant->threads = ctx->host ? (unsigned)ctx->sm_count : 0;
#else
    variant->order = PP_ORDER_NONE;
    variant->work_group = 0;
    variant->threads = (unsigned)ctx->threads;
#endif
    return 0;
}

#if OMB_TARGET
/* count doubles into the staging buffer in the precision, then to dst on the device. */
static int put(struct pp_ctx *ctx, struct omb_staggered *st, void *dst, const double *src, size_t count,
               struct pp_error *err)
{
    if (st->prec == PP_FP64)
        return omptarget_to_device(ctx, dst, src, count * sizeof(double), err);
    for (size_t i = 0; i < count; i++)
        ((float *)st->staging)[i] = (float)src[i];
    return omptarget_to_device(ctx, dst, st->staging, count * sizeof(float), err);
}

static int staggered_upload(struct pp_ctx *ctx, const double *links, const double *vec, const uint32_t *nbr,
                            struct pp_error *err)
{
    struct omb_staggered *st = fields(ctx, err);

    if (!st || put(ctx, st, st->links, links, st->n * 16 * 18, err) ||
        put(ctx, st, st->vec, vec, st->n * 6, err) ||
        omptarget_to_device(ctx, st->nbr, nbr, st->n * 16 * sizeof(uint32_t), err))
        return -1;
    memset(st->staging, 0, st->n * 6 * pp_precision_bytes(st->prec));
    return omptarget_to_device(ctx, st->out, st->staging, st->n * 6 * pp_precision_bytes(st->prec), err);
}

static int staggered_download(struct pp_ctx *ctx, double *out, struct pp_error *err)
{
    struct omb_staggered *st = fields(ctx, err);

    if (!st || omptarget_to_host(ctx, st->staging, st->out, st->n * 6 * pp_precision_bytes(st->prec), err))
        return -1;
    for (size_t i = 0; i < st->n * 6; i++)
        out[i] =
            st->prec == PP_FP32 ? (double)((const float *)st->staging)[i] : ((const double *)st->staging)[i];
    return 0;
}

static int staggered_poison(struct pp_ctx *ctx, struct pp_error *err)
{
    struct omb_staggered *st = fields(ctx, err);
    size_t bytes;

    if (!st)
        return -1;
    bytes = st->n * 6 * pp_precision_bytes(st->prec);
    memset(st->staging, 0xff, bytes);
    return omptarget_to_device(ctx, st->out, st->staging, bytes, err);
}

/* One application of the context's strategy. */
static void apply(struct pp_ctx *ctx, struct omb_staggered *st)
{
    if (st->strategy == PP_STAG_2LP)
        PP_BY_PRECISION(st->prec, dslash_2lp, ctx, st);
    else if (st->strategy == PP_STAG_3LP_3)
        PP_BY_PRECISION(st->prec, dslash_3lp3, ctx, st);
    else
        PP_BY_PRECISION(st->prec, dslash_1lp, ctx, st);
}

#else /* the host */

static int staggered_upload(struct pp_ctx *ctx, const double *links, const double *vec, const uint32_t *nbr,
                            struct pp_error *err)
{
    struct omb_staggered *st = fields(ctx, err);

    if (!st)
        return -1;
    PP_BY_PRECISION(st->prec, upload, st, links, vec, nbr);
    return 0;
}

static int staggered_download(struct pp_ctx *ctx, double *out, struct pp_error *err)
{
    struct omb_staggered *st = fields(ctx, err);

    if (!st)
        return -1;
    PP_BY_PRECISION(st->prec, download, st, out);
    return 0;
}

static int staggered_poison(struct pp_ctx *ctx, struct pp_error *err)
{
    struct omb_staggered *st = fields(ctx, err);

    if (!st)
        return -1;
    memset(st->out, 0xff, padded(st) * 6 * pp_precision_bytes(st->prec));
    return 0;
}

/* One application of the context's strategy, on the sites the test hook leaves (all of them without it). */
static void apply(struct pp_ctx *ctx, struct omb_staggered *st)
{
    st->share = lattice_fault_sites(st->fault, st->applications++, st->n);
    if (st->strategy == PP_STAG_SIMD)
        PP_BY_PRECISION(st->prec, dslash_simd, ctx, st);
    else
        PP_BY_PRECISION(st->prec, dslash_site, ctx, st);
}

#endif

static int staggered_dslash(struct pp_ctx *ctx, unsigned iterations, struct pp_error *err)
{
    struct omb_staggered *st = fields(ctx, err);

    if (!st)
        return -1;
    for (unsigned it = 0; it < iterations; it++)
        apply(ctx, st);
    return 0;
}

static const struct pp_staggered_ops staggered_ops = {
#if OMB_TARGET
    .strategies = 1u << PP_STAG_1LP | 1u << PP_STAG_2LP | 1u << PP_STAG_3LP_3,
#else
    .strategies = 1u << PP_STAG_SITE | 1u << PP_STAG_SIMD,
#endif
    .alloc = staggered_alloc,
    .upload = staggered_upload,
    .dslash = staggered_dslash,
    .download = staggered_download,
    .poison = staggered_poison,
    .release = staggered_release,
};

PP_SUITE_IMPL(OMB_MODEL, staggered) = {
    .suite = "staggered",
    .ops = &staggered_ops,
    .release = slot_close,
};
