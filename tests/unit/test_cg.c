/*
 * Unit tests of the CG suite (paper 002): miniFE's matrix and right-hand side, the parameter rules, and every
 * kernel (axpby, dot, spmv, cg) verified through the driver on openmp and on opencl (an OpenCL CPU device:
 * PoCL) at n = 1, 2, 7 and 30 in fp64 and fp32; the planted column fault, a breakdown and a solve that does
 * not converge.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/cg/cg.h"
#include "kernels/cg/cg_ref.h"
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
    if (pp_backend_opencl.discover(&devs, &err) == 0) {
        for (size_t i = 0; i < devs.len; i++)
            if (devs.items[i].kind == PP_DEVICE_CPU) {
                models[nmodels++] = (struct model){&pp_backend_opencl, devs.items[i], NULL};
                break;
            }
    }
    if (nmodels < 2)
        printf("SKIP opencl cg tests: no OpenCL CPU device (PoCL)\n");
    for (size_t i = 0; i < nmodels; i++) {
        int rc = models[i].b->open(&models[i].dev, &models[i].ctx, &err);
        CHECK(rc == 0, "%s open: %s", models[i].b->name, err.msg);
        if (rc)
            models[i].ctx = NULL;
    }
}

static void test_matrix(void)
{
    const unsigned sizes[] = {1, 2, 3, 7, 30};
    struct pp_error err;

    for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
        const unsigned n = sizes[t], n1 = n + 1;
        struct cg_matrix m;
        unsigned minlen = 99, maxlen = 0;
        size_t asym = 0, bad_boundary = 0, bad_sum = 0;

        CHECK(cg_matrix_build(n, &m, &err) == 0, "n %u: %s", n, err.msg);
        CHECK(m.rows == (size_t)n1 * n1 * n1 && m.nnz == (size_t)(3 * n + 1) * (3 * n + 1) * (3 * n + 1),
              "n %u: %zu rows, %zu entries", n, m.rows, m.nnz);
        CHECK(m.row_ptr[m.rows] == m.nnz, "n %u: last offset %u", n, m.row_ptr[m.rows]);
        for (size_t i = 0; i < m.rows; i++) {
            unsigned len = m.row_ptr[i + 1] - m.row_ptr[i];
            unsigned a = (unsigned)(i / (n1 * n1)), b = (unsigned)(i / n1 % n1), c = (unsigned)(i % n1);
            bool boundary = !a || !b || !c || a == n || b == n || c == n;
            double sum = 0;

            minlen = len < minlen ? len : minlen;
            maxlen = len > maxlen ? len : maxlen;
            for (uint32_t e = m.row_ptr[i]; e < m.row_ptr[i + 1]; e++) {
                uint32_t j = m.col[e];
                bool found = false;
                sum += m.val[e];
                if (e > m.row_ptr[i] && m.col[e - 1] >= j)
                    asym++; /* columns ascending */
                for (uint32_t f = m.row_ptr[j]; f < m.row_ptr[j + 1]; f++)
                    if (m.col[f] == i)
                        found = m.val[f] == m.val[e];
                asym += !found;
                if (boundary && m.val[e] != (j == i ? 1.0 : 0.0))
                    bad_boundary++;
            }
            /* an interior node away from the boundary: the stencil sums to zero (a constant is harmonic) */
            if (a > 1 && b > 1 && c > 1 && a < n - 1 && b < n - 1 && c < n - 1 && fabs(sum) > 1e-8)
                bad_sum++;
        }
        CHECK(minlen == 8 && maxlen == (n >= 2 ? 27u : 8u), "n %u: row lengths %u .. %u", n, minlen, maxlen);
        CHECK(asym == 0, "n %u: %zu entries not symmetric or not ascending", n, asym);
        CHECK(bad_boundary == 0, "n %u: %zu boundary entries not Dirichlet rows", n, bad_boundary);
        CHECK(bad_sum == 0, "n %u: %zu interior rows do not sum to 0", n, bad_sum);
        cg_matrix_release(&m);
    }
    CHECK(cg_nnz(CG_MAX_N) <= 0x7fffffffu && cg_nnz(CG_MAX_N + 1) > 0x7fffffffu,
          "CG_MAX_N is the 32-bit limit");
}

/* miniFE's vector for n = 5 (its generator is valid from n = 3): values by hand. */
static void test_rhs(void)
{
    const unsigned n = 5, n1 = 6;
    const double h = 0.2;
    double b[216];

#define AT(i, j, k) b[((i)*n1 + (j)) * n1 + (k)]
    cg_rhs(n, b);
    CHECK(AT(0, 0, 5) == 1 && AT(3, 0, 5) == 1 && AT(2, 2, 5) == 1, "z = 1 face holds 1");
    CHECK(AT(0, 2, 2) == 0 && AT(2, 2, 0) == 0 && AT(5, 5, 4) == 0, "other faces hold 0");
    CHECK(fabs(AT(2, 2, 2) - h * h * h) < 1e-15, "source h^3: %g", AT(2, 2, 2));
    CHECK(fabs(AT(2, 2, 4) - (h * h * h + h)) < 1e-15, "next to the face: %g", AT(2, 2, 4));
    CHECK(fabs(AT(1, 2, 4) - (h * h * h + h * 8 / 12)) < 1e-15, "next to face and edge: %g", AT(1, 2, 4));
    CHECK(fabs(AT(4, 4, 4) - (h * h * h + h * 5 / 12)) < 1e-15, "next to a corner: %g", AT(4, 4, 4));
#undef AT
}

static void test_resolve(void)
{
    struct pp_device dev = models[0].dev;
    struct cg_params p;
    struct pp_error err;
    unsigned mask;
    enum pp_cg_spmv v;

#define REJECTS(field, text)                                                                                 \
    CHECK(cg_resolve(&p, &dev, &err) == -1 && strstr(err.msg, text), "%s: %s", field, err.msg)
    cg_params_default(&p);
    dev.llc_bytes = 0; /* the cache unknown: the suite's default */
    CHECK(cg_resolve(&p, &dev, &err) == 0 && p.n == CG_DEFAULT_N_CPU, "default n on a CPU: %u", p.n);
    /* a known cache: grown by 10 until matrix and vectors are at least 4x it (128 MiB: 512 MiB) */
    dev.llc_bytes = 128u << 20;
    cg_params_default(&p);
    CHECK(cg_resolve(&p, &dev, &err) == 0, "%s", err.msg);
    CHECK(p.n > CG_DEFAULT_N_CPU && p.n % CG_DEFAULT_N_STEP == 0 &&
              cg_working_set(p.n, p.prec) >= 4.0 * (128 << 20) &&
              cg_working_set(p.n - CG_DEFAULT_N_STEP, p.prec) < 4.0 * (128 << 20),
          "the smallest step at least 4x a 128 MiB cache: n %u, %.0f bytes", p.n,
          cg_working_set(p.n, p.prec));
    cg_params_default(&p);
    dev.llc_bytes = 32u << 20; /* 0.37 GB of fp64 matrix at n = 100 is more than 4 x 32 MiB already */
    CHECK(cg_resolve(&p, &dev, &err) == 0 && p.n == CG_DEFAULT_N_CPU, "32 MiB: n %u", p.n);
    cg_params_default(&p);
    p.n = 7;
    dev.llc_bytes = 1u << 30;
    CHECK(cg_resolve(&p, &dev, &err) == 0 && p.n == 7, "a given n stays: %u", p.n);
    cg_params_default(&p);
    dev.kind = PP_DEVICE_GPU;
    CHECK(cg_resolve(&p, &dev, &err) == 0 && p.n == CG_DEFAULT_N_GPU, "GPU default: %u", p.n);
    dev = models[0].dev;
    /* n = 9: 1000 rows, 21952 entries; offsets, indices, values and PP_CG_NVECTORS vectors */
    CHECK(cg_working_set(9, PP_FP32) == 4.0 * 1001 + 21952.0 * 8 + PP_CG_NVECTORS * 1000.0 * 4 &&
              cg_working_set(9, PP_FP64) == 4.0 * 1001 + 21952.0 * 12 + PP_CG_NVECTORS * 1000.0 * 8,
          "working set %.0f", cg_working_set(9, PP_FP32));
    cg_params_default(&p);
    p.n = CG_MAX_N + 1;
    REJECTS("n", "n must be from 1 to 429");
    p.n = 7;
    p.numtimes = 1;
    REJECTS("numtimes", "numtimes");
    p.numtimes = 2;
    p.iterations = 0;
    REJECTS("iterations", "iterations must be");
    p.iterations = 10;
    p.tolerance = -1;
    REJECTS("tolerance", "tolerance");
    p.tolerance = NAN;
    REJECTS("tolerance NaN", "tolerance");
    p.tolerance = 0;
    p.kernels = 0;
    REJECTS("kernels", "no kernel");
    p.kernels = CG_ALL_KERNELS;
    p.variant.spmv = PP_CG_SPMV_CUSPARSE;
    REJECTS("spmv_variant", "spmv_variant cusparse is not available on model openmp");
    p.variant.spmv = PP_CG_SPMV_NATIVE;
    p.variant.rows_per_group = 3;
    REJECTS("rows_per_group", "rows_per_group must be a power of two");
    p.variant.rows_per_group = 64;
    p.variant.items_per_row = 64;
    REJECTS("items_per_row", "items_per_row must be a power of two");
    p.variant.items_per_row = 2;
    REJECTS("items_per_row on openmp", "items_per_row must be 1 on openmp");
    p.variant.items_per_row = 0;
    dev.mem_bytes = 1000000;
    p.n = 30;
    REJECTS("memory", "n = 30 does not fit");
    dev = models[0].dev;
    CHECK(cg_resolve(&p, &dev, &err) == 0, "n 30 fits: %s", err.msg);
#undef REJECTS
    CHECK(cg_kernels_parse("spmv,cg", &mask, &err) == 0 && mask == ((1u << CG_SPMV) | (1u << CG_SOLVE)),
          "parse spmv,cg");
    CHECK(cg_kernels_parse("spmv,axpy", &mask, &err) == -1 && strstr(err.msg, "unknown kernel \"axpy\""),
          "%s", err.msg);
    CHECK(cg_spmv_parse("cusparse", &v, &err) == 0 && v == PP_CG_SPMV_CUSPARSE, "cusparse");
    CHECK(cg_spmv_parse("mkl", &v, &err) == -1 && strstr(err.msg, "spmv_variant"), "%s", err.msg);
}

static bool run(struct model *m, unsigned n, enum pp_precision prec, unsigned iterations, double tolerance,
                unsigned rows_per_group, unsigned items_per_row, struct cg_result *res)
{
    struct cg_params p;
    struct pp_error err;

    cg_params_default(&p);
    p.n = n;
    p.numtimes = 3;
    p.iterations = iterations;
    p.tolerance = tolerance;
    p.prec = prec;
    p.variant.rows_per_group = rows_per_group;
    p.variant.items_per_row = items_per_row;
    if (cg_resolve(&p, &m->dev, &err)) {
        CHECK(0, "%s resolve: %s", m->b->name, err.msg);
        return false;
    }
    if (cg_run(m->b, m->ctx, &p, res, &err)) {
        CHECK(0, "%s n %u %s: %s", m->b->name, n, pp_precision_name(prec), err.msg);
        return false;
    }
    return true;
}

static void test_kernels(void)
{
    const unsigned sizes[] = {1, 2, 7, 30};

    for (size_t mi = 0; mi < nmodels; mi++) {
        struct model *m = &models[mi];
        if (!m->ctx)
            continue;
        for (int prec = PP_FP64; prec <= PP_FP32; prec++)
            for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
                const unsigned n = sizes[t];
                struct cg_result res;

                if (!run(m, n, (enum pp_precision)prec, 40, 0, 0, 0, &res))
                    continue;
                CHECK(res.verified && res.nkernels == 4, "%s n %u %s not verified", m->b->name, n,
                      pp_precision_name(prec));
                for (size_t k = 0; k < res.nkernels; k++) {
                    const struct suite_kernel *kr = &res.kernels[k];
                    CHECK(kr->verified, "%s n %u %s %s: %s", m->b->name, n, pp_precision_name(prec), kr->name,
                          kr->error);
                    CHECK(kr->stats.count == 2 && kr->stats.min > 0, "%s %s: two timed samples", m->b->name,
                          kr->name);
                }
                CHECK(res.nnz == cg_nnz(n) && res.rows == cg_rows(n), "sizes");
                CHECK(res.kernels[CG_SPMV].flops == 2.0 * (double)res.nnz, "spmv flops");
                CHECK(res.kernels[CG_SPMV].bytes ==
                          4.0 * (double)(res.rows + 1) +
                              (double)res.nnz * (4 + (double)pp_precision_bytes((enum pp_precision)prec)) +
                              2.0 * (double)res.rows * (double)pp_precision_bytes((enum pp_precision)prec),
                      "spmv bytes");
                CHECK(res.kernels[CG_SOLVE].flops == 2.0 * (double)res.nnz + 13.0 * (double)res.rows,
                      "cg flops");
                CHECK(res.cg_iterations >= 1 && res.residual[res.cg_iterations] < res.residual[0],
                      "%s n %u: residual %g -> %g", m->b->name, n, res.residual[0],
                      res.residual[res.cg_iterations]);
                printf("  %s n=%u %s: %u iterations (%s), rel. residual %.3g; errors axpby %.2g dot %.2g "
                       "spmv %.2g cg %.2g\n",
                       m->b->name, n, pp_precision_name(prec), res.cg_iterations, cg_status_name(res.status),
                       res.residual[res.cg_iterations] / res.residual[0], res.kernels[0].max_rel_err,
                       res.kernels[1].max_rel_err, res.kernels[2].max_rel_err, res.kernels[3].max_rel_err);
                cg_result_release(&res);
            }
    }
}

/* The launch shapes: rows per work-group and work-items per row (the local-memory tree on OpenCL). */
static void test_shapes(void)
{
    const unsigned shapes[][2] = {{1, 1}, {8, 4}, {4, 32}, {64, 2}};

    for (size_t mi = 0; mi < nmodels; mi++) {
        struct model *m = &models[mi];
        if (!m->ctx)
            continue;
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
            struct cg_result res;
            unsigned items = m->b == &pp_backend_openmp ? 1 : shapes[s][1];

            if (!run(m, 7, PP_FP64, 10, 0, shapes[s][0], items, &res))
                continue;
            CHECK(res.verified, "%s %u rows x %u items: %s", m->b->name, shapes[s][0], items,
                  res.kernels[CG_SPMV].error);
            CHECK(res.variant.rows_per_group == shapes[s][0] && res.variant.items_per_row == items,
                  "%s: shape %u x %u ran as %u x %u", m->b->name, shapes[s][0], items,
                  res.variant.rows_per_group, res.variant.items_per_row);
            cg_result_release(&res);
        }
    }
}

static void test_fault(void)
{
    for (size_t mi = 0; mi < nmodels; mi++) {
        struct model *m = &models[mi];
        struct cg_result res;

        if (!m->ctx)
            continue;
        setenv("PPBENCH_TEST_FAULT", "column:200", 1);
        if (run(m, 7, PP_FP64, 10, 0, 0, 0, &res)) {
            CHECK(!res.verified, "%s: a moved column index passed", m->b->name);
            CHECK(!res.kernels[CG_SPMV].verified && strstr(res.kernels[CG_SPMV].error, "row: element 200"),
                  "%s: spmv names row 200: %s", m->b->name, res.kernels[CG_SPMV].error);
            CHECK(!res.kernels[CG_SOLVE].verified, "%s: cg caught it too", m->b->name);
            CHECK(res.kernels[CG_AXPBY].verified && res.kernels[CG_DOT].verified, "%s: vectors untouched",
                  m->b->name);
            printf("  %s fault: %s | %s\n", m->b->name, res.kernels[CG_SPMV].error,
                   res.kernels[CG_SOLVE].error);
            cg_result_release(&res);
        }
        unsetenv("PPBENCH_TEST_FAULT");
    }
}

/* An indefinite matrix diag(1, -1) with b = (1, 1): p.Ap = 0 in the first iteration. */
static void test_breakdown(void)
{
    uint32_t row_ptr[] = {0, 1, 2}, col[] = {0, 1};
    double val[] = {1, -1}, b[] = {1, 1}, hist[6], ref_hist[6];
    struct cg_matrix mat = {.n = 1, .rows = 2, .nnz = 2, .row_ptr = row_ptr, .col = col, .val = val};
    struct cg_solve ref = {.residual = ref_hist};
    struct pp_error err;

    CHECK(cg_ref_solve(&mat, PP_FP64, b, 5, 0, NULL, &ref, &err) == 0, "%s", err.msg);
    CHECK(ref.status == CG_BREAKDOWN && ref.iterations == 0 && ref.breakdown_pap == 0,
          "reference: %s after %u", cg_status_name(ref.status), ref.iterations);
    for (size_t mi = 0; mi < nmodels; mi++) {
        struct model *m = &models[mi];
        const struct pp_cg_ops *ops = pp_backend_ops(m->b, "cg");
        struct pp_cg_variant v = {0};
        struct cg_solve s = {.residual = hist};

        if (!m->ctx)
            continue;
        CHECK(ops->alloc(m->ctx, 2, 2, PP_FP64, &v, &err) == 0 &&
                  ops->upload_matrix(m->ctx, row_ptr, col, val, &err) == 0 &&
                  ops->upload(m->ctx, PP_CG_B, b, &err) == 0 &&
                  cg_device_solve(ops, m->ctx, 5, 0, &s, NULL, &err) == 0,
              "%s: %s", m->b->name, err.msg);
        CHECK(s.status == CG_BREAKDOWN && s.iterations == 0 && s.breakdown_pap == 0 && hist[0] == sqrt(2.0),
              "%s: %s after %u, p.Ap %g", m->b->name, cg_status_name(s.status), s.iterations,
              s.breakdown_pap);
        ops->release(m->ctx);
    }
}

static void test_convergence(void)
{
    for (size_t mi = 0; mi < nmodels; mi++) {
        struct model *m = &models[mi];
        struct cg_result res;

        if (!m->ctx)
            continue;
        if (run(m, 30, PP_FP64, 3, 1e-10, 0, 0, &res)) {
            CHECK(res.verified && !res.converged && res.cg_iterations == 3 &&
                      strstr(res.kernels[CG_SOLVE].error, "did not converge"),
                  "%s: %s", m->b->name, res.kernels[CG_SOLVE].error);
            printf("  %s: %s\n", m->b->name, res.kernels[CG_SOLVE].error);
            cg_result_release(&res);
        }
        if (run(m, 7, PP_FP64, 500, 1e-8, 0, 0, &res)) {
            CHECK(res.verified && res.converged && res.status == CG_CONVERGED && res.cg_iterations < 500 &&
                      res.kernels[CG_SOLVE].error[0] == '\0',
                  "%s: converged %d after %u: %s", m->b->name, res.converged, res.cg_iterations,
                  res.kernels[CG_SOLVE].error);
            cg_result_release(&res);
        }
    }
}

int main(void)
{
    open_models();
    RUN(test_matrix);
    RUN(test_rhs);
    if (nmodels) {
        RUN(test_resolve);
        RUN(test_kernels);
        RUN(test_shapes);
        RUN(test_fault);
        RUN(test_breakdown);
        RUN(test_convergence);
    }
    for (size_t i = 0; i < nmodels; i++)
        if (models[i].ctx)
            models[i].b->close(models[i].ctx);
    return check_failures ? 1 : 0;
}
