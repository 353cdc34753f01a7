/*
 * affinity: see affinity.h. Main thread, before a non-OpenMP model opens its device, and for the provenance.
 *
 * The place list libgomp builds covers the CPUs the process was allowed when it started (taskset, cgroup
 * cpuset), so their union restores exactly that mask and no more.
 */
#include "affinity.h"

#include <omp.h>
#include <stdlib.h>

int affinity_openmp_places(cpu_set_t *set)
{
    int nplaces = omp_get_num_places();
    int any = 0;

    if (omp_get_proc_bind() == omp_proc_bind_false || nplaces <= 1)
        return 0;
    CPU_ZERO(set);
    for (int p = 0; p < nplaces; p++) {
        int n = omp_get_place_num_procs(p);
        int *ids = n > 0 ? malloc((size_t)n * sizeof(*ids)) : NULL;
        if (!ids)
            continue;
        omp_get_place_proc_ids(p, ids);
        for (int i = 0; i < n; i++)
            if (ids[i] >= 0 && ids[i] < CPU_SETSIZE) {
                CPU_SET(ids[i], set);
                any = 1;
            }
        free(ids);
    }
    return any;
}

int affinity_release_openmp_binding(void)
{
    cpu_set_t set;

    return affinity_openmp_places(&set) && sched_setaffinity(0, sizeof(set), &set) == 0;
}
