/*
 * executor: the Slurm executor's thread (executor.c): queued jobs of the platforms that slurm_platforms
 * selects become Slurm batch jobs (sbatch); the thread follows them (squeue), cancels the Slurm job of a
 * cancelled ppbench job (scancel), and re-queues or fails a ppbench job whose Slurm job ended without a
 * result, with Slurm's reason.
 */
#ifndef PP_SLURM_EXECUTOR_H
#define PP_SLURM_EXECUTOR_H

#include "lib/error.h"
#include "server/config.h"

struct slurm;

/* Start the executor's thread when slurm_partition is set (else *out = NULL and nothing runs). c is copied;
 * url is the server's own URL, the default of slurm_server_url. */
int slurm_start(const struct config *c, const char *url, struct slurm **out, struct pp_error *err) PP_WUR;
void slurm_stop(struct slurm *s);

#endif
