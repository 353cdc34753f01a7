/*
 * routes: the API's route table (routes.c), which binds each method and path to its handler.
 */
#ifndef PP_API_ROUTES_H
#define PP_API_ROUTES_H

#include "server/http/http.h"

/* The route table (NULL method ends it). */
extern const struct route api_routes[];

#endif
