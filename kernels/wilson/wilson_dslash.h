/*
 * wilson_dslash: the Wilson Dslash of one output site (paper 000, Fig. 1), written once in the subset that
 * C99, OpenCL C 1.2 and CUDA C++ share. The CUDA kernels (kernels/wilson/wilson.cu) include it; the OpenCL
 * program is this file followed by kernels/wilson/wilson.cl; the OpenMP kernels take its spin tables. No
 * state, no allocation: pure arithmetic. OpenCL: embedded as pp_cl_wilson_dslash (the Makefile's CL_SHARED
 * finds this line).
 *
 * Spin tables (docs/METHODOLOGY.md, DeGrand-Rossi basis): gamma_mu = [[0, B_mu], [B_mu^dagger, 0]] in 2x2
 * blocks, and row r of B_mu holds i^WILSON_B_POW(mu, r) in column WILSON_B_COL(mu, r). They are constant
 * expressions, so kernels that unroll the directions fold them away.
 *
 * Layouts (enum pp_wilson_layout): a field of P reals per site is site-major (soa 0: element (s, c) at
 * s P + c), one array per real component with the site fastest (soa 1: at c ld + s, ld >= the number of
 * sites being the distance between component arrays), or that within blocks of B sites (soa = B =
 * WILSON_AOSOA_BLOCK: at ((s / B) P + c) B + s % B; the field spans whole blocks), P = 24 for a spinor
 * [spin 4][colour 3][re, im] and 144 for a site's 8 links [k][a 3][b 3][re, im] (k = 2 mu + back).
 *
 * The site functions are defined on every inclusion where REAL (the element type) is defined, with site
 * indices of type WILSON_SIZE (default size_t; 32-bit unsigned is faster on GPUs where every index fits),
 * named WILSON_NAME(wilson_site) and WILSON_NAME(wilson_direction) where the includer defines WILSON_NAME,
 * else wilson_site and wilson_direction (CUDA includes this file once per precision and index type,
 * redefining REAL and WILSON_SIZE, and overloads). An includer may predefine WILSON_FN (function qualifiers),
 * WILSON_LOAD(p) (a read of read-only memory) and WILSON_UNROLL (the pragma before each small loop); the
 * defaults per language are below.
 */
#ifndef PP_WILSON_DSLASH_H
#define PP_WILSON_DSLASH_H

/* OpenCL C: __OPENCL_VERSION__ names the device's version (every OpenCL compiler), __OPENCL_C_VERSION__ the
 * language's (1.2 on; some compilers define only this one) */
#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define WILSON_OPENCL 1
#endif

#if !defined(WILSON_OPENCL)
#include "kernels/lattice_hop.h" /* OpenCL programs have it embedded before this file */
#endif

#if defined(WILSON_OPENCL) && defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* B_mu for mu = x, y, z, t, rows r = 0, 1: columns {1, 0}, {1, 0}, {0, 1}, {0, 1}; powers of i {1, 1}, {2,
 * 0}, {1, 3}, {0, 0} (two bits per entry of 0xD25, entry (mu, r) at bit 4 mu + 2 r). */
#define WILSON_B_COL(mu, r) ((mu) < 2 ? 1 - (r) : (r))
#define WILSON_B_POW(mu, r) ((0xD25 >> (4 * (mu) + 2 * (r))) & 3)
/* The same as an initializer of int [4][2] (C arrays indexed [mu][r]): WILSON_B_TABLE(WILSON_B_COL). */
#define WILSON_B_TABLE(F)                                                                                    \
    {                                                                                                        \
        {F(0, 0), F(0, 1)}, {F(1, 0), F(1, 1)}, {F(2, 0), F(2, 1)},                                          \
        {                                                                                                    \
            F(3, 0), F(3, 1)                                                                                 \
        }                                                                                                    \
    }

/* i^p (re + i im), p in 0..3 */
#define WILSON_IPOW_RE(p, re, im) ((p) == 0 ? (re) : (p) == 1 ? -(im) : (p) == 2 ? -(re) : (im))
#define WILSON_IPOW_IM(p, re, im) ((p) == 0 ? (im) : (p) == 1 ? (re) : (p) == 2 ? -(im) : -(re))

/* Element c of site s in a field of per_site reals per site, component arrays ld apart (soa); computed in the
 * type of ld and s (the site functions' WILSON_SIZE). */
#define WILSON_AOSOA_BLOCK 32 /* sites per block of the aosoa layout: a warp */
#define WILSON_INDEX(soa, ld, s, per_site, c)                                                                \
    ((soa) >= 2   ? ((s) / (soa) * (per_site) + (c)) * (soa) + (s) % (soa)                                   \
     : (soa) == 1 ? (c) * (ld) + (s)                                                                         \
                  : (s) * (per_site) + (c))

#if defined(WILSON_OPENCL)
#define WILSON_GLOBAL   global
#define WILSON_RESTRICT restrict
#ifndef WILSON_FN
#define WILSON_FN static inline __attribute__((always_inline))
#endif
/* NVIDIA's OpenCL compiler takes inline PTX: with WILSON_NV_PTX (32 or 64, REAL's bits;
 * kernels/wilson/opencl.c passes it where the compiler is NVIDIA's) links are read and outputs written with
 * the streaming hints that CUDA's __ldcs and __stcs give below, which OpenCL C cannot spell. The same
 * instructions as CUDA's headers. */
#if defined(WILSON_NV_PTX) && !defined(WILSON_LOAD_ONCE)
#if WILSON_NV_PTX == 64
#define WILSON_PTX_TYPE "f64"
#define WILSON_PTX_REG  "d"
#else
#define WILSON_PTX_TYPE "f32"
#define WILSON_PTX_REG  "f"
#endif
static inline REAL wilson_ldcs(global const REAL *p)
{
    REAL v;
    asm("ld.global.cs." WILSON_PTX_TYPE " %0, [%1];" : "=" WILSON_PTX_REG(v) : "l"(p));
    return v;
}
static inline void wilson_stcs(global REAL *p, REAL v)
{
    asm("st.global.cs." WILSON_PTX_TYPE " [%0], %1;" : : "l"(p), WILSON_PTX_REG(v) : "memory");
}
#define WILSON_LOAD_ONCE(p)     wilson_ldcs(p)
#define WILSON_STORE_ONCE(p, v) wilson_stcs((p), (v))
#endif
#elif defined(__CUDACC__)
#define WILSON_GLOBAL
#define WILSON_RESTRICT __restrict__
#ifndef WILSON_FN
#define WILSON_FN static __device__ __forceinline__
#endif
#ifndef WILSON_LOAD
#define WILSON_LOAD(p) __ldg(p)
#endif
/* Links are read once per application and outputs written once: streaming (evict-first), so that the L2
 * keeps the input spinors, which eight output sites read. */
#ifndef WILSON_LOAD_ONCE
#define WILSON_LOAD_ONCE(p) __ldcs(p)
#endif
#ifndef WILSON_STORE_ONCE
#define WILSON_STORE_ONCE(p, v) __stcs((p), (v))
#endif
#else
#define WILSON_GLOBAL
#define WILSON_RESTRICT restrict
#ifndef WILSON_FN
#define WILSON_FN static inline __attribute__((always_inline))
#endif
#endif
#ifndef WILSON_LOAD
#define WILSON_LOAD(p) (*(p))
#endif
#ifndef WILSON_LOAD_ONCE
#define WILSON_LOAD_ONCE(p) WILSON_LOAD(p)
#endif
#ifndef WILSON_STORE_ONCE
#define WILSON_STORE_ONCE(p, v) (*(p) = (v))
#endif
/* Unroll the small constant loops completely: GCC needs its own spelling (otherwise the OpenMP site loop does
 * not vectorise); the GPU compilers unroll them anyway and take the hint. */
#ifndef WILSON_UNROLL
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && !defined(WILSON_OPENCL)
#define WILSON_UNROLL _Pragma("GCC unroll 8")
#else
#define WILSON_UNROLL _Pragma("unroll")
#endif
#endif

#endif /* PP_WILSON_DSLASH_H */

#ifdef REAL
#ifndef WILSON_SIZE
#define WILSON_SIZE size_t
#endif
#ifdef WILSON_NAME
#define WILSON_FN_NAME(name) WILSON_NAME(name)
#else
#define WILSON_FN_NAME(name) name
#endif

/*
 * Direction k = 2 mu + back of output site i: project the neighbour's spinor to a half spinor
 * h = psi_up + s B_mu psi_lo (s = -1 forward, for 1 - gamma_mu; s = +1 backward), multiply both of its colour
 * vectors by U (forward) or U^dagger (backward), and reconstruct: acc_up += chi, acc_lo += s B_mu^dagger chi.
 * Flops: 12 (projection) + 2 x 66 (two products) + 24 (accumulation, except k = 0, which assigns); the
 * multiplications by +-1 and +-i are sign flips and swaps, not counted. k must be a constant for the tables
 * and acc's indices to fold.
 */
WILSON_FN void WILSON_FN_NAME(wilson_direction)(WILSON_GLOBAL const REAL *WILSON_RESTRICT psi,
                                                WILSON_GLOBAL const REAL *WILSON_RESTRICT g, WILSON_SIZE j,
                                                WILSON_SIZE ld, WILSON_SIZE i, int soa, int k,
                                                REAL acc[4][3][2])
{
    const int mu = k >> 1, back = k & 1;
    const int sign = back ? 0 : 2; /* s as a power of i: +1 = i^0, -1 = i^2 */
    REAL h[2][3][2], chi[2][3][2];

#define WILSON_PSI(s, c, r) WILSON_LOAD(&psi[WILSON_INDEX(soa, ld, j, 24, ((s)*3 + (c)) * 2 + (r))])
#define WILSON_U(a, b, r)                                                                                    \
    WILSON_LOAD_ONCE(&g[WILSON_INDEX(soa, ld, i, 144, k * 18 + ((a)*3 + (b)) * 2 + (r))])
    WILSON_UNROLL
    for (int r = 0; r < 2; r++) {
        const int q = WILSON_B_COL(mu, r), p = (WILSON_B_POW(mu, r) + sign) & 3;
        WILSON_UNROLL
        for (int c = 0; c < 3; c++) {
            REAL re = WILSON_PSI(2 + q, c, 0), im = WILSON_PSI(2 + q, c, 1);
            h[r][c][0] = WILSON_PSI(r, c, 0) + WILSON_IPOW_RE(p, re, im);
            h[r][c][1] = WILSON_PSI(r, c, 1) + WILSON_IPOW_IM(p, re, im);
        }
    }
    WILSON_UNROLL
    for (int r = 0; r < 2; r++) {
        WILSON_UNROLL
        for (int a = 0; a < 3; a++) {
            REAL sr = 0, si = 0;
            WILSON_UNROLL
            for (int b = 0; b < 3; b++) {
                /* forward U[a][b]; backward U^dagger[a][b] = conj(U[b][a]) */
                REAL ur = back ? WILSON_U(b, a, 0) : WILSON_U(a, b, 0);
                REAL ui = back ? -WILSON_U(b, a, 1) : WILSON_U(a, b, 1);
                REAL hr = h[r][b][0], hi = h[r][b][1];
                if (b == 0) {
                    sr = ur * hr - ui * hi;
                    si = ur * hi + ui * hr;
                } else {
                    sr += ur * hr - ui * hi;
                    si += ur * hi + ui * hr;
                }
            }
            chi[r][a][0] = sr;
            chi[r][a][1] = si;
        }
    }
#undef WILSON_PSI
#undef WILSON_U
    WILSON_UNROLL
    for (int r = 0; r < 2; r++) {
        /* (s B^dagger chi) has chi_r times s conj(i^p) in row q */
        const int q = WILSON_B_COL(mu, r), p = (4 - WILSON_B_POW(mu, r) + sign) & 3;
        WILSON_UNROLL
        for (int c = 0; c < 3; c++) {
            REAL re = chi[r][c][0], im = chi[r][c][1];
            if (k == 0) {
                acc[r][c][0] = re;
                acc[r][c][1] = im;
                acc[2 + q][c][0] = WILSON_IPOW_RE(p, re, im);
                acc[2 + q][c][1] = WILSON_IPOW_IM(p, re, im);
            } else {
                acc[r][c][0] += re;
                acc[r][c][1] += im;
                acc[2 + q][c][0] += WILSON_IPOW_RE(p, re, im);
                acc[2 + q][c][1] += WILSON_IPOW_IM(p, re, im);
            }
        }
    }
}

/* out(i) = (D psi)(i) for output site i, its 8 input sites j[k] (k = 2 mu + back), in layout soa (a constant)
 * with component arrays ld apart. 8 x (12 + 2 x 66) + 7 x 24 = 1320 flops. */
WILSON_FN void WILSON_FN_NAME(wilson_site_hops)(WILSON_GLOBAL const REAL *WILSON_RESTRICT psi,
                                                WILSON_GLOBAL const REAL *WILSON_RESTRICT g,
                                                const WILSON_SIZE j[8],
                                                WILSON_GLOBAL REAL *WILSON_RESTRICT out, WILSON_SIZE ld,
                                                WILSON_SIZE i, int soa)
{
    REAL acc[4][3][2];

    WILSON_FN_NAME(wilson_direction)(psi, g, j[0], ld, i, soa, 0, acc);
    WILSON_FN_NAME(wilson_direction)(psi, g, j[1], ld, i, soa, 1, acc);
    WILSON_FN_NAME(wilson_direction)(psi, g, j[2], ld, i, soa, 2, acc);
    WILSON_FN_NAME(wilson_direction)(psi, g, j[3], ld, i, soa, 3, acc);
    WILSON_FN_NAME(wilson_direction)(psi, g, j[4], ld, i, soa, 4, acc);
    WILSON_FN_NAME(wilson_direction)(psi, g, j[5], ld, i, soa, 5, acc);
    WILSON_FN_NAME(wilson_direction)(psi, g, j[6], ld, i, soa, 6, acc);
    WILSON_FN_NAME(wilson_direction)(psi, g, j[7], ld, i, soa, 7, acc);
    WILSON_UNROLL
    for (int s = 0; s < 4; s++) {
        WILSON_UNROLL
        for (int c = 0; c < 3; c++) {
            WILSON_STORE_ONCE(&out[WILSON_INDEX(soa, ld, i, 24, (s * 3 + c) * 2)], acc[s][c][0]);
            WILSON_STORE_ONCE(&out[WILSON_INDEX(soa, ld, i, 24, (s * 3 + c) * 2 + 1)], acc[s][c][1]);
        }
    }
}

/* out(i) with the input sites from the table nbr[k n + i]. */
WILSON_FN void WILSON_FN_NAME(wilson_site)(WILSON_GLOBAL const REAL *WILSON_RESTRICT psi,
                                           WILSON_GLOBAL const REAL *WILSON_RESTRICT g,
                                           WILSON_GLOBAL const unsigned int *WILSON_RESTRICT nbr,
                                           WILSON_GLOBAL REAL *WILSON_RESTRICT out, WILSON_SIZE n,
                                           WILSON_SIZE ld, WILSON_SIZE i, int soa)
{
    WILSON_SIZE j[8];

    WILSON_UNROLL
    for (int k = 0; k < 8; k++)
        j[k] = WILSON_LOAD(&nbr[(WILSON_SIZE)k * n + i]);
    WILSON_FN_NAME(wilson_site_hops)(psi, g, j, out, ld, i, soa);
}

/* out(i) with the input sites computed from the lattice shape (kernels/lattice_hop.h: hx = X / 2, then Y, Z,
 * T), as the driver's table has them: no table to read (8 x 4 bytes per site less traffic). */
WILSON_FN void WILSON_FN_NAME(wilson_site_lattice)(WILSON_GLOBAL const REAL *WILSON_RESTRICT psi,
                                                   WILSON_GLOBAL const REAL *WILSON_RESTRICT g,
                                                   WILSON_GLOBAL REAL *WILSON_RESTRICT out, unsigned hx,
                                                   unsigned ny, unsigned nz, unsigned nt, WILSON_SIZE ld,
                                                   WILSON_SIZE i, int soa)
{
    WILSON_SIZE j[8];

    WILSON_UNROLL
    for (int k = 0; k < 8; k++)
        j[k] = lattice_hop_odd((unsigned)i, hx, ny, nz, nt, k >> 1, k & 1 ? -1 : 1);
    WILSON_FN_NAME(wilson_site_hops)(psi, g, j, out, ld, i, soa);
}

#undef WILSON_FN_NAME
#endif /* REAL */
