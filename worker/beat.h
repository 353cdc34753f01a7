/*
 * beat: a job's heartbeats from a thread of their own, for as long as the serving thread is busy with one
 * long step of the job (reading the child's report, posting the result): a report of megabytes can take
 * longer to read, send and store than the lease lasts, and the serving thread heartbeats only between calls.
 */
#ifndef PP_BEAT_H
#define PP_BEAT_H

#include "lib/error.h"
#include "worker/client.h"

struct beat;

/* Start heartbeating job job_id at epoch for the worker http names (POST
 * /api/v1/workers/<worker_id>/heartbeat through a clone of http: the thread's own connection): the first at
 * next_at (clock_now() time; at once if past), then every every_s seconds. ctx prefixes the log lines
 * ("job=42 platform=... model=..."; borrowed, must outlive the beat). Returns NULL with err when the thread
 * or its client cannot start: the caller goes on without (the lease may then lapse, as before). */
struct beat *beat_start(const struct client *http, long long worker_id, long long job_id, long long epoch,
                        double next_at, double every_s, const char *ctx, struct pp_error *err);

/* Stop the thread at once (a heartbeat in flight is cut short), join it and free it. Returns when the next
 * heartbeat is due (clock_now() time), for the caller to keep the cadence; NULL-safe (returns 0: due now). */
double beat_stop(struct beat *b);

#endif
