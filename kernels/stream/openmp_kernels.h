/*
 * stream_kernels: the OpenMP STREAM kernels, written once and instantiated per precision by stream.c, which
 * defines REAL (the element type) and KERNEL(name) (the function name for that type) before including it.
 * Every loop uses the same static schedule as the first-touch init, so each thread works on the pages it
 * placed in its own NUMA node.
 */

static void KERNEL(init)(struct openmp_stream *x, double va, double vb, double vc)
{
    REAL *restrict a = x->a, *restrict b = x->b, *restrict c = x->c;
    const REAL ra = (REAL)va, rb = (REAL)vb, rc = (REAL)vc;
    const size_t n = x->n;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        a[i] = ra;
        b[i] = rb;
        c[i] = rc;
    }
}

static void KERNEL(copy)(struct openmp_stream *x)
{
    const REAL *restrict a = x->a;
    REAL *restrict c = x->c;
    const size_t n = x->n;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        c[i] = a[i];
}

static void KERNEL(mul)(struct openmp_stream *x, REAL s)
{
    REAL *restrict b = x->b;
    const REAL *restrict c = x->c;
    const size_t n = x->n;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        b[i] = s * c[i];
}

static void KERNEL(add)(struct openmp_stream *x)
{
    const REAL *restrict a = x->a, *restrict b = x->b;
    REAL *restrict c = x->c;
    const size_t n = x->n;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

static void KERNEL(triad)(struct openmp_stream *x, REAL s)
{
    REAL *restrict a = x->a;
    const REAL *restrict b = x->b, *restrict c = x->c;
    const size_t n = x->n;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

static void KERNEL(nstream)(struct openmp_stream *x, REAL s)
{
    REAL *restrict a = x->a;
    const REAL *restrict b = x->b, *restrict c = x->c;
    const size_t n = x->n;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        a[i] += b[i] + s * c[i];
}

static REAL KERNEL(dot)(struct openmp_stream *x)
{
    const REAL *restrict a = x->a, *restrict b = x->b;
    const size_t n = x->n;
    REAL sum = 0;
    /* simd: each thread keeps vector-lane partial sums, so the adds do not wait on one another. */
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
    for (size_t i = 0; i < n; i++)
        sum += a[i] * b[i];
    return sum;
}
