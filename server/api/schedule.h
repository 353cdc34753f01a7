/*
 * schedule: recurring job sets (the schedules table; schema/functions/schedules.sql). The HTTP handlers
 * (create, list, get, pause, resume, run now) run on pool threads; schedule_tick runs on the notifier thread
 * once a second and fires every due schedule, claimed with FOR UPDATE SKIP LOCKED so that several ppbenchd on
 * one database submit each firing once.
 */
#ifndef PP_SCHEDULE_H
#define PP_SCHEDULE_H

#include "server/http/http.h"

/* Fire the schedules that are due (notifier thread). A schedule missed while no ppbenchd ran fires once. */
void schedule_tick(void);

int schedule_create(struct request *r);
int schedule_list(struct request *r);
int schedule_get(struct request *r);
int schedule_pause(struct request *r);
int schedule_resume(struct request *r);
int schedule_run(struct request *r);

#endif
