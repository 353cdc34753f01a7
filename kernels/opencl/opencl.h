/*
 * opencl: the OpenCL backend (pp_backend_opencl) and what its suite files share.
 *
 * The registry needs only pp_backend_opencl. The rest is internal to kernels/opencl/: the context behind the
 * opaque struct pp_ctx (a struct pp_ctx * handed out by this backend points to a struct opencl_ctx), the
 * program builder with its binary cache, and error naming. A context is used by one thread at a time.
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

/* STREAM suite (kernels/stream/opencl.c). */
extern const struct pp_stream_ops opencl_stream_ops;

/* Staggered Dslash suite (kernels/staggered/opencl.c); its state (struct opencl_staggered, private to that
 * file) hangs off the context. */
extern const struct pp_staggered_ops opencl_staggered_ops;
struct opencl_staggered;
/* Wilson Dslash suite (kernels/wilson/opencl.c). */
extern const struct pp_wilson_ops opencl_wilson_ops;

/* STREAM state of a context; all zero when no arrays are allocated. Owned by kernels/stream/opencl.c. */
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
};

/* Wilson state of a context; all zero when no fields are allocated. Owned by kernels/wilson/opencl.c. */
struct opencl_wilson {
    cl_program program;
    cl_kernel kernel;
    cl_mem gauge, spinor, nbr, out; /* in the layout and precision; nbr [8][n] */
    size_t n;
    enum pp_precision prec;
    enum pp_wilson_layout layout;
    size_t work_group, global; /* local size and global size rounded up to it */
};

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
    const char *program_cache;  /* "hit", "miss", "off" or NULL before any build */
    const char *stream_variant; /* "vec16" or "scalar" once STREAM arrays were allocated */
    struct pp_suite_slots suites;
    struct opencl_stream stream;
    struct opencl_staggered *staggered; /* owned by kernels/staggered/opencl.c; NULL when none */
    struct opencl_wilson wilson;
    struct {                              /* the last Wilson kernel built, for describe; kept by release */
        unsigned index_bits;              /* 32 or 64; 0 before any */
        unsigned max_regs;                /* register budget applied (-cl-nv-maxrregcount); 0: none */
        unsigned long long private_bytes; /* CL_KERNEL_PRIVATE_MEM_SIZE: per work-item (spills) */
        size_t max_work_group;            /* CL_KERNEL_WORK_GROUP_SIZE */
    } wilson_built;
};

static inline struct opencl_ctx *opencl_ctx(struct pp_ctx *ctx)
{
    return (struct opencl_ctx *)ctx;
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
