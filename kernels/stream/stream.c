/*
 * stream: the STREAM suite driver. Runs on the thread that calls stream_run; owns the host copies of the
 * arrays and the timing series it allocates (freed by stream_result_release), borrows the backend context.
 *
 * Run order (written down in docs/METHODOLOGY.md): numtimes iterations of the selected classic kernels in
 * BabelStream's order copy, mul, add, triad, dot; then numtimes iterations of nstream, which BabelStream runs
 * as a separate benchmark (run after the classic loop, its growth stays linear and fp32 cannot overflow).
 * Each call is blocking and timed alone with the host's monotonic clock; times[0] is the warm-up.
 */
#include "stream.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cpucache.h"
#include "kernels/stream/model.h"
#include "kernels/stream/stream_ref.h"
#include "lib/clock.h"

/* The kernels' names and the array each writes ('a', 'b', 'c'; 0 for dot); their byte and flop models are
 * kernels/stream/model.c's. */
static const struct {
    const char *name;
    char writes;
} kernel_info[STREAM_NKERNELS] = {
    [STREAM_COPY] = {"copy", 'c'},   [STREAM_MUL] = {"mul", 'b'}, [STREAM_ADD] = {"add", 'c'},
    [STREAM_TRIAD] = {"triad", 'a'}, [STREAM_DOT] = {"dot", 0},   [STREAM_NSTREAM] = {"nstream", 'a'},
};

const char *stream_kernel_name(enum stream_kernel k)
{
    return (unsigned)k < STREAM_NKERNELS ? kernel_info[k].name : "?";
}

int stream_kernels_parse(const char *list, unsigned *mask, struct pp_error *err)
{
    const char *p = list;

    *mask = 0;
    while (*p) {
        size_t len = strcspn(p, ",");
        unsigned k;

        if (len == 0)
            return pp_error_set(err, "empty kernel name in \"%s\"", list);

        for (k = 0; k < STREAM_NKERNELS; k++)
            if (strlen(kernel_info[k].name) == len && strncmp(p, kernel_info[k].name, len) == 0)
                break;
        if (k == STREAM_NKERNELS)
            return pp_error_set(
                err, "unknown kernel \"%.*s\" (stream has copy, mul, add, triad, dot, nstream)", (int)len, p);
        *mask |= 1u << k;
        p += len;
        if (*p == ',')
            p++;
    }
    if (*mask == 0)
        return pp_error_set(err, "no kernel selected");
    return 0;
}

void stream_params_default(struct stream_params *p)
{
    memset(p, 0, sizeof(*p));
    p->n = STREAM_DEFAULT_N;
    p->numtimes = STREAM_DEFAULT_NUMTIMES;
    p->prec = PP_FP64;
    p->kernels = STREAM_ALL_KERNELS;
}

double stream_footprint(const struct stream_params *p)
{
    return 3.0 * (double)p->n * (double)pp_precision_bytes(p->prec);
}

size_t stream_default_n(const struct pp_device *dev, enum pp_precision prec)
{
    size_t n = STREAM_DEFAULT_N;

    while (cpucache_default_too_small(dev, 3.0 * (double)n * (double)pp_precision_bytes(prec)) &&
           n < STREAM_MAX_DEFAULT_N)
        n *= 2;
    return n;
}

int stream_resolve(struct stream_params *p, const struct pp_device *dev, struct pp_error *err)
{
    if (p->n == 0)
        p->n = stream_default_n(dev, p->prec);
    return stream_check(p, dev, err);
}

int stream_check(const struct stream_params *p, const struct pp_device *dev, struct pp_error *err)
{
    double array = (double)p->n * (double)pp_precision_bytes(p->prec);

    if (p->numtimes < 2)
        return pp_error_set(err, "numtimes must be at least 2 (the first iteration is warm-up), got %u",
                            p->numtimes);
    if (p->n == 0)
        return pp_error_set(err, "array size must be at least 1");
    if ((p->kernels & STREAM_ALL_KERNELS) == 0)
        return pp_error_set(err, "no kernel selected");
    if (p->prec == PP_FP64 && !dev->fp64)
        return pp_error_set(err, "device %s does not support fp64 (use --float)", dev->name);
    if (dev->mem_bytes && stream_footprint(p) > (double)dev->mem_bytes)
        return pp_error_set(
            err,
            "array size %zu does not fit: 3 arrays of %zu %s elements need %.1f MB, the device "
            "has %.1f MB",
            p->n, p->n, pp_precision_name(p->prec), stream_footprint(p) * 1e-6,
            (double)dev->mem_bytes * 1e-6);
    if (dev->max_alloc_bytes && array > (double)dev->max_alloc_bytes)
        return pp_error_set(err,
                            "array size %zu does not fit: one array needs %.1f MB, the device's largest "
                            "allocation is %.1f MB",
                            p->n, array * 1e-6, (double)dev->max_alloc_bytes * 1e-6);
    return 0;
}

static int call_kernel(const struct pp_stream_ops *ops, struct pp_ctx *ctx, enum stream_kernel k, double *sum,
                       struct pp_error *err)
{
    switch (k) {
    case STREAM_COPY:
        return ops->copy(ctx, err);
    case STREAM_MUL:
        return ops->mul(ctx, STREAM_SCALAR, err);
    case STREAM_ADD:
        return ops->add(ctx, err);
    case STREAM_TRIAD:
        return ops->triad(ctx, STREAM_SCALAR, err);
    case STREAM_DOT:
        return ops->dot(ctx, sum, err);
    case STREAM_NSTREAM:
        return ops->nstream(ctx, STREAM_SCALAR, err);
    default:
        return pp_error_set(err, "kernel %d out of range", (int)k);
    }
}

struct call {
    const struct pp_stream_ops *ops;
    struct pp_ctx *ctx;
    enum stream_kernel kernel;
    double *sum;
};

/* The timed unit: one blocking call of the kernel. */
static int apply(void *arg, unsigned *applications, double *seconds, struct pp_error *err)
{
    const struct call *c = arg;

    (void)applications, (void)seconds;
    return call_kernel(c->ops, c->ctx, c->kernel, c->sum, err);
}

/* numtimes iterations of the selected kernels of [first, last], each iteration every one of them once in run
 * order, each call timed alone; times[0] is the warm-up. No poisoning: the arrays carry every iteration into
 * the end, where the replay checks them (and the dot's last sum). */
static int time_loop(const struct pp_backend *b, struct pp_ctx *ctx, struct stream_result *res,
                     enum stream_kernel first, enum stream_kernel last, struct sample_progress *progress,
                     double *sum, struct pp_error *err)
{
    const struct sample_rule rule = {
        .samples = res->params.numtimes, .iterations = 1, .stats = STATS_BEST, .poison = SAMPLE_POISON_NONE};
    struct call calls[STREAM_NKERNELS];
    struct sample_kernel ks[STREAM_NKERNELS];
    size_t n = 0;

    for (size_t i = 0; i < res->nkernels; i++) {
        if (res->which[i] < first || res->which[i] > last)
            continue;
        calls[n] = (struct call){pp_backend_ops(b, "stream"), ctx, res->which[i], sum};
        ks[n] = (struct sample_kernel){.out = &res->kernels[i], .apply = apply, .arg = &calls[n]};
        n++;
    }
    return sample_run(&rule, ks, n, progress, NULL, err);
}

/* Test-only hook (docs/METHODOLOGY.md): PPBENCH_TEST_FAULT=<kernel>[:<index>] plants a wrong value in what
 * that kernel wrote, after read-back, to prove verification catches and names it; PPBENCH_TEST_FAULT=crash
 * makes the process die of SIGSEGV there, to prove a crash becomes a failed job. */
static void plant_fault(const struct stream_params *p, void *arrays[3], double *sum)
{
    const char *spec = getenv("PPBENCH_TEST_FAULT");
    unsigned mask;
    size_t idx = p->n / 2;
    char name[32];
    struct pp_error ignored;

    if (!spec || !*spec)
        return;
    if (!strcmp(spec, "crash")) /* a kernel process that dies: the worker must report the signal */
        raise(SIGSEGV);
    snprintf(name, sizeof(name), "%.*s", (int)strcspn(spec, ":"), spec);
    if (strchr(spec, ':'))
        idx = strtoull(strchr(spec, ':') + 1, NULL, 10);
    if (idx >= p->n)
        idx = p->n - 1;
    if (stream_kernels_parse(name, &mask, &ignored) || (mask & p->kernels) == 0)
        return;
    for (unsigned k = 0; k < STREAM_NKERNELS; k++) {
        if (!(mask & (1u << k)))
            continue;
        if (!kernel_info[k].writes) {
            *sum *= 1.001;
            continue;
        }
        void *x = arrays[kernel_info[k].writes - 'a'];
        if (p->prec == PP_FP32)
            ((float *)x)[idx] = ((float *)x)[idx] * 1.001f + 1e-3f;
        else
            ((double *)x)[idx] = ((double *)x)[idx] * 1.001 + 1e-3;
    }
}

/* The selected kernel that wrote an array last, in run order; STREAM_NKERNELS when only init did. */
static enum stream_kernel last_writer(unsigned mask, char array)
{
    enum stream_kernel last = STREAM_NKERNELS;

    for (unsigned k = 0; k < STREAM_NKERNELS; k++)
        if ((mask & (1u << k)) && kernel_info[k].writes == array)
            last = (enum stream_kernel)k;
    return last;
}

/* The entry of kernel k, or NULL when it did not run. */
static struct suite_kernel *find_kernel(struct stream_result *res, enum stream_kernel k)
{
    for (size_t i = 0; i < res->nkernels; i++)
        if (res->which[i] == k)
            return &res->kernels[i];
    return NULL;
}

static void verify(struct stream_result *res, void *arrays[3], double sum)
{
    const struct stream_params *p = &res->params;
    struct stream_gold gold;
    double tol = stream_ref_element_tolerance(p->prec);

    stream_ref_replay(p, &gold);
    for (size_t i = 0; i < res->nkernels; i++) {
        res->kernels[i].verified = true;
        res->kernels[i].tolerance = tol;
    }
    for (int ai = 0; ai < 3; ai++) {
        double want = ai == 0 ? gold.a : ai == 1 ? gold.b : gold.c;
        char array = (char)('a' + ai);
        size_t worst;
        double value, e;
        enum stream_kernel w;

        int ok = stream_ref_check_array(arrays[ai], p->n, p->prec, want, tol, &worst, &value, &e);
        for (size_t i = 0; i < res->nkernels; i++)
            if (res->which[i] != STREAM_DOT && res->kernels[i].verified &&
                kernel_info[res->which[i]].writes == array && e > res->kernels[i].max_rel_err)
                res->kernels[i].max_rel_err = e;
        if (ok)
            continue;
        w = last_writer(p->kernels, array);
        for (size_t i = 0; i < res->nkernels; i++) {
            if (w == STREAM_NKERNELS || res->which[i] == w)
                sample_fail(&res->kernels[i], e, tol,
                            "%s: %c[%zu] = %.17g, expected %.17g (relative error %.3g > %.3g)",
                            w == STREAM_NKERNELS ? "init" : stream_kernel_name(w), array, worst, value, want,
                            e, tol);
        }
    }
    struct suite_kernel *dot = find_kernel(res, STREAM_DOT);
    if (dot) {
        double dtol = stream_ref_dot_tolerance(p->prec, res->layout.dot_chain);
        double e = gold.sum != 0.0 ? fabs(sum - gold.sum) / fabs(gold.sum) : fabs(sum);
        dot->tolerance = dtol;
        dot->max_rel_err = isnan(e) ? INFINITY : e;
        if (!(e <= dtol))
            sample_fail(dot, e, dtol, "dot: sum = %.17g, expected %.17g (relative error %.3g > %.3g)", sum,
                        gold.sum, e, dtol);
    }
    res->verified = sample_all_verified(res->kernels, res->nkernels);
}

int stream_run(const struct pp_backend *b, struct pp_ctx *ctx, const struct stream_params *p,
               struct stream_result *res, struct pp_error *err)
{
    const struct pp_stream_ops *ops = pp_backend_ops(b, "stream");
    size_t beta = pp_precision_bytes(p->prec);
    void *arrays[3] = {NULL, NULL, NULL};
    struct sample_progress progress = {.fn = p->progress, .arg = p->progress_arg};
    double sum = 0.0, t0;
    int rc = -1, allocated = 0;

    memset(res, 0, sizeof(*res));
    res->params = *p;
    if (!ops)
        return pp_error_set(err, "model %s has no stream suite", b->name);
    for (unsigned k = 0; k < STREAM_NKERNELS; k++) {
        struct suite_kernel *kr;
        struct suite_model m;

        if (!(p->kernels & (1u << k)))
            continue;
        res->which[res->nkernels] = (enum stream_kernel)k;
        kr = &res->kernels[res->nkernels++];
        kr->name = kernel_info[k].name;
        stream_model((enum stream_kernel)k, p->n, p->prec, &m);
        kr->bytes = m.bytes;
        kr->bytes_compulsory = m.bytes_compulsory;
        kr->flops = m.flops;
    }
    progress.total = p->numtimes * ((p->kernels & ~(1u << STREAM_NSTREAM)) ? 1u : 0u) +
                     p->numtimes * ((p->kernels & (1u << STREAM_NSTREAM)) ? 1u : 0u);

    res->layout.stores = p->stores;
    if (ops->alloc(ctx, p->n, p->prec, &res->layout, err))
        goto out;
    allocated = 1;
    t0 = clock_now();
    if (ops->init(ctx, STREAM_START_A, STREAM_START_B, STREAM_START_C, err))
        goto out;
    res->init_seconds = clock_now() - t0;

    if (time_loop(b, ctx, res, STREAM_COPY, STREAM_DOT, &progress, &sum, err) ||
        time_loop(b, ctx, res, STREAM_NSTREAM, STREAM_NSTREAM, &progress, &sum, err))
        goto out;

    for (int i = 0; i < 3; i++) {
        arrays[i] = malloc(p->n * beta);
        if (!arrays[i]) {
            pp_error_set(err, "out of host memory for the %zu-byte read-back", p->n * beta);
            goto out;
        }
    }
    t0 = clock_now();
    if (ops->read(ctx, arrays[0], arrays[1], arrays[2], err))
        goto out;
    res->read_seconds = clock_now() - t0;

    plant_fault(p, arrays, &sum);
    verify(res, arrays, sum);
    rc = 0;
out:
    if (allocated)
        ops->release(ctx);
    for (int i = 0; i < 3; i++)
        free(arrays[i]);
    return rc;
}

void stream_result_release(struct stream_result *res)
{
    for (size_t i = 0; i < res->nkernels; i++)
        sample_kernel_release(&res->kernels[i]);
    res->nkernels = 0;
}
