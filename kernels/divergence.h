/*
 * divergence: code divergence (paper 003, Sec. 3.3; Harrell, Kitson et al.): the average pairwise Jaccard
 * distance between the sets of source lines used to target each platform,
 *     CD(H) = (|H| choose 2)^-1 sum over {i, j} in H of d(i, j),  d(i, j) = 1 - |c_i & c_j| / |c_i | c_j|,
 * where c_i is the set of source lines compiled for platform i (for an application's variant policy: the
 * lines of the variant it runs there, after the preprocessor). A line is any string ("file:line" or the
 * line's text): equal strings are the same line, and repeats within a set count once. Code convergence is
 * 1 - CD. Pure functions over the caller's strings (borrowed); any thread.
 */
#ifndef PP_DIVERGENCE_H
#define PP_DIVERGENCE_H

#include <stddef.h>

#include "lib/error.h"

/* The source lines of one platform: n strings. */
struct divergence_set {
    const char *const *lines;
    size_t n;
};

/* The Jaccard distance of two sets: 0 when equal (two empty sets included), 1 when disjoint. -1 when out of
 * memory (err says so). */
int divergence_jaccard(const struct divergence_set *a, const struct divergence_set *b, double *out,
                       struct pp_error *err) PP_WUR;

/* CD over nsets platforms (0 for fewer than two). -1 when out of memory. */
int divergence_code(const struct divergence_set *sets, size_t nsets, double *out,
                    struct pp_error *err) PP_WUR;

#endif
