/*
 * provenance: what produced a result, beyond the backend's own description: ppbench version, compiler and
 * flags, host, time, and the environment variables that change how kernels run.
 */
#ifndef PP_PROVENANCE_H
#define PP_PROVENANCE_H

#include "lib/info.h"

void provenance_collect(struct pp_info_list *out);

#endif
