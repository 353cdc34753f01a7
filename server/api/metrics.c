/*
 * metrics: the process's counters and GET /metrics. Counters are per process (each ppbenchd is its own
 * scrape target; Prometheus sums them); the database part is shared by all. Label cardinality is bounded by
 * construction: route is the route table's pattern (or "unmatched"), status one of a fixed list (or
 * "other"), job state succeeded or failed, and the per-platform families are capped by metrics_max_series.
 */
#include "server/api/metrics.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/strbuf.h"
#include "server/api/api.h"
#include "server/counters.h"

/* The database's part, and the results stored but not judged yet (judge_queue: judging's lag).
 */
static const char scrape_sql[] = "SELECT metrics_text($1, $2), (SELECT count(*) FROM judge_queue)";

static const char *route_label(size_t i, char *buf, size_t size)
{
    const struct route *rt = &http_routes()[i];

    if (i == COUNTERS_MAX_ROUTES)
        return "unmatched";
    snprintf(buf, size, "%s %s", rt->method, rt->pattern);
    return buf;
}

static size_t nroutes(void)
{
    size_t n = 0;

    while (http_routes()[n].method && n < COUNTERS_MAX_ROUTES)
        n++;
    return n;
}

static void put_http(struct strbuf *b)
{
    size_t n = nroutes();
    char label[160];

    strbuf_printf(b, "# HELP ppbench_http_requests_total HTTP requests by route and status.\n"
                     "# TYPE ppbench_http_requests_total counter\n");
    for (size_t i = 0; i <= COUNTERS_MAX_ROUTES; i++) {
        if (i >= n && i != COUNTERS_MAX_ROUTES)
            continue;
        for (size_t s = 0; s < COUNTERS_NSTATUS; s++) {
            unsigned long c = atomic_load_explicit(&counters_req_count[i][s], memory_order_relaxed);
            if (!c)
                continue;
            char st[8];
            if (s + 1 < COUNTERS_NSTATUS)
                snprintf(st, sizeof(st), "%d", counters_statuses[s]);
            else
                snprintf(st, sizeof(st), "other");
            strbuf_printf(b, "ppbench_http_requests_total{route=\"%s\",status=\"%s\"} %lu\n",
                          route_label(i, label, sizeof(label)), st, c);
        }
    }
    strbuf_printf(
        b, "# HELP ppbench_http_request_duration_seconds Time from a request's arrival to its answer (long "
           "polls "
           "and event streams included).\n# TYPE ppbench_http_request_duration_seconds histogram\n");
    for (size_t i = 0; i <= COUNTERS_MAX_ROUTES; i++) {
        if (i >= n && i != COUNTERS_MAX_ROUTES)
            continue;
        unsigned long cum = 0, counts[COUNTERS_NLAT];
        for (size_t k = 0; k < COUNTERS_NLAT; k++)
            counts[k] = atomic_load_explicit(&counters_lat_bucket[i][k], memory_order_relaxed);
        for (size_t k = 0; k < COUNTERS_NLAT; k++)
            cum += counts[k];
        if (!cum)
            continue;
        const char *rl = route_label(i, label, sizeof(label));
        cum = 0;
        for (size_t k = 0; k < COUNTERS_NLAT; k++) {
            cum += counts[k];
            if (k + 1 < COUNTERS_NLAT)
                strbuf_printf(b, "ppbench_http_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} %lu\n",
                              rl, counters_lat_bounds[k], cum);
            else
                strbuf_printf(b,
                              "ppbench_http_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %lu\n",
                              rl, cum);
        }
        strbuf_printf(b, "ppbench_http_request_duration_seconds_sum{route=\"%s\"} %.6f\n", rl,
                      atomic_load_explicit(&counters_lat_sum_us[i], memory_order_relaxed) / 1e6);
        strbuf_printf(b, "ppbench_http_request_duration_seconds_count{route=\"%s\"} %lu\n", rl, cum);
    }
}

static void put_jobs(struct strbuf *b)
{
    static const char *const names[2] = {"succeeded", "failed"};

    strbuf_printf(
        b, "# HELP ppbench_job_duration_seconds Time from a job's claim to its worker's result, by outcome.\n"
           "# TYPE ppbench_job_duration_seconds histogram\n");
    for (int s = 0; s < 2; s++) {
        unsigned long cum = 0;
        for (size_t k = 0; k < COUNTERS_NJOB; k++) {
            cum += atomic_load_explicit(&counters_job_bucket[s][k], memory_order_relaxed);
            if (k + 1 < COUNTERS_NJOB)
                strbuf_printf(b, "ppbench_job_duration_seconds_bucket{state=\"%s\",le=\"%g\"} %lu\n",
                              names[s], counters_job_bounds[k], cum);
            else
                strbuf_printf(b, "ppbench_job_duration_seconds_bucket{state=\"%s\",le=\"+Inf\"} %lu\n",
                              names[s], cum);
        }
        strbuf_printf(b, "ppbench_job_duration_seconds_sum{state=\"%s\"} %.3f\n", names[s],
                      atomic_load_explicit(&counters_job_sum_ms[s], memory_order_relaxed) / 1e3);
        strbuf_printf(b, "ppbench_job_duration_seconds_count{state=\"%s\"} %lu\n", names[s], cum);
    }
    strbuf_printf(
        b,
        "# HELP ppbench_database_errors_total Statements that failed (unreachable database, errors).\n"
        "# TYPE ppbench_database_errors_total counter\nppbench_database_errors_total %lu\n",
        atomic_load_explicit(&counters_db_errors, memory_order_relaxed));
    strbuf_printf(
        b,
        "# HELP ppbench_database_cancelled_total Statements given up before their answer, and ended in "
        "PostgreSQL: the request's client left, or the server stopped.\n"
        "# TYPE ppbench_database_cancelled_total counter\n"
        "ppbench_database_cancelled_total{reason=\"client_left\"} %lu\n"
        "ppbench_database_cancelled_total{reason=\"stopping\"} %lu\n",
        atomic_load_explicit(&counters_db_cancelled_n[COUNTERS_CANCEL_CLIENT_LEFT], memory_order_relaxed),
        atomic_load_explicit(&counters_db_cancelled_n[COUNTERS_CANCEL_STOPPING], memory_order_relaxed));
}

int metrics_get(struct request *r)
{
    struct strbuf b = {malloc(16384), 0, 16384, false};
    char stale[24], limit[24];
    struct db_error err;
    PGresult *res;
    int st;

    if ((st = req_check_query(r, ""))) {
        free(b.p);
        return st;
    }
    if (!b.p)
        return req_fail(r, ERR_INTERNAL, NULL, "out of memory");
    snprintf(stale, sizeof(stale), "%ld", api_settings()->lease_s);
    snprintf(limit, sizeof(limit), "%ld", atomic_load(&counters_max_series));
    const char *p[2] = {stale, limit};
    if (!(res = db_query(scrape_sql, 2, p, &err))) {
        free(b.p);
        return api_db_fail(r, &err);
    }
    strbuf_add(&b, PQgetvalue(res, 0, 0), (size_t)PQgetlength(res, 0, 0));
    strbuf_printf(&b,
                  "# HELP ppbench_judge_queue Results stored and not judged yet.\n"
                  "# TYPE ppbench_judge_queue gauge\nppbench_judge_queue %s\n",
                  PQgetvalue(res, 0, 1));
    PQclear(res);
    put_http(&b);
    put_jobs(&b);
    if (b.failed) {
        free(b.p);
        return req_fail(r, ERR_INTERNAL, NULL, "out of memory");
    }
    return req_reply_text(r, 200, b.p, "text/plain; version=0.0.4; charset=utf-8");
}
