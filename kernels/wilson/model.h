/*
 * wilson/model: the Wilson Dslash's byte and flop models (paper 000, Eq. 2; docs/METHODOLOGY.md), the one
 * definition the driver (kernels/wilson/wilson.c) states in a report and ppbenchd holds a report to (the
 * suite table's model hook, kernels/suite.h). Per application on V/2 output sites; the layout changes no
 * figure. Pure; any thread.
 */
#ifndef PP_WILSON_MODEL_H
#define PP_WILSON_MODEL_H

#include <jansson.h>

#include "kernels/backend.h"
#include "kernels/suite.h"

/* Bytes moved per output site (Eq. 2, R = 0, r = 0): (8 x 18 + 8 x 24 + 24) F = 360 F. */
double wilson_bytes_per_site(enum pp_precision prec);

/* Compulsory bytes per output site (Eq. 2, R = 7, r = 0): each of the 8 links once (no link serves two output
 * sites), each input spinor once (V/2 of them, one per output site), the output once: (144 + 24 + 24) F. */
double wilson_bytes_compulsory_per_site(enum pp_precision prec);

/* The dslash's models per application on the lattice dims in prec: the per-site figures above and
 * WILSON_FLOPS_PER_SITE times the V/2 output sites. */
void wilson_model(const unsigned dims[4], enum pp_precision prec, struct suite_model *out);

/* The suite table's hook: the dslash's models (out[0]) from problem.lattice (the lattice that ran, the
 * device's where the job left it: held to the extent rule, and to problem.size, its sites) and
 * problem.precision. */
int wilson_model_problem(const json_t *problem, struct suite_model *out, struct suite_error *e) PP_WUR;

#endif
