/*
 * api/fleet: views of the fleet (platforms, hosts, workers), an admin's peak for a platform and the
 * removal of an imported one, health and readiness, the suite catalogue and the OpenAPI document (fleet.c).
 */
#ifndef PP_API_FLEET_H
#define PP_API_FLEET_H

#include "server/http/http.h"

int fleet_platforms(struct request *r);
int fleet_hosts(struct request *r);
int fleet_workers(struct request *r);
int fleet_platform_peak(struct request *r);
int fleet_platform_delete(struct request *r);
int fleet_suites(struct request *r);
int fleet_healthz(struct request *r);
int fleet_readyz(struct request *r);
int fleet_openapi(struct request *r);

#endif
