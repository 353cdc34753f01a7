/*
 * MILC staggered Dslash kernels (paper 001, Sec. III) in OpenCL C 1.2: the parallel strategies 1LP, 2LP,
 * 3LP-1, 3LP-2, 3LP-3 and 4LP (4LP-1 and 4LP-2 share one kernel: they differ only in the work-item order),
 * written once for both precisions. The host (kernels/staggered/opencl.c) builds one program per run with
 *   -DREAL=double -DPP_FP64 (or -DREAL=float)  the working precision
 *   -DSTAG_STRATEGY=<n> -DSTAG_ORDER=<n>       enum pp_staggered_strategy and pp_staggered_order (staggered_ops.h)
 * and only the strategy's kernel is compiled, so that a device without 64-bit atomics still builds the
 * others.
 *
 * Data in the canonical layout of struct pp_staggered_ops, as complex numbers (CPLX = REAL2):
 *   links[((l * n + s) * 4 + k) * 9 + i * 3 + j]  element (i, j) of matrix (l, k) of target site s
 *   vec[b * 3 + j], nbr[(l * 4 + k) * n + s], out[s * 3 + i]
 * Term (l, k) of row i: +/- sum_j L(l, k)[i][j] B(nbr)[j], plus for l = 0, 1 and minus for l = 2, 3.
 * Each work-item accumulates its terms in registers, the first product and the first term assigned (1146 flop
 * per site, docs/METHODOLOGY.md; the atomic strategies add the first term onto a zeroed output); the
 * strategies differ in which loops are spread over work-items and how the partial sums meet (local memory and
 * barriers, or atomics). Index math is 32-bit unsigned (the host keeps the global size below 2^32) with
 * compile-time divisors; link offsets are size_t.
 */
#ifdef PP_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifndef REAL
#define REAL float
#endif

#define PP_CAT_(a, b) a##b
#define PP_CAT(a, b)  PP_CAT_(a, b)
#define CPLX          PP_CAT(REAL, 2)

/* Loop extents (the paper's nmat, ndim, nrow, ncol). */
#define NMAT 4
#define NDIM 4
#define NROW 3
#define NCOL 3

/* enum pp_staggered_strategy and enum pp_staggered_order (kernels/staggered/staggered_ops.h; the host checks the numbers). */
#define STAG_1LP   0
#define STAG_2LP   1
#define STAG_3LP_1 2
#define STAG_3LP_2 3
#define STAG_3LP_3 4
#define STAG_4LP_1 5
#define STAG_4LP_2 6
#define ORDER_K    1
#define ORDER_I    2
#define ORDER_L    3

#if STAG_STRATEGY == STAG_3LP_2 || STAG_STRATEGY == STAG_3LP_3
#ifdef PP_FP64
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif
#endif

/* The work-group size the host launches with (-DSTAG_WG): the compiler fits its registers to it. */
#ifdef STAG_WG
#define KERNEL kernel __attribute__((reqd_work_group_size(STAG_WG, 1, 1))) void
#else
#define KERNEL kernel void
#endif

typedef global const CPLX *restrict links_ptr;
typedef global const CPLX *restrict vec_ptr;
typedef global const uint *restrict nbr_ptr;

/* The colour vector of term (l, k) of site s: B(nbr[(l * 4 + k) * n + s]). */
typedef struct {
    CPLX c[NCOL];
} colour;

inline colour load_vec(vec_ptr vec, nbr_ptr nbr, uint n, uint s, uint l, uint k)
{
    const uint b = nbr[(l * NDIM + k) * n + s];
    colour v;

    for (uint j = 0; j < NCOL; j++)
        v.c[j] = vec[b * NCOL + j];
    return v;
}

inline CPLX cmul(CPLX a, CPLX b)
{
    return (CPLX)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* Row i of matrix (l, k) of site s times v, the work-item's share of the matrix-vector product, signed by the
 * term: sum_j L[i][j] v[j] for l = 0, 1, its negative for l = 2, 3. */
inline CPLX row_times_vec(links_ptr links, uint n, uint s, uint l, uint k, uint i, colour v)
{
    links_ptr row = links + ((size_t)(l * n + s) * NDIM + k) * (NROW * NCOL) + i * NCOL;
    CPLX acc = cmul(row[0], v.c[0]);

    for (uint j = 1; j < NCOL; j++)
        acc += cmul(row[j], v.c[j]);
    return l < 2 ? acc : -acc;
}

/* Term (l, k) of row i of site s: the work of one 4LP work-item. */
inline CPLX term(links_ptr links, vec_ptr vec, nbr_ptr nbr, uint n, uint s, uint l, uint k, uint i)
{
    return row_times_vec(links, n, s, l, k, i, load_vec(vec, nbr, n, s, l, k));
}

/* Sum over l of the terms (l, k) of row i: the work of one 3LP work-item. */
inline CPLX sum_over_l(links_ptr links, vec_ptr vec, nbr_ptr nbr, uint n, uint s, uint k, uint i)
{
    CPLX acc = term(links, vec, nbr, n, s, 0, k, i);

    for (uint l = 1; l < NMAT; l++)
        acc += term(links, vec, nbr, n, s, l, k, i);
    return acc;
}

#if STAG_STRATEGY == STAG_3LP_2 || STAG_STRATEGY == STAG_3LP_3
/* *p += v as a compare-and-swap loop on the bits (cl_khr_int64_base_atomics for fp64, the core 32-bit
 * atomic_cmpxchg for fp32), relaxed. */
#ifdef PP_FP64
#define BITS         ulong
#define CMPXCHG      atom_cmpxchg
#define AS_BITS(x)   as_ulong(x)
#define FROM_BITS(x) as_double(x)
#else
#define BITS         uint
#define CMPXCHG      atomic_cmpxchg
#define AS_BITS(x)   as_uint(x)
#define FROM_BITS(x) as_float(x)
#endif
inline void atomic_add_real(volatile global REAL *p, REAL v)
{
    volatile global BITS *u = (volatile global BITS *)p;
    BITS seen, old = *u;

    do {
        seen = old;
        old = CMPXCHG(u, seen, AS_BITS(FROM_BITS(seen) + v));
    } while (old != seen);
}

inline void atomic_add_cplx(global CPLX *p, CPLX v)
{
    atomic_add_real((volatile global REAL *)p, v.x);
    atomic_add_real((volatile global REAL *)p + 1, v.y);
}
#endif

/* ---- 1LP: one work-item per target site, all 16 matrices (Sec. III-A) ---- */
#if STAG_STRATEGY == STAG_1LP
KERNEL stag_1lp(global CPLX *restrict out, links_ptr links, vec_ptr vec, nbr_ptr nbr, uint n)
{
    const uint s = get_global_id(0);
    CPLX acc[NROW];

    for (uint l = 0; l < NMAT; l++)
        for (uint k = 0; k < NDIM; k++) {
            const colour v = load_vec(vec, nbr, n, s, l, k);
            for (uint i = 0; i < NROW; i++) {
                const CPLX p = row_times_vec(links, n, s, l, k, i, v);
                acc[i] = l == 0 && k == 0 ? p : acc[i] + p;
            }
        }
    for (uint i = 0; i < NROW; i++)
        out[s * NROW + i] = acc[i];
}
#endif

/* ---- 2LP: three work-items per site, one row i of every matrix (Sec. III-B) ---- */
#if STAG_STRATEGY == STAG_2LP
KERNEL stag_2lp(global CPLX *restrict out, links_ptr links, vec_ptr vec, nbr_ptr nbr, uint n)
{
    const uint global_id = get_global_id(0);
    const uint s = global_id / NROW;
    const uint i = global_id % NROW;
    CPLX acc = term(links, vec, nbr, n, s, 0, 0, i);

    for (uint t = 1; t < NMAT * NDIM; t++) /* t = l * NDIM + k */
        acc += term(links, vec, nbr, n, s, t / NDIM, t % NDIM, i);
    out[s * NROW + i] = acc;
}
#endif

/* ---- 3LP: twelve work-items per site (i, k) (Sec. III-C), in k-major or i-major order ---- */
#if STAG_STRATEGY == STAG_3LP_1 || STAG_STRATEGY == STAG_3LP_2 || STAG_STRATEGY == STAG_3LP_3
#if STAG_ORDER == ORDER_K
#define DECODE_I(g) ((g) % NROW)
#define DECODE_K(g) (((g) / NROW) % NDIM)
#define STRIDE_K    NROW /* work-items between (s, i, k) and (s, i, k + 1) */
#elif STAG_ORDER == ORDER_I
#define DECODE_I(g) (((g) / NDIM) % NROW)
#define DECODE_K(g) ((g) % NDIM)
#define STRIDE_K    1
#else
#error "3LP needs ORDER_K or ORDER_I"
#endif
#define DECODE_3LP                                                                                           \
    const uint global_id = get_global_id(0);                                                                 \
    const uint s = global_id / (NDIM * NROW);                                                                \
    const uint i = DECODE_I(global_id);                                                                      \
    const uint k = DECODE_K(global_id)
#endif

/* 3LP-1: partial sums in local memory, a barrier, the k == 0 work-item adds the four and writes. */
#if STAG_STRATEGY == STAG_3LP_1
KERNEL stag_3lp1(global CPLX *restrict out, links_ptr links, vec_ptr vec, nbr_ptr nbr, uint n,
                 local CPLX *restrict c)
{
    DECODE_3LP;
    const uint local_id = get_local_id(0);

    c[local_id] = sum_over_l(links, vec, nbr, n, s, k, i);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (k == 0)
        out[s * NROW + i] = (c[local_id] + c[local_id + STRIDE_K]) +
                            (c[local_id + 2 * STRIDE_K] + c[local_id + 3 * STRIDE_K]);
}
#endif

/* 3LP-2: partial sums in local memory; k == 0 zeroes the output element, a barrier, then every work-item adds
 * its partial sum into it atomically. */
#if STAG_STRATEGY == STAG_3LP_2
KERNEL stag_3lp2(global CPLX *restrict out, links_ptr links, vec_ptr vec, nbr_ptr nbr, uint n,
                 local CPLX *restrict c)
{
    DECODE_3LP;
    const uint local_id = get_local_id(0);

    c[local_id] = sum_over_l(links, vec, nbr, n, s, k, i);
    if (k == 0)
        out[s * NROW + i] = (CPLX)(0);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    atomic_add_cplx(&out[s * NROW + i], c[local_id]);
}
#endif

/* 3LP-3: no local memory: k == 0 zeroes the output element, a barrier, then every term goes atomically
 * straight into it. */
#if STAG_STRATEGY == STAG_3LP_3
KERNEL stag_3lp3(global CPLX *restrict out, links_ptr links, vec_ptr vec, nbr_ptr nbr, uint n)
{
    DECODE_3LP;

    if (k == 0)
        out[s * NROW + i] = (CPLX)(0);
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (uint l = 0; l < NMAT; l++)
        atomic_add_cplx(&out[s * NROW + i], term(links, vec, nbr, n, s, l, k, i));
}
#endif

/* ---- 4LP: 48 work-items per site (i, k, l), one row of one matrix each (Sec. III-D) ---- */
#if STAG_STRATEGY == STAG_4LP_1 || STAG_STRATEGY == STAG_4LP_2
#if STAG_STRATEGY == STAG_4LP_1 && STAG_ORDER == ORDER_K /* grouped by l, then k, then i */
#define DECODE_I(g) ((g) % NROW)
#define DECODE_K(g) (((g) / NROW) % NDIM)
#define DECODE_L(g) (((g) / (NDIM * NROW)) % NMAT)
#define STRIDE_K    NROW
#define STRIDE_L    (NDIM * NROW)
#elif STAG_STRATEGY == STAG_4LP_1 && STAG_ORDER == ORDER_I /* grouped by l, then i, then k */
#define DECODE_I(g) (((g) / NDIM) % NROW)
#define DECODE_K(g) ((g) % NDIM)
#define DECODE_L(g) (((g) / (NDIM * NROW)) % NMAT)
#define STRIDE_K    1
#define STRIDE_L    (NDIM * NROW)
#elif STAG_STRATEGY == STAG_4LP_2 && STAG_ORDER == ORDER_L /* grouped by k, then l, then i */
#define DECODE_I(g) ((g) % NROW)
#define DECODE_K(g) (((g) / (NMAT * NROW)) % NDIM)
#define DECODE_L(g) (((g) / NROW) % NMAT)
#define STRIDE_K    (NMAT * NROW)
#define STRIDE_L    NROW
#elif STAG_STRATEGY == STAG_4LP_2 && STAG_ORDER == ORDER_I /* grouped by k, then i, then l */
#define DECODE_I(g) (((g) / NMAT) % NROW)
#define DECODE_K(g) (((g) / (NMAT * NROW)) % NDIM)
#define DECODE_L(g) ((g) % NMAT)
#define STRIDE_K    (NMAT * NROW)
#define STRIDE_L    1
#else
#error "4LP-1 needs ORDER_K or ORDER_I, 4LP-2 ORDER_L or ORDER_I"
#endif

/* Each work-item writes its term to local memory; a barrier; l == 0 adds the four l; a barrier; l == 0 and
 * k == 0 adds the four k and writes. */
KERNEL stag_4lp(global CPLX *restrict out, links_ptr links, vec_ptr vec, nbr_ptr nbr, uint n,
                local CPLX *restrict c)
{
    const uint global_id = get_global_id(0);
    const uint local_id = get_local_id(0);
    const uint s = global_id / (NMAT * NDIM * NROW);
    const uint i = DECODE_I(global_id);
    const uint k = DECODE_K(global_id);
    const uint l = DECODE_L(global_id);

    c[local_id] = term(links, vec, nbr, n, s, l, k, i);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0)
        c[local_id] = (c[local_id] + c[local_id + STRIDE_L]) +
                      (c[local_id + 2 * STRIDE_L] + c[local_id + 3 * STRIDE_L]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0 && k == 0)
        out[s * NROW + i] = (c[local_id] + c[local_id + STRIDE_K]) +
                            (c[local_id + 2 * STRIDE_K] + c[local_id + 3 * STRIDE_K]);
}
#endif
