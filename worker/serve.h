/*
 * serve: `ppbench-worker serve`, the worker's job loop for one platform: register with ppbenchd, claim jobs
 * (long poll), run each in a child process, heartbeat, forward progress, post the result (docs/API.md,
 * "Worker protocol").
 */
#ifndef PP_SERVE_H
#define PP_SERVE_H

/* Exit statuses beyond run.h's: RUN_OK after SIGTERM or SIGINT, RUN_USAGE for bad options, an unknown
 * platform or a refused token, RUN_FAILED when discovery fails, and: */
enum { SERVE_TAKEN = 4 }; /* another live worker serves the platform (409 platform_taken) */

int serve_main(int argc, char **argv);

#endif
