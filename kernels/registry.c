/*
 * registry: the built programming models. The table is fixed at build time (PP_HAVE_CUDA when the CUDA
 * shared object was built); the CUDA entry is resolved through cuda_loader on first use.
 */
#include "registry.h"

#include "models.h" /* $(BUILD)/gen: PP_HAVE_CUDA when the CUDA shared object is built */

#include <string.h>

#include "kernels/cuda_loader.h"
#include "kernels/opencl/opencl.h"
#include "kernels/openmp/openmp.h"

static const struct pp_backend *get(size_t i)
{
    static const struct pp_backend *const builtin[] = {&pp_backend_openmp, &pp_backend_opencl};
    size_t nbuiltin = sizeof(builtin) / sizeof(builtin[0]);

    if (i < nbuiltin)
        return builtin[i];
#ifdef PP_HAVE_CUDA
    if (i == nbuiltin)
        return cuda_loader_backend();
#endif
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
