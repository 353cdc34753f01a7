/*
 * openmp_kernels: the STREAM kernels of both OpenMP models (kernels/stream/openmp.c, kernels/openmp/body.h),
 * written once over REAL and KERNEL(name) and instantiated per precision (kernels/precisions.h). Each loop is
 * OMB_FOR: on the host the same static schedule as the first-touch init, so each thread works on the pages it
 * placed in its own NUMA node; on the device BabelStream's `target teams distribute parallel for simd` over
 * the device arrays (OMPStream.cpp, OMP_TARGET_GPU). Indices are size_t: n * sizeof(REAL) may exceed 2^31.
 *
 * Host only, two forms of each kernel that writes an array (x->stores): temporal, the plain loop (what gcc
 * makes of McCalpin's and BabelStream's: each written cache line is first read for ownership, so triad moves
 * four arrays' worth of lines for the three it is credited with), and streaming: each thread takes its
 * schedule(static) share (openmp_share), stores the 16-byte-aligned middle of it with SSE2 non-temporal
 * stores (movntdq: whole lines go to memory through the write-combining buffers, nothing is read for them),
 * the unaligned ends with plain stores, and fences its stores (sfence) before the loop's closing barrier.
 * The dots differ by model: the host's one reduction over the team, the device's blocks (openmp.c).
 */

static void KERNEL(init)(struct pp_ctx *ctx, struct omb_stream *x, double va, double vb, double vc)
{
    REAL *OMB_RESTRICT a = x->a, *OMB_RESTRICT b = x->b, *OMB_RESTRICT c = x->c;
    const REAL ra = (REAL)va, rb = (REAL)vb, rc = (REAL)vc;
    const size_t n = x->n;

    OMB_FOR(
        ctx, is_device_ptr(a, b, c), for (size_t i = 0; i < n; i++) {
            a[i] = ra;
            b[i] = rb;
            c[i] = rc;
        });
}

/* The two forms are the variants temporal and streaming (variant regions, kernels/backend.h): a kernel runs
 * one of them, so each variant's line set holds its own form. */
#if OPENMP_STREAMING && PP_VARIANT_REGION(STREAMING)
/* 16 bytes of REAL, loaded from an aligned address with a plain C dereference. */
typedef REAL KERNEL(vec) __attribute__((vector_size(16)));
#define VEC(p) (*(const KERNEL(vec) *)(const void *)(p))
#define LANES  (16 / sizeof(REAL))

/* The streamed part [*v0, *v1) of [lo, hi): from the first element of dst on a 16-byte boundary, whole
 * vectors. All three arrays share their alignment (openmp_alloc_pages), so the loads of the same elements are
 * aligned too. */
static void KERNEL(nt_split)(const REAL *dst, size_t lo, size_t hi, size_t *v0, size_t *v1)
{
    size_t i = lo;

    while (i < hi && ((uintptr_t)(dst + i) & 15))
        i++;
    *v0 = i;
    *v1 = i + (hi - i) / LANES * LANES;
}

static void KERNEL(copy_nt)(const REAL *restrict a, REAL *restrict c, size_t lo, size_t hi)
{
    size_t v0, v1;

    KERNEL(nt_split)(c, lo, hi, &v0, &v1);
    for (size_t i = lo; i < v0; i++)
        c[i] = a[i];
    for (size_t i = v0; i < v1; i += LANES)
        STREAM16(c + i, VEC(a + i));
    for (size_t i = v1; i < hi; i++)
        c[i] = a[i];
    _mm_sfence();
}

static void KERNEL(mul_nt)(REAL *restrict b, const REAL *restrict c, REAL s, size_t lo, size_t hi)
{
    size_t v0, v1;

    KERNEL(nt_split)(b, lo, hi, &v0, &v1);
    for (size_t i = lo; i < v0; i++)
        b[i] = s * c[i];
    for (size_t i = v0; i < v1; i += LANES)
        STREAM16(b + i, s * VEC(c + i));
    for (size_t i = v1; i < hi; i++)
        b[i] = s * c[i];
    _mm_sfence();
}

static void KERNEL(add_nt)(const REAL *restrict a, const REAL *restrict b, REAL *restrict c, size_t lo,
                           size_t hi)
{
    size_t v0, v1;

    KERNEL(nt_split)(c, lo, hi, &v0, &v1);
    for (size_t i = lo; i < v0; i++)
        c[i] = a[i] + b[i];
    for (size_t i = v0; i < v1; i += LANES)
        STREAM16(c + i, VEC(a + i) + VEC(b + i));
    for (size_t i = v1; i < hi; i++)
        c[i] = a[i] + b[i];
    _mm_sfence();
}

static void KERNEL(triad_nt)(REAL *restrict a, const REAL *restrict b, const REAL *restrict c, REAL s,
                             size_t lo, size_t hi)
{
    size_t v0, v1;

    KERNEL(nt_split)(a, lo, hi, &v0, &v1);
    for (size_t i = lo; i < v0; i++)
        a[i] = b[i] + s * c[i];
    for (size_t i = v0; i < v1; i += LANES)
        STREAM16(a + i, VEC(b + i) + s * VEC(c + i));
    for (size_t i = v1; i < hi; i++)
        a[i] = b[i] + s * c[i];
    _mm_sfence();
}

static void KERNEL(nstream_nt)(REAL *restrict a, const REAL *restrict b, const REAL *restrict c, REAL s,
                               size_t lo, size_t hi)
{
    size_t v0, v1;

    KERNEL(nt_split)(a, lo, hi, &v0, &v1);
    for (size_t i = lo; i < v0; i++)
        a[i] += b[i] + s * c[i];
    for (size_t i = v0; i < v1; i += LANES)
        STREAM16(a + i, VEC(a + i) + VEC(b + i) + s * VEC(c + i));
    for (size_t i = v1; i < hi; i++)
        a[i] += b[i] + s * c[i];
    _mm_sfence();
}
#undef VEC
#undef LANES

/* When x streams: KERNEL(name##_nt)(args..., lo, hi) on every thread's share, then return. */
#define STREAMED(x, name, ...)                                                                               \
    if ((x)->stores == PP_STORES_STREAMING) {                                                                \
        _Pragma("omp parallel")                                                                              \
        {                                                                                                    \
            size_t lo, hi;                                                                                   \
            openmp_share((x)->n, &lo, &hi);                                                                  \
            KERNEL(name##_nt)(__VA_ARGS__, lo, hi);                                                          \
        }                                                                                                    \
        return;                                                                                              \
    }
#else
#define STREAMED(x, name, ...)
#endif

static void KERNEL(copy)(struct pp_ctx *ctx, struct omb_stream *x)
{
    const REAL *OMB_RESTRICT a = x->a;
    REAL *OMB_RESTRICT c = x->c;
    const size_t n = x->n;
    STREAMED(x, copy, a, c)
#if !OPENMP_STREAMING || PP_VARIANT_REGION(TEMPORAL)
    OMB_FOR(ctx, is_device_ptr(a, c), for (size_t i = 0; i < n; i++) c[i] = a[i];);
#endif
}

static void KERNEL(mul)(struct pp_ctx *ctx, struct omb_stream *x, REAL s)
{
    REAL *OMB_RESTRICT b = x->b;
    const REAL *OMB_RESTRICT c = x->c;
    const size_t n = x->n;
    STREAMED(x, mul, b, c, s)
#if !OPENMP_STREAMING || PP_VARIANT_REGION(TEMPORAL)
    OMB_FOR(ctx, is_device_ptr(b, c), for (size_t i = 0; i < n; i++) b[i] = s * c[i];);
#endif
}

static void KERNEL(add)(struct pp_ctx *ctx, struct omb_stream *x)
{
    const REAL *OMB_RESTRICT a = x->a, *OMB_RESTRICT b = x->b;
    REAL *OMB_RESTRICT c = x->c;
    const size_t n = x->n;
    STREAMED(x, add, a, b, c)
#if !OPENMP_STREAMING || PP_VARIANT_REGION(TEMPORAL)
    OMB_FOR(ctx, is_device_ptr(a, b, c), for (size_t i = 0; i < n; i++) c[i] = a[i] + b[i];);
#endif
}

static void KERNEL(triad)(struct pp_ctx *ctx, struct omb_stream *x, REAL s)
{
    REAL *OMB_RESTRICT a = x->a;
    const REAL *OMB_RESTRICT b = x->b, *OMB_RESTRICT c = x->c;
    const size_t n = x->n;
    STREAMED(x, triad, a, b, c, s)
#if !OPENMP_STREAMING || PP_VARIANT_REGION(TEMPORAL)
    OMB_FOR(ctx, is_device_ptr(a, b, c), for (size_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];);
#endif
}

static void KERNEL(nstream)(struct pp_ctx *ctx, struct omb_stream *x, REAL s)
{
    REAL *OMB_RESTRICT a = x->a;
    const REAL *OMB_RESTRICT b = x->b, *OMB_RESTRICT c = x->c;
    const size_t n = x->n;
    STREAMED(x, nstream, a, b, c, s)
#if !OPENMP_STREAMING || PP_VARIANT_REGION(TEMPORAL)
    OMB_FOR(ctx, is_device_ptr(a, b, c), for (size_t i = 0; i < n; i++) a[i] += b[i] + s * c[i];);
#endif
}

#if OMB_TARGET
/* One sum per block of ceil(n / blocks) elements on the device, the blocks' sums added here in REAL. */
static int KERNEL(dot)(struct pp_ctx *ctx, struct omb_stream *x, double *sum, struct pp_error *err)
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
#else
static int KERNEL(dot)(struct pp_ctx *ctx, struct omb_stream *x, double *sum, struct pp_error *err)
{
    const REAL *restrict a = x->a, *restrict b = x->b;
    const size_t n = x->n;
    REAL s = 0;

    (void)ctx, (void)err;
    /* simd: each thread keeps vector-lane partial sums, so the adds do not wait on one another. */
#pragma omp parallel for simd schedule(static) reduction(+ : s)
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    *sum = (double)s;
    return 0;
}
#endif

#undef STREAMED
