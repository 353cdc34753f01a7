/*
 * opencl: the OpenCL backend's device side. Discovers every device of every platform the ICD loader offers,
 * opens one into a context (context + in-order queue, struct opencl_ctx behind the opaque struct pp_ctx),
 * builds programs from embedded sources through an on-disk binary cache, and reports provenance. The kernels
 * live in the suites' files (kernels/<suite>/opencl.c), each registered with PP_SUITE_IMPL(opencl, <suite>)
 * and keeping its state in the context's suite slots: this file names no suite.
 *
 * Ownership: open() returns a context the caller frees with close(), which also frees every suite's state
 * (pp_suite_slots_release). Programs returned by opencl_program_build() belong to the caller. No globals
 * beyond the const table. Threads: a context is used by one thread at a time; discover() touches no shared
 * state.
 */
#include "kernels/opencl/opencl.h"

#include <CL/cl_ext.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* cl_nv_device_attribute_query: older headers lack the PCI location queries. */
#ifndef CL_DEVICE_PCI_BUS_ID_NV
#define CL_DEVICE_PCI_BUS_ID_NV 0x4008
#endif
#ifndef CL_DEVICE_PCI_SLOT_ID_NV
#define CL_DEVICE_PCI_SLOT_ID_NV 0x4009
#endif
#ifndef CL_DEVICE_PCI_DOMAIN_ID_NV
#define CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A
#endif
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

/* ---- errors ---- */

/* Status names indexed by -code (0 to -72, OpenCL 1.2 to 3.0); NULL where the standard assigns none. */
/* clang-format off */
static const char *const cl_error_names[] = {
    "CL_SUCCESS", "CL_DEVICE_NOT_FOUND", "CL_DEVICE_NOT_AVAILABLE", "CL_COMPILER_NOT_AVAILABLE",
    "CL_MEM_OBJECT_ALLOCATION_FAILURE", "CL_OUT_OF_RESOURCES", "CL_OUT_OF_HOST_MEMORY",
    "CL_PROFILING_INFO_NOT_AVAILABLE", "CL_MEM_COPY_OVERLAP", "CL_IMAGE_FORMAT_MISMATCH",
    "CL_IMAGE_FORMAT_NOT_SUPPORTED", "CL_BUILD_PROGRAM_FAILURE", "CL_MAP_FAILURE",
    "CL_MISALIGNED_SUB_BUFFER_OFFSET", "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
    "CL_COMPILE_PROGRAM_FAILURE", "CL_LINKER_NOT_AVAILABLE", "CL_LINK_PROGRAM_FAILURE",
    "CL_DEVICE_PARTITION_FAILED", "CL_KERNEL_ARG_INFO_NOT_AVAILABLE", NULL, NULL, NULL, NULL, NULL, NULL,
    NULL, NULL, NULL, NULL, "CL_INVALID_VALUE", "CL_INVALID_DEVICE_TYPE", "CL_INVALID_PLATFORM",
    "CL_INVALID_DEVICE", "CL_INVALID_CONTEXT", "CL_INVALID_QUEUE_PROPERTIES", "CL_INVALID_COMMAND_QUEUE",
    "CL_INVALID_HOST_PTR", "CL_INVALID_MEM_OBJECT", "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR",
    "CL_INVALID_IMAGE_SIZE", "CL_INVALID_SAMPLER", "CL_INVALID_BINARY", "CL_INVALID_BUILD_OPTIONS",
    "CL_INVALID_PROGRAM", "CL_INVALID_PROGRAM_EXECUTABLE", "CL_INVALID_KERNEL_NAME",
    "CL_INVALID_KERNEL_DEFINITION", "CL_INVALID_KERNEL", "CL_INVALID_ARG_INDEX", "CL_INVALID_ARG_VALUE",
    "CL_INVALID_ARG_SIZE", "CL_INVALID_KERNEL_ARGS", "CL_INVALID_WORK_DIMENSION",
    "CL_INVALID_WORK_GROUP_SIZE", "CL_INVALID_WORK_ITEM_SIZE", "CL_INVALID_GLOBAL_OFFSET",
    "CL_INVALID_EVENT_WAIT_LIST", "CL_INVALID_EVENT", "CL_INVALID_OPERATION", "CL_INVALID_GL_OBJECT",
    "CL_INVALID_BUFFER_SIZE", "CL_INVALID_MIP_LEVEL", "CL_INVALID_GLOBAL_WORK_SIZE", "CL_INVALID_PROPERTY",
    "CL_INVALID_IMAGE_DESCRIPTOR", "CL_INVALID_COMPILER_OPTIONS", "CL_INVALID_LINKER_OPTIONS",
    "CL_INVALID_DEVICE_PARTITION_COUNT", "CL_INVALID_PIPE_SIZE", "CL_INVALID_DEVICE_QUEUE",
    "CL_INVALID_SPEC_ID", "CL_MAX_SIZE_RESTRICTION_EXCEEDED",
};
/* clang-format on */

const char *opencl_strerror(cl_int rc)
{
    if (rc <= 0 && -(long)rc < (long)(sizeof(cl_error_names) / sizeof(cl_error_names[0])) &&
        cl_error_names[-rc])
        return cl_error_names[-rc];
    if (rc == -1000)
        return "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR";
    if (rc == CL_PLATFORM_NOT_FOUND_KHR)
        return "CL_PLATFORM_NOT_FOUND_KHR";
    return "CL_UNKNOWN_ERROR";
}

int opencl_error(struct pp_error *err, cl_int rc, const char *what)
{
    return pp_error_set(err, "%s: %s (%d)", what, opencl_strerror(rc), (int)rc);
}

int opencl_buffer_new(struct opencl_ctx *c, cl_mem_flags flags, size_t bytes, const char *name, cl_mem *out,
                      struct pp_error *err)
{
    char what[96];
    cl_int rc;

    *out = clCreateBuffer(c->context, flags, bytes, NULL, &rc);
    if (*out)
        return 0;
    snprintf(what, sizeof(what), "clCreateBuffer(%s, %zu bytes)", name, bytes);
    return opencl_error(err, rc, what);
}

/* ---- device and platform queries ---- */

/* A string query of platform p, or of device d when p is NULL, as a new malloc'd string (the caller frees) or
 * NULL. */
static char *str_new(cl_platform_id p, cl_device_id d, cl_uint what)
{
    size_t len = 0;
    char *s;

    if ((p ? clGetPlatformInfo(p, what, 0, NULL, &len) : clGetDeviceInfo(d, what, 0, NULL, &len)) !=
        CL_SUCCESS)
        return NULL;
    s = calloc(len + 1, 1);
    if (s && (p ? clGetPlatformInfo(p, what, len, s, NULL) : clGetDeviceInfo(d, what, len, s, NULL)) !=
                 CL_SUCCESS) {
        free(s);
        return NULL;
    }
    return s;
}

/* The same query into buf, truncated, without leading or trailing whitespace; "" when it fails. */
static void str_copy(cl_platform_id p, cl_device_id d, cl_uint what, char *buf, size_t len)
{
    char *s = str_new(p, d, what);
    const char *t = s ? s : "";
    size_t n;

    while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r')
        t++;
    n = strlen(t);
    while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t' || t[n - 1] == '\n' || t[n - 1] == '\r'))
        n--;
    snprintf(buf, len, "%.*s", (int)n, t);
    free(s);
}

/* Whether the space-separated list exts names ext exactly. */
static bool has_extension(const char *exts, const char *ext)
{
    size_t n = strlen(ext);

    for (const char *p = exts; p && (p = strstr(p, ext)) != NULL; p += n)
        if ((p == exts || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

bool opencl_device_extension(struct opencl_ctx *c, const char *ext)
{
    char *exts = str_new(NULL, c->device, CL_DEVICE_EXTENSIONS);
    bool found = has_extension(exts, ext);

    free(exts);
    return found;
}

static void fill_identity(struct pp_device *dv, cl_device_id d)
{
    char *exts = str_new(NULL, d, CL_DEVICE_EXTENSIONS);
    cl_uchar u[16];
    cl_device_pci_bus_info_khr pci;
    cl_uint bus, slot, domain = 0;

    if (dv->kind == PP_DEVICE_GPU && has_extension(exts, "cl_khr_device_uuid") &&
        clGetDeviceInfo(d, CL_DEVICE_UUID_KHR, sizeof(u), u, NULL) == CL_SUCCESS)
        snprintf(dv->uuid, sizeof(dv->uuid),
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
                 u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    if (has_extension(exts, "cl_khr_pci_bus_info") &&
        clGetDeviceInfo(d, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof(pci), &pci, NULL) == CL_SUCCESS) {
        snprintf(dv->pci_bus_id, sizeof(dv->pci_bus_id), "%04x:%02x:%02x.%x", (unsigned)pci.pci_domain,
                 (unsigned)pci.pci_bus, (unsigned)pci.pci_device, (unsigned)pci.pci_function);
    } else if (has_extension(exts, "cl_nv_device_attribute_query") &&
               clGetDeviceInfo(d, CL_DEVICE_PCI_BUS_ID_NV, sizeof(bus), &bus, NULL) == CL_SUCCESS &&
               clGetDeviceInfo(d, CL_DEVICE_PCI_SLOT_ID_NV, sizeof(slot), &slot, NULL) == CL_SUCCESS) {
        /* the domain query is newer than the other two: domain 0 where the driver lacks it */
        if (clGetDeviceInfo(d, CL_DEVICE_PCI_DOMAIN_ID_NV, sizeof(domain), &domain, NULL) != CL_SUCCESS)
            domain = 0;
        snprintf(dv->pci_bus_id, sizeof(dv->pci_bus_id), "%04x:%02x:%02x.%x", (unsigned)domain, (unsigned)bus,
                 (unsigned)(slot >> 3), (unsigned)(slot & 7));
    }
    free(exts);
}

/* Describe device d as the ordinal-th OpenCL device. Queries that fail leave their field zero or empty. */
static void fill_device(struct pp_device *dv, cl_device_id d, int ordinal)
{
    cl_device_type type = 0;
    cl_ulong mem = 0, max_alloc = 0, cache = 0;
    cl_uint cu = 0;
    cl_device_fp_config fp64 = 0;

    memset(dv, 0, sizeof(*dv));
    dv->backend = &pp_backend_opencl;
    dv->index = ordinal;
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof(type), &type, NULL);
    dv->kind = (type & CL_DEVICE_TYPE_GPU)   ? PP_DEVICE_GPU
               : (type & CL_DEVICE_TYPE_CPU) ? PP_DEVICE_CPU
                                             : PP_DEVICE_ACCEL;
    str_copy(NULL, d, CL_DEVICE_NAME, dv->name, sizeof(dv->name));
    str_copy(NULL, d, CL_DEVICE_VENDOR, dv->vendor, sizeof(dv->vendor));
    clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(mem), &mem, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(max_alloc), &max_alloc, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cu), &cu, NULL);
    clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof(cache), &cache, NULL);
    if (clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(fp64), &fp64, NULL) != CL_SUCCESS)
        fp64 = 0; /* pre-1.2 devices without cl_khr_fp64 reject the query */
    dv->mem_bytes = mem;
    dv->max_alloc_bytes = max_alloc;
    dv->compute_units = cu;
    dv->llc_bytes = cache;
    dv->fp64 = fp64 != 0;
    fill_identity(dv, d);
}

/*
 * Visit every device of every platform in platform-major order; the ordinal passed to visit is what
 * pp_device.index holds. visit returns 0 to go on, 1 to stop. Platforms whose device query fails contribute
 * no devices (the same on every call, so ordinals stay stable). Returns -1 with err when there is no
 * platform, else 0 with *ndevices the number visited and *last_rc the last failing device query (CL_SUCCESS
 * if none).
 */
typedef int (*visit_fn)(void *arg, cl_platform_id p, cl_device_id d, int ordinal);

static int each_device(visit_fn visit, void *arg, int *ndevices, cl_int *last_rc, struct pp_error *err)
{
    cl_platform_id *plats = NULL;
    cl_device_id *devs = NULL;
    cl_uint np = 0, nd;
    cl_int rc;
    int ordinal = 0, ret = -1, stop = 0;

    *last_rc = CL_SUCCESS;
    rc = clGetPlatformIDs(0, NULL, &np);
    if (rc != CL_SUCCESS) {
        opencl_error(err, rc, "clGetPlatformIDs");
        goto out;
    }
    if (np == 0) {
        pp_error_set(err, "clGetPlatformIDs: no platform (is an OpenCL ICD installed?)");
        goto out;
    }
    plats = calloc(np, sizeof(*plats));
    if (!plats) {
        pp_error_set(err, "out of memory");
        goto out;
    }
    rc = clGetPlatformIDs(np, plats, NULL);
    if (rc != CL_SUCCESS) {
        opencl_error(err, rc, "clGetPlatformIDs");
        goto out;
    }
    for (cl_uint i = 0; i < np && !stop; i++) {
        nd = 0;
        rc = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
        if (rc != CL_SUCCESS || nd == 0) {
            *last_rc = rc != CL_SUCCESS ? rc : CL_DEVICE_NOT_FOUND;
            continue;
        }
        free(devs);
        devs = calloc(nd, sizeof(*devs));
        if (!devs) {
            pp_error_set(err, "out of memory");
            goto out;
        }
        rc = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, nd, devs, NULL);
        if (rc != CL_SUCCESS) {
            *last_rc = rc;
            continue;
        }
        for (cl_uint j = 0; j < nd && !stop; j++)
            stop = visit(arg, plats[i], devs[j], ordinal++);
    }
    *ndevices = ordinal;
    ret = 0;
out:
    free(devs);
    free(plats);
    return ret;
}

static int visit_append(void *arg, cl_platform_id p, cl_device_id d, int ordinal)
{
    struct pp_device_list *out = arg;

    (void)p;
    if (out->len < PP_MAX_DEVICES)
        fill_device(&out->items[out->len++], d, ordinal);
    return 0;
}

static int opencl_discover(struct pp_device_list *out, struct pp_error *err)
{
    size_t before = out->len;
    int ndevices = 0;
    cl_int last_rc;

    if (each_device(visit_append, out, &ndevices, &last_rc, err) != 0)
        return pp_error_prefix(err, "no device");
    if (ndevices == 0)
        return pp_error_set(err, "no device: no platform has a device (clGetDeviceIDs: %s (%d))",
                            opencl_strerror(last_rc), (int)last_rc);
    if (out->len == before)
        return pp_error_set(err, "no device: the device list is full (%d devices)", PP_MAX_DEVICES);
    return 0;
}

/* ---- contexts ---- */

struct find {
    int ordinal;
    cl_platform_id platform;
    cl_device_id device;
};

static int visit_find(void *arg, cl_platform_id p, cl_device_id d, int ordinal)
{
    struct find *f = arg;

    if (ordinal != f->ordinal)
        return 0;
    f->platform = p;
    f->device = d;
    return 1;
}

static void opencl_close(struct pp_ctx *ctx)
{
    struct opencl_ctx *c = opencl_ctx(ctx);

    if (!c)
        return;
    pp_suite_slots_release(&c->suites, ctx);
    if (c->queue)
        clReleaseCommandQueue(c->queue);
    if (c->context)
        clReleaseContext(c->context);
    free(c);
}

static int opencl_open(const struct pp_device *dev, struct pp_ctx **ctx, struct pp_error *err)
{
    struct opencl_ctx *c = NULL;
    struct find f = {.ordinal = dev->index};
    struct pp_device now;
    cl_context_properties props[3] = {CL_CONTEXT_PLATFORM, 0, 0};
    cl_int rc, last_rc;
    cl_ulong local_mem = 0;
    size_t max_wg = 0;
    int ndevices, ret = -1;

    *ctx = NULL;
    if (each_device(visit_find, &f, &ndevices, &last_rc, err) != 0)
        goto out;
    if (!f.device) {
        pp_error_set(err, "opencl device %d not found (%d devices now)", dev->index, ndevices);
        goto out;
    }
    fill_device(&now, f.device, dev->index);
    if (strcmp(now.name, dev->name) != 0) {
        pp_error_set(err, "opencl device %d is now \"%s\", not \"%s\"", dev->index, now.name, dev->name);
        goto out;
    }
    c = calloc(1, sizeof(*c));
    if (!c) {
        pp_error_set(err, "out of memory");
        goto out;
    }
    c->platform = f.platform;
    c->device = f.device;
    c->kind = now.kind;
    memcpy(c->name, now.name, sizeof(c->name));
    c->mem_bytes = now.mem_bytes;
    c->max_alloc_bytes = now.max_alloc_bytes;
    c->compute_units = now.compute_units ? now.compute_units : 1;
    c->fp64 = now.fp64;
    {
        char *exts = str_new(NULL, f.device, CL_DEVICE_EXTENSIONS);
        c->nv_compiler_options = has_extension(exts, "cl_nv_compiler_options");
        free(exts);
    }
    clGetDeviceInfo(f.device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(local_mem), &local_mem, NULL);
    clGetDeviceInfo(f.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_wg), &max_wg, NULL);
    c->local_mem_bytes = local_mem;
    c->max_work_group = max_wg ? max_wg : 1;

    props[1] = (cl_context_properties)f.platform;
    c->context = clCreateContext(props, 1, &f.device, NULL, NULL, &rc);
    if (!c->context) {
        opencl_error(err, rc, "clCreateContext");
        goto out;
    }
    c->queue = clCreateCommandQueue(c->context, f.device, 0, &rc); /* in order, no profiling */
    if (!c->queue) {
        opencl_error(err, rc, "clCreateCommandQueue");
        goto out;
    }
    *ctx = (struct pp_ctx *)c;
    c = NULL;
    ret = 0;
out:
    opencl_close((struct pp_ctx *)c);
    return ret;
}

static void opencl_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    char name[96], version[128], buf[128];

    str_copy(c->platform, NULL, CL_PLATFORM_NAME, name, sizeof(name));
    str_copy(c->platform, NULL, CL_PLATFORM_VERSION, version, sizeof(version));
    info_add(out, "opencl.platform", "%s, %s", name, version);
    str_copy(c->platform, NULL, CL_PLATFORM_VENDOR, buf, sizeof(buf));
    info_add(out, "opencl.platform_vendor", "%s", buf);
    str_copy(NULL, c->device, CL_DEVICE_VERSION, buf, sizeof(buf));
    info_add(out, "opencl.device_version", "%s", buf);
    str_copy(NULL, c->device, CL_DRIVER_VERSION, buf, sizeof(buf));
    info_add(out, "opencl.driver_version", "%s", buf);
    str_copy(NULL, c->device, CL_DEVICE_OPENCL_C_VERSION, buf, sizeof(buf));
    info_add(out, "opencl.c_version", "%s", buf);
    if (c->program_cache) {
        info_add(out, "opencl.build_options", "%s", c->build_options);
        info_add(out, "opencl.program_cache", "%s", c->program_cache);
    }
    pp_suite_slots_describe(&c->suites, ctx, out);
}

/* ---- programs and their binary cache ---- */

/*
 * Cache file <dir>/<key as 16 hex>.bin: a header (magic, key, payload size, FNV-1a of the payload) and the
 * device binary. The key hashes everything that changes the binary: source, options, platform version, device
 * name, driver version (and the device version, for drivers that share one version string across devices).
 * Anything that does not check out (short file, wrong key, bad checksum, a binary the driver refuses) means a
 * rebuild from source; failing to write the cache is ignored.
 */
#define CACHE_MAGIC  "PPCLBIN1"
#define CACHE_MAX    (256u << 20) /* no device binary of ours comes near this: larger means a corrupt header */
#define FNV_OFFSET64 0xcbf29ce484222325ULL
#define FNV_PRIME64  0x100000001b3ULL

struct cache_header {
    char magic[8];
    uint64_t key, size, sum;
};

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;

    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= FNV_PRIME64;
    }
    return h;
}

/* Hash s with its terminating NUL, so that field boundaries count. */
static uint64_t fnv1a_str(uint64_t h, const char *s)
{
    return fnv1a(h, s ? s : "", strlen(s ? s : "") + 1);
}

static int mkdir_p(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            *p = '/';
            return -1;
        }
        *p = '/';
    }
    return mkdir(path, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* The cache directory (created) and key; -1 when there is no place for a cache. */
static int cache_path(struct opencl_ctx *c, const char *source, const char *options, char *path, size_t len,
                      uint64_t *key)
{
    const char *env;
    char dir[4096];
    char *s;
    uint64_t h = fnv1a_str(FNV_OFFSET64, "ppbench opencl cache 1");

    if ((env = getenv("PPBENCH_CACHE_DIR")) && *env)
        snprintf(dir, sizeof(dir), "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) && *env)
        snprintf(dir, sizeof(dir), "%s/ppbench/opencl", env);
    else if ((env = getenv("HOME")) && *env)
        snprintf(dir, sizeof(dir), "%s/.cache/ppbench/opencl", env);
    else
        return -1;
    if (mkdir_p(dir) != 0)
        return -1;

    h = fnv1a_str(h, source);
    h = fnv1a_str(h, options);
    h = fnv1a_str(h, s = str_new(c->platform, NULL, CL_PLATFORM_VERSION));
    free(s);
    h = fnv1a_str(h, s = str_new(NULL, c->device, CL_DEVICE_NAME));
    free(s);
    h = fnv1a_str(h, s = str_new(NULL, c->device, CL_DRIVER_VERSION));
    free(s);
    h = fnv1a_str(h, s = str_new(NULL, c->device, CL_DEVICE_VERSION));
    free(s);
    *key = h;
    if ((size_t)snprintf(path, len, "%s/%016" PRIx64 ".bin", dir, h) >= len)
        return -1;
    return 0;
}

/* A built program from the cache file, or -1 (missing, corrupt or refused: the caller rebuilds). */
static int cache_load(struct opencl_ctx *c, const char *path, uint64_t key, const char *options,
                      cl_program *out)
{
    struct cache_header hdr;
    unsigned char *bin = NULL;
    const unsigned char *bins[1];
    cl_program prog = NULL;
    cl_int rc, status = CL_SUCCESS;
    size_t size;
    FILE *f;
    int ret = -1;

    f = fopen(path, "rb");
    if (!f)
        return -1;
    if (fread(&hdr, sizeof(hdr), 1, f) != 1 || memcmp(hdr.magic, CACHE_MAGIC, 8) != 0 || hdr.key != key ||
        hdr.size == 0 || hdr.size > CACHE_MAX)
        goto out;
    bin = malloc(hdr.size);
    if (!bin || fread(bin, 1, hdr.size, f) != hdr.size || fgetc(f) != EOF ||
        fnv1a(FNV_OFFSET64, bin, hdr.size) != hdr.sum)
        goto out;
    bins[0] = bin;
    size = hdr.size;
    prog = clCreateProgramWithBinary(c->context, 1, &c->device, &size, bins, &status, &rc);
    if (!prog || rc != CL_SUCCESS || status != CL_SUCCESS)
        goto out;
    if (clBuildProgram(prog, 1, &c->device, options, NULL, NULL) != CL_SUCCESS)
        goto out;
    *out = prog;
    prog = NULL;
    ret = 0;
out:
    if (prog)
        clReleaseProgram(prog);
    free(bin);
    fclose(f);
    return ret;
}

/* Write prog's binary to path through a temporary file and rename; best effort. */
static void cache_save(const char *path, uint64_t key, cl_program prog)
{
    struct cache_header hdr = {.key = key};
    unsigned char *bin = NULL, *bins[1];
    char tmp[4200];
    size_t size = 0;
    FILE *f = NULL;
    bool ok;

    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL) != CL_SUCCESS ||
        size == 0 || size > CACHE_MAX)
        return;
    bin = malloc(size);
    bins[0] = bin;
    if (!bin || clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof(bins), bins, NULL) != CL_SUCCESS)
        goto out;
    memcpy(hdr.magic, CACHE_MAGIC, 8);
    hdr.size = size;
    hdr.sum = fnv1a(FNV_OFFSET64, bin, size);
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= sizeof(tmp))
        goto out;
    f = fopen(tmp, "wbx");
    if (!f)
        goto out;
    ok = fwrite(&hdr, sizeof(hdr), 1, f) == 1 && fwrite(bin, 1, size, f) == size;
    ok = fclose(f) == 0 && ok;
    f = NULL;
    if (!ok || rename(tmp, path) != 0)
        unlink(tmp);
out:
    free(bin);
}

/* Build log of prog for the device, whitespace runs folded to one space, into buf. */
static void build_log(struct opencl_ctx *c, cl_program prog, char *buf, size_t len)
{
    size_t n = 0, j = 0;
    char *log;

    buf[0] = '\0';
    if (clGetProgramBuildInfo(prog, c->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS || n == 0)
        return;
    log = calloc(n + 1, 1);
    if (!log)
        return;
    if (clGetProgramBuildInfo(prog, c->device, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS) {
        for (size_t i = 0; log[i] && j + 1 < len; i++) {
            bool space = log[i] == ' ' || log[i] == '\n' || log[i] == '\t' || log[i] == '\r';
            if (space && (j == 0 || buf[j - 1] == ' '))
                continue;
            buf[j++] = space ? ' ' : log[i];
        }
        while (j > 0 && buf[j - 1] == ' ')
            j--;
        buf[j] = '\0';
    }
    free(log);
}

static int build_source(struct opencl_ctx *c, const char *name, const char *source, const char *options,
                        cl_program *out, struct pp_error *err)
{
    cl_program prog;
    cl_int rc;
    char what[96], log[sizeof(err->msg)];

    prog = clCreateProgramWithSource(c->context, 1, &source, NULL, &rc);
    if (!prog) {
        snprintf(what, sizeof(what), "clCreateProgramWithSource(%s)", name);
        return opencl_error(err, rc, what);
    }
    rc = clBuildProgram(prog, 1, &c->device, options, NULL, NULL);
    if (rc != CL_SUCCESS) {
        build_log(c, prog, log, sizeof(log));
        clReleaseProgram(prog);
        return pp_error_set(err, "clBuildProgram(%s): %s (%d): %s", name, opencl_strerror(rc), (int)rc,
                            log[0] ? log : "no build log");
    }
    *out = prog;
    return 0;
}

int opencl_program_build(struct opencl_ctx *c, const char *name, const char *source, const char *options,
                         cl_program *out, struct pp_error *err)
{
    const char *env = getenv("PPBENCH_OPENCL_NO_CACHE");
    const char *state = "off";
    char path[4096];
    uint64_t key = 0;
    bool cache = !(env && *env && strcmp(env, "0") != 0);

    *out = NULL;
    if (cache && cache_path(c, source, options, path, sizeof(path), &key) == 0) {
        if (cache_load(c, path, key, options, out) == 0) {
            state = "hit";
            goto done;
        }
        state = "miss";
    }
    if (build_source(c, name, source, options, out, err) != 0)
        return -1;
    if (strcmp(state, "miss") == 0)
        cache_save(path, key, *out);
done:
    snprintf(c->build_options, sizeof(c->build_options), "%s", options ? options : "");
    c->program_cache = state;
    return 0;
}

PP_SUITES_DECLARE(opencl);

const struct pp_backend pp_backend_opencl = {
    .name = "opencl",
    .discover = opencl_discover,
    .open = opencl_open,
    .describe = opencl_describe,
    .close = opencl_close,
    PP_SUITES_OF(opencl),
};
