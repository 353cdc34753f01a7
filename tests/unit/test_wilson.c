/*
 * Unit tests of the Wilson Dslash suite: the reference's gamma matrices and links, properties that hold for
 * any correct Dslash and so catch a wrong reference too (the free-field identity, the plane wave with unit
 * links, gauge covariance; the gamma table against the literal DeGrand-Rossi matrices and gamma_5) and the
 * match with the reference, each through the reference and every variant (OpenMP, and OpenCL where a CPU
 * device such as PoCL is installed, in each layout) in both precisions on 4^4, 8^4 and 4x4x4x8; the flop and
 * byte models, the timing of back-to-back iterations, the planted faults, the spin tables and the parameter
 * checks with the device's default lattice.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "kernels/suite.h"
#include "kernels/lattice.h"
#include "kernels/opencl/opencl.h"
#include "kernels/openmp/openmp.h"
#include "kernels/wilson/model.h"
#include "kernels/wilson/wilson.h"
#include "kernels/wilson/wilson_dslash.h"
#include "kernels/wilson/wilson_gpu.h"
#include "kernels/wilson/wilson_ref.h"
#include "su3.h"

static const unsigned dims44[4] = {4, 4, 4, 4}, dims84[4] = {8, 8, 8, 8}, dims4448[4] = {4, 4, 4, 8};
/* The lattices the identities and the reference match run on: two hypercubic, one not. */
static const unsigned *const shapes[] = {dims44, dims84, dims4448};

/* The models, opened once by main: openmp, and opencl on its first CPU device (PoCL) when there is one. The
 * variants under test are each model in each layout it offers (the suite table): every test iterates this one
 * list (in both precisions where it applies the Dslash). */
struct model {
    const struct pp_backend *b;
    struct pp_ctx *ctx;
};
struct variant {
    const struct model *m;
    enum pp_wilson_layout layout;
};
static struct model models[2];
static struct variant variants[2 * PP_WILSON_NLAYOUTS];
static size_t nmodels, nvariants;

/* Whether the suite table offers layout l on model (aosoa: GPU models only). */
static bool layout_offered(const char *model, enum pp_wilson_layout l)
{
    struct suite_values v;
    struct suite_error e;

    suite_values_default(&v, suite_find("wilson"));
    return suite_values_set(&v, "layout", wilson_layout_name(l), &e) == 0 &&
           suite_values_check_model(&v, model, &e) == 0;
}

static void add_model(const struct pp_backend *b, struct pp_ctx *ctx)
{
    models[nmodels] = (struct model){b, ctx};
    for (int l = 0; l < PP_WILSON_NLAYOUTS; l++)
        if (layout_offered(b->name, (enum pp_wilson_layout)l))
            variants[nvariants++] = (struct variant){&models[nmodels], (enum pp_wilson_layout)l};
    nmodels++;
}

static void open_models(void)
{
    struct pp_device_list devs = {0};
    struct pp_ctx *ctx = NULL;
    struct pp_error err;

    if (pp_backend_openmp.open(NULL, &ctx, &err) == 0)
        add_model(&pp_backend_openmp, ctx);
    else
        CHECK(0, "openmp open: %s", err.msg);
    if (pp_backend_opencl.discover(&devs, &err) == 0)
        for (size_t i = 0; i < devs.len; i++) {
            if (devs.items[i].kind != PP_DEVICE_CPU)
                continue;
            ctx = NULL;
            CHECK(pp_backend_opencl.open(&devs.items[i], &ctx, &err) == 0, "opencl open: %s", err.msg);
            if (ctx)
                add_model(&pp_backend_opencl, ctx);
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

/* The DeGrand-Rossi basis written out literally (Chroma's gamma matrices, docs/METHODOLOGY.md's table), apart
 * from the reference's table: entries as (re, im). Only this test and the plane wave below read it. */
static const double literal_gamma[4][4][4][2] = {
    {{{0, 0}, {0, 0}, {0, 0}, {0, 1}},
     {{0, 0}, {0, 0}, {0, 1}, {0, 0}},
     {{0, 0}, {0, -1}, {0, 0}, {0, 0}},
     {{0, -1}, {0, 0}, {0, 0}, {0, 0}}},
    {{{0, 0}, {0, 0}, {0, 0}, {-1, 0}},
     {{0, 0}, {0, 0}, {1, 0}, {0, 0}},
     {{0, 0}, {1, 0}, {0, 0}, {0, 0}},
     {{-1, 0}, {0, 0}, {0, 0}, {0, 0}}},
    {{{0, 0}, {0, 0}, {0, 1}, {0, 0}},
     {{0, 0}, {0, 0}, {0, 0}, {0, -1}},
     {{0, -1}, {0, 0}, {0, 0}, {0, 0}},
     {{0, 0}, {0, 1}, {0, 0}, {0, 0}}},
    {{{0, 0}, {0, 0}, {1, 0}, {0, 0}},
     {{0, 0}, {0, 0}, {0, 0}, {1, 0}},
     {{1, 0}, {0, 0}, {0, 0}, {0, 0}},
     {{0, 0}, {1, 0}, {0, 0}, {0, 0}}},
};

/* c = a b, 4x4 complex */
static void mat4_mul(const double a[4][4][2], const double b[4][4][2], double c[4][4][2])
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            c[i][j][0] = c[i][j][1] = 0;
            for (int k = 0; k < 4; k++) {
                c[i][j][0] += a[i][k][0] * b[k][j][0] - a[i][k][1] * b[k][j][1];
                c[i][j][1] += a[i][k][0] * b[k][j][1] + a[i][k][1] * b[k][j][0];
            }
        }
}

/* The reference's gamma matrices are the literal DeGrand-Rossi ones, entry by entry (the algebra test cannot
 * see a basis change or the sign of one gamma, which keep {g_mu, g_nu} = 2 delta), and
 * gamma_5 = gamma_x gamma_y gamma_z gamma_t = diag(1, 1, -1, -1), the chiral basis's (Chroma's Gamma(15)). */
static void test_gamma_literal(void)
{
    double g[4][4][4][2], t1[4][4][2], t2[4][4][2], g5[4][4][2];

    for (int mu = 0; mu < 4; mu++) {
        wilson_ref_gamma(mu, g[mu]);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                CHECK(g[mu][i][j][0] == literal_gamma[mu][i][j][0] &&
                          g[mu][i][j][1] == literal_gamma[mu][i][j][1],
                      "gamma_%d[%d][%d] = %g%+gi, DeGrand-Rossi has %g%+gi", mu, i, j, g[mu][i][j][0],
                      g[mu][i][j][1], literal_gamma[mu][i][j][0], literal_gamma[mu][i][j][1]);
    }
    mat4_mul(g[0], g[1], t1);
    mat4_mul(t1, g[2], t2);
    mat4_mul(t2, g[3], g5);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double want = i != j ? 0 : i < 2 ? 1 : -1;
            CHECK(g5[i][j][0] == want && g5[i][j][1] == 0, "gamma_5[%d][%d] = %g%+gi, want %g", i, j,
                  g5[i][j][0], g5[i][j][1], want);
        }
}

static void test_su3(void)
{
    uint64_t state = 7;
    double u[18], p[18];

    for (int t = 0; t < 100000; t++) { /* enough draws to meet nearly dependent random rows */
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

/* The bound of every comparison below, the driver's (docs/METHODOLOGY.md derives it): 100 eps of the
 * precision relative to the site's scale, the reference's sum over the 8 neighbours of |psi|_2. In fp32 an
 * output component takes some 16 sequential roundings of 2^-24 (2 for the inputs, the projection, a 3-term
 * complex dot product, the 8-direction sum) on terms whose magnitudes add up to at most sqrt(3) times the
 * scale: ~28 x 2^-24 = 1.7e-6 of it at worst, inside 100 x 2^-23 = 1.2e-5; what runs is ~5e-8 (the "# worst
 * error" lines). fp64 likewise with 2^-52. */
static double bound(enum pp_precision prec)
{
    return 100.0 * (prec == PP_FP32 ? 0x1.0p-23 : 0x1.0p-52);
}

static void params_for(struct wilson_params *p, const unsigned d[4], enum pp_precision prec,
                       enum pp_wilson_layout layout)
{
    wilson_params_default(p);
    memcpy(p->dims, d, sizeof(p->dims));
    p->prec = prec;
    p->layout = layout;
}

/* Every variant in both precisions, applied to (u, psi) on d, gives want on the odd sites within the bound;
 * one line with the worst error of each precision and where it was. */
static void check_variants(const char *what, const unsigned d[4], const double *u, const double *psi,
                           const double *want, const double *scale)
{
    const struct variant *at[2] = {&variants[0], &variants[0]};
    double *out, worst[2] = {0, 0};
    struct pp_error err;

    if (!nvariants) /* open_models has said why */
        return;
    out = malloc(volume_of(d) * 24 * sizeof(double));
    for (size_t i = 0; i < nvariants; i++)
        for (int prec = PP_FP64; prec <= PP_FP32; prec++) {
            const struct variant *v = &variants[i];
            struct wilson_params p;
            params_for(&p, d, (enum pp_precision)prec, v->layout);
            if (wilson_apply(v->m->b, v->m->ctx, &p, u, psi, out, &err) != 0) {
                CHECK(0, "%s: %s %s %s apply: %s", what, v->m->b->name, wilson_layout_name(v->layout),
                      pp_precision_name(p.prec), err.msg);
                continue;
            }
            double e = odd_error(d, out, want, scale);
            CHECK(e <= bound(p.prec), "%s on %ux%ux%ux%u: %s %s %s error %.3g > %.3g", what, d[0], d[1], d[2],
                  d[3], v->m->b->name, wilson_layout_name(v->layout), pp_precision_name(p.prec), e,
                  bound(p.prec));
            if (e > worst[prec])
                worst[prec] = e, at[prec] = v;
        }
    printf("# %s %ux%ux%ux%u, %zu variants: worst error fp64 %.3g (%s %s), fp32 %.3g (%s %s) of the site "
           "scale\n",
           what, d[0], d[1], d[2], d[3], nvariants, worst[PP_FP64], at[PP_FP64]->m->b->name,
           wilson_layout_name(at[PP_FP64]->layout), worst[PP_FP32], at[PP_FP32]->m->b->name,
           wilson_layout_name(at[PP_FP32]->layout));
    free(out);
}

/* Unit links and a constant spinor: D psi = 8 psi with (1 -+ gamma), through the reference and every variant.
 */
static void free_field_on(const unsigned d[4])
{
    size_t v = volume_of(d);
    double *u = calloc(v * 72, sizeof(double)), *psi = malloc(v * 24 * sizeof(double));
    double *out = malloc(v * 24 * sizeof(double)), *want = calloc(v * 24, sizeof(double));
    double *scale = malloc(v * sizeof(double));
    uint64_t state = 3;
    double c[24];

    for (int k = 0; k < 24; k++)
        c[k] = lattice_random(&state);
    for (size_t s = 0; s < v; s++) {
        for (int mu = 0; mu < 4; mu++)
            for (int a = 0; a < 3; a++)
                u[(s * 4 + (size_t)mu) * 18 + (size_t)(a * 4) * 2] = 1.0;
        memcpy(&psi[s * 24], c, sizeof(c));
        unsigned x[4];
        wilson_ref_coords(d, s, x);
        if ((x[0] + x[1] + x[2] + x[3]) & 1)
            for (int k = 0; k < 24; k++)
                want[s * 24 + (size_t)k] = 8.0 * c[k];
    }
    wilson_ref_dslash(d, 1, u, psi, out, scale);
    CHECK(odd_error(d, out, want, scale) <= bound(PP_FP64),
          "reference on %ux%ux%ux%u: D psi != 8 psi (error %g)", d[0], d[1], d[2], d[3],
          odd_error(d, out, want, scale));
    check_variants("free field", d, u, psi, want, scale);
    free(u);
    free(psi);
    free(out);
    free(want);
    free(scale);
}

static void test_free_field(void)
{
    for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
        free_field_on(shapes[sh]);
}

/* Every variant and precision matches the reference on random fields, within the driver's bound. */
static void test_backend_matches_reference(void)
{
    for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
        const unsigned *d = shapes[sh];
        size_t v = volume_of(d);
        double *u = malloc(v * 72 * sizeof(double)), *psi = malloc(v * 24 * sizeof(double));
        double *ref = malloc(v * 24 * sizeof(double)), *scale = malloc(v * sizeof(double));

        wilson_random_fields(d, 11, u, psi);
        wilson_ref_dslash(d, 1, u, psi, ref, scale);
        check_variants("reference", d, u, psi, ref, scale);
        free(u);
        free(psi);
        free(ref);
        free(scale);
    }
}

/*
 * Unit links and a plane wave psi(x) = e^{i p.x} v, p_mu = 2 pi n_mu / L_mu: the forward hop gives
 * (1 - gamma_mu) e^{i p_mu} psi(x), the backward (1 + gamma_mu) e^{-i p_mu} psi(x), so
 *   D psi(x) = e^{i p.x} sum_mu (2 cos p_mu - 2 i gamma_mu sin p_mu) v
 * with the literal DeGrand-Rossi gammas. Unlike the free field (p = 0, where D = 8 for any gammas) it sees
 * the projectors' sign (D^dagger has + 2 i gamma_mu sin p_mu), the sign and place of every gamma and the
 * direction each hop goes. n = (1, 3, 1, 3): sin p_mu != 0 in every direction on 4^4, 8^4 and 4x4x4x8, and
 * the directions differ.
 */
static void plane_wave_on(const unsigned d[4])
{
    static const unsigned n[4] = {1, 3, 1, 3};
    size_t v = volume_of(d);
    double *u = calloc(v * 72, sizeof(double)), *psi = malloc(v * 24 * sizeof(double));
    double *out = malloc(v * 24 * sizeof(double)), *want = calloc(v * 24, sizeof(double));
    double *scale = malloc(v * sizeof(double));
    double m[4][4][2] = {{{0}}}, c[24], mv[24], p[4];
    uint64_t state = 17;

    for (int mu = 0; mu < 4; mu++)
        p[mu] = 2 * M_PI * n[mu] / d[mu];
    for (int k = 0; k < 24; k++)
        c[k] = lattice_random(&state);
    /* m = sum_mu 2 cos p_mu - 2 i sin p_mu gamma_mu; mv = m v */
    for (int mu = 0; mu < 4; mu++)
        for (int i = 0; i < 4; i++) {
            m[i][i][0] += 2 * cos(p[mu]);
            for (int j = 0; j < 4; j++) {
                m[i][j][0] += 2 * sin(p[mu]) * literal_gamma[mu][i][j][1];
                m[i][j][1] -= 2 * sin(p[mu]) * literal_gamma[mu][i][j][0];
            }
        }
    for (int s = 0; s < 4; s++)
        for (int col = 0; col < 3; col++) {
            double re = 0, im = 0;
            for (int t = 0; t < 4; t++) {
                double vr = c[(t * 3 + col) * 2], vi = c[(t * 3 + col) * 2 + 1];
                re += m[s][t][0] * vr - m[s][t][1] * vi;
                im += m[s][t][0] * vi + m[s][t][1] * vr;
            }
            mv[(s * 3 + col) * 2] = re;
            mv[(s * 3 + col) * 2 + 1] = im;
        }
    for (size_t s = 0; s < v; s++) {
        unsigned x[4];
        wilson_ref_coords(d, s, x);
        double ph = p[0] * x[0] + p[1] * x[1] + p[2] * x[2] + p[3] * x[3], cr = cos(ph), ci = sin(ph);
        for (int mu = 0; mu < 4; mu++)
            for (int a = 0; a < 3; a++)
                u[(s * 4 + (size_t)mu) * 18 + (size_t)(a * 4) * 2] = 1.0;
        for (int k = 0; k < 12; k++) {
            psi[s * 24 + (size_t)(2 * k)] = cr * c[2 * k] - ci * c[2 * k + 1];
            psi[s * 24 + (size_t)(2 * k + 1)] = cr * c[2 * k + 1] + ci * c[2 * k];
            if ((x[0] + x[1] + x[2] + x[3]) & 1) {
                want[s * 24 + (size_t)(2 * k)] = cr * mv[2 * k] - ci * mv[2 * k + 1];
                want[s * 24 + (size_t)(2 * k + 1)] = cr * mv[2 * k + 1] + ci * mv[2 * k];
            }
        }
    }
    wilson_ref_dslash(d, 1, u, psi, out, scale);
    CHECK(odd_error(d, out, want, scale) <= bound(PP_FP64),
          "reference on %ux%ux%ux%u: D e^{ipx} v != e^{ipx} sum (2 cos p - 2i gamma sin p) v (error %g)",
          d[0], d[1], d[2], d[3], odd_error(d, out, want, scale));
    check_variants("plane wave", d, u, psi, want, scale);
    free(u);
    free(psi);
    free(out);
    free(want);
    free(scale);
}

static void test_plane_wave(void)
{
    for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
        plane_wave_on(shapes[sh]);
}

/* U_mu(x) -> g(x) U_mu(x) g(x + mu)^dagger, psi(x) -> g(x) psi(x): D' psi'(x) = g(x) (D psi)(x). */
static void gauge_covariance_on(const unsigned d[4])
{
    size_t v = volume_of(d);
    double *u = malloc(v * 72 * sizeof(double)), *psi = malloc(v * 24 * sizeof(double));
    double *u2 = malloc(v * 72 * sizeof(double)), *psi2 = malloc(v * 24 * sizeof(double));
    double *g = malloc(v * 18 * sizeof(double)), *out = malloc(v * 24 * sizeof(double));
    double *out2 = malloc(v * 24 * sizeof(double)), *want = calloc(v * 24, sizeof(double));
    double *scale = malloc(v * sizeof(double));
    double tmp[18];
    uint64_t state = 99;

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
    wilson_ref_dslash(d, 1, u2, psi2, out2, scale);
    CHECK(odd_error(d, out2, want, scale) <= bound(PP_FP64),
          "reference on %ux%ux%ux%u not covariant: error %g", d[0], d[1], d[2], d[3],
          odd_error(d, out2, want, scale));
    check_variants("gauge covariance", d, u2, psi2, want, scale);
    /* and the check has teeth: without transforming psi the identity fails */
    wilson_ref_dslash(d, 1, u2, psi, out2, NULL);
    CHECK(odd_error(d, out2, want, scale) > 1e-3, "covariance check cannot fail on %ux%ux%ux%u", d[0], d[1],
          d[2], d[3]);
    free(u);
    free(psi);
    free(u2);
    free(psi2);
    free(g);
    free(out);
    free(out2);
    free(want);
    free(scale);
}

static void test_gauge_covariance(void)
{
    for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
        gauge_covariance_on(shapes[sh]);
}

/* A stand-in for the openmp model whose dslash counts the applications it is asked for and takes 20 ms for
 * each (one kernel call computes the output, the same for any count): the driver must divide a sample by the
 * iterations in it. */
static struct pp_wilson_ops counting_ops;
static const struct pp_wilson_ops *openmp_wilson_ops; /* the model's own, which the counting ops wrap */
static unsigned counted_applications;

static int counting_dslash(struct pp_ctx *ctx, unsigned iterations, struct pp_error *err)
{
    struct timespec ts = {.tv_sec = 0, .tv_nsec = 20000000L * (long)iterations};

    counted_applications += iterations;
    nanosleep(&ts, NULL);
    return openmp_wilson_ops->dslash(ctx, 1, err);
}

static void test_models(void)
{
    /* the openmp backend with its wilson suite replaced by counting_ops (same context, same state) */
    static const struct pp_suite_impl counting_impl = {.suite = "wilson", .ops = &counting_ops};
    static const struct pp_suite_impl *const counting_suites[] = {&counting_impl};
    struct pp_backend counting = pp_backend_openmp;
    struct wilson_params p;
    struct wilson_result res;
    struct pp_error err;

    CHECK(WILSON_FLOPS_PER_SITE == 8 * (2 * 66 + 12) + 7 * 24 && WILSON_FLOPS_PER_SITE == 1320,
          "1320 per site");
    CHECK(wilson_bytes_per_site(PP_FP32) == 1440 && wilson_bytes_per_site(PP_FP64) == 2880, "Eq. 2 bytes");
    CHECK(fabs(1320.0 / wilson_bytes_per_site(PP_FP32) - 0.9167) < 1e-4, "A = 0.92 flop/B in fp32 (paper)");
    for (size_t i = 0; i < nvariants; i++) {
        const struct variant *v = &variants[i];
        params_for(&p, dims4448, PP_FP32, v->layout);
        p.numtimes = 3;
        CHECK(wilson_run(v->m->b, v->m->ctx, &p, &res, &err) == 0, "run: %s", err.msg);
        CHECK(res.dslash.verified, "%s %s run verified: %s", v->m->b->name, wilson_layout_name(v->layout),
              res.dslash.error);
        CHECK(res.out_sites == 256 && res.dslash.flops == 1320.0 * 256 && res.dslash.bytes == 1440.0 * 256,
              "flops %g bytes %g", res.dslash.flops, res.dslash.bytes);
        /* compulsory: Eq. 2 with R = 7, (144 + 24 + 24) x 4 B per output site */
        CHECK(res.dslash.bytes_compulsory == 768.0 * 256, "compulsory bytes %g", res.dslash.bytes_compulsory);
        CHECK(res.dslash.stats.count == 2 && res.dslash.stats.min > 0, "warm-up excluded: %zu",
              res.dslash.stats.count);
        CHECK(fabs(res.dslash.gflops - res.dslash.flops / res.dslash.stats.min * 1e-9) < 1e-9,
              "gflops from the minimum time");
        wilson_result_release(&res);
    }

    /* iterations: 3 samples of 5 back-to-back applications, each sample timed and divided by 5 */
    openmp_wilson_ops = pp_backend_ops(&pp_backend_openmp, "wilson");
    CHECK(openmp_wilson_ops != NULL && pp_backend_ops(&pp_backend_openmp, "no-such-suite") == NULL,
          "pp_backend_ops finds openmp's wilson suite by name, and no other");
    counting_ops = *openmp_wilson_ops;
    counting_ops.dslash = counting_dslash;
    counting.suites = counting_suites;
    counting.suites_end = counting_suites + 1;
    params_for(&p, dims44, PP_FP32, PP_WILSON_AOS);
    p.numtimes = 3;
    p.iterations = 5;
    counted_applications = 0;
    CHECK(wilson_run(&counting, models[0].ctx, &p, &res, &err) == 0, "run: %s", err.msg);
    CHECK(res.dslash.verified && res.params.iterations == 5, "iterations run verified: %s", res.dslash.error);
    CHECK(counted_applications == 15, "15 applications, got %u", counted_applications);
    CHECK(res.dslash.stats.min >= 20e-3 && res.dslash.stats.min < 60e-3,
          "time per application %g s: a sample of 5 x 20 ms divided by 5 (100 ms undivided)",
          res.dslash.stats.min);
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

    for (size_t j = 0; j < nvariants; j++)
        for (int i = 0; i < 2; i++)
            for (int prec = PP_FP64; prec <= PP_FP32; prec++) {
                const struct variant *v = &variants[j];
                params_for(&p, dims44, (enum pp_precision)prec, v->layout);
                p.numtimes = 2;
                setenv("PPBENCH_TEST_FAULT", specs[i], 1);
                setenv("PPBENCH_WILSON_HOPS", "table", 1); /* the neighbour fault is in the table */
                CHECK(wilson_run(v->m->b, v->m->ctx, &p, &res, &err) == 0, "run: %s", err.msg);
                unsetenv("PPBENCH_TEST_FAULT");
                unsetenv("PPBENCH_WILSON_HOPS");
                CHECK(!res.dslash.verified && strstr(res.dslash.error, i ? "[odd index 5]" : "[odd index 3]"),
                      "%s %s %s %s not caught or not named: %s", v->m->b->name, wilson_layout_name(v->layout),
                      specs[i], pp_precision_name(p.prec), res.dslash.error);
                wilson_result_release(&res);
            }
}

/* The kernels' spin tables (kernels/wilson/wilson_dslash.h) are the reference's gamma matrices: row r of the
 * upper right block of gamma_mu holds i^pow at column col and zero elsewhere, the lower left block is its
 * adjoint.
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

/* The GPU launch choices (kernels/wilson/wilson_gpu.h): register budgets 128 for fp32 soa and 255 otherwise,
 * 32-bit indices where 144 n fits, and the variables that override them, refused when malformed. */
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
    RUN(test_gamma_literal);
    RUN(test_spin_tables);
    RUN(test_su3);
    RUN(test_free_field);
    RUN(test_plane_wave);
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
