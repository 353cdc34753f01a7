/*
 * cg/openmp: the CG suite's kernels (paper 002: AXPBY, DOT, SPMV) through OpenMP, one file for both OpenMP
 * models (kernels/openmp/body.h): on the host (`openmp`: the team forked per call over page-aligned host
 * arrays) and, built with -DPP_OMP_TARGET, through target offload (`omp-target`: matrix and vectors in device
 * memory, every kernel a synchronous target region on the context's device). The kernels are
 * openmp_kernels.h, per precision (kernels/precisions.h); every call returns when its loop has joined or its
 * region has finished, so it is blocking.
 *
 * Host SPMV: a static split of the rows (the first touch's), or with rows_per_group chunks of that many dealt
 * round robin. Device SPMV, CRS: one row per simd lane (`target teams distribute parallel for simd` over
 * rows, the entries of a row summed in order) with the context's launch shape; rows_per_group deals rows to
 * teams in chunks of that many (dist_schedule(static, rows_per_group): the paper's rows per team);
 * items_per_row 32 puts a row's entries on the simd lanes instead (`target teams distribute parallel for`
 * over rows, `simd reduction` over entries: the paper's vector length). GCC's nvptx offload runs simd on a
 * warp's 32 lanes, a width the source cannot choose, so items_per_row is 1 or 32; other widths are refused
 * as unsupported, and so is 32 on a GPU under clang's build, whose simd has one lane (OMPT_GPU_SIMD_LANES).
 * The device DOT is the STREAM dot's: blocks summed by teams, the blocks' sums added on the host.
 *
 * Ownership: the state (struct omb_cg, private to this file) lives in the context's suite slot
 * (PP_SUITE_SLOT) from alloc until release or close. Threads: the context's thread.
 */
#include "kernels/openmp/body.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cg/cg_ops.h"

struct omb_cg {
    size_t rows, nnz;
    enum pp_precision prec;
    unsigned rows_per_group; /* SPMV chunk (host: round robin; device: dist_schedule); 0: the static split */
    uint32_t *row_ptr, *col; /* the model's memory (omb_alloc) */
    void *val;
    void *vec[PP_CG_NVECTORS];
#if OMB_TARGET
    unsigned items_per_row; /* 1: a row per lane; 32: a row's entries over the lanes */
    size_t blocks;          /* DOT blocks */
    void *partials;         /* device: one sum per DOT block */
    void *host_parts;       /* host copy of partials */
    void *staging;          /* host: rows (or nnz) elements for uploads and downloads */
#endif
};

#define PP_KERNELS "kernels/cg/openmp_kernels.h"
#include "kernels/precisions.h"

PP_SUITE_SLOT(OMB_MODEL, cg, struct omb_cg, ctx->suites, cg_free)

static int state(struct pp_ctx *ctx, struct omb_cg **out, struct pp_error *err)
{
    *out = slot_get(ctx);
    return *out && (*out)->val ? 0 : pp_error_set(err, "cg: no matrix allocated (alloc first)");
}

/* What alloc took; the state and its launch shape stay (describe reads them after the run) until close. */
static void cg_free(struct pp_ctx *ctx)
{
    struct omb_cg *s = slot_get(ctx);

    if (!s)
        return;
    omb_free(ctx, s->row_ptr);
    omb_free(ctx, s->col);
    omb_free(ctx, s->val);
    s->row_ptr = s->col = NULL;
    s->val = NULL;
    for (int v = 0; v < PP_CG_NVECTORS; v++) {
        omb_free(ctx, s->vec[v]);
        s->vec[v] = NULL;
    }
#if OMB_TARGET
    omb_free(ctx, s->partials);
    free(s->host_parts);
    free(s->staging);
    s->partials = s->host_parts = s->staging = NULL;
#endif
}

static int cg_alloc(struct pp_ctx *ctx, size_t rows, size_t nnz, enum pp_precision prec,
                    struct pp_cg_variant *variant, struct pp_error *err)
{
    const size_t elem = pp_precision_bytes(prec);
    struct omb_cg *s = slot_new(ctx);

    if (!s)
        return pp_error_set(err, "out of memory");
    cg_free(ctx);
    if (variant->spmv != PP_CG_SPMV_NATIVE)
        return pp_error_set(err, "unsupported: spmv_variant %d on %s", (int)variant->spmv,
                            OMB_TARGET ? "omp-target" : "openmp");
#if OMB_TARGET
    /* Host fallback takes 32 whatever the compiler, so CI runs that loop; on a GPU, 32 only where simd has
     * 32 lanes (GCC's build, not clang's). */
    if (variant->items_per_row > 1 &&
        (variant->items_per_row != 32 || (!ctx->host && OMPT_GPU_SIMD_LANES != 32)))
        return pp_error_set(err, "unsupported: items_per_row %u on omp-target (%s)", variant->items_per_row,
                            OMPT_GPU_SIMD_NOTE);
    s->items_per_row = variant->items_per_row ? variant->items_per_row : 1;
    s->blocks = omptarget_blocks(ctx);
    if (s->blocks > rows)
        s->blocks = rows;
#else
    if (variant->items_per_row > 1)
        return pp_error_set(err, "items_per_row must be 1 on openmp, got %u", variant->items_per_row);
#endif
    s->rows = rows;
    s->nnz = nnz;
    s->prec = prec;
    s->rows_per_group = variant->rows_per_group;
    if (!(s->row_ptr = omb_alloc(ctx, (rows + 1) * sizeof(uint32_t), "row offsets", err)) ||
        !(s->col = omb_alloc(ctx, nnz * sizeof(uint32_t), "column indices", err)) ||
        !(s->val = omb_alloc(ctx, nnz * elem, "matrix values", err)))
        goto fail;
    for (int v = 0; v < PP_CG_NVECTORS; v++)
        if (!(s->vec[v] = omb_alloc(ctx, rows * elem, "a vector", err)))
            goto fail;
#if OMB_TARGET
    if (!(s->partials = omb_alloc(ctx, s->blocks * elem, "dot partials", err)))
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
#else
    variant->items_per_row = 1;
    variant->work_group = 0;
    variant->vector_group = 0;
    variant->threads = (unsigned)ctx->threads;
    variant->dot_groups = (unsigned)ctx->threads;
    variant->dot_chain = (rows + (size_t)ctx->threads - 1) / (size_t)ctx->threads + (size_t)ctx->threads;
#endif
    return 0;
fail:
    cg_free(ctx);
    return -1;
}

static int cg_upload_matrix(struct pp_ctx *ctx, const uint32_t *row_ptr, const uint32_t *col,
                            const double *val, struct pp_error *err)
{
    struct omb_cg *s;

    if (state(ctx, &s, err))
        return -1;
    return PP_BY_PRECISION(s->prec, upload_matrix, ctx, s, row_ptr, col, val, err);
}

static int cg_upload(struct pp_ctx *ctx, enum pp_cg_vector v, const double *x, struct pp_error *err)
{
    struct omb_cg *s;

    if (state(ctx, &s, err))
        return -1;
    return PP_BY_PRECISION(s->prec, upload, ctx, s, s->vec[v], x, err);
}

static int cg_fill(struct pp_ctx *ctx, enum pp_cg_vector v, double value, struct pp_error *err)
{
    struct omb_cg *s;

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
    struct omb_cg *s;

    if (state(ctx, &s, err))
        return -1;
    return PP_BY_PRECISION(s->prec, download, ctx, s, s->vec[v], x, err);
}

static int cg_axpby(struct pp_ctx *ctx, enum pp_cg_vector z, double alpha, enum pp_cg_vector x, double beta,
                    enum pp_cg_vector y, struct pp_error *err)
{
    struct omb_cg *s;

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
    struct omb_cg *s;

    if (state(ctx, &s, err))
        return -1;
    return PP_BY_PRECISION(s->prec, dot, ctx, s, s->vec[x], s->vec[y], sum, err);
}

static int cg_spmv(struct pp_ctx *ctx, enum pp_cg_vector y, enum pp_cg_vector x, struct pp_error *err)
{
    struct omb_cg *s;

    if (state(ctx, &s, err))
        return -1;
    if (x == y)
        return pp_error_set(err, "spmv: y must not be x");
    PP_BY_PRECISION(s->prec, spmv, ctx, s, s->vec[x], s->vec[y]);
    return 0;
}

static void cg_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    struct omb_cg *s = slot_get(ctx);

    if (!s || !s->rows)
        return;
#if OMB_TARGET
    info_add(out, "omptarget.cg_spmv", "%s, dist_schedule %s%.0u",
             s->items_per_row > 1 ? "a row's entries over the simd lanes" : "a row per simd lane",
             s->rows_per_group ? "static," : "the runtime's", s->rows_per_group);
    info_add(out, "omptarget.cg_dot_blocks", "%zu", s->blocks);
#else
    info_add(out, "openmp.cg_spmv_schedule", s->rows_per_group ? "static,%u" : "static%.0u",
             s->rows_per_group);
#endif
}

static const struct pp_cg_ops cg_ops = {
    .spmv_variants = 1u << PP_CG_SPMV_NATIVE,
    .alloc = cg_alloc,
    .upload_matrix = cg_upload_matrix,
    .upload = cg_upload,
    .fill = cg_fill,
    .download = cg_download,
    .axpby = cg_axpby,
    .dot = cg_dot,
    .spmv = cg_spmv,
    .release = cg_free,
};

PP_SUITE_IMPL(OMB_MODEL, cg) = {
    .suite = "cg",
    .ops = &cg_ops,
    .release = slot_close,
    .describe = cg_describe,
};
