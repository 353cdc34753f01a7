/*
 * metrics: GET /metrics in the Prometheus text format. The process's counters (HTTP requests by route and
 * status, their latency, job durations, database errors) are fixed arrays of atomics, indexed by the route's
 * place in the route table and by a fixed list of statuses: counting a request is a few relaxed atomic adds,
 * no lock, no allocation. The database's figures (jobs, workers, platforms' health and figures) come from
 * one statement per scrape (metrics_text in schema/012_fleet.sql). Any thread.
 */
#ifndef PP_METRICS_H
#define PP_METRICS_H

#include "server/http.h"

/* A request ended: its route (NULL when none matched), its status and its time in seconds. */
void metrics_http(const struct route *rt, int status, double seconds);
/* A statement failed (server/db.c). */
void metrics_db_error(void);
/* A job ended with a worker's result: "succeeded" or "failed", seconds since its claim. */
void metrics_job_finished(const char *state, double seconds);

/* At most this many series per per-platform family (setting metrics_max_series). */
void metrics_configure(long max_series);

int metrics_get(struct request *r);

#endif
