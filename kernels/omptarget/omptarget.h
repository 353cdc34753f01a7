/*
 * omptarget: declarations shared by the OpenMP offload model's core (omptarget.c: discovery, contexts,
 * provenance) and the suites' files (the OpenMP model's kernels/<suite>/openmp.c + openmp_kernels.h, built
 * again with -DPP_OMP_TARGET: kernels/openmp/body.h; each registered with PP_SUITE_IMPL(omptarget, <suite>)).
 * OMPT_FOR / OMPT_TEAMS_FOR make a loop a target region with or without num_teams / thread_limit. Built with
 * GCC's nvptx offload compiler into libppbench-omptarget.so and with clang's OpenMP offload into
 * libppbench-omptarget-clang.so; the worker sees nothing of either but the pp_backend_omptarget table.
 *
 * A context drives one OpenMP device: an offload device (a GPU, through libgomp's nvptx plugin) or the
 * initial device (host fallback: the same target regions run on the host, which is how CI verifies them).
 * Every target region names the context's device, runs synchronously (no nowait), and works on memory from
 * omp_target_alloc, passed with is_device_ptr. A context is used by one thread at a time and owns each
 * suite's state through its suite slots (freed by close).
 */
#ifndef PP_OMPTARGET_H
#define PP_OMPTARGET_H

#include <omp.h>
#include <stdbool.h>
#include <stddef.h>

#include "kernels/backend.h"

#define OMPT_HIDDEN __attribute__((visibility("hidden")))

/* The launch shape of the target loops: num_teams and thread_limit, or 0 for the runtime's choice (then the
 * loops carry no such clause). From PPBENCH_OMPTARGET_TEAMS and PPBENCH_OMPTARGET_THREADS at open; where the
 * latter is absent, a suite's own default on a GPU (omptarget_threads). */
struct omptarget_shape {
    unsigned teams;
    unsigned threads;
    bool threads_given; /* PPBENCH_OMPTARGET_THREADS was set: it wins over a suite's default */
};

/* The context: the device and what the core knows of it; each suite's own state, private to the suite's file,
 * is in the suite slots. */
struct pp_ctx {
    int device;   /* OpenMP device number; omp_get_initial_device() for host fallback */
    bool host;    /* the initial device: target regions run on the host */
    int sm_count; /* multiprocessors (CUDA driver), or host threads for host fallback; 0 if unknown */
    struct omptarget_shape shape;
    struct pp_suite_slots suites;
};

/* The lanes a `simd` loop runs on in a target region on a GPU, and why: GCC's nvptx offload spreads simd over
 * a warp's 32 lanes (an OpenMP thread is a warp), clang's runs it on one (an OpenMP thread is a CUDA thread).
 */
#ifdef __clang__
#define OMPT_GPU_SIMD_LANES 1u
#define OMPT_GPU_SIMD_NOTE  "clang's nvptx offload runs simd on one lane: an OpenMP thread is a CUDA thread"
/* The thread_limit on a GPU of the suites that take it (OMPT_SUITE_THREADS) where PPBENCH_OMPTARGET_THREADS
 * is absent: 256 CUDA threads a block. On the H100, LLVM 19's own choice (128 a block) ran STREAM's triad at
 * 0.68x CUDA's and 256 at 0.85x (2^28 fp64), Wilson at 0.85x and 0.89x; CG's spmv and the staggered 1lp ran
 * slower with it (0.62x -> 0.29x, 0.97x -> 0.72x), so they keep the runtime's (docs/PERFORMANCE.md). GCC's
 * runtime choice was its best everywhere, so its build keeps it (0). */
#define OMPT_GPU_THREADS_DEFAULT 256u
#else
#define OMPT_GPU_SIMD_LANES 32u
#define OMPT_GPU_SIMD_NOTE                                                                                   \
    "simd spans a warp's 32 lanes on GCC's nvptx offload, a width the directives cannot set: 1 or 32"
#define OMPT_GPU_THREADS_DEFAULT 0u
#endif

/* A suite's thread_limit on a GPU where the environment gives none: a suite file that takes
 * OMPT_GPU_THREADS_DEFAULT defines OMPT_SUITE_THREADS to it before including this header; the others keep the
 * runtime's choice (0). */
#ifndef OMPT_SUITE_THREADS
#define OMPT_SUITE_THREADS 0u
#endif

/* The thread_limit of ctx's loops in a suite whose default is suite_default: the environment's, else 0 on the
 * host (fallback), else the suite's. */
static inline unsigned omptarget_threads(const struct pp_ctx *ctx, unsigned suite_default)
{
    return ctx->shape.threads_given || ctx->host ? ctx->shape.threads : suite_default;
}

/* The one exported symbol (omptarget.c); the names below stay inside the shared object. */
extern const struct pp_backend pp_backend_omptarget;

/* bytes of device memory (omp_target_alloc), or NULL with "cannot allocate <what>: N bytes on device D". */
OMPT_HIDDEN void *omptarget_alloc(struct pp_ctx *ctx, size_t bytes, const char *what, struct pp_error *err);
/* Frees what omptarget_alloc returned; NULL-safe. */
OMPT_HIDDEN void omptarget_free(struct pp_ctx *ctx, void *p);
/* Copies bytes from host memory to device memory, or back; -1 with err when the runtime refuses. */
OMPT_HIDDEN int omptarget_to_device(struct pp_ctx *ctx, void *dst, const void *src, size_t bytes,
                                    struct pp_error *err) PP_WUR;
OMPT_HIDDEN int omptarget_to_host(struct pp_ctx *ctx, void *dst, const void *src, size_t bytes,
                                  struct pp_error *err) PP_WUR;

/* The blocks a reduction splits n elements into (each block summed by one team, the blocks' sums added on
 * the host, as the CUDA and OpenCL models' dots): the shape's teams, else 4 per SM (GPU) or one per host
 * thread (host fallback). Its longest chain of additions is then ceil(n / blocks) + blocks, whatever teams
 * the runtime actually starts. */
OMPT_HIDDEN unsigned omptarget_blocks(const struct pp_ctx *ctx);

/* ---- the target loops ----
 * OMPT_FOR(ctx, clauses, loop): the for loop as `target teams distribute parallel for simd` on ctx's device,
 * with num_teams and thread_limit when the context's shape (or the suite's default thread_limit) sets them (a
 * clause cannot say "the runtime's choice", hence one directive per case), and clauses (is_device_ptr, map,
 * ...) appended. OMPT_TEAMS_FOR(ctx, clauses, loop): the same with `target teams distribute` only, for loops
 * over blocks whose bodies hold their own `parallel for simd` (_Pragma, as a #pragma cannot sit in a macro
 * argument). On GCC's nvptx offload, an OpenMP thread is a warp and simd runs on its 32 lanes, so
 * thread_limit counts warps and a loop without simd leaves 31 lanes of each warp idle. On clang's, an OpenMP
 * thread is a CUDA thread and simd is one lane: thread_limit counts CUDA threads (a block's size), and a loop
 * runs one iteration per CUDA thread with or without simd. */
#define OMPT_PRAGMA(x) _Pragma(#x)
#define OMPT_LOOP_(ctx, construct, clauses, ...)                                                             \
    do {                                                                                                     \
        const int ompt_dev_ = (ctx)->device, ompt_teams_ = (int)(ctx)->shape.teams,                          \
                  ompt_threads_ = (int)omptarget_threads((ctx), OMPT_SUITE_THREADS);                         \
        if (ompt_teams_ && ompt_threads_) {                                                                  \
            OMPT_PRAGMA(omp construct device(ompt_dev_) num_teams(ompt_teams_) thread_limit(ompt_threads_)   \
                            clauses)                                                                         \
            __VA_ARGS__                                                                                      \
        } else if (ompt_teams_) {                                                                            \
            OMPT_PRAGMA(omp construct device(ompt_dev_) num_teams(ompt_teams_) clauses)                      \
            __VA_ARGS__                                                                                      \
        } else if (ompt_threads_) {                                                                          \
            OMPT_PRAGMA(omp construct device(ompt_dev_) thread_limit(ompt_threads_) clauses)                 \
            __VA_ARGS__                                                                                      \
        } else {                                                                                             \
            OMPT_PRAGMA(omp construct device(ompt_dev_) clauses)                                             \
            __VA_ARGS__                                                                                      \
        }                                                                                                    \
    } while (0)
#define OMPT_FOR(ctx, clauses, ...)                                                                          \
    OMPT_LOOP_(ctx, target teams distribute parallel for simd, clauses, __VA_ARGS__)
#define OMPT_TEAMS_FOR(ctx, clauses, ...) OMPT_LOOP_(ctx, target teams distribute, clauses, __VA_ARGS__)

#endif
