/*
 * opencl/hacc: the HACC suite's kernels (paper 003: gravity and sph over leaf pairs) on an OpenCL device, as
 * opencl_hacc_ops registered with PP_SUITE_IMPL; the kernels are hacc.cl (the algorithm of hacc.cu). alloc
 * builds one program per kernel for the precision, variant and leaf size, and refuses with "unsupported: "
 * what the device cannot run: select without sub-group shuffles of 32 work-items (cl_khr_subgroup_shuffle or
 * cl_intel_subgroups), fp64 without 64-bit atomics, a work-group of 2 leaf_size work-items above the
 * device's limit. Every call enqueues and waits (clFinish). The state (struct ocl_hacc) is private to this
 * file and lives in the context's suite slot until release or close. One thread at a time, like the context.
 */
#include "kernels/opencl/opencl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/hacc/hacc_ops.h"

OPENCL_SOURCE(hacc);

struct ocl_hacc {
    cl_program program[PP_HACC_NKERNELS];
    cl_kernel pairs_kernel[PP_HACC_NKERNELS], fill_kernel;
    cl_mem in[PP_HACC_NIN], out[PP_HACC_NOUT], pairs;
    size_t nleaves, npairs, n, elem;
    unsigned leaf_size;
    enum pp_precision prec;
    char options[1100];
};

PP_SUITE_SLOT(opencl, hacc, struct ocl_hacc, opencl_ctx(ctx)->suites, hacc_release)

static int state(struct pp_ctx *ctx, struct ocl_hacc **out, struct pp_error *err)
{
    *out = slot_get(ctx);
    return *out && (*out)->nleaves ? 0 : pp_error_set(err, "hacc: no particles allocated (alloc first)");
}

static void hacc_release(struct pp_ctx *ctx)
{
    struct ocl_hacc *s = slot_get(ctx);

    if (!s)
        return;
    for (int k = 0; k < PP_HACC_NKERNELS; k++) {
        if (s->pairs_kernel[k])
            clReleaseKernel(s->pairs_kernel[k]);
        if (s->program[k])
            clReleaseProgram(s->program[k]);
    }
    if (s->fill_kernel)
        clReleaseKernel(s->fill_kernel);
    for (int f = 0; f < PP_HACC_NIN; f++)
        if (s->in[f])
            clReleaseMemObject(s->in[f]);
    for (int o = 0; o < PP_HACC_NOUT; o++)
        if (s->out[o])
            clReleaseMemObject(s->out[o]);
    if (s->pairs)
        clReleaseMemObject(s->pairs);
    memset((void *)s, 0, offsetof(struct ocl_hacc, options)); /* the build options stay, for describe */
}

/* The sub-group size of the select program (its probe kernel), or 0. */
static unsigned probe(struct opencl_ctx *c, cl_program program, struct pp_error *err)
{
    cl_int rc;
    cl_kernel k = clCreateKernel(program, "hacc_probe", &rc);
    cl_mem m = NULL;
    cl_uint size = 0;
    size_t one = 1;

    if (!k || opencl_buffer_new(c, CL_MEM_READ_WRITE, sizeof(cl_uint), "probe", &m, err) ||
        clSetKernelArg(k, 0, sizeof(cl_mem), &m) != CL_SUCCESS ||
        clEnqueueNDRangeKernel(c->queue, k, 1, NULL, &one, &one, 0, NULL, NULL) != CL_SUCCESS ||
        clEnqueueReadBuffer(c->queue, m, CL_TRUE, 0, sizeof(size), &size, 0, NULL, NULL) != CL_SUCCESS)
        size = 0;
    if (m)
        clReleaseMemObject(m);
    if (k)
        clReleaseKernel(k);
    return size;
}

static int hacc_alloc(struct pp_ctx *ctx, size_t nleaves, unsigned leaf_size, size_t npairs,
                      enum pp_precision prec, enum pp_hacc_variant variant, struct pp_hacc_launch *launch,
                      struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    const size_t elem = pp_precision_bytes(prec), n = nleaves * leaf_size, group = 2 * (size_t)leaf_size;
    const char *shuffle = "";
    char base[1024];
    size_t used = 0;
    struct ocl_hacc *s;
    cl_int rc;

    hacc_release(ctx);
    if (variant > PP_HACC_BROADCAST)
        return pp_error_set(err, "unsupported: variant %d on opencl", (int)variant);
    if (prec == PP_FP64 && !c->fp64)
        return pp_error_set(err, "device %s does not support fp64", c->name);
    if (prec == PP_FP64 && !opencl_device_extension(c, "cl_khr_int64_base_atomics"))
        return pp_error_set(
            err, "unsupported: fp64 needs 64-bit atomics (cl_khr_int64_base_atomics), which %s lacks",
            c->name);
    if (variant == PP_HACC_SELECT) {
        if (opencl_device_extension(c, "cl_khr_subgroup_shuffle"))
            shuffle = "-cl-std=CL3.0 -DSHUFFLE_KHR";
        else if (opencl_device_extension(c, "cl_intel_subgroups"))
            shuffle = "-cl-std=CL2.0 -DSHUFFLE_INTEL";
        else
            return pp_error_set(
                err,
                "unsupported: variant select needs sub-group shuffles (cl_khr_subgroup_shuffle or "
                "cl_intel_subgroups), which %s lacks",
                c->name);
    }
    if (group > c->max_work_group)
        return pp_error_set(err,
                            "unsupported: a work-group of %zu work-items (2 leaf_size) exceeds the %zu of %s",
                            group, c->max_work_group, c->name);
    if (!(s = slot_new(ctx)))
        return pp_error_set(err, "out of memory");
    s->nleaves = nleaves;
    s->npairs = npairs;
    s->n = n;
    s->elem = elem;
    s->leaf_size = leaf_size;
    s->prec = prec;
    used = (size_t)snprintf(base, sizeof(base), "%s -DREAL=%s -DVARIANT=%d -DLEAF=%u",
                            *shuffle ? shuffle : "-cl-std=CL1.2",
                            prec == PP_FP64 ? "double -DPP_FP64" : "float", (int)variant, leaf_size);
#define OPTION(name, value)                                                                                  \
    used += (size_t)snprintf(base + used, used < sizeof(base) ? sizeof(base) - used : 0,                     \
                             " -DK_" #name "=%.17g", (double)(value));
    PP_HACC_CONSTANTS(OPTION)
#undef OPTION
    for (int k = 0; k < PP_HACC_NKERNELS; k++) {
        snprintf(s->options, sizeof(s->options), "%s -DSPH=%d", base, k == PP_HACC_SPH);
        if (opencl_program_build(c, "hacc", pp_cl_hacc, s->options, &s->program[k], err))
            goto fail;
        if (!(s->pairs_kernel[k] = clCreateKernel(s->program[k], "hacc_pairs", &rc))) {
            opencl_error(err, rc, "clCreateKernel(hacc_pairs)");
            goto fail;
        }
    }
    if (!(s->fill_kernel = clCreateKernel(s->program[0], "hacc_fill", &rc))) {
        opencl_error(err, rc, "clCreateKernel(hacc_fill)");
        goto fail;
    }
    if (variant == PP_HACC_SELECT) {
        unsigned size = probe(c, s->program[0], err);
        if (size != 32) {
            pp_error_set(err, "unsupported: variant select needs sub-groups of 32 work-items, %s has %u",
                         c->name, size);
            goto fail;
        }
    }
    for (int k = 0; k < PP_HACC_NKERNELS; k++) {
        size_t limit = 0;
        if (clGetKernelWorkGroupInfo(s->pairs_kernel[k], c->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(limit),
                                     &limit, NULL) == CL_SUCCESS &&
            limit && limit < group) {
            pp_error_set(err,
                         "unsupported: the %s kernel runs at most %zu work-items a group on %s, it needs %zu",
                         k ? "sph" : "gravity", limit, c->name, group);
            goto fail;
        }
    }
    for (int f = 0; f < PP_HACC_NIN; f++)
        if (opencl_buffer_new(c, CL_MEM_READ_ONLY, n * elem, "particles", &s->in[f], err))
            goto fail;
    for (int o = 0; o < PP_HACC_NOUT; o++)
        if (opencl_buffer_new(c, CL_MEM_READ_WRITE, n * elem, "outputs", &s->out[o], err))
            goto fail;
    if (opencl_buffer_new(c, CL_MEM_READ_ONLY, npairs * 2 * sizeof(cl_uint), "pairs", &s->pairs, err))
        goto fail;
    *launch = (struct pp_hacc_launch){.work_group = (unsigned)group, .sub_group = 32, .threads = 0};
    return 0;
fail:
    hacc_release(ctx);
    return -1;
}

static int hacc_upload(struct pp_ctx *ctx, const double *const in[PP_HACC_NIN], const uint32_t *pairs,
                       struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct ocl_hacc *s;
    void *buf;
    cl_int rc = CL_SUCCESS;

    if (state(ctx, &s, err))
        return -1;
    if (!(buf = malloc(s->n * s->elem)))
        return pp_error_set(err, "out of host memory");
    for (int f = 0; f < PP_HACC_NIN && rc == CL_SUCCESS; f++) {
        if (s->prec == PP_FP32)
            for (size_t i = 0; i < s->n; i++)
                ((float *)buf)[i] = (float)in[f][i];
        else
            memcpy(buf, in[f], s->n * sizeof(double));
        rc = clEnqueueWriteBuffer(c->queue, s->in[f], CL_TRUE, 0, s->n * s->elem, buf, 0, NULL, NULL);
    }
    free(buf);
    if (rc == CL_SUCCESS && pairs)
        rc = clEnqueueWriteBuffer(c->queue, s->pairs, CL_TRUE, 0, s->npairs * 2 * sizeof(cl_uint), pairs, 0,
                                  NULL, NULL);
    return rc == CL_SUCCESS ? 0 : opencl_error(err, rc, "clEnqueueWriteBuffer(hacc)");
}

static int enqueue(struct opencl_ctx *c, cl_kernel k, size_t global, size_t local, const char *what,
                   struct pp_error *err)
{
    cl_int rc = clEnqueueNDRangeKernel(c->queue, k, 1, NULL, &global, &local, 0, NULL, NULL);

    if (rc != CL_SUCCESS)
        return opencl_error(err, rc, what);
    rc = clFinish(c->queue);
    return rc == CL_SUCCESS ? 0 : opencl_error(err, rc, what);
}

static int hacc_fill(struct pp_ctx *ctx, double value, struct pp_error *err)
{
    struct ocl_hacc *s;
    union {
        cl_float f;
        cl_double d;
    } v;
    cl_uint n;
    cl_int rc = CL_SUCCESS;

    if (state(ctx, &s, err))
        return -1;
    n = (cl_uint)s->n;
    if (s->prec == PP_FP32)
        v.f = (cl_float)value;
    else
        v.d = value;
    for (cl_uint o = 0; o < PP_HACC_NOUT; o++)
        rc |= clSetKernelArg(s->fill_kernel, o, sizeof(cl_mem), &s->out[o]);
    rc |= clSetKernelArg(s->fill_kernel, 4, s->elem, &v);
    rc |= clSetKernelArg(s->fill_kernel, 5, sizeof(n), &n);
    if (rc != CL_SUCCESS)
        return opencl_error(err, rc, "clSetKernelArg(hacc_fill)");
    return enqueue(opencl_ctx(ctx), s->fill_kernel, (s->n + 255) / 256 * 256, 256, "hacc_fill", err);
}

static int hacc_run(struct pp_ctx *ctx, enum pp_hacc_kernel k, struct pp_error *err)
{
    struct ocl_hacc *s;
    cl_kernel kern;
    cl_int rc = CL_SUCCESS;
    cl_uint a = 0;

    if (state(ctx, &s, err))
        return -1;
    kern = s->pairs_kernel[k];
    for (int f = 0; f < PP_HACC_NIN; f++)
        rc |= clSetKernelArg(kern, a++, sizeof(cl_mem), &s->in[f]);
    for (int o = 0; o < PP_HACC_NOUT; o++)
        rc |= clSetKernelArg(kern, a++, sizeof(cl_mem), &s->out[o]);
    rc |= clSetKernelArg(kern, a++, sizeof(cl_mem), &s->pairs);
    if (rc != CL_SUCCESS)
        return opencl_error(err, rc, "clSetKernelArg(hacc_pairs)");
    return enqueue(opencl_ctx(ctx), kern, s->npairs * 2 * s->leaf_size, 2 * s->leaf_size,
                   k == PP_HACC_GRAVITY ? "hacc_pairs(gravity)" : "hacc_pairs(sph)", err);
}

static int hacc_download(struct pp_ctx *ctx, double *const out[PP_HACC_NOUT], struct pp_error *err)
{
    struct ocl_hacc *s;
    cl_int rc;

    if (state(ctx, &s, err))
        return -1;
    for (int o = 0; o < PP_HACC_NOUT; o++) {
        /* fp32 lands in the upper half of out[o], then widens from the front */
        void *dst = s->prec == PP_FP32 ? (void *)((char *)out[o] + s->n * 4) : (void *)out[o];
        rc = clEnqueueReadBuffer(opencl_ctx(ctx)->queue, s->out[o], CL_TRUE, 0, s->n * s->elem, dst, 0, NULL,
                                 NULL);
        if (rc != CL_SUCCESS)
            return opencl_error(err, rc, "clEnqueueReadBuffer(hacc)");
        if (s->prec == PP_FP32)
            for (size_t i = 0; i < s->n; i++)
                out[o][i] = ((const float *)dst)[i];
    }
    return 0;
}

static void hacc_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    struct ocl_hacc *s = slot_get(ctx);

    if (s)
        info_add(out, "opencl.hacc_build_options", "%s", s->options);
}

static const struct pp_hacc_ops opencl_hacc_ops = {
    .variants = (1u << PP_HACC_SELECT) | (1u << PP_HACC_MEMORY_32) | (1u << PP_HACC_MEMORY_OBJECT) |
                (1u << PP_HACC_BROADCAST),
    .alloc = hacc_alloc,
    .upload = hacc_upload,
    .fill = hacc_fill,
    .run = hacc_run,
    .download = hacc_download,
    .release = hacc_release,
};

PP_SUITE_IMPL(opencl, hacc) = {
    .suite = "hacc",
    .ops = &opencl_hacc_ops,
    .release = slot_close,
    .describe = hacc_describe,
};
