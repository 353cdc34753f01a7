/*
 * backend: the interface every programming model implements (one const struct pp_backend per model).
 *
 * A backend discovers the devices its model can drive, opens one into an opaque context, and implements the
 * kernels of each suite. It implements kernels and nothing else: sizes, initial values, timing, statistics,
 * byte/flop models and verification belong to the suite drivers (kernels/stream/stream.c). Every kernel call is
 * blocking: it returns when the device has finished, so the driver can time it with a host clock.
 *
 * Threading: a context is used by one thread at a time. Header is C and C++ (the CUDA backend includes it).
 */
#ifndef PP_BACKEND_H
#define PP_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/error.h"
#include "lib/info.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pp_precision { PP_FP64 = 0, PP_FP32 = 1 };

static inline size_t pp_precision_bytes(enum pp_precision p)
{
    return p == PP_FP32 ? 4 : 8;
}

static inline const char *pp_precision_name(enum pp_precision p)
{
    return p == PP_FP32 ? "fp32" : "fp64";
}

enum pp_device_kind { PP_DEVICE_CPU = 0, PP_DEVICE_GPU = 1, PP_DEVICE_ACCEL = 2 };

/* One device as one model sees it. Several of these (one per model) make up one physical platform. */
struct pp_device {
    const struct pp_backend *backend; /* the model that sees it (set by the registry's discovery) */
    int index;                        /* backend-private ordinal, meaningful only to that backend */
    enum pp_device_kind kind;
    char name[128];
    char vendor[64];
    char uuid[48];            /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" in lowercase hex, "" if unknown */
    char pci_bus_id[32];      /* "dddd:bb:dd.f" in lowercase hex (4-digit domain), "" if unknown */
    uint64_t mem_bytes;       /* device (global) memory */
    uint64_t max_alloc_bytes; /* largest single buffer; 0 when only mem_bytes limits it */
    unsigned compute_units;   /* SMs, OpenCL compute units, CPU hardware threads */
    bool fp64;                /* double precision supported */
};

#define PP_MAX_DEVICES 32

struct pp_device_list {
    struct pp_device items[PP_MAX_DEVICES];
    size_t len;
};

struct pp_ctx; /* opaque: each backend defines its own */

/* What a backend chose for a STREAM run; stored with the result as the variant. */
struct pp_stream_layout {
    unsigned work_group; /* threads per block or work-group size; 0 for CPU loops */
    unsigned dot_groups; /* blocks, work-groups or threads that produce the dot's partial sums */
    uint64_t
        dot_chain; /* longest chain of sequential additions in the dot sum: sets its verification bound */
};

/* STREAM kernels (paper 004). Arrays a, b, c of n elements live in the context. All calls block. */
struct pp_stream_ops {
    int (*alloc)(struct pp_ctx *ctx, size_t n, enum pp_precision prec, struct pp_stream_layout *layout,
                 struct pp_error *err);
    int (*init)(struct pp_ctx *ctx, double a, double b, double c,
                struct pp_error *err); /* parallel first touch */
    int (*read)(struct pp_ctx *ctx, void *a, void *b, void *c,
                struct pp_error *err);                                       /* to host, n elements each */
    int (*copy)(struct pp_ctx *ctx, struct pp_error *err);                   /* c = a */
    int (*mul)(struct pp_ctx *ctx, double scalar, struct pp_error *err);     /* b = s c */
    int (*add)(struct pp_ctx *ctx, struct pp_error *err);                    /* c = a + b */
    int (*triad)(struct pp_ctx *ctx, double scalar, struct pp_error *err);   /* a = b + s c */
    int (*nstream)(struct pp_ctx *ctx, double scalar, struct pp_error *err); /* a += b + s c */
    int (*dot)(struct pp_ctx *ctx, double *sum,
               struct pp_error *err);    /* sum of a b in the precision, widened */
    void (*release)(struct pp_ctx *ctx); /* free the arrays; safe if none */
};

/* Wilson Dslash data layouts (paper 000, Fig. 1): site-major (array of structs: one site's 24 spinor reals or
 * 144 link reals together) and structure of arrays over sites (one array per real component, site fastest).
 */
enum pp_wilson_layout { PP_WILSON_AOS = 0, PP_WILSON_SOA = 1, PP_WILSON_NLAYOUTS };

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
    int (*alloc)(struct pp_ctx *ctx, size_t n, enum pp_precision prec, enum pp_wilson_layout layout,
                 struct pp_wilson_variant *variant, struct pp_error *err);
    int (*upload)(struct pp_ctx *ctx, const double *gauge, const double *spinor, const uint32_t *nbr,
                  struct pp_error *err);
    /* out = D spinor, iterations times back to back, blocking once at the end */
    int (*dslash)(struct pp_ctx *ctx, unsigned iterations, struct pp_error *err);
    int (*download)(struct pp_ctx *ctx, double *out, struct pp_error *err); /* to host, widened */
    void (*release)(struct pp_ctx *ctx);                                    /* safe if none */
};

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

/* What a staggered run asks for and gets; stored with the result as the variant. */
struct pp_staggered_variant {
    enum pp_staggered_strategy strategy;
    enum pp_staggered_order order;
    unsigned work_group; /* work-items per work-group (block); 0 for CPU loops */
    unsigned threads;    /* CPU threads, or 0 */
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
    int (*alloc)(struct pp_ctx *ctx, size_t n, enum pp_precision prec, struct pp_staggered_variant *variant,
                 struct pp_error *err);
    int (*upload)(struct pp_ctx *ctx, const double *links, const double *vec, const uint32_t *nbr,
                  struct pp_error *err);
    /* out = D vec, iterations times back to back (same input, same output), blocking once at the end. */
    int (*dslash)(struct pp_ctx *ctx, unsigned iterations, struct pp_error *err);
    int (*download)(struct pp_ctx *ctx, double *out, struct pp_error *err); /* to host, widened */
    void (*release)(struct pp_ctx *ctx);                                    /* safe if none */
};

/* One suite as one model implements it (kernels/<suite>/<model>.c): the suite's kernels are its ops table
 * (struct pp_<suite>_ops, declared by the suite in kernels/<suite>/<suite>_ops.h); its state in a context is
 * private to that file, kept in the context's slots (pp_suite_state) and freed by release. */
struct pp_suite_impl {
    const char *suite; /* the suite's name, as in kernels/suites.c */
    const void *ops;   /* its struct pp_<suite>_ops */
    void (*release)(struct pp_ctx *ctx);                            /* free the suite's state; safe if none */
    void (*describe)(struct pp_ctx *ctx, struct pp_info_list *out); /* its provenance keys; NULL: none */
};

#define PP_MAX_SUITES 8

/* The per-suite state of one context: every model's struct pp_ctx holds one, zeroed at open. A slot is taken
 * by the first suite that asks for it; the model's close and describe go through the slots taken
 * (pp_suite_slots_release, pp_suite_slots_describe), so a model's core names no suite. */
struct pp_suite_slots {
    const struct pp_suite_impl *impl[PP_MAX_SUITES];
    void *state[PP_MAX_SUITES];
};

/* The state pointer of impl in s (NULL until the suite stores its state there). */
static inline void **pp_suite_state(struct pp_suite_slots *s, const struct pp_suite_impl *impl)
{
    for (size_t i = 0; i < PP_MAX_SUITES; i++) {
        if (!s->impl[i])
            s->impl[i] = impl;
        if (s->impl[i] == impl)
            return &s->state[i];
    }
    return NULL; /* more suites than PP_MAX_SUITES: a build error in practice (see registry tests) */
}

static inline void pp_suite_slots_release(struct pp_suite_slots *s, struct pp_ctx *ctx)
{
    for (size_t i = 0; i < PP_MAX_SUITES && s->impl[i]; i++)
        s->impl[i]->release(ctx);
}

static inline void pp_suite_slots_describe(struct pp_suite_slots *s, struct pp_ctx *ctx,
                                           struct pp_info_list *out)
{
    for (size_t i = 0; i < PP_MAX_SUITES && s->impl[i]; i++)
        if (s->impl[i]->describe)
            s->impl[i]->describe(ctx, out);
}

struct pp_backend {
    const char *name; /* "openmp", "opencl", "cuda" */
    /* Append the devices this model can drive to out. Returns -1 with the reason ("no device: ...") when it
     * adds none, so a caller can say why a model is absent. */
    int (*discover)(struct pp_device_list *out, struct pp_error *err);
    int (*open)(const struct pp_device *dev, struct pp_ctx **ctx, struct pp_error *err);
    /* Runtime, driver and compiler provenance of an open context. */
    void (*describe)(struct pp_ctx *ctx, struct pp_info_list *out);
    void (*close)(struct pp_ctx *ctx); /* NULL-safe */
    /* The suites this model implements: [suites, suites_end), the model's PP_SUITE_IMPL registrations. */
    const struct pp_suite_impl *const *suites, *const *suites_end;
    const struct pp_stream_ops *stream;
    const struct pp_wilson_ops *wilson;       /* NULL: the model has no wilson suite */
    const struct pp_staggered_ops *staggered; /* NULL: the model has no staggered suite */
};

/* Defines model's implementation of suite, model_suite_impl, and registers it: a pointer to it goes into the
 * ELF section pp_suites_<model>, which the linker brackets with __start_pp_suites_<model> and
 * __stop_pp_suites_<model> (GNU ld does so for any section named like a C identifier). The model's backend
 * takes that range as its suites (PP_SUITES_OF), so adding a suite adds a file and nothing in the model's core.
 * Use at file scope, followed by the initializer:
 *     PP_SUITE_IMPL(openmp, stream) = {.suite = "stream", .ops = &ops, .release = release};  */
#define PP_SUITE_IMPL(model, suite)                                                                          \
    extern const struct pp_suite_impl model##_##suite##_impl;                                                \
    __attribute__((used, section("pp_suites_" #model))) const struct pp_suite_impl                          \
        *const model##_##suite##_impl_ref = &model##_##suite##_impl;                                          \
    const struct pp_suite_impl model##_##suite##_impl

/* The range of model's registrations, for its struct pp_backend: .suites = ..., .suites_end = ... */
#define PP_SUITES_DECLARE(model)                                                                             \
    extern const struct pp_suite_impl *const __start_pp_suites_##model[];                                    \
    extern const struct pp_suite_impl *const __stop_pp_suites_##model[]
#define PP_SUITES_OF(model) .suites = __start_pp_suites_##model, .suites_end = __stop_pp_suites_##model

/* The ops table of suite in b (cast to its struct pp_<suite>_ops), or NULL when b does not implement it. */
static inline const void *pp_backend_ops(const struct pp_backend *b, const char *suite)
{
    for (const struct pp_suite_impl *const *i = b->suites; i && i < b->suites_end; i++)
        if (strcmp((*i)->suite, suite) == 0)
            return (*i)->ops;
    return NULL;
}

#ifdef __cplusplus
}
#endif

#endif
