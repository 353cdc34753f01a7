/*
 * openmp_kernels: the CG kernels of both OpenMP models (kernels/cg/openmp.c, kernels/openmp/body.h), written
 * once over REAL and KERNEL(name) and instantiated per precision (kernels/precisions.h). A row of the SPMV is
 * SPMV_ROW in every form. The two builds launch differently, each as it was measured:
 *
 *   host: every loop over rows splits them as schedule(static) does (openmp_share), the split the first touch
 *   in upload and fill used, so each thread works on the pages it placed; an SPMV with rows_per_group set
 *   deals chunks of that many rows round robin instead (the paper's rows per team on a CPU); the hot loops
 *   are compiled per instruction set (OPENMP_CLONES); the DOT is one reduction over the team;
 *
 *   device: every loop is a target region on the context's device (OMPT_FOR, OMPT_TEAMS_FOR:
 *   kernels/omptarget/omptarget.h) over device pointers; uploads and downloads go through a host staging
 *   buffer in the working precision; the DOT sums blocks on the device and the blocks' sums on the host.
 */

/* Row i of y = A x, its entries summed in order. */
#define SPMV_ROW(row_ptr, col, val, x, y, i)                                                                 \
    do {                                                                                                     \
        REAL sum = 0;                                                                                        \
        for (uint32_t e = row_ptr[i]; e < row_ptr[i + 1]; e++)                                               \
            sum += val[e] * x[col[e]];                                                                       \
        y[i] = sum;                                                                                          \
    } while (0)

#if OMB_TARGET

/* y = A x. The entries of a row are summed in order by one lane, or split over the simd lanes. */
static void KERNEL(spmv)(struct pp_ctx *ctx, const struct omb_cg *s, const REAL *x, REAL *y)
{
    const uint32_t *row_ptr = s->row_ptr, *col = s->col;
    const REAL *val = s->val;
    const size_t rows = s->rows;
    const int chunk = (int)s->rows_per_group;

    if (s->items_per_row > 1) {
        OMPT_LOOP_(ctx, target teams distribute parallel for, is_device_ptr(row_ptr, col, val, x, y),
                   for (size_t i = 0; i < rows; i++) {
            REAL sum = 0;
            _Pragma("omp simd reduction(+ : sum)") for (uint32_t e = row_ptr[i]; e < row_ptr[i + 1]; e++)
                sum += val[e] * x[col[e]];
            y[i] = sum;
                   });
        return;
    }
    if (chunk) {
        OMPT_FOR(ctx, is_device_ptr(row_ptr, col, val, x, y) dist_schedule(static, chunk),
                 for (size_t i = 0; i < rows; i++) SPMV_ROW(row_ptr, col, val, x, y, i););
        return;
    }
    OMPT_FOR(ctx, is_device_ptr(row_ptr, col, val, x, y),
             for (size_t i = 0; i < rows; i++) SPMV_ROW(row_ptr, col, val, x, y, i););
}

/* z = alpha x + beta y; z may be x or y. */
static void KERNEL(axpby)(struct pp_ctx *ctx, const struct omb_cg *s, REAL *z, REAL alpha, const REAL *x,
                          REAL beta, const REAL *y)
{
    const size_t n = s->rows;

    OMPT_FOR(ctx, is_device_ptr(z, x, y), for (size_t i = 0; i < n; i++) z[i] = alpha * x[i] + beta * y[i];);
}

static void KERNEL(fill)(struct pp_ctx *ctx, const struct omb_cg *s, REAL *v, REAL value)
{
    const size_t n = s->rows;

    OMPT_FOR(ctx, is_device_ptr(v), for (size_t i = 0; i < n; i++) v[i] = value;);
}

/* One sum per block of ceil(rows / blocks) elements on the device, the blocks' sums added here in REAL. */
static int KERNEL(dot)(struct pp_ctx *ctx, struct omb_cg *s, const REAL *x, const REAL *y, double *sum,
                       struct pp_error *err)
{
    REAL *part = s->partials, *host = s->host_parts, total = 0;
    const size_t n = s->rows, nb = s->blocks, chunk = (n + nb - 1) / nb;

    OMPT_TEAMS_FOR(
        ctx, is_device_ptr(x, y, part), for (size_t t = 0; t < nb; t++) {
            const size_t lo = t * chunk, hi = lo + chunk < n ? lo + chunk : n;
            REAL acc = 0;
            _Pragma("omp parallel for simd reduction(+ : acc)") for (size_t i = lo; i < hi; i++) acc +=
                x[i] * y[i];
            part[t] = acc;
        });
    if (omptarget_to_host(ctx, host, part, nb * sizeof(REAL), err))
        return -1;
    for (size_t t = 0; t < nb; t++)
        total += host[t];
    *sum = (double)total;
    return 0;
}

/* n doubles into the staging buffer in REAL. */
static REAL *KERNEL(narrow)(struct omb_cg *s, const double *x, size_t n)
{
    REAL *staging = s->staging;

    for (size_t i = 0; i < n; i++)
        staging[i] = (REAL)x[i];
    return staging;
}

static int KERNEL(upload)(struct pp_ctx *ctx, struct omb_cg *s, REAL *v, const double *x,
                          struct pp_error *err)
{
    return omptarget_to_device(ctx, v, KERNEL(narrow)(s, x, s->rows), s->rows * sizeof(REAL), err);
}

static int KERNEL(upload_matrix)(struct pp_ctx *ctx, struct omb_cg *s, const uint32_t *row_ptr,
                                 const uint32_t *col, const double *val, struct pp_error *err)
{
    if (omptarget_to_device(ctx, s->row_ptr, row_ptr, (s->rows + 1) * sizeof(uint32_t), err) ||
        omptarget_to_device(ctx, s->col, col, s->nnz * sizeof(uint32_t), err))
        return -1;
    return omptarget_to_device(ctx, s->val, KERNEL(narrow)(s, val, s->nnz), s->nnz * sizeof(REAL), err);
}

static int KERNEL(download)(struct pp_ctx *ctx, struct omb_cg *s, const REAL *v, double *x,
                            struct pp_error *err)
{
    const REAL *staging = s->staging;

    if (omptarget_to_host(ctx, s->staging, v, s->rows * sizeof(REAL), err))
        return -1;
    for (size_t i = 0; i < s->rows; i++)
        x[i] = staging[i];
    return 0;
}

#else /* the host */

/* The rows [lo, hi) of y = A x: one row per iteration. */
static OPENMP_CLONES void KERNEL(spmv_rows)(const uint32_t *restrict row_ptr, const uint32_t *restrict col,
                                            const REAL *restrict val, const REAL *restrict x,
                                            REAL *restrict y, size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++)
        SPMV_ROW(row_ptr, col, val, x, y, i);
}

static void KERNEL(spmv)(struct pp_ctx *ctx, const struct omb_cg *s, const REAL *x, REAL *y)
{
    const size_t rows = s->rows, chunk = s->rows_per_group;

    (void)ctx;
    if (!chunk) {
#pragma omp parallel
        {
            size_t lo, hi;
            openmp_share(rows, &lo, &hi);
            KERNEL(spmv_rows)(s->row_ptr, s->col, s->val, x, y, lo, hi);
        }
        return;
    }
#pragma omp parallel for schedule(static, 1)
    for (size_t c = 0; c < (rows + chunk - 1) / chunk; c++)
        KERNEL(spmv_rows)
    (s->row_ptr, s->col, s->val, x, y, c * chunk, c * chunk + chunk < rows ? c * chunk + chunk : rows);
}

/* z = alpha x + beta y; z may be x or y (no restrict: the compiler checks the overlap). */
static OPENMP_CLONES void KERNEL(axpby_range)(REAL *z, REAL alpha, const REAL *x, REAL beta, const REAL *y,
                                              size_t lo, size_t hi)
{
#pragma omp simd
    for (size_t i = lo; i < hi; i++)
        z[i] = alpha * x[i] + beta * y[i];
}

static void KERNEL(axpby)(struct pp_ctx *ctx, const struct omb_cg *s, REAL *z, REAL alpha, const REAL *x,
                          REAL beta, const REAL *y)
{
    (void)ctx;
#pragma omp parallel
    {
        size_t lo, hi;
        openmp_share(s->rows, &lo, &hi);
        KERNEL(axpby_range)(z, alpha, x, beta, y, lo, hi);
    }
}

static int KERNEL(dot)(struct pp_ctx *ctx, struct omb_cg *s, const REAL *x, const REAL *y, double *out,
                       struct pp_error *err)
{
    const size_t n = s->rows;
    REAL sum = 0;

    (void)ctx, (void)err;
    /* simd: each thread keeps vector-lane partial sums, so the adds do not wait on one another. */
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
    for (size_t i = 0; i < n; i++)
        sum += x[i] * y[i];
    *out = (double)sum;
    return 0;
}

static void KERNEL(fill)(struct pp_ctx *ctx, const struct omb_cg *s, REAL *v, REAL value)
{
    (void)ctx;
#pragma omp parallel
    {
        size_t lo, hi;
        openmp_share(s->rows, &lo, &hi);
        for (size_t i = lo; i < hi; i++)
            v[i] = value;
    }
}

static int KERNEL(upload)(struct pp_ctx *ctx, struct omb_cg *s, REAL *v, const double *x,
                          struct pp_error *err)
{
    (void)ctx, (void)err;
#pragma omp parallel
    {
        size_t lo, hi;
        openmp_share(s->rows, &lo, &hi);
        for (size_t i = lo; i < hi; i++)
            v[i] = (REAL)x[i];
    }
    return 0;
}

/* The matrix, each thread copying the rows the SPMV gives it (first touch). */
static int KERNEL(upload_matrix)(struct pp_ctx *ctx, struct omb_cg *s, const uint32_t *row_ptr,
                                 const uint32_t *col, const double *val, struct pp_error *err)
{
    REAL *v = s->val;

    (void)ctx, (void)err;
#pragma omp parallel
    {
        size_t lo, hi;
        openmp_share(s->rows, &lo, &hi);
        for (size_t i = lo; i < hi; i++) {
            s->row_ptr[i] = row_ptr[i];
            for (uint32_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
                s->col[e] = col[e];
                v[e] = (REAL)val[e];
            }
        }
    }
    s->row_ptr[s->rows] = row_ptr[s->rows];
    return 0;
}

static int KERNEL(download)(struct pp_ctx *ctx, struct omb_cg *s, const REAL *v, double *x,
                            struct pp_error *err)
{
    (void)ctx, (void)err;
    for (size_t i = 0; i < s->rows; i++)
        x[i] = v[i];
    return 0;
}

#endif

#undef SPMV_ROW
