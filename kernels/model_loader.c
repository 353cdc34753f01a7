/*
 * model_loader: finds and dlopens the shared object of a model built apart from the worker
 * (libppbench-cuda.so, libppbench-omptarget.so or libppbench-omptarget-clang.so). Search order:
 * $PPBENCH_LIBDIR, then <executable dir>/../lib/ppbench (the build tree and an installed PREFIX share that
 * layout). A handle is kept for the life of the process. When loading fails, a stand-in table with the
 * model's name reports the reason from discover(), so `ppbench-worker list` can say why the model is absent.
 * Main thread, on first use.
 *
 * omp-target has one build per offload compiler (GCC's and clang's: the same sources, one table name);
 * PPBENCH_OMPTARGET_COMPILER=gcc|clang picks one, and unset, the first of omptarget_builds that loads is the
 * model. The build a result ran is in its provenance (omptarget.toolchain).
 */
#include "model_loader.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One loadable model: where it is, what it exports, and what became of loading it. */
struct model_so {
    const char *so;     /* file name in the library folder */
    const char *symbol; /* its exported struct pp_backend */
    const struct pp_backend *unavailable;
    const struct pp_backend *loaded;
    char error[512];
};

static void *try_open(struct model_so *m, const char *dir)
{
    char path[PATH_MAX];
    void *h;

    snprintf(path, sizeof(path), "%s/%s", dir, m->so);
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        snprintf(m->error, sizeof(m->error), "%s", dlerror());
    return h;
}

static const struct pp_backend *load(struct model_so *m)
{
    char exe[PATH_MAX], dir[PATH_MAX + 32];
    const char *env = getenv("PPBENCH_LIBDIR");
    ssize_t len;
    void *h = NULL;

    if (m->loaded)
        return m->loaded;
    snprintf(m->error, sizeof(m->error), "%s not found", m->so);
    if (env && *env)
        h = try_open(m, env);
    if (!h && (len = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
        exe[len] = '\0';
        snprintf(dir, sizeof(dir), "%s/../lib/ppbench", dirname(exe));
        h = try_open(m, dir);
    }
    if (h) {
        m->loaded = dlsym(h, m->symbol);
        if (!m->loaded)
            snprintf(m->error, sizeof(m->error), "%s has no %s: %s", m->so, m->symbol, dlerror());
    }
    if (!m->loaded)
        m->loaded = m->unavailable;
    return m->loaded;
}

/* The stand-ins: discover() says why the shared object did not load (it has no context, hence one each). */
static struct model_so cuda_so, omptarget_so;

static int cuda_unavailable(struct pp_device_list *out, struct pp_error *err)
{
    (void)out;
    return pp_error_set(err, "no device: cuda backend not loaded: %s", cuda_so.error);
}

static int omptarget_unavailable(struct pp_device_list *out, struct pp_error *err)
{
    (void)out;
    return pp_error_set(err, "no device: omp-target backend not loaded: %s", omptarget_so.error);
}

static const struct pp_backend cuda_stand_in = {.name = "cuda", .discover = cuda_unavailable};
static const struct pp_backend omptarget_stand_in = {.name = "omp-target", .discover = omptarget_unavailable};

static struct model_so cuda_so = {
    .so = "libppbench-cuda.so", .symbol = "pp_backend_cuda", .unavailable = &cuda_stand_in};
static struct model_so omptarget_so = {.symbol = "pp_backend_omptarget", .unavailable = &omptarget_stand_in};

/* omp-target's builds (the Makefile's OMPT_SO and OMPT_CLANG_SO), in the order tried when none is asked for.
 */
static const struct {
    const char *compiler, *so;
} omptarget_builds[] = {
    /* clang's first: on the H100 it ran STREAM at 0.85x CUDA, GCC's at 0.39x (docs/PERFORMANCE.md) */
    {"clang", "libppbench-omptarget-clang.so"},
    {"gcc", "libppbench-omptarget.so"},
};
#define OMPTARGET_BUILDS (sizeof(omptarget_builds) / sizeof(omptarget_builds[0]))

const struct pp_backend *model_loader_cuda(void)
{
    return load(&cuda_so);
}

const struct pp_backend *model_loader_omptarget(void)
{
    const char *want = getenv("PPBENCH_OMPTARGET_COMPILER");
    char why[sizeof(omptarget_so.error)] = "";
    size_t i;

    if (omptarget_so.loaded)
        return omptarget_so.loaded;
    if (want && *want) {
        for (i = 0; i < OMPTARGET_BUILDS && strcmp(want, omptarget_builds[i].compiler) != 0; i++)
            ;
        if (i == OMPTARGET_BUILDS) {
            snprintf(omptarget_so.error, sizeof(omptarget_so.error),
                     "PPBENCH_OMPTARGET_COMPILER must be gcc or clang, not \"%.64s\"", want);
            return omptarget_so.loaded = &omptarget_stand_in;
        }
        omptarget_so.so = omptarget_builds[i].so;
        return load(&omptarget_so);
    }
    /* The first build that loads; when none does, every build's reason. */
    for (i = 0; i < OMPTARGET_BUILDS; i++) {
        omptarget_so.so = omptarget_builds[i].so;
        omptarget_so.loaded = NULL;
        if (load(&omptarget_so) != &omptarget_stand_in)
            return omptarget_so.loaded;
        snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s", i ? "; " : "", omptarget_so.error);
    }
    snprintf(omptarget_so.error, sizeof(omptarget_so.error), "%s", why);
    return omptarget_so.loaded;
}
