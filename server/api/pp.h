/*
 * api/pp: performance portability over the API (pp.c): efficiencies and PP, every variant policy's PP,
 * and the BabelStream CSV import.
 */
#ifndef PP_API_PP_H
#define PP_API_PP_H

#include "server/http/http.h"

int pp_get(struct request *r);
int pp_policies_get(struct request *r);
int import_babelstream(struct request *r);

/* include_runners=true|false (default false) of a PP question (GET /api/v1/pp, /pp/policies, results in
 * format=p3): *out "true" or "false"; else the request's 400, returned. */
int pp_include_runners(struct request *r, const char **out);

#endif
