/*
 * stream/suite: the STREAM suite's plug-in (kernels/suite_driver.h): its parameters into struct
 * stream_params, the run, and its report pieces (problem, variant, BabelStream's table and CSV). The driver
 * state (parameters and result) is this file's from prepare to release; main thread.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/stream/stream.h"
#include "kernels/suite_driver.h"

struct state {
    struct stream_params params;
    struct stream_result res; /* zero until run: releasing it is safe */
};

/* BabelStream's capitalised labels (its CSV and table use them). */
static const char *label(enum stream_kernel k)
{
    static const char *const names[STREAM_NKERNELS] = {"Copy", "Mul", "Add", "Triad", "Dot", "Nstream"};
    return (unsigned)k < STREAM_NKERNELS ? names[k] : "?";
}

static int prepare(const struct suite_run *run, void **out, struct pp_error *err)
{
    const struct suite_values *v = run->values;
    struct state *s = calloc(1, sizeof(*s));

    if (!s)
        return pp_error_set(err, "out of memory");
    stream_params_default(&s->params);
    s->params.n = suite_is_set(v, "arraysize") ? (size_t)suite_int(v, "arraysize") : 0;
    s->params.numtimes = (unsigned)suite_int(v, "numtimes");
    s->params.prec = strcmp(suite_str(v, "precision"), "fp32") == 0 ? PP_FP32 : PP_FP64;
    s->params.kernels = 0;
    for (unsigned k = 0; k < STREAM_NKERNELS; k++)
        if (suite_kernel_on(v, stream_kernel_name(k)))
            s->params.kernels |= 1u << k;
    if (suite_is_set(v, "stores"))
        s->params.stores =
            strcmp(suite_str(v, "stores"), "streaming") == 0 ? PP_STORES_STREAMING : PP_STORES_TEMPORAL;
    s->params.progress = run->progress;
    s->params.progress_arg = run->progress_arg;
    *out = s;
    return stream_resolve(&s->params, run->device, err);
}

static int run(void *state, const struct pp_backend *b, struct pp_ctx *ctx, struct suite_output *out,
               struct pp_error *err)
{
    struct state *s = state;
    const struct stream_params *p = &s->params;
    const struct stream_result *res = &s->res;

    if (stream_run(b, ctx, p, &s->res, err))
        return -1;
    out->kernels = res->kernels;
    out->nkernels = res->nkernels;
    out->verified = res->verified;
    out->problem = json_pack("{s:I, s:I, s:s, s:i, s:i, s:i, s:f, s:f, s:f, s:I}", "size", (json_int_t)p->n,
                             "array_size", (json_int_t)p->n, "precision", pp_precision_name(p->prec),
                             "element_bytes", (int)pp_precision_bytes(p->prec), "numtimes", (int)p->numtimes,
                             "warmup", 1, "scalar", STREAM_SCALAR, "start_a", STREAM_START_A, "start_b",
                             STREAM_START_B, "working_set_bytes", (json_int_t)stream_footprint(p));
    out->variant = json_pack("{s:i, s:i, s:I}", "work_group_size", (int)res->layout.work_group, "dot_groups",
                             (int)res->layout.dot_groups, "dot_chain", (json_int_t)res->layout.dot_chain);
    if (out->variant && res->layout.stores != PP_STORES_AUTO)
        json_object_set_new(
            out->variant, "stores",
            json_string(res->layout.stores == PP_STORES_STREAMING ? "streaming" : "temporal"));
    out->phases = json_pack("{s:f, s:f}", "init", res->init_seconds, "read", res->read_seconds);
    return 0;
}

static void table(FILE *f, const struct suite_header *h, const void *state)
{
    const struct stream_result *res = &((const struct state *)state)->res;
    const struct stream_params *p = &res->params;
    double array = (double)p->n * (double)pp_precision_bytes(p->prec);

    fprintf(f, "ppbench STREAM (BabelStream rules)\nVersion: %s\n", h->version);
    fprintf(f, "Platform: %s (%s)\nModel: %s", h->platform_id, h->platform_name, h->model);
    if (res->layout.work_group)
        fprintf(f, " (work-group %u, dot over %u groups)", res->layout.work_group, res->layout.dot_groups);
    else
        fprintf(f, " (%u threads)", res->layout.dot_groups);
    fprintf(f, "\nRunning kernels %u times (the first is warm-up, excluded)\n", p->numtimes);
    fprintf(f, "Precision: %s\n", p->prec == PP_FP32 ? "float" : "double");
    fprintf(f, "Array size: %.1f MB (=%.1f GB)\nTotal size: %.1f MB (=%.1f GB)\n", array * 1e-6, array * 1e-9,
            3 * array * 1e-6, 3 * array * 1e-9);
    if (h->peak_bw > 0)
        fprintf(f, "Peak bandwidth: %.1f GB/s (%s)\n", h->peak_bw * 1e-9, h->peak_source);
    fprintf(f, "%-10s%14s%12s%12s%12s%12s%8s  %s\n", "Function", "MBytes/sec", "Min (sec)", "Max", "Average",
            "Median", "%Peak", "Verified");
    for (size_t i = 0; i < res->nkernels; i++) {
        const struct suite_kernel *k = &res->kernels[i];
        char peak[16] = "-";
        if (h->peak_bw > 0)
            snprintf(peak, sizeof(peak), "%.1f", 100.0 * k->bandwidth / h->peak_bw);
        fprintf(f, "%-10s%14.3f%12.5f%12.5f%12.5f%12.5f%8s  %s\n", label(res->which[i]), k->bandwidth * 1e-6,
                k->stats.min, k->stats.max, k->stats.mean, k->stats.median, peak, k->verified ? "yes" : "NO");
    }
}

static void csv(FILE *f, const void *state)
{
    const struct stream_result *res = &((const struct state *)state)->res;
    const struct stream_params *p = &res->params;

    fprintf(f,
            "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime\n");
    for (size_t i = 0; i < res->nkernels; i++) {
        const struct suite_kernel *k = &res->kernels[i];
        fprintf(f, "%s,%u,%zu,%zu,%.6f,%.9g,%.9g,%.9g\n", label(res->which[i]), p->numtimes, p->n,
                pp_precision_bytes(p->prec), k->bandwidth * 1e-6, k->stats.min, k->stats.max, k->stats.mean);
    }
}

static void release(void *state)
{
    struct state *s = state;

    if (s)
        stream_result_release(&s->res);
    free(s);
}

const struct suite_driver stream_driver = {
    .prepare = prepare, .run = run, .table = table, .csv = csv, .release = release};
