/*
 * cuda: the CUDA backend's table (pp_backend_cuda), device discovery, contexts and provenance. The kernels
 * are in the suites' files (kernels/<suite>/<suite>.cu), each registered with PP_SUITE_IMPL(cuda, <suite>)
 * and keeping its state in the context's suite slots: this file names no suite. It is built by nvcc into
 * libppbench-cuda.so with the runtime linked statically; the worker finds the table with dlsym, so a host
 * without a CUDA driver only sees discover() fail. Its dynamic symbols are pp_backend_cuda and the linker's
 * __start_/__stop_pp_suites_cuda around the registrations (checked with nm -D on the 2026-11-28 build).
 *
 * Ownership: open() returns a context the caller frees with close(); close() also frees every suite's state.
 * Threads: discover() from any thread; a context from the thread that uses it, one at a time.
 */
#include "kernels/cuda/cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cuda_check(cudaError_t e, struct pp_error *err, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    return pp_error_set(err, "%s: %s: %s", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

static int cuda_discover(struct pp_device_list *out, struct pp_error *err)
{
    struct cudaDeviceProp prop;
    struct pp_device *d;
    const unsigned char *u;
    int count = 0, driver = -1;
    size_t added = 0;
    cudaError_t e;

    e = cudaGetDeviceCount(&count);
    if (e == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0)
        return pp_error_set(err, "no device: no CUDA driver (libcuda.so.1) is installed");
    if (e != cudaSuccess)
        return pp_error_set(err, "no device: %s", cudaGetErrorString(e));
    if (count <= 0)
        return pp_error_set(err, "no device: %s", cudaGetErrorString(cudaErrorNoDevice));
    for (int i = 0; i < count && out->len < PP_MAX_DEVICES; i++) {
        e = cudaGetDeviceProperties(&prop, i);
        if (e != cudaSuccess) {
            (void)pp_error_set(err, "no device: device %d: %s", i, cudaGetErrorString(e));
            continue;
        }
        d = &out->items[out->len++];
        memset(d, 0, sizeof(*d));
        d->backend = &pp_backend_cuda;
        d->index = i;
        d->kind = PP_DEVICE_GPU;
        /* prop.name may be longer than d->name: keep what fits, NUL-terminated. */
        memcpy(d->name, prop.name, strnlen(prop.name, sizeof(d->name) - 1));
        snprintf(d->vendor, sizeof(d->vendor), "NVIDIA");
        u = (const unsigned char *)prop.uuid.bytes;
        snprintf(d->uuid, sizeof(d->uuid),
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
                 u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
        snprintf(d->pci_bus_id, sizeof(d->pci_bus_id), "%04x:%02x:%02x.0", (unsigned)prop.pciDomainID,
                 (unsigned)prop.pciBusID, (unsigned)prop.pciDeviceID);
        d->mem_bytes = prop.totalGlobalMem;
        d->max_alloc_bytes = 0;
        d->compute_units = (unsigned)prop.multiProcessorCount;
        int l2 = 0;
        if (cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, i) == cudaSuccess && l2 > 0)
            d->llc_bytes = (uint64_t)l2;
        d->fp64 = true;
        added++;
    }
    return added ? 0 : -1;
}

static int attribute(enum cudaDeviceAttr attr, int device)
{
    int v = 0;

    if (cudaDeviceGetAttribute(&v, attr, device) != cudaSuccess)
        return 0;
    return v;
}

static int cuda_open(const struct pp_device *dev, struct pp_ctx **out, struct pp_error *err)
{
    struct cudaDeviceProp prop;
    struct pp_ctx *ctx;
    int ret = -1;

    *out = NULL;
    ctx = (struct pp_ctx *)calloc(1, sizeof(*ctx));
    if (!ctx)
        return pp_error_set(err, "out of memory");
    ctx->device = dev->index;
    if (cuda_check(cudaSetDevice(ctx->device), err, "cudaSetDevice") < 0)
        goto out;
    /* Spin while waiting for the GPU: the shortest wake-up after each blocking kernel, which the host clock
     * times (the default picks spin too when there are fewer contexts than cores; this makes it explicit). */
    if (cuda_check(cudaSetDeviceFlags(cudaDeviceScheduleSpin), err, "cudaSetDeviceFlags") < 0)
        goto out;
    if (cuda_check(cudaFree(0), err, "context creation") < 0)
        goto out;
    if (cuda_check(cudaGetDeviceProperties(&prop, ctx->device), err, "cudaGetDeviceProperties") < 0)
        goto out;
    ctx->sm_count = prop.multiProcessorCount;
    ctx->cc_major = prop.major;
    ctx->cc_minor = prop.minor;
    ctx->l2_bytes = prop.l2CacheSize;
    ctx->clock_khz = attribute(cudaDevAttrClockRate, ctx->device);
    ctx->mem_clock_khz = attribute(cudaDevAttrMemoryClockRate, ctx->device);
    ctx->bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ctx->device);
    *out = ctx;
    ctx = NULL;
    ret = 0;
out:
    free(ctx);
    return ret;
}

static void cuda_close(struct pp_ctx *ctx)
{
    if (!ctx)
        return;
    pp_suite_slots_release(&ctx->suites, ctx);
    free(ctx);
}

/* "13.0" from get's 13000 (major * 1000 + minor * 10); nothing when get fails or answers 0, as
 * cudaDriverGetVersion does where no driver is installed. The call comes before the value is read: passing
 * both get(&v) and v as arguments of one call leaves their order to the compiler, and GCC read v first, so
 * every run stored the driver as "0.0" and the runtime as the driver's version. */
static void add_version(struct pp_info_list *out, const char *key, cudaError_t (*get)(int *))
{
    int v = 0;

    if (get(&v) == cudaSuccess && v > 0)
        info_add(out, key, "%d.%d", v / 1000, v % 1000 / 10);
}

static void cuda_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    /* the CUDA version the driver supports (nvidia-smi's "CUDA Version"); the kernel driver's own version
     * ("580.65.06") comes from NVML, in the worker (gpu.driver_version) */
    add_version(out, "cuda.driver_version", cudaDriverGetVersion);
    add_version(out, "cuda.runtime_version", cudaRuntimeGetVersion);
    info_add(out, "cuda.nvcc", "%d.%d.%d", __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, __CUDACC_VER_BUILD__);
    info_add(out, "cuda.arch", "%d.%d", ctx->cc_major, ctx->cc_minor);
    info_add(out, "cuda.sm_count", "%d", ctx->sm_count);
    info_add(out, "cuda.l2_bytes", "%d", ctx->l2_bytes);
    if (ctx->clock_khz)
        info_add(out, "cuda.sm_clock_max_mhz", "%d", ctx->clock_khz / 1000);
    if (ctx->mem_clock_khz)
        info_add(out, "cuda.mem_clock_max_mhz", "%d", ctx->mem_clock_khz / 1000);
    if (ctx->bus_width_bits)
        info_add(out, "cuda.mem_bus_bits", "%d", ctx->bus_width_bits);
    info_add(out, "cuda.sync", "spin");
    pp_suite_slots_describe(&ctx->suites, ctx, out);
}

PP_SUITES_DECLARE(cuda);

extern "C" __attribute__((visibility("default"))) const struct pp_backend pp_backend_cuda = {
    .name = "cuda",
    .discover = cuda_discover,
    .open = cuda_open,
    .describe = cuda_describe,
    .close = cuda_close,
    PP_SUITES_OF(cuda),
};
