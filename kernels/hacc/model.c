/*
 * hacc/model: see model.h. Pure; any thread.
 */
#include "kernels/hacc/model.h"

#include <stdio.h>
#include <stdlib.h>

#include "kernels/hacc/hacc.h"

/* The 13 forward directions of the 26 neighbours (x, y, z): z, then y, then x positive first. */
static const int forward[13][3] = {{1, 0, 0},  {-1, 1, 0}, {0, 1, 0},  {1, 1, 0}, {-1, -1, 1},
                                   {0, -1, 1}, {1, -1, 1}, {-1, 0, 1}, {0, 0, 1}, {1, 0, 1},
                                   {-1, 1, 1}, {0, 1, 1},  {1, 1, 1}};

uint64_t hacc_grid_pairs(unsigned g)
{
    uint64_t n = 0;

    for (int d = 0; d < 13; d++)
        n += (uint64_t)(g - (unsigned)abs(forward[d][0])) * (g - (unsigned)abs(forward[d][1])) *
             (g - (unsigned)abs(forward[d][2]));
    return n;
}

unsigned hacc_grid_for(uint64_t npairs)
{
    for (unsigned g = PP_HACC_MIN_GRID; g <= PP_HACC_MAX_GRID; g++)
        if (hacc_grid_pairs(g) >= npairs)
            return g;
    return 0;
}

void hacc_pairs_start(struct hacc_pairs *it, unsigned g)
{
    *it = (struct hacc_pairs){.g = g};
}

bool hacc_pairs_next(struct hacc_pairs *it, uint32_t *a, uint32_t *b)
{
    const long g = it->g;

    while (it->z < g) {
        while (it->dir < 13) {
            const int *d = forward[it->dir++];
            const long x = it->x + d[0], y = it->y + d[1], z = it->z + d[2];
            if (x < 0 || y < 0 || z < 0 || x >= g || y >= g || z >= g)
                continue;
            *a = (uint32_t)((it->z * g + it->y) * g + it->x);
            *b = (uint32_t)((z * g + y) * g + x);
            return true;
        }
        /* the next cell, x fastest (coordinates kept, not divided out: ppbenchd walks 4M pairs a report) */
        it->dir = 0;
        if (++it->x == g) {
            it->x = 0;
            if (++it->y == g) {
                it->y = 0;
                it->z++;
            }
        }
    }
    return false;
}

size_t hacc_touched_leaves(size_t npairs)
{
    const unsigned g = hacc_grid_for(npairs);
    unsigned char *seen = g ? calloc((size_t)g * g * g, 1) : NULL;
    struct hacc_pairs it;
    uint32_t a, b;
    size_t touched = 0;

    if (!seen)
        return 0;
    hacc_pairs_start(&it, g);
    for (size_t n = 0; n < npairs && hacc_pairs_next(&it, &a, &b); n++) {
        touched += !seen[a]++;
        touched += !seen[b]++;
    }
    free(seen);
    return touched;
}

static const unsigned n_in[PP_HACC_NKERNELS] = {4, PP_HACC_NIN};   /* inputs read: x y z m; all nine */
static const unsigned n_out[PP_HACC_NKERNELS] = {3, PP_HACC_NOUT}; /* outputs: a; a and du */

double hacc_interactions(unsigned leaf_size, size_t pairs)
{
    return 2.0 * leaf_size * leaf_size * (double)pairs;
}

double hacc_flops(enum pp_hacc_kernel k, unsigned leaf_size, size_t pairs)
{
    return hacc_interactions(leaf_size, pairs) * (k == PP_HACC_GRAVITY ? HACC_FLOPS_GRAVITY : HACC_FLOPS_SPH);
}

double hacc_bytes(enum pp_hacc_kernel k, unsigned leaf_size, size_t pairs, size_t touched_particles,
                  enum pp_precision prec)
{
    (void)leaf_size;
    return (double)touched_particles * (n_in[k] + n_out[k]) * (double)pp_precision_bytes(prec) +
           8.0 * (double)pairs;
}

double hacc_bytes_per_pair(enum pp_hacc_kernel k, unsigned leaf_size, enum pp_precision prec)
{
    return 2.0 * leaf_size * (n_in[k] + 2.0 * n_out[k]) * (double)pp_precision_bytes(prec) + 8.0;
}

void hacc_model(enum pp_hacc_kernel k, unsigned leaf_size, size_t leaf_pairs, size_t touched_leaves,
                enum pp_precision prec, struct suite_model *out)
{
    out->bytes = hacc_bytes(k, leaf_size, leaf_pairs, touched_leaves * leaf_size, prec);
    /* No compulsory traffic is stated (0), as the driver has always reported: hacc is compute-bound, and a 0
     * here keeps its results out of the bandwidth ceiling (above_ceiling) and the architectural efficiency.
     */
    out->bytes_compulsory = 0;
    out->flops = hacc_flops(k, leaf_size, leaf_pairs);
}

int hacc_model_problem(const json_t *problem, struct suite_model *out, struct suite_error *e)
{
    enum pp_precision prec;
    long long leaf_size, pairs;
    size_t touched;

    if (suite_problem_precision(problem, &prec, e) ||
        suite_problem_int(problem, "leaf_size", PP_HACC_HALF, HACC_MAX_LEAF_SIZE, &leaf_size, e) ||
        suite_problem_int(problem, "leaf_pairs", 1, HACC_MAX_PAIRS, &pairs, e) ||
        suite_problem_size(problem, (long long)hacc_interactions((unsigned)leaf_size, (size_t)pairs),
                           "its leaf_size and leaf_pairs", e))
        return -1;
    if (leaf_size % PP_HACC_HALF) {
        e->code = "invalid_value";
        snprintf(e->field, sizeof(e->field), "problem.leaf_size");
        snprintf(e->msg, sizeof(e->msg), "problem.leaf_size must be a multiple of %d", PP_HACC_HALF);
        return -1;
    }
    if (!(touched = hacc_touched_leaves((size_t)pairs))) {
        e->code = "internal";
        snprintf(e->field, sizeof(e->field), "problem.leaf_pairs");
        snprintf(e->msg, sizeof(e->msg), "out of memory for the leaves of %lld pairs", pairs);
        return -1;
    }
    for (unsigned k = 0; k < PP_HACC_NKERNELS; k++)
        hacc_model((enum pp_hacc_kernel)k, (unsigned)leaf_size, (size_t)pairs, touched, prec, &out[k]);
    return 0;
}
