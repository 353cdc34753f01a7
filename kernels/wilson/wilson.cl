/*
 * wilson: the Wilson Dslash kernel (paper 000, Eq. 1) in OpenCL C 1.2. The program is kernels/wilson/wilson_dslash.h
 * (the arithmetic of one output site, shared with CUDA) followed by this file, built per precision, layout
 * and index type with -DREAL=float|double -DWILSON_SOA=0|1 -DWILSON_SIZE=uint|ulong, and -DWILSON_HOPS_TABLE=1 to
 * read the input sites from the table nbr (else they are computed from shape: X / 2, Y, Z, T). One work-item per output
 * site; the global size is rounded up to the work-group size and the extra work-items do nothing. Embedded as
 * pp_cl_wilson and driven by kernels/wilson/opencl.c.
 */
kernel void wilson_dslash(global const REAL *restrict psi, global const REAL *restrict g,
                          global const uint *restrict nbr, global REAL *restrict out, WILSON_SIZE n,
                          uint4 shape)
{
    const WILSON_SIZE i = (WILSON_SIZE)get_global_id(0);

    if (i >= n)
        return;
#if WILSON_HOPS_TABLE
    wilson_site(psi, g, nbr, out, n, n, i, WILSON_SOA);
#else
    wilson_site_lattice(psi, g, out, shape.x, shape.y, shape.z, shape.w, n, i, WILSON_SOA);
#endif
}
