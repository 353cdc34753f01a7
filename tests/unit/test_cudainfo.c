/*
 * test_cudainfo: what the CUDA backend records in the provenance that can be checked without a GPU: its
 * describe(), called on a zeroed context, in a process with or without a CUDA driver. The runtime's version
 * must be the toolkit's (the runtime is linked statically, so it equals nvcc's major.minor), and the
 * driver's version is absent where no driver answers, never "0.0" (every CUDA result stored "0.0" while
 * both versions were read in one call's arguments, whose order the compiler chose). Skips when the CUDA
 * backend was not built or could not load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/registry.h"
#include "lib/info.h"

/* Larger than the CUDA backend's struct pp_ctx (kernels/cuda/cuda.h: a few ints and the suite slots), which
 * C code cannot see: zeroed, it is a context with no suite state and unknown clocks. */
static _Alignas(64) unsigned char zero_ctx[8192];

static struct pp_info_list l;

static void test_cuda_versions(void)
{
    const char *nvcc = info_get(&l, "cuda.nvcc"), *runtime, *driver;
    char want[32];
    int major = 0, minor = 0;

    CHECK(sscanf(nvcc, "%d.%d", &major, &minor) == 2, "cuda.nvcc: %s", nvcc);
    snprintf(want, sizeof(want), "%d.%d", major, minor);
    runtime = info_get(&l, "cuda.runtime_version");
    CHECK(runtime && strcmp(runtime, want) == 0, "cuda.runtime_version %s, the toolkit is %s",
          runtime ? runtime : "(none)", want);
    driver = info_get(&l, "cuda.driver_version");
    CHECK(!driver || (strcmp(driver, "0.0") != 0 && atof(driver) >= 1), "cuda.driver_version %s", driver);
    printf("# cuda.nvcc %s, cuda.runtime_version %s, cuda.driver_version %s\n", nvcc, runtime ? runtime : "-",
           driver ? driver : "- (no driver)");
}

int main(void)
{
    const struct pp_backend *b = registry_find("cuda");

    if (!b || !b->describe) {
        printf("SKIP test_cuda_versions: the cuda backend was not built\n");
        return 0;
    }
    b->describe((struct pp_ctx *)zero_ctx, &l);
    if (!info_get(&l, "cuda.nvcc")) {
        printf("SKIP test_cuda_versions: the cuda backend did not load\n");
        return 0;
    }
    RUN(test_cuda_versions);
    return check_failures != 0;
}
