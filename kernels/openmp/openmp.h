/*
 * openmp: the OpenMP model on the host CPU (all sockets as one platform).
 */
#ifndef PP_OPENMP_H
#define PP_OPENMP_H

#include "kernels/backend.h"

extern const struct pp_backend pp_backend_openmp;
extern const struct pp_stream_ops openmp_stream_ops;
extern const struct pp_wilson_ops openmp_wilson_ops;
extern const struct pp_staggered_ops openmp_staggered_ops;

/* The context, shared by the backend and its suite files. */
struct pp_ctx {
    int threads;
    size_t n;
    enum pp_precision prec;
    void *a, *b, *c; /* page-aligned, first touched by the threads that use them */
    struct {         /* the Wilson suite's fields (kernels/openmp/wilson.c) */
        size_t n;    /* output sites = input sites */
        enum pp_precision prec;
        enum pp_wilson_layout layout;
        void *gauge, *spinor, *out; /* in the layout and precision */
        uint32_t *nbr;              /* [8][n] */
    } w;
    struct {           /* the staggered suite's fields (kernels/openmp/staggered.c) */
        size_t n;      /* output sites = input sites */
        size_t blocks; /* simd: blocks of sites, the last one padded */
        enum pp_precision prec;
        enum pp_staggered_strategy strategy; /* PP_STAG_SITE or PP_STAG_SIMD */
        void *links, *vec, *out;             /* in the strategy's layout and precision */
        uint32_t *nbr;                       /* [16][n], or per block [16][STAG_BLOCK] */
    } stag;
};

#endif
