/*
 * runner: runs one suite on one platform through one model and writes its report; `run` and the job child
 * of `serve` both come through here, so a job runs exactly what the standalone command runs. What every suite
 * shares is here (the platform and model, the device's context, provenance, clocks, the report's frame, the
 * exit status); the suite's driver (kernels/suite_driver.h) does the rest. runner_run owns the discovered
 * platform list, the backend context and the driver's state for the length of one call, on the main thread
 * (the progress callback runs there too, between timed units).
 */
#include "runner.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "kernels/registry.h"
#include "kernels/suite_driver.h"
#include "lib/clock.h"
#include "worker/affinity.h"
#include "worker/cpubind.h"
#include "worker/external.h"
#include "worker/nvml.h"
#include "worker/platform.h"
#include "worker/provenance.h"
#include "worker/report.h"
#include "worker/run.h"

struct progress_state {
    int fd;
    double last; /* clock_now() of the last line written */
};

/* "progress 0.42\n" at most every 0.1 s, and always the last one. A full pipe drops the line (the write
 * end is non-blocking when serve made it): the benchmark never waits for its parent. */
static void progress_write(void *arg, unsigned done, unsigned total)
{
    struct progress_state *s = arg;
    double now = clock_now();
    char line[32];
    int len;

    if (done < total && now - s->last < 0.1)
        return;
    s->last = now;
    len = snprintf(line, sizeof(line), "progress %.4f\n", total ? (double)done / total : 1.0);
    if (s->fd >= 0 && write(s->fd, line, (size_t)len) < 0 && errno != EAGAIN)
        s->fd = -1; /* the reader is gone: progress is best effort */
}

static void list_ids(const struct pp_platform_list *pl, char *out, size_t size)
{
    size_t used = 0;

    out[0] = '\0';
    for (size_t i = 0; i < pl->len; i++)
        used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%s%s", i ? ", " : "",
                                 pl->items[i].id);
}

/* Record the GPU's clocks (before or after the run) where NVML can tell; before, also the kernel driver's
 * version (the backends record the runtime's and the CUDA version the driver supports). */
static void add_clocks(struct run_report *r, const char *when)
{
    struct nvml_state s;
    struct pp_error err;
    char key[48], reasons[256], driver[96];

    if (r->platform->kind != PP_DEVICE_GPU)
        return;
    if (strcmp(when, "before") == 0 &&
        nvml_driver_version(r->platform->uuid, r->platform->pci_bus_id, driver, sizeof(driver), &err) == 0)
        info_add(&r->provenance, "gpu.driver_version", "%s", driver);
    if (nvml_state(r->platform->uuid, r->platform->pci_bus_id, &s, &err) == 0) {
        snprintf(key, sizeof(key), "gpu.clocks_%s", when);
        info_add(&r->provenance, key, "sm %u MHz, memory %u MHz", s.sm_mhz, s.mem_mhz);
        if (s.has_temp) {
            snprintf(key, sizeof(key), "gpu.temperature_%s", when);
            info_add(&r->provenance, key, "%u C", s.temp_c);
        }
        if (s.has_throttle) {
            nvml_throttle_names(s.throttle, reasons, sizeof(reasons));
            snprintf(key, sizeof(key), "gpu.throttle_%s", when);
            info_add(&r->provenance, key, "%s", reasons);
        }
    }
}

/* problem.key: the suite's problem key over the problem its driver reported (kernels/suite.h), so that only
 * results of one key are ever compared. A driver whose problem lacks a key parameter is a bug: -1. */
static int add_key(const struct suite *suite, struct suite_output *o, struct pp_error *err)
{
    char key[SUITE_KEY_MAX];
    struct suite_error e;

    if (suite_problem_key(suite, o->problem, key, sizeof(key), &e))
        return pp_error_set(err, "%s: the problem key: %s", suite->name, e.msg);
    json_object_set_new(o->problem, "key", json_string(key));
    return 0;
}

/* "model cuda cannot drive platform cpu0 (cpu0 runs: openmp, opencl)", then that model's discovery notes. */
static int no_device(const struct pp_platform_list *pl, const struct pp_platform *p, const char *model,
                     struct pp_error *err)
{
    char models[128];
    size_t used;

    platform_models(p, models, sizeof(models));
    pp_error_set(err, "model %s cannot drive platform %s (%s runs: %s)", model, p->id, p->id, models);
    for (size_t i = 0; i < pl->nnotes; i++) {
        used = strlen(err->msg);
        if (strncmp(pl->notes[i], model, strlen(model)) == 0)
            snprintf(err->msg + used, sizeof(err->msg) - used, "\n  %s", pl->notes[i]);
    }
    return RUN_USAGE;
}

/* The device of model on the platform key names, or NULL. */
static const struct pp_device *platform_device_of(const struct pp_platform_list *pl, const char *key,
                                                  const char *model)
{
    const struct pp_platform *p = platform_find(pl, key);
    return p ? platform_device(p, model) : NULL;
}

/* The report in fmt, flushed; then the verification failures, one line each on stderr and joined in err.
 * Returns RUN_OK, RUN_UNVERIFIED or RUN_FAILED. */
static int write_report(FILE *out, enum runner_format fmt, const struct run_report *r,
                        const struct suite_driver *d, const void *state, struct suite_output *o,
                        struct pp_error *err)
{
    const char *version = info_get(&r->provenance, "ppbench.version");
    const struct suite_header h = {.platform_id = r->platform->id,
                                   .platform_name = r->platform->name,
                                   .model = r->model,
                                   .version = version ? version : "?",
                                   .peak_bw = r->platform->peak_bw,
                                   .peak_source = r->platform->peak_source};
    size_t used = 0;

    if (fmt == RUNNER_CSV)
        d->csv(out, state);
    else if (fmt == RUNNER_TABLE)
        d->table(out, &h, state);
    else if (report_json(out, r, o, err))
        return RUN_FAILED;
    if (fflush(out) != 0) {
        pp_error_set(err, "cannot write the report: %s", strerror(errno));
        return RUN_FAILED;
    }
    if (o->verified)
        return RUN_OK;
    err->msg[0] = '\0';
    for (size_t i = 0; i < o->nkernels; i++) {
        if (o->kernels[i].verified)
            continue;
        fprintf(stderr, "verification failed: %s\n", o->kernels[i].error);
        if (used < sizeof(err->msg))
            used += (size_t)snprintf(err->msg + used, sizeof(err->msg) - used, "%sverification failed: %s",
                                     used ? "; " : "", o->kernels[i].error);
    }
    return RUN_UNVERIFIED;
}

static void output_clear(struct suite_output *o)
{
    json_decref(o->problem);
    json_decref(o->variant);
    json_decref(o->phases);
    json_decref(o->details);
    json_decref(o->warnings);
    memset(o, 0, sizeof(*o));
}

int runner_run(const struct runner_job *job, FILE *out, enum runner_format fmt, struct pp_error *err)
{
    static struct pp_platform_list pl; /* large: keep it off the stack */
    const struct suite *suite = job->values.suite;
    const struct suite_driver *d = suite->driver;
    struct progress_state progress = {.fd = job->progress_fd, .last = 0};
    struct suite_output o = {0};
    struct run_report r;
    const struct pp_backend *b;
    struct pp_ctx *ctx = NULL;
    void *state = NULL;
    char ids[256];
    int rc;

    if (job->external) /* a site's program: its own run, the same report */
        return external_run(job->external, job, out, fmt, err);
    if (!d) {
        pp_error_set(err, "suite %s has no driver in this build", suite->name);
        return RUN_USAGE;
    }
    if (!(b = registry_find(job->model))) {
        pp_error_set(err, "unknown model \"%s\" (built: %s; no runner of that name in the runners file)",
                     job->model, registry_names());
        return RUN_USAGE;
    }
    if (!pp_backend_ops(b, suite->name)) {
        pp_error_set(err, "model %s has no %s suite", job->model, suite->name);
        return RUN_USAGE;
    }
    /* Before any runtime starts its threads (discovery starts them): they inherit this thread's mask. */
    if (strcmp(job->model, "openmp") != 0)
        affinity_release_openmp_binding();
    /* Discover only the job's model when the key names one platform whatever is asked; ask every model when
     * that finds nothing, so the error says what the platform does run. */
    if (!platform_key_is_global(job->platform) || platform_discover_model(&pl, job->model, err) ||
        !platform_device_of(&pl, job->platform, job->model)) {
        if (platform_discover(&pl, err))
            return RUN_FAILED;
    }
    memset(&r, 0, sizeof(r));
    r.model = job->model;
    r.suite = suite->name;
    if (!(r.platform = platform_find(&pl, job->platform))) {
        list_ids(&pl, ids, sizeof(ids));
        pp_error_set(err, "unknown platform \"%s\" (this host has: %s)", job->platform, ids);
        return RUN_USAGE;
    }
    if (!(r.device = platform_device(r.platform, job->model)))
        return no_device(&pl, r.platform, job->model, err);
    const struct suite_run run = {.values = &job->values,
                                  .backend = b,
                                  .device = r.device,
                                  .progress = job->progress_fd >= 0 ? progress_write : NULL,
                                  .progress_arg = &progress};
    if (d->prepare(&run, &state, err)) {
        rc = RUN_USAGE;
        goto out;
    }
    if (b->open(r.device, &ctx, err)) {
        pp_error_prefix(err, "%s on %s", job->model, r.platform->id);
        rc = RUN_FAILED;
        goto out;
    }
    provenance_collect(&r.provenance, strcmp(job->model, "openmp") == 0);
    cpubind_describe(job->binding, &r.provenance);
    add_clocks(&r, "before");
    if (d->run(state, b, ctx, &o, err)) {
        pp_error_prefix(err, "%s on %s", job->model, r.platform->id);
        rc = RUN_FAILED;
        goto out;
    }
    add_clocks(&r, "after");
    if (add_key(suite, &o, err)) {
        rc = RUN_FAILED;
        goto out;
    }
    b->describe(ctx, &r.backend);
    rc = write_report(out, fmt, &r, d, state, &o, err);
out:
    output_clear(&o);
    d->release(state);
    if (ctx)
        b->close(ctx);
    return rc;
}
