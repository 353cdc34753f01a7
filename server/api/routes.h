/*
 * api: the REST handlers (docs/API.md) and the route table that binds them. Handlers run on HTTP pool
 * threads, use that thread's database connection, and return a status (server/http.h).
 */
#ifndef PP_API_H
#define PP_API_H

#include "server/db.h"
#include "server/http/http.h"

/* The route table (NULL method ends it). */
extern const struct route api_routes[];

/* Settings the handlers read (reloadable through SIGHUP). */
struct api_settings {
    long lease_s, heartbeat_s, max_wait_s;
    /* the noise rule (docs/METHODOLOGY.md, "Noise"): a result whose figure is less stable than this (percent:
     * best_tenth for best-of rules, mean_ci95 for mean-of rules) is repeated up to noise_repeats times, then
     * flagged noisy */
    long noise_best_percent, noise_mean_percent, noise_repeats;
    /* the exclusive_<kind> settings as a JSON object of kind to host|device|none (config_exclusive_json);
     * exclusive_on: some kind is not none, so a claim locks its host first */
    char exclusive[128];
    bool exclusive_on;
};
void api_configure(const struct api_settings *s);
const struct api_settings *api_settings(void);

/* One place that turns a database failure into a reply: 503 when unreachable, else 500 (logged). */
int api_db_fail(struct request *r, const struct db_error *err);

/* Handlers, by module. */
int jobs_submit(struct request *r);
int jobs_get(struct request *r);
int jobs_list(struct request *r);
int jobs_cancel(struct request *r);
int jobs_events(struct request *r);
int workers_register(struct request *r);
int workers_claim(struct request *r);
int workers_heartbeat(struct request *r);
int workers_deregister(struct request *r);
int jobs_progress(struct request *r);
int jobs_result(struct request *r);
int fleet_platforms(struct request *r);
int fleet_hosts(struct request *r);
int fleet_workers(struct request *r);
int fleet_platform_peak(struct request *r);

/* api_slurm.c: a Slurm node's state; an admin's drain and resume (server/slurm.c) */
int slurm_nodes_list(struct request *r);
int slurm_node_show(struct request *r);
int slurm_node_drain(struct request *r);
int slurm_node_resume(struct request *r);
int fleet_platform_delete(struct request *r);
int results_list(struct request *r);
int results_get(struct request *r);
int results_annotate(struct request *r);
int results_delete(struct request *r);
int fleet_suites(struct request *r);
int fleet_healthz(struct request *r);
int fleet_readyz(struct request *r);
int fleet_openapi(struct request *r);
int pp_get(struct request *r);
int pp_policies_get(struct request *r);
int import_babelstream(struct request *r);
int static_index(struct request *r);
int static_file(struct request *r);

#endif
