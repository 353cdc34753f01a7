/*
 * lattice_hop: the input site of a hop on the checkerboarded lattice, computed instead of read from a
 * neighbour table, in the subset that C99, OpenCL C 1.2 and CUDA C++ share (the Wilson and staggered GPU
 * kernels; OpenCL programs get this file embedded before theirs). No state.
 * OpenCL: embedded as pp_cl_lattice_hop (the Makefile's CL_SHARED finds this line).
 *
 * The index is the drivers' (kernels/lattice.h, the packing of kernels/wilson/wilson.c and
 * kernels/staggered/staggered.c): sites in lexicographic order with x fastest, X even, and the checkerboard
 * index of site s is s / 2, so each row of x holds X / 2 sites of each parity. Output sites are the odd ones,
 * input sites the even ones. The lattice is given as hx = X / 2, ny, nz, nt.
 *
 * lattice_hop_odd(i, hx, ny, nz, nt, mu, d): the checkerboard index of the site d steps (|d| less than the
 * extent, d odd: the result is even) in direction mu (0..3: x, y, z, t) from odd site i, periodic. With mu
 * and d constants the branches fold; the divisions depend on i only, so a kernel that inlines several hops of
 * one site computes them once.
 */
#ifndef PP_LATTICE_HOP_H
#define PP_LATTICE_HOP_H

#ifndef LATTICE_HOP_FN
#if defined(__CUDACC__)
#define LATTICE_HOP_FN static __device__ __forceinline__
#else
#define LATTICE_HOP_FN static inline
#endif
#endif

/* c + d on a ring of n (|d| < n) */
LATTICE_HOP_FN unsigned lattice_hop_wrap(unsigned c, int d, unsigned n)
{
    const int v = (int)c + d;

    return (unsigned)(v < 0 ? v + (int)n : v >= (int)n ? v - (int)n : v);
}

LATTICE_HOP_FN unsigned lattice_hop_odd(unsigned i, unsigned hx, unsigned ny, unsigned nz, unsigned nt,
                                        int mu, int d)
{
    const unsigned row = i / hx, xh = i - row * hx, yz = row / ny, t = yz / nz;
    const unsigned y = row - yz * ny, z = yz - t * nz;
    const unsigned x = 2 * xh + ((1 + y + z + t) & 1); /* odd parity */

    if (mu == 0)
        return row * hx + lattice_hop_wrap(x, d, 2 * hx) / 2;
    if (mu == 1)
        return (row - y + lattice_hop_wrap(y, d, ny)) * hx + xh;
    if (mu == 2)
        return (row + (lattice_hop_wrap(z, d, nz) - z) * ny) * hx + xh;
    return (row + (lattice_hop_wrap(t, d, nt) - t) * ny * nz) * hx + xh;
}

#endif
