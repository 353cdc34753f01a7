/*
 * lattice: what the lattice QCD suites (kernels/wilson/wilson.c, kernels/staggered/staggered.c) share: the
 * 4-d lattice and its checkerboards, the --lattice syntax and the rule on extents, the seeded random numbers
 * and SU(3) matrices their fields are made of, and the test hook that plants a fault in them. Pure functions,
 * any thread (the hook reads the environment).
 *
 * Sites are numbered lexicographically, x fastest: s = x + X (y + Y (z + Z t)). With X even, each row of x
 * holds X/2 sites of each parity in order, so the checkerboard index of site s is s / 2.
 */
#ifndef PP_LATTICE_H
#define PP_LATTICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"
#include "kernels/sample.h"
#include "lib/error.h"

#define LATTICE_MIN_EXTENT         4
#define LATTICE_DEFAULT_EXTENT_CPU 8  /* 8^4 on CPUs */
#define LATTICE_DEFAULT_EXTENT_GPU 32 /* 32^4 on GPUs and other accelerators (the papers' lattice) */

/* "8x8x8x16" into dims. Syntax only (four positive whole numbers); lattice_check_extents judges them. */
int lattice_parse(const char *s, unsigned dims[4], struct pp_error *err) PP_WUR;

/* Every extent even and at least LATTICE_MIN_EXTENT, the checkerboard within 2^32 sites; the error names
 * the axis. */
int lattice_check_extents(const unsigned dims[4], struct pp_error *err) PP_WUR;

/* A run's lattice on dev: unset extents (all 0) become the device's default, then lattice_check_extents. The
 * default is LATTICE_DEFAULT_EXTENT_GPU^4 on GPUs and accelerators; on a CPU whose last-level cache is known
 * (dev->llc_bytes) the smallest even L^4, at least LATTICE_DEFAULT_EXTENT_CPU, whose working set
 * (bytes_per_site per lattice site) is at least CPUCACHE_LLC_FACTOR times that cache, so that the default
 * problem streams from DRAM (BabelStream's rule); LATTICE_DEFAULT_EXTENT_CPU^4 when the cache is unknown. */
int lattice_resolve(unsigned dims[4], const struct pp_device *dev, double bytes_per_site,
                    struct pp_error *err) PP_WUR;

/* Whether a run's fields fit: device_bytes per output site on the device, host_bytes per site on the host
 * (one memory on a CPU); the error gives both sizes. */
int lattice_check_memory(const unsigned dims[4], const struct pp_device *dev, double device_bytes,
                         double host_bytes, struct pp_error *err) PP_WUR;

static inline size_t lattice_volume(const unsigned dims[4])
{
    return (size_t)dims[0] * dims[1] * dims[2] * dims[3];
}

size_t lattice_index(const unsigned dims[4], const unsigned c[4]);
void lattice_coords(const unsigned dims[4], size_t s, unsigned c[4]);

/* The site d steps from s in direction mu (d may be negative), periodic. */
size_t lattice_shift(const unsigned dims[4], size_t s, int mu, int d);

static inline int lattice_parity(const unsigned c[4])
{
    return (int)((c[0] + c[1] + c[2] + c[3]) & 1);
}

/* Uniform in [-1, 1) from a splitmix64 state. */
double lattice_random(uint64_t *state);

/* A random SU(3) matrix [a][b][re, im] from 18 draws: random complex entries, rows orthonormalised by
 * Gram-Schmidt, the last row multiplied by conj(det) so that det = 1. */
void lattice_random_su3(uint64_t *state, double u[18]);

/* n numbers, or n SU(3) matrices (18 n reals), exactly as n calls of lattice_random or lattice_random_su3
 * from *state would give them, computed by the calling thread's OpenMP team (splitmix64's state is a counter,
 * so each item's starting state is known); *state moves past them. */
void lattice_random_fill(uint64_t *state, double *x, size_t n);
void lattice_random_su3_fill(uint64_t *state, double *u, size_t n);

/* Output of a Dslash on the odd sites, as a backend returns it (packed[i][comps], i = s / 2), into
 * full-lattice order (full[s][comps]), zero on the even sites. */
void lattice_unpack_odd(const unsigned dims[4], int comps, const double *packed, double *full);

/* The verification of an odd-site output against a full-lattice reference: every component of every odd site,
 * error |out - ref| / scale(s) (NaN counts as infinite), against the tolerance of the precision (100 epsilon,
 * docs/METHODOLOGY.md). comps is 6 (a colour vector) or 24 (a spinor: spin, colour). */
struct lattice_check {
    double tolerance;
    double max_err;   /* worst error */
    bool failed;      /* some error above the tolerance; detail names the first such component: */
    char detail[256]; /* "dslash: site (x,y,z,t) [odd index i] [spin s] colour c re = v, expected w (error
                         ...)" */
};
void lattice_check_odd(const unsigned dims[4], int comps, enum pp_precision prec, const double *packed,
                       const double *ref, const double *scale, struct lattice_check *out);

/* The calls of a lattice suite's Dslash as the sample loop times it (kernels/sample.h), the same for both
 * suites: the timed unit is one blocking dslash of `applications` applications; poisoning is the ops' poison
 * (NaN); the warm-up's output is downloaded into out_warm. The ops' functions are the suite's (struct
 * pp_wilson_ops, pp_staggered_ops: the same signatures). */
struct lattice_calls {
    struct pp_ctx *ctx;
    int (*dslash)(struct pp_ctx *ctx, unsigned iterations, struct pp_error *err);
    int (*poison)(struct pp_ctx *ctx, struct pp_error *err);
    int (*download)(struct pp_ctx *ctx, double *out, struct pp_error *err);
    double *out_warm;
};

/* The sample loop's kernel for c (borrowed, outlives the loop), reporting into out. */
struct sample_kernel lattice_sample_kernel(struct lattice_calls *c, struct suite_kernel *out);

/* The kernel's verdict from the checks of the two samples a lattice driver verifies, the warm-up's and the
 * last one's (each poisoned before it): verified when both pass, the last one's bound, the worse error, and
 * a failure that says which sample ("warm-up: ...", "... (last sample only; the warm-up verified)"). */
void lattice_check_samples(const struct lattice_check *warm, const struct lattice_check *last,
                           struct suite_kernel *k);

/* Test-only hook of the suite drivers (docs/METHODOLOGY.md), applied to the packed arrays before upload:
 * PPBENCH_TEST_FAULT=link[:<i>] adds 0.5 to links[i * link_stride] (the first real of output site i's first
 * link), neighbour[:<i>] points nbr[i] (its first neighbour entry) at the next input site; <i> is n / 2 when
 * absent, at most n - 1. The reference keeps the true fields, so verification must catch and name the site.
 * crash raises SIGSEGV here. Anything else plants nothing. */
void lattice_plant_fault(size_t n, double *links, size_t link_stride, uint32_t *nbr);

/* Test-only hook of the models' kernels, proving that verification sees every sample: PPBENCH_TEST_FAULT=
 * half makes every application write only the first half of the output sites, first makes the run's first
 * application write all and every later one half (a kernel correct only on its first application), warmup
 * makes only the first application write half. A model reads the kind once (lattice_fault_kind, at alloc)
 * and asks lattice_fault_sites how many sites application number app (from 0, over the run) writes. */
enum lattice_fault { LATTICE_FAULT_NONE, LATTICE_FAULT_HALF, LATTICE_FAULT_FIRST, LATTICE_FAULT_WARMUP };
enum lattice_fault lattice_fault_kind(void);
static inline size_t lattice_fault_sites(enum lattice_fault f, unsigned long app, size_t n)
{
    if (f == LATTICE_FAULT_HALF || (f == LATTICE_FAULT_FIRST && app > 0) ||
        (f == LATTICE_FAULT_WARMUP && app == 0))
        return n / 2;
    return n;
}

#endif
