/*
 * cg_ref: miniFE's matrix and right-hand side for any n, the standalone kernels' operand vectors, and the
 * reference SPMV and CG in double. Owns nothing beyond the struct cg_matrix arrays it allocates (freed by
 * cg_matrix_release). The reference SPMV's rows are split over the OpenMP team; each row's sum is serial and
 * rows are independent, so its result is bit for bit the serial loop's. Any thread.
 */
#include "cg_ref.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Neighbours of coordinate c in [0, n] along one axis: itself and those of c - 1, c + 1 inside the grid. */
static unsigned axis_count(unsigned c, unsigned n)
{
    return 3u - (c == 0) - (c == n);
}

static bool on_boundary(unsigned i, unsigned j, unsigned k, unsigned n)
{
    return i == 0 || j == 0 || k == 0 || i == n || j == n || k == n;
}

/* miniFE's stencil value by the neighbour's distance class: d = |di| + |dj| + |dk| (0 centre .. 3 corner). */
static double stencil(int d, unsigned n)
{
    static const double coef[4] = {8.0 / 3.0, -2.18960e-10, -0.5 / 3.0, -0.25 / 3.0};

    return coef[d] / (double)n;
}

void cg_matrix_release(struct cg_matrix *m)
{
    free(m->row_ptr);
    free(m->col);
    free(m->val);
    memset(m, 0, sizeof(*m));
}

int cg_matrix_build(unsigned n, struct cg_matrix *m, struct pp_error *err)
{
    const unsigned n1 = n + 1;
    size_t r = 0;

    memset(m, 0, sizeof(*m));
    if (n < 1 || n > CG_MAX_N)
        return pp_error_set(err, "n must be from 1 to %u, got %u", CG_MAX_N, n);
    m->n = n;
    m->rows = (size_t)cg_rows(n);
    m->nnz = (size_t)cg_nnz(n);
    m->row_ptr = malloc((m->rows + 1) * sizeof(uint32_t));
    m->col = malloc(m->nnz * sizeof(uint32_t));
    m->val = malloc(m->nnz * sizeof(double));
    if (!m->row_ptr || !m->col || !m->val) {
        cg_matrix_release(m);
        return pp_error_set(err, "out of host memory for the matrix of n = %u (%zu rows, %zu entries)", n,
                            (size_t)cg_rows(n), (size_t)cg_nnz(n));
    }
    m->row_ptr[0] = 0;
    for (unsigned i = 0; i < n1; i++)
        for (unsigned j = 0; j < n1; j++)
            for (unsigned k = 0; k < n1; k++, r++)
                m->row_ptr[r + 1] = m->row_ptr[r] + axis_count(i, n) * axis_count(j, n) * axis_count(k, n);

#pragma omp parallel for schedule(static)
    for (size_t row = 0; row < m->rows; row++) {
        const unsigned i = (unsigned)(row / ((size_t)n1 * n1)), j = (unsigned)(row / n1 % n1),
                       k = (unsigned)(row % n1);
        const bool dirichlet = on_boundary(i, j, k, n);
        size_t e = m->row_ptr[row];

        for (int di = -1; di <= 1; di++)
            for (int dj = -1; dj <= 1; dj++)
                for (int dk = -1; dk <= 1; dk++) {
                    const long ii = (long)i + di, jj = (long)j + dj, kk = (long)k + dk;
                    const int d = abs(di) + abs(dj) + abs(dk);

                    if (ii < 0 || jj < 0 || kk < 0 || ii > n || jj > n || kk > n)
                        continue;
                    m->col[e] = (uint32_t)(((size_t)ii * n1 + (size_t)jj) * n1 + (size_t)kk);
                    if (dirichlet)
                        m->val[e] = d == 0 ? 1.0 : 0.0;
                    else
                        m->val[e] =
                            on_boundary((unsigned)ii, (unsigned)jj, (unsigned)kk, n) ? 0.0 : stencil(d, n);
                    e++;
                }
    }
    return 0;
}

/*
 * miniFE's generate_miniFE_vector, for any n: boundary rows hold the boundary temperature (1 on the face
 * z = n, whatever else the node touches; 0 elsewhere); interior rows a unit source, h^3, plus, next to the
 * face z = n, the coupling to the face's interior nodes at temperature 1: h (1/6 per edge neighbour, 1/12
 * per corner neighbour, the face neighbour counted as 0) over the neighbours (i', j') that are interior in
 * x and y. For n >= 3 this is miniFE's vector value for value (its 1, 8/12 and 5/12 h); miniFE's generator
 * writes past its array for n < 3.
 */
void cg_rhs(unsigned n, double *b)
{
    const unsigned n1 = n + 1;
    const double h = 1.0 / (double)n;
    const size_t rows = (size_t)cg_rows(n);

#pragma omp parallel for schedule(static)
    for (size_t row = 0; row < rows; row++) {
        const unsigned i = (unsigned)(row / ((size_t)n1 * n1)), j = (unsigned)(row / n1 % n1),
                       k = (unsigned)(row % n1);
        double lift = 0.0;

        if (on_boundary(i, j, k, n)) {
            b[row] = k == n ? 1.0 : 0.0;
            continue;
        }
        if (k == n - 1)
            for (int di = -1; di <= 1; di++)
                for (int dj = -1; dj <= 1; dj++) {
                    const long ii = (long)i + di, jj = (long)j + dj;
                    if (ii >= 1 && ii <= (long)n - 1 && jj >= 1 && jj <= (long)n - 1)
                        lift += abs(di) + abs(dj) == 2   ? 1.0 / 12.0
                                : abs(di) + abs(dj) == 1 ? 1.0 / 6.0
                                                         : 0.0;
                }
        b[row] = h * h * h + h * lift;
    }
}

void cg_test_vector(size_t rows, unsigned seed, double *x)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < rows; i++) {
        uint64_t z = (uint64_t)i + 0x9e3779b97f4a7c15ull * (seed + 1); /* splitmix64 of (i, seed) */
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        x[i] = 0.5 + (double)(z >> 44) / (double)(1u << 20);
    }
}

void cg_round(double *x, size_t len, enum pp_precision prec)
{
    if (prec != PP_FP32)
        return;
    for (size_t i = 0; i < len; i++)
        x[i] = (double)(float)x[i];
}

static double rounded(double v, enum pp_precision prec)
{
    return prec == PP_FP32 ? (double)(float)v : v;
}

void cg_ref_spmv(const struct cg_matrix *m, enum pp_precision prec, const double *x, double *y, double *scale)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < m->rows; i++) {
        double sum = 0.0, mag = 0.0;

        for (uint32_t e = m->row_ptr[i]; e < m->row_ptr[i + 1]; e++) {
            const double t = rounded(m->val[e], prec) * x[m->col[e]];
            sum += t;
            mag += fabs(t);
        }
        y[i] = sum;
        if (scale)
            scale[i] = mag;
    }
}

const char *cg_status_name(enum cg_status s)
{
    switch (s) {
    case CG_DONE_ITERATIONS:
        return "iterations done";
    case CG_CONVERGED:
        return "converged";
    case CG_BREAKDOWN:
        return "breakdown";
    }
    return "?";
}

/*
 * The reference solve in the working precision T: vectors and scalars held in T, every dot summed in long
 * double and every row of the SPMV in double, each rounded once to T (a dot over rows elements is then off by
 * at most rows x LDBL_EPSILON relative, 5e-14 at 1e6 rows on x86-64, far inside a device's own rounding; a
 * plain double sum of 1e6 positive terms was seen 4e-12 off NVIDIA OpenCL's), the element-wise updates in T.
 */
#define REF_SOLVE(T, name)                                                                                   \
    static void name(const struct cg_matrix *m, const double *b, unsigned iterations, double tolerance,      \
                     T *x, T *r, T *p, T *ap, struct cg_solve *s)                                            \
    {                                                                                                        \
        const size_t n = m->rows;                                                                            \
        long double acc;                                                                                     \
        T rr, beta = 0;                                                                                      \
                                                                                                             \
        for (size_t i = 0; i < n; i++) {                                                                     \
            x[i] = 0;                                                                                        \
            r[i] = (T)b[i];                                                                                  \
        }                                                                                                    \
        acc = 0;                                                                                             \
        for (size_t i = 0; i < n; i++)                                                                       \
            acc += (long double)r[i] * r[i];                                                                 \
        rr = (T)acc;                                                                                         \
        s->residual[0] = sqrt((double)rr);                                                                   \
        for (unsigned k = 1; k <= iterations; k++) {                                                         \
            T pap, alpha, rr_new;                                                                            \
            if (rr == 0 || sqrt((double)rr) <= tolerance * s->residual[0]) {                                 \
                s->status = CG_CONVERGED;                                                                    \
                break;                                                                                       \
            }                                                                                                \
            for (size_t i = 0; i < n; i++)                                                                   \
                p[i] = k == 1 ? r[i] : r[i] + beta * p[i];                                                   \
            for (size_t i = 0; i < n; i++) {                                                                 \
                double row = 0;                                                                              \
                for (uint32_t e = m->row_ptr[i]; e < m->row_ptr[i + 1]; e++)                                 \
                    row += (double)(T)m->val[e] * p[m->col[e]];                                              \
                ap[i] = (T)row;                                                                              \
            }                                                                                                \
            acc = 0;                                                                                         \
            for (size_t i = 0; i < n; i++)                                                                   \
                acc += (long double)ap[i] * p[i];                                                            \
            pap = (T)acc;                                                                                    \
            if (!(pap > 0) || !isfinite((double)pap)) {                                                      \
                s->status = CG_BREAKDOWN;                                                                    \
                s->breakdown_pap = pap;                                                                      \
                break;                                                                                       \
            }                                                                                                \
            alpha = rr / pap;                                                                                \
            for (size_t i = 0; i < n; i++) {                                                                 \
                x[i] = x[i] + alpha * p[i];                                                                  \
                r[i] = r[i] - alpha * ap[i];                                                                 \
            }                                                                                                \
            acc = 0;                                                                                         \
            for (size_t i = 0; i < n; i++)                                                                   \
                acc += (long double)r[i] * r[i];                                                             \
            rr_new = (T)acc;                                                                                 \
            beta = rr_new / rr;                                                                              \
            rr = rr_new;                                                                                     \
            s->iterations = k;                                                                               \
            s->residual[k] = sqrt((double)rr);                                                               \
        }                                                                                                    \
    }

REF_SOLVE(float, solve_fp32)
REF_SOLVE(double, solve_fp64)

int cg_ref_solve(const struct cg_matrix *m, enum pp_precision prec, const double *b, unsigned iterations,
                 double tolerance, double *x_out, struct cg_solve *s, struct pp_error *err)
{
    const size_t n = m->rows, elem = pp_precision_bytes(prec);
    void *x = malloc(n * elem), *r = malloc(n * elem), *p = malloc(n * elem), *ap = malloc(n * elem);
    int rc = -1;

    s->status = CG_DONE_ITERATIONS;
    s->iterations = 0;
    s->breakdown_pap = 0.0;
    if (!x || !r || !p || !ap) {
        pp_error_set(err, "out of host memory for the reference solve (%zu rows)", n);
        goto out;
    }
    if (prec == PP_FP32)
        solve_fp32(m, b, iterations, tolerance, x, r, p, ap, s);
    else
        solve_fp64(m, b, iterations, tolerance, x, r, p, ap, s);
    if (x_out)
        for (size_t i = 0; i < n; i++)
            x_out[i] = prec == PP_FP32 ? (double)((float *)x)[i] : ((double *)x)[i];
    rc = 0;
out:
    free(x);
    free(r);
    free(p);
    free(ap);
    return rc;
}
