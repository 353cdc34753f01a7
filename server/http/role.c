/*
 * role: the roles' names and the one rule of which role may do what. Pure functions, any thread.
 */
#include "server/http/role.h"

#include <string.h>

static const char *const names[] = {
    [ROLE_NONE] = "none",   [ROLE_READ] = "read",     [ROLE_SUBMIT] = "submit",
    [ROLE_ADMIN] = "admin", [ROLE_WORKER] = "worker",
};

const char *role_name(enum role role)
{
    return (unsigned)role < sizeof(names) / sizeof(names[0]) ? names[role] : "none";
}

enum role role_parse(const char *s)
{
    for (unsigned i = ROLE_READ; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(names[i], s))
            return (enum role)i;
    return ROLE_NONE;
}

bool role_allows(enum role have, enum role need)
{
    if (have == ROLE_ADMIN || need == ROLE_NONE)
        return true;
    if (need == ROLE_WORKER)
        return have == ROLE_WORKER;
    return have != ROLE_WORKER && have >= need;
}
