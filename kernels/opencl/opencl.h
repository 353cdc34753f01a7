/*
 * opencl: the OpenCL backend (pp_backend_opencl) and what its suite files share.
 *
 * The registry needs only pp_backend_opencl. The rest is shared with the suites' OpenCL files
 * (kernels/<suite>/opencl.c): the context behind the opaque struct pp_ctx (a struct pp_ctx * handed out by
 * this backend points to a struct opencl_ctx, whose suite slots hold each suite's own state), the program
 * builder with its binary cache, buffer creation and error naming. A context is used by one thread at a time.
 */
#ifndef PP_OPENCL_H
#define PP_OPENCL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120 /* only OpenCL 1.2 API calls, so any 1.2+ driver works */
#endif
#include <CL/cl.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"
#include "lib/error.h"

extern const struct pp_backend pp_backend_opencl;

struct opencl_ctx {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    enum pp_device_kind kind;
    char name[128];
    uint64_t mem_bytes, max_alloc_bytes, local_mem_bytes;
    size_t max_work_group;
    unsigned compute_units;
    bool fp64;
    bool nv_compiler_options; /* cl_nv_compiler_options: -cl-nv-maxrregcount and friends */
    /* provenance of the last program built (describe) */
    char build_options[192];
    const char *program_cache; /* "hit", "miss", "off" or NULL before any build */
    /* each suite's state, private to its file (kernels/<suite>/opencl.c); close and describe walk them */
    struct pp_suite_slots suites;
};

static inline struct opencl_ctx *opencl_ctx(struct pp_ctx *ctx)
{
    return (struct opencl_ctx *)ctx;
}

/* An OpenCL source embedded in the binary: the Makefile turns every kernels/<suite>/<name>.cl (and every
 * header of device code shared with CUDA whose head comment says "OpenCL: embedded as pp_cl_<name>") into the
 * NUL-terminated read-only string pp_cl_<name>; a suite's opencl.c declares those it builds at run time with
 * OPENCL_SOURCE(name), so the model's core names no suite. */
#define OPENCL_SOURCE(name) extern const char pp_cl_##name[]

/* The other way: the struct pp_ctx * of c (for the suite slot's accessors, kernels/backend.h). */
static inline struct pp_ctx *opencl_pp_ctx(struct opencl_ctx *c)
{
    return (struct pp_ctx *)c;
}

/* Readable name of an OpenCL status code ("CL_OUT_OF_RESOURCES"); "CL_UNKNOWN_ERROR" for codes it lacks. */
const char *opencl_strerror(cl_int rc);

/* Whether the context's device lists the extension ext (CL_DEVICE_EXTENSIONS). */
bool opencl_device_extension(struct opencl_ctx *c, const char *ext);

/* A new buffer of the context (*out, the caller releases it), or -1 with "clCreateBuffer(name, bytes): ..."
 * in err. */
int opencl_buffer_new(struct opencl_ctx *c, cl_mem_flags flags, size_t bytes, const char *name, cl_mem *out,
                      struct pp_error *err) PP_WUR;

/* Fill err with "what: CL_NAME (code)". Returns -1. */
int opencl_error(struct pp_error *err, cl_int rc, const char *what);

/* *out = a new buffer of bytes with flags in the context; on failure err names the buffer and its size. */
int opencl_buffer_new(struct opencl_ctx *c, cl_mem_flags flags, size_t bytes, const char *name, cl_mem *out,
                      struct pp_error *err) PP_WUR;

/*
 * Build a program for the context's device from an embedded source (NUL-terminated) with build options,
 * through the binary cache (see opencl.c). On success *out is a new reference the caller releases. Records
 * the options and cache outcome for describe. A failed build returns the build log in err.
 */
int opencl_program_build(struct opencl_ctx *c, const char *name, const char *source, const char *options,
                         cl_program *out, struct pp_error *err) PP_WUR;

#endif
