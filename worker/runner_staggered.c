/*
 * runner_staggered: runs the MILC staggered Dslash suite for runner_run and formats its result. Owns the
 * backend context and the result for the length of one call, on the main thread.
 */
#include "runner_staggered.h"

#include <jansson.h>

#include "worker/provenance.h"
#include "worker/run.h"

static const char *timing_name(enum staggered_timing t)
{
    return t == STAGGERED_TIMING_BEST ? "best" : "mean";
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

static void table(FILE *f, const struct run_report *r)
{
    const struct staggered_result *s = r->staggered;
    const struct staggered_params *p = &s->params;
    const char *version = info_get(&r->provenance, "ppbench.version");
    char peak[16] = "-", variant[96];

    variant_text(&s->variant, variant, sizeof(variant));
    fprintf(f, "ppbench MILC staggered Dslash (paper 001, even to odd checkerboard)\nVersion: %s\n",
            version ? version : "?");
    fprintf(f, "Platform: %s (%s)\nModel: %s (strategy %s)\n", r->platform->id, r->platform->name, r->model,
            variant);
    fprintf(f, "Lattice: %ux%ux%ux%u (%zu sites, %zu output sites), periodic\n", p->dims[0], p->dims[1],
            p->dims[2], p->dims[3], s->sites, s->out_sites);
    fprintf(f, "Running dslash: 1 warm-up, then %u runs of %u iterations; rates from the %s time\n", p->runs,
            p->iterations, timing_name(p->timing));
    fprintf(f, "Precision: %s\n", p->prec == PP_FP32 ? "float" : "double");
    fprintf(f, "Model per application: %.0f flop (%d per site), %.0f bytes (%.0f per site, no reuse)\n",
            s->flops, STAGGERED_FLOPS_PER_SITE, s->bytes, staggered_bytes_per_site(p->prec));
    if (r->platform->peak_bw > 0)
        snprintf(peak, sizeof(peak), "%.1f", 100.0 * s->bandwidth / r->platform->peak_bw);
    fprintf(f, "%-10s%12s%12s%12s%12s%12s%12s%8s  %s\n", "Function", "GFLOP/s", "GB/s", "Min (sec)", "Max",
            "Average", "Median", "%Peak", "Verified");
    fprintf(f, "%-10s%12.3f%12.3f%12.4g%12.4g%12.4g%12.4g%8s  %s\n", "Dslash", s->gflops, s->bandwidth * 1e-9,
            s->stats.min, s->stats.max, s->stats.mean, s->stats.median, peak, s->verified ? "yes" : "NO");
}

static void csv(FILE *f, const struct run_report *r)
{
    const struct staggered_result *s = r->staggered;
    const struct staggered_params *p = &s->params;

    fprintf(f,
            "function,runs,iterations,lattice,strategy,order,work_group,sizeof,timing,gflops,gbytes_per_sec,"
            "min_runtime,max_runtime,avg_runtime\n");
    fprintf(f, "Dslash,%u,%u,%ux%ux%ux%u,%s,%s,%u,%zu,%s,%.6f,%.6f,%.9g,%.9g,%.9g\n", p->runs, p->iterations,
            p->dims[0], p->dims[1], p->dims[2], p->dims[3], staggered_strategy_name(s->variant.strategy),
            staggered_order_name(s->variant.order), s->variant.work_group, pp_precision_bytes(p->prec),
            timing_name(p->timing), s->gflops, s->bandwidth * 1e-9, s->stats.min, s->stats.max,
            s->stats.mean);
}

static int json(FILE *f, const struct run_report *r, struct pp_error *err)
{
    const struct staggered_result *s = r->staggered;
    const struct staggered_params *p = &s->params;
    const struct report_kernel k = {
        .name = "dslash",
        .verified = s->verified,
        .error = s->detail,
        .bytes = s->bytes,
        .flops = s->flops,
        .bandwidth = s->bandwidth,
        .gflops = s->gflops,
        .stats = &s->stats,
        .times = s->times,
        .ntimes = p->runs,
        .max_rel_err = s->max_rel_err,
        .tolerance = s->tolerance,
    };

    return report_write_json(
        f, r, "staggered",
        json_pack("{s:[i,i,i,i], s:I, s:I, s:s, s:s, s:i, s:i, s:i, s:i, s:s, s:I, s:s, s:i, s:f}", "lattice",
                  p->dims[0], p->dims[1], p->dims[2], p->dims[3], "sites", (json_int_t)s->sites,
                  "output_sites", (json_int_t)s->out_sites, "output_parity", "odd", "precision",
                  pp_precision_name(p->prec), "element_bytes", (int)pp_precision_bytes(p->prec), "runs",
                  (int)p->runs, "iterations", (int)p->iterations, "warmup", 1, "timing",
                  timing_name(p->timing), "seed", (json_int_t)p->seed, "boundary", "periodic",
                  "flops_per_site", STAGGERED_FLOPS_PER_SITE, "bytes_per_site",
                  staggered_bytes_per_site(p->prec)),
        json_pack("{s:s, s:s, s:i, s:i}", "strategy", staggered_strategy_name(s->variant.strategy), "order",
                  staggered_order_name(s->variant.order), "work_group_size", (int)s->variant.work_group,
                  "threads", (int)s->variant.threads),
        json_pack("{s:f, s:f, s:f}", "init", s->init_seconds, "read", s->read_seconds, "warmup",
                  s->warmup_seconds),
        s->verified, json_pack("[o]", report_kernel_json(&k, r->platform->peak_bw)), err);
}

static const struct runner_writers writers = {.table = table, .csv = csv, .json = json};

int runner_staggered(const struct pp_backend *b, struct run_report *r, struct staggered_params *p, FILE *out,
                     enum runner_format fmt, struct pp_error *err)
{
    struct staggered_result res;
    struct pp_ctx *ctx = NULL;
    int rc;

    if (staggered_resolve(p, b, r->device, err))
        return RUN_USAGE;
    if (b->open(r->device, &ctx, err)) {
        pp_error_prefix(err, "%s on %s", r->model, r->platform->id);
        return RUN_FAILED;
    }
    provenance_collect(&r->provenance);
    if (staggered_run(b, ctx, p, &res, err)) {
        pp_error_prefix(err, "%s on %s", r->model, r->platform->id);
        rc = RUN_FAILED;
        goto out;
    }
    b->describe(ctx, &r->backend);
    r->staggered = &res;
    rc = runner_report(out, fmt, r, &writers, res.verified, res.detail, err);
out:
    staggered_result_release(&res);
    b->close(ctx);
    return rc;
}
