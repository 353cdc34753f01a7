/*
 * hacc_partners: each leaf's partner leaves from the pair list, the owner-computes loops' index (the host
 * OpenMP model and the offload model's scalar and simd variants): leaf a's partners are
 * other[start[a] .. start[a + 1]), in the order of the pair list. Pure host code over the caller's arrays.
 */
#ifndef PP_HACC_PARTNERS_H
#define PP_HACC_PARTNERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

/* start: nleaves + 1 entries, other: 2 npairs, from pairs (2 npairs leaf indices); -1 with err when a pair
 * names a leaf beyond nleaves or memory runs out. */
static inline int hacc_partners(size_t nleaves, size_t npairs, const uint32_t *pairs, size_t *start,
                                uint32_t *other, struct pp_error *err)
{
    size_t *fill = calloc(nleaves ? nleaves : 1, sizeof(size_t));

    if (!fill)
        return pp_error_set(err, "out of memory");
    memset(start, 0, (nleaves + 1) * sizeof(size_t));
    for (size_t q = 0; q < 2 * npairs; q++) {
        if (pairs[q] >= nleaves) {
            free(fill);
            return pp_error_set(err, "hacc: pair %zu names leaf %u of %zu", q / 2, pairs[q], nleaves);
        }
        start[pairs[q] + 1]++;
    }
    for (size_t a = 0; a < nleaves; a++)
        start[a + 1] += start[a];
    for (size_t q = 0; q < npairs; q++) {
        uint32_t a = pairs[2 * q], b = pairs[2 * q + 1];
        other[start[a] + fill[a]++] = b;
        other[start[b] + fill[b]++] = a;
    }
    free(fill);
    return 0;
}

#endif
