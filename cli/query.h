/*
 * query: the one-request commands of `ppbench`: jobs, results, platforms, pp and cancel.
 */
#ifndef PP_CLI_QUERY_H
#define PP_CLI_QUERY_H

#include "cli/cli.h"

extern const char query_jobs_usage[], query_results_usage[], query_platforms_usage[], query_cancel_usage[],
    query_pp_usage[];

/* argv[0] is the command's name. Each returns an exit status (cli.h). */
int query_jobs_main(struct cli *c, int argc, char **argv);
int query_results_main(struct cli *c, int argc, char **argv);
int query_platforms_main(struct cli *c, int argc, char **argv);
int query_pp_main(struct cli *c, int argc, char **argv);
int query_cancel_main(struct cli *c, int argc, char **argv);

#endif
