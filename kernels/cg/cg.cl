/*
 * CG-solve kernels (paper 002, Sec. 5: AXPBY, DOT, SPMV) in OpenCL C 1.2, for the working precision REAL
 * (-DREAL=float or -DREAL=double -DPP_FP64) and the SPMV's work-items per row ITEMS (-DITEMS=1 .. 32, a power
 * of two). Vectors of n elements, one element per work-item in the element-wise kernels; the global size is
 * rounded up to the work-group size and the extra work-items do nothing. No restrict: AXPBY's z may be x or
 * y. Embedded into the binary as pp_cl_cg (OPENCL_SOURCE), driven by kernels/cg/opencl.c.
 */
#ifdef PP_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifndef REAL
#define REAL float
#endif
#ifndef ITEMS
#define ITEMS 1
#endif

kernel void cg_fill(global REAL *v, REAL value, uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        v[i] = value;
}

kernel void cg_axpby(global REAL *z, REAL alpha, global const REAL *x, REAL beta, global const REAL *y, uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        z[i] = alpha * x[i] + beta * y[i];
}

/* Stage one of the dot: each work-item sums a grid-stride series, the work-group adds them as a tree in local
 * memory (a power-of-two size), work-item 0 writes the group's partial sum; the host adds the partials. */
kernel void cg_dot(global const REAL *x, global const REAL *y, global REAL *partials, local REAL *scratch, uint n)
{
    const uint l = get_local_id(0), wg = get_local_size(0);
    REAL sum = 0;

    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        sum += x[i] * y[i];
    scratch[l] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = wg / 2; s > 0; s /= 2) {
        if (l < s)
            scratch[l] += scratch[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        partials[get_group_id(0)] = scratch[0];
}

/*
 * y = A x: a work-group of rows_per_group x ITEMS work-items takes rows_per_group consecutive rows; the ITEMS
 * work-items of a row take every ITEMS-th entry of it (consecutive work-items, consecutive entries: the
 * group's loads of values and column indices are contiguous), then add their sums as a tree in local memory.
 */
kernel void cg_spmv(global const uint *row_ptr, global const uint *col, global const REAL *val,
                    global const REAL *x, global REAL *y, local REAL *scratch, uint rows)
{
    const uint l = get_local_id(0), lane = l % ITEMS;
    const uint row = get_group_id(0) * (get_local_size(0) / ITEMS) + l / ITEMS;
    REAL sum = 0;

    if (row < rows) {
        const uint end = row_ptr[row + 1];
        for (uint e = row_ptr[row] + lane; e < end; e += ITEMS)
            sum += val[e] * x[col[e]];
    }
#if ITEMS > 1
    scratch[l] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = ITEMS / 2; s > 0; s /= 2) {
        if (lane < s)
            scratch[l] += scratch[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    sum = scratch[l];
#endif
    if (lane == 0 && row < rows)
        y[row] = sum;
}
