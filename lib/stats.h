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

/* Summarise x[0..n). n == 0 gives all zeros. Does not modify x. */
void stats_compute(const double *x, size_t n, struct pp_stats *out);

#endif
