/*
 * wilson: the Wilson Dslash suite driver. Runs on the thread that calls wilson_run; owns the host fields and
 * the timing series it allocates (the series is freed by wilson_result_release), borrows the backend context.
 *
 * Order (docs/METHODOLOGY.md): generate the links and spinor from the seed on the full lattice; pack them
 * into the canonical arrays (per output site its 8 links, the even-site spinor, the neighbour table); upload;
 * time numtimes samples, each one blocking call of `iterations` applications back to back, recorded per
 * application (times[0] is the warm-up); download; check every component of every odd site against
 * wilson_ref, which works from the unpacked full-lattice fields.
 */
#include "wilson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/fielddump.h"
#include "kernels/lattice.h"
#include "kernels/wilson/model.h"
#include "kernels/wilson/wilson_ref.h"
#include "lib/clock.h"

static const char *const layout_names[PP_WILSON_NLAYOUTS] = {"aos", "soa", "aosoa"};

void wilson_params_default(struct wilson_params *p)
{
    memset(p, 0, sizeof(*p)); /* dims 0: the device's default lattice */
    p->numtimes = WILSON_DEFAULT_NUMTIMES;
    p->iterations = WILSON_DEFAULT_ITERATIONS;
    p->prec = PP_FP32;
    p->layout = PP_WILSON_AOS;
    p->seed = WILSON_DEFAULT_SEED;
}

const char *wilson_layout_name(enum pp_wilson_layout l)
{
    return (unsigned)l < PP_WILSON_NLAYOUTS ? layout_names[l] : "?";
}

int wilson_layout_parse(const char *s, enum pp_wilson_layout *out, struct pp_error *err)
{
    for (int l = 0; l < PP_WILSON_NLAYOUTS; l++)
        if (strcmp(s, layout_names[l]) == 0) {
            *out = (enum pp_wilson_layout)l;
            return 0;
        }
    return pp_error_set(
        err,
        "unknown layout \"%s\" (wilson has aos: site-major, soa: structure of arrays, aosoa: soa in "
        "blocks of 32 sites)",
        s);
}

/* Host bytes per lattice site while a run holds its fields (doubles): u 72, psi 24, packed links 72, even
 * spinor 12, output 12, reference 24, scale 1; neighbour table 16. */
#define HOST_BYTES_PER_SITE (217.0 * 8 + 16)

/* Device bytes per output site: 8 links (144 reals), the even spinor (24) and the output (24); 8 neighbours.
 */
static double device_bytes_per_output_site(enum pp_precision prec)
{
    return (144.0 + 48.0) * (double)pp_precision_bytes(prec) + 32.0;
}

double wilson_working_set(const struct wilson_params *p)
{
    return (double)lattice_volume(p->dims) / 2 * device_bytes_per_output_site(p->prec);
}

int wilson_resolve(struct wilson_params *p, const struct pp_device *dev, struct pp_error *err)
{
    if (lattice_resolve(p->dims, dev, device_bytes_per_output_site(p->prec) / 2, err))
        return -1;
    if (p->numtimes < 2)
        return pp_error_set(err, "numtimes must be at least 2 (the first sample is warm-up), got %u",
                            p->numtimes);
    if (p->iterations < 1 || p->iterations > WILSON_MAX_ITERATIONS)
        return pp_error_set(err, "iterations must be from 1 to %u, got %u", WILSON_MAX_ITERATIONS,
                            p->iterations);
    if ((unsigned)p->layout >= PP_WILSON_NLAYOUTS)
        return pp_error_set(err, "layout %d out of range", (int)p->layout);
    if (p->prec == PP_FP64 && !dev->fp64)
        return pp_error_set(err, "device %s does not support fp64", dev->name);
    return lattice_check_memory(p->dims, dev, device_bytes_per_output_site(p->prec), HOST_BYTES_PER_SITE,
                                err);
}

/* ---- fields ---- */

void wilson_random_fields(const unsigned dims[4], uint64_t seed, double *u, double *psi)
{
    size_t volume = lattice_volume(dims);
    uint64_t state = seed;

    lattice_random_su3_fill(&state, u, volume * 4); /* site by site, mu fastest */
    lattice_random_fill(&state, psi, volume * 24);
}

/* The canonical arrays of struct pp_wilson_ops from the full-lattice fields. The checkerboard index of site s
 * is s / 2 (x extent even: each row of x holds X/2 sites of each parity, in order). */
static void pack(const unsigned dims[4], const double *u, const double *psi, double *gauge, double *spinor,
                 uint32_t *nbr)
{
    size_t volume = lattice_volume(dims), n = volume / 2;

#pragma omp parallel for schedule(static)
    for (size_t s = 0; s < volume; s++) {
        unsigned c[4];
        size_t i = s / 2;

        lattice_coords(dims, s, c);
        if (lattice_parity(c) == 0) {
            memcpy(&spinor[i * 24], &psi[s * 24], 24 * sizeof(double));
            continue;
        }
        for (int mu = 0; mu < 4; mu++) {
            size_t sf = lattice_shift(dims, s, mu, 1), sb = lattice_shift(dims, s, mu, -1);
            memcpy(&gauge[(i * 8 + 2 * (size_t)mu) * 18], &u[(s * 4 + (size_t)mu) * 18], 18 * sizeof(double));
            memcpy(&gauge[(i * 8 + 2 * (size_t)mu + 1) * 18], &u[(sb * 4 + (size_t)mu) * 18],
                   18 * sizeof(double));
            nbr[(2 * (size_t)mu) * n + i] = (uint32_t)(sf / 2);
            nbr[(2 * (size_t)mu + 1) * n + i] = (uint32_t)(sb / 2);
        }
    }
}

struct fields {
    size_t volume, n;
    double *u, *psi;        /* full lattice */
    double *gauge, *spinor; /* packed */
    uint32_t *nbr;
    double *out;      /* n sites from the device: the last timed sample's output */
    double *out_warm; /* the warm-up's output */
};

static void fields_release(struct fields *f)
{
    free(f->u);
    free(f->psi);
    free(f->gauge);
    free(f->spinor);
    free(f->nbr);
    free(f->out);
    free(f->out_warm);
    memset(f, 0, sizeof(*f));
}

static int fields_alloc(struct fields *f, const unsigned dims[4], bool full, struct pp_error *err)
{
    memset(f, 0, sizeof(*f));
    f->volume = lattice_volume(dims);
    f->n = f->volume / 2;
    if (full) {
        f->u = malloc(f->volume * 72 * sizeof(double));
        f->psi = malloc(f->volume * 24 * sizeof(double));
    }
    f->gauge = malloc(f->n * 144 * sizeof(double));
    f->spinor = malloc(f->n * 24 * sizeof(double));
    f->nbr = malloc(f->n * 8 * sizeof(uint32_t));
    f->out = malloc(f->n * 24 * sizeof(double));
    f->out_warm = malloc(f->n * 24 * sizeof(double));
    if ((full && (!f->u || !f->psi)) || !f->gauge || !f->spinor || !f->nbr || !f->out || !f->out_warm) {
        fields_release(f);
        return pp_error_set(err, "out of host memory for the fields of %zu sites", f->volume);
    }
    return 0;
}

int wilson_apply(const struct pp_backend *b, struct pp_ctx *ctx, const struct wilson_params *p,
                 const double *u, const double *psi, double *out, struct pp_error *err)
{
    const struct pp_wilson_ops *ops = pp_backend_ops(b, "wilson");
    struct pp_wilson_variant variant;
    struct fields f;
    int rc = -1;

    if (!ops)
        return pp_error_set(err, "model %s has no wilson suite", b->name);
    if (fields_alloc(&f, p->dims, false, err))
        return -1;
    pack(p->dims, u, psi, f.gauge, f.spinor, f.nbr);
    if (ops->alloc(ctx, f.n, p->dims, p->prec, p->layout, &variant, err))
        goto out;
    if (ops->upload(ctx, f.gauge, f.spinor, f.nbr, err) || ops->dslash(ctx, 1, err) ||
        ops->download(ctx, f.out, err))
        goto out_release;
    lattice_unpack_odd(p->dims, 24, f.out, out);
    rc = 0;
out_release:
    ops->release(ctx);
out:
    fields_release(&f);
    return rc;
}

/* The test-only dump (kernels/fielddump.h), whatever verification found: the fields as generated and both
 * outputs as read back, for the second reference (tests/ref/dslash.py). */
static int dump(const struct wilson_params *p, const struct pp_backend *b, const struct fields *f,
                struct pp_error *err)
{
    const char *dir = fielddump_dir();
    const struct fielddump_array arrays[] = {
        {"u", f->u, true, 4, {4, 3, 3, 2}},   /* [t][z][y][x][mu][a][b][re, im] */
        {"psi", f->psi, true, 3, {4, 3, 2}},  /* [t][z][y][x][spin][colour][re, im] */
        {"out", f->out, false, 3, {4, 3, 2}}, /* the last sample's, [odd site s / 2][spin][colour][re, im] */
        {"out_warmup", f->out_warm, false, 3, {4, 3, 2}}, /* the warm-up's */
    };

    return dir ? fielddump_write(dir, "wilson", b->name, p->dims, p->prec, p->seed, arrays,
                                 sizeof(arrays) / sizeof(arrays[0]), err)
               : 0;
}

/* Returns -1 only when the host cannot hold the reference (a runtime failure, not a failed check). */
static int verify(struct wilson_result *res, const struct fields *f, struct pp_error *err)
{
    const struct wilson_params *p = &res->params;
    double *ref = malloc(f->volume * 24 * sizeof(double)), *scale = malloc(f->volume * sizeof(double));
    struct lattice_check check, warm;
    int rc = -1;

    if (!ref || !scale) {
        pp_error_set(err, "out of host memory for the reference of %zu sites", f->volume);
        goto out;
    }
    wilson_ref_dslash(p->dims, 1, f->u, f->psi, ref, scale);
    /* the warm-up's output, then the last timed sample's; each was poisoned before its sample */
    lattice_check_odd(p->dims, 24, p->prec, f->out_warm, ref, scale, &warm);
    lattice_check_odd(p->dims, 24, p->prec, f->out, ref, scale, &check);
    lattice_check_samples(&warm, &check, &res->dslash);
    rc = 0;
out:
    free(ref);
    free(scale);
    return rc;
}

int wilson_run(const struct pp_backend *b, struct pp_ctx *ctx, const struct wilson_params *p,
               struct wilson_result *res, struct pp_error *err)
{
    const struct pp_wilson_ops *ops = pp_backend_ops(b, "wilson");
    /* Verification sees the warm-up sample and the last timed one: the output is poisoned (NaN) before each
     * and read back after it, outside the timed region, so a site that no application of the sample writes
     * fails, whatever earlier samples left there. */
    const struct sample_rule rule = {.samples = p->numtimes,
                                     .iterations = p->iterations,
                                     .stats = STATS_BEST,
                                     .poison = SAMPLE_POISON_WARMUP | SAMPLE_POISON_LAST};
    struct sample_progress progress = {.fn = p->progress, .arg = p->progress_arg, .total = p->numtimes};
    struct fields f;
    struct lattice_calls calls;
    struct sample_kernel k;
    struct suite_model m;
    double t0;
    int rc = -1, allocated = 0;

    memset(res, 0, sizeof(*res));
    res->params = *p;
    if (!ops)
        return pp_error_set(err, "model %s has no wilson suite", b->name);
    if (lattice_check_extents(p->dims, err))
        return pp_error_prefix(err, "wilson parameters not resolved");
    if (p->iterations < 1 || p->numtimes < 2)
        return pp_error_set(err, "wilson parameters not resolved: %u samples of %u iterations", p->numtimes,
                            p->iterations);
    if (fields_alloc(&f, p->dims, true, err))
        return -1;
    res->sites = f.volume;
    res->out_sites = f.n;
    res->dslash.name = "dslash";
    wilson_model(p->dims, p->prec, &m);
    res->dslash.flops = m.flops;
    res->dslash.bytes = m.bytes;
    res->dslash.bytes_compulsory = m.bytes_compulsory;
    wilson_random_fields(p->dims, p->seed, f.u, f.psi);
    pack(p->dims, f.u, f.psi, f.gauge, f.spinor, f.nbr);
    /* the test hook: the forward x link U_x(x) of an output site, its forward x neighbour */
    lattice_plant_fault(f.n, f.gauge, 144, f.nbr);

    if (ops->alloc(ctx, f.n, p->dims, p->prec, p->layout, &res->variant, err))
        goto out;
    allocated = 1;
    t0 = clock_now();
    if (ops->upload(ctx, f.gauge, f.spinor, f.nbr, err))
        goto out;
    res->init_seconds = clock_now() - t0;
    calls = (struct lattice_calls){ctx, ops->dslash, ops->poison, ops->download, f.out_warm};
    k = lattice_sample_kernel(&calls, &res->dslash);
    if (sample_run(&rule, &k, 1, &progress, NULL, err))
        goto out;
    t0 = clock_now();
    if (ops->download(ctx, f.out, err))
        goto out;
    res->read_seconds = clock_now() - t0;

    if (verify(res, &f, err) || dump(p, b, &f, err))
        goto out;
    rc = 0;
out:
    if (allocated)
        ops->release(ctx);
    fields_release(&f);
    return rc;
}

void wilson_result_release(struct wilson_result *res)
{
    sample_kernel_release(&res->dslash);
}
