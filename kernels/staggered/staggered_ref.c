/*
 * staggered_ref: serial reference for the MILC staggered Dslash. Pure functions, any thread.
 *
 * Written as the paper's five loops with nothing hoisted: for each target site, each term l (0: fat link
 * forward, 1: long link forward, 2: fat link backward, 3: long link backward), each direction k, each row i
 * and column j, one complex product added into C(x)_i with the term's sign. The backward terms use the link
 * stored at the neighbour, x - k or x - 3k, and read it transposed and conjugated.
 */
#include "staggered_ref.h"

#include <math.h>
#include <string.h>

/* Per term l: the displacement along k, the sign of the term, and whether it uses the long link. */
static const int term_step[4] = {+1, +3, -1, -3};
static const double term_sign[4] = {+1.0, +1.0, -1.0, -1.0};
static const int term_long[4] = {0, 1, 0, 1};

/* The site d steps from c along k, periodic (d in -3..3, extents >= 4). */
static size_t displaced(const unsigned dims[4], const unsigned c[4], int k, int d)
{
    unsigned e[4];

    memcpy(e, c, sizeof(e));
    e[k] = (unsigned)(((int)c[k] + d + 3 * (int)dims[k]) % (int)dims[k]);
    return e[0] + (size_t)dims[0] * (e[1] + (size_t)dims[1] * (e[2] + (size_t)dims[2] * e[3]));
}

static double norm2(const double *v)
{
    double sum = 0;

    for (int a = 0; a < 6; a++)
        sum += v[a] * v[a];
    return sqrt(sum);
}

void staggered_ref_dslash(const unsigned dims[4], int parity, const double *fat, const double *lng,
                          const double *b, double *out, double *scale)
{
    size_t volume = (size_t)dims[0] * dims[1] * dims[2] * dims[3];

    for (size_t s = 0; s < volume; s++) {
        unsigned c[4];
        size_t r = s;
        double *acc = &out[s * 6];

        memset(acc, 0, 6 * sizeof(double));
        if (scale)
            scale[s] = 0;
        for (int mu = 0; mu < 4; mu++) {
            c[mu] = (unsigned)(r % dims[mu]);
            r /= dims[mu];
        }
        if ((int)((c[0] + c[1] + c[2] + c[3]) & 1) != parity)
            continue;
        for (int l = 0; l < 4; l++)
            for (int k = 0; k < 4; k++) {
                size_t nb = displaced(dims, c, k, term_step[l]);
                int back = term_step[l] < 0;
                const double *field = term_long[l] ? lng : fat;
                const double *m = &field[((back ? nb : s) * 4 + (size_t)k) * 18];
                const double *v = &b[nb * 6];

                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++) {
                        /* forward: U[i][j]; backward: U^dagger[i][j] = conj(U[j][i]) */
                        double mr = back ? m[(j * 3 + i) * 2] : m[(i * 3 + j) * 2];
                        double mi = back ? -m[(j * 3 + i) * 2 + 1] : m[(i * 3 + j) * 2 + 1];
                        acc[i * 2] += term_sign[l] * (mr * v[j * 2] - mi * v[j * 2 + 1]);
                        acc[i * 2 + 1] += term_sign[l] * (mr * v[j * 2 + 1] + mi * v[j * 2]);
                    }
                if (scale)
                    scale[s] += norm2(v);
            }
    }
}
