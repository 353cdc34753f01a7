/*
 * wilson/openmp: the Wilson Dslash through OpenMP, one file for both OpenMP models (kernels/openmp/body.h),
 * in two layouts: site-major (aos: each site's spinor and links together) and structure of arrays over sites
 * (soa: one array per real component, site index fastest, so consecutive sites fill a vector register). The
 * arithmetic is kernels/wilson/wilson_dslash.h's (openmp_kernels.h instantiates it); wilson_layout.h moves
 * sites in and out of the layout.
 *
 * Host (`openmp`): the fields are page aligned and first touched by the threads of the kernel's schedule;
 * each thread's share of the site loop is `omp simd` in soa; the planted-fault hook of kernels/lattice.h
 * (half, first, warmup) is read at alloc. Device (`omp-target`, built with -DPP_OMP_TARGET): one `target
 * teams distribute parallel for` over the output sites with 32-bit site indices as the GPU models use (a
 * field of 2^32 reals or more is refused); the fields are device memory, and upload, download and poison
 * move them through a host staging buffer in the layout; the fault hook is not read (as in the CUDA model:
 * the drivers' verification is the same for every model and is exercised through the host models). Each
 * call returns when its loop has joined or its region finished.
 *
 * Ownership: the suite's state (struct omb_wilson, private to this file) is created by the first alloc and
 * kept in the context's suite slots (PP_SUITE_SLOT); release frees the fields, close frees the state.
 * Threads: the context's thread.
 */
#ifdef PP_OMP_TARGET
#define OMPT_SUITE_THREADS OMPT_GPU_THREADS_DEFAULT /* 256 a block under clang on a GPU (omptarget.h) */
#endif
#include "kernels/openmp/body.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/lattice.h"
#include "kernels/wilson/wilson_layout.h"
#include "kernels/wilson/wilson_ops.h"

/* The suite's state in a context: all zero after release. */
struct omb_wilson {
    size_t n;  /* output sites = input sites */
    size_t ld; /* soa: distance between component arrays (elements); aos: n */
    enum pp_precision prec;
    enum pp_wilson_layout layout;
    void *gauge, *spinor, *out; /* the model's memory, in the layout and precision */
    uint32_t *nbr;              /* [8][n] */
#if OMB_TARGET
    void *staging; /* host: the largest field in the layout */
#else
    size_t share;               /* the sites an application writes: n (the test hook may make it fewer) */
    enum lattice_fault fault;   /* the test hook (kernels/lattice.h), read at alloc */
    unsigned long applications; /* since alloc */
#endif
};

#if OMB_TARGET
#define WILSON_SIZE unsigned
#define PP_KERNELS  "kernels/wilson/openmp_kernels.h"
#include "kernels/precisions.h"
#else
/* The layouts are the variants aos and soa (variant regions, kernels/backend.h): one instance each, which
 * differ in the simd loop soa's unit stride allows. */
#if PP_VARIANT_REGION(AOS)
#define SOA           0
#define PP_KERNEL_TAG _aos
#define PP_KERNELS    "kernels/wilson/openmp_kernels.h"
#include "kernels/precisions.h"
#undef SOA
#endif
#if PP_VARIANT_REGION(SOA)
#define SOA           1
#define PP_KERNEL_TAG _soa
#define PP_KERNELS    "kernels/wilson/openmp_kernels.h"
#include "kernels/precisions.h"
#undef SOA
#endif
#endif

PP_SUITE_SLOT(OMB_MODEL, wilson, struct omb_wilson, ctx->suites, wilson_release)

/* The state of ctx for a kernel: NULL with err before the first alloc. */
static struct omb_wilson *fields(struct pp_ctx *ctx, struct pp_error *err)
{
    struct omb_wilson *w = slot_get(ctx);

    if (!w || !w->out)
        pp_error_set(err, "no fields allocated (alloc first)");
    return w && w->out ? w : NULL;
}

static void wilson_release(struct pp_ctx *ctx)
{
    struct omb_wilson *w = slot_get(ctx);

    if (!w)
        return;
    omb_free(ctx, w->gauge);
    omb_free(ctx, w->spinor);
    omb_free(ctx, w->out);
    omb_free(ctx, w->nbr);
#if OMB_TARGET
    free(w->staging);
#endif
    memset(w, 0, sizeof(*w));
}

static int wilson_alloc(struct pp_ctx *ctx, size_t n, const unsigned dims[4], enum pp_precision prec,
                        enum pp_wilson_layout layout, struct pp_wilson_variant *variant, struct pp_error *err)
{
    struct omb_wilson *w = slot_new(ctx);
    size_t beta = pp_precision_bytes(prec);

    (void)dims; /* the neighbour table is read */

    if (!w)
        return pp_error_set(err, "out of memory");
    wilson_release(ctx);
    if (layout != PP_WILSON_AOS && layout != PP_WILSON_SOA)
        return pp_error_set(err, "layout %d: this model has aos and soa (aosoa is a GPU layout)",
                            (int)layout);
    w->n = n;
    w->prec = prec;
    w->layout = layout;
#if OMB_TARGET
    w->ld = layout == PP_WILSON_SOA ? (n + 15) / 16 * 16 : n;
    if (w->ld * WILSON_LINKS_REALS >= (size_t)1 << 32)
        return pp_error_set(err, "unsupported: %zu sites: the kernels index fields with 32 bits", n);
#else
    w->share = n;
    w->fault = lattice_fault_kind();
    /* Structure of arrays: component arrays n rounded up to 64 B apart and then 64 B more, so that the 168
     * streams of a site do not all map to the same cache sets (a stride that is a multiple of 4 KiB would).
     */
    w->ld = layout == PP_WILSON_SOA ? (n + 15) / 16 * 16 + 16 : n;
#endif
    if (!(w->gauge = omb_alloc(ctx, w->ld * WILSON_LINKS_REALS * beta, "gauge field", err)) ||
        !(w->spinor = omb_alloc(ctx, w->ld * WILSON_SPINOR_REALS * beta, "spinor field", err)) ||
        !(w->out = omb_alloc(ctx, w->ld * WILSON_SPINOR_REALS * beta, "output field", err)) ||
        !(w->nbr = omb_alloc(ctx, n * 8 * sizeof(uint32_t), "neighbour table", err))) {
        wilson_release(ctx);
        return -1;
    }
    memset(variant, 0, sizeof(*variant));
    variant->layout = layout;
#if OMB_TARGET
    if (!(w->staging = malloc(w->ld * WILSON_LINKS_REALS * beta))) {
        wilson_release(ctx);
        return pp_error_set(err, "out of memory");
    }
    variant->work_group = omptarget_threads(ctx, OMPT_SUITE_THREADS);
    variant->threads = ctx->host ? (unsigned)ctx->sm_count : 0;
#else
    variant->threads = (unsigned)ctx->threads;
#endif
    return 0;
}

#if OMB_TARGET
/* A canonical host field of per_site doubles a site into the layout and precision, then to the device. */
static int put(struct pp_ctx *ctx, struct omb_wilson *w, void *dst, const double *src, unsigned per_site,
               struct pp_error *err)
{
    const int soa = w->layout == PP_WILSON_SOA;
    const size_t bytes = w->ld * per_site * pp_precision_bytes(w->prec);

    memset(w->staging, 0, bytes);
    for (size_t i = 0; i < w->n; i++)
        wilson_layout_put(w->staging, src, w->ld, i, per_site, w->prec, soa);
    return omptarget_to_device(ctx, dst, w->staging, bytes, err);
}

static int wilson_upload(struct pp_ctx *ctx, const double *gauge, const double *spinor, const uint32_t *nbr,
                         struct pp_error *err)
{
    struct omb_wilson *w = fields(ctx, err);

    if (!w || put(ctx, w, w->gauge, gauge, WILSON_LINKS_REALS, err) ||
        put(ctx, w, w->spinor, spinor, WILSON_SPINOR_REALS, err) ||
        omptarget_to_device(ctx, w->nbr, nbr, w->n * 8 * sizeof(uint32_t), err))
        return -1;
    memset(w->staging, 0, w->ld * WILSON_SPINOR_REALS * pp_precision_bytes(w->prec));
    return omptarget_to_device(ctx, w->out, w->staging,
                               w->ld * WILSON_SPINOR_REALS * pp_precision_bytes(w->prec), err);
}

static int wilson_dslash(struct pp_ctx *ctx, unsigned iterations, struct pp_error *err)
{
    struct omb_wilson *w = fields(ctx, err);

    if (!w)
        return -1;
    for (unsigned it = 0; it < iterations; it++)
        PP_BY_PRECISION(w->prec, dslash, ctx, w);
    return 0;
}

static int wilson_download(struct pp_ctx *ctx, double *out, struct pp_error *err)
{
    struct omb_wilson *w = fields(ctx, err);
    const int soa = w && w->layout == PP_WILSON_SOA;

    if (!w || omptarget_to_host(ctx, w->staging, w->out,
                                w->ld * WILSON_SPINOR_REALS * pp_precision_bytes(w->prec), err))
        return -1;
    for (size_t i = 0; i < w->n; i++)
        wilson_layout_get(out, w->staging, w->ld, i, WILSON_SPINOR_REALS, w->prec, soa);
    return 0;
}

static int wilson_poison(struct pp_ctx *ctx, struct pp_error *err)
{
    struct omb_wilson *w = fields(ctx, err);
    size_t bytes;

    if (!w)
        return -1;
    bytes = w->ld * WILSON_SPINOR_REALS * pp_precision_bytes(w->prec);
    memset(w->staging, 0xff, bytes);
    return omptarget_to_device(ctx, w->out, w->staging, bytes, err);
}

#else /* the host */

/* The canonical arrays into the layout and precision, in parallel with the kernel's schedule (first touch).
 */
static int wilson_upload(struct pp_ctx *ctx, const double *gauge, const double *spinor, const uint32_t *nbr,
                         struct pp_error *err)
{
    struct omb_wilson *w = fields(ctx, err);
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
    struct omb_wilson *w = fields(ctx, err);

    if (!w)
        return -1;
    for (unsigned it = 0; it < iterations; it++) {
        w->share = lattice_fault_sites(w->fault, w->applications++, w->n);
        if (w->layout == PP_WILSON_AOS)
            PP_BY_PRECISION(w->prec, dslash_aos, ctx, w);
        else
            PP_BY_PRECISION(w->prec, dslash_soa, ctx, w);
    }
    return 0;
}

static int wilson_download(struct pp_ctx *ctx, double *out, struct pp_error *err)
{
    struct omb_wilson *w = fields(ctx, err);
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
    struct omb_wilson *w = fields(ctx, err);

    if (!w)
        return -1;
    memset(w->out, 0xff, w->ld * WILSON_SPINOR_REALS * pp_precision_bytes(w->prec));
    return 0;
}

#endif

static const struct pp_wilson_ops wilson_ops = {
    .alloc = wilson_alloc,
    .upload = wilson_upload,
    .dslash = wilson_dslash,
    .download = wilson_download,
    .poison = wilson_poison,
    .release = wilson_release,
};

PP_SUITE_IMPL(OMB_MODEL, wilson) = {
    .suite = "wilson",
    .ops = &wilson_ops,
    .release = slot_close,
};
