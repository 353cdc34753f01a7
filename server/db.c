/*
 * db: per-thread connections and lazily prepared statements. Any thread; each thread touches only its own
 * connection (a PGconn belongs to one thread). The conninfo is written once by db_init before threads start.
 */
#include "db.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/log.h"

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

    memset(err, 0, sizeof(*err));
    snprintf(err->sqlstate, sizeof(err->sqlstate), "%s", state ? state : "");
    /* Class 08 (connection exception), 57P (operator intervention: shutdown, crash recovery), 53 (resources).
     */
    err->unavailable = !conn || PQstatus(conn) != CONNECTION_OK || !strncmp(err->sqlstate, "08", 2) ||
                       !strncmp(err->sqlstate, "57P", 3) || !strncmp(err->sqlstate, "53", 2);
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

static struct thread_conn *thread_conn(struct db_error *err)
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
        tc->nprepared = 0;
        if (!(tc->conn = db_connect(err)))
            return NULL;
    }
    return tc;
}

PGresult *db_query(const char *sql, int nparams, const char *const *params, struct db_error *err)
{
    struct thread_conn *tc = thread_conn(err);
    char name[16];
    int idx = -1;
    PGresult *res;
    ExecStatusType st;

    if (!tc)
        return NULL;
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

void db_thread_close(void)
{
    struct thread_conn *tc = pthread_getspecific(conn_key);

    thread_conn_free(tc);
    pthread_setspecific(conn_key, NULL);
}
