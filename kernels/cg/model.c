/*
 * cg/model: see model.h. Pure; any thread.
 */
#include "kernels/cg/model.h"

#include "kernels/cg/cg_ref.h"

/*
 * Compulsory traffic per application (docs/METHODOLOGY.md): what a kernel must move at least, each array it
 * reads once and each array it writes once, in the working precision beta:
 *   spmv  row offsets (rows + 1) x 4, column indices nnz x 4, values nnz x beta, x once (rows x beta), y once
 *         (rows x beta): x is gathered once per entry, but every element is needed once and the rest is
 *         cache reuse; the public cgsolve code counts x once per entry instead.
 *   axpby x, y read, z written: 3 rows beta; dot x, y read: 2 rows beta.
 *   cg    one iteration's six calls, each counted as above: spmv, dot(r, r) reading r once (rows beta),
 * dot(Ap, p) (2 rows beta) and three axpby (9 rows beta): spmv + 12 rows beta. Flops: spmv 2 nnz, dot 2 rows,
 * axpby 3 rows; cg 2 nnz + 2 x 2 rows + 3 x 3 rows.
 */
double cg_kernel_bytes(enum cg_kernel k, size_t rows, size_t nnz, enum pp_precision prec)
{
    const double b = (double)pp_precision_bytes(prec), r = (double)rows, z = (double)nnz;
    const double spmv = 4.0 * (r + 1) + z * (4.0 + b) + 2.0 * r * b;

    switch (k) {
    case CG_AXPBY:
        return 3.0 * r * b;
    case CG_DOT:
        return 2.0 * r * b;
    case CG_SPMV:
        return spmv;
    case CG_SOLVE:
        return spmv + 12.0 * r * b;
    default:
        return 0.0;
    }
}

double cg_kernel_flops(enum cg_kernel k, size_t rows, size_t nnz)
{
    const double r = (double)rows, z = (double)nnz;

    switch (k) {
    case CG_AXPBY:
        return 3.0 * r;
    case CG_DOT:
        return 2.0 * r;
    case CG_SPMV:
        return 2.0 * z;
    case CG_SOLVE:
        return 2.0 * z + 13.0 * r;
    default:
        return 0.0;
    }
}

void cg_model(enum cg_kernel k, unsigned n, enum pp_precision prec, struct suite_model *out)
{
    const size_t rows = (size_t)cg_rows(n), nnz = (size_t)cg_nnz(n);

    out->bytes = cg_kernel_bytes(k, rows, nnz, prec);
    out->bytes_compulsory = out->bytes; /* the suite's model is the compulsory traffic */
    out->flops = cg_kernel_flops(k, rows, nnz);
}

int cg_model_problem(const json_t *problem, struct suite_model *out, struct suite_error *e)
{
    enum pp_precision prec;
    long long n;

    if (suite_problem_precision(problem, &prec, e) || suite_problem_int(problem, "n", 1, CG_MAX_N, &n, e) ||
        suite_problem_size(problem, (long long)cg_rows((unsigned)n), "its n", e))
        return -1;
    for (unsigned k = 0; k < CG_NKERNELS; k++)
        cg_model((enum cg_kernel)k, (unsigned)n, prec, &out[k]);
    return 0;
}
