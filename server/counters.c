/*
 * counters: the service's in-memory counters (requests by route and status with latency histograms, database
 * errors, finished jobs with a duration histogram): atomics, incremented on the request path by http/http.c,
 * db.c and api/worker.c, read at scrape time by api/metrics.c. A leaf: it includes nothing of the server, so
 * the modules that count do not depend on the one that serves /metrics. Any thread.
 */
#include "server/counters.h"

#include <string.h>

const int counters_statuses[COUNTERS_NSTATUS - 1] = {200, 201, 202, 204, 304, 400, 401, 403, 404,
                                                     405, 409, 413, 414, 415, 422, 431, 500, 503};
const double counters_lat_bounds[COUNTERS_NLAT - 1] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                       0.1,    0.25,  0.5,    1,     2.5,  5,     10};
const double counters_job_bounds[COUNTERS_NJOB - 1] = {1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200};
atomic_ulong counters_req_count[COUNTERS_MAX_ROUTES + 1][COUNTERS_NSTATUS];
atomic_ulong counters_lat_bucket[COUNTERS_MAX_ROUTES + 1][COUNTERS_NLAT];
atomic_ulong counters_lat_sum_us[COUNTERS_MAX_ROUTES + 1];
atomic_ulong counters_job_bucket[2][COUNTERS_NJOB];
atomic_ulong counters_job_sum_ms[2];
atomic_ulong counters_db_errors;
atomic_ulong counters_db_cancelled_n[COUNTERS_NCANCEL];
atomic_long counters_max_series = 10000;

static size_t bucket(const double *bounds, size_t n, double v)
{
    size_t i = 0;

    while (i < n && v > bounds[i])
        i++;
    return i;
}

void counters_http(size_t route, int status, double seconds)
{
    size_t ri = route < COUNTERS_MAX_ROUTES ? route : COUNTERS_MAX_ROUTES, si = COUNTERS_NSTATUS - 1;

    for (size_t i = 0; i + 1 < COUNTERS_NSTATUS; i++)
        if (counters_statuses[i] == status)
            si = i;
    if (seconds < 0)
        seconds = 0;
    atomic_fetch_add_explicit(&counters_req_count[ri][si], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(
        &counters_lat_bucket[ri][bucket(counters_lat_bounds, COUNTERS_NLAT - 1, seconds)], 1,
        memory_order_relaxed);
    atomic_fetch_add_explicit(&counters_lat_sum_us[ri], (unsigned long)(seconds * 1e6), memory_order_relaxed);
}

void counters_db_error(void)
{
    atomic_fetch_add_explicit(&counters_db_errors, 1, memory_order_relaxed);
}

void counters_db_cancelled(enum counters_cancel why)
{
    atomic_fetch_add_explicit(&counters_db_cancelled_n[why], 1, memory_order_relaxed);
}

void counters_job_finished(const char *state, double seconds)
{
    int s = strcmp(state, "succeeded") ? 1 : 0;

    if (seconds < 0)
        seconds = 0;
    atomic_fetch_add_explicit(
        &counters_job_bucket[s][bucket(counters_job_bounds, COUNTERS_NJOB - 1, seconds)], 1,
        memory_order_relaxed);
    atomic_fetch_add_explicit(&counters_job_sum_ms[s], (unsigned long)(seconds * 1e3), memory_order_relaxed);
}

void counters_configure(long n)
{
    atomic_store(&counters_max_series, n);
}
