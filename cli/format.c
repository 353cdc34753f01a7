/*
 * format: plain-text tables of the server's JSON for `ppbench jobs`, `platforms`, `results`, `pp` and
 * `submit`, and the progress bar of `submit`. Documents are borrowed; a table owns its cells until it is
 * printed. Main thread only.
 *
 * Result rows are read by the names of the server's result document and the worker's report
 * (bandwidth_bytes_per_s, stats_s.min, ...) or, failing that, by the column names of the results table
 * (bandwidth, min_s, ...), so either shape prints. Every table of results names the problem of its rows
 * (every parameter of the problem key: key_words) and marks each flagged figure (a FLAGS column, or "[flags]"
 * beside a PP efficiency), with a line under it saying what each flag means: a flagged number is never shown
 * unmarked.
 */
#include "format.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/suite.h"

/* Cells in row-major order; columns are as wide as their widest cell and aligned left or right. */
struct table {
    size_t ncols;
    const char *const *head;
    const char *align; /* one 'l' or 'r' per column */
    char **cells;
    size_t n, cap;
    int oom;
};

static void cell(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void cell(struct table *t, const char *fmt, ...)
{
    va_list ap;
    char *s;
    int n;

    if (t->oom)
        return;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        char **cells = realloc(t->cells, cap * sizeof(*cells));
        if (!cells) {
            t->oom = 1;
            return;
        }
        t->cells = cells;
        t->cap = cap;
    }
    va_start(ap, fmt);
    n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->oom = 1;
        return;
    }
    t->cells[t->n++] = s;
}

static void print_row(FILE *f, const struct table *t, const size_t *width, const char *const *row)
{
    for (size_t c = 0; c < t->ncols; c++) {
        int last = c + 1 == t->ncols;
        if (last && !*row[c])
            break; /* no trailing blanks */
        if (c > 0)
            fputs("  ", f);
        if (t->align[c] == 'r')
            fprintf(f, "%*s", (int)width[c], row[c]);
        else
            fprintf(f, "%-*s", last ? 0 : (int)width[c], row[c]);
    }
    fputc('\n', f);
}

/* Prints the table and frees its cells. */
static int table_print(FILE *f, struct table *t, struct pp_error *err)
{
    size_t *width = calloc(t->ncols, sizeof(*width));
    int rc = -1;

    if (t->oom || !width) {
        pp_error_set(err, "out of memory");
        goto out;
    }
    for (size_t c = 0; c < t->ncols; c++)
        width[c] = strlen(t->head[c]);
    for (size_t i = 0; i < t->n; i++)
        if (strlen(t->cells[i]) > width[i % t->ncols])
            width[i % t->ncols] = strlen(t->cells[i]);
    print_row(f, t, width, t->head);
    for (size_t i = 0; i + t->ncols <= t->n; i += t->ncols)
        print_row(f, t, width, (const char *const *)t->cells + i);
    rc = 0;
out:
    free(width);
    for (size_t i = 0; i < t->n; i++)
        free(t->cells[i]);
    free(t->cells);
    t->cells = NULL;
    t->n = t->cap = 0;
    return rc;
}

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s && *s ? s : NULL;
}

static const char *dash(const char *s)
{
    return s ? s : "-";
}

/* A number at a dotted path ("stats_s.min"); 0 when there is one. */
static int number(json_t *o, const char *path, double *out)
{
    char key[64];
    const char *dot;

    while ((dot = strchr(path, '.')) != NULL) {
        snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
        o = json_object_get(o, key);
        path = dot + 1;
    }
    o = json_object_get(o, path);
    if (!json_is_number(o))
        return -1;
    *out = json_number_value(o);
    return 0;
}

/* The first of two paths that holds a number. */
static int number2(json_t *o, const char *a, const char *b, double *out)
{
    return number(o, a, out) == 0 || (b && number(o, b, out) == 0) ? 0 : -1;
}

const char *format_flags(json_t *r, char *buf, size_t size)
{
    json_t *fl;
    size_t k, n = 0;

    buf[0] = '\0';
    json_array_foreach(json_object_get(r, "flags"), k, fl)
    {
        int w = snprintf(buf + n, size - n, "%s%s", n ? "," : "",
                         json_string_value(fl) ? json_string_value(fl) : "?");
        n = w < 0 || (size_t)w >= size - n ? size - 1 : n + (size_t)w;
    }
    return buf;
}

/* What each flag says of a figure, for the line under a table whose rows carry it. */
static const struct {
    const char *flag, *says;
} flag_words[] = {
    {"cache_resident", "the working set fits the last-level cache: a cache figure, not memory bandwidth"},
    {"noisy", "its samples were not stable, after the job's repeats"},
    {"above_ceiling", "above the platform's peak bandwidth: the measurement is wrong"},
    {"excluded", "excluded by an admin"},
    {"superseded", "from an earlier run of its job, replaced by a later run's: it counts nowhere"},
};

/* "flagged (left out of PP and baselines unless asked for): cache_resident: ...; noisy: ..." for the flags
 * that rows of results carry (each once); nothing when no row carries one. */
static void print_flag_legend(FILE *f, json_t *results)
{
    const char *seen[32];
    size_t nseen = 0, i, k, j;
    json_t *r, *fl;

    json_array_foreach(results, i, r)
    {
        json_array_foreach(json_object_get(r, "flags"), k, fl)
        {
            const char *name = json_string_value(fl);
            for (j = 0; name && j < nseen && strcmp(seen[j], name); j++)
                ;
            if (name && j == nseen && nseen < sizeof(seen) / sizeof(seen[0]))
                seen[nseen++] = name;
        }
    }
    if (!nseen)
        return;
    fprintf(
        f,
        "flagged figures are left out of PP, baselines and scaling unless asked for (--include-flagged):\n");
    for (j = 0; j < nseen; j++) {
        const char *says = "see the result's page";
        for (k = 0; k < sizeof(flag_words) / sizeof(flag_words[0]); k++)
            if (!strcmp(flag_words[k].flag, seen[j]))
                says = flag_words[k].says;
        fprintf(f, "  %s: %s\n", seen[j], says);
    }
}

/*
 * A problem key ("precision=fp64;size=33554432;numtimes=100", everything that makes the problem) in words:
 * "fp64, size 33554432 elements, numtimes 100" (unit: the suite table's size unit, NULL: none). skip_known
 * leaves out the precision and the size (where a table has columns of their own). "-" when nothing is left.
 */
static const char *key_words(const char *key, const char *unit, bool skip_known, char *buf, size_t size)
{
    size_t n = 0;

    buf[0] = '\0';
    while (key && *key) {
        size_t len = strcspn(key, ";"), name = strcspn(key, "=");
        int w = 0;
        if (name >= len) {
            w = snprintf(buf + n, size - n, "%s%.*s", n ? ", " : "", (int)len, key);
        } else if (name == 9 && !strncmp(key, "precision", 9)) {
            if (!skip_known)
                w = snprintf(buf + n, size - n, "%s%.*s", n ? ", " : "", (int)(len - name - 1),
                             key + name + 1);
        } else if (name == 4 && !strncmp(key, "size", 4)) {
            if (!skip_known)
                w = snprintf(buf + n, size - n, "%ssize %.*s%s%s", n ? ", " : "", (int)(len - name - 1),
                             key + name + 1, unit ? " " : "", unit ? unit : "");
        } else {
            w = snprintf(buf + n, size - n, "%s%.*s %.*s", n ? ", " : "", (int)name, key,
                         (int)(len - name - 1), key + name + 1);
        }
        n = w < 0 || (size_t)w >= size - n ? size - 1 : n + (size_t)w;
        key += len + (key[len] == ';');
    }
    return n ? buf : "-";
}

/* The suite table's unit of a suite's size ("elements", "lattice sites"), NULL for a suite it does not know.
 */
static const char *size_unit(const char *suite)
{
    const struct suite *s = suite ? suite_find(suite) : NULL;
    return s ? s->size : NULL;
}

static void id_cell(struct table *t, json_t *v)
{
    if (json_is_integer(v))
        cell(t, "%lld", (long long)json_integer_value(v));
    else
        cell(t, "%s", dash(json_string_value(v)));
}

/* The number at path a (or else b) times scale, formatted with fmt; "-" when there is none. */
static void num_cell(struct table *t, json_t *o, const char *a, const char *b, double scale, const char *fmt)
{
    double v;

    if (number2(o, a, b, &v) == 0)
        cell(t, fmt, v * scale);
    else
        cell(t, "-");
}

/* "2024-05-01T12:00:00.123Z" as "2024-05-01 12:00:00" (UTC). */
static const char *short_time(const char *t, char *buf, size_t size)
{
    char *p;

    if (!t)
        return "-";
    snprintf(buf, size, "%.19s", t);
    p = strchr(buf, 'T');
    if (p)
        *p = ' ';
    return buf;
}

/* Where a job runs: its platform, the platform it ran on, or its selector. */
static const char *job_platform(json_t *job, char *buf, size_t size)
{
    json_t *sel = json_object_get(job, "selector");
    const char *kind = str(sel, "kind"), *host = str(sel, "host");

    if (str(job, "platform"))
        return str(job, "platform");
    if (str(job, "ran_on"))
        return str(job, "ran_on");
    if (!kind)
        return "-";
    snprintf(buf, size, "any %s%s%s", kind, host ? " on " : "", host ? host : "");
    return buf;
}

int format_jobs(FILE *f, json_t *jobs, struct pp_error *err)
{
    static const char *const head[] = {"ID",       "STATE",    "SUITE",   "MODEL",
                                       "PLATFORM", "PROGRESS", "CREATED", "ERROR"};
    struct table t = {.ncols = 8, .head = head, .align = "rllllrll"};
    char where[256], when[32];
    size_t i;
    json_t *j;

    json_array_foreach(jobs, i, j)
    {
        id_cell(&t, json_object_get(j, "id"));
        cell(&t, "%s", dash(str(j, "state")));
        cell(&t, "%s", dash(str(j, "suite")));
        cell(&t, "%s", dash(str(j, "model")));
        cell(&t, "%s", job_platform(j, where, sizeof(where)));
        num_cell(&t, j, "progress", NULL, 100, "%.0f%%");
        cell(&t, "%s", short_time(str(j, "created_at"), when, sizeof(when)));
        cell(&t, "%s", str(j, "error") ? str(j, "error") : "");
    }
    return table_print(f, &t, err);
}

/* "openmp,opencl" from an array of names (or a string as it is). */
static void models_cell(struct table *t, json_t *models)
{
    char buf[256] = "";
    size_t i, len = 0;
    json_t *m;

    if (json_is_string(models)) {
        cell(t, "%s", json_string_value(models));
        return;
    }
    json_array_foreach(models, i, m)
    {
        if (json_is_string(m) && len < sizeof(buf))
            len += snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? "," : "", json_string_value(m));
    }
    cell(t, "%s", len ? buf : "-");
}

int format_platforms(FILE *f, json_t *platforms, struct pp_error *err)
{
    static const char *const head[] = {"ID", "KIND", "NAME", "PEAK GB/s", "MODELS", "WORKER"};
    struct table t = {.ncols = 6, .head = head, .align = "lllrll"};
    size_t i;
    json_t *p, *worker;

    json_array_foreach(platforms, i, p)
    {
        worker = json_object_get(p, "worker");
        cell(&t, "%s", dash(str(p, "id")));
        cell(&t, "%s", dash(str(p, "kind")));
        cell(&t, "%s", dash(str(p, "name")));
        num_cell(&t, p, "peak_bandwidth_bytes_per_s", NULL, 1e-9, "%.1f");
        models_cell(&t, json_object_get(p, "models"));
        cell(&t, "%s", json_is_object(worker) ? dash(str(worker, "state")) : "none");
    }
    return table_print(f, &t, err);
}

static const char *verified(json_t *r)
{
    json_t *v = json_object_get(r, "verified");
    return json_is_boolean(v) ? (json_is_true(v) ? "yes" : "NO") : "-";
}

/* A result's variant (the report's variant document as JSON text) as "k=v,k=v"; "-" when it has none. */
static void variant_cell(struct table *t, json_t *r)
{
    const char *text = str(r, "variant"), *key;
    json_t *doc = text ? json_loads(text, 0, NULL) : NULL, *v;
    char buf[256] = "";
    size_t n = 0;

    if (!json_is_object(doc)) {
        cell(t, "%s", text && *text ? text : "-");
        json_decref(doc);
        return;
    }
    json_object_foreach(doc, key, v)
    {
        char *val = json_is_string(v) ? strdup(json_string_value(v)) : json_dumps(v, JSON_ENCODE_ANY);
        if (n < sizeof(buf))
            n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s=%s", n ? "," : "", key, val ? val : "?");
        free(val);
    }
    json_decref(doc);
    cell(t, "%s", n ? buf : "-");
}

/* Each result with its identity (id, date, job, platform, model, variant), its problem (PRECISION, SIZE and
 * PROBLEM: the other parameters of its problem key, so rows of two problems of one size are told apart), the
 * statistic its rates come from (TIMING: min or mean, the server's "timing") and its FLAGS, so that a flagged
 * figure is never shown unmarked. */
int format_results(FILE *f, json_t *results, struct pp_error *err)
{
    static const char *const head[] = {"ID",     "CREATED",   "JOB",    "PLATFORM", "MODEL",
                                       "KERNEL", "PRECISION", "SIZE",   "PROBLEM",  "VARIANT",
                                       "GB/s",   "GFLOP/s",   "TIMING", "FLAGS",    "VERIFIED"};
    struct table t = {.ncols = 15, .head = head, .align = "rlrllllrllrrlll"};
    char when[32], fl[128], key[256];
    size_t i;
    double v;
    json_t *r;

    json_array_foreach(results, i, r)
    {
        const char *platform = str(r, "platform") ? str(r, "platform") : str(r, "platform_id");
        id_cell(&t, json_object_get(r, "id"));
        cell(&t, "%s", short_time(str(r, "created_at"), when, sizeof(when)));
        if (json_is_integer(json_object_get(r, "job_id")))
            id_cell(&t, json_object_get(r, "job_id"));
        else
            cell(&t, "%s", str(r, "origin") && !strcmp(str(r, "origin"), "import") ? "import" : "-");
        cell(&t, "%s", dash(platform));
        cell(&t, "%s", dash(str(r, "model")));
        if (str(r, "suite"))
            cell(&t, "%s.%s", str(r, "suite"), dash(str(r, "kernel")));
        else
            cell(&t, "%s", dash(str(r, "kernel")));
        cell(&t, "%s", dash(str(r, "precision")));
        num_cell(&t, r, "size", "array_size", 1, "%.0f");
        cell(&t, "%s", key_words(str(r, "problem_key"), NULL, true, key, sizeof(key)));
        variant_cell(&t, r);
        num_cell(&t, r, "bandwidth_bytes_per_s", "bandwidth", 1e-9, "%.3f");
        if (number2(r, "flops", NULL, &v) == 0 && v == 0)
            cell(&t, "-"); /* a kernel without flops (copy): none, not a measured 0.000 */
        else
            num_cell(&t, r, "gflops", NULL, 1, "%.3f");
        cell(&t, "%s", dash(str(r, "timing")));
        cell(&t, "%s", format_flags(r, fl, sizeof(fl))[0] ? fl : "-");
        cell(&t, "%s", verified(r));
    }
    if (table_print(f, &t, err))
        return -1;
    print_flag_legend(f, results);
    return 0;
}

/* An efficiency or PP cell: three decimals; "-" where the application has no verified result, "n/a" where it
 * has one but the figure is undefined (no theoretical peak). */
static void eff_cell(struct table *t, json_t *v, int has_result)
{
    if (json_is_number(v))
        cell(t, "%.3f", json_number_value(v));
    else
        cell(t, "%s", has_result ? "n/a" : "-");
}

/* The server's words (a note, a reason) with the API's parameter names as this CLI's options:
 * "include_flagged counts them" reads "--include-flagged counts them", include_runners(=true)
 * "--include-runners". */
static void server_words(FILE *f, const char *s)
{
    static const struct {
        const char *api, *cli;
    } words[] = {{"include_flagged", "--include-flagged"},
                 {"include_runners=true", "--include-runners"},
                 {"include_runners", "--include-runners"}};

    while (*s) {
        const char *at = NULL;
        size_t w = 0;
        for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
            const char *x = strstr(s, words[i].api);
            if (x && (!at || x < at))
                at = x, w = i;
        }
        if (!at) {
            fputs(s, f);
            return;
        }
        fprintf(f, "%.*s%s", (int)(at - s), s, words[w].cli);
        s = at + strlen(words[w].api);
    }
}

/* What include_runners=false left out (the answer's runners_hidden): how many results of which runners, why.
 */
static void print_runners_hidden(FILE *f, json_t *doc)
{
    json_t *h = json_object_get(doc, "runners_hidden"), *m;
    size_t i;

    if (!json_is_object(h) || json_integer_value(json_object_get(h, "results")) <= 0)
        return;
    fprintf(f, "left out: %lld result(s) of runners (",
            (long long)json_integer_value(json_object_get(h, "results")));
    json_array_foreach(json_object_get(h, "models"), i, m)
        fprintf(f, "%s%s", i ? ", " : "", json_string_value(m));
    fputs("): ", f);
    server_words(f, dash(str(h, "reason")));
    fputc('\n', f);
}

/* The problem's keys other than the table's (the answer's keys), each as --key takes it with its results, at
 * most ten; all of them when the answer has no key (no unflagged result: the keys say what there is). */
static void print_keys(FILE *f, json_t *doc)
{
    const char *key = str(doc, "problem_key");
    json_t *k;
    size_t i, shown = 0, others = 0;

    json_array_foreach(json_object_get(doc, "keys"), i, k) others +=
        !key || !str(k, "key") || strcmp(str(k, "key"), key);
    if (!others)
        return;
    fprintf(f, "%s (--key K):\n", key ? "other problem keys" : "problem keys");
    json_array_foreach(json_object_get(doc, "keys"), i, k)
    {
        long long n = json_integer_value(json_object_get(k, "results")),
                  all = json_integer_value(json_object_get(k, "results_all"));
        if ((key && str(k, "key") && !strcmp(str(k, "key"), key)) || shown++ == 10)
            continue;
        fprintf(f, "  %s: %lld result%s", dash(str(k, "key")), n, n == 1 ? "" : "s");
        if (all > n)
            fprintf(f, ", %lld more flagged", all - n);
        fputc('\n', f);
    }
    if (shown > 10)
        fprintf(f, "  and %zu more (--json lists them)\n", shown - 10);
}

/* What the flags left out of a PP answer (its "hidden"), and how to count it unless the answer's note said
 * that already (all flagged); nothing when none was. */
static void print_hidden(FILE *f, json_t *doc)
{
    json_t *hidden = json_object_get(doc, "hidden"), *n;
    const char *flag, *note = str(doc, "note");
    size_t i = 0;

    if (!json_is_object(hidden))
        return;
    fprintf(f, "left out: %lld flagged result(s) (",
            (long long)json_integer_value(json_object_get(hidden, "results")));
    json_object_foreach(json_object_get(hidden, "flags"), flag, n)
        fprintf(f, "%s%s %lld", i++ ? ", " : "", flag, (long long)json_integer_value(n));
    fprintf(f, ")%s\n",
            note && strstr(note, "include_flagged counts them") ? "" : "; --include-flagged counts them");
}

/* " [noisy,above_ceiling]" for an efficiency whose result is flagged, "" otherwise; in buf. */
static const char *flags_suffix(json_t *e, char *buf, size_t size)
{
    char text[160];

    buf[0] = '\0';
    if (format_flags(e, text, sizeof(text))[0])
        snprintf(buf, size, " [%s]", text);
    return buf;
}

/*
 * The lines above a PP table: the problem with its whole key (every parameter that makes it: "stream.triad:
 * fp64, size 33554432 elements, numtimes 100"), how the key and size were chosen when the question did not
 * name them, the efficiency and the policy (what), and the document's note.
 */
static void pp_header(FILE *f, json_t *doc, const char *what)
{
    const char *eff = str(doc, "efficiency"), *problem = str(doc, "problem"), *dot;
    char suite[64] = "", key[512];
    double size;

    if (problem && (dot = strchr(problem, '.')))
        snprintf(suite, sizeof(suite), "%.*s", (int)(dot - problem), problem);
    fprintf(f, "%s: ", dash(problem));
    if (str(doc, "problem_key"))
        fputs(key_words(str(doc, "problem_key"), size_unit(suite), false, key, sizeof(key)), f);
    else if (number(doc, "size", &size) == 0)
        fprintf(f, "%s, size %.0f", dash(str(doc, "precision")), size);
    else
        fputs(dash(str(doc, "precision")), f);
    fprintf(f, "; %s efficiency, %s%s\n", eff && !strcmp(eff, "arch") ? "architectural" : "application", what,
            json_is_true(json_object_get(doc, "include_flagged")) ? ", flagged results counted" : "");
    if (str(doc, "problem_key"))
        if (str(doc, "problem_key")) {
            fprintf(f, "problem key %s", str(doc, "problem_key"));
            if (str(doc, "key_note")) {
                fputs(" (", f);
                server_words(f, str(doc, "key_note"));
                fputc(')', f);
            }
            fputc('\n', f);
        }
    if (str(doc, "note")) {
        server_words(f, str(doc, "note"));
        fputc('\n', f);
    }
}

int format_pp(FILE *f, json_t *doc, struct pp_error *err)
{
    char fl[80];
    json_t *platforms = json_object_get(doc, "platforms"), *apps = json_object_get(doc, "applications");
    const char *variant = str(doc, "variant");
    size_t np = json_array_size(platforms), i, j;
    struct table t = {.ncols = 2 + np};
    const char **head = calloc(t.ncols, sizeof(*head));
    char *align = calloc(t.ncols + 1, 1);
    json_t *a, *p, *e;
    int rc = -1;

    if (!head || !align) {
        pp_error_set(err, "out of memory");
        goto out;
    }
    pp_header(f, doc, variant ? "one fixed variant" : "best variant per platform");
    head[0] = "APPLICATION";
    head[1] = "PP";
    align[0] = 'l';
    align[1] = 'r';
    json_array_foreach(platforms, i, p)
    {
        head[2 + i] = dash(str(p, "id"));
        align[2 + i] = 'r';
    }
    t.head = head;
    t.align = align;
    json_array_foreach(apps, i, a)
    {
        json_t *effs = json_object_get(a, "efficiencies");
        cell(&t, "%s", dash(str(a, "application")));
        eff_cell(&t, json_object_get(a, "pp"), 1);
        for (j = 0; j < np; j++) {
            e = json_array_get(effs, j);
            if (json_array_size(json_object_get(e, "flags")) &&
                json_is_number(json_object_get(e, "efficiency")))
                cell(&t, "%.3f%s", json_number_value(json_object_get(e, "efficiency")),
                     flags_suffix(e, fl, sizeof(fl)));
            else
                eff_cell(&t, json_object_get(e, "efficiency"),
                         json_is_integer(json_object_get(e, "result_id")));
        }
    }
    if (json_array_size(apps) == 0) {
        if (!str(doc, "note"))
            fprintf(f, "no application has a verified result for this problem on these platforms\n");
    } else if (table_print(f, &t, err)) {
        goto out;
    }
    json_array_foreach(apps, i, a)
    {
        if (str(a, "pp_note")) {
            fprintf(f, "  %s: ", dash(str(a, "application")));
            server_words(f, str(a, "pp_note"));
            fputc('\n', f);
        }
    }
    if (json_is_true(json_object_get(doc, "include_flagged")))
        fprintf(f, "flagged results counted (--include-flagged): a figure from one is marked [its flags]\n");
    print_hidden(f, doc);
    print_runners_hidden(f, doc);
    print_keys(f, doc);
    rc = 0;
out:
    for (i = 0; i < t.n; i++)
        free(t.cells[i]);
    free(t.cells);
    free(head);
    free(align);
    return rc;
}

int format_policies(FILE *f, json_t *doc, struct pp_error *err)
{
    char fl[80];
    json_t *platforms = json_object_get(doc, "platforms"), *pols = json_object_get(doc, "policies");
    size_t np = json_array_size(platforms), i, j;
    struct table t = {.ncols = 4 + np};
    const char **head = calloc(t.ncols, sizeof(*head));
    char *align = calloc(t.ncols + 1, 1);
    json_t *a, *p, *e;
    int rc = -1;

    if (!head || !align) {
        pp_error_set(err, "out of memory");
        goto out;
    }
    pp_header(f, doc, "every variant policy");
    head[0] = "POLICY";
    head[1] = "PP";
    head[2] = "DIVERGENCE";
    head[3] = "CONVERGENCE";
    memcpy(align, "lrrr", 4);
    json_array_foreach(platforms, i, p)
    {
        head[4 + i] = dash(str(p, "id"));
        align[4 + i] = 'r';
    }
    t.head = head;
    t.align = align;
    json_array_foreach(pols, i, a)
    {
        json_t *effs = json_object_get(a, "efficiencies");
        cell(&t, "%s", dash(str(a, "policy")));
        eff_cell(&t, json_object_get(a, "pp"), 1);
        eff_cell(&t, json_object_get(a, "code_divergence"), 1);
        eff_cell(&t, json_object_get(a, "code_convergence"), 1);
        for (j = 0; j < np; j++) {
            e = json_array_get(effs, j);
            if (str(e, "variant") && json_is_number(json_object_get(e, "efficiency")))
                cell(&t, "%.3f %s%s", json_number_value(json_object_get(e, "efficiency")), str(e, "variant"),
                     flags_suffix(e, fl, sizeof(fl)));
            else if (str(e, "unsupported"))
                cell(&t, "0 unsupported");
            else
                eff_cell(&t, json_object_get(e, "efficiency"),
                         json_is_integer(json_object_get(e, "result_id")));
        }
    }
    if (json_array_size(pols) == 0) {
        if (!str(doc, "note"))
            fprintf(f, "no policy has a verified result for this problem on these platforms\n");
    } else if (table_print(f, &t, err)) {
        goto out;
    }
    json_array_foreach(pols, i, a)
    {
        if (str(a, "pp_note")) {
            fprintf(f, "  %s: ", dash(str(a, "policy")));
            server_words(f, str(a, "pp_note"));
            fputc('\n', f);
        }
        if (str(a, "divergence_note"))
            fprintf(f, "  %s: divergence %s\n", dash(str(a, "policy")), str(a, "divergence_note"));
    }
    if (json_is_true(json_object_get(doc, "include_flagged")))
        fprintf(f, "flagged results counted (--include-flagged): a figure from one is marked [its flags]\n");
    print_hidden(f, doc);
    print_runners_hidden(f, doc);
    print_keys(f, doc);
    rc = 0;
out:
    for (i = 0; i < t.n; i++)
        free(t.cells[i]);
    free(t.cells);
    free(head);
    free(align);
    return rc;
}

/* The number at path a (or else b) times scale in a column of width, or "-" there when there is none. */
static void field(FILE *f, int width, int decimals, json_t *o, const char *a, const char *b, double scale)
{
    double v;

    /* decimals < 0: seconds, BabelStream's -decimals places, or 3 significant digits below a millisecond
     * (1024 elements' 0.00000 said nothing) */
    if (number2(o, a, b, &v) == 0 && decimals < 0 && v * scale > 0 && v * scale < 1e-3)
        fprintf(f, "%*.2e", width, v * scale);
    else if (number2(o, a, b, &v) == 0)
        fprintf(f, "%*.*f", width, decimals < 0 ? -decimals : decimals, v * scale);
    else
        fprintf(f, "%*s", width, "-");
}

/* One row of a job's table, BabelStream's columns and the result's verification and flags. */
static void job_result_row(FILE *f, json_t *r, bool lattice)
{
    char kernel[32], fl[128];

    snprintf(kernel, sizeof(kernel), "%s", dash(str(r, "kernel")));
    if (kernel[0] >= 'a' && kernel[0] <= 'z')
        kernel[0] = (char)(kernel[0] - 'a' + 'A'); /* BabelStream's labels: Copy, Mul, ... */
    fprintf(f, "%-10s", kernel);
    if (lattice)
        field(f, 12, 3, r, "gflops", "gflops", 1);
    field(f, 14, 3, r, "bandwidth_bytes_per_s", "bandwidth", 1e-6);
    field(f, 12, -5, r, "stats_s.min", "min_s", 1);
    field(f, 12, -5, r, "stats_s.max", "max_s", 1);
    field(f, 12, -5, r, "stats_s.mean", "mean_s", 1);
    fprintf(f, "  %-8s  %s\n", verified(r), format_flags(r, fl, sizeof(fl))[0] ? fl : "-");
}

bool format_superseded(json_t *r)
{
    json_t *fl;
    size_t k;

    json_array_foreach(json_object_get(r, "flags"), k, fl)
    {
        if (json_string_value(fl) && !strcmp(json_string_value(fl), "superseded"))
            return true;
    }
    return false;
}

/* The job's results: the table of its current run (the rows no later run superseded), then, when the job ran
 * again for noise, the earlier runs' rows under "Earlier runs", each run labelled: they count nowhere. */
void format_job_results(FILE *f, json_t *job)
{
    json_t *params = json_object_get(job, "params"), *results = json_object_get(job, "results"), *r;
    const char *where = str(job, "ran_on") ? str(job, "ran_on") : str(job, "platform");
    const char *prec = str(params, "precision"), *suite = str(job, "suite");
    /* GFLOP/s first for the suites whose figure of merit it is or is proportional to (the suite table's
     * figure: its flops). */
    const bool lattice = suite && suite_find(suite) && suite_find(suite)->figure->flops;
    char key[512];
    double n, k;
    size_t i, earlier = 0;
    json_t *current = NULL;
    long long run = 0;

    fprintf(f, "ppbench %s job ", dash(str(job, "suite")));
    if (json_is_integer(json_object_get(job, "id")))
        fprintf(f, "%lld", (long long)json_integer_value(json_object_get(job, "id")));
    fprintf(f, ": %s on %s, %s\n", dash(str(job, "model")), dash(where), dash(str(job, "state")));
    if (number(params, "numtimes", &k) == 0)
        fprintf(f, "Running kernels %.0f times (the first is warm-up, excluded)\n", k);
    if (prec)
        fprintf(f, "Precision: %s\n", strcmp(prec, "fp32") == 0 ? "float" : "double");
    if (str(params, "lattice"))
        fprintf(f, "Lattice: %s\n", str(params, "lattice"));
    if (number(params, "arraysize", &n) == 0) {
        double bytes = n * (prec && strcmp(prec, "fp32") == 0 ? 4 : 8);
        /* BabelStream's line, in a unit that shows the size (not "0.0 MB (=0.0 GB)" for 1000 elements) */
        if (bytes >= 1e8)
            fprintf(f, "Array size: %.1f MB (=%.1f GB)\n", bytes * 1e-6, bytes * 1e-9);
        else if (bytes >= 1e5)
            fprintf(f, "Array size: %.1f MB\n", bytes * 1e-6);
        else
            fprintf(f, "Array size: %.1f KB\n", bytes * 1e-3);
    }
    /* The problem (every parameter of its key) and the code (the variant's name) of the table's rows: a
     * sweep's tables differ here. */
    json_array_foreach(results, i, r)
    {
        if (format_superseded(r))
            earlier++;
        else if (!current)
            current = r;
    }
    r = current ? current : json_array_get(results, 0);
    if (str(r, "problem_key"))
        fprintf(f, "Problem: %s\n",
                key_words(str(r, "problem_key"), size_unit(suite), false, key, sizeof(key)));
    if (str(r, "variant"))
        fprintf(f, "Variant: %s\n", str(r, "variant"));
    if (earlier && current && json_is_integer(json_object_get(current, "attempt")))
        fprintf(f, "Run %lld, the job's current run (its results are the ones that count):\n",
                (long long)json_integer_value(json_object_get(current, "attempt")));
    fprintf(f, "%-10s%s%14s%12s%12s%12s  %-8s  %s\n", "Function", lattice ? "     GFLOP/s" : "", "MBytes/sec",
            "Min (sec)", "Max", "Average", "Verified", "Flags");
    json_array_foreach(results, i, r)
    {
        if (!format_superseded(r))
            job_result_row(f, r, lattice);
    }
    if (earlier)
        fprintf(f, "Earlier runs (%zu result%s, superseded: they count nowhere):\n", earlier,
                earlier == 1 ? "" : "s");
    json_array_foreach(results, i, r)
    {
        long long a = json_integer_value(json_object_get(r, "attempt"));
        if (!format_superseded(r))
            continue;
        if (a != run) {
            run = a;
            fprintf(f, "Run %lld, superseded by run %lld:\n", a,
                    (long long)json_integer_value(json_object_get(r, "superseded_by")));
        }
        job_result_row(f, r, lattice);
    }
    print_flag_legend(f, results);
}

void format_progress(FILE *f, long long id, const char *state, double progress)
{
    char bar[31];
    int fill;

    if (progress < 0)
        progress = 0;
    if (progress > 1)
        progress = 1;
    fill = (int)(progress * 30 + 0.5);
    memset(bar, '#', (size_t)fill);
    memset(bar + fill, ' ', (size_t)(30 - fill));
    bar[30] = '\0';
    fprintf(f, "\rjob %lld %-9s [%s] %3.0f%%\033[K", id, state, bar, 100 * progress);
    fflush(f);
}
