/*
 * omptarget/cg: the CG suite's kernels (paper 002: AXPBY, DOT, SPMV) through OpenMP target offload, as
 * omptarget_cg_ops registered with PP_SUITE_IMPL. Matrix and vectors are device memory (omp_target_alloc,
 * is_device_ptr); every kernel is a synchronous target region on the context's device.
 *
 * SPMV, CRS: one row per simd lane (`target teams distribute parallel for simd` over rows, the entries of a
 * row summed in order) with the context's launch shape; rows_per_group deals rows to teams in chunks of that
 * many (dist_schedule(static, rows_per_group): the paper's rows per team); items_per_row 32 puts a row's
 * entries on the simd lanes instead (`target teams distribute parallel for` over rows, `simd reduction`
 * over entries: the paper's vector length). GCC's nvptx offload runs simd on a warp's 32 lanes, a width the
 * source cannot choose, so items_per_row is 1 or 32; other widths are refused as unsupported, and so is 32
 * on a GPU under clang's build, whose simd has one lane (OMPT_GPU_SIMD_LANES). The DOT is
 * the STREAM dot's: blocks summed by teams, the blocks' sums added on the host.
 *
 * Ownership: the state (struct omptarget_cg, private to this file) lives in the context's suite slot from
 * alloc until release or close. Threads: the context's thread.
 */
#include "kernels/omptarget/omptarget.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cg/cg_ops.h"

struct omptarget_cg {
    size_t rows, nnz;
    enum pp_precision prec;
    unsigned rows_per_group; /* dist_schedule chunk; 0: the runtime's split */
    unsigned items_per_row;  /* 1: a row per lane; 32: a row's entries over the lanes */
    size_t blocks;           /* DOT blocks */
    uint32_t *row_ptr, *col; /* device */
    void *val;               /* device */
    void *vec[PP_CG_NVECTORS];
    void *partials;   /* device: one sum per DOT block */
    void *host_parts; /* host copy of partials */
    void *staging;    /* host: rows (or nnz) elements for uploads and downloads */
};

#define REAL      float
#define KERNEL(k) k##_fp32
#include "kernels/cg/omptarget_kernels.h"
#undef REAL
#undef KERNEL
#define REAL      double
#define KERNEL(k) k##_fp64
#include "kernels/cg/omptarget_kernels.h"
#undef REAL
#undef KERNEL

extern const struct pp_suite_impl omptarget_cg_impl;

static struct omptarget_cg **slot(struct pp_ctx *ctx)
{
    return (struct omptarget_cg **)pp_suite_state(&ctx->suites, &omptarget_cg_impl);
}

static int state(struct pp_ctx *ctx, struct omptarget_cg **out, struct pp_error *err)
{
    *out = *slot(ctx);
    return *out ? 0 : pp_error_set(err, "cg: no matrix allocated (alloc first)");
}

static void cg_release(struct pp_ctx *ctx)
{
    struct omptarget_cg **sp = slot(ctx), *s = *sp;

    if (!s)
        return;
    omptarget_free(ctx, s->row_ptr);
    omptarget_free(ctx, s->col);
    omptarget_free(ctx, s->val);
    omptarget_free(ctx, s->partials);
    for (int v = 0; v < PP_CG_NVECTORS; v++)
        omptarget_free(ctx, s->vec[v]);
    free(s->host_parts);
    free(s->staging);
    free(s);
    *sp = NULL;
}

static int cg_alloc(struct pp_ctx *ctx, size_t rows, size_t nnz, enum pp_precision prec,
                    struct pp_cg_variant *variant, struct pp_error *err)
{
    const size_t elem = pp_precision_bytes(prec);
    struct omptarget_cg *s;

    cg_release(ctx);
    if (variant->spmv != PP_CG_SPMV_NATIVE)
        return pp_error_set(err, "unsupported: spmv_variant %d on omp-target", (int)variant->spmv);
    /* Host fallback takes 32 whatever the compiler, so CI runs that loop; on a GPU, 32 only where simd has
     * 32 lanes (GCC's build, not clang's). */
    if (variant->items_per_row > 1 &&
        (variant->items_per_row != 32 || (!ctx->host && OMPT_GPU_SIMD_LANES != 32)))
        return pp_error_set(err, "unsupported: items_per_row %u on omp-target (%s)", variant->items_per_row,
                            OMPT_GPU_SIMD_NOTE);
    if (!(s = calloc(1, sizeof(*s))))
        return pp_error_set(err, "out of memory");
    *slot(ctx) = s;
    s->rows = rows;
    s->nnz = nnz;
    s->prec = prec;
    s->rows_per_group = variant->rows_per_group;
    s->items_per_row = variant->items_per_row ? variant->items_per_row : 1;
    s->blocks = omptarget_blocks(ctx);
    if (s->blocks > rows)
        s->blocks = rows;
    if (!(s->row_ptr = omptarget_alloc(ctx, (rows + 1) * sizeof(uint32_t), "row offsets", err)) ||
        !(s->col = omptarget_alloc(ctx, nnz * sizeof(uint32_t), "column indices", err)) ||
        !(s->val = omptarget_alloc(ctx, nnz * elem, "matrix values", err)) ||
        !(s->partials = omptarget_alloc(ctx, s->blocks * elem, "dot partials", err)))
        goto fail;
    for (int v = 0; v < PP_CG_NVECTORS; v++)
        if (!(s->vec[v] = omptarget_alloc(ctx, rows * elem, "a vector", err)))
            goto fail;
    s->host_parts = malloc(s->blocks * elem);
    s->staging = malloc((nnz > rows ? nnz : rows) * elem);
    if (!s->host_parts || !s->staging) {
        pp_error_set(err, "out of memory");
        goto fail;
    }
    variant->items_per_row = s->items_per_row;
    variant->work_group = ctx->shape.threads;
    variant->vector_group = ctx->shape.threads;
    variant->threads = ctx->host ? (unsigned)ctx->sm_count : 0;
    variant->dot_groups = (unsigned)s->blocks;
    variant->dot_chain = (rows + s->blocks - 1) / s->blocks + s->blocks;
    return 0;
fail:
    cg_release(ctx);
    return -1;
}

/* n doubles into the staging buffer in the working precision. */
static void *narrow(struct omptarget_cg *s, const double *x, size_t n)
{
    if (s->prec == PP_FP64)
        return memcpy(s->staging, x, n * sizeof(double));
    for (size_t i = 0; i < n; i++)
        ((float *)s->staging)[i] = (float)x[i];
    return s->staging;
}

static int cg_upload_matrix(struct pp_ctx *ctx, const uint32_t *row_ptr, const uint32_t *col,
                            const double *val, struct pp_error *err)
{
    struct omptarget_cg *s;

    if (state(ctx, &s, err) ||
        omptarget_to_device(ctx, s->row_ptr, row_ptr, (s->rows + 1) * sizeof(uint32_t), err) ||
        omptarget_to_device(ctx, s->col, col, s->nnz * sizeof(uint32_t), err))
        return -1;
    return omptarget_to_device(ctx, s->val, narrow(s, val, s->nnz), s->nnz * pp_precision_bytes(s->prec),
                               err);
}

static int cg_upload(struct pp_ctx *ctx, enum pp_cg_vector v, const double *x, struct pp_error *err)
{
    struct omptarget_cg *s;

    if (state(ctx, &s, err))
        return -1;
    return omptarget_to_device(ctx, s->vec[v], narrow(s, x, s->rows), s->rows * pp_precision_bytes(s->prec),
                               err);
}

static int cg_fill(struct pp_ctx *ctx, enum pp_cg_vector v, double value, struct pp_error *err)
{
    struct omptarget_cg *s;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP32)
        fill_fp32(ctx, s, s->vec[v], (float)value);
    else
        fill_fp64(ctx, s, s->vec[v], value);
    return 0;
}

static int cg_download(struct pp_ctx *ctx, enum pp_cg_vector v, double *x, struct pp_error *err)
{
    struct omptarget_cg *s;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP64)
        return omptarget_to_host(ctx, x, s->vec[v], s->rows * sizeof(double), err);
    if (omptarget_to_host(ctx, s->staging, s->vec[v], s->rows * sizeof(float), err))
        return -1;
    for (size_t i = 0; i < s->rows; i++)
        x[i] = ((const float *)s->staging)[i];
    return 0;
}

static int cg_axpby(struct pp_ctx *ctx, enum pp_cg_vector z, double alpha, enum pp_cg_vector x, double beta,
                    enum pp_cg_vector y, struct pp_error *err)
{
    struct omptarget_cg *s;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP32)
        axpby_fp32(ctx, s, s->vec[z], (float)alpha, s->vec[x], (float)beta, s->vec[y]);
    else
        axpby_fp64(ctx, s, s->vec[z], alpha, s->vec[x], beta, s->vec[y]);
    return 0;
}

static int cg_dot(struct pp_ctx *ctx, enum pp_cg_vector x, enum pp_cg_vector y, double *sum,
                  struct pp_error *err)
{
    struct omptarget_cg *s;

    if (state(ctx, &s, err))
        return -1;
    return s->prec == PP_FP32 ? dot_fp32(ctx, s, s->vec[x], s->vec[y], sum, err)
                              : dot_fp64(ctx, s, s->vec[x], s->vec[y], sum, err);
}

static int cg_spmv(struct pp_ctx *ctx, enum pp_cg_vector y, enum pp_cg_vector x, struct pp_error *err)
{
    struct omptarget_cg *s;

    if (state(ctx, &s, err))
        return -1;
    if (x == y)
        return pp_error_set(err, "spmv: y must not be x");
    if (s->prec == PP_FP32)
        spmv_fp32(ctx, s, s->vec[x], s->vec[y]);
    else
        spmv_fp64(ctx, s, s->vec[x], s->vec[y]);
    return 0;
}

static void cg_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    struct omptarget_cg *s = *slot(ctx);

    if (!s)
        return;
    info_add(out, "omptarget.cg_spmv", "%s, dist_schedule %s%.0u",
             s->items_per_row > 1 ? "a row's entries over the simd lanes" : "a row per simd lane",
             s->rows_per_group ? "static," : "the runtime's", s->rows_per_group);
    info_add(out, "omptarget.cg_dot_blocks", "%zu", s->blocks);
}

static const struct pp_cg_ops omptarget_cg_ops = {
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

PP_SUITE_IMPL(omptarget, cg) = {
    .suite = "cg",
    .ops = &omptarget_cg_ops,
    .release = cg_release,
    .describe = cg_describe,
};
