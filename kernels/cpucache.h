/*
 * cpucache: the host CPU's last-level cache as Linux's sysfs describes it (under <root>/devices/system/cpu,
 * each cpuN's cache/indexM directory: level, type, size, shared_cpu_list). The last level is the highest
 * level any index reports; its size is summed over the distinct caches of that level (one per type and
 * distinct shared_cpu_list: an L3 shared by all cores counts once, one per socket or per CCX counts each).
 * Pure file reading, any thread.
 *
 * Also the rule every suite's CPU default follows (cpucache_default_too_small, inline: ppbenchd links the
 * lattice rule without this file's sysfs reading).
 */
#ifndef PP_CPUCACHE_H
#define PP_CPUCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/backend.h"

/* The last-level cache in bytes under root ("" or NULL: the real /sys), and its level in *level when level is
 * not NULL; 0 (and level 0) when sysfs says nothing. */
uint64_t cpucache_llc_bytes(const char *root, int *level);

/* BabelStream's (and McCalpin's STREAM's) rule for a default problem: its data at least CPUCACHE_LLC_FACTOR
 * times the last-level cache, so that it streams from DRAM (docs/METHODOLOGY.md, "Cache residency"). */
#define CPUCACHE_LLC_FACTOR 4

/* Whether a default problem whose data (bytes: its working set, e.g. STREAM's three arrays) is bytes is too
 * small for dev: dev is a CPU, its last-level cache is known, and bytes is below CPUCACHE_LLC_FACTOR times
 * it. A suite grows its CPU default while this holds; GPUs and unknown caches keep the suite's default. */
static inline bool cpucache_default_too_small(const struct pp_device *dev, double bytes)
{
    return dev->kind == PP_DEVICE_CPU && dev->llc_bytes > 0 &&
           bytes < CPUCACHE_LLC_FACTOR * (double)dev->llc_bytes;
}

#endif
