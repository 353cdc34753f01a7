/*
 * run: the worker's standalone commands: `list` (platforms and the models that drive them) and `run` (one
 * suite on one platform through one model, no server), printing a table, CSV or JSON.
 */
#ifndef PP_RUN_H
#define PP_RUN_H

#include <jansson.h>

/* Exit statuses of the standalone commands. */
enum {
    RUN_OK = 0,
    RUN_UNVERIFIED = 1, /* ran, and at least one kernel failed verification */
    RUN_USAGE = 2,      /* bad input: unknown platform, model, kernel; size that cannot fit; ... */
    RUN_FAILED = 3,     /* the device or runtime failed */
};

struct pp_platform;

int run_list_main(int argc, char **argv);
int run_main(int argc, char **argv);
int run_suites_main(int argc, char **argv);

#endif
