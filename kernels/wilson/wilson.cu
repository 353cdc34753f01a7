/*
 * wilson: the Wilson Dslash (paper 000, Eq. 1) in CUDA as cuda_wilson_ops, for fp32 and fp64 and both layouts
 * (aos: site-major; soa: one array per real component, site fastest, so that a warp's loads of a component
 * coalesce). The arithmetic of a site is kernels/wilson/wilson_dslash.h, shared with OpenCL; this file launches it
 * with one thread per output site and moves the fields between the driver's canonical arrays and the layout
 * (kernels/wilson/wilson_layout.h) through a host staging buffer.
 *
 * dslash(iterations) launches its kernels back to back on the legacy default stream (in order) and waits
 * once. Chosen at alloc (kernels/wilson/wilson_gpu.h): the block size (up to WILSON_MAX_BLOCK), the register budget
 * (a __launch_bounds__ minimum of blocks per SM) and the index width; describe reports them with the
 * registers the kernel got.
 *
 * Ownership: alloc() owns the device fields until release() (or the next alloc, or close); the launch choices
 * stay in the context for describe. Threads: the context's thread only.
 */
#include "kernels/cuda/cuda.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/wilson/wilson_gpu.h"
#include "kernels/wilson/wilson_layout.h"

/* The site functions once per precision and index type (overloads). */
#define REAL        float
#define WILSON_SIZE unsigned
#include "kernels/wilson/wilson_dslash.h"
#undef WILSON_SIZE
#define WILSON_SIZE size_t
#include "kernels/wilson/wilson_dslash.h"
#undef WILSON_SIZE
#undef REAL
#define REAL        double
#define WILSON_SIZE unsigned
#include "kernels/wilson/wilson_dslash.h"
#undef WILSON_SIZE
#define WILSON_SIZE size_t
#include "kernels/wilson/wilson_dslash.h"
#undef WILSON_SIZE
#undef REAL

/* Threads per block: the bound the kernels are compiled for (the default is WILSON_GPU_WORK_GROUP). The
 * register budget r of kernels/wilson/wilson_gpu.h becomes __launch_bounds__(WILSON_MAX_BLOCK, m), m = 65536 / (256
 * r) blocks per SM: m = 1, 2, 3, 4 for 255, 128, 80, 64 registers, and none (m = 0) for the compiler's
 * choice. */
#define WILSON_MAX_BLOCK     256
#define WILSON_MAX_MINBLOCKS 4

namespace
{

/* One thread per output site; I is the index type (unsigned where every element index fits in 32 bits). */
template <typename T, typename I, int SOA, int MINB>
__global__ void __launch_bounds__(WILSON_MAX_BLOCK, MINB)
    dslash_kernel(const T *__restrict__ psi, const T *__restrict__ g, const unsigned *__restrict__ nbr,
                  T *__restrict__ out, I n)
{
    const I i = (I)blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        wilson_site(psi, g, nbr, out, n, n, i, SOA);
}

template <typename T, typename I, int SOA, int MINB> void launch(const struct pp_ctx *ctx, unsigned grid)
{
    dslash_kernel<T, I, SOA, MINB><<<grid, ctx->w.block>>>((const T *)ctx->w.spinor, (const T *)ctx->w.gauge,
                                                           ctx->w.nbr, (T *)ctx->w.out, (I)ctx->w.n);
}

struct kernel_ref {
    cuda_wilson_launch launch;
    const void *func; /* for cudaFuncGetAttributes */
};

template <typename T, typename I, int SOA, int MINB> kernel_ref ref()
{
    return {launch<T, I, SOA, MINB>, (const void *)dslash_kernel<T, I, SOA, MINB>};
}

template <typename T, typename I, int SOA> kernel_ref pick_minblocks(unsigned minblocks)
{
    static_assert(WILSON_MAX_MINBLOCKS == 4, "one case per register cap");
    switch (minblocks) {
    case 1:
        return ref<T, I, SOA, 1>();
    case 2:
        return ref<T, I, SOA, 2>();
    case 3:
        return ref<T, I, SOA, 3>();
    case 4:
        return ref<T, I, SOA, 4>();
    default:
        return ref<T, I, SOA, 0>();
    }
}

template <typename T, typename I> kernel_ref pick_layout(bool soa, unsigned minblocks)
{
    return soa ? pick_minblocks<T, I, 1>(minblocks) : pick_minblocks<T, I, 0>(minblocks);
}

kernel_ref pick(enum pp_precision prec, bool idx32, bool soa, unsigned minblocks)
{
    if (prec == PP_FP32)
        return idx32 ? pick_layout<float, unsigned>(soa, minblocks)
                     : pick_layout<float, size_t>(soa, minblocks);
    return idx32 ? pick_layout<double, unsigned>(soa, minblocks)
                 : pick_layout<double, size_t>(soa, minblocks);
}

void wilson_release(struct pp_ctx *ctx)
{
    /* Errors are ignored: after a sticky kernel fault every call fails, and the process ends soon after. */
    (void)cudaFree(ctx->w.gauge);
    (void)cudaFree(ctx->w.spinor);
    (void)cudaFree(ctx->w.out);
    (void)cudaFree(ctx->w.nbr);
    ctx->w.gauge = ctx->w.spinor = ctx->w.out = NULL;
    ctx->w.nbr = NULL;
    ctx->w.n = 0;
}

int wilson_alloc(struct pp_ctx *ctx, size_t n, enum pp_precision prec, enum pp_wilson_layout layout,
                 struct pp_wilson_variant *variant, struct pp_error *err)
{
    const size_t elem = pp_precision_bytes(prec);
    const size_t bytes = n * (WILSON_LINKS_REALS + 2 * WILSON_SPINOR_REALS) * elem + n * 8 * sizeof(uint32_t);
    size_t free_bytes = 0, total_bytes = 0;
    struct cudaFuncAttributes attr;
    struct wilson_gpu_launch l = {0, 0, 0};
    kernel_ref k;
    int ret = -1;

    wilson_release(ctx);
    if (layout != PP_WILSON_AOS && layout != PP_WILSON_SOA)
        return pp_error_set(err, "layout %d out of range", (int)layout);
    if (n == 0 || n > UINT32_MAX)
        return pp_error_set(err, "alloc: %zu output sites (1 to 2^32 - 1 are possible)", n);
    if (wilson_gpu_launch_choose(&l, n, prec, layout, err) < 0)
        return -1;
    if (l.work_group > WILSON_MAX_BLOCK)
        return pp_error_set(err,
                            "PPBENCH_WILSON_WG=%u: the kernels are built for blocks of at most %d threads",
                            l.work_group, WILSON_MAX_BLOCK);
    if (cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), err, "alloc: cudaMemGetInfo") < 0)
        return -1;
    if (bytes > free_bytes)
        return pp_error_set(err,
                            "alloc: the fields of %zu sites need %.2f GiB but the device has %.2f GiB free",
                            n, (double)bytes / (1 << 30), (double)free_bytes / (1 << 30));
    ctx->w.n = n;
    ctx->w.prec = prec;
    ctx->w.layout = layout;
    ctx->w.block = l.work_group ? l.work_group : WILSON_GPU_WORK_GROUP;
    ctx->w.max_regs = l.max_regs;
    ctx->w.minblocks = l.max_regs ? 65536 / (WILSON_MAX_BLOCK * l.max_regs) : 0;
    ctx->w.index_bits = l.index_bits;
    k = pick(prec, ctx->w.index_bits == 32, layout == PP_WILSON_SOA, ctx->w.minblocks);
    ctx->w.launch = k.launch;
    if (cuda_check(cudaMalloc(&ctx->w.gauge, n * WILSON_LINKS_REALS * elem), err, "alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc(&ctx->w.spinor, n * WILSON_SPINOR_REALS * elem), err, "alloc: cudaMalloc") <
            0 ||
        cuda_check(cudaMalloc(&ctx->w.out, n * WILSON_SPINOR_REALS * elem), err, "alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc((void **)&ctx->w.nbr, n * 8 * sizeof(uint32_t)), err, "alloc: cudaMalloc") <
            0 ||
        cuda_check(cudaMemset(ctx->w.out, 0, n * WILSON_SPINOR_REALS * elem), err, "alloc: cudaMemset") < 0)
        goto out;
    if (cuda_check(cudaFuncGetAttributes(&attr, k.func), err, "alloc: cudaFuncGetAttributes") < 0)
        goto out;
    ctx->w.regs = attr.numRegs;
    ctx->w.local_bytes = (unsigned)attr.localSizeBytes;
    memset(variant, 0, sizeof(*variant));
    variant->layout = layout;
    variant->work_group = ctx->w.block;
    ret = 0;
out:
    if (ret < 0)
        wilson_release(ctx);
    return ret;
}

/* The canonical field src (per_site doubles per site) into device memory dst in the context's layout and
 * precision, through a host staging buffer. */
int put_field(struct pp_ctx *ctx, void *dst, const double *src, unsigned per_site, const char *what,
              struct pp_error *err)
{
    const size_t n = ctx->w.n, bytes = n * per_site * pp_precision_bytes(ctx->w.prec);
    void *host = malloc(bytes);
    int rc;

    if (!host)
        return pp_error_set(err, "upload: out of host memory for the %s (%zu bytes)", what, bytes);
    for (size_t i = 0; i < n; i++)
        wilson_layout_put(host, src, n, i, per_site, ctx->w.prec, ctx->w.layout == PP_WILSON_SOA);
    rc = cuda_check(cudaMemcpy(dst, host, bytes, cudaMemcpyHostToDevice), err, "upload: cudaMemcpy");
    free(host);
    return rc;
}

int wilson_upload(struct pp_ctx *ctx, const double *gauge, const double *spinor, const uint32_t *nbr,
                  struct pp_error *err)
{
    if (!ctx->w.gauge)
        return pp_error_set(err, "upload: fields not allocated");
    if (put_field(ctx, ctx->w.gauge, gauge, WILSON_LINKS_REALS, "links", err) < 0 ||
        put_field(ctx, ctx->w.spinor, spinor, WILSON_SPINOR_REALS, "spinor", err) < 0)
        return -1;
    return cuda_check(cudaMemcpy(ctx->w.nbr, nbr, ctx->w.n * 8 * sizeof(uint32_t), cudaMemcpyHostToDevice),
                      err, "upload: cudaMemcpy");
}

int wilson_dslash(struct pp_ctx *ctx, unsigned iterations, struct pp_error *err)
{
    const unsigned grid = (unsigned)((ctx->w.n + ctx->w.block - 1) / ctx->w.block);

    if (!ctx->w.gauge)
        return pp_error_set(err, "dslash: fields not allocated");
    for (unsigned it = 0; it < iterations; it++)
        ctx->w.launch(ctx, grid);
    if (cuda_check(cudaGetLastError(), err, "dslash") < 0)
        return -1;
    return cuda_check(cudaDeviceSynchronize(), err, "dslash");
}

int wilson_download(struct pp_ctx *ctx, double *out, struct pp_error *err)
{
    const size_t n = ctx->w.n, bytes = n * WILSON_SPINOR_REALS * pp_precision_bytes(ctx->w.prec);
    void *host;

    if (!ctx->w.out)
        return pp_error_set(err, "download: fields not allocated");
    if (!(host = malloc(bytes)))
        return pp_error_set(err, "download: out of host memory (%zu bytes)", bytes);
    if (cuda_check(cudaMemcpy(host, ctx->w.out, bytes, cudaMemcpyDeviceToHost), err, "download: cudaMemcpy") <
        0) {
        free(host);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        wilson_layout_get(out, host, n, i, WILSON_SPINOR_REALS, ctx->w.prec, ctx->w.layout == PP_WILSON_SOA);
    free(host);
    return 0;
}

} // namespace

void cuda_wilson_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    if (!ctx->w.block)
        return; /* no Wilson run on this context */
    info_add(out, "cuda.wilson_block_size", "%u", ctx->w.block);
    info_add(out, "cuda.wilson_max_regs", "%u (min blocks %u)", ctx->w.max_regs, ctx->w.minblocks);
    info_add(out, "cuda.wilson_index_bits", "%u", ctx->w.index_bits);
    info_add(out, "cuda.wilson_kernel_regs", "%d", ctx->w.regs);
    info_add(out, "cuda.wilson_kernel_local_bytes", "%u", ctx->w.local_bytes);
}

const struct pp_wilson_ops cuda_wilson_ops = {
    .alloc = wilson_alloc,
    .upload = wilson_upload,
    .dslash = wilson_dslash,
    .download = wilson_download,
    .release = wilson_release,
};
