/*
 * openmp_kernels: the staggered Dslash strategies of both OpenMP models (kernels/staggered/openmp.c,
 * kernels/openmp/body.h), each written over REAL and KERNEL(name) and instantiated per precision
 * (kernels/precisions.h). The strategies are variants of their own (paper 001), each in the build that
 * offers it: the host's site and simd, the device's 1lp, 2lp and 3lp-3.
 *
 * Device (OMB_TARGET): one output site per iteration on the canonical arrays: the links of term t = 4 l + k
 * of site i at ((l n + i) 4 + k) 18, its neighbour nbr[t n + i]; 16 products of a 3x3 complex matrix and a
 * colour vector (66 flop), the first assigned, the next 7 added and the last 8 subtracted (6 flop each): 1146
 * flop. 1lp: sums in six named scalars, so they stay in registers; 2lp: three iterations per site, row i of
 * every product; 3lp-3: twelve per site, each adding its four terms with `omp atomic update`.
 *
 * Host: one term of one output site is a product p = M v of a 3x3 complex matrix M (row-major, its reals
 * `stride` apart) and the neighbour's colour vector v: 9 complex multiplications of 6 flop and 6 complex
 * additions of 2, 66 flop; the first term is assigned, the other 15 added (l = 0, 1) or subtracted (l = 2,
 * 3): 6 flop each, 1146 per site. Vectors are structs of six named reals, not arrays, so that the compiler
 * keeps them in registers (an array indexed in a loop inside `omp simd` becomes a scatter to memory). site:
 * one loop iteration per output site over the canonical arrays. simd: sites in blocks of STAG_BLOCK, each
 * block holding, for each of its 16 matrices and 18 reals, the STAG_BLOCK sites side by side (links[((b 16 +
 * t) 18
 * + e) STAG_BLOCK + lane], t = 4 l + k), likewise the neighbour table and the output; the loop over the lanes
 * of a block is `omp simd`, so one vector instruction works on consecutive sites with unit-stride link loads;
 * the neighbours' vectors are gathered.
 */

#if OMB_TARGET

/* Each strategy's loops sit in variant regions (kernels/backend.h): all are built, one runs. */
#if PP_VARIANT_REGION(1LP)
static void KERNEL(dslash_1lp)(struct pp_ctx *ctx, struct omb_staggered *st)
{
    const REAL *links = st->links, *vec = st->vec;
    const uint32_t *nbr = st->nbr;
    REAL *out = st->out;
    const unsigned n = (unsigned)st->n;

    OMPT_FOR(
        ctx, is_device_ptr(links, vec, nbr, out), for (unsigned i = 0; i < n; i++) {
            REAL r0 = 0, i0 = 0, r1 = 0, i1 = 0, r2 = 0, i2 = 0;
            for (unsigned t = 0; t < 16; t++) {
                const REAL *m = &links[(((size_t)(t / 4) * n + i) * 4 + t % 4) * 18];
                const size_t j = (size_t)nbr[(size_t)t * n + i] * 6;
                const REAL v0 = vec[j], v1 = vec[j + 1], v2 = vec[j + 2], v3 = vec[j + 3], v4 = vec[j + 4],
                           v5 = vec[j + 5];
                const REAL s = t < 8 ? 1 : -1;
                r0 += s * (m[0] * v0 - m[1] * v1 + m[2] * v2 - m[3] * v3 + m[4] * v4 - m[5] * v5);
                i0 += s * (m[0] * v1 + m[1] * v0 + m[2] * v3 + m[3] * v2 + m[4] * v5 + m[5] * v4);
                r1 += s * (m[6] * v0 - m[7] * v1 + m[8] * v2 - m[9] * v3 + m[10] * v4 - m[11] * v5);
                i1 += s * (m[6] * v1 + m[7] * v0 + m[8] * v3 + m[9] * v2 + m[10] * v5 + m[11] * v4);
                r2 += s * (m[12] * v0 - m[13] * v1 + m[14] * v2 - m[15] * v3 + m[16] * v4 - m[17] * v5);
                i2 += s * (m[12] * v1 + m[13] * v0 + m[14] * v3 + m[15] * v2 + m[16] * v5 + m[17] * v4);
            }
            out[(size_t)i * 6] = r0, out[(size_t)i * 6 + 1] = i0, out[(size_t)i * 6 + 2] = r1;
            out[(size_t)i * 6 + 3] = i1, out[(size_t)i * 6 + 4] = r2, out[(size_t)i * 6 + 5] = i2;
        });
}
#endif

#if PP_VARIANT_REGION(2LP) || PP_VARIANT_REGION(3LP_3)
/* Row i of term t's matrix times its neighbour's colour vector (22 flop): the work of one 2lp or 3lp-3 step.
 */
#pragma omp declare target
static inline void KERNEL(row)(const REAL *links, const REAL *vec, const uint32_t *nbr, unsigned n,
                               unsigned site, unsigned t, unsigned i, REAL *re, REAL *im)
{
    const REAL *m = &links[(((size_t)(t / 4) * n + site) * 4 + t % 4) * 18 + i * 6];
    const REAL *v = &vec[(size_t)nbr[(size_t)t * n + site] * 6];

    *re = m[0] * v[0] - m[1] * v[1] + m[2] * v[2] - m[3] * v[3] + m[4] * v[4] - m[5] * v[5];
    *im = m[0] * v[1] + m[1] * v[0] + m[2] * v[3] + m[3] * v[2] + m[4] * v[5] + m[5] * v[4];
}

/* *p += v atomically (a #pragma cannot sit in the loop macro's argument). */
static inline void KERNEL(atomic_add)(REAL *p, REAL v)
{
#pragma omp atomic update
    *p += v;
}
#pragma omp end declare target
#endif

#if PP_VARIANT_REGION(2LP)
/* 2lp: three iterations per site, row i of every term (the first 8 terms added, the last 8 subtracted). */
static void KERNEL(dslash_2lp)(struct pp_ctx *ctx, struct omb_staggered *st)
{
    const REAL *links = st->links, *vec = st->vec;
    const uint32_t *nbr = st->nbr;
    REAL *out = st->out;
    const unsigned n = (unsigned)st->n;

    OMPT_FOR(
        ctx, is_device_ptr(links, vec, nbr, out), for (unsigned g = 0; g < 3 * n; g++) {
            const unsigned site = g / 3, i = g % 3;
            REAL re = 0, im = 0;
            for (unsigned t = 0; t < 16; t++) {
                REAL pr, pi;
                KERNEL(row)(links, vec, nbr, n, site, t, i, &pr, &pi);
                re += t < 8 ? pr : -pr;
                im += t < 8 ? pi : -pi;
            }
            out[(size_t)site * 6 + 2 * i] = re;
            out[(size_t)site * 6 + 2 * i + 1] = im;
        });
}
#endif

#if PP_VARIANT_REGION(3LP_3)
/* 3lp-3: twelve iterations per site (row i, direction k; k-major: i fastest, i-major: k fastest), each adding
 * its four terms (l = 0..3) atomically into the output, which a loop of its own zeroes first: the end of that
 * target region is the OpenCL kernel's barrier. */
static void KERNEL(dslash_3lp3)(struct pp_ctx *ctx, struct omb_staggered *st)
{
    const REAL *links = st->links, *vec = st->vec;
    const uint32_t *nbr = st->nbr;
    REAL *out = st->out;
    const unsigned n = (unsigned)st->n, kmajor = st->order == PP_ORDER_K;

    OMPT_FOR(ctx, is_device_ptr(out), for (size_t e = 0; e < (size_t)n * 6; e++) out[e] = 0;);
    OMPT_FOR(
        ctx, is_device_ptr(links, vec, nbr, out), for (unsigned g = 0; g < 12 * n; g++) {
            const unsigned site = g / 12, i = kmajor ? g % 3 : g / 4 % 3, k = kmajor ? g / 3 % 4 : g % 4;
            for (unsigned l = 0; l < 4; l++) {
                REAL pr, pi;
                KERNEL(row)(links, vec, nbr, n, site, 4 * l + k, i, &pr, &pi);
                KERNEL(atomic_add)(&out[(size_t)site * 6 + 2 * i], l < 2 ? pr : -pr);
                KERNEL(atomic_add)(&out[(size_t)site * 6 + 2 * i + 1], l < 2 ? pi : -pi);
            }
        });
}
#endif

#else /* the host */

struct KERNEL(cvec) {
    REAL r0, i0, r1, i1, r2, i2;
};

#define M_(e) m[(size_t)(e)*stride]
#define ROW_RE(i)                                                                                            \
    (M_(6 * i) * v0 - M_(6 * i + 1) * v1 + M_(6 * i + 2) * v2 - M_(6 * i + 3) * v3 + M_(6 * i + 4) * v4 -    \
     M_(6 * i + 5) * v5)
#define ROW_IM(i)                                                                                            \
    (M_(6 * i) * v1 + M_(6 * i + 1) * v0 + M_(6 * i + 2) * v3 + M_(6 * i + 3) * v2 + M_(6 * i + 4) * v5 +    \
     M_(6 * i + 5) * v4)

/* M v with v = vec[j] */
static inline __attribute__((always_inline)) struct KERNEL(cvec)
    KERNEL(mul)(const REAL *restrict m, size_t stride, const REAL *restrict vec, size_t j)
{
    const REAL v0 = vec[6 * j], v1 = vec[6 * j + 1], v2 = vec[6 * j + 2];
    const REAL v3 = vec[6 * j + 3], v4 = vec[6 * j + 4], v5 = vec[6 * j + 5];
    struct KERNEL(cvec) p = {ROW_RE(0), ROW_IM(0), ROW_RE(1), ROW_IM(1), ROW_RE(2), ROW_IM(2)};

    return p;
}

#undef M_
#undef ROW_RE
#undef ROW_IM

/* acc + p, or acc - p; by value, so that no address of a vector is taken inside `omp simd` (that would make
 * it a per-lane array in memory) */
static inline __attribute__((always_inline)) struct KERNEL(cvec)
    KERNEL(add)(struct KERNEL(cvec) acc, struct KERNEL(cvec) p, int negative)
{
    if (negative) {
        acc.r0 -= p.r0, acc.i0 -= p.i0, acc.r1 -= p.r1;
        acc.i1 -= p.i1, acc.r2 -= p.r2, acc.i2 -= p.i2;
    } else {
        acc.r0 += p.r0, acc.i0 += p.i0, acc.r1 += p.r1;
        acc.i1 += p.i1, acc.r2 += p.r2, acc.i2 += p.i2;
    }
    return acc;
}

static inline __attribute__((always_inline)) void KERNEL(store)(REAL *restrict o, size_t stride,
                                                                struct KERNEL(cvec) acc)
{
    o[0] = acc.r0, o[stride] = acc.i0, o[2 * stride] = acc.r1;
    o[3 * stride] = acc.i1, o[4 * stride] = acc.r2, o[5 * stride] = acc.i2;
}

/* site and simd sit in variant regions (kernels/backend.h); the layout conversions serve both. */
#if PP_VARIANT_REGION(SITE)
/* Output sites [lo, hi) of the site strategy; compiled once per instruction set (OPENMP_CLONES). */
static OPENMP_CLONES void KERNEL(sites)(const REAL *restrict links, const REAL *restrict vec,
                                        const uint32_t *restrict nbr, REAL *restrict out, size_t n, size_t lo,
                                        size_t hi)
{
    for (size_t i = lo; i < hi; i++) {
        struct KERNEL(cvec) acc = KERNEL(mul)(&links[i * 72], 1, vec, nbr[i]);

        for (int t = 1; t < 16; t++) {
            const size_t l = (size_t)t / 4, k = (size_t)t % 4;
            const struct KERNEL(cvec) p =
                KERNEL(mul)(&links[((l * n + i) * 4 + k) * 18], 1, vec, nbr[(size_t)t * n + i]);
            acc = KERNEL(add)(acc, p, l >= 2);
        }
        KERNEL(store)(&out[i * 6], 1, acc);
    }
}

static void KERNEL(dslash_site)(struct pp_ctx *ctx, struct omb_staggered *x)
{
    (void)ctx;
#pragma omp parallel
    {
        size_t lo, hi;
        openmp_share(x->share, &lo, &hi);
        KERNEL(sites)(x->links, x->vec, x->nbr, x->out, x->n, lo, hi);
    }
}
#endif

#if PP_VARIANT_REGION(SIMD)
/* One term t of the lanes of a simd block: acc[.][lane] = p (mode 0), += p (mode 1) or -= p (mode 2), p = M
 * v. */
static inline __attribute__((always_inline)) void KERNEL(simd_term)(const REAL *restrict lt,
                                                                    const uint32_t *restrict nt,
                                                                    const REAL *restrict vec,
                                                                    REAL acc[6][STAG_BLOCK], int mode)
{
#pragma omp simd
    for (size_t lane = 0; lane < STAG_BLOCK; lane++) {
        const struct KERNEL(cvec) p = KERNEL(mul)(&lt[lane], STAG_BLOCK, vec, nt[lane]);
        if (mode == 0) {
            acc[0][lane] = p.r0, acc[1][lane] = p.i0, acc[2][lane] = p.r1;
            acc[3][lane] = p.i1, acc[4][lane] = p.r2, acc[5][lane] = p.i2;
        } else if (mode == 1) {
            acc[0][lane] += p.r0, acc[1][lane] += p.i0, acc[2][lane] += p.r1;
            acc[3][lane] += p.i1, acc[4][lane] += p.r2, acc[5][lane] += p.i2;
        } else {
            acc[0][lane] -= p.r0, acc[1][lane] -= p.i0, acc[2][lane] -= p.r1;
            acc[3][lane] -= p.i1, acc[4][lane] -= p.r2, acc[5][lane] -= p.i2;
        }
    }
}

/* Blocks [lo, hi) of the simd strategy, compiled once per instruction set (OPENMP_CLONES): the terms one
 * after the other, each a vector loop over the block's lanes; the block's partial sums stay in a small array
 * (L1) between terms. (All 16 terms inside one lane loop make GCC spill most of its registers.) */
static OPENMP_CLONES void KERNEL(blocks)(const REAL *restrict links, const REAL *restrict vec,
                                         const uint32_t *restrict nbr, REAL *restrict out, size_t lo,
                                         size_t hi)
{
    for (size_t b = lo; b < hi; b++) {
        const REAL *restrict lb = &links[b * 16 * 18 * STAG_BLOCK];
        const uint32_t *restrict nb = &nbr[b * 16 * STAG_BLOCK];
        REAL acc[6][STAG_BLOCK] __attribute__((aligned(64)));

        KERNEL(simd_term)(lb, nb, vec, acc, 0);
        for (size_t t = 1; t < 8; t++)
            KERNEL(simd_term)(&lb[t * 18 * STAG_BLOCK], &nb[t * STAG_BLOCK], vec, acc, 1);
        for (size_t t = 8; t < 16; t++)
            KERNEL(simd_term)(&lb[t * 18 * STAG_BLOCK], &nb[t * STAG_BLOCK], vec, acc, 2);
        memcpy(&out[b * 6 * STAG_BLOCK], acc, sizeof(acc));
    }
}

static void KERNEL(dslash_simd)(struct pp_ctx *ctx, struct omb_staggered *x)
{
    (void)ctx;
#pragma omp parallel
    {
        size_t lo, hi;
        openmp_share((x->share + STAG_BLOCK - 1) / STAG_BLOCK, &lo, &hi);
        KERNEL(blocks)(x->links, x->vec, x->nbr, x->out, lo, hi);
    }
}
#endif

/* Host canonical order (double) into the strategy's layout and precision, in parallel with the kernel's
 * schedule (first touch). Lanes past n in the last simd block get zero links and neighbour 0. */
static void KERNEL(upload)(struct omb_staggered *x, const double *links, const double *vec,
                           const uint32_t *nbr)
{
    REAL *restrict l_ = x->links, *restrict v_ = x->vec, *restrict o_ = x->out;
    uint32_t *restrict n_ = x->nbr;
    const size_t n = x->n, blocks = x->blocks;

    if (x->strategy == PP_STAG_SITE) {
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++) {
            for (int l = 0; l < 4; l++)
                for (int e = 0; e < 72; e++)
                    l_[((size_t)l * n + i) * 72 + (size_t)e] =
                        (REAL)links[((size_t)l * n + i) * 72 + (size_t)e];
            for (int t = 0; t < 16; t++)
                n_[(size_t)t * n + i] = nbr[(size_t)t * n + i];
            for (int c = 0; c < 6; c++) {
                v_[i * 6 + (size_t)c] = (REAL)vec[i * 6 + (size_t)c];
                o_[i * 6 + (size_t)c] = 0;
            }
        }
        return;
    }
#pragma omp parallel for schedule(static)
    for (size_t b = 0; b < blocks; b++)
        for (size_t lane = 0; lane < STAG_BLOCK; lane++) {
            const size_t i = b * STAG_BLOCK + lane;
            for (int t = 0; t < 16; t++) {
                const size_t l = (size_t)t / 4, k = (size_t)t % 4;
                for (int e = 0; e < 18; e++)
                    l_[((b * 16 + (size_t)t) * 18 + (size_t)e) * STAG_BLOCK + lane] =
                        i < n ? (REAL)links[((l * n + i) * 4 + k) * 18 + (size_t)e] : 0;
                n_[(b * 16 + (size_t)t) * STAG_BLOCK + lane] = i < n ? nbr[(size_t)t * n + i] : 0;
            }
            for (int c = 0; c < 6; c++) {
                if (i < n)
                    v_[i * 6 + (size_t)c] = (REAL)vec[i * 6 + (size_t)c];
                o_[(b * 6 + (size_t)c) * STAG_BLOCK + lane] = 0;
            }
        }
}

static void KERNEL(download)(struct omb_staggered *x, double *host)
{
    const REAL *restrict out = x->out;
    const size_t n = x->n;
    const int simd = x->strategy == PP_STAG_SIMD;

#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 6; c++)
            host[i * 6 + (size_t)c] =
                (double)(simd ? out[((i / STAG_BLOCK) * 6 + (size_t)c) * STAG_BLOCK + i % STAG_BLOCK]
                              : out[i * 6 + (size_t)c]);
}

#endif
