/*
 * staggered: the MILC staggered Dslash suite driver. Runs on the thread that calls staggered_run; owns the
 * host fields and the timing series it allocates (the series is freed by staggered_result_release), borrows
 * the backend context.
 *
 * Order (docs/METHODOLOGY.md): generate the fat and long links and the colour vector from the seed on the
 * full lattice; pack them into the canonical arrays of struct pp_staggered_ops (per output site its 16
 * matrices, the backward ones as stored adjoints, the even-site vector, the neighbour table); upload; one
 * warm-up application, then `runs` samples of `iterations` applications each; download; check every component
 * of every odd site against staggered_ref, which works from the unpacked full-lattice fields.
 */
#include "staggered.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/fielddump.h"
#include "kernels/lattice.h"
#include "kernels/staggered/model.h"
#include "kernels/staggered/staggered_ref.h"
#include "lib/clock.h"

static const char *const strategy_names[PP_STAG_NSTRATEGIES] = {"1lp",   "2lp",   "3lp-1", "3lp-2", "3lp-3",
                                                                "4lp-1", "4lp-2", "site",  "simd"};
static const char *const order_names[PP_NORDERS] = {"none", "k", "i", "l"};

/* Per term l of the canonical arrays: the displacement along k (x + k, x + 3k, x - k, x - 3k). */
static const int term_step[4] = {+1, +3, -1, -3};

void staggered_params_default(struct staggered_params *p)
{
    memset(p, 0, sizeof(*p));
    p->runs = STAGGERED_DEFAULT_RUNS;
    p->iterations = STAGGERED_DEFAULT_ITERATIONS;
    p->prec = PP_FP64;
    p->variant.strategy = PP_STAG_NSTRATEGIES;
    p->variant.order = PP_NORDERS;
    p->timing = STAGGERED_TIMING_MEAN;
    p->seed = STAGGERED_DEFAULT_SEED;
}

const char *staggered_strategy_name(enum pp_staggered_strategy s)
{
    return (unsigned)s < PP_STAG_NSTRATEGIES ? strategy_names[s] : "?";
}

const char *staggered_order_name(enum pp_staggered_order o)
{
    return (unsigned)o < PP_NORDERS ? order_names[o] : "?";
}

/* "a, b, c": the names whose bit is set in mask. */
static void names_of(unsigned mask, const char *const *names, int count, char *out, size_t size)
{
    size_t used = 0;

    out[0] = '\0';
    for (int i = 0; i < count; i++)
        if (mask & (1u << i))
            used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%s%s", used ? ", " : "",
                                     names[i]);
}

/* The index of s in names[0..count), or -1. */
static int name_index(const char *s, const char *const *names, int count)
{
    for (int i = 0; i < count; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

int staggered_strategy_parse(const char *s, enum pp_staggered_strategy *out, struct pp_error *err)
{
    int i = name_index(s, strategy_names, PP_STAG_NSTRATEGIES);
    char all[128];

    if (i >= 0) {
        *out = (enum pp_staggered_strategy)i;
        return 0;
    }
    names_of(~0u, strategy_names, PP_STAG_NSTRATEGIES, all, sizeof(all));
    return pp_error_set(err, "unknown strategy \"%s\" (staggered has: %s)", s, all);
}

int staggered_order_parse(const char *s, enum pp_staggered_order *out, struct pp_error *err)
{
    int i = name_index(s, order_names, PP_NORDERS);
    char all[64];

    if (i >= 0) {
        *out = (enum pp_staggered_order)i;
        return 0;
    }
    names_of(~0u, order_names, PP_NORDERS, all, sizeof(all));
    return pp_error_set(err, "unknown order \"%s\" (the orders are: %s)", s, all);
}

/* ---- the strategies' rules (paper 001, Sec. III and IV-B) ---- */

/* The orders a strategy has, as a mask of 1u << enum pp_staggered_order, and its default. */
static unsigned orders_of(enum pp_staggered_strategy s)
{
    unsigned items = pp_staggered_items_per_site(s);

    if (s == PP_STAG_4LP_2)
        return 1u << PP_ORDER_L | 1u << PP_ORDER_I;
    return items >= 12 ? 1u << PP_ORDER_K | 1u << PP_ORDER_I : 1u << PP_ORDER_NONE;
}

static enum pp_staggered_order default_order(enum pp_staggered_strategy s)
{
    if (s == PP_STAG_4LP_2)
        return PP_ORDER_L;
    return pp_staggered_items_per_site(s) >= 12 ? PP_ORDER_K : PP_ORDER_NONE;
}

static int resolve_strategy(struct pp_staggered_variant *v, const struct pp_backend *b,
                            const struct pp_device *dev, struct pp_error *err)
{
    const struct pp_staggered_ops *ops = pp_backend_ops(b, "staggered");
    unsigned have = ops->strategies;
    char names[128];

    if (v->strategy == PP_STAG_NSTRATEGIES) {
        if (dev->kind == PP_DEVICE_CPU && (have & 1u << PP_STAG_SITE))
            v->strategy = PP_STAG_SITE;
        else if (have & 1u << PP_STAG_3LP_1)
            v->strategy = PP_STAG_3LP_1;
        else
            for (int s = PP_STAG_NSTRATEGIES - 1; s >= 0; s--)
                if (have & 1u << s)
                    v->strategy = (enum pp_staggered_strategy)s;
    }
    if ((unsigned)v->strategy >= PP_STAG_NSTRATEGIES)
        return pp_error_set(err, "strategy %d out of range", (int)v->strategy);
    if (!(have & 1u << v->strategy)) {
        names_of(have, strategy_names, PP_STAG_NSTRATEGIES, names, sizeof(names));
        return pp_error_set(err, "model %s has no strategy %s (it has: %s)", b->name,
                            strategy_names[v->strategy], names);
    }
    if (v->order == PP_NORDERS)
        v->order = default_order(v->strategy);
    if ((unsigned)v->order >= PP_NORDERS || !(orders_of(v->strategy) & 1u << v->order)) {
        names_of(orders_of(v->strategy), order_names, PP_NORDERS, names, sizeof(names));
        return pp_error_set(err, "strategy %s has no order %s (it has: %s)", strategy_names[v->strategy],
                            staggered_order_name(v->order), names);
    }
    return 0;
}

static int resolve_work_group(struct pp_staggered_variant *v, size_t n, struct pp_error *err)
{
    unsigned items = pp_staggered_items_per_site(v->strategy),
             m = pp_staggered_group_multiple(v->strategy, v->order);
    size_t global = n * items;

    if (items == 0) {
        if (v->work_group != 0)
            return pp_error_set(err,
                                "work-group size %u given for strategy %s, a CPU loop without work-groups",
                                v->work_group, strategy_names[v->strategy]);
        return 0;
    }
    if (v->work_group != 0) {
        if (v->work_group % m)
            return pp_error_set(err, "work-group size %u for strategy %s (order %s) must be a multiple of %u",
                                v->work_group, strategy_names[v->strategy], order_names[v->order], m);
        if (global % v->work_group)
            return pp_error_set(err,
                                "work-group size %u does not divide the global size %zu (%zu sites x %u "
                                "work-items of strategy %s)",
                                v->work_group, global, n, items, strategy_names[v->strategy]);
        return 0;
    }
    v->work_group = pp_staggered_default_work_group(v->strategy, v->order, global, 1024);
    v->work_group_auto = true;
    if (v->work_group)
        return 0;
    return pp_error_set(err, "no work-group size for strategy %s divides the global size %zu",
                        strategy_names[v->strategy], global);
}

/* Host bytes per lattice site while a run holds its fields (doubles): fat 72, long 72, vector 6, packed
 * links 144, even vector 3, output 3, reference 6, scale 1; neighbour table 32. */
#define HOST_BYTES_PER_SITE (307.0 * 8 + 32)

/* Device bytes per output site: 16 links (8 fat, 8 long), the even vector (6 reals) and the output (6); 16
 * neighbours. */
static double device_bytes_per_output_site(enum pp_precision prec)
{
    return (16.0 * 18 + 12) * (double)pp_precision_bytes(prec) + 64.0;
}

double staggered_working_set(const struct staggered_params *p)
{
    return (double)lattice_volume(p->dims) / 2 * device_bytes_per_output_site(p->prec);
}

int staggered_resolve(struct staggered_params *p, const struct pp_backend *b, const struct pp_device *dev,
                      struct pp_error *err)
{
    if (!pp_backend_ops(b, "staggered"))
        return pp_error_set(err, "model %s has no staggered suite", b->name);
    if (lattice_resolve(p->dims, dev, device_bytes_per_output_site(p->prec) / 2, err))
        return -1;
    if (p->runs < 1)
        return pp_error_set(err, "runs must be at least 1, got %u", p->runs);
    if (p->iterations < 1)
        return pp_error_set(err, "iterations must be at least 1, got %u", p->iterations);
    if (p->prec != PP_FP64 && p->prec != PP_FP32)
        return pp_error_set(err, "precision %d out of range", (int)p->prec);
    if (p->prec == PP_FP64 && !dev->fp64)
        return pp_error_set(err, "device %s does not support fp64", dev->name);
    if (resolve_strategy(&p->variant, b, dev, err) ||
        resolve_work_group(&p->variant, lattice_volume(p->dims) / 2, err))
        return -1;
    return lattice_check_memory(p->dims, dev, device_bytes_per_output_site(p->prec), HOST_BYTES_PER_SITE,
                                err);
}

/* ---- fields ---- */

void staggered_random_fields(const unsigned dims[4], uint64_t seed, double *fat, double *lng, double *vec)
{
    size_t volume = lattice_volume(dims);
    uint64_t state = seed;

    lattice_random_su3_fill(&state, fat, volume * 4);
    lattice_random_su3_fill(&state, lng, volume * 4);
    lattice_random_fill(&state, vec, volume * 6);
}

/* dst = src^dagger, 3x3 complex */
static void adjoint(const double *src, double *dst)
{
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            dst[(a * 3 + b) * 2] = src[(b * 3 + a) * 2];
            dst[(a * 3 + b) * 2 + 1] = -src[(b * 3 + a) * 2 + 1];
        }
}

/* The canonical arrays of struct pp_staggered_ops from the full-lattice fields; the checkerboard index of
 * site s is s / 2 (kernels/lattice.h). */
static void pack(const unsigned dims[4], const double *fat, const double *lng, const double *vec,
                 double *links, double *even, uint32_t *nbr)
{
    size_t volume = lattice_volume(dims), n = volume / 2;

#pragma omp parallel for schedule(static)
    for (size_t s = 0; s < volume; s++) {
        unsigned c[4];
        size_t i = s / 2;

        lattice_coords(dims, s, c);
        if (lattice_parity(c) == 0) {
            memcpy(&even[i * 6], &vec[s * 6], 6 * sizeof(double));
            continue;
        }
        for (int l = 0; l < 4; l++)
            for (int k = 0; k < 4; k++) {
                size_t nb = lattice_shift(dims, s, k, term_step[l]);
                double *dst = &links[((l * n + i) * 4 + (size_t)k) * 18];
                const double *field = (l & 1) ? lng : fat;

                if (l < 2)
                    memcpy(dst, &field[(s * 4 + (size_t)k) * 18], 18 * sizeof(double));
                else
                    adjoint(&field[(nb * 4 + (size_t)k) * 18], dst);
                nbr[(size_t)(l * 4 + k) * n + i] = (uint32_t)(nb / 2);
            }
    }
}

struct fields {
    size_t volume, n;
    double *fat, *lng, *vec; /* full lattice */
    double *links, *even;    /* packed */
    uint32_t *nbr;
    double *out;      /* n sites from the device: the last timed sample's output */
    double *out_warm; /* the warm-up's output */
};

static void fields_release(struct fields *f)
{
    free(f->fat);
    free(f->lng);
    free(f->vec);
    free(f->links);
    free(f->even);
    free(f->nbr);
    free(f->out);
    free(f->out_warm);
    memset(f, 0, sizeof(*f));
}

static int fields_alloc(struct fields *f, const unsigned dims[4], bool full, struct pp_error *err)
{
    memset(f, 0, sizeof(*f));
    f->volume = lattice_volume(dims);
    f->n = f->volume / 2;
    if (full) {
        f->fat = malloc(f->volume * 72 * sizeof(double));
        f->lng = malloc(f->volume * 72 * sizeof(double));
        f->vec = malloc(f->volume * 6 * sizeof(double));
    }
    f->links = malloc(f->n * 288 * sizeof(double));
    f->even = malloc(f->n * 6 * sizeof(double));
    f->nbr = malloc(f->n * 16 * sizeof(uint32_t));
    f->out = malloc(f->n * 6 * sizeof(double));
    f->out_warm = malloc(f->n * 6 * sizeof(double));
    if ((full && (!f->fat || !f->lng || !f->vec)) || !f->links || !f->even || !f->nbr || !f->out ||
        !f->out_warm) {
        fields_release(f);
        return pp_error_set(err, "out of host memory for the fields of %zu sites", f->volume);
    }
    return 0;
}

int staggered_apply(const struct pp_backend *b, struct pp_ctx *ctx, const struct staggered_params *p,
                    const double *fat, const double *lng, const double *vec, double *out,
                    struct pp_error *err)
{
    const struct pp_staggered_ops *ops = pp_backend_ops(b, "staggered");
    struct pp_staggered_variant variant = p->variant;
    struct fields f;
    int rc = -1;

    if (!ops)
        return pp_error_set(err, "model %s has no staggered suite", b->name);
    if (fields_alloc(&f, p->dims, false, err))
        return -1;
    pack(p->dims, fat, lng, vec, f.links, f.even, f.nbr);
    if (ops->alloc(ctx, f.n, p->dims, p->prec, &variant, err))
        goto out;
    if (ops->upload(ctx, f.links, f.even, f.nbr, err) || ops->dslash(ctx, 1, err) ||
        ops->download(ctx, f.out, err))
        goto out_release;
    lattice_unpack_odd(p->dims, 6, f.out, out);
    rc = 0;
out_release:
    ops->release(ctx);
out:
    fields_release(&f);
    return rc;
}

/* The test-only dump (kernels/fielddump.h), whatever verification found: the fields as generated and both
 * outputs as read back, for the second reference (tests/ref/dslash.py). */
static int dump(const struct staggered_params *p, const struct pp_backend *b, const struct fields *f,
                struct pp_error *err)
{
    const char *dir = fielddump_dir();
    const struct fielddump_array arrays[] = {
        {"fat", f->fat, true, 4, {4, 3, 3, 2}},        /* U: [t][z][y][x][k][i][j][re, im] */
        {"long", f->lng, true, 4, {4, 3, 3, 2}},       /* W, the same */
        {"b", f->vec, true, 2, {3, 2}},                /* [t][z][y][x][colour][re, im] */
        {"out", f->out, false, 2, {3, 2}},             /* the last run's, [odd site s / 2][colour][re, im] */
        {"out_warmup", f->out_warm, false, 2, {3, 2}}, /* the warm-up's */
    };

    return dir ? fielddump_write(dir, "staggered", b->name, p->dims, p->prec, p->seed, arrays,
                                 sizeof(arrays) / sizeof(arrays[0]), err)
               : 0;
}

/* Returns -1 only when the host cannot hold the reference (a runtime failure, not a failed check). */
static int verify(struct staggered_result *res, const struct fields *f, struct pp_error *err)
{
    const struct staggered_params *p = &res->params;
    double *ref = malloc(f->volume * 6 * sizeof(double)), *scale = malloc(f->volume * sizeof(double));
    struct lattice_check check, warm;
    int rc = -1;

    if (!ref || !scale) {
        pp_error_set(err, "out of host memory for the reference of %zu sites", f->volume);
        goto out;
    }
    staggered_ref_dslash(p->dims, 1, f->fat, f->lng, f->vec, ref, scale);
    /* the warm-up's output, then the last timed sample's; each was poisoned before its sample */
    lattice_check_odd(p->dims, 6, p->prec, f->out_warm, ref, scale, &warm);
    lattice_check_odd(p->dims, 6, p->prec, f->out, ref, scale, &check);
    lattice_check_samples(&warm, &check, &res->dslash);
    rc = 0;
out:
    free(ref);
    free(scale);
    return rc;
}

int staggered_run(const struct pp_backend *b, struct pp_ctx *ctx, const struct staggered_params *p,
                  struct staggered_result *res, struct pp_error *err)
{
    const struct pp_staggered_ops *ops = pp_backend_ops(b, "staggered");
    /* The paper's timing rule: one warm-up application, then runs samples of iterations applications each,
     * the rates from the mean (or the best). The output is poisoned (NaN) before the warm-up and before the
     * last sample, outside the timed region, and the warm-up's output is read back, so that verification sees
     * both (a site no application of a sample writes fails). */
    const struct sample_rule rule = {.samples = p->runs,
                                     .iterations = p->iterations,
                                     .warmup_apart = true,
                                     .stats = p->timing == STAGGERED_TIMING_BEST ? STATS_BEST : STATS_MEAN,
                                     .poison = SAMPLE_POISON_WARMUP | SAMPLE_POISON_LAST};
    struct sample_progress progress = {.fn = p->progress, .arg = p->progress_arg, .total = p->runs};
    struct lattice_calls calls;
    struct sample_kernel k;
    struct suite_model m;
    struct fields f;
    double t0;
    int rc = -1, allocated = 0;

    memset(res, 0, sizeof(*res));
    res->params = *p;
    res->variant = p->variant;
    if (!ops)
        return pp_error_set(err, "model %s has no staggered suite", b->name);
    if (p->runs == 0 || p->iterations == 0 || p->variant.strategy >= PP_STAG_NSTRATEGIES)
        return pp_error_set(err, "staggered_run: parameters not resolved (staggered_resolve first)");
    if (fields_alloc(&f, p->dims, true, err))
        return -1;
    res->sites = f.volume;
    res->out_sites = f.n;
    res->dslash.name = "dslash";
    staggered_model(p->dims, p->prec, &m);
    res->dslash.flops = m.flops;
    res->dslash.bytes = m.bytes;
    res->dslash.bytes_compulsory = m.bytes_compulsory;
    staggered_random_fields(p->dims, p->seed, f.fat, f.lng, f.vec);
    pack(p->dims, f.fat, f.lng, f.vec, f.links, f.even, f.nbr);
    /* the test hook: the fat link U_x(x) of an output site (term l = 0), its x + 1 neighbour */
    lattice_plant_fault(f.n, f.links, 72, f.nbr);

    if (ops->alloc(ctx, f.n, p->dims, p->prec, &res->variant, err))
        goto out;
    allocated = 1;
    t0 = clock_now();
    if (ops->upload(ctx, f.links, f.even, f.nbr, err))
        goto out;
    res->init_seconds = clock_now() - t0;
    calls = (struct lattice_calls){ctx, ops->dslash, ops->poison, ops->download, f.out_warm};
    k = lattice_sample_kernel(&calls, &res->dslash);
    if (sample_run(&rule, &k, 1, &progress, &res->warmup_seconds, err))
        goto out;
    t0 = clock_now();
    if (ops->download(ctx, f.out, err))
        goto out;
    res->read_seconds = clock_now() - t0;
    if (verify(res, &f, err) || dump(p, b, &f, err))
        goto out;
    rc = 0;
out:
    if (allocated)
        ops->release(ctx);
    fields_release(&f);
    return rc;
}

void staggered_result_release(struct staggered_result *res)
{
    sample_kernel_release(&res->dslash);
}
