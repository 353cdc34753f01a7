/*
 * cg_ref: the CG suite's problem and its independent serial reference (paper 002, Sec. 5.3-5.4).
 *
 * The problem is miniFE's: the 27-point finite-element heat-conduction matrix of trilinear hexahedra on a
 * cube of n x n x n cells, (n + 1)^3 nodes numbered x-slowest, z-fastest, one row per node, in CRS with
 * 32-bit offsets and column indices and every neighbour's column stored (nnz = (3n + 1)^3: 27 entries for an
 * interior node, 18, 12 or 8 on a face, edge or corner). Boundary nodes are Dirichlet rows (1 on the
 * diagonal, explicit zeros elsewhere); interior rows hold the element stencil scaled by h = 1 / n (centre
 * 8h/3, edge neighbours -h/6, corner neighbours -h/12, face neighbours miniFE's -2.1896e-10 h) with zeros
 * in the columns of boundary nodes, so the matrix is symmetric positive definite. The right-hand side is
 * miniFE's generate_miniFE_vector, written for every n >= 1 (docs/METHODOLOGY.md): a unit source (h^3 per
 * interior node), temperature 1 on the face z = 1 and 0 on the other faces, the face's interior nodes lifted
 * into the rows next to it. Builders are parallel (OpenMP) but produce the same arrays for any team; the
 * reference kernels are serial. Any thread.
 */
#ifndef PP_CG_REF_H
#define PP_CG_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"
#include "lib/error.h"

/* Largest n: (3n + 1)^3 entries must fit a signed 32-bit offset (cuSPARSE's CUSPARSE_INDEX_32I). */
#define CG_MAX_N 429u

struct cg_matrix {
    unsigned n;        /* cells per side */
    size_t rows;       /* (n + 1)^3 */
    size_t nnz;        /* (3n + 1)^3 */
    uint32_t *row_ptr; /* rows + 1 */
    uint32_t *col;     /* nnz, ascending within a row */
    double *val;       /* nnz */
};

static inline uint64_t cg_rows(unsigned n)
{
    return (uint64_t)(n + 1) * (n + 1) * (n + 1);
}

/* The 27-point count: each node couples to its neighbours inside the grid, (2 + 3 (n - 1) + 2)^3 in all. */
static inline uint64_t cg_nnz(unsigned n)
{
    return (uint64_t)(3 * (uint64_t)n + 1) * (3 * (uint64_t)n + 1) * (3 * (uint64_t)n + 1);
}

/* Build the matrix of n cells per side (1 <= n <= CG_MAX_N). -1 with err when out of host memory. */
int cg_matrix_build(unsigned n, struct cg_matrix *m, struct pp_error *err) PP_WUR;
void cg_matrix_release(struct cg_matrix *m); /* safe on a zeroed or released matrix */

/* miniFE's right-hand side for the matrix's grid, rows doubles. */
void cg_rhs(unsigned n, double *b);

/* The operand vectors of the standalone kernels: x[i] in [0.5, 1.5), 21 significant bits, so the same in
 * fp32 and fp64; seed picks one of several independent vectors. */
void cg_test_vector(size_t rows, unsigned seed, double *x);

/* Round x[0..len) to the working precision, in place. */
void cg_round(double *x, size_t len, enum pp_precision prec);

/* y = A x in double, with the matrix values rounded to prec first (x is taken as given); scale[i] (may be
 * NULL) = sum |a_ij x_j|, the row's magnitude, against which its error is measured. Serial. */
void cg_ref_spmv(const struct cg_matrix *m, enum pp_precision prec, const double *x, double *y,
                 double *scale);

enum cg_status {
    CG_DONE_ITERATIONS = 0, /* ran every iteration asked for */
    CG_CONVERGED,           /* stopped: relative residual at or below the tolerance (or exactly 0) */
    CG_BREAKDOWN,           /* stopped: p.Ap <= 0 or not finite */
};

const char *cg_status_name(enum cg_status s);

/* The solve's outcome, as the device loop (kernels/cg/cg.c) and the reference both report it. */
struct cg_solve {
    enum cg_status status;
    unsigned iterations;  /* iterations completed */
    double *residual;     /* ||r_k|| for k = 0 .. iterations (caller-owned, iterations asked + 1 entries) */
    double breakdown_pap; /* p.Ap at the breakdown */
};

/* Serial CG in the working precision from x = 0, every sum (dots, SPMV rows) in double rounded once to the
 * precision: the paper's loop with 3 AXPBY, 2 DOT and 1 SPMV every iteration (kernels/cg/cg.c); fills s
 * (s->residual must hold iterations + 1) and x (rows, widened; may be NULL). -1 with err when out of host
 * memory. */
int cg_ref_solve(const struct cg_matrix *m, enum pp_precision prec, const double *b, unsigned iterations,
                 double tolerance, double *x, struct cg_solve *s, struct pp_error *err) PP_WUR;

#endif
