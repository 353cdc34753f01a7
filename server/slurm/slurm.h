/*
 * slurm: the Slurm executor's settings and the running of a Slurm command, what executor.c, node.c and
 * fleet.c share (docs/ARCHITECTURE.md, "Slurm"). Queued jobs of the platforms that slurm_platforms selects
 * become Slurm batch jobs (sbatch, executor.h) that run `ppbench-worker serve --once --job ID` on the
 * allocated node; a node's state, drain and resume are node.h's; the executor's side of fleet health
 * fleet.h's.
 */
#ifndef PP_SLURM_H
#define PP_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"
#include "server/config.h"

#define SLURM_CMD_TIMEOUT_S 30 /* sbatch, squeue, scancel, scontrol, sinfo */

/* Check the slurm_* settings (a bad slurm_platforms selector is a startup error). */
int slurm_check_config(const struct config *c, struct pp_error *err) PP_WUR;

/* Copy and check the settings for the functions of server/slurm/ (slurm_start does it; the `ppbenchd slurm`
 * command too). url is the server's own URL, the default of slurm_server_url. */
int slurm_configure(const struct config *c, const char *url, struct pp_error *err) PP_WUR;
const struct config *slurm_config(void);
/* The URL the batch jobs' workers reach this server at (slurm_server_url, else the listen address). */
const char *slurm_url(void);

/* Whether the executor runs (the drain API answers 404 otherwise); slurm_start sets it. */
bool slurm_enabled(void);
void slurm_set_enabled(bool on);

/* Whether the executor takes the jobs of a platform of this kind on this host (slurm_platforms); its kind
 * selector ("" any) and host pattern as SQL LIKE ("%" any). */
bool slurm_takes(const char *kind, const char *host);
const char *slurm_takes_kind(void);
const char *slurm_takes_like(void);

/* Run argv (argv[0] found on PATH), stdout and stderr into out (NUL-terminated, truncated to size), killed
 * after timeout_s. Returns the exit status (0..255), or -1 with err when it could not run or was killed. */
int slurm_exec(const char *const argv[], char *out, size_t size, int timeout_s, struct pp_error *err) PP_WUR;

/* The last non-empty line of a Slurm command's output, without "sbatch: error: " (in place). */
const char *slurm_last_line(char *out);

#endif
