/*
 * stream/openmp: STREAM through OpenMP, one file for both OpenMP models (kernels/openmp/body.h): on the host
 * (`openmp`: the team forked per kernel over host arrays) and, built with -DPP_OMP_TARGET, through target
 * offload (`omp-target`: BabelStream's OpenMP-target kernels, every streaming kernel one `target teams
 * distribute parallel for simd` loop over device arrays with the context's num_teams and thread_limit when
 * set (PPBENCH_OMPTARGET_TEAMS, PPBENCH_OMPTARGET_THREADS: the launch-shape variants), the runtime's choice
 * otherwise). The kernels are openmp_kernels.h, instantiated per precision (kernels/precisions.h); each
 * returns when its loop has joined or its target region has finished, so every call is blocking.
 *
 * Host: the arrays are openmp_alloc_pages' (2 MiB aligned, advised for huge pages), first touched by the
 * threads that use them. Stores (the job's "stores", x->stores): temporal or streaming (openmp_kernels.h).
 * Absent, alloc streams when the three arrays exceed the device's last-level cache (256 MiB where it is
 * unknown): they cannot stay in cache, so reading each written line for ownership only adds traffic.
 * Streaming needs SSE2 (every x86-64); elsewhere the kernels store through the caches and the variant says
 * so.
 *
 * Device: the dot splits the arrays into blocks (omptarget_blocks), one team's `parallel for simd` reduction
 * each, and adds the blocks' sums on the host in the precision, inside the op, as the CUDA and OpenCL dots
 * do: its verification bound then holds whatever number of teams the runtime starts.
 *
 * Ownership: the suite's state in a context (struct omb_stream, private to this file) is created by the
 * first alloc and kept in the context's suite slots (PP_SUITE_SLOT); alloc owns the arrays (and on the device
 * the partial sums and their host copy) until release, the next alloc or close; close frees the state.
 * Threads: the context's thread.
 */
#ifdef PP_OMP_TARGET
#define OMPT_SUITE_THREADS OMPT_GPU_THREADS_DEFAULT /* 256 a block under clang on a GPU (omptarget.h) */
#endif
#include "kernels/openmp/body.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/stream/stream_ops.h"

#if !OMB_TARGET && defined(__SSE2__)
#include <emmintrin.h>
#define OPENMP_STREAMING 1
/* A non-temporal store of the 16-byte vector v at p (16-byte aligned), whatever its element type. */
#define STREAM16(p, v) _mm_stream_si128((__m128i *)(void *)(p), (__m128i)(v))
#else
#define OPENMP_STREAMING 0
#endif

/* Where the device's last-level cache is unknown: AUTO streams arrays beyond this (host). */
#define OPENMP_LLC_GUESS ((uint64_t)256 << 20)

struct omb_stream {
    size_t n;
    enum pp_precision prec;
    void *a, *b, *c; /* n elements each: the model's memory (omb_alloc) */
#if OMB_TARGET
    void *partials;   /* device: one sum per dot block */
    void *host_parts; /* host copy of partials */
    size_t blocks;    /* dot blocks */
#else
    enum pp_stream_stores stores; /* TEMPORAL or STREAMING (never AUTO after alloc) */
    long long huge_bytes;         /* the process's AnonHugePages after init; -1: unknown */
#endif
};

#define PP_KERNELS "kernels/stream/openmp_kernels.h"
#include "kernels/precisions.h"

PP_SUITE_SLOT(OMB_MODEL, stream, struct omb_stream, ctx->suites, stream_release)

/* The state of ctx for a kernel: NULL with err before the first alloc. */
static struct omb_stream *arrays(struct pp_ctx *ctx, struct pp_error *err)
{
    struct omb_stream *x = slot_get(ctx);

    if (!x || !x->a)
        pp_error_set(err, "no arrays allocated (alloc first)");
    return x && x->a ? x : NULL;
}

static void stream_release(struct pp_ctx *ctx)
{
    struct omb_stream *x = slot_get(ctx);

    if (!x)
        return;
    omb_free(ctx, x->a);
    omb_free(ctx, x->b);
    omb_free(ctx, x->c);
    x->a = x->b = x->c = NULL;
#if OMB_TARGET
    omb_free(ctx, x->partials);
    free(x->host_parts);
    x->partials = x->host_parts = NULL;
#endif
    x->n = 0;
}

#if !OMB_TARGET
/* The stores a run uses: the job's choice, or for AUTO streaming when the arrays (footprint bytes) exceed the
 * last-level cache llc (0: unknown); temporal where this build cannot stream. */
static enum pp_stream_stores stores_for(enum pp_stream_stores want, double footprint, uint64_t llc)
{
    if (!OPENMP_STREAMING)
        return PP_STORES_TEMPORAL;
    if (want != PP_STORES_AUTO)
        return want;
    return footprint > (double)(llc ? llc : OPENMP_LLC_GUESS) ? PP_STORES_STREAMING : PP_STORES_TEMPORAL;
}
#endif

static int stream_alloc(struct pp_ctx *ctx, size_t n, enum pp_precision prec, struct pp_stream_layout *layout,
                        struct pp_error *err)
{
    struct omb_stream *x = slot_new(ctx);
    size_t elem = pp_precision_bytes(prec), bytes = n * elem;

    if (!x)
        return pp_error_set(err, "out of memory");
    stream_release(ctx);
    x->n = n;
    x->prec = prec;
    if (!(x->a = omb_alloc(ctx, bytes, "array a", err)) || !(x->b = omb_alloc(ctx, bytes, "array b", err)) ||
        !(x->c = omb_alloc(ctx, bytes, "array c", err))) {
        stream_release(ctx);
        return -1;
    }
#if OMB_TARGET
    x->blocks = omptarget_blocks(ctx);
    if (x->blocks > n)
        x->blocks = n;
    if (!(x->partials = omb_alloc(ctx, x->blocks * elem, "dot partials", err))) {
        stream_release(ctx);
        return -1;
    }
    if (!(x->host_parts = malloc(x->blocks * elem))) {
        stream_release(ctx);
        return pp_error_set(err, "out of memory");
    }
    memset(layout, 0, sizeof(*layout));
    layout->work_group = omptarget_threads(ctx, OMPT_SUITE_THREADS);
    layout->dot_groups = (unsigned)x->blocks;
    layout->dot_chain = (n + x->blocks - 1) / x->blocks + x->blocks;
#else
    x->stores = stores_for(layout->stores, 3.0 * (double)bytes, ctx->llc_bytes);
    memset(layout, 0, sizeof(*layout));
    layout->stores = x->stores;
    layout->dot_groups = (unsigned)ctx->threads;
    layout->dot_chain = (n + (size_t)ctx->threads - 1) / (size_t)ctx->threads + (size_t)ctx->threads;
#endif
    return 0;
}

static int stream_init(struct pp_ctx *ctx, double a, double b, double c, struct pp_error *err)
{
    struct omb_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    PP_BY_PRECISION(x->prec, init, ctx, x, a, b, c);
#if !OMB_TARGET
    x->huge_bytes = openmp_anon_huge_bytes();
#endif
    return 0;
}

static int stream_read(struct pp_ctx *ctx, void *a, void *b, void *c, struct pp_error *err)
{
    struct omb_stream *x = arrays(ctx, err);
    size_t bytes;

    if (!x)
        return -1;
    bytes = x->n * pp_precision_bytes(x->prec);
    return omb_to_host(ctx, a, x->a, bytes, err) || omb_to_host(ctx, b, x->b, bytes, err) ||
                   omb_to_host(ctx, c, x->c, bytes, err)
               ? -1
               : 0;
}

static int stream_copy(struct pp_ctx *ctx, struct pp_error *err)
{
    struct omb_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    PP_BY_PRECISION(x->prec, copy, ctx, x);
    return 0;
}

static int stream_mul(struct pp_ctx *ctx, double s, struct pp_error *err)
{
    struct omb_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    PP_BY_PRECISION(x->prec, mul, ctx, x, s);
    return 0;
}

static int stream_add(struct pp_ctx *ctx, struct pp_error *err)
{
    struct omb_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    PP_BY_PRECISION(x->prec, add, ctx, x);
    return 0;
}

static int stream_triad(struct pp_ctx *ctx, double s, struct pp_error *err)
{
    struct omb_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    PP_BY_PRECISION(x->prec, triad, ctx, x, s);
    return 0;
}

static int stream_nstream(struct pp_ctx *ctx, double s, struct pp_error *err)
{
    struct omb_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    PP_BY_PRECISION(x->prec, nstream, ctx, x, s);
    return 0;
}

static int stream_dot(struct pp_ctx *ctx, double *sum, struct pp_error *err)
{
    struct omb_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    return PP_BY_PRECISION(x->prec, dot, ctx, x, sum, err);
}

/* Provenance. Host: the stores of the last run and the huge pages backing the process once its arrays were
 * placed (the arrays are advised for them: openmp_alloc_pages). Device: the dot's blocks. */
static void stream_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    struct omb_stream *x = slot_get(ctx);

    if (!x)
        return;
#if OMB_TARGET
    if (x->blocks)
        info_add(out, "omptarget.stream_dot_blocks", "%zu", x->blocks);
#else
    info_add(out, "openmp.stream_stores", "%s",
             x->stores == PP_STORES_STREAMING ? "streaming (SSE2 movntdq)" : "temporal");
    if (x->huge_bytes >= 0)
        info_add(out, "openmp.stream_anon_huge_bytes", "%lld", x->huge_bytes);
#endif
}

static const struct pp_stream_ops stream_ops = {
    .alloc = stream_alloc,
    .init = stream_init,
    .read = stream_read,
    .copy = stream_copy,
    .mul = stream_mul,
    .add = stream_add,
    .triad = stream_triad,
    .nstream = stream_nstream,
    .dot = stream_dot,
    .release = stream_release,
};

PP_SUITE_IMPL(OMB_MODEL, stream) = {
    .suite = "stream",
    .ops = &stream_ops,
    .release = slot_close,
    .describe = stream_describe,
};
