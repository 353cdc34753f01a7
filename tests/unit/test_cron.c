/*
 * test_cron: schedule specs (lib/cron.c): the fields, the macros, @every's phase, missed times counted once.
 */
#include <string.h>

#include "check.h"
#include "lib/cron.h"

/* 2026-11-23 17:44:34 UTC, a Monday */
#define T0 ((time_t)1795455874)

static time_t next_of(const char *spec, time_t prev, time_t now)
{
    struct cron c;
    struct pp_error err;
    time_t n = 0;

    if (cron_parse(&c, spec, &err) || cron_next(&c, prev, now, &n))
        return -1;
    return n;
}

static void test_fields(void)
{
    CHECK(next_of("* * * * *", 0, T0) == T0 - 34 + 60, "every minute: the next whole minute");
    CHECK(next_of("0 * * * *", 0, T0) == T0 - 44 * 60 - 34 + 3600, "hourly: 18:00");
    CHECK(next_of("@hourly", 0, T0) == next_of("0 * * * *", 0, T0), "@hourly is 0 * * * *");
    CHECK(next_of("*/15 * * * *", 0, T0) == T0 - 44 * 60 - 34 + 45 * 60, "*/15: 17:45");
    CHECK(next_of("30 2 * * *", 0, T0) == T0 - (17 * 3600 + 44 * 60 + 34) + 86400 + 2 * 3600 + 30 * 60,
          "daily at 02:30: tomorrow");
    /* Monday 23rd: the next Sunday (wday 0 or 7) is the 29th */
    CHECK(next_of("0 0 * * 7", 0, T0) == next_of("0 0 * * 0", 0, T0), "day of week 7 is Sunday");
    CHECK(next_of("0 0 * * 0", 0, T0) == T0 - (17 * 3600 + 44 * 60 + 34) + 6 * 86400, "Sunday the 29th");
    /* day of month and day of week both restricted: either matches (cron's rule) */
    CHECK(next_of("0 0 1 * 0", 0, T0) == T0 - (17 * 3600 + 44 * 60 + 34) + 6 * 86400, "the 1st or a Sunday");
    CHECK(next_of("0 0 30 2 *", 0, T0) == -1, "February 30 never comes");
}

static void test_every(void)
{
    CHECK(next_of("@every 2s", T0, T0) == T0 + 2, "2 s after the previous due time");
    CHECK(next_of("@every 10m", T0 - 60, T0) == T0 + 540, "the phase of the previous due time is kept");
    /* down for an hour: due once now (the caller fires), then on the phase, not six times */
    CHECK(next_of("@every 10m", T0 - 3600, T0) == T0 + 600, "missed runs are not counted");
    CHECK(next_of("@every 1d", T0 + 5, T0) == T0 + 5, "a due time in the future stays");
}

static void test_errors(void)
{
    struct cron c;
    struct pp_error err;

    CHECK(cron_parse(&c, "60 * * * *", &err) && strstr(err.msg, "minute"), "minute 60: %s", err.msg);
    CHECK(cron_parse(&c, "* 24 * * *", &err) && strstr(err.msg, "hour"), "hour 24: %s", err.msg);
    CHECK(cron_parse(&c, "* * * *", &err) && strstr(err.msg, "five fields"), "four fields: %s", err.msg);
    CHECK(cron_parse(&c, "* * * * * *", &err), "six fields");
    CHECK(cron_parse(&c, "5-1 * * * *", &err), "a backward range");
    CHECK(cron_parse(&c, "*/0 * * * *", &err), "step 0");
    CHECK(cron_parse(&c, "@every 0s", &err), "@every 0s");
    CHECK(cron_parse(&c, "@every 5x", &err) && strstr(err.msg, "unit"), "@every 5x: %s", err.msg);
    CHECK(cron_parse(&c, "@every", &err), "@every without an interval");
    CHECK(cron_parse(&c, "a * * * *", &err), "a letter");
    CHECK(!cron_parse(&c, "0,30 8-18/2 1-15 1,6,12 1-5", &err), "lists, ranges and steps: %s", err.msg);
}

int main(void)
{
    RUN(test_fields);
    RUN(test_every);
    RUN(test_errors);
    return check_failures ? 1 : 0;
}
