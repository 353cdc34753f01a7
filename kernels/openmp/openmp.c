/*
 * openmp: discovery, context and provenance of the OpenMP model. The host CPU is one device; OpenMP reads
 * OMP_NUM_THREADS, OMP_PROC_BIND and OMP_PLACES itself, and describe() records what it made of them.
 * Runs on the caller's thread. The suites are kernels/<suite>/openmp.c, each registered with
 * PP_SUITE_IMPL(openmp, <suite>) and keeping its state in the context's suite slots, which close and describe
 * walk: this file names no suite.
 */
#include "openmp.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buildinfo.h"
#include "kernels/cpucache.h"

/* "key : value" lines of /proc files; copies the first match's value. */
static void proc_field(const char *path, const char *key, char *out, size_t size)
{
    FILE *f = fopen(path, "r");
    char line[512];
    size_t klen = strlen(key);

    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, key, klen) != 0 || !colon)
            continue;
        colon++;
        colon += strspn(colon, " \t");
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(out, size, "%s", colon);
        break;
    }
    fclose(f);
}

long long openmp_anon_huge_bytes(void)
{
    char kb[64] = "";

    proc_field("/proc/self/smaps_rollup", "AnonHugePages", kb, sizeof(kb));
    return kb[0] ? strtoll(kb, NULL, 10) * 1024 : -1;
}

static int openmp_discover(struct pp_device_list *out, struct pp_error *err)
{
    struct pp_device *d;
    char kb[64] = "";
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    if (out->len >= PP_MAX_DEVICES)
        return pp_error_set(err, "too many devices");
    d = &out->items[out->len];
    memset(d, 0, sizeof(*d));
    d->backend = &pp_backend_openmp;
    d->kind = PP_DEVICE_CPU;
    snprintf(d->name, sizeof(d->name), "host CPU");
    proc_field("/proc/cpuinfo", "model name", d->name, sizeof(d->name));
    proc_field("/proc/cpuinfo", "vendor_id", d->vendor, sizeof(d->vendor));
    proc_field("/proc/meminfo", "MemTotal", kb, sizeof(kb));
    d->mem_bytes = strtoull(kb, NULL, 10) * 1024ull;
    if (d->mem_bytes == 0)
        d->mem_bytes = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    d->compute_units = cpus > 0 ? (unsigned)cpus : 1;
    d->llc_bytes = cpucache_llc_bytes(NULL, NULL);
    d->fp64 = true;
    out->len++;
    return 0;
}

static int openmp_open(const struct pp_device *dev, struct pp_ctx **ctx, struct pp_error *err)
{
    *ctx = calloc(1, sizeof(**ctx));
    if (!*ctx)
        return pp_error_set(err, "out of memory");
    (*ctx)->threads = omp_get_max_threads();
    (*ctx)->llc_bytes = dev ? dev->llc_bytes : 0; /* unit tests open no discovered device */
    return 0;
}

static const char *bind_name(omp_proc_bind_t b)
{
    switch (b) {
    case omp_proc_bind_false:
        return "false";
    case omp_proc_bind_true:
        return "true";
    case omp_proc_bind_master:
        return "master";
    case omp_proc_bind_close:
        return "close";
    case omp_proc_bind_spread:
        return "spread";
    default:
        return "?";
    }
}

static void openmp_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    info_add(out, "openmp.version", "%d", _OPENMP);
    info_add(out, "openmp.threads", "%d", ctx->threads);
    info_add(out, "openmp.proc_bind", "%s", bind_name(omp_get_proc_bind()));
    info_add(out, "openmp.num_places", "%d", omp_get_num_places());
    info_add(out, "openmp.kernel_cflags", "%s", PPBENCH_KERNEL_CFLAGS);
    pp_suite_slots_describe(&ctx->suites, ctx, out);
}

static void openmp_close(struct pp_ctx *ctx)
{
    if (!ctx)
        return;
    pp_suite_slots_release(&ctx->suites, ctx);
    free(ctx);
}

PP_SUITES_DECLARE(openmp);

const struct pp_backend pp_backend_openmp = {
    .name = "openmp",
    .discover = openmp_discover,
    .open = openmp_open,
    .describe = openmp_describe,
    .close = openmp_close,
    PP_SUITES_OF(openmp),
};
