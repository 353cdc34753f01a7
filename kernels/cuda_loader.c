/*
 * cuda_loader: finds and dlopens libppbench-cuda.so. Search order: $PPBENCH_LIBDIR, then
 * <executable dir>/../lib/ppbench (the build tree and an installed PREFIX share that layout). The handle is
 * kept for the life of the process. When loading fails, a stand-in table named "cuda" reports the reason from
 * discover(), so `ppbench-worker list` can say why CUDA is absent.
 */
#include "cuda_loader.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CUDA_SO "libppbench-cuda.so"

static char load_error[512];
static const struct pp_backend *loaded;

static int unavailable_discover(struct pp_device_list *out, struct pp_error *err)
{
    (void)out;
    return pp_error_set(err, "no device: cuda backend not loaded: %s", load_error);
}

static const struct pp_backend unavailable = {
    .name = "cuda",
    .discover = unavailable_discover,
};

static void *try_open(const char *dir)
{
    char path[PATH_MAX];
    void *h;

    snprintf(path, sizeof(path), "%s/%s", dir, CUDA_SO);
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        snprintf(load_error, sizeof(load_error), "%s", dlerror());
    return h;
}

const struct pp_backend *cuda_loader_backend(void)
{
    char exe[PATH_MAX], dir[PATH_MAX + 32];
    const char *env = getenv("PPBENCH_LIBDIR");
    ssize_t len;
    void *h = NULL;

    if (loaded)
        return loaded;
    snprintf(load_error, sizeof(load_error), "%s not found", CUDA_SO);
    if (env && *env)
        h = try_open(env);
    if (!h && (len = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
        exe[len] = '\0';
        snprintf(dir, sizeof(dir), "%s/../lib/ppbench", dirname(exe));
        h = try_open(dir);
    }
    if (h) {
        loaded = dlsym(h, "pp_backend_cuda");
        if (!loaded)
            snprintf(load_error, sizeof(load_error), "%s has no pp_backend_cuda: %s", CUDA_SO, dlerror());
    }
    if (!loaded)
        loaded = &unavailable;
    return loaded;
}
