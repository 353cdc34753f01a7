/*
 * report: formats a finished run. Reads the result, owns nothing beyond the JSON tree it builds and frees.
 * The report's "variant" holds only what names the code (the suite's variant parameters:
 * suite_variant_launch); the rest of the driver's variant document, the launch, goes to provenance.launch.
 */
#include "report.h"

#include <jansson.h>
#include <string.h>

#include "kernels/suite.h"

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
    return json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:i, s:o, s:s, s:o, s:s, s:s, s:o}", "id", p->id, "kind",
        platform_kind_name(p->kind), "name", p->name, "vendor", p->vendor, "uuid", p->uuid, "pci_bus_id",
        p->pci_bus_id, "memory_bytes", (json_int_t)p->mem_bytes, "compute_units", (int)p->compute_units,
        "llc_bytes", p->llc_bytes ? json_integer((json_int_t)p->llc_bytes) : json_null(), "llc_source",
        p->llc_source, "peak_bandwidth_bytes_per_s", p->peak_bw > 0 ? json_real(p->peak_bw) : json_null(),
        "peak_source", p->peak_source, "models", models, "devices", devs);
}

static json_t *kernel_json(const struct suite_kernel *k, double peak_bw)
{
    json_t *times = json_array();

    for (size_t i = 0; i < k->ntimes; i++)
        json_array_append_new(times, json_real(k->times[i]));
    return json_pack(
        "{s:s, s:b, s:s?, s:f, s:f, s:f, s:f, s:f, s:o, s:{s:i, s:f, s:f, s:f, s:f, s:f}, s:o, s:f, s:f}",
        "kernel", k->name, "verified", k->verified, "error", k->verified ? NULL : k->error, "bytes", k->bytes,
        "bytes_compulsory", k->bytes_compulsory, "flops", k->flops, "bandwidth_bytes_per_s", k->bandwidth,
        "gflops", k->gflops, "efficiency_arch",
        peak_bw > 0 && k->bytes > 0 ? json_real(k->bandwidth * k->bytes_compulsory / k->bytes / peak_bw)
                                    : json_null(),
        "stats_s", "count", (int)k->stats.count, "min", k->stats.min, "max", k->stats.max, "mean",
        k->stats.mean, "median", k->stats.median, "stddev", k->stats.stddev, "times_s", times, "max_rel_err",
        k->max_rel_err, "tolerance", k->tolerance);
}

int report_json(FILE *f, const struct run_report *r, struct suite_output *o, struct pp_error *err)
{
    json_t *doc, *kernels = json_array();
    int rc;

    for (size_t i = 0; i < o->nkernels; i++)
        json_array_append_new(kernels, kernel_json(&o->kernels[i], r->platform->peak_bw));
    doc = json_pack("{s:i, s:s, s:s, s:o, s:{s:s, s:i, s:s, s:s}, s:o, s:o, s:o, s:b, s:o, s:o}", "schema", 1,
                    "suite", r->suite, "model", r->model, "platform", report_platform_json(r->platform),
                    "device", "name", r->device->name, "index", r->device->index, "uuid", r->device->uuid,
                    "pci_bus_id", r->device->pci_bus_id, "problem", o->problem ? o->problem : json_object(),
                    "variant", o->variant ? o->variant : json_object(), "phases_s",
                    o->phases ? o->phases : json_object(), "verified", o->verified, "kernels", kernels,
                    "provenance", report_info_json(&r->provenance, ""));
    o->problem = o->variant = o->phases = NULL; /* stolen, also when the pack failed */
    if (!doc)
        return pp_error_set(err, "cannot build the json document");
    if (o->details) {
        json_object_set_new(doc, "details", o->details);
        o->details = NULL;
    }
    json_object_set_new(doc, "warnings", o->warnings ? o->warnings : json_array());
    o->warnings = NULL;
    json_object_set_new(json_object_get(doc, "provenance"), "backend", report_info_json(&r->backend, ""));
    /* the variant names the code; how it was launched (sizes of work-groups, threads, a dot's chain, from the
     * size and the device) is provenance (kernels/suite.h) */
    if (suite_find(r->suite)) {
        json_t *launch = suite_variant_launch(suite_find(r->suite), json_object_get(doc, "variant"));
        if (launch)
            json_object_set_new(json_object_get(doc, "provenance"), "launch", launch);
    }
    rc = json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    fputc('\n', f);
    json_decref(doc);
    return rc ? pp_error_set(err, "cannot write the json document") : 0;
}
