/*
 * stats: summary statistics of timing series. Pure, any thread; allocates a scratch copy for the median.
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* A sorted copy of x[0..n) (new; NULL when out of memory). */
static double *sorted_copy(const double *x, size_t n)
{
    double *s = malloc((n ? n : 1) * sizeof(*s));

    if (s) {
        memcpy(s, x, n * sizeof(*s));
        qsort(s, n, sizeof(*s), cmp_double);
    }
    return s;
}

static double median_of(const double *x, size_t n)
{
    double *s = sorted_copy(x, n);
    double m;

    if (!s) /* out of memory: fall back to an unsorted middle, never crash on a summary */
        return x[n / 2];
    m = (n % 2) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
}

/* Student's t at 0.975 for df degrees of freedom: the table to 30, then 1.96 + 2.4 / df (within 0.1 %). */
static double t975(size_t df)
{
    static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                               2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                               2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    return df <= 30 ? t[df - 1] : 1.96 + 2.4 / (double)df;
}

double stats_noise(const double *x, size_t n, enum stats_rule rule)
{
    struct pp_stats st;
    double *s, v;
    size_t k;

    if (n < 2)
        return 0.0;
    if (rule == STATS_MEAN) {
        stats_compute(x, n, &st);
        return st.mean > 0 ? t975(n - 1) * st.stddev / sqrt((double)n) / st.mean : 0.0;
    }
    if (!(s = sorted_copy(x, n)))
        return 0.0;
    k = (n + 9) / 10;
    k = k < 2 ? 2 : k;
    v = s[0] > 0 ? (s[k - 1] - s[0]) / s[0] : 0.0;
    free(s);
    return v;
}

const char *stats_noise_name(enum stats_rule rule)
{
    return rule == STATS_MEAN ? "mean_ci95" : "best_tenth";
}

void stats_compute(const double *x, size_t n, struct pp_stats *out)
{
    double sum = 0.0, ss = 0.0;

    memset(out, 0, sizeof(*out));
    out->count = n;
    if (n == 0)
        return;
    out->min = out->max = x[0];
    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        if (x[i] < out->min)
            out->min = x[i];
        if (x[i] > out->max)
            out->max = x[i];
    }
    out->mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - out->mean) * (x[i] - out->mean);
    out->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    out->median = median_of(x, n);
}

void stats_timed(const double *times, unsigned numtimes, double bytes, double flops, struct pp_stats *out,
                 double *bandwidth, double *gflops)
{
    stats_compute(times + 1, numtimes > 1 ? numtimes - 1 : 0, out);
    *bandwidth = out->min > 0 ? bytes / out->min : 0.0;
    *gflops = out->min > 0 ? flops / out->min * 1e-9 : 0.0;
}
