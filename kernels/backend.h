/*
 * backend: the interface every programming model implements (one const struct pp_backend per model), and how
 * a model's suites plug into it. Model- and suite-neutral: it names no suite.
 *
 * A backend discovers the devices its model can drive, opens one into an opaque context, and implements the
 * kernels of each suite. It implements kernels and nothing else: sizes, initial values, timing, statistics,
 * byte/flop models and verification belong to the suite drivers (kernels/<suite>/<suite>.c). Every kernel
 * call is blocking: it returns when the device has finished, so the driver can time it with a host clock.
 *
 * A suite's contract with the models is its ops table, struct pp_<suite>_ops in
 * kernels/<suite>/<suite>_ops.h. A model implements a suite in one file, kernels/<suite>/<model>.c (or
 * <suite>.cu), which registers a struct pp_suite_impl with PP_SUITE_IMPL(model, suite) and keeps its state
 * private, in the context's suite slots; the driver finds the ops with pp_backend_ops(b, "<suite>"). A
 * model's core (kernels/<model>/) only embeds the slots in its context, releases and describes them, and
 * names its registrations with PP_SUITES_DECLARE and PP_SUITES_OF.
 *
 * Threading: a context is used by one thread at a time. Header is C and C++ (the CUDA backend includes it).
 */
#ifndef PP_BACKEND_H
#define PP_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
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
    /* last-level cache: a GPU's L2 from its driver, a CPU's from sysfs (kernels/cpucache.h); 0 when unknown.
     * The platform's value replaces the model's (worker/platform.c), so every model of a device sees one. */
    uint64_t llc_bytes;
    unsigned compute_units; /* SMs, OpenCL compute units, CPU hardware threads */
    bool fp64;              /* double precision supported */
};

/* Variant regions (docs/METHODOLOGY.md, "Code divergence"): where a model's file holds code only some
 * variants of its suite compile (C++ specialisations, functions picked at run time), that code sits in
 * #if PP_VARIANT_REGION(NAME) ... #endif, NAME the variant in upper case with - as _. Every build compiles
 * all of it; the line-set build (scripts/linesets.sh) defines PP_VARIANT_REGION(v) as PP_LINESET_##v and
 * PP_LINESET_<NAME> as 1 for the one variant whose lines it collects, so that the preprocessor keeps that
 * variant's lines only, as it does where the variant is a macro (OpenCL's -DVARIANT). */
#ifndef PP_VARIANT_REGION
#define PP_VARIANT_REGION(v) 1
#endif

#define PP_MAX_DEVICES 32

struct pp_device_list {
    struct pp_device items[PP_MAX_DEVICES];
    size_t len;
};

struct pp_ctx; /* opaque: each backend defines its own */

/* One suite as one model implements it (kernels/<suite>/<model>.c): the suite's kernels are its ops table
 * (struct pp_<suite>_ops, declared by the suite in kernels/<suite>/<suite>_ops.h); its state in a context is
 * private to that file, kept in the context's slots (pp_suite_state) and freed by release. */
struct pp_suite_impl {
    const char *suite;                   /* the suite's name, as in kernels/suites.c */
    const void *ops;                     /* its struct pp_<suite>_ops */
    void (*release)(struct pp_ctx *ctx); /* free the suite's state; safe if none */
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

/* The state of impl in s, or NULL while it has none (before the suite's first alloc). Takes no slot. */
static inline void *pp_suite_state_get(const struct pp_suite_slots *s, const struct pp_suite_impl *impl)
{
    for (size_t i = 0; i < PP_MAX_SUITES && s->impl[i]; i++)
        if (s->impl[i] == impl)
            return s->state[i];
    return NULL;
}

/* The state of impl in s, created with size zero bytes when it has none (a suite's alloc); NULL when out of
 * memory or slots. The suite's release hook frees it (free, then *pp_suite_state(s, impl) = NULL). */
static inline void *pp_suite_state_new(struct pp_suite_slots *s, const struct pp_suite_impl *impl,
                                       size_t size)
{
    void **state = pp_suite_state(s, impl);

    if (state && !*state)
        *state = calloc(1, size);
    return state ? *state : NULL;
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
};

/* Defines model's implementation of suite, model_suite_impl, and registers it: a pointer to it goes into the
 * ELF section pp_suites_<model>, which the linker brackets with __start_pp_suites_<model> and
 * __stop_pp_suites_<model> (GNU ld does so for any section named like a C identifier). The model's backend
 * takes that range as its suites (PP_SUITES_OF), so adding a suite adds a file and nothing in the model's
 * core. The impl is hidden (a shared object exports only its backend). Use at file scope, followed by the
 * initializer:
 *     PP_SUITE_IMPL(mymodel, mysuite) = {.suite = "mysuite", .ops = &ops, .release = release};
 */
#define PP_SUITE_IMPL(model, suite) PP_SUITE_IMPL_(model, suite) /* model may be a macro (OMP_MODEL) */
#define PP_SUITE_IMPL_(model, suite)                                                                         \
    extern const struct pp_suite_impl model##_##suite##_impl __attribute__((visibility("hidden")));          \
    __attribute__((used, section("pp_suites_" #model)))                                                      \
    const struct pp_suite_impl *const model##_##suite##_impl_ref = &model##_##suite##_impl;                  \
    const struct pp_suite_impl model##_##suite##_impl

/* The state slot of model's implementation of suite, for the suite's file in that model: the state is a T,
 * private to the file, kept in the context's slots (slots: an expression of ctx, the context's struct
 * pp_suite_slots: ctx->suites, opencl_ctx(ctx)->suites), created zeroed by the suite's alloc and freed at
 * the context's close. Use at file scope, before the functions that use it; it declares the impl (defined
 * further on with PP_SUITE_IMPL, whose .release is slot_close) and defines:
 *     T *slot_get(ctx)        the state, NULL before the first alloc (takes no slot);
 *     T *slot_new(ctx)        the state, created at the first call; NULL when out of memory or slots;
 *     void slot_close(ctx)    release(ctx) (what alloc took; the file's ops' release, defined below), then
 *                             the state itself: the impl's release, which the context's close calls.
 * C and C++ (the CUDA files use it). */
#define PP_SUITE_SLOT(model, suite, T, slots, release) PP_SUITE_SLOT_(model, suite, T, slots, release)
#define PP_SUITE_SLOT_(model, suite, T, slots, release)                                                      \
    extern const struct pp_suite_impl model##_##suite##_impl __attribute__((visibility("hidden")));          \
    static void release(struct pp_ctx *ctx);                                                                 \
    static inline T *slot_get(struct pp_ctx *ctx)                                                            \
    {                                                                                                        \
        return (T *)pp_suite_state_get(&(slots), &model##_##suite##_impl);                                   \
    }                                                                                                        \
    static inline T *slot_new(struct pp_ctx *ctx)                                                            \
    {                                                                                                        \
        return (T *)pp_suite_state_new(&(slots), &model##_##suite##_impl, sizeof(T));                        \
    }                                                                                                        \
    static void slot_close(struct pp_ctx *ctx)                                                               \
    {                                                                                                        \
        void **state = pp_suite_state(&(slots), &model##_##suite##_impl);                                    \
        release(ctx);                                                                                        \
        free(*state);                                                                                        \
        *state = NULL;                                                                                       \
    }

/* The function k instantiated for prec (k##_fp32 or k##_fp64: kernels/precisions.h), called with the rest. */
#define PP_BY_PRECISION(prec, k, ...) ((prec) == PP_FP32 ? k##_fp32(__VA_ARGS__) : k##_fp64(__VA_ARGS__))

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
