/*
 * openmp_kernels: the HACC kernels of both OpenMP models (kernels/hacc/openmp.c, kernels/openmp/body.h),
 * written over REAL, SQRT and KERNEL(name) and instantiated per precision (kernels/precisions.h). The pair
 * arithmetic is hacc_pair.h's, the same in both builds. Variants (each a variant region):
 *
 *   host scalar, simd: owner computes: a thread takes a leaf and sums, for each of its particles, the
 *     interactions of every particle of every partner leaf (the leaf's pairs in the order of the pair list),
 *     so each output has one writer and needs no atomics; each pair's two directions are computed by the
 *     owners of its two leaves. The partner loop is the variant: scalar (vectorisation switched off) or simd
 *     (omp simd over the partners, compiled per x86-64 level).
 *   device scalar, simd: owner computes, as the host: one iteration per particle sums the interactions of
 *     every particle of every partner leaf (hacc_partners.h's index) and adds them to its own outputs; simd
 *     puts the particles on the simd lanes (`target teams distribute parallel for simd`), scalar leaves simd
 *     out (on GCC's nvptx offload: one lane of each warp).
 *   device broadcast (paper 003 Sec. 5.3, as CUDA's): one iteration per particle of each pair, 2 leaf_size
 * per pair (lanes of a leaf of a pair next to each other), loads every particle of the other leaf (the same
 *     one across those lanes) and adds its sums with one atomic add per output (GCC 12's nvptx: a
 *     compare-and-swap loop).
 */

#if REAL_IS_FLOAT
#define SQRT sqrtf
#else
#define SQRT sqrt
#endif
/* the reciprocal square root, one operation by the flop rules (CUDA's and OpenCL's rsqrt); C spells it so */
#define RSQRT(x) ((REAL)1 / SQRT(x))

#if OMB_TARGET

/* The device arrays, as one value a target region takes firstprivate (the pointers are device addresses). */
struct KERNEL(arrays) {
    REAL *in[PP_HACC_NIN];
    REAL *out[PP_HACC_NOUT];
};

#pragma omp declare target
#include "kernels/hacc/hacc_pair.h"

/* Particle i's sums over the leaf whose particles are lo .. lo + L - 1: gravity (sph 0) or sph (1). */
static inline struct KERNEL(term)
    KERNEL(leaf)(const struct KERNEL(arrays) * a, size_t i, size_t lo, size_t L, int sph)
{
    struct KERNEL(term) s = {0, 0, 0, 0};

    if (!sph) {
        REAL *const *in = a->in;
        const REAL xi = in[PP_HACC_X][i], yi = in[PP_HACC_Y][i], zi = in[PP_HACC_Z][i];
        for (size_t j = lo; j < lo + L; j++) {
            const struct KERNEL(term) t = KERNEL(gravity_pair)(xi, yi, zi, in[PP_HACC_X][j], in[PP_HACC_Y][j],
                                                               in[PP_HACC_Z][j], in[PP_HACC_MASS][j]);
            s.x += t.x;
            s.y += t.y;
            s.z += t.z;
        }
    } else {
        const struct KERNEL(sph_particle) me = KERNEL(sph_load)(a->in, i);
        for (size_t j = lo; j < lo + L; j++) {
            const struct KERNEL(term) t = KERNEL(sph_pair)(me, KERNEL(sph_load)(a->in, j));
            s.x += t.x;
            s.y += t.y;
            s.z += t.z;
            s.du += t.du;
        }
    }
    return s;
}

#if PP_VARIANT_REGION(SCALAR) || PP_VARIANT_REGION(SIMD)
/* Owner computes: particle i (of leaf i / L) summed over every partner leaf, added to its outputs. */
static inline void KERNEL(owner)(const struct KERNEL(arrays) * a, const size_t *start, const uint32_t *other,
                                 size_t L, size_t i, int sph)
{
    const size_t leaf = i / L;
    struct KERNEL(term) s = {0, 0, 0, 0};

    for (size_t e = start[leaf]; e < start[leaf + 1]; e++) {
        const struct KERNEL(term) t = KERNEL(leaf)(a, i, (size_t)other[e] * L, L, sph);
        s.x += t.x;
        s.y += t.y;
        s.z += t.z;
        s.du += t.du;
    }
    a->out[PP_HACC_AX][i] += s.x;
    a->out[PP_HACC_AY][i] += s.y;
    a->out[PP_HACC_AZ][i] += s.z;
    if (sph)
        a->out[PP_HACC_DU][i] += s.du;
}
#endif

#if PP_VARIANT_REGION(BROADCAST)
/* Broadcast: item q of the pairs' 2 L each: particle q mod 2L of the pair (its first leaf, then its second)
 * summed over the other leaf, added atomically (a leaf is in several pairs). */
static inline void KERNEL(broadcast)(const struct KERNEL(arrays) * a, const uint32_t *pairs, size_t L,
                                     size_t q, int sph)
{
    const size_t p = q / (2 * L), r = q % (2 * L);
    const size_t mine = pairs[2 * p + (r >= L)], other = pairs[2 * p + (r < L)];
    const size_t i = mine * L + r % L;
    const struct KERNEL(term) s = KERNEL(leaf)(a, i, other * L, L, sph);

#pragma omp atomic update
    a->out[PP_HACC_AX][i] += s.x;
#pragma omp atomic update
    a->out[PP_HACC_AY][i] += s.y;
#pragma omp atomic update
    a->out[PP_HACC_AZ][i] += s.z;
    if (sph) {
#pragma omp atomic update
        a->out[PP_HACC_DU][i] += s.du;
    }
}
#endif
#pragma omp end declare target

static struct KERNEL(arrays) KERNEL(arrays_of)(const struct omb_hacc *s)
{
    struct KERNEL(arrays) a;

    for (int f = 0; f < PP_HACC_NIN; f++)
        a.in[f] = s->in[f];
    for (int o = 0; o < PP_HACC_NOUT; o++)
        a.out[o] = s->out[o];
    return a;
}

/* One application of kernel k (sph: 0 gravity, 1 sph, a constant in each loop so the other folds away). */
static void KERNEL(run)(struct pp_ctx *ctx, struct omb_hacc *s, enum pp_hacc_kernel k)
{
    const int sph = k == PP_HACC_SPH;
    const struct KERNEL(arrays) a = KERNEL(arrays_of)(s);
    const size_t *start = s->start;
    const uint32_t *other = s->other, *pairs = s->pairs;
    const size_t L = s->leaf_size, n = s->nleaves * L, items = s->npairs * 2 * L;

#define OWNER(construct, SPH)                                                                                \
    OMPT_LOOP_(ctx, construct, firstprivate(a) is_device_ptr(start, other),                                  \
               for (size_t i = 0; i < n; i++) KERNEL(owner)(&a, start, other, L, i, SPH);)
#define BROADCAST(SPH)                                                                                       \
    OMPT_FOR(ctx, firstprivate(a) is_device_ptr(pairs),                                                      \
             for (size_t q = 0; q < items; q++) KERNEL(broadcast)(&a, pairs, L, q, SPH);)
    switch (s->variant) {
#if PP_VARIANT_REGION(BROADCAST)
    case PP_HACC_BROADCAST:
        if (sph)
            BROADCAST(1);
        else
            BROADCAST(0);
        break;
#endif
#if PP_VARIANT_REGION(SIMD)
    case PP_HACC_SIMD:
        if (sph)
            OWNER(target teams distribute parallel for simd, 1);
        else
            OWNER(target teams distribute parallel for simd, 0);
        break;
#endif
#if PP_VARIANT_REGION(SCALAR)
    case PP_HACC_SCALAR:
        if (sph)
            OWNER(target teams distribute parallel for, 1);
        else
            OWNER(target teams distribute parallel for, 0);
        break;
#endif
    default: /* refused at alloc */
        break;
    }
#undef OWNER
#undef BROADCAST
}

static void KERNEL(fill)(struct pp_ctx *ctx, struct omb_hacc *s, REAL value)
{
    const struct KERNEL(arrays) a = KERNEL(arrays_of)(s);
    const size_t n = s->nleaves * s->leaf_size;

    OMPT_FOR(
        ctx, firstprivate(a), for (size_t i = 0; i < n; i++) {
            for (int o = 0; o < PP_HACC_NOUT; o++)
                a.out[o][i] = value;
        });
}

#else /* the host */

#include "kernels/hacc/hacc_pair.h"

/* Particle i's sums over the partner leaf starting at particle lo, L particles (the pair arithmetic is
 * hacc_pair.h's, shared with the offload model). */
#if PP_VARIANT_REGION(SCALAR)
static __attribute__((optimize("no-tree-vectorize"))) void
KERNEL(gravity_scalar)(REAL *const in[PP_HACC_NIN], size_t i, size_t lo, size_t L, REAL acc[4])
{
    const REAL *restrict x = in[PP_HACC_X], *restrict y = in[PP_HACC_Y], *restrict z = in[PP_HACC_Z],
                         *restrict m = in[PP_HACC_MASS];
    const REAL xi = x[i], yi = y[i], zi = z[i];
    REAL ax = 0, ay = 0, az = 0;

    for (size_t j = lo; j < lo + L; j++) {
        const struct KERNEL(term) t = KERNEL(gravity_pair)(xi, yi, zi, x[j], y[j], z[j], m[j]);
        ax += t.x;
        ay += t.y;
        az += t.z;
    }
    acc[0] += ax;
    acc[1] += ay;
    acc[2] += az;
}

static __attribute__((optimize("no-tree-vectorize"))) void
KERNEL(sph_scalar)(REAL *const in[PP_HACC_NIN], size_t i, size_t lo, size_t L, REAL acc[4])
{
    const struct KERNEL(sph_particle) me = KERNEL(sph_load)(in, i);
    REAL ax = 0, ay = 0, az = 0, du = 0;

    for (size_t j = lo; j < lo + L; j++) {
        const struct KERNEL(term) t = KERNEL(sph_pair)(me, KERNEL(sph_load)(in, j));
        ax += t.x;
        ay += t.y;
        az += t.z;
        du += t.du;
    }
    acc[0] += ax;
    acc[1] += ay;
    acc[2] += az;
    acc[3] += du;
}
#endif

#if PP_VARIANT_REGION(SIMD)
static OPENMP_CLONES void KERNEL(gravity_simd)(REAL *const in[PP_HACC_NIN], size_t i, size_t lo, size_t L,
                                               REAL acc[4])
{
    const REAL *restrict x = in[PP_HACC_X], *restrict y = in[PP_HACC_Y], *restrict z = in[PP_HACC_Z],
                         *restrict m = in[PP_HACC_MASS];
    const REAL xi = x[i], yi = y[i], zi = z[i];
    REAL ax = 0, ay = 0, az = 0;

#pragma omp simd reduction(+ : ax, ay, az)
    for (size_t j = lo; j < lo + L; j++) {
        const struct KERNEL(term) t = KERNEL(gravity_pair)(xi, yi, zi, x[j], y[j], z[j], m[j]);
        ax += t.x;
        ay += t.y;
        az += t.z;
    }
    acc[0] += ax;
    acc[1] += ay;
    acc[2] += az;
}

static OPENMP_CLONES void KERNEL(sph_simd)(REAL *const in[PP_HACC_NIN], size_t i, size_t lo, size_t L,
                                           REAL acc[4])
{
    const struct KERNEL(sph_particle) me = KERNEL(sph_load)(in, i);
    REAL ax = 0, ay = 0, az = 0, du = 0;

#pragma omp simd reduction(+ : ax, ay, az, du)
    for (size_t j = lo; j < lo + L; j++) {
        const struct KERNEL(term) t = KERNEL(sph_pair)(me, KERNEL(sph_load)(in, j));
        ax += t.x;
        ay += t.y;
        az += t.z;
        du += t.du;
    }
    acc[0] += ax;
    acc[1] += ay;
    acc[2] += az;
    acc[3] += du;
}
#endif

/* Every leaf's particles, summed over the leaf's partners, added to the outputs. */
static void KERNEL(run)(struct pp_ctx *ctx, struct omb_hacc *s, enum pp_hacc_kernel k)
{
    REAL *const *in = (REAL *const *)s->in;
    REAL *const *out = (REAL *const *)s->out;
    const size_t L = s->leaf_size;
    void (*term)(REAL *const *, size_t, size_t, size_t, REAL *) =
        k == PP_HACC_GRAVITY ? (s->variant == PP_HACC_SCALAR ? KERNEL(gravity_scalar) : KERNEL(gravity_simd))
                             : (s->variant == PP_HACC_SCALAR ? KERNEL(sph_scalar) : KERNEL(sph_simd));

    (void)ctx;
#pragma omp parallel for schedule(dynamic, 4)
    for (size_t a = 0; a < s->nleaves; a++)
        for (size_t i = a * L; i < (a + 1) * L; i++) {
            REAL acc[4] = {0, 0, 0, 0};
            for (size_t e = s->start[a]; e < s->start[a + 1]; e++)
                term(in, i, (size_t)s->other[e] * L, L, acc);
            for (int o = 0; o < (k == PP_HACC_GRAVITY ? 3 : 4); o++)
                out[o][i] += acc[o];
        }
}

static void KERNEL(fill)(struct pp_ctx *ctx, struct omb_hacc *s, REAL value)
{
    const size_t n = s->nleaves * s->leaf_size;

    (void)ctx;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        for (int o = 0; o < PP_HACC_NOUT; o++)
            ((REAL *)s->out[o])[i] = value;
}

static void KERNEL(upload)(struct omb_hacc *s, const double *const in[PP_HACC_NIN])
{
    const size_t n = s->nleaves * s->leaf_size;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        for (int f = 0; f < PP_HACC_NIN; f++)
            ((REAL *)s->in[f])[i] = (REAL)in[f][i];
}

static void KERNEL(download)(struct omb_hacc *s, double *const out[PP_HACC_NOUT])
{
    const size_t n = s->nleaves * s->leaf_size;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        for (int o = 0; o < PP_HACC_NOUT; o++)
            out[o][i] = ((REAL *)s->out[o])[i];
}

#endif

#undef SQRT
#undef RSQRT
