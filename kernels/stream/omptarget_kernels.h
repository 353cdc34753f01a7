/*
 * omptarget_kernels: the OpenMP-target STREAM kernels, written once and instantiated per precision by
 * kernels/stream/omptarget.c, which defines REAL (the element type) and KERNEL(name) before including it.
 * The loops are BabelStream's (OMPStream.cpp, OMP_TARGET_GPU): one combined construct per kernel over the
 * device arrays; OMPT_FOR adds the device and the launch shape. Indices are size_t: n * sizeof(REAL) may
 * exceed 2^31.
 */

static void KERNEL(init)(struct pp_ctx *ctx, struct omptarget_stream *x, double va, double vb, double vc)
{
    REAL *a = x->a, *b = x->b, *c = x->c;
    const REAL ra = (REAL)va, rb = (REAL)vb, rc = (REAL)vc;
    const size_t n = x->n;

    OMPT_FOR(
        ctx, is_device_ptr(a, b, c), for (size_t i = 0; i < n; i++) {
            a[i] = ra;
            b[i] = rb;
            c[i] = rc;
        });
}

static void KERNEL(copy)(struct pp_ctx *ctx, struct omptarget_stream *x)
{
    const REAL *a = x->a;
    REAL *c = x->c;
    const size_t n = x->n;

    OMPT_FOR(ctx, is_device_ptr(a, c), for (size_t i = 0; i < n; i++) c[i] = a[i];);
}

static void KERNEL(mul)(struct pp_ctx *ctx, struct omptarget_stream *x, double scalar)
{
    REAL *b = x->b;
    const REAL *c = x->c, s = (REAL)scalar;
    const size_t n = x->n;

    OMPT_FOR(ctx, is_device_ptr(b, c), for (size_t i = 0; i < n; i++) b[i] = s * c[i];);
}

static void KERNEL(add)(struct pp_ctx *ctx, struct omptarget_stream *x)
{
    const REAL *a = x->a, *b = x->b;
    REAL *c = x->c;
    const size_t n = x->n;

    OMPT_FOR(ctx, is_device_ptr(a, b, c), for (size_t i = 0; i < n; i++) c[i] = a[i] + b[i];);
}

static void KERNEL(triad)(struct pp_ctx *ctx, struct omptarget_stream *x, double scalar)
{
    REAL *a = x->a;
    const REAL *b = x->b, *c = x->c, s = (REAL)scalar;
    const size_t n = x->n;

    OMPT_FOR(ctx, is_device_ptr(a, b, c), for (size_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];);
}

static void KERNEL(nstream)(struct pp_ctx *ctx, struct omptarget_stream *x, double scalar)
{
    REAL *a = x->a;
    const REAL *b = x->b, *c = x->c, s = (REAL)scalar;
    const size_t n = x->n;

    OMPT_FOR(ctx, is_device_ptr(a, b, c), for (size_t i = 0; i < n; i++) a[i] += b[i] + s * c[i];);
}

/* One sum per block of ceil(n / blocks) elements on the device, the blocks' sums added here in REAL. */
static int KERNEL(dot)(struct pp_ctx *ctx, struct omptarget_stream *x, double *sum, struct pp_error *err)
{
    const REAL *a = x->a, *b = x->b;
    REAL *part = x->partials, *host = x->host_parts, total = 0;
    const size_t n = x->n, nb = x->blocks, chunk = (n + nb - 1) / nb;

    OMPT_TEAMS_FOR(
        ctx, is_device_ptr(a, b, part), for (size_t t = 0; t < nb; t++) {
            const size_t lo = t * chunk, hi = lo + chunk < n ? lo + chunk : n;
            REAL s = 0;
            _Pragma("omp parallel for simd reduction(+ : s)") for (size_t i = lo; i < hi; i++) s +=
                a[i] * b[i];
            part[t] = s;
        });
    if (omptarget_to_host(ctx, host, part, nb * sizeof(REAL), err))
        return -1;
    for (size_t t = 0; t < nb; t++)
        total += host[t];
    *sum = (double)total;
    return 0;
}
