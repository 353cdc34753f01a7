/*
 * api/jobs: submitting, reading, listing and cancelling jobs, and their event stream (jobs.c).
 */
#ifndef PP_API_JOBS_H
#define PP_API_JOBS_H

#include "server/http/http.h"

struct suite;

int jobs_submit(struct request *r);
int jobs_get(struct request *r);
int jobs_list(struct request *r);
int jobs_cancel(struct request *r);
int jobs_events(struct request *r);

/* A model that is no built-in one must name a runner some worker registered (a site's program, defined on its
 * host: worker/runners.h), on a platform of kind `kind` and a host LIKE `host_like` where given (a schedule's
 * selector), for suite s and of its kernels: else the request's 422 (unknown_model naming it, invalid_value),
 * returned. A body (r->json) that names no kernels takes the runner's. Only the name travels: the program,
 * its path and its arguments are the host's, never the request's. */
int jobs_check_runner(struct request *r, const struct suite *s, const char *model, const char *kind,
                      const char *host_like);

#endif
