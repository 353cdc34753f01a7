/*
 * peak: the one bound on a theoretical peak memory bandwidth, whatever gives it: in the worker SMBIOS, NVML
 * or an operator's PPBENCH_PEAK_GBS_<ID>; in ppbenchd a worker's registration, an admin's PUT, an import's
 * peak_gbs and a Health floor. 1e15 B/s (1,000,000 GB/s) is some 200 times the fastest memory of today: a
 * figure above it is a mistake or a lie, and would make every architectural efficiency zero. Header-only, C
 * and C++, any thread.
 */
#ifndef PP_PEAK_H
#define PP_PEAK_H

#include <stdbool.h>

#define PP_PEAK_MAX_BYTES_PER_S 1e15
#define PP_PEAK_MAX_GBS         (PP_PEAK_MAX_BYTES_PER_S / 1e9)

/* A peak that may be believed: above 0 and at most PP_PEAK_MAX_BYTES_PER_S (NaN is not). */
static inline bool pp_peak_ok(double bytes_per_s)
{
    return bytes_per_s > 0 && bytes_per_s <= PP_PEAK_MAX_BYTES_PER_S;
}

#endif
