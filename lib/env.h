/*
 * env: reading the experiment variables (PPBENCH_*) of the kernels. Header-only, C and C++ (the CUDA backend
 * includes it through kernels/wilson/wilson_gpu.h); any thread.
 */
#ifndef PP_ENV_H
#define PP_ENV_H

#include <errno.h>
#include <stdlib.h>

/* An unsigned integer from the environment: 0 if name is unset or empty, 1 with *out set, -1 if malformed. */
static inline int pp_env_unsigned(const char *name, unsigned long *out)
{
    const char *s = getenv(name);
    char *end;

    if (!s || !*s)
        return 0;
    errno = 0;
    *out = strtoul(s, &end, 10);
    return errno || *end || s[0] == '-' ? -1 : 1;
}

#endif
