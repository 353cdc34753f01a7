/*
 * api/results: the stored results: the list, one result with its provenance, an admin's note, exclusion
 * or deletion (results.c).
 */
#ifndef PP_API_RESULTS_H
#define PP_API_RESULTS_H

#include "server/http/http.h"

int results_list(struct request *r);
int results_get(struct request *r);
int results_annotate(struct request *r);
int results_delete(struct request *r);

#endif
