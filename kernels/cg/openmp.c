/*
 * openmp/cg: the CG suite's kernels (paper 002: AXPBY, DOT, SPMV) on the host through OpenMP, as
 * openmp_cg_ops registered with PP_SUITE_IMPL. Its state (struct omp_cg: the matrix and vectors, allocated
 * page aligned in alloc) is private to this file and lives in the context's suite slot until release or
 * close. Runs on the caller's thread, which forks the OpenMP team per call; every call returns when the loop
 * has joined, so it is blocking.
 */
#include "kernels/openmp/openmp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cg/cg_ops.h"

struct omp_cg {
    size_t rows, nnz;
    enum pp_precision prec;
    unsigned rows_per_group; /* SPMV chunk; 0: one contiguous share per thread */
    uint32_t *row_ptr, *col;
    void *val;
    void *vec[PP_CG_NVECTORS];
};

#define REAL      float
#define KERNEL(k) k##_fp32
#include "kernels/cg/openmp_kernels.h"
#undef REAL
#undef KERNEL
#define REAL      double
#define KERNEL(k) k##_fp64
#include "kernels/cg/openmp_kernels.h"
#undef REAL
#undef KERNEL

extern const struct pp_suite_impl openmp_cg_impl;

static struct omp_cg **slot(struct pp_ctx *ctx)
{
    return (struct omp_cg **)pp_suite_state(&ctx->suites, &openmp_cg_impl);
}

static int state(struct pp_ctx *ctx, struct omp_cg **out, struct pp_error *err)
{
    *out = *slot(ctx);
    return *out ? 0 : pp_error_set(err, "cg: no matrix allocated (alloc first)");
}

static void cg_release(struct pp_ctx *ctx)
{
    struct omp_cg **sp = slot(ctx), *s = *sp;

    if (!s)
        return;
    free(s->row_ptr);
    free(s->col);
    free(s->val);
    for (int v = 0; v < PP_CG_NVECTORS; v++)
        free(s->vec[v]);
    free(s);
    *sp = NULL;
}

static int cg_alloc(struct pp_ctx *ctx, size_t rows, size_t nnz, enum pp_precision prec,
                    struct pp_cg_variant *variant, struct pp_error *err)
{
    const size_t elem = pp_precision_bytes(prec);
    struct omp_cg *s;

    cg_release(ctx);
    if (variant->spmv != PP_CG_SPMV_NATIVE)
        return pp_error_set(err, "unsupported: spmv_variant %d on openmp", (int)variant->spmv);
    if (variant->items_per_row > 1)
        return pp_error_set(err, "items_per_row must be 1 on openmp, got %u", variant->items_per_row);
    if (!(s = calloc(1, sizeof(*s))))
        return pp_error_set(err, "out of memory");
    *slot(ctx) = s;
    s->rows = rows;
    s->nnz = nnz;
    s->prec = prec;
    s->rows_per_group = variant->rows_per_group;
    s->row_ptr = openmp_alloc_pages((rows + 1) * sizeof(uint32_t));
    s->col = openmp_alloc_pages(nnz * sizeof(uint32_t));
    s->val = openmp_alloc_pages(nnz * elem);
    for (int v = 0; v < PP_CG_NVECTORS; v++)
        if (!(s->vec[v] = openmp_alloc_pages(rows * elem)))
            break;
    if (!s->row_ptr || !s->col || !s->val || !s->vec[PP_CG_NVECTORS - 1]) {
        cg_release(ctx);
        return pp_error_set(err, "cannot allocate a matrix of %zu rows and %zu entries and its vectors", rows,
                            nnz);
    }
    variant->items_per_row = 1;
    variant->work_group = 0;
    variant->vector_group = 0;
    variant->threads = (unsigned)ctx->threads;
    variant->dot_groups = (unsigned)ctx->threads;
    variant->dot_chain = (rows + (size_t)ctx->threads - 1) / (size_t)ctx->threads + (size_t)ctx->threads;
    return 0;
}

static int cg_upload_matrix(struct pp_ctx *ctx, const uint32_t *row_ptr, const uint32_t *col,
                            const double *val, struct pp_error *err)
{
    struct omp_cg *s;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP32)
        upload_matrix_fp32(s, row_ptr, col, val);
    else
        upload_matrix_fp64(s, row_ptr, col, val);
    return 0;
}

static int cg_upload(struct pp_ctx *ctx, enum pp_cg_vector v, const double *x, struct pp_error *err)
{
    struct omp_cg *s;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP32)
        upload_fp32(s, s->vec[v], x);
    else
        upload_fp64(s, s->vec[v], x);
    return 0;
}

static int cg_fill(struct pp_ctx *ctx, enum pp_cg_vector v, double value, struct pp_error *err)
{
    struct omp_cg *s;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP32)
        fill_fp32(s, s->vec[v], (float)value);
    else
        fill_fp64(s, s->vec[v], value);
    return 0;
}

static int cg_download(struct pp_ctx *ctx, enum pp_cg_vector v, double *x, struct pp_error *err)
{
    struct omp_cg *s;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP32) {
        const float *f = s->vec[v];
        for (size_t i = 0; i < s->rows; i++)
            x[i] = f[i];
    } else {
        memcpy(x, s->vec[v], s->rows * sizeof(double));
    }
    return 0;
}

static int cg_axpby(struct pp_ctx *ctx, enum pp_cg_vector z, double alpha, enum pp_cg_vector x, double beta,
                    enum pp_cg_vector y, struct pp_error *err)
{
    struct omp_cg *s;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP32)
        axpby_fp32(s, s->vec[z], (float)alpha, s->vec[x], (float)beta, s->vec[y]);
    else
        axpby_fp64(s, s->vec[z], alpha, s->vec[x], beta, s->vec[y]);
    return 0;
}

static int cg_dot(struct pp_ctx *ctx, enum pp_cg_vector x, enum pp_cg_vector y, double *sum,
                  struct pp_error *err)
{
    struct omp_cg *s;

    if (state(ctx, &s, err))
        return -1;
    *sum = s->prec == PP_FP32 ? (double)dot_fp32(s, s->vec[x], s->vec[y]) : dot_fp64(s, s->vec[x], s->vec[y]);
    return 0;
}

static int cg_spmv(struct pp_ctx *ctx, enum pp_cg_vector y, enum pp_cg_vector x, struct pp_error *err)
{
    struct omp_cg *s;

    if (state(ctx, &s, err))
        return -1;
    if (x == y)
        return pp_error_set(err, "spmv: y must not be x");
    if (s->prec == PP_FP32)
        spmv_fp32(s, s->vec[x], s->vec[y]);
    else
        spmv_fp64(s, s->vec[x], s->vec[y]);
    return 0;
}

static void cg_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    struct omp_cg *s = *slot(ctx);

    if (s)
        info_add(out, "openmp.cg_spmv_schedule", s->rows_per_group ? "static,%u" : "static%.0u",
                 s->rows_per_group);
}

static const struct pp_cg_ops openmp_cg_ops = {
    .spmv_variants = 1u << PP_CG_SPMV_NATIVE,
    .alloc = cg_alloc,
    .upload_matrix = cg_upload_matrix,
    .upload = cg_upload,
    .fill = cg_fill,
    .download = cg_download,
    .axpby = cg_axpby,
    .dot = cg_dot,
    .spmv = cg_spmv,
    .release = cg_release,
};

PP_SUITE_IMPL(openmp, cg) = {
    .suite = "cg",
    .ops = &openmp_cg_ops,
    .release = cg_release,
    .describe = cg_describe,
};
