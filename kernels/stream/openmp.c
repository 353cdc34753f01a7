/*
 * openmp/stream: STREAM on the host through OpenMP. Owns the three arrays of its context (allocated page
 * aligned in alloc, freed in release). Runs on the caller's thread, which forks the OpenMP team per kernel;
 * each kernel returns when its parallel loop has joined, so every call is blocking.
 */
#include "kernels/openmp/openmp.h"

#include <stdlib.h>
#include <string.h>

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

static void openmp_release(struct pp_ctx *x)
{
    free(x->a);
    free(x->b);
    free(x->c);
    x->a = x->b = x->c = NULL;
    x->n = 0;
}

static int openmp_alloc(struct pp_ctx *x, size_t n, enum pp_precision prec, struct pp_stream_layout *layout,
                        struct pp_error *err)
{
    size_t bytes = n * pp_precision_bytes(prec);

    openmp_release(x);
    x->n = n;
    x->prec = prec;
    x->a = openmp_alloc_pages(bytes);
    x->b = openmp_alloc_pages(bytes);
    x->c = openmp_alloc_pages(bytes);
    if (!x->a || !x->b || !x->c) {
        openmp_release(x);
        return pp_error_set(err, "cannot allocate 3 arrays of %zu bytes", bytes);
    }
    memset(layout, 0, sizeof(*layout));
    layout->dot_groups = (unsigned)x->threads;
    layout->dot_chain = (n + (size_t)x->threads - 1) / (size_t)x->threads + (size_t)x->threads;
    return 0;
}

static int openmp_init(struct pp_ctx *x, double a, double b, double c, struct pp_error *err)
{
    (void)err;
    DISPATCH(x, init, a, b, c);
    return 0;
}

static int openmp_read(struct pp_ctx *x, void *a, void *b, void *c, struct pp_error *err)
{
    size_t bytes = x->n * pp_precision_bytes(x->prec);

    (void)err;
    memcpy(a, x->a, bytes);
    memcpy(b, x->b, bytes);
    memcpy(c, x->c, bytes);
    return 0;
}

static int openmp_copy(struct pp_ctx *x, struct pp_error *err)
{
    (void)err;
    DISPATCH(x, copy);
    return 0;
}

static int openmp_mul(struct pp_ctx *x, double s, struct pp_error *err)
{
    (void)err;
    DISPATCH(x, mul, s);
    return 0;
}

static int openmp_add(struct pp_ctx *x, struct pp_error *err)
{
    (void)err;
    DISPATCH(x, add);
    return 0;
}

static int openmp_triad(struct pp_ctx *x, double s, struct pp_error *err)
{
    (void)err;
    DISPATCH(x, triad, s);
    return 0;
}

static int openmp_nstream(struct pp_ctx *x, double s, struct pp_error *err)
{
    (void)err;
    DISPATCH(x, nstream, s);
    return 0;
}

static int openmp_dot(struct pp_ctx *x, double *sum, struct pp_error *err)
{
    (void)err;
    *sum = x->prec == PP_FP32 ? (double)dot_fp32(x) : dot_fp64(x);
    return 0;
}

const struct pp_stream_ops openmp_stream_ops = {
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
