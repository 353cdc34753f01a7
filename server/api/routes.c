/*
 * routes: the route table, every route of the API with its handler, the role it needs, its body rule and
 * limit, and whether a registered worker calls it (struct route, server/http/http.h). The one file of
 * server/api/ that includes the handlers' headers; main.c hands the table to http_start, and `ppbenchd
 * routes` prints it. Constant data, read by any thread.
 */
#include "server/api/routes.h"

#include "server/api/fleet.h"
#include "server/api/health.h"
#include "server/api/jobs.h"
#include "server/api/metrics.h"
#include "server/api/pp.h"
#include "server/api/results.h"
#include "server/api/schedule.h"
#include "server/api/slurm.h"
#include "server/api/worker.h"
#include "server/http/static.h"

const struct route api_routes[] = {
    {"GET", "/", static_index, ROLE_NONE, BODY_NONE, 0, false, 0,
     NULL}, /* the page and its files hold no data */
    {"GET", "/ui/{file}", static_file, ROLE_NONE, BODY_NONE, 0, false, 0, NULL},
    {"GET", "/healthz", fleet_healthz, ROLE_NONE, BODY_NONE, 0, false, 0, NULL},
    {"GET", "/readyz", fleet_readyz, ROLE_NONE, BODY_NONE, 0, false, 0, NULL},
    {"GET", "/api/v1/openapi.json", fleet_openapi, ROLE_NONE, BODY_NONE, 0, false, 0, NULL},
    {"GET", "/api/v1/suites", fleet_suites, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"POST", "/api/v1/jobs", jobs_submit, ROLE_SUBMIT, BODY_JSON, 64 << 10, false, 0, NULL},
    {"GET", "/api/v1/jobs", jobs_list, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"GET", "/api/v1/jobs/{id}", jobs_get, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"POST", "/api/v1/jobs/{id}/cancel", jobs_cancel, ROLE_SUBMIT, BODY_NONE, 0, false, 0, NULL},
    {"GET", "/api/v1/jobs/{id}/events", jobs_events, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"POST", "/api/v1/jobs/{id}/progress", jobs_progress, ROLE_WORKER, BODY_JSON, 4 << 10, true, 0, NULL},
    /* A report at the largest numtimes (100000 samples of each of stream's six kernels) is about 14 MB. */
    {"POST", "/api/v1/jobs/{id}/result", jobs_result, ROLE_WORKER, BODY_JSON, 64 << 20, true, 0,
     jobs_result_before_body},
    {"GET", "/api/v1/platforms", fleet_platforms, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"GET", "/api/v1/hosts", fleet_hosts, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"GET", "/api/v1/workers", fleet_workers, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"PUT", "/api/v1/platforms/{id}/peak", fleet_platform_peak, ROLE_ADMIN, BODY_JSON, 4 << 10, false, 0,
     NULL},
    {"PUT", "/api/v1/platforms/{host}/{device}/peak", fleet_platform_peak, ROLE_ADMIN, BODY_JSON, 4 << 10,
     false, 0, NULL},
    {"DELETE", "/api/v1/platforms/{id}", fleet_platform_delete, ROLE_ADMIN, BODY_NONE, 0, false, 0, NULL},
    {"DELETE", "/api/v1/platforms/{host}/{device}", fleet_platform_delete, ROLE_ADMIN, BODY_NONE, 0, false, 0,
     NULL},
    /* Statement deadlines past db_timeout_s (10 s) where the work grows with the data, measured on a busy
     * 2-core VM (docs/PERFORMANCE.md, issue 26): an import of 76,240 rows (the 4 MiB body limit) took 11-14
     * s, a P3 export over as many problem keys more than 36 s. A client that leaves ends its statement
     * anyway. */
    {"GET", "/api/v1/results", results_list, ROLE_READ, BODY_NONE, 0, false, 60, NULL},
    {"GET", "/api/v1/results/{id}", results_get, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"PATCH", "/api/v1/results/{id}", results_annotate, ROLE_ADMIN, BODY_JSON, 4 << 10, false, 0, NULL},
    {"DELETE", "/api/v1/results/{id}", results_delete, ROLE_ADMIN, BODY_NONE, 0, false, 0, NULL},
    {"GET", "/api/v1/pp", pp_get, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"GET", "/api/v1/pp/policies", pp_policies_get, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"POST", "/api/v1/import/babelstream", import_babelstream, ROLE_SUBMIT, BODY_RAW, 0, false, 60, NULL},
    {"GET", "/metrics", metrics_get, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"GET", "/api/v1/health", health_get, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"POST", "/api/v1/health/clear", health_clear, ROLE_ADMIN, BODY_JSON, 4 << 10, false, 0, NULL},
    {"GET", "/api/v1/health/floors", health_floors_get, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"POST", "/api/v1/health/floors", health_floors_set, ROLE_ADMIN, BODY_JSON, 4 << 10, false, 0, NULL},
    {"GET", "/api/v1/baselines", health_baselines, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"GET", "/api/v1/schedules", schedule_list, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"POST", "/api/v1/schedules", schedule_create, ROLE_ADMIN, BODY_JSON, 64 << 10, false, 0, NULL},
    {"GET", "/api/v1/schedules/{id}", schedule_get, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"POST", "/api/v1/schedules/{id}/pause", schedule_pause, ROLE_ADMIN, BODY_NONE, 0, false, 0, NULL},
    {"POST", "/api/v1/schedules/{id}/resume", schedule_resume, ROLE_ADMIN, BODY_NONE, 0, false, 0, NULL},
    {"POST", "/api/v1/schedules/{id}/run", schedule_run, ROLE_ADMIN, BODY_NONE, 0, false, 0, NULL},
    {"POST", "/api/v1/workers/register", workers_register, ROLE_WORKER, BODY_JSON, 64 << 10, false, 0, NULL},
    {"POST", "/api/v1/workers/{id}/claim", workers_claim, ROLE_WORKER, BODY_NONE, 0, true, 0, NULL},
    {"POST", "/api/v1/workers/{id}/heartbeat", workers_heartbeat, ROLE_WORKER, BODY_JSON, 4 << 10, true, 0,
     NULL},
    {"POST", "/api/v1/workers/{id}/deregister", workers_deregister, ROLE_WORKER, BODY_NONE, 0, true, 0, NULL},
    {"GET", "/api/v1/slurm/nodes", slurm_nodes_list, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"GET", "/api/v1/slurm/nodes/{node}", slurm_node_show, ROLE_READ, BODY_NONE, 0, false, 0, NULL},
    {"POST", "/api/v1/slurm/nodes/{node}/drain", slurm_node_drain, ROLE_ADMIN, BODY_JSON, 4 << 10, false, 0,
     NULL},
    {"POST", "/api/v1/slurm/nodes/{node}/resume", slurm_node_resume, ROLE_ADMIN, BODY_NONE, 0, false, 0,
     NULL},
    {NULL, NULL, NULL, ROLE_NONE, BODY_NONE, 0, false, 0, NULL},
};
