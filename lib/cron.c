/*
 * cron: parsing schedule specs and finding their next due time (lib/cron.h). Pure; any thread.
 */
#include "cron.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const field_names[5] = {"minute", "hour", "day of month", "month", "day of week"};
static const int field_min[5] = {0, 0, 1, 1, 0}, field_max[5] = {59, 23, 31, 12, 7};

static int number(const char **s, long *v)
{
    char *end;

    if (**s < '0' || **s > '9')
        return -1;
    errno = 0;
    *v = strtol(*s, &end, 10);
    if (errno)
        return -1;
    *s = end;
    return 0;
}

/* One field ("*", "1-5", "*\/15", "0,30") into bits. */
static int parse_field(const char *text, int i, uint64_t *bits, bool *any, struct pp_error *err)
{
    const char *s = text;

    *bits = 0;
    *any = false;
    for (;;) {
        long lo, hi, step = 1;
        if (*s == '*') {
            lo = field_min[i];
            hi = field_max[i] == 7 ? 6 : field_max[i];
            s++;
            if (*s != '/')
                *any = true;
        } else {
            if (number(&s, &lo))
                return pp_error_set(err, "%s: \"%s\" is not a number, range or *", field_names[i], text);
            hi = lo;
            if (*s == '-') {
                s++;
                if (number(&s, &hi))
                    return pp_error_set(err, "%s: bad range in \"%s\"", field_names[i], text);
            }
        }
        if (*s == '/') {
            s++;
            if (number(&s, &step) || step < 1 || step > 60)
                return pp_error_set(err, "%s: bad step in \"%s\"", field_names[i], text);
            if (lo == hi && text[0] != '*')
                hi = field_max[i];
        }
        if (lo < field_min[i] || hi > field_max[i] || lo > hi)
            return pp_error_set(err, "%s: \"%s\" is out of range %d-%d", field_names[i], text, field_min[i],
                                field_max[i]);
        for (long v = lo; v <= hi; v += step)
            *bits |= 1ull << (i == 4 && v == 7 ? 0 : v);
        if (*s == '\0')
            return 0;
        if (*s != ',')
            return pp_error_set(err, "%s: unexpected \"%c\" in \"%s\"", field_names[i], *s, text);
        *any = false;
        s++;
    }
}

static int parse_every(struct cron *c, const char *s, struct pp_error *err)
{
    long n, unit = 1;

    if (number(&s, &n) || n < 1)
        return pp_error_set(err, "@every needs a positive interval such as 30s, 15m, 6h or 1d");
    switch (*s) {
    case '\0':
    case 's':
        break;
    case 'm':
        unit = 60;
        break;
    case 'h':
        unit = 3600;
        break;
    case 'd':
        unit = 86400;
        break;
    default:
        return pp_error_set(err, "@every: unknown unit \"%s\" (s, m, h or d)", s);
    }
    if (*s && s[1])
        return pp_error_set(err, "@every: unknown unit \"%s\" (s, m, h or d)", s);
    if (n > 366L * 86400 / unit)
        return pp_error_set(err, "@every: at most a year");
    c->every_s = n * unit;
    return 0;
}

int cron_parse(struct cron *c, const char *spec, struct pp_error *err)
{
    char buf[256], *save = NULL, *tok;
    const char *fields[5];
    int n = 0;
    uint64_t bits;

    memset(c, 0, sizeof(*c));
    if (!strncmp(spec, "@every ", 7))
        return parse_every(c, spec + 7, err);
    if (!strcmp(spec, "@hourly"))
        spec = "0 * * * *";
    else if (!strcmp(spec, "@daily") || !strcmp(spec, "@midnight"))
        spec = "0 0 * * *";
    else if (!strcmp(spec, "@weekly"))
        spec = "0 0 * * 0";
    if (strlen(spec) >= sizeof(buf))
        return pp_error_set(err, "spec too long");
    snprintf(buf, sizeof(buf), "%s", spec);
    for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (n == 5)
            return pp_error_set(err, "more than five fields (minute hour day-of-month month day-of-week)");
        fields[n++] = tok;
    }
    if (n != 5)
        return pp_error_set(err, "expected five fields (minute hour day-of-month month day-of-week) or "
                                 "@every N[s|m|h|d], @hourly, @daily, @weekly");
    bool ignored;
    if (parse_field(fields[0], 0, &c->minute, &ignored, err))
        return -1;
    if (parse_field(fields[1], 1, &bits, &ignored, err))
        return -1;
    c->hour = (uint32_t)bits;
    if (parse_field(fields[2], 2, &bits, &c->mday_any, err))
        return -1;
    c->mday = (uint32_t)bits;
    if (parse_field(fields[3], 3, &bits, &ignored, err))
        return -1;
    c->month = (uint16_t)bits;
    if (parse_field(fields[4], 4, &bits, &c->wday_any, err))
        return -1;
    c->wday = (uint8_t)bits;
    return 0;
}

static bool day_matches(const struct cron *c, const struct tm *t)
{
    bool md = c->mday >> t->tm_mday & 1, wd = c->wday >> t->tm_wday & 1;

    if (c->mday_any || c->wday_any)
        return md && wd;
    return md || wd;
}

int cron_next(const struct cron *c, time_t prev, time_t now, time_t *next)
{
    struct tm t;
    time_t at;

    if (c->every_s > 0) {
        if (prev > now) {
            *next = prev;
            return 0;
        }
        *next = prev + ((now - prev) / c->every_s + 1) * c->every_s;
        return 0;
    }
    at = now - now % 60 + 60; /* the next whole minute after now */
    for (long i = 0; i < 5L * 366 * 24 * 60; i++) {
        gmtime_r(&at, &t);
        if (!(c->month >> (t.tm_mon + 1) & 1) || !day_matches(c, &t)) {
            at += 86400 - (t.tm_hour * 3600 + t.tm_min * 60); /* the next day, 00:00 */
            continue;
        }
        if (!(c->hour >> t.tm_hour & 1)) {
            at += 3600 - t.tm_min * 60;
            continue;
        }
        if (c->minute >> t.tm_min & 1) {
            *next = at;
            return 0;
        }
        at += 60;
    }
    return -1;
}
