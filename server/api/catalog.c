/*
 * catalog: the server's reading of the suite table (kernels/suites.c). Constant data; any thread.
 */
#include "server/api/catalog.h"

const char *catalog_default_choice(const struct suite *s, const char *name)
{
    const struct suite_param *p = suite_param(s, name);
    return p && p->type == SUITE_ENUM && !p->optional ? p->choices[p->def] : NULL;
}
