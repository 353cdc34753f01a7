/*
 * embedded: OpenCL C sources compiled into the binary. The Makefile turns kernels/opencl/<name>.cl into the
 * NUL-terminated read-only string pp_cl_<name>, and so the headers of device code shared with CUDA
 * (kernels/<name>.h, Makefile CL_SHARED); the backend builds them at run time (kernels/opencl/opencl.c).
 */
#ifndef PP_OPENCL_EMBEDDED_H
#define PP_OPENCL_EMBEDDED_H

extern const char pp_cl_cg[];        /* kernels/cg/cg.cl */
extern const char pp_cl_hacc[];      /* kernels/hacc/hacc.cl */
extern const char pp_cl_stream[];    /* kernels/stream/stream.cl */
extern const char pp_cl_staggered[]; /* kernels/staggered/staggered.cl */
extern const char pp_cl_wilson[];    /* kernels/wilson/wilson.cl */
extern const char
    pp_cl_lattice_hop[]; /* kernels/lattice_hop.h (shared with CUDA), before the programs using it */
extern const char
    pp_cl_wilson_dslash[]; /* kernels/wilson/wilson_dslash.h (shared with CUDA), before wilson.cl */

#endif
