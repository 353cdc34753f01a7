/*
 * api/health: fleet health over the API (health.c): the platforms' states, an admin's clear, the baseline
 * floors, a platform's baselines and verdicts.
 */
#ifndef PP_API_HEALTH_H
#define PP_API_HEALTH_H

#include "server/http/http.h"

int health_get(struct request *r);
int health_clear(struct request *r);
int health_floors_get(struct request *r);
int health_floors_set(struct request *r);
int health_baselines(struct request *r);

#endif
