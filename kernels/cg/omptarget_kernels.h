/*
 * omptarget_kernels: the OpenMP-target CG kernels, written once and instantiated per precision by
 * kernels/cg/omptarget.c, which defines REAL (the element type) and KERNEL(name) before including it. Every
 * loop is a target region on the context's device (OMPT_FOR, OMPT_TEAMS_FOR: kernels/omptarget/omptarget.h)
 * over device pointers.
 */

/* y = A x. The entries of a row are summed in order by one lane, or split over the simd lanes. */
static void KERNEL(spmv)(struct pp_ctx *ctx, const struct omptarget_cg *s, const REAL *x, REAL *y)
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
        OMPT_FOR(
            ctx, is_device_ptr(row_ptr, col, val, x, y) dist_schedule(static, chunk),
            for (size_t i = 0; i < rows; i++) {
                REAL sum = 0;
                for (uint32_t e = row_ptr[i]; e < row_ptr[i + 1]; e++)
                    sum += val[e] * x[col[e]];
                y[i] = sum;
            });
        return;
    }
    OMPT_FOR(
        ctx, is_device_ptr(row_ptr, col, val, x, y), for (size_t i = 0; i < rows; i++) {
            REAL sum = 0;
            for (uint32_t e = row_ptr[i]; e < row_ptr[i + 1]; e++)
                sum += val[e] * x[col[e]];
            y[i] = sum;
        });
}

/* z = alpha x + beta y; z may be x or y. */
static void KERNEL(axpby)(struct pp_ctx *ctx, const struct omptarget_cg *s, REAL *z, REAL alpha,
                          const REAL *x, REAL beta, const REAL *y)
{
    const size_t n = s->rows;

    OMPT_FOR(ctx, is_device_ptr(z, x, y), for (size_t i = 0; i < n; i++) z[i] = alpha * x[i] + beta * y[i];);
}

static void KERNEL(fill)(struct pp_ctx *ctx, const struct omptarget_cg *s, REAL *v, REAL value)
{
    const size_t n = s->rows;

    OMPT_FOR(ctx, is_device_ptr(v), for (size_t i = 0; i < n; i++) v[i] = value;);
}

/* One sum per block of ceil(rows / blocks) elements on the device, the blocks' sums added here in REAL. */
static int KERNEL(dot)(struct pp_ctx *ctx, struct omptarget_cg *s, const REAL *x, const REAL *y, double *sum,
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
