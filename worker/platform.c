/*
 * platform: groups the devices every model reports into physical platforms and attaches each platform's
 * theoretical peak bandwidth with its source. Runs on the worker's main thread.
 *
 * Peaks: an operator value (PPBENCH_PEAK_GBS_<ID>, e.g. PPBENCH_PEAK_GBS_CPU0=204.8) wins; otherwise NVIDIA
 * GPUs get NVML's max memory clock x bus width x 2, and the CPU its memory channels x speed x width from
 * SMBIOS (worker/smbios.c); otherwise the peak is unknown (architectural efficiency is then not computed). A
 * peak from any source beyond PP_PEAK_MAX_BYTES_PER_S (lib/peak.h) is unknown too, with the reason.
 *
 * Last-level caches: an operator value (PPBENCH_LLC_BYTES_<ID>, bytes; 0 for unknown) wins; otherwise a CPU's
 * comes from sysfs (kernels/cpucache.h) whatever model asked, a GPU's from its driver (CUDA's L2 first, then
 * another model's). The platform's value is copied into each of its devices, so a suite resolving its
 * defaults on any model of a device sees the same cache.
 */
#include "platform.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernels/cpucache.h"
#include "kernels/registry.h"
#include "lib/peak.h"
#include "worker/nvml.h"
#include "worker/smbios.h"

const char *platform_kind_name(enum pp_device_kind kind)
{
    return kind == PP_DEVICE_CPU ? "cpu" : kind == PP_DEVICE_GPU ? "gpu" : "accel";
}

static int same_physical(const struct pp_platform *p, const struct pp_device *d)
{
    if (p->kind != d->kind)
        return 0;
    if (d->kind == PP_DEVICE_CPU)
        return 1; /* one host CPU: all sockets, every CPU runtime */
    if (p->uuid[0] && d->uuid[0])
        return strcasecmp(p->uuid, d->uuid) == 0;
    if (p->pci_bus_id[0] && d->pci_bus_id[0])
        return strcasecmp(p->pci_bus_id, d->pci_bus_id) == 0;
    return 0;
}

static void add_device(struct pp_platform_list *out, const struct pp_device *d)
{
    struct pp_platform *p = NULL;

    for (size_t i = 0; i < out->len && !p; i++)
        if (same_physical(&out->items[i], d))
            p = &out->items[i];
    if (!p) {
        if (out->len >= PP_MAX_DEVICES)
            return;
        p = &out->items[out->len++];
        memset(p, 0, sizeof(*p));
        p->kind = d->kind;
        snprintf(p->name, sizeof(p->name), "%s", d->name);
        snprintf(p->vendor, sizeof(p->vendor), "%s", d->vendor);
        p->mem_bytes = d->mem_bytes;
        p->compute_units = d->compute_units;
    } else if (strcmp(d->backend->name, "openmp") == 0 || strcmp(d->backend->name, "cuda") == 0) {
        /* The host's own view names the CPU best; CUDA names its GPUs as nvidia-smi does. */
        snprintf(p->name, sizeof(p->name), "%s", d->name);
        p->mem_bytes = d->mem_bytes;
        p->compute_units = d->compute_units;
    }
    if (!p->uuid[0])
        snprintf(p->uuid, sizeof(p->uuid), "%s", d->uuid);
    if (!p->pci_bus_id[0])
        snprintf(p->pci_bus_id, sizeof(p->pci_bus_id), "%s", d->pci_bus_id);
    if (d->llc_bytes && (!p->llc_bytes || strcmp(d->backend->name, "cuda") == 0)) {
        p->llc_bytes = d->llc_bytes;
        snprintf(p->llc_source, sizeof(p->llc_source), "%s", d->backend->name);
    }
    if (p->ndevices < PP_MAX_MODELS)
        p->devices[p->ndevices++] = *d;
}

static void find_llc(struct pp_platform *p)
{
    char var[64];
    const char *v;
    int level;

    snprintf(var, sizeof(var), "PPBENCH_LLC_BYTES_%s", p->id);
    for (char *c = var; *c; c++)
        *c = (char)toupper((unsigned char)*c);
    if ((v = getenv(var)) && *v) {
        char *end;
        unsigned long long bytes = strtoull(v, &end, 10);
        if (*end == '\0' && *v != '-') {
            p->llc_bytes = bytes;
            snprintf(p->llc_source, sizeof(p->llc_source), "operator: %s=%s", var, v);
        } else {
            p->llc_bytes = 0;
            snprintf(p->llc_source, sizeof(p->llc_source), "unknown: %s=\"%.24s\" is not a byte count", var,
                     v);
        }
    } else if (p->kind == PP_DEVICE_CPU) {
        p->llc_bytes = cpucache_llc_bytes(NULL, &level);
        if (p->llc_bytes)
            snprintf(p->llc_source, sizeof(p->llc_source), "sysfs: L%d", level);
    }
    if (!p->llc_bytes && !p->llc_source[0])
        snprintf(p->llc_source, sizeof(p->llc_source), "unknown: set %s (bytes)", var);
    for (size_t i = 0; i < p->ndevices; i++)
        p->devices[i].llc_bytes = p->llc_bytes;
}

static int cmp_platform(const void *pa, const void *pb)
{
    const struct pp_platform *a = pa, *b = pb;
    int c;

    if (a->kind != b->kind)
        return (int)a->kind - (int)b->kind;
    if (a->pci_bus_id[0] != b->pci_bus_id[0])
        return a->pci_bus_id[0] ? -1 : 1; /* known bus ids first */
    if ((c = strcmp(a->pci_bus_id, b->pci_bus_id)) != 0)
        return c;
    if ((c = strcmp(a->uuid, b->uuid)) != 0)
        return c;
    return strcmp(a->name, b->name);
}

static void find_peak_source(struct pp_platform *p)
{
    char var[64];
    const char *v;
    struct pp_error err;

    snprintf(var, sizeof(var), "PPBENCH_PEAK_GBS_%s", p->id);
    for (char *c = var; *c; c++)
        *c = (char)toupper((unsigned char)*c);
    if ((v = getenv(var)) && *v) {
        char *end;
        double gbs = strtod(v, &end);
        if (*end == '\0' && pp_peak_ok(gbs * 1e9)) {
            p->peak_bw = gbs * 1e9;
            snprintf(p->peak_source, sizeof(p->peak_source), "operator: %s=%s", var, v);
            return;
        }
        snprintf(p->peak_source, sizeof(p->peak_source),
                 "unknown: %s=\"%s\" is not a number of GB/s above 0 and at most %.0f", var, v,
                 PP_PEAK_MAX_GBS);
        return;
    }
    if (p->kind == PP_DEVICE_GPU && (p->uuid[0] || p->pci_bus_id[0])) {
        if (nvml_peak_bandwidth(p->uuid, p->pci_bus_id, &p->peak_bw, p->peak_source, sizeof(p->peak_source),
                                &err) == 0)
            return;
        snprintf(p->peak_source, sizeof(p->peak_source), "unknown: %s", err.msg);
        return;
    }
    if (p->kind == PP_DEVICE_CPU) {
        if (smbios_peak(NULL, &p->peak_bw, p->peak_source, sizeof(p->peak_source), &err) == 0)
            return;
        snprintf(p->peak_source, sizeof(p->peak_source),
                 "unknown: SMBIOS not readable (%.90s); set %s (GB/s)", err.msg, var);
        return;
    }
    snprintf(p->peak_source, sizeof(p->peak_source), "unknown: set %s (GB/s)", var);
}

/* The peak and its source; one beyond the bound is unknown, whatever gave it. */
static void find_peak(struct pp_platform *p)
{
    char source[sizeof(p->peak_source)];

    find_peak_source(p);
    if (p->peak_bw != 0 && !pp_peak_ok(p->peak_bw)) {
        snprintf(source, sizeof(source), "%s", p->peak_source);
        snprintf(p->peak_source, sizeof(p->peak_source), "unknown: %.3g B/s is beyond %g (%s)", p->peak_bw,
                 PP_PEAK_MAX_BYTES_PER_S, source);
        p->peak_bw = 0;
    }
}

int platform_discover(struct pp_platform_list *out, struct pp_error *err)
{
    return platform_discover_model(out, NULL, err);
}

int platform_key_is_global(const char *key)
{
    return !strncasecmp(key, "cpu", 3) || !strncasecmp(key, "GPU-", 4) || strchr(key, ':') != NULL;
}

int platform_discover_model(struct pp_platform_list *out, const char *model, struct pp_error *err)
{
    unsigned ngpu = 0, nacc = 0;

    memset(out, 0, sizeof(*out));
    for (size_t m = 0; m < registry_count(); m++) {
        const struct pp_backend *b = registry_get(m);
        struct pp_device_list devs;
        struct pp_error why;

        if (model && strcmp(model, b->name) != 0)
            continue;
        memset(&devs, 0, sizeof(devs));
        if (b->discover(&devs, &why)) {
            if (out->nnotes < PP_MAX_NOTES)
                snprintf(out->notes[out->nnotes++], sizeof(out->notes[0]), "%s: %s", b->name, why.msg);
            continue;
        }
        for (size_t i = 0; i < devs.len; i++) {
            devs.items[i].backend = b;
            add_device(out, &devs.items[i]);
        }
    }
    if (out->len == 0)
        return pp_error_set(err, "no platform found (%s)", out->nnotes ? out->notes[0] : "no model built");
    qsort(out->items, out->len, sizeof(out->items[0]), cmp_platform);
    for (size_t i = 0, ncpu = 0; i < out->len; i++) {
        struct pp_platform *p = &out->items[i];
        if (p->kind == PP_DEVICE_CPU)
            snprintf(p->id, sizeof(p->id), "cpu%zu", ncpu++);
        else if (p->kind == PP_DEVICE_GPU)
            snprintf(p->id, sizeof(p->id), "gpu%u", ngpu++);
        else
            snprintf(p->id, sizeof(p->id), "accel%u", nacc++);
        find_peak(p);
        find_llc(p);
    }
    return 0;
}

const struct pp_platform *platform_find(const struct pp_platform_list *list, const char *key)
{
    for (size_t i = 0; i < list->len; i++) {
        const struct pp_platform *p = &list->items[i];
        if (strcasecmp(p->id, key) == 0 || (p->uuid[0] && strcasecmp(p->uuid, key) == 0))
            return p;
        /* PCI bus ids: accept nvidia-smi's 8-digit domain ("00000000:00:06.0") as well as 4 digits. */
        if (p->pci_bus_id[0]) {
            size_t kl = strlen(key), pl = strlen(p->pci_bus_id);
            if (kl >= pl && strcasecmp(key + kl - pl, p->pci_bus_id) == 0 && strspn(key, "0") >= kl - pl)
                return p;
        }
    }
    return NULL;
}

const struct pp_device *platform_device(const struct pp_platform *p, const char *model)
{
    for (size_t i = 0; i < p->ndevices; i++)
        if (strcmp(p->devices[i].backend->name, model) == 0)
            return &p->devices[i];
    return NULL;
}

void platform_models(const struct pp_platform *p, char *out, size_t size)
{
    size_t used = 0;

    out[0] = '\0';
    for (size_t i = 0; i < p->ndevices && used < size; i++) {
        const char *name = p->devices[i].backend->name;
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= strcmp(p->devices[j].backend->name, name) == 0;
        if (!seen)
            used += (size_t)snprintf(out + used, size - used, "%s%s", used ? ", " : "", name);
    }
}
