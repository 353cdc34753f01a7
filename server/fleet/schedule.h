/*
 * schedule: the firing of due schedules (schedule.c), a tick of the notifier thread.
 */
#ifndef PP_FLEET_SCHEDULE_H
#define PP_FLEET_SCHEDULE_H

/* Fire the schedules that are due (notifier thread). A schedule missed while no ppbenchd ran fires once. */
void schedule_tick(void);

#endif
