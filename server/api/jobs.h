/*
 * api/jobs: submitting, reading, listing and cancelling jobs, and their event stream (jobs.c).
 */
#ifndef PP_API_JOBS_H
#define PP_API_JOBS_H

#include "server/http/http.h"

int jobs_submit(struct request *r);
int jobs_get(struct request *r);
int jobs_list(struct request *r);
int jobs_cancel(struct request *r);
int jobs_events(struct request *r);

#endif
