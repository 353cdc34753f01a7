/*
 * cg: the CG-solve suite driver (paper 002, Sec. 5: AXPBY, DOT, SPMV and the CG solve on miniFE's 27-point
 * matrix). It owns everything the models share: the matrix and vectors (kernels/cg/cg_ref.h), the run order,
 * the CG iteration (composed from the model's blocking calls, struct pp_cg_ops), the byte and flop models,
 * the timing statistics and verification against the serial reference. A model supplies kernels only.
 */
#ifndef PP_CG_H
#define PP_CG_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/backend.h"
#include "kernels/cg/cg_ops.h"
#include "kernels/cg/cg_ref.h"
#include "kernels/sample.h"
#include "lib/error.h"
#include "lib/stats.h"

enum cg_kernel { CG_AXPBY, CG_DOT, CG_SPMV, CG_SOLVE, CG_NKERNELS };

#define CG_ALL_KERNELS        ((1u << CG_NKERNELS) - 1)
#define CG_DEFAULT_N_GPU      200u /* 8.1e6 rows, 2.6 GB of fp64 matrix: every vector far beyond a 50 MB L2 */
#define CG_DEFAULT_N_CPU      100u /* 1.0e6 rows, 0.33 GB of fp64 matrix */
#define CG_DEFAULT_N_STEP     10u  /* the CPU default grows by this from CG_DEFAULT_N_CPU (cg_resolve) */
#define CG_DEFAULT_NUMTIMES   20u
#define CG_DEFAULT_ITERATIONS 50u
#define CG_MAX_ITERATIONS     100000u

/* The standalone AXPBY's scalars (exact in fp32, so both precisions compute the same products). */
#define CG_AXPBY_ALPHA 0.75
#define CG_AXPBY_BETA  (-1.25)

struct cg_params {
    unsigned n;          /* cells per side, 1 .. CG_MAX_N; 0: the device's default (cg_resolve) */
    unsigned numtimes;   /* samples per kernel; the first is warm-up, excluded from the statistics */
    unsigned iterations; /* CG iterations per cg sample, 1 .. CG_MAX_ITERATIONS */
    double tolerance;    /* cg stops early once ||r_k|| <= tolerance ||r_0||; 0: runs every iteration */
    enum pp_precision prec;
    unsigned kernels;             /* bit mask of enum cg_kernel */
    struct pp_cg_variant variant; /* spmv, rows_per_group, items_per_row asked for (0: the model's default) */
    /* Optional: called after each sample (done of total), from the running thread. */
    void (*progress)(void *arg, unsigned done, unsigned total);
    void *progress_arg;
};

struct cg_result {
    struct cg_params params;      /* as resolved */
    struct pp_cg_variant variant; /* what ran */
    size_t rows, nnz;
    double build_seconds;              /* host: matrix, right-hand side and vectors */
    double init_seconds, read_seconds; /* uploads; read-backs for verification */
    size_t nkernels;                   /* entries used, in run order */
    enum cg_kernel which[CG_NKERNELS]; /* the kernel of each entry */
    /* each entry as the report has it (kernels/sample.h): compulsory bytes and flops per application (cg: per
     * iteration; docs/METHODOLOGY.md), numtimes times (times[0] the warm-up), statistics and rates from the
     * minimum; the check: the worst error relative to the quantity's scale, the bound, and on failure (or a
     * cg that did not converge) what, where, value, expected */
    struct suite_kernel kernels[CG_NKERNELS];
    /* The cg kernel's last sample (verified), when cg ran: */
    enum cg_status status;   /* how it stopped */
    unsigned cg_iterations;  /* iterations it completed (the times are per iteration of these) */
    bool converged;          /* tolerance > 0 and ||r|| <= tolerance ||r_0|| reached */
    double *residual;        /* ||r_k||, k = 0 .. cg_iterations (iterations + 1 allocated) */
    double *ref_residual;    /* the reference's, same indices; ref_iterations + 1 valid */
    unsigned ref_iterations; /* iterations the reference completed */
    double true_residual;    /* ||b - A x|| of the solution read back, in double */
    bool verified;           /* every kernel verified */
};

const char *cg_kernel_name(enum cg_kernel k);

/* Parse "axpby,spmv,cg" into a mask. Unknown names are an error naming the kernel. */
int cg_kernels_parse(const char *list, unsigned *mask, struct pp_error *err) PP_WUR;

const char *cg_spmv_name(enum pp_cg_spmv v);
/* "native" or "cusparse"; anything else is an error naming the parameter and its values. */
int cg_spmv_parse(const char *s, enum pp_cg_spmv *out, struct pp_error *err) PP_WUR;

void cg_params_default(struct cg_params *p);

/* The bytes the device's matrix and vectors take at n cells per side in prec (row offsets, column indices,
 * values, PP_CG_NVECTORS vectors): the problem's working_set_bytes, which the server compares with the
 * device's last-level cache (docs/METHODOLOGY.md, "Cache residency"). */
double cg_working_set(unsigned n, enum pp_precision prec);

/* Make p the problem that runs on dev (a device of a discovered model: dev->backend is set): n 0 becomes the
 * device's default (CG_DEFAULT_N_GPU; on CPUs CG_DEFAULT_N_CPU, grown by CG_DEFAULT_N_STEP while the working
 * set is below CPUCACHE_LLC_FACTOR times a known last-level cache, kernels/cpucache.h); then reject what
 * cannot run before anything is allocated, the message naming the parameter: n outside 1 .. CG_MAX_N (32-bit
 * offsets), numtimes < 2, iterations outside 1 .. CG_MAX_ITERATIONS, tolerance outside [0, 1), no kernel, no
 * fp64, an spmv variant the model lacks, a launch shape that is not a power of two or exceeds 1024 work-items
 * (items_per_row 1 on CPU loops), or matrix and vectors that do not fit the device (and, on a CPU, the host
 * copies beside them). */
int cg_resolve(struct cg_params *p, const struct pp_device *dev, struct pp_error *err) PP_WUR;

/* Run the suite on an open context with resolved parameters. Returns -1 only when the device or runtime
 * fails; a result that fails verification returns 0 with res->verified == false. res must be released with
 * cg_result_release. */
int cg_run(const struct pp_backend *b, struct pp_ctx *ctx, const struct cg_params *p, struct cg_result *res,
           struct pp_error *err) PP_WUR;

void cg_result_release(struct cg_result *res);

/* ---- the pieces, for the tests ---- */

/* The CG loop on the device from x = 0 with the right-hand side already in PP_CG_B (the matrix uploaded):
 * fills s (s->residual holds iterations + 1). Untimed setup (x = 0, r = b, r.r) happens first; *seconds
 * (may be NULL) gets the time of the iterations alone. -1 only on a device failure. */
int cg_device_solve(const struct pp_cg_ops *ops, struct pp_ctx *ctx, unsigned iterations, double tolerance,
                    struct cg_solve *s, double *seconds, struct pp_error *err) PP_WUR;

#endif
