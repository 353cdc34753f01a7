/*
 * openmp/hacc: the HACC suite's kernels (paper 003: gravity and sph over leaf pairs) on the host through
 * OpenMP, as openmp_hacc_ops registered with PP_SUITE_IMPL; the loops are openmp_kernels.h. Its state
 * (struct omp_hacc: the particles, the outputs and each leaf's partners, built from the pair list at upload)
 * is private to this file and lives in the context's suite slot until release or close. Runs on the
 * caller's thread, which forks the OpenMP team per call; every call returns when the loop has joined.
 */
#include "kernels/openmp/openmp.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/hacc/hacc_ops.h"
#include "kernels/hacc/hacc_partners.h"

struct omp_hacc {
    size_t nleaves, npairs;
    unsigned leaf_size;
    enum pp_precision prec;
    enum pp_hacc_variant variant;
    void *in[PP_HACC_NIN], *out[PP_HACC_NOUT];
    size_t *start;   /* nleaves + 1: leaf a's partners are other[start[a] .. start[a + 1]) */
    uint32_t *other; /* 2 npairs */
};

#define REAL      float
#define SQRT      sqrtf
#define KERNEL(k) k##_fp32
#include "kernels/hacc/openmp_kernels.h"
#undef REAL
#undef SQRT
#undef KERNEL
#define REAL      double
#define SQRT      sqrt
#define KERNEL(k) k##_fp64
#include "kernels/hacc/openmp_kernels.h"
#undef REAL
#undef SQRT
#undef KERNEL

extern const struct pp_suite_impl openmp_hacc_impl;

static struct omp_hacc **slot(struct pp_ctx *ctx)
{
    return (struct omp_hacc **)pp_suite_state(&ctx->suites, &openmp_hacc_impl);
}

static int state(struct pp_ctx *ctx, struct omp_hacc **out, struct pp_error *err)
{
    *out = *slot(ctx);
    return *out ? 0 : pp_error_set(err, "hacc: no particles allocated (alloc first)");
}

static void hacc_release(struct pp_ctx *ctx)
{
    struct omp_hacc **sp = slot(ctx), *s = *sp;

    if (!s)
        return;
    for (int f = 0; f < PP_HACC_NIN; f++)
        free(s->in[f]);
    for (int o = 0; o < PP_HACC_NOUT; o++)
        free(s->out[o]);
    free(s->start);
    free(s->other);
    free(s);
    *sp = NULL;
}

static int hacc_alloc(struct pp_ctx *ctx, size_t nleaves, unsigned leaf_size, size_t npairs,
                      enum pp_precision prec, enum pp_hacc_variant variant, struct pp_hacc_launch *launch,
                      struct pp_error *err)
{
    const size_t bytes = nleaves * leaf_size * pp_precision_bytes(prec);
    struct omp_hacc *s;
    bool ok = true;

    hacc_release(ctx);
    if (variant != PP_HACC_SCALAR && variant != PP_HACC_SIMD)
        return pp_error_set(err, "unsupported: variant %d on openmp", (int)variant);
    if (!(s = calloc(1, sizeof(*s))))
        return pp_error_set(err, "out of memory");
    *slot(ctx) = s;
    s->nleaves = nleaves;
    s->npairs = npairs;
    s->leaf_size = leaf_size;
    s->prec = prec;
    s->variant = variant;
    for (int f = 0; f < PP_HACC_NIN; f++)
        ok &= (s->in[f] = openmp_alloc_pages(bytes)) != NULL;
    for (int o = 0; o < PP_HACC_NOUT; o++)
        ok &= (s->out[o] = openmp_alloc_pages(bytes)) != NULL;
    s->start = calloc(nleaves + 1, sizeof(size_t));
    s->other = malloc(2 * npairs * sizeof(uint32_t));
    if (!ok || !s->start || !s->other) {
        hacc_release(ctx);
        return pp_error_set(err, "cannot allocate %zu leaves of %u particles", nleaves, leaf_size);
    }
    *launch = (struct pp_hacc_launch){.work_group = 0, .sub_group = 0, .threads = (unsigned)ctx->threads};
    return 0;
}

static int hacc_upload(struct pp_ctx *ctx, const double *const in[PP_HACC_NIN], const uint32_t *pairs,
                       struct pp_error *err)
{
    struct omp_hacc *s;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP32)
        upload_fp32(s, in);
    else
        upload_fp64(s, in);
    return pairs ? hacc_partners(s->nleaves, s->npairs, pairs, s->start, s->other, err) : 0;
}

static int hacc_fill(struct pp_ctx *ctx, double value, struct pp_error *err)
{
    struct omp_hacc *s;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP32)
        fill_fp32(s, (float)value);
    else
        fill_fp64(s, value);
    return 0;
}

static int hacc_run(struct pp_ctx *ctx, enum pp_hacc_kernel k, struct pp_error *err)
{
    struct omp_hacc *s;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP32)
        run_fp32(s, k);
    else
        run_fp64(s, k);
    return 0;
}

static int hacc_download(struct pp_ctx *ctx, double *const out[PP_HACC_NOUT], struct pp_error *err)
{
    struct omp_hacc *s;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP32)
        download_fp32(s, out);
    else
        download_fp64(s, out);
    return 0;
}

static const struct pp_hacc_ops openmp_hacc_ops = {
    .variants = (1u << PP_HACC_SCALAR) | (1u << PP_HACC_SIMD),
    .alloc = hacc_alloc,
    .upload = hacc_upload,
    .fill = hacc_fill,
    .run = hacc_run,
    .download = hacc_download,
    .release = hacc_release,
};

PP_SUITE_IMPL(openmp, hacc) = {
    .suite = "hacc",
    .ops = &openmp_hacc_ops,
    .release = hacc_release,
};
