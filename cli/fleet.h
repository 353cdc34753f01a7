/*
 * fleet: `ppbench schedules` (list, create, pause, resume, run) and `ppbench health` (the platforms' health
 * states with their reasons; clear) over the fleet health API (docs/API.md, "Fleet health").
 */
#ifndef PP_CLI_FLEET_H
#define PP_CLI_FLEET_H

#include "cli/cli.h"

extern const char fleet_schedules_usage[];
extern const char fleet_health_usage[];
int fleet_schedules_main(struct cli *c, int argc, char **argv);
int fleet_health_main(struct cli *c, int argc, char **argv);

#endif
