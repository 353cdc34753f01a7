/*
 * wilson: the Wilson Dslash suite driver (paper 000, Eq. 1). It owns everything the models share: the lattice
 * and its checkerboard geometry, the random SU(3) links and spinors (seeded), the packing into the canonical
 * arrays every backend takes (struct pp_wilson_ops), the byte and flop models, the timing statistics and the
 * verification of every output site against the serial reference (wilson_ref). A backend supplies kernels
 * only.
 *
 * The operator maps the even checkerboard ((x + y + z + t) even) to the odd one: the input lives on the even
 * sites, the output on the odd sites; periodic boundaries in all four directions.
 */
#ifndef PP_WILSON_H
#define PP_WILSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/sample.h"
#include "kernels/wilson/wilson_ops.h"
#include "lib/error.h"
#include "lib/stats.h"

#define WILSON_FLOPS_PER_SITE     1320 /* 8 x (2 x 66 + 12) + 7 x 24 (paper 000) */
#define WILSON_DEFAULT_NUMTIMES   100
#define WILSON_DEFAULT_ITERATIONS 1
#define WILSON_MAX_ITERATIONS     1000000
#define WILSON_DEFAULT_SEED       20200101u

struct wilson_params {
    unsigned dims[4];  /* extents in x, y, z, t: each even and >= 4; all 0: the device's default (resolve) */
    unsigned numtimes; /* timed samples; the first is warm-up, excluded from the statistics */
    unsigned iterations; /* applications per sample, launched back to back; times are per application */
    enum pp_precision prec;
    enum pp_wilson_layout layout;
    uint64_t seed;
    /* Optional: called after each application (done of total), from the running thread. */
    void (*progress)(void *arg, unsigned done, unsigned total);
    void *progress_arg;
};

struct wilson_result {
    struct wilson_params params;
    struct pp_wilson_variant variant;
    size_t sites, out_sites;           /* lattice volume; output (odd) sites = volume / 2 */
    double init_seconds, read_seconds; /* upload, download */
    /* the kernel as the report has it (kernels/sample.h): numtimes times per application (times[0] the
     * warm-up), statistics and rates from the minimum; bytes the byte model per application (Eq. 2 with R =
     * 0, r = 0), bytes_compulsory the compulsory traffic (R = 7, r = 0), flops 1320 per output site; the
     * check: the worst |out - ref| / scale over every component of every output site, and on failure the
     * site, component, value and expected value */
    struct suite_kernel dslash;
};

void wilson_params_default(struct wilson_params *p);

const char *wilson_layout_name(enum pp_wilson_layout l);
/* "aos" (site-major) or "soa"; anything else is an error naming the layouts. */
int wilson_layout_parse(const char *s, enum pp_wilson_layout *out, struct pp_error *err) PP_WUR;

/* Make p the problem that runs on dev: a lattice left at 0 x 0 x 0 x 0 becomes the device's default
 * (LATTICE_DEFAULT_EXTENT_CPU on CPUs, _GPU elsewhere); then reject what cannot run before anything is
 * allocated: an odd or too small extent, numtimes < 2, iterations outside 1 .. WILSON_MAX_ITERATIONS, no
 * fp64, or fields (device and host copies) that do not fit the memory. The result is what runs and is
 * reported. */
int wilson_resolve(struct wilson_params *p, const struct pp_device *dev, struct pp_error *err) PP_WUR;

/* The bytes a run's device fields take (links, input, output, neighbours): the problem's working_set_bytes,
 * which the server compares with the device's last-level cache (docs/METHODOLOGY.md, "Cache residency"). */
double wilson_working_set(const struct wilson_params *p);

/* Run the suite on an open context with resolved parameters (wilson_resolve). Returns -1 only when the device
 * or runtime fails (or p is not resolved); a result that fails verification returns 0 with res->verified ==
 * false. res must be released with wilson_result_release. */
int wilson_run(const struct pp_backend *b, struct pp_ctx *ctx, const struct wilson_params *p,
               struct wilson_result *res, struct pp_error *err) PP_WUR;

void wilson_result_release(struct wilson_result *res);

/* ---- the pieces, for the tests ---- */

/* The run's fields on the full lattice, lexicographic: u[s][mu][3][3][2] and psi[s][4][3][2] (every site). */
void wilson_random_fields(const unsigned dims[4], uint64_t seed, double *u, double *psi);

/* One application through the backend, untimed: out[s] = (D psi)(s) on the odd sites, zero on the even ones
 * (same arrays as wilson_ref_dslash). p gives dims, precision and layout. */
int wilson_apply(const struct pp_backend *b, struct pp_ctx *ctx, const struct wilson_params *p,
                 const double *u, const double *psi, double *out, struct pp_error *err) PP_WUR;

#endif
