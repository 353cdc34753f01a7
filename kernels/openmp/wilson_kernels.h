/*
 * wilson_kernels: the OpenMP Wilson Dslash, written once and instantiated per precision and layout by
 * wilson.c, which defines REAL (the element type), KERNEL(name) (the function name for that instance) and the
 * accessors PSI(j, s, c, r), LINK(i, k, a, b, r) and OUT(i, s, c, r) (real part r of spin s, colour c of site
 * j; element (a, b) of link k of output site i) over the names psi, g, out and ld (the structure-of-arrays
 * stride) in scope.
 *
 * One output site: for each of the 8 directions k = 2 mu + back, project the neighbour's spinor to a half
 * spinor h = psi_up + s B_mu psi_lo (s = -1 forward, for 1 - gamma_mu; s = +1 backward), multiply both of its
 * colour vectors by U (forward) or U^dagger (backward), and reconstruct: acc_up += chi, acc_lo += s
 * B_mu^dagger chi, where gamma_mu = [[0, B_mu], [B_mu^dagger, 0]] in the DeGrand-Rossi basis
 * (docs/METHODOLOGY.md). Each row of B_mu has one entry i^p at column q. Flops: 8 x (12 + 2 x 66) + 7 x 24 =
 * 1320 (the first direction assigns rather than adds); multiplications by +-1 and +-i are sign flips and
 * swaps, not counted. Every small loop is unrolled completely (GCC unroll), which leaves the site loop
 * one straight body that the vectoriser can take.
 */

static inline __attribute__((always_inline)) void
KERNEL(direction)(const REAL *restrict psi, const REAL *restrict g, const uint32_t *restrict nbr, size_t n,
                  size_t ld, size_t i, int k, REAL acc[4][3][2])
{
    const int mu = k >> 1, back = k & 1;
    const int sign = back ? 0 : 2; /* s as a power of i: +1 = i^0, -1 = i^2 */
    const size_t j = nbr[(size_t)k * n + i];
    REAL h[2][3][2], chi[2][3][2];

    (void)ld; /* the aos accessors do not use it */
#pragma GCC unroll 4
    for (int r = 0; r < 2; r++) {
        const int q = wilson_b_col[mu][r], p = (wilson_b_pow[mu][r] + sign) & 3;
#pragma GCC unroll 4
        for (int c = 0; c < 3; c++) {
            REAL re = PSI(j, 2 + q, c, 0), im = PSI(j, 2 + q, c, 1);
            h[r][c][0] = PSI(j, r, c, 0) + IPOW_RE(p, re, im);
            h[r][c][1] = PSI(j, r, c, 1) + IPOW_IM(p, re, im);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < 2; r++)
#pragma GCC unroll 4
        for (int a = 0; a < 3; a++) {
            REAL sr = 0, si = 0;
#pragma GCC unroll 4
            for (int b = 0; b < 3; b++) {
                /* forward U[a][b]; backward U^dagger[a][b] = conj(U[b][a]) */
                REAL ur = back ? LINK(i, k, b, a, 0) : LINK(i, k, a, b, 0);
                REAL ui = back ? -LINK(i, k, b, a, 1) : LINK(i, k, a, b, 1);
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
#pragma GCC unroll 4
    for (int r = 0; r < 2; r++) {
        /* (s B^dagger chi) has chi_r times s conj(i^p) in row q */
        const int q = wilson_b_col[mu][r], p = (4 - wilson_b_pow[mu][r] + sign) & 3;
#pragma GCC unroll 4
        for (int c = 0; c < 3; c++) {
            REAL re = chi[r][c][0], im = chi[r][c][1];
            if (k == 0) {
                acc[r][c][0] = re;
                acc[r][c][1] = im;
                acc[2 + q][c][0] = IPOW_RE(p, re, im);
                acc[2 + q][c][1] = IPOW_IM(p, re, im);
            } else {
                acc[r][c][0] += re;
                acc[r][c][1] += im;
                acc[2 + q][c][0] += IPOW_RE(p, re, im);
                acc[2 + q][c][1] += IPOW_IM(p, re, im);
            }
        }
    }
}

static inline __attribute__((always_inline)) void
KERNEL(site)(const REAL *restrict psi, const REAL *restrict g, const uint32_t *restrict nbr,
             REAL *restrict out, size_t n, size_t ld, size_t i)
{
    REAL acc[4][3][2];

    KERNEL(direction)(psi, g, nbr, n, ld, i, 0, acc);
    KERNEL(direction)(psi, g, nbr, n, ld, i, 1, acc);
    KERNEL(direction)(psi, g, nbr, n, ld, i, 2, acc);
    KERNEL(direction)(psi, g, nbr, n, ld, i, 3, acc);
    KERNEL(direction)(psi, g, nbr, n, ld, i, 4, acc);
    KERNEL(direction)(psi, g, nbr, n, ld, i, 5, acc);
    KERNEL(direction)(psi, g, nbr, n, ld, i, 6, acc);
    KERNEL(direction)(psi, g, nbr, n, ld, i, 7, acc);
#pragma GCC unroll 4
    for (int s = 0; s < 4; s++)
#pragma GCC unroll 4
        for (int c = 0; c < 3; c++) {
            OUT(i, s, c, 0) = acc[s][c][0];
            OUT(i, s, c, 1) = acc[s][c][1];
        }
}

/* The output sites [lo, hi): the loop the vector units see, compiled once per instruction set. */
static OPENMP_CLONES void KERNEL(sites)(const REAL *restrict psi, const REAL *restrict g,
                                        const uint32_t *restrict nbr, REAL *restrict out, size_t n, size_t ld,
                                        size_t lo, size_t hi)
{
#if WILSON_SIMD
#pragma omp simd
#endif
    for (size_t i = lo; i < hi; i++)
        KERNEL(site)(psi, g, nbr, out, n, ld, i);
}

static void KERNEL(dslash)(struct pp_ctx *x)
{
    const REAL *restrict psi = x->w.spinor, *restrict g = x->w.gauge;
    const uint32_t *restrict nbr = x->w.nbr;
    REAL *restrict out = x->w.out;
    const size_t n = x->w.n, ld = x->w.ld;

#pragma omp parallel
    {
        size_t lo, hi;
        openmp_share(n, &lo, &hi);
        KERNEL(sites)(psi, g, nbr, out, n, ld, lo, hi);
    }
}

/* Host canonical order (double) into the layout, in parallel with the kernel's schedule (first touch). */
static void KERNEL(upload)(struct pp_ctx *x, const double *gauge, const double *spinor)
{
    REAL *restrict psi = x->w.spinor, *restrict g = x->w.gauge, *restrict out = x->w.out;
    const size_t n = x->w.n, ld = x->w.ld;

    (void)ld;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        for (int s = 0; s < 4; s++)
            for (int c = 0; c < 3; c++)
                for (int r = 0; r < 2; r++) {
                    PSI(i, s, c, r) = (REAL)spinor[i * 24 + (size_t)((s * 3 + c) * 2 + r)];
                    OUT(i, s, c, r) = 0;
                }
        for (int k = 0; k < 8; k++)
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    for (int r = 0; r < 2; r++)
                        LINK(i, k, a, b, r) = (REAL)gauge[i * 144 + (size_t)(k * 18 + (a * 3 + b) * 2 + r)];
    }
}

static void KERNEL(download)(struct pp_ctx *x, double *host)
{
    const REAL *restrict out = x->w.out;
    const size_t n = x->w.n, ld = x->w.ld;

    (void)ld;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        for (int s = 0; s < 4; s++)
            for (int c = 0; c < 3; c++)
                for (int r = 0; r < 2; r++)
                    host[i * 24 + (size_t)((s * 3 + c) * 2 + r)] = (double)OUT(i, s, c, r);
}
