/*
 * provenance: what produced a result, beyond the backend's own description: ppbench version, compiler and
 * flags, host, time, and the environment variables that change how kernels run.
 */
#ifndef PP_PROVENANCE_H
#define PP_PROVENANCE_H

#include <stdbool.h>

#include "lib/info.h"

/* openmp: the run is the OpenMP model's (cpus_allowed is then its places' CPUs when libgomp binds). */
void provenance_collect(struct pp_info_list *out, bool openmp);

#endif
