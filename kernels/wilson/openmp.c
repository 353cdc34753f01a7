/*
 * openmp/wilson: the Wilson Dslash on the host through OpenMP, in two layouts: site-major (aos: each site's
 * spinor and links together, one thread per site) and structure of arrays over sites (soa: one array per real
 * component, site index fastest, so consecutive sites fill a vector register: each thread's share of the
 * site loop is `omp simd`). The arithmetic is kernels/wilson/wilson_dslash.h's (wilson_kernels.h instantiates it);
 * kernels/wilson/wilson_layout.h moves sites in and out of the layout. Owns the fields of its context (allocated
 * page aligned in alloc, freed in release). Runs on the caller's thread, which forks the OpenMP team per
 * call; every call returns when the loop has joined.
 */
#include "kernels/openmp/openmp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/wilson/wilson_layout.h"

#define SOA       0
#define REAL      float
#define KERNEL(k) k##_aos_fp32
#include "kernels/wilson/openmp_kernels.h"
#undef REAL
#undef KERNEL
#define REAL      double
#define KERNEL(k) k##_aos_fp64
#include "kernels/wilson/openmp_kernels.h"
#undef REAL
#undef KERNEL
#undef SOA

#define SOA       1
#define REAL      float
#define KERNEL(k) k##_soa_fp32
#include "kernels/wilson/openmp_kernels.h"
#undef REAL
#undef KERNEL
#define REAL      double
#define KERNEL(k) k##_soa_fp64
#include "kernels/wilson/openmp_kernels.h"
#undef REAL
#undef KERNEL
#undef SOA

#define DISPATCH(x, k)                                                                                       \
    ((x)->w.layout == PP_WILSON_AOS ? ((x)->w.prec == PP_FP32 ? k##_aos_fp32(x) : k##_aos_fp64(x))           \
                                    : ((x)->w.prec == PP_FP32 ? k##_soa_fp32(x) : k##_soa_fp64(x)))

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

/* The canonical arrays into the layout and precision, in parallel with the kernel's schedule (first touch).
 */
static int wilson_upload(struct pp_ctx *x, const double *gauge, const double *spinor, const uint32_t *nbr,
                         struct pp_error *err)
{
    const size_t n = x->w.n, ld = x->w.ld, beta = pp_precision_bytes(x->w.prec);
    const int soa = x->w.layout == PP_WILSON_SOA;

    (void)err;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 8; k++)
            x->w.nbr[(size_t)k * n + i] = nbr[(size_t)k * n + i];
        wilson_layout_put(x->w.spinor, spinor, ld, i, WILSON_SPINOR_REALS, x->w.prec, soa);
        wilson_layout_put(x->w.gauge, gauge, ld, i, WILSON_LINKS_REALS, x->w.prec, soa);
        for (size_t c = 0; c < WILSON_SPINOR_REALS; c++)
            memset((char *)x->w.out + WILSON_INDEX(soa, ld, i, WILSON_SPINOR_REALS, c) * beta, 0, beta);
    }
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
    const size_t n = x->w.n, ld = x->w.ld;
    const int soa = x->w.layout == PP_WILSON_SOA;

    (void)err;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        wilson_layout_get(out, x->w.out, ld, i, WILSON_SPINOR_REALS, x->w.prec, soa);
    return 0;
}

const struct pp_wilson_ops openmp_wilson_ops = {
    .alloc = wilson_alloc,
    .upload = wilson_upload,
    .dslash = wilson_dslash,
    .download = wilson_download,
    .release = wilson_release,
};
