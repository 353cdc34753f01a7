/*
 * openmp_kernels: the OpenMP CG kernels, written once and instantiated per precision by kernels/cg/openmp.c,
 * which defines REAL (the element type) and KERNEL(name) (the function name for that type) before including
 * it. Every loop over rows splits them as schedule(static) does (openmp_share), the split the first touch in
 * upload and fill used, so each thread works on the pages it placed; an SPMV with rows_per_group set deals
 * chunks of that many rows round robin instead (the paper's rows per team on a CPU).
 */

/* The rows [lo, hi) of y = A x: one row per iteration, its entries summed in order. */
static OPENMP_CLONES void KERNEL(spmv_rows)(const uint32_t *restrict row_ptr, const uint32_t *restrict col,
                                            const REAL *restrict val, const REAL *restrict x,
                                            REAL *restrict y, size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++) {
        REAL sum = 0;
        for (uint32_t e = row_ptr[i]; e < row_ptr[i + 1]; e++)
            sum += val[e] * x[col[e]];
        y[i] = sum;
    }
}

static void KERNEL(spmv)(const struct omp_cg *s, const REAL *x, REAL *y)
{
    const size_t rows = s->rows, chunk = s->rows_per_group;

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

static void KERNEL(axpby)(const struct omp_cg *s, REAL *z, REAL alpha, const REAL *x, REAL beta,
                          const REAL *y)
{
#pragma omp parallel
    {
        size_t lo, hi;
        openmp_share(s->rows, &lo, &hi);
        KERNEL(axpby_range)(z, alpha, x, beta, y, lo, hi);
    }
}

static REAL KERNEL(dot)(const struct omp_cg *s, const REAL *x, const REAL *y)
{
    const size_t n = s->rows;
    REAL sum = 0;
    /* simd: each thread keeps vector-lane partial sums, so the adds do not wait on one another. */
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
    for (size_t i = 0; i < n; i++)
        sum += x[i] * y[i];
    return sum;
}

static void KERNEL(fill)(const struct omp_cg *s, REAL *v, REAL value)
{
#pragma omp parallel
    {
        size_t lo, hi;
        openmp_share(s->rows, &lo, &hi);
        for (size_t i = lo; i < hi; i++)
            v[i] = value;
    }
}

static void KERNEL(upload)(const struct omp_cg *s, REAL *v, const double *x)
{
#pragma omp parallel
    {
        size_t lo, hi;
        openmp_share(s->rows, &lo, &hi);
        for (size_t i = lo; i < hi; i++)
            v[i] = (REAL)x[i];
    }
}

/* The matrix, each thread copying the rows the SPMV gives it (first touch). */
static void KERNEL(upload_matrix)(struct omp_cg *s, const uint32_t *row_ptr, const uint32_t *col,
                                  const double *val)
{
    REAL *v = s->val;

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
}
