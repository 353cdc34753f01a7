/*
 * model_loader: loads the models built as shared objects (libppbench-cuda.so, libppbench-omptarget.so) with
 * dlopen, so that the worker starts on hosts without their runtimes (a CUDA driver, libgomp's offload
 * plugin).
 */
#ifndef PP_MODEL_LOADER_H
#define PP_MODEL_LOADER_H

#include "kernels/backend.h"

/* The model's backend: the real table from its shared object, or one whose discover() says why it is
 * missing. Loads on the first call; never NULL. Not thread-safe on its first call (the registry calls it
 * early). */
const struct pp_backend *model_loader_cuda(void);
const struct pp_backend *model_loader_omptarget(void);

#endif
