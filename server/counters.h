/*
 * counters: the service's in-memory counters, a leaf module (see counters.c): what the request path counts
 * and what api/metrics.c reads at scrape time.
 */
#ifndef PP_COUNTERS_H
#define PP_COUNTERS_H

#include <stdatomic.h>
#include <stddef.h>

#define COUNTERS_MAX_ROUTES 64 /* route table rows counted; more share the "unmatched" row */
#define COUNTERS_NSTATUS    19 /* the statuses below and "other" */
#define COUNTERS_NLAT       15 /* the latency bounds below and +Inf */
#define COUNTERS_NJOB       12 /* the job duration bounds below and +Inf */

extern const int counters_statuses[COUNTERS_NSTATUS - 1];
extern const double counters_lat_bounds[COUNTERS_NLAT - 1];
extern const double counters_job_bounds[COUNTERS_NJOB - 1];
extern atomic_ulong counters_req_count[COUNTERS_MAX_ROUTES + 1][COUNTERS_NSTATUS];
extern atomic_ulong counters_lat_bucket[COUNTERS_MAX_ROUTES + 1][COUNTERS_NLAT]; /* not cumulative */
extern atomic_ulong counters_lat_sum_us[COUNTERS_MAX_ROUTES + 1];
extern atomic_ulong counters_job_bucket[2][COUNTERS_NJOB];
extern atomic_ulong counters_job_sum_ms[2];
extern atomic_ulong counters_db_errors;
extern atomic_long counters_max_series;

/* A request ended: its route's index in the route table (COUNTERS_MAX_ROUTES or more: none matched), its
 * status and its time in seconds. */
void counters_http(size_t route, int status, double seconds);
void counters_db_error(void); /* a statement failed (server/db.c) */
/* A statement given up before its answer (server/db.c): its client left, or the server stops. */
enum counters_cancel { COUNTERS_CANCEL_CLIENT_LEFT, COUNTERS_CANCEL_STOPPING, COUNTERS_NCANCEL };
extern atomic_ulong counters_db_cancelled_n[COUNTERS_NCANCEL];
void counters_db_cancelled(enum counters_cancel why);
/* A job ended with a worker's result: "succeeded" or "failed", seconds since its claim. */
void counters_job_finished(const char *state, double seconds);
void counters_configure(long max_series); /* at most this many series per per-platform family */

#endif
