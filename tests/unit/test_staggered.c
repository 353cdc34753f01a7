/*
 * Unit tests of the MILC staggered Dslash suite: properties that hold for any correct staggered Dslash and so
 * catch a wrong reference too (the plane-wave identity with unit links, gauge covariance), each through the
 * reference and every variant (the OpenMP loops, and every OpenCL strategy and order where a CPU device such
 * as PoCL is installed) in both precisions on 4^4, 8^4 and 4x4x4x8; the OpenMP loops against the reference in
 * both precisions, the flop and byte models and the timing rule, the planted faults, and the parameter rules
 * of every strategy (through a stand-in backend that claims the GPU strategies).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/lattice.h"
#include "kernels/opencl/opencl.h"
#include "kernels/openmp/openmp.h"
#include "kernels/staggered/model.h"
#include "kernels/staggered/staggered.h"
#include "kernels/staggered/staggered_ref.h"
#include "su3.h"

static const unsigned dims44[4] = {4, 4, 4, 4}, dims84[4] = {8, 8, 8, 8}, dims4448[4] = {4, 4, 4, 8};
static const unsigned dims64[4] = {6, 6, 6, 6}; /* 648 output sites: the simd layout's last block padded */
/* The lattices the identities run on: two hypercubic, one not (the reference match adds 6^4). */
static const unsigned *const shapes[] = {dims44, dims84, dims4448};
static const struct pp_device cpu = {.kind = PP_DEVICE_CPU, .mem_bytes = 1ull << 34, .fp64 = true};
static struct pp_device opencl_cpu; /* the first OpenCL CPU device (PoCL), when there is one */

/* The models, opened once by main, each with the device its parameters resolve for: openmp, and opencl on
 * opencl_cpu. The variants under test are openmp's two loops and every OpenCL strategy of paper 001 with each
 * of its orders (kernels/staggered/staggered.cl), the work-group resolve's choice for each lattice: every
 * test iterates this one list. What goes through the driver's whole run (the reference match, the planted
 * faults, the models) takes the openmp ones: tests/suites/staggered_opencl.sh runs and verifies every OpenCL
 * variant. */
struct model {
    const struct pp_backend *b;
    const struct pp_device *dev;
    struct pp_ctx *ctx;
};
struct variant {
    const struct model *m;
    enum pp_staggered_strategy strategy;
    enum pp_staggered_order order;
};
static struct model models[2];
static struct variant variants[14];
static size_t nmodels, nvariants;

static double *alloc_doubles(size_t n)
{
    double *p = calloc(n, sizeof(double));
    if (!p)
        abort();
    return p;
}

/* The first OpenCL CPU device (PoCL), or false. */
static bool opencl_cpu_device(struct pp_device *out)
{
    struct pp_device_list devs = {0};
    struct pp_error err;

    if (pp_backend_opencl.discover(&devs, &err) != 0)
        return false;
    for (size_t i = 0; i < devs.len; i++)
        if (devs.items[i].kind == PP_DEVICE_CPU) {
            *out = devs.items[i];
            return true;
        }
    return false;
}

/* Open b on dev as the next model; NULL (a failed check) when it does not open. */
static const struct model *add_model(const struct pp_backend *b, const struct pp_device *dev)
{
    struct model *m = &models[nmodels];
    struct pp_error err;

    *m = (struct model){b, dev, NULL};
    if (b->open(dev, &m->ctx, &err) != 0) {
        CHECK(0, "%s open: %s", b->name, err.msg);
        return NULL;
    }
    nmodels++;
    return m;
}

static void open_models(void)
{
    static const struct {
        enum pp_staggered_strategy s;
        enum pp_staggered_order o;
    } pairs[] = {{PP_STAG_SITE, PP_ORDER_NONE}, {PP_STAG_SIMD, PP_ORDER_NONE}, {PP_STAG_1LP, PP_ORDER_NONE},
                 {PP_STAG_2LP, PP_ORDER_NONE},  {PP_STAG_3LP_1, PP_ORDER_K},   {PP_STAG_3LP_1, PP_ORDER_I},
                 {PP_STAG_3LP_2, PP_ORDER_K},   {PP_STAG_3LP_2, PP_ORDER_I},   {PP_STAG_3LP_3, PP_ORDER_K},
                 {PP_STAG_3LP_3, PP_ORDER_I},   {PP_STAG_4LP_1, PP_ORDER_K},   {PP_STAG_4LP_1, PP_ORDER_I},
                 {PP_STAG_4LP_2, PP_ORDER_L},   {PP_STAG_4LP_2, PP_ORDER_I}};
    const struct model *m;

    if ((m = add_model(&pp_backend_openmp, &cpu)))
        for (size_t i = 0; i < 2; i++)
            variants[nvariants++] = (struct variant){m, pairs[i].s, pairs[i].o};
    if (!opencl_cpu_device(&opencl_cpu)) {
        printf("SKIP opencl staggered tests: no OpenCL CPU device (PoCL)\n");
        return;
    }
    if ((m = add_model(&pp_backend_opencl, &opencl_cpu)))
        for (size_t i = 2; i < sizeof(pairs) / sizeof(pairs[0]); i++)
            variants[nvariants++] = (struct variant){m, pairs[i].s, pairs[i].o};
}

static void close_models(void)
{
    for (size_t m = 0; m < nmodels; m++)
        models[m].b->close(models[m].ctx);
}

static bool on_openmp(const struct variant *v)
{
    return v->m->b == &pp_backend_openmp;
}

/* "openmp site", "opencl 3lp-1 k" */
static const char *variant_name(const struct variant *v, char buf[48])
{
    snprintf(buf, 48, "%s %s%s%s", v->m->b->name, staggered_strategy_name(v->strategy),
             v->order == PP_ORDER_NONE ? "" : " ",
             v->order == PP_ORDER_NONE ? "" : staggered_order_name(v->order));
    return buf;
}

/* Worst |a - b| / scale (scale NULL: 1) over the odd sites; b on even sites must be zero in a too. */
static double odd_error(const unsigned d[4], const double *a, const double *b, const double *scale)
{
    double worst = 0;

    for (size_t s = 0; s < lattice_volume(d); s++) {
        unsigned c[4];
        lattice_coords(d, s, c);
        if (!lattice_parity(c))
            continue;
        for (int k = 0; k < 6; k++) {
            double e = fabs(a[s * 6 + (size_t)k] - b[s * 6 + (size_t)k]) / (scale ? scale[s] : 1.0);
            worst = isnan(e) ? INFINITY : e > worst ? e : worst;
        }
    }
    return worst;
}

/* The bound of every comparison below, the driver's (docs/METHODOLOGY.md derives it): 100 eps of the
 * precision relative to the site's scale, the reference's sum over the 16 neighbours of |B|_2. In fp32 an
 * output component takes some 22 sequential roundings of 2^-24 (2 for the inputs, a 3-term complex dot
 * product, the 16-term sum), times sqrt(2) for the real and imaginary parts of the products: ~31 x 2^-24 =
 * 1.9e-6 of the scale at worst, inside 100 x 2^-23 = 1.2e-5; what runs is ~5e-8 (the "# worst error" lines).
 * fp64 likewise with 2^-52. */
static double bound(enum pp_precision prec)
{
    return 100.0 * (prec == PP_FP32 ? 0x1.0p-23 : 0x1.0p-52);
}

/* Resolved parameters for variant v on d in prec; 0, or -1 (a failed check). */
static int params_for(struct staggered_params *p, const struct variant *v, const unsigned d[4],
                      enum pp_precision prec)
{
    struct pp_error err;
    char name[48];

    staggered_params_default(p);
    memcpy(p->dims, d, sizeof(p->dims));
    p->prec = prec;
    p->variant.strategy = v->strategy;
    p->variant.order = v->order;
    if (staggered_resolve(p, v->m->b, v->m->dev, &err) == 0)
        return 0;
    CHECK(0, "%s %s on %ux%ux%ux%u: resolve: %s", variant_name(v, name), pp_precision_name(prec), d[0], d[1],
          d[2], d[3], err.msg);
    return -1;
}

/* Every variant (only the openmp ones when openmp_only) in both precisions, applied to (fat, lng, b) on d,
 * gives want on the odd sites within the bound; one line with the worst error of each precision and where. */
static void check_variants(const char *what, bool openmp_only, const unsigned d[4], const double *fat,
                           const double *lng, const double *b, const double *want, const double *scale)
{
    const struct variant *at[2] = {&variants[0], &variants[0]};
    double *out, worst[2] = {0, 0};
    size_t checked = 0;
    char name[2][48];
    struct pp_error err;

    if (!nvariants) /* open_models has said why */
        return;
    out = alloc_doubles(lattice_volume(d) * 6);
    for (size_t i = 0; i < nvariants; i++) {
        const struct variant *v = &variants[i];
        if (openmp_only && !on_openmp(v))
            continue;
        for (int prec = PP_FP64; prec <= PP_FP32; prec++) {
            struct staggered_params p;
            if (params_for(&p, v, d, (enum pp_precision)prec))
                continue;
            if (staggered_apply(v->m->b, v->m->ctx, &p, fat, lng, b, out, &err) != 0) {
                CHECK(0, "%s: %s %s apply: %s", what, variant_name(v, name[0]), pp_precision_name(p.prec),
                      err.msg);
                continue;
            }
            double e = odd_error(d, out, want, scale);
            CHECK(e <= bound(p.prec), "%s on %ux%ux%ux%u: %s %s (work-group %u) error %.3g > %.3g", what,
                  d[0], d[1], d[2], d[3], variant_name(v, name[0]), pp_precision_name(p.prec),
                  p.variant.work_group, e, bound(p.prec));
            if (e > worst[prec])
                worst[prec] = e, at[prec] = v;
        }
        checked++;
    }
    printf("# %s %ux%ux%ux%u, %zu variants: worst error fp64 %.3g (%s), fp32 %.3g (%s) of the site scale\n",
           what, d[0], d[1], d[2], d[3], checked, worst[PP_FP64], variant_name(at[PP_FP64], name[0]),
           worst[PP_FP32], variant_name(at[PP_FP32], name[1]));
    free(out);
}

/* Unit links and B(x) = exp(i p.x) v with p_k = 2 pi n_k / L_k: C(x) = sum_k (2i sin p_k + 2i sin 3p_k) B(x),
 * through the reference and every variant. On an extent of 4, x + 3k is x - k and the direction contributes
 * nothing, so the identity is checked where it is not trivially zero too (8^4, 4x4x4x8). */
static void test_plane_wave(void)
{
    static const int momenta[3][4] = {{1, 0, 1, 1}, {1, 2, 3, 1}, {0, 1, 0, 3}};

    for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
        const unsigned *d = shapes[sh];
        size_t v = lattice_volume(d);
        double *u = alloc_doubles(v * 72), *b = alloc_doubles(v * 6), *out = alloc_doubles(v * 6);
        double *want = alloc_doubles(v * 6), *scale = alloc_doubles(v), vec[6], p[4], lambda = 0, largest = 0;
        uint64_t state = 17;

        for (int a = 0; a < 6; a++)
            vec[a] = lattice_random(&state);
        for (int mu = 0; mu < 4; mu++) {
            p[mu] = 2 * M_PI * momenta[sh][mu] / d[mu];
            lambda += 2 * sin(p[mu]) + 2 * sin(3 * p[mu]); /* C = i lambda B */
        }
        for (size_t s = 0; s < v; s++) {
            unsigned c[4];
            double phase = 0;
            lattice_coords(d, s, c);
            for (int mu = 0; mu < 4; mu++) {
                phase += p[mu] * c[mu];
                for (int a = 0; a < 3; a++)
                    u[(s * 4 + (size_t)mu) * 18 + (size_t)(a * 4) * 2] = 1.0;
            }
            for (int a = 0; a < 3; a++) {
                double re = vec[2 * a] * cos(phase) - vec[2 * a + 1] * sin(phase);
                double im = vec[2 * a] * sin(phase) + vec[2 * a + 1] * cos(phase);
                b[s * 6 + (size_t)a * 2] = re;
                b[s * 6 + (size_t)a * 2 + 1] = im;
                if (lattice_parity(c)) {
                    want[s * 6 + (size_t)a * 2] = -lambda * im;
                    want[s * 6 + (size_t)a * 2 + 1] = lambda * re;
                }
            }
        }
        for (size_t i = 0; i < v * 6; i++)
            largest = fmax(largest, fabs(want[i]));
        CHECK(sh == 0 || largest > 0.5, "identity trivially zero on %ux%ux%ux%u", d[0], d[1], d[2], d[3]);
        staggered_ref_dslash(d, 1, u, u, b, out, scale);
        CHECK(odd_error(d, out, want, scale) <= bound(PP_FP64),
              "reference on %ux%ux%ux%u: C != i lambda B (error %g)", d[0], d[1], d[2], d[3],
              odd_error(d, out, want, scale));
        for (size_t s = 0; s < v; s++) /* the even sites of the reference's output are zero */
            for (int a = 0; a < 6; a++) {
                unsigned c[4];
                lattice_coords(d, s, c);
                CHECK(lattice_parity(c) || out[s * 6 + (size_t)a] == 0, "even site %zu written", s);
            }
        check_variants("plane wave", false, d, u, u, b, want, scale);
        free(u);
        free(b);
        free(out);
        free(want);
        free(scale);
    }
}

/* Random fields on d and their image under a random SU(3) gauge transformation g:
 * U_k(x) -> g(x) U g(x + k)^dagger, W_k(x) -> g(x) W g(x + 3k)^dagger, B -> g B; want = g C; scale the
 * reference's for the transformed fields. */
struct gauge_pair {
    const unsigned *d;
    size_t v;
    double *fat, *lng, *b, *fat2, *lng2, *b2, *g, *out, *out2, *want, *scale;
};

static void gauge_pair_init(struct gauge_pair *t, const unsigned d[4])
{
    size_t v = lattice_volume(d);
    double tmp[18];
    uint64_t state = 99;

    t->d = d;
    t->v = v;
    t->fat = alloc_doubles(v * 72), t->lng = alloc_doubles(v * 72), t->b = alloc_doubles(v * 6);
    t->fat2 = alloc_doubles(v * 72), t->lng2 = alloc_doubles(v * 72), t->b2 = alloc_doubles(v * 6);
    t->g = alloc_doubles(v * 18), t->out = alloc_doubles(v * 6), t->out2 = alloc_doubles(v * 6);
    t->want = alloc_doubles(v * 6), t->scale = alloc_doubles(v);
    staggered_random_fields(t->d, 5, t->fat, t->lng, t->b);
    for (size_t s = 0; s < v; s++)
        lattice_random_su3(&state, &t->g[s * 18]);
    for (size_t s = 0; s < v; s++) {
        for (int k = 0; k < 4; k++) {
            size_t f1 = lattice_shift(t->d, s, k, 1), f3 = lattice_shift(t->d, s, k, 3),
                   at = (s * 4 + (size_t)k) * 18;
            su3_mul(&t->g[s * 18], &t->fat[at], 0, tmp);
            su3_mul(tmp, &t->g[f1 * 18], 1, &t->fat2[at]);
            su3_mul(&t->g[s * 18], &t->lng[at], 0, tmp);
            su3_mul(tmp, &t->g[f3 * 18], 1, &t->lng2[at]);
        }
        su3_times_vec(&t->g[s * 18], &t->b[s * 6], &t->b2[s * 6]);
    }
    staggered_ref_dslash(t->d, 1, t->fat, t->lng, t->b, t->out, NULL);
    for (size_t s = 0; s < v; s++)
        su3_times_vec(&t->g[s * 18], &t->out[s * 6], &t->want[s * 6]);
    staggered_ref_dslash(t->d, 1, t->fat2, t->lng2, t->b2, t->out2, t->scale);
}

static void gauge_pair_release(struct gauge_pair *t)
{
    double *all[] = {t->fat, t->lng, t->b, t->fat2, t->lng2, t->b2, t->g, t->out, t->out2, t->want, t->scale};

    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        free(all[i]);
}

/* The transformed fields through the reference and every variant give g C. */
static void test_gauge_covariance(void)
{
    for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
        struct gauge_pair t;
        double tmp[18];

        gauge_pair_init(&t, shapes[sh]);
        CHECK(odd_error(t.d, t.out2, t.want, t.scale) <= bound(PP_FP64),
              "reference on %ux%ux%ux%u not covariant: error %g", t.d[0], t.d[1], t.d[2], t.d[3],
              odd_error(t.d, t.out2, t.want, t.scale));
        check_variants("gauge covariance", false, t.d, t.fat2, t.lng2, t.b2, t.want, t.scale);
        /* the check has teeth: the long links transformed as if they were first-neighbour links fail it */
        for (size_t s = 0; s < t.v; s++)
            for (int k = 0; k < 4; k++) {
                size_t f1 = lattice_shift(t.d, s, k, 1), at = (s * 4 + (size_t)k) * 18;
                su3_mul(&t.g[s * 18], &t.lng[at], 0, tmp);
                su3_mul(tmp, &t.g[f1 * 18], 1, &t.lng2[at]);
            }
        staggered_ref_dslash(t.d, 1, t.fat2, t.lng2, t.b2, t.out2, NULL);
        CHECK(odd_error(t.d, t.out2, t.want, t.scale) > 1e-3, "covariance check cannot fail on %ux%ux%ux%u",
              t.d[0], t.d[1], t.d[2], t.d[3]);
        gauge_pair_release(&t);
    }
}

/* The OpenMP variants in both precisions match the reference on random fields, within the driver's bound
 * (the OpenCL ones: tests/suites/staggered_opencl.sh). */
static void test_backend_matches_reference(void)
{
    static const unsigned *const ref_shapes[] = {dims44, dims84, dims4448, dims64};

    for (size_t sh = 0; sh < sizeof(ref_shapes) / sizeof(ref_shapes[0]); sh++) {
        const unsigned *d = ref_shapes[sh];
        size_t v = lattice_volume(d);
        double *fat = alloc_doubles(v * 72), *lng = alloc_doubles(v * 72), *b = alloc_doubles(v * 6);
        double *ref = alloc_doubles(v * 6), *scale = alloc_doubles(v);

        staggered_random_fields(d, 11, fat, lng, b);
        staggered_ref_dslash(d, 1, fat, lng, b, ref, scale);
        check_variants("reference", true, d, fat, lng, b, ref, scale);
        free(fat);
        free(lng);
        free(b);
        free(ref);
        free(scale);
    }
}

static void test_models(void)
{
    const unsigned d32[4] = {32, 32, 32, 32};
    struct pp_error err;

    CHECK(STAGGERED_FLOPS_PER_SITE == 16 * 66 + 15 * 6 && STAGGERED_FLOPS_PER_SITE == 1146, "1146 per site");
    CHECK(staggered_flops(d32) == 600834048.0, "600,834,048 flop at 32^4, got %.0f", staggered_flops(d32));
    CHECK(staggered_flops(dims4448) == 1146.0 * 256, "1146 per output site");
    CHECK(staggered_bytes_per_site(PP_FP64) == 3120 && staggered_bytes_per_site(PP_FP32) == 1560,
          "390 reals per site");
    for (size_t i = 0; i < nvariants; i++)
        for (int timing = STAGGERED_TIMING_MEAN; timing <= STAGGERED_TIMING_BEST; timing++) {
            const struct variant *v = &variants[i];
            struct staggered_params p;
            struct staggered_result res;
            if (!on_openmp(v) || params_for(&p, v, dims4448, PP_FP64))
                continue;
            p.runs = 3;
            p.iterations = 4;
            p.timing = (enum staggered_timing)timing;
            CHECK(staggered_run(v->m->b, v->m->ctx, &p, &res, &err) == 0, "run: %s", err.msg);
            CHECK(res.dslash.verified, "run verified: %s", res.dslash.error);
            CHECK(res.out_sites == 256 && res.dslash.flops == 1146.0 * 256 &&
                      res.dslash.bytes == 3120.0 * 256,
                  "flops %g bytes %g", res.dslash.flops, res.dslash.bytes);
            /* compulsory: 16 matrices, one input and one output vector, (288 + 6 + 6) x 8 B per site */
            CHECK(res.dslash.bytes_compulsory == 2400.0 * 256, "compulsory bytes %g",
                  res.dslash.bytes_compulsory);
            CHECK(res.dslash.stats.count == 3 && res.dslash.stats.min > 0 && res.warmup_seconds > 0,
                  "3 samples after a warm-up");
            CHECK(res.dslash.seconds ==
                      (timing == STAGGERED_TIMING_BEST ? res.dslash.stats.min : res.dslash.stats.mean),
                  "rates from the %s", timing == STAGGERED_TIMING_BEST ? "minimum" : "mean");
            CHECK(fabs(res.dslash.gflops - res.dslash.flops / res.dslash.seconds * 1e-9) < 1e-9 &&
                      fabs(res.dslash.bandwidth - res.dslash.bytes / res.dslash.seconds) < 1e-3,
                  "rates from the chosen time");
            CHECK(res.variant.strategy == v->strategy && res.variant.threads >= 1, "variant");
            staggered_result_release(&res);
        }
}

static void test_planted_faults(void)
{
    static const char *const specs[] = {"link:3", "neighbour:5"};
    struct pp_error err;
    char name[48];

    for (int i = 0; i < 2; i++)
        for (size_t j = 0; j < nvariants; j++)
            for (int prec = PP_FP64; prec <= PP_FP32; prec++) {
                const struct variant *v = &variants[j];
                struct staggered_params p;
                struct staggered_result res;
                if (!on_openmp(v) || params_for(&p, v, dims44, (enum pp_precision)prec))
                    continue;
                p.runs = 1;
                p.iterations = 1;
                setenv("PPBENCH_TEST_FAULT", specs[i], 1);
                CHECK(staggered_run(v->m->b, v->m->ctx, &p, &res, &err) == 0, "run: %s", err.msg);
                unsetenv("PPBENCH_TEST_FAULT");
                CHECK(!res.dslash.verified && strstr(res.dslash.error, i ? "[odd index 5]" : "[odd index 3]"),
                      "%s %s %s not caught or not named: %s", specs[i], variant_name(v, name),
                      pp_precision_name(p.prec), res.dslash.error);
                staggered_result_release(&res);
            }
}

/* A stand-in for the GPU models: claims the paper's seven strategies, runs nothing. */
static const struct pp_staggered_ops gpu_ops = {.strategies = (1u << PP_STAG_SITE) - 1};
static const struct pp_suite_impl gpu_staggered = {.suite = "staggered", .ops = &gpu_ops};
static const struct pp_suite_impl *const gpu_suites[] = {&gpu_staggered};
static const struct pp_backend gpu_backend = {
    .name = "gpu-like", .suites = gpu_suites, .suites_end = gpu_suites + 1};
static const struct pp_device gpu = {.kind = PP_DEVICE_GPU, .mem_bytes = 80ull << 30, .fp64 = true};

/* Resolve strategy s (order o, work-group w) on dims d with the stand-in; returns the message or "". */
static const char *resolve_gpu(const unsigned d[4], enum pp_staggered_strategy s, enum pp_staggered_order o,
                               unsigned w, struct staggered_params *p)
{
    static struct pp_error err;

    staggered_params_default(p);
    if (d)
        memcpy(p->dims, d, sizeof(p->dims));
    p->variant.strategy = s;
    p->variant.order = o;
    p->variant.work_group = w;
    return staggered_resolve(p, &gpu_backend, &gpu, &err) ? err.msg : "";
}

static void test_strategy_rules(void)
{
    struct staggered_params p;
    const char *m;

    m = resolve_gpu(NULL, PP_STAG_NSTRATEGIES, PP_NORDERS, 0, &p);
    CHECK(!*m && p.variant.strategy == PP_STAG_3LP_1 && p.variant.order == PP_ORDER_K &&
              p.variant.work_group == 768 && p.dims[0] == 32 && p.dims[3] == 32,
          "GPU default 3lp-1 k 768 at 32^4: %s", m);
    CHECK(p.variant.work_group_auto, "a default work-group is marked as one (a model may lower it)");
    /* lowered to a kernel's limit (NVIDIA OpenCL's 3LP-1 fp64: 256): the largest default below it */
    CHECK(pp_staggered_default_work_group(PP_STAG_3LP_1, PP_ORDER_K, 32 * 32 * 32 * 16 * 12, 256) == 192,
          "3lp-1 k under a limit of 256: 192, got %u",
          pp_staggered_default_work_group(PP_STAG_3LP_1, PP_ORDER_K, 32 * 32 * 32 * 16 * 12, 256));
    CHECK(pp_staggered_default_work_group(PP_STAG_4LP_1, PP_ORDER_K, 32 * 32 * 32 * 16 * 48, 40) == 0,
          "4lp-1 under 48 work-items: none");
    CHECK(pp_staggered_default_work_group(PP_STAG_1LP, PP_ORDER_NONE, 128, 100) == 64,
          "1lp, 128 sites, under 100: the largest divisor 64, got %u",
          pp_staggered_default_work_group(PP_STAG_1LP, PP_ORDER_NONE, 128, 100));
    m = resolve_gpu(NULL, PP_STAG_1LP, PP_NORDERS, 0, &p);
    CHECK(!*m && p.variant.work_group == 256 && p.variant.order == PP_ORDER_NONE, "1lp default 256: %s", m);
    m = resolve_gpu(dims44, PP_STAG_1LP, PP_NORDERS, 0, &p);
    CHECK(!*m && p.variant.work_group == 128, "1lp on 4^4 (128 sites): largest divisor, got %u",
          p.variant.work_group);
    m = resolve_gpu(NULL, PP_STAG_4LP_2, PP_NORDERS, 0, &p);
    CHECK(!*m && p.variant.order == PP_ORDER_L && p.variant.work_group == 768, "4lp-2 default l 768: %s", m);
    m = resolve_gpu(dims64, PP_STAG_3LP_1, PP_ORDER_K, 0, &p);
    CHECK(!*m && p.variant.work_group == 96, "3lp-1 on 6^4 (global 7776): 96, got %u", p.variant.work_group);
    m = resolve_gpu(dims44, PP_STAG_3LP_2, PP_ORDER_I, 4, &p);
    CHECK(!*m && !p.variant.work_group_auto, "3lp i-major takes a multiple of 4 (asked for: kept): %s", m);
    m = resolve_gpu(dims44, PP_STAG_3LP_2, PP_ORDER_K, 4, &p);
    CHECK(strstr(m, "work-group size 4") && strstr(m, "multiple of 12"), "3lp k-major needs 12: %s", m);
    m = resolve_gpu(dims44, PP_STAG_3LP_3, PP_ORDER_I, 100, &p);
    CHECK(strstr(m, "work-group size 100 does not divide the global size 1536"), "divides: %s", m);
    m = resolve_gpu(dims44, PP_STAG_4LP_1, PP_ORDER_K, 72, &p);
    CHECK(strstr(m, "multiple of 48"), "4lp needs 48: %s", m);
    m = resolve_gpu(dims44, PP_STAG_4LP_1, PP_ORDER_I, 96, &p);
    CHECK(!*m, "4lp-1 i-major 96: %s", m);
    m = resolve_gpu(dims44, PP_STAG_4LP_2, PP_ORDER_K, 0, &p);
    CHECK(strstr(m, "strategy 4lp-2 has no order k (it has: i, l)"), "4lp-2 order: %s", m);
    m = resolve_gpu(dims44, PP_STAG_3LP_1, PP_ORDER_L, 0, &p);
    CHECK(strstr(m, "strategy 3lp-1 has no order l (it has: k, i)"), "3lp order: %s", m);
    m = resolve_gpu(dims44, PP_STAG_1LP, PP_ORDER_K, 0, &p);
    CHECK(strstr(m, "strategy 1lp has no order k (it has: none)"), "1lp order: %s", m);
    m = resolve_gpu(dims44, PP_STAG_2LP, PP_NORDERS, 7, &p);
    CHECK(strstr(m, "does not divide the global size 384"), "2lp 7: %s", m);
    m = resolve_gpu(dims44, PP_STAG_SITE, PP_NORDERS, 0, &p);
    CHECK(strstr(m,
                 "model gpu-like has no strategy site (it has: 1lp, 2lp, 3lp-1, 3lp-2, 3lp-3, 4lp-1, 4lp-2)"),
          "missing strategy: %s", m);
    for (int s = PP_STAG_1LP; s <= PP_STAG_4LP_2; s++)
        CHECK(pp_staggered_items_per_site((enum pp_staggered_strategy)s) == (s == 0               ? 1u
                                                                             : s == 1             ? 3u
                                                                             : s <= PP_STAG_3LP_3 ? 12u
                                                                                                  : 48u),
              "work-items per site of %s", staggered_strategy_name((enum pp_staggered_strategy)s));
}

static void test_params(void)
{
    struct pp_device nofp64 = cpu;
    struct staggered_params p;
    struct pp_error err;
    enum pp_staggered_strategy s;
    enum pp_staggered_order o;

    staggered_params_default(&p);
    CHECK(staggered_resolve(&p, &pp_backend_openmp, &cpu, &err) == 0 && p.variant.strategy == PP_STAG_SITE &&
              p.variant.order == PP_ORDER_NONE && p.variant.work_group == 0 && p.dims[0] == 8 &&
              p.prec == PP_FP64 && p.runs == 10 && p.iterations == 100,
          "CPU default site, 8^4, fp64, 10 x 100: %s", err.msg);
#define REFUSES(field, value, want)                                                                          \
    do {                                                                                                     \
        staggered_params_default(&p);                                                                        \
        field = value;                                                                                       \
        CHECK(staggered_resolve(&p, &pp_backend_openmp, &cpu, &err) && strstr(err.msg, want), "%s: %s",      \
              want, err.msg);                                                                                \
    } while (0)
    REFUSES(p.variant.strategy, PP_STAG_3LP_1, "model openmp has no strategy 3lp-1 (it has: site, simd)");
    REFUSES(p.variant.order, PP_ORDER_K, "strategy site has no order k");
    REFUSES(p.variant.work_group, 96, "work-group size 96 given for strategy site");
    REFUSES(p.runs, 0, "runs must be at least 1");
    REFUSES(p.iterations, 0, "iterations must be at least 1");
#undef REFUSES
    staggered_params_default(&p);
    CHECK(lattice_parse("4x4x5x4", p.dims, &err) == 0 &&
              staggered_resolve(&p, &pp_backend_openmp, &cpu, &err) &&
              strstr(err.msg, "lattice extent 5 in z must be even"),
          "odd extent: %s", err.msg);
    CHECK(lattice_parse("4x4x4x2", p.dims, &err) == 0 &&
              staggered_resolve(&p, &pp_backend_openmp, &cpu, &err) && strstr(err.msg, "extent 2 in t"),
          "too small: %s", err.msg);
    CHECK(lattice_parse("256x256x256x256", p.dims, &err) == 0 &&
              staggered_resolve(&p, &pp_backend_openmp, &cpu, &err) && strstr(err.msg, "too large"),
          "too large: %s", err.msg);
    staggered_params_default(&p);
    nofp64.fp64 = false;
    CHECK(staggered_resolve(&p, &pp_backend_openmp, &nofp64, &err) && strstr(err.msg, "fp64"), "fp64: %s",
          err.msg);
    p.prec = PP_FP32;
    CHECK(staggered_resolve(&p, &pp_backend_openmp, &nofp64, &err) == 0, "fp32 without fp64: %s", err.msg);
    CHECK(staggered_strategy_parse("3lp-2", &s, &err) == 0 && s == PP_STAG_3LP_2, "3lp-2");
    CHECK(staggered_strategy_parse("5lp", &s, &err) &&
              strstr(err.msg,
                     "unknown strategy \"5lp\" (staggered has: 1lp, 2lp, 3lp-1, 3lp-2, 3lp-3, 4lp-1, "
                     "4lp-2, site, simd)"),
          "unknown strategy: %s", err.msg);
    CHECK(staggered_order_parse("l", &o, &err) == 0 && o == PP_ORDER_L, "l");
    CHECK(staggered_order_parse("j", &o, &err) && strstr(err.msg, "none, k, i, l"), "unknown order: %s",
          err.msg);
}

int main(void)
{
    open_models();
    RUN(test_plane_wave);
    RUN(test_gauge_covariance);
    RUN(test_backend_matches_reference);
    RUN(test_models);
    RUN(test_planted_faults);
    RUN(test_strategy_rules);
    RUN(test_params);
    close_models();
    return check_failures ? 1 : 0;
}
