/*
 * openmp_kernels: the HACC kernels on the host, written once and instantiated per precision by
 * kernels/hacc/openmp.c, which defines REAL and KERNEL(name) before including it. Owner computes: a thread
 * takes a leaf and sums, for each of its particles, the interactions of every particle of every partner leaf
 * (the leaf's pairs in the order of the pair list), so each output has one writer and needs no atomics; each
 * pair's two directions are computed by the owners of its two leaves. The partner loop is the variant:
 * scalar (vectorisation switched off) or simd (omp simd over the partners, compiled per x86-64 level).
 */

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
static void KERNEL(run)(struct omp_hacc *s, enum pp_hacc_kernel k)
{
    REAL *const *in = (REAL *const *)s->in;
    REAL *const *out = (REAL *const *)s->out;
    const size_t L = s->leaf_size;
    void (*term)(REAL *const *, size_t, size_t, size_t, REAL *) =
        k == PP_HACC_GRAVITY ? (s->variant == PP_HACC_SCALAR ? KERNEL(gravity_scalar) : KERNEL(gravity_simd))
                             : (s->variant == PP_HACC_SCALAR ? KERNEL(sph_scalar) : KERNEL(sph_simd));

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

static void KERNEL(fill)(struct omp_hacc *s, REAL value)
{
    const size_t n = s->nleaves * s->leaf_size;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        for (int o = 0; o < PP_HACC_NOUT; o++)
            ((REAL *)s->out[o])[i] = value;
}

static void KERNEL(upload)(struct omp_hacc *s, const double *const in[PP_HACC_NIN])
{
    const size_t n = s->nleaves * s->leaf_size;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        for (int f = 0; f < PP_HACC_NIN; f++)
            ((REAL *)s->in[f])[i] = (REAL)in[f][i];
}

static void KERNEL(download)(struct omp_hacc *s, double *const out[PP_HACC_NOUT])
{
    const size_t n = s->nleaves * s->leaf_size;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        for (int o = 0; o < PP_HACC_NOUT; o++)
            out[o][i] = ((REAL *)s->out[o])[i];
}
