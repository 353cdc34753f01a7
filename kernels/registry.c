/*
 * registry: the built programming models. The table is fixed at build time (PP_HAVE_CUDA, PP_HAVE_OMPTARGET
 * when the CUDA and the OpenMP offload shared objects were built); those entries are resolved through
 * model_loader on first use.
 */
#include "registry.h"

#include "models.h" /* $(BUILD)/gen: PP_HAVE_CUDA, PP_HAVE_OMPTARGET: the shared objects built */

#include <string.h>

#include "kernels/model_loader.h"
#include "kernels/opencl/opencl.h"
#include "kernels/openmp/openmp.h"

static const struct pp_backend *get(size_t i)
{
    static const struct pp_backend *const builtin[] = {&pp_backend_openmp, &pp_backend_opencl};
    /* The models in shared objects, in the order listed (only those this build has). */
    static const struct pp_backend *(*const loadable[])(void) = {
#ifdef PP_HAVE_CUDA
        model_loader_cuda,
#endif
#ifdef PP_HAVE_OMPTARGET
        model_loader_omptarget,
#endif
        NULL,
    };
    size_t nbuiltin = sizeof(builtin) / sizeof(builtin[0]);

    if (i < nbuiltin)
        return builtin[i];
    for (size_t k = 0; loadable[k]; k++)
        if (i == nbuiltin + k)
            return loadable[k]();
    return NULL;
}

size_t registry_count(void)
{
    size_t n = 0;
    while (get(n))
        n++;
    return n;
}

const struct pp_backend *registry_get(size_t i)
{
    return get(i);
}

const struct pp_backend *registry_find(const char *name)
{
    for (size_t i = 0; get(i); i++)
        if (strcmp(get(i)->name, name) == 0)
            return get(i);
    return NULL;
}

const char *registry_names(void)
{
    static char names[128];

    if (!names[0])
        for (size_t i = 0; get(i); i++) {
            if (i)
                strcat(names, ", ");
            strcat(names, get(i)->name);
        }
    return names;
}
