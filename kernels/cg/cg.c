/*
 * cg: the CG-solve suite driver. Runs on the thread that calls cg_run; owns the host matrix, vectors and
 * timing series it allocates (the series and residual histories until cg_result_release), borrows the model's
 * context and its ops (pp_backend_ops(b, "cg")).
 *
 * Run order (docs/METHODOLOGY.md): numtimes samples of each selected kernel in the order axpby, dot, spmv,
 * cg, each kernel verified right after its samples. Every call blocks and is timed with the host's monotonic
 * clock; times[0] is the warm-up. The standalone kernels work on fixed operands (P and R: cg_test_vector;
 * axpby X = 0.75 P - 1.25 R, dot P.R, spmv AP = A P), so every sample computes the same values and the
 * output is poisoned (NaN) before the last sample, whose output is verified. A cg sample is one solve from
 * x = 0 for the right-hand side B: its untimed setup, then its iterations timed together; the time is per
 * iteration.
 */
#include "cg.h"

#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cg/model.h"
#include "kernels/cpucache.h"
#include "lib/clock.h"

static const char *const kernel_names[CG_NKERNELS] = {"axpby", "dot", "spmv", "cg"};
static const char *const spmv_names[PP_CG_NSPMV] = {"native", "cusparse"};

/*
 * The cg kernel against the reference solve in the same precision (docs/METHODOLOGY.md), with relative
 * residuals rho_k = ||r_k|| / ||r_0||. CG's residual norm on this matrix is chaotic at its peaks (the
 * Dirichlet rows' eigenvalue 1 stands far from the interior's, about h): two correct solves that add in
 * different orders part at the peaks by a factor 2.3 at n = 30 (fp64 and fp32 alike), and even the lowest
 * residual so far drops a few iterations apart (a factor 3.1 seen at n = 30). So:
 *   the first CG_RES_TIGHT_ITERS iteration(s) agree to CG_RES_TIGHT_EPS machine epsilons, or, where more,
 *   to what the sums can differ by: the device's dots round over their longest chain of additions and a row
 *   over its 27 products (eps of the precision each), the reference's long-double dots over all rows
 *   (LDBL_EPSILON each); r_k = r_0 - alpha A p cancels, so the relative difference of ||r_k|| is that times
 *   rho_0 / rho_k; a safety factor of 10 (NVIDIA OpenCL at 1e6 rows parted from a double reference by
 *   2.2e-10 at rho_1 = 3.3e-3, where 1e4 epsilons are 2.2e-12); later iterations part sooner: an fp32 dot
 *   summed in fp32 is 2e-3 off the reference at iteration 3, n = 30;
 *   at every iteration the lowest residual so far (the envelope under the peaks) agrees within a factor
 *   CG_RES_FACTOR, until both are below CG_RES_FLOOR_* (rounding noise);
 *   the final residual is below the first, and the solution read back has a true residual ||b - A x||
 *   within CG_TRUE_FACTOR of the reference solution's (plus the floor).
 */
#define CG_RES_TIGHT_ITERS 1
#define CG_RES_TIGHT_EPS   1e4
#define CG_RES_FACTOR      10.0
#define CG_TRUE_FACTOR     10.0
#define CG_RES_FLOOR_FP64  1e-10
#define CG_RES_FLOOR_FP32  1e-4

const char *cg_kernel_name(enum cg_kernel k)
{
    return (unsigned)k < CG_NKERNELS ? kernel_names[k] : "?";
}

const char *cg_spmv_name(enum pp_cg_spmv v)
{
    return (unsigned)v < PP_CG_NSPMV ? spmv_names[v] : "?";
}

int cg_spmv_parse(const char *s, enum pp_cg_spmv *out, struct pp_error *err)
{
    for (unsigned v = 0; v < PP_CG_NSPMV; v++)
        if (strcmp(s, spmv_names[v]) == 0) {
            *out = (enum pp_cg_spmv)v;
            return 0;
        }
    return pp_error_set(err, "unknown spmv_variant \"%s\" (cg has native, cusparse)", s);
}

int cg_kernels_parse(const char *list, unsigned *mask, struct pp_error *err)
{
    const char *p = list;

    *mask = 0;
    while (*p) {
        size_t len = strcspn(p, ",");
        unsigned k;

        if (len == 0)
            return pp_error_set(err, "empty kernel name in \"%s\"", list);
        for (k = 0; k < CG_NKERNELS; k++)
            if (strlen(kernel_names[k]) == len && strncmp(p, kernel_names[k], len) == 0)
                break;
        if (k == CG_NKERNELS)
            return pp_error_set(err, "unknown kernel \"%.*s\" (cg has axpby, dot, spmv, cg)", (int)len, p);
        *mask |= 1u << k;
        p += len;
        if (*p == ',')
            p++;
    }
    if (*mask == 0)
        return pp_error_set(err, "no kernel selected");
    return 0;
}

void cg_params_default(struct cg_params *p)
{
    memset(p, 0, sizeof(*p));
    p->numtimes = CG_DEFAULT_NUMTIMES;
    p->iterations = CG_DEFAULT_ITERATIONS;
    p->prec = PP_FP64;
    p->kernels = CG_ALL_KERNELS;
}

double cg_working_set(unsigned n, enum pp_precision prec)
{
    const double beta = (double)pp_precision_bytes(prec), rows = (double)cg_rows(n), nnz = (double)cg_nnz(n);

    return 4.0 * (rows + 1) + nnz * (4.0 + beta) + (double)PP_CG_NVECTORS * rows * beta;
}

static bool pow2(unsigned v)
{
    return v && !(v & (v - 1));
}

int cg_resolve(struct cg_params *p, const struct pp_device *dev, struct pp_error *err)
{
    const struct pp_cg_ops *ops = dev->backend ? pp_backend_ops(dev->backend, "cg") : NULL;
    const char *model = dev->backend ? dev->backend->name : "?";
    const struct pp_cg_variant *v = &p->variant;
    double beta = (double)pp_precision_bytes(p->prec), rows, nnz, device, host;

    if (!ops)
        return pp_error_set(err, "model %s has no cg suite", model);
    if (p->n == 0) {
        p->n = dev->kind == PP_DEVICE_CPU ? CG_DEFAULT_N_CPU : CG_DEFAULT_N_GPU;
        while (cpucache_default_too_small(dev, cg_working_set(p->n, p->prec)) &&
               p->n + CG_DEFAULT_N_STEP <= CG_MAX_N)
            p->n += CG_DEFAULT_N_STEP;
    }
    if (p->n > CG_MAX_N)
        return pp_error_set(err,
                            "n must be from 1 to %u, got %u: (3n + 1)^3 matrix entries must fit 32-bit "
                            "row offsets",
                            CG_MAX_N, p->n);
    if (p->numtimes < 2)
        return pp_error_set(err, "numtimes must be at least 2 (the first sample is warm-up), got %u",
                            p->numtimes);
    if (p->iterations < 1 || p->iterations > CG_MAX_ITERATIONS)
        return pp_error_set(err, "iterations must be from 1 to %u, got %u", CG_MAX_ITERATIONS, p->iterations);
    if (!(p->tolerance >= 0.0 && p->tolerance < 1.0))
        return pp_error_set(err,
                            "tolerance must be in [0, 1) (a relative residual; 0 runs every iteration), "
                            "got %g",
                            p->tolerance);
    if ((p->kernels & CG_ALL_KERNELS) == 0)
        return pp_error_set(err, "no kernel selected");
    if (p->prec == PP_FP64 && !dev->fp64)
        return pp_error_set(err, "device %s does not support fp64 (use --float)", dev->name);
    if ((unsigned)v->spmv >= PP_CG_NSPMV || !(ops->spmv_variants & (1u << v->spmv)))
        return pp_error_set(err, "spmv_variant %s is not available on model %s", cg_spmv_name(v->spmv),
                            model);
    if (v->spmv == PP_CG_SPMV_CUSPARSE && (v->rows_per_group || v->items_per_row))
        return pp_error_set(err, "rows_per_group and items_per_row apply to spmv_variant native only");
    if (v->rows_per_group && (!pow2(v->rows_per_group) || v->rows_per_group > 1024))
        return pp_error_set(err, "rows_per_group must be a power of two from 1 to 1024, got %u",
                            v->rows_per_group);
    if (v->items_per_row && (!pow2(v->items_per_row) || v->items_per_row > 32))
        return pp_error_set(err, "items_per_row must be a power of two from 1 to 32, got %u",
                            v->items_per_row);
    if (v->items_per_row > 1 && dev->kind == PP_DEVICE_CPU && strcmp(model, "openmp") == 0)
        return pp_error_set(err, "items_per_row must be 1 on openmp (one thread per row), got %u",
                            v->items_per_row);
    if ((v->rows_per_group ? v->rows_per_group : 1) * (v->items_per_row ? v->items_per_row : 1) > 1024)
        return pp_error_set(err,
                            "rows_per_group x items_per_row must be at most 1024 work-items, got %u x %u",
                            v->rows_per_group, v->items_per_row);

    rows = (double)cg_rows(p->n);
    nnz = (double)cg_nnz(p->n);
    device = cg_working_set(p->n, p->prec);
    host = 4.0 * (rows + 1) + nnz * 12.0 + 8.0 * rows * 8.0; /* matrix, b, two operands, reference vectors */
    if (dev->kind == PP_DEVICE_CPU)
        device += host; /* one memory holds both */
    if (dev->mem_bytes && device > (double)dev->mem_bytes)
        return pp_error_set(
            err, "n = %u does not fit: the matrix and vectors need %.1f GB, the device has %.1f GB", p->n,
            device * 1e-9, (double)dev->mem_bytes * 1e-9);
    if (dev->max_alloc_bytes && nnz * (beta > 4 ? beta : 4) > (double)dev->max_alloc_bytes)
        return pp_error_set(err,
                            "n = %u does not fit: the matrix values need %.1f MB, the device's largest "
                            "allocation is %.1f MB",
                            p->n, nnz * beta * 1e-6, (double)dev->max_alloc_bytes * 1e-6);
    return 0;
}

/* ---- the solve ---- */

int cg_device_solve(const struct pp_cg_ops *ops, struct pp_ctx *ctx, unsigned iterations, double tolerance,
                    struct cg_solve *s, double *seconds, struct pp_error *err)
{
    double rr, beta = 0.0, t0;

    s->status = CG_DONE_ITERATIONS;
    s->iterations = 0;
    s->breakdown_pap = 0.0;
    /* setup, untimed: x = 0, r = b - A 0 = b, r.r */
    if (ops->fill(ctx, PP_CG_X, 0.0, err) || ops->axpby(ctx, PP_CG_R, 1.0, PP_CG_B, 0.0, PP_CG_B, err) ||
        ops->dot(ctx, PP_CG_R, PP_CG_R, &rr, err))
        return pp_error_prefix(err, "cg setup");
    s->residual[0] = sqrt(rr);
    t0 = clock_now();
    /* The paper's loop (Sec. 5), with r.r computed at the end of an iteration rather than at the start of the
     * next: every iteration is 3 AXPBY, 2 DOT and 1 SPMV, the first one included. */
    for (unsigned k = 1; k <= iterations; k++) {
        double pap, alpha, rr_new;

        if (rr == 0.0 || sqrt(rr) <= tolerance * s->residual[0]) {
            s->status = CG_CONVERGED;
            break;
        }
        if (k == 1 ? ops->axpby(ctx, PP_CG_P, 1.0, PP_CG_R, 0.0, PP_CG_R, err)
                   : ops->axpby(ctx, PP_CG_P, 1.0, PP_CG_R, beta, PP_CG_P, err))
            return pp_error_prefix(err, "cg iteration %u: p = r + beta p", k);
        if (ops->spmv(ctx, PP_CG_AP, PP_CG_P, err))
            return pp_error_prefix(err, "cg iteration %u: Ap = A p", k);
        if (ops->dot(ctx, PP_CG_AP, PP_CG_P, &pap, err))
            return pp_error_prefix(err, "cg iteration %u: p.Ap", k);
        if (!(pap > 0.0) || !isfinite(pap)) {
            s->status = CG_BREAKDOWN;
            s->breakdown_pap = pap;
            break;
        }
        alpha = rr / pap;
        if (ops->axpby(ctx, PP_CG_X, 1.0, PP_CG_X, alpha, PP_CG_P, err) ||
            ops->axpby(ctx, PP_CG_R, 1.0, PP_CG_R, -alpha, PP_CG_AP, err))
            return pp_error_prefix(err, "cg iteration %u: x, r update", k);
        if (ops->dot(ctx, PP_CG_R, PP_CG_R, &rr_new, err))
            return pp_error_prefix(err, "cg iteration %u: r.r", k);
        beta = rr_new / rr;
        rr = rr_new;
        s->iterations = k;
        s->residual[k] = sqrt(rr);
    }
    if (seconds)
        *seconds = clock_now() - t0;
    return 0;
}

/* ---- verification ---- */

static double eps(enum pp_precision prec)
{
    return prec == PP_FP32 ? (double)FLT_EPSILON : DBL_EPSILON;
}

/* Element-wise: |got - want| / scale against tol; the worst element (NaN counts as infinite) named. */
static void check_elements(struct suite_kernel *kr, const char *what, const double *got, const double *want,
                           const double *scale, size_t n, double tol)
{
    size_t worst = 0;
    double max = -1.0;

    for (size_t i = 0; i < n; i++) {
        double e = fabs(got[i] - want[i]) / (scale[i] > 0 ? scale[i] : 1.0);
        if (isnan(e))
            e = INFINITY;
        if (e > max) {
            max = e;
            worst = i;
        }
    }
    kr->verified = true;
    kr->max_rel_err = max;
    kr->tolerance = tol;
    if (!(max <= tol))
        sample_fail(kr, max, tol,
                    "%s: element %zu = %.17g, expected %.17g (error %.3g of the scale %.3g > %.3g)", what,
                    worst, got[worst], want[worst], max, scale[worst], tol);
}

/* ---- the run ---- */

struct host {
    struct cg_matrix m;
    double *b, *p, *r;       /* right-hand side, operands, rounded to the precision */
    double *out, *ref, *aux; /* read-back, reference, scales */
};

static void host_release(struct host *h)
{
    cg_matrix_release(&h->m);
    free(h->b);
    free(h->p);
    free(h->r);
    free(h->out);
    free(h->ref);
    free(h->aux);
    memset(h, 0, sizeof(*h));
}

/* Test-only hook (docs/METHODOLOGY.md): PPBENCH_TEST_FAULT=column[:<row>] moves the diagonal entry of that
 * row (default rows / 2) to the next column in what is uploaded; the reference keeps the true matrix, so spmv
 * and cg must fail and spmv name the row. PPBENCH_TEST_FAULT=crash raises SIGSEGV. Returns the entry changed
 * (and its true column in *saved), or SIZE_MAX. */
static size_t plant_fault(struct cg_matrix *m, uint32_t *saved)
{
    const char *spec = getenv("PPBENCH_TEST_FAULT");
    size_t len, row = m->rows / 2;

    if (!spec || !*spec)
        return SIZE_MAX;
    if (!strcmp(spec, "crash"))
        raise(SIGSEGV);
    len = strcspn(spec, ":");
    if (len != 6 || strncmp(spec, "column", 6) != 0)
        return SIZE_MAX;
    if (spec[len] == ':')
        row = strtoull(spec + len + 1, NULL, 10);
    if (row >= m->rows)
        row = m->rows - 1;
    for (size_t e = m->row_ptr[row]; e < m->row_ptr[row + 1]; e++)
        if (m->col[e] == row) {
            *saved = m->col[e];
            m->col[e] = (uint32_t)((row + 1) % m->rows);
            return e;
        }
    return SIZE_MAX;
}

static int host_build(struct host *h, const struct cg_params *p, struct pp_error *err)
{
    size_t rows = (size_t)cg_rows(p->n), bytes = rows * sizeof(double);

    if (cg_matrix_build(p->n, &h->m, err))
        return -1;
    h->b = malloc(bytes);
    h->p = malloc(bytes);
    h->r = malloc(bytes);
    h->out = malloc(bytes);
    h->ref = malloc(bytes);
    h->aux = malloc(bytes);
    if (!h->b || !h->p || !h->r || !h->out || !h->ref || !h->aux)
        return pp_error_set(err, "out of host memory for the vectors of %zu rows", rows);
    cg_rhs(p->n, h->b);
    cg_round(h->b, rows, p->prec);
    cg_test_vector(rows, 1, h->p);
    cg_test_vector(rows, 2, h->r);
    return 0;
}

/* A call of one kernel: its operands and where its result goes. */
struct call {
    const struct pp_cg_ops *ops;
    struct pp_ctx *ctx;
    enum cg_kernel kernel;
    double *sum;            /* dot */
    struct cg_solve *solve; /* cg */
    const struct cg_params *p;
};

/* The timed unit of a standalone kernel: one blocking call on the fixed operands (X = 0.75 P - 1.25 R, P.R,
 * AP = A P), which computes the same values every sample. */
static int apply(void *arg, unsigned *applications, double *seconds, struct pp_error *err)
{
    const struct call *c = arg;

    (void)applications, (void)seconds;
    switch (c->kernel) {
    case CG_AXPBY:
        return c->ops->axpby(c->ctx, PP_CG_X, CG_AXPBY_ALPHA, PP_CG_P, CG_AXPBY_BETA, PP_CG_R, err);
    case CG_DOT:
        return c->ops->dot(c->ctx, PP_CG_P, PP_CG_R, c->sum, err);
    default:
        return c->ops->spmv(c->ctx, PP_CG_AP, PP_CG_P, err);
    }
}

/* The timed unit of cg: one solve from x = 0, its untimed setup first; the time of its iterations, per
 * iteration it ran. */
static int apply_solve(void *arg, unsigned *applications, double *seconds, struct pp_error *err)
{
    const struct call *c = arg;

    if (cg_device_solve(c->ops, c->ctx, c->p->iterations, c->p->tolerance, c->solve, seconds, err))
        return -1;
    *applications = c->solve->iterations;
    return 0;
}

/* The outputs to NaN before the verified sample: axpby's X, spmv's AP, cg's P and AP. */
static int poison(void *arg, struct pp_error *err)
{
    const struct call *c = arg;

    switch (c->kernel) {
    case CG_AXPBY:
        return c->ops->fill(c->ctx, PP_CG_X, NAN, err);
    case CG_SPMV:
        return c->ops->fill(c->ctx, PP_CG_AP, NAN, err);
    default:
        return c->ops->fill(c->ctx, PP_CG_P, NAN, err) || c->ops->fill(c->ctx, PP_CG_AP, NAN, err) ? -1 : 0;
    }
}

/* numtimes samples of the kernel of c (times[0] the warm-up); its output poisoned before the last, which the
 * driver checks (the dot returns its sum from every call: nothing to poison). */
static int time_kernel(struct call *c, struct suite_kernel *kr, struct sample_progress *progress,
                       struct pp_error *err)
{
    const struct sample_rule rule = {
        .samples = c->p->numtimes, .iterations = 1, .stats = STATS_BEST, .poison = SAMPLE_POISON_LAST};
    const struct sample_kernel k = {.out = kr,
                                    .apply = c->kernel == CG_SOLVE ? apply_solve : apply,
                                    .poison = c->kernel == CG_DOT ? NULL : poison,
                                    .arg = c};

    return sample_run(&rule, &k, 1, progress, NULL, err);
}

static int run_standalone(const struct pp_cg_ops *ops, struct pp_ctx *ctx, struct cg_result *res,
                          struct host *h, enum cg_kernel kernel, struct suite_kernel *kr,
                          struct sample_progress *progress, struct pp_error *err)
{
    const enum pp_precision prec = res->params.prec;
    const size_t rows = res->rows;
    double sum = 0.0, t0;
    struct call call = {.ops = ops, .ctx = ctx, .kernel = kernel, .sum = &sum, .p = &res->params};

    if (time_kernel(&call, kr, progress, err))
        return -1;
    t0 = clock_now();
    if (kernel != CG_DOT && ops->download(ctx, kernel == CG_AXPBY ? PP_CG_X : PP_CG_AP, h->out, err))
        return pp_error_prefix(err, "%s: read-back", cg_kernel_name(kernel));
    res->read_seconds += clock_now() - t0;

    if (kernel == CG_AXPBY) {
        for (size_t i = 0; i < rows; i++) {
            h->ref[i] = CG_AXPBY_ALPHA * h->p[i] + CG_AXPBY_BETA * h->r[i]; /* exact in double */
            h->aux[i] = fabs(CG_AXPBY_ALPHA * h->p[i]) + fabs(CG_AXPBY_BETA * h->r[i]);
        }
        /* one rounding of the sum (the products are exact in either precision), FMA or not */
        check_elements(kr, "axpby", h->out, h->ref, h->aux, rows, 4 * eps(prec));
    } else if (kernel == CG_SPMV) {
        cg_ref_spmv(&h->m, prec, h->p, h->ref, h->aux);
        /* at most 27 products and 26 additions per row, in any order */
        check_elements(kr, "spmv: row", h->out, h->ref, h->aux, rows, 29 * eps(prec));
    } else {
        /* The reference sums in long double: a double sum of 3.4e6 terms was itself 1e-13 off (PoCL's fp64
         * dot was flagged against it at n = 150), where the device's bound is (chain + 2) epsilons. */
        long double want = 0.0L, scale = 0.0L;
        double tol, e;

        for (size_t i = 0; i < rows; i++) {
            want += (long double)h->p[i] * h->r[i];
            scale += fabsl((long double)h->p[i] * h->r[i]);
        }
        tol = (double)(res->variant.dot_chain + 2 > 16 ? res->variant.dot_chain + 2 : 16) * eps(prec);
        e = (double)(fabsl((long double)sum - want) / scale);
        kr->verified = true;
        kr->max_rel_err = isnan(e) ? INFINITY : e;
        kr->tolerance = tol;
        if (!(e <= tol))
            sample_fail(kr, e, tol, "dot: sum = %.17g, expected %.17g (relative error %.3g > %.3g)", sum,
                        (double)want, e, tol);
    }
    return 0;
}

/* Compare the cg kernel's last solve with the reference's. */
static int verify_solve(struct cg_result *res, struct host *h, struct suite_kernel *kr,
                        const struct cg_solve *dev, struct pp_error *err)
{
    const struct cg_params *p = &res->params;
    const double floor = p->prec == PP_FP32 ? CG_RES_FLOOR_FP32 : CG_RES_FLOOR_FP64;
    const double tight = CG_RES_TIGHT_EPS * eps(p->prec);
    struct cg_solve ref = {.residual = res->ref_residual};
    double r0, worst = 0.0, tr = 0.0, ref_tr = 0.0, env_dev = INFINITY, env_ref = INFINITY;
    unsigned common;

    /* h->ref receives the reference solution; h->aux the products A x */
    if (cg_ref_solve(&h->m, p->prec, h->b, p->iterations, p->tolerance, h->ref, &ref, err))
        return -1;
    res->ref_iterations = ref.iterations;
    kr->verified = true;
    kr->tolerance = CG_RES_FACTOR - 1;
    if (dev->status == CG_BREAKDOWN) {
        sample_fail(
            kr, INFINITY, kr->tolerance,
            "cg: breakdown in iteration %u: p.Ap = %.6g, not positive (reference: %s after %u iterations)",
            dev->iterations + 1, dev->breakdown_pap, cg_status_name(ref.status), ref.iterations);
        return 0;
    }
    r0 = ref.residual[0];
    common = dev->iterations < ref.iterations ? dev->iterations : ref.iterations;
    for (unsigned k = 0; k <= common; k++) {
        double rd = dev->residual[k] / r0, rf = ref.residual[k] / r0, e = fabs(rd - rf) / rf;
        if (isnan(e) || rf == 0.0)
            e = rd == rf ? 0.0 : INFINITY;
        env_dev = rd < env_dev ? rd : env_dev;
        env_ref = rf < env_ref ? rf : env_ref;
        if (env_dev <= floor && env_ref <= floor)
            break; /* both at rounding noise: nothing left to compare */
        double bound = fmax(tight, 10.0 *
                                       (eps(p->prec) * ((double)res->variant.dot_chain + 29.0) +
                                        (double)LDBL_EPSILON * (double)res->rows) /
                                       rf);
        if (k <= CG_RES_TIGHT_ITERS && !(e <= bound))
            sample_fail(
                kr, e, bound,
                "cg: iteration %u: relative residual %.9g, reference %.9g (relative difference %.3g > "
                "%.3g)",
                k, rd, rf, e, bound);
        e = fabs(env_dev - env_ref) / env_ref;
        worst = e > worst ? e : worst;
        if (!(env_dev <= CG_RES_FACTOR * env_ref && env_ref <= CG_RES_FACTOR * env_dev))
            sample_fail(kr, e, kr->tolerance,
                        "cg: iteration %u: lowest relative residual so far %.6g, reference %.6g (more than a "
                        "factor %g apart)",
                        k, env_dev, env_ref, CG_RES_FACTOR);
    }
    if (kr->verified)
        kr->max_rel_err = worst;
    if (dev->iterations != ref.iterations &&
        !(dev->residual[dev->iterations] <= floor * r0 && ref.residual[ref.iterations] <= floor * r0))
        sample_fail(kr, INFINITY, kr->tolerance,
                    "cg: stopped after %u iterations (%s), the reference after %u (%s)", dev->iterations,
                    cg_status_name(dev->status), ref.iterations, cg_status_name(ref.status));
    if (dev->iterations > 0 && !(dev->residual[dev->iterations] < dev->residual[0]))
        sample_fail(kr, INFINITY, kr->tolerance,
                    "cg: the residual did not decrease: %.6g after %u iterations, %.6g at the start",
                    dev->residual[dev->iterations], dev->iterations, dev->residual[0]);
    /* The solutions themselves: ||b - A x|| in double with the true matrix, read back against reference. */
    cg_ref_spmv(&h->m, p->prec, h->ref, h->aux, NULL);
    for (size_t i = 0; i < res->rows; i++)
        ref_tr += (h->b[i] - h->aux[i]) * (h->b[i] - h->aux[i]);
    cg_ref_spmv(&h->m, p->prec, h->out, h->aux, NULL);
    for (size_t i = 0; i < res->rows; i++)
        tr += (h->b[i] - h->aux[i]) * (h->b[i] - h->aux[i]);
    res->true_residual = sqrt(tr);
    if (!(sqrt(tr) <= CG_TRUE_FACTOR * sqrt(ref_tr) + floor * r0))
        sample_fail(
            kr, sqrt(tr) / r0, kr->tolerance,
            "cg: the solution read back has relative residual ||b - Ax|| = %.6g, the reference's %.6g",
            sqrt(tr) / r0, sqrt(ref_tr) / r0);
    return 0;
}

static int run_solve(const struct pp_cg_ops *ops, struct pp_ctx *ctx, struct cg_result *res, struct host *h,
                     struct suite_kernel *kr, struct sample_progress *progress, struct pp_error *err)
{
    const struct cg_params *p = &res->params;
    struct cg_solve s = {.residual = res->residual};
    struct call call = {.ops = ops, .ctx = ctx, .kernel = CG_SOLVE, .solve = &s, .p = p};
    double t0;

    if (time_kernel(&call, kr, progress, err))
        return -1;
    res->status = s.status;
    res->cg_iterations = s.iterations;
    res->converged = p->tolerance > 0 && s.residual[s.iterations] <= p->tolerance * s.residual[0];
    t0 = clock_now();
    if (ops->download(ctx, PP_CG_X, h->out, err))
        return pp_error_prefix(err, "cg: read-back");
    res->read_seconds += clock_now() - t0;
    if (verify_solve(res, h, kr, &s, err))
        return -1;
    if (kr->verified && p->tolerance > 0 && !res->converged)
        snprintf(kr->error, sizeof(kr->error),
                 "cg: did not converge: relative residual %.6g after %u iterations, tolerance %g",
                 s.residual[s.iterations] / s.residual[0], s.iterations, p->tolerance);
    return 0;
}

int cg_run(const struct pp_backend *b, struct pp_ctx *ctx, const struct cg_params *p, struct cg_result *res,
           struct pp_error *err)
{
    const struct pp_cg_ops *ops = pp_backend_ops(b, "cg");
    struct host h;
    struct sample_progress progress = {.fn = p->progress, .arg = p->progress_arg};
    uint32_t saved = 0;
    size_t faulty;
    double t0;
    int rc = -1, allocated = 0;

    memset(res, 0, sizeof(*res));
    memset(&h, 0, sizeof(h));
    res->params = *p;
    if (!ops)
        return pp_error_set(err, "model %s has no cg suite", b->name);
    if (p->n < 1 || p->n > CG_MAX_N || p->numtimes < 2 || p->iterations < 1)
        return pp_error_set(err, "cg parameters not resolved: n %u, numtimes %u, iterations %u", p->n,
                            p->numtimes, p->iterations);
    res->rows = (size_t)cg_rows(p->n);
    res->nnz = (size_t)cg_nnz(p->n);
    for (unsigned k = 0; k < CG_NKERNELS; k++) {
        struct suite_kernel *kr;
        struct suite_model m;

        if (!(p->kernels & (1u << k)))
            continue;
        res->which[res->nkernels] = (enum cg_kernel)k;
        kr = &res->kernels[res->nkernels++];
        kr->name = kernel_names[k];
        cg_model((enum cg_kernel)k, p->n, p->prec, &m);
        kr->bytes = m.bytes;
        kr->bytes_compulsory = m.bytes_compulsory;
        kr->flops = m.flops;
        progress.total += p->numtimes;
    }
    if (!(res->residual = calloc(p->iterations + 1, sizeof(double))) ||
        !(res->ref_residual = calloc(p->iterations + 1, sizeof(double)))) {
        pp_error_set(err, "out of memory for the residual histories");
        goto out;
    }

    t0 = clock_now();
    if (host_build(&h, p, err))
        goto out;
    res->build_seconds = clock_now() - t0;

    res->variant = p->variant;
    if (ops->alloc(ctx, res->rows, res->nnz, p->prec, &res->variant, err))
        goto out;
    allocated = 1;
    t0 = clock_now();
    faulty = plant_fault(&h.m, &saved);
    rc = ops->upload_matrix(ctx, h.m.row_ptr, h.m.col, h.m.val, err);
    if (faulty != SIZE_MAX)
        h.m.col[faulty] = saved; /* the reference keeps the true matrix */
    if (rc || ops->upload(ctx, PP_CG_B, h.b, err) || ops->upload(ctx, PP_CG_P, h.p, err) ||
        ops->upload(ctx, PP_CG_R, h.r, err)) {
        rc = -1;
        goto out;
    }
    rc = -1;
    res->init_seconds = clock_now() - t0;

    for (size_t i = 0; i < res->nkernels; i++) {
        struct suite_kernel *kr = &res->kernels[i];

        if (res->which[i] == CG_SOLVE ? run_solve(ops, ctx, res, &h, kr, &progress, err)
                                      : run_standalone(ops, ctx, res, &h, res->which[i], kr, &progress, err))
            goto out;
    }
    res->verified = sample_all_verified(res->kernels, res->nkernels);
    rc = 0;
out:
    if (allocated)
        ops->release(ctx);
    host_release(&h);
    if (rc)
        cg_result_release(res);
    return rc;
}

void cg_result_release(struct cg_result *res)
{
    for (size_t i = 0; i < res->nkernels; i++)
        sample_kernel_release(&res->kernels[i]);
    res->nkernels = 0;
    free(res->residual);
    free(res->ref_residual);
    res->residual = res->ref_residual = NULL;
}
