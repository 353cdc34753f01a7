/*
 * wilson: the Wilson Dslash (paper 000, Eq. 1) in CUDA as cuda_wilson_ops, for fp32 and fp64 and both layouts
 * (aos: site-major; soa: one array per real component, site fastest, so that a warp's loads of a component
 * coalesce). The arithmetic of a site is kernels/wilson/wilson_dslash.h, shared with OpenCL; this file
 * launches it with one thread per output site and moves the fields between the driver's canonical arrays and
 * the layout (kernels/wilson/wilson_layout.h) through a host staging buffer.
 *
 * dslash(iterations) launches its kernels back to back on the legacy default stream (in order) and waits
 * once. Chosen at alloc (kernels/wilson/wilson_gpu.h): the block size (up to WILSON_MAX_BLOCK), the register
 * budget (a __launch_bounds__ minimum of blocks per SM) and the index width; describe reports them with the
 * registers the kernel got.
 *
 * Ownership: the suite's state in a context (struct cuda_wilson, private to this file) is created by the
 * first alloc and kept in the context's suite slots; alloc() owns the device fields until release() (or the
 * next alloc, or close); the launch choices stay for describe until close, which frees the state
 * (cuda_wilson_impl). Threads: the context's thread only.
 */
#include "kernels/cuda/cuda.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/wilson/wilson_gpu.h"
#include "kernels/wilson/wilson_layout.h"
#include "kernels/wilson/wilson_ops.h"

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
 * register budget r of kernels/wilson/wilson_gpu.h becomes __launch_bounds__(WILSON_MAX_BLOCK, m), m = 65536
 * / (256 r) blocks per SM: m = 1, 2, 3, 4 for 255, 128, 80, 64 registers, and none (m = 0) for the compiler's
 * choice. */
#define WILSON_MAX_BLOCK     256
#define WILSON_MAX_MINBLOCKS 4

struct cuda_wilson;
/* Launches the kernel chosen at alloc on a grid of blocks. */
typedef void (*cuda_wilson_launch)(const struct cuda_wilson *w, unsigned grid);

/* The suite's state in a context: the fields alloc .. release; the launch choices and the kernel's registers
 * stay for describe. */
struct cuda_wilson {
    size_t n;       /* output sites = input sites */
    size_t ld;      /* sites allocated: wilson_layout_sites (soa: the distance between component arrays) */
    uint4 shape;    /* X / 2, Y, Z, T */
    int hops_table; /* 1: the kernel reads nbr; 0: it computes the input sites from shape */
    int soa;        /* WILSON_INDEX's layout argument: wilson_layout_index(layout) */
    enum pp_precision prec;
    enum pp_wilson_layout layout;
    void *gauge, *spinor, *out; /* device, in the layout and precision */
    unsigned *nbr;              /* device, [8][n] */
    cuda_wilson_launch launch;  /* the kernel of the precision, layout, index type and register cap */
    unsigned block;             /* threads per block; 0 before any alloc */
    unsigned max_regs;          /* register budget (kernels/wilson/wilson_gpu.h); 0: the compiler's choice */
    unsigned minblocks;         /* the __launch_bounds__ minimum of blocks per SM that sets it */
    unsigned index_bits;        /* 32 or 64 */
    int regs;                   /* registers per thread of the kernel */
    unsigned local_bytes;       /* its local memory per thread (spills) */
};

/* slot_get, slot_new, slot_close: the state in the context's suite slots (backend.h). */
PP_SUITE_SLOT(cuda, wilson, struct cuda_wilson, ctx->suites, wilson_release)

namespace
{

/* One thread per output site; I is the index type (unsigned where every element index fits in 32 bits). */
template <typename T, typename I, int SOA, int MINB>
__global__ void __launch_bounds__(WILSON_MAX_BLOCK, MINB)
    dslash_kernel(const T *__restrict__ psi, const T *__restrict__ g, const unsigned *__restrict__ nbr,
                  T *__restrict__ out, I n, I ld, uint4 shape)
{
    const I i = (I)blockIdx.x * blockDim.x + threadIdx.x;

    if (i >= n)
        return;
    if (nbr) /* uniform: the table, or the input sites computed from the lattice shape */
        wilson_site(psi, g, nbr, out, n, ld, i, SOA);
    else
        wilson_site_lattice(psi, g, out, shape.x, shape.y, shape.z, shape.w, ld, i, SOA);
}

template <typename T, typename I, int SOA, int MINB> void launch(const struct cuda_wilson *w, unsigned grid)
{
    dslash_kernel<T, I, SOA, MINB><<<grid, w->block>>>((const T *)w->spinor, (const T *)w->gauge,
                                                       w->hops_table ? w->nbr : NULL, (T *)w->out, (I)w->n,
                                                       (I)w->ld, w->shape);
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

template <typename T, typename I> kernel_ref pick_layout(int soa, unsigned minblocks)
{
    return soa == WILSON_AOSOA_BLOCK ? pick_minblocks<T, I, WILSON_AOSOA_BLOCK>(minblocks)
           : soa                     ? pick_minblocks<T, I, 1>(minblocks)
                                     : pick_minblocks<T, I, 0>(minblocks);
}

kernel_ref pick(enum pp_precision prec, bool idx32, int soa, unsigned minblocks)
{
    if (prec == PP_FP32)
        return idx32 ? pick_layout<float, unsigned>(soa, minblocks)
                     : pick_layout<float, size_t>(soa, minblocks);
    return idx32 ? pick_layout<double, unsigned>(soa, minblocks)
                 : pick_layout<double, size_t>(soa, minblocks);
}

/* The state of ctx for a kernel: NULL with err when no fields are allocated. */
struct cuda_wilson *fields(struct pp_ctx *ctx, const char *what, struct pp_error *err)
{
    struct cuda_wilson *w = slot_get(ctx);

    if (!w || !w->gauge) {
        (void)pp_error_set(err, "%s: fields not allocated", what);
        return NULL;
    }
    return w;
}

} // namespace

/* The ops' release: the device arrays; the state (what describe reports) stays until slot_close. */
static void wilson_release(struct pp_ctx *ctx)
{
    struct cuda_wilson *w = slot_get(ctx);

    if (!w)
        return;
    /* Errors are ignored: after a sticky kernel fault every call fails, and the process ends soon after. */
    (void)cudaFree(w->gauge);
    (void)cudaFree(w->spinor);
    (void)cudaFree(w->out);
    (void)cudaFree(w->nbr);
    w->gauge = w->spinor = w->out = NULL;
    w->nbr = NULL;
    w->n = 0;
}

namespace
{

int wilson_alloc(struct pp_ctx *ctx, size_t n, const unsigned dims[4], enum pp_precision prec,
                 enum pp_wilson_layout layout, struct pp_wilson_variant *variant, struct pp_error *err)
{
    struct cuda_wilson *w = slot_new(ctx);
    const size_t elem = pp_precision_bytes(prec);
    size_t bytes, ld;
    size_t free_bytes = 0, total_bytes = 0;
    struct cudaFuncAttributes attr;
    struct wilson_gpu_launch l = {0, 0, 0, 0};
    kernel_ref k;
    int ret = -1;

    if (!w)
        return pp_error_set(err, "out of memory");
    wilson_release(ctx);
    if ((unsigned)layout >= PP_WILSON_NLAYOUTS)
        return pp_error_set(err, "layout %d out of range", (int)layout);
    if (n == 0 || n > UINT32_MAX)
        return pp_error_set(err, "alloc: %zu output sites (1 to 2^32 - 1 are possible)", n);
    if (wilson_gpu_launch_choose(&l, n, prec, layout, err) < 0)
        return -1;
    if (l.work_group > WILSON_MAX_BLOCK)
        return pp_error_set(err,
                            "PPBENCH_WILSON_WG=%u: the kernels are built for blocks of at most %d threads",
                            l.work_group, WILSON_MAX_BLOCK);
    ld = wilson_layout_sites(layout, n);
    bytes = ld * (WILSON_LINKS_REALS + 2 * WILSON_SPINOR_REALS) * elem + n * 8 * sizeof(uint32_t);
    if (cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), err, "alloc: cudaMemGetInfo") < 0)
        return -1;
    if (bytes > free_bytes)
        return pp_error_set(err,
                            "alloc: the fields of %zu sites need %.2f GiB but the device has %.2f GiB free",
                            n, (double)bytes / (1 << 30), (double)free_bytes / (1 << 30));
    w->n = n;
    w->ld = ld;
    w->shape = make_uint4(dims[0] / 2, dims[1], dims[2], dims[3]);
    w->hops_table = l.hops_table;
    w->prec = prec;
    w->layout = layout;
    w->block = l.work_group ? l.work_group : WILSON_GPU_WORK_GROUP;
    w->max_regs = l.max_regs;
    w->minblocks = l.max_regs ? 65536 / (WILSON_MAX_BLOCK * l.max_regs) : 0;
    w->index_bits = l.index_bits;
    w->soa = wilson_layout_index(layout);
    k = pick(prec, w->index_bits == 32, w->soa, w->minblocks);
    w->launch = k.launch;
    if (cuda_check(cudaMalloc(&w->gauge, ld * WILSON_LINKS_REALS * elem), err, "alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc(&w->spinor, ld * WILSON_SPINOR_REALS * elem), err, "alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc(&w->out, ld * WILSON_SPINOR_REALS * elem), err, "alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc((void **)&w->nbr, n * 8 * sizeof(uint32_t)), err, "alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMemset(w->out, 0, ld * WILSON_SPINOR_REALS * elem), err, "alloc: cudaMemset") < 0)
        goto out;
    if (cuda_check(cudaFuncGetAttributes(&attr, k.func), err, "alloc: cudaFuncGetAttributes") < 0)
        goto out;
    w->regs = attr.numRegs;
    w->local_bytes = (unsigned)attr.localSizeBytes;
    memset(variant, 0, sizeof(*variant));
    variant->layout = layout;
    variant->work_group = w->block;
    ret = 0;
out:
    if (ret < 0)
        wilson_release(ctx);
    return ret;
}

/* The canonical field src (per_site doubles per site) into device memory dst in the context's layout and
 * precision, through a host staging buffer. */
int put_field(const struct cuda_wilson *w, void *dst, const double *src, unsigned per_site, const char *what,
              struct pp_error *err)
{
    const size_t n = w->n, bytes = w->ld * per_site * pp_precision_bytes(w->prec);
    void *host = calloc(1, bytes); /* the tail of the last aosoa block zeroed */
    int rc;

    if (!host)
        return pp_error_set(err, "upload: out of host memory for the %s (%zu bytes)", what, bytes);
    for (size_t i = 0; i < n; i++)
        wilson_layout_put(host, src, w->ld, i, per_site, w->prec, w->soa);
    rc = cuda_check(cudaMemcpy(dst, host, bytes, cudaMemcpyHostToDevice), err, "upload: cudaMemcpy");
    free(host);
    return rc;
}

int wilson_upload(struct pp_ctx *ctx, const double *gauge, const double *spinor, const uint32_t *nbr,
                  struct pp_error *err)
{
    const struct cuda_wilson *w = fields(ctx, "upload", err);

    if (!w)
        return -1;
    if (put_field(w, w->gauge, gauge, WILSON_LINKS_REALS, "links", err) < 0 ||
        put_field(w, w->spinor, spinor, WILSON_SPINOR_REALS, "spinor", err) < 0)
        return -1;
    return cuda_check(cudaMemcpy(w->nbr, nbr, w->n * 8 * sizeof(uint32_t), cudaMemcpyHostToDevice), err,
                      "upload: cudaMemcpy");
}

int wilson_dslash(struct pp_ctx *ctx, unsigned iterations, struct pp_error *err)
{
    const struct cuda_wilson *w = fields(ctx, "dslash", err);
    unsigned grid;

    if (!w)
        return -1;
    grid = (unsigned)((w->n + w->block - 1) / w->block);
    for (unsigned it = 0; it < iterations; it++)
        w->launch(w, grid);
    if (cuda_check(cudaGetLastError(), err, "dslash") < 0)
        return -1;
    return cuda_check(cudaDeviceSynchronize(), err, "dslash");
}

/* The whole output to all-ones bytes (NaN in either precision), blocking. */
int wilson_poison(struct pp_ctx *ctx, struct pp_error *err)
{
    const struct cuda_wilson *w = fields(ctx, "poison", err);

    if (!w)
        return -1;
    if (cuda_check(cudaMemset(w->out, 0xff, w->ld * WILSON_SPINOR_REALS * pp_precision_bytes(w->prec)), err,
                   "poison: cudaMemset") < 0)
        return -1;
    return cuda_check(cudaDeviceSynchronize(), err, "poison");
}

int wilson_download(struct pp_ctx *ctx, double *out, struct pp_error *err)
{
    const struct cuda_wilson *w = fields(ctx, "download", err);
    size_t n, bytes;
    void *host;

    if (!w)
        return -1;
    n = w->n, bytes = w->ld * WILSON_SPINOR_REALS * pp_precision_bytes(w->prec);
    if (!(host = malloc(bytes)))
        return pp_error_set(err, "download: out of host memory (%zu bytes)", bytes);
    if (cuda_check(cudaMemcpy(host, w->out, bytes, cudaMemcpyDeviceToHost), err, "download: cudaMemcpy") <
        0) {
        free(host);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        wilson_layout_get(out, host, w->ld, i, WILSON_SPINOR_REALS, w->prec, w->soa);
    free(host);
    return 0;
}

/* The kernel's launch (block size, register cap, index bits, registers, local memory) as cuda.wilson_* keys,
 * after a run. */
void wilson_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    const struct cuda_wilson *w = slot_get(ctx);

    if (!w || !w->block)
        return; /* no Wilson run on this context */
    info_add(out, "cuda.wilson_block_size", "%u", w->block);
    info_add(out, "cuda.wilson_max_regs", "%u (min blocks %u)", w->max_regs, w->minblocks);
    info_add(out, "cuda.wilson_index_bits", "%u", w->index_bits);
    info_add(out, "cuda.wilson_hops", "%s", w->hops_table ? "table" : "lattice");
    info_add(out, "cuda.wilson_kernel_regs", "%d", w->regs);
    info_add(out, "cuda.wilson_kernel_local_bytes", "%u", w->local_bytes);
}

} // namespace

static const struct pp_wilson_ops cuda_wilson_ops = {
    .alloc = wilson_alloc,
    .upload = wilson_upload,
    .dslash = wilson_dslash,
    .download = wilson_download,
    .poison = wilson_poison,
    .release = wilson_release,
};

PP_SUITE_IMPL(cuda, wilson) = {
    .suite = "wilson",
    .ops = &cuda_wilson_ops,
    .release = slot_close,
    .describe = wilson_describe,
};
