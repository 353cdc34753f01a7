/*
 * babelstream: see babelstream.h. A line-by-line reader: a header line opens a block (phases, kernels or the
 * triad-only total), rows must match their block's header field for field, and every number is checked
 * (integers are digits only, reals are finite decimals, runtimes ordered, the reported bandwidth consistent
 * with n_elements, sizeof and the runtime). The set owns its rows; the strings in a row are static. Called
 * on ppbenchd's HTTP pool threads (the import) and in a runner's job child (worker/external.c); no shared
 * state.
 */
#include "lib/babelstream.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_FIELDS 12
#define MAX_FIELD  64

enum block { BLOCK_NONE, BLOCK_PHASES, BLOCK_KERNELS, BLOCK_TRIAD_TOTAL };

/* BabelStream's kernels with ppbench's byte and flop models per element (docs/METHODOLOGY.md). */
static const struct kernel_model {
    const char *label, *kernel;
    int weight; /* arrays moved: bytes = weight × sizeof × n */
    int flops;  /* per element */
} kernels[] = {
    {"Copy", "copy", 2, 0},   {"Mul", "mul", 2, 1}, {"Add", "add", 3, 1},
    {"Triad", "triad", 3, 2}, {"Dot", "dot", 2, 2}, {"Nstream", "nstream", 4, 3},
};

/* Bandwidth column names and the unit they stand for. */
static const struct unit {
    const char *column, *unit, *format;
    double scale; /* bytes per unit */
} units[] = {
    {"max_mbytes_per_sec", "MB", "5.0", 1e6},
    {"max_mibytes_per_sec", "MiB", "5.0", 1048576.0},
    {"max_MB_per_sec", "MB", "6.0", 1e6},
    {"max_MiB_per_sec", "MiB", "6.0", 1048576.0},
    {"max_GB_per_sec", "GB", "6.0", 1e9},
    {"max_GiB_per_sec", "GiB", "6.0", 1073741824.0},
    {"max_TB_per_sec", "TB", "6.0", 1e12},
    {"max_TiB_per_sec", "TiB", "6.0", 1099511627776.0},
    {"gbytes_per_sec", "GB", "5.0-triad-only", 1e9},
    {"gibytes_per_sec", "GiB", "5.0-triad-only", 1073741824.0},
};

struct reader {
    struct babelstream_set *out;
    struct pp_error *err;
    int line;
    enum block block;
    int nfields; /* of the current header */
    const struct unit *unit;
    char field[MAX_FIELDS][MAX_FIELD + 1];
    int n;
};

static int fail(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct reader *rd, const char *fmt, ...)
{
    char msg[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return pp_error_set(rd->err, "line %d: %s", rd->line, msg);
}

/* Splits one line (without its end) into rd->field, trimming blanks around each field. */
static int split(struct reader *rd, const char *s, size_t len)
{
    size_t i = 0;

    rd->n = 0;
    for (;;) {
        size_t start = i, end;
        while (i < len && s[i] != ',')
            i++;
        end = i;
        while (start < end && (s[start] == ' ' || s[start] == '\t'))
            start++;
        while (end > start && (s[end - 1] == ' ' || s[end - 1] == '\t'))
            end--;
        if (rd->n == MAX_FIELDS)
            return fail(rd, "more than %d fields", MAX_FIELDS);
        if (end - start > MAX_FIELD)
            return fail(rd, "field %d is longer than %d characters", rd->n + 1, MAX_FIELD);
        memcpy(rd->field[rd->n], s + start, end - start);
        rd->field[rd->n][end - start] = '\0';
        rd->n++;
        if (i == len)
            return 0;
        i++; /* the comma */
    }
}

static int is_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t')
            return 0;
    return 1;
}

/* field i as a whole decimal integer in [min, max] (digits only: BabelStream prints no sign). */
static int integer(struct reader *rd, int i, const char *name, long long min, long long max, long long *out)
{
    const char *s = rd->field[i];
    long long v = 0;

    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 18)
        return fail(rd, "%s must be a whole number, got \"%s\"", name, s);
    v = strtoll(s, NULL, 10);
    if (v < min || v > max)
        return fail(rd, "%s must be from %lld to %lld, got %lld", name, min, max, v);
    *out = v;
    return 0;
}

/* field i as a finite decimal number (as C++ streams print one) that is > 0, or >= 0 when zero_ok. */
static int real(struct reader *rd, int i, const char *name, int zero_ok, double *out)
{
    const char *s = rd->field[i];
    char *end;
    double v;

    if (!*s || strspn(s, "0123456789.eE+-") != strlen(s))
        return fail(rd, "%s must be a number, got \"%s\"", name, s);
    errno = 0;
    v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v))
        return fail(rd, "%s must be a number, got \"%s\"", name, s);
    if (v < 0 || (!zero_ok && v == 0))
        return fail(rd, "%s must be %s, got \"%s\"", name, zero_ok ? "0 or more" : "more than 0", s);
    *out = v;
    return 0;
}

static int element_bytes(struct reader *rd, int i, int *out)
{
    long long v;

    if (integer(rd, i, "sizeof", 1, 64, &v))
        return -1;
    if (v != 4 && v != 8)
        return fail(rd, "sizeof must be 4 (float) or 8 (double), got %lld", v);
    *out = (int)v;
    return 0;
}

static int header(struct reader *rd)
{
    static const char *const phase_cols[] = {"phase", "n_elements", "sizeof", NULL, "runtime"};
    static const char *const kernel_cols[] = {"function", "num_times",   "n_elements",  "sizeof",
                                              NULL,       "min_runtime", "max_runtime", "avg_runtime"};
    static const char *const triad_cols[] = {"function", "num_times", "n_elements",
                                             "sizeof",   NULL,        "runtime"};
    const char *const *cols;
    int ncols, bw = 4;

    if (!strcmp(rd->field[0], "phase")) {
        rd->block = BLOCK_PHASES, cols = phase_cols, ncols = 5, bw = 3;
    } else if (rd->n == 6) {
        rd->block = BLOCK_TRIAD_TOTAL, cols = triad_cols, ncols = 6;
    } else {
        rd->block = BLOCK_KERNELS, cols = kernel_cols, ncols = 8;
    }
    if (rd->n != ncols)
        return fail(rd, "a BabelStream header has %d columns here, got %d", ncols, rd->n);
    for (int i = 0; i < ncols; i++)
        if (cols[i] && strcmp(rd->field[i], cols[i]))
            return fail(rd, "unexpected column \"%s\" in the header (expected \"%s\")", rd->field[i],
                        cols[i]);
    rd->unit = NULL;
    for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
        int triad_unit = !strcmp(units[u].format, "5.0-triad-only");
        if (!strcmp(rd->field[bw], units[u].column) && triad_unit == (rd->block == BLOCK_TRIAD_TOTAL) &&
            (rd->block != BLOCK_PHASES || !strcmp(units[u].format, "5.0")))
            rd->unit = &units[u];
    }
    if (!rd->unit)
        return fail(rd, "unknown bandwidth column \"%s\" in the header", rd->field[bw]);
    rd->nfields = ncols;
    return 0;
}

static const struct kernel_model *find_kernel(const char *label)
{
    for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++)
        if (!strcasecmp(kernels[k].label, label))
            return &kernels[k];
    return NULL;
}

static int is_phase(const char *label)
{
    return !strcasecmp(label, "Init") || !strcasecmp(label, "Read");
}

/* The reported bandwidth (bytes/s) against the bytes moved in seconds: print rounding is far below 1 %. */
static int consistent(struct reader *rd, double reported, double bytes, double seconds)
{
    double expect = bytes / seconds;

    if (!(fabs(reported - expect) <= 0.01 * expect))
        return fail(rd, "%s %.6g does not match n_elements, sizeof and the runtime (expected %.6g)",
                    rd->unit->column, reported / rd->unit->scale, expect / rd->unit->scale);
    return 0;
}

static int append(struct reader *rd, const struct babelstream_row *row)
{
    struct babelstream_set *s = rd->out;

    if (s->n == BABELSTREAM_MAX_ROWS)
        return fail(rd, "more than %d results in one import", BABELSTREAM_MAX_ROWS);
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        struct babelstream_row *rows = realloc(s->rows, cap * sizeof(*rows));
        if (!rows)
            return fail(rd, "out of memory");
        s->rows = rows;
        s->cap = cap;
    }
    s->rows[s->n++] = *row;
    return 0;
}

static int phase_row(struct reader *rd)
{
    long long n;
    int size;
    double bw, t;

    if (!is_phase(rd->field[0]))
        return fail(rd, "unknown phase \"%s\" (expected Init or Read)", rd->field[0]);
    return integer(rd, 1, "n_elements", 1, 1LL << 50, &n) || element_bytes(rd, 2, &size) ||
                   real(rd, 3, rd->unit->column, 1, &bw) || real(rd, 4, "runtime", 1, &t)
               ? -1
               : 0;
}

static int kernel_row(struct reader *rd)
{
    const int total = rd->block == BLOCK_TRIAD_TOTAL;
    struct babelstream_row row = {.line = rd->line, .format = rd->unit->format, .unit = rd->unit->unit};
    const struct kernel_model *k = find_kernel(rd->field[0]);
    double bw, runtime = 0;

    if (!k && is_phase(rd->field[0]) && !total) {
        /* The development line between 5.0 and 6.0 printed Init and Read as rows of this table. */
        if (integer(rd, 1, "num_times", 1, 1000000000, &row.num_times) ||
            integer(rd, 2, "n_elements", 1, 1LL << 50, &row.n_elements) ||
            element_bytes(rd, 3, &row.element_bytes) || real(rd, 4, rd->unit->column, 1, &bw) ||
            real(rd, 5, "min_runtime", 1, &row.min_s) || real(rd, 6, "max_runtime", 1, &row.max_s) ||
            real(rd, 7, "avg_runtime", 1, &row.mean_s))
            return -1;
        return 0;
    }
    if (!k)
        return fail(rd, "unknown function \"%s\" (expected Copy, Mul, Add, Triad, Dot or Nstream)",
                    rd->field[0]);
    if (total && strcmp(k->kernel, "triad"))
        return fail(rd, "the triad-only table holds Triad, got \"%s\"", rd->field[0]);
    if (integer(rd, 1, "num_times", 2, 1000000000, &row.num_times) ||
        integer(rd, 2, "n_elements", 1, 1LL << 50, &row.n_elements) ||
        element_bytes(rd, 3, &row.element_bytes) || real(rd, 4, rd->unit->column, 0, &bw))
        return -1;
    row.function = k->label;
    row.kernel = k->kernel;
    row.bandwidth = bw * rd->unit->scale;
    row.bytes = (double)k->weight * row.element_bytes * (double)row.n_elements;
    row.flops = (double)k->flops * (double)row.n_elements;
    if (total) {
        /* One time for all num_times iterations (warm-up included): every figure is their mean. */
        if (real(rd, 5, "runtime", 0, &runtime) ||
            consistent(rd, row.bandwidth, row.bytes * (double)row.num_times, runtime))
            return -1;
        row.min_s = row.max_s = row.mean_s = runtime / (double)row.num_times;
        return append(rd, &row);
    }
    if (real(rd, 5, "min_runtime", 0, &row.min_s) || real(rd, 6, "max_runtime", 0, &row.max_s) ||
        real(rd, 7, "avg_runtime", 0, &row.mean_s))
        return -1;
    if (row.max_s < row.min_s || row.mean_s < row.min_s || row.mean_s > row.max_s)
        return fail(rd, "runtimes out of order: min_runtime <= avg_runtime <= max_runtime does not hold");
    if (consistent(rd, row.bandwidth, row.bytes, row.min_s))
        return -1;
    return append(rd, &row);
}

static int one_line(struct reader *rd, const char *s, size_t len)
{
    if (memchr(s, '\0', len))
        return fail(rd, "not text (a NUL byte)");
    if (len && s[len - 1] == '\r')
        len--;
    if (is_blank(s, len))
        return 0;
    if (split(rd, s, len))
        return -1;
    if (!strcmp(rd->field[0], "function") || !strcmp(rd->field[0], "phase"))
        return header(rd);
    if (rd->block == BLOCK_NONE)
        return fail(
            rd, "expected BabelStream's csv header (function,num_times,n_elements,sizeof,...), got \"%s\"",
            rd->field[0]);
    if (rd->n != rd->nfields)
        return fail(rd, "expected %d fields, got %d", rd->nfields, rd->n);
    return rd->block == BLOCK_PHASES ? phase_row(rd) : kernel_row(rd);
}

int babelstream_parse(const char *body, size_t len, struct babelstream_set *out, struct pp_error *err)
{
    struct reader *rd = calloc(1, sizeof(*rd));
    size_t pos = 0;
    int rc = -1;

    if (!rd)
        return pp_error_set(err, "out of memory");
    rd->out = out;
    rd->err = err;
    rd->line = 1;
    if (len == 0) {
        fail(rd, "the body is empty");
        goto out;
    }
    while (pos < len) {
        const char *nl = memchr(body + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - body) : len;
        if (one_line(rd, body + pos, end - pos))
            goto out;
        pos = end + 1;
        if (nl && pos < len)
            rd->line++;
    }
    if (out->n == 0) {
        fail(rd, rd->block == BLOCK_NONE ? "no BabelStream csv header" : "no kernel results");
        goto out;
    }
    rc = 0;
out:
    if (rc)
        babelstream_set_clear(out);
    free(rd);
    return rc;
}

void babelstream_set_clear(struct babelstream_set *s)
{
    if (!s)
        return;
    free(s->rows);
    s->rows = NULL;
    s->n = s->cap = 0;
}
