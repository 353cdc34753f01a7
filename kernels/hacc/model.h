/*
 * hacc/model: the HACC suite's byte and flop models (paper 003; docs/METHODOLOGY.md) and the leaf pair list
 * they count, the one definition the driver (kernels/hacc/hacc.c, its problem kernels/hacc/hacc_ref.c) states
 * in a report and ppbenchd holds a report to (the suite table's model hook, kernels/suite.h).
 *
 * The pair list is geometry only: the first npairs pairs of neighbouring cells of the smallest grid that has
 * that many, listed cell by cell (x fastest) in the 13 forward directions of the 26. It does not depend on
 * the seed (only the particles do), so the leaves it touches, which the byte model counts, follow from
 * leaf_pairs alone: ppbenchd recomputes them (hacc_touched_leaves: a walk of the list and a byte per leaf,
 * about 10 ms and 0.3 MB at HACC_MAX_PAIRS; docs/METHODOLOGY.md) rather than take the report's word.
 * Pure; any thread.
 */
#ifndef PP_HACC_MODEL_H
#define PP_HACC_MODEL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"
#include "kernels/hacc/hacc_ops.h"
#include "kernels/suite.h"

#define PP_HACC_MIN_GRID 4u   /* cells a side at least: a leaf 2 cells away on each axis is beyond reach */
#define PP_HACC_MAX_GRID 120u /* positions and translates below 256: exact in fp32 (16 fraction bits) */

/* Forward neighbour pairs of a g^3 grid of cells. */
uint64_t hacc_grid_pairs(unsigned g);

/* The smallest grid (>= PP_HACC_MIN_GRID) with npairs pairs; 0 when it would exceed PP_HACC_MAX_GRID. */
unsigned hacc_grid_for(uint64_t npairs);

/* The pair list of a g^3 grid in its order: start, then each next gives the pair's two leaves (cells, x
 * fastest) until the grid has no more (false). */
struct hacc_pairs {
    long g;
    long x, y, z; /* the cell whose pairs come next: cell (z g + y) g + x */
    unsigned dir; /* its next direction */
};
void hacc_pairs_start(struct hacc_pairs *it, unsigned g);
bool hacc_pairs_next(struct hacc_pairs *it, uint32_t *a, uint32_t *b);

/* The leaves the first npairs pairs name (a leaf once however many pairs name it): the leaves a kernel reads
 * and writes. 0 when npairs needs a grid beyond PP_HACC_MAX_GRID or memory runs out. */
size_t hacc_touched_leaves(size_t npairs);

/* Models per application of kernel k: interactions (2 leaf_size^2 per pair), flops (interactions x flops per
 * interaction) and the compulsory bytes (the inputs of each particle the pair list touches read once, its
 * outputs written once, the pair list read once: touched particles, not the grid's). */
double hacc_interactions(unsigned leaf_size, size_t pairs);
double hacc_flops(enum pp_hacc_kernel k, unsigned leaf_size, size_t pairs);
double hacc_bytes(enum pp_hacc_kernel k, unsigned leaf_size, size_t pairs, size_t touched_particles,
                  enum pp_precision prec);

/* The bytes one leaf pair moves as the GPU kernels are built (both leaves read, their outputs updated
 * atomically: read and written, the pair's indices): the report's details.kernels[].bytes_per_leaf_pair. */
double hacc_bytes_per_pair(enum pp_hacc_kernel k, unsigned leaf_size, enum pp_precision prec);

/* Kernel k's models for leaf_pairs pairs of leaf_size particles touching touched_leaves leaves, in prec. */
void hacc_model(enum pp_hacc_kernel k, unsigned leaf_size, size_t leaf_pairs, size_t touched_leaves,
                enum pp_precision prec, struct suite_model *out);

/* The suite table's hook: both kernels' models (out[k], enum pp_hacc_kernel's order, the table's) from
 * problem.leaf_size, problem.leaf_pairs (the device's where the job left it: held to
 * the suite's ranges, and to problem.size, their interactions) and problem.precision; the touched leaves
 * recomputed from leaf_pairs (hacc_touched_leaves), never read from the report. */
int hacc_model_problem(const json_t *problem, struct suite_model *out, struct suite_error *e) PP_WUR;

#endif
