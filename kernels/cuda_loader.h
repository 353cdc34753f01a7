/*
 * cuda_loader: loads the CUDA backend's shared object (libppbench-cuda.so) with dlopen, so that the worker
 * starts on hosts without a CUDA driver.
 */
#ifndef PP_CUDA_LOADER_H
#define PP_CUDA_LOADER_H

#include "kernels/backend.h"

/* The CUDA backend: the real table from the shared object, or one whose discover() says why it is missing.
 * Loads on the first call; never NULL. Not thread-safe on its first call (the registry calls it early). */
const struct pp_backend *cuda_loader_backend(void);

#endif
