/*
 * cuda: declarations shared by the CUDA backend's files (cuda.cu: discovery, contexts, provenance; stream.cu:
 * the STREAM kernels; wilson.cu: the Wilson Dslash; staggered.cu: the staggered Dslash). C++ (nvcc) only; the
 * worker sees nothing of it but the pp_backend_cuda table.
 *
 * A context belongs to the thread that opened it and is used by one thread at a time. It owns the device
 * arrays of one STREAM run (alloc .. release) and the pinned host buffer of the dot's partial sums.
 */
#ifndef PP_CUDA_H
#define PP_CUDA_H

#include <cuda_runtime.h>

#include "kernels/backend.h"

struct pp_ctx;
/* Launches the Wilson kernel chosen at alloc on a grid of blocks (kernels/wilson/wilson.cu). */
typedef void (*cuda_wilson_launch)(const struct pp_ctx *ctx, unsigned grid);

/* How the streaming kernels touch memory (PPBENCH_CUDA_VARIANT). */
enum cuda_variant {
    CUDA_VEC16 = 0,  /* "vec16": each thread moves one 16-byte vector (float4, double2) of every array */
    CUDA_SCALAR = 1, /* "scalar": each thread moves one element, as BabelStream's CUDA version */
};

struct pp_ctx {
    int device; /* CUDA ordinal */
    struct pp_suite_slots suites;
    int sm_count;
    int cc_major, cc_minor;
    int l2_bytes;
    int clock_khz, mem_clock_khz, bus_width_bits; /* 0 if unknown */

    enum cuda_variant variant;
    unsigned block;      /* threads per block of every kernel (PPBENCH_CUDA_BLOCK) */
    unsigned dot_per_sm; /* dot blocks per SM asked for (PPBENCH_CUDA_DOT_BLOCKS_PER_SM); 0: as many as fit */

    /* STREAM state, alloc .. release. */
    enum pp_precision prec;
    size_t n;
    void *a, *b, *c;     /* device arrays of n elements */
    void *partials;      /* device: one partial sum per dot block */
    void *host_partials; /* pinned host copy of partials */
    unsigned dot_groups; /* blocks of the dot kernel: sm_count x dot blocks per SM */

    struct cuda_staggered *staggered; /* staggered suite state (staggered.cu), alloc .. close; or NULL */
    /* Wilson state (wilson.cu): the fields alloc .. release; the launch choices and the kernel's registers
     * stay for describe. */
    struct {
        size_t n; /* output sites = input sites */
        enum pp_precision prec;
        enum pp_wilson_layout layout;
        void *gauge, *spinor, *out; /* device, in the layout and precision */
        unsigned *nbr;              /* device, [8][n] */
        cuda_wilson_launch launch;  /* the kernel of the precision, layout, index type and register cap */
        unsigned block;             /* threads per block; 0 before any Wilson alloc */
        unsigned max_regs;    /* register budget (kernels/wilson/wilson_gpu.h); 0: the compiler's choice */
        unsigned minblocks;   /* the __launch_bounds__ minimum of blocks per SM that sets it */
        unsigned index_bits;  /* 32 or 64 */
        int regs;             /* registers per thread of the kernel */
        unsigned local_bytes; /* its local memory per thread (spills) */
    } w;
};

/* The one exported symbol (cuda.cu); the names below stay inside the shared object. */
extern "C" const struct pp_backend pp_backend_cuda;

#define CUDA_HIDDEN __attribute__((visibility("hidden")))

extern const struct pp_stream_ops cuda_stream_ops CUDA_HIDDEN;
extern const struct pp_staggered_ops cuda_staggered_ops CUDA_HIDDEN;
extern const struct pp_wilson_ops cuda_wilson_ops CUDA_HIDDEN;

CUDA_HIDDEN const char *cuda_variant_name(enum cuda_variant v);

/* The STREAM choices of ctx (variant, block, dot blocks per SM, kernel registers) as cuda.* keys. */
CUDA_HIDDEN void cuda_stream_describe(struct pp_ctx *ctx, struct pp_info_list *out);

/* Free the staggered state (close). */
CUDA_HIDDEN void cuda_staggered_free(struct pp_ctx *ctx);

/* The staggered kernel of the last run (registers, spills, launch shape) as cuda.* keys; none without. */
CUDA_HIDDEN void cuda_staggered_describe(struct pp_ctx *ctx, struct pp_info_list *out);
/* The Wilson kernel's launch (block size, register cap, index bits, registers, local memory) as cuda.wilson_*
 * keys, after a run. */
CUDA_HIDDEN void cuda_wilson_describe(struct pp_ctx *ctx, struct pp_info_list *out);

/* 0 on cudaSuccess; else -1 with "what: cudaErrorName: description" in err. */
CUDA_HIDDEN int cuda_check(cudaError_t e, struct pp_error *err, const char *what) PP_WUR;

#endif
