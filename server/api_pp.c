/*
 * api_pp: performance portability (paper 003): efficiencies and PP over a platform set, and the BabelStream
 * CSV import. HTTP pool threads.
 */
#include "api.h"

int pp_get(struct request *r)
{
    return req_fail(r, 501, "not_implemented", NULL, "not implemented yet");
}

int import_babelstream(struct request *r)
{
    return req_fail(r, 501, "not_implemented", NULL, "not implemented yet");
}
