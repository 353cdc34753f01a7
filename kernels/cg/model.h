/*
 * cg/model: the CG suite's byte and flop models (paper 002; docs/METHODOLOGY.md), the one definition the
 * driver (kernels/cg/cg.c) states in a report and ppbenchd holds a report to (the suite table's model hook,
 * kernels/suite.h). They depend on the matrix only through its rows and nonzeros, which n fixes (cg_rows,
 * cg_nnz: miniFE's 27-point matrix of n cells a side). Pure; any thread.
 */
#ifndef PP_CG_MODEL_H
#define PP_CG_MODEL_H

#include <jansson.h>
#include <stddef.h>

#include "kernels/cg/cg.h"
#include "kernels/suite.h"

/* Bytes and flops per application of kernel k on a matrix of rows and nnz (model.c says what they count). */
double cg_kernel_bytes(enum cg_kernel k, size_t rows, size_t nnz, enum pp_precision prec);
double cg_kernel_flops(enum cg_kernel k, size_t rows, size_t nnz);

/* Kernel k's models at n cells a side in prec; the bytes are the compulsory traffic (bytes_compulsory too).
 */
void cg_model(enum cg_kernel k, unsigned n, enum pp_precision prec, struct suite_model *out);

/* The suite table's hook: every kernel's models (out[k], enum cg_kernel's order, the table's) from problem.n
 * (the device's where the job left it: held to 1 .. CG_MAX_N, and to problem.size, its rows) and
 * problem.precision. */
int cg_model_problem(const json_t *problem, struct suite_model *out, struct suite_error *e) PP_WUR;

#endif
