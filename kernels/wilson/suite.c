/*
 * wilson/suite: the Wilson Dslash suite's plug-in (kernels/suite_driver.h): its parameters into struct
 * wilson_params (resolved on the device), the run, and its report pieces. The driver state is this file's
 * from prepare to release; main thread.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/lattice.h"
#include "kernels/suite_driver.h"
#include "kernels/wilson/model.h"
#include "kernels/wilson/wilson.h"

struct state {
    struct wilson_params params; /* resolved on the device: what runs and is reported */
    struct wilson_result res;    /* zero until run: releasing it is safe */
};

static int prepare(const struct suite_run *run, void **out, struct pp_error *err)
{
    const struct suite_values *v = run->values;
    struct state *s = calloc(1, sizeof(*s));
    struct wilson_params *p;

    if (!(*out = s))
        return pp_error_set(err, "out of memory");
    p = &s->params;
    wilson_params_default(p);
    if (suite_is_set(v, "lattice") && lattice_parse(suite_str(v, "lattice"), p->dims, err))
        return -1;
    p->numtimes = (unsigned)suite_int(v, "numtimes");
    p->iterations = (unsigned)suite_int(v, "iterations");
    p->prec = strcmp(suite_str(v, "precision"), "fp32") == 0 ? PP_FP32 : PP_FP64;
    if (wilson_layout_parse(suite_str(v, "layout"), &p->layout, err))
        return -1;
    p->progress = run->progress;
    p->progress_arg = run->progress_arg;
    return wilson_resolve(p, run->device, err);
}

static int run(void *state, const struct pp_backend *b, struct pp_ctx *ctx, struct suite_output *out,
               struct pp_error *err)
{
    struct state *s = state;
    const struct wilson_params *p = &s->params;
    const struct wilson_result *w = &s->res;

    if (wilson_run(b, ctx, p, &s->res, err))
        return -1;
    out->kernels = &w->dslash;
    out->nkernels = 1;
    out->verified = w->dslash.verified;
    out->problem = json_pack(
        "{s:I, s:[i,i,i,i], s:I, s:I, s:s, s:s, s:i, s:i, s:i, s:i, s:I, s:s, s:i, s:f, s:f, s:I}", "size",
        (json_int_t)w->sites, "lattice", p->dims[0], p->dims[1], p->dims[2], p->dims[3], "sites",
        (json_int_t)w->sites, "output_sites", (json_int_t)w->out_sites, "output_parity", "odd", "precision",
        pp_precision_name(p->prec), "element_bytes", (int)pp_precision_bytes(p->prec), "numtimes",
        (int)p->numtimes, "iterations", (int)p->iterations, "warmup", 1, "seed", (json_int_t)p->seed,
        "boundary", "periodic", "flops_per_site", WILSON_FLOPS_PER_SITE, "bytes_per_site",
        wilson_bytes_per_site(p->prec), "bytes_compulsory_per_site",
        wilson_bytes_compulsory_per_site(p->prec), "working_set_bytes", (json_int_t)wilson_working_set(p));
    out->variant =
        json_pack("{s:s, s:i, s:i}", "layout", wilson_layout_name(w->variant.layout), "work_group_size",
                  (int)w->variant.work_group, "threads", (int)w->variant.threads);
    out->phases = json_pack("{s:f, s:f}", "init", w->init_seconds, "read", w->read_seconds);
    return 0;
}

static void table(FILE *f, const struct suite_header *h, const void *state)
{
    const struct wilson_result *w = &((const struct state *)state)->res;
    const struct wilson_params *p = &w->params;
    const struct suite_kernel *k = &w->dslash;
    char peak[16] = "-";

    fprintf(f, "ppbench Wilson Dslash (paper 000, even to odd checkerboard)\nVersion: %s\n", h->version);
    fprintf(f, "Platform: %s (%s)\nModel: %s (layout %s, %u threads)\n", h->platform_id, h->platform_name,
            h->model, wilson_layout_name(w->variant.layout), w->variant.threads);
    fprintf(f, "Lattice: %ux%ux%ux%u (%zu sites, %zu output sites), periodic\n", p->dims[0], p->dims[1],
            p->dims[2], p->dims[3], w->sites, w->out_sites);
    fprintf(f,
            "Running dslash %u times, %u application%s back to back each (the first is warm-up, excluded)\n"
            "Precision: %s\n",
            p->numtimes, p->iterations, p->iterations == 1 ? "" : "s",
            p->prec == PP_FP32 ? "float" : "double");
    fprintf(f,
            "Model per application: %.0f flop (1320 per site), %.0f bytes (Eq. 2, R = 0), compulsory %.0f "
            "bytes (R = 7; %%Peak uses it)\n",
            k->flops, k->bytes, k->bytes_compulsory);
    if (h->peak_bw > 0)
        snprintf(peak, sizeof(peak), "%.1f",
                 100.0 * k->bandwidth * k->bytes_compulsory / k->bytes / h->peak_bw);
    fprintf(f, "%-10s%12s%14s%12s%12s%12s%12s%8s  %s\n", "Function", "GFLOP/s", "MBytes/sec", "Min (sec)",
            "Max", "Average", "Median", "%Peak", "Verified");
    fprintf(f, "%-10s%12.3f%14.3f%12.5f%12.5f%12.5f%12.5f%8s  %s\n", "Dslash", k->gflops, k->bandwidth * 1e-6,
            k->stats.min, k->stats.max, k->stats.mean, k->stats.median, peak, k->verified ? "yes" : "NO");
}

static void csv(FILE *f, const void *state)
{
    const struct wilson_result *w = &((const struct state *)state)->res;
    const struct wilson_params *p = &w->params;
    const struct suite_kernel *k = &w->dslash;

    fprintf(f, "function,num_times,lattice,layout,sizeof,gflops,max_mbytes_per_sec,min_runtime,max_runtime,"
               "avg_runtime\n");
    fprintf(f, "Dslash,%u,%ux%ux%ux%u,%s,%zu,%.6f,%.6f,%.9g,%.9g,%.9g\n", p->numtimes, p->dims[0], p->dims[1],
            p->dims[2], p->dims[3], wilson_layout_name(w->variant.layout), pp_precision_bytes(p->prec),
            k->gflops, k->bandwidth * 1e-6, k->stats.min, k->stats.max, k->stats.mean);
}

static void release(void *state)
{
    struct state *s = state;

    if (s)
        wilson_result_release(&s->res);
    free(s);
}

const struct suite_driver wilson_driver = {
    .prepare = prepare, .run = run, .table = table, .csv = csv, .release = release};
