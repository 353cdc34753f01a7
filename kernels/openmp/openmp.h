/*
 * openmp: the OpenMP model on the host CPU (all sockets as one platform): the context (threads and the suite
 * slots) and the helpers the suites' OpenMP files share: OPENMP_CLONES (hot loops compiled per x86-64 level),
 * openmp_share (schedule(static)'s split, the first touch's) and openmp_alloc_pages (2 MiB aligned, advised
 * for huge pages). The suites are kernels/<suite>/openmp.c + openmp_kernels.h, which serve omp-target too
 * (kernels/openmp/body.h is what differs between the two builds). This header names no suite.
 */
#ifndef PP_OPENMP_H
#define PP_OPENMP_H

#include <omp.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "kernels/backend.h"

extern const struct pp_backend pp_backend_openmp;

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

/* Memory for a kernel's arrays: rounded up to and aligned on 2 MiB and advised for transparent huge pages
 * (MADV_HUGEPAGE: Linux backs it with 2 MiB pages at first touch where THP is "always" or "madvise", so a
 * stream over gigabytes takes one TLB miss per 2 MiB, not per 4 KiB); free() releases it. NULL when out of
 * memory. */
static inline void *openmp_alloc_pages(size_t bytes)
{
    const size_t align = (size_t)2 << 20, len = (bytes + align - 1) / align * align;
    void *p = aligned_alloc(align, len);

#ifdef MADV_HUGEPAGE
    if (p)
        (void)madvise(p, len,
                      MADV_HUGEPAGE); /* advice only: THP "never" or a kernel without THP ignores it */
#endif
    return p;
}

/* The process's anonymous memory backed by transparent huge pages (AnonHugePages of /proc/self/smaps_rollup),
 * in bytes; -1 where the kernel does not say. Any thread. */
long long openmp_anon_huge_bytes(void);

/* The context: what the model's core knows (the threads the kernels run on) and each suite's own state,
 * private to the suite's file (kernels/<suite>/openmp.c), in the suite slots. */
struct pp_ctx {
    int threads;
    uint64_t llc_bytes; /* the device's last-level cache (an operator's value wins; 0: unknown) */
    struct pp_suite_slots suites;
};

#endif
