/*
 * api/schedule: recurring job sets over the API (schedule.c): create, list, get, pause, resume, run now.
 */
#ifndef PP_API_SCHEDULE_H
#define PP_API_SCHEDULE_H

#include "server/http/http.h"

int schedule_create(struct request *r);
int schedule_list(struct request *r);
int schedule_get(struct request *r);
int schedule_pause(struct request *r);
int schedule_resume(struct request *r);
int schedule_run(struct request *r);

#endif
