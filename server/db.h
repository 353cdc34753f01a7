/*
 * db: PostgreSQL access for ppbenchd. Each thread has its own connection (created on first use, re-created
 * after a failure); statements are prepared on each connection the first time they run there, keyed by their
 * SQL text, which lives next to the code that uses it. Every query is parameterised.
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
};

/* Before any thread queries. conninfo is copied. */
void db_init(const char *conninfo);

/* A new connection of its own (LISTEN, migrations), or NULL. The caller PQfinish()es it. */
PGconn *db_connect(struct db_error *err);

/* Run a statement on this thread's connection with text parameters (NULL is SQL NULL). Returns the result
 * (caller PQclear()s) or NULL with err filled. The statement is prepared once per connection. */
PGresult *db_query(const char *sql, int nparams, const char *const *params, struct db_error *err);

/* Two statements in one transaction on this thread's connection: first_sql (a lock), then sql, whose
 * snapshot (READ COMMITTED) is taken after first_sql ran, so it sees what committed while first_sql waited.
 * Returns sql's result (caller PQclear()s) once committed, or NULL with err filled (rolled back). Never run
 * twice: a connection that broke is closed and the caller answers as for any failure. */
PGresult *db_query_after(const char *first_sql, int nfirst, const char *const *first_params, const char *sql,
                         int nparams, const char *const *params, struct db_error *err);

/* Close this thread's connection (thread exit, tests). */
void db_thread_close(void);

#endif
