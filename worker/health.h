/*
 * health: `ppbench-worker health`, a quick node check for Slurm's HealthCheckProgram or NHC
 * (worker/health.c).
 */
#ifndef PP_HEALTH_H
#define PP_HEALTH_H

/* Exit status: 0 healthy, 1 unhealthy (one line on stdout says why), 2 bad options. */
int health_main(int argc, char **argv);

#endif
