/*
 * submit: `ppbench submit`: posts a job and, unless --no-wait, follows it to its end (Server-Sent Events,
 * polling when the events endpoint fails) and prints its results.
 */
#ifndef PP_CLI_SUBMIT_H
#define PP_CLI_SUBMIT_H

#include "cli/cli.h"

extern const char submit_usage[];

/* argv[0] is "submit". Returns an exit status (cli.h): the job's outcome when it was followed. */
int submit_main(struct cli *c, int argc, char **argv);

#endif
