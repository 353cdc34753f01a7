/*
 * omptarget_kernels: the HACC kernels through OpenMP target offload, instantiated per precision by
 * kernels/hacc/omptarget.c, which defines REAL, SQRT and KERNEL(name) before including it. The pair
 * arithmetic is hacc_pair.h's, the host OpenMP model's too. Three variants:
 *   scalar, simd: owner computes, as the host model: one iteration per particle sums the interactions of
 *     every particle of every partner leaf (hacc_partners.h's index) and adds them to its own outputs, so
 *     no output has two writers; simd puts the particles on the simd lanes (`target teams distribute
 *     parallel for simd`), scalar leaves simd out (on GCC's nvptx offload: one lane of each warp).
 *   broadcast (paper 003 Sec. 5.3, as CUDA's): one iteration per particle of each pair, 2 leaf_size per pair
 *     (lanes of a leaf of a pair next to each other), loads every particle of the other leaf (the same one
 *     across those lanes) and adds its sums with one atomic add per output (GCC 12's nvptx: a
 *     compare-and-swap loop).
 */

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

static struct KERNEL(arrays) KERNEL(arrays_of)(const struct omptarget_hacc *s)
{
    struct KERNEL(arrays) a;

    for (int f = 0; f < PP_HACC_NIN; f++)
        a.in[f] = s->in[f];
    for (int o = 0; o < PP_HACC_NOUT; o++)
        a.out[o] = s->out[o];
    return a;
}

/* One application of kernel k (sph: 0 gravity, 1 sph, a constant in each loop so the other folds away). */
static void KERNEL(run)(struct pp_ctx *ctx, struct omptarget_hacc *s, int sph)
{
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

static void KERNEL(fill)(struct pp_ctx *ctx, struct omptarget_hacc *s, REAL value)
{
    const struct KERNEL(arrays) a = KERNEL(arrays_of)(s);
    const size_t n = s->nleaves * s->leaf_size;

    OMPT_FOR(
        ctx, firstprivate(a), for (size_t i = 0; i < n; i++) {
            for (int o = 0; o < PP_HACC_NOUT; o++)
                a.out[o][i] = value;
        });
}
