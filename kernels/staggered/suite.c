/*
 * staggered/suite: the MILC staggered Dslash suite's plug-in (kernels/suite_driver.h): its parameters into
 * struct staggered_params (resolved for the device and model), the run, and its report pieces. The driver
 * state is this file's from prepare to release; main thread.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/lattice.h"
#include "kernels/staggered/model.h"
#include "kernels/staggered/staggered.h"
#include "kernels/suite_driver.h"

struct state {
    struct staggered_params params; /* resolved: what runs and is reported */
    struct staggered_result res;    /* zero until run: releasing it is safe */
};

static const char *timing_name(enum staggered_timing t)
{
    return t == STAGGERED_TIMING_BEST ? "best" : "mean";
}

static int prepare(const struct suite_run *run, void **out, struct pp_error *err)
{
    const struct suite_values *v = run->values;
    struct state *s = calloc(1, sizeof(*s));
    struct staggered_params *p;

    if (!(*out = s))
        return pp_error_set(err, "out of memory");
    p = &s->params;
    staggered_params_default(p);
    if (suite_is_set(v, "lattice") && lattice_parse(suite_str(v, "lattice"), p->dims, err))
        return -1;
    p->prec = strcmp(suite_str(v, "precision"), "fp32") == 0 ? PP_FP32 : PP_FP64;
    if (suite_is_set(v, "strategy") &&
        staggered_strategy_parse(suite_str(v, "strategy"), &p->variant.strategy, err))
        return -1;
    if (suite_is_set(v, "order") && staggered_order_parse(suite_str(v, "order"), &p->variant.order, err))
        return -1;
    if (suite_is_set(v, "work_group"))
        p->variant.work_group = (unsigned)suite_int(v, "work_group");
    p->runs = (unsigned)suite_int(v, "runs");
    p->iterations = (unsigned)suite_int(v, "iterations");
    p->timing = strcmp(suite_str(v, "timing"), "best") == 0 ? STAGGERED_TIMING_BEST : STAGGERED_TIMING_MEAN;
    p->progress = run->progress;
    p->progress_arg = run->progress_arg;
    return staggered_resolve(p, run->backend, run->device, err);
}

static int run(void *state, const struct pp_backend *b, struct pp_ctx *ctx, struct suite_output *out,
               struct pp_error *err)
{
    struct state *st = state;
    const struct staggered_params *p = &st->params;
    const struct staggered_result *s = &st->res;

    if (staggered_run(b, ctx, p, &st->res, err))
        return -1;
    out->kernels = &s->dslash;
    out->nkernels = 1;
    out->verified = s->dslash.verified;
    out->problem = json_pack(
        "{s:I, s:[i,i,i,i], s:I, s:I, s:s, s:s, s:i, s:i, s:i, s:i, s:s, s:I, s:s, s:i, s:f, s:f, s:I}",
        "size", (json_int_t)s->sites, "lattice", p->dims[0], p->dims[1], p->dims[2], p->dims[3], "sites",
        (json_int_t)s->sites, "output_sites", (json_int_t)s->out_sites, "output_parity", "odd", "precision",
        pp_precision_name(p->prec), "element_bytes", (int)pp_precision_bytes(p->prec), "runs", (int)p->runs,
        "iterations", (int)p->iterations, "warmup", 1, "timing", timing_name(p->timing), "seed",
        (json_int_t)p->seed, "boundary", "periodic", "flops_per_site", STAGGERED_FLOPS_PER_SITE,
        "bytes_per_site", staggered_bytes_per_site(p->prec), "bytes_compulsory_per_site",
        staggered_bytes_compulsory_per_site(p->prec), "working_set_bytes",
        (json_int_t)staggered_working_set(p));
    /* x + 3k and x - k are one site on an extent of 4, x + 3k and x - 3k on an extent of 6: the third
     * neighbours alias, a problem unlike the paper's (accepted, and said) */
    for (int k = 0; k < 4; k++)
        if (p->dims[k] == 4 || p->dims[k] == 6) {
            if (!out->warnings)
                out->warnings = json_array();
            json_array_append_new(
                out->warnings,
                json_sprintf(p->dims[k] == 4
                                 ? "extent 4 in %c: the third neighbour %c + 3 is the first neighbour %c - 1"
                                 : "extent 6 in %c: the third neighbours %c + 3 and %c - 3 are one site",
                             "xyzt"[k], "xyzt"[k], "xyzt"[k]));
        }
    out->variant =
        json_pack("{s:s, s:i, s:i}", "strategy", staggered_strategy_name(s->variant.strategy),
                  "work_group_size", (int)s->variant.work_group, "threads", (int)s->variant.threads);
    /* a strategy without orders has none to name (the variant name is "1lp", not "1lp/none") */
    if (out->variant && s->variant.order != PP_ORDER_NONE)
        json_object_set_new(out->variant, "order", json_string(staggered_order_name(s->variant.order)));
    out->phases = json_pack("{s:f, s:f, s:f}", "init", s->init_seconds, "read", s->read_seconds, "warmup",
                            s->warmup_seconds);
    return 0;
}

/* "3lp-1 k-major, work-group 768", "1lp, work-group 256" or "site, 16 threads" */
static void variant_text(const struct pp_staggered_variant *v, char *out, size_t size)
{
    const char *name = staggered_strategy_name(v->strategy);

    if (!v->work_group)
        snprintf(out, size, "%s, %u threads", name, v->threads);
    else if (v->order == PP_ORDER_NONE)
        snprintf(out, size, "%s, work-group %u", name, v->work_group);
    else
        snprintf(out, size, "%s %s-major, work-group %u", name, staggered_order_name(v->order),
                 v->work_group);
}

static void table(FILE *f, const struct suite_header *h, const void *state)
{
    const struct staggered_result *s = &((const struct state *)state)->res;
    const struct staggered_params *p = &s->params;
    const struct suite_kernel *k = &s->dslash;
    char peak[16] = "-", variant[96];

    variant_text(&s->variant, variant, sizeof(variant));
    fprintf(f, "ppbench MILC staggered Dslash (paper 001, even to odd checkerboard)\nVersion: %s\n",
            h->version);
    fprintf(f, "Platform: %s (%s)\nModel: %s (strategy %s)\n", h->platform_id, h->platform_name, h->model,
            variant);
    fprintf(f, "Lattice: %ux%ux%ux%u (%zu sites, %zu output sites), periodic\n", p->dims[0], p->dims[1],
            p->dims[2], p->dims[3], s->sites, s->out_sites);
    fprintf(f, "Running dslash: 1 warm-up, then %u runs of %u iterations; rates from the %s time\n", p->runs,
            p->iterations, timing_name(p->timing));
    fprintf(f, "Precision: %s\n", p->prec == PP_FP32 ? "float" : "double");
    fprintf(
        f,
        "Model per application: %.0f flop (%d per site), %.0f bytes (%.0f per site, no reuse), compulsory "
        "%.0f bytes (%%Peak uses it)\n",
        k->flops, STAGGERED_FLOPS_PER_SITE, k->bytes, staggered_bytes_per_site(p->prec), k->bytes_compulsory);
    if (h->peak_bw > 0)
        snprintf(peak, sizeof(peak), "%.1f",
                 100.0 * k->bandwidth * k->bytes_compulsory / k->bytes / h->peak_bw);
    fprintf(f, "%-10s%12s%12s%12s%12s%12s%12s%8s  %s\n", "Function", "GFLOP/s", "GB/s", "Min (sec)", "Max",
            "Average", "Median", "%Peak", "Verified");
    fprintf(f, "%-10s%12.3f%12.3f%12.4g%12.4g%12.4g%12.4g%8s  %s\n", "Dslash", k->gflops, k->bandwidth * 1e-9,
            k->stats.min, k->stats.max, k->stats.mean, k->stats.median, peak, k->verified ? "yes" : "NO");
}

static void csv(FILE *f, const void *state)
{
    const struct staggered_result *s = &((const struct state *)state)->res;
    const struct staggered_params *p = &s->params;
    const struct suite_kernel *k = &s->dslash;

    fprintf(f,
            "function,runs,iterations,lattice,strategy,order,work_group,sizeof,timing,gflops,gbytes_per_sec,"
            "min_runtime,max_runtime,avg_runtime\n");
    fprintf(f, "Dslash,%u,%u,%ux%ux%ux%u,%s,%s,%u,%zu,%s,%.6f,%.6f,%.9g,%.9g,%.9g\n", p->runs, p->iterations,
            p->dims[0], p->dims[1], p->dims[2], p->dims[3], staggered_strategy_name(s->variant.strategy),
            staggered_order_name(s->variant.order), s->variant.work_group, pp_precision_bytes(p->prec),
            timing_name(p->timing), k->gflops, k->bandwidth * 1e-9, k->stats.min, k->stats.max,
            k->stats.mean);
}

static void release(void *state)
{
    struct state *s = state;

    if (s)
        staggered_result_release(&s->res);
    free(s);
}

const struct suite_driver staggered_driver = {
    .prepare = prepare, .run = run, .table = table, .csv = csv, .release = release};
