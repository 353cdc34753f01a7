/*
 * openmp: the OpenMP model on the host CPU (all sockets as one platform).
 */
#ifndef PP_OPENMP_H
#define PP_OPENMP_H

#include "kernels/backend.h"

extern const struct pp_backend pp_backend_openmp;
extern const struct pp_stream_ops openmp_stream_ops;

/* The context, shared by the backend and its suite files. */
struct pp_ctx {
    int threads;
    size_t n;
    enum pp_precision prec;
    void *a, *b, *c; /* page-aligned, first touched by the threads that use them */
};

#endif
