/*
 * opencl/cg: the CG suite's kernels (paper 002: AXPBY, DOT, SPMV) on an OpenCL device, as opencl_cg_ops
 * registered with PP_SUITE_IMPL; the sources are cg.cl. alloc builds the program for the precision and the
 * SPMV's work-items per row, creates the matrix, the vectors and the dot's partial sums; every call sets its
 * arguments, enqueues its kernel and waits (clFinish, or the dot's blocking read of the partials), so the
 * driver can time it with a host clock. The state (struct ocl_cg) is private to this file and lives in the
 * context's suite slot until release or close. One thread at a time, like the context.
 */
#include "kernels/opencl/opencl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cg/cg_ops.h"

OPENCL_SOURCE(cg);

/*
 * Defaults per device kind. GPUs: SPMV work-groups of 32 rows (the paper's rows per team) x 8 work-items per
 * row (a row's 27 entries in four rounds of contiguous loads), element-wise and dot work-groups of 256, four
 * dot work-groups per compute unit (as BabelStream). CPUs (PoCL): a work-group becomes one loop vectorised
 * across its work-items, so one work-item per row and long groups (the paper's CPU setting: team size and
 * vector length 1), two dot work-groups per hardware thread.
 */
#define SPMV_ROWS_GPU    32
#define SPMV_ITEMS_GPU   8
#define SPMV_ROWS_CPU    256
#define SPMV_ITEMS_CPU   1
#define VECTOR_GROUP_GPU 256
#define VECTOR_GROUP_CPU 1024
#define DOT_PER_CU_GPU   4
#define DOT_PER_CU_CPU   2

enum { K_FILL, K_AXPBY, K_DOT, K_SPMV, K_N };
static const char *const kernel_names[K_N] = {"cg_fill", "cg_axpby", "cg_dot", "cg_spmv"};

struct ocl_cg {
    cl_program program;
    cl_kernel kernels[K_N];
    cl_mem row_ptr, col, val, partials;
    cl_mem vec[PP_CG_NVECTORS];
    void *host_partials;
    size_t rows, nnz, elem;
    enum pp_precision prec;
    size_t spmv_group, spmv_global, vector_group, vector_global, dot_groups;
    char options[128];
};

PP_SUITE_SLOT(opencl, cg, struct ocl_cg, opencl_ctx(ctx)->suites, cg_release)

static int state(struct pp_ctx *ctx, struct ocl_cg **out, struct pp_error *err)
{
    *out = slot_get(ctx);
    return *out && (*out)->rows ? 0 : pp_error_set(err, "cg: no matrix allocated (alloc first)");
}

static int fail(struct pp_error *err, cl_int rc, const char *call, int k)
{
    char what[96];

    snprintf(what, sizeof(what), "%s(%s)", call, kernel_names[k]);
    return opencl_error(err, rc, what);
}

static void cg_release(struct pp_ctx *ctx)
{
    struct ocl_cg *s = slot_get(ctx);

    if (!s)
        return;
    for (int k = 0; k < K_N; k++)
        if (s->kernels[k])
            clReleaseKernel(s->kernels[k]);
    cl_mem mems[] = {s->row_ptr, s->col, s->val, s->partials};
    for (size_t i = 0; i < sizeof(mems) / sizeof(mems[0]); i++)
        if (mems[i])
            clReleaseMemObject(mems[i]);
    for (int v = 0; v < PP_CG_NVECTORS; v++)
        if (s->vec[v])
            clReleaseMemObject(s->vec[v]);
    if (s->program)
        clReleaseProgram(s->program);
    free(s->host_partials);
    memset((void *)s, 0, offsetof(struct ocl_cg, options)); /* the build options stay, for describe */
}

static size_t round_up(size_t n, size_t m)
{
    return (n + m - 1) / m * m;
}

static size_t kernel_limit(struct opencl_ctx *c, cl_kernel k)
{
    size_t v = 0;

    if (clGetKernelWorkGroupInfo(k, c->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(v), &v, NULL) !=
            CL_SUCCESS ||
        v == 0 || v > c->max_work_group)
        v = c->max_work_group;
    return v;
}

static int cg_alloc(struct pp_ctx *ctx, size_t rows, size_t nnz, enum pp_precision prec,
                    struct pp_cg_variant *variant, struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    const bool cpu = c->kind == PP_DEVICE_CPU;
    const size_t elem = pp_precision_bytes(prec);
    unsigned rpg = variant->rows_per_group, items = variant->items_per_row;
    size_t limit, per_lane;
    unsigned log2_wg = 0;
    struct ocl_cg *s;
    cl_int rc;

    cg_release(ctx);
    if (variant->spmv != PP_CG_SPMV_NATIVE)
        return pp_error_set(err, "unsupported: spmv_variant %d on opencl", (int)variant->spmv);
    if (prec == PP_FP64 && !c->fp64)
        return pp_error_set(err, "device %s does not support fp64", c->name);
    if (nnz > 0x7fffffffu || rows >= nnz + 1 + 0x7fffffffu)
        return pp_error_set(err, "cg: %zu entries exceed 32-bit offsets", nnz);
    if (c->max_alloc_bytes && nnz * elem > c->max_alloc_bytes)
        return pp_error_set(err,
                            "cg: the matrix values (%zu bytes) exceed the largest allocation of %s (%llu)",
                            nnz * elem, c->name, (unsigned long long)c->max_alloc_bytes);
    if (!rpg)
        rpg = cpu ? SPMV_ROWS_CPU : SPMV_ROWS_GPU;
    if (!items)
        items = cpu ? SPMV_ITEMS_CPU : SPMV_ITEMS_GPU;
    if (!(s = slot_new(ctx)))
        return pp_error_set(err, "out of memory");
    s->rows = rows;
    s->nnz = nnz;
    s->prec = prec;
    s->elem = elem;
    snprintf(s->options, sizeof(s->options), "-cl-std=CL1.2 -DREAL=%s -DITEMS=%u",
             prec == PP_FP64 ? "double -DPP_FP64" : "float", items);
    if (opencl_program_build(c, "cg", pp_cl_cg, s->options, &s->program, err))
        goto fail;
    for (int k = 0; k < K_N; k++)
        if (!(s->kernels[k] = clCreateKernel(s->program, kernel_names[k], &rc))) {
            fail(err, rc, "clCreateKernel", k);
            goto fail;
        }
    limit = kernel_limit(c, s->kernels[K_SPMV]);
    if ((size_t)rpg * items > limit) {
        pp_error_set(err,
                     "rows_per_group x items_per_row = %u x %u exceeds the %zu work-items of an SPMV "
                     "work-group on %s",
                     rpg, items, limit, c->name);
        goto fail;
    }
    s->spmv_group = (size_t)rpg * items;
    s->spmv_global = (rows + rpg - 1) / rpg * s->spmv_group;
    s->vector_group = cpu ? VECTOR_GROUP_CPU : VECTOR_GROUP_GPU;
    limit = kernel_limit(c, s->kernels[K_DOT]);
    if (kernel_limit(c, s->kernels[K_AXPBY]) < limit)
        limit = kernel_limit(c, s->kernels[K_AXPBY]);
    while (s->vector_group > limit || s->vector_group * elem > c->local_mem_bytes / 2)
        s->vector_group /= 2;
    s->vector_global = round_up(rows, s->vector_group);
    s->dot_groups = (size_t)c->compute_units * (cpu ? DOT_PER_CU_CPU : DOT_PER_CU_GPU);
    if (opencl_buffer_new(c, CL_MEM_READ_ONLY, (rows + 1) * 4, "row_ptr", &s->row_ptr, err) ||
        opencl_buffer_new(c, CL_MEM_READ_ONLY, nnz * 4, "col", &s->col, err) ||
        opencl_buffer_new(c, CL_MEM_READ_ONLY, nnz * elem, "val", &s->val, err) ||
        opencl_buffer_new(c, CL_MEM_READ_WRITE, s->dot_groups * elem, "partials", &s->partials, err))
        goto fail;
    for (int v = 0; v < PP_CG_NVECTORS; v++)
        if (opencl_buffer_new(c, CL_MEM_READ_WRITE, rows * elem, "vector", &s->vec[v], err))
            goto fail;
    if (!(s->host_partials = malloc(s->dot_groups * elem))) {
        pp_error_set(err, "out of memory");
        goto fail;
    }
    for (size_t w = s->vector_group; w > 1; w /= 2)
        log2_wg++;
    per_lane = (rows + s->dot_groups * s->vector_group - 1) / (s->dot_groups * s->vector_group);
    variant->rows_per_group = rpg;
    variant->items_per_row = items;
    variant->work_group = (unsigned)s->spmv_group;
    variant->vector_group = (unsigned)s->vector_group;
    variant->dot_groups = (unsigned)s->dot_groups;
    variant->dot_chain = per_lane + log2_wg + s->dot_groups;
    variant->threads = 0;
    return 0;
fail:
    cg_release(ctx);
    return -1;
}

/* Set kernel k's arguments: pairs of (size, pointer), NULL pointer for a local buffer. */
static int set_args(struct ocl_cg *s, int k, struct pp_error *err, unsigned nargs, const size_t *sizes,
                    const void *const *values)
{
    for (cl_uint i = 0; i < nargs; i++) {
        cl_int rc = clSetKernelArg(s->kernels[k], i, sizes[i], values[i]);
        if (rc != CL_SUCCESS)
            return fail(err, rc, "clSetKernelArg", k);
    }
    return 0;
}

static int run(struct opencl_ctx *c, struct ocl_cg *s, int k, size_t global, size_t local,
               struct pp_error *err)
{
    cl_int rc = clEnqueueNDRangeKernel(c->queue, s->kernels[k], 1, NULL, &global, &local, 0, NULL, NULL);

    if (rc != CL_SUCCESS)
        return fail(err, rc, "clEnqueueNDRangeKernel", k);
    rc = clFinish(c->queue);
    return rc == CL_SUCCESS ? 0 : fail(err, rc, "clFinish", k);
}

/* A REAL scalar in the working precision, as an argument value. */
union real {
    cl_float f;
    cl_double d;
};

static const void *real(struct ocl_cg *s, union real *r, double v)
{
    if (s->prec == PP_FP32)
        r->f = (cl_float)v;
    else
        r->d = v;
    return r;
}

static int write_buffer(struct opencl_ctx *c, cl_mem m, size_t bytes, const void *src, const char *what,
                        struct pp_error *err)
{
    cl_int rc = clEnqueueWriteBuffer(c->queue, m, CL_TRUE, 0, bytes, src, 0, NULL, NULL);

    return rc == CL_SUCCESS ? 0 : opencl_error(err, rc, what);
}

/* x in the working precision: a new buffer (the caller frees), or NULL when out of memory. */
static void *narrow(struct ocl_cg *s, const double *x, size_t len)
{
    void *out = malloc(len * s->elem);

    if (out && s->prec == PP_FP32)
        for (size_t i = 0; i < len; i++)
            ((float *)out)[i] = (float)x[i];
    else if (out)
        memcpy(out, x, len * sizeof(double));
    return out;
}

static int cg_upload_matrix(struct pp_ctx *ctx, const uint32_t *row_ptr, const uint32_t *col,
                            const double *val, struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct ocl_cg *s;
    void *v;
    int rc;

    if (state(ctx, &s, err))
        return -1;
    if (!(v = narrow(s, val, s->nnz)))
        return pp_error_set(err, "out of host memory");
    rc = write_buffer(c, s->row_ptr, (s->rows + 1) * 4, row_ptr, "clEnqueueWriteBuffer(row_ptr)", err) ||
         write_buffer(c, s->col, s->nnz * 4, col, "clEnqueueWriteBuffer(col)", err) ||
         write_buffer(c, s->val, s->nnz * s->elem, v, "clEnqueueWriteBuffer(val)", err);
    free(v);
    return rc ? -1 : 0;
}

static int cg_upload(struct pp_ctx *ctx, enum pp_cg_vector vec, const double *x, struct pp_error *err)
{
    struct ocl_cg *s;
    void *v;
    int rc;

    if (state(ctx, &s, err))
        return -1;
    if (!(v = narrow(s, x, s->rows)))
        return pp_error_set(err, "out of host memory");
    rc =
        write_buffer(opencl_ctx(ctx), s->vec[vec], s->rows * s->elem, v, "clEnqueueWriteBuffer(vector)", err);
    free(v);
    return rc;
}

static int cg_download(struct pp_ctx *ctx, enum pp_cg_vector vec, double *x, struct pp_error *err)
{
    struct ocl_cg *s;
    cl_int rc;

    if (state(ctx, &s, err))
        return -1;
    /* fp32 lands in the upper half of x, then widens from the front (element i reads i/2 bytes ahead) */
    void *dst = s->prec == PP_FP32 ? (void *)((char *)x + s->rows * 4) : (void *)x;
    rc = clEnqueueReadBuffer(opencl_ctx(ctx)->queue, s->vec[vec], CL_TRUE, 0, s->rows * s->elem, dst, 0, NULL,
                             NULL);
    if (rc != CL_SUCCESS)
        return opencl_error(err, rc, "clEnqueueReadBuffer(vector)");
    if (s->prec == PP_FP32) {
        const float *f = dst;
        for (size_t i = 0; i < s->rows; i++)
            x[i] = f[i];
    }
    return 0;
}

static int cg_fill(struct pp_ctx *ctx, enum pp_cg_vector v, double value, struct pp_error *err)
{
    struct ocl_cg *s;
    union real r;
    cl_uint n;

    if (state(ctx, &s, err))
        return -1;
    n = (cl_uint)s->rows;
    const size_t sizes[] = {sizeof(cl_mem), s->elem, sizeof(n)};
    const void *values[] = {&s->vec[v], real(s, &r, value), &n};
    if (set_args(s, K_FILL, err, 3, sizes, values))
        return -1;
    return run(opencl_ctx(ctx), s, K_FILL, s->vector_global, s->vector_group, err);
}

static int cg_axpby(struct pp_ctx *ctx, enum pp_cg_vector z, double alpha, enum pp_cg_vector x, double beta,
                    enum pp_cg_vector y, struct pp_error *err)
{
    struct ocl_cg *s;
    union real a, b;
    cl_uint n;

    if (state(ctx, &s, err))
        return -1;
    n = (cl_uint)s->rows;
    const size_t sizes[] = {sizeof(cl_mem), s->elem, sizeof(cl_mem), s->elem, sizeof(cl_mem), sizeof(n)};
    const void *values[] = {&s->vec[z], real(s, &a, alpha), &s->vec[x], real(s, &b, beta), &s->vec[y], &n};
    if (set_args(s, K_AXPBY, err, 6, sizes, values))
        return -1;
    return run(opencl_ctx(ctx), s, K_AXPBY, s->vector_global, s->vector_group, err);
}

/* Stage one on the device, a blocking read of the partials (the one wait), stage two on the host in the
 * working precision: timed together, as BabelStream's dot. */
static int cg_dot(struct pp_ctx *ctx, enum pp_cg_vector x, enum pp_cg_vector y, double *sum,
                  struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct ocl_cg *s;
    cl_uint n;
    cl_int rc;
    size_t global;

    if (state(ctx, &s, err))
        return -1;
    n = (cl_uint)s->rows;
    const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), s->vector_group * s->elem,
                            sizeof(n)};
    const void *values[] = {&s->vec[x], &s->vec[y], &s->partials, NULL, &n};
    if (set_args(s, K_DOT, err, 5, sizes, values))
        return -1;
    global = s->dot_groups * s->vector_group;
    rc = clEnqueueNDRangeKernel(c->queue, s->kernels[K_DOT], 1, NULL, &global, &s->vector_group, 0, NULL,
                                NULL);
    if (rc != CL_SUCCESS)
        return fail(err, rc, "clEnqueueNDRangeKernel", K_DOT);
    rc = clEnqueueReadBuffer(c->queue, s->partials, CL_TRUE, 0, s->dot_groups * s->elem, s->host_partials, 0,
                             NULL, NULL);
    if (rc != CL_SUCCESS)
        return fail(err, rc, "clEnqueueReadBuffer", K_DOT);
    if (s->prec == PP_FP32) {
        cl_float acc = 0;
        for (size_t g = 0; g < s->dot_groups; g++)
            acc += ((const cl_float *)s->host_partials)[g];
        *sum = acc;
    } else {
        cl_double acc = 0;
        for (size_t g = 0; g < s->dot_groups; g++)
            acc += ((const cl_double *)s->host_partials)[g];
        *sum = acc;
    }
    return 0;
}

static int cg_spmv(struct pp_ctx *ctx, enum pp_cg_vector y, enum pp_cg_vector x, struct pp_error *err)
{
    struct ocl_cg *s;
    cl_uint n;

    if (state(ctx, &s, err))
        return -1;
    if (x == y)
        return pp_error_set(err, "spmv: y must not be x");
    n = (cl_uint)s->rows;
    const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem),          sizeof(cl_mem), sizeof(cl_mem),
                            sizeof(cl_mem), s->spmv_group * s->elem, sizeof(n)};
    const void *values[] = {&s->row_ptr, &s->col, &s->val, &s->vec[x], &s->vec[y], NULL, &n};
    if (set_args(s, K_SPMV, err, 7, sizes, values))
        return -1;
    return run(opencl_ctx(ctx), s, K_SPMV, s->spmv_global, s->spmv_group, err);
}

static void cg_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    struct ocl_cg *s = slot_get(ctx);

    if (s)
        info_add(out, "opencl.cg_build_options", "%s", s->options);
}

static const struct pp_cg_ops opencl_cg_ops = {
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

PP_SUITE_IMPL(opencl, cg) = {
    .suite = "cg",
    .ops = &opencl_cg_ops,
    .release = slot_close,
    .describe = cg_describe,
};
