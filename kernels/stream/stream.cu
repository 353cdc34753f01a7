/*
 * stream: the STREAM kernels of paper 004 (BabelStream) in CUDA, for fp32 and fp64, as cuda_stream_ops.
 *
 * Every op launches one kernel on the legacy default stream and waits for it, so the driver can time it with
 * a host clock; the dot also copies its per-block partial sums to pinned host memory and adds them there in
 * the precision, inside the op, as BabelStream does. Two memory-access variants (enum cuda_variant): "vec16"
 * (each thread moves one 16-byte vector per array; the n % width tail elements go to the next threads) and
 * "scalar" (one element per thread). Indices are size_t: n * sizeof(T) may exceed 2^31. The variant, the
 * block size and the dot's blocks per SM come from the environment at alloc (PPBENCH_CUDA_VARIANT,
 * PPBENCH_CUDA_BLOCK, PPBENCH_CUDA_DOT_BLOCKS_PER_SM).
 *
 * Ownership: the suite's state in a context (struct cuda_stream_state, private to this file) is created by
 * the first alloc and kept in the context's suite slots; alloc() owns the arrays, the partials and their
 * pinned host copy until release() (or the next alloc, or close); the choices stay for describe until close,
 * which frees the state (cuda_stream_impl). Threads: the context's thread only.
 */
#include "kernels/cuda/cuda.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/stream/stream_ops.h"

#define CUDA_MAX_BLOCK 1024

/* How the streaming kernels touch memory (PPBENCH_CUDA_VARIANT). */
enum cuda_variant {
    CUDA_VEC16 = 0,  /* "vec16": each thread moves one 16-byte vector (float4, double2) of every array */
    CUDA_SCALAR = 1, /* "scalar": each thread moves one element, as BabelStream's CUDA version */
};

/* The suite's state in a context. */
struct cuda_stream_state {
    enum cuda_variant variant;
    unsigned block;      /* threads per block of every kernel (PPBENCH_CUDA_BLOCK) */
    unsigned dot_per_sm; /* dot blocks per SM asked for (PPBENCH_CUDA_DOT_BLOCKS_PER_SM); 0: as many as fit */

    /* alloc .. release */
    enum pp_precision prec;
    size_t n;
    void *a, *b, *c;     /* device arrays of n elements */
    void *partials;      /* device: one partial sum per dot block */
    void *host_partials; /* pinned host copy of partials */
    unsigned dot_groups; /* blocks of the dot kernel: sm_count x dot blocks per SM */
};

/* slot_get, slot_new, slot_close: the state in the context's suite slots (backend.h). */
PP_SUITE_SLOT(cuda, stream, struct cuda_stream_state, ctx->suites, cuda_release)

namespace
{

/* W consecutive elements moved with one access: 16 bytes for the vec16 variant, one element for scalar. */
template <typename T, unsigned W> struct alignas(sizeof(T) * W) pack {
    T v[W];
};

template <typename T> constexpr unsigned vec_width = 16 / sizeof(T);

template <unsigned W, typename T> __device__ __forceinline__ pack<T, W> load(const T *p, size_t i)
{
    return reinterpret_cast<const pack<T, W> *>(p)[i];
}

template <unsigned W, typename T> __device__ __forceinline__ void store(T *p, size_t i, const pack<T, W> &x)
{
    reinterpret_cast<pack<T, W> *>(p)[i] = x;
}

/* The element-wise ops: step<W>(i) does pack i (elements i*W .. i*W + W - 1). */
template <typename T> struct init_op {
    T *a, *b, *c;
    T va, vb, vc;
    template <unsigned W> __device__ void step(size_t i) const
    {
        pack<T, W> x, y, z;
#pragma unroll
        for (unsigned k = 0; k < W; k++) {
            x.v[k] = va;
            y.v[k] = vb;
            z.v[k] = vc;
        }
        store<W>(a, i, x);
        store<W>(b, i, y);
        store<W>(c, i, z);
    }
};

template <typename T> struct copy_op {
    T *a, *b, *c;
    T s;
    template <unsigned W> __device__ void step(size_t i) const
    {
        store<W>(c, i, load<W>(a, i));
    }
};

template <typename T> struct mul_op {
    T *a, *b, *c;
    T s;
    template <unsigned W> __device__ void step(size_t i) const
    {
        pack<T, W> x = load<W>(c, i), r;
#pragma unroll
        for (unsigned k = 0; k < W; k++)
            r.v[k] = s * x.v[k];
        store<W>(b, i, r);
    }
};

template <typename T> struct add_op {
    T *a, *b, *c;
    T s;
    template <unsigned W> __device__ void step(size_t i) const
    {
        pack<T, W> x = load<W>(a, i), y = load<W>(b, i), r;
#pragma unroll
        for (unsigned k = 0; k < W; k++)
            r.v[k] = x.v[k] + y.v[k];
        store<W>(c, i, r);
    }
};

template <typename T> struct triad_op {
    T *a, *b, *c;
    T s;
    template <unsigned W> __device__ void step(size_t i) const
    {
        pack<T, W> x = load<W>(b, i), y = load<W>(c, i), r;
#pragma unroll
        for (unsigned k = 0; k < W; k++)
            r.v[k] = x.v[k] + s * y.v[k];
        store<W>(a, i, r);
    }
};

template <typename T> struct nstream_op {
    T *a, *b, *c;
    T s;
    template <unsigned W> __device__ void step(size_t i) const
    {
        pack<T, W> x = load<W>(a, i), y = load<W>(b, i), z = load<W>(c, i), r;
#pragma unroll
        for (unsigned k = 0; k < W; k++)
            r.v[k] = x.v[k] + (y.v[k] + s * z.v[k]);
        store<W>(a, i, r);
    }
};

/* One pack per thread: threads 0 .. n/W - 1 do the packs, the next n % W threads one tail element each. */
template <unsigned W, typename Op> __global__ void __launch_bounds__(1024) stream_kernel(Op op, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t packs = n / W;

    if (i < packs) {
        op.template step<W>(i);
    } else if constexpr (W > 1) {
        if (i - packs < n % W)
            op.template step<1>(packs * W + (i - packs));
    }
}

/* Sum of v over the block, valid in thread 0: log2(32) shuffle levels, then log2(warps) in warp 0. */
template <typename T> __device__ __forceinline__ T block_sum(T v)
{
    __shared__ T warp_sums[32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;

#pragma unroll
    for (unsigned off = 16; off > 0; off /= 2)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < warps ? warp_sums[lane] : T(0);
        for (unsigned off = warps / 2; off > 0; off /= 2)
            v += __shfl_down_sync(0xffffffffu, v, off);
    }
    return v;
}

/*
 * Dot: a grid-stride loop over packs, two packs of a and b in flight per iteration, one accumulator per lane;
 * the tail elements go to lane 0 of the first threads; the lanes are added as a tree, then the block, and
 * thread 0 writes the block's partial sum. Longest addition chain: see dot_chain().
 */
template <typename T, unsigned W>
__global__ void __launch_bounds__(1024) dot_kernel(const T *a, const T *b, T *partials, size_t n)
{
    const size_t packs = n / W, stride = (size_t)gridDim.x * blockDim.x;
    const size_t gid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t i = gid;
    T acc[W];

#pragma unroll
    for (unsigned k = 0; k < W; k++)
        acc[k] = 0;
    for (; i + stride < packs; i += 2 * stride) {
        pack<T, W> x0 = load<W>(a, i), y0 = load<W>(b, i);
        pack<T, W> x1 = load<W>(a, i + stride), y1 = load<W>(b, i + stride);
#pragma unroll
        for (unsigned k = 0; k < W; k++) {
            acc[k] += x0.v[k] * y0.v[k];
            acc[k] += x1.v[k] * y1.v[k];
        }
    }
    if (i < packs) {
        pack<T, W> x = load<W>(a, i), y = load<W>(b, i);
#pragma unroll
        for (unsigned k = 0; k < W; k++)
            acc[k] += x.v[k] * y.v[k];
    }
    if constexpr (W > 1) {
        if (gid < n % W)
            acc[0] += a[packs * W + gid] * b[packs * W + gid];
    }
#pragma unroll
    for (unsigned half = W / 2; half > 0; half /= 2)
#pragma unroll
        for (unsigned k = 0; k < half; k++)
            acc[k] += acc[k + half];
    T sum = block_sum(acc[0]);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = sum;
}

unsigned log2u(unsigned x)
{
    unsigned l = 0;

    while (x >>= 1)
        l++;
    return l;
}

/* Longest chain of sequential additions behind the dot's result, for its verification bound: per lane of a
 * thread ceil(packs / threads) products plus one tail element, log2(W) levels over the lanes, log2(block)
 * levels over the block, then dot_groups additions on the host. */
uint64_t dot_chain(size_t n, unsigned w, unsigned block, unsigned groups)
{
    const uint64_t threads = (uint64_t)groups * block, packs = n / w;

    return (packs + threads - 1) / threads + (w > 1 ? 1 + log2u(w) : 0) + log2u(block) + groups;
}

int finish(const char *what, struct pp_error *err)
{
    if (cuda_check(cudaGetLastError(), err, what) < 0)
        return -1;
    return cuda_check(cudaDeviceSynchronize(), err, what);
}

template <unsigned W, typename Op>
int launch(const struct cuda_stream_state *st, const Op &op, const char *what, struct pp_error *err)
{
    const size_t threads = st->n / W + st->n % W;
    const size_t grid = (threads + st->block - 1) / st->block; /* below 2^31: checked by alloc */

    if (grid == 0)
        return 0;
    stream_kernel<W><<<(unsigned)grid, st->block>>>(op, st->n);
    return finish(what, err);
}

/* The state of ctx for a kernel: NULL with err when no arrays are allocated. */
struct cuda_stream_state *arrays(struct pp_ctx *ctx, const char *what, struct pp_error *err)
{
    struct cuda_stream_state *st = slot_get(ctx);

    if (!st || !st->a) {
        (void)pp_error_set(err, "%s: arrays not allocated", what);
        return NULL;
    }
    return st;
}

/* Run the element-wise op Op on ctx's arrays in ctx's precision and variant. */
template <template <typename> class Op>
int run(struct pp_ctx *ctx, double s, const char *what, struct pp_error *err)
{
    const struct cuda_stream_state *st = arrays(ctx, what, err);

    if (!st)
        return -1;
    if (st->prec == PP_FP32) {
        const Op<float> op = {(float *)st->a, (float *)st->b, (float *)st->c, (float)s};
        return st->variant == CUDA_VEC16 ? launch<vec_width<float>>(st, op, what, err)
                                         : launch<1>(st, op, what, err);
    }
    const Op<double> op = {(double *)st->a, (double *)st->b, (double *)st->c, s};
    return st->variant == CUDA_VEC16 ? launch<vec_width<double>>(st, op, what, err)
                                     : launch<1>(st, op, what, err);
}

template <typename T>
int init_t(const struct cuda_stream_state *st, double a, double b, double c, struct pp_error *err)
{
    const init_op<T> op = {(T *)st->a, (T *)st->b, (T *)st->c, (T)a, (T)b, (T)c};

    return st->variant == CUDA_VEC16 ? launch<vec_width<T>>(st, op, "init", err)
                                     : launch<1>(st, op, "init", err);
}

template <typename T, unsigned W>
int dot_t(const struct cuda_stream_state *st, double *out, struct pp_error *err)
{
    const T *host = (const T *)st->host_partials;
    T sum = 0;

    dot_kernel<T, W>
        <<<st->dot_groups, st->block>>>((const T *)st->a, (const T *)st->b, (T *)st->partials, st->n);
    if (cuda_check(cudaGetLastError(), err, "dot") < 0)
        return -1;
    /* Waits for the kernel (legacy default stream) and returns once the pinned copy is complete. */
    if (cuda_check(
            cudaMemcpy(st->host_partials, st->partials, st->dot_groups * sizeof(T), cudaMemcpyDeviceToHost),
            err, "dot") < 0)
        return -1;
    for (unsigned g = 0; g < st->dot_groups; g++)
        sum += host[g];
    *out = (double)sum;
    return 0;
}

/* Resident dot blocks per SM at st's block size, for precision T. */
template <typename T> int dot_fit(const struct cuda_stream_state *st, int *blocks, struct pp_error *err)
{
    cudaError_t e =
        st->variant == CUDA_VEC16
            ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, dot_kernel<T, vec_width<T>>,
                                                            (int)st->block, 0)
            : cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, dot_kernel<T, 1>, (int)st->block, 0);

    return cuda_check(e, err, "alloc: cudaOccupancyMaxActiveBlocksPerMultiprocessor");
}

/* An unsigned integer from the environment in [lo, hi]; *val is kept when the variable is unset or empty. */
int env_unsigned(const char *name, unsigned lo, unsigned hi, unsigned *val, struct pp_error *err)
{
    const char *s = getenv(name);
    char *end;
    unsigned long v;

    if (!s || !*s)
        return 0;
    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno || *end || s[0] == '-' || v < lo || v > hi)
        return pp_error_set(err, "%s: \"%s\" is not an integer in [%u, %u]", name, s, lo, hi);
    *val = (unsigned)v;
    return 0;
}

/* PPBENCH_CUDA_VARIANT, PPBENCH_CUDA_BLOCK (within the device's threads per block),
 * PPBENCH_CUDA_DOT_BLOCKS_PER_SM. */
int read_env(struct cuda_stream_state *st, int device, struct pp_error *err)
{
    const char *v = getenv("PPBENCH_CUDA_VARIANT");
    int max_block = 0;

    st->variant = CUDA_VEC16;
    if (v && *v) {
        if (strcmp(v, "vec16") == 0)
            st->variant = CUDA_VEC16;
        else if (strcmp(v, "scalar") == 0)
            st->variant = CUDA_SCALAR;
        else
            return pp_error_set(err,
                                "PPBENCH_CUDA_VARIANT: unknown variant \"%s\" (expected vec16 or scalar)", v);
    }
    st->block = CUDA_MAX_BLOCK;
    if (env_unsigned("PPBENCH_CUDA_BLOCK", 32, CUDA_MAX_BLOCK, &st->block, err) < 0)
        return -1;
    if (st->block & (st->block - 1))
        return pp_error_set(err, "PPBENCH_CUDA_BLOCK: %u is not a power of two in [32, %d]", st->block,
                            CUDA_MAX_BLOCK);
    if (cuda_check(cudaDeviceGetAttribute(&max_block, cudaDevAttrMaxThreadsPerBlock, device), err,
                   "alloc: cudaDeviceGetAttribute") < 0)
        return -1;
    if ((int)st->block > max_block)
        return pp_error_set(err, "PPBENCH_CUDA_BLOCK: %u is above the device's %d threads per block",
                            st->block, max_block);
    st->dot_per_sm = 0;
    return env_unsigned("PPBENCH_CUDA_DOT_BLOCKS_PER_SM", 1, 64, &st->dot_per_sm, err);
}

} // namespace

/* The ops' release: the arrays; the state (what describe reports) stays until slot_close. */
static void cuda_release(struct pp_ctx *ctx)
{
    struct cuda_stream_state *st = slot_get(ctx);

    if (!st)
        return;
    /* Errors are ignored: after a sticky kernel fault every call fails, and the process ends soon after. */
    (void)cudaFree(st->a);
    (void)cudaFree(st->b);
    (void)cudaFree(st->c);
    (void)cudaFree(st->partials);
    (void)cudaFreeHost(st->host_partials);
    st->a = st->b = st->c = st->partials = st->host_partials = NULL;
    st->n = 0;
    st->dot_groups = 0;
}

namespace
{

int cuda_alloc(struct pp_ctx *ctx, size_t n, enum pp_precision prec, struct pp_stream_layout *layout,
               struct pp_error *err)
{
    struct cuda_stream_state *st = slot_new(ctx);
    const size_t elem = pp_precision_bytes(prec);
    unsigned w;
    size_t bytes, free_bytes = 0, total_bytes = 0;
    int fit = 0, ret = -1;

    if (!st)
        return pp_error_set(err, "out of memory");
    cuda_release(ctx);
    if (read_env(st, ctx->device, err) < 0)
        return -1;
    w = st->variant == CUDA_VEC16 ? 16 / (unsigned)elem : 1;
    if (n > SIZE_MAX / 3 / elem)
        return pp_error_set(err, "alloc: %zu elements of %zu bytes overflow the address space", n, elem);
    if ((n + st->block - 1) / st->block > INT_MAX)
        return pp_error_set(err, "alloc: %zu elements need more than %d blocks of %u threads", n, INT_MAX,
                            st->block);
    bytes = n * elem;
    if (cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), err, "alloc: cudaMemGetInfo") < 0)
        return -1;
    if (3 * bytes > free_bytes)
        return pp_error_set(err,
                            "alloc: 3 arrays of %zu bytes need %.2f GiB but the device has %.2f GiB free",
                            bytes, 3.0 * (double)bytes / (1 << 30), (double)free_bytes / (1 << 30));
    if ((prec == PP_FP32 ? dot_fit<float>(st, &fit, err) : dot_fit<double>(st, &fit, err)) < 0)
        return -1;
    if (fit < 1)
        return pp_error_set(err, "alloc: the dot kernel does not fit on an SM with blocks of %u threads",
                            st->block);
    st->prec = prec;
    st->n = n;
    st->dot_groups = (unsigned)ctx->sm_count * (st->dot_per_sm ? st->dot_per_sm : (unsigned)fit);
    /* At least one element each, so that the pointers are set even for n = 0. */
    if (cuda_check(cudaMalloc(&st->a, bytes ? bytes : elem), err, "alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc(&st->b, bytes ? bytes : elem), err, "alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc(&st->c, bytes ? bytes : elem), err, "alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc(&st->partials, st->dot_groups * elem), err, "alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMallocHost(&st->host_partials, st->dot_groups * elem), err, "alloc: cudaMallocHost") <
            0)
        goto out;
    layout->work_group = st->block;
    layout->dot_groups = st->dot_groups;
    layout->dot_chain = dot_chain(n, w, st->block, st->dot_groups);
    ret = 0;
out:
    if (ret < 0)
        cuda_release(ctx);
    return ret;
}

int cuda_init(struct pp_ctx *ctx, double a, double b, double c, struct pp_error *err)
{
    const struct cuda_stream_state *st = arrays(ctx, "init", err);

    if (!st)
        return -1;
    return st->prec == PP_FP32 ? init_t<float>(st, a, b, c, err) : init_t<double>(st, a, b, c, err);
}

int cuda_read(struct pp_ctx *ctx, void *a, void *b, void *c, struct pp_error *err)
{
    const struct cuda_stream_state *st = arrays(ctx, "read", err);
    size_t bytes;

    if (!st)
        return -1;
    bytes = st->n * pp_precision_bytes(st->prec);
    if (bytes == 0)
        return 0;
    if (cuda_check(cudaMemcpy(a, st->a, bytes, cudaMemcpyDeviceToHost), err, "read: cudaMemcpy") < 0 ||
        cuda_check(cudaMemcpy(b, st->b, bytes, cudaMemcpyDeviceToHost), err, "read: cudaMemcpy") < 0 ||
        cuda_check(cudaMemcpy(c, st->c, bytes, cudaMemcpyDeviceToHost), err, "read: cudaMemcpy") < 0)
        return -1;
    return 0;
}

int cuda_copy(struct pp_ctx *ctx, struct pp_error *err)
{
    return run<copy_op>(ctx, 0, "copy", err);
}

int cuda_mul(struct pp_ctx *ctx, double scalar, struct pp_error *err)
{
    return run<mul_op>(ctx, scalar, "mul", err);
}

int cuda_add(struct pp_ctx *ctx, struct pp_error *err)
{
    return run<add_op>(ctx, 0, "add", err);
}

int cuda_triad(struct pp_ctx *ctx, double scalar, struct pp_error *err)
{
    return run<triad_op>(ctx, scalar, "triad", err);
}

int cuda_nstream(struct pp_ctx *ctx, double scalar, struct pp_error *err)
{
    return run<nstream_op>(ctx, scalar, "nstream", err);
}

int cuda_dot(struct pp_ctx *ctx, double *sum, struct pp_error *err)
{
    const struct cuda_stream_state *st = arrays(ctx, "dot", err);

    if (!st)
        return -1;
    if (st->prec == PP_FP32)
        return st->variant == CUDA_VEC16 ? dot_t<float, vec_width<float>>(st, sum, err)
                                         : dot_t<float, 1>(st, sum, err);
    return st->variant == CUDA_VEC16 ? dot_t<double, vec_width<double>>(st, sum, err)
                                     : dot_t<double, 1>(st, sum, err);
}

/* The SASS the device runs (binaryVersion) and the registers per thread of the triad and dot kernels. */
template <typename T, unsigned W> void describe_kernels(struct pp_info_list *out)
{
    struct cudaFuncAttributes triad, dot;

    if (cudaFuncGetAttributes(&triad, stream_kernel<W, triad_op<T>>) != cudaSuccess ||
        cudaFuncGetAttributes(&dot, dot_kernel<T, W>) != cudaSuccess)
        return;
    info_add(out, "cuda.kernel_sass", "sm_%d", triad.binaryVersion);
    info_add(out, "cuda.kernel_regs", "triad %d, dot %d", triad.numRegs, dot.numRegs);
}

/* The choices of the last alloc (variant, block, dot blocks per SM, kernel registers) as cuda.* keys; none
 * before one. */
void cuda_stream_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    const struct cuda_stream_state *st = slot_get(ctx);

    if (!st || !st->block)
        return;
    info_add(out, "cuda.variant", "%s", st->variant == CUDA_SCALAR ? "scalar" : "vec16");
    info_add(out, "cuda.block_size", "%u", st->block);
    if (st->dot_per_sm)
        info_add(out, "cuda.dot_blocks_per_sm", "%u", st->dot_per_sm);
    else if (st->dot_groups)
        info_add(out, "cuda.dot_blocks_per_sm", "%u (resident)", st->dot_groups / (unsigned)ctx->sm_count);
    else
        info_add(out, "cuda.dot_blocks_per_sm", "resident");
    if (st->prec == PP_FP32)
        st->variant == CUDA_VEC16 ? describe_kernels<float, vec_width<float>>(out)
                                  : describe_kernels<float, 1>(out);
    else
        st->variant == CUDA_VEC16 ? describe_kernels<double, vec_width<double>>(out)
                                  : describe_kernels<double, 1>(out);
    /* The stream ops do not change the device's error state; clear what a failed query left. */
    (void)cudaGetLastError();
}

} // namespace

static const struct pp_stream_ops cuda_stream_ops = {
    .alloc = cuda_alloc,
    .init = cuda_init,
    .read = cuda_read,
    .copy = cuda_copy,
    .mul = cuda_mul,
    .add = cuda_add,
    .triad = cuda_triad,
    .nstream = cuda_nstream,
    .dot = cuda_dot,
    .release = cuda_release,
};

PP_SUITE_IMPL(cuda, stream) = {
    .suite = "stream",
    .ops = &cuda_stream_ops,
    .release = slot_close,
    .describe = cuda_stream_describe,
};
