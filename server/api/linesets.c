/*
 * linesets: the embedded line sets (linesets.h), parsed once into a table of sets whose lines point into one
 * private copy of the text. pthread_once guards the parse; the table is read-only afterwards.
 */
#include "server/api/linesets.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

extern const char pp_linesets[]; /* the Makefile's line-set block */

struct lineset {
    const char *suite, *model, *variant, *precision;
    struct divergence_set set;
};

static struct lineset *table;
static size_t ntable;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* One line "suite model variant precision fp..." into t (its words NUL-terminated in place). */
static int parse_line(char *line, struct lineset *t)
{
    char *save = NULL, *w;
    const char **lines = NULL;
    size_t n = 0, cap = 0;

    t->suite = strtok_r(line, " ", &save);
    t->model = strtok_r(NULL, " ", &save);
    t->variant = strtok_r(NULL, " ", &save);
    t->precision = strtok_r(NULL, " ", &save);
    if (!t->suite || !t->model || !t->variant || !t->precision)
        return -1;
    while ((w = strtok_r(NULL, " ", &save))) {
        if (n == cap) {
            const char **grown = realloc(lines, (cap = cap ? 2 * cap : 256) * sizeof(*lines));
            if (!grown) {
                free(lines);
                return -1;
            }
            lines = grown;
        }
        lines[n++] = w;
    }
    t->set = (struct divergence_set){.lines = lines, .n = n};
    return 0;
}

static void load(void)
{
    char *text = strdup(pp_linesets), *save = NULL, *line;
    size_t cap = 0;

    if (!text)
        return;
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (ntable == cap) {
            struct lineset *grown = realloc(table, (cap = cap ? 2 * cap : 16) * sizeof(*table));
            if (!grown)
                break;
            table = grown;
        }
        if (parse_line(line, &table[ntable]) == 0)
            ntable++;
        else
            log_warn("linesets: a malformed or unallocated line set skipped");
    }
    /* text stays allocated: the table points into it for the life of the process */
}

const struct divergence_set *linesets_find(const char *suite, const char *model, const char *variant,
                                           const char *precision)
{
    pthread_once(&once, load);
    for (size_t i = 0; i < ntable; i++)
        if (!strcmp(table[i].suite, suite) && !strcmp(table[i].model, model) &&
            !strcmp(table[i].variant, variant) && !strcmp(table[i].precision, precision))
            return &table[i].set;
    return NULL;
}

size_t linesets_count(void)
{
    pthread_once(&once, load);
    return ntable;
}
