/*
 * hacc/openmp: the HACC suite's kernels (paper 003: gravity and sph over leaf pairs) through OpenMP, one file
 * for both OpenMP models (kernels/openmp/body.h); the loops are openmp_kernels.h, the pair arithmetic
 * hacc_pair.h.
 *
 * Host (`openmp`): variants scalar and simd, owner computes over each leaf's partners (hacc_partners.h, built
 * from the pair list at upload) on host arrays. Device (`omp-target`, built with -DPP_OMP_TARGET): scalar and
 * simd (owner computes, the particle loop offloaded) and broadcast (the paper's, as CUDA's: a pair's
 * particles each sum the other leaf, atomics into the outputs); select, memory-32 and memory-object are taken
 * and refused at alloc as "unsupported:" with the reason, so a job records them as such (PP counts 0 for a
 * policy fixed to one of them): OpenMP has no cross-lane shuffle, and their exchanges synchronise the
 * work-items of one pair at every step, which the iterations of a worksharing or simd loop cannot do.
 *
 * Ownership: the suite's state (struct omb_hacc, private to this file) is created by the first alloc and kept
 * in the context's suite slots (PP_SUITE_SLOT); release frees the arrays, close frees the state. Threads: the
 * context's thread; every call returns when its loop has joined or its region finished.
 */
#include "kernels/openmp/body.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/hacc/hacc_ops.h"
#include "kernels/hacc/hacc_partners.h"

struct omb_hacc {
    size_t nleaves, npairs;
    unsigned leaf_size;
    enum pp_precision prec;
    enum pp_hacc_variant variant;
    void *in[PP_HACC_NIN], *out[PP_HACC_NOUT]; /* the model's memory, in the precision */
    size_t *start;   /* nleaves + 1: leaf a's partners are other[start[a] .. start[a + 1]) */
    uint32_t *other; /* 2 npairs */
#if OMB_TARGET
    uint32_t *pairs; /* device, 2 npairs (broadcast) */
    void *staging;   /* host: one array of the particles in double */
#endif
};

#define PP_KERNELS "kernels/hacc/openmp_kernels.h"
#include "kernels/precisions.h"

PP_SUITE_SLOT(OMB_MODEL, hacc, struct omb_hacc, ctx->suites, hacc_release)

static const struct pp_hacc_ops hacc_ops;

static struct omb_hacc *particles(struct pp_ctx *ctx, struct pp_error *err)
{
    struct omb_hacc *s = slot_get(ctx);

    if (!s || !s->out[0])
        pp_error_set(err, "hacc: no particles allocated (alloc first)");
    return s && s->out[0] ? s : NULL;
}

static void hacc_release(struct pp_ctx *ctx)
{
    struct omb_hacc *s = slot_get(ctx);

    if (!s)
        return;
    for (int f = 0; f < PP_HACC_NIN; f++)
        omb_free(ctx, s->in[f]);
    for (int o = 0; o < PP_HACC_NOUT; o++)
        omb_free(ctx, s->out[o]);
#if OMB_TARGET
    omb_free(ctx, s->start);
    omb_free(ctx, s->other);
    omb_free(ctx, s->pairs);
    free(s->staging);
#else
    free(s->start);
    free(s->other);
#endif
    memset(s, 0, sizeof(*s));
}

/* Why a variant cannot be expressed in OpenMP, naming it, or NULL when it can (in this build). */
static const char *inexpressible(enum pp_hacc_variant v)
{
    switch (v) {
    case PP_HACC_SELECT:
        return "select exchanges particles between the lanes of a warp by shuffles, and OpenMP has no "
               "operation between simd lanes";
    case PP_HACC_MEMORY_32:
    case PP_HACC_MEMORY_OBJECT:
        return v == PP_HACC_MEMORY_32
                   ? "memory-32 exchanges particles between the two halves of a pair's work-items through "
                     "local memory with a barrier at every step, and the iterations of OpenMP's worksharing "
                     "and simd loops cannot synchronise"
                   : "memory-object exchanges particles between the two halves of a pair's work-items "
                     "through local memory with a barrier at every step, and the iterations of OpenMP's "
                     "worksharing and simd loops cannot synchronise";
    case PP_HACC_BROADCAST:
    case PP_HACC_SCALAR:
    case PP_HACC_SIMD:
        return hacc_ops.variants & 1u << v ? NULL : "not a variant of openmp";
    default:
        return "no such variant";
    }
}

static int hacc_alloc(struct pp_ctx *ctx, size_t nleaves, unsigned leaf_size, size_t npairs,
                      enum pp_precision prec, enum pp_hacc_variant variant, struct pp_hacc_launch *launch,
                      struct pp_error *err)
{
    struct omb_hacc *s = slot_new(ctx);
    const size_t n = nleaves * leaf_size, bytes = n * pp_precision_bytes(prec);
    const char *why = inexpressible(variant);

    if (!s)
        return pp_error_set(err, "out of memory");
    hacc_release(ctx);
    if (why)
        return OMB_TARGET ? pp_error_set(err, "unsupported: %s", why)
                          : pp_error_set(err, "unsupported: variant %d on openmp", (int)variant);
    s->nleaves = nleaves;
    s->npairs = npairs;
    s->leaf_size = leaf_size;
    s->prec = prec;
    s->variant = variant;
    for (int f = 0; f < PP_HACC_NIN; f++)
        if (!(s->in[f] = omb_alloc(ctx, bytes, "particle inputs", err)))
            goto fail;
    for (int o = 0; o < PP_HACC_NOUT; o++)
        if (!(s->out[o] = omb_alloc(ctx, bytes, "particle outputs", err)))
            goto fail;
#if OMB_TARGET
    if (variant != PP_HACC_BROADCAST
            ? !(s->start = omb_alloc(ctx, (nleaves + 1) * sizeof(size_t), "leaf index", err)) ||
                  !(s->other = omb_alloc(ctx, 2 * npairs * sizeof(uint32_t), "partner list", err))
            : !(s->pairs = omb_alloc(ctx, 2 * npairs * sizeof(uint32_t), "pair list", err)))
        goto fail;
    if (!(s->staging = malloc(n * sizeof(double)))) {
        pp_error_set(err, "out of memory");
        goto fail;
    }
    /* What runs: the launch shape (PPBENCH_OMPTARGET_THREADS, 0 for the runtime's), host threads on the host.
     */
    *launch = (struct pp_hacc_launch){
        .work_group = ctx->shape.threads, .sub_group = 0, .threads = ctx->host ? (unsigned)ctx->sm_count : 0};
#else
    s->start = calloc(nleaves + 1, sizeof(size_t));
    s->other = malloc(2 * npairs * sizeof(uint32_t));
    if (!s->start || !s->other) {
        pp_error_set(err, "cannot allocate the partners of %zu leaves", nleaves);
        goto fail;
    }
    *launch = (struct pp_hacc_launch){.work_group = 0, .sub_group = 0, .threads = (unsigned)ctx->threads};
#endif
    return 0;
fail:
    hacc_release(ctx);
    return -1;
}

#if OMB_TARGET
/* count doubles to dst on the device in the precision (through the staging array). */
static int put(struct pp_ctx *ctx, struct omb_hacc *s, void *dst, const double *src, size_t count,
               struct pp_error *err)
{
    if (s->prec == PP_FP64)
        return omptarget_to_device(ctx, dst, src, count * sizeof(double), err);
    for (size_t i = 0; i < count; i++)
        ((float *)s->staging)[i] = (float)src[i];
    return omptarget_to_device(ctx, dst, s->staging, count * sizeof(float), err);
}

/* The owner variants' index (hacc_partners.h) built on the host, then copied to the device. */
static int upload_partners(struct pp_ctx *ctx, struct omb_hacc *s, const uint32_t *pairs,
                           struct pp_error *err)
{
    size_t *start = malloc((s->nleaves + 1) * sizeof(size_t));
    uint32_t *other = malloc((2 * s->npairs + 1) * sizeof(uint32_t));
    int rc = -1;

    if (!start || !other)
        pp_error_set(err, "out of memory");
    else if (hacc_partners(s->nleaves, s->npairs, pairs, start, other, err) == 0 &&
             omptarget_to_device(ctx, s->start, start, (s->nleaves + 1) * sizeof(size_t), err) == 0 &&
             omptarget_to_device(ctx, s->other, other, 2 * s->npairs * sizeof(uint32_t), err) == 0)
        rc = 0;
    free(start);
    free(other);
    return rc;
}

static int hacc_upload(struct pp_ctx *ctx, const double *const in[PP_HACC_NIN], const uint32_t *pairs,
                       struct pp_error *err)
{
    struct omb_hacc *s = particles(ctx, err);

    if (!s)
        return -1;
    for (int f = 0; f < PP_HACC_NIN; f++)
        if (put(ctx, s, s->in[f], in[f], s->nleaves * s->leaf_size, err))
            return -1;
    if (!pairs)
        return 0;
    if (s->pairs) {
        for (size_t q = 0; q < 2 * s->npairs; q++)
            if (pairs[q] >= s->nleaves)
                return pp_error_set(err, "hacc: pair %zu names leaf %u of %zu", q / 2, pairs[q], s->nleaves);
        return omptarget_to_device(ctx, s->pairs, pairs, 2 * s->npairs * sizeof(uint32_t), err);
    }
    return upload_partners(ctx, s, pairs, err);
}

static int hacc_download(struct pp_ctx *ctx, double *const out[PP_HACC_NOUT], struct pp_error *err)
{
    struct omb_hacc *s = particles(ctx, err);
    const size_t n = s ? s->nleaves * s->leaf_size : 0;

    if (!s)
        return -1;
    for (int o = 0; o < PP_HACC_NOUT; o++) {
        if (s->prec == PP_FP64) {
            if (omptarget_to_host(ctx, out[o], s->out[o], n * sizeof(double), err))
                return -1;
            continue;
        }
        if (omptarget_to_host(ctx, s->staging, s->out[o], n * sizeof(float), err))
            return -1;
        for (size_t i = 0; i < n; i++)
            out[o][i] = ((const float *)s->staging)[i];
    }
    return 0;
}

#else /* the host */

static int hacc_upload(struct pp_ctx *ctx, const double *const in[PP_HACC_NIN], const uint32_t *pairs,
                       struct pp_error *err)
{
    struct omb_hacc *s = particles(ctx, err);

    if (!s)
        return -1;
    PP_BY_PRECISION(s->prec, upload, s, in);
    return pairs ? hacc_partners(s->nleaves, s->npairs, pairs, s->start, s->other, err) : 0;
}

static int hacc_download(struct pp_ctx *ctx, double *const out[PP_HACC_NOUT], struct pp_error *err)
{
    struct omb_hacc *s = particles(ctx, err);

    if (!s)
        return -1;
    PP_BY_PRECISION(s->prec, download, s, out);
    return 0;
}

#endif

static int hacc_fill(struct pp_ctx *ctx, double value, struct pp_error *err)
{
    struct omb_hacc *s = particles(ctx, err);

    if (!s)
        return -1;
    if (s->prec == PP_FP32)
        fill_fp32(ctx, s, (float)value);
    else
        fill_fp64(ctx, s, value);
    return 0;
}

static int hacc_run(struct pp_ctx *ctx, enum pp_hacc_kernel k, struct pp_error *err)
{
    struct omb_hacc *s = particles(ctx, err);

    if (!s)
        return -1;
    PP_BY_PRECISION(s->prec, run, ctx, s, k);
    return 0;
}

static const struct pp_hacc_ops hacc_ops = {
#if OMB_TARGET
    /* every variant is taken; alloc refuses those OpenMP cannot express, with the reason (inexpressible) */
    .variants = (1u << PP_HACC_NVARIANTS) - 1,
#else
    .variants = (1u << PP_HACC_SCALAR) | (1u << PP_HACC_SIMD),
#endif
    .alloc = hacc_alloc,
    .upload = hacc_upload,
    .fill = hacc_fill,
    .run = hacc_run,
    .download = hacc_download,
    .release = hacc_release,
};

PP_SUITE_IMPL(OMB_MODEL, hacc) = {
    .suite = "hacc",
    .ops = &hacc_ops,
    .release = slot_close,
};
