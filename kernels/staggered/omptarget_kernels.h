/*
 * omptarget_kernels: the OpenMP-target staggered Dslash (strategies 1lp, 2lp, 3lp-3), instantiated per
 * precision by kernels/staggered/omptarget.c, which defines REAL and KERNEL(name) before including it. One
 * output site per iteration on the canonical arrays: the links of term t = 4 l + k of site i at ((l n + i) 4
 * + k) 18, its neighbour nbr[t n + i]; 16 products of a 3x3 complex matrix and a colour vector (66 flop), the
 * first assigned, the next 7 added and the last 8 subtracted (6 flop each): 1146 flop. Sums in six named
 * scalars, so they stay in registers.
 */

static void KERNEL(dslash)(struct pp_ctx *ctx, struct omptarget_staggered *st)
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

/* 2lp: three iterations per site, row i of every term (the first 8 terms added, the last 8 subtracted). */
static void KERNEL(dslash_2lp)(struct pp_ctx *ctx, struct omptarget_staggered *st)
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

/* 3lp-3: twelve iterations per site (row i, direction k; k-major: i fastest, i-major: k fastest), each adding
 * its four terms (l = 0..3) atomically into the output, which a loop of its own zeroes first: the end of that
 * target region is the OpenCL kernel's barrier. */
static void KERNEL(dslash_3lp3)(struct pp_ctx *ctx, struct omptarget_staggered *st)
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
