/*
 * sample: the one sample loop of the suite drivers (sample.h says the design). Runs on the driver's thread;
 * owns nothing but the times it allocates into each kernel's struct suite_kernel (sample_kernel_release).
 */
#include "sample.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/clock.h"

/* One timed unit of k: *apps applications; the time per application into *t. */
static int timed(const struct sample_kernel *k, unsigned apps, double *t, struct pp_error *err)
{
    double own = -1.0, t0 = clock_now();
    int rc = k->apply(k->arg, &apps, &own, err);
    double wall = clock_now() - t0;

    *t = (own >= 0 ? own : wall) / (apps ? apps : 1);
    return rc;
}

/* k's outputs poisoned when the rule names one of bits for this sample (s; UINT_MAX: the warm-up apart). */
static int poison(const struct sample_kernel *k, const struct sample_rule *rule, unsigned bits, unsigned s,
                  struct pp_error *err)
{
    if (!(rule->poison & bits) || !k->poison || !k->poison(k->arg, err))
        return 0;
    if (s == UINT_MAX)
        return pp_error_prefix(err, "%s: poison before the warm-up", k->out->name);
    return pp_error_prefix(err, "%s: poison before sample %u", k->out->name, s);
}

int sample_run(const struct sample_rule *rule, const struct sample_kernel *k, size_t n,
               struct sample_progress *progress, double *warmup_seconds, struct pp_error *err)
{
    const unsigned last = rule->samples - 1;
    double t;

    if (n == 0)
        return 0;
    if (rule->samples < (rule->warmup_apart ? 1u : 2u) || rule->iterations < 1)
        return pp_error_set(err, "%u samples of %u applications: not a series", rule->samples,
                            rule->iterations);
    for (size_t i = 0; i < n; i++) {
        sample_kernel_release(k[i].out);
        if (!(k[i].out->times = calloc(rule->samples, sizeof(double))))
            return pp_error_set(err, "out of memory for timings");
        k[i].out->ntimes = rule->samples;
    }
    if (warmup_seconds)
        *warmup_seconds = 0;
    for (size_t i = 0; rule->warmup_apart && i < n; i++) {
        if (poison(&k[i], rule, SAMPLE_POISON_WARMUP | SAMPLE_POISON_EVERY, UINT_MAX, err))
            return -1;
        if (timed(&k[i], 1, &t, err))
            return pp_error_prefix(err, "%s, warm-up", k[i].out->name);
        if (warmup_seconds)
            *warmup_seconds += t;
        if (k[i].keep_warmup && k[i].keep_warmup(k[i].arg, err))
            return pp_error_prefix(err, "%s: read-back after the warm-up", k[i].out->name);
    }
    for (unsigned s = 0; s < rule->samples; s++) {
        const bool warmup = s == 0 && !rule->warmup_apart;

        for (size_t i = 0; i < n; i++) {
            unsigned bits = SAMPLE_POISON_EVERY | (warmup ? SAMPLE_POISON_WARMUP : 0) |
                            (s == last ? SAMPLE_POISON_LAST : 0);
            if (poison(&k[i], rule, bits, s, err))
                return -1;
            if (timed(&k[i], rule->iterations, &k[i].out->times[s], err))
                return pp_error_prefix(err, "%s, sample %u", k[i].out->name, s);
            if (warmup && k[i].keep_warmup && k[i].keep_warmup(k[i].arg, err))
                return pp_error_prefix(err, "%s: read-back after the warm-up", k[i].out->name);
        }
        if (progress && progress->fn)
            progress->fn(progress->arg, ++progress->done, progress->total);
    }
    for (size_t i = 0; i < n; i++)
        sample_figures(rule, k[i].out);
    return 0;
}

void sample_figures(const struct sample_rule *rule, struct suite_kernel *out)
{
    const size_t skip = rule->warmup_apart ? 0 : 1;

    stats_compute(out->times + skip, out->ntimes > skip ? out->ntimes - skip : 0, &out->stats);
    out->seconds = rule->stats == STATS_MEAN ? out->stats.mean : out->stats.min;
    out->bandwidth = out->seconds > 0 ? out->bytes / out->seconds : 0.0;
    out->gflops = out->seconds > 0 ? out->flops / out->seconds * 1e-9 : 0.0;
}

void sample_fail(struct suite_kernel *k, double max_rel_err, double tolerance, const char *fmt, ...)
{
    va_list ap;

    if (!k->verified)
        return; /* keep the first reason */
    k->verified = false;
    k->max_rel_err = max_rel_err;
    k->tolerance = tolerance;
    va_start(ap, fmt);
    vsnprintf(k->error, sizeof(k->error), fmt, ap);
    va_end(ap);
}

bool sample_all_verified(const struct suite_kernel *k, size_t n)
{
    bool all = true;

    for (size_t i = 0; i < n; i++)
        all &= k[i].verified;
    return all;
}

void sample_kernel_release(struct suite_kernel *k)
{
    free(k->times);
    k->times = NULL;
    k->ntimes = 0;
}
