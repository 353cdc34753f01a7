/*
 * static: the dashboard's files (web/), served by ppbenchd itself so it works with no internet. HTTP pool
 * threads.
 */
#include "api.h"

int static_index(struct request *r)
{
    return fleet_index(r);
}

int static_file(struct request *r)
{
    return req_fail(r, 404, "not_found", NULL, "no such file: %s", r->args[0]);
}
