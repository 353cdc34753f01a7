/*
 * body: what a suite's one OpenMP file (kernels/<suite>/openmp.c) needs to serve both OpenMP models, the way
 * BabelStream's one OMPStream.cpp serves host and offload (#ifdef OMP_TARGET_GPU). The file is compiled
 * twice: into the worker for the `openmp` model (host threads), and with -DPP_OMP_TARGET into the two
 * omp-target shared objects (GCC's nvptx offload and clang's), where its loops are target regions on the
 * context's device (kernels/omptarget/omptarget.h). What differs between the two builds is here, as macros
 * and inline functions named OMB_ / omb_ ("OpenMP body"; the omp_ prefix is the OpenMP runtime's), and the
 * file writes each kernel once with them:
 *
 *   OMB_TARGET            1 in the omp-target builds, 0 on the host: a kernel whose forms differ by more than
 *                         the launch (the host's streaming stores and vectorised clones, the device's dot
 *                         over blocks) keeps both under #if OMB_TARGET, each as its build compiled it before;
 *   OMB_MODEL             openmp or omptarget, for PP_SUITE_SLOT and PP_SUITE_IMPL;
 *   OMB_INFO(key)         "openmp.<key>" or "omptarget.<key>": the provenance keys of the model;
 *   OMB_FOR(ctx, clauses, loop)
 *                         the loop as the host's `parallel for schedule(static)` (the split of the first
 *                         touch, so each thread works on the pages it placed), or as the device's `target
 *                         teams distribute parallel for simd` with the context's launch shape and the clauses
 *                         (is_device_ptr(...), which the host ignores);
 *   OMB_RESTRICT          restrict on the host (as its kernels were written), nothing on the device;
 *   omb_alloc, omb_free   the model's memory: the host's 2 MiB-aligned pages advised for huge pages
 *                         (openmp_alloc_pages), the device's omp_target_alloc;
 *   omb_to_device, omb_to_host
 *                         copies between the host's arrays and the model's (memcpy on the host).
 *
 * The host build's hot loops are the same code as before the merge (docs/PERFORMANCE.md: objdump and the
 * STREAM and Dslash figures at two threads), and the device build's target regions the same directives.
 * Threads: as the including file's (the context's thread).
 */
#ifndef PP_OPENMP_BODY_H
#define PP_OPENMP_BODY_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/backend.h"

#ifdef PP_OMP_TARGET

#include "kernels/omptarget/omptarget.h"

#define OMB_TARGET    1
#define OMB_MODEL     omptarget
#define OMB_INFO(key) "omptarget." key
#define OMB_RESTRICT
#define OMB_FOR(ctx, clauses, ...) OMPT_FOR(ctx, clauses, __VA_ARGS__)

static inline void *omb_alloc(struct pp_ctx *ctx, size_t bytes, const char *what, struct pp_error *err)
{
    return omptarget_alloc(ctx, bytes, what, err);
}

static inline void omb_free(struct pp_ctx *ctx, void *p)
{
    omptarget_free(ctx, p);
}

static inline int omb_to_device(struct pp_ctx *ctx, void *dst, const void *src, size_t bytes,
                                struct pp_error *err)
{
    return omptarget_to_device(ctx, dst, src, bytes, err);
}

static inline int omb_to_host(struct pp_ctx *ctx, void *dst, const void *src, size_t bytes,
                              struct pp_error *err)
{
    return omptarget_to_host(ctx, dst, src, bytes, err);
}

#else

#include "kernels/openmp/openmp.h"

#define OMB_TARGET    0
#define OMB_MODEL     openmp
#define OMB_INFO(key) "openmp." key
#define OMB_RESTRICT  restrict
#define OMB_FOR(ctx, clauses, ...)                                                                           \
    do {                                                                                                     \
        (void)(ctx);                                                                                         \
        _Pragma("omp parallel for schedule(static)") __VA_ARGS__                                             \
    } while (0)

static inline void *omb_alloc(struct pp_ctx *ctx, size_t bytes, const char *what, struct pp_error *err)
{
    void *p = openmp_alloc_pages(bytes);

    (void)ctx;
    if (!p)
        pp_error_set(err, "cannot allocate %s: %zu bytes", what, bytes);
    return p;
}

static inline void omb_free(struct pp_ctx *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static inline int omb_to_device(struct pp_ctx *ctx, void *dst, const void *src, size_t bytes,
                                struct pp_error *err)
{
    (void)ctx, (void)err;
    memcpy(dst, src, bytes);
    return 0;
}

static inline int omb_to_host(struct pp_ctx *ctx, void *dst, const void *src, size_t bytes,
                              struct pp_error *err)
{
    (void)ctx, (void)err;
    memcpy(dst, src, bytes);
    return 0;
}

#endif

#endif
