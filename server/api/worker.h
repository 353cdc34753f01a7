/*
 * api/worker: the worker protocol (worker.c, docs/API.md): register, claim by long poll, heartbeat,
 * progress, result, deregister.
 */
#ifndef PP_API_WORKER_H
#define PP_API_WORKER_H

#include "server/http/http.h"

int workers_register(struct request *r);
int workers_claim(struct request *r);
int workers_heartbeat(struct request *r);
int workers_deregister(struct request *r);
int jobs_progress(struct request *r);
int jobs_result(struct request *r);
/* The result's route's before_body: the job is this worker's (struct route). */
int jobs_result_before_body(struct request *r);

#endif
