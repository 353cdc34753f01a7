/*
 * wilson_ref: serial reference for the Wilson Dslash. Pure functions, any thread.
 *
 * The gamma matrices are written out in full (the DeGrand-Rossi basis of Chroma/QDP++: gamma_x, gamma_y,
 * gamma_z, gamma_t), and each term applies U to all four spin components of the neighbour and then the 4x4
 * spin matrix (1 -+ gamma_mu): twice the arithmetic of the projection trick, on purpose.
 */
#include "wilson_ref.h"

#include <math.h>
#include <string.h>

/* Entries as (re, im); rows of 4. */
static const double gamma_tab[4][4][4][2] = {
    /* gamma_x */
    {{{0, 0}, {0, 0}, {0, 0}, {0, 1}},
     {{0, 0}, {0, 0}, {0, 1}, {0, 0}},
     {{0, 0}, {0, -1}, {0, 0}, {0, 0}},
     {{0, -1}, {0, 0}, {0, 0}, {0, 0}}},
    /* gamma_y */
    {{{0, 0}, {0, 0}, {0, 0}, {-1, 0}},
     {{0, 0}, {0, 0}, {1, 0}, {0, 0}},
     {{0, 0}, {1, 0}, {0, 0}, {0, 0}},
     {{-1, 0}, {0, 0}, {0, 0}, {0, 0}}},
    /* gamma_z */
    {{{0, 0}, {0, 0}, {0, 1}, {0, 0}},
     {{0, 0}, {0, 0}, {0, 0}, {0, -1}},
     {{0, -1}, {0, 0}, {0, 0}, {0, 0}},
     {{0, 0}, {0, 1}, {0, 0}, {0, 0}}},
    /* gamma_t */
    {{{0, 0}, {0, 0}, {1, 0}, {0, 0}},
     {{0, 0}, {0, 0}, {0, 0}, {1, 0}},
     {{1, 0}, {0, 0}, {0, 0}, {0, 0}},
     {{0, 0}, {1, 0}, {0, 0}, {0, 0}}},
};

void wilson_ref_gamma(int mu, double g[4][4][2])
{
    memcpy(g, gamma_tab[mu & 3], sizeof(gamma_tab[0]));
}

size_t wilson_ref_index(const unsigned dims[4], const unsigned c[4])
{
    return c[0] + (size_t)dims[0] * (c[1] + (size_t)dims[1] * (c[2] + (size_t)dims[2] * c[3]));
}

void wilson_ref_coords(const unsigned dims[4], size_t s, unsigned c[4])
{
    for (int mu = 0; mu < 4; mu++) {
        c[mu] = (unsigned)(s % dims[mu]);
        s /= dims[mu];
    }
}

/* v = U w (dagger 0) or U^dagger w (dagger 1) on all four spin components; u is one 3x3 link. */
static void link_times(const double *u, int dagger, const double *w, double v[4][3][2])
{
    for (int s = 0; s < 4; s++)
        for (int a = 0; a < 3; a++) {
            double re = 0, im = 0;
            for (int b = 0; b < 3; b++) {
                const double *e = dagger ? &u[(b * 3 + a) * 2] : &u[(a * 3 + b) * 2];
                double ur = e[0], ui = dagger ? -e[1] : e[1];
                double wr = w[(s * 3 + b) * 2], wi = w[(s * 3 + b) * 2 + 1];
                re += ur * wr - ui * wi;
                im += ur * wi + ui * wr;
            }
            v[s][a][0] = re;
            v[s][a][1] = im;
        }
}

/* acc += (1 + sign gamma_mu) v */
static void spin_add(int mu, double sign, const double v[4][3][2], double *acc)
{
    for (int s = 0; s < 4; s++)
        for (int c = 0; c < 3; c++) {
            double re = v[s][c][0], im = v[s][c][1];
            for (int t = 0; t < 4; t++) {
                double gr = sign * gamma_tab[mu][s][t][0], gi = sign * gamma_tab[mu][s][t][1];
                re += gr * v[t][c][0] - gi * v[t][c][1];
                im += gr * v[t][c][1] + gi * v[t][c][0];
            }
            acc[(s * 3 + c) * 2] += re;
            acc[(s * 3 + c) * 2 + 1] += im;
        }
}

static double norm2(const double *w)
{
    double sum = 0;
    for (int i = 0; i < 24; i++)
        sum += w[i] * w[i];
    return sqrt(sum);
}

void wilson_ref_dslash(const unsigned dims[4], int parity, const double *u, const double *psi, double *out,
                       double *scale)
{
    size_t volume = (size_t)dims[0] * dims[1] * dims[2] * dims[3];

    for (size_t s = 0; s < volume; s++) {
        unsigned c[4], f[4], b[4];
        double *acc = &out[s * 24], v[4][3][2];

        memset(acc, 0, 24 * sizeof(double));
        if (scale)
            scale[s] = 0;
        wilson_ref_coords(dims, s, c);
        if ((int)((c[0] + c[1] + c[2] + c[3]) & 1) != parity)
            continue;
        for (int mu = 0; mu < 4; mu++) {
            memcpy(f, c, sizeof(f));
            memcpy(b, c, sizeof(b));
            f[mu] = (c[mu] + 1) % dims[mu];
            b[mu] = (c[mu] + dims[mu] - 1) % dims[mu];
            size_t sf = wilson_ref_index(dims, f), sb = wilson_ref_index(dims, b);

            link_times(&u[(s * 4 + (size_t)mu) * 18], 0, &psi[sf * 24], v);
            spin_add(mu, -1.0, v, acc);
            link_times(&u[(sb * 4 + (size_t)mu) * 18], 1, &psi[sb * 24], v);
            spin_add(mu, +1.0, v, acc);
            if (scale)
                scale[s] += norm2(&psi[sf * 24]) + norm2(&psi[sb * 24]);
        }
    }
}
