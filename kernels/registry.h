/*
 * registry: the programming models this build has, in a fixed order. Only built backends are listed; the
 * CUDA and OpenMP offload backends are listed when their shared objects were built, and say why they cannot
 * run when they cannot load.
 */
#ifndef PP_REGISTRY_H
#define PP_REGISTRY_H

#include <stddef.h>

#include "kernels/backend.h"

size_t registry_count(void);
const struct pp_backend *registry_get(size_t i);
const struct pp_backend *registry_find(const char *name); /* NULL when not built */
const char *registry_names(void);                         /* "openmp, opencl, cuda, omp-target" */

#endif
