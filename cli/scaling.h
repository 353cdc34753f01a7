/*
 * scaling: `ppbench scaling`, a suite's figure of merit against problem size on one platform (paper 002's
 * Figures 1-5 as a table), the same view as the dashboard's Scaling page.
 */
#ifndef PP_SCALING_H
#define PP_SCALING_H

#include "cli/cli.h"

extern const char scaling_usage[];
int scaling_main(struct cli *c, int argc, char **argv);

#endif
