/*
 * cpucache: the host CPU's last-level cache as Linux's sysfs describes it (under <root>/devices/system/cpu,
 * each cpuN's cache/indexM directory: level, type, size, shared_cpu_list). The last level is the highest
 * level any index reports; its size is summed over the distinct caches of that level (one per type and
 * distinct shared_cpu_list: an L3 shared by all cores counts once, one per socket or per CCX counts each).
 * Pure file reading, any thread.
 */
#ifndef PP_CPUCACHE_H
#define PP_CPUCACHE_H

#include <stdint.h>

/* The last-level cache in bytes under root ("" or NULL: the real /sys), and its level in *level when level is
 * not NULL; 0 (and level 0) when sysfs says nothing. */
uint64_t cpucache_llc_bytes(const char *root, int *level);

#endif
