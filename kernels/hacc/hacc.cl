/*
 * HACC pair kernels (paper 003 Sec. 5.3) in OpenCL C 1.2 (select: 2.0 or 3.0 with sub-group shuffles), the
 * algorithm of kernels/hacc/hacc.cu: one work-group of 2 LEAF work-items per leaf pair, logical warps of 32
 * work-items, the lower 16 holding particles of leaf a, the upper 16 of leaf b. Built per kernel and
 * variant with -DREAL=float|double [-DPP_FP64] -DSPH=0|1 -DVARIANT=<enum pp_hacc_variant> -DLEAF=<leaf_size>
 * [-DSHUFFLE_KHR | -DSHUFFLE_INTEL] and the constants -DK_<name> of kernels/hacc/hacc_ops.h. Embedded as
 * pp_cl_hacc (OPENCL_SOURCE, kernels/opencl/opencl.h), driven by kernels/hacc/opencl.c.
 */
#ifdef PP_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif
#if defined(SHUFFLE_KHR)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle : enable
#define SHUFFLE_XOR(v, mask) sub_group_shuffle_xor(v, mask)
#elif defined(SHUFFLE_INTEL)
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
#define SHUFFLE_XOR(v, mask) intel_sub_group_shuffle_xor(v, mask)
#endif

#define SELECT        0
#define MEMORY_32     1
#define MEMORY_OBJECT 2
#define BROADCAST     3

#if SPH
typedef struct {
    REAL x, y, z, vx, vy, vz, m, rho, h;
} particle;
#define NO 4
#else
typedef struct {
    REAL x, y, z, m;
} particle;
#define NO 3
#endif
#define NWORDS (sizeof(particle) / 4)

#define ARGS                                                                                                 \
    global const REAL *px, global const REAL *py, global const REAL *pz, global const REAL *pvx,             \
        global const REAL *pvy, global const REAL *pvz, global const REAL *pm, global const REAL *prho,      \
        global const REAL *ph
#define PASS px, py, pz, pvx, pvy, pvz, pm, prho, ph

inline particle load(ARGS, uint i)
{
    particle p;
    p.x = px[i];
    p.y = py[i];
    p.z = pz[i];
    p.m = pm[i];
#if SPH
    p.vx = pvx[i];
    p.vy = pvy[i];
    p.vz = pvz[i];
    p.rho = prho[i];
    p.h = ph[i];
#endif
    return p;
}

#if SPH
inline REAL spline(REAL r, REAL h)
{
    const REAL ih = (REAL)1 / h, q = r * ih, sh = (REAL)K_INV_PI * ih * ih * ih * ih;
    return q < 1 ? sh * q * ((REAL)-3 + (REAL)2.25 * q) : (q < 2 ? sh * (REAL)-0.75 * (2 - q) * (2 - q) : 0);
}

/* The SPH pair term of o on me (68 flops, docs/METHODOLOGY.md). */
inline void term(particle me, particle o, REAL *acc)
{
    const REAL dx = me.x - o.x, dy = me.y - o.y, dz = me.z - o.z;
    const REAL ux = me.vx - o.vx, uy = me.vy - o.vy, uz = me.vz - o.vz;
    const REAL r2 = dx * dx + dy * dy + dz * dz, w = ux * dx + uy * dy + uz * dz;
    const REAL r = sqrt(r2);
    const REAL fbar = (REAL)0.5 * (spline(r, me.h) + spline(r, o.h)) / r;
    const REAL hbar = (REAL)0.5 * (me.h + o.h), rhobar = (REAL)0.5 * (me.rho + o.rho);
    const REAL mu = w < 0 ? hbar * w / (r2 + (REAL)K_ETA2 * hbar * hbar) : (REAL)0;
    const REAL pi = ((REAL)-K_ALPHA_CS * mu + (REAL)K_BETA * mu * mu) / rhobar;
    const REAL g = (REAL)K_CS2 / me.rho + (REAL)K_CS2 / o.rho + pi;
    const REAL s = o.m * g * fbar;
    acc[0] -= s * dx;
    acc[1] -= s * dy;
    acc[2] -= s * dz;
    acc[3] += (REAL)0.5 * s * w;
}
#else
/* HACCmk's short-range force of o on me (30 flops). */
inline void term(particle me, particle o, REAL *acc)
{
    const REAL dx = o.x - me.x, dy = o.y - me.y, dz = o.z - me.z;
    const REAL r2 = dx * dx + dy * dy + dz * dz;
    const REAL t = rsqrt(r2 + (REAL)K_EPS2);
    const REAL poly =
        (REAL)K_MA0 +
        r2 * ((REAL)K_MA1 + r2 * ((REAL)K_MA2 + r2 * ((REAL)K_MA3 + r2 * ((REAL)K_MA4 + r2 * (REAL)K_MA5))));
    const REAL f = (r2 > 0 && r2 < (REAL)K_RMAX2) ? o.m * (t * t * t - poly) : (REAL)0;
    acc[0] += f * dx;
    acc[1] += f * dy;
    acc[2] += f * dz;
}
#endif

/* The exchange with work-item lid ^ mask of the same logical warp (the variant). */
#if VARIANT == SELECT
inline particle swap(particle p, uint mask, local void *scratch)
{
    particle r;
    r.x = SHUFFLE_XOR(p.x, mask);
    r.y = SHUFFLE_XOR(p.y, mask);
    r.z = SHUFFLE_XOR(p.z, mask);
    r.m = SHUFFLE_XOR(p.m, mask);
#if SPH
    r.vx = SHUFFLE_XOR(p.vx, mask);
    r.vy = SHUFFLE_XOR(p.vy, mask);
    r.vz = SHUFFLE_XOR(p.vz, mask);
    r.rho = SHUFFLE_XOR(p.rho, mask);
    r.h = SHUFFLE_XOR(p.h, mask);
#endif
    return r;
}
#elif VARIANT == MEMORY_32
inline particle swap(particle p, uint mask, local void *scratch)
{
    local uint *buf = (local uint *)scratch;
    const uint lid = get_local_id(0);
    union {
        particle p;
        uint w[NWORDS];
    } in, out;
    in.p = p;
    for (uint k = 0; k < NWORDS; k++) {
        buf[lid] = in.w[k];
        barrier(CLK_LOCAL_MEM_FENCE);
        out.w[k] = buf[lid ^ mask];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return out.p;
}
#else
inline particle swap(particle p, uint mask, local void *scratch)
{
    local particle *buf = (local particle *)scratch;
    const uint lid = get_local_id(0);
    buf[lid] = p;
    barrier(CLK_LOCAL_MEM_FENCE);
    particle r = buf[lid ^ mask];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}
#endif

/* Floating-point atomic add by compare-and-swap (OpenCL 1.2 has none). */
inline void atomic_add_real(volatile global REAL *p, REAL v)
{
#ifdef PP_FP64
    union {
        ulong u;
        double f;
    } old, next;
    do {
        old.f = *p;
        next.f = old.f + v;
    } while (atom_cmpxchg((volatile global ulong *)p, old.u, next.u) != old.u);
#else
    union {
        uint u;
        float f;
    } old, next;
    do {
        old.f = *p;
        next.f = old.f + v;
    } while (atomic_cmpxchg((volatile global uint *)p, old.u, next.u) != old.u);
#endif
}

kernel void hacc_pairs(ARGS, global REAL *o0, global REAL *o1, global REAL *o2, global REAL *o3,
                       global const uint2 *pairs)
{
    const uint2 pair = pairs[get_group_id(0)];
    const uint lid = get_local_id(0), warp = lid / 32, lane = lid % 32, m = lane % 16;
    const bool upper = lane >= 16;
    REAL acc[4] = {0, 0, 0, 0};
#if VARIANT == BROADCAST
    /* each work-item loads every particle of the other leaf (the same for its half: a broadcast) */
    const uint i = (upper ? pair.y : pair.x) * LEAF + warp * 16 + m, other = upper ? pair.x : pair.y;
    const particle me = load(PASS, i);
    for (uint j = 0; j < LEAF; j++)
        term(me, load(PASS, other * LEAF + j), acc);
    atomic_add_real(o0 + i, acc[0]);
    atomic_add_real(o1 + i, acc[1]);
    atomic_add_real(o2 + i, acc[2]);
#if SPH
    atomic_add_real(o3 + i, acc[3]);
#endif
#else
    local REAL acc_b[LEAF * NO];
#if VARIANT == MEMORY_32
    local uint scratch[2 * LEAF];
#else
    local particle scratch[2 * LEAF];
#endif
    const uint ia = pair.x * LEAF + warp * 16 + m;
    const particle mine = load(PASS, ia);
    particle me;

    for (uint k = lid; k < LEAF * NO; k += get_local_size(0))
        acc_b[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint t = 0; t < LEAF / 16; t++) {
        const uint cb = (warp + t) % (LEAF / 16);
        /* the lower half keeps summing a's particle; the upper half sums this step's chunk of b afresh */
        if (upper) {
            me = load(PASS, pair.y * LEAF + cb * 16 + m);
            acc[0] = acc[1] = acc[2] = acc[3] = 0;
        } else {
            me = mine;
        }
        for (uint s = 0; s < 16; s++)
            term(me, swap(me, 16u | s, scratch), acc);
        if (upper)
            for (uint o = 0; o < NO; o++)
                acc_b[(cb * 16 + m) * NO + o] += acc[o];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (!upper) {
        atomic_add_real(o0 + ia, acc[0]);
        atomic_add_real(o1 + ia, acc[1]);
        atomic_add_real(o2 + ia, acc[2]);
#if SPH
        atomic_add_real(o3 + ia, acc[3]);
#endif
    }
    for (uint k = lid; k < LEAF; k += get_local_size(0)) {
        const uint ib = pair.y * LEAF + k;
        atomic_add_real(o0 + ib, acc_b[k * NO]);
        atomic_add_real(o1 + ib, acc_b[k * NO + 1]);
        atomic_add_real(o2 + ib, acc_b[k * NO + 2]);
#if SPH
        atomic_add_real(o3 + ib, acc_b[k * NO + 3]);
#endif
    }
#endif
}

kernel void hacc_fill(global REAL *o0, global REAL *o1, global REAL *o2, global REAL *o3, REAL value, uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        o0[i] = o1[i] = o2[i] = o3[i] = value;
}

/* The sub-group size the select variant relies on (written by one work-item). */
kernel void hacc_probe(global uint *out)
{
#ifdef SHUFFLE_XOR
    if (get_global_id(0) == 0)
        out[0] = get_max_sub_group_size();
#else
    if (get_global_id(0) == 0)
        out[0] = 0;
#endif
}
