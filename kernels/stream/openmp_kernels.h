/*
 * stream_kernels: the OpenMP STREAM kernels, written once and instantiated per precision by openmp.c, which
 * defines REAL (the element type) and KERNEL(name) (the function name for that type) before including it.
 * Every loop uses the same static schedule as the first-touch init, so each thread works on the pages it
 * placed in its own NUMA node.
 *
 * Two forms of each kernel that writes an array (x->stores): temporal, the plain loop (what gcc makes of
 * McCalpin's and BabelStream's: each written cache line is first read for ownership, so triad moves four
 * arrays' worth of lines for the three it is credited with), and streaming: each thread takes its
 * schedule(static) share (openmp_share), stores the 16-byte-aligned middle of it with SSE2 non-temporal
 * stores (movntdq: whole lines go to memory through the write-combining buffers, nothing is read for them),
 * the unaligned ends with plain stores, and fences its stores (sfence) before the loop's closing barrier.
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

#if OPENMP_STREAMING
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

static void KERNEL(copy)(struct openmp_stream *x)
{
    const REAL *restrict a = x->a;
    REAL *restrict c = x->c;
    const size_t n = x->n;
    STREAMED(x, copy, a, c)
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        c[i] = a[i];
}

static void KERNEL(mul)(struct openmp_stream *x, REAL s)
{
    REAL *restrict b = x->b;
    const REAL *restrict c = x->c;
    const size_t n = x->n;
    STREAMED(x, mul, b, c, s)
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        b[i] = s * c[i];
}

static void KERNEL(add)(struct openmp_stream *x)
{
    const REAL *restrict a = x->a, *restrict b = x->b;
    REAL *restrict c = x->c;
    const size_t n = x->n;
    STREAMED(x, add, a, b, c)
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

static void KERNEL(triad)(struct openmp_stream *x, REAL s)
{
    REAL *restrict a = x->a;
    const REAL *restrict b = x->b, *restrict c = x->c;
    const size_t n = x->n;
    STREAMED(x, triad, a, b, c, s)
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

static void KERNEL(nstream)(struct openmp_stream *x, REAL s)
{
    REAL *restrict a = x->a;
    const REAL *restrict b = x->b, *restrict c = x->c;
    const size_t n = x->n;
    STREAMED(x, nstream, a, b, c, s)
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

#undef STREAMED
