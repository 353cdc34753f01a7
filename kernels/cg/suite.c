/*
 * cg/suite: the CG-solve suite's plug-in (kernels/suite_driver.h): its parameters into struct cg_params
 * (resolved on the device), the run, and its report pieces (the problem, the launch shape, the solve's
 * residual history, a BabelStream-like table and CSV). The driver state is this file's from prepare to
 * release; main thread.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/cg/cg.h"
#include "kernels/suite_driver.h"

struct state {
    struct cg_params params; /* resolved on the device: what runs and is reported */
    struct cg_result res;    /* zero until run: releasing it is safe */
};

static int prepare(const struct suite_run *run, void **out, struct pp_error *err)
{
    const struct suite_values *v = run->values;
    struct state *s = calloc(1, sizeof(*s));
    struct cg_params *p;

    if (!(*out = s))
        return pp_error_set(err, "out of memory");
    p = &s->params;
    cg_params_default(p);
    p->n = suite_is_set(v, "n") ? (unsigned)suite_int(v, "n") : 0;
    p->numtimes = (unsigned)suite_int(v, "numtimes");
    p->iterations = (unsigned)suite_int(v, "iterations");
    p->tolerance = suite_number(v, "tolerance");
    p->prec = strcmp(suite_str(v, "precision"), "fp32") == 0 ? PP_FP32 : PP_FP64;
    p->kernels = 0;
    for (unsigned k = 0; k < CG_NKERNELS; k++)
        if (suite_kernel_on(v, cg_kernel_name(k)))
            p->kernels |= 1u << k;
    if (cg_spmv_parse(suite_str(v, "spmv_variant"), &p->variant.spmv, err))
        return -1;
    if (suite_is_set(v, "rows_per_group"))
        p->variant.rows_per_group = (unsigned)suite_int(v, "rows_per_group");
    if (suite_is_set(v, "items_per_row"))
        p->variant.items_per_row = (unsigned)suite_int(v, "items_per_row");
    p->progress = run->progress;
    p->progress_arg = run->progress_arg;
    return cg_resolve(p, run->device, err);
}

static json_t *history(const double *r, unsigned n)
{
    json_t *a = json_array();

    for (unsigned k = 0; r && k < n; k++)
        json_array_append_new(a, json_real(r[k]));
    return a;
}

static int run(void *state, const struct pp_backend *b, struct pp_ctx *ctx, struct suite_output *out,
               struct pp_error *err)
{
    struct state *st = state;
    const struct cg_params *p = &st->params;
    const struct cg_result *res = &st->res;

    if (cg_run(b, ctx, p, &st->res, err))
        return -1;
    out->kernels = res->kernels;
    out->nkernels = res->nkernels;
    out->verified = res->verified;
    out->problem = json_pack("{s:I, s:i, s:I, s:I, s:s, s:i, s:i, s:i, s:i, s:f, s:s, s:I}", "size",
                             (json_int_t)res->rows, "n", (int)p->n, "rows", (json_int_t)res->rows, "nnz",
                             (json_int_t)res->nnz, "precision", pp_precision_name(p->prec), "element_bytes",
                             (int)pp_precision_bytes(p->prec), "index_bytes", 4, "numtimes", (int)p->numtimes,
                             "iterations", (int)p->iterations, "tolerance", p->tolerance, "matrix",
                             "miniFE 27-point heat conduction, CRS", "working_set_bytes",
                             (json_int_t)cg_working_set(p->n, p->prec));
    out->variant = json_pack(
        "{s:s, s:i, s:i, s:i, s:i, s:i, s:I, s:i}", "spmv_variant", cg_spmv_name(res->variant.spmv),
        "rows_per_group", (int)res->variant.rows_per_group, "items_per_row", (int)res->variant.items_per_row,
        "work_group_size", (int)res->variant.work_group, "vector_group_size", (int)res->variant.vector_group,
        "dot_groups", (int)res->variant.dot_groups, "dot_chain", (json_int_t)res->variant.dot_chain,
        "threads", (int)res->variant.threads);
    out->phases = json_pack("{s:f, s:f, s:f}", "build", res->build_seconds, "init", res->init_seconds, "read",
                            res->read_seconds);
    if (p->kernels & (1u << CG_SOLVE))
        out->details =
            json_pack("{s:s, s:i, s:b, s:f, s:o, s:o}", "cg_status", cg_status_name(res->status),
                      "cg_iterations", (int)res->cg_iterations, "converged", res->converged, "true_residual",
                      res->true_residual, "residual", history(res->residual, res->cg_iterations + 1),
                      "reference_residual", history(res->ref_residual, res->ref_iterations + 1));
    return 0;
}

static void table(FILE *f, const struct suite_header *h, const void *state)
{
    const struct cg_result *res = &((const struct state *)state)->res;
    const struct cg_params *p = &res->params;

    fprintf(f, "ppbench CG solve (paper 002: miniFE 27-point matrix, CRS)\nVersion: %s\n", h->version);
    fprintf(f, "Platform: %s (%s)\nModel: %s (spmv %s, %u rows x %u items per group", h->platform_id,
            h->platform_name, h->model, cg_spmv_name(res->variant.spmv), res->variant.rows_per_group,
            res->variant.items_per_row);
    if (res->variant.threads)
        fprintf(f, ", %u threads", res->variant.threads);
    fprintf(f, ")\nMatrix: n = %u, %zu rows, %zu nonzeros\n", p->n, res->rows, res->nnz);
    fprintf(f,
            "Running kernels %u times (the first is warm-up, excluded); cg: %u iterations per sample, times "
            "per iteration\n",
            p->numtimes, p->iterations);
    fprintf(f, "Precision: %s\n", p->prec == PP_FP32 ? "float" : "double");
    if (h->peak_bw > 0)
        fprintf(f, "Peak bandwidth: %.1f GB/s (%s)\n", h->peak_bw * 1e-9, h->peak_source);
    fprintf(f, "%-10s%14s%12s%12s%12s%12s%12s%8s  %s\n", "Function", "MBytes/sec", "GFLOP/s", "Min (sec)",
            "Max", "Average", "Median", "%Peak", "Verified");
    for (size_t i = 0; i < res->nkernels; i++) {
        const struct suite_kernel *k = &res->kernels[i];
        char peak[16] = "-", name[16];
        if (h->peak_bw > 0)
            snprintf(peak, sizeof(peak), "%.1f", 100.0 * k->bandwidth / h->peak_bw);
        snprintf(name, sizeof(name), "%s", k->name);
        name[0] = (char)(name[0] - 'a' + 'A');
        fprintf(f, "%-10s%14.3f%12.3f%12.5g%12.5g%12.5g%12.5g%8s  %s\n", name, k->bandwidth * 1e-6, k->gflops,
                k->stats.min, k->stats.max, k->stats.mean, k->stats.median, peak, k->verified ? "yes" : "NO");
    }
    if (p->kernels & (1u << CG_SOLVE))
        fprintf(f, "cg: %s after %u iterations, relative residual %.3g\n", cg_status_name(res->status),
                res->cg_iterations,
                res->residual && res->residual[0] > 0 ? res->residual[res->cg_iterations] / res->residual[0]
                                                      : 0.0);
}

static void csv(FILE *f, const void *state)
{
    const struct cg_result *res = &((const struct state *)state)->res;
    const struct cg_params *p = &res->params;

    fprintf(f, "function,num_times,n,rows,nnz,sizeof,spmv_variant,rows_per_group,items_per_row,"
               "max_mbytes_per_sec,gflops,min_runtime,max_runtime,avg_runtime\n");
    for (size_t i = 0; i < res->nkernels; i++) {
        const struct suite_kernel *k = &res->kernels[i];
        fprintf(f, "%s,%u,%u,%zu,%zu,%zu,%s,%u,%u,%.6f,%.6f,%.9g,%.9g,%.9g\n", k->name, p->numtimes, p->n,
                res->rows, res->nnz, pp_precision_bytes(p->prec), cg_spmv_name(res->variant.spmv),
                res->variant.rows_per_group, res->variant.items_per_row, k->bandwidth * 1e-6, k->gflops,
                k->stats.min, k->stats.max, k->stats.mean);
    }
}

static void release(void *state)
{
    struct state *s = state;

    if (s)
        cg_result_release(&s->res);
    free(s);
}

const struct suite_driver cg_driver = {
    .prepare = prepare, .run = run, .table = table, .csv = csv, .release = release};
