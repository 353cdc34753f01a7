/*
 * fielddump: a test-only hook of the lattice suites (docs/METHODOLOGY.md, "A second reference"). With
 * PPBENCH_TEST_DUMP=<dir> in the environment, a lattice suite's driver writes the fields of its run and the
 * outputs it read back from the device into <dir>, so that a reference written in another language
 * (tests/ref/dslash.py, numpy) can recompute the operator from the papers' definitions and compare. Unset or
 * empty, nothing is written. The format, in <dir>:
 *
 *   <suite>.json         {"suite": "wilson", "lattice": [X, Y, Z, T], "precision": "fp32", "output_parity":
 * 1, "seed": 20200101, "model": "openmp", "byte_order": "little", "arrays": {"<name>": {"file":
 * "<suite>.<name>.f64", "shape": [...]}, ...}} <suite>.<name>.f64   the array's reals, IEEE 754 binary64 in
 * the host's byte order ("byte_order"), in the C order of "shape", no header
 *
 * A full-lattice array has the site index s = x + X (y + Y (z + Z t)) slowest, so its shape starts [T, Z, Y,
 * X]; an output as the device returned it holds the V/2 odd sites in checkerboard order (site s at s / 2),
 * shape [V/2, ...]. The inputs are the fields in double precision as generated, before any rounding to the
 * working precision. Main thread.
 */
#ifndef PP_FIELDDUMP_H
#define PP_FIELDDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"
#include "lib/error.h"

#define FIELDDUMP_ENV       "PPBENCH_TEST_DUMP"
#define FIELDDUMP_MAX_INNER 4

/* One array: its name, its reals, and the shape after the leading axes (site axes: [T, Z, Y, X] when full is
 * true, [V/2] when not). */
struct fielddump_array {
    const char *name;
    const double *data;
    bool full;
    unsigned naxes; /* inner axes, at most FIELDDUMP_MAX_INNER */
    unsigned axes[FIELDDUMP_MAX_INNER];
};

/* The directory named by PPBENCH_TEST_DUMP, or NULL when the hook is off. */
const char *fielddump_dir(void);

/* Writes <dir>/<suite>.json and one file per array (the format above). -1 with err naming the file when one
 * cannot be written. */
int fielddump_write(const char *dir, const char *suite, const char *model, const unsigned dims[4],
                    enum pp_precision prec, uint64_t seed, const struct fielddump_array *arrays,
                    size_t narrays, struct pp_error *err) PP_WUR;

#endif
