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

#endif
