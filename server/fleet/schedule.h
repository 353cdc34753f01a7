/*
 * schedule: the firing of due schedules (schedule.c), a tick of the notifier thread.
 */
#ifndef PP_FLEET_SCHEDULE_H
#define PP_FLEET_SCHEDULE_H

/* Fire the schedules that are due (notifier thread) onto the platforms whose worker beat within stale_s (or
 * whose Slurm node can take a job). A schedule missed while no ppbenchd ran fires once. */
void schedule_tick(long stale_s);

#endif
