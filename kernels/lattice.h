/*
 * lattice: what the lattice QCD suites (kernels/wilson.c, kernels/staggered.c) share: the 4-d lattice and its
 * checkerboards, the --lattice syntax and the rule on extents, the seeded random numbers and SU(3) matrices
 * their fields are made of, and the test hook that plants a fault in them. Pure functions, any thread (the
 * hook reads the environment).
 *
 * Sites are numbered lexicographically, x fastest: s = x + X (y + Y (z + Z t)). With X even, each row of x
 * holds X/2 sites of each parity in order, so the checkerboard index of site s is s / 2.
 */
#ifndef PP_LATTICE_H
#define PP_LATTICE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

#define LATTICE_MIN_EXTENT 4

/* "8x8x8x16" into dims. Syntax only (four positive whole numbers); lattice_check_extents judges them. */
int lattice_parse(const char *s, unsigned dims[4], struct pp_error *err) PP_WUR;

/* Every extent even and at least LATTICE_MIN_EXTENT, the checkerboard within 2^32 sites; the error names
 * the axis. */
int lattice_check_extents(const unsigned dims[4], struct pp_error *err) PP_WUR;

static inline size_t lattice_volume(const unsigned dims[4])
{
    return (size_t)dims[0] * dims[1] * dims[2] * dims[3];
}

size_t lattice_index(const unsigned dims[4], const unsigned c[4]);
void lattice_coords(const unsigned dims[4], size_t s, unsigned c[4]);

/* The site d steps from s in direction mu (d may be negative), periodic. */
size_t lattice_shift(const unsigned dims[4], size_t s, int mu, int d);

static inline int lattice_parity(const unsigned c[4])
{
    return (int)((c[0] + c[1] + c[2] + c[3]) & 1);
}

/* Uniform in [-1, 1) from a splitmix64 state. */
double lattice_random(uint64_t *state);

/* A random SU(3) matrix [a][b][re, im]: random complex entries, rows orthonormalised by Gram-Schmidt, the
 * last row multiplied by conj(det) so that det = 1. */
void lattice_random_su3(uint64_t *state, double u[18]);

/* Test-only hook of the suite drivers (docs/METHODOLOGY.md): PPBENCH_TEST_FAULT=link[:<site>] asks the driver
 * to corrupt a link of output site <site> as uploaded, neighbour[:<site>] to point one of its neighbour
 * entries at another input site (the reference keeps the true fields, so verification must catch and name
 * the site); crash raises SIGSEGV here. *site: <site>, n / 2 when absent, at most n - 1. */
enum lattice_fault { LATTICE_FAULT_NONE = 0, LATTICE_FAULT_LINK, LATTICE_FAULT_NEIGHBOUR };
enum lattice_fault lattice_test_fault(size_t n, size_t *site);

#endif
