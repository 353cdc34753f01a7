/*
 * omptarget/wilson: the Wilson Dslash through OpenMP target offload, in both layouts (aos, soa): one
 * `target teams distribute parallel for simd` over the output sites, each site
 * kernels/wilson/wilson_dslash.h's arithmetic (the CUDA and OpenCL models' too), with 32-bit site indices as
 * the GPU models use (a field of 2^32 reals or more is refused). The fields are device memory; upload and
 * download move them through a host staging buffer in the layout (kernels/wilson/wilson_layout.h). Each
 * application is one synchronous target region. The planted-fault hook of kernels/lattice.h is not read here
 * (as in the CUDA model): the drivers' verification is the same for every model and is exercised through the
 * host models.
 *
 * Ownership: the suite's state (struct omptarget_wilson, private to this file) is created by the first alloc
 * and kept in the context's suite slots; release frees the fields, close frees the state. Threads: the
 * context's thread.
 */
#define OMPT_SUITE_THREADS OMPT_GPU_THREADS_DEFAULT /* 256 a block under clang on a GPU (omptarget.h) */
#include "kernels/omptarget/omptarget.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/wilson/wilson_layout.h"
#include "kernels/wilson/wilson_ops.h"

struct omptarget_wilson {
    size_t n, ld;
    enum pp_precision prec;
    enum pp_wilson_layout layout;
    void *gauge, *spinor, *out; /* device, in the layout and precision */
    uint32_t *nbr;              /* device, [8][n] */
    void *staging;              /* host: the largest field in the layout */
};

#define WILSON_SIZE unsigned
#pragma omp declare target
#define REAL           float
#define WILSON_NAME(k) k##_fp32
#include "kernels/wilson/wilson_dslash.h"
#undef REAL
#undef WILSON_NAME
#define REAL           double
#define WILSON_NAME(k) k##_fp64
#include "kernels/wilson/wilson_dslash.h"
#undef REAL
#undef WILSON_NAME
#pragma omp end declare target

/* One application: every output site, in layout SOA (a constant in each loop, so the indexing folds). */
#define DSLASH(REAL, SUFFIX)                                                                                 \
    static void dslash_##SUFFIX(struct pp_ctx *ctx, struct omptarget_wilson *w)                              \
    {                                                                                                        \
        const REAL *psi = w->spinor, *g = w->gauge;                                                          \
        const uint32_t *nbr = w->nbr;                                                                        \
        REAL *out = w->out;                                                                                  \
        const unsigned n = (unsigned)w->n, ld = (unsigned)w->ld;                                             \
                                                                                                             \
        if (w->layout == PP_WILSON_SOA)                                                                      \
            OMPT_LOOP_(ctx, target teams distribute parallel for, is_device_ptr(psi, g, nbr, out),                                                   \
                     for (unsigned i = 0; i < n; i++) wilson_site_##SUFFIX(psi, g, nbr, out, n, ld, i, 1);); \
        else                                                                                                 \
            OMPT_LOOP_(ctx, target teams distribute parallel for, is_device_ptr(psi, g, nbr, out),                                                   \
                     for (unsigned i = 0; i < n; i++) wilson_site_##SUFFIX(psi, g, nbr, out, n, ld, i, 0);); \
    }
DSLASH(float, fp32)
DSLASH(double, fp64)
#undef DSLASH

extern const struct pp_suite_impl omptarget_wilson_impl;

static struct omptarget_wilson *state(struct pp_ctx *ctx)
{
    return pp_suite_state_get(&ctx->suites, &omptarget_wilson_impl);
}

static struct omptarget_wilson *fields(struct pp_ctx *ctx, struct pp_error *err)
{
    struct omptarget_wilson *w = state(ctx);

    if (!w || !w->out)
        pp_error_set(err, "no fields allocated (alloc first)");
    return w && w->out ? w : NULL;
}

static void wilson_release(struct pp_ctx *ctx)
{
    struct omptarget_wilson *w = state(ctx);

    if (!w)
        return;
    omptarget_free(ctx, w->gauge);
    omptarget_free(ctx, w->spinor);
    omptarget_free(ctx, w->out);
    omptarget_free(ctx, w->nbr);
    free(w->staging);
    memset(w, 0, sizeof(*w));
}

static void wilson_free(struct pp_ctx *ctx)
{
    void **slot = pp_suite_state(&ctx->suites, &omptarget_wilson_impl);

    wilson_release(ctx);
    free(*slot);
    *slot = NULL;
}

static int wilson_alloc(struct pp_ctx *ctx, size_t n, const unsigned dims[4], enum pp_precision prec,
                        enum pp_wilson_layout layout, struct pp_wilson_variant *variant, struct pp_error *err)
{
    struct omptarget_wilson *w = pp_suite_state_new(&ctx->suites, &omptarget_wilson_impl, sizeof(*w));
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
    w->ld = layout == PP_WILSON_SOA ? (n + 15) / 16 * 16 : n;
    if (w->ld * WILSON_LINKS_REALS >= (size_t)1 << 32)
        return pp_error_set(err, "unsupported: %zu sites: the kernels index fields with 32 bits", n);
    if (!(w->gauge = omptarget_alloc(ctx, w->ld * WILSON_LINKS_REALS * beta, "gauge field", err)) ||
        !(w->spinor = omptarget_alloc(ctx, w->ld * WILSON_SPINOR_REALS * beta, "spinor field", err)) ||
        !(w->out = omptarget_alloc(ctx, w->ld * WILSON_SPINOR_REALS * beta, "output field", err)) ||
        !(w->nbr = omptarget_alloc(ctx, n * 8 * sizeof(uint32_t), "neighbour table", err))) {
        wilson_release(ctx);
        return -1;
    }
    if (!(w->staging = malloc(w->ld * WILSON_LINKS_REALS * beta))) {
        wilson_release(ctx);
        return pp_error_set(err, "out of memory");
    }
    memset(variant, 0, sizeof(*variant));
    variant->layout = layout;
    variant->work_group = omptarget_threads(ctx, OMPT_SUITE_THREADS);
    variant->threads = ctx->host ? (unsigned)ctx->sm_count : 0;
    return 0;
}

/* A canonical host field of per_site doubles a site into the layout and precision, then to the device. */
static int put(struct pp_ctx *ctx, struct omptarget_wilson *w, void *dst, const double *src,
               unsigned per_site, struct pp_error *err)
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
    struct omptarget_wilson *w = fields(ctx, err);

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
    struct omptarget_wilson *w = fields(ctx, err);

    if (!w)
        return -1;
    for (unsigned it = 0; it < iterations; it++) {
        if (w->prec == PP_FP32)
            dslash_fp32(ctx, w);
        else
            dslash_fp64(ctx, w);
    }
    return 0;
}

static int wilson_download(struct pp_ctx *ctx, double *out, struct pp_error *err)
{
    struct omptarget_wilson *w = fields(ctx, err);
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
    struct omptarget_wilson *w = fields(ctx, err);
    size_t bytes;

    if (!w)
        return -1;
    bytes = w->ld * WILSON_SPINOR_REALS * pp_precision_bytes(w->prec);
    memset(w->staging, 0xff, bytes);
    return omptarget_to_device(ctx, w->out, w->staging, bytes, err);
}

static const struct pp_wilson_ops omptarget_wilson_ops = {
    .alloc = wilson_alloc,
    .upload = wilson_upload,
    .dslash = wilson_dslash,
    .download = wilson_download,
    .poison = wilson_poison,
    .release = wilson_release,
};

PP_SUITE_IMPL(omptarget, wilson) = {
    .suite = "wilson",
    .ops = &omptarget_wilson_ops,
    .release = wilson_free,
};
