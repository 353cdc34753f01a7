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

static double median_of(const double *x, size_t n)
{
    double *s = malloc(n * sizeof(*s));
    double m;

    if (!s) { /* out of memory: fall back to an unsorted middle, never crash on a summary */
        return x[n / 2];
    }
    memcpy(s, x, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_double);
    m = (n % 2) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
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
