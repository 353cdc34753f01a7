/*
 * static: the dashboard's files, embedded at build time, at / and /ui/<name> (static.c).
 */
#ifndef PP_HTTP_STATIC_H
#define PP_HTTP_STATIC_H

#include "server/http/http.h"

int static_index(struct request *r);
int static_file(struct request *r);

#endif
