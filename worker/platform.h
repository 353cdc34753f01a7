/*
 * platform: physical devices, each seen through every model that can drive it. A GPU seen through CUDA and
 * through OpenCL is one platform (matched by UUID, else PCI bus id); the OpenMP host and an OpenCL CPU device
 * are one CPU platform. Ids are stable on a host: cpu0, then gpu0, gpu1, ... in PCI bus order.
 */
#ifndef PP_PLATFORM_H
#define PP_PLATFORM_H

#include <stddef.h>

#include "kernels/backend.h"

#define PP_MAX_MODELS 8
#define PP_MAX_NOTES  8

struct pp_platform {
    char id[16];
    enum pp_device_kind kind;
    char name[128];
    char vendor[64];
    char uuid[48];
    char pci_bus_id[32];
    uint64_t mem_bytes;
    unsigned compute_units;
    double peak_bw;                          /* theoretical peak memory bandwidth, bytes/s; 0 when unknown */
    char peak_source[160];                   /* how the peak was found, or why it is unknown */
    uint64_t llc_bytes;                      /* last-level cache; 0 when unknown (every device gets it) */
    char llc_source[96];                     /* where it comes from: "sysfs: L3", "cuda", "operator: ..." */
    struct pp_device devices[PP_MAX_MODELS]; /* one per model that sees it */
    size_t ndevices;
};

struct pp_platform_list {
    struct pp_platform items[PP_MAX_DEVICES];
    size_t len;
    char notes[PP_MAX_NOTES][256]; /* a model that offered no device, and why ("cuda: no device: ...") */
    size_t nnotes;
};

/* Ask every built model for its devices, group them, find peaks. Fails only if no model offers anything. */
int platform_discover(struct pp_platform_list *out, struct pp_error *err) PP_WUR;

/* The same, asking only one model (NULL: all). Ids of GPUs then count only that model's devices, so look
 * platforms up by UUID, PCI bus id or cpu0 after it (platform_key_is_global). Starting a runtime costs tens
 * of ms (PoCL), which a job's process need not pay for the models it does not use. */
int platform_discover_model(struct pp_platform_list *out, const char *model, struct pp_error *err) PP_WUR;

/* Whether key names the same platform whatever models were asked: a UUID, a PCI bus id, or a CPU id. */
int platform_key_is_global(const char *key);

/* A platform by id ("gpu0"), UUID or PCI bus id; NULL when none matches. */
const struct pp_platform *platform_find(const struct pp_platform_list *list, const char *key);

/* The platform's device for a model, or NULL when that model cannot drive it. */
const struct pp_device *platform_device(const struct pp_platform *p, const char *model);

/* "openmp, opencl" */
void platform_models(const struct pp_platform *p, char *out, size_t size);

const char *platform_kind_name(enum pp_device_kind kind);

#endif
