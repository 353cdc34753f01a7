/*
 * auth: API tokens. A token is "ppb_" + 40 hex digits from the kernel's random source; only its SHA-256 is
 * stored (computed by PostgreSQL). Roles: read < submit < admin, and worker (the worker protocol). Also the
 * workers' registration secrets: a registered worker proves its identity with the secret it was given.
 */
#ifndef PP_AUTH_H
#define PP_AUTH_H

#include <stddef.h>

#include "server/db.h"
#include "server/http/role.h"

enum auth_result { AUTH_OK = 0, AUTH_UNKNOWN = 1, AUTH_DB = -1 };

/* Look a presented token up on this thread's connection. */
enum auth_result auth_lookup(const char *token, enum role *role, long long *id, struct db_error *err);

/* A new random secret: prefix + 40 hex digits (out at least 48 bytes). */
int auth_random(const char *prefix, char *out, size_t size, struct pp_error *err) PP_WUR;

/* Whether secret is worker id's registration secret (on this thread's connection): AUTH_OK when it is,
 * AUTH_UNKNOWN when the worker does not exist or the secret differs. */
enum auth_result auth_worker(long long id, const char *secret, struct db_error *err);

/* Create a token with role ("read", "submit", "worker", "admin") on conn; writes the token (once: it is not
 * stored) into out. */
int auth_create(PGconn *conn, const char *role, const char *name, char *out, size_t size,
                struct pp_error *err) PP_WUR;

#endif
