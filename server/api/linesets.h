/*
 * linesets: the line sets of code divergence that the build embeds in ppbenchd (pp_linesets: one line per
 * suite, model, variant and precision, "suite model variant precision fingerprint...", made by
 * scripts/linesets.sh), and code
 * divergence over them (kernels/divergence.c). Read once, on first use; any thread after that.
 */
#ifndef PP_LINESETS_H
#define PP_LINESETS_H

#include <stddef.h>

#include "kernels/divergence.h"

/* The line set of suite's variant on model in precision (borrowed, for the life of the process), or NULL when
 * the build has none. */
const struct divergence_set *linesets_find(const char *suite, const char *model, const char *variant,
                                           const char *precision);

/* How many line sets the build embedded. */
size_t linesets_count(void);

#endif
