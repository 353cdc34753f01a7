/*
 * report: formats a finished run. Reads the result, owns nothing beyond the JSON tree it builds and frees.
 */
#include "report.h"

#include <jansson.h>
#include <string.h>

/* BabelStream's capitalised labels (its CSV and table use them). */
static const char *label(enum stream_kernel k)
{
    static const char *const names[STREAM_NKERNELS] = {"Copy", "Mul", "Add", "Triad", "Dot", "Nstream"};
    return (unsigned)k < STREAM_NKERNELS ? names[k] : "?";
}

void report_table(FILE *f, const struct run_report *r)
{
    const struct stream_result *res = r->result;
    const struct stream_params *p = &res->params;
    double array = (double)p->n * (double)pp_precision_bytes(p->prec);
    const char *version = info_get(&r->provenance, "ppbench.version");

    fprintf(f, "ppbench STREAM (BabelStream rules)\nVersion: %s\n", version ? version : "?");
    fprintf(f, "Platform: %s (%s)\nModel: %s", r->platform->id, r->platform->name, r->model);
    if (res->layout.work_group)
        fprintf(f, " (work-group %u, dot over %u groups)", res->layout.work_group, res->layout.dot_groups);
    else
        fprintf(f, " (%u threads)", res->layout.dot_groups);
    fprintf(f, "\nRunning kernels %u times (the first is warm-up, excluded)\n", p->numtimes);
    fprintf(f, "Precision: %s\n", p->prec == PP_FP32 ? "float" : "double");
    fprintf(f, "Array size: %.1f MB (=%.1f GB)\nTotal size: %.1f MB (=%.1f GB)\n", array * 1e-6, array * 1e-9,
            3 * array * 1e-6, 3 * array * 1e-9);
    if (r->platform->peak_bw > 0)
        fprintf(f, "Peak bandwidth: %.1f GB/s (%s)\n", r->platform->peak_bw * 1e-9, r->platform->peak_source);
    fprintf(f, "%-10s%14s%12s%12s%12s%12s%8s  %s\n", "Function", "MBytes/sec", "Min (sec)", "Max", "Average",
            "Median", "%Peak", "Verified");
    for (size_t i = 0; i < res->nkernels; i++) {
        const struct stream_kernel_result *k = &res->kernels[i];
        char peak[16] = "-";
        if (r->platform->peak_bw > 0)
            snprintf(peak, sizeof(peak), "%.1f", 100.0 * k->bandwidth / r->platform->peak_bw);
        fprintf(f, "%-10s%14.3f%12.5f%12.5f%12.5f%12.5f%8s  %s\n", label(k->kernel), k->bandwidth * 1e-6,
                k->stats.min, k->stats.max, k->stats.mean, k->stats.median, peak, k->verified ? "yes" : "NO");
    }
}

void report_csv(FILE *f, const struct run_report *r)
{
    const struct stream_result *res = r->result;
    const struct stream_params *p = &res->params;

    fprintf(f,
            "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime\n");
    for (size_t i = 0; i < res->nkernels; i++) {
        const struct stream_kernel_result *k = &res->kernels[i];
        fprintf(f, "%s,%u,%zu,%zu,%.6f,%.9g,%.9g,%.9g\n", label(k->kernel), p->numtimes, p->n,
                pp_precision_bytes(p->prec), k->bandwidth * 1e-6, k->stats.min, k->stats.max, k->stats.mean);
    }
}

void report_failures(FILE *f, const struct run_report *r)
{
    for (size_t i = 0; i < r->result->nkernels; i++)
        if (!r->result->kernels[i].verified)
            fprintf(f, "verification failed: %s\n", r->result->kernels[i].detail);
}

json_t *report_info_json(const struct pp_info_list *l, const char *prefix)
{
    json_t *o = json_object();
    size_t plen = strlen(prefix);

    for (size_t i = 0; i < l->len; i++)
        if (strncmp(l->items[i].key, prefix, plen) == 0)
            json_object_set_new(o, l->items[i].key + plen, json_string(l->items[i].value));
    return o;
}

json_t *report_platform_json(const struct pp_platform *p)
{
    json_t *devs = json_array();
    char models[128];

    platform_models(p, models, sizeof(models));
    for (size_t d = 0; d < p->ndevices; d++)
        json_array_append_new(devs, json_pack("{s:s, s:i, s:s}", "model", p->devices[d].backend->name,
                                              "index", p->devices[d].index, "name", p->devices[d].name));
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:i, s:o, s:s, s:s, s:o}", "id", p->id, "kind",
                     platform_kind_name(p->kind), "name", p->name, "vendor", p->vendor, "uuid", p->uuid,
                     "pci_bus_id", p->pci_bus_id, "memory_bytes", (json_int_t)p->mem_bytes, "compute_units",
                     (int)p->compute_units, "peak_bandwidth_bytes_per_s",
                     p->peak_bw > 0 ? json_real(p->peak_bw) : json_null(), "peak_source", p->peak_source,
                     "models", models, "devices", devs);
}

json_t *report_kernel_json(const struct report_kernel *k, double peak_bw)
{
    json_t *times = json_array();

    for (size_t i = 0; i < k->ntimes; i++)
        json_array_append_new(times, json_real(k->times[i]));
    return json_pack(
        "{s:s, s:b, s:s?, s:f, s:f, s:f, s:f, s:o, s:{s:i, s:f, s:f, s:f, s:f, s:f}, s:o, s:f, s:f}",
        "kernel", k->name, "verified", k->verified, "error", k->verified ? NULL : k->error, "bytes", k->bytes,
        "flops", k->flops, "bandwidth_bytes_per_s", k->bandwidth, "gflops", k->gflops, "efficiency_arch",
        peak_bw > 0 ? json_real(k->bandwidth / peak_bw) : json_null(), "stats_s", "count",
        (int)k->stats->count, "min", k->stats->min, "max", k->stats->max, "mean", k->stats->mean, "median",
        k->stats->median, "stddev", k->stats->stddev, "times_s", times, "max_rel_err", k->max_rel_err,
        "tolerance", k->tolerance);
}

int report_write_json(FILE *f, const struct run_report *r, const char *suite, json_t *problem,
                      json_t *variant, json_t *phases, bool verified, json_t *kernels, struct pp_error *err)
{
    json_t *doc;
    int rc;

    doc = json_pack("{s:i, s:s, s:s, s:o, s:{s:s, s:i, s:s, s:s}, s:o, s:o, s:o, s:b, s:o, s:o}", "schema", 1,
                    "suite", suite, "model", r->model, "platform", report_platform_json(r->platform),
                    "device", "name", r->device->name, "index", r->device->index, "uuid", r->device->uuid,
                    "pci_bus_id", r->device->pci_bus_id, "problem", problem, "variant", variant, "phases_s",
                    phases, "verified", verified, "kernels", kernels, "provenance",
                    report_info_json(&r->provenance, ""));
    if (!doc)
        return pp_error_set(err, "cannot build the json document");
    json_object_set_new(json_object_get(doc, "provenance"), "backend", report_info_json(&r->backend, ""));
    rc = json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    fputc('\n', f);
    json_decref(doc);
    return rc ? pp_error_set(err, "cannot write the json document") : 0;
}

int report_json(FILE *f, const struct run_report *r, struct pp_error *err)
{
    const struct stream_result *res = r->result;
    const struct stream_params *p = &res->params;
    json_t *kernels = json_array();

    for (size_t i = 0; i < res->nkernels; i++) {
        const struct stream_kernel_result *k = &res->kernels[i];
        const struct report_kernel rk = {
            .name = stream_kernel_name(k->kernel),
            .verified = k->verified,
            .error = k->detail,
            .bytes = k->bytes,
            .flops = k->flops,
            .bandwidth = k->bandwidth,
            .gflops = k->gflops,
            .stats = &k->stats,
            .times = k->times,
            .ntimes = p->numtimes,
            .max_rel_err = k->max_rel_err,
            .tolerance = k->tolerance,
        };
        json_array_append_new(kernels, report_kernel_json(&rk, r->platform->peak_bw));
    }
    return report_write_json(
        f, r, "stream",
        json_pack("{s:I, s:s, s:i, s:i, s:i, s:f, s:f, s:f}", "array_size", (json_int_t)p->n, "precision",
                  pp_precision_name(p->prec), "element_bytes", (int)pp_precision_bytes(p->prec), "numtimes",
                  (int)p->numtimes, "warmup", 1, "scalar", STREAM_SCALAR, "start_a", STREAM_START_A,
                  "start_b", STREAM_START_B),
        json_pack("{s:i, s:i, s:I}", "work_group_size", (int)res->layout.work_group, "dot_groups",
                  (int)res->layout.dot_groups, "dot_chain", (json_int_t)res->layout.dot_chain),
        json_pack("{s:f, s:f}", "init", res->init_seconds, "read", res->read_seconds), res->verified, kernels,
        err);
}
