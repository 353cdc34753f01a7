/*
 * staggered: the MILC staggered Dslash suite driver (paper 001, Eq. 1 with first and third neighbours). Like
 * kernels/wilson/wilson.c it owns everything the models share: the lattice (kernels/lattice.h), the random
 * fat and long links and colour vectors (seeded), the packing into the canonical arrays of struct
 * pp_staggered_ops, the strategies' rules (order, work-group size), the flop and byte models, the paper's
 * timing rule and the verification of every output site against the plain five-loop reference
 * (staggered_ref). A backend supplies kernels only.
 *
 * The operator maps the even checkerboard to the odd one (output on the L^4/2 odd sites), periodic
 * boundaries. Timing rule (paper 001, Sec. IV-B): one warm-up application, then `runs` samples of
 * `iterations` applications back to back, each sample timed as a whole; the time per application is the
 * sample's time over `iterations`, and the rates come from the mean over the samples (the paper's rule) or,
 * with timing = STAGGERED_TIMING_BEST, from the fastest sample (the other suites' rule).
 */
#ifndef PP_STAGGERED_H
#define PP_STAGGERED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/sample.h"
#include "kernels/staggered/staggered_ops.h"
#include "lib/error.h"
#include "lib/stats.h"

#define STAGGERED_FLOPS_PER_SITE     1146 /* 16 x 66 + 15 x 6 (paper 001: 600.8 MFLOP at L = 32) */
#define STAGGERED_DEFAULT_RUNS       10
#define STAGGERED_DEFAULT_ITERATIONS 100
#define STAGGERED_DEFAULT_SEED       20240101u

enum staggered_timing { STAGGERED_TIMING_MEAN = 0, STAGGERED_TIMING_BEST };

struct staggered_params {
    unsigned dims[4];    /* extents in x, y, z, t, each even and >= 4; all 0: the device's default */
    unsigned runs;       /* timed samples after the warm-up */
    unsigned iterations; /* applications per sample */
    enum pp_precision prec;
    /* strategy, order, work_group asked for; PP_STAG_NSTRATEGIES: the model's default (3LP-1 k-major on
     * GPUs, site on CPUs), order PP_NORDERS: the strategy's default (k, or l for 4LP-2; none for 1LP, 2LP
     * and the CPU loops), work_group 0: the largest of 768, 384, 192, 96 (256 first for 1LP) the strategy
     * and lattice allow */
    struct pp_staggered_variant variant;
    enum staggered_timing timing;
    uint64_t seed;
    void (*progress)(void *arg, unsigned done, unsigned total); /* optional, after each sample */
    void *progress_arg;
};

struct staggered_result {
    struct staggered_params params; /* with the defaults resolved */
    struct pp_staggered_variant variant;
    size_t sites, out_sites;
    double init_seconds, read_seconds;
    double warmup_seconds; /* the warm-up application, timed apart */
    /* the kernel as the report has it (kernels/sample.h): runs times per application (sample time /
     * iterations), statistics over all of them, seconds the mean (paper) or the minimum (best) and the rates
     * from it; bytes the byte model per application (R = 0), bytes_compulsory the compulsory traffic (each
     * link, input and output once), flops 1146 per output site; the check of every output site */
    struct suite_kernel dslash;
};

void staggered_params_default(struct staggered_params *p);

const char *staggered_strategy_name(enum pp_staggered_strategy s); /* "1lp", "3lp-1", "site", ... */
const char *staggered_order_name(enum pp_staggered_order o);       /* "none", "k", "i", "l" */
int staggered_strategy_parse(const char *s, enum pp_staggered_strategy *out, struct pp_error *err) PP_WUR;
int staggered_order_parse(const char *s, enum pp_staggered_order *out, struct pp_error *err) PP_WUR;

/* Resolve the defaults for this device and model and reject what cannot run, naming the parameter: an odd or
 * too small extent, a strategy the model lacks, an order the strategy has not, a work-group size that is not
 * a multiple of what the strategy needs or does not divide the global size, no fp64, fields too large. */
int staggered_resolve(struct staggered_params *p, const struct pp_backend *b, const struct pp_device *dev,
                      struct pp_error *err) PP_WUR;

/* The bytes a run's device fields take (links, input, output, neighbours): the problem's working_set_bytes,
 * which the server compares with the device's last-level cache (docs/METHODOLOGY.md, "Cache residency"). */
double staggered_working_set(const struct staggered_params *p);

/* Run the suite on an open context with resolved params. Returns -1 only when the device or runtime fails; a
 * result that fails verification returns 0 with res->verified == false. Release with
 * staggered_result_release. */
int staggered_run(const struct pp_backend *b, struct pp_ctx *ctx, const struct staggered_params *p,
                  struct staggered_result *res, struct pp_error *err) PP_WUR;

void staggered_result_release(struct staggered_result *res);

/* ---- the pieces, for the tests ---- */

/* The run's fields on the full lattice, lexicographic: fat[s][k][18], lng[s][k][18] (random SU(3)) and
 * vec[s][6] (every site). */
void staggered_random_fields(const unsigned dims[4], uint64_t seed, double *fat, double *lng, double *vec);

/* One application through the backend, untimed: out[s] = (D vec)(s) on the odd sites, zero on the even ones
 * (same arrays as staggered_ref_dslash). p is resolved (staggered_resolve). */
int staggered_apply(const struct pp_backend *b, struct pp_ctx *ctx, const struct staggered_params *p,
                    const double *fat, const double *lng, const double *vec, double *out,
                    struct pp_error *err) PP_WUR;

#endif
