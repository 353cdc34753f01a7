/*
 * STREAM kernels (paper 004, BabelStream) in OpenCL C 1.2, written once for the working precision REAL
 * (-DREAL=float or -DREAL=double -DPP_FP64) and the access width VEC (-DVEC=1, 2 or 4 elements).
 * Element-wise kernels: work-item i < n / VEC moves pack i (elements i * VEC .. i * VEC + VEC - 1) as one
 * vector, contiguous and coalesced across the work-group; the next n % VEC work-items move one tail element
 * each; the rest of the global size (rounded up to the work-group size) does nothing. The arrays are REALV
 * (a VEC-wide vector); clCreateBuffer aligns them far beyond 16 bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN).
 * Embedded into the binary as pp_cl_stream (OPENCL_SOURCE) and driven by kernels/stream/opencl.c.
 */
#ifdef PP_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifndef REAL
#define REAL float
#endif
#ifndef VEC
#define VEC 1
#endif

#define PP_CAT_(a, b) a##b
#define PP_CAT(a, b)  PP_CAT_(a, b)
#if VEC == 1
#define REALV REAL
#else
#define REALV PP_CAT(REAL, VEC)
#endif

/* Element j of an array seen as REAL (tail elements). */
#define EL(p)  ((global REAL *)(p))
#define CEL(p) ((global const REAL *)(p))

/* The body of an element-wise kernel: pack statement for i < n / VEC, tail statement with element index j. */
#define ELEMENTWISE(pack_stmt, tail_stmt)                                                                        \
    const size_t i = get_global_id(0);                                                                           \
    const size_t packs = n / VEC;                                                                                \
    if (i < packs) {                                                                                             \
        pack_stmt;                                                                                               \
    } else if (VEC > 1 && i - packs < n % VEC) {                                                                 \
        const size_t j = packs * VEC + (i - packs);                                                              \
        tail_stmt;                                                                                               \
    }

kernel void stream_init(global REALV *restrict a, global REALV *restrict b, global REALV *restrict c, ulong n,
                        REAL va, REAL vb, REAL vc)
{
    ELEMENTWISE((a[i] = (REALV)(va), b[i] = (REALV)(vb), c[i] = (REALV)(vc)),
                (EL(a)[j] = va, EL(b)[j] = vb, EL(c)[j] = vc))
}

kernel void stream_copy(global const REALV *restrict a, global REALV *restrict c, ulong n)
{
    ELEMENTWISE(c[i] = a[i], EL(c)[j] = CEL(a)[j])
}

kernel void stream_mul(global REALV *restrict b, global const REALV *restrict c, ulong n, REAL scalar)
{
    ELEMENTWISE(b[i] = scalar * c[i], EL(b)[j] = scalar * CEL(c)[j])
}

kernel void stream_add(global const REALV *restrict a, global const REALV *restrict b, global REALV *restrict c,
                       ulong n)
{
    ELEMENTWISE(c[i] = a[i] + b[i], EL(c)[j] = CEL(a)[j] + CEL(b)[j])
}

kernel void stream_triad(global REALV *restrict a, global const REALV *restrict b, global const REALV *restrict c,
                         ulong n, REAL scalar)
{
    ELEMENTWISE(a[i] = b[i] + scalar * c[i], EL(a)[j] = CEL(b)[j] + scalar * CEL(c)[j])
}

kernel void stream_nstream(global REALV *restrict a, global const REALV *restrict b,
                           global const REALV *restrict c, ulong n, REAL scalar)
{
    ELEMENTWISE(a[i] += b[i] + scalar * c[i], EL(a)[j] += CEL(b)[j] + scalar * CEL(c)[j])
}

/*
 * Dot, stage one: each work-item sums its share of the packs into a private REALV (one accumulator per lane),
 * adds the lanes as a tree, the work-group folds those sums with a local-memory tree (local size a power of
 * two), and item 0 writes the group's partial; the host adds the partials (stage two). Longest chain: per lane
 * ceil(packs / global size) products, one tail element and log2(VEC) lane levels (when VEC > 1), log2(local
 * size) tree levels, then the host's additions (stream.c computes it for the driver).
 * GPUs: a grid-stride range, so that a work-group reads contiguous, coalesced blocks at every step.
 * CPUs (PP_DOT_BLOCKED): one contiguous block of packs per work-item. A CPU runtime runs a work-group's items
 * one after another on one thread; a grid stride would make each item touch one pack per cache line and page
 * before the next item comes back for the rest (paper 004 notes the same trade-off for OpenCL on CPUs).
 */
kernel void stream_dot(global const REALV *restrict a, global const REALV *restrict b,
                       global REAL *restrict partial, ulong n, local REAL *restrict wg_sum)
{
    const size_t li = get_local_id(0);
    const size_t gid = get_global_id(0);
    const size_t stride = get_global_size(0);
    const size_t packs = n / VEC;
    REALV acc = (REALV)(0);
    REAL sum;

#ifdef PP_DOT_BLOCKED
    const size_t block = (packs + stride - 1) / stride;
    const size_t end = min(packs, gid * block + block);
    for (size_t i = gid * block; i < end; i++)
        acc += a[i] * b[i];
#else
    for (size_t i = gid; i < packs; i += stride)
        acc += a[i] * b[i];
#endif
#if VEC == 1
    sum = acc;
#else
    if (gid < n % VEC)
        acc.s0 += CEL(a)[packs * VEC + gid] * CEL(b)[packs * VEC + gid];
#if VEC == 2
    sum = acc.s0 + acc.s1;
#elif VEC == 4
    sum = (acc.s0 + acc.s2) + (acc.s1 + acc.s3);
#else
#error "VEC must be 1, 2 or 4"
#endif
#endif

    wg_sum[li] = sum;
    for (size_t offset = get_local_size(0) / 2; offset > 0; offset /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (li < offset)
            wg_sum[li] += wg_sum[li + offset];
    }
    if (li == 0)
        partial[get_group_id(0)] = wg_sum[0];
}
