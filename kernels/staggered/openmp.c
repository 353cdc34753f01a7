/*
 * openmp/staggered: the MILC staggered Dslash on the host through OpenMP, two strategies: site (a parallel
 * loop over output sites on the canonical arrays) and simd (sites in blocks of STAG_BLOCK, site-fastest
 * within a block, the lanes of a block an `omp simd` loop). Owns the fields of its context (allocated page
 * aligned in alloc, freed in release). Runs on the caller's thread, which forks the OpenMP team per call;
 * every call returns when the loop has joined.
 */
#include "kernels/openmp/openmp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STAG_BLOCK 16 /* sites per simd block: a multiple of every x86 vector width */

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

#define DISPATCH(x, k, ...)                                                                                  \
    ((x)->stag.prec == PP_FP32 ? k##_fp32(x, ##__VA_ARGS__) : k##_fp64(x, ##__VA_ARGS__))

static void staggered_release(struct pp_ctx *x)
{
    free(x->stag.links);
    free(x->stag.vec);
    free(x->stag.out);
    free(x->stag.nbr);
    memset(&x->stag, 0, sizeof(x->stag));
}

static int staggered_alloc(struct pp_ctx *x, size_t n, enum pp_precision prec,
                           struct pp_staggered_variant *variant, struct pp_error *err)
{
    size_t beta = pp_precision_bytes(prec), sites;

    staggered_release(x);
    if (variant->strategy != PP_STAG_SITE && variant->strategy != PP_STAG_SIMD)
        return pp_error_set(err, "strategy %d is not an openmp strategy", (int)variant->strategy);
    x->stag.n = n;
    x->stag.prec = prec;
    x->stag.strategy = variant->strategy;
    x->stag.blocks = (n + STAG_BLOCK - 1) / STAG_BLOCK;
    sites = variant->strategy == PP_STAG_SIMD ? x->stag.blocks * STAG_BLOCK : n; /* simd: padded */
    x->stag.links = openmp_alloc_pages(sites * 288 * beta);
    x->stag.vec = openmp_alloc_pages(n * 6 * beta);
    x->stag.out = openmp_alloc_pages(sites * 6 * beta);
    x->stag.nbr = openmp_alloc_pages(sites * 16 * sizeof(uint32_t));
    if (!x->stag.links || !x->stag.vec || !x->stag.out || !x->stag.nbr) {
        staggered_release(x);
        return pp_error_set(err, "cannot allocate the fields of %zu sites (%zu bytes each)", n,
                            300 * beta + 64);
    }
    variant->order = PP_ORDER_NONE;
    variant->work_group = 0;
    variant->threads = (unsigned)x->threads;
    return 0;
}

static int staggered_upload(struct pp_ctx *x, const double *links, const double *vec, const uint32_t *nbr,
                            struct pp_error *err)
{
    (void)err;
    DISPATCH(x, upload, links, vec, nbr);
    return 0;
}

static int staggered_dslash(struct pp_ctx *x, unsigned iterations, struct pp_error *err)
{
    (void)err;
    for (unsigned it = 0; it < iterations; it++) {
        if (x->stag.strategy == PP_STAG_SIMD)
            DISPATCH(x, dslash_simd);
        else
            DISPATCH(x, dslash_site);
    }
    return 0;
}

static int staggered_download(struct pp_ctx *x, double *out, struct pp_error *err)
{
    (void)err;
    DISPATCH(x, download, out);
    return 0;
}

const struct pp_staggered_ops openmp_staggered_ops = {
    .strategies = 1u << PP_STAG_SITE | 1u << PP_STAG_SIMD,
    .alloc = staggered_alloc,
    .upload = staggered_upload,
    .dslash = staggered_dslash,
    .download = staggered_download,
    .release = staggered_release,
};
