/*
 * hacc: the HACC suite driver. Runs on the thread that calls hacc_run; owns the host problem, reference and
 * timing series it allocates (the series until hacc_result_release), borrows the model's context and its ops
 * (pp_backend_ops(b, "hacc")).
 *
 * Run order (docs/METHODOLOGY.md): for each selected kernel in the order gravity, sph, numtimes samples,
 * each one application over every leaf pair, timed alone with the host's monotonic clock (times[0] is the
 * warm-up); the kernels accumulate, so the outputs are set to zero before every sample (untimed): no value of
 * an earlier sample survives into the one verified, the last. Then, untimed: the reference, the checks, and
 * one more application on the particles translated by PP_HACC_SHIFT, checked against the same reference.
 */
#include "hacc.h"

#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/hacc/hacc_ref.h"
#include "kernels/hacc/model.h"
#include "lib/clock.h"

static const char *const kernel_names[PP_HACC_NKERNELS] = {"gravity", "sph"};
static const char *const variant_names[PP_HACC_NVARIANTS] = {"select",    "memory-32", "memory-object",
                                                             "broadcast", "scalar",    "simd"};

const char *hacc_kernel_name(enum pp_hacc_kernel k)
{
    return (unsigned)k < PP_HACC_NKERNELS ? kernel_names[k] : "?";
}

const char *hacc_variant_name(enum pp_hacc_variant v)
{
    return (unsigned)v < PP_HACC_NVARIANTS ? variant_names[v] : "?";
}

int hacc_variant_parse(const char *name)
{
    for (int v = 0; v < PP_HACC_NVARIANTS; v++)
        if (strcmp(name, variant_names[v]) == 0)
            return v;
    return -1;
}

void hacc_params_default(struct hacc_params *p)
{
    memset(p, 0, sizeof(*p));
    p->leaf_size = HACC_DEFAULT_LEAF_SIZE;
    p->numtimes = HACC_DEFAULT_NUMTIMES;
    p->prec = PP_FP32;
    p->kernels = HACC_ALL_KERNELS;
    p->variant = -1;
}

/* ---- models ---- */

double hacc_working_set(unsigned leaf_size, size_t pairs, enum pp_precision prec)
{
    const unsigned g = hacc_grid_for(pairs);
    const double particles = (double)g * g * g * leaf_size;

    return particles * (PP_HACC_NIN + PP_HACC_NOUT) * (double)pp_precision_bytes(prec) + 8.0 * (double)pairs;
}

/* ---- resolve ---- */

int hacc_resolve(struct hacc_params *p, const struct pp_device *dev, struct pp_error *err)
{
    const struct pp_hacc_ops *ops = dev->backend ? pp_backend_ops(dev->backend, "hacc") : NULL;
    const char *model = dev->backend ? dev->backend->name : "?";
    const bool cpu = dev->kind == PP_DEVICE_CPU;
    double bytes;
    char have[128] = "";

    if (!ops)
        return pp_error_set(err, "model %s has no hacc suite", model);
    if (p->leaf_size < PP_HACC_HALF || p->leaf_size > HACC_MAX_LEAF_SIZE || p->leaf_size % PP_HACC_HALF)
        return pp_error_set(err, "leaf_size must be a multiple of %d from %d to %u, got %u", PP_HACC_HALF,
                            PP_HACC_HALF, HACC_MAX_LEAF_SIZE, p->leaf_size);
    /* Not grown with the last-level cache as the memory-bound suites' CPU defaults are: hacc is compute-bound
     * (its suite table entry), its leaves are meant to sit in cache, and more pairs only lengthen the run. */
    if (p->leaf_pairs == 0)
        p->leaf_pairs = cpu ? HACC_DEFAULT_PAIRS_CPU : HACC_DEFAULT_PAIRS_GPU;
    if (p->leaf_pairs > HACC_MAX_PAIRS)
        return pp_error_set(err, "leaf_pairs must be from 1 to %u, got %u", HACC_MAX_PAIRS, p->leaf_pairs);
    if (p->numtimes < 2)
        return pp_error_set(err, "numtimes must be at least 2 (the first sample is warm-up), got %u",
                            p->numtimes);
    if ((p->kernels & HACC_ALL_KERNELS) == 0)
        return pp_error_set(err, "no kernel selected");
    if (p->prec == PP_FP64 && !dev->fp64)
        return pp_error_set(err, "device %s does not support fp64 (precision fp32)", dev->name);
    if (p->variant < 0) {
        if (!strcmp(model, "openmp") || !strcmp(model, "omp-target"))
            p->variant = PP_HACC_SIMD;
        else if (!strcmp(model, "cuda"))
            p->variant = PP_HACC_SELECT;
        else
            p->variant = cpu ? PP_HACC_BROADCAST : PP_HACC_MEMORY_OBJECT;
    }
    if (p->variant >= PP_HACC_NVARIANTS || !(ops->variants & (1u << p->variant))) {
        for (int v = 0; v < PP_HACC_NVARIANTS; v++)
            if (ops->variants & (1u << v))
                snprintf(have + strlen(have), sizeof(have) - strlen(have), "%s%s", *have ? ", " : "",
                         variant_names[v]);
        return pp_error_set(err, "model %s has no variant %s (it has: %s)", model,
                            hacc_variant_name((enum pp_hacc_variant)p->variant), have);
    }
    bytes = hacc_working_set(p->leaf_size, p->leaf_pairs, p->prec);
    if (cpu) { /* the host's problem, reference and read-back beside the model's arrays */
        const unsigned g = hacc_grid_for(p->leaf_pairs);
        bytes += (double)g * g * g * p->leaf_size * (PP_HACC_NIN + 3 * PP_HACC_NOUT + 2) * 8.0;
    }
    if (dev->mem_bytes && bytes > (double)dev->mem_bytes)
        return pp_error_set(
            err, "leaf_pairs %u of leaf_size %u do not fit: %.1f GB needed, the device has %.1f GB",
            p->leaf_pairs, p->leaf_size, bytes * 1e-9, (double)dev->mem_bytes * 1e-9);
    return 0;
}

/* ---- verification ---- */

struct host {
    struct hacc_problem prob;
    double *ref[PP_HACC_NOUT], *got[PP_HACC_NOUT], *scale_acc, *scale_du, *shifted[3];
    uint32_t *pairs; /* what is uploaded: the problem's pairs, or a faulty copy */
};

static void host_release(struct host *h)
{
    hacc_problem_release(&h->prob);
    for (int o = 0; o < PP_HACC_NOUT; o++) {
        free(h->ref[o]);
        free(h->got[o]);
    }
    for (int c = 0; c < 3; c++)
        free(h->shifted[c]);
    free(h->scale_acc);
    free(h->scale_du);
    free(h->pairs);
    memset(h, 0, sizeof(*h));
}

/* The worst particle of got against the reference: |a - a_ref| / scale (and the energy rate's). */
static double worst_error(const struct host *h, enum pp_hacc_kernel k, size_t *at, const char **what)
{
    double worst = 0;

    *at = 0;
    *what = "acceleration";
    for (size_t i = 0; i < h->prob.nparticles; i++) {
        double d2 = 0, e;
        for (int c = 0; c < 3; c++)
            d2 += (h->got[c][i] - h->ref[c][i]) * (h->got[c][i] - h->ref[c][i]);
        e = sqrt(d2) / (h->scale_acc[i] > 0 ? h->scale_acc[i] : DBL_MIN);
        if (isnan(e))
            e = INFINITY;
        if (e > worst) {
            worst = e;
            *at = i;
            *what = "acceleration";
        }
        if (k == PP_HACC_SPH) {
            e = fabs(h->got[PP_HACC_DU][i] - h->ref[PP_HACC_DU][i]) /
                (h->scale_du[i] > 0 ? h->scale_du[i] : DBL_MIN);
            if (isnan(e))
                e = INFINITY;
            if (e > worst) {
                worst = e;
                *at = i;
                *what = "energy rate";
            }
        }
    }
    return worst;
}

static void check_outputs(struct suite_kernel *kr, struct hacc_kernel_figures *fig, const struct host *h,
                          enum pp_hacc_kernel k, bool translated)
{
    const char *what;
    size_t i;
    double e = worst_error(h, k, &i, &what);

    if (translated)
        fig->translation = e;
    else
        kr->max_rel_err = e;
    if (!(e <= kr->tolerance))
        sample_fail(
            kr, kr->max_rel_err, kr->tolerance,
            "%s%s: particle %zu (leaf %zu): %s (%.9g, %.9g, %.9g), expected (%.9g, %.9g, %.9g): error "
            "%.3g of its scale > %.3g",
            hacc_kernel_name(k), translated ? " translated" : "", i, i / h->prob.leaf_size, what,
            h->got[what[0] == 'e' ? 3 : 0][i], h->got[1][i], h->got[2][i], h->ref[what[0] == 'e' ? 3 : 0][i],
            h->ref[1][i], h->ref[2][i], e, kr->tolerance);
}

/* Newton's third law: sum m a = 0; sph also conserves energy: sum m (du + v.a) = 0. */
static void check_conservation(struct suite_kernel *kr, struct hacc_kernel_figures *fig, const struct host *h,
                               enum pp_hacc_kernel k)
{
    const struct hacc_problem *p = &h->prob;
    double mom[3] = {0, 0, 0}, mom_scale = 0, en = 0, en_scale = 0, m;

    for (size_t i = 0; i < p->nparticles; i++) {
        double v2 = 0;
        m = p->in[PP_HACC_MASS][i];
        for (int c = 0; c < 3; c++) {
            mom[c] += m * h->got[c][i];
            en += m * p->in[PP_HACC_VX + c][i] * h->got[c][i];
            v2 += p->in[PP_HACC_VX + c][i] * p->in[PP_HACC_VX + c][i];
        }
        en += m * h->got[PP_HACC_DU][i];
        mom_scale += m * h->scale_acc[i];
        en_scale += m * (h->scale_du[i] + sqrt(v2) * h->scale_acc[i]);
    }
    fig->momentum =
        sqrt(mom[0] * mom[0] + mom[1] * mom[1] + mom[2] * mom[2]) / (mom_scale > 0 ? mom_scale : 1);
    if (isnan(fig->momentum))
        fig->momentum = INFINITY;
    if (!(fig->momentum <= kr->tolerance))
        sample_fail(kr, kr->max_rel_err, kr->tolerance,
                    "%s: total momentum (%.6g, %.6g, %.6g) is not zero: %.3g of its scale > %.3g",
                    hacc_kernel_name(k), mom[0], mom[1], mom[2], fig->momentum, kr->tolerance);
    if (k != PP_HACC_SPH)
        return;
    fig->energy = fabs(en) / (en_scale > 0 ? en_scale : 1);
    if (isnan(fig->energy))
        fig->energy = INFINITY;
    if (!(fig->energy <= kr->tolerance))
        sample_fail(kr, kr->max_rel_err, kr->tolerance,
                    "sph: total energy rate %.6g is not zero: %.3g of its scale > %.3g", en, fig->energy,
                    kr->tolerance);
}

/* Test-only hook (docs/METHODOLOGY.md): PPBENCH_TEST_FAULT=skip[:<pair>] uploads that pair (default the
 * middle one) with its second leaf replaced by a leaf beyond reach, so the pair's interactions are missing;
 * sign[:<particle>] uploads that particle's mass negated (default the first of the middle pair's first
 * leaf); crash raises SIGSEGV. The reference keeps the true problem. Returns the particle whose mass to
 * negate, or SIZE_MAX. */
static size_t plant_fault(struct host *h)
{
    const char *spec = getenv("PPBENCH_TEST_FAULT");
    const struct hacc_problem *p = &h->prob;
    size_t len, at;

    if (!spec || !*spec)
        return SIZE_MAX;
    if (!strcmp(spec, "crash"))
        raise(SIGSEGV);
    len = strcspn(spec, ":");
    if (len == 4 && !strncmp(spec, "skip", 4)) {
        at = spec[len] == ':' ? strtoull(spec + len + 1, NULL, 10) : p->npairs / 2;
        at = at < p->npairs ? at : p->npairs - 1;
        h->pairs[2 * at + 1] = hacc_far_leaf(p, h->pairs[2 * at]);
    } else if (len == 4 && !strncmp(spec, "sign", 4)) {
        at = spec[len] == ':' ? strtoull(spec + len + 1, NULL, 10)
                              : (size_t)p->pairs[2 * (p->npairs / 2)] * p->leaf_size;
        return at < p->nparticles ? at : p->nparticles - 1;
    }
    return SIZE_MAX;
}

static int host_build(struct host *h, const struct hacc_params *p, struct pp_error *err)
{
    size_t n;

    if (hacc_problem_build(&h->prob, p->leaf_size, p->leaf_pairs, p->prec, err))
        return -1;
    n = h->prob.nparticles;
    for (int o = 0; o < PP_HACC_NOUT; o++)
        if (!(h->ref[o] = malloc(n * sizeof(double))) || !(h->got[o] = malloc(n * sizeof(double))))
            goto oom;
    for (int c = 0; c < 3; c++)
        if (!(h->shifted[c] = malloc(n * sizeof(double))))
            goto oom;
    if (!(h->scale_acc = malloc(n * sizeof(double))) || !(h->scale_du = malloc(n * sizeof(double))) ||
        !(h->pairs = malloc(2 * h->prob.npairs * sizeof(uint32_t))))
        goto oom;
    memcpy(h->pairs, h->prob.pairs, 2 * h->prob.npairs * sizeof(uint32_t));
    for (int c = 0; c < 3; c++)
        for (size_t i = 0; i < n; i++)
            h->shifted[c][i] = h->prob.in[PP_HACC_X + c][i] + PP_HACC_SHIFT[c];
    return 0;
oom:
    return pp_error_set(err, "out of host memory for %zu particles", n);
}

/* Upload the particles (positions translated or not; the faulty mass where planted) and the pairs. */
static int upload(const struct pp_hacc_ops *ops, struct pp_ctx *ctx, struct host *h, bool translated,
                  size_t faulty, bool pairs, struct pp_error *err)
{
    const double *in[PP_HACC_NIN];
    double saved = 0;
    int rc;

    for (int f = 0; f < PP_HACC_NIN; f++)
        in[f] = h->prob.in[f];
    if (translated)
        for (int c = 0; c < 3; c++)
            in[PP_HACC_X + c] = h->shifted[c];
    if (faulty != SIZE_MAX) {
        saved = h->prob.in[PP_HACC_MASS][faulty];
        h->prob.in[PP_HACC_MASS][faulty] = -saved;
    }
    rc = ops->upload(ctx, in, pairs ? h->pairs : NULL, err);
    if (faulty != SIZE_MAX)
        h->prob.in[PP_HACC_MASS][faulty] = saved;
    return rc;
}

struct call {
    const struct pp_hacc_ops *ops;
    struct pp_ctx *ctx;
    enum pp_hacc_kernel kernel;
};

/* The timed unit: one blocking application over every leaf pair. */
static int apply(void *arg, unsigned *applications, double *seconds, struct pp_error *err)
{
    const struct call *c = arg;

    (void)applications, (void)seconds;
    return c->ops->run(c->ctx, c->kernel, err);
}

/* The kernels accumulate: their outputs are zeroed before every sample (this suite's poisoning). */
static int zero(void *arg, struct pp_error *err)
{
    const struct call *c = arg;

    return c->ops->fill(c->ctx, 0.0, err);
}

static int run_kernel(const struct pp_hacc_ops *ops, struct pp_ctx *ctx, struct hacc_result *res,
                      struct host *h, size_t i, size_t faulty, struct sample_progress *progress,
                      struct pp_error *err)
{
    const struct hacc_params *p = &res->params;
    struct suite_kernel *kr = &res->kernels[i];
    struct hacc_kernel_figures *fig = &res->figures[i];
    const char *name = hacc_kernel_name(fig->kernel);
    const struct sample_rule rule = {
        .samples = p->numtimes, .iterations = 1, .stats = STATS_BEST, .poison = SAMPLE_POISON_EVERY};
    struct call call = {ops, ctx, fig->kernel};
    double t0;

    if (sample_run(&rule, &(struct sample_kernel){.out = kr, .apply = apply, .poison = zero, .arg = &call}, 1,
                   progress, NULL, err))
        return -1;
    fig->rate = kr->stats.min > 0 ? fig->interactions / kr->stats.min : 0;
    t0 = clock_now();
    if (ops->download(ctx, h->got, err))
        return pp_error_prefix(err, "%s: read-back", name);
    res->read_seconds += clock_now() - t0;

    t0 = clock_now();
    if (hacc_ref(&h->prob, fig->kernel, h->ref, h->scale_acc, h->scale_du, &res->chain, &fig->inside, err))
        return -1;
    res->reference_seconds += clock_now() - t0;
    /* Each output is a sum of at most chain terms, each with a few roundings; independent rounding errors
     * grow like the square root of the terms summed: 8 (sqrt(chain) + 16) eps, relative to the sum of the
     * terms' magnitudes (docs/METHODOLOGY.md; measured errors are below 1 eps of it). */
    kr->tolerance =
        8.0 * (sqrt((double)res->chain) + 16) * (p->prec == PP_FP32 ? (double)FLT_EPSILON : DBL_EPSILON);
    kr->verified = true;
    check_outputs(kr, fig, h, fig->kernel, false);
    check_conservation(kr, fig, h, fig->kernel);

    /* translation invariance: the same interactions on translated positions (exact in fp32) */
    if (upload(ops, ctx, h, true, faulty, false, err) || ops->fill(ctx, 0.0, err) ||
        ops->run(ctx, fig->kernel, err) || ops->download(ctx, h->got, err) ||
        upload(ops, ctx, h, false, faulty, false, err))
        return pp_error_prefix(err, "%s: translated run", name);
    check_outputs(kr, fig, h, fig->kernel, true);
    return 0;
}

int hacc_run(const struct pp_backend *b, struct pp_ctx *ctx, const struct hacc_params *p,
             struct hacc_result *res, struct pp_error *err)
{
    const struct pp_hacc_ops *ops = pp_backend_ops(b, "hacc");
    struct host h;
    struct sample_progress progress = {.fn = p->progress, .arg = p->progress_arg};
    size_t faulty;
    double t0;
    int rc = -1, allocated = 0;

    memset(res, 0, sizeof(*res));
    memset(&h, 0, sizeof(h));
    res->params = *p;
    if (!ops)
        return pp_error_set(err, "model %s has no hacc suite", b->name);
    if (p->variant < 0 || p->leaf_pairs == 0 || p->numtimes < 2)
        return pp_error_set(err, "hacc parameters not resolved");
    t0 = clock_now();
    if (host_build(&h, p, err))
        goto out;
    res->build_seconds = clock_now() - t0;
    res->grid = h.prob.grid;
    res->nleaves = h.prob.nleaves;
    res->nparticles = h.prob.nparticles;
    res->touched = h.prob.touched;
    for (unsigned k = 0; k < PP_HACC_NKERNELS; k++) {
        struct suite_kernel *kr = &res->kernels[res->nkernels];
        struct hacc_kernel_figures *fig = &res->figures[res->nkernels];
        struct suite_model m;

        if (!(p->kernels & (1u << k)))
            continue;
        res->nkernels++;
        fig->kernel = (enum pp_hacc_kernel)k;
        fig->interactions = hacc_interactions(p->leaf_size, p->leaf_pairs);
        kr->name = kernel_names[k];
        hacc_model(fig->kernel, p->leaf_size, p->leaf_pairs, res->touched, p->prec, &m);
        kr->flops = m.flops;
        kr->bytes = m.bytes;
        kr->bytes_compulsory = m.bytes_compulsory;
        progress.total += p->numtimes;
    }

    if (ops->alloc(ctx, h.prob.nleaves, p->leaf_size, h.prob.npairs, p->prec,
                   (enum pp_hacc_variant)p->variant, &res->launch, err))
        goto out;
    allocated = 1;
    faulty = plant_fault(&h);
    t0 = clock_now();
    if (upload(ops, ctx, &h, false, faulty, true, err))
        goto out;
    res->init_seconds = clock_now() - t0;

    for (size_t i = 0; i < res->nkernels; i++)
        if (run_kernel(ops, ctx, res, &h, i, faulty, &progress, err))
            goto out;
    res->verified = sample_all_verified(res->kernels, res->nkernels);
    rc = 0;
out:
    if (allocated)
        ops->release(ctx);
    host_release(&h);
    if (rc)
        hacc_result_release(res);
    return rc;
}

void hacc_result_release(struct hacc_result *res)
{
    for (size_t i = 0; i < res->nkernels; i++)
        sample_kernel_release(&res->kernels[i]);
    res->nkernels = 0;
}
