/*
 * migrate: applies the SQL migrations embedded at build time (schema/NNN_name.sql), each once, in order, each
 * in its own transaction, recorded in schema_migrations. Several ppbenchd starting at once serialise on an
 * advisory lock.
 */
#ifndef PP_MIGRATE_H
#define PP_MIGRATE_H

#include <libpq-fe.h>

#include "lib/error.h"

int migrate_apply(PGconn *conn, int *applied, struct pp_error *err) PP_WUR;

/* Number of embedded migrations (readyz compares it with schema_migrations). */
int migrate_count(void);

#endif
