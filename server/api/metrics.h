/*
 * metrics: GET /metrics in the Prometheus text format. The process's counters (HTTP requests by route and
 * status, their latency, job durations, database errors) are fixed arrays of atomics, indexed by the route's
 * place in the route table and by a fixed list of statuses: counting a request is a few relaxed atomic adds,
 * no lock, no allocation. The database's figures (jobs, workers, platforms' health and figures) come from
 * one statement per scrape (metrics_text in schema/functions/metrics.sql). Any thread.
 */
#ifndef PP_METRICS_H
#define PP_METRICS_H

#include "server/http/http.h"

int metrics_get(struct request *r);

#endif
