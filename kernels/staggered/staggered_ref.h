/*
 * staggered_ref: the independent serial reference for the MILC staggered Dslash (paper 001, Eq. 1 with first
 * and third neighbours), in double precision, on the full lattice in lexicographic order. It is the plain
 * five-loop sum (site, term l, direction k, row i, column j) over the unpacked fields: it finds neighbours
 * from its own coordinate arithmetic and takes the adjoints of the backward links on the fly, so it shares
 * neither the driver's packing, its neighbour table nor its stored adjoints with what it checks.
 */
#ifndef PP_STAGGERED_REF_H
#define PP_STAGGERED_REF_H

#include <stddef.h>

/*
 * out(x) = sum_k U_k(x) B(x + k) + W_k(x) B(x + 3k) - U_k(x - k)^dagger B(x - k) - W_k(x - 3k)^dagger B(x -
 * 3k) periodic, on the sites of parity (x + y + z + t) mod 2 == parity; the other sites of out are set to
 * zero. fat[s][k][a][b][re, im] (U), lng[s][k][a][b][re, im] (W), b and out [s][colour][re, im], s
 * lexicographic. scale (may be NULL): per site, the sum over the 16 terms of |B(neighbour)|_2, which bounds
 * every output component when the links are unitary: the verification's yardstick.
 */
void staggered_ref_dslash(const unsigned dims[4], int parity, const double *fat, const double *lng,
                          const double *b, double *out, double *scale);

#endif
