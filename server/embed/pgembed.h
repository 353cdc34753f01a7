/*
 * pgembed: ppbenchd's private PostgreSQL cluster, used when no database URL is configured (the embedded
 * default). See pgembed.c for the layout, the user it runs as and why trust authentication is safe there.
 */
#ifndef PP_PGEMBED_H
#define PP_PGEMBED_H

#include <stddef.h>

#include "lib/error.h"

struct pgembed; /* opaque */

/*
 * Create (initdb, first time) and start the cluster in <state_dir>/pg, or reuse it when a previous ppbenchd
 * left it running. Unix socket only, in <state_dir>/pg/run; port (the socket's file name) from
 * $PPBENCH_PG_PORT, default 5432; server binaries from $PPBENCH_PG_BINDIR, else the newest
 * /usr/lib/postgresql/<major>/bin, else PATH; when euid is 0, the cluster runs as $PPBENCH_PG_USER, default
 * `postgres`. Creates the database and role `ppbench` on first start. Fills conninfo with a libpq key/value
 * string ("host=... port=... dbname=ppbench user=ppbench"). *out is a new object that pgembed_stop frees.
 * Main thread, at startup.
 */
int pgembed_start(const char *state_dir, struct pgembed **out, char *conninfo, size_t size,
                  struct pp_error *err) PP_WUR;

/* 1 when the postmaster is alive (its pid file names a live process whose working directory is the cluster).
 */
int pgembed_alive(struct pgembed *pg);

/* Start the cluster again after its postmaster died (killed, crashed): stale lock files are cleared and the
 * dead postmaster's backends ended first. Main thread. */
int pgembed_restart(struct pgembed *pg, struct pp_error *err) PP_WUR;

/* 1 when the cluster of state_dir is running now (a ppbenchd is serving from it), without touching it. */
int pgembed_running(const char *state_dir);

/* pg_ctl stop -m fast (immediate if that fails), then free. NULL-safe. */
void pgembed_stop(struct pgembed *pg);

/* Forget the cluster without stopping it (a command that borrowed a running server's cluster). NULL-safe. */
void pgembed_release(struct pgembed *pg);

#endif
