/*
 * cpubind: the thread count and binding a CPU run gets by default (issue 22; docs/METHODOLOGY.md, "Threads
 * and binding on a CPU"), and the record of what it ran with. Where the user set nothing: openmp:
 * OMP_PLACES=cores, OMP_PROC_BIND=spread, OMP_NUM_THREADS = the cores of the process's affinity mask; opencl
 * on a CPU key: POCL_MAX_PTHREAD_COUNT = those cores, and POCL_AFFINITY=1 where PoCL's pinning (its thread i
 * on CPU i) keeps each thread on its own core of the mask. A variable already in the environment is the
 * user's and always wins (for OpenMP, a binding of the user's, OMP_PLACES, OMP_PROC_BIND or
 * GOMP_CPU_AFFINITY, also keeps the thread count libgomp's). libgomp reads its variables when it loads, so a
 * run of the openmp model whose defaults were set execs itself again once (the same command line); PoCL reads
 * its own when the OpenCL platform is first queried, after this. Main thread, before any runtime starts
 * (`run`, so standalone runs and serve's job children alike).
 */
#ifndef PP_CPUBIND_H
#define PP_CPUBIND_H

#include <sched.h>
#include <stddef.h>

#include "lib/info.h"

#define CPUBIND_SYSFS "/sys/devices/system/cpu"

enum cpubind_source { CPUBIND_USER, CPUBIND_DEFAULT };

struct cpubind_var {
    char name[32];
    char value[48];
    enum cpubind_source source;
};

struct cpubind {
    int applies;                /* 0: not a CPU run of openmp or opencl: nothing set, nothing recorded */
    struct cpubind_var vars[8]; /* the binding variables that are set, the user's and the defaults */
    size_t n;
    char note[200]; /* why a default was left out, "" if none */
};

/* The cores of mask: its CPUs counted once per core (the CPUs of cpuN/topology/thread_siblings_list under
 * sysfs, a CPU without that file a core of its own). */
unsigned cpubind_cores(const cpu_set_t *mask, const char *sysfs);

/* What model on the platform key gets, from the environment (the user's variables), the mask and the topology
 * under sysfs; sets nothing. */
void cpubind_plan(struct cpubind *b, const char *model, const char *platform_key, const cpu_set_t *mask,
                  const char *sysfs);

/* Plan for this process (its affinity mask, CPUBIND_SYSFS), put the defaults into the environment, and for
 * the openmp model exec argv (argv[0] is ignored: /proc/self/exe) so that libgomp reads them; returns only
 * when there is nothing to exec or the exec failed (then the defaults are taken back and the note says why).
 * In the process exec'd, it finds which variables were its parent's defaults (PPBENCH_CPUBIND, removed). */
void cpubind_apply(struct cpubind *b, const char *model, const char *platform_key, char *const argv[]);

/* cpu_binding.default ("OMP_PLACES=cores OMP_PROC_BIND=spread" or "none"), cpu_binding.user (the same of the
 * user's variables) and cpu_binding.note when there is one; nothing when the binding does not apply. */
void cpubind_describe(const struct cpubind *b, struct pp_info_list *out);

#endif
