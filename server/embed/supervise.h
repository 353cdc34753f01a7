/*
 * supervise: the embedded default's workers, one `ppbench-worker serve` per local platform, restarted with
 * backoff when they exit. See supervise.c for threads and signals.
 */
#ifndef PP_SUPERVISE_H
#define PP_SUPERVISE_H

#include <stddef.h>

#include "lib/error.h"

struct supervisor; /* opaque */

/* The ppbench-worker next to this executable (<dir of /proc/self/exe>/ppbench-worker), into buf. */
int supervise_default_worker_bin(char *buf, size_t size, struct pp_error *err) PP_WUR;

/*
 * Run `worker_bin list --json` (60 s at most) and start one `worker_bin serve --server URL --platform ID
 * --host HOST --grace GRACE_S` (the token in its environment) per platform it lists (.platforms[].id); no
 * platform is not an error (logged). Restarts a worker that exits after 1 s, doubling to 60 s, back to 1 s
 * once a worker has run 60 s. *out is new; supervise_stop frees it. Call once the server answers HTTP, from
 * any thread.
 */
int supervise_start(const char *worker_bin, const char *server_url, const char *token, long grace_s,
                    struct supervisor **out, struct pp_error *err) PP_WUR;

/* Reap exited workers now (waitpid of each worker's pid, WNOHANG) and schedule their restarts. Any thread;
 * call it on SIGCHLD (without it, exits are still noticed within a second). */
void supervise_reap(struct supervisor *s);

/* SIGTERM each worker, wait up to its job grace and 5 s, then SIGKILL its process group; release in the
 * database the registration of every worker that ended without deregistering (its job re-queued); frees.
 * NULL-safe. Not concurrently with supervise_reap on the same supervisor. */
void supervise_stop(struct supervisor *s);

#endif
