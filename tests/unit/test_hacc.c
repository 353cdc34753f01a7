/*
 * Unit tests of the HACC suite (paper 003): the problem's grid and pairs, the parameter rules, every kernel
 * and variant that runs on openmp and on opencl (PoCL) verified through the driver in fp32 and fp64 (the
 * reference, momentum, energy and translation checks inside), the planted faults caught, select refused as
 * unsupported where the device has no sub-group shuffles.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/suite.h"
#include "kernels/hacc/hacc.h"
#include "kernels/hacc/hacc_ref.h"
#include "kernels/hacc/model.h"
#include "kernels/opencl/opencl.h"
#include "kernels/openmp/openmp.h"

struct model {
    const struct pp_backend *b;
    struct pp_device dev;
    struct pp_ctx *ctx;
};

static struct model models[2];
static size_t nmodels;

static void open_models(void)
{
    struct pp_device_list devs = {0};
    struct pp_error err;

    if (pp_backend_openmp.discover(&devs, &err) == 0 && devs.len == 1)
        models[nmodels++] = (struct model){&pp_backend_openmp, devs.items[0], NULL};
    devs.len = 0;
    if (pp_backend_opencl.discover(&devs, &err) == 0)
        for (size_t i = 0; i < devs.len; i++)
            if (devs.items[i].kind == PP_DEVICE_CPU) {
                models[nmodels++] = (struct model){&pp_backend_opencl, devs.items[i], NULL};
                break;
            }
    if (nmodels < 2)
        printf("SKIP opencl hacc tests: no OpenCL CPU device (PoCL)\n");
    for (size_t i = 0; i < nmodels; i++) {
        int rc = models[i].b->open(&models[i].dev, &models[i].ctx, &err);
        CHECK(rc == 0, "%s open: %s", models[i].b->name, err.msg);
    }
}

static void test_problem(void)
{
    struct hacc_problem p;
    struct pp_error err;
    size_t bad = 0;

    CHECK(hacc_grid_pairs(4) == 3 * 4 * 4 * 3 + 6 * 4 * 3 * 3 + 4 * 3 * 3 * 3, "pairs of a 4^3 grid: %llu",
          (unsigned long long)hacc_grid_pairs(4));
    CHECK(hacc_grid_for(1) == PP_HACC_MIN_GRID && hacc_grid_for(hacc_grid_pairs(9) + 1) == 10, "grid sizes");
    CHECK(hacc_problem_build(&p, 32, 500, PP_FP32, &err) == 0, "%s", err.msg);
    for (size_t q = 0; q < p.npairs; q++) {
        uint32_t a = p.pairs[2 * q], b = p.pairs[2 * q + 1];
        int d[3] = {(int)(b % p.grid) - (int)(a % p.grid),
                    (int)(b / p.grid % p.grid) - (int)(a / p.grid % p.grid),
                    (int)(b / p.grid / p.grid) - (int)(a / p.grid / p.grid)};
        bad += a == b || abs(d[0]) > 1 || abs(d[1]) > 1 || abs(d[2]) > 1;
    }
    CHECK(bad == 0, "%zu pairs are not neighbours", bad);
    bad = 0;
    for (size_t i = 0; i < p.nparticles; i++) {
        size_t a = i / p.leaf_size;
        double lo = PP_HACC_CELL * (double)(a % p.grid), x = p.in[PP_HACC_X][i];
        bad += !(x >= lo && x < lo + PP_HACC_CELL) ||
               (double)(float)(x + PP_HACC_SHIFT[0]) != x + PP_HACC_SHIFT[0];
    }
    CHECK(bad == 0, "%zu positions outside their cell or not exact in fp32", bad);
    {
        uint32_t far = hacc_far_leaf(&p, p.pairs[0]);
        double closest = INFINITY;
        for (size_t i = p.pairs[0] * p.leaf_size; i < (p.pairs[0] + 1) * (size_t)p.leaf_size; i++)
            for (size_t j = far * p.leaf_size; j < (far + 1) * (size_t)p.leaf_size; j++) {
                double r2 = 0;
                for (int c = 0; c < 3; c++)
                    r2 += (p.in[c][i] - p.in[c][j]) * (p.in[c][i] - p.in[c][j]);
                closest = r2 < closest ? r2 : closest;
            }
        CHECK(closest > PP_HACC_RMAX2 && closest > 16 * 0.7 * 0.7, "the far leaf is within reach: r^2 %g",
              closest);
    }
    hacc_problem_release(&p);
}

static void test_resolve(void)
{
    struct pp_device dev = models[0].dev;
    struct hacc_params p;
    struct pp_error err;

#define REJECTS(field, text)                                                                                 \
    CHECK(hacc_resolve(&p, &dev, &err) == -1 && strstr(err.msg, text), "%s: %s", field, err.msg)
    hacc_params_default(&p);
    dev.llc_bytes = 0; /* the cache unknown: the suite's default */
    CHECK(hacc_resolve(&p, &dev, &err) == 0 && p.leaf_pairs == HACC_DEFAULT_PAIRS_CPU &&
              p.variant == PP_HACC_SIMD,
          "defaults on openmp: %u pairs, variant %d", p.leaf_pairs, p.variant);
    /* a known cache changes nothing: hacc is compute-bound (the suite table's bound), its default stays */
    dev.llc_bytes = 32u << 20;
    hacc_params_default(&p);
    CHECK(hacc_resolve(&p, &dev, &err) == 0 && p.leaf_pairs == HACC_DEFAULT_PAIRS_CPU &&
              !strcmp(suite_find("hacc")->bound, "compute"),
          "a 32 MiB cache leaves the CPU default: %u pairs", p.leaf_pairs);
    hacc_params_default(&p);
    p.leaf_pairs = 10;
    CHECK(hacc_resolve(&p, &dev, &err) == 0 && p.leaf_pairs == 10, "given pairs stay: %u", p.leaf_pairs);
    hacc_params_default(&p);
    dev.kind = PP_DEVICE_GPU;
    dev.llc_bytes = 1u << 30;
    CHECK(hacc_resolve(&p, &dev, &err) == 0 && p.leaf_pairs == HACC_DEFAULT_PAIRS_GPU, "GPU default: %u",
          p.leaf_pairs);
    dev = models[0].dev;
    /* 10 pairs lie on the smallest grid, 4^3 leaves: 64 x 128 particles of 9 inputs and 4 outputs, 8 B a pair
     */
    CHECK(hacc_working_set(128, 10, PP_FP32) == 64.0 * 128 * 13 * 4 + 80 &&
              hacc_working_set(128, 10, PP_FP64) == 64.0 * 128 * 13 * 8 + 80,
          "working set %.0f", hacc_working_set(128, 10, PP_FP32));
    hacc_params_default(&p);
    p.leaf_size = 40;
    REJECTS("leaf_size", "leaf_size must be a multiple of 16");
    p.leaf_size = 64;
    p.leaf_pairs = HACC_MAX_PAIRS + 1;
    REJECTS("leaf_pairs", "leaf_pairs must be from 1 to");
    p.leaf_pairs = 10;
    p.numtimes = 1;
    REJECTS("numtimes", "numtimes must be at least 2");
    p.numtimes = 2;
    p.variant = PP_HACC_SELECT;
    REJECTS("variant", "model openmp has no variant select (it has: scalar, simd)");
    CHECK(hacc_variant_parse("memory-object") == PP_HACC_MEMORY_OBJECT && hacc_variant_parse("x") == -1,
          "parse");
    CHECK(hacc_interactions(128, 10) == 2.0 * 128 * 128 * 10 &&
              hacc_flops(PP_HACC_SPH, 16, 1) == 69.0 * 512 &&
              hacc_bytes(PP_HACC_GRAVITY, 16, 3, 2 * 16, PP_FP32) == 2 * 16 * 7 * 4.0 + 3 * 8,
          "models");
#undef REJECTS
}

/* One run through the driver; returns the result (released by the caller) or fails the test. */
static int run(struct model *m, int variant, enum pp_precision prec, unsigned leaf, unsigned pairs,
               struct hacc_result *res, struct pp_error *err)
{
    struct hacc_params p;

    hacc_params_default(&p);
    p.leaf_size = leaf;
    p.leaf_pairs = pairs;
    p.numtimes = 2;
    p.prec = prec;
    p.variant = variant;
    if (hacc_resolve(&p, &m->dev, err))
        return -1;
    return hacc_run(m->b, m->ctx, &p, res, err);
}

static void test_variants(void)
{
    for (size_t i = 0; i < nmodels; i++) {
        const struct pp_hacc_ops *ops = pp_backend_ops(models[i].b, "hacc");
        for (int v = 0; v < PP_HACC_NVARIANTS; v++) {
            if (!(ops->variants & (1u << v)) || v == PP_HACC_SELECT)
                continue;
            for (int prec = 0; prec < 2; prec++) {
                struct hacc_result res;
                struct pp_error err;
                const unsigned leaf = prec ? 48 : 16;
                int rc = run(&models[i], v, (enum pp_precision)prec, leaf, 60, &res, &err);
                CHECK(rc == 0, "%s %s: %s", models[i].b->name, hacc_variant_name(v), err.msg);
                if (rc)
                    continue;
                CHECK(res.verified && res.nkernels == 2, "%s %s %s: %s / %s", models[i].b->name,
                      hacc_variant_name(v), pp_precision_name(prec), res.kernels[0].error,
                      res.kernels[1].error);
                for (size_t k = 0; k < res.nkernels; k++) {
                    const struct suite_kernel *kr = &res.kernels[k];
                    const struct hacc_kernel_figures *fig = &res.figures[k];
                    /* Newton's third law and translation invariance, to round-off: a small part of the bound
                     */
                    CHECK(fig->momentum < kr->tolerance / 8 && fig->translation <= kr->tolerance &&
                              fig->energy < kr->tolerance / 8 && kr->max_rel_err > 0,
                          "%s %s %s: momentum %g, energy %g, translation %g, error %g, bound %g",
                          models[i].b->name, hacc_variant_name(v), kr->name, fig->momentum, fig->energy,
                          fig->translation, kr->max_rel_err, kr->tolerance);
                    CHECK(fig->rate > 0 && kr->gflops > 0 && kr->stats.count == 1, "figures");
                }
                hacc_result_release(&res);
            }
        }
    }
}

static void test_faults(void)
{
    static const char *const faults[] = {"skip", "sign", "skip:0", "sign:7"};

    for (size_t i = 0; i < nmodels; i++)
        for (size_t f = 0; f < sizeof(faults) / sizeof(faults[0]); f++) {
            struct hacc_result res;
            struct pp_error err;
            int rc;

            setenv("PPBENCH_TEST_FAULT", faults[f], 1);
            rc = run(&models[i], models[i].b == &pp_backend_openmp ? PP_HACC_SCALAR : PP_HACC_MEMORY_OBJECT,
                     PP_FP32, 64, 40, &res, &err);
            unsetenv("PPBENCH_TEST_FAULT");
            CHECK(rc == 0, "%s %s: %s", models[i].b->name, faults[f], err.msg);
            if (rc)
                continue;
            CHECK(!res.kernels[0].verified && !res.kernels[1].verified &&
                      strstr(res.kernels[0].error, "gravity: particle") &&
                      strstr(res.kernels[1].error, "sph"),
                  "%s %s not caught: %s / %s", models[i].b->name, faults[f], res.kernels[0].error,
                  res.kernels[1].error);
            hacc_result_release(&res);
        }
}

static void test_unsupported(void)
{
    struct hacc_result res;
    struct pp_error err;

    if (nmodels < 2)
        return;
    if (opencl_device_extension(opencl_ctx(models[1].ctx), "cl_khr_subgroup_shuffle") ||
        opencl_device_extension(opencl_ctx(models[1].ctx), "cl_intel_subgroups")) {
        printf("SKIP test_unsupported: this OpenCL CPU device has sub-group shuffles\n");
        return;
    }
    CHECK(run(&models[1], PP_HACC_SELECT, PP_FP32, 16, 4, &res, &err) == -1 &&
              !strncmp(err.msg, "unsupported: variant select needs sub-group shuffles", 52),
          "select on PoCL: %s", err.msg);
}

int main(void)
{
    open_models();
    RUN(test_problem);
    if (nmodels) {
        RUN(test_resolve);
        RUN(test_variants);
        RUN(test_faults);
        RUN(test_unsupported);
    }
    for (size_t i = 0; i < nmodels; i++)
        models[i].b->close(models[i].ctx);
    return check_failures ? 1 : 0;
}
