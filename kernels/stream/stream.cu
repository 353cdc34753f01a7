/*
 * stream: the STREAM kernels of paper 004 (BabelStream) in CUDA, for fp32 and fp64, as cuda_stream_ops.
 *
 * Every op launches one kernel on the legacy default stream and waits for it, so the driver can time it with
 * a host clock; the dot also copies its per-block partial sums to pinned host memory and adds them there in
 * the precision, inside the op, as BabelStream does. Two memory-access variants (cuda.h): "vec16" (each
 * thread moves one 16-byte vector per array; the n % width tail elements go to the next threads) and "scalar"
 * (one element per thread). Indices are size_t: n * sizeof(T) may exceed 2^31.
 *
 * Ownership: alloc() owns the arrays, the partials and their pinned host copy until release() (or the next
 * alloc, or close). Threads: the context's thread only.
 */
#include "kernels/cuda/cuda.h"

#include <limits.h>
#include <stdint.h>

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
int launch(struct pp_ctx *ctx, const Op &op, const char *what, struct pp_error *err)
{
    const size_t threads = ctx->n / W + ctx->n % W;
    const size_t grid = (threads + ctx->block - 1) / ctx->block; /* below 2^31: checked by alloc */

    if (grid == 0)
        return 0;
    stream_kernel<W><<<(unsigned)grid, ctx->block>>>(op, ctx->n);
    return finish(what, err);
}

/* Run the element-wise op Op on ctx's arrays in ctx's precision and variant. */
template <template <typename> class Op>
int run(struct pp_ctx *ctx, double s, const char *what, struct pp_error *err)
{
    if (!ctx->a)
        return pp_error_set(err, "%s: arrays not allocated", what);
    if (ctx->prec == PP_FP32) {
        const Op<float> op = {(float *)ctx->a, (float *)ctx->b, (float *)ctx->c, (float)s};
        return ctx->variant == CUDA_VEC16 ? launch<vec_width<float>>(ctx, op, what, err)
                                          : launch<1>(ctx, op, what, err);
    }
    const Op<double> op = {(double *)ctx->a, (double *)ctx->b, (double *)ctx->c, s};
    return ctx->variant == CUDA_VEC16 ? launch<vec_width<double>>(ctx, op, what, err)
                                      : launch<1>(ctx, op, what, err);
}

template <typename T> int init_t(struct pp_ctx *ctx, double a, double b, double c, struct pp_error *err)
{
    const init_op<T> op = {(T *)ctx->a, (T *)ctx->b, (T *)ctx->c, (T)a, (T)b, (T)c};

    return ctx->variant == CUDA_VEC16 ? launch<vec_width<T>>(ctx, op, "init", err)
                                      : launch<1>(ctx, op, "init", err);
}

template <typename T, unsigned W> int dot_t(struct pp_ctx *ctx, double *out, struct pp_error *err)
{
    const T *host = (const T *)ctx->host_partials;
    T sum = 0;

    dot_kernel<T, W>
        <<<ctx->dot_groups, ctx->block>>>((const T *)ctx->a, (const T *)ctx->b, (T *)ctx->partials, ctx->n);
    if (cuda_check(cudaGetLastError(), err, "dot") < 0)
        return -1;
    /* Waits for the kernel (legacy default stream) and returns once the pinned copy is complete. */
    if (cuda_check(cudaMemcpy(ctx->host_partials, ctx->partials, ctx->dot_groups * sizeof(T),
                              cudaMemcpyDeviceToHost),
                   err, "dot") < 0)
        return -1;
    for (unsigned g = 0; g < ctx->dot_groups; g++)
        sum += host[g];
    *out = (double)sum;
    return 0;
}

/* Resident dot blocks per SM at ctx's block size, for precision T. */
template <typename T> int dot_fit(const struct pp_ctx *ctx, int *blocks, struct pp_error *err)
{
    cudaError_t e =
        ctx->variant == CUDA_VEC16
            ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, dot_kernel<T, vec_width<T>>,
                                                            (int)ctx->block, 0)
            : cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, dot_kernel<T, 1>, (int)ctx->block, 0);

    return cuda_check(e, err, "alloc: cudaOccupancyMaxActiveBlocksPerMultiprocessor");
}

void cuda_release(struct pp_ctx *ctx)
{
    /* Errors are ignored: after a sticky kernel fault every call fails, and the process ends soon after. */
    (void)cudaFree(ctx->a);
    (void)cudaFree(ctx->b);
    (void)cudaFree(ctx->c);
    (void)cudaFree(ctx->partials);
    (void)cudaFreeHost(ctx->host_partials);
    ctx->a = ctx->b = ctx->c = ctx->partials = ctx->host_partials = NULL;
    ctx->n = 0;
    ctx->dot_groups = 0;
}

int cuda_alloc(struct pp_ctx *ctx, size_t n, enum pp_precision prec, struct pp_stream_layout *layout,
               struct pp_error *err)
{
    const size_t elem = pp_precision_bytes(prec);
    const unsigned w = ctx->variant == CUDA_VEC16 ? 16 / (unsigned)elem : 1;
    size_t bytes, free_bytes = 0, total_bytes = 0;
    int fit = 0, ret = -1;

    cuda_release(ctx);
    if (n > SIZE_MAX / 3 / elem)
        return pp_error_set(err, "alloc: %zu elements of %zu bytes overflow the address space", n, elem);
    if ((n + ctx->block - 1) / ctx->block > INT_MAX)
        return pp_error_set(err, "alloc: %zu elements need more than %d blocks of %u threads", n, INT_MAX,
                            ctx->block);
    bytes = n * elem;
    if (cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), err, "alloc: cudaMemGetInfo") < 0)
        return -1;
    if (3 * bytes > free_bytes)
        return pp_error_set(err,
                            "alloc: 3 arrays of %zu bytes need %.2f GiB but the device has %.2f GiB free",
                            bytes, 3.0 * (double)bytes / (1 << 30), (double)free_bytes / (1 << 30));
    if ((prec == PP_FP32 ? dot_fit<float>(ctx, &fit, err) : dot_fit<double>(ctx, &fit, err)) < 0)
        return -1;
    if (fit < 1)
        return pp_error_set(err, "alloc: the dot kernel does not fit on an SM with blocks of %u threads",
                            ctx->block);
    ctx->prec = prec;
    ctx->n = n;
    ctx->dot_groups = (unsigned)ctx->sm_count * (ctx->dot_per_sm ? ctx->dot_per_sm : (unsigned)fit);
    /* At least one element each, so that the pointers are set even for n = 0. */
    if (cuda_check(cudaMalloc(&ctx->a, bytes ? bytes : elem), err, "alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc(&ctx->b, bytes ? bytes : elem), err, "alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc(&ctx->c, bytes ? bytes : elem), err, "alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc(&ctx->partials, ctx->dot_groups * elem), err, "alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMallocHost(&ctx->host_partials, ctx->dot_groups * elem), err,
                   "alloc: cudaMallocHost") < 0)
        goto out;
    layout->work_group = ctx->block;
    layout->dot_groups = ctx->dot_groups;
    layout->dot_chain = dot_chain(n, w, ctx->block, ctx->dot_groups);
    ret = 0;
out:
    if (ret < 0)
        cuda_release(ctx);
    return ret;
}

int cuda_init(struct pp_ctx *ctx, double a, double b, double c, struct pp_error *err)
{
    if (!ctx->a)
        return pp_error_set(err, "init: arrays not allocated");
    return ctx->prec == PP_FP32 ? init_t<float>(ctx, a, b, c, err) : init_t<double>(ctx, a, b, c, err);
}

int cuda_read(struct pp_ctx *ctx, void *a, void *b, void *c, struct pp_error *err)
{
    const size_t bytes = ctx->n * pp_precision_bytes(ctx->prec);

    if (!ctx->a)
        return pp_error_set(err, "read: arrays not allocated");
    if (bytes == 0)
        return 0;
    if (cuda_check(cudaMemcpy(a, ctx->a, bytes, cudaMemcpyDeviceToHost), err, "read: cudaMemcpy") < 0 ||
        cuda_check(cudaMemcpy(b, ctx->b, bytes, cudaMemcpyDeviceToHost), err, "read: cudaMemcpy") < 0 ||
        cuda_check(cudaMemcpy(c, ctx->c, bytes, cudaMemcpyDeviceToHost), err, "read: cudaMemcpy") < 0)
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
    if (!ctx->a)
        return pp_error_set(err, "dot: arrays not allocated");
    if (ctx->prec == PP_FP32)
        return ctx->variant == CUDA_VEC16 ? dot_t<float, vec_width<float>>(ctx, sum, err)
                                          : dot_t<float, 1>(ctx, sum, err);
    return ctx->variant == CUDA_VEC16 ? dot_t<double, vec_width<double>>(ctx, sum, err)
                                      : dot_t<double, 1>(ctx, sum, err);
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

} // namespace

void cuda_stream_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    info_add(out, "cuda.variant", "%s", cuda_variant_name(ctx->variant));
    info_add(out, "cuda.block_size", "%u", ctx->block);
    if (ctx->dot_per_sm)
        info_add(out, "cuda.dot_blocks_per_sm", "%u", ctx->dot_per_sm);
    else if (ctx->dot_groups)
        info_add(out, "cuda.dot_blocks_per_sm", "%u (resident)", ctx->dot_groups / (unsigned)ctx->sm_count);
    else
        info_add(out, "cuda.dot_blocks_per_sm", "resident");
    if (ctx->prec == PP_FP32)
        ctx->variant == CUDA_VEC16 ? describe_kernels<float, vec_width<float>>(out)
                                   : describe_kernels<float, 1>(out);
    else
        ctx->variant == CUDA_VEC16 ? describe_kernels<double, vec_width<double>>(out)
                                   : describe_kernels<double, 1>(out);
    /* The stream ops do not change the device's error state; clear what a failed query left. */
    (void)cudaGetLastError();
}

const struct pp_stream_ops cuda_stream_ops = {
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
