/*
 * babelstream: BabelStream's CSV output (`--csv`) read into one row per kernel result, as BabelStream 5.0
 * prints it (a phase block, then
 * function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime, avg_runtime; or the
 * --triad-only block with gbytes_per_sec,runtime) and as its current main line (6.0) prints it
 * (max_<unit>_per_sec with unit MB, MiB, GB, GiB, TB or TiB). One parser for both readers of that table: POST
 * /api/v1/import/babelstream (server/api/pp.c) and a BabelStream runner's job (worker/external.c). Pure
 * parsing of outside input: no database, no HTTP, any thread; fuzzed by tests/fuzz/import_fuzz.c.
 */
#ifndef PP_BABELSTREAM_H
#define PP_BABELSTREAM_H

#include <stddef.h>

#include "lib/error.h"

#define BABELSTREAM_MAX_ROWS 100000

struct babelstream_row {
    int line;             /* 1-based line of the body */
    const char *function; /* BabelStream's label: "Copy", ..., "Nstream" (static) */
    const char *kernel;   /* ppbench's kernel name: "copy", ... (static) */
    const char *format;   /* "5.0", "5.0-triad-only" or "6.0" (static) */
    const char *unit;     /* the bandwidth unit the header named: "MB", "MiB", "GB", ... (static) */
    long long num_times;  /* iterations BabelStream ran, the first one (warm-up) included */
    long long n_elements;
    int element_bytes;           /* sizeof: 4 (fp32) or 8 (fp64) */
    double bandwidth;            /* bytes/s, as BabelStream reported it */
    double min_s, max_s, mean_s; /* of the timed iterations (the first is excluded) */
    double bytes, flops;         /* ppbench's byte and flop models of one application */
};

struct babelstream_set {
    struct babelstream_row *rows;
    size_t n, cap;
};

/*
 * Parses a whole body (len bytes; need not be NUL-terminated) into out, which must be zeroed or cleared.
 * Returns 0 with at least one kernel row, or -1 with "line N: what is wrong" in err and out empty.
 */
int babelstream_parse(const char *body, size_t len, struct babelstream_set *out, struct pp_error *err) PP_WUR;

/* Frees the rows and zeroes the set (NULL-safe). */
void babelstream_set_clear(struct babelstream_set *s);

#endif
