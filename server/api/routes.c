/*
 * api: the route table, the handlers' shared settings and the one function that turns database failures into
 * replies. The settings are swapped as a whole on SIGHUP (main thread) and read by pool threads.
 */
#include "server/api/routes.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "server/fleet/health.h"
#include "server/api/metrics.h"
#include "server/api/schedule.h"

const struct route api_routes[] = {
    {"GET", "/", static_index, ROLE_NONE, BODY_NONE, 0, false}, /* the page and its files hold no data */
    {"GET", "/ui/{file}", static_file, ROLE_NONE, BODY_NONE, 0, false},
    {"GET", "/healthz", fleet_healthz, ROLE_NONE, BODY_NONE, 0, false},
    {"GET", "/readyz", fleet_readyz, ROLE_NONE, BODY_NONE, 0, false},
    {"GET", "/api/v1/openapi.json", fleet_openapi, ROLE_NONE, BODY_NONE, 0, false},
    {"GET", "/api/v1/suites", fleet_suites, ROLE_READ, BODY_NONE, 0, false},
    {"POST", "/api/v1/jobs", jobs_submit, ROLE_SUBMIT, BODY_JSON, 64 << 10, false},
    {"GET", "/api/v1/jobs", jobs_list, ROLE_READ, BODY_NONE, 0, false},
    {"GET", "/api/v1/jobs/{id}", jobs_get, ROLE_READ, BODY_NONE, 0, false},
    {"POST", "/api/v1/jobs/{id}/cancel", jobs_cancel, ROLE_SUBMIT, BODY_NONE, 0, false},
    {"GET", "/api/v1/jobs/{id}/events", jobs_events, ROLE_READ, BODY_NONE, 0, false},
    {"POST", "/api/v1/jobs/{id}/progress", jobs_progress, ROLE_WORKER, BODY_JSON, 4 << 10, true},
    /* A report at the largest numtimes (100000 samples of each of stream's six kernels) is about 14 MB. */
    {"POST", "/api/v1/jobs/{id}/result", jobs_result, ROLE_WORKER, BODY_JSON, 64 << 20, true},
    {"GET", "/api/v1/platforms", fleet_platforms, ROLE_READ, BODY_NONE, 0, false},
    {"GET", "/api/v1/hosts", fleet_hosts, ROLE_READ, BODY_NONE, 0, false},
    {"GET", "/api/v1/workers", fleet_workers, ROLE_READ, BODY_NONE, 0, false},
    {"PUT", "/api/v1/platforms/{id}/peak", fleet_platform_peak, ROLE_ADMIN, BODY_JSON, 4 << 10, false},
    {"PUT", "/api/v1/platforms/{host}/{device}/peak", fleet_platform_peak, ROLE_ADMIN, BODY_JSON, 4 << 10,
     false},
    {"DELETE", "/api/v1/platforms/{id}", fleet_platform_delete, ROLE_ADMIN, BODY_NONE, 0, false},
    {"DELETE", "/api/v1/platforms/{host}/{device}", fleet_platform_delete, ROLE_ADMIN, BODY_NONE, 0, false},
    {"GET", "/api/v1/results", results_list, ROLE_READ, BODY_NONE, 0, false},
    {"GET", "/api/v1/results/{id}", results_get, ROLE_READ, BODY_NONE, 0, false},
    {"PATCH", "/api/v1/results/{id}", results_annotate, ROLE_ADMIN, BODY_JSON, 4 << 10, false},
    {"DELETE", "/api/v1/results/{id}", results_delete, ROLE_ADMIN, BODY_NONE, 0, false},
    {"GET", "/api/v1/pp", pp_get, ROLE_READ, BODY_NONE, 0, false},
    {"GET", "/api/v1/pp/policies", pp_policies_get, ROLE_READ, BODY_NONE, 0, false},
    {"POST", "/api/v1/import/babelstream", import_babelstream, ROLE_SUBMIT, BODY_RAW, 0, false},
    {"GET", "/metrics", metrics_get, ROLE_READ, BODY_NONE, 0, false},
    {"GET", "/api/v1/health", health_get, ROLE_READ, BODY_NONE, 0, false},
    {"POST", "/api/v1/health/clear", health_clear, ROLE_ADMIN, BODY_JSON, 4 << 10, false},
    {"GET", "/api/v1/health/floors", health_floors_get, ROLE_READ, BODY_NONE, 0, false},
    {"POST", "/api/v1/health/floors", health_floors_set, ROLE_ADMIN, BODY_JSON, 4 << 10, false},
    {"GET", "/api/v1/baselines", health_baselines, ROLE_READ, BODY_NONE, 0, false},
    {"GET", "/api/v1/schedules", schedule_list, ROLE_READ, BODY_NONE, 0, false},
    {"POST", "/api/v1/schedules", schedule_create, ROLE_ADMIN, BODY_JSON, 64 << 10, false},
    {"GET", "/api/v1/schedules/{id}", schedule_get, ROLE_READ, BODY_NONE, 0, false},
    {"POST", "/api/v1/schedules/{id}/pause", schedule_pause, ROLE_ADMIN, BODY_NONE, 0, false},
    {"POST", "/api/v1/schedules/{id}/resume", schedule_resume, ROLE_ADMIN, BODY_NONE, 0, false},
    {"POST", "/api/v1/schedules/{id}/run", schedule_run, ROLE_ADMIN, BODY_NONE, 0, false},
    {"POST", "/api/v1/workers/register", workers_register, ROLE_WORKER, BODY_JSON, 64 << 10, false},
    {"POST", "/api/v1/workers/{id}/claim", workers_claim, ROLE_WORKER, BODY_NONE, 0, true},
    {"POST", "/api/v1/workers/{id}/heartbeat", workers_heartbeat, ROLE_WORKER, BODY_JSON, 4 << 10, true},
    {"POST", "/api/v1/workers/{id}/deregister", workers_deregister, ROLE_WORKER, BODY_NONE, 0, true},
    {"GET", "/api/v1/slurm/nodes", slurm_nodes_list, ROLE_READ, BODY_NONE, 0, false},
    {"GET", "/api/v1/slurm/nodes/{node}", slurm_node_show, ROLE_READ, BODY_NONE, 0, false},
    {"POST", "/api/v1/slurm/nodes/{node}/drain", slurm_node_drain, ROLE_ADMIN, BODY_JSON, 4 << 10, false},
    {"POST", "/api/v1/slurm/nodes/{node}/resume", slurm_node_resume, ROLE_ADMIN, BODY_NONE, 0, false},
    {NULL, NULL, NULL, ROLE_NONE, BODY_NONE, 0, false},
};

static struct api_settings settings_a = {30, 5, 60, 10, 10, 2, "{}", false}, settings_b;
static _Atomic(struct api_settings *) current = &settings_a;

void api_configure(const struct api_settings *s)
{
    struct api_settings *next = atomic_load(&current) == &settings_a ? &settings_b : &settings_a;
    *next = *s;
    atomic_store(&current, next);
}

const struct api_settings *api_settings(void)
{
    return atomic_load(&current);
}

int api_db_fail(struct request *r, const struct db_error *err)
{
    if (err->unavailable) {
        log_warn("request=%s database unavailable: %s", r->id, err->e.msg);
        return req_fail(r, ERR_DATABASE_UNAVAILABLE, NULL, "the database is unavailable, try again");
    }
    log_err("request=%s %s %s: %s", r->id, r->method, r->path, err->e.msg);
    return req_fail(r, ERR_INTERNAL, NULL, "internal error (request %s)", r->id);
}
