/*
 * fleet: the Slurm executor's side of the fleet (fleet.c), on the executor's thread at each tick: the
 * partition's nodes into slurm_nodes every slurm_nodes_s (the platforms found on them), and the drain or
 * resume that health events ask for.
 */
#ifndef PP_SLURM_FLEET_H
#define PP_SLURM_FLEET_H

void slurm_fleet_tick(void);

#endif
