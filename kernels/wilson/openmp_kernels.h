/*
 * wilson_kernels: the OpenMP Wilson Dslash loop, instantiated per precision and layout by wilson.c, which
 * defines REAL (the element type), KERNEL(name) (the function name for that instance) and SOA (0: site-major,
 * 1: one array per real component, site fastest, component arrays ld apart).
 *
 * The arithmetic of one output site is kernels/wilson/wilson_dslash.h's, the same as OpenCL's and CUDA's
 * (spin projection, SU(3) products, reconstruction: 1320 flop), included here per instance; its small loops
 * are unrolled completely (GCC unroll), which leaves the site loop one straight body for the vectoriser.
 */

#define WILSON_NAME(name) KERNEL(name)
#include "kernels/wilson/wilson_dslash.h"
#undef WILSON_NAME

/* The output sites [lo, hi): the loop the vector units see, compiled once per instruction set. */
static OPENMP_CLONES void KERNEL(sites)(const REAL *restrict psi, const REAL *restrict g,
                                        const uint32_t *restrict nbr, REAL *restrict out, size_t n, size_t ld,
                                        size_t lo, size_t hi)
{
#if SOA
#pragma omp simd
#endif
    for (size_t i = lo; i < hi; i++)
        KERNEL(wilson_site)(psi, g, nbr, out, n, ld, i, SOA);
}

static void KERNEL(dslash)(struct openmp_wilson *x)
{
#pragma omp parallel
    {
        size_t lo, hi;
        openmp_share(x->share, &lo, &hi);
        KERNEL(sites)(x->spinor, x->gauge, x->nbr, x->out, x->n, x->ld, lo, hi);
    }
}
