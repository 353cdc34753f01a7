/*
 * auth: token lookup (any HTTP thread, on its own connection) and creation (main thread). Lookups are cached
 * for a few seconds per thread so a busy client does not cost a query per request; revocation takes effect
 * within that time.
 */
#include "server/http/auth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "lib/clock.h"

#define CACHE_SLOTS 16
#define CACHE_TTL_S 5.0

static const char lookup_sql[] =
    "SELECT id, role FROM api_tokens "
    "WHERE hash = encode(sha256(convert_to($1, 'UTF8')), 'hex') AND revoked_at IS NULL";

static const char worker_sql[] =
    "SELECT 1 FROM workers WHERE id = $1 AND secret_hash = encode(sha256(convert_to($2, 'UTF8')), 'hex')";

static _Thread_local struct {
    char token[48];
    enum role role;
    long long id;
    double expires;
} cache[CACHE_SLOTS];

enum auth_result auth_lookup(const char *token, enum role *role, long long *id, struct db_error *err)
{
    const char *params[1] = {token};
    double now = clock_now();
    PGresult *res;
    unsigned slot = 0;

    if (strlen(token) != 44 || strncmp(token, "ppb_", 4) != 0 || strspn(token + 4, "0123456789abcdef") != 40)
        return AUTH_UNKNOWN;
    for (const char *p = token; *p; p++)
        slot = slot * 31u + (unsigned char)*p;
    slot %= CACHE_SLOTS;
    if (cache[slot].expires > now && !strcmp(cache[slot].token, token)) {
        *role = cache[slot].role;
        *id = cache[slot].id;
        return AUTH_OK;
    }
    if (!(res = db_query(lookup_sql, 1, params, err)))
        return AUTH_DB;
    if (PQntuples(res) != 1) {
        PQclear(res);
        return AUTH_UNKNOWN;
    }
    *id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
    *role = role_parse(PQgetvalue(res, 0, 1));
    PQclear(res);
    snprintf(cache[slot].token, sizeof(cache[slot].token), "%s", token);
    cache[slot].role = *role;
    cache[slot].id = *id;
    cache[slot].expires = now + CACHE_TTL_S;
    return AUTH_OK;
}

int auth_random(const char *prefix, char *out, size_t size, struct pp_error *err)
{
    unsigned char raw[20];
    size_t len = strlen(prefix);

    if (size < len + 2 * sizeof(raw) + 1)
        return pp_error_set(err, "no room for a secret");
    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
        return pp_error_set(err, "no random bytes for a secret");
    memcpy(out, prefix, len);
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(out + len + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

enum auth_result auth_worker(long long id, const char *secret, struct db_error *err)
{
    char id_s[24];
    const char *params[2] = {id_s, secret};
    PGresult *res;
    enum auth_result rc;

    if (id <= 0 || strlen(secret) != 44 || strncmp(secret, "pws_", 4) != 0 ||
        strspn(secret + 4, "0123456789abcdef") != 40)
        return AUTH_UNKNOWN;
    snprintf(id_s, sizeof(id_s), "%lld", id);
    if (!(res = db_query(worker_sql, 2, params, err)))
        return AUTH_DB;
    rc = PQntuples(res) == 1 ? AUTH_OK : AUTH_UNKNOWN;
    PQclear(res);
    return rc;
}

int auth_create(PGconn *conn, const char *role, const char *name, char *out, size_t size,
                struct pp_error *err)
{
    char token[48];
    const char *params[3];
    PGresult *res;
    int rc = 0;

    if (role_parse(role) == ROLE_NONE)
        return pp_error_set(err, "unknown role \"%s\" (read, submit, worker, admin)", role);
    if (auth_random("ppb_", token, sizeof(token), err))
        return -1;
    params[0] = token;
    params[1] = role;
    params[2] = name ? name : "";
    res = PQexecParams(conn,
                       "INSERT INTO api_tokens (hash, role, name) "
                       "VALUES (encode(sha256(convert_to($1, 'UTF8')), 'hex'), $2, $3)",
                       3, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(res) != PGRES_COMMAND_OK)
        rc = pp_error_set(err, "cannot store the token: %s", PQresultErrorMessage(res));
    else
        snprintf(out, size, "%s", token);
    PQclear(res);
    return rc;
}
