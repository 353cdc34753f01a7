/*
 * affinity: undoes the OpenMP runtime's binding of the process's initial thread for models other than OpenMP.
 */
#ifndef PP_AFFINITY_H
#define PP_AFFINITY_H

#include <sched.h>

/* When OMP_PROC_BIND (or OMP_PLACES) made libgomp bind the initial thread to one place at load time, every
 * thread another runtime creates later (PoCL's CPU threads, a CUDA or OpenCL driver's) inherits that single
 * place. Give the calling thread back the union of all places, i.e. the affinity the process started with.
 * Returns 1 when it changed the mask, 0 when there was nothing to undo. */
int affinity_release_openmp_binding(void);

/* When libgomp binds its threads (OMP_PROC_BIND not false, more than one place): 1 with set = the union of
 * its places, the CPUs the OpenMP threads run on; else 0. */
int affinity_openmp_places(cpu_set_t *set);

#endif
