/*
 * hacc_ref: the HACC suite's problem and its reference in double (hacc_ref.h). The builder and the reference
 * spread leaves over OpenMP threads; every value they produce is the same for any team. Any thread.
 */
#include "hacc_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: one stream per (seed, particle, field), so the values do not depend on the team. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A uniform number in [lo, lo + width) with 16 bits below width's leading one: exact in fp32. */
static double uniform(uint64_t particle, unsigned field, double lo, double width)
{
    uint64_t r = mix(mix(PP_HACC_SEED) ^ (particle * 16 + field));
    return lo + width * (double)(r >> 47) / 131072.0; /* 17 bits */
}

static double round_to(double v, enum pp_precision prec)
{
    return prec == PP_FP32 ? (double)(float)v : v;
}

void hacc_problem_release(struct hacc_problem *p)
{
    for (int f = 0; f < PP_HACC_NIN; f++)
        free(p->in[f]);
    free(p->pairs);
    memset(p, 0, sizeof(*p));
}

int hacc_problem_build(struct hacc_problem *p, unsigned leaf_size, size_t npairs, enum pp_precision prec,
                       struct pp_error *err)
{
    const unsigned g = hacc_grid_for(npairs);
    struct hacc_pairs it;
    size_t n = 0;

    memset(p, 0, sizeof(*p));
    if (!g)
        return pp_error_set(err, "%zu leaf pairs need a grid larger than %u cells a side", npairs,
                            PP_HACC_MAX_GRID);
    p->leaf_size = leaf_size;
    p->grid = g;
    p->nleaves = (size_t)g * g * g;
    p->npairs = npairs;
    p->nparticles = p->nleaves * leaf_size;
    for (int f = 0; f < PP_HACC_NIN; f++)
        if (!(p->in[f] = malloc(p->nparticles * sizeof(double))))
            goto oom;
    if (!(p->pairs = malloc(2 * npairs * sizeof(uint32_t))))
        goto oom;

#pragma omp parallel for schedule(static)
    for (size_t a = 0; a < p->nleaves; a++) {
        const double origin[3] = {PP_HACC_CELL * (double)(a % g), PP_HACC_CELL * (double)(a / g % g),
                                  PP_HACC_CELL * (double)(a / g / g)};
        for (size_t i = a * leaf_size; i < (a + 1) * leaf_size; i++) {
            for (unsigned c = 0; c < 3; c++)
                p->in[PP_HACC_X + c][i] = uniform(i, c, origin[c], PP_HACC_CELL);
            for (unsigned c = 0; c < 3; c++)
                p->in[PP_HACC_VX + c][i] = round_to(uniform(i, 3 + c, -0.5, 1.0), prec);
            p->in[PP_HACC_MASS][i] = round_to(uniform(i, 6, 0.5, 1.0), prec);
            p->in[PP_HACC_RHO][i] = round_to(uniform(i, 7, 0.8, 0.4), prec);
            /* the largest support 2h is the cell's side, as a cell list's cell is its cut-off */
            p->in[PP_HACC_HSML][i] = round_to(uniform(i, 8, 0.4 * PP_HACC_CELL, 0.1 * PP_HACC_CELL), prec);
        }
    }
    hacc_pairs_start(&it, g);
    while (n < npairs && hacc_pairs_next(&it, &p->pairs[2 * n], &p->pairs[2 * n + 1]))
        n++;
    /* the leaves the pair list touches: what a kernel reads and writes (the byte model's count) */
    if (!(p->touched = hacc_touched_leaves(npairs)))
        goto oom;
    return 0;
oom:
    hacc_problem_release(p);
    return pp_error_set(err, "out of host memory for %zu leaves of %u particles", (size_t)g * g * g,
                        leaf_size);
}

uint32_t hacc_far_leaf(const struct hacc_problem *p, uint32_t a)
{
    const unsigned g = p->grid, x = a % g, y = a / g % g, z = a / g / g;
    const unsigned fx = x < g / 2 ? g - 1 : 0, fy = y < g / 2 ? g - 1 : 0, fz = z < g / 2 ? g - 1 : 0;

    return (fz * g + fy) * g + fx;
}

/* ---- the interactions, in double ---- */

/* HACCmk's short-range force of source j on particle i; the scale adds the magnitudes of both parts. */
static int gravity(const struct hacc_problem *p, size_t i, size_t j, double acc[4], double scale[2])
{
    const double d[3] = {p->in[PP_HACC_X][j] - p->in[PP_HACC_X][i], p->in[PP_HACC_Y][j] - p->in[PP_HACC_Y][i],
                         p->in[PP_HACC_Z][j] - p->in[PP_HACC_Z][i]};
    const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2], m = p->in[PP_HACC_MASS][j];
    double s, poly, abs_poly, f;

    if (!(r2 > 0 && r2 < PP_HACC_RMAX2))
        return 0;
    s = pow(r2 + PP_HACC_EPS2, -1.5);
    poly =
        PP_HACC_MA0 +
        r2 * (PP_HACC_MA1 + r2 * (PP_HACC_MA2 + r2 * (PP_HACC_MA3 + r2 * (PP_HACC_MA4 + r2 * PP_HACC_MA5))));
    abs_poly = fabs(PP_HACC_MA0) +
               r2 * (fabs(PP_HACC_MA1) +
                     r2 * (fabs(PP_HACC_MA2) +
                           r2 * (fabs(PP_HACC_MA3) + r2 * (fabs(PP_HACC_MA4) + r2 * fabs(PP_HACC_MA5)))));
    f = m * (s - poly);
    for (int c = 0; c < 3; c++)
        acc[c] += f * d[c];
    scale[0] += m * (s + abs_poly) * sqrt(r2);
    return 1;
}

/* The cubic spline's dW/dr at r for smoothing length h (support 2h), and the bound of its magnitude. */
static double spline_dr(double r, double h, double *bound)
{
    const double q = r / h, sigma_h = PP_HACC_INV_PI / (h * h * h * h);

    if (q >= 2) {
        *bound = 0;
        return 0;
    }
    *bound = 0.75 * sigma_h;
    return q < 1 ? sigma_h * (-3 * q + 2.25 * q * q) : sigma_h * (-0.75 * (2 - q) * (2 - q));
}

/* The SPH pair term of j on i (docs/METHODOLOGY.md): acceleration and energy rate. */
static int sph(const struct hacc_problem *p, size_t i, size_t j, double acc[4], double scale[2])
{
    double d[3], v[3], r2 = 0, w = 0, vv = 0, r, bi, bj, fbar, bound, hbar, rhobar, mu = 0, pi, g, s;

    for (int c = 0; c < 3; c++) {
        d[c] = p->in[PP_HACC_X + c][i] - p->in[PP_HACC_X + c][j];
        v[c] = p->in[PP_HACC_VX + c][i] - p->in[PP_HACC_VX + c][j];
        r2 += d[c] * d[c];
        w += v[c] * d[c];
        vv += v[c] * v[c];
    }
    if (!(r2 > 0))
        return 0;
    r = sqrt(r2);
    fbar = 0.5 * (spline_dr(r, p->in[PP_HACC_HSML][i], &bi) + spline_dr(r, p->in[PP_HACC_HSML][j], &bj)) / r;
    bound = 0.5 * (bi + bj);
    if (bound == 0)
        return 0; /* beyond both particles' support */
    hbar = 0.5 * (p->in[PP_HACC_HSML][i] + p->in[PP_HACC_HSML][j]);
    rhobar = 0.5 * (p->in[PP_HACC_RHO][i] + p->in[PP_HACC_RHO][j]);
    if (w < 0)
        mu = hbar * w / (r2 + PP_HACC_ETA2 * hbar * hbar);
    pi = (-PP_HACC_ALPHA_CS * mu + PP_HACC_BETA * mu * mu) / rhobar;
    g = PP_HACC_CS2 / p->in[PP_HACC_RHO][i] + PP_HACC_CS2 / p->in[PP_HACC_RHO][j] + pi;
    s = p->in[PP_HACC_MASS][j] * g;
    for (int c = 0; c < 3; c++)
        acc[c] -= s * fbar * d[c];
    acc[3] += 0.5 * s * fbar * w;
    scale[0] += fabs(s) * (fabs(fbar) * r + bound);
    scale[1] += 0.5 * fabs(s) * (fabs(fbar) * r + bound) * sqrt(vv);
    return 1;
}

int hacc_ref(const struct hacc_problem *p, enum pp_hacc_kernel k, double *const out[PP_HACC_NOUT],
             double *scale_acc, double *scale_du, size_t *chain, double *inside, struct pp_error *err)
{
    size_t working = 0;
    const size_t L = p->leaf_size;
    size_t *start = calloc(p->nleaves + 1, sizeof(size_t)), most = 0;
    uint32_t *other = malloc(2 * p->npairs * sizeof(uint32_t) + 1);

    if (!start || !other) {
        free(start);
        free(other);
        return pp_error_set(err, "out of host memory for the reference");
    }
    /* each leaf's partners, in the order of the pair list */
    for (size_t q = 0; q < 2 * p->npairs; q++)
        start[p->pairs[q] + 1]++;
    for (size_t a = 0; a < p->nleaves; a++) {
        most = start[a + 1] > most ? start[a + 1] : most;
        start[a + 1] += start[a];
    }
    {
        size_t *fill = calloc(p->nleaves, sizeof(size_t));
        if (!fill) {
            free(start);
            free(other);
            return pp_error_set(err, "out of host memory for the reference");
        }
        for (size_t q = 0; q < p->npairs; q++) {
            uint32_t a = p->pairs[2 * q], b = p->pairs[2 * q + 1];
            other[start[a] + fill[a]++] = b;
            other[start[b] + fill[b]++] = a;
        }
        free(fill);
    }
    *chain = most * L;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : working)
    for (size_t a = 0; a < p->nleaves; a++)
        for (size_t i = a * L; i < (a + 1) * L; i++) {
            double acc[4] = {0, 0, 0, 0}, scale[2] = {0, 0};
            for (size_t e = start[a]; e < start[a + 1]; e++)
                for (size_t j = other[e] * L; j < (other[e] + 1) * L; j++)
                    working += (size_t)(k == PP_HACC_GRAVITY ? gravity(p, i, j, acc, scale)
                                                             : sph(p, i, j, acc, scale));
            for (int o = 0; o < PP_HACC_NOUT; o++)
                out[o][i] = acc[o];
            scale_acc[i] = scale[0];
            scale_du[i] = scale[1];
        }
    free(start);
    free(other);
    *inside = p->npairs ? (double)working / (2.0 * (double)L * L * (double)p->npairs) : 0;
    return 0;
}
