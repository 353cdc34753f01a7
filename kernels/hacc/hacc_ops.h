/*
 * hacc_ops: the kernels a model implements for the HACC suite (paper 003: CRK-HACC's short-range particle
 * pair kernels), as struct pp_hacc_ops, registered per model with PP_SUITE_IMPL(model, hacc)
 * (kernels/backend.h). The driver (kernels/hacc/hacc.c) owns the problem, timing and verification.
 *
 * The context holds nleaves leaves of leaf_size particles each (particle p of leaf a is particle
 * a * leaf_size + p), every particle's PP_HACC_NIN fields and PP_HACC_NOUT accumulated outputs in the working
 * precision, and npairs leaf pairs (a, b), a != b. A kernel adds, for every pair and every particle i of
 * one leaf and j of the other, the interaction of j on i AND of i on j into the outputs of i and j (2
 * leaf_size^2 interactions per pair). Every call blocks: it returns when the device has finished, so the
 * driver times it with one host clock. Header is C and C++ (the CUDA backend includes it).
 */
#ifndef PP_HACC_OPS_H
#define PP_HACC_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"
#include "lib/error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pp_hacc_kernel { PP_HACC_GRAVITY = 0, PP_HACC_SPH = 1, PP_HACC_NKERNELS };

/* How the two halves of a (sub-)group exchange particles (paper 003, Sec. 5.3), and the CPU loops. */
enum pp_hacc_variant {
    PP_HACC_SELECT = 0,    /* warp / sub-group shuffle (CUDA __shfl_xor_sync, OpenCL sub-group shuffles) */
    PP_HACC_MEMORY_32,     /* through work-group local memory, one 32-bit component at a time */
    PP_HACC_MEMORY_OBJECT, /* through local memory, whole particles */
    PP_HACC_BROADCAST,     /* no exchange: each work-item loads its partners (uniform loads), fewer atomics */
    PP_HACC_SCALAR,        /* OpenMP: one particle at a time, not vectorised */
    PP_HACC_SIMD,          /* OpenMP: the partner loop vectorised (omp simd) */
    PP_HACC_NVARIANTS
};

/* Particle inputs: position, velocity, mass, density, smoothing length (gravity reads x, y, z, mass). */
enum pp_hacc_field {
    PP_HACC_X = 0,
    PP_HACC_Y,
    PP_HACC_Z,
    PP_HACC_VX,
    PP_HACC_VY,
    PP_HACC_VZ,
    PP_HACC_MASS,
    PP_HACC_RHO,
    PP_HACC_HSML,
    PP_HACC_NIN
};
/* Outputs: acceleration and (sph) the rate of change of specific internal energy. */
enum pp_hacc_out { PP_HACC_AX = 0, PP_HACC_AY, PP_HACC_AZ, PP_HACC_DU, PP_HACC_NOUT };

/* The half-warp algorithm's group: 16 particles of each leaf. leaf_size is a multiple of it. */
#define PP_HACC_HALF 16

/*
 * The constants of the two kernels (docs/METHODOLOGY.md has the formulas). Gravity: HACCmk's short-range
 * force, f(r^2) = (r^2 + eps^2)^(-3/2) - poly5(r^2) for 0 < r^2 < rmax^2, in grid units: the polynomial is
 * the grid (long-range) force it subtracts, so f vanishes near rmax. SPH: isothermal sound speed, the
 * artificial viscosity's alpha, beta and eta^2, 1/pi of the cubic spline.
 */
#define PP_HACC_CONSTANTS(X)                                                                                 \
    X(MA0, 0.269327)                                                                                         \
    X(MA1, -0.0750978)                                                                                       \
    X(MA2, 0.0114808)                                                                                        \
    X(MA3, -0.00109313)                                                                                      \
    X(MA4, 0.0000605491)                                                                                     \
    X(MA5, -0.00000147177)                                                                                   \
    X(RMAX2, 9.7115)                                                                                         \
    X(EPS2, 0.01)                                                                                            \
    X(CS2, 1.0)                                                                                              \
    X(ALPHA_CS, 1.0)                                                                                         \
    X(BETA, 2.0)                                                                                             \
    X(ETA2, 0.01)                                                                                            \
    X(INV_PI, 0.31830988618379067)
#define PP_HACC_DEFINE_CONSTANT(name, value) static const double PP_HACC_##name = value;
/* on the device too where clang offloads the pair kernels (it requires declare target; GCC maps them itself) */
#if defined(_OPENMP) && defined(__clang__) && !defined(__CUDACC__)
#pragma omp declare target
#endif
PP_HACC_CONSTANTS(PP_HACC_DEFINE_CONSTANT)
#if defined(_OPENMP) && defined(__clang__) && !defined(__CUDACC__)
#pragma omp end declare target
#endif
#undef PP_HACC_DEFINE_CONSTANT

/* What ran, filled by alloc. */
struct pp_hacc_launch {
    unsigned
        work_group;     /* work-items per work-group (2 leaf_size: one work-group per leaf pair); 0 on CPUs */
    unsigned sub_group; /* the exchange's group (32: two halves of PP_HACC_HALF); 0 on CPUs */
    unsigned threads;   /* CPU threads, or 0 */
};

struct pp_hacc_ops {
    unsigned variants; /* the variants this model implements: a mask of 1u << enum pp_hacc_variant */
    /* Allocate particles and pairs in prec for variant. A variant this device cannot run is refused with a
     * message that starts "unsupported: " (the runner records it as such). leaf_size is a multiple of
     * PP_HACC_HALF, at most 256. */
    int (*alloc)(struct pp_ctx *ctx, size_t nleaves, unsigned leaf_size, size_t npairs,
                 enum pp_precision prec, enum pp_hacc_variant variant, struct pp_hacc_launch *out,
                 struct pp_error *err);
    /* Copy the particles in (in[f][particle], doubles rounded to the working precision) and, when pairs is
     * not NULL, the pair list (2 npairs leaf indices: a0, b0, a1, b1, ...). */
    int (*upload)(struct pp_ctx *ctx, const double *const in[PP_HACC_NIN], const uint32_t *pairs,
                  struct pp_error *err);
    /* Every output of every particle = value. */
    int (*fill)(struct pp_ctx *ctx, double value, struct pp_error *err);
    /* Add kernel k's interactions of every pair into the outputs (gravity: AX..AZ; sph: AX..DU). */
    int (*run)(struct pp_ctx *ctx, enum pp_hacc_kernel k, struct pp_error *err);
    /* out[o][particle] = the outputs, widened. */
    int (*download)(struct pp_ctx *ctx, double *const out[PP_HACC_NOUT], struct pp_error *err);
    void (*release)(struct pp_ctx *ctx); /* free everything; safe if nothing */
};

#ifdef __cplusplus
}
#endif

#endif
