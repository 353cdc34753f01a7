/*
 * stream_ops: the STREAM suite's contract with the models: the kernels each model implements
 * (struct pp_stream_ops, in kernels/stream/<model>.c, registered with PP_SUITE_IMPL) and what a model reports
 * back. The driver (kernels/stream/stream.c) finds a model's table with pp_backend_ops(b, "stream").
 * C and C++ (the CUDA model includes it).
 */
#ifndef PP_STREAM_OPS_H
#define PP_STREAM_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"
#include "lib/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a CPU model stores the arrays its kernels write (the job's "stores"): through the caches (temporal,
 * what gcc compiles STREAM's loops to: each written line is first read for ownership) or with non-temporal
 * (streaming) stores that bypass them. AUTO: the model decides; GPU models have no such choice. */
enum pp_stream_stores { PP_STORES_AUTO, PP_STORES_TEMPORAL, PP_STORES_STREAMING };

/* What a backend chose for a STREAM run; stored with the result as the variant. */
struct pp_stream_layout {
    unsigned work_group; /* threads per block or work-group size; 0 for CPU loops */
    unsigned dot_groups; /* blocks, work-groups or threads that produce the dot's partial sums */
    uint64_t
        dot_chain; /* longest chain of sequential additions in the dot sum: sets its verification bound */
    /* In: the job's choice, set by the driver before alloc (AUTO unless the model offers the choice: the
     * suite table's choice_models). Out: what the openmp model used, never AUTO; the others leave it AUTO. */
    enum pp_stream_stores stores;
};

/* STREAM kernels (paper 004). Arrays a, b, c of n elements live in the context. All calls block. */
struct pp_stream_ops {
    int (*alloc)(struct pp_ctx *ctx, size_t n, enum pp_precision prec, struct pp_stream_layout *layout,
                 struct pp_error *err);
    int (*init)(struct pp_ctx *ctx, double a, double b, double c,
                struct pp_error *err); /* parallel first touch */
    int (*read)(struct pp_ctx *ctx, void *a, void *b, void *c,
                struct pp_error *err);                                       /* to host, n elements each */
    int (*copy)(struct pp_ctx *ctx, struct pp_error *err);                   /* c = a */
    int (*mul)(struct pp_ctx *ctx, double scalar, struct pp_error *err);     /* b = s c */
    int (*add)(struct pp_ctx *ctx, struct pp_error *err);                    /* c = a + b */
    int (*triad)(struct pp_ctx *ctx, double scalar, struct pp_error *err);   /* a = b + s c */
    int (*nstream)(struct pp_ctx *ctx, double scalar, struct pp_error *err); /* a += b + s c */
    int (*dot)(struct pp_ctx *ctx, double *sum,
               struct pp_error *err);    /* sum of a b in the precision, widened */
    void (*release)(struct pp_ctx *ctx); /* free the arrays; safe if none */
};

#ifdef __cplusplus
}
#endif

#endif
