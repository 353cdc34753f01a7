/*
 * openmp/stream: STREAM on the host through OpenMP. The suite's state in a context (struct openmp_stream,
 * private to this file) is created by the first alloc and kept in the context's suite slots; alloc allocates
 * its three arrays (openmp_alloc_pages: 2 MiB aligned, advised for huge pages), release frees them, and the
 * context's close frees the state (openmp_stream_impl). Runs on the caller's thread, which forks the OpenMP
 * team per kernel; each kernel returns when its parallel loop has joined, so every call is blocking.
 *
 * Stores (the job's "stores", x->stores): temporal or streaming (openmp_kernels.h). Absent, alloc streams
 * when the three arrays exceed the device's last-level cache (256 MiB where it is unknown): they cannot stay
 * in cache, so reading each written line for ownership only adds traffic. Streaming needs SSE2 (every
 * x86-64); elsewhere the kernels store through the caches and the variant says so.
 */
#include "kernels/openmp/openmp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/stream/stream_ops.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define OPENMP_STREAMING 1
/* A non-temporal store of the 16-byte vector v at p (16-byte aligned), whatever its element type. */
#define STREAM16(p, v) _mm_stream_si128((__m128i *)(void *)(p), (__m128i)(v))
#else
#define OPENMP_STREAMING 0
#endif

/* Where the device's last-level cache is unknown: AUTO streams arrays beyond this. */
#define OPENMP_LLC_GUESS ((uint64_t)256 << 20)

struct openmp_stream {
    size_t n;
    enum pp_precision prec;
    void *a, *b, *c;              /* 2 MiB-aligned, first touched by the threads that use them */
    enum pp_stream_stores stores; /* TEMPORAL or STREAMING (never AUTO after alloc) */
    long long huge_bytes;         /* the process's AnonHugePages after init; -1: unknown */
};

#define REAL      float
#define KERNEL(k) k##_fp32
#include "kernels/stream/openmp_kernels.h"
#undef REAL
#undef KERNEL
#define REAL      double
#define KERNEL(k) k##_fp64
#include "kernels/stream/openmp_kernels.h"
#undef REAL
#undef KERNEL

#define DISPATCH(x, k, ...) ((x)->prec == PP_FP32 ? k##_fp32(x, ##__VA_ARGS__) : k##_fp64(x, ##__VA_ARGS__))

extern const struct pp_suite_impl openmp_stream_impl;

/* The state of ctx: NULL before the first alloc. */
static struct openmp_stream *state(struct pp_ctx *ctx)
{
    return pp_suite_state_get(&ctx->suites, &openmp_stream_impl);
}

/* The state of ctx for a kernel: NULL with err before the first alloc. */
static struct openmp_stream *arrays(struct pp_ctx *ctx, struct pp_error *err)
{
    struct openmp_stream *x = state(ctx);

    if (!x)
        pp_error_set(err, "no arrays allocated (alloc first)");
    return x;
}

static void openmp_release(struct pp_ctx *ctx)
{
    struct openmp_stream *x = state(ctx);

    if (!x)
        return;
    free(x->a);
    free(x->b);
    free(x->c);
    x->a = x->b = x->c = NULL;
    x->n = 0;
}

/* The context's close: the arrays and the state. */
static void openmp_stream_free(struct pp_ctx *ctx)
{
    void **slot = pp_suite_state(&ctx->suites, &openmp_stream_impl);

    openmp_release(ctx);
    free(*slot);
    *slot = NULL;
}

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

static int openmp_alloc(struct pp_ctx *ctx, size_t n, enum pp_precision prec, struct pp_stream_layout *layout,
                        struct pp_error *err)
{
    struct openmp_stream *x = pp_suite_state_new(&ctx->suites, &openmp_stream_impl, sizeof(*x));
    size_t bytes = n * pp_precision_bytes(prec);
    int threads = ctx->threads;

    if (!x)
        return pp_error_set(err, "out of memory");
    openmp_release(ctx);
    x->n = n;
    x->prec = prec;
    x->a = openmp_alloc_pages(bytes);
    x->b = openmp_alloc_pages(bytes);
    x->c = openmp_alloc_pages(bytes);
    if (!x->a || !x->b || !x->c) {
        openmp_release(ctx);
        return pp_error_set(err, "cannot allocate 3 arrays of %zu bytes", bytes);
    }
    x->stores = stores_for(layout->stores, 3.0 * (double)bytes, ctx->llc_bytes);
    memset(layout, 0, sizeof(*layout));
    layout->stores = x->stores;
    layout->dot_groups = (unsigned)threads;
    layout->dot_chain = (n + (size_t)threads - 1) / (size_t)threads + (size_t)threads;
    return 0;
}

static int openmp_init(struct pp_ctx *ctx, double a, double b, double c, struct pp_error *err)
{
    struct openmp_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    DISPATCH(x, init, a, b, c);
    x->huge_bytes = openmp_anon_huge_bytes();
    return 0;
}

static int openmp_read(struct pp_ctx *ctx, void *a, void *b, void *c, struct pp_error *err)
{
    struct openmp_stream *x = arrays(ctx, err);
    size_t bytes;

    if (!x)
        return -1;
    bytes = x->n * pp_precision_bytes(x->prec);
    memcpy(a, x->a, bytes);
    memcpy(b, x->b, bytes);
    memcpy(c, x->c, bytes);
    return 0;
}

static int openmp_copy(struct pp_ctx *ctx, struct pp_error *err)
{
    struct openmp_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    DISPATCH(x, copy);
    return 0;
}

static int openmp_mul(struct pp_ctx *ctx, double s, struct pp_error *err)
{
    struct openmp_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    DISPATCH(x, mul, s);
    return 0;
}

static int openmp_add(struct pp_ctx *ctx, struct pp_error *err)
{
    struct openmp_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    DISPATCH(x, add);
    return 0;
}

static int openmp_triad(struct pp_ctx *ctx, double s, struct pp_error *err)
{
    struct openmp_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    DISPATCH(x, triad, s);
    return 0;
}

static int openmp_nstream(struct pp_ctx *ctx, double s, struct pp_error *err)
{
    struct openmp_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    DISPATCH(x, nstream, s);
    return 0;
}

static int openmp_dot(struct pp_ctx *ctx, double *sum, struct pp_error *err)
{
    struct openmp_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    *sum = x->prec == PP_FP32 ? (double)dot_fp32(x) : dot_fp64(x);
    return 0;
}

static const struct pp_stream_ops openmp_stream_ops = {
    .alloc = openmp_alloc,
    .init = openmp_init,
    .read = openmp_read,
    .copy = openmp_copy,
    .mul = openmp_mul,
    .add = openmp_add,
    .triad = openmp_triad,
    .nstream = openmp_nstream,
    .dot = openmp_dot,
    .release = openmp_release,
};

/* Provenance: the stores of the last run and the huge pages backing the process once its arrays were
 * placed (the arrays are advised for them: openmp_alloc_pages). */
static void openmp_stream_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    struct openmp_stream *x = state(ctx);

    if (!x)
        return;
    info_add(out, "openmp.stream_stores", "%s",
             x->stores == PP_STORES_STREAMING ? "streaming (SSE2 movntdq)" : "temporal");
    if (x->huge_bytes >= 0)
        info_add(out, "openmp.stream_anon_huge_bytes", "%lld", x->huge_bytes);
}

PP_SUITE_IMPL(openmp, stream) = {
    .suite = "stream",
    .ops = &openmp_stream_ops,
    .release = openmp_stream_free,
    .describe = openmp_stream_describe,
};
