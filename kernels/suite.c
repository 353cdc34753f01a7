/*
 * suite: the checks and conversions of a job's suite, kernels and parameters, over the table of
 * kernels/suites.c. The same code checks a job in ppbenchd at submission and in the worker's child before it
 * runs, so the two can never disagree. Pure: no state, any thread.
 */
#include "suite.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/lattice.h"

__attribute__((format(printf, 4, 5))) static int fail(struct suite_error *e, const char *code,
                                                      const char *field, const char *fmt, ...)
{
    va_list ap;

    e->code = code;
    snprintf(e->field, sizeof(e->field), "%s", field);
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return -1;
}

const struct suite *suite_find(const char *name)
{
    for (size_t i = 0; i < suite_count(); i++)
        if (strcmp(suite_at(i)->name, name) == 0)
            return suite_at(i);
    return NULL;
}

const char *suite_timing(const struct suite *s, const json_t *params)
{
    const char *t = json_string_value(json_object_get(params, "timing"));

    if (t && suite_param(s, "timing"))
        return strcmp(t, "best") == 0 || strcmp(t, "min") == 0 ? "min" : "mean";
    return s->timing;
}

static char suite_list[256], model_list[128];

static void make_lists(void)
{
    for (size_t i = 0, used = 0; i < suite_count() && used < sizeof(suite_list); i++)
        used += (size_t)snprintf(suite_list + used, sizeof(suite_list) - used, "%s%s", i ? ", " : "",
                                 suite_at(i)->name);
    for (size_t i = 0, used = 0; suite_models[i] && used < sizeof(model_list); i++)
        used += (size_t)snprintf(model_list + used, sizeof(model_list) - used, "%s%s", i ? ", " : "",
                                 suite_models[i]);
}

static pthread_once_t lists_once = PTHREAD_ONCE_INIT;

const char *suite_names(void)
{
    pthread_once(&lists_once, make_lists);
    return suite_list;
}

int suite_param_index(const struct suite *s, const char *name)
{
    for (size_t i = 0; i < s->nparams; i++)
        if (strcmp(s->params[i].name, name) == 0)
            return (int)i;
    return -1;
}

const struct suite_param *suite_param(const struct suite *s, const char *name)
{
    int i = suite_param_index(s, name);
    return i < 0 ? NULL : &s->params[i];
}

int suite_kernel_index(const struct suite *s, const char *name)
{
    for (size_t i = 0; s->kernels[i]; i++)
        if (strcmp(s->kernels[i], name) == 0)
            return (int)i;
    return -1;
}

size_t suite_nkernels(const struct suite *s)
{
    size_t n = 0;
    while (s->kernels[n])
        n++;
    return n;
}

void suite_values_default(struct suite_values *v, const struct suite *s)
{
    memset(v, 0, sizeof(*v));
    v->suite = s;
    v->kernels = (1u << suite_nkernels(s)) - 1;
    for (size_t i = 0; i < s->nparams; i++) {
        const struct suite_param *p = &s->params[i];
        if (p->optional || p->type == SUITE_LATTICE) /* a lattice's default is the device's */
            continue;
        v->v[i].set = true;
        v->v[i].i = p->def;
        v->v[i].f = p->fdef;
        if (p->type == SUITE_ENUM)
            snprintf(v->v[i].s, sizeof(v->v[i].s), "%s", p->choices[p->def]);
    }
}

/* A checked value of parameter i. field is what the error names ("params.<name>" for the API's JSON,
 * "--<name>" for a command line); text says which, for the wording. */
static int set_int(struct suite_values *v, size_t i, long long n, const char *field, struct suite_error *e)
{
    const struct suite_param *p = &v->suite->params[i];

    if (n < p->min || n > p->max)
        return fail(e, "out_of_range", field, "%s must be from %lld to %lld, got %lld", field, p->min, p->max,
                    n);
    v->v[i].set = true;
    v->v[i].i = n;
    return 0;
}

static int set_number(struct suite_values *v, size_t i, double x, const char *field, struct suite_error *e)
{
    const struct suite_param *p = &v->suite->params[i];

    if (!(x >= p->fmin && x <= p->fmax)) /* NaN fails too */
        return fail(e, "out_of_range", field, "%s must be from %g to %g, got %g", field, p->fmin, p->fmax, x);
    v->v[i].set = true;
    v->v[i].f = x;
    return 0;
}

static int set_string(struct suite_values *v, size_t i, const char *s, const char *field, bool text,
                      struct suite_error *e)
{
    const struct suite_param *p = &v->suite->params[i];
    struct pp_error err;
    unsigned dims[4];
    char known[160];
    size_t used = 0, k;

    if (strlen(s) >= SUITE_VALUE_MAX)
        return fail(e, "invalid_value", field, "%s: longer than %d characters", field, SUITE_VALUE_MAX - 1);
    if (p->type == SUITE_LATTICE) {
        if (lattice_parse(s, dims, &err))
            return fail(e, "invalid_value", field,
                        "invalid %s \"%s\": expected four extents X x Y x Z x T, like 8x8x8x16", field, s);
        if (lattice_check_extents(dims, &err))
            return fail(e, "invalid_value", field, "%s%s%s", text ? "" : field, text ? "" : ": ", err.msg);
    } else {
        for (k = 0; p->choices[k] && strcmp(p->choices[k], s) != 0; k++)
            ;
        if (!p->choices[k]) {
            for (k = 0; p->choices[k] && used < sizeof(known); k++)
                used += (size_t)snprintf(known + used, sizeof(known) - used, "%s%s", k ? ", " : "",
                                         p->choices[k]);
            return fail(e, "invalid_value", field, "%s%sunknown %s \"%s\" (%s has: %s)", text ? "" : field,
                        text ? "" : ": ", p->name, s, v->suite->name, known);
        }
        v->v[i].i = (long long)k;
    }
    v->v[i].set = true;
    snprintf(v->v[i].s, sizeof(v->v[i].s), "%s", s);
    return 0;
}

static int set_kernel_list(struct suite_values *v, json_t *kernels, struct suite_error *e)
{
    size_t i;
    json_t *k;
    int idx;

    if (!kernels)
        return 0;
    if (!json_is_array(kernels) || json_array_size(kernels) == 0)
        return fail(e, "wrong_type", "kernels", "kernels must be a non-empty array of kernel names");
    v->kernels = 0;
    json_array_foreach(kernels, i, k)
    {
        if (!json_is_string(k))
            return fail(e, "wrong_type", "kernels", "kernels must be a non-empty array of kernel names");
        if ((idx = suite_kernel_index(v->suite, json_string_value(k))) < 0)
            return fail(e, "unknown_kernel", "kernels", "unknown kernel \"%.64s\" in suite %s",
                        json_string_value(k), v->suite->name);
        if (v->kernels & (1u << idx))
            return fail(e, "invalid_value", "kernels", "kernel \"%s\" named twice", json_string_value(k));
        v->kernels |= 1u << idx;
    }
    return 0;
}

int suite_values_from_json(struct suite_values *v, const struct suite *s, json_t *params, json_t *kernels,
                           struct suite_error *e)
{
    const char *key;
    json_t *val;
    char field[80];
    int i;

    suite_values_default(v, s);
    if (set_kernel_list(v, kernels, e))
        return -1;
    if (params && !json_is_object(params))
        return fail(e, "wrong_type", "params", "params must be an object");
    json_object_foreach(params, key, val)
    {
        snprintf(field, sizeof(field), "params.%.64s", key);
        if ((i = suite_param_index(s, key)) < 0 || s->params[i].standalone)
            return fail(e, "unknown_field", field, "unknown field \"%s\"", field);
        if (s->params[i].type == SUITE_INTEGER) {
            if (!json_is_integer(val))
                return fail(e, "wrong_type", field, "%s must be an integer", field);
            if (set_int(v, (size_t)i, json_integer_value(val), field, e))
                return -1;
        } else if (s->params[i].type == SUITE_NUMBER) {
            if (!json_is_number(val))
                return fail(e, "wrong_type", field, "%s must be a number", field);
            if (set_number(v, (size_t)i, json_number_value(val), field, e))
                return -1;
        } else {
            if (!json_is_string(val))
                return fail(e, "wrong_type", field, "%s must be a string", field);
            if (set_string(v, (size_t)i, json_string_value(val), field, false, e))
                return -1;
        }
    }
    return 0;
}

int suite_values_set(struct suite_values *v, const char *name, const char *text, struct suite_error *e)
{
    int i = suite_param_index(v->suite, name);
    char field[80];
    long long n;
    char *end;

    if (i < 0)
        return fail(e, "unknown_field", name, "suite %s has no parameter \"%.64s\"", v->suite->name, name);
    suite_option_name(name, field, sizeof(field));
    if (v->suite->params[i].type == SUITE_NUMBER) {
        double x;
        errno = 0;
        x = strtod(text, &end);
        if (!*text || *end || errno)
            return fail(e, "wrong_type", field, "invalid %s \"%s\": expected a number from %g to %g", field,
                        text, v->suite->params[i].fmin, v->suite->params[i].fmax);
        return set_number(v, (size_t)i, x, field, e);
    }
    if (v->suite->params[i].type != SUITE_INTEGER)
        return set_string(v, (size_t)i, text, field, true, e);
    errno = 0;
    n = strtoll(text, &end, 10);
    if (!*text || *end || errno || (text[0] == '-' && v->suite->params[i].min >= 0))
        return fail(e, "wrong_type", field, "invalid %s \"%s\": expected a whole number from %lld to %lld",
                    field, text, v->suite->params[i].min, v->suite->params[i].max);
    return set_int(v, (size_t)i, n, field, e);
}

int suite_values_set_kernels(struct suite_values *v, const char *list, struct suite_error *e)
{
    char name[64];
    const char *p = list, *comma;
    size_t len;
    int idx;

    v->kernels = 0;
    while (*p) {
        comma = strchr(p, ',');
        len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0)
            return fail(e, "invalid_value", "kernels", "empty kernel name in \"%s\"", list);
        snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1), p);
        if ((idx = suite_kernel_index(v->suite, name)) < 0)
            return fail(e, "unknown_kernel", "kernels", "unknown kernel \"%s\" in suite %s", name,
                        v->suite->name);
        v->kernels |= 1u << idx;
        p += len + (comma != NULL);
        if (comma && !*p)
            return fail(e, "invalid_value", "kernels", "empty kernel name in \"%s\"", list);
    }
    if (!v->kernels)
        return fail(e, "invalid_value", "kernels", "no kernel selected");
    return 0;
}

json_t *suite_values_params_json(const struct suite_values *v)
{
    json_t *o = json_object();

    for (size_t i = 0; i < v->suite->nparams; i++) {
        if (!v->v[i].set || v->suite->params[i].standalone)
            continue;
        enum suite_param_type t = v->suite->params[i].type;
        json_object_set_new(o, v->suite->params[i].name,
                            t == SUITE_INTEGER  ? json_integer(v->v[i].i)
                            : t == SUITE_NUMBER ? json_real(v->v[i].f)
                                                : json_string(v->v[i].s));
    }
    return o;
}

json_t *suite_values_kernels_json(const struct suite_values *v)
{
    json_t *a = json_array();

    for (size_t i = 0; v->suite->kernels[i]; i++)
        if (v->kernels & (1u << i))
            json_array_append_new(a, json_string(v->suite->kernels[i]));
    return a;
}

static const struct suite_value *value(const struct suite_values *v, const char *name)
{
    int i = suite_param_index(v->suite, name);

    if (i < 0) { /* a driver asked for a parameter its own table row lacks: a programming error */
        fprintf(stderr, "suite %s has no parameter %s\n", v->suite->name, name);
        abort();
    }
    return &v->v[i];
}

long long suite_int(const struct suite_values *v, const char *name)
{
    return value(v, name)->i;
}

double suite_number(const struct suite_values *v, const char *name)
{
    return value(v, name)->f;
}

const char *suite_str(const struct suite_values *v, const char *name)
{
    return value(v, name)->s;
}

bool suite_is_set(const struct suite_values *v, const char *name)
{
    return value(v, name)->set;
}

bool suite_kernel_on(const struct suite_values *v, const char *kernel)
{
    int i = suite_kernel_index(v->suite, kernel);
    return i >= 0 && (v->kernels & (1u << i));
}

void suite_option_name(const char *name, char *out, size_t size)
{
    size_t n = 0;

    if (size < 3)
        return;
    out[n++] = '-';
    out[n++] = '-';
    for (; *name && n + 1 < size; name++)
        out[n++] = *name == '_' ? '-' : *name;
    out[n] = '\0';
}

void suite_param_owners(const char *name, char *out, size_t size)
{
    size_t used = 0, n = 0, total = 0;

    for (size_t i = 0; i < suite_count(); i++)
        total += suite_param(suite_at(i), name) != NULL;
    out[0] = '\0';
    for (size_t i = 0; i < suite_count() && used < size; i++)
        if (suite_param(suite_at(i), name)) {
            n++;
            used += (size_t)snprintf(out + used, size - used, "%s%s",
                                     n == 1       ? ""
                                     : n == total ? " and "
                                                  : ", ",
                                     suite_at(i)->name);
        }
}

/* Whether model is in the comma-separated list (NULL: every model). */
static bool model_in(const char *list, const char *model)
{
    size_t n = strlen(model);

    if (!list)
        return true;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, model, n) == 0)
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

/* The models of a choice as a JSON array: the list, or every model when it is NULL (new reference). */
static json_t *models_json(const char *list)
{
    json_t *a = json_array();

    for (const char *const *m = suite_models; *m; m++)
        if (model_in(list, *m))
            json_array_append_new(a, json_string(*m));
    return a;
}

int suite_values_check_model(const struct suite_values *v, const char *model, struct suite_error *e)
{
    const struct suite *s = v->suite;

    for (size_t i = 0; i < s->nparams; i++) {
        const struct suite_param *p = &s->params[i];
        int c = -1;
        if (p->type != SUITE_ENUM || !p->choice_models || !v->v[i].set)
            continue;
        for (int k = 0; p->choices[k]; k++)
            if (strcmp(p->choices[k], v->v[i].s) == 0)
                c = k;
        if (c < 0 || model_in(p->choice_models[c], model))
            continue;
        char has[256] = "";
        for (int k = 0; p->choices[k]; k++)
            if (model_in(p->choice_models[k], model)) {
                size_t n = strlen(has);
                snprintf(has + n, sizeof(has) - n, "%s%s", n ? ", " : "", p->choices[k]);
            }
        e->code = "invalid_value";
        snprintf(e->field, sizeof(e->field), "params.%s", p->name);
        snprintf(e->msg, sizeof(e->msg), "params.%s: model %s has no %s \"%s\" (it has: %s)", p->name, model,
                 p->name, v->v[i].s, has[0] ? has : "none");
        return -1;
    }
    return 0;
}

static json_t *param_json(const struct suite_param *p)
{
    static const char *const types[] = {[SUITE_INTEGER] = "integer",
                                        [SUITE_ENUM] = "enum",
                                        [SUITE_LATTICE] = "string",
                                        [SUITE_NUMBER] = "number"};
    json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:b, s:b, s:b}", "name", p->name, "type", types[p->type],
                          "description", p->description, "optional", p->optional, "key", p->key, "variant",
                          p->variant, "size", p->size);

    if (p->type == SUITE_ENUM) {
        json_t *c = json_array();
        for (int k = 0; p->choices[k]; k++)
            json_array_append_new(c, json_string(p->choices[k]));
        json_object_set_new(o, "choices", c);
        if (p->choice_models) {
            json_t *m = json_object();
            for (int k = 0; p->choices[k]; k++)
                json_object_set_new(m, p->choices[k], models_json(p->choice_models[k]));
            json_object_set_new(o, "choice_models", m);
        }
        if (p->choice_help) {
            json_t *h = json_object();
            for (int k = 0; p->choices[k]; k++)
                json_object_set_new(h, p->choices[k], json_string(p->choice_help[k]));
            json_object_set_new(o, "choice_help", h);
        }
    } else if (p->type == SUITE_INTEGER) {
        json_object_set_new(o, "min", json_integer(p->min));
        json_object_set_new(o, "max", json_integer(p->max));
    } else if (p->type == SUITE_NUMBER) {
        json_object_set_new(o, "min", json_real(p->fmin));
        json_object_set_new(o, "max", json_real(p->fmax));
    } else {
        json_object_set_new(o, "format", json_string("lattice"));
    }
    json_object_set_new(o, "default",
                        p->optional                ? json_null()
                        : p->type == SUITE_ENUM    ? json_string(p->choices[p->def])
                        : p->type == SUITE_INTEGER ? json_integer(p->def)
                        : p->type == SUITE_NUMBER  ? json_real(p->fdef)
                                                   : json_null());
    return o;
}

int suite_key_value(const json_t *v, char *out, size_t size)
{
    int n = -1;

    if (json_is_integer(v))
        n = snprintf(out, size, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        n = snprintf(out, size, "%.17g", json_real_value(v));
    else if (json_is_string(v) && !strpbrk(json_string_value(v), ";=,\"\n"))
        n = snprintf(out, size, "%s", json_string_value(v));
    else if (json_is_array(v) && json_array_size(v) > 0) {
        size_t used = 0, i;
        const json_t *x;
        json_array_foreach(v, i, x)
        {
            if (!json_is_integer(x) || used >= size)
                return -1;
            used += (size_t)snprintf(out + used, size - used, "%s%lld", i ? "x" : "",
                                     (long long)json_integer_value(x));
        }
        n = (int)used;
    }
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

int suite_problem_key(const struct suite *s, const json_t *problem, char *out, size_t size,
                      struct suite_error *e)
{
    static const char *const always[] = {"precision", "size"};
    size_t used = 0;
    char value[SUITE_KEY_MAX];

    for (size_t i = 0; i < sizeof(always) / sizeof(always[0]) + s->nparams; i++) {
        const char *name = i < 2 ? always[i] : s->params[i - 2].name;
        if (i >= 2 && (!s->params[i - 2].key || !strcmp(name, "precision")))
            continue;
        if (suite_key_value(json_object_get(problem, name), value, sizeof(value))) {
            e->code = "invalid_value";
            snprintf(e->field, sizeof(e->field), "problem.%s", name);
            snprintf(e->msg, sizeof(e->msg), "problem.%s must be a number, a word or an array of integers",
                     name);
            return -1;
        }
        used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%s%s=%s", used ? ";" : "", name,
                                 value);
    }
    if (used >= size) {
        e->code = "out_of_range";
        snprintf(e->field, sizeof(e->field), "problem");
        snprintf(e->msg, sizeof(e->msg), "the problem key is longer than %zu bytes", size - 1);
        return -1;
    }
    return 0;
}

int suite_models_of(const struct suite *s, const json_t *problem, struct suite_model out[SUITE_MAX_KERNELS],
                    struct suite_error *e)
{
    if (!s->model)
        return fail(e, "invalid_value", "problem", "suite %s has no byte and flop models", s->name);
    memset(out, 0, SUITE_MAX_KERNELS * sizeof(*out));
    return s->model(problem, out, e);
}

int suite_problem_int(const json_t *problem, const char *name, long long min, long long max, long long *out,
                      struct suite_error *e)
{
    const json_t *v = json_object_get(problem, name);
    char field[64];

    snprintf(field, sizeof(field), "problem.%s", name);
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
        return fail(e, "invalid_value", field, "%s must be an integer from %lld to %lld", field, min, max);
    *out = json_integer_value(v);
    return 0;
}

int suite_problem_precision(const json_t *problem, enum pp_precision *out, struct suite_error *e)
{
    const char *p = json_string_value(json_object_get(problem, "precision"));

    if (!p || (strcmp(p, "fp32") && strcmp(p, "fp64")))
        return fail(e, "invalid_value", "problem.precision", "problem.precision must be fp32 or fp64");
    *out = strcmp(p, "fp32") ? PP_FP64 : PP_FP32;
    return 0;
}

int suite_problem_lattice(const json_t *problem, unsigned dims[4], struct suite_error *e)
{
    const json_t *v = json_object_get(problem, "lattice");
    struct pp_error err;

    if (json_array_size(v) != 4)
        return fail(e, "invalid_value", "problem.lattice", "problem.lattice must be an array of 4 extents");
    for (size_t mu = 0; mu < 4; mu++) {
        const json_t *d = json_array_get(v, mu);
        if (!json_is_integer(d) || json_integer_value(d) < 1 || json_integer_value(d) > UINT32_MAX)
            return fail(e, "invalid_value", "problem.lattice",
                        "problem.lattice[%zu] must be a positive integer", mu);
        dims[mu] = (unsigned)json_integer_value(d);
    }
    if (lattice_check_extents(dims, &err))
        return fail(e, "invalid_value", "problem.lattice", "problem.lattice: %s", err.msg);
    return 0;
}

int suite_problem_size(const json_t *problem, long long want, const char *from, struct suite_error *e)
{
    const json_t *v = json_object_get(problem, "size");

    if (!json_is_integer(v) || json_integer_value(v) != want)
        return fail(e, "invalid_value", "problem.size", "problem.size must be %lld, what %s gives", want,
                    from);
    return 0;
}

int suite_variant_name(const struct suite *s, const json_t *variant, char *out, size_t size,
                       struct suite_error *e)
{
    size_t used = 0;

    for (size_t i = 0; i < s->nparams; i++) {
        const struct suite_param *p = &s->params[i];
        const json_t *v = json_object_get(variant, p->name);
        const char *value = json_string_value(v);
        size_t c = 0;

        if (!p->variant || !v)
            continue;
        while (value && p->choices[c] && strcmp(p->choices[c], value))
            c++;
        if (!value || !p->choices[c]) {
            e->code = "invalid_value";
            snprintf(e->field, sizeof(e->field), "variant.%s", p->name);
            snprintf(e->msg, sizeof(e->msg), "variant.%s must be one of the parameter's choices", p->name);
            return -1;
        }
        used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%s%s", used ? "/" : "", value);
    }
    if (!used)
        used = (size_t)snprintf(out, size, "default");
    return used < size ? 0 : -1; /* the table's choices are short: SUITE_VARIANT_MAX holds them */
}

json_t *suite_variant_launch(const struct suite *s, json_t *variant)
{
    json_t *launch, *v;
    const char *key;
    void *tmp;

    if (!json_is_object(variant) || !(launch = json_object()))
        return NULL;
    json_object_foreach_safe(variant, tmp, key, v)
    {
        const struct suite_param *p = suite_param(s, key);
        if (p && p->variant)
            continue;
        /* 0: a dimension this model's launch does not have (OpenMP's work-group size), left out */
        if ((!(json_is_integer(v) && json_integer_value(v) == 0) && json_object_set(launch, key, v)) ||
            json_object_del(variant, key)) {
            json_decref(launch);
            return NULL;
        }
    }
    return launch;
}

json_t *suite_catalog_json(void)
{
    json_t *suites = json_array(), *models = json_array();

    for (size_t i = 0; i < suite_count(); i++) {
        const struct suite *s = suite_at(i);
        json_t *kernels = json_array(), *params = json_array();
        for (size_t k = 0; s->kernels[k]; k++)
            json_array_append_new(kernels, json_string(s->kernels[k]));
        for (size_t p = 0; p < s->nparams; p++)
            if (!s->params[p].standalone)
                json_array_append_new(params, param_json(&s->params[p]));
        const struct suite_figure *f = s->figure;
        json_array_append_new(
            suites,
            json_pack("{s:s, s:s, s:o, s:o, s:s, s:{s:s, s:s, s:s, s:f, s:b}, s:s, s:s, s:s}", "name",
                      s->name, "title", s->title, "kernels", kernels, "params", params, "figure", f->name,
                      "figure_of", "label", f->label, "unit", f->unit, "from", f->from, "scale", f->scale,
                      "flops", f->flops, "size", s->size, "timing", s->timing, "bound", s->bound));
    }
    for (const char *const *m = suite_models; *m; m++)
        json_array_append_new(models, json_string(*m));
    return json_pack("{s:o, s:o}", "suites", suites, "models", models);
}

bool suite_model_known(const char *name)
{
    for (const char *const *m = suite_models; *m; m++)
        if (strcmp(*m, name) == 0)
            return true;
    return false;
}

const char *suite_model_names(void)
{
    pthread_once(&lists_once, make_lists);
    return model_list;
}
