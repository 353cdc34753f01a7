/*
 * Unit tests of the Wilson Dslash suite: the reference's gamma matrices and links, properties that hold for
 * any correct Dslash and so catch a wrong reference too (the free-field identity, gauge covariance), the
 * backends against the reference in every layout and precision (OpenMP, and OpenCL where a CPU device such as
 * PoCL is installed), the flop and byte models, the timing of back-to-back iterations, the planted faults,
 * the spin tables and the parameter checks with the device's default lattice.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "kernels/lattice.h"
#include "kernels/opencl/opencl.h"
#include "kernels/openmp/openmp.h"
#include "kernels/wilson.h"
#include "kernels/wilson_dslash.h"
#include "kernels/wilson_gpu.h"
#include "kernels/wilson_ref.h"
#include "su3.h"

static const unsigned dims44[4] = {4, 4, 4, 4}, dims4448[4] = {4, 4, 4, 8};

/* The models under test, opened once by main: openmp, and opencl on its first CPU device when there is one.
 */
struct model {
    const struct pp_backend *b;
    struct pp_ctx *ctx;
};
static struct model models[2];
static size_t nmodels;

static void open_models(void)
{
    struct pp_device_list devs = {0};
    struct pp_error err;

    if (pp_backend_openmp.open(NULL, &models[nmodels].ctx, &err) == 0)
        models[nmodels++].b = &pp_backend_openmp;
    else
        CHECK(0, "openmp open: %s", err.msg);
    if (pp_backend_opencl.discover(&devs, &err) == 0)
        for (size_t i = 0; i < devs.len; i++) {
            if (devs.items[i].kind != PP_DEVICE_CPU)
                continue;
            CHECK(pp_backend_opencl.open(&devs.items[i], &models[nmodels].ctx, &err) == 0, "opencl open: %s",
                  err.msg);
            if (models[nmodels].ctx)
                models[nmodels++].b = &pp_backend_opencl;
            return;
        }
    printf("SKIP opencl wilson tests: no OpenCL CPU device\n");
}

static void close_models(void)
{
    for (size_t m = 0; m < nmodels; m++)
        models[m].b->close(models[m].ctx);
}

static size_t volume_of(const unsigned d[4])
{
    return (size_t)d[0] * d[1] * d[2] * d[3];
}

/* w = g v on each of the 4 spin components */
static void spinor_rotate(const double *g, const double *v, double *w)
{
    for (int s = 0; s < 4; s++)
        su3_times_vec(g, &v[s * 6], &w[s * 6]);
}

static void test_gamma_algebra(void)
{
    double g[4][4][4][2];

    for (int mu = 0; mu < 4; mu++)
        wilson_ref_gamma(mu, g[mu]);
    for (int mu = 0; mu < 4; mu++)
        for (int nu = 0; nu < 4; nu++)
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) {
                    double re = 0, im = 0; /* {gamma_mu, gamma_nu}_ij */
                    for (int k = 0; k < 4; k++) {
                        re += g[mu][i][k][0] * g[nu][k][j][0] - g[mu][i][k][1] * g[nu][k][j][1] +
                              g[nu][i][k][0] * g[mu][k][j][0] - g[nu][i][k][1] * g[mu][k][j][1];
                        im += g[mu][i][k][0] * g[nu][k][j][1] + g[mu][i][k][1] * g[nu][k][j][0] +
                              g[nu][i][k][0] * g[mu][k][j][1] + g[nu][i][k][1] * g[mu][k][j][0];
                    }
                    double want = (mu == nu && i == j) ? 2.0 : 0.0;
                    CHECK(re == want && im == 0, "{g%d, g%d}[%d][%d] = %g%+gi", mu, nu, i, j, re, im);
                    if (mu == nu) /* hermitian */
                        CHECK(g[mu][i][j][0] == g[mu][j][i][0] && g[mu][i][j][1] == -g[mu][j][i][1],
                              "gamma_%d hermitian at %d %d", mu, i, j);
                }
}

static void test_su3(void)
{
    uint64_t state = 7;
    double u[18], p[18];

    for (int t = 0; t < 100; t++) {
        lattice_random_su3(&state, u);
        su3_mul(u, u, 1, p);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                CHECK(fabs(p[(i * 3 + j) * 2] - (i == j)) < 1e-14 && fabs(p[(i * 3 + j) * 2 + 1]) < 1e-14,
                      "U U^dagger != 1 at %d %d", i, j);
        /* det by cofactors of row 0 */
        double dr = 0, di = 0;
        for (int c = 0; c < 3; c++) {
            int a = (c + 1) % 3, b = (c + 2) % 3;
            double xr = u[6 + 2 * a] * u[12 + 2 * b] - u[6 + 2 * a + 1] * u[12 + 2 * b + 1] -
                        (u[6 + 2 * b] * u[12 + 2 * a] - u[6 + 2 * b + 1] * u[12 + 2 * a + 1]);
            double xi = u[6 + 2 * a] * u[12 + 2 * b + 1] + u[6 + 2 * a + 1] * u[12 + 2 * b] -
                        (u[6 + 2 * b] * u[12 + 2 * a + 1] + u[6 + 2 * b + 1] * u[12 + 2 * a]);
            dr += u[2 * c] * xr - u[2 * c + 1] * xi;
            di += u[2 * c] * xi + u[2 * c + 1] * xr;
        }
        CHECK(fabs(dr - 1) < 1e-14 && fabs(di) < 1e-14, "det = %g%+gi", dr, di);
    }
}

/* Worst |a - b| / scale over the odd sites. */
static double odd_error(const unsigned d[4], const double *a, const double *b, const double *scale)
{
    double worst = 0;

    for (size_t s = 0; s < volume_of(d); s++) {
        unsigned c[4];
        wilson_ref_coords(d, s, c);
        if (((c[0] + c[1] + c[2] + c[3]) & 1) == 0)
            continue;
        for (int k = 0; k < 24; k++) {
            double e = fabs(a[s * 24 + (size_t)k] - b[s * 24 + (size_t)k]) / (scale ? scale[s] : 1.0);
            worst = isnan(e) || e > worst ? (isnan(e) ? INFINITY : e) : worst;
        }
    }
    return worst;
}

static void params_for(struct wilson_params *p, const unsigned d[4], enum pp_precision prec,
                       enum pp_wilson_layout layout)
{
    wilson_params_default(p);
    memcpy(p->dims, d, sizeof(p->dims));
    p->prec = prec;
    p->layout = layout;
}

/* Unit links and a constant spinor: D psi = 8 psi with (1 -+ gamma), through the reference and every variant.
 */
static void test_free_field(void)
{
    size_t v = volume_of(dims4448);
    double *u = calloc(v * 72, sizeof(double)), *psi = malloc(v * 24 * sizeof(double));
    double *out = malloc(v * 24 * sizeof(double)), *want = calloc(v * 24, sizeof(double));
    uint64_t state = 3;
    double c[24];
    struct pp_error err;

    for (int k = 0; k < 24; k++)
        c[k] = lattice_random(&state);
    for (size_t s = 0; s < v; s++) {
        for (int mu = 0; mu < 4; mu++)
            for (int a = 0; a < 3; a++)
                u[(s * 4 + (size_t)mu) * 18 + (size_t)(a * 4) * 2] = 1.0;
        memcpy(&psi[s * 24], c, sizeof(c));
        unsigned x[4];
        wilson_ref_coords(dims4448, s, x);
        if ((x[0] + x[1] + x[2] + x[3]) & 1)
            for (int k = 0; k < 24; k++)
                want[s * 24 + (size_t)k] = 8.0 * c[k];
    }
    wilson_ref_dslash(dims4448, 1, u, psi, out, NULL);
    CHECK(odd_error(dims4448, out, want, NULL) < 1e-14, "reference: D psi != 8 psi (error %g)",
          odd_error(dims4448, out, want, NULL));
    for (size_t m = 0; m < nmodels; m++)
        for (int l = 0; l < PP_WILSON_NLAYOUTS; l++)
            for (int prec = PP_FP64; prec <= PP_FP32; prec++) {
                struct wilson_params p;
                params_for(&p, dims4448, (enum pp_precision)prec, (enum pp_wilson_layout)l);
                CHECK(wilson_apply(models[m].b, models[m].ctx, &p, u, psi, out, &err) == 0, "apply: %s",
                      err.msg);
                double e = odd_error(dims4448, out, want, NULL);
                CHECK(e < (prec == PP_FP32 ? 1e-5 : 1e-13), "%s %s %s: D psi != 8 psi (error %g)",
                      models[m].b->name, wilson_layout_name(p.layout), pp_precision_name(p.prec), e);
            }
    free(u);
    free(psi);
    free(out);
    free(want);
}

/* Every layout and precision matches the reference on random fields, within the driver's bound. */
static void test_backend_matches_reference(void)
{
    const unsigned *shapes[2] = {dims44, dims4448};
    struct pp_error err;

    for (int sh = 0; sh < 2; sh++) {
        size_t v = volume_of(shapes[sh]);
        double *u = malloc(v * 72 * sizeof(double)), *psi = malloc(v * 24 * sizeof(double));
        double *out = malloc(v * 24 * sizeof(double)), *ref = malloc(v * 24 * sizeof(double));
        double *scale = malloc(v * sizeof(double));

        wilson_random_fields(shapes[sh], 11, u, psi);
        wilson_ref_dslash(shapes[sh], 1, u, psi, ref, scale);
        for (size_t m = 0; m < nmodels; m++)
            for (int l = 0; l < PP_WILSON_NLAYOUTS; l++)
                for (int prec = PP_FP64; prec <= PP_FP32; prec++) {
                    struct wilson_params p;
                    params_for(&p, shapes[sh], (enum pp_precision)prec, (enum pp_wilson_layout)l);
                    CHECK(wilson_apply(models[m].b, models[m].ctx, &p, u, psi, out, &err) == 0, "apply: %s",
                          err.msg);
                    double e = odd_error(shapes[sh], out, ref, scale);
                    double tol = prec == PP_FP32 ? 100 * 0x1.0p-23 : 100 * 0x1.0p-52;
                    CHECK(e <= tol, "%s %s %s on %ux%ux%ux%u: error %g > %g", models[m].b->name,
                          wilson_layout_name(p.layout), pp_precision_name(p.prec), p.dims[0], p.dims[1],
                          p.dims[2], p.dims[3], e, tol);
                    printf("# %s %s %s %ux%ux%ux%u: worst error %.3g of the site scale (bound %.3g)\n",
                           models[m].b->name, wilson_layout_name(p.layout), pp_precision_name(p.prec),
                           p.dims[0], p.dims[1], p.dims[2], p.dims[3], e, tol);
                }
        free(u);
        free(psi);
        free(out);
        free(ref);
        free(scale);
    }
}

/* U_mu(x) -> g(x) U_mu(x) g(x + mu)^dagger, psi(x) -> g(x) psi(x): D' psi'(x) = g(x) (D psi)(x). */
static void test_gauge_covariance(void)
{
    const unsigned *d = dims4448;
    size_t v = volume_of(d);
    double *u = malloc(v * 72 * sizeof(double)), *psi = malloc(v * 24 * sizeof(double));
    double *u2 = malloc(v * 72 * sizeof(double)), *psi2 = malloc(v * 24 * sizeof(double));
    double *g = malloc(v * 18 * sizeof(double)), *out = malloc(v * 24 * sizeof(double));
    double *out2 = malloc(v * 24 * sizeof(double)), *want = calloc(v * 24, sizeof(double));
    double tmp[18];
    uint64_t state = 99;
    struct pp_error err;

    wilson_random_fields(d, 5, u, psi);
    for (size_t s = 0; s < v; s++)
        lattice_random_su3(&state, &g[s * 18]);
    for (size_t s = 0; s < v; s++) {
        unsigned c[4], f[4];
        wilson_ref_coords(d, s, c);
        for (int mu = 0; mu < 4; mu++) {
            memcpy(f, c, sizeof(f));
            f[mu] = (c[mu] + 1) % d[mu];
            su3_mul(&g[s * 18], &u[(s * 4 + (size_t)mu) * 18], 0, tmp);
            su3_mul(tmp, &g[wilson_ref_index(d, f) * 18], 1, &u2[(s * 4 + (size_t)mu) * 18]);
        }
        spinor_rotate(&g[s * 18], &psi[s * 24], &psi2[s * 24]);
    }
    wilson_ref_dslash(d, 1, u, psi, out, NULL);
    for (size_t s = 0; s < v; s++)
        spinor_rotate(&g[s * 18], &out[s * 24], &want[s * 24]);
    wilson_ref_dslash(d, 1, u2, psi2, out2, NULL);
    CHECK(odd_error(d, out2, want, NULL) < 1e-12, "reference not covariant: error %g",
          odd_error(d, out2, want, NULL));
    for (size_t m = 0; m < nmodels; m++)
        for (int l = 0; l < PP_WILSON_NLAYOUTS; l++) {
            struct wilson_params p;
            params_for(&p, d, PP_FP64, (enum pp_wilson_layout)l);
            CHECK(wilson_apply(models[m].b, models[m].ctx, &p, u2, psi2, out2, &err) == 0, "apply: %s",
                  err.msg);
            CHECK(odd_error(d, out2, want, NULL) < 1e-12, "%s %s not covariant: error %g", models[m].b->name,
                  wilson_layout_name(p.layout), odd_error(d, out2, want, NULL));
        }
    /* and the check has teeth: without transforming psi the identity fails */
    wilson_ref_dslash(d, 1, u2, psi, out2, NULL);
    CHECK(odd_error(d, out2, want, NULL) > 1e-3, "covariance check cannot fail");
    free(u);
    free(psi);
    free(u2);
    free(psi2);
    free(g);
    free(out);
    free(out2);
    free(want);
}

/* A stand-in for the openmp model whose dslash counts the applications it is asked for and takes 20 ms for
 * each (one kernel call computes the output, the same for any count): the driver must divide a sample by the
 * iterations in it. */
static struct pp_wilson_ops counting_ops;
static unsigned counted_applications;

static int counting_dslash(struct pp_ctx *ctx, unsigned iterations, struct pp_error *err)
{
    struct timespec ts = {.tv_sec = 0, .tv_nsec = 20000000L * (long)iterations};

    counted_applications += iterations;
    nanosleep(&ts, NULL);
    return openmp_wilson_ops.dslash(ctx, 1, err);
}

static void test_models(void)
{
    struct pp_backend counting = pp_backend_openmp;
    struct wilson_params p;
    struct wilson_result res;
    struct pp_error err;

    CHECK(WILSON_FLOPS_PER_SITE == 8 * (2 * 66 + 12) + 7 * 24 && WILSON_FLOPS_PER_SITE == 1320,
          "1320 per site");
    CHECK(wilson_bytes_per_site(PP_FP32) == 1440 && wilson_bytes_per_site(PP_FP64) == 2880, "Eq. 2 bytes");
    CHECK(fabs(1320.0 / wilson_bytes_per_site(PP_FP32) - 0.9167) < 1e-4, "A = 0.92 flop/B in fp32 (paper)");
    for (size_t m = 0; m < nmodels; m++) {
        params_for(&p, dims4448, PP_FP32, PP_WILSON_SOA);
        p.numtimes = 3;
        CHECK(wilson_run(models[m].b, models[m].ctx, &p, &res, &err) == 0, "run: %s", err.msg);
        CHECK(res.verified, "%s run verified: %s", models[m].b->name, res.detail);
        CHECK(res.out_sites == 256 && res.flops == 1320.0 * 256 && res.bytes == 1440.0 * 256,
              "flops %g bytes %g", res.flops, res.bytes);
        CHECK(res.stats.count == 2 && res.stats.min > 0, "warm-up excluded: %zu", res.stats.count);
        CHECK(fabs(res.gflops - res.flops / res.stats.min * 1e-9) < 1e-9, "gflops from the minimum time");
        wilson_result_release(&res);
    }

    /* iterations: 3 samples of 5 back-to-back applications, each sample timed and divided by 5 */
    counting_ops = openmp_wilson_ops;
    counting_ops.dslash = counting_dslash;
    counting.wilson = &counting_ops;
    params_for(&p, dims44, PP_FP32, PP_WILSON_AOS);
    p.numtimes = 3;
    p.iterations = 5;
    counted_applications = 0;
    CHECK(wilson_run(&counting, models[0].ctx, &p, &res, &err) == 0, "run: %s", err.msg);
    CHECK(res.verified && res.params.iterations == 5, "iterations run verified: %s", res.detail);
    CHECK(counted_applications == 15, "15 applications, got %u", counted_applications);
    CHECK(res.stats.min >= 20e-3 && res.stats.min < 60e-3,
          "time per application %g s: a sample of 5 x 20 ms divided by 5 (100 ms undivided)", res.stats.min);
    wilson_result_release(&res);
    p.iterations = 0;
    CHECK(wilson_run(&counting, models[0].ctx, &p, &res, &err) && strstr(err.msg, "not resolved"),
          "0 iterations refused: %s", err.msg);
    wilson_result_release(&res);
}

static void test_planted_faults(void)
{
    static const char *const specs[] = {"link:3", "neighbour:5"};
    struct wilson_params p;
    struct wilson_result res;
    struct pp_error err;

    for (size_t m = 0; m < nmodels; m++)
        for (int i = 0; i < 2; i++)
            for (int prec = PP_FP64; prec <= PP_FP32; prec++) {
                params_for(&p, dims44, (enum pp_precision)prec, PP_WILSON_AOS);
                p.numtimes = 2;
                setenv("PPBENCH_TEST_FAULT", specs[i], 1);
                CHECK(wilson_run(models[m].b, models[m].ctx, &p, &res, &err) == 0, "run: %s", err.msg);
                unsetenv("PPBENCH_TEST_FAULT");
                CHECK(!res.verified && strstr(res.detail, i ? "[odd index 5]" : "[odd index 3]"),
                      "%s %s %s not caught or not named: %s", models[m].b->name, specs[i],
                      pp_precision_name(p.prec), res.detail);
                wilson_result_release(&res);
            }
}

/* The kernels' spin tables (kernels/wilson_dslash.h) are the reference's gamma matrices: row r of the upper
 * right block of gamma_mu holds i^pow at column col and zero elsewhere, the lower left block is its adjoint.
 */
static void test_spin_tables(void)
{
    static const int table_col[4][2] = WILSON_B_TABLE(WILSON_B_COL);
    double g[4][4][2];

    CHECK(table_col[2][1] == WILSON_B_COL(2, 1), "the table form matches the macros");
    for (int mu = 0; mu < 4; mu++) {
        wilson_ref_gamma(mu, g);
        for (int r = 0; r < 2; r++) {
            const int q = WILSON_B_COL(mu, r), p = WILSON_B_POW(mu, r);
            for (int c = 0; c < 2; c++) {
                double re = c == q ? WILSON_IPOW_RE(p, 1.0, 0.0) : 0,
                       im = c == q ? WILSON_IPOW_IM(p, 1.0, 0.0) : 0;
                CHECK(g[r][2 + c][0] == re && g[r][2 + c][1] == im,
                      "gamma_%d[%d][%d] = %g%+gi, tables say %g%+gi", mu, r, 2 + c, g[r][2 + c][0],
                      g[r][2 + c][1], re, im);
                CHECK(g[2 + c][r][0] == re && g[2 + c][r][1] == -im, "gamma_%d[%d][%d]: not the adjoint", mu,
                      2 + c, r);
            }
        }
    }
}

static void test_params(void)
{
    struct pp_device dev = {.kind = PP_DEVICE_CPU, .mem_bytes = 1ull << 34, .fp64 = true};
    struct wilson_params p;
    struct pp_error err;
    enum pp_wilson_layout l;

    wilson_params_default(&p);
    CHECK(lattice_parse("8x8x8x16", p.dims, &err) == 0 && p.dims[3] == 16 && p.dims[0] == 8, "parse");
    CHECK(wilson_resolve(&p, &dev, &err) == 0, "8x8x8x16 fits: %s", err.msg);
    CHECK(p.dims[0] == 8 && p.dims[3] == 16, "an explicit lattice is kept");
    CHECK(lattice_parse("8x8x8", p.dims, &err) && strstr(err.msg, "--lattice"), "three extents");
    CHECK(lattice_parse("8x8x8x8x8", p.dims, &err) && strstr(err.msg, "--lattice"), "five extents");
    CHECK(lattice_parse("8x-8x8x8", p.dims, &err) && strstr(err.msg, "--lattice"), "negative");
    CHECK(lattice_parse("8x0x8x8", p.dims, &err) && strstr(err.msg, "--lattice"), "zero");
    CHECK(lattice_parse("4x4x5x4", p.dims, &err) == 0 && wilson_resolve(&p, &dev, &err) &&
              strstr(err.msg, "extent 5 in z"),
          "odd extent: %s", err.msg);
    CHECK(lattice_parse("2x4x4x4", p.dims, &err) == 0 && wilson_resolve(&p, &dev, &err) &&
              strstr(err.msg, "extent 2 in x"),
          "too small: %s", err.msg);
    CHECK(lattice_parse("256x256x256x256", p.dims, &err) == 0 && wilson_resolve(&p, &dev, &err) &&
              strstr(err.msg, "too large"),
          "too large: %s", err.msg);
    wilson_params_default(&p);
    p.iterations = 0;
    CHECK(wilson_resolve(&p, &dev, &err) && strstr(err.msg, "iterations"), "0 iterations: %s", err.msg);
    p.iterations = WILSON_MAX_ITERATIONS + 1;
    CHECK(wilson_resolve(&p, &dev, &err) && strstr(err.msg, "iterations"), "too many iterations: %s",
          err.msg);
    CHECK(wilson_layout_parse("soa", &l, &err) == 0 && l == PP_WILSON_SOA, "soa");
    CHECK(wilson_layout_parse("left", &l, &err) && strstr(err.msg, "aos"), "unknown layout");
}

/* The default lattice (all extents 0) becomes 32^4 on a GPU or accelerator and 8^4 on a CPU; the memory check
 * then judges the resolved lattice. */
static void test_default_lattice(void)
{
    static const enum pp_device_kind kinds[3] = {PP_DEVICE_CPU, PP_DEVICE_GPU, PP_DEVICE_ACCEL};
    struct pp_device dev = {.mem_bytes = 80ull << 30, .fp64 = true};
    struct wilson_params p;
    struct pp_error err;

    for (int k = 0; k < 3; k++) {
        unsigned want = kinds[k] == PP_DEVICE_CPU ? 8 : 32;
        dev.kind = kinds[k];
        wilson_params_default(&p);
        CHECK(p.dims[0] == 0 && p.dims[3] == 0 && p.iterations == 1,
              "default: the device's lattice, 1 iteration");
        CHECK(wilson_resolve(&p, &dev, &err) == 0, "resolve: %s", err.msg);
        CHECK(p.dims[0] == want && p.dims[1] == want && p.dims[2] == want && p.dims[3] == want,
              "device kind %d: %ux%ux%ux%u, expected %u^4", (int)kinds[k], p.dims[0], p.dims[1], p.dims[2],
              p.dims[3], want);
    }
    dev.kind = PP_DEVICE_GPU;
    dev.mem_bytes = 256ull << 20; /* 32^4 in fp32 needs 0.42 GB on the device */
    wilson_params_default(&p);
    CHECK(wilson_resolve(&p, &dev, &err) && strstr(err.msg, "lattice 32x32x32x32 too large"),
          "the resolved default is judged: %s", err.msg);
}

/* The GPU launch choices (kernels/wilson_gpu.h): register budgets 128 for fp32 soa and 255 otherwise, 32-bit
 * indices where 144 n fits, and the variables that override them, refused when malformed. */
static void test_gpu_launch(void)
{
    struct wilson_gpu_launch l;
    struct pp_error err;

    CHECK(wilson_gpu_launch_choose(&l, 1u << 19, PP_FP32, PP_WILSON_SOA, &err) == 0 && l.max_regs == 128 &&
              l.index_bits == 32 && l.work_group == 0,
          "fp32 soa: 128 registers, 32-bit indices, the backend's work-group (%u %u %u)", l.max_regs,
          l.index_bits, l.work_group);
    CHECK(wilson_gpu_launch_choose(&l, 1u << 19, PP_FP64, PP_WILSON_SOA, &err) == 0 && l.max_regs == 255,
          "fp64 soa: 255 registers");
    CHECK(wilson_gpu_launch_choose(&l, 1u << 19, PP_FP32, PP_WILSON_AOS, &err) == 0 && l.max_regs == 255,
          "fp32 aos: 255 registers");
    CHECK(wilson_gpu_launch_choose(&l, 30000000, PP_FP32, PP_WILSON_SOA, &err) == 0 && l.index_bits == 64,
          "144 n above 2^32: 64-bit indices");
    setenv("PPBENCH_WILSON_REGS", "0", 1);
    setenv("PPBENCH_WILSON_WG", "64", 1);
    setenv("PPBENCH_WILSON_INDEX", "64", 1);
    CHECK(wilson_gpu_launch_choose(&l, 1u << 19, PP_FP32, PP_WILSON_SOA, &err) == 0 && l.max_regs == 0 &&
              l.work_group == 64 && l.index_bits == 64,
          "the variables override: %u %u %u", l.max_regs, l.work_group, l.index_bits);
    setenv("PPBENCH_WILSON_REGS", "100", 1);
    CHECK(wilson_gpu_launch_choose(&l, 1u << 19, PP_FP32, PP_WILSON_SOA, &err) &&
              strstr(err.msg, "PPBENCH_WILSON_REGS=100"),
          "a budget the kernels do not offer: %s", err.msg);
    unsetenv("PPBENCH_WILSON_REGS");
    setenv("PPBENCH_WILSON_WG", "0", 1);
    CHECK(wilson_gpu_launch_choose(&l, 1u << 19, PP_FP32, PP_WILSON_SOA, &err) &&
              strstr(err.msg, "PPBENCH_WILSON_WG=0"),
          "work-group 0: %s", err.msg);
    unsetenv("PPBENCH_WILSON_WG");
    setenv("PPBENCH_WILSON_INDEX", "16", 1);
    CHECK(wilson_gpu_launch_choose(&l, 1u << 19, PP_FP32, PP_WILSON_SOA, &err) &&
              strstr(err.msg, "PPBENCH_WILSON_INDEX=16"),
          "index width 16: %s", err.msg);
    unsetenv("PPBENCH_WILSON_INDEX");
}

int main(void)
{
    open_models();
    RUN(test_gamma_algebra);
    RUN(test_spin_tables);
    RUN(test_su3);
    RUN(test_free_field);
    RUN(test_backend_matches_reference);
    RUN(test_gauge_covariance);
    RUN(test_models);
    RUN(test_planted_faults);
    RUN(test_params);
    RUN(test_default_lattice);
    RUN(test_gpu_launch);
    close_models();
    return check_failures ? 1 : 0;
}
