/*
 * auth: API tokens. A token is "ppb_" + 40 hex digits from the kernel's random source; only its SHA-256 is
 * stored (computed by PostgreSQL). Roles: read < submit < admin, and worker (the worker protocol).
 */
#ifndef PP_AUTH_H
#define PP_AUTH_H

#include <stddef.h>

#include "server/db.h"
#include "server/role.h"

enum auth_result { AUTH_OK = 0, AUTH_UNKNOWN = 1, AUTH_DB = -1 };

/* Look a presented token up on this thread's connection. */
enum auth_result auth_lookup(const char *token, enum role *role, long long *id, struct db_error *err);

/* Create a token with role ("read", "submit", "worker", "admin") on conn; writes the token (once: it is not
 * stored) into out. */
int auth_create(PGconn *conn, const char *role, const char *name, char *out, size_t size,
                struct pp_error *err) PP_WUR;

#endif
