/*
 * openmp/wilson: the Wilson Dslash on the host through OpenMP, in two layouts: site-major (aos: each site's
 * spinor and links together, one thread per site) and structure of arrays over sites (soa: one array per real
 * component, site index fastest, so consecutive sites fill a vector register: the site loop is `omp parallel
 * for simd`). Owns the fields of its context (allocated page aligned in alloc, freed in release). Runs on the
 * caller's thread, which forks the OpenMP team per call; every call returns when the loop has joined.
 */
#include "openmp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/wilson_dslash.h"

/* gamma_mu = [[0, B], [B^dagger, 0]]: row r of B_mu holds i^wilson_b_pow[mu][r] in column
 * wilson_b_col[mu][r] (the spin tables of kernels/wilson_dslash.h, which OpenCL and CUDA use too). */
static const int wilson_b_col[4][2] = WILSON_B_TABLE(WILSON_B_COL);
static const int wilson_b_pow[4][2] = WILSON_B_TABLE(WILSON_B_POW);

#define IPOW_RE WILSON_IPOW_RE /* i^p (re + i im), p in 0..3 */
#define IPOW_IM WILSON_IPOW_IM

#define AOS_SPINOR(a, j, s, c, r)  (a)[(size_t)(j)*24 + (size_t)(((s)*3 + (c)) * 2 + (r))]
#define AOS_LINK(a, i, k, x, y, r) (a)[(size_t)(i)*144 + (size_t)((k)*18 + ((x)*3 + (y)) * 2 + (r))]
#define SOA_SPINOR(a, j, s, c, r)  (a)[(size_t)(((s)*3 + (c)) * 2 + (r)) * ld + (size_t)(j)]
#define SOA_LINK(a, i, k, x, y, r) (a)[(size_t)((k)*18 + ((x)*3 + (y)) * 2 + (r)) * ld + (size_t)(i)]

#define PSI(j, s, c, r)     AOS_SPINOR(psi, j, s, c, r)
#define OUT(i, s, c, r)     AOS_SPINOR(out, i, s, c, r)
#define LINK(i, k, a, b, r) AOS_LINK(g, i, k, a, b, r)
#define WILSON_SIMD         0
#define REAL                float
#define KERNEL(k)           k##_aos_fp32
#include "wilson_kernels.h"
#undef REAL
#undef KERNEL
#define REAL      double
#define KERNEL(k) k##_aos_fp64
#include "wilson_kernels.h"
#undef REAL
#undef KERNEL
#undef PSI
#undef OUT
#undef LINK
#undef WILSON_SIMD

#define PSI(j, s, c, r)     SOA_SPINOR(psi, j, s, c, r)
#define OUT(i, s, c, r)     SOA_SPINOR(out, i, s, c, r)
#define LINK(i, k, a, b, r) SOA_LINK(g, i, k, a, b, r)
#define WILSON_SIMD         1
#define REAL                float
#define KERNEL(k)           k##_soa_fp32
#include "wilson_kernels.h"
#undef REAL
#undef KERNEL
#define REAL      double
#define KERNEL(k) k##_soa_fp64
#include "wilson_kernels.h"
#undef REAL
#undef KERNEL

#define DISPATCH(x, k, ...)                                                                                  \
    ((x)->w.layout == PP_WILSON_AOS                                                                          \
         ? ((x)->w.prec == PP_FP32 ? k##_aos_fp32(x, ##__VA_ARGS__) : k##_aos_fp64(x, ##__VA_ARGS__))        \
         : ((x)->w.prec == PP_FP32 ? k##_soa_fp32(x, ##__VA_ARGS__) : k##_soa_fp64(x, ##__VA_ARGS__)))

static void wilson_release(struct pp_ctx *x)
{
    free(x->w.gauge);
    free(x->w.spinor);
    free(x->w.out);
    free(x->w.nbr);
    memset(&x->w, 0, sizeof(x->w));
}

static int wilson_alloc(struct pp_ctx *x, size_t n, enum pp_precision prec, enum pp_wilson_layout layout,
                        struct pp_wilson_variant *variant, struct pp_error *err)
{
    size_t beta = pp_precision_bytes(prec);

    wilson_release(x);
    if (layout != PP_WILSON_AOS && layout != PP_WILSON_SOA)
        return pp_error_set(err, "layout %d out of range", (int)layout);
    x->w.n = n;
    x->w.prec = prec;
    x->w.layout = layout;
    /* Structure of arrays: component arrays n rounded up to 64 B apart and then 64 B more, so that the 168
     * streams of a site do not all map to the same cache sets (a stride that is a multiple of 4 KiB would).
     */
    x->w.ld = layout == PP_WILSON_SOA ? (n + 15) / 16 * 16 + 16 : n;
    x->w.gauge = openmp_alloc_pages(x->w.ld * 144 * beta);
    x->w.spinor = openmp_alloc_pages(x->w.ld * 24 * beta);
    x->w.out = openmp_alloc_pages(x->w.ld * 24 * beta);
    x->w.nbr = openmp_alloc_pages(n * 8 * sizeof(uint32_t));
    if (!x->w.gauge || !x->w.spinor || !x->w.out || !x->w.nbr) {
        wilson_release(x);
        return pp_error_set(err, "cannot allocate the fields of %zu sites (%zu bytes each)", n,
                            (144 + 48) * beta + 32);
    }
    memset(variant, 0, sizeof(*variant));
    variant->layout = layout;
    variant->threads = (unsigned)x->threads;
    return 0;
}

static int wilson_upload(struct pp_ctx *x, const double *gauge, const double *spinor, const uint32_t *nbr,
                         struct pp_error *err)
{
    uint32_t *restrict t = x->w.nbr;
    const size_t n = x->w.n;

    (void)err;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 8; k++)
            t[(size_t)k * n + i] = nbr[(size_t)k * n + i];
    DISPATCH(x, upload, gauge, spinor);
    return 0;
}

static int wilson_dslash(struct pp_ctx *x, unsigned iterations, struct pp_error *err)
{
    (void)err;
    for (unsigned it = 0; it < iterations; it++)
        DISPATCH(x, dslash);
    return 0;
}

static int wilson_download(struct pp_ctx *x, double *out, struct pp_error *err)
{
    (void)err;
    DISPATCH(x, download, out);
    return 0;
}

const struct pp_wilson_ops openmp_wilson_ops = {
    .alloc = wilson_alloc,
    .upload = wilson_upload,
    .dslash = wilson_dslash,
    .download = wilson_download,
    .release = wilson_release,
};
