/*
 * slurm: the Slurm executor (docs/ARCHITECTURE.md, "Slurm"). Queued jobs of the platforms that
 * slurm_platforms selects become Slurm batch jobs (sbatch) that run `ppbench-worker serve --once --job ID` on
 * the allocated node; a thread follows them (squeue), cancels the Slurm job of a cancelled ppbench job
 * (scancel), and re-queues or fails a ppbench job whose Slurm job ended without a result, with Slurm's
 * reason. Also the drain and resume of a node (scontrol) that health failures call.
 */
#ifndef PP_SLURM_H
#define PP_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/error.h"
#include "server/config.h"

struct slurm;

/* Check the slurm_* settings (a bad slurm_platforms selector is a startup error). */
int slurm_check_config(const struct config *c, struct pp_error *err) PP_WUR;

/* Start the executor's thread when slurm_partition is set (else *out = NULL and nothing runs). c is copied;
 * url is the server's own URL, the default of slurm_server_url. */
int slurm_start(const struct config *c, const char *url, struct slurm **out, struct pp_error *err) PP_WUR;
void slurm_stop(struct slurm *s);

/* `ppbenchd slurm show|resume NODE`, `ppbenchd slurm drain NODE REASON`: the drain hook command that fleet
 * health runs (same settings file). Prints the node on one line; exit 0 done, 1 resume refused (someone
 * else's drain), 2 bad arguments, 3 Slurm failed. */
int slurm_command(const struct config *c, int argc, char **argv);

/* Copy and check the settings for the functions here (slurm_start does it; the `ppbenchd slurm` command too).
 */
int slurm_configure(const struct config *c, const char *url, struct pp_error *err) PP_WUR;
const struct config *slurm_config(void);

/* The last non-empty line of a Slurm command's output, without "sbatch: error: " (in place). */
const char *slurm_last_line(char *out);

/* Whether the executor is configured (the drain API answers 404 otherwise). */
bool slurm_enabled(void);

/* Whether the executor takes the jobs of a platform of this kind on this host (slurm_platforms); its kind
 * selector ("" any) and host pattern as SQL LIKE ("%" any). */
bool slurm_takes(const char *kind, const char *host);
const char *slurm_takes_kind(void);
const char *slurm_takes_like(void);

/* slurm_fleet.c. On the executor's thread, each tick: the partition's nodes into slurm_nodes every
 * slurm_nodes_s (the platforms found on them), and the drain or resume that health events ask for. */
void slurm_fleet_tick(void);
void slurm_fleet_refresh_soon(void);

/* A job's partition and gres (NULL: none asked) against Slurm's partitions (sinfo, kept 30 s): 0 known, or
 * Slurm could not be asked (the job is accepted, the executor retries it); 1 unknown, with the field
 * ("slurm.partition", "slurm.gres") and the message. Any thread. */
int slurm_target_check(const char *partition, const char *gres, const char **field, char *msg, size_t size);

/* A node's state and reason as `scontrol show node` gives them. */
struct slurm_node {
    char name[128];
    char state[128];  /* "IDLE+DRAIN", "ALLOCATED", ... */
    char reason[512]; /* "" when none; Slurm appends " [user@time]" */
    bool drained;     /* the state has DRAIN (draining or drained) */
    bool ours;        /* the reason starts with "ppbench:" */
};

/* Whether name is a node name we pass to scontrol (letters, digits, '.', '_', '-'; 1..127). */
bool slurm_node_name_ok(const char *name);

int slurm_node_get(const char *node, struct slurm_node *out, struct pp_error *err) PP_WUR;

/* The nodes of a partition as sinfo -N gives them (new reference): [{"node", "state" ("idle", "allocated",
 * "drained", "down", ...), "reason" (null when none), "ppbench_drain"}]. What a fleet sweep of "every node
 * of partition P" expands to, one job per node; NULL with err when sinfo fails. */
json_t *slurm_nodes(const char *partition, struct pp_error *err);

/* Drain node with Reason="ppbench: <text>". Fills out with the node after the change. Returns 1, and leaves
 * the node alone, when it is drained already by someone else (their reason is never overwritten). */
int slurm_drain(const char *node, const char *text, struct slurm_node *out, struct pp_error *err) PP_WUR;

/* Resume node when it is drained with ppbench's own reason. Returns 0 (resumed, or not drained at all: out
 * says which), -1 with err on failure, and 1 when the drain is someone else's: it is left alone. */
int slurm_resume(const char *node, struct slurm_node *out, struct pp_error *err) PP_WUR;

/* Run argv (argv[0] found on PATH), stdout and stderr into out (NUL-terminated, truncated to size), killed
 * after timeout_s. Returns the exit status (0..255), or -1 with err when it could not run or was killed. */
int slurm_exec(const char *const argv[], char *out, size_t size, int timeout_s, struct pp_error *err) PP_WUR;

#endif
