/*
 * wilson_gpu: the launch choices that the OpenCL and CUDA Wilson kernels share (kernels/wilson/opencl.c,
 * kernels/wilson/wilson.cu), from their defaults and the PPBENCH_WILSON_* variables. Header-only, C and C++,
 * no state; any thread.
 *
 * PPBENCH_WILSON_WG: work-items per work-group (threads per block); the backend checks it against its limit.
 * PPBENCH_WILSON_REGS: registers per work-item the compiler may use, 64, 80, 128 or 255, or 0 for the
 * compiler's own choice. CUDA: __launch_bounds__(256, 65536 / (256 x regs)); OpenCL on NVIDIA:
 * -cl-nv-maxrregcount (cl_nv_compiler_options); elsewhere not applied.
 * PPBENCH_WILSON_INDEX: 32 or 64, the width of element indices (32 where every index fits, by default).
 * PPBENCH_WILSON_HOPS: "lattice" (default: each work-item computes its 8 input sites from the lattice shape)
 * or "table" (it reads them from the neighbour table, 32 bytes per site more traffic).
 *
 * Default register budgets, measured on an H100 (docs/METHODOLOGY.md): the kernels are bound by how many
 * loads each thread keeps in flight, so more registers run faster (fp32 soa at 32^4, CUDA: 80 registers 3.2,
 * 122 (nvcc's choice) 3.9, 128 4.2, 255 4.1 TFLOP/s); 128 for fp32 soa, 255 for the rest.
 */
#ifndef PP_WILSON_GPU_H
#define PP_WILSON_GPU_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/wilson/wilson_dslash.h" /* WILSON_AOSOA_BLOCK */
#include "kernels/wilson/wilson_ops.h"
#include "lib/env.h"
#include "lib/error.h"

#define WILSON_GPU_WORK_GROUP 128 /* default work-group size on GPUs and accelerators */

struct wilson_gpu_launch {
    unsigned work_group; /* PPBENCH_WILSON_WG, or 0: the backend's default */
    unsigned max_regs;   /* 0 (the compiler's choice), 64, 80, 128 or 255 */
    unsigned index_bits; /* 32 or 64 */
    int hops_table;      /* 1: read the neighbour table; 0: compute the input sites */
};

/* The choices for n output sites in prec and layout; -1 with err naming the variable that is malformed. */
static inline int wilson_gpu_launch_choose(struct wilson_gpu_launch *l, size_t n, enum pp_precision prec,
                                           enum pp_wilson_layout layout, struct pp_error *err)
{
    unsigned long wg = 0, regs = prec == PP_FP32 && layout == PP_WILSON_SOA ? 128 : 255, bits = 32;
    const char *hops = getenv("PPBENCH_WILSON_HOPS");
    int set;

    if ((set = pp_env_unsigned("PPBENCH_WILSON_WG", &wg)) < 0 || (set && (wg == 0 || wg > 1024)))
        return pp_error_set(err, "PPBENCH_WILSON_WG=%s: must be a work-group size from 1 to 1024",
                            getenv("PPBENCH_WILSON_WG"));
    if (pp_env_unsigned("PPBENCH_WILSON_REGS", &regs) < 0 ||
        (regs != 0 && regs != 64 && regs != 80 && regs != 128 && regs != 255))
        return pp_error_set(err,
                            "PPBENCH_WILSON_REGS=%s: must be 0 (the compiler's choice), 64, 80, 128 or 255",
                            getenv("PPBENCH_WILSON_REGS"));
    if (pp_env_unsigned("PPBENCH_WILSON_INDEX", &bits) < 0 || (bits != 32 && bits != 64))
        return pp_error_set(err, "PPBENCH_WILSON_INDEX=%s: must be 32 or 64", getenv("PPBENCH_WILSON_INDEX"));
    if (hops && *hops && strcmp(hops, "table") != 0 && strcmp(hops, "lattice") != 0)
        return pp_error_set(err, "PPBENCH_WILSON_HOPS=%s: must be table or lattice", hops);
    l->hops_table = hops && strcmp(hops, "table") == 0;
    l->work_group = (unsigned)wg;
    l->max_regs = (unsigned)regs;
    /* 32 bits where the largest element index (of the links: 144 n) fits */
    l->index_bits = bits == 32 && (n + WILSON_AOSOA_BLOCK) * 144 <= UINT32_MAX ? 32 : 64;
    return 0;
}

#endif
