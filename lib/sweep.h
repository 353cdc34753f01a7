/*
 * sweep: the short forms of a sweep's values, one syntax for every client (the CLI's --sweep, the Submit page
 * and the API send the text; ppbenchd expands it, POST /api/v1/jobs "sweep": {"values": "2^20..2^28"}):
 *   "2^a..2^b"     each power of two from 2^a to 2^b (0 <= a <= b <= 62)
 *   "a..b[:step]"  a, a + step, ... up to b (integers, a <= b, step >= 1)
 *   "v1,v2,..."    a list: a value of digits (an optional leading minus) or 2^k is a number, anything else a
 *                  string
 * Pure functions, any thread.
 */
#ifndef PP_SWEEP_H
#define PP_SWEEP_H

#include <jansson.h>
#include <stddef.h>

#include "lib/error.h"

/* The values of spec as a new JSON array of at most max values; NULL with err (what is wrong, and the form
 * expected) when spec is malformed or names more than max values. */
json_t *sweep_expand(const char *spec, size_t max, struct pp_error *err);

/* The number s[0..len) names, all of it, into *v: digits with an optional leading minus, or 2^k with
 * 0 <= k <= 62 (the CLI's numbers take the same forms). 0, or -1 when it names none or overflows. */
int sweep_integer(const char *s, size_t len, long long *v);

#endif
