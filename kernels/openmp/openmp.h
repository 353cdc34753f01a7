/*
 * openmp: the OpenMP model on the host CPU (all sockets as one platform).
 */
#ifndef PP_OPENMP_H
#define PP_OPENMP_H

#include <omp.h>
#include <stdlib.h>

#include "kernels/backend.h"

extern const struct pp_backend pp_backend_openmp;
extern const struct pp_stream_ops openmp_stream_ops;
extern const struct pp_wilson_ops openmp_wilson_ops;
extern const struct pp_staggered_ops openmp_staggered_ops;

/* The hot loops of the kernels are compiled for baseline x86-64 and for x86-64-v3 (AVX2, FMA) and v4
 * (AVX-512), and the dynamic loader picks the best one this CPU runs (GCC target_clones, an ifunc): the
 * binary stays portable and the kernels still use the vector units of the machine they run on. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define OPENMP_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define OPENMP_CLONES
#endif

/* The calling thread's share [lo, hi) of n iterations in an OpenMP team, split as schedule(static) splits
 * them (libgomp: the first n % T threads get one more), so a loop written with it touches the same pages as a
 * schedule(static) loop over the same n. */
static inline void openmp_share(size_t n, size_t *lo, size_t *hi)
{
    size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
    size_t q = n / nt, r = n % nt;

    *lo = t * q + (t < r ? t : r);
    *hi = *lo + q + (t < r);
}

/* Memory for a kernel's arrays: rounded up to and aligned on 2 MiB, so the kernel can back them with huge
 * pages; free() releases it. NULL when out of memory. */
static inline void *openmp_alloc_pages(size_t bytes)
{
    const size_t align = (size_t)2 << 20;

    return aligned_alloc(align, (bytes + align - 1) / align * align);
}

/* The context, shared by the backend and its suite files. */
struct pp_ctx {
    int threads;
    struct pp_suite_slots suites;
    size_t n;
    enum pp_precision prec;
    void *a, *b, *c; /* page-aligned, first touched by the threads that use them */
    struct {         /* the Wilson suite's fields (kernels/wilson/openmp.c) */
        size_t n;    /* output sites = input sites */
        size_t ld;   /* soa: distance between component arrays (elements); aos: n */
        enum pp_precision prec;
        enum pp_wilson_layout layout;
        void *gauge, *spinor, *out; /* in the layout and precision */
        uint32_t *nbr;              /* [8][n] */
    } w;
    struct {           /* the staggered suite's fields (kernels/staggered/openmp.c) */
        size_t n;      /* output sites = input sites */
        size_t blocks; /* simd: blocks of sites, the last one padded */
        enum pp_precision prec;
        enum pp_staggered_strategy strategy; /* PP_STAG_SITE or PP_STAG_SIMD */
        void *links, *vec, *out;             /* in the strategy's layout and precision */
        uint32_t *nbr;                       /* [16][n], or per block [16][STAG_BLOCK] */
    } stag;
};

#endif
