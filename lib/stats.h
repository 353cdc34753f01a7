/*
 * stats: summary statistics of a series of timings (min, max, mean, median, sample standard deviation).
 */
#ifndef PP_STATS_H
#define PP_STATS_H

#include <stddef.h>

struct pp_stats {
    size_t count;
    double min, max, mean, median, stddev;
};

/* The statistic a figure is taken from (the suite table's timing rule, docs/METHODOLOGY.md). */
enum stats_rule {
    STATS_BEST, /* the minimum time: best-of, STREAM's rule */
    STATS_MEAN, /* the mean time: mean-of, MILC's rule */
};

/* Summarise x[0..n). n == 0 gives all zeros. Does not modify x. */
void stats_compute(const double *x, size_t n, struct pp_stats *out);

/* The measurement rule (docs/METHODOLOGY.md) in one place: summarise times[1..numtimes) (times[0] is the
 * warm-up) and derive bytes/s and GFLOP/s from the minimum time (0 when it is 0). */
void stats_timed(const double *times, unsigned numtimes, double bytes, double flops, struct pp_stats *out,
                 double *bandwidth, double *gflops);

/* How stable the figure that rule reports is, as a fraction (docs/METHODOLOGY.md, "Noise"): best-of, how far
 * the best tenth of the samples lies above the best, (x_(k) - x_(1)) / x_(1) with x sorted and
 * k = max(2, ceil(n / 10)); mean-of, the half-width of the mean's 95 % confidence interval over the mean
 * (Student's t with n - 1 degrees of freedom). 0 for fewer than 2 samples or a zero minimum or mean. Does not
 * modify x. */
double stats_noise(const double *x, size_t n, enum stats_rule rule);

/* The statistic's name in documents: "best_tenth" or "mean_ci95". */
const char *stats_noise_name(enum stats_rule rule);

#endif
