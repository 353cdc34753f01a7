/*
 * opencl/stream: the STREAM kernels (paper 004, BabelStream) on an OpenCL device; the sources are stream.cl.
 *
 * alloc builds the program for the precision, creates the arrays a, b, c and the dot's partial sums, and sets
 * every kernel argument once; a call then enqueues its kernel and waits once (clFinish, or the dot's blocking
 * read of the partials), so the driver (kernels/stream/stream.c) can time it with a host clock. Scalars are
 * set again only when they change. The suite's state in a context (struct opencl_stream, private to this
 * file) is created by the first alloc and kept in the context's suite slots; release frees the device objects
 * and keeps what describe reports (the variant), and the context's close frees the state
 * (opencl_stream_impl). One thread at a time, like the context. Experiments: PPBENCH_OPENCL_VARIANT (vec16 |
 * scalar), PPBENCH_OPENCL_WG (work-group size, a power of two), PPBENCH_OPENCL_DOT_GROUPS_PER_CU (dot
 * work-groups per compute unit); the choices show in the layout and in describe (opencl.variant,
 * opencl.build_options).
 */
#include "kernels/opencl/opencl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/stream/stream_ops.h"
#include "lib/env.h"

OPENCL_SOURCE(stream);

/*
 * Work-group size of every kernel. GPUs: at most 1024 (CUDA's block limit), capped by
 * CL_KERNEL_WORK_GROUP_SIZE; NVIDIA's OpenCL reports 256 for these kernels on an H100, where they reached
 * 97-100% of the CUDA backend's bandwidth (1024 threads per block). CPUs: a work-group becomes one loop
 * over its work-items, vectorised across them and run by one thread, so large groups amortise the runtime's
 * per-group scheduling and keep each thread on long contiguous runs (PoCL on a 2-core VM: 64 slower than 256
 * to 1024), while n / 1024 groups still spread evenly over the threads at the sizes STREAM uses.
 */
#define WORK_GROUP_GPU 1024
#define WORK_GROUP_CPU 1024

/*
 * Work-groups of the dot's first stage per compute unit (PPBENCH_OPENCL_DOT_GROUPS_PER_CU). GPUs: four, as
 * BabelStream; on an H100 (vec16, 256 per group) four reached 97-99% of the CUDA backend's dot, 8 and 16 no
 * more, 2 less. CPUs: two per hardware thread (compute unit), so a thread that falls behind leaves part of
 * its share to the others while each work-item's block (stream.cl) stays long.
 */
#define DOT_GROUPS_PER_CU_GPU 4
#define DOT_GROUPS_PER_CU_CPU 2

/*
 * Access width (PPBENCH_OPENCL_VARIANT): vec16 by default, one 16-byte vector (double2, float4) per work-item
 * and array, as the CUDA backend's default. On an H100 one element per work-item (scalar) left fp32 copy at
 * 78% and fp64 copy and dot at 94% of CUDA; on PoCL (2-core VM) vec16 matched scalar on the element-wise
 * kernels and made the dot 1.3x (fp64) to 2.8x (fp32) faster, its lanes being independent chains.
 */
#define VEC16_DEFAULT true

enum {
    OPENCL_STREAM_INIT,
    OPENCL_STREAM_COPY,
    OPENCL_STREAM_MUL,
    OPENCL_STREAM_ADD,
    OPENCL_STREAM_TRIAD,
    OPENCL_STREAM_NSTREAM,
    OPENCL_STREAM_DOT,
    OPENCL_STREAM_NKERNELS
};

/* The suite's state in a context; all zero but variant when no arrays are allocated. */
struct opencl_stream {
    cl_program program;
    cl_kernel kernels[OPENCL_STREAM_NKERNELS];
    cl_mem a, b, c, partials;
    cl_mem host_buffer;  /* CL_MEM_ALLOC_HOST_PTR: pinned host memory for the partials on most drivers */
    void *host_partials; /* host_buffer mapped: dot_groups elements of the working precision */
    size_t n;
    enum pp_precision prec;
    unsigned vec;              /* elements per access: 16 bytes (variant vec16) or 1 (scalar) */
    size_t work_group, global; /* streaming kernels: local size and global size rounded up to it */
    size_t dot_groups;
    double scalar[OPENCL_STREAM_NKERNELS]; /* last scalar set on mul, triad, nstream */
    bool scalar_set[OPENCL_STREAM_NKERNELS];
    const char *variant; /* "vec16" or "scalar" once arrays were allocated; kept by release, for describe */
};

PP_SUITE_SLOT(opencl, stream, struct opencl_stream, opencl_ctx(ctx)->suites, stream_release)

struct kernel_spec {
    const char *function; /* in stream.cl */
    const char *label;    /* in error messages */
    const char *arrays;   /* leading buffer arguments: a, b, c or p (the partials); then n, then the rest */
};

static const struct kernel_spec kernel_specs[OPENCL_STREAM_NKERNELS] = {
    [OPENCL_STREAM_INIT] = {"stream_init", "init", "abc"},
    [OPENCL_STREAM_COPY] = {"stream_copy", "copy", "ac"},
    [OPENCL_STREAM_MUL] = {"stream_mul", "mul", "bc"},
    [OPENCL_STREAM_ADD] = {"stream_add", "add", "abc"},
    [OPENCL_STREAM_TRIAD] = {"stream_triad", "triad", "abc"},
    [OPENCL_STREAM_NSTREAM] = {"stream_nstream", "nstream", "abc"},
    [OPENCL_STREAM_DOT] = {"stream_dot", "dot", "abp"},
};

/* Index of the first argument after the arrays and n (the scalar, the local buffer, the initial values). */
static cl_uint first_extra_arg(int k)
{
    return (cl_uint)strlen(kernel_specs[k].arrays) + 1;
}

static int fail(struct pp_error *err, cl_int rc, const char *call, int k)
{
    char what[96];

    snprintf(what, sizeof(what), "%s(%s)", call, kernel_specs[k].label);
    return opencl_error(err, rc, what);
}

static void stream_release(struct pp_ctx *ctx)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_stream *s = slot_get(ctx);
    cl_mem mems[5];
    const char *variant;

    if (!s)
        return;
    mems[0] = s->a, mems[1] = s->b, mems[2] = s->c, mems[3] = s->partials, mems[4] = s->host_buffer;
    for (int k = 0; k < OPENCL_STREAM_NKERNELS; k++)
        if (s->kernels[k])
            clReleaseKernel(s->kernels[k]);
    if (s->host_partials) {
        clEnqueueUnmapMemObject(c->queue, s->host_buffer, s->host_partials, 0, NULL, NULL);
        clFinish(c->queue);
    }
    for (size_t i = 0; i < sizeof(mems) / sizeof(mems[0]); i++)
        if (mems[i])
            clReleaseMemObject(mems[i]);
    if (s->program)
        clReleaseProgram(s->program);
    variant = s->variant;
    memset(s, 0, sizeof(*s));
    s->variant = variant;
}

static void stream_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    const struct opencl_stream *s = slot_get(ctx);

    if (s && s->variant)
        info_add(out, "opencl.variant", "%s", s->variant);
}

static size_t floor_pow2(size_t v)
{
    size_t p = 1;

    while (p <= v / 2)
        p *= 2;
    return p;
}

/*
 * The work-group size of every kernel: the default for the device kind, or PPBENCH_OPENCL_WG, capped by what
 * the compiled kernels and the dot's local buffer allow. A power of two: the dot's tree needs one.
 */
static int choose_work_group(struct opencl_ctx *c, struct opencl_stream *s, size_t elem, size_t *out,
                             struct pp_error *err)
{
    size_t limit = c->max_work_group, v;
    cl_ulong used = 0;
    unsigned long want = 0;
    int set;
    cl_int rc;

    for (int k = 0; k < OPENCL_STREAM_NKERNELS; k++) {
        rc = clGetKernelWorkGroupInfo(s->kernels[k], c->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(v), &v,
                                      NULL);
        if (rc != CL_SUCCESS)
            return fail(err, rc, "clGetKernelWorkGroupInfo", k);
        if (v < limit)
            limit = v;
    }
    rc = clGetKernelWorkGroupInfo(s->kernels[OPENCL_STREAM_DOT], c->device, CL_KERNEL_LOCAL_MEM_SIZE,
                                  sizeof(used), &used, NULL);
    if (rc == CL_SUCCESS && c->local_mem_bytes > used && (c->local_mem_bytes - used) / elem < limit)
        limit = (size_t)((c->local_mem_bytes - used) / elem);
    limit = floor_pow2(limit ? limit : 1);

    set = pp_env_unsigned("PPBENCH_OPENCL_WG", &want);
    if (set < 0 || (set && (want == 0 || (want & (want - 1)) || want > limit)))
        return pp_error_set(err, "PPBENCH_OPENCL_WG=%s: must be a power of two from 1 to %zu on %s",
                            getenv("PPBENCH_OPENCL_WG"), limit, c->name);
    if (set) {
        *out = want;
        return 0;
    }
    v = c->kind == PP_DEVICE_CPU ? WORK_GROUP_CPU : WORK_GROUP_GPU; /* accelerators as GPUs */
    *out = v < limit ? v : limit;
    return 0;
}

static int set_args(struct opencl_stream *s, size_t elem, struct pp_error *err)
{
    cl_ulong n = s->n;
    cl_mem mem;
    cl_uint i;
    cl_int rc;

    for (int k = 0; k < OPENCL_STREAM_NKERNELS; k++) {
        for (i = 0; kernel_specs[k].arrays[i]; i++) {
            switch (kernel_specs[k].arrays[i]) {
            case 'a':
                mem = s->a;
                break;
            case 'b':
                mem = s->b;
                break;
            case 'c':
                mem = s->c;
                break;
            default:
                mem = s->partials;
                break;
            }
            if ((rc = clSetKernelArg(s->kernels[k], i, sizeof(mem), &mem)) != CL_SUCCESS)
                return fail(err, rc, "clSetKernelArg", k);
        }
        if ((rc = clSetKernelArg(s->kernels[k], i, sizeof(n), &n)) != CL_SUCCESS)
            return fail(err, rc, "clSetKernelArg", k);
    }
    rc = clSetKernelArg(s->kernels[OPENCL_STREAM_DOT], first_extra_arg(OPENCL_STREAM_DOT),
                        s->work_group * elem, NULL);
    if (rc != CL_SUCCESS)
        return fail(err, rc, "clSetKernelArg", OPENCL_STREAM_DOT);
    return 0;
}

/* Elements per access: 16 bytes (vec16) or one element (scalar), by default or PPBENCH_OPENCL_VARIANT. */
static int choose_vec(struct opencl_stream *s, size_t elem, struct pp_error *err)
{
    const char *env = getenv("PPBENCH_OPENCL_VARIANT");
    bool vec16 = VEC16_DEFAULT;

    if (env && *env) {
        if (strcmp(env, "vec16") == 0)
            vec16 = true;
        else if (strcmp(env, "scalar") == 0)
            vec16 = false;
        else
            return pp_error_set(
                err, "PPBENCH_OPENCL_VARIANT: unknown variant \"%s\" (expected vec16 or scalar)", env);
    }
    s->vec = vec16 ? (unsigned)(16 / elem) : 1;
    s->variant = vec16 ? "vec16" : "scalar";
    return 0;
}

static int stream_alloc(struct pp_ctx *ctx, size_t n, enum pp_precision prec, struct pp_stream_layout *layout,
                        struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_stream *s = pp_suite_state_new(&c->suites, &opencl_stream_impl, sizeof(*s));
    const size_t elem = pp_precision_bytes(prec);
    char options[128];
    size_t bytes, threads, per_lane;
    unsigned log2_wg = 0, log2_vec = 0;
    unsigned long per_cu = 0;
    int set;
    cl_int rc;
    int ret = -1;

    if (!s)
        return pp_error_set(err, "out of memory");
    stream_release(ctx);
    if (n == 0)
        return pp_error_set(err, "array size must be positive");
    if (prec == PP_FP64 && !c->fp64)
        return pp_error_set(err, "device %s does not support fp64", c->name);
    if (n > SIZE_MAX / 3 / elem)
        return pp_error_set(err, "array size %zu is too large", n);
    bytes = n * elem;
    if (c->max_alloc_bytes && bytes > c->max_alloc_bytes)
        return pp_error_set(err,
                            "an array of %zu %s elements (%zu bytes) exceeds the largest allocation of %s "
                            "(%llu bytes)",
                            n, pp_precision_name(prec), bytes, c->name,
                            (unsigned long long)c->max_alloc_bytes);
    if (c->mem_bytes && 3 * bytes > c->mem_bytes)
        return pp_error_set(err,
                            "3 arrays of %zu %s elements (%zu bytes) exceed the memory of %s (%llu bytes)", n,
                            pp_precision_name(prec), 3 * bytes, c->name, (unsigned long long)c->mem_bytes);

    if (choose_vec(s, elem, err) != 0)
        return -1;
    /* CPUs sum one contiguous block per work-item in the dot (see stream.cl) */
    snprintf(options, sizeof(options), "-cl-std=CL1.2 -DREAL=%s -DVEC=%u%s",
             prec == PP_FP64 ? "double -DPP_FP64" : "float", s->vec,
             c->kind == PP_DEVICE_CPU ? " -DPP_DOT_BLOCKED" : "");
    if (opencl_program_build(c, "stream", pp_cl_stream, options, &s->program, err) != 0)
        goto out;
    for (int k = 0; k < OPENCL_STREAM_NKERNELS; k++) {
        s->kernels[k] = clCreateKernel(s->program, kernel_specs[k].function, &rc);
        if (!s->kernels[k]) {
            fail(err, rc, "clCreateKernel", k);
            goto out;
        }
    }
    s->n = n;
    s->prec = prec;
    if (choose_work_group(c, s, elem, &s->work_group, err) != 0)
        goto out;
    threads = n / s->vec + n % s->vec; /* one per pack, one per tail element */
    s->global = (threads + s->work_group - 1) / s->work_group * s->work_group;
    set = pp_env_unsigned("PPBENCH_OPENCL_DOT_GROUPS_PER_CU", &per_cu);
    if (set < 0 || (set && (per_cu < 1 || per_cu > 1024))) {
        pp_error_set(err, "PPBENCH_OPENCL_DOT_GROUPS_PER_CU=%s: must be an integer from 1 to 1024",
                     getenv("PPBENCH_OPENCL_DOT_GROUPS_PER_CU"));
        goto out;
    }
    if (!set)
        per_cu = c->kind == PP_DEVICE_CPU ? DOT_GROUPS_PER_CU_CPU : DOT_GROUPS_PER_CU_GPU;
    s->dot_groups = (size_t)c->compute_units * per_cu;
    if (opencl_buffer_new(c, CL_MEM_READ_WRITE, bytes, "a", &s->a, err) != 0 ||
        opencl_buffer_new(c, CL_MEM_READ_WRITE, bytes, "b", &s->b, err) != 0 ||
        opencl_buffer_new(c, CL_MEM_READ_WRITE, bytes, "c", &s->c, err) != 0 ||
        opencl_buffer_new(c, CL_MEM_READ_WRITE, s->dot_groups * elem, "partials", &s->partials, err) != 0 ||
        opencl_buffer_new(c, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, s->dot_groups * elem, "host partials",
                          &s->host_buffer, err) != 0)
        goto out;
    /* The dot reads its partials into this mapping: page-locked on NVIDIA, a direct DMA rather than a copy
     * staged through a driver buffer (H100: +7% on the fp64 dot at 2^25 elements) */
    s->host_partials = clEnqueueMapBuffer(c->queue, s->host_buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                          s->dot_groups * elem, 0, NULL, NULL, &rc);
    if (!s->host_partials) {
        fail(err, rc, "clEnqueueMapBuffer", OPENCL_STREAM_DOT);
        goto out;
    }
    if (set_args(s, elem, err) != 0)
        goto out;

    /* The dot's longest addition chain (stream.cl): per lane, its packs, the tail element and the lane tree;
     * then the work-group's tree and the host's sum. */
    for (size_t w = s->work_group; w > 1; w /= 2)
        log2_wg++;
    for (unsigned v = s->vec; v > 1; v /= 2)
        log2_vec++;
    per_lane = (n / s->vec + s->dot_groups * s->work_group - 1) / (s->dot_groups * s->work_group);
    layout->work_group = (unsigned)s->work_group;
    layout->dot_groups = (unsigned)s->dot_groups;
    layout->dot_chain = (uint64_t)per_lane + (s->vec > 1 ? 1 + log2_vec : 0) + log2_wg + s->dot_groups;
    ret = 0;
out:
    if (ret != 0)
        stream_release(ctx);
    return ret;
}

static int need_arrays(const struct opencl_stream *s, struct pp_error *err)
{
    return s && s->n ? 0 : pp_error_set(err, "no arrays allocated (alloc first)");
}

/* Set a REAL argument of kernel k to v in the working precision. */
static int set_real(struct opencl_stream *s, int k, cl_uint arg, double v, struct pp_error *err)
{
    cl_float f = (cl_float)v;
    cl_double d = v;
    cl_int rc;

    rc = s->prec == PP_FP32 ? clSetKernelArg(s->kernels[k], arg, sizeof(f), &f)
                            : clSetKernelArg(s->kernels[k], arg, sizeof(d), &d);
    return rc == CL_SUCCESS ? 0 : fail(err, rc, "clSetKernelArg", k);
}

static int set_scalar(struct opencl_stream *s, int k, double v, struct pp_error *err)
{
    if (s->scalar_set[k] && s->scalar[k] == v)
        return 0;
    if (set_real(s, k, first_extra_arg(k), v, err) != 0)
        return -1;
    s->scalar[k] = v;
    s->scalar_set[k] = true;
    return 0;
}

/* Run streaming kernel k over the arrays and wait for it. */
static int run(struct opencl_ctx *c, struct opencl_stream *s, int k, struct pp_error *err)
{
    cl_int rc;

    rc = clEnqueueNDRangeKernel(c->queue, s->kernels[k], 1, NULL, &s->global, &s->work_group, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return fail(err, rc, "clEnqueueNDRangeKernel", k);
    rc = clFinish(c->queue);
    if (rc != CL_SUCCESS)
        return fail(err, rc, "clFinish", k);
    return 0;
}

static int stream_init(struct pp_ctx *ctx, double a, double b, double c, struct pp_error *err)
{
    struct opencl_ctx *cx = opencl_ctx(ctx);
    struct opencl_stream *s = slot_get(ctx);
    cl_uint arg = first_extra_arg(OPENCL_STREAM_INIT);

    if (need_arrays(s, err) != 0 || set_real(s, OPENCL_STREAM_INIT, arg, a, err) != 0 ||
        set_real(s, OPENCL_STREAM_INIT, arg + 1, b, err) != 0 ||
        set_real(s, OPENCL_STREAM_INIT, arg + 2, c, err) != 0)
        return -1;
    return run(cx, s, OPENCL_STREAM_INIT, err);
}

static int stream_read(struct pp_ctx *ctx, void *a, void *b, void *c, struct pp_error *err)
{
    struct opencl_ctx *cx = opencl_ctx(ctx);
    struct opencl_stream *s = slot_get(ctx);
    struct {
        cl_mem mem;
        void *host;
        const char *name;
    } reads[] = {{s->a, a, "a"}, {s->b, b, "b"}, {s->c, c, "c"}};
    size_t bytes = s->n * pp_precision_bytes(s->prec);
    char what[64];
    cl_int rc;

    if (need_arrays(s, err) != 0)
        return -1;
    for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
        if (!reads[i].host)
            continue;
        rc = clEnqueueReadBuffer(cx->queue, reads[i].mem, CL_FALSE, 0, bytes, reads[i].host, 0, NULL, NULL);
        if (rc != CL_SUCCESS) {
            snprintf(what, sizeof(what), "clEnqueueReadBuffer(%s)", reads[i].name);
            clFinish(cx->queue); /* no read may still be writing to the caller's memory */
            return opencl_error(err, rc, what);
        }
    }
    rc = clFinish(cx->queue);
    return rc == CL_SUCCESS ? 0 : opencl_error(err, rc, "clFinish(read)");
}

static int stream_copy(struct pp_ctx *ctx, struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_stream *s = slot_get(ctx);

    if (need_arrays(s, err) != 0)
        return -1;
    return run(c, s, OPENCL_STREAM_COPY, err);
}

static int stream_mul(struct pp_ctx *ctx, double scalar, struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_stream *s = slot_get(ctx);

    if (need_arrays(s, err) != 0 || set_scalar(s, OPENCL_STREAM_MUL, scalar, err) != 0)
        return -1;
    return run(c, s, OPENCL_STREAM_MUL, err);
}

static int stream_add(struct pp_ctx *ctx, struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_stream *s = slot_get(ctx);

    if (need_arrays(s, err) != 0)
        return -1;
    return run(c, s, OPENCL_STREAM_ADD, err);
}

static int stream_triad(struct pp_ctx *ctx, double scalar, struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_stream *s = slot_get(ctx);

    if (need_arrays(s, err) != 0 || set_scalar(s, OPENCL_STREAM_TRIAD, scalar, err) != 0)
        return -1;
    return run(c, s, OPENCL_STREAM_TRIAD, err);
}

static int stream_nstream(struct pp_ctx *ctx, double scalar, struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_stream *s = slot_get(ctx);

    if (need_arrays(s, err) != 0 || set_scalar(s, OPENCL_STREAM_NSTREAM, scalar, err) != 0)
        return -1;
    return run(c, s, OPENCL_STREAM_NSTREAM, err);
}

/* Stage one on the device, then a blocking read of the partials (the one wait) and the host's sum in the
 * working precision (stage two), timed with the rest as BabelStream does. */
static int stream_dot(struct pp_ctx *ctx, double *sum, struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_stream *s = slot_get(ctx);
    const size_t elem = pp_precision_bytes(s->prec);
    size_t global = s->dot_groups * s->work_group;
    cl_int rc;

    if (need_arrays(s, err) != 0)
        return -1;
    rc = clEnqueueNDRangeKernel(c->queue, s->kernels[OPENCL_STREAM_DOT], 1, NULL, &global, &s->work_group, 0,
                                NULL, NULL);
    if (rc != CL_SUCCESS)
        return fail(err, rc, "clEnqueueNDRangeKernel", OPENCL_STREAM_DOT);
    rc = clEnqueueReadBuffer(c->queue, s->partials, CL_TRUE, 0, s->dot_groups * elem, s->host_partials, 0,
                             NULL, NULL);
    if (rc != CL_SUCCESS)
        return fail(err, rc, "clEnqueueReadBuffer", OPENCL_STREAM_DOT);
    if (s->prec == PP_FP32) {
        const cl_float *p = s->host_partials;
        cl_float acc = 0;
        for (size_t g = 0; g < s->dot_groups; g++)
            acc += p[g];
        *sum = acc;
    } else {
        const cl_double *p = s->host_partials;
        cl_double acc = 0;
        for (size_t g = 0; g < s->dot_groups; g++)
            acc += p[g];
        *sum = acc;
    }
    return 0;
}

static const struct pp_stream_ops opencl_stream_ops = {
    .alloc = stream_alloc,
    .init = stream_init,
    .read = stream_read,
    .copy = stream_copy,
    .mul = stream_mul,
    .add = stream_add,
    .triad = stream_triad,
    .nstream = stream_nstream,
    .dot = stream_dot,
    .release = stream_release,
};

PP_SUITE_IMPL(opencl, stream) = {
    .suite = "stream",
    .ops = &opencl_stream_ops,
    .release = slot_close,
    .describe = stream_describe,
};
