/*
 * cron: schedule specs and their next due time, pure (any thread). A spec is either five cron fields in UTC
 * ("minute hour day-of-month month day-of-week", each `*`, a number, a range a-b, a list a,b and a step
 * `/n`), a macro (@hourly, @daily, @weekly), or a fixed interval "@every N[s|m|h|d]" counted from the
 * previous due time, so that a schedule keeps its phase across restarts.
 */
#ifndef PP_CRON_H
#define PP_CRON_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "lib/error.h"

struct cron {
    long every_s;            /* > 0: a fixed interval; the fields are unused */
    uint64_t minute;         /* bit m: minute m (0-59) */
    uint32_t hour;           /* bit h (0-23) */
    uint32_t mday;           /* bit d (1-31) */
    uint16_t month;          /* bit m (1-12) */
    uint8_t wday;            /* bit w (0-6, Sunday 0; 7 is read as 0) */
    bool mday_any, wday_any; /* cron's rule: when both are restricted, either may match */
};

/* Parse spec into c; the message names the field at fault. */
int cron_parse(struct cron *c, const char *spec, struct pp_error *err) PP_WUR;

/* The first due time after now. prev is the previous due time (the phase of @every; ignored by the field
 * form). Missed times are not counted: a schedule that was due several times while nobody ran it is due once,
 * now, and then next at this time. Returns 0, or -1 when no time in the next 5 years matches (Feb 30). */
int cron_next(const struct cron *c, time_t prev, time_t now, time_t *next);

#endif
