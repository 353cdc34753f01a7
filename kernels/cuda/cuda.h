/*
 * cuda: declarations shared by the CUDA backend's core (cuda.cu: discovery, contexts, provenance) and the
 * suites' CUDA files (kernels/<suite>/<suite>.cu, each registered with PP_SUITE_IMPL(cuda, <suite>)). C++
 * (nvcc) only; the worker sees nothing of it but the pp_backend_cuda table.
 *
 * A context belongs to the thread that opened it and is used by one thread at a time. It owns each suite's
 * state through its suite slots (freed by close).
 */
#ifndef PP_CUDA_H
#define PP_CUDA_H

#include <cuda_runtime.h>

#include "kernels/backend.h"

/* The context: the device and what the core knows of it; each suite's own state, private to the suite's file
 * (kernels/<suite>/<suite>.cu), is in the suite slots. */
struct pp_ctx {
    int device; /* CUDA ordinal */
    int sm_count;
    int cc_major, cc_minor;
    int l2_bytes;
    int clock_khz, mem_clock_khz, bus_width_bits; /* 0 if unknown */
    struct pp_suite_slots suites;
};

/* The one exported symbol (cuda.cu); the names below stay inside the shared object. */
extern "C" const struct pp_backend pp_backend_cuda;

#define CUDA_HIDDEN __attribute__((visibility("hidden")))

/* 0 on cudaSuccess; else -1 with "what: cudaErrorName: description" in err. */
CUDA_HIDDEN int cuda_check(cudaError_t e, struct pp_error *err, const char *what) PP_WUR;

#endif
