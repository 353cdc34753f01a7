/*
 * runner_wilson: runs the Wilson Dslash suite for runner_run and formats its result. Owns the backend context
 * and the result for the length of one call, on the main thread.
 */
#include "runner_wilson.h"

#include <jansson.h>

#include "worker/provenance.h"
#include "worker/run.h"

static void table(FILE *f, const struct run_report *r)
{
    const struct wilson_result *w = r->wilson;
    const struct wilson_params *p = &w->params;
    const char *version = info_get(&r->provenance, "ppbench.version");
    char peak[16] = "-";

    fprintf(f, "ppbench Wilson Dslash (paper 000, even to odd checkerboard)\nVersion: %s\n",
            version ? version : "?");
    fprintf(f, "Platform: %s (%s)\nModel: %s (layout %s, %u threads)\n", r->platform->id, r->platform->name,
            r->model, wilson_layout_name(w->variant.layout), w->variant.threads);
    fprintf(f, "Lattice: %ux%ux%ux%u (%zu sites, %zu output sites), periodic\n", p->dims[0], p->dims[1],
            p->dims[2], p->dims[3], w->sites, w->out_sites);
    fprintf(f,
            "Running dslash %u times, %u application%s back to back each (the first is warm-up, excluded)\n"
            "Precision: %s\n",
            p->numtimes, p->iterations, p->iterations == 1 ? "" : "s",
            p->prec == PP_FP32 ? "float" : "double");
    fprintf(f, "Model per application: %.0f flop (1320 per site), %.0f bytes (Eq. 2, R = 0)\n", w->flops,
            w->bytes);
    if (r->platform->peak_bw > 0)
        snprintf(peak, sizeof(peak), "%.1f", 100.0 * w->bandwidth / r->platform->peak_bw);
    fprintf(f, "%-10s%12s%14s%12s%12s%12s%12s%8s  %s\n", "Function", "GFLOP/s", "MBytes/sec", "Min (sec)",
            "Max", "Average", "Median", "%Peak", "Verified");
    fprintf(f, "%-10s%12.3f%14.3f%12.5f%12.5f%12.5f%12.5f%8s  %s\n", "Dslash", w->gflops, w->bandwidth * 1e-6,
            w->stats.min, w->stats.max, w->stats.mean, w->stats.median, peak, w->verified ? "yes" : "NO");
}

static void csv(FILE *f, const struct run_report *r)
{
    const struct wilson_result *w = r->wilson;
    const struct wilson_params *p = &w->params;

    fprintf(f, "function,num_times,lattice,layout,sizeof,gflops,max_mbytes_per_sec,min_runtime,max_runtime,"
               "avg_runtime\n");
    fprintf(f, "Dslash,%u,%ux%ux%ux%u,%s,%zu,%.6f,%.6f,%.9g,%.9g,%.9g\n", p->numtimes, p->dims[0], p->dims[1],
            p->dims[2], p->dims[3], wilson_layout_name(w->variant.layout), pp_precision_bytes(p->prec),
            w->gflops, w->bandwidth * 1e-6, w->stats.min, w->stats.max, w->stats.mean);
}

static int json(FILE *f, const struct run_report *r, struct pp_error *err)
{
    const struct wilson_result *w = r->wilson;
    const struct wilson_params *p = &w->params;
    const struct report_kernel k = {
        .name = "dslash",
        .verified = w->verified,
        .error = w->detail,
        .bytes = w->bytes,
        .flops = w->flops,
        .bandwidth = w->bandwidth,
        .gflops = w->gflops,
        .stats = &w->stats,
        .times = w->times,
        .ntimes = p->numtimes,
        .max_rel_err = w->max_rel_err,
        .tolerance = w->tolerance,
    };

    return report_write_json(
        f, r, "wilson",
        json_pack("{s:[i,i,i,i], s:I, s:I, s:s, s:s, s:i, s:i, s:i, s:i, s:I, s:s, s:i, s:f}", "lattice",
                  p->dims[0], p->dims[1], p->dims[2], p->dims[3], "sites", (json_int_t)w->sites,
                  "output_sites", (json_int_t)w->out_sites, "output_parity", "odd", "precision",
                  pp_precision_name(p->prec), "element_bytes", (int)pp_precision_bytes(p->prec), "numtimes",
                  (int)p->numtimes, "iterations", (int)p->iterations, "warmup", 1, "seed",
                  (json_int_t)p->seed, "boundary", "periodic", "flops_per_site", WILSON_FLOPS_PER_SITE,
                  "bytes_per_site", wilson_bytes_per_site(p->prec)),
        json_pack("{s:s, s:i, s:i}", "layout", wilson_layout_name(w->variant.layout), "work_group_size",
                  (int)w->variant.work_group, "threads", (int)w->variant.threads),
        json_pack("{s:f, s:f}", "init", w->init_seconds, "read", w->read_seconds), w->verified,
        json_pack("[o]", report_kernel_json(&k, r->platform->peak_bw)), err);
}

static const struct runner_writers writers = {.table = table, .csv = csv, .json = json};

int runner_wilson(const struct pp_backend *b, struct run_report *r, const struct wilson_params *p, FILE *out,
                  enum runner_format fmt, struct pp_error *err)
{
    struct wilson_params rp = *p; /* resolved on the device: what runs and is reported */
    struct wilson_result res;
    struct pp_ctx *ctx = NULL;
    int rc;

    if (wilson_resolve(&rp, r->device, err))
        return RUN_USAGE;
    if (b->open(r->device, &ctx, err)) {
        pp_error_prefix(err, "%s on %s", r->model, r->platform->id);
        return RUN_FAILED;
    }
    provenance_collect(&r->provenance);
    if (wilson_run(b, ctx, &rp, &res, err)) {
        pp_error_prefix(err, "%s on %s", r->model, r->platform->id);
        rc = RUN_FAILED;
        goto out;
    }
    b->describe(ctx, &r->backend);
    r->wilson = &res;
    rc = runner_report(out, fmt, r, &writers, res.verified, res.detail, err);
out:
    wilson_result_release(&res);
    b->close(ctx);
    return rc;
}
