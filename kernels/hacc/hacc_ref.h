/*
 * hacc_ref: the HACC suite's problem and its independent reference (paper 003, Sec. 2 and 5.3).
 *
 * The problem: leaves of leaf_size particles on a grid of g^3 cubic cells of side PP_HACC_CELL (grid units),
 * one leaf per cell, particles uniformly random in their cell from a fixed seed; the leaf pairs are
 * neighbouring cells, listed cell by cell (x fastest) in the 13 forward directions of the 26, the first
 * npairs of them, on the smallest grid (at least 4 cells a side) that has that many. Positions are multiples
 * of 2^-16 below 256, so they, their differences and their translates by PP_HACC_SHIFT are exact in fp32.
 *
 * The reference sums every interaction in double, particle by particle in the order of the pair list (each
 * leaf's particles summed by one OpenMP thread: the result does not depend on the team), and with each
 * output a scale: the sum of the magnitudes of its terms (and of what rounding can make of them), which the
 * driver's error bounds are relative to. Any thread.
 */
#ifndef PP_HACC_REF_H
#define PP_HACC_REF_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"
#include "kernels/hacc/hacc_ops.h"
#include "kernels/hacc/model.h"
#include "lib/error.h"

#define PP_HACC_CELL 2.0 /* a leaf's cell side, grid units */
#define PP_HACC_SEED 20240613u

/* The translation of the invariance check (exact in fp32 for positions of this problem). */
static const double PP_HACC_SHIFT[3] = {-5.25, 3.5, 1.125};

struct hacc_problem {
    unsigned leaf_size, grid;
    size_t nleaves, npairs, nparticles;
    size_t touched; /* leaves the pair list names (the rest of the grid is never read): hacc_touched_leaves */
    double *in[PP_HACC_NIN]; /* nparticles each, rounded to the working precision */
    uint32_t *pairs;         /* 2 npairs: a0, b0, a1, b1, ... */
};

/* Build the problem; -1 with err when out of host memory. */
int hacc_problem_build(struct hacc_problem *p, unsigned leaf_size, size_t npairs, enum pp_precision prec,
                       struct pp_error *err) PP_WUR;
void hacc_problem_release(struct hacc_problem *p); /* safe on a zeroed or released problem */

/* The leaf of the grid farthest from leaf a (a corner): no particle of it is within reach of a's. */
uint32_t hacc_far_leaf(const struct hacc_problem *p, uint32_t a);

/*
 * Kernel k's outputs in double: out[o][i] for o < PP_HACC_NOUT (gravity leaves DU at 0), and the scales of
 * each particle's acceleration (scale_acc) and energy rate (scale_du, 0 for gravity). *chain gets the
 * most interactions summed into one particle, *inside the fraction of the interactions whose term is not zero
 * (gravity: 0 < r < rmax; sph: r within the support 2h of either particle). -1 with err when out of memory.
 */
int hacc_ref(const struct hacc_problem *p, enum pp_hacc_kernel k, double *const out[PP_HACC_NOUT],
             double *scale_acc, double *scale_du, size_t *chain, double *inside, struct pp_error *err) PP_WUR;

#endif
