/*
 * notify: the notifier thread. It LISTENs for new queued jobs and job events and wakes every suspended
 * request (claims, event streams) at once; every second it also wakes them (polling stays the truth, NOTIFY
 * only makes it fast) and runs the reaper: expired leases go back to the queue (or fail after max_attempts),
 * jobs past their timeout fail with "timeout", jobs queued past queue_timeout_s fail saying so.
 */
#ifndef PP_FLEET_NOTIFY_H
#define PP_FLEET_NOTIFY_H

#include "lib/error.h"

struct notifier;

/* The lease (lease_s): a running job is failed as timed out this long after its own timeout_s; a queued job
 * is failed queue_timeout_s after it entered the queue. Any thread (main at start and on SIGHUP). */
void notify_configure(long lease_s, long queue_timeout_s);

int notify_start(struct notifier **out, struct pp_error *err) PP_WUR;
void notify_stop(struct notifier *n);

#endif
