/*
 * alerts: delivery of fleet health events (the alerts table, schema/functions/health.sql: a confirmed
 * regression, outlier or failed verification, a recovery, an admin's clear) in a thread of its own, so that
 * no request waits on it: a JSON document POSTed to webhook_url, retried with backoff until it is taken; and,
 * for raised events, the drain hook command run with the platform and the reason as arguments.
 */
#ifndef PP_ALERTS_H
#define PP_ALERTS_H

#include "lib/error.h"

struct alerts;

/* url and hook may be empty (none); a hook still running after hook_timeout_s is killed with its process
 * group. Any thread; the delivery thread reads them per alert. */
void alerts_configure(const char *url, const char *hook, long hook_timeout_s);

int alerts_start(struct alerts **out, struct pp_error *err) PP_WUR;
void alerts_stop(struct alerts *a);

#endif
