/*
 * staggered_ops: the staggered Dslash suite's contract with the models: the parallel strategies and work-item
 * orders, the kernels each model implements (struct pp_staggered_ops, in kernels/staggered/<model>.c,
 * registered with PP_SUITE_IMPL) and what a model reports back. The driver (kernels/staggered/staggered.c)
 * finds a model's table with pp_backend_ops(b, "staggered"). C and C++ (the CUDA model includes it).
 */
#ifndef PP_STAGGERED_OPS_H
#define PP_STAGGERED_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"
#include "lib/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MILC staggered Dslash parallel strategies (paper 001, Sec. III): how the five loops (site, l, k, i, j) are
 * spread over work-items on OpenCL and CUDA, and the two OpenMP loops. */
enum pp_staggered_strategy {
    PP_STAG_1LP = 0, /* one work-item per target site */
    PP_STAG_2LP,     /* 3 per site: one row i of every matrix */
    PP_STAG_3LP_1,   /* 12 per site (i, k): partial sums in local memory, a barrier, k == 0 writes */
    PP_STAG_3LP_2,   /* 12 per site: local memory, then atomics into the output */
    PP_STAG_3LP_3,   /* 12 per site: atomics straight into the output, no local memory */
    PP_STAG_4LP_1,   /* 48 per site (i, k, l), grouped by l first: two barriers */
    PP_STAG_4LP_2,   /* 48 per site, grouped by k first: two barriers */
    PP_STAG_SITE,    /* OpenMP: one thread iteration per target site */
    PP_STAG_SIMD,    /* OpenMP: site loop vectorised over a site-fastest layout */
    PP_STAG_NSTRATEGIES
};

/* Work-item index order within a site (paper 001, Figs. 3-5): which index varies fastest after the site. */
enum pp_staggered_order {
    PP_ORDER_NONE = 0, /* 1LP, 2LP, OpenMP */
    PP_ORDER_K,        /* k-major: i fastest, then k (3LP, 4LP-1) */
    PP_ORDER_I,        /* i-major: k (or l) fastest, then i */
    PP_ORDER_L,        /* l-major: i fastest, then l, then k (4LP-2) */
    PP_NORDERS
};

/* The paper's seven work-item strategies (1LP .. 4LP-2), as a mask for struct pp_staggered_ops.strategies:
 * what the GPU models implement. */
#define PP_STAG_WORK_ITEM_STRATEGIES                                                                         \
    ((1u << PP_STAG_1LP) | (1u << PP_STAG_2LP) | (1u << PP_STAG_3LP_1) | (1u << PP_STAG_3LP_2) |             \
     (1u << PP_STAG_3LP_3) | (1u << PP_STAG_4LP_1) | (1u << PP_STAG_4LP_2))

/* Work-items per target site of a strategy (paper 001, Sec. III: 1, |i|, |i||k|, |i||k||l|); 0 for the
 * OpenMP loops, which have no work-items. */
static inline unsigned pp_staggered_items_per_site(enum pp_staggered_strategy s)
{
    switch (s) {
    case PP_STAG_2LP:
        return 3;
    case PP_STAG_3LP_1:
    case PP_STAG_3LP_2:
    case PP_STAG_3LP_3:
        return 12;
    case PP_STAG_4LP_1:
    case PP_STAG_4LP_2:
        return 48;
    case PP_STAG_1LP:
        return 1;
    default:
        return 0;
    }
}

/* What a work-group size must be a multiple of: the work-items that share one partial sum must share the
 * group (3LP k-major: the 12 of a site; i-major: the 4 k of one row; 4LP: the 48 of a site). */
static inline unsigned pp_staggered_group_multiple(enum pp_staggered_strategy s, enum pp_staggered_order o)
{
    unsigned items = pp_staggered_items_per_site(s);

    if (items == 12)
        return o == PP_ORDER_K ? 12 : 4;
    return items == 48 ? 48 : 1;
}

/* The default work-group of strategy s (order o) over global work-items, at most cap: the first of 768, 384,
 * 192, 96 (256 first for 1LP, paper 001's Table I) that the strategy's multiple and the global size allow,
 * else the largest size that does; 0 when none does. The driver caps at 1024; a model whose compiled kernel
 * takes fewer work-items (registers) asks again with its kernel's limit. */
static inline unsigned pp_staggered_default_work_group(enum pp_staggered_strategy s,
                                                       enum pp_staggered_order o, size_t global, unsigned cap)
{
    static const unsigned preferred[] = {256, 768, 384, 192, 96};
    unsigned m = pp_staggered_group_multiple(s, o);

    for (size_t i = s == PP_STAG_1LP ? 0 : 1; i < sizeof(preferred) / sizeof(preferred[0]); i++)
        if (preferred[i] <= cap && preferred[i] % m == 0 && global % preferred[i] == 0)
            return preferred[i];
    for (unsigned w = cap < 1024 ? cap : 1024; w >= m && w > 0; w--)
        if (w % m == 0 && global % w == 0)
            return w;
    return 0;
}

/* What a staggered run asks for and gets; stored with the result as the variant. */
struct pp_staggered_variant {
    enum pp_staggered_strategy strategy;
    enum pp_staggered_order order;
    unsigned work_group;  /* work-items per work-group (block); 0 for CPU loops */
    bool work_group_auto; /* work_group is the default (none was asked for): a model may lower it */
    unsigned threads;     /* CPU threads, or 0 */
};

/* MILC staggered Dslash kernels (paper 001, Eq. 1, with first and third neighbours), from the even
 * checkerboard to the odd one, on n output sites, in the model's precision; the driver hands over host arrays
 * in double precision in this canonical order (the paper's: |l| arrays of per-site |k| matrices):
 *   links[((l * n + i) * 4 + k) * 18 + (a * 3 + b) * 2 + re_im]  per output site i:
 *       l = 0: fat link U_k(x), l = 1: long link W_k(x), l = 2: U_k(x - k)^dagger, l = 3: W_k(x - 3k)^dagger
 *       (the adjoints stored as matrices, so every term is a plain matrix-vector product)
 *   vec[j * 6 + a * 2 + re_im]       the even-site input colour vector, j = half-lattice index
 *   nbr[(l * 4 + k) * n + i]         the input site of term (l, k) of output site i: x + k, x + 3k, x - k,
 *                                    x - 3k for l = 0..3
 *   out[i * 6 + a * 2 + re_im]       C(x) = sum_k L0 B(x + k) + L1 B(x + 3k) - L2 B(x - k) - L3 B(x - 3k)
 * 1146 flop per output site: 16 products of 66 and 15 complex vector additions of 6. All calls block. */
struct pp_staggered_ops {
    /* The strategies this model implements, as a bit mask of 1u << enum pp_staggered_strategy. */
    unsigned strategies;
    /* variant: in, what the run asks for (the driver has checked the strategy's own rules: order, work-group
     * a multiple of what the strategy needs and dividing the global size); out, what runs (threads filled
     * in). The backend refuses what the device cannot do (a work-group above its limit, local memory). */
    /* dims: the lattice (X even), n = X Y Z T / 2; a backend may compute nbr from it instead of reading it */
    int (*alloc)(struct pp_ctx *ctx, size_t n, const unsigned dims[4], enum pp_precision prec,
                 struct pp_staggered_variant *variant, struct pp_error *err);
    int (*upload)(struct pp_ctx *ctx, const double *links, const double *vec, const uint32_t *nbr,
                  struct pp_error *err);
    /* out = D vec, iterations times back to back (same input, same output), blocking once at the end. */
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
