/*
 * su3: the 3x3 complex matrix algebra the lattice unit tests build gauge transformations from (kept apart
 * from the code under test). Matrices are [a][b][re, im], colour vectors [a][re, im].
 */
#ifndef PP_TEST_SU3_H
#define PP_TEST_SU3_H

/* c = a b, or a b^dagger when dagger_b */
static inline void su3_mul(const double *a, const double *b, int dagger_b, double *c)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double re = 0, im = 0;
            for (int k = 0; k < 3; k++) {
                double ar = a[(i * 3 + k) * 2], ai = a[(i * 3 + k) * 2 + 1];
                const double *e = dagger_b ? &b[(j * 3 + k) * 2] : &b[(k * 3 + j) * 2];
                double br = e[0], bi = dagger_b ? -e[1] : e[1];
                re += ar * br - ai * bi;
                im += ar * bi + ai * br;
            }
            c[(i * 3 + j) * 2] = re;
            c[(i * 3 + j) * 2 + 1] = im;
        }
}

/* w = g v for one colour vector */
static inline void su3_times_vec(const double *g, const double *v, double *w)
{
    for (int a = 0; a < 3; a++) {
        double re = 0, im = 0;
        for (int b = 0; b < 3; b++) {
            double gr = g[(a * 3 + b) * 2], gi = g[(a * 3 + b) * 2 + 1];
            re += gr * v[b * 2] - gi * v[b * 2 + 1];
            im += gr * v[b * 2 + 1] + gi * v[b * 2];
        }
        w[a * 2] = re;
        w[a * 2 + 1] = im;
    }
}

#endif
