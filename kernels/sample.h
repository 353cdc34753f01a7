/*
 * sample: the one sample loop of every suite driver (docs/METHODOLOGY.md, "the measurement rules"). A driver
 * keeps what is its own (its problem, its byte and flop models, its reference check) and hands the loop its
 * kernels as struct sample_kernel (the timed call and the untimed poisoning and read-back around it) and its
 * timing rule as struct sample_rule; the loop does what every suite shares, in one place:
 *
 *   - the warm-up: sample 0 of the series (kept in times, left out of the statistics), or, where the rule
 *     says so (MILC's), one application before the series, timed apart;
 *   - poisoning: the outputs set to NaN (or zero, for kernels that accumulate) before the samples the driver
 *     verifies (the warm-up, the last, or every one), outside the timed region, and the warm-up's output read
 *     back after it: "verify every sample you time can have been right";
 *   - timing: each kernel call blocks, is timed alone with the host's one clock (lib/clock.h), and its time
 * is divided by the applications it holds (the timed unit is one application);
 *   - interleaving: the kernels given together run round by round (BabelStream's copy, mul, add, triad, dot
 *     per iteration); a driver that runs its kernels one after the other calls the loop once per kernel;
 *   - statistics (lib/stats.c) over the series without the warm-up, and the rates from the rule's statistic
 *     (minimum or mean), written into the kernel's struct suite_kernel, which the report reads as it is.
 *
 * The verification itself stays the driver's (it knows its reference); sample_fail and sample_all_verified
 * are the bookkeeping every driver's checks share. Runs on the driver's thread; the times a kernel's series
 * holds are the struct suite_kernel's, freed by sample_kernel_release.
 */
#ifndef PP_SAMPLE_H
#define PP_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"
#include "lib/stats.h"

/* What the report says of one kernel (the same for every suite; the runner reads it as it is, through struct
 * suite_output): the driver sets its name and models and checks it; the sample loop fills its times and
 * figures. */
struct suite_kernel {
    const char *name;
    bool verified;
    char error[256]; /* the failure, read when !verified: what, where, value, expected */
    /* bytes: the paper's byte model per timed unit; bytes_compulsory: the compulsory traffic (each input
     * read once, each output written once), the least any implementation moves, which bounds the
     * architectural efficiency (docs/METHODOLOGY.md); bandwidth is bytes / seconds, the timing rule's time.
     */
    double bytes, bytes_compulsory, flops;
    double seconds; /* the timing rule's statistic of the samples (minimum or mean), per application */
    double bandwidth, gflops;
    struct pp_stats stats; /* over the timed samples, the warm-up left out */
    double *times;         /* ntimes samples, as measured (a warm-up included where the suite times one) */
    size_t ntimes;
    double max_rel_err, tolerance;
};

/* Which samples have their outputs poisoned, outside the timed region (bits). */
enum sample_poison {
    /* none: every sample's work flows into the outputs the driver checks at the end (STREAM's arrays are a
     * recurrence over every iteration, which the reference replays) */
    SAMPLE_POISON_NONE = 0,
    SAMPLE_POISON_WARMUP = 1u << 0, /* the warm-up, whose output keep_warmup reads back */
    SAMPLE_POISON_LAST = 1u << 1,   /* the last sample, whose output the driver reads back and checks */
    SAMPLE_POISON_EVERY = 1u << 2,  /* every sample (kernels that accumulate into their outputs) */
};

/* A suite's timing rule: what a sample is and which statistic its rates come from. */
struct sample_rule {
    unsigned samples;    /* the series: numtimes (the warm-up its first), or runs after a warm-up apart */
    unsigned iterations; /* applications per sample, back to back; a sample's time is per application */
    /* true: one warm-up application before the series, timed apart (MILC's rule: the series is all timed
     * samples); false: sample 0 of the series is the warm-up, kept in times, out of the statistics */
    bool warmup_apart;
    enum stats_rule stats; /* STATS_BEST: rates from the minimum; STATS_MEAN: from the mean */
    unsigned poison;       /* enum sample_poison bits */
};

/* One kernel of a series: its report entry and the calls around its timed unit. */
struct sample_kernel {
    /* The report's entry: name and models (bytes, bytes_compulsory, flops) set by the driver; the loop fills
     * times, ntimes, stats, seconds, bandwidth and gflops. Verification stays the driver's. */
    struct suite_kernel *out;
    /* The timed unit: *applications applications back to back (the rule's iterations; 1 for a warm-up
     * apart), blocking. The loop times the call; a call that holds untimed work (a solver's setup) times its
     * own part into *seconds (left negative otherwise) and may lower *applications to what it ran. */
    int (*apply)(void *arg, unsigned *applications, double *seconds, struct pp_error *err);
    /* The outputs to NaN, or to zero for kernels that accumulate; NULL: nothing to poison (a dot returns its
     * sum from every call). Called before the samples the rule's poison names. */
    int (*poison)(void *arg, struct pp_error *err);
    /* After the warm-up: its output read back for verification; NULL: not kept. */
    int (*keep_warmup)(void *arg, struct pp_error *err);
    void *arg;
};

/* The run's progress over every series of a driver: done of total samples (rounds), after each. */
struct sample_progress {
    void (*fn)(void *arg, unsigned done, unsigned total); /* NULL: not reported */
    void *arg;
    unsigned done, total;
};

/* Run the rule's series over k[0..n) round by round, then fill each k[i].out's times and statistics. A
 * warm-up apart has its time (one application of each kernel, summed) in *warmup_seconds (may be NULL). -1
 * only when a call fails (err names the kernel, the sample and the step) or the times cannot be allocated. */
int sample_run(const struct sample_rule *rule, const struct sample_kernel *k, size_t n,
               struct sample_progress *progress, double *warmup_seconds, struct pp_error *err) PP_WUR;

/* The rule's statistics over times and the rates from them into out (its bytes and flops set): stats over
 * the series without the warm-up in it, seconds the rule's statistic, bandwidth and gflops from it (0 when it
 * is 0). sample_run calls it; exposed for the tests. */
void sample_figures(const struct sample_rule *rule, struct suite_kernel *out);

/* A failed check of k: verified false and the reason (the first one is kept, with its error and bound);
 * printf-style. */
void sample_fail(struct suite_kernel *k, double max_rel_err, double tolerance, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Whether every kernel of k[0..n) verified. */
bool sample_all_verified(const struct suite_kernel *k, size_t n);

/* Frees the kernel's times (NULL-safe); the rest of it stays. */
void sample_kernel_release(struct suite_kernel *k);

#endif
