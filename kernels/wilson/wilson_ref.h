/*
 * wilson_ref: the independent serial reference for the Wilson Dslash, in double precision, on the full
 * lattice in lexicographic order. It multiplies full spinors by (1 -+ gamma_mu) with explicit 4x4 gamma
 * matrices (no spin projection) and finds neighbours from coordinates, so it shares neither the projection
 * tables nor the driver's packing and neighbour tables with what it checks.
 */
#ifndef PP_WILSON_REF_H
#define PP_WILSON_REF_H

#include <stddef.h>

/* gamma_mu of the DeGrand-Rossi basis (Chroma's), mu = 0..3 for x, y, z, t: g[row][col][re, im]. */
void wilson_ref_gamma(int mu, double g[4][4][2]);

/* Lexicographic index of (x, y, z, t): x + X (y + Y (z + Z t)); and back. */
size_t wilson_ref_index(const unsigned dims[4], const unsigned c[4]);
void wilson_ref_coords(const unsigned dims[4], size_t s, unsigned c[4]);

/*
 * out(x) = sum_mu (1 - gamma_mu) U_mu(x) psi(x + mu) + (1 + gamma_mu) U_mu(x - mu)^dagger psi(x - mu),
 * periodic, on the sites of parity (x + y + z + t) mod 2 == parity; the other sites of out are set to zero.
 *   u[s][mu][a][b][re, im], psi and out [s][spin][colour][re, im], s lexicographic.
 * scale (may be NULL): per site, sum over the 8 neighbours of |psi(neighbour)|_2, which bounds every output
 * component (|U| = 1, |1 -+ gamma| = 2): the verification's yardstick.
 */
void wilson_ref_dslash(const unsigned dims[4], int parity, const double *u, const double *psi, double *out,
                       double *scale);

#endif
