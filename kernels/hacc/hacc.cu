/*
 * cuda/hacc: the HACC suite's kernels (paper 003: gravity and sph over leaf pairs) in CUDA, as
 * cuda_hacc_ops registered with PP_SUITE_IMPL.
 *
 * One block per leaf pair (a, b), 2 leaf_size threads: warp w holds 16 particles of leaf a in its lower
 * half and 16 of leaf b in its upper half (the "half-warp" algorithm, paper 003 Sec. 5.3, Fig. 3-4). In the
 * select and memory variants the lower half keeps its chunk of a for the whole pair and the upper half takes
 * every chunk of b in turn (chunk (w + t) mod chunks at step t, so the warps of a step hold distinct
 * chunks); at sub-step s lane l exchanges its particle with lane l ^ (16 | s), so lane l of the lower half
 * computes the interaction of b's particle l ^ s on its own while its partner computes the reverse. The
 * exchange is the variant: __shfl_xor_sync per component (select), shared memory one 32-bit word at a time
 * (memory-32), or whole particles (memory-object). The upper half adds its step's sums into the block's
 * shared accumulators of b (one writer per chunk and step, a barrier between steps), the lower half keeps a's
 * in registers; at the end each of the pair's 2 leaf_size particles is added to the outputs with one atomic
 * add per component. broadcast exchanges nothing: each lane loads every particle of the other leaf (the
 * half-warp loads the same one: a broadcast) and keeps its sums in registers (no shared accumulators).
 *
 * Every op launches on the legacy default stream and waits. The state (struct cuda_hacc) is private to this
 * file, in the context's suite slot from alloc to release (or close). Threads: the context's thread only.
 */
#include "kernels/cuda/cuda.h"

#include <new>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/hacc/hacc_ops.h"

namespace
{

#define DEVICE_CONSTANT(name, value) constexpr double K_##name = value;
PP_HACC_CONSTANTS(DEVICE_CONSTANT)
#undef DEVICE_CONSTANT

constexpr unsigned FULL = 0xffffffffu;
constexpr unsigned MAX_LEAF = 256;

/* ---- particles and their interactions ---- */

template <typename T> struct Grav {
    static constexpr int NOUT = 3; /* outputs it adds to: the acceleration */
    T x, y, z, m;
};
template <typename T> struct Sph {
    static constexpr int NOUT = 4; /* the acceleration and the energy rate */
    T x, y, z, vx, vy, vz, m, rho, h;
};

template <typename T> struct Arrays {
    const T *in[PP_HACC_NIN];
    T *out[PP_HACC_NOUT];
    const uint2 *pairs;
};

template <typename T> __device__ __forceinline__ void load(const Arrays<T> &a, unsigned i, Grav<T> &p)
{
    p = {__ldg(a.in[PP_HACC_X] + i), __ldg(a.in[PP_HACC_Y] + i), __ldg(a.in[PP_HACC_Z] + i),
         __ldg(a.in[PP_HACC_MASS] + i)};
}

template <typename T> __device__ __forceinline__ void load(const Arrays<T> &a, unsigned i, Sph<T> &p)
{
    p = {__ldg(a.in[PP_HACC_X] + i),    __ldg(a.in[PP_HACC_Y] + i),   __ldg(a.in[PP_HACC_Z] + i),
         __ldg(a.in[PP_HACC_VX] + i),   __ldg(a.in[PP_HACC_VY] + i),  __ldg(a.in[PP_HACC_VZ] + i),
         __ldg(a.in[PP_HACC_MASS] + i), __ldg(a.in[PP_HACC_RHO] + i), __ldg(a.in[PP_HACC_HSML] + i)};
}

__device__ __forceinline__ float rsqrt_t(float v)
{
    return rsqrtf(v);
}
__device__ __forceinline__ double rsqrt_t(double v)
{
    return rsqrt(v);
}

/* HACCmk's short-range force of o on me (30 flops, docs/METHODOLOGY.md). */
template <typename T> __device__ __forceinline__ void term(const Grav<T> &me, const Grav<T> &o, T acc[4])
{
    const T dx = o.x - me.x, dy = o.y - me.y, dz = o.z - me.z;
    const T r2 = dx * dx + dy * dy + dz * dz;
    const T t = rsqrt_t(r2 + T(K_EPS2));
    const T poly =
        T(K_MA0) + r2 * (T(K_MA1) + r2 * (T(K_MA2) + r2 * (T(K_MA3) + r2 * (T(K_MA4) + r2 * T(K_MA5)))));
    const T f = (r2 > T(0) && r2 < T(K_RMAX2)) ? o.m * (t * t * t - poly) : T(0);
    acc[0] += f * dx;
    acc[1] += f * dy;
    acc[2] += f * dz;
}

/* The cubic spline's dW/dr at r for smoothing length h. */
template <typename T> __device__ __forceinline__ T spline(T r, T h)
{
    const T ih = T(1) / h, q = r * ih, sh = T(K_INV_PI) * ih * ih * ih * ih;
    return q < T(1) ? sh * q * (T(-3) + T(2.25) * q)
                    : (q < T(2) ? sh * T(-0.75) * (T(2) - q) * (T(2) - q) : T(0));
}

/* The SPH pair term of o on me: acceleration and energy rate (68 flops, docs/METHODOLOGY.md). */
template <typename T> __device__ __forceinline__ void term(const Sph<T> &me, const Sph<T> &o, T acc[4])
{
    const T dx = me.x - o.x, dy = me.y - o.y, dz = me.z - o.z;
    const T ux = me.vx - o.vx, uy = me.vy - o.vy, uz = me.vz - o.vz;
    const T r2 = dx * dx + dy * dy + dz * dz, w = ux * dx + uy * dy + uz * dz;
    const T r = sqrt(r2);
    const T fbar = T(0.5) * (spline(r, me.h) + spline(r, o.h)) / r;
    const T hbar = T(0.5) * (me.h + o.h), rhobar = T(0.5) * (me.rho + o.rho);
    const T mu = w < T(0) ? hbar * w / (r2 + T(K_ETA2) * hbar * hbar) : T(0);
    const T pi = (T(-K_ALPHA_CS) * mu + T(K_BETA) * mu * mu) / rhobar;
    const T g = T(K_CS2) / me.rho + T(K_CS2) / o.rho + pi;
    const T s = o.m * g * fbar;
    acc[0] -= s * dx;
    acc[1] -= s * dy;
    acc[2] -= s * dz;
    acc[3] += T(0.5) * s * w;
}

/* ---- the exchanges (the variants) ---- */

template <int V> struct Exchange;

#if PP_VARIANT_REGION(SELECT)
template <> struct Exchange<PP_HACC_SELECT> {
    template <typename P> __device__ __forceinline__ static P swap(const P &p, unsigned mask, void *)
    {
        P r;
        const auto *c = reinterpret_cast<const decltype(p.x) *>(&p);
        auto *o = reinterpret_cast<decltype(p.x) *>(&r);
#pragma unroll
        for (unsigned k = 0; k < sizeof(P) / sizeof(p.x); k++)
            o[k] = __shfl_xor_sync(FULL, c[k], mask);
        return r;
    }
};
#endif

#if PP_VARIANT_REGION(MEMORY_32)
/* Through shared memory, one 32-bit word at a time: write, sync the warp, read the partner's, sync. */
template <> struct Exchange<PP_HACC_MEMORY_32> {
    template <typename P> __device__ __forceinline__ static P swap(const P &p, unsigned mask, void *scratch)
    {
        volatile uint32_t *buf = (uint32_t *)scratch + (threadIdx.x & ~31u);
        const unsigned lane = threadIdx.x & 31u;
        P r;
        uint32_t w[sizeof(P) / 4], o[sizeof(P) / 4];
        memcpy(w, &p, sizeof(P));
#pragma unroll
        for (unsigned k = 0; k < sizeof(P) / 4; k++) {
            buf[lane] = w[k];
            __syncwarp();
            o[k] = buf[lane ^ mask];
            __syncwarp();
        }
        memcpy(&r, o, sizeof(P));
        return r;
    }
};
#endif

#if PP_VARIANT_REGION(MEMORY_OBJECT)
/* Through shared memory, whole particles. */
template <> struct Exchange<PP_HACC_MEMORY_OBJECT> {
    template <typename P> __device__ __forceinline__ static P swap(const P &p, unsigned mask, void *scratch)
    {
        P *buf = (P *)scratch + (threadIdx.x & ~31u);
        const unsigned lane = threadIdx.x & 31u;
        buf[lane] = p;
        __syncwarp();
        P r = buf[lane ^ mask];
        __syncwarp();
        return r;
    }
};
#endif

__device__ __forceinline__ void add(float *p, float v)
{
    atomicAdd(p, v);
}
__device__ __forceinline__ void add(double *p, double v)
{
    atomicAdd(p, v);
}

#if PP_VARIANT_REGION(SELECT) || PP_VARIANT_REGION(MEMORY_32) || PP_VARIANT_REGION(MEMORY_OBJECT)
/* select, memory-32, memory-object: the half-warp exchange. */
template <typename T, typename P, int V>
__global__ void __launch_bounds__(2 * MAX_LEAF) pair_exchange(Arrays<T> arr, unsigned L)
{
    extern __shared__ __align__(16) unsigned char smem[];
    constexpr int NO = P::NOUT;
    T *acc_b = (T *)smem;                              /* L x NO */
    void *scratch = smem + (size_t)L * NO * sizeof(T); /* the exchange's: 2L words or particles */
    const uint2 pair = arr.pairs[blockIdx.x];
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32, m = lane % 16, chunks = L / 16;
    const bool upper = lane >= 16;
    const unsigned ia = pair.x * L + warp * 16 + m;
    P mine, me;
    T acc[4] = {0, 0, 0, 0};

    for (unsigned i = threadIdx.x; i < L * NO; i += blockDim.x)
        acc_b[i] = T(0);
    load(arr, ia, mine);
    __syncthreads();
    for (unsigned t = 0; t < chunks; t++) {
        const unsigned cb = (warp + t) % chunks;
        /* the lower half keeps summing a's particle; the upper half sums this step's chunk of b afresh */
        if (upper) {
            load(arr, pair.y * L + cb * 16 + m, me);
#pragma unroll
            for (int o = 0; o < 4; o++)
                acc[o] = T(0);
        } else {
            me = mine;
        }
#pragma unroll 4
        for (unsigned s = 0; s < 16; s++) {
            const P other = Exchange<V>::swap(me, 16u | s, scratch);
            term(me, other, acc);
        }
        if (upper)
#pragma unroll
            for (int o = 0; o < NO; o++)
                acc_b[(cb * 16 + m) * NO + o] += acc[o];
        __syncthreads();
    }
    if (!upper)
#pragma unroll
        for (int o = 0; o < NO; o++)
            add(arr.out[o] + ia, acc[o]);
    for (unsigned i = threadIdx.x; i < L; i += blockDim.x)
#pragma unroll
        for (int o = 0; o < NO; o++)
            add(arr.out[o] + pair.y * L + i, acc_b[i * NO + o]);
}
#endif

#if PP_VARIANT_REGION(BROADCAST)
/* broadcast: each lane loads every particle of the other leaf; sums stay in registers. */
template <typename T, typename P>
__global__ void __launch_bounds__(2 * MAX_LEAF) pair_broadcast(Arrays<T> arr, unsigned L)
{
    constexpr int NO = P::NOUT;
    const uint2 pair = arr.pairs[blockIdx.x];
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32, m = lane % 16;
    const bool upper = lane >= 16;
    const unsigned mine_leaf = upper ? pair.y : pair.x, other_leaf = upper ? pair.x : pair.y;
    const unsigned i = mine_leaf * L + warp * 16 + m;
    P me;
    T acc[4] = {0, 0, 0, 0};

    load(arr, i, me);
#pragma unroll 4
    for (unsigned j = 0; j < L; j++) {
        P other;
        load(arr, other_leaf * L + j, other);
        term(me, other, acc);
    }
#pragma unroll
    for (int o = 0; o < NO; o++)
        add(arr.out[o] + i, acc[o]);
}
#endif

template <typename T> __global__ void fill_kernel(Arrays<T> arr, T value, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        for (int o = 0; o < PP_HACC_NOUT; o++)
            arr.out[o][i] = value;
}

/* ---- state ---- */

struct cuda_hacc {
    size_t nleaves, npairs, n;
    unsigned leaf_size;
    enum pp_precision prec;
    enum pp_hacc_variant variant;
    void *in[PP_HACC_NIN], *out[PP_HACC_NOUT];
    uint2 *pairs;
};

} // namespace

extern const struct pp_suite_impl cuda_hacc_impl;

namespace
{

cuda_hacc **slot(struct pp_ctx *ctx)
{
    return (cuda_hacc **)pp_suite_state(&ctx->suites, &cuda_hacc_impl);
}

int state(struct pp_ctx *ctx, cuda_hacc **out, struct pp_error *err)
{
    *out = *slot(ctx);
    return *out ? 0 : pp_error_set(err, "hacc: no particles allocated (alloc first)");
}

int finish(const char *what, struct pp_error *err)
{
    if (cuda_check(cudaGetLastError(), err, what) < 0)
        return -1;
    return cuda_check(cudaDeviceSynchronize(), err, what);
}

template <typename T> Arrays<T> arrays(const cuda_hacc *s)
{
    Arrays<T> a;
    for (int f = 0; f < PP_HACC_NIN; f++)
        a.in[f] = (const T *)s->in[f];
    for (int o = 0; o < PP_HACC_NOUT; o++)
        a.out[o] = (T *)s->out[o];
    a.pairs = s->pairs;
    return a;
}

void hacc_release(struct pp_ctx *ctx)
{
    cuda_hacc **sp = slot(ctx), *s = *sp;

    if (!s)
        return;
    for (int f = 0; f < PP_HACC_NIN; f++)
        (void)cudaFree(s->in[f]);
    for (int o = 0; o < PP_HACC_NOUT; o++)
        (void)cudaFree(s->out[o]);
    (void)cudaFree(s->pairs);
    delete s;
    *sp = NULL;
}

int hacc_alloc(struct pp_ctx *ctx, size_t nleaves, unsigned leaf_size, size_t npairs, enum pp_precision prec,
               enum pp_hacc_variant variant, struct pp_hacc_launch *launch, struct pp_error *err)
{
    const size_t n = nleaves * leaf_size, elem = pp_precision_bytes(prec);
    size_t free_bytes = 0, total_bytes = 0;
    cuda_hacc *s;

    hacc_release(ctx);
    if (variant > PP_HACC_BROADCAST)
        return pp_error_set(err, "unsupported: variant %d on cuda", (int)variant);
    if (leaf_size % 16 || leaf_size > MAX_LEAF || npairs > 0x7fffffffu)
        return pp_error_set(err, "hacc: leaf_size %u or %zu pairs out of range on cuda", leaf_size, npairs);
    if (cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), err, "hacc alloc: cudaMemGetInfo") < 0)
        return -1;
    if (n * elem * ((int)PP_HACC_NIN + (int)PP_HACC_NOUT) + npairs * 8 > free_bytes)
        return pp_error_set(err, "hacc alloc: %zu particles need %.2f GiB, the device has %.2f GiB free", n,
                            (double)(n * elem * ((int)PP_HACC_NIN + (int)PP_HACC_NOUT)) / (1 << 30),
                            (double)free_bytes / (1 << 30));
    s = new (std::nothrow) cuda_hacc();
    if (!s)
        return pp_error_set(err, "out of memory");
    *slot(ctx) = s;
    s->nleaves = nleaves;
    s->npairs = npairs;
    s->n = n;
    s->leaf_size = leaf_size;
    s->prec = prec;
    s->variant = variant;
    for (int f = 0; f < PP_HACC_NIN; f++)
        if (cuda_check(cudaMalloc(&s->in[f], n * elem), err, "hacc alloc: cudaMalloc") < 0)
            goto fail;
    for (int o = 0; o < PP_HACC_NOUT; o++)
        if (cuda_check(cudaMalloc(&s->out[o], n * elem), err, "hacc alloc: cudaMalloc") < 0)
            goto fail;
    if (cuda_check(cudaMalloc(&s->pairs, npairs * sizeof(uint2)), err, "hacc alloc: cudaMalloc") < 0)
        goto fail;
    *launch = (struct pp_hacc_launch){.work_group = 2 * leaf_size, .sub_group = 32, .threads = 0};
    return 0;
fail:
    hacc_release(ctx);
    return -1;
}

int hacc_upload(struct pp_ctx *ctx, const double *const in[PP_HACC_NIN], const uint32_t *pairs,
                struct pp_error *err)
{
    cuda_hacc *s;
    float *f = NULL;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP32 && !(f = (float *)malloc(s->n * sizeof(float))))
        return pp_error_set(err, "out of host memory");
    for (int k = 0; k < PP_HACC_NIN; k++) {
        const void *src = in[k];
        if (f) {
            for (size_t i = 0; i < s->n; i++)
                f[i] = (float)in[k][i];
            src = f;
        }
        if (cuda_check(cudaMemcpy(s->in[k], src, s->n * pp_precision_bytes(s->prec), cudaMemcpyHostToDevice),
                       err, "hacc upload") < 0) {
            free(f);
            return -1;
        }
    }
    free(f);
    if (pairs && cuda_check(cudaMemcpy(s->pairs, pairs, s->npairs * sizeof(uint2), cudaMemcpyHostToDevice),
                            err, "hacc upload") < 0)
        return -1;
    return 0;
}

int hacc_fill(struct pp_ctx *ctx, double value, struct pp_error *err)
{
    cuda_hacc *s;
    const unsigned block = 256;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP32)
        fill_kernel<float>
            <<<(unsigned)((s->n + block - 1) / block), block>>>(arrays<float>(s), (float)value, s->n);
    else
        fill_kernel<double>
            <<<(unsigned)((s->n + block - 1) / block), block>>>(arrays<double>(s), value, s->n);
    return finish("hacc fill", err);
}

#if PP_VARIANT_REGION(SELECT) || PP_VARIANT_REGION(MEMORY_32) || PP_VARIANT_REGION(MEMORY_OBJECT)
template <typename T, typename P, int V> void launch_exchange(const cuda_hacc *s)
{
    constexpr int NO = P::NOUT;
    const size_t scratch = V == PP_HACC_MEMORY_OBJECT ? 2 * s->leaf_size * sizeof(P)
                           : V == PP_HACC_MEMORY_32   ? 2 * s->leaf_size * 4
                                                      : 0;
    const size_t shared = (size_t)s->leaf_size * NO * sizeof(T) + scratch;
    pair_exchange<T, P, V><<<(unsigned)s->npairs, 2 * s->leaf_size, shared>>>(arrays<T>(s), s->leaf_size);
}
#endif

template <typename T, typename P> void launch(const cuda_hacc *s)
{
    switch (s->variant) {
#if PP_VARIANT_REGION(SELECT)
    case PP_HACC_SELECT:
        return launch_exchange<T, P, PP_HACC_SELECT>(s);
#endif
#if PP_VARIANT_REGION(MEMORY_32)
    case PP_HACC_MEMORY_32:
        return launch_exchange<T, P, PP_HACC_MEMORY_32>(s);
#endif
#if PP_VARIANT_REGION(MEMORY_OBJECT)
    case PP_HACC_MEMORY_OBJECT:
        return launch_exchange<T, P, PP_HACC_MEMORY_OBJECT>(s);
#endif
#if PP_VARIANT_REGION(BROADCAST)
    default:
        pair_broadcast<T, P><<<(unsigned)s->npairs, 2 * s->leaf_size>>>(arrays<T>(s), s->leaf_size);
#endif
    }
}

int hacc_run(struct pp_ctx *ctx, enum pp_hacc_kernel k, struct pp_error *err)
{
    cuda_hacc *s;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP32)
        k == PP_HACC_GRAVITY ? launch<float, Grav<float>>(s) : launch<float, Sph<float>>(s);
    else
        k == PP_HACC_GRAVITY ? launch<double, Grav<double>>(s) : launch<double, Sph<double>>(s);
    return finish(k == PP_HACC_GRAVITY ? "hacc gravity" : "hacc sph", err);
}

int hacc_download(struct pp_ctx *ctx, double *const out[PP_HACC_NOUT], struct pp_error *err)
{
    cuda_hacc *s;

    if (state(ctx, &s, err))
        return -1;
    for (int o = 0; o < PP_HACC_NOUT; o++) {
        if (s->prec == PP_FP64) {
            if (cuda_check(cudaMemcpy(out[o], s->out[o], s->n * 8, cudaMemcpyDeviceToHost), err,
                           "hacc download") < 0)
                return -1;
            continue;
        }
        /* fp32 lands in the upper half of out[o], then widens from the front */
        float *f = (float *)((char *)out[o] + s->n * 4);
        if (cuda_check(cudaMemcpy(f, s->out[o], s->n * 4, cudaMemcpyDeviceToHost), err, "hacc download") < 0)
            return -1;
        for (size_t i = 0; i < s->n; i++)
            out[o][i] = f[i];
    }
    return 0;
}

const struct pp_hacc_ops cuda_hacc_ops = {
    .variants = (1u << PP_HACC_SELECT) | (1u << PP_HACC_MEMORY_32) | (1u << PP_HACC_MEMORY_OBJECT) |
                (1u << PP_HACC_BROADCAST),
    .alloc = hacc_alloc,
    .upload = hacc_upload,
    .fill = hacc_fill,
    .run = hacc_run,
    .download = hacc_download,
    .release = hacc_release,
};

} // namespace

PP_SUITE_IMPL(cuda, hacc) = {
    .suite = "hacc",
    .ops = &cuda_hacc_ops,
    .release = hacc_release,
};
