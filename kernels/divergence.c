/*
 * divergence: code divergence over sets of source lines (divergence.h). Sorts a private copy of each set's
 * pointers and merges; allocates only that copy. Any thread.
 */
#include "divergence.h"

#include <stdlib.h>
#include <string.h>

static int by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A sorted copy of s without repeats (*n its length); NULL when out of memory. */
static const char **sorted(const struct divergence_set *s, size_t *n)
{
    const char **v = malloc((s->n ? s->n : 1) * sizeof(*v));
    size_t k = 0;

    if (!v)
        return NULL;
    if (s->n)
        memcpy(v, s->lines, s->n * sizeof(*v));
    qsort(v, s->n, sizeof(*v), by_text);
    for (size_t i = 0; i < s->n; i++)
        if (k == 0 || strcmp(v[k - 1], v[i]) != 0)
            v[k++] = v[i];
    *n = k;
    return v;
}

int divergence_jaccard(const struct divergence_set *a, const struct divergence_set *b, double *out,
                       struct pp_error *err)
{
    size_t na, nb, i = 0, j = 0, common = 0;
    const char **va = sorted(a, &na), **vb = sorted(b, &nb);

    if (!va || !vb) {
        free(va);
        free(vb);
        return pp_error_set(err, "out of memory for the line sets");
    }
    while (i < na && j < nb) {
        int c = strcmp(va[i], vb[j]);
        common += c == 0;
        i += c <= 0;
        j += c >= 0;
    }
    *out = na + nb - common == 0 ? 0.0 : 1.0 - (double)common / (double)(na + nb - common);
    free(va);
    free(vb);
    return 0;
}

int divergence_code(const struct divergence_set *sets, size_t nsets, double *out, struct pp_error *err)
{
    double sum = 0, d;

    *out = 0;
    if (nsets < 2)
        return 0;
    for (size_t i = 0; i < nsets; i++)
        for (size_t j = i + 1; j < nsets; j++) {
            if (divergence_jaccard(&sets[i], &sets[j], &d, err))
                return -1;
            sum += d;
        }
    *out = sum / ((double)nsets * (double)(nsets - 1) / 2.0);
    return 0;
}
