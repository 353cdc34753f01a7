/*
 * opencl/staggered: the MILC staggered Dslash (paper 001) on an OpenCL device, every parallel strategy of
 * Sec. III (1LP, 2LP, 3LP-1/2/3, 4LP-1/2) with its work-item orders, fp64 and fp32; the kernels are
 * staggered.cl.
 *
 * alloc builds one program for the precision, strategy, order and work-group size (through the binary cache),
 * refuses what the device cannot run (a work-group above the kernel's or device's limit, too little local
 * memory, fp64 atomics without cl_khr_int64_base_atomics), creates the arrays in the canonical layout of
 * struct pp_staggered_ops converted to the precision, and sets the kernel arguments once. dslash enqueues its
 * iterations back to back on the context's in-order queue and waits once (clFinish). The suite's state in a
 * context (struct opencl_staggered, private to this file) is created by the first alloc and kept in the
 * context's suite slots; release frees the device objects, and the context's close frees the state
 * (opencl_staggered_impl). One thread at a time, like the context.
 */
#include "kernels/opencl/opencl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/staggered/staggered_ops.h"

OPENCL_SOURCE(staggered);

/* staggered.cl numbers the strategies and orders as staggered_ops.h does. */
_Static_assert(PP_STAG_1LP == 0 && PP_STAG_2LP == 1 && PP_STAG_3LP_1 == 2 && PP_STAG_3LP_2 == 3 &&
                   PP_STAG_3LP_3 == 4 && PP_STAG_4LP_1 == 5 && PP_STAG_4LP_2 == 6,
               "staggered.cl: STAG_* numbers");
_Static_assert(PP_ORDER_K == 1 && PP_ORDER_I == 2 && PP_ORDER_L == 3, "staggered.cl: ORDER_* numbers");

#define REALS_PER_LINK_SET 288 /* per target site: 16 matrices of 9 complex numbers */
#define REALS_PER_VEC      6
#define NBR_PER_SITE       16

/* The kernel of each strategy in staggered.cl and whether it takes a local buffer of one complex number per
 * work-item. */
static const struct {
    const char *kernel;
    bool local;
} kernels[] = {
    [PP_STAG_1LP] = {"stag_1lp", false},    [PP_STAG_2LP] = {"stag_2lp", false},
    [PP_STAG_3LP_1] = {"stag_3lp1", true},  [PP_STAG_3LP_2] = {"stag_3lp2", true},
    [PP_STAG_3LP_3] = {"stag_3lp3", false}, [PP_STAG_4LP_1] = {"stag_4lp", true},
    [PP_STAG_4LP_2] = {"stag_4lp", true},
};

/* The suite's state in a context; all zero when no arrays are allocated. */
struct opencl_staggered {
    cl_program program;
    cl_kernel kernel;
    cl_mem links, vec, nbr, out;
    size_t n;
    enum pp_precision prec;
    size_t global, local;
};

PP_SUITE_SLOT(opencl, staggered, struct opencl_staggered, opencl_ctx(ctx)->suites, staggered_release)

static void staggered_release(struct pp_ctx *ctx)
{
    struct opencl_staggered *st = slot_get(ctx);
    cl_mem mems[4];

    if (!st)
        return;
    mems[0] = st->links, mems[1] = st->vec, mems[2] = st->nbr, mems[3] = st->out;
    if (st->kernel)
        clReleaseKernel(st->kernel);
    for (size_t i = 0; i < 4; i++)
        if (mems[i])
            clReleaseMemObject(mems[i]);
    if (st->program)
        clReleaseProgram(st->program);
    memset(st, 0, sizeof(*st));
}

/* Refuse a work-group above the device's limit (before building: the kernels require their work-group size),
 * naming --work-group. */
static int check_device_work_group(struct opencl_ctx *c, unsigned wg, struct pp_error *err)
{
    if (wg > c->max_work_group)
        return pp_error_set(err, "--work-group %u is above the %zu work-items per work-group of %s", wg,
                            c->max_work_group, c->name);
    return 0;
}

/* Refuse a work-group the compiled kernel cannot take (registers) or whose local buffer does not fit. */
static int check_kernel_work_group(struct opencl_ctx *c, struct opencl_staggered *st, const char *kernel,
                                   bool local, struct pp_error *err)
{
    size_t limit = 0;
    cl_ulong used = 0, need;
    cl_int rc;

    rc = clGetKernelWorkGroupInfo(st->kernel, c->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(limit), &limit,
                                  NULL);
    if (rc != CL_SUCCESS)
        return opencl_error(err, rc, "clGetKernelWorkGroupInfo(staggered)");
    if (st->local > limit)
        return pp_error_set(
            err, "--work-group %zu is above the %zu work-items per work-group that %s allows on %s",
            st->local, limit, kernel, c->name);
    if (!local)
        return 0;
    if (clGetKernelWorkGroupInfo(st->kernel, c->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(used), &used,
                                 NULL) != CL_SUCCESS)
        used = 0;
    need = used + (cl_ulong)st->local * 2 * pp_precision_bytes(st->prec);
    if (need > c->local_mem_bytes)
        return pp_error_set(err, "--work-group %zu needs %llu bytes of local memory for %s, %s has %llu",
                            st->local, (unsigned long long)need, kernel, c->name,
                            (unsigned long long)c->local_mem_bytes);
    return 0;
}

static int build_kernel(struct opencl_ctx *c, struct opencl_staggered *st,
                        const struct pp_staggered_variant *v, struct pp_error *err)
{
    char options[192];
    cl_int rc;

    snprintf(
        options, sizeof(options), "-cl-std=CL1.2 -DREAL=%s -DSTAG_STRATEGY=%d -DSTAG_ORDER=%d -DSTAG_WG=%u",
        st->prec == PP_FP64 ? "double -DPP_FP64" : "float", (int)v->strategy, (int)v->order, v->work_group);
    if (opencl_program_build(c, "staggered", pp_cl_staggered, options, &st->program, err) != 0)
        return -1;
    st->kernel = clCreateKernel(st->program, kernels[v->strategy].kernel, &rc);
    if (!st->kernel)
        return opencl_error(err, rc, "clCreateKernel(staggered)");
    return 0;
}

/* A default work-group (variant->work_group_auto) above what the compiled kernel takes (its registers:
 * NVIDIA's compiler allows 3LP-1 in fp64 256 work-items whatever reqd_work_group_size asks) is lowered to the
 * largest default the kernel takes, and the kernel built again for it; a work-group the job named is left to
 * check_kernel_work_group to refuse. */
static int fit_work_group(struct opencl_ctx *c, struct opencl_staggered *st, struct pp_staggered_variant *v,
                          const char *kernel, struct pp_error *err)
{
    size_t limit = 0;
    unsigned wg;
    cl_int rc;

    if (!v->work_group_auto)
        return 0;
    rc = clGetKernelWorkGroupInfo(st->kernel, c->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(limit), &limit,
                                  NULL);
    if (rc != CL_SUCCESS)
        return opencl_error(err, rc, "clGetKernelWorkGroupInfo(staggered)");
    if (st->local <= limit)
        return 0;
    wg = pp_staggered_default_work_group(v->strategy, v->order, st->global, (unsigned)limit);
    if (wg == 0)
        return pp_error_set(err, "no work-group of at most %zu work-items (what %s allows on %s) divides %zu",
                            limit, kernel, c->name, st->global);
    clReleaseKernel(st->kernel);
    clReleaseProgram(st->program);
    st->kernel = NULL, st->program = NULL;
    v->work_group = wg;
    st->local = wg;
    return build_kernel(c, st, v, err);
}

static int set_args(struct opencl_staggered *st, bool local, struct pp_error *err)
{
    const cl_mem mems[] = {st->out, st->links, st->vec, st->nbr};
    const cl_uint n = (cl_uint)st->n;
    cl_uint arg = 0;
    cl_int rc = CL_SUCCESS;

    for (size_t i = 0; i < 4 && rc == CL_SUCCESS; i++, arg++)
        rc = clSetKernelArg(st->kernel, arg, sizeof(cl_mem), &mems[i]);
    if (rc == CL_SUCCESS)
        rc = clSetKernelArg(st->kernel, arg++, sizeof(n), &n);
    if (rc == CL_SUCCESS && local)
        rc = clSetKernelArg(st->kernel, arg, st->local * 2 * pp_precision_bytes(st->prec), NULL);
    return rc == CL_SUCCESS ? 0 : opencl_error(err, rc, "clSetKernelArg(staggered)");
}

static int staggered_alloc(struct pp_ctx *ctx, size_t n, const unsigned dims[4], enum pp_precision prec,
                           struct pp_staggered_variant *variant, struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_staggered *st;
    const enum pp_staggered_strategy s = variant->strategy;
    const size_t elem = pp_precision_bytes(prec);
    const unsigned items = pp_staggered_items_per_site(s);
    const char *name;
    size_t link_bytes, max_sites;
    int ret = -1;

    (void)dims; /* the neighbour table is read */

    staggered_release(ctx);
    if ((unsigned)s >= PP_STAG_NSTRATEGIES || !(PP_STAG_WORK_ITEM_STRATEGIES & (1u << s)))
        return pp_error_set(err, "opencl has no staggered strategy %d", (int)s);
    name = kernels[s].kernel;
    if (prec == PP_FP64 && !c->fp64)
        return pp_error_set(err, "device %s does not support fp64", c->name);
    if ((s == PP_STAG_3LP_2 || s == PP_STAG_3LP_3) && prec == PP_FP64 &&
        !opencl_device_extension(c, "cl_khr_int64_base_atomics"))
        return pp_error_set(err, "%s in fp64 needs 64-bit atomics: %s lacks cl_khr_int64_base_atomics", name,
                            c->name);
    /* 32-bit indices in the kernels: the global size and the neighbour table stay below 2^32 */
    max_sites = UINT32_MAX / (items > NBR_PER_SITE ? items : NBR_PER_SITE);
    if (n == 0 || n > max_sites)
        return pp_error_set(err, "%zu target sites are out of range for %s (1 to %zu)", n, name, max_sites);
    if (variant->work_group == 0 || (n * items) % variant->work_group != 0)
        return pp_error_set(err, "--work-group %u does not divide the global size %zu of %s",
                            variant->work_group, n * items, name);
    if (check_device_work_group(c, variant->work_group, err) != 0)
        return -1;
    link_bytes = n * REALS_PER_LINK_SET * elem;
    if (c->max_alloc_bytes && link_bytes > c->max_alloc_bytes)
        return pp_error_set(
            err, "the links of %zu sites (%zu bytes) exceed the largest allocation of %s (%llu bytes)", n,
            link_bytes, c->name, (unsigned long long)c->max_alloc_bytes);

    st = pp_suite_state_new(&c->suites, &opencl_staggered_impl, sizeof(*st));
    if (!st)
        return pp_error_set(err, "out of memory");
    st->n = n;
    st->prec = prec;
    st->local = variant->work_group;
    st->global = n * items;
    if (build_kernel(c, st, variant, err) != 0 || fit_work_group(c, st, variant, name, err) != 0 ||
        check_kernel_work_group(c, st, name, kernels[s].local, err) != 0)
        goto out;
    if (opencl_buffer_new(c, CL_MEM_READ_ONLY, link_bytes, "staggered links", &st->links, err) != 0 ||
        opencl_buffer_new(c, CL_MEM_READ_ONLY, n * REALS_PER_VEC * elem, "staggered vec", &st->vec, err) !=
            0 ||
        opencl_buffer_new(c, CL_MEM_READ_ONLY, n * NBR_PER_SITE * sizeof(cl_uint), "staggered nbr", &st->nbr,
                          err) != 0 ||
        opencl_buffer_new(c, CL_MEM_READ_WRITE, n * REALS_PER_VEC * elem, "staggered out", &st->out, err) !=
            0)
        goto out;
    if (set_args(st, kernels[s].local, err) != 0)
        goto out;
    variant->threads = 0;
    ret = 0;
out:
    if (ret != 0)
        staggered_release(ctx);
    return ret;
}

static int need_arrays(struct opencl_ctx *c, struct pp_error *err)
{
    const struct opencl_staggered *st = slot_get(opencl_pp_ctx(c));

    return st && st->kernel ? 0 : pp_error_set(err, "no staggered arrays allocated (alloc first)");
}

/* Write count doubles to mem in the working precision (a narrowed copy for fp32), blocking. */
static int write_reals(struct opencl_ctx *c, cl_mem mem, const double *src, size_t count, const char *name,
                       struct pp_error *err)
{
    const struct opencl_staggered *st = slot_get(opencl_pp_ctx(c));
    float *narrow = NULL;
    const void *host = src;
    char what[64];
    cl_int rc;

    if (st->prec == PP_FP32) {
        narrow = malloc(count * sizeof(float));
        if (!narrow)
            return pp_error_set(err, "out of memory");
        for (size_t i = 0; i < count; i++)
            narrow[i] = (float)src[i];
        host = narrow;
    }
    rc = clEnqueueWriteBuffer(c->queue, mem, CL_TRUE, 0, count * pp_precision_bytes(st->prec), host, 0, NULL,
                              NULL);
    free(narrow);
    if (rc == CL_SUCCESS)
        return 0;
    snprintf(what, sizeof(what), "clEnqueueWriteBuffer(staggered %s)", name);
    return opencl_error(err, rc, what);
}

static int staggered_upload(struct pp_ctx *ctx, const double *links, const double *vec, const uint32_t *nbr,
                            struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_staggered *st = slot_get(ctx);
    cl_int rc;

    if (need_arrays(c, err) != 0 ||
        write_reals(c, st->links, links, st->n * REALS_PER_LINK_SET, "links", err) != 0 ||
        write_reals(c, st->vec, vec, st->n * REALS_PER_VEC, "vec", err) != 0)
        return -1;
    rc = clEnqueueWriteBuffer(c->queue, st->nbr, CL_TRUE, 0, st->n * NBR_PER_SITE * sizeof(cl_uint), nbr, 0,
                              NULL, NULL);
    return rc == CL_SUCCESS ? 0 : opencl_error(err, rc, "clEnqueueWriteBuffer(staggered nbr)");
}

static int staggered_dslash(struct pp_ctx *ctx, unsigned iterations, struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_staggered *st = slot_get(ctx);
    cl_int rc;

    if (need_arrays(c, err) != 0)
        return -1;
    for (unsigned it = 0; it < iterations; it++) {
        rc = clEnqueueNDRangeKernel(c->queue, st->kernel, 1, NULL, &st->global, &st->local, 0, NULL, NULL);
        if (rc != CL_SUCCESS) {
            clFinish(c->queue);
            return opencl_error(err, rc, "clEnqueueNDRangeKernel(staggered)");
        }
    }
    rc = clFinish(c->queue);
    return rc == CL_SUCCESS ? 0 : opencl_error(err, rc, "clFinish(staggered)");
}

/* The whole output to all-ones bytes (NaN in either precision), blocking. */
static int staggered_poison(struct pp_ctx *ctx, struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    const struct opencl_staggered *st = slot_get(ctx);
    const cl_uchar ones = 0xff;
    size_t bytes = 0;
    cl_int rc;

    if (need_arrays(c, err) != 0)
        return -1;
    rc = clGetMemObjectInfo(st->out, CL_MEM_SIZE, sizeof(bytes), &bytes, NULL);
    if (rc == CL_SUCCESS)
        rc = clEnqueueFillBuffer(c->queue, st->out, &ones, 1, 0, bytes, 0, NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = clFinish(c->queue);
    return rc == CL_SUCCESS ? 0 : opencl_error(err, rc, "clEnqueueFillBuffer(staggered out)");
}

static int staggered_download(struct pp_ctx *ctx, double *out, struct pp_error *err)
{
    struct opencl_ctx *c = opencl_ctx(ctx);
    struct opencl_staggered *st = slot_get(ctx);
    size_t count;
    float *narrow = NULL;
    cl_int rc;

    if (need_arrays(c, err) != 0)
        return -1;
    count = st->n * REALS_PER_VEC;
    if (st->prec == PP_FP32 && !(narrow = malloc(count * sizeof(float))))
        return pp_error_set(err, "out of memory");
    rc = clEnqueueReadBuffer(c->queue, st->out, CL_TRUE, 0, count * pp_precision_bytes(st->prec),
                             narrow ? (void *)narrow : (void *)out, 0, NULL, NULL);
    if (rc == CL_SUCCESS && narrow)
        for (size_t i = count; i-- > 0;)
            out[i] = narrow[i];
    free(narrow);
    return rc == CL_SUCCESS ? 0 : opencl_error(err, rc, "clEnqueueReadBuffer(staggered out)");
}

static const struct pp_staggered_ops opencl_staggered_ops = {
    .strategies = PP_STAG_WORK_ITEM_STRATEGIES,
    .alloc = staggered_alloc,
    .upload = staggered_upload,
    .dslash = staggered_dslash,
    .download = staggered_download,
    .poison = staggered_poison,
    .release = staggered_release,
};

PP_SUITE_IMPL(opencl, staggered) = {
    .suite = "staggered",
    .ops = &opencl_staggered_ops,
    .release = slot_close,
};
