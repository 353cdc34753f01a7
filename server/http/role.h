/*
 * role: what a token may do (read < submit < admin, and worker for the worker protocol) and the names the
 * database and messages use. A leaf module: the HTTP layer (which checks a route's role) and auth (which
 * reads a token's role) both depend on it, and on nothing of each other's.
 */
#ifndef PP_ROLE_H
#define PP_ROLE_H

#include <stdbool.h>

enum role { ROLE_NONE = 0, ROLE_READ = 1, ROLE_SUBMIT = 2, ROLE_ADMIN = 3, ROLE_WORKER = 4 };

/* "none", "read", "submit", "admin", "worker". */
const char *role_name(enum role role);

/* The role named s, or ROLE_NONE. */
enum role role_parse(const char *s);

/* Whether a token of role have may call a route that needs role need. */
bool role_allows(enum role have, enum role need);

#endif
