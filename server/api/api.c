/*
 * api: the handlers' shared settings and the replies every handler gives the same way. The settings are
 * swapped as a whole on SIGHUP (main thread, api_configure) and read by pool threads: two copies and an
 * atomic pointer, so a reader never sees half of a reload.
 */
#include "server/api/api.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

static struct api_settings settings_a = {30, 5, 60, 10, 10, 2, "{}", false}, settings_b;
static _Atomic(struct api_settings *) current = &settings_a;

void api_configure(const struct api_settings *s)
{
    struct api_settings *next = atomic_load(&current) == &settings_a ? &settings_b : &settings_a;
    *next = *s;
    atomic_store(&current, next);
}

const struct api_settings *api_settings(void)
{
    return atomic_load(&current);
}

int api_db_fail(struct request *r, const struct db_error *err)
{
    if (err->abandoned) { /* the client left (said once by server/http/http.c), or the server stops */
        r->cut_short = true;
        return req_fail(r, ERR_DATABASE_UNAVAILABLE, NULL, "the server is stopping, try again");
    }
    if (err->unavailable) {
        log_warn("request=%s database unavailable: %s", r->id, err->e.msg);
        return req_fail(r, ERR_DATABASE_UNAVAILABLE, NULL, "the database is unavailable, try again");
    }
    log_err("request=%s %s %s: %s", r->id, r->method, r->path, err->e.msg);
    return req_fail(r, ERR_INTERNAL, NULL, "internal error (request %s)", r->id);
}

int api_reply_value(struct request *r, const char *sql, int n, const char *const *params, const char *type,
                    const char *missing)
{
    struct db_error dberr;
    PGresult *res = db_query(sql, n, params, &dberr);
    int st;

    if (!res)
        return api_db_fail(r, &dberr);
    if (PQntuples(res) == 0)
        st = req_fail(r, ERR_NOT_FOUND, NULL, "%s", missing ? missing : "not found");
    else
        st = req_reply_text(r, 200, strdup(PQgetvalue(res, 0, 0)), type);
    PQclear(res);
    return st;
}
