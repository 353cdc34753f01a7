/*
 * omptarget: the OpenMP offload model's table (pp_backend_omptarget), device discovery, contexts and
 * provenance. The kernels are in the suites' files, the OpenMP model's kernels/<suite>/openmp.c (+
 * openmp_kernels.h) built again with -DPP_OMP_TARGET (kernels/openmp/body.h): stream, cg, wilson, staggered
 * (1lp, 2lp, 3lp-3) and hacc (broadcast, scalar, simd), each registered with PP_SUITE_IMPL(omptarget,
 * <suite>) and keeping its state in the context's suite slots: this file names no suite. Built twice from the
 * same sources, each into its own shared object: by GCC with -foffload=nvptx-none into
 * libppbench-omptarget.so (runtime: libgomp and its nvptx plugin), and by clang with --offload-arch=sm_90
 * into libppbench-omptarget-clang.so (runtime: LLVM's libomp and libomptarget with its CUDA plugin);
 * OMPT_TOOLCHAIN says which, and the provenance records it. The worker finds the table with dlsym
 * (kernels/model_loader.c picks the build), so a host without the offload runtime or a CUDA driver only sees
 * discover() find no device. The two builds' OpenMP runtimes can share the worker's process with its own
 * libgomp: clang's code binds to libomp's and libomptarget's versioned symbols (VERSION, VERS1.0), which
 * libgomp's (OMP_*, GOMP_*) do not satisfy. Each build is made when the Makefile finds its compiler
 * (OFFLOAD_CC: Debian gcc-12-offload-nvptx; OFFLOAD_CLANG: clang-19 + libomp-19-dev with a CUDA toolkit's
 * ptxas and nvlink, scripts/cuda118.sh); clang's finds libomp and libomptarget at run time through the
 * RUNPATH of its LLVM or LD_LIBRARY_PATH, and exports.map keeps its exports to the table.
 *
 * Devices: the offload devices the runtime reports (omp_get_num_devices). It says nothing of a device's PCI
 * bus or UUID, which group it with the same GPU seen through CUDA and OpenCL (worker/platform.c): both
 * runtimes' CUDA plugins number their devices as the CUDA driver does (cuDeviceGet ordinals, after
 * CUDA_VISIBLE_DEVICES), so when the driver (libcuda.so.1, opened here with dlopen) counts as many devices as
 * the runtime, device i takes CUDA device i's name, UUID, PCI bus id, memory and SM count. When the counts
 * differ (another offload plugin, no driver) the device has no UUID and stays a platform of its own. With
 * PPBENCH_OMPTARGET_HOST=1
 * the initial device is listed too, as the host CPU (host fallback: the same target regions run on the host,
 * the way CI verifies this model without a GPU).
 *
 * Ownership: open() returns a context the caller frees with close(); close() also frees every suite's state.
 * Threads: discover() from any thread; a context from the thread that uses it, one at a time.
 */
#include "kernels/omptarget/omptarget.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buildinfo.h"
#include "lib/env.h"

/* The build: its compiler, flags and OpenMP runtime, for the provenance and the messages. */
#ifdef __clang__
#define OMPT_TOOLCHAIN "clang"
#define OMPT_COMPILER  "clang " __clang_version__
#define OMPT_FLAGS     PPBENCH_OMPTARGET_CLANG_FLAGS
#define OMPT_RUNTIME   "LLVM libomp + libomptarget (CUDA plugin)"
#define OMPT_NEEDS     "LLVM's libomptarget.so and libomp.so.5 (with libLLVM) on the library path"
#else
#define OMPT_TOOLCHAIN "gcc"
#define OMPT_COMPILER  "gcc " __VERSION__
#define OMPT_FLAGS     PPBENCH_OMPTARGET_FLAGS
#define OMPT_RUNTIME   "libgomp (nvptx plugin)"
#define OMPT_NEEDS     "libgomp-plugin-nvptx.so.1 on the library path"
#endif

/* ---- the CUDA driver API, the few calls discovery needs (no CUDA headers at build time) ---- */

typedef int cu_result;
enum { CU_ATTR_MULTIPROCESSOR_COUNT = 16, CU_ATTR_L2_CACHE_SIZE = 38 };

struct cu_driver {
    void *handle;
    cu_result (*init)(unsigned flags);
    cu_result (*count)(int *n);
    cu_result (*get)(int *dev, int ordinal);
    cu_result (*name)(char *name, int len, int dev);
    cu_result (*uuid)(unsigned char uuid[16], int dev);
    cu_result (*pci)(char *id, int len, int dev);
    cu_result (*mem)(size_t *bytes, int dev);
    cu_result (*attribute)(int *v, int attr, int dev);
    cu_result (*version)(int *v);
};

/* The driver's entry points, or -1 when libcuda.so.1 is absent or too old. */
static int cu_open(struct cu_driver *cu)
{
    memset(cu, 0, sizeof(*cu));
    cu->handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cu->handle)
        return -1;
    *(void **)&cu->init = dlsym(cu->handle, "cuInit");
    *(void **)&cu->count = dlsym(cu->handle, "cuDeviceGetCount");
    *(void **)&cu->get = dlsym(cu->handle, "cuDeviceGet");
    *(void **)&cu->name = dlsym(cu->handle, "cuDeviceGetName");
    *(void **)&cu->uuid = dlsym(cu->handle, "cuDeviceGetUuid_v2");
    if (!cu->uuid)
        *(void **)&cu->uuid = dlsym(cu->handle, "cuDeviceGetUuid");
    *(void **)&cu->pci = dlsym(cu->handle, "cuDeviceGetPCIBusId");
    *(void **)&cu->mem = dlsym(cu->handle, "cuDeviceTotalMem_v2");
    *(void **)&cu->attribute = dlsym(cu->handle, "cuDeviceGetAttribute");
    *(void **)&cu->version = dlsym(cu->handle, "cuDriverGetVersion");
    if (!cu->init || !cu->count || !cu->get || !cu->name || !cu->uuid || !cu->pci || !cu->mem ||
        !cu->attribute || !cu->version || cu->init(0) != 0) {
        dlclose(cu->handle);
        cu->handle = NULL;
        return -1;
    }
    return 0;
}

static void cu_close(struct cu_driver *cu)
{
    if (cu->handle)
        dlclose(cu->handle);
    cu->handle = NULL;
}

/* "dddd:bb:dd.f" in lowercase with a 4-digit domain, from the driver's "0000:00:06.0" or 8-digit form. */
static void pci_id(const char *in, char *out, size_t size)
{
    unsigned domain, bus, dev, fn;

    if (sscanf(in, "%x:%x:%x.%x", &domain, &bus, &dev, &fn) == 4)
        snprintf(out, size, "%04x:%02x:%02x.%x", domain & 0xffff, bus, dev, fn);
}

/* Fills d from CUDA device ordinal i; d keeps what it had for what the driver does not answer. */
static void cu_describe(struct cu_driver *cu, int i, struct pp_device *d, int *sm_count)
{
    char name[256], pci[64];
    unsigned char u[16];
    size_t mem = 0;
    int dev, sms = 0, l2 = 0;

    if (cu->get(&dev, i) != 0)
        return;
    if (cu->name(name, (int)sizeof(name), dev) == 0)
        snprintf(d->name, sizeof(d->name), "%s", name);
    if (cu->uuid(u, dev) == 0)
        snprintf(d->uuid, sizeof(d->uuid),
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
                 u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    if (cu->pci(pci, (int)sizeof(pci), dev) == 0)
        pci_id(pci, d->pci_bus_id, sizeof(d->pci_bus_id));
    if (cu->mem(&mem, dev) == 0)
        d->mem_bytes = mem;
    if (cu->attribute(&sms, CU_ATTR_MULTIPROCESSOR_COUNT, dev) == 0 && sms > 0) {
        d->compute_units = (unsigned)sms;
        if (sm_count)
            *sm_count = sms;
    }
    if (cu->attribute(&l2, CU_ATTR_L2_CACHE_SIZE, dev) == 0 && l2 > 0)
        d->llc_bytes = (uint64_t)l2;
}

/* ---- discovery ---- */

static int host_wanted(void)
{
    const char *v = getenv("PPBENCH_OMPTARGET_HOST");

    return v && strcmp(v, "1") == 0;
}

/* The device count and the host's device number, from the offload runtime itself. LLVM's libomp defines
 * omp_get_num_devices and omp_get_initial_device (= that count) as forwarders that look the function up in
 * libomptarget through dlsym from libomp, and this build's references bind to libomp's (the first of its
 * dependencies). The worker dlopens this library RTLD_LOCAL, so libomptarget is in its local scope only,
 * where that lookup does not reach: libomp answers 0 devices, no device is seen, and the host's number would
 * be 0, device 0's. So the clang build calls libomptarget's own functions (found in the loaded library:
 * RTLD_NOLOAD); GCC's libgomp answers directly. Set by the first discovery, before any other OpenMP call of
 * this model. */
static int (*num_devices)(void) = omp_get_num_devices;
static int (*initial_device)(void) = omp_get_initial_device;

static void runtime_bind(void)
{
#ifdef __clang__
    static const char *const libs[] = {"libomptarget.so.19.1", "libomptarget.so"};

    for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
        void *h = dlopen(libs[i], RTLD_NOW | RTLD_NOLOAD), *n, *d;

        if (!h)
            continue;
        n = dlsym(h, "omp_get_num_devices");
        d = dlsym(h, "omp_get_initial_device");
        if (n && d) {
            *(void **)&num_devices = n; /* POSIX: a function's address through dlsym */
            *(void **)&initial_device = d;
            return;
        }
    }
#endif
}

static int omptarget_discover(struct pp_device_list *out, struct pp_error *err)
{
    struct cu_driver cu = {0};
    int ndev, ncuda = -1;

    runtime_bind();
    ndev = num_devices();
    size_t added = 0;

    if (ndev > 0 && cu_open(&cu) == 0 && cu.count(&ncuda) != 0)
        ncuda = -1;
    for (int i = 0; i < ndev && out->len < PP_MAX_DEVICES; i++) {
        struct pp_device *d = &out->items[out->len++];

        memset(d, 0, sizeof(*d));
        d->backend = &pp_backend_omptarget;
        d->index = i;
        d->kind = PP_DEVICE_GPU;
        snprintf(d->name, sizeof(d->name), "OpenMP offload device %d", i);
        snprintf(d->vendor, sizeof(d->vendor), "NVIDIA");
        d->fp64 = true;
        if (ncuda == ndev)
            cu_describe(&cu, i, d, NULL);
        added++;
    }
    cu_close(&cu);
    if (host_wanted() && out->len < PP_MAX_DEVICES) {
        struct pp_device *d = &out->items[out->len++];
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);

        memset(d, 0, sizeof(*d));
        d->backend = &pp_backend_omptarget;
        d->index = initial_device();
        d->kind = PP_DEVICE_CPU;
        snprintf(d->name, sizeof(d->name), "host CPU (OpenMP initial device)");
        d->mem_bytes = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
        d->compute_units = cpus > 0 ? (unsigned)cpus : 1;
        d->fp64 = true;
        added++;
    }
    if (added)
        return 0;
    return pp_error_set(err,
                        "no device: the %s build's runtime offloads to no device (needs " OMPT_NEEDS
                        ", a CUDA driver and a GPU; OMP_TARGET_OFFLOAD=%s; set PPBENCH_OMPTARGET_HOST=1 for "
                        "host fallback)",
                        OMPT_TOOLCHAIN,
                        getenv("OMP_TARGET_OFFLOAD") ? getenv("OMP_TARGET_OFFLOAD") : "unset");
}

/* ---- contexts ---- */

/* *out = the number in the environment variable name (0: the runtime's choice; absent: 0, *given false). */
static int shape_from_env(const char *name, unsigned *out, bool *given, struct pp_error *err)
{
    unsigned long v = 0;
    int rc = pp_env_unsigned(name, &v);

    if (rc < 0 || v > 1u << 24)
        return pp_error_set(err, "%s must be a number from 0 to %u", name, 1u << 24);
    *out = rc ? (unsigned)v : 0;
    if (given)
        *given = rc > 0;
    return 0;
}

static int omptarget_open(const struct pp_device *dev, struct pp_ctx **out, struct pp_error *err)
{
    struct pp_ctx *ctx;
    void *probe;

    *out = NULL;
    ctx = calloc(1, sizeof(*ctx));
    if (!ctx)
        return pp_error_set(err, "out of memory");
    ctx->device = dev->index;
    ctx->host = dev->kind == PP_DEVICE_CPU;
    if (shape_from_env("PPBENCH_OMPTARGET_TEAMS", &ctx->shape.teams, NULL, err) < 0 ||
        shape_from_env("PPBENCH_OMPTARGET_THREADS", &ctx->shape.threads, &ctx->shape.threads_given, err) < 0)
        goto fail;
    if (ctx->host) {
        ctx->sm_count = omp_get_max_threads();
    } else {
        struct cu_driver cu;
        int n = 0;

        if (cu_open(&cu) == 0) {
            struct pp_device d;
            if (cu.count(&n) == 0 && n == num_devices())
                cu_describe(&cu, ctx->device, &d, &ctx->sm_count);
            cu_close(&cu);
        }
    }
    /* The device's first allocation starts its runtime (the plugin loads its image): a failure is the
     * device's, and says so here rather than in the first kernel. */
    probe = omp_target_alloc(64, ctx->device);
    if (!probe) {
        pp_error_set(err, "omp_target_alloc on device %d failed (the offload runtime, %s, or the device)",
                     ctx->device, OMPT_RUNTIME);
        goto fail;
    }
    omp_target_free(probe, ctx->device);
    *out = ctx;
    return 0;
fail:
    free(ctx);
    return -1;
}

static void omptarget_close(struct pp_ctx *ctx)
{
    if (!ctx)
        return;
    pp_suite_slots_release(&ctx->suites, ctx);
    free(ctx);
}

static void omptarget_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    struct cu_driver cu;
    Dl_info so;
    int v = 0;

    info_add(out, "omptarget.openmp_version", "%d", _OPENMP);
    info_add(out, "omptarget.device", "%d%s", ctx->device,
             ctx->host ? " (initial device: host fallback)" : "");
    info_add(out, "omptarget.num_devices", "%d", num_devices());
    info_add(out, "omptarget.offload", "%s",
             getenv("OMP_TARGET_OFFLOAD") ? getenv("OMP_TARGET_OFFLOAD") : "");
    info_add(out, "omptarget.teams", "%u", ctx->shape.teams);
    if (ctx->shape.threads_given)
        info_add(out, "omptarget.thread_limit", "%u", ctx->shape.threads);
    else
        info_add(out, "omptarget.thread_limit",
                 "unset (each suite's default: the variant's work_group_size)");
    if (ctx->sm_count)
        info_add(out, ctx->host ? "omptarget.host_threads" : "omptarget.sm_count", "%d", ctx->sm_count);
    info_add(out, "omptarget.toolchain", "%s", OMPT_TOOLCHAIN);
    info_add(out, "omptarget.compiler", "%s", OMPT_COMPILER);
    info_add(out, "omptarget.cflags", "%s", OMPT_FLAGS);
    info_add(out, "omptarget.runtime", "%s", OMPT_RUNTIME);
    if (dladdr(&pp_backend_omptarget, &so) && so.dli_fname)
        info_add(out, "omptarget.library", "%s", so.dli_fname);
    if (!ctx->host && cu_open(&cu) == 0) {
        if (cu.version(&v) == 0)
            info_add(out, "omptarget.cuda_driver", "%d.%d", v / 1000, v % 1000 / 10);
        cu_close(&cu);
    }
    pp_suite_slots_describe(&ctx->suites, ctx, out);
}

/* ---- helpers the suites' files share ---- */

void *omptarget_alloc(struct pp_ctx *ctx, size_t bytes, const char *what, struct pp_error *err)
{
    void *p = omp_target_alloc(bytes ? bytes : 1, ctx->device);

    if (!p)
        pp_error_set(err, "cannot allocate %s: %zu bytes on device %d", what, bytes, ctx->device);
    return p;
}

void omptarget_free(struct pp_ctx *ctx, void *p)
{
    if (p)
        omp_target_free(p, ctx->device);
}

int omptarget_to_device(struct pp_ctx *ctx, void *dst, const void *src, size_t bytes, struct pp_error *err)
{
    if (bytes && omp_target_memcpy(dst, (void *)src, bytes, 0, 0, ctx->device, initial_device()))
        return pp_error_set(err, "omp_target_memcpy of %zu bytes to device %d failed", bytes, ctx->device);
    return 0;
}

int omptarget_to_host(struct pp_ctx *ctx, void *dst, const void *src, size_t bytes, struct pp_error *err)
{
    if (bytes && omp_target_memcpy(dst, (void *)src, bytes, 0, 0, initial_device(), ctx->device))
        return pp_error_set(err, "omp_target_memcpy of %zu bytes from device %d failed", bytes, ctx->device);
    return 0;
}

unsigned omptarget_blocks(const struct pp_ctx *ctx)
{
    if (ctx->shape.teams)
        return ctx->shape.teams;
    if (ctx->host)
        return ctx->sm_count > 0 ? (unsigned)ctx->sm_count : 1;
    return ctx->sm_count > 0 ? 4u * (unsigned)ctx->sm_count : 512;
}

PP_SUITES_DECLARE(omptarget);

__attribute__((visibility("default"))) const struct pp_backend pp_backend_omptarget = {
    .name = "omp-target",
    .discover = omptarget_discover,
    .open = omptarget_open,
    .describe = omptarget_describe,
    .close = omptarget_close,
    PP_SUITES_OF(omptarget),
};
