/*
 * runners: see runners.h. A line reader of the runners file: `[name]` opens a runner, `key = value` sets one
 * of its keys (one table, `keys`, says which exist and checks each), `#` starts a comment. The whole file is
 * checked before it is used: a runner with no program, an unknown key, a placeholder that names no parameter
 * of its suite, a name that is a built-in model's. struct runners owns the words it holds; main thread.
 */
#include "worker/runners.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char name_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789._-";

/* Split value on blanks into owned words. */
static int split_words(const char *value, char **words, int *n, struct pp_error *err)
{
    const char *p = value;

    *n = 0;
    while (*p) {
        size_t len;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        len = strcspn(p, " \t");
        if (*n == RUNNER_MAX_WORDS)
            return pp_error_set(err, "more than %d words", RUNNER_MAX_WORDS);
        if (!(words[*n] = strndup(p, len)))
            return pp_error_set(err, "out of memory");
        (*n)++;
        p += len;
    }
    return 0;
}

/* The job's value of parameter i as text. */
static void value_text(const struct suite_values *v, int i, char *out, size_t size)
{
    const struct suite_param *p = &v->suite->params[i];

    if (p->type == SUITE_INTEGER)
        snprintf(out, size, "%lld", v->v[i].i);
    else if (p->type == SUITE_NUMBER)
        snprintf(out, size, "%.17g", v->v[i].f);
    else
        snprintf(out, size, "%s", v->v[i].s);
}

/* {device}: the index of the local platform the runner runs on, the digits its id ends with (gpu1: 1; cpu0:
 * 0), which is the device's ordinal as the worker lists them (`ppbench-worker list`); NULL when it has none.
 */
static const char *device_index(const struct runner_def *d)
{
    size_t n = strlen(d->platform), i = n;

    while (i > 0 && d->platform[i - 1] >= '0' && d->platform[i - 1] <= '9')
        i--;
    return i < n ? d->platform + i : NULL;
}

/* One template word filled from v into out; *drop when a {name=value:WORD} did not hold (the word goes). With
 * v NULL, only checks the word's placeholders against the suite. */
static int fill_word(const struct runner_def *d, const char *word, const struct suite_values *v, char *out,
                     size_t size, bool *drop, struct pp_error *err)
{
    size_t used = 0;
    const char *p = word;

    *drop = false;
    out[0] = '\0';
    while (*p) {
        const char *open = strchr(p, '{'), *close, *eq, *colon;
        char name[64], want[64], text[SUITE_VALUE_MAX + 32];
        int i;

        if (!open) {
            used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%s", p);
            break;
        }
        used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%.*s", (int)(open - p), p);
        if (!(close = strchr(open, '}')))
            return pp_error_set(err, "\"%s\": a { without its }", word);
        eq = memchr(open, '=', (size_t)(close - open));
        colon = eq ? memchr(eq, ':', (size_t)(close - eq)) : NULL;
        if (eq && !colon)
            return pp_error_set(err, "\"%s\": {name=value:WORD} needs its :WORD", word);
        const char *name_end = eq ? eq : close;
        if ((size_t)(name_end - open - 1) >= sizeof(name) || (eq && (size_t)(colon - eq - 1) >= sizeof(want)))
            return pp_error_set(err, "\"%s\": a placeholder too long", word);
        snprintf(name, sizeof(name), "%.*s", (int)(name_end - open - 1), open + 1);
        if (!strcmp(name, "device") && !eq) {
            if (!device_index(d))
                return pp_error_set(
                    err, "\"%s\": {device} needs a platform whose id ends with its index (gpu0)", word);
            used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%s", device_index(d));
            p = close + 1;
            continue;
        }
        i = suite_param_index(d->suite, name);
        if (i < 0 || d->suite->params[i].standalone)
            return pp_error_set(err, "\"%s\": {%s} is no parameter of suite %s", word, name, d->suite->name);
        if (eq) {
            snprintf(want, sizeof(want), "%.*s", (int)(colon - eq - 1), eq + 1);
            if (strchr(colon + 1, '{') && strchr(colon + 1, '{') < close)
                return pp_error_set(err, "\"%s\": placeholders do not nest", word);
        }
        if (v && eq) {
            value_text(v, i, text, sizeof(text));
            if (!v->v[i].set || strcmp(text, want) != 0)
                *drop = true;
            used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%.*s",
                                     (int)(close - colon - 1), colon + 1);
        } else if (v) {
            if (!v->v[i].set)
                return pp_error_set(err, "runner %s needs params.%s (its arguments use {%s})", d->name, name,
                                    name);
            value_text(v, i, text, sizeof(text));
            used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%s", text);
        }
        p = close + 1;
    }
    if (used >= size)
        return pp_error_set(err, "\"%s\": the word is too long", word);
    return 0;
}

int runners_argv(const struct runner_def *d, char *const *words, int nwords, const struct suite_values *v,
                 char **argv, struct pp_error *err)
{
    char word[1024];
    bool drop;
    int n = 0;

    memset(argv, 0, (RUNNER_MAX_WORDS + 2) * sizeof(*argv));
    if (!(argv[n++] = strdup(d->program)))
        return pp_error_set(err, "out of memory");
    for (int i = 0; i < nwords; i++) {
        if (fill_word(d, words[i], v, word, sizeof(word), &drop, err))
            goto fail;
        if (drop)
            continue;
        if (!(argv[n++] = strdup(word))) {
            pp_error_set(err, "out of memory");
            goto fail;
        }
    }
    return 0;
fail:
    runners_argv_free(argv);
    return -1;
}

void runners_argv_free(char **argv)
{
    for (int i = 0; argv[i]; i++) {
        free(argv[i]);
        argv[i] = NULL;
    }
}

/* ---- the keys of a runner ---- */

static int set_suite(struct runner_def *d, const char *v, struct pp_error *err)
{
    if (!(d->suite = suite_find(v)))
        return pp_error_set(err, "unknown suite \"%s\" (built: %s)", v, suite_names());
    d->kernels = 0;
    return 0;
}

static int set_kernels(struct runner_def *d, const char *v, struct pp_error *err)
{
    char copy[512], *save = NULL;
    int k;

    if (!d->suite)
        return pp_error_set(err, "kernels goes after suite");
    snprintf(copy, sizeof(copy), "%s", v);
    d->kernels = 0;
    for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        if ((k = suite_kernel_index(d->suite, t)) < 0)
            return pp_error_set(err, "suite %s has no kernel \"%s\"", d->suite->name, t);
        d->kernels |= 1u << k;
    }
    return d->kernels ? 0 : pp_error_set(err, "kernels is empty");
}

static int set_platform(struct runner_def *d, const char *v, struct pp_error *err)
{
    if (!*v || strlen(v) >= sizeof(d->platform))
        return pp_error_set(err, "platform must be a local platform id such as cpu0");
    snprintf(d->platform, sizeof(d->platform), "%s", v);
    return 0;
}

static int set_program(struct runner_def *d, const char *v, struct pp_error *err)
{
    if (v[0] != '/' || strlen(v) >= sizeof(d->program))
        return pp_error_set(err, "program must be an absolute path");
    if (access(v, X_OK) != 0)
        return pp_error_set(err, "program %s: %s", v, strerror(errno));
    snprintf(d->program, sizeof(d->program), "%s", v);
    return 0;
}

static int set_args(struct runner_def *d, const char *v, struct pp_error *err)
{
    return split_words(v, d->args, &d->nargs, err);
}

static int set_version_args(struct runner_def *d, const char *v, struct pp_error *err)
{
    return split_words(v, d->version_args, &d->nversion_args, err);
}

static int set_output(struct runner_def *d, const char *v, struct pp_error *err)
{
    if (strcmp(v, "babelstream-csv") != 0 && strcmp(v, "ppbench-json") != 0)
        return pp_error_set(err, "output must be babelstream-csv or ppbench-json");
    snprintf(d->output, sizeof(d->output), "%s", v);
    return 0;
}

static int set_timeout(struct runner_def *d, const char *v, struct pp_error *err)
{
    char *end;

    errno = 0;
    d->timeout_s = strtol(v, &end, 10);
    if (errno || *end || d->timeout_s < 1 || d->timeout_s > 86400)
        return pp_error_set(err, "timeout_s must be a whole number of seconds from 1 to 86400");
    return 0;
}

static int set_env(struct runner_def *d, const char *v, struct pp_error *err)
{
    size_t n = strcspn(v, "=");

    if (!v[n] || n == 0 ||
        strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != n ||
        isdigit((unsigned char)v[0]))
        return pp_error_set(err, "env must be NAME=VALUE");
    if (d->nenv == RUNNER_MAX_ENV)
        return pp_error_set(err, "more than %d env lines", RUNNER_MAX_ENV);
    if (!(d->env[d->nenv] = strdup(v)))
        return pp_error_set(err, "out of memory");
    d->nenv++;
    return 0;
}

static const struct key {
    const char *name;
    int (*set)(struct runner_def *d, const char *value, struct pp_error *err);
} keys[] = {
    {"suite", set_suite},     {"kernels", set_kernels},   {"platform", set_platform},
    {"program", set_program}, {"args", set_args},         {"version_args", set_version_args},
    {"output", set_output},   {"timeout_s", set_timeout}, {"env", set_env},
};

/* A finished section: what it must have, and its placeholders against its suite. */
static int check_runner(struct runner_def *d, struct pp_error *err)
{
    char word[1024];
    bool drop;

    if (!d->suite || !d->program[0] || !d->platform[0] || !d->output[0] || !d->nargs)
        return pp_error_set(err, "runner %s needs suite, platform, program, args and output", d->name);
    /* BabelStream's table holds STREAM's kernels only */
    if (!strcmp(d->output, "babelstream-csv") && strcmp(d->suite->name, "stream"))
        return pp_error_set(err, "runner %s: output babelstream-csv is STREAM's table: suite must be stream",
                            d->name);
    if (!d->kernels)
        d->kernels = (1u << suite_nkernels(d->suite)) - 1;
    if (!d->timeout_s)
        d->timeout_s = 3600;
    for (int i = 0; i < d->nargs; i++)
        if (fill_word(d, d->args[i], NULL, word, sizeof(word), &drop, err))
            return -1;
    for (int i = 0; i < d->nversion_args; i++)
        if (strchr(d->version_args[i], '{'))
            return pp_error_set(err, "version_args takes no placeholders");
    return 0;
}

static int new_runner(struct runners *rs, const char *name, struct pp_error *err)
{
    size_t n = strlen(name);

    if (n < 1 || n >= sizeof(rs->items[0].name) || strspn(name, name_chars) != n ||
        !isalpha((unsigned char)name[0]))
        return pp_error_set(err,
                            "a runner's name is 1 to 63 lowercase letters, digits, '.', '_' or '-', "
                            "starting with a letter, got \"%s\"",
                            name);
    if (suite_model_known(name))
        return pp_error_set(err, "%s is a built-in model, not a runner's name", name);
    if (runners_find(rs, name))
        return pp_error_set(err, "runner %s is defined twice", name);
    if (rs->n == RUNNERS_MAX)
        return pp_error_set(err, "more than %d runners", RUNNERS_MAX);
    memset(&rs->items[rs->n], 0, sizeof(rs->items[0]));
    snprintf(rs->items[rs->n].name, sizeof(rs->items[0].name), "%s", name);
    rs->n++;
    return 0;
}

static char *trim(char *s)
{
    char *end = s + strlen(s);

    while (*s == ' ' || *s == '\t')
        s++;
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
        *--end = '\0';
    return s;
}

static int read_line(struct runners *rs, char *s, int line, struct pp_error *err)
{
    struct runner_def *d = rs->n ? &rs->items[rs->n - 1] : NULL;
    char *eq;

    s = trim(s);
    if (!*s || *s == '#')
        return 0;
    if (*s == '[') {
        size_t n = strlen(s);
        if (d && check_runner(d, err))
            return -1;
        if (s[n - 1] != ']')
            return pp_error_set(err, "expected [name]");
        s[n - 1] = '\0';
        if (new_runner(rs, trim(s + 1), err))
            return -1;
        rs->items[rs->n - 1].line = line;
        return 0;
    }
    if (!(eq = strchr(s, '=')))
        return pp_error_set(err, "expected [name] or key = value");
    if (!d)
        return pp_error_set(err, "a key before the first [name]");
    *eq = '\0';
    const char *key = trim(s), *value = trim(eq + 1);
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
        if (strcmp(keys[k].name, key) == 0)
            return keys[k].set(d, value, err);
    return pp_error_set(err,
                        "unknown key \"%s\" (suite, kernels, platform, program, args, version_args, output, "
                        "timeout_s, env)",
                        key);
}

int runners_load(struct runners *rs, const char *path, struct pp_error *err)
{
    FILE *f;
    char *line = NULL;
    size_t cap = 0;
    int n = 0, rc = 0;

    memset(rs, 0, sizeof(*rs));
    if (!path || !*path)
        path = getenv("PPBENCH_RUNNERS");
    if ((!path || !*path) && access(RUNNERS_DEFAULT, F_OK) == 0)
        path = RUNNERS_DEFAULT;
    if (!path || !*path)
        return 0;
    if (strlen(path) >= sizeof(rs->path))
        return pp_error_set(err, "the runners file's path is too long");
    snprintf(rs->path, sizeof(rs->path), "%s", path);
    if (!(f = fopen(path, "r")))
        return pp_error_set(err, "cannot read the runners file %s: %s", path, strerror(errno));
    while (rc == 0 && getline(&line, &cap, f) >= 0)
        rc = read_line(rs, line, ++n, err);
    if (rc == 0 && rs->n)
        rc = check_runner(&rs->items[rs->n - 1], err);
    free(line);
    fclose(f);
    if (rc) {
        pp_error_prefix(err, "%s:%d", path, n);
        runners_release(rs);
    }
    return rc;
}

void runners_release(struct runners *rs)
{
    for (int i = 0; i < rs->n; i++) {
        struct runner_def *d = &rs->items[i];
        for (int w = 0; w < d->nargs; w++)
            free(d->args[w]);
        for (int w = 0; w < d->nversion_args; w++)
            free(d->version_args[w]);
        for (int w = 0; w < d->nenv; w++)
            free(d->env[w]);
    }
    rs->n = 0;
}

const struct runner_def *runners_find(const struct runners *rs, const char *name)
{
    for (int i = 0; i < rs->n; i++)
        if (strcmp(rs->items[i].name, name) == 0)
            return &rs->items[i];
    return NULL;
}

json_t *runners_json(const struct runners *rs, const char *platform)
{
    json_t *a = json_array();

    for (int i = 0; i < rs->n; i++) {
        const struct runner_def *d = &rs->items[i];
        json_t *kernels = json_array();
        if (strcmp(d->platform, platform) != 0)
            continue;
        for (size_t k = 0; d->suite->kernels[k]; k++)
            if (d->kernels & (1u << k))
                json_array_append_new(kernels, json_string(d->suite->kernels[k]));
        json_array_append_new(a,
                              json_pack("{s:s, s:s, s:o, s:s, s:s}", "name", d->name, "suite", d->suite->name,
                                        "kernels", kernels, "output", d->output, "program", d->program));
    }
    return a;
}
