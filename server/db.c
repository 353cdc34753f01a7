/*
 * db: per-thread connections and lazily prepared statements. Any thread; each thread touches only its own
 * connection (a PGconn belongs to one thread). The conninfo is written once by db_init before threads start.
 */
#include "server/db.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "server/counters.h"

#define MAX_STATEMENTS 128

struct thread_conn {
    PGconn *conn;
    const char *prepared[MAX_STATEMENTS]; /* SQL text pointers prepared on conn; index = statement name */
    int nprepared;
};

static char *conninfo;
static pthread_key_t conn_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void thread_conn_free(void *p)
{
    struct thread_conn *tc = p;

    if (tc) {
        PQfinish(tc->conn);
        free(tc);
    }
}

static void make_key(void)
{
    pthread_key_create(&conn_key, thread_conn_free);
}

void db_init(const char *info)
{
    free(conninfo);
    conninfo = strdup(info);
    pthread_once(&key_once, make_key);
}

static void set_error(struct db_error *err, PGconn *conn, const PGresult *res, const char *what)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *msg = res ? PQresultErrorMessage(res) : (conn ? PQerrorMessage(conn) : "no connection");

    counters_db_error();
    memset(err, 0, sizeof(*err));
    snprintf(err->sqlstate, sizeof(err->sqlstate), "%s", state ? state : "");
    /* Class 08 (connection exception), 57P (operator intervention: shutdown, crash recovery), 53 (resources).
     */
    /* A result without a SQLSTATE is libpq's own: the connection broke under the statement. */
    err->unavailable = !conn || PQstatus(conn) != CONNECTION_OK || !strncmp(err->sqlstate, "08", 2) ||
                       !strncmp(err->sqlstate, "57P", 3) || !strncmp(err->sqlstate, "53", 2) ||
                       (res && !state && PQresultStatus(res) == PGRES_FATAL_ERROR);
    pp_error_set(&err->e, "%s: %.*s", what, (int)strcspn(msg, "\n"), msg);
}

/* Server NOTICEs (e.g. "already exists, skipping") go to the debug log, not raw to stderr. */
static void on_notice(void *arg, const char *message)
{
    (void)arg;
    log_debug("postgresql: %.*s", (int)strcspn(message, "\n"), message);
}

PGconn *db_connect(struct db_error *err)
{
    PGconn *c = PQconnectdb(conninfo ? conninfo : "");

    PQsetNoticeProcessor(c, on_notice, NULL);
    if (PQstatus(c) != CONNECTION_OK) {
        set_error(err, NULL, NULL, "connect");
        pp_error_set(&err->e, "connect: %.*s", (int)strcspn(PQerrorMessage(c), "\n"), PQerrorMessage(c));
        PQfinish(c);
        return NULL;
    }
    return c;
}

static struct thread_conn *thread_conn(struct db_error *err, bool *fresh)
{
    struct thread_conn *tc = pthread_getspecific(conn_key);

    if (!tc) {
        tc = calloc(1, sizeof(*tc));
        if (!tc) {
            pp_error_set(&err->e, "out of memory");
            return NULL;
        }
        pthread_setspecific(conn_key, tc);
    }
    if (tc->conn && PQstatus(tc->conn) != CONNECTION_OK) {
        PQfinish(tc->conn);
        tc->conn = NULL;
    }
    if (!tc->conn) {
        *fresh = true;
        tc->nprepared = 0;
        if (!(tc->conn = db_connect(err)))
            return NULL;
    }
    return tc;
}

/* A statement that only reads: safe to run again when the connection broke under it. Every statement is a
 * constant in the code next to its use, so the test is on text we wrote: a SELECT that names no writing
 * verb. */
static bool read_only(const char *sql)
{
    return !strncmp(sql, "SELECT", 6) && !strstr(sql, "INSERT") && !strstr(sql, "UPDATE") &&
           !strstr(sql, "DELETE");
}

static PGresult *query_once(const char *sql, int nparams, const char *const *params, bool *fresh,
                            struct db_error *err);

/* After a failure that means the connection is gone (PostgreSQL restarted, killed, unreachable), close it so
 * the next statement on this thread connects afresh instead of finding out on its next use. A read that
 * failed so on a connection it reused (it may have died idle) is run once more on a new one. */
PGresult *db_query(const char *sql, int nparams, const char *const *params, struct db_error *err)
{
    bool fresh = false;
    PGresult *res;

    memset(err, 0, sizeof(*err));
    res = query_once(sql, nparams, params, &fresh, err);

    if (res || !err->unavailable)
        return res;
    db_thread_close();
    if (fresh || !read_only(sql))
        return NULL;
    log_debug("database connection lost: %s; retrying the read on a new connection", err->e.msg);
    res = query_once(sql, nparams, params, &fresh, err);
    if (!res && err->unavailable)
        db_thread_close();
    return res;
}

/* Run sql on tc's connection, preparing it there the first time. */
static PGresult *exec_on(struct thread_conn *tc, const char *sql, int nparams, const char *const *params,
                         struct db_error *err)
{
    char name[16];
    int idx = -1;
    PGresult *res;
    ExecStatusType st;

    for (int i = 0; i < tc->nprepared; i++)
        if (tc->prepared[i] == sql)
            idx = i;
    if (idx < 0) {
        if (tc->nprepared >= MAX_STATEMENTS) {
            pp_error_set(&err->e, "too many distinct statements");
            return NULL;
        }
        idx = tc->nprepared;
        snprintf(name, sizeof(name), "s%d", idx);
        res = PQprepare(tc->conn, name, sql, nparams, NULL);
        if (PQresultStatus(res) != PGRES_COMMAND_OK) {
            set_error(err, tc->conn, res, "prepare");
            PQclear(res);
            return NULL;
        }
        PQclear(res);
        tc->prepared[tc->nprepared++] = sql;
    }
    snprintf(name, sizeof(name), "s%d", idx);
    res = PQexecPrepared(tc->conn, name, nparams, params, NULL, NULL, 0);
    st = PQresultStatus(res);
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
        set_error(err, tc->conn, res, "query");
        PQclear(res);
        return NULL;
    }
    return res;
}

static PGresult *query_once(const char *sql, int nparams, const char *const *params, bool *fresh,
                            struct db_error *err)
{
    struct thread_conn *tc = thread_conn(err, fresh);

    return tc ? exec_on(tc, sql, nparams, params, err) : NULL;
}

/* A transaction statement on tc's connection; 0 or -1 with err filled. */
static int exec_plain(struct thread_conn *tc, const char *sql, struct db_error *err)
{
    PGresult *res = PQexec(tc->conn, sql);
    int rc = 0;

    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        set_error(err, tc->conn, res, sql);
        rc = -1;
    }
    PQclear(res);
    return rc;
}

PGresult *db_query_after(const char *first_sql, int nfirst, const char *const *first_params, const char *sql,
                         int nparams, const char *const *params, struct db_error *err)
{
    bool fresh = false;
    struct thread_conn *tc;
    PGresult *res = NULL, *first;

    memset(err, 0, sizeof(*err));
    if (!(tc = thread_conn(err, &fresh)))
        return NULL;
    if (exec_plain(tc, "BEGIN", err))
        goto fail;
    if (!(first = exec_on(tc, first_sql, nfirst, first_params, err)))
        goto fail;
    PQclear(first);
    if (!(res = exec_on(tc, sql, nparams, params, err)) || exec_plain(tc, "COMMIT", err))
        goto fail;
    return res;
fail:
    PQclear(res);
    if (PQstatus(tc->conn) == CONNECTION_OK && PQtransactionStatus(tc->conn) != PQTRANS_IDLE)
        PQclear(PQexec(tc->conn, "ROLLBACK"));
    if (err->unavailable || PQstatus(tc->conn) != CONNECTION_OK)
        db_thread_close();
    return NULL;
}

void db_thread_close(void)
{
    struct thread_conn *tc = pthread_getspecific(conn_key);

    thread_conn_free(tc);
    pthread_setspecific(conn_key, NULL);
}
