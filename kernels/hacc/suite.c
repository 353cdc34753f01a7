/*
 * hacc/suite: the HACC suite's plug-in (kernels/suite_driver.h): its parameters into struct hacc_params
 * (resolved on the device), the run, and its report pieces (the problem with its interaction count as the
 * size, the variant and launch, the per-kernel interaction rates and checks as details, a table and CSV).
 * The driver state is this file's from prepare to release; main thread.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/hacc/hacc.h"
#include "kernels/hacc/model.h"
#include "kernels/suite_driver.h"

struct state {
    struct hacc_params params; /* resolved on the device: what runs and is reported */
    struct hacc_result res;    /* zero until run: releasing it is safe */
};

static int prepare(const struct suite_run *run, void **out, struct pp_error *err)
{
    const struct suite_values *v = run->values;
    struct state *s = calloc(1, sizeof(*s));
    struct hacc_params *p;

    if (!(*out = s))
        return pp_error_set(err, "out of memory");
    p = &s->params;
    hacc_params_default(p);
    p->leaf_size = (unsigned)suite_int(v, "leaf_size");
    p->leaf_pairs = suite_is_set(v, "leaf_pairs") ? (unsigned)suite_int(v, "leaf_pairs") : 0;
    p->numtimes = (unsigned)suite_int(v, "numtimes");
    p->prec = strcmp(suite_str(v, "precision"), "fp64") == 0 ? PP_FP64 : PP_FP32;
    p->kernels = 0;
    for (unsigned k = 0; k < PP_HACC_NKERNELS; k++)
        if (suite_kernel_on(v, hacc_kernel_name(k)))
            p->kernels |= 1u << k;
    if (suite_is_set(v, "variant") && (p->variant = hacc_variant_parse(suite_str(v, "variant"))) < 0)
        return pp_error_set(err, "unknown variant \"%s\"", suite_str(v, "variant"));
    p->progress = run->progress;
    p->progress_arg = run->progress_arg;
    return hacc_resolve(p, run->device, err);
}

static int run(void *state, const struct pp_backend *b, struct pp_ctx *ctx, struct suite_output *out,
               struct pp_error *err)
{
    struct state *st = state;
    const struct hacc_params *p = &st->params;
    const struct hacc_result *res = &st->res;
    json_t *kernels = json_array();

    if (hacc_run(b, ctx, p, &st->res, err)) {
        json_decref(kernels);
        return -1;
    }
    for (size_t i = 0; i < res->nkernels; i++) {
        const struct hacc_kernel_figures *k = &res->figures[i];
        json_array_append_new(
            kernels,
            json_pack("{s:s, s:f, s:f, s:f, s:i, s:f, s:f, s:f, s:f}", "kernel", hacc_kernel_name(k->kernel),
                      "interactions", k->interactions, "inside_fraction", k->inside, "interactions_per_s",
                      k->rate, "flops_per_interaction",
                      k->kernel == PP_HACC_GRAVITY ? HACC_FLOPS_GRAVITY : HACC_FLOPS_SPH,
                      "bytes_per_leaf_pair", hacc_bytes_per_pair(k->kernel, p->leaf_size, p->prec),
                      "momentum_rel_err", k->momentum, "energy_rel_err", k->energy, "translation_rel_err",
                      k->translation));
    }
    out->kernels = res->kernels;
    out->nkernels = res->nkernels;
    out->verified = res->verified;
    out->problem =
        json_pack("{s:f, s:s, s:i, s:i, s:i, s:I, s:I, s:I, s:I, s:i, s:i, s:f, s:s, s:I}", "size",
                  hacc_interactions(p->leaf_size, p->leaf_pairs), "precision", pp_precision_name(p->prec),
                  "leaf_size", (int)p->leaf_size, "leaf_pairs", (int)p->leaf_pairs, "grid", (int)res->grid,
                  "leaves", (json_int_t)res->nleaves, "particles", (json_int_t)res->nparticles,
                  "leaves_touched", (json_int_t)res->touched, "chain", (json_int_t)res->chain,
                  "element_bytes", (int)pp_precision_bytes(p->prec), "numtimes", (int)p->numtimes, "cell",
                  2.0, "box", "leaves of random particles in cubic cells, pairs of neighbouring cells",
                  "working_set_bytes", (json_int_t)hacc_working_set(p->leaf_size, p->leaf_pairs, p->prec));
    /* size is a whole number of interactions: store it as an integer */
    json_object_set_new(out->problem, "size",
                        json_integer((json_int_t)hacc_interactions(p->leaf_size, p->leaf_pairs)));
    out->variant =
        json_pack("{s:s, s:i, s:i, s:i}", "variant", hacc_variant_name((enum pp_hacc_variant)p->variant),
                  "work_group_size", (int)res->launch.work_group, "sub_group_size",
                  (int)res->launch.sub_group, "threads", (int)res->launch.threads);
    out->phases = json_pack("{s:f, s:f, s:f, s:f}", "build", res->build_seconds, "init", res->init_seconds,
                            "read", res->read_seconds, "reference", res->reference_seconds);
    out->details = json_pack("{s:o}", "kernels", kernels);
    return 0;
}

static void table(FILE *f, const struct suite_header *h, const void *state)
{
    const struct hacc_result *res = &((const struct state *)state)->res;
    const struct hacc_params *p = &res->params;

    fprintf(f, "ppbench HACC short-range pair kernels (paper 003: half-warp leaf pairs)\nVersion: %s\n",
            h->version);
    fprintf(f, "Platform: %s (%s)\nModel: %s (variant %s", h->platform_id, h->platform_name, h->model,
            hacc_variant_name((enum pp_hacc_variant)p->variant));
    if (res->launch.work_group)
        fprintf(f, ", work-group %u, sub-group %u", res->launch.work_group, res->launch.sub_group);
    if (res->launch.threads)
        fprintf(f, ", %u threads", res->launch.threads);
    fprintf(f, ")\nProblem: %u leaf pairs of %u particles (%zu leaves on a %u^3 grid), %.4g interactions\n",
            p->leaf_pairs, p->leaf_size, res->nleaves, res->grid,
            hacc_interactions(p->leaf_size, p->leaf_pairs));
    fprintf(f, "Running kernels %u times (the first is warm-up, excluded)\nPrecision: %s\n", p->numtimes,
            p->prec == PP_FP32 ? "float" : "double");
    fprintf(f, "%-10s%14s%12s%14s%12s%12s%12s%12s  %s\n", "Function", "GInter/s", "GFLOP/s", "MBytes/sec",
            "Min (sec)", "Max", "Average", "Median", "Verified");
    for (size_t i = 0; i < res->nkernels; i++) {
        const struct suite_kernel *k = &res->kernels[i];
        char name[16];
        snprintf(name, sizeof(name), "%s", k->name);
        name[0] = (char)(name[0] - 'a' + 'A');
        fprintf(f, "%-10s%14.3f%12.3f%14.3f%12.5g%12.5g%12.5g%12.5g  %s\n", name, res->figures[i].rate * 1e-9,
                k->gflops, k->bandwidth * 1e-6, k->stats.min, k->stats.max, k->stats.mean, k->stats.median,
                k->verified ? "yes" : "NO");
    }
}

static void csv(FILE *f, const void *state)
{
    const struct hacc_result *res = &((const struct state *)state)->res;
    const struct hacc_params *p = &res->params;

    fprintf(f, "function,num_times,leaf_size,leaf_pairs,sizeof,variant,interactions,interactions_per_sec,"
               "gflops,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime\n");
    for (size_t i = 0; i < res->nkernels; i++) {
        const struct suite_kernel *k = &res->kernels[i];
        const struct hacc_kernel_figures *fig = &res->figures[i];
        fprintf(f, "%s,%u,%u,%u,%zu,%s,%.0f,%.6g,%.6f,%.6f,%.9g,%.9g,%.9g\n", k->name, p->numtimes,
                p->leaf_size, p->leaf_pairs, pp_precision_bytes(p->prec),
                hacc_variant_name((enum pp_hacc_variant)p->variant), fig->interactions, fig->rate, k->gflops,
                k->bandwidth * 1e-6, k->stats.min, k->stats.max, k->stats.mean);
    }
}

static void release(void *state)
{
    struct state *s = state;

    if (s)
        hacc_result_release(&s->res);
    free(s);
}

const struct suite_driver hacc_driver = {
    .prepare = prepare, .run = run, .table = table, .csv = csv, .release = release};
