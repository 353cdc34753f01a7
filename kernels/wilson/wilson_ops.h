/*
 * wilson_ops: the Wilson Dslash suite's contract with the models: the layouts, the kernels each model
 * implements (struct pp_wilson_ops, in kernels/wilson/<model>.c, registered with PP_SUITE_IMPL) and what a
 * model reports back. The driver (kernels/wilson/wilson.c) finds a model's table with
 * pp_backend_ops(b, "wilson"). C and C++ (the CUDA model includes it).
 */
#ifndef PP_WILSON_OPS_H
#define PP_WILSON_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"
#include "lib/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Wilson Dslash data layouts (paper 000, Fig. 1): site-major (array of structs: one site's 24 spinor reals or
 * 144 link reals together), structure of arrays over sites (one array per real component, site fastest), and
 * the GPU layout between them, an array of structs of arrays (blocks of WILSON_AOSOA_BLOCK sites, each block
 * holding its sites' fields component by component: a warp's load of one component is one contiguous run,
 * and a warp's whole site data one contiguous stretch of memory, not 168 streams). */
enum pp_wilson_layout { PP_WILSON_AOS = 0, PP_WILSON_SOA = 1, PP_WILSON_AOSOA = 2, PP_WILSON_NLAYOUTS };

/* What a backend chose for a Wilson run; stored with the result as the variant. */
struct pp_wilson_variant {
    enum pp_wilson_layout layout;
    unsigned work_group; /* threads per block or work-group size; 0 for CPU loops */
    unsigned threads;    /* CPU threads, or 0 */
};

/* Wilson Dslash kernels (paper 000, Eq. 1), from the even checkerboard to the odd one, on n output sites (and
 * n input sites), with spin projection to half spinors: 1320 flop per output site. The driver hands over host
 * arrays in its canonical order, in double precision; the backend keeps them in its layout and precision.
 * All calls block.
 *   spinor[j][spin 4][colour 3][re, im]   the even-site input, j = half-lattice index
 *   gauge[i][k][a 3][b 3][re, im]         per output site i, k = 2 mu + back: U_mu(x) (back 0) and
 *                                         U_mu(x - mu) (back 1; the kernel applies its adjoint)
 *   nbr[k * n + i]                        the input site of output site i in direction k
 *   out[i][spin 4][colour 3][re, im]      (D psi) on the odd sites:
 *   D psi(x) = sum_mu (1 - gamma_mu) U_mu(x) psi(x + mu) + (1 + gamma_mu) U_mu(x - mu)^dagger psi(x - mu),
 *   in the DeGrand-Rossi basis (docs/METHODOLOGY.md). */
struct pp_wilson_ops {
    /* dims: the lattice (X even), n = X Y Z T / 2; a backend may compute nbr from it instead of reading it */
    int (*alloc)(struct pp_ctx *ctx, size_t n, const unsigned dims[4], enum pp_precision prec,
                 enum pp_wilson_layout layout, struct pp_wilson_variant *variant, struct pp_error *err);
    int (*upload)(struct pp_ctx *ctx, const double *gauge, const double *spinor, const uint32_t *nbr,
                  struct pp_error *err);
    /* out = D spinor, iterations times back to back, blocking once at the end */
    int (*dslash)(struct pp_ctx *ctx, unsigned iterations, struct pp_error *err);
    int (*download)(struct pp_ctx *ctx, double *out, struct pp_error *err); /* to host, widened */
    /* Fill the whole output with all-ones bytes (NaN in either precision), so that a site an application
     * does not write fails verification (the driver poisons before each verified sample, outside timing). */
    int (*poison)(struct pp_ctx *ctx, struct pp_error *err);
    void (*release)(struct pp_ctx *ctx); /* safe if none */
};

#ifdef __cplusplus
}
#endif

#endif
