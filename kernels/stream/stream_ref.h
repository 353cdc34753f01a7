/*
 * stream_ref: the independent serial reference for STREAM. It replays the run on scalars (every element of
 * an array holds the same value in BabelStream's scheme) in the working precision, then checks every element
 * of the device's arrays and the dot sum against that replay.
 */
#ifndef PP_STREAM_REF_H
#define PP_STREAM_REF_H

#include <stddef.h>

#include "kernels/stream/stream.h"

struct stream_gold {
    double a, b, c; /* expected final values, rounded to the working precision */
    double sum;     /* expected final dot sum (of the last classic iteration's a and b) */
};

/* Replay numtimes iterations of the selected kernels, in the driver's order, in the working precision. */
void stream_ref_replay(const struct stream_params *p, struct stream_gold *gold);

/* Per-element bound: 100 machine epsilons of the precision (BabelStream's), relative. */
double stream_ref_element_tolerance(enum pp_precision prec);

/* Dot bound: relative, eps * (chain + 2) and never under 100 eps; chain from the backend's layout. */
double stream_ref_dot_tolerance(enum pp_precision prec, unsigned long long chain);

/*
 * Check the n elements of one array (float or double per prec) against expect. Returns 1 when every element
 * is within tol, else 0 and the worst index, its value and its relative error (NaN counts as worst).
 */
int stream_ref_check_array(const void *x, size_t n, enum pp_precision prec, double expect, double tol,
                           size_t *worst, double *worst_value, double *worst_err);

#endif
