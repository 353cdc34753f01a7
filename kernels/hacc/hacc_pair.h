/*
 * hacc_pair: the HACC suite's per-pair arithmetic in C, shared by the two OpenMP builds: the host loops
 * (kernels/hacc/openmp_kernels.h) and the offloaded ones (the same header built with -DPP_OMP_TARGET), so
 * that both compute every interaction with the same source lines (docs/METHODOLOGY.md has the formulas and
 * the flop counts). Written once per precision: the including file defines REAL, SQRT, RSQRT and KERNEL(name)
 * first, as for the kernels' headers, and includes this file once per definition (hence no include guard).
 * Every function is static inline and pure, so it inlines into omp simd loops and into target regions (the
 * offload file includes it inside `declare target`).
 */

/* What one interaction adds to particle i: acceleration (x, y, z) and, for sph, the energy rate. */
struct KERNEL(term) {
    REAL x, y, z, du;
};

/* HACCmk's short-range force of partner j (at xj, mass mj) on particle i (at xi): 30 flops with its
 * accumulation (HACC_FLOPS_GRAVITY, counted by tests/unit/test_hacc_flops.cc; RSQRT counts 1). */
static inline struct KERNEL(term)
    KERNEL(gravity_pair)(REAL xi, REAL yi, REAL zi, REAL xj, REAL yj, REAL zj, REAL mj)
{
    const REAL dx = xj - xi, dy = yj - yi, dz = zj - zi;
    const REAL r2 = dx * dx + dy * dy + dz * dz;
    const REAL t = RSQRT(r2 + (REAL)PP_HACC_EPS2);
    const REAL poly =
        (REAL)PP_HACC_MA0 +
        r2 * ((REAL)PP_HACC_MA1 +
              r2 * ((REAL)PP_HACC_MA2 +
                    r2 * ((REAL)PP_HACC_MA3 + r2 * ((REAL)PP_HACC_MA4 + r2 * (REAL)PP_HACC_MA5))));
    const REAL f = (r2 > 0 && r2 < (REAL)PP_HACC_RMAX2) ? mj * (t * t * t - poly) : (REAL)0;

    return (struct KERNEL(term)){f * dx, f * dy, f * dz, 0};
}

/* The cubic spline's dW/dr at r for smoothing length h. */
static inline REAL KERNEL(spline)(REAL r, REAL h)
{
    const REAL ih = (REAL)1 / h, q = r * ih, sh = (REAL)PP_HACC_INV_PI * ih * ih * ih * ih;

    if (q < 1) /* 10 flops on either branch */
        return sh * q * ((REAL)-3 + (REAL)2.25 * q);
    if (q < 2) {
        const REAL u = (REAL)2 - q;
        return sh * (REAL)-0.75 * u * u;
    }
    return (REAL)0;
}

/* One particle of the sph kernel: what a pair term reads of it. */
struct KERNEL(sph_particle) {
    REAL x, y, z, vx, vy, vz, m, rho, h;
};

/* The sph pair term of partner j on particle i: acceleration and energy rate (HACC_FLOPS_SPH with its
 * accumulation, counted by tests/unit/test_hacc_flops.cc). */
static inline struct KERNEL(term)
    KERNEL(sph_pair)(struct KERNEL(sph_particle) i, struct KERNEL(sph_particle) j)
{
    const REAL dx = i.x - j.x, dy = i.y - j.y, dz = i.z - j.z;
    const REAL ux = i.vx - j.vx, uy = i.vy - j.vy, uz = i.vz - j.vz;
    const REAL r2 = dx * dx + dy * dy + dz * dz, w = ux * dx + uy * dy + uz * dz;
    const REAL r = SQRT(r2);
    const REAL fbar = (REAL)0.5 * (KERNEL(spline)(r, i.h) + KERNEL(spline)(r, j.h)) / r;
    const REAL hbar = (REAL)0.5 * (i.h + j.h), rhobar = (REAL)0.5 * (i.rho + j.rho);
    const REAL mu = w < 0 ? hbar * w / (r2 + (REAL)PP_HACC_ETA2 * hbar * hbar) : (REAL)0;
    const REAL pi = ((REAL)-PP_HACC_ALPHA_CS * mu + (REAL)PP_HACC_BETA * mu * mu) / rhobar;
    const REAL g = (REAL)PP_HACC_CS2 / i.rho + (REAL)PP_HACC_CS2 / j.rho + pi;
    const REAL s = j.m * g * fbar;

    return (struct KERNEL(term)){-s * dx, -s * dy, -s * dz, (REAL)0.5 * s * w};
}

/* Particle p of the input arrays in[PP_HACC_NIN] as the sph term reads it. */
static inline struct KERNEL(sph_particle) KERNEL(sph_load)(REAL *const *in, size_t p)
{
    return (struct KERNEL(sph_particle)){in[PP_HACC_X][p],    in[PP_HACC_Y][p],   in[PP_HACC_Z][p],
                                         in[PP_HACC_VX][p],   in[PP_HACC_VY][p],  in[PP_HACC_VZ][p],
                                         in[PP_HACC_MASS][p], in[PP_HACC_RHO][p], in[PP_HACC_HSML][p]};
}
