/*
 * omptarget/staggered: the MILC staggered Dslash through OpenMP target offload, on the canonical arrays
 * (staggered_ops.h), each strategy one or two `target teams distribute parallel for simd` loops (paper 001):
 * 1lp, one iteration per output site, its 16 products M v summed in registers; 2lp, three per site, row i of
 * every product; 3lp-3, twelve per site (row i, direction k, in the variant's k- or i-major order), each
 * adding its four terms with `omp atomic update` into the output, which a loop of its own zeroes first (the
 * OpenCL kernel zeroes it in the same kernel behind a work-group barrier; here the end of a target region is
 * that barrier). The strategies whose work-items of a site share local memory behind barriers (3lp-1, 3lp-2,
 * 4lp-1, 4lp-2) have no counterpart in OpenMP's worksharing loops, whose iterations cannot synchronise, and
 * the model does not list them.
 *
 * Ownership: the suite's state (struct omptarget_staggered, private to this file) is created by the first
 * alloc and kept in the context's suite slots; release frees the fields, close frees the state. Threads: the
 * context's thread.
 */
#include "kernels/omptarget/omptarget.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/staggered/staggered_ops.h"

struct omptarget_staggered {
    size_t n;
    enum pp_precision prec;
    enum pp_staggered_strategy strategy;
    enum pp_staggered_order order; /* 3lp-3: k- or i-major */
    void *links, *vec, *out;       /* device, canonical order, in the precision */
    uint32_t *nbr;                 /* device, [16][n] */
    void *staging;                 /* host: the links in the precision */
};

#define REAL      float
#define KERNEL(k) k##_fp32
#include "kernels/staggered/omptarget_kernels.h"
#undef REAL
#undef KERNEL
#define REAL      double
#define KERNEL(k) k##_fp64
#include "kernels/staggered/omptarget_kernels.h"
#undef REAL
#undef KERNEL

extern const struct pp_suite_impl omptarget_staggered_impl;
static const struct pp_staggered_ops omptarget_staggered_ops;

static struct omptarget_staggered *state(struct pp_ctx *ctx)
{
    return pp_suite_state_get(&ctx->suites, &omptarget_staggered_impl);
}

static struct omptarget_staggered *fields(struct pp_ctx *ctx, struct pp_error *err)
{
    struct omptarget_staggered *st = state(ctx);

    if (!st || !st->out)
        pp_error_set(err, "no fields allocated (alloc first)");
    return st && st->out ? st : NULL;
}

static void staggered_release(struct pp_ctx *ctx)
{
    struct omptarget_staggered *st = state(ctx);

    if (!st)
        return;
    omptarget_free(ctx, st->links);
    omptarget_free(ctx, st->vec);
    omptarget_free(ctx, st->out);
    omptarget_free(ctx, st->nbr);
    free(st->staging);
    memset(st, 0, sizeof(*st));
}

static void staggered_free(struct pp_ctx *ctx)
{
    void **slot = pp_suite_state(&ctx->suites, &omptarget_staggered_impl);

    staggered_release(ctx);
    free(*slot);
    *slot = NULL;
}

static int staggered_alloc(struct pp_ctx *ctx, size_t n, const unsigned dims[4], enum pp_precision prec,
                           struct pp_staggered_variant *variant, struct pp_error *err)
{
    struct omptarget_staggered *st = pp_suite_state_new(&ctx->suites, &omptarget_staggered_impl, sizeof(*st));
    size_t beta = pp_precision_bytes(prec);

    (void)dims; /* the neighbour table is read */

    if (!st)
        return pp_error_set(err, "out of memory");
    staggered_release(ctx);
    if (!(omptarget_staggered_ops.strategies & 1u << variant->strategy))
        return pp_error_set(err, "unsupported: strategy %d on omp-target", (int)variant->strategy);
    st->n = n;
    st->strategy = variant->strategy;
    st->order = variant->order;
    st->prec = prec;
    if (!(st->links = omptarget_alloc(ctx, n * 16 * 18 * beta, "links", err)) ||
        !(st->vec = omptarget_alloc(ctx, n * 6 * beta, "input vector", err)) ||
        !(st->out = omptarget_alloc(ctx, n * 6 * beta, "output vector", err)) ||
        !(st->nbr = omptarget_alloc(ctx, n * 16 * sizeof(uint32_t), "neighbour table", err))) {
        staggered_release(ctx);
        return -1;
    }
    if (!(st->staging = malloc(n * 16 * 18 * beta))) {
        staggered_release(ctx);
        return pp_error_set(err, "out of memory");
    }
    /* The driver's work-group (its rule for the GPU models) has no counterpart here: what runs is the launch
     * shape (PPBENCH_OMPTARGET_THREADS, 0 for the runtime's), and that is what the variant records. */
    variant->work_group = ctx->shape.threads;
    variant->threads = ctx->host ? (unsigned)ctx->sm_count : 0;
    return 0;
}

/* count doubles into the staging buffer in the precision, then to dst on the device. */
static int put(struct pp_ctx *ctx, struct omptarget_staggered *st, void *dst, const double *src, size_t count,
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
    struct omptarget_staggered *st = fields(ctx, err);

    if (!st || put(ctx, st, st->links, links, st->n * 16 * 18, err) ||
        put(ctx, st, st->vec, vec, st->n * 6, err) ||
        omptarget_to_device(ctx, st->nbr, nbr, st->n * 16 * sizeof(uint32_t), err))
        return -1;
    memset(st->staging, 0, st->n * 6 * pp_precision_bytes(st->prec));
    return omptarget_to_device(ctx, st->out, st->staging, st->n * 6 * pp_precision_bytes(st->prec), err);
}

static int staggered_dslash(struct pp_ctx *ctx, unsigned iterations, struct pp_error *err)
{
    struct omptarget_staggered *st = fields(ctx, err);

    if (!st)
        return -1;
    for (unsigned it = 0; it < iterations; it++) {
        if (st->strategy == PP_STAG_2LP)
            st->prec == PP_FP32 ? dslash_2lp_fp32(ctx, st) : dslash_2lp_fp64(ctx, st);
        else if (st->strategy == PP_STAG_3LP_3)
            st->prec == PP_FP32 ? dslash_3lp3_fp32(ctx, st) : dslash_3lp3_fp64(ctx, st);
        else
            st->prec == PP_FP32 ? dslash_fp32(ctx, st) : dslash_fp64(ctx, st);
    }
    return 0;
}

static int staggered_download(struct pp_ctx *ctx, double *out, struct pp_error *err)
{
    struct omptarget_staggered *st = fields(ctx, err);

    if (!st || omptarget_to_host(ctx, st->staging, st->out, st->n * 6 * pp_precision_bytes(st->prec), err))
        return -1;
    for (size_t i = 0; i < st->n * 6; i++)
        out[i] =
            st->prec == PP_FP32 ? (double)((const float *)st->staging)[i] : ((const double *)st->staging)[i];
    return 0;
}

static int staggered_poison(struct pp_ctx *ctx, struct pp_error *err)
{
    struct omptarget_staggered *st = fields(ctx, err);
    size_t bytes;

    if (!st)
        return -1;
    bytes = st->n * 6 * pp_precision_bytes(st->prec);
    memset(st->staging, 0xff, bytes);
    return omptarget_to_device(ctx, st->out, st->staging, bytes, err);
}

static const struct pp_staggered_ops omptarget_staggered_ops = {
    .strategies = 1u << PP_STAG_1LP | 1u << PP_STAG_2LP | 1u << PP_STAG_3LP_3,
    .alloc = staggered_alloc,
    .upload = staggered_upload,
    .dslash = staggered_dslash,
    .download = staggered_download,
    .poison = staggered_poison,
    .release = staggered_release,
};

PP_SUITE_IMPL(omptarget, staggered) = {
    .suite = "staggered",
    .ops = &omptarget_staggered_ops,
    .release = staggered_free,
};
