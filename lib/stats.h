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

/* The measurement rule (docs/METHODOLOGY.md) in one place: summarise times[1..numtimes) (times[0] is the
 * warm-up) and derive bytes/s and GFLOP/s from the minimum time (0 when it is 0). */
void stats_timed(const double *times, unsigned numtimes, double bytes, double flops, struct pp_stats *out,
                 double *bandwidth, double *gflops);

#endif
