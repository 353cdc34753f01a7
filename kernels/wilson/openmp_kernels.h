/*
 * openmp_kernels: the Wilson Dslash loop of both OpenMP models (kernels/wilson/openmp.c,
 * kernels/openmp/body.h), instantiated per precision (kernels/precisions.h) and, on the host, per layout:
 * SOA 0 (site-major) or 1 (one array per real component, site fastest, component arrays ld apart).
 *
 * The arithmetic of one output site is kernels/wilson/wilson_dslash.h's, the same as OpenCL's and CUDA's
 * (spin projection, SU(3) products, reconstruction: 1320 flop), included here per instance. On the host its
 * small loops are unrolled completely (GCC unroll), which leaves the site loop one straight body for the
 * vectoriser, compiled per instruction set (OPENMP_CLONES), each thread on its static share of the sites. On
 * the device it is `declare target`, with 32-bit site indices as the GPU models use, and an application is
 * one `target teams distribute parallel for` over the output sites with SOA a constant in each loop, so the
 * indexing folds.
 */

#define WILSON_NAME(name) KERNEL(name)

#if OMB_TARGET

#pragma omp declare target
#include "kernels/wilson/wilson_dslash.h"
#pragma omp end declare target

static void KERNEL(dslash)(struct pp_ctx *ctx, struct omb_wilson *w)
{
    const REAL *psi = w->spinor, *g = w->gauge;
    const uint32_t *nbr = w->nbr;
    REAL *out = w->out;
    const unsigned n = (unsigned)w->n, ld = (unsigned)w->ld;

    if (w->layout == PP_WILSON_SOA)
        OMPT_LOOP_(ctx, target teams distribute parallel for, is_device_ptr(psi, g, nbr, out),
                   for (unsigned i = 0; i < n; i++) KERNEL(wilson_site)(psi, g, nbr, out, n, ld, i, 1););
    else
        OMPT_LOOP_(ctx, target teams distribute parallel for, is_device_ptr(psi, g, nbr, out),
                   for (unsigned i = 0; i < n; i++) KERNEL(wilson_site)(psi, g, nbr, out, n, ld, i, 0););
}

#else

#include "kernels/wilson/wilson_dslash.h"

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

static void KERNEL(dslash)(struct pp_ctx *ctx, struct omb_wilson *x)
{
    (void)ctx;
#pragma omp parallel
    {
        size_t lo, hi;
        openmp_share(x->share, &lo, &hi);
        KERNEL(sites)(x->spinor, x->gauge, x->nbr, x->out, x->n, x->ld, lo, hi);
    }
}

#endif

#undef WILSON_NAME
