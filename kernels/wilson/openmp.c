/*
 * openmp/wilson: the Wilson Dslash on the host through OpenMP, in two layouts: site-major (aos: each site's
 * spinor and links together, one thread per site) and structure of arrays over sites (soa: one array per real
 * component, site index fastest, so consecutive sites fill a vector register: each thread's share of the
 * site loop is `omp simd`). The arithmetic is kernels/wilson/wilson_dslash.h's (openmp_kernels.h instantiates
 * it); kernels/wilson/wilson_layout.h moves sites in and out of the layout. The suite's state in a context
 * (struct openmp_wilson, private to this file) is created by the first alloc and kept in the context's suite
 * slots; alloc allocates its fields page aligned, release frees them, and the context's close frees the state
 * (openmp_wilson_impl). Runs on the caller's thread, which forks the OpenMP team per call; every call returns
 * when the loop has joined.
 */
#include "kernels/openmp/openmp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/lattice.h"
#include "kernels/wilson/wilson_layout.h"
#include "kernels/wilson/wilson_ops.h"

/* The suite's state in a context: all zero after release. */
struct openmp_wilson {
    size_t n;  /* output sites = input sites */
    size_t ld; /* soa: distance between component arrays (elements); aos: n */
    enum pp_precision prec;
    enum pp_wilson_layout layout;
    void *gauge, *spinor, *out; /* in the layout and precision */
    uint32_t *nbr;              /* [8][n] */
    size_t share;               /* the sites an application writes: n (the test hook may make it fewer) */
    enum lattice_fault fault;   /* the test hook (kernels/lattice.h), read at alloc */
    unsigned long applications; /* since alloc */
};

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

#define DISPATCH(w, k)                                                                                       \
    ((w)->layout == PP_WILSON_AOS ? ((w)->prec == PP_FP32 ? k##_aos_fp32(w) : k##_aos_fp64(w))               \
                                  : ((w)->prec == PP_FP32 ? k##_soa_fp32(w) : k##_soa_fp64(w)))

extern const struct pp_suite_impl openmp_wilson_impl;

/* The state of ctx: NULL before the first alloc. */
static struct openmp_wilson *state(struct pp_ctx *ctx)
{
    return pp_suite_state_get(&ctx->suites, &openmp_wilson_impl);
}

/* The state of ctx for a kernel: NULL with err before the first alloc. */
static struct openmp_wilson *fields(struct pp_ctx *ctx, struct pp_error *err)
{
    struct openmp_wilson *w = state(ctx);

    if (!w)
        pp_error_set(err, "no fields allocated (alloc first)");
    return w;
}

static void wilson_release(struct pp_ctx *ctx)
{
    struct openmp_wilson *w = state(ctx);

    if (!w)
        return;
    free(w->gauge);
    free(w->spinor);
    free(w->out);
    free(w->nbr);
    memset(w, 0, sizeof(*w));
}

/* The context's close: the fields and the state. */
static void openmp_wilson_free(struct pp_ctx *ctx)
{
    void **slot = pp_suite_state(&ctx->suites, &openmp_wilson_impl);

    wilson_release(ctx);
    free(*slot);
    *slot = NULL;
}

static int wilson_alloc(struct pp_ctx *ctx, size_t n, const unsigned dims[4], enum pp_precision prec,
                        enum pp_wilson_layout layout, struct pp_wilson_variant *variant, struct pp_error *err)
{
    struct openmp_wilson *w = pp_suite_state_new(&ctx->suites, &openmp_wilson_impl, sizeof(*w));
    size_t beta = pp_precision_bytes(prec);

    (void)dims; /* the neighbour table is read */

    if (!w)
        return pp_error_set(err, "out of memory");
    wilson_release(ctx);
    if (layout != PP_WILSON_AOS && layout != PP_WILSON_SOA)
        return pp_error_set(err, "layout %d: this model has aos and soa (aosoa is a GPU layout)",
                            (int)layout);
    w->n = n;
    w->share = n;
    w->fault = lattice_fault_kind();
    w->prec = prec;
    w->layout = layout;
    /* Structure of arrays: component arrays n rounded up to 64 B apart and then 64 B more, so that the 168
     * streams of a site do not all map to the same cache sets (a stride that is a multiple of 4 KiB would).
     */
    w->ld = layout == PP_WILSON_SOA ? (n + 15) / 16 * 16 + 16 : n;
    w->gauge = openmp_alloc_pages(w->ld * 144 * beta);
    w->spinor = openmp_alloc_pages(w->ld * 24 * beta);
    w->out = openmp_alloc_pages(w->ld * 24 * beta);
    w->nbr = openmp_alloc_pages(n * 8 * sizeof(uint32_t));
    if (!w->gauge || !w->spinor || !w->out || !w->nbr) {
        wilson_release(ctx);
        return pp_error_set(err, "cannot allocate the fields of %zu sites (%zu bytes each)", n,
                            (144 + 48) * beta + 32);
    }
    memset(variant, 0, sizeof(*variant));
    variant->layout = layout;
    variant->threads = (unsigned)ctx->threads;
    return 0;
}

/* The canonical arrays into the layout and precision, in parallel with the kernel's schedule (first touch).
 */
static int wilson_upload(struct pp_ctx *ctx, const double *gauge, const double *spinor, const uint32_t *nbr,
                         struct pp_error *err)
{
    struct openmp_wilson *w = fields(ctx, err);
    size_t n, ld, beta;
    int soa;

    if (!w)
        return -1;
    n = w->n, ld = w->ld, beta = pp_precision_bytes(w->prec);
    soa = w->layout == PP_WILSON_SOA;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 8; k++)
            w->nbr[(size_t)k * n + i] = nbr[(size_t)k * n + i];
        wilson_layout_put(w->spinor, spinor, ld, i, WILSON_SPINOR_REALS, w->prec, soa);
        wilson_layout_put(w->gauge, gauge, ld, i, WILSON_LINKS_REALS, w->prec, soa);
        for (size_t c = 0; c < WILSON_SPINOR_REALS; c++)
            memset((char *)w->out + WILSON_INDEX(soa, ld, i, WILSON_SPINOR_REALS, c) * beta, 0, beta);
    }
    return 0;
}

static int wilson_dslash(struct pp_ctx *ctx, unsigned iterations, struct pp_error *err)
{
    struct openmp_wilson *w = fields(ctx, err);

    if (!w)
        return -1;
    for (unsigned it = 0; it < iterations; it++) {
        w->share = lattice_fault_sites(w->fault, w->applications++, w->n);
        DISPATCH(w, dslash);
    }
    return 0;
}

static int wilson_download(struct pp_ctx *ctx, double *out, struct pp_error *err)
{
    struct openmp_wilson *w = fields(ctx, err);
    size_t n, ld;
    int soa;

    if (!w)
        return -1;
    n = w->n, ld = w->ld;
    soa = w->layout == PP_WILSON_SOA;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        wilson_layout_get(out, w->out, ld, i, WILSON_SPINOR_REALS, w->prec, soa);
    return 0;
}

static int wilson_poison(struct pp_ctx *ctx, struct pp_error *err)
{
    struct openmp_wilson *w = fields(ctx, err);

    if (!w)
        return -1;
    memset(w->out, 0xff, w->ld * WILSON_SPINOR_REALS * pp_precision_bytes(w->prec));
    return 0;
}

static const struct pp_wilson_ops openmp_wilson_ops = {
    .alloc = wilson_alloc,
    .upload = wilson_upload,
    .dslash = wilson_dslash,
    .download = wilson_download,
    .poison = wilson_poison,
    .release = wilson_release,
};

PP_SUITE_IMPL(openmp, wilson) = {
    .suite = "wilson",
    .ops = &openmp_wilson_ops,
    .release = openmp_wilson_free,
};
