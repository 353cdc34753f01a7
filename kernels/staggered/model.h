/*
 * staggered/model: the MILC staggered Dslash's byte and flop models (paper 001; docs/METHODOLOGY.md), the one
 * definition the driver (kernels/staggered/staggered.c) states in a report and ppbenchd holds a report to
 * (the suite table's model hook, kernels/suite.h). Per application on V/2 output sites; strategy, order and
 * work-group change no figure. Pure; any thread.
 */
#ifndef PP_STAGGERED_MODEL_H
#define PP_STAGGERED_MODEL_H

#include <jansson.h>

#include "kernels/backend.h"
#include "kernels/suite.h"

/* Bytes per output site with no reuse: 16 links of 18 reals, 16 input vectors and one output of 6 reals. */
double staggered_bytes_per_site(enum pp_precision prec);

/* Compulsory bytes per output site: its 16 matrices (no link serves two output sites: U_k(x), W_k(x) live on
 * the odd sites, U_k(x - k), W_k(x - 3k) on the even ones), one input vector (V/2 of them), the output:
 * (16 x 18 + 6 + 6) F = 300 F, 2400 B in fp64. */
double staggered_bytes_compulsory_per_site(enum pp_precision prec);

/* Flop per application on a lattice: 1146 per output site (600,834,048 at 32^4). */
double staggered_flops(const unsigned dims[4]);

/* The dslash's models per application on the lattice dims in prec: the three above. */
void staggered_model(const unsigned dims[4], enum pp_precision prec, struct suite_model *out);

/* The suite table's hook: the dslash's models (out[0]) from problem.lattice (the lattice that ran, the
 * device's where the job left it: held to the extent rule, and to problem.size, its sites) and
 * problem.precision. */
int staggered_model_problem(const json_t *problem, struct suite_model *out, struct suite_error *e) PP_WUR;

#endif
