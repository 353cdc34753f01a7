/*
 * migrate: brings the database to the schema embedded at build time: the migrations (schema/NNN_name.sql),
 * each once, in order, recorded in schema_migrations, and the current definitions of the functions, views and
 * triggers (schema/functions/<subject>.sql), applied whole when a migration was pending or they changed; all
 * in one transaction. Several ppbenchd starting at once serialise on an advisory lock. migrate.c says how.
 */
#ifndef PP_MIGRATE_H
#define PP_MIGRATE_H

#include <libpq-fe.h>

#include "lib/error.h"

/* applied: the number of migrations applied now. */
int migrate_apply(PGconn *conn, int *applied, struct pp_error *err) PP_WUR;

/* Number of embedded migrations (readyz compares it with schema_migrations). */
int migrate_count(void);

#endif
