/*
 * wilson_layout: host-side moves of one site between the canonical arrays of struct pp_wilson_ops (double,
 * site-major) and a backend's layout and precision (kernels/wilson/wilson_dslash.h: site-major or one array
 * per real component, site fastest). Shared by the OpenMP upload (called per site from its parallel loop, for
 * first touch) and the OpenCL and CUDA backends (which pack into a host staging buffer). Header-only, C and
 * C++, no state; any thread.
 */
#ifndef PP_WILSON_LAYOUT_H
#define PP_WILSON_LAYOUT_H

#include <stddef.h>

#include "kernels/backend.h"
#include "kernels/wilson/wilson_dslash.h"
#include "kernels/wilson/wilson_ops.h"

#define WILSON_SPINOR_REALS 24  /* [spin 4][colour 3][re, im] */
#define WILSON_LINKS_REALS  144 /* [k 8][a 3][b 3][re, im] */

/* The soa argument of WILSON_INDEX (kernels/wilson/wilson_dslash.h) for a layout: 0, 1 or the block size. */
static inline int wilson_layout_index(enum pp_wilson_layout layout)
{
    return layout == PP_WILSON_AOSOA ? WILSON_AOSOA_BLOCK : layout == PP_WILSON_SOA;
}

/* Sites a field of n sites is allocated for in the layout (aosoa: whole blocks). */
static inline size_t wilson_layout_sites(enum pp_wilson_layout layout, size_t n)
{
    return layout == PP_WILSON_AOSOA ? (n + WILSON_AOSOA_BLOCK - 1) / WILSON_AOSOA_BLOCK * WILSON_AOSOA_BLOCK
                                     : n;
}

/* Site i of a canonical field of per_site doubles per site (src) into dst, in layout soa (0 or 1; component
 * arrays ld apart, ld at least the number of sites) and precision prec. */
static inline void wilson_layout_put(void *dst, const double *src, size_t ld, size_t i, unsigned per_site,
                                     enum pp_precision prec, int soa)
{
    const double *s = src + i * per_site;

    if (prec == PP_FP32)
        for (unsigned c = 0; c < per_site; c++)
            ((float *)dst)[WILSON_INDEX(soa, ld, i, per_site, c)] = (float)s[c];
    else
        for (unsigned c = 0; c < per_site; c++)
            ((double *)dst)[WILSON_INDEX(soa, ld, i, per_site, c)] = s[c];
}

/* The reverse: site i of src (layout soa, component arrays ld apart, precision prec) into the canonical dst,
 * widened. */
static inline void wilson_layout_get(double *dst, const void *src, size_t ld, size_t i, unsigned per_site,
                                     enum pp_precision prec, int soa)
{
    double *d = dst + i * per_site;

    if (prec == PP_FP32)
        for (unsigned c = 0; c < per_site; c++)
            d[c] = (double)((const float *)src)[WILSON_INDEX(soa, ld, i, per_site, c)];
    else
        for (unsigned c = 0; c < per_site; c++)
            d[c] = ((const double *)src)[WILSON_INDEX(soa, ld, i, per_site, c)];
}

#endif
