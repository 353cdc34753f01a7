/*
 * openmp/staggered: the MILC staggered Dslash on the host through OpenMP, two strategies: site (a parallel
 * loop over output sites on the canonical arrays) and simd (sites in blocks of STAG_BLOCK, site-fastest
 * within a block, the lanes of a block an `omp simd` loop). The suite's state in a context (struct
 * openmp_staggered, private to this file) is created by the first alloc and kept in the context's suite
 * slots; alloc allocates its fields page aligned, release frees them, and the context's close frees the state
 * (openmp_staggered_impl). Runs on the caller's thread, which forks the OpenMP team per call; every call
 * returns when the loop has joined.
 */
#include "kernels/openmp/openmp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/lattice.h"
#include "kernels/staggered/staggered_ops.h"

#define STAG_BLOCK 16 /* sites per simd block: a multiple of every x86 vector width */

/* The suite's state in a context: all zero after release. */
struct openmp_staggered {
    size_t n;      /* output sites = input sites */
    size_t blocks; /* simd: blocks of sites, the last one padded */
    enum pp_precision prec;
    enum pp_staggered_strategy strategy; /* PP_STAG_SITE or PP_STAG_SIMD */
    void *links, *vec, *out;             /* in the strategy's layout and precision */
    uint32_t *nbr;                       /* [16][n], or per block [16][STAG_BLOCK] */
    size_t share;               /* the sites an application writes: n (the test hook may make it fewer) */
    enum lattice_fault fault;   /* the test hook (kernels/lattice.h), read at alloc */
    unsigned long applications; /* since alloc */
};

#define REAL      float
#define KERNEL(k) k##_fp32
#include "kernels/staggered/openmp_kernels.h"
#undef REAL
#undef KERNEL
#define REAL      double
#define KERNEL(k) k##_fp64
#include "kernels/staggered/openmp_kernels.h"
#undef REAL
#undef KERNEL

#define DISPATCH(st, k, ...)                                                                                 \
    ((st)->prec == PP_FP32 ? k##_fp32(st, ##__VA_ARGS__) : k##_fp64(st, ##__VA_ARGS__))

extern const struct pp_suite_impl openmp_staggered_impl;

/* The state of ctx: NULL before the first alloc. */
static struct openmp_staggered *state(struct pp_ctx *ctx)
{
    return pp_suite_state_get(&ctx->suites, &openmp_staggered_impl);
}

/* The state of ctx for a kernel: NULL with err before the first alloc. */
static struct openmp_staggered *fields(struct pp_ctx *ctx, struct pp_error *err)
{
    struct openmp_staggered *st = state(ctx);

    if (!st)
        pp_error_set(err, "no staggered arrays allocated (alloc first)");
    return st;
}

static void staggered_release(struct pp_ctx *ctx)
{
    struct openmp_staggered *st = state(ctx);

    if (!st)
        return;
    free(st->links);
    free(st->vec);
    free(st->out);
    free(st->nbr);
    memset(st, 0, sizeof(*st));
}

/* The context's close: the fields and the state. */
static void openmp_staggered_free(struct pp_ctx *ctx)
{
    void **slot = pp_suite_state(&ctx->suites, &openmp_staggered_impl);

    staggered_release(ctx);
    free(*slot);
    *slot = NULL;
}

static int staggered_alloc(struct pp_ctx *ctx, size_t n, const unsigned dims[4], enum pp_precision prec,
                           struct pp_staggered_variant *variant, struct pp_error *err)
{
    struct openmp_staggered *st = pp_suite_state_new(&ctx->suites, &openmp_staggered_impl, sizeof(*st));
    size_t beta = pp_precision_bytes(prec), sites;

    (void)dims; /* the neighbour table is read */

    if (!st)
        return pp_error_set(err, "out of memory");
    staggered_release(ctx);
    if (variant->strategy != PP_STAG_SITE && variant->strategy != PP_STAG_SIMD)
        return pp_error_set(err, "strategy %d is not an openmp strategy", (int)variant->strategy);
    st->n = n;
    st->share = n;
    st->fault = lattice_fault_kind();
    st->prec = prec;
    st->strategy = variant->strategy;
    st->blocks = (n + STAG_BLOCK - 1) / STAG_BLOCK;
    sites = variant->strategy == PP_STAG_SIMD ? st->blocks * STAG_BLOCK : n; /* simd: padded */
    st->links = openmp_alloc_pages(sites * 288 * beta);
    st->vec = openmp_alloc_pages(n * 6 * beta);
    st->out = openmp_alloc_pages(sites * 6 * beta);
    st->nbr = openmp_alloc_pages(sites * 16 * sizeof(uint32_t));
    if (!st->links || !st->vec || !st->out || !st->nbr) {
        staggered_release(ctx);
        return pp_error_set(err, "cannot allocate the fields of %zu sites (%zu bytes each)", n,
                            300 * beta + 64);
    }
    variant->order = PP_ORDER_NONE;
    variant->work_group = 0;
    variant->threads = (unsigned)ctx->threads;
    return 0;
}

static int staggered_upload(struct pp_ctx *ctx, const double *links, const double *vec, const uint32_t *nbr,
                            struct pp_error *err)
{
    struct openmp_staggered *st = fields(ctx, err);

    if (!st)
        return -1;
    DISPATCH(st, upload, links, vec, nbr);
    return 0;
}

static int staggered_dslash(struct pp_ctx *ctx, unsigned iterations, struct pp_error *err)
{
    struct openmp_staggered *st = fields(ctx, err);

    if (!st)
        return -1;
    for (unsigned it = 0; it < iterations; it++) {
        st->share = lattice_fault_sites(st->fault, st->applications++, st->n);
        if (st->strategy == PP_STAG_SIMD)
            DISPATCH(st, dslash_simd);
        else
            DISPATCH(st, dslash_site);
    }
    return 0;
}

static int staggered_download(struct pp_ctx *ctx, double *out, struct pp_error *err)
{
    struct openmp_staggered *st = fields(ctx, err);

    if (!st)
        return -1;
    DISPATCH(st, download, out);
    return 0;
}

static int staggered_poison(struct pp_ctx *ctx, struct pp_error *err)
{
    struct openmp_staggered *st = state(ctx);
    size_t sites;

    if (!st || !st->out)
        return pp_error_set(err, "no arrays allocated (alloc first)");
    sites = st->strategy == PP_STAG_SIMD ? st->blocks * STAG_BLOCK : st->n;
    memset(st->out, 0xff, sites * 6 * pp_precision_bytes(st->prec));
    return 0;
}

static const struct pp_staggered_ops openmp_staggered_ops = {
    .strategies = 1u << PP_STAG_SITE | 1u << PP_STAG_SIMD,
    .alloc = staggered_alloc,
    .upload = staggered_upload,
    .dslash = staggered_dslash,
    .download = staggered_download,
    .poison = staggered_poison,
    .release = staggered_release,
};

PP_SUITE_IMPL(openmp, staggered) = {
    .suite = "staggered",
    .ops = &openmp_staggered_ops,
    .release = openmp_staggered_free,
};
