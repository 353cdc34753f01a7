/*
 * parse: the pure parsers of a request's target and headers (the route matcher, query parameter values, the
 * allowed-names check, Last-Event-ID). They take strings and touch no connection and no database, so
 * tests/fuzz/target_fuzz.c calls them as server/http/http.c and the handlers do. Any thread.
 */
#ifndef PP_PARSE_H
#define PP_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#define PARSE_ARG_MAX  128 /* bytes of a {param} segment, its NUL included */
#define PARSE_MAX_ARGS 3   /* {param} segments a pattern may capture */

/* path against pattern ("/api/v1/jobs/{id}/cancel": {name} matches one non-empty segment shorter than
 * PARSE_ARG_MAX). On a match, args[0..*nargs) hold the captured segments in order and it returns true; on no
 * match it returns false, leaves *nargs alone and may have written args. */
bool parse_route(const char *pattern, const char *path, char args[PARSE_MAX_ARGS][PARSE_ARG_MAX], int *nargs);

/* Whether name is one of the comma-separated names of list ("suite,kernel,limit"). */
bool parse_listed(const char *list, const char *name);

/* A positive decimal id (digits only, at most 18 of them); 0 when s is NULL or not one. */
long long parse_id(const char *s);

/* A platform id as the schema allows it: [A-Za-z0-9._/:-]{1,160}. */
bool parse_platform_id(const char *s);

/* platforms=a,b,c: every id a platform id, none empty, no trailing comma. */
bool parse_platform_list(const char *s);

/* Printable text of at most max bytes (no control characters); empty_ok allows "". */
bool parse_text(const char *s, size_t max, bool empty_ok);

/* Only the characters of an RFC 3339 time (PostgreSQL's cast judges the rest). */
bool parse_time_chars(const char *s);

/* Last-Event-ID: the last event the client saw, as strtoll reads it; 0 when absent. */
long long parse_event_id(const char *s);

#endif
