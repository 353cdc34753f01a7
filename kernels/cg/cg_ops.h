/*
 * cg_ops: the kernels a model implements for the CG-solve suite (paper 002, Sec. 5: AXPBY, DOT, SPMV), as
 * struct pp_cg_ops, registered per model with PP_SUITE_IMPL(model, cg) (kernels/backend.h). The driver
 * (kernels/cg/cg.c) composes the CG iteration from these calls, so the solver loop exists once.
 *
 * The context holds one sparse matrix in CRS (rows + 1 row offsets and nnz column indices, both 32-bit,
 * nnz values) and PP_CG_NVECTORS vectors of rows elements, all in the working precision. Every call blocks:
 * it returns when the device has finished, so the driver times it with one host clock. Vector arguments name
 * the context's vectors; they may alias where a contract says so. Header is C and C++ (the CUDA backend
 * includes it).
 */
#ifndef PP_CG_OPS_H
#define PP_CG_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"
#include "lib/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The vectors of a context: the CG solve's x, r, p, Ap and right-hand side b; the standalone kernels use
 * them as operands too (kernels/cg/cg.c says which). */
enum pp_cg_vector { PP_CG_X = 0, PP_CG_R, PP_CG_P, PP_CG_AP, PP_CG_B, PP_CG_NVECTORS };

/* Which SPMV runs: the model's own kernel, or the vendor library's (cuSPARSE, CUDA only). */
enum pp_cg_spmv { PP_CG_SPMV_NATIVE = 0, PP_CG_SPMV_CUSPARSE = 1, PP_CG_NSPMV };

/* The launch shape of a run; stored with the result as the variant. In alloc: what the run asks for (0: the
 * model's default for the device); out: what runs. */
struct pp_cg_variant {
    enum pp_cg_spmv spmv;
    /* SPMV: rows per work-group (the paper's rows per team) and work-items per row (its vector length): a
     * work-group of rows_per_group x items_per_row work-items; the items of a row split its entries and add
     * their partial sums as a tree. Both powers of two; items_per_row at most the sub-group (warp) size on
     * GPUs. OpenMP: rows_per_group rows per scheduling chunk, items_per_row 1. cuSPARSE: 0 and 0. */
    unsigned rows_per_group;
    unsigned items_per_row;
    unsigned work_group;   /* out: work-items per SPMV work-group (0: CPU loop) */
    unsigned vector_group; /* out: work-items per AXPBY and DOT work-group (0: CPU loop) */
    unsigned dot_groups;   /* out: work-groups or threads that produce the DOT's partial sums */
    uint64_t dot_chain;    /* out: longest chain of sequential additions in a DOT: its verification bound */
    unsigned threads;      /* out: CPU threads, or 0 */
};

struct pp_cg_ops {
    /* The SPMV variants this model implements, as a mask of 1u << enum pp_cg_spmv. */
    unsigned spmv_variants;
    /* Allocate the matrix (rows + 1 offsets, nnz entries) and the vectors in prec; variant in/out as above.
     * Refuses what the device cannot do (a shape above its work-group limit, memory) with the reason, and a
     * library variant that cannot load ("unsupported: libcusparse not found"). rows >= 1, nnz < 2^31. */
    int (*alloc)(struct pp_ctx *ctx, size_t rows, size_t nnz, enum pp_precision prec,
                 struct pp_cg_variant *variant, struct pp_error *err);
    /* Copy the matrix in: row_ptr[rows + 1] (row_ptr[0] = 0, non-decreasing, row_ptr[rows] = nnz), col[nnz]
     * (each < rows), val[nnz] in double, rounded to the working precision. */
    int (*upload_matrix)(struct pp_ctx *ctx, const uint32_t *row_ptr, const uint32_t *col, const double *val,
                         struct pp_error *err);
    /* v = x (rows doubles, rounded to the working precision). */
    int (*upload)(struct pp_ctx *ctx, enum pp_cg_vector v, const double *x, struct pp_error *err);
    /* Every element of v = value (NaN poisons a vector before a verified application). */
    int (*fill)(struct pp_ctx *ctx, enum pp_cg_vector v, double value, struct pp_error *err);
    /* x = v (rows doubles, widened). */
    int (*download)(struct pp_ctx *ctx, enum pp_cg_vector v, double *x, struct pp_error *err);
    /* z = alpha x + beta y, element-wise in the working precision. z may be x or y, and x may be y. */
    int (*axpby)(struct pp_ctx *ctx, enum pp_cg_vector z, double alpha, enum pp_cg_vector x, double beta,
                 enum pp_cg_vector y, struct pp_error *err);
    /* *sum = sum of x y in the working precision (widened); x may be y. The result reaches the host inside
     * the call (partial sums added there where the model does so), as BabelStream's dot. */
    int (*dot)(struct pp_ctx *ctx, enum pp_cg_vector x, enum pp_cg_vector y, double *sum,
               struct pp_error *err);
    /* y = A x with the variant chosen at alloc; y must not be x. */
    int (*spmv)(struct pp_ctx *ctx, enum pp_cg_vector y, enum pp_cg_vector x, struct pp_error *err);
    void (*release)(struct pp_ctx *ctx); /* free the matrix and vectors; safe if none */
};

#ifdef __cplusplus
}
#endif

#endif
