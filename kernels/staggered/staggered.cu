/*
 * staggered: the MILC staggered Dslash (paper 001) in CUDA, every parallel strategy of Sec. III (1LP, 2LP,
 * 3LP-1, 3LP-2, 3LP-3, 4LP-1, 4LP-2) with its work-item orders, one template per strategy for fp64 and fp32,
 * as cuda_staggered_ops.
 *
 * Data stay in the canonical layout of struct pp_staggered_ops (staggered_ops.h), converted to the
 * precision and read as complex numbers (double2, float2):
 *   links[((l * n + s) * 4 + k) * 9 + i * 3 + j], vec[b * 3 + j], nbr[(l * 4 + k) * n + s], out[s * 3 + i]
 * where the input site b is computed from the lattice shape (kernels/lattice_hop.h: no table read, 64 bytes
 * per site less traffic) unless PPBENCH_STAGGERED_HOPS=table, which reads nbr as the paper's code does.
 * Term (l, k) of row i of site s: +/- sum_j L(l, k)[i][j] B(nbr)[j] (plus for l = 0, 1, minus for 2, 3). Each
 * thread accumulates its terms in registers, the first product and the first term assigned (1146 flop per
 * site, docs/METHODOLOGY.md; the atomic strategies add the first term onto a zeroed output); the strategies
 * differ in which loops are spread over threads and how partial sums meet (shared memory and barriers, or
 * atomicAdd, sm_60+ for double). Thread indices are 32-bit with compile-time divisors (alloc keeps the grid
 * below 2^32 threads); link offsets are size_t. Every kernel is bounded to 1024 threads per block (64
 * registers), so any block size the strategy allows fits. Each strategy's kernel and the geometry of each
 * order sit in variant regions (kernels/backend.h: STRATEGY and ORDER_<order>): all are built, one runs.
 *
 * alloc picks the kernel, refuses a block the kernel or device cannot run (naming --work-group), creates the
 * arrays and a stream; dslash launches its iterations back to back on that stream and synchronises it once.
 * Ownership: the suite's state in a context (struct cuda_staggered, private to this file) is kept in the
 * context's suite slots; its arrays belong to the context from alloc to release (or close), the kernel's
 * attributes, which describe reports, from alloc to the next alloc or close, which frees the state
 * (cuda_staggered_impl). Threads: the context's thread only.
 */
#include "kernels/cuda/cuda.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/lattice_hop.h"
#include "kernels/staggered/staggered_ops.h"

/* The loop extents of paper 001: matrices per direction (|l|), directions (|k|), rows and columns. */
#define NMAT       4
#define NDIM       4
#define NROW       3
#define NCOL       3
#define MAX_BLOCK  1024
#define LINK_REALS (NMAT * NDIM * NROW * NCOL * 2) /* per target site */
#define VEC_REALS  (NCOL * 2)
#define NBR        (NMAT * NDIM) /* neighbour indices per target site */

struct cuda_staggered {
    enum pp_precision prec;
    size_t n;
    void *links, *vec, *out;
    unsigned *nbr;
    uint4 shape;    /* X / 2, Y, Z, T */
    int hops_table; /* PPBENCH_STAGGERED_HOPS=table: the kernels read nbr; else they compute the input sites
                     */
    const void *kernel; /* the __global__ function of the strategy, order and precision */
    unsigned grid, block;
    size_t shared; /* dynamic shared memory per block */
    cudaStream_t stream;
    struct cudaFuncAttributes attr;
};

/* slot_get, slot_new, slot_close: the state in the context's suite slots (backend.h). */
PP_SUITE_SLOT(cuda, staggered, struct cuda_staggered, ctx->suites, staggered_release)

namespace
{

template <typename T> struct complex_of;
template <> struct complex_of<double> {
    using type = double2;
};
template <> struct complex_of<float> {
    using type = float2;
};

/* Kernel arguments, the same for every strategy. C: the complex type of the precision. */
template <typename C> struct stag_args {
    C *__restrict__ out;
    const C *__restrict__ links;
    const C *__restrict__ vec;
    const unsigned *__restrict__ nbr; /* NULL: the input sites are computed from shape */
    unsigned n;
    uint4 shape; /* X / 2, Y, Z, T */
};

template <typename C> struct colour {
    C c[NCOL];
};

/* The colour vector of term (l, k) of site s: B(nbr[(l * 4 + k) * n + s]), through the read-only path; the
 * input site is read from the table or computed (steps +1, +3, -1, -3 for l = 0..3, as the driver packs). */
template <typename C>
__device__ __forceinline__ colour<C> load_vec(const stag_args<C> &a, unsigned s, unsigned l, unsigned k)
{
    const unsigned b = a.nbr ? __ldg(a.nbr + (l * NDIM + k) * a.n + s)
                             : lattice_hop_odd(s, a.shape.x, a.shape.y, a.shape.z, a.shape.w, (int)k,
                                               (l & 1 ? 3 : 1) * (l < 2 ? 1 : -1));
    colour<C> v;

#pragma unroll
    for (unsigned j = 0; j < NCOL; j++)
        v.c[j] = __ldg(a.vec + b * NCOL + j);
    return v;
}

template <typename C> __device__ __forceinline__ C add(C a, C b)
{
    return C{a.x + b.x, a.y + b.y};
}

template <typename C> __device__ __forceinline__ C cmul(C a, C b)
{
    return C{a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}

/* Row i of matrix (l, k) of site s times v, the thread's share of the matrix-vector product, signed by the
 * term: sum_j L[i][j] v[j] for l = 0, 1, its negative for l = 2, 3. */
template <typename C>
__device__ __forceinline__ C row_times_vec(const stag_args<C> &a, unsigned s, unsigned l, unsigned k,
                                           unsigned i, const colour<C> &v)
{
    const C *row = a.links + ((size_t)(l * a.n + s) * NDIM + k) * (NROW * NCOL) + i * NCOL;
    C acc = cmul(__ldg(row), v.c[0]);

#pragma unroll
    for (unsigned j = 1; j < NCOL; j++)
        acc = add(acc, cmul(__ldg(row + j), v.c[j]));
    return l < 2 ? acc : C{-acc.x, -acc.y};
}

/* Term (l, k) of row i of site s: the work of one 4LP thread. */
template <typename C>
__device__ __forceinline__ C term(const stag_args<C> &a, unsigned s, unsigned l, unsigned k, unsigned i)
{
    return row_times_vec(a, s, l, k, i, load_vec(a, s, l, k));
}

#if PP_VARIANT_REGION(3LP_1) || PP_VARIANT_REGION(3LP_2)
/* Sum over l of the terms (l, k) of row i: the work of one 3LP thread. */
template <typename C>
__device__ __forceinline__ C sum_over_l(const stag_args<C> &a, unsigned s, unsigned k, unsigned i)
{
    C acc = term(a, s, 0, k, i);

#pragma unroll
    for (unsigned l = 1; l < NMAT; l++)
        acc = add(acc, term(a, s, l, k, i));
    return acc;
}
#endif

#if PP_VARIANT_REGION(3LP_1) || PP_VARIANT_REGION(4LP_1) || PP_VARIANT_REGION(4LP_2)
/* The sum of four shared-memory partial sums stride apart, from c[at]. */
template <typename C> __device__ __forceinline__ C sum4(const C *c, unsigned at, unsigned stride)
{
    return add(add(c[at], c[at + stride]), add(c[at + 2 * stride], c[at + 3 * stride]));
}
#endif

#if PP_VARIANT_REGION(3LP_2) || PP_VARIANT_REGION(3LP_3)
template <typename C> __device__ __forceinline__ void atomic_add(C *p, C v)
{
    atomicAdd(&p->x, v.x);
    atomicAdd(&p->y, v.y);
}
#endif

#if PP_VARIANT_REGION(3LP_1) || PP_VARIANT_REGION(3LP_2) || PP_VARIANT_REGION(4LP_1) ||                      \
    PP_VARIANT_REGION(4LP_2)
template <typename C> __device__ __forceinline__ C *shared_partials()
{
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    return reinterpret_cast<C *>(shared_bytes);
}
#endif

__device__ __forceinline__ unsigned global_id()
{
    return blockIdx.x * blockDim.x + threadIdx.x;
}

/*
 * Work-item geometry of the strategies that split a site over threads (paper 001, Sec. III-C and D): the
 * paper's index formulas for each order (i, k and l from the global id g) and the distance in threads between
 * the partial sums of neighbouring k (and l) of one (s, i).
 */
#if PP_VARIANT_REGION(3LP_1) || PP_VARIANT_REGION(3LP_2) || PP_VARIANT_REGION(3LP_3) ||                      \
    PP_VARIANT_REGION(4LP_1)
template <int Order> struct geometry3;
#endif

#if (PP_VARIANT_REGION(3LP_1) || PP_VARIANT_REGION(3LP_2) || PP_VARIANT_REGION(3LP_3) ||                     \
     PP_VARIANT_REGION(4LP_1)) &&                                                                            \
    PP_VARIANT_REGION(ORDER_K)
template <> struct geometry3<PP_ORDER_K> { /* i fastest, then k */
    static constexpr unsigned items = NDIM * NROW, stride_k = NROW;
    static __device__ unsigned i(unsigned g)
    {
        return g % NROW;
    }
    static __device__ unsigned k(unsigned g)
    {
        return (g / NROW) % NDIM;
    }
};
#endif

#if (PP_VARIANT_REGION(3LP_1) || PP_VARIANT_REGION(3LP_2) || PP_VARIANT_REGION(3LP_3) ||                     \
     PP_VARIANT_REGION(4LP_1)) &&                                                                            \
    PP_VARIANT_REGION(ORDER_I)
template <> struct geometry3<PP_ORDER_I> { /* k fastest, then i */
    static constexpr unsigned items = NDIM * NROW, stride_k = 1;
    static __device__ unsigned i(unsigned g)
    {
        return (g / NDIM) % NROW;
    }
    static __device__ unsigned k(unsigned g)
    {
        return g % NDIM;
    }
};
#endif

#if PP_VARIANT_REGION(4LP_1)
/* 4LP-1: grouped by l first, then as 3LP: k (k-major: i fastest) or i (i-major: k fastest). */
template <int Order> struct geometry4_1 : geometry3<Order> {
    static constexpr unsigned items = NMAT * NDIM * NROW, stride_l = NDIM * NROW;
    static __device__ unsigned l(unsigned g)
    {
        return (g / (NDIM * NROW)) % NMAT;
    }
};
#endif

#if PP_VARIANT_REGION(4LP_2) && PP_VARIANT_REGION(ORDER_L)
/* 4LP-2: grouped by k first, then l (l-major: i fastest) or i (i-major: l fastest). */
struct geometry4_2_l {
    static constexpr unsigned items = NMAT * NDIM * NROW;
    static __device__ unsigned i(unsigned g)
    {
        return g % NROW;
    }
    static __device__ unsigned k(unsigned g)
    {
        return (g / (NMAT * NROW)) % NDIM;
    }
    static __device__ unsigned l(unsigned g)
    {
        return (g / NROW) % NMAT;
    }
    static constexpr unsigned stride_k = NMAT * NROW, stride_l = NROW;
};
#endif

#if PP_VARIANT_REGION(4LP_2) && PP_VARIANT_REGION(ORDER_I)
struct geometry4_2_i {
    static constexpr unsigned items = NMAT * NDIM * NROW;
    static __device__ unsigned i(unsigned g)
    {
        return (g / NMAT) % NROW;
    }
    static __device__ unsigned k(unsigned g)
    {
        return (g / (NMAT * NROW)) % NDIM;
    }
    static __device__ unsigned l(unsigned g)
    {
        return g % NMAT;
    }
    static constexpr unsigned stride_k = NMAT * NROW, stride_l = 1;
};
#endif

#if PP_VARIANT_REGION(1LP)
/* ---- 1LP: one thread per target site, all 16 matrices (Sec. III-A) ---- */
template <typename C> __global__ void __launch_bounds__(MAX_BLOCK) stag_1lp(stag_args<C> a)
{
    const unsigned s = global_id();
    C acc[NROW];

#pragma unroll
    for (unsigned l = 0; l < NMAT; l++)
#pragma unroll
        for (unsigned k = 0; k < NDIM; k++) {
            const colour<C> v = load_vec(a, s, l, k);
#pragma unroll
            for (unsigned i = 0; i < NROW; i++) {
                const C p = row_times_vec(a, s, l, k, i, v);
                acc[i] = l == 0 && k == 0 ? p : add(acc[i], p);
            }
        }
#pragma unroll
    for (unsigned i = 0; i < NROW; i++)
        a.out[s * NROW + i] = acc[i];
}
#endif

#if PP_VARIANT_REGION(2LP)
/* ---- 2LP: three threads per site, one row i of every matrix (Sec. III-B) ---- */
template <typename C> __global__ void __launch_bounds__(MAX_BLOCK) stag_2lp(stag_args<C> a)
{
    const unsigned g = global_id();
    const unsigned s = g / NROW, i = g % NROW;
    C acc = term(a, s, 0, 0, i);

#pragma unroll
    for (unsigned t = 1; t < NMAT * NDIM; t++) /* t = l * NDIM + k */
        acc = add(acc, term(a, s, t / NDIM, t % NDIM, i));
    a.out[s * NROW + i] = acc;
}
#endif

/* ---- 3LP: twelve threads per site (i, k) (Sec. III-C) ---- */

#if PP_VARIANT_REGION(3LP_1)
/* 3LP-1: partial sums in shared memory, a barrier, the k == 0 thread adds the four and writes. */
template <typename C, int Order> __global__ void __launch_bounds__(MAX_BLOCK) stag_3lp1(stag_args<C> a)
{
    using G = geometry3<Order>;
    const unsigned g = global_id(), s = g / G::items, i = G::i(g), k = G::k(g);
    C *c = shared_partials<C>();

    c[threadIdx.x] = sum_over_l(a, s, k, i);
    __syncthreads();
    if (k == 0)
        a.out[s * NROW + i] = sum4(c, threadIdx.x, G::stride_k);
}
#endif

#if PP_VARIANT_REGION(3LP_2)
/* 3LP-2: partial sums in shared memory; k == 0 zeroes the output element, a barrier, then every thread adds
 * its partial sum into it with atomicAdd. */
template <typename C, int Order> __global__ void __launch_bounds__(MAX_BLOCK) stag_3lp2(stag_args<C> a)
{
    using G = geometry3<Order>;
    const unsigned g = global_id(), s = g / G::items, i = G::i(g), k = G::k(g);
    C *c = shared_partials<C>();

    c[threadIdx.x] = sum_over_l(a, s, k, i);
    if (k == 0)
        a.out[s * NROW + i] = C{0, 0};
    __syncthreads();
    atomic_add(&a.out[s * NROW + i], c[threadIdx.x]);
}
#endif

#if PP_VARIANT_REGION(3LP_3)
/* 3LP-3: no shared memory: k == 0 zeroes the output element, a barrier, then every term goes into it with
 * atomicAdd. */
template <typename C, int Order> __global__ void __launch_bounds__(MAX_BLOCK) stag_3lp3(stag_args<C> a)
{
    using G = geometry3<Order>;
    const unsigned g = global_id(), s = g / G::items, i = G::i(g), k = G::k(g);

    if (k == 0)
        a.out[s * NROW + i] = C{0, 0};
    __syncthreads();
#pragma unroll
    for (unsigned l = 0; l < NMAT; l++)
        atomic_add(&a.out[s * NROW + i], term(a, s, l, k, i));
}
#endif

#if PP_VARIANT_REGION(4LP_1) || PP_VARIANT_REGION(4LP_2)
/* ---- 4LP: 48 threads per site (i, k, l), one row of one matrix each (Sec. III-D) ----
 * Each thread writes its term to shared memory; a barrier; l == 0 adds the four l; a barrier; l == 0 and
 * k == 0 adds the four k and writes. 4LP-1 and 4LP-2 differ only in the geometry G. */
template <typename C, typename G> __global__ void __launch_bounds__(MAX_BLOCK) stag_4lp(stag_args<C> a)
{
    const unsigned g = global_id(), s = g / G::items, i = G::i(g), k = G::k(g), l = G::l(g);
    C *c = shared_partials<C>();

    c[threadIdx.x] = term(a, s, l, k, i);
    __syncthreads();
    if (l == 0)
        c[threadIdx.x] = sum4(c, threadIdx.x, G::stride_l);
    __syncthreads();
    if (l == 0 && k == 0)
        a.out[s * NROW + i] = sum4(c, threadIdx.x, G::stride_k);
}
#endif

/* The kernel of a strategy and order in precision T, whether it uses shared memory; NULL if there is none. */
template <typename T>
const void *find_kernel(enum pp_staggered_strategy s, enum pp_staggered_order o, bool *shared)
{
    using C = typename complex_of<T>::type;
    const bool k = o == PP_ORDER_K, i = o == PP_ORDER_I;

    *shared = s == PP_STAG_3LP_1 || s == PP_STAG_3LP_2 || s == PP_STAG_4LP_1 || s == PP_STAG_4LP_2;
    switch (s) {
#if PP_VARIANT_REGION(1LP)
    case PP_STAG_1LP:
        return o == PP_ORDER_NONE ? (const void *)stag_1lp<C> : NULL;
#endif
#if PP_VARIANT_REGION(2LP)
    case PP_STAG_2LP:
        return o == PP_ORDER_NONE ? (const void *)stag_2lp<C> : NULL;
#endif
#if PP_VARIANT_REGION(3LP_1)
    case PP_STAG_3LP_1:
        return k ? (const void *)stag_3lp1<C, PP_ORDER_K> : i ? (const void *)stag_3lp1<C, PP_ORDER_I> : NULL;
#endif
#if PP_VARIANT_REGION(3LP_2)
    case PP_STAG_3LP_2:
        return k ? (const void *)stag_3lp2<C, PP_ORDER_K> : i ? (const void *)stag_3lp2<C, PP_ORDER_I> : NULL;
#endif
#if PP_VARIANT_REGION(3LP_3)
    case PP_STAG_3LP_3:
        return k ? (const void *)stag_3lp3<C, PP_ORDER_K> : i ? (const void *)stag_3lp3<C, PP_ORDER_I> : NULL;
#endif
#if PP_VARIANT_REGION(4LP_1)
    case PP_STAG_4LP_1:
        return k   ? (const void *)stag_4lp<C, geometry4_1<PP_ORDER_K>>
               : i ? (const void *)stag_4lp<C, geometry4_1<PP_ORDER_I>>
                   : NULL;
#endif
#if PP_VARIANT_REGION(4LP_2)
    case PP_STAG_4LP_2:
        return o == PP_ORDER_L ? (const void *)stag_4lp<C, geometry4_2_l>
               : i             ? (const void *)stag_4lp<C, geometry4_2_i>
                               : NULL;
#endif
    default:
        return NULL;
    }
}

} // namespace

/* ---- host side ---- */

/* Frees the arrays and the stream; the kernel's description stays for describe until the next alloc or
 * slot_close. */
static void staggered_release(struct pp_ctx *ctx)
{
    struct cuda_staggered *st = slot_get(ctx);

    if (!st)
        return;
    /* Errors are ignored: after a sticky kernel fault every call fails, and the process ends soon after. */
    (void)cudaFree(st->links);
    (void)cudaFree(st->vec);
    (void)cudaFree(st->out);
    (void)cudaFree(st->nbr);
    if (st->stream)
        (void)cudaStreamDestroy(st->stream);
    st->links = st->vec = st->out = NULL;
    st->nbr = NULL;
    st->stream = NULL;
    st->n = 0;
}

/* Refuse a block the kernel (registers, shared memory) or the device cannot run, naming --work-group. */
static int check_block(struct cuda_staggered *st, bool shared, struct pp_error *err)
{
    int device = 0, max_block = 0, max_shared = 0;

    if (cuda_check(cudaFuncGetAttributes(&st->attr, st->kernel), err, "staggered: cudaFuncGetAttributes") <
            0 ||
        cuda_check(cudaGetDevice(&device), err, "staggered: cudaGetDevice") < 0 ||
        cuda_check(cudaDeviceGetAttribute(&max_block, cudaDevAttrMaxThreadsPerBlock, device), err,
                   "staggered: cudaDeviceGetAttribute") < 0 ||
        cuda_check(cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlock, device), err,
                   "staggered: cudaDeviceGetAttribute") < 0)
        return -1;
    if (st->block > (unsigned)max_block)
        return pp_error_set(err, "--work-group %u is above the device's %d threads per block", st->block,
                            max_block);
    if (st->block > (unsigned)st->attr.maxThreadsPerBlock)
        return pp_error_set(
            err, "--work-group %u is above the %d threads per block this kernel allows (%d registers)",
            st->block, st->attr.maxThreadsPerBlock, st->attr.numRegs);
    if (shared && st->shared + st->attr.sharedSizeBytes > (size_t)max_shared)
        return pp_error_set(err,
                            "--work-group %u needs %zu bytes of shared memory, the device has %d per block",
                            st->block, st->shared + st->attr.sharedSizeBytes, max_shared);
    return 0;
}

static int staggered_alloc(struct pp_ctx *ctx, size_t n, const unsigned dims[4], enum pp_precision prec,
                           struct pp_staggered_variant *variant, struct pp_error *err)
{
    struct cuda_staggered *st;
    const size_t elem = pp_precision_bytes(prec);
    const unsigned items = pp_staggered_items_per_site(variant->strategy);
    const size_t max_sites = UINT32_MAX / (items > NBR ? items : NBR);
    size_t free_bytes = 0, total_bytes = 0, bytes;
    const char *hops = getenv("PPBENCH_STAGGERED_HOPS");
    bool shared = false;
    int ret = -1;

    if (hops && *hops && strcmp(hops, "table") != 0 && strcmp(hops, "lattice") != 0)
        return pp_error_set(err, "PPBENCH_STAGGERED_HOPS=%s: must be table or lattice", hops);
    staggered_release(ctx);
    if ((st = slot_get(ctx)))
        memset(st, 0, sizeof(*st)); /* the last kernel's description goes too */
    /* 32-bit thread and neighbour indices: the grid and the neighbour table stay below 2^32 */
    if (n == 0 || n > max_sites)
        return pp_error_set(err, "%zu target sites are out of range (1 to %zu)", n, max_sites);
    if (variant->work_group == 0 || variant->work_group > MAX_BLOCK || (n * items) % variant->work_group != 0)
        return pp_error_set(err, "--work-group %u must divide the global size %zu and be at most %d",
                            variant->work_group, n * items, MAX_BLOCK);
    bytes = n * ((LINK_REALS + 2 * VEC_REALS) * elem + NBR * sizeof(unsigned));
    if (cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), err, "staggered: cudaMemGetInfo") < 0)
        return -1;
    if (bytes > free_bytes)
        return pp_error_set(err, "the fields need %.2f GiB but the device has %.2f GiB free",
                            (double)bytes / (1 << 30), (double)free_bytes / (1 << 30));

    st = slot_new(ctx);
    if (!st)
        return pp_error_set(err, "out of memory");
    st->prec = prec;
    st->n = n;
    st->shape = make_uint4(dims[0] / 2, dims[1], dims[2], dims[3]);
    st->hops_table = hops && strcmp(hops, "table") == 0;
    st->block = variant->work_group;
    st->grid = (unsigned)(n * items / st->block);
    st->kernel = prec == PP_FP64 ? find_kernel<double>(variant->strategy, variant->order, &shared)
                                 : find_kernel<float>(variant->strategy, variant->order, &shared);
    if (!st->kernel) {
        pp_error_set(err, "cuda has no staggered kernel for strategy %d with order %d",
                     (int)variant->strategy, (int)variant->order);
        goto out;
    }
    st->shared = shared ? (size_t)st->block * 2 * elem : 0;
    if (check_block(st, shared, err) < 0)
        goto out;
    if (cuda_check(cudaMalloc(&st->links, n * LINK_REALS * elem), err, "staggered: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc(&st->vec, n * VEC_REALS * elem), err, "staggered: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc(&st->out, n * VEC_REALS * elem), err, "staggered: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc(&st->nbr, n * NBR * sizeof(unsigned)), err, "staggered: cudaMalloc") < 0 ||
        /* a blocking stream: its kernels wait for the uploads (cudaMemcpy on the legacy default stream) */
        cuda_check(cudaStreamCreate(&st->stream), err, "staggered: cudaStreamCreate") < 0)
        goto out;
    variant->threads = 0;
    ret = 0;
out:
    if (ret < 0) {
        staggered_release(ctx);
        memset(st, 0, sizeof(*st));
    }
    return ret;
}

static int need_arrays(struct pp_ctx *ctx, struct pp_error *err)
{
    const struct cuda_staggered *st = slot_get(ctx);

    return st && st->n ? 0 : pp_error_set(err, "no staggered arrays allocated (alloc first)");
}

/* Copy count doubles to the device array dst in the working precision (a narrowed copy for fp32). */
static int upload_reals(const struct cuda_staggered *st, void *dst, const double *src, size_t count,
                        struct pp_error *err)
{
    float *narrow;
    int rc;

    if (st->prec == PP_FP64)
        return cuda_check(cudaMemcpy(dst, src, count * sizeof(double), cudaMemcpyHostToDevice), err,
                          "staggered upload: cudaMemcpy");
    narrow = (float *)malloc(count * sizeof(float));
    if (!narrow)
        return pp_error_set(err, "out of memory");
    for (size_t i = 0; i < count; i++)
        narrow[i] = (float)src[i];
    rc = cuda_check(cudaMemcpy(dst, narrow, count * sizeof(float), cudaMemcpyHostToDevice), err,
                    "staggered upload: cudaMemcpy");
    free(narrow);
    return rc;
}

static int staggered_upload(struct pp_ctx *ctx, const double *links, const double *vec, const uint32_t *nbr,
                            struct pp_error *err)
{
    struct cuda_staggered *st = slot_get(ctx);

    if (need_arrays(ctx, err) < 0 || upload_reals(st, st->links, links, st->n * LINK_REALS, err) < 0 ||
        upload_reals(st, st->vec, vec, st->n * VEC_REALS, err) < 0)
        return -1;
    return cuda_check(cudaMemcpy(st->nbr, nbr, st->n * NBR * sizeof(unsigned), cudaMemcpyHostToDevice), err,
                      "staggered upload: cudaMemcpy");
}

static int staggered_dslash(struct pp_ctx *ctx, unsigned iterations, struct pp_error *err)
{
    struct cuda_staggered *st = slot_get(ctx);
    stag_args<double2> a64;
    stag_args<float2> a32;
    void *args[1];

    if (need_arrays(ctx, err) < 0)
        return -1;
    if (st->prec == PP_FP64) {
        a64 = {(double2 *)st->out,       (const double2 *)st->links,
               (const double2 *)st->vec, st->hops_table ? st->nbr : NULL,
               (unsigned)st->n,          st->shape};
        args[0] = &a64;
    } else {
        a32 = {(float2 *)st->out,       (const float2 *)st->links,
               (const float2 *)st->vec, st->hops_table ? st->nbr : NULL,
               (unsigned)st->n,         st->shape};
        args[0] = &a32;
    }
    for (unsigned it = 0; it < iterations; it++)
        if (cuda_check(
                cudaLaunchKernel(st->kernel, dim3(st->grid), dim3(st->block), args, st->shared, st->stream),
                err, "staggered dslash: launch") < 0)
            return -1;
    return cuda_check(cudaStreamSynchronize(st->stream), err, "staggered dslash");
}

/* The whole output to all-ones bytes (NaN in either precision), blocking. It also gives the output its
 * first values: cudaMalloc leaves them undefined. */
static int staggered_poison(struct pp_ctx *ctx, struct pp_error *err)
{
    struct cuda_staggered *st = slot_get(ctx);

    if (need_arrays(ctx, err) < 0)
        return -1;
    if (cuda_check(cudaMemset(st->out, 0xff, st->n * VEC_REALS * pp_precision_bytes(st->prec)), err,
                   "staggered poison: cudaMemset") < 0)
        return -1;
    return cuda_check(cudaDeviceSynchronize(), err, "staggered poison");
}

static int staggered_download(struct pp_ctx *ctx, double *out, struct pp_error *err)
{
    struct cuda_staggered *st = slot_get(ctx);
    const size_t count = st ? st->n * VEC_REALS : 0;
    float *narrow;
    int rc;

    if (need_arrays(ctx, err) < 0)
        return -1;
    if (st->prec == PP_FP64)
        return cuda_check(cudaMemcpy(out, st->out, count * sizeof(double), cudaMemcpyDeviceToHost), err,
                          "staggered download: cudaMemcpy");
    narrow = (float *)malloc(count * sizeof(float));
    if (!narrow)
        return pp_error_set(err, "out of memory");
    rc = cuda_check(cudaMemcpy(narrow, st->out, count * sizeof(float), cudaMemcpyDeviceToHost), err,
                    "staggered download: cudaMemcpy");
    for (size_t i = 0; rc == 0 && i < count; i++)
        out[i] = narrow[i];
    free(narrow);
    return rc;
}

/* The staggered kernel of the last run (registers, spills, launch shape) as cuda.* keys; none without. */
static void staggered_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    const struct cuda_staggered *st = slot_get(ctx);

    if (!st || !st->kernel)
        return;
    info_add(out, "cuda.staggered_kernel",
             "sm_%d, %d registers, %zu bytes of local memory, block %u, grid %u", st->attr.binaryVersion,
             st->attr.numRegs, st->attr.localSizeBytes, st->block, st->grid);
    info_add(out, "cuda.staggered_hops", "%s", st->hops_table ? "table" : "lattice");
}

static const struct pp_staggered_ops cuda_staggered_ops = {
    .strategies = PP_STAG_WORK_ITEM_STRATEGIES,
    .alloc = staggered_alloc,
    .upload = staggered_upload,
    .dslash = staggered_dslash,
    .download = staggered_download,
    .poison = staggered_poison,
    .release = staggered_release,
};

PP_SUITE_IMPL(cuda, staggered) = {
    .suite = "staggered",
    .ops = &cuda_staggered_ops,
    .release = slot_close,
    .describe = staggered_describe,
};
