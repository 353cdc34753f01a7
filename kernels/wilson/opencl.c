/*
 * opencl/wilson: the Wilson Dslash (paper 000, Eq. 1) on an OpenCL device, as opencl_wilson_ops, for fp32 and
 * fp64 and both layouts (aos: site-major; soa: one array per real component, site fastest, coalesced on
 * GPUs). The program is kernels/wilson/wilson_dslash.h (the arithmetic of a site, shared with CUDA) followed
 * by kernels/wilson/wilson.cl, built per precision, layout and index type.
 *
 * alloc builds the program, creates the fields and sets the kernel's arguments once; upload and download move
 * the fields between the driver's canonical arrays and the layout (kernels/wilson/wilson_layout.h) through a
 * host staging buffer; dslash(iterations) enqueues its kernels back to back on the context's in-order queue
 * and waits once (clFinish). The suite's state in a context (struct opencl_wilson, private to this file) is
 * created by the first alloc and kept in the context's suite slots; release frees the device objects and
 * keeps what describe reports (the last kernel built), and the context's close frees the state
 * (opencl_wilson_impl). One thread at a time, like the context. Chosen at alloc
 * (kernels/wilson/wilson_gpu.h): the work-group size, the register budget (-cl-nv-maxrregcount where the
 * compiler is NVIDIA's) and the index width; PPBENCH_OPENCL_WILSON_OPTIONS appends build options
 * (experiments); describe reports them with the kernel's limits.
 */
#include "kernels/opencl/opencl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/wilson/wilson_gpu.h"
#include "kernels/wilson/wilson_layout.h"
#include "kernels/wilson/wilson_ops.h"

OPENCL_SOURCE(lattice_hop);
OPENCL_SOURCE(wilson_dslash);
OPENCL_SOURCE(wilson);

/* Work-items per work-group on CPUs: a work-group becomes one loop over its work-items on one thread; 64
 * sites keep the groups many on small lattices. GPUs and accelerators: WILSON_GPU_WORK_GROUP, as CUDA. */
#define WORK_GROUP_CPU 64

/* The last kernel built, for describe. */
struct wilson_built {
    unsigned index_bits;              /* 32 or 64; 0 before any */
    unsigned max_regs;                /* register budget applied (-cl-nv-maxrregcount); 0: none */
    bool streaming;                   /* links and outputs with PTX's streaming hints (WILSON_NV_PTX) */
    unsigned long long private_bytes; /* CL_KERNEL_PRIVATE_MEM_SIZE: per work-item (spills) */
    size_t max_work_group;            /* CL_KERNEL_WORK_GROUP_SIZE */
    int hops_table;                   /* 1: the kernel reads the neighbour table; 0: it computes the hops */
};

/* The suite's state in a context; all zero but built when no fields are allocated. */
struct opencl_wilson {
    cl_program program;
    cl_kernel kernel;
    cl_mem gauge, spinor, nbr, out; /* in the layout and precision; nbr [8][n] */
    size_t n, ld;                   /* output sites; sites allocated (wilson_layout_sites) */
    cl_uint shape[4];               /* X / 2, Y, Z, T */
    enum pp_precision prec;
    enum pp_wilson_layout layout;
    size_t work_group, global; /* local size and global size rounded up to it */
    struct wilson_built built; /* kept by release */
};

PP_SUITE_SLOT(opencl, wilson, struct opencl_wilson, opencl_ctx(ctx)->suites, wilson_release)

static void wilson_release(struct pp_ctx *ctx)
{
    struct opencl_wilson *w = slot_get(ctx);
    cl_mem mems[4];
    struct wilson_built built;

    if (!w)
        return;
    mems[0] = w->gauge, mems[1] = w->spinor, mems[2] = w->nbr, mems[3] = w->out;
    if (w->kernel)
        clReleaseKernel(w->kernel);
    for (size_t i = 0; i < sizeof(mems) / sizeof(mems[0]); i++)
        if (mems[i])
            clReleaseMemObject(mems[i]);
    if (w->program)
        clReleaseProgram(w->program);
    built = w->built;
    memset(w, 0, sizeof(*w));
    w->built = built;
}

/* The last kernel built, with its limits. */
static void wilson_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    const struct opencl_wilson *w = slot_get(ctx);

    if (!w || !w->built.index_bits)
        return;
    info_add(out, "opencl.wilson_index_bits", "%u", w->built.index_bits);
    info_add(out, "opencl.wilson_hops", "%s", w->built.hops_table ? "table" : "lattice");
    info_add(out, "opencl.wilson_max_regs", "%u", w->built.max_regs);
    info_add(out, "opencl.wilson_streaming_hints", "%s", w->built.streaming ? "ptx" : "none");
    info_add(out, "opencl.wilson_kernel_max_work_group", "%zu", w->built.max_work_group);
    info_add(out, "opencl.wilson_kernel_private_bytes", "%llu", w->built.private_bytes);
}

/* The program source: the lattice hops and the shared site arithmetic, then the kernel. A new string the
 * caller frees, or NULL. */
static char *program_source(void)
{
    const char *parts[] = {pp_cl_lattice_hop, pp_cl_wilson_dslash, pp_cl_wilson};
    size_t len = 0, at = 0;
    char *s;

    for (size_t i = 0; i < 3; i++)
        len += strlen(parts[i]) + 1;
    if (!(s = malloc(len)))
        return NULL;
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(parts[i]);

        memcpy(s + at, parts[i], n);
        s[at + n] = '\n';
        at += n + 1;
    }
    s[len - 1] = '\0';
    return s;
}

/* Build the program for the precision, layout and index width, with PPBENCH_OPENCL_WILSON_OPTIONS appended.
 * Where the compiler is NVIDIA's (cl_nv_compiler_options) two more: the register budget
 * (-cl-nv-maxrregcount) and -DWILSON_NV_PTX, the links read and the outputs written with PTX's streaming
 * hints as CUDA's __ldcs and __stcs do (kernels/wilson/wilson_dslash.h; OpenCL C has no such hint). A driver
 * that refuses either gets the build without the hints, then without the budget. */
static int build(struct opencl_ctx *c, const struct wilson_gpu_launch *l, struct pp_error *err)
{
    struct opencl_wilson *w = slot_get(opencl_pp_ctx(c));
    const char *extra = getenv("PPBENCH_OPENCL_WILSON_OPTIONS");
    char options[320], regs[40] = "", ptx[24] = "", *source = program_source();
    cl_int rc;
    int ret = -1;

    if (!source)
        return pp_error_set(err, "out of memory for the wilson program");
    w->built.max_regs = c->nv_compiler_options ? l->max_regs : 0;
    w->built.streaming = c->nv_compiler_options;
    for (;;) {
        regs[0] = ptx[0] = '\0';
        if (w->built.max_regs)
            snprintf(regs, sizeof(regs), " -cl-nv-maxrregcount=%u", w->built.max_regs);
        if (w->built.streaming)
            snprintf(ptx, sizeof(ptx), " -DWILSON_NV_PTX=%d", w->prec == PP_FP64 ? 64 : 32);
        snprintf(options, sizeof(options),
                 "-cl-std=CL1.2 -DREAL=%s -DWILSON_SOA=%d -DWILSON_SIZE=%s -DWILSON_HOPS_TABLE=%d%s%s%s%s",
                 w->prec == PP_FP64 ? "double" : "float", wilson_layout_index(w->layout),
                 l->index_bits == 32 ? "uint" : "ulong", l->hops_table, regs, ptx, extra && *extra ? " " : "",
                 extra ? extra : "");
        if (opencl_program_build(c, "wilson", source, options, &w->program, err) == 0)
            break;
        if (w->built.streaming)
            w->built.streaming = false; /* again without the hints */
        else if (w->built.max_regs)
            w->built.max_regs = 0; /* again without the register budget */
        else
            goto out;
    }
    w->kernel = clCreateKernel(w->program, "wilson_dslash", &rc);
    if (!w || !w->kernel) {
        opencl_error(err, rc, "clCreateKernel(wilson_dslash)");
        goto out;
    }
    ret = 0;
out:
    free(source);
    return ret;
}

/* The work-group size: want (PPBENCH_WILSON_WG), or when 0 the default for the device kind, within what the
 * compiled kernel allows (recorded for describe with its private memory). */
static int choose_work_group(struct opencl_ctx *c, size_t want, struct pp_error *err)
{
    struct opencl_wilson *w = slot_get(opencl_pp_ctx(c));
    size_t limit = c->max_work_group, v = 0;
    cl_ulong priv = 0;
    cl_int rc;

    rc = clGetKernelWorkGroupInfo(w->kernel, c->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(v), &v, NULL);
    if (rc != CL_SUCCESS)
        return opencl_error(err, rc, "clGetKernelWorkGroupInfo(wilson_dslash)");
    if (v && v < limit)
        limit = v;
    if (clGetKernelWorkGroupInfo(w->kernel, c->device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof(priv), &priv,
                                 NULL) != CL_SUCCESS)
        priv = 0;
    w->built.max_work_group = v;
    w->built.private_bytes = priv;
    if (want > limit)
        return pp_error_set(err, "PPBENCH_WILSON_WG=%zu: must be a work-group size from 1 to %zu on %s", want,
                            limit, c->name);
    if (!want)
        want = c->kind == PP_DEVICE_CPU ? WORK_GROUP_CPU : WILSON_GPU_WORK_GROUP; /* accelerators as GPUs */
    w->work_group = want < limit ? want : limit;
    w->global = (w->n + w->work_group - 1) / w->work_group * w->work_group;
    return 0;
}

/* A buffer of the fields, within the device's largest allocation. */
static int create_buffer(struct opencl_ctx *c, size_t bytes, const char *name, cl_mem *out,
                         struct pp_error *err)
{
    if (c->max_alloc_bytes && bytes > c->max_alloc_bytes)
        return pp_error_set(err, "the %s (%zu bytes) exceed the largest allocation of %s (%llu bytes)", name,
                            bytes, c->name, (unsigned long long)c->max_alloc_bytes);
    return opencl_buffer_new(c, CL_MEM_READ_WRITE, bytes, name, out, err);
}

static int set_args(struct opencl_ctx *c, unsigned index_bits, struct pp_error *err)
{
    struct opencl_wilson *w = slot_get(opencl_pp_ctx(c));
    cl_mem mems[] = {w->spinor, w->gauge, w->nbr, w->out};
    cl_uint n32 = (cl_uint)w->n;
    cl_ulong n64 = w->n;
    cl_uint i;
    cl_int rc = CL_SUCCESS;

    for (i = 0; i < 4 && rc == CL_SUCCESS; i++)
        rc = clSetKernelArg(w->kernel, i, sizeof(cl_mem), &mems[i]);
    if (rc == CL_SUCCESS)
        rc = index_bits == 32 ? clSetKernelArg(w->kernel, 4, sizeof(n32), &n32)
                              : clSetKernelArg(w->kernel, 4, sizeof(n64), &n64);
    if (rc == CL_SUCCESS)
        rc = clSetKernelArg(w->kernel, 5, sizeof(w->shape), w->shape);
    return rc == CL_SUCCESS ? 0 : opencl_error(err, rc, "clSetKernelArg(wilson_dslash)");
}

static int wilson_alloc(struct pp_ctx *ctx, size_t n, const unsigned dims[4], enum pp_precision prec,
                        enum pp_wilson_layout layout, struct pp_wilson_variant *variant, struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_wilson *w = pp_suite_state_new(&c->suites, &opencl_wilson_impl, sizeof(*w));
    const size_t elem = pp_precision_bytes(prec);
    const cl_uchar zero = 0;
    struct wilson_gpu_launch l = {0, 0, 0, 0};
    cl_int rc;
    int ret = -1;

    if (!w)
        return pp_error_set(err, "out of memory");
    wilson_release(ctx);
    if ((unsigned)layout >= PP_WILSON_NLAYOUTS)
        return pp_error_set(err, "layout %d out of range", (int)layout);
    if (prec == PP_FP64 && !c->fp64)
        return pp_error_set(err, "device %s does not support fp64", c->name);
    if (n == 0 || n > UINT32_MAX)
        return pp_error_set(err, "%zu output sites (1 to 2^32 - 1 are possible)", n);
    if (wilson_gpu_launch_choose(&l, n, prec, layout, err) != 0)
        return -1;
    w->n = n;
    w->ld = wilson_layout_sites(layout, n);
    for (int d = 0; d < 4; d++)
        w->shape[d] = d ? dims[d] : dims[0] / 2;
    w->prec = prec;
    w->layout = layout;
    if (build(c, &l, err) != 0 || choose_work_group(c, l.work_group, err) != 0)
        goto out;
    if (create_buffer(c, w->ld * WILSON_LINKS_REALS * elem, "links", &w->gauge, err) != 0 ||
        create_buffer(c, w->ld * WILSON_SPINOR_REALS * elem, "spinor", &w->spinor, err) != 0 ||
        create_buffer(c, w->ld * WILSON_SPINOR_REALS * elem, "output spinor", &w->out, err) != 0 ||
        create_buffer(c, n * 8 * sizeof(cl_uint), "neighbour table", &w->nbr, err) != 0 ||
        set_args(c, l.index_bits, err) != 0)
        goto out;
    rc =
        clEnqueueFillBuffer(c->queue, w->out, &zero, 1, 0, w->ld * WILSON_SPINOR_REALS * elem, 0, NULL, NULL);
    if (rc != CL_SUCCESS) {
        opencl_error(err, rc, "clEnqueueFillBuffer(output spinor)");
        goto out;
    }
    w->built.index_bits = l.index_bits;
    w->built.hops_table = l.hops_table;
    memset(variant, 0, sizeof(*variant));
    variant->layout = layout;
    variant->work_group = (unsigned)w->work_group;
    ret = 0;
out:
    if (ret != 0)
        wilson_release(ctx);
    return ret;
}

/* The canonical field src (per_site doubles per site) into buffer dst in the layout and precision, through a
 * host staging buffer. */
static int put_field(struct opencl_ctx *c, cl_mem dst, const double *src, unsigned per_site, const char *what,
                     struct pp_error *err)
{
    struct opencl_wilson *w = slot_get(opencl_pp_ctx(c));
    const size_t bytes = w->ld * per_site * pp_precision_bytes(w->prec);
    void *host = calloc(1, bytes); /* the tail of the last aosoa block zeroed */
    char call[64];
    cl_int rc;

    if (!host)
        return pp_error_set(err, "out of host memory for the %s (%zu bytes)", what, bytes);
    for (size_t i = 0; i < w->n; i++)
        wilson_layout_put(host, src, w->ld, i, per_site, w->prec, wilson_layout_index(w->layout));
    rc = clEnqueueWriteBuffer(c->queue, dst, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    free(host);
    if (rc == CL_SUCCESS)
        return 0;
    snprintf(call, sizeof(call), "clEnqueueWriteBuffer(%s)", what);
    return opencl_error(err, rc, call);
}

static int wilson_upload(struct pp_ctx *ctx, const double *gauge, const double *spinor, const uint32_t *nbr,
                         struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_wilson *w = slot_get(ctx);
    cl_int rc;

    if (!w || !w->kernel)
        return pp_error_set(err, "no fields allocated (alloc first)");
    if (put_field(c, w->gauge, gauge, WILSON_LINKS_REALS, "links", err) != 0 ||
        put_field(c, w->spinor, spinor, WILSON_SPINOR_REALS, "spinor", err) != 0)
        return -1;
    rc = clEnqueueWriteBuffer(c->queue, w->nbr, CL_TRUE, 0, w->n * 8 * sizeof(cl_uint), nbr, 0, NULL, NULL);
    return rc == CL_SUCCESS ? 0 : opencl_error(err, rc, "clEnqueueWriteBuffer(neighbour table)");
}

static int wilson_dslash(struct pp_ctx *ctx, unsigned iterations, struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_wilson *w = slot_get(ctx);
    cl_int rc;

    if (!w || !w->kernel)
        return pp_error_set(err, "no fields allocated (alloc first)");
    for (unsigned it = 0; it < iterations; it++) {
        rc = clEnqueueNDRangeKernel(c->queue, w->kernel, 1, NULL, &w->global, &w->work_group, 0, NULL, NULL);
        if (rc != CL_SUCCESS) {
            clFinish(c->queue);
            return opencl_error(err, rc, "clEnqueueNDRangeKernel(wilson_dslash)");
        }
    }
    rc = clFinish(c->queue);
    return rc == CL_SUCCESS ? 0 : opencl_error(err, rc, "clFinish(wilson_dslash)");
}

/* The whole output to all-ones bytes (NaN in either precision), blocking. */
static int wilson_poison(struct pp_ctx *ctx, struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_wilson *w = slot_get(ctx);
    const cl_uchar ones = 0xff;
    size_t bytes = 0;
    cl_int rc;

    if (!w || !w->kernel)
        return pp_error_set(err, "no fields allocated (alloc first)");
    rc = clGetMemObjectInfo(w->out, CL_MEM_SIZE, sizeof(bytes), &bytes, NULL);
    if (rc == CL_SUCCESS)
        rc = clEnqueueFillBuffer(c->queue, w->out, &ones, 1, 0, bytes, 0, NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = clFinish(c->queue);
    return rc == CL_SUCCESS ? 0 : opencl_error(err, rc, "clEnqueueFillBuffer(wilson out)");
}

static int wilson_download(struct pp_ctx *ctx, double *out, struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_wilson *w = slot_get(ctx);
    const size_t bytes = w->ld * WILSON_SPINOR_REALS * pp_precision_bytes(w->prec);
    void *host;
    cl_int rc;

    if (!w || !w->kernel)
        return pp_error_set(err, "no fields allocated (alloc first)");
    if (!(host = malloc(bytes)))
        return pp_error_set(err, "out of host memory for the output (%zu bytes)", bytes);
    rc = clEnqueueReadBuffer(c->queue, w->out, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    if (rc == CL_SUCCESS)
        for (size_t i = 0; i < w->n; i++)
            wilson_layout_get(out, host, w->ld, i, WILSON_SPINOR_REALS, w->prec,
                              wilson_layout_index(w->layout));
    free(host);
    return rc == CL_SUCCESS ? 0 : opencl_error(err, rc, "clEnqueueReadBuffer(output spinor)");
}

static const struct pp_wilson_ops opencl_wilson_ops = {
    .alloc = wilson_alloc,
    .upload = wilson_upload,
    .dslash = wilson_dslash,
    .download = wilson_download,
    .poison = wilson_poison,
    .release = wilson_release,
};

PP_SUITE_IMPL(opencl, wilson) = {
    .suite = "wilson",
    .ops = &opencl_wilson_ops,
    .release = slot_close,
    .describe = wilson_describe,
};
