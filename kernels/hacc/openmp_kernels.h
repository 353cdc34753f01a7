/*
 * openmp_kernels: the HACC kernels on the host, written once and instantiated per precision by
 * kernels/hacc/openmp.c, which defines REAL and KERNEL(name) before including it. Owner computes: a thread
 * takes a leaf and sums, for each of its particles, the interactions of every particle of every partner leaf
 * (the leaf's pairs in the order of the pair list), so each output has one writer and needs no atomics; each
 * pair's two directions are computed by the owners of its two leaves. The partner loop is the variant:
 * scalar (vectorisation switched off) or simd (omp simd over the partners, compiled per x86-64 level).
 */

/* One interaction of partner j on particle i. */
#define GRAVITY_TERM                                                                                         \
    const REAL dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;                                               \
    const REAL r2 = dx * dx + dy * dy + dz * dz;                                                             \
    const REAL t = (REAL)1 / SQRT(r2 + (REAL)PP_HACC_EPS2);                                                  \
    const REAL poly =                                                                                        \
        (REAL)PP_HACC_MA0 +                                                                                  \
        r2 * ((REAL)PP_HACC_MA1 +                                                                            \
              r2 * ((REAL)PP_HACC_MA2 +                                                                      \
                    r2 * ((REAL)PP_HACC_MA3 + r2 * ((REAL)PP_HACC_MA4 + r2 * (REAL)PP_HACC_MA5))));          \
    const REAL f = (r2 > 0 && r2 < (REAL)PP_HACC_RMAX2) ? m[j] * (t * t * t - poly) : (REAL)0;               \
    ax += f * dx;                                                                                            \
    ay += f * dy;                                                                                            \
    az += f * dz;

/* The cubic spline's dW/dr over r, of both smoothing lengths, and the pair term (docs/METHODOLOGY.md). */
#define SPLINE(r, h, out)                                                                                    \
    {                                                                                                        \
        const REAL ih = (REAL)1 / (h), q = (r)*ih, sh = (REAL)PP_HACC_INV_PI * ih * ih * ih * ih;            \
        out = q < 1 ? sh * q * ((REAL)-3 + (REAL)2.25 * q)                                                   \
                    : (q < 2 ? sh * (REAL)-0.75 * ((REAL)2 - q) * ((REAL)2 - q) : (REAL)0);                  \
    }
#define SPH_TERM                                                                                             \
    const REAL dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];                                               \
    const REAL ux = vxi - vx[j], uy = vyi - vy[j], uz = vzi - vz[j];                                         \
    const REAL r2 = dx * dx + dy * dy + dz * dz, w = ux * dx + uy * dy + uz * dz;                            \
    const REAL r = SQRT(r2);                                                                                 \
    REAL wi, wj;                                                                                             \
    SPLINE(r, hi, wi)                                                                                        \
    SPLINE(r, h[j], wj)                                                                                      \
    const REAL fbar = (REAL)0.5 * (wi + wj) / r;                                                             \
    const REAL hbar = (REAL)0.5 * (hi + h[j]), rhobar = (REAL)0.5 * (rhoi + rho[j]);                         \
    const REAL mu = w < 0 ? hbar * w / (r2 + (REAL)PP_HACC_ETA2 * hbar * hbar) : (REAL)0;                    \
    const REAL pi = ((REAL)-PP_HACC_ALPHA_CS * mu + (REAL)PP_HACC_BETA * mu * mu) / rhobar;                  \
    const REAL g = (REAL)PP_HACC_CS2 / rhoi + (REAL)PP_HACC_CS2 / rho[j] + pi;                               \
    const REAL s = m[j] * g * fbar;                                                                          \
    ax -= s * dx;                                                                                            \
    ay -= s * dy;                                                                                            \
    az -= s * dz;                                                                                            \
    du += (REAL)0.5 * s * w;

#define GRAVITY_LOADS                                                                                        \
    const REAL *restrict x = in[PP_HACC_X] + lo, *restrict y = in[PP_HACC_Y] + lo,                           \
                         *restrict z = in[PP_HACC_Z] + lo, *restrict m = in[PP_HACC_MASS] + lo;
#define SPH_LOADS                                                                                            \
    GRAVITY_LOADS const REAL *restrict vx = in[PP_HACC_VX] + lo, *restrict vy = in[PP_HACC_VY] + lo,         \
                                       *restrict vz = in[PP_HACC_VZ] + lo,                                   \
                                       *restrict rho = in[PP_HACC_RHO] + lo,                                 \
                                       *restrict h = in[PP_HACC_HSML] + lo;

/* Particle i's sums over the partner leaf starting at particle lo, L particles. */
#if PP_VARIANT_REGION(SCALAR)
static __attribute__((optimize("no-tree-vectorize"))) void
KERNEL(gravity_scalar)(REAL *const in[PP_HACC_NIN], size_t i, size_t lo, size_t L, REAL acc[4])
{
    const REAL xi = in[PP_HACC_X][i], yi = in[PP_HACC_Y][i], zi = in[PP_HACC_Z][i];
    REAL ax = 0, ay = 0, az = 0;
    GRAVITY_LOADS
    for (size_t j = 0; j < L; j++) {
        GRAVITY_TERM
    }
    acc[0] += ax;
    acc[1] += ay;
    acc[2] += az;
}
#endif

#if PP_VARIANT_REGION(SIMD)
static OPENMP_CLONES void KERNEL(gravity_simd)(REAL *const in[PP_HACC_NIN], size_t i, size_t lo, size_t L,
                                               REAL acc[4])
{
    const REAL xi = in[PP_HACC_X][i], yi = in[PP_HACC_Y][i], zi = in[PP_HACC_Z][i];
    REAL ax = 0, ay = 0, az = 0;
    GRAVITY_LOADS
#pragma omp simd reduction(+ : ax, ay, az)
    for (size_t j = 0; j < L; j++) {
        GRAVITY_TERM
    }
    acc[0] += ax;
    acc[1] += ay;
    acc[2] += az;
}
#endif

#define SPH_PARTICLE                                                                                         \
    const REAL xi = in[PP_HACC_X][i], yi = in[PP_HACC_Y][i], zi = in[PP_HACC_Z][i];                          \
    const REAL vxi = in[PP_HACC_VX][i], vyi = in[PP_HACC_VY][i], vzi = in[PP_HACC_VZ][i];                    \
    const REAL hi = in[PP_HACC_HSML][i], rhoi = in[PP_HACC_RHO][i];                                          \
    REAL ax = 0, ay = 0, az = 0, du = 0;                                                                     \
    SPH_LOADS

#if PP_VARIANT_REGION(SCALAR)
static __attribute__((optimize("no-tree-vectorize"))) void
KERNEL(sph_scalar)(REAL *const in[PP_HACC_NIN], size_t i, size_t lo, size_t L, REAL acc[4])
{
    SPH_PARTICLE
    for (size_t j = 0; j < L; j++) {
        SPH_TERM
    }
    acc[0] += ax;
    acc[1] += ay;
    acc[2] += az;
    acc[3] += du;
}
#endif

#if PP_VARIANT_REGION(SIMD)
static OPENMP_CLONES void KERNEL(sph_simd)(REAL *const in[PP_HACC_NIN], size_t i, size_t lo, size_t L,
                                           REAL acc[4])
{
    SPH_PARTICLE
#pragma omp simd reduction(+ : ax, ay, az, du)
    for (size_t j = 0; j < L; j++) {
        SPH_TERM
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
