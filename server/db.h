/*
 * db: PostgreSQL access for ppbenchd. Each thread has its own connection (created on first use, re-created
 * after a failure); statements are prepared on each connection the first time they run there, keyed by their
 * SQL text, which lives next to the code that uses it. Every query is parameterised. Every connection and
 * statement has a deadline (db_configure): a database that does not answer fails the call as unavailable
 * instead of holding its thread, and while it stays silent (db_watch_start) other calls fail at once.
 */
#ifndef PP_DB_H
#define PP_DB_H

#include <libpq-fe.h>
#include <stdbool.h>

#include "lib/error.h"

struct db_error {
    struct pp_error e; /* for the log: may hold libpq's text, never sent to a client */
    char sqlstate[6];  /* "23505" etc., "" when none */
    bool unavailable;  /* the database could not be reached: answer 503 */
    bool timed_out;    /* it gave no answer by the deadline, or is stuck (unavailable too) */
    bool abandoned;    /* given up: the request's client left, or the server stops (unavailable too) */
};

struct db_watch;

/* Before any thread queries. conninfo is copied. */
void db_init(const char *conninfo);

/* The statement deadline in seconds (db_timeout_s): each connection's statement_timeout, and how long a call
 * waits for an answer (2 s more). Any thread, any time (SIGHUP); a connection takes a new value at its next
 * statement. */
void db_configure(long statement_timeout_s);

/* The HTTP request this thread now serves (server/http/http.c, around its handler): its client's socket,
 * watched for a hang-up while a statement waits (-1: none), and its route's statement deadline in seconds
 * (0: db_timeout_s; never below it). A statement whose client hangs up is given up and its connection
 * closed, which ends it in PostgreSQL too; later calls of the request fail at once. db_request_end after. */
void db_request_begin(int client_fd, long route_timeout_s);
void db_request_end(void);
/* The client of this thread's request hung up while a statement waited. */
bool db_client_left(void);

/* The server stops (main.c, before the HTTP daemon): every waiting statement is given up at once, its
 * connection closed (which ends it in PostgreSQL), and every later call fails at once. Any thread. */
void db_stop(void);

/* A new connection of its own (LISTEN, migrations; blocking, no statement_timeout), made within the deadline,
 * or NULL. The caller PQfinish()es it. */
PGconn *db_connect(struct db_error *err);

/* Run a statement on this thread's connection with text parameters (NULL is SQL NULL). Returns the result
 * (caller PQclear()s) or NULL with err filled. The statement is prepared once per connection. */
PGresult *db_query(const char *sql, int nparams, const char *const *params, struct db_error *err);

/* db_query for a probe (readyz): an answer within 2 s, or unavailable. */
PGresult *db_query_probe(const char *sql, int nparams, const char *const *params, struct db_error *err);

/* Two statements in one transaction on this thread's connection: first_sql (a lock), then sql, whose
 * snapshot (READ COMMITTED) is taken after first_sql ran, so it sees what committed while first_sql waited.
 * Returns sql's result (caller PQclear()s) once committed, or NULL with err filled (rolled back). Never run
 * twice: a connection that broke is closed and the caller answers as for any failure. */
PGresult *db_query_after(const char *first_sql, int nfirst, const char *const *first_params, const char *sql,
                         int nparams, const char *const *params, struct db_error *err);

/* The watch thread (the daemon, after startup): SELECT 1 once a second; while that gets no answer within 2 s
 * the database is stuck: every call fails at once as unavailable, and calls waiting on it give up. */
int db_watch_start(struct db_watch **out, struct pp_error *err) PP_WUR;
void db_watch_stop(struct db_watch *w);

/* Close this thread's connection (thread exit, tests). */
void db_thread_close(void);

#endif
