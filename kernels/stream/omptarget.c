/*
 * omptarget/stream: STREAM through OpenMP target offload, BabelStream's OpenMP-target kernels: every
 * streaming kernel is one `target teams distribute parallel for simd` loop over device arrays
 * (omp_target_alloc, is_device_ptr), with the context's num_teams and thread_limit when set
 * (PPBENCH_OMPTARGET_TEAMS, PPBENCH_OMPTARGET_THREADS: the launch-shape variants) and the runtime's choice
 * otherwise. The dot splits the arrays into blocks (omptarget_blocks), one team's `parallel for simd`
 * reduction each, and adds the blocks' sums on the host in the precision, inside the op, as the CUDA and
 * OpenCL dots do: its verification bound then holds whatever number of teams the runtime starts.
 *
 * Ownership: the suite's state in a context (struct omptarget_stream, private to this file) is created by the
 * first alloc and kept in the context's suite slots; alloc owns the device arrays and the host copy of the
 * partial sums until release (or the next alloc, or close); close frees the state (omptarget_stream_impl).
 * Threads: the context's thread; each target region returns when the device has finished (no nowait).
 */
#define OMPT_SUITE_THREADS OMPT_GPU_THREADS_DEFAULT /* 256 a block under clang on a GPU (omptarget.h) */
#include "kernels/omptarget/omptarget.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/stream/stream_ops.h"

struct omptarget_stream {
    size_t n;
    enum pp_precision prec;
    void *a, *b, *c;  /* device arrays of n elements */
    void *partials;   /* device: one sum per dot block */
    void *host_parts; /* host copy of partials */
    size_t blocks;    /* dot blocks */
};

#define REAL      float
#define KERNEL(k) k##_fp32
#include "kernels/stream/omptarget_kernels.h"
#undef REAL
#undef KERNEL
#define REAL      double
#define KERNEL(k) k##_fp64
#include "kernels/stream/omptarget_kernels.h"
#undef REAL
#undef KERNEL

#define DISPATCH(x, k, ...)                                                                                  \
    ((x)->prec == PP_FP32 ? k##_fp32(ctx, x, ##__VA_ARGS__) : k##_fp64(ctx, x, ##__VA_ARGS__))

extern const struct pp_suite_impl omptarget_stream_impl;

static struct omptarget_stream *state(struct pp_ctx *ctx)
{
    return pp_suite_state_get(&ctx->suites, &omptarget_stream_impl);
}

/* The state of ctx for a kernel: NULL with err before the first alloc. */
static struct omptarget_stream *arrays(struct pp_ctx *ctx, struct pp_error *err)
{
    struct omptarget_stream *x = state(ctx);

    if (!x || !x->a)
        pp_error_set(err, "no arrays allocated (alloc first)");
    return x && x->a ? x : NULL;
}

static void stream_release(struct pp_ctx *ctx)
{
    struct omptarget_stream *x = state(ctx);

    if (!x)
        return;
    omptarget_free(ctx, x->a);
    omptarget_free(ctx, x->b);
    omptarget_free(ctx, x->c);
    omptarget_free(ctx, x->partials);
    free(x->host_parts);
    x->a = x->b = x->c = x->partials = x->host_parts = NULL;
    x->n = 0;
}

static void stream_free(struct pp_ctx *ctx)
{
    void **slot = pp_suite_state(&ctx->suites, &omptarget_stream_impl);

    stream_release(ctx);
    free(*slot);
    *slot = NULL;
}

static int stream_alloc(struct pp_ctx *ctx, size_t n, enum pp_precision prec, struct pp_stream_layout *layout,
                        struct pp_error *err)
{
    struct omptarget_stream *x = pp_suite_state_new(&ctx->suites, &omptarget_stream_impl, sizeof(*x));
    size_t elem = pp_precision_bytes(prec), bytes = n * elem;

    if (!x)
        return pp_error_set(err, "out of memory");
    stream_release(ctx);
    x->n = n;
    x->prec = prec;
    x->blocks = omptarget_blocks(ctx);
    if (x->blocks > n)
        x->blocks = n;
    if (!(x->a = omptarget_alloc(ctx, bytes, "array a", err)) ||
        !(x->b = omptarget_alloc(ctx, bytes, "array b", err)) ||
        !(x->c = omptarget_alloc(ctx, bytes, "array c", err)) ||
        !(x->partials = omptarget_alloc(ctx, x->blocks * elem, "dot partials", err))) {
        stream_release(ctx);
        return -1;
    }
    x->host_parts = malloc(x->blocks * elem);
    if (!x->host_parts) {
        stream_release(ctx);
        return pp_error_set(err, "out of memory");
    }
    memset(layout, 0, sizeof(*layout));
    layout->work_group = omptarget_threads(ctx, OMPT_SUITE_THREADS);
    layout->dot_groups = (unsigned)x->blocks;
    layout->dot_chain = (n + x->blocks - 1) / x->blocks + x->blocks;
    return 0;
}

static int stream_init(struct pp_ctx *ctx, double a, double b, double c, struct pp_error *err)
{
    struct omptarget_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    DISPATCH(x, init, a, b, c);
    return 0;
}

static int stream_read(struct pp_ctx *ctx, void *a, void *b, void *c, struct pp_error *err)
{
    struct omptarget_stream *x = arrays(ctx, err);
    size_t bytes;

    if (!x)
        return -1;
    bytes = x->n * pp_precision_bytes(x->prec);
    if (omptarget_to_host(ctx, a, x->a, bytes, err) || omptarget_to_host(ctx, b, x->b, bytes, err) ||
        omptarget_to_host(ctx, c, x->c, bytes, err))
        return -1;
    return 0;
}

static int stream_copy(struct pp_ctx *ctx, struct pp_error *err)
{
    struct omptarget_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    DISPATCH(x, copy);
    return 0;
}

static int stream_mul(struct pp_ctx *ctx, double s, struct pp_error *err)
{
    struct omptarget_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    DISPATCH(x, mul, s);
    return 0;
}

static int stream_add(struct pp_ctx *ctx, struct pp_error *err)
{
    struct omptarget_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    DISPATCH(x, add);
    return 0;
}

static int stream_triad(struct pp_ctx *ctx, double s, struct pp_error *err)
{
    struct omptarget_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    DISPATCH(x, triad, s);
    return 0;
}

static int stream_nstream(struct pp_ctx *ctx, double s, struct pp_error *err)
{
    struct omptarget_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    DISPATCH(x, nstream, s);
    return 0;
}

static int stream_dot(struct pp_ctx *ctx, double *sum, struct pp_error *err)
{
    struct omptarget_stream *x = arrays(ctx, err);

    if (!x)
        return -1;
    return x->prec == PP_FP32 ? dot_fp32(ctx, x, sum, err) : dot_fp64(ctx, x, sum, err);
}

static void stream_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    struct omptarget_stream *x = state(ctx);

    if (x && x->blocks)
        info_add(out, "omptarget.stream_dot_blocks", "%zu", x->blocks);
}

static const struct pp_stream_ops omptarget_stream_ops = {
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

PP_SUITE_IMPL(omptarget, stream) = {
    .suite = "stream",
    .ops = &omptarget_stream_ops,
    .release = stream_free,
    .describe = stream_describe,
};
